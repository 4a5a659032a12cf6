//! One invocation, by mode: record, verify, or run (verify what was recorded
//! before the agent ran, record this run, verify the record).

use serde_json::{Map, Value};

use std::path::Path;
use std::sync::mpsc::{Receiver, Sender};

use crate::annotation::Level;
use crate::attest;
use crate::compare::{self, Comparison};
use crate::error::Error;
use crate::findings;
use crate::gate::{self, Conclusion, Decision};
use crate::identities::{self, Caveat};
use crate::inputs::{DEFAULT_SCHEMA_FILE, Inputs, Mode, SchemaSource};
use crate::lint::{self, Lint};
use crate::receipt::{OWNED_KEYS, Receipt, ValidationRecord, VerificationRecord};
use crate::review::{self, Review};
use crate::schema;
use crate::sent::{self, AgentCheck, Expected};
use crate::usage_file;
use crate::verify::{self, Scope, Verification};
use crate::workspace::Workspace;

/// Everything the reports need to tell the story of one invocation.
#[derive(Clone, Debug)]
pub struct RunResult {
    pub mode: Mode,
    /// The usage file, relative to the workspace.
    pub usage_file: String,
    /// The receipt as written (`record`, `run`) or as read (`verify`).
    pub receipt: Map<String, Value>,
    pub verification: Option<Verification>,
    /// The agent's output checked against the schema (`run` only).
    pub review: Option<Review>,
    /// What the gate made of the review (`run` only).
    pub decision: Option<Decision>,
    pub caveats: Vec<Caveat>,
    /// What reached the agent, from Codex's record (`run` with codex-home).
    pub agent: Option<AgentCheck>,
    /// Filled in by the check-run report.
    pub check_run: Option<crate::report::CheckRunOutcome>,
    /// (`compare`) Base against head.
    pub comparison: Option<Comparison>,
    /// What the workflow lint found (`lint`; `run` as warnings).
    pub lints: Vec<Lint>,
}

impl RunResult {
    fn empty(mode: Mode, usage_file: String, receipt: Map<String, Value>) -> RunResult {
        RunResult {
            mode,
            usage_file,
            receipt,
            verification: None,
            review: None,
            decision: None,
            caveats: Vec::new(),
            agent: None,
            check_run: None,
            comparison: None,
            lints: Vec::new(),
        }
    }

    fn with_lints(mut self, lints: Vec<Lint>) -> RunResult {
        self.lints = lints;
        self
    }

    /// Every check passed: the exit code is 0.
    pub fn passed(&self) -> bool {
        self.conclusion() != Conclusion::Failure
    }

    /// A failed verification fails whatever `fail-on` says: it is about the
    /// receipt's integrity, not the review's content.
    pub fn conclusion(&self) -> Conclusion {
        if self.verification.as_ref().is_some_and(|v| !v.passed()) {
            return Conclusion::Failure;
        }
        // What reached the agent is integrity too: `fail-on` does not silence it.
        if self.agent.as_ref().is_some_and(|a| !a.problems.is_empty()) {
            return Conclusion::Failure;
        }
        if self.comparison.as_ref().is_some_and(|c| !c.controlled) {
            return Conclusion::Failure;
        }
        if self.mode == Mode::Lint && self.lints.iter().any(|l| l.level == Level::Failure) {
            return Conclusion::Failure;
        }
        self.decision
            .as_ref()
            .map_or(Conclusion::Success, |d| d.conclusion)
    }

    /// A receipt field as text, empty when absent or null.
    pub fn field(&self, key: &str) -> String {
        match self.receipt.get(key) {
            Some(Value::String(s)) => s.clone(),
            Some(Value::Null) | None => String::new(),
            Some(other) => other.to_string(),
        }
    }
}

