//! The real opencode (npm `opencode-ai`) against an OpenAI-compatible
//! chat-completions API on loopback, offline: a custom provider in
//! `~/.config/opencode/opencode.json` (`@ai-sdk/openai-compatible`, bundled
//! in the binary), `OPENCODE_DISABLE_AUTOUPDATE`, `OPENCODE_DISABLE_MODELS_FETCH`,
//! and the npm registry pointed at a closed loopback port. Run as
//! `opencode run < prompt.md`, its stdout kept as `artifacts/review.json`.
//!
//! opencode installs `@opencode-ai/plugin` into each configuration folder it
//! reads (`~/.config/opencode`, and a repository's `.opencode/`) unless the
//! folder holds `node_modules/` and a `package-lock.json` listing it; with no
//! registry it waits about 70 s for that install when the repository has
//! `.opencode/`. So each folder is pre-filled from one online install of
//! the package at the CLI's version (`target/opencode-plugin-<version>`, by
//! `.ci/run`): the lock and manifest copied, `node_modules` a link.
//!
//! The fake records every request (path, body, `User-Agent`) and answers
//! opencode's title request with a title, and every other request with the
//! next answer of its script (the last again once it runs out), as a stream
//! of chat-completion chunks with a usage chunk.
#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::{Arc, Mutex};

use serde_json::{Value, json};
use wiremock::{Mock, MockServer, Request, Respond, ResponseTemplate};

use super::repo_root;

/// The releases the tests run, both measured offline.
pub const VERSIONS: &[&str] = &["1.18.32", "1.18.33"];
/// The provider and model of the fake, as opencode's `--model` names them.
pub const MODEL: &str = "fake/fake-model";
/// A valid review of the example's schema.
pub const REVIEW: &str = r#"{"ok":true,"findings":[]}"#;
/// The usage every answer reports: prompt tokens (of which cached), completion tokens.
pub const USAGE: (u64, u64, u64) = (1000, 20, 100);
/// How opencode's title request starts its system prompt.
const TITLE: &str = "You are a title generator";

fn install_prefix(version: &str) -> String {
    format!("target/opencode-{version}")
}

fn installed_at(version: &str) -> PathBuf {
    repo_root().join(install_prefix(version) + "/node_modules/.bin/opencode")
}

fn plugin_prefix(version: &str) -> String {
    format!("target/opencode-plugin-{version}")
}

fn plugin_at(version: &str) -> PathBuf {
    repo_root().join(plugin_prefix(version) + "/node_modules/@opencode-ai/plugin/package.json")
}

/// True when a release the test runs, or the plugin package its
/// configuration folders are pre-filled with, is not installed: the test is
/// then skipped, saying how to install them (under `.ci/run` it fails).
#[track_caller]
pub fn missing(versions: &[&str]) -> bool {
    super::npm_cli_missing(
        "opencode",
        "opencode-ai",
        install_prefix,
        installed_at,
        versions,
    ) || super::npm_cli_missing(
        "opencode's plugin package",
        "@opencode-ai/plugin",
        plugin_prefix,
        plugin_at,
        versions,
    )
}

/// One request as the fake received it.
#[derive(Clone, Debug)]
pub struct Received {
    pub path: String,
    pub body: Value,
    pub user_agent: String,
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

    /// opencode's title request, which its record does not count.
    pub fn is_title(&self) -> bool {
        text(&self.body["messages"][0]["content"]).starts_with(TITLE)
    }

    /// The instruction files in the system prompt, as opencode writes them
    /// (`Instructions from: <path>\n<text>`, joined with `\n`), each
    /// absolute path written as the receipt names the file: relative to
    /// `workspace`, `~/` for one of `home`. Up to the skills opencode lists
    /// after them.
    pub fn instructions(&self, workspace: &Path, home: &Path) -> String {
        let system = self.system();
        let start = system
            .find("Instructions from: ")
            .unwrap_or_else(|| panic!("no instruction file in the system prompt: {system}"));
        let end = system[start..]
            .find("\nSkills provide specialized instructions")
            .map_or(system.len(), |e| start + e);
        system[start..end]
            .replace(
                &format!("Instructions from: {}/", workspace.display()),
                "Instructions from: ",
            )
            .replace(
                &format!("Instructions from: {}/", home.display()),
                "Instructions from: ~/",
            )
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
        let received = Received {
            path: req.url.path().to_string(),
            body: body.clone(),
            user_agent: req
                .headers
                .get("user-agent")
                .and_then(|v| v.to_str().ok())
                .unwrap_or_default()
                .to_string(),
        };
        let title = received.is_title();
        let n = {
            let mut seen = self.seen.lock().unwrap();
            seen.push(received);
            seen.iter().filter(|r| !r.is_title()).count()
        };
        let answer = if title {
            "Review"
        } else {
            &self.answers[n.saturating_sub(1).min(self.answers.len() - 1)]
        };
        ResponseTemplate::new(200).set_body_raw(sse(answer, n, &body), "text/event-stream")
    }
}

