//! The collect action's script (collect/collect.sh) run as the agent job runs
//! it: the real bash, the real jq, the filters it ships. Tests hand its staged
//! folder to prompt-receipt as the receipt workflow downloads it.

use std::path::{Path, PathBuf};
use std::process::Command;

/// What one collect step is given besides the agent.
#[derive(Default)]
pub struct Given<'a> {
    pub agent_home: Option<&'a Path>,
    pub output_file: Option<&'a Path>,
    pub output: Option<&'a str>,
    pub execution_file: Option<&'a Path>,
    pub when: Option<&'a str>,
    /// The agent job's working directory (the checkout).
    pub workspace: Option<&'a Path>,
}

/// The result of one run of the script.
pub struct Collected {
    /// `$RUNNER_TEMP/prompt-receipt-collect/agent-run`.
    pub dir: PathBuf,
    /// What it printed (workflow commands included).
    pub log: String,
    pub ok: bool,
}

/// Runs collect.sh for `agent` with `runner_temp` as `RUNNER_TEMP`.
pub fn run(agent: &str, runner_temp: &Path, given: &Given) -> Collected {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("collect");
    std::fs::create_dir_all(runner_temp).unwrap();
    let output = runner_temp.join("collect-github-output");
    let path = |p: Option<&Path>| p.map(|p| p.display().to_string()).unwrap_or_default();
    let mut cmd = Command::new("bash");
    cmd.arg(root.join("collect.sh"))
        .env("AGENT", agent)
        .env("AGENT_HOME", path(given.agent_home))
        .env("OUTPUT_FILE", path(given.output_file))
        .env("OUTPUT_TEXT", given.output.unwrap_or(""))
        .env("EXECUTION_FILE", path(given.execution_file))
        .env("WHEN", given.when.unwrap_or("after-agent"))
        .env("NAME", "agent-run")
        .env("RUNNER_TEMP", runner_temp)
        .env("GITHUB_ACTION_PATH", &root)
        .env("GITHUB_OUTPUT", &output);
    if let Some(ws) = given.workspace {
        cmd.current_dir(ws);
    }
    let out = cmd.output().expect("bash runs collect.sh");
    Collected {
        dir: runner_temp.join("prompt-receipt-collect/agent-run"),
        log: format!(
            "{}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        ),
        ok: out.status.success(),
    }
}

/// Copies a folder's tree (the artifact as download-artifact lays it out).
pub fn copy_tree(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for entry in std::fs::read_dir(from).unwrap() {
        let entry = entry.unwrap();
        let target = to.join(entry.file_name());
        if entry.file_type().unwrap().is_dir() {
            copy_tree(&entry.path(), &target);
        } else {
            std::fs::copy(entry.path(), target).unwrap();
        }
    }
}
