//! The verdict: the one line a reviewer reads first. It is the check run's
//! title, the job summary's heading and the last line of the log: an icon for
//! the conclusion, then plain words. A failure names what failed and where
//! ("Prompt file `review.md` changed after it was recorded"); a pass says what
//! held and what the agent said ("Receipt verified · output valid · agent: not
//! ok, 2 findings (1 high, 1 low)").

use crate::base::Policy;
use crate::event::Layout;
use crate::inputs::Mode;
use crate::level::Level;
use crate::markdown::{clip, prose, visible};
use crate::outcome::{ADVISORY, Outcome};
use crate::receipt::Mismatch;
use crate::review::findings::{Finding, Severity};
use crate::review::gate::Conclusion;
use crate::review::{Review, Verdict as Output};

/// An icon and words; names in the words are quoted in backticks.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Verdict {
    pub(crate) icon: &'static str,
    pub(crate) words: String,
    /// The base compared with, said near the end and never cut: a check run
    /// belongs to the commit and shows on every pull request of this head, so
    /// it says whose instructions it held the head to (`` base `main` at
    /// `1a2b3c4d5e6f` ``).
    pub(crate) base: Option<String>,
    /// What qualifies every word before it, said last and never cut:
    /// [`ADVISORY`] when the pull request could change this workflow file.
    pub(crate) qualifier: Option<&'static str>,
}

impl Verdict {
    /// For Markdown: quoted names become code spans, the rest is escaped.
    pub(crate) fn markdown(&self) -> String {
        let base = self
            .base
            .as_deref()
            .map(|b| format!(" · {}", prose(b)))
            .unwrap_or_default();
        format!("{} {}{base}{}", self.icon, prose(&self.words), self.tail())
    }

    /// For plain text (the check run's title, the log): no backticks, and
    /// nothing invisible left to reorder or hide the words.
    pub(crate) fn plain(&self) -> String {
        self.plain_within(usize::MAX)
    }

    /// Plain text in at most `max` characters: the words are cut, the
    /// qualifier is not (a title cut at 255 must still say `advisory`).
    pub(crate) fn plain_within(&self, max: usize) -> String {
        let base = self
            .base
            .as_deref()
            .map(|b| format!(" · {}", visible(&b.replace('`', ""))))
            .unwrap_or_default();
        let (icon, tail) = (format!("{} ", self.icon), base + &self.tail());
        let room = max.saturating_sub(icon.chars().count() + tail.chars().count());
        let words = clip(&visible(&self.words.replace('`', "")), room);
        format!("{icon}{words}{tail}")
    }

    /// The plain words and qualifier without the icon, in at most `max`
    /// characters: the verdict as the predicate carries it.
    pub(crate) fn words_within(&self, max: usize) -> String {
        let title = self.plain_within(max.saturating_add(self.icon.chars().count() + 1));
        title
            .strip_prefix(self.icon)
            .map_or(title.clone(), |t| t.trim_start().to_string())
    }

    fn tail(&self) -> String {
        self.qualifier
            .map(|q| format!(" · {q}"))
            .unwrap_or_default()
    }
}

pub(crate) fn icon(conclusion: Conclusion) -> &'static str {
    match conclusion {
        Conclusion::Success => "✅",
        Conclusion::Neutral => "⚠️",
        Conclusion::Failure => "❌",
    }
}

pub(crate) fn of(result: &Outcome) -> Verdict {
    Verdict {
        icon: icon(result.conclusion()),
        words: capitalize(&words(result)),
        base: result
            .instructions
            .as_ref()
            .and_then(|c| c.label())
            .or_else(|| {
                let p = result
                    .pinned
                    .as_ref()
                    .filter(|_| result.mode == Mode::Restore)?;
                Some(p.label())
            })
            .map(|l| format!("base {l}")),
        qualifier: (result.layout == Some(Layout::Advisory)).then_some(ADVISORY),
    }
}

