//! The checkout's identity: `git describe --tags --always --dirty` and `git rev-parse HEAD`,
//! and a file's bytes at another commit.
//!
//! The checkout may be hostile: a fork's artifact can unpack a `.git/config` over it, and a
//! pull request controls `.gitattributes`. So git runs here with nothing that could start a
//! program: an empty environment (no token in it for a program to find), no system or global
//! config, no attributes but the repository's own, and every filter and diff driver the
//! repository's config defines overridden to nothing on the command line, which outranks every
//! config file. `git describe --dirty` refreshes the index, and that refresh is what would run a
//! clean filter; it then compares the raw bytes instead (a checkout that relies on a filter,
//! such as Git LFS with its files fetched, reads as dirty; the image has no git-lfs anyway).
//!
//! Inside the action's container the workspace belongs to the runner's user while the container
//! runs as root, and git (2.35.2+) refuses such a repository as "dubious ownership":
//! `safe.directory` is passed on each call, in git's command scope, so the user's repository
//! config is never edited.

use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};

use crate::error::Error;
use crate::limits;

mod objects;
pub(crate) mod pathspec;

/// What git says about the checkout.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Checkout {
    /// `git describe --tags --always --dirty`, e.g. `v1.4.0-7-g2414721-dirty`.
    pub(crate) describe: String,
    /// `git rev-parse HEAD`.
    pub(crate) sha: String,
    /// A shallow clone: `describe` cannot see tags beyond the fetched history.
    pub(crate) shallow: bool,
}

/// Git queries already running: start them, do other work, then collect.
/// Process starts dominate this tool's run time, so they overlap with hashing.
pub(crate) struct Pending {
    dir: PathBuf,
    /// Shallow, and `HEAD`'s commit, when read from the git folder; else
    /// git's answer is the first of `queries`.
    head: Option<Head>,
    queries: Vec<(&'static [&'static str], Child)>,
}

/// Shallow, and `HEAD`'s full commit id.
type Head = (bool, String);

const HEAD: &[&str] = &["rev-parse", "--is-shallow-repository", "--verify", "HEAD"];
const DESCRIBE: &[&str] = &["describe", "--tags", "--always", "--dirty"];

/// Starts asking for the checkout's identity, or takes the query [`prepare`]
/// started for `dir`.
pub(crate) fn start_identify(dir: &Path) -> Result<Pending, Error> {
    let early = EARLY.lock().ok().and_then(|mut e| {
        let at = e.iter().position(|(d, _)| d == dir)?;
        Some(e.swap_remove(at).1)
    });
    match early.and_then(|answer| answer.recv().ok()) {
        Some(pending) => pending,
        None => identify_now(dir),
    }
}

fn identify_now(dir: &Path) -> Result<Pending, Error> {
    let mut pending = start_head(dir)?;
    pending.queries.push((DESCRIBE, spawn(dir, DESCRIBE)?));
    Ok(pending)
}

/// Whether [`prepare`] started the identity of `dir`: its caller can do
/// other work before [`start_identify`], which then only collects.
pub(crate) fn prepared(dir: &Path) -> bool {
    EARLY.lock().is_ok_and(|e| e.iter().any(|(d, _)| d == dir))
}

/// Queries [`prepare`] started, each waiting for [`start_identify`] to take it.
type Early = Vec<(PathBuf, std::sync::mpsc::Receiver<Result<Pending, Error>>)>;
static EARLY: std::sync::Mutex<Early> = std::sync::Mutex::new(Vec::new());

/// Starts asking for the identity of `dir` now, on a thread of its own: the
/// folder's checks and `git describe` (the longest part of a run) then go on
/// while the run reads and hashes its files, and [`start_identify`] finds
/// them under way.
pub(crate) fn prepare(dir: &Path) {
    let (answer, taken) = std::sync::mpsc::channel();
    let Ok(mut early) = EARLY.lock() else {
        return;
    };
    early.push((dir.to_path_buf(), taken));
    let dir = dir.to_path_buf();
    std::thread::spawn(move || {
        let _ = answer.send(identify_now(&dir));
    });
}

/// Starts asking for `HEAD` alone, for verification: read from the git
/// folder when that is plain, else asked of git. Either way the folder is
/// checked first, as before any git call.
pub(crate) fn start_head(dir: &Path) -> Result<Pending, Error> {
    preflight_once(dir)?;
    let head = head_from_files(dir);
    let queries = match head {
        Some(_) => Vec::new(),
        None => vec![(HEAD, spawn(dir, HEAD)?)],
    };
    Ok(Pending {
        dir: dir.to_path_buf(),
        head,
        queries,
    })
}

impl Pending {
    fn answers(self) -> Result<(Option<Head>, Vec<String>), Error> {
        let dir = self.dir;
        let answers = self
            .queries
            .into_iter()
            .map(|(args, child)| finish(&dir, args, child))
            .collect::<Result<_, _>>()?;
        Ok((self.head, answers))
    }

    pub(crate) fn checkout(self) -> Result<Checkout, Error> {
        let (head, answers) = self.answers()?;
        let mut answers = answers.into_iter();
        let (shallow, sha) = match head {
            Some(known) => known,
            None => {
                let head = answers.next().unwrap_or_default();
                let mut lines = head.lines();
                let shallow = lines.next() == Some("true");
                (shallow, lines.next().unwrap_or_default().trim().to_string())
            }
        };
        let describe = answers.next().unwrap_or_default();
        Ok(Checkout {
            describe,
            sha,
            shallow,
        })
    }

    pub(crate) fn head(self) -> Result<String, Error> {
        Ok(self.checkout()?.sha)
    }
}

/// `HEAD`'s commit and whether the checkout is shallow, read from the git
/// folder in the plain case (a detached `HEAD`, or a branch as a loose or
/// packed ref), as `git rev-parse --is-shallow-repository --verify HEAD`
/// says them: one git start fewer on every identity. `None` for anything
/// else (a folder git would pass over or refuse, a repository extension, a
/// ref that is not a branch, a symbolic ref to a symbolic ref, an unborn
/// branch): git is asked then, and says what is wrong.
fn head_from_files(dir: &Path) -> Option<Head> {
    let (git_dir, common) = plain_git_dir(dir)?;
    let config = bounded(&common.join("config"), limits::GIT_CONFIG_BYTES).ok()?;
    if String::from_utf8_lossy(&config)
        .to_ascii_lowercase()
        .contains("extensions")
    {
        return None;
    }
    let head = small_text(&git_dir.join("HEAD"))?;
    let sha = match head.strip_prefix("ref:") {
        Some(name) => branch_tip(&common, name.trim())?,
        None => head.trim_end().to_string(),
    };
    if !is_object_id(&sha) {
        return None;
    }
    let shallow = match std::fs::symlink_metadata(common.join("shallow")) {
        Ok(m) if m.is_file() && m.len() > 0 => true,
        Ok(_) => return None,
        Err(_) => false,
    };
    Some((shallow, sha))
}

