//! Claude Code, as anthropics/claude-code-action runs it.
//!
//! - inputs: `agent-home` (the record, laid out as [`record`] says),
//!   `claude-args` (the action's `claude_args`: `--json-schema`, `--model`,
//!   `--append-system-prompt`), `claude-version`, `model` ([`Settings`]);
//! - its chain: `~/.claude/CLAUDE.md`, then from the git root down to the
//!   working directory each folder's `CLAUDE.md` (or, when there is none
//!   anywhere, `AGENTS.md`), `.claude/CLAUDE.md`, `.claude/rules/**/*.md` and
//!   `CLAUDE.local.md`, with `@path` imports ([`chain`]);
//! - its record: the execution file the action writes and the session's
//!   project record under `~/.claude/projects` ([`record`]);
//! - the check of the record against the checkout ([`check`]).

pub mod chain;
pub(crate) mod check;
pub(crate) mod reach;
pub(crate) mod record;

use std::path::Path;

use crate::agent::chain::Chain;
use crate::agent::check::{AgentCheck, Expected};
use crate::agent::kind::AgentKind;
use crate::agent::reach::Reach;
use crate::agent::seam::{About, Agent, Alias, Fields, SessionOptions, Setup};
use crate::agent::turns::HookConfig;
use crate::error::Error;
use crate::workspace::Workspace;

/// What Claude Code is, for the registry.
const ABOUT: About = About {
    kind: AgentKind::Claude,
    word: "claude",
    name: "Claude Code",
    chain_name: "CLAUDE.md",
    without_home: "no agent-home: the receipt cannot vouch for what reached the agent (the \
        prompt and CLAUDE.md chain as sent, the CLI version, the tokens); give this step as \
        agent-home the folder the agent job uploaded (docs/claude.md)",
    without_version: None,
    base_globs: chain::BASE_GLOBS,
    pinned_globs: &[],
    actions: &["anthropics/claude-code-action"],
    aliases: &[
        Alias::own("agent-version", "claude-version"),
        Alias::own("agent-args", "claude-args"),
    ],
    drops_docker: false,
    instructions: is_instruction,
    fields: Fields {
        cwd: " (`cwd`)",
        version: " (`claude_code_version`, `version`)",
        commit: " (the git status Claude Code gives the model)",
        model: " (`message.model`, `init.model`)",
        tokens: " (`result.usage`, `message.usage`)",
        answer: "",
        other_version: "",
    },
};
/// A CLAUDE.md, CLAUDE.local.md or AGENTS.md at any level, or anything in a
/// `.claude/` folder (rules, skills, settings, hooks).
fn is_instruction(path: &str) -> bool {
    let name = path.rsplit('/').next().unwrap_or(path);
    matches!(name, "CLAUDE.md" | "CLAUDE.local.md" | "AGENTS.md")
        || path.starts_with(".claude/")
        || path.contains("/.claude/")
}

/// Claude Code, for the registry.
pub(crate) struct Claude;

impl Agent for Claude {
    fn about(&self) -> &'static About {
        &ABOUT
    }

    fn chain(&self, setup: &Setup, cwd: &Path, ws: &Workspace) -> Result<Chain, Error> {
        chain::load(cwd, ws, &chain_options(setup))
    }

    fn candidate_paths(&self, setup: &Setup, cwd: &Path, ws: &Workspace) -> Vec<String> {
        chain::candidate_paths(cwd, ws, &chain_options(setup))
    }

    fn reach(&self, setup: &Setup, cwd: &Path, ws: &Workspace) -> Reach {
        reach::reach(cwd, ws, setup.home.as_deref())
    }

    fn hook_configs(
        &self,
        setup: &Setup,
        cwd: &Path,
        ws: &Workspace,
        unread: &mut Vec<String>,
    ) -> Vec<HookConfig> {
        hook_configs(cwd, ws, setup.home.as_deref(), unread)
    }

    fn read_and_check(
        &self,
        setup: &Setup,
        session: &SessionOptions,
        cwd: &Path,
        ws: &Workspace,
        expected: &Expected,
    ) -> AgentCheck {
        let settings = Settings {
            cli_version: setup.given.version.clone(),
            args: setup.given.args.clone(),
        };
        check::read_and_check(session, &settings, cwd, ws, expected)
    }
}

fn chain_options(setup: &Setup) -> chain::Options {
    chain::Options {
        home: setup.home.clone(),
    }
}

/// What only Claude Code's check takes.
#[derive(Clone, Debug)]
pub(crate) struct Settings {
    /// `claude-version`: the Claude Code release the agent job pinned.
    pub(crate) cli_version: Option<String>,
    /// `claude-args`, as given to claude-code-action (`claude_args`).
    pub(crate) args: Option<String>,
}

/// What `claude-args` says, read as claude-code-action reads `claude_args`
/// (shell words).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(crate) struct Args {
    pub(crate) json_schema: Option<String>,
    pub(crate) model: Option<String>,
    pub(crate) append_system_prompt: Option<String>,
    pub(crate) system_prompt: Option<String>,
    /// `--resume` or `--continue`: the run goes on from an earlier session.
    pub(crate) resumes: bool,
}

