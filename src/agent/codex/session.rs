//! Codex's own record of the run (the rollout), read as a stream.
//!
//! `$CODEX_HOME/sessions/YYYY/MM/DD/rollout-<time>-<id>.jsonl` holds one JSON
//! object a line: the session's metadata, the messages exactly as sent, the
//! turn's settings, token counts, and the last agent message. Rollouts of long
//! sessions reach hundreds of megabytes (tool outputs), so lines are read with
//! a bounded buffer, hashed as they pass, and only the few kinds we need are
//! parsed; the rest are recognised from their first bytes and skipped.

use std::fs;
use std::io::{self, BufRead, BufReader, Read};
use std::path::{Path, PathBuf};

use serde_json::Value;
use sha2::{Digest, Sha256};

use crate::agent::turns::{Item, ItemKind, Turn};

pub(crate) use crate::agent::Tokens;
use crate::error::Error;
use crate::limits;

/// The newest Codex CLI whose record format this was checked against (the
/// tests run every release from 0.165.0 to it).
pub(crate) const KNOWN_CLI: (u64, u64) = (0, 171);
/// The oldest, with [`KNOWN_CLI`]: the range the README states.
pub(crate) const OLDEST_CLI: &str = "0.165.0";

/// What the record says about the run.
#[derive(Clone, Debug, Default)]
pub struct Session {
    pub(crate) path: PathBuf,
    pub sha256: String,
    pub bytes: u64,
    pub(crate) id: Option<String>,
    pub(crate) cwd: Option<String>,
    pub(crate) cli_version: Option<String>,
    pub(crate) originator: Option<String>,
    pub(crate) model: Option<String>,
    pub(crate) approval_policy: Option<String>,
    pub(crate) sandbox: Option<String>,
    /// The user prompt exactly as sent.
    pub(crate) prompt: Option<String>,
    /// The AGENTS.md block as sent (`# AGENTS.md instructions for ...`).
    pub(crate) agents_block: Option<String>,
    /// 0.169's `world_state.agents_md.text`: the body alone.
    pub(crate) agents_text: Option<String>,
    pub(crate) tokens: Option<Tokens>,
    pub(crate) duration_ms: Option<u64>,
    pub(crate) last_agent_message: Option<String>,
    /// SHA-256 of `session_meta.base_instructions.text`: the model's base
    /// instructions as Codex recorded them (it adjusts them per model before
    /// sending, so this is not the hash of the bytes sent).
    pub(crate) base_instructions_sha: Option<String>,
    /// Every message Codex sent after its base instructions and before the
    /// prompt (developer instructions, skills, permissions, the AGENTS.md block,
    /// the environment), each as `{"role", "content": [{"type", "text"}]}`.
    pub(crate) context: Vec<Value>,
    /// The developer message's parts, in order.
    pub(crate) developer: Vec<String>,
    /// The `<environment_context>` block.
    pub(crate) environment: Option<String>,
    /// The `<skills_instructions>` block: the skills Codex listed.
    pub(crate) skills_block: Option<String>,
    /// `turn_context.effort` and `permission_profile` (as compact JSON, or its name).
    pub(crate) effort: Option<String>,
    pub(crate) permission_profile: Option<String>,
    /// `session_meta.git`: the commit and branch the agent ran on.
    pub(crate) git_commit: Option<String>,
    pub(crate) git_branch: Option<String>,
    /// Files the agent's patches changed, as Codex recorded them.
    pub(crate) file_changes: Vec<FileChange>,
    /// Commands the agent ran (at most [`limits::RECORD_COMMANDS`] kept).
    pub(crate) commands: Vec<Command>,
    /// Every turn, in order: the first is the one whose prompt is `prompt`;
    /// each holds the model-visible items no receipt input covers (hooks,
    /// compaction summaries, messages after the prompt).
    pub(crate) turns: Vec<Turn>,
    /// The turn whose answer is `last_agent_message` (an index into `turns`).
    pub(crate) output_turn: Option<usize>,
    /// Where the reader is in the timeline.
    pub(crate) reading: Reading,
    /// Odd things met on the way, said once each.
    pub(crate) warnings: Vec<String>,
    /// The agent job's filter cut the record down before uploading it.
    pub(crate) redaction: Option<crate::agent::redaction::Redaction>,
}

/// Messages as [`messages_sha`] hashes them, `[m1,m2,…]`, hashed as each
/// comes: the hash before each prompt costs the new messages only (hashing
/// the whole history again at every prompt made a record of many prompts
/// after a long answer quadratic), and no message is kept.
#[derive(Clone, Debug, Default)]
struct History {
    hasher: sha2::Sha256,
    len: usize,
}

impl History {
    /// Adds a message as [`canonical_message`] gives it, written straight
    /// into the hash.
    fn push(&mut self, message: &Value) {
        use std::io::Write;
        let mut out = crate::digest::HashWriter(std::mem::take(&mut self.hasher));
        let _ = out.write_all(if self.len == 0 { b"[" } else { b"," });
        let _ = out.write_all(b"{\"content\":");
        let blocks = message["content"].as_array().map_or(&[][..], Vec::as_slice);
        crate::digest::write_canonical_blocks(&mut out, blocks);
        let _ = out.write_all(b",\"role\":");
        let _ = serde_json::to_writer(&mut out, &message["role"]);
        let _ = out.write_all(b"}");
        self.hasher = out.0;
        self.len += 1;
    }

    /// The SHA-256 of the messages so far, as [`messages_sha`] gives it.
    fn sha(&self) -> String {
        use sha2::Digest;
        if self.len == 0 {
            return crate::digest::sha256_hex(b"[]");
        }
        let mut hasher = self.hasher.clone();
        hasher.update(b"]");
        hex::encode(hasher.finalize())
    }
}

