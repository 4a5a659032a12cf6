//! The real GitHub Copilot CLI against an OpenAI chat-completions API on
//! loopback, in its "bring your own key" mode and offline
//! (`COPILOT_OFFLINE=true`, `COPILOT_PROVIDER_BASE_URL`,
//! `COPILOT_AUTO_UPDATE=false`): `copilot -p "$PROMPT" --allow-all-tools -s`,
//! its answer kept as `artifacts/review.json`.
//!
//! `.ci/run` installs `@github/copilot` at each pinned version under
//! `target/copilot-<version>`. The fake records every request (path, body)
//! and answers each with the next answer of its script (the last one again
//! once it runs out), as a stream of chat-completion chunks with a usage chunk.
#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::{Arc, Mutex};

use serde_json::{Value, json};
use wiremock::{Mock, MockServer, Request, Respond, ResponseTemplate};

use super::repo_root;

/// The releases the tests run, both measured offline.
pub const VERSIONS: &[&str] = &["1.0.80", "1.0.102"];
/// A valid review of the example's schema.
pub const REVIEW: &str = r#"{"ok":true,"findings":[]}"#;
/// The usage every answer reports: prompt tokens (of which cached), completion tokens.
pub const USAGE: (u64, u64, u64) = (1000, 100, 20);

fn install_prefix(version: &str) -> String {
    format!("target/copilot-{version}")
}

fn installed_at(version: &str) -> PathBuf {
    repo_root().join(install_prefix(version) + "/node_modules/.bin/copilot")
}

/// True when a release the test runs is not installed: the test is then
/// skipped, saying how to install it (under `.ci/run` it fails).
#[track_caller]
pub fn missing(versions: &[&str]) -> bool {
    super::npm_cli_missing(
        "Copilot CLI",
        "@github/copilot",
        install_prefix,
        installed_at,
        versions,
    )
}

/// One request as the fake received it.
#[derive(Clone, Debug)]
pub struct Received {
    pub path: String,
    pub body: Value,
}

impl Received {
    /// The system message's text.
    pub fn system(&self) -> String {
        let m = &self.body["messages"][0];
        assert_eq!(m["role"], "system", "{}", self.body);
        text(&m["content"])
    }

    /// The first user message's text.
    pub fn user(&self) -> String {
        let m = self.body["messages"]
            .as_array()
            .unwrap()
            .iter()
            .find(|m| m["role"] == "user")
            .expect("a user message");
        text(&m["content"])
    }

    pub fn model(&self) -> String {
        self.body["model"].as_str().unwrap_or_default().to_string()
    }
}

/// A message content: a string, or text parts joined.
fn text(content: &Value) -> String {
    match content {
        Value::String(s) => s.clone(),
        Value::Array(parts) => parts.iter().filter_map(|p| p["text"].as_str()).collect(),
        _ => String::new(),
    }
}

struct Script {
    seen: Arc<Mutex<Vec<Received>>>,
    answers: Vec<String>,
}

impl Respond for Script {
    fn respond(&self, req: &Request) -> ResponseTemplate {
        let body: Value = serde_json::from_slice(&req.body).unwrap_or(Value::Null);
        let n = {
            let mut seen = self.seen.lock().unwrap();
            seen.push(Received {
                path: req.url.path().to_string(),
                body: body.clone(),
            });
            seen.len() - 1
        };
        let answer = &self.answers[n.min(self.answers.len() - 1)];
        let id = format!("fake-{n}");
        let model = body["model"].as_str().unwrap_or("gpt-5.4").to_string();
        let chunk = |delta: Value, finish: Value| {
            json!({"id": id, "object": "chat.completion.chunk", "model": model,
                   "choices": [{"index": 0, "delta": delta, "finish_reason": finish}]})
        };
        // `bash:COMMAND` asks the CLI to run a command, `view:PATH` to read a
        // file (a tool call each).
        let call = answer
            .strip_prefix("bash:")
            .map(|cmd| ("bash", json!({"command": cmd, "description": "run"})))
            .or_else(|| {
                answer
                    .strip_prefix("view:")
                    .map(|path| ("view", json!({"path": path})))
            });
        let mut events = match call {
            Some((name, arguments)) => vec![
                chunk(
                    json!({"role": "assistant", "tool_calls": [{"index": 0, "id": format!("call-{n}"), "type": "function",
                           "function": {"name": name, "arguments": arguments.to_string()}}]}),
                    Value::Null,
                ),
                chunk(json!({}), json!("tool_calls")),
            ],
            None => vec![
                chunk(json!({"role": "assistant", "content": answer}), Value::Null),
                chunk(json!({}), json!("stop")),
            ],
        };
        events.push(json!({"id": id, "object": "chat.completion.chunk", "model": model, "choices": [],
            "usage": {"prompt_tokens": USAGE.0, "completion_tokens": USAGE.2, "total_tokens": USAGE.0 + USAGE.2,
                      "prompt_tokens_details": {"cached_tokens": USAGE.1}}}));
        let mut sse: String = events.iter().map(|e| format!("data: {e}\n\n")).collect();
        sse.push_str("data: [DONE]\n\n");
        ResponseTemplate::new(200).set_body_raw(sse, "text/event-stream")
    }
}

