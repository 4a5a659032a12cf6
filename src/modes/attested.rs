//! `verify --statement`: re-check what a run attested against a checkout.
//! Every subject of the statement (the review, each instruction file) is
//! hashed again and each file that differs is named; the commit the run
//! recorded is compared with `HEAD`. The signature is not checked here: the
//! command that checks it (`gh attestation verify`) is printed with the
//! values the statement gives.

use serde_json::{Map, Value};

use crate::error::Error;
use crate::inputs::Mode;
use crate::level::Caveat;
use crate::outcome::{Outcome, Unverified};
use crate::receipt::Mismatch;
use crate::receipt::attest::PREDICATE_TYPE;
use crate::receipt::statement::{self, MAX_STATEMENT_BYTES};
use crate::receipt::verify::Verification;
use crate::workspace::{Unread, Workspace};

/// The largest subject hashed: a runtime file is hashed up to 64 MiB too.
/// The most subjects checked: as many as `actions/attest` signs.
const MAX_SUBJECTS: usize = 1024;
const MAX_SUBJECT_BYTES: u64 = 64 << 20;

pub(crate) fn verify_statement(given: &str, ws: &Workspace) -> Result<Outcome, Error> {
    let loc = ws.resolve_artifact("statement", given)?;
    let roots = [loc.path.as_path()];
    let bytes = crate::workspace::read_contained(&loc.path, &roots, MAX_STATEMENT_BYTES)
        .map_err(|why| match why {
            Unread::TooLarge(_) => Error::in_file(
                &loc.shown,
                format!(
                    "statement `{}` holds more than {} MiB; give the statement or the bundles of one run",
                    loc.shown,
                    MAX_STATEMENT_BYTES >> 20
                ),
            ),
            why => Error::in_file(&loc.shown, why.why(&loc.shown)),
        })?;
    let attested = statement::parse(&loc.shown, &bytes)?;
    let mut verification = Verification::default();
    let mut unverified = Vec::new();
    let mut caveats = Vec::new();
    for s in &attested.statements {
        check_subjects(s, ws, &mut verification, &mut unverified);
        unverified.extend(recorded_commit(&s["predicate"], ws));
        caveats.push(Caveat::notice(signature_command(
            &s["predicate"],
            attested.from_bundle.then_some(loc.shown.as_str()),
        )));
    }
    let receipt = match &attested.statements[0]["predicate"]["receipt"] {
        Value::Object(m) => m.clone(),
        _ => Map::new(),
    };
    let mut outcome = Outcome::empty(Mode::Verify, loc.shown, receipt);
    outcome.verification = Some(verification);
    outcome.unverified = unverified;
    outcome.caveats = caveats;
    outcome.statement = true;
    Ok(outcome)
}

/// Each subject hashed again in the checkout: a file that differs, or is
/// gone, is a mismatch naming it; one outside the checkout is not verified.
fn check_subjects(
    s: &Value,
    ws: &Workspace,
    v: &mut Verification,
    unverified: &mut Vec<Unverified>,
) {
    let root = std::fs::canonicalize(ws.root()).unwrap_or_else(|_| ws.root().to_path_buf());
    let subjects = s["subject"]
        .as_array()
        .map(Vec::as_slice)
        .unwrap_or_default();
    if subjects.len() > MAX_SUBJECTS {
        unverified.push(Unverified::new(
            "every subject",
            format!(
                "the statement names {} subjects; the first {MAX_SUBJECTS} (as many as actions/attest signs) were checked, the rest were not",
                subjects.len()
            ),
        ));
    }
    // A file named twice is hashed once.
    let mut hashed: std::collections::HashMap<std::path::PathBuf, Option<String>> =
        std::collections::HashMap::new();
    for subject in subjects.iter().take(MAX_SUBJECTS) {
        let (Some(name), Some(recorded)) = (
            subject["name"].as_str(),
            subject["digest"]["sha256"].as_str(),
        ) else {
            continue;
        };
        let now = match ws.resolve("statement", name) {
            Err(_) => {
                unverified.push(Unverified::new(
                    format!("subject `{}`", crate::escape::one_line(name)),
                    "the statement names a file outside this checkout, which cannot be hashed here",
                ));
                continue;
            }
            Ok(loc) if hashed.contains_key(&loc.path) => hashed[&loc.path].clone(),
            Ok(loc) => {
                let now = match crate::workspace::read_contained(
                    &loc.path,
                    &[&root],
                    MAX_SUBJECT_BYTES,
                ) {
                    Ok(bytes) => Some(crate::digest::sha256_hex(&bytes)),
                    Err(Unread::Missing) => None,
                    Err(why) => {
                        unverified.push(Unverified::new(
                            format!("subject `{}`", crate::escape::one_line(name)),
                            why.why(name),
                        ));
                        continue;
                    }
                };
                hashed.insert(loc.path, now.clone());
                now
            }
        };
        v.checked.push(name.to_string());
        if now.as_deref() != Some(recorded) {
            v.mismatches.push(Mismatch {
                field: "subject".into(),
                recorded: Value::String(recorded.into()),
                actual: now.map_or(Value::Null, Value::String),
                files: vec![name.to_string()],
            });
        }
    }
}

