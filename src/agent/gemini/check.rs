//! What reached Gemini CLI, checked against what the checkout says should have.
//!
//! The session record holds the first user message as sent (the session
//! context with the workspace GEMINI.md files in `<project_context>`), each
//! prompt, each answer with its model and tokens, and the tool calls. It does
//! not hold the CLI version, the system instruction (with the global
//! GEMINI.md), the tools, the generation settings or the router's request:
//! those are said as unverified, never passed in silence.

use std::path::{Path, PathBuf};

use super::Settings;
use super::chain::{self, Block};
use super::record::{self, Record, Stdout};
use crate::agent::candidates;
use crate::agent::check::short;
use crate::agent::check::{Context, SessionRecord, TranscriptRecord};
use crate::agent::checklist::{self, Answer, Call, Commit, Observation, Recorded};
use crate::agent::turns::{Item, Turn};
use crate::agent::{AgentCheck, Expected, Fact, SessionOptions};
use crate::digest::sha256_hex;
use crate::workspace::Workspace;

/// Where run-gemini-cli's `--output-format json` stdout may be, relative to
/// the agent home, then to the workspace.
const STDOUT: &[&str] = &["gemini-artifacts/stdout.log", "stdout.log"];

pub(crate) fn read_and_check(
    opts: &SessionOptions,
    _settings: &Settings,
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
                    "{why}; give this step, as agent-home, the `~/.gemini` folder the agent job uploaded (with `tmp/<project>/chats/session-*.jsonl`)"
                )],
                ..AgentCheck::default()
            };
        }
    };
    let stdout = read_stdout(home, ws);
    let shown = record
        .path
        .strip_prefix(home)
        .map(|p| format!("{}{}", chain::HOME_PREFIX, p.display()))
        .unwrap_or_else(|_| record.path.display().to_string());
    let chain_opts = chain::Options {
        home: Some(home.clone()),
    };
    let mut scratch = crate::agent::chain::Chain::default();
    let ours = chain::blocks(workdir, ws, &chain_opts, &mut scratch).unwrap_or_default();
    let home_real = std::fs::canonicalize(home).unwrap_or_else(|_| home.clone());
    let global: Vec<(String, String)> = chain::file_names(workdir, ws, Some(home))
        .into_iter()
        .filter_map(|n| {
            let bytes = crate::workspace::read_contained(
                &home.join(&n),
                &[&home_real],
                crate::limits::FILE_BYTES,
            )
            .ok()?;
            Some((
                n,
                chain::js_trim(&String::from_utf8_lossy(&bytes)).to_string(),
            ))
        })
        .collect();
    let mut c = check(&record, stdout.as_ref(), &ours, ws.root(), expected);
    let model = c.settings.as_ref().and_then(|s| s.model.clone());
    match read_telemetry(home, ws)
        .and_then(|t| system_instruction(&t, record.session_id.as_deref(), model.as_deref()))
    {
        Some(system) => check_system(&mut c, &system, &global),
        None => {
            for (n, _) in global {
                // The file is hashed; without telemetry no run shows it sent.
                c.limits.push((
                    format!("what the global `{}{n}` said", chain::HOME_PREFIX),
                    format!(
                        "Gemini CLI puts the agent home's `{n}` at the end of the system instruction, which the session record does not keep (local telemetry, `gemini-artifacts/telemetry.log`, does): the receipt hashes the file (`agents`), and cannot show that the agent received it"
                    ),
                ));
            }
        }
    }
    c.notes.extend(note);
    c.transcript = Some(TranscriptRecord::of(
        shown,
        record.session_id.clone(),
        record.sha256.clone(),
        record.redaction.clone(),
    ));
    c
}

/// Every record under the agent home (`tmp/<project>/chats/`; also under
/// `.gemini/` when the whole home folder was uploaded).
pub fn records(home: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    for tmp in [home.join("tmp"), home.join(".gemini/tmp")] {
        let Ok(projects) = std::fs::read_dir(&tmp) else {
            continue;
        };
        for p in projects
            .flatten()
            .take(crate::limits::RECORD_FOLDER_ENTRIES)
        {
            let Ok(files) = std::fs::read_dir(p.path().join("chats")) else {
                continue;
            };
            for f in files.flatten().take(crate::limits::RECORD_FOLDER_ENTRIES) {
                let name = f.file_name().to_string_lossy().into_owned();
                if name.starts_with("session-")
                    && (name.ends_with(".jsonl") || name.ends_with(".json"))
                {
                    out.push(f.path());
                }
            }
        }
    }
    out.sort();
    out
}

