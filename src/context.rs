//! Where the tool runs: inside a GitHub Actions step or on a developer's machine.
//! Read once from the environment, so everything downstream is testable.

use std::path::PathBuf;

use crate::inputs::Env;

#[derive(Clone, Debug, Default)]
pub struct Context {
    /// `GITHUB_ACTIONS=true`: speak workflow commands, write step files.
    pub(crate) in_actions: bool,
    /// The workspace root: `--workspace`, else `GITHUB_WORKSPACE`, else the current folder.
    pub(crate) workspace: PathBuf,
    /// `GITHUB_OUTPUT`: the step outputs file.
    pub(crate) output_file: Option<PathBuf>,
    /// `GITHUB_STEP_SUMMARY`: the job summary file.
    pub(crate) summary_file: Option<PathBuf>,
    /// `RUNNER_DEBUG=1`: debug logging.
    pub debug: bool,
    /// `GITHUB_REPOSITORY`: `owner/repo`.
    pub(crate) repository: Option<String>,
    /// `GITHUB_API_URL` (GitHub Enterprise Server has its own).
    pub(crate) api_url: String,
    /// `GITHUB_SERVER_URL`, for links to the run.
    pub(crate) server_url: String,
    pub(crate) run_id: Option<String>,
    pub(crate) run_attempt: Option<String>,
    /// `GITHUB_JOB`: the job's id in the workflow.
    pub(crate) job: Option<String>,
    pub(crate) event_name: String,
    pub(crate) event_path: Option<PathBuf>,
    /// `GITHUB_SHA`: on pull requests, the merge commit, not the head.
    pub(crate) sha: Option<String>,
    /// `RUNNER_TEMP`: in the container, where the runner's temp folder is mounted.
    pub(crate) runner_temp: Option<PathBuf>,
    /// `GITHUB_WORKFLOW_REF`: `owner/repo/.github/workflows/file.yml@ref`, the
    /// workflow file that runs this step.
    pub(crate) workflow_ref: Option<String>,
    /// `PROMPT_RECEIPT_SIGNER_WORKFLOW`: the workflow file that will sign the
    /// statement when it is not `GITHUB_WORKFLOW_REF`'s (a reusable workflow,
    /// receipt.yml, signs as itself: `owner/repo/.github/workflows/x.yml`).
    pub(crate) signer_workflow: Option<String>,
}

impl Context {
    /// The link to this workflow run, for the check run's `details_url`.
    pub(crate) fn run_url(&self) -> Option<String> {
        let (repo, id) = (self.repository.as_ref()?, self.run_id.as_ref()?);
        Some(match &self.run_attempt {
            Some(a) => format!("{}/{repo}/actions/runs/{id}/attempts/{a}", self.server_url),
            None => format!("{}/{repo}/actions/runs/{id}", self.server_url),
        })
    }

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
            repository: var("GITHUB_REPOSITORY").map(str::to_string),
            api_url: var("GITHUB_API_URL")
                .unwrap_or("https://api.github.com")
                .trim_end_matches('/')
                .to_string(),
            server_url: var("GITHUB_SERVER_URL")
                .unwrap_or("https://github.com")
                .trim_end_matches('/')
                .to_string(),
            run_id: var("GITHUB_RUN_ID").map(str::to_string),
            run_attempt: var("GITHUB_RUN_ATTEMPT").map(str::to_string),
            job: var("GITHUB_JOB").map(str::to_string),
            event_name: var("GITHUB_EVENT_NAME").unwrap_or_default().to_string(),
            event_path: path("GITHUB_EVENT_PATH"),
            sha: var("GITHUB_SHA").map(str::to_string),
            runner_temp: path("RUNNER_TEMP"),
            workflow_ref: var("GITHUB_WORKFLOW_REF").map(str::to_string),
            signer_workflow: var("PROMPT_RECEIPT_SIGNER_WORKFLOW")
                .filter(|w| crate::inputs::signer_workflow_shape(w))
                .map(str::to_string),
        }
    }
}

#[cfg(test)]
mod signer_tests {
    #[test]
    fn only_a_plain_workflow_path_is_a_signer() {
        use crate::inputs::signer_workflow_shape as ok;
        assert!(ok(
            "prompt-receipt/prompt-receipt/.github/workflows/receipt.yml"
        ));
        for bad in [
            "o/r/.github/workflows/../x.yml",
            "o/r/.github/workflows/x.yml@refs/heads/main",
            "o/r/x.yml",
            "o/r/.github/workflows/x.sh",
            "o/r/.github/workflows/a b.yml",
            "o/r/.github/workflows/x.yml; rm -rf ~",
        ] {
            assert!(!ok(bad), "{bad}");
        }
    }
}
