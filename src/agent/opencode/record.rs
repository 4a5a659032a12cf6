//! opencode's record: `~/.local/share/opencode/opencode.db`, a SQLite
//! database (tables `session`, `message`, `part`; each row's `data` a JSON
//! text), read with SQLite itself, read-only and bounded.
//!
//! The database is the uploader's: it is opened read-only (`SQLITE_OPEN_READ_ONLY`,
//! no URI), in defensive mode with its schema untrusted (a view or trigger
//! the file defines cannot call a function with side effects), with every
//! value capped at [`RECORD_LINE_BYTES`], the rows read capped at
//! [`RECORD_LINES`], and a deadline checked while SQLite works. The file is
//! hashed as it is on disk (the receipt's `transcript.sha256`).

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use rusqlite::{Connection, OpenFlags, params};
use serde_json::Value;

use crate::agent::Tokens;
use crate::agent::redaction::Redaction;
use crate::agent::turns::Turn;
use crate::digest::sha256_hex;
use crate::limits::{RECORD_BYTES, RECORD_LINE_BYTES, RECORD_LINES};

/// Where the record is below the agent's home.
pub(crate) const DATA_DIR: &str = ".local/share/opencode";
/// The database's name in the data folder.
pub(crate) const DB: &str = "opencode.db";
/// The table a redacted database ends with: one row, the redaction's JSON.
pub(crate) const MARKER_TABLE: &str = "prompt_receipt_redacted";
/// How long SQLite may work on one database before it is stopped.
const DEADLINE: Duration = Duration::from_secs(crate::limits::DATABASE_SECONDS);

/// One session of the database: the run's, or a subagent's (`parent`).
#[derive(Clone, Debug, Default)]
pub(crate) struct Session {
    pub(crate) id: String,
    pub(crate) parent: Option<String>,
    /// `session.directory`: where opencode was started.
    pub(crate) directory: String,
    /// `session.version`: the CLI version that wrote it.
    pub(crate) version: String,
}

/// A message: the user's, or one answer of the model with its parts.
#[derive(Clone, Debug, Default)]
pub(crate) struct Message {
    pub(crate) id: String,
    pub(crate) session: String,
    pub(crate) role: String,
    /// `providerID/modelID`, as opencode's `--model` names it.
    pub(crate) model: Option<String>,
    /// `path.cwd` of an answer.
    pub(crate) cwd: Option<String>,
    pub(crate) tokens: Option<Tokens>,
    /// The answer's error, when it ended in one.
    pub(crate) error: Option<String>,
    pub(crate) parts: Vec<Part>,
}

/// One part of a message, as far as the receipt reads it.
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum Part {
    /// Text; `synthetic` when opencode wrote it, not the user or the model.
    Text {
        text: String,
        synthetic: bool,
    },
    /// A tool call: its name, the input fields the check reads, and status
    /// (`completed`, `error`).
    Tool {
        tool: String,
        input: Value,
        status: String,
    },
    /// A step's start or finish, with the git tree of the working tree.
    Step {
        snapshot: Option<String>,
    },
    /// The files a step changed, from its snapshots.
    Patch {
        files: Vec<String>,
    },
    Other,
}

/// The database as the receipt reads it.
#[derive(Clone, Debug, Default)]
pub(crate) struct Record {
    pub(crate) sha256: String,
    /// The run's session, and its subagents' (`parent` set), in order.
    pub(crate) sessions: Vec<Session>,
    /// Every message of those sessions, by time.
    pub(crate) messages: Vec<Message>,
    pub(crate) redaction: Option<Redaction>,
    /// Other top-level sessions in the database (another run's).
    pub(crate) others: usize,
    pub(crate) warnings: Vec<String>,
}

impl Record {
    pub(crate) fn session(&self) -> Option<&Session> {
        self.sessions.first()
    }

    /// The messages of the run's own session.
    pub(crate) fn own(&self) -> impl Iterator<Item = &Message> {
        let id = self.session().map(|s| s.id.clone()).unwrap_or_default();
        self.messages.iter().filter(move |m| m.session == id)
    }
}