/// The git folder and its common folder that git itself would use for
/// `dir`, when finding them is plain: the nearest `.git` above `dir` on
/// the same file system is a valid git folder, and no folder on the way is
/// a bare repository (which git would refuse, `safe.bareRepository`).
fn plain_git_dir(dir: &Path) -> Option<(PathBuf, PathBuf)> {
    use std::os::unix::fs::MetadataExt;
    let device = std::fs::metadata(dir).ok()?.dev();
    for d in dir.ancestors() {
        if std::fs::metadata(d).ok()?.dev() != device {
            return None;
        }
        if std::fs::symlink_metadata(d.join(".git")).is_ok() {
            let git_dir = git_dir_of(d).ok()??;
            let common = match std::fs::symlink_metadata(git_dir.join("commondir")) {
                Ok(_) => git_dir
                    .join(small_text(&git_dir.join("commondir"))?.trim_end_matches(['\n', '\r'])),
                Err(_) => git_dir.clone(),
            };
            let valid = git_dir.join("HEAD").is_file()
                && common.join("objects").is_dir()
                && common.join("refs").is_dir();
            return valid.then_some((git_dir, common));
        }
        if d.join("HEAD").exists() && d.join("objects").exists() {
            return None;
        }
    }
    None
}

/// A file git reads whole and small (`HEAD`, a ref, `commondir`): a
/// regular file, at most 4 KiB, UTF-8.
fn small_text(path: &Path) -> Option<String> {
    if !std::fs::symlink_metadata(path).ok()?.is_file() {
        return None;
    }
    String::from_utf8(bounded(path, limits::GIT_REF_BYTES).ok()?).ok()
}

/// The commit a branch (`refs/heads/...`) names: its loose ref, else its
/// line in `packed-refs`. `None` for another kind of ref, a name git would
/// refuse, a symbolic ref, or a branch with no commit.
fn branch_tip(common: &Path, name: &str) -> Option<String> {
    let branch = name.strip_prefix("refs/heads/")?;
    let plain = |c: &str| {
        !c.is_empty()
            && !c.starts_with('.')
            && !c.ends_with(".lock")
            && !c.contains("..")
            && !c.contains("@{")
            && !c
                .chars()
                .any(|ch| ch.is_ascii_control() || " ~^:?*[\\".contains(ch))
    };
    if !branch.split('/').all(plain) {
        return None;
    }
    let loose = common.join(name);
    if std::fs::symlink_metadata(&loose).is_ok() {
        return Some(small_text(&loose)?.trim_end().to_string());
    }
    let packed = bounded(&common.join("packed-refs"), limits::GIT_PACKED_REFS_BYTES).ok()?;
    let mut tips = String::from_utf8_lossy(&packed)
        .lines()
        .filter_map(|line| {
            let (sha, rest) = line.split_once(' ')?;
            (rest == name && !line.starts_with(['#', '^'])).then(|| sha.to_string())
        })
        .collect::<Vec<_>>();
    // A name packed twice is a file git itself did not write: git decides.
    (tips.len() == 1).then(|| tips.remove(0))
}

/// A full object id as git prints it: 40 (SHA-1) or 64 (SHA-256) lowercase hex digits.
fn is_object_id(s: &str) -> bool {
    matches!(s.len(), 40 | 64) && s.bytes().all(|b| matches!(b, b'0'..=b'9' | b'a'..=b'f'))
}

/// One path that differs between two commits, as `git diff --raw` lists
/// it: both sides' modes and blobs (`000000` and zeros on the side that
/// lacks it).
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Changed {
    pub(crate) path: String,
    pub(crate) old_mode: String,
    pub(crate) new_mode: String,
    pub(crate) old_blob: String,
    pub(crate) new_blob: String,
}

/// Every path that differs between `from` and `to` (full commit ids),
/// relative to `dir`, and their merge base: the two git questions of a
/// comparison with a base, asked at once. The diff is of the whole tree,
/// names and modes together (which of them are instruction files is
/// [`pathspec::matches`]'s to say, and which are links their modes'); each
/// is `None` when git cannot tell.
pub(crate) fn changes_and_merge_base(
    dir: &Path,
    from: &str,
    to: &str,
) -> (Option<Vec<Changed>>, Option<String>) {
    let range = format!("{from}..{to}");
    let diff = raw_args(&range, &[]);
    let merge = ["merge-base", from, to];
    let (diff_child, merge_child) = (spawn(dir, &diff).ok(), spawn(dir, &merge).ok());
    let merge_base = merge_child
        .and_then(|child| finish(dir, &merge, child).ok())
        .filter(|s| !s.is_empty());
    let changes = diff_child.and_then(read_raw).map(|entries| {
        entries
            .into_iter()
            .map(|e| Changed {
                path: e.path,
                old_mode: e.old_mode,
                new_mode: e.new_mode,
                old_blob: e.old_blob,
                new_blob: e.new_blob,
            })
            .collect()
    });
    (changes, merge_base)
}

/// A file's bytes at a commit as a reader of that commit's tree gets them:
/// a symbolic link is followed inside the tree wherever it is on the path (a
/// folder that is a link in the base, `.github/codex -> config`, as well as
/// the file itself), at most 8 links, so a schema that a pull request turned
/// into a link is not taken for its target's text, nor a link's text for a
/// schema. A link out of the tree (absolute, or climbing above `dir`) is no file.
pub(crate) fn file_at(dir: &Path, commit: &str, path: &str) -> Option<Vec<u8>> {
    objects::with(dir, |reader| {
        let Some(mut parts) = normalize(Path::new(path)).map(|p| split(&p)) else {
            return Ok(None);
        };
        let (mut i, mut links) = (0, 0);
        while i < parts.len() {
            let prefix = parts[..=i].join("/");
            let Some(entry) = reader.entry(commit, &prefix)? else {
                return Ok(None);
            };
            if entry.mode == "120000" {
                links += 1;
                let target = reader
                    .blob(&entry.id)?
                    .and_then(|t| String::from_utf8(t).ok());
                let parent = Path::new(&prefix).parent().unwrap_or(Path::new(""));
                let resolved = target.and_then(|t| normalize(&parent.join(t)));
                let (Some(resolved), true) = (resolved, links <= 8) else {
                    return Ok(None);
                };
                let mut resolved = split(&resolved);
                resolved.extend_from_slice(&parts[i + 1..]);
                parts = resolved;
                i = 0;
                continue;
            }
            i += 1;
        }
        match reader.entry(commit, &parts.join("/"))? {
            Some(entry) => reader.blob(&entry.id),
            None => Ok(None),
        }
    })
    .ok()
    .flatten()
}

fn split(path: &str) -> Vec<String> {
    path.split('/')
        .filter(|p| !p.is_empty())
        .map(str::to_string)
        .collect()
}

/// `a/b/../c` as `a/c`; `None` for a path that climbs out or is absolute.
fn normalize(path: &Path) -> Option<String> {
    let mut parts: Vec<String> = Vec::new();
    for c in path.components() {
        match c {
            std::path::Component::Normal(n) => parts.push(n.to_string_lossy().into_owned()),
            std::path::Component::CurDir => {}
            std::path::Component::ParentDir => {
                parts.pop()?;
            }
            _ => return None,
        }
    }
    Some(parts.join("/"))
}

