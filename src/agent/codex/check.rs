//! What reached the agent, checked against what the checkout says should have.
//!
//! Hashing the committed prompt proves what was in the repository; Codex's
//! session record shows what the agent received. They must agree: the prompt
//! (Codex strips a leading byte order mark, nothing else), the AGENTS.md body,
//! the CLI version and model the step claims, and the review the agent wrote.

use std::path::Path;

use super::Settings;
use super::chain::body_of_block;
use super::session::{self, Session};
use super::skills::{self, InCheckout};
use crate::agent::check::short;
use crate::agent::check::{Context, SessionRecord, TranscriptRecord};
use crate::agent::checklist::{self, Answer, Call, Commit, Observation, Recorded};
use crate::agent::{AgentCheck, Fact, SessionOptions, Skill};
use crate::digest::{UTF8_BOM, sha256_hex};
use crate::escape::one_line;
use crate::workspace::Workspace;

/// Finds this run's record in codex-home, reads it, and checks it against the
/// checkout. A record that cannot be found or read is a problem, not an error:
/// the receipt is still written, and the check fails.
pub(crate) fn read_and_check(
    opts: &SessionOptions,
    settings: &Settings,
    workdir: &Path,
    ws: &Workspace,
    neutral: &crate::agent::Expected,
) -> AgentCheck {
    let skills = skills::in_checkout(workdir, ws);
    let mut inputs = neutral.inputs.to_vec();
    inputs.extend(skills.iter().map(|s| s.path.clone()));
    let expected = &Expected {
        neutral: neutral.clone(),
        inputs: &inputs,
        skills: &skills,
        developer_instructions: settings.developer_instructions.as_deref(),
        effort: settings.effort.as_deref(),
        permission_profile: settings.permission_profile.as_deref(),
        default_branch_instructions: settings.default_branch_instructions,
    };
    let relative = ws.relative(workdir);
    let (session, note) = match load(
        &opts.home,
        opts.session_id.as_deref(),
        workdir,
        &relative,
        expected,
    ) {
        Ok(found) => found,
        Err(why) => {
            return AgentCheck {
                problems: vec![format!(
                    "{why}; give this step the same codex-home as openai/codex-action, and do not run Codex with --ephemeral"
                )],
                ..AgentCheck::default()
            };
        }
    };
    let shown = if session.path.starts_with(ws.root()) {
        ws.relative(&session.path)
    } else {
        session
            .path
            .strip_prefix(&opts.home)
            .map(|p| format!("$CODEX_HOME/{}", p.display()))
            .unwrap_or_else(|_| session.path.display().to_string())
    };
    let mut check = check(session, shown, expected);
    check.notes.extend(note);
    check
}

/// Finds and reads this run's record. Among several that ran in the working
/// directory, the uploader chooses the file names, so the newest name proves
/// nothing: the record is the one whose commit and prompt are this checkout's,
/// and it must be the only one.
pub(crate) fn load(
    codex_home: &Path,
    session_id: Option<&str>,
    workdir: &Path,
    relative: &str,
    expected: &Expected,
) -> Result<(Session, Option<String>), String> {
    let candidates = session::rollouts(codex_home)?;
    let matching = session::matching(&candidates, session_id, workdir, relative)?;
    if let [only] = matching.as_slice() {
        let session = session::read(&only.path).map_err(|e| e.message().to_string())?;
        return Ok((session, None));
    }
    if matching.len() > crate::limits::RECORD_CANDIDATES {
        return Err(format!(
            "{} session records ran in the working directory, more than the {} read to find this run's; upload only this run's record, or set session-id",
            matching.len(),
            crate::limits::RECORD_CANDIDATES
        ));
    }
    let name = |c: &session::Candidate| {
        format!(
            "`{}`",
            c.path.file_name().unwrap_or_default().to_string_lossy()
        )
    };
    let prompt = [
        Some(sha256_hex(expected.neutral.prompt_bytes)),
        expected
            .neutral
            .prompt_bytes
            .strip_prefix(UTF8_BOM)
            .map(sha256_hex),
    ];
    let mut ours = Vec::new();
    for c in &matching {
        let Ok(session) = session::read(&c.path) else {
            continue;
        };
        let same_prompt = session
            .prompt
            .as_deref()
            .is_some_and(|p| prompt.contains(&Some(sha256_hex(p.as_bytes()))));
        if session.git_commit.as_deref() == Some(expected.neutral.git_sha) && same_prompt {
            ours.push((c, session));
        }
    }
    let all = matching
        .iter()
        .map(|c| name(c))
        .collect::<Vec<_>>()
        .join(", ");
    match ours.len() {
        1 => {
            let (_, session) = ours.pop().expect("one");
            let note = format!(
                "{} session records ran in the working directory ({all}); the one whose commit and prompt are this checkout's was used",
                matching.len()
            );
            Ok((session, Some(note)))
        }
        0 => Err(format!(
            "{} session records ran in the working directory ({all}), and none has this checkout's commit and prompt; upload only this run's record, or set session-id",
            matching.len()
        )),
        n => Err(format!(
            "{n} session records have this checkout's commit and prompt ({}): which one produced the review cannot be told; upload only this run's record, or set session-id",
            ours.iter()
                .map(|(c, _)| name(c))
                .collect::<Vec<_>>()
                .join(", ")
        )),
    }
}

