//! The commit a check run belongs on, from the workflow's event payload.
//!
//! On `pull_request` events `GITHUB_SHA` is the merge commit of
//! `refs/pull/N/merge`, which the pull request page never shows: a check run
//! must go on the pull request's head commit to appear there.

use serde_json::Value;

/// Where the check run goes, and why.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Target {
    pub head_sha: String,
    /// A pull request from a fork: its token is read-only.
    pub(crate) from_fork: bool,
    /// The pull request number, when there is one.
    pub(crate) pull_request: Option<u64>,
    /// The pull request's base commit, when the payload names one.
    pub(crate) base_sha: Option<String>,
}

/// Picks the head commit for `event_name` from the payload; falls back to
/// `github_sha` when the payload does not say (or cannot be read).
pub fn target(event_name: &str, payload: Option<&Value>, github_sha: &str) -> Target {
    let fallback = Target {
        head_sha: github_sha.to_string(),
        from_fork: false,
        pull_request: None,
        base_sha: None,
    };
    let Some(payload) = payload else {
        return fallback;
    };
    let text = |v: &Value, p: &str| v.pointer(p).and_then(Value::as_str).map(str::to_string);
    match event_name {
        "pull_request"
        | "pull_request_target"
        | "pull_request_review"
        | "pull_request_review_comment" => {
            let Some(head_sha) = text(payload, "/pull_request/head/sha").filter(|s| is_sha(s))
            else {
                return fallback;
            };
            let head_repo = text(payload, "/pull_request/head/repo/full_name");
            let base_repo = text(payload, "/pull_request/base/repo/full_name");
            Target {
                head_sha,
                // A deleted fork's head repository is null: still not this one.
                from_fork: base_repo.is_some() && head_repo != base_repo,
                pull_request: payload
                    .pointer("/pull_request/number")
                    .and_then(Value::as_u64),
                base_sha: text(payload, "/pull_request/base/sha").filter(|s| is_sha(s)),
            }
        }
        "workflow_run" => match text(payload, "/workflow_run/head_sha").filter(|s| is_sha(s)) {
            Some(head_sha) => Target {
                head_sha,
                from_fork: text(payload, "/workflow_run/head_repository/full_name")
                    != text(payload, "/workflow_run/repository/full_name"),
                pull_request: payload
                    .pointer("/workflow_run/pull_requests/0/number")
                    .and_then(Value::as_u64),
                base_sha: text(payload, "/workflow_run/pull_requests/0/base/sha")
                    .filter(|s| is_sha(s)),
            },
            None => fallback,
        },
        _ => fallback,
    }
}

/// Where this run came from, as far as trusting the receipt goes.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(crate) struct Origin {
    /// The pull request's base commit, when the payload names one.
    pub(crate) base_sha: Option<String>,
    /// The event reviews a pull request (`pull_request*`, or a `workflow_run`
    /// of one): a comparison with its base is expected.
    pub(crate) reviews_pull_request: bool,
    /// The agent job ran on a fork's code.
    pub(crate) from_fork: bool,
    /// The workflow file that runs the agent's review, relative to the
    /// repository: `GITHUB_WORKFLOW_REF`'s, or for `workflow_run` the
    /// triggering run's.
    pub(crate) workflow_path: Option<String>,
    /// Whether the pull request can change the workflow file that runs this
    /// step; `None` when the run cannot tell or reviews no pull request.
    pub(crate) layout: Option<Layout>,
    /// A `workflow_run` of a pull request's run that names no workflow file
    /// of this repository: what ran there cannot be read.
    pub(crate) names_no_agent_workflow: bool,
    /// The repository's default branch, as the event names it.
    pub(crate) default_branch: Option<String>,
    /// The branch the pull request merges into (`pull_request.base.ref`).
    pub(crate) merges_into: Option<String>,
}

