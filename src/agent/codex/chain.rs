//! The AGENTS.md chain, assembled exactly as Codex assembles it.
//!
//! The chain is an input to the agent as much as the prompt is, and a pull
//! request can change it. Codex walks from the project root (the first ancestor
//! of the working directory holding one of `project_root_markers`, `.git` by
//! default; with an empty list, only the working directory) down to the
//! working directory and takes one file per folder: `AGENTS.override.md`, else
//! `AGENTS.md`, else the fallback names. A candidate counts only if it is a
//! regular file (a folder or a dangling symlink of that name does not). The
//! first that counts is the folder's file even when it is empty (an empty
//! override silences the folder). `project_doc_max_bytes = 0` reads no project
//! files at all. Each file is decoded lossily
//! and kept byte for byte otherwise; whitespace-only files are skipped; files
//! are joined with `"\n\n"`; one budget of `project-doc-max-bytes` covers the
//! files' bytes in walk order, cutting the file that overflows and dropping the
//! rest. A global `$CODEX_HOME/AGENTS.override.md` or `AGENTS.md`, trimmed, comes
//! first, followed by `"\n\n--- project-doc ---\n\n"`.

use std::fs;
use std::path::{Path, PathBuf};

pub(crate) use crate::agent::chain::{AgentsFile, Chain};

/// How Codex was set up to read its chain: this step's inputs, else Codex's
/// settings, else Codex's defaults ([`super::Codex`] makes it).
#[derive(Clone, Debug)]
pub(crate) struct Options {
    /// `project_doc_fallback_filenames`.
    pub(crate) fallback_names: Vec<String>,
    /// `project_doc_max_bytes`.
    pub(crate) max_bytes: u64,
    /// `project_root_markers`: `[".git"]` unless configured; empty means no walk up.
    pub(crate) root_markers: Vec<String>,
    /// codex-home, for the global AGENTS.md.
    pub(crate) home: Option<PathBuf>,
}
use crate::digest::sha256_hex;
use crate::error::Error;
use crate::workspace::Workspace;

pub(crate) const OVERRIDE: &str = "AGENTS.override.md";
pub(crate) const DEFAULT: &str = "AGENTS.md";
pub(crate) const PROJECT_DOC_SEPARATOR: &str = "\n\n--- project-doc ---\n\n";
pub(crate) const DEFAULT_MAX_BYTES: u64 = 32 * 1024;

/// Codex's default `project_root_markers`.
pub(crate) fn default_root_markers() -> Vec<String> {
    vec![".git".to_string()]
}

/// The folders Codex reads, from the project root down to `cwd`.
fn search_dirs(cwd: &Path, markers: &[String]) -> Vec<PathBuf> {
    let root = if markers.is_empty() {
        None
    } else {
        cwd.ancestors()
            .find(|dir| markers.iter().any(|m| fs::metadata(dir.join(m)).is_ok()))
    };
    let Some(root) = root else {
        return vec![cwd.to_path_buf()];
    };
    let mut dirs: Vec<PathBuf> = cwd
        .ancestors()
        .take_while(|dir| dir.starts_with(root))
        .map(Path::to_path_buf)
        .collect();
    dirs.reverse();
    dirs
}

/// Every path, relative to the workspace, where Codex would look for a chain
/// file for an agent in `cwd`: a file added or removed at any of them changes
/// what the agent reads.
pub(crate) fn candidate_paths(cwd: &Path, ws: &Workspace, opts: &Options) -> Vec<String> {
    let names = candidates(opts);
    let mut out = Vec::new();
    for dir in search_dirs(cwd, &opts.root_markers) {
        if !dir.starts_with(ws.root()) {
            continue;
        }
        for n in &names {
            let path = dir.join(n);
            out.push(ws.relative(&path));
            // A link (`AGENTS.md -> CLAUDE.md`): its target is what Codex reads.
            if fs::symlink_metadata(&path).is_ok_and(|m| m.file_type().is_symlink()) {
                if let Ok(real) = fs::canonicalize(&path) {
                    if real.starts_with(ws.root()) {
                        out.push(ws.relative(&real));
                    }
                }
            }
        }
    }
    out
}

