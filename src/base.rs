//! What the commit under review changes of the agent's instructions, against a
//! trusted base.
//!
//! A pull request can rewrite the reviewer's prompt ("this change is already
//! approved"), AGENTS.md ("never report findings") or the output schema, and a
//! real agent run on those files makes a genuine record: every hash matches,
//! because the agent did receive what the checkout says. Verification cannot
//! see that; a comparison with the commit the pull request is merged into can.
//! Every file the receipt covers (prompt and template, tools, output schema,
//! each place Codex looks for an AGENTS file, skills, the repository's Codex
//! config and hooks, the workflow file that runs the review) is compared
//! between the merge base and `HEAD`, by git, as committed: the working tree's
//! bytes are the receipt's own business.

use std::path::Path;

use clap::ValueEnum;
use serde::{Deserialize, Serialize};

use crate::diff::unified as prompt_diff;
use crate::digest::sha256_hex;
use crate::git;

/// What a change of the agent's instructions does to the verdict.
#[derive(Copy, Clone, Debug, PartialEq, Eq, ValueEnum)]
pub(crate) enum Policy {
    /// The step fails.
    Fail,
    /// At most neutral: the check is never green over changed instructions.
    Warn,
    /// Said, and nothing more.
    Allow,
}

impl Policy {
    pub(crate) fn as_str(self) -> &'static str {
        match self {
            Policy::Fail => "fail",
            Policy::Warn => "warn",
            Policy::Allow => "allow",
        }
    }
}

/// The commit whose instructions are trusted, and where its name came from.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Base {
    /// As given: a full SHA from the event, or input `base-ref`.
    pub(crate) given: String,
    /// `input base-ref` or `the pull request's base`.
    pub(crate) from: &'static str,
    /// The branch `given` is the tip of (input `base-branch`): the default
    /// branch, or a base branch the caller protects.
    pub(crate) branch: Option<String>,
}

/// Where the pull requests of this head merge, against the trusted branch. A
/// check run belongs to a commit, not to a pull request: a verdict made
/// against a branch the contributor pushed would show on the same head
/// opened against the default branch. So every pull request of the head must
/// merge into the branch compared with.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum Target {
    /// The caller named no trusted branch (`base-branch`): the base is
    /// theirs to vouch for (a local run, an older caller).
    NotAsked,
    /// Every pull request of this head merges into the trusted branch.
    Trusted,
    /// No pull request was named: where this head merges is not known.
    Unknown,
    /// These branches are not the trusted one: never `success`.
    Elsewhere(Vec<String>),
}

impl Target {
    /// `bases`: the branches this head's pull requests merge into.
    pub(crate) fn of(trusted: Option<&str>, bases: &[String]) -> Target {
        let Some(trusted) = trusted else {
            return Target::NotAsked;
        };
        if bases.is_empty() {
            return Target::Unknown;
        }
        let mut other: Vec<String> = Vec::new();
        for b in bases.iter().filter(|b| b.as_str() != trusted) {
            if !other.contains(b) {
                other.push(b.clone());
            }
        }
        if other.is_empty() {
            Target::Trusted
        } else {
            Target::Elsewhere(other)
        }
    }
}

/// A file, or a set of files, the agent's instructions are made of.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Subject {
    /// What it is to the agent, in the user's words: `prompt`, `AGENTS.md`, ...
    pub(crate) kind: String,
    /// A git pathspec, relative to the workspace (`:(literal)` or `:(glob)`).
    pub(crate) pathspec: String,
    /// Something the agent's runtime runs or loads (a hook's script, an MCP
    /// server, `.env`), not an instruction it reads: the title says so.
    pub(crate) runs: bool,
}

impl Subject {
    pub(crate) fn file(kind: &str, path: &str) -> Subject {
        Subject {
            kind: kind.to_string(),
            pathspec: format!(":(literal){path}"),
            runs: false,
        }
    }

