//! GitHub Copilot CLI (1.0.80–1.0.102), installed by npm (`@github/copilot`)
//! and run as `copilot -p "$PROMPT" --allow-all-tools`.
//!
//! - inputs: `agent-home` (the agent job's `~/.copilot`: the session record,
//!   the user's instructions and settings);
//! - its chain: `.github/copilot-instructions.md`, `AGENTS.md`, `CLAUDE.md`,
//!   `GEMINI.md`, the working directory's, and `.github/instructions/`
//!   ([`chain`]);
//! - what its runtime runs: hooks, MCP servers ([`reach`]);
//! - its record: `~/.copilot/session-state/<id>/events.jsonl` ([`record`]);
//! - the check of the record against the checkout ([`check`]).

pub(crate) mod chain;
pub mod check;
pub(crate) mod lint;
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
use crate::rule::{AgentJob, Finding, Rule};
use crate::workspace::Workspace;

/// What Copilot CLI is, for the registry.
const ABOUT: About = About {
    kind: AgentKind::Copilot,
    word: "copilot",
    name: "Copilot CLI",
    chain_name: "Copilot instructions",
    without_home: "no agent-home: the receipt cannot vouch for what reached the agent (the \
        prompt, the instruction files inside the system prompt, the model, the tokens); give \
        this step as agent-home the agent job's ~/.copilot as uploaded (docs/copilot.md)",
    without_version: None,
    base_globs: BASE_GLOBS,
    pinned_globs: &[],
    // No action of its own: the lint knows it by its npm install.
    actions: &["npm:@github/copilot"],
    aliases: &[],
    drops_docker: false,
    instructions: is_instruction,
    fields: Fields {
        cwd: " (`session.start` `context.cwd`)",
        version: " (`session.start` `copilotVersion`)",
        commit: " (`session.start` `headCommit`)",
        model: "",
        tokens: " (`session.shutdown`, `session.usage_record`)",
        answer: "",
        other_version: ": the npm loader runs a newer cached package unless COPILOT_AUTO_UPDATE=false",
    },
};
/// Any file Copilot CLI reads as instructions, at any level.
fn is_instruction(path: &str) -> bool {
    let name = path.rsplit('/').next().unwrap_or(path);
    [
        "AGENTS.md",
        "CLAUDE.md",
        "GEMINI.md",
        "copilot-instructions.md",
    ]
    .contains(&name)
        || name.ends_with(".instructions.md")
}

/// Copilot CLI, for the registry.
pub(crate) struct Copilot;

impl Agent for Copilot {
    fn about(&self) -> &'static About {
        &ABOUT
    }

    fn chain(&self, setup: &Setup, cwd: &Path, ws: &Workspace) -> Result<Chain, Error> {
        chain::load(cwd, ws, &chain_options(setup))
    }

    fn candidate_paths(&self, _setup: &Setup, cwd: &Path, ws: &Workspace) -> Vec<String> {
        chain::candidate_paths(cwd, ws)
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
        reach::hook_configs(cwd, ws, unread)
    }

    fn read_and_check(
        &self,
        _setup: &Setup,
        session: &SessionOptions,
        cwd: &Path,
        ws: &Workspace,
        expected: &Expected,
    ) -> AgentCheck {
        check::read_and_check(session, cwd, ws, expected)
    }

    fn lint_rules(&self) -> &'static [Rule] {
        lint::RULES
    }

    fn lint(&self, job: &AgentJob, out: &mut Vec<Finding>) {
        lint::lint(job, out);
    }
}

fn chain_options(setup: &Setup) -> chain::Options {
    chain::Options {
        home: setup.home.clone(),
    }
}

/// Besides the chain, compared with the base: what a pull request can change
/// of Copilot CLI's runtime and of the text it sends (measured at 1.0.80 and
/// 1.0.102, docs/copilot.md). At the git root and in the working directory:
/// the instruction folder as a whole (a new narrow `.instructions.md` is
/// listed to the model), `.claude/rules/` (1.0.102 sends each file's text),
/// skills of `.github/skills/`, `.claude/skills/` and `.agents/skills/` and
/// the commands of `.claude/commands/` (each one's description reaches the
/// system prompt), custom agents of `.github/agents/` and `.claude/agents/`
/// (each one's description reaches the `task` tool). In any folder:
/// `AGENTS.md`, `CLAUDE.md`, `GEMINI.md` and `.github/copilot-instructions.md`,
/// which it sends once a tool reads a file in that folder. Then hooks,
/// repository settings and MCP configurations. Each folder is matched at any
/// depth: a working directory below the root has its own.
pub(crate) const BASE_GLOBS: &[(&str, &str)] = &[
    ("Copilot instructions", "**/.github/instructions/**"),
    ("Copilot instructions", "**/.claude/rules/**"),
    ("Copilot instructions", "**/AGENTS.md"),
    ("Copilot instructions", "**/CLAUDE.md"),
    ("Copilot instructions", "**/GEMINI.md"),
    ("Copilot instructions", "**/.github/copilot-instructions.md"),
    ("Copilot hooks", ".github/hooks/**"),
    ("Copilot settings", ".github/copilot/**"),
    ("Copilot custom agent", "**/.github/agents/**"),
    ("Copilot custom agent", "**/.claude/agents/**"),
    ("Copilot skill", "**/.github/skills/**"),
    ("Copilot skill", "**/.claude/skills/**"),
    ("Copilot skill", "**/.agents/skills/**"),
    ("Copilot skill", "**/.claude/commands/**"),
    ("MCP configuration", ".mcp.json"),
    ("MCP configuration", ".github/mcp.json"),
];
