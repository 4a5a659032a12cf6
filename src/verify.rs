//! Verification: recompute every identity a receipt records and name each one
//! that differs. This replaces the seed's inline "Verify recorded SHA" step.
//!
//! Files are re-hashed at the paths the receipt records (a receipt written by the
//! seed's script, which has no `tools_path`, falls back to the inputs). Inputs
//! given to this step must agree with the receipt too: verifying `review.v4.md`
//! against a receipt of `review.v3.md` is a mismatch, not a pass.

use serde_json::{Map, Value};

use crate::digest;
use crate::error::Error;
use crate::git;
use crate::identities::{self, PromptFacts};
use crate::inputs::{Inputs, PromptSource, SchemaSource};
use crate::receipt::Mismatch;
use crate::workspace::{Presence, Workspace};

/// Which recorded identities to check.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Scope {
    /// Everything the receipt records.
    All,
    /// A receipt recorded before the agent ran: its output did not exist yet.
    BeforeAgent,
}

#[derive(Clone, Debug, Default, PartialEq)]
pub struct Verification {
    /// The fields whose recorded value was compared with a fresh one.
    pub checked: Vec<String>,
    pub mismatches: Vec<Mismatch>,
    /// Recorded fields that could not be recomputed, and why.
    pub skipped: Vec<(String, String)>,
}

impl Verification {
    pub fn passed(&self) -> bool {
        self.mismatches.is_empty()
    }

    fn compare(&mut self, field: &str, recorded: &Value, actual: Value) {
        self.checked.push(field.to_string());
        if *recorded != actual {
            self.mismatches.push(Mismatch {
                field: field.to_string(),
                recorded: recorded.clone(),
                actual,
            });
        }
    }
}

/// The fields of a receipt read back from disk that differ from what was
/// written: `recorded` is what the file says, `actual` what was meant.
pub fn read_back(written: &Map<String, Value>, on_disk: &Map<String, Value>) -> Vec<Mismatch> {
    let fields: std::collections::BTreeSet<&String> =
        written.keys().chain(on_disk.keys()).collect();
    fields
        .into_iter()
        .filter(|field| written.get(*field) != on_disk.get(*field))
        .map(|field| Mismatch {
            field: field.clone(),
            recorded: on_disk.get(field).cloned().unwrap_or(Value::Null),
            actual: written.get(field).cloned().unwrap_or(Value::Null),
        })
        .collect()
}

/// Whether a usage file holds a receipt at all (the seed's or ours).
pub fn has_identities(recorded: &Map<String, Value>) -> bool {
    recorded.contains_key("prompt_sha")
}

struct Pair {
    path_key: &'static str,
    sha_key: &'static str,
    input: &'static str,
    /// The path to use when the receipt does not record one.
    fallback: Option<String>,
    /// A missing file is a recorded `null`, not an error.
    optional: bool,
}

