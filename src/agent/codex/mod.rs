//! OpenAI Codex CLI, as openai/codex-action runs it.
//!
//! - inputs: `codex-home` (the record and the global AGENTS.md), `codex-args`,
//!   `codex-version`, `model`, `effort`, `permission-profile`,
//!   `default-branch-instructions` ([`Settings`], [`config`]);
//! - its chain: AGENTS.md from the project root down to the working directory
//!   ([`chain`]);
//! - its record: the rollout under `$CODEX_HOME/sessions` ([`session`]);
//! - the check of the record against the checkout ([`check`]), with the
//!   repository's skills ([`skills`]).

pub mod chain;
pub mod check;
pub mod config;
pub mod session;
pub mod skills;

pub use check::read_and_check;

/// What only Codex's check takes.
#[derive(Clone, Debug, Default)]
pub struct Settings {
    /// `developer_instructions` as Codex's settings give it: what the
    /// developer message must begin with.
    pub developer_instructions: Option<String>,
    /// What this step was told codex-action ran with.
    pub effort: Option<String>,
    pub permission_profile: Option<String>,
    /// codex-action's `default-branch` mode: the agent saw the default
    /// branch's AGENTS files, from `$CODEX_HOME/AGENTS.override.md`.
    pub default_branch_instructions: bool,
}
