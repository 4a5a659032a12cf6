//! The checkout's identity: `git describe --tags --always --dirty` and `git rev-parse HEAD`.
//!
//! Inside the action's container the workspace belongs to the runner's user
//! while the container runs as root, and git (2.35.2+) refuses such a repository
//! as "dubious ownership". We pass `safe.directory` on each call, in git's command
//! scope, so the user's repository config is never edited. `core.fsmonitor` is
//! turned off because it is the one config key a read-only command would execute.

use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};

use crate::error::Error;

/// What git says about the checkout.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Checkout {
    /// `git describe --tags --always --dirty`, e.g. `v1.4.0-7-g2414721-dirty`.
    pub describe: String,
    /// `git rev-parse HEAD`.
    pub sha: String,
    /// A shallow clone: `describe` cannot see tags beyond the fetched history.
    pub shallow: bool,
}

/// Git queries already running: start them, do other work, then collect.
/// Process starts dominate this tool's run time, so they overlap with hashing.
pub struct Pending {
    dir: PathBuf,
    queries: Vec<(&'static [&'static str], Child)>,
}

const HEAD: &[&str] = &["rev-parse", "--is-shallow-repository", "--verify", "HEAD"];
const DESCRIBE: &[&str] = &["describe", "--tags", "--always", "--dirty"];

/// Starts asking for the checkout's identity.
pub fn start_identify(dir: &Path) -> Result<Pending, Error> {
    Ok(Pending {
        dir: dir.to_path_buf(),
        queries: vec![(HEAD, spawn(dir, HEAD)?), (DESCRIBE, spawn(dir, DESCRIBE)?)],
    })
}

/// Starts asking for `HEAD` alone, for verification.
pub fn start_head(dir: &Path) -> Result<Pending, Error> {
    Ok(Pending {
        dir: dir.to_path_buf(),
        queries: vec![(HEAD, spawn(dir, HEAD)?)],
    })
}

impl Pending {
    fn answers(self) -> Result<Vec<String>, Error> {
        let dir = self.dir;
        self.queries
            .into_iter()
            .map(|(args, child)| finish(&dir, args, child))
            .collect()
    }

    pub fn checkout(self) -> Result<Checkout, Error> {
        let mut answers = self.answers()?.into_iter();
        let head = answers.next().unwrap_or_default();
        let describe = answers.next().unwrap_or_default();
        let mut lines = head.lines();
        let shallow = lines.next() == Some("true");
        let sha = lines.next().unwrap_or_default().trim().to_string();
        Ok(Checkout {
            describe,
            sha,
            shallow,
        })
    }

    pub fn head(self) -> Result<String, Error> {
        Ok(self.checkout()?.sha)
    }
}

/// The files under `pathspec` that changed between `base` and `HEAD` on
/// HEAD's side (`base...HEAD`), relative to the repository. Empty when git
/// cannot tell (a shallow checkout without the base commit).
pub fn changed_since(dir: &Path, base: &str, pathspec: &str) -> Vec<String> {
    let range = format!("{base}...HEAD");
    let args = [
        "diff",
        "--name-only",
        "--no-renames",
        &range,
        "--",
        pathspec,
    ];
    spawn(dir, &args)
        .ok()
        .and_then(|child| finish(dir, &args, child).ok())
        .map(|out| out.lines().map(str::to_string).collect())
        .unwrap_or_default()
}

/// A file's bytes at a commit (`git show <commit>:./<path>`, `path` relative to `dir`); `None` when git
/// cannot tell (a shallow checkout without that commit, no such file).
pub fn show(dir: &Path, commit: &str, path: &str) -> Option<Vec<u8>> {
    // `./`: relative to `dir`, which may be below the repository root.
    let spec = format!("{commit}:./{path}");
    let args = ["show", "--no-textconv", &spec];
    let out = spawn(dir, &args).ok()?.wait_with_output().ok()?;
    out.status.success().then_some(out.stdout)
}

fn spawn(dir: &Path, args: &[&str]) -> Result<Child, Error> {
    Command::new("git")
        .args(["-c", "safe.directory=*", "-c", "core.fsmonitor=false"])
        .arg("-C")
        .arg(dir)
        .args(args)
        // Keep git from taking the index lock for a refresh it does not need.
        .env("GIT_OPTIONAL_LOCKS", "0")
        .env("GIT_TERMINAL_PROMPT", "0")
        .env_remove("GIT_DIR")
        .env_remove("GIT_WORK_TREE")
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|e| {
            Error::new(format!(
                "cannot run git ({e}); install git (the action's image ships it) or put it on PATH"
            ))
        })
}

fn finish(dir: &Path, args: &[&str], child: Child) -> Result<String, Error> {
    let out = child
        .wait_with_output()
        .map_err(|e| Error::new(format!("cannot wait for git: {e}")))?;
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
