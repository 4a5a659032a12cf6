//! The real Codex CLI against a Responses API on loopback, as openai/codex-action
//! runs it: the harness that tests/it/real/codex.rs and tests/it/real/two_jobs.rs share.
//!
//! `.ci/run` installs `@openai/codex` at a pinned version . The server records every
//! request body and answers with a script: one list of output items a request
//! (a tool call, then the final message), the last repeated.
#![allow(dead_code)]

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::{Arc, Mutex};

use serde_json::{Value, json};
use tokio::io::{AsyncReadExt, AsyncWriteExt};

use super::repo_root;

pub const CODEX_VERSION: &str = "0.169.0";
/// A valid review of the example's schema.
pub const REVIEW: &str = r#"{"ok":true,"findings":[]}"#;

/// Where `.ci/run` installs Codex `version`: `target/codex` for the pinned
/// one, `target/codex-<version>` for the others.
fn install_prefix(version: &str) -> String {
    if version == CODEX_VERSION {
        "target/codex".to_string()
    } else {
        format!("target/codex-{version}")
    }
}

fn installed_at(version: &str) -> PathBuf {
    match std::env::var_os("PROMPT_RECEIPT_CODEX") {
        Some(path) if version == CODEX_VERSION => PathBuf::from(path),
        _ => repo_root().join(install_prefix(version) + "/node_modules/.bin/codex"),
    }
}

/// True when a release the test runs is not installed: the test is then
/// skipped, saying how to install it (under `.ci/run` it fails).
#[track_caller]
pub fn missing(versions: &[&str]) -> bool {
    super::npm_cli_missing(
        "the Codex CLI",
        "@openai/codex",
        install_prefix,
        installed_at,
        versions,
    )
}

/// The Codex CLI installed by `.ci/run` (or `PROMPT_RECEIPT_CODEX`).
pub fn codex() -> PathBuf {
    let path = installed_at(CODEX_VERSION);
    assert!(
        path.exists(),
        "the Codex CLI is not installed at {}: run `npm install --prefix target/codex @openai/codex@{CODEX_VERSION}` (.ci/run does)",
        path.display()
    );
    path
}

/// A Responses API that records each request body and answers from a script.
pub struct FakeResponses {
    pub url: String,
    pub bodies: Arc<Mutex<Vec<Value>>>,
    _task: tokio::task::JoinHandle<()>,
}

impl FakeResponses {
    /// Answers every request with the final message `reply`.
    pub async fn start(reply: &str) -> FakeResponses {
        FakeResponses::scripted(vec![vec![message(reply)]]).await
    }

    /// Answers request `n` with `script[n]`'s output items (the last one again
    /// once the script runs out).
    pub async fn scripted(script: Vec<Vec<Value>>) -> FakeResponses {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let url = format!("http://{}/v1", listener.local_addr().unwrap());
        let bodies = Arc::new(Mutex::new(Vec::new()));
        let (seen, script) = (bodies.clone(), Arc::new(script));
        let task = tokio::spawn(async move {
            while let Ok((mut socket, _)) = listener.accept().await {
                let (seen, script) = (seen.clone(), script.clone());
                tokio::spawn(async move {
                    let mut buf = Vec::new();
                    let mut chunk = [0u8; 65536];
                    let header_end = loop {
                        let n = socket.read(&mut chunk).await.unwrap_or(0);
                        if n == 0 {
                            return;
                        }
                        buf.extend_from_slice(&chunk[..n]);
                        if let Some(i) = buf.windows(4).position(|w| w == b"\r\n\r\n") {
                            break i + 4;
                        }
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
                        let n = socket.read(&mut chunk).await.unwrap_or(0);
                        if n == 0 {
                            break;
                        }
                        buf.extend_from_slice(&chunk[..n]);
                    }
                    if !head.starts_with("post ") || !head.contains("/responses") {
                        let _ = socket.write_all(b"HTTP/1.1 404 Not Found\r\ncontent-length: 0\r\nconnection: close\r\n\r\n").await;
                        return;
                    }
                    let body: Value = serde_json::from_slice(&buf[header_end..header_end + length])
                        .unwrap_or(Value::Null);
                    let n = {
                        let mut seen = seen.lock().unwrap();
                        seen.push(body);
                        seen.len() - 1
                    };
                    let items = &script[n.min(script.len() - 1)];
                    let _ = socket.write_all(sse(items).as_bytes()).await;
                });
            }
        });
        FakeResponses {
            url,
            bodies,
            _task: task,
        }
    }

