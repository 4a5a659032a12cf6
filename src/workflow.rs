//! A workflow as the runner and codex-action read it: jobs, their steps, and
//! each step's inputs as values that are absent, literal, or unknown until the
//! run (an expression). The lint reads it, and so does the agent workflow's
//! reach (what its steps run, compared with the base).
//!
//! codex-action treats an empty input as not given, so empty is absent here
//! too. `${{ env.X }}` is resolved when `X` is a literal in the step's, the
//! job's or the workflow's `env` (in that order of precedence); any other
//! expression is unknown, and a rule that meets one says so at most as a
//! notice. `${{ github.workspace }}` at the start of a path is the workspace.

use crate::yaml::{Mark, Node};

/// What a step's input will be when the step runs.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum Input {
    /// Not given, null, or empty (whitespace only).
    Absent,
    /// A value known now, trimmed. `from_env` names the variable it came from.
    Literal {
        value: String,
        from_env: Option<String>,
    },
    /// Known only when the workflow runs.
    Expression(String),
}

impl Input {
    pub(crate) fn literal(&self) -> Option<&str> {
        match self {
            Input::Literal { value, .. } => Some(value),
            _ => None,
        }
    }

    pub(crate) fn is_absent(&self) -> bool {
        *self == Input::Absent
    }
}

/// `env:` of the workflow, a job or a step: name, and the value when literal.
type Env = Vec<(String, Option<String>)>;

fn env_of(node: Option<&Node>) -> Env {
    node.map(|n| {
        n.entries()
            .iter()
            .filter_map(|(k, v)| {
                let value = v.text().filter(|t| !t.contains("${{")).map(str::to_string);
                Some((k.text()?.to_string(), value))
            })
            .collect()
    })
    .unwrap_or_default()
}

pub(crate) struct Workflow<'a> {
    /// The events under `on:` (a name, a list of names, or a mapping's keys).
    pub(crate) triggers: Vec<String>,
    pub(crate) jobs: Vec<Job<'a>>,
}

pub(crate) struct Job<'a> {
    pub(crate) id: String,
    /// A reusable workflow the job calls (`uses:` at the job's level), as
    /// written, trimmed; empty for a job of steps.
    pub(crate) uses: String,
    /// Where that `uses:` is written, else where the job is.
    pub(crate) uses_line: u64,
    /// The jobs it `needs:` (a name, or a list of names).
    pub(crate) needs: Vec<String>,
    pub(crate) steps: Vec<Step<'a>>,
}

pub(crate) struct Step<'a> {
    pub(crate) node: &'a Node,
    /// The step's position: where its mapping starts (its `- ` line).
    pub(crate) mark: Mark,
    /// `uses:` as written, trimmed; empty for a `run:` step.
    pub(crate) uses: String,
    /// The step's, then the job's, then the workflow's env.
    env: [Env; 3],
}