    pub(crate) fn glob(kind: &str, glob: &str) -> Subject {
        Subject {
            kind: kind.to_string(),
            pathspec: format!(":(glob){glob}"),
            runs: false,
        }
    }

    /// A file (or, ending with `/`, a folder) the agent's runtime runs or loads.
    pub(crate) fn runtime(kind: &str, path: &str) -> Subject {
        let mut s = match path.strip_suffix('/') {
            Some(folder) => Subject::glob(kind, &format!("{}/**", glob_escape(folder))),
            None => Subject::file(kind, path),
        };
        s.runs = true;
        s
    }
}

/// A literal path as a glob pathspec: its wildcard characters escaped.
fn glob_escape(path: &str) -> String {
    let mut out = String::with_capacity(path.len());
    for c in path.chars() {
        if matches!(c, '*' | '?' | '[' | ']' | '\\') {
            out.push('\\');
        }
        out.push(c);
    }
    out
}

/// One instruction file that differs between the base and the commit reviewed.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub(crate) struct Change {
    pub(crate) path: String,
    pub(crate) kind: String,
    /// SHA-256 at the merge base; `null`: the pull request adds the file.
    pub(crate) base_sha: Option<String>,
    /// SHA-256 at `HEAD`; `null`: the pull request removes it.
    pub(crate) head_sha: Option<String>,
    /// The pull request did not change it: its branch is behind the base,
    /// whose version is newer, so the agent ran older instructions.
    #[serde(skip_serializing_if = "std::ops::Not::not", default)]
    pub(crate) behind_base: bool,
    /// Something the agent's runtime runs or loads (a hook's script, an MCP
    /// server, `.env`), not an instruction file.
    #[serde(skip_serializing_if = "std::ops::Not::not", default)]
    pub(crate) runs: bool,
    /// A bounded unified diff, when both sides are text.
    #[serde(skip)]
    pub(crate) diff: Option<String>,
}

impl Change {
    /// `added`, `removed`, `changed`, or `older than the base`.
    pub(crate) fn what(&self) -> &'static str {
        match (&self.base_sha, &self.head_sha) {
            _ if self.behind_base => "older than the base",
            (None, _) => "added",
            (_, None) => "removed",
            _ => "changed",
        }
    }
}

/// The comparison with the base: what changed, or why it could not be made.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Check {
    /// `None`: the event reviews a pull request but names no base.
    pub(crate) base: Option<Base>,
    /// The commit compared with: the base itself, so a branch behind the
    /// base is not judged by the older instructions it was branched from.
    pub(crate) commit: Option<String>,
    /// Where the branch left the base: a file that differs from the base but
    /// not from here was changed by the base, not by the pull request.
    pub(crate) merge_base: Option<String>,
    pub(crate) changes: Vec<Change>,
    /// What the pull request changed that the agent did not run with: the
    /// agent ran pinned to the base's configuration (`mode: restore`), and
    /// the receipt held its record to the base's files.
    pub(crate) not_used: Vec<Change>,
    /// Why no comparison was made; a check that could not run is not a pass.
    pub(crate) unavailable: Option<String>,
    pub(crate) policy: Policy,
    /// Where this head's pull requests merge, against the trusted branch.
    pub(crate) target: Target,
}

/// The base as the receipt records it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub(crate) struct BaseRecord {
    #[serde(rename = "ref")]
    pub(crate) given: String,
    pub(crate) commit: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub(crate) merge_base: Option<String>,
    /// The branch `ref` is the tip of, when the caller named it.
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub(crate) branch: Option<String>,
    /// The branches this head's pull requests merge into that are not
    /// `branch`: the verdict fails.
    #[serde(skip_serializing_if = "Vec::is_empty", default)]
    pub(crate) pull_requests_into: Vec<String>,
    /// Every instruction file that differs from the base.
    pub(crate) instructions_changed: Vec<Change>,
    /// The agent ran with the base's configuration: the commit it was taken
    /// from, and each file the receipt's checkout had put back to match.
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub(crate) pinned: Option<Pinned>,
    /// What the pull request changed of the configuration that the agent,
    /// pinned, did not run with.
    #[serde(skip_serializing_if = "Vec::is_empty", default)]
    pub(crate) not_used: Vec<Change>,
}

