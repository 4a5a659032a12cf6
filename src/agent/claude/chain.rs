//! The CLAUDE.md chain, assembled as Claude Code 2.1 assembles it (measured
//! with the real CLI against a fake Messages API: docs/claude.md).
//!
//! Claude Code sends its instruction files as one text block of the first
//! user message:
//!
//! ```text
//! <system-reminder>\nCodebase and user instructions are shown below. ...\n\n
//! Contents of PATH (LABEL):\n\nTEXT\n\nContents of PATH (LABEL):\n\nTEXT\n</system-reminder>
//! ```
//!
//! In order: `~/.claude/CLAUDE.md` (the user's), then from the git root down
//! to the working directory, for each folder: `CLAUDE.md`, `.claude/CLAUDE.md`,
//! `.claude/rules/**/*.md` (a folder's files by name, then its subfolders) and
//! `CLAUDE.local.md`. `AGENTS.md` takes `CLAUDE.md`'s place only when no
//! folder of the walk has a `CLAUDE.md`. A file's `@path` imports follow it,
//! each once, when the imported file is inside the working directory (Claude
//! Code asks before it follows any other, and a headless run does not ask).
//! TEXT is the file with a byte order mark removed and whitespace trimmed at
//! both ends (CRLF is kept); a file with nothing else is left out.
//!
//! PATH is absolute on the agent's machine, which this step does not know: the
//! chain's `body` names each file as the receipt does (relative to the
//! workspace, `~/.claude/CLAUDE.md` for the user's), and is otherwise the block
//! byte for byte. `agents_sha` is SHA-256 of that body.

use std::fs;
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
use crate::workspace::{Unread, Workspace};

/// How the instruction block begins.
pub const HEADER: &str = "<system-reminder>\nCodebase and user instructions are shown below. Be sure to adhere to these instructions. IMPORTANT: These instructions OVERRIDE any default behavior and you MUST follow them exactly as written.\n\n";
/// How it ends.
pub(crate) const TRAILER: &str = "\n</system-reminder>";

/// The user's global file, as the receipt names it.
pub(crate) const HOME_FILE: &str = "~/.claude/CLAUDE.md";

/// Which of Claude Code's memory types a file is: the label it is sent with.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub(crate) enum Scope {
    User,
    Project,
    Local,
}

impl Scope {
    pub(crate) fn label(self) -> &'static str {
        match self {
            Scope::User => "user's private global instructions for all projects",
            Scope::Project => "project instructions, checked into the codebase",
            Scope::Local => "user's private project instructions, not checked in",
        }
    }

    /// The record's word (`attachment.files[].type`).
    pub(crate) fn from_record(word: &str) -> Option<Scope> {
        match word {
            "User" => Some(Scope::User),
            "Project" => Some(Scope::Project),
            "Local" => Some(Scope::Local),
            _ => None,
        }
    }
}

/// One file as Claude Code sends it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Entry {
    /// As the receipt names it.
    pub(crate) shown: String,
    pub(crate) scope: Scope,
    /// Trimmed, as sent.
    pub(crate) text: String,
}

/// The block's body: every entry, each file named as the receipt names it.
pub(crate) fn block(entries: &[Entry]) -> Option<String> {
    if entries.is_empty() {
        return None;
    }
    let parts: Vec<String> = entries
        .iter()
        .map(|e| {
            format!(
                "Contents of {} ({}):\n\n{}",
                e.shown,
                e.scope.label(),
                e.text
            )
        })
        .collect();
    Some(format!("{HEADER}{}{TRAILER}", parts.join("\n\n")))
}

/// The text Claude Code sends of a file: no byte order mark, whitespace
/// trimmed as JavaScript's `String.prototype.trim` does.
pub(crate) fn sent_text(bytes: &[u8]) -> String {
    let text = String::from_utf8_lossy(bytes);
    let text = text.strip_prefix('\u{feff}').unwrap_or(&text);
    text.trim_matches(js_space).to_string()
}

/// JavaScript's white space and line terminators.
fn js_space(c: char) -> bool {
    matches!(
        c,
        '\u{9}'..='\u{d}'
            | ' '
            | '\u{a0}'
            | '\u{1680}'
            | '\u{2000}'..='\u{200a}'
            | '\u{2028}'
            | '\u{2029}'
            | '\u{202f}'
            | '\u{205f}'
            | '\u{3000}'
            | '\u{feff}'
    )
}

