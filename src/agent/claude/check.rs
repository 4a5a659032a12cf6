//! What reached Claude Code, checked against what the checkout says should
//! have: the prompt (sent as given, byte for byte), the CLAUDE.md chain (file
//! by file, and as one block), the CLI version and model the step claims, the
//! schema the model was given, the structured output the review is, the
//! tokens, the commit, and every turn.

use std::path::Path;

use serde_json::Value;

use super::chain::{self, Entry, HEADER, HOME_FILE, Scope, TRAILER};
use super::record::{self, Execution, Session};
use super::{Args, Settings};
use crate::agent::check::short;
use crate::agent::check::{SessionRecord, TranscriptRecord};
use crate::agent::checklist::{self, Answer, Call, Commit, Observation, Recorded};
use crate::agent::turns::Turn;
use crate::agent::{AgentCheck, Expected, Fact, SessionOptions, Tokens};
use crate::digest::sha256_hex;
use crate::escape::one_line;
use crate::markdown::clip;
use crate::workspace::Workspace;

/// How to get the record into agent-home, for the end of a sentence.
const HOW: &str = "give this step as `agent-home` the folder the agent job uploaded: `claude-execution-output.json` from `$RUNNER_TEMP` and `.claude/projects/` from the agent's `$HOME` (docs/claude.md)";

/// Untrusted text from the record, for a sentence.
fn said(s: &str) -> String {
    one_line(&clip(s, 120)).into_owned()
}

/// Finds this run's record in agent-home, reads it, and checks it against the
/// checkout. A record that cannot be found or read is a problem, not an
/// error: the receipt is still written, and the check fails.
pub(crate) fn read_and_check(
    opts: &SessionOptions,
    settings: &Settings,
    workdir: &Path,
    ws: &Workspace,
    expected: &Expected,
) -> AgentCheck {
    let mut c = AgentCheck::default();
    let args = match settings.args.as_deref().map(Args::parse).transpose() {
        Ok(a) => a.unwrap_or_default(),
        Err(why) => {
            c.problems.push(why);
            Args::default()
        }
    };
    let execution = match record::execution(&opts.home) {
        Ok(e) => e,
        Err(why) => {
            c.problems.push(why);
            None
        }
    };
    let wanted = opts
        .session_id
        .clone()
        .or_else(|| execution.as_ref().and_then(|e| e.session_id.clone()));
    let session = match find(&opts.home, wanted.as_deref(), expected) {
        Ok((s, note)) => {
            c.notes.extend(note);
            s
        }
        Err(why) => {
            c.problems.push(format!("{why}; {HOW}"));
            if let Some(e) = &execution {
                c.facts = facts(e, None);
            }
            return c;
        }
    };
    let shown = session
        .path
        .strip_prefix(&opts.home)
        .map(|p| {
            let p = p.display().to_string();
            match p.strip_prefix(".claude/") {
                Some(rest) => format!("~/.claude/{rest}"),
                None => format!("~/.claude/{p}"),
            }
        })
        .unwrap_or_else(|_| session.path.display().to_string());
    check(
        &mut c,
        Record {
            session,
            execution,
            shown,
        },
        &Context {
            expected,
            settings,
            args: &args,
            ws,
            workdir,
            home: &opts.home,
        },
    );
    c
}

/// Finds this run's project record: the execution file's (or session-id's)
/// session, else the only one, else the one whose prompt is this checkout's.
fn find(
    home: &Path,
    session_id: Option<&str>,
    expected: &Expected,
) -> Result<(Session, Option<String>), String> {
    let all = record::candidates(home);
    if all.is_empty() {
        return Err(format!(
            "agent-home (`{}`) holds no Claude Code project record (`.claude/projects/<project>/<session>.jsonl`)",
            one_line(&home.display().to_string())
        ));
    }
    let name = |p: &Path| {
        format!(
            "`{}`",
            one_line(&p.file_name().unwrap_or_default().to_string_lossy())
        )
    };
    if let Some(id) = session_id {
        let matching: Vec<_> = all
            .iter()
            .filter(|p| p.file_stem().is_some_and(|s| s == id))
            .collect();
        return match matching.as_slice() {
            [only] => Ok((record::read_session(only, home)?, None)),
            [] => Err(format!(
                "agent-home holds no project record of session `{}` (it has {})",
                said(id),
                crate::agent::candidates::some_of(all.iter().map(|p| name(p)), all.len())
            )),
            many => Err(format!(
                "{} project records are named for session `{}` (in several project folders): upload only this run's",
                many.len(),
                said(id)
            )),
        };
    }
    if let [only] = all.as_slice() {
        return Ok((record::read_session(only, home)?, None));
    }
    if all.len() > crate::limits::RECORD_CANDIDATES {
        return Err(format!(
            "agent-home holds {} project records, more than the {} read to find this run's; upload only this run's record, or set session-id",
            all.len(),
            crate::limits::RECORD_CANDIDATES
        ));
    }
    let ours: Vec<Session> = all
        .iter()
        .filter_map(|p| record::read_session(p, home).ok())
        .filter(|s| {
            s.turns
                .iter()
                .any(|t| t.prompt.as_deref().map(str::as_bytes) == Some(expected.prompt_bytes))
        })
        .collect();
    let names = all.iter().map(|p| name(p)).collect::<Vec<_>>().join(", ");
    match <[Session; 1]>::try_from(ours) {
        Ok([s]) => Ok((
            s,
            Some(format!(
                "{} project records are in agent-home ({names}) and no execution file names the session; the one with this checkout's prompt was used",
                all.len()
            )),
        )),
        Err(ours) if ours.is_empty() => Err(format!(
            "{} project records are in agent-home ({names}), and none has this checkout's prompt; upload only this run's record, or set session-id",
            all.len()
        )),
        Err(ours) => Err(format!(
            "{} project records have this checkout's prompt ({names}): which one produced the review cannot be told; upload only this run's record, or set session-id",
            ours.len()
        )),
    }
}

struct Record {
    session: Session,
    execution: Option<Execution>,
    shown: String,
}

struct Context<'a> {
    expected: &'a Expected<'a>,
    settings: &'a Settings,
    args: &'a Args,
    ws: &'a Workspace,
    workdir: &'a Path,
    home: &'a Path,
}

