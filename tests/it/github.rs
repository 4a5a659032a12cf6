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
    assert_eq!(
        r["output"]["title"],
        "⚠️ Receipt verified · output valid · agent: not ok, 2 findings (1 high, 1 low)"
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
    assert_eq!(
        (gh.count("POST"), gh.count("PATCH"), gh.count("GET")),
        (1, 0, 0)
    );
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
        (gh.count("POST"), gh.count("GET")),
        (1, 1),
        "looked before creating again"
    );
    assert_eq!(out.outputs["check-run-id"], gh.runs()[0]["id"].to_string());

    // A 500 that made nothing: looked, found nothing, created once.
    let gh = FakeGitHub::start().await;
    gh.fail_next_create(502, &[], false);
    run(step(&s, &gh)).await.code(0);
    assert_eq!(gh.runs().len(), 1);
    assert_eq!((gh.count("POST"), gh.count("GET")), (2, 1));
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
        gh.count("GET"),
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
    assert_eq!(paths.len(), 2, "{paths:?}");
    assert!(
        paths
            .iter()
            .all(|p| p.starts_with("/api/v3/repos/octo/widgets/")),
        "{paths:?}"
    );
}

/// Two jobs of one workflow run (a matrix over models) with the same prompt.
/// The second's create fails ambiguously; its lookup must find its own run or
/// none, never the sibling's, and must page through every run of the commit.
#[tokio::test(flavor = "multi_thread")]
async fn two_jobs_with_one_prompt_each_get_their_own_check_run() {
    for created_anyway in [false, true] {
        let gh = FakeGitHub::start().await;
        let s = Scenario::example();
        let head = s.git(&["rev-parse", "HEAD"]);
        let event = pull_request(&head, false);
        let first = run(step(&s, &gh).event("pull_request", event.clone())).await;
        first.code(0);
        // Another workflow's runs of the same name, so the lookup has pages.
        gh.seed_runs(&head, "Agent review receipt", 250);
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
                    .starts_with("prompt-receipt/")
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
        // 252 runs of the name on the commit: three pages of 100 looked at.
        assert_eq!(gh.count("GET"), 3, "followed the pages");
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
