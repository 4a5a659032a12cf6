//! Bad input: exit code 2, one `::error` line that names the input, the path and
//! the fix, no panic, and the receipt file left exactly as it was.

use crate::common;

use std::os::unix::fs::symlink;

use common::*;

const PROMPT: &str = EXAMPLE_PROMPT;
const KEEP: &str = "{\n  \"keep\": true\n}\n";

/// Runs the action with `inputs` on the example and checks the error contract.
#[track_caller]
fn refused(s: &Scenario, inputs: &[(&str, &str)], says: &[&str]) -> Outcome {
    let mut step = s.action();
    for (k, v) in inputs {
        step = step.input(k, v);
    }
    let out = step.run();
    out.code(2);
    let errors = out.errors();
    assert_eq!(errors.len(), 1, "one error line, got:\n{}", out.stdout);
    for needle in says {
        assert!(
            errors[0].contains(needle),
            "`{needle}` not in: {}",
            errors[0]
        );
    }
    assert!(!out.stderr.contains("panicked"), "{}", out.stderr);
    // A run refused before it began says no more than that it failed: a
    // later step reads `conclusion`, never a half-made receipt's values.
    // (An input the command line itself refuses stops before any output.)
    let outputs: Vec<(&str, &str)> = out
        .outputs
        .iter()
        .map(|(k, v)| (k.as_str(), v.as_str()))
        .collect();
    assert!(
        outputs.is_empty() || outputs == [("conclusion", "failure"), ("layout", "")],
        "{outputs:?}"
    );
    out
}

fn example_with_receipt() -> Scenario {
    let s = Scenario::example();
    s.write("usage.json", KEEP);
    s
}

#[test]
fn both_prompt_inputs() {
    let s = example_with_receipt();
    let out = refused(&s, &[("prompt", "x"), ("prompt-file", PROMPT)], &[]);
    assert!(
        out.stdout
            .ends_with("::Only one of `prompt` or `prompt-file` may be specified.\n"),
        "{}",
        out.stdout
    );
    assert_eq!(String::from_utf8(s.read("usage.json")).unwrap(), KEEP);
}

#[test]
fn neither_prompt_input_and_whitespace_only() {
    let s = example_with_receipt();
    for inputs in [&[][..], &[("prompt", " \n\t "), ("prompt-file", "  ")][..]] {
        let out = refused(&s, inputs, &[]);
        assert!(
            out.stdout
                .ends_with("::Either `prompt` or `prompt-file` must be specified.\n"),
            "{}",
            out.stdout
        );
    }
    assert_eq!(String::from_utf8(s.read("usage.json")).unwrap(), KEEP);
}

#[test]
fn both_schema_inputs_and_no_schema_at_all() {
    let s = example_with_receipt();
    refused(
        &s,
        &[
            ("prompt-file", PROMPT),
            ("output-schema", "{}"),
            ("output-schema-file", ".github/codex/review.schema.json"),
        ],
        &["Only one of `output-schema` or `output-schema-file` may be specified."],
    );
    s.remove(".github/codex/review.schema.json");
    refused(
        &s,
        &[("prompt-file", PROMPT)],
        &["Either `output-schema` or `output-schema-file` must be specified."],
    );
    assert_eq!(String::from_utf8(s.read("usage.json")).unwrap(), KEEP);
}

#[test]
fn missing_prompt_file() {
    let s = example_with_receipt();
    refused(
        &s,
        &[("prompt-file", "prompts/nope.md")],
        &[
            "input `prompt-file`",
            "prompts/nope.md",
            "does not exist",
            "file=prompts/nope.md",
        ],
    );
}

#[test]
fn a_folder_where_a_file_belongs() {
    let s = example_with_receipt();
    refused(
        &s,
        &[("prompt-file", ".github")],
        &["input `prompt-file`", "`.github` is a folder"],
    );
    refused(
        &s,
        &[("prompt-file", PROMPT), ("tools-file", ".agent")],
        &["input `tools-file`", "is a folder"],
    );
}

#[test]
fn paths_and_symlinks_that_escape_the_workspace() {
    let s = example_with_receipt();
    std::fs::write(s.root.join("secret.md"), "outside").unwrap();
    refused(
        &s,
        &[("prompt-file", "../secret.md")],
        &["input `prompt-file`", "outside the workspace"],
    );
    symlink(s.root.join("secret.md"), s.ws.join("innocent.md")).unwrap();
    refused(
        &s,
        &[("prompt-file", "innocent.md")],
        &[
            "input `prompt-file`",
            "`innocent.md`",
            "outside the workspace",
        ],
    );
    symlink(&s.root, s.ws.join("up")).unwrap();
    refused(
        &s,
        &[("prompt-file", PROMPT), ("usage-file", "up/usage.json")],
        &["input `usage-file`", "outside the workspace"],
    );
    assert!(!s.root.join("usage.json").exists());
    assert_eq!(String::from_utf8(s.read("usage.json")).unwrap(), KEEP);
}

