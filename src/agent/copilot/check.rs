//! What reached Copilot CLI, checked against what the checkout says should have.
//!
//! The record holds the whole system prompt as sent, so every instruction
//! file of the chain is looked for in it, byte for byte, and each one that is
//! not there is named. It also holds the prompt as given and the user text as
//! sent, the CLI version that ran, each answer's model, the tool calls, the
//! tokens, and that a hook ran. It does not hold the tools the model was
//! offered, which hook command ran or what it printed, or the text of an
//! `.instructions.md` listed by path: those are said as not verified.

use std::path::{Path, PathBuf};

use super::chain::{self, Block, Sent};
use super::record::{self, Record};
use crate::agent::candidates;
use crate::agent::check::short;
use crate::agent::check::{Context, SessionRecord, TranscriptRecord};
use crate::agent::checklist::{self, Answer, Call, Commit, Observation, Recorded};
use crate::agent::turns::Turn;
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
    let (record, note) = match candidates::load::<Record>(
        home,
        opts.session_id.as_deref(),
        expected,
    ) {
        Ok(found) => found,
        Err(why) => {
            return AgentCheck {
                problems: vec![format!(
                    "{why}; give this step, as agent-home, the `~/.copilot` folder the agent job uploaded (with `session-state/<id>/events.jsonl`)"
                )],
                ..AgentCheck::default()
            };
        }
    };
    let shown = record
        .path
        .strip_prefix(home)
        .map(|p| format!("{}{}", chain::HOME_PREFIX, p.display()))
        .unwrap_or_else(|_| record.path.display().to_string());
    let chain_opts = chain::Options {
        home: Some(home.clone()),
    };
    let mut files = Vec::new();
    let ours = chain::blocks(workdir, ws, &chain_opts, &mut files).unwrap_or_default();
    let git_root = ws.relative(&chain::git_root(workdir, ws));
    let mut c = check(&record, &ours, &git_root, expected);
    c.notes.extend(note);
    c.transcript = Some(TranscriptRecord::of(
        shown,
        record.session_id.clone(),
        record.sha256.clone(),
        record.redaction.clone(),
    ));
    c
}

/// Every record under the agent home (`session-state/<id>/events.jsonl`;
/// also under `.copilot/` when the whole home folder was uploaded).
pub fn records(home: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    for state in [
        home.join("session-state"),
        home.join(".copilot/session-state"),
    ] {
        let Ok(sessions) = std::fs::read_dir(&state) else {
            continue;
        };
        for s in sessions
            .flatten()
            .take(crate::limits::RECORD_FOLDER_ENTRIES)
        {
            let events = s.path().join("events.jsonl");
            if std::fs::symlink_metadata(&events).is_ok() {
                out.push(events);
            }
        }
    }
    out.sort();
    out
}

impl candidates::Candidate for Record {
    const LAYOUT: candidates::Layout = candidates::Layout {
        agent: "Copilot CLI",
        pattern: "session-state/<id>/events.jsonl",
        empty_because: "",
    };

    fn records(home: &Path) -> Vec<PathBuf> {
        records(home)
    }

    fn read(path: &Path, home: &Path) -> Result<Self, String> {
        record::read(path, home)
    }

    fn seen(&self) -> candidates::Seen<'_> {
        let turns = &self.turns;
        candidates::Seen::of(self.session_id.as_deref(), turns, self.output_turn(), |t| {
            &t.prompt
        })
    }

    /// Its session's folder: `session-state/<id>/events.jsonl`.
    fn name(&self) -> String {
        let id = self
            .path
            .parent()
            .and_then(Path::file_name)
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        format!("`{}`", crate::escape::one_line(&id))
    }
}