/// The folders Claude Code reads, from the git root (or the workspace root)
/// down to `cwd`.
fn walk(cwd: &Path, root: &Path) -> Vec<PathBuf> {
    let top = cwd
        .ancestors()
        .take_while(|d| d.starts_with(root))
        .find(|d| d.join(".git").exists())
        .unwrap_or(root);
    let mut dirs: Vec<PathBuf> = cwd
        .ancestors()
        .take_while(|d| d.starts_with(top))
        .map(Path::to_path_buf)
        .collect();
    dirs.reverse();
    dirs
}

use crate::limits::{
    CHAIN_BYTES, FILE_BYTES, IMPORT_LOOKUPS, IMPORTS, RULES, RULES_DEPTH, RULES_FOLDER_ENTRIES,
};

/// `.claude/rules/` of a folder: its `.md` files by name, then each
/// subfolder's, recursively; a folder deeper than [`RULES_DEPTH`] is
/// refused, named.
fn rules(dir: &Path, out: &mut Vec<PathBuf>, depth: usize, ws: &Workspace) -> Result<(), Error> {
    let Ok(read) = fs::read_dir(dir) else {
        return Ok(());
    };
    let mut files = Vec::new();
    let mut dirs = Vec::new();
    let mut entries = read.flatten();
    for e in entries.by_ref().take(RULES_FOLDER_ENTRIES) {
        let Ok(kind) = e.file_type() else { continue };
        let path = e.path();
        if kind.is_dir() {
            dirs.push(path);
        } else if path.extension().is_some_and(|x| x == "md") {
            files.push(path);
        }
    }
    if entries.next().is_some() {
        // The rules past the entries looked at would be left out in silence.
        let shown = ws.relative(dir);
        return Err(Error::in_file(
            &shown,
            format!(
                "`{}` holds more than {} entries, the receipt's cap: Claude Code would read the rules among them, and the receipt cannot compute what the agent received; keep `.claude/rules/` to its rules",
                crate::escape::one_line(&shown),
                RULES_FOLDER_ENTRIES
            ),
        ));
    }
    files.sort();
    dirs.sort();
    out.extend(files);
    if let Some(d) = dirs.first().filter(|_| depth >= RULES_DEPTH) {
        let shown = ws.relative(d);
        return Err(Error::in_file(
            &shown,
            format!(
                "`{}` is more than {RULES_DEPTH} folders deep under `.claude/rules/`, the receipt's cap: Claude Code would read the rules in it, and the receipt cannot compute what the agent received; keep `.claude/rules/` at most {RULES_DEPTH} folders deep",
                crate::escape::one_line(&shown)
            ),
        ));
    }
    for d in dirs {
        rules(&d, out, depth + 1, ws)?;
    }
    Ok(())
}

/// A rule with `paths:` in its front matter is sent only when the agent
/// touches a matching file, not at the start.
fn conditional(text: &str) -> bool {
    let Some(rest) = text.strip_prefix("---") else {
        return false;
    };
    let front = rest.split("\n---").next().unwrap_or("");
    front.lines().any(|l| l.trim_start().starts_with("paths:"))
}

/// The `@path` imports of a file's text, in order: not in code, each a
/// word that starts with `@`.
pub(crate) fn imports(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut fenced = false;
    for line in text.split('\n') {
        let t = line.trim_start();
        if t.starts_with("```") || t.starts_with("~~~") {
            fenced = !fenced;
            continue;
        }
        if fenced {
            continue;
        }
        // Inline code spans carry no imports.
        let mut plain = String::new();
        let mut in_code = false;
        for c in line.chars() {
            if c == '`' {
                in_code = !in_code;
                plain.push(' ');
            } else if !in_code {
                plain.push(c);
            }
        }
        let mut prev = ' ';
        let chars: Vec<char> = plain.chars().collect();
        let mut i = 0;
        while i < chars.len() {
            let c = chars[i];
            if c == '@' && (prev == ' ' || prev == '\t' || i == 0) {
                let mut word = String::new();
                let mut j = i + 1;
                while j < chars.len() && chars[j] != ' ' && chars[j] != '\t' {
                    if chars[j] == '\\' && chars.get(j + 1) == Some(&' ') {
                        word.push(' ');
                        j += 2;
                        continue;
                    }
                    word.push(chars[j]);
                    j += 1;
                }
                let word = word.split('#').next().unwrap_or("").to_string();
                let valid = word
                    .chars()
                    .next()
                    .is_some_and(|c| c.is_ascii_alphanumeric() || "._~/-".contains(c));
                if valid {
                    out.push(word);
                }
                prev = ' ';
                i = j;
                continue;
            }
            prev = c;
            i += 1;
        }
    }
    out
}

