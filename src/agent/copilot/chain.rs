//! The instruction chain of GitHub Copilot CLI (1.0.80–1.0.102), as it
//! loads it at start (measured: docs/copilot.md).
//!
//! Whole files, in this order: the agent home's `copilot-instructions.md`,
//! the git root's `.github/copilot-instructions.md`, the working directory's
//! (when it is below the root), the root's `AGENTS.md`, `CLAUDE.md` and
//! `GEMINI.md` (all three), the working directory's three; then the agent
//! home's `instructions/*.instructions.md`, the root's
//! `.github/instructions/**/*.instructions.md` and the working directory's,
//! each in path order. Each whole file
//! is sent inside the system prompt as `<custom_instruction>\n…\n</custom_instruction>`,
//! each `.instructions.md` as it is (its front matter too); only a byte
//! order mark is removed. An `.instructions.md` whose `applyTo` is narrower
//! than `**` is not sent: the system prompt lists its path in a table, and
//! the model is told to read it. Such a file is in the chain's files (hashed)
//! and not in its body.
//!
//! The body the receipt hashes (`agents_sha`) is the sent files' texts, each
//! rendered as [`render`] writes it, in order: the same whichever release
//! put the blocks together, so that the check can rebuild it from the texts
//! it finds in the record's system prompt. A listed file stands in the body
//! as `<listed_instruction applyTo=… path=… sha256=…/>`: its change changes
//! `agents_sha`, though no record can show its text reached the model.

use std::path::{Path, PathBuf};

use crate::agent::chain::{AgentsFile, Chain};
use crate::digest::sha256_hex;
use crate::error::Error;
use crate::workspace::{Unread, Workspace};

/// How the receipt names a file of the agent home (`~/.copilot`).
pub(crate) const HOME_PREFIX: &str = "~/.copilot/";

/// Where the chain is read from besides the checkout.
#[derive(Clone, Debug, Default)]
pub(crate) struct Options {
    /// The agent home (`~/.copilot`), for the user's own instructions.
    pub(crate) home: Option<PathBuf>,
}

/// How Copilot CLI sends one file.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Sent {
    /// Whole, wrapped in `<custom_instruction>`.
    Wrapped,
    /// Whole, as it is (`.instructions.md` for every file).
    Inline,
    /// Only its path, in the table (`applyTo` narrower than `**`), with its pattern.
    Listed,
}

/// One file of the chain: how the receipt names it, its text less a BOM,
/// and how it is sent.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Block {
    pub(crate) path: String,
    pub(crate) text: String,
    pub(crate) sent: Sent,
    /// The `applyTo` pattern of a listed file.
    pub(crate) apply_to: Option<String>,
}

/// The body `agents_sha` hashes: each sent file as Copilot CLI 1.0.102 wraps
/// it, in order; `None` when nothing is sent.
pub(crate) fn render(blocks: &[Block]) -> Option<String> {
    let parts: Vec<String> = blocks
        .iter()
        .map(|b| match b.sent {
            Sent::Wrapped => format!(
                "<custom_instruction>\n{}\n</custom_instruction>\n\n",
                b.text
            ),
            Sent::Inline => format!("{}\n\n", b.text),
            // Not sent: its text's hash stands in, so that a change to it
            // changes `agents_sha` (verify, compare) though the record
            // cannot show it.
            Sent::Listed => format!(
                "<listed_instruction applyTo=\"{}\" path=\"{}\" sha256=\"{}\"/>\n\n",
                b.apply_to.as_deref().unwrap_or_default(),
                b.path,
                sha256_hex(b.text.as_bytes())
            ),
        })
        .collect();
    (!parts.is_empty()).then(|| parts.concat())
}

/// The `applyTo` of an `.instructions.md`'s front matter; `None` without one.
pub(crate) fn apply_to(text: &str) -> Option<String> {
    let rest = text
        .strip_prefix("---\n")
        .or_else(|| text.strip_prefix("---\r\n"))?;
    for line in rest.lines() {
        let line = line.trim_end_matches('\r');
        if line.trim() == "---" {
            break;
        }
        if let Some(v) = line.trim_start().strip_prefix("applyTo:") {
            let v = v.trim();
            let v = v
                .strip_prefix('"')
                .and_then(|v| v.strip_suffix('"'))
                .or_else(|| v.strip_prefix('\'').and_then(|v| v.strip_suffix('\'')))
                .unwrap_or(v);
            return Some(v.to_string());
        }
    }
    None
}

/// Whether a file with this `applyTo` is sent whole.
fn whole(apply_to: Option<&str>) -> bool {
    matches!(apply_to, None | Some("**") | Some(""))
}

/// The git root Copilot CLI reads from: the nearest folder at or above the
/// working directory with `.git`, inside the workspace; else the workspace.
pub(crate) fn git_root(cwd: &Path, ws: &Workspace) -> PathBuf {
    cwd.ancestors()
        .take_while(|d| d.starts_with(ws.root()))
        .find(|d| d.join(".git").exists())
        .unwrap_or(ws.root())
        .to_path_buf()
}

