//! The check run on the pull request, through octocrab.
//!
//! One `POST` creates the run with the first 50 annotations (GitHub's limit per
//! request); each further 50 go in a `PATCH`. Retries are ours, not octocrab's:
//! a create that failed ambiguously (5xx, timeout) may have been made, so before
//! creating again we look for the run by name and `external_id`. A connection
//! that cannot be made (refused, no route, a name that does not resolve) is
//! not a fault that passes in seconds: it is said once, with the fix, and no
//! further request is tried ([`unreachable`]). When the token
//! cannot create checks (no token, fork pull requests, no `checks: write`), the
//! run says why and how to fix it once, and the annotations in the log and the
//! job summary carry the result; the gate alone decides the step's outcome.
//!
//! Before the create, the commit's check runs of the same name are listed
//! (`GET .../commits/{ref}/check-runs`, paged and bounded, on the same budget):
//! one that this receipt did not post, and that could pass, is an imitation;
//! it fails the outcome and names itself in the title that the create then
//! carries. Only what an imitator cannot set tells this receipt's checks
//! ([`Own`]): the app that posted it (GitHub sets it), and the ids this
//! receipt's own creates returned, on earlier attempts kept in its own
//! artifact. `external_id` and `details_url` are the poster's to write. A
//! listing that cannot be made is "not verified".

use std::time::{Duration, Instant};

use octocrab::Octocrab;
use octocrab::params::checks::{
    CheckRunOutput, CheckRunOutputAnnotation, CheckRunOutputAnnotationLevel,
};
use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::Report;
use super::annotations::{self, Annotation};
use super::summary::{Page, fit, render};
use crate::context::Context;
use crate::error::Error;
use crate::escape::one_line;
use crate::event;
use crate::level::Caveat;
use crate::level::Level;
use crate::limits;
use crate::markdown::{clip, code, fenced, short_hash, shorten_middle};
use crate::outcome::{CheckRunOutcome, Imitation, NO_OTHER_CHECK, Outcome, Unverified};

/// GitHub's limits on a check run's output.
pub(crate) const MAX_TEXT: usize = 65_535;
pub(crate) const ANNOTATIONS_PER_REQUEST: usize = 50;
const MAX_TITLE: usize = 255;
const MAX_MESSAGE: usize = 16_000;

pub(crate) struct CheckRun {
    pub(crate) ctx: Context,
    /// Where finding locations link (see `summary::Page`).
    pub(crate) blob_base: Option<String>,
    pub(crate) token: Option<String>,
    pub(crate) name: String,
    pub(crate) max_annotations: usize,
    pub(crate) budget: Duration,
    pub(crate) own: Own,
}

/// What tells this receipt's own check runs from another's, by what GitHub
/// sets and an imitator cannot.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(crate) struct Own {
    /// The slug of the GitHub App whose token posts the check (`app-slug`;
    /// GitHub sets each check's app, and slugs are unique): every check of
    /// this name from it is this receipt's, any other app's is not. Without
    /// it the check is GitHub Actions', as is every workflow job's.
    pub(crate) app: Option<String>,
    /// The ids earlier attempts of this workflow run's creates returned
    /// (`earlier-check-runs`, from this run's own artifact).
    pub(crate) earlier: Vec<u64>,
}

impl Own {
    /// Posted by this receipt: its app's, or an earlier attempt's by id.
    fn posted(&self, run: &ListedRun) -> bool {
        match &self.app {
            Some(app) => run.app.as_ref().and_then(|a| a.slug.as_deref()) == Some(app.as_str()),
            None => self.earlier.contains(&run.id),
        }
    }
}

/// A check that cannot let anything pass: it concluded, and not as a pass
/// (GitHub counts success, neutral and skipped as passing). receipt.yml's
/// own "the agent's run ended" check, an earlier receipt that failed: not
/// imitations, whoever posted them.
fn cannot_pass(run: &ListedRun) -> bool {
    run.status.as_deref() == Some("completed")
        && matches!(
            run.conclusion.as_deref(),
            Some("failure" | "cancelled" | "timed_out" | "action_required" | "stale")
        )
}

