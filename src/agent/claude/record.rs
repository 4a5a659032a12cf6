//! Claude Code's record of a run, as the agent job uploads it.
//!
//! The agent home (input `agent-home`) mirrors the agent's `$HOME`, plus what
//! claude-code-action writes under `$RUNNER_TEMP`:
//!
//! - `claude-execution-output.json`: the action's `execution_file`, a JSON
//!   array of the SDK messages (`system`/`init`, `assistant`, `user`,
//!   `result`, `system`/`compact_boundary`);
//! - `.claude/projects/<cwd, each non-alphanumeric character as ->/<session id>.jsonl`:
//!   the session's project record, which holds the prompt, the instruction
//!   files as sent (`attachment` `instructions`), the hooks' added text
//!   (`attachment` `hook_additional_context`), compactions, and the request
//!   parts (`api-request-blob`, `api-request-shape`);
//! - optionally `.claude/CLAUDE.md` and `.claude/settings.json` (the user's).
//!
//! The project record's format is Claude Code's own and changes between
//! releases: what cannot be found is said, never assumed.

use std::fs;
use std::path::{Path, PathBuf};

use serde_json::Value;

use crate::agent::Tokens;
use crate::agent::turns::{Item, ItemKind};
use crate::digest::sha256_hex;
use crate::limits;

pub(crate) const EXECUTION_FILE: &str = "claude-execution-output.json";
pub(crate) const PROMPT_FILE: &str = "claude-prompt.txt";

/// The execution file's facts.
#[derive(Clone, Debug, Default)]
pub(crate) struct Execution {
    pub(crate) session_id: Option<String>,
    pub(crate) cwd: Option<String>,
    pub(crate) model: Option<String>,
    pub(crate) version: Option<String>,
    pub(crate) permission_mode: Option<String>,
    pub(crate) tools: Vec<String>,
    pub(crate) mcp_servers: Vec<String>,
    /// The `result` message, when the stream reached it.
    pub(crate) result: Option<Value>,
    pub(crate) compactions: usize,
    /// How many `init` and `result` messages it holds: one run writes one of each.
    pub(crate) inits: usize,
    pub(crate) results: usize,
}

/// One turn as the project record has it.
#[derive(Clone, Debug, Default)]
pub(crate) struct RecordTurn {
    pub(crate) prompt: Option<String>,
    pub(crate) model: Option<String>,
    pub(crate) items: Vec<Item>,
    /// The model's own answer: the last `StructuredOutput` call the
    /// assistant sent in this turn, as the model wrote it (before any hook).
    pub(crate) answer: Option<Call>,
    /// What Claude Code returned as the structured output (`attachment`
    /// `structured_output`): the tool's input after the `PreToolUse` hooks.
    pub(crate) structured_output: Option<Value>,
}

/// A tool call as the model sent it (`assistant` `tool_use`).
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Call {
    pub(crate) id: Option<String>,
    pub(crate) input: Value,
}

/// A hook that ran, as the record shows it (`attachment` `hook_success`,
/// `hook_non_blocking_error`, ...: measured with 2.1.300 and 2.1.332, a hook
/// that prints nothing leaves no line).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(crate) struct HookRun {
    /// The attachment's type (`hook_success`).
    pub(crate) kind: String,
    /// `PreToolUse`, `PostToolUse`, ...
    pub(crate) event: Option<String>,
    /// The tool call it ran on (`toolUseID`).
    pub(crate) tool_use_id: Option<String>,
    /// The command as the settings give it.
    pub(crate) command: Option<String>,
}

/// A file the record says was sent (`attachment` `instructions`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct SentFile {
    pub(crate) path: String,
    pub(crate) kind: String,
    pub(crate) content: String,
}

/// A tool the agent called that can write a file.
#[derive(Clone, Debug)]
pub(crate) struct ToolUse {
    pub(crate) id: Option<String>,
    pub(crate) name: String,
    pub(crate) input: Value,
    /// Its result was an error (refused by the permissions, or failed): it
    /// changed nothing the record can tell.
    pub(crate) failed: bool,
}