/// The answer as a stream of chunks: `bash:COMMAND` asks opencode to run a
/// command, `read:PATH` to read a file (a tool call each), anything else is
/// the answer's text.
fn sse(answer: &str, n: usize, body: &Value) -> String {
    let id = format!("fake-{n}");
    let model = body["model"].as_str().unwrap_or("fake-model").to_string();
    let chunk = |delta: Value, finish: Value| {
        json!({"id": id, "object": "chat.completion.chunk", "created": 0, "model": model,
               "choices": [{"index": 0, "delta": delta, "finish_reason": finish}]})
    };
    let call = answer
        .strip_prefix("bash:")
        .map(|cmd| ("bash", json!({"command": cmd, "description": "run"})))
        .or_else(|| {
            answer
                .strip_prefix("read:")
                .map(|path| ("read", json!({"filePath": path})))
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
    events.push(json!({"id": id, "object": "chat.completion.chunk", "created": 0, "model": model, "choices": [],
        "usage": {"prompt_tokens": USAGE.0, "completion_tokens": USAGE.2, "total_tokens": USAGE.0 + USAGE.2,
                  "prompt_tokens_details": {"cached_tokens": USAGE.1}}}));
    let mut out: String = events.iter().map(|e| format!("data: {e}\n\n")).collect();
    out.push_str("data: [DONE]\n\n");
    out
}

/// An OpenAI-compatible chat-completions API that records each request and
/// answers from a script.
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

    /// Every request, the title requests too.
    pub fn requests(&self) -> Vec<Received> {
        self.seen.lock().unwrap().clone()
    }

    /// The requests opencode's record counts: all but the title's.
    pub fn main(&self) -> Vec<Received> {
        self.requests()
            .into_iter()
            .filter(|r| !r.is_title())
            .collect()
    }
}

/// A fresh agent `$HOME`: the fake as opencode's only provider, and its
/// configuration folder pre-filled.
pub fn home(home: &Path, server: &str, version: &str) {
    let config = home.join(".config/opencode");
    std::fs::create_dir_all(&config).unwrap();
    let settings = json!({
        "$schema": "https://opencode.ai/config.json",
        "provider": {"fake": {"npm": "@ai-sdk/openai-compatible", "name": "Fake",
            "options": {"baseURL": format!("{server}/v1"), "apiKey": "dummy-key"},
            "models": {"fake-model": {"name": "Fake Model", "tool_call": true}}}},
        "model": MODEL,
        "autoupdate": false,
        "share": "disabled",
    });
    std::fs::write(config.join("opencode.json"), settings.to_string()).unwrap();
    prefill(&config, version);
}

/// A configuration folder with `@opencode-ai/plugin` already there, as one
/// online install leaves it: opencode then installs nothing.
pub fn prefill(dir: &Path, version: &str) {
    let from = repo_root().join(plugin_prefix(version));
    std::fs::create_dir_all(dir).unwrap();
    for file in ["package.json", "package-lock.json"] {
        std::fs::copy(from.join(file), dir.join(file)).unwrap();
    }
    let link = dir.join("node_modules");
    if std::fs::symlink_metadata(&link).is_err() {
        std::os::unix::fs::symlink(from.join("node_modules"), &link).unwrap();
    }
}

/// The `.gitignore` opencode writes in a configuration folder it installs
/// into: committed with a repository's `.opencode/`, so that the pre-filled
/// files stay out of its snapshots.
pub const GITIGNORE: &str = "node_modules\npackage.json\npackage-lock.json\nbun.lock\n.gitignore";

/// `opencode run < prompt` in `cwd`, then `args`; the answer goes to
/// `<workspace>/artifacts/review.json`. Returns the stdout.
pub fn run(
    version: &str,
    home: &Path,
    workspace: &Path,
    cwd: &Path,
    prompt: &Path,
    args: &[&str],
) -> String {
    let out = Command::new(installed_at(version))
        .arg("run")
        .args(args)
        .current_dir(cwd)
        .env_clear()
        .env("PATH", std::env::var("PATH").unwrap_or_default())
        .env("HOME", home)
        .env("OPENCODE_DISABLE_AUTOUPDATE", "1")
        .env("OPENCODE_DISABLE_MODELS_FETCH", "1")
        .env("OPENCODE_DISABLE_LSP_DOWNLOAD", "1")
        .env("OPENCODE_DISABLE_SHARE", "1")
        // No registry: an install it still tries fails at once.
        .env("NPM_CONFIG_REGISTRY", "http://127.0.0.1:9/")
        .env("NO_COLOR", "1")
        .stdin(Stdio::from(std::fs::File::open(prompt).unwrap()))
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "opencode {version} failed ({}): {}\n{}",
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
pub async fn run_beside(
    version: &str,
    home: &Path,
    workspace: &Path,
    cwd: &Path,
    prompt: &Path,
    args: &[&str],
) -> String {
    let (version, home, workspace, cwd, prompt) = (
        version.to_string(),
        home.to_path_buf(),
        workspace.to_path_buf(),
        cwd.to_path_buf(),
        prompt.to_path_buf(),
    );
    let args: Vec<String> = args.iter().map(|a| a.to_string()).collect();
    tokio::task::spawn_blocking(move || {
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        run(&version, &home, &workspace, &cwd, &prompt, &args)
    })
    .await
    .unwrap()
}
