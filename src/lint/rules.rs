//! The rules, one function each, over one job at a time.
//!
//! Every rule earns its place by a failure seen in agent-review workflows; each
//! is in the README's table under the same name and level. A value that only
//! the run will know (an expression) never makes an error: the rule says what
//! to check, as a notice, or stays silent.

use super::LocalAction;
use crate::level::Level;
use crate::version::is_exact_version;
use crate::workflow::{Input, Job, Step, workspace_path};

/// A rule: its name, its level, and what it catches.
pub struct Rule {
    pub name: &'static str,
    pub level: Level,
    pub catches: &'static str,
}

/// Every rule, in the order of the README's table.
pub const RULES: &[Rule] = &[
    Rule {
        name: "yaml",
        level: Level::Failure,
        catches: "the file is not valid YAML, repeats a key, or holds more than one document",
    },
    Rule {
        name: "both-prompts",
        level: Level::Failure,
        catches: "a codex-action step sets both `prompt` and `prompt-file` (a notice when an expression decides)",
    },
    Rule {
        name: "codex-version",
        level: Level::Failure,
        catches: "a codex-action step's `codex-version` is not set, `latest` or a range (a notice when an expression decides)",
    },
    Rule {
        name: "codex-args",
        level: Level::Warning,
        catches: "codex-args that defeat the receipt or widen the agent's reach: `--ephemeral` (no session record), `--remote` (the record stays on another server), `--dangerously-bypass-*`, `--add-dir`, `-p`/`--profile` (settings from outside the inputs); `--image` is a notice (each image reaches the model; record its hash)",
    },
    Rule {
        name: "container-after-agent",
        level: Level::Failure,
        catches: "a container action (prompt-receipt, `docker://`, a local `using: docker` action) after a codex-action step whose `safety-strategy` is `drop-sudo` or not set: Docker is gone, the step cannot start",
    },
    Rule {
        name: "receipt-mismatch",
        level: Level::Failure,
        catches: "a prompt-receipt step whose `prompt-file`, `codex-home`, `working-directory`, `output-file`, `codex-version` or `model` differ from the codex-action step of its job",
    },
    Rule {
        name: "receipt-without-codex-home",
        level: Level::Warning,
        catches: "a prompt-receipt step without `codex-home` in a job whose codex-action step has one",
    },
    Rule {
        name: "receipt-agent",
        level: Level::Failure,
        catches: "a prompt-receipt step whose `agent` is not the agent action of its job (or of the jobs a receipt job needs): `claude` for anthropics/claude-code-action, `gemini` for google-github-actions/run-gemini-cli, `copilot` for a step that installs `@github/copilot` by npm, `codex` (the default) for openai/codex-action",
    },
    Rule {
        name: "copilot-install",
        level: Level::Failure,
        catches: "a step that installs Copilot CLI (`npm install @github/copilot`) without an exact version; a warning when `COPILOT_AUTO_UPDATE` is not `false` (its loader runs a newer cached release than the one installed)",
    },
    Rule {
        name: "receipt-older-input",
        level: Level::Warning,
        catches: "a prompt-receipt step that gives another agent's older name of an input, which it does not read: `claude-version` or `claude-args` when `agent` is not `claude`, `codex-home` when it is not `codex` (each agent's own older names, and `codex-version` and `codex-args` for every agent, read as `agent-version`, `agent-args`, `agent-home`)",
    },
    Rule {
        name: "receipt-beside-agent",
        level: Level::Warning,
        catches: "a prompt-receipt step after a claude-code-action or run-gemini-cli step of the same job: the agent could rewrite its files and its record before the receipt reads them",
    },
    Rule {
        name: "receipt-advisory-layout",
        level: Level::Warning,
        catches: "a workflow on `pull_request` (or a pull request review event) with a prompt-receipt step in a mode that reports (`run`, the default, or `verify`), or a job that calls prompt-receipt's reusable workflow: the pull request's own copy of the workflow runs, so it can change the receipt's inputs or post the check itself",
    },
    Rule {
        name: "receipt-workflow-name",
        level: Level::Failure,
        catches: "a `workflow_run` receipt workflow (one that calls prompt-receipt's reusable workflow or runs its action) whose `workflows:` names a workflow that no file of `.github/workflows/` has as its `name:`, or one that never runs on `pull_request`: GitHub starts it only when a workflow of that name completes, so no receipt would ever run and a required check would wait forever",
    },
    Rule {
        name: "restore-missing",
        level: Level::Warning,
        catches: "an agent job of the binding layout (it uploads with `prompt-receipt/collect`) with no prompt-receipt step of `mode: restore` before the agent: the agent runs with the pull request's configuration, so a pull request that tunes its instructions fails the required check instead of passing with them named as not used",
    },
    Rule {
        name: "restore-after-agent",
        level: Level::Failure,
        catches: "a prompt-receipt step of `mode: restore` after the agent step of its job: the agent already ran with the pull request's configuration",
    },
    Rule {
        name: "shallow-checkout",
        level: Level::Warning,
        catches: "`actions/checkout` before an agent step without `fetch-depth: 0`",
    },
    Rule {
        name: "checkout-credentials",
        level: Level::Notice,
        catches: "that checkout leaves its token in `.git/config` (`persist-credentials` not `false`)",
    },
    Rule {
        name: "checkout-after-agent",
        level: Level::Notice,
        catches: "the job checks out the repository only after the agent step (silent when the job has no checkout at all)",
    },
];