struct Walker<'a> {
    ws: &'a Workspace,
    root: PathBuf,
    cwd: PathBuf,
    /// Every file read, once (imports and rules are memoised by path).
    seen: std::collections::HashSet<PathBuf>,
    resolved: std::collections::HashMap<PathBuf, Option<PathBuf>>,
    /// Imports followed and bytes read so far in this chain.
    imported: usize,
    /// `@` mentions looked up, found or not (see [`IMPORT_LOOKUPS`]).
    looked_up: usize,
    bytes: u64,
    entries: Vec<Entry>,
    chain: Chain,
}

impl Walker<'_> {
    /// Counts `n` bytes read for `shown`; past the chain's cap, the refusal
    /// names the file.
    fn charge(&mut self, shown: &str, n: usize) -> Result<(), Error> {
        self.bytes = self.bytes.saturating_add(n as u64);
        if self.bytes <= CHAIN_BYTES {
            return Ok(());
        }
        Err(Error::in_file(
            shown,
            format!(
                "`{}` takes the CLAUDE.md chain past the receipt's cap of {} MiB read in one chain (its files, imports and rules): the receipt cannot compute what the agent received; make the instruction files smaller",
                crate::escape::one_line(shown),
                CHAIN_BYTES >> 20
            ),
        ))
    }

    /// `fs::canonicalize`, once per path: a file that names one import many
    /// times resolves it once.
    fn resolve(&mut self, target: &Path) -> Option<PathBuf> {
        if let Some(r) = self.resolved.get(target) {
            return r.clone();
        }
        let r = fs::canonicalize(target).ok();
        self.resolved.insert(target.to_path_buf(), r.clone());
        r
    }

    /// Reads one file of the chain and, after it, what it imports.
    fn add(&mut self, path: &Path, scope: Scope, depth: usize) -> Result<(), Error> {
        self.add_read(path, scope, depth, None)
    }

    /// [`Walker::add`], the file's bytes already read when `read` has them
    /// (a rule, read once to see whether it is conditional).
    fn add_read(
        &mut self,
        path: &Path,
        scope: Scope,
        depth: usize,
        read: Option<Vec<u8>>,
    ) -> Result<(), Error> {
        let Ok(real) = fs::canonicalize(path) else {
            return Ok(());
        };
        // A folder of that name is not read; a device or a FIFO would be by
        // Claude Code, and cannot be vouched for: refused below.
        if self.seen.contains(&real) || real.is_dir() {
            return Ok(());
        }
        let shown = self.ws.relative(path);
        let Some(bytes) = self.bytes_of(path, &shown, read)? else {
            return Ok(());
        };
        self.seen.insert(real);
        self.charge(&shown, bytes.len())?;
        self.chain.files.push(AgentsFile {
            path: shown.clone(),
            bytes: bytes.len() as u64,
            sha256: sha256_hex(&bytes),
            truncated: false,
        });
        let text = sent_text(&bytes);
        if text.is_empty() {
            return Ok(());
        }
        let found = imports(&text);
        self.entries.push(Entry { shown, scope, text });
        if depth >= crate::limits::IMPORT_DEPTH {
            return Ok(());
        }
        let dir = path.parent().unwrap_or(&self.root).to_path_buf();
        for import in found {
            if import.starts_with('~') || import.starts_with('/') {
                self.chain.warnings.push(format!(
                    "`{}` imports `{}`, outside the checkout: Claude Code asks before it follows such an import, and a headless run does not ask; the computed chain leaves it out",
                    crate::escape::one_line(&self.ws.relative(path)),
                    crate::escape::one_line(&import)
                ));
                continue;
            }
            self.look_up(path)?;
            let target = dir.join(&import);
            let Some(real) = self.resolve(&target) else {
                continue;
            };
            if !real.starts_with(&self.cwd) {
                // Measured: an import outside the working directory is not
                // followed in a headless run.
                continue;
            }
            if self.seen.contains(&real) || real.is_dir() {
                continue;
            }
            self.imported += 1;
            if self.imported > IMPORTS {
                let from = self.ws.relative(path);
                return Err(Error::in_file(
                    &from,
                    format!(
                        "`{}` imports `@{}` past the receipt's cap of {IMPORTS} files imported in one CLAUDE.md chain: the receipt cannot compute what the agent received; import fewer files",
                        crate::escape::one_line(&from),
                        crate::escape::one_line(&import)
                    ),
                ));
            }
            self.add(&target, scope, depth + 1)?;
        }
        Ok(())
    }

    /// The bytes of one file of the chain (`read`, when they were read
    /// already); `None` when it is not there.
    fn bytes_of(
        &self,
        path: &Path,
        shown: &str,
        read: Option<Vec<u8>>,
    ) -> Result<Option<Vec<u8>>, Error> {
        if read.is_some() {
            return Ok(read);
        }
        match crate::workspace::read_contained(path, &[&self.root], FILE_BYTES) {
            Ok(b) => Ok(Some(b)),
            Err(Unread::Missing) => Ok(None),
            Err(why) => Err(Error::in_file(
                shown,
                format!(
                    "{}: Claude Code would read it as part of the CLAUDE.md chain, and the receipt \
                     cannot vouch for it; replace it with a regular file inside the repository",
                    why.why(shown)
                ),
            )),
        }
    }

    /// Counts one `@` mention of `path` looked up, found or not.
    fn look_up(&mut self, path: &Path) -> Result<(), Error> {
        self.looked_up += 1;
        if self.looked_up <= IMPORT_LOOKUPS {
            return Ok(());
        }
        let from = self.ws.relative(path);
        Err(Error::in_file(
            &from,
            format!(
                "`{}` holds `@` mentions past the receipt's cap of {IMPORT_LOOKUPS} looked up in one CLAUDE.md chain: the receipt cannot compute what the agent received; mention fewer",
                crate::escape::one_line(&from)
            ),
        ))
    }
}