/// Where the database is under an agent home: its `$HOME` as uploaded, or
/// the data folder itself.
pub(crate) fn db_path(home: &Path) -> Option<PathBuf> {
    [home.join(DATA_DIR).join(DB), home.join(DB)]
        .into_iter()
        .find(|p| std::fs::symlink_metadata(p).is_ok())
}

/// Opens, reads and closes the database; `Err` says why it cannot be read.
pub(crate) fn read(path: &Path, session_id: Option<&str>, prompt: &[u8]) -> Result<Record, String> {
    let shown = crate::escape::one_line(&path.display().to_string()).into_owned();
    let meta = std::fs::symlink_metadata(path).map_err(|e| format!("`{shown}`: {e}"))?;
    if !meta.is_file() {
        return Err(format!("`{shown}` is not a regular file"));
    }
    let wal = path.with_extension("db-wal");
    let wal_len = std::fs::symlink_metadata(&wal).map_or(0, |m| m.len());
    if meta.len().saturating_add(wal_len) > RECORD_BYTES {
        return Err(format!(
            "`{shown}` (with its write-ahead log) holds more than {} MiB",
            RECORD_BYTES >> 20
        ));
    }
    // Hashed as a stream: constant memory whatever the file's size.
    let sha256 = crate::digest::sha256_file(path, RECORD_BYTES)
        .map_err(|e| format!("`{shown}`: {e}"))?
        .ok_or_else(|| format!("`{shown}` holds more than {} MiB", RECORD_BYTES >> 20))?;
    let conn = open(path).map_err(|e| format!("`{shown}` cannot be opened as SQLite: {e}"))?;
    let mut r = Record {
        sha256,
        ..Record::default()
    };
    load(&conn, &mut r, session_id, prompt).map_err(|e| format!("`{shown}`: {e}"))?;
    if wal_len > 0 {
        r.warnings.push(format!(
            "the database has a write-ahead log beside it ({wal_len} bytes, read with it): the hash in the receipt is of `{DB}` alone"
        ));
    }
    Ok(r)
}

fn open(path: &Path) -> rusqlite::Result<Connection> {
    use rusqlite::config::DbConfig;
    use rusqlite::limits::Limit;
    let conn = Connection::open_with_flags(
        path,
        OpenFlags::SQLITE_OPEN_READ_ONLY | OpenFlags::SQLITE_OPEN_NO_MUTEX,
    )?;
    conn.set_db_config(DbConfig::SQLITE_DBCONFIG_DEFENSIVE, true)?;
    conn.set_db_config(DbConfig::SQLITE_DBCONFIG_TRUSTED_SCHEMA, false)?;
    let cap = i32::try_from(RECORD_LINE_BYTES).unwrap_or(i32::MAX);
    conn.set_limit(Limit::SQLITE_LIMIT_LENGTH, cap)?;
    conn.set_limit(Limit::SQLITE_LIMIT_SQL_LENGTH, 1 << 16)?;
    conn.set_limit(Limit::SQLITE_LIMIT_ATTACHED, 0)?;
    let deadline = Instant::now() + DEADLINE;
    conn.progress_handler(10_000, Some(move || Instant::now() > deadline))?;
    Ok(conn)
}

/// The sessions, then this run's messages and parts.
fn load(
    conn: &Connection,
    r: &mut Record,
    session_id: Option<&str>,
    prompt: &[u8],
) -> rusqlite::Result<()> {
    let all = sessions(conn)?;
    let top: Vec<&Session> = all.iter().filter(|s| s.parent.is_none()).collect();
    let chosen = match session_id {
        Some(id) => top.iter().find(|s| s.id == id).copied(),
        None => choose(conn, &top, prompt)?,
    };
    let Some(chosen) = chosen else {
        return Ok(());
    };
    r.others = top.len().saturating_sub(1);
    r.sessions.push(chosen.clone());
    // Subagents' sessions, any depth, bounded by the rows already read.
    let mut i = 0;
    while i < r.sessions.len() {
        let parent = r.sessions[i].id.clone();
        for s in all.iter().filter(|s| s.parent.as_deref() == Some(&parent)) {
            if !r.sessions.iter().any(|k| k.id == s.id) {
                r.sessions.push(s.clone());
            }
        }
        i += 1;
    }
    let mut rows = 0usize;
    for s in r.sessions.clone() {
        messages(conn, &s.id, r, &mut rows)?;
    }
    r.redaction = marker(conn);
    Ok(())
}