/// One finding of a rule, before it is given its file.
pub(crate) struct Finding {
    pub level: Level,
    pub(crate) rule: &'static str,
    pub(crate) line: u64,
    pub(crate) message: String,
}

fn finding(rule: &'static str, level: Level, line: u64, message: String) -> Finding {
    Finding {
        level,
        rule,
        line,
        message,
    }
}

/// The action whose own inputs the Codex rules below read.
const CODEX_ACTION: &str = "openai/codex-action";

/// The receipt's word for the agent a step runs, if it runs one (the agents
/// name their actions, the registry lists the agents).
fn agent_of(step: &Step) -> Option<&'static str> {
    crate::agent::registry::running(|action| match action.strip_prefix("npm:") {
        Some(package) => step.npm_install(package).is_some(),
        None => step.is(action),
    })
    .map(|k| k.as_str())
}

/// How a message names an agent step: its action, or the npm package a
/// `run:` step installs.
fn agent_name<'a>(step: &'a Step) -> &'a str {
    if step.uses.is_empty() && step.npm_install(COPILOT_PACKAGE).is_some() {
        COPILOT_PACKAGE
    } else {
        step.action()
    }
}

/// Copilot CLI's npm package: the agent has no action of its own.
const COPILOT_PACKAGE: &str = "@github/copilot";

/// `copilot-install`: Copilot CLI installed by npm at an exact version, with
/// auto-update off (else its loader runs a newer cached release than the one
/// installed, and the receipt's `agent-version` names the wrong one).
fn copilot_install(step: &Step, out: &mut Vec<Finding>) {
    let Some(version) = step.npm_install(COPILOT_PACKAGE) else {
        return;
    };
    let exact = match version.as_deref() {
        Some(v) if v.starts_with('$') => {
            let name = v.trim_start_matches('$').trim_matches(['{', '}']);
            match step.env_var(name) {
                Some(Some(v)) => is_exact_version(v.trim()),
                Some(None) => true,
                None => false,
            }
        }
        Some(v) => is_exact_version(v),
        None => false,
    };
    if !exact {
        out.push(finding(
            "copilot-install",
            Level::Failure,
            step.mark.line,
            format!(
                "this step installs `{COPILOT_PACKAGE}` without an exact version (`{}`): the receipt cannot hold the record to the release that ran; install `{COPILOT_PACKAGE}@1.0.102` (an exact version) and give the receipt the same `agent-version`",
                version.as_deref().unwrap_or("latest")
            ),
        ));
    }
    if step.env_var("COPILOT_AUTO_UPDATE") != Some(Some("false")) {
        out.push(finding(
            "copilot-install",
            Level::Warning,
            step.mark.line,
            "Copilot CLI's loader runs a newer release it finds cached unless `COPILOT_AUTO_UPDATE` is `false`: set `COPILOT_AUTO_UPDATE: \"false\"` in the workflow's env, so the release installed is the one that runs".into(),
        ));
    }
}

