//! What Claude Code's runtime runs or loads besides its CLAUDE.md chain: the
//! commands of the settings' hooks and helpers, the MCP servers of
//! `.mcp.json`, and the endpoint a settings `env` can point elsewhere.

use std::path::Path;

use crate::agent::reach::{Finder, Reach};
use crate::workspace::Workspace;

/// The variable Claude Code sets to the project folder for hook commands.
const VARS: &[&str] = &["CLAUDE_PROJECT_DIR"];

/// Settings keys whose value is a command Claude Code runs.
const COMMANDS: &[(&str, &str)] = &[
    ("/apiKeyHelper", "apiKeyHelper command"),
    ("/statusLine/command", "status line command"),
    ("/otelHeadersHelper", "otelHeadersHelper command"),
    ("/awsAuthRefresh", "awsAuthRefresh command"),
    ("/awsCredentialExport", "awsCredentialExport command"),
];

/// Variables in a settings `env` that send the model's requests elsewhere.
const ENDPOINTS: &[&str] = &[
    "ANTHROPIC_BASE_URL",
    "ANTHROPIC_BEDROCK_BASE_URL",
    "ANTHROPIC_VERTEX_BASE_URL",
    "HTTPS_PROXY",
    "HTTP_PROXY",
];

pub(crate) fn reach(workdir: &Path, ws: &Workspace, home: Option<&Path>) -> Reach {
    let mut f = Finder::new(ws, workdir);
    if let Some(home) = home {
        // The workflow's own settings: their endpoint is the workflow's
        // choice, but a hook there can still run a repository file.
        for name in ["settings.json", "settings.local.json"] {
            let shown = format!("~/.claude/{name}");
            if let Some(bytes) = f.read_home(home, &format!(".claude/{name}"), &shown) {
                if let Some((v, by)) = f.parse_json(&bytes, shown) {
                    settings(&mut f, &v, &by, false);
                }
            }
        }
    }
    for dir in f.project_dirs() {
        for name in ["settings.json", "settings.local.json"] {
            if let Some((v, by)) = f.json(&dir.join(".claude").join(name)) {
                settings(&mut f, &v, &by, true);
            }
        }
        if let Some((v, by)) = f.json(&dir.join(".mcp.json")) {
            f.mcp_servers(&v["mcpServers"], &by, VARS);
        }
    }
    f.reach
}

fn settings(f: &mut Finder, v: &serde_json::Value, by: &str, in_repository: bool) {
    f.hooks(&v["hooks"], by, VARS);
    for (pointer, kind) in COMMANDS {
        if let Some(command) = v.pointer(pointer).and_then(|c| c.as_str()) {
            f.command(command, kind, by, VARS);
        }
    }
    f.mcp_servers(&v["mcpServers"], by, VARS);
    if in_repository {
        for key in ENDPOINTS {
            if v["env"].get(key).is_some() {
                f.endpoint(key, by);
            }
        }
    }
}