/// The pure core: the record against the checkout, by the one checklist and
/// then what only Claude Code's records show.
fn check(c: &mut AgentCheck, r: Record, x: &Context) {
    let Record {
        session: s,
        execution: e,
        shown,
    } = r;
    let output_turn = s
        .turns
        .iter()
        .rposition(|t| t.answer.is_some() || t.structured_output.is_some())
        .or(s.turns.len().checked_sub(1));
    // The step's version and model, or claude-args' `--model`.
    let expected = Expected {
        cli_version: x.settings.cli_version.as_deref().or(x.expected.cli_version),
        model: x.expected.model.or(x.args.model.as_deref()),
        ..x.expected.clone()
    };
    check_same_session(c, &s, e.as_ref());
    let tokens = tokens(c, &s, e.as_ref());
    let observed = observe(&s, e.as_ref(), output_turn, tokens.clone());
    let root = checklist::judge(c, &super::ABOUT, observed, &expected);
    check_prompt_file(c, x);
    check_chain(c, &s, root.as_deref(), x);
    check_one_run(c, &s, e.as_ref());
    check_model_given(c, e.as_ref(), x);
    check_output(c, &s, e.as_ref(), output_turn, x);
    check_schema(c, &s, x);
    check_system(c, &s, x);
    check_result(c, e.as_ref());
    record_notes(c, &s, e.as_ref());
    c.transcript = Some(TranscriptRecord::of(
        shown,
        s.session_id.clone(),
        s.sha256.clone(),
        s.redaction.clone(),
    ));
    c.facts = record_facts(&s, e.as_ref(), tokens.as_ref());
    c.settings = Some(session_record(&s, e.as_ref(), output_turn));
    // A first request whose last block is not the prompt held something
    // after it that no check covers.
    if s.request_kept && s.context_sha.is_none() && !s.turns.is_empty() {
        c.unverified.push((
            "the first request".into(),
            "the project record keeps the first request's parts, and no user message of it ends with the prompt: what it held besides the prompt is not known".into(),
        ));
    }
    // The receipt's `context_sha` is of the request whose answer is the
    // review: known here for the first turn only.
    c.context = s
        .context_sha
        .as_ref()
        .filter(|_| output_turn == Some(0))
        .map(|sha| crate::agent::check::Context {
            sha: sha.clone(),
            ..Default::default()
        });
}

/// The records as the checklist reads them: the execution file where it
/// says, else the project record. The answer is structured output, held to
/// the review by [`check_output`].
fn observe<'r>(
    s: &'r Session,
    e: Option<&'r Execution>,
    output_turn: Option<usize>,
    tokens: Option<Tokens>,
) -> Observation<'r> {
    let calls = s.tool_uses.iter().filter_map(|t| {
        if t.name == "Bash" {
            return Some(Call::Command {
                text: t.input["command"].as_str()?,
                failed: t.failed,
            });
        }
        if !matches!(
            t.name.as_str(),
            "Write" | "Edit" | "MultiEdit" | "NotebookEdit"
        ) {
            return None;
        }
        let path = t.input["file_path"]
            .as_str()
            .or(t.input["notebook_path"].as_str())?;
        Some(Call::Write {
            path: path.to_string(),
            verb: "changed",
            how: format!("`{}`", said(&t.name)),
            not_done: t
                .failed
                .then(|| "its result was an error: refused or failed".to_string()),
        })
    });
    let version = e
        .and_then(|e| e.version.as_deref())
        .or(s.version.as_deref());
    Observation {
        cwd: s.cwd.as_deref().or(e.and_then(|e| e.cwd.as_deref())),
        prompt: output_turn.and_then(|t| s.turns[t].prompt.as_deref()),
        version: Some(version.map_or(Recorded::Missing, Recorded::Value)),
        commit: Some(
            s.git_head
                .as_deref()
                .map_or(Commit::Missing, Commit::Abbreviated),
        ),
        model: output_turn
            .and_then(|t| s.turns[t].model.as_deref())
            .or(e.and_then(|e| e.model.as_deref())),
        turns: neutral_turns(s),
        output_turn,
        switched: Vec::new(),
        tokens,
        calls: calls.collect(),
        answer: Some(Answer::Own),
    }
}

/// The execution file and the project record are of one session.
fn check_same_session(c: &mut AgentCheck, s: &Session, e: Option<&Execution>) {
    if let (Some(e), Some(ran)) = (e, &s.session_id) {
        if let Some(id) = e.session_id.as_deref().filter(|id| id != ran) {
            c.problems.push(format!(
                "`{}` is of session `{}`, but the project record is of session `{}`: upload the record of the run the execution file is of",
                record::EXECUTION_FILE,
                said(id),
                said(ran)
            ));
        }
    }
}

/// The record's turns in the neutral form.
fn neutral_turns(s: &Session) -> Vec<Turn> {
    s.turns
        .iter()
        .enumerate()
        .map(|(i, t)| Turn {
            model: t.model.clone(),
            prompt_sha: t.prompt.as_deref().map(|p| sha256_hex(p.as_bytes())),
            // The first request's, the one whose start the checkout predicts.
            context_sha: if i == 0 { s.context_sha.clone() } else { None },
            items: t.items.clone(),
        })
        .collect()
}

/// What the record leaves unknown: no execution file, its warnings, lines
/// not read.
fn record_notes(c: &mut AgentCheck, s: &Session, e: Option<&Execution>) {
    if e.is_none() {
        c.unverified.push((
            "the execution file".into(),
            format!("agent-home has no `{}`: the run's result (is_error, num_turns, cost, permission mode, tools) is not checked", record::EXECUTION_FILE),
        ));
    }
    c.notes.extend(s.warnings.iter().cloned());
    if s.unread_lines > 0 {
        c.unverified.push((
            "the whole record".into(),
            format!("{} line(s) of the project record are not JSON: what they held (a prompt, a hook, a compaction) is not known", s.unread_lines),
        ));
    }
}

