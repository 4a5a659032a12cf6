//! This run's record among the records an agent home holds. Gemini CLI and
//! Copilot CLI keep one record per session in a folder, and an uploaded home
//! may hold several (a resumed session, an earlier run): the choice, its
//! bound and its messages are the same for both, so they live here once.

use std::path::{Path, PathBuf};

use crate::agent::Expected;

/// A record an agent keeps per session, as the choice needs it.
pub(crate) trait Candidate: Sized {
    /// How its records are said in messages.
    const LAYOUT: Layout;
    /// Every record under the agent home.
    fn records(home: &Path) -> Vec<PathBuf>;
    /// One record, or why it cannot be read.
    fn read(path: &Path, home: &Path) -> Result<Self, String>;
    fn seen(&self) -> Seen<'_>;
    /// How a message names the record, in backticks.
    fn name(&self) -> String;
}

/// What a record shows of its session.
pub(crate) struct Seen<'a> {
    pub(crate) session_id: Option<&'a str>,
    /// Whether the record holds a turn (a prompt) at all.
    pub(crate) has_turns: bool,
    /// The prompt of the turn whose answer is the output, if one answered.
    pub(crate) output_prompt: Option<&'a str>,
}

impl<'a> Seen<'a> {
    /// From a record's session id, its turns, the turn whose answer is the
    /// output, and how a turn gives its prompt.
    pub(crate) fn of<T>(
        session_id: Option<&'a str>,
        turns: &'a [T],
        output: Option<usize>,
        prompt: impl Fn(&'a T) -> &'a str,
    ) -> Self {
        Seen {
            session_id,
            has_turns: !turns.is_empty(),
            output_prompt: output.and_then(|t| turns.get(t)).map(prompt),
        }
    }
}

/// How an agent's records are said in messages.
pub(crate) struct Layout {
    /// The agent's name: `Gemini CLI`.
    pub(crate) agent: &'static str,
    /// Where its records are, under the home: `tmp/<project>/chats/session-*.jsonl`.
    pub(crate) pattern: &'static str,
    /// Why a record may hold no prompt, said when one is passed over; or "".
    pub(crate) empty_because: &'static str,
}

/// Reads the records under `home` and keeps this run's: the one with
/// `session_id` when it is given; the only one with a prompt; or among
/// several, the one whose last prompt is this checkout's. Else a problem
/// naming them. The note says what was passed over.
pub(crate) fn load<R: Candidate>(
    home: &Path,
    session_id: Option<&str>,
    expected: &Expected,
) -> Result<(R, Option<String>), String> {
    let (paths, layout) = (R::records(home), R::LAYOUT);
    if paths.is_empty() {
        return Err(format!(
            "no {} session record under `{}` (`{}`)",
            layout.agent,
            crate::escape::one_line(&home.display().to_string()),
            layout.pattern
        ));
    }
    if paths.len() > crate::limits::RECORD_CANDIDATES {
        return Err(format!(
            "{} session records under agent-home, more than the {} read to find this run's; upload only this run's record, or set session-id",
            paths.len(),
            crate::limits::RECORD_CANDIDATES
        ));
    }
    let (mut read_ok, mut unread) = (Vec::new(), Vec::new());
    for p in &paths {
        match R::read(p, home) {
            Ok(r) => read_ok.push(r),
            Err(why) => unread.push(why),
        }
    }
    if let Some(id) = session_id {
        read_ok.retain(|r| r.seen().session_id == Some(id));
        if read_ok.is_empty() {
            return Err(format!(
                "no session record under agent-home has session id `{}`",
                crate::escape::one_line(id)
            ));
        }
    }
    let mut with_turns: Vec<R> = read_ok.into_iter().filter(|r| r.seen().has_turns).collect();
    let skipped = paths.len() - with_turns.len();
    let skipped_note = (skipped > 0).then(|| {
        format!(
            "{skipped} session record(s) under agent-home hold no prompt{} and were not used",
            layout.empty_because
        )
    });
    match with_turns.len() {
        0 => Err(format!(
            "no session record under agent-home holds a prompt{}",
            if unread.is_empty() {
                String::new()
            } else {
                format!(" ({})", unread.join("; "))
            }
        )),
        1 => Ok((with_turns.pop().expect("one"), skipped_note)),
        _ => the_one_with_our_prompt(with_turns, expected),
    }
}

/// Among several records with turns, the one whose last prompt is this
/// checkout's, with a note naming them all; else a problem.
fn the_one_with_our_prompt<R: Candidate>(
    with_turns: Vec<R>,
    expected: &Expected,
) -> Result<(R, Option<String>), String> {
    let all = names(&with_turns);
    let n = with_turns.len();
    let mut ours: Vec<R> = with_turns
        .into_iter()
        .filter(|r| {
            r.seen()
                .output_prompt
                .and_then(|p| crate::agent::check::same_prompt(p, expected.prompt_bytes))
                .is_some()
        })
        .collect();
    match ours.len() {
        1 => Ok((
            ours.pop().expect("one"),
            Some(format!(
                "{n} session records under agent-home ({all}); the one whose last prompt is this checkout's was used"
            )),
        )),
        0 => Err(format!(
            "{n} session records under agent-home ({all}), and none has this checkout's prompt; upload only this run's record, or set session-id"
        )),
        k => Err(format!(
            "{k} session records have this checkout's prompt ({}): which one produced the review cannot be told; upload only this run's record, or set session-id",
            names(&ours)
        )),
    }
}

fn names<R: Candidate>(records: &[R]) -> String {
    some_of(records.iter().map(R::name), records.len())
}

/// At most the first ten of `names` (of `n` in all), and how many more.
pub(crate) fn some_of(names: impl Iterator<Item = String>, n: usize) -> String {
    let shown: Vec<String> = names.take(10).collect();
    match n.saturating_sub(shown.len()) {
        0 => shown.join(", "),
        more => format!("{}, and {more} more", shown.join(", ")),
    }
}