/// Every path git tracks as a symbolic link in the index (relative to
/// `dir`); `None` when git cannot tell.
pub(crate) fn tracked_links(dir: &Path) -> Option<Vec<String>> {
    let args = ["ls-files", "-s", "-z"];
    let out = bounded_output(spawn(dir, &args).ok()?).ok()?;
    if !out.status.success() {
        return None;
    }
    // `<mode> <object> <stage>\t<path>\0`, repeated.
    Some(
        out.stdout
            .split(|b| *b == 0)
            .filter(|e| e.starts_with(b"120000 "))
            .filter_map(|e| {
                let tab = e.iter().position(|b| *b == b'\t')?;
                Some(String::from_utf8_lossy(&e[tab + 1..]).into_owned())
            })
            .collect(),
    )
}

/// Every path whose entry is a symbolic link or a submodule (`160000`) on
/// either side of `rev` (a commit against the working tree: added,
/// removed, retargeted, or a file or folder turned into one), relative to
/// `dir`; `None` when git cannot tell. A submodule the pull request adds or
/// moves is a folder of its choosing.
pub(crate) fn links_or_submodules_changed(dir: &Path, rev: &str) -> Option<Vec<String>> {
    let kinds = ["120000", "160000"];
    Some(
        raw_diff(dir, rev, &[])?
            .into_iter()
            .filter(|e| {
                kinds.contains(&e.old_mode.as_str()) || kinds.contains(&e.new_mode.as_str())
            })
            .map(|e| e.path)
            .collect(),
    )
}

/// One line of `git diff --raw`: both modes, both blobs, the status
/// letter and the path (read lossily as UTF-8).
struct RawEntry {
    old_mode: String,
    new_mode: String,
    old_blob: String,
    new_blob: String,
    status: char,
    path: String,
}

/// The arguments of `git diff --raw -z` of `rev` limited to `pathspecs`.
fn raw_args<'a>(rev: &'a str, pathspecs: &[&'a str]) -> Vec<&'a str> {
    let mut args = vec![
        "diff",
        "--raw",
        "-z",
        "--no-renames",
        "--relative",
        "--no-abbrev",
        rev,
        "--",
    ];
    args.extend_from_slice(pathspecs);
    args
}

/// `git diff --raw -z` of `rev` (a range, or a commit against the working
/// tree) limited to `pathspecs`, relative to `dir`; `None` when git cannot
/// tell or writes what this does not read.
fn raw_diff(dir: &Path, rev: &str, pathspecs: &[&str]) -> Option<Vec<RawEntry>> {
    read_raw(spawn(dir, &raw_args(rev, pathspecs)).ok()?)
}

fn read_raw(child: Child) -> Option<Vec<RawEntry>> {
    let out = bounded_output(child).ok()?;
    if !out.status.success() {
        return None;
    }
    // `:<old mode> <new mode> <old> <new> <status>\0<path>\0`, repeated.
    let mut fields = out.stdout.split(|b| *b == 0).filter(|f| !f.is_empty());
    let mut found = Vec::new();
    while let (Some(meta), Some(path)) = (fields.next(), fields.next()) {
        let meta = String::from_utf8_lossy(meta);
        let parts: Vec<&str> = meta.trim_start_matches(':').split(' ').collect();
        let [old_mode, new_mode, old_blob, new_blob, status] = parts.as_slice() else {
            return None;
        };
        found.push(RawEntry {
            old_mode: old_mode.to_string(),
            new_mode: new_mode.to_string(),
            old_blob: old_blob.to_string(),
            new_blob: new_blob.to_string(),
            status: status.chars().next().unwrap_or('M'),
            path: String::from_utf8_lossy(path).into_owned(),
        });
    }
    Some(found)
}

/// One path where the working tree differs from a commit: the commit's mode
/// and blob (`000000` and zeros when the commit has no such path), and
/// git's status letter (`A` the tree added it, `D` removed it, `M`, `T`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Differs {
    pub(crate) path: String,
    pub(crate) mode: String,
    pub(crate) blob: String,
    pub(crate) status: char,
}

/// Every path matching `pathspecs` where the working tree differs from
/// `commit` (tracked files), relative to `dir`; `None` when git cannot tell.
pub(crate) fn differs_from(dir: &Path, commit: &str, pathspecs: &[&str]) -> Option<Vec<Differs>> {
    Some(
        raw_diff(dir, commit, pathspecs)?
            .into_iter()
            .map(|e| Differs {
                path: e.path,
                mode: e.old_mode,
                blob: e.old_blob,
                status: e.status,
            })
            .collect(),
    )
}

/// Files matching `pathspecs` that git does not track (ignored ones too),
/// relative to `dir`; `None` when git cannot tell.
pub(crate) fn untracked(dir: &Path, pathspecs: &[&str]) -> Option<Vec<String>> {
    let mut args = vec!["ls-files", "-z", "--others", "--"];
    args.extend_from_slice(pathspecs);
    let out = bounded_output(spawn(dir, &args).ok()?).ok()?;
    out.status.success().then(|| {
        out.stdout
            .split(|b| *b == 0)
            .filter(|p| !p.is_empty())
            .map(|p| String::from_utf8_lossy(p).into_owned())
            .collect()
    })
}

/// The mode and blob id of `path` (relative to `dir`) at `commit`, when the
/// commit has it.
pub(crate) fn entry_at(dir: &Path, commit: &str, path: &str) -> Option<(String, String)> {
    entry(dir, commit, path).ok().flatten()
}

/// [`entry_at`], with why git could not be asked.
pub(crate) fn entry(
    dir: &Path,
    commit: &str,
    path: &str,
) -> Result<Option<(String, String)>, String> {
    objects::with(dir, |reader| reader.entry(commit, path)).map(|e| e.map(|e| (e.mode, e.id)))
}

/// A blob's bytes by its id: `Ok(None)` when the checkout lacks it, an error
/// when it is over [`GIT_OBJECT_BYTES`](crate::limits::GIT_OBJECT_BYTES).
pub(crate) fn blob_by_id(dir: &Path, id: &str) -> Result<Option<Vec<u8>>, String> {
    objects::with(dir, |reader| reader.blob(id)).map_err(|e| {
        let short = &id[..id.len().min(12)];
        format!("blob {}: {e}", crate::escape::one_line(short))
    })
}

/// The full SHA of `rev` as a commit, when the checkout has it. `rev` must
/// already be known to be a revision (see `base::valid_ref`).
pub(crate) fn commit_of(dir: &Path, rev: &str) -> Option<String> {
    let object = objects::with(dir, |reader| reader.ask(&format!("{rev}^{{commit}}")));
    object
        .ok()
        .flatten()
        .filter(|o| o.kind == "commit")
        .map(|o| o.id)
}

/// A file's bytes at a commit (`path` relative to `dir`), links not
/// followed; `None` when git cannot tell (a shallow checkout without that
/// commit, no such file).
pub(crate) fn show(dir: &Path, commit: &str, path: &str) -> Option<Vec<u8>> {
    blob(dir, commit, path).ok().flatten()
}

