//! The instruction chain of opencode (1.18.32–1.18.33), as it builds it for
//! every request (measured offline against a logging fake: docs/opencode.md).
//!
//! In order, each file once:
//! - global: the first that exists of `~/.config/opencode/AGENTS.md` and
//!   `~/.claude/CLAUDE.md`;
//! - project: every `AGENTS.md` from the working directory up to the git
//!   root (the working directory's first); only when there is none, every
//!   `CLAUDE.md`; only when there is neither, every `CONTEXT.md`;
//! - the files and globs of the `instructions` lists of the configuration
//!   (the global `opencode.json`, then the project's, from the root down): a
//!   relative one is looked for from the working directory up to the root,
//!   `~/` is the home; a URL is fetched at run time and never verified.
//!
//! Each file is sent as `Instructions from: <absolute path>\n<text>` (the
//! text byte for byte, less a UTF-8 byte order mark; an empty file is left
//! out), the parts joined with `\n`, inside the system prompt. The absolute
//! path is the agent's machine's, which this step does not know: the body
//! `agents_sha` hashes names each file as the receipt does (relative to the
//! workspace, `~/.config/opencode/AGENTS.md` for a global one) and is
//! otherwise the text as sent.

use std::path::{Path, PathBuf};

use serde_json::Value;

use crate::agent::chain::{AgentsFile, Chain};
use crate::digest::sha256_hex;
use crate::error::Error;
use crate::limits::{FILE_BYTES, FOLDER_ENTRIES};
use crate::workspace::{Unread, Workspace};

/// Where opencode's global configuration is, below the home.
pub(crate) const CONFIG_DIR: &str = ".config/opencode";
/// How the receipt names a file of the agent's home.
pub(crate) const HOME_PREFIX: &str = "~/";
/// The project instruction files, by precedence: the first name found
/// anywhere from the working directory up wins, at every level.
pub(crate) const NAMES: &[&str] = &["AGENTS.md", "CLAUDE.md", "CONTEXT.md"];
/// The configuration files opencode reads in a folder, in its order.
pub(crate) const CONFIG_NAMES: &[&str] = &["opencode.jsonc", "opencode.json"];

/// Where the chain is read from besides the checkout.
#[derive(Clone, Debug, Default)]
pub(crate) struct Options {
    /// The agent's home as uploaded (`$HOME`: `.config/opencode/`,
    /// `.claude/CLAUDE.md`, `.local/share/opencode/`).
    pub(crate) home: Option<PathBuf>,
}

/// One file as opencode sends it: how the receipt names it, and its text
/// less a byte order mark.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Block {
    pub(crate) shown: String,
    pub(crate) text: String,
}

/// The body `agents_sha` hashes: each file as opencode writes it into the
/// system prompt, the receipt's name in place of the absolute path.
pub(crate) fn render(blocks: &[Block]) -> Option<String> {
    let parts: Vec<String> = blocks
        .iter()
        .map(|b| format!("Instructions from: {}\n{}", b.shown, b.text))
        .collect();
    (!parts.is_empty()).then(|| parts.join("\n"))
}

/// The git root opencode calls the worktree: the nearest folder at or above
/// the working directory with `.git`, inside the workspace; else the workspace.
pub(crate) fn git_root(cwd: &Path, ws: &Workspace) -> PathBuf {
    cwd.ancestors()
        .take_while(|d| d.starts_with(ws.root()))
        .find(|d| d.join(".git").exists())
        .unwrap_or(ws.root())
        .to_path_buf()
}

/// The folders from the working directory up to the git root, the working
/// directory's first (opencode's `findUp`).
pub(crate) fn up(cwd: &Path, ws: &Workspace) -> Vec<PathBuf> {
    let root = git_root(cwd, ws);
    let mut out = Vec::new();
    for d in cwd.ancestors() {
        if !d.starts_with(&root) {
            break;
        }
        out.push(d.to_path_buf());
        if d == root {
            break;
        }
    }
    out
}

/// Every path, relative to the workspace, where opencode would look for an
/// instruction file or a configuration: one added at any of them changes
/// what it reads.
pub(crate) fn candidate_paths(cwd: &Path, ws: &Workspace) -> Vec<String> {
    let mut out = Vec::new();
    for dir in up(cwd, ws) {
        for name in NAMES.iter().chain(CONFIG_NAMES) {
            out.push(ws.relative(&dir.join(name)));
        }
        for name in CONFIG_NAMES {
            out.push(ws.relative(&dir.join(".opencode").join(name)));
        }
    }
    out
}

