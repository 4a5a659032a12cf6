//! An attestable run: an in-toto Statement v1 beside `usage.json`, its
//! predicate alone, and its subjects as a `sha256sum` file.
//!
//! The statement's subjects are the review the agent wrote and every file of
//! its instructions the receipt names (prompt, template, tools, schema,
//! fixture, each chain file, hook configurations, what the runtime runs), by
//! path and SHA-256. The predicate (`PREDICATE_TYPE`, documented field by
//! field in `docs/attestation.md` and `docs/predicate-v1.schema.json`) says
//! who ran, with which models and contexts, what the base comparison found,
//! the verdict and which workflow made it; under `receipt`, the receipt
//! without anything the agent job's upload claimed. `actions/attest` signs
//! the predicate file with the subjects file (it builds the same statement);
//! `gh attestation verify --predicate-type` checks the signature, and
//! `verify --statement` re-checks the subjects against a checkout.

use serde_json::{Map, Value, json};

pub(crate) const STATEMENT_TYPE: &str = "https://in-toto.io/Statement/v1";
/// This project's predicate type, versioned: a name, not a page to fetch.
pub(crate) const PREDICATE_TYPE: &str = "https://prompt-receipt.dev/agent-run/v1";

/// The three files written beside the receipt: `usage.json` ->
/// `usage.intoto.json`, `usage.predicate.json`, `usage.subjects.sha256`.
pub(crate) fn paths_for(usage_file: &str) -> [String; 3] {
    let stem = usage_file.strip_suffix(".json").unwrap_or(usage_file);
    [
        format!("{stem}.intoto.json"),
        format!("{stem}.predicate.json"),
        format!("{stem}.subjects.sha256"),
    ]
}

/// The workflow run that made the statement, from the runner's variables.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(crate) struct Workflow {
    /// `GITHUB_WORKFLOW_REF`: `owner/repo/.github/workflows/x.yml@refs/heads/main`.
    pub(crate) workflow_ref: Option<String>,
    pub(crate) repository: Option<String>,
    pub(crate) run_id: Option<String>,
    pub(crate) run_attempt: Option<String>,
    pub(crate) event: String,
    /// The commit reviewed: the pull request's head, else `GITHUB_SHA`.
    pub(crate) head_sha: Option<String>,
    /// `GITHUB_SHA` (on pull requests, the merge commit).
    pub(crate) sha: Option<String>,
    /// The workflow that signs it, when another than `workflow_ref`'s file
    /// (receipt.yml, called from the repository's workflow, signs as itself).
    pub(crate) signer_workflow: Option<String>,
}

/// What the step concluded, as its outputs say it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Verdict {
    pub(crate) conclusion: &'static str,
    /// Every recorded identity was recomputed and equal.
    pub(crate) verified: bool,
    pub(crate) not_verified: Vec<String>,
}

/// The predicate: the run in the fields a reader checks, then the receipt
/// (only the keys this tool owns: nothing the upload claimed).
pub(crate) fn predicate(
    receipt: &Map<String, Value>,
    verdict: &Verdict,
    base: Option<&crate::base::Check>,
    workflow: Option<&Workflow>,
    recorded_at: &str,
) -> Value {
    let owned: Map<String, Value> = receipt
        .iter()
        .filter(|(k, _)| crate::receipt::OWNED_KEYS.contains(&k.as_str()))
        .map(|(k, v)| (k.clone(), v.clone()))
        .collect();
    let text = |k: &str| receipt.get(k).and_then(Value::as_str);
    let kind = crate::agent::AgentKind::of_receipt(receipt);
    let cli_version = receipt
        .get("session")
        .and_then(|s| s.get("cli_version"))
        .and_then(Value::as_str)
        .or(text("codex_version"));
    let turns: Vec<Value> = receipt
        .get("turns")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .map(|t| json!({"model": t["model"], "prompt_sha256": t["prompt_sha"], "context_sha256": t["context_sha"]}))
        .collect();
    json!({
        "recorded_at": recorded_at,
        "agent": {"name": kind.as_str(), "cli_version": cli_version},
        "model": text("model"),
        "models": receipt.get("models").cloned().unwrap_or_else(|| json!([])),
        "turns": turns,
        "prompt": {"path": text("prompt_path"), "sha256": text("prompt_sha"), "sent_sha256": text("prompt_sent_sha")},
        "context_sha256": text("context_sha"),
        "instructions": {"chain_sha256": text("agents_sha"), "files": instruction_files(receipt, kind)},
        "output": {"path": text("output_path"), "sha256": text("output_sha")},
        "git": {"commit": text("git_sha"), "describe": text("git_describe")},
        "base": base.map(base_result),
        "verdict": verdict_of(receipt, verdict),
        "workflow": workflow.map(workflow_of),
        "receipt": Value::Object(owned),
    })
}

