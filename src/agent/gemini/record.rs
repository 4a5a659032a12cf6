//! Gemini CLI's session record, read as a log: every turn the model
//! answered, in the order it happened.
//!
//! The record is `~/.gemini/tmp/<project>/chats/session-<date>-<id8>.jsonl`
//! (Gemini CLI before 0.5x wrote one `.json` object with `messages`). Its
//! first line is `{sessionId, projectHash, startTime, lastUpdated, kind}`;
//! then come message records (`id`, `type`: `user`, `gemini`, `info`,
//! `warning`, `error`), `{"$set": {...}}` updates (with `messages`, the
//! history as the CLI rebuilt it: at start the `<session_context>` message,
//! after a resume or a chat compression the history the model gets next) and
//! `{"$rewindTo": id}`. A `gemini` record is written again as it grows (tool
//! calls, tokens): the last one with an `id` wins.
//!
//! Hooks: a `SessionStart` hook's text is put before the prompt, in the same
//! part, as `<hook_context>…</hook_context>\n\n`; a `BeforeAgent` hook's text
//! is a part of its own after the prompt, `<hook_context>…</hook_context>`.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use serde_json::{Value, json};

use crate::agent::Tokens;
use crate::agent::turns::ItemKind;
use crate::digest::sha256_hex;
use crate::limits;

const HOOK_OPEN: &str = "<hook_context>";
const HOOK_CLOSE: &str = "</hook_context>";
const SESSION_CONTEXT: &str = "<session_context>";
/// How `redact-record.jq` replaces a text it cuts:
/// `<prompt_receipt_cut kind="model|summary" n="…" bytes="…"/>`, one `n`
/// per distinct text, so that equal texts stay equal.
pub(crate) const CUT_OPEN: &str = "<prompt_receipt_cut ";

/// The size of the text a placeholder stands for, as the filter gives it.
pub(crate) fn cut_bytes(placeholder: &str) -> Option<usize> {
    let at = placeholder.find(CUT_OPEN)?;
    let rest = placeholder[at..].split("bytes=\"").nth(1)?;
    rest.split('"').next()?.parse().ok()
}

/// One prompt and what the model answered to it.
#[derive(Clone, Debug, Default)]
pub(crate) struct RecordTurn {
    /// The prompt as the user gave it (a `SessionStart` hook's text taken off).
    pub(crate) prompt: String,
    /// Every model-visible text of the turn besides the prompt, in order:
    /// hooks, the compaction summary the turn started from.
    pub(crate) items: Vec<(ItemKind, String)>,
    /// What the request carried before the prompt: `(role, text)` parts.
    /// Each text shared with the history it came from: one copy, however
    /// many turns carry it.
    pub(crate) context: Vec<(&'static str, Arc<str>)>,
    pub(crate) model: Option<String>,
    /// The turn's last non-empty answer.
    pub(crate) answer: Option<String>,
}

/// A tool the agent called, as the record has it.
#[derive(Clone, Debug, Default)]
pub(crate) struct ToolCall {
    pub(crate) name: String,
    /// Only `file_path` and `command`, what the edit check reads.
    pub(crate) args: Value,
    /// The text of its result, as the model received it, when it holds an
    /// instruction file loaded just in time; else empty.
    pub(crate) result: String,
}

#[derive(Clone, Debug, Default)]
pub(crate) struct Record {
    pub(crate) path: PathBuf,
    pub(crate) sha256: String,
    pub(crate) session_id: Option<String>,
    pub(crate) project_hash: Option<String>,
    pub(crate) start_time: Option<String>,
    pub(crate) last_updated: Option<String>,
    pub(crate) kind: Option<String>,
    /// The `<session_context>` message as sent (the workspace instructions in it).
    pub(crate) session_context: Option<String>,
    pub(crate) turns: Vec<RecordTurn>,
    pub(crate) tokens: Option<Tokens>,
    pub(crate) tool_calls: Vec<ToolCall>,
    /// Each `$rewindTo`: the model saw what was rewound.
    pub(crate) rewinds: usize,
    /// `error` and `warning` records, and lines that could not be read.
    pub(crate) warnings: Vec<String>,
    /// The marker `redact-record.jq` ends a redacted record with.
    pub(crate) redaction: Option<crate::agent::redaction::Redaction>,
    /// A token count that is there but not a whole number (then `tokens` is `None`).
    pub(crate) tokens_unreadable: bool,
    /// Lines that are not JSON: what they held (a prompt, a hook) is unknown.
    pub(crate) unread_lines: usize,
}

impl Record {
    /// The working directory, as the session context lists it first under
    /// "Workspace Directories".
    pub(crate) fn cwd(&self) -> Option<String> {
        let sc = self.session_context.as_deref()?;
        let after = sc.split("**Workspace Directories:**\n").nth(1)?;
        let line = after.lines().next()?;
        line.trim_start().strip_prefix("- ").map(str::to_string)
    }

    /// The `<project_context>` text as sent, if any.
    pub(crate) fn project_context(&self) -> Option<&str> {
        let sc = self.session_context.as_deref()?;
        let start = sc.find("<project_context>\n")? + "<project_context>\n".len();
        let end = sc[start..].rfind("\n</project_context>")? + start;
        Some(&sc[start..end])
    }

    /// Whether this text is one a redacted record cut to a placeholder.
    pub(crate) fn is_cut(&self, text: &str) -> bool {
        self.redaction.is_some() && text.contains(CUT_OPEN)
    }

