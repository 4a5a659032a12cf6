//! Properties checked by the fuzz targets (`fuzz_targets/`) and, on their
//! committed corpora, by the test suite (`tests/it/fuzz_corpus.rs`). Each takes
//! untrusted bytes and panics when a property fails; none may panic otherwise.
//!
//! This file is compiled into the fuzz targets and the corpus test by `#[path]`,
//! never into the library: the release binary (and the Docker build, whose
//! context holds only `src/`) carries no fuzz code or fixtures.
#![allow(dead_code)] // each fuzz target uses one property

use std::path::Path;
use std::sync::OnceLock;

use serde_json::Value;

use prompt_receipt::agent::codex::session as transcript;
use prompt_receipt::receipt::{pyjson, usage_file};
use prompt_receipt::review::{self, locate, schema};
use prompt_receipt::{escape, event, lint, markdown};

fn example_schema() -> &'static schema::Schema {
    static SCHEMA: OnceLock<schema::Schema> = OnceLock::new();
    SCHEMA.get_or_init(|| {
        let text = include_bytes!("../examples/agent-review/.github/codex/review.schema.json");
        let root = std::env::temp_dir();
        schema::compile(text, "review.schema.json", &root, &root)
            .expect("the example schema compiles")
    })
}

/// review.json parsing and violation location: a verdict, and every violation
/// of a document that parsed is located inside the text.
pub fn review(data: &[u8]) {
    let r = review::check("review.json", data, example_schema(), "/findings");
    let lines = data.iter().filter(|b| **b == b'\n').count() as u64 + 1;
    for v in &r.violations {
        let p = v
            .position
            .unwrap_or_else(|| panic!("violation at `{}` not located", v.instance_path));
        assert!(
            p.line >= 1 && p.line <= lines && p.column >= 1,
            "{p:?} outside the text"
        );
    }
    // Locating arbitrary pointers on arbitrary bytes never panics.
    let _ = locate::locate(data, &["", "/findings", "/findings/0", "/a~1b", "/0/1"]);
}

/// The Codex rollout reader: whatever the bytes, a session or an error, and
/// the hash is of every byte.
pub fn rollout(data: &[u8]) {
    let s = transcript::read_stream(data, Path::new("rollout.jsonl"))
        .expect("reading memory cannot fail");
    assert_eq!(s.bytes, data.len() as u64);
    assert_eq!(s.sha256, prompt_receipt::digest::sha256_hex(data));
}

/// The usage.json merge: a file is refused or merged; what is written reads
/// back to the same receipt, and writing again gives the same bytes.
pub fn usage_merge(data: &[u8]) {
    let Ok(existing) = usage_file::parse("usage.json", data) else {
        return;
    };
    let ours = serde_json::json!({"prompt_sha": "a", "receipt_version": 1});
    let merged = usage_file::merge(
        Some(existing.clone()),
        &["prompt_sha", "receipt_version"],
        ours.as_object().unwrap().clone(),
    );
    for (k, v) in &existing {
        if k != "prompt_sha" && k != "receipt_version" {
            assert_eq!(merged.get(k), Some(v), "foreign key `{k}` changed");
        }
    }
    let text = pyjson::to_string(&Value::Object(merged.clone()));
    assert!(text.is_ascii(), "ensure_ascii output");
    let back = usage_file::parse("usage.json", text.as_bytes()).expect("what we write parses");
    assert_eq!(
        pyjson::to_string(&Value::Object(back)),
        text,
        "writing twice gives the same bytes"
    );
}

/// The event payload reader: the check run's commit is a full SHA from the
/// payload, or `GITHUB_SHA`.
pub fn event_payload(data: &[u8]) {
    let fallback = "0123456789abcdef0123456789abcdef01234567";
    let payload: Option<Value> = serde_json::from_slice(data).ok();
    for name in [
        "pull_request",
        "pull_request_target",
        "workflow_run",
        "push",
    ] {
        let t = event::target(name, payload.as_ref(), fallback);
        assert!(
            t.head_sha == fallback || event::is_sha(&t.head_sha),
            "{name}: {}",
            t.head_sha
        );
    }
}

/// The workflow linter: findings point inside the file.
pub fn workflow_lint(data: &[u8]) {
    let text = lint::line_breaks(&String::from_utf8_lossy(data));
    let lines = text.lines().count().max(1) as u64 + 1;
    for l in lint::lint("w.yml", &text, &|_| None) {
        assert!(l.line >= 1 && l.line <= lines, "line {} of {lines}", l.line);
    }
}

/// The escapers: escaped text never yields a workflow-command line, a terminal
/// escape, or live Markdown, whatever the input.
pub fn escapers(data: &[u8]) {
    let s = String::from_utf8_lossy(data);
    for out in [
        escape::command_data(&s),
        escape::command_property(&s),
        escape::one_line(&s).into_owned(),
    ] {
        assert!(
            !out.contains(['\n', '\r']),
            "a line break survived: {out:?}"
        );
        assert!(
            !out.chars().any(char::is_control),
            "a control character survived: {out:?}"
        );
        assert!(!out.contains("##["), "a legacy command survived: {out:?}");
    }
    let line = escape::workflow_command(
        "error",
        &[("file", s.to_string()), ("title", s.to_string())],
        &s,
    );
    assert_eq!(line.lines().count(), 1, "{line:?}");
    assert!(line.starts_with("::error file="));
    let text = markdown::text(&s);
    assert!(!text.contains('\n') && !text.contains('\r'));
    let mut escaped = false;
    for c in text.chars() {
        if !escaped
            && matches!(
                c,
                '<' | '[' | ']' | '`' | '|' | '*' | '_' | '&' | '!' | '$' | '~'
            )
        {
            panic!("unescaped `{c}` in {text:?}");
        }
        escaped = !escaped && c == '\\';
    }
    let code = markdown::code(&s);
    assert!(!code.contains('\n'));
    let fence = code.chars().take_while(|c| *c == '`').count();
    let inner = &code[fence..code.len() - fence];
    assert!(
        !inner.contains(&"`".repeat(fence)),
        "the code span can be closed early: {code:?}"
    );
}
