//! Verification: recompute every identity a receipt records and name each one
//! that differs. This replaces the original recipe's inline "Verify recorded SHA" step.
//!
//! Files are re-hashed at the paths the receipt records (a receipt written by the
//! original recipe's script, which has no `tools_path`, falls back to the inputs). Inputs
//! given to this step must agree with the receipt too: verifying `review.v4.md`
//! against a receipt of `review.v3.md` is a mismatch, not a pass.

use serde_json::{Map, Value};

use crate::agent::Setup;
use crate::digest;
use crate::error::Error;
use crate::git;
use crate::receipt::Mismatch;
use crate::receipt::identities::{self, PromptFacts};
use crate::sources::{Prompt, SchemaInput, Sources};
use crate::workspace::{Location, Presence, Workspace};

/// Which recorded identities to check.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub(crate) enum Scope {
    /// Everything the receipt records.
    All,
    /// A receipt recorded before the agent ran: its output did not exist yet.
    BeforeAgent,
}

#[derive(Clone, Debug, Default, PartialEq)]
pub(crate) struct Verification {
    /// The fields whose recorded value was compared with a fresh one.
    pub(crate) checked: Vec<String>,
    pub(crate) mismatches: Vec<Mismatch>,
    /// Recorded fields that could not be recomputed, and why.
    pub(crate) skipped: Vec<(String, String)>,
}

impl Verification {
    pub(crate) fn passed(&self) -> bool {
        self.mismatches.is_empty()
    }

    fn compare(&mut self, field: &str, recorded: &Value, actual: Value) {
        self.compare_files(field, recorded, actual, Vec::new);
    }

    /// Compares the identity of `files` (computed only on a difference).
    fn compare_files(
        &mut self,
        field: &str,
        recorded: &Value,
        actual: Value,
        files: impl FnOnce() -> Vec<String>,
    ) {
        self.checked.push(field.to_string());
        if *recorded != actual {
            self.mismatches.push(Mismatch {
                field: field.to_string(),
                recorded: recorded.clone(),
                actual,
                files: files(),
            });
        }
    }
}

/// The fields of a receipt read back from disk that differ from what was
/// written: `recorded` is what the file says, `actual` what was meant.
pub(crate) fn read_back(
    written: &Map<String, Value>,
    on_disk: &Map<String, Value>,
) -> Vec<Mismatch> {
    let fields: std::collections::BTreeSet<&String> =
        written.keys().chain(on_disk.keys()).collect();
    fields
        .into_iter()
        .filter(|field| written.get(*field) != on_disk.get(*field))
        .map(|field| Mismatch {
            field: field.clone(),
            recorded: on_disk.get(field).cloned().unwrap_or(Value::Null),
            actual: written.get(field).cloned().unwrap_or(Value::Null),
            files: Vec::new(),
        })
        .collect()
}

/// Whether a usage file holds a receipt at all (the original recipe's or ours).
pub(crate) fn has_identities(recorded: &Map<String, Value>) -> bool {
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

/// Recomputes what `recorded` says, from the files and git, and checks that
/// the sources given to this step describe the same run.
pub(crate) fn verify(
    recorded: &Map<String, Value>,
    usage_shown: &str,
    sources: &Sources,
    agent: &Setup,
    ws: &Workspace,
    scope: Scope,
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
    let mut v = Verification::default();
    // git answers while the files are hashed.
    let head = match recorded.get("git_sha") {
        Some(_) => Some(git::start_head(&sources.workdir)?),
        None => None,
    };
    for pair in pairs(sources) {
        if scope == Scope::BeforeAgent && pair.sha_key == "output_sha" {
            continue; // recorded before the agent wrote it
        }
        rehash(&mut v, &pair, recorded, usage_shown, sources, ws)?;
    }
    // A receipt written before `agent` existed is Codex's.
    let named = recorded
        .get("agent")
        .cloned()
        .unwrap_or_else(|| Value::String(crate::agent::AgentKind::default().as_str().into()));
    let kind = Value::String(agent.kind.as_str().into());
    if named != kind {
        // Which agent is not an identity of its own: the chain and the record
        // are. A receipt of another agent is a mismatch, named.
        v.compare("agent", &named, kind);
    }
    if let Some(recorded_sha) = recorded.get("agents_sha") {
        let chain = agent.chain(&sources.workdir, ws)?;
        let changed = || changed_agents_files(recorded.get("agents"), &chain.files);
        v.compare_files(
            "agents_sha",
            recorded_sha,
            chain.sha().map_or(Value::Null, Value::String),
            changed,
        );
    }
    if let (Some(recorded_sha), Some(head)) = (recorded.get("git_sha"), head) {
        v.compare("git_sha", recorded_sha, Value::String(head.head()?));
    }
    same_run(&mut v, recorded, sources);
    Ok(v)
}

/// The files a receipt names, path and hash field by field.
fn pairs(sources: &Sources) -> [Pair; 5] {
    [
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
            fallback: Some(sources.tools.shown.clone()),
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
            fallback: Some(sources.output.shown.clone()),
            optional: true,
        },
    ]
}

