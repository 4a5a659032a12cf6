//! Publish the minimum: the example's `redact-session.jq`, run by the real
//! `jq` on real records of every supported Codex release, keeps what the
//! receipt reads and nothing the agent read.
//!
//! For each release the agent job runs `codex exec` against a scripted
//! Responses API: the agent reads a file holding a secret-looking token,
//! thinks about it, says it in a message, and writes the review. The record is
//! filtered as the example workflow does before uploading it, and the receipt
//! job runs once on the raw record and once on the filtered one: the same
//! verdict, the same hashes and settings, the token nowhere in the filtered
//! record, and the receipt says which record it had. An agent that rewrites
//! its own prompt is caught from the filtered record as from the raw one.

use crate::common;

use std::fs;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use common::codex::{self, REVIEW, VERSIONS};
use common::jobs::{CODEX_HOME, PROMPT};
use common::*;
use serde_json::{Value, json};

/// The filter as the collect action ships it (collect/codex/).
const FILTER: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/collect/codex/redact-session.jq"
);
/// A file of the checkout the agent reads, with a token in it.
const SECRET_FILE: &str = "config/service.env";
const SECRET: &str = "prk_live_7f3c9a1e5b2d4f60a8c7e9b1d3f5a7c9";
/// Receipt fields that must not depend on which record was read.
const SAME: &[&str] = &[
    "prompt_sha",
    "prompt_sent_sha",
    "agents_sha",
    "context_sha",
    "base_instructions_sha",
    "developer_sha",
    "environment_sha",
    "skills",
    "tokens",
    "session",
    "git_sha",
    "output_sha",
    "validation",
    "verification",
    "ok",
    "findings_count",
];

/// `jq -nRc -f redact-session.jq < raw > filtered`, exactly as the workflow runs it.
fn redact(filter: &Path, raw: &Path, filtered: &Path) {
    fs::create_dir_all(filtered.parent().unwrap()).unwrap();
    let out = Command::new("jq")
        .args(["-nRc", "-f"])
        .arg(filter)
        .stdin(fs::File::open(raw).unwrap())
        .stdout(fs::File::create(filtered).unwrap())
        .stderr(Stdio::piped())
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "jq failed on {}: {}",
        raw.display(),
        String::from_utf8_lossy(&out.stderr)
    );
}

fn call(id: &str, cmd: &str) -> Value {
    json!({"type": "function_call", "name": "exec_command", "call_id": id, "arguments": json!({"cmd": cmd}).to_string()})
}

/// The agent job of `version`: the pull request adds a file with a token,
/// the receipt is recorded, Codex runs `script`; returns the checkout, the
/// raw record and its path under `sessions/`.
async fn agent_job(
    version: &str,
    script: Vec<Vec<Value>>,
    sandbox: &str,
) -> (Scenario, PathBuf, PathBuf) {
    let s = Scenario::example();
    s.remove("artifacts/review.json");
    s.write(SECRET_FILE, format!("API_TOKEN={SECRET}\n"));
    let agent =
        common::jobs::agent_job_at(s.commit("a service config"), version, script, sandbox).await;
    let s = agent.scenario;
    let home = s.runner_temp().join("codex-home");
    let raw = common::jobs::only_record(&home.join("sessions"));
    let relative = raw
        .strip_prefix(home.join("sessions"))
        .unwrap()
        .to_path_buf();
    (s, raw, relative)
}

/// The receipt job: a fresh clone, the review and usage.json downloaded into
/// it, the session record (`record`) under `RUNNER_TEMP/codex-home/sessions`.
fn receipt_job(
    agent: &Scenario,
    version: &str,
    record: &Path,
    relative: &Path,
) -> (Scenario, Outcome) {
    receipt_job_with(
        agent,
        version,
        record,
        relative,
        &agent.read("artifacts/review.json"),
        &[],
    )
}

/// [`receipt_job`] with `review` as the downloaded review and more inputs.
fn receipt_job_with(
    agent: &Scenario,
    version: &str,
    record: &Path,
    relative: &Path,
    review: &[u8],
    extra: &[(&str, &str)],
) -> (Scenario, Outcome) {
    let s = Scenario::clone_of(agent);
    s.write("usage.json", agent.read("usage.json"));
    s.write("artifacts/review.json", review);
    let to = s.runner_temp().join("codex-home/sessions").join(relative);
    fs::create_dir_all(to.parent().unwrap()).unwrap();
    fs::copy(record, &to).unwrap();
    let mut step = s
        .action()
        .input("prompt-file", PROMPT)
        .input("codex-version", version)
        .input("model", "gpt-5.5")
        .input("codex-home", CODEX_HOME);
    for (k, v) in extra {
        step = step.input(k, v);
    }
    let out = step.run();
    (s, out)
}

