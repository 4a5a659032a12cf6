//! Where the result goes. One small trait, one file per destination: step
//! outputs, the job summary, the console (log lines or workflow commands).

mod console;
mod outputs;
mod summary;

pub use console::Console;
pub use outputs::{OTHER_OUTPUTS, OUTPUTS, StepOutputs};
pub use summary::{JobSummary, render as render_summary};

use crate::error::Error;
use crate::run::RunResult;

pub trait Report {
    fn report(&mut self, result: &RunResult) -> Result<(), Error>;
}
