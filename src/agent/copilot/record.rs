//! Copilot CLI's session record, `~/.copilot/session-state/<id>/events.jsonl`,
//! read line by line.
//!
//! Each line is `{type, data, id, timestamp, parentId}`. Read here:
//! `session.start` (`copilotVersion`: the CLI that ran; `selectedModel` from
//! 1.0.102; `context{cwd, gitRoot, headCommit}`), `session.resume`,
//! `session.model_change`, `user.message` (`content`: the prompt as given;
//! `transformedContent`: the user text as sent), `system.message` (the whole
//! system prompt as sent, byte for byte), `assistant.message` (`model`,
//! `content`, `toolRequests`), `session.usage_record` (1.0.102, one a call),
//! `session.shutdown` (`modelMetrics`, the session's totals so far),
//! `hook.start`, and the redaction marker. Every other type is skipped.
//! 1.0.80 writes `system.message` before `user.message`, 1.0.102 after it.
//!
//! Once a tool reads a file in a folder below the root, Copilot CLI sends
//! that folder's instruction files (`AGENTS.md`, `CLAUDE.md`, `GEMINI.md`,
//! `.github/copilot-instructions.md`, `.github/instructions/`, and in 1.0.102
//! `.claude/rules/`) as a user message of `<system_reminder>`s. 1.0.80
//! records it as a `user.message` with `source: "instruction-discovery"`,
//! 1.0.102 as a `system.notification` of kind `instruction_discovered` per
//! file: neither is a prompt of a turn ([`Record::discovered`]).

use std::io::{BufRead, Read};
use std::path::{Path, PathBuf};

use serde_json::Value;
use sha2::{Digest, Sha256};

use crate::agent::Tokens;
use crate::limits;

/// One prompt and what answered it.
#[derive(Clone, Debug, Default)]
pub(crate) struct RecordTurn {
    /// The prompt as given (`-p`), and the user text as sent.
    pub(crate) prompt: String,
    pub(crate) sent: Option<String>,
    /// The system prompt the turn's requests carried.
    /// Shared among the turns that carried it: one copy, however many turns.
    pub(crate) system: Option<std::sync::Arc<str>>,
    /// The model of each answer, in order.
    pub(crate) models: Vec<String>,
    /// The last non-empty answer.
    pub(crate) answer: Option<String>,
    /// Each hook that ran for the turn (`hookType`).
    pub(crate) hooks: Vec<String>,
}

/// A tool the agent called: its name and arguments.
#[derive(Clone, Debug, Default)]
pub(crate) struct ToolCall {
    pub(crate) name: String,
    pub(crate) args: Value,
}

#[derive(Clone, Debug, Default)]
pub(crate) struct Record {
    pub(crate) path: PathBuf,
    pub(crate) sha256: String,
    pub(crate) session_id: Option<String>,
    /// `copilotVersion` of the last start or resume.
    pub(crate) version: Option<String>,
    pub(crate) cwd: Option<String>,
    pub(crate) git_root: Option<String>,
    pub(crate) head_commit: Option<String>,
    pub(crate) turns: Vec<RecordTurn>,
    pub(crate) tool_calls: Vec<ToolCall>,
    /// Summed `session.usage_record`s (1.0.102).
    pub(crate) usage_records: Option<Tokens>,
    /// The last `session.shutdown`'s totals (both releases).
    pub(crate) shutdown: Option<Tokens>,
    pub(crate) resumes: usize,
    /// The instruction files sent once a tool read a file in their folder,
    /// as the record names them (relative to the git root), in order.
    pub(crate) discovered: Vec<String>,
    pub(crate) redaction: Option<crate::agent::redaction::Redaction>,
    pub(crate) warnings: Vec<String>,
    /// Lines that are not JSON, or too long: what they held is unknown.
    pub(crate) unread_lines: usize,
    /// The system prompt of the line being read, before its turn starts (1.0.80).
    system: Option<std::sync::Arc<str>>,
    /// A hook that ran before its turn's user message.
    pending_hooks: Vec<String>,
}

impl Record {
    /// The turn whose answer is the output: the last that has one.
    pub(crate) fn output_turn(&self) -> Option<usize> {
        self.turns.iter().rposition(|t| t.answer.is_some())
    }

    /// The tokens: the last shutdown's totals (they count every run of a
    /// resumed session) or the calls' records (1.0.102), whichever is larger:
    /// a run stopped before its shutdown leaves the last totals short.
    pub(crate) fn tokens(&self) -> Option<Tokens> {
        match (&self.shutdown, &self.usage_records) {
            (Some(s), Some(u)) if u.total > s.total => Some(u.clone()),
            (Some(s), _) => Some(s.clone()),
            (None, u) => u.clone(),
        }
    }

