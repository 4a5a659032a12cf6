//! What reached opencode, checked against what the checkout says should have.
//!
//! The record (`opencode.db`) holds the CLI version, each answer's provider
//! and model, where it ran, the user text as sent, every tool call with its
//! input, the tokens of each step, and at each step the git tree of the
//! working tree. It does not hold the system prompt, the list of
//! instruction files or the tools list: the instruction files are proven
//! through the snapshot ([`super::snapshot`]), and the rest is said as a
//! limit of the agent, on every run.

use std::path::Path;

use super::record::{self, Part, Record, RecordTurn};
use crate::agent::check::{Context, SessionRecord, TranscriptRecord};
use crate::agent::checklist::{self, Answer, Call, Observation, Recorded};
use crate::agent::{AgentCheck, Expected, Fact, SessionOptions};
use crate::digest::sha256_hex;
use crate::workspace::Workspace;

pub(crate) fn read_and_check(
    opts: &SessionOptions,
    workdir: &Path,
    ws: &Workspace,
    expected: &Expected,
) -> AgentCheck {
    let home = &opts.home;
    let fail = |why: String| AgentCheck {
        problems: vec![format!(
            "{why}; give this step, as agent-home, the agent job's home as the collect action uploaded it (`home/`, with `{}/{}`)",
            record::DATA_DIR,
            record::DB
        )],
        ..AgentCheck::default()
    };
    let Some(path) = record::db_path(home) else {
        return fail(format!(
            "no opencode database under `{}`",
            crate::escape::one_line(&home.display().to_string())
        ));
    };
    let r = match record::read(&path, opts.session_id.as_deref(), expected.prompt_bytes) {
        Ok(r) if r.sessions.is_empty() => {
            return fail(format!(
                "the opencode database holds no session{}",
                opts.session_id
                    .as_deref()
                    .map(|id| format!(" `{}`", crate::escape::one_line(id)))
                    .unwrap_or_default()
            ));
        }
        Ok(r) => r,
        Err(why) => return fail(why),
    };
    let chain_opts = super::chain::Options {
        home: Some(home.clone()),
    };
    let chain = super::chain::load(workdir, ws, &chain_opts).unwrap_or_default();
    let chain_files: Vec<String> = chain.files.iter().map(|f| f.path.clone()).collect();
    let mut c = check(&r, expected);
    super::snapshot::check(&mut c, &r, home, ws, &chain_files, expected);
    global_files(&mut c, &chain_files);
    let shown = path
        .strip_prefix(home)
        .map(|p| format!("~/{}", p.display()))
        .unwrap_or_else(|_| path.display().to_string());
    c.transcript = Some(TranscriptRecord {
        path: shown,
        session_id: r.session().map(|s| s.id.clone()),
        sha256: r.sha256.clone(),
        record: crate::agent::redaction::kind(r.redaction.as_ref()).into(),
        redaction: r.redaction.clone(),
    });
    c
}

/// The pure core: the record by the one checklist, then what only
/// opencode's record shows.
pub(crate) fn check(r: &Record, expected: &Expected) -> AgentCheck {
    let mut c = AgentCheck::default();
    let turns = record::turns(r);
    let out_turn = turns.len().checked_sub(1);
    let model = out_turn.and_then(|t| turns[t].models.last().cloned());
    checklist::judge(
        &mut c,
        &super::ABOUT,
        observe(r, &turns, out_turn),
        expected,
    );
    where_it_ran(&mut c, r);
    c.limits.push((
        "the system prompt".into(),
        "opencode's record does not hold the system prompt it sent: the instruction files are proven through the working tree its snapshots name, and the rest (opencode's own text, the environment, the skills list, a URL the configuration names, what a plugin's hook changed) is not shown".into(),
    ));
    c.limits.push((
        "the tools the model was offered".into(),
        "opencode's record holds the tool calls, not the tools list it sent (their names and schemas): the receipt cannot show which tools the model had".into(),
    ));
    if r.others > 0 {
        c.notes.push(format!(
            "the database holds {} other session{}: this run's was taken {}",
            r.others,
            if r.others == 1 { "" } else { "s" },
            "by its session id, else as the latest whose prompt is this checkout's"
        ));
    }
    c.notes.extend(r.warnings.iter().cloned());
    c.context = out_turn.map(|t| Context {
        sha: context_sha(&turns[..t]),
        ..Context::default()
    });
    c.facts.extend(facts(r));
    c.settings = Some(SessionRecord {
        cli_version: r.session().map(|s| s.version.clone()),
        model,
        ..SessionRecord::default()
    });
    c
}