/// The configuration files opencode merges, as (path, how the receipt
/// names it, the folder a file of the home is read inside): the home's,
/// then from the git root down to the working directory the folder's own
/// and its `.opencode/`'s.
pub(crate) fn config_files(
    cwd: &Path,
    ws: &Workspace,
    home: Option<&Path>,
) -> Vec<(PathBuf, String, Option<PathBuf>)> {
    let mut out = Vec::new();
    if let Some(home) = home {
        let real = std::fs::canonicalize(home).unwrap_or_else(|_| home.to_path_buf());
        for name in ["config.json", "opencode.json", "opencode.jsonc"] {
            out.push((
                home.join(CONFIG_DIR).join(name),
                format!("{HOME_PREFIX}{CONFIG_DIR}/{name}"),
                Some(real.clone()),
            ));
        }
    }
    let mut dirs = up(cwd, ws);
    dirs.reverse();
    for dir in dirs {
        for name in CONFIG_NAMES {
            let path = dir.join(name);
            out.push((path.clone(), ws.relative(&path), None));
        }
        for name in CONFIG_NAMES {
            let path = dir.join(".opencode").join(name);
            out.push((path.clone(), ws.relative(&path), None));
        }
    }
    out
}

/// A configuration file as opencode reads it (JSON with comments and
/// trailing commas): `None` when it is not there; a file that is there but
/// cannot be read or parsed is a warning, and read as empty.
pub(crate) fn read_config(
    path: &Path,
    shown: &str,
    inside: Option<&Path>,
    ws: &Workspace,
    warnings: &mut Vec<String>,
) -> Option<Value> {
    let roots: Vec<&Path> = match inside {
        Some(home) => vec![home],
        None => vec![ws.root()],
    };
    let bytes = match crate::workspace::read_contained(path, &roots, crate::limits::CONFIG_BYTES) {
        Ok(bytes) => bytes,
        Err(Unread::Missing) => return None,
        Err(why) => {
            warnings.push(format!(
                "{}: opencode reads it as its configuration, and the receipt could not",
                why.why(shown)
            ));
            return None;
        }
    };
    match parse_jsonc(&bytes) {
        Some(v) => Some(v),
        None => {
            warnings.push(format!(
                "`{}` is not JSON with comments that the receipt can read: the instruction files it may list are not in the chain",
                crate::escape::one_line(shown)
            ));
            None
        }
    }
}

/// JSON with `//` and `/* */` comments and trailing commas, as opencode's
/// configuration reader takes it.
pub(crate) fn parse_jsonc(bytes: &[u8]) -> Option<Value> {
    let text = std::str::from_utf8(bytes.strip_prefix(b"\xef\xbb\xbf").unwrap_or(bytes)).ok()?;
    let mut out = String::with_capacity(text.len());
    let mut chars = text.chars().peekable();
    let mut in_string = false;
    while let Some(c) = chars.next() {
        if in_string {
            out.push(c);
            if c == '\\' {
                out.extend(chars.next());
            } else if c == '"' {
                in_string = false;
            }
            continue;
        }
        match (c, chars.peek()) {
            ('"', _) => {
                in_string = true;
                out.push(c);
            }
            ('/', Some('/')) => while chars.next_if(|c| *c != '\n').is_some() {},
            ('/', Some('*')) => {
                chars.next();
                let mut last = ' ';
                for c in chars.by_ref() {
                    if last == '*' && c == '/' {
                        break;
                    }
                    last = c;
                }
                out.push(' ');
            }
            _ => out.push(c),
        }
    }
    serde_json::from_str(&drop_trailing_commas(&out)).ok()
}

/// `[1,]` and `{"a":1,}` as JSON: a comma before a closing bracket, outside
/// strings, dropped.
fn drop_trailing_commas(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut in_string = false;
    let mut escaped = false;
    for c in text.chars() {
        if in_string {
            out.push(c);
            if escaped {
                escaped = false;
            } else if c == '\\' {
                escaped = true;
            } else if c == '"' {
                in_string = false;
            }
            continue;
        }
        if c == '"' {
            in_string = true;
        } else if c == ']' || c == '}' {
            let trimmed = out.trim_end().len();
            if out[..trimmed].ends_with(',') {
                out.truncate(trimmed - 1);
            }
        }
        out.push(c);
    }
    out
}

