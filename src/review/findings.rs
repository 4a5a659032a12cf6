//! Findings: what the agent reported, in the two shapes reviewers use.
//!
//! The original recipe's shape is `{"ok": bool, "findings": [string]}`; structured reviews
//! use objects with `severity`/`level`, `path`/`file`, `line`/`start_line`,
//! `end_line`, `title`, `message`/`body`. Both read into one [`Finding`].

use std::collections::BTreeMap;
use std::fmt;

use serde::Serialize;
use serde_json::Value;

/// Ordered from least to most severe.
#[derive(Copy, Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "lowercase")]
pub(crate) enum Severity {
    Info,
    Low,
    Medium,
    High,
    Critical,
}

impl Severity {
    pub(crate) const ALL: [Severity; 5] = [
        Severity::Info,
        Severity::Low,
        Severity::Medium,
        Severity::High,
        Severity::Critical,
    ];

    /// Reads the words reviewers and tools use for severity, case-insensitively.
    pub(crate) fn parse(s: &str) -> Option<Severity> {
        const WORDS: [(&str, Severity); 21] = [
            ("info", Severity::Info),
            ("informational", Severity::Info),
            ("note", Severity::Info),
            ("notice", Severity::Info),
            ("nit", Severity::Info),
            ("suggestion", Severity::Info),
            ("none", Severity::Info),
            ("low", Severity::Low),
            ("minor", Severity::Low),
            ("medium", Severity::Medium),
            ("moderate", Severity::Medium),
            ("warning", Severity::Medium),
            ("warn", Severity::Medium),
            ("high", Severity::High),
            ("major", Severity::High),
            ("error", Severity::High),
            ("failure", Severity::High),
            ("critical", Severity::Critical),
            ("blocker", Severity::Critical),
            ("severe", Severity::Critical),
            ("fatal", Severity::Critical),
        ];
        let s = s.trim();
        WORDS
            .iter()
            .find(|(word, _)| word.eq_ignore_ascii_case(s))
            .map(|(_, severity)| *severity)
    }

    pub(crate) fn as_str(self) -> &'static str {
        match self {
            Severity::Info => "info",
            Severity::Low => "low",
            Severity::Medium => "medium",
            Severity::High => "high",
            Severity::Critical => "critical",
        }
    }
}

impl fmt::Display for Severity {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// Where a finding points, once its path is read and, when the checkout can
/// tell, checked: agents invent locations.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(crate) enum Place {
    /// The finding names no file.
    #[default]
    Nowhere,
    /// The path cannot be a file of this repository (absolute, climbing out,
    /// control characters): shown, escaped, but not annotated.
    Refused(String),
    /// A repository path (`./` and backslashes normalized), not checked yet.
    Path(String),
    /// The file is in the checkout, and the line (if any) within it.
    InCheckout(String),
    /// No such file in the checkout.
    Missing(String),
    /// The file has fewer lines than the finding says.
    PastEnd { path: String, lines: u64 },
}

impl Place {
    /// The repository path to annotate, when there is one to trust.
    pub(crate) fn annotatable(&self) -> Option<&str> {
        match self {
            Place::Path(p) | Place::InCheckout(p) | Place::Missing(p) => Some(p),
            Place::PastEnd { path, .. } => Some(path),
            Place::Nowhere | Place::Refused(_) => None,
        }
    }
}

/// A finding's path as a repository path: backslashes become slashes, `./`
/// and `a/..` are resolved; an absolute path, one that climbs out of the
/// repository, or one with control characters is refused, saying why.
pub(crate) fn normalize_path(raw: &str) -> Result<String, String> {
    if raw.chars().any(char::is_control) {
        return Err("contains control characters".into());
    }
    // Most paths are already as they will be: no allocation but the copy.
    let trimmed = raw.trim();
    let drive = |b: &[u8]| b.len() >= 2 && b[0].is_ascii_alphabetic() && b[1] == b':';
    if !trimmed.is_empty()
        && !trimmed.contains('\\')
        && !trimmed.starts_with('/')
        && !drive(trimmed.as_bytes())
        && trimmed.split('/').all(|p| !matches!(p, "" | "." | ".."))
    {
        return Ok(trimmed.to_string());
    }
    let slashed = trimmed.replace('\\', "/");
    let bytes = slashed.as_bytes();
    let drive = bytes.len() >= 2 && bytes[0].is_ascii_alphabetic() && bytes[1] == b':';
    if slashed.starts_with('/') || drive {
        return Err("is absolute".into());
    }
    let mut parts: Vec<&str> = Vec::new();
    for part in slashed.split('/') {
        match part {
            "" | "." => {}
            ".." => {
                if parts.pop().is_none() {
                    return Err("climbs out of the repository".into());
                }
            }
            p => parts.push(p),
        }
    }
    if parts.is_empty() {
        return Err("names no file".into());
    }
    Ok(parts.join("/"))
}