impl Check {
    pub(crate) fn record(&self) -> BaseRecord {
        BaseRecord {
            given: self
                .base
                .as_ref()
                .map(|b| b.given.clone())
                .unwrap_or_default(),
            commit: self.commit.clone(),
            merge_base: self
                .merge_base
                .clone()
                .filter(|m| Some(m) != self.commit.as_ref()),
            branch: self.base.as_ref().and_then(|b| b.branch.clone()),
            pull_requests_into: match &self.target {
                Target::Elsewhere(other) => other.clone(),
                _ => Vec::new(),
            },
            instructions_changed: self.changes.clone(),
            pinned: None,
            not_used: self.not_used.clone(),
        }
    }

    /// Moves each change the agent did not run with (one `pathspecs` of a
    /// pinned run covers) from `changes` to `not_used`.
    pub(crate) fn set_aside(&mut self, pathspecs: &[String]) {
        let (not_used, used) = std::mem::take(&mut self.changes)
            .into_iter()
            .partition(|c: &Change| pathspecs.iter().any(|p| matches(p, &c.path)));
        self.changes = used;
        self.not_used = not_used;
    }

    /// The base as people name it, quoted for a sentence of ours (see
    /// `markdown::prose`): `` `main` at `1a2b3c4d5e6f` ``, the branch (else
    /// the ref as given, when it is not the commit itself) and the commit
    /// compared with. `None` before a base is known.
    pub(crate) fn label(&self) -> Option<String> {
        let base = self.base.as_ref()?;
        let name = base.branch.clone().or_else(|| {
            let given = &base.given;
            let is_commit = self
                .commit
                .as_deref()
                .is_some_and(|c| c.starts_with(given.as_str()));
            (!is_commit).then(|| given.clone())
        });
        let quote = |s: &str| quoted(s);
        let name = name.map(|n| quote(&n));
        let commit = self.commit.as_deref().map(|c| quote(&c[..c.len().min(12)]));
        Some(match (name, commit) {
            (Some(n), Some(c)) => format!("{n} at {c}"),
            (Some(n), None) => n,
            (None, Some(c)) => c,
            (None, None) => quote(&base.given),
        })
    }

    /// The instruction files' names, for a title: `review.md, AGENTS.md`.
    pub(crate) fn names(&self) -> Vec<String> {
        let mut names: Vec<String> = Vec::new();
        for c in self.changes.iter().filter(|c| !c.runs) {
            let name = c.path.rsplit('/').next().unwrap_or(&c.path).to_string();
            if !names.contains(&name) {
                names.push(name);
            }
        }
        names
    }
}

impl Check {
    /// What the runtime runs or loads that changed, for a title:
    /// `` `scripts/guard.sh` (PreToolUse hook) ``, whole paths (a script's name
    /// alone says little).
    pub(crate) fn runtime_names(&self) -> Vec<String> {
        let mut names: Vec<String> = Vec::new();
        for c in self.changes.iter().filter(|c| c.runs) {
            let name = format!("`{}` ({})", c.path, c.kind);
            if !names.contains(&name) {
                names.push(name);
            }
        }
        names
    }
}

/// A name from outside (a branch, a ref) for one of our sentences: quoted,
/// one line, clipped, its own backticks turned to quotes (git allows them in
/// a branch name), so that `markdown::prose` and the plain title read it as
/// one name.
pub(crate) fn quoted(name: &str) -> String {
    format!(
        "`{}`",
        crate::escape::one_line(&crate::markdown::clip(name, 80)).replace('`', "'")
    )
}

