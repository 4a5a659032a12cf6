//! What reached the agent, checked against what the checkout says should have.
//!
//! Hashing the committed prompt proves what was in the repository; Codex's
//! session record shows what the agent received. They must agree: the prompt
//! (Codex strips a leading byte order mark, nothing else), the AGENTS.md body,
//! the CLI version and model the step claims, and the review the agent wrote.

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use crate::agent::chain::body_of_block;
use crate::agent::session::{self, Session};
use crate::digest::{UTF8_BOM, sha256_hex};
use crate::error::Error;
use crate::workspace::Workspace;

/// Where Codex's record of the run is, and what else to hold it to.
#[derive(Clone, Debug)]
pub struct SessionOptions {
    /// codex-home, as seen from here (inside the container).
    pub home: PathBuf,
    /// The session to read, when codex-home holds several.
    pub session_id: Option<String>,
    /// The circuit breaker: more tokens than this is a problem.
    pub max_total_tokens: Option<u64>,
}

/// The session record, as the receipt names it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct TranscriptRecord {
    pub path: String,
    pub session_id: Option<String>,
    pub sha256: String,
}

/// The session's settings, as the record has them.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct SessionRecord {
    pub cli_version: Option<String>,
    pub originator: Option<String>,
    pub model: Option<String>,
    pub approval_policy: Option<String>,
    pub sandbox: Option<String>,
    pub duration_ms: Option<u64>,
}

/// What the record showed, and every disagreement with the checkout.
#[derive(Clone, Debug, Default)]
pub struct AgentCheck {
    pub session: Session,
    pub transcript: Option<TranscriptRecord>,
    pub prompt_sent_sha: Option<String>,
    /// Each fails the run.
    pub problems: Vec<String>,
    /// Worth saying, not failing: a stripped BOM, a choice between records.
    pub notes: Vec<String>,
}

impl AgentCheck {
    pub fn session_record(&self) -> SessionRecord {
        let s = &self.session;
        SessionRecord {
            cli_version: s.cli_version.clone(),
            originator: s.originator.clone(),
            model: s.model.clone(),
            approval_policy: s.approval_policy.clone(),
            sandbox: s.sandbox.clone(),
            duration_ms: s.duration_ms,
        }
    }
}

/// Where codex-home is inside the container. Inputs are host paths: one under
/// the runner's temp folder (`.../_temp/...`, as `${{ runner.temp }}` gives) is
/// found under `RUNNER_TEMP`, where the runner mounts that folder.
pub fn resolve_codex_home(
    given: &str,
    ws: &Workspace,
    runner_temp: Option<&Path>,
) -> Result<PathBuf, Error> {
    let path = Path::new(given);
    if !path.is_absolute() {
        return Ok(ws.resolve("codex-home", given)?.path);
    }
    if path.is_dir() {
        return Ok(path.to_path_buf());
    }
    if let (Some(temp), Some((_, rest))) = (runner_temp, given.split_once("/_temp/")) {
        let mapped = temp.join(rest);
        if mapped.is_dir() {
            return Ok(mapped);
        }
    }
    Err(Error::new(format!(
        "input `codex-home`: `{}` is not a folder here; give the same codex-home as openai/codex-action, \
         under the workspace or `${{{{ runner.temp }}}}` (the only host folders a container action sees)",
        crate::escape::one_line(given)
    )))
}

/// Finds this run's record in codex-home, reads it, and checks it against the
/// checkout. A record that cannot be found or read is a problem, not an error:
/// the receipt is still written, and the check fails.
pub fn read_and_check(
    opts: &SessionOptions,
    workdir: &Path,
    ws: &Workspace,
    expected: &Expected,
) -> AgentCheck {
    let relative = ws.relative(workdir);
    let (session, note) = match load(&opts.home, opts.session_id.as_deref(), workdir, &relative) {
        Ok(found) => found,
        Err(why) => {
            return AgentCheck {
                problems: vec![format!(
                    "{why}; give this step the same codex-home as openai/codex-action, and do not run Codex with --ephemeral"
                )],
                ..AgentCheck::default()
            };
        }
    };
    let shown = if session.path.starts_with(ws.root()) {
        ws.relative(&session.path)
    } else {
        session
            .path
            .strip_prefix(&opts.home)
            .map(|p| format!("$CODEX_HOME/{}", p.display()))
            .unwrap_or_else(|_| session.path.display().to_string())
    };
    let mut check = check(session, shown, expected);
    check.notes.extend(note);
    check
}

