//! Workflow lint: the agent-review failure modes, caught before a run.
//!
//! Reads `.github/workflows/*.yml` and `*.yaml` into a tree that keeps the
//! parser's positions ([`yaml`]), reads inputs as the agents' actions do
//! ([`crate::workflow`]), and applies every rule ([`every_rule`]): those every
//! agent shares, then each registered agent's own, each at the line of the
//! step or input it is about. The rules are in docs/lint.md's tables with
//! their levels.

mod rules;

use std::fs;
use std::path::Path;

use crate::level::Level;
use crate::limits;
use crate::workflow;
use crate::workspace::Workspace;
use crate::yaml;

pub use crate::rule::Rule;
pub use rules::every_rule;

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Lint {
    pub level: Level,
    /// The rule's name, as the README's table gives it.
    pub rule: &'static str,
    pub file: String,
    pub line: u64,
    pub message: String,
}

/// What a local action (`uses: ./path`) is, read from its `action.yml`.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct LocalAction {
    /// `runs.using: docker`: the runner starts it with `docker run`.
    pub container: bool,
    /// Its `name` is prompt-receipt: this repository is prompt-receipt itself.
    pub receipt: bool,
}

/// Lints every workflow of the repository.
pub(crate) fn lint_workflows(ws: &Workspace) -> Vec<Lint> {
    let dir = ws.root().join(".github/workflows");
    let Ok(entries) = fs::read_dir(&dir) else {
        return Vec::new();
    };
    let mut files: Vec<_> = entries
        .flatten()
        .take(limits::FOLDER_ENTRIES)
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|e| e == "yml" || e == "yaml") && p.is_file())
        .collect();
    files.sort();
    let local = memoized(ws);
    let (mut out, mut read) = (Vec::new(), 0u64);
    let mut names = Names::default();
    for (i, path) in files.iter().enumerate() {
        let shown = ws.relative(path);
        let unread = |message: String| Lint {
            level: Level::Warning,
            rule: "yaml",
            file: shown.clone(),
            line: 1,
            message,
        };
        if i >= limits::LINTED_WORKFLOWS || read > limits::LINTED_BYTES {
            out.push(unread(format!(
                "past the lint's {} files or {} MiB of workflows: not linted",
                limits::LINTED_WORKFLOWS,
                limits::LINTED_BYTES >> 20
            )));
            continue;
        }
        // Inside the checkout, a regular file, bounded: `x.yml` may be a
        // link to `/proc/self/environ`, or to a file that never ends.
        match crate::workspace::read_contained(path, &[ws.root()], limits::LINTED_WORKFLOW_BYTES) {
            Ok(bytes) => {
                read += bytes.len() as u64;
                let text = line_breaks(&String::from_utf8_lossy(&bytes));
                out.extend(lint(&shown, &text, &local));
                names.read(&shown, &text, &local);
            }
            Err(why) => {
                // A workflow not read may bear any name: none is judged missing.
                names.unknown = true;
                out.push(unread(not_linted(&why)));
            }
        }
    }
    out.extend(names.lints());
    out
}

/// Every workflow's `name:` (a workflow without one is known by its path),
/// and the names each `workflow_run` receipt workflow waits for: GitHub
/// starts it only when a workflow of one of those names completes.
#[derive(Default)]
struct Names {
    names: Vec<String>,
    /// The names of the workflows that run on a pull request.
    on_pull_requests: Vec<String>,
    /// (file, name waited for, its line) of each receipt workflow.
    waits: Vec<(String, String, u64)>,
    /// Some workflow could not be read: its name is not known.
    unknown: bool,
}

impl Names {
    fn read(&mut self, file: &str, text: &str, local: &dyn Fn(&str) -> Option<LocalAction>) {
        let Ok(Some(doc)) = yaml::parse(text) else {
            self.unknown = true;
            return;
        };
        let name = doc.get("name").and_then(yaml::Node::text).map(str::trim);
        let name = name.filter(|n| !n.is_empty()).unwrap_or(file).to_string();
        let wf = workflow::Workflow::of(&doc);
        if wf.triggers.iter().any(|t| t.starts_with("pull_request")) {
            self.on_pull_requests.push(name.clone());
        }
        self.names.push(name);
        let receipt = wf.jobs.iter().any(|j| {
            rules::receipt_workflow(&j.uses)
                || j.steps.iter().any(|s| rules::kind_of(s, local).receipt)
        });
        let Some(waited) = doc
            .get("on")
            .and_then(|on| on.get("workflow_run"))
            .and_then(|run| run.get("workflows"))
            .filter(|_| receipt)
        else {
            return;
        };
        let listed: Vec<&yaml::Node> = match waited.text() {
            Some(_) => vec![waited],
            None => waited.items().iter().collect(),
        };
        for n in listed {
            if let Some(t) = n.text() {
                self.waits
                    .push((file.to_string(), t.trim().to_string(), n.mark.line));
            }
        }
    }

