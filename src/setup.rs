//! One step from the inputs to the parts each stage needs.
//!
//! [`Inputs`] holds every flag and `INPUT_*` variable as given. The modes turn
//! it, here and only here, into typed parts that hold only what their stage
//! reads, with paths already resolved inside the workspace: the [`Sources`] to
//! hash, how the agent (Codex, Claude Code, Gemini CLI or Copilot CLI) reads
//! its instruction chain, where its record of the run is, the
//! gate's policy, a comparison's request and the report options. Nothing below
//! the modes sees `Inputs`.

use std::path::{Path, PathBuf};

use crate::agent::{Given, SessionOptions, Setup};
use crate::base::Base;
use crate::compare;
use crate::error::Error;
use crate::event::Origin;
use crate::inputs::{DEFAULT_SCHEMA_FILE, Inputs, PromptSource, SchemaSource};
use crate::report;
use crate::review::gate::Policy;
use crate::sources::{Prompt, SchemaInput, Sources};
use crate::workspace::{Location, Workspace};

impl Inputs {
    /// The commit whose instructions are trusted: input `base-ref`, else the
    /// pull request's base from the event.
    pub(crate) fn base(&self, origin: &Origin) -> Option<Base> {
        match (&self.base_ref, &origin.base_sha) {
            (Some(given), _) => Some(Base {
                given: given.clone(),
                from: "input `base-ref`",
                branch: self.base_branch.clone(),
            }),
            (None, Some(sha)) => Some(Base {
                given: sha.clone(),
                from: "the pull request's base",
                branch: self.base_branch.clone(),
            }),
            (None, None) => None,
        }
    }

    /// The receipt file.
    pub(crate) fn usage_location(&self, ws: &Workspace) -> Result<Location, Error> {
        ws.resolve_artifact("usage-file", &self.usage_file)
    }

    /// The folder the agent ran in, inside the workspace.
    pub(crate) fn working_directory(&self, ws: &Workspace) -> Result<PathBuf, Error> {
        let Some(dir) = &self.working_directory else {
            return Ok(ws.root().to_path_buf());
        };
        let loc = ws.resolve("working-directory", dir)?;
        if !loc.path.is_dir() {
            return Err(Error::new(format!(
                "input `working-directory`: `{}` is not a folder; name the folder the agent ran in",
                loc.shown
            )));
        }
        Ok(loc.path)
    }

    /// Every source the step names, resolved in the order they are hashed.
    pub(crate) fn sources(&self, ws: &Workspace) -> Result<Sources, Error> {
        let workdir = self.working_directory(ws)?;
        let prompt = match &self.prompt {
            Some(PromptSource::Inline(text)) => Some(Prompt::Inline(text.clone())),
            Some(PromptSource::File(given)) => {
                Some(Prompt::File(ws.resolve("prompt-file", given)?))
            }
            None => None,
        };
        let template =
            self.optional_file(ws, "prompt-template-file", &self.prompt_template_file)?;
        let tools = ws.resolve("tools-file", &self.tools_file)?;
        let schema = self.schema_input(ws)?;
        let fixture = self.optional_file(ws, "fixture-file", &self.fixture_file)?;
        let output = self.output_location(ws)?;
        Ok(Sources {
            workdir,
            prompt,
            template,
            tools,
            tools_given: self.tools_file_given,
            schema,
            output,
            output_given: self.output_file_given,
            fixture,
            agent_version: self.agent_version.clone(),
            agent_args: self.agent_args.clone(),
            model: self.model.clone(),
            safety_strategy: self.safety_strategy.clone(),
        })
    }

    /// The agent's output.
    pub(crate) fn output_location(&self, ws: &Workspace) -> Result<Location, Error> {
        ws.resolve_artifact("output-file", &self.output_file)
    }

    /// The output schema: inline, the file given, or the default file.
    pub(crate) fn schema_input(&self, ws: &Workspace) -> Result<SchemaInput, Error> {
        Ok(match &self.schema {
            SchemaSource::Inline(text) => SchemaInput::Inline(text.clone()),
            SchemaSource::File(given) => {
                SchemaInput::File(ws.resolve("output-schema-file", given)?)
            }
            SchemaSource::Default => {
                SchemaInput::Default(ws.resolve("output-schema-file", DEFAULT_SCHEMA_FILE)?)
            }
        })
    }

    fn optional_file(
        &self,
        ws: &Workspace,
        input: &str,
        given: &Option<String>,
    ) -> Result<Option<Location>, Error> {
        given.as_deref().map(|g| ws.resolve(input, g)).transpose()
    }

    /// What the step was told of the agent run, in neutral words.
    pub(crate) fn given(&self) -> Given {
        Given {
            version: self.agent_version.clone(),
            args: self.agent_args.clone(),
            effort: self.effort.clone(),
            permission_profile: self.permission_profile.clone(),
            default_branch_instructions: self.default_branch_instructions,
            chain_max_bytes: self.project_doc_max_bytes,
            chain_fallback_names: self.agents_fallback_filenames.clone(),
        }
    }

    /// The agent as this step sets it up: its own settings read from its
    /// home (the agent home) and the inputs; a bad one is an error that names it.
    pub(crate) fn agent_setup(&self, home: Option<&Path>) -> Result<Setup, Error> {
        self.agent.setup(home, self.given())
    }

