//! The agent workflow's reach: the repository files its steps run besides the
//! agent, compared with the base like the workflow file itself.
//!
//! A pull request that edits the agent workflow is named, and fails. But a
//! step of an unchanged workflow can run files the pull request does change:
//! a local action (`uses: ./.github/actions/setup`), a script a `run:` step
//! calls, the manifest whose task it runs (`npm ci` runs package.json's
//! scripts). Any of them runs in the agent's job, before the upload, and can
//! rewrite the review and the agent's record: a genuine `not ok` becomes a
//! clean run, signed. So each such file is found here, as the runtime reach
//! finds what a hook runs ([`Finder`]), and compared with the base; what
//! cannot be resolved (a command substitution, a path in a variable, a shell
//! the receipt cannot read, text from the event, a step that runs the
//! checkout's own code) is not verified, which the binding layout fails.
//!
//! Every job's local actions count (a local action gets the job's runtime
//! token, and can upload the agent's artifact); `run:` steps count in the
//! jobs that run the agent or collect its record, where they share its files.

use std::collections::HashSet;
use std::path::{Path, PathBuf};

use crate::agent::reach::{Finder, MAX_FILES, Reach, RuntimeFile};
use crate::workflow::{Step, Workflow};
use crate::workspace::{Unread, Workspace};
use crate::yaml::Node;

/// The most bytes of the agent workflow, a local action's `action.yml` or a
/// local reusable workflow read: GitHub's own workflow files are far smaller.
pub(crate) const MAX_FILE_BYTES: u64 = 1 << 20;
/// How deep local actions and local reusable workflows are followed, and how
/// many are read in all.
const MAX_DEPTH: usize = 8;
const MAX_FOLLOWED: usize = 64;
/// The most `run:` steps resolved, and the most lines of one script.
const MAX_RUN_STEPS: usize = 500;
const MAX_SCRIPT_LINES: usize = 2_000;

/// What a step that runs files is to the agent, in the comparison's tables.
const STEP_KIND: &str = "agent workflow step";
const ACTION_KIND: &str = "local action of the agent workflow";
const CALLED_KIND: &str = "workflow the agent workflow calls";

