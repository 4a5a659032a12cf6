//! The GEMINI.md chain, assembled as Gemini CLI 0.60–0.61 assembles it at start.
//!
//! Gemini CLI looks for its context file names (`GEMINI.md`, and before it
//! the names `context.fileName` gives in the working directory's
//! `.gemini/settings.json`) in the
//! working directory and each parent up to the git root (the first ancestor
//! holding `.git`; without one, the working directory alone). The paths found
//! are sorted as strings (so `a/GEMINI.md` comes before `GEMINI.md`). Each
//! file's `@path` imports are inlined recursively (at most 5 deep, only inside
//! the project root, never inside backticks) as
//! `<!-- Imported from: X -->\n…\n<!-- End of import from: X -->`; the result
//! is trimmed the way JavaScript trims (a byte order mark included), and each
//! file becomes a block `--- Context from: <abs path> ---\n<text>\n--- End of
//! Context from: <abs path> ---`; blocks are joined with `"\n\n"`, and the
//! whole is the `<project_context>` of the first user message.
//!
//! The body the receipt hashes (`agents_sha`) is that `<project_context>`
//! text with the checkout's absolute path and its `/` removed wherever it
//! appears, so that the runner's path does not enter the hash: the headers
//! read `--- Context from: sub/GEMINI.md ---`.
//!
//! The global `~/.gemini/GEMINI.md` (from the agent home) goes at the end of
//! the system instruction, which the session record does not keep: it is a
//! file of the chain (path `~/.gemini/GEMINI.md`) but not part of the body.
//! The workspace `.gemini/settings.json` is a file of the chain too: it names
//! the context files and holds the hooks, whose output reaches the model.
//! Files Gemini CLI loads later, when a tool touches a folder ("just in
//! time"), are not in the chain: only the record can show them.

use std::path::{Path, PathBuf};

pub(crate) use crate::agent::chain::{AgentsFile, Chain};

/// Where the chain is read from besides the checkout: the agent home, for
/// the user's global file.
#[derive(Clone, Debug, Default)]
pub(crate) struct Options {
    pub(crate) home: Option<PathBuf>,
}
use crate::digest::sha256_hex;
use crate::error::Error;
use crate::limits;
use crate::workspace::{Unread, Workspace};

pub(crate) const DEFAULT: &str = "GEMINI.md";
/// The workspace settings, relative to the working directory.
pub(crate) const SETTINGS: &str = ".gemini/settings.json";
/// How the receipt names a file of the agent home (`$HOME/.gemini`).
pub(crate) const HOME_PREFIX: &str = "~/.gemini/";

/// One block of the project context: the file as the receipt names it and
/// its text as Gemini CLI sends it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Block {
    pub(crate) path: String,
    pub(crate) text: String,
}

/// The block as it reads in the body: the header names the file relative to
/// the checkout.
pub(crate) fn render(blocks: &[Block]) -> Option<String> {
    let parts: Vec<String> = blocks
        .iter()
        .map(|b| {
            format!(
                "--- Context from: {p} ---\n{t}\n--- End of Context from: {p} ---",
                p = b.path,
                t = b.text
            )
        })
        .collect();
    (!parts.is_empty()).then(|| parts.join("\n\n"))
}

/// The blocks of a body as [`render`] writes them (or as the record has them,
/// once the checkout's path is removed): each header's path and its text.
pub(crate) fn parse_blocks(body: &str) -> Vec<Block> {
    let mut out = Vec::new();
    let mut rest = body;
    while let Some(at) = rest.find("--- Context from: ") {
        let after = &rest[at + "--- Context from: ".len()..];
        let Some(end) = after.find(" ---\n") else {
            break;
        };
        let path = &after[..end];
        let text_start = &after[end + " ---\n".len()..];
        let closing = format!("\n--- End of Context from: {path} ---");
        let Some(close) = text_start.find(&closing) else {
            break;
        };
        out.push(Block {
            path: path.to_string(),
            text: text_start[..close].to_string(),
        });
        rest = &text_start[close + closing.len()..];
    }
    out
}

