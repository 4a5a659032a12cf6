//! The receipt: the identity of every input that reached the agent, as recorded
//! in `usage.json`.
//!
//! [`identities`] hashes the sources and asks [`git`]; the [`Receipt`] is kept
//! in the usage file by [`usage_file`] (written as Python writes JSON, by
//! [`pyjson`]), recomputed by [`verify`], and restated for attestation by
//! [`attest`].
//!
//! Field names and meanings of the original recipe are kept (`prompt_path`,
//! `prompt_sha`, `tools_sha`, `git_describe`, `git_sha`) so receipts written by
//! its script and by this tool read the same.

pub(crate) mod attest;
pub(crate) mod identities;
pub mod pyjson;
pub(crate) mod statement;
pub mod usage_file;
pub(crate) mod verify;

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use crate::digest::LineEndings;

/// Bumped when a field changes meaning; readers check it.
pub(crate) const RECEIPT_VERSION: u32 = 1;

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub(crate) struct Receipt {
    pub(crate) receipt_version: u32,
    /// Workspace-relative path of the prompt file; `null` for an inline prompt.
    pub(crate) prompt_path: Option<String>,
    /// SHA-256 of the prompt's exact bytes (an inline prompt: its UTF-8 bytes).
    pub(crate) prompt_sha: String,
    /// The prompt starts with a UTF-8 byte order mark.
    pub(crate) prompt_bom: bool,
    pub(crate) prompt_line_endings: LineEndings,
    pub(crate) prompt_template_path: Option<String>,
    pub(crate) prompt_template_sha: Option<String>,
    pub(crate) tools_path: String,
    /// `null` when the tools file does not exist.
    pub(crate) tools_sha: Option<String>,
    /// `null` for an inline schema.
    pub(crate) schema_path: Option<String>,
    pub(crate) schema_sha: String,
    /// The frozen pull-request diff the review ran on, or `null`.
    pub(crate) fixture_path: Option<String>,
    pub(crate) fixture_sha: Option<String>,
    pub(crate) output_path: String,
    /// `null` when the agent's output does not exist.
    pub(crate) output_sha: Option<String>,
    pub(crate) codex_version: Option<String>,
    pub(crate) codex_args: Option<String>,
    pub(crate) model: Option<String>,
    pub(crate) git_describe: String,
    pub(crate) git_sha: String,
    pub(crate) git_shallow: bool,
    /// The agent's output checked against the schema (`run` mode only).
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub(crate) validation: Option<ValidationRecord>,
    /// How many findings the review reported (`run` mode only).
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub(crate) findings_count: Option<usize>,
    /// The review's own `ok`, when it has one.
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub(crate) ok: Option<bool>,
    /// Findings counted by severity (`unknown` for none or an unknown word).
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub(crate) findings_by_severity: Option<BTreeMap<String, usize>>,
    /// The agent whose instructions, chain and record the receipt covers
    /// (`codex`, the default, when absent: receipts written before it).
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub(crate) agent: Option<crate::agent::AgentKind>,
    /// The instruction chain as the agent reads it (AGENTS.md for Codex), file by file.
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub(crate) agents: Option<Vec<crate::agent::chain::AgentsFile>>,
    /// SHA-256 of the instruction body Codex sends; `null` when the chain is empty.
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub(crate) agents_sha: Option<Option<String>>,
    /// SHA-256 of the prompt as the agent received it (with `codex-home`).
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub(crate) prompt_sent_sha: Option<String>,
    /// Codex's session record of this run.
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub(crate) transcript: Option<crate::agent::check::TranscriptRecord>,
    /// Tokens the session used.
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub(crate) tokens: Option<crate::agent::Tokens>,
    /// The session's settings as Codex recorded them.
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub(crate) session: Option<crate::agent::check::SessionRecord>,
    /// SHA-256 of the messages Codex sent between its base instructions and
    /// the prompt, canonically serialized (`run`, codex-home).
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub(crate) context_sha: Option<String>,
    /// Its parts: the base instructions as Codex recorded them, the developer
    /// message, the environment context.
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub(crate) base_instructions_sha: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub(crate) developer_sha: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub(crate) environment_sha: Option<String>,
    /// Every turn of the session: its model, the hashes of its prompt and
    /// context, and each model-visible item no input covers (hooks,
    /// compaction summaries, later messages), hashes only.
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub(crate) turns: Option<Vec<crate::agent::turns::Turn>>,
    /// Every model the session used, in order; `model` is the one whose
    /// answer is the output.
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub(crate) models: Option<Vec<String>>,
    /// The hook configurations that can add text to the model's input.
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub(crate) hooks: Option<Vec<crate::agent::turns::HookConfig>>,
    /// What the agent's runtime runs or loads from the repository besides
    /// its chain (hook scripts, MCP servers, `.env`, files settings name).
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub(crate) runtime: Option<Vec<crate::agent::reach::RuntimeFile>>,
    /// The skills Codex listed to the model.
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub(crate) skills: Option<Vec<crate::agent::Skill>>,
    /// codex-action's `safety-strategy`, as given to this step.
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub(crate) safety_strategy: Option<String>,
    /// The trusted base and every instruction file that differs from it.
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub(crate) base: Option<crate::base::BaseRecord>,
    /// Whose output schema judged the review, when a base was in play.
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub(crate) gate_schema: Option<crate::review::judge::JudgeRecord>,
    /// The result of verifying identities recorded earlier (`run` mode only).
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub(crate) verification: Option<VerificationRecord>,
}