/// The reader's place in the timeline.
#[derive(Clone, Debug, Default)]
pub(crate) struct Reading {
    /// What the model's next request holds, canonically: the messages so far
    /// (a compaction replaces them), without the base instructions, kept as
    /// their hash grows (each message serialized once, none held).
    history: History,
    /// The turn being read (`turn_context.turn_id`).
    turn_id: Option<String>,
    /// A `task_started` after a prompt: the next `turn_context` or prompt opens a turn.
    next_turn: bool,
}

impl Session {
    /// The turn being read, the first made when there is none.
    fn turn(&mut self) -> &mut Turn {
        if self.turns.is_empty() {
            self.turns.push(Turn::default());
        }
        self.turns.last_mut().expect("one at least")
    }

    /// A new turn, of the last turn's model until its own `turn_context` says.
    fn open_turn(&mut self) {
        let model = self.turns.last().and_then(|t| t.model.clone());
        self.turns.push(Turn {
            model,
            ..Turn::default()
        });
        self.reading.next_turn = false;
    }

    fn has_prompt(&self) -> bool {
        self.turns.last().is_some_and(|t| t.prompt_sha.is_some())
    }
}

/// The kinds Codex labels a message's parts with
/// (`internal_chat_message_metadata_passthrough.content_item_kinds`).
fn item_kinds(p: &Value) -> Vec<&str> {
    p.pointer("/internal_chat_message_metadata_passthrough/content_item_kinds")
        .and_then(Value::as_array)
        .map(|k| k.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default()
}

/// A message a hook added: so labelled, or its provenance says so.
fn is_hook(p: &Value) -> bool {
    item_kinds(p).contains(&"hooks.additional_context")
        || p.pointer("/internal_chat_message_metadata_passthrough/content_item_metadata")
            .and_then(Value::as_array)
            .is_some_and(|m| m.iter().any(|i| i["provenance"]["hook"] == true))
}

/// The hook's event, when the record names it (Codex 0.171 does not).
fn hook_event(p: &Value) -> Option<String> {
    let meta = p.pointer(
        "/internal_chat_message_metadata_passthrough/content_item_metadata/0/provenance",
    )?;
    ["event", "hook_event_name", "hookEventName"]
        .iter()
        .find_map(|k| meta[*k].as_str())
        .map(str::to_string)
}

/// The model's base instructions as a message (a resumed session with
/// another model records them so): not part of the context hashed.
fn is_base_instructions(p: &Value) -> bool {
    item_kinds(p).contains(&"model.base_instructions")
}

/// A file a patch of the agent's touched (`item_completed`, `FileChange`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct FileChange {
    /// As recorded: absolute on the agent's machine, or relative to its cwd.
    pub(crate) path: String,
    /// `add`, `delete`, `update`; a move names its destination in `moved_to`.
    pub(crate) kind: String,
    pub(crate) moved_to: Option<String>,
    /// `completed`, `failed`, `declined`...
    pub(crate) status: String,
}

/// A command the agent ran (`item_completed`, `CommandExecution`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Command {
    /// The command as the shell got it (the last argument of `bash -lc`).
    pub(crate) text: String,
    /// Codex's reading of it: `read`, `list_files`, `search` or `unknown`, per part.
    pub(crate) parsed: Vec<String>,
    pub(crate) status: String,
}

/// Hashes every byte read through it.
struct Hashing<R> {
    inner: R,
    hasher: Sha256,
    bytes: u64,
}

impl<R: Read> Read for Hashing<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let n = self.inner.read(buf)?;
        self.hasher.update(&buf[..n]);
        self.bytes += n as u64;
        Ok(n)
    }
}

/// Reads one line into `line` (without the newline), keeping at most `max`
/// bytes; returns whether there was a line and whether it was cut.
fn read_line<R: BufRead + ?Sized>(
    reader: &mut R,
    line: &mut Vec<u8>,
    max: usize,
) -> io::Result<Option<(bool, bool)>> {
    line.clear();
    let (mut any, mut cut, mut ended) = (false, false, false);
    loop {
        let buf = reader.fill_buf()?;
        if buf.is_empty() {
            break;
        }
        // Blank lines between records go in bulk: a stream of newlines is
        // the cheapest bomb, and each would otherwise be a line to read.
        if line.is_empty() {
            let blank = buf.iter().take_while(|b| b.is_ascii_whitespace()).count();
            if blank > 0 {
                reader.consume(blank);
                continue;
            }
        }
        any = true;
        let (chunk, done) = match memchr::memchr(b'\n', buf) {
            Some(i) => (&buf[..i], Some(i + 1)),
            None => (buf, None),
        };
        let room = max.saturating_sub(line.len());
        if chunk.len() > room {
            cut = true;
        }
        line.extend_from_slice(&chunk[..chunk.len().min(room)]);
        let used = done.unwrap_or(buf.len());
        reader.consume(used);
        if done.is_some() {
            ended = true;
            break;
        }
    }
    Ok(any.then_some((cut, ended)))
}

/// The line's `type` and its payload's `type`, from the first bytes when the
/// line has the usual layout; `None` when it does not (then it is parsed).
fn classify(line: &[u8]) -> Option<(&str, Option<&str>, &str)> {
    let head = &line[..line.len().min(512)];
    let text = std::str::from_utf8(head).ok().or_else(|| {
        let valid = std::str::from_utf8(head).err()?.valid_up_to();
        std::str::from_utf8(&head[..valid]).ok()
    })?;
    let key = "\"type\":\"";
    let at = text.find(key)? + key.len();
    let kind = &text[at..at + text[at..].find('"')?];
    let after = &text[at + kind.len()..];
    let payload = after
        .strip_prefix("\",\"payload\":{\"type\":\"")
        .and_then(|p| p.find('"').map(|e| &p[..e]));
    Some((kind, payload, text))
}