/// The context file names, in the order Gemini CLI looks for them: those
/// `context.fileName` gives (the workspace's settings, else the home's), then
/// `GEMINI.md`.
pub(crate) fn file_names(cwd: &Path, ws: &Workspace, home: Option<&Path>) -> Vec<String> {
    let from = |path: PathBuf, root: &Path| -> Option<Vec<String>> {
        let bytes = crate::workspace::read_contained(&path, &[root], limits::CONFIG_BYTES).ok()?;
        let v: serde_json::Value = serde_json::from_slice(&bytes).ok()?;
        let names = &v["context"]["fileName"];
        match names {
            serde_json::Value::String(s) => Some(vec![s.clone()]),
            serde_json::Value::Array(a) => Some(
                a.iter()
                    .filter_map(|n| n.as_str().map(str::to_string))
                    .collect(),
            ),
            _ => None,
        }
    };
    let given = from(cwd.join(SETTINGS), ws.root())
        .or_else(|| {
            let home = home?;
            let real = std::fs::canonicalize(home).ok()?;
            from(home.join("settings.json"), &real)
        })
        .unwrap_or_default();
    let mut names: Vec<String> = Vec::new();
    for n in given.iter().map(|n| n.trim()).filter(|n| !n.is_empty()) {
        if !n.contains('/') && !names.iter().any(|m| m == n) {
            names.push(n.to_string());
        }
    }
    if !names.iter().any(|n| n == DEFAULT) {
        names.push(DEFAULT.to_string());
    }
    names
}

/// The `context.fileName` entries of the workspace settings that are paths
/// (`../x`, `.git/config`): left out of the chain, and said.
fn dropped_names(cwd: &Path, ws: &Workspace) -> Vec<String> {
    let Ok(bytes) =
        crate::workspace::read_contained(&cwd.join(SETTINGS), &[ws.root()], limits::CONFIG_BYTES)
    else {
        return Vec::new();
    };
    let Ok(v) = serde_json::from_slice::<serde_json::Value>(&bytes) else {
        return Vec::new();
    };
    let names: Vec<String> = match &v["context"]["fileName"] {
        serde_json::Value::String(s) => vec![s.clone()],
        serde_json::Value::Array(a) => a
            .iter()
            .filter_map(|n| n.as_str().map(str::to_string))
            .collect(),
        _ => Vec::new(),
    };
    names
        .into_iter()
        .filter(|n| n.contains('/'))
        .take(16)
        .collect()
}

/// The folders Gemini CLI looks in, from `cwd` up to the git root.
fn search_dirs(cwd: &Path) -> Vec<PathBuf> {
    let root = cwd.ancestors().find(|d| d.join(".git").exists());
    match root {
        Some(root) => cwd
            .ancestors()
            .take_while(|d| d.starts_with(root))
            .map(Path::to_path_buf)
            .collect(),
        None => vec![cwd.to_path_buf()],
    }
}

/// Every path, relative to the workspace, where Gemini CLI would look for a
/// chain file, its settings, and every file the chain imports: a file added,
/// changed or removed at any of them changes what the agent reads.
pub(crate) fn candidate_paths(cwd: &Path, ws: &Workspace, opts: &Options) -> Vec<String> {
    let names = file_names(cwd, ws, opts.home.as_deref());
    let mut out = Vec::new();
    for dir in search_dirs(cwd) {
        if !dir.starts_with(ws.root()) {
            continue;
        }
        for n in &names {
            out.push(ws.relative(&dir.join(n)));
        }
        out.push(ws.relative(&dir.join(SETTINGS)));
    }
    // The files the chain imports (`@docs/style.md`) are instructions too.
    if let Ok(chain) = load(cwd, ws, opts) {
        for f in chain.files {
            if !f.path.starts_with(HOME_PREFIX) && !out.contains(&f.path) {
                out.push(f.path);
            }
        }
    }
    out
}