/// The project record's facts.
#[derive(Clone, Debug, Default)]
pub(crate) struct Session {
    /// Lines that are not JSON: what they held (a prompt, a hook) is unknown.
    pub(crate) unread_lines: usize,
    pub(crate) path: PathBuf,
    pub sha256: String,
    pub(crate) session_id: Option<String>,
    pub(crate) cwd: Option<String>,
    pub(crate) version: Option<String>,
    /// Every Claude Code version a line names: one run, one version.
    pub(crate) versions: std::collections::BTreeSet<String>,
    pub(crate) permission_mode: Option<String>,
    pub(crate) turns: Vec<RecordTurn>,
    /// The first `instructions` attachment: what the first request held.
    pub(crate) instructions: Option<Vec<SentFile>>,
    /// The instruction block exactly as the first request held it
    /// (`api-request-blob`), when the record keeps request parts.
    pub(crate) instruction_block: Option<String>,
    /// The `StructuredOutput` tool's `input_schema` the model was given.
    pub(crate) structured_schema: Option<Value>,
    /// SHA-256 of what the first request held before the prompt: the first
    /// user message's blocks before the prompt's, each `{"text", "type"}`,
    /// as compact JSON (the record's `api-request-blob`).
    pub(crate) context_sha: Option<String>,
    /// The record keeps the request's parts (`api-request-blob`).
    pub(crate) request_kept: bool,
    /// The system prompt's text blocks of the first request (`api-request-shape`).
    pub(crate) system: Option<Vec<String>>,
    /// The commit `git log` showed at the start (`gitStatus`, abbreviated).
    pub(crate) git_head: Option<String>,
    /// Summed over the record's responses (each message id once).
    pub(crate) tokens: Option<Tokens>,
    /// The calls of the shell and the file tools that write, each once,
    /// with only the fields the edit check reads.
    pub(crate) tool_uses: Vec<ToolUse>,
    /// Every hook run the record shows, in order.
    pub(crate) hook_runs: Vec<HookRun>,
    /// The agent job cut the record down (its last line says how).
    pub(crate) redaction: Option<crate::agent::redaction::Redaction>,
    pub(crate) warnings: Vec<String>,
}

/// Reads a JSON file of the agent home, contained in it.
fn read(path: &Path, home: &Path, max: u64) -> Result<Vec<u8>, String> {
    let real_home = fs::canonicalize(home).unwrap_or_else(|_| home.to_path_buf());
    crate::workspace::read_contained(path, &[&real_home], max)
        .map_err(|why| why.why(&path.display().to_string()))
}

/// The execution file, if the agent home has one.
pub(crate) fn execution(home: &Path) -> Result<Option<Execution>, String> {
    let path = home.join(EXECUTION_FILE);
    if fs::symlink_metadata(&path).is_err() {
        return Ok(None);
    }
    let bytes = read(&path, home, limits::EXECUTION_BYTES)?;
    let value: Value = serde_json::from_slice(&bytes).map_err(|e| {
        format!("`{EXECUTION_FILE}` in agent-home is not JSON ({e}): upload the action's execution_file as it wrote it")
    })?;
    let Value::Array(messages) = value else {
        return Err(format!(
            "`{EXECUTION_FILE}` in agent-home is not a JSON array of SDK messages: upload the action's execution_file as it wrote it"
        ));
    };
    let mut e = Execution::default();
    for m in &messages {
        match (m["type"].as_str(), m["subtype"].as_str()) {
            (Some("system"), Some("init")) => e.inits += 1,
            (Some("result"), _) => e.results += 1,
            _ => {}
        }
        match (m["type"].as_str(), m["subtype"].as_str()) {
            (Some("system"), Some("init")) if e.session_id.is_none() => {
                e.session_id = str_of(&m["session_id"]);
                e.cwd = str_of(&m["cwd"]);
                e.model = str_of(&m["model"]);
                e.version = str_of(&m["claude_code_version"]);
                e.permission_mode = str_of(&m["permissionMode"]);
                e.tools = strings(&m["tools"]);
                e.mcp_servers = m["mcp_servers"]
                    .as_array()
                    .map(|a| a.iter().filter_map(|s| str_of(&s["name"])).collect())
                    .unwrap_or_default();
            }
            (Some("system"), Some("compact_boundary")) => e.compactions += 1,
            (Some("result"), _) => e.result = Some(m.clone()),
            _ => {}
        }
    }
    Ok(Some(e))
}

fn str_of(v: &Value) -> Option<String> {
    v.as_str().map(str::to_string)
}

fn strings(v: &Value) -> Vec<String> {
    v.as_array()
        .map(|a| a.iter().filter_map(str_of).collect())
        .unwrap_or_default()
}

/// Every project record in the agent home.
pub(crate) fn candidates(home: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    for projects in [home.join(".claude/projects"), home.join("projects")] {
        let Ok(dirs) = fs::read_dir(&projects) else {
            continue;
        };
        let mut dirs: Vec<PathBuf> = dirs
            .flatten()
            .take(limits::RECORD_FOLDER_ENTRIES)
            .map(|e| e.path())
            .collect();
        dirs.sort();
        for dir in dirs {
            let Ok(files) = fs::read_dir(&dir) else {
                continue;
            };
            let mut files: Vec<PathBuf> = files
                .flatten()
                .take(limits::RECORD_FOLDER_ENTRIES)
                .map(|e| e.path())
                .filter(|p| p.extension().is_some_and(|x| x == "jsonl") && p.is_file())
                .collect();
            files.sort();
            out.extend(files);
        }
    }
    out
}