/// The pure core: the record against the checkout's chain (`ours`), by the
/// one checklist and then what only Copilot CLI's record shows; `git_root`
/// is the git root relative to the workspace (`.` for it).
pub(crate) fn check(r: &Record, ours: &[Block], git_root: &str, expected: &Expected) -> AgentCheck {
    let mut c = AgentCheck::default();
    let out_turn = r.output_turn().or(r.turns.len().checked_sub(1));
    let model = out_turn.and_then(|t| r.turns[t].models.last().cloned());
    checklist::judge(&mut c, &super::ABOUT, observe(r, out_turn), expected);
    check_sent(&mut c, r, out_turn);
    let system = out_turn.and_then(|t| r.turns[t].system.as_deref());
    check_instructions(&mut c, system, ours, git_root, expected);
    check_hooks(&mut c, r);
    check_discovered(&mut c, r);
    record_notes(&mut c, r);
    c.context = out_turn.map(|t| Context {
        sha: context_sha(&r.turns[..t]),
        base_instructions_sha: r.turns[t]
            .system
            .as_deref()
            .map(|s| sha256_hex(s.as_bytes())),
        ..Context::default()
    });
    // Every run's: a limit, not something a pull request did.
    c.limits.push((
        "the tools the model was offered".into(),
        "Copilot CLI's record holds the tool calls, not the tools list it sent (their names and schemas): the receipt cannot show which tools the model had".into(),
    ));
    c.facts = facts(r, out_turn);
    c.settings = Some(SessionRecord {
        cli_version: r.version.clone(),
        model,
        git_commit: r.head_commit.clone(),
        ..SessionRecord::default()
    });
    c
}

/// The record as the checklist reads it: a turn's answers can come from
/// several models (the last is the turn's), and a patch names its files.
fn observe(r: &Record, out_turn: Option<usize>) -> Observation<'_> {
    let mut switched = Vec::new();
    for (t, turn) in r.turns.iter().enumerate() {
        if let Some((_, before)) = turn.models.split_last() {
            switched.extend(before.iter().map(|m| (t, m.as_str())));
        }
    }
    Observation {
        cwd: r.cwd.as_deref(),
        prompt: out_turn.map(|t| r.turns[t].prompt.as_str()),
        version: Some(
            r.version
                .as_deref()
                .map_or(Recorded::Missing, Recorded::Value),
        ),
        commit: Some(
            r.head_commit
                .as_deref()
                .map_or(Commit::Missing, Commit::Abbreviated),
        ),
        model: out_turn.and_then(|t| r.turns[t].models.last().map(String::as_str)),
        turns: neutral_turns(r),
        output_turn: out_turn,
        switched,
        tokens: r.tokens(),
        calls: r.tool_calls.iter().flat_map(calls_of).collect(),
        answer: Some(
            out_turn
                .and_then(|t| r.turns[t].answer.as_deref())
                .map_or(Answer::Missing, Answer::Text),
        ),
    }
}

/// A tool call as writes (`apply_patch`, `create`, `edit`, …) or a command.
fn calls_of(call: &record::ToolCall) -> Vec<Call<'_>> {
    let args = &call.args;
    let paths: Vec<String> = match call.name.as_str() {
        "apply_patch" => args
            .as_str()
            .or_else(|| ["input", "patch"].iter().find_map(|k| args[k].as_str()))
            .map(checklist::patched_files)
            .unwrap_or_default(),
        "create" | "edit" | "str_replace" | "write" => ["path", "file_path"]
            .iter()
            .filter_map(|k| args[k].as_str().map(str::to_string))
            .collect(),
        "bash" => {
            return args["command"]
                .as_str()
                .map(|text| Call::Command {
                    text,
                    failed: false,
                })
                .into_iter()
                .collect();
        }
        _ => Vec::new(),
    };
    paths
        .into_iter()
        .map(|path| Call::Write {
            path,
            verb: "changed",
            how: format!("`{}`", crate::escape::one_line(&call.name)),
            not_done: None,
        })
        .collect()
}

/// The user text as sent, which must hold the prompt the record holds (the
/// checklist held that prompt to the checkout's).
fn check_sent(c: &mut AgentCheck, r: &Record, out_turn: Option<usize>) {
    let Some(t) = out_turn.map(|t| &r.turns[t]) else {
        return;
    };
    // 1.0.102 sends the prompt less its trailing whitespace.
    let trimmed = t.prompt.trim_end();
    match t.sent.as_deref() {
        Some(sent) if !sent.contains(&t.prompt) && !trimmed.is_empty() && sent.contains(trimmed) => {
            c.notes.push(format!(
                "Copilot CLI sent the prompt without its trailing whitespace, inside a user text of its own ({} bytes, sha256 {}): the current time before it",
                sent.len(),
                short(&sha256_hex(sent.as_bytes()))
            ));
        }
        Some(sent) if sent.contains(&t.prompt) => {
            if sent != t.prompt {
                c.notes.push(format!(
                    "Copilot CLI sent the prompt inside a user text of its own ({} bytes, sha256 {}): the current time before it{}",
                    sent.len(),
                    short(&sha256_hex(sent.as_bytes())),
                    if sent.trim_end().ends_with("</system_reminder>") {
                        ", and a system reminder after it"
                    } else {
                        ""
                    }
                ));
            }
        }
        Some(sent) => c.problems.push(format!(
            "the user text Copilot CLI sent (sha256 {}) does not hold the prompt it records: the record contradicts itself",
            short(&sha256_hex(sent.as_bytes()))
        )),
        None => c.unverified.push((
            "the user text as sent".into(),
            "the record's user message has no `transformedContent`: what was sent around the prompt is not shown".into(),
        )),
    }
}

