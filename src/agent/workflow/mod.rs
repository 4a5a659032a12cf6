//! The agent workflow's reach: the repository files its steps run besides the
//! agent, compared with the base like the workflow file itself.
//!
//! A pull request that edits the agent workflow is named, and fails. But a
//! step of an unchanged workflow can run files the pull request does change:
//! a local action (`uses: ./.github/actions/setup`), a script a `run:` step
//! calls, the manifest whose task it runs (`npm ci` runs package.json's
//! scripts). Any of them runs in the agent workflow's run, before the upload,
//! and can rewrite the review and the agent's record: a genuine `not ok`
//! becomes a clean run, signed. So each such file is found here, as the
//! runtime reach finds what a hook runs ([`Finder`]), and compared with the
//! base; what cannot be resolved ([`shell`]: a path in a variable, a shell
//! the receipt cannot read, text from the event, a step that runs the
//! checkout's own code) is not verified, which the binding layout fails.
//!
//! Every job counts alike. A step in another job shares no files with the
//! agent's, but the run's artifacts are one store: code of the pull request's
//! that runs anywhere in the run can race the agent's upload. Each path is
//! compared where it really is: through a link in the checkout, the folder
//! it points to is compared too, since git never follows a link.

mod shell;

use std::collections::HashSet;
use std::path::{Path, PathBuf};

use crate::agent::reach::{Reach, RuntimeFile};
use crate::limits;
use crate::workflow::{Step, Workflow};
use crate::workspace::{Unread, Workspace};
use crate::yaml::Node;
use shell::{Shell, shown};

const ACTION_KIND: &str = "local action of the agent workflow";
const CALLED_KIND: &str = "workflow the agent workflow calls";
const INPUT_KIND: &str = "file an action of the agent workflow reads";

/// Actions that run code their inputs hold (`script:`): what it loads from
/// the checkout cannot be told without running it.
const RUNS_ITS_INPUTS: &[&str] = &["actions/github-script"];

/// Reads the agent workflow at `path` (relative to the workspace) and finds
/// what its steps run. Nothing: the file is not there (the comparison with
/// the base names a workflow the pull request removed).
pub(crate) fn reach(ws: &Workspace, path: &str) -> Reach {
    let mut walk = Walk {
        ws,
        root: std::fs::canonicalize(ws.root()).unwrap_or_else(|_| ws.root().to_path_buf()),
        reach: Reach::default(),
        followed: HashSet::new(),
        run_steps: 0,
    };
    walk.workflow(path, 0);
    walk.reach
}

struct Walk<'a> {
    ws: &'a Workspace,
    root: PathBuf,
    reach: Reach,
    /// Local actions and called workflows already read.
    followed: HashSet<String>,
    run_steps: usize,
}

