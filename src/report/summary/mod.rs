//! The job summary, and the check run's summary: the verdict first, then what
//! to do about it, then the findings, then the evidence.
//!
//! Written for the 1012 px summary pane: hashes are 12 characters in tables
//! (the evidence block has them in full), long paths are cut in the middle,
//! long words can wrap, recorded-against-actual is a `diff` block, not two
//! columns of 64 characters. The evidence is collapsed when it holds up. The
//! findings are not capped at a number of rows but at the page's byte budget,
//! and a cut says where the rest are.

use std::path::PathBuf;

use percent_encoding::{AsciiSet, NON_ALPHANUMERIC, utf8_percent_encode};
use serde_json::Value;

mod compare;
mod evidence;
mod instructions;
mod pinned;

use super::Report;
use super::annotations::explain_mismatch;
use super::verdict::{self, plural};
use crate::error::Error;
use crate::inputs::Mode;
use crate::level::Level;
use crate::markdown::{cell, clip, code, fenced, prose, short_hash, shorten_middle, text};
use crate::outcome::{CheckRunOutcome, NOT_PUBLISHED, Outcome};
use crate::review::findings::{Finding, Place, Severity};
use crate::review::gate::{Conclusion, Decision, FailOn};
use crate::review::{Review, Verdict};

/// The runner drops a step summary over 1 MiB whole; stay well under it.
pub(crate) const MAX_SUMMARY_BYTES: usize = 1024 * 1024 - 4096;

pub(crate) struct JobSummary {
    pub(crate) file: PathBuf,
    pub(crate) blob_base: Option<String>,
}

impl Report for JobSummary {
    fn name(&self) -> &'static str {
        "job summary"
    }

    fn report(&mut self, result: &mut Outcome) -> Result<(), Error> {
        if let Some((audit, _)) = &result.audit {
            let table = crate::audit::markdown(audit);
            let table = within(&table, MAX_SUMMARY_BYTES);
            return super::append_to_step_file("GITHUB_STEP_SUMMARY", &self.file, table.as_bytes());
        }
        let page = Page {
            blob_base: self.blob_base.clone(),
            budget: MAX_SUMMARY_BYTES,
            heading: true,
        };
        super::append_to_step_file(
            "GITHUB_STEP_SUMMARY",
            &self.file,
            render(result, &page).as_bytes(),
        )
    }
}

/// The audit's table cut at a row to fit the summary, saying how many rows
/// were left out (the console and `--format json` have them all).
fn within(table: &str, budget: usize) -> String {
    if table.len() <= budget {
        return table.to_string();
    }
    let mut out = String::new();
    let mut rows = table.lines();
    for line in rows.by_ref() {
        if out.len() + line.len() + 200 > budget {
            let left = 1 + rows.filter(|l| l.starts_with("| ")).count();
            out.push_str(&format!(
                "\n{left} more rows did not fit the job summary; the step's log and `format: json` have them all.\n"
            ));
            break;
        }
        out.push_str(line);
        out.push('\n');
    }
    out
}

/// Where the Markdown goes, and what it may take there.
#[derive(Clone, Debug)]
pub(crate) struct Page {
    /// `{server}/{owner}/{repo}/blob/{head sha}/`: where finding locations
    /// link. None outside Actions.
    pub(crate) blob_base: Option<String>,
    /// Bytes the Markdown may take in all.
    pub(crate) budget: usize,
    /// The verdict as the first line. The check run shows its title above
    /// the summary, so there it is left out rather than said twice.
    pub(crate) heading: bool,
}

impl Page {
    /// A terminal: no links, no limit worth counting.
    pub(crate) fn terminal() -> Page {
        Page {
            blob_base: None,
            budget: MAX_SUMMARY_BYTES,
            heading: true,
        }
    }
}

/// The most characters of agent text in one table cell.
pub(super) const MAX_CELL_CHARS: usize = 400;
/// A path in a table cell, cut in the middle past this.
pub(super) const MAX_PATH_CHARS: usize = 56;
/// Room kept for the closing lines when tables are filled to the budget.
const SLACK: usize = 2048;

