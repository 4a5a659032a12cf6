//! What reached the agent, proven with the real Codex CLI.
//!
//! `.ci/run` installs `@openai/codex` at a pinned version. Each case runs
//! `codex exec` as openai/codex-action does (prompt on stdin, `--cd`,
//! `--output-last-message`, `--output-schema`, `--sandbox read-only`) against a
//! Responses API on loopback that records what it was sent, then runs the
//! action, and compares the receipt's hashes with what the server received.

use crate::common;

use std::path::PathBuf;

use common::codex::{CODEX_VERSION, FakeResponses, REVIEW, exec_beside, write_config};
use common::*;
use prompt_receipt::digest::sha256_hex;
use serde_json::Value;

/// The text of input message `index` as the server received it.
fn input_text(request: &Value, index: usize) -> String {
    request["input"][index]["content"].as_array().unwrap()[0]["text"]
        .as_str()
        .unwrap()
        .to_string()
}

/// The AGENTS.md body inside the block the server received, if any.
fn agents_body(request: &Value) -> Option<String> {
    request["input"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|m| m["content"].as_array().cloned().unwrap_or_default())
        .find_map(|c| {
            let t = c["text"].as_str()?;
            prompt_receipt::agent::codex::chain::body_of_block(t).map(str::to_string)
        })
}

struct Case {
    scenario: Scenario,
    /// Under the step's `RUNNER_TEMP`, as `${{ runner.temp }}/codex-home` is.
    codex_home: PathBuf,
}

fn case(
    files: &[(&str, &[u8])],
    max_bytes: Option<u64>,
    global: Option<&str>,
    server: &str,
) -> Case {
    let scenario = Scenario::example();
    scenario.remove("AGENTS.md").remove("artifacts/review.json");
    for (path, bytes) in files {
        scenario.write(path, bytes);
    }
    let scenario = scenario.commit("case");
    let home = scenario.runner_temp().join("codex-home");
    let extra = max_bytes
        .map(|m| format!("project_doc_max_bytes = {m}\n"))
        .unwrap_or_default();
    write_config(&home, server, &extra);
    if let Some(g) = global {
        std::fs::write(home.join("AGENTS.md"), g).unwrap();
    }
    Case {
        codex_home: home,
        scenario,
    }
}

/// `codex exec` as openai/codex-action runs it, with a read-only sandbox.
/// Hands the case back: its folders live as long as it does.
async fn run_codex(c: Case, workdir: &str, stdin: &[u8]) -> Case {
    exec_beside(
        c.codex_home.clone(),
        c.scenario.ws.clone(),
        workdir.to_string(),
        stdin.to_vec(),
        vec!["--sandbox".into(), "read-only".into()],
    )
    .await;
    c
}

fn receipt(c: &Case, prompt_file: &str, workdir: &str, extra: &[(&str, &str)]) -> Outcome {
    let step = c
        .scenario
        .action()
        .input("prompt-file", prompt_file)
        .input("working-directory", workdir)
        .input("codex-version", CODEX_VERSION)
        .input("model", "gpt-5.5")
        .input("codex-home", c.codex_home.to_str().unwrap());
    step.with(extra).run()
}

/// Runs one case end to end and checks the receipt against the server.
/// Returns the case too: its temporary folders live as long as it does.
async fn prove(
    files: &[(&str, &[u8])],
    prompt: &str,
    workdir: &str,
    max_bytes: Option<u64>,
    global: Option<&str>,
) -> (Outcome, Value, Case) {
    let server = FakeResponses::start(REVIEW).await;
    let c = case(files, max_bytes, global, &server.url);
    let stdin = std::fs::read(c.scenario.ws.join(prompt)).unwrap();
    let dir = if workdir.is_empty() {
        ".".to_string()
    } else {
        workdir.to_string()
    };
    let c = run_codex(c, &dir, &stdin).await;
    let mut extra = Vec::new();
    let max = max_bytes.map(|m| m.to_string());
    if let Some(m) = &max {
        extra.push(("project-doc-max-bytes", m.as_str()));
    }
    let out = receipt(
        &c,
        prompt,
        if workdir.is_empty() { "." } else { workdir },
        &extra,
    );
    let request = server.only_request();
    assert!(
        out.ws.join("usage.json").exists(),
        "no receipt:\n{}\n{}",
        out.stdout,
        out.stderr
    );
    let usage = out.usage();
    assert_eq!(
        usage["prompt_sent_sha"],
        sha256_hex(input_text(&request, 3).as_bytes()),
        "prompt_sent_sha is what the server received"
    );
    match agents_body(&request) {
        Some(body) => assert_eq!(
            usage["agents_sha"],
            sha256_hex(body.as_bytes()),
            "agents_sha is the body the server received"
        ),
        None => assert_eq!(usage["agents_sha"], Value::Null),
    }
    (out, request, c)
}

