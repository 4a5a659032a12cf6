//! Paths inside the workspace, and nothing outside it.
//!
//! Inputs name files relative to the workspace. Because a pull request controls
//! the checkout, a path or a symlink in it could point anywhere on the runner
//! (`../../home/runner/.ssh/id_rsa`); the receipt only hashes, reads and writes
//! files that resolve inside the workspace. The one exception is a file a
//! workflow downloaded under the runner's temp folder (`RUNNER_TEMP`), so that
//! an artifact never has to be unpacked over the checkout: `usage-file` and
//! `output-file` may name one ([`Workspace::resolve_artifact`]).

use std::fs;
use std::io;
use std::path::{Component, Path, PathBuf};

use crate::error::Error;

/// The workspace root, with symlinks resolved.
#[derive(Clone, Debug)]
pub(crate) struct Workspace {
    root: PathBuf,
    /// `RUNNER_TEMP`, symlinks resolved, in Actions.
    temp: Option<PathBuf>,
}

/// A path the user gave, resolved inside the workspace.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Location {
    /// Relative to the workspace, with `/` separators: what the receipt records.
    pub(crate) shown: String,
    /// Absolute, symlinks resolved as far as the path exists.
    pub(crate) path: PathBuf,
    /// As the input names it, relative to the workspace, links not followed
    /// (`None` for an absolute path): a link the pull request put there is a
    /// change of this path, whatever it points to.
    pub(crate) named: Option<String>,
}

impl Workspace {
    pub(crate) fn open(root: &Path) -> Result<Workspace, Error> {
        let root = fs::canonicalize(root).map_err(|e| {
            Error::new(format!(
                "the workspace `{}` cannot be opened: {}; set GITHUB_WORKSPACE or --workspace to an existing folder",
                root.display(),
                e
            ))
        })?;
        if !root.is_dir() {
            return Err(Error::new(format!(
                "the workspace `{}` is not a folder; set GITHUB_WORKSPACE or --workspace to a folder",
                root.display()
            )));
        }
        Ok(Workspace { root, temp: None })
    }

    /// The runner's temp folder, where a workflow downloads artifacts it must
    /// not unpack over the checkout (a fork's artifact is written by fork code).
    pub(crate) fn with_runner_temp(mut self, temp: Option<&Path>) -> Workspace {
        self.temp = temp.and_then(|t| fs::canonicalize(t).ok());
        self
    }

    pub(crate) fn root(&self) -> &Path {
        &self.root
    }

    /// A file the user names to be read, not recorded (`verify --statement`'s
    /// statement and review, `audit`'s folder): inside the workspace as [`Workspace::resolve`]
    /// has it, else wherever the path points (`gh attestation download`
    /// writes where the user stands). Shown as given.
    pub(crate) fn resolve_anywhere(&self, input: &str, given: &str) -> Result<Location, Error> {
        if let Ok(inside) = self.resolve_artifact(input, given) {
            return Ok(inside);
        }
        let path = Path::new(given);
        let path = if path.is_absolute() {
            path.to_path_buf()
        } else {
            self.root.join(path)
        };
        Ok(Location {
            shown: given.to_string(),
            path: resolve_existing_prefix(&path).unwrap_or(path),
            named: None,
        })
    }