pub(crate) fn render(result: &Outcome, page: &Page) -> String {
    let mut top = String::new();
    if page.heading {
        top.push_str(&format!("## {}\n\n", verdict::of(result).markdown()));
    }
    status(&mut top, result);
    advisory(&mut top, result);
    if let Some(CheckRunOutcome::NotPublished { reason }) = &result.check_run {
        top.push_str(&format!(
            "> **No check run**: {}. The annotations in the log and this summary carry the result.\n\n",
            prose(reason)
        ));
    }
    imitations(&mut top, result);
    if let Some(v) = result.verification.as_ref().filter(|v| !v.passed()) {
        failed_verification(&mut top, v, &result.usage_file);
    }
    if let Some(a) = result.agent.as_ref().filter(|a| !a.problems.is_empty()) {
        top.push_str("### What reached the agent differs\n\n");
        for p in &a.problems {
            top.push_str(&format!("- {}\n", prose(p)));
        }
        top.push('\n');
    }

    let mut tail = String::new();
    cannot_vouch(&mut tail, result);
    if !matches!(
        result.mode,
        Mode::Lint | Mode::Validate | Mode::Compare | Mode::Restore
    ) {
        evidence::evidence(&mut tail, result);
    }

    let mut room = page.budget.saturating_sub(top.len() + tail.len() + SLACK);
    // One buffer for the whole page: a summary filled with findings is a
    // megabyte, and each copy of it is a millisecond of fresh pages.
    let mut md = top;
    instructions::sections(&mut md, result, &mut room);
    pinned::not_used(&mut md, result, &mut room);
    pinned::put_back(&mut md, result, &mut room);
    instructions::limits(&mut md, result);
    if let Some(review) = &result.review {
        output_section(&mut md, review, &mut room);
        findings_section(&mut md, review, page, holds_up(result), &mut room);
    }
    if let Some(c) = &result.comparison {
        compare::comparison(&mut md, c, result, &mut room);
    }
    if result.mode == Mode::Lint || !result.lints.is_empty() {
        lints(&mut md, &result.lints, &mut room);
    }
    md.push_str(&tail);
    fit_owned(finish(md), page.budget)
}

/// The receipt matches the files and the agent's own record.
pub(super) fn holds_up(result: &Outcome) -> bool {
    !(result.verification.as_ref().is_some_and(|v| !v.passed())
        || result
            .agent
            .as_ref()
            .is_some_and(|a| !a.problems.is_empty()))
}

/// The other checks of this name on the commit, each linked, then what to
/// require so that the one branch protection reads is this one.
fn imitations(md: &mut String, result: &Outcome) {
    /// Listed one by one; the rest are counted.
    const LISTED: usize = 10;
    let Some(first) = result.imitations.first() else {
        return;
    };
    md.push_str(
        "### Another check of this name

",
    );
    for i in result.imitations.iter().take(LISTED) {
        md.push_str(&format!(
            "- [Check run {}]({}), posted {}, which says {}\n",
            i.check_run_id,
            i.url,
            prose(&i.source),
            code(&i.conclusion)
        ));
    }
    if result.imitations.len() > LISTED {
        md.push_str(&format!(
            "- and {} more\n",
            result.imitations.len() - LISTED
        ));
    }
    let passes = result.conclusion() != Conclusion::Failure;
    let what = if passes {
        "This receipt passes too, so they let through nothing it does not (an earlier receipt of \
         this head, from a re-run or a reopened pull request, is one of these)."
    } else {
        "This receipt fails, and they could pass: a required check is matched by its name, and \
         every workflow's jobs post as the same GitHub Actions app, so a reader of the check list, \
         or the merge, could take one of them for the receipt."
    };
    md.push_str(&format!(
        "\n{what} Nothing GitHub sets tells this receipt's checks from them but the app that \
         posts them: post {name} as the repository's own GitHub App and require it from that app \
         (README: The strongest source), and let no other workflow use the name. A check posted \
         after this one is not seen here.\n\n",
        name = code(&first.name)
    ));
}

/// Under the step's sentence, in the advisory layout: what the title's
/// `advisory` means, and where the layout that binds is. All our own words.
fn advisory(md: &mut String, result: &Outcome) {
    if result.layout != Some(crate::event::Layout::Advisory) {
        return;
    }
    md.push_str(&format!(
        "> **Advisory**: the pull request can change the workflow file that ran this step, so it \
         could have changed this step's inputs or posted this check itself. For a receipt it \
         cannot edit: [the binding layout]({}).\n\n",
        crate::outcome::BINDING_LAYOUT_URL
    ));
}

