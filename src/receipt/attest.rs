//! An attestable run: an in-toto Statement v1 beside `usage.json`, its
//! predicate alone, and its subjects as a `sha256sum` file.
//!
//! The statement's subjects are the review the agent wrote and every file of
//! its instructions the receipt names (prompt, template, tools, schema,
//! fixture, each chain file, hook configurations, what the runtime runs), by
//! name and SHA-256. The predicate (`PREDICATE_TYPE`, documented field by
//! field in `docs/attestation.md` and `docs/predicate-v1.schema.json`) leads
//! with the verdict, and says who ran, what the base comparison found and
//! which workflow made it; under `receipt`, what was recomputed from files;
//! under `claimed`, what only the agent job's upload says (its session
//! record). `actions/attest` signs the predicate file with the subjects file
//! (it builds the same statement); `gh attestation verify --predicate-type`
//! checks the signature, and `verify --statement` re-checks the verdict, the
//! signer and the subjects against a checkout.

use serde_json::{Map, Value, json};

pub(crate) const STATEMENT_TYPE: &str = "https://in-toto.io/Statement/v1";
/// This project's predicate type, versioned: a name, not a page to fetch.
pub(crate) const PREDICATE_TYPE: &str = "https://prompt-receipt.dev/agent-run/v1";
/// This project's reusable receipt workflow, which signs as itself in the
/// binding layout: the signer `verify --statement` expects unless told another.
pub(crate) const RECEIPT_WORKFLOW: &str =
    "prompt-receipt/prompt-receipt/.github/workflows/receipt.yml";

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
    /// The verdict in words, as the check run's title says it (no icon):
    /// a reader of the predicate learns why a run failed without the check
    /// run, which is gone with the pull request's page.
    pub(crate) title: String,
    /// Every recorded identity was recomputed and equal.
    pub(crate) verified: bool,
    pub(crate) not_verified: Vec<String>,
}

/// The predicate: the run in the fields a reader checks, then the receipt.
/// What only the agent job's upload says (its session record: the models,
/// the turns, the tokens, ...) is under `claimed`, apart from what was
/// recomputed from files; what the upload's `usage.json` added
/// (`claimed_by_upload`) is not in it at all. `runner_temp` is the runner's
/// temp folder as this process sees it: a review downloaded there is named
/// by its path under it ([`subject_name`]).
pub(crate) fn predicate(
    receipt: &Map<String, Value>,
    verdict: &Verdict,
    base: Option<&crate::base::Check>,
    workflow: Option<&Workflow>,
    recorded_at: &str,
    runner_temp: Option<&str>,
) -> Value {
    let (mut recomputed, mut claimed) = (Map::new(), Map::new());
    for (k, v) in receipt {
        if crate::receipt::RECORD_KEYS.contains(&k.as_str()) {
            claimed.insert(k.clone(), v.clone());
        } else if crate::receipt::OWNED_KEYS.contains(&k.as_str()) {
            recomputed.insert(k.clone(), v.clone());
        }
    }
    let text = |k: &str| receipt.get(k).and_then(Value::as_str);
    let kind = crate::agent::AgentKind::of_receipt(receipt);
    let output = text("output_path");
    let review_subject = match (output, text("output_sha")) {
        (Some(path), Some(_)) => subject_name(path, runner_temp),
        _ => None,
    };
    json!({
        "recorded_at": recorded_at,
        "verdict": verdict_of(receipt, verdict),
        "agent": {"name": kind.as_str(), "cli_version": text("codex_version")},
        "model": text("model"),
        "prompt": {"path": text("prompt_path"), "sha256": text("prompt_sha")},
        "instructions": {"chain_sha256": text("agents_sha"), "files": instruction_files(receipt, kind)},
        "output": {"path": output, "sha256": text("output_sha"), "subject": review_subject},
        "git": {"commit": text("git_sha"), "describe": text("git_describe")},
        "base": base.map(|c| base_result(c, receipt.get("base"))),
        "workflow": workflow.map(workflow_of),
        "receipt": Value::Object(recomputed),
        "claimed": Value::Object(claimed),
    })
}

