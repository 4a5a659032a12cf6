//! GitHub's published OpenAPI description of the Checks operations
//! (`../shared/corpus/openapi/checks.json`), used to check every request the
//! binary sends to the fake GitHub, and every answer the fake gives: the
//! method and path, the path and query parameters, and the JSON body against
//! the operation's schema.
//!
//! OpenAPI 3.0 schemas are JSON Schema with a few differences; they are
//! bridged here: `nullable: true` becomes a `null` type, and the components
//! ride along in the root document so `#/components/...` references resolve.
#![allow(dead_code)]

use std::sync::OnceLock;

use serde_json::{Map, Value, json};

pub struct Spec {
    ops: Vec<Operation>,
}

pub struct Operation {
    pub method: String,
    pub id: String,
    template: Vec<String>,
    params: Vec<Value>,
    body: Option<(bool, jsonschema::Validator)>,
    responses: Vec<(String, jsonschema::Validator)>,
}

/// The description, read once per test binary.
pub fn spec() -> &'static Spec {
    static SPEC: OnceLock<Spec> = OnceLock::new();
    SPEC.get_or_init(|| {
        let path = super::corpus_dir().join("openapi/checks.json");
        let text = std::fs::read_to_string(&path)
            .unwrap_or_else(|e| panic!("cannot read {}: {e}", path.display()));
        Spec::new(serde_json::from_str(&text).expect("checks.json is JSON"))
    })
}

/// `nullable: true` (OpenAPI 3.0) as JSON Schema: `null` joins the type, and
/// the enum when there is one.
fn bridge(v: &Value) -> Value {
    match v {
        Value::Object(o) => {
            let mut out: Map<String, Value> =
                o.iter().map(|(k, v)| (k.clone(), bridge(v))).collect();
            if out.remove("nullable") == Some(Value::Bool(true)) {
                match out.get("type").cloned() {
                    Some(Value::String(t)) => {
                        out.insert("type".into(), json!([t, "null"]));
                    }
                    None if out.contains_key("$ref") => {
                        let r = out.remove("$ref").unwrap();
                        return json!({"anyOf": [{"$ref": r}, {"type": "null"}]});
                    }
                    _ => {}
                }
                if let Some(Value::Array(e)) = out.get_mut("enum") {
                    e.push(Value::Null);
                }
            }
            out.remove("discriminator");
            Value::Object(out)
        }
        Value::Array(a) => Value::Array(a.iter().map(bridge).collect()),
        other => other.clone(),
    }
}

impl Spec {
    fn new(doc: Value) -> Spec {
        let components = bridge(&doc["components"]);
        let resolve = |v: &Value| -> Value {
            match v.get("$ref").and_then(Value::as_str) {
                Some(r) => {
                    let pointer = r.trim_start_matches('#');
                    doc.pointer(pointer)
                        .unwrap_or_else(|| panic!("unresolved {r}"))
                        .clone()
                }
                None => v.clone(),
            }
        };
        let compile = |schema: &Value| {
            let root = json!({"allOf": [bridge(schema)], "components": components.clone()});
            jsonschema::options()
                .with_draft(jsonschema::Draft::Draft4)
                .build(&root)
                .expect("the description's schemas compile")
        };
        let mut ops = Vec::new();
        for (path, methods) in doc["paths"].as_object().expect("paths") {
            for (method, op) in methods.as_object().unwrap() {
                let params = op["parameters"]
                    .as_array()
                    .map(|ps| ps.iter().map(resolve).collect())
                    .unwrap_or_default();
                let body = op.get("requestBody").map(|b| {
                    (
                        b["required"] == true,
                        compile(&b["content"]["application/json"]["schema"]),
                    )
                });
                let responses = op["responses"]
                    .as_object()
                    .unwrap()
                    .iter()
                    .filter_map(|(code, r)| {
                        let schema = r.pointer("/content/application~1json/schema")?;
                        Some((code.clone(), compile(schema)))
                    })
                    .collect();
                ops.push(Operation {
                    method: method.to_uppercase(),
                    id: op["operationId"].as_str().unwrap_or(path).to_string(),
                    template: path.split('/').map(str::to_string).collect(),
                    params,
                    body,
                    responses,
                });
            }
        }
        Spec { ops }
    }

