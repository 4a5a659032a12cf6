//! Step outputs, appended to the file named by `GITHUB_OUTPUT`.

use std::path::PathBuf;

use super::Report;
use crate::error::Error;
use crate::outcome::Outcome;

/// Output name, and the receipt field it carries.
pub const OUTPUTS: &[(&str, &str)] = &[
    ("prompt-sha", "prompt_sha"),
    ("tools-sha", "tools_sha"),
    ("schema-sha", "schema_sha"),
    ("output-sha", "output_sha"),
    ("git-describe", "git_describe"),
    ("git-sha", "git_sha"),
];

/// Outputs that are not receipt fields.
pub const OTHER_OUTPUTS: &[&str] = &[
    "usage-file",
    "verified",
    "valid",
    "ok",
    "findings-count",
    "conclusion",
    "check-run-id",
    "check-run-url",
    "prompt-sent-sha",
    "agents-sha",
    "total-tokens",
    "input-tokens",
    "cached-input-tokens",
    "cache-write-input-tokens",
    "output-tokens",
    "context-sha",
    "controlled",
    "findings-added",
    "findings-removed",
    "instructions-changed",
    "not-verified",
    "statement-file",
    "predicate-file",
    "subjects-file",
    "layout",
    "pinned-commit",
    "pinned-files",
    "not-used",
];

pub(crate) struct StepOutputs {
    pub(crate) file: PathBuf,
}

impl Report for StepOutputs {
    fn name(&self) -> &'static str {
        "step outputs"
    }

    fn report(&mut self, result: &mut Outcome) -> Result<(), Error> {
        if result.error.is_some() {
            return self.write(failed(result));
        }
        if result.mode == crate::inputs::Mode::Restore {
            return self.write(pinned(result));
        }
        let mut values: Vec<(&str, String)> = OUTPUTS
            .iter()
            .map(|(name, field)| (*name, result.field(field)))
            .collect();
        values.push(("usage-file", result.usage_file.clone()));
        values.extend(attestation_files(result));
        // A check that could not run is not a pass: `verified` says both.
        let missing: Vec<String> = result.not_verified_names();
        if let Some(v) = &result.verification {
            values.push(("verified", (v.passed() && missing.is_empty()).to_string()));
        }
        if !missing.is_empty() {
            values.push(("not-verified", missing.join(", ")));
        }
        if let Some(c) = &result.instructions {
            let paths: Vec<&str> = c.changes.iter().map(|c| c.path.as_str()).collect();
            values.push(("instructions-changed", paths.join("\n")));
            if result.pinned.is_some() {
                let paths: Vec<&str> = c.not_used.iter().map(|c| c.path.as_str()).collect();
                values.push(("not-used", paths.join("\n")));
            }
        }
        values.extend(
            pinned(result)
                .into_iter()
                .filter(|(k, _)| *k != "conclusion"),
        );
        if let Some(r) = &result.review {
            values.push(("valid", r.valid().to_string()));
            values.push((
                "ok",
                r.findings.ok.map(|ok| ok.to_string()).unwrap_or_default(),
            ));
            values.push(("findings-count", r.findings.list.len().to_string()));
        }
        values.push(("conclusion", result.conclusion().as_str().to_string()));
        // Always written, empty when the run cannot tell: a later step can
        // test `== 'binding'` without first asking whether it is set.
        values.push((
            "layout",
            result
                .layout
                .map(|l| l.as_str().to_string())
                .unwrap_or_default(),
        ));
        if result.receipt.contains_key("agents_sha") {
            values.push(("agents-sha", result.field("agents_sha")));
        }
        if let Some(c) = &result.comparison {
            values.push(("controlled", c.controlled.to_string()));
            values.push(("findings-added", c.findings.added.len().to_string()));
            values.push(("findings-removed", c.findings.removed.len().to_string()));
        }
        if let Some(a) = &result.agent {
            values.extend(agent_outputs(a));
        }
        if let Some(crate::outcome::CheckRunOutcome::Published { id, url, .. }) = &result.check_run
        {
            values.push(("check-run-id", id.to_string()));
            values.push(("check-run-url", url.clone()));
        }
        self.write(values)
    }
}

