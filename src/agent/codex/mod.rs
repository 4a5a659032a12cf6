//! OpenAI Codex CLI, as openai/codex-action runs it.
//!
//! - inputs: `codex-home` (the record and the global AGENTS.md), `codex-args`,
//!   `codex-version`, `model`, `effort`, `permission-profile`,
//!   `default-branch-instructions` ([`Settings`], [`config`]);
//! - its chain: AGENTS.md from the project root down to the working directory
//!   ([`chain`]);
//! - its record: the rollout under `$CODEX_HOME/sessions` ([`session`]);
//! - the check of the record against the checkout ([`check`]), with the
//!   repository's skills ([`skills`]).

pub mod chain;
pub(crate) mod check;
pub(crate) mod config;
pub(crate) mod lint;
pub(crate) mod reach;
pub mod session;
pub(crate) mod skills;

use std::any::Any;
use std::path::Path;
use std::sync::Arc;

use crate::agent::chain::Chain;
use crate::agent::check::{AgentCheck, Expected};
use crate::agent::kind::AgentKind;
use crate::agent::reach::Reach;
use crate::agent::seam::{About, Agent, Alias, Fields, Given, SessionOptions, Setup};
use crate::agent::turns::HookConfig;
use crate::error::Error;
use crate::rule::{AgentJob, Finding, Rule};
use crate::workspace::Workspace;
use config::CodexConfig;

/// What Codex is, for the registry.
const ABOUT: About = About {
    kind: AgentKind::Codex,
    word: "codex",
    name: "Codex",
    chain_name: "AGENTS.md",
    without_home: "no codex-home: the receipt cannot vouch for what reached the agent (the \
        prompt and AGENTS.md as sent, the CLI version, the tokens); give this step the same \
        codex-home as openai/codex-action",
    without_version: Some(
        "codex-version was not given: the receipt cannot say which agent CLI ran; pass the \
         agent step's exact codex-version to this step too",
    ),
    base_globs: BASE_GLOBS,
    pinned_globs: &[
        ("AGENTS.md", "**/AGENTS.md"),
        ("AGENTS.md", "**/AGENTS.override.md"),
    ],
    actions: &["openai/codex-action"],
    // `codex-version` and `codex-args` were once every agent's names.
    aliases: &[
        Alias::own("agent-home", "codex-home"),
        Alias::shared("agent-version", "codex-version"),
        Alias::shared("agent-args", "codex-args"),
    ],
    drops_docker: true,
    instructions: is_instruction,
    fields: Fields {
        cwd: " (`session_meta.cwd`)",
        version: " (`session_meta.cli_version`)",
        commit: " (`session_meta.git.commit_hash`; Codex records one when it runs in a repository)",
        model: " (`turn_context.model`)",
        tokens: " (`event_msg` `token_count`)",
        answer: " (`task_complete` `last_agent_message`, an assistant message)",
        other_version: "",
    },
};
/// An AGENTS.md file at any level: instructions for the agents after it.
fn is_instruction(path: &str) -> bool {
    let name = path.rsplit('/').next().unwrap_or(path);
    name == chain::DEFAULT || name == chain::OVERRIDE
}

/// Codex, for the registry.
pub(crate) struct Codex;

impl Agent for Codex {
    fn about(&self) -> &'static About {
        &ABOUT
    }

    fn configure(
        &self,
        given: &Given,
        home: Option<&Path>,
    ) -> Result<Arc<dyn Any + Send + Sync>, Error> {
        Ok(Arc::new(CodexConfig::read(home, given.args.as_deref())?))
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
        hook_configs(&config_of(setup).hooks, cwd, ws, unread)
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
            developer_instructions: config_of(setup).developer_instructions.clone(),
            effort: setup.given.effort.clone(),
            permission_profile: setup.given.permission_profile.clone(),
            default_branch_instructions: setup.given.default_branch_instructions,
        };
        check::read_and_check(session, &settings, cwd, ws, expected)
    }

    fn lint_rules(&self) -> &'static [Rule] {
        lint::RULES
    }

    fn lint(&self, job: &AgentJob, out: &mut Vec<Finding>) {
        lint::lint(job, out);
    }
}

/// The settings `configure` read (none when it was not asked to).
fn config_of(setup: &Setup) -> std::borrow::Cow<'_, CodexConfig> {
    match setup.own::<CodexConfig>() {
        Some(c) => std::borrow::Cow::Borrowed(c),
        None => std::borrow::Cow::Owned(CodexConfig::default()),
    }
}