/// What the step does and why, in one paragraph: which policy let what pass.
fn status(md: &mut String, result: &Outcome) {
    if result.error.is_some() {
        md.push_str(
            "**The step fails**: the receipt could not run, so nothing was verified. The line \
             above says what is missing and how to fix it; a receipt that could not run is never \
             a pass.\n\n",
        );
        return;
    }
    if result.statement && statement_refused(md, result) {
        return;
    }
    if !holds_up(result) {
        md.push_str(
            "**The step fails**, whatever `fail-on` says: the receipt is the evidence of what the \
             agent was given, and it does not match.\n\n",
        );
        return;
    }
    match result.mode {
        Mode::Record => md.push_str(
            "Recorded only: run the action with mode `verify` or `run` after the agent to check it.\n\n",
        ),
        Mode::Run | Mode::Validate | Mode::Verify if trust_sentence(md, result) => {}
        Mode::Verify if result.statement => md.push_str(
            "**The step passes**: the receipt this statement records succeeded, the repository, \
             workflow and ref it names are the ones expected, and every subject was hashed again \
             and is equal. The signature is checked by `gh attestation verify` (the command below).\n\n",
        ),
        Mode::Verify => md.push_str("**The step passes**: every recorded identity was recomputed from the files and is equal.\n\n"),
        Mode::Run | Mode::Validate => {
            if let Some(d) = &result.decision {
                gate_sentence(md, d);
            }
        }
        Mode::Compare => {
            if let Some(c) = &result.comparison {
                compare::sentence(md, c);
            }
        }
        Mode::Restore => pinned::sentence(md, result),
        Mode::Lint | Mode::Audit => {}
    }
}

/// (`verify --statement`) Why the statement is not verified, and what it
/// takes to be; `false` when nothing refuses it.
fn statement_refused(md: &mut String, result: &Outcome) -> bool {
    let Some(d) = result.decision.as_ref().filter(|d| !d.fails.is_empty()) else {
        return false;
    };
    md.push_str(&format!(
        "**The step fails**: {}. A statement is verified only when the receipt it records \
         succeeded, it names at least one subject, and the repository, workflow and ref it names \
         are the ones expected (`--repo`, `--signer-workflow`, `--default-branch`).\n\n",
        prose(&d.fails.join("; "))
    ));
    true
}

/// When the trust checks, not the review, set the conclusion: what they found
/// and which input decides. `false` when they did not.
fn trust_sentence(md: &mut String, result: &Outcome) -> bool {
    use crate::base::Policy;
    let decided = result
        .decision
        .as_ref()
        .map_or(Conclusion::Success, |d| d.conclusion);
    let changed = result.instructions_changed();
    if let Some(c) = result
        .instructions
        .as_ref()
        .filter(|c| matches!(c.target, crate::base::Target::Elsewhere(_)))
    {
        md.push_str(&format!(
            "**The step fails**: a pull request of this head merges into a branch that is not the \
             trusted base {}. Only the default branch, or a base the receipt workflow names in \
             `protected-bases`, is trusted: a branch anyone can push could hold the very \
             instructions it is compared with, and this check, on the commit, would show on the \
             same head opened against the default branch.\n\n",
            prose(&c.label().unwrap_or_default())
        ));
        return true;
    }
    let closed = result
        .instructions
        .as_ref()
        .is_some_and(|c| c.policy == Policy::Fail && c.unavailable.is_some());
    if closed {
        md.push_str(
            "**The step fails**: the agent's instructions could not be compared with the base, and \
             `instructions-changed: fail` fails closed.\n\n",
        );
        return true;
    }
    if changed.is_some_and(|c| c.policy == Policy::Fail) {
        md.push_str(
            "**The step fails**: this pull request changes the agent's instructions, and \
             `instructions-changed: fail` does not let that pass.\n\n",
        );
        return true;
    }
    if result.binding()
        && result.conclusion() == Conclusion::Failure
        && result.not_verified().next().is_some()
    {
        md.push_str(
            "**The step fails**: some checks could not run (below). This workflow is out of the \
             pull request's reach, so its check is the one a ruleset can require, and GitHub \
             counts a `neutral` required check as passing: what could not be verified fails.\n\n",
        );
        return true;
    }
    if decided != Conclusion::Success || result.conclusion() != Conclusion::Neutral {
        return false;
    }
    let mut why = Vec::new();
    if changed.is_some_and(|c| c.policy == Policy::Warn) {
        why.push(
            "this pull request changes the agent's instructions (`instructions-changed: warn`)",
        );
    }
    if result.not_verified().next().is_some() {
        why.push("some checks could not run, and a check that did not run is not a pass");
    }
    if !result.timeline.is_empty() {
        why.push(
            "the session was more than one turn of one model (`single-turn: warn`; the evidence lists every turn)",
        );
    }
    md.push_str(&format!(
        "**The step passes, with something to look at** (conclusion `neutral`): {}.\n\n",
        prose(&why.join("; "))
    ));
    true
}

