//! The schema gate on the agent's output, as a reviewer sees it on the PR.

use crate::common;

use common::*;
use serde_json::{Value, json};

const OUTPUT: &str = "artifacts/review.json";

fn run(s: &Scenario, extra: &[(&str, &str)]) -> Outcome {
    let mut step = s.review_step();
    for (k, v) in extra {
        step = step.input(k, v);
    }
    step.run()
}

/// The `::error` annotations on review.json, as (line, col, title) triples.
fn located(out: &Outcome) -> Vec<(String, String, String)> {
    out.errors()
        .iter()
        .filter(|l| l.contains("file=artifacts/review.json"))
        .map(|l| {
            let props = l.trim_start_matches("::error ").split("::").next().unwrap();
            let get = |k: &str| {
                props
                    .split(',')
                    .find_map(|p| p.strip_prefix(&format!("{k}=")))
                    .unwrap_or("")
                    .to_string()
            };
            (get("line"), get("col"), get("title"))
        })
        .collect()
}

#[test]
fn each_outcome_has_its_own_message_and_result() {
    let s = Scenario::example();
    let out = run(&s, &[]);
    out.code(0);
    assert_eq!(
        (
            out.outputs["valid"].as_str(),
            out.outputs["conclusion"].as_str()
        ),
        ("true", "neutral")
    );
    assert_eq!(out.outputs["findings-count"], "2");
    assert_eq!(out.outputs["ok"], "false");
    let u = out.usage();
    assert_eq!(
        u["validation"],
        json!({"valid": true, "verdict": "valid", "draft": "2020-12", "errors": 0})
    );
    assert_eq!(u["findings_count"], 2);
    assert_eq!(u["ok"], false);
    assert_eq!(u["findings_by_severity"], json!({"high": 1, "low": 1}));

    for (content, says, verdict) in [
        (None, "`artifacts/review.json` does not exist", "missing"),
        (Some(""), "`artifacts/review.json` is empty", "empty"),
        (
            Some("{\n  \"ok\": true,\n  \"findings\": [}\n"),
            "is not JSON",
            "not-json",
        ),
        (
            Some(r#"{"ok": "yes", "findings": []}"#),
            "\"yes\" is not of type \"boolean\" (at `/ok`",
            "invalid",
        ),
    ] {
        match content {
            Some(c) => {
                s.write(OUTPUT, c);
            }
            None => {
                s.remove(OUTPUT);
            }
        }
        let out = run(&s, &[]);
        out.code(1);
        let errors = out.errors().join("\n");
        assert!(errors.contains(says), "{says}: {errors}");
        assert_eq!(out.outputs["valid"], "false");
        assert_eq!(out.outputs["conclusion"], "failure");
        assert_eq!(out.usage()["validation"]["verdict"], verdict);
        assert!(out.summary.starts_with("## ❌ "), "{}", out.summary);
        assert!(
            out.summary
                .contains("**The step fails** under `fail-on: invalid`")
        );
    }
    // The syntax error points at where serde_json saw it.
    s.write(OUTPUT, "{\n  \"ok\": true,\n  \"findings\": [}\n");
    assert_eq!(located(&run(&s, &[]))[0].0, "3");
}

#[test]
fn violations_are_located_however_the_file_is_formatted() {
    let s = Scenario::example();
    let review = json!({"ok": "no", "findings": [{"severity": "urgent", "path": "a", "line": 0, "title": "t", "message": "m"}]});
    let minified = review.to_string();
    let pretty = serde_json::to_string_pretty(&review).unwrap();
    let crlf = pretty.replace('\n', "\r\n");
    let unicode = format!("{{\"note\":\"ünïcödé ✓ 漢字\",{}", &minified[1..]);
    // serde_json writes keys sorted: (line, col) of the `line` value, the severity
    // value and `ok`'s value, in file order.
    let cases = [
        (&minified, [("1", "22"), ("1", "60"), ("1", "88")]),
        (&pretty, [("4", "15"), ("7", "19"), ("11", "9")]),
        (&crlf, [("4", "15"), ("7", "19"), ("11", "9")]),
    ];
    for (text, expected) in cases {
        s.write(OUTPUT, text.as_bytes());
        let out = run(&s, &[]);
        out.code(1);
        let got: Vec<(String, String)> =
            located(&out).into_iter().map(|(l, c, _)| (l, c)).collect();
        assert_eq!(
            got,
            expected
                .iter()
                .map(|(l, c)| (l.to_string(), c.to_string()))
                .collect::<Vec<_>>(),
            "{text}"
        );
    }
    s.write(OUTPUT, unicode.as_bytes());
    let out = run(&s, &[]);
    let got = located(&out);
    // `note` is not allowed (at the document), then the same three, shifted by 22 characters.
    assert_eq!(
        got.iter()
            .map(|(l, c, _)| format!("{l}:{c}"))
            .collect::<Vec<_>>(),
        vec!["1:1", "1:44", "1:82", "1:110"]
    );
    assert!(got[0].2.contains("additionalProperties"), "{got:?}");
}

#[test]
fn the_gate_is_the_users_choice() {
    let s = Scenario::example();
    // The example is valid, says ok: false, and has one high and one low finding.
    run(&s, &[("fail-on", "invalid")]).code(0);
    let out = run(&s, &[("fail-on", "findings")]);
    out.code(1);
    assert!(
        out.summary.contains("ok: false") && out.summary.contains("1 finding at or above"),
        "{}",
        out.summary
    );
    s.write(OUTPUT, r#"{"ok": true, "findings": [{"severity": "low", "path": "a.rs", "line": 3, "title": "t", "message": "m"}]}"#);
    run(&s, &[("fail-on", "findings")]).code(0);
    run(&s, &[("fail-on", "findings"), ("min-severity", "low")]).code(1);
    s.write(OUTPUT, "not json");
    let out = run(&s, &[("fail-on", "never")]);
    out.code(0);
    assert_eq!(out.outputs["conclusion"], "neutral");
    let bad = run(&s, &[("min-severity", "severe")]);
    bad.code(2);
}

#[test]
fn findings_become_annotations_on_their_file_and_line() {
    let s = Scenario::example();
    // A step that passes (`fail-on: invalid`) does not show a high finding
    // as an error: it reads as a warning there.
    let out = run(&s, &[]);
    out.code(0);
    assert!(
        out.stdout.contains("::warning file=package.json,line=14,title=high%3A New dependency without an owner::The diff adds left-pad-ng"),
        "{}",
        out.stdout
    );
    // When the findings fail the step, the high finding is an error.
    let out = run(&s, &[("fail-on", "findings")]);
    out.code(1);
    assert!(
        out.stdout.contains("::error file=package.json,line=14,title=high%3A New dependency without an owner::The diff adds left-pad-ng"),
        "{}",
        out.stdout
    );
    assert!(out.stdout.contains(
        "::notice file=src/billing/invoice.ts,line=42,title=low%3A Unchecked division::"
    ));
}

#[test]
fn the_seed_shape_and_a_custom_pointer() {
    let s = Scenario::example();
    s.write(
        ".github/codex/review.schema.json",
        r#"{"type": "object", "required": ["ok", "findings"]}"#,
    );
    s.write(
        OUTPUT,
        r#"{"ok": false, "findings": ["adds a dependency", "no owner"]}"#,
    );
    let out = run(&s, &[]);
    out.code(0);
    assert_eq!(out.usage()["findings_by_severity"], json!({"unknown": 2}));
    s.write(OUTPUT, r#"{"review": {"items": [{"level": "error", "file": "x.py", "start_line": 2, "body": "b"}]}}"#);
    let out = run(&s, &[("findings-pointer", "/review/items")]);
    assert_eq!(out.outputs["findings-count"], "1");
    assert!(
        out.stdout.contains("::error file=x.py,line=2"),
        "{}",
        out.stdout
    );
    run(&s, &[("findings-pointer", "review/items")]).code(2);

    // The pointer names nothing, but the review has a list at its top: a hint.
    s.write(".github/codex/review.schema.json", r#"{"type": "object"}"#);
    s.remove("usage.json"); // recorded with the schema before
    s.write(OUTPUT, r#"{"ok": true, "issues": [{"message": "m"}]}"#);
    let out = run(&s, &[]);
    out.code(0);
    assert!(
        out.stdout.contains("::notice file=artifacts/review.json::the review has nothing at findings-pointer `/findings`, but lists at `/issues`"),
        "{}",
        out.stdout
    );
    // The pointer is right and the value wrong: no hint to change the pointer.
    s.write(OUTPUT, r#"{"ok": true, "findings": "none"}"#);
    let out = run(&s, &[]);
    out.code(1);
    out.error_says(
        "holds a string, not a list of findings; make the output schema require an array there",
    );
    assert!(
        !out.stdout.contains("set findings-pointer"),
        "{}",
        out.stdout
    );
}

#[test]
fn a_file_that_is_not_json_is_not_said_to_have_a_draft() {
    let s = Scenario::example();
    s.write(OUTPUT, "not json at all");
    let out = run(&s, &[]);
    out.code(1);
    assert!(out.summary.contains("is not JSON"), "{}", out.summary);
    assert!(!out.summary.contains("draft"), "{}", out.summary);
    s.write(OUTPUT, r#"{"ok": true, "findings": []}"#);
    assert!(run(&s, &[]).summary.contains("(JSON Schema draft 2020-12)"));
}

#[test]
fn a_broken_or_remote_schema_is_a_configuration_error() {
    let s = Scenario::example();
    s.write("usage.json", "{}\n");
    for (schema, says) in [
        (r#"{"type": "objekt"}"#, "cannot be used"),
        ("{", "is not valid JSON"),
        (
            r#"{"$ref": "https://example.com/review.schema.json"}"#,
            "remote $ref",
        ),
        (
            r#"{"$schema": "https://example.com/my-meta"}"#,
            "set `$schema` to a standard draft",
        ),
    ] {
        s.write(".github/codex/review.schema.json", schema);
        let out = run(&s, &[]);
        out.code(2);
        assert!(out.errors()[0].contains(says), "{says}: {}", out.stdout);
        assert!(
            out.errors()[0].contains("configuration error"),
            "{}",
            out.stdout
        );
        assert_eq!(
            s.read("usage.json"),
            b"{}\n",
            "nothing written on a configuration error"
        );
    }
    // A relative $ref resolves inside the workspace.
    s.write(
        ".github/codex/defs/finding.json",
        r#"{"type": "object", "required": ["severity"]}"#,
    );
    s.write(
        ".github/codex/review.schema.json",
        r#"{"type": "object", "properties": {"findings": {"type": "array", "items": {"$ref": "defs/finding.json"}}}}"#,
    );
    run(&s, &[]).code(0);
    s.write(OUTPUT, r#"{"findings": [{}]}"#);
    let out = run(&s, &[]);
    out.code(1);
    assert_eq!(located(&out)[0].0, "1");
    // ... and never outside it.
    std::fs::write(s.root.join("outside.json"), "{}").unwrap();
    s.write(
        ".github/codex/review.schema.json",
        r#"{"$ref": "../../../outside.json"}"#,
    );
    run(&s, &[]).code(2);
}

#[test]
fn hostile_output_stays_text_and_within_limits() {
    let s = Scenario::example();
    let evil = "::error::pwned\n::warning file=x::%0A::add-mask::secret\r::set-output name=a::b\u{1b}[31mred\u{0}##[error]legacy";
    s.write(
        OUTPUT,
        json!({"ok": evil, "findings": [{"severity": evil, "path": "a.rs", "line": 1, "title": evil, "message": evil}]}).to_string(),
    );
    let out = run(&s, &[]);
    out.code(1);
    for line in out.command_lines() {
        assert!(
            line.starts_with("::error ")
                || line.starts_with("::warning ")
                || line.starts_with("::notice ")
                || line.starts_with("::error::")
                || line.starts_with("::warning::")
                || line.starts_with("::notice::"),
            "unexpected command: {line}"
        );
        assert!(!line.contains('\r') && !line.contains('\u{1b}'), "{line:?}");
    }
    assert!(
        !out.stdout
            .lines()
            .chain(out.stderr.lines())
            .any(|l| l.starts_with("::add-mask")
                || l.starts_with("::set-output")
                || l.starts_with("::warning file=x"))
    );
    assert!(
        !out.stdout.contains("##[error]"),
        "legacy commands broken up"
    );
    assert!(!out.summary.contains('\u{1b}') && !out.summary.contains('\u{0}'));

    // 10,000 levels deep: refused with the limit named.
    s.write(OUTPUT, "[".repeat(10_000) + &"]".repeat(10_000));
    let out = run(&s, &[]);
    out.code(1);
    out.error_says("nests deeper than the 128-level limit");

    // 100 MB: not read at all, the limit named.
    let f = std::fs::File::create(s.ws.join(OUTPUT)).unwrap();
    f.set_len(100 * 1000 * 1000).unwrap();
    let out = run(&s, &[]);
    out.code(1);
    out.error_says("over the 32 MiB limit");
    assert_eq!(out.usage()["validation"]["verdict"], "too-large");
}

#[test]
fn past_the_runners_ten_annotations_the_rest_are_counted() {
    let s = Scenario::example();
    let findings: Vec<Value> = (0..25).map(|i| json!({"severity": "bogus", "path": "a", "line": i + 1, "title": "t", "message": "m"})).collect();
    s.write(
        OUTPUT,
        json!({"ok": true, "findings": findings}).to_string(),
    );
    let out = run(&s, &[]);
    out.code(1);
    let errors = out.errors();
    assert_eq!(errors.len(), 10);
    assert!(
        errors[9].contains("16 more error annotations"),
        "{}",
        errors[9]
    );
    // Ordered by position in the file.
    let lines: Vec<u64> = errors[..9]
        .iter()
        .map(|l| {
            l.split("line=")
                .nth(1)
                .unwrap()
                .split([',', ':'])
                .next()
                .unwrap()
                .parse()
                .unwrap()
        })
        .collect();
    assert!(lines.windows(2).all(|w| w[0] <= w[1]), "{lines:?}");
    assert_eq!(out.usage()["validation"]["errors"], 25);
    assert!(
        out.summary
            .contains("violates the output schema in 25 places")
    );
}

#[test]
fn validate_mode_is_the_gate_alone_without_a_receipt_or_git() {
    // No commit, no prompt, no receipt: only a schema and an output.
    let s = Scenario::new();
    let schema = std::fs::read(example_dir().join(".github/codex/review.schema.json")).unwrap();
    s.write(".github/codex/review.schema.json", schema);
    s.write(
        OUTPUT,
        "{\n  \"ok\": true,\n  \"findings\": [\n    {\"severity\": \"urgent\", \"path\": \"a.rs\", \"line\": 2, \"title\": \"t\", \"message\": \"m\"}\n  ]\n}\n",
    );
    let out = s.action().input("mode", "validate").run();
    out.code(1);
    assert_eq!(
        located(&out),
        vec![(
            "4".to_string(),
            "18".to_string(),
            "Schema violation%3A enum".to_string()
        )]
    );
    assert_eq!(out.outputs["valid"], "false");
    assert_eq!(out.outputs["conclusion"], "failure");
    assert!(
        out.summary.starts_with(
            "## ❌ Output invalid (1 schema error) · agent: ok, 1 finding (1 of unknown severity)\n"
        ),
        "{}",
        out.summary
    );
    // No receipt, so no evidence section.
    assert!(!out.summary.contains("### Evidence"));
    assert!(!s.ws.join("usage.json").exists());

    s.write(OUTPUT, r#"{"ok": true, "findings": []}"#);
    let out = s.cli().arg("--mode").arg("validate").run();
    out.code(0);
    assert!(
        out.stdout
            .contains("## ✅ Output valid · agent: ok, no findings"),
        "{}",
        out.stdout
    );
    assert!(!s.ws.join("usage.json").exists());
}

#[test]
fn a_reader_that_goes_away_ends_the_output_not_the_verdict() {
    // `prompt-receipt --mode validate | head -1`: the pipe closes early.
    let s = Scenario::example();
    s.write(OUTPUT, r#"{"ok": "yes", "findings": []}"#);
    let (reader, writer) = std::io::pipe().unwrap();
    drop(reader);
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_prompt-receipt"))
        .args(["--mode", "validate"])
        .current_dir(&s.ws)
        .env_clear()
        .env("PATH", std::env::var("PATH").unwrap_or_default())
        .stdout(writer)
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(
        out.status.code(),
        Some(1),
        "the review is invalid: {stderr}"
    );
    assert_eq!(stderr, "");

    let (reader, writer) = std::io::pipe().unwrap();
    drop(reader);
    let help = std::process::Command::new(env!("CARGO_BIN_EXE_prompt-receipt"))
        .arg("--help")
        .stdout(writer)
        .output()
        .unwrap();
    assert_eq!(help.status.code(), Some(0));
    assert_eq!(String::from_utf8_lossy(&help.stderr), "");
}

/// A review of 10,000 findings: standard output shows the verdict and a
/// screenful of findings, and says where the rest are; the job summary keeps
/// them. In Actions and on a terminal, valid and invalid.
#[test]
fn ten_thousand_findings_write_a_screenful_to_standard_output() {
    let s = Scenario::example();
    for broken in [false, true] {
        let findings: Vec<serde_json::Value> = (0..10_000)
            .map(|i| {
                serde_json::json!({
                    "severity": if broken { "urgent" } else { ["info", "low", "medium", "high", "critical"][i % 5] },
                    "path": format!("src/module_{}/file_{i}.rs", i % 97),
                    "line": i % 500 + 1,
                    "title": format!("Finding number {i} about something worth a look"),
                    "message": "A description of the problem and what to do about it, long enough to be realistic.",
                })
            })
            .collect();
        s.write(
            OUTPUT,
            serde_json::json!({"ok": false, "findings": findings}).to_string(),
        );
        for in_actions in [true, false] {
            let out = if in_actions {
                s.action()
                    .input("mode", "validate")
                    .input("fail-on", "never")
                    .run()
            } else {
                s.cli()
                    .arg("--mode")
                    .arg("validate")
                    .arg("--fail-on")
                    .arg("never")
                    .run()
            };
            let what = format!("broken {broken}, in Actions {in_actions}");
            assert!(
                out.stdout.len() < 20 * 1024,
                "{what}: {} bytes on standard output",
                out.stdout.len()
            );
            let rest = if in_actions {
                "see the job summary"
            } else {
                "see the summary below"
            };
            assert!(
                out.stdout.contains(rest),
                "{what}: the rest is not said: {}",
                out.stdout
            );
            if in_actions {
                assert!(out.stdout.contains("prompt-receipt: "), "{what}");
                assert!(
                    out.summary.len() > 100 * 1024,
                    "{what}: the summary keeps them"
                );
            } else {
                assert!(out.stdout.contains("Output "), "{what}: {}", out.stdout);
            }
        }
    }
}