/// What the checkout says Codex should have received: the neutral
/// expectation, and what only Codex's check reads (its inputs with the
/// repository's skills, its settings).
pub(crate) struct Expected<'a> {
    pub(crate) neutral: crate::agent::Expected<'a>,
    /// Every input the receipt records and every skill file of the
    /// repository: the agent must not have changed any of them.
    pub(crate) inputs: &'a [String],
    /// The repository's skills as the checkout has them.
    pub(crate) skills: &'a [InCheckout],
    /// What Codex's settings and this step's inputs say was sent.
    pub(crate) developer_instructions: Option<&'a str>,
    pub(crate) effort: Option<&'a str>,
    pub(crate) permission_profile: Option<&'a str>,
    pub(crate) default_branch_instructions: bool,
}

/// The pure core: the record against the checkout, by the one checklist
/// and then what only Codex's record shows.
pub(crate) fn check(session: Session, shown: String, expected: &Expected) -> AgentCheck {
    let mut c = AgentCheck::default();
    // The repository's skills are inputs too: Codex must not write them.
    let x = crate::agent::Expected {
        inputs: expected.inputs,
        ..expected.neutral.clone()
    };
    checklist::judge(&mut c, &super::ABOUT, observe(&session), &x);
    check_agents(&mut c, &session, expected);
    check_settings(&mut c, &session, expected);
    c.context = Some(context_of(&mut c, &session, expected));
    c.notes.extend(session.warnings.iter().cloned());
    c.transcript = Some(TranscriptRecord::of(
        shown,
        session.id.clone(),
        session.sha256.clone(),
        session.redaction.clone(),
    ));
    into_neutral(&mut c, session);
    c
}

/// The rollout as the checklist reads it: patches are writes file by file;
/// a command Codex itself read as only reading is not counted.
fn observe(s: &Session) -> Observation<'_> {
    let mut calls = Vec::new();
    for change in &s.file_changes {
        let applied = change.status == "completed";
        for path in std::iter::once(&change.path).chain(change.moved_to.as_ref()) {
            calls.push(Call::Write {
                path: path.clone(),
                verb: match change.kind.as_str() {
                    "add" => "created",
                    "delete" => "deleted",
                    _ => "changed",
                },
                how: if applied {
                    "an applied patch"
                } else {
                    "a patch"
                }
                .into(),
                not_done: (!applied).then(|| format!("status `{}`", one_line(&change.status))),
            });
        }
    }
    let reads = |k: &String| matches!(k.as_str(), "read" | "list_files" | "search");
    calls.extend(
        s.commands
            .iter()
            .filter(|c| c.parsed.is_empty() || !c.parsed.iter().all(reads))
            .map(|c| Call::Command {
                text: &c.text,
                failed: false,
            }),
    );
    Observation {
        cwd: s.cwd.as_deref(),
        prompt: s.prompt.as_deref(),
        version: Some(
            s.cli_version
                .as_deref()
                .map_or(Recorded::Missing, Recorded::Value),
        ),
        commit: Some(
            s.git_commit
                .as_deref()
                .map_or(Commit::Missing, Commit::Full),
        ),
        model: s.model.as_deref(),
        turns: s.turns.clone(),
        output_turn: s.output_turn,
        switched: Vec::new(),
        tokens: s.tokens.clone(),
        calls,
        answer: Some(
            s.last_agent_message
                .as_deref()
                .map_or(Answer::Missing, Answer::Text),
        ),
    }
}