impl Walk<'_> {
    fn unseen(&mut self, why: String) {
        let item = ("what the agent workflow runs".to_string(), why);
        if !self.reach.unseen.contains(&item) && self.reach.unseen.len() < limits::REACH_FILES {
            self.reach.unseen.push(item);
        }
    }

    /// One file this walk must read (the workflow, a local action's metadata):
    /// `None` when it is not there; said when it is there but cannot be read.
    fn read(&mut self, rel: &str, what: &str) -> Option<Node> {
        let path = self.ws.root().join(rel);
        let bytes = match crate::workspace::read_contained(
            &path,
            &[&self.root],
            limits::AGENT_WORKFLOW_BYTES,
        ) {
            Ok(b) => b,
            Err(Unread::Missing) => return None,
            Err(why) => {
                self.unseen(format!(
                    "{}: what {what} runs is not compared with the base",
                    why.why(rel)
                ));
                return None;
            }
        };
        let parsed = std::str::from_utf8(&bytes)
            .ok()
            .and_then(|t| crate::yaml::parse(t).ok().flatten());
        if parsed.is_none() {
            self.unseen(format!(
                "`{}` is not YAML the receipt can read: what {what} runs is not compared with the base",
                shown(rel)
            ));
        }
        parsed
    }

    /// A workflow file: what every step of every job runs.
    fn workflow(&mut self, rel: &str, depth: usize) {
        let Some(doc) = self.read(rel, &format!("`{}`", shown(rel))) else {
            return;
        };
        let wf = Workflow::of(&doc);
        let defaults = RunDefaults::of(doc.get("defaults"), None);
        for job in &wf.jobs {
            let by = format!("{}, job {}", shown(rel), shown(&job.id));
            if job.uses.starts_with("./") {
                match local(&job.uses) {
                    Some(called) => self.called_workflow(&called, &by, depth),
                    None => self.unresolved(&job.uses, &by),
                }
                continue;
            }
            let defaults = RunDefaults::of(job_defaults(&doc, &job.id), Some(&defaults));
            let windows = runs_on_windows(&doc, &job.id);
            for step in &job.steps {
                self.step(step, &by, &defaults, windows, None, depth);
            }
        }
    }

    /// One step, of a job or of a composite action (`action_path`: its folder).
    fn step(
        &mut self,
        step: &Step,
        by: &str,
        defaults: &RunDefaults,
        windows: bool,
        action_path: Option<&Path>,
        depth: usize,
    ) {
        if step.uses.starts_with("./") || step.uses == "." {
            match local(&step.uses) {
                Some(action) => self.local_action(&action, by, depth),
                None => self.unresolved(&step.uses, by),
            }
        } else if !step.uses.is_empty() {
            self.remote_action(step, by);
        } else if step.node.get("run").is_some() {
            self.run_step(step, by, defaults, windows, action_path);
        }
    }

    /// A local `uses:` that names no folder the receipt can compare (`.//x`,
    /// `./x/../y`): not verified, never dropped.
    fn unresolved(&mut self, uses: &str, by: &str) {
        self.unseen(format!(
            "`{by}` uses `{}`, a local action or workflow whose path the receipt does not resolve: what it runs is not compared with the base; write it as `./path/to/it`",
            shown(uses)
        ));
    }

    /// `uses: ./.github/workflows/x.yml` at a job's level: the file, and what
    /// its jobs run.
    fn called_workflow(&mut self, rel: &str, by: &str, depth: usize) {
        self.add(rel, CALLED_KIND, by, false);
        if self.follow(rel, depth) {
            self.workflow(rel, depth + 1);
        }
    }

    /// Another repository's action: pinned by the workflow, which is
    /// compared itself. What its inputs name in the checkout is compared too
    /// (a config, a script it loads); an action that runs code its inputs
    /// hold is not verified.
    fn remote_action(&mut self, step: &Step, by: &str) {
        let at = format!("{by}, line {}", step.mark.line);
        if RUNS_ITS_INPUTS.iter().any(|a| step.is(a)) {
            return self.unseen(format!(
                "`{at}` uses `{}`, which runs the code its inputs hold: what it loads from the checkout is known only when it runs",
                shown(step.action())
            ));
        }
        let Some(with) = step.node.get("with") else {
            return;
        };
        let mut sh = Shell::new(self.ws, at, Vec::new(), self.ws.root().to_path_buf(), None);
        for (_, value) in with.entries() {
            if let Some(text) = value.text() {
                for word in text.split_whitespace() {
                    sh.file(word.trim_matches(|c| c == '"' || c == '\''));
                }
            }
        }
        for mut f in sh.reach.files {
            f.kind = INPUT_KIND.into();
            self.push(f);
        }
    }

    /// `uses: ./path`: the action's folder as a whole; a node action's
    /// entry points and a docker action's Dockerfile wherever they are; for a
    /// composite action, what its steps run.
    fn local_action(&mut self, rel: &str, by: &str, depth: usize) {
        if rel == "." {
            return self.unseen(format!(
                "`{by}` uses the action at the checkout's root (`uses: ./`), which can load any file of the pull request: what it runs is not compared with the base"
            ));
        }
        self.add(rel, ACTION_KIND, by, true);
        if !self.follow(rel, depth) {
            return;
        }
        let meta = ["action.yml", "action.yaml"]
            .iter()
            .map(|m| format!("{rel}/{m}"))
            .find(|m| std::fs::symlink_metadata(self.ws.root().join(m)).is_ok());
        let Some(meta) = meta else { return };
        let Some(doc) = self.read(&meta, &format!("the local action `{}`", shown(rel))) else {
            return;
        };
        let Some(runs) = doc.get("runs") else { return };
        let by = format!("the local action {}", shown(rel));
        let using = runs.get("using").and_then(Node::text).map(str::trim);
        if using != Some("composite") {
            // `main`, `pre` and `post` of a node action, `image` of a docker
            // one: joined to the folder, and compared wherever they land.
            for key in ["main", "pre", "post", "image"] {
                let Some(file) = runs.get(key).and_then(Node::text).map(str::trim) else {
                    continue;
                };
                if key == "image" && file.starts_with("docker://") {
                    continue;
                }
                self.entry_point(rel, file, &by);
            }
            return;
        }
        let folder = self.ws.root().join(rel);
        for node in runs.get("steps").map(Node::items).unwrap_or_default() {
            let step = Step::lone(node);
            self.step(
                &step,
                &by,
                &RunDefaults::default(),
                false,
                Some(&folder),
                depth + 1,
            );
        }
    }

    /// A node or docker action's file, relative to its folder.
    fn entry_point(&mut self, folder: &str, file: &str, by: &str) {
        let joined = Path::new(folder).join(file);
        let mut parts: Vec<&std::ffi::OsStr> = Vec::new();
        for c in joined.components() {
            match c {
                std::path::Component::ParentDir if parts.pop().is_some() => {}
                std::path::Component::Normal(p) => parts.push(p),
                std::path::Component::CurDir => {}
                _ => {
                    return self.unseen(format!(
                        "`{by}` runs `{}`, outside the checkout: it is not compared with the base",
                        shown(file)
                    ));
                }
            }
        }
        let rel: PathBuf = parts.iter().collect();
        let rel = rel.to_string_lossy().into_owned();
        if !rel.starts_with(&format!("{folder}/")) {
            self.add(&rel, ACTION_KIND, by, false);
        }
    }

    /// Whether to read a local action or workflow: within the depth, not read
    /// before, and not past the bound (said once).
    fn follow(&mut self, rel: &str, depth: usize) -> bool {
        if depth >= limits::AGENT_WORKFLOW_DEPTH
            || self.followed.len() >= limits::AGENT_WORKFLOWS_FOLLOWED
        {
            self.unseen(format!(
                "the agent workflow's local actions and called workflows nest more than {} deep or number more than {}: `{}` and what it runs are compared as a folder only",
                limits::AGENT_WORKFLOW_DEPTH,
                limits::AGENT_WORKFLOWS_FOLLOWED,
                shown(rel)
            ));
            return false;
        }
        self.followed.insert(rel.to_string())
    }

    /// A `run:` step: the files its script runs, from its working directory.
    fn run_step(
        &mut self,
        step: &Step,
        by: &str,
        defaults: &RunDefaults,
        windows: bool,
        action_path: Option<&Path>,
    ) {
        let Some(script) = step.node.get("run").and_then(Node::text) else {
            return;
        };
        self.run_steps += 1;
        if self.run_steps > limits::RUN_STEPS {
            if self.run_steps == limits::RUN_STEPS + 1 {
                self.unseen(format!(
                    "the agent workflow has more than {} `run:` steps: the rest are not compared with the base",
                    limits::RUN_STEPS
                ));
            }
            return;
        }
        let at = format!("{by}, line {}", step.mark.line);
        let shell = step
            .node
            .get("shell")
            .and_then(Node::text)
            .map(str::to_string)
            .or_else(|| defaults.shell.clone())
            .unwrap_or_else(|| {
                if windows {
                    "pwsh".into()
                } else {
                    "bash".into()
                }
            });
        if !posix_shell(&shell) {
            return self.unseen(format!(
                "a `run:` step in `{at}` runs its script with `{}`, which the receipt does not read: what it runs is not compared with the base",
                shown(&shell)
            ));
        }
        let dir = step
            .node
            .get("working-directory")
            .and_then(Node::text)
            .map(str::to_string)
            .or_else(|| defaults.working_directory.clone());
        let cwd = match dir {
            None => self.ws.root().to_path_buf(),
            Some(d) if d.contains("${{") || d.contains('$') => {
                return self.unseen(format!(
                    "a `run:` step in `{at}` starts in `{}`, known only when the workflow runs: what it runs is not compared with the base",
                    shown(&d)
                ));
            }
            Some(d) => self.ws.root().join(d.trim()),
        };
        let mut sh = Shell::new(
            self.ws,
            at,
            step.literal_env(),
            cwd,
            action_path.map(Path::to_path_buf),
        );
        sh.script(script);
        self.take(sh.reach);
    }

    fn add(&mut self, rel: &str, kind: &str, by: &str, folder: bool) {
        let path = if folder {
            format!("{}/", rel.trim_end_matches('/'))
        } else {
            rel.to_string()
        };
        let sha256 = (!folder)
            .then(|| {
                crate::workspace::read_contained(
                    &self.ws.root().join(rel),
                    &[&self.root],
                    limits::AGENT_WORKFLOW_BYTES,
                )
                .ok()
            })
            .flatten()
            .map(|b| crate::digest::sha256_hex(&b));
        self.push(RuntimeFile {
            path,
            kind: kind.to_string(),
            by: by.to_string(),
            sha256,
        });
    }

    /// A file or folder to compare, and where it really is when a link on
    /// its way leads elsewhere in the checkout: git compares what is written
    /// under each path, never what a link points to.
    fn push(&mut self, file: RuntimeFile) {
        let real = crate::agent::reach::real_path(self.ws, &self.root, &file.path);
        let mut files = vec![file];
        if let Some(real) = real {
            let mut through = files[0].clone();
            through.by = format!(
                "{} (through a link: `{}`)",
                through.by,
                shown(&files[0].path)
            );
            through.path = real;
            files.push(through);
        }
        for file in files {
            if self.reach.files.iter().any(|f| f.path == file.path) {
                continue;
            }
            if self.reach.files.len() >= limits::REACH_FILES {
                self.unseen(format!(
                    "the agent workflow runs more than {} files of the checkout: the rest are not compared with the base",
                    limits::REACH_FILES
                ));
                return;
            }
            self.reach.files.push(file);
        }
    }

    fn take(&mut self, other: Reach) {
        for f in other.files {
            self.push(f);
        }
        for (_, why) in other.unseen {
            self.unseen(why);
        }
    }
}