/// Every `instructions` entry of the merged configuration, in order, once.
pub(crate) fn instruction_entries(
    cwd: &Path,
    ws: &Workspace,
    home: Option<&Path>,
    warnings: &mut Vec<String>,
) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for (path, shown, inside) in config_files(cwd, ws, home) {
        let Some(v) = read_config(&path, &shown, inside.as_deref(), ws, warnings) else {
            continue;
        };
        for entry in v["instructions"].as_array().into_iter().flatten() {
            if let Some(s) = entry.as_str() {
                if !out.iter().any(|o| o == s) && out.len() < crate::limits::INSTRUCTIONS_GLOB_FILES
                {
                    out.push(s.to_string());
                }
            }
        }
    }
    out
}

/// Whether an `instructions` entry is a URL, which opencode fetches.
pub(crate) fn is_url(entry: &str) -> bool {
    entry.starts_with("https://") || entry.starts_with("http://")
}

/// A glob's match against a path, `/`-separated: `**` any folders, `*` and
/// `?` within one name, everything else literal.
pub(crate) fn glob_matches(pattern: &str, path: &str) -> bool {
    let pat: Vec<&str> = pattern.split('/').filter(|s| !s.is_empty()).collect();
    let parts: Vec<&str> = path.split('/').filter(|s| !s.is_empty()).collect();
    segments(&pat, &parts)
}

fn segments(pat: &[&str], parts: &[&str]) -> bool {
    match pat.split_first() {
        None => parts.is_empty(),
        Some((&"**", rest)) => (0..=parts.len()).any(|i| segments(rest, &parts[i..])),
        Some((p, rest)) => parts
            .split_first()
            .is_some_and(|(first, more)| name_matches(p, first) && segments(rest, more)),
    }
}

fn name_matches(pat: &str, name: &str) -> bool {
    let p: Vec<char> = pat.chars().collect();
    let n: Vec<char> = name.chars().collect();
    // Iterative wildcard match with one backtrack point: linear in practice.
    let (mut i, mut j, mut star, mut mark) = (0, 0, None, 0);
    while j < n.len() {
        if i < p.len() && (p[i] == '?' || p[i] == n[j]) {
            i += 1;
            j += 1;
        } else if i < p.len() && p[i] == '*' {
            star = Some(i);
            mark = j;
            i += 1;
        } else if let Some(s) = star {
            i = s + 1;
            mark += 1;
            j = mark;
        } else {
            return false;
        }
    }
    p[i..].iter().all(|c| *c == '*')
}

/// The files of `dir` a glob matches, sorted, bounded; the walk starts at
/// the glob's literal folders.
pub(crate) fn glob_in(dir: &Path, pattern: &str) -> Vec<PathBuf> {
    let pattern = pattern.trim_start_matches("./");
    let segs: Vec<&str> = pattern.split('/').filter(|s| !s.is_empty()).collect();
    let literal = segs.iter().take_while(|s| !s.contains(['*', '?'])).count();
    let literal = literal.min(segs.len().saturating_sub(1));
    let mut base = dir.to_path_buf();
    for s in &segs[..literal] {
        if *s == ".." {
            base.pop();
        } else {
            base.push(s);
        }
    }
    let rest = segs[literal..].join("/");
    let mut out = Vec::new();
    let mut seen = 0usize;
    let mut stack = vec![(base.clone(), 0usize)];
    while let Some((d, depth)) = stack.pop() {
        let Ok(entries) = std::fs::read_dir(&d) else {
            continue;
        };
        for e in entries.flatten() {
            seen += 1;
            if seen > FOLDER_ENTRIES || out.len() >= crate::limits::INSTRUCTIONS_GLOB_FILES {
                break;
            }
            let path = e.path();
            let Ok(kind) = e.file_type() else { continue };
            if kind.is_dir() {
                if depth < crate::limits::INSTRUCTIONS_GLOB_DEPTH && e.file_name() != ".git" {
                    stack.push((path, depth + 1));
                }
                continue;
            }
            let rel = path
                .strip_prefix(&base)
                .map(|p| p.to_string_lossy().into_owned())
                .unwrap_or_default();
            if glob_matches(&rest, &rel) {
                out.push(path);
            }
        }
    }
    out.sort();
    out
}