/// Every file of the chain as Claude Code sends it, and the files read.
///
/// Computed once per run for a working directory, workspace and home: the
/// receipt's identities, their verification, the places compared with the
/// base and the record's check all take the same chain, so each file of it
/// (a `.claude/rules/` of hundreds) is opened and read once. A step that
/// writes the checkout (`configuration: base` putting the base's files
/// back) makes it computed again ([`crate::workspace::written`]).
pub(crate) fn entries(
    cwd: &Path,
    ws: &Workspace,
    home: Option<&Path>,
) -> Result<(Vec<Entry>, Chain), Error> {
    type Key = (PathBuf, PathBuf, Option<PathBuf>, u64);
    type Computed = Result<(Vec<Entry>, Chain), Error>;
    static COMPUTED: std::sync::Mutex<Vec<(Key, Computed)>> = std::sync::Mutex::new(Vec::new());
    let key = (
        cwd.to_path_buf(),
        ws.root().to_path_buf(),
        home.map(Path::to_path_buf),
        crate::workspace::generation(),
    );
    let computed =
        |c: &Vec<(Key, Computed)>| c.iter().find(|(k, _)| *k == key).map(|(_, v)| v.clone());
    let lock = || {
        COMPUTED
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    };
    if let Some(known) = computed(&lock()) {
        return known;
    }
    let fresh = compute(cwd, ws, home);
    let mut all = lock();
    // Chains of an earlier state of the checkout are never asked again.
    all.retain(|(k, _)| k.3 == key.3);
    all.push((key, fresh.clone()));
    fresh
}

