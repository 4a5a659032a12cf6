//! `lint`: the repository's workflows, for the agent-review failure modes.

use crate::error::Error;
use crate::inputs::Mode;
use crate::lint;
use crate::outcome::Outcome;
use crate::workspace::Workspace;

pub(crate) fn lint(ws: &Workspace) -> Result<Outcome, Error> {
    let mut outcome = Outcome::empty(Mode::Lint, String::new(), Default::default());
    outcome.lints = lint::lint_workflows(ws);
    Ok(outcome)
}