    /// [`Workspace::resolve`], or in Actions a path under the runner's temp
    /// folder: as this process sees it (`$RUNNER_TEMP/...`), or as the workflow
    /// wrote it (`${{ runner.temp }}/...`, a host path `.../_temp/...`, which
    /// the runner mounts as `RUNNER_TEMP` in a container). Such a file is shown
    /// as given: the receipt names it, and a later step can use the path.
    /// Anything that resolves outside both, through `..` or a symlink, is refused.
    pub(crate) fn resolve_artifact(&self, input: &str, given: &str) -> Result<Location, Error> {
        let inside = self.resolve(input, given);
        let Some(temp) = &self.temp else {
            return inside;
        };
        if inside.is_ok() || !Path::new(given).is_absolute() {
            return inside;
        }
        let under = |p: PathBuf| {
            resolve_existing_prefix(&p)
                .ok()
                .filter(|r| r.starts_with(temp))
        };
        let found = under(PathBuf::from(given)).or_else(|| {
            let (_, rest) = given.split_once("/_temp/")?;
            under(temp.join(rest))
        });
        match found {
            Some(path) => Ok(Location {
                shown: given.to_string(),
                path,
                named: None,
            }),
            None => Err(Error::in_file(
                given,
                format!(
                    "input `{input}`: `{}` is neither inside the workspace `{}` nor under the runner's temp folder `{}` \
                     (symlinks resolved); name a file in the workspace, or one under `${{{{ runner.temp }}}}` where the artifact was downloaded",
                    crate::escape::one_line(given),
                    self.root.display(),
                    temp.display()
                ),
            )),
        }
    }

    /// Resolves `given` (input `input`) against the workspace and refuses anything
    /// that lands outside it, through `..` or through a symlink.
    pub(crate) fn resolve(&self, input: &str, given: &str) -> Result<Location, Error> {
        let joined = if Path::new(given).is_absolute() {
            PathBuf::from(given)
        } else {
            self.root.join(given)
        };
        let path = resolve_existing_prefix(&joined).map_err(|why| {
            Error::in_file(
                given,
                format!("input `{input}`: `{given}` {why}; name a path inside the workspace"),
            )
        })?;
        if !path.starts_with(&self.root) {
            return Err(Error::in_file(
                given,
                format!(
                    "input `{input}`: `{given}` resolves to `{}`, outside the workspace `{}`; \
                     name a file inside the workspace (symlinks included)",
                    path.display(),
                    self.root.display()
                ),
            ));
        }
        Ok(Location {
            shown: self.relative(&path),
            path,
            named: lexical(given),
        })
    }

    /// The workspace-relative form of a path inside it, with `/` separators
    /// (`.` for the root): what receipts and annotations show. A path outside
    /// is shown whole.
    pub(crate) fn relative(&self, path: &Path) -> String {
        let Ok(rel) = path.strip_prefix(&self.root) else {
            return path.to_string_lossy().into_owned();
        };
        let shown: Vec<_> = rel
            .components()
            .map(|c| c.as_os_str().to_string_lossy())
            .collect();
        if shown.is_empty() {
            ".".to_string()
        } else {
            shown.join("/")
        }
    }
}

/// A relative path with `.` and `..` folded, links not followed; `None` when
/// it is absolute or climbs out.
fn lexical(given: &str) -> Option<String> {
    let mut parts: Vec<String> = Vec::new();
    for c in Path::new(given).components() {
        match c {
            Component::Normal(n) => parts.push(n.to_string_lossy().into_owned()),
            Component::CurDir => {}
            Component::ParentDir => {
                parts.pop()?;
            }
            _ => return None,
        }
    }
    (!parts.is_empty()).then(|| parts.join("/"))
}

/// Canonicalizes the longest prefix of `path` that exists, then appends the rest,
/// which must not climb with `..` (nothing is there to resolve it against).
fn resolve_existing_prefix(path: &Path) -> Result<PathBuf, String> {
    let comps: Vec<Component> = path.components().collect();
    for split in (1..=comps.len()).rev() {
        let head: PathBuf = comps[..split].iter().collect();
        match fs::canonicalize(&head) {
            Ok(real) => {
                let mut out = real;
                for c in &comps[split..] {
                    match c {
                        Component::Normal(n) => out.push(n),
                        Component::CurDir => {}
                        _ => {
                            return Err(
                                "climbs with `..` through a folder that does not exist".into()
                            );
                        }
                    }
                }
                return Ok(out);
            }
            Err(e) if e.kind() == io::ErrorKind::NotFound => {
                if fs::symlink_metadata(&head).is_ok_and(|m| m.file_type().is_symlink()) {
                    return Err("is a symbolic link whose target does not exist".into());
                }
            }
            Err(e) if e.kind() == io::ErrorKind::NotADirectory => {
                return Err("goes through a file as if it were a folder".into());
            }
            Err(e) => return Err(format!("cannot be resolved ({e})")),
        }
    }
    Err("cannot be resolved".into())
}