impl candidates::Candidate for Record {
    const LAYOUT: candidates::Layout = candidates::Layout {
        agent: "Gemini CLI",
        pattern: "tmp/<project>/chats/session-*.jsonl",
        empty_because: " (a resumed session leaves one)",
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

    /// Its file's name: `session-<time>-<id>.jsonl`.
    fn name(&self) -> String {
        format!(
            "`{}`",
            crate::escape::one_line(&self.path.file_name().unwrap_or_default().to_string_lossy())
        )
    }
}

fn read_stdout(home: &Path, ws: &Workspace) -> Option<Stdout> {
    first_read(
        home,
        ws,
        STDOUT,
        crate::limits::EXECUTION_BYTES,
        record::parse_stdout,
    )
}

/// The first of `names` under the agent home (inside it), else the first
/// name under the workspace, that reads and parses.
fn first_read<T>(
    home: &Path,
    ws: &Workspace,
    names: &[&str],
    max: u64,
    parse: impl Fn(&[u8]) -> Option<T>,
) -> Option<T> {
    let home_real = std::fs::canonicalize(home).unwrap_or_else(|_| home.to_path_buf());
    let mut places = names
        .iter()
        .map(|p| (home.join(p), home_real.clone()))
        .chain(
            names
                .first()
                .map(|p| (ws.root().join(p), ws.root().to_path_buf())),
        );
    places.find_map(|(path, root)| {
        let bytes = crate::workspace::read_contained(&path, &[&root], max).ok()?;
        parse(&bytes)
    })
}

/// Where run-gemini-cli's copy of the local telemetry may be (settings
/// `telemetry.target: local`, `outfile: .gemini/telemetry.log`).
const TELEMETRY: &[&str] = &["gemini-artifacts/telemetry.log", "telemetry.log"];

/// The local telemetry: pretty-printed JSON objects one after another.
fn read_telemetry(home: &Path, ws: &Workspace) -> Option<Vec<serde_json::Value>> {
    first_read(home, ws, TELEMETRY, crate::limits::RECORD_BYTES, |bytes| {
        let events: Vec<serde_json::Value> = serde_json::Deserializer::from_slice(bytes)
            .into_iter::<serde_json::Value>()
            .map_while(Result::ok)
            .collect();
        (!events.is_empty()).then_some(events)
    })
}

/// The system instruction of this session's last request to `model`, as
/// the telemetry's `gen_ai.client.inference.operation.details` event has it.
pub(crate) fn system_instruction(
    events: &[serde_json::Value],
    session_id: Option<&str>,
    model: Option<&str>,
) -> Option<String> {
    events
        .iter()
        .map(|e| &e["attributes"])
        .filter(|a| a["event.name"] == "gen_ai.client.inference.operation.details")
        .filter(|a| session_id.is_none_or(|id| a["session.id"] == id))
        .filter(|a| model.is_none_or(|m| a["gen_ai.request.model"] == m))
        .filter_map(|a| {
            let parts: Vec<serde_json::Value> =
                serde_json::from_str(a["gen_ai.system_instructions"].as_str()?).ok()?;
            Some(
                parts
                    .iter()
                    .filter_map(|p| p["content"].as_str())
                    .collect::<String>(),
            )
        })
        .next_back()
}

/// The system instruction the telemetry shows: hashed (`base_instructions_sha`),
/// and its global GEMINI.md held against the agent home's.
fn check_system(c: &mut AgentCheck, system: &str, global: &[(String, String)]) {
    let sent: Vec<Block> = system
        .rfind("<loaded_context>\n")
        .map(|at| chain::parse_blocks(&system[at..]))
        .unwrap_or_default()
        .into_iter()
        .collect();
    let (sent, others): (Vec<Block>, Vec<Block>) = sent.into_iter().partition(|b| {
        b.path
            .rsplit_once('/')
            .is_some_and(|(dir, _)| dir.ends_with("/.gemini"))
    });
    if !others.is_empty() {
        let names: Vec<String> = others
            .iter()
            .map(|b| format!("`{}`", crate::escape::one_line(&b.path)))
            .collect();
        c.unverified.push((
            "the extensions' context files".into(),
            format!(
                "the system instruction holds {}, which are neither the checkout's nor the agent home's: the receipt does not hash them",
                names.join(", ")
            ),
        ));
    }
    for b in &sent {
        let name = b.path.rsplit('/').next().unwrap_or_default();
        let shown = format!("{}{name}", chain::HOME_PREFIX);
        match global.iter().find(|(n, _)| n == name) {
            Some((_, ours)) if *ours == b.text => {}
            Some((_, ours)) => c.problems.push(format!(
                "the global `{shown}` the agent received (sha256 {}) is not the agent home's (sha256 {})",
                short(&sha256_hex(b.text.as_bytes())),
                short(&sha256_hex(ours.as_bytes()))
            )),
            None => c.problems.push(format!(
                "the agent received a global `{shown}` (sha256 {}) that the agent home does not have: upload it with the session record",
                short(&sha256_hex(b.text.as_bytes()))
            )),
        }
    }
    for (n, text) in global {
        if !text.is_empty() && !sent.iter().any(|b| b.path.ends_with(&format!("/{n}"))) {
            c.problems.push(format!(
                "the agent home has a global `{}{n}`, but the system instruction the agent received holds none",
                chain::HOME_PREFIX
            ));
        }
    }
    if let Some(ctx) = c.context.as_mut() {
        ctx.base_instructions_sha = Some(sha256_hex(system.as_bytes()));
    }
    c.notes.push(
        "the system instruction (with the global GEMINI.md) is taken from Gemini CLI's local telemetry, beside the session record: `base_instructions_sha`".into(),
    );
}

/// The pure core: the record (and the stdout) against the checkout, by the
/// one checklist and then what only Gemini CLI's record shows. `ours` is
/// the project context the checkout predicts, block by block; `ws_root` is
/// the workspace as seen here.
pub(crate) fn check(
    r: &Record,
    stdout: Option<&Stdout>,
    ours: &[Block],
    ws_root: &Path,
    expected: &Expected,
) -> AgentCheck {
    let mut c = AgentCheck::default();
    let out_turn = r.output_turn().or(r.turns.len().checked_sub(1));
    let out_model = out_turn.and_then(|t| r.turns[t].model.clone());
    let cwd = r.cwd();
    check_project_hash(&mut c, r, cwd.as_deref());
    let observed = observe(r, out_turn, cwd.as_deref());
    let agent_root = checklist::judge(&mut c, &super::ABOUT, observed, expected);
    check_instructions(&mut c, r, ours, agent_root.as_deref(), ws_root, expected);
    check_jit(&mut c, r, agent_root.as_deref());
    let router = check_router(&mut c, r, stdout, expected);
    if let Some(s) = stdout {
        check_stdout(&mut c, r, s, out_turn, expected);
    }
    record_notes(&mut c, r);
    check_cut(&mut c, r);
    // A text a redacted record cut has no hash.
    c.context = out_turn
        .filter(|t| !context_cut(r, &r.turns[*t]))
        .map(|t| Context {
            sha: record::context_sha(&r.turns[t].context),
            ..Context::default()
        });
    c.facts = facts(r, router);
    c.settings = Some(SessionRecord {
        model: out_model,
        ..SessionRecord::default()
    });
    c
}

/// The record as the checklist reads it. No Gemini CLI record names the CLI
/// version or the commit: limits of the agent, said on every run.
fn observe<'r>(r: &'r Record, out_turn: Option<usize>, cwd: Option<&'r str>) -> Observation<'r> {
    let calls = r.tool_calls.iter().filter_map(|call| {
        if WRITING_TOOLS.contains(&call.name.as_str()) {
            Some(Call::Write {
                path: call.args["file_path"].as_str()?.to_string(),
                verb: "changed",
                how: format!("`{}`", crate::escape::one_line(&call.name)),
                not_done: None,
            })
        } else if call.name == "run_shell_command" {
            Some(Call::Command {
                text: call.args["command"].as_str()?,
                failed: false,
            })
        } else {
            None
        }
    });
    Observation {
        cwd,
        prompt: out_turn.map(|t| r.turns[t].prompt.as_str()),
        version: Some(Recorded::Never),
        commit: Some(Commit::Never),
        model: out_turn.and_then(|t| r.turns[t].model.as_deref()),
        turns: neutral_turns(r),
        output_turn: out_turn,
        switched: Vec::new(),
        tokens: r.tokens.clone(),
        calls: calls.collect(),
        answer: Some(
            out_turn
                .and_then(|t| r.turns[t].answer.as_deref())
                .map_or(Answer::Missing, Answer::Text),
        ),
    }
}

/// The project hash Gemini CLI files the record under is the SHA-256 of the
/// directory its session context names.
fn check_project_hash(c: &mut AgentCheck, r: &Record, cwd: Option<&str>) {
    if let (Some(cwd), Some(hash)) = (cwd, &r.project_hash) {
        if sha256_hex(cwd.as_bytes()) != *hash {
            c.notes.push(format!(
                "the session record's project hash is not the SHA-256 of the directory its session context names (`{}`)",
                crate::escape::one_line(cwd)
            ));
        }
    }
}

/// The router: its request is not in the record, so a budget that counts
/// the record is not the whole run's. Returns the router model the JSON
/// output names: `None` without the output, `Some(None)` when none ran.
fn check_router(
    c: &mut AgentCheck,
    r: &Record,
    stdout: Option<&Stdout>,
    expected: &Expected,
) -> Option<Option<String>> {
    // The router's request is not in the record: a budget that counts the
    // record is not the whole run's, and the verdict says so.
    let router = stdout.map(|s| {
        s.models
            .iter()
            .find(|(_, role)| role == "utility_router")
            .map(|(m, _)| m.clone())
    });
    if let (Some(max), Some(t)) = (expected.max_total_tokens, &r.tokens) {
        let why = match &router {
            Some(Some(m)) => Some(format!(
                "max-total-tokens is {max}: Gemini CLI asked a router model (`{}`) which model to use, and that request's tokens are not in the session record, so the budget counted the main requests' {} tokens only; pass `-m <model>` to skip the router",
                crate::escape::one_line(m),
                t.total
            )),
            Some(None) => None,
            None => Some(format!(
                "max-total-tokens is {max}, and without Gemini CLI's JSON output (`{}`) the receipt cannot tell whether a router request ran: its tokens would not be in the session record, so the budget counted the record's {} tokens only; upload the output, or pass `-m <model>`",
                STDOUT[0], t.total
            )),
        };
        if let Some(why) = why {
            c.unverified
                .push(("the router request's tokens".into(), why));
        }
    }
    router
}

/// The JSON output against the record: the router, the session, the answer,
/// an error Gemini CLI reported.
fn check_stdout(
    c: &mut AgentCheck,
    r: &Record,
    s: &Stdout,
    out_turn: Option<usize>,
    expected: &Expected,
) {
    if expected.max_total_tokens.is_none()
        && s.models.iter().any(|(_, role)| role == "utility_router")
    {
        c.notes.push(
            "Gemini CLI asked a router model which model to use: that request (which carries the project context too) and its tokens are not in the session record, nor in the receipt's token count".into(),
        );
    }
    if let (Some(a), Some(b)) = (&s.session_id, &r.session_id) {
        if a != b {
            c.problems.push(format!(
                "the JSON output is of session `{}`, the session record of `{}`: they are of different runs",
                crate::escape::one_line(a),
                crate::escape::one_line(b)
            ));
        }
    }
    let last = out_turn.and_then(|t| r.turns[t].answer.as_deref());
    if let (Some(response), Some(last)) = (s.response.as_deref(), last) {
        if response != last {
            c.problems.push(format!(
                "the JSON output's `response` (sha256 {}) is not the session record's last answer (sha256 {}): they are of different runs",
                short(&sha256_hex(response.as_bytes())),
                short(&sha256_hex(last.as_bytes()))
            ));
        }
    }
    if let Some(e) = &s.error {
        c.problems.push(format!(
            "Gemini CLI reported an error: {}",
            crate::escape::one_line(&crate::markdown::clip(e, 200))
        ));
    }
}

/// What the record says of itself: rewinds, its warnings, lines not read,
/// token counts not whole numbers.
fn record_notes(c: &mut AgentCheck, r: &Record) {
    if r.rewinds > 0 {
        c.timeline.push(format!(
            "The session was rewound {} time{}: the model saw turns the record no longer counts",
            r.rewinds,
            if r.rewinds == 1 { "" } else { "s" }
        ));
    }
    c.notes.extend(r.warnings.iter().cloned());
    if r.unread_lines > 0 {
        c.unverified.push((
            "the whole record".into(),
            format!("{} line(s) of the session record are not JSON: what they held (a prompt, a hook, an answer) is not known", r.unread_lines),
        ));
    }
    if r.tokens_unreadable {
        c.unverified.push((
            "the token count".into(),
            "a token count in the session record is not a whole number: the tokens are not known"
                .into(),
        ));
    }
}

/// A redacted record cut some of the turn's context.
fn context_cut(r: &Record, t: &record::RecordTurn) -> bool {
    t.context.iter().any(|(_, x)| r.is_cut(x))
}

/// The record's turns in the neutral form. A text a redacted record cut has
/// no hash, nor has the context of a turn past
/// [`crate::limits::CONTEXT_HASHED_BYTES`] (the turn whose answer is the
/// output is hashed apart, whatever its size).
fn neutral_turns(r: &Record) -> Vec<Turn> {
    let mut hashed = 0usize;
    let mut within = |t: &record::RecordTurn| {
        hashed = t
            .context
            .iter()
            .fold(hashed, |n, (_, x)| n.saturating_add(x.len()));
        hashed <= crate::limits::CONTEXT_HASHED_BYTES
    };
    r.turns
        .iter()
        .map(|t| Turn {
            model: t.model.clone(),
            prompt_sha: Some(sha256_hex(t.prompt.as_bytes())),
            context_sha: (within(t) && !context_cut(r, t)).then(|| record::context_sha(&t.context)),
            items: t
                .items
                .iter()
                .map(|(kind, text)| match r.is_cut(text) {
                    true => Item {
                        kind: kind.clone(),
                        sha256: None,
                        bytes: record::cut_bytes(text).unwrap_or(0),
                    },
                    false => Item {
                        kind: kind.clone(),
                        sha256: Some(sha256_hex(text.as_bytes())),
                        bytes: text.len(),
                    },
                })
                .collect(),
        })
        .collect()
}

/// The facts the check shows about the record.
fn facts(r: &Record, router: Option<Option<String>>) -> Vec<Fact> {
    let router = match router {
        Some(Some(m)) => Fact::code("Router model", Some(&m)),
        Some(None) => Fact::text("Router model", "none: the model was given"),
        None => Fact::code("Router model", None),
    };
    vec![
        Fact::text(
            "Record kind",
            format!(
                "Gemini CLI's session record, {}",
                crate::agent::redaction::describe(r.redaction.as_ref())
            ),
        ),
        Fact::code("Gemini CLI", None),
        router,
        Fact::code("Project hash", r.project_hash.as_deref()),
    ]
}

/// The workspace instructions as sent are the chain computed from the
/// checkout; each file that differs is named.
fn check_instructions(
    c: &mut AgentCheck,
    r: &Record,
    ours: &[Block],
    agent_root: Option<&str>,
    ws_root: &Path,
    expected: &Expected,
) {
    let sent = r.project_context().map(|pc| match agent_root {
        Some(root) => pc.replace(&format!("{}/", root.trim_end_matches('/')), ""),
        None => pc.to_string(),
    });
    let sent_sha = sent.as_deref().map(|b| sha256_hex(b.as_bytes()));
    if sent_sha.as_deref() == expected.agents_sha {
        return;
    }
    let theirs = sent.as_deref().map(chain::parse_blocks).unwrap_or_default();
    for b in &theirs {
        let sha = short(&sha256_hex(b.text.as_bytes()));
        match ours.iter().find(|o| o.path == b.path) {
            // Only what it imports differs: each imported file is named.
            Some(o) if o.text != b.text && imports_differ(c, &b.path, &o.text, &b.text) => {}
            Some(o) if o.text != b.text => c.problems.push(format!(
                "`{}` as the agent received it (sha256 {sha}) is not the checkout's (sha256 {}): the file changed after the run, or the record is of another checkout",
                crate::escape::one_line(&b.path),
                short(&sha256_hex(o.text.as_bytes()))
            )),
            Some(_) => {}
            None if b.path.starts_with('/') || !ws_root.join(&b.path).exists() => c.problems.push(format!(
                "the agent received `{}` (sha256 {sha}) as an instruction file, which the checkout does not have",
                crate::escape::one_line(&b.path)
            )),
            None => c.problems.push(format!(
                "the agent received `{}` (sha256 {sha}) as an instruction file, which Gemini CLI would not load from this checkout",
                crate::escape::one_line(&b.path)
            )),
        }
    }
    for o in ours
        .iter()
        .filter(|o| !theirs.iter().any(|b| b.path == o.path))
    {
        c.problems.push(format!(
            "the checkout's `{}` is an instruction file the agent did not receive",
            o.path
        ));
    }
    let describe =
        |s: Option<&str>| s.map_or("none".to_string(), |s| format!("sha256 {}", short(s)));
    c.problems.push(format!(
        "the GEMINI.md instructions the agent received ({}) differ from the chain computed from the checkout ({})",
        describe(sent_sha.as_deref()),
        describe(expected.agents_sha)
    ));
}

/// One `@` import as Gemini CLI inlined it: the path as written, and the
/// text inlined, or the comment left where the import failed.
type Import = (String, Result<String, String>);

const IMPORTED: &str = "<!-- Imported from: ";
const END_OF_IMPORT: &str = "\n<!-- End of import from: ";
const IMPORT_FAILED: &str = "<!-- Import failed: ";

/// A file's text as sent, its imports taken out: the text with each import
/// replaced by a mark, and the imports in order (nested ones stay in their
/// importer's text). `None` when the comments do not pair up.
fn split_imports(text: &str) -> Option<(String, Vec<Import>)> {
    let mut skeleton = String::new();
    let mut imports = Vec::new();
    let mut rest = text;
    loop {
        let next = [IMPORTED, IMPORT_FAILED]
            .iter()
            .filter_map(|m| rest.find(m).map(|at| (at, *m)))
            .min();
        let Some((at, mark)) = next else {
            skeleton.push_str(rest);
            return Some((skeleton, imports));
        };
        skeleton.push_str(&rest[..at]);
        skeleton.push_str(&format!("\u{0}{}\u{0}", imports.len()));
        let after = &rest[at + mark.len()..];
        if mark == IMPORT_FAILED {
            let rel_end = after.find(" - ")?;
            let end = after.find(" -->")?;
            imports.push((after[..rel_end].to_string(), Err(after[..end].to_string())));
            rest = &after[end + " -->".len()..];
            continue;
        }
        let rel_end = after.find(" -->\n")?;
        let rel = &after[..rel_end];
        let inner_start = &after[rel_end + " -->\n".len()..];
        // The end that pairs with this start: nested imports open and close
        // inside it.
        let mut depth = 1;
        let mut pos = 0;
        let inner_end = loop {
            let open = inner_start[pos..].find(IMPORTED).map(|i| i + pos);
            let close = inner_start[pos..].find(END_OF_IMPORT).map(|i| i + pos)?;
            match open {
                Some(o) if o < close => {
                    depth += 1;
                    pos = o + IMPORTED.len();
                }
                _ => {
                    depth -= 1;
                    if depth == 0 {
                        break close;
                    }
                    pos = close + END_OF_IMPORT.len();
                }
            }
        };
        let closing = format!("{END_OF_IMPORT}{rel} -->");
        if !inner_start[inner_end..].starts_with(&closing) {
            return None;
        }
        imports.push((rel.to_string(), Ok(inner_start[..inner_end].to_string())));
        rest = &inner_start[inner_end + closing.len()..];
    }
}

/// When `file`'s own text is the same as sent and only what it imports
/// differs, each imported file that differs is named (a problem) and this is
/// true; otherwise false, and the caller names `file`.
fn imports_differ(c: &mut AgentCheck, file: &str, ours: &str, theirs: &str) -> bool {
    let mut found = Vec::new();
    if !named_imports(file, ours, theirs, &mut found) || found.is_empty() {
        return false;
    }
    c.problems.extend(found);
    true
}

/// Pushes to `out` only when it returns true.
fn named_imports(file: &str, ours: &str, theirs: &str, found: &mut Vec<String>) -> bool {
    let mut out = Vec::new();
    let explained = named_imports_in(file, ours, theirs, &mut out);
    if explained {
        found.extend(out);
    }
    explained
}

fn named_imports_in(file: &str, ours: &str, theirs: &str, out: &mut Vec<String>) -> bool {
    let (Some((ours_text, ours_imports)), Some((theirs_text, theirs_imports))) =
        (split_imports(ours), split_imports(theirs))
    else {
        return false;
    };
    if ours_text != theirs_text
        || ours_imports.len() != theirs_imports.len()
        || ours_imports
            .iter()
            .zip(&theirs_imports)
            .any(|(o, t)| o.0 != t.0)
    {
        return false;
    }
    let dir = file.rsplit_once('/').map_or("", |(d, _)| d);
    for ((rel, o), (_, t)) in ours_imports.iter().zip(&theirs_imports) {
        if o == t {
            continue;
        }
        // As Gemini CLI resolves it: from the importing file's folder.
        let path = if rel.starts_with('/') || dir.is_empty() {
            crate::agent::check::normalize(rel)
        } else {
            crate::agent::check::normalize(&format!("{dir}/{rel}"))
        }
        .unwrap_or_else(|| rel.clone());
        let (shown, by) = (
            crate::escape::one_line(&path),
            crate::escape::one_line(file),
        );
        match (o, t) {
            (Ok(o), Ok(t)) => {
                if !named_imports(&path, o, t, out) {
                    out.push(format!(
                        "`{shown}` (imported by `{by}`) as the agent received it (sha256 {}) is not the checkout's (sha256 {}): the file changed after the run, or the record is of another checkout",
                        short(&sha256_hex(t.as_bytes())),
                        short(&sha256_hex(o.as_bytes()))
                    ));
                }
            }
            (Err(_), Ok(t)) => out.push(format!(
                "the agent received `{shown}` (imported by `{by}`, sha256 {}), which the checkout does not have: the file was removed or moved after the run, or the record is of another checkout",
                short(&sha256_hex(t.as_bytes()))
            )),
            (Ok(o), Err(_)) => out.push(format!(
                "the checkout's `{shown}` (imported by `{by}`, sha256 {}) did not reach the agent: its import failed in the run; the file was added after the run, or the record is of another checkout",
                short(&sha256_hex(o.as_bytes()))
            )),
            (Err(_), Err(_)) => return false,
        }
    }
    true
}

/// Instruction files loaded when a tool touched a folder: only the tool
/// results in the record show them, and the receipt names each.
fn check_jit(c: &mut AgentCheck, r: &Record, agent_root: Option<&str>) {
    let mut found: Vec<String> = Vec::new();
    for call in &r.tool_calls {
        for b in chain::parse_blocks(&call.result) {
            let p = match agent_root {
                Some(root) => b
                    .path
                    .strip_prefix(&format!("{}/", root.trim_end_matches('/')))
                    .unwrap_or(&b.path)
                    .to_string(),
                None => b.path.clone(),
            };
            if !found.contains(&p) {
                found.push(p);
            }
        }
    }
    if !found.is_empty() {
        let names: Vec<String> = found
            .iter()
            .map(|p| format!("`{}`", crate::escape::one_line(p)))
            .collect();
        c.unverified.push((
            "the instruction files loaded just in time".into(),
            format!(
                "Gemini CLI loaded {} when a tool touched {} folder{} during the run; they reached the model in tool results, after the prompt, and are not in the receipt's chain",
                names.join(", "),
                if found.len() == 1 { "its" } else { "their" },
                if found.len() == 1 { "" } else { "s" }
            ),
        ));
    }
}

/// What a redacted record cut and the receipt therefore cannot hash: the
/// model's earlier text in a later turn's context, a compression's summary.
/// Said as not verified, never passed in silence.
fn check_cut(c: &mut AgentCheck, r: &Record) {
    if r.redaction.is_none() {
        return;
    }
    let n = r.turns.len();
    for (i, t) in r.turns.iter().enumerate() {
        let of_turn = if n > 1 {
            format!(" of turn {}", i + 1)
        } else {
            String::new()
        };
        if t.context.iter().any(|(_, x)| r.is_cut(x)) {
            c.unverified.push((
                format!("the context{of_turn}"),
                format!(
                    "the messages before the prompt{of_turn} hold text the redacted record cut (the model's earlier answers, or a summary): the receipt has no `context_sha` for it; upload the raw record to hash it"
                ),
            ));
        }
        for (kind, text) in &t.items {
            if r.is_cut(text) {
                c.unverified.push((
                    format!("the text of {}{of_turn}", kind.describe()),
                    format!(
                        "the model received {}{of_turn} ({} bytes) whose text the redacted record cut: the receipt has no hash of it",
                        kind.describe(),
                        record::cut_bytes(text).unwrap_or(0)
                    ),
                ));
            }
        }
    }
}

/// Tools that write the file they name (`file_path`), and the shell.
const WRITING_TOOLS: &[&str] = &["write_file", "replace", "edit"];

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn record(project: &str, prompt: &str, answer: &str) -> Record {
        let sc = format!(
            "<session_context>\n- **Workspace Directories:**\n  - /w/r\n<loaded_context>\n<project_context>\n{project}\n</project_context>\n</loaded_context>\n</session_context>"
        );
        let lines = [
            json!({"sessionId": "s", "projectHash": sha256_hex(b"/w/r"), "kind": "main"}),
            json!({"$set": {"messages": [{"id": "c", "type": "user", "content": [{"text": sc}]}]}}),
            json!({"id": "u", "type": "user", "content": [{"text": prompt}]}),
            json!({"id": "g", "type": "gemini", "content": answer, "model": "gemini-x", "tokens": {"input": 900, "output": 100, "cached": 0, "total": 1000}}),
        ];
        let text: String = lines.iter().map(|l| format!("{l}\n")).collect();
        record::parse(Path::new("session-a.jsonl"), text.as_bytes())
    }

