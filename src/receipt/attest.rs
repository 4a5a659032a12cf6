//! An attestable receipt: an in-toto Statement v1 beside `usage.json`.
//!
//! The statement's subjects are the files that reached the agent (prompt,
//! template, tools, schema, each AGENTS.md file, the fixture) and the review it
//! wrote, by name and SHA-256; its predicate is the receipt. `actions/attest`
//! can sign it, and `gh attestation verify --predicate-type` can check it.

use serde_json::{Map, Value, json};

pub(crate) const STATEMENT_TYPE: &str = "https://in-toto.io/Statement/v1";
/// This project's predicate type: the receipt, as documented in the README.
pub(crate) const PREDICATE_TYPE: &str =
    "https://github.com/prompt-receipt/prompt-receipt/receipt/v1";

/// Where the statement goes: `usage.json` -> `usage.intoto.json`.
pub(crate) fn path_for(usage_file: &str) -> String {
    match usage_file.strip_suffix(".json") {
        Some(stem) => format!("{stem}.intoto.json"),
        None => format!("{usage_file}.intoto.json"),
    }
}

fn subject(name: &str, sha: &str) -> Value {
    json!({"name": name, "digest": {"sha256": sha}})
}

/// The statement for a receipt. Only identities the receipt records become
/// subjects; inline inputs are named for what they are.
pub(crate) fn statement(receipt: &Map<String, Value>) -> Value {
    let text = |k: &str| receipt.get(k).and_then(Value::as_str);
    let mut subjects = Vec::new();
    let mut pair = |path_key: &str, sha_key: &str, inline: &str| {
        if let Some(sha) = text(sha_key) {
            subjects.push(subject(text(path_key).unwrap_or(inline), sha));
        }
    };
    pair("prompt_path", "prompt_sha", "prompt (inline)");
    pair(
        "prompt_template_path",
        "prompt_template_sha",
        "prompt template",
    );
    pair("tools_path", "tools_sha", "tools");
    pair("schema_path", "schema_sha", "output schema (inline)");
    pair("fixture_path", "fixture_sha", "fixture");
    pair("output_path", "output_sha", "output");
    if let Some(Value::Array(files)) = receipt.get("agents") {
        for f in files {
            if let (Some(name), Some(sha)) = (f["path"].as_str(), f["sha256"].as_str()) {
                subjects.push(subject(name, sha));
            }
        }
    }
    json!({
        "_type": STATEMENT_TYPE,
        "subject": subjects,
        "predicateType": PREDICATE_TYPE,
        // What this tool wrote, and nothing a usage file brought with it.
        "predicate": Value::Object(
            receipt
                .iter()
                .filter(|(k, _)| crate::receipt::OWNED_KEYS.contains(&k.as_str()))
                .map(|(k, v)| (k.clone(), v.clone()))
                .collect()
        ),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn subjects_are_the_recorded_files() {
        let r = json!({"prompt_path": "p.md", "prompt_sha": "aa", "tools_path": "t.json", "tools_sha": null,
                       "schema_path": null, "schema_sha": "bb", "output_path": "r.json", "output_sha": "cc",
                       "agents": [{"path": "AGENTS.md", "sha256": "dd", "bytes": 1, "truncated": false}]});
        let s = statement(r.as_object().unwrap());
        let names: Vec<&str> = s["subject"]
            .as_array()
            .unwrap()
            .iter()
            .map(|x| x["name"].as_str().unwrap())
            .collect();
        assert_eq!(
            names,
            vec!["p.md", "output schema (inline)", "r.json", "AGENTS.md"]
        );
        assert_eq!(s["predicate"], r);
        assert_eq!(path_for("out/usage.json"), "out/usage.intoto.json");
    }
}