/// The completed items whose details matter: files the agent changed and
/// commands it ran (their output, often large, comes along).
const ITEMS_READ: [&str; 2] = [
    "\"item\":{\"type\":\"FileChange\"",
    "\"item\":{\"type\":\"CommandExecution\"",
];

fn wanted(kind: &str, payload: Option<&str>, head: &str) -> bool {
    match kind {
        "session_meta"
        | "turn_context"
        | "world_state"
        | "compacted"
        | crate::agent::redaction::MARKER => true,
        "response_item" => payload == Some("message"),
        "event_msg" => match payload {
            Some("token_count" | "task_complete" | "task_started") => true,
            Some("item_completed") => ITEMS_READ.iter().any(|i| head.contains(i)),
            _ => false,
        },
        _ => false,
    }
}

/// Reads a rollout: bounded memory whatever its size.
pub(crate) fn read(path: &Path) -> Result<Session, Error> {
    let shown = path.display().to_string();
    let fail = |e: io::Error| Error::io("cannot read the Codex session record", &shown, path, &e);
    let file = crate::workspace::open_regular(path).map_err(|why| fail(why.into_io()))?;
    if !is_compressed(path) {
        return read_stream(file, path);
    }
    // Codex compresses old records: read them through the decoder; the hash
    // is of the file as stored (what was uploaded).
    let decoder = ruzstd::decoding::StreamingDecoder::new(Hashing::new(file)).map(Capped::new).map_err(|e| {
        Error::in_file(
            &shown,
            format!(
                "the Codex session record `{shown}` is not a zstd stream ({}); re-download it, or give the uncompressed .jsonl",
                crate::escape::one_line(&e.to_string())
            ),
        )
    })?;
    let (mut session, decoder) = parse(decoder, path)?;
    let stored = decoder.inner.into_inner();
    session.sha256 = hex::encode(stored.hasher.finalize());
    session.bytes = stored.bytes;
    Ok(session)
}

/// A stream that fails once it has given [`limits::RECORD_BYTES`].
struct Capped<R> {
    inner: R,
    given: u64,
}

impl<R> Capped<R> {
    fn new(inner: R) -> Capped<R> {
        Capped { inner, given: 0 }
    }
}

impl<R: Read> Read for Capped<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let n = self.inner.read(buf)?;
        self.given += n as u64;
        if self.given > limits::RECORD_BYTES {
            return Err(io::Error::other(format!(
                "it holds more than {} MiB (decompressed), more than any review's record; upload only this run's record",
                limits::RECORD_BYTES >> 20
            )));
        }
        Ok(n)
    }
}

/// A record Codex compressed (`rollout-*.jsonl.zst`).
fn is_compressed(path: &Path) -> bool {
    path.extension().is_some_and(|e| e == "zst")
}

impl<R> Hashing<R> {
    fn new(inner: R) -> Hashing<R> {
        Hashing {
            inner,
            hasher: Sha256::new(),
            bytes: 0,
        }
    }
}

/// Reads a rollout from any stream; `path` names it in the result and errors.
pub fn read_stream(stream: impl Read, path: &Path) -> Result<Session, Error> {
    let (mut session, hashing) = parse(Hashing::new(Capped::new(stream)), path)?;
    session.sha256 = hex::encode(hashing.hasher.finalize());
    session.bytes = hashing.bytes;
    Ok(session)
}

/// The lines of a record, bounded in memory; gives the stream back.
fn parse<R: Read>(stream: R, path: &Path) -> Result<(Session, R), Error> {
    let shown = path.display().to_string();
    let mut reader = BufReader::with_capacity(1 << 20, stream);
    let mut session = Session {
        path: path.to_path_buf(),
        ..Session::default()
    };
    let mut line = Vec::new();
    let mut count = LineCount::default();
    let fail = |e: io::Error| Error::io("cannot read the Codex session record", &shown, path, &e);
    while let Some((cut, ended)) =
        read_line(&mut reader, &mut line, limits::RECORD_LINE_BYTES).map_err(fail)?
    {
        count.number += 1;
        if line.iter().all(u8::is_ascii_whitespace) {
            continue;
        }
        if cut {
            count.skipped_long += 1;
            continue;
        }
        if surely_unwanted(&line, ended, &mut count.unknown) {
            continue;
        }
        match serde_json::from_slice::<Value>(&line) {
            Ok(v) => absorb(&mut session, &v, &mut count.unknown),
            Err(_) if !ended => count.cut_last = true,
            Err(_) => count.unparsable += 1,
        }
    }
    finish_session(&mut session, &count);
    Ok((session, reader.into_inner()))
}

/// What reading a record's lines counted, for the warnings.
#[derive(Default)]
struct LineCount {
    number: usize,
    skipped_long: usize,
    unparsable: usize,
    /// Lines of kinds this version does not read.
    unknown: usize,
    /// The last line is cut off.
    cut_last: bool,
}

