//! A local GitHub Checks API that checks each request as GitHub would: first
//! against GitHub's published OpenAPI description (method, path, parameters,
//! body schema; see `openapi.rs`), then the rules the description states in
//! words: the token, at most 50 annotations a request, annotation lines and
//! columns, `summary`/`text` lengths. Its own answers are checked against the
//! description's response schemas too. A request or answer that does not
//! conform is kept, and the fake fails the test when it is dropped: a 422 the
//! binary shrugs off as "not published" cannot pass unnoticed.
//!
//! It keeps the check runs it made, so a run created by a request answered
//! with an error can be found again, lists them a page at a time as GitHub
//! does, and records every request so tests can count them. A run created
//! with the job's token is the GitHub Actions app's, as GitHub makes it; the
//! check runs GitHub Actions posts for jobs themselves can be put on a commit
//! beforehand (`post_job_check_run`), and the listing made to fail
//! (`fail_listing`).
#![allow(dead_code)]

use std::collections::VecDeque;
use std::sync::{Arc, Mutex};

use serde_json::{Value, json};
use wiremock::matchers::{method, path_regex};
use wiremock::{Mock, MockServer, Request, Respond, ResponseTemplate};

pub const TOKEN: &str = "ghs_faketoken0123456789";
pub const REPO: &str = "octo/widgets";
/// An installation token of the repository's own GitHub App (receipt.yml
/// mints one with `app-client-id`): check runs it creates are that app's.
pub const APP_TOKEN: &str = "ghs_appinstallation0123456789";
pub const APP_SLUG: &str = "octo-receipts";

/// A fault to inject into the next create request.
#[derive(Clone, Debug)]
pub struct Fault {
    pub status: u16,
    pub headers: Vec<(String, String)>,
    /// The run is made although the answer is an error (a 5xx after the write).
    pub created_anyway: bool,
}

#[derive(Clone, Debug)]
pub struct Recorded {
    pub method: String,
    pub path: String,
    /// The query string's pairs, decoded.
    pub query: Vec<(String, String)>,
    pub body: Value,
}

#[derive(Default)]
pub struct State {
    pub runs: Vec<Value>,
    pub requests: Vec<Recorded>,
    pub create_faults: VecDeque<Fault>,
    /// Every request is refused with this status and message (a fork's token).
    pub refuse: Option<(u16, String)>,
    /// Every listing is answered with this status and message.
    pub list_fault: Option<(u16, String)>,
    /// Requests and answers that do not conform to the OpenAPI description.
    pub violations: Vec<String>,
}

pub struct FakeGitHub {
    pub server: MockServer,
    pub state: Arc<Mutex<State>>,
    prefix: String,
}

impl FakeGitHub {
    pub async fn start() -> FakeGitHub {
        FakeGitHub::serving_under("").await
    }

    /// GitHub Enterprise Server serves the API under `/api/v3`.
    pub async fn serving_under(prefix: &str) -> FakeGitHub {
        // Read (and fetched, the first time) before any request waits on it.
        super::openapi::spec();
        let server = MockServer::start().await;
        let state = Arc::new(Mutex::new(State::default()));
        Mock::given(method("POST"))
            .and(path_regex(format!(
                r"^{prefix}/repos/[^/]+/[^/]+/check-runs$"
            )))
            .respond_with(Create(state.clone(), prefix.to_string()))
            .mount(&server)
            .await;
        Mock::given(method("PATCH"))
            .and(path_regex(format!(
                r"^{prefix}/repos/[^/]+/[^/]+/check-runs/\d+$"
            )))
            .respond_with(Update(state.clone(), prefix.to_string()))
            .mount(&server)
            .await;
        Mock::given(method("GET"))
            .and(path_regex(format!(
                r"^{prefix}/repos/[^/]+/[^/]+/check-runs/\d+$"
            )))
            .respond_with(GetOne(state.clone(), prefix.to_string()))
            .mount(&server)
            .await;
        Mock::given(method("GET"))
            .and(path_regex(format!(
                r"^{prefix}/repos/[^/]+/[^/]+/commits/[0-9a-f]+/check-runs$"
            )))
            .respond_with(List(state.clone(), prefix.to_string()))
            .mount(&server)
            .await;
        FakeGitHub {
            server,
            state,
            prefix: prefix.to_string(),
        }
    }