/// Reads the chain for an agent that ran in `cwd` (inside the workspace).
pub(crate) fn load(cwd: &Path, ws: &Workspace, opts: &Options) -> Result<Chain, Error> {
    let mut chain = Chain::default();
    let settings = cwd.join(SETTINGS);
    match crate::workspace::read_contained(&settings, &[ws.root()], limits::CONFIG_BYTES) {
        Ok(bytes) => chain
            .files
            .push(file_record(ws.relative(&settings), &bytes)),
        Err(Unread::Missing) => {}
        Err(why) => {
            let shown = ws.relative(&settings);
            return Err(Error::in_file(
                &shown,
                format!(
                    "{}: Gemini CLI reads it (context file names, hooks), and the receipt cannot vouch for it",
                    why.why(&shown)
                ),
            ));
        }
    }
    if let Some(home) = &opts.home {
        let real = std::fs::canonicalize(home).unwrap_or_else(|_| home.clone());
        for n in file_names(cwd, ws, Some(home)) {
            if let Ok(bytes) =
                crate::workspace::read_contained(&home.join(&n), &[&real], limits::FILE_BYTES)
            {
                chain
                    .files
                    .push(file_record(format!("{HOME_PREFIX}{n}"), &bytes));
            }
        }
    }
    let blocks = blocks(cwd, ws, opts, &mut chain)?;
    chain.body = render(&blocks);
    Ok(chain)
}

/// The blocks of the project context, in Gemini CLI's order; each file read
/// (imports too) is added to the chain's files.
pub(crate) fn blocks(
    cwd: &Path,
    ws: &Workspace,
    opts: &Options,
    chain: &mut Chain,
) -> Result<Vec<Block>, Error> {
    let names = file_names(cwd, ws, opts.home.as_deref());
    for n in dropped_names(cwd, ws) {
        chain.warnings.push(format!(
            "`{}` names the context file `{}`, a path rather than a file name: the receipt does not follow it, and what Gemini CLI made of it is not known",
            SETTINGS,
            crate::escape::one_line(&n)
        ));
    }
    let mut found: Vec<(String, PathBuf)> = Vec::new();
    for dir in search_dirs(cwd) {
        for n in &names {
            let path = dir.join(n);
            if !std::fs::metadata(&path).is_ok_and(|m| m.is_file()) {
                continue;
            }
            if !path.starts_with(ws.root()) {
                chain.warnings.push(format!(
                    "`{}` is above the workspace; Gemini CLI on the runner would read it, the action cannot, so the computed chain may differ",
                    path.display()
                ));
                continue;
            }
            found.push((ws.relative(&path), path));
        }
    }
    // Gemini CLI sorts the absolute paths: with the checkout's path in common,
    // the order of the relative ones.
    found.sort_by(|a, b| a.0.cmp(&b.0));
    found.dedup_by(|a, b| a.0 == b.0);
    let project_root = search_dirs(cwd)
        .last()
        .cloned()
        .unwrap_or_else(|| cwd.to_path_buf());
    let mut out = Vec::new();
    // One importer for the whole chain: each file read once, and the caps
    // count every block's imports.
    let mut importer = Importer::new(ws, &project_root);
    for (shown, path) in found {
        let bytes = read_file(&path, &shown, ws)?;
        chain.files.push(file_record(shown.clone(), &bytes));
        let text = String::from_utf8_lossy(&bytes).into_owned();
        let processed = importer.inline(&text, &path, &mut Vec::new(), 0)?;
        for (shown, bytes) in importer.read.drain(..) {
            if !chain.files.iter().any(|f| f.path == shown) {
                chain.files.push(file_record(shown, &bytes));
            }
        }
        let text = js_trim(&processed);
        if !text.is_empty() {
            out.push(Block {
                path: shown,
                text: text.to_string(),
            });
        }
    }
    Ok(out)
}

