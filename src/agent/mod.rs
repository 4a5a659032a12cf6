//! What the agent saw: the seam between the stages and the agents.
//!
//! Every agent answers the same questions, each in its own folder: which
//! inputs it takes, which instruction files it loads and how it puts them
//! together (its chain), what else its runtime runs or loads (its reach), how
//! to read its record of the run, and how that record is checked against what
//! the checkout predicts. The stages read only the agent-neutral answers: the
//! [`chain::Chain`] (files and the instruction text as sent), the
//! [`reach::Reach`] and the [`check::AgentCheck`] (problems, notes, the prompt
//! as sent, tokens, the context's hashes, the turns, and labelled facts for
//! the evidence table), through a [`seam::Setup`].
//!
//! Beside the agent's own reach, [`workflow`] finds what the agent workflow's
//! other steps run: they share the agent's job and its files.
//!
//! Adding an agent is one folder beside [`codex`] that implements
//! [`seam::Agent`], one [`AgentKind`] variant and one line in [`registry`]
//! (docs/adding-an-agent.md).

pub(crate) mod candidates;
pub(crate) mod chain;
pub(crate) mod check;
pub(crate) mod checklist;
pub mod claude;
pub mod codex;
pub mod copilot;
pub mod gemini;
pub(crate) mod kind;
pub(crate) mod reach;
pub(crate) mod redaction;
pub(crate) mod registry;
pub(crate) mod seam;
#[cfg(test)]
mod skeleton;
pub(crate) mod stream;
pub(crate) mod turns;
pub(crate) mod workflow;

pub(crate) use check::{AgentCheck, Expected, Fact, Skill, Tokens};
pub(crate) use kind::AgentKind;
pub(crate) use seam::{Given, SessionOptions, Setup};
