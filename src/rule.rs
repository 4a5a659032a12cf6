//! What a rule of the workflow lint is, what it finds, and the job it reads:
//! below both the lint ([`crate::lint`], the rules every agent shares) and
//! the agents (each folder's own rules, through
//! [`Agent::lint`](crate::agent::seam::Agent::lint)), so that neither has to
//! import the other.

use crate::level::Level;
use crate::workflow::Step;

/// A rule: its name, its level, and what it catches.
pub struct Rule {
    pub name: &'static str,
    pub level: Level,
    pub catches: &'static str,
}

/// One finding of a rule, before it is given its file.
pub(crate) struct Finding {
    pub level: Level,
    pub(crate) rule: &'static str,
    pub(crate) line: u64,
    pub(crate) message: String,
}

/// The one way a rule words what it found: which rule, how serious, where.
pub(crate) fn finding(rule: &'static str, level: Level, line: u64, message: String) -> Finding {
    Finding {
        level,
        rule,
        line,
        message,
    }
}

/// Whether the version a `run:` step installs an npm package at (as
/// [`Step::npm_install`] reads it) is exact: a literal, or a variable of the
/// step's or workflow's env that is one (one set by an expression is the
/// run's to know, and passes).
pub(crate) fn exact_npm_version(step: &Step, version: Option<&str>) -> bool {
    match version {
        Some(v) if v.starts_with('$') => {
            let name = v.trim_start_matches('$').trim_matches(['{', '}']);
            match step.env_var(name) {
                Some(Some(v)) => crate::version::is_exact_version(v.trim()),
                Some(None) => true,
                None => false,
            }
        }
        Some(v) => crate::version::is_exact_version(v),
        None => false,
    }
}

/// One job as an agent's own rules read it: its steps, and which of them
/// run this agent, any agent, prompt-receipt, or a container. Each list
/// holds indices into `steps`, in the order of the steps.
pub(crate) struct AgentJob<'j, 'a> {
    pub(crate) steps: &'j [Step<'a>],
    /// The steps that run this agent.
    pub(crate) runs: &'j [usize],
    /// The steps that run any agent, this one included.
    pub(crate) agents: &'j [usize],
    /// The prompt-receipt steps that read or record a run (all but
    /// `mode: restore`).
    pub(crate) receipts: &'j [usize],
    /// The prompt-receipt steps of `mode: restore`: before the agent, they
    /// put back the base's configuration and its prompt.
    pub(crate) restores: &'j [usize],
    /// The steps the runner starts as a container (prompt-receipt,
    /// `docker://`, a local `using: docker` action).
    pub(crate) containers: &'j [usize],
}