/// Anthropic's usage, normalized: `input` counts cache reads and writes.
pub(crate) fn tokens_of(usage: &Value) -> Option<Tokens> {
    let n = |k: &str| usage[k].as_u64();
    let input = n("input_tokens")?;
    let read = n("cache_read_input_tokens").unwrap_or(0);
    let write = n("cache_creation_input_tokens").unwrap_or(0);
    let output = n("output_tokens").unwrap_or(0);
    // Saturating: a count near u64::MAX is over any budget, never wrapped under it.
    let input = input.saturating_add(read).saturating_add(write);
    Some(Tokens {
        input,
        cached_input: read,
        cache_write_input: write,
        output,
        reasoning: usage["output_tokens_details"]["thinking_tokens"]
            .as_u64()
            .unwrap_or(0),
        total: input.saturating_add(output),
    })
}

fn add(a: &mut Tokens, b: &Tokens) {
    a.input = a.input.saturating_add(b.input);
    a.cached_input = a.cached_input.saturating_add(b.cached_input);
    a.cache_write_input = a.cache_write_input.saturating_add(b.cache_write_input);
    a.output = a.output.saturating_add(b.output);
    a.reasoning = a.reasoning.saturating_add(b.reasoning);
    a.total = a.total.saturating_add(b.total);
}

/// The text of a user message: a string, or its text blocks when it has
/// nothing else (a tool result is not a prompt).
fn user_text(content: &Value) -> Option<String> {
    match content {
        Value::String(s) => Some(s.clone()),
        Value::Array(blocks) if !blocks.is_empty() => {
            if blocks.iter().all(|b| b["type"] == "text") {
                blocks.last().and_then(|b| str_of(&b["text"]))
            } else {
                None
            }
        }
        _ => None,
    }
}

/// A user line that is Claude Code's own, not a prompt: a slash command and
/// its output, a meta message.
fn harness_text(line: &Value, text: &str) -> bool {
    line["isMeta"] == true
        || line["isCompactSummary"] == true
        || text.starts_with("<command-name>")
        || text.starts_with("<local-command-")
        || text.starts_with("<command-message>")
}

/// Reads a project record as a stream: one line held at a time, each parsed
/// and reduced to what the checks need, the whole file hashed as it passes.
pub(crate) fn read_session(path: &Path, home: &Path) -> Result<Session, String> {
    let mut record = crate::agent::stream::Record::open(path, home, limits::RECORD_BYTES)?;
    let mut r = SessionReader::default();
    let mut line = Vec::new();
    let mut n = 0;
    loop {
        let kind = match record.line(&mut line, limits::RECORD_LINE_BYTES) {
            Ok(Some(kind)) => kind,
            Ok(None) => break,
            Err(e) => return Err(record.why(path, &e)),
        };
        if n >= limits::RECORD_LINES {
            return Err(format!(
                "the project record has more than {} lines, more than a review's; the receipt reads none of it: upload only this run's record",
                limits::RECORD_LINES
            ));
        }
        if kind == crate::agent::stream::Line::Long {
            r.long(n);
        } else if let Some(v) = r.parse(n, &String::from_utf8_lossy(&line)) {
            r.line(n, &v);
        }
        n += 1;
    }
    r.s.path = path.to_path_buf();
    r.s.sha256 = record.sha256();
    Ok(r.finish())
}

/// What reading a project record carries from one line to the next, beside
/// the session it fills.
#[derive(Default)]
struct SessionReader {
    s: Session,
    /// Items recorded before the prompt of the turn they go with.
    pending: Vec<Item>,
    /// A compaction began and its summary has not been read yet.
    compaction_pending: bool,
    /// The request parts the record keeps (`api-request-blob`).
    blobs: Vec<Blob>,
    /// The responses already counted in `tokens`.
    seen_ids: std::collections::HashSet<String>,
    tokens: Option<Tokens>,
    /// Lines that are not JSON.
    bad: usize,
    /// The text of each compaction summary and harness message, by its hash:
    /// the request may hold it with a line end added (see `name_sent_forms`).
    item_texts: std::collections::HashMap<String, String>,
    /// The tool calls whose result was an error.
    failed_ids: std::collections::HashSet<String>,
    /// Where each kept tool call is, by its id: a call written again is
    /// kept once.
    tool_at: std::collections::HashMap<String, usize>,
}

