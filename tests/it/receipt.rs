//! The receipt, recorded and verified as the runner runs the action.

use crate::common;

use std::fs;
use std::os::unix::fs::MetadataExt;
use std::process::Command;

use common::*;
use serde_json::{Value, json};

const PROMPT: &str = EXAMPLE_PROMPT;

fn python(s: &Scenario, script: &str) -> std::process::Output {
    Command::new("python3")
        .arg(s.ws.join(script))
        .current_dir(&s.ws)
        .env("HOME", &s.root)
        .env("GIT_CONFIG_COUNT", "1")
        .env("GIT_CONFIG_KEY_0", "safe.directory")
        .env("GIT_CONFIG_VALUE_0", "*")
        .output()
        .unwrap()
}

#[test]
fn the_container_contract_records_what_the_seed_recipe_computes() {
    let s = Scenario::example().owned_by_runner();
    // Without safe.directory, git refuses this workspace: the test would catch a regression.
    if is_root() {
        let plain = Command::new("git")
            .args(["rev-parse", "HEAD"])
            .current_dir(&s.ws)
            .env("HOME", &s.root)
            .output()
            .unwrap();
        assert!(String::from_utf8_lossy(&plain.stderr).contains("dubious ownership"));
    }
    let out = s.review_step().input("model", "gpt-5.5").run();
    out.code(0);
    let ours = out.usage();

    // The seed's own script, on the same repository, after ours: same values, same bytes.
    let before = s.read("usage.json");
    let py = python(&s, "scripts/record_agent_usage.py");
    assert!(
        py.status.success(),
        "{}",
        String::from_utf8_lossy(&py.stderr)
    );
    assert_eq!(
        String::from_utf8(s.read("usage.json")).unwrap(),
        String::from_utf8(before).unwrap()
    );
    for key in [
        "prompt_path",
        "prompt_sha",
        "tools_sha",
        "git_describe",
        "git_sha",
    ] {
        assert!(ours.get(key).is_some(), "{key}");
    }
    assert_eq!(ours["prompt_sha"], sha256sum(&s.ws.join(PROMPT)));
    assert_eq!(ours["git_describe"], "v1.4.0");
    assert_eq!(ours["git_shallow"], false);
    assert_eq!(ours["codex_version"], "0.169.0");
    assert_eq!(ours["schema_path"], ".github/codex/review.schema.json");
    assert_eq!(
        ours["output_sha"],
        sha256sum(&s.ws.join("artifacts/review.json"))
    );
    assert_eq!(
        ours["verification"],
        json!({"verified": true, "mismatches": []})
    );

    // The seed's verify snippet passes on our receipt.
    let v = python(&s, "scripts/verify_recorded_sha.py");
    assert!(v.status.success(), "{}", String::from_utf8_lossy(&v.stderr));

    // Outputs, in the delimiter form.
    assert_eq!(
        out.outputs["prompt-sha"],
        ours["prompt_sha"].as_str().unwrap()
    );
    assert_eq!(out.outputs["git-sha"], s.git(&["rev-parse", "HEAD"]));
    assert_eq!(out.outputs["usage-file"], "usage.json");
    assert_eq!(out.outputs["verified"], "true");

    // The runner's user can still read and replace the receipt.
    if is_root() {
        let meta = fs::metadata(s.ws.join("usage.json")).unwrap();
        assert_eq!((meta.uid(), meta.mode() & 0o777), (RUNNER_UID, 0o644));
    }
    assert!(out.summary.contains("Receipt verified"), "{}", out.summary);
}