/// The evidence table's rows: the execution file's (or the project
/// record's), and the tokens as Anthropic counts them.
fn record_facts(s: &Session, e: Option<&Execution>, tokens: Option<&Tokens>) -> Vec<Fact> {
    let mut facts = match e {
        Some(e) => facts(e, Some(s)),
        None => vec![
            Fact::text("Record kind", "the project record only (no execution file)"),
            Fact::code("Claude Code", s.version.as_deref()),
            Fact::code("Permission mode", s.permission_mode.as_deref()),
        ],
    };
    if let Some(t) = tokens {
        facts.push(Fact::text(
            "Tokens as Anthropic counts them",
            format!(
                "input_tokens {} + cache_read_input_tokens {} + cache_creation_input_tokens {} = {} input (the budget counts all three), output_tokens {}",
                t.input - t.cached_input - t.cache_write_input,
                t.cached_input,
                t.cache_write_input,
                t.input,
                t.output
            ),
        ));
    }
    facts
}

/// The session's settings as the receipt keeps them: the execution file's
/// where it has them, else the project record's.
fn session_record(s: &Session, e: Option<&Execution>, output_turn: Option<usize>) -> SessionRecord {
    SessionRecord {
        cli_version: e.and_then(|e| e.version.clone()).or(s.version.clone()),
        originator: None,
        model: output_turn
            .and_then(|t| s.turns[t].model.clone())
            .or_else(|| e.and_then(|e| e.model.clone())),
        approval_policy: None,
        sandbox: None,
        duration_ms: e
            .and_then(|e| e.result.as_ref())
            .and_then(|r| r["duration_ms"].as_u64()),
        git_commit: s.git_head.clone(),
        effort: None,
        permission_profile: e
            .and_then(|e| e.permission_mode.clone())
            .or(s.permission_mode.clone()),
    }
}

/// Rows of the evidence table only Claude Code has.
fn facts(e: &Execution, s: Option<&Session>) -> Vec<Fact> {
    let result = e.result.as_ref();
    let mut f = vec![
        Fact::text(
            "Record kind",
            match s {
                Some(s) => format!(
                    "the execution file and the project record, {}",
                    crate::agent::redaction::describe(s.redaction.as_ref())
                ),
                None => "the execution file only".to_string(),
            },
        ),
        Fact::code("Claude Code", e.version.as_deref()),
        Fact::code("Permission mode", e.permission_mode.as_deref()),
    ];
    f.push(match result.and_then(|r| r["total_cost_usd"].as_f64()) {
        Some(cost) => Fact::code("Cost (USD)", Some(&format!("{cost:.6}"))),
        None => Fact::code("Cost (USD)", None),
    });
    f.push(Fact::code(
        "Result",
        result
            .and_then(|r| r["subtype"].as_str())
            .map(|s| one_line(&clip(s, 60)).into_owned())
            .as_deref(),
    ));
    if let Some(n) = result.and_then(|r| r["num_turns"].as_u64()) {
        f.push(Fact::code("Turns (num_turns)", Some(&n.to_string())));
    }
    if !e.mcp_servers.is_empty() {
        f.push(Fact::text(
            "MCP servers",
            e.mcp_servers
                .iter()
                .map(|m| said(m))
                .collect::<Vec<_>>()
                .join(", "),
        ));
    }
    f
}

/// The prompt claude-code-action wrote to agent-home, when it is there, is
/// the checkout's (the checklist held the prompt as sent to it).
fn check_prompt_file(c: &mut AgentCheck, x: &Context) {
    let Ok(bytes) = crate::workspace::read_contained(
        &x.home.join(record::PROMPT_FILE),
        &[&std::fs::canonicalize(x.home).unwrap_or_else(|_| x.home.to_path_buf())],
        crate::limits::FILE_BYTES,
    ) else {
        return;
    };
    if bytes != x.expected.prompt_bytes {
        c.problems.push(format!(
            "`{}` in agent-home (the prompt claude-code-action wrote, sha256 {}) is not {} (sha256 {})",
            record::PROMPT_FILE,
            short(&sha256_hex(&bytes)),
            x.expected
                .prompt_path
                .map_or("the inline prompt".to_string(), |p| format!("`{p}`")),
            short(&sha256_hex(x.expected.prompt_bytes))
        ));
    }
}

/// A path of the record as the receipt names it: relative to the workspace,
/// `~/.claude/...` for the user's files; `None` when it is neither.
fn receipt_name(path: &str, kind: Scope, root: Option<&str>) -> Option<String> {
    if kind == Scope::User {
        return path
            .rfind("/.claude/")
            .map(|i| format!("~/.claude/{}", &path[i + "/.claude/".len()..]));
    }
    let rest = path.strip_prefix(&format!("{}/", root?))?;
    (!rest.split('/').any(|p| p == ".." || p.is_empty())).then(|| rest.to_string())
}

/// The CLAUDE.md chain as sent is the chain computed from the checkout: file
/// by file (each named when it differs, is missing, or was not sent), and as
/// the one block the receipt's `agents_sha` hashes.
fn check_chain(c: &mut AgentCheck, s: &Session, root: Option<&str>, x: &Context) {
    let Some(files) = &s.instructions else {
        no_instructions_attachment(c, s, x);
        return;
    };
    let Some(sent) = files_as_sent(c, files, root) else {
        return;
    };
    check_sent_block(c, s, &sent);
    let checkout = match chain::entries(x.workdir, x.ws, Some(x.home)) {
        Ok((entries, _)) => entries,
        Err(err) => {
            c.problems.push(format!(
                "the checkout's CLAUDE.md chain cannot be read: {}",
                err.message()
            ));
            return;
        }
    };
    let before = c.problems.len();
    check_sent_files(c, &sent, &checkout, x);
    let entries: Vec<Entry> = sent.into_iter().map(|(_, e)| e).collect();
    let sent_sha = chain::block(&entries).map(|b| sha256_hex(b.as_bytes()));
    if c.problems.len() == before && sent_sha.as_deref() != x.expected.agents_sha {
        let describe =
            |s: Option<&str>| s.map_or("none".to_string(), |s| format!("sha256 {}", short(s)));
        c.problems.push(format!(
            "the CLAUDE.md instructions the agent received ({}) differ from the chain computed from the checkout ({})",
            describe(sent_sha.as_deref()),
            describe(x.expected.agents_sha)
        ));
    }
}

/// The record names no instruction files sent: unverified when it still
/// has the block, a problem when the checkout's chain has files.
fn no_instructions_attachment(c: &mut AgentCheck, s: &Session, x: &Context) {
    if s.instruction_block.is_some() {
        c.unverified.push((
            "the instruction files one by one".into(),
            "the project record has the instruction block but no `instructions` attachment naming its files".into(),
        ));
    }
    if let Some(want) = x.expected.agents_sha {
        c.problems.push(format!(
            "the checkout's CLAUDE.md chain (sha256 {}) has files, but the project record shows no instructions sent (no `instructions` attachment)",
            short(want)
        ));
    }
}