/// Commands that run the checkout's own code as a whole: its tests, its build
/// scripts, its dependencies' install scripts. A manifest compared with the
/// base does not cover what they load, so in the agent's job they are not
/// verified. (`npm --version` and the like run nothing of the checkout.)
const RUNS_THE_CHECKOUT: &[(&str, &[&str])] = &[
    (
        "npm",
        &[
            "ci",
            "install",
            "i",
            "test",
            "t",
            "run",
            "run-script",
            "start",
            "exec",
            "rebuild",
        ],
    ),
    (
        "pnpm",
        &["install", "i", "test", "run", "start", "exec", "dlx"],
    ),
    (
        "yarn",
        &["", "install", "test", "run", "start", "exec", "dlx"],
    ),
    ("bun", &["install", "i", "test", "run", "x"]),
    ("npx", &["*"]),
    ("make", &["*"]),
    ("just", &["*"]),
    (
        "cargo",
        &[
            "build", "test", "run", "check", "clippy", "bench", "install",
        ],
    ),
    ("go", &["build", "test", "run", "generate", "vet"]),
    ("pytest", &["*"]),
    ("tox", &["*"]),
    ("nox", &["*"]),
    ("mvn", &["*"]),
    ("gradle", &["*"]),
    ("gradlew", &["*"]),
    ("dotnet", &["build", "test", "run"]),
    ("bundle", &["install", "exec"]),
    ("rake", &["*"]),
    ("poetry", &["install", "run"]),
    ("uv", &["run", "sync", "pip"]),
    ("pip", &["install"]),
    ("pip3", &["install"]),
    ("composer", &["install", "run", "run-script"]),
];

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
    walk.workflow(path, 0, true);
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
    fn unseen(&mut self, what: &str, why: String) {
        let item = (what.to_string(), why);
        if !self.reach.unseen.contains(&item) && self.reach.unseen.len() < MAX_FILES {
            self.reach.unseen.push(item);
        }
    }

    /// One file this walk must read (the workflow, a local action's metadata):
    /// `None` when it is not there; said when it is there but cannot be read.
    fn read(&mut self, rel: &str, what: &str) -> Option<Node> {
        let path = self.ws.root().join(rel);
        let bytes = match crate::workspace::read_contained(&path, &[&self.root], MAX_FILE_BYTES) {
            Ok(b) => b,
            Err(Unread::Missing) => return None,
            Err(why) => {
                self.unseen(
                    "what the agent workflow runs",
                    format!(
                        "{}: what {what} runs is not compared with the base",
                        why.why(rel)
                    ),
                );
                return None;
            }
        };
        let parsed = std::str::from_utf8(&bytes)
            .ok()
            .and_then(|t| crate::yaml::parse(t).ok().flatten());
        if parsed.is_none() {
            self.unseen(
                "what the agent workflow runs",
                format!(
                    "`{}` is not YAML the receipt can read: what {what} runs is not compared with the base",
                    shown(rel)
                ),
            );
        }
        parsed
    }

    /// A workflow file: each job's local actions, and the `run:` steps of the
    /// jobs that run the agent (`agent_jobs`: the workflow the event names;
    /// a called workflow's jobs are all taken as the agent's).
    fn workflow(&mut self, rel: &str, depth: usize, top: bool) {
        let Some(doc) = self.read(rel, &format!("`{}`", shown(rel))) else {
            return;
        };
        let wf = Workflow::of(&doc);
        let defaults = RunDefaults::of(doc.get("defaults"), None);
        let agent_jobs: Vec<bool> = wf.jobs.iter().map(runs_the_agent).collect();
        let any = agent_jobs.iter().any(|a| *a);
        for (job, is_agent) in wf.jobs.iter().zip(agent_jobs) {
            let by = format!("{}, job {}", shown(rel), shown(&job.id));
            if let Some(called) = local(&job.uses) {
                self.called_workflow(&called, &by, depth);
                continue;
            }
            // Without a job that names the agent, every job is taken for its.
            let run_steps = is_agent || !any || !top;
            let defaults = RunDefaults::of(job_defaults(&doc, &job.id), Some(&defaults));
            let windows = runs_on_windows(&doc, &job.id);
            for step in &job.steps {
                if let Some(action) = local(&step.uses) {
                    self.local_action(&action, &by, depth);
                } else if run_steps {
                    self.run_step(step, &by, &defaults, windows, None);
                }
            }
        }
    }

    /// `uses: ./.github/workflows/x.yml` at a job's level: the file, and what
    /// its jobs run.
    fn called_workflow(&mut self, rel: &str, by: &str, depth: usize) {
        self.add(rel, CALLED_KIND, by, false);
        if self.follow(rel, depth) {
            self.workflow(rel, depth + 1, false);
        }
    }

    /// `uses: ./path`: the action's folder as a whole, and for a composite
    /// action what its steps run.
    fn local_action(&mut self, rel: &str, by: &str, depth: usize) {
        if rel == "." {
            self.unseen(
                "what the agent workflow runs",
                format!(
                    "`{by}` uses the action at the checkout's root (`uses: ./`), which can load any file of the pull request: what it runs is not compared with the base"
                ),
            );
            return;
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
        let runs = doc.get("runs");
        let using = runs.and_then(|r| r.get("using")).and_then(Node::text);
        if using.map(str::trim) != Some("composite") {
            return; // node and docker actions run files of their folder
        }
        let by = format!("the local action {}", shown(rel));
        let steps = runs
            .and_then(|r| r.get("steps"))
            .map(Node::items)
            .unwrap_or_default();
        for node in steps {
            let uses = node.get("uses").and_then(Node::text).unwrap_or("").trim();
            if let Some(action) = local(uses) {
                self.local_action(&action, &by, depth + 1);
            } else if node.get("run").is_some() {
                let step = Step::lone(node);
                let folder = self.ws.root().join(rel);
                self.run_step(&step, &by, &RunDefaults::default(), false, Some(&folder));
            }
        }
    }

    /// Whether to read a local action or workflow: within the depth, not read
    /// before, and not past the bound (said once).
    fn follow(&mut self, rel: &str, depth: usize) -> bool {
        if depth >= MAX_DEPTH || self.followed.len() >= MAX_FOLLOWED {
            self.unseen(
                "what the agent workflow runs",
                format!(
                    "the agent workflow's local actions and called workflows nest more than {MAX_DEPTH} deep or number more than {MAX_FOLLOWED}: `{}` and what it runs are compared as a folder only",
                    shown(rel)
                ),
            );
            return false;
        }
        self.followed.insert(rel.to_string())
    }

    /// A `run:` step: the files its script runs, from its working directory.
    /// `action_path`: the folder of the composite action it belongs to.
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
        if self.run_steps > MAX_RUN_STEPS {
            if self.run_steps == MAX_RUN_STEPS + 1 {
                self.unseen(
                    "what the agent workflow runs",
                    format!("the agent workflow has more than {MAX_RUN_STEPS} `run:` steps: the rest are not compared with the base"),
                );
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
            self.unseen(
                "what the agent workflow runs",
                format!(
                    "a `run:` step in `{at}` runs its script with `{}`, which the receipt does not read: what it runs is not compared with the base",
                    shown(&shell)
                ),
            );
            return;
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
                self.unseen(
                    "what the agent workflow runs",
                    format!(
                        "a `run:` step in `{at}` starts in `{}`, known only when the workflow runs: what it runs is not compared with the base",
                        shown(&d)
                    ),
                );
                return;
            }
            Some(d) => self.ws.root().join(d.trim()),
        };
        self.script(script, &cwd, &at, action_path);
    }

    /// Each command of a script, resolved from where it runs; `cd DIR` moves
    /// the commands after it.
    fn script(&mut self, script: &str, cwd: &Path, at: &str, action_path: Option<&Path>) {
        if let Some(why) = event_text(script) {
            self.unseen(
                "what the agent workflow runs",
                format!("a `run:` step in `{at}` {why}: the pull request can choose what it runs"),
            );
        }
        let root = self.ws.root().to_string_lossy().into_owned();
        let folder = action_path.map(|f| f.to_string_lossy().into_owned());
        let mut cwd = cwd.to_path_buf();
        for line in logical_lines(script).into_iter().take(MAX_SCRIPT_LINES) {
            let line = places(&line, &root, folder.as_deref());
            for command in commands(&line) {
                if let Some(dir) = change_directory(&command) {
                    cwd = cwd.join(dir);
                    continue;
                }
                if let Some(runner) = runs_the_checkout(&command) {
                    self.unseen(
                        "what the agent workflow runs",
                        format!(
                            "a `run:` step in `{at}` runs `{}`, which runs the pull request's own code (its tests, build scripts or dependencies' install scripts) in the agent's job: it can rewrite the review and the record before they are uploaded. Run it in another job",
                            shown(&runner)
                        ),
                    );
                }
                let mut f = Finder::for_steps(self.ws, &cwd);
                f.command(&command, STEP_KIND, at, &[]);
                self.take(f.reach);
            }
        }
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
                    MAX_FILE_BYTES,
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

    fn push(&mut self, file: RuntimeFile) {
        if self.reach.files.iter().any(|f| f.path == file.path) {
            return;
        }
        if self.reach.files.len() >= MAX_FILES {
            self.unseen(
                "what the agent workflow runs",
                format!("the agent workflow runs more than {MAX_FILES} files of the checkout: the rest are not compared with the base"),
            );
            return;
        }
        self.reach.files.push(file);
    }

    fn take(&mut self, other: Reach) {
        for f in other.files {
            self.push(f);
        }
        for (what, why) in other.unseen {
            self.unseen(&what, why);
        }
    }
}

