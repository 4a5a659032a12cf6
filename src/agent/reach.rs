//! The runtime's reach: the repository files an agent's runtime runs or loads
//! besides its instruction chain, found from the configuration that names them.
//!
//! A hook's configuration can stay as the base has it while the script it
//! runs (`sh scripts/guard.sh`) is rewritten by the pull request: the script
//! can rewrite the model's answer, add text to its input, or copy the job's
//! secrets, and no instruction file changes. The same holds for an MCP
//! server's program, a `.env` file the CLI loads (which can swap the system
//! prompt or the endpoint), and a file a setting or variable names. Each agent
//! reads its own configuration layers ([`super::AgentKind::reach`]); this
//! module holds what they share: reading a configuration safely, finding the
//! commands in hooks and MCP servers, and resolving a command to the
//! repository files it runs, as the shell would from the working directory.
//! Every such file is compared with the base like an instruction file, listed
//! in the receipt (`runtime`) and hashed again by `verify`. What cannot be
//! resolved (a command substitution, a variable in a path, a file outside the
//! checkout) is said, never skipped.

use std::path::{Component, Path, PathBuf};

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::limits;
use crate::workspace::{Unread, Workspace};

/// One repository file (or folder) the agent's runtime runs or loads.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct RuntimeFile {
    /// Relative to the workspace; a folder ends with `/`.
    pub(crate) path: String,
    /// What it is to the agent: `PreToolUse hook`, `MCP server`, `.env file`,
    /// `system prompt file`.
    pub(crate) kind: String,
    /// The configuration that names it: `.claude/settings.json`.
    pub(crate) by: String,
    /// SHA-256 of the file's bytes; `null` for a folder, or a file that is
    /// not in the checkout (a pull request that adds it is still a change).
    pub(crate) sha256: Option<String>,
}

/// What the runtime reaches, and what the receipt cannot follow.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(crate) struct Reach {
    pub(crate) files: Vec<RuntimeFile>,
    /// Each thing the receipt cannot see through: (what, why). Not verified,
    /// so the run is never green over it.
    pub(crate) unseen: Vec<(String, String)>,
    /// Hook commands the configurations name: a hook's text in the record is
    /// accounted for only where one is configured.
    pub(crate) hook_commands: usize,
}

/// Programs whose first argument names a task in a manifest of the working
/// directory: the manifest is what runs.
const MANIFESTS: &[(&str, &[&str])] = &[
    ("npm", &["package.json"]),
    ("pnpm", &["package.json"]),
    ("yarn", &["package.json"]),
    ("bun", &["package.json"]),
    ("make", &["Makefile", "makefile", "GNUmakefile"]),
    ("just", &["justfile", "Justfile"]),
    ("uv", &["pyproject.toml"]),
    ("poetry", &["pyproject.toml"]),
];

/// Reads what one agent's runtime reaches; each agent's `reach` calls these.
pub(crate) struct Finder<'a> {
    pub(crate) ws: &'a Workspace,
    /// The working directory, where commands start.
    pub(crate) cwd: &'a Path,
    root: PathBuf,
    pub(crate) reach: Reach,
    /// A file outside the checkout is not said: a workflow step's (the
    /// runner's tools, a file an earlier step wrote under its temp folder)
    /// is no file the pull request writes.
    outside_is_fine: bool,
}