/// A file's bytes at `commit`: `Ok(None)` when it is not there (or is no
/// file: a folder, a submodule), an error when it is over
/// [`GIT_OBJECT_BYTES`](crate::limits::GIT_OBJECT_BYTES) (or git cannot be asked).
pub(crate) fn blob(dir: &Path, commit: &str, path: &str) -> Result<Option<Vec<u8>>, String> {
    let read = objects::with(dir, |reader| match reader.entry(commit, path)? {
        Some(entry) => reader.blob(&entry.id),
        None => Ok(None),
    });
    read.map_err(|e| {
        format!(
            "`{}` at {}: {e}",
            crate::escape::one_line(path),
            &commit[..commit.len().min(12)]
        )
    })
}

/// The tree of `rev` (`git rev-parse <rev>^{tree}`), when the checkout has it.
pub(crate) fn tree_of(dir: &Path, rev: &str) -> Option<String> {
    let spec = format!("{rev}^{{tree}}");
    let args = [
        "rev-parse",
        "--verify",
        "--quiet",
        "--end-of-options",
        &spec,
    ];
    let child = spawn(dir, &args).ok()?;
    finish(dir, &args, child).ok().filter(|s| is_object_id(s))
}

/// One path where two trees differ: its blob in each (zeros where a tree
/// has none) and git's status letter.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct TreeChange {
    pub(crate) path: String,
    pub(crate) old_blob: String,
    pub(crate) new_blob: String,
    pub(crate) status: char,
}

/// The paths where trees `a` and `b` differ (`git diff-tree -r`), reading
/// objects from the checkout and from `objects` too (object folders an
/// upload holds, such as an agent's snapshot repository's; each checked as
/// an alternate is before git reads it). At most `max` paths, and whether
/// there were more. `Err` says why git could not tell (an object missing).
pub(crate) fn trees_differ(
    dir: &Path,
    a: &str,
    b: &str,
    objects: &[PathBuf],
    max: usize,
) -> Result<(Vec<TreeChange>, bool), String> {
    if !is_object_id(a) || !is_object_id(b) {
        return Err("not a tree id".into());
    }
    let args = [
        "diff-tree",
        "-r",
        "-z",
        "--raw",
        "--no-renames",
        "--no-abbrev",
        a,
        b,
    ];
    let child = with_objects(dir, objects)?
        .args(args)
        .spawn()
        .map_err(|e| cannot_run(e).message().to_string())?;
    let out = bounded_output(child).map_err(|e| e.to_string())?;
    if !out.status.success() {
        let stderr = String::from_utf8_lossy(&out.stderr);
        return Err(crate::escape::one_line(stderr.lines().next().unwrap_or("git failed")).into());
    }
    let mut fields = out.stdout.split(|b| *b == 0).filter(|f| !f.is_empty());
    let mut found = Vec::new();
    while let (Some(meta), Some(path)) = (fields.next(), fields.next()) {
        if found.len() >= max {
            return Ok((found, true));
        }
        let meta = String::from_utf8_lossy(meta);
        let parts: Vec<&str> = meta.trim_start_matches(':').split(' ').collect();
        let [_, _, old_blob, new_blob, status] = parts.as_slice() else {
            return Err("git's raw diff is not what this reads".into());
        };
        found.push(TreeChange {
            path: String::from_utf8_lossy(path).into_owned(),
            old_blob: old_blob.to_string(),
            new_blob: new_blob.to_string(),
            status: status.chars().next().unwrap_or('M'),
        });
    }
    Ok((found, false))
}

/// A blob's bytes by id, from the checkout or `objects` (as [`trees_differ`]
/// reads them): `Ok(None)` when none has it.
pub(crate) fn blob_with(
    dir: &Path,
    id: &str,
    objects: &[PathBuf],
) -> Result<Option<Vec<u8>>, String> {
    if !is_object_id(id) {
        return Ok(None);
    }
    let child = with_objects(dir, objects)?
        .args(["cat-file", "blob", id])
        .spawn()
        .map_err(|e| cannot_run(e).message().to_string())?;
    let out = bounded_output(child).map_err(|e| format!("blob {}: {e}", &id[..12]))?;
    Ok(out.status.success().then_some(out.stdout))
}

/// A git command for `dir` that also reads the objects of `objects`, each
/// a folder (not a link) whose own alternates pass the checks the
/// checkout's do; a path git would split (`:`) is refused.
fn with_objects(dir: &Path, objects: &[PathBuf]) -> Result<Command, String> {
    preflight_once(dir).map_err(|e| e.message().to_string())?;
    let mut list = Vec::new();
    for folder in objects {
        let meta = std::fs::symlink_metadata(folder).map_err(|e| e.to_string())?;
        let text = folder.to_string_lossy();
        if !meta.is_dir() || text.contains(':') || text.contains('\n') {
            return Err(format!(
                "`{}` is not a plain folder of objects",
                crate::escape::one_line(&text)
            ));
        }
        let named = folder.join("info/alternates");
        if std::fs::symlink_metadata(&named).is_ok() {
            let bytes =
                bounded(&named, limits::GIT_CONFIG_BYTES).map_err(|e| e.message().to_string())?;
            let repo = folder.parent().unwrap_or(folder);
            alternates(repo, &bytes, 0).map_err(|e| e.message().to_string())?;
        }
        list.push(text.into_owned());
    }
    let mut cmd = command(dir).map_err(|e| e.message().to_string())?;
    if !list.is_empty() {
        cmd.env("GIT_ALTERNATE_OBJECT_DIRECTORIES", list.join(":"));
    }
    Ok(cmd)
}

/// Settings given on every call: no program that a config key could name, no network, no
/// submodule (its own config could name a filter we did not see), no replaced objects.
const ALWAYS: &[&str] = &[
    "safe.directory=*",
    // A folder the pull request makes into a bare repository (`svc/HEAD`,
    // `svc/config`) is not a repository git may find on its way up.
    "safe.bareRepository=explicit",
    "core.fsmonitor=false",
    "core.hooksPath=/dev/null",
    "core.attributesFile=/dev/null",
    "core.pager=cat",
    "core.sshCommand=",
    "core.askPass=",
    "core.useReplaceRefs=false",
    "credential.helper=",
    "diff.external=",
    "diff.ignoreSubmodules=all",
    "diff.orderFile=/dev/null",
    "core.gitProxy=",
    "submodule.recurse=false",
    "log.showSignature=false",
    "protocol.allow=never",
];

/// The variables git keeps from ours: where programs are, and nothing that carries a value
/// of the job's (the token, the workflow's variables).
const KEPT_VARIABLES: &[&str] = &["PATH", "TMPDIR"];

/// A git command for `dir` that can start no program the repository names.
fn command(dir: &Path) -> Result<Command, Error> {
    let mut cmd = bare_command();
    // By variable, not `-c`: a driver's name may hold `=`, which `-c` would split at.
    let overrides = repository_overrides(dir)?;
    for (i, (key, value)) in overrides.iter().enumerate() {
        cmd.env(format!("GIT_CONFIG_KEY_{i}"), key)
            .env(format!("GIT_CONFIG_VALUE_{i}"), value);
    }
    cmd.env("GIT_CONFIG_COUNT", overrides.len().to_string());
    cmd.arg("-C").arg(dir);
    Ok(cmd)
}

