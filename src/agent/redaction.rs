//! A session record the agent job cut down before uploading it.
//!
//! On a public repository an uploaded artifact is public, and Codex's record
//! holds every command's output and every file the agent read. The example's
//! `redact-session.jq` keeps only what the receipt reads (the metadata, the
//! instruction messages, the settings, the tool calls, the token counts) and
//! ends the record with a marker line saying what it dropped. The receipt
//! says which kind of record it verified: `raw` (no marker) or `redacted`.
//! The Claude Code and Gemini CLI examples' `redact-record.jq` write the same
//! marker.
//!
//! The marker is written by the agent job, like the rest of the record: it is
//! reported, never trusted to widen what passes. A record without it is
//! reported raw, which is what it claims.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};
use serde_json::Value;

/// The marker line's `type`.
pub(crate) const MARKER: &str = "prompt_receipt_redacted";
/// What the shipped filter drops, in the receipt's words.
pub(crate) const WHAT_IS_DROPPED: &str = "tool outputs, reasoning and assistant messages dropped";

/// What the marker says was done to the record.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct Redaction {
    /// The filter's name and version, as the marker gives them.
    pub(crate) filter: String,
    pub(crate) version: u64,
    /// Lines the filter read and kept.
    pub(crate) lines_read: u64,
    pub(crate) lines_kept: u64,
    /// Whole lines dropped, by kind (`response_item:function_call_output`).
    pub(crate) dropped: BTreeMap<String, u64>,
    /// Fields cut from lines that were kept (a command's output).
    pub(crate) cut: BTreeMap<String, u64>,
}

impl Redaction {
    /// The marker's payload, read leniently and bounded: its text is the
    /// uploader's.
    pub(crate) fn from_payload(p: &Value) -> Redaction {
        let text = |k: &str| {
            p[k].as_str()
                .map(|s| s.chars().take(crate::limits::MARKER_KIND_CHARS).collect())
                .unwrap_or_default()
        };
        Redaction {
            filter: text("filter"),
            version: p["version"].as_u64().unwrap_or(0),
            lines_read: p["lines_read"].as_u64().unwrap_or(0),
            lines_kept: p["lines_kept"].as_u64().unwrap_or(0),
            dropped: counts(&p["dropped"]),
            cut: counts(&p["cut"]),
        }
    }

    pub(crate) fn lines_dropped(&self) -> u64 {
        self.dropped.values().fold(0, |a, n| a.saturating_add(*n))
    }

    pub(crate) fn fields_cut(&self) -> u64 {
        self.cut.values().fold(0, |a, n| a.saturating_add(*n))
    }
}

fn counts(v: &Value) -> BTreeMap<String, u64> {
    let mut out = BTreeMap::new();
    let Some(map) = v.as_object() else {
        return out;
    };
    for (i, (kind, n)) in map.iter().enumerate() {
        let n = n.as_u64().unwrap_or(0);
        let kind = if i < crate::limits::MARKER_KINDS {
            kind.chars()
                .take(crate::limits::MARKER_KIND_CHARS)
                .collect()
        } else {
            "other".to_string()
        };
        let slot = out.entry(kind).or_insert(0u64);
        *slot = slot.saturating_add(n);
    }
    out
}

/// `raw` or `redacted`: what the receipt records in `transcript.record`.
pub(crate) fn kind(redaction: Option<&Redaction>) -> &'static str {
    if redaction.is_some() {
        "redacted"
    } else {
        "raw"
    }
}

/// One sentence for the evidence (names in backticks, for `markdown::prose`):
/// which record was verified.
pub(crate) fn describe(redaction: Option<&Redaction>) -> String {
    match redaction {
        None => "raw (every line as uploaded; no redaction marker)".to_string(),
        Some(r) => format!(
            "redacted ({WHAT_IS_DROPPED}): {} line(s) dropped, {} field(s) cut, {} kept, by `{}` version {}",
            r.lines_dropped(),
            r.fields_cut(),
            r.lines_kept,
            crate::escape::one_line(&r.filter).replace('`', "'"),
            r.version
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn the_marker_is_read_bounded() {
        let mut dropped = serde_json::Map::new();
        for i in 0..40 {
            dropped.insert(format!("kind{i:02}"), json!(1));
        }
        dropped.insert("x".repeat(500), json!(u64::MAX));
        let r = Redaction::from_payload(&json!({
            "filter": "redact-session.jq", "version": 1, "lines_read": 10, "lines_kept": 4,
            "dropped": dropped, "cut": {"event_msg:item_completed:CommandExecution.aggregated_output": 2},
        }));
        assert!(
            r.dropped.len() <= crate::limits::MARKER_KINDS + 1,
            "{:?}",
            r.dropped.len()
        );
        assert!(
            r.dropped
                .keys()
                .all(|k| k.chars().count() <= crate::limits::MARKER_KIND_CHARS)
        );
        assert_eq!(r.lines_dropped(), u64::MAX, "saturates");
        assert_eq!(r.fields_cut(), 2);
        assert_eq!(kind(Some(&r)), "redacted");
        assert_eq!(kind(None), "raw");
        assert!(describe(Some(&r)).starts_with("redacted (tool outputs, reasoning"));
        // Nonsense is read as nothing, not refused.
        let odd = Redaction::from_payload(&json!({"filter": 3, "dropped": [1]}));
        assert_eq!((odd.filter.as_str(), odd.lines_dropped()), ("", 0));
    }
}