/// A line the fast look is sure the receipt does not read (counted in
/// `unknown` when of a kind this version does not know).
fn surely_unwanted(line: &[u8], ended: bool, unknown: &mut usize) -> bool {
    // A line without its newline may be cut off: parse it to find out.
    // Skipped unparsed only when the fast look is sure of the line's kind:
    // a line laid out otherwise (keys in another order) is parsed in full,
    // so no layout hides a message from the receipt.
    let sure = |kind: &str, payload: Option<&str>| match kind {
        "response_item" | "event_msg" => payload.is_some(),
        "token_usage_record" | "compacted" => true,
        _ => false,
    };
    let Some((kind, payload, head)) = classify(line)
        .filter(|_| ended)
        .filter(|(k, p, _)| sure(k, *p))
    else {
        return false;
    };
    if wanted(kind, payload, head) {
        return false;
    }
    if !matches!(
        kind,
        "response_item" | "event_msg" | "token_usage_record" | "compacted"
    ) {
        *unknown += 1;
    }
    true
}

/// The session once every line is read: the output turn's model, and a
/// warning for each kind of line not read and for a version newer than known.
fn finish_session(session: &mut Session, count: &LineCount) {
    // The model is the one whose answer is the output.
    if let Some(model) = session
        .output_turn
        .or(session.turns.len().checked_sub(1))
        .and_then(|i| session.turns[i].model.clone())
    {
        session.model = Some(model);
    }
    if count.cut_last {
        session.warnings.push("the record's last line is cut off (Codex may not have finished writing it); it was ignored".into());
    }
    if count.unparsable > 0 {
        session.warnings.push(format!(
            "{} line(s) of the record are not JSON; they were ignored",
            count.unparsable
        ));
    }
    if count.skipped_long > 0 {
        session.warnings.push(format!(
            "{} line(s) over {} MiB were skipped unread",
            count.skipped_long,
            limits::RECORD_LINE_BYTES >> 20
        ));
    }
    if count.unknown > 0 {
        tracing::debug!(
            "{} record lines of kinds this version does not read were ignored",
            count.unknown
        );
    }
    if let Some(v) = session.cli_version.as_deref().and_then(parse_version) {
        if v > KNOWN_CLI {
            session.warnings.push(format!(
                "the record was written by Codex {}, newer than {}.{}.0, the newest version this action was tested with ({OLDEST_CLI} to {}.{}.0); fields it does not know are ignored, and what it cannot find is reported missing",
                session.cli_version.as_deref().unwrap_or("?"),
                KNOWN_CLI.0,
                KNOWN_CLI.1,
                KNOWN_CLI.0,
                KNOWN_CLI.1
            ));
        }
    }
    if count.number > 0 && session.cli_version.is_none() && session.cwd.is_none() {
        session.warnings.push(
            "the record has no session_meta line: no CLI version, working directory or commit to check".into(),
        );
    }
    if count.number == 0 {
        session.warnings.push("the record is empty".into());
    }
}

fn parse_version(v: &str) -> Option<(u64, u64)> {
    let mut parts = v.split(['.', '-']);
    Some((parts.next()?.parse().ok()?, parts.next()?.parse().ok()?))
}

fn text_at(v: &Value, pointer: &str) -> Option<String> {
    v.pointer(pointer)
        .and_then(Value::as_str)
        .map(str::to_string)
}

/// Takes what matters from one parsed line; anything unknown is ignored.
fn absorb(s: &mut Session, v: &Value, unknown: &mut usize) {
    let p = &v["payload"];
    match v["type"].as_str().unwrap_or("") {
        "session_meta" => absorb_meta(s, p),
        "turn_context" => absorb_turn_context(s, p),
        "world_state" => {
            if let Some(t) = text_at(p, "/state/agents_md/text") {
                s.agents_text = Some(t);
            }
            if s.model.is_none() {
                s.model = text_at(p, "/state/model");
            }
        }
        "response_item" if p["type"] == "message" => absorb_response_message(s, p),
        "compacted" => absorb_compacted(s, p),
        "event_msg" => absorb_event(s, p),
        crate::agent::redaction::MARKER => {
            s.redaction = Some(crate::agent::redaction::Redaction::from_payload(p))
        }
        _ => *unknown += 1,
    }
}

/// The session's facts: its id, folder, CLI version, commit, base instructions.
fn absorb_meta(s: &mut Session, p: &Value) {
    s.id = text_at(p, "/id").or_else(|| text_at(p, "/session_id"));
    s.cwd = text_at(p, "/cwd");
    s.cli_version = text_at(p, "/cli_version");
    s.originator = text_at(p, "/originator");
    s.git_commit = text_at(p, "/git/commit_hash");
    s.git_branch = text_at(p, "/git/branch");
    s.base_instructions_sha = p
        .pointer("/base_instructions/text")
        .and_then(Value::as_str)
        .map(|t| crate::digest::sha256_hex(t.as_bytes()));
}

/// A turn's context: maybe a new turn, and its model and policies.
fn absorb_turn_context(s: &mut Session, p: &Value) {
    // A new turn: after a `task_started`, or another turn's id (a
    // compaction within a turn records its context again, same id).
    let id = text_at(p, "/turn_id");
    let other = id.is_some() && s.reading.turn_id.is_some() && id != s.reading.turn_id;
    if s.has_prompt() && (s.reading.next_turn || other) {
        s.open_turn();
    }
    if id.is_some() {
        s.reading.turn_id = id;
    }
    if let Some(model) = text_at(p, "/model") {
        s.turn().model = Some(model);
    }
    s.model = text_at(p, "/model").or(s.model.take());
    s.approval_policy = text_at(p, "/approval_policy").or(s.approval_policy.take());
    s.sandbox = text_at(p, "/sandbox_policy/type")
        .or_else(|| text_at(p, "/sandbox_policy/mode"))
        .or_else(|| text_at(p, "/sandbox_policy"))
        .or(s.sandbox.take());
    s.effort = text_at(p, "/effort").or(s.effort.take());
    s.permission_profile = match &p["permission_profile"] {
        Value::String(name) => Some(name.clone()),
        Value::Null => s.permission_profile.take(),
        other => Some(other.to_string()),
    };
}