/// The top-level session this run wrote: the only one, else the latest
/// whose first user text is the prompt, else the latest.
fn choose<'s>(
    conn: &Connection,
    top: &[&'s Session],
    prompt: &[u8],
) -> rusqlite::Result<Option<&'s Session>> {
    if top.len() <= 1 {
        return Ok(top.first().copied());
    }
    let prompt = String::from_utf8_lossy(prompt);
    for s in top.iter().rev().take(crate::limits::RECORD_CANDIDATES) {
        let mut stmt = conn.prepare(
            "SELECT data FROM part WHERE session_id = ?1 ORDER BY time_created, id LIMIT 8",
        )?;
        let texts: Vec<String> = stmt
            .query_map(params![s.id], |row| row.get::<_, String>(0))?
            .filter_map(Result::ok)
            .collect();
        let said = texts.iter().any(|t| {
            serde_json::from_str::<Value>(t)
                .ok()
                .is_some_and(|v| v["type"] == "text" && v["text"].as_str() == Some(&prompt))
        });
        if said {
            return Ok(Some(s));
        }
    }
    Ok(top.last().copied())
}

fn sessions(conn: &Connection) -> rusqlite::Result<Vec<Session>> {
    let mut stmt = conn.prepare(
        "SELECT id, parent_id, directory, version FROM session ORDER BY time_created, id LIMIT ?1",
    )?;
    let rows = stmt.query_map(params![RECORD_LINES as i64], |row| {
        Ok(Session {
            id: row.get(0)?,
            parent: row.get(1)?,
            directory: row.get::<_, Option<String>>(2)?.unwrap_or_default(),
            version: row.get::<_, Option<String>>(3)?.unwrap_or_default(),
        })
    })?;
    rows.collect()
}

/// One session's messages and their parts, in order, counted against
/// [`RECORD_LINES`].
fn messages(
    conn: &Connection,
    session: &str,
    r: &mut Record,
    rows: &mut usize,
) -> rusqlite::Result<()> {
    let left = RECORD_LINES.saturating_sub(*rows) as i64;
    let mut stmt = conn.prepare(
        "SELECT id, data FROM message WHERE session_id = ?1 ORDER BY time_created, id LIMIT ?2",
    )?;
    let found: Vec<(String, String)> = stmt
        .query_map(params![session, left], |row| Ok((row.get(0)?, row.get(1)?)))?
        .collect::<rusqlite::Result<_>>()?;
    let first = r.messages.len();
    for (id, data) in found {
        *rows += 1;
        let v: Value = serde_json::from_str(&data).unwrap_or(Value::Null);
        r.messages.push(message(id, session, &v));
    }
    let left = RECORD_LINES.saturating_sub(*rows) as i64;
    let mut stmt = conn.prepare(
        "SELECT message_id, data FROM part WHERE session_id = ?1 ORDER BY time_created, id LIMIT ?2",
    )?;
    let parts = stmt.query_map(params![session, left], |row| {
        Ok((row.get::<_, String>(0)?, row.get::<_, String>(1)?))
    })?;
    for found in parts {
        let (message_id, data) = found?;
        *rows += 1;
        let v: Value = serde_json::from_str(&data).unwrap_or(Value::Null);
        if let Some(m) = r.messages[first..].iter_mut().find(|m| m.id == message_id) {
            m.parts.push(part(&v));
        }
    }
    if *rows >= RECORD_LINES {
        r.warnings.push(format!(
            "the database holds more than {RECORD_LINES} messages and parts: the rest were not read"
        ));
    }
    Ok(())
}