pub fn execute(
    inputs: &Inputs,
    ws: &Workspace,
    codex_home: Option<&Path>,
) -> Result<RunResult, Error> {
    if inputs.mode == Mode::Validate {
        return validate(inputs, ws);
    }
    let usage = ws.resolve("usage-file", &inputs.usage_file)?;
    let existing = usage_file::load(&usage)?;

    if inputs.mode == Mode::Lint {
        return Ok(RunResult::empty(inputs.mode, String::new(), Map::new())
            .with_lints(lint::lint_workflows(ws)));
    }
    if inputs.mode == Mode::Compare {
        return compare_runs(inputs, ws, usage.shown, existing);
    }
    if inputs.mode == Mode::Verify {
        let recorded = existing.ok_or_else(|| {
            Error::in_file(
                &usage.shown,
                format!(
                    "usage file `{}` does not exist; run this action with mode `record` or `run` \
                     first, or set usage-file to the receipt to verify",
                    usage.shown
                ),
            )
        })?;
        let verification =
            verify::verify(&recorded, &usage.shown, inputs, ws, Scope::All, codex_home)?;
        let mut result = RunResult::empty(inputs.mode, usage.shown, recorded);
        result.verification = Some(verification);
        return Ok(result);
    }

    // A receipt recorded before the agent ran is checked before it is replaced.
    let before = match (&existing, inputs.mode) {
        (Some(recorded), Mode::Run) if verify::has_identities(recorded) => Some(verify::verify(
            recorded,
            &usage.shown,
            inputs,
            ws,
            Scope::BeforeAgent,
            codex_home,
        )?),
        _ => None,
    };

    let clock = crate::logging::Stopwatch::start("run");
    // Two lines of work that read different things, so on two cores a run
    // takes about as long as its review. The review (read, parse, validate,
    // locate) keeps the main thread, its allocator arena and its stack; beside
    // it: the identities, the schema (handed over as soon as it compiles), and
    // the identities computed a second time for the verification.
    let (side, review) = match inputs.mode {
        Mode::Run => side_by_side(
            "identities",
            |schema| beside_review(inputs, ws, codex_home, &usage.shown, Some(schema)),
            |schema| Some(review_output(inputs, ws, schema)),
        ),
        // `record` has no review to overlap with.
        _ => (
            beside_review(inputs, ws, codex_home, &usage.shown, None),
            None,
        ),
    };
    let Beside {
        collected,
        recomputed,
    } = side?;
    let review = review.transpose()?;
    clock.lap("identities and review done");
    let mut receipt = collected.receipt;
    let mut checked = None;
    let mut agent = None;
    let mut caveats = collected.caveats;
    if let Some(review) = review {
        receipt.validation = Some(ValidationRecord {
            valid: review.valid(),
            verdict: review.verdict.as_str().to_string(),
            draft: review.draft.to_string(),
            errors: review.violations_total,
        });
        receipt.findings_count = Some(review.findings.list.len());
        receipt.ok = review.findings.ok;
        receipt.findings_by_severity = Some(review.findings.by_severity());
        let decision = gate::decide(&review, inputs.fail_on, inputs.min_severity);
        checked = Some((review, decision));
        // The bytes the gate read: the agent check compares the same ones.
        let output = checked
            .as_ref()
            .and_then(|(r, _): &(Review, _)| r.bytes.as_deref());
        agent = match codex_home {
            Some(home) => {
                let check =
                    check_agent(inputs, ws, home, &receipt, &collected.prompt_bytes, output)?;
                receipt.prompt_sent_sha = check.prompt_sent_sha.clone();
                receipt.transcript = check.transcript.clone();
                receipt.tokens = check.session.tokens.clone();
                receipt.session = check.transcript.as_ref().map(|_| check.session_record());
                Some(check)
            }
            None => {
                caveats.push(Caveat::notice(
                    "no codex-home: the receipt cannot vouch for what reached the agent (the prompt and \
                     AGENTS.md as sent, the CLI version, the tokens); give this step the same codex-home as \
                     openai/codex-action",
                ));
                None
            }
        };
        receipt.verification = Some(VerificationRecord {
            verified: before.as_ref().is_none_or(Verification::passed),
            mismatches: before
                .as_ref()
                .map(|v| v.mismatches.clone())
                .unwrap_or_default(),
        });
    }
    let merged = usage_file::merge(existing, OWNED_KEYS, receipt.to_map());
    usage_file::write(&usage, &merged)?;
    let statement = ws.resolve("usage-file", &attest::path_for(&inputs.usage_file))?;
    usage_file::write_derived(
        &statement,
        crate::pyjson::to_string(&attest::statement(&merged)).as_bytes(),
    )?;
    clock.lap("write done");

    let verification = match recomputed {
        Some(after) => {
            let mut after = after?;
            // Read back what was written: the receipt on disk is what gets
            // uploaded, and it must say what was recomputed above.
            let written = usage_file::load(&usage)?.unwrap_or_default();
            after
                .mismatches
                .extend(verify::read_back(&merged, &written));
            clock.lap("verification done");
            let mut all = before.unwrap_or_default();
            all.checked.extend(after.checked);
            all.mismatches.extend(after.mismatches);
            all.skipped.extend(after.skipped);
            Some(all)
        }
        None => None,
    };

    let (review, decision) = checked.unzip();
    // In `run`, lint findings are advice: warnings at most.
    let lints = if inputs.mode == Mode::Run && inputs.lint_workflows {
        lint::lint_workflows(ws)
            .into_iter()
            .map(|mut l| {
                l.level = l.level.min(Level::Warning);
                l
            })
            .collect()
    } else {
        Vec::new()
    };
    Ok(RunResult {
        mode: inputs.mode,
        usage_file: usage.shown,
        receipt: merged,
        verification,
        review,
        decision,
        caveats,
        agent,
        check_run: None,
        comparison: None,
        lints,
    })
}

