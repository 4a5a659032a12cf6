//! The console: workflow commands in Actions (annotations people can click),
//! plain lines and the summary on a terminal.

use std::io::Write;

use super::Report;
use crate::error::Error;
use crate::escape::{one_line, workflow_command};
use crate::identities::Level;
use crate::run::RunResult;

pub struct Console {
    pub in_actions: bool,
}

impl Report for Console {
    fn report(&mut self, result: &RunResult) -> Result<(), Error> {
        let mut out = std::io::stdout().lock();
        let mut lines = Vec::new();
        for c in &result.caveats {
            let name = match c.level {
                Level::Warning => "warning",
                Level::Notice => "notice",
            };
            lines.push(self.annotation(name, c.file.as_deref(), &c.message));
        }
        if let Some(v) = &result.verification {
            for m in &v.mismatches {
                let message = format!(
                    "{} in `{}` is recorded as {} but is now {}; the input changed after it was recorded",
                    m.field, result.usage_file, m.recorded, m.actual
                );
                lines.push(self.annotation("error", Some(&result.usage_file), &message));
            }
        }
        if self.in_actions {
            lines.push(format!(
                "prompt-receipt: {}",
                one_line(&super::summary::headline(result))
            ));
        } else {
            lines.push(super::render_summary(result));
        }
        for line in lines {
            writeln!(out, "{line}")
                .map_err(|e| Error::new(format!("cannot write to stdout: {e}")))?;
        }
        Ok(())
    }
}

impl Console {
    fn annotation(&self, level: &str, file: Option<&str>, message: &str) -> String {
        if self.in_actions {
            let props: Vec<(&str, String)> =
                file.map(|f| ("file", f.to_string())).into_iter().collect();
            workflow_command(level, &props, message)
        } else {
            format!("{level}: {}", one_line(message))
        }
    }
}