/// The runner's folders as a script names them, as paths: the workspace and
/// the action's folder where they are, the others as folders outside the
/// checkout (what an earlier step wrote there is no file of the pull
/// request's, and the steps that wrote it are compared themselves).
pub(super) fn places(line: &str, root: &str, action_path: Option<&str>) -> String {
    let mut out = line.to_string();
    let forms = |name: &str, expr: &str| {
        [
            format!("${{{{ {expr} }}}}"),
            format!("${{{{{expr}}}}}"),
            format!("${{{name}}}"),
            format!("${name}"),
        ]
    };
    let mut places: Vec<(&str, &str, String)> = vec![
        ("GITHUB_WORKSPACE", "github.workspace", root.to_string()),
        ("RUNNER_TEMP", "runner.temp", "/runner/temp".into()),
        (
            "RUNNER_TOOL_CACHE",
            "runner.tool_cache",
            "/runner/tool-cache".into(),
        ),
        ("HOME", "env.HOME", "/runner/home".into()),
    ];
    if let Some(folder) = action_path {
        places.push((
            "GITHUB_ACTION_PATH",
            "github.action_path",
            folder.to_string(),
        ));
    }
    for (name, expr, path) in places {
        for form in forms(name, expr) {
            out = out.replace(&form, &path);
        }
    }
    // The runner's files for a step's outputs, env and summary.
    for name in [
        "GITHUB_OUTPUT",
        "GITHUB_ENV",
        "GITHUB_STEP_SUMMARY",
        "GITHUB_PATH",
        "GITHUB_STATE",
        "GITHUB_EVENT_PATH",
    ] {
        for form in [format!("${{{name}}}"), format!("${name}")] {
            out = out.replace(&form, "/runner/file");
        }
    }
    out
}

