//! What the agent saw. Codex assembles the AGENTS.md [`chain`] from the
//! checkout, records the run in its [`session`] record, and [`sent`] checks the
//! two against each other: what reached the agent must be what the checkout
//! says it should have been.

pub mod chain;
pub mod config;
pub mod redaction;
pub mod sent;
pub mod session;
pub mod skills;
pub mod turns;