fn gate_sentence(md: &mut String, d: &Decision) {
    let policy = match d.fail_on {
        FailOn::Findings => format!("`fail-on: findings`, from `{}`", d.min_severity),
        other => format!("`fail-on: {}`", other.as_str()),
    };
    let list = |items: &[String]| {
        items
            .iter()
            .map(|r| prose(r))
            .collect::<Vec<_>>()
            .join("; ")
    };
    match d.conclusion {
        Conclusion::Failure => md.push_str(&format!(
            "**The step fails** under {}: {}.\n\n",
            prose(&policy),
            list(&d.fails)
        )),
        Conclusion::Neutral => {
            let why = match d.fail_on {
                FailOn::Never => "`fail-on: never` reports and never fails".to_string(),
                _ => format!(
                    "{policy} fails the step only when the output is missing or invalid; set `fail-on: findings` to fail on these"
                ),
            };
            md.push_str(&format!(
                "**The step passes, with something to look at** (conclusion `neutral`): {}. {}.\n\n",
                list(&d.passes_over),
                prose(&why)
            ));
        }
        Conclusion::Success => md.push_str(&format!(
            "**The step passes** under {}.\n\n",
            prose(&policy)
        )),
    }
}

/// Each recorded identity that no longer matches: the file, what changed,
/// the fix; then recorded against actual in full, as a diff.
fn failed_verification(md: &mut String, v: &crate::receipt::verify::Verification, usage: &str) {
    md.push_str("### What changed\n\n");
    for m in &v.mismatches {
        let (_, message) = explain_mismatch(m, usage);
        md.push_str(&format!("- {}\n", prose(&message)));
    }
    let mut diff = String::new();
    for m in &v.mismatches {
        let files = if m.files.is_empty() {
            String::new()
        } else {
            format!(" ({})", m.files.join(", "))
        };
        diff.push_str(&format!(
            "@@ {}{files} @@\n- {}    recorded in {usage}\n+ {}    now\n",
            m.field,
            value_text(&m.recorded),
            value_text(&m.actual)
        ));
    }
    md.push('\n');
    md.push_str(&fenced("diff", &diff));
    md.push('\n');
}

fn output_section(md: &mut String, review: &Review, room: &mut usize) {
    // The verdict and the sentence under it already say whether the output
    // is valid; this section adds what they cannot: where, and why.
    if review.violations.is_empty()
        && review.findings.problem.is_none()
        && review.findings.hint.is_none()
    {
        return;
    }
    md.push_str("### Agent output\n\n");
    if !review.violations.is_empty() {
        md.push_str(&format!(
            "{} checked against the output schema{}:\n\n",
            code(&review.path),
            draft(review)
        ));
    }
    if let Some(said) = review.patterns_said() {
        md.push_str(&format!("- {}\n", prose(&said)));
    }
    if let Some(problem) = &review.findings.problem {
        md.push_str(&format!("- Findings: {}\n", prose(problem)));
    }
    if let Some(hint) = &review.findings.hint {
        md.push_str(&format!("- {}\n", prose(hint)));
    }
    if review.violations.is_empty() {
        return;
    }
    let mut table = Table::new(&["Where", "Value", "Keyword", "Problem"]);
    for v in &review.violations {
        let at = v
            .position
            .map_or("—".to_string(), |p| format!("{}:{}", p.line, p.column));
        let pointer = if v.instance_path.is_empty() {
            "/"
        } else {
            &v.instance_path
        };
        let row = [
            at,
            code(&shorten_middle(pointer, 40)),
            code(&v.keyword),
            cell(&clip(&v.message, MAX_CELL_CHARS)),
        ];
        if !table.row(&row, room) {
            break;
        }
    }
    md.push('\n');
    md.push_str(&table.md);
    let left = review.violations_total - table.rows;
    if left > 0 {
        md.push_str(&format!(
            "\n{left} more violation{} not shown: validate `{}` locally with `prompt-receipt --mode validate` for the full list.\n",
            plural(left),
            text(&review.path)
        ));
    }
    md.push('\n');
}

