//! opencode's own lint rule. Its action installs whatever opencode is newest
//! when the job runs, and so does an npm install without an exact version:
//! the receipt holds the record's CLI version to `agent-version`, which then
//! names no release anyone pinned. The example installs `opencode-ai` at an
//! exact version and runs `opencode run`.

use crate::level::Level;
use crate::rule::{AgentJob, Finding, Rule, exact_npm_version, finding};
use crate::workflow::Step;

/// opencode's rule, as docs/lint.md's table gives it.
pub(super) const RULES: &[Rule] = &[Rule {
    name: "opencode-install",
    level: Level::Failure,
    catches: "a step that installs opencode (`npm install opencode-ai`) without an exact version; a warning on opencode's action (`sst/opencode/github`, `anomalyco/opencode/github`), which installs the newest opencode when it runs",
}];

/// opencode's npm package.
const PACKAGE: &str = "opencode-ai";

/// opencode's findings in one job: each step that installs or runs it.
pub(super) fn lint(job: &AgentJob, out: &mut Vec<Finding>) {
    for &i in job.runs {
        opencode_install(&job.steps[i], out);
    }
}

/// `opencode-install`: installed by npm at an exact version, or said when its
/// action installs it.
fn opencode_install(step: &Step, out: &mut Vec<Finding>) {
    if let Some(version) = step.npm_install(PACKAGE) {
        if !exact_npm_version(step, version.as_deref()) {
            out.push(finding(
                "opencode-install",
                Level::Failure,
                step.mark.line,
                format!(
                    "this step installs `{PACKAGE}` without an exact version (`{}`): the receipt cannot hold the record to the release that ran; install `{PACKAGE}@1.18.33` (an exact version) and give the receipt the same `agent-version`",
                    crate::escape::one_line(version.as_deref().unwrap_or("latest"))
                ),
            ));
        }
        return;
    }
    if !step.uses.is_empty() {
        out.push(finding(
            "opencode-install",
            Level::Warning,
            step.mark.line,
            format!(
                "`{}` installs the newest opencode when the job runs: the receipt holds the record to `agent-version`, which then names no release you pinned; install `{PACKAGE}@<exact version>` by npm and run `opencode run` with the prompt on standard input, as examples/opencode-review does",
                crate::escape::one_line(step.action())
            ),
        ));
    }
}

#[cfg(test)]
mod tests {
    /// The package the lint holds to an exact version is one the registry
    /// knows opencode by.
    #[test]
    fn the_package_is_one_the_registry_names() {
        let named = format!("npm:{}", super::PACKAGE);
        assert!(super::super::ABOUT.actions.contains(&named.as_str()));
    }
}