fn bare_command() -> Command {
    let mut cmd = Command::new(git_program());
    cmd.env_clear();
    for name in KEPT_VARIABLES {
        if let Some(value) = std::env::var_os(name) {
            cmd.env(name, value);
        }
    }
    cmd.envs([
        ("LC_ALL", "C"),
        ("GIT_CONFIG_NOSYSTEM", "1"),
        ("GIT_CONFIG_GLOBAL", "/dev/null"),
        ("GIT_ATTR_NOSYSTEM", "1"),
        ("GIT_NO_REPLACE_OBJECTS", "1"),
        // Keep git from taking the index lock for a refresh it does not need.
        ("GIT_OPTIONAL_LOCKS", "0"),
        ("GIT_TERMINAL_PROMPT", "0"),
        ("GIT_PAGER", "cat"),
        // No transport at all, whatever `protocol.<name>.allow` the config
        // says: a partial clone's lazy fetch would run `ext::` or an upload
        // pack the config names.
        ("GIT_ALLOW_PROTOCOL", "none"),
        ("GIT_PROTOCOL_FROM_USER", "0"),
        ("GIT_NO_LAZY_FETCH", "1"),
    ]);
    for setting in ALWAYS {
        cmd.arg("-c").arg(setting);
    }
    cmd.stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    cmd
}

/// git as found on `PATH`, by its full path: a program named by its path is
/// started with `posix_spawn` (the standard library falls back to `fork` when
/// it must search a `PATH` it was given), which does not copy this process's
/// memory map on every call. `git` itself when `PATH` holds none, so that the
/// start fails as it would have.
fn git_program() -> PathBuf {
    use std::os::unix::fs::PermissionsExt;
    std::env::var_os("PATH")
        .and_then(|path| {
            std::env::split_paths(&path)
                .filter(|d| d.is_absolute())
                .map(|d| d.join("git"))
                .find(|git| {
                    std::fs::metadata(git)
                        .is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
                })
        })
        .unwrap_or_else(|| PathBuf::from("git"))
}

/// Config keys and the values given to them in command scope.
type Settings = Vec<(String, String)>;

/// The repository's filter and diff drivers, each set to nothing: a command-scope setting outranks
/// `.git/config`, its includes and `config.worktree`. Asked once per folder: listing config
/// names runs nothing. A second caller while the first asks waits for its answer.
fn repository_overrides(dir: &Path) -> Result<std::sync::Arc<Settings>, Error> {
    use std::collections::HashMap;
    use std::sync::{Arc, Mutex, OnceLock};
    type Answer = Arc<OnceLock<Result<Arc<Settings>, Error>>>;
    static SEEN: OnceLock<Mutex<HashMap<PathBuf, Answer>>> = OnceLock::new();
    let seen = SEEN.get_or_init(Default::default);
    let answer: Answer = match seen.lock() {
        Ok(mut m) => m.entry(dir.to_path_buf()).or_default().clone(),
        Err(_) => Answer::default(),
    };
    answer.get_or_init(|| list_overrides(dir)).clone()
}

fn list_overrides(dir: &Path) -> Result<std::sync::Arc<Settings>, Error> {
    preflight_once(dir)?;
    if config_names_no_driver(dir) {
        return Ok(std::sync::Arc::new(Settings::new()));
    }
    let mut cmd = bare_command();
    cmd.arg("-C")
        .arg(dir)
        .args(["config", "--list", "--name-only", "--includes"]);
    let out = bounded_output(cmd.spawn().map_err(cannot_run)?)
        .map_err(|e| Error::new(format!("`git config --list` in `{}`: {e}", dir.display())))?;
    // Outside a repository there is no config to override; the query itself says so.
    let names = String::from_utf8_lossy(&out.stdout);
    Ok(std::sync::Arc::new(neutralized(&names)))
}

/// True when the config files git would read for `dir` cannot define a
/// filter or diff driver, so there is nothing to override and no `git config`
/// to start (2 ms, the longest wait of a run). Sound, not clever: a driver is
/// a section named `filter` or `diff`, whose name git takes from the bytes as
/// written (no escape can spell it), and a file git reads for `dir` is the
/// common folder's `config`, a `config.worktree`, or a file one of them
/// includes. So: the git folder is plain (as [`plain_git_dir`] finds it), and
/// no config file in it holds `filter`, `diff` or `include` in any case, even
/// in a comment. Anything else asks git.
fn config_names_no_driver(dir: &Path) -> bool {
    // `HEAD` read from the files as git reads it: the folder is the one git uses.
    if head_from_files(dir).is_none() {
        return false;
    }
    let Some((git_dir, common)) = plain_git_dir(dir) else {
        return false;
    };
    let words: [&[u8]; 3] = [b"filter", b"diff", b"include"];
    [&git_dir, &common]
        .iter()
        .flat_map(|folder| [folder.join("config"), folder.join("config.worktree")])
        .all(|path| match std::fs::symlink_metadata(&path) {
            Err(e) => e.kind() == std::io::ErrorKind::NotFound,
            Ok(_) => bounded(&path, limits::GIT_CONFIG_BYTES).is_ok_and(|bytes| {
                let lower = bytes.to_ascii_lowercase();
                !words
                    .iter()
                    .any(|w| lower.windows(w.len()).any(|at| at == *w))
            }),
        })
}

/// [`preflight`], once per folder: the identities and their second
/// computation read the same git folder.
fn preflight_once(dir: &Path) -> Result<(), Error> {
    use std::collections::HashSet;
    use std::sync::{Mutex, OnceLock};
    static CHECKED: OnceLock<Mutex<HashSet<PathBuf>>> = OnceLock::new();
    let checked = CHECKED.get_or_init(Default::default);
    if checked.lock().is_ok_and(|c| c.contains(dir)) {
        return Ok(());
    }
    preflight(dir)?;
    if let Ok(mut c) = checked.lock() {
        c.insert(dir.to_path_buf());
    }
    Ok(())
}

/// Files of a git folder that git reads whole, and the most each may hold.
const GIT_FILES: &[(&str, u64)] = &[
    ("config", limits::GIT_CONFIG_BYTES),
    ("config.worktree", limits::GIT_CONFIG_BYTES),
    ("HEAD", limits::GIT_REF_BYTES),
    ("commondir", limits::GIT_REF_BYTES),
    ("shallow", limits::GIT_SHALLOW_BYTES),
    ("packed-refs", limits::GIT_PACKED_REFS_BYTES),
    ("objects/info/alternates", limits::GIT_CONFIG_BYTES),
    ("info/attributes", limits::GIT_CONFIG_BYTES),
    ("info/grafts", limits::GIT_CONFIG_BYTES),
];