/// An OpenAI chat-completions API that records each request and answers
/// from a script.
pub struct FakeOpenAi {
    pub url: String,
    pub seen: Arc<Mutex<Vec<Received>>>,
    _server: MockServer,
}

impl FakeOpenAi {
    pub async fn start(answers: &[&str]) -> FakeOpenAi {
        let server = MockServer::start().await;
        let seen = Arc::new(Mutex::new(Vec::new()));
        Mock::given(wiremock::matchers::method("POST"))
            .and(wiremock::matchers::path("/v1/chat/completions"))
            .respond_with(Script {
                seen: seen.clone(),
                answers: answers.iter().map(|a| a.to_string()).collect(),
            })
            .mount(&server)
            .await;
        FakeOpenAi {
            url: server.uri(),
            seen,
            _server: server,
        }
    }

    pub fn requests(&self) -> Vec<Received> {
        self.seen.lock().unwrap().clone()
    }
}

/// Trusts `folder` in a fresh `$HOME/.copilot`, as a workflow that lets the
/// repository's hooks and MCP servers run would (both files: 1.0.80 has no
/// `--trust-folder`).
pub fn trust(home: &Path, folder: &Path) {
    let dot = home.join(".copilot");
    std::fs::create_dir_all(&dot).unwrap();
    let trusted = json!({"trustedFolders": [folder]}).to_string();
    std::fs::write(dot.join("settings.json"), &trusted).unwrap();
    std::fs::write(dot.join("config.json"), &trusted).unwrap();
}

/// `copilot -p PROMPT --allow-all-tools -s` in `cwd`, then `args`, with
/// `model`; the answer goes to `<workspace>/artifacts/review.json`.
/// Returns the stdout.
#[allow(clippy::too_many_arguments)]
pub fn run(
    version: &str,
    home: &Path,
    server: &str,
    workspace: &Path,
    cwd: &Path,
    prompt: &str,
    model: &str,
    args: &[&str],
) -> String {
    let out = Command::new(installed_at(version))
        .args(["-p", prompt, "--allow-all-tools", "-s"])
        .args(args)
        .current_dir(cwd)
        .env_clear()
        .env("PATH", std::env::var("PATH").unwrap_or_default())
        .env("HOME", home)
        // Where the native binary unpacks its package (235 MB) on first run:
        // once per release for every test, not once per `$HOME`. Auto-update
        // is off, so a newer release found there is never run.
        .env("XDG_CACHE_HOME", repo_root().join("target/copilot-cache"))
        .env("COPILOT_AUTO_UPDATE", "false")
        .env("COPILOT_OFFLINE", "true")
        .env("COPILOT_PROVIDER_BASE_URL", format!("{server}/v1"))
        .env("COPILOT_PROVIDER_API_KEY", "fake-key")
        .env("COPILOT_MODEL", model)
        .env("NO_COLOR", "1")
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "copilot {version} failed ({}): {}\n{}",
        out.status,
        String::from_utf8_lossy(&out.stderr),
        String::from_utf8_lossy(&out.stdout)
    );
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    let review = workspace.join("artifacts/review.json");
    std::fs::create_dir_all(review.parent().unwrap()).unwrap();
    std::fs::write(&review, stdout.trim_end_matches('\n')).unwrap();
    stdout
}

/// [`run`] off the async runtime, which serves the fake meanwhile.
#[allow(clippy::too_many_arguments)]
pub async fn run_beside(
    version: &str,
    home: &Path,
    server: &str,
    workspace: &Path,
    cwd: &Path,
    prompt: &str,
    model: &str,
    args: &[&str],
) -> String {
    let (version, home, server, workspace, cwd, prompt, model) = (
        version.to_string(),
        home.to_path_buf(),
        server.to_string(),
        workspace.to_path_buf(),
        cwd.to_path_buf(),
        prompt.to_string(),
        model.to_string(),
    );
    let args: Vec<String> = args.iter().map(|a| a.to_string()).collect();
    tokio::task::spawn_blocking(move || {
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        run(
            &version, &home, &server, &workspace, &cwd, &prompt, &model, &args,
        )
    })
    .await
    .unwrap()
}

/// Every session record under `$HOME/.copilot`.
pub fn records(home: &Path) -> Vec<PathBuf> {
    prompt_receipt::agent::copilot::check::records(&home.join(".copilot"))
}
