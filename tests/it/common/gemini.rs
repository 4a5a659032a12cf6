//! The real Gemini CLI against a Gemini API on loopback, as
//! google-github-actions/run-gemini-cli runs it (`gemini --yolo --prompt
//! "$PROMPT" --output-format json`, stdout kept as
//! `gemini-artifacts/stdout.log`).
//!
//! `.ci/run` installs `@google/gemini-cli` at each pinned version under
//! `target/gemini-<version>`. The fake records every request (path,
//! `User-Agent`, body) and answers the router (`:generateContent`, a JSON
//! `complexity_score`) and the main request (`:streamGenerateContent?alt=sse`)
//! with the next answer of its script (the last one again once it runs out).
#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::{Arc, Mutex};

use serde_json::{Value, json};
use wiremock::{Mock, MockServer, Request, Respond, ResponseTemplate};

use super::repo_root;

/// The releases the tests run, both measured offline.
pub const VERSIONS: &[&str] = &["0.60.0", "0.61.0"];
/// A valid review of the example's schema.
pub const REVIEW: &str = r#"{"ok":true,"findings":[]}"#;

fn install_prefix(version: &str) -> String {
    format!("target/gemini-{version}")
}

fn installed_at(version: &str) -> PathBuf {
    repo_root().join(install_prefix(version) + "/node_modules/.bin/gemini")
}

/// True when a release the test runs is not installed: the test is then
/// skipped, saying how to install it (under `.ci/run` it fails).
#[track_caller]
pub fn missing(versions: &[&str]) -> bool {
    super::npm_cli_missing(
        "Gemini CLI",
        "@google/gemini-cli",
        install_prefix,
        installed_at,
        versions,
    )
}

/// One request as the fake received it.
#[derive(Clone, Debug)]
pub struct Received {
    pub path: String,
    pub user_agent: String,
    pub body: Value,
}

impl Received {
    pub fn is_router(&self) -> bool {
        self.path.contains(":generateContent")
            && self.body["generationConfig"]
                .to_string()
                .contains("complexity_score")
    }

    pub fn is_main(&self) -> bool {
        self.path.contains(":streamGenerateContent")
    }
}

/// The usage every answer reports: 1000 prompt tokens (100 cached), 20
/// output, 5 thinking.
pub const USAGE: (u64, u64, u64, u64) = (1000, 100, 20, 5);

struct Script {
    seen: Arc<Mutex<Vec<Received>>>,
    answers: Vec<String>,
    main: Arc<Mutex<usize>>,
}

impl Respond for Script {
    fn respond(&self, req: &Request) -> ResponseTemplate {
        let path = format!(
            "{}{}",
            req.url.path(),
            req.url.query().map(|q| format!("?{q}")).unwrap_or_default()
        );
        let received = Received {
            path: path.clone(),
            user_agent: req
                .headers
                .get("user-agent")
                .and_then(|v| v.to_str().ok())
                .unwrap_or_default()
                .to_string(),
            body: serde_json::from_slice(&req.body).unwrap_or(Value::Null),
        };
        self.seen.lock().unwrap().push(received);
        let usage = json!({"promptTokenCount": USAGE.0, "cachedContentTokenCount": USAGE.1, "candidatesTokenCount": USAGE.2, "thoughtsTokenCount": USAGE.3, "totalTokenCount": USAGE.0 + USAGE.2 + USAGE.3});
        if path.contains(":generateContent") {
            // The router asks for a JSON score; anything else is a chat
            // compression (the summary, then its check): a state snapshot.
            let router = received_router(&self.seen);
            let text = if router {
                json!({"complexity_reasoning": "a review", "complexity_score": 60}).to_string()
            } else {
                SNAPSHOT.to_string()
            };
            let body = json!({"candidates": [{"content": {"role": "model", "parts": [{"text": text}]}, "finishReason": "STOP"}], "usageMetadata": usage});
            return ResponseTemplate::new(200).set_body_json(body);
        }
        let n = {
            let mut main = self.main.lock().unwrap();
            *main += 1;
            *main - 1
        };
        let answer = &self.answers[n.min(self.answers.len() - 1)];
        // `read_file:PATH` asks the CLI to read a file (a tool call).
        let part = match answer.strip_prefix("read_file:") {
            Some(path) => {
                json!({"functionCall": {"name": "read_file", "args": {"file_path": path}}})
            }
            None => json!({"text": answer}),
        };
        let chunk = json!({"candidates": [{"content": {"role": "model", "parts": [part]}, "finishReason": "STOP"}], "usageMetadata": usage});
        ResponseTemplate::new(200).set_body_raw(format!("data: {chunk}\n\n"), "text/event-stream")
    }
}