    /// The turn whose answer is the output: the last that has one.
    pub(crate) fn output_turn(&self) -> Option<usize> {
        self.turns.iter().rposition(|t| t.answer.is_some())
    }
}

/// The text parts of a message's `content` (a string or a list of parts).
fn texts(content: &Value) -> Vec<String> {
    match content {
        Value::String(s) => vec![s.clone()],
        Value::Array(parts) => parts
            .iter()
            .filter_map(|p| p["text"].as_str().map(str::to_string))
            .collect(),
        _ => Vec::new(),
    }
}

/// The canonical form of a context the receipt hashes (`context_sha`): the
/// text parts before the prompt, `[{"role": "user"|"model", "text": …}]`,
/// keys sorted, no whitespace.
pub(crate) fn context_sha(context: &[(&str, Arc<str>)]) -> String {
    let parts: Vec<Value> = context
        .iter()
        .map(|(role, text)| json!({"role": role, "text": &**text}))
        .collect();
    sha256_hex(serde_json::to_string(&parts).unwrap_or_default().as_bytes())
}

/// Splits a `SessionStart` hook's text off the front of the prompt part.
fn split_hook(first: &str) -> (Option<String>, String) {
    if let Some(rest) = first.strip_prefix(HOOK_OPEN) {
        if let Some(end) = rest.find(&format!("{HOOK_CLOSE}\n\n")) {
            let hook = rest[..end].to_string();
            let prompt = rest[end + HOOK_CLOSE.len() + 2..].to_string();
            return (Some(hook), prompt);
        }
    }
    (None, first.to_string())
}

struct Entry {
    id: String,
    role: &'static str,
    texts: Vec<Arc<str>>,
}

fn shared(texts: Vec<String>) -> Vec<Arc<str>> {
    texts.into_iter().map(Arc::from).collect()
}

/// A `gemini` record as last written (found by its id in `answer_at`).
struct Answer {
    turn: usize,
    tokens: Option<Value>,
    model: Option<String>,
    content: String,
}

#[derive(Default)]
struct Reader {
    r: Record,
    history: Vec<Entry>,
    /// Each history entry's place by id, its last (a rewritten answer was
    /// found by a walk from the end, for every answer).
    entry_at: std::collections::HashMap<String, usize>,
    rebuilds: usize,
    seen: std::collections::HashSet<String>,
    /// Each gemini record, its last version.
    answers: Vec<Answer>,
    /// Where each answer and each answer's tool calls are, by id: a record
    /// rewrites its lines in place, and finding each by a scan made a long
    /// record quadratic.
    answer_at: std::collections::HashMap<String, usize>,
    pending_summary: Vec<String>,
    tools: Vec<(String, Vec<ToolCall>)>,
    tool_at: std::collections::HashMap<String, usize>,
}

impl Reader {
    fn line(&mut self, v: &Value) {
        if self.control(v) {
            return;
        }
        if is_header(v) {
            self.header(v);
            if let Some(messages) = v["messages"].as_array() {
                // The older `.json` form: the whole history in one object.
                for m in messages {
                    self.message(m);
                }
            }
        }
    }

    /// A line that is not the session's header: the redaction marker, a
    /// rewind, a `$set`, a message. Returns whether it was one.
    fn control(&mut self, v: &Value) -> bool {
        if v["type"] == crate::agent::redaction::MARKER {
            self.r.redaction = Some(crate::agent::redaction::Redaction::from_payload(
                &v["payload"],
            ));
            return true;
        }
        if let Some(id) = v["$rewindTo"].as_str() {
            self.r.rewinds += 1;
            if self.rebuilt() {
                let at = self.history.iter().position(|e| e.id == id);
                self.history.truncate(at.unwrap_or(0));
                self.reindex();
            }
            return true;
        }
        if let Some(set) = v.get("$set").filter(|s| s.is_object()) {
            if let Some(messages) = set["messages"].as_array() {
                if self.rebuilt() {
                    self.rebuild(messages);
                    self.reindex();
                }
            }
            if let Some(t) = set["lastUpdated"].as_str() {
                self.r.last_updated = Some(t.to_string());
            }
            return true;
        }
        if v["id"].is_string() {
            self.message(v);
            return true;
        }
        false
    }

    /// Whether one more rewind or rebuilt history is read; past
    /// [`limits::REBUILDS`] the record is said not to be read whole.
    fn rebuilt(&mut self) -> bool {
        self.rebuilds += 1;
        if self.rebuilds == limits::REBUILDS + 1 {
            self.r.unread_lines += 1;
            self.r.warnings.push(format!(
                "the session record rewinds or rebuilds its history more than {} times; the rest of those lines were not read",
                limits::REBUILDS
            ));
        }
        self.rebuilds <= limits::REBUILDS
    }

    fn reindex(&mut self) {
        self.entry_at = self
            .history
            .iter()
            .enumerate()
            .map(|(i, e)| (e.id.clone(), i))
            .collect();
    }

    fn push_entry(&mut self, entry: Entry) {
        self.entry_at.insert(entry.id.clone(), self.history.len());
        self.history.push(entry);
    }

    /// The session's header (`sessionId`, `projectHash`, ...): its facts, not
    /// its messages.
    fn header(&mut self, v: &Value) {
        let r = &mut self.r;
        let s = |k: &str| v[k].as_str().map(str::to_string);
        r.session_id = r.session_id.take().or(s("sessionId"));
        r.project_hash = r.project_hash.take().or(s("projectHash"));
        r.start_time = r.start_time.take().or(s("startTime"));
        r.kind = r.kind.take().or(s("kind"));
        r.last_updated = s("lastUpdated").or(r.last_updated.take());
    }

