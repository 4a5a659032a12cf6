//! `restore`, before the agent: every file that can steer the configured
//! agent put back as the base has it ([`crate::restore`]); and the same for
//! the receipt's own checkout when `run` is told the agent ran pinned
//! (`configuration: base`).

use std::path::Path;

use super::{Covered, configuration_subjects, named};
use crate::base::Pinned;
use crate::error::Error;
use crate::event::Origin;
use crate::git;
use crate::inputs::{Inputs, Mode};
use crate::outcome::Outcome;
use crate::restore;
use crate::workspace::Workspace;

pub(crate) fn restore(
    inputs: &Inputs,
    ws: &Workspace,
    home: Option<&Path>,
    origin: &Origin,
) -> Result<Outcome, Error> {
    let (commit, branch) = base_of_the_run(inputs, ws, origin)?;
    let pinned = pin(inputs, ws, home, &commit, branch.as_deref())?;
    let mut outcome = Outcome::empty(Mode::Restore, String::new(), Default::default());
    outcome.pinned = Some(pinned);
    Ok(outcome)
}

/// The base of the agent's run, as the receipt will take it: `base-ref` when
/// given, else the default branch's tip in the checkout (`origin/<branch>`,
/// which `fetch-depth: 0` brings), or a `protected-bases` branch the pull
/// request merges into. Never a branch the pull request picked.
fn base_of_the_run(
    inputs: &Inputs,
    ws: &Workspace,
    origin: &Origin,
) -> Result<(String, Option<String>), Error> {
    if let Some(given) = &inputs.base_ref {
        let commit = git::commit_of(ws.root(), given).ok_or_else(|| missing(given))?;
        return Ok((commit, inputs.base_branch.clone()));
    }
    let default = origin.default_branch.as_deref().ok_or_else(|| {
        Error::new(
            "input `base-ref`: the event names no default branch to take the configuration from; give `base-ref` (the default branch, as `origin/main`)",
        )
    })?;
    let branch = match &origin.merges_into {
        Some(b) if inputs.protected_bases.contains(b) => b.as_str(),
        _ => default,
    };
    let remote = format!("refs/remotes/origin/{branch}");
    let commit = git::commit_of(ws.root(), &remote).ok_or_else(|| missing(&remote))?;
    Ok((commit, Some(branch.to_string())))
}

fn missing(rev: &str) -> Error {
    Error::new(format!(
        "the base `{}` is not a commit in this checkout: check out with `fetch-depth: 0` so that the base's configuration can be read; nothing was changed",
        crate::escape::one_line(&crate::markdown::clip(rev, 120))
    ))
}

/// The agent's configuration in `ws` put back as `commit` has it: the files
/// asked again each round, since a restored setting can name a script.
pub(super) fn pin(
    inputs: &Inputs,
    ws: &Workspace,
    home: Option<&Path>,
    commit: &str,
    branch: Option<&str>,
) -> Result<Pinned, Error> {
    let mut subjects = || {
        Covered::read(inputs, ws, home, None)
            .map(|covered| configuration_subjects(ws, &named(&covered.sources), &covered))
    };
    restore::pin(ws, commit, branch, &mut subjects)
}

/// `run` with `configuration: base`: the receipt's checkout made what the
/// agent was given, from the base it compares with. With `checkout`,
/// nothing.
pub(super) fn pin_for_receipt(
    inputs: &Inputs,
    ws: &Workspace,
    home: Option<&Path>,
    origin: &Origin,
) -> Result<Option<Pinned>, Error> {
    if inputs.configuration == crate::inputs::Configuration::Checkout {
        return Ok(None);
    }
    let base = inputs.base(origin).ok_or_else(|| {
        Error::new(
            "input `configuration` is `base`, but there is no base to take the configuration from: give `base-ref` (receipt.yml does)",
        )
    })?;
    let commit = crate::base::valid_ref(&base.given)
        .then(|| git::commit_of(ws.root(), &base.given))
        .flatten()
        .ok_or_else(|| missing(&base.given))?;
    pin(inputs, ws, home, &commit, base.branch.as_deref()).map(Some)
}