/// Every finding in one job, in the order of its steps. `triggers`: the
/// workflow's events.
pub(crate) fn check(
    job: &Job,
    upstream: &[&Step],
    triggers: &[String],
    local: &dyn Fn(&str) -> Option<LocalAction>,
    receipt_here: bool,
) -> Vec<Finding> {
    let steps = &job.steps;
    let agents: Vec<usize> = (0..steps.len())
        .filter(|&i| steps[i].is(CODEX_ACTION))
        .collect();
    let any_agent: Vec<usize> = (0..steps.len())
        .filter(|&i| agent_of(&steps[i]).is_some())
        .collect();
    let mut out = Vec::new();
    for &i in &agents {
        both_prompts(&steps[i], &mut out);
        codex_version(&steps[i], &mut out);
        codex_args(&steps[i], &mut out);
    }
    for step in steps {
        copilot_install(step, &mut out);
    }
    checkouts(steps, &any_agent, &mut out);
    restores(steps, &any_agent, local, !receipt_here, &mut out);
    for (i, step) in steps.iter().enumerate() {
        if kind_of(step, local).receipt && !is_restore(step) {
            older_inputs(step, &mut out);
            if any_agent.is_empty() {
                receipt_after_agent_job(step, upstream, &mut out);
            } else {
                receipt_and_agent(step, steps, &any_agent, i, &mut out);
            }
        }
    }
    for (i, step) in steps.iter().enumerate() {
        let kind = kind_of(step, local);
        if kind.container {
            container_after_agent(step, steps, &agents, i, &mut out);
        }
        if kind.receipt && !is_restore(step) {
            // The codex-action step this receipt describes: the last before it,
            // or for a receipt recorded before the agent, the first after it.
            let before = agents.iter().rev().find(|&&a| a < i);
            if let Some(&a) = before.or(agents.first()) {
                receipt_agrees(step, &steps[a], before.is_some(), &mut out);
            }
        }
    }
    advisory_layout(job, triggers, local, &mut out);
    out.sort_by_key(|f| f.line);
    out
}

/// The events whose run takes its workflow file from the pull request's
/// merge or head ref: the pull request's own copy of the file runs.
const FROM_THE_PULL_REQUEST: &[&str] = &[
    "pull_request",
    "pull_request_review",
    "pull_request_review_comment",
];

/// What `receipt-advisory-layout` says; the run's own title says the same
/// ("advisory: this workflow file can be changed by the pull request").
pub(crate) const ADVISORY_LAYOUT: &str = "this workflow file can be changed by the pull request, so its receipt is advisory: run the receipt from a `workflow_run` workflow (README: The binding layout)";

/// `receipt-advisory-layout`: a receipt that reports, in a workflow that the
/// pull request's own copy of runs. Recording before the agent, and the
/// modes that post no receipt verdict, are left alone; a mode that comes
/// from an expression is known only to the run, which says its layout itself.
fn advisory_layout(
    job: &Job,
    triggers: &[String],
    local: &dyn Fn(&str) -> Option<LocalAction>,
    out: &mut Vec<Finding>,
) {
    if !triggers
        .iter()
        .any(|t| FROM_THE_PULL_REQUEST.contains(&t.as_str()))
    {
        return;
    }
    let warn = |line| {
        finding(
            "receipt-advisory-layout",
            Level::Warning,
            line,
            ADVISORY_LAYOUT.into(),
        )
    };
    if receipt_workflow(&job.uses) {
        out.push(warn(job.uses_line));
    }
    for step in &job.steps {
        if reports(step, local) {
            out.push(warn(step.mark.line));
        }
    }
}

/// A prompt-receipt step in a mode that reports a receipt (`run`, the
/// default, or `verify`); a mode from an expression is known only to the run.
fn reports(step: &Step, local: &dyn Fn(&str) -> Option<LocalAction>) -> bool {
    let reporting = match step.input("mode") {
        Input::Absent => true,
        Input::Literal { value, .. } => matches!(value.as_str(), "run" | "verify"),
        Input::Expression(_) => false,
    };
    reporting && kind_of(step, local).receipt
}

