//! Where the tool runs: inside a GitHub Actions step or on a developer's machine.
//! Read once from the environment, so everything downstream is testable.

use std::path::PathBuf;

use crate::inputs::Env;

#[derive(Clone, Debug, Default)]
pub struct Context {
    /// `GITHUB_ACTIONS=true`: speak workflow commands, write step files.
    pub in_actions: bool,
    /// The workspace root: `--workspace`, else `GITHUB_WORKSPACE`, else the current folder.
    pub workspace: PathBuf,
    /// `GITHUB_OUTPUT`: the step outputs file.
    pub output_file: Option<PathBuf>,
    /// `GITHUB_STEP_SUMMARY`: the job summary file.
    pub summary_file: Option<PathBuf>,
    /// `RUNNER_DEBUG=1`: debug logging.
    pub debug: bool,
}

impl Context {
    pub fn from_env(env: &Env, workspace_flag: Option<PathBuf>) -> Context {
        let var = |k: &str| env.get(k).map(|v| v.trim()).filter(|v| !v.is_empty());
        let path = |k: &str| var(k).map(PathBuf::from);
        let workspace = workspace_flag
            .or_else(|| path("GITHUB_WORKSPACE"))
            .unwrap_or_else(|| std::env::current_dir().unwrap_or_else(|_| PathBuf::from(".")));
        Context {
            in_actions: var("GITHUB_ACTIONS") == Some("true"),
            workspace,
            output_file: path("GITHUB_OUTPUT"),
            summary_file: path("GITHUB_STEP_SUMMARY"),
            debug: var("RUNNER_DEBUG") == Some("1"),
        }
    }
}