/// Where `needle` is in `hay` at or after `from`.
fn find_from(hay: &str, needle: &str, from: usize) -> Option<usize> {
    hay.get(from..)?.find(needle).map(|at| at + from)
}

/// Each file of the checkout's chain inside the system prompt the agent
/// received, byte for byte and in order; each one missing is named, and
/// every `<custom_instruction>` the checkout does not account for too.
fn check_instructions(
    c: &mut AgentCheck,
    system: Option<&str>,
    ours: &[Block],
    git_root: &str,
    expected: &Expected,
) {
    let Some(system) = system else {
        c.problems.push(
            "the session record holds no system prompt (`system.message`): the instruction files cannot be checked".into(),
        );
        return;
    };
    let mut found: Vec<Block> = Vec::new();
    let mut matched: Vec<(usize, usize)> = Vec::new();
    let mut at = 0;
    for b in ours {
        let needle = match b.sent {
            Sent::Wrapped => format!("<custom_instruction>\n{}\n</custom_instruction>", b.text),
            Sent::Inline => b.text.clone(),
            Sent::Listed => {
                let rel = match git_root {
                    "." | "" => b.path.clone(),
                    root => b
                        .path
                        .strip_prefix(&format!("{root}/"))
                        .unwrap_or(&b.path)
                        .to_string(),
                };
                let row = format!("'{rel}' |");
                if system.contains(&row) {
                    found.push(b.clone());
                    // Every run's (the file itself is compared with the base).
                    c.limits.push((
                        format!("what `{}` says", crate::escape::one_line(&b.path)),
                        format!(
                            "its `applyTo` is `{}`: Copilot CLI listed its path for the model to read, and did not send its text; the receipt hashes the file (`agents`), and a tool call would show it read",
                            crate::escape::one_line(b.apply_to.as_deref().unwrap_or_default())
                        ),
                    ));
                } else {
                    c.problems.push(format!(
                        "the checkout's `{}` (`applyTo` narrower than `**`) is not listed in the system prompt the agent received",
                        crate::escape::one_line(&b.path)
                    ));
                }
                continue;
            }
        };
        // In order; a wrapped file (specific enough) anywhere.
        let anywhere = || {
            (b.sent == Sent::Wrapped)
                .then(|| system.find(&needle))
                .flatten()
        };
        match find_from(system, &needle, at).or_else(anywhere) {
            Some(pos) => {
                matched.push((pos, pos + needle.len()));
                at = pos + needle.len();
                found.push(b.clone());
            }
            None => c.problems.push(format!(
                "`{}` as the checkout has it (sha256 {}) is not in the system prompt the agent received: the file changed after the run, or the record is of another checkout",
                crate::escape::one_line(&b.path),
                short(&sha256_hex(b.text.as_bytes()))
            )),
        }
    }
    unaccounted(c, system, &matched);
    let sent_sha = chain::render(&found).map(|b| sha256_hex(b.as_bytes()));
    if sent_sha.as_deref() != expected.agents_sha {
        let describe =
            |s: Option<&str>| s.map_or("none".to_string(), |s| format!("sha256 {}", short(s)));
        c.problems.push(format!(
            "the instructions found in the system prompt the agent received ({}) differ from the chain computed from the checkout ({})",
            describe(sent_sha.as_deref()),
            describe(expected.agents_sha)
        ));
    }
}