fn read_file(path: &Path, shown: &str, ws: &Workspace) -> Result<Vec<u8>, Error> {
    crate::workspace::read_contained(path, &[ws.root()], limits::FILE_BYTES).map_err(|why| {
        Error::in_file(
            shown,
            format!(
                "{}: Gemini CLI would read it as part of the GEMINI.md chain, and the receipt cannot vouch for it; replace it with a regular file inside the repository",
                why.why(shown)
            ),
        )
    })
}

fn file_record(path: String, bytes: &[u8]) -> AgentsFile {
    AgentsFile {
        path,
        bytes: bytes.len() as u64,
        sha256: sha256_hex(bytes),
        truncated: false,
    }
}

/// JavaScript's `String.prototype.trim`: its whitespace, which holds the
/// byte order mark and not U+0085.
pub(crate) fn js_trim(s: &str) -> &str {
    let ws = |c: char| {
        matches!(
            c,
            '\t' | '\n' | '\u{b}' | '\u{c}' | '\r' | ' ' | '\u{a0}' | '\u{1680}' | '\u{2000}'
                ..='\u{200a}'
                    | '\u{2028}'
                    | '\u{2029}'
                    | '\u{202f}'
                    | '\u{205f}'
                    | '\u{3000}'
                    | '\u{feff}'
        )
    };
    s.trim_matches(ws)
}

/// The spans inside backticks (`` `x` ``, ```` ```x``` ````), as Gemini CLI's
/// `/(`+)([\s\S]*?)\1/g` finds them: no import is read there.
fn code_regions(s: &[u8]) -> Vec<(usize, usize)> {
    // The longest run of backticks at or after each run's start: a fence of
    // `n` closes only where a run of `n` or more is, so each run costs one
    // search at most (a search that fails for every `n` made this quadratic).
    let mut runs: Vec<(usize, usize)> = Vec::new();
    let mut at = 0;
    while let Some(k) = memchr::memchr(b'`', &s[at..]) {
        let start = at + k;
        let len = s[start..].iter().take_while(|&&c| c == b'`').count();
        runs.push((start, len));
        at = start + len;
    }
    let mut longest = vec![0; runs.len() + 1];
    for r in (0..runs.len()).rev() {
        longest[r] = longest[r + 1].max(runs[r].1);
    }
    let mut out = Vec::new();
    let mut i = 0;
    while let Some(k) = memchr::memchr(b'`', &s[i..]) {
        i += k;
        let run = s[i..].iter().take_while(|&&c| c == b'`').count();
        let after = runs.partition_point(|&(start, _)| start < i + run);
        // The longest fence that closes: within this run's own tail (at
        // once), or in a run after it.
        let n = (run / 2).max(run.min(longest[after]));
        if n == 0 {
            i += 1;
            continue;
        }
        let end = if 2 * n <= run {
            i + 2 * n
        } else {
            let fence = vec![b'`'; n];
            match memchr::memmem::find(&s[i + n..], &fence) {
                Some(k) => i + n + k + n,
                None => {
                    i += 1;
                    continue;
                }
            }
        };
        out.push((i, end));
        i = end;
    }
    out
}

/// Gemini CLI's `findImports`: an `@` at the start or after a space, tab or
/// line break, then a path up to the next of those, starting with `.`, `/`
/// or an ASCII letter.
fn find_imports(s: &[u8]) -> Vec<(usize, usize)> {
    let blank = |c: u8| matches!(c, b' ' | b'\t' | b'\n' | b'\r');
    let mut out = Vec::new();
    let mut i = 0;
    while i < s.len() {
        let Some(at) = s[i..].iter().position(|&c| c == b'@').map(|p| p + i) else {
            break;
        };
        if at > 0 && !blank(s[at - 1]) {
            i = at + 1;
            continue;
        }
        let mut j = at + 1;
        while j < s.len() && !blank(s[j]) {
            j += 1;
        }
        if j > at + 1 {
            let c = s[at + 1];
            if c == b'.' || c == b'/' || c.is_ascii_alphabetic() {
                out.push((at, j));
            }
        }
        i = j + 1;
    }
    out
}

