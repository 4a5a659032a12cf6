//! What the agent saw: the seam between the stages and the agents.
//!
//! Every agent answers the same four questions, each in its own folder:
//! which inputs it takes, which instruction files it loads and how it puts
//! them together (its chain), how to read its record of the run, and how that
//! record is checked against what the checkout predicts. The receipt, verify
//! and report stages read only the agent-neutral answers: the [`chain::Chain`]
//! (files and the instruction text as sent) and the [`check::AgentCheck`]
//! (problems, notes, the prompt as sent, tokens, the context's hashes, the
//! turns, and labelled facts for the evidence table).
//!
//! Adding an agent is one folder beside [`codex`] and one [`AgentKind`]
//! variant: the compiler then names every `match` that must learn it.

pub mod chain;
pub mod check;
pub mod claude;
pub mod codex;
pub mod gemini;
pub mod reach;
pub mod redaction;
pub mod turns;

use std::path::Path;

use serde::{Deserialize, Serialize};

pub use check::{AgentCheck, Expected, Fact, Skill, Tokens};

use crate::error::Error;
use crate::workspace::Workspace;

/// The agents prompt-receipt knows: the input `agent` and the receipt's
/// `agent` field.
#[derive(
    Copy, Clone, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize, clap::ValueEnum,
)]
#[serde(rename_all = "lowercase")]
pub enum AgentKind {
    /// OpenAI Codex CLI, as openai/codex-action runs it.
    #[default]
    Codex,
    /// Claude Code, as anthropics/claude-code-action runs it.
    Claude,
    /// Google Gemini CLI, as google-github-actions/run-gemini-cli runs it.
    Gemini,
}

impl AgentKind {
    /// The receipt's and the input's word for it.
    pub fn as_str(self) -> &'static str {
        match self {
            AgentKind::Codex => "codex",
            AgentKind::Claude => "claude",
            AgentKind::Gemini => "gemini",
        }
    }

    /// The agent's name in a sentence.
    pub fn name(self) -> &'static str {
        match self {
            AgentKind::Codex => "Codex",
            AgentKind::Claude => "Claude Code",
            AgentKind::Gemini => "Gemini CLI",
        }
    }

    /// Its instruction files, as people call them.
    pub fn chain_name(self) -> &'static str {
        match self {
            AgentKind::Codex => "AGENTS.md",
            AgentKind::Claude => "CLAUDE.md",
            AgentKind::Gemini => "GEMINI.md",
        }
    }

    /// Paths in the repository, besides its chain, whose change between the
    /// base and the pull request changes what this agent receives: compared
    /// with the base, each with the kind the summary names it by (the first
    /// that matches wins, so hooks come before the config they are in).
    pub fn base_globs(self) -> &'static [(&'static str, &'static str)] {
        match self {
            AgentKind::Codex => codex::BASE_GLOBS,
            AgentKind::Claude => claude::chain::BASE_GLOBS,
            AgentKind::Gemini => gemini::BASE_GLOBS,
        }
    }

    /// What its runtime runs or loads from the repository besides its chain
    /// (hook scripts, MCP servers, `.env`, files settings name), found from
    /// the checkout's configuration and, when given, the agent's home.
    pub fn reach(self, workdir: &Path, ws: &Workspace, home: Option<&Path>) -> reach::Reach {
        match self {
            AgentKind::Codex => codex::reach::reach(workdir, ws, home),
            AgentKind::Claude => claude::reach::reach(workdir, ws, home),
            AgentKind::Gemini => gemini::reach::reach(workdir, ws, home),
        }
    }

    /// What the receipt cannot vouch for when it was given no record.
    pub fn without_home(self) -> &'static str {
        match self {
            AgentKind::Codex => {
                "no codex-home: the receipt cannot vouch for what reached the agent (the \
                 prompt and AGENTS.md as sent, the CLI version, the tokens); give this step the same \
                 codex-home as openai/codex-action"
            }
            AgentKind::Claude => {
                "no agent-home: the receipt cannot vouch for what reached the agent (the \
                 prompt and CLAUDE.md chain as sent, the CLI version, the tokens); give this step as \
                 agent-home the folder the agent job uploaded (docs/claude.md)"
            }
            AgentKind::Gemini => {
                "no agent-home: the receipt cannot vouch for what reached the agent (the \
                 prompt and GEMINI.md chain as sent, the model, the tokens); give this step as \
                 agent-home the agent job's ~/.gemini as uploaded (docs/gemini.md)"
            }
        }
    }

    /// The input that names the folder holding the agent's record of the run.
    pub fn home_input(self) -> &'static str {
        match self {
            AgentKind::Codex => "codex-home",
            AgentKind::Claude => "agent-home",
            AgentKind::Gemini => "agent-home",
        }
    }
}

