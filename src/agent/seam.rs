//! The seam every agent plugs into: what a step was told of the run
//! ([`Given`]), the agent as this step set it up ([`Setup`]), and the one
//! trait each agent's folder implements ([`Agent`]). The stages above see
//! only these and the neutral answers ([`super::chain::Chain`],
//! [`super::check::AgentCheck`], [`super::reach::Reach`]); which agent
//! answers is the [registry](super::registry)'s business.

use std::any::Any;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use super::chain::Chain;
use super::check::{AgentCheck, Expected};
use super::kind::AgentKind;
use super::reach::Reach;
use super::turns::{HookConfig, SingleTurn};
use crate::error::Error;
use crate::rule::{AgentJob, Finding, Rule};
use crate::workspace::Workspace;

/// What the step was told of the agent run, in words that fit every agent
/// (each reads what it needs; `agent-version` is Claude Code's
/// `claude-version` and Codex's `codex-version`).
#[derive(Clone, Debug, Default)]
pub(crate) struct Given {
    /// `agent-version`: the exact CLI release the agent job installed.
    pub(crate) version: Option<String>,
    /// `agent-args`: the extra arguments the agent's action was given.
    pub(crate) args: Option<String>,
    /// `effort`, `permission-profile`: what the agent step was set to run with.
    pub(crate) effort: Option<String>,
    pub(crate) permission_profile: Option<String>,
    /// `default-branch-instructions`: the agent saw the default branch's
    /// instruction files, not the checkout's.
    pub(crate) default_branch_instructions: bool,
    /// `project-doc-max-bytes` and `agents-fallback-filenames`: how the
    /// agent was told to read its chain.
    pub(crate) chain_max_bytes: Option<u64>,
    pub(crate) chain_fallback_names: Vec<String>,
}

/// The agent as this step set it up: which agent, the folder of its record,
/// what the step was told, and the agent's own settings read from its home
/// (read once, by [`Agent::configure`], so that a bad one is one error).
#[derive(Clone)]
pub(crate) struct Setup {
    pub(crate) kind: AgentKind,
    pub(crate) home: Option<PathBuf>,
    pub(crate) given: Given,
    agent: &'static dyn Agent,
    own: Arc<dyn Any + Send + Sync>,
}

impl std::fmt::Debug for Setup {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Setup")
            .field("kind", &self.kind)
            .field("home", &self.home)
            .field("given", &self.given)
            .finish_non_exhaustive()
    }
}

impl Setup {
    pub(crate) fn new(
        agent: &'static dyn Agent,
        home: Option<&Path>,
        given: Given,
    ) -> Result<Setup, Error> {
        let own = agent.configure(&given, home)?;
        Ok(Setup {
            kind: agent.about().kind,
            home: home.map(Path::to_path_buf),
            given,
            agent,
            own,
        })
    }

    /// The agent's own settings, as its `configure` made them.
    pub(crate) fn own<T: Any>(&self) -> Option<&T> {
        self.own.downcast_ref()
    }

    /// Said when the step was not told the agent's version and nothing else
    /// will say it.
    pub(crate) fn without_version(&self) -> Option<&'static str> {
        self.given
            .version
            .is_none()
            .then_some(self.agent.about().without_version)
            .flatten()
    }

    /// Its instruction chain, computed from the checkout as it loads it.
    pub(crate) fn chain(&self, cwd: &Path, ws: &Workspace) -> Result<Chain, Error> {
        self.agent.chain(self, cwd, ws)
    }

    /// Every path, relative to the workspace, where it would look for a chain
    /// file: a file added or removed at any of them changes what it reads.
    pub(crate) fn candidate_paths(&self, cwd: &Path, ws: &Workspace) -> Vec<String> {
        self.agent.candidate_paths(self, cwd, ws)
    }

    /// What its runtime runs or loads besides the chain.
    pub(crate) fn reach(&self, cwd: &Path, ws: &Workspace) -> Reach {
        self.agent.reach(self, cwd, ws)
    }

    /// The hook configurations that can add text to its input (the receipt's
    /// `hooks`), and a sentence for each there but unreadable.
    pub(crate) fn hook_configs(
        &self,
        cwd: &Path,
        ws: &Workspace,
    ) -> (Vec<HookConfig>, Vec<String>) {
        let mut unread = Vec::new();
        let configs = self.agent.hook_configs(self, cwd, ws, &mut unread);
        (configs, unread)
    }

    /// Finds its record of this run, reads it and checks it against what the
    /// checkout predicts. A record that cannot be found or read is a problem
    /// in the result, not an error: the receipt is still written.
    pub(crate) fn read_and_check(
        &self,
        session: &SessionOptions,
        cwd: &Path,
        ws: &Workspace,
        expected: &Expected,
    ) -> AgentCheck {
        let mut check = self.agent.read_and_check(self, session, cwd, ws, expected);
        check.kind = self.kind;
        check
    }
}