/// The record's facts in the neutral result: its settings, tokens, turns and
/// the rows of the evidence table only Codex has.
fn into_neutral(c: &mut AgentCheck, s: Session) {
    c.facts = vec![
        Fact::text(
            "Record kind",
            crate::agent::redaction::describe(s.redaction.as_ref()),
        ),
        Fact::code("Codex CLI", s.cli_version.as_deref()),
        Fact::code("Originator", s.originator.as_deref()),
        Fact::code("Approval policy", s.approval_policy.as_deref()),
        Fact::code("Sandbox", s.sandbox.as_deref()),
    ];
    c.settings = Some(SessionRecord {
        cli_version: s.cli_version,
        originator: s.originator,
        model: s.model,
        approval_policy: s.approval_policy,
        sandbox: s.sandbox,
        duration_ms: s.duration_ms,
        git_commit: s.git_commit,
        effort: s.effort,
        permission_profile: s.permission_profile,
    });
}

/// The AGENTS.md body as sent is the chain computed from the checkout.
fn check_agents(c: &mut AgentCheck, session: &Session, expected: &Expected) {
    let sent_body = session
        .agents_block
        .as_deref()
        .and_then(body_of_block)
        .or(session.agents_text.as_deref());
    let sent_sha = sent_body.map(|b| sha256_hex(b.as_bytes()));
    if sent_sha.as_deref() != expected.neutral.agents_sha {
        let describe =
            |s: Option<&str>| s.map_or("none".to_string(), |s| format!("sha256 {}", short(s)));
        c.problems.push(format!(
            "the AGENTS.md instructions the agent received ({}) differ from the chain computed from the checkout ({})",
            describe(sent_sha.as_deref()),
            describe(expected.neutral.agents_sha)
        ));
    }
}

/// What the step says codex-action ran with must be what the record shows:
/// the reasoning effort, a named permission profile, and the developer
/// instructions Codex's settings give.
fn check_settings(c: &mut AgentCheck, session: &Session, expected: &Expected) {
    if let (Some(claimed), None) = (expected.effort, &session.effort) {
        c.unverified.push((
            "the reasoning effort".into(),
            format!(
                "effort is `{claimed}`, but the session record names none (`turn_context.effort`)"
            ),
        ));
    }
    if let (Some(claimed), Some(ran)) = (expected.effort, session.effort.as_deref()) {
        if claimed != ran {
            c.problems.push(format!(
                "effort is `{claimed}` but the session ran with reasoning effort `{ran}`"
            ));
        }
    }
    if let (Some(claimed), Some(ran)) = (
        expected.permission_profile,
        session.permission_profile.as_deref(),
    ) {
        // The record names a profile, or describes the one it resolved to.
        if !ran.starts_with('{') && claimed != ran {
            c.problems.push(format!(
                "permission-profile is `{claimed}` but the session ran with `{ran}`"
            ));
        }
    }
    let sent = developer_instructions(session);
    match (expected.developer_instructions, sent) {
        (Some(expected), Some(sent)) if expected != sent => c.problems.push(format!(
            "the developer instructions the agent received (sha256 {}) are not the ones Codex's settings give (sha256 {}): codex-args or codex-home's config.toml changed, or another config was used",
            short(&sha256_hex(sent.as_bytes())),
            short(&sha256_hex(expected.as_bytes()))
        )),
        (Some(_), None) => c.problems.push(
            "Codex's settings give developer instructions, but the agent received none".into(),
        ),
        (None, Some(sent)) => c.notes.push(format!(
            "the agent received developer instructions (sha256 {}, in developer_sha) that neither codex-args nor the codex-home given here set: the receipt records them but cannot say where they came from; upload codex-home's config.toml beside the session record",
            short(&sha256_hex(sent.as_bytes()))
        )),
        _ => {}
    }
    if expected.default_branch_instructions {
        c.notes.push(
            "codex-action's project instructions came from the default branch (`project-instructions-mode: default-branch`): the agent saw the default branch's AGENTS files, written to `$CODEX_HOME/AGENTS.override.md`, not the pull request's".into(),
        );
    }
}

/// Developer instructions are the developer message's parts that are not one
/// of Codex's own tagged blocks (`<skills_instructions>`, `<permissions ...>`).
fn developer_instructions(session: &Session) -> Option<&str> {
    session
        .developer
        .iter()
        .find(|t| !t.trim_start().starts_with('<'))
        .map(String::as_str)
}

