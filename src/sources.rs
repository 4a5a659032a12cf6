//! The sources: every input the step names that reaches the agent or judges
//! its output, with paths resolved inside the workspace. The receipt hashes
//! them, verification recomputes them, the review reads the schema and output.

use std::path::PathBuf;

use crate::workspace::Location;

/// Where the prompt came from.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Prompt {
    /// The text of input `prompt`.
    Inline(String),
    File(Location),
}

/// Where the output schema came from.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum SchemaInput {
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
pub struct Sources {
    /// The folder the agent ran in (codex-action's `working-directory`).
    pub workdir: PathBuf,
    /// `None` only where it is not needed (`verify` reads the receipt's).
    pub prompt: Option<Prompt>,
    pub template: Option<Location>,
    pub tools: Location,
    /// `tools-file` was given, not defaulted: a missing file is worth a warning.
    pub tools_given: bool,
    pub schema: SchemaInput,
    pub output: Location,
    pub output_given: bool,
    pub fixture: Option<Location>,
    pub agent_version: Option<String>,
    pub agent_args: Option<String>,
    pub model: Option<String>,
    /// codex-action's `safety-strategy`, as given.
    pub safety_strategy: Option<String>,
}
