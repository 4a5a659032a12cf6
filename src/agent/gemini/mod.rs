//! Google Gemini CLI (0.60–0.61), as google-github-actions/run-gemini-cli runs it.
//!
//! - inputs: `agent-home` (the agent job's `~/.gemini`: the session record,
//!   the global GEMINI.md, settings), with the `--output-format json` stdout
//!   (`gemini-artifacts/stdout.log`) beside it or in the workspace
//!   ([`Settings`]);
//! - its chain: GEMINI.md (and the names `context.fileName` gives) from the
//!   working directory up to the git root, imports inlined, with the
//!   workspace `.gemini/settings.json` ([`chain`]);
//! - its record: `~/.gemini/tmp/<project>/chats/session-*.jsonl` ([`record`]);
//! - the check of the record against the checkout ([`check`]).

pub mod chain;
pub mod check;
pub mod reach;
pub mod record;

pub use check::read_and_check;

/// Besides the GEMINI.md chain (which holds `.gemini/settings.json` and the
/// files it imports), compared with the base: the rest of the repository's
/// Gemini CLI folder (custom commands, workspace extensions with their own
/// context files, which the chain does not compute) and `.geminiignore`.
pub const BASE_GLOBS: &[(&str, &str)] = &[
    ("Gemini config", "**/.gemini/**"),
    ("Gemini ignore file", "**/.geminiignore"),
];

/// What only Gemini CLI's check takes: nothing yet beyond the neutral
/// options (the record, its stdout and settings are all in agent-home).
#[derive(Clone, Debug, Default)]
pub struct Settings {}