/// What the fake answers a compression request with.
pub const SNAPSHOT: &str = "<state_snapshot>The review so far: nothing found.</state_snapshot>";

/// Whether the request just logged is the router's (it asks for a JSON
/// `complexity_score`).
fn received_router(seen: &Arc<Mutex<Vec<Received>>>) -> bool {
    let seen = seen.lock().unwrap();
    seen.last().is_some_and(Received::is_router)
}

/// A Gemini API that records each request and answers from a script.
pub struct FakeGemini {
    pub url: String,
    pub seen: Arc<Mutex<Vec<Received>>>,
    _server: MockServer,
}

impl FakeGemini {
    pub async fn start(answers: &[&str]) -> FakeGemini {
        let server = MockServer::start().await;
        let seen = Arc::new(Mutex::new(Vec::new()));
        Mock::given(wiremock::matchers::method("POST"))
            .respond_with(Script {
                seen: seen.clone(),
                answers: answers.iter().map(|a| a.to_string()).collect(),
                main: Arc::new(Mutex::new(0)),
            })
            .mount(&server)
            .await;
        FakeGemini {
            url: server.uri(),
            seen,
            _server: server,
        }
    }

    pub fn requests(&self) -> Vec<Received> {
        self.seen.lock().unwrap().clone()
    }

    /// The main requests (neither the router's nor a compression's), in order.
    pub fn main_requests(&self) -> Vec<Received> {
        self.requests()
            .into_iter()
            .filter(|r| r.is_main())
            .collect()
    }
}

/// A fresh `$HOME` for Gemini CLI with the settings that pass its two
/// blockers offline and keep it quiet: the API-key auth (the base URL alone
/// selects `gateway`, which a headless run rejects), no usage statistics, no
/// auto-update; local telemetry into `gemini-artifacts/telemetry.log`.
/// Returns `$HOME/.gemini`, the agent home.
pub fn write_home(home: &Path, global: Option<&str>) -> PathBuf {
    write_home_with(home, global, json!({}))
}

/// [`write_home`] with more user settings (`{"model": {...}}`).
pub fn write_home_with(home: &Path, global: Option<&str>, extra: Value) -> PathBuf {
    let dot = home.join(".gemini");
    std::fs::create_dir_all(&dot).unwrap();
    // Local telemetry as run-gemini-cli's example settings ask for it, kept
    // where the agent job copies it (the system instruction is only there).
    let telemetry = dot.join("gemini-artifacts/telemetry.log");
    std::fs::create_dir_all(telemetry.parent().unwrap()).unwrap();
    let settings = json!({
        "security": {"auth": {"selectedType": "gemini-api-key"}},
        "privacy": {"usageStatisticsEnabled": false},
        "general": {"enableAutoUpdate": false},
        "telemetry": {"enabled": true, "target": "local", "outfile": telemetry}
    });
    let mut settings = settings;
    if let (Some(all), Some(more)) = (settings.as_object_mut(), extra.as_object()) {
        all.extend(more.clone());
    }
    std::fs::write(dot.join("settings.json"), settings.to_string()).unwrap();
    if let Some(g) = global {
        std::fs::write(dot.join("GEMINI.md"), g).unwrap();
    }
    dot
}