impl Report for CheckRun {
    fn name(&self) -> &'static str {
        "check run"
    }

    fn report(&mut self, result: &mut Outcome) -> Result<(), Error> {
        let Some(repo) = self.ctx.repository.clone().filter(|_| self.ctx.in_actions) else {
            return Ok(()); // a local run: the terminal has the story
        };
        let outcome = match &self.token {
            None => CheckRunOutcome::NotPublished {
                reason:
                    "no `github-token`: pass `github-token: ${{ github.token }}` (the default) and \
                         `permissions: checks: write`"
                        .into(),
            },
            Some(token) => {
                let target = event::target(
                    &self.ctx.event_name,
                    event::read(self.ctx.event_path.as_deref()).as_ref(),
                    self.ctx.sha.as_deref().unwrap_or(""),
                );
                if !event::is_sha(&target.head_sha) {
                    CheckRunOutcome::NotPublished {
                        reason: "no commit to put the check run on (GITHUB_SHA is not set); run inside a workflow".into(),
                    }
                } else {
                    let external_id = external_id(&self.ctx)?;
                    let runtime = tokio::runtime::Builder::new_current_thread()
                        .enable_all()
                        .build()
                        .map_err(|e| Error::new(format!("cannot start the HTTP runtime: {e}")))?;
                    let this_run = ThisRun {
                        server: self.ctx.server_url.trim_end_matches('/').to_string(),
                        repo: repo.clone(),
                        own: self.own.clone(),
                    };
                    runtime.block_on(async {
                        let mut api = match Api::start(&self.ctx.api_url, token, self.budget) {
                            Ok(api) => api,
                            Err(reason) => {
                                result.unverified.push(Unverified::new(
                                    NO_OTHER_CHECK,
                                    format!(
                                        "the commit's check runs could not be listed: {reason}"
                                    ),
                                ));
                                return not_published(reason);
                            }
                        };
                        // Before posting: the verdict this check carries
                        // names any other check of its name.
                        match others(&mut api, &repo, &target.head_sha, &self.name, &this_run).await
                        {
                            Ok(found) => result.imitations = found,
                            Err(why) => {
                                result.unverified.push(Unverified::new(NO_OTHER_CHECK, why))
                            }
                        }
                        let plan = plan(
                            result,
                            &self.name,
                            &target.head_sha,
                            self.ctx.run_url(),
                            &external_id,
                            self.max_annotations,
                            self.blob_base.clone(),
                        );
                        publish(&mut api, &repo, &plan, target.from_fork).await
                    })
                }
            }
        };
        if let CheckRunOutcome::NotPublished { reason } = &outcome {
            result.caveats.push(Caveat::warning(format!(
                "{}{reason}. The annotations and the job summary carry the result.",
                crate::outcome::NOT_PUBLISHED
            )));
        }
        result.check_run = Some(outcome);
        Ok(())
    }
}

/// This invocation's own mark on the check run it creates: the workflow run,
/// attempt and job, and a random nonce. A create that failed ambiguously may
/// have made the run, so it is looked for again by this mark; two jobs of one
/// run (a matrix over models, both with the same prompt) have different
/// nonces, so neither can adopt the other's run.
pub(crate) fn external_id(ctx: &Context) -> Result<String, Error> {
    let mut nonce = [0u8; 8];
    getrandom::fill(&mut nonce)
        .map_err(|e| Error::new(format!("no randomness for the check run's identity: {e}")))?;
    Ok(format!(
        "prompt-receipt/{}/{}/{}/{}",
        ctx.run_id.as_deref().unwrap_or("local"),
        ctx.run_attempt.as_deref().unwrap_or("1"),
        ctx.job.as_deref().unwrap_or("job"),
        hex::encode(nonce)
    ))
}

#[derive(Serialize)]
pub(crate) struct CreateBody {
    pub(crate) name: String,
    pub(crate) head_sha: String,
    pub(crate) status: &'static str,
    pub(crate) conclusion: &'static str,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) details_url: Option<String>,
    pub(crate) external_id: String,
    pub(crate) output: CheckRunOutput,
}

#[derive(Serialize)]
pub(crate) struct UpdateBody {
    pub(crate) output: CheckRunOutput,
}

/// Everything to send, worked out before the first request.
pub(crate) struct Plan {
    pub(crate) create: CreateBody,
    pub(crate) updates: Vec<UpdateBody>,
    pub(crate) annotations: usize,
    pub(crate) left_out: usize,
}

/// Builds the requests: summary and text within GitHub's limits, annotations
/// with a file and line (at most `max`), 50 a request.
pub(crate) fn plan(
    result: &Outcome,
    name: &str,
    head_sha: &str,
    details_url: Option<String>,
    external_id: &str,
    max: usize,
    blob_base: Option<String>,
) -> Plan {
    let all = annotations::collect(result, max);
    let mut located: Vec<&Annotation> = all
        .list
        .iter()
        .filter(|a| a.path.is_some() && a.line.is_some())
        .collect();
    located.truncate(max);
    let annotations: Vec<CheckRunOutputAnnotation> = located.iter().map(|a| to_check(a)).collect();
    let count = annotations.len();
    let left_out = all.located().saturating_sub(count);

    let title = super::verdict::of(result).plain_within(MAX_TITLE);
    let page = Page {
        blob_base,
        budget: MAX_TEXT - 512,
        heading: false,
    };
    let mut summary = render(result, &page);
    if left_out > 0 {
        summary.push_str(&format!(
            "\n{left_out} annotations were left out (input `max-annotations` is {max}); the job summary and the agent's output have every finding.\n"
        ));
    }
    let summary = fit(&summary, MAX_TEXT);
    let text = receipt_text(result);
    let mut batches = batches(annotations, ANNOTATIONS_PER_REQUEST);
    let first = if batches.is_empty() {
        Vec::new()
    } else {
        batches.remove(0)
    };
    let output = |annotations| CheckRunOutput {
        title: title.clone(),
        summary: summary.clone(),
        text: Some(text.clone()),
        annotations,
        images: Vec::new(),
    };
    Plan {
        create: CreateBody {
            name: name.to_string(),
            head_sha: head_sha.to_string(),
            status: "completed",
            conclusion: result.conclusion().as_str(),
            details_url,
            external_id: external_id.to_string(),
            output: output(first),
        },
        updates: batches
            .into_iter()
            .map(|b| UpdateBody { output: output(b) })
            .collect(),
        annotations: count,
        left_out,
    }
}

