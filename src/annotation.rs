//! Annotations: a message pinned to a file and line, shown on the pull request.
//!
//! One list, built from every problem of a run, feeds both the workflow-command
//! annotations in the log and the check run's annotations.

use crate::findings::Severity;
use crate::identities::Level as CaveatLevel;
use crate::run::RunResult;

/// Ordered from least to most serious.
#[derive(Copy, Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Level {
    Notice,
    Warning,
    Failure,
}

impl Level {
    /// The workflow command: `::notice`, `::warning`, `::error`.
    pub fn command(self) -> &'static str {
        match self {
            Level::Notice => "notice",
            Level::Warning => "warning",
            Level::Failure => "error",
        }
    }

    /// The check run's `annotation_level`.
    pub fn check_level(self) -> &'static str {
        match self {
            Level::Notice => "notice",
            Level::Warning => "warning",
            Level::Failure => "failure",
        }
    }

    /// A finding's level: high and critical fail, medium warns, the rest notes.
    /// Unknown severity warns: it is seen, but not blamed on the author as an error.
    pub fn of_severity(s: Option<Severity>) -> Level {
        match s {
            Some(Severity::Critical | Severity::High) => Level::Failure,
            Some(Severity::Medium) | None => Level::Warning,
            Some(Severity::Low | Severity::Info) => Level::Notice,
        }
    }
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Annotation {
    pub level: Level,
    pub path: Option<String>,
    pub line: Option<u64>,
    pub end_line: Option<u64>,
    pub column: Option<u64>,
    pub title: Option<String>,
    pub message: String,
}

impl Annotation {
    fn new(level: Level, message: impl Into<String>) -> Annotation {
        Annotation {
            level,
            path: None,
            line: None,
            end_line: None,
            column: None,
            title: None,
            message: message.into(),
        }
    }
}

/// Every annotation of a run, most important first within each level.
pub fn collect(result: &RunResult) -> Vec<Annotation> {
    let mut out = Vec::new();
    if let Some(v) = &result.verification {
        for m in &v.mismatches {
            let mut a = Annotation::new(
                Level::Failure,
                format!(
                    "{} in `{}` is recorded as {} but is now {}; the input changed after it was recorded",
                    m.field, result.usage_file, m.recorded, m.actual
                ),
            );
            a.path = Some(result.usage_file.clone());
            a.title = Some("Receipt verification failed".into());
            out.push(a);
        }
    }
    if let Some(review) = &result.review {
        if !review.valid() && review.violations.is_empty() {
            let mut a = Annotation::new(Level::Failure, review.summary());
            a.path = Some(review.path.clone());
            if let crate::review::Verdict::NotJson { position, .. }
            | crate::review::Verdict::TooDeep { position } = &review.verdict
            {
                a.line = Some(position.line);
                a.column = Some(position.column);
            }
            a.title = Some("Agent output rejected".into());
            out.push(a);
        }
        for v in &review.violations {
            let at = if v.instance_path.is_empty() {
                "the document".to_string()
            } else {
                format!("`{}`", v.instance_path)
            };
            let mut a = Annotation::new(
                Level::Failure,
                format!("{} (at {at}; schema {})", v.message, v.schema_path),
            );
            a.path = Some(review.path.clone());
            a.line = v.position.map(|p| p.line);
            a.column = v.position.map(|p| p.column);
            a.title = Some(format!("Schema violation: {}", v.keyword));
            out.push(a);
        }
        for f in review.findings.list.iter().filter(|f| f.is_located()) {
            let mut a = Annotation::new(Level::of_severity(f.severity), f.message.clone());
            a.path = f.path.clone();
            a.line = f.line;
            a.end_line = f.end_line;
            let sev = f.severity.map_or("finding".to_string(), |s| s.to_string());
            a.title = Some(match &f.title {
                Some(t) => format!("{sev}: {t}"),
                None => sev,
            });
            out.push(a);
        }
    }
    for c in &result.caveats {
        let level = match c.level {
            CaveatLevel::Warning => Level::Warning,
            CaveatLevel::Notice => Level::Notice,
        };
        let mut a = Annotation::new(level, c.message.clone());
        a.path = c.file.clone();
        out.push(a);
    }
    out.sort_by_key(|a| std::cmp::Reverse(a.level));
    out
}