    fn lints(&self) -> Vec<Lint> {
        if self.unknown {
            return Vec::new();
        }
        let shown =
            |s: &str| crate::escape::one_line(&crate::markdown::clip(s, 80)).replace('`', "'");
        let mut known: Vec<String> = self
            .names
            .iter()
            .map(|n| format!("`{}`", shown(n)))
            .collect();
        known.sort();
        known.dedup();
        known.truncate(10);
        self.waits
            .iter()
            // A pattern is GitHub's to match; only a plain name can be missing.
            .filter(|(_, name, _)| !name.contains(['*', '?', '[']))
            .filter_map(|(file, name, line)| {
                let message = if !self.names.contains(name) {
                    format!(
                        "`workflows:` names `{}`, but no workflow in .github/workflows has that `name:` (they are {}): GitHub starts this receipt only when a workflow of that name completes, so it would never run and a required check would wait forever; make it the agent workflow's `name:`",
                        shown(name),
                        if known.is_empty() { "none".to_string() } else { known.join(", ") }
                    )
                } else if !self.on_pull_requests.contains(name) {
                    format!(
                        "`workflows:` names `{}`, a workflow that does not run on `pull_request`: no pull request's agent run would start this receipt, and a required check would wait forever; name the agent workflow, the one on `pull_request`",
                        shown(name)
                    )
                } else {
                    return None;
                };
                Some(Lint {
                    level: Level::Failure,
                    rule: "receipt-workflow-name",
                    file: file.clone(),
                    line: *line,
                    message,
                })
            })
            .collect()
    }
}

/// What each local action is, read once per path however many steps use it.
fn memoized(ws: &Workspace) -> impl Fn(&str) -> Option<LocalAction> + '_ {
    let known =
        std::cell::RefCell::new(std::collections::HashMap::<String, Option<LocalAction>>::new());
    move |path: &str| {
        if let Some(action) = known.borrow().get(path) {
            return action.clone();
        }
        let action = local_action(ws, path);
        known.borrow_mut().insert(path.to_string(), action.clone());
        action
    }
}

/// Why a workflow file was not read, for its lint.
fn not_linted(why: &crate::workspace::Unread) -> String {
    use crate::workspace::Unread;
    match why {
        Unread::TooLarge(max) => format!("over {} MiB: not linted", max >> 20),
        Unread::Outside(real) => format!(
            "resolves to `{}`, outside the checkout: not linted",
            crate::escape::one_line(&real.display().to_string())
        ),
        Unread::NotRegular => "not a regular file: not linted".into(),
        Unread::Missing => "vanished while read: not linted".into(),
        Unread::Io(e) => format!("cannot be read ({e}): not linted"),
    }
}

/// Reads `./path`'s `action.yml` (or `action.yaml`) inside the workspace.
fn local_action(ws: &Workspace, path: &str) -> Option<LocalAction> {
    let dir = ws.resolve("uses", path).ok()?.path;
    let text = ["action.yml", "action.yaml"].iter().find_map(|name| {
        let path = Path::new(&dir).join(name);
        crate::workspace::read_contained(&path, &[ws.root()], limits::LINTED_ACTION_BYTES).ok()
    })?;
    let doc = yaml::parse(&String::from_utf8_lossy(&text)).ok()??;
    let using = doc
        .get("runs")
        .and_then(|r| r.get("using"))
        .and_then(yaml::Node::text);
    Some(LocalAction {
        container: using.is_some_and(|u| u.trim().eq_ignore_ascii_case("docker")),
        receipt: doc.get("name").and_then(yaml::Node::text).map(str::trim)
            == Some("prompt-receipt"),
    })
}

/// Every step of the jobs `job` needs, directly or through others: in the
/// two-job layout the agent runs in a job the receipt job needs.
fn upstream_steps<'w, 'a>(
    jobs: &std::collections::HashMap<&str, &'w workflow::Job<'a>>,
    job: &workflow::Job<'a>,
) -> Vec<&'w workflow::Step<'a>> {
    let mut seen = std::collections::HashSet::new();
    let mut todo: Vec<&str> = job.needs.iter().map(String::as_str).collect();
    let mut steps = Vec::new();
    while let Some(id) = todo.pop() {
        if id == job.id || !seen.insert(id) {
            continue;
        }
        if let Some(j) = jobs.get(id) {
            steps.extend(j.steps.iter());
            todo.extend(j.needs.iter().map(String::as_str));
        }
    }
    steps
}