/// Before git reads a checkout's git folder, what it would read whole must
/// be a regular file of a bounded size: an uploaded `.git/config` can
/// `include` a FIFO or `/dev/stdout`, a ref can be a link to one, and git
/// would block or read without end. Config includes are followed (five
/// deep), `commondir` and alternates too; anything this check cannot read
/// plainly is refused, never passed over.
fn preflight(dir: &Path) -> Result<(), Error> {
    let Some(git_dir) = git_dir_of(dir)? else {
        return Ok(());
    };
    let mut folders = vec![git_dir.clone()];
    if let Some(common) = common_dir(&git_dir)? {
        folders.push(common);
    }
    for folder in &folders {
        for (name, max) in GIT_FILES {
            let path = folder.join(name);
            if std::fs::symlink_metadata(&path).is_err() {
                continue;
            }
            let bytes = bounded(&path, *max)?;
            if name.starts_with("config") {
                includes(&path, &bytes, 0)?;
            }
            if *name == "objects/info/alternates" {
                alternates(folder, &bytes, 0)?;
            }
        }
        regular_only(&folder.join("refs"))?;
        let index = folder.join("index");
        if std::fs::symlink_metadata(&index).is_ok() {
            plain_file(&index, limits::GIT_INDEX_BYTES)?;
        }
    }
    Ok(())
}

/// The git folder git would use for `dir`, found as git finds it: the
/// nearest `.git` above it that is a git folder by git's own test (git passes
/// over a `.git` folder that is not one and looks further up), or the folder
/// a `.git` file names, read as git reads it (`gitdir: ` and the path, only
/// its line ends taken off).
fn git_dir_of(dir: &Path) -> Result<Option<PathBuf>, Error> {
    use std::os::unix::ffi::OsStrExt;
    for d in dir.ancestors() {
        let dot = d.join(".git");
        if std::fs::symlink_metadata(&dot).is_err() {
            continue;
        }
        if std::fs::metadata(&dot).is_ok_and(|m| m.is_dir()) {
            if is_git_directory(&dot)? {
                return Ok(Some(dot));
            }
            continue;
        }
        let bytes = bounded(&dot, limits::GIT_REF_BYTES)?;
        let Some(named) = bytes.strip_prefix(b"gitdir: ") else {
            return Err(refused(&dot, "is neither a folder nor a `gitdir: ` file"));
        };
        let end = named.len()
            - named
                .iter()
                .rev()
                .take_while(|b| matches!(b, b'\n' | b'\r'))
                .count();
        return Ok(Some(d.join(std::ffi::OsStr::from_bytes(&named[..end]))));
    }
    Ok(None)
}

/// git's test of a git folder (`is_git_directory`): its common folder holds
/// `objects/` and `refs/`, and its `HEAD` is a link into `refs/`, names a ref
/// under `refs/`, or starts with an object id. A `HEAD` git would block on (a
/// FIFO, a device) is refused, never passed over.
fn is_git_directory(git_dir: &Path) -> Result<bool, Error> {
    let common = common_dir(git_dir)?.unwrap_or_else(|| git_dir.to_path_buf());
    if !common.join("objects").is_dir() || !common.join("refs").is_dir() {
        return Ok(false);
    }
    let head = git_dir.join("HEAD");
    let Ok(meta) = std::fs::symlink_metadata(&head) else {
        return Ok(false);
    };
    if meta.is_symlink() {
        return Ok(std::fs::read_link(&head)
            .is_ok_and(|to| to.as_os_str().as_encoded_bytes().starts_with(b"refs/")));
    }
    if meta.is_dir() {
        return Ok(false);
    }
    if !meta.is_file() {
        return Err(refused(&head, "is not a regular file"));
    }
    let bytes = bounded(&head, limits::GIT_REF_BYTES)?;
    let text = &bytes[..bytes.len().min(255)];
    if let Some(name) = text.strip_prefix(b"ref:") {
        let name = &name[name.iter().take_while(|b| b.is_ascii_whitespace()).count()..];
        if name.starts_with(b"refs/") {
            return Ok(true);
        }
    }
    let hex = text.iter().take_while(|b| b.is_ascii_hexdigit()).count();
    Ok(hex >= 40)
}

fn refused(path: &Path, why: &str) -> Error {
    Error::new(format!(
        "`{}` {why}; git would read it, so prompt-receipt runs no git on this checkout: check the repository out afresh (actions/checkout), and never unpack an artifact over it",
        crate::escape::one_line(&path.display().to_string())
    ))
}

/// The folder a linked worktree's `commondir` names, read as git reads it
/// (line ends removed), and checked first: a `commondir` that is a link to
/// `/dev/zero` is refused, never read.
fn common_dir(git_dir: &Path) -> Result<Option<PathBuf>, Error> {
    let path = git_dir.join("commondir");
    if std::fs::symlink_metadata(&path).is_err() {
        return Ok(None);
    }
    let text = bounded(&path, limits::GIT_REF_BYTES)?;
    let text = String::from_utf8_lossy(&text);
    Ok(Some(git_dir.join(text.trim_end_matches(['\n', '\r']))))
}

/// A regular file of at most `max` bytes, not a device or a process's file
/// (procfs files report a size of 0), checked without reading it.
fn plain_file(path: &Path, max: u64) -> Result<(), Error> {
    let real = std::fs::canonicalize(path).map_err(|_| refused(path, "cannot be resolved"))?;
    if ["/proc", "/sys", "/dev"]
        .iter()
        .any(|p| real.starts_with(p))
    {
        return Err(refused(path, "resolves to a device or process file"));
    }
    match std::fs::metadata(&real) {
        Ok(m) if m.is_file() && m.len() <= max => Ok(()),
        Ok(m) if m.is_file() => Err(refused(path, &format!("holds more than {} MiB", max >> 20))),
        _ => Err(refused(path, "is not a regular file")),
    }
}

fn bounded(path: &Path, max: u64) -> Result<Vec<u8>, Error> {
    plain_file(path, max)?;
    crate::workspace::read_bounded(path, max)
        .map_err(|why| refused(path, &why.why("it").replace("`it` ", "")))
}

/// Every entry under `refs/` is a folder or a plain file (a link to a FIFO
/// would block git); at most 200,000 of them.
fn regular_only(refs: &Path) -> Result<(), Error> {
    let mut stack = vec![refs.to_path_buf()];
    let mut seen = 0usize;
    while let Some(dir) = stack.pop() {
        let Ok(entries) = std::fs::read_dir(&dir) else {
            continue;
        };
        for e in entries.flatten() {
            seen += 1;
            if seen > limits::GIT_REF_ENTRIES {
                return Err(refused(
                    refs,
                    &format!("holds more than {} entries", limits::GIT_REF_ENTRIES),
                ));
            }
            let path = e.path();
            let meta =
                std::fs::symlink_metadata(&path).map_err(|_| refused(&path, "cannot be read"))?;
            if meta.is_dir() {
                stack.push(path);
            } else {
                plain_file(&path, limits::GIT_CONFIG_BYTES)?;
            }
        }
    }
    Ok(())
}

