//! A skeleton agent: the least a fourth agent's folder holds to plug into
//! the seam, compiled and tested behind a test-only registry entry
//! (docs/adding-an-agent.md). It reads `SKELETON.md` at the working
//! directory as its chain, runs nothing else, and reads the least record an
//! agent can keep (`skeleton.json` in agent-home: where it ran, the prompt,
//! the model, the answer), which the one checklist judges like any other.

use std::path::Path;

use crate::agent::chain::{AgentsFile, Chain};
use crate::agent::check::{AgentCheck, Expected};
use crate::agent::checklist::{self, Answer, Commit, Observation, Recorded};
use crate::agent::kind::AgentKind;
use crate::agent::reach::{Finder, Reach};
use crate::agent::seam::{About, Agent, Fields, SessionOptions, Setup};
use crate::agent::turns::HookConfig;
use crate::error::Error;
use crate::limits;
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
    drops_docker: false,
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
        session: &SessionOptions,
        _cwd: &Path,
        _ws: &Workspace,
        expected: &Expected,
    ) -> AgentCheck {
        let mut c = AgentCheck::default();
        let path = session.home.join(RECORD);
        let record =
            crate::workspace::read_contained(&path, &[&session.home], limits::RECORD_BYTES)
                .ok()
                .and_then(|bytes| serde_json::from_slice::<serde_json::Value>(&bytes).ok());
        let Some(r) = record else {
            c.problems.push(format!(
                "agent-home has no readable `{RECORD}`: give this step the folder the skeleton agent wrote"
            ));
            return c;
        };
        // The record's words, in the checklist's: the rest is judged there.
        let text = |key: &str| r[key].as_str();
        let observed = Observation {
            cwd: text("cwd"),
            prompt: text("prompt"),
            version: Some(text("version").map_or(Recorded::Missing, Recorded::Value)),
            commit: Some(Commit::Never),
            model: text("model"),
            answer: Some(text("answer").map_or(Answer::Missing, Answer::Text)),
            ..Observation::default()
        };
        checklist::judge(&mut c, &ABOUT, observed, expected);
        c
    }
}

/// The skeleton's record, in agent-home.
const RECORD: &str = "skeleton.json";

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
            git_sha: "",
            ..Expected::example()
        };
        let check = setup.read_and_check(&session, ws.root(), &ws, &expected);
        assert_eq!(check.kind, kind);
        assert_eq!(check.problems.len(), 1, "no record is not a pass");
        let cwd = ws.root().display().to_string();
        std::fs::write(
            root.join(RECORD),
            serde_json::json!({"cwd": cwd, "prompt": "", "version": "1.0.0", "model": "m"})
                .to_string(),
        )
        .unwrap();
        let check = setup.read_and_check(&session, ws.root(), &ws, &expected);
        assert!(check.problems.is_empty(), "{:?}", check.problems);
        assert_eq!(check.prompt_sent_sha, Some(crate::digest::sha256_hex(b"")));
        let limits: Vec<&str> = check.limits.iter().map(|(w, _)| w.as_str()).collect();
        assert_eq!(limits, ["the record's commit"], "judged by the checklist");
        assert_eq!(
            crate::agent::registry::running(|a| a == "example/skeleton-action"),
            Some(kind)
        );
    }
}