fn compute(cwd: &Path, ws: &Workspace, home: Option<&Path>) -> Result<(Vec<Entry>, Chain), Error> {
    let root = fs::canonicalize(ws.root()).unwrap_or_else(|_| ws.root().to_path_buf());
    let real_cwd = fs::canonicalize(cwd).unwrap_or_else(|_| cwd.to_path_buf());
    let mut w = Walker {
        ws,
        root: root.clone(),
        cwd: real_cwd,
        seen: std::collections::HashSet::new(),
        resolved: std::collections::HashMap::new(),
        imported: 0,
        looked_up: 0,
        bytes: 0,
        entries: Vec::new(),
        chain: Chain::default(),
    };
    if let Some(home) = home {
        read_home(home, &mut w)?;
    }
    let dirs = walk(cwd, ws.root());
    let any_claude = dirs
        .iter()
        .any(|d| d.join("CLAUDE.md").is_file() || d.join(".claude/CLAUDE.md").is_file());
    for dir in &dirs {
        let first = if any_claude { "CLAUDE.md" } else { "AGENTS.md" };
        w.add(&dir.join(first), Scope::Project, 0)?;
        w.add(&dir.join(".claude/CLAUDE.md"), Scope::Project, 0)?;
        let mut found = Vec::new();
        rules(&dir.join(".claude/rules"), &mut found, 0, ws)?;
        if found.len() > RULES {
            // The chain computed stops here; the record's then differs, named.
            w.chain.warnings.push(format!(
                "`{}` holds {} rules; the receipt reads the first {RULES}",
                crate::escape::one_line(&ws.relative(&dir.join(".claude/rules"))),
                found.len()
            ));
            found.truncate(RULES);
        }
        for rule in found {
            // Read once, as every chain file is (a regular file inside the
            // workspace, bounded): a rule that is a link to `/dev/zero` or out
            // of the checkout is refused by `add_read` below, never read here.
            let read = crate::workspace::read_contained(&rule, &[&w.root], FILE_BYTES).ok();
            if let Some(b) = read
                .as_ref()
                .filter(|b| conditional(&String::from_utf8_lossy(b)))
            {
                // A rule sent counts once, when `add_read` takes it; one left
                // out counts here.
                w.charge(&ws.relative(&rule), b.len())?;
                w.chain.warnings.push(format!(
                    "`{}` applies only to the paths its front matter names: Claude Code sends it when the agent reads such a file, so only the record shows whether it was sent",
                    crate::escape::one_line(&ws.relative(&rule))
                ));
                continue;
            }
            w.add_read(&rule, Scope::Project, 0, read)?;
        }
        w.add(&dir.join("CLAUDE.local.md"), Scope::Local, 0)?;
    }
    let Walker { entries, chain, .. } = w;
    Ok((entries, chain))
}

/// `~/.claude/CLAUDE.md`, from the agent home when the agent job uploaded it.
fn read_home(home: &Path, w: &mut Walker) -> Result<(), Error> {
    let path = home.join(".claude/CLAUDE.md");
    let real_home = fs::canonicalize(home).unwrap_or_else(|_| home.to_path_buf());
    let bytes = match crate::workspace::read_contained(&path, &[&real_home], FILE_BYTES) {
        Ok(b) => b,
        Err(Unread::Missing) => return Ok(()),
        Err(why) => {
            return Err(Error::in_file(
                HOME_FILE,
                format!(
                    "{}: it is the user's CLAUDE.md, which Claude Code sends first; upload it as a regular file",
                    why.why(HOME_FILE)
                ),
            ));
        }
    };
    if home.join(".claude/rules").exists() {
        w.chain.warnings.push(
            "the agent home has `~/.claude/rules/`: the user's rules are not part of the computed chain, so only the record shows them".into(),
        );
    }
    w.chain.files.push(AgentsFile {
        path: HOME_FILE.into(),
        bytes: bytes.len() as u64,
        sha256: sha256_hex(&bytes),
        truncated: false,
    });
    let text = sent_text(&bytes);
    if !text.is_empty() {
        w.entries.push(Entry {
            shown: HOME_FILE.into(),
            scope: Scope::User,
            text,
        });
    }
    Ok(())
}

/// Reads the chain for an agent that ran in `cwd` (inside the workspace).
pub(crate) fn load(cwd: &Path, ws: &Workspace, opts: &Options) -> Result<Chain, Error> {
    let (entries, mut chain) = entries(cwd, ws, opts.home.as_deref())?;
    chain.body = block(&entries);
    Ok(chain)
}