/// What the agent's record showed: the prompt it was sent, its tokens, its
/// context.
fn agent_outputs(a: &crate::agent::AgentCheck) -> Vec<(&'static str, String)> {
    let tokens = a.tokens.as_ref();
    let count =
        |f: fn(&crate::agent::Tokens) -> u64| tokens.map(|t| f(t).to_string()).unwrap_or_default();
    vec![
        (
            "prompt-sent-sha",
            a.prompt_sent_sha.clone().unwrap_or_default(),
        ),
        ("total-tokens", count(|t| t.total)),
        ("input-tokens", count(|t| t.input)),
        ("cached-input-tokens", count(|t| t.cached_input)),
        ("cache-write-input-tokens", count(|t| t.cache_write_input)),
        ("output-tokens", count(|t| t.output)),
        (
            "context-sha",
            a.context
                .as_ref()
                .map(|c| c.sha.clone())
                .unwrap_or_default(),
        ),
    ]
}

/// What pinning did: the base's commit, each file put back (one a line).
fn pinned(result: &Outcome) -> Vec<(&'static str, String)> {
    let mut values = Vec::new();
    if let Some(p) = &result.pinned {
        values.push(("pinned-commit", p.commit.clone()));
        let paths: Vec<&str> = p.files.iter().map(|f| f.path.as_str()).collect();
        values.push(("pinned-files", paths.join("\n")));
    }
    values.push(("conclusion", result.conclusion().as_str().to_string()));
    values
}

impl StepOutputs {
    fn write(&self, values: Vec<(&str, String)>) -> Result<(), Error> {
        let mut text = String::new();
        for (name, value) in values {
            text.push_str(&entry(name, &value, &delimiter()?)?);
        }
        super::append_to_step_file("GITHUB_OUTPUT", &self.file, text.as_bytes())
    }
}

/// A run that could not be made: its conclusion, the layout, and the check
/// that says why; nothing of a receipt that was never made.
fn failed(result: &Outcome) -> Vec<(&'static str, String)> {
    let mut values = vec![
        ("conclusion", result.conclusion().as_str().to_string()),
        (
            "layout",
            result
                .layout
                .map(|l| l.as_str().to_string())
                .unwrap_or_default(),
        ),
    ];
    if let Some(crate::outcome::CheckRunOutcome::Published { id, url, .. }) = &result.check_run {
        values.push(("check-run-id", id.to_string()));
        values.push(("check-run-url", url.clone()));
    }
    values
}

/// Where `run` wrote the statement, its predicate and its subjects.
fn attestation_files(result: &Outcome) -> Vec<(&'static str, String)> {
    match &result.attestation {
        Some([statement, predicate, subjects]) => vec![
            ("statement-file", statement.shown.clone()),
            ("predicate-file", predicate.shown.clone()),
            ("subjects-file", subjects.shown.clone()),
        ],
        None => Vec::new(),
    }
}

/// `name<<DELIM\nvalue\nDELIM\n`: the multi-line form, safe for any value.
/// A value that contains the delimiter is refused, as `@actions/core` does.
pub(crate) fn entry(name: &str, value: &str, delim: &str) -> Result<String, Error> {
    if value.contains(delim) || name.contains(delim) {
        return Err(Error::new(format!(
            "output `{name}` contains the delimiter `{delim}`; this cannot happen by chance: check the inputs"
        )));
    }
    Ok(format!("{name}<<{delim}\n{value}\n{delim}\n"))
}

/// A fresh random delimiter from the OS, like the toolkit's `ghadelimiter_<uuid>`.
fn delimiter() -> Result<String, Error> {
    let mut bytes = [0u8; 16];
    getrandom::fill(&mut bytes)
        .map_err(|e| Error::new(format!("no randomness for an output delimiter: {e}")))?;
    Ok(format!("ghadelimiter_{}", hex::encode(bytes)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn multi_line_values_use_the_delimiter_form() {
        let e = entry("git-describe", "a\nb", "D").unwrap();
        assert_eq!(e, "git-describe<<D\na\nb\nD\n");
        assert!(entry("x", "has D inside", "D").is_err());
        assert_ne!(delimiter().unwrap(), delimiter().unwrap());
    }
}
