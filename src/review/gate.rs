//! The gate the user chooses: which problems fail the step.

use clap::ValueEnum;
use serde::Serialize;

use crate::review::Review;
use crate::review::findings::Severity;

#[derive(Copy, Clone, Debug, PartialEq, Eq, ValueEnum)]
pub enum FailOn {
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
pub struct Policy {
    pub fail_on: FailOn,
    pub min_severity: Severity,
    /// A JSON Pointer into the review.
    pub findings_pointer: String,
}

impl Policy {
    pub fn decide(&self, review: &Review) -> Decision {
        decide(review, self.fail_on, self.min_severity)
    }
}

/// The check run's conclusion, and the step's result.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Conclusion {
    Success,
    Failure,
    /// Problems were found and reported, but `fail-on: never` keeps them from failing.
    Neutral,
}

impl Conclusion {
    pub fn as_str(self) -> &'static str {
        match self {
            Conclusion::Success => "success",
            Conclusion::Failure => "failure",
            Conclusion::Neutral => "neutral",
        }
    }
}

/// The gate's decision, with a reason per problem.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Decision {
    pub conclusion: Conclusion,
    pub reasons: Vec<String>,
}

/// Findings at or above the threshold. A finding with no severity we know counts:
/// a gate that cannot classify a finding does not let it pass silently.
pub fn blocking_findings(review: &Review, min: Severity) -> usize {
    review
        .findings
        .list
        .iter()
        .filter(|f| f.severity.is_none_or(|s| s >= min))
        .count()
}

pub fn decide(review: &Review, fail_on: FailOn, min: Severity) -> Decision {
    let mut invalid = Vec::new();
    if !review.valid() {
        invalid.push(review.summary());
    }
    if let Some(problem) = &review.findings.problem {
        invalid.push(format!("`{}`: {problem}", review.path));
    }
    let mut findings = Vec::new();
    if review.findings.ok == Some(false) {
        findings.push("the review says `ok: false`".to_string());
    }
    let blocking = blocking_findings(review, min);
    if blocking > 0 {
        findings.push(format!(
            "{blocking} finding{} at or above `{min}` (or of unknown severity)",
            if blocking == 1 { "" } else { "s" }
        ));
    }
    let (fails, reported) = match fail_on {
        FailOn::Invalid => (invalid.clone(), Vec::new()),
        FailOn::Findings => ([invalid.clone(), findings.clone()].concat(), Vec::new()),
        FailOn::Never => (Vec::new(), [invalid, findings].concat()),
    };
    let conclusion = if !fails.is_empty() {
        Conclusion::Failure
    } else if !reported.is_empty() {
        Conclusion::Neutral
    } else {
        Conclusion::Success
    };
    Decision {
        conclusion,
        reasons: [fails, reported].concat(),
    }
}