impl Args {
    /// Reads `claude-args`; a clear one-line error when it cannot be split.
    pub(crate) fn parse(given: &str) -> Result<Args, String> {
        let words = shlex::split(given).ok_or_else(|| {
            "input `claude-args` has an unclosed quote; give it as claude-code-action's `claude_args`".to_string()
        })?;
        let mut args = Args::default();
        let mut it = words.into_iter().peekable();
        while let Some(word) = it.next() {
            let (flag, inline) = match word.split_once('=') {
                Some((f, v)) if f.starts_with("--") => (f.to_string(), Some(v.to_string())),
                _ => (word.clone(), None),
            };
            let slot = match flag.as_str() {
                "--json-schema" => &mut args.json_schema,
                "--model" => &mut args.model,
                "--append-system-prompt" => &mut args.append_system_prompt,
                "--system-prompt" => &mut args.system_prompt,
                "--resume" | "-r" | "--continue" | "-c" => {
                    args.resumes = true;
                    continue;
                }
                _ => continue,
            };
            let value = match inline {
                Some(v) => v,
                None => match it.next() {
                    Some(v) => v,
                    None => {
                        return Err(format!(
                            "input `claude-args` ends with `{flag}` and no value; give it a value"
                        ));
                    }
                },
            };
            *slot = Some(value);
        }
        Ok(args)
    }
}

/// The settings files that can define hooks, whose output reaches the model:
/// the repository's `.claude/settings.json` and `.claude/settings.local.json`
/// (at the root and in the working directory) and the user's
/// `~/.claude/settings.json` from the agent home. Each is listed when it has
/// `hooks`, or cannot be read as JSON (then nobody can say it has none).
pub(crate) fn hook_configs(
    workdir: &std::path::Path,
    ws: &crate::workspace::Workspace,
    home: Option<&std::path::Path>,
    unread: &mut Vec<String>,
) -> Vec<crate::agent::turns::HookConfig> {
    let mut out = Vec::new();
    // A settings file that is there but not a regular file inside its root
    // (a link out of the checkout, a FIFO) may hold hooks nobody can see.
    let mut read = |path: &std::path::Path, root: &std::path::Path, shown: &str| {
        match crate::workspace::read_contained(path, &[root], crate::limits::CONFIG_BYTES) {
            Ok(bytes) => Some(bytes),
            Err(crate::workspace::Unread::Missing) => None,
            Err(why) => {
                unread.push(why.why(shown));
                None
            }
        }
    };
    let has_hooks = |bytes: &[u8]| match serde_json::from_slice::<serde_json::Value>(bytes) {
        Ok(v) => v.get("hooks").is_some_and(|h| !h.is_null()),
        Err(_) => true,
    };
    if let Some(home) = home {
        let real = std::fs::canonicalize(home).unwrap_or_else(|_| home.to_path_buf());
        for name in ["settings.json", "settings.local.json"] {
            let path = home.join(".claude").join(name);
            if let Some(bytes) = read(&path, &real, &format!("~/.claude/{name}")) {
                if has_hooks(&bytes) {
                    out.push(crate::agent::turns::HookConfig {
                        path: format!("~/.claude/{name}"),
                        sha256: crate::digest::sha256_hex(&bytes),
                    });
                }
            }
        }
    }
    let root = std::fs::canonicalize(ws.root()).unwrap_or_else(|_| ws.root().to_path_buf());
    let mut dirs = vec![ws.root().to_path_buf()];
    if workdir != ws.root() {
        dirs.push(workdir.to_path_buf());
    }
    for dir in dirs {
        for name in [".claude/settings.json", ".claude/settings.local.json"] {
            let path = dir.join(name);
            if let Some(bytes) = read(&path, &root, &ws.relative(&path)) {
                if has_hooks(&bytes) {
                    out.push(crate::agent::turns::HookConfig {
                        path: ws.relative(&path),
                        sha256: crate::digest::sha256_hex(&bytes),
                    });
                }
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn claude_args_are_read_as_shell_words() {
        let a = Args::parse(
            "--max-turns 5 --model claude-sonnet-4-5 --json-schema '{\"type\": \"object\"}' --append-system-prompt=\"Be brief.\"",
        )
        .unwrap();
        assert_eq!(a.model.as_deref(), Some("claude-sonnet-4-5"));
        assert_eq!(a.json_schema.as_deref(), Some("{\"type\": \"object\"}"));
        assert_eq!(a.append_system_prompt.as_deref(), Some("Be brief."));
        assert!(!a.resumes);
        assert!(Args::parse("--model").unwrap_err().contains("`--model`"));
        assert!(
            Args::parse("--model 'x")
                .unwrap_err()
                .contains("unclosed quote")
        );
        assert!(Args::parse("--resume abc").unwrap().resumes);
    }
}
