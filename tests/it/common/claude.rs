//! The real Claude Code CLI against a Messages API on loopback, as
//! anthropics/claude-code-action runs it: the harness of tests/it/real/claude.rs.
//!
//! `.ci/run` installs `@anthropic-ai/claude-code` at each of [`VERSIONS`]
//! under `target/claude-<version>`. The fake records every request body and
//! answers each with one streamed message: a `StructuredOutput` tool call of
//! the review when the request offers that tool and the last message is not
//! its result, else a short text (a compaction's summary, an end of turn).
//! Run offline: the environment keeps the CLI from calling anything else
//! (docs: /work/shared/reference/agents.md, measured).
#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::{Arc, Mutex};

use serde_json::{Value, json};
use tokio::io::{AsyncReadExt, AsyncWriteExt};

use super::repo_root;

/// The releases the tests run, each installed by `.ci/run`.
pub const VERSIONS: &[&str] = &["2.1.300", "2.1.332"];
/// The model every run asks for (`--model`).
pub const MODEL: &str = "claude-sonnet-4-5";
/// What the fake says a compaction summary is.
pub const SUMMARY: &str = "Summary: the review so far found nothing.";

fn install_prefix(version: &str) -> String {
    format!("target/claude-{version}")
}

fn installed_at(version: &str) -> PathBuf {
    repo_root().join(install_prefix(version) + "/node_modules/.bin/claude")
}

/// True when a release the test runs is not installed: the test is then
/// skipped, saying how to install it (under `.ci/run` it fails).
#[track_caller]
pub fn missing(versions: &[&str]) -> bool {
    super::npm_cli_missing(
        "Claude Code",
        "@anthropic-ai/claude-code",
        install_prefix,
        installed_at,
        versions,
    )
}

/// A Messages API that records each request body and answers it.
pub struct FakeMessages {
    pub url: String,
    pub bodies: Arc<Mutex<Vec<Value>>>,
    _task: tokio::task::JoinHandle<()>,
}

impl FakeMessages {
    /// Answers a request that offers `StructuredOutput` with `review` as its input.
    pub async fn start(review: Value) -> FakeMessages {
        FakeMessages::calling(review, vec![]).await
    }

    /// Answers request `n` with the tool call `first[n]` (`{"name", "input"}`)
    /// while there is one, then as [`FakeMessages::start`].
    pub async fn calling(review: Value, first: Vec<Value>) -> FakeMessages {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let url = format!("http://{}", listener.local_addr().unwrap());
        let bodies = Arc::new(Mutex::new(Vec::new()));
        let (seen, review, first) = (bodies.clone(), Arc::new(review), Arc::new(first));
        let task = tokio::spawn(async move {
            while let Ok((mut socket, _)) = listener.accept().await {
                let (seen, review, first) = (seen.clone(), review.clone(), first.clone());
                tokio::spawn(async move {
                    loop {
                        let Some((head, body)) = read_request(&mut socket).await else {
                            return;
                        };
                        if !head.starts_with("post ") || !head.contains("/v1/messages") {
                            let _ = socket
                                .write_all(b"HTTP/1.1 200 OK\r\ncontent-length: 0\r\n\r\n")
                                .await;
                            continue;
                        }
                        let body: Value = serde_json::from_slice(&body).unwrap_or(Value::Null);
                        let n = {
                            let mut seen = seen.lock().unwrap();
                            seen.push(body.clone());
                            seen.len()
                        };
                        let events = answer(&body, &review, first.get(n - 1), n);
                        let reply = format!(
                            "HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\ncontent-length: {}\r\n\r\n{events}",
                            events.len()
                        );
                        if socket.write_all(reply.as_bytes()).await.is_err() {
                            return;
                        }
                    }
                });
            }
        });
        FakeMessages {
            url,
            bodies,
            _task: task,
        }
    }

    pub fn requests(&self) -> Vec<Value> {
        self.bodies.lock().unwrap().clone()
    }
}