fn message(id: String, session: &str, v: &Value) -> Message {
    let text = |k: &str| v[k].as_str().map(str::to_string);
    let model = match (v["providerID"].as_str(), v["modelID"].as_str()) {
        (Some(p), Some(m)) => Some(format!("{p}/{m}")),
        (None, Some(m)) => Some(m.to_string()),
        _ => match (
            v["model"]["providerID"].as_str(),
            v["model"]["modelID"].as_str(),
        ) {
            (Some(p), Some(m)) => Some(format!("{p}/{m}")),
            _ => None,
        },
    };
    Message {
        id,
        session: session.to_string(),
        role: text("role").unwrap_or_default(),
        model,
        cwd: v["path"]["cwd"].as_str().map(str::to_string),
        tokens: v.get("tokens").filter(|t| t.is_object()).map(tokens),
        error: v
            .get("error")
            .filter(|e| !e.is_null())
            .map(|e| e["name"].as_str().unwrap_or("an error").to_string()),
        parts: Vec::new(),
    }
}

/// opencode's counts in the receipt's meaning: its `input` leaves out the
/// cache reads and writes, which are added back; reasoning is output.
pub(crate) fn tokens(t: &Value) -> Tokens {
    let n = |v: &Value| v.as_u64().unwrap_or(0);
    let read = n(&t["cache"]["read"]);
    let write = n(&t["cache"]["write"]);
    let input = n(&t["input"]).saturating_add(read).saturating_add(write);
    let reasoning = n(&t["reasoning"]);
    let output = n(&t["output"]).saturating_add(reasoning);
    Tokens {
        input,
        cached_input: read,
        cache_write_input: write,
        output,
        reasoning,
        total: input.saturating_add(output),
    }
}

fn part(v: &Value) -> Part {
    match v["type"].as_str().unwrap_or_default() {
        "text" => Part::Text {
            text: v["text"].as_str().unwrap_or_default().to_string(),
            synthetic: v["synthetic"].as_bool().unwrap_or(false) || v["ignored"] == true,
        },
        "tool" => Part::Tool {
            tool: v["tool"].as_str().unwrap_or_default().to_string(),
            input: tool_input(&v["state"]["input"]),
            status: v["state"]["status"]
                .as_str()
                .unwrap_or_default()
                .to_string(),
        },
        "step-start" | "step-finish" => Part::Step {
            snapshot: v["snapshot"].as_str().map(str::to_string),
        },
        "patch" => Part::Patch {
            files: v["files"]
                .as_array()
                .into_iter()
                .flatten()
                .filter_map(Value::as_str)
                .take(1000)
                .map(str::to_string)
                .collect(),
        },
        _ => Part::Other,
    }
}

/// The fields of a tool's input the check reads (`filePath`, `command`,
/// `patchText`), each a string: the rest of a hostile input is not kept.
fn tool_input(input: &Value) -> Value {
    let kept: serde_json::Map<String, Value> = ["filePath", "command", "patchText"]
        .iter()
        .filter_map(|k| {
            Some((
                k.to_string(),
                Value::String(input[*k].as_str()?.to_string()),
            ))
        })
        .collect();
    Value::Object(kept)
}

/// The redaction marker a shipped filter writes: one row of JSON.
fn marker(conn: &Connection) -> Option<Redaction> {
    let exists: bool = conn
        .query_row(
            "SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name = ?1",
            params![MARKER_TABLE],
            |row| row.get::<_, i64>(0),
        )
        .ok()
        .is_some_and(|n| n > 0);
    if !exists {
        return None;
    }
    let data: String = conn
        .query_row(
            &format!("SELECT data FROM {MARKER_TABLE} LIMIT 1"),
            [],
            |row| row.get(0),
        )
        .ok()?;
    let v: Value = serde_json::from_str(&data).ok()?;
    Some(Redaction::from_payload(&v))
}