/// The files sent, as the agent's machine named them, then as the receipt
/// does; `None` (and a problem) for a kind not known or a file outside the
/// checkout.
fn files_as_sent(
    c: &mut AgentCheck,
    files: &[record::SentFile],
    root: Option<&str>,
) -> Option<Vec<(String, Entry)>> {
    let mut sent: Vec<(String, Entry)> = Vec::new();
    for f in files {
        let Some(scope) = Scope::from_record(&f.kind) else {
            c.problems.push(format!(
                "the agent was sent `{}` as `{}` instructions, a kind this version of prompt-receipt does not know: the chain cannot be checked",
                said(&f.path),
                said(&f.kind)
            ));
            return None;
        };
        match receipt_name(&f.path, scope, root) {
            Some(name) => sent.push((
                f.path.clone(),
                Entry {
                    shown: name,
                    scope,
                    text: f.content.clone(),
                },
            )),
            None => {
                c.problems.push(format!(
                    "the agent was sent `{}` as instructions, a file outside the checkout that the receipt cannot read",
                    said(&f.path)
                ));
                return None;
            }
        }
    }
    Some(sent)
}

/// The record's own copy of the block, when it keeps request parts, must be
/// its file list put together: else the format is not the one measured.
fn check_sent_block(c: &mut AgentCheck, s: &Session, sent: &[(String, Entry)]) {
    let absolute = format!(
        "{HEADER}{}{TRAILER}",
        sent.iter()
            .map(|(p, e)| format!("Contents of {p} ({}):\n\n{}", e.scope.label(), e.text))
            .collect::<Vec<_>>()
            .join("\n\n")
    );
    match &s.instruction_block {
        Some(block) if *block != absolute => c.problems.push(format!(
            "the instruction block of the first request (sha256 {}) is not the files the record lists put together (sha256 {}): this Claude Code sends its CLAUDE.md files in a form prompt-receipt does not know",
            short(&sha256_hex(block.as_bytes())),
            short(&sha256_hex(absolute.as_bytes()))
        )),
        Some(_) => {}
        None => c.unverified.push((
            "the instruction block as sent".into(),
            "the project record keeps no request parts (`api-request-blob`): the block is put together from its `instructions` attachment".into(),
        )),
    }
}

/// Each file sent against the checkout's chain, and each file of the chain
/// that was not sent.
fn check_sent_files(c: &mut AgentCheck, sent: &[(String, Entry)], checkout: &[Entry], x: &Context) {
    for (_, e) in sent {
        match checkout.iter().find(|o| o.shown == e.shown) {
            None => c.problems.push(if e.shown == HOME_FILE {
                format!(
                    "the agent was sent `{HOME_FILE}`, and agent-home has none: upload the agent's `~/.claude/CLAUDE.md` with its record"
                )
            } else if x.ws.root().join(&e.shown).is_file() {
                format!(
                    "the agent was sent `{}`, which the checkout has but its CLAUDE.md chain no longer reaches (an import or a file of the walk changed after the run)",
                    said(&e.shown)
                )
            } else {
                format!(
                    "the agent was sent `{}`, which the checkout does not have: the record is of another checkout, or the file was made before the agent ran",
                    said(&e.shown)
                )
            }),
            Some(o) if o.text != e.text => c.problems.push(format!(
                "`{}` as the agent read it (sha256 {}) is not the checkout's (sha256 {}): the file changed after the run, or the record is of another checkout",
                said(&e.shown),
                short(&sha256_hex(e.text.as_bytes())),
                short(&sha256_hex(o.text.as_bytes()))
            )),
            Some(_) => {}
        }
    }
    for o in checkout {
        if !sent.iter().any(|(_, e)| e.shown == o.shown) {
            c.problems.push(format!(
                "the checkout's `{}` is part of the CLAUDE.md chain, but the agent was not sent it: it was added after the run, or the record is of another checkout",
                said(&o.shown)
            ));
        }
    }
}

/// One run is one Claude Code: every line of the record, and the execution
/// file, name the same version (a forged record names another on some), and
/// the execution file holds one `init` and one `result`.
fn check_one_run(c: &mut AgentCheck, s: &Session, e: Option<&Execution>) {
    let mut versions = s.versions.clone();
    versions.extend(e.and_then(|e| e.version.clone()));
    if versions.len() > 1 {
        c.problems.push(format!(
            "the record names {} Claude Code versions ({}): one run is written by one; upload only this run's files",
            versions.len(),
            versions
                .iter()
                .map(|v| format!("`{}`", said(v)))
                .collect::<Vec<_>>()
                .join(", ")
        ));
    }
    if let Some(e) = e {
        if e.inits > 1 || e.results > 1 {
            c.problems.push(format!(
                "`claude-execution-output.json` holds {} `init` and {} `result` messages: one run writes one of each; upload the action's execution_file as it wrote it",
                e.inits, e.results
            ));
        }
    }
}

/// The model the run was started with (`init`) is the model stated too, and
/// claude-args' `--model` is the step's `model`.
fn check_model_given(c: &mut AgentCheck, e: Option<&Execution>, x: &Context) {
    let claimed_model = x.expected.model.or(x.args.model.as_deref());
    if let (Some(claimed), Some(started)) = (claimed_model, e.and_then(|e| e.model.as_deref())) {
        if claimed != started {
            c.problems.push(format!(
                "model is `{claimed}` but the run was started with `{}` (the execution file's `init`)",
                said(started)
            ));
        }
    }
    if let (Some(given), Some(claimed)) = (x.args.model.as_deref(), x.expected.model) {
        if given != claimed {
            c.problems.push(format!(
                "model is `{claimed}` but claude-args gives `--model {given}`"
            ));
        }
    }
}

