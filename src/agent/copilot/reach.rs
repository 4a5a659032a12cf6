//! What Copilot CLI's runtime runs or loads besides its instruction chain:
//! the hooks of `.github/hooks/*.json` and of the repository settings
//! (`.github/copilot/settings.json`, `settings.local.json`), and the MCP
//! servers of `.mcp.json` (or `.github/mcp.json` when there is none). Hooks
//! and MCP servers run only in a trusted folder; they are listed whether or
//! not the run trusted it, since the workflow decides that. Custom agents
//! (`.github/agents/`, `.claude/agents/`) and skills (`.github/skills/`,
//! `.claude/skills/`, `.agents/skills/`, `.claude/commands/`) load without
//! trust, and are compared with the base by their folders
//! ([`super::BASE_GLOBS`]).

use std::path::{Path, PathBuf};

use serde_json::Value;

use crate::agent::reach::{Finder, Reach};
use crate::agent::turns::HookConfig;
use crate::workspace::Workspace;

/// The repository's settings files, relative to the git root.
const SETTINGS: &[&str] = &[
    ".github/copilot/settings.json",
    ".github/copilot/settings.local.json",
];

/// Copilot CLI's hook shape (`{event: [{type: "command", bash, powershell}]}`)
/// in the shared reader's (`command`).
fn as_shared(hooks: &Value) -> Value {
    let Some(events) = hooks.as_object() else {
        return Value::Null;
    };
    let mut out = serde_json::Map::new();
    for (event, entries) in events {
        let list: Vec<Value> = entries
            .as_array()
            .into_iter()
            .flatten()
            .flat_map(|e| {
                // A hook run in another folder (`cwd`) names its files from
                // there: said as the shell would run it, `cd` first, which
                // the shared reader reports as not compared.
                let cwd = e
                    .get("cwd")
                    .and_then(Value::as_str)
                    .filter(|d| !d.is_empty() && *d != ".");
                ["bash", "command"]
                    .iter()
                    .filter_map(|k| e.get(*k).and_then(Value::as_str))
                    .map(|c| match cwd {
                        Some(d) => serde_json::json!({"command": format!("cd {d} && {c}")}),
                        None => serde_json::json!({"command": c}),
                    })
                    .collect::<Vec<_>>()
            })
            .collect();
        out.insert(event.clone(), Value::Array(list));
    }
    Value::Object(out)
}

/// `.github/hooks/*.json` under the git root, sorted, bounded.
pub(crate) fn hook_files(root: &Path) -> Vec<PathBuf> {
    let Ok(entries) = std::fs::read_dir(root.join(".github/hooks")) else {
        return Vec::new();
    };
    let mut out: Vec<PathBuf> = entries
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|e| e == "json"))
        .collect();
    out.sort();
    out.truncate(crate::limits::HOOK_FILES);
    out
}

pub(crate) fn reach(workdir: &Path, ws: &Workspace, home: Option<&Path>) -> Reach {
    let root = super::chain::git_root(workdir, ws);
    let mut f = Finder::new(ws, workdir);
    if let Some(home) = home {
        // `config.json` is the CLI's own state (JSON with comments), not settings.
        let shown = format!("{}settings.json", super::chain::HOME_PREFIX);
        if let Some(bytes) = f.read_home(home, "settings.json", &shown) {
            if let Some((v, by)) = f.parse_json(&bytes, shown) {
                f.hooks(&as_shared(&v["hooks"]), &by, &[]);
            }
        }
    }
    for path in hook_files(&root) {
        if let Some((v, by)) = f.json(&path) {
            f.hooks(&as_shared(&v["hooks"]), &by, &[]);
        }
    }
    for rel in SETTINGS {
        if let Some((v, by)) = f.json(&root.join(rel)) {
            f.hooks(&as_shared(&v["hooks"]), &by, &[]);
        }
    }
    // `.github/mcp.json` is read only when there is no `.mcp.json`.
    let mcp = root.join(".mcp.json");
    let mcp = if std::fs::symlink_metadata(&mcp).is_ok() {
        mcp
    } else {
        root.join(".github/mcp.json")
    };
    f.place(&root.join(".mcp.json"), "MCP configuration", "Copilot CLI");
    f.place(
        &root.join(".github/mcp.json"),
        "MCP configuration",
        "Copilot CLI",
    );
    if let Some((v, by)) = f.json(&mcp) {
        f.mcp_servers(&v["mcpServers"], &by, &[]);
    }
    f.reach
}

/// The files that configure hooks, each hashed (the receipt's `hooks`).
pub(crate) fn hook_configs(
    workdir: &Path,
    ws: &Workspace,
    unread: &mut Vec<String>,
) -> Vec<HookConfig> {
    let root = super::chain::git_root(workdir, ws);
    let mut paths = hook_files(&root);
    paths.extend(SETTINGS.iter().map(|s| root.join(s)));
    let mut out = Vec::new();
    for path in paths {
        let shown = ws.relative(&path);
        match crate::workspace::read_contained(&path, &[ws.root()], crate::limits::CONFIG_BYTES) {
            Ok(bytes) => out.push(HookConfig {
                path: shown,
                sha256: crate::digest::sha256_hex(&bytes),
            }),
            Err(crate::workspace::Unread::Missing) => {}
            Err(why) => unread.push(format!(
                "{}: the hooks it may hold are not hashed",
                why.why(&shown)
            )),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hook_scripts_and_mcp_servers_are_reached() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        std::fs::create_dir_all(root.join(".github/hooks")).unwrap();
        std::fs::create_dir_all(root.join("tools")).unwrap();
        std::fs::write(
            root.join(".github/hooks/h.json"),
            r#"{"version":1,"hooks":{"sessionStart":[{"type":"command","bash":"sh .github/hooks/start.sh","timeoutSec":5}]}}"#,
        )
        .unwrap();
        std::fs::write(root.join(".github/hooks/start.sh"), "true\n").unwrap();
        std::fs::write(
            root.join(".github/mcp.json"),
            r#"{"mcpServers":{"x":{"type":"local","command":"node","args":["tools/srv.js"]}}}"#,
        )
        .unwrap();
        std::fs::write(root.join("tools/srv.js"), "\n").unwrap();
        let ws = Workspace::open(root).unwrap();
        let r = reach(ws.root(), &ws, None);
        let kinds: Vec<(&str, &str)> = r
            .files
            .iter()
            .map(|f| (f.path.as_str(), f.kind.as_str()))
            .collect();
        assert!(
            kinds.contains(&(".github/hooks/start.sh", "sessionStart hook")),
            "{kinds:?}"
        );
        assert!(kinds.contains(&("tools/srv.js", "MCP server")), "{kinds:?}");
        let mut unread = Vec::new();
        let configs = hook_configs(ws.root(), &ws, &mut unread);
        assert_eq!(configs[0].path, ".github/hooks/h.json");
    }
}