/// The workflow makes its receipt itself: a job calls prompt-receipt's
/// reusable workflow, or a step reports one. Otherwise an agent job that
/// uploads with `collect` is the binding layout's, its receipt elsewhere.
pub(crate) fn receipt_here(jobs: &[Job], local: &dyn Fn(&str) -> Option<LocalAction>) -> bool {
    jobs.iter()
        .any(|j| receipt_workflow(&j.uses) || j.steps.iter().any(|s| reports(s, local)))
}

/// A reusable workflow of prompt-receipt's repository
/// (`owner/prompt-receipt/.github/workflows/...@ref`).
pub(crate) fn receipt_workflow(uses: &str) -> bool {
    let mut parts = uses.split('@').next().unwrap_or("").split('/');
    let (_owner, repo, rest) = (parts.next(), parts.next(), parts.next());
    repo.is_some_and(|r| r.eq_ignore_ascii_case("prompt-receipt")) && rest == Some(".github")
}

/// A prompt-receipt step that gives an input by another agent's older name,
/// which it does not read. Every older name is an agent's alias in the
/// registry; its own, and those every agent reads, read as the neutral ones.
fn older_inputs(step: &Step, out: &mut Vec<Finding>) {
    let agent = step
        .input("agent")
        .literal()
        .and_then(|a| <crate::agent::AgentKind as clap::ValueEnum>::from_str(a.trim(), false).ok())
        .unwrap_or_default();
    for alias in crate::agent::registry::aliases() {
        let (neutral, older) = (alias.neutral, alias.older);
        // The agent's own older name reads as the neutral one: nothing to say.
        if step.input(older).is_absent() || agent.reads(alias) {
            continue;
        }
        out.push(finding(
            "receipt-older-input",
            Level::Warning,
            step.line_of(older),
            format!(
                "`{older}` is not read when `agent` is `{}`: give it as `{neutral}`",
                agent.as_str()
            ),
        ));
    }
}

/// The line of a prompt-receipt step with `mode: record` before a codex-action
/// step of the same job: the layout that records a receipt before the agent.
pub(crate) fn records_before_agent(
    job: &Job,
    local: &dyn Fn(&str) -> Option<LocalAction>,
) -> Option<u64> {
    let steps = &job.steps;
    let first_agent = steps.iter().position(|s| s.is(CODEX_ACTION))?;
    steps[..first_agent]
        .iter()
        .find(|s| {
            kind_of(s, local).receipt && s.input("mode").literal().map(str::trim) == Some("record")
        })
        .map(|s| s.mark.line)
}

/// What the runner does with a step's action, as far as the repository tells.
pub(crate) fn kind_of(step: &Step, local: &dyn Fn(&str) -> Option<LocalAction>) -> LocalAction {
    let action = step.action();
    if action.starts_with("docker://") {
        return LocalAction {
            container: true,
            receipt: action.to_ascii_lowercase().contains("prompt-receipt"),
        };
    }
    if action.starts_with("./") || action == "." {
        // As written (`./` for the repository's own action.yml).
        return local(step.uses.split('@').next().unwrap_or(action)).unwrap_or_default();
    }
    // `owner/repo`: prompt-receipt is a container action; for any other
    // remote action its action.yml cannot be read here. An action in a folder
    // of the repository (`owner/prompt-receipt/collect`) is another action.
    let parts: Vec<&str> = action.split('/').collect();
    let named = parts.len() == 2
        && parts
            .iter()
            .any(|part| part.eq_ignore_ascii_case("prompt-receipt"));
    LocalAction {
        container: named,
        receipt: named,
    }
}

