//! The sources: every input the step names that reaches the agent or judges
//! its output, with paths resolved inside the workspace. The receipt hashes
//! them, verification recomputes them, the review reads the schema and output.

use std::path::PathBuf;

use crate::workspace::Location;

/// Where the prompt came from.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum Prompt {
    /// The text of input `prompt`.
    Inline(String),
    File(Location),
}

/// Where the output schema came from.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum SchemaInput {
    /// The text of input `output-schema`.
    Inline(String),
    /// Input `output-schema-file`.
    File(Location),
    /// Neither input was given: the default file, which must exist.
    Default(Location),
}

/// What to hash: every input the step names, its path resolved inside the
/// workspace, and the values recorded as given.
#[derive(Clone, Debug)]
pub(crate) struct Sources {
    /// The folder the agent ran in (codex-action's `working-directory`).
    pub(crate) workdir: PathBuf,
    /// `None` only where it is not needed (`verify` reads the receipt's).
    pub(crate) prompt: Option<Prompt>,
    pub(crate) template: Option<Location>,
    pub(crate) tools: Location,
    /// `tools-file` was given, not defaulted: a missing file is worth a warning.
    pub(crate) tools_given: bool,
    pub(crate) schema: SchemaInput,
    pub(crate) output: Location,
    pub(crate) output_given: bool,
    pub(crate) fixture: Option<Location>,
    pub(crate) agent_version: Option<String>,
    pub(crate) agent_args: Option<String>,
    pub(crate) model: Option<String>,
    /// codex-action's `safety-strategy`, as given.
    pub(crate) safety_strategy: Option<String>,
}