    /// The operation a request is for, or what is wrong with the request.
    pub fn check_request(
        &self,
        method: &str,
        path: &str,
        query: &[(String, String)],
        body: &[u8],
    ) -> Result<&Operation, Vec<String>> {
        let segments: Vec<&str> = path.split('/').collect();
        let Some((op, path_values)) = self.ops.iter().find_map(|op| {
            if op.method != method || op.template.len() != segments.len() {
                return None;
            }
            let mut values = Vec::new();
            for (t, s) in op.template.iter().zip(&segments) {
                if let Some(name) = t.strip_prefix('{').and_then(|t| t.strip_suffix('}')) {
                    if s.is_empty() {
                        return None;
                    }
                    values.push((name.to_string(), s.to_string()));
                } else if t != s {
                    return None;
                }
            }
            Some((op, values))
        }) else {
            return Err(vec![format!(
                "{method} {path} is not an operation of the description"
            )]);
        };
        let mut problems = Vec::new();
        for p in &op.params {
            let name = p["name"].as_str().unwrap();
            let given: Vec<&String> = match p["in"].as_str() {
                Some("path") => path_values
                    .iter()
                    .filter(|(n, _)| n == name)
                    .map(|(_, v)| v)
                    .collect(),
                Some("query") => query
                    .iter()
                    .filter(|(n, _)| n == name)
                    .map(|(_, v)| v)
                    .collect(),
                _ => continue,
            };
            if given.is_empty() && p["required"] == true {
                problems.push(format!("{}: parameter `{name}` is required", op.id));
            }
            for value in given {
                if let Err(e) = check_parameter(&p["schema"], value) {
                    problems.push(format!("{}: parameter `{name}`={value:?}: {e}", op.id));
                }
            }
        }
        for (name, _) in query {
            let declared = op
                .params
                .iter()
                .any(|p| p["in"] == "query" && p["name"] == name.as_str());
            if !declared {
                problems.push(format!(
                    "{}: query parameter `{name}` is not declared",
                    op.id
                ));
            }
        }
        match &op.body {
            Some((required, validator)) => {
                if body.is_empty() {
                    if *required {
                        problems.push(format!("{}: the request body is required", op.id));
                    }
                } else {
                    match serde_json::from_slice::<Value>(body) {
                        Ok(v) => problems.extend(
                            validator
                                .iter_errors(&v)
                                .map(|e| format!("{}: body {}: {e}", op.id, e.instance_path())),
                        ),
                        Err(e) => problems.push(format!("{}: the body is not JSON: {e}", op.id)),
                    }
                }
            }
            None if !body.is_empty() => {
                problems.push(format!("{}: this operation takes no body", op.id))
            }
            None => {}
        }
        if problems.is_empty() {
            Ok(op)
        } else {
            Err(problems)
        }
    }
}

impl Operation {
    /// An answer the fake gives, against the description's response schema.
    pub fn check_response(&self, status: u16, body: &Value) -> Result<(), Vec<String>> {
        let Some((_, validator)) = self
            .responses
            .iter()
            .find(|(c, _)| *c == status.to_string())
        else {
            return Ok(()); // errors are described by message only
        };
        let problems: Vec<String> = validator
            .iter_errors(body)
            .map(|e| format!("{} answer {status} {}: {e}", self.id, e.instance_path()))
            .collect();
        if problems.is_empty() {
            Ok(())
        } else {
            Err(problems)
        }
    }
}

/// A path or query value against its schema: integers must parse.
fn check_parameter(schema: &Value, value: &str) -> Result<(), String> {
    let typed = match schema["type"].as_str() {
        Some("integer") => value
            .parse::<i64>()
            .map(Value::from)
            .map_err(|_| "not an integer".to_string())?,
        Some("boolean") => value
            .parse::<bool>()
            .map(Value::from)
            .map_err(|_| "not a boolean".to_string())?,
        _ => Value::from(value),
    };
    let validator = jsonschema::options()
        .with_draft(jsonschema::Draft::Draft4)
        .build(&bridge(schema))
        .map_err(|e| e.to_string())?;
    validator.validate(&typed).map_err(|e| e.to_string())
}

#[cfg(test)]
mod tests {}