/// Most files listed; a pull request that adds a thousand skills is named by
/// its first ones and a count.
pub(crate) const MAX_LISTED: usize = 200;

/// A `base-ref` git can read as nothing but a revision: no option, no space,
/// no control character, nothing outside what ref names and `~^@{}` use.
pub(crate) fn valid_ref(given: &str) -> bool {
    !given.is_empty()
        && given.len() <= 256
        && !given.starts_with('-')
        && given
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b"/._-~^@{}".contains(&b))
}

/// A review of a pull request with no base to compare it with.
pub(crate) fn no_base(policy: Policy) -> Check {
    Check {
        base: None,
        commit: None,
        merge_base: None,
        changes: Vec::new(),
        not_used: Vec::new(),
        unavailable: Some(
            "the event names no base commit to compare the agent's instructions with; set \
             `base-ref` (a fork's `workflow_run` carries none: use the default branch)"
                .into(),
        ),
        policy,
        target: Target::NotAsked,
    }
}

/// Compares every subject between the base and `HEAD` in the repository at `dir`.
pub(crate) fn check(
    dir: &Path,
    base: &Base,
    subjects: &[Subject],
    policy: Policy,
    target: Target,
) -> Check {
    let mut out = Check {
        base: Some(base.clone()),
        commit: None,
        merge_base: None,
        changes: Vec::new(),
        not_used: Vec::new(),
        unavailable: None,
        policy,
        target,
    };
    let clipped = crate::markdown::clip(&base.given, 80);
    let shown = crate::escape::one_line(&clipped);
    let (head, base_commit) = match commits(dir, base, &shown) {
        Ok(commits) => commits,
        Err(why) => {
            out.unavailable = Some(why);
            return out;
        }
    };
    out.commit = Some(base_commit.clone());
    // One diff of the whole range against the base itself (what the agent
    // ran is what it should have run, or it is said), and where the branch
    // left it, asked together.
    let (changed, merge_base) = git::changes_and_merge_base(dir, &base_commit, &head);
    let Some(merge_base) = merge_base else {
        out.unavailable = Some(format!(
            "the base `{shown}` and HEAD share no history in this checkout; check out with \
             `fetch-depth: 0`"
        ));
        return out;
    };
    out.merge_base = Some(merge_base.clone());
    let Some(changed) = changed else {
        out.unavailable = Some(format!("git could not compare `{shown}` with HEAD"));
        return out;
    };
    let ends = Ends {
        base: &base_commit,
        head: &head,
        merge_base: &merge_base,
    };
    for entry in listed(changed, subjects).into_iter().take(MAX_LISTED) {
        let with_diff = out.changes.len() < crate::limits::DIFFED_FILES;
        match change(dir, subjects, ends, entry, with_diff) {
            Ok(change) => out.changes.push(change),
            Err(why) => {
                out.changes.clear();
                out.unavailable = Some(format!("{why}, so it was not compared"));
                return out;
            }
        }
    }
    out
}

/// The changed paths that are the agent's instructions: each a subject
/// holds (in git's order), then every link the range touches, anywhere (a
/// link can redirect what the agent reads, `.codex -> cfg`, `.agents/skills
/// -> docs`, a working directory turned into a link, and the files it
/// points to match no subject).
fn listed(changed: Vec<git::Changed>, subjects: &[Subject]) -> Vec<git::Changed> {
    let is_link = |c: &git::Changed| c.old_mode == "120000" || c.new_mode == "120000";
    let (held, rest): (Vec<_>, Vec<_>) = changed.into_iter().partition(|c| {
        subjects
            .iter()
            .any(|s| git::pathspec::matches(&s.pathspec, &c.path))
    });
    held.into_iter()
        .chain(rest.into_iter().filter(is_link))
        .collect()
}

