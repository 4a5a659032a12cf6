//! What Codex's runtime runs or loads besides its AGENTS.md chain: hook
//! commands (`.codex/hooks.json`, `[hooks]` in a config), MCP servers and
//! `notify` in `.codex/config.toml`, a file that replaces the model's
//! instructions (`model_instructions_file`), and a provider's base URL.

use std::path::Path;

use serde_json::Value;

use crate::agent::reach::{Finder, Reach};
use crate::workspace::Workspace;

/// Config keys whose value is a file Codex sends the model as instructions.
const INSTRUCTION_FILES: &[&str] = &["model_instructions_file", "experimental_instructions_file"];

pub(crate) fn reach(workdir: &Path, ws: &Workspace, home: Option<&Path>) -> Reach {
    let mut f = Finder::new(ws, workdir);
    if let Some(home) = home {
        // codex-home is the workflow's: its provider points at codex-action's
        // proxy, but a hook or server there can still run a repository file.
        if let Some(bytes) = f.read_home(home, "hooks.json", "$CODEX_HOME/hooks.json") {
            if let Some((v, by)) = f.parse_json(&bytes, "$CODEX_HOME/hooks.json".into()) {
                f.hooks(&v["hooks"], &by, &[]);
            }
        }
        if let Some(bytes) = f.read_home(home, "config.toml", "$CODEX_HOME/config.toml") {
            if let Some(v) = toml_value(&mut f, &bytes, "$CODEX_HOME/config.toml") {
                config(&mut f, &v, "$CODEX_HOME/config.toml", None);
            }
        }
    }
    for dir in f.project_dirs() {
        let folder = dir.join(".codex");
        if let Some((v, by)) = f.json(&folder.join("hooks.json")) {
            f.hooks(&v["hooks"], &by, &[]);
        }
        let path = folder.join("config.toml");
        if let Some(bytes) = f.read(&path) {
            let by = ws.relative(&path);
            if let Some(v) = toml_value(&mut f, &bytes, &by) {
                config(&mut f, &v, &by, Some(&folder));
            }
        }
    }
    f.reach
}

fn toml_value(f: &mut Finder, bytes: &[u8], by: &str) -> Option<Value> {
    let text = String::from_utf8_lossy(bytes);
    match toml::from_str::<Value>(&text) {
        Ok(v) => Some(v),
        Err(_) => {
            f.unseen(
                "what a configuration runs",
                format!("`{by}` is not TOML the receipt can read: the hooks and servers it may name are not compared with the base"),
            );
            None
        }
    }
}

/// One config: `folder` is the repository's `.codex` it is in (`None` for
/// codex-home's, whose provider and files are the workflow's).
fn config(f: &mut Finder, v: &Value, by: &str, folder: Option<&Path>) {
    f.hooks(&v["hooks"], by, &[]);
    f.mcp_servers(&v["mcp_servers"], by, &[]);
    if let Some(words) = v["notify"].as_array() {
        let notify = serde_json::json!({"notify": [{"command": words}]});
        f.hooks(&notify, by, &[]);
    }
    let Some(folder) = folder else {
        return;
    };
    for key in INSTRUCTION_FILES {
        let Some(name) = v[key].as_str() else {
            continue;
        };
        // Relative to the config's folder, as Codex resolves its paths.
        match f.within(name, folder) {
            Some(path) => f.place(&path, "model instructions file", by),
            None => f.outside(name, "model instructions file", by),
        }
    }
    for key in ["openai_base_url", "chatgpt_base_url"] {
        if v.get(key).is_some() {
            f.endpoint(key, by);
        }
    }
    if let Some(providers) = v["model_providers"].as_object() {
        if providers.values().any(|p| p.get("base_url").is_some()) {
            f.endpoint("model_providers.*.base_url", by);
        }
    }
}