/// A message the model got or wrote: before the prompt, the context the
/// checkout predicts; then the prompt, the instruction block, the answer.
fn absorb_response_message(s: &mut Session, p: &Value) {
    let texts: Vec<&str> = p["content"]
        .as_array()
        .map(|c| c.iter().filter_map(|i| i["text"].as_str()).collect())
        .unwrap_or_default();
    let before_prompt = s.prompt.is_none();
    let is_context = match p["role"].as_str() {
        Some("developer") => true,
        Some("user") => texts.iter().all(|t| {
            t.starts_with(super::chain::BLOCK_HEADING) || t.starts_with("<environment_context>")
        }),
        _ => false,
    };
    if before_prompt && is_context {
        absorb_context(s, p, &texts);
    }
    absorb_message(s, p, &texts, is_context);
    match p["role"].as_str() {
        Some("user") => {
            if let Some(block) = texts
                .iter()
                .find(|t| t.starts_with(super::chain::BLOCK_HEADING))
            {
                s.agents_block = Some(block.to_string());
            } else if !texts.iter().all(|t| t.starts_with("<environment_context>"))
                && s.prompt.is_none()
            {
                s.prompt = Some(texts.concat());
            }
        }
        Some("assistant") => {
            s.last_agent_message = Some(texts.concat());
            s.output_turn = s.turns.len().checked_sub(1);
        }
        _ => {}
    }
}

/// A message of the context before the prompt: kept as sent, with the
/// environment, the skills and the developer instructions it holds.
fn absorb_context(s: &mut Session, p: &Value, texts: &[&str]) {
    s.context.push(canonical_message(p));
    for t in texts {
        if t.starts_with("<environment_context>") {
            s.environment = Some(t.to_string());
        }
        if t.starts_with("<skills_instructions>") {
            s.skills_block = Some(t.to_string());
        }
    }
    // A hook's text is the hook's, never developer instructions.
    if p["role"] == "developer" && !is_hook(p) {
        s.developer.extend(texts.iter().map(|t| t.to_string()));
    }
}

/// A compaction: its summary is an item of the turn, and the history it
/// leaves is what the model has from now on.
fn absorb_compacted(s: &mut Session, p: &Value) {
    // Compacting before the next turn's context: that turn's.
    if s.reading.next_turn && s.has_prompt() {
        s.open_turn();
    }
    let text = text_at(p, "/message");
    s.turn().items.push(Item {
        kind: ItemKind::CompactionSummary,
        sha256: text
            .as_deref()
            .map(|t| crate::digest::sha256_hex(t.as_bytes())),
        bytes: text.as_deref().map_or(0, str::len),
    });
    if let Some(history) = p["replacement_history"].as_array() {
        s.reading.history = History::default();
        for m in history
            .iter()
            .filter(|m| m["type"] == "message" && !is_base_instructions(m))
        {
            s.reading.history.push(m);
        }
    }
}

/// An event: the tokens so far, a completed item, a task's start and end.
fn absorb_event(s: &mut Session, p: &Value) {
    match p["type"].as_str() {
        Some("token_count") => {
            let u = &p["info"]["total_token_usage"];
            if u.is_object() {
                let n = |k: &str| u[k].as_u64().unwrap_or(0);
                s.tokens = Some(Tokens {
                    input: n("input_tokens"),
                    cached_input: n("cached_input_tokens"),
                    cache_write_input: n("cache_write_input_tokens"),
                    output: n("output_tokens"),
                    reasoning: n("reasoning_output_tokens"),
                    total: n("total_tokens"),
                });
            }
        }
        Some("item_completed") => absorb_item(s, &p["item"]),
        Some("task_started") if s.has_prompt() => s.reading.next_turn = true,
        Some("task_complete") => {
            if let Some(m) = text_at(p, "/last_agent_message") {
                s.last_agent_message = Some(m);
                s.output_turn = s.turns.len().checked_sub(1);
            }
            s.duration_ms = p["duration_ms"].as_u64();
        }
        _ => {}
    }
}

/// A message on the timeline: a turn's prompt (a new turn when the last has
/// one), or an item of the turn (hooks, summaries, later messages; before the
/// first prompt only hooks: the rest is the context the checkout predicts).
fn absorb_message(s: &mut Session, p: &Value, texts: &[&str], is_context: bool) {
    if is_base_instructions(p) {
        return;
    }
    let role = p["role"].as_str().unwrap_or("");
    let hook = is_hook(p);
    let summary = item_kinds(p).contains(&"compaction.summary");
    let text = texts.concat();
    let sha256 = crate::digest::sha256_hex(text.as_bytes());
    if role == "user" && !is_context && !hook && !summary {
        if s.has_prompt() || s.reading.next_turn {
            s.open_turn();
        }
        let context = s.reading.history.sha();
        let turn = s.turn();
        turn.prompt_sha = Some(sha256);
        turn.context_sha = Some(context);
    } else if matches!(role, "user" | "developer" | "system") {
        let in_context = s.turns.len() <= 1 && !s.has_prompt();
        if hook || summary || !in_context {
            let kind = if hook {
                ItemKind::Hook {
                    event: hook_event(p),
                    before_prompt: !s.has_prompt(),
                }
            } else if summary {
                ItemKind::CompactionSummary
            } else {
                match role {
                    "user" => ItemKind::User,
                    "developer" => ItemKind::Developer,
                    _ => ItemKind::System,
                }
            };
            let bytes = text.len();
            s.turn().items.push(Item {
                kind,
                sha256: Some(sha256),
                bytes,
            });
        }
    }
    if matches!(role, "user" | "developer" | "system" | "assistant") {
        s.reading.history.push(p);
    }
}

