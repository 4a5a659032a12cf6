//! `compare`: this run's receipt (`usage-file`) against the base run's.

use serde_json::{Map, Value};

use crate::compare;
use crate::digest;
use crate::error::Error;
use crate::git;
use crate::inputs::{Inputs, Mode};
use crate::outcome::Outcome;
use crate::receipt::usage_file;
use crate::review::findings::{self, Finding};
use crate::workspace::{self, Location, Workspace};

pub(crate) fn compare(inputs: &Inputs, ws: &Workspace) -> Result<Outcome, Error> {
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
    let mut comparison =
        compare::compare(&base, &head, &request.allow, &base_findings, &head_findings);
    if comparison.prompt_changed {
        match (
            prompt_text(ws, &base, "base"),
            prompt_text(ws, &head, "head"),
        ) {
            (Ok(b), Ok(h)) => {
                let name = |p: &Option<String>| p.clone().unwrap_or_else(|| "prompt".into());
                comparison.prompts.diff = Some(crate::diff::unified(
                    &name(&comparison.prompts.base_path),
                    &b,
                    &name(&comparison.prompts.head_path),
                    &h,
                ));
            }
            (Err(why), _) | (_, Err(why)) => comparison.prompts.no_diff = Some(why),
        }
    }
    let mut outcome = Outcome::empty(Mode::Compare, usage.shown, head);
    outcome.comparison = Some(comparison);
    Ok(outcome)
}

/// The text of the prompt a receipt records, read back: the file in this
/// checkout when its bytes still hash to `prompt_sha`, else the file at the
/// commit the receipt was recorded on. Err says why there is no text.
fn prompt_text(ws: &Workspace, receipt: &Map<String, Value>, side: &str) -> Result<String, String> {
    let field = |k: &str| receipt.get(k).and_then(Value::as_str);
    let sha = field("prompt_sha").unwrap_or_default();
    let Some(path) = field("prompt_path") else {
        return Err(format!(
            "the {side} run's prompt was given inline (input `prompt`); its text is not kept, so there is no diff"
        ));
    };
    // The receipt is an artifact: read only inside the checkout.
    let path = &findings::normalize_path(path).map_err(|why| {
        format!("the {side} receipt's prompt_path {why}: not read, so there is no diff")
    })?;
    let matches = |bytes: &[u8]| digest::sha256_hex(bytes) == sha;
    let here = crate::workspace::read_contained(
        &ws.root().join(path),
        &[ws.root()],
        crate::limits::FILE_BYTES,
    )
    .ok()
    .filter(|b| matches(b));
    let at_commit = || {
        field("git_sha")
            .and_then(|commit| git::show(ws.root(), commit, path))
            .filter(|b| matches(b))
    };
    let bytes = here.or_else(at_commit).ok_or_else(|| {
        format!(
            "the {side} prompt `{path}` with the recorded prompt_sha is neither in this checkout nor at the {side} run's commit here; check out with `fetch-depth: 0` to see the diff"
        )
    })?;
    String::from_utf8(bytes).map_err(|_| format!("the {side} prompt `{path}` is not UTF-8"))
}

/// A run's findings; none when its output is missing or not JSON (the run
/// that wrote it reported that already).
fn findings_in(output: &Location, pointer: &str) -> Vec<Finding> {
    let Ok(bytes) = crate::workspace::read_bounded(&output.path, crate::limits::OUTPUT_BYTES)
    else {
        return Vec::new();
    };
    serde_json::from_slice::<Value>(&bytes)
        .map(|mut v| findings::take(&mut v, pointer).list)
        .unwrap_or_default()
}