/// The review the gate read is the model's own answer: the input of the last
/// `StructuredOutput` call the assistant sent, as a JSON value. What Claude
/// Code returned as `structured_output` (the execution file's, the record's
/// attachment) is that input after the `PreToolUse` hooks, which can replace
/// it (`updatedInput`, measured): it must be the model's answer too. A
/// difference is a problem naming what the record shows rewrote it.
fn check_output(
    c: &mut AgentCheck,
    s: &Session,
    e: Option<&Execution>,
    output_turn: Option<usize>,
    x: &Context,
) {
    let in_result = e
        .and_then(|e| e.result.as_ref())
        .map(|r| &r["structured_output"])
        .filter(|v| !v.is_null());
    let turn = output_turn.map(|t| &s.turns[t]);
    let in_record = turn.and_then(|t| t.structured_output.as_ref());
    let answer = turn.and_then(|t| t.answer.as_ref());
    if let (Some(a), Some(b)) = (in_result, in_record) {
        if a != b {
            c.problems.push(format!(
                "the execution file's `structured_output` (sha256 {}) is not the project record's (sha256 {}): the two files are of different runs",
                compact_sha(a),
                compact_sha(b)
            ));
        }
    }
    let structured = in_result.or(in_record);
    let Some(answer) = answer else {
        check_output_without_answer(c, structured, x);
        return;
    };
    // The run returned something else than the model sent: a hook, or
    // something else inside the run, rewrote it.
    let rewritten = structured.filter(|v| **v != answer.input);
    let by = match (rewritten, structured) {
        (Some(_), _) => rewritten_by(s, answer, x),
        (None, Some(_)) => "something rewrote it after the model: the run's `structured_output` is the model's answer, the review file is not".to_string(),
        (None, None) => "something rewrote it after the model".to_string(),
    };
    let review = x
        .expected
        .output
        .map(|output| (output, serde_json::from_slice::<Value>(output).ok()));
    match (review, rewritten) {
        (Some((output, review)), _) if review.as_ref() != Some(&answer.input) => {
            c.problems.push(format!(
                "`{}` is not the model's own answer (its last StructuredOutput call, sha256 {} vs {}): {by}",
                x.expected.output_path,
                review
                    .as_ref()
                    .map_or_else(|| short(&sha256_hex(output)), compact_sha),
                compact_sha(&answer.input)
            ));
        }
        (_, Some(returned)) => c.problems.push(format!(
            "the run's `structured_output` is not the model's own answer (its last StructuredOutput call, sha256 {} vs {}){}: {by}",
            compact_sha(returned),
            compact_sha(&answer.input),
            if x.expected.output.is_some() {
                format!(", though `{}` is", x.expected.output_path)
            } else {
                String::new()
            }
        )),
        _ => {}
    }
}

/// No call of the model to hold the output against: the run's
/// `structured_output` is all there is.
fn check_output_without_answer(c: &mut AgentCheck, structured: Option<&Value>, x: &Context) {
    let Some(output) = x.expected.output else {
        return;
    };
    let Some(structured) = structured else {
        c.problems.push(
            "the record holds no `structured_output`: give claude-code-action `--json-schema` in claude_args, and write `structured_output` to the review file".into(),
        );
        return;
    };
    c.unverified.push((
        "the model's own answer".into(),
        "the project record holds no `StructuredOutput` call of the model (`assistant` `tool_use`): that the run's `structured_output` is the model's answer, and no hook's, is not shown".into(),
    ));
    match serde_json::from_slice::<Value>(output) {
        Ok(review) if review == *structured => {}
        _ => c.problems.push(format!(
            "`{}` is not the record's `structured_output` (sha256 {} vs {} of its compact JSON): something rewrote the review after the agent",
            x.expected.output_path,
            short(&sha256_hex(output)),
            compact_sha(structured)
        )),
    }
}

/// SHA-256 of a JSON value as compact JSON, shortened.
fn compact_sha(v: &Value) -> String {
    short(&sha256_hex(v.to_string().as_bytes()))
}

/// What the record shows ran on the model's `StructuredOutput` call between
/// the model and the run's result: its hooks (`hook_success` lines naming
/// the call), each with the settings file that configures its command.
fn rewritten_by(s: &Session, answer: &record::Call, x: &Context) -> String {
    const SHOWN: usize = 5;
    let on_call: Vec<&record::HookRun> = s
        .hook_runs
        .iter()
        .filter(|h| answer.id.is_some() && h.tool_use_id == answer.id)
        .collect();
    // A PreToolUse hook is what can replace a tool's input; others that ran
    // on the call are named when none did.
    let pre: Vec<&record::HookRun> = on_call
        .iter()
        .copied()
        .filter(|h| h.event.as_deref() == Some("PreToolUse"))
        .collect();
    let hooks = if pre.is_empty() { on_call } else { pre };
    if hooks.is_empty() {
        let dropped = s
            .redaction
            .as_ref()
            .is_some_and(|r| r.dropped.keys().any(|k| k.starts_with("attachment:hook_")));
        return format!(
            "something rewrote it after the model, before the run returned it ({})",
            if dropped {
                "the redacted record dropped its hook lines: upload it through the example's redact-record.jq"
            } else {
                "the record shows no hook that ran on that call"
            }
        );
    }
    let mut seen: Vec<(Option<&str>, Option<&str>)> = Vec::new();
    for h in &hooks {
        let key = (h.event.as_deref(), h.command.as_deref());
        if !seen.contains(&key) {
            seen.push(key);
        }
    }
    let named: Vec<String> = seen
        .iter()
        .take(SHOWN)
        .map(|(event, command)| {
            let event = event.map_or("hook".to_string(), |e| format!("{} hook", said(e)));
            match command {
                Some(command) => match hook_source(command, x) {
                    Some(file) => format!("{event} (`{}`, in `{}`)", said(command), said(&file)),
                    None => format!("{event} (`{}`)", said(command)),
                },
                None => event,
            }
        })
        .collect();
    let more = match seen.len().saturating_sub(SHOWN) {
        0 => String::new(),
        n => format!(" and {n} more"),
    };
    if seen.len() == 1 {
        format!("a {}{more} changed it", named[0])
    } else {
        format!(
            "one of the hooks that ran on that call changed it: {}{more}",
            named
                .iter()
                .map(|n| format!("a {n}"))
                .collect::<Vec<_>>()
                .join(", ")
        )
    }
}