/// `defaults.run` of the workflow, overridden by the job's.
#[derive(Clone, Debug, Default)]
struct RunDefaults {
    shell: Option<String>,
    working_directory: Option<String>,
}

impl RunDefaults {
    fn of(defaults: Option<&Node>, outer: Option<&RunDefaults>) -> RunDefaults {
        let run = defaults.and_then(|d| d.get("run"));
        let text = |k: &str| {
            run.and_then(|r| r.get(k))
                .and_then(Node::text)
                .map(str::to_string)
        };
        let outer = outer.cloned().unwrap_or_default();
        RunDefaults {
            shell: text("shell").or(outer.shell),
            working_directory: text("working-directory").or(outer.working_directory),
        }
    }
}

fn job_node<'a>(doc: &'a Node, id: &str) -> Option<&'a Node> {
    doc.get("jobs")?.get(id)
}

fn job_defaults<'a>(doc: &'a Node, id: &str) -> Option<&'a Node> {
    job_node(doc, id)?.get("defaults")
}

/// `runs-on` names a Windows runner, whose default shell is PowerShell.
fn runs_on_windows(doc: &Node, id: &str) -> bool {
    let Some(on) = job_node(doc, id).and_then(|j| j.get("runs-on")) else {
        return false;
    };
    let mut labels: Vec<&str> = on.text().into_iter().collect();
    labels.extend(on.items().iter().filter_map(Node::text));
    labels
        .iter()
        .any(|l| l.to_ascii_lowercase().contains("windows"))
}