/// One turn of the run: a user message and the answers to it.
#[derive(Clone, Debug, Default)]
pub(crate) struct RecordTurn {
    /// The user's text as sent (its parts that are not opencode's own).
    pub(crate) prompt: String,
    /// Each answer's model, in order.
    pub(crate) models: Vec<String>,
    /// The last text of the last answer.
    pub(crate) answer: Option<String>,
}

/// The run's own session as turns: each user message starts one.
pub(crate) fn turns(r: &Record) -> Vec<RecordTurn> {
    let mut out: Vec<RecordTurn> = Vec::new();
    for m in r.own() {
        if m.role == "user" {
            let prompt: String = m
                .parts
                .iter()
                .filter_map(|p| match p {
                    Part::Text {
                        text,
                        synthetic: false,
                    } => Some(text.as_str()),
                    _ => None,
                })
                .collect();
            out.push(RecordTurn {
                prompt,
                ..RecordTurn::default()
            });
            continue;
        }
        let Some(t) = out.last_mut() else { continue };
        if let Some(model) = &m.model {
            if t.models.last() != Some(model) {
                t.models.push(model.clone());
            }
        }
        let text = m.parts.iter().rev().find_map(|p| match p {
            Part::Text {
                text,
                synthetic: false,
            } if !text.is_empty() => Some(text.clone()),
            _ => None,
        });
        if text.is_some() {
            t.answer = text;
        }
    }
    out
}

/// The turns in the neutral form.
pub(crate) fn neutral_turns(turns: &[RecordTurn]) -> Vec<Turn> {
    turns
        .iter()
        .map(|t| Turn {
            model: t.models.last().cloned(),
            prompt_sha: Some(sha256_hex(t.prompt.as_bytes())),
            context_sha: None,
            items: Vec::new(),
        })
        .collect()
}

/// Every answer's tokens, in every session of the run (subagents' too).
pub(crate) fn total_tokens(r: &Record) -> Option<Tokens> {
    let mut any = false;
    let mut sum = Tokens::default();
    for t in r.messages.iter().filter_map(|m| m.tokens.as_ref()) {
        any = true;
        sum.input = sum.input.saturating_add(t.input);
        sum.cached_input = sum.cached_input.saturating_add(t.cached_input);
        sum.cache_write_input = sum.cache_write_input.saturating_add(t.cache_write_input);
        sum.output = sum.output.saturating_add(t.output);
        sum.reasoning = sum.reasoning.saturating_add(t.reasoning);
        sum.total = sum.total.saturating_add(t.total);
    }
    any.then_some(sum)
}