    /// Check runs of this name that failed (other jobs of a matrix, earlier
    /// receipts), so lookups have pages to go through: having failed, they
    /// cannot pass, and are no imitations.
    pub fn seed_runs(&self, head_sha: &str, name: &str, n: usize) {
        let mut state = self.state.lock().unwrap();
        for i in 0..n {
            let id = 4_000_000_000u64 + state.runs.len() as u64 + 1;
            let run = run_object(
                id,
                &json!({"head_sha": head_sha, "name": name,
                        "external_id": format!("prompt-receipt/123456789/1/matrix-{i}/{i:016x}"),
                        "details_url": "https://github.com/octo/widgets/actions/runs/123456789/attempts/1",
                        "status": "completed", "conclusion": "failure",
                        "output": {"title": "other", "summary": "other"}}),
                0,
            );
            state.runs.push(run);
        }
    }

    /// The GETs made after the first create: lookups for a run that may exist.
    pub fn lookups_after_create(&self) -> usize {
        self.requests()
            .iter()
            .skip_while(|r| r.method != "POST")
            .filter(|r| r.method == "GET")
            .count()
    }

    /// The check run GitHub Actions posts for a job of another workflow run
    /// (a job whose `name:` is the check's): the Actions app's, its
    /// `details_url` the job's page, in that run's check suite. Its id.
    pub fn post_job_check_run(&self, head_sha: &str, name: &str, run_id: u64, job_id: u64) -> u64 {
        let mut state = self.state.lock().unwrap();
        let id = 4_000_000_000u64 + state.runs.len() as u64 + 1;
        let mut run = run_object(
            id,
            &json!({"head_sha": head_sha, "name": name, "external_id": format!("{job_id:08x}-040a-526b-2ce8-bdc85f692774"),
                    "status": "completed", "conclusion": "success",
                    "details_url": format!("https://github.com/{REPO}/actions/runs/{run_id}/job/{job_id}"),
                    "output": {"title": null, "summary": null}}),
            0,
        );
        run["check_suite"] = json!({"id": 6_000_000_000u64 + run_id});
        state.runs.push(run);
        id
    }

    /// A check run another GitHub App posted on the commit. Its id.
    pub fn post_app_check_run(&self, head_sha: &str, name: &str, slug: &str) -> u64 {
        let mut state = self.state.lock().unwrap();
        let id = 4_000_000_000u64 + state.runs.len() as u64 + 1;
        let mut run = run_object(
            id,
            &json!({"head_sha": head_sha, "name": name, "external_id": "x",
                    "status": "completed", "conclusion": "success",
                    "details_url": "https://example.com/checks/1",
                    "output": {"title": "ok", "summary": "ok"}}),
            0,
        );
        run["app"]["id"] = json!(999_001);
        run["app"]["slug"] = json!(slug);
        run["app"]["name"] = json!(slug);
        state.runs.push(run);
        id
    }

    /// Listing check runs answers `status` from now on.
    pub fn fail_listing(&self, status: u16, message: &str) {
        self.state.lock().unwrap().list_fault = Some((status, message.to_string()));
    }

    /// What `GITHUB_API_URL` is set to.
    pub fn url(&self) -> String {
        format!("{}{}", self.server.uri(), self.prefix)
    }

    pub fn fail_next_create(&self, status: u16, headers: &[(&str, &str)], created_anyway: bool) {
        self.state.lock().unwrap().create_faults.push_back(Fault {
            status,
            headers: headers
                .iter()
                .map(|(k, v)| (k.to_string(), v.to_string()))
                .collect(),
            created_anyway,
        });
    }

    pub fn refuse_all(&self, status: u16, message: &str) {
        self.state.lock().unwrap().refuse = Some((status, message.to_string()));
    }

    pub fn runs(&self) -> Vec<Value> {
        self.state.lock().unwrap().runs.clone()
    }

    pub fn requests(&self) -> Vec<Recorded> {
        self.state.lock().unwrap().requests.clone()
    }