/// Hashes one recorded file again, at the path the receipt records.
fn rehash(
    v: &mut Verification,
    pair: &Pair,
    recorded: &Map<String, Value>,
    usage_shown: &str,
    sources: &Sources,
    ws: &Workspace,
) -> Result<(), Error> {
    let Some(recorded_sha) = recorded.get(pair.sha_key) else {
        return Ok(());
    };
    let path = match text_field(recorded, usage_shown, pair.path_key)? {
        Some(Some(p)) => p,
        // No path and no hash: that input was not given.
        Some(None) if recorded_sha.is_null() => return Ok(()),
        Some(None) => {
            verify_inline(v, pair.sha_key, recorded_sha, sources);
            return Ok(());
        }
        None => match pair.fallback.clone() {
            Some(p) => p,
            None => {
                v.skipped.push((
                    pair.sha_key.into(),
                    format!("`{}` is not recorded", pair.path_key),
                ));
                return Ok(());
            }
        },
    };
    // The agent's output may be a downloaded copy under RUNNER_TEMP.
    let resolve = if pair.input == "output-file" {
        Workspace::resolve_artifact
    } else {
        Workspace::resolve
    };
    let loc = resolve(ws, pair.input, &path).map_err(|e| {
        Error::in_file(
            usage_shown,
            format!(
                "usage file `{usage_shown}`, field `{}`: {}",
                pair.path_key,
                e.message()
            ),
        )
    })?;
    let file = || vec![loc.shown.clone()];
    let actual = match crate::workspace::presence(pair.input, &loc)? {
        Presence::Missing if pair.optional => Value::Null,
        Presence::Missing => Value::String(format!("(missing: {})", loc.shown)),
        Presence::File if pair.sha_key == "prompt_sha" => {
            let facts = PromptFacts::of(&crate::workspace::read_required(
                pair.input,
                &loc,
                crate::limits::FILE_BYTES,
            )?);
            if let Some(r) = recorded.get("prompt_bom") {
                v.compare_files("prompt_bom", r, Value::Bool(facts.bom), file);
            }
            if let Some(r) = recorded.get("prompt_line_endings") {
                v.compare_files(
                    "prompt_line_endings",
                    r,
                    Value::from(facts.line_endings.as_str()),
                    file,
                );
            }
            Value::String(facts.sha)
        }
        Presence::File => Value::String(identities::required_sha(pair.input, &loc)?),
    };
    v.compare_files(pair.sha_key, recorded_sha, actual, file);
    Ok(())
}

/// The AGENTS.md files that differ between the recorded chain and the chain
/// now: changed, added or gone. Empty when the receipt lists no files.
fn changed_agents_files(
    recorded: Option<&Value>,
    now: &[crate::agent::chain::AgentsFile],
) -> Vec<String> {
    let before: Vec<(&str, &str)> = recorded
        .and_then(Value::as_array)
        .map(|files| {
            files
                .iter()
                .filter_map(|f| Some((f["path"].as_str()?, f["sha256"].as_str()?)))
                .collect()
        })
        .unwrap_or_default();
    let mut changed: Vec<String> = now
        .iter()
        .filter(|f| !before.contains(&(f.path.as_str(), f.sha256.as_str())))
        .map(|f| f.path.clone())
        .collect();
    for (path, _) in &before {
        if !now.iter().any(|f| f.path == *path) && !changed.iter().any(|c| c == path) {
            changed.push(path.to_string());
        }
    }
    changed
}