fn candidates(opts: &Options) -> Vec<String> {
    let mut names = vec![OVERRIDE.to_string(), DEFAULT.to_string()];
    for n in &opts.fallback_names {
        if !n.is_empty() && !names.contains(n) {
            names.push(n.clone());
        }
    }
    names
}

/// Reads the chain for an agent that ran in `cwd` (inside the workspace).
pub(crate) fn load(cwd: &Path, ws: &Workspace, opts: &Options) -> Result<Chain, Error> {
    let mut chain = Chain::default();
    let global = match &opts.home {
        Some(home) => read_global(home, &mut chain)?,
        None => None,
    };
    let mut parts: Vec<String> = Vec::new();
    if opts.max_bytes > 0 {
        let names = candidates(opts);
        let mut remaining = opts.max_bytes;
        for dir in search_dirs(cwd, &opts.root_markers) {
            let Some((path, shown, bytes)) = folder_file(&dir, &names, ws, &mut chain)? else {
                continue;
            };
            let mut file = AgentsFile {
                path: shown.clone(),
                bytes: bytes.len() as u64,
                sha256: sha256_hex(&bytes),
                truncated: false,
            };
            if path.file_name().is_some_and(|n| n == OVERRIDE) && dir.join(DEFAULT).exists() {
                chain
                    .warnings
                    .push(format!("`{shown}` hides the `AGENTS.md` beside it"));
            }
            if remaining == 0 {
                file.truncated = true;
                chain.warnings.push(format!(
                    "`{shown}` was dropped: the chain is over project-doc-max-bytes"
                ));
                chain.files.push(file);
                continue;
            }
            let taken = &bytes[..bytes.len().min(remaining as usize)];
            if (bytes.len() as u64) > remaining {
                file.truncated = true;
                chain.warnings.push(format!(
                    "`{shown}` was cut to {remaining} of its {} bytes: the chain is over project-doc-max-bytes ({})",
                    bytes.len(),
                    opts.max_bytes
                ));
            }
            let text = String::from_utf8_lossy(taken).into_owned();
            if !text.trim().is_empty() {
                parts.push(text);
                remaining = remaining.saturating_sub(taken.len() as u64);
            }
            chain.files.push(file);
        }
    }
    let project = (!parts.is_empty()).then(|| parts.join("\n\n"));
    chain.body = match (global, project) {
        (Some(g), Some(p)) => Some(format!("{g}{PROJECT_DOC_SEPARATOR}{p}")),
        (Some(g), None) => Some(g),
        (None, p) => p,
    };
    Ok(chain)
}

/// The file Codex reads in one folder of the walk, with its bytes: the first
/// name that is a regular file (symlinks followed: a folder or a dangling
/// link of that name does not count, and the next name is tried). One above
/// the workspace is said and skipped; one that is not a regular file inside
/// it is refused.
fn folder_file(
    dir: &Path,
    names: &[String],
    ws: &Workspace,
    chain: &mut Chain,
) -> Result<Option<(PathBuf, String, Vec<u8>)>, Error> {
    let Some(path) = names
        .iter()
        .map(|n| dir.join(n))
        .find(|p| fs::metadata(p).is_ok_and(|m| m.is_file()))
    else {
        return Ok(None);
    };
    if !path.starts_with(ws.root()) {
        // Above the workspace: Codex on the runner would read it, we cannot.
        chain.warnings.push(format!(
            "`{}` is above the workspace; the action cannot read it, so the computed chain may differ",
            path.display()
        ));
        return Ok(None);
    }
    let shown = ws.relative(&path);
    match crate::workspace::read_contained(&path, &[ws.root()], crate::limits::FILE_BYTES) {
        Ok(bytes) => Ok(Some((path, shown, bytes))),
        Err(crate::workspace::Unread::Missing) => Ok(None),
        Err(why) => Err(Error::in_file(
            &shown,
            format!(
                "{}: Codex would read it as part of the AGENTS.md chain, and the receipt \
                 cannot vouch for it; replace it with a regular file inside the repository",
                why.why(&shown)
            ),
        )),
    }
}

