//! `verify --statement`: re-check what a run attested against a checkout.
//!
//! A statement is verified only when all of these hold, each checked here:
//! the receipt it records succeeded (its verdict is `success`: a failed or
//! neutral run, signed or not, never reads as verified); it names at least
//! one subject; the repository, workflow and ref it names are the ones the
//! user expects (`--repo`, `--signer-workflow`, `--default-branch`: never
//! the statement's own values); every subject (the review, each instruction
//! file) hashes as recorded; and the checkout is the recorded commit. The
//! signature is not checked here: the `gh attestation verify` command that
//! checks it is printed with the expected values, so a statement signed by
//! another workflow or from a pull request's ref fails that command too.
//!
//! What fails the statement is `outcome.decision`, as the gate's decision
//! fails a `run`: its `fails` are the reasons, which the verdict leads with.

use serde_json::{Map, Value};

use crate::error::Error;
use crate::inputs::{ExpectedSigner, Mode};
use crate::level::Caveat;
use crate::limits;
use crate::outcome::{Outcome, Unverified};
use crate::receipt::Mismatch;
use crate::receipt::attest::PREDICATE_TYPE;
use crate::receipt::statement;
use crate::receipt::verify::Verification;
use crate::review::gate::{Conclusion, Decision, FailOn};
use crate::workspace::{Location, Unread, Workspace};

/// Characters of a value the statement gives, shown in a message.
const SHOWN_CHARS: usize = 160;

/// What the checks of one file's statements found.
#[derive(Default)]
struct Found {
    verification: Verification,
    unverified: Vec<Unverified>,
    caveats: Vec<Caveat>,
    /// Why the statement is not verified, each in a few words.
    fails: Vec<String>,
}

pub(crate) fn verify_statement(
    given: &str,
    expected: &ExpectedSigner,
    review: Option<&str>,
    ws: &Workspace,
) -> Result<Outcome, Error> {
    let loc = ws.resolve_anywhere("statement", given)?;
    let bytes = read_statement(&loc)?;
    let attested = statement::parse(&loc.shown, &bytes)?;
    let review = review
        .map(|r| ws.resolve_anywhere("review", r))
        .transpose()?;
    let mut found = Found::default();
    let count = attested.statements.len();
    for (i, s) in attested.statements.iter().enumerate() {
        let which = match count {
            1 => String::new(),
            n => format!("statement {} of {n}: ", i + 1),
        };
        let p = &s["predicate"];
        check_claims(s, expected, &which, &mut found);
        let review_file = match &review {
            Some(r) => Some((review_subject(p).ok_or_else(|| no_review(&loc.shown))?, r)),
            None => None,
        };
        check_subjects(s, ws, review_file, &mut found);
        found.unverified.extend(recorded_commit(p, ws));
        found.caveats.push(Caveat::notice(signature_command(
            p,
            expected,
            review.as_ref().map(|r| r.shown.as_str()),
            attested.from_bundle.then_some(loc.shown.as_str()),
        )));
    }
    if expected.repo.is_none() {
        found.unverified.push(Unverified::new(
            "the statement's repository",
            "no repository was given to hold the statement to, so the one it names was not compared; give `--repo OWNER/REPO` (input `repo`), the repository whose receipt workflow signs",
        ));
    }
    let receipt = match &attested.statements[0]["predicate"]["receipt"] {
        Value::Object(m) => m.clone(),
        _ => Map::new(),
    };
    let mut outcome = Outcome::empty(Mode::Verify, loc.shown, receipt);
    outcome.verification = Some(found.verification);
    outcome.unverified = found.unverified;
    outcome.caveats = found.caveats;
    outcome.statement = true;
    if !found.fails.is_empty() {
        outcome.decision = Some(Decision {
            conclusion: Conclusion::Failure,
            fails: found.fails,
            passes_over: Vec::new(),
            fail_on: FailOn::Invalid,
            min_severity: crate::review::findings::Severity::High,
        });
    }
    Ok(outcome)
}