fn words(result: &Outcome) -> String {
    if let Some(error) = &result.error {
        return format!("The receipt could not run: {error}");
    }
    // A check of this name that someone else posted first, which passes
    // where this receipt does not: branch protection reads checks by name, so
    // whatever else this receipt says, it says that first.
    if let Some(first) = result
        .imitations
        .first()
        .filter(|_| result.conclusion() == Conclusion::Failure)
    {
        let more = result.imitations.len() - 1;
        // In the advisory layout this one came from the pull request's copy
        // too: the title's qualifier says so, and the claim is left out.
        return match result.layout {
            Some(Layout::Advisory) => imitation_posted(first, more),
            _ => imitation_words(first, more),
        };
    }
    // A base the pull request picked: nothing compared with it counts.
    if let Some(words) = result.instructions.as_ref().and_then(elsewhere_words) {
        return words;
    }
    if result.statement {
        return statement_words(result);
    }
    // Integrity first: a receipt that does not match says nothing about the review.
    if let Some(v) = result.verification.as_ref().filter(|v| !v.passed()) {
        return verification_words(v);
    }
    if let Some(a) = result.agent.as_ref().filter(|a| !a.problems.is_empty()) {
        let n = a.problems.len();
        return format!(
            "What reached the agent differs from the receipt ({n} problem{})",
            plural(n)
        );
    }
    if let Some(c) = &result.comparison {
        return comparison_words(c);
    }
    if result.mode == Mode::Lint {
        return lint_words(result);
    }
    if let Some(p) = result
        .pinned
        .as_ref()
        .filter(|_| result.mode == Mode::Restore)
    {
        return restore_words(p);
    }
    receipt_words(result)
}

/// The words of a receipt that ran: what changed in the pull request, what
/// could not be verified, the receipt, the review.
fn receipt_words(result: &Outcome) -> String {
    let mut parts = Vec::new();
    if let Some(c) = result.instructions_changed() {
        parts.extend(instruction_change_words(c));
    } else if let Some(c) = result
        .instructions
        .as_ref()
        .filter(|c| !c.not_used.is_empty())
    {
        parts.push(not_used_words(c));
    }
    parts.extend(result.timeline.iter().cloned());
    let missing: Vec<String> = result.not_verified_names();
    if !missing.is_empty() {
        parts.push(format!("not verified, missing: {}", missing.join(", ")));
    }
    match (result.mode, &result.verification) {
        (Mode::Record, _) => parts.push("Receipt recorded".to_string()),
        (_, Some(_)) if !missing.is_empty() || !result.timeline.is_empty() => {}
        (Mode::Verify, Some(v)) => parts.push(format!(
            "Receipt verified: {} identities match the files{}",
            distinct(&v.checked),
            if result.agent.is_some() {
                " and the session record"
            } else {
                "; the session record was not read"
            }
        )),
        (_, Some(_)) => parts.push("Receipt verified".into()),
        _ => {}
    }
    if let Some(review) = &result.review {
        parts.extend(review_words(review));
    }
    if parts.is_empty() {
        parts.push("Nothing to report".into());
    }
    parts.join(" · ")
}

/// A statement re-checked (`verify --statement`): why it is not verified
/// first (the verdict of the receipt it records, its subjects, who made
/// it), then what the files say. Only a statement with nothing against it
/// reads as verified.
fn statement_words(result: &Outcome) -> String {
    let mut parts: Vec<String> = result
        .decision
        .iter()
        .flat_map(|d| d.fails.iter().cloned())
        .collect();
    let refused = !parts.is_empty();
    if let Some(v) = result.verification.as_ref().filter(|v| !v.passed()) {
        parts.push(verification_words(v));
    }
    let missing: Vec<String> = result.not_verified_names();
    if !missing.is_empty() {
        parts.push(format!("not verified, missing: {}", missing.join(", ")));
    }
    match &result.verification {
        Some(v) if parts.is_empty() => parts.push(format!(
            "Statement verified: {} subjects match the files; its signature is checked by gh attestation verify",
            distinct(&v.checked)
        )),
        _ if refused => parts.push("the statement is not verified".into()),
        _ => {}
    }
    parts.join(" · ")
}

/// `Another check named "Agent review receipt" was posted on this commit by
/// workflow run 77 (job 88): only this one comes from the default branch`.
pub(crate) fn imitation_words(first: &crate::outcome::Imitation, more: usize) -> String {
    format!("{}{ONLY_OURS}", imitation_posted(first, more))
}

/// What an imitation's title claims of this check, true only when its
/// workflow file is the default branch's.
const ONLY_OURS: &str = ": only this one comes from the default branch";

fn imitation_posted(first: &crate::outcome::Imitation, more: usize) -> String {
    let more = match more {
        0 => String::new(),
        n => format!(" and {n} more"),
    };
    format!(
        "Another check named \"{}\" was posted on this commit {}{more}",
        first.name.replace('`', "'"),
        first.source
    )
}

