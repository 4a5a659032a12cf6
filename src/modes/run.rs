//! `run`, after the agent step: verify a receipt recorded before the agent
//! ran, record this run's identities beside the review, check what reached the
//! agent, write the receipt, and verify what was written.

use std::path::Path;

use serde_json::{Map, Value};
use std::sync::mpsc::Sender;

use super::{Covered, compare_with_base, named, side_by_side};
use crate::agent::{AgentCheck, Setup};
use crate::error::Error;
use crate::event::Origin;
use crate::inputs::{Inputs, Mode};
use crate::level::{Caveat, Level};
use crate::lint::{self, Lint};
use crate::outcome::Outcome;
use crate::receipt::identities::{self, Collected};
use crate::receipt::verify::{self, Scope, Verification};
use crate::receipt::{Receipt, ValidationRecord, VerificationRecord, usage_file};
use crate::review::judge::Judge;
use crate::review::{self, Review, schema};
use crate::sources::Sources;
use crate::workspace::{Location, Workspace};

pub(crate) fn run(
    inputs: &Inputs,
    ws: &Workspace,
    home: Option<&Path>,
    origin: &Origin,
) -> Result<Outcome, Error> {
    // Pinned first: every file read after this, and the checkout's identity,
    // are what the agent was given.
    let pinned = super::restore::pin_for_receipt(inputs, ws, home, origin)?;
    let lints = start_beside(inputs, ws);
    let clock = crate::logging::Stopwatch::start("run");
    let usage = inputs.usage_location(ws)?;
    let existing = usage_file::load(&usage)?;
    let covered = Covered::read(inputs, ws, home, Some(origin))?;
    let policy = inputs.gate_policy();
    let instructions = compare_pinned(inputs, ws, &covered, origin, pinned.as_ref());
    let unseen: Vec<_> = covered.unseen().collect();
    let (sources, agent, reach) = (covered.sources, covered.agent, covered.reach);
    let gate = Judge::choose(
        inputs.gate_schema,
        &sources.schema,
        ws,
        instructions.as_ref(),
    );
    let missing_before = missing_before(existing.as_ref(), origin, ws, &usage.shown);
    let before = verify_before(existing.as_ref(), &usage.shown, &sources, &agent, ws)?;
    let (beside, review) =
        identities_and_review(&sources, &agent, ws, &usage.shown, &gate, &policy)?;
    let (collected, recomputed) = (beside.collected, beside.recomputed);
    clock.lap("identities and review done");

    let (mut receipt, mut caveats) = (collected.receipt, collected.caveats);
    let prompt_bytes = collected.prompt_bytes;
    record_review(&mut receipt, &review);
    caveats.extend(review.caveats().into_iter().chain(gate.caveat.clone()));
    receipt.gate_schema = gate.record.clone();
    receipt.base = instructions.as_ref().map(|c| crate::base::BaseRecord {
        pinned: pinned.clone(),
        ..c.record()
    });
    let decision = policy.decide(&review);
    let hooks_unread = record_runtime(&mut receipt, &agent, &reach, &sources, ws);
    let check = check_record(
        inputs.session_options(home).as_ref(),
        &agent,
        (&sources, ws),
        &mut receipt,
        (&prompt_bytes, review.bytes.as_deref()),
        instructions.as_ref(),
    )
    .map_err(|without| caveats.push(without))
    .ok();
    receipt.verification = Some(VerificationRecord::of(before.as_ref()));
    let written =
        usage_file::write_receipt(&usage, existing, &receipt, usage_file::Foreign::Claimed)?;
    let attestation = attestation_files(ws, &usage)?;
    clock.lap("write done");
    let verification = verify_written(before, recomputed?, &usage, &written)?;
    clock.lap("verification done");

    let mut outcome = Outcome::empty(Mode::Run, usage.shown, written);
    (outcome.verification, outcome.review) = (Some(verification), Some(review));
    (outcome.decision, outcome.caveats) = (Some(decision), caveats);
    outcome.unverified.extend(missing_before);
    outcome.unverified.extend(unseen);
    outcome.unverified.extend(hooks_unread);
    let hooks = super::hooks_configured(&outcome.receipt, &reach);
    outcome.unverified.extend(unproven_pin(
        pinned.as_ref(),
        instructions.as_ref(),
        &check,
        &agent,
    ));
    outcome.take_agent(check, hooks);
    outcome.instructions = instructions;
    outcome.pinned = pinned;
    outcome.attestation = Some(attestation);
    outcome.lints = lints.map(advice).unwrap_or_default();
    Ok(outcome)
}

