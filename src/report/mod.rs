//! Where the result goes. One small trait, one file per destination: step
//! outputs, the job summary, the console (log lines or workflow commands).

mod check_run;
mod console;
mod outputs;
mod summary;

pub use check_run::{CheckRun, CheckRunOutcome};
pub use console::Console;
pub use outputs::{OTHER_OUTPUTS, OUTPUTS, StepOutputs};
pub use summary::{JobSummary, render as render_summary};

use crate::error::Error;
use crate::run::RunResult;

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
pub trait Report {
    fn report(&mut self, result: &mut RunResult) -> Result<(), Error>;
}