/// How Codex was set up to read the AGENTS.md chain: this step's inputs,
/// else Codex's settings, else Codex's defaults. In codex-action's
/// `default-branch` mode no project file is read (`project_doc_max_bytes=0`).
pub(crate) fn chain_options(setup: &Setup) -> chain::Options {
    let config = config_of(setup);
    let given = &setup.given;
    let max_bytes = if given.default_branch_instructions {
        0
    } else {
        given
            .chain_max_bytes
            .or(config.project_doc_max_bytes)
            .unwrap_or(chain::DEFAULT_MAX_BYTES)
    };
    let fallback_names = if given.chain_fallback_names.is_empty() {
        config
            .project_doc_fallback_filenames
            .clone()
            .unwrap_or_default()
    } else {
        given.chain_fallback_names.clone()
    };
    chain::Options {
        fallback_names,
        max_bytes,
        root_markers: config
            .project_root_markers
            .clone()
            .unwrap_or_else(chain::default_root_markers),
        home: setup.home.clone(),
    }
}

/// Besides the AGENTS.md chain, compared with the base: skills (each one's
/// description is listed to the model, from `.agents/skills/` and, measured
/// at 0.165.0 to 0.171.0, `.codex/skills/` too: docs/codex.md), the
/// repository's hooks and the rest of its Codex config.
pub(crate) const BASE_GLOBS: &[(&str, &str)] = &[
    ("skill", "**/.agents/skills/**"),
    ("skill", "**/.codex/skills/**"),
    ("Codex hooks", "**/.codex/hooks.json"),
    ("Codex config", "**/.codex/**"),
];

/// The hook configurations: codex-home's (read with its config), then the
/// repository's `.codex/hooks.json` at the root and in the working directory
/// (Codex loads them for a trusted project).
pub(crate) fn hook_configs(
    home: &[HookConfig],
    workdir: &Path,
    ws: &Workspace,
    unread: &mut Vec<String>,
) -> Vec<HookConfig> {
    let mut all = home.to_vec();
    let mut dirs = vec![ws.root().to_path_buf()];
    if workdir != ws.root() {
        dirs.push(workdir.to_path_buf());
    }
    let root = std::fs::canonicalize(ws.root()).unwrap_or_else(|_| ws.root().to_path_buf());
    for dir in dirs {
        let path = dir.join(".codex/hooks.json");
        match crate::workspace::read_contained(&path, &[&root], crate::limits::CONFIG_BYTES) {
            Ok(bytes) => all.push(HookConfig {
                path: ws.relative(&path),
                sha256: crate::digest::sha256_hex(&bytes),
            }),
            Err(crate::workspace::Unread::Missing) => {}
            // A link out of the checkout, a FIFO: hooks nobody can see.
            Err(why) => unread.push(why.why(&ws.relative(&path))),
        }
    }
    all
}

/// What only Codex's check takes.
#[derive(Clone, Debug, Default)]
pub(crate) struct Settings {
    /// `developer_instructions` as Codex's settings give it: what the
    /// developer message must begin with.
    pub(crate) developer_instructions: Option<String>,
    /// What this step was told codex-action ran with.
    pub(crate) effort: Option<String>,
    pub(crate) permission_profile: Option<String>,
    /// codex-action's `default-branch` mode: the agent saw the default
    /// branch's AGENTS files, from `$CODEX_HOME/AGENTS.override.md`.
    pub(crate) default_branch_instructions: bool,
}

#[cfg(test)]
mod seam_tests {
    use super::*;

    /// The step's inputs win over Codex's settings, which win over its defaults.
    #[test]
    fn the_chain_is_read_as_the_inputs_then_the_config_say() {
        let home = tempfile::tempdir().unwrap();
        std::fs::write(
            home.path().join("config.toml"),
            "project_doc_max_bytes = 5\nproject_root_markers = []\nproject_doc_fallback_filenames = [\"X.md\"]\ndeveloper_instructions = \"Be strict.\"\n",
        )
        .unwrap();
        let given = Given {
            chain_max_bytes: Some(100),
            chain_fallback_names: vec!["CLAUDE.md".into(), "TEAM.md".into()],
            ..Given::default()
        };
        let setup = AgentKind::Codex.setup(Some(home.path()), given).unwrap();
        let o = chain_options(&setup);
        assert_eq!(o.fallback_names, ["CLAUDE.md", "TEAM.md"], "the inputs win");
        assert_eq!((o.max_bytes, o.home.as_deref()), (100, Some(home.path())));
        assert!(o.root_markers.is_empty(), "the config's markers");
        assert_eq!(
            config_of(&setup).developer_instructions.as_deref(),
            Some("Be strict.")
        );
        let defaults = chain_options(&AgentKind::Codex.setup(None, Given::default()).unwrap());
        assert_eq!(
            (defaults.max_bytes, defaults.root_markers),
            (32768, vec![".git".to_string()])
        );
        let silenced = Given {
            default_branch_instructions: true,
            ..Given::default()
        };
        assert_eq!(
            chain_options(&AgentKind::Codex.setup(None, silenced).unwrap()).max_bytes,
            0
        );
    }
}