/// One HTTP/1.1 request off a kept-alive connection: its head (lower case)
/// and body.
async fn read_request(socket: &mut tokio::net::TcpStream) -> Option<(String, Vec<u8>)> {
    let mut buf = Vec::new();
    let mut chunk = [0u8; 65536];
    let header_end = loop {
        if let Some(i) = buf.windows(4).position(|w| w == b"\r\n\r\n") {
            break i + 4;
        }
        let n = socket.read(&mut chunk).await.ok()?;
        if n == 0 {
            return None;
        }
        buf.extend_from_slice(&chunk[..n]);
    };
    let head = String::from_utf8_lossy(&buf[..header_end]).to_lowercase();
    let length: usize = head
        .lines()
        .find_map(|l| {
            l.strip_prefix("content-length:")
                .map(|v| v.trim().parse().unwrap_or(0))
        })
        .unwrap_or(0);
    while buf.len() < header_end + length {
        let n = socket.read(&mut chunk).await.ok()?;
        if n == 0 {
            break;
        }
        buf.extend_from_slice(&chunk[..n]);
    }
    let end = (header_end + length).min(buf.len());
    Some((head, buf[header_end..end].to_vec()))
}

/// The streamed answer to request number `n` (from 1).
fn answer(body: &Value, review: &Value, call: Option<&Value>, n: usize) -> String {
    let offers_output = body["tools"]
        .as_array()
        .is_some_and(|t| t.iter().any(|t| t["name"] == "StructuredOutput"));
    let after_result = body["messages"]
        .as_array()
        .and_then(|m| m.last())
        .and_then(|m| m["content"].as_array())
        .and_then(|c| c.last())
        .is_some_and(|b| b["type"] == "tool_result");
    // Claude Code's compaction asks for a summary in text (its own prompt
    // says so); the review prompts of these tests never mention one.
    let compacting = body["messages"]
        .as_array()
        .and_then(|m| m.last())
        .map(|m| m["content"].to_string().to_lowercase())
        .is_some_and(|t| t.contains("summary"));
    let offers_output = offers_output && !compacting;
    let mut events = vec![(
        "message_start",
        json!({"type": "message_start", "message": {
            "id": format!("msg_{n}"), "type": "message", "role": "assistant",
            "model": body["model"], "content": [], "stop_reason": null,
            "usage": {"input_tokens": 100, "cache_read_input_tokens": 20,
                      "cache_creation_input_tokens": 5, "output_tokens": 1}}}),
    )];
    let stop = if let Some(call) = call {
        events.push((
            "content_block_start",
            json!({"type": "content_block_start", "index": 0, "content_block":
                {"type": "tool_use", "id": format!("toolu_{n}"), "name": call["name"], "input": {}}}),
        ));
        events.push((
            "content_block_delta",
            json!({"type": "content_block_delta", "index": 0, "delta":
                {"type": "input_json_delta", "partial_json": call["input"].to_string()}}),
        ));
        "tool_use"
    } else if offers_output && !after_result {
        events.push((
            "content_block_start",
            json!({"type": "content_block_start", "index": 0, "content_block":
                {"type": "tool_use", "id": format!("toolu_{n}"), "name": "StructuredOutput", "input": {}}}),
        ));
        events.push((
            "content_block_delta",
            json!({"type": "content_block_delta", "index": 0, "delta":
                {"type": "input_json_delta", "partial_json": review.to_string()}}),
        ));
        "tool_use"
    } else {
        events.push((
            "content_block_start",
            json!({"type": "content_block_start", "index": 0, "content_block": {"type": "text", "text": ""}}),
        ));
        events.push((
            "content_block_delta",
            json!({"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": SUMMARY}}),
        ));
        "end_turn"
    };
    events.push((
        "content_block_stop",
        json!({"type": "content_block_stop", "index": 0}),
    ));
    events.push((
        "message_delta",
        json!({"type": "message_delta", "delta": {"stop_reason": stop, "stop_sequence": null},
               "usage": {"output_tokens": 30}}),
    ));
    events.push(("message_stop", json!({"type": "message_stop"})));
    events
        .iter()
        .map(|(name, data)| format!("event: {name}\ndata: {data}\n\n"))
        .collect()
}