    fn expected<'a>(agents_sha: Option<&'a str>) -> Expected<'a> {
        Expected {
            prompt_bytes: b"Review\n",
            agents_sha,
            cli_version: Some("0.61.0"),
            model: Some("gemini-x"),
            output: Some(b"{}"),
            ..Expected::example()
        }
    }

    #[test]
    fn a_record_without_a_prompt_is_skipped_and_two_of_one_prompt_fail() {
        let home = tempfile::tempdir().unwrap();
        let chats = home.path().join("tmp/r/chats");
        std::fs::create_dir_all(&chats).unwrap();
        let header = json!({"sessionId": "s", "projectHash": "h"}).to_string();
        let with_prompt = |prompt: &str| {
            [
                header.clone(),
                json!({"id": "u", "type": "user", "content": [{"text": prompt}]}).to_string(),
                json!({"id": "g", "type": "gemini", "content": "{}"}).to_string(),
            ]
            .join("\n")
        };
        std::fs::write(chats.join("session-a.jsonl"), with_prompt("Review\n")).unwrap();
        std::fs::write(chats.join("session-b.jsonl"), &header).unwrap();
        let e = expected(None);
        let (r, note) = candidates::load::<Record>(home.path(), None, &e).unwrap();
        assert!(r.path.ends_with("session-a.jsonl"));
        assert!(note.unwrap().contains("hold no prompt"));
        std::fs::write(chats.join("session-c.jsonl"), with_prompt("Other")).unwrap();
        let (r, note) = candidates::load::<Record>(home.path(), None, &e).unwrap();
        assert!(
            r.path.ends_with("session-a.jsonl"),
            "the one of this prompt"
        );
        assert!(
            note.unwrap()
                .contains("`session-a.jsonl`, `session-c.jsonl`")
        );
        std::fs::write(chats.join("session-d.jsonl"), with_prompt("Review\n")).unwrap();
        let err = candidates::load::<Record>(home.path(), None, &e).unwrap_err();
        assert!(
            err.contains("2 session records have this checkout's prompt (`session-a.jsonl`, `session-d.jsonl`)"),
            "{err}"
        );
    }

    #[test]
    fn an_agent_that_writes_its_instructions_is_named() {
        let ours = vec![Block {
            path: "GEMINI.md".into(),
            text: "Rules".into(),
        }];
        let body = chain::render(&ours).unwrap();
        let sha = sha256_hex(body.as_bytes());
        let mut r = record(&body.replace("from: ", "from: /w/r/"), "Review", "{}");
        r.tool_calls = vec![
            record::ToolCall {
                name: "write_file".into(),
                args: json!({"file_path": "/w/r/docs/GEMINI.md"}),
                result: String::new(),
            },
            record::ToolCall {
                name: "run_shell_command".into(),
                args: json!({"command": "echo ok > p.md"}),
                result: String::new(),
            },
            record::ToolCall {
                name: "read_file".into(),
                args: json!({"file_path": "/w/r/p.md"}),
                result: "x\n\n--- Newly Discovered Project Context ---\n--- Context from: /w/r/src/GEMINI.md ---\nJIT\n--- End of Context from: /w/r/src/GEMINI.md ---\n--- End Project Context ---".into(),
            },
        ];
        let inputs = vec!["p.md".to_string()];
        let mut e = expected(Some(&sha));
        e.inputs = &inputs;
        let c = check(&r, None, &ours, Path::new("/nowhere"), &e);
        let all = c.problems.join("\n");
        assert!(
            all.contains("changed `docs/GEMINI.md` during its run"),
            "{all}"
        );
        assert!(all.contains("can write `p.md`"), "{all}");
        assert_eq!(c.problems.len(), 2, "{all}");
        assert!(
            c.unverified
                .iter()
                .any(|(w, why)| w == "the instruction files loaded just in time"
                    && why.contains("`src/GEMINI.md`"))
        );
    }

    #[test]
    fn an_imported_file_that_changed_or_went_is_named_not_its_importer() {
        let block = |text: &str| Block {
            path: "src/GEMINI.md".into(),
            text: text.into(),
        };
        let imported = |rel: &str, inner: &str| {
            format!("<!-- Imported from: {rel} -->\n{inner}\n<!-- End of import from: {rel} -->")
        };
        let nested = |leaf: &str| {
            imported(
                "../docs/rules.md",
                &format!("Rules {}", imported("deep.md", leaf)),
            )
        };
        let sent = vec![block(&format!(
            "Own text\n{}\n{}",
            nested("old"),
            imported("x.md", "X")
        ))];
        let body = chain::render(&sent).unwrap();
        let check_with = |ours: Vec<Block>| {
            let r = record(
                &body.replace("from: src/", "from: /w/r/src/"),
                "Review",
                "{}",
            );
            let sha = sha256_hex(chain::render(&ours).unwrap().as_bytes());
            let c = check(
                &r,
                None,
                &ours,
                Path::new("/nowhere"),
                &expected(Some(&sha)),
            );
            c.problems
        };
        // A file two imports down changed: it is named, with its importer.
        let problems = check_with(vec![block(&format!(
            "Own text\n{}\n{}",
            nested("new"),
            imported("x.md", "X")
        ))]);
        assert!(
            problems[0].starts_with(
                "`docs/deep.md` (imported by `docs/rules.md`) as the agent received it (sha256 "
            ),
            "{problems:#?}"
        );
        assert_eq!(problems.len(), 2, "{problems:#?}");
        assert!(problems[1].starts_with("the GEMINI.md instructions the agent received"));
        // Gone from the checkout.
        let gone = "<!-- Import failed: ../docs/rules.md - ENOENT: no such file or directory, access 'docs/rules.md' -->";
        let problems = check_with(vec![block(&format!(
            "Own text\n{gone}\n{}",
            imported("x.md", "X")
        ))]);
        assert!(
            problems[0].starts_with(
                "the agent received `docs/rules.md` (imported by `src/GEMINI.md`, sha256 "
            ),
            "{problems:#?}"
        );
        assert!(problems[0].contains("which the checkout does not have"));
        // From a file at the root.
        let root_block = |inner: &str| Block {
            path: "GEMINI.md".into(),
            text: format!("Own\n{}", imported("./docs/r.md", inner)),
        };
        let r = record(
            &chain::render(&[root_block("old")])
                .unwrap()
                .replace("from: GEMINI", "from: /w/r/GEMINI"),
            "Review",
            "{}",
        );
        let ours = vec![root_block("new")];
        let sha = sha256_hex(chain::render(&ours).unwrap().as_bytes());
        let problems = check(
            &r,
            None,
            &ours,
            Path::new("/nowhere"),
            &expected(Some(&sha)),
        )
        .problems;
        assert!(
            problems[0]
                .starts_with("`docs/r.md` (imported by `GEMINI.md`) as the agent received it"),
            "{problems:#?}"
        );
        // The importing file's own text changed: it is the one named.
        let problems = check_with(vec![block(&format!(
            "Other text\n{}\n{}",
            nested("new"),
            imported("x.md", "X")
        ))]);
        assert!(
            problems[0].starts_with("`src/GEMINI.md` as the agent received it"),
            "{problems:#?}"
        );
    }

    #[test]
    fn a_spelled_path_to_an_input_is_the_input() {
        let ours = vec![Block {
            path: "GEMINI.md".into(),
            text: "Rules".into(),
        }];
        let body = chain::render(&ours).unwrap();
        let sha = sha256_hex(body.as_bytes());
        let mut r = record(&body.replace("from: ", "from: /w/r/"), "Review", "{}");
        let write = |path: &str| record::ToolCall {
            name: "write_file".into(),
            args: json!({"file_path": path}),
            result: String::new(),
        };
        r.tool_calls = vec![
            write("/w/r/./p.md"),
            write("/w/r/docs/../p.md"),
            write("/w/r//p.md"),
            write("./docs/../GEMINI.md"),
            write("/w/r/docs/../../GEMINI.md"),
            write("/w/r/docs/../x.md"),
            record::ToolCall {
                name: "run_shell_command".into(),
                args: json!({"command": "echo ok > docs/.././p.md"}),
                result: String::new(),
            },
        ];
        let inputs = vec!["p.md".to_string()];
        let mut e = expected(Some(&sha));
        e.inputs = &inputs;
        let c = check(&r, None, &ours, Path::new("/nowhere"), &e);
        let all = c.problems.join("\n");
        assert_eq!(c.problems.len(), 6, "{all}");
        for p in &c.problems[..3] {
            assert!(p.contains("changed `p.md` during its run"), "{all}");
        }
        assert!(c.problems[3].contains("changed `GEMINI.md`"), "{all}");
        assert!(c.problems[4].contains("changed `/w/GEMINI.md`"), "{all}");
        assert!(c.problems[5].contains("can write `p.md`"), "{all}");
    }

    #[test]
    fn agreement_passes_and_each_file_that_differs_is_named() {
        let ours = vec![Block {
            path: "GEMINI.md".into(),
            text: "Rules".into(),
        }];
        let body = chain::render(&ours).unwrap();
        let sha = sha256_hex(body.as_bytes());
        let sent = body.replace("Context from: ", "Context from: /w/r/");
        let r = record(&sent, "Review", "{}");
        let c = check(
            &r,
            None,
            &ours,
            Path::new("/nowhere"),
            &expected(Some(&sha)),
        );
        assert!(c.problems.is_empty(), "{:?}", c.problems);
        assert!(
            c.notes.iter().any(|n| n.contains("line breaks")),
            "{:?}",
            c.notes
        );
        // No Gemini CLI record names its version: a limit of every run.
        assert!(c.limits.iter().any(|(w, _)| w == "the CLI version"));
        assert!(!c.unverified.iter().any(|(w, _)| w == "the CLI version"));

        let extra = format!(
            "{sent}\n\n--- Context from: /w/r/sub/GEMINI.md ---\nMore\n--- End of Context from: /w/r/sub/GEMINI.md ---"
        );
        let r = record(&extra.replace("Rules", "Old rules"), "Review", "{\"x\":1}");
        let mut e = expected(Some(&sha));
        e.max_total_tokens = Some(10);
        let c = check(&r, None, &ours, Path::new("/nowhere"), &e);
        let all = c.problems.join("\n");
        for needle in [
            "`GEMINI.md` as the agent received it",
            "`sub/GEMINI.md` (sha256",
            "which the checkout does not have",
            "not the agent's last answer",
            "1000 tokens",
        ] {
            assert!(all.contains(needle), "{needle}: {all}");
        }
    }
}