/// `HEAD` and the base's commit; else why the comparison cannot be made.
fn commits(dir: &Path, base: &Base, shown: &str) -> Result<(String, String), String> {
    let Some(head) = git::commit_of(dir, "HEAD") else {
        return Err("the checkout has no HEAD commit".into());
    };
    let Some(base_commit) = valid_ref(&base.given)
        .then(|| git::commit_of(dir, &base.given))
        .flatten()
    else {
        return Err(format!(
            "the base `{shown}` ({}) is not a commit in this checkout; check out with \
             `fetch-depth: 0` so the base's history is there",
            base.from
        ));
    };
    Ok((head, base_commit))
}

/// The commits a change is read against: the base, and where the branch left it.
#[derive(Copy, Clone)]
struct Ends<'a> {
    base: &'a str,
    head: &'a str,
    merge_base: &'a str,
}

/// One changed path between the base and `HEAD`: its subject's kind, both
/// versions' hashes (read by their blobs), its diff when `with_diff`, and
/// whether the pull request left it as it was where it branched (so the
/// base changed it since: the branch is behind).
fn change(
    dir: &Path,
    subjects: &[Subject],
    ends: Ends,
    entry: git::Changed,
    with_diff: bool,
) -> Result<Change, String> {
    let subject = subjects.iter().find(|s| matches(&s.pathspec, &entry.path));
    let kind = subject.map_or("link", |s| s.kind.as_str());
    let runs = subject.is_some_and(|s| s.runs);
    let read = |mode: &str, blob: &str, at: &str| -> Result<Option<Vec<u8>>, String> {
        if !matches!(mode, "100644" | "100755" | "120000") {
            return Ok(None);
        }
        git::blob_by_id(dir, blob).map_err(|e| {
            format!(
                "`{}` at {}: {e}",
                crate::escape::one_line(&entry.path),
                &at[..at.len().min(12)]
            )
        })
    };
    let base_bytes = read(&entry.old_mode, &entry.old_blob, ends.base)?;
    let head_bytes = read(&entry.new_mode, &entry.new_blob, ends.head)?;
    // The same entry where the branch left the base as at `HEAD`: the base
    // changed it since, not the pull request.
    let behind_base = ends.merge_base != ends.base && {
        let at_fork = git::entry(dir, ends.merge_base, &entry.path).map_err(|e| {
            format!(
                "`{}` at {}: {e}",
                crate::escape::one_line(&entry.path),
                &ends.merge_base[..ends.merge_base.len().min(12)]
            )
        })?;
        let at_head = (entry.new_mode != "000000").then_some((entry.new_mode, entry.new_blob));
        at_fork == at_head
    };
    let diff = with_diff
        .then(|| text_diff(&entry.path, base_bytes.as_deref(), head_bytes.as_deref()))
        .flatten();
    Ok(Change {
        kind: kind.to_string(),
        base_sha: base_bytes.as_deref().map(sha256_hex),
        head_sha: head_bytes.as_deref().map(sha256_hex),
        behind_base,
        runs,
        path: entry.path,
        diff,
    })
}

/// Which subject a changed path came from: a literal is the path itself; a
/// glob `**/dir/**` holds it when the path has `dir/` at its start or after a `/`.
pub(crate) fn matches(pathspec: &str, path: &str) -> bool {
    if let Some(lit) = pathspec.strip_prefix(":(literal)") {
        return lit == path;
    }
    let Some(glob) = pathspec.strip_prefix(":(glob)") else {
        return false;
    };
    if !glob.starts_with("**/") {
        // A folder of the runtime's, from the root: `server/**`.
        let folder = glob.trim_end_matches("/**").replace('\\', "");
        return path.starts_with(&format!("{folder}/"));
    }
    let inner = glob
        .trim_start_matches("**/")
        .trim_end_matches("/**")
        .trim_end_matches('/');
    if !glob.ends_with("/**") {
        // `**/dir/file`: that file, at the root or in any folder.
        return path == inner || path.ends_with(&format!("/{inner}"));
    }
    path.starts_with(&format!("{inner}/")) || path.contains(&format!("/{inner}/"))
}