    pub fn count(&self, method: &str) -> usize {
        self.requests()
            .iter()
            .filter(|r| r.method == method)
            .count()
    }
}

impl Drop for FakeGitHub {
    fn drop(&mut self) {
        if std::thread::panicking() {
            return;
        }
        let violations = std::mem::take(&mut self.state.lock().unwrap().violations);
        assert!(
            violations.is_empty(),
            "requests or answers outside GitHub's OpenAPI description:\n{}",
            violations.join("\n")
        );
    }
}

/// Keeps the request, and checks it against the OpenAPI description: the
/// operation it is for, or a 422 naming what does not conform.
fn record(
    state: &Mutex<State>,
    req: &Request,
    prefix: &str,
) -> Result<(Value, &'static super::openapi::Operation), Box<ResponseTemplate>> {
    let body: Value = serde_json::from_slice(&req.body).unwrap_or(Value::Null);
    let mut state = state.lock().unwrap();
    state.requests.push(Recorded {
        method: req.method.to_string(),
        path: req.url.path().to_string(),
        query: req
            .url
            .query_pairs()
            .map(|(k, v)| (k.into_owned(), v.into_owned()))
            .collect(),
        body: body.clone(),
    });
    let path = req
        .url
        .path()
        .strip_prefix(prefix)
        .unwrap_or(req.url.path());
    let query: Vec<(String, String)> = req
        .url
        .query_pairs()
        .map(|(k, v)| (k.into_owned(), v.into_owned()))
        .collect();
    match super::openapi::spec().check_request(req.method.as_str(), path, &query, &req.body) {
        Ok(op) => Ok((body, op)),
        Err(problems) => {
            state.violations.extend(problems.iter().cloned());
            Err(Box::new(ResponseTemplate::new(422).set_body_json(
                json!({"message": "Validation Failed", "errors": problems}),
            )))
        }
    }
}

/// A success answer, checked against the description's response schema.
fn answer(
    state: &Mutex<State>,
    op: &super::openapi::Operation,
    status: u16,
    body: Value,
) -> ResponseTemplate {
    if let Err(problems) = op.check_response(status, &body) {
        state.lock().unwrap().violations.extend(problems);
    }
    ResponseTemplate::new(status).set_body_json(body)
}

/// A check run as GitHub returns it.
fn run_object(id: u64, body: &Value, annotations: usize) -> Value {
    json!({
        "id": id,
        "node_id": "CR_kwDOABCD",
        "head_sha": body["head_sha"],
        "external_id": body["external_id"],
        "name": body["name"],
        "status": body["status"],
        "conclusion": body["conclusion"],
        "details_url": body["details_url"],
        "url": format!("https://api.github.com/repos/{REPO}/check-runs/{id}"),
        "html_url": format!("https://github.com/{REPO}/runs/{id}"),
        "started_at": "2026-11-29T12:00:00Z",
        "completed_at": "2026-11-29T12:00:01Z",
        "output": {
            "title": body["output"]["title"],
            "summary": body["output"]["summary"],
            "text": body["output"]["text"],
            "annotations_count": annotations,
            "annotations_url": format!("https://api.github.com/repos/{REPO}/check-runs/{id}/annotations")
        },
        "check_suite": {"id": 5_000_000_001u64},
        "app": github_actions_app(),
        "annotations": body["output"]["annotations"].as_array().cloned().unwrap_or_default(),
        "pull_requests": []
    })
}

