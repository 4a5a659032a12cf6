//! The rules every agent shares, one function each, over one job at a time;
//! each agent adds its own (its action's inputs, how it is installed)
//! through [`Agent::lint`](crate::agent::seam::Agent::lint), and names
//! itself only through the registry.
//!
//! Every rule earns its place by a failure seen in agent-review workflows; each
//! is in docs/lint.md's table under the same name and level, in the order of
//! [`every_rule`]. A value that only the run will know (an expression) never makes
//! an error: the rule says what to check, as a notice, or stays silent.

use super::LocalAction;
use crate::agent::AgentKind;
use crate::agent::registry;
use crate::level::Level;
use crate::rule::{AgentJob, Finding, Rule, finding};
use crate::workflow::{Input, Job, Step};

/// The rules every agent shares, in the order of docs/lint.md's first table.
const COMMON: &[Rule] = &[
    Rule {
        name: "yaml",
        level: Level::Failure,
        catches: "the file is not valid YAML, repeats a key, or holds more than one document",
    },
    Rule {
        name: "receipt-agent",
        level: Level::Failure,
        catches: "a prompt-receipt step whose `agent` (or, not given, the default agent) is not the agent its job runs (or the jobs a receipt job needs run): each agent is known by the action that runs it, or the npm package a step installs it by",
    },
    Rule {
        name: "receipt-older-input",
        level: Level::Warning,
        catches: "a prompt-receipt step that gives another agent's older name of an input, which it does not read (each agent's own older names, and those every agent reads, read as `agent-version`, `agent-args`, `agent-home`)",
    },
    Rule {
        name: "receipt-beside-agent",
        level: Level::Warning,
        catches: "a prompt-receipt step after an agent step of the same job, when the agent's action leaves Docker to the steps after it: the agent could rewrite its files and its record before the receipt reads them",
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

/// Every rule of the lint: those every agent shares, then each registered
/// agent's own, in the registry's order (docs/lint.md's tables, in order).
pub fn every_rule() -> Vec<&'static Rule> {
    let own = registry::all()
        .into_iter()
        .flat_map(|kind| registry::agent(kind).lint_rules());
    COMMON.iter().chain(own).collect()
}

/// The agent a step runs, if it runs one (the agents name their actions, the
/// registry lists the agents).
fn agent_of(step: &Step) -> Option<AgentKind> {
    registry::running(|action| match action.strip_prefix("npm:") {
        Some(package) => step.npm_install(package).is_some(),
        None => step.is(action),
    })
}

/// How a message names an agent step: its action, or the npm package a
/// `run:` step installs (an agent's `npm:<package>` in the registry).
fn agent_name<'a>(step: &'a Step) -> &'a str {
    let installed = || {
        registry::all()
            .into_iter()
            .flat_map(|kind| registry::agent(kind).about().actions)
            .filter_map(|action| action.strip_prefix("npm:"))
            .find(|package| step.npm_install(package).is_some())
    };
    match step.uses.is_empty().then(installed).flatten() {
        Some(package) => package,
        None => step.action(),
    }
}

/// Which steps of a job run an agent (and which one), report or record a
/// receipt, restore, or start a container.
struct Steps {
    ran: Vec<Option<AgentKind>>,
    agents: Vec<usize>,
    receipts: Vec<usize>,
    restores: Vec<usize>,
    containers: Vec<usize>,
}

impl Steps {
    fn of(steps: &[Step], local: &dyn Fn(&str) -> Option<LocalAction>) -> Steps {
        let ran: Vec<Option<AgentKind>> = steps.iter().map(agent_of).collect();
        let kinds: Vec<LocalAction> = steps.iter().map(|s| kind_of(s, local)).collect();
        let which = |f: &dyn Fn(usize) -> bool| (0..steps.len()).filter(|&i| f(i)).collect();
        Steps {
            agents: which(&|i| ran[i].is_some()),
            receipts: which(&|i| kinds[i].receipt && !is_restore(&steps[i])),
            restores: which(&|i| kinds[i].receipt && is_restore(&steps[i])),
            containers: which(&|i| kinds[i].container),
            ran,
        }
    }
}

/// Every finding in one job, in the order of its steps: each registered
/// agent's own rules, then those every agent shares. `triggers`: the
/// workflow's events.
pub(crate) fn check(
    job: &Job,
    upstream: &[&Step],
    triggers: &[String],
    local: &dyn Fn(&str) -> Option<LocalAction>,
    receipt_here: bool,
) -> Vec<Finding> {
    let steps = &job.steps;
    let seen = Steps::of(steps, local);
    let mut out = Vec::new();
    for kind in registry::all() {
        let runs: Vec<usize> = (seen.agents.iter().copied())
            .filter(|&i| seen.ran[i] == Some(kind))
            .collect();
        let view = AgentJob {
            steps,
            runs: &runs,
            agents: &seen.agents,
            receipts: &seen.receipts,
            restores: &seen.restores,
            containers: &seen.containers,
        };
        registry::agent(kind).lint(&view, &mut out);
    }
    let any_agent = &seen.agents;
    checkouts(steps, any_agent, &mut out);
    restores(steps, any_agent, &seen.restores, !receipt_here, &mut out);
    for &i in &seen.receipts {
        older_inputs(&steps[i], &mut out);
        if any_agent.is_empty() {
            receipt_after_agent_job(&steps[i], upstream, &mut out);
        } else {
            receipt_and_agent(&steps[i], steps, any_agent, i, &mut out);
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
        .and_then(|a| <AgentKind as clap::ValueEnum>::from_str(a.trim(), false).ok())
        .unwrap_or_default();
    for alias in registry::aliases() {
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

/// The line of a prompt-receipt step with `mode: record` before the first
/// agent step of the same job: the layout that records a receipt before the
/// agent.
pub(crate) fn records_before_agent(
    job: &Job,
    local: &dyn Fn(&str) -> Option<LocalAction>,
) -> Option<u64> {
    let steps = &job.steps;
    let first_agent = steps.iter().position(|s| agent_of(s).is_some())?;
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
/// that runs (its prompt is the agent's own lint's).
fn restores(
    steps: &[Step],
    agents: &[usize],
    restore_at: &[usize],
    receipt_elsewhere: bool,
    out: &mut Vec<Finding>,
) {
    let Some(&first_agent) = agents.first() else {
        return;
    };
    for &i in restore_at {
        let a = agents.iter().rev().find(|&&a| a < i).copied();
        let agent = &steps[a.unwrap_or(first_agent)];
        let ran = agent_of(agent).unwrap_or_default().as_str();
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
/// job it reads files the agent could have rewritten, unless the agent's
/// action takes Docker from the steps after it: then the step cannot start,
/// which the agent's own lint says.
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
    let ran = agent_of(&steps[a]).unwrap_or_default();
    wrong_agent(step, &steps[a], ran.as_str(), "its job", out);
    if before.is_some() && !registry::agent(ran).about().drops_docker {
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
    let ran = agent_of(first).unwrap_or_default();
    if agents.iter().any(|s| agent_of(s) != Some(ran)) {
        return;
    }
    wrong_agent(step, first, ran.as_str(), "the job it needs", out);
}

/// `receipt-agent`: the receipt step is told (or defaults to) another agent
/// than `agent_step` runs; an expression decides at run time and is silent.
fn wrong_agent(step: &Step, agent_step: &Step, ran: &str, whose: &str, out: &mut Vec<Finding>) {
    let input = step.input("agent");
    let told = match &input {
        Input::Absent => Some(AgentKind::default().as_str()),
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
