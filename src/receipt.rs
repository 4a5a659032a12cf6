//! The receipt: the identity of every input that reached the agent, as recorded
//! in `usage.json`.
//!
//! Field names and meanings of the seed's recipe are kept (`prompt_path`,
//! `prompt_sha`, `tools_sha`, `git_describe`, `git_sha`) so receipts written by
//! its script and by this tool read the same.

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use crate::digest::LineEndings;

/// Bumped when a field changes meaning; readers check it.
pub const RECEIPT_VERSION: u32 = 1;

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Receipt {
    pub receipt_version: u32,
    /// Workspace-relative path of the prompt file; `null` for an inline prompt.
    pub prompt_path: Option<String>,
    /// SHA-256 of the prompt's exact bytes (an inline prompt: its UTF-8 bytes).
    pub prompt_sha: String,
    /// The prompt starts with a UTF-8 byte order mark.
    pub prompt_bom: bool,
    pub prompt_line_endings: LineEndings,
    pub prompt_template_path: Option<String>,
    pub prompt_template_sha: Option<String>,
    pub tools_path: String,
    /// `null` when the tools file does not exist.
    pub tools_sha: Option<String>,
    /// `null` for an inline schema.
    pub schema_path: Option<String>,
    pub schema_sha: String,
    pub output_path: String,
    /// `null` when the agent's output does not exist.
    pub output_sha: Option<String>,
    pub codex_version: Option<String>,
    pub codex_args: Option<String>,
    pub model: Option<String>,
    pub git_describe: String,
    pub git_sha: String,
    pub git_shallow: bool,
    /// The result of verifying identities recorded earlier (`run` mode only).
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub verification: Option<VerificationRecord>,
}

/// What verification found, kept in the receipt so a mismatch is never lost
/// when the fresh identities overwrite the recorded ones.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct VerificationRecord {
    pub verified: bool,
    pub mismatches: Vec<Mismatch>,
}

/// A recorded identity that differs from the one computed now.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Mismatch {
    pub field: String,
    pub recorded: Value,
    pub actual: Value,
}

/// Every top-level key this tool writes. Keys it does not produce in a run are
/// removed, so a stale value cannot pass for a fresh one.
pub const OWNED_KEYS: &[&str] = &[
    "receipt_version",
    "prompt_path",
    "prompt_sha",
    "prompt_bom",
    "prompt_line_endings",
    "prompt_template_path",
    "prompt_template_sha",
    "tools_path",
    "tools_sha",
    "schema_path",
    "schema_sha",
    "output_path",
    "output_sha",
    "codex_version",
    "codex_args",
    "model",
    "git_describe",
    "git_sha",
    "git_shallow",
    "verification",
];

impl Receipt {
    pub fn to_map(&self) -> Map<String, Value> {
        match serde_json::to_value(self).expect("a receipt always serializes") {
            Value::Object(map) => map,
            _ => unreachable!("a struct serializes to an object"),
        }
    }

    /// The first 7 hex digits of the prompt's SHA-256, as people quote it.
    pub fn prompt_short(&self) -> &str {
        &self.prompt_sha[..7.min(self.prompt_sha.len())]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_serialized_key_is_owned() {
        let r = Receipt {
            receipt_version: RECEIPT_VERSION,
            prompt_path: None,
            prompt_sha: "a".repeat(64),
            prompt_bom: false,
            prompt_line_endings: LineEndings::Lf,
            prompt_template_path: None,
            prompt_template_sha: None,
            tools_path: "t".into(),
            tools_sha: None,
            schema_path: None,
            schema_sha: "b".repeat(64),
            output_path: "o".into(),
            output_sha: None,
            codex_version: None,
            codex_args: None,
            model: None,
            git_describe: "d".into(),
            git_sha: "c".repeat(40),
            git_shallow: false,
            verification: Some(VerificationRecord {
                verified: true,
                mismatches: vec![],
            }),
        };
        for key in r.to_map().keys() {
            assert!(
                OWNED_KEYS.contains(&key.as_str()),
                "{key} is written but not owned"
            );
        }
        assert_eq!(r.to_map().len(), OWNED_KEYS.len());
    }
}