/// Why a file of a checkout that a pull request controls was not read.
#[derive(Debug)]
pub(crate) enum Unread {
    Missing,
    /// It resolves, through a symlink, to this path outside every allowed root.
    Outside(PathBuf),
    /// A folder, a device, a pipe: not a regular file.
    NotRegular,
    /// It holds more than the limit (counted while reading: procfs files
    /// report a size of 0).
    TooLarge(u64),
    Io(io::Error),
}

impl Unread {
    /// As an I/O error, for a reader that reports those.
    pub(crate) fn into_io(self) -> io::Error {
        match self {
            Unread::Io(e) => e,
            Unread::Missing => io::ErrorKind::NotFound.into(),
            Unread::TooLarge(max) => io::Error::new(
                io::ErrorKind::FileTooLarge,
                format!("larger than {} MiB", max >> 20),
            ),
            Unread::Outside(_) | Unread::NotRegular => {
                io::Error::new(io::ErrorKind::InvalidInput, "not a regular file")
            }
        }
    }

    /// Why, in a few words, for a sentence about `shown`.
    pub(crate) fn why(&self, shown: &str) -> String {
        match self {
            Unread::Missing => format!("`{shown}` does not exist"),
            Unread::Outside(real) => format!(
                "`{shown}` resolves to `{}`, outside the workspace, and is not read",
                crate::escape::one_line(&real.display().to_string())
            ),
            Unread::NotRegular => format!("`{shown}` is not a regular file, and is not read"),
            Unread::TooLarge(max) => format!(
                "`{shown}` holds more than {} MiB, and is not read",
                max >> 20
            ),
            Unread::Io(e) => format!("`{shown}` cannot be read ({e})"),
        }
    }
}

/// How many times this run has changed the checkout's files (`configuration:
/// base` putting the base's back, or undoing that): what was computed from
/// them before (an instruction chain) is computed again.
static WRITTEN: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);

/// Says that this run changed the checkout's files.
pub(crate) fn written() {
    WRITTEN.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
}

/// The checkout's state as this run has changed it: a count of [`written`].
pub(crate) fn generation() -> u64 {
    WRITTEN.load(std::sync::atomic::Ordering::SeqCst)
}

/// Reads `path` as data: it must resolve (symlinks followed) inside one of
/// `roots`, be a regular file, and hold at most `max` bytes.
pub(crate) fn read_contained(path: &Path, roots: &[&Path], max: u64) -> Result<Vec<u8>, Unread> {
    use std::io::Read;
    let file = open_contained(path, roots)?;
    // Sized once from the file: growing by doubling costs a copy and fresh
    // pages at each step (a third of reading a 2 MB review).
    let size = file.metadata().map_or(0, |m| m.len()).min(max + 1);
    let mut bytes = Vec::with_capacity(usize::try_from(size).unwrap_or(0).saturating_add(1));
    file.take(max.saturating_add(1))
        .read_to_end(&mut bytes)
        .map_err(Unread::Io)?;
    if bytes.len() as u64 > max {
        return Err(Unread::TooLarge(max));
    }
    Ok(bytes)
}

/// Reads `path` wherever it resolves, with [`read_contained`]'s other checks:
/// a regular file of at most `max` bytes (a path the step itself was given,
/// or a file inside the git folder already checked).
pub(crate) fn read_bounded(path: &Path, max: u64) -> Result<Vec<u8>, Unread> {
    read_contained(path, &[Path::new("/")], max)
}