    /// A `$set.messages`: the history the model gets from now on. A message
    /// never seen before that is not the session context is one the CLI
    /// wrote itself: after a compression, the summary.
    fn rebuild(&mut self, messages: &[Value]) {
        // Every text the model has been given or has written so far: a
        // rebuilt history copies them under new ids (0.61 after a compression).
        // Gathered only when a message here is new: most rebuilds hold none.
        let new_user = messages.iter().any(|m| {
            m["type"] != "gemini" && m["id"].as_str().is_some_and(|id| !self.seen.contains(id))
        });
        let known: std::collections::HashSet<Arc<str>> = if new_user {
            self.history
                .iter()
                .flat_map(|e| e.texts.iter().cloned())
                .chain(self.r.turns.iter().map(|t| Arc::from(t.prompt.as_str())))
                .chain(self.answers.iter().map(|a| Arc::from(a.content.as_str())))
                .collect()
        } else {
            std::collections::HashSet::new()
        };
        let mut history = Vec::new();
        for m in messages {
            let Some(id) = m["id"].as_str() else { continue };
            let role = if m["type"] == "gemini" {
                "model"
            } else {
                "user"
            };
            let t = texts(&m["content"]);
            if !self.seen.contains(id) {
                self.seen.insert(id.to_string());
                let text = t.join("");
                if role == "user" && text.starts_with(SESSION_CONTEXT) {
                    if self.r.session_context.is_none() {
                        self.r.session_context = Some(text);
                    }
                } else if role == "user"
                    && !self.r.turns.is_empty()
                    && !text.is_empty()
                    && !known.contains(text.as_str())
                {
                    // A user message the CLI wrote: the compression's summary.
                    // It reaches the turn in progress, else the next one.
                    if self.in_progress() {
                        let last = self.r.turns.len() - 1;
                        self.r.turns[last]
                            .items
                            .push((ItemKind::CompactionSummary, text));
                    } else {
                        self.pending_summary.push(text);
                    }
                }
            }
            history.push(Entry {
                id: id.to_string(),
                role,
                texts: shared(t),
            });
        }
        self.history = history;
    }

    /// Whether the last turn still waits for its answer: no answer yet, or
    /// the last one a tool call without text.
    fn in_progress(&self) -> bool {
        let Some(last) = self.r.turns.len().checked_sub(1) else {
            return false;
        };
        self.answers
            .iter()
            .rfind(|a| a.turn == last)
            .is_none_or(|a| a.content.is_empty())
    }

    fn message(&mut self, m: &Value) {
        let Some(id) = m["id"].as_str() else { return };
        match m["type"].as_str() {
            Some("user") => self.user(id, m),
            Some("gemini") => self.answer(id, m),
            Some(kind @ ("error" | "warning")) => {
                let text = texts(&m["content"]).join("");
                self.r.warnings.push(format!(
                    "the session record holds {} {kind}: {}",
                    if kind == "error" { "an" } else { "a" },
                    crate::escape::one_line(&crate::markdown::clip(&text, 200))
                ));
            }
            _ => {}
        }
    }

    /// A `user` message, read once: tool results, the session context, text
    /// that belongs to the turn in progress, or a prompt that starts a turn.
    fn user(&mut self, id: &str, m: &Value) {
        if self.seen.contains(id) {
            return;
        }
        self.seen.insert(id.to_string());
        let parts = texts(&m["content"]);
        let joined = parts.join("");
        if parts.is_empty() {
            // Tool results (`functionResponse` parts): the same turn
            // goes on. The gemini record's `toolCalls` has them too.
            return;
        }
        if joined.starts_with(SESSION_CONTEXT) {
            if self.r.session_context.is_none() {
                self.r.session_context = Some(joined);
            }
            self.push_user_entry(id, parts);
            return;
        }
        // Text the CLI itself sends as a user message (loop detection,
        // the next-speaker check), or any text while a turn waits
        // for its answer: part of that turn, not a new prompt.
        let harness = joined.starts_with("System: ") || joined == "Please continue.";
        if (harness || self.in_progress()) && !self.r.turns.is_empty() {
            let last = self.r.turns.len() - 1;
            let kind = if harness {
                ItemKind::System
            } else {
                ItemKind::User
            };
            self.r.turns[last].items.push((kind, joined));
            self.push_user_entry(id, parts);
            return;
        }
        self.new_turn(&parts);
        self.push_user_entry(id, parts);
    }

    fn push_user_entry(&mut self, id: &str, parts: Vec<String>) {
        self.push_entry(Entry {
            id: id.to_string(),
            role: "user",
            texts: shared(parts),
        });
    }