/// Who controls the workflow file that runs this step: what the receipt's
/// verdict is worth rests on it (the README's Trust section).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Layout {
    /// The pull request's own copy of the workflow file runs: it can change
    /// this step's inputs, point `uses:` elsewhere, or post the check itself.
    Advisory,
    /// A workflow file the pull request cannot change runs; why, in a few
    /// words of ours (no text from the environment).
    Binding(&'static str),
}

impl Layout {
    /// The step output `layout`.
    pub(crate) fn as_str(self) -> &'static str {
        match self {
            Layout::Advisory => "advisory",
            Layout::Binding(_) => "binding",
        }
    }
}

/// The layout from the event and the workflow file that runs (`GITHUB_WORKFLOW_REF`,
/// which a reusable workflow reads as its caller's: the caller is what a pull
/// request edits to repoint `uses:`). `pull_request` and the review events run
/// the workflow file of the pull request's merge or head ref: advisory when that
/// file is this repository's, binding when it is another's (an organization
/// ruleset's required workflow). `workflow_run` and `pull_request_target` run
/// the default branch's or the base's file. Anything else, or a
/// `GITHUB_WORKFLOW_REF` or `GITHUB_REPOSITORY` that is missing or unreadable,
/// is `None`: the run says nothing rather than guess.
pub(crate) fn layout(
    event_name: &str,
    workflow_ref: Option<&str>,
    repository: Option<&str>,
) -> Option<Layout> {
    match event_name {
        "workflow_run" => Some(Layout::Binding(
            "`workflow_run` runs the default branch's workflow file",
        )),
        "pull_request_target" => Some(Layout::Binding(
            "`pull_request_target` runs the base branch's workflow file",
        )),
        "pull_request" | "pull_request_review" | "pull_request_review_comment" => {
            let (owner, repo) = repository?.trim().split_once('/')?;
            let (ref_owner, ref_repo, _) = workflow_parts(workflow_ref?)?;
            if [owner, repo, ref_owner, ref_repo]
                .iter()
                .any(|p| p.is_empty())
            {
                return None;
            }
            // GitHub's owner and repository names are case-insensitive.
            let same = owner.eq_ignore_ascii_case(ref_owner) && repo.eq_ignore_ascii_case(ref_repo);
            Some(if same {
                Layout::Advisory
            } else {
                Layout::Binding("the workflow file is another repository's (a required workflow)")
            })
        }
        _ => None,
    }
}

/// The run's origin from the event and `GITHUB_WORKFLOW_REF`.
pub(crate) fn origin(
    event_name: &str,
    payload: Option<&Value>,
    workflow_ref: Option<&str>,
    repository: Option<&str>,
) -> Origin {
    let t = target(event_name, payload, "");
    let text = |p: &str| payload.and_then(|v| v.pointer(p)).and_then(Value::as_str);
    let (reviews_pull_request, workflow) = match event_name {
        "workflow_run" => (
            text("/workflow_run/event").is_some_and(|e| e.starts_with("pull_request")),
            text("/workflow_run/path").map(str::to_string),
        ),
        e => (
            e.starts_with("pull_request"),
            workflow_ref.and_then(workflow_file),
        ),
    };
    let workflow_path = workflow.filter(|p| repository_workflow(p));
    let branch = |p: &str| {
        text(p)
            .filter(|b| {
                !b.is_empty()
                    && b.len() <= crate::limits::BRANCH_NAME_BYTES
                    && !b.chars().any(char::is_control)
            })
            .map(str::to_string)
    };
    Origin {
        default_branch: branch("/repository/default_branch"),
        merges_into: branch("/pull_request/base/ref"),
        base_sha: t.base_sha,
        names_no_agent_workflow: event_name == "workflow_run"
            && reviews_pull_request
            && workflow_path.is_none(),
        reviews_pull_request,
        from_fork: t.from_fork,
        workflow_path,
        layout: layout(event_name, workflow_ref, repository),
    }
}

/// `owner/repo/.github/workflows/file.yml@refs/...` → `.github/workflows/file.yml`.
fn workflow_file(workflow_ref: &str) -> Option<String> {
    workflow_parts(workflow_ref).map(|(_, _, file)| file.to_string())
}

