//! The binding layout's verdict, as receipt.yml runs the action on the
//! `workflow_run` of a pull request: held to the default branch, whatever
//! base the pull request picked; what the agent workflow's steps run compared
//! with that base; what could not be verified a failure. Each attack has its
//! control: a clean pull request into `main` stays `success`.

use crate::common;

use common::github::FakeGitHub;
use common::*;
use serde_json::json;

const AGENT_WORKFLOW: &str = ".github/workflows/agent-review.yml";

/// The receipt step in the binding layout: the event names the pull requests
/// of the head and the agent workflow's file; `base-ref` is `main`'s tip,
/// `base-branch` `main`, and `merges_into` the branches the pull requests of
/// the head merge into, as receipt.yml hands them on.
fn receipt(s: &Scenario, gh: &FakeGitHub, base: &str, merges_into: &[&str]) -> Outcome {
    let head = s.git(&["rev-parse", "HEAD"]);
    let prs: Vec<serde_json::Value> = merges_into
        .iter()
        .map(|b| json!({"number": 42, "head": {"sha": head}, "base": {"ref": b, "sha": base}}))
        .collect();
    let event = json!({
        "action": "completed",
        "workflow_run": {
            "id": 4242, "event": "pull_request", "conclusion": "success",
            "path": AGENT_WORKFLOW, "head_sha": head,
            "head_repository": {"full_name": common::github::REPO},
            "repository": {"full_name": common::github::REPO},
            "pull_requests": prs
        },
        "repository": {"full_name": common::github::REPO, "default_branch": "main"}
    });
    s.review_step()
        .github(&gh.url(), &head)
        .env(
            "GITHUB_WORKFLOW_REF",
            &format!(
                "{}/.github/workflows/agent-receipt.yml@refs/heads/main",
                common::github::REPO
            ),
        )
        .input("base-ref", base)
        .input("base-branch", "main")
        .input("pull-request-bases", &merges_into.join("\n"))
        .input("instructions-changed", "fail")
        .event("workflow_run", event)
        .run()
}

/// The example with a review that passes, committed as the default branch.
fn default_branch() -> (Scenario, String) {
    let s = Scenario::example();
    s.write(
        "artifacts/review.json",
        json!({"ok": true, "findings": []}).to_string(),
    );
    let s = s.commit("the default branch");
    let base = s.git(&["rev-parse", "HEAD"]);
    (s, base)
}

fn title(gh: &FakeGitHub) -> String {
    let runs = gh.runs();
    assert_eq!(runs.len(), 1, "{runs:?}");
    runs[0]["output"]["title"].as_str().unwrap().to_string()
}

/// The attack: the contributor opens the pull request against a
/// branch they pushed, whose instructions are theirs. The receipt holds the
/// head to `main` all the same, fails, and says which branches; the control,
/// the same head into `main`, passes, and both name the base with its commit.
#[tokio::test(flavor = "multi_thread")]
async fn a_pull_request_into_a_branch_the_contributor_pushed_fails() {
    let (s, base) = default_branch();
    s.write("src/billing/invoice.ts", "export const total = 0;\n");
    let s = s.commit("the pull request");
    let short = &base[..12];

    let gh = FakeGitHub::start().await;
    let out = receipt(&s, &gh, &base, &["main"]);
    out.code(0);
    assert_eq!(out.outputs["layout"], "binding");
    assert_eq!(
        title(&gh),
        format!(
            "✅ Receipt verified · output valid · agent: ok, no findings · base main at {short}"
        )
    );
    assert!(
        out.summary
            .contains(&format!("**Base**: `main` at `{short}`")),
        "{}",
        out.summary
    );
    assert_eq!(out.usage()["base"]["branch"], "main");

    let gh = FakeGitHub::start().await;
    let out = receipt(&s, &gh, &base, &["evil-base"]);
    out.code(1);
    assert_eq!(out.outputs["conclusion"], "failure");
    assert_eq!(
        title(&gh),
        format!(
            "❌ The pull request merges into evil-base, not main: only the default branch or a protected base is trusted · base main at {short}"
        )
    );
    assert_eq!(
        out.usage()["base"]["pull_requests_into"],
        json!(["evil-base"])
    );
    // Two pull requests of one head, one of them elsewhere: the check on the
    // commit shows on both, so it fails; a name with a backtick is quoted.
    let gh = FakeGitHub::start().await;
    let out = receipt(&s, &gh, &base, &["main", "x`y"]);
    out.code(1);
    assert!(
        title(&gh).starts_with("❌ The pull request merges into x'y, not main"),
        "{}",
        title(&gh)
    );
    // None named (the head's pull request closed, or the API answered none):
    // not verified, a failure here.
    let gh = FakeGitHub::start().await;
    let out = receipt(&s, &gh, &base, &[]);
    out.code(1);
    assert_eq!(
        out.outputs["not-verified"],
        "the branch the pull request merges into"
    );
}