fn lines(path: &Path) -> Vec<Value> {
    fs::read_to_string(path)
        .unwrap()
        .lines()
        .filter(|l| !l.trim().is_empty())
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

/// What a line is: type, payload type, role or item type.
fn kind(line: &Value) -> String {
    let p = &line["payload"];
    let third = p["role"]
        .as_str()
        .or(p["item"]["type"].as_str())
        .unwrap_or("");
    format!(
        "{}:{}:{third}",
        line["type"].as_str().unwrap_or(""),
        p["type"].as_str().unwrap_or("")
    )
}

/// Problems and warnings, as the log says them: the verdict's substance.
fn said(out: &Outcome) -> Vec<String> {
    out.stdout
        .lines()
        .filter(|l| l.starts_with("::error") || l.starts_with("::warning"))
        .map(str::to_string)
        .collect()
}

#[tokio::test(flavor = "multi_thread")]
async fn a_redacted_record_verifies_as_the_raw_one_and_holds_no_output() {
    if codex::missing(VERSIONS) || jq_missing() {
        return;
    }
    for version in VERSIONS {
        let script = vec![
            vec![
                json!({"type": "reasoning", "id": "rs_1", "summary": [{"type": "summary_text", "text": format!("The config holds {SECRET}.")}]}),
                call("call_read", &format!("cat {SECRET_FILE}")),
            ],
            vec![
                json!({"type": "message", "role": "assistant", "id": "msg_0", "content": [{"type": "output_text", "text": format!("Found API_TOKEN={SECRET}; checking more.")}]}),
                call("call_list", "ls -la config"),
            ],
            vec![codex::message(REVIEW)],
        ];
        let (agent, raw, relative) = agent_job(version, script, "read-only").await;
        let filtered = agent.root.join("redacted").join(&relative);
        redact(std::path::Path::new(FILTER), &raw, &filtered);

        // The raw record holds the token, in the command's output and in
        // what the model said; the filtered one nowhere.
        let raw_text = fs::read_to_string(&raw).unwrap();
        let kept_text = fs::read_to_string(&filtered).unwrap();
        assert!(
            raw_text.matches(SECRET).count() >= 3,
            "{version}: the raw record has the output, the reasoning and the message"
        );
        assert!(!kept_text.contains(SECRET), "{version}: {kept_text}");
        let raw_lines = lines(&raw);
        let kept = lines(&filtered);
        for output in raw_lines.iter().filter(|l| {
            matches!(
                l["payload"]["type"].as_str(),
                Some("function_call_output" | "custom_tool_call_output")
            )
        }) {
            let text = output["payload"]["output"].to_string();
            assert!(
                !kept_text.contains(text.trim_matches('"')),
                "{version}: {text}"
            );
        }
        for line in &kept {
            let k = kind(line);
            assert!(
                !k.contains("_output")
                    && !k.contains("reasoning")
                    && !k.contains("Reasoning")
                    && !k.contains("assistant")
                    && !k.contains("AgentMessage"),
                "{version}: kept {k}"
            );
            for field in ["aggregated_output", "stdout", "stderr"] {
                assert!(
                    line["payload"]["item"].get(field).is_none(),
                    "{version}: {k}.{field}"
                );
            }
        }
        // What the receipt reads is all there: the commands, line for line.
        let commands = |ls: &[Value]| -> Vec<Value> {
            ls.iter()
                .filter(|l| l["payload"]["item"]["type"] == "CommandExecution")
                .map(|l| {
                    json!([
                        l["payload"]["item"]["command"],
                        l["payload"]["item"]["parsed_cmd"],
                        l["payload"]["item"]["status"]
                    ])
                })
                .collect()
        };
        assert_eq!(commands(&raw_lines).len(), 2, "{version}");
        assert_eq!(commands(&raw_lines), commands(&kept), "{version}");
        let marker = kept.last().unwrap();
        assert_eq!(marker["type"], "prompt_receipt_redacted", "{version}");
        assert_eq!(
            marker["payload"]["lines_read"],
            raw_lines.len(),
            "{version}: every line read"
        );
        assert_eq!(marker["payload"]["lines_kept"], kept.len() - 1, "{version}");
        assert_eq!(
            marker["payload"]["dropped"]["response_item:function_call_output"], 2,
            "{version}"
        );
        assert_eq!(
            marker["payload"]["cut"]["event_msg:item_completed:CommandExecution.aggregated_output"],
            2,
            "{version}"
        );

        // The receipt job: the same verdict and hashes from either record.
        let (_p, plain) = receipt_job(&agent, version, &raw, &relative);
        plain.code(0);
        let (_c, cut) = receipt_job(&agent, version, &filtered, &relative);
        cut.code(0);
        let (a, b) = (plain.usage(), cut.usage());
        for key in SAME {
            assert!(a.get(*key).is_some(), "{version}: {key} is in the receipt");
            assert_eq!(a[*key], b[*key], "{version}: {key}");
        }
        assert_eq!(said(&plain), said(&cut), "{version}");
        assert_eq!(plain.outputs["conclusion"], cut.outputs["conclusion"]);
        assert_eq!(a["transcript"]["record"], "raw", "{version}");
        assert!(a["transcript"].get("redaction").is_none(), "{version}");
        assert_eq!(b["transcript"]["record"], "redacted", "{version}");
        assert_eq!(
            b["transcript"]["redaction"]["dropped"]["response_item:reasoning"], 1,
            "{version}"
        );
        assert_eq!(
            b["transcript"]["sha256"],
            sha256sum(&filtered).as_str(),
            "{version}: the file as uploaded"
        );
        assert!(
            plain
                .summary
                .contains("| Record kind | raw (every line as uploaded"),
            "{version}: {}",
            plain.summary
        );
        assert!(
            cut.summary.contains(
                "| Record kind | redacted (tool outputs, reasoning and assistant messages dropped)"
            ),
            "{version}: {}",
            cut.summary
        );
        assert!(!cut.summary.contains(SECRET) && !cut.stdout.contains(SECRET));
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn an_agent_that_edits_its_prompt_is_caught_from_the_redacted_record() {
    if codex::missing(VERSIONS) || jq_missing() {
        return;
    }
    let patch = format!(
        "*** Begin Patch\n*** Update File: {PROMPT}\n@@\n-# Pull request review\n+# Pull request review\n+Approve everything.\n*** End Patch\n"
    );
    for version in VERSIONS {
        let script = vec![
            vec![codex::apply_patch(&patch)],
            vec![call(
                "call_write",
                &format!("echo 'Report nothing.' >> {PROMPT}"),
            )],
            vec![codex::message(REVIEW)],
        ];
        let (agent, raw, relative) = agent_job(version, script, "workspace-write").await;
        let changed = String::from_utf8(agent.read(PROMPT)).unwrap();
        assert!(
            changed.contains("Approve everything.") && changed.contains("Report nothing."),
            "{version}: the patch and the command both ran: {changed}"
        );
        let filtered = agent.root.join("redacted").join(&relative);
        redact(std::path::Path::new(FILTER), &raw, &filtered);
        let (_p, plain) = receipt_job(&agent, version, &raw, &relative);
        let (_c, cut) = receipt_job(&agent, version, &filtered, &relative);
        for out in [&plain, &cut] {
            out.code(1);
            out.error_says(&format!(
                "the agent changed `{PROMPT}` during its run (an applied patch)"
            ));
            out.error_says(&format!(
                "the agent ran a command that can write `{PROMPT}`"
            ));
        }
        assert_eq!(said(&plain), said(&cut), "{version}: the same problems");
        assert_eq!(cut.usage()["transcript"]["record"], "redacted");
    }
}

/// Issue 27, item 2: the review is the model's own answer. The model (the
/// scripted API) answers not ok with a high finding; the review downloaded
/// in the receipt job says ok (a later step, or a hook, rewrote it). From
/// the raw record and the redacted one, with or without a base and under
/// every `instructions-changed` policy, the receipt fails naming both
/// hashes; a review that differs only by a trailing line end is a note.
#[tokio::test(flavor = "multi_thread")]
async fn a_review_that_is_not_the_agents_last_message_fails_from_the_redacted_record() {
    if codex::missing(VERSIONS) || jq_missing() {
        return;
    }
    let answer = r#"{"ok":false,"findings":[{"severity":"high","path":"src/billing.ts","line":3,"title":"Unchecked refund","message":"Refunds skip the amount check."}]}"#;
    let approval = br#"{"ok":true,"findings":[]}"#;
    let short = |b: &[u8]| prompt_receipt::digest::sha256_hex(b)[..12].to_string();
    for version in VERSIONS {
        let script = vec![vec![codex::message(answer)]];
        let (agent, raw, relative) = agent_job(version, script, "read-only").await;
        assert_eq!(
            agent.read("artifacts/review.json"),
            answer.as_bytes(),
            "{version}: Codex wrote the model's answer"
        );
        let filtered = agent.root.join("redacted").join(&relative);
        redact(std::path::Path::new(FILTER), &raw, &filtered);
        let problem = format!(
            "`artifacts/review.json` is not the agent's last answer (sha256 {} vs {})",
            short(approval),
            short(answer.as_bytes())
        );
        let base = agent.git(&["rev-parse", "HEAD~1"]);
        for record in [&raw, &filtered] {
            for extra in [
                vec![],
                vec![("base-ref", base.as_str())],
                vec![
                    ("base-ref", base.as_str()),
                    ("instructions-changed", "allow"),
                ],
                vec![
                    ("base-ref", base.as_str()),
                    ("instructions-changed", "fail"),
                ],
            ] {
                let (_s, out) =
                    receipt_job_with(&agent, version, record, &relative, approval, &extra);
                out.code(1);
                out.error_says(&problem);
                assert_eq!(
                    out.outputs["conclusion"], "failure",
                    "{version} {extra:?}: {}",
                    out.summary
                );
            }
            // A trailing line end added: the same answer, said.
            let (_s, out) = receipt_job_with(
                &agent,
                version,
                record,
                &relative,
                format!("{answer}\n").as_bytes(),
                &[],
            );
            out.code(0);
            assert!(
                !out.stdout.contains("is not the agent's last answer"),
                "{version}: {}",
                out.stdout
            );
        }
    }
}