/// Lints one workflow's text. `file` names it in the results; `local` says
/// what a `uses: ./path` action is, when the repository can tell.
pub fn lint(file: &str, text: &str, local: &dyn Fn(&str) -> Option<LocalAction>) -> Vec<Lint> {
    // YAML counts a lone CR as a line break, and YAML 1.1 (GitHub's parser)
    // also NEL, LS and PS; so do we, or lines would disagree with the editor.
    let text = line_breaks(text);
    let doc = match yaml::parse(&text) {
        Ok(Some(doc)) => doc,
        Ok(None) => return Vec::new(),
        Err(invalid) => {
            return vec![Lint {
                level: Level::Failure,
                rule: "yaml",
                file: file.into(),
                line: invalid.line,
                message: invalid.message,
            }];
        }
    };
    let workflow = workflow::Workflow::of(&doc);
    let mut out = Vec::new();
    if workflow.jobs.len() > limits::LINTED_JOBS {
        return vec![Lint {
            level: Level::Warning,
            rule: "yaml",
            file: file.into(),
            line: 1,
            message: format!(
                "{} jobs, more than the {} the lint reads in one workflow: not linted",
                workflow.jobs.len(),
                limits::LINTED_JOBS
            ),
        }];
    }
    let jobs = workflow.jobs.iter().map(|j| (j.id.as_str(), j)).collect();
    let receipt_here = rules::receipt_here(&workflow.jobs, local);
    for job in &workflow.jobs {
        let upstream = upstream_steps(&jobs, job);
        if upstream.len() + job.steps.len() > limits::LINTED_STEPS {
            out.push(Lint {
                level: Level::Warning,
                rule: "yaml",
                file: file.into(),
                line: 1,
                message: format!(
                    "job `{}` and the jobs it needs hold more than {} steps: not linted",
                    crate::escape::one_line(&job.id),
                    limits::LINTED_STEPS
                ),
            });
            continue;
        }
        for finding in rules::check(job, &upstream, &workflow.triggers, local, receipt_here) {
            out.push(Lint {
                level: finding.level,
                rule: finding.rule,
                file: file.into(),
                line: finding.line,
                message: finding.message,
            });
        }
    }
    out
}

/// Where the workflow file `file` records a receipt before its agent runs
/// (the line of that step), when it does.
pub(crate) fn records_before_agent(ws: &Workspace, file: &str) -> Option<u64> {
    let path = ws.resolve("workflow", file).ok()?.path;
    let bytes =
        crate::workspace::read_contained(&path, &[ws.root()], limits::LINTED_WORKFLOW_BYTES)
            .ok()?;
    let text = line_breaks(&String::from_utf8_lossy(&bytes));
    let doc = yaml::parse(&text).ok()??;
    let local = memoized(ws);
    workflow::Workflow::of(&doc)
        .jobs
        .iter()
        .find_map(|job| rules::records_before_agent(job, &local))
}

/// Every line break YAML 1.1 knows (CRLF, CR, NEL, LS, PS) becomes LF, so the
/// parser's line numbers and an editor's agree.
pub fn line_breaks(text: &str) -> String {
    text.replace("\r\n", "\n")
        .replace(['\r', '\u{85}', '\u{2028}', '\u{2029}'], "\n")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lines_of(text: &str) -> Vec<(u64, Level, &'static str)> {
        lint("w.yml", text, &|_| None)
            .into_iter()
            .map(|l| (l.line, l.level, l.rule))
            .collect()
    }

    #[test]
    fn a_clean_workflow_is_silent() {
        let text =
            include_str!("../../examples/agent-review/.github/workflows/compare-prompts.yml");
        assert_eq!(lint("w.yml", text, &|_| None), vec![]);
        // The one-workflow example on `pull_request`: clean but for its
        // layout, said once, at the receipt step that reports (the step
        // that records before the agent is left alone).
        let text = include_str!("../../examples/advisory/.github/workflows/agent-review.yml");
        let rules: Vec<_> = lint("w.yml", text, &|_| None)
            .into_iter()
            .map(|l| (l.rule, l.level))
            .collect();
        assert_eq!(rules, vec![("receipt-advisory-layout", Level::Warning)]);
        // The binding layout's agent workflow: silent.
        let text = include_str!("../../examples/agent-review/.github/workflows/agent-review.yml");
        assert_eq!(lint("w.yml", text, &|_| None), vec![]);
    }

    #[test]
    fn lone_carriage_returns_and_yaml_1_1_breaks_are_lines() {
        // The same workflow, its lines ended by CR, then by NEL, LS or PS: the
        // findings are on lines 4 and 6 either way (found by the workflow_lint
        // fuzz target).
        let lines = [
            "jobs:",
            "  r:",
            "    steps:",
            "      - uses: actions/checkout@v5",
            "        with:",
            "          fetch-depth: 1",
            "      - uses: example/skeleton-action@v1",
            "",
        ];
        for sep in ["\n", "\r", "\u{85}", "\u{2028}", "\u{2029}"] {
            assert_eq!(
                lines_of(&lines.join(sep)),
                vec![
                    (4, Level::Notice, "checkout-credentials"),
                    (6, Level::Warning, "shallow-checkout")
                ],
                "{sep:?}"
            );
        }
    }

    #[test]
    fn malformed_yaml_is_located() {
        let l = lint("w.yml", "jobs:\n  a:\n    steps: [\n", &|_| None);
        assert_eq!(l.len(), 1);
        assert!(
            l[0].message.starts_with("not valid YAML"),
            "{}",
            l[0].message
        );
        assert!(l[0].line >= 3);
    }

    #[test]
    fn every_rule_once_with_what_it_catches() {
        let all = every_rule();
        let mut names: Vec<&str> = all.iter().map(|r| r.name).collect();
        names.sort_unstable();
        names.dedup();
        assert_eq!(names.len(), all.len(), "a rule named twice");
        assert!(all.iter().all(|r| !r.catches.is_empty()));
        assert_eq!(all[0].name, "yaml");
    }
}