    fn line(&mut self, v: &Value) {
        let d = &v["data"];
        let s = |k: &str| d[k].as_str().map(str::to_string);
        match v["type"].as_str().unwrap_or_default() {
            crate::agent::redaction::MARKER => {
                self.redaction = Some(crate::agent::redaction::Redaction::from_payload(
                    &v["payload"],
                ));
            }
            "session.start" | "session.resume" => {
                if v["type"] == "session.resume" {
                    self.resumes += 1;
                }
                self.session_id = s("sessionId").or(self.session_id.take());
                self.version = s("copilotVersion").or(self.version.take());
                let ctx = &d["context"];
                let c = |k: &str| ctx[k].as_str().map(str::to_string);
                self.cwd = c("cwd").or(self.cwd.take());
                self.git_root = c("gitRoot").or(self.git_root.take());
                self.head_commit = c("headCommit").or(self.head_commit.take());
            }
            "system.message" => {
                let text: Option<std::sync::Arc<str>> = s("content").map(Into::into);
                if let Some(t) = self.turns.last_mut().filter(|t| t.models.is_empty()) {
                    t.system = text.clone();
                }
                self.system = text;
            }
            "user.message" if d["source"] == "instruction-discovery" => {
                self.discover(d["content"].as_str().unwrap_or_default());
            }
            "system.notification" if d["kind"]["type"] == "instruction_discovered" => {
                if let Some(path) = d["kind"]["sourcePath"].as_str() {
                    self.add_discovered(path);
                }
            }
            "user.message" => {
                let hooks = std::mem::take(&mut self.pending_hooks);
                self.turns.push(RecordTurn {
                    prompt: s("content").unwrap_or_default(),
                    sent: s("transformedContent"),
                    system: self.system.clone(),
                    hooks,
                    ..RecordTurn::default()
                });
            }
            "hook.start" => {
                let kind = s("hookType").unwrap_or_else(|| "hook".into());
                match self.turns.last_mut().filter(|t| t.models.is_empty()) {
                    Some(t) => t.hooks.push(kind),
                    None => self.pending_hooks.push(kind),
                }
            }
            "assistant.message" => self.answer(d),
            "session.usage_record" => {
                let t = tokens(&d["usage"]);
                let sum = self.usage_records.get_or_insert_with(Tokens::default);
                add(sum, &t);
            }
            "session.shutdown" => {
                let mut total = Tokens::default();
                if let Some(models) = d["modelMetrics"].as_object() {
                    for m in models.values() {
                        add(&mut total, &tokens(&m["usage"]));
                    }
                }
                self.shutdown = Some(total);
            }
            _ => {}
        }
    }

    /// The paths of 1.0.80's `<system_reminder>`s: `Custom instructions from
    /// PATH. Apply these …`.
    fn discover(&mut self, text: &str) {
        const FROM: &str = "Custom instructions from ";
        for line in text.lines() {
            let Some(rest) = line.strip_prefix(FROM) else {
                continue;
            };
            if let Some((path, _)) = rest.split_once(". Apply these") {
                self.add_discovered(path);
            }
        }
    }

    fn add_discovered(&mut self, path: &str) {
        // Bounded: a record names each file once a folder, a few at most.
        if self.discovered.len() < limits::DISCOVERED_FILES
            && !self.discovered.iter().any(|p| p == path)
        {
            self.discovered.push(path.to_string());
        }
    }

    fn answer(&mut self, d: &Value) {
        if let Some(calls) = d["toolRequests"].as_array() {
            for c in calls {
                self.tool_calls.push(ToolCall {
                    name: c["name"].as_str().unwrap_or_default().to_string(),
                    args: c["arguments"].clone(),
                });
            }
        }
        let Some(turn) = self.turns.last_mut() else {
            self.warnings
                .push("the session record holds an answer before any prompt".into());
            return;
        };
        if let Some(m) = d["model"].as_str() {
            turn.models.push(m.to_string());
        }
        if let Some(text) = d["content"].as_str().filter(|t| !t.is_empty()) {
            turn.answer = Some(text.to_string());
        }
    }
}

/// A `usage` object's counts in the neutral meaning: `input` holds the
/// cached reads and writes (Copilot's `inputTokens` already does: they are
/// the OpenAI prompt tokens).
fn tokens(u: &Value) -> Tokens {
    let n = |k: &str| u[k].as_u64().unwrap_or(0);
    let input = n("inputTokens");
    let output = n("outputTokens");
    Tokens {
        input,
        cached_input: n("cacheReadTokens"),
        cache_write_input: n("cacheWriteTokens"),
        output,
        reasoning: n("reasoningTokens"),
        total: input.saturating_add(output),
    }
}