fn both_prompts(step: &Step, out: &mut Vec<Finding>) {
    let (prompt, file) = (step.input("prompt"), step.input("prompt-file"));
    if prompt.is_absent() || file.is_absent() {
        return;
    }
    let line = step.line_of("prompt");
    if matches!(prompt, Input::Expression(_)) || matches!(file, Input::Expression(_)) {
        out.push(finding(
            "both-prompts",
            Level::Notice,
            line,
            "this codex-action step gives both `prompt` and `prompt-file`, at least one from an expression: codex-action fails if both are non-empty when it runs; make sure only one is".into(),
        ));
    } else {
        out.push(finding(
            "both-prompts",
            Level::Failure,
            line,
            "this codex-action step sets both `prompt` and `prompt-file`: the action rejects that; keep the one versioned source, `prompt-file`".into(),
        ));
    }
}

fn codex_version(step: &Step, out: &mut Vec<Finding>) {
    let line = step.line_of("codex-version");
    match step.input("codex-version") {
        Input::Absent => out.push(finding(
            "codex-version",
            Level::Failure,
            line,
            "`codex-version` is not set: codex-action then installs whatever npm serves that day; pin an exact version such as 0.169.0".into(),
        )),
        Input::Expression(e) => out.push(finding(
            "codex-version",
            Level::Notice,
            line,
            format!(
                "`codex-version` comes from `{e}`: make sure it resolves to an exact version, and give prompt-receipt the same value as `agent-version` (a workflow `env` both steps read: codex-action has no output for it)"
            ),
        )),
        Input::Literal { value, from_env } if !is_exact_version(&value) => {
            let source = from_env.map_or(String::new(), |v| format!(" (from `env.{v}`)"));
            out.push(finding(
                "codex-version",
                Level::Failure,
                line,
                format!(
                    "`codex-version` is `{value}`{source}, a tag or a range: pin an exact version such as 0.169.0"
                ),
            ));
        }
        Input::Literal { .. } => {}
    }
}

/// Flags in codex-args, read as codex-action splits them, that defeat the
/// receipt or widen what the agent can reach.
fn codex_args(step: &Step, out: &mut Vec<Finding>) {
    let Input::Literal { value, .. } = step.input("codex-args") else {
        return;
    };
    let line = step.line_of("codex-args");
    let args = match crate::agent::codex::config::split_args(&value) {
        Ok(args) => args,
        Err(why) => {
            out.push(finding(
                "codex-args",
                Level::Failure,
                line,
                format!("`codex-args` {why}: codex-action cannot pass it to codex exec"),
            ));
            return;
        }
    };
    for arg in &args {
        let flag = arg.split('=').next().unwrap_or(arg);
        let (level, why) = match flag {
            "--ephemeral" => (
                Level::Warning,
                "writes no session record: the receipt cannot show what reached the agent",
            ),
            "--remote" => (
                Level::Warning,
                "keeps the session record on a remote app server: the receipt cannot read it",
            ),
            "--add-dir" => (
                Level::Warning,
                "gives the agent another folder to write beyond the workspace",
            ),
            "-p" | "--profile" => (
                Level::Warning,
                "takes settings from a profile in codex-home's config, outside this workflow's inputs",
            ),
            "-i" | "--image" => (
                Level::Notice,
                "sends an image to the model: an input the receipt does not hash; keep it in the repository and record its SHA-256",
            ),
            f if f.starts_with("--dangerously-bypass") => (
                Level::Warning,
                "turns off the sandbox or approvals: the agent can reach anything the runner can",
            ),
            _ => continue,
        };
        out.push(finding(
            "codex-args",
            level,
            line,
            format!(
                "`codex-args` passes `{}`, which {why}",
                crate::escape::one_line(flag)
            ),
        ));
    }
}