/// A receipt that does not match: the first difference, and how many others.
fn verification_words(v: &crate::receipt::verify::Verification) -> String {
    let first = mismatch_words(&v.mismatches[0]);
    let others = v
        .mismatches
        .iter()
        .map(mismatch_words)
        .filter(|w| *w != first)
        .collect::<std::collections::BTreeSet<_>>()
        .len();
    match others {
        0 => first,
        n => format!("{first}, and {n} more difference{}", plural(n)),
    }
}

/// Two runs compared: whether the prompt change was a controlled one, and
/// the findings added and removed.
fn comparison_words(c: &crate::compare::Comparison) -> String {
    let findings = format!(
        "findings: {} added, {} removed",
        c.findings.added.len(),
        c.findings.removed.len()
    );
    if !c.prompt_changed {
        "The prompt did not change: there is nothing to compare".into()
    } else if !c.controlled {
        format!(
            "Not a controlled prompt change: {} changed too · {findings}",
            c.unexpected.join(", ")
        )
    } else {
        let file = |p: &Option<String>| p.as_deref().map(file_name);
        let prompts = match (file(&c.prompts.base_path), file(&c.prompts.head_path)) {
            (Some(b), Some(h)) if b != h => format!(": `{b}` → `{h}`"),
            (Some(b), Some(_)) => format!(": `{b}`"),
            _ => String::new(),
        };
        format!("Controlled prompt change{prompts} · {findings}")
    }
}

/// The workflow lint's errors and warnings, counted.
fn lint_words(result: &Outcome) -> String {
    let count = |level| result.lints.iter().filter(|l| l.level == level).count();
    let (errors, warnings) = (count(Level::Failure), count(Level::Warning));
    match (errors, warnings) {
        (0, 0) => "Workflow lint: no agent-review problems".into(),
        (e, 0) => format!("Workflow lint: {e} error{}", plural(e)),
        (0, w) => format!("Workflow lint: {w} warning{}", plural(w)),
        (e, w) => format!(
            "Workflow lint: {e} error{}, {w} warning{}",
            plural(e),
            plural(w)
        ),
    }
}

/// A head whose pull request merges into another branch than the trusted one.
fn elsewhere_words(c: &crate::base::Check) -> Option<String> {
    let crate::base::Target::Elsewhere(other) = &c.target else {
        return None;
    };
    let trusted = c
        .base
        .as_ref()
        .and_then(|b| b.branch.as_deref())
        .unwrap_or("the default branch");
    let mut named: Vec<String> = other.iter().take(3).map(|b| branch(b)).collect();
    if other.len() > 3 {
        named.push(format!("{} more", other.len() - 3));
    }
    Some(format!(
        "The pull request merges into {}, not {}: only the default branch or a protected base is trusted",
        named.join(", "),
        branch(trusted),
    ))
}

/// A branch name for the verdict: quoted, one line, clipped, its own
/// backticks turned to quotes (git allows them in a name).
pub(crate) fn branch(name: &str) -> String {
    crate::base::quoted(name)
}

/// What the pull request changed of what the agent runs and reads.
fn instruction_change_words(c: &crate::base::Check) -> Vec<String> {
    let mut parts = Vec::new();
    let allowed = if c.policy == Policy::Allow {
        " (allowed by `instructions-changed: allow`)"
    } else {
        ""
    };
    let listed = |names: Vec<String>, quote: bool| {
        let mut listed: Vec<String> = names
            .iter()
            .take(4)
            .map(|n| if quote { format!("`{n}`") } else { n.clone() })
            .collect();
        if names.len() > 4 {
            listed.push(format!("{} more", names.len() - 4));
        }
        listed.join(", ")
    };
    // What the runtime runs first: a rewritten hook script can change
    // the answer itself, whatever the instructions say.
    let runs = c.runtime_names();
    if !runs.is_empty() {
        parts.push(format!(
            "This pull request changes what the agent runs: {}{allowed}",
            listed(runs, false)
        ));
    }
    let names = c.names();
    if !names.is_empty() {
        parts.push(format!(
            "This pull request changes the agent's instructions: {}{allowed}",
            listed(names, true)
        ));
    }
    parts
}