fn add(sum: &mut Tokens, t: &Tokens) {
    sum.input = sum.input.saturating_add(t.input);
    sum.cached_input = sum.cached_input.saturating_add(t.cached_input);
    sum.cache_write_input = sum.cache_write_input.saturating_add(t.cache_write_input);
    sum.output = sum.output.saturating_add(t.output);
    sum.reasoning = sum.reasoning.saturating_add(t.reasoning);
    sum.total = sum.total.saturating_add(t.total);
}

/// Reads one record, which must resolve inside `home`, line by line: at most
/// [`limits::RECORD_BYTES`], [`limits::RECORD_LINE_BYTES`] a line and
/// [`limits::RECORD_LINES`] lines. A line that is not JSON is said, not fatal.
pub(crate) fn read(path: &Path, home: &Path) -> Result<Record, String> {
    let shown = path.display().to_string();
    let real_home = std::fs::canonicalize(home).unwrap_or_else(|_| home.to_path_buf());
    let real =
        std::fs::canonicalize(path).map_err(|e| format!("`{shown}` cannot be read ({e})"))?;
    if !real.starts_with(&real_home) {
        return Err(crate::workspace::Unread::Outside(real).why(&shown));
    }
    let file = crate::workspace::open_regular(&real).map_err(|why| why.why(&shown))?;
    let mut r = parse(
        path,
        std::io::BufReader::new(file.take(limits::RECORD_BYTES + 1)),
    )
    .map_err(|e| format!("`{shown}` cannot be read ({e})"))?;
    if r.1 > limits::RECORD_BYTES {
        return Err(crate::workspace::Unread::TooLarge(limits::RECORD_BYTES).why(&shown));
    }
    r.0.path = path.to_path_buf();
    Ok(r.0)
}

/// The record from a stream; with the bytes read.
pub(crate) fn parse(path: &Path, mut input: impl BufRead) -> std::io::Result<(Record, u64)> {
    let mut r = Record {
        path: path.to_path_buf(),
        ..Record::default()
    };
    let mut hasher = Sha256::new();
    let mut total = 0u64;
    let mut buf = Vec::new();
    let mut n = 0usize;
    // A longer line is skipped and said.
    let line_max = limits::RECORD_LINE_BYTES as u64;
    loop {
        buf.clear();
        let got = (&mut input)
            .take(line_max + 1)
            .read_until(b'\n', &mut buf)?;
        if got == 0 {
            break;
        }
        total += got as u64;
        hasher.update(&buf);
        n += 1;
        if got as u64 > line_max && buf.last() != Some(&b'\n') {
            // Too long: the rest of the line is hashed and skipped.
            total += skip_line(&mut input, &mut hasher)?;
            r.unread_lines += 1;
            r.warnings.push(format!(
                "line {n} of the session record is longer than {} MiB, and was skipped",
                line_max >> 20
            ));
            continue;
        }
        if n > limits::RECORD_LINES {
            r.unread_lines += 1;
            r.warnings.push(format!(
                "the session record has more than {} lines, more than a review's; the rest was not read",
                limits::RECORD_LINES
            ));
            total += drain(&mut input, &mut hasher)?;
            break;
        }
        let line = String::from_utf8_lossy(&buf);
        if line.trim().is_empty() {
            continue;
        }
        match serde_json::from_str::<Value>(&line) {
            Ok(v) => r.line(&v),
            Err(_) => {
                r.unread_lines += 1;
                r.warnings.push(format!(
                    "line {n} of the session record is not JSON, and was skipped"
                ));
            }
        }
    }
    r.sha256 = hex::encode(hasher.finalize());
    Ok((r, total))
}

fn skip_line(input: &mut impl BufRead, hasher: &mut Sha256) -> std::io::Result<u64> {
    let mut total = 0u64;
    loop {
        let chunk = input.fill_buf()?;
        if chunk.is_empty() {
            return Ok(total);
        }
        let (used, done) = match memchr::memchr(b'\n', chunk) {
            Some(at) => (at + 1, true),
            None => (chunk.len(), false),
        };
        hasher.update(&chunk[..used]);
        input.consume(used);
        total += used as u64;
        if done {
            return Ok(total);
        }
    }
}