/// Each `<custom_instruction>` of the system prompt that no file of the
/// checkout's chain accounts for (`matched`: where the chain's files are).
fn unaccounted(c: &mut AgentCheck, system: &str, matched: &[(usize, usize)]) {
    let mut pos = 0;
    while let Some(open) = find_from(system, "<custom_instruction>\n", pos) {
        let Some(close) = find_from(system, "\n</custom_instruction>", open) else {
            break;
        };
        let end = close + "\n</custom_instruction>".len();
        if !matched.iter().any(|(s, e)| *s <= open && end <= *e) {
            let text = &system[open + "<custom_instruction>\n".len()..close];
            c.problems.push(format!(
                "the agent received an instruction file (sha256 {}, {} bytes) that the checkout's chain does not have: a file removed after the run, one in the agent home not uploaded, or a record of another checkout",
                short(&sha256_hex(text.as_bytes())),
                text.len()
            ));
        }
        pos = end;
    }
}

/// Every hook that ran is named: the record says it ran, not which command
/// ran nor what it printed.
fn check_hooks(c: &mut AgentCheck, r: &Record) {
    let n = r.turns.len();
    for (i, t) in r.turns.iter().enumerate() {
        let of_turn = if n > 1 {
            format!(" of turn {}", i + 1)
        } else {
            String::new()
        };
        let mut seen: Vec<&str> = Vec::new();
        for h in &t.hooks {
            if seen.contains(&h.as_str()) {
                continue;
            }
            seen.push(h);
            let count = t.hooks.iter().filter(|x| *x == h).count();
            // Its configuration and scripts are compared with the base;
            // that the record keeps no command or output holds for every run.
            c.hook_said.push((
                format!("what the {} hook ran{of_turn}", crate::escape::one_line(&crate::markdown::clip(h, 40))),
                format!(
                    "a `{}` hook ran {count} time{}{of_turn} (the record's `hook.start`): Copilot CLI records neither its command nor the file it came from, nor what it printed; the hook configurations are in the receipt's runtime files (`.github/hooks/*.json`, `.github/copilot/settings*.json`)",
                    crate::escape::one_line(&crate::markdown::clip(h, 40)),
                    if count == 1 { "" } else { "s" }
                ),
            ));
        }
    }
}

/// The instruction files Copilot CLI sent once a tool read a file in their
/// folder: named, not verified. The record holds their text (1.0.80) or
/// only their names (1.0.102), after the prompt; the comparison with the
/// base covers every such file (`**/AGENTS.md`, ...), the chain does not.
fn check_discovered(c: &mut AgentCheck, r: &Record) {
    if r.discovered.is_empty() {
        return;
    }
    let names: Vec<String> = r
        .discovered
        .iter()
        .take(20)
        .map(|p| {
            format!(
                "`{}`",
                crate::escape::one_line(&crate::markdown::clip(p, 200))
            )
        })
        .collect();
    let more = r.discovered.len().saturating_sub(names.len());
    c.unverified.push((
        "the instruction files loaded just in time".into(),
        format!(
            "once a tool read a file in their folder, Copilot CLI sent {}{} to the model, after the prompt: the receipt names them and does not hash them (a pull request that changes one is named by the comparison with the base)",
            names.join(", "),
            if more > 0 { format!(" and {more} more") } else { String::new() }
        ),
    ));
}

fn record_notes(c: &mut AgentCheck, r: &Record) {
    c.notes.extend(r.warnings.iter().cloned());
    if r.unread_lines > 0 {
        c.unverified.push((
            "the whole record".into(),
            format!("{} line(s) of the session record were not read: what they held (a prompt, a hook, an answer) is not known", r.unread_lines),
        ));
    }
    if r.resumes > 0 {
        c.timeline.push(format!(
            "The session was resumed {} time{}: the model saw the earlier turns",
            r.resumes,
            if r.resumes == 1 { "" } else { "s" }
        ));
    }
}

/// The messages before a turn's prompt, as the receipt hashes them
/// (`context_sha`): each earlier turn's user text as sent and its answer,
/// `[{"role": "user"|"assistant", "text": …}]`, keys sorted, no whitespace.
fn context_sha(earlier: &[record::RecordTurn]) -> String {
    let mut parts = Vec::new();
    for t in earlier {
        parts.push(
            serde_json::json!({"role": "user", "text": t.sent.as_deref().unwrap_or(&t.prompt)}),
        );
        if let Some(a) = &t.answer {
            parts.push(serde_json::json!({"role": "assistant", "text": a}));
        }
    }
    sha256_hex(serde_json::to_string(&parts).unwrap_or_default().as_bytes())
}

