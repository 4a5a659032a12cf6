//! Controlled prompt changes: two runs on the same frozen fixture, compared;
//! and the attestable receipt each run leaves beside its usage.json.

use crate::common;

use common::*;
use serde_json::Value;

const V3: &str = ".github/codex/prompts/review.v3.md";
const V4: &str = ".github/codex/prompts/review.v4.md";
const FIXTURE: &str = "fixtures/pr-42.diff";

/// One review run: a prompt, its output, the fixture, a receipt file.
fn review_run(s: &Scenario, prompt: &str, output: &str, usage: &str, extra: &[(&str, &str)]) {
    let mut step = s
        .action()
        .input("prompt-file", prompt)
        .input("output-file", output)
        .input("usage-file", usage)
        .input("fixture-file", FIXTURE)
        .input("codex-version", "0.169.0")
        .input("model", "gpt-5.5");
    for (k, v) in extra {
        step = step.input(k, v);
    }
    step.run().code(0);
}

fn compare(s: &Scenario, extra: &[(&str, &str)]) -> Outcome {
    let mut step = s
        .action()
        .input("mode", "compare")
        .input("base-usage-file", "base/usage.json")
        .input("base-output-file", "artifacts/review.v3.json")
        .input("output-file", "artifacts/review.v4.json")
        .input("usage-file", "head/usage.json");
    for (k, v) in extra {
        step = step.input(k, v);
    }
    step.run()
}

#[test]
fn v3_against_v4_on_the_same_fixture_is_controlled() {
    let s = Scenario::example();
    review_run(&s, V3, "artifacts/review.v3.json", "base/usage.json", &[]);
    review_run(&s, V4, "artifacts/review.v4.json", "head/usage.json", &[]);
    let out = compare(&s, &[]);
    out.code(0);
    assert_eq!(out.outputs["controlled"], "true");
    assert_eq!(out.outputs["findings-added"], "1");
    assert_eq!(out.outputs["findings-removed"], "0");
    assert_eq!(out.outputs["conclusion"], "success");
    // v3's finding and v4's differ by a full stop only: matched, not added.
    assert!(
        out.summary
            .contains("1 added, 0 removed, 0 kept, 1 reworded"),
        "{}",
        out.summary
    );
    assert!(out.summary.contains("New dependency without an owner"));
    // What a reader needs to believe "controlled": the prompt files, the
    // diff of their text, every channel with its state, findings by severity.
    assert!(out.summary.starts_with(
        "## ✅ Controlled prompt change: `review.v3.md` → `review.v4.md` · findings: 1 added, 0 removed\n"
    ), "{}", out.summary);
    assert!(
        out.summary.contains(&format!("Base `{V3}`"))
            && out.summary.contains(&format!("head `{V4}`"))
    );
    assert!(
        out.summary.contains(&format!(
            "```diff\n--- base/{V3}\n+++ head/{V4}\n@@ -7,4 +7,5 @@\n"
        )),
        "{}",
        out.summary
    );
    assert!(
        out.summary
            .contains("\n+- If the diff adds a dependency, require a human reviewer.\n")
    );
    for channel in [
        "tools",
        "agents",
        "schema",
        "agent-version",
        "model",
        "fixture",
    ] {
        assert!(
            out.summary
                .contains(&format!("| {channel} | ✅ unchanged |")),
            "{channel} in {}",
            out.summary
        );
    }
    assert!(
        out.summary
            .contains("| prompt | ✏️ changed: the change under test |")
    );
    assert!(
        out.summary.contains("| ➕ added | 🟠 high | package.json:"),
        "{}",
        out.summary
    );
    let base = s.read("base/usage.json");
    let head = s.read("head/usage.json");
    let (b, h): (Value, Value) = (
        serde_json::from_slice(&base).unwrap(),
        serde_json::from_slice(&head).unwrap(),
    );
    assert_ne!(b["prompt_sha"], h["prompt_sha"]);
    assert_eq!(b["fixture_sha"], h["fixture_sha"]);
    assert_eq!(b["fixture_sha"], sha256sum(&s.ws.join(FIXTURE)));
}