fn verdict_of(receipt: &Map<String, Value>, v: &Verdict) -> Value {
    let validation = receipt.get("validation");
    json!({
        "conclusion": v.conclusion,
        "verified": v.verified,
        "not_verified": v.not_verified,
        "valid": validation.and_then(|x| x.get("valid")).cloned().unwrap_or(Value::Null),
        "ok": receipt.get("ok").cloned().unwrap_or(Value::Null),
        "findings": receipt.get("findings_count").cloned().unwrap_or(Value::Null),
    })
}

fn workflow_of(w: &Workflow) -> Value {
    json!({
        "ref": w.workflow_ref,
        "repository": w.repository,
        "run_id": w.run_id,
        "run_attempt": w.run_attempt,
        "event": w.event,
        "head_sha": w.head_sha,
        "sha": w.sha,
        "signer_workflow": w.signer_workflow,
    })
}

/// The comparison with the trusted base: what it compared with, whether it
/// could, and each instruction file that differs.
fn base_result(c: &crate::base::Check) -> Value {
    let changed: Vec<Value> = c
        .changes
        .iter()
        .map(|ch| json!({"path": ch.path, "kind": ch.kind, "base_sha256": ch.base_sha, "head_sha256": ch.head_sha}))
        .collect();
    json!({
        "ref": c.base.as_ref().map(|b| b.given.clone()),
        "commit": c.commit,
        "merge_base": c.merge_base,
        "policy": c.policy.as_str(),
        "compared": c.unavailable.is_none(),
        "unavailable": c.unavailable,
        "changed": changed,
    })
}

/// Every file of the agent's instructions the receipt names, with its kind:
/// the step's inputs, the chain, hook configurations, what the runtime runs.
fn instruction_files(receipt: &Map<String, Value>, kind: crate::agent::AgentKind) -> Vec<Value> {
    let text = |k: &str| receipt.get(k).and_then(Value::as_str);
    let mut files = Vec::new();
    for (what, path, sha) in [
        ("prompt", "prompt_path", "prompt_sha"),
        (
            "prompt template",
            "prompt_template_path",
            "prompt_template_sha",
        ),
        ("tools", "tools_path", "tools_sha"),
        ("output schema", "schema_path", "schema_sha"),
        ("fixture", "fixture_path", "fixture_sha"),
    ] {
        if let Some(p) = text(path) {
            files.push(json!({"path": p, "sha256": text(sha), "kind": what}));
        }
    }
    let list = |k: &str| {
        receipt
            .get(k)
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
    };
    for f in list("agents") {
        files.push(json!({"path": f["path"], "sha256": f["sha256"], "kind": kind.chain_name()}));
    }
    for h in list("hooks") {
        files.push(json!({"path": h["path"], "sha256": h["sha256"], "kind": "hook configuration"}));
    }
    for r in list("runtime") {
        files.push(json!({"path": r["path"], "sha256": r["sha256"], "kind": r["kind"]}));
    }
    files
}

/// The subjects: the review and each instruction file, by path and SHA-256.
/// A file outside the checkout (`$CODEX_HOME/...`, `~/...`), one with no
/// hash (missing, a folder), or a name `sha256sum` cannot carry is left out:
/// nobody could check it against a checkout. Each name once.
pub(crate) fn subjects(predicate: &Value) -> Vec<(String, String)> {
    let mut out: Vec<(String, String)> = Vec::new();
    let output = std::iter::once(&predicate["output"]);
    let files = predicate["instructions"]["files"]
        .as_array()
        .into_iter()
        .flatten();
    for f in output.chain(files) {
        let (Some(name), Some(sha)) = (f["path"].as_str(), f["sha256"].as_str()) else {
            continue;
        };
        let outside = name.starts_with('$') || name.starts_with('~') || name.ends_with('/');
        let unsayable = name.chars().any(char::is_control) || name.starts_with(['*', ' ']);
        if outside || unsayable || out.iter().any(|(n, _)| n == name) {
            continue;
        }
        out.push((name.to_string(), sha.to_string()));
    }
    out
}

/// The in-toto Statement v1 over `subjects` with `predicate`.
pub(crate) fn statement(subjects: &[(String, String)], predicate: Value) -> Value {
    let subject: Vec<Value> = subjects
        .iter()
        .map(|(name, sha)| json!({"name": name, "digest": {"sha256": sha}}))
        .collect();
    json!({
        "_type": STATEMENT_TYPE,
        "subject": subject,
        "predicateType": PREDICATE_TYPE,
        "predicate": predicate,
    })
}

