//! One invocation, by mode: record, verify, or run (verify what was recorded
//! before the agent ran, record this run, verify the record).

use serde_json::{Map, Value};

use crate::error::Error;
use crate::identities::{self, Caveat};
use crate::inputs::{Inputs, Mode};
use crate::receipt::{OWNED_KEYS, VerificationRecord};
use crate::usage_file;
use crate::verify::{self, Scope, Verification};
use crate::workspace::Workspace;

/// Everything the reports need to tell the story of one invocation.
#[derive(Clone, Debug)]
pub struct RunResult {
    pub mode: Mode,
    /// The usage file, relative to the workspace.
    pub usage_file: String,
    /// The receipt as written (`record`, `run`) or as read (`verify`).
    pub receipt: Map<String, Value>,
    pub verification: Option<Verification>,
    pub caveats: Vec<Caveat>,
}

impl RunResult {
    /// Every check passed: the exit code is 0.
    pub fn passed(&self) -> bool {
        self.verification.as_ref().is_none_or(Verification::passed)
    }

    /// A receipt field as text, empty when absent or null.
    pub fn field(&self, key: &str) -> String {
        match self.receipt.get(key) {
            Some(Value::String(s)) => s.clone(),
            Some(Value::Null) | None => String::new(),
            Some(other) => other.to_string(),
        }
    }
}

pub fn execute(inputs: &Inputs, ws: &Workspace) -> Result<RunResult, Error> {
    let usage = ws.resolve("usage-file", &inputs.usage_file)?;
    let existing = usage_file::load(&usage)?;

    if inputs.mode == Mode::Verify {
        let recorded = existing.ok_or_else(|| {
            Error::in_file(
                &usage.shown,
                format!(
                    "usage file `{}` does not exist; run this action with mode `record` or `run` \
                     first, or set usage-file to the receipt to verify",
                    usage.shown
                ),
            )
        })?;
        let verification = verify::verify(&recorded, &usage.shown, inputs, ws, Scope::All)?;
        return Ok(RunResult {
            mode: inputs.mode,
            usage_file: usage.shown,
            receipt: recorded,
            verification: Some(verification),
            caveats: Vec::new(),
        });
    }

    // A receipt recorded before the agent ran is checked before it is replaced.
    let before =
        match (&existing, inputs.mode) {
            (Some(recorded), Mode::Run) if verify::has_identities(recorded) => Some(
                verify::verify(recorded, &usage.shown, inputs, ws, Scope::BeforeAgent)?,
            ),
            _ => None,
        };

    let collected = identities::collect(inputs, ws)?;
    let mut receipt = collected.receipt;
    if inputs.mode == Mode::Run {
        receipt.verification = Some(VerificationRecord {
            verified: before.as_ref().is_none_or(Verification::passed),
            mismatches: before
                .as_ref()
                .map(|v| v.mismatches.clone())
                .unwrap_or_default(),
        });
    }
    let merged = usage_file::merge(existing, OWNED_KEYS, receipt.to_map());
    usage_file::write(&usage, &merged)?;

    let verification = if inputs.mode == Mode::Run {
        // Read back what was written: the receipt on disk is what gets uploaded.
        let written = usage_file::load(&usage)?.unwrap_or_default();
        let after = verify::verify(&written, &usage.shown, inputs, ws, Scope::All)?;
        let mut all = before.unwrap_or_default();
        all.checked.extend(after.checked);
        all.mismatches.extend(after.mismatches);
        all.skipped.extend(after.skipped);
        Some(all)
    } else {
        None
    };

    Ok(RunResult {
        mode: inputs.mode,
        usage_file: usage.shown,
        receipt: merged,
        verification,
        caveats: collected.caveats,
    })
}
