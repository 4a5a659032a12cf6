//! opencode (npm `opencode-ai`, 1.18.32–1.18.33), run as
//! `opencode run < prompt.md` (the prompt on standard input, sent unchanged).
//!
//! - inputs: `agent-home` (the agent job's `$HOME` as the collect action
//!   stages it: `.local/share/opencode/opencode.db` with the snapshot
//!   objects, `.config/opencode/` and `.claude/CLAUDE.md` for the global
//!   instructions and configuration);
//! - its chain: the global file, AGENTS.md (else CLAUDE.md, else
//!   CONTEXT.md) from the working directory up to the git root, and the
//!   configuration's `instructions` ([`chain`]);
//! - what its runtime runs: plugins, MCP servers, formatter and LSP
//!   commands, custom tools ([`reach`]);
//! - its record: the SQLite database ([`record`]), checked by the one
//!   checklist ([`check`]) and through the working tree each step
//!   snapshotted ([`snapshot`]).
//!
//! Declared by the registry (`src/agent/registry.rs`), so that the agent is
//! this folder, its variant and its line there.

pub(crate) mod chain;
pub(crate) mod check;
pub(crate) mod lint;
pub(crate) mod reach;
pub(crate) mod record;
pub(crate) mod snapshot;

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

/// What opencode is, for the registry.
pub(crate) const ABOUT: About = About {
    kind: AgentKind::Opencode,
    word: "opencode",
    name: "opencode",
    chain_name: "opencode instructions",
    without_home: "no agent-home: the receipt cannot vouch for what reached the agent (the \
        prompt, the working tree its instructions came from, the model, the tokens); give \
        this step as agent-home the agent job's home as the collect action uploaded it \
        (docs/opencode.md)",
    without_version: None,
    base_globs: BASE_GLOBS,
    pinned_globs: &[],
    // Its GitHub action (renamed with its repository), and the npm install
    // the example runs it from.
    actions: &[
        "anomalyco/opencode/github",
        "sst/opencode/github",
        "npm:opencode-ai",
    ],
    aliases: &[],
    drops_docker: false,
    instructions: is_instruction,
    fields: Fields {
        cwd: " (the answers' `path.cwd`, `session.directory`)",
        version: " (`session.version`)",
        commit: "",
        model: " (the answers' `providerID`/`modelID`)",
        tokens: " (the answers' `tokens`)",
        answer: " (the last answer's text part)",
        other_version: ": the version the agent job installed is not the one that ran",
    },
};

/// A file opencode reads as instructions by its name, at any level.
fn is_instruction(path: &str) -> bool {
    chain::NAMES.contains(&path.rsplit('/').next().unwrap_or(path))
}

/// opencode, for the registry.
pub(crate) struct Opencode;

impl Agent for Opencode {
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
        _cwd: &Path,
        _ws: &Workspace,
        _unread: &mut Vec<String>,
    ) -> Vec<HookConfig> {
        // Its hooks are plugins' code, listed in the reach: no hook writes
        // text into opencode's record.
        Vec::new()
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

/// Besides the chain, compared with the base (measured at 1.18.32 and
/// 1.18.33, docs/opencode.md): its instruction files at every level (a
/// nested `AGENTS.md` below the working directory is appended to a read
/// tool's result once the model reads a file there), the configuration at
/// any level, and the `.opencode/` folder (plugins and custom tools that
/// run, agents and commands that load), with the skills of `.claude/` and
/// `.agents/`. The most precise kind first: the first match names a file.
pub(crate) const BASE_GLOBS: &[(&str, &str)] = &[
    ("opencode plugin", "**/.opencode/plugins/**"),
    ("opencode plugin", "**/.opencode/plugin/**"),
    ("opencode custom tool", "**/.opencode/tools/**"),
    ("opencode custom tool", "**/.opencode/tool/**"),
    ("opencode agent", "**/.opencode/agents/**"),
    ("opencode agent", "**/.opencode/agent/**"),
    ("opencode skill", "**/.opencode/skills/**"),
    ("opencode skill", "**/.opencode/skill/**"),
    ("opencode skill", "**/.claude/skills/**"),
    ("opencode skill", "**/.agents/skills/**"),
    ("opencode config", "**/.opencode/**"),
    ("opencode config", "**/opencode.json"),
    ("opencode config", "**/opencode.jsonc"),
    ("opencode instructions", "**/AGENTS.md"),
    ("opencode instructions", "**/CLAUDE.md"),
    ("opencode instructions", "**/CONTEXT.md"),
];