/// `gemini --yolo --prompt PROMPT --output-format json` in `cwd`, then
/// `args`, as run-gemini-cli runs it; stdout goes to
/// `<agent home>/gemini-artifacts/stdout.log` and the response to
/// `<workspace>/artifacts/review.json`. Returns the stdout.
pub fn run(
    version: &str,
    home: &Path,
    server: &str,
    workspace: &Path,
    cwd: &Path,
    prompt: &str,
    args: &[&str],
) -> Value {
    let out = Command::new(installed_at(version))
        .args(["--yolo", "--prompt", prompt, "--output-format", "json"])
        .args(args)
        .current_dir(cwd)
        .env_clear()
        .env("PATH", std::env::var("PATH").unwrap_or_default())
        .env("HOME", home)
        .env("GEMINI_CLI_TRUST_WORKSPACE", "true")
        .env("GOOGLE_GEMINI_BASE_URL", server)
        .env("GEMINI_API_KEY", "fake-key")
        .env("NO_COLOR", "1")
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "gemini {version} failed ({}): {}\n{}",
        out.status,
        String::from_utf8_lossy(&out.stderr),
        String::from_utf8_lossy(&out.stdout)
    );
    super::keep_records(home, "gemini", version);
    let artifacts = home.join(".gemini/gemini-artifacts");
    std::fs::create_dir_all(&artifacts).unwrap();
    std::fs::write(artifacts.join("stdout.log"), &out.stdout).unwrap();
    let stdout: Value = serde_json::from_slice(&out.stdout).unwrap();
    let review = workspace.join("artifacts/review.json");
    std::fs::create_dir_all(review.parent().unwrap()).unwrap();
    std::fs::write(&review, stdout["response"].as_str().unwrap_or_default()).unwrap();
    stdout
}

/// [`run`] off the async runtime, which serves the fake meanwhile.
pub async fn run_beside(
    version: &str,
    home: &Path,
    server: &str,
    workspace: &Path,
    cwd: &Path,
    prompt: &str,
    args: &[&str],
) -> Value {
    let (version, home, server, workspace, cwd, prompt) = (
        version.to_string(),
        home.to_path_buf(),
        server.to_string(),
        workspace.to_path_buf(),
        cwd.to_path_buf(),
        prompt.to_string(),
    );
    let args: Vec<String> = args.iter().map(|a| a.to_string()).collect();
    tokio::task::spawn_blocking(move || {
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        run(&version, &home, &server, &workspace, &cwd, &prompt, &args)
    })
    .await
    .unwrap()
}

/// The texts of a request's `contents`, part by part: `(content index, role, text)`.
pub fn parts(body: &Value) -> Vec<(usize, String, String)> {
    let mut out = Vec::new();
    for (i, c) in body["contents"].as_array().unwrap().iter().enumerate() {
        for p in c["parts"].as_array().unwrap() {
            if let Some(t) = p["text"].as_str() {
                out.push((i, c["role"].as_str().unwrap().to_string(), t.to_string()));
            }
        }
    }
    out
}

/// The `<project_context>` text in the first part of a request, with the
/// checkout's path (`root` and its `/`) removed: what `agents_sha` hashes.
pub fn project_context(body: &Value, root: &Path) -> Option<String> {
    let first = body["contents"][0]["parts"][0]["text"].as_str()?;
    let start = first.find("<project_context>\n")? + "<project_context>\n".len();
    let end = first[start..].rfind("\n</project_context>")? + start;
    Some(first[start..end].replace(&format!("{}/", root.display()), ""))
}

/// The receipt's `context_sha` of a request whose prompt is the part holding
/// `prompt_part` (the last such part): every text part before it,
/// `[{"role", "text"}]`, keys sorted, no whitespace.
pub fn context_sha(body: &Value, prompt_part: &str) -> String {
    let all = parts(body);
    let at = all
        .iter()
        .rposition(|(_, _, t)| t == prompt_part)
        .expect("the prompt part");
    let before: Vec<Value> = all[..at]
        .iter()
        .map(|(_, role, text)| json!({"role": role, "text": text}))
        .collect();
    prompt_receipt::digest::sha256_hex(serde_json::to_string(&before).unwrap().as_bytes())
}

/// The request's system instruction, its text parts joined.
pub fn system_instruction(body: &Value) -> String {
    body["systemInstruction"]["parts"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|p| p["text"].as_str())
        .collect()
}
