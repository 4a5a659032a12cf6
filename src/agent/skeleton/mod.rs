//! A skeleton agent: the least a fourth agent's folder holds to plug into
//! the seam, compiled and tested behind a test-only registry entry
//! (docs/adding-an-agent.md). It reads `SKELETON.md` at the working
//! directory as its chain, runs nothing else, and has no record format, so
//! its check says so instead of passing.

use std::path::Path;

use crate::agent::chain::{AgentsFile, Chain};
use crate::agent::check::{AgentCheck, Expected};
use crate::agent::checklist::Fields;
use crate::agent::kind::AgentKind;
use crate::agent::reach::{Finder, Reach};
use crate::agent::seam::{About, Agent, SessionOptions, Setup};
use crate::agent::turns::HookConfig;
use crate::error::Error;
use crate::workspace::Workspace;

/// The skeleton, for the registry.
pub(crate) struct Skeleton;

/// What the skeleton is, for the registry.
const ABOUT: About = About {
    kind: AgentKind::Skeleton,
    word: "skeleton",
    name: "Skeleton CLI",
    chain_name: FILE,
    without_home: "no agent-home: the receipt cannot vouch for what reached the skeleton agent",
    without_version: None,
    base_globs: &[("Skeleton config", "**/.skeleton/**")],
    pinned_globs: &[],
    actions: &["example/skeleton-action"],
    aliases: &[],
    instructions: |path| path.rsplit('/').next() == Some(FILE),
    fields: Fields {
        cwd: "",
        version: "",
        commit: "",
        model: "",
        tokens: "",
        answer: "",
        other_version: "",
    },
};

/// Its one instruction file, in the working directory.
const FILE: &str = "SKELETON.md";

impl Agent for Skeleton {
    fn about(&self) -> &'static About {
        &ABOUT
    }

    fn chain(&self, _setup: &Setup, cwd: &Path, ws: &Workspace) -> Result<Chain, Error> {
        let path = cwd.join(FILE);
        let root = std::fs::canonicalize(ws.root()).unwrap_or_else(|_| ws.root().to_path_buf());
        let mut chain = Chain::default();
        if let Ok(bytes) =
            crate::workspace::read_contained(&path, &[&root], crate::limits::FILE_BYTES)
        {
            chain.files.push(AgentsFile {
                path: ws.relative(&path),
                bytes: bytes.len() as u64,
                sha256: crate::digest::sha256_hex(&bytes),
                truncated: false,
            });
            chain.body = Some(String::from_utf8_lossy(&bytes).into_owned());
        }
        Ok(chain)
    }

    fn candidate_paths(&self, _setup: &Setup, cwd: &Path, ws: &Workspace) -> Vec<String> {
        vec![ws.relative(&cwd.join(FILE))]
    }

    fn reach(&self, _setup: &Setup, cwd: &Path, ws: &Workspace) -> Reach {
        let mut f = Finder::new(ws, cwd);
        if let Some((v, by)) = f.json(&cwd.join(".skeleton/hooks.json")) {
            f.hooks(&v["hooks"], &by, &[]);
        }
        f.reach
    }

    fn hook_configs(
        &self,
        _setup: &Setup,
        _cwd: &Path,
        _ws: &Workspace,
        _unread: &mut Vec<String>,
    ) -> Vec<HookConfig> {
        Vec::new()
    }

    fn read_and_check(
        &self,
        _setup: &Setup,
        _session: &SessionOptions,
        _cwd: &Path,
        _ws: &Workspace,
        _expected: &Expected,
    ) -> AgentCheck {
        let mut c = AgentCheck::default();
        c.unverified.push((
            "the skeleton's record".into(),
            "the skeleton agent has no record format: nothing shows what reached it".into(),
        ));
        c
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::agent::Given;

    /// Every answer of the seam reaches the skeleton through the registry.
    #[test]
    fn the_skeleton_plugs_into_the_seam() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        std::fs::write(root.join(FILE), "Be brief.\n").unwrap();
        std::fs::create_dir_all(root.join(".skeleton")).unwrap();
        std::fs::write(
            root.join(".skeleton/hooks.json"),
            r#"{"hooks": {"Start": [{"hooks": [{"type": "command", "command": "sh start.sh"}]}]}}"#,
        )
        .unwrap();
        std::fs::write(root.join("start.sh"), "true\n").unwrap();
        let ws = Workspace::open(root).unwrap();
        let kind = AgentKind::Skeleton;
        assert_eq!(
            (kind.as_str(), kind.name(), kind.chain_name()),
            ("skeleton", "Skeleton CLI", FILE)
        );
        let setup = kind.setup(None, Given::default()).unwrap();
        let chain = setup.chain(ws.root(), &ws).unwrap();
        assert_eq!(chain.files[0].path, FILE);
        assert_eq!(chain.sha(), Some(crate::digest::sha256_hex(b"Be brief.\n")));
        assert_eq!(setup.candidate_paths(ws.root(), &ws), [FILE]);
        let reach = setup.reach(ws.root(), &ws);
        assert_eq!(reach.files[0].path, "start.sh");
        assert_eq!(reach.files[0].kind, "Start hook");
        let session = SessionOptions {
            home: root.to_path_buf(),
            session_id: None,
            max_total_tokens: None,
            single_turn: crate::agent::turns::SingleTurn::Warn,
        };
        let expected = Expected {
            prompt_path: None,
            prompt_bytes: b"",
            agents_sha: None,
            cli_version: None,
            model: None,
            output_path: "r.json",
            output: None,
            max_total_tokens: None,
            git_sha: "",
            workdir: ".",
            inputs: &[],
            changed_skills: &[],
            single_turn: crate::agent::turns::SingleTurn::Warn,
            schema: None,
        };
        let check = setup.read_and_check(&session, ws.root(), &ws, &expected);
        assert_eq!(check.kind, kind);
        assert_eq!(
            check.unverified.len(),
            1,
            "a check that cannot run is not a pass"
        );
        assert_eq!(
            crate::agent::registry::running(|a| a == "example/skeleton-action"),
            Some(kind)
        );
    }
}
