//! Every statement a test's step writes is checked here, as the step leaves
//! it: the in-toto Statement v1 layout, the predicate against the documented
//! schema (`docs/predicate-v1.schema.json`), the predicate file equal to the
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
    // Each turn's model and context hash, as the receipt holds them.
    let receipt = &predicate["receipt"];
    let turns: Vec<Value> = receipt["turns"]
        .as_array()
        .into_iter()
        .flatten()
        .map(|t| json!([t["model"], t["context_sha"]]))
        .collect();
    let told: Vec<Value> = predicate["turns"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| json!([t["model"], t["context_sha256"]]))
        .collect();
    assert_eq!(told, turns, "{statement_file}: the turns");
    assert_eq!(
        predicate["agent"]["name"],
        receipt.get("agent").cloned().unwrap_or(json!("codex"))
    );
    assert_eq!(
        predicate["instructions"]["chain_sha256"],
        receipt.get("agents_sha").cloned().unwrap_or(Value::Null)
    );
    assert!(
        receipt.get("claimed_by_upload").is_none(),
        "{statement_file}: a claim in the predicate"
    );
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