/// The GitHub Actions app, as the API shows it on a check run: every job's
/// `GITHUB_TOKEN` acts as it, whichever workflow the job is in.
fn github_actions_app() -> Value {
    json!({
        "id": 15368,
        "slug": "github-actions",
        "node_id": "MDM6QXBwMTUzNjg=",
        "client_id": "Iv1.05c79e9ad1f6bdfa",
        "owner": {
            "login": "github", "id": 9919, "node_id": "MDEyOk9yZ2FuaXphdGlvbjk5MTk=",
            "avatar_url": "https://avatars.githubusercontent.com/u/9919?v=4", "gravatar_id": "",
            "url": "https://api.github.com/users/github", "html_url": "https://github.com/github",
            "followers_url": "https://api.github.com/users/github/followers",
            "following_url": "https://api.github.com/users/github/following{/other_user}",
            "gists_url": "https://api.github.com/users/github/gists{/gist_id}",
            "starred_url": "https://api.github.com/users/github/starred{/owner}{/repo}",
            "subscriptions_url": "https://api.github.com/users/github/subscriptions",
            "organizations_url": "https://api.github.com/users/github/orgs",
            "repos_url": "https://api.github.com/users/github/repos",
            "events_url": "https://api.github.com/users/github/events{/privacy}",
            "received_events_url": "https://api.github.com/users/github/received_events",
            "type": "Organization", "site_admin": false
        },
        "name": "GitHub Actions",
        "description": "Automate your workflow from idea to production",
        "external_url": "https://help.github.com/en/actions",
        "html_url": "https://github.com/apps/github-actions",
        "created_at": "2018-07-30T09:30:17Z",
        "updated_at": "2024-04-10T20:33:16Z",
        "permissions": {"checks": "write", "contents": "write", "metadata": "read"},
        "events": ["check_run", "check_suite", "pull_request", "push", "workflow_run"]
    })
}

fn error(status: u16, message: &str) -> ResponseTemplate {
    ResponseTemplate::new(status).set_body_json(json!({
        "message": message,
        "documentation_url": "https://docs.github.com/rest/checks/runs",
        "status": status.to_string()
    }))
}

/// GitHub answers 401 without a valid token; accepts `Bearer` and `token`.
fn authorized(req: &Request) -> bool {
    app_of(req).is_some()
}

/// The app a request's token acts as: the job's token is GitHub Actions',
/// [`APP_TOKEN`] the repository's own app's. `None`: no valid token.
fn app_of(req: &Request) -> Option<Value> {
    let auth = req
        .headers
        .get("authorization")
        .and_then(|v| v.to_str().ok())
        .unwrap_or("");
    let token = auth
        .strip_prefix("Bearer ")
        .or_else(|| auth.strip_prefix("token "))?;
    if token == TOKEN {
        return Some(github_actions_app());
    }
    (token == APP_TOKEN).then(|| {
        let mut app = github_actions_app();
        app["id"] = json!(777_001);
        app["slug"] = json!(APP_SLUG);
        app["name"] = json!("Octo receipts");
        app["client_id"] = json!("Iv23liOctoReceipts");
        app
    })
}

fn gate(state: &Mutex<State>, req: &Request) -> Option<ResponseTemplate> {
    if !authorized(req) {
        return Some(error(401, "Bad credentials"));
    }
    if let Some((status, message)) = &state.lock().unwrap().refuse {
        return Some(error(*status, message));
    }
    None
}

/// The Checks API's validation of `output`.
fn check_output(output: &Value, annotations_required_fields: bool) -> Result<usize, String> {
    let Some(o) = output.as_object() else {
        return Err("output must be an object".into());
    };
    for field in ["title", "summary"] {
        if !o.get(field).is_some_and(Value::is_string) {
            return Err(format!("output.{field} is required"));
        }
    }
    for field in ["summary", "text"] {
        if let Some(s) = o.get(field).and_then(Value::as_str) {
            if s.chars().count() > 65535 {
                return Err(format!(
                    "output.{field} is too long (maximum is 65535 characters)"
                ));
            }
        }
    }
    let annotations = o
        .get("annotations")
        .and_then(Value::as_array)
        .cloned()
        .unwrap_or_default();
    if annotations.len() > 50 {
        return Err(format!(
            "output.annotations has {} items; the maximum is 50",
            annotations.len()
        ));
    }
    for a in &annotations {
        if annotations_required_fields {
            for field in ["path", "annotation_level", "message"] {
                if !a.get(field).is_some_and(Value::is_string) {
                    return Err(format!("annotation.{field} is required"));
                }
            }
            for field in ["start_line", "end_line"] {
                if a.get(field)
                    .is_none_or(|v| v.as_u64().is_none_or(|n| n < 1))
                {
                    return Err(format!("annotation.{field} must be a positive integer"));
                }
            }
        }
        let level = a["annotation_level"].as_str().unwrap_or("");
        if !["notice", "warning", "failure"].contains(&level) {
            return Err(format!(
                "annotation_level `{level}` is not one of notice, warning, failure"
            ));
        }
        if a.get("title")
            .and_then(Value::as_str)
            .is_some_and(|t| t.chars().count() > 255)
        {
            return Err("annotation.title is too long (maximum is 255 characters)".into());
        }
        if a["message"].as_str().is_some_and(|m| m.len() > 64 * 1024) {
            return Err("annotation.message is too long (maximum is 64 KB)".into());
        }
        let has_columns = a.get("start_column").is_some() || a.get("end_column").is_some();
        if has_columns && a["start_line"] != a["end_line"] {
            return Err("columns are only allowed when start_line equals end_line".into());
        }
    }
    Ok(annotations.len())
}