impl SessionReader {
    /// A line longer than the bound: skipped, said.
    fn long(&mut self, n: usize) {
        self.s.warnings.push(format!(
            "line {} of the project record holds more than {} MiB and was skipped",
            n + 1,
            limits::RECORD_LINE_BYTES >> 20
        ));
    }

    /// A line as JSON, or `None` (and a warning) for one that is blank, too
    /// long or not JSON.
    fn parse(&mut self, n: usize, line: &str) -> Option<Value> {
        if line.trim().is_empty() {
            return None;
        }
        let Ok(v) = serde_json::from_str::<Value>(line) else {
            self.bad += 1;
            self.s.unread_lines += 1;
            if self.bad == 1 {
                self.s.warnings.push(format!(
                    "line {} of the project record is not JSON and was skipped",
                    n + 1
                ));
            }
            return None;
        };
        Some(v)
    }

    /// One line of the record: the session's facts any line may carry, then
    /// what its type adds.
    fn line(&mut self, n: usize, v: &Value) {
        let s = &mut self.s;
        if s.session_id.is_none() {
            s.session_id = str_of(&v["sessionId"]);
        }
        if s.cwd.is_none() {
            s.cwd = str_of(&v["cwd"]);
        }
        if let Some(ver) = v["version"].as_str() {
            s.version = Some(ver.to_string());
            if s.versions.len() < 16 {
                s.versions.insert(ver.to_string());
            }
        }
        match v["type"].as_str().unwrap_or("") {
            "user" => self.user(v),
            "system" if v["subtype"] == "compact_boundary" => self.compact_boundary(),
            "attachment" => self.attachment(&v["attachment"]),
            "assistant" => self.assistant(n, &v["message"]),
            "api-request-blob" => {
                // A part with no text (tool results) names nothing sent.
                if let Some(blob) = slim_blob(&v["message"]) {
                    self.blobs.push(blob);
                }
            }
            crate::agent::redaction::MARKER => {
                self.s.redaction = Some(crate::agent::redaction::Redaction::from_payload(
                    &v["payload"],
                ));
            }
            "api-request-shape" => self.request_shape(&v["shape"]),
            _ => {}
        }
    }

    /// A user line: a failed tool result, a compaction summary, text Claude
    /// Code adds as the user's, or a prompt that starts a turn.
    fn user(&mut self, v: &Value) {
        let content = &v["message"]["content"];
        for b in content.as_array().into_iter().flatten() {
            if b["type"] == "tool_result" && b["is_error"] == true {
                if let Some(id) = b["tool_use_id"].as_str() {
                    self.failed_ids.insert(id.to_string());
                }
            }
        }
        if v["isCompactSummary"] == true {
            self.compaction_summary(content);
            return;
        }
        let Some(prompt) = user_text(content) else {
            return;
        };
        if harness_text(v, &prompt) {
            self.harness_message(prompt);
            return;
        }
        if self.s.permission_mode.is_none() {
            self.s.permission_mode = str_of(&v["permissionMode"]);
        }
        let mut turn = RecordTurn {
            prompt: Some(prompt),
            ..RecordTurn::default()
        };
        turn.items.append(&mut self.pending);
        self.s.turns.push(turn);
    }

    /// A compaction's summary, which goes with the next turn.
    fn compaction_summary(&mut self, content: &Value) {
        // A redacted record keeps the line and drops its text.
        let item = match user_text(content) {
            Some(summary) => {
                self.item_texts
                    .insert(sha256_hex(summary.as_bytes()), summary.clone());
                Item {
                    kind: ItemKind::CompactionSummary,
                    sha256: Some(sha256_hex(summary.as_bytes())),
                    bytes: summary.len(),
                }
            }
            None => Item {
                kind: ItemKind::CompactionSummary,
                sha256: None,
                bytes: 0,
            },
        };
        self.pending.push(item);
        self.compaction_pending = false;
    }

    /// Text Claude Code adds as the user's ("[structured-output-enforce] You
    /// MUST call the StructuredOutput tool", a slash command and its output):
    /// model-visible, named.
    fn harness_message(&mut self, text: String) {
        self.item_texts
            .insert(sha256_hex(text.as_bytes()), text.clone());
        let item = Item {
            kind: ItemKind::User,
            sha256: Some(sha256_hex(text.as_bytes())),
            bytes: text.len(),
        };
        match self.s.turns.last_mut() {
            Some(turn) if self.pending.is_empty() => turn.items.push(item),
            _ => self.pending.push(item),
        }
    }

    /// A compaction begins: one whose summary never came is an item without
    /// text.
    fn compact_boundary(&mut self) {
        self.close_compaction();
        self.compaction_pending = true;
    }

