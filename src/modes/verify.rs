//! `verify`: recompute every identity a receipt records and name each that differs.

use std::path::Path;

use super::Covered;
use crate::error::Error;
use crate::inputs::{Inputs, Mode};
use crate::outcome::Outcome;
use crate::receipt::usage_file;
use crate::receipt::verify::{self, Scope};
use crate::workspace::Workspace;

pub fn verify(
    inputs: &Inputs,
    ws: &Workspace,
    codex_home: Option<&Path>,
) -> Result<Outcome, Error> {
    let usage = inputs.usage_location(ws)?;
    let recorded = usage_file::load(&usage)?.ok_or_else(|| {
        Error::in_file(
            &usage.shown,
            format!(
                "usage file `{}` does not exist; run this action with mode `record` or `run` \
                 first, or set usage-file to the receipt to verify",
                usage.shown
            ),
        )
    })?;
    let Covered { sources, chain, .. } = Covered::read(inputs, ws, codex_home)?;
    let verification = verify::verify(&recorded, &usage.shown, &sources, &chain, ws, Scope::All)?;
    let mut outcome = Outcome::empty(Mode::Verify, usage.shown, recorded);
    outcome.verification = Some(verification);
    Ok(outcome)
}