/// A message as the model received it, without the record's own fields (ids,
/// metadata): `{"content": [{"text", "type"}], "role"}`. Serialized with
/// sorted keys and no spaces, the same message read from the request Codex
/// sent gives the same bytes.
pub(crate) fn canonical_message(m: &Value) -> Value {
    let content: Vec<Value> = m["content"]
        .as_array()
        .map(|items| {
            items
                .iter()
                .map(|c| serde_json::json!({"text": c["text"], "type": c["type"]}))
                .collect()
        })
        .unwrap_or_default();
    serde_json::json!({"content": content, "role": m["role"]})
}

/// SHA-256 of messages serialized canonically: a JSON array, object keys
/// sorted (serde_json's map is ordered), no whitespace, UTF-8 as it is.
pub(crate) fn messages_sha(messages: &[Value]) -> String {
    crate::digest::sha256_hex(
        serde_json::to_string(messages)
            .unwrap_or_default()
            .as_bytes(),
    )
}

/// A completed item: a file change or a command.
fn absorb_item(s: &mut Session, item: &Value) {
    let status = text_at(item, "/status").unwrap_or_default();
    match item["type"].as_str() {
        Some("FileChange") => {
            if let Some(changes) = item["changes"].as_object() {
                for (path, change) in changes {
                    s.file_changes.push(FileChange {
                        path: path.clone(),
                        kind: text_at(change, "/type").unwrap_or_default(),
                        moved_to: text_at(change, "/move_path"),
                        status: status.clone(),
                    });
                }
            }
        }
        Some("CommandExecution") if s.commands.len() < limits::RECORD_COMMANDS => {
            let text = match &item["command"] {
                Value::Array(parts) => parts.last().and_then(Value::as_str).map(str::to_string),
                Value::String(t) => Some(t.clone()),
                _ => None,
            };
            let parsed = item["parsed_cmd"]
                .as_array()
                .map(|a| a.iter().filter_map(|p| text_at(p, "/type")).collect())
                .unwrap_or_default();
            if let Some(text) = text {
                s.commands.push(Command {
                    text,
                    parsed,
                    status,
                });
            }
        }
        _ => {}
    }
}

/// A rollout file and the first facts of its `session_meta` line.
#[derive(Clone, Debug)]
pub(crate) struct Candidate {
    pub(crate) path: PathBuf,
    pub(crate) id: Option<String>,
    pub(crate) cwd: Option<String>,
}

/// Every rollout under `$CODEX_HOME/sessions`, oldest first (names sort by
/// time); more than [`limits::ROLLOUTS`] (or folders of more than
/// [`limits::FOLDER_ENTRIES`] entries) is an error that says so, before any
/// is opened.
pub(crate) fn rollouts(codex_home: &Path) -> Result<Vec<Candidate>, String> {
    let mut files = Vec::new();
    let mut walked = 0usize;
    // Codex moves old records to archived_sessions/, and may compress them.
    let mut stack = vec![
        codex_home.join("sessions"),
        codex_home.join("archived_sessions"),
    ];
    while let Some(dir) = stack.pop() {
        let Ok(entries) = fs::read_dir(&dir) else {
            continue;
        };
        for e in entries.flatten() {
            walked += 1;
            if walked > limits::FOLDER_ENTRIES || files.len() > limits::ROLLOUTS {
                return Err(format!(
                    "codex-home holds more than {} session records (or {} entries under `sessions/`), more than any review's; upload only this run's record",
                    limits::ROLLOUTS,
                    limits::FOLDER_ENTRIES
                ));
            }
            let p = e.path();
            match e.file_type() {
                Ok(t) if t.is_dir() => stack.push(p),
                Ok(t)
                    if t.is_file()
                        && p.file_name().and_then(|n| n.to_str()).is_some_and(|n| {
                            n.starts_with("rollout-")
                                && (n.ends_with(".jsonl") || n.ends_with(".jsonl.zst"))
                        }) =>
                {
                    files.push(p)
                }
                _ => {}
            }
        }
    }
    if files.len() > limits::ROLLOUTS {
        return Err(format!(
            "codex-home holds {} session records, more than the {} looked at; upload only this run's record",
            files.len(),
            limits::ROLLOUTS
        ));
    }
    files.sort_by(|a, b| a.file_name().cmp(&b.file_name()));
    Ok(files.into_iter().map(first_facts).collect())
}

fn first_facts(path: PathBuf) -> Candidate {
    let mut line = Vec::new();
    let first = |reader: &mut dyn BufRead, line: &mut Vec<u8>| {
        read_line(reader, line, limits::FIRST_LINE_BYTES as usize)
            .ok()
            .flatten()
    };
    let meta = crate::workspace::open_regular(&path)
        .ok()
        .and_then(|f| {
            if is_compressed(&path) {
                let decoder = ruzstd::decoding::StreamingDecoder::new(f).ok()?;
                first(
                    &mut BufReader::new(decoder.take(limits::FIRST_LINE_BYTES + 1)),
                    &mut line,
                )
            } else {
                first(
                    &mut BufReader::new(f.take(limits::FIRST_LINE_BYTES + 1)),
                    &mut line,
                )
            }
        })
        .and_then(|_| serde_json::from_slice::<Value>(&line).ok());
    let p = meta
        .as_ref()
        .filter(|m| m["type"] == "session_meta")
        .map(|m| &m["payload"]);
    // Kept short: a session id is a UUID, and a working directory a path;
    // longer ones match nothing this run could have.
    let short = |t: String, max: usize| (t.len() <= max).then_some(t);
    Candidate {
        id: p
            .and_then(|p| text_at(p, "/id").or_else(|| text_at(p, "/session_id")))
            .and_then(|t| short(t, 256)),
        cwd: p
            .and_then(|p| text_at(p, "/cwd"))
            .and_then(|t| short(t, 4096)),
        path,
    }
}