pub(super) fn draft(review: &Review) -> String {
    // The draft matters only once the output was read as JSON and validated.
    match review.verdict {
        Verdict::Valid | Verdict::Invalid => format!(" (JSON Schema draft {})", review.draft),
        _ => String::new(),
    }
}

/// A severity as a reader scans for it: colour first, then the word.
pub(super) fn severity_cell(s: Option<Severity>) -> &'static str {
    match s {
        Some(Severity::Critical) => "🔴 critical",
        Some(Severity::High) => "🟠 high",
        Some(Severity::Medium) => "🟡 medium",
        Some(Severity::Low) => "🔵 low",
        Some(Severity::Info) => "⚪ info",
        None => "❔ unknown",
    }
}

/// Most severe first; unknown severity beside high, as the gate counts it.
fn rank(s: Option<Severity>) -> std::cmp::Reverse<(Severity, bool)> {
    std::cmp::Reverse((s.unwrap_or(Severity::High), s.is_some()))
}

fn findings_section(
    md: &mut String,
    review: &Review,
    page: &Page,
    receipt_holds: bool,
    room: &mut usize,
) {
    let list = &review.findings.list;
    if list.is_empty() {
        return;
    }
    let mut sorted: Vec<&Finding> = list.iter().collect();
    sorted.sort_by_key(|f| rank(f.severity));
    md.push_str(&format!(
        "### Findings ({})\n\n",
        verdict::by_severity(list)
    ));
    if !receipt_holds {
        md.push_str("*The agent wrote these with the recorded inputs, which no longer match the checkout: read them with that in mind.*\n\n");
    }
    // The rows go straight into the page, which grows once to hold them.
    let mut table = Table::after(std::mem::take(md), &["Severity", "Where", "Finding"]);
    table.md.reserve((*room).min(MAX_SUMMARY_BYTES));
    for f in &sorted {
        let row = [
            severity_cell(f.severity).to_string(),
            location(f, page.blob_base.as_deref()),
            finding_text(f),
        ];
        if !table.row(&row, room) {
            break;
        }
    }
    let rows = table.rows;
    *md = table.md;
    let left = list.len() - rows;
    if left > 0 {
        md.push_str(&format!(
            "\n**{left} more finding{}** did not fit in this summary. `{}`, the agent's output, has all {}; the check run's annotations show those with a file and line (up to `max-annotations`).\n",
            plural(left),
            text(&review.path),
            list.len()
        ));
    }
    md.push('\n');
}

/// Where a finding points, linked to the file at the head commit when it is
/// there, and flagged when it is not: agents invent locations.
fn location(f: &Finding, blob_base: Option<&str>) -> String {
    let at = |path: &str| match (f.line, f.end_line) {
        (Some(l), Some(e)) if e > l => format!("{}:{l}-{e}", shorten_middle(path, MAX_PATH_CHARS)),
        (Some(l), _) => format!("{}:{l}", shorten_middle(path, MAX_PATH_CHARS)),
        _ => shorten_middle(path, MAX_PATH_CHARS),
    };
    match &f.place {
        Place::Nowhere => "—".into(),
        Place::InCheckout(p) => match blob_base {
            Some(base) => {
                let anchor = match (f.line, f.end_line) {
                    (Some(l), Some(e)) if e > l => format!("#L{l}-L{e}"),
                    (Some(l), _) => format!("#L{l}"),
                    _ => String::new(),
                };
                format!("[{}]({base}{}{anchor})", code(&at(p)), url_path(p))
            }
            None => code(&at(p)),
        },
        Place::Path(p) => code(&at(p)),
        Place::Missing(p) => format!("{} ⚠️ *not in the checkout*", code(&at(p))),
        Place::PastEnd { path, lines } => format!(
            "{} ⚠️ *past the end ({lines} line{})*",
            code(&at(path)),
            plural(*lines as usize)
        ),
        Place::Refused(why) => format!(
            "{} ⚠️ *not annotated: the path {}*",
            code(&at(f.path.as_deref().unwrap_or(""))),
            text(why)
        ),
    }
}

