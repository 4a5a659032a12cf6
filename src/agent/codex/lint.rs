//! Codex's own lint rules: openai/codex-action's inputs (`prompt`,
//! `prompt-file`, `codex-version`, `codex-args`, `safety-strategy`,
//! `codex-home`), and the prompt-receipt steps of its job held to them.
//! Every rule is in docs/lint.md's table under the same name and level; a
//! value that only the run will know (an expression) never makes an error.

use crate::level::Level;
use crate::rule::{AgentJob, Finding, Rule, finding};
use crate::version::is_exact_version;
use crate::workflow::{Input, Step, workspace_path};

/// Codex's rules, in the order of docs/lint.md's table.
pub(super) const RULES: &[Rule] = &[
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
];

/// Codex's findings in one job, its steps' own first, then the steps around
/// them, in the order of the steps.
pub(super) fn lint(job: &AgentJob, out: &mut Vec<Finding>) {
    let (steps, runs) = (job.steps, job.runs);
    if runs.is_empty() {
        return;
    }
    for &i in runs {
        both_prompts(&steps[i], out);
        codex_version(&steps[i], out);
        codex_args(&steps[i], out);
    }
    restored_prompt(job, out);
    for (i, step) in steps.iter().enumerate() {
        if job.containers.contains(&i) {
            container_after_agent(step, steps, runs, i, out);
        }
        if job.receipts.contains(&i) {
            // The codex-action step this receipt describes: the last before it,
            // or for a receipt recorded before the agent, the first after it.
            let before = runs.iter().rev().find(|&&a| a < i);
            if let Some(&a) = before.or(runs.first()) {
                receipt_agrees(step, &steps[a], before.is_some(), out);
            }
        }
    }
}

/// A restore step before the job's first agent step, when that step is
/// codex-action's: the prompt it puts back is the one codex-action sends.
fn restored_prompt(job: &AgentJob, out: &mut Vec<Finding>) {
    let Some(&first_agent) = job.agents.first() else {
        return;
    };
    if !job.runs.contains(&first_agent) {
        return;
    }
    let agent = &job.steps[first_agent];
    for &i in job.restores.iter().filter(|&&i| i < first_agent) {
        let key = "prompt-file";
        let given = |s: &Step| workspace_path(&s.input(key), "");
        if let (Some(t), Some(m)) = (given(agent), given(&job.steps[i]))
            && t != m
        {
            out.push(finding(
                "receipt-mismatch",
                Level::Failure,
                job.steps[i].line_of(key),
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
    let args = match super::config::split_args(&value) {
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::workflow::Workflow;

    /// (line, level, rule) of Codex's findings in the first job of `text`.
    fn findings(text: &str) -> Vec<(u64, Level, &'static str)> {
        let doc = crate::yaml::parse(text).unwrap().unwrap();
        let workflow = Workflow::of(&doc);
        let steps = &workflow.jobs[0].steps;
        let runs: Vec<usize> = (0..steps.len())
            .filter(|&i| steps[i].is("openai/codex-action"))
            .collect();
        let job = AgentJob {
            steps,
            runs: &runs,
            agents: &runs,
            receipts: &[],
            restores: &[],
            containers: &[],
        };
        let mut out = Vec::new();
        lint(&job, &mut out);
        out.sort_by_key(|f| f.line);
        out.into_iter().map(|f| (f.line, f.level, f.rule)).collect()
    }

    #[test]
    fn both_prompts_and_a_range() {
        let text = "jobs:\n  r:\n    steps:\n      - uses: actions/checkout@v7\n        with:\n          fetch-depth: 0\n          persist-credentials: false\n      - uses: openai/codex-action@v1\n        with:\n          prompt: hi\n          prompt-file: p.md\n          codex-version: ^0.169\n";
        assert_eq!(
            findings(text),
            vec![
                (10, Level::Failure, "both-prompts"),
                (12, Level::Failure, "codex-version")
            ]
        );
    }
}
