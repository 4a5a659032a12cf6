//! The session as a timeline: every turn the model answered, and every
//! model-visible item added to it that no receipt input covers.
//!
//! Agent-neutral: Codex's reader ([`super::session`]) fills it from the
//! rollout; a reader of Claude Code's or Gemini CLI's record fills the same
//! types (hooks, compaction summaries, resumed turns have the same shapes
//! there), and the checks and reports read only these.

use serde::{Deserialize, Serialize};

/// One turn: a prompt, the request it made, the model that answered it, and
/// what was added to the model's input besides the prompt.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct Turn {
    pub(crate) model: Option<String>,
    /// SHA-256 of the user text that started the turn.
    pub(crate) prompt_sha: Option<String>,
    /// SHA-256 of the messages before the prompt in the turn's request, as
    /// the receipt's `context_sha` is computed.
    pub(crate) context_sha: Option<String>,
    pub(crate) items: Vec<Item>,
}

/// A model-visible message that is neither the prompt nor the context the
/// checkout predicts. Hashes and sizes only: the receipt holds no text.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct Item {
    #[serde(flatten)]
    pub(crate) kind: ItemKind,
    /// SHA-256 of its text; `null` when the record's copy was cut (a
    /// redacted record drops the compaction summary).
    pub(crate) sha256: Option<String>,
    pub(crate) bytes: usize,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub(crate) enum ItemKind {
    /// Text a hook added (Codex's `additionalContext`, Claude's, Gemini's).
    /// `event` when the record names it (`SessionStart`, `UserPromptSubmit`).
    Hook {
        #[serde(default, skip_serializing_if = "Option::is_none")]
        event: Option<String>,
        before_prompt: bool,
    },
    /// The summary a model wrote of the conversation so far, given to the
    /// model in place of it.
    CompactionSummary,
    User,
    Developer,
    System,
}

impl ItemKind {
    /// In a sentence: "a hook's message", "the compaction summary".
    pub(crate) fn describe(&self) -> String {
        match self {
            ItemKind::Hook { event, .. } => format!("a {} message", hook_name(event.as_deref())),
            ItemKind::CompactionSummary => "a compaction summary written by the model".into(),
            ItemKind::User => "a user message".into(),
            ItemKind::Developer => "a developer message".into(),
            ItemKind::System => "a system message".into(),
        }
    }

    pub(crate) fn is_hook(&self) -> bool {
        matches!(self, ItemKind::Hook { .. })
    }
}

/// The hook's event as the record names it, else `hook`.
pub(crate) fn hook_name(event: Option<&str>) -> String {
    match event {
        Some(e) => format!("{} hook", crate::escape::one_line(e)),
        None => "hook".into(),
    }
}

/// What a run with more than one turn, a compaction or a model switch does.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq, clap::ValueEnum)]
pub(crate) enum SingleTurn {
    /// The step fails.
    Require,
    /// At most neutral, and the title says why.
    #[default]
    Warn,
    /// Said in the notes, and nothing more.
    Allow,
}

/// A file, or a part of one, that defines hooks: whatever a hook prints can
/// reach the model, so the configuration is a receipt subject.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct HookConfig {
    /// `$CODEX_HOME/hooks.json`, `$CODEX_HOME/config.toml#hooks`, or a
    /// workspace path.
    pub(crate) path: String,
    pub(crate) sha256: String,
}

/// Every model the turns used, in the order first used.
pub(crate) fn models(turns: &[Turn]) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for m in turns.iter().filter_map(|t| t.model.as_ref()) {
        if !out.contains(m) {
            out.push(m.clone());
        }
    }
    out
}

/// Whether any turn holds a compaction summary.
pub(crate) fn compacted(turns: &[Turn]) -> bool {
    turns
        .iter()
        .flat_map(|t| &t.items)
        .any(|i| i.kind == ItemKind::CompactionSummary)
}