/// What verification found, kept in the receipt so a mismatch is never lost
/// when the fresh identities overwrite the recorded ones.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub(crate) struct VerificationRecord {
    pub(crate) verified: bool,
    pub(crate) mismatches: Vec<Mismatch>,
}

impl VerificationRecord {
    /// What verifying a receipt recorded earlier found; verified when there was none.
    pub(crate) fn of(before: Option<&verify::Verification>) -> VerificationRecord {
        VerificationRecord {
            verified: before.is_none_or(verify::Verification::passed),
            mismatches: before.map(|v| v.mismatches.clone()).unwrap_or_default(),
        }
    }
}

/// The schema gate's verdict on the agent's output.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub(crate) struct ValidationRecord {
    pub(crate) valid: bool,
    /// `valid`, `invalid`, `missing`, `empty`, `not-json`, `too-deep` or `too-large`.
    pub(crate) verdict: String,
    /// The schema's draft: `2020-12`, `2019-09`, `7`, `6` or `4`.
    pub(crate) draft: String,
    /// How many schema violations.
    pub(crate) errors: usize,
}

/// A recorded identity that differs from the one computed now.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub(crate) struct Mismatch {
    pub(crate) field: String,
    pub(crate) recorded: Value,
    pub(crate) actual: Value,
    /// The files whose bytes changed, relative to the workspace, when the
    /// field is a file's identity (the AGENTS.md chain can name several).
    #[serde(skip_serializing_if = "Vec::is_empty", default)]
    pub(crate) files: Vec<String>,
}

/// Every top-level key this tool writes. Keys it does not produce in a run are
/// removed, so a stale value cannot pass for a fresh one.
pub(crate) const OWNED_KEYS: &[&str] = &[
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
    "fixture_path",
    "fixture_sha",
    "codex_version",
    "codex_args",
    "model",
    "git_describe",
    "git_sha",
    "git_shallow",
    "agent",
    "agents",
    "agents_sha",
    "prompt_sent_sha",
    "transcript",
    "tokens",
    "session",
    "context_sha",
    "base_instructions_sha",
    "developer_sha",
    "environment_sha",
    "turns",
    "models",
    "hooks",
    "runtime",
    "skills",
    "safety_strategy",
    "base",
    "gate_schema",
    "validation",
    "findings_count",
    "ok",
    "findings_by_severity",
    "verification",
];