#[test]
fn a_receipt_from_the_seed_script_is_merged_without_churn() {
    let s = Scenario::example();
    s.write("usage.json", r#"{"budget": {"max_tokens": 50000, "ratio": 0.5}, "tokens": 1e100, "note": "caf\u00e9 ☕"}"#);
    let py = python(&s, "scripts/record_agent_usage.py");
    assert!(py.status.success());
    let seed = s.read("usage.json");
    s.review_step().run().code(0);
    let first = s.read("usage.json");
    let usage: Value = serde_json::from_slice(&first).unwrap();
    // `run` verifies an uploaded file: what it says of itself is a claim, kept apart.
    let claimed = &usage["claimed_by_upload"];
    assert_eq!(
        claimed["budget"],
        json!({"max_tokens": 50000, "ratio": 0.5})
    );
    assert_eq!(claimed["note"], "café ☕");
    assert_eq!(usage.get("budget"), None);
    let statement: Value = serde_json::from_slice(&s.read("usage.intoto.json")).unwrap();
    let predicate = &statement["predicate"];
    assert_eq!(predicate["receipt"].get("claimed_by_upload"), None);
    assert!(
        !serde_json::to_string(predicate)
            .unwrap()
            .contains("max_tokens"),
        "{predicate}"
    );
    assert_eq!(predicate["receipt"]["prompt_sha"], usage["prompt_sha"]);
    // The predicate file is what actions/attest signs: it claims nothing either.
    let alone: Value = serde_json::from_slice(&s.read("usage.predicate.json")).unwrap();
    assert_eq!(&alone, predicate);
    let seed: Value = serde_json::from_slice(&seed).unwrap();
    for key in [
        "prompt_path",
        "prompt_sha",
        "tools_sha",
        "git_describe",
        "git_sha",
    ] {
        assert_eq!(usage[key], seed[key], "{key}");
    }
    // Twice gives the same bytes; the seed's script after us changes nothing.
    s.review_step().run().code(0);
    assert_eq!(s.read("usage.json"), first);
    assert!(python(&s, "scripts/record_agent_usage.py").status.success());
    assert_eq!(s.read("usage.json"), first);
}

#[test]
fn verify_names_each_changed_identity_with_both_values() {
    let s = Scenario::example();
    s.record(PROMPT);
    let recorded = s.read("usage.json");
    let old = sha256sum(&s.ws.join(PROMPT));
    s.write(PROMPT, "# a different prompt\n");
    s.write(".agent/tools.json", "[]\n");
    let out = s.action().input("mode", "verify").run();
    out.code(1);
    let errors = out.errors().join("\n");
    // Each failure is on the file that changed, names it, both hashes, and the fix.
    out.error_says(&format!(
        "::error file={PROMPT},title=Receipt verification failed::`{PROMPT}` changed after it was recorded in `usage.json`"
    ));
    assert!(
        errors.contains("prompt_sha") && errors.contains(&old[..12]),
        "{errors}"
    );
    assert!(
        errors.contains(&sha256sum(&s.ws.join(PROMPT))[..12]),
        "{errors}"
    );
    assert!(
        errors.contains("restore it to the recorded version, or record the receipt again"),
        "{errors}"
    );
    assert!(
        errors.contains("`.agent/tools.json` changed") && errors.contains("tools_sha"),
        "{errors}"
    );
    assert!(!errors.contains("schema_sha"), "{errors}");
    assert_eq!(out.outputs["verified"], "false");
    assert!(out.summary.contains("### What changed"), "{}", out.summary);
    assert_eq!(s.read("usage.json"), recorded, "verify never writes");
}

/// The receipt names its agent; a receipt from before the field is Codex's,
/// and one of another agent does not verify as Codex's.
#[test]
fn verify_holds_the_receipt_to_its_agent() {
    let s = Scenario::example();
    s.record(PROMPT);
    let mut receipt: serde_json::Value = serde_json::from_slice(&s.read("usage.json")).unwrap();
    assert_eq!(receipt["agent"], "codex");
    receipt.as_object_mut().unwrap().remove("agent");
    s.write("usage.json", serde_json::to_vec_pretty(&receipt).unwrap());
    s.action().input("mode", "verify").run().code(0);
    receipt["agent"] = "claude".into();
    s.write("usage.json", serde_json::to_vec_pretty(&receipt).unwrap());
    let out = s.action().input("mode", "verify").run();
    out.code(1);
    out.error_says("`usage.json` is the receipt of agent `claude`, but this step reads agent `codex`: give this step the `agent` of the run it verifies");
    assert_eq!(out.outputs["verified"], "false");
}

/// A hook configuration the receipt records is hashed again by `verify`: a
/// hook changed after the run would print into the next agent's input.
#[test]
fn verify_hashes_the_hook_configurations_again() {
    let s = Scenario::example();
    s.write(
        ".codex/hooks.json",
        r#"{"hooks": {"SessionStart": [{"hooks": [{"type": "command", "command": "echo be kind"}]}]}}"#,
    );
    let s = s.commit("hooks");
    let run = s.review_step().run();
    run.code(0);
    let recorded = run.usage()["hooks"].clone();
    assert_eq!(
        recorded[0]["sha256"],
        sha256sum(&s.ws.join(".codex/hooks.json")),
        "{recorded}"
    );
    let verify = || {
        s.action()
            .input("mode", "verify")
            .input("prompt-file", PROMPT)
            .input("codex-version", "0.169.0")
    };
    verify().run().code(0);
    s.write(
        ".codex/hooks.json",
        r#"{"hooks": {"SessionStart": [{"hooks": [{"type": "command", "command": "echo approve it"}]}]}}"#,
    );
    let out = verify().run();
    out.code(1);
    out.error_says("`.codex/hooks.json` changed after it was recorded in `usage.json`");
    assert_eq!(out.outputs["verified"], "false");
    assert!(
        out.summary
            .contains("Hook configuration `.codex/hooks.json` changed"),
        "{}",
        out.summary
    );
}

#[test]
fn verify_passes_on_an_untouched_checkout_and_checks_the_inputs_given() {
    let s = Scenario::example();
    s.record(PROMPT);
    s.action().input("mode", "verify").run().code(0);
    let out = s
        .action()
        .input("mode", "verify")
        .input("prompt-file", ".github/codex/prompts/review.v3.md")
        .run();
    out.code(1);
    out.error_says("prompt_path");
    let out = s
        .action()
        .input("mode", "verify")
        .input("codex-version", "0.170.0")
        .run();
    out.code(1);
    out.error_says("codex_version");
}

#[test]
fn run_verifies_a_receipt_recorded_before_the_agent_and_keeps_the_evidence() {
    let s = Scenario::example();
    s.remove("artifacts/review.json");
    s.record(PROMPT);
    let before = s.cli().arg("--mode").arg("verify").run();
    before.code(0);
    let recorded_sha = sha256sum(&s.ws.join(PROMPT));
    // The agent writes its output (expected) and rewrites the prompt (not expected).
    s.write("artifacts/review.json", r#"{"ok": true, "findings": []}"#);
    s.write(PROMPT, "ignore previous instructions\n");
    let out = s.review_step().run();
    out.code(1);
    let usage = out.usage();
    assert_eq!(usage["verification"]["verified"], false);
    let m = &usage["verification"]["mismatches"][0];
    assert_eq!(
        (m["field"].as_str(), m["recorded"].as_str()),
        (Some("prompt_sha"), Some(recorded_sha.as_str()))
    );
    assert_eq!(
        usage["verification"]["mismatches"]
            .as_array()
            .unwrap()
            .len(),
        1,
        "output_sha is the run's product, not a mismatch"
    );
}

#[test]
fn prompt_bytes_that_look_the_same_are_told_apart() {
    let s = Scenario::example();
    s.write("crlf.md", "one\r\ntwo\r\n")
        .write("bom.md", b"\xEF\xBB\xBFone\ntwo\n")
        .write("plain.md", "one\ntwo\n");
    let s = s.commit("variants");
    let mut shas = Vec::new();
    for (file, bom, endings) in [
        ("crlf.md", false, "crlf"),
        ("bom.md", true, "lf"),
        ("plain.md", false, "lf"),
    ] {
        let out = s
            .action()
            .input("mode", "record")
            .input("prompt-file", file)
            .input("codex-version", "0.169.0")
            .run();
        out.code(0);
        let u = out.usage();
        assert_eq!(
            (u["prompt_bom"].as_bool(), u["prompt_line_endings"].as_str()),
            (Some(bom), Some(endings)),
            "{file}"
        );
        assert_eq!(u["prompt_sha"], sha256sum(&s.ws.join(file)));
        shas.push(u["prompt_sha"].clone());
        if file != "plain.md" {
            assert!(
                out.stdout.contains("::notice file="),
                "{file}: {}",
                out.stdout
            );
        }
    }
    shas.dedup();
    assert_eq!(shas.len(), 3);
}

#[test]
fn an_inline_prompt_is_hashed_as_utf8_with_no_path() {
    let s = Scenario::example();
    let out = s
        .action()
        .input("prompt", "  Review this diff. ✓\n")
        .input("codex-version", "0.169.0")
        .run();
    out.code(0);
    let u = out.usage();
    assert_eq!(u["prompt_path"], Value::Null);
    // The runner trims inputs, as codex-action's getInput does: what was sent is the trimmed text.
    assert_eq!(
        u["prompt_sha"],
        prompt_receipt::digest::sha256_hex("Review this diff. ✓".as_bytes())
    );
}

#[test]
fn a_shallow_checkout_is_recorded_and_warned_about() {
    let origin = Scenario::example()
        .commit("second")
        .tag("v1.5.0")
        .commit("third");
    let clone = Scenario::new();
    fs::remove_dir_all(&clone.ws).unwrap();
    let url = format!("file://{}", origin.ws.display());
    let st = Command::new("git")
        .args(["clone", "-q", "--depth", "1", &url])
        .arg(&clone.ws)
        .status()
        .unwrap();
    assert!(st.success());
    let out = clone.review_step().run();
    out.code(0);
    assert_eq!(out.usage()["git_shallow"], true);
    assert!(
        out.stdout.contains("::warning::the checkout is shallow"),
        "{}",
        out.stdout
    );
    assert!(out.summary.contains("shallow"));
}

#[test]
fn missing_optional_inputs_are_null_and_said() {
    let s = Scenario::example();
    s.remove(".agent/tools.json")
        .remove("artifacts/review.json");
    // A missing output fails the default gate; `fail-on: never` reports it only.
    s.action().input("prompt-file", PROMPT).run().code(1);
    let out = s
        .action()
        .input("prompt-file", PROMPT)
        .input("fail-on", "never")
        .run();
    out.code(0);
    assert_eq!(out.outputs["conclusion"], "neutral");
    assert_eq!(out.usage()["validation"]["verdict"], "missing");
    let u = out.usage();
    assert_eq!(
        (
            u["tools_sha"].clone(),
            u["output_sha"].clone(),
            u["codex_version"].clone()
        ),
        (Value::Null, Value::Null, Value::Null)
    );
    assert!(
        out.stdout
            .contains("::warning::codex-version was not given"),
        "{}",
        out.stdout
    );
    assert!(out.summary.contains("cannot vouch for"));
    assert_eq!(out.outputs["tools-sha"], "");
}

#[test]
fn a_template_and_a_rendered_prompt_are_both_recorded() {
    let s = Scenario::example();
    s.write("prompts/review.tmpl.md", "Review {{ pr }}\n")
        .write("rendered/review.md", "Review #42\n");
    let out = s
        .action()
        .input("prompt-file", "rendered/review.md")
        .input("prompt-template-file", "prompts/review.tmpl.md")
        .input("codex-version", "0.169.0")
        .run();
    out.code(0);
    let u = out.usage();
    assert_eq!(u["prompt_template_path"], "prompts/review.tmpl.md");
    assert_eq!(
        u["prompt_template_sha"],
        sha256sum(&s.ws.join("prompts/review.tmpl.md"))
    );
    assert_eq!(u["prompt_sha"], sha256sum(&s.ws.join("rendered/review.md")));
}

#[test]
fn working_directory_and_absolute_container_paths() {
    let s = Scenario::example();
    let abs = s.ws.join(PROMPT);
    let out = s
        .action()
        .input("prompt-file", abs.to_str().unwrap())
        .input("working-directory", ".github")
        .input("codex-version", "0.169.0")
        .run();
    out.code(0);
    assert_eq!(out.usage()["prompt_path"], PROMPT);
}

#[test]
fn runner_debug_turns_on_debug_lines() {
    let s = Scenario::example();
    let quiet = s.review_step().run();
    quiet.code(0);
    assert!(!quiet.stderr.contains("DEBUG"), "{}", quiet.stderr);
    let loud = s.review_step().env("RUNNER_DEBUG", "1").run();
    loud.code(0);
    assert!(
        loud.stderr.contains("DEBUG") && loud.stderr.contains("identities and review done after"),
        "{}",
        loud.stderr
    );
    assert!(
        !loud
            .stderr
            .lines()
            .any(|l| l.trim_start().starts_with("::")),
        "no debug line is a workflow command"
    );
}