    /// A prompt starts a turn: the history so far is its context, and its
    /// items are the summaries waiting for it, then the hooks' text and any
    /// other part of the message.
    fn new_turn(&mut self, parts: &[String]) {
        let context: Vec<(&'static str, Arc<str>)> = self
            .history
            .iter()
            .flat_map(|e| e.texts.iter().map(|t| (e.role, t.clone())))
            .collect();
        let mut items: Vec<(ItemKind, String)> = self
            .pending_summary
            .drain(..)
            .map(|s| (ItemKind::CompactionSummary, s))
            .collect();
        let (hook, prompt) = split_hook(parts.first().map_or("", String::as_str));
        if let Some(h) = hook {
            items.push((
                ItemKind::Hook {
                    event: Some("SessionStart".into()),
                    before_prompt: true,
                },
                h,
            ));
        }
        for p in parts.iter().skip(1) {
            let hook = p
                .strip_prefix(HOOK_OPEN)
                .and_then(|r| r.strip_suffix(HOOK_CLOSE));
            match hook {
                Some(h) => items.push((
                    ItemKind::Hook {
                        event: Some("BeforeAgent".into()),
                        before_prompt: false,
                    },
                    h.to_string(),
                )),
                None => items.push((ItemKind::User, p.clone())),
            }
        }
        self.r.turns.push(RecordTurn {
            prompt,
            items,
            context,
            ..RecordTurn::default()
        });
    }

    /// A `gemini` message, first written or rewritten in place: the answer,
    /// its tool calls, and its entry in the history.
    fn answer(&mut self, id: &str, m: &Value) {
        let turn = self.r.turns.len().saturating_sub(1);
        let content = texts(&m["content"]).join("");
        let model = m["model"].as_str().map(str::to_string);
        let tokens = m.get("tokens").filter(|t| t.is_object()).cloned();
        let calls: Vec<ToolCall> = m["toolCalls"]
            .as_array()
            .map(|calls| {
                calls
                    .iter()
                    .map(|c| ToolCall {
                        name: c["name"].as_str().unwrap_or_default().to_string(),
                        args: slim_args(&c["args"]),
                        result: jit_text(result_text(&c["result"])),
                    })
                    .collect()
            })
            .unwrap_or_default();
        match self.answer_at.get(id).map(|&i| &mut self.answers[i]) {
            Some(a) => {
                a.tokens = tokens.or(a.tokens.take());
                a.model = model.or(a.model.take());
                a.content = content.clone();
            }
            None => {
                self.answer_at.insert(id.to_string(), self.answers.len());
                self.answers.push(Answer {
                    turn,
                    tokens,
                    model,
                    content: content.clone(),
                })
            }
        }
        match self.tool_at.get(id) {
            Some(&i) => self.tools[i].1 = calls,
            None => {
                self.tool_at.insert(id.to_string(), self.tools.len());
                self.tools.push((id.to_string(), calls));
            }
        }
        // A tool call alone is no text part of the history.
        let parts = if content.is_empty() {
            Vec::new()
        } else {
            vec![content]
        };
        // The entry rewritten is the newest of its id.
        match self.entry_at.get(id).copied() {
            Some(at) => self.history[at].texts = shared(parts),
            None => {
                self.seen.insert(id.to_string());
                self.push_entry(Entry {
                    id: id.to_string(),
                    role: "model",
                    texts: shared(parts),
                })
            }
        }
    }

    fn finish(mut self) -> Record {
        let mut total: Option<Tokens> = None;
        for a in &self.answers {
            if let Some(t) = self.r.turns.get_mut(a.turn) {
                if a.model.is_some() {
                    t.model = a.model.clone();
                }
                if !a.content.is_empty() {
                    t.answer = Some(a.content.clone());
                }
            }
            if let Some(tk) = &a.tokens {
                // A count that is there but not a whole number is no count:
                // the tokens are then not known, never counted as 0.
                let bad = ["input", "tool", "cached", "output", "thoughts", "total"]
                    .iter()
                    .any(|k| {
                        tk.get(*k)
                            .is_some_and(|v| !v.is_null() && v.as_u64().is_none())
                    });
                if bad {
                    self.r.tokens_unreadable = true;
                }
                let n = |k: &str| tk[k].as_u64().unwrap_or(0);
                let sum = total.get_or_insert_with(Tokens::default);
                // promptTokenCount holds the cached tokens; the tool-use
                // prompt and the thoughts are counted apart by Gemini.
                // Saturating: a count near u64::MAX is over any budget.
                sum.input = sum
                    .input
                    .saturating_add(n("input"))
                    .saturating_add(n("tool"));
                sum.cached_input = sum.cached_input.saturating_add(n("cached"));
                sum.output = sum
                    .output
                    .saturating_add(n("output"))
                    .saturating_add(n("thoughts"));
                sum.reasoning = sum.reasoning.saturating_add(n("thoughts"));
            }
        }
        if let Some(t) = total.as_mut() {
            t.total = t.input.saturating_add(t.output);
        }
        self.r.tokens = if self.r.tokens_unreadable {
            None
        } else {
            total
        };
        self.r.tool_calls = self.tools.into_iter().flat_map(|t| t.1).collect();
        self.r
    }
}

/// What the checks read of a tool call's arguments (the path written, the
/// command): a `write_file`'s content is not kept.
fn slim_args(args: &Value) -> Value {
    let mut out = serde_json::Map::new();
    for key in ["file_path", "command"] {
        if let Some(v) = args.get(key) {
            out.insert(key.to_string(), v.clone());
        }
    }
    Value::Object(out)
}

/// A tool result is kept only when it holds an instruction file loaded just
/// in time (`chain::parse_blocks`): the rest, often large, is read for
/// nothing.
fn jit_text(text: String) -> String {
    if text.contains("--- Context from: ") {
        text
    } else {
        String::new()
    }
}

fn result_text(result: &Value) -> String {
    let mut out = String::new();
    let mut stack = vec![result];
    while let Some(v) = stack.pop() {
        match v {
            Value::String(s) => out.push_str(s),
            Value::Array(a) => stack.extend(a.iter().rev()),
            Value::Object(o) => {
                for (_, x) in o.iter() {
                    stack.push(x);
                }
            }
            _ => {}
        }
    }
    out
}

fn is_header(v: &Value) -> bool {
    v["sessionId"].is_string() && v["projectHash"].is_string()
}

/// Reads one record, which must resolve inside `home` (the agent home), as a
/// stream: the whole file hashed as it passes, one line (or, in the older
/// `.json` form, one message) held at a time. A line that is not JSON is
/// said, not fatal (the CLI may have been stopped mid-write).
pub(crate) fn read(path: &Path, home: &Path) -> Result<Record, String> {
    use crate::agent::stream::Record as Stream;
    if path.extension().is_some_and(|e| e == "json") {
        let mut stream = Stream::open(path, home, limits::RECORD_BYTES)?;
        if let Some(reader) = whole(&mut stream) {
            return Ok(done(reader, path, stream));
        }
        // Not one JSON document: read again, as lines.
    }
    let mut stream = Stream::open(path, home, limits::RECORD_BYTES)?;
    let reader = lines(&mut stream).map_err(|e| stream.why(path, &e))?;
    Ok(done(reader, path, stream))
}

/// [`read`] on bytes, for tests: written to a file named as `path` is.
#[cfg(test)]
pub(crate) fn parse(path: &Path, bytes: &[u8]) -> Record {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join(path.file_name().unwrap());
    std::fs::write(&file, bytes).unwrap();
    let mut r = read(&file, dir.path()).unwrap();
    r.path = path.to_path_buf();
    r
}

fn done(mut reader: Reader, path: &Path, stream: crate::agent::stream::Record) -> Record {
    reader.r.path = path.to_path_buf();
    reader.r.sha256 = stream.sha256();
    reader.finish()
}

/// The record's lines, each parsed and absorbed; the rest of a record past
/// [`limits::RECORD_LINES`] is only hashed.
fn lines(stream: &mut crate::agent::stream::Record) -> std::io::Result<Reader> {
    let mut reader = Reader::default();
    let mut line = Vec::new();
    let mut n = 0;
    while let Some(kind) = stream.line(&mut line, limits::RECORD_LINE_BYTES)? {
        if n >= limits::RECORD_LINES {
            // What the rest held is not known: not verified, said.
            reader.r.unread_lines += 1;
            reader.r.warnings.push(format!(
                "the session record has more than {} lines, more than a review's; the rest was not read",
                limits::RECORD_LINES
            ));
            stream.drain()?;
            break;
        }
        n += 1;
        if kind == crate::agent::stream::Line::Long {
            reader.r.unread_lines += 1;
            reader.r.warnings.push(format!(
                "line {n} of the session record holds more than {} MiB, and was skipped",
                limits::RECORD_LINE_BYTES >> 20
            ));
            continue;
        }
        let text = String::from_utf8_lossy(&line);
        if text.trim().is_empty() {
            continue;
        }
        match serde_json::from_str::<Value>(&text) {
            Ok(v) => reader.line(&v),
            Err(_) => {
                reader.r.unread_lines += 1;
                reader.r.warnings.push(format!(
                    "line {n} of the session record is not JSON, and was skipped"
                ))
            }
        }
    }
    Ok(reader)
}

/// The older `.json` form, one document, parsed as a stream: each of its
/// `messages` absorbed as it is read and then dropped. `None` when the file
/// is not one JSON document (then it is read as lines).
fn whole(stream: &mut crate::agent::stream::Record) -> Option<Reader> {
    use serde::de::DeserializeSeed;
    let mut messages = Reader::default();
    let budget = Budget::default();
    budget.next_value();
    let reader = Budgeted {
        inner: stream.reader(),
        budget: &budget,
    };
    let mut de = serde_json::Deserializer::from_reader(reader);
    let top = Top(&mut messages, &budget).deserialize(&mut de).ok()?;
    de.end().ok()?;
    // As `Reader::line` reads a parsed document: `messages` count only in a
    // header, whose facts no message changes.
    let mut other = Reader::default();
    if other.control(&top) || !is_header(&top) {
        return Some(other);
    }
    messages.header(&top);
    Some(messages)
}

/// Bytes read of the older `.json` form, and the most one value (a message,
/// a top-level field) may take: the 32 MiB a line of the `.jsonl` form may
/// take. A value past it stops the parse (the file is then read as lines,
/// and a line that long leaves the record not verified), before a message of
/// millions of empty arrays is held whole, ten bytes of memory for each byte.
#[derive(Default)]
struct Budget {
    read: std::cell::Cell<u64>,
    until: std::cell::Cell<u64>,
}

impl Budget {
    /// The next value starts here: it may take [`limits::RECORD_LINE_BYTES`].
    fn next_value(&self) {
        self.until
            .set(self.read.get() + limits::RECORD_LINE_BYTES as u64);
    }
}

struct Budgeted<'b, R> {
    inner: R,
    budget: &'b Budget,
}

impl<R: std::io::Read> std::io::Read for Budgeted<'_, R> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let n = self.inner.read(buf)?;
        let read = self.budget.read.get() + n as u64;
        self.budget.read.set(read);
        if read > self.budget.until.get() {
            return Err(std::io::Error::other("a value over the line bound"));
        }
        Ok(n)
    }
}