impl<'a> Finder<'a> {
    pub(crate) fn new(ws: &'a Workspace, cwd: &'a Path) -> Finder<'a> {
        let root = std::fs::canonicalize(ws.root()).unwrap_or_else(|_| ws.root().to_path_buf());
        Finder {
            ws,
            cwd,
            root,
            reach: Reach::default(),
            outside_is_fine: false,
        }
    }

    /// A finder for a workflow's steps: files outside the checkout are the
    /// runner's, not the pull request's.
    pub(crate) fn for_steps(ws: &'a Workspace, cwd: &'a Path) -> Finder<'a> {
        Finder {
            outside_is_fine: true,
            ..Finder::new(ws, cwd)
        }
    }

    /// The folders a project's configuration is read from: the root, then
    /// the working directory when it is another.
    pub(crate) fn project_dirs(&self) -> Vec<PathBuf> {
        let mut dirs = vec![self.ws.root().to_path_buf()];
        if self.cwd != self.ws.root() {
            dirs.push(self.cwd.to_path_buf());
        }
        dirs
    }

    /// A configuration file of the checkout, as bytes: `None` when it is not
    /// there, and said when it is there but cannot be read safely.
    pub(crate) fn read(&mut self, path: &Path) -> Option<Vec<u8>> {
        let shown = self.ws.relative(path);
        let root = self.root.clone();
        self.read_in(path, &root, &shown)
    }

    /// A configuration in the agent's home (`~/.claude/settings.json`): a
    /// command it names can still run a repository file.
    pub(crate) fn read_home(&mut self, home: &Path, rel: &str, shown: &str) -> Option<Vec<u8>> {
        let real = std::fs::canonicalize(home).unwrap_or_else(|_| home.to_path_buf());
        self.read_in(&home.join(rel), &real, shown)
    }

    fn read_in(&mut self, path: &Path, root: &Path, shown: &str) -> Option<Vec<u8>> {
        match crate::workspace::read_contained(path, &[root], limits::CONFIG_BYTES) {
            Ok(bytes) => Some(bytes),
            Err(Unread::Missing) => None,
            Err(why) => {
                self.unseen(
                    "what a configuration runs",
                    format!(
                        "{}: the hooks, servers and files it may name run or load without the receipt seeing them",
                        why.why(shown)
                    ),
                );
                None
            }
        }
    }

    /// A JSON configuration; one that is not JSON is said (the agent may
    /// still read it, more leniently).
    pub(crate) fn json(&mut self, path: &Path) -> Option<(Value, String)> {
        let bytes = self.read(path)?;
        let shown = self.ws.relative(path);
        self.parse_json(&bytes, shown)
    }

    pub(crate) fn parse_json(&mut self, bytes: &[u8], shown: String) -> Option<(Value, String)> {
        match serde_json::from_slice::<Value>(bytes) {
            Ok(v) => Some((v, shown)),
            Err(e) => {
                self.unseen(
                    "what a configuration runs",
                    format!(
                        "`{shown}` is not JSON the receipt can read ({}): the hooks and servers it may name are not compared with the base",
                        crate::escape::one_line(&e.to_string())
                    ),
                );
                None
            }
        }
    }

    pub(crate) fn unseen(&mut self, what: &str, why: String) {
        let item = (what.to_string(), why);
        if !self.reach.unseen.contains(&item) && self.reach.unseen.len() < limits::REACH_FILES {
            self.reach.unseen.push(item);
        }
    }

    /// A file the runtime loads by its place alone (`.env`): listed whether
    /// or not the checkout has it, so adding it is a change.
    pub(crate) fn place(&mut self, path: &Path, kind: &str, by: &str) {
        let rel = self.ws.relative(path);
        self.add(rel, kind, by, false);
    }

    fn add(&mut self, rel: String, kind: &str, by: &str, folder: bool) {
        let path = if folder { format!("{rel}/") } else { rel };
        // Behind a link the checkout already has: compared where it is too.
        if let Some(real) = real_path(self.ws, &self.root, &path) {
            let through = format!("{by} (through a link: `{}`)", shown(&path));
            self.add_once(path.clone(), kind, by, folder);
            return self.add_once(
                real.trim_end_matches('/').to_string(),
                kind,
                &through,
                folder,
            );
        }
        self.add_once(path.trim_end_matches('/').to_string(), kind, by, folder)
    }

    fn add_once(&mut self, rel: String, kind: &str, by: &str, folder: bool) {
        let path = if folder { format!("{rel}/") } else { rel };
        if self.reach.files.iter().any(|f| f.path == path)
            || self.reach.files.len() >= limits::REACH_FILES
        {
            return;
        }
        let sha256 = if folder {
            None
        } else {
            crate::workspace::read_contained(
                &self.ws.root().join(&path),
                &[&self.root],
                limits::RUNTIME_HASHED_BYTES,
            )
            .ok()
            .map(|b| crate::digest::sha256_hex(&b))
        };
        self.reach.files.push(RuntimeFile {
            path,
            kind: kind.to_string(),
            by: by.to_string(),
            sha256,
        });
    }

    /// Every hook command of a `hooks` object (Claude Code, Codex and Gemini
    /// CLI share its shape: event -> matchers -> `hooks` -> `command`), each
    /// resolved to the files it runs.
    pub(crate) fn hooks(&mut self, hooks: &Value, by: &str, vars: &[&str]) {
        let Some(events) = hooks.as_object() else {
            return;
        };
        let mut seen = 0;
        for (event, entries) in events {
            let kind = match event_name(event) {
                Some(e) => format!("{e} hook"),
                None => "hook".to_string(),
            };
            let mut commands = Vec::new();
            commands_in(entries, &mut commands, 0);
            for command in commands {
                seen += 1;
                self.reach.hook_commands += 1;
                if seen > limits::CONFIG_COMMANDS {
                    self.unseen(
                        "what the hooks run",
                        format!(
                            "`{by}` names more than {} hook commands: the rest are not compared with the base",
                            limits::CONFIG_COMMANDS
                        ),
                    );
                    return;
                }
                self.command(&command, &kind, by, vars);
            }
        }
    }

    /// MCP servers (`mcpServers` in JSON, `mcp_servers` in Codex's TOML):
    /// each local server's program, its arguments and working directory.
    pub(crate) fn mcp_servers(&mut self, servers: &Value, by: &str, vars: &[&str]) {
        let Some(servers) = servers.as_object() else {
            return;
        };
        for server in servers.values().take(limits::CONFIG_COMMANDS) {
            let Some(command) = server.get("command").and_then(Value::as_str) else {
                continue;
            };
            let cwd = match server.get("cwd").and_then(Value::as_str) {
                Some(dir) => match self.within(dir, self.cwd) {
                    Some(p) => p,
                    None => {
                        self.unseen(
                            "what an MCP server runs",
                            format!(
                                "an MCP server in `{by}` starts in `{}`, outside the checkout: what it runs is not compared with the base",
                                shown(dir)
                            ),
                        );
                        continue;
                    }
                },
                None => self.cwd.to_path_buf(),
            };
            // The program and each argument are words the shell never sees.
            let mut words = vec![command.to_string()];
            words.extend(
                server
                    .get("args")
                    .and_then(Value::as_array)
                    .into_iter()
                    .flatten()
                    .filter_map(Value::as_str)
                    .map(str::to_string),
            );
            self.words(&words, &cwd, "MCP server", by, vars, command);
        }
    }

    /// A command given as a string a shell runs (a hook, `apiKeyHelper`).
    pub(crate) fn command(&mut self, command: &str, kind: &str, by: &str, vars: &[&str]) {
        let expanded = expand(command, vars, self.cwd);
        if let Some(why) = opaque(&expanded) {
            self.unseen(
                "what a hook runs",
                format!(
                    "the {kind} `{}` in `{by}` {why}: what it runs is not compared with the base",
                    shown(command)
                ),
            );
            return;
        }
        let Some(words) = shlex::split(&expanded) else {
            self.unseen(
                "what a hook runs",
                format!(
                    "the {kind} `{}` in `{by}` has quotes that do not close: what it runs is not compared with the base",
                    shown(command)
                ),
            );
            return;
        };
        let cwd = self.cwd.to_path_buf();
        // Split at the shell's operators: each part starts a command again.
        let mut parts = Vec::new();
        for word in words {
            let mut piece = String::new();
            for c in word.chars() {
                if ";|&<>()".contains(c) {
                    if !piece.is_empty() {
                        parts.push(std::mem::take(&mut piece));
                    }
                    if c != '<' && c != '>' {
                        parts.push(String::from(";"));
                    }
                } else {
                    piece.push(c);
                }
            }
            if !piece.is_empty() {
                parts.push(piece);
            }
        }
        self.words(&parts, &cwd, kind, by, vars, command);
    }

    /// The files a list of words runs from `cwd`: a word at a command's place
    /// with a `/` (a script run by its path), every later word that names a
    /// file of the checkout (`sh guard.sh`), `-m pkg.mod`, a folder named with
    /// a `/`, and the manifest a task runner reads (`npm run x`).
    fn words(
        &mut self,
        words: &[String],
        cwd: &Path,
        kind: &str,
        by: &str,
        vars: &[&str],
        original: &str,
    ) {
        let mut at_command = true;
        let mut module_next = false;
        for word in words {
            if word == ";" {
                at_command = true;
                continue;
            }
            let word = &expand(word, vars, cwd);
            if module_next {
                module_next = false;
                // A module file, else a package: all of its folder runs.
                let path = word.replace('.', "/");
                if !self.file_word(&format!("{path}.py"), cwd, kind, by, false) {
                    self.folder_word(&path, cwd, kind, by);
                }
                continue;
            }
            if at_command && is_assignment(word) {
                // `X=path cmd`: the value may be a file the command reads.
                let value = &word[word.find('=').map_or(0, |i| i + 1)..];
                self.file_word(value, cwd, kind, by, true);
                continue;
            }
            if word.contains('$') {
                if word.contains('/') {
                    self.unseen(
                        "what a hook runs",
                        format!(
                            "the {kind} `{}` in `{by}` names a path through a variable: which file it runs is not compared with the base",
                            shown(original)
                        ),
                    );
                }
                at_command = false;
                continue;
            }
            if at_command {
                at_command = false;
                let name = word.rsplit('/').next().unwrap_or(word);
                if let Some((_, manifests)) = MANIFESTS.iter().find(|(p, _)| *p == name) {
                    for m in *manifests {
                        self.file_word(m, cwd, kind, by, false);
                    }
                }
                if word.contains('/') && !self.file_word(word, cwd, kind, by, true) {
                    // Not in the checkout (deleted, or a folder): what the
                    // base has there is what this command runs.
                    self.missing_word(word, cwd, kind, by);
                }
                continue;
            }
            if word == "-m" {
                module_next = true;
                continue;
            }
            let value = match word.split_once('=') {
                Some((flag, value)) if flag.starts_with('-') => value,
                _ if word.starts_with('-') => continue,
                _ => word.as_str(),
            };
            if !self.file_word(value, cwd, kind, by, false) && value.contains('/') {
                self.folder_word(value, cwd, kind, by);
            }
        }
    }

    /// A word that names a file of the checkout (a link counts: it is what
    /// runs). `say_outside`: a path out of the checkout is said.
    fn file_word(
        &mut self,
        word: &str,
        cwd: &Path,
        kind: &str,
        by: &str,
        say_outside: bool,
    ) -> bool {
        if word.is_empty() {
            return false;
        }
        let Some(path) = self.within(word, cwd) else {
            if say_outside
                && !self.outside_is_fine
                && !word.starts_with("/usr/")
                && !word.starts_with("/bin/")
            {
                self.outside(word, kind, by);
            }
            return false;
        };
        match std::fs::symlink_metadata(&path) {
            Ok(m) if !m.is_dir() => {
                let rel = self.ws.relative(&path);
                self.add(rel, kind, by, false);
                true
            }
            _ => false,
        }
    }

    /// A path a command runs that the checkout lacks or has as a folder:
    /// named all the same, so that the base's file is compared and put back.
    fn missing_word(&mut self, word: &str, cwd: &Path, kind: &str, by: &str) {
        let Some(path) = self.within(word, cwd) else {
            return;
        };
        let rel = self.ws.relative(&path);
        if rel != "." && rel != ".git" && !rel.starts_with(".git/") {
            self.add(rel, kind, by, false);
        }
    }

    fn folder_word(&mut self, word: &str, cwd: &Path, kind: &str, by: &str) {
        let Some(path) = self.within(word.trim_end_matches('/'), cwd) else {
            return;
        };
        let rel = self.ws.relative(&path);
        if rel == "." || rel == ".git" || rel.starts_with(".git/") {
            return;
        }
        if std::fs::symlink_metadata(&path).is_ok_and(|m| m.is_dir()) {
            self.add(rel, kind, by, true);
        }
    }

    /// A file outside the checkout that a repository configuration names.
    pub(crate) fn outside(&mut self, word: &str, kind: &str, by: &str) {
        self.unseen(
            "a file outside the checkout",
            format!(
                "`{by}` has the agent's runtime read `{}` as a {kind}, outside the checkout: nobody can compare it with the base, and what it holds can reach the model or the uploaded record",
                shown(word)
            ),
        );
    }

    /// `path` as the runtime resolves it from `cwd`, when it stays inside
    /// the checkout (`.` and `..` taken as written, as the shell does for a
    /// path it opens).
    pub(crate) fn within(&self, path: &str, cwd: &Path) -> Option<PathBuf> {
        if path.starts_with('~') {
            return None;
        }
        let joined = cwd.join(path);
        let mut out = PathBuf::new();
        for c in joined.components() {
            match c {
                Component::ParentDir => {
                    out.pop();
                }
                Component::CurDir => {}
                other => out.push(other.as_os_str()),
            }
        }
        (out.starts_with(self.ws.root()) || out.starts_with(&self.root)).then_some(out)
    }

    /// A setting that points the model's requests elsewhere: named, since
    /// the answer then came from somewhere the workflow did not say.
    pub(crate) fn endpoint(&mut self, key: &str, by: &str) {
        self.unseen(
            "the model's endpoint",
            format!(
                "`{by}` sets `{}`: the model's answer came from an endpoint the workflow did not name, and nothing shows what it sent the model",
                shown(key)
            ),
        );
    }
}

