//! The schema gate on the official JSON-Schema-Test-Suite (`../shared/corpus/jsts`,
//! not copied here): every required test of drafts 4, 6, 7, 2019-09 and
//! 2020-12, in this process. Wherever the gate answers it must agree with the
//! suite; where it does not (a configuration error) the error must be one of
//! the documented refusals: a remote `$ref`, or a `$schema` naming a custom
//! meta-schema. `optional/format` is checked as the gate treats formats:
//! annotations, so a `format` alone never fails an instance.

mod common;

use std::fs;
use std::path::{Path, PathBuf};

use prompt_receipt::review::schema;
use serde_json::Value;

/// The shared corpus (see `common::corpus_dir`), with the suite in it.
fn corpus() -> PathBuf {
    let dir = common::corpus_dir();
    assert!(
        dir.join("jsts/tests").is_dir(),
        "the JSON-Schema-Test-Suite is not in {}/jsts",
        dir.display()
    );
    dir
}

const DRAFTS: &[(&str, &str)] = &[
    ("draft4", "http://json-schema.org/draft-04/schema#"),
    ("draft6", "http://json-schema.org/draft-06/schema#"),
    ("draft7", "http://json-schema.org/draft-07/schema#"),
    (
        "draft2019-09",
        "https://json-schema.org/draft/2019-09/schema",
    ),
    (
        "draft2020-12",
        "https://json-schema.org/draft/2020-12/schema",
    ),
];

#[derive(Default, Debug)]
struct Tally {
    cases: usize,
    agreed: usize,
    /// Cases whose schema the gate refused, with a documented reason.
    refused: usize,
    disagreements: Vec<String>,
    undocumented: Vec<String>,
}

/// A schema as a user would write it for this draft: `$schema` says which.
fn for_draft(schema: &Value, meta: &str) -> Value {
    match schema {
        Value::Object(map) if !map.contains_key("$schema") => {
            let mut map = map.clone();
            map.insert("$schema".into(), Value::String(meta.into()));
            Value::Object(map)
        }
        other => other.clone(),
    }
}

fn documented_refusal(message: &str) -> bool {
    (message.contains("remote $ref") || message.contains("in `$schema`"))
        && message.contains("refused")
}

fn run_file(path: &Path, meta: &str, ws: &Path, annotation_only: bool, tally: &mut Tally) {
    let groups: Vec<Value> = serde_json::from_slice(&fs::read(path).unwrap()).unwrap();
    let name = path.file_name().unwrap().to_string_lossy().into_owned();
    for group in groups {
        let schema_value = for_draft(&group["schema"], meta);
        let tests = group["tests"].as_array().unwrap();
        let where_ = format!("{name}: {}", group["description"].as_str().unwrap_or(""));
        let compiled = schema::compile(
            schema_value.to_string().as_bytes(),
            "schema.json",
            &ws.join("schema.json"),
            ws,
        );
        let compiled = match compiled {
            Ok(c) => c,
            Err(e) => {
                tally.cases += tests.len();
                tally.refused += tests.len();
                if !documented_refusal(e.message()) {
                    tally
                        .undocumented
                        .push(format!("{where_}: {}", e.message()));
                }
                continue;
            }
        };
        for test in tests {
            tally.cases += 1;
            let expected = if annotation_only {
                true
            } else {
                test["valid"].as_bool().unwrap()
            };
            let got = compiled.validator.is_valid(&test["data"]);
            if got == expected {
                tally.agreed += 1;
            } else {
                tally.disagreements.push(format!(
                    "{where_} / {}: suite says {expected}, gate says {got}",
                    test["description"].as_str().unwrap_or("")
                ));
            }
        }
    }
}

fn json_files(dir: &Path) -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "json"))
        .collect();
    files.sort();
    files
}

/// Schemas whose only assertion is `format` (with `$schema` and the like):
/// the cases where "annotation only" decides the answer.
fn format_alone(group: &Value) -> bool {
    group["schema"].as_object().is_some_and(|s| {
        s.keys()
            .all(|k| matches!(k.as_str(), "format" | "$schema" | "$id" | "description"))
    })
}

#[test]
fn the_gate_agrees_with_the_suite_wherever_it_answers() {
    let corpus = corpus();
    let ws = tempfile::tempdir().unwrap();
    let ws = fs::canonicalize(ws.path()).unwrap();
    let mut report = Vec::new();
    let mut failures = Vec::new();
    for (draft, meta) in DRAFTS {
        let dir = corpus.join("jsts/tests").join(draft);
        let mut tally = Tally::default();
        for file in json_files(&dir) {
            run_file(&file, meta, &ws, false, &mut tally);
        }
        // optional/format: formats are annotations in the gate.
        let mut formats = Tally::default();
        let format_dir = dir.join("optional/format");
        if format_dir.is_dir() {
            for file in json_files(&format_dir) {
                let groups: Vec<Value> = serde_json::from_slice(&fs::read(&file).unwrap()).unwrap();
                let alone: Vec<Value> = groups.into_iter().filter(format_alone).collect();
                let tmp = ws.join("formats.json");
                fs::write(&tmp, Value::Array(alone).to_string()).unwrap();
                run_file(&tmp, meta, &ws, true, &mut formats);
            }
        }
        assert!(
            tally.cases > 500,
            "{draft}: only {} cases read",
            tally.cases
        );
        report.push(format!(
            "{draft}: {} required cases, {} agree, {} refused as documented; optional/format: {} of {} accepted (annotation only)",
            tally.cases, tally.agreed, tally.refused, formats.agreed, formats.cases
        ));
        failures.extend(tally.disagreements.iter().map(|d| format!("{draft}: {d}")));
        failures.extend(
            formats
                .disagreements
                .iter()
                .map(|d| format!("{draft} format: {d}")),
        );
        failures.extend(
            tally
                .undocumented
                .iter()
                .map(|d| format!("{draft}: undocumented configuration error: {d}")),
        );
        assert_eq!(
            tally.agreed + tally.refused,
            tally.cases,
            "{draft}: every case answered or refused"
        );
    }
    eprintln!("{}", report.join("\n"));
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn a_custom_meta_schema_is_refused_like_a_remote_ref() {
    let ws = tempfile::tempdir().unwrap();
    let ws = fs::canonicalize(ws.path()).unwrap();
    let compile = |schema: &str| {
        schema::compile(schema.as_bytes(), "s.json", &ws.join("s.json"), &ws)
            .err()
            .map(|e| e.message().to_string())
            .unwrap_or_default()
    };
    let remote_ref = compile(r#"{"$ref": "http://localhost:1234/integer.json"}"#);
    let remote_meta = compile(
        r#"{"$schema": "http://localhost:1234/draft2020-12/metaschema-no-validation.json"}"#,
    );
    let file_meta = compile(r#"{"$schema": "file:///github/workspace/meta.json"}"#);
    for message in [&remote_ref, &remote_meta, &file_meta] {
        assert!(documented_refusal(message), "{message}");
        assert!(
            message.contains("the schema's bytes are the contract"),
            "{message}"
        );
        assert!(!message.contains("registered in the registry"), "{message}");
    }
    assert!(
        remote_meta.contains("set `$schema` to a standard draft"),
        "{remote_meta}"
    );
    // Every standard draft, with or without `#`, http or https, is known.
    for (_, meta) in DRAFTS {
        for uri in [
            meta.to_string(),
            meta.trim_end_matches('#').replace("http://", "https://"),
        ] {
            assert_eq!(compile(&format!(r#"{{"$schema": "{uri}"}}"#)), "", "{uri}");
        }
    }
}