/// The top-level document: every field but `messages` kept as parsed;
/// `messages`, when an array, read one message at a time into the reader.
struct Top<'a>(&'a mut Reader, &'a Budget);

impl<'de> serde::de::DeserializeSeed<'de> for Top<'_> {
    type Value = Value;
    fn deserialize<D: serde::Deserializer<'de>>(self, d: D) -> Result<Value, D::Error> {
        d.deserialize_any(self)
    }
}

impl<'de> serde::de::Visitor<'de> for Top<'_> {
    type Value = Value;
    fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        f.write_str("a JSON document")
    }
    fn visit_map<A: serde::de::MapAccess<'de>>(self, mut map: A) -> Result<Value, A::Error> {
        let mut top = serde_json::Map::new();
        self.1.next_value();
        while let Some(key) = map.next_key::<String>()? {
            self.1.next_value();
            if key == "messages" {
                // A repeated key: the last one wins, as in a parsed object.
                *self.0 = Reader::default();
                map.next_value_seed(Messages(self.0, self.1))?;
            } else {
                let v = map.next_value::<Value>()?;
                top.insert(key, v);
            }
        }
        Ok(Value::Object(top))
    }
    fn visit_seq<A: serde::de::SeqAccess<'de>>(self, mut seq: A) -> Result<Value, A::Error> {
        while seq.next_element::<serde::de::IgnoredAny>()?.is_some() {}
        Ok(Value::Null)
    }
    fn visit_bool<E>(self, _: bool) -> Result<Value, E> {
        Ok(Value::Null)
    }
    fn visit_i64<E>(self, _: i64) -> Result<Value, E> {
        Ok(Value::Null)
    }
    fn visit_u64<E>(self, _: u64) -> Result<Value, E> {
        Ok(Value::Null)
    }
    fn visit_f64<E>(self, _: f64) -> Result<Value, E> {
        Ok(Value::Null)
    }
    fn visit_str<E>(self, _: &str) -> Result<Value, E> {
        Ok(Value::Null)
    }
    fn visit_unit<E>(self) -> Result<Value, E> {
        Ok(Value::Null)
    }
}