/// The checkout the agent reviews: it must see history and tags, and keep no token.
fn checkouts(steps: &[Step], agents: &[usize], out: &mut Vec<Finding>) {
    let Some(&first_agent) = agents.first() else {
        return;
    };
    let is_checkout = |s: &&Step| s.is("actions/checkout");
    let before: Vec<&Step> = steps[..first_agent].iter().filter(is_checkout).collect();
    if before.is_empty() {
        // A job with no checkout at all gives the agent no repository on
        // purpose (a prompt built from artifacts): that is the safer layout.
        if steps.iter().any(|s| s.is("actions/checkout")) {
            out.push(finding(
                "checkout-after-agent",
                Level::Notice,
                steps[first_agent].mark.line,
                "actions/checkout runs only after this agent step: the agent reviews whatever is in the workspace when it starts".into(),
            ));
        }
        return;
    }
    for c in before {
        if c.input("fetch-depth").literal() != Some("0")
            && !matches!(c.input("fetch-depth"), Input::Expression(_))
        {
            out.push(finding(
                "shallow-checkout",
                Level::Warning,
                c.line_of("fetch-depth"),
                "this checkout is shallow (no `fetch-depth: 0`): `git describe` cannot see tags, so the receipt cannot place the commit".into(),
            ));
        }
        if c.input("persist-credentials").literal() != Some("false")
            && !matches!(c.input("persist-credentials"), Input::Expression(_))
        {
            out.push(finding(
                "checkout-credentials",
                Level::Notice,
                c.line_of("persist-credentials"),
                "the checkout leaves its token in `.git/config` where the agent can read it; set `persist-credentials: false`".into(),
            ));
        }
    }
}

/// A prompt-receipt step of `mode: restore`: it puts back the base's
/// configuration before the agent, and reports no receipt.
fn is_restore(step: &Step) -> bool {
    step.input("mode").literal().map(str::trim) == Some("restore")
}

/// `restore-missing` and `restore-after-agent`: the agent of the binding
/// layout runs with the base's configuration only when a restore step comes
/// before it; and the restore step puts back the configuration of the agent
/// that runs, with its prompt.
fn restores(
    steps: &[Step],
    agents: &[usize],
    local: &dyn Fn(&str) -> Option<LocalAction>,
    receipt_elsewhere: bool,
    out: &mut Vec<Finding>,
) {
    let Some(&first_agent) = agents.first() else {
        return;
    };
    let restore_at: Vec<usize> = (0..steps.len())
        .filter(|&i| kind_of(&steps[i], local).receipt && is_restore(&steps[i]))
        .collect();
    for &i in &restore_at {
        let a = agents.iter().rev().find(|&&a| a < i).copied();
        let agent = &steps[a.unwrap_or(first_agent)];
        let ran = agent_of(agent).unwrap_or("codex");
        wrong_agent(&steps[i], agent, ran, "its job", out);
        if a.is_some() {
            out.push(finding(
                "restore-after-agent",
                Level::Failure,
                steps[i].mark.line,
                format!(
                    "this restore step runs after `{}` (line {}): the agent already ran with the pull request's configuration; move it before the agent, right after the checkout",
                    agent_name(agent),
                    agent.mark.line
                ),
            ));
        } else if agent.is(CODEX_ACTION) {
            // The prompt it puts back is the one codex-action sends.
            let key = "prompt-file";
            let given = |s: &Step| workspace_path(&s.input(key), "");
            if let (Some(t), Some(m)) = (given(agent), given(&steps[i]))
                && t != m
            {
                out.push(finding(
                    "receipt-mismatch",
                    Level::Failure,
                    steps[i].line_of(key),
                    format!(
                        "this restore step puts back `{}` but the codex-action step of this job (line {}) sends `{}`: the agent would run with the pull request's prompt; give both the same `prompt-file`",
                        crate::escape::one_line(&m),
                        agent.mark.line,
                        crate::escape::one_line(&t)
                    ),
                ));
            }
        }
    }
    let binding = receipt_elsewhere
        && steps.iter().any(|s| {
            s.action()
                .to_ascii_lowercase()
                .ends_with("/prompt-receipt/collect")
        });
    if binding && !restore_at.iter().any(|&i| i < first_agent) {
        out.push(finding(
            "restore-missing",
            Level::Warning,
            steps[first_agent].mark.line,
            format!(
                "`{}` runs with the pull request's configuration: add a prompt-receipt step with `mode: restore` before it (README: Pinning to the base), and `configuration: base` in the receipt workflow, so that a pull request that tunes the agent's instructions passes with them named as not used",
                agent_name(&steps[first_agent])
            ),
        ));
    }
}

