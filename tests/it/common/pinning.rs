//! Pinning to the base, as the real-CLI suites of `real::pinned` drive it: a
//! repository whose `main` is the base and whose `pr` branch is the pull
//! request, the agent job's checkout (`fetch-depth: 0`, so `origin/main` is
//! there) and its `mode: restore` step, the receipt job's fresh checkout, and
//! a shallow checkout that lacks the base.
#![allow(dead_code)]

use std::collections::BTreeMap;
use std::os::unix::fs::PermissionsExt;
use std::path::Path;
use std::process::Command;

use serde_json::json;

use super::{Scenario, Step, github};

/// The origin of every checkout of one case: `main` (the default branch) at
/// the base, `pr` one commit after it, checked out.
pub struct Repo {
    pub origin: Scenario,
    pub base: String,
    pub head: String,
}

/// The base `base` makes of a scenario, committed on `main`, then the pull
/// request `pr` makes of it, committed on the branch `pr`.
pub fn repo(base: impl FnOnce(&Scenario), pr: impl FnOnce(&Scenario)) -> Repo {
    let s = Scenario::example();
    base(&s);
    let s = s.commit("the default branch");
    let base_commit = s.git(&["rev-parse", "HEAD"]);
    s.git(&["checkout", "-q", "-b", "pr"]);
    pr(&s);
    let s = s.commit("the pull request");
    let head = s.git(&["rev-parse", "HEAD"]);
    Repo {
        origin: s,
        base: base_commit,
        head,
    }
}

impl Repo {
    /// A checkout of the pull request's head with the whole history, as
    /// actions/checkout leaves it with `fetch-depth: 0`: `origin/main` is the
    /// base. The agent job's, and the receipt job's.
    pub fn checkout(&self) -> Scenario {
        let s = Scenario::clone_of(&self.origin);
        assert_eq!(s.git(&["rev-parse", "HEAD"]), self.head);
        assert_eq!(
            s.git(&["rev-parse", "refs/remotes/origin/main"]),
            self.base,
            "the base is the default branch's tip"
        );
        s
    }

    /// A checkout of the pull request's head alone (`git clone --depth 1`,
    /// as actions/checkout's default `fetch-depth: 1` leaves it): neither the
    /// base commit nor `origin/main`.
    pub fn shallow_checkout(&self) -> Scenario {
        let s = shallow_clone(&self.origin, Some("pr"));
        assert_eq!(s.git(&["rev-parse", "HEAD"]), self.head);
        s
    }

    /// The base's bytes of `path`, as git has them (`None`: the base has none).
    pub fn at_base(&self, path: &str) -> Option<Vec<u8>> {
        show(&self.origin, &self.base, path)
    }

    /// The pull request's bytes of `path` (`None`: it has none).
    pub fn at_head(&self, path: &str) -> Option<Vec<u8>> {
        show(&self.origin, &self.head, path)
    }

    /// The base's text of `path`.
    pub fn base_text(&self, path: &str) -> String {
        String::from_utf8(self.at_base(path).unwrap()).unwrap()
    }

    /// The pull request's text of `path`.
    pub fn head_text(&self, path: &str) -> String {
        String::from_utf8(self.at_head(path).unwrap()).unwrap()
    }
}

/// `git clone --depth 1` of `origin` (its `branch`, else its HEAD).
fn shallow_clone(origin: &Scenario, branch: Option<&str>) -> Scenario {
    let s = Scenario::new();
    std::fs::remove_dir_all(&s.ws).unwrap();
    let mut git = Command::new("git");
    git.args(["-c", "safe.directory=*", "clone", "-q", "--depth", "1"]);
    if let Some(branch) = branch {
        git.args(["--branch", branch]);
    }
    let out = git
        .arg(format!("file://{}", origin.ws.display()))
        .arg(&s.ws)
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "git clone --depth 1: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(s.git(&["rev-parse", "--is-shallow-repository"]), "true");
    s
}

/// `commit`'s bytes of `path` in `s`'s repository.
pub fn show(s: &Scenario, commit: &str, path: &str) -> Option<Vec<u8>> {
    let out = Command::new("git")
        .args(["-c", "safe.directory=*", "show"])
        .arg(format!("{commit}:{path}"))
        .current_dir(&s.ws)
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .output()
        .unwrap();
    out.status.success().then_some(out.stdout)
}

/// The agent job's step before the agent, as the README has it (`mode:
/// restore`, the prompt file, the agent), on a `pull_request` event into
/// `main` of a repository whose default branch is `main`.
pub fn restore_step(s: &Scenario, agent: &str, prompt: &str) -> Step {
    let head = s.git(&["rev-parse", "HEAD"]);
    s.action()
        .input("mode", "restore")
        .input("agent", agent)
        .input("prompt-file", prompt)
        .event(
            "pull_request",
            json!({
                "pull_request": {"number": 42, "head": {"sha": head}, "base": {"ref": "main"}},
                "repository": {"full_name": github::REPO, "default_branch": "main"}
            }),
        )
}