/// The record's turns in the neutral form. Each turn's context is every turn
/// before it: hashed as it grows ([`context_sha`]'s bytes, each part written
/// once), since hashing it again for each turn made a long first prompt and
/// a thousand turns after it hash that prompt a thousand times.
fn neutral_turns(r: &Record) -> Vec<Turn> {
    use std::io::Write;
    // `[` and the parts so far, each `{"role":…,"text":…}` as `context_sha`
    // serializes it; a turn's hash closes the array.
    let mut before = crate::digest::HashWriter::default();
    let mut empty = true;
    let mut part = |before: &mut crate::digest::HashWriter, role: &str, text: &str| {
        let _ = before.write_all(if empty { b"[" } else { b"," });
        let _ = write!(before, "{{\"role\":\"{role}\",\"text\":");
        let _ = serde_json::to_writer(&mut *before, text);
        let _ = before.write_all(b"}");
        empty = false;
    };
    let mut turns = Vec::with_capacity(r.turns.len());
    for t in &r.turns {
        let mut now = crate::digest::HashWriter(before.0.clone());
        let closing: &[u8] = if turns.is_empty() { b"[]" } else { b"]" };
        let _ = now.write_all(closing);
        turns.push(Turn {
            model: t.models.last().cloned(),
            prompt_sha: Some(sha256_hex(t.prompt.as_bytes())),
            context_sha: Some(now.hex()),
            items: Vec::new(),
        });
        part(&mut before, "user", t.sent.as_deref().unwrap_or(&t.prompt));
        if let Some(a) = &t.answer {
            part(&mut before, "assistant", a);
        }
    }
    turns
}