/// The record as the checklist reads it.
fn observe<'r>(r: &'r Record, turns: &'r [RecordTurn], out_turn: Option<usize>) -> Observation<'r> {
    let mut switched = Vec::new();
    for (t, turn) in turns.iter().enumerate() {
        if let Some((_, before)) = turn.models.split_last() {
            switched.extend(before.iter().map(|m| (t, m.as_str())));
        }
    }
    let cwd = r
        .own()
        .find_map(|m| m.cwd.as_deref())
        .or(r.session().map(|s| s.directory.as_str()));
    Observation {
        cwd,
        prompt: out_turn.map(|t| turns[t].prompt.as_str()),
        version: r.session().map(|s| {
            if s.version.is_empty() {
                Recorded::Missing
            } else {
                Recorded::Value(s.version.as_str())
            }
        }),
        // The snapshot ties the record to the commit's tree, not to a commit.
        commit: None,
        model: out_turn.and_then(|t| turns[t].models.last().map(String::as_str)),
        turns: record::neutral_turns(turns),
        output_turn: out_turn,
        switched,
        tokens: record::total_tokens(r),
        calls: calls(r),
        answer: Some(
            out_turn
                .and_then(|t| turns[t].answer.as_deref())
                .map_or(Answer::Missing, Answer::Text),
        ),
    }
}

/// Every tool call of the run (its subagents' too) as writes or commands,
/// and every file a step's snapshots show changed (`patch`), which a shell
/// command's writes are too.
fn calls(r: &Record) -> Vec<Call<'_>> {
    let mut out = Vec::new();
    let mut named: Vec<String> = Vec::new();
    for m in &r.messages {
        for p in &m.parts {
            let Part::Tool {
                tool,
                input,
                status,
            } = p
            else {
                continue;
            };
            let failed = status == "error";
            let not_done = failed.then(|| "its result was an error".to_string());
            let paths: Vec<String> = match tool.as_str() {
                "write" | "edit" | "multiedit" => input["filePath"]
                    .as_str()
                    .map(str::to_string)
                    .into_iter()
                    .collect(),
                "apply_patch" | "patch" => input["patchText"]
                    .as_str()
                    .map(checklist::patched_files)
                    .unwrap_or_default(),
                "bash" => {
                    if let Some(text) = input["command"].as_str() {
                        out.push(Call::Command { text, failed });
                    }
                    continue;
                }
                _ => continue,
            };
            for path in paths {
                named.push(path.clone());
                out.push(Call::Write {
                    path,
                    verb: "changed",
                    how: format!("`{}`", crate::escape::one_line(tool)),
                    not_done: not_done.clone(),
                });
            }
        }
    }
    for m in &r.messages {
        for p in &m.parts {
            if let Part::Patch { files } = p {
                for path in files {
                    if named.contains(path) {
                        continue;
                    }
                    named.push(path.clone());
                    out.push(Call::Write {
                        path: path.clone(),
                        verb: "changed",
                        how: "a step's snapshots show it changed".into(),
                        not_done: None,
                    });
                }
            }
        }
    }
    out
}

/// `session.directory` and the answers' `path.cwd` name one folder.
fn where_it_ran(c: &mut AgentCheck, r: &Record) {
    for m in r.own().filter(|m| m.error.is_some()) {
        c.notes.push(format!(
            "an answer of the model ended in an error (`{}`)",
            crate::escape::one_line(&crate::markdown::clip(
                m.error.as_deref().unwrap_or_default(),
                80
            ))
        ));
    }
    let Some(s) = r.session() else { return };
    let cwds: Vec<&str> = r.own().filter_map(|m| m.cwd.as_deref()).collect();
    if let Some(other) = cwds.iter().find(|c| **c != s.directory) {
        c.notes.push(format!(
            "the session's directory (`{}`) is not the folder its answers name (`{}`): the answers' is the one checked",
            crate::escape::one_line(&crate::markdown::clip(&s.directory, 200)),
            crate::escape::one_line(&crate::markdown::clip(other, 200))
        ));
    }
}

/// A global instruction file is hashed from the agent home as uploaded: no
/// record shows it was sent, and no snapshot holds it.
fn global_files(c: &mut AgentCheck, chain: &[String]) {
    for path in chain
        .iter()
        .filter(|p| p.starts_with(super::chain::HOME_PREFIX))
    {
        c.limits.push((
            format!("what the global `{}` said", crate::escape::one_line(path)),
            "opencode sends it in the system prompt, which its record does not keep, and its snapshots hold only the working tree: the receipt hashes the agent home's copy (`agents`), and cannot show the agent received it".into(),
        ));
    }
}