/// The `pinned-files` output of a restore step, sorted.
pub fn pinned_files(out: &super::Outcome) -> Vec<String> {
    let mut files: Vec<String> = out.outputs["pinned-files"]
        .lines()
        .map(str::to_string)
        .collect();
    files.sort();
    files
}

/// The paths of usage.json's `base.<list>` (`not_used`,
/// `instructions_changed`), sorted.
pub fn base_paths(usage: &serde_json::Value, list: &str) -> Vec<String> {
    let mut paths: Vec<String> = usage["base"][list]
        .as_array()
        .unwrap_or_else(|| panic!("no base.{list}: {usage}"))
        .iter()
        .map(|c| c["path"].as_str().unwrap().to_string())
        .collect();
    paths.sort();
    paths
}

/// Every file of a checkout but git's own, with its bytes and mode: what
/// "the workspace as it was" is compared by.
pub fn files_of(ws: &Path) -> BTreeMap<String, (Vec<u8>, u32)> {
    let mut out = BTreeMap::new();
    let mut stack = vec![ws.to_path_buf()];
    while let Some(dir) = stack.pop() {
        for e in std::fs::read_dir(&dir).unwrap() {
            let e = e.unwrap();
            let p = e.path();
            let rel = p.strip_prefix(ws).unwrap().to_string_lossy().into_owned();
            if rel == ".git" {
                continue;
            }
            let meta = std::fs::symlink_metadata(&p).unwrap();
            if meta.is_dir() {
                stack.push(p);
            } else {
                let bytes = std::fs::read(&p).unwrap_or_default();
                out.insert(rel, (bytes, meta.permissions().mode()));
            }
        }
    }
    out
}

/// The check run the receipt reported, and its title.
pub fn only_title(gh: &github::FakeGitHub) -> String {
    let runs = gh.runs();
    assert_eq!(runs.len(), 1, "one check run: {runs:?}");
    runs[0]["output"]["title"].as_str().unwrap().to_string()
}

/// The agent job's collect step (collect/collect.sh, the real bash and jq)
/// over `home`: the staged folder (`review.json`, `home/`), as the receipt
/// workflow downloads it.
pub fn collect(
    agent: &str,
    runner_temp: &Path,
    home: &Path,
    output_file: Option<&Path>,
    execution_file: Option<&Path>,
    output: Option<&str>,
) -> std::path::PathBuf {
    let collected = super::collect::run(
        agent,
        runner_temp,
        &super::collect::Given {
            agent_home: Some(home),
            output_file,
            execution_file,
            output,
            ..Default::default()
        },
    );
    assert!(collected.ok, "collect.sh failed:\n{}", collected.log);
    assert!(
        collected.log.contains("session record(s) of"),
        "collect staged no record:\n{}",
        collected.log
    );
    collected.dir
}

/// Whether `text` is in `all` ([`super::all_sent`], request bodies as JSON):
/// looked for as JSON escapes it, so that a text of several lines is found.
pub fn sent_has(all: &str, text: &str) -> bool {
    let escaped = serde_json::to_string(text).unwrap();
    all.contains(&escaped[1..escaped.len() - 1])
}

/// The receipt of a pinned run passed as a clean pull request's would: exit
/// 0, `success`, the check run's title naming each file of `not_used` (the
/// pull request's changes the agent did not run with), usage.json's
/// `base.not_used` exactly those, and no instruction change.
pub fn assert_passes_not_used(
    out: &super::Outcome,
    title: &str,
    version: &str,
    not_used: &[String],
) {
    out.code(0);
    assert_eq!(
        out.outputs["conclusion"], "success",
        "{version}: {}",
        out.summary
    );
    assert!(
        title.starts_with("✅ Not used, the agent ran with the base's: "),
        "{version}: {title}"
    );
    for path in not_used {
        let name = path.rsplit('/').next().unwrap();
        assert!(title.contains(name), "{version}: {name} not in {title}");
    }
    let usage = out.usage();
    assert_eq!(base_paths(&usage, "not_used"), not_used, "{version}");
    assert_eq!(
        base_paths(&usage, "instructions_changed"),
        Vec::<String>::new(),
        "{version}"
    );
}