/// The comparison with the base; pinned, the pull request's changes to what
/// was put back are set aside as not used.
fn compare_pinned(
    inputs: &Inputs,
    ws: &Workspace,
    covered: &Covered,
    origin: &Origin,
    pinned: Option<&crate::base::Pinned>,
) -> Option<crate::base::Check> {
    let mut instructions = compare_with_base(inputs, ws, &named(&covered.sources), covered, origin);
    if let (Some(c), Some(p)) = (instructions.as_mut(), pinned) {
        c.set_aside(&p.pathspecs);
    }
    instructions
}

/// Pinned, the pull request's changes are *not used* only on the record's
/// word: without the record, nothing shows the agent ran with the base's
/// configuration rather than the pull request's.
fn unproven_pin(
    pinned: Option<&crate::base::Pinned>,
    instructions: Option<&crate::base::Check>,
    check: &Option<AgentCheck>,
    agent: &Setup,
) -> Option<crate::outcome::Unverified> {
    let changed = instructions.is_some_and(|c| !c.not_used.is_empty());
    (pinned.is_some() && changed && check.is_none()).then(|| {
        crate::outcome::Unverified::new(
            "that the agent ran with the base's configuration",
            format!(
                "the pull request changes the agent's configuration and `configuration` is `base`, but {}'s record was not read (no `agent-home`), so nothing shows the agent ran with the base's files rather than the pull request's",
                agent.kind.name()
            ),
        )
    })
}

/// What starts with the run, on threads of its own, while it reads its files:
/// the checkout's identity (`git describe`, the longest wait of a run), and
/// the workflow lint when it is on.
fn start_beside(
    inputs: &Inputs,
    ws: &Workspace,
) -> Option<std::thread::JoinHandle<Vec<lint::Lint>>> {
    if let Ok(workdir) = inputs.working_directory(ws) {
        crate::git::prepare(&workdir);
    }
    inputs.lint_workflows.then(|| {
        let ws = ws.clone();
        std::thread::spawn(move || lint::lint_workflows(&ws))
    })
}

/// Reads and checks the agent's record when its home was given, and keeps in
/// the receipt what it showed; without it, what the receipt cannot vouch for.
fn check_record(
    session: Option<&crate::agent::SessionOptions>,
    agent: &crate::agent::Setup,
    (sources, ws): (&Sources, &Workspace),
    receipt: &mut Receipt,
    (prompt, output): (&[u8], Option<&[u8]>),
    instructions: Option<&crate::base::Check>,
) -> Result<AgentCheck, Caveat> {
    let Some(opts) = session else {
        return Err(Caveat::notice(agent.kind.without_home()).quiet());
    };
    let check = super::check_agent(
        (agent, opts),
        sources,
        ws,
        receipt,
        prompt,
        output,
        instructions,
    );
    record_agent(receipt, &check);
    Ok(check)
}

