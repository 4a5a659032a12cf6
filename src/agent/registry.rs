//! The one place that lists the agents. A fourth agent is a folder beside
//! `codex/` that implements [`Agent`], and a line here.

use std::path::Path;

use super::kind::AgentKind;
use super::seam::{Agent, Given, Setup};
use crate::error::Error;

/// Every agent, in the order the documentation lists them.
pub(crate) fn all() -> Vec<AgentKind> {
    #[allow(unused_mut)]
    let mut all = vec![
        AgentKind::Codex,
        AgentKind::Claude,
        AgentKind::Gemini,
        AgentKind::Copilot,
    ];
    #[cfg(test)]
    all.push(AgentKind::Skeleton);
    all
}

/// The agent a workflow step runs, by the action it uses.
pub(crate) fn running(uses: impl Fn(&str) -> bool) -> Option<AgentKind> {
    all()
        .into_iter()
        .find(|k| agent(*k).about().actions.iter().any(|a| uses(a)))
}

/// The agent behind a kind.
pub(crate) fn agent(kind: AgentKind) -> &'static dyn Agent {
    match kind {
        AgentKind::Codex => &super::codex::Codex,
        AgentKind::Claude => &super::claude::Claude,
        AgentKind::Gemini => &super::gemini::Gemini,
        AgentKind::Copilot => &super::copilot::Copilot,
        #[cfg(test)]
        AgentKind::Skeleton => &super::skeleton::Skeleton,
    }
}

impl AgentKind {
    /// The receipt's and the input's word for it.
    pub(crate) fn as_str(self) -> &'static str {
        agent(self).about().word
    }

    /// The agent's name in a sentence.
    pub(crate) fn name(self) -> &'static str {
        agent(self).about().name
    }

    /// Its instruction files, as people call them.
    pub(crate) fn chain_name(self) -> &'static str {
        agent(self).about().chain_name
    }

    /// Paths besides its chain compared with the base, each with its kind.
    pub(crate) fn base_globs(self) -> &'static [(&'static str, &'static str)] {
        agent(self).about().base_globs
    }

    /// What the receipt cannot vouch for when it was given no record.
    pub(crate) fn without_home(self) -> &'static str {
        agent(self).about().without_home
    }

    /// The older name of a neutral input, for this agent: `codex-version`.
    pub(crate) fn alias(self, neutral: &str) -> Option<&'static str> {
        agent(self)
            .about()
            .aliases
            .iter()
            .find(|(n, _)| *n == neutral)
            .map(|(_, alias)| *alias)
    }

    /// The agent set up for this step: its own settings read from `home`.
    pub(crate) fn setup(self, home: Option<&Path>, given: Given) -> Result<Setup, Error> {
        Setup::new(agent(self), home, given)
    }
}