/// (`restore`) What was put back before the agent: "Pinned to the base's
/// configuration: restored `AGENTS.md`, removed `src/AGENTS.md`".
fn restore_words(p: &crate::base::Pinned) -> String {
    if p.files.is_empty() {
        return "Pinned to the base's configuration: the checkout already has it, nothing to put back".into();
    }
    let mut listed: Vec<String> = p
        .files
        .iter()
        .take(4)
        .map(|f| format!("{} `{}`", f.how.as_str(), f.path.replace('`', "'")))
        .collect();
    if p.files.len() > 4 {
        listed.push(format!("{} more", p.files.len() - 4));
    }
    format!("Pinned to the base's configuration: {}", listed.join(", "))
}

/// A pinned run whose pull request changed only what the agent did not run
/// with: "Not used, the agent ran with the base's: `AGENTS.md`, `review.md`".
fn not_used_words(c: &crate::base::Check) -> String {
    let mut names: Vec<String> = Vec::new();
    for ch in &c.not_used {
        let name = ch.path.rsplit('/').next().unwrap_or(&ch.path);
        let name = format!("`{}`", name.replace('`', "'"));
        if !names.contains(&name) {
            names.push(name);
        }
    }
    let more = names.len().saturating_sub(4);
    names.truncate(4);
    if more > 0 {
        names.push(format!("{more} more"));
    }
    format!(
        "Not used, the agent ran with the base's: {}",
        names.join(", ")
    )
}

/// What the output and the agent said: "output valid", "agent: not ok, 2
/// findings (1 high, 1 low)".
fn review_words(review: &Review) -> Vec<String> {
    let output = match &review.verdict {
        Output::Valid => "output valid".to_string(),
        Output::Invalid => {
            let unchecked = review.patterns.limited + review.patterns.unchecked;
            format!(
                "output invalid ({} schema error{}{})",
                review.violations_total,
                plural(review.violations_total),
                if unchecked > 0 {
                    format!(
                        ", {unchecked} string{} not checked against `pattern`",
                        plural(unchecked)
                    )
                } else {
                    String::new()
                }
            )
        }
        Output::Missing => format!("no output at `{}`", review.path),
        Output::Empty => format!("output `{}` is empty", review.path),
        Output::TooLarge { .. } => format!("output `{}` too large to read", review.path),
        Output::NotJson { .. } => format!("output `{}` is not JSON", review.path),
        Output::TooDeep { .. } => format!("output `{}` nests too deep", review.path),
    };
    let mut parts = vec![output];
    if review.findings.problem.is_some() {
        parts.push("findings unreadable".into());
        return parts;
    }
    if review.document.is_none() {
        return parts;
    }
    let list = &review.findings.list;
    let findings = match list.len() {
        0 => "no findings".to_string(),
        n => format!("{n} finding{} ({})", plural(n), by_severity(list)),
    };
    parts.push(match review.findings.ok {
        Some(true) => format!("agent: ok, {findings}"),
        Some(false) => format!("agent: not ok, {findings}"),
        None => findings,
    });
    parts
}

/// "1 high, 1 low": counts from the most severe down.
pub(crate) fn by_severity(list: &[Finding]) -> String {
    let mut parts = Vec::new();
    for s in Severity::ALL.iter().rev() {
        let n = list.iter().filter(|f| f.severity == Some(*s)).count();
        if n > 0 {
            parts.push(format!("{n} {s}"));
        }
    }
    let unknown = list.iter().filter(|f| f.severity.is_none()).count();
    if unknown > 0 {
        parts.push(format!("{unknown} of unknown severity"));
    }
    parts.join(", ")
}

/// What a failed verification means, in a few words naming the file.
pub(crate) fn mismatch_words(m: &Mismatch) -> String {
    let kind = match m.field.as_str() {
        "prompt_sha" | "prompt_bom" | "prompt_line_endings" => "Prompt file",
        "prompt_template_sha" => "Prompt template",
        "tools_sha" => "Tools file",
        "schema_sha" => "Output schema",
        "output_sha" => "Agent output",
        "fixture_sha" => "Fixture",
        "agents_sha" => "Instruction file",
        "hooks" => "Hook configuration",
        "runtime" => "File the agent runs",
        _ => "File",
    };
    match (m.files.as_slice(), m.field.as_str()) {
        ([one], _) => format!("{kind} `{}` changed after it was recorded", short(one)),
        ([first, rest @ ..], _) => format!(
            "`{}` and {} more file{} changed after they were recorded",
            short(first),
            rest.len(),
            plural(rest.len())
        ),
        ([], "git_sha") => "The checkout is not the commit the receipt was recorded on".into(),
        ([], "agents_sha") => "The agent's instruction chain changed after it was recorded".into(),
        ([], "agent") => "The receipt is another agent's".into(),
        (
            [],
            "prompt_path" | "tools_path" | "output_path" | "schema_path" | "codex_version"
            | "model" | "codex_args",
        ) => format!("This step's `{}` is not the receipt's", m.field),
        ([], field) => format!("The receipt on disk changed after it was written (`{field}`)"),
    }
}

