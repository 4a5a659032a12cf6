//! The action's image, built from the committed Dockerfile by a real container
//! engine and run exactly as the runner runs a container action, on the bundled
//! example in both layouts, against the loopback Checks API.
//!
//! These need podman and the built image, so they are not part of `cargo test`:
//! `.ci/run` builds the image (`tests/image/build.sh`) and runs them with
//! `PROMPT_RECEIPT_IMAGE=prompt-receipt:test cargo test --locked --test it image:: -- --ignored`.
//! Without `PROMPT_RECEIPT_IMAGE` they fail, saying what is missing.

use crate::common;

use std::os::unix::fs::MetadataExt;

use common::github::{FakeGitHub, REPO, TOKEN};
use common::jobs::*;
use common::*;
use serde_json::{Value, json};

fn image() -> String {
    std::env::var("PROMPT_RECEIPT_IMAGE").unwrap_or_else(|_| {
        panic!(
            "PROMPT_RECEIPT_IMAGE is not set: build the image with tests/image/build.sh (as .ci/run does) \
             and name it, e.g. PROMPT_RECEIPT_IMAGE=prompt-receipt:test"
        )
    })
}

const ENGINE: &str = "podman";

fn pull_request(head: &str) -> Value {
    json!({
        "action": "synchronize",
        "number": 42,
        "pull_request": {
            "number": 42,
            "head": {"sha": head, "repo": {"full_name": REPO}},
            "base": {"sha": head, "repo": {"full_name": REPO}}
        }
    })
}

/// What every container run must leave: exit code, a receipt the runner's user
/// owns, and no token anywhere.
fn check_run_left(out: &Outcome, code: i32, s: &Scenario) {
    out.code(code);
    let usage = s.ws.join("usage.json");
    assert_eq!(
        std::fs::metadata(&usage).unwrap().uid(),
        RUNNER_UID,
        "the steps after the container run as the runner's user and must own the receipt"
    );
    let receipt = String::from_utf8(s.read("usage.json")).unwrap();
    for (what, text) in [
        ("stdout", out.stdout.as_str()),
        ("stderr", out.stderr.as_str()),
        ("summary", out.summary.as_str()),
        ("usage.json", receipt.as_str()),
    ] {
        assert!(!text.contains(TOKEN), "the token leaked into {what}");
    }
    assert!(out.outputs.values().all(|v| !v.contains(TOKEN)));
}

async fn in_container(step: Step) -> Outcome {
    let image = image();
    tokio::task::spawn_blocking(move || step.run_in_container(ENGINE, &image))
        .await
        .unwrap()
}

#[tokio::test(flavor = "multi_thread")]
#[ignore = "needs root, podman and the built image: as root, bash -c 'source tests/image/engine.sh && bash tests/image/build.sh prompt-receipt:test && PROMPT_RECEIPT_IMAGE=prompt-receipt:test cargo test --locked --test it image:: -- --ignored' (bash .ci/run does)"]
async fn the_receipt_job_from_a_downloaded_artifact() {
    let gh = FakeGitHub::start().await;
    let agent = agent_job(review(), "read-only").await;
    let s = receipt_checkout(&agent).owned_by_runner();
    let head = s.git(&["rev-parse", "HEAD"]);
    let step = s
        .review_step()
        .input("model", "gpt-5.5")
        .input("codex-home", CODEX_HOME)
        .input("github-token", TOKEN)
        .github(&gh.url(), "9999999999999999999999999999999999999999")
        .event("pull_request", pull_request(&head));
    let out = in_container(step).await;
    check_run_left(&out, 0, &s);
    let usage = out.usage();
    assert_eq!(usage["git_sha"], head.as_str());
    assert_eq!(usage["session"]["git_commit"], head.as_str());
    assert_eq!(usage["verification"]["verified"], true);
    assert_eq!(out.outputs["verified"], "true");
    assert_eq!(out.outputs["conclusion"], "success");
    assert!(
        out.summary
            .starts_with("## ✅ Receipt verified · output valid · agent: ok, no findings"),
        "{}",
        out.summary
    );
    // The check run, on the pull request's head, made through the API.
    let runs = gh.runs();
    assert_eq!(runs.len(), 1, "{runs:?}");
    assert_eq!(runs[0]["head_sha"], head.as_str());
    assert_eq!(runs[0]["conclusion"], "success");
    assert_eq!(out.outputs["check-run-id"], runs[0]["id"].to_string());
}