    pub fn only_request(&self) -> Value {
        let bodies = self.bodies.lock().unwrap();
        assert_eq!(bodies.len(), 1, "one request per run");
        bodies[0].clone()
    }
}

/// The assistant's final message.
pub fn message(text: &str) -> Value {
    json!({"type": "message", "role": "assistant", "id": "msg_1", "content": [{"type": "output_text", "text": text}]})
}

/// A patch the agent applies (Codex's freeform `apply_patch` tool).
pub fn apply_patch(patch: &str) -> Value {
    json!({"type": "custom_tool_call", "name": "apply_patch", "call_id": "call_patch", "input": patch})
}

/// A shell command the agent runs.
pub fn exec_command(cmd: &str) -> Value {
    json!({"type": "function_call", "name": "exec_command", "call_id": "call_exec", "arguments": json!({"cmd": cmd}).to_string()})
}

/// One streamed response: each item added and done, then the usage.
fn sse(items: &[Value]) -> String {
    let mut events = vec![(
        "response.created",
        json!({"type": "response.created", "response": {"id": "resp_1"}}),
    )];
    for (i, item) in items.iter().enumerate() {
        events.push((
            "response.output_item.added",
            json!({"type": "response.output_item.added", "output_index": i, "item": item}),
        ));
        if let Some(text) = item["content"][0]["text"].as_str() {
            events.push((
                "response.output_text.delta",
                json!({"type": "response.output_text.delta", "item_id": item["id"], "output_index": i, "content_index": 0, "delta": text}),
            ));
        }
        events.push((
            "response.output_item.done",
            json!({"type": "response.output_item.done", "output_index": i, "item": item}),
        ));
    }
    events.push((
        "response.completed",
        json!({"type": "response.completed", "response": {"id": "resp_1", "usage": {"input_tokens": 1200, "input_tokens_details": {"cached_tokens": 200}, "output_tokens": 50, "output_tokens_details": {"reasoning_tokens": 10}, "total_tokens": 1250}}}),
    ));
    let mut out = String::from(
        "HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\nconnection: close\r\n\r\n",
    );
    for (kind, data) in events {
        out.push_str(&format!("event: {kind}\ndata: {data}\n\n"));
    }
    out
}

/// A codex-home for `codex exec` against `server`, with the settings that keep
/// the CLI offline and quick; `extra` is more config.toml.
pub fn write_config(home: &Path, server: &str, extra: &str) {
    std::fs::create_dir_all(home).unwrap();
    let config = format!(
        "model = \"gpt-5.5\"\nmodel_provider = \"fake\"\napproval_policy = \"never\"\n{extra}\
         [model_providers.fake]\nname = \"local\"\nbase_url = \"{server}\"\nwire_api = \"responses\"\n\
         [analytics]\nenabled = false\n[features]\nplugins = false\nshell_snapshot = false\n\n"
    );
    std::fs::write(home.join("config.toml"), config).unwrap();
}

/// The releases the version tests run: `.ci/run` installs each under
/// `target/codex-<version>` (0.169.0, the pinned one, under `target/codex`).
pub const VERSIONS: &[&str] = &[
    "0.165.0", "0.166.0", "0.167.2", "0.168.0", "0.169.0", "0.171.0",
];

/// The Codex CLI of one release, as `.ci/run` installs it.
pub fn codex_at(version: &str) -> PathBuf {
    if version == CODEX_VERSION {
        return codex();
    }
    let path = repo_root().join(format!("target/codex-{version}/node_modules/.bin/codex"));
    assert!(
        path.exists(),
        "Codex {version} is not installed at {}: run `npm install --prefix target/codex-{version} @openai/codex@{version}` (.ci/run does)",
        path.display()
    );
    path
}