/// A header's `messages`: each absorbed as it is parsed; anything but an
/// array is no messages.
struct Messages<'a>(&'a mut Reader, &'a Budget);

impl<'de> serde::de::DeserializeSeed<'de> for Messages<'_> {
    type Value = ();
    fn deserialize<D: serde::Deserializer<'de>>(self, d: D) -> Result<(), D::Error> {
        d.deserialize_any(self)
    }
}

impl<'de> serde::de::Visitor<'de> for Messages<'_> {
    type Value = ();
    fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        f.write_str("any JSON value")
    }
    fn visit_seq<A: serde::de::SeqAccess<'de>>(self, mut seq: A) -> Result<(), A::Error> {
        self.1.next_value();
        while let Some(m) = seq.next_element::<Value>()? {
            self.0.message(&m);
            self.1.next_value();
        }
        Ok(())
    }
    fn visit_map<A: serde::de::MapAccess<'de>>(self, mut map: A) -> Result<(), A::Error> {
        while map
            .next_entry::<serde::de::IgnoredAny, serde::de::IgnoredAny>()?
            .is_some()
        {}
        Ok(())
    }
    fn visit_bool<E>(self, _: bool) -> Result<(), E> {
        Ok(())
    }
    fn visit_i64<E>(self, _: i64) -> Result<(), E> {
        Ok(())
    }
    fn visit_u64<E>(self, _: u64) -> Result<(), E> {
        Ok(())
    }
    fn visit_f64<E>(self, _: f64) -> Result<(), E> {
        Ok(())
    }
    fn visit_str<E>(self, _: &str) -> Result<(), E> {
        Ok(())
    }
    fn visit_unit<E>(self) -> Result<(), E> {
        Ok(())
    }
}
/// `--output-format json`'s stdout (run-gemini-cli's `gemini-artifacts/stdout.log`).
#[derive(Clone, Debug, Default)]
pub(crate) struct Stdout {
    pub(crate) session_id: Option<String>,
    pub(crate) response: Option<String>,
    /// `(model, role)` for every model `stats.models` lists.
    pub(crate) models: Vec<(String, String)>,
    pub(crate) error: Option<String>,
}