/// Reads Codex's record of this run and checks it against the checkout.
fn check_agent(
    inputs: &Inputs,
    ws: &Workspace,
    home: &Path,
    receipt: &Receipt,
    prompt: &[u8],
    output: Option<&[u8]>,
) -> Result<AgentCheck, Error> {
    let workdir = identities::working_directory(inputs, ws)?;
    let relative = ws.relative(&workdir);
    let (session, note) = match sent::load(home, inputs.session_id.as_deref(), &workdir, &relative)
    {
        Ok(found) => found,
        Err(why) => {
            return Ok(AgentCheck {
                problems: vec![format!(
                    "{why}; give this step the same codex-home as openai/codex-action, and do not run Codex with --ephemeral"
                )],
                ..AgentCheck::default()
            });
        }
    };
    let shown = if session.path.starts_with(ws.root()) {
        ws.relative(&session.path)
    } else {
        session
            .path
            .strip_prefix(home)
            .map(|p| format!("$CODEX_HOME/{}", p.display()))
            .unwrap_or_else(|_| session.path.display().to_string())
    };
    let agents_sha = receipt.agents_sha.clone().flatten();
    let expected = Expected {
        prompt_path: receipt.prompt_path.as_deref(),
        prompt_bytes: prompt,
        agents_sha: agents_sha.as_deref(),
        codex_version: inputs.codex_version.as_deref(),
        model: inputs.model.as_deref(),
        output_path: &receipt.output_path,
        output,
        max_total_tokens: inputs.max_total_tokens,
    };
    let mut check = sent::check(session, shown, &expected);
    check.notes.extend(note);
    Ok(check)
}

/// What is done beside the review.
struct Beside {
    collected: identities::Collected,
    /// `run`: every identity computed again from the files, checked against
    /// the receipt about to be written (an error is reported after the write).
    recomputed: Option<Result<Verification, Error>>,
}

fn beside_review(
    inputs: &Inputs,
    ws: &Workspace,
    codex_home: Option<&Path>,
    usage_shown: &str,
    schema: Option<Sender<Result<schema::Schema, Error>>>,
) -> Result<Beside, Error> {
    let collected = identities::collect(inputs, ws, codex_home)?;
    let Some(schema) = schema else {
        return Ok(Beside {
            collected,
            recomputed: None,
        });
    };
    // The review waits for this; a send fails only if the review gave up.
    let _ = schema.send(compile_schema(inputs, ws));
    drop(schema);
    let recorded = collected.receipt.to_map();
    let recomputed = verify::verify(&recorded, usage_shown, inputs, ws, Scope::All, codex_home);
    Ok(Beside {
        collected,
        recomputed: Some(recomputed),
    })
}

/// Runs `beside` on a thread named `name` while `here` runs on this one, the
/// first handing the second what it makes through a channel (the schema,
/// once compiled). Both capture only references, so without a thread to be
/// had `beside` still runs, first. `here` keeps the main thread, its
/// allocator arena and its stack: it does the heavy reading.
fn side_by_side<S: Send, A: Send, B>(
    name: &str,
    beside: impl FnOnce(Sender<S>) -> A + Copy + Send,
    here: impl FnOnce(&Receiver<S>) -> B,
) -> (A, B) {
    std::thread::scope(|scope| {
        let (tx, rx) = std::sync::mpsc::channel();
        let thread = {
            let tx = tx.clone();
            std::thread::Builder::new()
                .name(name.into())
                .spawn_scoped(scope, move || beside(tx))
        };
        match thread {
            Ok(thread) => {
                // The receiver hears the channel close if `beside` stops early.
                drop(tx);
                let b = here(&rx);
                let a = thread
                    .join()
                    .unwrap_or_else(|panic| std::panic::resume_unwind(panic));
                (a, b)
            }
            Err(_) => (beside(tx), here(&rx)),
        }
    })
}

