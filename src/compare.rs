//! Two runs that should differ only in the prompt, compared.
//!
//! The original recipe: freeze the pull request used as the fixture, run two jobs that
//! differ only in the committed prompt, assert that `prompt_sha` changed, then
//! compare the results. A comparison where the tools, the model or the fixture
//! changed too proves nothing about the prompt, so it fails, naming each
//! channel. Findings are matched after normalizing case, whitespace and
//! punctuation: rewording a comma is not a change in behaviour.

use std::collections::BTreeMap;

use serde_json::{Map, Value};

use crate::review::findings::{Finding, Severity};
use crate::workspace::Location;

/// What to compare this run with: the base run's receipt and output, the
/// channels besides the prompt that may differ, and where the findings are.
#[derive(Clone, Debug)]
pub(crate) struct Request {
    pub(crate) base_usage: Location,
    pub(crate) base_output: Option<Location>,
    pub(crate) head_output: Location,
    pub(crate) allow: Vec<String>,
    pub(crate) findings_pointer: String,
}

/// Each channel an agent's behaviour can change through, and its receipt field.
pub(crate) const CHANNELS: &[(&str, &str)] = &[
    ("prompt", "prompt_sha"),
    ("agent", "agent"),
    ("tools", "tools_sha"),
    ("agents", "agents_sha"),
    ("schema", "schema_sha"),
    ("agent-version", "codex_version"),
    ("model", "model"),
    ("agent-args", "codex_args"),
    ("fixture", "fixture_sha"),
];

#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Change {
    pub(crate) channel: &'static str,
    pub(crate) base: Value,
    pub(crate) head: Value,
}

/// A finding as the comparison lists it: its severity and one line.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Entry {
    pub(crate) severity: Option<Severity>,
    pub(crate) text: String,
}

impl Entry {
    fn of(f: &Finding) -> Entry {
        Entry {
            severity: f.severity,
            text: describe(f),
        }
    }
}

#[derive(Clone, Debug, Default, PartialEq)]
pub(crate) struct FindingsDiff {
    /// Most severe first.
    pub(crate) added: Vec<Entry>,
    /// Most severe first.
    pub(crate) removed: Vec<Entry>,
    /// Identical in both runs.
    pub(crate) kept: Vec<String>,
    /// Equal once case, whitespace and punctuation are set aside: (base, head).
    pub(crate) reworded: Vec<(String, String)>,
}

#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Comparison {
    pub(crate) changed: Vec<Change>,
    /// Changed channels that `allow-changed` does not name (the prompt aside).
    pub(crate) unexpected: Vec<&'static str>,
    pub(crate) prompt_changed: bool,
    /// The prompt changed, and nothing else that was not allowed.
    pub(crate) controlled: bool,
    pub(crate) findings: FindingsDiff,
    /// Said, not failing: a channel only one receipt records, no fixture.
    pub(crate) notes: Vec<String>,
    /// The two prompt files and their diff, filled in where the texts can be
    /// read back (`compare` mode reads them; this module stays pure).
    pub(crate) prompts: Prompts,
}

/// The prompt files the two receipts name, and what changed between them.
#[derive(Clone, Debug, Default, PartialEq)]
pub(crate) struct Prompts {
    pub(crate) base_path: Option<String>,
    pub(crate) head_path: Option<String>,
    /// A unified diff of the base prompt against the head prompt, bounded.
    pub(crate) diff: Option<String>,
    /// Why there is no diff, and how to get one.
    pub(crate) no_diff: Option<String>,
}

