//! The instruction chain: the files an agent loads on its own (AGENTS.md for
//! Codex) and the text it sends from them, computed from the checkout the way
//! that agent computes it ([`super::seam::Setup::chain`]). The receipt
//! records the files (`agents`) and the text's hash (`agents_sha`) whichever
//! agent it is.

use serde::{Deserialize, Serialize};

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