/// Opens `path` for reading as a stream, with [`read_contained`]'s checks but
/// the size: it must resolve inside one of `roots` and be a regular file. The
/// caller bounds what it reads (see `agent::stream`).
pub(crate) fn open_contained(path: &Path, roots: &[&Path]) -> Result<fs::File, Unread> {
    let real = fs::canonicalize(path).map_err(|e| match e.kind() {
        io::ErrorKind::NotFound => Unread::Missing,
        _ => Unread::Io(e),
    })?;
    if !roots.iter().any(|r| real.starts_with(r)) {
        return Err(Unread::Outside(real));
    }
    open_regular(&real)
}

/// Opens `path` for reading only if it is a regular file. The open itself
/// does not block: a FIFO (swapped in after any check made before it) would
/// wait for a writer that never comes; what was opened is then checked.
pub(crate) fn open_regular(path: &Path) -> Result<fs::File, Unread> {
    use std::os::unix::fs::OpenOptionsExt;
    let file = fs::OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_NONBLOCK)
        .open(path)
        .map_err(|e| match e.kind() {
            io::ErrorKind::NotFound => Unread::Missing,
            _ => Unread::Io(e),
        })?;
    if !file.metadata().map_err(Unread::Io)?.is_file() {
        return Err(Unread::NotRegular);
    }
    Ok(file)
}

/// Whether a location holds a file, and if not, why not, in the user's words.
pub(crate) enum Presence {
    File,
    Missing,
}

/// Checks that `loc` is a readable regular file (or missing), naming the input on failure.
pub(crate) fn presence(input: &str, loc: &Location) -> Result<Presence, Error> {
    match fs::metadata(&loc.path) {
        Ok(m) if m.is_dir() => Err(Error::in_file(
            &loc.shown,
            format!(
                "input `{input}`: `{}` is a folder, not a file; name the file itself",
                loc.shown
            ),
        )),
        Ok(m) if !m.is_file() => Err(not_regular(input, loc)),
        Ok(_) => Ok(Presence::File),
        Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(Presence::Missing),
        Err(e) => Err(Error::io(
            &format!("input `{input}`: cannot read"),
            &loc.shown,
            &loc.path,
            &e,
        )),
    }
}

fn not_regular(input: &str, loc: &Location) -> Error {
    Error::in_file(
        &loc.shown,
        format!(
            "input `{input}`: `{}` is not a regular file; name a regular file",
            loc.shown
        ),
    )
}

/// Reads a file that must exist, at most `max` bytes of it.
pub(crate) fn read_required(input: &str, loc: &Location, max: u64) -> Result<Vec<u8>, Error> {
    use std::io::Read;
    match presence(input, loc)? {
        Presence::Missing => Err(missing(input, loc)),
        Presence::File => {
            let cannot = |e: io::Error| {
                Error::io(
                    &format!("input `{input}`: cannot read"),
                    &loc.shown,
                    &loc.path,
                    &e,
                )
            };
            let file = match open_regular(&loc.path) {
                Ok(file) => file,
                Err(Unread::Io(e)) => return Err(cannot(e)),
                Err(Unread::Missing) => return Err(missing(input, loc)),
                Err(_) => return Err(not_regular(input, loc)),
            };
            let size = file.metadata().map_err(cannot)?.len();
            if size > max {
                return Err(too_large(input, loc, max));
            }
            let mut bytes = Vec::with_capacity(size as usize);
            file.take(max.saturating_add(1))
                .read_to_end(&mut bytes)
                .map_err(cannot)?;
            if bytes.len() as u64 > max {
                return Err(too_large(input, loc, max));
            }
            Ok(bytes)
        }
    }
}

/// A file past the most the receipt reads (or hashes) of it.
pub(crate) fn too_large(input: &str, loc: &Location, max: u64) -> Error {
    Error::in_file(
        &loc.shown,
        format!(
            "input `{input}`: `{}` is larger than {} MiB, the most the receipt reads of it; name the file the agent used (a file this large is refused, so that a checkout cannot stall the run)",
            crate::escape::one_line(&loc.shown),
            max / (1024 * 1024)
        ),
    )
}