/// A local `uses:` (`./path`), as a path relative to the workspace.
fn local(uses: &str) -> Option<String> {
    let rest = uses.trim().strip_prefix("./")?;
    let rest = rest.trim_end_matches('/');
    if rest
        .split('/')
        .any(|c| c == ".." || c == "." || (c.is_empty() && !rest.is_empty()))
        || rest.chars().any(char::is_control)
    {
        return None;
    }
    Some(if rest.is_empty() {
        ".".into()
    } else {
        rest.to_string()
    })
}

/// `bash`, `sh` and their custom forms (`bash -e {0}`): scripts the receipt
/// reads as the shell would.
fn posix_shell(shell: &str) -> bool {
    let first = shell.split_whitespace().next().unwrap_or("");
    let name = first.rsplit('/').next().unwrap_or(first);
    matches!(name, "bash" | "sh" | "dash" | "zsh")
}

#[cfg(test)]
mod tests {
    use super::*;
    use shell::STEP_KIND;

    fn tree(files: &[(&str, &str)]) -> (tempfile::TempDir, Workspace) {
        let dir = tempfile::tempdir().unwrap();
        for (f, text) in files {
            let p = dir.path().join(f);
            std::fs::create_dir_all(p.parent().unwrap()).unwrap();
            std::fs::write(p, text).unwrap();
        }
        let ws = Workspace::open(dir.path()).unwrap();
        (dir, ws)
    }

    const AGENT: &str = ".github/workflows/agent-review.yml";

    fn paths(r: &Reach) -> Vec<(&str, &str)> {
        r.files
            .iter()
            .map(|f| (f.path.as_str(), f.kind.as_str()))
            .collect()
    }

