//! GitHub's published OpenAPI description (`api.github.com.json` of the npm
//! package `@octokit/openapi`, pinned in `corpora.rs`), cut to the Checks
//! operations the binary uses, checks every request the binary sends to the
//! fake GitHub, and every answer the fake gives: the method and path, the path
//! and query parameters, and the JSON body against the operation's schema.
//!
//! The cut (`checks_subset`) is the one the shared corpus's `checks.json` was
//! made with: three operations, the component schemas and parameters they
//! name, and two corrections from github/rest-api-description that the
//! package's build does not carry yet (see `correct`).
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

/// The description, read and cut once per test binary.
pub fn spec() -> &'static Spec {
    static SPEC: OnceLock<Spec> = OnceLock::new();
    SPEC.get_or_init(|| Spec::new(checks_subset(&full_description())))
}

/// `api.github.com.json` of the pinned `@octokit/openapi`.
pub fn full_description() -> Value {
    let path = super::corpora::github_openapi_description();
    let bytes =
        std::fs::read(&path).unwrap_or_else(|e| panic!("cannot read {}: {e}", path.display()));
    serde_json::from_slice(&bytes).unwrap_or_else(|e| panic!("{} is not JSON: {e}", path.display()))
}

/// The operations the binary calls (create, update, and list for a ref), and
/// receipt.yml's signature job (get one, by the id the create returned).
pub const OPERATIONS: &[(&str, &str)] = &[
    ("/repos/{owner}/{repo}/check-runs", "post"),
    ("/repos/{owner}/{repo}/check-runs/{check_run_id}", "patch"),
    ("/repos/{owner}/{repo}/check-runs/{check_run_id}", "get"),
    ("/repos/{owner}/{repo}/commits/{ref}/check-runs", "get"),
];
/// The component schemas and parameters they name (all of them: `Spec::new`
/// fails on a reference it cannot resolve).
const SCHEMAS: &[&str] = &[
    "check-run",
    "deployment-simple",
    "nullable-integration",
    "simple-user",
    "enterprise",
    "pull-request-minimal",
];
const PARAMETERS: &[&str] = &[
    "owner",
    "repo",
    "check-run-id",
    "commit-ref",
    "check-name",
    "status",
    "per-page",
    "page",
];

/// The Checks operations of the full description, without `x-octokit`,
/// `examples` and the `Link` header of the listing (not carried: headers are
/// not checked), and corrected (see `correct`).
pub fn checks_subset(full: &Value) -> Value {
    let op = |path: &str, method: &str| {
        strip(
            full["paths"]
                .get(path)
                .and_then(|p| p.get(method))
                .unwrap_or_else(|| panic!("the description has no {method} {path}")),
        )
    };
    let component = |kind: &str, name: &str| {
        let v = full["components"][kind]
            .get(name)
            .unwrap_or_else(|| panic!("the description has no components/{kind}/{name}"));
        (name.to_string(), strip(v))
    };
    let mut paths = Map::new();
    for (path, method) in OPERATIONS {
        let mut o = op(path, method);
        if let Some(map) = o.as_object_mut() {
            map.remove("x-github");
        }
        let entry = paths.entry(path.to_string()).or_insert_with(|| json!({}));
        entry[*method] = o;
    }
    let mut subset = json!({
        "openapi": full["openapi"],
        "paths": paths,
        "components": {
            "schemas": SCHEMAS.iter().map(|n| component("schemas", n)).collect::<Map<_, _>>(),
            "parameters": PARAMETERS.iter().map(|n| component("parameters", n)).collect::<Map<_, _>>(),
        },
    });
    if let Some(r) = subset
        .pointer_mut(
            "/paths/~1repos~1{owner}~1{repo}~1commits~1{ref}~1check-runs/get/responses/200",
        )
        .and_then(Value::as_object_mut)
    {
        r.remove("headers");
    }
    correct(&mut subset);
    subset
}

/// The two corrections `checks.json` of the shared corpus made to
/// `@octokit/openapi` 23.0.2, from github/rest-api-description's own text
/// (`descriptions/api.github.com/api.github.com.json`): creating a check run
/// takes the statuses only GitHub Actions may set, and a `completed` run
/// needs a `conclusion` (a `oneOf` on `status`). The second is what GitHub
/// enforces with a 422, so the fake must too. Documentation text and links
/// the corrections also changed are not carried: nothing checks them.
fn correct(subset: &mut Value) {
    let create = subset
        .pointer_mut("/paths/~1repos~1{owner}~1{repo}~1check-runs/post/requestBody/content/application~1json/schema")
        .and_then(Value::as_object_mut)
        .expect("checks/create has a JSON request body");
    create["properties"]["status"] = json!({
        "type": "string",
        "description": "The current status of the check run. Only GitHub Actions can set a status of `waiting`, `pending`, or `requested`.",
        "enum": ["queued", "in_progress", "completed", "waiting", "requested", "pending"],
        "default": "queued",
    });
    create.insert("discriminator".into(), json!({"propertyName": "status"}));
    create.insert(
        "oneOf".into(),
        json!([
            {"properties": {"status": {"enum": ["completed"]}}, "required": ["status", "conclusion"], "additionalProperties": true},
            {"properties": {"status": {"enum": ["queued", "in_progress"]}}, "additionalProperties": true},
        ]),
    );
}

/// Without `x-octokit` and `examples`, at every depth.
fn strip(v: &Value) -> Value {
    match v {
        Value::Object(o) => Value::Object(
            o.iter()
                .filter(|(k, _)| !matches!(k.as_str(), "x-octokit" | "examples"))
                .map(|(k, v)| (k.clone(), strip(v)))
                .collect(),
        ),
        Value::Array(a) => Value::Array(a.iter().map(strip).collect()),
        other => other.clone(),
    }
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
