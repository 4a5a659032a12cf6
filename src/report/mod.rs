//! Where the result goes. One small trait, one file per destination: the check
//! run, step outputs, the job summary, the console (log lines or workflow
//! commands). [`annotations`] is the one list of problems they share.

pub(crate) mod annotations;
mod attestation;
mod check_run;
mod console;
mod outputs;
mod summary;
pub(crate) mod verdict;

pub(crate) use attestation::Attestation;
pub(crate) use check_run::{CheckRun, Own};
pub(crate) use console::Console;
pub(crate) use outputs::StepOutputs;
pub use outputs::{OTHER_OUTPUTS, OUTPUTS};
pub(crate) use summary::{JobSummary, Page, render as render_summary};

use crate::context::Context;
use crate::error::Error;
use crate::inputs::Mode;
use crate::outcome::Outcome;

/// The inputs that say how to report: the check run's name, the token that
/// creates it, and the limits.
#[derive(Clone, Debug)]
pub(crate) struct Options {
    pub(crate) check_name: String,
    pub(crate) token: Option<String>,
    pub(crate) max_annotations: usize,
    /// What all GitHub API calls may take, retries included.
    pub(crate) api_timeout: std::time::Duration,
    /// Who else may have posted a check of this name for this receipt.
    pub(crate) own: check_run::Own,
}

/// Every destination of a `mode`'s outcome here, in the order they report:
/// the check run first, so the others can link it or say why there is none.
pub(crate) fn destinations(ctx: &Context, options: Options, mode: Mode) -> Vec<Box<dyn Report>> {
    let mut reports: Vec<Box<dyn Report>> = Vec::new();
    let blob_base = blob_base(ctx);
    if matches!(mode, Mode::Run | Mode::Compare | Mode::Validate) {
        reports.push(Box::new(CheckRun {
            ctx: ctx.clone(),
            blob_base: blob_base.clone(),
            token: options.token,
            name: options.check_name,
            max_annotations: options.max_annotations,
            budget: options.api_timeout,
            own: options.own,
        }));
    }
    if mode == Mode::Run {
        reports.push(Box::new(Attestation { ctx: ctx.clone() }));
    }
    reports.push(Box::new(Console {
        in_actions: ctx.in_actions,
    }));
    if let Some(file) = &ctx.output_file {
        reports.push(Box::new(StepOutputs { file: file.clone() }));
    }
    if let Some(file) = &ctx.summary_file {
        reports.push(Box::new(JobSummary {
            file: file.clone(),
            blob_base,
        }));
    }
    reports
}

/// Where a finding's file is on GitHub: `{server}/{owner}/{repo}/blob/{head sha}/`,
/// the pull request's head commit (not the merge commit) when there is one.
fn blob_base(ctx: &Context) -> Option<String> {
    let repo = ctx.repository.as_ref().filter(|_| ctx.in_actions)?;
    let target = crate::event::target(
        &ctx.event_name,
        crate::event::read(ctx.event_path.as_deref()).as_ref(),
        ctx.sha.as_deref().unwrap_or(""),
    );
    crate::event::is_sha(&target.head_sha)
        .then(|| format!("{}/{repo}/blob/{}/", ctx.server_url, target.head_sha))
}

/// Appends to a file the runner created for this step (`GITHUB_OUTPUT`,
/// `GITHUB_STEP_SUMMARY`): other steps' content stays, ours follows it.
fn append_to_step_file(variable: &str, file: &std::path::Path, bytes: &[u8]) -> Result<(), Error> {
    use std::io::Write;
    let fail = |e: std::io::Error| {
        Error::new(format!(
            "cannot append to {variable} `{}`: {e}; the runner creates this file, so run inside a step",
            file.display()
        ))
    };
    std::fs::OpenOptions::new()
        .append(true)
        .create(true)
        .open(file)
        .map_err(fail)?
        .write_all(bytes)
        .map_err(fail)
}

/// Reports run in order; one may add what it produced (the check run's link,
/// or why there is none) for the reports after it.
pub(crate) trait Report {
    fn report(&mut self, result: &mut Outcome) -> Result<(), Error>;
    /// What the debug log calls this destination when timing it.
    fn name(&self) -> &'static str;
}