/// The statement or bundle file, read bounded.
fn read_statement(loc: &Location) -> Result<Vec<u8>, Error> {
    let roots = [loc.path.as_path()];
    crate::workspace::read_contained(&loc.path, &roots, limits::STATEMENT_BYTES).map_err(|why| match why {
        Unread::TooLarge(_) => Error::in_file(
            &loc.shown,
            format!(
                "statement `{}` holds more than {} MiB; give the statement or the bundles of one run",
                loc.shown,
                limits::STATEMENT_BYTES >> 20
            ),
        ),
        why => Error::in_file(&loc.shown, why.why(&loc.shown)),
    })
}

fn no_review(shown: &str) -> Error {
    Error::in_file(
        shown,
        format!(
            "statement `{shown}`: `predicate.output.subject` names no review subject (the agent wrote no review, or the statement predates it), so `review` has nothing to be checked against; leave `--review` out"
        ),
    )
}

/// What the statement says of itself: its verdict, its subjects' count, and
/// who made it, each held to what is expected. A failure is one of `fails`;
/// a signer that is not the expected one is also a warning naming both.
fn check_claims(s: &Value, expected: &ExpectedSigner, which: &str, found: &mut Found) {
    let p = &s["predicate"];
    if let Some(why) = verdict_problem(p) {
        found.fails.push(format!("{which}{why}"));
    }
    if s["subject"].as_array().is_none_or(Vec::is_empty) {
        found.fails.push(format!(
            "{which}The statement names no subject: it vouches for no file, so nothing of it can be checked"
        ));
    }
    for m in signer_problems(p, expected) {
        found.fails.push(format!("{which}{}", m.short));
        found
            .caveats
            .push(Caveat::warning(format!("{which}{}", m.long)));
    }
}

/// A value the statement gives, for a message: one line, clipped, and with
/// no backtick to end the code span our sentence puts it in.
fn shown(value: &str) -> String {
    crate::escape::one_line(&crate::markdown::clip(value, SHOWN_CHARS)).replace('`', "'")
}

/// Why the receipt the statement records is not a pass, in the words the
/// predicate carries, or `None` when its verdict is `success`.
fn verdict_problem(p: &Value) -> Option<String> {
    let said = p
        .pointer("/verdict/title")
        .and_then(Value::as_str)
        .map(|t| shown(t).replace('"', "'"))
        .filter(|t| !t.trim().is_empty())
        .unwrap_or_else(|| why_from_fields(&p["verdict"]));
    match p.pointer("/verdict/conclusion").and_then(Value::as_str) {
        Some("success") if p.pointer("/verdict/verified") == Some(&Value::Bool(true)) => None,
        Some("success") => Some(
            "The statement's verdict says `success` but not `verified: true`: the receipt it records was not verified".into(),
        ),
        Some("failure") => Some(format!(
            "The receipt this statement records failed; its verdict said: \"{said}\""
        )),
        Some("neutral") => Some(format!(
            "The receipt this statement records was neutral, not success; its verdict said: \"{said}\""
        )),
        Some(other) => Some(format!(
            "The statement's verdict is `{}`, not success",
            shown(other)
        )),
        None => Some(
            "The statement records no verdict (`predicate.verdict.conclusion`): nothing in it says its receipt passed".into(),
        ),
    }
}