/// `validate`: the schema gate alone. The schema compiles while the output is
/// read and parsed.
fn validate(inputs: &Inputs, ws: &Workspace) -> Result<RunResult, Error> {
    let ((), review) = side_by_side(
        "schema",
        |schema| {
            let _ = schema.send(compile_schema(inputs, ws));
        },
        |schema| review_output(inputs, ws, schema),
    );
    let review = review?;
    let mut result = RunResult::empty(Mode::Validate, String::new(), Map::new());
    result.decision = Some(gate::decide(&review, inputs.fail_on, inputs.min_severity));
    result.review = Some(review);
    Ok(result)
}

/// Reads the agent's output and checks it with the schema compiled beside it.
/// A broken schema is a configuration error, before anything is written.
fn review_output(
    inputs: &Inputs,
    ws: &Workspace,
    schema_rx: &Receiver<Result<schema::Schema, Error>>,
) -> Result<Review, Error> {
    let output = ws
        .resolve("output-file", &inputs.output_file)
        .and_then(|loc| review::read(&loc));
    let Ok(compiled) = schema_rx.recv() else {
        // The identities failed first; that error is the one reported.
        return Err(Error::new("the identities could not be collected"));
    };
    // In the order they were always reported: the schema, then the output.
    let compiled = compiled?;
    Ok(review::judge(output?, &compiled, &inputs.findings_pointer))
}

fn compile_schema(inputs: &Inputs, ws: &Workspace) -> Result<schema::Schema, Error> {
    let given = match &inputs.schema {
        SchemaSource::Inline(text) => {
            return schema::compile(
                text.as_bytes(),
                "input `output-schema`",
                ws.root(),
                ws.root(),
            );
        }
        SchemaSource::File(given) => given.as_str(),
        SchemaSource::Default => DEFAULT_SCHEMA_FILE,
    };
    let loc = ws.resolve("output-schema-file", given)?;
    let bytes = crate::workspace::read_required("output-schema-file", &loc)?;
    schema::compile(&bytes, &loc.shown, &loc.path, ws.root())
}

/// `compare`: this run's receipt (`usage-file`) against the base run's.
fn compare_runs(
    inputs: &Inputs,
    ws: &Workspace,
    usage_shown: String,
    head: Option<Map<String, Value>>,
) -> Result<RunResult, Error> {
    let base_given = inputs.base_usage_file.as_deref().ok_or_else(|| {
        Error::new("mode `compare` needs `base-usage-file`: the receipt of the run to compare with (download it as an artifact)")
    })?;
    let base_loc = ws.resolve("base-usage-file", base_given)?;
    let base = usage_file::load(&base_loc)?
        .ok_or_else(|| crate::workspace::missing("base-usage-file", &base_loc))?;
    let head = head.ok_or_else(|| {
        Error::new(format!("mode `compare` needs this run's receipt at usage-file `{usage_shown}`; record it first (mode `run` or `record`)"))
    })?;
    let read = |input: &str, given: &str| -> Result<Vec<findings::Finding>, Error> {
        let loc = ws.resolve(input, given)?;
        let Ok(bytes) = std::fs::read(&loc.path) else {
            return Ok(Vec::new());
        };
        Ok(serde_json::from_slice::<Value>(&bytes)
            .map(|mut v| findings::take(&mut v, &inputs.findings_pointer).list)
            .unwrap_or_default())
    };
    let base_findings = match &inputs.base_output_file {
        Some(p) => read("base-output-file", p)?,
        None => Vec::new(),
    };
    let head_findings = read("output-file", &inputs.output_file)?;
    let comparison = compare::compare(
        &base,
        &head,
        &inputs.allow_changed,
        &base_findings,
        &head_findings,
    );
    let mut result = RunResult::empty(Mode::Compare, usage_shown, head);
    result.comparison = Some(comparison);
    Ok(result)
}