impl<'a> Workflow<'a> {
    pub(crate) fn of(doc: &'a Node) -> Workflow<'a> {
        let workflow_env = env_of(doc.get("env"));
        let jobs = doc
            .get("jobs")
            .map(|jobs| {
                jobs.entries()
                    .iter()
                    .map(|(id, job)| {
                        let job_env = env_of(job.get("env"));
                        let steps = job
                            .get("steps")
                            .map(|s| s.items())
                            .unwrap_or_default()
                            .iter()
                            .filter(|n| !n.entries().is_empty())
                            .map(|node| Step::of(node, job_env.clone(), workflow_env.clone()))
                            .collect();
                        let needs = match job.get("needs") {
                            Some(n) if n.text().is_some() => {
                                n.text().into_iter().map(str::to_string).collect()
                            }
                            Some(n) => n
                                .items()
                                .iter()
                                .filter_map(|i| i.text().map(str::to_string))
                                .collect(),
                            None => Vec::new(),
                        };
                        Job {
                            id: id.text().unwrap_or("").to_string(),
                            uses_line: job.entry("uses").map_or(id.mark.line, |(k, _)| k.mark.line),
                            uses: job
                                .get("uses")
                                .and_then(Node::text)
                                .unwrap_or("")
                                .trim()
                                .to_string(),
                            needs,
                            steps,
                        }
                    })
                    .collect()
            })
            .unwrap_or_default();
        Workflow {
            triggers: triggers(doc.get("on")),
            jobs,
        }
    }
}

/// `on: pull_request`, `on: [push, pull_request]`, `on: { pull_request: ... }`.
fn triggers(on: Option<&Node>) -> Vec<String> {
    let Some(on) = on else {
        return Vec::new();
    };
    let names: Vec<&str> = match on.text() {
        Some(one) => vec![one],
        None if !on.items().is_empty() => on.items().iter().filter_map(Node::text).collect(),
        None => on.entries().iter().filter_map(|(k, _)| k.text()).collect(),
    };
    names.iter().map(|n| n.trim().to_string()).collect()
}

impl<'a> Step<'a> {
    /// A step of a job whose env is `job_env`, in a workflow whose env is
    /// `workflow_env`.
    fn of(node: &'a Node, job_env: Env, workflow_env: Env) -> Step<'a> {
        Step {
            node,
            mark: node.mark,
            uses: node
                .get("uses")
                .and_then(Node::text)
                .unwrap_or("")
                .trim()
                .to_string(),
            env: [env_of(node.get("env")), job_env, workflow_env],
        }
    }

    /// A step read on its own (a composite action's), with no env around it.
    pub(crate) fn lone(node: &'a Node) -> Step<'a> {
        Step::of(node, Vec::new(), Vec::new())
    }
}

impl Step<'_> {
    /// The action's name without its ref, `owner/repo[/path]`, or `./path`.
    pub(crate) fn action(&self) -> &str {
        self.uses
            .split('@')
            .next()
            .unwrap_or("")
            .trim_end_matches('/')
    }

    /// Whether this step uses `action` (`owner/repo`), at any ref.
    pub(crate) fn is(&self, action: &str) -> bool {
        self.action().eq_ignore_ascii_case(action)
    }

    /// Whether this `run:` step installs npm package `package` (`npm install
    /// [...] package[@version]`, `npm i`, `npx`): how an agent without an
    /// action of its own (Copilot CLI) is run. The version installed, if any.
    pub(crate) fn npm_install(&self, package: &str) -> Option<Option<String>> {
        let run = self.node.get("run")?.text()?;
        run.lines()
            .filter(|l| {
                let l = l.trim_start();
                l.starts_with("npm ") || l.starts_with("npx ") || l.contains(" npm ")
            })
            .flat_map(str::split_whitespace)
            .map(|w| w.trim_matches(|c| c == '"' || c == '\''))
            .find_map(|w| {
                let rest = w.strip_prefix(package)?;
                match rest.strip_prefix('@') {
                    Some(v) => Some(Some(v.to_string())),
                    None => rest.is_empty().then_some(None),
                }
            })
    }

    /// Every variable the step's, job's and workflow's env set as a literal,
    /// the nearest first, each name once: what a `run:` script may expand.
    pub(crate) fn literal_env(&self) -> Vec<(String, String)> {
        let mut out: Vec<(String, String)> = Vec::new();
        let mut named: Vec<&str> = Vec::new();
        for env in &self.env {
            for (k, v) in env.iter().rev() {
                if named.contains(&k.as_str()) {
                    continue;
                }
                named.push(k);
                if let Some(v) = v {
                    out.push((k.clone(), v.clone()));
                }
            }
        }
        out
    }

    /// The value of variable `name` in the step's, job's or workflow's env
    /// (`Some(None)` when an expression sets it).
    pub(crate) fn env_var(&self, name: &str) -> Option<Option<&str>> {
        self.env_value(name)
    }

    /// The `with:` entry `key`, and where its key is.
    fn with(&self, key: &str) -> Option<(&Node, &Node)> {
        self.node.get("with")?.entry(key)
    }

    /// Where input `key` is written, else where the step is.
    pub(crate) fn line_of(&self, key: &str) -> u64 {
        self.with(key).map_or(self.mark.line, |(k, _)| k.mark.line)
    }

    /// Input `key` as the step will see it.
    pub(crate) fn input(&self, key: &str) -> Input {
        let Some((_, value)) = self.with(key) else {
            return Input::Absent;
        };
        if value.is_null() {
            return Input::Absent;
        }
        let Some(text) = value.text() else {
            // A mapping or list where a string belongs: known, and odd.
            return Input::Literal {
                value: String::from("(not a string)"),
                from_env: None,
            };
        };
        let text = text.trim();
        if text.is_empty() {
            return Input::Absent;
        }
        if !text.contains("${{") {
            return Input::Literal {
                value: text.to_string(),
                from_env: None,
            };
        }
        match env_reference(text) {
            Some(name) => match self.env_value(name) {
                Some(Some(v)) if v.trim().is_empty() => Input::Absent,
                Some(Some(v)) => Input::Literal {
                    value: v.trim().to_string(),
                    from_env: Some(name.to_string()),
                },
                _ => Input::Expression(text.to_string()),
            },
            None => Input::Expression(text.to_string()),
        }
    }

    /// `Some(None)` when the variable is set but to an expression.
    fn env_value(&self, name: &str) -> Option<Option<&str>> {
        self.env.iter().find_map(|env| {
            env.iter()
                .rev()
                .find(|(k, _)| k == name)
                .map(|(_, v)| v.as_deref())
        })
    }
}

/// `X` when `text` is exactly `${{ env.X }}`.
fn env_reference(text: &str) -> Option<&str> {
    let inner = text.strip_prefix("${{")?.strip_suffix("}}")?.trim();
    let name = inner.strip_prefix("env.")?;
    name.bytes()
        .all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-')
        .then_some(name)
        .filter(|n| !n.is_empty())
}

/// A path input as the action resolves it against the workspace: `./`,
/// trailing slashes and a leading `${{ github.workspace }}` removed; `.` for
/// the workspace itself. `None` when it depends on another expression.
pub(crate) fn workspace_path(input: &Input, default: &str) -> Option<String> {
    let raw = match input {
        Input::Absent => default.to_string(),
        Input::Literal { value, .. } => value.clone(),
        Input::Expression(e) => {
            let rest = strip_workspace(e)?;
            if rest.contains("${{") {
                return None;
            }
            rest.to_string()
        }
    };
    let trimmed = raw.trim().trim_end_matches('/');
    let mut path = trimmed;
    while let Some(rest) = path.strip_prefix("./") {
        path = rest;
    }
    let path = path.trim_start_matches('/');
    Some(if path.is_empty() || path == "." {
        ".".to_string()
    } else {
        path.to_string()
    })
}

/// The rest of a path that starts with the workspace expression.
fn strip_workspace(e: &str) -> Option<&str> {
    if !e.starts_with("${{") {
        return None;
    }
    let close = e.find("}}")?;
    let inner = e.get(3..close)?.trim();
    matches!(inner, "github.workspace" | "env.GITHUB_WORKSPACE").then(|| &e[close + 2..])
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::yaml::parse;

    fn first_step(text: &str, f: impl FnOnce(&Step)) {
        let doc = parse(text).unwrap().unwrap();
        let wf = Workflow::of(&doc);
        f(&wf.jobs[0].steps[0]);
    }

    #[test]
    fn inputs_as_codex_action_reads_them() {
        let text = "env:\n  V: 0.169.0\n  E: ${{ vars.X }}\njobs:\n  j:\n    env:\n      V: 0.168.0\n    steps:\n      - uses: openai/codex-action@v1\n        env:\n          W: latest\n        with:\n          prompt: \"\"\n          prompt-file: \"  \"\n          model: ~\n          codex-version: ${{ env.V }}\n          effort: ${{ env.W }}\n          sandbox: ${{ env.E }}\n          output-file: ${{ inputs.out }}\n          fetch-depth: 0\n";
        first_step(text, |s| {
            assert!(s.is("OpenAI/codex-action"));
            for absent in ["prompt", "prompt-file", "model", "nothing"] {
                assert_eq!(s.input(absent), Input::Absent, "{absent}");
            }
            assert_eq!(
                s.input("codex-version"),
                Input::Literal {
                    value: "0.168.0".into(),
                    from_env: Some("V".into())
                }
            );
            assert_eq!(s.input("effort").literal(), Some("latest"));
            assert!(matches!(s.input("sandbox"), Input::Expression(_)));
            assert!(matches!(s.input("output-file"), Input::Expression(_)));
            assert_eq!(s.input("fetch-depth").literal(), Some("0"));
            assert_eq!(s.line_of("codex-version"), 16);
            assert_eq!(s.line_of("absent"), 9);
        });
    }

    #[test]
    fn triggers_in_each_form() {
        for (text, want) in [
            ("on: pull_request\njobs: {}\n", vec!["pull_request"]),
            (
                "on: [push, pull_request_target]\n",
                vec!["push", "pull_request_target"],
            ),
            (
                "\"on\":\n  pull_request:\n    branches: [main]\n  workflow_run:\n    workflows: [x]\n",
                vec!["pull_request", "workflow_run"],
            ),
            ("name: none\n", vec![]),
        ] {
            let doc = parse(text).unwrap().unwrap();
            assert_eq!(Workflow::of(&doc).triggers, want, "{text}");
        }
    }

    #[test]
    fn workspace_paths_compare_after_resolving() {
        let lit = |v: &str| Input::Literal {
            value: v.into(),
            from_env: None,
        };
        assert_eq!(workspace_path(&Input::Absent, "."), Some(".".into()));
        assert_eq!(workspace_path(&lit("./sub/"), "."), Some("sub".into()));
        assert_eq!(
            workspace_path(&Input::Expression("${{ github.workspace }}".into()), "x"),
            Some(".".into())
        );
        assert_eq!(
            workspace_path(
                &Input::Expression("${{ github.workspace }}/svc".into()),
                "."
            ),
            Some("svc".into())
        );
        assert_eq!(
            workspace_path(&Input::Expression("${{ inputs.dir }}".into()), "."),
            None
        );
    }
}
