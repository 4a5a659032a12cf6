//! Every statement a test's step writes is checked here, as the step leaves
//! it: the in-toto Statement v1 layout, the predicate against the documented
//! schema (`docs/predicate-v1.schema.json`), what was recomputed (`receipt`)
//! and what only the session record claims (`claimed`) together equal to
//! `usage.json`, the verdict the step's, the predicate file equal to the
//! statement's predicate, and the subjects file equal to its subjects, each
//! digest the file's as `sha256sum` computes it (the subject of a file
//! changed since is the test's to make, not the step's).

use std::collections::BTreeMap;
use std::fs;
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use serde_json::{Value, json};

use super::repo_root;

/// The in-toto Statement v1 layout, as the spec defines it
/// (in-toto/attestation `spec/v1/statement.md`, `resource_descriptor.md`).
pub fn statement_layout() -> Value {
    json!({
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "type": "object",
        "required": ["_type", "subject", "predicateType", "predicate"],
        "properties": {
            "_type": {"const": "https://in-toto.io/Statement/v1"},
            "subject": {"type": "array", "minItems": 1, "items": {
                "type": "object", "required": ["digest"],
                "anyOf": [{"required": ["name"]}, {"required": ["uri"]}, {"required": ["content"]}],
                "properties": {
                    "name": {"type": "string"},
                    "digest": {"type": "object", "minProperties": 1,
                               "additionalProperties": {"type": "string", "pattern": "^[0-9a-f]+$"}}
                }
            }},
            "predicateType": {"type": "string", "pattern": "^https://"},
            "predicate": {"type": "object"}
        }
    })
}

/// The documented predicate schema, as committed.
pub fn predicate_schema() -> &'static Value {
    static SCHEMA: OnceLock<Value> = OnceLock::new();
    SCHEMA.get_or_init(|| {
        let text = fs::read(repo_root().join("docs/predicate-v1.schema.json")).unwrap();
        serde_json::from_slice(&text).unwrap()
    })
}

/// The schema's violations of `value`, as text.
#[track_caller]
pub fn violations(schema: &Value, value: &Value) -> Vec<String> {
    jsonschema::validator_for(schema)
        .unwrap()
        .iter_errors(value)
        .map(|e| format!("{} at {}", e, e.instance_path()))
        .collect()
}

/// A file a step output names: relative to the workspace, or a host path
/// under the runner's temp folder (`.../_temp/x`, found under `temp`).
fn named(ws: &Path, temp: &Path, shown: &str) -> PathBuf {
    match shown.split_once("/_temp/") {
        Some((_, rest)) if Path::new(shown).is_absolute() && !Path::new(shown).exists() => {
            temp.join(rest)
        }
        _ if Path::new(shown).is_absolute() => PathBuf::from(shown),
        _ => ws.join(shown),
    }
}

/// Checks the statement, predicate and subjects files a step's outputs name.
#[track_caller]
pub fn check_written(ws: &Path, temp: &Path, outputs: &BTreeMap<String, String>) {
    let Some(statement_file) = outputs.get("statement-file") else {
        return;
    };
    let read = |output: &str| -> Vec<u8> {
        let path = named(ws, temp, &outputs[output]);
        fs::read(&path).unwrap_or_else(|e| panic!("output {output}: {}: {e}", path.display()))
    };
    let statement: Value = serde_json::from_slice(&read("statement-file")).unwrap();
    let layout = violations(&statement_layout(), &statement);
    assert!(layout.is_empty(), "{statement_file}: {layout:?}");
    assert_eq!(
        statement["predicateType"],
        "https://prompt-receipt.dev/agent-run/v1"
    );
    let predicate = &statement["predicate"];
    let schema = violations(predicate_schema(), predicate);
    assert!(
        schema.is_empty(),
        "{statement_file}: {schema:?}\n{predicate:#}"
    );
    // What was recomputed and what only the session record says, apart;
    // together, the receipt as usage.json holds it, without what the upload
    // added to that file.
    let (receipt, claimed) = (&predicate["receipt"], &predicate["claimed"]);
    let usage: Value = serde_json::from_slice(&read("usage-file")).unwrap();
    let mut owned = usage.as_object().unwrap().clone();
    owned.remove("claimed_by_upload");
    let mut together = receipt.as_object().unwrap().clone();
    for (key, value) in claimed.as_object().unwrap() {
        let twice = together.insert(key.clone(), value.clone());
        assert!(
            twice.is_none(),
            "{statement_file}: `{key}` recomputed and claimed"
        );
    }
    assert_eq!(
        Value::Object(together),
        Value::Object(owned),
        "{statement_file}: the receipt and what it claims, against usage.json"
    );
    assert_eq!(
        predicate["agent"]["name"],
        receipt.get("agent").cloned().unwrap_or(json!("codex"))
    );
    assert_eq!(
        predicate["instructions"]["chain_sha256"],
        receipt.get("agents_sha").cloned().unwrap_or(Value::Null)
    );
    assert!(
        !serde_json::to_string(predicate)
            .unwrap()
            .contains("claimed_by_upload"),
        "{statement_file}: a claim of the upload's usage.json in the predicate"
    );
    // The verdict the step gave, in words too.
    assert_eq!(
        predicate["verdict"]["conclusion"].as_str(),
        outputs.get("conclusion").map(String::as_str),
        "{statement_file}: the verdict"
    );
    assert!(
        !predicate["verdict"]["title"].as_str().unwrap().is_empty(),
        "{statement_file}: the verdict's words"
    );
    // The review is the subject `output.subject` names, with its digest.
    if let Some(name) = predicate["output"]["subject"].as_str() {
        let review = statement["subject"]
            .as_array()
            .unwrap()
            .iter()
            .find(|s| s["name"] == name);
        assert_eq!(
            review.map(|s| &s["digest"]["sha256"]),
            Some(&predicate["output"]["sha256"]),
            "{statement_file}: the review's subject `{name}`"
        );
    }
    let alone: Value = serde_json::from_slice(&read("predicate-file")).unwrap();
    assert_eq!(&alone, predicate, "the predicate file is the statement's");
    let sums: String = statement["subject"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| {
            format!(
                "{}  {}\n",
                s["digest"]["sha256"].as_str().unwrap(),
                s["name"].as_str().unwrap()
            )
        })
        .collect();
    assert_eq!(String::from_utf8(read("subjects-file")).unwrap(), sums);
}
