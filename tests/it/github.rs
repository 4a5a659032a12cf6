//! The check run, as GitHub sees it: the binary runs as the runner runs it,
//! against a local Checks API that validates every request.

use crate::common;

use std::time::{Duration, Instant};

use common::github::{FakeGitHub, REPO, TOKEN};
use common::*;
use serde_json::{Value, json};

const MERGE_SHA: &str = "9999999999999999999999999999999999999999";

fn step(s: &Scenario, gh: &FakeGitHub) -> Step {
    s.review_step().github(&gh.url(), MERGE_SHA)
}

async fn run(step: Step) -> Outcome {
    tokio::task::spawn_blocking(move || step.run())
        .await
        .unwrap()
}

/// A pull request event whose base is its head's own commit: nothing changed
/// of the instructions, so the receipt's verdict is the review's alone.
fn pull_request(head: &str, fork: bool) -> Value {
    json!({
        "action": "synchronize",
        "number": 42,
        "pull_request": {
            "number": 42,
            "head": {"sha": head, "repo": {"full_name": if fork { "someone/widgets" } else { REPO }}},
            "base": {"sha": head, "repo": {"full_name": REPO}}
        }
    })
}

fn findings(n: usize) -> Value {
    let list: Vec<Value> = (0..n)
        .map(|i| (i, ["low", "medium", "high"][i % 3]))
        .map(|(i, severity)| json!({"severity": severity, "path": format!("src/f{i}.rs"), "line": i + 1, "title": format!("t{i}"), "message": format!("m{i}")}))
        .collect();
    json!({"ok": true, "findings": list})
}

/// `prompt-receipt/{run id}/{attempt}/{job}/{nonce}`: this job's own.
fn assert_own_external_id(r: &Value) {
    let id = r["external_id"].as_str().unwrap();
    let nonce = id
        .strip_prefix("prompt-receipt/123456789/1/receipt/")
        .unwrap_or_else(|| panic!("{id}"));
    assert!(
        nonce.len() == 16 && nonce.bytes().all(|b| b.is_ascii_hexdigit()),
        "{id}"
    );
}

/// Nothing that left the binary holds the token.
fn assert_token_kept(out: &Outcome) {
    for (what, text) in [
        ("stdout", &out.stdout),
        ("stderr", &out.stderr),
        ("summary", &out.summary),
    ] {
        assert!(!text.contains(TOKEN), "the token leaked into {what}");
    }
    assert!(out.outputs.values().all(|v| !v.contains(TOKEN)));
}

#[tokio::test(flavor = "multi_thread")]
async fn validate_mode_reports_the_gate_as_a_check_run_without_a_receipt() {
    let gh = FakeGitHub::start().await;
    let s = Scenario::example();
    s.write("artifacts/review.json", findings(3).to_string());
    let head = s.git(&["rev-parse", "HEAD"]);
    let out = run(s
        .action()
        .input("mode", "validate")
        .github(&gh.url(), MERGE_SHA)
        .event("pull_request", pull_request(&head, false)))
    .await;
    out.code(0);
    let runs = gh.runs();
    assert_eq!(runs.len(), 1);
    let r = &runs[0];
    assert_eq!(r["head_sha"], head.as_str());
    // `ok: true`, but a high finding that `fail-on: invalid` lets pass.
    assert_eq!(r["conclusion"], "neutral");
    assert_eq!(
        r["output"]["title"],
        "⚠️ Output valid · agent: ok, 3 findings (1 high, 1 medium, 1 low)"
    );
    assert_own_external_id(r);
    assert_eq!(r["annotations"].as_array().unwrap().len(), 3);
    assert!(!s.ws.join("usage.json").exists());
    assert_token_kept(&out);
}

#[tokio::test(flavor = "multi_thread")]
async fn a_pull_request_check_lands_on_the_head_commit() {
    let gh = FakeGitHub::start().await;
    let s = Scenario::example();
    let head = s.git(&["rev-parse", "HEAD"]);
    let out = run(step(&s, &gh).event("pull_request", pull_request(&head, false))).await;
    out.code(0);
    let runs = gh.runs();
    assert_eq!(runs.len(), 1);
    let r = &runs[0];
    assert_eq!(r["head_sha"], head.as_str(), "never the merge commit");
    assert_eq!(r["name"], "Agent review receipt");
    assert_eq!(r["conclusion"], "neutral");
    assert_eq!(
        r["details_url"],
        "https://github.com/octo/widgets/actions/runs/123456789/attempts/1"
    );
    let prompt_sha = out.usage()["prompt_sha"].as_str().unwrap().to_string();
    assert_own_external_id(r);
    // The base it was held to ends the title: the event's base commit.
    assert_eq!(
        r["output"]["title"],
        format!(
            "⚠️ Receipt verified · output valid · agent: not ok, 2 findings (1 high, 1 low) · base {}",
            &head[..12]
        )
    );
    let summary = r["output"]["summary"].as_str().unwrap();
    // The title is above the summary on the check page: not said twice.
    assert!(
        summary.starts_with("**The step passes, with something to look at**"),
        "{summary}"
    );
    // Each location links to the file at the pull request's head commit.
    assert!(
        summary.contains(&format!(
            "[`package.json:14`](https://github.com/octo/widgets/blob/{head}/package.json#L14)"
        )),
        "{summary}"
    );
    // The text: a short table, then the receipt as JSON to copy.
    let text = r["output"]["text"].as_str().unwrap();
    let json_block = text
        .split("```json\n")
        .nth(1)
        .and_then(|rest| rest.split("\n```").next())
        .unwrap_or_else(|| panic!("no json block in {text}"));
    let copied: Value = serde_json::from_str(json_block).unwrap();
    assert_eq!(copied, out.usage(), "the receipt, as written");
    assert!(text.contains(&format!("`{}`", &prompt_sha[..12])));
    // Both findings have a file and a line: both are annotations.
    let levels: Vec<&str> = r["annotations"]
        .as_array()
        .unwrap()
        .iter()
        .map(|a| a["annotation_level"].as_str().unwrap())
        .collect();
    // The step passes: the high finding reads as a warning, not a failure.
    assert_eq!(levels, vec!["warning", "notice"]);
    assert_eq!(out.outputs["check-run-id"], r["id"].to_string());
    assert_eq!(
        out.outputs["check-run-url"],
        r["html_url"].as_str().unwrap()
    );
    // One listing of the commit's checks of this name, then the create.
    assert_eq!(
        (gh.count("POST"), gh.count("PATCH"), gh.count("GET")),
        (1, 0, 1)
    );
    assert_eq!(gh.requests()[0].method, "GET");
    assert_eq!(gh.lookups_after_create(), 0);
    assert_token_kept(&out);
}