/// The verdict's reasons from its fields, for a statement without `title`.
fn why_from_fields(v: &Value) -> String {
    let mut why = Vec::new();
    if v["verified"] == Value::Bool(false) {
        why.push("a recorded identity did not match the files".to_string());
    }
    let missing: Vec<String> = v["not_verified"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(Value::as_str)
        .take(5)
        .map(shown)
        .collect();
    if !missing.is_empty() {
        why.push(format!("not verified, missing: {}", missing.join(", ")));
    }
    if v["valid"] == Value::Bool(false) {
        why.push("the review does not satisfy its schema".into());
    }
    if v["ok"] == Value::Bool(false) {
        why.push("the agent said ok: false".into());
    }
    if let Some(n) = v["findings"].as_u64().filter(|n| *n > 0) {
        why.push(format!("{n} findings"));
    }
    if why.is_empty() {
        return "the predicate does not say why".into();
    }
    why.join("; ")
}

/// Who made the statement, held to what is expected: each difference in a
/// few words (`short`) and with both values and the fix (`long`).
struct SignerProblem {
    short: String,
    long: String,
}

fn signer_problems(p: &Value, expected: &ExpectedSigner) -> Vec<SignerProblem> {
    let text = |ptr: &str| p.pointer(ptr).and_then(Value::as_str);
    let Some(made_by) = text("/workflow/ref") else {
        return vec![SignerProblem {
            short: "The statement names no workflow: no workflow signed it".into(),
            long: format!(
                "the statement names no workflow (`predicate.workflow.ref`): it was written outside GitHub Actions, so it is not one `{}` signed from `{}`; verify the statement the receipt workflow wrote, from its `receipt` artifact or `gh attestation download`",
                expected.workflow, expected.source_ref
            ),
        }];
    };
    let (caller, source_ref) = made_by.split_once('@').unwrap_or((made_by, ""));
    // A reusable workflow (receipt.yml) signs as itself, not as its caller.
    let signer = text("/workflow/signer_workflow").unwrap_or(caller);
    let mut out = Vec::new();
    if !same_workflow(signer, &expected.workflow) {
        out.push(SignerProblem {
            short: "The statement names another signer than expected".into(),
            long: format!(
                "the statement names `{}` as the workflow that signs it, not the expected `{}`: `gh attestation verify --signer-workflow {}` finds no signature of it. If your statements are signed by a workflow of your own, name that one with `--signer-workflow` (input `signer-workflow`)",
                shown(signer),
                expected.workflow,
                expected.workflow
            ),
        });
    }
    if source_ref != expected.source_ref {
        out.push(SignerProblem {
            short: "The statement was made from another ref than the default branch".into(),
            long: format!(
                "the statement was made by a workflow run from `{}`, not from `{}`: a run from a pull request's ref runs the pull request's own copy of its workflows. If the default branch is not `main`, give `--default-branch NAME` (input `default-branch`)",
                shown(source_ref),
                expected.source_ref
            ),
        });
    }
    if let Some(repo) = &expected.repo {
        let named = text("/workflow/repository").unwrap_or("");
        if !named.eq_ignore_ascii_case(repo) {
            out.push(SignerProblem {
                short: "The statement names another repository than expected".into(),
                long: format!(
                    "the statement names repository `{}`, not the expected `{repo}` (`--repo`): it is another repository's run",
                    shown(named)
                ),
            });
        }
    }
    out
}

/// The same workflow file: owner and repository as GitHub compares them
/// (case aside), the file's path exactly.
fn same_workflow(named: &str, expected: &str) -> bool {
    let split = |w: &str| -> (String, String) {
        match w.split_once("/.github/") {
            Some((repo, file)) => (repo.to_ascii_lowercase(), file.to_string()),
            None => (w.to_ascii_lowercase(), String::new()),
        }
    };
    split(named) == split(expected)
}

/// The review's subject: `output.subject` (a review downloaded under the
/// runner's temp folder is named by its path there), else, in a statement
/// written before that field, `output.path`.
fn review_subject(p: &Value) -> Option<&str> {
    match &p["output"]["subject"] {
        Value::String(s) => Some(s),
        Value::Null if p["output"].get("subject").is_some() => None,
        _ => p["output"]["path"].as_str(),
    }
}

/// The review's subject came from under the runner's temp folder: the
/// re-checker downloads it, the checkout does not hold it.
fn downloaded(p: &Value, name: &str) -> bool {
    review_subject(p) == Some(name) && p["output"]["path"].as_str() != Some(name)
}

/// Each subject hashed again in the checkout: a file that differs, or is
/// gone, is a mismatch naming it; one outside the checkout is not verified.
/// The review is hashed from `review` when given: (its subject's name, the file).
fn check_subjects(s: &Value, ws: &Workspace, review: Option<(&str, &Location)>, found: &mut Found) {
    let root = std::fs::canonicalize(ws.root()).unwrap_or_else(|_| ws.root().to_path_buf());
    let subjects = s["subject"]
        .as_array()
        .map(Vec::as_slice)
        .unwrap_or_default();
    if subjects.len() > limits::SUBJECTS {
        found.unverified.push(Unverified::new(
            "every subject",
            format!(
                "the statement names {} subjects; the first {} (as many as actions/attest signs) were checked, the rest were not",
                subjects.len(),
                limits::SUBJECTS
            ),
        ));
    }
    // A file named twice is hashed once.
    let mut hashed: std::collections::HashMap<std::path::PathBuf, Option<String>> =
        std::collections::HashMap::new();
    for subject in subjects.iter().take(limits::SUBJECTS) {
        let (Some(name), Some(recorded)) = (
            subject["name"].as_str(),
            subject["digest"]["sha256"].as_str(),
        ) else {
            continue;
        };
        let (shown, loc) = match review.filter(|(r, _)| *r == name) {
            Some((_, file)) => (file.shown.clone(), Ok(file.clone())),
            None => (name.to_string(), ws.resolve("statement", name)),
        };
        let loc = match loc {
            Ok(loc) => loc,
            Err(_) => {
                found.unverified.push(Unverified::new(
                    format!("subject `{}`", shown_name(name)),
                    "the statement names a file outside this checkout, which cannot be hashed here",
                ));
                continue;
            }
        };
        let now = match hashed.get(&loc.path) {
            Some(now) => now.clone(),
            None => {
                let roots = [root.as_path(), loc.path.as_path()];
                let root_of = if review.is_some_and(|(r, _)| r == name) {
                    &roots[1..]
                } else {
                    &roots[..1]
                };
                match crate::workspace::read_contained(&loc.path, root_of, limits::SUBJECT_BYTES) {
                    Ok(bytes) => Some(crate::digest::sha256_hex(&bytes)),
                    Err(Unread::Missing) if downloaded(&s["predicate"], name) => {
                        found.unverified.push(not_downloaded(name));
                        continue;
                    }
                    Err(Unread::Missing) => None,
                    Err(why) => {
                        found.unverified.push(Unverified::new(
                            format!("subject `{}`", shown_name(name)),
                            why.why(&shown_name(&shown)),
                        ));
                        continue;
                    }
                }
            }
        };
        hashed.insert(loc.path, now.clone());
        found.verification.checked.push(name.to_string());
        if now.as_deref() != Some(recorded) {
            found.verification.mismatches.push(Mismatch {
                field: "subject".into(),
                recorded: Value::String(recorded.into()),
                actual: now.map_or(Value::Null, Value::String),
                files: vec![shown],
            });
        }
    }
}

fn shown_name(name: &str) -> String {
    crate::escape::one_line(name).into_owned()
}

/// The review the agent job uploaded is not beside the checkout: where to
/// download it, or how to point at it.
fn not_downloaded(name: &str) -> Unverified {
    let folder = name.rsplit_once('/').map_or(".", |(dir, _)| dir);
    let quote =
        |s: &str| shlex::try_quote(s).map_or_else(|_| "'?'".to_string(), |q| q.into_owned());
    Unverified::new(
        format!("subject `{}`", shown_name(name)),
        format!(
            "`{}` is the review the agent job uploaded, which the receipt workflow downloaded under the runner's temp folder; it is not in this checkout. Download the agent run's artifact beside the checkout (`gh run download AGENT_RUN_ID -n agent-run -D {}`), or give `--review FILE` (input `review`) where you downloaded it",
            shown_name(name),
            crate::escape::one_line(&quote(folder))
        ),
    )
}

/// The files were compared with this checkout: it should be the commit the
/// run recorded.
fn recorded_commit(predicate: &Value, ws: &Workspace) -> Option<Unverified> {
    let recorded = predicate["git"]["commit"].as_str()?;
    let head = crate::git::start_head(ws.root()).and_then(|p| p.head());
    let why = match head {
        Ok(head) if head == recorded => return None,
        Ok(head) => format!(
            "HEAD is {head}, but the run recorded commit {}: the subjects were compared with this checkout, not the commit the agent reviewed; `git checkout {}` and verify again",
            shown(recorded),
            shown(recorded)
        ),
        Err(e) => format!(
            "the checkout's commit could not be read ({}); the run recorded commit {}",
            e.message(),
            shown(recorded)
        ),
    };
    Some(Unverified::new("the recorded commit", why))
}

/// What checks the signature, with what is expected, never the statement's
/// own values: the repository given (`--repo`), the signer workflow and the
/// default branch's ref. Only the file checked is the statement's (its
/// review subject, or the review given), quoted for a shell.
fn signature_command(
    predicate: &Value,
    expected: &ExpectedSigner,
    review: Option<&str>,
    bundle: Option<&str>,
) -> String {
    let quote =
        |s: &str| shlex::try_quote(s).map_or_else(|_| "'?'".to_string(), |q| q.into_owned());
    let file = review
        .or_else(|| review_subject(predicate))
        .unwrap_or("review.json");
    let repo = expected.repo.as_deref().unwrap_or("OWNER/REPO");
    let mut cmd = format!(
        "gh attestation verify {} -R {} --predicate-type {PREDICATE_TYPE} --signer-workflow {} --source-ref {}",
        quote(file),
        quote(repo),
        quote(&expected.workflow),
        quote(&expected.source_ref)
    );
    if let Some(b) = bundle {
        cmd.push_str(&format!(" --bundle {}", quote(b)));
    }
    format!(
        "This checks the files, not the signature: the signature is checked by `gh attestation verify`, with the signer expected (not the statement's own values): `{}`",
        crate::escape::one_line(&cmd)
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn expected(repo: Option<&str>) -> ExpectedSigner {
        ExpectedSigner {
            repo: repo.map(String::from),
            source_ref: "refs/heads/main".into(),
            workflow: crate::receipt::attest::RECEIPT_WORKFLOW.into(),
        }
    }

    /// The binding layout's statement: receipt.yml signs, called from the
    /// default branch of `o/r`.
    fn binding() -> Value {
        json!({"output": {"path": "/home/runner/work/_temp/agent-run/review.json", "subject": "agent-run/review.json"},
               "verdict": {"conclusion": "success", "verified": true, "title": "Receipt verified"},
               "workflow": {"repository": "o/r", "ref": "o/r/.github/workflows/agent-receipt.yml@refs/heads/main",
                            "signer_workflow": "prompt-receipt/prompt-receipt/.github/workflows/receipt.yml"}})
    }

    #[test]
    fn the_signature_command_carries_what_is_expected_not_the_statements_values() {
        let said = signature_command(
            &binding(),
            &expected(Some("o/r")),
            None,
            Some("sha256:ab.jsonl"),
        );
        assert!(said.contains(
            "`gh attestation verify agent-run/review.json -R o/r --predicate-type https://prompt-receipt.dev/agent-run/v1 \
             --signer-workflow prompt-receipt/prompt-receipt/.github/workflows/receipt.yml --source-ref refs/heads/main --bundle sha256:ab.jsonl`"
        ), "{said}");
        // A statement that names a sneaky signer, ref and repository gets
        // none of them into the command.
        let sneaky = json!({"output": {"path": "review.json", "subject": "review.json"},
                            "workflow": {"repository": "evil/fork", "ref": "evil/fork/.github/workflows/sneaky.yml@refs/pull/7/merge",
                                         "signer_workflow": "evil/fork/.github/workflows/sneaky.yml"}});
        let mut other = expected(None);
        other.source_ref = "refs/heads/trunk".into();
        let said = signature_command(&sneaky, &other, Some("dl/review.json"), None);
        assert!(said.contains(
            "`gh attestation verify dl/review.json -R OWNER/REPO --predicate-type https://prompt-receipt.dev/agent-run/v1 \
             --signer-workflow prompt-receipt/prompt-receipt/.github/workflows/receipt.yml --source-ref refs/heads/trunk`"
        ), "{said}");
        for theirs in ["sneaky", "refs/pull", "evil"] {
            assert!(!said.contains(theirs), "{said}");
        }
        let hostile = json!({"output": {"path": "a; rm -rf ~", "subject": "a; rm -rf ~"}});
        assert!(
            signature_command(&hostile, &expected(None), None, None)
                .contains("verify 'a; rm -rf ~' -R")
        );
    }

    #[test]
    fn only_a_success_verdict_that_was_verified_passes() {
        assert_eq!(verdict_problem(&binding()), None);
        let with = |verdict: Value| verdict_problem(&json!({"verdict": verdict})).unwrap();
        let failed = with(json!({"conclusion": "failure", "verified": false,
                                 "title": "Prompt file `p.md` changed after it was recorded"}));
        assert_eq!(
            failed,
            "The receipt this statement records failed; its verdict said: \"Prompt file 'p.md' changed after it was recorded\""
        );
        // Without a title (a statement written before it), from the fields.
        let neutral = with(json!({"conclusion": "neutral", "verified": true,
                                  "not_verified": ["the base commit", "x\u{1b}[2J"], "ok": false}));
        assert_eq!(
            neutral,
            "The receipt this statement records was neutral, not success; its verdict said: \"not verified, missing: the base commit, x\\u{1b}[2J; the agent said ok: false\""
        );
        assert!(with(json!({})).contains("records no verdict (`predicate.verdict.conclusion`)"));
        assert!(with(json!({"conclusion": "success"})).contains("not `verified: true`"));
        assert!(
            with(json!({"conclusion": "skipped`\n::error::x"}))
                .starts_with("The statement's verdict is `skipped'\\n::error::x`")
        );
    }

    #[test]
    fn another_signer_ref_or_repository_is_named_with_both_values() {
        assert!(signer_problems(&binding(), &expected(Some("O/R"))).is_empty());
        // Signed by the caller itself when the statement names no other signer.
        let mut own = binding();
        own["workflow"]["signer_workflow"] = Value::Null;
        let mut mine = expected(Some("o/r"));
        mine.workflow = "o/r/.github/workflows/agent-receipt.yml".into();
        assert!(signer_problems(&own, &mine).is_empty());
        let sneaky = json!({"workflow": {"repository": "evil/fork", "ref": "o/r/.github/workflows/sneaky.yml@refs/pull/7/merge"}});
        let found = signer_problems(&sneaky, &expected(Some("o/r")));
        let long: Vec<&str> = found.iter().map(|m| m.long.as_str()).collect();
        assert_eq!(found.len(), 3, "{long:?}");
        assert!(long[0].starts_with("the statement names `o/r/.github/workflows/sneaky.yml` as the workflow that signs it, not the expected `prompt-receipt/prompt-receipt/.github/workflows/receipt.yml`"), "{}", long[0]);
        assert!(long[1].starts_with("the statement was made by a workflow run from `refs/pull/7/merge`, not from `refs/heads/main`"), "{}", long[1]);
        assert!(
            long[2]
                .starts_with("the statement names repository `evil/fork`, not the expected `o/r`"),
            "{}",
            long[2]
        );
        // Without an expected repository, the repository is not compared here.
        assert_eq!(signer_problems(&sneaky, &expected(None)).len(), 2);
        let hostile =
            json!({"workflow": {"repository": "o/r", "ref": "a`b\n::error::c@refs/heads/main"}});
        let said = &signer_problems(&hostile, &expected(Some("o/r")))[0].long;
        assert!(said.contains("`a'b\\n::error::c`"), "{said}");
        let local = signer_problems(&json!({"workflow": null}), &expected(Some("o/r")));
        assert_eq!(
            local[0].short,
            "The statement names no workflow: no workflow signed it"
        );
    }

    #[test]
    fn the_review_subject_and_where_it_came_from() {
        let p = binding();
        assert_eq!(review_subject(&p), Some("agent-run/review.json"));
        assert!(downloaded(&p, "agent-run/review.json"));
        let inside = json!({"output": {"path": "artifacts/review.json", "subject": "artifacts/review.json"}});
        assert!(!downloaded(&inside, "artifacts/review.json"));
        // No review: no subject; a statement from before `subject`: its path.
        assert_eq!(
            review_subject(&json!({"output": {"path": "r.json", "subject": null}})),
            None
        );
        assert_eq!(
            review_subject(&json!({"output": {"path": "r.json"}})),
            Some("r.json")
        );
        let said = not_downloaded("agent-run/review.json").why;
        assert!(
            said.contains("gh run download AGENT_RUN_ID -n agent-run -D agent-run`"),
            "{said}"
        );
    }
}