/// Every step's snapshot of the working tree, in order, each once.
pub(crate) fn snapshots(r: &Record) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for m in r.own() {
        for p in &m.parts {
            if let Part::Step {
                snapshot: Some(s), ..
            } = p
            {
                if out.last() != Some(s) && out.len() < 1000 {
                    out.push(s.clone());
                }
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    const SCHEMA: &str = "CREATE TABLE session (id TEXT PRIMARY KEY, parent_id TEXT, directory TEXT NOT NULL, version TEXT NOT NULL, time_created INTEGER NOT NULL);
        CREATE TABLE message (id TEXT PRIMARY KEY, session_id TEXT NOT NULL, time_created INTEGER NOT NULL, data TEXT NOT NULL);
        CREATE TABLE part (id TEXT PRIMARY KEY, message_id TEXT NOT NULL, session_id TEXT NOT NULL, time_created INTEGER NOT NULL, data TEXT NOT NULL);";

    fn db(dir: &Path) -> PathBuf {
        let path = dir.join(DB);
        let conn = Connection::open(&path).unwrap();
        conn.execute_batch(SCHEMA).unwrap();
        for (id, parent, t) in [
            ("ses_a", None, 1),
            ("ses_b", None, 2),
            ("ses_sub", Some("ses_b"), 3),
        ] {
            conn.execute(
                "INSERT INTO session VALUES (?1, ?2, '/w/r', '1.18.33', ?3)",
                params![id, parent, t],
            )
            .unwrap();
        }
        let messages = [
            ("m0", "ses_a", serde_json::json!({"role": "user"})),
            ("m1", "ses_b", serde_json::json!({"role": "user"})),
            (
                "m2",
                "ses_b",
                serde_json::json!({"role": "assistant", "providerID": "p", "modelID": "m", "path": {"cwd": "/w/r"},
                "tokens": {"input": 90, "output": 10, "reasoning": 5, "cache": {"read": 10, "write": 0}}}),
            ),
            (
                "m3",
                "ses_sub",
                serde_json::json!({"role": "assistant", "tokens": {"input": 1, "output": 1, "cache": {}}}),
            ),
        ];
        for (i, (id, session, data)) in messages.iter().enumerate() {
            conn.execute(
                "INSERT INTO message VALUES (?1, ?2, ?3, ?4)",
                params![id, session, i as i64, data.to_string()],
            )
            .unwrap();
        }
        let parts = [
            (
                "m0",
                "ses_a",
                serde_json::json!({"type": "text", "text": "Other"}),
            ),
            (
                "m1",
                "ses_b",
                serde_json::json!({"type": "text", "text": "Review\n"}),
            ),
            (
                "m2",
                "ses_b",
                serde_json::json!({"type": "step-start", "snapshot": "abc"}),
            ),
            (
                "m2",
                "ses_b",
                serde_json::json!({"type": "tool", "tool": "bash", "state": {"status": "completed", "input": {"command": "ls"}}}),
            ),
            (
                "m2",
                "ses_b",
                serde_json::json!({"type": "text", "text": "{}"}),
            ),
        ];
        for (i, (message, session, data)) in parts.iter().enumerate() {
            conn.execute(
                "INSERT INTO part VALUES (?1, ?2, ?3, ?4, ?5)",
                params![
                    format!("p{i}"),
                    message,
                    session,
                    i as i64,
                    data.to_string()
                ],
            )
            .unwrap();
        }
        conn.execute_batch(
            "CREATE TABLE prompt_receipt_redacted (data TEXT NOT NULL);
             INSERT INTO prompt_receipt_redacted VALUES ('{\"filter\":\"f\",\"version\":1,\"dropped\":{\"event\":3}}');",
        )
        .unwrap();
        path
    }

    /// The run's session is the one whose prompt is the checkout's, its
    /// subagent's answers count, and the marker says it was cut down.
    #[test]
    fn the_database_is_read_as_the_check_needs_it() {
        let dir = tempfile::tempdir().unwrap();
        let path = db(dir.path());
        let r = read(&path, None, b"Review\n").unwrap();
        assert_eq!(r.session().unwrap().id, "ses_b");
        assert_eq!(r.sessions.len(), 2, "the subagent's session too");
        assert_eq!(r.others, 1);
        let turns = turns(&r);
        assert_eq!(turns.len(), 1);
        assert_eq!(turns[0].prompt, "Review\n");
        assert_eq!(turns[0].answer.as_deref(), Some("{}"));
        assert_eq!(turns[0].models, ["p/m"]);
        assert_eq!(snapshots(&r), ["abc"]);
        let t = total_tokens(&r).unwrap();
        assert_eq!((t.input, t.output, t.reasoning, t.total), (101, 16, 5, 117));
        assert_eq!(r.redaction.unwrap().dropped["event"], 3);
        assert_eq!(r.sha256, sha256_hex(&std::fs::read(&path).unwrap()));
        // By its id, the other session.
        let r = read(&path, Some("ses_a"), b"").unwrap();
        assert_eq!(super::turns(&r)[0].prompt, "Other");
    }

    #[test]
    fn what_is_not_a_database_is_said() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join(DB);
        std::fs::write(&path, [b'x'; 4096]).unwrap();
        let why = read(&path, None, b"").unwrap_err();
        assert!(why.contains(DB), "{why}");
        std::os::unix::fs::symlink("/dev/zero", dir.path().join("z.db")).unwrap();
        assert!(read(&dir.path().join("z.db"), None, b"").is_err());
    }
}