#[tokio::test(flavor = "multi_thread")]
async fn push_and_workflow_run_pick_their_commits() {
    let gh = FakeGitHub::start().await;
    let s = Scenario::example();
    run(step(&s, &gh)).await.code(0);
    let head = "7777777777777777777777777777777777777777";
    let payload = json!({"workflow_run": {"head_sha": head, "head_repository": {"full_name": REPO}, "repository": {"full_name": REPO}}});
    run(step(&s, &gh).event("workflow_run", payload))
        .await
        .code(0);
    let shas: Vec<String> = gh
        .runs()
        .iter()
        .map(|r| r["head_sha"].as_str().unwrap().to_string())
        .collect();
    assert_eq!(shas, vec![MERGE_SHA.to_string(), head.to_string()]);
}

#[tokio::test(flavor = "multi_thread")]
async fn annotations_go_fifty_a_request() {
    let gh = FakeGitHub::start().await;
    let s = Scenario::example();
    s.write("artifacts/review.json", findings(120).to_string());
    let out = run(step(&s, &gh)).await;
    out.code(0);
    assert_eq!(
        (gh.count("POST"), gh.count("PATCH")),
        (1, 2),
        "one create, one PATCH per further 50"
    );
    let runs = gh.runs();
    assert_eq!(runs[0]["annotations"].as_array().unwrap().len(), 120);
    for r in gh.requests() {
        assert!(
            r.body["output"]["annotations"]
                .as_array()
                .is_none_or(|a| a.len() <= 50)
        );
    }

    // A cap below that: the rest are left out, and the summary says so.
    let gh = FakeGitHub::start().await;
    let out = run(step(&s, &gh).input("max-annotations", "60")).await;
    out.code(0);
    assert_eq!(gh.runs()[0]["annotations"].as_array().unwrap().len(), 60);
    assert!(
        gh.runs()[0]["output"]["summary"]
            .as_str()
            .unwrap()
            .contains("60 annotations were left out")
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn a_forks_read_only_token_falls_back_without_changing_the_result() {
    let gh = FakeGitHub::start().await;
    gh.refuse_all(403, "Resource not accessible by integration");
    let s = Scenario::example();
    let head = s.git(&["rev-parse", "HEAD"]);
    let out = run(step(&s, &gh).event("pull_request", pull_request(&head, true))).await;
    out.code(0);
    let warnings: Vec<&str> = out
        .stdout
        .lines()
        .filter(|l| l.starts_with("::warning") && l.contains("check run was not created"))
        .collect();
    assert_eq!(warnings.len(), 1, "warned once:\n{}", out.stdout);
    assert!(
        warnings[0].contains("forks get a read-only token") && warnings[0].contains("workflow_run"),
        "{}",
        warnings[0]
    );
    // The fallback: annotations in the log and the job summary.
    assert!(out.stdout.contains("::warning file=package.json,line=14"));
    // A fork wrote everything its agent job uploaded: never "verified".
    assert!(
        out.summary.starts_with("## ⚠️ Not verified, missing: an agent job the fork does not control")
            && out.summary.contains("> **No check run**: GitHub refused (403 Resource not accessible by integration): pull requests from forks"),
        "{}",
        out.summary
    );
    assert!(!out.outputs.contains_key("check-run-id"));
    assert_eq!(gh.runs().len(), 0);

    // Without a fork, the fix is the permission line.
    let out = run(step(&s, &gh).event("pull_request", pull_request(&head, false))).await;
    assert!(out.stdout.contains("add `checks: write`"), "{}", out.stdout);

    // A failing review still fails: the gate alone decides.
    s.write("artifacts/review.json", "{}");
    run(step(&s, &gh)).await.code(1);
}

#[tokio::test(flavor = "multi_thread")]
async fn a_bad_token_and_no_token() {
    let gh = FakeGitHub::start().await;
    let s = Scenario::example();
    let out = run(step(&s, &gh).input("github-token", "ghp_wrong")).await;
    out.code(0);
    assert!(
        out.stdout
            .contains("refused the token (401 Bad credentials)"),
        "{}",
        out.stdout
    );
    let out = run(step(&s, &gh).input("github-token", "")).await;
    out.code(0);
    assert!(out.stdout.contains("no `github-token`"), "{}", out.stdout);
    assert_eq!(gh.count("POST"), 1, "no request without a token");
}

#[tokio::test(flavor = "multi_thread")]
async fn a_server_error_after_the_write_leaves_one_check_run() {
    let gh = FakeGitHub::start().await;
    gh.fail_next_create(500, &[], true);
    let s = Scenario::example();
    let out = run(step(&s, &gh)).await;
    out.code(0);
    assert_eq!(gh.runs().len(), 1, "one check run in the end");
    assert_eq!(
        (gh.count("POST"), gh.lookups_after_create()),
        (1, 1),
        "looked before creating again"
    );
    assert_eq!(out.outputs["check-run-id"], gh.runs()[0]["id"].to_string());

    // A 500 that made nothing: looked, found nothing, created once.
    let gh = FakeGitHub::start().await;
    gh.fail_next_create(502, &[], false);
    run(step(&s, &gh)).await.code(0);
    assert_eq!(gh.runs().len(), 1);
    assert_eq!((gh.count("POST"), gh.lookups_after_create()), (2, 1));
}

#[tokio::test(flavor = "multi_thread")]
async fn rate_limits_are_waited_out_as_github_asks() {
    let gh = FakeGitHub::start().await;
    gh.fail_next_create(429, &[("retry-after", "2")], false);
    gh.fail_next_create(
        403,
        &[("retry-after", "1"), ("x-ratelimit-remaining", "0")],
        false,
    );
    let s = Scenario::example();
    let start = Instant::now();
    let out = run(step(&s, &gh)).await;
    out.code(0);
    assert!(
        start.elapsed() >= Duration::from_secs(3),
        "honoured retry-after: {:?}",
        start.elapsed()
    );
    assert_eq!(gh.runs().len(), 1);
    assert_eq!(
        gh.lookups_after_create(),
        0,
        "a rate-limited request made nothing: no need to look"
    );

    // A retry-after beyond the budget gives up at once, with the reason.
    let gh = FakeGitHub::start().await;
    gh.fail_next_create(429, &[("retry-after", "3600")], false);
    let start = Instant::now();
    let out = run(step(&s, &gh).input("api-timeout", "5")).await;
    out.code(0);
    assert!(start.elapsed() < Duration::from_secs(5));
    assert!(out.stdout.contains("rate limited (429"), "{}", out.stdout);
}

#[tokio::test(flavor = "multi_thread")]
async fn a_hanging_connection_is_bounded() {
    // Accepts connections and never answers.
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}", listener.local_addr().unwrap());
    let held = tokio::spawn(async move {
        let mut open = Vec::new();
        while let Ok((socket, _)) = listener.accept().await {
            open.push(socket);
        }
    });
    let s = Scenario::example();
    let start = Instant::now();
    let out = run(s
        .review_step()
        .input("api-timeout", "3")
        .github(&url, MERGE_SHA))
    .await;
    let took = start.elapsed();
    held.abort();
    out.code(0);
    assert!(
        took < Duration::from_secs(8),
        "bounded by api-timeout: {took:?}"
    );
    assert!(
        out.stdout.contains("check run was not created"),
        "{}",
        out.stdout
    );
    assert_token_kept(&out);
}

/// An API address that refuses the connection (a wrong `GITHUB_API_URL`, a
/// firewall) is said once, with the fix, and not tried again for the whole
/// `api-timeout`: the run goes on to its job summary and outputs as it does
/// when the API answers with an error.
#[tokio::test(flavor = "multi_thread")]
async fn a_refused_connection_is_said_once_and_not_retried() {
    // A loopback port bound and let go: nothing listens there, so every
    // connection to it is refused.
    let closed = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap();
    let url = format!("http://{closed}");
    let s = Scenario::example();
    let head = s.git(&["rev-parse", "HEAD"]);
    let event = pull_request(&head, false);
    let start = Instant::now();
    let out = run(s
        .review_step()
        .input("api-timeout", "60")
        .github(&url, MERGE_SHA)
        .event("pull_request", event.clone()))
    .await;
    let took = start.elapsed();
    // A bound, not a benchmark: retrying would take most of the minute.
    assert!(
        took < Duration::from_secs(20),
        "not retried for the whole api-timeout: {took:?}"
    );
    let said: Vec<&str> = out
        .stdout
        .lines()
        .filter(|l| l.contains("refused the connection"))
        .collect();
    assert_eq!(said.len(), 1, "said once:\n{}", out.stdout);
    assert!(
        said[0].starts_with("::warning")
            && said[0].contains("check run was not created")
            && said[0].contains(&format!("the GitHub API at `{url}` refused the connection"))
            && said[0].contains("check `GITHUB_API_URL`"),
        "{}",
        said[0]
    );
    assert_token_kept(&out);

    // The same run against an API that answers every request with an error.
    let gh = FakeGitHub::start().await;
    gh.refuse_all(403, "Resource not accessible by integration");
    let answered = run(step(&s, &gh).event("pull_request", event)).await;
    out.code(answered.code);
    assert_eq!(
        out.outputs.keys().collect::<Vec<_>>(),
        answered.outputs.keys().collect::<Vec<_>>()
    );
    for name in ["conclusion", "not-verified", "verified", "ok", "valid"] {
        assert_eq!(out.outputs.get(name), answered.outputs.get(name), "{name}");
    }
    assert!(!out.outputs.contains_key("check-run-id"));
    assert!(
        out.summary.contains(&format!(
            "> **No check run**: the GitHub API at `{url}` refused the connection"
        )),
        "{}",
        out.summary
    );
    // The verdict that heads the summary is the same.
    let heading = |summary: &str| summary.lines().next().unwrap_or_default().to_string();
    assert_eq!(heading(&out.summary), heading(&answered.summary));

    // A host name that cannot resolve (`.invalid` never does, RFC 6761).
    let start = Instant::now();
    let out = run(s
        .review_step()
        .input("api-timeout", "60")
        .github("http://api.receipt-test.invalid", MERGE_SHA))
    .await;
    let took = start.elapsed();
    out.code(answered.code);
    assert!(took < Duration::from_secs(20), "{took:?}");
    let said = out
        .stdout
        .lines()
        .filter(|l| l.contains("its host name does not resolve"))
        .count();
    assert_eq!(said, 1, "{}", out.stdout);
}

#[tokio::test(flavor = "multi_thread")]
async fn github_enterprise_server_paths_are_kept() {
    // GHES serves the API under /api/v3: requests must keep that prefix. The
    // fake answers only there, so a dropped or doubled prefix would 404.
    let gh = FakeGitHub::serving_under("/api/v3").await;
    gh.fail_next_create(500, &[], true);
    let s = Scenario::example();
    let out = run(step(&s, &gh)).await;
    out.code(0);
    assert_eq!(gh.runs().len(), 1, "{}", out.stdout);
    let paths: Vec<String> = gh.requests().iter().map(|r| r.path.clone()).collect();
    assert_eq!(
        paths.len(),
        3,
        "the listing, the create, the lookup: {paths:?}"
    );
    assert!(
        paths
            .iter()
            .all(|p| p.starts_with("/api/v3/repos/octo/widgets/")),
        "{paths:?}"
    );
}

/// Two jobs of one workflow run (a matrix over models) with the same prompt
/// and check name. The second's create fails ambiguously; its lookup must
/// find its own run or none, never the sibling's, and must page through every
/// run of the commit. Nothing GitHub sets tells the sibling's check from an
/// imitation, so the second names it and fails: each job needs its own
/// `check-name`.
#[tokio::test(flavor = "multi_thread")]
async fn two_jobs_with_one_prompt_each_get_their_own_check_run() {
    for created_anyway in [false, true] {
        let gh = FakeGitHub::start().await;
        let s = Scenario::example();
        let head = s.git(&["rev-parse", "HEAD"]);
        let event = pull_request(&head, false);
        let first = run(step(&s, &gh).event("pull_request", event.clone())).await;
        first.code(0);
        // Other jobs of this run with the same name, so the lookup has pages.
        gh.seed_runs(&head, "Agent review receipt", 250);
        let before = gh.requests().len();
        gh.fail_next_create(500, &[], created_anyway);
        let second = run(step(&s, &gh).event("pull_request", event)).await;
        second.code(0);

        let runs = gh.runs();
        let ours: Vec<&Value> = runs
            .iter()
            .filter(|r| {
                r["external_id"]
                    .as_str()
                    .unwrap()
                    .starts_with("prompt-receipt/123456789/1/receipt/")
            })
            .collect();
        assert_eq!(
            ours.len(),
            2,
            "one run per job (created_anyway: {created_anyway})"
        );
        assert_ne!(ours[0]["external_id"], ours[1]["external_id"]);
        let (a, b) = (ours[0]["id"].to_string(), ours[1]["id"].to_string());
        assert_eq!(first.outputs["check-run-id"], a);
        assert_eq!(second.outputs["check-run-id"], b, "never the sibling's run");
        for r in &ours {
            assert_eq!(r["annotations"].as_array().unwrap().len(), 2);
        }
        let patched: Vec<String> = gh
            .requests()
            .iter()
            .filter(|r| r.method == "PATCH")
            .map(|r| r.path.clone())
            .collect();
        assert!(patched.is_empty(), "nobody's run was patched: {patched:?}");
        // 251 runs of the name on the commit before the second job: three
        // pages of 100 listed before its create, three looked at after.
        let second_requests = &gh.requests()[before..];
        let gets =
            |rs: &[common::github::Recorded]| rs.iter().filter(|r| r.method == "GET").count();
        let create = second_requests
            .iter()
            .position(|r| r.method == "POST")
            .unwrap();
        assert_eq!(gets(&second_requests[..create]), 3, "listed every page");
        assert_eq!(gets(&second_requests[create..]), 3, "followed the pages");
        // The first job's check passes, as the second does: named, whatever
        // its mark says, and harmless; the failed ones cannot pass, and are
        // not named at all.
        assert_eq!(second.outputs["conclusion"], first.outputs["conclusion"]);
        assert!(
            second.summary.contains("### Another check of this name")
                && second.summary.contains("This receipt passes too")
                && !second.summary.contains("says `failure`"),
            "{}",
            second.summary
        );
    }
}

/// The fake's yardstick is GitHub's description, not our reading of it: it
/// refuses what GitHub would and accepts what GitHub documents.
#[test]
fn the_openapi_description_refuses_what_github_would() {
    let spec = common::openapi::spec();
    let create = "/repos/octo/widgets/check-runs";
    let good = json!({"name": "n", "head_sha": MERGE_SHA, "status": "completed", "conclusion": "neutral",
        "output": {"title": "t", "summary": "s", "annotations": [
            {"path": "a.rs", "start_line": 1, "end_line": 1, "annotation_level": "warning", "message": "m"}]}});
    let body = |v: &Value| serde_json::to_vec(v).unwrap();
    assert!(
        spec.check_request("POST", create, &[], &body(&good))
            .is_ok()
    );
    let mut bad = good.clone();
    bad["conclusion"] = json!("green");
    assert!(
        spec.check_request("POST", create, &[], &body(&bad))
            .is_err()
    );
    let mut bad = good.clone();
    bad.as_object_mut().unwrap().remove("conclusion");
    assert!(
        spec.check_request("POST", create, &[], &body(&bad))
            .is_err(),
        "completed needs a conclusion"
    );
    let mut bad = good.clone();
    bad["output"]["annotations"][0]
        .as_object_mut()
        .unwrap()
        .remove("path");
    assert!(
        spec.check_request("POST", create, &[], &body(&bad))
            .is_err()
    );
    let mut bad = good.clone();
    bad["output"]["summary"] = json!("x".repeat(65_536));
    assert!(
        spec.check_request("POST", create, &[], &body(&bad))
            .is_err()
    );
    assert!(
        spec.check_request("PATCH", "/repos/octo/widgets/check-runs/abc", &[], b"{}")
            .is_err()
    );
    let list = format!("/repos/octo/widgets/commits/{MERGE_SHA}/check-runs");
    let q = |k: &str, v: &str| vec![(k.to_string(), v.to_string())];
    assert!(
        spec.check_request("GET", &list, &q("per_page", "100"), b"")
            .is_ok()
    );
    assert!(
        spec.check_request("GET", &list, &q("per_page", "many"), b"")
            .is_err()
    );
    assert!(
        spec.check_request("GET", &list, &q("filter", "newest"), b"")
            .is_err()
    );
    assert!(
        spec.check_request("GET", &list, &q("sort", "asc"), b"")
            .is_err()
    );
    assert!(spec.check_request("DELETE", create, &[], b"").is_err());
    // Answers: a check run without its required fields is refused.
    let op = spec
        .check_request("POST", create, &[], &body(&good))
        .unwrap();
    assert!(op.check_response(201, &json!({"id": 1})).is_err());
}

/// Agents write paths every way: `./` and backslashes are normalized; an
/// absolute path, one climbing out of the workspace, or one with a control
/// character is not annotated anywhere, and stays in the summary, escaped.
#[tokio::test(flavor = "multi_thread")]
async fn annotation_paths_are_repository_paths_or_none() {
    let gh = FakeGitHub::start().await;
    let s = Scenario::example();
    s.write("src/x.rs", "fn a() {}\nfn b() {}\nfn c() {}\n")
        .write("src/win.rs", "fn w() {}\n");
    let review = json!({"ok": true, "findings": [
        {"severity": "low", "path": "./src/x.rs", "line": 2, "title": "dot", "message": "m"},
        {"severity": "low", "path": "src\\win.rs", "line": 1, "title": "backslash", "message": "m"},
        {"severity": "low", "path": "/etc/passwd", "line": 1, "title": "absolute", "message": "m"},
        {"severity": "low", "path": "../outside.rs", "line": 1, "title": "outside", "message": "m"},
        {"severity": "low", "path": "src/x.rs\n::error::forged", "line": 1, "title": "newline", "message": "m"}
    ]});
    s.write("artifacts/review.json", review.to_string());
    let head = s.git(&["rev-parse", "HEAD"]);
    let out = run(step(&s, &gh).event("pull_request", pull_request(&head, false))).await;
    out.code(0);
    let paths: Vec<String> = gh.runs()[0]["annotations"]
        .as_array()
        .unwrap()
        .iter()
        .map(|a| a["path"].as_str().unwrap().to_string())
        .collect();
    assert_eq!(paths, vec!["src/x.rs", "src/win.rs"]);
    let in_log: Vec<&str> = out
        .stdout
        .lines()
        .filter(|l| l.starts_with("::notice file="))
        .collect();
    assert_eq!(in_log.len(), 2, "{}", out.stdout);
    assert!(in_log[0].starts_with("::notice file=src/x.rs,line=2,"));
    assert!(in_log[1].starts_with("::notice file=src/win.rs,line=1,"));
    assert!(!out.stdout.contains("::error::forged"));
    let summary = &out.summary;
    for shown in [
        "`/etc/passwd:1` ⚠️ *not annotated: the path is absolute*",
        "`../outside.rs:1` ⚠️ *not annotated: the path climbs out of the repository*",
        "`src/x.rs ::error::forged:1` ⚠️ *not annotated: the path contains control characters*",
    ] {
        assert!(summary.contains(shown), "{shown} in\n{summary}");
    }
    assert!(summary.contains(&format!(
        "[`src/x.rs:2`](https://github.com/octo/widgets/blob/{head}/src/x.rs#L2)"
    )));
}

/// Our create, as the fake received it.
fn our_create(gh: &FakeGitHub) -> Value {
    let posts: Vec<Value> = gh
        .requests()
        .into_iter()
        .filter(|r| r.method == "POST")
        .map(|r| r.body)
        .collect();
    assert_eq!(posts.len(), 1, "{posts:?}");
    posts[0].clone()
}

/// The check run the fake keeps for our create.
fn our_run(gh: &FakeGitHub) -> Value {
    let create = our_create(gh);
    gh.runs()
        .into_iter()
        .find(|r| r["external_id"] == create["external_id"])
        .expect("our check run")
}

/// The listing before the create: this commit's check runs of this name,
/// whenever they completed.
fn assert_listed_first(gh: &FakeGitHub, head: &str, name: &str) {
    let requests = gh.requests();
    let first = &requests[0];
    assert_eq!(first.method, "GET");
    assert_eq!(
        first.path,
        format!("/repos/{REPO}/commits/{head}/check-runs")
    );
    let q = |k: &str| {
        first
            .query
            .iter()
            .find(|(key, _)| key == k)
            .map(|(_, v)| v.clone())
    };
    assert_eq!(q("check_name").as_deref(), Some(name));
    assert_eq!(q("filter").as_deref(), Some("all"));
}

/// The number after `/{word}/` in a URL the fake served.
fn number_after(url: &str, word: &str) -> u64 {
    url.split(&format!("/{word}/"))
        .nth(1)
        .and_then(|rest| rest.split('/').next())
        .and_then(|n| n.parse().ok())
        .unwrap_or_else(|| panic!("no /{word}/ in {url}"))
}

fn passing_review(s: &Scenario) {
    s.write(
        "artifacts/review.json",
        json!({"ok": true, "findings": []}).to_string(),
    );
}

/// A review the schema refuses: the receipt fails (`fail-on: invalid`), so a
/// passing check of its name leads what it says.
fn failing_review(s: &Scenario) {
    s.write(
        "artifacts/review.json",
        json!({"ok": "maybe", "findings": []}).to_string(),
    );
}

/// The issue's case: before the receipt job runs, another job on the head
/// commit has a check of the same name (the pull request's own workflow,
/// a job named after the check; or a step that posted one through the
/// Checks API; or another GitHub App). The receipt names it in its title and
/// fails, whatever the review says.
#[tokio::test(flavor = "multi_thread")]
async fn another_check_of_the_name_posted_beforehand_is_named_and_fails_the_receipt() {
    let s = Scenario::example();
    failing_review(&s);
    let head = s.git(&["rev-parse", "HEAD"]);
    let event = pull_request(&head, false);
    let name = "Agent review receipt";

    // A job of another workflow run whose `name:` is the check's: GitHub
    // Actions posts the job's own check run, linked to the job.
    let gh = FakeGitHub::start().await;
    let imitation = gh.post_job_check_run(&head, name, 555, 666);
    let served = gh.runs()[0].clone();
    let out = run(step(&s, &gh).event("pull_request", event.clone())).await;
    out.code(1);
    assert_listed_first(&gh, &head, name);
    let ours = our_run(&gh);
    assert_eq!(ours["name"], name);
    let details = served["details_url"].as_str().unwrap();
    let expected = format!(
        "❌ Another check named \"{}\" was posted on this commit linking to workflow run {} (job {}): only this one comes from the default branch · base {}",
        ours["name"].as_str().unwrap(),
        number_after(details, "runs"),
        number_after(details, "job"),
        &head[..12],
    );
    assert_eq!(ours["output"]["title"], expected.as_str());
    assert_eq!(ours["conclusion"], "failure");
    assert_eq!(out.outputs["conclusion"], "failure");
    assert!(
        out.stdout.lines().last().unwrap().contains(&expected),
        "the log's last line:\n{}",
        out.stdout
    );
    // The summary's heading is Markdown: the base's commit in a code span.
    let heading = expected.replace(
        &format!("base {}", &head[..12]),
        &format!("base `{}`", &head[..12]),
    );
    assert!(
        out.summary.starts_with(&format!("## {heading}\n")),
        "{}",
        out.summary
    );
    let link = format!("[Check run {imitation}](https://github.com/{REPO}/runs/{imitation})");
    for (what, text) in [
        ("job summary", out.summary.as_str()),
        (
            "check run summary",
            ours["output"]["summary"].as_str().unwrap(),
        ),
    ] {
        assert!(
            text.contains("### Another check of this name"),
            "{what}: {text}"
        );
        assert!(text.contains(&link), "{what}: {text}");
        assert!(text.contains("which says `success`"), "{what}: {text}");
        assert!(
            text.contains("post `Agent review receipt` as the repository's own GitHub App"),
            "{what}: {text}"
        );
    }
    assert!(
        out.stdout.lines().any(
            |l| l.starts_with("::error title=Another check of this name::")
                && l.contains(&format!("check run {imitation} "))
        ),
        "{}",
        out.stdout
    );
    let annotations = ours["annotations"].as_array().unwrap();
    assert!(annotations.is_empty() || annotations.iter().all(|a| a["path"].is_string()));

    // A step of another workflow run that posted the check through the
    // Checks API with its own token (here, prompt-receipt itself, as a pull
    // request's workflow could run it): the same app, another run.
    let gh = FakeGitHub::start().await;
    passing_review(&s);
    run(step(&s, &gh)
        .env("GITHUB_RUN_ID", "555")
        .event("pull_request", event.clone()))
    .await
    .code(0);
    failing_review(&s);
    let served = gh.runs()[0].clone();
    assert_eq!(served["app"]["slug"], "github-actions");
    let before = gh.requests().len();
    let out = run(step(&s, &gh).event("pull_request", event.clone())).await;
    out.code(1);
    let ours = gh.runs()[1].clone();
    assert_eq!(
        gh.requests()[before].method,
        "GET",
        "listed before creating"
    );
    assert_eq!(
        ours["output"]["title"],
        format!(
            "❌ Another check named \"{name}\" was posted on this commit linking to workflow run {}: only this one comes from the default branch · base {}",
            number_after(served["details_url"].as_str().unwrap(), "runs"),
            &head[..12]
        )
        .as_str()
    );
    assert_eq!(ours["conclusion"], "failure");

    // Another GitHub App: named by its slug, cut to a slug's characters.
    let gh = FakeGitHub::start().await;
    let other = gh.post_app_check_run(&head, name, "imitator\u{202E}@team::error::x");
    let out = run(step(&s, &gh).event("pull_request", event.clone())).await;
    out.code(1);
    let ours = our_run(&gh);
    assert_eq!(
        ours["output"]["title"],
        format!(
            "❌ Another check named \"{name}\" was posted on this commit by the app imitatorteamerrorx (check run {other}): only this one comes from the default branch · base {}",
            &head[..12]
        )
        .as_str()
    );
    assert!(
        out.summary.contains("the app `imitatorteamerrorx`"),
        "{}",
        out.summary
    );
    for text in [&out.stdout, &out.summary] {
        assert!(!text.contains('\u{202E}') && !text.contains("::error::x"));
    }
    assert_token_kept(&out);

    // The control: a receipt that passes, beside the same check. It lets
    // through nothing this one does not (an earlier receipt of this head is
    // such a check): named in the summary and a notice, the verdict the
    // review's.
    passing_review(&s);
    let gh = FakeGitHub::start().await;
    gh.post_job_check_run(&head, name, 555, 666);
    let out = run(step(&s, &gh).event("pull_request", event.clone())).await;
    out.code(0);
    let ours = our_run(&gh);
    assert_eq!(ours["conclusion"], "success");
    assert!(
        ours["output"]["title"]
            .as_str()
            .unwrap()
            .starts_with("✅ Receipt verified"),
        "{}",
        ours["output"]["title"]
    );
    assert!(
        out.summary.contains("### Another check of this name")
            && out.summary.contains("This receipt passes too"),
        "{}",
        out.summary
    );
    assert!(
        out.stdout
            .contains("::notice title=Another check of this name::"),
        "{}",
        out.stdout
    );
}

/// What counts as this receipt's own is only what an imitator cannot set.
/// An earlier attempt's check, named by the id its create returned (kept in
/// the run's own artifact: `earlier-check-runs`), is this receipt's: the
/// re-run's verdict is the one a commit without it gets. A check that copies
/// the receipt's mark (`external_id`) and links this very run
/// (`details_url`) is named: both are the poster's to write. So is the
/// earlier check itself when nothing says it was this run's. A check that
/// failed (receipt.yml's own "the agent's run ended") cannot pass anything,
/// and is not named.
#[tokio::test(flavor = "multi_thread")]
async fn only_what_github_sets_makes_a_check_this_receipts() {
    let s = Scenario::example();
    passing_review(&s);
    let head = s.git(&["rev-parse", "HEAD"]);
    let event = pull_request(&head, false);
    let name = "Agent review receipt";

    let alone = FakeGitHub::start().await;
    let baseline = run(step(&s, &alone).event("pull_request", event.clone())).await;
    let baseline_run = our_run(&alone);
    assert_eq!(baseline_run["conclusion"], "success");

    // Attempt 1 posted its check; attempt 2 is given its id.
    let gh = FakeGitHub::start().await;
    let first = run(step(&s, &gh).event("pull_request", event.clone())).await;
    first.code(baseline.code);
    let earlier = first.outputs["check-run-id"].clone();
    // The agent's earlier failed run got receipt.yml's own failing check.
    gh.seed_runs(&head, name, 1);
    let before = gh.requests().len();
    let out = run(step(&s, &gh)
        .env("GITHUB_RUN_ATTEMPT", "2")
        .input("earlier-check-runs", &earlier)
        .event("pull_request", event.clone()))
    .await;
    out.code(baseline.code);
    let runs = gh.runs();
    assert_eq!(runs.len(), 3);
    let rerun = &runs[2];
    assert_eq!(
        gh.requests()[before].method,
        "GET",
        "listed before creating"
    );
    assert_eq!(rerun["conclusion"], baseline_run["conclusion"]);
    assert_eq!(rerun["output"]["title"], baseline_run["output"]["title"]);
    assert_eq!(out.outputs["conclusion"], baseline.outputs["conclusion"]);
    assert!(!out.summary.contains("Another check"), "{}", out.summary);
    assert!(!out.outputs.contains_key("not-verified"));

    // Without the id, the earlier check is one more check that could pass:
    // named, and harmless while this one passes too.
    let out = run(step(&s, &gh)
        .env("GITHUB_RUN_ATTEMPT", "3")
        .event("pull_request", event.clone()))
    .await;
    out.code(baseline.code);
    assert!(
        out.summary.contains("Another check of this name"),
        "{}",
        out.summary
    );

    // The imitation: this run's mark, this run's job page, beside a receipt
    // that fails. Named first.
    failing_review(&s);
    let gh = FakeGitHub::start().await;
    let fake = gh.post_job_check_run(&head, name, 123456789, 42);
    gh.state.lock().unwrap().runs[0]["external_id"] =
        json!("prompt-receipt/123456789/1/receipt/0123456789abcdef");
    let out = run(step(&s, &gh)
        .env("GITHUB_RUN_ATTEMPT", "2")
        .event("pull_request", event))
    .await;
    out.code(1);
    let ours = our_run(&gh);
    assert_eq!(ours["conclusion"], "failure");
    assert!(
        ours["output"]["title"]
            .as_str()
            .unwrap()
            .starts_with(&format!("❌ Another check named \"{name}\" was posted on this commit linking to workflow run 123456789 (job 42)")),
        "{}",
        ours["output"]["title"]
    );
    assert!(
        ours["output"]["summary"]
            .as_str()
            .unwrap()
            .contains(&format!("runs/{fake}")),
        "{}",
        ours["output"]["summary"]
    );
}

/// The strongest source: the receipt posts as the repository's own GitHub
/// App (`github-token` an installation token of it, `app-slug` its slug), so
/// a ruleset can require the check from that app. Every earlier check of the
/// app is this receipt's; one from any other app, GitHub Actions included,
/// is named and fails the receipt, whatever its mark and link say.
#[tokio::test(flavor = "multi_thread")]
async fn a_check_from_another_app_is_named_when_the_receipt_posts_as_its_own() {
    use common::github::{APP_SLUG, APP_TOKEN};
    let s = Scenario::example();
    passing_review(&s);
    let head = s.git(&["rev-parse", "HEAD"]);
    let event = pull_request(&head, false);
    let name = "Agent review receipt";
    let as_app = |gh: &FakeGitHub| {
        step(&s, gh)
            .input("github-token", APP_TOKEN)
            .input("app-slug", APP_SLUG)
            .event("pull_request", event.clone())
    };

    // Control: the app's own earlier check (another receipt run, another
    // attempt) is the receipt's; the new one is the app's too.
    let gh = FakeGitHub::start().await;
    gh.post_app_check_run(&head, name, APP_SLUG);
    let out = run(as_app(&gh)).await;
    out.code(0);
    let ours = our_run(&gh);
    assert_eq!(ours["app"]["slug"], APP_SLUG, "posted as the app");
    assert_eq!(ours["conclusion"], "success");
    assert!(!out.summary.contains("Another check"), "{}", out.summary);

    // A GitHub Actions job's check of the name, marked and linked as this
    // run's, beside a receipt that fails: another app's, named first.
    failing_review(&s);
    let as_app = |gh: &FakeGitHub| {
        step(&s, gh)
            .input("github-token", APP_TOKEN)
            .input("app-slug", APP_SLUG)
            .event("pull_request", event.clone())
    };
    let gh = FakeGitHub::start().await;
    let fake = gh.post_job_check_run(&head, name, 123456789, 42);
    gh.state.lock().unwrap().runs[0]["external_id"] =
        json!("prompt-receipt/123456789/1/receipt/0123456789abcdef");
    let out = run(as_app(&gh)).await;
    out.code(1);
    let ours = our_run(&gh);
    assert_eq!(ours["app"]["slug"], APP_SLUG);
    assert_eq!(ours["conclusion"], "failure");
    let summary = ours["output"]["summary"].as_str().unwrap();
    assert!(summary.contains(&format!("runs/{fake}")), "{summary}");
    // Another app altogether: named by its slug.
    let gh = FakeGitHub::start().await;
    gh.post_app_check_run(&head, name, "some-other-app");
    let out = run(as_app(&gh)).await;
    out.code(1);
    let title = our_run(&gh)["output"]["title"]
        .as_str()
        .unwrap()
        .to_string();
    assert!(title.contains("by the app some-other-app"), "{title}");
}

/// The listing that could not be made is a check that did not run: named in
/// the title and the outputs, the conclusion at most neutral, never a pass.
#[tokio::test(flavor = "multi_thread")]
async fn a_listing_that_fails_is_not_verified_and_named() {
    let s = Scenario::example();
    passing_review(&s);
    let head = s.git(&["rev-parse", "HEAD"]);
    let event = pull_request(&head, false);

    let alone = FakeGitHub::start().await;
    let baseline = run(step(&s, &alone).event("pull_request", event.clone())).await;
    assert_eq!(
        our_run(&alone)["conclusion"],
        "success",
        "the review alone passes"
    );

    // Refused: said at once. A server error: retried within `api-timeout`.
    for (status, message, retried) in [
        (403, "Resource not accessible by integration", false),
        (502, "Server Error", true),
    ] {
        let gh = FakeGitHub::start().await;
        gh.fail_listing(status, message);
        let out = run(step(&s, &gh)
            .input("api-timeout", "4")
            .event("pull_request", event.clone()))
        .await;
        out.code(baseline.code);
        let listed = gh
            .requests()
            .iter()
            .take_while(|r| r.method == "GET")
            .count();
        assert_eq!(listed > 1, retried, "{listed} listings");
        let ours = our_run(&gh);
        assert_eq!(ours["conclusion"], "neutral");
        let title = ours["output"]["title"].as_str().unwrap();
        assert!(
            title.starts_with("⚠️ Not verified, missing: no other check of this name"),
            "{title}"
        );
        assert_eq!(out.outputs["not-verified"], "no other check of this name");
        assert_eq!(out.outputs["conclusion"], "neutral");
        let why = out
            .stdout
            .lines()
            .find(|l| l.contains("not verified, missing no other check of this name"))
            .unwrap_or_else(|| panic!("{}", out.stdout));
        assert!(why.contains(&status.to_string()), "{why}");
        assert!(out.summary.contains(&status.to_string()), "{}", out.summary);
    }
}

/// The listing is bounded: past ten pages of 100 it stops, and what it did
/// not read is not verified rather than taken for clean.
#[tokio::test(flavor = "multi_thread")]
async fn a_listing_past_its_bound_is_not_verified() {
    let s = Scenario::example();
    passing_review(&s);
    let head = s.git(&["rev-parse", "HEAD"]);
    let gh = FakeGitHub::start().await;
    gh.seed_runs(&head, "Agent review receipt", 1001);
    let out = run(step(&s, &gh).event("pull_request", pull_request(&head, false))).await;
    out.code(0);
    let pages: Vec<String> = gh
        .requests()
        .iter()
        .take_while(|r| r.method == "GET")
        .map(|r| {
            r.query
                .iter()
                .find(|(k, _)| k == "page")
                .map(|(_, v)| v.clone())
                .unwrap_or_default()
        })
        .collect();
    assert_eq!(pages, (1..=10).map(|p| p.to_string()).collect::<Vec<_>>());
    assert_eq!(out.outputs["not-verified"], "no other check of this name");
    assert_eq!(our_run(&gh)["conclusion"], "neutral");
    assert!(
        out.stdout
            .contains("the commit has 1001 check runs of this name"),
        "{}",
        out.stdout
    );
}

const ADVISORY: &str = "advisory: this workflow file can be changed by the pull request";

/// The one-workflow layout on `pull_request`: `GITHUB_WORKFLOW_REF` names a
/// workflow file of this repository, the pull request's own copy. The check
/// says so at the end of its title, the summary points to the binding
/// layout, the log has a notice, `layout` is `advisory`; and a green check
/// stays green (the conclusion is the review's).
#[tokio::test(flavor = "multi_thread")]
async fn the_pull_requests_own_workflow_file_makes_the_check_advisory() {
    let s = Scenario::example();
    passing_review(&s);
    let head = s.git(&["rev-parse", "HEAD"]);
    let event = pull_request(&head, false);
    // The same step without the variable: the run cannot tell, says nothing.
    let alone = FakeGitHub::start().await;
    let baseline = run(step(&s, &alone).event("pull_request", event.clone())).await;
    baseline.code(0);
    let before = alone.runs()[0]["output"]["title"]
        .as_str()
        .unwrap()
        .to_string();
    assert!(!before.contains("advisory"), "{before}");
    assert_eq!(baseline.outputs["layout"], "");

    let gh = FakeGitHub::start().await;
    let own = format!("{REPO}/.github/workflows/agent-review.yml@refs/pull/42/merge");
    let out = run(step(&s, &gh)
        .env("GITHUB_WORKFLOW_REF", &own)
        .event("pull_request", event))
    .await;
    out.code(0);
    let r = our_run(&gh);
    assert_eq!(r["head_sha"], head.as_str());
    assert_eq!(r["conclusion"], "success", "a green check stays green");
    assert_eq!(r["output"]["title"], format!("{before} · {ADVISORY}"));
    let summary = r["output"]["summary"].as_str().unwrap();
    assert!(
        summary.contains(
            "[the binding layout](https://github.com/prompt-receipt/prompt-receipt#the-binding-layout)"
        ),
        "{summary}"
    );
    let heading = baseline.summary.lines().next().unwrap();
    assert!(
        out.summary
            .starts_with(&format!("{heading} · {ADVISORY}\n")),
        "{}",
        out.summary
    );
    assert!(
        out.stdout.contains(&format!(
            "::notice title=Advisory layout::{ADVISORY}, so it"
        )),
        "{}",
        out.stdout
    );
    assert!(
        out.stdout
            .contains(&format!("prompt-receipt: {before} · {ADVISORY} (success)")),
        "{}",
        out.stdout
    );
    assert_eq!(out.outputs["layout"], "advisory");
    assert_eq!(out.outputs["conclusion"], "success");
    assert_token_kept(&out);

    // Another check of the name is still named, and leads a receipt that
    // fails; the title does not claim that this one comes from the default
    // branch.
    failing_review(&s);
    let gh = FakeGitHub::start().await;
    gh.post_job_check_run(&head, "Agent review receipt", 555, 666);
    let out = run(step(&s, &gh)
        .env("GITHUB_WORKFLOW_REF", &own)
        .event("pull_request", pull_request(&head, false)))
    .await;
    out.code(1);
    let r = our_run(&gh);
    assert_eq!(r["conclusion"], "failure");
    assert_eq!(
        r["output"]["title"],
        format!(
            "❌ Another check named \"Agent review receipt\" was posted on this commit linking to workflow run 555 (job 666) · base {} · {ADVISORY}",
            &head[..12]
        )
    );
}

/// The layouts the pull request cannot edit: a `workflow_run` workflow from
/// the default branch, and an organization ruleset's required workflow (a
/// `pull_request` run whose workflow file is another repository's). The
/// title says nothing of the layout; the evidence names it; `layout` is
/// `binding`.
#[tokio::test(flavor = "multi_thread")]
async fn a_workflow_the_pull_request_cannot_edit_is_binding_and_the_title_stays_plain() {
    let s = Scenario::example();
    passing_review(&s);
    let head = s.git(&["rev-parse", "HEAD"]);
    // The agent's workflow (not in the checkout) records nothing before the
    // agent: the receipt is the review's alone, as in the test above.
    let workflow_run = json!({"workflow_run": {"event": "pull_request", "head_sha": head,
        "path": ".github/workflows/agent.yml", "head_repository": {"full_name": REPO},
        "repository": {"full_name": REPO},
        "pull_requests": [{"number": 42, "base": {"sha": head}}]}});
    for (event, payload, workflow_ref, why) in [
        (
            "workflow_run",
            workflow_run,
            format!("{REPO}/.github/workflows/receipt.yml@refs/heads/main"),
            "binding: `workflow_run` runs the default branch's workflow file",
        ),
        (
            "pull_request",
            pull_request(&head, false),
            "octo/.github/.github/workflows/receipt.yml@refs/heads/main".to_string(),
            "binding: the workflow file is another repository's (a required workflow)",
        ),
    ] {
        let gh = FakeGitHub::start().await;
        let out = run(step(&s, &gh)
            .env("GITHUB_WORKFLOW_REF", &workflow_ref)
            .event(event, payload))
        .await;
        out.code(0);
        let r = our_run(&gh);
        assert_eq!(r["head_sha"], head.as_str(), "{event}");
        assert_eq!(r["conclusion"], "success", "{event}: {}", out.stdout);
        let title = r["output"]["title"].as_str().unwrap();
        assert!(
            title.starts_with("✅ ") && !title.contains("advisory"),
            "{title}"
        );
        assert!(!out.stdout.contains("advisory"), "{}", out.stdout);
        assert!(!out.summary.contains("advisory"), "{}", out.summary);
        assert!(
            out.summary.contains(&format!("| Layout | {why} |")),
            "{}",
            out.summary
        );
        assert_eq!(out.outputs["layout"], "binding", "{event}");
    }
}

/// A run that cannot be made is never only an exit code: in Actions the step
/// posts a failing check that says why, for input the command line refuses
/// (two prompt inputs) and for a run that fails before its verdict (a prompt
/// file that is not there). The outputs say `conclusion: failure` and nothing
/// of a receipt.
#[tokio::test(flavor = "multi_thread")]
async fn a_run_that_cannot_be_made_posts_a_failing_check_saying_why() {
    let s = Scenario::example();
    let head = s.git(&["rev-parse", "HEAD"]);
    let event = pull_request(&head, false);
    for (inputs, says) in [
        (
            vec![("prompt", "x")],
            "❌ The receipt could not run: Only one of `prompt` or `prompt-file` may be specified.",
        ),
        (
            vec![("prompt-file", "prompts/nope.md")],
            "❌ The receipt could not run: input `prompt-file`",
        ),
    ] {
        let gh = FakeGitHub::start().await;
        let mut step = step(&s, &gh).event("pull_request", event.clone());
        for (k, v) in &inputs {
            step = step.input(k, v);
        }
        let out = run(step).await;
        out.code(2);
        let runs = gh.runs();
        assert_eq!(runs.len(), 1, "{inputs:?}: {}", out.stdout);
        assert_eq!(runs[0]["conclusion"], "failure");
        assert_eq!(runs[0]["head_sha"], head.as_str());
        let title = runs[0]["output"]["title"].as_str().unwrap();
        assert!(title.starts_with(&says.replace('`', "")), "{title}");
        assert_eq!(out.outputs["conclusion"], "failure");
        assert_eq!(out.outputs["check-run-id"], runs[0]["id"].to_string());
        assert!(!out.outputs.contains_key("prompt-sha"), "{:?}", out.outputs);
        assert!(
            runs[0]["output"]["summary"]
                .as_str()
                .unwrap()
                .contains("nothing was verified"),
            "{}",
            runs[0]["output"]["summary"]
        );
    }
}