/// Where `rel` (a file, or a folder ending with `/`) really is, when a link
/// on its way leads elsewhere inside the checkout: git compares what is
/// written under each path and never follows a link, so a script behind a
/// linked folder the base already has is compared only under its real path.
/// `None`: no link on the way, or it leads out of the checkout (which the
/// comparison of links and the outside rule say).
pub(crate) fn real_path(ws: &Workspace, root: &Path, rel: &str) -> Option<String> {
    let folder = rel.ends_with('/');
    let plain = rel.trim_end_matches('/');
    let real = std::fs::canonicalize(ws.root().join(plain)).ok()?;
    let inside = real.strip_prefix(root).ok()?.to_string_lossy().into_owned();
    (!inside.is_empty() && inside != plain)
        .then(|| if folder { format!("{inside}/") } else { inside })
}

/// Every `command` string under a hook event's entries (matcher groups, or
/// the hook list itself), at most a few levels deep.
fn commands_in(v: &Value, out: &mut Vec<String>, depth: usize) {
    if depth > 4 || out.len() > limits::CONFIG_COMMANDS {
        return;
    }
    match v {
        Value::Array(items) => items.iter().for_each(|i| commands_in(i, out, depth + 1)),
        Value::Object(map) => {
            match map.get("command") {
                Some(Value::String(c)) => out.push(c.clone()),
                // Codex's `notify` and some hooks give the command as words.
                Some(Value::Array(words)) => out.push(
                    words
                        .iter()
                        .filter_map(Value::as_str)
                        .map(|w| {
                            shlex::try_quote(w).map_or_else(|_| w.to_string(), |q| q.into_owned())
                        })
                        .collect::<Vec<_>>()
                        .join(" "),
                ),
                _ => {}
            }
            if let Some(h) = map.get("hooks") {
                commands_in(h, out, depth + 1);
            }
        }
        _ => {}
    }
}

