//! What Gemini CLI's runtime runs or loads besides its GEMINI.md chain: the
//! hooks, MCP servers and tool commands of its settings, the `.env` file it
//! loads (a trusted workspace's, the first found from the working directory
//! up), and what that file names: a system prompt (`GEMINI_SYSTEM_MD`) and an
//! endpoint.

use std::path::Path;

use crate::agent::reach::{Finder, Reach, dotenv};
use crate::workspace::Workspace;

/// The variables Gemini CLI replaces in a hook command with the project folder.
const VARS: &[&str] = &["GEMINI_PROJECT_DIR", "GEMINI_CWD", "CLAUDE_PROJECT_DIR"];

/// Variables that send the model's requests elsewhere.
const ENDPOINTS: &[&str] = &[
    "GOOGLE_GEMINI_BASE_URL",
    "GOOGLE_VERTEX_BASE_URL",
    "GOOGLE_GENAI_BASE_URL",
    "CODE_ASSIST_ENDPOINT",
    "HTTPS_PROXY",
    "HTTP_PROXY",
];

pub(crate) fn reach(workdir: &Path, ws: &Workspace, home: Option<&Path>) -> Reach {
    let mut f = Finder::new(ws, workdir);
    if let Some(home) = home {
        if let Some(bytes) = f.read_home(home, "settings.json", "~/.gemini/settings.json") {
            if let Some((v, by)) = f.parse_json(&bytes, "~/.gemini/settings.json".into()) {
                settings(&mut f, &v, &by);
            }
        }
    }
    if let Some((v, by)) = f.json(&workdir.join(super::chain::SETTINGS)) {
        settings(&mut f, &v, &by);
    }
    env_file(&mut f, workdir, ws);
    f.reach
}

fn settings(f: &mut Finder, v: &serde_json::Value, by: &str) {
    f.hooks(&v["hooks"], by, VARS);
    f.mcp_servers(&v["mcpServers"], by, VARS);
    for (key, kind) in [
        ("discoveryCommand", "tool discovery command"),
        ("callCommand", "tool call command"),
    ] {
        if let Some(command) = v["tools"][key].as_str() {
            f.command(command, kind, by, VARS);
        }
    }
}

/// Gemini CLI loads one `.env`: from the working directory up, `.gemini/.env`
/// then `.env` in each folder, the first there. Every place inside the
/// checkout is listed (adding one is a change); the one loaded is read.
fn env_file(f: &mut Finder, workdir: &Path, ws: &Workspace) {
    let mut loaded = None;
    let mut dir = workdir.to_path_buf();
    loop {
        for name in [".gemini/.env", ".env"] {
            let path = dir.join(name);
            f.place(&path, ".env file", "Gemini CLI");
            if loaded.is_none() && std::fs::symlink_metadata(&path).is_ok() {
                loaded = Some(path);
            }
        }
        if dir == ws.root() || !dir.pop() || !dir.starts_with(ws.root()) {
            break;
        }
    }
    let Some(path) = loaded else {
        return;
    };
    let Some(bytes) = f.read(&path) else {
        return;
    };
    let by = ws.relative(&path);
    for (key, value) in dotenv(&bytes) {
        if ENDPOINTS.contains(&key.as_str()) {
            f.endpoint(&key, &by);
        }
        if key == "GEMINI_SYSTEM_MD" {
            system_md(f, value.trim(), workdir, &by);
        }
    }
}

/// `GEMINI_SYSTEM_MD`: `true`/`1` reads `.gemini/system.md`, a path reads
/// that file, from the working directory, in place of the system prompt.
fn system_md(f: &mut Finder, value: &str, workdir: &Path, by: &str) {
    let lower = value.to_ascii_lowercase();
    let name = match lower.as_str() {
        "" | "0" | "false" => return,
        "1" | "true" => ".gemini/system.md",
        _ => value,
    };
    match f.within(name, workdir) {
        Some(path) => f.place(&path, "system prompt file", by),
        None => f.outside(name, "system prompt (GEMINI_SYSTEM_MD)", by),
    }
}