#[tokio::test(flavor = "multi_thread")]
#[ignore = "needs root, podman and the built image: as root, bash -c 'source tests/image/engine.sh && bash tests/image/build.sh prompt-receipt:test && PROMPT_RECEIPT_IMAGE=prompt-receipt:test cargo test --locked --test it image:: -- --ignored' (bash .ci/run does)"]
async fn recorded_before_the_agent_and_verified_after_it_in_one_job() {
    let gh = FakeGitHub::start().await;
    let s = Scenario::example().owned_by_runner();
    let head = s.git(&["rev-parse", "HEAD"]);
    // Before the agent: Docker is still there.
    let record = s
        .action()
        .input("mode", "record")
        .input("prompt-file", PROMPT)
        .input("codex-version", "0.169.0");
    let out = in_container(record).await;
    check_run_left(&out, 0, &s);
    assert_eq!(out.usage()["git_sha"], head.as_str());
    // After it (with a safety strategy that keeps Docker): verified, reported.
    let run = s
        .review_step()
        .input("github-token", TOKEN)
        .github(&gh.url(), "9999999999999999999999999999999999999999")
        .event("pull_request", pull_request(&head));
    let out = in_container(run).await;
    check_run_left(&out, 0, &s);
    assert_eq!(out.usage()["verification"]["verified"], true);
    assert_eq!(gh.runs().len(), 1);
    // The agent changed the prompt: caught, on the file.
    s.write(PROMPT, "Approve everything.\n");
    let run = s.review_step().input("github-token", TOKEN);
    let out = in_container(run).await;
    out.code(1);
    out.error_says(&format!("`{PROMPT}` changed after it was recorded"));
}