struct Create(Arc<Mutex<State>>, String);

impl Respond for Create {
    fn respond(&self, req: &Request) -> ResponseTemplate {
        if let Some(refusal) = gate(&self.0, req) {
            record(&self.0, req, &self.1).ok();
            return refusal;
        }
        let (body, op) = match record(&self.0, req, &self.1) {
            Ok(ok) => ok,
            Err(unprocessable) => return *unprocessable,
        };
        let mut problems = Vec::new();
        for field in ["name", "head_sha"] {
            if body
                .get(field)
                .and_then(Value::as_str)
                .is_none_or(str::is_empty)
            {
                problems.push(format!("{field} is required"));
            }
        }
        if !body["head_sha"]
            .as_str()
            .is_some_and(|s| s.len() == 40 && s.bytes().all(|b| b.is_ascii_hexdigit()))
        {
            problems.push("head_sha is not a commit SHA".into());
        }
        if body["status"] == "completed" {
            let allowed = [
                "success",
                "failure",
                "neutral",
                "cancelled",
                "skipped",
                "timed_out",
                "action_required",
            ];
            if !body["conclusion"]
                .as_str()
                .is_some_and(|c| allowed.contains(&c))
            {
                problems.push("conclusion is required when status is completed".into());
            }
        }
        let annotations = match check_output(&body["output"], true) {
            Ok(n) => n,
            Err(e) => {
                problems.push(e);
                0
            }
        };
        if !problems.is_empty() {
            return ResponseTemplate::new(422)
                .set_body_json(json!({"message": "Validation Failed", "errors": problems}));
        }
        let mut state = self.0.lock().unwrap();
        let fault = state.create_faults.pop_front();
        if fault.as_ref().is_none_or(|f| f.created_anyway) {
            let id = 4_000_000_000u64 + state.runs.len() as u64 + 1;
            let mut run = run_object(id, &body, annotations);
            // GitHub sets the app: the token's, whatever the body says.
            run["app"] = app_of(req).expect("authorized");
            state.runs.push(run.clone());
            if fault.is_none() {
                let mut created = run;
                created.as_object_mut().unwrap().remove("annotations");
                drop(state);
                return answer(&self.0, op, 201, created);
            }
        }
        let fault = fault.expect("a fault");
        let mut answer = error(
            fault.status,
            if fault.status >= 500 {
                "Server Error"
            } else {
                "API rate limit exceeded"
            },
        );
        for (k, v) in &fault.headers {
            answer = answer.insert_header(k.as_str(), v.as_str());
        }
        answer
    }
}

struct Update(Arc<Mutex<State>>, String);