/// What makes the timeline more than one turn of one model with nothing
/// summarised: each a short sentence for the title, empty when none.
/// `switched` are models a turn used before its last (turn, model).
pub(crate) fn beyond_one_turn(turns: &[Turn], switched: &[(usize, &str)]) -> Vec<String> {
    let mut said = Vec::new();
    if compacted(turns) {
        said.push("The model saw a compaction summary written by the model".to_string());
    }
    let mut models = models(turns);
    for (_, m) in switched {
        if !models.iter().any(|known| known == m) {
            models.push(m.to_string());
        }
    }
    if turns.len() > 1 || models.len() > 1 {
        let names: Vec<String> = models
            .iter()
            .map(|m| crate::escape::one_line(&crate::markdown::clip(m, 60)).to_string())
            .collect();
        said.push(format!(
            "{} turn{}, {} model{}: {}",
            turns.len(),
            if turns.len() == 1 { "" } else { "s" },
            models.len(),
            if models.len() == 1 { "" } else { "s" },
            names.join(", ")
        ));
    }
    said
}

/// Every item of a turn that no input covers, named as unverified: a hook's
/// output, a message beside the prompt. `of_turn` says which turn when
/// there are several.
pub(crate) fn name_uncovered_items(c: &mut super::AgentCheck, turn: &Turn, of_turn: &str) {
    let short = |s: &str| s.chars().take(12).collect::<String>();
    let others = turn.items.iter().filter(|i| !i.kind.is_hook()).count();
    let mut nth = 0;
    for item in &turn.items {
        let (bytes, sha) = (
            item.bytes,
            item.sha256.as_deref().map_or("not recorded".into(), short),
        );
        match &item.kind {
            ItemKind::CompactionSummary => {}
            ItemKind::Hook {
                event,
                before_prompt,
            } => {
                let place = if *before_prompt { "before" } else { "after" };
                let hook = hook_name(event.as_deref());
                // The hook's configuration and what it runs are compared
                // with the base; what it printed is never in a record.
                c.hook_said.push((
                    format!("what the {hook} said {place} the prompt{of_turn}"),
                    format!(
                        "a {hook} added a message {place} the prompt{of_turn} ({bytes} bytes, sha256 {sha}): the hooks' configuration is in the receipt (`hooks`), what they printed is not, and it can change the review"
                    ),
                ));
            }
            kind => {
                nth += 1;
                let role = match kind {
                    ItemKind::User => "user",
                    ItemKind::System => "system",
                    _ => "developer",
                };
                let place = if turn.prompt_sha.is_some() {
                    "after"
                } else {
                    "before"
                };
                c.unverified.push((
                    format!("what the {role} message {place} the prompt{of_turn} says"),
                    format!(
                        "the model received a {role} message {place} the prompt{of_turn} ({nth} of {others}, {bytes} bytes, sha256 {sha}) that no file of the receipt covers: it can change the review, and nothing here says who wrote it"
                    ),
                ));
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn turn(model: &str, items: Vec<Item>) -> Turn {
        Turn {
            model: Some(model.into()),
            items,
            ..Turn::default()
        }
    }

    #[test]
    fn one_turn_says_nothing_and_more_say_why() {
        assert!(beyond_one_turn(&[turn("a", vec![])], &[]).is_empty());
        let summary = Item {
            kind: ItemKind::CompactionSummary,
            sha256: Some("s".into()),
            bytes: 1,
        };
        let said = beyond_one_turn(
            &[
                turn("gpt-5.5", vec![]),
                turn("gpt-5.6-terra", vec![summary]),
            ],
            &[],
        );
        assert_eq!(
            said,
            [
                "The model saw a compaction summary written by the model",
                "2 turns, 2 models: gpt-5.5, gpt-5.6-terra"
            ]
        );
        let said = beyond_one_turn(&[turn("a", vec![]), turn("a", vec![])], &[]);
        assert_eq!(said, ["2 turns, 1 model: a"]);
    }

    #[test]
    fn items_serialize_with_their_kind() {
        let i = Item {
            kind: ItemKind::Hook {
                event: None,
                before_prompt: false,
            },
            sha256: Some("h".into()),
            bytes: 3,
        };
        assert_eq!(
            serde_json::to_value(&i).unwrap(),
            serde_json::json!({"kind": "hook", "before_prompt": false, "sha256": "h", "bytes": 3})
        );
    }
}