#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(crate) struct Finding {
    /// `None` when the review gave none, or a word we do not know.
    pub(crate) severity: Option<Severity>,
    /// As the review wrote it.
    pub(crate) path: Option<String>,
    /// Where it points, read from `path`.
    pub(crate) place: Place,
    pub(crate) line: Option<u64>,
    pub(crate) end_line: Option<u64>,
    pub(crate) title: Option<String>,
    pub(crate) message: String,
}

impl Finding {
    /// Whether it can become an annotation on a file and line.
    pub(crate) fn is_located(&self) -> bool {
        self.place.annotatable().is_some() && self.line.is_some()
    }
}

/// The findings of a review, and its `ok` verdict when it has one.
#[derive(Clone, Debug, Default, PartialEq)]
pub(crate) struct Findings {
    pub(crate) ok: Option<bool>,
    pub(crate) list: Vec<Finding>,
    /// Set when the pointer names something that is not a list.
    pub(crate) problem: Option<String>,
    /// Set when the pointer names nothing but the review has a list elsewhere
    /// at its top: perhaps findings-pointer should name that list.
    pub(crate) hint: Option<String>,
}

impl Findings {
    pub(crate) fn by_severity(&self) -> BTreeMap<String, usize> {
        let mut counts: BTreeMap<&str, usize> = BTreeMap::new();
        for f in &self.list {
            *counts
                .entry(f.severity.map_or("unknown", Severity::as_str))
                .or_insert(0) += 1;
        }
        counts
            .into_iter()
            .map(|(k, v)| (k.to_string(), v))
            .collect()
    }
}

/// Reads findings at `pointer` (e.g. `/findings`) and `ok` at the top level.
/// Their text is moved out of `review`, not copied: the caller is done with it.
pub(crate) fn take(review: &mut Value, pointer: &str) -> Findings {
    let ok = review.get("ok").and_then(Value::as_bool);
    let hint = match review.pointer(pointer) {
        None => lists_at_top(review).map(|lists| {
            format!(
                "the review has nothing at findings-pointer `{pointer}`, but lists at {lists}: if those are its findings, set findings-pointer to one"
            )
        }),
        Some(_) => None,
    };
    let (list, problem) = match review.pointer_mut(pointer) {
        None => (Vec::new(), None),
        Some(Value::Array(items)) => (items.iter_mut().map(finding).collect(), None),
        Some(Value::Null) => (Vec::new(), None),
        // The pointer is right; the value is wrong: the schema should have said so.
        Some(other) => (
            Vec::new(),
            Some(format!(
                "`{pointer}` holds {}, not a list of findings; make the output schema require an array there",
                crate::error::json_kind(other)
            )),
        ),
    };
    Findings {
        ok,
        list,
        problem,
        hint,
    }
}

/// The top-level members of the review that hold lists, as pointers.
fn lists_at_top(review: &Value) -> Option<String> {
    let names: Vec<String> = review
        .as_object()?
        .iter()
        .filter(|(_, v)| v.is_array())
        .take(5)
        .map(|(k, _)| format!("`/{}`", k.replace('~', "~0").replace('/', "~1")))
        .collect();
    (!names.is_empty()).then(|| names.join(", "))
}

fn finding(item: &mut Value) -> Finding {
    let Value::Object(o) = item else {
        return Finding {
            message: match item {
                Value::String(s) => std::mem::take(s),
                other => other.to_string(),
            },
            ..Finding::default()
        };
    };
    // One walk over the finding's members, each kept in its slot, instead of
    // a search of the map for every name each field may go by.
    const NAMES: [&str; 11] = [
        "line",
        "start_line",
        "end_line",
        "severity",
        "level",
        "path",
        "file",
        "title",
        "message",
        "body",
        "description",
    ];
    let mut slots: [Option<&mut Value>; 11] = Default::default();
    for (name, value) in o.iter_mut() {
        if let Some(at) = NAMES.iter().position(|n| n == name) {
            slots[at] = Some(value);
        }
    }
    let [
        line,
        start_line,
        end_line,
        severity,
        level,
        path,
        file,
        title,
        message,
        body,
        description,
    ] = slots;
    let number = |values: [&Option<&mut Value>; 2]| {
        values.into_iter().find_map(|v| match v.as_deref() {
            Some(Value::Number(n)) => n.as_u64(),
            Some(Value::String(s)) => s.trim().parse().ok(),
            _ => None,
        })
    };
    let line = number([&line, &start_line]).filter(|l| *l > 0);
    let end_line = number([&end_line, &None]).filter(|e| line.is_some_and(|l| *e >= l));
    let severity = [&severity, &level]
        .into_iter()
        .find_map(|v| v.as_deref().and_then(Value::as_str))
        .and_then(Severity::parse);
    let path = first_text([path, file]).filter(|p| !p.trim().is_empty());
    let place = match path.as_deref().map(normalize_path) {
        None => Place::Nowhere,
        Some(Ok(p)) => Place::Path(p),
        Some(Err(why)) => Place::Refused(why),
    };
    let title = first_text([title]);
    let message = first_text([message, body, description])
        .or_else(|| title.clone())
        .unwrap_or_default();
    Finding {
        severity,
        path,
        place,
        line,
        end_line,
        title,
        message,
    }
}