fn drain(input: &mut impl BufRead, hasher: &mut Sha256) -> std::io::Result<u64> {
    let mut total = 0u64;
    loop {
        let chunk = input.fill_buf()?;
        if chunk.is_empty() {
            return Ok(total);
        }
        let len = chunk.len();
        hasher.update(chunk);
        input.consume(len);
        total += len as u64;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn lines(v: &[Value]) -> String {
        v.iter().map(|l| format!("{l}\n")).collect()
    }

    #[test]
    fn both_releases_orders_give_the_same_turn() {
        let start = json!({"type": "session.start", "data": {"sessionId": "s", "copilotVersion": "1.0.80", "context": {"cwd": "/w/r", "headCommit": "c0"}}});
        let user = json!({"type": "user.message", "data": {"content": "P", "transformedContent": "<current_datetime>x</current_datetime>\n\nP"}});
        let system = json!({"type": "system.message", "data": {"content": "SYS"}});
        let answer = json!({"type": "assistant.message", "data": {"model": "m", "content": "{}", "toolRequests": [{"name": "bash", "arguments": {"command": "ls"}}]}});
        let hook = json!({"type": "hook.start", "data": {"hookType": "sessionStart"}});
        let shutdown = json!({"type": "session.shutdown", "data": {"modelMetrics": {"m": {"usage": {"inputTokens": 10, "outputTokens": 2, "cacheReadTokens": 4}}}}});
        for order in [
            vec![&start, &system, &user, &hook, &answer, &shutdown],
            vec![&start, &hook, &user, &system, &answer, &shutdown],
        ] {
            let text = lines(&order.into_iter().cloned().collect::<Vec<_>>());
            let (r, n) = parse(Path::new("e.jsonl"), text.as_bytes()).unwrap();
            assert_eq!(n, text.len() as u64);
            assert_eq!(r.sha256, crate::digest::sha256_hex(text.as_bytes()));
            let t = &r.turns[0];
            assert_eq!(t.system.as_deref(), Some("SYS"));
            assert_eq!(t.hooks, ["sessionStart"]);
            assert_eq!(t.models, ["m"]);
            assert_eq!(r.tool_calls[0].name, "bash");
            let tok = r.tokens().unwrap();
            assert_eq!(
                (tok.input, tok.cached_input, tok.output, tok.total),
                (10, 4, 2, 12)
            );
        }
    }

    /// Measured: 1.0.80's user message of reminders and 1.0.102's
    /// notifications name the files sent once a tool read `src/billing/`,
    /// and neither is a turn.
    #[test]
    fn instruction_files_loaded_just_in_time_are_no_turn() {
        let user = json!({"type": "user.message", "data": {"content": "P"}});
        let answer = json!({"type": "assistant.message", "data": {"model": "m", "content": "{}"}});
        let old = json!({"type": "user.message", "data": {"source": "instruction-discovery", "content": "\n<system_reminder>\nCustom instructions from src/AGENTS.md. Apply these to any code you write here:\n\nA\n\n</system_reminder>\n<system_reminder>\nCustom instructions from src/.github/copilot-instructions.md. Apply these to any code you write here:\n\nB\n\n</system_reminder>"}});
        let new = |p: &str| json!({"type": "system.notification", "data": {"content": format!("Discovered instruction: {p}"), "kind": {"type": "instruction_discovered", "sourcePath": p, "triggerTool": "view"}}});
        for text in [
            lines(&[user.clone(), old, answer.clone()]),
            lines(&[
                user.clone(),
                new("src/AGENTS.md"),
                new("src/.github/copilot-instructions.md"),
                new("src/AGENTS.md"),
                answer.clone(),
            ]),
        ] {
            let (r, _) = parse(Path::new("e.jsonl"), text.as_bytes()).unwrap();
            assert_eq!(r.turns.len(), 1);
            assert_eq!(r.turns[0].answer.as_deref(), Some("{}"));
            assert_eq!(
                r.discovered,
                ["src/AGENTS.md", "src/.github/copilot-instructions.md"]
            );
        }
    }

    #[test]
    fn a_resumed_run_stopped_before_its_shutdown_still_counts_its_calls() {
        let usage = |n: u64| json!({"type": "session.usage_record", "data": {"usage": {"inputTokens": n, "outputTokens": 10}}});
        let text = lines(&[
            json!({"type": "user.message", "data": {"content": "P"}}),
            usage(1000),
            json!({"type": "session.shutdown", "data": {"modelMetrics": {"m": {"usage": {"inputTokens": 1000, "outputTokens": 10}}}}}),
            json!({"type": "session.resume", "data": {}}),
            json!({"type": "user.message", "data": {"content": "Again"}}),
            usage(3000),
        ]);
        let (r, _) = parse(Path::new("e.jsonl"), text.as_bytes()).unwrap();
        assert_eq!(r.resumes, 1);
        assert_eq!(
            r.tokens().unwrap().total,
            4020,
            "the calls, not the first shutdown"
        );
    }

    #[test]
    fn a_line_not_json_is_counted_and_the_rest_read() {
        let text = format!(
            "{{not json\n{}\n",
            json!({"type": "user.message", "data": {"content": "P"}})
        );
        let (r, _) = parse(Path::new("e.jsonl"), text.as_bytes()).unwrap();
        assert_eq!(r.unread_lines, 1);
        assert_eq!(r.turns.len(), 1);
    }
}