/// Compares two receipts and their findings.
pub(crate) fn compare(
    base: &Map<String, Value>,
    head: &Map<String, Value>,
    allow: &[String],
    base_findings: &[Finding],
    head_findings: &[Finding],
) -> Comparison {
    let mut changed = Vec::new();
    let mut notes = Vec::new();
    // A receipt written before `agent` existed is the default agent's.
    let codex = Value::String(crate::agent::AgentKind::default().as_str().into());
    let get = |r: &'_ Map<String, Value>, field: &str| match (field, r.get(field)) {
        ("agent", None) => Some(codex.clone()),
        (_, v) => v.cloned(),
    };
    for (channel, field) in CHANNELS {
        match (get(base, field).as_ref(), get(head, field).as_ref()) {
            (None, None) if *channel == "fixture" => {
                notes.push("neither receipt records a fixture (input `fixture-file`): nothing proves both ran on the same pull request".into());
            }
            (None, None) => {}
            (b, h) if b == h => {}
            (b, h) => {
                if b.is_none() || h.is_none() {
                    notes.push(format!(
                        "only one receipt records `{field}`: counted as changed"
                    ));
                }
                changed.push(Change {
                    channel,
                    base: b.cloned().unwrap_or(Value::Null),
                    head: h.cloned().unwrap_or(Value::Null),
                });
            }
        }
    }
    let prompt_changed = changed.iter().any(|c| c.channel == "prompt");
    let unexpected: Vec<&'static str> = changed
        .iter()
        .map(|c| c.channel)
        .filter(|c| *c != "prompt" && !allow.iter().any(|a| a == c))
        .collect();
    Comparison {
        controlled: prompt_changed && unexpected.is_empty(),
        changed,
        unexpected,
        prompt_changed,
        findings: diff(base_findings, head_findings),
        notes,
        prompts: Prompts {
            base_path: base
                .get("prompt_path")
                .and_then(Value::as_str)
                .map(str::to_string),
            head_path: head
                .get("prompt_path")
                .and_then(Value::as_str)
                .map(str::to_string),
            ..Prompts::default()
        },
    }
}

/// A finding as one line: where, title, message.
pub(crate) fn describe(f: &Finding) -> String {
    let at = match (&f.path, f.line) {
        (Some(p), Some(l)) => format!("{p}:{l}: "),
        (Some(p), None) => format!("{p}: "),
        _ => String::new(),
    };
    match &f.title {
        Some(t) if !f.message.is_empty() && *t != f.message => format!("{at}{t}: {}", f.message),
        Some(t) => format!("{at}{t}"),
        None => format!("{at}{}", f.message),
    }
}

/// Lower case, letters and digits only, single spaces. Locations are left out:
/// the same finding on a line that moved is the same finding.
pub(crate) fn normalize(f: &Finding) -> String {
    let text = format!(
        "{} {} {}",
        f.path.as_deref().unwrap_or(""),
        f.title.as_deref().unwrap_or(""),
        f.message
    );
    text.chars()
        .map(|c| {
            if c.is_alphanumeric() {
                c.to_lowercase().next().unwrap_or(c)
            } else {
                ' '
            }
        })
        .collect::<String>()
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
}