fn finding_text(f: &Finding) -> String {
    let message = if f.message.trim().is_empty() {
        "*no message*".to_string()
    } else {
        cell(&clip(&f.message, MAX_CELL_CHARS))
    };
    match &f.title {
        Some(t) if !t.is_empty() && *t != f.message => {
            format!("**{}**: {message}", cell(&clip(t, 160)))
        }
        _ => message,
    }
}

/// Bytes a repository path keeps in a URL: the unreserved set and `/`.
const PATH_KEEPS: &AsciiSet = &NON_ALPHANUMERIC
    .remove(b'-')
    .remove(b'.')
    .remove(b'_')
    .remove(b'~')
    .remove(b'/');

/// A repository path in a URL: every other byte is percent-encoded, so a
/// path cannot end the link or add to it.
fn url_path(path: &str) -> String {
    utf8_percent_encode(path, PATH_KEEPS).to_string()
}

/// A receipt value in a table cell: hashes short, long values cut.
pub(super) fn shown(v: &Value) -> String {
    match v {
        Value::String(s) => code(&shorten_middle(&short_hash(s), 40)),
        Value::Null => "*none*".to_string(),
        other => code(&shorten_middle(&other.to_string(), 40)),
    }
}

fn lints(md: &mut String, lints: &[crate::lint::Lint], room: &mut usize) {
    md.push_str("### Workflow lint\n\n");
    if lints.is_empty() {
        md.push_str("The workflows have none of the agent-review failure modes.\n\n");
        return;
    }
    let mut table = Table::new(&["Where", "Level", "Finding"]);
    for l in lints {
        let level = match l.level {
            Level::Failure => "❌ error",
            Level::Warning => "⚠️ warning",
            Level::Notice => "ℹ️ notice",
        };
        let row = [
            code(&format!(
                "{}:{}",
                shorten_middle(&l.file, MAX_PATH_CHARS),
                l.line
            )),
            level.to_string(),
            prose(&clip(&l.message, MAX_CELL_CHARS)),
        ];
        if !table.row(&row, room) {
            break;
        }
    }
    md.push_str(&table.md);
    if table.rows < lints.len() {
        md.push_str(&format!(
            "\n{} more did not fit: run `prompt-receipt --mode lint` for the full list.\n",
            lints.len() - table.rows
        ));
    }
    md.push('\n');
}

/// Warnings stay in view: they limit what the receipt proves.
fn cannot_vouch(md: &mut String, result: &Outcome) {
    let vouch: Vec<_> = result
        .caveats
        .iter()
        .filter(|c| c.level == Level::Warning && !c.message.starts_with(NOT_PUBLISHED))
        .collect();
    if vouch.is_empty() {
        return;
    }
    md.push_str("### What this receipt cannot vouch for\n\n");
    for c in vouch {
        md.push_str(&format!("- {}\n", prose(&c.message)));
    }
    md.push('\n');
}

/// A Markdown table that stops taking rows when the page's budget is spent.
pub(super) struct Table {
    pub(super) md: String,
    pub(super) rows: usize,
}

impl Table {
    pub(super) fn new(header: &[&str]) -> Table {
        Table::after(String::new(), header)
    }

    /// A table that goes on from `md`, in the same buffer.
    pub(super) fn after(mut md: String, header: &[&str]) -> Table {
        md.push_str(&format!(
            "| {} |\n|{}\n",
            header.join(" | "),
            " --- |".repeat(header.len())
        ));
        Table { md, rows: 0 }
    }

    /// Adds a row if it fits in `room`, and takes its bytes from it.
    pub(super) fn row(&mut self, cells: &[String], room: &mut usize) -> bool {
        // `| a | b |\n`: the cells, a separator between each two, the ends.
        let len = cells.iter().map(String::len).sum::<usize>() + 3 * cells.len() + 2;
        if len > *room {
            return false;
        }
        *room -= len;
        self.md.push('|');
        for cell in cells {
            self.md.push(' ');
            self.md.push_str(cell);
            self.md.push_str(" |");
        }
        self.md.push('\n');
        self.rows += 1;
        true
    }
}