pub fn verify(
    recorded: &Map<String, Value>,
    usage_shown: &str,
    inputs: &Inputs,
    ws: &Workspace,
    scope: Scope,
    codex_home: Option<&std::path::Path>,
) -> Result<Verification, Error> {
    if !has_identities(recorded) {
        return Err(Error::in_file(
            usage_shown,
            format!(
                "usage file `{usage_shown}` records no identities (no `prompt_sha`); run this action \
                 with mode `record` or `run` first"
            ),
        ));
    }
    let field = |key: &str| text_field(recorded, usage_shown, key);
    let mut v = Verification::default();
    let head = match recorded.get("git_sha") {
        Some(_) => Some(git::start_head(&identities::working_directory(
            inputs, ws,
        )?)?),
        None => None,
    };

    let pairs = [
        Pair {
            path_key: "prompt_path",
            sha_key: "prompt_sha",
            input: "prompt-file",
            fallback: None,
            optional: false,
        },
        Pair {
            path_key: "prompt_template_path",
            sha_key: "prompt_template_sha",
            input: "prompt-template-file",
            fallback: None,
            optional: false,
        },
        Pair {
            path_key: "tools_path",
            sha_key: "tools_sha",
            input: "tools-file",
            fallback: Some(inputs.tools_file.clone()),
            optional: true,
        },
        Pair {
            path_key: "schema_path",
            sha_key: "schema_sha",
            input: "output-schema-file",
            fallback: None,
            optional: false,
        },
        Pair {
            path_key: "output_path",
            sha_key: "output_sha",
            input: "output-file",
            fallback: Some(inputs.output_file.clone()),
            optional: true,
        },
    ];
    for pair in pairs {
        let Some(recorded_sha) = recorded.get(pair.sha_key) else {
            continue;
        };
        if scope == Scope::BeforeAgent && pair.sha_key == "output_sha" {
            continue;
        }
        let path = match field(pair.path_key)? {
            Some(Some(p)) => p,
            // No path and no hash: that input was not given.
            Some(None) if recorded_sha.is_null() => continue,
            Some(None) => {
                verify_inline(&mut v, pair.sha_key, recorded_sha, inputs);
                continue;
            }
            None => match pair.fallback.clone() {
                Some(p) => p,
                None => {
                    v.skipped.push((
                        pair.sha_key.into(),
                        format!("`{}` is not recorded", pair.path_key),
                    ));
                    continue;
                }
            },
        };
        let loc = ws.resolve(pair.input, &path).map_err(|e| {
            Error::in_file(
                usage_shown,
                format!(
                    "usage file `{usage_shown}`, field `{}`: {}",
                    pair.path_key,
                    e.message()
                ),
            )
        })?;
        let actual = match crate::workspace::presence(pair.input, &loc)? {
            Presence::Missing if pair.optional => Value::Null,
            Presence::Missing => Value::String(format!("(missing: {})", loc.shown)),
            Presence::File if pair.sha_key == "prompt_sha" => {
                let facts = PromptFacts::of(&crate::workspace::read_required(pair.input, &loc)?);
                if let Some(r) = recorded.get("prompt_bom") {
                    v.compare("prompt_bom", r, Value::Bool(facts.bom));
                }
                if let Some(r) = recorded.get("prompt_line_endings") {
                    v.compare(
                        "prompt_line_endings",
                        r,
                        Value::from(facts.line_endings.as_str()),
                    );
                }
                Value::String(facts.sha)
            }
            Presence::File => Value::String(identities::required_sha(pair.input, &loc)?),
        };
        v.compare(pair.sha_key, recorded_sha, actual);
    }

    if let Some(recorded_sha) = recorded.get("agents_sha") {
        let dir = identities::working_directory(inputs, ws)?;
        let chain = crate::agents::load(&dir, ws, &identities::chain_options(inputs, codex_home))?;
        v.compare(
            "agents_sha",
            recorded_sha,
            chain.sha().map_or(Value::Null, Value::String),
        );
    }

    if let (Some(recorded_sha), Some(head)) = (recorded.get("git_sha"), head) {
        v.compare("git_sha", recorded_sha, Value::String(head.head()?));
    }

    // Inputs given to this step must describe the same run as the receipt.
    // A path recorded as null (an inline prompt) can disagree with a file given
    // now; a version, model or args recorded as null were not recorded at all.
    let not_recorded = |key: &str| matches!(key, "codex_version" | "model" | "codex_args");
    let mut agree = |key: &str, actual: Option<Value>| {
        if let (Some(actual), Some(rec)) = (actual, recorded.get(key)) {
            if !(rec.is_null() && not_recorded(key)) {
                v.compare(key, rec, actual);
            }
        }
    };
    let shown = |input: &str, given: &str| ws.resolve(input, given).map(|l| Value::String(l.shown));
    agree(
        "prompt_path",
        match &inputs.prompt {
            Some(PromptSource::File(p)) => Some(shown("prompt-file", p)?),
            Some(PromptSource::Inline(_)) => Some(Value::Null),
            None => None,
        },
    );
    agree(
        "tools_path",
        inputs
            .tools_file_given
            .then(|| shown("tools-file", &inputs.tools_file))
            .transpose()?,
    );
    agree(
        "output_path",
        inputs
            .output_file_given
            .then(|| shown("output-file", &inputs.output_file))
            .transpose()?,
    );
    agree(
        "schema_path",
        match &inputs.schema {
            SchemaSource::File(p) => Some(shown("output-schema-file", p)?),
            SchemaSource::Inline(_) => Some(Value::Null),
            SchemaSource::Default => None,
        },
    );
    agree(
        "codex_version",
        inputs.codex_version.clone().map(Value::String),
    );
    agree("model", inputs.model.clone().map(Value::String));
    agree("codex_args", inputs.codex_args.clone().map(Value::String));
    Ok(v)
}

/// An inline prompt or schema has no file to re-hash: it can only be checked
/// against the same inline input given to this step.
fn verify_inline(v: &mut Verification, sha_key: &str, recorded: &Value, inputs: &Inputs) {
    let text = match (sha_key, &inputs.prompt, &inputs.schema) {
        ("prompt_sha", Some(PromptSource::Inline(t)), _) => Some(t),
        ("schema_sha", _, SchemaSource::Inline(t)) => Some(t),
        _ => None,
    };
    match text {
        Some(t) => v.compare(
            sha_key,
            recorded,
            Value::String(digest::sha256_hex(t.as_bytes())),
        ),
        None => v.skipped.push((
            sha_key.to_string(),
            "recorded from an inline input; give the same input to this step to verify it".into(),
        )),
    }
}

/// A recorded field that must be a string or null: `None` when absent.
fn text_field(
    map: &Map<String, Value>,
    usage_shown: &str,
    key: &str,
) -> Result<Option<Option<String>>, Error> {
    match map.get(key) {
        None => Ok(None),
        Some(Value::Null) => Ok(Some(None)),
        Some(Value::String(s)) => Ok(Some(Some(s.clone()))),
        Some(other) => Err(Error::in_file(
            usage_shown,
            format!(
                "usage file `{usage_shown}`, field `{key}` holds {}, not a path; fix the field or record the receipt again",
                crate::usage_file::kind(other)
            ),
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_receipt_read_back_names_each_field_that_differs() {
        let map = |v: Value| v.as_object().unwrap().clone();
        let written = map(json!({"prompt_sha": "a", "git_sha": "b", "extra": 1}));
        assert!(read_back(&written, &written).is_empty());
        let on_disk = map(json!({"prompt_sha": "a", "git_sha": "c", "other": 2}));
        let fields: Vec<(String, Value, Value)> = read_back(&written, &on_disk)
            .into_iter()
            .map(|m| (m.field, m.recorded, m.actual))
            .collect();
        assert_eq!(
            fields,
            vec![
                ("extra".into(), Value::Null, json!(1)),
                ("git_sha".into(), json!("c"), json!("b")),
                ("other".into(), json!(2), Value::Null),
            ]
        );
    }
}