/// Two lines of work that read different things, so on two cores a run takes
/// about as long as its review. The review (read, parse, validate, locate)
/// keeps the main thread, its allocator arena and its stack; beside it: the
/// identities, the schema (handed over as soon as it compiles), and the
/// identities computed a second time for the verification.
fn identities_and_review(
    sources: &Sources,
    agent: &crate::agent::Setup,
    ws: &Workspace,
    usage: &str,
    gate: &Judge,
    policy: &crate::review::gate::Policy,
) -> Result<(Beside, Review), Error> {
    let (side, review) = side_by_side(
        "identities",
        |schema| beside_review(sources, agent, ws, usage, gate, schema),
        |schema| review::read_and_judge(&sources.output, schema, &policy.findings_pointer),
    );
    let side = side?;
    let mut review = review?;
    review.place_findings(ws.root());
    Ok((side, review))
}

/// A receipt recorded before the agent ran is checked before it is replaced.
fn verify_before(
    existing: Option<&Map<String, Value>>,
    usage: &str,
    sources: &Sources,
    agent: &crate::agent::Setup,
    ws: &Workspace,
) -> Result<Option<Verification>, Error> {
    match existing {
        Some(recorded) if verify::has_identities(recorded) => Ok(Some(verify::verify(
            recorded,
            usage,
            sources,
            agent,
            ws,
            Scope::BeforeAgent,
        )?)),
        _ => Ok(None),
    }
}

/// The workflow records a receipt before the agent, and none arrived: the
/// check of what the agent could have changed did not run.
fn missing_before(
    existing: Option<&Map<String, Value>>,
    origin: &Origin,
    ws: &Workspace,
    usage: &str,
) -> Option<crate::outcome::Unverified> {
    if existing.is_some_and(verify::has_identities) {
        return None;
    }
    let file = origin.workflow_path.as_ref()?;
    lint::records_before_agent(ws, file).map(|line| {
        crate::outcome::Unverified::new(
            "the receipt recorded before the agent",
            format!(
                "`{file}` records a receipt before the agent runs (line {line}), but `{usage}` holds none: the agent job did not upload it, or something replaced it; nothing shows that the agent left its inputs as they were"
            ),
        )
    })
}

/// What the agent's runtime reaches, in the receipt: its hook configurations
/// and the files it runs or loads. Each configuration there but unreadable
/// is not verified.
fn record_runtime(
    receipt: &mut Receipt,
    agent: &crate::agent::Setup,
    reach: &crate::agent::reach::Reach,
    sources: &Sources,
    ws: &Workspace,
) -> Vec<crate::outcome::Unverified> {
    let (hooks, unread) = agent.hook_configs(&sources.workdir, ws);
    receipt.hooks = (!hooks.is_empty()).then_some(hooks);
    receipt.runtime = super::runtime_record(reach);
    unread
        .into_iter()
        .map(|why| {
            crate::outcome::Unverified::new(
                "a hook configuration",
                format!("{why}: the hooks it may hold can add text to the agent's input, and the receipt cannot see them"),
            )
        })
        .collect()
}

/// Every verification of this run in one: the receipt recorded before the
/// agent, the identities computed a second time, and the receipt read back
/// from disk (what gets uploaded must say what was recomputed).
fn verify_written(
    before: Option<Verification>,
    mut after: Verification,
    usage: &Location,
    written: &Map<String, Value>,
) -> Result<Verification, Error> {
    let on_disk = usage_file::load(usage)?.unwrap_or_default();
    after
        .mismatches
        .extend(verify::read_back(written, &on_disk));
    let mut all = before.unwrap_or_default();
    all.checked.extend(after.checked);
    all.mismatches.extend(after.mismatches);
    all.skipped.extend(after.skipped);
    Ok(all)
}