/// Each object folder an alternates file names: its own alternates, checked alike.
fn alternates(folder: &Path, text: &[u8], depth: usize) -> Result<(), Error> {
    if depth >= limits::GIT_INCLUDE_DEPTH {
        return Err(refused(folder, "chains alternates more than five deep"));
    }
    for line in String::from_utf8_lossy(text).lines() {
        let line = line.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let objects = folder.join("objects").join(line);
        let next = objects.join("info/alternates");
        if std::fs::symlink_metadata(&next).is_ok() {
            let bytes = bounded(&next, limits::GIT_CONFIG_BYTES)?;
            alternates(objects.parent().unwrap_or(&objects), &bytes, depth + 1)?;
        }
    }
    Ok(())
}

/// Checks each file a config `[include]` or `[includeIf]` names. A value
/// written in a way this reader does not take plainly (quotes inside it,
/// an escape, a comment after it, a continued line) is refused.
fn includes(config: &Path, text: &[u8], depth: usize) -> Result<(), Error> {
    let text = String::from_utf8_lossy(text);
    let mut in_include = false;
    for raw in text.lines() {
        let mut line = raw.trim();
        if line.starts_with('[') {
            let Some(close) = line.find(']') else {
                continue;
            };
            let section = line[1..close].trim().to_ascii_lowercase();
            in_include = section == "include" || section.starts_with("includeif");
            line = line[close + 1..].trim();
        }
        let Some((key, value)) = line.split_once('=') else {
            continue;
        };
        if !in_include || !key.trim().eq_ignore_ascii_case("path") {
            continue;
        }
        let value = value.trim();
        let inner = value
            .strip_prefix('"')
            .and_then(|v| v.strip_suffix('"'))
            .unwrap_or(value);
        if inner.contains(['"', '\\', ';', '#']) {
            return Err(refused(
                config,
                "names an include path this check cannot read plainly",
            ));
        }
        if depth >= limits::GIT_INCLUDE_DEPTH {
            return Err(refused(config, "includes config files more than five deep"));
        }
        let named = Path::new(inner);
        let path = if named.is_absolute() {
            named.to_path_buf()
        } else {
            config.parent().unwrap_or(Path::new("/")).join(named)
        };
        if std::fs::symlink_metadata(&path).is_err() {
            continue;
        }
        let bytes = bounded(&path, limits::GIT_CONFIG_BYTES)?;
        includes(&path, &bytes, depth + 1)?;
    }
    Ok(())
}

/// For each config name that names a program git would run on a read (`filter.<driver>.clean`,
/// `.smudge`, `.process`, `diff.<driver>.textconv`, `.command`), the key and value that empty it.
fn neutralized(names: &str) -> Settings {
    let mut out = std::collections::BTreeSet::new();
    for name in names.lines() {
        let Some((section, rest)) = name.split_once('.') else {
            continue;
        };
        let Some((driver, key)) = rest.rsplit_once('.') else {
            continue;
        };
        match (
            section.to_ascii_lowercase().as_str(),
            key.to_ascii_lowercase().as_str(),
        ) {
            ("filter", "clean" | "smudge" | "process" | "required") => {
                for k in ["clean", "smudge", "process"] {
                    out.insert((format!("filter.{driver}.{k}"), String::new()));
                }
                out.insert((format!("filter.{driver}.required"), "false".into()));
            }
            ("diff", "textconv" | "command") => {
                out.insert((format!("diff.{driver}.textconv"), String::new()));
                out.insert((format!("diff.{driver}.command"), String::new()));
            }
            _ => {}
        }
    }
    out.into_iter().collect()
}

/// Waits for `child` with a deadline, reading its output as it comes. git
/// closes its pipes when it exits, so the wait is on them (no polling: a
/// sleep between looks would add a millisecond or two to every call); a git
/// that closed them and still runs is then waited for until the deadline.
fn bounded_output(mut child: Child) -> std::io::Result<std::process::Output> {
    use std::io::Read;
    use std::sync::mpsc::{RecvTimeoutError, channel};
    let (done, drained) = channel();
    // Each pipe is read up to the cap and one byte more: past it, git is
    // stopped (a blob of zeros packs small and unpacks to gigabytes).
    let drain = |pipe: Option<Box<dyn Read + Send>>| {
        let done = done.clone();
        std::thread::spawn(move || {
            let mut bytes = Vec::new();
            if let Some(p) = pipe {
                let _ = p.take(limits::GIT_OBJECT_BYTES + 1).read_to_end(&mut bytes);
            }
            let _ = done.send(bytes.len() as u64 > limits::GIT_OBJECT_BYTES);
            bytes
        })
    };
    let out = drain(
        child
            .stdout
            .take()
            .map(|p| Box::new(p) as Box<dyn Read + Send>),
    );
    let err = drain(
        child
            .stderr
            .take()
            .map(|p| Box::new(p) as Box<dyn Read + Send>),
    );
    drop(done);
    let deadline = std::time::Instant::now() + limits::GIT_TIME;
    let left = || deadline.saturating_duration_since(std::time::Instant::now());
    let mut closed = 0;
    while closed < 2 {
        match drained.recv_timeout(left()) {
            Ok(false) => closed += 1,
            Ok(true) => return Err(too_much(&mut child)),
            Err(RecvTimeoutError::Disconnected) => break,
            Err(RecvTimeoutError::Timeout) => return Err(too_long(&mut child)),
        }
    }
    // It exits microseconds after closing them: look again soon, then less often.
    let mut pause = std::time::Duration::from_micros(20);
    let status = loop {
        if let Some(status) = child.try_wait()? {
            break status;
        }
        if left().is_zero() {
            return Err(too_long(&mut child));
        }
        std::thread::sleep(pause);
        pause = (pause * 2).min(std::time::Duration::from_millis(2));
    };
    Ok(std::process::Output {
        status,
        stdout: out.join().unwrap_or_default(),
        stderr: err.join().unwrap_or_default(),
    })
}

fn too_much(child: &mut Child) -> std::io::Error {
    let _ = child.kill();
    let _ = child.wait();
    std::io::Error::new(
        std::io::ErrorKind::FileTooLarge,
        format!(
            "git's answer is larger than {} MiB",
            limits::GIT_OBJECT_BYTES >> 20
        ),
    )
}

fn too_long(child: &mut Child) -> std::io::Error {
    let _ = child.kill();
    let _ = child.wait();
    std::io::Error::other(format!(
        "git did not finish within {} s (something in the git folder blocks it); check the repository out afresh",
        limits::GIT_TIME.as_secs()
    ))
}

fn spawn(dir: &Path, args: &[&str]) -> Result<Child, Error> {
    command(dir)?.args(args).spawn().map_err(cannot_run)
}

fn cannot_run(e: std::io::Error) -> Error {
    Error::new(format!(
        "cannot run git ({e}); install git (the action's image ships it) or put it on PATH"
    ))
}