/// Where the agent's record is, and what else to hold it to, whichever agent.
#[derive(Clone, Debug)]
pub(crate) struct SessionOptions {
    /// The folder the record is in (the agent home).
    pub(crate) home: PathBuf,
    /// The session to read, when the folder holds several.
    pub(crate) session_id: Option<String>,
    /// The circuit breaker: more tokens than this is a problem.
    pub(crate) max_total_tokens: Option<u64>,
    /// What more than one turn, a compaction or a model switch does.
    pub(crate) single_turn: SingleTurn,
}

/// What an agent is, in words and names: its facts, one constant per agent.
pub(crate) struct About {
    pub(crate) kind: AgentKind,
    /// The receipt's and the input's word for it: `codex`.
    pub(crate) word: &'static str,
    /// Its name in a sentence: `Claude Code`.
    pub(crate) name: &'static str,
    /// Its instruction files, as people call them: `GEMINI.md`.
    pub(crate) chain_name: &'static str,
    /// What the receipt cannot vouch for when it was given no record.
    pub(crate) without_home: &'static str,
    /// Said when `agent-version` was not given and nothing else will say it.
    pub(crate) without_version: Option<&'static str>,
    /// Paths besides its chain whose change between the base and the pull
    /// request changes what it receives: (kind, glob), first match wins.
    pub(crate) base_globs: &'static [(&'static str, &'static str)],
    /// Instruction files it may load at any level that `base_globs` leaves
    /// to the chain (which names only the working directory's): put back
    /// with the rest of its configuration before it runs (`mode: restore`).
    pub(crate) pinned_globs: &'static [(&'static str, &'static str)],
    /// The actions that run it in a workflow (`uses:` without the ref), or
    /// `npm:<package>` for an agent a `run:` step installs by npm.
    pub(crate) actions: &'static [&'static str],
    /// The older names its action's users know a neutral input by:
    /// (`agent-version`, `codex-version`).
    pub(crate) aliases: &'static [Alias],
    /// Its action takes Docker from the steps after it in its job
    /// (codex-action's default `safety-strategy: drop-sudo`): a receipt step
    /// there cannot start, which the agent's own lint says, rather than read
    /// files the agent could have rewritten.
    pub(crate) drops_docker: bool,
    /// Whether a path (relative to the workspace when it is in it) is one of
    /// its instruction files by name: an agent that writes one changes what
    /// the agents after it read.
    pub(crate) instructions: fn(&str) -> bool,
    /// Where its record keeps what the checklist reads.
    pub(crate) fields: Fields,
}

/// An older name of a neutral input: (`agent-version`, `codex-version`).
pub(crate) struct Alias {
    pub(crate) neutral: &'static str,
    pub(crate) older: &'static str,
    /// Every agent reads it, after its own names: it was once every agent's.
    pub(crate) shared: bool,
}

impl Alias {
    /// An older name that only its agent reads.
    pub(crate) const fn own(neutral: &'static str, older: &'static str) -> Alias {
        Alias {
            neutral,
            older,
            shared: false,
        }
    }

    /// An older name that every agent reads, after its own names.
    pub(crate) const fn shared(neutral: &'static str, older: &'static str) -> Alias {
        Alias {
            neutral,
            older,
            shared: true,
        }
    }
}

/// Where an agent's record keeps what the checklist reads, for the sentence
/// that says a record lacks it: "(`event_msg` `token_count`)".
pub(crate) struct Fields {
    pub(crate) cwd: &'static str,
    pub(crate) version: &'static str,
    pub(crate) commit: &'static str,
    pub(crate) model: &'static str,
    pub(crate) tokens: &'static str,
    pub(crate) answer: &'static str,
    /// Said after a version other than the step's: why it happens.
    pub(crate) other_version: &'static str,
}

/// One agent: its folder implements this, and the registry lists it.
pub(crate) trait Agent: Sync {
    fn about(&self) -> &'static About;
    /// Its own settings, read once from what the step was given and its home.
    fn configure(
        &self,
        _given: &Given,
        _home: Option<&Path>,
    ) -> Result<Arc<dyn Any + Send + Sync>, Error> {
        Ok(Arc::new(()))
    }
    fn chain(&self, setup: &Setup, cwd: &Path, ws: &Workspace) -> Result<Chain, Error>;
    fn candidate_paths(&self, setup: &Setup, cwd: &Path, ws: &Workspace) -> Vec<String>;
    fn reach(&self, setup: &Setup, cwd: &Path, ws: &Workspace) -> Reach;
    fn hook_configs(
        &self,
        setup: &Setup,
        cwd: &Path,
        ws: &Workspace,
        unread: &mut Vec<String>,
    ) -> Vec<HookConfig>;
    fn read_and_check(
        &self,
        setup: &Setup,
        session: &SessionOptions,
        cwd: &Path,
        ws: &Workspace,
        expected: &Expected,
    ) -> AgentCheck;
    /// Its own rules of the workflow lint (its action's inputs, how it is
    /// installed), for the table of rules: none unless it has some.
    fn lint_rules(&self) -> &'static [Rule] {
        &[]
    }
    /// Its own rules over one job of a workflow: the steps that run it
    /// (`job.runs`), and the receipt and container steps around them.
    fn lint(&self, _job: &AgentJob, _out: &mut Vec<Finding>) {}
}