/// The records that may be this run's: the one with `session_id`, else those
/// that ran in `cwd` (never empty: none is an error that says why).
pub(crate) fn matching<'a>(
    candidates: &'a [Candidate],
    session_id: Option<&str>,
    cwd: &Path,
    relative: &str,
) -> Result<Vec<&'a Candidate>, String> {
    if candidates.is_empty() {
        return Err(
            "there is no session record (`sessions/**/rollout-*.jsonl`) in codex-home".into(),
        );
    }
    if let Some(id) = session_id {
        return candidates
            .iter()
            .find(|c| c.id.as_deref() == Some(id))
            .map(|c| vec![c])
            .ok_or_else(|| {
                format!(
                    "no session record has id `{id}` (there are {})",
                    candidates.len()
                )
            });
    }
    let exact: Vec<&Candidate> = candidates
        .iter()
        .filter(|c| c.cwd.as_deref().map(Path::new) == Some(cwd))
        .collect();
    let suffix = |c: &&Candidate| {
        c.cwd.as_deref().is_some_and(|w| {
            relative.is_empty()
                || relative == "."
                || w.trim_end_matches('/').ends_with(&format!("/{relative}"))
        })
    };
    let matching: Vec<&Candidate> = if exact.is_empty() {
        candidates.iter().filter(suffix).collect()
    } else {
        exact
    };
    if matching.is_empty() {
        return Err(format!(
            "none of the {} session records ran in the working directory `{}`; set session-id to the run's session",
            candidates.len(),
            cwd.display()
        ));
    }
    Ok(matching)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn write(dir: &Path, name: &str, lines: &[&str]) -> PathBuf {
        let p = dir.join(name);
        fs::create_dir_all(p.parent().unwrap()).unwrap();
        fs::write(&p, lines.join("\n")).unwrap();
        p
    }

    const META: &str = r#"{"timestamp":"t","ordinal":0,"type":"session_meta","payload":{"id":"s1","cwd":"/w","cli_version":"0.169.0","originator":"codex_exec"}}"#;

    /// The hash kept as the history grows is the hash of the whole history.
    #[test]
    fn the_growing_history_hashes_as_the_whole() {
        let mut history = History::default();
        let mut all = Vec::new();
        // No content at all is no blocks.
        let bare = serde_json::json!({"role": "assistant"});
        history.push(&bare);
        all.push(canonical_message(&bare));
        for i in 0..5 {
            assert_eq!(history.sha(), messages_sha(&all));
            let m = serde_json::json!({"content": [{"text": format!("m{i} \"q\""), "type": "input_text"}, {}, {"type": "image", "id": 3}], "role": "user", "id": "x"});
            history.push(&m);
            all.push(canonical_message(&m));
        }
        assert_eq!(history.sha(), messages_sha(&all));
    }

    #[test]
    fn reads_what_matters_and_hashes_everything() {
        let d = tempfile::tempdir().unwrap();
        let lines = [
            META,
            r##"{"timestamp":"t","ordinal":1,"type":"response_item","payload":{"type":"message","role":"user","content":[{"type":"input_text","text":"# AGENTS.md instructions for /w\n\n<INSTRUCTIONS>\nbody\n</INSTRUCTIONS>"},{"type":"input_text","text":"<environment_context>x</environment_context>"}]}}"##,
            r#"{"timestamp":"t","ordinal":2,"type":"turn_context","payload":{"model":"gpt-5.5","approval_policy":"never","sandbox_policy":{"type":"read-only"}}}"#,
            r#"{"timestamp":"t","ordinal":3,"type":"response_item","payload":{"type":"message","role":"user","content":[{"type":"input_text","text":"Review.\r\n"}]}}"#,
            r#"{"timestamp":"t","ordinal":4,"type":"response_item","payload":{"type":"function_call_output","output":"huge"}}"#,
            r#"{"timestamp":"t","ordinal":5,"type":"brand_new_kind","payload":{}}"#,
            r#"{"timestamp":"t","ordinal":6,"type":"event_msg","payload":{"type":"token_count","info":{"total_token_usage":{"input_tokens":10,"cached_input_tokens":2,"output_tokens":3,"reasoning_output_tokens":1,"total_tokens":13,"new_field":1}}}}"#,
            r#"{"timestamp":"t","ordinal":7,"type":"event_msg","payload":{"type":"task_complete","last_agent_message":"{}","duration_ms":125}}"#,
        ];
        let p = write(d.path(), "r.jsonl", &lines);
        let s = read(&p).unwrap();
        assert_eq!(
            Some(s.sha256),
            crate::digest::sha256_file(&p, u64::MAX).unwrap()
        );
        assert_eq!(
            (
                s.id.as_deref(),
                s.cli_version.as_deref(),
                s.model.as_deref()
            ),
            (Some("s1"), Some("0.169.0"), Some("gpt-5.5"))
        );
        assert_eq!(
            (s.approval_policy.as_deref(), s.sandbox.as_deref()),
            (Some("never"), Some("read-only"))
        );
        assert_eq!(s.prompt.as_deref(), Some("Review.\r\n"));
        assert!(s.agents_block.unwrap().contains("<INSTRUCTIONS>\nbody"));
        assert_eq!(
            s.tokens,
            Some(Tokens {
                input: 10,
                cached_input: 2,
                cache_write_input: 0,
                output: 3,
                reasoning: 1,
                total: 13
            })
        );
        assert_eq!(
            (s.last_agent_message.as_deref(), s.duration_ms),
            (Some("{}"), Some(125))
        );
        assert!(s.warnings.is_empty(), "{:?}", s.warnings);
    }

    #[test]
    fn the_record_reads_as_turns_with_hooks_and_compactions() {
        let d = tempfile::tempdir().unwrap();
        let msg = |role: &str, text: &str, kind: &str| {
            format!(
                r#"{{"type":"response_item","payload":{{"type":"message","role":"{role}","content":[{{"type":"input_text","text":"{text}"}}],"internal_chat_message_metadata_passthrough":{{"content_item_kinds":["{kind}"]}}}}}}"#
            )
        };
        let ctx = |id: &str, model: &str| {
            format!(r#"{{"type":"turn_context","payload":{{"turn_id":"{id}","model":"{model}"}}}}"#)
        };
        let event = |t: &str| format!(r#"{{"type":"event_msg","payload":{{"type":"{t}"}}}}"#);
        let compacted = r#"{"type":"compacted","payload":{"message":"Summary.","replacement_history":[{"type":"message","role":"developer","content":[{"type":"input_text","text":"base"}],"internal_chat_message_metadata_passthrough":{"content_item_kinds":["model.base_instructions"]}},{"type":"message","role":"user","content":[{"type":"input_text","text":"First."}]},{"type":"message","role":"user","content":[{"type":"input_text","text":"Summary."}]}]}}"#;
        let lines = [
            META.to_string(),
            event("task_started"),
            msg(
                "developer",
                "<permissions instructions>x",
                "permissions.instructions",
            ),
            ctx("t1", "gpt-5.5"),
            msg("developer", "Hook before.", "hooks.additional_context"),
            msg("user", "First.", "user.text"),
            msg("developer", "Hook after.", "hooks.additional_context"),
            msg("assistant", "{}", "unknown"),
            // A post-turn compaction: the same turn's context again.
            compacted.to_string(),
            ctx("t1", "gpt-5.5"),
            event("task_complete"),
            event("task_started"),
            compacted.to_string(),
            ctx("t2", "gpt-5.6-terra"),
            msg("user", "Second.", "user.text"),
            msg("assistant", "{}", "unknown"),
            event("task_complete"),
        ];
        let lines: Vec<&str> = lines.iter().map(String::as_str).collect();
        let s = read(&write(d.path(), "r.jsonl", &lines)).unwrap();
        let kinds =
            |t: &Turn| -> Vec<ItemKind> { t.items.iter().map(|i| i.kind.clone()).collect() };
        let hook = |before_prompt| ItemKind::Hook {
            event: None,
            before_prompt,
        };
        assert_eq!(s.turns.len(), 2, "{:#?}", s.turns);
        assert_eq!(
            kinds(&s.turns[0]),
            [hook(true), hook(false), ItemKind::CompactionSummary]
        );
        assert_eq!(kinds(&s.turns[1]), [ItemKind::CompactionSummary]);
        assert_eq!(
            s.turns[1].prompt_sha,
            Some(crate::digest::sha256_hex(b"Second."))
        );
        // The second request: the replacement history without the base instructions.
        let history = [
            serde_json::json!({"content": [{"text": "First.", "type": "input_text"}], "role": "user"}),
            serde_json::json!({"content": [{"text": "Summary.", "type": "input_text"}], "role": "user"}),
        ];
        assert_eq!(s.turns[1].context_sha, Some(messages_sha(&history)));
        assert_eq!(s.turns[0].context_sha, Some(messages_sha(&s.context)));
        assert_eq!(
            (s.output_turn, s.model.as_deref()),
            (Some(1), Some("gpt-5.6-terra"))
        );
        assert_eq!(s.prompt.as_deref(), Some("First."));
        assert!(
            s.developer.iter().all(|d| !d.contains("Hook")),
            "a hook's text is not developer instructions: {:?}",
            s.developer
        );
    }

    #[test]
    fn odd_records_are_said_not_fatal() {
        let d = tempfile::tempdir().unwrap();
        let newer = META.replace("0.169.0", "0.250.1");
        let p = write(
            d.path(),
            "r.jsonl",
            &[
                &newer,
                "not json",
                r#"{"timestamp":"t","type":"event_msg","payload":{"type":"task_compl"#,
            ],
        );
        let s = read(&p).unwrap();
        let all = s.warnings.join("\n");
        assert!(
            all.contains("last line is cut off")
                && all.contains("not JSON")
                && all.contains("newer than"),
            "{all}"
        );
        assert!(
            read(&write(d.path(), "e.jsonl", &[]))
                .unwrap()
                .warnings
                .iter()
                .any(|w| w.contains("empty"))
        );
    }

    #[test]
    fn a_long_line_is_skipped_with_memory_bounded() {
        let mut r = io::Cursor::new(b"short\nlonger line\nend".to_vec());
        let mut line = Vec::new();
        assert_eq!(
            read_line(&mut r, &mut line, 5).unwrap(),
            Some((false, true))
        );
        assert_eq!(read_line(&mut r, &mut line, 5).unwrap(), Some((true, true)));
        assert_eq!(line, b"longe");
        assert_eq!(
            read_line(&mut r, &mut line, 5).unwrap(),
            Some((false, false))
        );
        assert_eq!(read_line(&mut r, &mut line, 5).unwrap(), None);
    }
}