/// `path.resolve(base, rel)`: lexically, `..` and `.` taken out.
fn resolve(base: &Path, rel: &str) -> PathBuf {
    let joined = if rel.starts_with('/') {
        PathBuf::from(rel)
    } else {
        base.join(rel)
    };
    let mut out = PathBuf::new();
    for c in joined.components() {
        match c {
            std::path::Component::ParentDir => {
                out.pop();
            }
            std::path::Component::CurDir => {}
            other => out.push(other.as_os_str()),
        }
    }
    out
}

/// One import target as first read: it is read once per chain, however
/// often it is imported.
enum Target {
    /// Outside the project root (or a URL): Gemini CLI refuses it.
    Outside,
    Read(std::rc::Rc<str>),
    /// The comment Gemini CLI leaves instead (`ENOENT`, not a regular file).
    Failed(String),
}

/// Gemini CLI's `processImports` in its default ("tree") form, with a memo
/// of every file read and a cap on what one chain inlines.
struct Importer<'a> {
    ws: &'a Workspace,
    project_root: &'a Path,
    root_real: PathBuf,
    targets: std::collections::HashMap<PathBuf, std::rc::Rc<Target>>,
    /// Imports followed and bytes inlined so far in this chain.
    followed: usize,
    inlined: u64,
    /// Every file read, once, in the order first read.
    read: Vec<(String, Vec<u8>)>,
}