/// Splits `items` into groups of at most `n`, in order.
fn batches<T>(items: Vec<T>, n: usize) -> Vec<Vec<T>> {
    let mut out = Vec::new();
    let mut it = items.into_iter().peekable();
    while it.peek().is_some() {
        out.push(it.by_ref().take(n).collect());
    }
    out
}

fn to_check(a: &Annotation) -> CheckRunOutputAnnotation {
    let start = a.line.unwrap_or(1).clamp(1, u32::MAX as u64) as u32;
    let end = a
        .end_line
        .map_or(start, |e| (e.min(u32::MAX as u64) as u32).max(start));
    // Columns are only allowed on a single line.
    let column = a
        .column
        .filter(|_| start == end)
        .map(|c| c.min(u32::MAX as u64) as u32);
    CheckRunOutputAnnotation {
        path: a.path.clone().unwrap_or_default(),
        start_line: start,
        end_line: end,
        start_column: column,
        end_column: column,
        annotation_level: match a.level {
            Level::Failure => CheckRunOutputAnnotationLevel::Failure,
            Level::Warning => CheckRunOutputAnnotationLevel::Warning,
            Level::Notice => CheckRunOutputAnnotationLevel::Notice,
        },
        message: clip(&a.message, MAX_MESSAGE),
        title: a.title.as_ref().map(|t| clip(t, MAX_TITLE)),
        raw_details: None,
    }
}

/// The check run's `text`: what matters in a short table, then the receipt
/// itself as a `json` block to copy.
fn receipt_text(result: &Outcome) -> String {
    let field = |k: &str| result.receipt.get(k).and_then(Value::as_str);
    let short = |k: &str| field(k).map_or("*not given*".to_string(), |v| code(&short_hash(v)));
    let mut md = String::from("| Receipt | |\n| --- | --- |\n");
    match field("prompt_path") {
        Some(p) => md.push_str(&format!(
            "| Prompt | {} {} |\n",
            code(&shorten_middle(p, 56)),
            short("prompt_sha")
        )),
        None => md.push_str(&format!("| Prompt | inline {} |\n", short("prompt_sha"))),
    }
    if result.receipt.contains_key("agents_sha") {
        md.push_str(&format!(
            "| {} chain | {} |\n",
            result.agent_kind().chain_name(),
            short("agents_sha")
        ));
    }
    let commit = field("git_sha").unwrap_or_default();
    md.push_str(&format!(
        "| Checkout | {} at {} |\n",
        short("git_describe"),
        code(&commit.chars().take(12).collect::<String>())
    ));
    md.push_str(&format!(
        "| {}, model | {}, {} |\n",
        result.agent_kind().name(),
        short("codex_version"),
        short("model")
    ));
    md.push_str(&format!("| File | {} |\n\n", code(&result.usage_file)));
    let json =
        serde_json::to_string_pretty(&Value::Object(result.receipt.clone())).unwrap_or_default();
    // JSON escapes keep it valid and copyable; nothing invisible is left to
    // reorder what a reader sees.
    let json: String = json
        .chars()
        .map(|c| {
            if crate::markdown::invisible(c) {
                format!("\\u{:04x}", c as u32)
            } else {
                c.to_string()
            }
        })
        .collect();
    if md.len() + json.len() + 64 > MAX_TEXT {
        md.push_str(&format!(
            "The receipt is {} bytes, over the check run's limit: it is {} in the artifact.\n",
            json.len(),
            code(&result.usage_file)
        ));
    } else {
        md.push_str(&format!("The receipt, {}:\n\n", code(&result.usage_file)));
        md.push_str(&fenced("json", &json));
    }
    md
}

#[derive(Deserialize)]
struct Created {
    id: u64,
    html_url: Option<String>,
}

#[derive(Deserialize)]
struct Listed {
    total_count: usize,
    check_runs: Vec<ListedRun>,
}

#[derive(Deserialize)]
struct ListedRun {
    id: u64,
    name: String,
    #[serde(default)]
    external_id: Option<String>,
    #[serde(default)]
    html_url: Option<String>,
    #[serde(default)]
    details_url: Option<String>,
    #[serde(default)]
    status: Option<String>,
    #[serde(default)]
    conclusion: Option<String>,
    #[serde(default)]
    app: Option<ListedApp>,
}

#[derive(Deserialize)]
struct ListedApp {
    /// GitHub sets it: what tells one app's checks from another's.
    #[serde(default)]
    slug: Option<String>,
}

/// A response, classified.
enum Reply {
    Ok(String),
    /// Worth another try: 5xx, 429, rate limits, timeouts, dropped connections.
    /// `maybe_done` when the server may have acted on the request anyway.
    Retry {
        after: Option<Duration>,
        why: String,
        maybe_done: bool,
    },
    /// Will not get better by trying again.
    Refused(String),
    /// No connection could be made, for a reason that will not go away in
    /// the seconds a retry waits (refused, no route, a host name that does
    /// not resolve): said once, with the fix, and no request is tried again.
    Unreachable(String),
}

