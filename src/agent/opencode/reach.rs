//! What opencode's runtime runs or loads besides its instruction chain
//! (measured at 1.18.32 and 1.18.33, docs/opencode.md):
//!
//! - plugins: every file of `.opencode/plugins/` and `.opencode/plugin/`
//!   (the home's `~/.config/opencode/` too), and each local file the
//!   configuration's `plugin` list names. Their hooks can rewrite the system
//!   prompt and the request, even under `--pure`; a plugin named by npm
//!   package is installed at run time, and nothing of it is in the checkout;
//! - the local MCP servers (`mcp.<name>.command`, a list of words) and the
//!   formatter and LSP commands of the configuration: started from the
//!   folder opencode was started in;
//! - custom tools of `.opencode/tools/` and `.opencode/tool/`;
//! - the configuration files themselves, and a provider `baseURL` a
//!   project's configuration sets.
//!
//! Agents, commands and skills (`.opencode/`, `.claude/skills/`,
//! `.agents/skills/`) are loaded as text and compared with the base by their
//! folders ([`super::BASE_GLOBS`]).

use std::path::Path;

use serde_json::Value;

use super::chain;
use crate::agent::reach::{Finder, Reach};
use crate::workspace::Workspace;

/// opencode's plugin and custom tool folders, inside a `.opencode/`.
const FOLDERS: &[(&str, &str)] = &[
    ("plugins", "opencode plugin"),
    ("plugin", "opencode plugin"),
    ("tools", "opencode custom tool"),
    ("tool", "opencode custom tool"),
];

pub(crate) fn reach(workdir: &Path, ws: &Workspace, home: Option<&Path>) -> Reach {
    let mut f = Finder::new(ws, workdir);
    let mut warnings = Vec::new();
    for (path, shown, inside) in chain::config_files(workdir, ws, home) {
        if inside.is_none() {
            f.place(&path, "opencode config", "opencode");
        }
        let Some(v) = chain::read_config(&path, &shown, inside.as_deref(), ws, &mut warnings)
        else {
            continue;
        };
        config(&mut f, &v, &shown, inside.is_some(), &path);
    }
    for why in warnings {
        f.unseen("what a configuration runs", why);
    }
    let mut dirs = chain::up(workdir, ws);
    dirs.reverse();
    for dir in dirs {
        folders(&mut f, &dir.join(".opencode"));
    }
    f.reach
}

/// The plugin and tool files of one `.opencode/` folder, each listed.
fn folders(f: &mut Finder, dot: &Path) {
    for (name, kind) in FOLDERS {
        let Ok(entries) = std::fs::read_dir(dot.join(name)) else {
            continue;
        };
        let mut files: Vec<_> = entries
            .flatten()
            .filter(|e| e.file_type().is_ok_and(|t| !t.is_dir()))
            .map(|e| e.path())
            .collect();
        files.sort();
        for path in files.into_iter().take(crate::limits::PLUGIN_FOLDER_FILES) {
            f.place(&path, kind, "opencode");
        }
    }
}