/// Finds and reads this run's record.
pub fn load(
    codex_home: &Path,
    session_id: Option<&str>,
    workdir: &Path,
    relative: &str,
) -> Result<(Session, Option<String>), String> {
    let candidates = session::rollouts(codex_home);
    let (pick, note) = session::pick(&candidates, session_id, workdir, relative)?;
    let session = session::read(&pick.path).map_err(|e| e.message().to_string())?;
    Ok((session, note))
}

/// What the checkout says the agent should have received.
pub struct Expected<'a> {
    pub prompt_path: Option<&'a str>,
    pub prompt_bytes: &'a [u8],
    /// SHA-256 of the AGENTS.md body computed from the checkout.
    pub agents_sha: Option<&'a str>,
    pub codex_version: Option<&'a str>,
    pub model: Option<&'a str>,
    pub output_path: &'a str,
    /// `None` when there is no output (the review gate says so already).
    pub output: Option<&'a [u8]>,
    pub max_total_tokens: Option<u64>,
}

/// The pure core: the record against the checkout.
pub fn check(session: Session, shown: String, expected: &Expected) -> AgentCheck {
    let mut c = AgentCheck::default();
    check_prompt(&mut c, &session, expected);
    check_agents(&mut c, &session, expected);
    check_claims(&mut c, &session, expected);
    check_output(&mut c, &session, expected);
    check_budget(&mut c, &session, expected);
    c.notes.extend(session.warnings.iter().cloned());
    c.transcript = Some(TranscriptRecord {
        path: shown,
        session_id: session.id.clone(),
        sha256: session.sha256.clone(),
    });
    c.session = session;
    c
}

/// A hash shortened for a sentence; the receipt has it in full.
fn short(s: &str) -> String {
    s[..s.len().min(12)].to_string()
}

/// The prompt as sent is the prompt hashed, byte for byte (Codex strips a
/// leading byte order mark, nothing else).
fn check_prompt(c: &mut AgentCheck, session: &Session, expected: &Expected) {
    let prompt_name = expected
        .prompt_path
        .map_or("the inline prompt".to_string(), |p| format!("`{p}`"));
    let Some(sent) = &session.prompt else {
        c.problems
            .push("the session record holds no user prompt: the agent may not have run".into());
        return;
    };
    let sent_sha = sha256_hex(sent.as_bytes());
    let committed = sha256_hex(expected.prompt_bytes);
    if sent_sha != committed {
        let without_bom = expected.prompt_bytes.strip_prefix(UTF8_BOM).map(sha256_hex);
        if without_bom.as_deref() == Some(sent_sha.as_str()) {
            c.notes.push(format!(
                "{prompt_name} starts with a byte order mark, which Codex strips: the agent received the rest, byte for byte"
            ));
        } else {
            c.problems.push(format!(
                "the prompt the agent received (sha256 {}) is not {prompt_name} (sha256 {}): was the hash taken before a template was rendered, or the agent given another prompt?",
                short(&sent_sha),
                short(&committed)
            ));
        }
    }
    c.prompt_sent_sha = Some(sent_sha);
}

/// The AGENTS.md body as sent is the chain computed from the checkout.
fn check_agents(c: &mut AgentCheck, session: &Session, expected: &Expected) {
    let sent_body = session
        .agents_block
        .as_deref()
        .and_then(body_of_block)
        .or(session.agents_text.as_deref());
    let sent_sha = sent_body.map(|b| sha256_hex(b.as_bytes()));
    if sent_sha.as_deref() != expected.agents_sha {
        let describe =
            |s: Option<&str>| s.map_or("none".to_string(), |s| format!("sha256 {}", short(s)));
        c.problems.push(format!(
            "the AGENTS.md instructions the agent received ({}) differ from the chain computed from the checkout ({})",
            describe(sent_sha.as_deref()),
            describe(expected.agents_sha)
        ));
    }
}