/// The receipt reads the record and the chain of the agent it is told:
/// told the wrong one, it reads nothing of what ran. And in the agent's own
/// job it reads files the agent could have rewritten (codex-action's
/// `drop-sudo` stops such a step from starting at all: container-after-agent).
fn receipt_and_agent(
    step: &Step,
    steps: &[Step],
    agents: &[usize],
    at: usize,
    out: &mut Vec<Finding>,
) {
    let before = agents.iter().rev().find(|&&a| a < at);
    let Some(&a) = before.or(agents.first()) else {
        return;
    };
    let ran = agent_of(&steps[a]).unwrap_or("codex");
    wrong_agent(step, &steps[a], ran, "its job", out);
    if before.is_some() && ran != "codex" {
        out.push(finding(
            "receipt-beside-agent",
            Level::Warning,
            step.mark.line,
            format!(
                "this prompt-receipt step runs in the job of `{}` (line {}), after it: the agent could have rewritten the prompt, its instructions and its record before the receipt read them; run the receipt in a job of its own that `needs:` this one and downloads the record, as the README's two-job workflow does",
                agent_name(&steps[a]),
                steps[a].mark.line
            ),
        ));
    }
}

/// The receipt job of the two-job layout: its agent ran in a job it needs.
/// Said only when every agent step upstream is of one kind.
fn receipt_after_agent_job(step: &Step, upstream: &[&Step], out: &mut Vec<Finding>) {
    let agents: Vec<&Step> = upstream
        .iter()
        .copied()
        .filter(|s| agent_of(s).is_some())
        .collect();
    let Some(first) = agents.first() else {
        return;
    };
    let ran = agent_of(first).unwrap_or("codex");
    if agents.iter().any(|s| agent_of(s) != Some(ran)) {
        return;
    }
    wrong_agent(step, first, ran, "the job it needs", out);
}

/// `receipt-agent`: the receipt step is told (or defaults to) another agent
/// than `agent_step` runs; an expression decides at run time and is silent.
fn wrong_agent(step: &Step, agent_step: &Step, ran: &str, whose: &str, out: &mut Vec<Finding>) {
    let input = step.input("agent");
    let told = match &input {
        Input::Absent => Some("codex"),
        given => given.literal().map(str::trim),
    };
    if let Some(told) = told.filter(|t| *t != ran) {
        out.push(finding(
            "receipt-agent",
            Level::Failure,
            step.line_of("agent"),
            format!(
                "this prompt-receipt step {} `{}`, but {whose} runs `{}` (line {}): set `agent: {ran}`",
                if is_restore(step) {
                    "puts back the configuration of"
                } else {
                    "reads the record of"
                },
                crate::escape::one_line(told),
                agent_name(agent_step),
                agent_step.mark.line
            ),
        ));
    }
}

/// codex-action's default `drop-sudo` revokes Docker for the rest of the job.
fn container_after_agent(
    step: &Step,
    steps: &[Step],
    agents: &[usize],
    at: usize,
    out: &mut Vec<Finding>,
) {
    let Some(&agent) = agents.iter().find(|&&a| a < at) else {
        return;
    };
    let agent_line = steps[agent].mark.line;
    match steps[agent].input("safety-strategy") {
        Input::Absent => {}
        Input::Literal { value, .. } if value == "drop-sudo" => {}
        Input::Literal { .. } => return, // unprivileged-user, read-only, unsafe: Docker stays
        Input::Expression(e) => {
            out.push(finding(
                "container-after-agent",
                Level::Notice,
                step.mark.line,
                format!(
                    "this container action runs after openai/codex-action (line {agent_line}) whose `safety-strategy` comes from `{e}`: with `drop-sudo` (the default) Docker is gone for the rest of the job and this step cannot start"
                ),
            ));
            return;
        }
    }
    out.push(finding(
        "container-after-agent",
        Level::Failure,
        step.mark.line,
        format!(
            "this container action runs after openai/codex-action (line {agent_line}) with `safety-strategy: drop-sudo` (the default), which revokes the runner's access to Docker for the rest of the job: the step cannot start. Run the receipt in a job of its own (`needs:` this job, from an uploaded artifact), as the README's two-job workflow does"
        ),
    ));
}

