//! Which agent ran: the input `agent` and the receipt's `agent` field. What
//! each one is and does is asked of the [registry](super::registry).

use serde::{Deserialize, Serialize};

/// The agents prompt-receipt knows, as the command line and the receipt
/// spell them.
#[derive(
    Copy, Clone, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize, clap::ValueEnum,
)]
#[serde(rename_all = "lowercase")]
pub(crate) enum AgentKind {
    /// OpenAI Codex CLI, as openai/codex-action runs it.
    #[default]
    Codex,
    /// Claude Code, as anthropics/claude-code-action runs it.
    Claude,
    /// Google Gemini CLI, as google-github-actions/run-gemini-cli runs it.
    Gemini,
    /// GitHub Copilot CLI, installed by npm (`@github/copilot`).
    Copilot,
    /// opencode, installed by npm (`opencode-ai`), run as `opencode run`.
    Opencode,
    /// The skeleton of a fourth agent, for the seam's test only.
    #[cfg(test)]
    #[value(skip)]
    Skeleton,
}

impl AgentKind {
    /// The agent a receipt names (`agent`), Codex for receipts written before it.
    pub(crate) fn of_receipt(receipt: &serde_json::Map<String, serde_json::Value>) -> AgentKind {
        receipt
            .get("agent")
            .and_then(|v| serde_json::from_value(v.clone()).ok())
            .unwrap_or_default()
    }
}