/// Matches findings as multisets: exact first, then after normalizing.
pub(crate) fn diff(base: &[Finding], head: &[Finding]) -> FindingsDiff {
    let mut out = FindingsDiff::default();
    let mut remaining: Vec<Option<&Finding>> = base.iter().map(Some).collect();
    let mut unmatched_head = Vec::new();
    for h in head {
        let text = describe(h);
        match remaining
            .iter_mut()
            .find(|b| b.is_some_and(|b| describe(b) == text))
        {
            Some(slot) => {
                *slot = None;
                out.kept.push(text);
            }
            None => unmatched_head.push(h),
        }
    }
    let mut by_key: BTreeMap<String, Vec<usize>> = BTreeMap::new();
    for (i, b) in remaining.iter().enumerate() {
        if let Some(b) = b {
            by_key.entry(normalize(b)).or_default().push(i);
        }
    }
    for h in unmatched_head {
        match by_key
            .get_mut(&normalize(h))
            .and_then(|v| (!v.is_empty()).then(|| v.remove(0)))
        {
            Some(i) => {
                let b = remaining[i].take().expect("matched once");
                out.reworded.push((describe(b), describe(h)));
            }
            None => out.added.push(Entry::of(h)),
        }
    }
    out.removed = remaining.into_iter().flatten().map(Entry::of).collect();
    // Most severe first; a finding of unknown severity with the high ones,
    // as the gate counts it.
    let rank = |e: &Entry| std::cmp::Reverse(e.severity.unwrap_or(Severity::High));
    out.added.sort_by_key(rank);
    out.removed.sort_by_key(rank);
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn receipt(v: Value) -> Map<String, Value> {
        v.as_object().unwrap().clone()
    }

    fn f(msg: &str) -> Finding {
        Finding {
            message: msg.into(),
            ..Finding::default()
        }
    }

    #[test]
    fn only_the_prompt_changed_is_controlled() {
        let base =
            receipt(json!({"prompt_sha": "a", "tools_sha": "t", "model": "m", "fixture_sha": "f"}));
        let head =
            receipt(json!({"prompt_sha": "b", "tools_sha": "t", "model": "m", "fixture_sha": "f"}));
        let c = compare(&base, &head, &[], &[], &[]);
        assert!(c.controlled && c.unexpected.is_empty());
        let same = compare(&base, &base, &[], &[], &[]);
        assert!(!same.controlled && !same.prompt_changed);
    }

    #[test]
    fn another_agent_is_a_channel_and_a_receipt_without_one_is_codexs() {
        let old = receipt(json!({"prompt_sha": "a", "fixture_sha": "f"}));
        let codex = receipt(json!({"prompt_sha": "b", "agent": "codex", "fixture_sha": "f"}));
        let claude = receipt(json!({"prompt_sha": "b", "agent": "claude", "fixture_sha": "f"}));
        let c = compare(&old, &codex, &[], &[], &[]);
        assert!(c.controlled && c.notes.is_empty(), "{:?}", c.notes);
        let c = compare(&old, &claude, &[], &[], &[]);
        assert_eq!(c.unexpected, vec!["agent"]);
        let allowed = compare(&old, &claude, &["agent".into()], &[], &[]);
        assert!(allowed.controlled && allowed.unexpected.is_empty());
    }

    #[test]
    fn other_channels_are_named_unless_allowed() {
        let base =
            receipt(json!({"prompt_sha": "a", "tools_sha": "t", "model": "m", "fixture_sha": "f"}));
        let head = receipt(
            json!({"prompt_sha": "b", "tools_sha": "t2", "model": "m2", "fixture_sha": "g"}),
        );
        let c = compare(&base, &head, &[], &[], &[]);
        assert_eq!(c.unexpected, vec!["tools", "model", "fixture"]);
        assert!(!c.controlled);
        let c = compare(
            &base,
            &head,
            &["tools".into(), "model".into(), "fixture".into()],
            &[],
            &[],
        );
        assert!(c.controlled);
    }

    #[test]
    fn punctuation_and_case_do_not_count_as_a_change() {
        let base = [
            f("No owner for left-pad."),
            f("Division by zero"),
            f("Gone"),
        ];
        let head = [
            f("no owner, for left pad"),
            f("Division by zero"),
            f("Require a human reviewer."),
        ];
        let d = diff(&base, &head);
        assert_eq!(d.kept, vec!["Division by zero"]);
        assert_eq!(
            d.reworded,
            vec![(
                "No owner for left-pad.".to_string(),
                "no owner, for left pad".to_string()
            )]
        );
        let texts = |v: &[Entry]| v.iter().map(|e| e.text.clone()).collect::<Vec<_>>();
        assert_eq!(texts(&d.added), vec!["Require a human reviewer."]);
        assert_eq!(texts(&d.removed), vec!["Gone"]);
    }

    #[test]
    fn added_and_removed_findings_keep_their_severity_most_severe_first() {
        let sev = |m: &str, s: Severity| Finding {
            severity: Some(s),
            ..f(m)
        };
        let d = diff(
            &[
                sev("old low", Severity::Low),
                sev("old critical", Severity::Critical),
            ],
            &[
                sev("new info", Severity::Info),
                f("new unknown"),
                sev("new high", Severity::High),
            ],
        );
        let shown: Vec<(Option<Severity>, &str)> = d
            .added
            .iter()
            .map(|e| (e.severity, e.text.as_str()))
            .collect();
        assert_eq!(
            shown,
            vec![
                (None, "new unknown"),
                (Some(Severity::High), "new high"),
                (Some(Severity::Info), "new info")
            ]
        );
        assert_eq!(d.removed[0].severity, Some(Severity::Critical));
    }
}