    /// A compaction still waiting for its summary is named without its text.
    fn close_compaction(&mut self) {
        if self.compaction_pending {
            self.pending.push(Item {
                kind: ItemKind::CompactionSummary,
                sha256: None,
                bytes: 0,
            });
        }
    }

    /// An attachment: the instruction files sent, a hook's added text or its
    /// run, the git status, the structured output.
    fn attachment(&mut self, a: &Value) {
        let s = &mut self.s;
        match a["type"].as_str().unwrap_or("") {
            "instructions" if s.instructions.is_none() => {
                s.instructions = a["files"].as_array().map(|files| {
                    files
                        .iter()
                        .map(|f| SentFile {
                            path: str_of(&f["path"]).unwrap_or_default(),
                            kind: str_of(&f["type"]).unwrap_or_default(),
                            content: str_of(&f["content"]).unwrap_or_default(),
                        })
                        .collect()
                });
            }
            "hook_additional_context" => self.hook_context(a),
            "session_context" if s.git_head.is_none() => {
                if let Some(status) = a["context"]["gitStatus"].as_str() {
                    s.git_head = head_of(status);
                }
            }
            "structured_output" => {
                if let Some(turn) = s.turns.last_mut() {
                    turn.structured_output = Some(a["data"].clone());
                }
            }
            kind if kind.starts_with("hook_") && s.hook_runs.len() < limits::HOOK_RUNS => {
                s.hook_runs.push(HookRun {
                    kind: kind.to_string(),
                    event: str_of(&a["hookEvent"]).filter(|e| e.len() <= limits::HOOK_EVENT_BYTES),
                    tool_use_id: str_of(&a["toolUseID"]),
                    command: str_of(&a["command"]),
                });
            }
            _ => {}
        }
    }

    /// A hook's added text, placed with the turn whose request holds it.
    fn hook_context(&mut self, a: &Value) {
        let texts: Vec<String> = match &a["content"] {
            Value::Array(a) => a.iter().filter_map(str_of).collect(),
            Value::String(t) => vec![t.clone()],
            _ => vec![],
        };
        // An event is a short name (`SessionStart`, `PreToolUse:Bash`): a
        // longer one is not kept, nor copied into each of the hook's texts.
        let event = str_of(&a["hookEvent"])
            .or_else(|| str_of(&a["hookName"]))
            .filter(|e| e.len() <= limits::HOOK_EVENT_BYTES);
        for t in texts {
            let item = |before_prompt| Item {
                kind: ItemKind::Hook {
                    event: event.clone(),
                    before_prompt,
                },
                sha256: Some(sha256_hex(t.as_bytes())),
                bytes: t.len(),
            };
            // Where the request has it: a `SessionStart` hook's text (or any
            // recorded before the turn's prompt) goes with the next turn; a
            // `UserPromptSubmit` hook's, recorded after the prompt it
            // answers, is sent in that prompt's message before the prompt
            // (measured with 2.1.300 and 2.1.332); any other event's comes
            // after the prompt.
            match self.s.turns.last_mut() {
                Some(turn)
                    if self.pending.is_empty() && event.as_deref() != Some("SessionStart") =>
                {
                    turn.items
                        .push(item(event.as_deref() == Some("UserPromptSubmit")))
                }
                _ => self.pending.push(item(true)),
            }
        }
    }

    /// An assistant line: the turn's model, its tool calls (the last
    /// `StructuredOutput` one is the answer), and its tokens, each response
    /// counted once.
    fn assistant(&mut self, n: usize, m: &Value) {
        if let Some(turn) = self.s.turns.last_mut() {
            if let Some(model) = m["model"].as_str().filter(|m| *m != "<synthetic>") {
                turn.model = Some(model.to_string());
            }
            for block in m["content"].as_array().into_iter().flatten() {
                if block["type"] != "tool_use" {
                    continue;
                }
                let name = str_of(&block["name"]).unwrap_or_default();
                if name == "StructuredOutput" {
                    turn.answer = Some(Call {
                        id: str_of(&block["id"]),
                        input: block["input"].clone(),
                    });
                }
                if EDIT_TOOLS.contains(&name.as_str()) {
                    let call = ToolUse {
                        id: str_of(&block["id"]),
                        name,
                        input: slim_input(&block["input"]),
                        failed: false,
                    };
                    keep_tool_use(&mut self.s.tool_uses, &mut self.tool_at, call);
                }
            }
        }
        let id = str_of(&m["id"]).unwrap_or_else(|| format!("line {n}"));
        if !self.seen_ids.contains(&id) {
            if let Some(t) = tokens_of(&m["usage"]) {
                add(self.tokens.get_or_insert_with(Tokens::default), &t);
                self.seen_ids.insert(id);
            }
        }
    }