enum Method {
    Get,
    Post,
    Patch,
}

async fn send<B: Serialize>(
    crab: &Octocrab,
    shown_url: &str,
    method: Method,
    route: &str,
    body: Option<&B>,
) -> Reply {
    let sent = match method {
        Method::Get => crab._get(route).await,
        Method::Post => crab._post(route, body).await,
        Method::Patch => crab._patch(route, body).await,
    };
    let response = match sent {
        Ok(r) => r,
        Err(e) => return no_response(&e, shown_url),
    };
    let status = response.status().as_u16();
    let headers = response.headers().clone();
    let body = match crab.body_to_string(response).await {
        Ok(b) => b,
        Err(e) => {
            return Reply::Retry {
                after: None,
                why: format!(
                    "the response was cut off ({})",
                    one_line(&transport_reason(&e))
                ),
                maybe_done: true,
            };
        }
    };
    let header = |name: &str| {
        headers
            .get(name)
            .and_then(|v| v.to_str().ok())
            .map(str::to_string)
    };
    let retry_after = header("retry-after")
        .and_then(|v| v.trim().parse::<u64>().ok())
        .map(Duration::from_secs);
    let reset_in = || {
        let reset: u64 = header("x-ratelimit-reset")?.parse().ok()?;
        let now = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .ok()?
            .as_secs();
        Some(Duration::from_secs(reset.saturating_sub(now) + 1))
    };
    let message = serde_json::from_str::<Value>(&body)
        .ok()
        .and_then(|v| v.get("message").and_then(Value::as_str).map(str::to_string))
        .unwrap_or_else(|| clip(body.trim(), 200));
    let message = one_line(&clip(&message, 300)).into_owned();
    match status {
        200..=299 => Reply::Ok(body),
        429 => Reply::Retry {
            after: retry_after.or_else(reset_in),
            why: format!("rate limited (429: {message})"),
            maybe_done: false,
        },
        403 if retry_after.is_some() || header("x-ratelimit-remaining").as_deref() == Some("0") => {
            Reply::Retry {
                after: retry_after.or_else(reset_in),
                why: format!("rate limited (403: {message})"),
                maybe_done: false,
            }
        }
        500..=599 => Reply::Retry {
            after: retry_after,
            why: format!("GitHub answered {status} ({message})"),
            maybe_done: true,
        },
        _ => Reply::Refused(format!("{status} {message}")),
    }
}

/// A request that got no response: tried again, as it may have been acted on,
/// unless no connection could be made.
fn no_response(e: &octocrab::Error, shown_url: &str) -> Reply {
    if let Some(why) = unreachable(e, shown_url) {
        return Reply::Unreachable(why);
    }
    Reply::Retry {
        after: None,
        why: format!("the request failed ({})", one_line(&transport_reason(e))),
        maybe_done: true,
    }
}

/// The cause of a transport error, without URLs or headers.
fn transport_reason(e: &dyn std::error::Error) -> String {
    let mut deepest = e.to_string();
    let mut source = e.source();
    while let Some(s) = source {
        deepest = s.to_string();
        source = s.source();
    }
    clip(&deepest, 200)
}