/// The first of `values` that is a string, moved out.
fn first_text<'a>(values: impl IntoIterator<Item = Option<&'a mut Value>>) -> Option<String> {
    values.into_iter().find_map(|v| match v {
        Some(Value::String(s)) => Some(std::mem::take(s)),
        _ => None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn the_seed_shape() {
        let f = take(
            &mut json!({"ok": false, "findings": ["adds left-pad", "no owner"]}),
            "/findings",
        );
        assert_eq!(f.ok, Some(false));
        assert_eq!(f.list.len(), 2);
        assert_eq!(f.list[0].message, "adds left-pad");
        assert_eq!(
            f.by_severity(),
            BTreeMap::from([("unknown".to_string(), 2)])
        );
    }

    #[test]
    fn the_structured_shape_with_aliases() {
        let mut review = json!({"review": {"items": [
            {"level": "Warning", "file": "a.rs", "start_line": 3, "end_line": 5, "body": "b"},
            {"severity": "critical", "path": "b.rs", "line": "7", "title": "t", "message": "m"},
            {"severity": "odd", "message": "no location"}
        ]}});
        let f = take(&mut review, "/review/items");
        assert_eq!(f.ok, None);
        let a = &f.list[0];
        assert_eq!(
            (
                a.severity,
                a.path.as_deref(),
                a.line,
                a.end_line,
                a.message.as_str()
            ),
            (Some(Severity::Medium), Some("a.rs"), Some(3), Some(5), "b")
        );
        assert_eq!(
            (f.list[1].severity, f.list[1].line),
            (Some(Severity::Critical), Some(7))
        );
        assert!(!f.list[2].is_located());
        // The first name present decides, even when its value is unusable.
        let mut odd = json!({"items": [
            {"line": 0, "start_line": 5, "severity": 5, "level": "high", "path": 3, "file": "f.rs", "description": "d"},
            {"line": true, "start_line": "9", "end_line": 2, "title": "only a title"}
        ]});
        let f = take(&mut odd, "/items");
        let (a, b) = (&f.list[0], &f.list[1]);
        assert_eq!(
            (a.line, a.severity, a.path.as_deref(), a.message.as_str()),
            (None, Some(Severity::High), Some("f.rs"), "d")
        );
        assert_eq!(
            (b.line, b.end_line, b.title.as_deref(), b.message.as_str()),
            (Some(9), None, Some("only a title"), "only a title")
        );
        assert_eq!(f.by_severity().get("unknown"), Some(&1));
    }

    #[test]
    fn a_pointer_at_something_else_is_said() {
        assert!(
            take(&mut json!({"findings": 3}), "/findings")
                .problem
                .unwrap()
                .contains("a number")
        );
        assert_eq!(take(&mut json!({}), "/findings").list.len(), 0);
    }

    #[test]
    fn paths_are_read_as_repository_paths() {
        for (raw, path) in [
            ("./src/x.rs", "src/x.rs"),
            ("src\\win.rs", "src/win.rs"),
            ("a/./b/../c.rs", "a/c.rs"),
        ] {
            assert_eq!(normalize_path(raw).as_deref(), Ok(path), "{raw}");
        }
        for (raw, why) in [
            ("/etc/passwd", "absolute"),
            ("C:\\x.rs", "absolute"),
            ("../outside.rs", "climbs out"),
            ("a/../../b", "climbs out"),
            ("src/x.rs\nsecond", "control"),
            ("./", "names no file"),
        ] {
            assert!(normalize_path(raw).unwrap_err().contains(why), "{raw}");
        }
    }
}
