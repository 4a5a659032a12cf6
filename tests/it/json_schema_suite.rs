//! The schema gate on the official JSON-Schema-Test-Suite, as the `jsonschema`
//! 4.26.0 source distribution on PyPI ships it (fetched, checked against its
//! pinned SHA-256 and cached under `target/corpora/` by `common::corpora`):
//! every required test of drafts 4, 6, 7, 2019-09 and 2020-12, in this
//! process. Wherever the gate answers it must agree with the suite; where it
//! does not (a configuration error) the error must be one of the documented
//! refusals: a remote `$ref`, or a `$schema` naming a custom meta-schema.
//! `optional/format` is checked as the gate treats formats: annotations, so a
//! `format` alone never fails an instance.
//!
//! The suite's remote `$ref`s point at `http://localhost:1234/`, where its
//! `remotes/` folder is meant to be served. The gate refuses them without a
//! connection even when something listens there, and the same cases, with
//! `remotes/` copied into the workspace and referenced there, agree with the
//! suite: the refusal is the network, not the schemas.

use crate::common;

use std::fs;
use std::path::{Path, PathBuf};

use prompt_receipt::review::schema;
use serde_json::Value;

/// `json/` of the suite: `tests/<draft>/`, `remotes/`.
fn suite() -> &'static Path {
    common::corpora::json_schema_test_suite()
}

/// Where the suite's remote `$ref`s point.
const REMOTES_URL: &str = "http://localhost:1234/";

/// What the suite in jsonschema 4.26.0 holds, counted from its files (see
/// docs/testing.md): per draft, the required cases, those whose schema the
/// gate refuses as documented (a `$ref` to `localhost:1234` that no `$id` in
/// the schema defines, and `vocabulary.json`'s custom meta-schemas), and the
/// `optional/format` cases whose schema is a `format` alone.
const EXPECTED: &[(&str, usize, usize, usize)] = &[
    ("draft4", 610, 17, 153),
    ("draft6", 829, 23, 214),
    ("draft7", 913, 23, 434),
    ("draft2019-09", 1227, 36, 483),
    ("draft2020-12", 1257, 49, 491),
];

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

/// Every string in `v` that starts with `from` starts with `to` instead.
fn rebase(v: &Value, from: &str, to: &str) -> Value {
    match v {
        Value::String(s) => match s.strip_prefix(from) {
            Some(rest) => Value::String(format!("{to}{rest}")),
            None => v.clone(),
        },
        Value::Array(a) => Value::Array(a.iter().map(|v| rebase(v, from, to)).collect()),
        Value::Object(o) => Value::Object(
            o.iter()
                .map(|(k, v)| (k.clone(), rebase(v, from, to)))
                .collect(),
        ),
        other => other.clone(),
    }
}

/// The suite's `remotes/` copied under `to_dir`, every `localhost:1234` URL in
/// them (their `$id`s and `$ref`s) rebased to `to_url`.
fn copy_remotes(from: &Path, to_dir: &Path, to_url: &str) {
    fs::create_dir_all(to_dir).unwrap();
    for entry in fs::read_dir(from).unwrap() {
        let entry = entry.unwrap();
        let target = to_dir.join(entry.file_name());
        if entry.file_type().unwrap().is_dir() {
            copy_remotes(&entry.path(), &target, to_url);
        } else {
            let value: Value = serde_json::from_slice(&fs::read(entry.path()).unwrap())
                .unwrap_or_else(|e| panic!("{}: {e}", entry.path().display()));
            fs::write(target, rebase(&value, REMOTES_URL, to_url).to_string()).unwrap();
        }
    }
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
    run_file_noting(path, meta, ws, annotation_only, tally, &mut Vec::new());
}

/// A group of the suite: its file, description, schema (with `$schema`) and
/// tests, and whether it was refused for a custom meta-schema (else for a
/// remote `$ref`).
struct Group {
    meta_schema: bool,
    file: String,
    description: String,
    schema: Value,
    tests: Vec<Value>,
}

