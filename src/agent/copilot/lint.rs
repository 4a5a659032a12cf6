//! Copilot CLI's own lint rule: it has no action of its own, so the step
//! that installs it by npm is its agent step, and the install is held to an
//! exact version with auto-update off.

use crate::level::Level;
use crate::rule::{AgentJob, Finding, Rule, exact_npm_version, finding};
use crate::workflow::Step;

/// Copilot CLI's rule, as docs/lint.md's table gives it.
pub(super) const RULES: &[Rule] = &[Rule {
    name: "copilot-install",
    level: Level::Failure,
    catches: "a step that installs Copilot CLI (`npm install @github/copilot`) without an exact version; a warning when `COPILOT_AUTO_UPDATE` is not `false` (its loader runs a newer cached release than the one installed)",
}];

/// Copilot CLI's findings in one job: each step that installs it.
pub(super) fn lint(job: &AgentJob, out: &mut Vec<Finding>) {
    for &i in job.runs {
        copilot_install(&job.steps[i], out);
    }
}

/// Copilot CLI's npm package: the agent has no action of its own.
const COPILOT_PACKAGE: &str = "@github/copilot";

/// `copilot-install`: Copilot CLI installed by npm at an exact version, with
/// auto-update off (else its loader runs a newer cached release than the one
/// installed, and the receipt's `agent-version` names the wrong one).
fn copilot_install(step: &Step, out: &mut Vec<Finding>) {
    let Some(version) = step.npm_install(COPILOT_PACKAGE) else {
        return;
    };
    let exact = exact_npm_version(step, version.as_deref());
    if !exact {
        out.push(finding(
            "copilot-install",
            Level::Failure,
            step.mark.line,
            format!(
                "this step installs `{COPILOT_PACKAGE}` without an exact version (`{}`): the receipt cannot hold the record to the release that ran; install `{COPILOT_PACKAGE}@1.0.102` (an exact version) and give the receipt the same `agent-version`",
                version.as_deref().unwrap_or("latest")
            ),
        ));
    }
    if step.env_var("COPILOT_AUTO_UPDATE") != Some(Some("false")) {
        out.push(finding(
            "copilot-install",
            Level::Warning,
            step.mark.line,
            "Copilot CLI's loader runs a newer release it finds cached unless `COPILOT_AUTO_UPDATE` is `false`: set `COPILOT_AUTO_UPDATE: \"false\"` in the workflow's env, so the release installed is the one that runs".into(),
        ));
    }
}

#[cfg(test)]
mod tests {
    /// The package the lint holds to an exact version is the one the
    /// registry knows Copilot CLI by.
    #[test]
    fn the_package_is_the_one_the_registry_names() {
        let named = format!("npm:{}", super::COPILOT_PACKAGE);
        assert_eq!(super::super::ABOUT.actions, [named.as_str()]);
    }
}
