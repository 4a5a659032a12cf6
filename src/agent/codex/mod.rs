//! OpenAI Codex CLI, as openai/codex-action runs it.
//!
//! - inputs: `codex-home` (the record and the global AGENTS.md), `codex-args`,
//!   `codex-version`, `model`, `effort`, `permission-profile`,
//!   `default-branch-instructions` ([`Settings`], [`config`]);
//! - its chain: AGENTS.md from the project root down to the working directory
//!   ([`chain`]);
//! - its record: the rollout under `$CODEX_HOME/sessions` ([`session`]);
//! - the check of the record against the checkout ([`check`]), with the
//!   repository's skills ([`skills`]).

pub mod chain;
pub mod check;
pub mod config;
pub mod reach;
pub mod session;
pub mod skills;

use std::path::Path;

use crate::agent::turns::HookConfig;
use crate::workspace::Workspace;

pub use check::read_and_check;

/// Besides the AGENTS.md chain, compared with the base: skills (listed to
/// the model), the repository's hooks and the rest of its Codex config.
pub const BASE_GLOBS: &[(&str, &str)] = &[
    ("skill", "**/.agents/skills/**"),
    ("Codex hooks", "**/.codex/hooks.json"),
    ("Codex config", "**/.codex/**"),
];

/// The hook configurations: codex-home's (read with its config), then the
/// repository's `.codex/hooks.json` at the root and in the working directory
/// (Codex loads them for a trusted project).
pub fn hook_configs(
    home: &[HookConfig],
    workdir: &Path,
    ws: &Workspace,
    unread: &mut Vec<String>,
) -> Vec<HookConfig> {
    let mut all = home.to_vec();
    let mut dirs = vec![ws.root().to_path_buf()];
    if workdir != ws.root() {
        dirs.push(workdir.to_path_buf());
    }
    let root = std::fs::canonicalize(ws.root()).unwrap_or_else(|_| ws.root().to_path_buf());
    for dir in dirs {
        let path = dir.join(".codex/hooks.json");
        match crate::workspace::read_contained(&path, &[&root], 1 << 20) {
            Ok(bytes) => all.push(HookConfig {
                path: ws.relative(&path),
                sha256: crate::digest::sha256_hex(&bytes),
            }),
            Err(crate::workspace::Unread::Missing) => {}
            // A link out of the checkout, a FIFO: hooks nobody can see.
            Err(why) => unread.push(why.why(&ws.relative(&path))),
        }
    }
    all
}

/// What only Codex's check takes.
#[derive(Clone, Debug, Default)]
pub struct Settings {
    /// `developer_instructions` as Codex's settings give it: what the
    /// developer message must begin with.
    pub developer_instructions: Option<String>,
    /// What this step was told codex-action ran with.
    pub effort: Option<String>,
    pub permission_profile: Option<String>,
    /// codex-action's `default-branch` mode: the agent saw the default
    /// branch's AGENTS files, from `$CODEX_HOME/AGENTS.override.md`.
    pub default_branch_instructions: bool,
}