    /// The request's shape: the system prompt's text and the
    /// `StructuredOutput` tool's schema.
    fn request_shape(&mut self, shape: &Value) {
        let s = &mut self.s;
        if s.system.is_none() {
            s.system = shape["system"]
                .as_array()
                .map(|blocks| blocks.iter().filter_map(|b| str_of(&b["text"])).collect());
        }
        for tool in shape["tools"].as_array().into_iter().flatten() {
            if tool["name"] == "StructuredOutput" {
                s.structured_schema = Some(tool["input_schema"].clone());
            }
        }
    }

    /// The session once every line is read: what is left goes with the last
    /// turn, and the request parts say what reached the model.
    fn finish(mut self) -> Session {
        self.close_compaction();
        // What came after the last prompt (a compaction with no turn after it)
        // belongs to the last turn.
        if let Some(turn) = self.s.turns.last_mut() {
            turn.items.append(&mut self.pending);
        }
        if self.bad > 1 {
            self.s.warnings.push(format!(
                "{} lines of the project record are not JSON and were skipped",
                self.bad
            ));
        }
        self.name_sent_forms();
        let (s, blobs) = (&mut self.s, &self.blobs);
        s.request_kept = !blobs.is_empty();
        if let Some(prompt) = s.turns.first().and_then(|t| t.prompt.as_deref()) {
            s.context_sha = blobs.iter().find_map(|m| m.context_before(prompt));
        }
        s.instruction_block = blobs
            .iter()
            .flat_map(|m| &m.texts)
            .find(|t| t.starts_with(super::chain::HEADER))
            .cloned();
        for t in &mut s.tool_uses {
            t.failed = t.id.as_ref().is_some_and(|id| self.failed_ids.contains(id));
        }
        s.tokens = self.tokens;
        self.s
    }

    /// Claude Code joins consecutive user messages into one, ending each text
    /// with a line end: the request parts the record keeps say which form
    /// reached the model, and the item names that one.
    fn name_sent_forms(&mut self) {
        let sent: std::collections::HashSet<&str> = self
            .blobs
            .iter()
            .flat_map(|m| &m.texts)
            .map(String::as_str)
            .collect();
        for item in self.s.turns.iter_mut().flat_map(|t| t.items.iter_mut()) {
            let Some(text) = item.sha256.as_ref().and_then(|h| self.item_texts.get(h)) else {
                continue;
            };
            let with_end = format!("{text}\n");
            if !sent.contains(text.as_str()) && sent.contains(with_end.as_str()) {
                item.sha256 = Some(sha256_hex(with_end.as_bytes()));
                item.bytes = with_end.len();
            }
        }
    }
}

/// The tools the edit check looks at (`check::check_edits`): the shell and
/// the file tools that write.
const EDIT_TOOLS: [&str; 5] = ["Bash", "Write", "Edit", "MultiEdit", "NotebookEdit"];

/// Keeps a tool call, once: the same call (id, name and input) written
/// again is not kept again, so a record that repeats its lines does not
/// grow the receipt's memory.
fn keep_tool_use(
    kept: &mut Vec<ToolUse>,
    at: &mut std::collections::HashMap<String, usize>,
    call: ToolUse,
) {
    if let Some(id) = &call.id {
        if let Some(&i) = at.get(id) {
            if kept[i].name == call.name && kept[i].input == call.input {
                return;
            }
        }
        at.insert(id.clone(), kept.len());
    }
    kept.push(call);
}

/// What the edit check reads of a tool call's input (the command, the path
/// written): a `Write`'s content and any other field are not kept, so memory
/// does not grow with what the agent wrote.
fn slim_input(input: &Value) -> Value {
    let mut out = serde_json::Map::new();
    for key in ["command", "file_path", "notebook_path"] {
        if let Some(v) = input.get(key) {
            out.insert(key.to_string(), v.clone());
        }
    }
    Value::Object(out)
}

/// What the request parts are read for (the text blocks sent, and each
/// block's `type` and `text` before the prompt): a tool result's output and
/// any other field are not kept.
fn slim_blob(message: &Value) -> Option<Blob> {
    let blocks = message["content"].as_array()?;
    if !blocks.iter().any(|b| b["text"].is_string()) {
        return None;
    }
    let (last, before) = blocks.split_last()?;
    let mut hash = crate::digest::HashWriter::default();
    crate::digest::write_canonical_blocks(&mut hash, before);
    Some(Blob {
        user: message["role"] == "user",
        last_text: (last["type"] == "text")
            .then(|| last["text"].as_str().map(str::to_string))
            .flatten(),
        before_sha: hash.hex(),
        texts: blocks
            .iter()
            .filter_map(|b| b["text"].as_str().map(str::to_string))
            .collect(),
    })
}