/// Every path where Claude Code would look for a chain file: a file added or
/// removed at any of them changes what it reads (`.claude/` as a whole is
/// compared with the base by its own glob).
pub(crate) fn candidate_paths(cwd: &Path, ws: &Workspace, opts: &Options) -> Vec<String> {
    let mut out = Vec::new();
    for dir in walk(cwd, ws.root()) {
        if !dir.starts_with(ws.root()) {
            continue;
        }
        for name in [
            "CLAUDE.md",
            "AGENTS.md",
            ".claude/CLAUDE.md",
            "CLAUDE.local.md",
        ] {
            out.push(ws.relative(&dir.join(name)));
        }
    }
    if let Ok((_, chain)) = entries(cwd, ws, opts.home.as_deref()) {
        for f in chain.files {
            if f.path != HOME_FILE && !out.contains(&f.path) {
                out.push(f.path);
            }
        }
    }
    out
}

/// The repository files besides the chain that change what Claude Code does
/// (settings and their hooks, rules, skills, commands and subagents, whose
/// descriptions reach the model, MCP servers), as globs for the comparison
/// with the base: (kind, glob).
pub(crate) const BASE_GLOBS: &[(&str, &str)] = &[
    ("Claude hooks", "**/.claude/settings.json"),
    ("Claude hooks", "**/.claude/settings.local.json"),
    ("Claude skill", "**/.claude/skills/**"),
    ("Claude command", "**/.claude/commands/**"),
    ("Claude subagent", "**/.claude/agents/**"),
    ("Claude config", "**/.claude/**"),
    ("Claude MCP servers", "**/.mcp.json"),
    ("CLAUDE.md", "**/CLAUDE.md"),
    ("CLAUDE.md", "**/CLAUDE.local.md"),
];

#[cfg(test)]
mod tests {
    use super::*;

    fn tree(files: &[(&str, &[u8])]) -> (tempfile::TempDir, Workspace) {
        crate::workspace::test_tree(files)
    }

    fn shown(entries: &[Entry]) -> Vec<&str> {
        entries.iter().map(|e| e.shown.as_str()).collect()
    }

    #[test]
    fn the_walk_is_in_claude_codes_order() {
        let (_d, ws) = tree(&[
            ("CLAUDE.md", b"Root\n@docs/extra.md\n"),
            ("docs/extra.md", b"extra"),
            (".claude/CLAUDE.md", b"dot"),
            (".claude/rules/z.md", b"z"),
            (".claude/rules/b.md", b"b"),
            (".claude/rules/a/y.md", b"y"),
            (".claude/rules/c.txt", b"not a rule"),
            ("sub/CLAUDE.local.md", b"local"),
            ("sub/AGENTS.md", b"not read: there is a CLAUDE.md"),
            (
                "sub/.claude/rules/r.md",
                b"---\npaths: src/**\n---\nonly for src",
            ),
        ]);
        let root = ws.root().to_path_buf();
        let (e, chain) = entries(&root.join("sub"), &ws, None).unwrap();
        // docs/ is outside the working directory: the import is not followed.
        assert_eq!(
            shown(&e),
            [
                "CLAUDE.md",
                ".claude/CLAUDE.md",
                ".claude/rules/b.md",
                ".claude/rules/z.md",
                ".claude/rules/a/y.md",
                "sub/CLAUDE.local.md"
            ]
        );
        assert!(chain.warnings[0].contains("sub/.claude/rules/r.md"));
        let (e, _) = entries(&root, &ws, None).unwrap();
        assert_eq!(shown(&e)[..2], ["CLAUDE.md", "docs/extra.md"]);
        assert_eq!(e[1].scope, Scope::Project);
    }

    #[test]
    fn agents_md_only_without_any_claude_md() {
        let (_d, ws) = tree(&[("AGENTS.md", b"a\n@sub/inc.md x"), ("sub/inc.md", b"inc")]);
        let root = ws.root().to_path_buf();
        let (e, _) = entries(&root.join("sub"), &ws, None).unwrap();
        assert_eq!(shown(&e), ["AGENTS.md", "sub/inc.md"]);
    }

    #[test]
    fn text_is_trimmed_and_the_block_is_claude_codes() {
        assert_eq!(
            sent_text(b"\xEF\xBB\xBF\t hello\r\nworld \r\n\n"),
            "hello\r\nworld"
        );
        assert_eq!(sent_text(b"  \n"), "");
        let body = block(&[
            Entry {
                shown: HOME_FILE.into(),
                scope: Scope::User,
                text: "g".into(),
            },
            Entry {
                shown: "CLAUDE.md".into(),
                scope: Scope::Project,
                text: "r".into(),
            },
        ])
        .unwrap();
        assert!(body.starts_with(HEADER));
        assert!(body.ends_with(
            "Contents of CLAUDE.md (project instructions, checked into the codebase):\n\nr\n</system-reminder>"
        ));
        assert!(body.contains("Contents of ~/.claude/CLAUDE.md (user's private global instructions for all projects):\n\ng\n\nContents of"));
    }