fn verdict_of(receipt: &Map<String, Value>, v: &Verdict) -> Value {
    let validation = receipt.get("validation");
    json!({
        "conclusion": v.conclusion,
        "title": v.title,
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
fn base_result(c: &crate::base::Check, recorded: Option<&Value>) -> Value {
    let listed = |changes: &[crate::base::Change]| -> Vec<Value> {
        changes
            .iter()
            .map(|ch| json!({"path": ch.path, "kind": ch.kind, "base_sha256": ch.base_sha, "head_sha256": ch.head_sha}))
            .collect()
    };
    // As the receipt recorded it: the base whose configuration the agent ran
    // with, and what the receipt's checkout had put back to match.
    let pinned = recorded
        .and_then(|b| b.get("pinned"))
        .cloned()
        .unwrap_or(Value::Null);
    json!({
        "ref": c.base.as_ref().map(|b| b.given.clone()),
        "branch": c.base.as_ref().and_then(|b| b.branch.clone()),
        "pull_requests_into": match &c.target {
            crate::base::Target::Elsewhere(other) => other.clone(),
            _ => Vec::new(),
        },
        "commit": c.commit,
        "merge_base": c.merge_base,
        "policy": c.policy.as_str(),
        "compared": c.unavailable.is_none(),
        "unavailable": c.unavailable,
        "changed": listed(&c.changes),
        "configuration": if pinned.is_null() { "checkout" } else { "base" },
        "pinned": pinned,
        "not_used": listed(&c.not_used),
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

/// The name a file is a subject by, or `None` when nobody could check it
/// later. A file of the checkout is named by its workspace-relative path. A
/// file under the runner's temp folder (the review the agent job uploaded,
/// downloaded there: `${{ runner.temp }}/agent-run/review.json`, a host path
/// `.../_temp/agent-run/review.json`, or `$RUNNER_TEMP/agent-run/review.json`
/// as this process sees it) is named by its path under that folder,
/// `agent-run/review.json`: where `gh run download RUN -n agent-run -D
/// agent-run` puts it beside a checkout. An absolute path elsewhere, the
/// agent's home (`$CODEX_HOME/...`, `~/...`), a folder, `..`, or a name
/// `sha256sum` cannot carry is not a subject.
pub(crate) fn subject_name(path: &str, runner_temp: Option<&str>) -> Option<String> {
    let name = if path.starts_with('/') {
        let temp = runner_temp.map(|t| t.trim_end_matches('/'));
        temp.and_then(|t| path.strip_prefix(t)?.strip_prefix('/'))
            .or_else(|| path.split_once("/_temp/").map(|(_, rest)| rest))?
    } else {
        path
    };
    sayable(name).then(|| name.to_string())
}

/// A workspace-relative name a re-checker can hash and `sha256sum` can carry.
fn sayable(name: &str) -> bool {
    let outside = name.is_empty()
        || name.starts_with(['$', '~', '/'])
        || name.ends_with('/')
        || name.split('/').any(|part| part == "..");
    let unsayable = name.chars().any(char::is_control) || name.starts_with(['*', ' ']);
    !outside && !unsayable
}

/// The subjects: the review (by `output.subject`) and each instruction file,
/// by name and SHA-256. A file outside the checkout, one with no hash
/// (missing, a folder), or a name `sha256sum` cannot carry is left out:
/// nobody could check it later. Each name once.
pub(crate) fn subjects(predicate: &Value) -> Vec<(String, String)> {
    let mut out: Vec<(String, String)> = Vec::new();
    let output = &predicate["output"];
    let review = (output["subject"].as_str(), output["sha256"].as_str());
    let files = predicate["instructions"]["files"]
        .as_array()
        .into_iter()
        .flatten()
        .map(|f| (f["path"].as_str(), f["sha256"].as_str()));
    for (name, sha) in std::iter::once(review).chain(files) {
        let (Some(name), Some(sha)) = (name, sha) else {
            continue;
        };
        if !sayable(name) || out.iter().any(|(n, _)| n == name) {
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
            title: "Receipt verified".into(),
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
        let p = predicate(r.as_object().unwrap(), &verdict(), None, None, "t", None);
        let names: Vec<String> = subjects(&p).into_iter().map(|(n, _)| n).collect();
        assert_eq!(names, vec!["r.json", "p.md", "AGENTS.md"]);
        assert_eq!(p["receipt"].get("claimed_by_upload"), None);
        assert_eq!(p["receipt"]["prompt_sha"], "aa");
        assert_eq!(p["output"]["subject"], "r.json");
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

    /// receipt.yml downloads the review to `${{ runner.temp }}/agent-run/`:
    /// its subject is named as `gh run download` lays it out beside a
    /// checkout, never by a runner's absolute path nobody has later.
    #[test]
    fn a_review_under_the_runner_temp_folder_is_named_by_its_path_there() {
        let temp = Some("/github/runner_temp");
        for (path, name) in [
            (
                "/home/runner/work/_temp/agent-run/review.json",
                Some("agent-run/review.json"),
            ),
            (
                "/github/runner_temp/agent-run/review.json",
                Some("agent-run/review.json"),
            ),
            ("/tmp/agent-run/review.json", None),
            ("/home/runner/work/_temp/../x.json", None),
            ("/home/runner/work/_temp/", None),
            ("artifacts/review.json", Some("artifacts/review.json")),
            ("$CODEX_HOME/AGENTS.md", None),
            ("~/.claude/CLAUDE.md", None),
            ("mcp/", None),
            ("*x", None),
        ] {
            assert_eq!(subject_name(path, temp).as_deref(), name, "{path}");
        }
        // The runner's own temp folder (act's is `/tmp`) counts as one too.
        assert_eq!(
            subject_name("/tmp/agent-run/review.json", Some("/tmp/")).as_deref(),
            Some("agent-run/review.json")
        );
        let r = json!({"prompt_sha": "aa", "schema_sha": "bb", "output_sha": "cc",
                       "output_path": "/home/runner/work/_temp/agent-run/review.json"});
        let p = predicate(r.as_object().unwrap(), &verdict(), None, None, "t", temp);
        assert_eq!(p["output"]["path"], r["output_path"]);
        assert_eq!(p["output"]["subject"], "agent-run/review.json");
        assert_eq!(checksums(&subjects(&p)), "cc  agent-run/review.json\n");
        // No review (its hash is null): no subject for it.
        let r = json!({"prompt_sha": "aa", "schema_sha": "bb", "output_sha": null, "output_path": "r.json"});
        let p = predicate(r.as_object().unwrap(), &verdict(), None, None, "t", temp);
        assert_eq!(p["output"]["subject"], Value::Null);
        assert!(subjects(&p).is_empty());
    }

    /// What only the upload says (the session record's models, turns,
    /// tokens, ...) is under `claimed`; `receipt` holds what was recomputed.
    #[test]
    fn what_the_record_says_is_claimed_apart_from_what_was_recomputed() {
        let r = json!({"prompt_sha": "aa", "schema_sha": "bb", "codex_version": "0.169.0",
                       "models": ["gpt-5.5"], "tokens": {"total": 10}, "session": {"cli_version": "9.9.9"},
                       "turns": [{"model": "gpt-5.5", "prompt_sha": "aa", "context_sha": "cc", "items": []}],
                       "prompt_sent_sha": "aa", "claimed_by_upload": {"models": ["x"]}});
        let p = predicate(r.as_object().unwrap(), &verdict(), None, None, "t", None);
        let keys = |v: &Value| v.as_object().unwrap().keys().cloned().collect::<Vec<_>>();
        assert_eq!(
            keys(&p["claimed"]),
            ["models", "prompt_sent_sha", "session", "tokens", "turns"]
        );
        assert_eq!(
            keys(&p["receipt"]),
            ["codex_version", "prompt_sha", "schema_sha"]
        );
        assert_eq!(p["claimed"]["models"], json!(["gpt-5.5"]));
        // The version the step was given, not the one the record claims.
        assert_eq!(p["agent"]["cli_version"], "0.169.0");
        assert_eq!(p["verdict"]["title"], "Receipt verified");
    }

    #[test]
    fn the_documented_schema_names_every_receipt_key() {
        let schema: Value =
            serde_json::from_str(include_str!("../../docs/predicate-v1.schema.json")).unwrap();
        let recomputed: Vec<&str> = crate::receipt::OWNED_KEYS
            .iter()
            .copied()
            .filter(|k| !crate::receipt::RECORD_KEYS.contains(k))
            .collect();
        let names = &schema["properties"]["receipt"]["propertyNames"]["enum"];
        assert_eq!(names, &json!(recomputed));
        let claimed = &schema["properties"]["claimed"]["propertyNames"]["enum"];
        assert_eq!(claimed, &json!(crate::receipt::RECORD_KEYS));
        let p = predicate(&Map::new(), &verdict(), None, None, "t", None);
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