/// What the step claims ran (CLI version, model) is what the record says ran.
fn check_claims(c: &mut AgentCheck, session: &Session, expected: &Expected) {
    if let (Some(claimed), Some(ran)) = (expected.codex_version, session.cli_version.as_deref()) {
        if claimed != ran {
            c.problems.push(format!(
                "codex-version is `{claimed}` but the session record was written by Codex `{ran}`"
            ));
        }
    }
    if let (Some(claimed), Some(ran)) = (expected.model, session.model.as_deref()) {
        if claimed != ran {
            c.problems
                .push(format!("model is `{claimed}` but the session ran `{ran}`"));
        }
    }
}

/// The circuit breaker: the session used no more tokens than allowed.
fn check_budget(c: &mut AgentCheck, session: &Session, expected: &Expected) {
    if let (Some(max), Some(tokens)) = (expected.max_total_tokens, &session.tokens) {
        if tokens.total > max {
            c.problems.push(format!(
                "the session used {} tokens ({} input, {} cached, {} output, {} reasoning), over max-total-tokens {max}",
                tokens.total, tokens.input, tokens.cached_input, tokens.output, tokens.reasoning
            ));
        }
    }
}

/// The review the gate read is the agent's last message.
fn check_output(c: &mut AgentCheck, session: &Session, expected: &Expected) {
    let (Some(output), Some(last)) = (expected.output, session.last_agent_message.as_deref())
    else {
        return;
    };
    let output = String::from_utf8_lossy(output);
    if output == last {
        return;
    }
    if output.trim_end() == last.trim_end() {
        c.notes.push(format!(
            "`{}` is the agent's last message plus trailing whitespace",
            expected.output_path
        ));
    } else {
        c.problems.push(format!(
            "`{}` is not the agent's last message (sha256 {} vs {}): something rewrote the review after the agent",
            expected.output_path,
            short(&sha256_hex(output.as_bytes())),
            short(&sha256_hex(last.as_bytes()))
        ));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::agent::session::Tokens;

    fn session(prompt: &str, body: &str) -> Session {
        Session {
            prompt: Some(prompt.into()),
            agents_block: Some(format!(
                "# AGENTS.md instructions for /w\n\n<INSTRUCTIONS>\n{body}\n</INSTRUCTIONS>"
            )),
            cli_version: Some("0.169.0".into()),
            model: Some("gpt-5.5".into()),
            last_agent_message: Some("{}".into()),
            tokens: Some(Tokens {
                input: 900,
                cached_input: 100,
                output: 200,
                reasoning: 50,
                total: 1100,
            }),
            ..Session::default()
        }
    }

    fn expected<'a>(prompt: &'a [u8], body: Option<&'a str>) -> Expected<'a> {
        let sha: Option<&'static str> =
            body.map(|b| &*Box::leak(sha256_hex(b.as_bytes()).into_boxed_str()));
        Expected {
            prompt_path: Some("p.md"),
            prompt_bytes: prompt,
            agents_sha: sha,
            codex_version: Some("0.169.0"),
            model: Some("gpt-5.5"),
            output_path: "r.json",
            output: Some(b"{}"),
            max_total_tokens: None,
        }
    }

    #[test]
    fn agreement_passes_and_a_bom_is_a_note() {
        let c = check(
            session("Review\r\n", "rules"),
            "x".into(),
            &expected(b"Review\r\n", Some("rules")),
        );
        assert!(c.problems.is_empty(), "{:?}", c.problems);
        let c = check(
            session("Review", "rules"),
            "x".into(),
            &expected(b"\xEF\xBB\xBFReview", Some("rules")),
        );
        assert!(c.problems.is_empty());
        assert!(c.notes[0].contains("byte order mark"));
    }

    #[test]
    fn each_disagreement_is_a_problem_with_both_sides() {
        let mut e = expected(b"template {{x}}", Some("ours"));
        e.codex_version = Some("0.170.0");
        e.model = Some("o3");
        e.output = Some(b"{\"edited\": true}");
        e.max_total_tokens = Some(1000);
        let c = check(session("rendered", "theirs"), "x".into(), &e);
        let all = c.problems.join("\n");
        for needle in [
            "prompt the agent received",
            "AGENTS.md instructions",
            "0.170.0",
            "`o3`",
            "not the agent's last message",
            "1100 tokens",
        ] {
            assert!(all.contains(needle), "{needle}: {all}");
        }
        assert_eq!(c.problems.len(), 6);
    }
}