#[test]
fn a_receipt_that_is_not_a_json_object_is_refused_and_kept() {
    let s = Scenario::example();
    for (bytes, says) in [
        ("{\"a\": 1,,}", "not valid JSON (line 1, column 9"),
        ("[1, 2]", "holds an array"),
        ("", "is empty"),
    ] {
        s.write("usage.json", bytes);
        refused(
            &s,
            &[("prompt-file", PROMPT)],
            &[
                "usage file `usage.json`",
                says,
                "left untouched",
                "file=usage.json",
            ],
        );
        assert_eq!(s.read("usage.json"), bytes.as_bytes());
        let out = s.action().input("mode", "verify").run();
        out.code(2);
    }
}

#[test]
fn an_unwritable_folder() {
    let s = example_with_receipt();
    s.write("locked/usage.json", KEEP);
    std::fs::set_permissions(
        s.ws.join("locked"),
        std::os::unix::fs::PermissionsExt::from_mode(0o555),
    )
    .unwrap();
    // Root ignores permissions: run as the runner's uid so they apply.
    let s = s.owned_by_runner();
    if is_root() {
        common::chown_tree(&s.ws.join("locked"), 0);
    }
    let step = s
        .action()
        .input("prompt-file", PROMPT)
        .input("usage-file", "locked/usage.json");
    let step = if is_root() {
        step.run_as(RUNNER_UID)
    } else {
        step
    };
    let out = step.run();
    out.code(2);
    let e = out.errors();
    assert_eq!(e.len(), 1, "{}", out.stdout);
    assert!(
        e[0].contains("cannot write the usage file") && e[0].contains("Permission denied"),
        "{}",
        e[0]
    );
    assert_eq!(
        String::from_utf8(s.read("locked/usage.json")).unwrap(),
        KEEP
    );
}

#[test]
fn a_prompt_that_is_not_utf8() {
    let s = example_with_receipt();
    s.write("latin1.md", b"caf\xe9\n");
    refused(
        &s,
        &[("prompt-file", "latin1.md")],
        &[
            "input `prompt-file`",
            "not valid UTF-8 (byte 3)",
            "save the file as UTF-8",
        ],
    );
}

#[test]
fn an_unknown_mode_and_a_non_exact_version() {
    let s = example_with_receipt();
    refused(
        &s,
        &[("prompt-file", PROMPT), ("mode", "publish")],
        &["publish", "--help"],
    );
    for v in ["latest", "^1.2", "1.x", ">=0.1"] {
        refused(
            &s,
            &[("prompt-file", PROMPT), ("codex-version", v)],
            &["codex-version", "not an exact version"],
        );
    }
}

#[test]
fn not_a_git_repository() {
    let s = Scenario::example();
    std::fs::remove_dir_all(s.ws.join(".git")).unwrap();
    refused(
        &s,
        &[("prompt-file", PROMPT)],
        &["not a git repository", "actions/checkout"],
    );
}

#[test]
fn a_tampered_receipt_cannot_point_outside() {
    let s = Scenario::example();
    s.write(
        "usage.json",
        r#"{"prompt_path": "../../../etc/passwd", "prompt_sha": "x"}"#,
    );
    let out = s.action().input("mode", "verify").run();
    out.code(2);
    assert!(
        out.errors()[0].contains("field `prompt_path`")
            && out.errors()[0].contains("outside the workspace")
    );
}

#[test]
fn outside_actions_errors_are_one_plain_line() {
    let s = Scenario::example();
    let out = s
        .cli()
        .arg("--prompt")
        .arg("x")
        .arg("--prompt-file")
        .arg(PROMPT)
        .run();
    out.code(2);
    assert_eq!(
        out.stderr,
        "error: Only one of `prompt` or `prompt-file` may be specified.\n"
    );
    assert_eq!(out.stdout, "");
}

/// GEMINI.md imports `@a.md` 16 (then 24) times, a.md imports `@b.md` as
/// often, five deep (issue 27): `mode: record` refuses it at the cap in
/// well under a second, with one error naming the file, the import and the
/// cap, and leaves the receipt as it was.
#[test]
fn gemini_imports_that_fan_out_are_refused_at_the_cap() {
    for n in [16, 24] {
        let s = example_with_receipt();
        let names = ["GEMINI.md", "a.md", "b.md", "c.md", "d.md", "e.md"];
        for w in names.windows(2) {
            s.write(w[0], format!("@{}\n", w[1]).repeat(n));
        }
        s.write("e.md", "leaf\n");
        let s = s.commit("fan-out");
        let start = std::time::Instant::now();
        refused(
            &s,
            &[
                ("mode", "record"),
                ("agent", "gemini"),
                ("prompt-file", PROMPT),
            ],
            &[
                "file=d.md",
                "`d.md` imports `@e.md` past the receipt's cap of 1024 imports followed in one GEMINI.md chain",
            ],
        );
        assert!(
            start.elapsed() < std::time::Duration::from_secs(2),
            "{n}: {:?}",
            start.elapsed()
        );
        assert_eq!(String::from_utf8(s.read("usage.json")).unwrap(), KEEP);
    }
}