pub(crate) fn missing(input: &str, loc: &Location) -> Error {
    Error::in_file(
        &loc.shown,
        format!(
            "input `{input}`: `{}` does not exist (looked for `{}`); check the path, relative to the workspace",
            loc.shown,
            loc.path.display()
        ),
    )
}

/// Where a folder the agent job handed over (codex-home, a downloaded
/// record) is inside the container. Inputs are host paths: one under
/// the runner's temp folder (`.../_temp/...`, as `${{ runner.temp }}` gives) is
/// found under `RUNNER_TEMP`, where the runner mounts that folder. In Actions
/// (`RUNNER_TEMP` set) it must be inside the workspace or the runner's temp
/// folder, the only host folders a container sees (a downloaded artifact is
/// one of them); on a developer's machine any folder will do (`~/.codex`).
pub(crate) fn resolve_host_folder(
    input: &str,
    given: &str,
    ws: &Workspace,
    runner_temp: Option<&Path>,
) -> Result<PathBuf, Error> {
    let path = Path::new(given);
    if !path.is_absolute() {
        return Ok(ws.resolve(input, given)?.path);
    }
    let refuse = || {
        Error::new(format!(
            "input `{input}`: `{}` is not a folder here; give the folder the agent kept its record in, \
             under the workspace or `${{{{ runner.temp }}}}` (the only host folders a container action sees), \
             or the folder the session record was downloaded to",
            crate::escape::one_line(given)
        ))
    };
    let inside = |p: &Path| {
        let Ok(real) = std::fs::canonicalize(p) else {
            return false;
        };
        let under = |root: &Path| std::fs::canonicalize(root).is_ok_and(|r| real.starts_with(r));
        real.is_dir()
            && (runner_temp.is_none() || under(ws.root()) || runner_temp.is_some_and(under))
    };
    if inside(path) {
        return std::fs::canonicalize(path).map_err(|_| refuse());
    }
    if let (Some(temp), Some((_, rest))) = (runner_temp, given.split_once("/_temp/")) {
        let mapped = temp.join(rest);
        if inside(&mapped) {
            return Ok(mapped);
        }
    }
    Err(refuse())
}