/// The paths of the chain, in opencode's order, each once: (path, how the
/// receipt names it, the folder it must be read inside when not the
/// workspace).
fn paths(
    cwd: &Path,
    ws: &Workspace,
    home: Option<&Path>,
    warnings: &mut Vec<String>,
) -> Vec<(PathBuf, String, Option<PathBuf>)> {
    let mut out: Vec<(PathBuf, String, Option<PathBuf>)> = Vec::new();
    let mut add = |path: PathBuf, shown: String, inside: Option<PathBuf>| {
        if !out.iter().any(|(p, _, _)| *p == path) {
            out.push((path, shown, inside));
        }
    };
    let home_real = home.map(|h| std::fs::canonicalize(h).unwrap_or_else(|_| h.to_path_buf()));
    if let (Some(home), Some(real)) = (home, &home_real) {
        let global = [
            format!("{CONFIG_DIR}/AGENTS.md"),
            ".claude/CLAUDE.md".into(),
        ];
        if let Some(rel) = global
            .iter()
            .find(|rel| std::fs::symlink_metadata(home.join(rel)).is_ok())
        {
            add(
                home.join(rel),
                format!("{HOME_PREFIX}{rel}"),
                Some(real.clone()),
            );
        }
    }
    let dirs = up(cwd, ws);
    for name in NAMES {
        let found: Vec<PathBuf> = dirs
            .iter()
            .map(|d| d.join(name))
            .filter(|p| std::fs::symlink_metadata(p).is_ok())
            .collect();
        if !found.is_empty() {
            for p in found {
                let shown = ws.relative(&p);
                add(p, shown, None);
            }
            break;
        }
    }
    for entry in instruction_entries(cwd, ws, home, warnings) {
        if is_url(&entry) {
            warnings.push(format!(
                "the configuration's `instructions` names `{}`: opencode fetches it at run time and sends what it gets, which the receipt cannot see",
                crate::escape::one_line(&crate::markdown::clip(&entry, 200))
            ));
            continue;
        }
        let (matches, inside) = match (entry.strip_prefix("~/"), home, &home_real) {
            (Some(rel), Some(home), Some(real)) => (glob_in(home, rel), Some(real.clone())),
            (Some(_), _, _) => continue,
            (None, _, _) if entry.starts_with('/') => {
                warnings.push(format!(
                    "the configuration's `instructions` names `{}`, an absolute path on the agent's machine: the receipt cannot read it",
                    crate::escape::one_line(&crate::markdown::clip(&entry, 200))
                ));
                continue;
            }
            (None, _, _) => (dirs.iter().flat_map(|d| glob_in(d, &entry)).collect(), None),
        };
        for p in matches {
            let shown = match (&inside, home) {
                (Some(_), Some(home)) => format!(
                    "{HOME_PREFIX}{}",
                    p.strip_prefix(home).unwrap_or(&p).display()
                ),
                _ => ws.relative(&p),
            };
            add(p, shown, inside.clone());
        }
    }
    out
}

/// A file's text as opencode sends it: a UTF-8 byte order mark removed.
fn sent_text(bytes: &[u8]) -> String {
    let bytes = bytes.strip_prefix(b"\xef\xbb\xbf").unwrap_or(bytes);
    String::from_utf8_lossy(bytes).into_owned()
}

/// The chain's blocks, in order, and its files (each hashed as it is on disk).
pub(crate) fn blocks(
    cwd: &Path,
    ws: &Workspace,
    opts: &Options,
    chain: &mut Chain,
) -> Result<Vec<Block>, Error> {
    let mut out = Vec::new();
    for (path, shown, inside) in paths(cwd, ws, opts.home.as_deref(), &mut chain.warnings) {
        let roots: Vec<&Path> = match &inside {
            Some(home) => vec![home.as_path()],
            None => vec![ws.root()],
        };
        let bytes = match crate::workspace::read_contained(&path, &roots, FILE_BYTES) {
            Ok(bytes) => bytes,
            Err(Unread::Missing) => continue,
            Err(why) => {
                return Err(Error::in_file(
                    shown.clone(),
                    format!(
                        "{}: opencode reads it as an instruction file; make it a regular file inside the checkout of at most {} MiB",
                        why.why(&shown),
                        FILE_BYTES >> 20
                    ),
                ));
            }
        };
        chain.files.push(AgentsFile {
            path: shown.clone(),
            bytes: bytes.len() as u64,
            sha256: sha256_hex(&bytes),
            truncated: false,
        });
        let text = sent_text(&bytes);
        // opencode leaves out a file with no text.
        if !text.is_empty() {
            out.push(Block { shown, text });
        }
    }
    Ok(out)
}

