//! The gate's verdicts agree with an independent validator, Python's
//! `jsonschema`, on a corpus of schemas and documents generated here.

use crate::common;

use std::io::Write;
use std::process::{Command, Stdio};

use prompt_receipt::review::schema;
use serde_json::{Value, json};

fn schemas() -> Vec<Value> {
    let finding = json!({
        "type": "object", "additionalProperties": false,
        "required": ["severity", "path", "line", "title", "message"],
        "properties": {
            "severity": {"enum": ["info", "low", "medium", "high", "critical"]},
            "path": {"type": "string", "minLength": 1},
            "line": {"type": "integer", "minimum": 1},
            "title": {"type": "string", "maxLength": 80},
            "message": {"type": "string"}
        }
    });
    vec![
        json!({}),
        json!(true),
        json!(false),
        json!({"type": "object"}),
        json!({"type": ["string", "null"]}),
        json!({"type": "integer"}),
        json!({"type": "number", "minimum": 0, "exclusiveMaximum": 10}),
        json!({"multipleOf": 0.5}),
        json!({"const": {"a": 1}}),
        json!({"enum": [1, "a", null, [1]]}),
        json!({"type": "string", "minLength": 2, "maxLength": 5}),
        json!({"type": "string", "pattern": "^[a-z]+$"}),
        json!({"format": "date"}),
        json!({"type": "array", "items": {"type": "integer"}}),
        json!({"prefixItems": [{"type": "string"}], "items": false}),
        json!({"contains": {"const": 1}, "minContains": 2}),
        json!({"uniqueItems": true}),
        json!({"minItems": 1, "maxItems": 2}),
        json!({"required": ["a", "b"]}),
        json!({"properties": {"a": {"type": "string"}}, "additionalProperties": false}),
        json!({"patternProperties": {"^[ab]$": {"type": "integer"}}, "additionalProperties": {"type": "string"}}),
        json!({"propertyNames": {"maxLength": 1}}),
        json!({"minProperties": 2, "maxProperties": 2}),
        json!({"dependentRequired": {"a": ["b"]}}),
        json!({"dependentSchemas": {"a": {"required": ["c"]}}}),
        json!({"if": {"required": ["a"]}, "then": {"required": ["b"]}, "else": {"type": "array"}}),
        json!({"allOf": [{"type": "object"}, {"required": ["a"]}]}),
        json!({"anyOf": [{"type": "string"}, {"type": "integer"}]}),
        json!({"oneOf": [{"type": "integer"}, {"minimum": 2}]}),
        json!({"not": {"type": "null"}}),
        json!({"$defs": {"pos": {"type": "integer", "minimum": 1}}, "properties": {"a": {"$ref": "#/$defs/pos"}}}),
        json!({"properties": {"a": true}, "unevaluatedProperties": false}),
        json!({"allOf": [{"properties": {"a": true}}], "unevaluatedProperties": false}),
        json!({"prefixItems": [true], "unevaluatedItems": false}),
        json!({"type": "object", "required": ["ok", "findings"], "properties": {"ok": {"type": "boolean"}, "findings": {"type": "array", "items": {"type": "string"}}}}),
        json!({"type": "object", "required": ["ok", "findings"], "properties": {"ok": {"type": "boolean"}, "findings": {"type": "array", "items": finding}}}),
        json!({"$schema": "http://json-schema.org/draft-07/schema#", "items": [{"type": "string"}], "additionalItems": false}),
        json!({"$schema": "http://json-schema.org/draft-07/schema#", "dependencies": {"a": ["b"]}}),
        json!({"$schema": "http://json-schema.org/draft-07/schema#", "type": "integer", "exclusiveMinimum": 1}),
        json!({"$schema": "https://json-schema.org/draft/2019-09/schema", "items": {"type": "string"}, "maxItems": 2}),
        json!({"$schema": "https://json-schema.org/draft/2019-09/schema", "properties": {"a": true}, "unevaluatedProperties": false}),
        json!({"$schema": "http://json-schema.org/draft-04/schema#", "type": "number", "maximum": 5, "exclusiveMaximum": true}),
    ]
}

fn instances() -> Vec<Value> {
    vec![
        json!(null),
        json!(true),
        json!(false),
        json!(0),
        json!(1),
        json!(1.0),
        json!(-1),
        json!(2.5),
        json!(5),
        json!(10),
        json!(""),
        json!("a"),
        json!("abc"),
        json!("Hello"),
        json!("2020-01-01"),
        json!("not-a-date"),
        json!([]),
        json!([1]),
        json!([1, 2, 3]),
        json!([1, 1]),
        json!(["a", 1]),
        json!(["a"]),
        json!({}),
        json!({"a": 1}),
        json!({"a": "x", "b": 2}),
        json!({"a": 1, "b": 2, "c": 3}),
        json!({"b": "x"}),
        json!({"a": 1, "c": 1}),
        json!({"ok": true, "findings": []}),
        json!({"ok": false, "findings": ["x"]}),
        json!({"ok": true, "findings": [{"severity": "low", "path": "a", "line": 1, "title": "t", "message": "m"}]}),
        json!({"ok": true, "findings": [{"severity": "urgent", "path": "", "line": 0, "title": "t", "message": "m", "x": 1}]}),
        json!({"const": {"a": 1}, "a": 1}),
    ]
}

#[test]
fn verdicts_agree_with_python_jsonschema() {
    let has_jsonschema = Command::new("python3")
        .args(["-c", "import jsonschema"])
        .output()
        .is_ok_and(|o| o.status.success());
    if !has_jsonschema {
        common::skip_without_tool(
            "Python's jsonschema is not installed for python3: run `python3 -m pip install jsonschema==4.26.0` \
             (bash .ci/run does), then `cargo test --locked --test it python_agreement::`",
        );
        return;
    }
    let root = std::env::temp_dir();
    let mut cases = Vec::new();
    for s in schemas() {
        for i in instances() {
            cases.push((s.clone(), i));
        }
    }
    let mut child = Command::new("python3")
        .arg(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/tests/fixtures/python_verdicts.py"
        ))
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("python3 is needed: .ci/run installs it with the jsonschema package");
    {
        let mut stdin = child.stdin.take().unwrap();
        for (s, i) in &cases {
            writeln!(stdin, "{}", json!({"schema": s, "instance": i})).unwrap();
        }
    }
    let out = child.wait_with_output().unwrap();
    assert!(
        out.status.success(),
        "Python jsonschema failed (install it: pip install jsonschema): {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let theirs: Vec<bool> = String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        .map(|l| l == "true")
        .collect();
    assert_eq!(theirs.len(), cases.len());

    let mut disagreements = Vec::new();
    let mut invalid = 0;
    for ((s, i), py) in cases.iter().zip(&theirs) {
        let compiled = schema::compile(s.to_string().as_bytes(), "corpus", &root, &root).unwrap();
        let ours = compiled.validator.is_valid(i);
        invalid += usize::from(!ours);
        if ours != *py {
            disagreements.push(format!("schema {s} instance {i}: ours {ours}, python {py}"));
        }
    }
    assert!(
        disagreements.is_empty(),
        "{} disagreements:\n{}",
        disagreements.len(),
        disagreements.join("\n")
    );
    // The corpus exercises both verdicts, not one.
    assert!(
        invalid > cases.len() / 4 && invalid < cases.len() * 3 / 4,
        "{invalid} of {}",
        cases.len()
    );
}