/// A workspace for tests: `repo/` with a `.git` folder and `files` in it.
#[cfg(test)]
pub(crate) fn test_tree(files: &[(&str, &[u8])]) -> (tempfile::TempDir, Workspace) {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("repo");
    std::fs::create_dir_all(root.join(".git")).unwrap();
    for (p, b) in files {
        let p = root.join(p);
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(p, b).unwrap();
    }
    let ws = Workspace::open(&root).unwrap();
    (dir, ws)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::unix::fs::symlink;

    /// A FIFO where a file is read (swapped in after any check) is refused
    /// at the open, which does not wait for a writer.
    #[test]
    fn a_fifo_is_refused_without_blocking() {
        let dir = tempfile::tempdir().unwrap();
        let fifo = dir.path().join("f");
        let made = std::process::Command::new("mkfifo").arg(&fifo).status();
        assert!(made.is_ok_and(|m| m.success()));
        let (tx, rx) = std::sync::mpsc::channel();
        std::thread::spawn(move || {
            let _ = tx.send(matches!(open_regular(&fifo), Err(Unread::NotRegular)));
        });
        let refused = rx.recv_timeout(std::time::Duration::from_secs(10));
        assert_eq!(refused, Ok(true), "the open blocked, or took the FIFO");
    }

    fn ws() -> (tempfile::TempDir, Workspace) {
        let dir = tempfile::tempdir().unwrap();
        fs::create_dir_all(dir.path().join("ws/a")).unwrap();
        fs::write(dir.path().join("ws/a/f.md"), "x").unwrap();
        fs::write(dir.path().join("secret"), "s").unwrap();
        let w = Workspace::open(&dir.path().join("ws")).unwrap();
        (dir, w)
    }

    #[test]
    fn relative_paths_resolve_inside() {
        let (_d, w) = ws();
        let loc = w.resolve("prompt-file", "a/./f.md").unwrap();
        assert_eq!(loc.shown, "a/f.md");
        assert_eq!(
            w.resolve("usage-file", "out/new/usage.json").unwrap().shown,
            "out/new/usage.json"
        );
        assert_eq!(w.resolve("x", "a/../a/f.md").unwrap().shown, "a/f.md");
    }

    #[test]
    fn escapes_are_refused() {
        let (d, w) = ws();
        let e = w.resolve("prompt-file", "../secret").unwrap_err();
        assert!(e.message().contains("outside the workspace"), "{e}");
        let e = w
            .resolve("prompt-file", d.path().join("secret").to_str().unwrap())
            .unwrap_err();
        assert!(e.message().contains("outside the workspace"), "{e}");
        symlink(d.path().join("secret"), w.root().join("link")).unwrap();
        let e = w.resolve("prompt-file", "link").unwrap_err();
        assert!(e.message().contains("outside the workspace"), "{e}");
        let e = w.resolve("prompt-file", "nope/../../secret").unwrap_err();
        assert!(e.message().contains("`..`"), "{e}");
        symlink(d.path().join("gone"), w.root().join("dangling")).unwrap();
        let e = w.resolve("usage-file", "dangling").unwrap_err();
        assert!(e.message().contains("symbolic link"), "{e}");
    }

    #[test]
    fn artifacts_may_be_under_the_runner_temp_folder_and_nowhere_else() {
        let (d, w) = ws();
        let temp = d.path().join("github/runner_temp");
        fs::create_dir_all(temp.join("agent-review/artifacts")).unwrap();
        fs::write(temp.join("agent-review/usage.json"), "{}").unwrap();
        let host = "/home/runner/work/_temp/agent-review/usage.json";
        // Without RUNNER_TEMP (a developer's machine), the workspace only.
        let e = w.resolve_artifact("usage-file", host).unwrap_err();
        assert!(e.message().contains("outside the workspace"), "{e}");
        let w = w.with_runner_temp(Some(&temp));
        let real = fs::canonicalize(&temp).unwrap();
        // As the workflow wrote it, and as the container sees it.
        let loc = w.resolve_artifact("usage-file", host).unwrap();
        assert_eq!(
            (loc.shown.as_str(), &loc.path),
            (host, &real.join("agent-review/usage.json"))
        );
        let direct = temp.join("agent-review/artifacts/review.json");
        let loc = w
            .resolve_artifact("output-file", direct.to_str().unwrap())
            .unwrap();
        assert_eq!(loc.path, real.join("agent-review/artifacts/review.json"));
        // Relative paths and paths in the workspace are as before.
        assert_eq!(
            w.resolve_artifact("output-file", "a/f.md").unwrap().shown,
            "a/f.md"
        );
        // Out through `..`, a symlink, or not under either: refused, naming both folders.
        for bad in [
            "/home/runner/work/_temp/../../secret".to_string(),
            d.path().join("secret").display().to_string(),
            "/home/runner/work/elsewhere/usage.json".to_string(),
        ] {
            let e = w.resolve_artifact("usage-file", &bad).unwrap_err();
            assert!(
                e.message().contains("nor under the runner's temp folder"),
                "{bad}: {e}"
            );
        }
        symlink(d.path().join("secret"), temp.join("agent-review/link.json")).unwrap();
        let e = w
            .resolve_artifact(
                "output-file",
                "/home/runner/work/_temp/agent-review/link.json",
            )
            .unwrap_err();
        assert!(e.message().contains("input `output-file`"), "{e}");
        // Other inputs stay inside the workspace.
        assert!(w.resolve("prompt-file", host).is_err());
    }

    #[test]
    fn absolute_paths_inside_become_relative() {
        let (_d, w) = ws();
        let abs = w.root().join("a/f.md");
        assert_eq!(
            w.resolve("x", abs.to_str().unwrap()).unwrap().shown,
            "a/f.md"
        );
    }
}