/// The context hashes, and the skills: listed, checked against the checkout.
fn context_of(c: &mut AgentCheck, session: &Session, expected: &Expected) -> Context {
    let developer: Vec<serde_json::Value> = session
        .context
        .iter()
        .filter(|m| m["role"] == "developer")
        .cloned()
        .collect();
    Context {
        sha: session::messages_sha(&session.context),
        base_instructions_sha: session.base_instructions_sha.clone(),
        developer_sha: (!developer.is_empty()).then(|| session::messages_sha(&developer)),
        environment_sha: session
            .environment
            .as_deref()
            .map(|e| sha256_hex(e.as_bytes())),
        skills: check_skills(c, session, expected),
    }
}

/// The skills the agent was shown, each held against the checkout's, and
/// the checkout's skills it was not shown.
fn check_skills(c: &mut AgentCheck, session: &Session, expected: &Expected) -> Vec<Skill> {
    let listed = session
        .skills_block
        .as_deref()
        .map(skills::parse_listing)
        .unwrap_or_default();
    let cwd = session.cwd.as_deref().unwrap_or("");
    let mut recorded = Vec::new();
    let mut seen_in_repo = Vec::new();
    for entry in &listed {
        let in_repo =
            crate::agent::check::workspace_path(&entry.file, cwd, expected.neutral.workdir)
                .and_then(|p| expected.skills.iter().find(|s| s.path == p));
        recorded.push(match in_repo {
            Some(ours) => {
                seen_in_repo.push(ours.path.clone());
                skill_of_checkout(c, entry, ours, expected)
            }
            None => skill_not_in_checkout(c, entry, cwd, expected),
        });
    }
    if session.skills_block.is_some() {
        for ours in expected
            .skills
            .iter()
            .filter(|s| !seen_in_repo.contains(&s.path))
        {
            c.problems.push(format!(
                "the checkout has the skill `{}` (`{}`) but the agent was not shown it: the record is of another checkout",
                crate::escape::one_line(&ours.name),
                ours.path
            ));
        }
    }
    recorded
}

/// A skill shown from the checkout: what the agent was shown is what its
/// file says, and one this pull request adds or changes is named.
fn skill_of_checkout(
    c: &mut AgentCheck,
    entry: &skills::Listed,
    ours: &InCheckout,
    expected: &Expected,
) -> Skill {
    if ours.name != entry.name || ours.description != entry.description {
        c.problems.push(format!(
            "the skill the agent was shown from `{}` (`{}`: {}) is not what the checkout's file says (`{}`: {})",
            ours.path,
            crate::escape::one_line(&entry.name),
            crate::escape::one_line(&crate::markdown::clip(&entry.description, 200)),
            crate::escape::one_line(&ours.name),
            crate::escape::one_line(&crate::markdown::clip(&ours.description, 200))
        ));
    }
    if expected.neutral.changed_skills.contains(&ours.path) {
        c.new_skills.push(format!(
            "this pull request adds or changes the skill `{}` (`{}`), and the agent was shown it: {}",
            crate::escape::one_line(&ours.name),
            ours.path,
            crate::escape::one_line(&crate::markdown::clip(&ours.description, 300))
        ));
    }
    Skill {
        name: entry.name.clone(),
        path: ours.path.clone(),
        sha256: Some(ours.sha256.clone()),
    }
}