/// Also collects the groups refused for a remote `$ref` or a custom
/// meta-schema into `remote`.
fn run_file_noting(
    path: &Path,
    meta: &str,
    ws: &Path,
    annotation_only: bool,
    tally: &mut Tally,
    remote: &mut Vec<Group>,
) {
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
                let meta_schema = e.message().contains("in `$schema`");
                if meta_schema || e.message().contains("remote $ref `") {
                    remote.push(Group {
                        meta_schema,
                        file: name.clone(),
                        description: group["description"].as_str().unwrap_or("").to_string(),
                        schema: schema_value.clone(),
                        tests: tests.clone(),
                    });
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
    let suite = suite();
    let ws = tempfile::tempdir().unwrap();
    let ws = fs::canonicalize(ws.path()).unwrap();
    let mut report = Vec::new();
    let mut failures = Vec::new();
    for (draft, meta) in DRAFTS {
        let dir = suite.join("tests").join(draft);
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
        let expected = EXPECTED.iter().find(|e| e.0 == *draft).unwrap();
        assert_eq!(
            (tally.cases, tally.refused, formats.cases),
            (expected.1, expected.2, expected.3),
            "{draft}: (required cases, refused, optional/format cases) are not what the pinned suite holds"
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

/// The suite's remote `$ref` cases, against the suite's own `remotes/`. With
/// a server listening where the refs point, the gate still refuses each one,
/// as documented, and never connects: the schema's bytes are the contract. The
/// fix the refusal names (copy that schema into the repository) works: with
/// `remotes/` copied into the workspace and the refs pointing there, every
/// case agrees with the suite.
#[test]
fn remote_refs_are_refused_even_when_served_and_resolve_from_a_local_copy() {
    let suite = suite();
    let ws = tempfile::tempdir().unwrap();
    let ws = fs::canonicalize(ws.path()).unwrap();
    let local = ws.join("remotes");
    let local_url = format!("file://{}/", local.display());
    assert!(
        !local_url.contains(['%', ' ', '#', '?']),
        "a plain temporary path: {local_url}"
    );
    copy_remotes(&suite.join("remotes"), &local, &local_url);

    // Something listens where the refs would go; nothing may connect to it.
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    listener.set_nonblocking(true).unwrap();
    let served_url = format!("http://{}/", listener.local_addr().unwrap());

    let compile = |schema: &Value| {
        schema::compile(
            schema.to_string().as_bytes(),
            "schema.json",
            &ws.join("schema.json"),
            &ws,
        )
    };
    let mut report = Vec::new();
    let mut failures = Vec::new();
    for (draft, meta) in DRAFTS {
        let mut remote = Vec::new();
        let mut tally = Tally::default();
        for file in json_files(&suite.join("tests").join(draft)) {
            run_file_noting(&file, meta, &ws, false, &mut tally, &mut remote);
        }
        assert!(!remote.is_empty(), "{draft}: no remote $ref case read");
        let (mut cases, mut agreed, mut meta_cases) = (0, 0, 0);
        for g in &remote {
            let where_ = format!("{draft}: {}: {}", g.file, g.description);
            if g.meta_schema {
                // A custom meta-schema is refused served or copied in alike.
                for url in [&served_url, &local_url] {
                    match compile(&rebase(&g.schema, REMOTES_URL, url)) {
                        Ok(_) => failures
                            .push(format!("{where_}: compiled with its meta-schema at {url}")),
                        Err(e)
                            if documented_refusal(e.message())
                                && e.message().contains(&format!("`{url}")) => {}
                        Err(e) => failures.push(format!(
                            "{where_}: not the documented refusal: {}",
                            e.message()
                        )),
                    }
                }
                meta_cases += g.tests.len();
                continue;
            }
            match compile(&rebase(&g.schema, REMOTES_URL, &served_url)) {
                Ok(_) => failures.push(format!("{where_}: compiled with a served remote $ref")),
                Err(e) => {
                    let m = e.message();
                    if !(documented_refusal(m) && m.contains(&format!("remote $ref `{served_url}")))
                    {
                        failures.push(format!("{where_}: served: not the documented refusal: {m}"));
                    }
                }
            }
            match compile(&rebase(&g.schema, REMOTES_URL, &local_url)) {
                Err(e) => failures.push(format!(
                    "{where_}: with remotes/ in the workspace: {}",
                    e.message()
                )),
                Ok(compiled) => {
                    for t in &g.tests {
                        cases += 1;
                        let expected = t["valid"].as_bool().unwrap();
                        if compiled.validator.is_valid(&t["data"]) == expected {
                            agreed += 1;
                        } else {
                            failures.push(format!(
                                "{where_} / {}: with remotes/ in the workspace the suite says {expected}",
                                t["description"].as_str().unwrap_or("")
                            ));
                        }
                    }
                }
            }
        }
        report.push(format!(
            "{draft}: remote $ref: {cases} cases, refused when served, {agreed} agree from a local copy; custom meta-schema: {meta_cases} cases, refused both ways"
        ));
    }
    match listener.accept() {
        Err(e) if e.kind() == std::io::ErrorKind::WouldBlock => {}
        Ok((_, peer)) => failures.push(format!("the gate connected to {served_url} (from {peer})")),
        Err(e) => panic!("accept: {e}"),
    }
    eprintln!("{}", report.join("\n"));
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
