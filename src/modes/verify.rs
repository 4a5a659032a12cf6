//! `verify`: recompute every identity a receipt records and name each that differs.

use std::path::Path;

use super::{Covered, compare_with_base};
use crate::error::Error;
use crate::event::Origin;
use crate::inputs::{Inputs, Mode};
use crate::outcome::Outcome;
use crate::receipt::verify::{self, Scope};
use crate::receipt::{identities, usage_file};
use crate::workspace::Workspace;

pub fn verify(
    inputs: &Inputs,
    ws: &Workspace,
    codex_home: Option<&Path>,
    origin: &Origin,
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
    let Covered {
        sources,
        chain,
        config,
    } = Covered::read(inputs, ws, codex_home)?;
    let verification = verify::verify(&recorded, &usage.shown, &sources, &chain, ws, Scope::All)?;
    // The receipt's own files, as it names them: what the agent was given.
    let text = |k: &str| recorded.get(k).and_then(|v| v.as_str()).map(str::to_string);
    let files = [
        ("prompt", text("prompt_path")),
        ("prompt template", text("prompt_template_path")),
        ("tools", text("tools_path")),
        ("output schema", text("schema_path")),
    ];
    let instructions = compare_with_base(inputs, ws, &files, &sources, &chain, origin);
    // With codex-home, the record is read and checked as `run` checks it:
    // files that match say nothing of what the agent received.
    let agent = match inputs.session_options(codex_home, &config) {
        Some(opts) => {
            let collected = identities::collect(&sources, &chain, ws, true)?;
            let output = std::fs::read(&sources.output.path).ok();
            Some(super::run::check_agent(
                &opts,
                &sources,
                ws,
                &collected.receipt,
                &collected.prompt_bytes,
                output.as_deref(),
                instructions.as_ref(),
            ))
        }
        None => None,
    };
    let mut outcome = Outcome::empty(Mode::Verify, usage.shown, recorded);
    outcome.verification = Some(verification);
    outcome.instructions = instructions;
    outcome.take_agent(agent);
    Ok(outcome)
}
