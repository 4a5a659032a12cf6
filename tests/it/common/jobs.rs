//! The two-job layout's jobs, as the runner runs them: the agent job records,
//! runs the real Codex CLI and uploads; the receipt job is a fresh clone of
//! the same commit with the artifact downloaded into it.
#![allow(dead_code)]

use std::fs;
use std::path::PathBuf;

use serde_json::Value;

use super::codex::{self, FakeResponses, REVIEW};
use super::{EXAMPLE_PROMPT, Outcome, Scenario, copy_tree};

pub const PROMPT: &str = EXAMPLE_PROMPT;
/// What a workflow gives codex-action and prompt-receipt: `${{ runner.temp }}/codex-home`.
pub const CODEX_HOME: &str = "/home/runner/work/_temp/codex-home";

/// What the agent job leaves: its workspace, and the artifact it uploaded.
pub struct AgentJob {
    pub scenario: Scenario,
    pub artifact: tempfile::TempDir,
}

/// Job one: record, run the agent (answering with `script`), upload.
pub async fn agent_job(script: Vec<Vec<Value>>, sandbox: &str) -> AgentJob {
    let s = Scenario::example();
    s.remove("artifacts/review.json");
    agent_job_on(s.commit("no review yet"), script, sandbox).await
}

/// Job one on a checkout of the caller's making (committed, with no review).
pub async fn agent_job_on(s: Scenario, script: Vec<Vec<Value>>, sandbox: &str) -> AgentJob {
    agent_job_at(s, codex::CODEX_VERSION, script, sandbox).await
}

/// Job one with the Codex CLI at `version`.
pub async fn agent_job_at(
    s: Scenario,
    version: &str,
    script: Vec<Vec<Value>>,
    sandbox: &str,
) -> AgentJob {
    s.action()
        .input("mode", "record")
        .input("prompt-file", PROMPT)
        .input("codex-version", version)
        .run()
        .code(0);
    let server = FakeResponses::scripted(script).await;
    let home = s.runner_temp().join("codex-home");
    codex::write_config(&home, &server.url, "");
    codex::exec_version_beside(
        codex::codex_at(version),
        home.clone(),
        s.ws.clone(),
        ".".into(),
        s.read(PROMPT),
        vec!["--sandbox".into(), sandbox.into()],
    )
    .await;
    let artifact = tempfile::tempdir().unwrap();
    for file in ["usage.json", "artifacts/review.json"] {
        let to = artifact.path().join(file);
        fs::create_dir_all(to.parent().unwrap()).unwrap();
        fs::copy(s.ws.join(file), to).unwrap();
    }
    fs::create_dir_all(artifact.path().join("sessions")).unwrap();
    copy_tree(&home.join("sessions"), &artifact.path().join("sessions"));
    AgentJob {
        scenario: s,
        artifact,
    }
}

/// Job two's checkout as the fork reporter makes it: the artifact downloaded
/// under `RUNNER_TEMP` (`agent-review/`, `codex-home/sessions/`), nothing into
/// the workspace.
pub fn reporter_checkout(agent: &AgentJob) -> Scenario {
    let s = Scenario::clone_of(&agent.scenario);
    let temp = s.runner_temp();
    for file in ["usage.json", "artifacts/review.json"] {
        let to = temp.join("agent-review").join(file);
        fs::create_dir_all(to.parent().unwrap()).unwrap();
        fs::copy(agent.artifact.path().join(file), to).unwrap();
    }
    let sessions = temp.join("codex-home/sessions");
    fs::create_dir_all(&sessions).unwrap();
    copy_tree(&agent.artifact.path().join("sessions"), &sessions);
    s
}

/// Job two's checkout, with the artifact downloaded into it.
pub fn receipt_checkout(agent: &AgentJob) -> Scenario {
    let s = Scenario::clone_of(&agent.scenario);
    for file in ["usage.json", "artifacts/review.json"] {
        s.write(file, fs::read(agent.artifact.path().join(file)).unwrap());
    }
    let sessions = s.runner_temp().join("codex-home/sessions");
    fs::create_dir_all(&sessions).unwrap();
    copy_tree(&agent.artifact.path().join("sessions"), &sessions);
    s
}

pub fn receipt_job(s: &Scenario) -> Outcome {
    s.review_step()
        .input("model", "gpt-5.5")
        .input("codex-home", CODEX_HOME)
        .run()
}

/// The one session record the receipt job downloaded.
pub fn session_record(s: &Scenario) -> PathBuf {
    only_record(&s.runner_temp().join("codex-home/sessions"))
}

/// The one file under `sessions` (a codex-home's `sessions/` folder).
pub fn only_record(sessions: &std::path::Path) -> PathBuf {
    let mut found = Vec::new();
    let mut stack = vec![sessions.to_path_buf()];
    while let Some(dir) = stack.pop() {
        for e in fs::read_dir(dir).unwrap() {
            let p = e.unwrap().path();
            if p.is_dir() {
                stack.push(p);
            } else {
                found.push(p);
            }
        }
    }
    assert_eq!(found.len(), 1, "one record: {found:?}");
    found.pop().unwrap()
}

pub fn review() -> Vec<Vec<Value>> {
    vec![vec![codex::message(REVIEW)]]
}