fn value_text(v: &Value) -> String {
    match v {
        Value::String(s) => s.clone(),
        other => other.to_string(),
    }
}

/// One blank line between sections, and a trailing newline.
fn finish(mut md: String) -> String {
    md.push('\n');
    if !md.contains("\n\n\n") {
        return md;
    }
    // In place: removing line ends from UTF-8 leaves UTF-8.
    let mut run = 0;
    let mut bytes = md.into_bytes();
    bytes.retain(|b| {
        run = if *b == b'\n' { run + 1 } else { 0 };
        run <= 2
    });
    String::from_utf8(bytes).unwrap_or_else(|e| String::from_utf8_lossy(e.as_bytes()).into_owned())
}

/// [`fit`], keeping `md` itself when it fits.
fn fit_owned(md: String, max: usize) -> String {
    if md.len() <= max {
        return md;
    }
    fit(&md, max)
}

/// Cuts Markdown at a line boundary so it fits `max` bytes, with a visible note.
pub(crate) fn fit(md: &str, max: usize) -> String {
    if md.len() <= max {
        return md.to_string();
    }
    let note = "\n\n> **Cut here**: the rest did not fit GitHub's size limit; the full receipt is in the usage file.\n";
    let budget = max.saturating_sub(note.len());
    let mut end = 0;
    for (i, _) in md.match_indices('\n') {
        if i + 1 > budget {
            break;
        }
        end = i + 1;
    }
    format!("{}{note}", &md[..end])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_audit_too_long_for_the_summary_is_cut_at_a_row_and_says_how_many_left() {
        let rows: String = (1..=100)
            .map(|i| format!("| {i} | {} |\n", "x".repeat(50)))
            .collect();
        let table = format!("## Agent runs\n\n| # | v |\n| --- | --- |\n{rows}");
        assert_eq!(within(&table, 1 << 20), table);
        let cut = within(&table, 2000);
        assert!(cut.len() <= 2000, "{}", cut.len());
        let kept = cut
            .lines()
            .filter(|l| l.starts_with("| ") && !l.starts_with("| #") && !l.starts_with("| -"))
            .count();
        assert!(
            cut.contains(&format!("{} more rows did not fit", 100 - kept)),
            "{cut}"
        );
        assert!(
            cut.lines().all(|l| !l.starts_with('|') || l.ends_with('|')),
            "a row cut in half"
        );
    }

    #[test]
    fn sections_are_one_blank_line_apart() {
        for md in [
            "a\n\n\n\nb",
            "\n\n\nx",
            "a\nb\n\nc\n\n\n",
            "",
            "x",
            "\n",
            "a\n\n\n\n\n\n\nb\n\n\nc",
        ] {
            let mut slow = format!("{md}\n");
            while slow.contains("\n\n\n") {
                slow = slow.replace("\n\n\n", "\n\n");
            }
            assert_eq!(finish(md.to_string()), slow, "{md:?}");
        }
    }

    #[test]
    fn fit_cuts_at_a_line_and_says_so() {
        let md = "line one\nline two\nline three\n".repeat(100);
        let cut = fit(&md, 200);
        assert!(cut.len() <= 200);
        assert!(cut.contains("Cut here"));
        assert!(cut.split("\n\n> **Cut").next().unwrap().ends_with('\n'));
        assert_eq!(fit("short\n", 200), "short\n");
    }

    #[test]
    fn a_table_stops_at_the_budget_and_counts_its_rows() {
        let mut room = 40;
        let mut t = Table::new(&["A", "B"]);
        assert!(t.row(&["1".into(), "x".repeat(10)], &mut room));
        assert!(!t.row(&["2".into(), "y".repeat(30)], &mut room));
        assert_eq!(t.rows, 1);
        assert_eq!(t.md, "| A | B |\n| --- | --- |\n| 1 | xxxxxxxxxx |\n");
    }

    #[test]
    fn paths_in_links_cannot_end_the_link() {
        assert_eq!(url_path("src/a b(1).rs"), "src/a%20b%281%29.rs");
        assert_eq!(url_path("ü/x]y"), "%C3%BC/x%5Dy");
        assert_eq!(url_path("a#L1?b=c"), "a%23L1%3Fb%3Dc");
        assert_eq!(url_path("keep-these_.~/as/is"), "keep-these_.~/as/is");
    }
}