pub(crate) fn parse_stdout(bytes: &[u8]) -> Option<Stdout> {
    let v: Value = serde_json::from_slice(bytes).ok()?;
    let mut out = Stdout {
        session_id: v["session_id"].as_str().map(str::to_string),
        response: v["response"].as_str().map(str::to_string),
        error: v["error"]["message"].as_str().map(str::to_string),
        ..Stdout::default()
    };
    if let Some(models) = v["stats"]["models"].as_object() {
        for (name, m) in models {
            let roles: Vec<String> = m["roles"]
                .as_object()
                .map(|r| r.keys().cloned().collect())
                .unwrap_or_default();
            if roles.is_empty() {
                out.models.push((name.clone(), String::new()));
            }
            for role in roles {
                out.models.push((name.clone(), role));
            }
        }
    }
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn token_counts_that_are_not_whole_numbers_are_not_known_and_large_ones_saturate() {
        let record = |tokens: Value| {
            let lines = [
                json!({"sessionId": "s1", "projectHash": "h"}),
                json!({"id": "u1", "type": "user", "content": [{"text": "Review"}]}),
                json!({"id": "g1", "type": "gemini", "content": "{}", "model": "m", "tokens": tokens}),
                json!({"id": "g2", "type": "gemini", "content": "{}", "model": "m", "tokens": {"input": u64::MAX, "output": 1}}),
            ];
            let text: String = lines.iter().map(|l| format!("{l}\n")).collect();
            parse(Path::new("session-x.jsonl"), text.as_bytes())
        };
        let r = record(json!({"input": "900000", "output": 9000, "total": 909000}));
        assert!(r.tokens_unreadable && r.tokens.is_none());
        let r = record(json!({"input": u64::MAX, "output": 5}));
        assert!(!r.tokens_unreadable);
        assert_eq!(r.tokens.unwrap().total, u64::MAX);
    }

    #[test]
    fn messages_the_cli_writes_in_a_turn_are_items_of_it() {
        let lines = [
            json!({"sessionId": "s1", "projectHash": "h"}),
            json!({"$set": {"messages": [{"id": "c", "type": "user", "content": [{"text": "<session_context>x"}]}]}}),
            json!({"id": "u1", "type": "user", "content": [{"text": "Review"}]}),
            json!({"id": "g1", "type": "gemini", "content": "", "toolCalls": [{"name": "read_file", "args": {}}]}),
            json!({"id": "r1", "type": "user", "content": [{"functionResponse": {"name": "read_file", "response": {"output": "x"}}}]}),
            // A compression: every message again under a new id, with the summary.
            json!({"$set": {"messages": [
                {"id": "c", "type": "user", "content": [{"text": "<session_context>x"}]},
                {"id": "s", "type": "user", "content": [{"text": "<state_snapshot>S</state_snapshot>"}]},
                {"id": "a", "type": "gemini", "content": [{"text": "Got it. Thanks for the additional context!"}]},
                {"id": "u1b", "type": "user", "content": [{"text": "Review"}]},
            ]}}),
            json!({"id": "l", "type": "user", "content": [{"text": "System: Potential loop detected."}]}),
            json!({"id": "g2", "type": "gemini", "content": "{}", "model": "m"}),
        ];
        let text: String = lines.iter().map(|l| format!("{l}\n")).collect();
        let r = parse(Path::new("session-x.jsonl"), text.as_bytes());
        assert_eq!(r.turns.len(), 1, "{:?}", r.turns);
        let kinds: Vec<&ItemKind> = r.turns[0].items.iter().map(|(k, _)| k).collect();
        assert_eq!(kinds, [&ItemKind::CompactionSummary, &ItemKind::System]);
        assert_eq!(r.turns[0].answer.as_deref(), Some("{}"));
    }

    #[test]
    fn a_redacted_record_says_so_and_its_cut_texts_are_known() {
        let cut = r#"<prompt_receipt_cut kind="model" n="1" bytes="42"/>"#;
        let lines = [
            json!({"sessionId": "s1", "projectHash": "h"}),
            json!({"id": "u1", "type": "user", "content": [{"text": "Review"}]}),
            json!({"id": "g1", "type": "gemini", "content": cut, "model": "m"}),
            json!({"id": "u2", "type": "user", "content": [{"text": "Again"}]}),
            json!({"id": "g2", "type": "gemini", "content": "{}", "model": "m"}),
            json!({"type": "prompt_receipt_redacted", "payload": {"filter": "redact-record.jq", "version": 1, "lines_read": 6, "lines_kept": 5, "dropped": {"message:info": 1}, "cut": {"gemini.content": 1}}}),
        ];
        let text: String = lines.iter().map(|l| format!("{l}\n")).collect();
        let r = parse(Path::new("session-x.jsonl"), text.as_bytes());
        let red = r.redaction.clone().expect("the marker");
        assert_eq!((red.lines_dropped(), red.fields_cut()), (1, 1));
        assert_eq!(r.turns.len(), 2, "a cut answer still ends its turn");
        assert!(r.is_cut(&r.turns[1].context[1].1));
        assert_eq!(cut_bytes(cut), Some(42));
        assert!(r.warnings.is_empty(), "{:?}", r.warnings);
        // Without the marker, the same text is only text.
        let raw = parse(
            Path::new("session-x.jsonl"),
            text.lines()
                .take(5)
                .collect::<Vec<_>>()
                .join("\n")
                .as_bytes(),
        );
        assert!(raw.redaction.is_none() && !raw.is_cut(cut));
    }

    /// The older form, one `.json` document, is read as a stream of its
    /// messages, pretty-printed or not, and gives what a parsed document
    /// gives; the last of a repeated `messages` wins, as in a parsed object.
    #[test]
    fn the_older_whole_document_is_read_message_by_message() {
        let doc = json!({
            "sessionId": "s1", "projectHash": "h", "kind": "main",
            "messages": [
                {"id": "u0", "type": "user", "content": [{"text": "Dropped"}]},
            ],
            "startTime": "t0",
        });
        let later = json!([
            {"id": "u1", "type": "user", "content": [{"text": "Review"}]},
            {"id": "g1", "type": "gemini", "content": "{}", "model": "m1", "toolCalls": [{"name": "read_file", "args": {"file_path": "a"}, "result": "x"}]},
        ]);
        let text = serde_json::to_string_pretty(&doc).unwrap();
        let text = format!(
            "{},\n  \"messages\": {later}\n}}",
            text.trim_end().trim_end_matches('}').trim_end()
        );
        let r = parse(Path::new("session-x.json"), text.as_bytes());
        assert_eq!(r.session_id.as_deref(), Some("s1"));
        assert_eq!(r.start_time.as_deref(), Some("t0"));
        assert_eq!(r.turns.len(), 1, "{text}");
        assert_eq!(r.turns[0].prompt, "Review");
        assert_eq!(r.turns[0].answer.as_deref(), Some("{}"));
        assert_eq!(r.tool_calls.len(), 1);
        assert_eq!(r.sha256, sha256_hex(text.as_bytes()));
        assert!(r.warnings.is_empty(), "{:?}", r.warnings);
        // A `.json` file that holds lines is read as lines.
        let lines = format!(
            "{}\n{}\n",
            json!({"sessionId": "s2", "projectHash": "h"}),
            later[0]
        );
        let r = parse(Path::new("session-y.json"), lines.as_bytes());
        assert_eq!((r.session_id.as_deref(), r.turns.len()), (Some("s2"), 1));
    }

    /// One message of the older form past 32 MiB (twelve million empty
    /// arrays, held as values at ten times their bytes) stops the parse:
    /// the file is read as lines, and that line leaves the record not verified.
    #[test]
    fn a_message_past_the_line_bound_is_not_held_whole() {
        let mut text = String::from(r#"{"sessionId":"s","projectHash":"h","messages":[["#);
        text.push_str(&"[],".repeat(12 * 1024 * 1024));
        text.push_str("[]]]}");
        let r = parse(Path::new("session-z.json"), text.as_bytes());
        assert_eq!(r.unread_lines, 1, "{:?}", r.warnings);
        assert!(
            r.warnings[0].contains("holds more than 32 MiB"),
            "{:?}",
            r.warnings
        );
        assert!(r.turns.is_empty());
    }

    /// Rewinds and rebuilt histories past the bound are said, not read (each
    /// rebuilt the whole history: thousands made a small record take minutes).
    #[test]
    fn rebuilds_past_the_bound_are_said_not_read() {
        let mut lines = vec![
            json!({"sessionId": "s1", "projectHash": "h", "kind": "main"}).to_string(),
            json!({"id": "u1", "type": "user", "content": [{"text": "Review"}]}).to_string(),
        ];
        for _ in 0..limits::REBUILDS + 10 {
            lines.push(json!({"$set": {"messages": []}}).to_string());
        }
        let text = lines.join("\n") + "\n";
        let r = parse(Path::new("session-r.jsonl"), text.as_bytes());
        assert_eq!(r.unread_lines, 1, "{:?}", r.warnings);
        assert!(
            r.warnings[0].contains("more than 64 times"),
            "{:?}",
            r.warnings
        );
        assert_eq!(r.turns.len(), 1);
    }

    #[test]
    fn the_record_is_read_as_a_log() {
        let lines = [
            json!({"sessionId": "s1", "projectHash": "h", "startTime": "t0", "lastUpdated": "t0", "kind": "main"}),
            json!({"$set": {"messages": [{"id": "c", "type": "user", "content": [{"text": "<session_context>\n- **Workspace Directories:**\n  - /w\n<loaded_context>\n<project_context>\nPC\n</project_context>\n</loaded_context>\n</session_context>"}]}]}}),
            json!({"id": "u1", "type": "user", "content": [{"text": "<hook_context>S</hook_context>\n\nReview"}, {"text": "<hook_context>B</hook_context>"}]}),
            json!({"id": "g1", "type": "gemini", "content": "", "model": "m1"}),
            json!({"id": "g1", "type": "gemini", "content": "{}", "model": "m1", "tokens": {"input": 100, "output": 10, "cached": 40, "thoughts": 5, "tool": 1, "total": 116}}),
            json!({"$set": {"messages": [{"id": "c", "type": "user", "content": [{"text": "<session_context>x"}]}, {"id": "sum", "type": "user", "content": [{"text": "<state_snapshot>S</state_snapshot>"}]}]}}),
            json!({"id": "u2", "type": "user", "content": [{"text": "Again"}]}),
            json!({"id": "g2", "type": "gemini", "content": "{\"ok\":true}", "model": "m2", "tokens": {"input": 10, "output": 1, "cached": 0, "total": 11}}),
        ];
        let text: String = lines.iter().map(|l| format!("{l}\n")).collect();
        let r = parse(Path::new("session-x.jsonl"), text.as_bytes());
        assert_eq!(r.cwd().as_deref(), Some("/w"));
        assert_eq!(r.project_context(), Some("PC"));
        assert_eq!(r.turns.len(), 2);
        let t = &r.turns[0];
        assert_eq!(
            (t.prompt.as_str(), t.answer.as_deref(), t.model.as_deref()),
            ("Review", Some("{}"), Some("m1"))
        );
        assert_eq!(t.items.len(), 2);
        assert!(
            matches!(&t.items[0].0, ItemKind::Hook { event: Some(e), before_prompt: true } if e == "SessionStart")
        );
        assert_eq!(t.context.len(), 1);
        let t2 = &r.turns[1];
        assert_eq!(
            t2.items,
            [(
                ItemKind::CompactionSummary,
                "<state_snapshot>S</state_snapshot>".to_string()
            )]
        );
        assert_eq!(t2.context.len(), 2);
        let tokens = r.tokens.clone().unwrap();
        assert_eq!(
            (
                tokens.input,
                tokens.cached_input,
                tokens.output,
                tokens.reasoning,
                tokens.total
            ),
            (111, 40, 16, 5, 127)
        );
        assert_eq!(r.output_turn(), Some(1));
    }
}