fn finish(dir: &Path, args: &[&str], child: Child) -> Result<String, Error> {
    let out = bounded_output(child).map_err(|e| Error::new(format!("cannot wait for git: {e}")))?;
    if out.status.success() {
        return Ok(String::from_utf8_lossy(&out.stdout).trim().to_string());
    }
    let stderr = String::from_utf8_lossy(&out.stderr);
    let reason = stderr
        .lines()
        .find(|l| !l.trim().is_empty())
        .unwrap_or("no message")
        .trim()
        .to_string();
    let fix = if reason.contains("not a git repository") {
        "run actions/checkout (with fetch-depth: 0) before this step, or set working-directory to the checkout"
    } else if reason.contains("unknown revision") || reason.contains("Needed a single revision") {
        "the repository has no commit yet; commit before recording a receipt"
    } else {
        "check that the checkout is a complete git repository"
    };
    Err(Error::new(format!(
        "`git {}` failed in `{}`: {}; {fix}",
        args.join(" "),
        dir.display(),
        crate::escape::one_line(&reason)
    )))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// git in `dir`, with no user or system config.
    fn git_in(dir: &Path, args: &[&str]) -> String {
        let out = Command::new("git")
            .args(["-c", "user.name=t", "-c", "user.email=t@example.com"])
            .args(["-c", "init.defaultBranch=main"])
            .args(args)
            .current_dir(dir)
            .env("GIT_CONFIG_GLOBAL", "/dev/null")
            .env("GIT_CONFIG_NOSYSTEM", "1")
            .output()
            .unwrap();
        assert!(out.status.success(), "git {args:?}: {out:?}");
        String::from_utf8(out.stdout).unwrap().trim().to_string()
    }

    #[test]
    fn head_read_from_the_git_folder_is_what_git_says() {
        let tmp = tempfile::tempdir().unwrap();
        let d = &tmp.path().canonicalize().unwrap().join("repo");
        std::fs::create_dir_all(d.join("sub")).unwrap();
        git_in(d, &["init", "-q"]);
        // An unborn branch: git is asked, and says so.
        assert_eq!(head_from_files(d), None);
        git_in(d, &["commit", "-q", "--allow-empty", "-m", "one"]);
        let sha = git_in(d, &["rev-parse", "HEAD"]);
        // A loose branch, from the root and from a folder below it.
        assert_eq!(head_from_files(d), Some((false, sha.clone())));
        assert_eq!(head_from_files(&d.join("sub")), Some((false, sha.clone())));
        // A packed one.
        git_in(d, &["pack-refs", "--all"]);
        assert!(!d.join(".git/refs/heads/main").exists());
        assert_eq!(head_from_files(d), Some((false, sha.clone())));
        // The branch packed twice (not git's own writing): git decides.
        let packed = std::fs::read_to_string(d.join(".git/packed-refs")).unwrap();
        let twice = format!("{packed}{} refs/heads/main\n", "e".repeat(sha.len()));
        std::fs::write(d.join(".git/packed-refs"), &twice).unwrap();
        assert_eq!(head_from_files(d), None);
        std::fs::write(d.join(".git/packed-refs"), packed).unwrap();
        // A linked worktree on a branch of its own: its HEAD, the common refs.
        let linked = tmp.path().canonicalize().unwrap().join("linked");
        git_in(
            d,
            &[
                "worktree",
                "add",
                "-q",
                "-b",
                "other",
                linked.to_str().unwrap(),
            ],
        );
        git_in(&linked, &["commit", "-q", "--allow-empty", "-m", "two"]);
        let other = git_in(&linked, &["rev-parse", "HEAD"]);
        assert_ne!(other, sha);
        assert_eq!(head_from_files(&linked), Some((false, other)));
        // Detached, and shallow.
        git_in(d, &["checkout", "-q", "--detach"]);
        std::fs::write(d.join(".git/shallow"), format!("{sha}\n")).unwrap();
        assert_eq!(head_from_files(d), Some((true, sha.clone())));
        let checkout = start_identify(d).unwrap().checkout().unwrap();
        assert_eq!(
            (checkout.sha.as_str(), checkout.shallow),
            (sha.as_str(), true)
        );
        std::fs::remove_file(d.join(".git/shallow")).unwrap();
        // A repository extension: git is asked, and answers the same.
        git_in(d, &["config", "extensions.worktreeConfig", "true"]);
        assert_eq!(head_from_files(d), None);
        assert_eq!(start_head(d).unwrap().head().unwrap(), sha);
    }

    #[test]
    fn git_is_asked_for_drivers_whenever_a_config_file_could_name_one() {
        let tmp = tempfile::tempdir().unwrap();
        let d = &tmp.path().canonicalize().unwrap().join("repo");
        std::fs::create_dir_all(d).unwrap();
        git_in(d, &["init", "-q"]);
        git_in(d, &["commit", "-q", "--allow-empty", "-m", "one"]);
        assert!(config_names_no_driver(d), "a fresh repository names none");
        let config = d.join(".git/config");
        let plain = std::fs::read_to_string(&config).unwrap();
        for added in [
            "[Filter \"x\"]\n\tclean = x\n",
            "[diff\n\"x\"]\n\ttextconv = x\n",
            "[filter.X]\n\tprocess = x\n",
            "[include]\n\tpath = other\n",
            "[includeIf \"gitdir:/\"]\n\tpath = other\n",
            "# a comment that says diff\n",
        ] {
            std::fs::write(&config, format!("{plain}{added}")).unwrap();
            assert!(!config_names_no_driver(d), "{added:?}");
        }
        std::fs::write(&config, &plain).unwrap();
        std::fs::write(
            d.join(".git/config.worktree"),
            "[filter \"y\"]\n\tclean = y\n",
        )
        .unwrap();
        assert!(!config_names_no_driver(d), "config.worktree");
        std::fs::remove_file(d.join(".git/config.worktree")).unwrap();
        // A linked worktree reads the common folder's config.
        let linked = tmp.path().canonicalize().unwrap().join("linked");
        git_in(
            d,
            &[
                "worktree",
                "add",
                "-q",
                "--detach",
                linked.to_str().unwrap(),
            ],
        );
        assert!(config_names_no_driver(&linked));
        std::fs::write(&config, format!("{plain}[filter \"z\"]\n\tsmudge = z\n")).unwrap();
        assert!(!config_names_no_driver(&linked), "the common config");
        // A config that is not a plain file is not read here: git is asked.
        std::fs::remove_file(&config).unwrap();
        std::os::unix::fs::symlink("/dev/zero", &config).unwrap();
        assert!(!config_names_no_driver(d), "a link to a device");
    }

    #[test]
    fn every_driver_the_config_names_is_emptied() {
        let names =
            "core.bare\nfilter.lfs.clean\nfilter.a=b.c.process\ndiff.x.textconv\nuser.name\n";
        let got = neutralized(names);
        for key in [
            "filter.lfs.clean",
            "filter.lfs.smudge",
            "filter.lfs.process",
            "filter.a=b.c.clean",
            "filter.a=b.c.process",
            "diff.x.textconv",
            "diff.x.command",
        ] {
            assert!(
                got.contains(&(key.to_string(), String::new())),
                "{key}: {got:?}"
            );
        }
        assert!(got.contains(&("filter.lfs.required".into(), "false".into())));
        assert!(!got.iter().any(|(k, _)| k.starts_with("user.")));
    }
}
