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

pub(crate) mod chain;
pub mod check;
pub(crate) mod reach;
pub(crate) mod record;

use std::path::Path;

use crate::agent::chain::Chain;
use crate::agent::check::{AgentCheck, Expected};
use crate::agent::kind::AgentKind;
use crate::agent::reach::Reach;
use crate::agent::seam::{About, Agent, Fields, SessionOptions, Setup};
use crate::agent::turns::HookConfig;
use crate::error::Error;
use crate::workspace::Workspace;

/// What Gemini CLI is, for the registry.
const ABOUT: About = About {
    kind: AgentKind::Gemini,
    word: "gemini",
    name: "Gemini CLI",
    chain_name: "GEMINI.md",
    without_home: "no agent-home: the receipt cannot vouch for what reached the agent (the \
        prompt and GEMINI.md chain as sent, the model, the tokens); give this step as \
        agent-home the agent job's ~/.gemini as uploaded (docs/gemini.md)",
    without_version: None,
    base_globs: BASE_GLOBS,
    pinned_globs: &[],
    actions: &["google-github-actions/run-gemini-cli"],
    aliases: &[],
    drops_docker: false,
    instructions: is_instruction,
    fields: Fields {
        cwd: " (the session context's workspace directory)",
        version: "",
        commit: "",
        model: "",
        tokens: "",
        answer: "",
        other_version: "",
    },
};
/// A GEMINI.md file at any level.
fn is_instruction(path: &str) -> bool {
    path.rsplit('/').next().unwrap_or(path) == chain::DEFAULT
}

/// Gemini CLI, for the registry.
pub(crate) struct Gemini;

impl Agent for Gemini {
    fn about(&self) -> &'static About {
        &ABOUT
    }

    fn chain(&self, setup: &Setup, cwd: &Path, ws: &Workspace) -> Result<Chain, Error> {
        chain::load(cwd, ws, &chain_options(setup))
    }

    fn candidate_paths(&self, setup: &Setup, cwd: &Path, ws: &Workspace) -> Vec<String> {
        chain::candidate_paths(cwd, ws, &chain_options(setup))
    }

    fn reach(&self, setup: &Setup, cwd: &Path, ws: &Workspace) -> Reach {
        reach::reach(cwd, ws, setup.home.as_deref())
    }

    fn hook_configs(
        &self,
        _setup: &Setup,
        cwd: &Path,
        ws: &Workspace,
        unread: &mut Vec<String>,
    ) -> Vec<HookConfig> {
        // `.gemini/settings.json`, where Gemini CLI's hooks are, is a file of its chain.
        let _ = (cwd, ws, unread);
        Vec::new()
    }

    fn read_and_check(
        &self,
        setup: &Setup,
        session: &SessionOptions,
        cwd: &Path,
        ws: &Workspace,
        expected: &Expected,
    ) -> AgentCheck {
        let _ = setup;
        check::read_and_check(session, &Settings::default(), cwd, ws, expected)
    }
}

fn chain_options(setup: &Setup) -> chain::Options {
    chain::Options {
        home: setup.home.clone(),
    }
}

/// Besides the GEMINI.md chain (which holds `.gemini/settings.json` and the
/// files it imports), compared with the base: every `GEMINI.md` (one below
/// the working directory is sent once a tool reads a file in its folder),
/// the skills of `.agents/skills/` and `.gemini/skills/` (each one's
/// description reaches the model: measured at 0.60.0 and 0.61.0,
/// docs/gemini.md), the rest of the repository's Gemini CLI folder (custom
/// commands, workspace extensions with their own context files, which the
/// chain does not compute) and `.geminiignore`.
pub(crate) const BASE_GLOBS: &[(&str, &str)] = &[
    ("GEMINI.md", "**/GEMINI.md"),
    ("Gemini skill", "**/.agents/skills/**"),
    ("Gemini skill", "**/.gemini/skills/**"),
    ("Gemini config", "**/.gemini/**"),
    ("Gemini ignore file", "**/.geminiignore"),
];

/// What only Gemini CLI's check takes: nothing yet beyond the neutral
/// options (the record, its stdout and settings are all in agent-home).
#[derive(Clone, Debug, Default)]
pub(crate) struct Settings {}