/// A hook event's name as the summary may show it: letters only.
fn event_name(name: &str) -> Option<&str> {
    (!name.is_empty() && name.len() <= 40 && name.bytes().all(|b| b.is_ascii_alphabetic()))
        .then_some(name)
}

/// `NAME=value`: a variable assignment, as the shell reads one.
pub(crate) fn is_assignment(word: &str) -> bool {
    word.split_once('=').is_some_and(|(name, _)| {
        !name.is_empty()
            && name.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_')
            && !name.as_bytes()[0].is_ascii_digit()
    })
}

/// The project-folder variables a runtime sets for its hooks, replaced by
/// the working directory, as the runtime expands them.
fn expand(command: &str, vars: &[&str], cwd: &Path) -> String {
    let dir = cwd.to_string_lossy();
    let mut out = command.to_string();
    for var in vars {
        out = out.replace(&format!("${{{var}}}"), &dir);
        out = replace_variable(&out, var, &dir);
    }
    out
}

/// `$NAME` replaced by `value` where no name character follows it (`$NAMES`
/// is another variable).
pub(crate) fn replace_variable(text: &str, name: &str, value: &str) -> String {
    let plain = format!("${name}");
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(i) = rest.find(&plain) {
        let after = &rest[i + plain.len()..];
        out.push_str(&rest[..i]);
        if after
            .bytes()
            .next()
            .is_some_and(|b| b.is_ascii_alphanumeric() || b == b'_')
        {
            out.push_str(&plain);
        } else {
            out.push_str(value);
        }
        rest = after;
    }
    out.push_str(rest);
    out
}

