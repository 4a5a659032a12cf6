//! The gate the user chooses: which problems fail the step.

use clap::ValueEnum;
use serde::Serialize;

use crate::review::Review;
use crate::review::findings::Severity;

#[derive(Copy, Clone, Debug, PartialEq, Eq, ValueEnum)]
pub(crate) enum FailOn {
    /// Fail when the output is missing, unparsable or violates the schema.
    Invalid,
    /// Also fail when `ok` is false or a finding is at or above `min-severity`.
    Findings,
    /// Report only; the review never fails the step.
    Never,
}

/// What the user chose: which problems fail the step, from which severity,
/// and where the review keeps its findings.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Policy {
    pub(crate) fail_on: FailOn,
    pub(crate) min_severity: Severity,
    /// A JSON Pointer into the review.
    pub(crate) findings_pointer: String,
}

impl Policy {
    pub(crate) fn decide(&self, review: &Review) -> Decision {
        decide(review, self.fail_on, self.min_severity)
    }
}

/// The check run's conclusion, and the step's result.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub(crate) enum Conclusion {
    Success,
    Failure,
    /// The step passes, but there is something to look at: the agent says
    /// `ok: false` or reports a finding at or above `min-severity` and
    /// `fail-on: invalid` lets it pass, or `fail-on: never` keeps problems from
    /// failing. A green check beside a high finding would read as "nothing to see".
    Neutral,
}

impl Conclusion {
    pub(crate) fn as_str(self) -> &'static str {
        match self {
            Conclusion::Success => "success",
            Conclusion::Failure => "failure",
            Conclusion::Neutral => "neutral",
        }
    }
}

/// The gate's decision: what fails the step, what it reports without failing,
/// and the policy that drew the line (the summary says which let what pass).
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Decision {
    pub(crate) conclusion: Conclusion,
    /// Each problem that fails the step.
    pub(crate) fails: Vec<String>,
    /// Each problem the policy lets pass.
    pub(crate) passes_over: Vec<String>,
    pub(crate) fail_on: FailOn,
    pub(crate) min_severity: Severity,
}

impl FailOn {
    pub(crate) fn as_str(self) -> &'static str {
        match self {
            FailOn::Invalid => "invalid",
            FailOn::Findings => "findings",
            FailOn::Never => "never",
        }
    }
}

/// Findings at or above the threshold. A finding with no severity we know counts:
/// a gate that cannot classify a finding does not let it pass silently.
pub(crate) fn blocking_findings(review: &Review, min: Severity) -> usize {
    review
        .findings
        .list
        .iter()
        .filter(|f| f.severity.is_none_or(|s| s >= min))
        .count()
}

pub(crate) fn decide(review: &Review, fail_on: FailOn, min: Severity) -> Decision {
    let mut invalid = Vec::new();
    if !review.valid() {
        invalid.push(review.summary());
    }
    if let Some(problem) = &review.findings.problem {
        invalid.push(format!("`{}`: {problem}", review.path));
    }
    let mut findings = Vec::new();
    if review.findings.ok == Some(false) {
        findings.push("the agent says `ok: false`".to_string());
    }
    let blocking = blocking_findings(review, min);
    if blocking > 0 {
        findings.push(format!(
            "{blocking} finding{} at or above `{min}`{}",
            if blocking == 1 { "" } else { "s" },
            if review.findings.list.iter().any(|f| f.severity.is_none()) {
                " (a finding of unknown severity counts)"
            } else {
                ""
            }
        ));
    }
    let (fails, passes_over) = match fail_on {
        FailOn::Invalid => (invalid, findings),
        FailOn::Findings => ([invalid, findings].concat(), Vec::new()),
        FailOn::Never => (Vec::new(), [invalid, findings].concat()),
    };
    let conclusion = if !fails.is_empty() {
        Conclusion::Failure
    } else if !passes_over.is_empty() {
        Conclusion::Neutral
    } else {
        Conclusion::Success
    };
    Decision {
        conclusion,
        fails,
        passes_over,
        fail_on,
        min_severity: min,
    }
}