/// `$CODEX_HOME/AGENTS.override.md`, else `AGENTS.md`: the first that is not empty, trimmed.
fn read_global(home: &Path, chain: &mut Chain) -> Result<Option<String>, Error> {
    // Inside codex-home, a regular file, bounded: the folder comes from the
    // agent's job, and a FIFO or a link out of it is not what Codex was given.
    let real_home = fs::canonicalize(home).unwrap_or_else(|_| home.to_path_buf());
    for name in [OVERRIDE, DEFAULT] {
        let path = home.join(name);
        let shown = format!("$CODEX_HOME/{name}");
        let bytes = match crate::workspace::read_contained(
            &path,
            &[&real_home],
            crate::limits::FILE_BYTES,
        ) {
            Ok(bytes) => bytes,
            Err(crate::workspace::Unread::Missing) => continue,
            Err(why) => {
                return Err(Error::in_file(
                    &shown,
                    format!(
                        "{}: Codex reads it as the global AGENTS.md, and the receipt cannot vouch for it; \
                         make it a regular file inside codex-home of at most {} MiB",
                        why.why(&shown),
                        crate::limits::FILE_BYTES >> 20
                    ),
                ));
            }
        };
        let text = String::from_utf8_lossy(&bytes);
        let trimmed = text.trim();
        if trimmed.is_empty() {
            continue;
        }
        chain.files.push(AgentsFile {
            path: format!("$CODEX_HOME/{name}"),
            bytes: bytes.len() as u64,
            sha256: sha256_hex(&bytes),
            truncated: false,
        });
        return Ok(Some(trimmed.to_string()));
    }
    Ok(None)
}

/// How an AGENTS.md block Codex sends begins.
pub(crate) const BLOCK_HEADING: &str = "# AGENTS.md instructions";

/// The body inside an AGENTS.md block as Codex sends it:
/// `# AGENTS.md instructions for CWD\n\n<INSTRUCTIONS>\nBODY\n</INSTRUCTIONS>`,
/// or without ` for CWD` when only codex-home's file contributes.
pub fn body_of_block(block: &str) -> Option<&str> {
    let rest = block.strip_prefix(BLOCK_HEADING)?;
    let start = rest.find("\n\n<INSTRUCTIONS>\n")? + "\n\n<INSTRUCTIONS>\n".len();
    rest[start..].strip_suffix("\n</INSTRUCTIONS>")
}

#[cfg(test)]
mod tests {
    use super::*;

    struct Tree {
        _dir: tempfile::TempDir,
        ws: Workspace,
    }

    fn tree(files: &[(&str, &[u8])]) -> Tree {
        let (dir, ws) = crate::workspace::test_tree(files);
        Tree { _dir: dir, ws }
    }

    fn opts(max: u64) -> Options {
        Options {
            fallback_names: vec![],
            max_bytes: max,
            root_markers: default_root_markers(),
            home: None,
        }
    }

    fn chain(t: &Tree, cwd: &str, o: &Options) -> Chain {
        let cwd = t.ws.root().join(cwd);
        fs::create_dir_all(&cwd).unwrap();
        load(&cwd, &t.ws, o).unwrap()
    }

    #[test]
    fn root_down_to_cwd_joined_raw() {
        let t = tree(&[
            ("AGENTS.md", b"root\r\n"),
            ("a/AGENTS.md", b"\xEF\xBB\xBFa"),
            ("a/b/AGENTS.md", b"b\n\n"),
        ]);
        let c = chain(&t, "a/b", &opts(DEFAULT_MAX_BYTES));
        assert_eq!(c.body.as_deref(), Some("root\r\n\n\n\u{feff}a\n\nb\n\n"));
        assert_eq!(
            c.files.iter().map(|f| f.path.as_str()).collect::<Vec<_>>(),
            vec!["AGENTS.md", "a/AGENTS.md", "a/b/AGENTS.md"]
        );
        // A folder outside cwd's path does not count.
        assert_eq!(
            chain(&t, "a", &opts(DEFAULT_MAX_BYTES)).body.as_deref(),
            Some("root\r\n\n\n\u{feff}a")
        );
    }

    #[test]
    fn an_override_wins_and_an_empty_one_silences_its_folder() {
        let t = tree(&[
            ("AGENTS.md", b"root"),
            ("AGENTS.override.md", b"override"),
            ("s/AGENTS.md", b"s"),
            ("s/AGENTS.override.md", b"  \n"),
        ]);
        let c = chain(&t, "s", &opts(DEFAULT_MAX_BYTES));
        assert_eq!(c.body.as_deref(), Some("override"));
        assert!(
            c.warnings
                .iter()
                .any(|w| w.contains("hides the `AGENTS.md`"))
        );
    }