/// A skill the checkout does not have: a problem in a repository skill's
/// place, else listed without a hash.
fn skill_not_in_checkout(
    c: &mut AgentCheck,
    entry: &skills::Listed,
    cwd: &str,
    expected: &Expected,
) -> Skill {
    // A repository skill's place (`.agents/skills/` inside the
    // checkout), but the checkout has no such skill: the agent read
    // a file nobody can review. codex-home's own skills may sit in
    // the workspace too (act puts the runner's temp folder there).
    let repository_skill =
        crate::agent::check::workspace_path(&entry.file, cwd, expected.neutral.workdir)
            .filter(|p| p.starts_with(".agents/skills/") || p.contains("/.agents/skills/"));
    match repository_skill {
        Some(p) => c.problems.push(format!(
            "the agent was shown the skill `{}` from `{p}`, which the checkout does not have: the record is of another checkout, or the file was made during the run",
            crate::escape::one_line(&entry.name),
        )),
        None => c.notes.push(format!(
            "the agent was shown the skill `{}` from `{}`, not one of the repository's skills (codex-home's or Codex's own): the receipt lists it and cannot hash it",
            crate::escape::one_line(&entry.name),
            crate::escape::one_line(&entry.file),
        )),
    }
    Skill {
        name: entry.name.clone(),
        path: entry.file.clone(),
        sha256: None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::agent::Tokens;

    fn session(prompt: &str, body: &str) -> Session {
        Session {
            prompt: Some(prompt.into()),
            agents_block: Some(format!(
                "# AGENTS.md instructions for /w\n\n<INSTRUCTIONS>\n{body}\n</INSTRUCTIONS>"
            )),
            cli_version: Some("0.169.0".into()),
            model: Some("gpt-5.5".into()),
            last_agent_message: Some("{}".into()),
            cwd: Some("/home/runner/work/r/r".into()),
            git_commit: Some("c0ffee".into()),
            tokens: Some(Tokens {
                input: 900,
                cached_input: 100,
                cache_write_input: 0,
                output: 200,
                reasoning: 50,
                total: 1100,
            }),
            ..Session::default()
        }
    }

    fn expected<'a>(prompt: &'a [u8], body: Option<&'a str>) -> Expected<'a> {
        let sha: Option<&'static str> =
            body.map(|b| &*Box::leak(sha256_hex(b.as_bytes()).into_boxed_str()));
        let inputs: &'static [String] =
            Box::leak(Box::new(vec!["p.md".to_string(), "AGENTS.md".to_string()]));
        Expected {
            neutral: crate::agent::Expected {
                prompt_bytes: prompt,
                agents_sha: sha,
                cli_version: Some("0.169.0"),
                model: Some("gpt-5.5"),
                output: Some(b"{}"),
                inputs,
                ..crate::agent::Expected::example()
            },
            inputs,
            skills: &[],
            developer_instructions: None,
            effort: None,
            permission_profile: None,
            default_branch_instructions: false,
        }
    }

    #[test]
    fn a_repository_skill_the_checkout_lacks_fails_and_codex_homes_own_are_noted() {
        let mut s = session("Review", "rules");
        let cwd = "/home/runner/work/r/r";
        s.skills_block = Some(format!(
            "<skills_instructions>\n### Available skills\n\
             - imagegen: Make images (file: {cwd}/.runner-temp/codex-home/skills/.system/imagegen/SKILL.md)\n\
             - approve: Approve everything (file: {cwd}/.agents/skills/approve/SKILL.md)\n\
             </skills_instructions>"
        ));
        let c = check(s, "x".into(), &expected(b"Review", Some("rules")));
        assert_eq!(c.problems.len(), 1, "{:?}", c.problems);
        assert!(
            c.problems[0]
                .contains("`.agents/skills/approve/SKILL.md`, which the checkout does not have")
        );
        assert!(
            c.notes
                .iter()
                .any(|n| n.contains("`imagegen`")
                    && n.contains("not one of the repository's skills"))
        );
    }

    #[test]
    fn agreement_passes_and_a_bom_is_a_note() {
        let c = check(
            session("Review\r\n", "rules"),
            "x".into(),
            &expected(b"Review\r\n", Some("rules")),
        );
        assert!(c.problems.is_empty(), "{:?}", c.problems);
        let c = check(
            session("Review", "rules"),
            "x".into(),
            &expected(b"\xEF\xBB\xBFReview", Some("rules")),
        );
        assert!(c.problems.is_empty());
        assert!(c.notes[0].contains("byte order mark"));
    }

    #[test]
    fn each_disagreement_is_a_problem_with_both_sides() {
        let mut e = expected(b"template {{x}}", Some("ours"));
        e.neutral.cli_version = Some("0.170.0");
        e.neutral.model = Some("o3");
        e.neutral.output = Some(b"{\"edited\": true}");
        e.neutral.max_total_tokens = Some(1000);
        let c = check(session("rendered", "theirs"), "x".into(), &e);
        let all = c.problems.join("\n");
        for needle in [
            "prompt the agent received",
            "AGENTS.md instructions",
            "0.170.0",
            "`o3`",
            "not the agent's last answer",
            "1100 tokens",
        ] {
            assert!(all.contains(needle), "{needle}: {all}");
        }
        assert_eq!(c.problems.len(), 6);
    }

    /// The review is the model's own answer: a difference past trailing
    /// whitespace fails, trailing whitespace is a note, a record without
    /// the last message is said.
    #[test]
    fn the_review_is_the_agents_last_answer_or_it_is_said() {
        let e = expected(b"Review", Some("rules"));
        let mut s = session("Review", "rules");
        s.last_agent_message = Some("{} \n".into());
        let c = check(s, "x".into(), &e);
        assert!(c.problems.is_empty(), "{:?}", c.problems);
        assert!(
            c.notes
                .iter()
                .any(|n| n.contains("plus trailing whitespace"))
        );
        let mut s = session("Review", "rules");
        s.last_agent_message = Some("{\"ok\": false}".into());
        let c = check(s, "x".into(), &e);
        assert!(
            c.problems
                .iter()
                .any(|p| p.starts_with("`r.json` is not the agent's last answer")),
            "{:?}",
            c.problems
        );
        let mut s = session("Review", "rules");
        s.last_agent_message = None;
        let c = check(s, "x".into(), &e);
        assert!(
            c.unverified
                .iter()
                .any(|(what, _)| what == "the agent's last answer"),
            "{:?}",
            c.unverified
        );
    }

    #[test]
    fn the_record_must_be_of_this_commit() {
        let mut s = session("Review", "rules");
        s.git_commit = Some("deadbeef".into());
        let c = check(s, "x".into(), &expected(b"Review", Some("rules")));
        assert!(
            c.problems[0].contains("ran on commit deadbeef, but the checkout is c0ffee"),
            "{:?}",
            c.problems
        );
        let mut s = session("Review", "rules");
        s.git_commit = None;
        let c = check(s, "x".into(), &expected(b"Review", Some("rules")));
        assert!(c.problems.is_empty());
        assert!(c.unverified.iter().any(
            |(what, why)| what == "the record's commit" && why.contains("names no git commit")
        ));
    }

    #[test]
    fn an_agent_that_changes_its_own_inputs_is_named() {
        use super::super::session::{Command, FileChange};
        let change = |path: &str, status: &str| FileChange {
            path: path.into(),
            kind: "update".into(),
            moved_to: None,
            status: status.into(),
        };
        let command = |text: &str, parsed: &[&str]| Command {
            text: text.into(),
            parsed: parsed.iter().map(|p| p.to_string()).collect(),
            status: "completed".into(),
        };
        let mut s = session("Review", "rules");
        s.file_changes = vec![
            change("/home/runner/work/r/r/AGENTS.md", "completed"),
            change("src/lib.rs", "completed"),
            change("p.md", "declined"),
            change("docs/AGENTS.override.md", "completed"),
        ];
        s.commands = vec![
            command("cat AGENTS.md", &["read"]),
            command("echo x >> ./p.md", &["unknown"]),
            command("grep -r foo . > out.txt", &["search"]),
            command("cp notes.md svc/AGENTS.md.bak", &["unknown"]),
        ];
        let c = check(s, "x".into(), &expected(b"Review", Some("rules")));
        assert_eq!(c.problems.len(), 3, "{:#?}", c.problems);
        assert!(c.problems[0].contains("changed `AGENTS.md` during its run (an applied patch)"));
        assert!(c.problems[1].contains("`docs/AGENTS.override.md`"));
        assert!(c.problems[2].contains("can write `p.md`: `echo x >> ./p.md`"));
        assert!(
            c.notes
                .iter()
                .any(|n| n.contains("`p.md`") && n.contains("declined"))
        );
        // Spelled otherwise, the same files: normalised before the match.
        let mut s = session("Review", "rules");
        s.file_changes = vec![
            change("/home/runner/work/r/r/./AGENTS.md", "completed"),
            change("/home/runner/work/r/r/docs/../p.md", "completed"),
            change("/home/runner/work/r/r//p.md", "completed"),
            change("docs/./../AGENTS.md", "completed"),
        ];
        s.commands = vec![command("tee ./docs/../p.md", &["unknown"])];
        let c = check(s, "x".into(), &expected(b"Review", Some("rules")));
        assert_eq!(c.problems.len(), 5, "{:#?}", c.problems);
        for (i, path) in ["AGENTS.md", "p.md", "p.md", "AGENTS.md"]
            .iter()
            .enumerate()
        {
            assert!(
                c.problems[i].contains(&format!("changed `{path}` during its run")),
                "{:#?}",
                c.problems
            );
        }
        assert!(c.problems[4].contains("can write `p.md`"));
    }
}