/// The runner's folders as a script names them, as paths: the workspace and
/// the action's folder where they are, the others as folders outside the
/// checkout (what an earlier step wrote there is no file of the pull
/// request's, and the steps that wrote it are compared themselves).
fn places(line: &str, root: &str, action_path: Option<&str>) -> String {
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

/// A job that runs an agent, or prompt-receipt's collect step: its `run:`
/// steps share the agent's files.
fn runs_the_agent(job: &crate::workflow::Job) -> bool {
    job.steps.iter().any(|s| {
        let action = s.action().to_ascii_lowercase();
        action.ends_with("prompt-receipt/collect")
            || crate::agent::registry::running(|a| match a.strip_prefix("npm:") {
                Some(package) => s.npm_install(package).is_some(),
                None => s.is(a),
            })
            .is_some()
    })
}

/// A local `uses:` (`./path`), as a path relative to the workspace.
fn local(uses: &str) -> Option<String> {
    let rest = uses.trim().strip_prefix("./")?;
    let rest = rest.trim_end_matches('/');
    if rest.split('/').any(|c| c == "..") || rest.chars().any(char::is_control) {
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

/// A script's lines, with `\`-continued lines joined and comments dropped.
fn logical_lines(script: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut current = String::new();
    for line in script.lines() {
        let trimmed = line.trim_start();
        if current.is_empty() && trimmed.starts_with('#') {
            continue;
        }
        match trimmed.strip_suffix('\\') {
            Some(head) => {
                current.push_str(head);
                current.push(' ');
            }
            None => {
                current.push_str(trimmed);
                out.push(std::mem::take(&mut current));
            }
        }
    }
    if !current.is_empty() {
        out.push(current);
    }
    out
}

/// The commands of one line, split at the shell's separators (`;`, `&&`,
/// `||`, `|`); quotes are kept together.
fn commands(line: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut current = String::new();
    let mut quote: Option<char> = None;
    let mut chars = line.chars().peekable();
    while let Some(c) = chars.next() {
        match (quote, c) {
            (Some(q), c) if c == q => {
                quote = None;
                current.push(c);
            }
            (Some(_), c) => current.push(c),
            (None, '\'' | '"') => {
                quote = Some(c);
                current.push(c);
            }
            (None, ';' | '|' | '&') => {
                if chars.peek().is_some_and(|n| *n == c) {
                    chars.next();
                }
                out.push(std::mem::take(&mut current));
            }
            (None, c) => current.push(c),
        }
    }
    out.push(current);
    out.into_iter()
        .map(|c| c.trim().to_string())
        .filter(|c| !c.is_empty())
        .collect()
}

/// `cd DIR` or `pushd DIR` with a literal folder: where the next commands run.
fn change_directory(command: &str) -> Option<String> {
    let words = shlex::split(command)?;
    match words.as_slice() {
        [cmd, dir]
            if (cmd == "cd" || cmd == "pushd") && !dir.contains('$') && !dir.starts_with('~') =>
        {
            Some(dir.clone())
        }
        _ => None,
    }
}

/// The command (`npm test`), when it runs the checkout's own code as a whole.
fn runs_the_checkout(command: &str) -> Option<String> {
    let words = shlex::split(command)?;
    let mut words = words.iter().skip_while(|w| is_assignment(w));
    let program = words.next()?;
    let name = program.rsplit('/').next().unwrap_or(program);
    let (_, subs) = RUNS_THE_CHECKOUT.iter().find(|(p, _)| *p == name)?;
    let sub = words
        .find(|w| !w.starts_with('-'))
        .map_or("", String::as_str);
    if name == "pip" || name == "pip3" || (name == "uv" && sub == "pip") {
        // `pip install pkg==1.0` installs from an index; `pip install .`,
        // `-e .` or `-r file` install what the checkout names.
        let installs_checkout = command.split_whitespace().any(|w| {
            w == "." || w.starts_with("./") || w == "-e" || w == "-r" || w.ends_with(".txt")
        });
        return installs_checkout.then(|| format!("{name} install"));
    }
    (subs.contains(&"*") || subs.contains(&sub)).then(|| {
        if sub.is_empty() {
            name.to_string()
        } else {
            format!("{name} {sub}")
        }
    })
}

fn is_assignment(word: &str) -> bool {
    word.split_once('=').is_some_and(|(name, _)| {
        !name.is_empty() && name.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_')
    })
}

/// Event text a script interpolates, which the pull request's author writes
/// (its title, its branch's name, a comment): the shell runs it.
fn event_text(script: &str) -> Option<&'static str> {
    let mut rest = script;
    while let Some(i) = rest.find("${{") {
        let expr = &rest[i + 3..];
        let end = expr.find("}}").unwrap_or(expr.len());
        let inner = expr[..end].trim();
        if inner.contains("github.event.") || inner.contains("github.head_ref") {
            return Some(
                "puts event text into its script (`${{ github.event... }}`), which the shell runs as written",
            );
        }
        rest = &expr[end..];
    }
    None
}

/// Untrusted text for a sentence: one line, clipped, no backticks.
fn shown(text: &str) -> String {
    crate::escape::one_line(&crate::markdown::clip(text, 120)).replace('`', "'")
}

#[cfg(test)]
mod tests {
    use super::*;

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
    steps:
      - uses: actions/checkout@v5
      - uses: ./.github/actions/setup
      - run: |
          # prepare
          bash scripts/prepare.sh --fast \
            --more
          cd tools && ./gen.sh
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
                "runs:\n  using: node20\n  main: x.js\n",
            ),
            (
                ".github/actions/other/action.yml",
                "runs:\n  using: node20\n  main: x.js\n",
            ),
            ("scripts/prepare.sh", "true"),
            ("scripts/lint.sh", "true"),
            ("tools/gen.sh", "true"),
        ]);
        let r = reach(&ws, AGENT);
        assert!(r.unseen.is_empty(), "{:?}", r.unseen);
        assert_eq!(
            paths(&r),
            [
                (".github/actions/other/", ACTION_KIND),
                (".github/actions/setup/", ACTION_KIND),
                (".github/actions/setup/inner.sh", STEP_KIND),
                (".github/actions/deeper/", ACTION_KIND),
                ("scripts/prepare.sh", STEP_KIND),
                ("tools/gen.sh", STEP_KIND),
            ]
        );
        // The lint job's run step shares no files with the agent.
        assert!(!paths(&r).iter().any(|(p, _)| *p == "scripts/lint.sh"));
        assert!(
            r.files[4].by.contains("job agent, line 15"),
            "{:?}",
            r.files[4]
        );
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
      - run: pip install -r requirements.txt
      - run: pip install ruff==0.6 && npm --version && echo done
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
            "command substitution",
            "with `python`",
            "`uses: ./`",
            "runs `pip install`",
        ] {
            assert!(why.iter().any(|w| w.contains(said)), "{said}: {why:#?}");
        }
        assert_eq!(why.len(), 7, "{why:#?}");
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
    fn a_missing_workflow_reaches_nothing_and_a_broken_one_is_said() {
        let (_d, ws) = tree(&[(AGENT, "jobs: [unclosed")]);
        assert_eq!(reach(&ws, "none.yml"), Reach::default());
        let r = reach(&ws, AGENT);
        assert_eq!(r.unseen.len(), 1, "{:?}", r.unseen);
        assert!(r.unseen[0].1.contains("not YAML"));
    }

    #[test]
    fn commands_split_as_the_shell_splits_them() {
        assert_eq!(
            commands("a 'x;y' && b | c; d || e &"),
            ["a 'x;y'", "b", "c", "d", "e"]
        );
        assert_eq!(change_directory("cd sub/dir").as_deref(), Some("sub/dir"));
        assert_eq!(change_directory("cd $X"), None);
        assert_eq!(runs_the_checkout("CI=1 npm ci").as_deref(), Some("npm ci"));
        assert_eq!(runs_the_checkout("npm --version"), None);
        assert_eq!(runs_the_checkout("yarn").as_deref(), Some("yarn"));
        assert_eq!(runs_the_checkout("go version"), None);
        assert_eq!(
            local("./.github/actions/x/").as_deref(),
            Some(".github/actions/x")
        );
        assert_eq!(local("./"), Some(".".into()));
        assert_eq!(local("./../x"), None);
        assert_eq!(local("owner/repo@v1"), None);
    }
}