    /// Where the agent's record of the run is, when its home was given.
    pub(crate) fn session_options(&self, home: Option<&Path>) -> Option<SessionOptions> {
        Some(SessionOptions {
            home: home?.to_path_buf(),
            session_id: self.session_id.clone(),
            max_total_tokens: self.max_total_tokens,
            single_turn: self.single_turn,
        })
    }

    /// What fails the step, and where the findings are.
    pub(crate) fn gate_policy(&self) -> Policy {
        Policy {
            fail_on: self.fail_on,
            min_severity: self.min_severity,
            findings_pointer: self.findings_pointer.clone(),
        }
    }

    /// (`compare`) The base run to compare this run with.
    pub(crate) fn compare_request(&self, ws: &Workspace) -> Result<compare::Request, Error> {
        let base_given = self.base_usage_file.as_deref().ok_or_else(|| {
            Error::new("mode `compare` needs `base-usage-file`: the receipt of the run to compare with (download it as an artifact)")
        })?;
        Ok(compare::Request {
            base_usage: ws.resolve("base-usage-file", base_given)?,
            base_output: self.optional_file(ws, "base-output-file", &self.base_output_file)?,
            head_output: self.output_location(ws)?,
            allow: self.allow_changed.clone(),
            findings_pointer: self.findings_pointer.clone(),
        })
    }

    /// Where the result goes besides the log: the check run's name, token and limits.
    pub(crate) fn report_options(&self) -> report::Options {
        report::Options {
            check_name: self.check_name.clone(),
            token: self.github_token.clone(),
            max_annotations: self.max_annotations as usize,
            api_timeout: std::time::Duration::from_secs(self.api_timeout),
            own: report::Own {
                app: self.app_slug.clone(),
                earlier: self.earlier_check_runs.clone(),
            },
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::inputs::{Invocation, parse};

    fn inputs(args: &[&str]) -> Inputs {
        let mut argv: Vec<std::ffi::OsString> = vec!["prompt-receipt".into()];
        argv.extend(args.iter().map(Into::into));
        match parse(argv, &Default::default()).unwrap() {
            Invocation::Run(i) => *i,
            Invocation::Print(s) => panic!("{s}"),
        }
    }

    #[test]
    fn sources_are_resolved_inside_the_workspace_once() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(dir.path().join("sub")).unwrap();
        let ws = Workspace::open(dir.path()).unwrap();
        let i = inputs(&[
            "--prompt-file",
            "./sub/../p.md",
            "--tools-file",
            "t.json",
            "--working-directory",
            "sub/",
            "--codex-version",
            "0.169.0",
        ]);
        let s = i.sources(&ws).unwrap();
        assert_eq!(s.workdir, ws.root().join("sub"));
        match &s.prompt {
            Some(Prompt::File(loc)) => assert_eq!(loc.shown, "p.md"),
            other => panic!("{other:?}"),
        }
        assert_eq!((s.tools.shown.as_str(), s.tools_given), ("t.json", true));
        assert_eq!(
            (s.output.shown.as_str(), s.output_given),
            ("artifacts/review.json", false)
        );
        assert!(matches!(&s.schema, SchemaInput::Default(l) if l.shown == DEFAULT_SCHEMA_FILE));
        assert_eq!(s.agent_version.as_deref(), Some("0.169.0"));

        let outside = inputs(&["--prompt-file", "../x.md"])
            .sources(&ws)
            .unwrap_err();
        assert!(
            outside.message().contains("outside the workspace"),
            "{outside}"
        );
        let not_a_folder = inputs(&["--prompt", "x", "--working-directory", "nope"])
            .sources(&ws)
            .unwrap_err();
        assert!(
            not_a_folder.message().contains("is not a folder"),
            "{not_a_folder}"
        );
    }

    #[test]
    fn each_stage_gets_only_its_part() {
        let home = Path::new("/codex-home");
        let i = inputs(&[
            "--mode",
            "compare",
            "--agents-fallback-filenames",
            "CLAUDE.md, TEAM.md",
            "--project-doc-max-bytes",
            "100",
            "--session-id",
            "s1",
            "--fail-on",
            "findings",
            "--min-severity",
            "medium",
        ]);
        let given = i.given();
        assert_eq!(given.chain_fallback_names, vec!["CLAUDE.md", "TEAM.md"]);
        assert_eq!(given.chain_max_bytes, Some(100));
        assert!(i.session_options(None).is_none());
        let session = i.session_options(Some(home)).unwrap();
        assert_eq!(session.session_id.as_deref(), Some("s1"));
        let policy = i.gate_policy();
        assert_eq!(
            (
                policy.fail_on,
                policy.min_severity,
                policy.findings_pointer.as_str()
            ),
            (
                crate::review::gate::FailOn::Findings,
                crate::review::findings::Severity::Medium,
                "/findings"
            )
        );
        let dir = tempfile::tempdir().unwrap();
        let ws = Workspace::open(dir.path()).unwrap();
        let e = i.compare_request(&ws).unwrap_err();
        assert!(e.message().contains("needs `base-usage-file`"), "{e}");
    }
}