/// The messages before a turn's prompt, as the receipt hashes them
/// (`context_sha`): each earlier turn's prompt and answer,
/// `[{"role": "user"|"assistant", "text": …}]`, keys sorted, no whitespace.
fn context_sha(earlier: &[RecordTurn]) -> String {
    let mut parts = Vec::new();
    for t in earlier {
        parts.push(serde_json::json!({"role": "user", "text": t.prompt}));
        if let Some(a) = &t.answer {
            parts.push(serde_json::json!({"role": "assistant", "text": a}));
        }
    }
    sha256_hex(serde_json::to_string(&parts).unwrap_or_default().as_bytes())
}

fn facts(r: &Record) -> Vec<Fact> {
    let s = r.session();
    vec![
        Fact::text(
            "Record kind",
            format!(
                "opencode's database, {}",
                crate::agent::redaction::describe(r.redaction.as_ref())
            ),
        ),
        Fact::code("opencode", s.map(|s| s.version.as_str())),
        Fact::code("Session", s.map(|s| s.id.as_str())),
    ]
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::agent::turns::SingleTurn;
    use serde_json::json;

    fn record(tools: Vec<Part>) -> Record {
        let session = record::Session {
            id: "ses_1".into(),
            directory: "/w/r".into(),
            version: "1.18.33".into(),
            ..record::Session::default()
        };
        let user = record::Message {
            id: "m1".into(),
            session: "ses_1".into(),
            role: "user".into(),
            parts: vec![Part::Text {
                text: "Review\n".into(),
                synthetic: false,
            }],
            ..record::Message::default()
        };
        let mut parts = vec![Part::Step {
            snapshot: Some("t".into()),
        }];
        parts.extend(tools);
        parts.push(Part::Text {
            text: "{}".into(),
            synthetic: false,
        });
        let answer = record::Message {
            id: "m2".into(),
            session: "ses_1".into(),
            role: "assistant".into(),
            model: Some("fake/fake-model".into()),
            cwd: Some("/w/r".into()),
            tokens: Some(record::tokens(
                &json!({"input": 980, "output": 100, "reasoning": 0, "cache": {"read": 20, "write": 0}}),
            )),
            parts,
            ..record::Message::default()
        };
        Record {
            sessions: vec![session],
            messages: vec![user, answer],
            ..Record::default()
        }
    }

    fn expected<'a>(inputs: &'a [String]) -> Expected<'a> {
        Expected {
            prompt_path: Some("p.md"),
            prompt_bytes: b"Review\n",
            agents_sha: None,
            cli_version: Some("1.18.33"),
            model: Some("fake/fake-model"),
            output_path: "r.json",
            output: Some(b"{}"),
            max_total_tokens: Some(2000),
            git_sha: "c0ffee",
            workdir: ".",
            inputs,
            changed_skills: &[],
            single_turn: SingleTurn::Warn,
            schema: None,
        }
    }

    #[test]
    fn a_clean_record_passes_and_says_its_limits() {
        let c = check(&record(Vec::new()), &expected(&[]));
        assert!(c.problems.is_empty(), "{:?}", c.problems);
        let t = c.tokens.unwrap();
        assert_eq!(
            (t.input, t.cached_input, t.output, t.total),
            (1000, 20, 100, 1100)
        );
        let limits: Vec<&str> = c.limits.iter().map(|(w, _)| w.as_str()).collect();
        assert_eq!(
            limits,
            ["the system prompt", "the tools the model was offered"]
        );
        assert_eq!(c.prompt_sent_sha, Some(sha256_hex(b"Review\n")));
    }

    #[test]
    fn an_edit_a_version_and_a_model_are_named() {
        let inputs = vec!["p.md".to_string()];
        let tools = vec![
            Part::Tool {
                tool: "edit".into(),
                input: json!({"filePath": "/w/r/AGENTS.md"}),
                status: "completed".into(),
            },
            Part::Tool {
                tool: "bash".into(),
                input: json!({"command": "echo x > p.md"}),
                status: "completed".into(),
            },
            Part::Patch {
                files: vec!["/w/r/sub/CLAUDE.md".into()],
            },
        ];
        let mut x = expected(&inputs);
        x.cli_version = Some("1.18.32");
        x.model = Some("other/model");
        x.max_total_tokens = Some(1000);
        let c = check(&record(tools), &x);
        let all = c.problems.join("\n");
        for said in [
            "changed `AGENTS.md`",
            "can write `p.md`",
            "changed `sub/CLAUDE.md` during its run (a step's snapshots show it changed)",
            "written by opencode `1.18.33`",
            "model is `other/model` but the session ran `fake/fake-model`",
            "over max-total-tokens 1000",
        ] {
            assert!(all.contains(said), "{said}: {all}");
        }
    }
}
