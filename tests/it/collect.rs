//! The collect action's script (collect/collect.sh) on what an agent job can
//! leave: bad inputs refused with one `::error` line naming the input and the
//! fix, links never followed, a missing record or review said, not fatal.

use crate::common;

use common::collect::{Given, run};

fn temp() -> tempfile::TempDir {
    tempfile::tempdir().unwrap()
}

#[test]
fn a_bad_input_is_one_error_naming_it_and_the_fix() {
    let t = temp();
    for (agent, when, says) in [
        (
            "copilot-x",
            "after-agent",
            "input agent is 'copilot-x': give codex",
        ),
        (
            "codex",
            "later",
            "input when is 'later': give before-agent or after-agent",
        ),
    ] {
        let out = run(
            agent,
            t.path(),
            &Given {
                when: Some(when),
                ..Default::default()
            },
        );
        assert!(!out.ok, "{}", out.log);
        let errors: Vec<&str> = out
            .log
            .lines()
            .filter(|l| l.starts_with("::error"))
            .collect();
        assert_eq!(errors.len(), 1, "{}", out.log);
        assert!(errors[0].contains(says), "{}", out.log);
    }
}

#[test]
fn a_link_the_agent_left_is_not_followed() {
    if common::jq_missing() {
        return;
    }
    let t = temp();
    let home = t.path().join("codex-home");
    let sessions = home.join("sessions/2026/12/02");
    std::fs::create_dir_all(&sessions).unwrap();
    let secret = t.path().join("secret.jsonl");
    std::fs::write(
        &secret,
        "{\"type\":\"session_meta\",\"payload\":{\"id\":\"TOPSECRET\"}}\n",
    )
    .unwrap();
    std::os::unix::fs::symlink(&secret, sessions.join("rollout-linked.jsonl")).unwrap();
    let review = t.path().join("review.json");
    std::os::unix::fs::symlink(&secret, &review).unwrap();
    let out = collect_codex(t.path(), &home, &review);
    assert!(out.ok, "{}", out.log);
    assert!(
        !out.dir.join("review.json").exists(),
        "a linked review was copied"
    );
    assert!(
        !out.dir
            .join("home/sessions/2026/12/02/rollout-linked.jsonl")
            .exists(),
        "a linked record was read"
    );
    assert!(out.log.contains("::warning"), "{}", out.log);
    assert!(
        out.log.contains("no session record of codex"),
        "{}",
        out.log
    );
}

#[test]
fn a_codex_record_is_cut_by_the_shipped_filter_and_staged_where_the_receipt_reads() {
    if common::jq_missing() {
        return;
    }
    let t = temp();
    let home = t.path().join("codex-home");
    let sessions = home.join("sessions/2026/12/02");
    std::fs::create_dir_all(&sessions).unwrap();
    std::fs::write(
        sessions.join("rollout-1.jsonl"),
        concat!(
            "{\"type\":\"session_meta\",\"payload\":{\"id\":\"s1\",\"cli_version\":\"0.169.0\"}}\n",
            "{\"type\":\"response_item\",\"payload\":{\"type\":\"function_call_output\",\"call_id\":\"c\",\"output\":\"TOPSECRET\"}}\n",
        ),
    )
    .unwrap();
    let review = t.path().join("review.json");
    std::fs::write(&review, "{\"ok\": true, \"findings\": []}\n").unwrap();
    let out = collect_codex(t.path(), &home, &review);
    assert!(out.ok, "{}", out.log);
    assert_eq!(
        std::fs::read(out.dir.join("review.json")).unwrap(),
        std::fs::read(&review).unwrap()
    );
    let cut =
        std::fs::read_to_string(out.dir.join("home/sessions/2026/12/02/rollout-1.jsonl")).unwrap();
    assert!(cut.contains("\"s1\""), "{cut}");
    assert!(
        !cut.contains("TOPSECRET"),
        "a tool output was uploaded: {cut}"
    );
    assert!(cut.contains("prompt_receipt_redacted"), "{cut}");
}

#[test]
fn gemini_before_the_agent_turns_on_local_telemetry_and_keeps_the_users_settings() {
    if common::jq_missing() {
        return;
    }
    let t = temp();
    let home = t.path().join(".gemini");
    std::fs::create_dir_all(&home).unwrap();
    std::fs::write(
        home.join("settings.json"),
        "{\"general\": {\"vimMode\": true}}",
    )
    .unwrap();
    let out = run(
        "gemini",
        t.path(),
        &Given {
            agent_home: Some(&home),
            when: Some("before-agent"),
            ..Default::default()
        },
    );
    assert!(out.ok, "{}", out.log);
    let settings: serde_json::Value =
        serde_json::from_slice(&std::fs::read(home.join("settings.json")).unwrap()).unwrap();
    assert_eq!(settings["general"]["vimMode"], true);
    assert_eq!(settings["telemetry"]["enabled"], true);
    assert_eq!(settings["telemetry"]["target"], "local");
    assert_eq!(settings["telemetry"]["logPrompts"], false);
    assert_eq!(
        settings["telemetry"]["outfile"],
        home.join("telemetry.log").display().to_string()
    );
    assert!(!out.dir.exists(), "before the agent, nothing is staged");
}

/// collect.sh for Codex as the agent job runs it: the home given to
/// codex-action, the review file; the runner's temp folder beside them.
fn collect_codex(
    dir: &std::path::Path,
    home: &std::path::Path,
    review: &std::path::Path,
) -> common::collect::Collected {
    run(
        "codex",
        &dir.join("runner-temp"),
        &Given {
            agent_home: Some(home),
            output_file: Some(review),
            ..Default::default()
        },
    )
}

/// A `.env` that points Gemini CLI's system instruction at any file would put
/// that file in the telemetry: then the telemetry stays in the job, however
/// the `.env` ends its lines (a carriage return, a byte order mark).
#[test]
fn gemini_telemetry_stays_behind_when_a_env_names_the_system_instruction() {
    if common::jq_missing() {
        return;
    }
    let staged = |env: Option<&[u8]>| {
        let t = temp();
        let ws = t.path().join("ws");
        let home = t.path().join(".gemini");
        std::fs::create_dir_all(&ws).unwrap();
        std::fs::create_dir_all(&home).unwrap();
        std::fs::write(home.join("telemetry.log"), "{}\n").unwrap();
        if let Some(env) = env {
            std::fs::write(ws.join(".env"), env).unwrap();
        }
        let out = run(
            "gemini",
            &t.path().join("runner-temp"),
            &Given {
                agent_home: Some(&home),
                output: Some("{}"),
                workspace: Some(&ws),
                ..Default::default()
            },
        );
        assert!(out.ok, "{}", out.log);
        out.dir.join("home/gemini-artifacts/telemetry.log").exists()
    };
    assert!(staged(None), "no .env: the telemetry is the record's");
    assert!(staged(Some(b"FOO=1\n")), "a .env that names nothing of it");
    for hostile in [
        &b"GEMINI_SYSTEM_MD=/proc/self/environ\n"[..],
        b"FOO=1\rGEMINI_SYSTEM_MD=/proc/self/environ\r",
        b"\xef\xbb\xbfGEMINI_SYSTEM_MD=/proc/self/environ\n",
        b"  export GEMINI_SYSTEM_MD=x\n",
    ] {
        assert!(
            !staged(Some(hostile)),
            "{}",
            String::from_utf8_lossy(hostile)
        );
    }
}
