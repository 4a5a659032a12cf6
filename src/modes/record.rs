//! `record`: the identities into the usage file, and nothing else.

use std::path::Path;

use super::Covered;
use crate::error::Error;
use crate::inputs::{Inputs, Mode};
use crate::outcome::Outcome;
use crate::receipt::{identities, usage_file};
use crate::workspace::Workspace;

pub(crate) fn record(
    inputs: &Inputs,
    ws: &Workspace,
    home: Option<&Path>,
) -> Result<Outcome, Error> {
    let usage = inputs.usage_location(ws)?;
    let existing = usage_file::load(&usage)?;
    let Covered { sources, agent, .. } = Covered::read(inputs, ws, home, None)?;
    let collected = identities::collect(&sources, &agent, ws, false)?;
    let receipt = usage_file::write_receipt(
        &usage,
        existing,
        &collected.receipt,
        usage_file::Foreign::Keep,
    )?;
    let mut outcome = Outcome::empty(Mode::Record, usage.shown, receipt);
    outcome.caveats = collected.caveats;
    Ok(outcome)
}
