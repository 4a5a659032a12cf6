//! The output schema, compiled hermetically.
//!
//! The schema's bytes are the contract, not the network: a `$ref` to a remote
//! URL is refused, and a relative `$ref` resolves to a file inside the workspace
//! only. The draft follows `$schema` (2020-12 when absent). Formats are
//! annotations, not assertions, as in Python's `jsonschema` without a format
//! checker, so both validators agree.

use std::path::{Path, PathBuf};

use jsonschema::{Draft, Retrieve, Uri, Validator};
use serde_json::Value;

use crate::error::Error;
use crate::limits;
use crate::sources::SchemaInput;
use crate::workspace::Workspace;

pub struct Schema {
    pub validator: Validator,
    /// The draft's name as people write it: `2020-12`, `7`, ...
    pub(crate) draft: &'static str,
    /// What the document's `pattern` matching spent and could not decide.
    pub(crate) patterns: std::sync::Arc<PatternBudget>,
}

/// The strings of one document that `pattern` did not decide, by the
/// address of each (the document does not move while it is validated): a
/// string is counted once, whichever pattern and however often it is tried.
#[derive(Default)]
pub(crate) struct PatternBudget {
    state: std::sync::Mutex<BudgetState>,
}

#[derive(Default)]
struct BudgetState {
    spent: std::time::Duration,
    limited: std::collections::HashSet<usize>,
    unchecked: std::collections::HashSet<usize>,
}

/// What a document's `pattern` matching could not decide.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(crate) struct PatternReport {
    /// Strings on which a match needed more than [`limits::PATTERN_BACKTRACK`] steps.
    pub(crate) limited: usize,
    /// Strings not matched at all: [`limits::PATTERN_TIME`] was spent.
    pub(crate) unchecked: usize,
    /// The first few of either, as JSON Pointers, in document order.
    pub(crate) first: Vec<String>,
}

/// JSON Pointers named in a [`PatternReport`].
const POINTERS_NAMED: usize = 5;

impl PatternBudget {
    /// A new document: nothing spent.
    pub(crate) fn reset(&self) {
        *self.lock() = BudgetState::default();
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, BudgetState> {
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Runs one match while the budget lasts (`None` once it is spent), and
    /// counts the string when the match hit the backtracking limit.
    fn run<'i>(
        &self,
        instance: &'i Value,
        matches: impl FnOnce() -> Result<(), jsonschema::ValidationError<'i>>,
    ) -> Option<Result<(), jsonschema::ValidationError<'i>>> {
        let at = instance as *const Value as usize;
        {
            let mut state = self.lock();
            if state.spent >= limits::PATTERN_TIME {
                state.unchecked.insert(at);
                return None;
            }
        }
        let started = std::time::Instant::now();
        let result = matches();
        let mut state = self.lock();
        state.spent += started.elapsed();
        if let Err(e) = &result {
            if matches!(
                e.kind(),
                jsonschema::error::ValidationErrorKind::BacktrackLimitExceeded { .. }
            ) {
                state.limited.insert(at);
            }
        }
        Some(result)
    }

    /// The strings of `document` left undecided, the first few named.
    pub(crate) fn report(&self, document: &Value) -> PatternReport {
        let state = self.lock();
        let undecided = |v: &Value| {
            let at = v as *const Value as usize;
            state.limited.contains(&at) || state.unchecked.contains(&at)
        };
        let mut first = Vec::new();
        if !state.limited.is_empty() || !state.unchecked.is_empty() {
            let mut stack = vec![(String::new(), document)];
            while let Some((pointer, v)) = stack.pop() {
                if first.len() == POINTERS_NAMED {
                    break;
                }
                match v {
                    Value::String(_) if undecided(v) => first.push(pointer),
                    Value::Array(items) => stack.extend(
                        items
                            .iter()
                            .enumerate()
                            .rev()
                            .map(|(i, x)| (format!("{pointer}/{i}"), x)),
                    ),
                    Value::Object(map) => stack.extend(map.iter().rev().map(|(k, x)| {
                        let k = k.replace('~', "~0").replace('/', "~1");
                        (format!("{pointer}/{k}"), x)
                    })),
                    _ => {}
                }
            }
        }
        PatternReport {
            limited: state.limited.len(),
            unchecked: state.unchecked.difference(&state.limited).count(),
            first,
        }
    }
}

/// The `pattern` keyword, as the validator compiles it (its ECMA-262
/// dialect, the backtracking limit), matched within the document's
/// [`limits::PATTERN_TIME`].
struct BudgetedPattern {
    inner: Validator,
    budget: std::sync::Arc<PatternBudget>,
}

/// What a string the budget left unmatched says.
pub(crate) const UNCHECKED: &str = "was not checked against the schema's `pattern`: the document's pattern matching had used its time budget, so the gate stopped matching and counts it as a violation";