#[test]
fn any_other_changed_channel_is_named() {
    let s = Scenario::example();
    review_run(&s, V3, "artifacts/review.v3.json", "base/usage.json", &[]);
    s.write(".agent/tools-v2.json", "[]\n");
    s.write("fixtures/pr-43.diff", "diff --git a/x b/x\n");
    review_run(
        &s,
        V4,
        "artifacts/review.v4.json",
        "head/usage.json",
        &[
            ("tools-file", ".agent/tools-v2.json"),
            ("model", "o3"),
            ("fixture-file", "fixtures/pr-43.diff"),
        ],
    );
    let out = compare(&s, &[]);
    out.code(1);
    assert_eq!(out.outputs["controlled"], "false");
    let errors = out.errors().join("\n");
    assert!(
        errors.contains("tools, model, fixture changed too"),
        "{errors}"
    );
    assert!(
        out.summary
            .contains("| model | ❌ changed, not allowed | `gpt-5.5` → `o3` |"),
        "{}",
        out.summary
    );
    // Naming them in allow-changed makes it controlled again.
    compare(&s, &[("allow-changed", "tools,model,fixture")]).code(0);
    compare(&s, &[("allow-changed", "tools,weather")]).code(2);
}

#[test]
fn an_unchanged_prompt_fails() {
    let s = Scenario::example();
    review_run(&s, V3, "artifacts/review.v3.json", "base/usage.json", &[]);
    review_run(&s, V3, "artifacts/review.v4.json", "head/usage.json", &[]);
    let out = compare(&s, &[]);
    out.code(1);
    out.error_says("the prompt did not change");
}

#[test]
fn compare_needs_both_receipts() {
    let s = Scenario::example();
    let out = s
        .action()
        .input("mode", "compare")
        .input("usage-file", "head/usage.json")
        .run();
    out.code(2);
    assert!(out.errors()[0].contains("base-usage-file"));
}

#[test]
fn the_statement_is_in_toto_and_its_digests_are_the_receipts() {
    let s = Scenario::example();
    review_run(&s, V4, "artifacts/review.json", "usage.json", &[]);
    let statement: Value = serde_json::from_slice(&s.read("usage.intoto.json")).unwrap();
    let errors =
        common::attestation::violations(&common::attestation::statement_layout(), &statement);
    assert!(errors.is_empty(), "{errors:?}");
    let receipt: Value = serde_json::from_slice(&s.read("usage.json")).unwrap();
    // Nothing was uploaded: the predicate's receipt is the whole receipt.
    assert_eq!(statement["predicate"]["receipt"], receipt);
    assert_eq!(
        statement["predicate"]["prompt"]["sha256"],
        receipt["prompt_sha"]
    );
    let digest = |name: &str| {
        statement["subject"]
            .as_array()
            .unwrap()
            .iter()
            .find(|x| x["name"] == name)
            .map(|x| x["digest"]["sha256"].clone())
    };
    assert_eq!(digest(V4), Some(receipt["prompt_sha"].clone()));
    assert_eq!(
        digest(".agent/tools.json"),
        Some(receipt["tools_sha"].clone())
    );
    assert_eq!(
        digest(".github/codex/review.schema.json"),
        Some(receipt["schema_sha"].clone())
    );
    assert_eq!(
        digest("artifacts/review.json"),
        Some(receipt["output_sha"].clone())
    );
    assert_eq!(digest(FIXTURE), Some(receipt["fixture_sha"].clone()));
    assert_eq!(
        digest("AGENTS.md"),
        Some(receipt["agents"][0]["sha256"].clone())
    );
    // Every digest is the file's, as sha256sum computes it.
    for subject in statement["subject"].as_array().unwrap() {
        let name = subject["name"].as_str().unwrap();
        assert_eq!(
            subject["digest"]["sha256"],
            sha256sum(&s.ws.join(name)),
            "{name}"
        );
    }
}
