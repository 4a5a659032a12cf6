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

pub(crate) fn verify(
    inputs: &Inputs,
    ws: &Workspace,
    home: Option<&Path>,
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
    let covered = Covered::read(inputs, ws, home, Some(origin))?;
    let (sources, agent, reach) = (&covered.sources, &covered.agent, &covered.reach);
    let mut verification = verify::verify(&recorded, &usage.shown, sources, agent, ws, Scope::All)?;
    verify_hooks(&mut verification, &recorded, agent, sources, ws);
    verify_runtime(&mut verification, &recorded, reach);
    // The receipt's own files, as it names them: what the agent was given.
    let text = |k: &str| recorded.get(k).and_then(|v| v.as_str()).map(str::to_string);
    let files = [
        ("prompt", text("prompt_path")),
        ("prompt template", text("prompt_template_path")),
        ("tools", text("tools_path")),
        ("output schema", text("schema_path")),
    ];
    let instructions = compare_with_base(inputs, ws, &files, &covered, origin);
    // With codex-home, the record is read and checked as `run` checks it:
    // files that match say nothing of what the agent received.
    let check = match inputs.session_options(home) {
        Some(opts) => {
            let collected = identities::collect(sources, agent, ws, true)?;
            let output =
                crate::workspace::read_bounded(&sources.output.path, crate::limits::OUTPUT_BYTES)
                    .ok();
            Some(super::check_agent(
                (agent, &opts),
                sources,
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
    outcome.unverified.extend(covered.unseen());
    let hooks = super::hooks_configured(&outcome.receipt, reach);
    outcome.take_agent(check, hooks);
    Ok(outcome)
}

/// The runtime's files the receipt lists are hashed again: a hook's script
/// or an MCP server changed after the run runs in the next one. A file the
/// runtime reaches now that the receipt does not list is a change too.
fn verify_runtime(
    v: &mut verify::Verification,
    recorded: &serde_json::Map<String, serde_json::Value>,
    reach: &crate::agent::reach::Reach,
) {
    use crate::agent::reach::RuntimeFile;
    let Some(value) = recorded.get("runtime") else {
        return;
    };
    let was: Vec<RuntimeFile> = serde_json::from_value(value.clone()).unwrap_or_default();
    let now = super::runtime_record(reach).unwrap_or_default();
    v.checked.push("runtime".into());
    let pairs = |l: &[RuntimeFile]| -> Vec<(String, Option<String>)> {
        l.iter()
            .map(|f| (f.path.clone(), f.sha256.clone()))
            .collect()
    };
    v.mismatches
        .extend(file_mismatch("runtime", &pairs(&was), &pairs(&now)));
}

/// The files whose hash differs between two lists of (path, sha256), as one
/// mismatch that shows the first file's hashes, as a file identity is shown.
fn file_mismatch(
    field: &str,
    was: &[(String, Option<String>)],
    now: &[(String, Option<String>)],
) -> Option<crate::receipt::Mismatch> {
    let sha = |list: &[(String, Option<String>)], path: &str| {
        list.iter().find(|f| f.0 == path).and_then(|f| f.1.clone())
    };
    let mut files: Vec<String> = was
        .iter()
        .chain(now)
        .map(|f| f.0.clone())
        .filter(|p| sha(was, p) != sha(now, p))
        .collect();
    files.sort();
    files.dedup();
    let first = files.first().cloned()?;
    let value = |s: Option<String>| s.map_or(serde_json::Value::Null, serde_json::Value::String);
    Some(crate::receipt::Mismatch {
        field: field.into(),
        recorded: value(sha(was, &first)),
        actual: value(sha(now, &first)),
        files,
    })
}

/// The hook configurations the receipt records are hashed again: a hook
/// added or changed after the run prints into the next agent's input. Those
/// in the agent's home are compared only when this step is given it.
fn verify_hooks(
    v: &mut verify::Verification,
    recorded: &serde_json::Map<String, serde_json::Value>,
    agent: &crate::agent::Setup,
    sources: &crate::sources::Sources,
    ws: &Workspace,
) {
    let home = agent.home.as_deref();
    use crate::agent::turns::HookConfig;
    let Some(value) = recorded.get("hooks") else {
        return;
    };
    let in_workspace = |h: &HookConfig| !h.path.starts_with('$') && !h.path.starts_with('~');
    let keep = |list: Vec<HookConfig>| -> Vec<HookConfig> {
        list.into_iter()
            .filter(|h| home.is_some() || in_workspace(h))
            .collect()
    };
    let was = keep(serde_json::from_value(value.clone()).unwrap_or_default());
    let now = keep(agent.hook_configs(&sources.workdir, ws).0);
    v.checked.push("hooks".into());
    if was == now {
        return;
    }
    let pairs = |l: &[HookConfig]| -> Vec<(String, Option<String>)> {
        l.iter()
            .map(|h| (h.path.clone(), Some(h.sha256.clone())))
            .collect()
    };
    v.mismatches
        .extend(file_mismatch("hooks", &pairs(&was), &pairs(&now)));
}