impl<'i> jsonschema::Keyword<'i> for BudgetedPattern {
    fn validate(&self, instance: &'i Value) -> Result<(), jsonschema::ValidationError<'i>> {
        if !instance.is_string() {
            return Ok(());
        }
        self.budget
            .run(instance, || self.inner.validate(instance))
            .unwrap_or_else(|| Err(jsonschema::ValidationError::custom(UNCHECKED)))
    }

    fn is_valid(&self, instance: &'i Value) -> bool {
        self.validate(instance).is_ok()
    }
}

/// Compiles one `pattern` as the validator would, with the shared budget.
fn budgeted_pattern<'a>(
    budget: &std::sync::Arc<PatternBudget>,
    pattern: &'a Value,
) -> Result<Box<dyn for<'i> jsonschema::Keyword<'i>>, jsonschema::ValidationError<'a>> {
    let inner = jsonschema::options()
        .with_pattern_options(
            jsonschema::PatternOptions::fancy_regex().backtrack_limit(limits::PATTERN_BACKTRACK),
        )
        .build(&serde_json::json!({ "pattern": pattern }))?;
    Ok(Box::new(BudgetedPattern {
        inner,
        budget: budget.clone(),
    }))
}

pub(crate) fn draft_name(d: Draft) -> &'static str {
    match d {
        Draft::Draft4 => "4",
        Draft::Draft6 => "6",
        Draft::Draft7 => "7",
        Draft::Draft201909 => "2019-09",
        Draft::Draft202012 => "2020-12",
        _ => "unknown",
    }
}

/// The drafts the gate knows, as people name them.
pub(crate) const DRAFTS: &str = "4, 6, 7, 2019-09 or 2020-12";

/// `$schema`, when it names no draft the gate knows: a custom meta-schema.
fn unknown_meta_schema(schema: &Value) -> Option<&str> {
    let uri = schema.get("$schema")?.as_str()?;
    (Draft::default().detect(schema) == Draft::Unknown).then_some(uri)
}

/// A custom meta-schema is refused for the reason a remote `$ref` is: what,
/// why, and the fix, in the same words.
fn meta_schema_refused(uri: &str) -> String {
    format!(
        "names the meta-schema `{}` in `$schema`, which is not a JSON Schema draft the gate knows \
         ({DRAFTS}); custom meta-schemas are refused like a remote $ref: the schema's bytes are \
         the contract, not the network or another file's rules; set `$schema` to a standard \
         draft, such as https://json-schema.org/draft/2020-12/schema",
        crate::escape::one_line(&crate::markdown::clip(uri, 200))
    )
}

/// Resolves `file://` references inside the workspace; refuses everything else.
struct WorkspaceRetriever {
    root: PathBuf,
}

impl Retrieve for WorkspaceRetriever {
    fn retrieve(
        &self,
        uri: &Uri<String>,
    ) -> Result<Value, Box<dyn std::error::Error + Send + Sync>> {
        if uri.scheme().as_str() != "file" {
            return Err(format!(
                "remote $ref `{uri}` refused: the schema's bytes are the contract, not the network; \
                 copy that schema into the repository and $ref it by relative path"
            )
            .into());
        }
        let path = PathBuf::from(percent_decode(uri.path().as_str()));
        let real =
            std::fs::canonicalize(&path).map_err(|e| format!("$ref `{}`: {e}", path.display()))?;
        if !real.starts_with(&self.root) {
            return Err(format!(
                "$ref `{}` resolves outside the workspace; refused",
                path.display()
            )
            .into());
        }
        let bytes = crate::workspace::read_contained(&real, &[&self.root], limits::FILE_BYTES)
            .map_err(|why| format!("$ref {}", why.why(&path.display().to_string())))?;
        serde_json::from_slice(&bytes)
            .map_err(|e| format!("$ref `{}` is not JSON: {e}", path.display()).into())
    }
}

fn percent_decode(s: &str) -> String {
    let bytes = s.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%' && i + 2 < bytes.len() {
            if let Ok(b) = u8::from_str_radix(&s[i + 1..i + 3], 16) {
                out.push(b);
                i += 3;
                continue;
            }
        }
        out.push(bytes[i]);
        i += 1;
    }
    String::from_utf8_lossy(&out).into_owned()
}

fn file_uri(path: &Path) -> String {
    let mut uri = String::from("file://");
    for b in path.to_string_lossy().bytes() {
        if b.is_ascii_alphanumeric() || b"/-._~".contains(&b) {
            uri.push(b as char);
        } else {
            uri.push_str(&format!("%{b:02X}"));
        }
    }
    uri
}

/// Reads and compiles the output schema the step names: inline, a file, or the
/// default file (which must then exist).
pub(crate) fn compile_input(input: &SchemaInput, ws: &Workspace) -> Result<Schema, Error> {
    let loc = match input {
        SchemaInput::Inline(text) => {
            return compile(
                text.as_bytes(),
                "input `output-schema`",
                ws.root(),
                ws.root(),
            );
        }
        SchemaInput::File(loc) | SchemaInput::Default(loc) => loc,
    };
    let bytes = crate::workspace::read_required("output-schema-file", loc, limits::FILE_BYTES)?;
    compile(&bytes, &loc.shown, &loc.path, ws.root())
}

