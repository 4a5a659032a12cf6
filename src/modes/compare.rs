//! `compare`: this run's receipt (`usage-file`) against the base run's.

use serde_json::Value;

use crate::compare;
use crate::error::Error;
use crate::inputs::{Inputs, Mode};
use crate::outcome::Outcome;
use crate::receipt::usage_file;
use crate::review::findings::{self, Finding};
use crate::workspace::{self, Location, Workspace};

pub fn compare(inputs: &Inputs, ws: &Workspace) -> Result<Outcome, Error> {
    let usage = inputs.usage_location(ws)?;
    let head = usage_file::load(&usage)?;
    let request = inputs.compare_request(ws)?;
    let base = usage_file::load(&request.base_usage)?
        .ok_or_else(|| workspace::missing("base-usage-file", &request.base_usage))?;
    let head = head.ok_or_else(|| {
        Error::new(format!(
            "mode `compare` needs this run's receipt at usage-file `{}`; record it first (mode `run` or `record`)",
            usage.shown
        ))
    })?;
    let pointer = &request.findings_pointer;
    let base_findings = match &request.base_output {
        Some(loc) => findings_in(loc, pointer),
        None => Vec::new(),
    };
    let head_findings = findings_in(&request.head_output, pointer);
    let comparison = compare::compare(&base, &head, &request.allow, &base_findings, &head_findings);
    let mut outcome = Outcome::empty(Mode::Compare, usage.shown, head);
    outcome.comparison = Some(comparison);
    Ok(outcome)
}

/// A run's findings; none when its output is missing or not JSON (the run
/// that wrote it reported that already).
fn findings_in(output: &Location, pointer: &str) -> Vec<Finding> {
    let Ok(bytes) = std::fs::read(&output.path) else {
        return Vec::new();
    };
    serde_json::from_slice::<Value>(&bytes)
        .map(|mut v| findings::take(&mut v, pointer).list)
        .unwrap_or_default()
}