/// Where the statement, its predicate and its subjects go: beside the
/// receipt, resolved as it is (the workspace, or the runner's temp folder).
fn attestation_files(ws: &Workspace, usage: &Location) -> Result<[Location; 3], Error> {
    let [statement, predicate, subjects] = crate::receipt::attest::paths_for(&usage.shown);
    // A link in the place of one (`usage.intoto.json -> usage.json`, or to
    // `.git/config`) would have the statement written over what it names.
    let derived = |given: &str| -> Result<Location, Error> {
        let loc = ws.resolve_artifact("usage-file", given)?;
        let named = ws.root().join(given);
        let link = std::fs::symlink_metadata(&named).is_ok_and(|m| m.file_type().is_symlink());
        if link || loc.path == usage.path {
            let shown = crate::escape::one_line(given);
            return Err(Error::in_file(
                given,
                format!(
                    "`{shown}` is a link: the receipt's attestation files are written only as plain files beside `{}`; remove `{shown}` (it is written again on every run)",
                    crate::escape::one_line(&usage.shown)
                ),
            ));
        }
        Ok(loc)
    };
    Ok([
        derived(&statement)?,
        derived(&predicate)?,
        derived(&subjects)?,
    ])
}

/// In `run`, lint findings are advice: warnings at most. The layout is not
/// linted here: the run knows its own from the event and says it in its
/// title (`advisory: ...`), where a lint of every workflow would repeat it
/// on each run, or guess wrong about a workflow that is not this one.
fn advice(lints: std::thread::JoinHandle<Vec<Lint>>) -> Vec<Lint> {
    lints
        .join()
        .unwrap_or_else(|panic| std::panic::resume_unwind(panic))
        .into_iter()
        .filter(|l| l.rule != "receipt-advisory-layout")
        .map(|mut l| {
            l.level = l.level.min(Level::Warning);
            l
        })
        .collect()
}

/// What is done beside the review.
struct Beside {
    collected: Collected,
    /// Every identity computed again from the files, checked against the
    /// receipt about to be written (an error is reported after the write).
    recomputed: Result<Verification, Error>,
}

fn beside_review(
    sources: &Sources,
    agent: &Setup,
    ws: &Workspace,
    usage_shown: &str,
    gate: &Judge,
    schema: Sender<Result<schema::Schema, Error>>,
) -> Result<Beside, Error> {
    // The review waits for the schema, compiled while git runs; a send fails
    // only if the review gave up.
    let compile = move || {
        let _ = schema.send(gate.compile(&sources.schema, ws));
    };
    let collected = identities::collect_beside(sources, agent, ws, true, compile)?;
    let recorded = collected.receipt.to_map();
    let recomputed = verify::verify(&recorded, usage_shown, sources, agent, ws, Scope::All);
    Ok(Beside {
        collected,
        recomputed,
    })
}

/// The gate's view of the review, in the receipt.
fn record_review(receipt: &mut Receipt, review: &Review) {
    receipt.validation = Some(ValidationRecord {
        valid: review.valid(),
        verdict: review.verdict.as_str().to_string(),
        draft: review.draft.to_string(),
        errors: review.violations_total,
    });
    receipt.findings_count = Some(review.findings.list.len());
    receipt.ok = review.findings.ok;
    receipt.findings_by_severity = Some(review.findings.by_severity());
}

/// What the record showed, in the receipt.
fn record_agent(receipt: &mut Receipt, check: &AgentCheck) {
    receipt.prompt_sent_sha = check.prompt_sent_sha.clone();
    receipt.transcript = check.transcript.clone();
    receipt.agent = Some(check.kind);
    receipt.tokens = check.tokens.clone();
    receipt.session = check.transcript.as_ref().and(check.settings.clone());
    let turns = &check.turns;
    if !turns.is_empty() {
        receipt.turns = Some(turns.clone());
        receipt.models = Some(crate::agent::turns::models(turns));
    }
    if let Some(context) = &check.context {
        // The request whose answer is the output: its context is the one checked.
        let output_turn = check
            .output_turn
            .and_then(|i| turns.get(i))
            .and_then(|t| t.context_sha.clone());
        receipt.context_sha = Some(output_turn.unwrap_or_else(|| context.sha.clone()));
        receipt.base_instructions_sha = context.base_instructions_sha.clone();
        receipt.developer_sha = context.developer_sha.clone();
        receipt.environment_sha = context.environment_sha.clone();
        receipt.skills = Some(context.skills.clone());
    }
}