fn facts(r: &Record, out_turn: Option<usize>) -> Vec<Fact> {
    let sent = out_turn.and_then(|t| r.turns[t].sent.as_deref());
    vec![
        Fact::text(
            "Record kind",
            format!(
                "Copilot CLI's session events, {}",
                crate::agent::redaction::describe(r.redaction.as_ref())
            ),
        ),
        Fact::code("Copilot CLI", r.version.as_deref()),
        Fact::code(
            "User text sent (sha256)",
            sent.map(|s| sha256_hex(s.as_bytes())).as_deref(),
        ),
        Fact::code("Record commit", r.head_commit.as_deref()),
    ]
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn block(path: &str, text: &str, sent: Sent) -> Block {
        Block {
            path: path.into(),
            text: text.into(),
            sent,
            apply_to: (sent == Sent::Listed).then(|| "**/*.py".into()),
        }
    }

    /// Each turn's context, hashed as the turns go, is the hash of all the
    /// turns before it.
    #[test]
    fn the_growing_context_hashes_as_the_turns_before() {
        let turn = |prompt: &str, sent: Option<&str>, answer: Option<&str>| record::RecordTurn {
            prompt: prompt.into(),
            sent: sent.map(Into::into),
            answer: answer.map(Into::into),
            ..Default::default()
        };
        let mut r = Record::default();
        r.turns = vec![
            turn("one \"q\"\n", Some("<t>\n\none\n"), Some("{}")),
            turn("two", None, None),
            turn("three", None, Some("a\u{1}")),
            turn("four", None, None),
        ];
        let turns = neutral_turns(&r);
        for (i, t) in turns.iter().enumerate() {
            assert_eq!(
                t.context_sha.as_deref(),
                Some(context_sha(&r.turns[..i]).as_str()),
                "turn {i}"
            );
        }
    }

    fn record(system: &str, tool: Option<serde_json::Value>) -> Record {
        let mut lines = vec![
            json!({"type": "session.start", "data": {"sessionId": "s", "copilotVersion": "1.0.102", "context": {"cwd": "/w/r", "headCommit": "c0ffee"}}}),
            json!({"type": "user.message", "data": {"content": "Review\n", "transformedContent": "<current_datetime>t</current_datetime>\n\nReview\n"}}),
            json!({"type": "system.message", "data": {"content": system}}),
        ];
        if let Some(t) = tool {
            lines.push(json!({"type": "assistant.message", "data": {"model": "m", "content": "", "toolRequests": [t]}}));
        }
        lines.push(json!({"type": "assistant.message", "data": {"model": "m", "content": "{}"}}));
        lines.push(json!({"type": "session.shutdown", "data": {"modelMetrics": {"m": {"usage": {"inputTokens": 900, "outputTokens": 100}}}}}));
        let text: String = lines.iter().map(|l| format!("{l}\n")).collect();
        record::parse(Path::new("e.jsonl"), text.as_bytes())
            .unwrap()
            .0
    }

    fn expected<'a>(agents_sha: Option<&'a str>) -> Expected<'a> {
        Expected {
            prompt_bytes: b"Review\n",
            agents_sha,
            cli_version: Some("1.0.102"),
            model: Some("m"),
            output: Some(b"{}"),
            ..Expected::example()
        }
    }

    fn system_of(blocks: &[Block]) -> String {
        format!(
            "</tools>\n\n{}| **/*.py | '.github/instructions/py.instructions.md' |  |\n<system_notifications>",
            chain::render(blocks).unwrap()
        )
    }

    #[test]
    fn each_file_is_found_in_the_system_prompt_and_a_changed_one_named() {
        let ours = vec![
            block("AGENTS.md", "A\r\n", Sent::Wrapped),
            block(
                ".github/instructions/a.instructions.md",
                "all\n",
                Sent::Inline,
            ),
            block(
                ".github/instructions/py.instructions.md",
                "py\n",
                Sent::Listed,
            ),
        ];
        let sha = sha256_hex(chain::render(&ours).unwrap().as_bytes());
        let r = record(&system_of(&ours), None);
        let c = check(&r, &ours, ".", &expected(Some(&sha)));
        assert!(c.problems.is_empty(), "{:?}", c.problems);
        // What holds for every run with such a file is a limit, not a cap.
        assert!(
            c.limits
                .iter()
                .any(|(w, _)| w.contains("py.instructions.md"))
        );
        assert_eq!(c.tokens.unwrap().total, 1000);
        assert_eq!(
            c.context.unwrap().base_instructions_sha,
            Some(sha256_hex(system_of(&ours).as_bytes()))
        );
        // The checkout's AGENTS.md changed after the run.
        let mut changed = ours.clone();
        changed[0].text = "B\n".into();
        let sha = sha256_hex(chain::render(&changed).unwrap().as_bytes());
        let c = check(&r, &changed, ".", &expected(Some(&sha)));
        let all = c.problems.join("\n");
        assert!(all.contains("`AGENTS.md` as the checkout has it"), "{all}");
        assert!(
            all.contains("that the checkout's chain does not have"),
            "{all}"
        );
    }

    #[test]
    fn a_tool_call_that_edits_an_instruction_or_input_is_named() {
        let ours = vec![block("AGENTS.md", "A\n", Sent::Wrapped)];
        let sha = sha256_hex(chain::render(&ours).unwrap().as_bytes());
        let inputs = vec!["p.md".to_string()];
        let mut e = expected(Some(&sha));
        e.inputs = &inputs;
        for (tool, named) in [
            (
                json!({"name": "apply_patch", "arguments": "*** Begin Patch\n*** Update File: /w/r/AGENTS.md\n@@\n-A\n+B\n*** End Patch"}),
                "changed `AGENTS.md`",
            ),
            (
                json!({"name": "bash", "arguments": {"command": "echo x > p.md"}}),
                "can write `p.md`",
            ),
            (
                json!({"name": "edit", "arguments": {"path": "/w/r/.github/instructions/x.instructions.md"}}),
                "changed `.github/instructions/x.instructions.md`",
            ),
        ] {
            let r = record(&system_of(&ours), Some(tool));
            let c = check(&r, &ours, ".", &e);
            assert!(
                c.problems.iter().any(|p| p.contains(named)),
                "{named}: {:?}",
                c.problems
            );
        }
    }

    #[test]
    fn another_version_or_model_than_the_steps_fails_naming_it() {
        let ours = vec![block("AGENTS.md", "A\n", Sent::Wrapped)];
        let sha = sha256_hex(chain::render(&ours).unwrap().as_bytes());
        let r = record(&system_of(&ours), None);
        let mut e = expected(Some(&sha));
        e.cli_version = Some("1.0.80");
        e.model = Some("other");
        e.max_total_tokens = Some(999);
        let c = check(&r, &ours, ".", &e);
        let all = c.problems.join("\n");
        assert!(all.contains("written by Copilot CLI `1.0.102`"), "{all}");
        assert!(
            all.contains("model is `other` but the session ran `m`"),
            "{all}"
        );
        assert!(all.contains("over max-total-tokens 999"), "{all}");
    }
}