    #[test]
    fn fallback_names_are_tried_last() {
        let t = tree(&[
            ("CLAUDE.md", b"fallback"),
            ("x/AGENTS.md", b"x"),
            ("x/CLAUDE.md", b"not me"),
        ]);
        let mut o = opts(DEFAULT_MAX_BYTES);
        o.fallback_names = vec!["CLAUDE.md".into()];
        assert_eq!(chain(&t, "x", &o).body.as_deref(), Some("fallback\n\nx"));
        assert_eq!(
            chain(&t, "x", &opts(DEFAULT_MAX_BYTES)).body.as_deref(),
            Some("x")
        );
    }

    #[test]
    fn one_budget_cuts_the_overflowing_file_and_drops_the_rest() {
        let t = tree(&[
            ("AGENTS.md", b"12345"),
            ("a/AGENTS.md", b"abcdef"),
            ("a/b/AGENTS.md", b"zzz"),
        ]);
        let c = chain(&t, "a/b", &opts(8));
        // Separators do not count: 5 bytes, then 3 of 6, then nothing.
        assert_eq!(c.body.as_deref(), Some("12345\n\nabc"));
        assert_eq!(
            c.files.iter().map(|f| f.truncated).collect::<Vec<_>>(),
            vec![false, true, true]
        );
        assert_eq!(c.warnings.len(), 2);
        // A cut inside a multi-byte character decodes lossily, as Codex does.
        let t = tree(&[("AGENTS.md", "é".as_bytes())]);
        assert_eq!(chain(&t, "", &opts(1)).body.as_deref(), Some("\u{FFFD}"));
        assert_eq!(chain(&t, "", &opts(0)).body, None);
    }

    #[test]
    fn the_global_file_comes_first_trimmed() {
        let t = tree(&[("AGENTS.md", b"project")]);
        let home = tempfile::tempdir().unwrap();
        fs::write(home.path().join("AGENTS.md"), "\n  global rules \n").unwrap();
        let mut o = opts(DEFAULT_MAX_BYTES);
        o.home = Some(home.path().to_path_buf());
        let c = chain(&t, "", &o);
        assert_eq!(
            c.body.as_deref(),
            Some("global rules\n\n--- project-doc ---\n\nproject")
        );
        assert_eq!(c.files[0].path, "$CODEX_HOME/AGENTS.md");
    }

    #[test]
    fn the_block_codex_sends_gives_back_the_body() {
        let block =
            "# AGENTS.md instructions for /w\n\n<INSTRUCTIONS>\nroot\r\n\n\nsub\n</INSTRUCTIONS>";
        assert_eq!(body_of_block(block), Some("root\r\n\n\nsub"));
        let global_only = "# AGENTS.md instructions\n\n<INSTRUCTIONS>\nrules\n</INSTRUCTIONS>";
        assert_eq!(body_of_block(global_only), Some("rules"));
        assert_eq!(body_of_block("something else"), None);
    }

    #[test]
    fn root_markers_and_regular_files_as_codex_reads_them() {
        let t = tree(&[
            ("AGENTS.md", b"repo root"),
            ("svc/.projroot", b""),
            ("svc/AGENTS.md", b"service"),
            ("svc/api/AGENTS.md", b"api"),
        ]);
        let mut o = opts(DEFAULT_MAX_BYTES);
        o.root_markers = vec![".projroot".into()];
        assert_eq!(
            chain(&t, "svc/api", &o).body.as_deref(),
            Some("service\n\napi")
        );
        o.root_markers = vec![];
        assert_eq!(chain(&t, "svc/api", &o).body.as_deref(), Some("api"));
        // A folder named AGENTS.override.md and a dangling link do not count.
        fs::create_dir_all(t.ws.root().join("svc/api/AGENTS.override.md")).unwrap();
        std::os::unix::fs::symlink("/nowhere", t.ws.root().join("svc/AGENTS.override.md")).unwrap();
        let c = chain(&t, "svc/api", &opts(DEFAULT_MAX_BYTES));
        assert_eq!(c.body.as_deref(), Some("repo root\n\nservice\n\napi"));
    }
}
