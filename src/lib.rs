//! prompt-receipt: record which exact bytes reached a coding agent, verify the
//! record, and report it where people look.
//!
//! The data flows down through the stages and never back up. [`inputs`] reads
//! flags and `INPUT_*` variables once; [`setup`] turns them into the typed parts
//! each stage needs ([`sources`] to hash, chain and session options, the gate's
//! policy, report options), paths resolved inside the [`workspace`]. Each of
//! the [`modes`] is then a few stages over those parts: the [`receipt`] stage
//! hashes the sources and asks git; the [`agent`] stage reads what the agent
//! saw (the instruction chain as the agent assembles it, and its own record
//! of the run: Codex, Claude Code, Gemini CLI or Copilot CLI, one folder each
//! behind one seam); before the agent, `restore` puts the base's configuration
//! back; the
//! [`review`] stage checks the agent's output against its schema and applies
//! the gate; the receipt is written and verified; [`compare`] and [`lint`] are
//! modes of their own. What a mode found is an [`outcome::Outcome`], which the
//! [`report`] destinations (check run, step outputs, job summary, console) tell.
//! Escaping, Markdown, errors, levels and logging are shared by all.

pub mod agent;
mod audit;
mod base;
mod compare;
pub mod context;
mod diff;
pub mod digest;
pub mod error;
pub mod escape;
pub mod event;
mod git;
pub mod inputs;
pub mod level;
mod limits;
pub mod lint;
pub mod logging;
pub mod markdown;
mod memory;
mod modes;
pub mod outcome;
pub mod receipt;
pub mod report;
mod restore;
pub mod review;
mod rule;
mod setup;
mod sources;
mod version;
mod workflow;
mod workspace;
mod yaml;

use context::Context;
use error::Error;
use inputs::Inputs;
use outcome::Outcome;
use workspace::Workspace;

/// Runs one invocation and reports it everywhere it belongs. In Actions, a
/// run that cannot be made (a missing artifact, an input that names no file)
/// is reported too: a failing check that says why, never only an exit code,
/// since a required check that never comes leaves the pull request waiting
/// and says nothing.
pub fn run(inputs: &Inputs, ctx: &Context) -> Result<Outcome, Error> {
    let origin = if ctx.in_actions {
        let payload = event::read(ctx.event_path.as_deref());
        event::origin(
            &ctx.event_name,
            payload.as_ref(),
            ctx.workflow_ref.as_deref(),
            ctx.repository.as_deref(),
        )
    } else {
        event::Origin::default()
    };
    let mut outcome = match execute(inputs, ctx, &origin) {
        Ok(outcome) => outcome,
        Err(e) => {
            if ctx.in_actions {
                report_failure(inputs, ctx, &origin, &e);
            }
            return Err(e);
        }
    };
    if origin.from_fork && matches!(inputs.mode, inputs::Mode::Run | inputs::Mode::Verify) {
        outcome.unverified.push(outcome::Unverified::new(
            "an agent job the fork does not control",
            FORK,
        ));
    }
    // Said of a verdict about the pull request, not of a recording step.
    if !matches!(inputs.mode, inputs::Mode::Record | inputs::Mode::Lint) {
        outcome.layout = origin.layout;
    }
    let clock = logging::Stopwatch::start("report");
    for r in &mut report::destinations(ctx, inputs.report_options(), inputs.mode) {
        r.report(&mut outcome)?;
        clock.lap(r.name());
    }
    clock.lap("every report written");
    Ok(outcome)
}

/// The mode over the workspace and the agent home.
fn execute(inputs: &Inputs, ctx: &Context, origin: &event::Origin) -> Result<Outcome, Error> {
    let ws = Workspace::open(&ctx.workspace)?.with_runner_temp(ctx.runner_temp.as_deref());
    tracing::debug!(workspace = %ws.root().display(), mode = ?inputs.mode, "starting");
    let home = match &inputs.agent_home {
        Some((input, given)) => Some(workspace::resolve_host_folder(
            input,
            given,
            &ws,
            ctx.runner_temp.as_deref(),
        )?),
        None => None,
    };
    modes::execute(inputs, &ws, home.as_deref(), origin)
}

/// A run that could not be made, reported where its verdict would have gone
/// (the check run, the step outputs, the job summary); the log has the error
/// from the caller. What fails to report here is left to the log.
fn report_failure(inputs: &Inputs, ctx: &Context, origin: &event::Origin, err: &Error) {
    fail_where_it_reports(inputs.mode, inputs.report_options(), ctx, origin, err);
}

/// Inputs refused before a run could begin (two prompt inputs, a value the
/// command line does not take), in Actions: the failing check says why all
/// the same, with what the step was given of its name and token.
pub fn report_refusal(env: &inputs::Env, err: &Error) {
    if env.get("GITHUB_ACTIONS").is_none_or(|v| v != "true") {
        return;
    }
    let input = |name: &str| inputs::input_from_env(env, name).map(str::to_string);
    let mode = input("mode")
        .and_then(|m| <inputs::Mode as clap::ValueEnum>::from_str(&m, true).ok())
        .unwrap_or(inputs::Mode::Run);
    let options = report::Options {
        check_name: input("check-name").unwrap_or_else(|| inputs::DEFAULT_CHECK_NAME.into()),
        token: input("github-token"),
        max_annotations: 0,
        api_timeout: std::time::Duration::from_secs(60),
        own: report::Own {
            app: input("app-slug"),
            earlier: Vec::new(),
        },
    };
    let ctx = Context::from_env(env, None);
    let payload = event::read(ctx.event_path.as_deref());
    let origin = event::origin(
        &ctx.event_name,
        payload.as_ref(),
        ctx.workflow_ref.as_deref(),
        ctx.repository.as_deref(),
    );
    fail_where_it_reports(mode, options, &ctx, &origin, err);
}

fn fail_where_it_reports(
    mode: inputs::Mode,
    options: report::Options,
    ctx: &Context,
    origin: &event::Origin,
    err: &Error,
) {
    let mut outcome = Outcome::empty(mode, String::new(), Default::default());
    outcome.error = Some(err.message().to_string());
    outcome.layout = origin.layout;
    for r in &mut report::destinations(ctx, options, mode) {
        if r.name() == "console" || r.name() == "attestation files" {
            continue;
        }
        if let Err(e) = r.report(&mut outcome) {
            tracing::debug!("{} not written: {}", r.name(), e.message());
        }
    }
}

const FORK: &str = "the agent job ran the fork's own workflow on the fork's code, so everything it \
     uploaded (the review, the receipt, the session record) is the fork author's to write: a record \
     built by hand from the checkout verifies like a real one. What holds is what this job checked \
     itself: the comparison of the instructions with the base, and the review against the base's \
     schema";

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