/// `codex exec` as openai/codex-action runs it: the prompt's bytes on stdin,
/// `--cd`, `--output-last-message`, `--output-schema`, then `args` (the
/// sandbox, `-c` settings).
pub fn exec(codex_home: &Path, workspace: &Path, workdir: &str, stdin: &[u8], args: &[&str]) {
    exec_with(&codex(), codex_home, workspace, workdir, stdin, args)
}

/// [`exec`] with a given Codex binary.
pub fn exec_with(
    binary: &Path,
    codex_home: &Path,
    workspace: &Path,
    workdir: &str,
    stdin: &[u8],
    args: &[&str],
) {
    let mut child = Command::new(binary)
        .args(["exec", "--skip-git-repo-check", "--cd"])
        .arg(workspace.join(workdir))
        .arg("--output-last-message")
        .arg(workspace.join("artifacts/review.json"))
        .arg("--output-schema")
        .arg(workspace.join(".github/codex/review.schema.json"))
        .args(args)
        .env("CODEX_HOME", codex_home)
        .env_remove("OPENAI_API_KEY")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    child.stdin.take().unwrap().write_all(stdin).unwrap();
    let out = child.wait_with_output().unwrap();
    assert!(
        out.status.success(),
        "codex exec failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// [`exec`] off the async runtime, which serves the fake Responses API meanwhile.
pub async fn exec_beside(
    codex_home: PathBuf,
    workspace: PathBuf,
    workdir: String,
    stdin: Vec<u8>,
    args: Vec<String>,
) {
    exec_version_beside(codex(), codex_home, workspace, workdir, stdin, args).await
}

/// [`exec_with`] off the async runtime.
pub async fn exec_version_beside(
    binary: PathBuf,
    codex_home: PathBuf,
    workspace: PathBuf,
    workdir: String,
    stdin: Vec<u8>,
    args: Vec<String>,
) {
    tokio::task::spawn_blocking(move || {
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        exec_with(&binary, &codex_home, &workspace, &workdir, &stdin, &args)
    })
    .await
    .unwrap()
}

/// The messages the API received between the base instructions and the
/// prompt (`input[1..]` up to the last user message), canonically serialized
/// as the receipt's `context_sha` is: `{"content": [{"text", "type"}], "role"}`
/// a message, keys sorted, no whitespace.
pub fn context_sha_of(request: &Value) -> String {
    let input = request["input"].as_array().unwrap();
    let prompt_at = input.iter().rposition(|m| m["role"] == "user").unwrap();
    let messages: Vec<Value> = input[1..prompt_at].iter().map(canonical).collect();
    prompt_receipt::digest::sha256_hex(serde_json::to_string(&messages).unwrap().as_bytes())
}

/// A request's message as the receipt hashes it: `{"content": [{"text", "type"}], "role"}`.
pub fn canonical(m: &Value) -> Value {
    let content: Vec<Value> = m["content"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| json!({"text": c["text"], "type": c["type"]}))
        .collect();
    json!({"content": content, "role": m["role"]})
}

/// The folder npm unpacked the Codex CLI's own build into (`vendor/<target>`,
/// with `bin/codex`, a static executable that runs in any Linux container).
pub fn codex_binary_dir() -> PathBuf {
    let npm_bin = codex();
    let root = npm_bin
        .canonicalize()
        .unwrap()
        .ancestors()
        .find(|p| p.ends_with("node_modules"))
        .map(Path::to_path_buf)
        .unwrap_or_else(|| repo_root().join("target/codex/node_modules"));
    let mut stack = vec![root.join("@openai")];
    while let Some(dir) = stack.pop() {
        for e in std::fs::read_dir(&dir).unwrap().flatten() {
            let p = e.path();
            if p.is_dir() {
                stack.push(p);
            } else if p.file_name().is_some_and(|n| n == "codex")
                && p.parent().is_some_and(|d| d.ends_with("bin"))
                && p.to_string_lossy().contains("vendor")
            {
                return p.parent().unwrap().parent().unwrap().to_path_buf();
            }
        }
    }
    panic!("no vendored codex binary under {}", root.display())
}