/// The chain as the receipt records it.
pub(crate) fn load(cwd: &Path, ws: &Workspace, opts: &Options) -> Result<Chain, Error> {
    let mut chain = Chain::default();
    let blocks = blocks(cwd, ws, opts, &mut chain)?;
    chain.body = render(&blocks);
    Ok(chain)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tree(files: &[(&str, &[u8])]) -> (tempfile::TempDir, Workspace) {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(dir.path().join("repo/.git")).unwrap();
        for (p, t) in files {
            let p = dir.path().join(p);
            std::fs::create_dir_all(p.parent().unwrap()).unwrap();
            std::fs::write(p, t).unwrap();
        }
        let ws = Workspace::open(&dir.path().join("repo")).unwrap();
        (dir, ws)
    }

    /// As measured: the first global file, every AGENTS.md from the working
    /// directory up (CLAUDE.md and CONTEXT.md then left out), the
    /// configuration's files and globs; a BOM dropped, CRLF kept, an empty
    /// file left out, parts joined with a line break.
    #[test]
    fn the_chain_is_opencodes_order() {
        let (dir, ws) = tree(&[
            ("home/.config/opencode/AGENTS.md", b"Global\n"),
            ("home/.claude/CLAUDE.md", b"Claude global\n"),
            ("repo/CLAUDE.md", b"Root claude\n"),
            ("repo/CONTEXT.md", b"ctx\n"),
            ("repo/sub/AGENTS.md", b"\xef\xbb\xbfSub\r\n"),
            ("repo/sub/deep/AGENTS.md", b"Deep\n"),
            ("repo/docs/rules/b.md", b"B"),
            ("repo/docs/rules/a.md", b"A\n"),
            ("repo/docs/empty.md", b""),
            (
                "repo/opencode.json",
                b"{\n // rules\n \"instructions\": [\"docs/rules/*.md\", \"docs/empty.md\", \"https://x.invalid/a.md\",],\n}",
            ),
        ]);
        let opts = Options {
            home: Some(dir.path().join("home")),
        };
        let cwd = ws.root().join("sub/deep");
        let chain = load(&cwd, &ws, &opts).unwrap();
        let paths: Vec<&str> = chain.files.iter().map(|f| f.path.as_str()).collect();
        assert_eq!(
            paths,
            [
                "~/.config/opencode/AGENTS.md",
                "sub/deep/AGENTS.md",
                "sub/AGENTS.md",
                "docs/rules/a.md",
                "docs/rules/b.md",
                "docs/empty.md"
            ]
        );
        assert_eq!(
            chain.body.as_deref().unwrap(),
            "Instructions from: ~/.config/opencode/AGENTS.md\nGlobal\n\nInstructions from: sub/deep/AGENTS.md\nDeep\n\nInstructions from: sub/AGENTS.md\nSub\r\n\nInstructions from: docs/rules/a.md\nA\n\nInstructions from: docs/rules/b.md\nB"
        );
        assert!(chain.warnings[0].contains("https://x.invalid/a.md"));
        // Without AGENTS.md anywhere up, CLAUDE.md; then the home's second.
        std::fs::remove_file(ws.root().join("sub/AGENTS.md")).unwrap();
        std::fs::remove_file(ws.root().join("sub/deep/AGENTS.md")).unwrap();
        std::fs::remove_file(dir.path().join("home/.config/opencode/AGENTS.md")).unwrap();
        let chain = load(&cwd, &ws, &opts).unwrap();
        let paths: Vec<&str> = chain.files.iter().map(|f| f.path.as_str()).collect();
        assert_eq!(&paths[..2], ["~/.claude/CLAUDE.md", "CLAUDE.md"]);
    }

    #[test]
    fn globs_and_jsonc_read_as_opencode_reads_them() {
        assert!(glob_matches("*.md", "a.md"));
        assert!(!glob_matches("*.md", "x/a.md"));
        assert!(glob_matches("**/*.md", "x/y/a.md"));
        assert!(glob_matches("**/*.md", "a.md"));
        assert!(glob_matches("a?c/**", "abc/d/e"));
        assert!(!glob_matches("a*b", "a/b"));
        let v = parse_jsonc(b"{\"a\": \"// not a comment\", /* c */ \"b\": [1, 2,],}").unwrap();
        assert_eq!(v["a"], "// not a comment");
        assert_eq!(v["b"], serde_json::json!([1, 2]));
        assert!(parse_jsonc(b"{\"a\": ").is_none());
    }
}