    #[test]
    fn imports_that_fan_out_read_each_file_once_and_many_files_are_refused() {
        // Issue 27's tree: each file imported 16 and 24 times, five deep.
        for n in [16, 24] {
            let names = ["CLAUDE.md", "a.md", "b.md", "c.md", "d.md", "e.md"];
            let texts: Vec<String> = names
                .windows(2)
                .map(|w| format!("@{}\n", w[1]).repeat(n))
                .collect();
            let mut files: Vec<(&str, &[u8])> = names
                .iter()
                .zip(&texts)
                .map(|(n, t)| (*n, t.as_bytes()))
                .collect();
            files.push(("e.md", b"leaf"));
            let (_d, ws) = tree(&files);
            let start = std::time::Instant::now();
            let (e, _) = entries(ws.root(), &ws, None).unwrap();
            assert!(start.elapsed() < std::time::Duration::from_millis(500));
            assert_eq!(shown(&e), names);
        }
        // 1,100 files imported: past the cap, named.
        let many: String = (0..1100).map(|i| format!("@r/{i}.md\n")).collect();
        let names: Vec<String> = (0..1100).map(|i| format!("r/{i}.md")).collect();
        let mut files: Vec<(&str, &[u8])> = vec![("CLAUDE.md", many.as_bytes())];
        files.extend(names.iter().map(|n| (n.as_str(), b"rule".as_slice())));
        let (_d, ws) = tree(&files);
        let err = entries(ws.root(), &ws, None).unwrap_err();
        assert_eq!(err.file(), Some("CLAUDE.md"));
        assert_eq!(
            err.message(),
            "`CLAUDE.md` imports `@r/1024.md` past the receipt's cap of 1024 files imported in one CLAUDE.md chain: the receipt cannot compute what the agent received; import fewer files"
        );
    }

    #[test]
    fn a_chain_past_the_byte_cap_or_rules_too_deep_is_refused_naming_the_file() {
        let big = vec![b'x'; 12 << 20];
        let (_d, ws) = tree(&[
            ("CLAUDE.md", b"@a.md @b.md @c.md"),
            ("a.md", &big),
            ("b.md", &big),
            ("c.md", &big),
        ]);
        let err = entries(ws.root(), &ws, None).unwrap_err();
        assert_eq!(err.file(), Some("c.md"));
        assert!(
            err.message()
                .starts_with("`c.md` takes the CLAUDE.md chain past the receipt's cap of 32 MiB read in one chain"),
            "{}",
            err.message()
        );
        let deep = ".claude/rules/1/2/3/4/5/6/7/8/9/r.md";
        let (_d, ws) = tree(&[
            ("CLAUDE.md", b"x"),
            (".claude/rules/1/2/3/4/5/6/7/8/r.md", b"eight"),
            (deep, b"nine"),
        ]);
        let err = entries(ws.root(), &ws, None).unwrap_err();
        assert_eq!(err.file(), Some(".claude/rules/1/2/3/4/5/6/7/8/9"));
        assert!(
            err.message()
                .contains("more than 8 folders deep under `.claude/rules/`, the receipt's cap")
        );
        let (_d, ws) = tree(&[
            ("CLAUDE.md", b"x"),
            (".claude/rules/1/2/3/4/5/6/7/8/r.md", b"eight"),
        ]);
        let (e, _) = entries(ws.root(), &ws, None).unwrap();
        assert_eq!(
            shown(&e),
            ["CLAUDE.md", ".claude/rules/1/2/3/4/5/6/7/8/r.md"]
        );
    }

    #[test]
    fn imports_skip_code_and_email_addresses() {
        assert_eq!(
            imports("see @a.md and me@x.org\n`@b.md`\n```\n@c.md\n```\n@./d.md#part\r\n@~/e.md"),
            ["a.md", "./d.md", "~/e.md"]
        );
    }
}