/// The whole-file sources of the checkout, in the order Copilot CLI reads them.
fn whole_files(cwd: &Path, ws: &Workspace) -> Vec<PathBuf> {
    let root = git_root(cwd, ws);
    let below = cwd != root;
    let mut out = vec![root.join(".github/copilot-instructions.md")];
    if below {
        out.push(cwd.join(".github/copilot-instructions.md"));
    }
    let names = ["AGENTS.md", "CLAUDE.md", "GEMINI.md"];
    out.extend(names.iter().map(|n| root.join(n)));
    if below {
        out.extend(names.iter().map(|n| cwd.join(n)));
    }
    out
}

/// The `.github/instructions/` folders Copilot CLI reads, in order: the git
/// root's, then the working directory's when it is below the root.
fn instruction_dirs(cwd: &Path, ws: &Workspace) -> Vec<PathBuf> {
    let root = git_root(cwd, ws);
    let mut out = vec![root.join(".github/instructions")];
    if cwd != root {
        out.push(cwd.join(".github/instructions"));
    }
    out
}

/// Every `*.instructions.md` under `dir`, sorted by path, bounded.
fn instruction_files(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut stack = vec![(dir.to_path_buf(), 0usize)];
    while let Some((d, depth)) = stack.pop() {
        let Ok(entries) = std::fs::read_dir(&d) else {
            continue;
        };
        for e in entries.flatten() {
            let Ok(kind) = e.file_type() else { continue };
            let path = e.path();
            if kind.is_dir() && depth < crate::limits::INSTRUCTIONS_DEPTH {
                stack.push((path, depth + 1));
            } else if !kind.is_dir()
                && e.file_name()
                    .to_string_lossy()
                    .ends_with(".instructions.md")
                && out.len() < crate::limits::INSTRUCTION_FILES
            {
                out.push(path);
            }
        }
    }
    out.sort();
    out
}

/// Every path, relative to the workspace, where Copilot CLI would look for
/// an instruction file: one added at any of them changes what it reads. The
/// `.github/instructions/` folder is compared as a whole by the base globs.
pub(crate) fn candidate_paths(cwd: &Path, ws: &Workspace) -> Vec<String> {
    let mut out: Vec<String> = whole_files(cwd, ws)
        .iter()
        .map(|p| ws.relative(p))
        .collect();
    for dir in instruction_dirs(cwd, ws) {
        out.extend(instruction_files(&dir).iter().map(|p| ws.relative(p)));
    }
    out
}

/// A file's text as Copilot CLI sends it: a UTF-8 BOM removed, nothing else.
fn sent_text(bytes: &[u8]) -> String {
    let bytes = bytes.strip_prefix(b"\xef\xbb\xbf").unwrap_or(bytes);
    String::from_utf8_lossy(bytes).into_owned()
}

fn record(path: String, bytes: &[u8]) -> AgentsFile {
    AgentsFile {
        path,
        bytes: bytes.len() as u64,
        sha256: sha256_hex(bytes),
        truncated: false,
    }
}

/// The chain's blocks and files, in order.
pub(crate) fn blocks(
    cwd: &Path,
    ws: &Workspace,
    opts: &Options,
    files: &mut Vec<AgentsFile>,
) -> Result<Vec<Block>, Error> {
    let mut out = Vec::new();
    let home = opts
        .home
        .as_ref()
        .and_then(|h| std::fs::canonicalize(h).ok().map(|r| (h.clone(), r)));
    let mut push = |path: String, bytes: &[u8], wrapped: bool, out: &mut Vec<Block>| {
        let text = sent_text(bytes);
        let pattern = (!wrapped).then(|| apply_to(&text)).flatten();
        let sent = match (wrapped, whole(pattern.as_deref())) {
            (true, _) => Sent::Wrapped,
            (false, true) => Sent::Inline,
            (false, false) => Sent::Listed,
        };
        files.push(record(path.clone(), bytes));
        out.push(Block {
            path,
            text,
            sent,
            apply_to: pattern.filter(|_| sent == Sent::Listed),
        });
    };
    if let Some((home, real)) = &home {
        let path = home.join("copilot-instructions.md");
        if let Ok(bytes) =
            crate::workspace::read_contained(&path, &[real], crate::limits::FILE_BYTES)
        {
            push(
                format!("{HOME_PREFIX}copilot-instructions.md"),
                &bytes,
                true,
                &mut out,
            );
        }
    }
    for path in whole_files(cwd, ws) {
        if let Some(bytes) = read_file(&path, ws)? {
            push(ws.relative(&path), &bytes, true, &mut out);
        }
    }
    if let Some((home, real)) = &home {
        for path in instruction_files(&home.join("instructions")) {
            if let Ok(bytes) =
                crate::workspace::read_contained(&path, &[real], crate::limits::FILE_BYTES)
            {
                let rel = path.strip_prefix(home).unwrap_or(&path);
                push(
                    format!("{HOME_PREFIX}{}", rel.display()),
                    &bytes,
                    false,
                    &mut out,
                );
            }
        }
    }
    for path in instruction_dirs(cwd, ws)
        .iter()
        .flat_map(|d| instruction_files(d))
    {
        if let Some(bytes) = read_file(&path, ws)? {
            push(ws.relative(&path), &bytes, false, &mut out);
        }
    }
    Ok(out)
}