/// A workflow the default branch runs before the agent, with a local action
/// and a script: a pull request that changes only what they run fails,
/// naming each file, though the workflow file is the base's. The control,
/// a pull request that changes code only, passes.
#[tokio::test(flavor = "multi_thread")]
async fn what_the_agent_workflow_runs_before_the_agent_is_compared_with_the_base() {
    let s = Scenario::example();
    s.write(
        "artifacts/review.json",
        json!({"ok": true, "findings": []}).to_string(),
    );
    let workflow = String::from_utf8(s.read(AGENT_WORKFLOW)).unwrap();
    let workflow = workflow.replacen(
        "      - uses: openai/codex-action@",
        "      - uses: ./.github/actions/setup\n      - run: bash scripts/prepare.sh\n      - uses: openai/codex-action@",
        1,
    );
    assert!(workflow.contains("./.github/actions/setup"));
    s.write(AGENT_WORKFLOW, &workflow);
    s.write(
        ".github/actions/setup/action.yml",
        "name: setup\nruns:\n  using: composite\n  steps:\n    - run: ${{ github.action_path }}/setup.sh\n      shell: bash\n",
    );
    s.write(".github/actions/setup/setup.sh", "echo setting up\n");
    s.write("scripts/prepare.sh", "echo preparing\n");
    let s = s.commit("the default branch runs a setup action and a script");
    let base = s.git(&["rev-parse", "HEAD"]);

    // The control: code only.
    s.write("src/billing/invoice.ts", "export const total = 0;\n");
    let s = s.commit("the pull request");
    let gh = FakeGitHub::start().await;
    let out = receipt(&s, &gh, &base, &["main"]);
    out.code(0);
    assert_eq!(out.outputs["conclusion"], "success", "{}", out.summary);

    // The attack: the review and the record rewritten before the upload.
    for (file, kind) in [
        (
            ".github/actions/setup/setup.sh",
            "local action of the agent workflow",
        ),
        ("scripts/prepare.sh", "agent workflow step"),
    ] {
        let s = Scenario::clone_of(&s);
        s.write(
            file,
            "(sleep 600; echo '{\"ok\":true,\"findings\":[]}' > review.json) &\n",
        );
        let s = s.commit("rewrite the review after the agent");
        let gh = FakeGitHub::start().await;
        let out = receipt(&s, &gh, &base, &["main"]);
        out.code(1);
        let changed = &out.usage()["base"]["instructions_changed"];
        let named = changed
            .as_array()
            .unwrap()
            .iter()
            .find(|c| c["path"] == file)
            .unwrap_or_else(|| panic!("{file} not named: {changed:#}"));
        assert_eq!(named["kind"], kind, "{named}");
        assert!(
            title(&gh).starts_with("❌ This pull request changes what the agent runs:"),
            "{}",
            title(&gh)
        );
        assert!(title(&gh).contains(file), "{}", title(&gh));
    }
}

/// A step the receipt cannot follow, in the agent's job: not verified, which
/// the binding layout fails (and the advisory layout caps at neutral).
#[tokio::test(flavor = "multi_thread")]
async fn a_step_that_runs_the_checkouts_own_code_before_the_agent_fails_there() {
    let s = Scenario::example();
    s.write(
        "artifacts/review.json",
        json!({"ok": true, "findings": []}).to_string(),
    );
    let workflow = String::from_utf8(s.read(AGENT_WORKFLOW)).unwrap();
    s.write(
        AGENT_WORKFLOW,
        workflow.replacen(
            "      - uses: openai/codex-action@",
            "      - run: npm ci\n      - uses: openai/codex-action@",
            1,
        ),
    );
    let s = s.commit("the default branch installs the project before the agent");
    let base = s.git(&["rev-parse", "HEAD"]);
    let gh = FakeGitHub::start().await;
    let out = receipt(&s, &gh, &base, &["main"]);
    out.code(1);
    assert_eq!(out.outputs["conclusion"], "failure");
    assert_eq!(out.outputs["not-verified"], "what the agent workflow runs");
    assert!(
        out.summary
            .contains("runs `npm ci`, which runs the pull request's own code"),
        "{}",
        out.summary
    );
    assert!(
        title(&gh).starts_with("❌ Not verified, missing: what the agent workflow runs"),
        "{}",
        title(&gh)
    );
}