/// What a request part the record kept (`api-request-blob`) says: its texts,
/// and the hash of its blocks before the last, kept as it is read (the
/// blocks themselves, held as values, took hundreds of bytes for each `{}`).
struct Blob {
    user: bool,
    /// The last block's text, when it is a text block.
    last_text: Option<String>,
    /// The canonical blocks before the last (`digest::write_canonical_blocks`).
    before_sha: String,
    texts: Vec<String>,
}

impl Blob {
    /// The hash of a user message's blocks before `prompt`, when its last
    /// text block is the prompt.
    fn context_before(&self, prompt: &str) -> Option<String> {
        (self.user && self.last_text.as_deref() == Some(prompt)).then(|| self.before_sha.clone())
    }
}

/// The abbreviated commit at the top of `Recent commits:` in the git status
/// Claude Code gives the model.
fn head_of(status: &str) -> Option<String> {
    let rest = status.split("Recent commits:\n").nth(1)?;
    let word = rest.lines().next()?.split_whitespace().next()?;
    (word.len() >= 7 && word.chars().all(|c| c.is_ascii_hexdigit())).then(|| word.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_near_the_top_saturate_over_any_budget_never_wrap_under_it() {
        let t = tokens_of(&serde_json::json!({
            "input_tokens": u64::MAX, "cache_read_input_tokens": 2, "output_tokens": 1
        }))
        .unwrap();
        assert_eq!((t.input, t.total), (u64::MAX, u64::MAX));
        let mut sum = t.clone();
        add(&mut sum, &t);
        assert_eq!(sum.total, u64::MAX);
    }

    #[test]
    fn anthropic_usage_is_normalized_with_the_cache_counted_in() {
        let t = tokens_of(&serde_json::json!({
            "input_tokens": 100, "cache_read_input_tokens": 20,
            "cache_creation_input_tokens": 5, "output_tokens": 30,
            "output_tokens_details": {"thinking_tokens": 4}
        }))
        .unwrap();
        assert_eq!((t.input, t.cached_input, t.cache_write_input), (125, 20, 5));
        assert_eq!((t.output, t.reasoning, t.total), (30, 4, 155));
    }

    #[test]
    fn the_head_commit_is_read_from_the_git_status() {
        assert_eq!(
            head_of("Status:\n?? x\n\nRecent commits:\n4911079 x\nabc1234 y").as_deref(),
            Some("4911079")
        );
        assert_eq!(head_of("Recent commits:\n(none)"), None);
    }

    #[test]
    fn hooks_compactions_and_turns_are_read_in_order() {
        let dir = tempfile::tempdir().unwrap();
        let lines = [
            r#"{"type":"attachment","attachment":{"type":"hook_additional_context","content":["START"],"hookEvent":"SessionStart"},"sessionId":"s","cwd":"/w","version":"2.1.300"}"#,
            r#"{"type":"user","message":{"role":"user","content":"Review"},"permissionMode":"auto"}"#,
            r#"{"type":"attachment","attachment":{"type":"hook_additional_context","content":["PROMPT"],"hookEvent":"UserPromptSubmit"}}"#,
            r#"{"type":"assistant","message":{"id":"m1","model":"claude-opus-5-5","content":[{"type":"tool_use","name":"StructuredOutput","input":{"ok":true}}],"usage":{"input_tokens":1,"output_tokens":2}}}"#,
            r#"{"type":"user","message":{"role":"user","content":[{"type":"tool_result","content":"ok"}]}}"#,
            r#"{"type":"system","subtype":"compact_boundary"}"#,
            r#"{"type":"user","isCompactSummary":true,"message":{"role":"user","content":"SUMMARY"}}"#,
            r#"{"type":"user","message":{"role":"user","content":"<command-name>/compact</command-name>"}}"#,
            "not json",
            r#"{"type":"user","message":{"role":"user","content":"Again"}}"#,
            r#"{"type":"assistant","message":{"id":"m2","model":"claude-sonnet-4-5","content":[],"usage":{"input_tokens":1,"output_tokens":2}}}"#,
        ];
        let path = dir.path().join("s.jsonl");
        fs::write(&path, lines.join("\n")).unwrap();
        let s = read_session(&path, dir.path()).unwrap();
        assert_eq!(s.turns.len(), 2);
        assert_eq!(s.turns[0].prompt.as_deref(), Some("Review"));
        let kinds: Vec<&ItemKind> = s.turns[0].items.iter().map(|i| &i.kind).collect();
        assert_eq!(
            kinds,
            [
                &ItemKind::Hook {
                    event: Some("SessionStart".into()),
                    before_prompt: true
                },
                &ItemKind::Hook {
                    event: Some("UserPromptSubmit".into()),
                    before_prompt: true
                }
            ]
        );
        assert_eq!(
            s.turns[0].answer.as_ref().map(|a| &a.input),
            Some(&serde_json::json!({"ok": true}))
        );
        assert_eq!(s.turns[0].structured_output, None);
        assert_eq!(s.turns[1].items[0].kind, ItemKind::CompactionSummary);
        assert_eq!(
            s.turns[1].items[0].sha256.as_deref(),
            Some(sha256_hex(b"SUMMARY").as_str())
        );
        assert_eq!(s.turns[1].model.as_deref(), Some("claude-sonnet-4-5"));
        assert_eq!(s.tokens.as_ref().unwrap().total, 6);
        assert_eq!(s.version.as_deref(), Some("2.1.300"));
        assert!(s.warnings[0].contains("line 9"));
    }

    /// A record that writes a tool call again (or repeats its lines) keeps
    /// it once, with only what the edit check reads; a request part without
    /// text is not kept; the whole file is hashed.
    #[test]
    fn tool_calls_are_kept_once_with_only_what_the_checks_read() {
        let dir = tempfile::tempdir().unwrap();
        let write = r#"{"type":"assistant","message":{"id":"m1","content":[{"type":"tool_use","id":"t1","name":"Write","input":{"file_path":"/w/CLAUDE.md","content":"BIG"}},{"type":"tool_use","id":"t2","name":"Read","input":{"file_path":"/w/a"}}]}}"#;
        let blob = r#"{"type":"api-request-blob","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"t1","content":"BIG"}]}}"#;
        let mut lines = vec![r#"{"type":"user","message":{"role":"user","content":"Review"}}"#];
        lines.extend([write, blob, write, blob]);
        lines.push(r#"{"type":"assistant","message":{"id":"m2","content":[{"type":"tool_use","id":"t3","name":"Bash","input":{"command":"echo x >> a","description":"d"}}]}}"#);
        let path = dir.path().join("s.jsonl");
        let text = lines.join("\n");
        fs::write(&path, &text).unwrap();
        let s = read_session(&path, dir.path()).unwrap();
        let kept: Vec<(&str, &Value)> = s
            .tool_uses
            .iter()
            .map(|t| (t.name.as_str(), &t.input))
            .collect();
        assert_eq!(
            kept,
            [
                ("Write", &serde_json::json!({"file_path": "/w/CLAUDE.md"})),
                ("Bash", &serde_json::json!({"command": "echo x >> a"})),
            ]
        );
        assert!(!s.request_kept, "a part with no text names nothing sent");
        assert_eq!(s.sha256, sha256_hex(text.as_bytes()));
    }

    /// Measured with 2.1.300 and 2.1.332: a PreToolUse hook that returns
    /// `updatedInput` leaves the model's call as it was sent, a `hook_success`
    /// line naming the call and the command, and the hook's input as the
    /// `structured_output` attachment.
    #[test]
    fn the_models_answer_is_its_last_call_and_a_hook_on_it_is_read() {
        let dir = tempfile::tempdir().unwrap();
        let lines = [
            r#"{"type":"user","message":{"role":"user","content":"Review"}}"#,
            r#"{"type":"assistant","message":{"id":"m1","content":[{"type":"tool_use","id":"t1","name":"StructuredOutput","input":{"ok":"no"}}]}}"#,
            r#"{"type":"user","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"t1","is_error":true}]}}"#,
            r#"{"type":"assistant","message":{"id":"m2","content":[{"type":"tool_use","id":"t2","name":"StructuredOutput","input":{"ok":false}}]}}"#,
            r#"{"type":"attachment","attachment":{"type":"hook_success","hookName":"PreToolUse:StructuredOutput","toolUseID":"t2","hookEvent":"PreToolUse","command":"sh scripts/guard.sh","exitCode":0}}"#,
            r#"{"type":"attachment","attachment":{"type":"structured_output","data":{"ok":true},"toolUseID":"t2"}}"#,
        ];
        let path = dir.path().join("s.jsonl");
        fs::write(&path, lines.join("\n")).unwrap();
        let s = read_session(&path, dir.path()).unwrap();
        let turn = &s.turns[0];
        assert_eq!(
            turn.answer,
            Some(Call {
                id: Some("t2".into()),
                input: serde_json::json!({"ok": false})
            })
        );
        assert_eq!(
            turn.structured_output,
            Some(serde_json::json!({"ok": true}))
        );
        assert_eq!(
            s.hook_runs,
            [HookRun {
                kind: "hook_success".into(),
                event: Some("PreToolUse".into()),
                tool_use_id: Some("t2".into()),
                command: Some("sh scripts/guard.sh".into()),
            }]
        );
    }
}