impl<'a> Importer<'a> {
    fn new(ws: &'a Workspace, project_root: &'a Path) -> Importer<'a> {
        Importer {
            ws,
            project_root,
            root_real: std::fs::canonicalize(project_root)
                .unwrap_or_else(|_| project_root.to_path_buf()),
            targets: std::collections::HashMap::new(),
            followed: 0,
            inlined: 0,
            read: Vec::new(),
        }
    }

    fn target(&mut self, rel: &str, full: &Path) -> std::rc::Rc<Target> {
        if let Some(t) = self.targets.get(full) {
            return t.clone();
        }
        let real = std::fs::canonicalize(full).unwrap_or_else(|_| full.to_path_buf());
        let t = if rel.starts_with("file://")
            || rel.starts_with("http://")
            || rel.starts_with("https://")
            || !real.starts_with(&self.root_real)
        {
            Target::Outside
        } else {
            match crate::workspace::read_contained(full, &[self.ws.root()], limits::FILE_BYTES) {
                Ok(bytes) => {
                    let text = String::from_utf8_lossy(&bytes).into_owned();
                    self.read.push((self.ws.relative(full), bytes));
                    Target::Read(text.into())
                }
                // Gemini CLI's message names the absolute path; the body has
                // the checkout's path removed, as everywhere.
                Err(Unread::Missing) => Target::Failed(format!(
                    "ENOENT: no such file or directory, access '{}'",
                    self.ws.relative(full)
                )),
                Err(why) => Target::Failed(why.why(&self.ws.relative(full))),
            }
        };
        let t = std::rc::Rc::new(t);
        self.targets.insert(full.to_path_buf(), t.clone());
        t
    }

    /// Counts what one import adds; past a cap, the refusal names the file
    /// that imports, the import and the cap.
    fn count(&mut self, file: &Path, rel: &str, followed: bool, bytes: usize) -> Result<(), Error> {
        self.followed += usize::from(followed);
        self.inlined = self.inlined.saturating_add(bytes as u64);
        let past = if self.followed > limits::IMPORTS {
            format!("{} imports followed", limits::IMPORTS)
        } else if self.inlined > limits::INLINED_BYTES {
            format!("{} MiB inlined by imports", limits::INLINED_BYTES >> 20)
        } else {
            return Ok(());
        };
        let shown = self.ws.relative(file);
        Err(Error::in_file(
            &shown,
            format!(
                "`{}` imports `@{}` past the receipt's cap of {past} in one GEMINI.md chain (Gemini CLI inlines a file at every import, so imports that fan out multiply): the receipt cannot compute what the agent received; import each file once, and fewer",
                crate::escape::one_line(&shown),
                crate::escape::one_line(rel)
            ),
        ))
    }

    /// `text` of `file` with its imports inlined. `chain` is the files
    /// imported on the way to this one (an import of one of them is not
    /// read again, as Gemini CLI does).
    fn inline(
        &mut self,
        text: &str,
        file: &Path,
        chain: &mut Vec<PathBuf>,
        depth: usize,
    ) -> Result<String, Error> {
        if depth >= limits::IMPORT_DEPTH {
            return Ok(text.to_string());
        }
        let dir = file.parent().unwrap_or(self.project_root).to_path_buf();
        let bytes = text.as_bytes();
        let regions = code_regions(bytes);
        let mut out = String::new();
        let mut last = 0;
        for (start, end) in find_imports(bytes) {
            out.push_str(&text[last..start]);
            last = end;
            let rel = &text[start + 1..end];
            // Regions are in order and apart: the one that may hold `start`
            // is found by bisection, not by a walk over all of them.
            let at = regions.partition_point(|&(_, e)| e <= start);
            if regions.get(at).is_some_and(|&(s, _)| s <= start) {
                out.push('@');
                out.push_str(rel);
                continue;
            }
            let full = resolve(&dir, rel);
            let target = self.target(rel, &full);
            let failed = match &*target {
                Target::Outside => Some(format!(
                    "<!-- Import failed: {rel} - Path traversal attempt -->"
                )),
                _ if chain.contains(&full) => {
                    Some(format!("<!-- File already processed: {rel} -->"))
                }
                Target::Failed(why) => Some(format!("<!-- Import failed: {rel} - {why} -->")),
                Target::Read(_) => None,
            };
            if let Some(failed) = failed {
                self.count(file, rel, false, failed.len())?;
                out.push_str(&failed);
                continue;
            }
            let Target::Read(inner_text) = &*target else {
                continue;
            };
            self.count(file, rel, true, inner_text.len() + 2 * rel.len() + 48)?;
            chain.push(full.clone());
            let inner = self.inline(&inner_text[..], &full, chain, depth + 1);
            chain.pop();
            let inner = inner?;
            out.push_str(&format!(
                "<!-- Imported from: {rel} -->\n{inner}\n<!-- End of import from: {rel} -->"
            ));
        }
        out.push_str(&text[last..]);
        Ok(out)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn options() -> Options {
        Options { home: None }
    }

    #[test]
    fn the_chain_is_gemini_clis_project_context() {
        let dir = tempfile::tempdir().unwrap();
        let root = std::fs::canonicalize(dir.path()).unwrap();
        std::fs::create_dir_all(root.join(".git")).unwrap();
        std::fs::create_dir_all(root.join("sub/a")).unwrap();
        std::fs::write(root.join("GEMINI.md"), "\u{feff}Root rules\r\n\n").unwrap();
        std::fs::write(
            root.join("sub/GEMINI.md"),
            "Sub rules\n@imp.md\n`@code.md`\n",
        )
        .unwrap();
        std::fs::write(root.join("sub/imp.md"), "imported\n@../missing.md\n").unwrap();
        std::fs::write(root.join("sub/a/GEMINI.md"), "not read: below the cwd").unwrap();
        let ws = Workspace::open(&root).unwrap();
        let chain = load(&root.join("sub"), &ws, &options()).unwrap();
        assert_eq!(
            chain.body.as_deref(),
            Some(
                "--- Context from: GEMINI.md ---\nRoot rules\n--- End of Context from: GEMINI.md ---\n\n\
                 --- Context from: sub/GEMINI.md ---\nSub rules\n<!-- Imported from: imp.md -->\nimported\n\
                 <!-- Import failed: ../missing.md - ENOENT: no such file or directory, access 'missing.md' -->\n\n\
                 <!-- End of import from: imp.md -->\n`@code.md`\n--- End of Context from: sub/GEMINI.md ---"
            )
        );
        let paths: Vec<&str> = chain.files.iter().map(|f| f.path.as_str()).collect();
        assert_eq!(paths, ["GEMINI.md", "sub/GEMINI.md", "sub/imp.md"]);
        let blocks = parse_blocks(chain.body.as_deref().unwrap());
        assert_eq!(blocks.len(), 2);
        assert_eq!(blocks[1].path, "sub/GEMINI.md");
    }

    #[test]
    fn context_file_names_come_first_and_paths_sort_as_strings() {
        let dir = tempfile::tempdir().unwrap();
        let root = std::fs::canonicalize(dir.path()).unwrap();
        std::fs::create_dir_all(root.join(".gemini")).unwrap();
        std::fs::write(
            root.join(SETTINGS),
            r#"{"context": {"fileName": ["AGENTS.md"]}}"#,
        )
        .unwrap();
        std::fs::write(root.join("AGENTS.md"), "agents").unwrap();
        std::fs::write(root.join("GEMINI.md"), "gemini").unwrap();
        let ws = Workspace::open(&root).unwrap();
        let chain = load(&root, &ws, &options()).unwrap();
        let paths: Vec<&str> = chain.files.iter().map(|f| f.path.as_str()).collect();
        assert_eq!(paths, [SETTINGS, "AGENTS.md", "GEMINI.md"]);
        assert!(
            chain
                .body
                .unwrap()
                .starts_with("--- Context from: AGENTS.md ---\nagents\n")
        );
    }

    /// GEMINI.md imports `@a.md` `n` times, a.md imports `@b.md` `n` times,
    /// five deep (issue 27's tree).
    fn fan_out(n: usize) -> (tempfile::TempDir, PathBuf) {
        let dir = tempfile::tempdir().unwrap();
        let root = std::fs::canonicalize(dir.path()).unwrap();
        std::fs::create_dir_all(root.join(".git")).unwrap();
        let names = ["GEMINI.md", "a.md", "b.md", "c.md", "d.md", "e.md"];
        for w in names.windows(2) {
            std::fs::write(root.join(w[0]), format!("@{}\n", w[1]).repeat(n)).unwrap();
        }
        std::fs::write(root.join("e.md"), "leaf\n").unwrap();
        (dir, root)
    }

    #[test]
    fn imports_that_fan_out_are_refused_at_the_cap_at_once_naming_the_file() {
        for n in [16, 24] {
            let (_d, root) = fan_out(n);
            let ws = Workspace::open(&root).unwrap();
            let start = std::time::Instant::now();
            let err = load(&root, &ws, &options()).unwrap_err();
            assert!(
                start.elapsed() < std::time::Duration::from_millis(500),
                "{n}: {:?}",
                start.elapsed()
            );
            assert_eq!(err.file(), Some("d.md"), "{n}");
            assert_eq!(
                err.message(),
                "`d.md` imports `@e.md` past the receipt's cap of 1024 imports followed in one GEMINI.md chain (Gemini CLI inlines a file at every import, so imports that fan out multiply): the receipt cannot compute what the agent received; import each file once, and fewer"
            );
            assert!(!err.message().contains('\n'));
            // The base comparison's paths do not hang either.
            let start = std::time::Instant::now();
            let paths = candidate_paths(&root, &ws, &options());
            assert!(start.elapsed() < std::time::Duration::from_millis(500));
            assert!(paths.contains(&"GEMINI.md".to_string()));
        }
    }

    #[test]
    fn every_import_is_inlined_and_each_file_read_once() {
        let dir = tempfile::tempdir().unwrap();
        let root = std::fs::canonicalize(dir.path()).unwrap();
        std::fs::create_dir_all(root.join(".git")).unwrap();
        std::fs::create_dir_all(root.join("docs")).unwrap();
        std::fs::write(root.join("GEMINI.md"), "@docs/a.md\n@docs/a.md\n@GEMINI.md").unwrap();
        std::fs::write(root.join("docs/a.md"), "A @b.md @a.md").unwrap();
        std::fs::write(root.join("docs/b.md"), "B").unwrap();
        let ws = Workspace::open(&root).unwrap();
        let chain = load(&root, &ws, &options()).unwrap();
        let a = "<!-- Imported from: docs/a.md -->\nA <!-- Imported from: b.md -->\nB\n<!-- End of import from: b.md --> <!-- File already processed: a.md -->\n<!-- End of import from: docs/a.md -->";
        let body = chain.body.unwrap();
        assert!(body.starts_with(&format!("--- Context from: GEMINI.md ---\n{a}\n{a}\n<!-- Imported from: GEMINI.md -->\n{a}\n{a}\n")), "{body}");
        let paths: Vec<&str> = chain.files.iter().map(|f| f.path.as_str()).collect();
        assert_eq!(paths, ["GEMINI.md", "docs/a.md", "docs/b.md"]);
    }

    #[test]
    fn imports_past_the_byte_cap_are_refused_naming_the_file() {
        let dir = tempfile::tempdir().unwrap();
        let root = std::fs::canonicalize(dir.path()).unwrap();
        std::fs::create_dir_all(root.join(".git")).unwrap();
        std::fs::write(root.join("GEMINI.md"), "@big.md\n".repeat(6)).unwrap();
        std::fs::write(root.join("big.md"), "x".repeat(3 << 20)).unwrap();
        let ws = Workspace::open(&root).unwrap();
        let err = load(&root, &ws, &options()).unwrap_err();
        assert_eq!(err.file(), Some("GEMINI.md"));
        assert!(
            err.message()
                .starts_with("`GEMINI.md` imports `@big.md` past the receipt's cap of 16 MiB inlined by imports in one GEMINI.md chain"),
            "{}",
            err.message()
        );
    }

    /// The old scan, kept as the oracle: every fence length tried in turn.
    fn code_regions_by_trying_each_fence(s: &[u8]) -> Vec<(usize, usize)> {
        let mut out = Vec::new();
        let mut i = 0;
        'scan: while i < s.len() {
            if s[i] != b'`' {
                i += 1;
                continue;
            }
            let run = s[i..].iter().take_while(|&&c| c == b'`').count();
            for n in (1..=run).rev() {
                let fence = vec![b'`'; n];
                if let Some(k) = s[i + n..].windows(n).position(|w| w == fence.as_slice()) {
                    let end = i + n + k + n;
                    out.push((i, end));
                    i = end;
                    continue 'scan;
                }
            }
            i += 1;
        }
        out
    }

    #[test]
    fn code_regions_equal_the_scan_that_tries_each_fence() {
        let mut seed = 0x9e37_79b9_u64;
        for _ in 0..20_000 {
            let len = (seed % 40) as usize;
            let text: Vec<u8> = (0..len)
                .map(|_| {
                    seed ^= seed << 13;
                    seed ^= seed >> 7;
                    seed ^= seed << 17;
                    [b'`', b'`', b'`', b'a', b' ', b'@'][(seed % 6) as usize]
                })
                .collect();
            assert_eq!(
                code_regions(&text),
                code_regions_by_trying_each_fence(&text),
                "{:?}",
                String::from_utf8_lossy(&text)
            );
        }
        // One long unclosed run before a long text: one search, not one per length.
        let mut text = vec![b'`'; 100_000];
        text.extend(std::iter::repeat_n(b'a', 1_000_000));
        let started = std::time::Instant::now();
        assert_eq!(code_regions(&text), [(0, 100_000)]);
        assert!(started.elapsed() < std::time::Duration::from_secs(5));
    }

    #[test]
    fn code_regions_follow_the_regex() {
        assert_eq!(code_regions(b"a `b` c"), [(2, 5)]);
        assert_eq!(code_regions(b"```x``"), [(0, 6)]);
        assert!(code_regions(b"`").is_empty());
        assert_eq!(find_imports(b"@a b@c @/d @1"), [(0, 2), (7, 10)]);
    }
}
