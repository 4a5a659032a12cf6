//! prompt-receipt: record which exact bytes reached a coding agent, verify the
//! record, and report it where people look.
//!
//! The data flows down through the stages and never back up. [`inputs`] reads
//! flags and `INPUT_*` variables once; [`setup`] turns them into the typed parts
//! each stage needs ([`sources`] to hash, chain and session options, the gate's
//! policy, report options), paths resolved inside the [`workspace`]. Each of
//! the [`modes`] is then a few stages over those parts: the [`receipt`] stage
//! hashes the sources and asks git; the [`agent`] stage reads what the agent
//! saw (the AGENTS.md chain as Codex assembles it, Codex's session record); the
//! [`review`] stage checks the agent's output against its schema and applies
//! the gate; the receipt is written and verified; [`compare`] and [`lint`] are
//! modes of their own. What a mode found is an [`outcome::Outcome`], which the
//! [`report`] destinations (check run, step outputs, job summary, console) tell.
//! Escaping, Markdown, errors, levels and logging are shared by all.

pub mod agent;
pub mod compare;
pub mod context;
pub mod digest;
pub mod error;
pub mod escape;
pub mod event;
pub mod inputs;
pub mod level;
pub mod lint;
pub mod logging;
pub mod markdown;
pub mod modes;
pub mod outcome;
pub mod receipt;
pub mod report;
pub mod review;
pub mod setup;
pub mod sources;
pub mod version;
pub mod workspace;
pub mod yaml;

use context::Context;
use error::Error;
use inputs::Inputs;
use outcome::Outcome;
use workspace::Workspace;

/// Runs one invocation and reports it everywhere it belongs.
pub fn run(inputs: &Inputs, ctx: &Context) -> Result<Outcome, Error> {
    let ws = Workspace::open(&ctx.workspace)?.with_runner_temp(ctx.runner_temp.as_deref());
    tracing::debug!(workspace = %ws.root().display(), mode = ?inputs.mode, "starting");
    let codex_home = match &inputs.codex_home {
        Some(given) => Some(agent::sent::resolve_codex_home(
            given,
            &ws,
            ctx.runner_temp.as_deref(),
        )?),
        None => None,
    };
    let base = ctx.in_actions.then(|| {
        let payload = event::read(ctx.event_path.as_deref());
        event::target(&ctx.event_name, payload.as_ref(), "").base_sha
    });
    let mut outcome = modes::execute(
        inputs,
        &ws,
        codex_home.as_deref(),
        base.flatten().as_deref(),
    )?;
    let clock = logging::Stopwatch::start("report");
    for r in &mut report::destinations(ctx, inputs.report_options(), inputs.mode) {
        r.report(&mut outcome)?;
    }
    clock.lap("every report written");
    Ok(outcome)
}

/// Reports an error: an `::error` annotation in Actions, `error: ...` elsewhere.
pub fn report_error(err: &Error, in_actions: bool) {
    if in_actions {
        let mut props = vec![("title", "prompt-receipt".to_string())];
        if let Some(f) = err.file() {
            props.insert(0, ("file", f.to_string()));
        }
        println!(
            "{}",
            escape::workflow_command("error", &props, err.message())
        );
    } else {
        eprintln!("error: {}", escape::one_line(err.message()));
    }
}