impl AgentKind {
    /// The agent a receipt names (`agent`), Codex for receipts written before it.
    pub fn of_receipt(receipt: &serde_json::Map<String, serde_json::Value>) -> AgentKind {
        receipt
            .get("agent")
            .and_then(|v| serde_json::from_value(v.clone()).ok())
            .unwrap_or_default()
    }
}

/// Where the agent's record of the run is, and what else to hold it to.
#[derive(Clone, Debug)]
pub struct SessionOptions {
    /// The folder the record is in (codex-home for Codex), as seen from here.
    pub home: std::path::PathBuf,
    /// The session to read, when the folder holds several.
    pub session_id: Option<String>,
    /// The circuit breaker: more tokens than this is a problem.
    pub max_total_tokens: Option<u64>,
    /// What more than one turn, a compaction or a model switch does.
    pub single_turn: turns::SingleTurn,
    /// What only one agent takes: the variant says which agent it is.
    pub agent: AgentOptions,
}

/// Each agent's own settings for the check of its record.
#[derive(Clone, Debug)]
pub enum AgentOptions {
    Codex(codex::Settings),
    Claude(claude::Settings),
    Gemini(gemini::Settings),
}

impl SessionOptions {
    pub fn kind(&self) -> AgentKind {
        match self.agent {
            AgentOptions::Codex(_) => AgentKind::Codex,
            AgentOptions::Claude(_) => AgentKind::Claude,
            AgentOptions::Gemini(_) => AgentKind::Gemini,
        }
    }
}

/// Finds the agent's record of this run, reads it and checks it against what
/// the checkout predicts. A record that cannot be found or read is a
/// problem in the result, not an error: the receipt is still written.
pub fn read_and_check(
    opts: &SessionOptions,
    workdir: &Path,
    ws: &Workspace,
    expected: &Expected,
) -> AgentCheck {
    let mut check = match &opts.agent {
        AgentOptions::Codex(settings) => {
            codex::read_and_check(opts, settings, workdir, ws, expected)
        }
        AgentOptions::Claude(settings) => {
            claude::read_and_check(opts, settings, workdir, ws, expected)
        }
        AgentOptions::Gemini(settings) => {
            gemini::read_and_check(opts, settings, workdir, ws, expected)
        }
    };
    check.kind = opts.kind();
    check
}

/// The hook configurations that can add text to this agent's input (the
/// receipt's `hooks`): from its home (`home_hooks`, what Codex's config
/// gives) and from the repository; and a sentence for each that is there
/// but cannot be read safely (a link out of the checkout, a FIFO), whose
/// hooks nobody can see.
pub fn hook_configs(
    kind: AgentKind,
    home_hooks: &[turns::HookConfig],
    workdir: &Path,
    ws: &Workspace,
    home: Option<&Path>,
) -> (Vec<turns::HookConfig>, Vec<String>) {
    let mut unread = Vec::new();
    let configs = match kind {
        AgentKind::Codex => codex::hook_configs(home_hooks, workdir, ws, &mut unread),
        AgentKind::Claude => claude::hook_configs(workdir, ws, home, &mut unread),
        // `.gemini/settings.json`, where Gemini CLI's hooks are, is a file of its chain.
        AgentKind::Gemini => Vec::new(),
    };
    (configs, unread)
}

/// Where the folder holding the agent's record is, inside the container.
pub fn resolve_home(
    kind: AgentKind,
    given: &str,
    ws: &Workspace,
    runner_temp: Option<&Path>,
) -> Result<std::path::PathBuf, Error> {
    crate::workspace::resolve_host_folder(kind.home_input(), given, ws, runner_temp)
}