/// A file of the checkout's chain: `None` when it is not there; a link out
/// of the workspace, a FIFO or one too large is an error naming it.
fn read_file(path: &Path, ws: &Workspace) -> Result<Option<Vec<u8>>, Error> {
    match crate::workspace::read_contained(path, &[ws.root()], crate::limits::FILE_BYTES) {
        Ok(bytes) => Ok(Some(bytes)),
        Err(Unread::Missing) => Ok(None),
        Err(why) => Err(Error::in_file(
            ws.relative(path),
            format!(
                "{}: Copilot CLI reads it as an instruction file; make it a regular file inside the checkout of at most {} MiB",
                why.why(&ws.relative(path)),
                crate::limits::FILE_BYTES >> 20
            ),
        )),
    }
}

/// The chain as the receipt records it.
pub(crate) fn load(cwd: &Path, ws: &Workspace, opts: &Options) -> Result<Chain, Error> {
    let mut chain = Chain::default();
    let blocks = blocks(cwd, ws, opts, &mut chain.files)?;
    for b in blocks.iter().filter(|b| b.sent == Sent::Listed) {
        chain.warnings.push(format!(
            "`{}` has `applyTo: {}`: Copilot CLI lists its path for the model to read, and does not send its text",
            crate::escape::one_line(&b.path),
            crate::escape::one_line(b.apply_to.as_deref().unwrap_or_default())
        ));
    }
    chain.body = render(&blocks);
    Ok(chain)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_chain_is_copilots_order_and_a_narrow_apply_to_is_only_listed() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        std::fs::create_dir_all(root.join(".git")).unwrap();
        std::fs::create_dir_all(root.join(".github/instructions/deep")).unwrap();
        std::fs::create_dir_all(root.join("sub/.github")).unwrap();
        let w = |p: &str, t: &[u8]| std::fs::write(root.join(p), t).unwrap();
        w("AGENTS.md", b"\xef\xbb\xbfA\r\n");
        w("GEMINI.md", b"G\n");
        w("CLAUDE.md", b"C\n");
        w(".github/copilot-instructions.md", b"R\n");
        w("sub/.github/copilot-instructions.md", b"S\n");
        w("sub/AGENTS.md", b"SA\n");
        w("sub/CLAUDE.md", b"SC\n");
        w("sub/GEMINI.md", b"SG\n");
        std::fs::create_dir_all(root.join("sub/.github/instructions")).unwrap();
        w("sub/.github/instructions/s.instructions.md", b"sub all\n");
        w(
            ".github/instructions/all.instructions.md",
            b"---\napplyTo: \"**\"\n---\nall\n",
        );
        w(
            ".github/instructions/deep/n.instructions.md",
            b"no front matter\n",
        );
        w(
            ".github/instructions/py.instructions.md",
            b"---\napplyTo: '**/*.py'\n---\npy\n",
        );
        let ws = Workspace::open(root).unwrap();
        let cwd = ws.root().join("sub");
        let chain = load(&cwd, &ws, &Options::default()).unwrap();
        let paths: Vec<&str> = chain.files.iter().map(|f| f.path.as_str()).collect();
        assert_eq!(
            paths,
            [
                ".github/copilot-instructions.md",
                "sub/.github/copilot-instructions.md",
                "AGENTS.md",
                "CLAUDE.md",
                "GEMINI.md",
                "sub/AGENTS.md",
                "sub/CLAUDE.md",
                "sub/GEMINI.md",
                ".github/instructions/all.instructions.md",
                ".github/instructions/deep/n.instructions.md",
                ".github/instructions/py.instructions.md",
                "sub/.github/instructions/s.instructions.md",
            ]
        );
        let body = chain.body.unwrap();
        assert!(
            body.contains("<custom_instruction>\nA\r\n\n</custom_instruction>"),
            "{body}"
        );
        assert!(body.contains("---\napplyTo: \"**\"\n---\nall\n\n\n"));
        assert!(!body.contains("py\n"), "only listed: {body}");
        assert!(body.contains("<listed_instruction applyTo=\"**/*.py\" path=\".github/instructions/py.instructions.md\" sha256=\""));
        assert!(chain.warnings[0].contains("py.instructions.md"));
        // At the root, the working directory's files are the root's.
        let at_root = load(ws.root(), &ws, &Options::default()).unwrap();
        assert!(!at_root.files.iter().any(|f| f.path.starts_with("sub/")));
    }

    #[test]
    fn apply_to_is_read_from_the_front_matter_only() {
        assert_eq!(apply_to("---\napplyTo: \"**\"\n---\nx"), Some("**".into()));
        assert_eq!(
            apply_to("---\r\napplyTo: src/**\r\n---\r\n"),
            Some("src/**".into())
        );
        assert_eq!(apply_to("x\n---\napplyTo: a\n---\n"), None);
        assert_eq!(apply_to("---\n---\napplyTo: a\n"), None);
    }
}