/// `owner/repo/path@ref` → (`owner`, `repo`, `path`).
fn workflow_parts(workflow_ref: &str) -> Option<(&str, &str, &str)> {
    let (path, _) = workflow_ref.trim().rsplit_once('@')?;
    let mut parts = path.splitn(3, '/');
    Some((parts.next()?, parts.next()?, parts.next()?))
}

/// A workflow file of this repository, named plainly: nothing that climbs out.
fn repository_workflow(path: &str) -> bool {
    path.starts_with(".github/workflows/")
        && !path.split('/').any(|c| c == ".." || c.is_empty())
        && !path.chars().any(char::is_control)
}

/// The event payload, when it can be read: a missing or broken one means
/// `GITHUB_SHA` is used, not that the step fails.
pub(crate) fn read(path: Option<&std::path::Path>) -> Option<Value> {
    let path = path?;
    let meta = std::fs::metadata(path).ok()?;
    if meta.len() > crate::limits::EVENT_BYTES {
        tracing::debug!(
            "event payload over {} MiB; using GITHUB_SHA",
            crate::limits::EVENT_BYTES >> 20
        );
        return None;
    }
    serde_json::from_slice(&std::fs::read(path).ok()?).ok()
}

/// A full commit SHA (SHA-1 or SHA-256 object format): anything else from a
/// payload is not trusted into a URL.
pub fn is_sha(s: &str) -> bool {
    (s.len() == 40 || s.len() == 64) && s.bytes().all(|b| b.is_ascii_hexdigit())
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    const HEAD: &str = "1111111111111111111111111111111111111111";
    const MERGE: &str = "2222222222222222222222222222222222222222";

    #[test]
    fn pull_requests_use_the_head_commit() {
        let p = json!({"pull_request": {"number": 7, "head": {"sha": HEAD, "repo": {"full_name": "fork/r"}}, "base": {"repo": {"full_name": "o/r"}}}});
        for event in ["pull_request", "pull_request_target"] {
            let t = target(event, Some(&p), MERGE);
            assert_eq!(
                (t.head_sha.as_str(), t.from_fork, t.pull_request),
                (HEAD, true, Some(7))
            );
        }
    }

    #[test]
    fn workflow_run_uses_its_head_sha_and_others_github_sha() {
        let p = json!({"workflow_run": {"head_sha": HEAD, "head_repository": {"full_name": "o/r"}, "repository": {"full_name": "o/r"}}});
        assert_eq!(target("workflow_run", Some(&p), MERGE).head_sha, HEAD);
        assert!(!target("workflow_run", Some(&p), MERGE).from_fork);
        assert_eq!(target("push", Some(&p), MERGE).head_sha, MERGE);
        assert_eq!(target("pull_request", None, MERGE).head_sha, MERGE);
    }

    #[test]
    fn the_origin_names_the_base_the_workflow_and_a_fork() {
        let p = json!({"pull_request": {"number": 7, "head": {"sha": HEAD, "repo": {"full_name": "fork/r"}},
            "base": {"sha": MERGE, "repo": {"full_name": "o/r"}}}});
        let o = origin(
            "pull_request",
            Some(&p),
            Some("o/r/.github/workflows/review.yml@refs/pull/7/merge"),
            Some("o/r"),
        );
        assert_eq!(o.base_sha.as_deref(), Some(MERGE));
        assert!(o.reviews_pull_request && o.from_fork);
        assert_eq!(
            o.workflow_path.as_deref(),
            Some(".github/workflows/review.yml")
        );
        let run = json!({"workflow_run": {"event": "pull_request", "head_sha": HEAD, "path": ".github/workflows/agent-review.yml",
            "head_repository": {"full_name": "fork/r"}, "repository": {"full_name": "o/r"}, "pull_requests": []}});
        let o = origin(
            "workflow_run",
            Some(&run),
            Some("o/r/.github/workflows/report.yml@refs/heads/main"),
            Some("o/r"),
        );
        assert_eq!(
            (o.base_sha, o.reviews_pull_request, o.from_fork),
            (None, true, true)
        );
        assert_eq!(
            o.workflow_path.as_deref(),
            Some(".github/workflows/agent-review.yml")
        );
        let o = origin("push", None, Some("o/r/../../etc/passwd@x"), Some("o/r"));
        assert_eq!(o, Origin::default());
    }

    const OWN: &str = "o/r/.github/workflows/review.yml@refs/pull/7/merge";

    #[test]
    fn the_pull_requests_own_workflow_file_is_advisory() {
        for event in [
            "pull_request",
            "pull_request_review",
            "pull_request_review_comment",
        ] {
            assert_eq!(
                layout(event, Some(OWN), Some("o/r")),
                Some(Layout::Advisory),
                "{event}"
            );
        }
        // Names differ only in case: still this repository.
        assert_eq!(
            layout("pull_request", Some(OWN), Some("O/R")),
            Some(Layout::Advisory)
        );
        let o = origin("pull_request", None, Some(OWN), Some("o/r"));
        assert_eq!(o.layout.map(Layout::as_str), Some("advisory"));
    }

    #[test]
    fn a_workflow_file_from_the_default_branch_or_the_base_is_binding() {
        for event in ["workflow_run", "pull_request_target"] {
            let l = layout(
                event,
                Some("o/r/.github/workflows/receipt.yml@refs/heads/main"),
                Some("o/r"),
            );
            assert!(matches!(l, Some(Layout::Binding(_))), "{event}: {l:?}");
            // What the event runs decides, whatever the variables say.
            assert!(matches!(
                layout(event, None, None),
                Some(Layout::Binding(_))
            ));
        }
    }

    #[test]
    fn a_required_workflow_of_another_repository_is_binding() {
        let required = "org/.github/.github/workflows/receipt.yml@refs/heads/main";
        let l = layout("pull_request", Some(required), Some("org/app"));
        assert_eq!(
            l,
            Some(Layout::Binding(
                "the workflow file is another repository's (a required workflow)"
            ))
        );
        assert_eq!(l.map(Layout::as_str), Some("binding"));
        // Same owner, another repository: not the pull request's copy either.
        assert!(matches!(
            layout(
                "pull_request",
                Some("o/other/.github/workflows/x.yml@v1"),
                Some("o/r")
            ),
            Some(Layout::Binding(_))
        ));
    }

    #[test]
    fn a_reusable_workflow_counts_its_callers_file() {
        // A reusable workflow from another repository, called from this
        // repository's pull_request workflow, sees the caller's ref: the
        // pull request can edit the caller, so the run is advisory.
        let caller = "o/r/.github/workflows/agent-review.yml@refs/pull/7/merge";
        assert_eq!(
            layout("pull_request", Some(caller), Some("o/r")),
            Some(Layout::Advisory)
        );
    }

    #[test]
    fn without_the_variables_or_a_pull_request_nothing_is_said() {
        for (event, wref, repo) in [
            ("pull_request", None, Some("o/r")),
            ("pull_request", Some(OWN), None),
            ("pull_request", Some("no-at-sign"), Some("o/r")),
            ("pull_request", Some("o@refs/heads/main"), Some("o/r")),
            ("pull_request", Some(OWN), Some("no-slash")),
            ("pull_request", Some("/r/x.yml@main"), Some("/r")),
            ("push", Some(OWN), Some("o/r")),
            ("workflow_dispatch", Some(OWN), Some("o/r")),
            ("", None, None),
        ] {
            assert_eq!(layout(event, wref, repo), None, "{event} {wref:?} {repo:?}");
        }
    }

    #[test]
    fn a_hostile_payload_falls_back() {
        let p = json!({"pull_request": {"head": {"sha": "../../evil?x=1"}}});
        assert_eq!(target("pull_request", Some(&p), MERGE).head_sha, MERGE);
        assert_eq!(
            target("pull_request", Some(&json!([1])), MERGE).head_sha,
            MERGE
        );
    }
}