impl Respond for Update {
    fn respond(&self, req: &Request) -> ResponseTemplate {
        if let Some(refusal) = gate(&self.0, req) {
            record(&self.0, req, &self.1).ok();
            return refusal;
        }
        let (body, op) = match record(&self.0, req, &self.1) {
            Ok(ok) => ok,
            Err(unprocessable) => return *unprocessable,
        };
        if let Err(e) = check_output(&body["output"], true) {
            return ResponseTemplate::new(422)
                .set_body_json(json!({"message": "Validation Failed", "errors": [e]}));
        }
        let id: u64 = req.url.path().rsplit('/').next().unwrap().parse().unwrap();
        let mut state = self.0.lock().unwrap();
        let Some(run) = state.runs.iter_mut().find(|r| r["id"] == id) else {
            return error(404, "Not Found");
        };
        // Only the app that created a check run can change it.
        if app_of(req).map(|a| a["id"].clone()) != Some(run["app"]["id"].clone()) {
            return error(403, "Invalid app_id");
        }
        let added = body["output"]["annotations"]
            .as_array()
            .cloned()
            .unwrap_or_default();
        run["annotations"].as_array_mut().unwrap().extend(added);
        // What an update sets, as GitHub applies it.
        for key in ["title", "summary", "text"] {
            if let Some(v) = body["output"].get(key) {
                run["output"][key] = v.clone();
            }
        }
        for key in ["status", "conclusion", "details_url"] {
            if let Some(v) = body.get(key) {
                run[key] = v.clone();
            }
        }
        run["output"]["annotations_count"] = json!(run["annotations"].as_array().unwrap().len());
        let mut updated = run.clone();
        updated.as_object_mut().unwrap().remove("annotations");
        drop(state);
        answer(&self.0, op, 200, updated)
    }
}

/// `GET /repos/{owner}/{repo}/check-runs/{id}`: one check run, as receipt.yml's
/// signature job reads the one its receipt step created.
struct GetOne(Arc<Mutex<State>>, String);

impl Respond for GetOne {
    fn respond(&self, req: &Request) -> ResponseTemplate {
        if let Some(refusal) = gate(&self.0, req) {
            record(&self.0, req, &self.1).ok();
            return refusal;
        }
        let op = match record(&self.0, req, &self.1) {
            Ok((_, op)) => op,
            Err(unprocessable) => return *unprocessable,
        };
        let id: u64 = req.url.path().rsplit('/').next().unwrap().parse().unwrap();
        let state = self.0.lock().unwrap();
        let Some(run) = state.runs.iter().find(|r| r["id"] == id) else {
            return error(404, "Not Found");
        };
        let mut run = run.clone();
        run.as_object_mut().unwrap().remove("annotations");
        drop(state);
        answer(&self.0, op, 200, run)
    }
}

struct List(Arc<Mutex<State>>, String);

impl Respond for List {
    fn respond(&self, req: &Request) -> ResponseTemplate {
        if let Some(refusal) = gate(&self.0, req) {
            record(&self.0, req, &self.1).ok();
            return refusal;
        }
        let op = match record(&self.0, req, &self.1) {
            Ok((_, op)) => op,
            Err(unprocessable) => return *unprocessable,
        };
        if let Some((status, message)) = &self.0.lock().unwrap().list_fault {
            return error(*status, message);
        }
        let path = req.url.path();
        let sha = path
            .split("/commits/")
            .nth(1)
            .unwrap()
            .split('/')
            .next()
            .unwrap()
            .to_string();
        let name = req
            .url
            .query_pairs()
            .find(|(k, _)| k == "check_name")
            .map(|(_, v)| v.into_owned());
        let number = |key: &str, default: usize| {
            req.url
                .query_pairs()
                .find(|(k, _)| k == key)
                .and_then(|(_, v)| v.parse::<usize>().ok())
                .unwrap_or(default)
        };
        // GitHub's paging: 30 a page unless asked, at most 100.
        let per_page = number("per_page", 30).clamp(1, 100);
        let page = number("page", 1).max(1);
        let state = self.0.lock().unwrap();
        let runs: Vec<Value> = state
            .runs
            .iter()
            .filter(|r| r["head_sha"] == sha && name.as_ref().is_none_or(|n| r["name"] == *n))
            .map(|r| {
                let mut r = r.clone();
                r.as_object_mut().unwrap().remove("annotations");
                r
            })
            .collect();
        let total = runs.len();
        let this_page: Vec<Value> = runs
            .into_iter()
            .skip((page - 1) * per_page)
            .take(per_page)
            .collect();
        drop(state);
        answer(
            &self.0,
            op,
            200,
            json!({"total_count": total, "check_runs": this_page}),
        )
    }
}