/// A receipt step describes the run of its codex-action step. Recorded
/// before the agent ran, it has no session record to read: codex-home is
/// compared only for a receipt after the agent.
fn receipt_agrees(ours: &Step, agent: &Step, after_agent: bool, out: &mut Vec<Finding>) {
    let agent_line = agent.mark.line;
    for key in ["prompt-file", "working-directory", "output-file"] {
        let (theirs, mine) = (agent.input(key), ours.input(key));
        if key == "output-file" && theirs.is_absent() {
            continue; // the agent wrote no file; the receipt says so at run time
        }
        let default = if key == "output-file" {
            "artifacts/review.json"
        } else {
            "."
        };
        let agent_default = if key == "working-directory" { "." } else { "" };
        let (Some(t), Some(m)) = (
            workspace_path(&theirs, agent_default),
            workspace_path(&mine, if key == "prompt-file" { "" } else { default }),
        ) else {
            continue; // an expression decides: only the run knows
        };
        if t != m {
            out.push(mismatch(ours, key, &m, &t, agent_line));
        }
    }
    let recording = ours.input("mode").literal() == Some("record");
    // prompt-receipt's own name for each, or its older one.
    let home_key = given_as(ours, "agent-home", "codex-home");
    let homes = if after_agent && !recording {
        (agent.input("codex-home"), ours.input(home_key))
    } else {
        (Input::Absent, Input::Absent)
    };
    match homes {
        (Input::Absent, Input::Absent) => {}
        (Input::Absent, mine) => {
            let shown = shown(&mine);
            out.push(finding(
                "receipt-mismatch",
                Level::Failure,
                ours.line_of(home_key),
                format!(
                    "prompt-receipt reads {home_key} `{shown}` but the codex-action step of this job (line {agent_line}) uses its default, `~/.codex`, which a container cannot see: give codex-action `codex-home: {shown}` too"
                ),
            ));
        }
        (theirs, Input::Absent) => out.push(finding(
            "receipt-without-codex-home",
            Level::Warning,
            ours.mark.line,
            format!(
                "the codex-action step of this job (line {agent_line}) writes its session record under codex-home `{}`, but prompt-receipt is not given it: the receipt cannot vouch for what reached the agent; give prompt-receipt the same folder as `agent-home`",
                shown(&theirs)
            ),
        )),
        (theirs, mine) => {
            if let (Some(t), Some(m)) = (comparable(&theirs), comparable(&mine)) {
                if t != m {
                    out.push(mismatch(ours, home_key, &m, &t, agent_line));
                }
            }
        }
    }
    for (key, ours_key) in [
        (
            "codex-version",
            given_as(ours, "agent-version", "codex-version"),
        ),
        ("model", "model"),
    ] {
        if let (Some(t), Some(m)) = (agent.input(key).literal(), ours.input(ours_key).literal()) {
            if t != m {
                out.push(mismatch(ours, ours_key, m, t, agent_line));
            }
        }
    }
}

/// The name a prompt-receipt step gives an input by: its own, else the older.
fn given_as(step: &Step, neutral: &'static str, older: &'static str) -> &'static str {
    if step.input(neutral).is_absent() && !step.input(older).is_absent() {
        older
    } else {
        neutral
    }
}

/// A value two steps can be compared on: the literal, or the same expression text.
fn comparable(input: &Input) -> Option<String> {
    match input {
        Input::Absent => None,
        Input::Literal { value, .. } => Some(value.trim_end_matches('/').to_string()),
        Input::Expression(e) => Some(e.replace(' ', "").trim_end_matches('/').to_string()),
    }
}

fn shown(input: &Input) -> String {
    match input {
        Input::Absent => String::new(),
        Input::Literal { value, .. } => value.clone(),
        Input::Expression(e) => e.clone(),
    }
}

fn mismatch(ours: &Step, key: &str, mine: &str, theirs: &str, agent_line: u64) -> Finding {
    finding(
        "receipt-mismatch",
        Level::Failure,
        ours.line_of(key),
        format!(
            "prompt-receipt's `{key}` is `{mine}` but the codex-action step of this job (line {agent_line}) uses `{theirs}`: the receipt would describe another run"
        ),
    )
}