/// A connection that could not be made and will not be made by trying again
/// within `api-timeout`: the address refused it, there is no route to it, or
/// its host name does not resolve. A connect that timed out, or a connection
/// reset while it was made, may be a moment's loss and is retried. Nothing was
/// sent on a connection never made, so no request can have been acted on.
fn unreachable(e: &(dyn std::error::Error + 'static), shown_url: &str) -> Option<String> {
    use std::io::ErrorKind;
    let mut connect = false;
    let mut dns = false;
    let mut kind = None;
    let mut next = Some(e);
    while let Some(err) = next {
        if let Some(client) = err.downcast_ref::<hyper_util::client::legacy::Error>() {
            connect |= client.is_connect();
        }
        if let Some(io) = err.downcast_ref::<std::io::Error>() {
            kind = Some(io.kind());
        }
        // hyper-util's resolver error, whose type it does not export, says
        // only this; the resolver's own message is below it.
        dns |= err.to_string() == "dns error";
        next = err.source();
    }
    if !connect {
        return None;
    }
    let what = match kind {
        Some(ErrorKind::ConnectionRefused) => "refused the connection",
        Some(ErrorKind::HostUnreachable | ErrorKind::NetworkUnreachable) => {
            "cannot be reached (no route to it)"
        }
        Some(
            ErrorKind::TimedOut
            | ErrorKind::ConnectionReset
            | ErrorKind::ConnectionAborted
            | ErrorKind::Interrupted,
        ) => return None,
        _ if dns => "cannot be found (its host name does not resolve)",
        _ => return None,
    };
    Some(format!(
        "the GitHub API at {shown_url} {what}: check `GITHUB_API_URL` (GitHub Enterprise Server has \
         its own) and the runner's network (a firewall or proxy in front of GitHub)"
    ))
}

/// The API's address as it may be printed: scheme, host, port and path, never
/// a user or password written into it.
fn shown_url(api_url: &str) -> String {
    let (scheme, rest) = api_url.split_once("://").unwrap_or(("", api_url));
    let end = rest.find(['/', '?', '#']).unwrap_or(rest.len());
    let (authority, path) = rest.split_at(end);
    let host = authority.rsplit_once('@').map_or(authority, |(_, h)| h);
    let path = &path[..path.find(['?', '#']).unwrap_or(path.len())];
    let shown = if scheme.is_empty() {
        format!("{host}{path}")
    } else {
        format!("{scheme}://{host}{path}")
    };
    code(&clip(&one_line(shown.trim_end_matches('/')), 200))
}

/// What to do about a refusal, in the user's terms.
fn fix_for(refusal: &str, from_fork: bool) -> String {
    let code = refusal.split_whitespace().next().unwrap_or("");
    match code {
        "401" => format!("GitHub refused the token ({refusal}); check the `github-token` input"),
        "403" if from_fork => format!(
            "GitHub refused ({refusal}): pull requests from forks get a read-only token; to report on forks, \
             upload the receipt as an artifact and report from a `workflow_run` workflow"
        ),
        "403" => format!(
            "GitHub refused ({refusal}): add `checks: write` to the job's `permissions:` (a classic personal \
             token cannot create check runs; use `github.token`)"
        ),
        "404" => format!(
            "GitHub answered {refusal}: the token cannot see this repository, or GITHUB_API_URL is wrong"
        ),
        _ => format!("GitHub refused the check run ({refusal})"),
    }
}

struct Budget {
    deadline: Instant,
    backoff: Duration,
}

impl Budget {
    /// Waits before the next try, or says the budget is spent.
    async fn wait(&mut self, after: Option<Duration>) -> bool {
        let wait = after.unwrap_or(self.backoff);
        self.backoff = (self.backoff * 2).min(Duration::from_secs(16));
        if Instant::now() + wait >= self.deadline {
            return false;
        }
        tokio::time::sleep(wait).await;
        true
    }
}

/// The client and what all its requests may still take.
struct Api {
    crab: Octocrab,
    budget: Budget,
    requests: usize,
    /// `GITHUB_API_URL` as it may be printed ([`shown_url`]).
    shown_url: String,
    /// Why the API could not be reached, once a request found it so: every
    /// later request answers the same without a connection, so the job's
    /// log says it once and the run is not held up by one connect after
    /// another.
    unreachable: Option<String>,
}

impl Api {
    fn start(api_url: &str, token: &str, budget: Duration) -> Result<Api, String> {
        let per_request = (budget / 3).max(Duration::from_millis(500));
        let crab = Octocrab::builder().base_uri(api_url).map(|b| {
            b.personal_token(token.to_string())
                .set_connect_timeout(Some(per_request))
                .set_read_timeout(Some(per_request))
                .set_write_timeout(Some(per_request))
                .build()
        });
        let crab = match crab {
            Ok(Ok(c)) => c,
            Ok(Err(e)) => {
                return Err(format!(
                    "the GitHub client could not start ({})",
                    one_line(&transport_reason(&e))
                ));
            }
            Err(_) => {
                return Err(format!(
                    "GITHUB_API_URL `{}` is not a URL",
                    one_line(api_url)
                ));
            }
        };
        Ok(Api {
            crab,
            budget: Budget {
                deadline: Instant::now() + budget,
                backoff: Duration::from_secs(1),
            },
            requests: 0,
            shown_url: shown_url(api_url),
            unreachable: None,
        })
    }

    /// One request, counted; none once the API was found unreachable.
    async fn send<B: Serialize>(&mut self, method: Method, route: &str, body: Option<&B>) -> Reply {
        if let Some(why) = &self.unreachable {
            return Reply::Unreachable(why.clone());
        }
        self.requests += 1;
        let reply = send(&self.crab, &self.shown_url, method, route, body).await;
        if let Reply::Unreachable(why) = &reply {
            self.unreachable = Some(why.clone());
        }
        reply
    }
}

async fn publish(api: &mut Api, repo: &str, plan: &Plan, from_fork: bool) -> CheckRunOutcome {
    let created = match create(api, repo, plan).await {
        Ok(c) => c,
        Err(reason) => {
            return not_published(if reason.starts_with("refused:") {
                fix_for(reason.trim_start_matches("refused: "), from_fork)
            } else {
                reason
            });
        }
    };
    let route = format!("/repos/{repo}/check-runs/{}", created.id);
    for update in &plan.updates {
        loop {
            match api.send(Method::Patch, &route, Some(update)).await {
                Reply::Ok(_) => break,
                Reply::Retry { after, why, .. } => {
                    if !api.budget.wait(after).await {
                        return not_published(format!(
                            "the check run was created but adding annotations gave up: {why}"
                        ));
                    }
                }
                Reply::Refused(r) => return not_published(fix_for(&r, from_fork)),
                Reply::Unreachable(why) => {
                    return not_published(format!(
                        "the check run was created but adding annotations failed: {why}"
                    ));
                }
            }
        }
    }
    CheckRunOutcome::Published {
        id: created.id,
        url: created.html_url.unwrap_or_default(),
        annotations: plan.annotations,
        left_out: plan.left_out,
        requests: api.requests,
    }
}

fn not_published(reason: String) -> CheckRunOutcome {
    CheckRunOutcome::NotPublished { reason }
}

/// Creates the run once: after a create that may have succeeded, it looks for
/// the run by name and `external_id` before creating again.
async fn create(api: &mut Api, repo: &str, plan: &Plan) -> Result<Created, String> {
    let mut maybe_created = false;
    loop {
        if maybe_created {
            if let Some(run) = find_own(api, repo, plan).await? {
                tracing::debug!(
                    "found the check run {} made by a request that seemed to fail",
                    run.id
                );
                return Ok(run);
            }
        }
        match api
            .send(
                Method::Post,
                &format!("/repos/{repo}/check-runs"),
                Some(&plan.create),
            )
            .await
        {
            Reply::Ok(body) => {
                return serde_json::from_str::<Created>(&body).map_err(|e| {
                    format!("GitHub's answer to the create was not a check run ({e})")
                });
            }
            Reply::Retry {
                after,
                why,
                maybe_done,
            } => {
                maybe_created |= maybe_done;
                if !api.budget.wait(after).await {
                    return Err(format!("gave up within `api-timeout`: {why}"));
                }
            }
            Reply::Refused(r) => return Err(format!("refused: {r}")),
            Reply::Unreachable(why) => return Err(why),
        }
    }
}

/// Pages through the commit's check runs of this name for the one this
/// invocation made (by its `external_id`, nonce included). `None` when it was
/// not made after all. Another poster can copy the mark once it has seen the
/// run, never before it: of several bearing it, the first made (the lowest
/// id) is this one's.
async fn find_own(api: &mut Api, repo: &str, plan: &Plan) -> Result<Option<Created>, String> {
    let mut page = 1;
    let mut found: Option<Created> = None;
    loop {
        let listed = list_page(api, repo, &plan.create.head_sha, &plan.create.name, page)
            .await
            .map_err(|e| match e {
                ListError::Refused(r) => format!("refused: {r}"),
                ListError::GaveUp(why) => {
                    format!("gave up looking for a check run that may exist: {why}")
                }
                ListError::Unreadable(why) | ListError::Unreachable(why) => why,
            })?;
        let count = listed.check_runs.len();
        for run in listed.check_runs.into_iter().filter(|r| {
            r.name == plan.create.name
                && r.external_id.as_deref() == Some(plan.create.external_id.as_str())
        }) {
            if found.as_ref().is_none_or(|f| run.id < f.id) {
                found = Some(Created {
                    id: run.id,
                    html_url: run.html_url,
                });
            }
        }
        if count < limits::CHECK_RUNS_PER_PAGE
            || page * limits::CHECK_RUNS_PER_PAGE >= listed.total_count
            || page == limits::OWN_CHECK_RUN_PAGES
        {
            return Ok(found);
        }
        page += 1;
    }
}

enum ListError {
    Refused(String),
    GaveUp(String),
    Unreadable(String),
    Unreachable(String),
}

/// One page of `GET /repos/{owner}/{repo}/commits/{ref}/check-runs` (the
/// Checks API's "List check runs for a Git reference"), every run of the
/// name whenever it completed (`filter=all`), retried within the budget.
async fn list_page(
    api: &mut Api,
    repo: &str,
    head_sha: &str,
    name: &str,
    page: usize,
) -> Result<Listed, ListError> {
    let route = format!(
        "/repos/{repo}/commits/{head_sha}/check-runs?check_name={}&filter=all&per_page={}&page={page}",
        url_encode(name),
        limits::CHECK_RUNS_PER_PAGE
    );
    loop {
        match api.send::<()>(Method::Get, &route, None).await {
            Reply::Ok(body) => {
                return serde_json::from_str::<Listed>(&body).map_err(|e| {
                    ListError::Unreadable(format!(
                        "GitHub's list of check runs could not be read ({e})"
                    ))
                });
            }
            Reply::Retry { after, why, .. } => {
                if !api.budget.wait(after).await {
                    return Err(ListError::GaveUp(why));
                }
            }
            Reply::Refused(r) => return Err(ListError::Refused(r)),
            Reply::Unreachable(why) => return Err(ListError::Unreachable(why)),
        }
    }
}

/// Who this receipt is, and where its links go.
struct ThisRun {
    /// `GITHUB_SERVER_URL`, without a trailing slash.
    server: String,
    repo: String,
    own: Own,
}

impl ThisRun {
    /// Not this receipt's, and able to pass: an imitation.
    fn imitation(&self, run: &ListedRun) -> bool {
        !self.own.posted(run) && !cannot_pass(run)
    }

    /// The workflow run (and job) a `details_url` of this repository's
    /// Actions names: `{server}/{repo}/actions/runs/{run}[/job/{job}]`.
    fn actions_run(&self, url: &str) -> Option<(u64, Option<u64>)> {
        let rest = url.strip_prefix(&format!("{}/{}/actions/runs/", self.server, self.repo))?;
        let (run, rest) = digits(rest)?;
        let job = match rest.strip_prefix("/job/") {
            Some(job) => {
                let (job, rest) = digits(job)?;
                ends(rest).then_some(Some(job))?
            }
            None if ends(rest) || rest.starts_with("/attempts/") => None,
            None => return None,
        };
        Some((run, job))
    }

    /// Who posted a check run, in a few words that are all ours: numbers, or
    /// an app's slug cut to the characters a slug has. The app is GitHub's to
    /// say (`by`); a workflow run is only where the check links
    /// (`details_url`, the poster's to write).
    fn source(&self, run: &ListedRun) -> String {
        let slug = run.app.as_ref().and_then(|a| a.slug.as_deref()).map(|s| {
            s.chars()
                .filter(|c| c.is_ascii_alphanumeric() || *c == '-')
                .take(40)
                .collect::<String>()
        });
        let linked = run.details_url.as_deref().and_then(|u| self.actions_run(u));
        match (slug.as_deref(), linked) {
            (Some(""), _) => format!("by another app (check run {})", run.id),
            (Some(s), _) if s != GITHUB_ACTIONS => {
                format!("by the app `{s}` (check run {})", run.id)
            }
            (_, Some((r, Some(j)))) => format!("linking to workflow run {r} (job {j})"),
            (_, Some((r, None))) => format!("linking to workflow run {r}"),
            (Some(_), None) => format!("by a GitHub Actions job (check run {})", run.id),
            (None, None) => format!("as check run {}", run.id),
        }
    }
}

/// The GitHub Actions app's slug: every workflow's jobs post as it.
const GITHUB_ACTIONS: &str = "github-actions";

/// Leading ASCII digits as a number, and the rest.
fn digits(s: &str) -> Option<(u64, &str)> {
    let n = s.bytes().take_while(u8::is_ascii_digit).count();
    Some((s[..n].parse().ok()?, &s[n..]))
}

/// The end of a URL's path.
fn ends(rest: &str) -> bool {
    rest.is_empty() || rest == "/" || rest.starts_with(['?', '#'])
}

/// Every check run of this name on the head commit that this workflow run did
/// not post, read a page at a time (at most [`limits::CHECK_RUN_PAGES`]). An error is
/// why the listing could not be made, for "not verified".
async fn others(
    api: &mut Api,
    repo: &str,
    head_sha: &str,
    name: &str,
    this_run: &ThisRun,
) -> Result<Vec<Imitation>, String> {
    let mut found = Vec::new();
    let mut page = 1;
    loop {
        let listed = list_page(api, repo, head_sha, name, page)
            .await
            .map_err(|e| match e {
                ListError::Refused(r) => {
                    format!("GitHub refused to list the commit's check runs ({r})")
                }
                ListError::GaveUp(why) => {
                    format!("listing the commit's check runs gave up within `api-timeout`: {why}")
                }
                ListError::Unreadable(why) => why,
                // The why and its fix are said once, where the check run
                // that could not be created is.
                ListError::Unreachable(_) => {
                    "the GitHub API could not be reached to list the commit's check runs".into()
                }
            })?;
        let count = listed.check_runs.len();
        for run in &listed.check_runs {
            // The API matches the name exactly; this says so again.
            if run.name != name || !this_run.imitation(run) {
                continue;
            }
            found.push(Imitation {
                name: name.to_string(),
                check_run_id: run.id,
                source: this_run.source(run),
                url: format!("{}/{}/runs/{}", this_run.server, this_run.repo, run.id),
                conclusion: said(run),
            });
        }
        if count < limits::CHECK_RUNS_PER_PAGE
            || page * limits::CHECK_RUNS_PER_PAGE >= listed.total_count
        {
            return Ok(found);
        }
        if page == limits::CHECK_RUN_PAGES {
            return if found.is_empty() {
                Err(format!(
                    "the commit has {} check runs of this name, and the first {} were read (the limit)",
                    listed.total_count,
                    limits::CHECK_RUN_PAGES * limits::CHECK_RUNS_PER_PAGE
                ))
            } else {
                Ok(found)
            };
        }
        page += 1;
    }
}

/// A check run's conclusion, or its status while it runs, as one of the
/// words the API documents (anything else is not printed).
fn said(run: &ListedRun) -> String {
    const KNOWN: &[&str] = &[
        "success",
        "failure",
        "neutral",
        "cancelled",
        "skipped",
        "timed_out",
        "action_required",
        "stale",
        "queued",
        "in_progress",
        "completed",
        "waiting",
        "requested",
        "pending",
    ];
    run.conclusion
        .as_deref()
        .or(run.status.as_deref())
        .filter(|w| KNOWN.contains(w))
        .unwrap_or("unknown")
        .to_string()
}

fn url_encode(s: &str) -> String {
    s.bytes()
        .map(|b| match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'_' | b'.' | b'~' => {
                (b as char).to_string()
            }
            _ => format!("%{b:02X}"),
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::inputs::Mode;

    fn listed(
        details_url: Option<&str>,
        external_id: Option<&str>,
        slug: Option<&str>,
    ) -> ListedRun {
        ListedRun {
            id: 7,
            name: "Agent review receipt".into(),
            external_id: external_id.map(str::to_string),
            html_url: None,
            details_url: details_url.map(str::to_string),
            status: Some("completed".into()),
            conclusion: Some("success".into()),
            app: slug.map(|s| ListedApp {
                slug: Some(s.to_string()),
            }),
        }
    }

    #[test]
    fn only_what_github_sets_tells_this_receipts_checks_and_others_are_named() {
        let url = |tail: &str| format!("https://github.com/o/r/actions/runs/{tail}");
        let actions = Some(GITHUB_ACTIONS);
        let this = |own: Own| ThisRun {
            server: "https://github.com".into(),
            repo: "o/r".into(),
            own,
        };
        // With GITHUB_TOKEN: an earlier attempt's id, and nothing the poster
        // writes (its mark, a link to this run) makes a check this receipt's.
        let actions_token = this(Own {
            app: None,
            earlier: vec![7],
        });
        assert!(!actions_token.imitation(&listed(None, None, actions)));
        let other = ListedRun {
            id: 8,
            ..listed(
                Some(&url("100/job/5")),
                Some("prompt-receipt/100/1/receipt/abcd"),
                actions,
            )
        };
        assert!(actions_token.imitation(&other));
        // A check that concluded without passing cannot let the merge pass.
        for conclusion in [
            "failure",
            "cancelled",
            "timed_out",
            "action_required",
            "stale",
        ] {
            let failed = ListedRun {
                conclusion: Some(conclusion.into()),
                ..listed(None, None, actions)
            };
            let failed = ListedRun { id: 9, ..failed };
            assert!(!actions_token.imitation(&failed), "{conclusion}");
        }
        for passing in ["success", "neutral", "skipped"] {
            let run = ListedRun {
                id: 9,
                conclusion: Some(passing.into()),
                ..listed(None, None, actions)
            };
            assert!(actions_token.imitation(&run), "{passing}");
        }
        let running = ListedRun {
            id: 9,
            status: Some("in_progress".into()),
            conclusion: None,
            ..listed(None, None, actions)
        };
        assert!(actions_token.imitation(&running));
        // With the receipt's own app: its app id, GitHub's to set, decides.
        let app = this(Own {
            app: Some("acme-receipts".into()),
            earlier: Vec::new(),
        });
        let ours = listed(None, None, Some("acme-receipts"));
        assert!(!app.imitation(&ours));
        assert!(app.imitation(&listed(Some(&url("100/job/5")), None, actions)));
        let name = |details: Option<String>, slug: Option<&str>| {
            app.source(&listed(details.as_deref(), None, slug))
        };
        assert_eq!(
            name(Some(url("9/job/8")), actions),
            "linking to workflow run 9 (job 8)"
        );
        assert_eq!(name(Some(url("9")), actions), "linking to workflow run 9");
        assert_eq!(
            name(Some("https://evil.example/@x".into()), actions),
            "by a GitHub Actions job (check run 7)"
        );
        assert_eq!(
            name(Some(url("9/job/8")), Some("my-app\u{202E}`@x")),
            "by the app `my-appx` (check run 7)"
        );
        assert_eq!(name(None, Some("@@")), "by another app (check run 7)");
        assert_eq!(name(None, None), "as check run 7");
    }

    #[test]
    fn the_api_address_is_shown_without_credentials() {
        for (given, shown) in [
            ("https://api.github.com", "`https://api.github.com`"),
            (
                "https://ghes.example/api/v3/",
                "`https://ghes.example/api/v3`",
            ),
            (
                "https://user:secret@ghes.example:8443/api/v3?x=secret#y",
                "`https://ghes.example:8443/api/v3`",
            ),
            ("ghes.example", "`ghes.example`"),
            ("http://a@b@127.0.0.1:9\n", "`http://127.0.0.1:9\\n`"),
        ] {
            assert_eq!(shown_url(given), shown, "{given}");
        }
    }

    #[test]
    fn the_receipt_in_the_text_is_json_to_copy_with_nothing_hidden() {
        let receipt = serde_json::json!({
            "prompt_path": "prompts/re\u{202E}view.md",
            "prompt_sha": "a".repeat(64),
            "git_sha": "b".repeat(40),
            "note": "```\nnot a fence end",
        });
        let outcome = Outcome::empty(
            Mode::Record,
            "usage.json".into(),
            receipt.as_object().unwrap().clone(),
        );
        let text = receipt_text(&outcome);
        assert!(!text.contains('\u{202E}'), "{text}");
        assert!(text.contains("`aaaaaaaaaaaa`") && text.contains("`bbbbbbbbbbbb`"));
        // The block opens with a fence longer than any backtick run inside.
        let (_, block) = text.split_once("````json\n").expect("a json block");
        let body = block
            .strip_suffix("\n````\n")
            .expect("closed by its own fence");
        let copied: Value = serde_json::from_str(body).unwrap();
        assert_eq!(copied, receipt);
    }
}