/// Identities counted once each (`run` recomputes some twice).
pub(crate) fn distinct(fields: &[String]) -> usize {
    fields
        .iter()
        .collect::<std::collections::BTreeSet<_>>()
        .len()
}

fn short(path: &str) -> String {
    crate::markdown::shorten_middle(path, 60)
}

fn file_name(path: &str) -> String {
    clip(path.rsplit('/').next().unwrap_or(path), 60)
}

fn capitalize(s: &str) -> String {
    let mut chars = s.chars();
    match chars.next() {
        Some(c) => c.to_uppercase().chain(chars).collect(),
        None => String::new(),
    }
}

pub(crate) fn plural(n: usize) -> &'static str {
    if n == 1 { "" } else { "s" }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn mismatch(field: &str, files: &[&str]) -> Mismatch {
        Mismatch {
            field: field.into(),
            recorded: json!("a"),
            actual: json!("b"),
            files: files.iter().map(|f| f.to_string()).collect(),
        }
    }

    #[test]
    fn a_mismatch_names_the_file_that_changed() {
        assert_eq!(
            mismatch_words(&mismatch(
                "prompt_sha",
                &[".github/codex/prompts/review.md"]
            )),
            "Prompt file `.github/codex/prompts/review.md` changed after it was recorded"
        );
        assert_eq!(
            mismatch_words(&mismatch("agents_sha", &["AGENTS.md", "src/AGENTS.md"])),
            "`AGENTS.md` and 1 more file changed after they were recorded"
        );
        assert_eq!(
            mismatch_words(&mismatch("git_sha", &[])),
            "The checkout is not the commit the receipt was recorded on"
        );
        assert_eq!(
            mismatch_words(&mismatch("model", &[])),
            "This step's `model` is not the receipt's"
        );
    }

    #[test]
    fn plain_words_have_no_backticks_and_nothing_invisible() {
        let v = Verdict {
            icon: "❌",
            words: "Prompt file `a\u{202E}b.md` changed".into(),
            base: None,
            qualifier: None,
        };
        assert_eq!(v.plain(), "❌ Prompt file a[U+202E]b.md changed");
        assert_eq!(v.markdown(), "❌ Prompt file `a[U+202E]b.md` changed");
    }

    /// The predicate's `verdict.title`: the words and the qualifier, no icon
    /// (`⚠️` is two characters), within the check run title's 255.
    #[test]
    fn the_words_without_the_icon_fit_a_title() {
        let v = Verdict {
            icon: "⚠️",
            words: format!("Not verified, missing: `{}`", "x".repeat(400)),
            base: None,
            qualifier: Some(ADVISORY),
        };
        let words = v.words_within(255);
        assert_eq!(words.chars().count(), 255, "{words}");
        assert!(words.starts_with("Not verified, missing: xxx"), "{words}");
        assert!(words.ends_with(&format!("… · {ADVISORY}")), "{words}");
        let short = Verdict {
            icon: "✅",
            words: "Receipt verified".into(),
            base: Some("base `main` at `1a2b3c4d5e6f`".into()),
            qualifier: None,
        };
        assert_eq!(
            short.words_within(255),
            "Receipt verified · base main at 1a2b3c4d5e6f"
        );
    }

    #[test]
    fn the_advisory_qualifier_ends_every_form_and_survives_the_cut() {
        let v = Verdict {
            icon: "✅",
            words: format!("Receipt verified · `{}`", "x".repeat(400)),
            base: None,
            qualifier: Some(ADVISORY),
        };
        let title = v.plain_within(255);
        assert_eq!(title.chars().count(), 255);
        assert!(
            title.ends_with("… · advisory: this workflow file can be changed by the pull request"),
            "{title}"
        );
        assert!(v.markdown().ends_with(&format!(" · {ADVISORY}")));
        let short = Verdict {
            words: "Receipt verified".into(),
            ..v
        };
        assert_eq!(
            short.plain_within(255),
            "✅ Receipt verified · advisory: this workflow file can be changed by the pull request"
        );
    }
}