/// Parses and compiles a schema. `shown` names it in errors; `location` is the
/// schema file (relative `$ref`s resolve beside it), or the workspace root for
/// an inline schema. An invalid schema is a configuration error.
pub fn compile(
    bytes: &[u8],
    shown: &str,
    location: &Path,
    workspace: &Path,
) -> Result<Schema, Error> {
    let clock = crate::logging::Stopwatch::start("schema");
    let bad = |why: String| {
        Error::in_file(
            shown,
            format!(
                "output schema `{shown}` {why}; fix the schema (a broken schema is a configuration error, not a failed review)"
            ),
        )
    };
    let value: Value = serde_json::from_slice(bytes).map_err(|e| {
        bad(format!(
            "is not valid JSON (line {}, column {})",
            e.line(),
            e.column()
        ))
    })?;
    if !value.is_object() && !value.is_boolean() {
        return Err(bad(format!(
            "holds {}, not a schema object",
            crate::error::json_kind(&value)
        )));
    }
    if let Some(uri) = unknown_meta_schema(&value) {
        return Err(bad(meta_schema_refused(uri)));
    }
    let base = if location.is_dir() {
        format!("{}/", file_uri(location).trim_end_matches('/'))
    } else {
        file_uri(location)
    };
    let patterns = std::sync::Arc::new(PatternBudget::default());
    let budget = patterns.clone();
    let validator = jsonschema::options()
        .with_retriever(WorkspaceRetriever {
            root: workspace.to_path_buf(),
        })
        .with_base_uri(base)
        .should_validate_formats(false)
        .with_pattern_options(
            jsonschema::PatternOptions::fancy_regex().backtrack_limit(limits::PATTERN_BACKTRACK),
        )
        .with_keyword("pattern", move |_, pattern, _| {
            budgeted_pattern(&budget, pattern)
        })
        .build(&value)
        .map_err(|e| {
            let text = e.to_string();
            // A `$schema` deeper in the schema, or in a file it `$ref`s.
            if let Some(uri) = text
                .strip_prefix("Unknown meta-schema: '")
                .and_then(|rest| rest.split('\'').next())
            {
                return bad(meta_schema_refused(uri));
            }
            bad(format!(
                "cannot be used: {}",
                crate::escape::one_line(&crate::markdown::clip(&text, 400))
            ))
        })?;
    clock.lap("compiled");
    let draft = draft_name(validator.draft());
    Ok(Schema {
        validator,
        draft,
        patterns,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn compile_in(dir: &Path, schema: &Value) -> Result<Schema, Error> {
        let file = dir.join("s.json");
        std::fs::write(&file, schema.to_string()).unwrap();
        compile(schema.to_string().as_bytes(), "s.json", &file, dir)
    }

    #[test]
    fn drafts_follow_dollar_schema() {
        let d = tempfile::tempdir().unwrap();
        let root = std::fs::canonicalize(d.path()).unwrap();
        assert_eq!(
            compile_in(&root, &json!({"type": "object"})).unwrap().draft,
            "2020-12"
        );
        assert_eq!(
            compile_in(
                &root,
                &json!({"$schema": "http://json-schema.org/draft-07/schema#"})
            )
            .unwrap()
            .draft,
            "7"
        );
        assert_eq!(
            compile_in(
                &root,
                &json!({"$schema": "https://json-schema.org/draft/2019-09/schema"})
            )
            .unwrap()
            .draft,
            "2019-09"
        );
    }

    #[test]
    fn remote_refs_are_refused_and_local_ones_stay_inside() {
        let d = tempfile::tempdir().unwrap();
        let root = std::fs::canonicalize(d.path()).unwrap();
        let e = compile_in(&root, &json!({"$ref": "https://example.com/s.json"}))
            .err()
            .unwrap();
        assert!(e.message().contains("remote $ref"), "{e}");
        std::fs::write(root.join("defs.json"), r#"{"type": "string"}"#).unwrap();
        let s = compile_in(&root, &json!({"properties": {"a": {"$ref": "defs.json"}}})).unwrap();
        assert!(!s.validator.is_valid(&json!({"a": 1})));
        let inner = root.join("inner");
        std::fs::create_dir(&inner).unwrap();
        let e = compile_in(&inner, &json!({"$ref": "../../outside.json"}))
            .err()
            .unwrap();
        assert!(e.message().contains("cannot be used"), "{e}");
    }

    #[test]
    fn an_invalid_schema_is_a_configuration_error() {
        let d = tempfile::tempdir().unwrap();
        let root = std::fs::canonicalize(d.path()).unwrap();
        let e = compile_in(&root, &json!({"type": "objekt"})).err().unwrap();
        assert!(e.message().contains("configuration error"), "{e}");
        assert!(compile(b"[1]", "s.json", &root, &root).is_err());
        assert!(compile(b"{", "s.json", &root, &root).is_err());
    }
}