    #[test]
    fn local_actions_and_the_scripts_steps_run_are_reached() {
        let workflow = r#"
name: Agent review
on: pull_request
jobs:
  lint:
    runs-on: ubuntu-latest
    steps:
      - run: ./scripts/lint.sh
      - uses: ./.github/actions/other
  agent:
    runs-on: ubuntu-latest
    env:
      SETUP: scripts/prepare.sh
    steps:
      - uses: actions/checkout@v5
      - uses: ./.github/actions/setup
      - run: |
          # prepare
          bash "$SETUP" --fast \
            --more
          cd tools && ./gen.sh
      - uses: some/lint-action@v1
        with:
          config: .lint/config.yml
          level: strict
      - uses: openai/codex-action@v1
      - uses: prompt-receipt/prompt-receipt/collect@abc
"#;
        let setup = "name: s\nruns:\n  using: composite\n  steps:\n    - run: ${{ github.action_path }}/inner.sh\n      shell: bash\n    - uses: ./.github/actions/deeper\n";
        let (_d, ws) = tree(&[
            (AGENT, workflow),
            (".github/actions/setup/action.yml", setup),
            (".github/actions/setup/inner.sh", "true"),
            (
                ".github/actions/deeper/action.yml",
                "runs:\n  using: node20\n  main: ../../../dist/deeper.js\n",
            ),
            ("dist/deeper.js", "1"),
            (
                ".github/actions/other/action.yml",
                "runs:\n  using: node20\n  main: x.js\n",
            ),
            ("scripts/prepare.sh", "true"),
            ("scripts/lint.sh", "true"),
            ("tools/gen.sh", "true"),
            (".lint/config.yml", "x"),
        ]);
        let r = reach(&ws, AGENT);
        assert!(r.unseen.is_empty(), "{:?}", r.unseen);
        assert_eq!(
            paths(&r),
            [
                ("scripts/lint.sh", STEP_KIND),
                (".github/actions/other/", ACTION_KIND),
                (".github/actions/setup/", ACTION_KIND),
                (".github/actions/setup/inner.sh", STEP_KIND),
                (".github/actions/deeper/", ACTION_KIND),
                ("dist/deeper.js", ACTION_KIND),
                ("scripts/prepare.sh", STEP_KIND),
                ("tools/gen.sh", STEP_KIND),
                (".lint/config.yml", INPUT_KIND),
            ]
        );
        let prepare = r
            .files
            .iter()
            .find(|f| f.path == "scripts/prepare.sh")
            .unwrap();
        assert!(prepare.by.contains("job agent, line 17"), "{prepare:?}");
    }

    #[test]
    fn what_cannot_be_resolved_or_runs_the_checkout_is_not_verified() {
        let workflow = r#"
on: pull_request
jobs:
  agent:
    runs-on: ubuntu-latest
    steps:
      - run: npm ci && npm test
      - run: echo "${{ github.event.pull_request.title }}"
      - run: sh $(cat which)
      - run: print(1)
        shell: python
      - uses: ./
      - uses: ./.github/actions/x/../setup
      - run: pip install -r requirements.txt
      - run: pip install ruff==0.6 && npm --version && echo done
      - uses: actions/github-script@v7
        with:
          script: require("./.github/scripts/prepare.js")
      - uses: openai/codex-action@v1
"#;
        let (_d, ws) = tree(&[
            (AGENT, workflow),
            ("package.json", "{}"),
            ("requirements.txt", "x"),
        ]);
        let r = reach(&ws, AGENT);
        let why: Vec<&str> = r.unseen.iter().map(|(_, w)| w.as_str()).collect();
        for said in [
            "runs `npm ci`",
            "runs `npm test`",
            "puts event text into its script",
            "named by a variable or an expression",
            "with `python`",
            "`uses: ./`",
            "whose path the receipt does not resolve",
            "runs `pip install`",
            "runs the code its inputs hold",
        ] {
            assert!(why.iter().any(|w| w.contains(said)), "{said}: {why:#?}");
        }
        // The manifests are compared all the same.
        assert!(paths(&r).contains(&("package.json", STEP_KIND)));
        assert!(paths(&r).contains(&("requirements.txt", STEP_KIND)));
    }