/// Why a command's files cannot be known without running it.
fn opaque(command: &str) -> Option<&'static str> {
    if command.contains("$(") || command.contains('`') {
        Some("runs what a command substitution prints")
    } else if command.contains("<(") || command.contains(">(") {
        Some("uses a process substitution")
    } else if command.split_whitespace().any(|w| w == "eval") {
        Some("evaluates text it builds")
    } else {
        opaque_words(command)
    }
}

/// Words that make the files a command names depend on more than its own
/// words: another folder of the checkout (`cd`, `make -C tools`), a string run as
/// a command (`bash -c`), a pattern the shell expands. Said, never guessed.
fn opaque_words(command: &str) -> Option<&'static str> {
    let words: Vec<&str> = command
        .split(|c: char| c.is_whitespace() || ";|&()".contains(c))
        .filter(|w| !w.is_empty())
        .collect();
    let folder = ["-C", "--prefix", "--cwd", "--dir", "--directory", "--chdir"];
    if words.iter().any(|w| *w == "cd" || *w == "pushd") {
        Some("changes folder before it runs what it names")
    } else if words.iter().enumerate().any(|(i, w)| {
        // Another folder of the checkout: one outside it (an install under
        // the runner's temp folder) runs nothing of the pull request's.
        let relative = |v: &str| !v.is_empty() && !v.starts_with(['/', '$', '~', '"', '\'']);
        folder.iter().any(|f| {
            (w == f && words.get(i + 1).is_some_and(|v| relative(v)))
                || w.strip_prefix(&format!("{f}=")).is_some_and(relative)
        })
    }) {
        Some("runs in another folder of the checkout")
    } else if words.iter().enumerate().any(|(i, w)| {
        // `bash -c '...'`, `sh -eu -c '...'`: a shell given a string.
        let shells = ["sh", "bash", "zsh", "dash", "ksh"];
        *w == "-c"
            && words[..i]
                .iter()
                .rev()
                .find(|p| !p.starts_with('-'))
                .is_some_and(|p| shells.contains(&p.rsplit('/').next().unwrap_or(p)))
    }) {
        Some("runs a string as a command")
    } else if words.iter().any(|w| w.contains(['*', '?', '['])) {
        Some("names files by a pattern the shell expands")
    } else {
        None
    }
}