const PROMPT: &str = "prompts/review.md";

#[tokio::test(flavor = "multi_thread")]
async fn prompt_bytes_lf_crlf_bom_and_no_trailing_newline() {
    if common::codex::missing(&[CODEX_VERSION]) {
        return;
    }
    for bytes in [
        &b"Review the diff.\nBe brief.\n"[..],
        b"Review the diff.\r\nBe brief.\r\n",
        b"\xEF\xBB\xBFReview the diff.\n",
        b"Review the diff.",
    ] {
        let (out, request, case) = prove(
            &[(PROMPT, bytes), ("AGENTS.md", b"Root rules.\n")],
            PROMPT,
            "",
            None,
            None,
        )
        .await;
        out.code(0);
        // The control: the same clean run, as receipt.yml runs it in the
        // binding layout, where anything not verified would fail: success.
        let gh = common::github::FakeGitHub::start().await;
        let bound = receipt(&case, PROMPT, ".", &[(BINDING, &gh.url())]);
        bound.code(0);
        assert_eq!(bound.outputs["layout"], "binding", "{:?}", bound.outputs);
        assert_eq!(bound.outputs["conclusion"], "success", "{}", bound.summary);

        let sent = input_text(&request, 3);
        let expected = bytes.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(bytes);
        assert_eq!(
            sent.as_bytes(),
            expected,
            "Codex sends the bytes, less a BOM"
        );
        if bytes.starts_with(b"\xEF\xBB\xBF") {
            assert!(
                out.stdout.contains("byte order mark, which Codex strips"),
                "{}",
                out.stdout
            );
        }
        let usage = out.usage();
        assert_eq!(usage["session"]["cli_version"], CODEX_VERSION);
        assert_eq!(usage["tokens"]["total"], 1250);
        assert_eq!(out.outputs["total-tokens"], "1250");
        assert_eq!(
            out.outputs["prompt-sent-sha"],
            usage["prompt_sent_sha"].as_str().unwrap()
        );
        assert!(
            usage["transcript"]["path"]
                .as_str()
                .unwrap()
                .starts_with("$CODEX_HOME/sessions/")
        );
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn nested_agents_files_with_an_override() {
    if common::codex::missing(&[CODEX_VERSION]) {
        return;
    }
    let files: &[(&str, &[u8])] = &[
        (PROMPT, b"Review.\n"),
        ("AGENTS.md", b"Root rules.\r\n"),
        ("svc/AGENTS.md", b"Hidden by the override."),
        ("svc/AGENTS.override.md", b"Service override.\n"),
        ("svc/api/AGENTS.md", "API rules: caf\u{e9}.".as_bytes()),
    ];
    let (out, request, _case) = prove(files, PROMPT, "svc/api", None, None).await;
    out.code(0);
    assert_eq!(
        agents_body(&request).unwrap(),
        "Root rules.\r\n\n\nService override.\n\n\nAPI rules: caf\u{e9}."
    );
    assert!(
        out.stdout.contains("hides the `AGENTS.md` beside it"),
        "{}",
        out.stdout
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn an_empty_override_silences_its_folder() {
    if common::codex::missing(&[CODEX_VERSION]) {
        return;
    }
    let files: &[(&str, &[u8])] = &[
        (PROMPT, b"Review.\n"),
        ("AGENTS.md", b"Root."),
        ("svc/AGENTS.override.md", b"  \n"),
        ("svc/AGENTS.md", b"Not read."),
    ];
    let (out, request, _case) = prove(files, PROMPT, "svc", None, None).await;
    out.code(0);
    assert_eq!(agents_body(&request).unwrap(), "Root.");
}

#[tokio::test(flavor = "multi_thread")]
async fn a_chain_over_the_budget() {
    if common::codex::missing(&[CODEX_VERSION]) {
        return;
    }
    let files: &[(&str, &[u8])] = &[
        (PROMPT, b"Review.\n"),
        ("AGENTS.md", b"0123456789"),
        ("a/AGENTS.md", b"abcdefghij"),
        ("a/b/AGENTS.md", b"dropped"),
    ];
    let (out, request, _case) = prove(files, PROMPT, "a/b", Some(15), None).await;
    out.code(0);
    assert_eq!(agents_body(&request).unwrap(), "0123456789\n\nabcde");
    let truncated: Vec<bool> = out.usage()["agents"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["truncated"].as_bool().unwrap())
        .collect();
    assert_eq!(truncated, vec![false, true, true]);
    assert!(
        out.stdout.contains("was cut to 5 of its 10 bytes"),
        "{}",
        out.stdout
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn a_global_agents_file_comes_first() {
    if common::codex::missing(&[CODEX_VERSION]) {
        return;
    }
    let files: &[(&str, &[u8])] = &[(PROMPT, b"Review.\n"), ("AGENTS.md", b"Project rules.")];
    let (out, request, _case) = prove(files, PROMPT, "", None, Some("\n  Global rules.  \n")).await;
    out.code(0);
    assert_eq!(
        agents_body(&request).unwrap(),
        "Global rules.\n\n--- project-doc ---\n\nProject rules."
    );
    assert_eq!(out.usage()["agents"][0]["path"], "$CODEX_HOME/AGENTS.md");
}

#[tokio::test(flavor = "multi_thread")]
async fn a_rendered_prompt_that_differs_from_the_committed_one_fails() {
    if common::codex::missing(&[CODEX_VERSION]) {
        return;
    }
    let server = FakeResponses::start(REVIEW).await;
    let c = case(
        &[
            ("prompts/review.tmpl.md", b"Review {{ pr }}.\n"),
            ("AGENTS.md", b"Root."),
        ],
        None,
        None,
        &server.url,
    );
    // The harness rendered the template and sent that, but recorded the template.
    let c = run_codex(c, ".", b"Review #42.\n").await;
    let out = receipt(&c, "prompts/review.tmpl.md", ".", &[]);
    out.code(1);
    let errors = out.errors().join("\n");
    let sent = sha256_hex(b"Review #42.\n");
    let committed = sha256_hex(b"Review {{ pr }}.\n");
    assert!(
        errors.contains(&sent[..12]) && errors.contains(&committed[..12]),
        "names both hashes: {errors}"
    );
    assert!(errors.contains("template was rendered"), "{errors}");
    assert_eq!(out.outputs["conclusion"], "failure");
}

#[tokio::test(flavor = "multi_thread")]
async fn the_record_must_match_the_claimed_version_model_and_review() {
    if common::codex::missing(&[CODEX_VERSION]) {
        return;
    }
    let server = FakeResponses::start(REVIEW).await;
    let c = case(
        &[(PROMPT, b"Review.\n"), ("AGENTS.md", b"Root.")],
        None,
        None,
        &server.url,
    );
    let c = run_codex(c, ".", b"Review.\n").await;
    receipt(&c, PROMPT, ".", &[]).code(0);
    let out = receipt(
        &c,
        PROMPT,
        ".",
        &[("codex-version", "0.170.0"), ("model", "o3")],
    );
    out.code(1);
    let errors = out.errors().join("\n");
    assert!(
        errors.contains("agent-version is `0.170.0` but the record was written by Codex `0.169.0`"),
        "{errors}"
    );
    assert!(
        errors.contains("model is `o3` but the session ran `gpt-5.5`"),
        "{errors}"
    );
    // Something rewrote the review after the agent.
    c.scenario.write(
        "artifacts/review.json",
        r#"{"ok":true,"findings":[],"edited":1}"#,
    );
    let out = receipt(&c, PROMPT, ".", &[]);
    out.code(1);
    out.error_says("is not the agent's last answer");
    // The token budget.
    c.scenario.write("artifacts/review.json", REVIEW);
    let out = receipt(&c, PROMPT, ".", &[("max-total-tokens", "1000")]);
    out.code(1);
    out.error_says("used 1250 tokens");
}

#[test]
fn no_codex_home_is_a_note_and_a_missing_record_a_failure() {
    let s = Scenario::example();
    let out = s.review_step().run();
    out.code(0);
    // Said once, in the summary's evidence; not an annotation on every run.
    assert!(!out.stdout.contains("no codex-home"), "{}", out.stdout);
    assert!(
        out.summary
            .contains("no codex-home: the receipt cannot vouch"),
        "{}",
        out.summary
    );
    let empty = s.runner_temp().join("empty-codex-home");
    std::fs::create_dir_all(&empty).unwrap();
    let out = s
        .review_step()
        .input("codex-home", empty.to_str().unwrap())
        .run();
    out.code(1);
    out.error_says("no session record");
    // A folder the container could not see is refused, not read.
    let elsewhere = tempfile::tempdir().unwrap();
    let out = s
        .review_step()
        .input("codex-home", elsewhere.path().to_str().unwrap())
        .run();
    out.code(2);
    out.error_says("is not a folder here");
    let out = s
        .review_step()
        .input("codex-home", "/nowhere/_temp/codex-home")
        .run();
    out.code(2);
    assert!(out.errors()[0].contains("input `codex-home`"));
}