/// `claude -p PROMPT --output-format stream-json --verbose ARGS` in `cwd`
/// with `home` as `$HOME`, offline against `url`, as claude-code-action runs
/// it; the stdout messages are written as the action's execution file
/// (`home/claude-execution-output.json`, a pretty-printed JSON array).
pub fn run(version: &str, url: &str, home: &Path, cwd: &Path, prompt: &str, args: &[&str]) {
    std::fs::create_dir_all(home).unwrap();
    let out = Command::new(installed_at(version))
        .args(["-p", prompt, "--output-format", "stream-json", "--verbose"])
        .args(args)
        .current_dir(cwd)
        .env_clear()
        .env("PATH", std::env::var_os("PATH").unwrap_or_default())
        .env("HOME", home)
        .env("ANTHROPIC_BASE_URL", url)
        .env("ANTHROPIC_API_KEY", "sk-ant-fake")
        .env("DISABLE_TELEMETRY", "1")
        .env("DISABLE_AUTOUPDATER", "1")
        .env("DISABLE_ERROR_REPORTING", "1")
        .env("CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC", "1")
        .stdin(Stdio::null())
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "claude {version} failed: {}\n{}",
        String::from_utf8_lossy(&out.stderr),
        String::from_utf8_lossy(&out.stdout)
    );
    let messages: Vec<Value> = String::from_utf8_lossy(&out.stdout)
        .lines()
        .filter_map(|l| serde_json::from_str(l).ok())
        .collect();
    assert!(
        messages.iter().any(|m| m["type"] == "result"),
        "claude {version} printed no result: {}",
        String::from_utf8_lossy(&out.stdout)
    );
    super::keep_records(home, "claude", version);
    std::fs::write(
        home.join("claude-execution-output.json"),
        serde_json::to_string_pretty(&messages).unwrap(),
    )
    .unwrap();
}

/// [`run`] off the async runtime, which serves the fake meanwhile.
pub async fn run_beside(
    version: &'static str,
    url: String,
    home: PathBuf,
    cwd: PathBuf,
    prompt: String,
    args: Vec<String>,
) {
    tokio::task::spawn_blocking(move || {
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        run(version, &url, &home, &cwd, &prompt, &args)
    })
    .await
    .unwrap()
}

/// The execution file's `result` message.
pub fn result_of(home: &Path) -> Value {
    let all: Vec<Value> =
        serde_json::from_slice(&std::fs::read(home.join("claude-execution-output.json")).unwrap())
            .unwrap();
    all.into_iter().rfind(|m| m["type"] == "result").unwrap()
}

/// Every text block of a request's messages, in order.
pub fn texts(request: &Value) -> Vec<String> {
    let mut out = Vec::new();
    for m in request["messages"].as_array().unwrap() {
        match &m["content"] {
            Value::String(s) => out.push(s.clone()),
            Value::Array(blocks) => {
                for b in blocks {
                    if let Some(t) = b["text"].as_str() {
                        out.push(t.to_string());
                    }
                    if let Some(t) = b["content"].as_str() {
                        out.push(t.to_string());
                    }
                }
            }
            _ => {}
        }
    }
    out
}

/// The prompt as received: the last text block of the first message.
pub fn prompt_of(request: &Value) -> String {
    request["messages"][0]["content"]
        .as_array()
        .unwrap()
        .iter()
        .rev()
        .find_map(|b| b["text"].as_str())
        .unwrap()
        .to_string()
}

/// The instruction block as received (found by its leading text), with its
/// absolute paths named as the receipt names them: the workspace's relative
/// to it, the user's under `~/.claude/`.
pub fn instructions_of(request: &Value, workspace: &Path, home: &Path) -> Option<String> {
    let header = prompt_receipt::agent::claude::chain::HEADER;
    let block = request["messages"][0]["content"]
        .as_array()?
        .iter()
        .find_map(|b| b["text"].as_str().filter(|t| t.starts_with(header)))?
        .to_string();
    let ws = format!("Contents of {}/", workspace.display());
    let home = format!("Contents of {}/.claude/", home.display());
    Some(
        block
            .replace(&ws, "Contents of ")
            .replace(&home, "Contents of ~/.claude/"),
    )
}