/// The files were compared with this checkout: it should be the commit the
/// run recorded.
fn recorded_commit(predicate: &Value, ws: &Workspace) -> Option<Unverified> {
    let recorded = predicate["git"]["commit"].as_str()?;
    let head = crate::git::start_head(ws.root()).and_then(|p| p.head());
    let why = match head {
        Ok(head) if head == recorded => return None,
        Ok(head) => format!(
            "HEAD is {head}, but the run recorded commit {recorded}: the subjects were compared with this checkout, not the commit the agent reviewed; `git checkout {recorded}` and verify again"
        ),
        Err(e) => format!(
            "the checkout's commit could not be read ({}); the run recorded commit {recorded}",
            e.message()
        ),
    };
    Some(Unverified::new("the recorded commit", why))
}

/// What checks the signature, with the statement's own values: the
/// repository, the workflow that signed it, and the ref it ran from.
fn signature_command(predicate: &Value, bundle: Option<&str>) -> String {
    let text = |p: &str| predicate.pointer(p).and_then(Value::as_str);
    let quote =
        |s: &str| shlex::try_quote(s).map_or_else(|_| "'?'".to_string(), |q| q.into_owned());
    let file = text("/output/path").unwrap_or("review.json");
    let (Some(repo), Some(wf)) = (text("/workflow/repository"), text("/workflow/ref")) else {
        return format!(
            "This checks the files, not the signature. The statement names no workflow (it was written outside GitHub Actions), so no workflow signed it: `gh attestation verify {} -R OWNER/REPO --predicate-type {PREDICATE_TYPE}` finds none.",
            quote(file)
        );
    };
    let (caller, source_ref) = wf.split_once('@').unwrap_or((wf, "refs/heads/main"));
    // A reusable workflow (receipt.yml) signs as itself, not as its caller.
    let workflow = text("/workflow/signer_workflow").unwrap_or(caller);
    let mut cmd = format!(
        "gh attestation verify {} -R {} --predicate-type {PREDICATE_TYPE} --signer-workflow {} --source-ref {}",
        quote(file),
        quote(repo),
        quote(workflow),
        quote(source_ref)
    );
    if let Some(b) = bundle {
        cmd.push_str(&format!(" --bundle {}", quote(b)));
    }
    format!(
        "This checks the files, not the signature: the signature is checked by `gh attestation verify`, with the values this statement gives: `{}`",
        crate::escape::one_line(&cmd)
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn the_signature_command_carries_the_statements_values() {
        let p = json!({"output": {"path": "artifacts/review.json"},
                       "workflow": {"repository": "o/r", "ref": "o/r/.github/workflows/receipt.yml@refs/heads/main"}});
        let said = signature_command(&p, Some("sha256:ab.jsonl"));
        assert!(said.contains(
            "`gh attestation verify artifacts/review.json -R o/r --predicate-type https://prompt-receipt.dev/agent-run/v1 \
             --signer-workflow o/r/.github/workflows/receipt.yml --source-ref refs/heads/main --bundle sha256:ab.jsonl`"
        ), "{said}");
        // Signed by the reusable receipt workflow: that is the signer, the
        // caller's ref the source ref.
        let p = json!({"output": {"path": "review.json"},
                       "workflow": {"repository": "o/r", "ref": "o/r/.github/workflows/agent-receipt.yml@refs/heads/main",
                                    "signer_workflow": "prompt-receipt/prompt-receipt/.github/workflows/receipt.yml"}});
        assert!(signature_command(&p, None).contains(
            "--signer-workflow prompt-receipt/prompt-receipt/.github/workflows/receipt.yml --source-ref refs/heads/main`"
        ));
        let hostile = json!({"output": {"path": "a; rm -rf ~"}, "workflow": {"repository": "o/r", "ref": "x@y"}});
        assert!(signature_command(&hostile, None).contains("verify 'a; rm -rf ~' -R"));
        assert!(signature_command(&json!({}), None).contains("names no workflow"));
    }
}
