//! prompt-receipt: record which exact bytes reached a coding agent, verify the
//! record, and report it where people look.
//!
//! The data flows inputs -> identities -> receipt -> verification -> report:
//! [`inputs`] reads what the step was given, [`identities`] hashes files and asks
//! git, [`receipt`] and [`usage_file`] keep the record, [`verify`] recomputes it,
//! and [`report`] tells the story to step outputs, the job summary and the log.

pub mod agents;
pub mod annotation;
pub mod attest;
pub mod compare;
pub mod context;
pub mod digest;
pub mod error;
pub mod escape;
pub mod event;
pub mod findings;
pub mod gate;
pub mod git;
pub mod identities;
pub mod inputs;
pub mod lint;
pub mod locate;
pub mod logging;
pub mod markdown;
pub mod pyjson;
pub mod receipt;
pub mod report;
pub mod review;
pub mod run;
pub mod schema;
pub mod sent;
pub mod transcript;
pub mod usage_file;
pub mod verify;
pub mod workspace;

use context::Context;
use error::Error;
use inputs::Inputs;
use report::{CheckRun, Console, JobSummary, Report, StepOutputs};
use run::RunResult;
use workspace::Workspace;

/// Runs one invocation and reports it everywhere it belongs.
pub fn run(inputs: &Inputs, ctx: &Context) -> Result<RunResult, Error> {
    let ws = Workspace::open(&ctx.workspace)?;
    tracing::debug!(workspace = %ws.root().display(), mode = ?inputs.mode, "starting");
    let codex_home = match &inputs.codex_home {
        Some(given) => Some(sent::resolve_codex_home(
            given,
            &ws,
            ctx.runner_temp.as_deref(),
        )?),
        None => None,
    };
    let mut result = run::execute(inputs, &ws, codex_home.as_deref())?;
    let mut reports: Vec<Box<dyn Report>> = Vec::new();
    if matches!(
        inputs.mode,
        inputs::Mode::Run | inputs::Mode::Compare | inputs::Mode::Validate
    ) {
        reports.push(Box::new(CheckRun {
            ctx: ctx.clone(),
            token: inputs.github_token.clone(),
            name: inputs.check_name.clone(),
            max_annotations: inputs.max_annotations as usize,
            budget: std::time::Duration::from_secs(inputs.api_timeout),
        }));
    }
    reports.push(Box::new(Console {
        in_actions: ctx.in_actions,
    }));
    if let Some(file) = &ctx.output_file {
        reports.push(Box::new(StepOutputs { file: file.clone() }));
    }
    if let Some(file) = &ctx.summary_file {
        reports.push(Box::new(JobSummary { file: file.clone() }));
    }
    let clock = logging::Stopwatch::start("report");
    for r in &mut reports {
        r.report(&mut result)?;
    }
    clock.lap("every report written");
    Ok(result)
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