/// The subjects as `sha256sum` prints them, which `actions/attest` reads as
/// `subject-checksums`.
pub(crate) fn checksums(subjects: &[(String, String)]) -> String {
    subjects
        .iter()
        .map(|(name, sha)| format!("{sha}  {name}\n"))
        .collect()
}

/// `SystemTime` as RFC 3339 in UTC, to the second: `2026-12-02T11:43:24Z`.
pub(crate) fn rfc3339(t: std::time::SystemTime) -> String {
    let secs = t
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs());
    let (days, rest) = (secs / 86_400, secs % 86_400);
    // Howard Hinnant's civil_from_days, for days since 1970-01-01.
    let z = days as i64 + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    format!(
        "{year:04}-{month:02}-{day:02}T{:02}:{:02}:{:02}Z",
        rest / 3600,
        rest % 3600 / 60,
        rest % 60
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn verdict() -> Verdict {
        Verdict {
            conclusion: "success",
            verified: true,
            not_verified: vec![],
        }
    }

    #[test]
    fn subjects_are_the_review_and_the_instruction_files_in_the_checkout() {
        let r = json!({"prompt_path": "p.md", "prompt_sha": "aa", "tools_path": "t.json", "tools_sha": null,
                       "schema_path": null, "schema_sha": "bb", "output_path": "r.json", "output_sha": "cc",
                       "agents": [{"path": "AGENTS.md", "sha256": "dd", "bytes": 1, "truncated": false},
                                  {"path": "$CODEX_HOME/AGENTS.md", "sha256": "ee", "bytes": 1, "truncated": false}],
                       "claimed_by_upload": {"budget": 1}});
        let p = predicate(r.as_object().unwrap(), &verdict(), None, None, "t");
        let names: Vec<String> = subjects(&p).into_iter().map(|(n, _)| n).collect();
        assert_eq!(names, vec!["r.json", "p.md", "AGENTS.md"]);
        assert_eq!(p["receipt"].get("claimed_by_upload"), None);
        assert_eq!(p["receipt"]["prompt_sha"], "aa");
        assert_eq!(
            p["instructions"]["files"][3]["path"],
            "$CODEX_HOME/AGENTS.md"
        );
        assert_eq!(
            checksums(&subjects(&p)),
            "cc  r.json\naa  p.md\ndd  AGENTS.md\n"
        );
        assert_eq!(
            paths_for("out/usage.json"),
            [
                "out/usage.intoto.json",
                "out/usage.predicate.json",
                "out/usage.subjects.sha256"
            ]
        );
    }

    #[test]
    fn the_documented_schema_names_every_receipt_key() {
        let schema: Value =
            serde_json::from_str(include_str!("../../docs/predicate-v1.schema.json")).unwrap();
        let names = &schema["properties"]["receipt"]["propertyNames"]["enum"];
        assert_eq!(names, &json!(crate::receipt::OWNED_KEYS));
        let p = predicate(&Map::new(), &verdict(), None, None, "t");
        let mut keys: Vec<&String> = p.as_object().unwrap().keys().collect();
        let mut documented: Vec<&str> = schema["required"]
            .as_array()
            .unwrap()
            .iter()
            .map(|k| k.as_str().unwrap())
            .collect();
        keys.sort();
        documented.sort_unstable();
        assert_eq!(keys, documented);
        // Every agent of the registry is a name the schema allows (the
        // fourth agent's statements failed it until this line existed).
        let agents: Vec<String> = crate::agent::registry::all()
            .into_iter()
            .map(|k| k.as_str().to_string())
            .filter(|k| k != "skeleton") // the test-only agent
            .collect();
        assert_eq!(
            schema["properties"]["agent"]["properties"]["name"]["enum"],
            json!(agents)
        );
    }

    #[test]
    fn times_are_rfc3339_utc() {
        use std::time::{Duration, UNIX_EPOCH};
        assert_eq!(rfc3339(UNIX_EPOCH), "1970-01-01T00:00:00Z");
        let t = UNIX_EPOCH + Duration::from_secs(1_796_211_804);
        assert_eq!(rfc3339(t), "2026-12-02T11:43:24Z");
        let leap = UNIX_EPOCH + Duration::from_secs(951_782_400);
        assert_eq!(rfc3339(leap), "2000-02-29T00:00:00Z");
    }
}