/// The keys of [`OWNED_KEYS`] whose values are read from the agent's session
/// record, which the agent job uploaded, and not recomputed from a file of
/// the checkout: what the record says the agent received (the prompt as
/// sent, the context, each turn, the models), the tokens and settings it
/// reports, and the record itself. The receipt checks them against the
/// checkout where it can, but only the upload says them: the in-toto
/// predicate keeps them apart, under `claimed`.
pub(crate) const RECORD_KEYS: &[&str] = &[
    "prompt_sent_sha",
    "transcript",
    "tokens",
    "session",
    "context_sha",
    "base_instructions_sha",
    "developer_sha",
    "environment_sha",
    "turns",
    "models",
    "skills",
];

impl Receipt {
    /// Every file this receipt vouches for as an input to the agent, relative
    /// to the workspace: the prompt, its template, the tools, the schema, the
    /// fixture and the AGENTS.md files in the checkout.
    pub(crate) fn input_paths(&self) -> Vec<String> {
        let mut paths: Vec<String> = [
            self.prompt_path.as_ref(),
            self.prompt_template_path.as_ref(),
            Some(&self.tools_path),
            self.schema_path.as_ref(),
            self.fixture_path.as_ref(),
        ]
        .into_iter()
        .flatten()
        .cloned()
        .collect();
        paths.extend(
            self.agents
                .iter()
                .flatten()
                .filter(|f| !f.path.starts_with("$CODEX_HOME"))
                .map(|f| f.path.clone()),
        );
        paths
    }

    pub(crate) fn to_map(&self) -> Map<String, Value> {
        match serde_json::to_value(self).expect("a receipt always serializes") {
            Value::Object(map) => map,
            _ => unreachable!("a struct serializes to an object"),
        }
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
            fixture_path: None,
            fixture_sha: None,
            output_sha: None,
            codex_version: None,
            codex_args: None,
            model: None,
            git_describe: "d".into(),
            git_sha: "c".repeat(40),
            git_shallow: false,
            validation: Some(ValidationRecord {
                valid: true,
                verdict: "valid".into(),
                draft: "2020-12".into(),
                errors: 0,
            }),
            findings_count: Some(0),
            ok: Some(true),
            findings_by_severity: Some(BTreeMap::new()),
            agent: Some(crate::agent::AgentKind::Codex),
            agents: Some(vec![]),
            agents_sha: Some(None),
            prompt_sent_sha: Some("s".into()),
            transcript: Some(crate::agent::check::TranscriptRecord {
                path: "t".into(),
                session_id: None,
                sha256: "t".into(),
                record: "raw".into(),
                redaction: None,
            }),
            tokens: Some(Default::default()),
            session: Some(crate::agent::check::SessionRecord {
                cli_version: None,
                originator: None,
                model: None,
                approval_policy: None,
                sandbox: None,
                duration_ms: None,
                git_commit: None,
                effort: None,
                permission_profile: None,
            }),
            context_sha: Some("c".into()),
            base_instructions_sha: Some("b".into()),
            developer_sha: Some("d".into()),
            environment_sha: Some("e".into()),
            turns: Some(vec![]),
            models: Some(vec![]),
            hooks: Some(vec![]),
            runtime: Some(vec![]),
            skills: Some(vec![]),
            safety_strategy: Some("drop-sudo".into()),
            base: Some(crate::base::BaseRecord {
                given: "main".into(),
                commit: None,
                merge_base: None,
                branch: Some("main".into()),
                pull_requests_into: vec![],
                instructions_changed: vec![],
                pinned: Some(crate::base::Pinned {
                    commit: "0".repeat(40),
                    branch: Some("main".into()),
                    files: vec![],
                    pathspecs: vec![],
                }),
                not_used: vec![],
            }),
            gate_schema: Some(crate::review::judge::JudgeRecord {
                from: "base".into(),
                sha256: None,
            }),
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
        for key in RECORD_KEYS {
            assert!(OWNED_KEYS.contains(key), "{key} is claimed but not owned");
        }
    }
}