/// The sources given to this step must describe the same run as the receipt.
/// A path recorded as null (an inline prompt) can disagree with a file given
/// now; a version, model or args recorded as null were not recorded at all.
fn same_run(v: &mut Verification, recorded: &Map<String, Value>, sources: &Sources) {
    let not_recorded = |key: &str| matches!(key, "codex_version" | "model" | "codex_args");
    let mut agree = |key: &str, actual: Option<Value>| {
        if let (Some(actual), Some(rec)) = (actual, recorded.get(key)) {
            if !(rec.is_null() && not_recorded(key)) {
                v.compare(key, rec, actual);
            }
        }
    };
    let shown = |loc: &Location| Some(Value::String(loc.shown.clone()));
    let prompt = match &sources.prompt {
        Some(Prompt::File(loc)) => shown(loc),
        Some(Prompt::Inline(_)) => Some(Value::Null),
        None => None,
    };
    let schema = match &sources.schema {
        SchemaInput::File(loc) => shown(loc),
        SchemaInput::Inline(_) => Some(Value::Null),
        SchemaInput::Default(_) => None,
    };
    let text = |s: &Option<String>| s.clone().map(Value::String);
    agree("prompt_path", prompt);
    agree(
        "tools_path",
        sources.tools_given.then(|| shown(&sources.tools)).flatten(),
    );
    // A downloaded copy (outside the workspace, shown as given) is where the
    // receipt job keeps it, not where the agent wrote it: its bytes are checked.
    agree(
        "output_path",
        sources
            .output_given
            .then(|| shown(&sources.output))
            .flatten()
            .filter(|_| !std::path::Path::new(&sources.output.shown).is_absolute()),
    );
    agree("schema_path", schema);
    agree("codex_version", text(&sources.agent_version));
    agree("model", text(&sources.model));
    agree("codex_args", text(&sources.agent_args));
}

/// An inline prompt or schema has no file to re-hash: it can only be checked
/// against the same inline input given to this step.
fn verify_inline(v: &mut Verification, sha_key: &str, recorded: &Value, sources: &Sources) {
    let text = match (sha_key, &sources.prompt, &sources.schema) {
        ("prompt_sha", Some(Prompt::Inline(t)), _) => Some(t),
        ("schema_sha", _, SchemaInput::Inline(t)) => Some(t),
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
                crate::error::json_kind(other)
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

    /// A workspace holding a prompt and a schema, and the sources naming them.
    fn sources() -> (tempfile::TempDir, Workspace, Sources) {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("p.md"), "Review.\n").unwrap();
        std::fs::write(dir.path().join("s.json"), "{}").unwrap();
        let ws = Workspace::open(dir.path()).unwrap();
        let at = |p: &str| ws.resolve("x", p).unwrap();
        let sources = Sources {
            workdir: ws.root().to_path_buf(),
            prompt: Some(Prompt::File(at("p.md"))),
            template: None,
            tools: at(".agent/tools.json"),
            tools_given: false,
            schema: SchemaInput::File(at("s.json")),
            output: at("r.json"),
            output_given: false,
            fixture: None,
            agent_version: Some("0.169.0".into()),
            agent_args: None,
            model: None,
            safety_strategy: None,
        };
        (dir, ws, sources)
    }

    fn fields(v: &Verification) -> Vec<&str> {
        v.mismatches.iter().map(|m| m.field.as_str()).collect()
    }

    #[test]
    fn files_are_hashed_again_at_the_recorded_paths_and_sources_must_agree() {
        let (dir, ws, sources) = sources();
        let chain = crate::agent::AgentKind::Codex
            .setup(None, crate::agent::Given::default())
            .unwrap();
        let receipt = json!({
            "prompt_path": "p.md",
            "prompt_sha": digest::sha256_hex(b"Review.\n"),
            "prompt_bom": false,
            "prompt_line_endings": "lf",
            "tools_path": ".agent/tools.json", "tools_sha": null,
            "schema_path": "s.json", "schema_sha": digest::sha256_hex(b"{}"),
            "output_path": "r.json", "output_sha": null,
            "codex_version": "0.169.0",
        });
        let recorded = receipt.as_object().unwrap();
        let v = verify(recorded, "usage.json", &sources, &chain, &ws, Scope::All).unwrap();
        assert!(v.passed(), "{:?}", v.mismatches);
        assert!(v.checked.contains(&"prompt_sha".to_string()));

        // CRLF bytes look the same and are another prompt; a tools file that
        // appeared is another input; a different version is another run.
        std::fs::write(dir.path().join("p.md"), "Review.\r\n").unwrap();
        std::fs::create_dir_all(dir.path().join(".agent")).unwrap();
        std::fs::write(dir.path().join(".agent/tools.json"), "[]").unwrap();
        let mut other = sources.clone();
        other.agent_version = Some("0.171.0".into());
        let v = verify(recorded, "usage.json", &other, &chain, &ws, Scope::All).unwrap();
        assert_eq!(
            fields(&v),
            vec![
                "prompt_line_endings",
                "prompt_sha",
                "tools_sha",
                "codex_version"
            ]
        );
        // Before the agent ran there was no output to compare.
        let mut with_output = recorded.clone();
        with_output.insert("output_sha".into(), json!("0".repeat(64)));
        let v = verify(
            &with_output,
            "usage.json",
            &sources,
            &chain,
            &ws,
            Scope::BeforeAgent,
        )
        .unwrap();
        assert!(!v.checked.contains(&"output_sha".to_string()));
    }
}