/// Untrusted text for a sentence: one line, clipped, no backticks.
fn shown(text: &str) -> String {
    crate::escape::one_line(&crate::markdown::clip(text, 120)).replace('`', "'")
}

/// A minimal `.env` reader with the rules of the `dotenv` package Gemini CLI
/// uses: `KEY=VALUE` or `KEY: VALUE`, an optional `export `, quotes removed,
/// a `#` after an unquoted value starts a comment, no variable expansion.
pub(crate) fn dotenv(bytes: &[u8]) -> Vec<(String, String)> {
    let text = String::from_utf8_lossy(bytes);
    let mut out = Vec::new();
    for line in text.lines() {
        let line = line.trim_start();
        let line = line.strip_prefix("export ").unwrap_or(line).trim_start();
        let Some(i) = line.find(['=', ':']) else {
            continue;
        };
        let key = line[..i].trim_end();
        if key.is_empty()
            || !key
                .bytes()
                .all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'.' || b == b'-')
        {
            continue;
        }
        let raw = line[i + 1..].trim();
        let value = match raw.chars().next() {
            Some(q @ ('"' | '\'' | '`')) => raw[1..].split(q).next().unwrap_or("").to_string(),
            _ => raw.split(" #").next().unwrap_or("").trim().to_string(),
        };
        out.push((key.to_string(), value));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tree(files: &[&str]) -> (tempfile::TempDir, Workspace) {
        let dir = tempfile::tempdir().unwrap();
        for f in files {
            let p = dir.path().join(f);
            std::fs::create_dir_all(p.parent().unwrap()).unwrap();
            std::fs::write(p, "x").unwrap();
        }
        let ws = Workspace::open(dir.path()).unwrap();
        (dir, ws)
    }

    fn paths(f: &Finder) -> Vec<String> {
        f.reach.files.iter().map(|f| f.path.clone()).collect()
    }

    #[test]
    fn a_command_runs_the_files_it_names_as_the_shell_finds_them() {
        let (_d, ws) = tree(&[
            "scripts/guard.sh",
            "scripts/lib.sh",
            "hook.py",
            "package.json",
            "tools/mcp/__main__.py",
            "server/index.js",
        ]);
        let root = ws.root().to_path_buf();
        let mut f = Finder::new(&ws, &root);
        f.command("sh scripts/guard.sh --fast", "PreToolUse hook", "s", &[]);
        f.command(
            "\"$CLAUDE_PROJECT_DIR\"/hook.py && . ./scripts/lib.sh; npm run lint",
            "Stop hook",
            "s",
            &["CLAUDE_PROJECT_DIR"],
        );
        f.command("python3 -m tools.mcp", "hook", "s", &[]);
        f.command("node server/ > /dev/null", "hook", "s", &[]);
        f.command("echo $INPUT | jq -r .x", "hook", "s", &[]);
        assert_eq!(
            paths(&f),
            [
                "scripts/guard.sh",
                "hook.py",
                "scripts/lib.sh",
                "package.json",
                "tools/mcp/",
                "server/"
            ]
        );
        assert!(f.reach.unseen.is_empty(), "{:?}", f.reach.unseen);
        assert_eq!(f.reach.files[0].kind, "PreToolUse hook");
        assert_eq!(
            f.reach.files[0].sha256.as_deref(),
            Some(crate::digest::sha256_hex(b"x").as_str())
        );
    }

    #[test]
    fn what_cannot_be_resolved_is_said() {
        let (_d, ws) = tree(&["a.sh"]);
        let root = ws.root().to_path_buf();
        let mut f = Finder::new(&ws, &root);
        f.command("sh $(cat which)", "hook", "s", &[]);
        f.command("bash \"$SCRIPTS/a.sh\"", "hook", "s", &[]);
        f.command("sh 'a.sh", "hook", "s", &[]);
        f.command("/etc/hook.sh", "hook", "s", &[]);
        f.command("sh ../../outside.sh", "hook", "s", &[]);
        assert_eq!(f.reach.unseen.len(), 4, "{:?}", f.reach.unseen);
        assert!(f.reach.files.is_empty());
        // Another folder of the checkout, a shell's string, a pattern: said.
        for command in [
            "cd tools && ./a.sh",
            "bash -c 'sh tools/b.sh'",
            "sh -eu -c 'x'",
            "sh tools/c*.sh",
            "make -C tools guard",
            "npm --prefix tools run guard",
            "npm --prefix=tools run guard",
        ] {
            let mut f = Finder::new(&ws, &root);
            f.command(command, "hook", "s", &[]);
            assert_eq!(f.reach.unseen.len(), 1, "{command}: {:?}", f.reach.unseen);
        }
        // Not the pull request's folder, not a shell's string.
        for command in [
            "npm install --prefix /tmp/x pkg@1",
            "jq -c . a.json",
            "sh a.sh",
        ] {
            let mut f = Finder::new(&ws, &root);
            f.command(command, "hook", "s", &[]);
            assert!(f.reach.unseen.is_empty(), "{command}: {:?}", f.reach.unseen);
        }
        // A script the checkout lacks is still named: the base's runs.
        let mut f = Finder::new(&ws, &root);
        f.command("./scripts/gone.sh", "hook", "s", &[]);
        assert_eq!(paths(&f), ["scripts/gone.sh"]);
    }

    #[test]
    fn hooks_and_mcp_servers_in_every_agents_shape() {
        let (_d, ws) = tree(&["scripts/guard.sh", "scripts/mcp_server.py", "h.sh"]);
        let root = ws.root().to_path_buf();
        let mut f = Finder::new(&ws, &root);
        let hooks = serde_json::json!({
            "PreToolUse": [{"matcher": "StructuredOutput", "hooks": [{"type": "command", "command": "sh scripts/guard.sh"}]}],
            "Bad Event\u{202e}": [{"hooks": [{"type": "command", "command": "sh h.sh"}]}],
        });
        f.hooks(&hooks, ".claude/settings.json", &[]);
        let servers = serde_json::json!({"db": {"command": "python3", "args": ["scripts/mcp_server.py"]}, "remote": {"url": "https://x"}});
        f.mcp_servers(&servers, ".mcp.json", &[]);
        let kinds: Vec<(&str, &str)> = f
            .reach
            .files
            .iter()
            .map(|f| (f.path.as_str(), f.kind.as_str()))
            .collect();
        assert_eq!(
            kinds,
            [
                ("h.sh", "hook"),
                ("scripts/guard.sh", "PreToolUse hook"),
                ("scripts/mcp_server.py", "MCP server")
            ]
        );
    }

    #[test]
    fn dotenv_reads_as_the_dotenv_package_does() {
        let env = dotenv(
            b"# c\nexport GEMINI_SYSTEM_MD=docs/reviewer.md\nGOOGLE_GEMINI_BASE_URL = \"http://x\" # c\nA: 'b c'\nnot a line\n",
        );
        assert_eq!(
            env,
            [
                (
                    "GEMINI_SYSTEM_MD".to_string(),
                    "docs/reviewer.md".to_string()
                ),
                ("GOOGLE_GEMINI_BASE_URL".into(), "http://x".into()),
                ("A".into(), "b c".into()),
            ]
        );
    }
}