fn text_diff(path: &str, base: Option<&[u8]>, head: Option<&[u8]>) -> Option<String> {
    let text = |b: Option<&[u8]>| match b {
        None => Some(String::new()),
        Some(b) if b.len() as u64 <= crate::limits::DIFF_SIDE_BYTES => {
            String::from_utf8(b.to_vec()).ok()
        }
        Some(_) => None,
    };
    Some(prompt_diff(path, &text(base)?, path, &text(head)?))
}

/// What pinning did: the base, and each file put back as the base has it.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct Pinned {
    /// The commit whose configuration the agent ran with.
    pub(crate) commit: String,
    /// The branch it is the tip of, when known.
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub(crate) branch: Option<String>,
    /// Each file that differed, as it was put back.
    pub(crate) files: Vec<Put>,
    /// The git pathspecs of everything pinned: a change of the pull request
    /// that matches one did not reach the agent.
    #[serde(skip)]
    pub(crate) pathspecs: Vec<String>,
}

/// One file put back.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct Put {
    pub(crate) path: String,
    /// `restored` (changed, put back), `recreated` (deleted by the pull
    /// request), `removed` (added by it, or left by an earlier step).
    pub(crate) how: How,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub(crate) enum How {
    Restored,
    Recreated,
    Removed,
}

impl Pinned {
    /// The base as people name it, quoted for a sentence of ours: `` `main`
    /// at `1a2b3c4d5e6f` ``.
    pub(crate) fn label(&self) -> String {
        let commit = quoted(&self.commit[..self.commit.len().min(12)]);
        match &self.branch {
            Some(b) => format!("{} at {commit}", quoted(b)),
            None => commit,
        }
    }
}

impl How {
    pub(crate) fn as_str(self) -> &'static str {
        match self {
            How::Restored => "restored",
            How::Recreated => "recreated",
            How::Removed => "removed",
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_base_ref_is_a_revision_and_nothing_else() {
        for ok in [
            "main",
            "origin/main",
            "v1.2.3",
            "HEAD~1",
            "abc123^",
            "main@{1}",
        ] {
            assert!(valid_ref(ok), "{ok}");
        }
        for bad in [
            "",
            "--output=/tmp/x",
            "-p",
            "a b",
            "a\nb",
            "a;b",
            "$(x)",
            "a:b",
        ] {
            assert!(!valid_ref(bad), "{bad:?}");
        }
    }

    #[test]
    fn a_changed_path_is_named_by_the_subject_that_holds_it() {
        assert!(matches(":(literal)AGENTS.md", "AGENTS.md"));
        assert!(!matches(":(literal)AGENTS.md", "src/AGENTS.md"));
        assert!(matches(
            ":(glob)**/.agents/skills/**",
            ".agents/skills/a/SKILL.md"
        ));
        assert!(matches(
            ":(glob)**/.agents/skills/**",
            "x/.agents/skills/a/SKILL.md"
        ));
        assert!(!matches(":(glob)**/.agents/skills/**", "x.agents/skills/a"));
        let hooks = ":(glob)**/.codex/hooks.json";
        assert!(matches(hooks, ".codex/hooks.json"));
        assert!(matches(hooks, "svc/.codex/hooks.json"));
        assert!(!matches(hooks, ".codex/config.toml"));
        assert!(!matches(hooks, "x.codex/hooks.json"));
        let server = Subject::runtime("MCP server", "mcp/ser[v]er/");
        assert_eq!(server.pathspec, ":(glob)mcp/ser\\[v\\]er/**");
        assert!(matches(&server.pathspec, "mcp/ser[v]er/index.js"));
        assert!(!matches(&server.pathspec, "x/mcp/ser[v]er/index.js"));
    }
}
