//! Where the result goes. One small trait, one file per destination: step
//! outputs, the job summary, the console (log lines or workflow commands).

mod check_run;
mod console;
mod outputs;
mod summary;

pub use check_run::{CheckRun, CheckRunOutcome, plan as check_run_plan};
pub use console::Console;
pub use outputs::{OTHER_OUTPUTS, OUTPUTS, StepOutputs};
pub use summary::{JobSummary, render as render_summary};

use crate::error::Error;
use crate::run::RunResult;

/// Reports run in order; one may add what it produced (the check run's link,
/// or why there is none) for the reports after it.
pub trait Report {
    fn report(&mut self, result: &mut RunResult) -> Result<(), Error>;
}