/// What one configuration names: plugins, MCP servers, formatter and LSP
/// commands, a provider's endpoint.
fn config(f: &mut Finder, v: &Value, by: &str, in_home: bool, path: &Path) {
    let dir = path.parent().unwrap_or(f.cwd).to_path_buf();
    for p in v["plugin"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(Value::as_str)
    {
        plugin(f, p, by, &dir);
    }
    for server in v["mcp"].as_object().into_iter().flat_map(|m| m.values()) {
        if server["enabled"] == false {
            continue;
        }
        match server["command"].as_array() {
            Some(words) => {
                let words: Vec<&str> = words.iter().filter_map(Value::as_str).collect();
                if let Some((program, args)) = words.split_first() {
                    let shared = serde_json::json!({"x": {"command": program, "args": args}});
                    f.mcp_servers(&shared, by, &[]);
                }
            }
            None if server["url"].is_string() => f.unseen(
                "what an MCP server runs",
                format!("`{by}` names a remote MCP server: what it answers the model is not in the checkout"),
            ),
            None => {}
        }
    }
    for (key, kind) in [("formatter", "formatter command"), ("lsp", "LSP command")] {
        for entry in v[key].as_object().into_iter().flat_map(|m| m.values()) {
            if entry["disabled"] == true {
                continue;
            }
            let Some(words) = entry["command"].as_array() else {
                continue;
            };
            let line: Vec<String> = words
                .iter()
                .filter_map(Value::as_str)
                .map(|w| shlex::try_quote(w).map_or_else(|_| w.to_string(), |q| q.into_owned()))
                .collect();
            if !line.is_empty() {
                f.command(&line.join(" "), kind, by, &[]);
            }
        }
    }
    if !in_home {
        for provider in v["provider"]
            .as_object()
            .into_iter()
            .flat_map(|m| m.values())
        {
            if provider["options"]["baseURL"].is_string() {
                f.endpoint("provider.options.baseURL", by);
            }
        }
    }
}

/// One entry of `plugin`: a local file (a path, `file://`) is listed; an
/// npm package opencode installs at run time is said.
fn plugin(f: &mut Finder, entry: &str, by: &str, dir: &Path) {
    let local = entry.strip_prefix("file://").unwrap_or(entry);
    if local.starts_with('.') || local.starts_with('/') {
        match f.within(local, dir) {
            Some(path) => f.place(&path, "opencode plugin", by),
            None => f.outside(local, "plugin", by),
        }
        return;
    }
    f.unseen(
        "what a plugin runs",
        format!(
            "`{by}` names the plugin `{}`, a package opencode installs from npm when it starts: its code is not in the checkout, and its hooks can rewrite the system prompt",
            crate::escape::one_line(&crate::markdown::clip(entry, 120)).replace('`', "'")
        ),
    );
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn plugins_servers_formatters_and_tools_are_reached() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        std::fs::create_dir_all(root.join(".git")).unwrap();
        let w = |p: &str, t: &str| {
            let p = root.join(p);
            std::fs::create_dir_all(p.parent().unwrap()).unwrap();
            std::fs::write(p, t).unwrap();
        };
        w(".opencode/plugins/guard.ts", "export default {}\n");
        w(".opencode/tools/t.ts", "\n");
        w("tools/mcp.js", "\n");
        w("tools/fmt.sh", "\n");
        w("local-plugin.js", "\n");
        w(
            "opencode.json",
            r#"{"plugin": ["./local-plugin.js", "opencode-foo@1.0.0"],
               "mcp": {"db": {"type": "local", "command": ["node", "tools/mcp.js"]}},
               "formatter": {"x": {"command": ["sh", "tools/fmt.sh", "$FILE"], "extensions": [".md"]}},
               // a comment
               "provider": {"p": {"options": {"baseURL": "http://x"}}},}"#,
        );
        let ws = Workspace::open(root).unwrap();
        let r = reach(ws.root(), &ws, None);
        let kinds: Vec<(&str, &str)> = r
            .files
            .iter()
            .map(|f| (f.path.as_str(), f.kind.as_str()))
            .collect();
        for want in [
            ("opencode.json", "opencode config"),
            ("local-plugin.js", "opencode plugin"),
            ("tools/mcp.js", "MCP server"),
            ("tools/fmt.sh", "formatter command"),
            (".opencode/plugins/guard.ts", "opencode plugin"),
            (".opencode/tools/t.ts", "opencode custom tool"),
        ] {
            assert!(kinds.contains(&want), "{want:?} in {kinds:?}");
        }
        let unseen: Vec<&str> = r.unseen.iter().map(|(w, _)| w.as_str()).collect();
        assert!(unseen.contains(&"what a plugin runs"), "{unseen:?}");
        assert!(unseen.contains(&"the model's endpoint"), "{unseen:?}");
    }
}