/// A shallow checkout has no base to put back from: each restore step stops
/// with exit 2 and one error naming `fetch-depth: 0`, before the agent, and
/// the workspace is as the checkout left it, every file the pull request's.
pub fn assert_shallow_refused(s: &Scenario, steps: impl IntoIterator<Item = Step>) {
    let before = files_of(&s.ws);
    let status = s.git(&["status", "--porcelain", "--ignored"]);
    for step in steps {
        let out = step.run();
        out.code(2);
        out.error_says("fetch-depth: 0");
        assert_eq!(out.outputs["conclusion"], "failure");
        assert_eq!(
            out.outputs
                .get("pinned-files")
                .map(String::as_str)
                .unwrap_or(""),
            ""
        );
        assert!(
            files_of(&s.ws) == before,
            "the workspace is as the checkout left it"
        );
        assert_eq!(
            s.git(&["status", "--porcelain", "--ignored"]),
            status,
            "nothing changed, nothing left"
        );
    }
}

/// The receipt of a run that was not pinned, in `configuration: checkout`:
/// it fails naming the pull request's instruction changes, and pinned
/// nothing.
pub fn assert_fails_changed(out: &super::Outcome, title: &str, version: &str) {
    assert_eq!(out.code, 1, "{version}: {}", out.stdout);
    assert_eq!(out.outputs["conclusion"], "failure", "{}", out.summary);
    assert!(
        title.starts_with("❌ ")
            && title.contains("This pull request changes the agent's instructions: "),
        "{version}: {title}"
    );
    assert_eq!(out.usage()["base"].get("pinned"), None, "{version}");
}

/// `paths`, sorted, as [`base_paths`] returns them.
pub fn sorted(paths: &[&str]) -> Vec<String> {
    let mut out: Vec<String> = paths.iter().map(|p| p.to_string()).collect();
    out.sort();
    out
}

/// One repository that is the origin and the agent job's checkout at once:
/// the base on `main` (with the `origin/main` that `fetch-depth: 0`
/// brings), the pull request's commit on top, checked out.
pub struct PullRequest {
    pub s: Scenario,
    pub base: String,
    pub head: String,
}

impl PullRequest {
    /// The example with `base_files` written in as the base, then `edit`.
    pub fn new(base_files: Vec<(&str, String)>, edit: impl FnOnce(&Scenario)) -> PullRequest {
        let s = Scenario::example();
        s.remove("artifacts/review.json");
        for (path, text) in base_files {
            s.write(path, text);
        }
        let s = s.commit("the default branch");
        let base = s.git(&["rev-parse", "HEAD"]);
        s.git(&["update-ref", "refs/remotes/origin/main", &base]);
        edit(&s);
        let s = s.commit("the pull request");
        let head = s.git(&["rev-parse", "HEAD"]);
        PullRequest { s, base, head }
    }

    /// A file as `commit` has it, byte for byte; `None` when it has none.
    pub fn show(&self, commit: &str, path: &str) -> Option<String> {
        show(&self.s, commit, path).map(|b| String::from_utf8(b).unwrap())
    }

    /// The checkout's file now.
    pub fn now(&self, path: &str) -> Option<String> {
        std::fs::read_to_string(self.s.ws.join(path)).ok()
    }

    /// A clone of the head alone (`git clone --depth 1`), as actions/checkout
    /// leaves it without `fetch-depth: 0`: neither `origin/main` nor the
    /// base commit.
    pub fn shallow_clone(&self) -> Scenario {
        let c = shallow_clone(&self.s, None);
        // actions/checkout fetches the one commit: no remote-tracking branch.
        c.git(&["symbolic-ref", "--delete", "refs/remotes/origin/HEAD"]);
        c.git(&["update-ref", "-d", "refs/remotes/origin/main"]);
        c
    }

    /// The receipt job: a fresh clone of the head, the collect action's
    /// `staged` folder downloaded under `runner.temp`, the binding layout,
    /// `instructions-changed: fail`. Returns the clone (usage.json is in
    /// it), the outcome and the check run's title.
    pub async fn receipt_job(
        &self,
        staged: &Path,
        agent: &str,
        version: &str,
        model: &str,
        prompt: &str,
        configuration: &str,
    ) -> (Scenario, super::Outcome, String) {
        let c = Scenario::clone_of(&self.s);
        c.git(&["update-ref", "refs/remotes/origin/main", &self.base]);
        let home = c.runner_temp().join("agent-run");
        super::collect::copy_tree(&staged.join("home"), &home);
        c.write(
            "artifacts/review.json",
            std::fs::read(staged.join("review.json")).unwrap(),
        );
        let gh = github::FakeGitHub::start().await;
        let out = c
            .action()
            .input("agent", agent)
            .input("agent-version", version)
            .input("model", model)
            .input("prompt-file", prompt)
            .input("agent-home", home.to_str().unwrap())
            .binding(&gh.url())
            .input("base-ref", &self.base)
            .input("instructions-changed", "fail")
            .input("configuration", configuration)
            .run();
        let title = gh.runs()[0]["output"]["title"]
            .as_str()
            .unwrap_or_default()
            .to_string();
        (c, out, title)
    }
}