    #[test]
    fn a_called_workflow_and_defaults_are_followed() {
        let workflow = r#"
on: pull_request
defaults:
  run:
    working-directory: svc
jobs:
  call:
    uses: ./.github/workflows/inner.yml
  agent:
    runs-on: windows-latest
    steps:
      - run: ./x.ps1
      - uses: prompt-receipt/prompt-receipt/collect@abc
"#;
        let inner = "on: workflow_call\njobs:\n  j:\n    runs-on: ubuntu-latest\n    steps:\n      - run: ./build.sh\n        working-directory: lib\n";
        let (_d, ws) = tree(&[
            (AGENT, workflow),
            (".github/workflows/inner.yml", inner),
            ("lib/build.sh", "true"),
        ]);
        let r = reach(&ws, AGENT);
        assert_eq!(
            paths(&r),
            [
                (".github/workflows/inner.yml", CALLED_KIND),
                ("lib/build.sh", STEP_KIND)
            ]
        );
        // Windows runs `run:` steps with PowerShell.
        assert_eq!(r.unseen.len(), 1, "{:?}", r.unseen);
        assert!(r.unseen[0].1.contains("`pwsh`"), "{:?}", r.unseen);
    }

    #[test]
    fn a_linked_folder_is_compared_where_it_points_too() {
        let workflow = "on: pull_request\njobs:\n  agent:\n    runs-on: ubuntu-latest\n    steps:\n      - uses: ./.github/actions/setup\n      - run: ./ci/setup.sh\n";
        let (d, ws) = tree(&[
            (AGENT, workflow),
            (
                "tools/setup-action/action.yml",
                "runs:\n  using: composite\n  steps:\n    - run: ${{ github.action_path }}/setup.sh\n      shell: bash\n",
            ),
            ("tools/setup-action/setup.sh", "true"),
            ("tools/ci/setup.sh", "true"),
        ]);
        std::os::unix::fs::symlink(
            "../../tools/setup-action",
            d.path().join(".github/actions/setup"),
        )
        .unwrap_or_else(|_| {
            std::fs::create_dir_all(d.path().join(".github/actions")).unwrap();
            std::os::unix::fs::symlink(
                "../../tools/setup-action",
                d.path().join(".github/actions/setup"),
            )
            .unwrap();
        });
        std::os::unix::fs::symlink("tools/ci", d.path().join("ci")).unwrap();
        let r = reach(&ws, AGENT);
        let found: Vec<&str> = r.files.iter().map(|f| f.path.as_str()).collect();
        for path in [
            ".github/actions/setup/",
            "tools/setup-action/",
            "ci/setup.sh",
            "tools/ci/setup.sh",
        ] {
            assert!(found.contains(&path), "{path}: {found:?}");
        }
    }

    #[test]
    fn a_missing_workflow_reaches_nothing_and_a_broken_one_is_said() {
        let (_d, ws) = tree(&[(AGENT, "jobs: [unclosed")]);
        assert_eq!(reach(&ws, "none.yml"), Reach::default());
        let r = reach(&ws, AGENT);
        assert_eq!(r.unseen.len(), 1, "{:?}", r.unseen);
        assert!(r.unseen[0].1.contains("not YAML"));
    }

    /// The examples' agent workflows, as a user copies them, pass in the
    /// binding layout: nothing they run is left unverified.
    #[test]
    fn every_example_agent_workflow_is_read_whole() {
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("examples");
        let mut read = 0;
        for example in std::fs::read_dir(&root).unwrap() {
            let folder = example.unwrap().path();
            let ws = Workspace::open(&folder).unwrap();
            let Ok(flows) = std::fs::read_dir(folder.join(".github/workflows")) else {
                continue;
            };
            for flow in flows {
                let name = flow.unwrap().file_name().to_string_lossy().into_owned();
                if name.contains("receipt") || name.contains("compare") {
                    continue;
                }
                let r = reach(&ws, &format!(".github/workflows/{name}"));
                assert!(
                    r.unseen.is_empty(),
                    "{}/{name}: {:#?}",
                    folder.display(),
                    r.unseen
                );
                read += 1;
            }
        }
        assert!(read >= 4, "the four agents' examples at least: {read}");
    }

    #[test]
    fn local_paths_are_plain_or_refused() {
        assert_eq!(
            local("./.github/actions/x/").as_deref(),
            Some(".github/actions/x")
        );
        assert_eq!(local("./"), Some(".".into()));
        for refused in ["./../x", ".//x", "./x/../y", "./x/./y", "owner/repo@v1"] {
            assert_eq!(local(refused), None, "{refused}");
        }
    }
}