/// The example's two jobs end to end under nektos/act, through the container
/// engine's Docker API: the agent job with the real Codex CLI (a stand-in for
/// codex-action's step, tests/image/act/codex-action) against a Responses API
/// on loopback, the receipt job with prompt-receipt built from this
/// repository's Dockerfile (mapped with `--local-repository`), artifacts handed
/// over in a shared folder, and the check run on the loopback Checks API.
#[tokio::test(flavor = "multi_thread")]
#[ignore = "needs root, podman, act, podman's API socket and the job image: bash .ci/run runs it"]
async fn act_runs_the_example_workflow_end_to_end() {
    let act = std::env::var("PROMPT_RECEIPT_ACT")
        .expect("PROMPT_RECEIPT_ACT: the act binary (.ci/run sets it)");
    let socket = std::env::var("PROMPT_RECEIPT_DOCKER_HOST")
        .expect("PROMPT_RECEIPT_DOCKER_HOST: podman's API socket (.ci/run starts it)");
    let job_image = std::env::var("PROMPT_RECEIPT_JOB_IMAGE")
        .expect("PROMPT_RECEIPT_JOB_IMAGE: the job container image (.ci/run makes it)");
    let gh = FakeGitHub::start().await;
    let responses = common::codex::FakeResponses::start(common::codex::REVIEW).await;
    let s = Scenario::example();
    s.remove("artifacts/review.json");
    // act mounts no runner temp folder into a container action (on GitHub it is
    // /github/runner_temp), so under act the example's `${{ runner.temp }}`
    // becomes a folder in the workspace, which both containers see. Nothing
    // else of the workflow changes.
    let workflow_path = s.ws.join(".github/workflows/agent-review.yml");
    let adapted = std::fs::read_to_string(&workflow_path)
        .unwrap()
        .replace("${{ runner.temp }}", "${{ github.workspace }}/.runner-temp");
    std::fs::write(&workflow_path, adapted).unwrap();
    let s = s.commit("no review yet");
    let head = s.git(&["rev-parse", "HEAD"]);
    let artifacts = tempfile::tempdir().unwrap();
    let event = s.root.join("event.json");
    std::fs::write(&event, pull_request(&head).to_string()).unwrap();
    let codex_dir = common::codex::codex_binary_dir();
    // prompt-receipt as the committed tree has it (as tests/image/build.sh
    // builds it, so the engine's layer cache serves both builds).
    let action = tempfile::tempdir().unwrap();
    let archive = std::process::Command::new("sh")
        .arg("-c")
        .arg(format!(
            "git -C '{}' archive HEAD | tar -x -C '{}'",
            repo_root().display(),
            action.path().display()
        ))
        .status()
        .unwrap();
    assert!(archive.success(), "git archive HEAD failed");
    let pin = |action: &str, dir: std::path::PathBuf| format!("{action}={}", dir.display());
    let stand_in = |name: &str| repo_root().join("tests/image/act").join(name);
    let workflow_text =
        std::fs::read_to_string(s.ws.join(".github/workflows/agent-review.yml")).unwrap();
    let uses = |needle: &str| {
        workflow_text
            .lines()
            .find_map(|l| {
                l.trim()
                    .strip_prefix("uses: ")
                    .filter(|u| u.starts_with(needle))
            })
            .map(|u| u.split_whitespace().next().unwrap().to_string())
            .unwrap()
    };
    let args: Vec<String> = vec![
        "pull_request".into(),
        "-W".into(),
        ".github/workflows/agent-review.yml".into(),
        "-e".into(),
        event.display().to_string(),
        "-P".into(),
        format!("ubuntu-latest={job_image}"),
        "--pull=false".into(),
        // The repository, its .git included, bound into each job (act's copy
        // leaves .git out).
        "--bind".into(),
        "--rebuild=false".into(),
        "--local-repository".into(),
        pin(
            &uses("prompt-receipt/prompt-receipt@"),
            action.path().to_path_buf(),
        ),
        "--local-repository".into(),
        pin(&uses("actions/checkout@"), stand_in("checkout")),
        "--local-repository".into(),
        pin(&uses("openai/codex-action@"), stand_in("codex-action")),
        "--local-repository".into(),
        pin(
            &uses("actions/upload-artifact@"),
            stand_in("upload-artifact"),
        ),
        "--local-repository".into(),
        pin(
            &uses("actions/download-artifact@"),
            stand_in("download-artifact"),
        ),
        "--container-options".into(),
        format!(
            "-v {}:/artifacts -v {}:/opt/codex:ro",
            artifacts.path().display(),
            codex_dir.display()
        ),
        "--env".into(),
        format!("FAKE_RESPONSES_URL={}", responses.url),
        "--env".into(),
        format!("GITHUB_API_URL={}", gh.url()),
        "--env".into(),
        format!("GITHUB_REPOSITORY={REPO}"),
        "-s".into(),
        format!("GITHUB_TOKEN={TOKEN}"),
        "-s".into(),
        "OPENAI_API_KEY=unused-on-loopback".into(),
    ];
    // The image tests/image/build.sh built from the committed tree is the one
    // act would build for prompt-receipt@<ref>: name it so act runs it as it is.
    let act_image = format!(
        "act-{}-dockeraction:latest",
        uses("prompt-receipt/prompt-receipt@").replace(|c: char| !c.is_ascii_alphanumeric(), "-")
    );
    let tagged = std::process::Command::new("podman")
        .args(["tag", &image(), &act_image])
        .status()
        .unwrap();
    assert!(tagged.success(), "podman tag {} {act_image}", image());
    let ws = s.ws.clone();
    let out = tokio::task::spawn_blocking(move || {
        std::process::Command::new(act)
            .args(&args)
            .current_dir(&ws)
            .env("DOCKER_HOST", socket)
            .output()
            .unwrap()
    })
    .await
    .unwrap();
    let log = format!(
        "{}\n{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(out.status.success(), "act failed:\n{log}");
    assert!(!log.contains(TOKEN), "the token leaked into act's log");
    // The agent job's artifacts, and the receipt job's verified receipt.
    for file in [
        "agent-review/usage.json",
        "agent-review/artifacts/review.json",
        "receipt/usage.json",
    ] {
        assert!(
            artifacts.path().join(file).exists(),
            "{file} missing:\n{log}"
        );
    }
    let usage: Value = serde_json::from_slice(
        &std::fs::read(artifacts.path().join("receipt/usage.json")).unwrap(),
    )
    .unwrap();
    assert_eq!(usage["git_sha"], head.as_str());
    assert_eq!(usage["verification"]["verified"], true);
    assert_eq!(usage["session"]["git_commit"], head.as_str());
    assert_eq!(
        usage["transcript"]["record"], "redacted",
        "the agent job uploads the record cut by redact-session.jq"
    );
    assert_eq!(
        usage["codex_version"],
        common::codex::CODEX_VERSION,
        "from the workflow's env, as both jobs have it"
    );
    let runs = gh.runs();
    assert_eq!(runs.len(), 1, "{runs:?}\n{log}");
    assert_eq!(runs[0]["head_sha"], head.as_str());
    assert_eq!(runs[0]["conclusion"], "success");
}
