//! The instruction chain: the files an agent loads on its own (AGENTS.md for
//! Codex) and the text it sends from them, computed from the checkout the way
//! that agent computes it. The receipt records the files (`agents`) and the
//! text's hash (`agents_sha`) whichever agent it is.

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use super::AgentKind;
use crate::error::Error;
use crate::workspace::Workspace;

/// One file of the chain, as recorded in the receipt.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct AgentsFile {
    /// Relative to the workspace, or `$CODEX_HOME/...` (the agent's home) for
    /// a global file.
    pub path: String,
    /// The file's size on disk.
    pub bytes: u64,
    /// SHA-256 of the file's bytes.
    pub sha256: String,
    /// Cut by a budget (the agent sends only the start), or dropped after it ran out.
    pub truncated: bool,
}

#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Chain {
    /// Every file the agent would read, in the order it reads them.
    pub files: Vec<AgentsFile>,
    /// The instruction text the agent sends from them; `None` when empty.
    pub body: Option<String>,
    pub warnings: Vec<String>,
}

impl Chain {
    pub fn sha(&self) -> Option<String> {
        self.body
            .as_ref()
            .map(|b| crate::digest::sha256_hex(b.as_bytes()))
    }
}

/// How the agent is configured to read its chain.
#[derive(Clone, Debug)]
pub struct Options {
    pub kind: AgentKind,
    /// Codex: `project_doc_fallback_filenames`.
    pub fallback_names: Vec<String>,
    /// Codex: `project_doc_max_bytes`.
    pub max_bytes: u64,
    /// Codex: `project_root_markers`: `[".git"]` unless configured; empty means no walk up.
    pub root_markers: Vec<String>,
    /// The agent's home folder (codex-home), for its global file.
    pub home: Option<PathBuf>,
}

/// Reads the chain for an agent that ran in `cwd` (inside the workspace).
pub fn load(cwd: &Path, ws: &Workspace, opts: &Options) -> Result<Chain, Error> {
    match opts.kind {
        AgentKind::Codex => super::codex::chain::load(cwd, ws, opts),
        AgentKind::Claude => super::claude::chain::load(cwd, ws, opts),
        AgentKind::Gemini => super::gemini::chain::load(cwd, ws, opts),
    }
}

/// Every path, relative to the workspace, where the agent would look for a
/// chain file: a file added or removed at any of them changes what it reads.
pub fn candidate_paths(cwd: &Path, ws: &Workspace, opts: &Options) -> Vec<String> {
    match opts.kind {
        AgentKind::Codex => super::codex::chain::candidate_paths(cwd, ws, opts),
        AgentKind::Claude => super::claude::chain::candidate_paths(cwd, ws, opts),
        AgentKind::Gemini => super::gemini::chain::candidate_paths(cwd, ws, opts),
    }
}