/// The settings file whose `hooks` give `command`: the user's
/// (`~/.claude/settings.json` in agent-home), the repository's at its root or
/// in the working directory. None when no readable one does.
fn hook_source(command: &str, x: &Context) -> Option<String> {
    let names = |v: &Value| {
        v["hooks"].as_object().is_some_and(|events| {
            events
                .values()
                .flat_map(|m| m.as_array().into_iter().flatten())
                .flat_map(|m| m["hooks"].as_array().into_iter().flatten())
                .any(|h| h["command"].as_str() == Some(command))
        })
    };
    let read = |path: &Path, root: &Path| -> Option<Value> {
        let bytes =
            crate::workspace::read_contained(path, &[root], crate::limits::CONFIG_BYTES).ok()?;
        serde_json::from_slice(&bytes).ok()
    };
    let root = std::fs::canonicalize(x.ws.root()).unwrap_or_else(|_| x.ws.root().to_path_buf());
    let mut dirs = vec![x.workdir.to_path_buf()];
    if x.workdir != x.ws.root() {
        dirs.push(x.ws.root().to_path_buf());
    }
    for dir in dirs {
        for name in [".claude/settings.local.json", ".claude/settings.json"] {
            let path = dir.join(name);
            if read(&path, &root).is_some_and(|v| names(&v)) {
                return Some(x.ws.relative(&path));
            }
        }
    }
    let home = std::fs::canonicalize(x.home).unwrap_or_else(|_| x.home.to_path_buf());
    for name in ["settings.local.json", "settings.json"] {
        if read(&x.home.join(".claude").join(name), &home).is_some_and(|v| names(&v)) {
            return Some(format!("~/.claude/{name}"));
        }
    }
    None
}

/// The schema the model was given (the `StructuredOutput` tool's, and
/// `--json-schema` in claude-args) is the receipt's output schema.
fn check_schema(c: &mut AgentCheck, s: &Session, x: &Context) {
    let receipt: Option<Value> = x
        .expected
        .schema
        .and_then(|bytes| serde_json::from_slice(bytes).ok());
    let Some(receipt) = receipt else {
        return;
    };
    // Claude Code's validator refuses a schema that names draft 2020-12 in
    // `$schema` (measured), so a workflow gives it the schema without it.
    let bare = |v: &Value| {
        let mut v = v.clone();
        if let Some(o) = v.as_object_mut() {
            o.remove("$schema");
        }
        v
    };
    let same = |v: &Value| *v == receipt || bare(v) == bare(&receipt);
    let mut dialect_noted = false;
    let mut note_dialect = |c: &mut AgentCheck, v: &Value| {
        if *v != receipt && !dialect_noted {
            dialect_noted = true;
            c.notes.push(
                "Claude Code was given the output schema without its `$schema` (its validator refuses draft 2020-12's): it checked the review by its own default dialect, the gate by the schema's".into(),
            );
        }
    };
    match x.args.json_schema.as_deref() {
        Some(given) => match serde_json::from_str::<Value>(given) {
            Ok(v) if same(&v) => note_dialect(c, &v),
            Ok(v) => c.problems.push(format!(
                "claude-args gives `--json-schema` (sha256 {}), which is not the receipt's output schema (sha256 {}): the review was shaped by one schema and judged by another",
                short(&sha256_hex(v.to_string().as_bytes())),
                short(&sha256_hex(receipt.to_string().as_bytes()))
            )),
            Err(err) => c.problems.push(format!(
                "`--json-schema` in claude-args is not JSON ({err}): give it the schema file's text"
            )),
        },
        None if x.settings.args.is_some() => c.problems.push(
            "claude-args has no `--json-schema`: Claude Code was not asked for a review of the receipt's schema".into(),
        ),
        None => {}
    }
    match &s.structured_schema {
        Some(given) if same(given) => note_dialect(c, given),
        Some(given) => c.problems.push(format!(
            "the model's StructuredOutput tool took a schema (sha256 {}) that is not the receipt's output schema (sha256 {})",
            short(&sha256_hex(given.to_string().as_bytes())),
            short(&sha256_hex(receipt.to_string().as_bytes()))
        )),
        None => c.unverified.push((
            "the schema the model was given".into(),
            "the project record keeps no request tools (`api-request-shape`): which schema the StructuredOutput tool had is not shown".into(),
        )),
    }
}

/// `--append-system-prompt` in claude-args is what ends the system prompt the
/// record kept (Claude Code appends it to its preset, after a blank line).
fn check_system(c: &mut AgentCheck, s: &Session, x: &Context) {
    let Some(append) = x.args.append_system_prompt.as_deref() else {
        return;
    };
    match &s.system {
        Some(blocks) if blocks.iter().any(|b| b.ends_with(append)) => {}
        Some(_) => c.problems.push(format!(
            "claude-args gives `--append-system-prompt` (sha256 {}), but the system prompt of the first request does not end with it: the agent ran with other instructions",
            short(&sha256_hex(append.as_bytes()))
        )),
        None => c.unverified.push((
            "the appended system prompt".into(),
            "claude-args gives `--append-system-prompt`, but the project record keeps no request parts (`api-request-shape`): the system prompt is not shown".into(),
        )),
    }
}

/// The tokens the budget counts. The execution file's total and the
/// record's sum of its messages are two accounts of one run: the larger is
/// counted, and a disagreement is said (a forged `result.usage` of 2 tokens
/// hides nothing then). `input` counts cache reads and writes (Anthropic's
/// `input_tokens` does not).
fn tokens(c: &mut AgentCheck, s: &Session, e: Option<&Execution>) -> Option<Tokens> {
    let in_result = e
        .and_then(|e| e.result.as_ref())
        .and_then(|r| record::tokens_of(&r["usage"]));
    match (in_result, s.tokens.clone()) {
        (Some(r), Some(m)) if m.total > r.total => {
            c.notes.push(format!(
                "the project record's messages count {} tokens, the execution file's `result.usage` {}: the budget counts the larger",
                m.total, r.total
            ));
            Some(m)
        }
        (Some(r), _) => Some(r),
        (None, m) => m,
    }
}

/// A run that ended in an error produced no review to trust.
fn check_result(c: &mut AgentCheck, e: Option<&Execution>) {
    let Some(e) = e else { return };
    let Some(r) = &e.result else {
        c.problems.push(format!(
            "`{}` has no `result` message: the run did not finish",
            record::EXECUTION_FILE
        ));
        return;
    };
    let subtype = r["subtype"].as_str().unwrap_or("");
    if r["is_error"] == true || subtype != "success" {
        c.problems.push(format!(
            "Claude Code ended with `{}`{}: the review is not the answer of a finished run",
            said(if subtype.is_empty() {
                "no subtype"
            } else {
                subtype
            }),
            if r["is_error"] == true {
                " (is_error)"
            } else {
                ""
            }
        ));
    }
    if e.compactions > 0 {
        c.notes.push(format!(
            "the execution file shows {} compaction{} (`compact_boundary`)",
            e.compactions,
            if e.compactions == 1 { "" } else { "s" }
        ));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::agent::turns::SingleTurn;
    use std::fs;

    struct Home {
        _dir: tempfile::TempDir,
        home: std::path::PathBuf,
        ws: Workspace,
    }

    fn home() -> Home {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().join("repo");
        fs::create_dir_all(root.join(".git")).unwrap();
        let home = dir.path().join("home");
        fs::create_dir_all(home.join(".claude/projects/-repo")).unwrap();
        let ws = Workspace::open(&root).unwrap();
        Home {
            _dir: dir,
            home,
            ws,
        }
    }

    fn record(h: &Home, name: &str, prompt: &str, model: &str) {
        let lines = [
            serde_json::json!({"type": "user", "message": {"role": "user", "content": prompt}, "sessionId": name, "cwd": h.ws.root().display().to_string(), "version": "2.1.300"}),
            serde_json::json!({"type": "assistant", "message": {"id": "m", "model": model, "content": [{"type": "tool_use", "name": "StructuredOutput", "input": {"ok": true}}], "usage": {"input_tokens": 1, "output_tokens": 1}}}),
        ];
        let text: Vec<String> = lines.iter().map(|l| l.to_string()).collect();
        fs::write(
            h.home.join(format!(".claude/projects/-repo/{name}.jsonl")),
            text.join("\n"),
        )
        .unwrap();
    }

    fn run(h: &Home, model: Option<&str>) -> AgentCheck {
        let opts = SessionOptions {
            home: h.home.clone(),
            session_id: None,
            max_total_tokens: None,
            single_turn: SingleTurn::Warn,
        };
        let settings = Settings {
            cli_version: None,
            args: None,
        };
        let expected = Expected {
            model,
            output: Some(b"{\"ok\": true}"),
            schema: Some(b"{}"),
            ..Expected::example()
        };
        read_and_check(&opts, &settings, h.ws.root(), &h.ws, &expected)
    }

    #[test]
    fn a_spelled_path_to_an_input_or_an_instruction_file_is_named() {
        let h = home();
        let root = h.ws.root().display().to_string();
        let inputs = vec![".github/claude/review.schema.json".to_string()];
        let expected = Expected {
            inputs: &inputs,
            ..Expected::example()
        };
        let tool = |name: &str, input: serde_json::Value| record::ToolUse {
            id: None,
            name: name.into(),
            input,
            failed: false,
        };
        let write = |p: String| tool("Write", serde_json::json!({"file_path": p}));
        let s = Session {
            cwd: Some(root.clone()),
            tool_uses: vec![
                write(format!("{root}/./.github/claude/review.schema.json")),
                write(format!("{root}/docs/../CLAUDE.md")),
                write(format!("{root}//.github//claude/review.schema.json")),
                write(format!("{root}/docs/./../.claude/settings.json")),
                write(format!("{root}/docs/../src/main.rs")),
                tool(
                    "Bash",
                    serde_json::json!({"command": "cp x ./docs/../.github/claude/review.schema.json"}),
                ),
            ],
            ..Session::default()
        };
        let mut c = AgentCheck::default();
        let observed = observe(&s, None, None, None);
        checklist::judge(&mut c, &super::super::ABOUT, observed, &expected);
        c.problems
            .retain(|p| p.contains("during its run") || p.contains("can write"));
        let all = c.problems.join("\n");
        assert_eq!(c.problems.len(), 5, "{all}");
        for (p, name) in c.problems.iter().zip([
            ".github/claude/review.schema.json",
            "CLAUDE.md",
            ".github/claude/review.schema.json",
            ".claude/settings.json",
        ]) {
            assert!(
                p.contains(&format!(
                    "the agent changed `{name}` during its run (`Write`)"
                )),
                "{all}"
            );
        }
        assert!(c.problems[4].contains("can write `.github/claude/review.schema.json`"));
    }

    #[test]
    fn a_missing_record_or_an_unchoosable_one_is_a_problem_naming_the_files() {
        let h = home();
        let c = run(&h, None);
        assert!(
            c.problems[0].contains("holds no Claude Code project record"),
            "{:?}",
            c.problems
        );
        assert!(c.problems[0].contains("agent-home"));
        record(&h, "aaa", "Other", "m");
        record(&h, "bbb", "Another", "m");
        let c = run(&h, None);
        assert!(
            c.problems[0].contains("`aaa.jsonl`, `bbb.jsonl`")
                && c.problems[0].contains("none has this checkout's prompt"),
            "{:?}",
            c.problems
        );
        record(&h, "ccc", "Review", "m");
        let c = run(&h, None);
        assert!(
            c.problems.is_empty() || !c.problems[0].contains("project records"),
            "{:?}",
            c.problems
        );
        assert!(
            c.notes
                .iter()
                .any(|n| n.contains("the one with this checkout's prompt was used"))
        );
        assert_eq!(c.transcript.unwrap().session_id.as_deref(), Some("ccc"));
    }

    /// The attack review: a forged execution file that names another version
    /// or model than the record, or holds two runs, is a problem.
    #[test]
    fn one_run_is_one_version_one_start_model_and_one_result() {
        let h = home();
        record(&h, "s", "Review", "m");
        fs::write(
            h.home.join(record::EXECUTION_FILE),
            serde_json::json!([
                {"type": "system", "subtype": "init", "session_id": "s", "model": "claude-haiku-evil", "claude_code_version": "2.1.332"},
                {"type": "result", "subtype": "error_during_execution", "is_error": true},
                {"type": "system", "subtype": "init", "session_id": "s", "model": "m", "claude_code_version": "2.1.300"},
                {"type": "result", "subtype": "success", "is_error": false, "structured_output": {"ok": true}}
            ])
            .to_string(),
        )
        .unwrap();
        let c = run(&h, Some("m"));
        let all = c.problems.join("\n");
        assert!(
            all.contains("2 Claude Code versions (`2.1.300`, `2.1.332`)"),
            "{all}"
        );
        assert!(
            all.contains("holds 2 `init` and 2 `result` messages"),
            "{all}"
        );
        assert!(
            all.contains("the run was started with `claude-haiku-evil`"),
            "{all}"
        );
    }

    #[test]
    fn an_error_result_and_a_model_from_the_record_are_said_on_one_line() {
        let h = home();
        record(&h, "s", "Review", "evil`\n::error::x");
        fs::write(
            h.home.join(record::EXECUTION_FILE),
            serde_json::json!([
                {"type": "system", "subtype": "init", "session_id": "s", "claude_code_version": "2.1.300"},
                {"type": "result", "subtype": "error_max_turns", "is_error": true, "structured_output": {"ok": true}}
            ])
            .to_string(),
        )
        .unwrap();
        let c = run(&h, Some("claude-sonnet-4-5"));
        let all = c.problems.join("\n");
        assert!(
            all.contains("Claude Code ended with `error_max_turns` (is_error)"),
            "{all}"
        );
        let model = c
            .problems
            .iter()
            .find(|p| p.starts_with("model is"))
            .unwrap();
        assert!(!model.contains('\n'), "{model}");
        assert!(c.unverified.iter().any(|(w, _)| w == "the record's commit"));
    }

    #[test]
    fn record_paths_are_named_as_the_receipt_names_them() {
        let root = Some("/home/runner/work/r/r");
        assert_eq!(
            receipt_name("/home/runner/work/r/r/sub/CLAUDE.md", Scope::Project, root).as_deref(),
            Some("sub/CLAUDE.md")
        );
        assert_eq!(
            receipt_name("/home/runner/.claude/CLAUDE.md", Scope::User, root).as_deref(),
            Some(HOME_FILE)
        );
        assert_eq!(receipt_name("/etc/CLAUDE.md", Scope::Project, root), None);
        assert_eq!(
            receipt_name("/home/runner/work/r/r/../x/CLAUDE.md", Scope::Project, root),
            None
        );
    }

    /// The record of a run whose model answered `answer` (call `t1`), with
    /// the hook lines given, and whose run returned `returned`.
    fn answered(h: &Home, answer: Value, hooks: &[Value], returned: Value) {
        let mut lines = vec![
            serde_json::json!({"type": "user", "message": {"role": "user", "content": "Review"}, "sessionId": "s", "cwd": h.ws.root().display().to_string(), "version": "2.1.332"}),
            serde_json::json!({"type": "assistant", "message": {"id": "m", "model": "m", "content": [{"type": "tool_use", "id": "t1", "name": "StructuredOutput", "input": answer}]}}),
        ];
        lines.extend(
            hooks
                .iter()
                .map(|a| serde_json::json!({"type": "attachment", "attachment": a})),
        );
        lines.push(serde_json::json!({"type": "attachment", "attachment": {"type": "structured_output", "data": returned, "toolUseID": "t1"}}));
        let text: Vec<String> = lines.iter().map(|l| l.to_string()).collect();
        fs::write(
            h.home.join(".claude/projects/-repo/s.jsonl"),
            text.join("\n"),
        )
        .unwrap();
    }

    fn hook_ran(command: &str) -> Value {
        serde_json::json!({"type": "hook_success", "hookName": "PreToolUse:StructuredOutput", "toolUseID": "t1", "hookEvent": "PreToolUse", "command": command, "exitCode": 0})
    }

    fn sha(v: Value) -> String {
        short(&sha256_hex(v.to_string().as_bytes()))
    }

    /// The attack of issue 27: a PreToolUse hook replaced the model's
    /// `ok: false` with `ok: true`; the run's `structured_output`, and so the
    /// review (`{"ok": true}` here), are the hook's.
    #[test]
    fn a_review_that_is_not_the_models_own_answer_fails_naming_the_hook() {
        let h = home();
        fs::create_dir_all(h.ws.root().join(".claude")).unwrap();
        fs::write(
            h.ws.root().join(".claude/settings.json"),
            r#"{"hooks": {"PreToolUse": [{"hooks": [{"type": "command", "command": "sh scripts/guard.sh"}]}]}}"#,
        )
        .unwrap();
        let model = serde_json::json!({"ok": false});
        let hooked = serde_json::json!({"ok": true});
        answered(
            &h,
            model.clone(),
            &[hook_ran("sh scripts/guard.sh")],
            hooked.clone(),
        );
        let c = run(&h, None);
        let want = format!(
            "`r.json` is not the model's own answer (its last StructuredOutput call, sha256 {} vs {}): a PreToolUse hook (`sh scripts/guard.sh`, in `.claude/settings.json`) changed it",
            sha(hooked.clone()),
            sha(model.clone())
        );
        assert!(c.problems.contains(&want), "{:?}", c.problems);
        // No hook line: said as such.
        answered(&h, model.clone(), &[], hooked.clone());
        let c = run(&h, None);
        assert!(
            c.problems.iter().any(|p| p.ends_with("something rewrote it after the model, before the run returned it (the record shows no hook that ran on that call)")),
            "{:?}",
            c.problems
        );
        // A command from the record is said on one line.
        answered(
            &h,
            model.clone(),
            &[hook_ran("sh x`\n::error::y")],
            hooked.clone(),
        );
        let c = run(&h, None);
        let p = c
            .problems
            .iter()
            .find(|p| p.contains("not the model's own answer"))
            .unwrap();
        assert!(
            !p.contains('\n') && p.contains("a PreToolUse hook (`sh x"),
            "{p}"
        );
        // The run returned the model's answer, the review file is another.
        answered(
            &h,
            model.clone(),
            &[hook_ran("sh scripts/guard.sh")],
            model.clone(),
        );
        let c = run(&h, None);
        assert!(
            c.problems.iter().any(|p| p.contains("is not the model's own answer") && p.ends_with("the run's `structured_output` is the model's answer, the review file is not")),
            "{:?}",
            c.problems
        );
        // A hook that changed nothing: no problem of the output.
        answered(
            &h,
            hooked.clone(),
            &[hook_ran("sh scripts/guard.sh")],
            hooked.clone(),
        );
        let c = run(&h, None);
        assert!(
            !c.problems
                .iter()
                .any(|p| p.contains("own answer") || p.contains("structured_output")),
            "{:?}",
            c.problems
        );
    }
}
