//! The job summary: the same story as the check run, in Markdown.

use std::path::PathBuf;

use serde_json::Value;

use super::Report;
use crate::error::Error;
use crate::inputs::Mode;
use crate::level::Level;
use crate::markdown::clip;
use crate::markdown::{code, prose, text};
use crate::outcome::Outcome;
use crate::review::findings::Severity;
use crate::review::{Review, Verdict};

/// The runner drops a step summary over 1 MiB whole; stay well under it.
pub const MAX_SUMMARY_BYTES: usize = 1024 * 1024 - 4096;

pub struct JobSummary {
    pub file: PathBuf,
}

impl Report for JobSummary {
    fn report(&mut self, result: &mut Outcome) -> Result<(), Error> {
        let md = fit(&render(result), MAX_SUMMARY_BYTES);
        super::append_to_step_file("GITHUB_STEP_SUMMARY", &self.file, md.as_bytes())
    }
}

/// Rows of a table shown before the rest is only counted.
pub const MAX_ROWS: usize = 50;
const MAX_CELL_CHARS: usize = 300;

/// The headline: what ran and whether it held up, e.g.
/// `prompt 4d93b50 · verified · valid · 2 findings`.
pub fn headline(result: &Outcome) -> String {
    if let Some(c) = &result.comparison {
        let sha = |v: &Value| {
            v.as_str()
                .map_or("?".to_string(), |s| s[..s.len().min(7)].to_string())
        };
        let prompt = c
            .changed
            .iter()
            .find(|x| x.channel == "prompt")
            .map_or_else(
                || {
                    format!(
                        "prompt {} unchanged",
                        &result.field("prompt_sha")[..result.field("prompt_sha").len().min(7)]
                    )
                },
                |x| format!("prompt {} → {}", sha(&x.base), sha(&x.head)),
            );
        let state = if c.controlled {
            "controlled"
        } else {
            "not controlled"
        };
        return format!(
            "{prompt} · {state} · +{} −{} findings",
            c.findings.added.len(),
            c.findings.removed.len()
        );
    }
    if result.mode == Mode::Lint {
        let n = result.lints.len();
        return format!("workflow lint · {n} finding{}", plural(n));
    }
    let prompt = result.field("prompt_sha");
    let mut parts = match (&result.review, result.mode) {
        (Some(r), Mode::Validate) => vec![r.path.clone()],
        _ => vec![format!("prompt {}", &prompt[..prompt.len().min(7)])],
    };
    match &result.verification {
        Some(v) if !v.passed() => parts.push("verification failed".into()),
        Some(_) => parts.push("verified".into()),
        None if result.mode == Mode::Record => parts.push("recorded".into()),
        None => {}
    }
    if let Some(r) = &result.review {
        parts.push(match &r.verdict {
            Verdict::Invalid => format!(
                "invalid ({} error{})",
                r.violations_total,
                plural(r.violations_total)
            ),
            Verdict::Missing => "no output".into(),
            v => v.as_str().replace('-', " "),
        });
        let n = r.findings.list.len();
        parts.push(format!("{n} finding{}", plural(n)));
    }
    parts.join(" · ")
}

fn plural(n: usize) -> &'static str {
    if n == 1 { "" } else { "s" }
}

pub fn render(result: &Outcome) -> String {
    let mut md = String::new();
    let heading = match result.mode {
        Mode::Validate => "Agent review",
        _ => "Agent review receipt",
    };
    md.push_str(&format!("## {heading}: {}\n\n", text(&headline(result))));
    if matches!(
        result.mode,
        Mode::Run | Mode::Verify | Mode::Compare | Mode::Lint | Mode::Validate
    ) {
        md.push_str(&format!("**Conclusion: {}**", result.conclusion().as_str()));
        let mut reasons = Vec::new();
        if let Some(v) = result.verification.as_ref().filter(|v| !v.passed()) {
            let fields: Vec<String> = v
                .mismatches
                .iter()
                .map(|m| format!("`{}`", m.field))
                .collect();
            reasons.push(format!(
                "recorded identities differ from the files now: {}",
                fields.join(", ")
            ));
        }
        if let Some(a) = &result.agent {
            reasons.extend(a.problems.iter().cloned());
        }
        if let Some(c) = result.comparison.as_ref().filter(|c| !c.controlled) {
            reasons.push(if c.prompt_changed {
                format!(
                    "not a controlled prompt change: {} changed too",
                    c.unexpected.join(", ")
                )
            } else {
                "the prompt did not change: there is nothing to compare".to_string()
            });
        }
        let failing = result
            .lints
            .iter()
            .filter(|l| l.level == crate::level::Level::Failure)
            .count();
        if result.mode == Mode::Lint && failing > 0 {
            reasons.push(format!("{failing} workflow error{}", plural(failing)));
        }
        if let Some(d) = &result.decision {
            reasons.extend(d.reasons.iter().cloned());
        }
        if !reasons.is_empty() {
            md.push_str(": ");
            md.push_str(
                &reasons
                    .iter()
                    .map(|r| prose(r))
                    .collect::<Vec<_>>()
                    .join("; "),
            );
        }
        md.push_str("\n\n");
    }
    if let Some(v) = result.verification.as_ref().filter(|v| !v.passed()) {
        render_verification(&mut md, v);
    }
    if let Some(review) = &result.review {
        render_review(&mut md, review);
        if result.mode == Mode::Validate {
            return finish(md);
        }
    }
    if let Some(c) = &result.comparison {
        render_comparison(&mut md, c);
        return finish(md);
    }
    if result.mode == Mode::Lint || !result.lints.is_empty() {
        render_lints(&mut md, &result.lints);
        if result.mode == Mode::Lint {
            return finish(md);
        }
    }
    if let Some(agent) = &result.agent {
        render_agent(&mut md, agent, result);
    }

    md.push_str("| Input | Path | SHA-256 |\n| --- | --- | --- |\n");
    let rows = [
        ("Prompt", "prompt_path", "prompt_sha", "inline `prompt`"),
        (
            "Prompt template",
            "prompt_template_path",
            "prompt_template_sha",
            "",
        ),
        ("Tools", "tools_path", "tools_sha", ""),
        (
            "Output schema",
            "schema_path",
            "schema_sha",
            "inline `output-schema`",
        ),
        ("Agent output", "output_path", "output_sha", ""),
    ];
    for (label, path_key, sha_key, inline) in rows {
        let (path, sha) = (result.receipt.get(path_key), result.receipt.get(sha_key));
        if path.is_none() && sha.is_none() {
            continue;
        }
        let path = match path {
            Some(Value::String(p)) => code(p),
            _ if !inline.is_empty() && sha.is_some_and(|s| !s.is_null()) => inline.to_string(),
            _ => "—".to_string(),
        };
        let sha = match sha {
            Some(Value::String(s)) => code(s),
            _ if label == "Prompt template" => continue,
            _ => "**missing**".to_string(),
        };
        md.push_str(&format!("| {label} | {path} | {sha} |\n"));
    }

    if let Some(Value::Array(files)) = result.receipt.get("agents") {
        let used: Vec<&str> = files.iter().filter_map(|f| f["path"].as_str()).collect();
        let paths = match used.as_slice() {
            [] => "—".to_string(),
            [one] => code(one),
            [first, rest @ ..] => format!("{} and {} more", code(first), rest.len()),
        };
        let sha = match result.receipt.get("agents_sha") {
            Some(Value::String(s)) => code(s),
            _ => "*empty*".to_string(),
        };
        md.push_str(&format!("| AGENTS.md chain | {paths} | {sha} |\n"));
    }
    md.push_str("\n| Run | |\n| --- | --- |\n");
    let given = |key: &str| match result.receipt.get(key) {
        Some(Value::String(s)) => code(s),
        _ => "*not given*".to_string(),
    };
    md.push_str(&format!(
        "| Checkout | {} at {}{} |\n",
        given("git_describe"),
        given("git_sha"),
        if result.receipt.get("git_shallow") == Some(&Value::Bool(true)) {
            " (shallow)"
        } else {
            ""
        }
    ));
    md.push_str(&format!("| Codex version | {} |\n", given("codex_version")));
    md.push_str(&format!("| Model | {} |\n", given("model")));
    md.push_str(&format!("| Codex args | {} |\n", given("codex_args")));
    md.push_str(&format!("| Receipt | {} |\n", code(&result.usage_file)));

    if let Some(v) = result.verification.as_ref().filter(|v| v.passed()) {
        md.push('\n');
        render_verification(&mut md, v);
    }

    let vouch: Vec<_> = result
        .caveats
        .iter()
        .filter(|c| c.level == Level::Warning)
        .collect();
    if !vouch.is_empty() {
        md.push_str("\n### What this receipt cannot vouch for\n\n");
        for c in vouch {
            md.push_str(&format!("- {}\n", prose(&c.message)));
        }
    }
    let notes: Vec<_> = result
        .caveats
        .iter()
        .filter(|c| c.level == Level::Notice)
        .collect();
    if !notes.is_empty() {
        md.push_str("\n### Notes\n\n");
        for c in notes {
            md.push_str(&format!("- {}\n", prose(&c.message)));
        }
    }
    if result.mode == Mode::Record {
        md.push_str("\nRecorded only: run the action with mode `verify` or `run` to check it.\n");
    }
    finish(md)
}

/// One blank line between sections, and a trailing newline.
fn finish(mut md: String) -> String {
    md.push('\n');
    while md.contains("\n\n\n") {
        md = md.replace("\n\n\n", "\n\n");
    }
    md
}

fn render_comparison(md: &mut String, c: &crate::compare::Comparison) {
    md.push_str("### Identities\n\n");
    if c.changed.is_empty() {
        md.push_str("Nothing changed between the two runs.\n\n");
    } else {
        md.push_str("| Channel | Base | Head | |\n| --- | --- | --- | --- |\n");
        for x in &c.changed {
            let shown = |v: &Value| match v {
                Value::String(s) => code(s),
                Value::Null => "*none*".to_string(),
                other => code(&other.to_string()),
            };
            let verdict = if x.channel == "prompt" {
                "the change under test"
            } else if c.unexpected.contains(&x.channel) {
                "**not allowed**"
            } else {
                "allowed"
            };
            md.push_str(&format!(
                "| {} | {} | {} | {verdict} |\n",
                x.channel,
                shown(&x.base),
                shown(&x.head)
            ));
        }
        md.push('\n');
    }
    for n in &c.notes {
        md.push_str(&format!("- {}\n", prose(n)));
    }
    let f = &c.findings;
    md.push_str(&format!(
        "\n### Findings\n\n{} added, {} removed, {} kept, {} reworded only (case, whitespace or punctuation).\n\n",
        f.added.len(),
        f.removed.len(),
        f.kept.len(),
        f.reworded.len()
    ));
    let list = |md: &mut String, title: &str, items: &[String]| {
        if !items.is_empty() {
            md.push_str(&format!("**{title}**\n\n"));
            for i in items.iter().take(MAX_ROWS) {
                md.push_str(&format!("- {}\n", text(&clip(i, MAX_CELL_CHARS))));
            }
            md.push('\n');
        }
    };
    list(md, "Added", &f.added);
    list(md, "Removed", &f.removed);
    let reworded: Vec<String> = f
        .reworded
        .iter()
        .map(|(b, h)| format!("{b} → {h}"))
        .collect();
    list(md, "Reworded", &reworded);
}

fn render_lints(md: &mut String, lints: &[crate::lint::Lint]) {
    md.push_str("### Workflow lint\n\n");
    if lints.is_empty() {
        md.push_str("The workflows have none of the agent-review failure modes.\n\n");
        return;
    }
    md.push_str("| Where | Level | Finding |\n| --- | --- | --- |\n");
    for l in lints.iter().take(MAX_ROWS) {
        md.push_str(&format!(
            "| {} | {} | {} |\n",
            code(&format!("{}:{}", l.file, l.line)),
            l.level.command(),
            prose(&clip(&l.message, MAX_CELL_CHARS))
        ));
    }
    md.push('\n');
}

fn render_verification(md: &mut String, v: &crate::receipt::verify::Verification) {
    md.push_str("### Verification\n\n");
    if v.passed() {
        let mut checked = v.checked.clone();
        checked.sort();
        checked.dedup();
        md.push_str(&format!(
            "Passed: {} recorded identities recomputed and equal.\n",
            checked.len()
        ));
    } else {
        md.push_str("**Failed**: these recorded identities differ from the files now.\n\n");
        md.push_str("| Field | Recorded | Actual |\n| --- | --- | --- |\n");
        for m in &v.mismatches {
            md.push_str(&format!(
                "| {} | {} | {} |\n",
                code(&m.field),
                code(&value_text(&m.recorded)),
                code(&value_text(&m.actual))
            ));
        }
    }
    for (field, why) in &v.skipped {
        md.push_str(&format!("\n- Not verified: {}: {}", code(field), text(why)));
    }
    if !v.skipped.is_empty() {
        md.push('\n');
    }
    md.push('\n');
}

fn render_agent(md: &mut String, agent: &crate::agent::sent::AgentCheck, result: &Outcome) {
    md.push_str("### What reached the agent\n\n");
    let Some(t) = &agent.transcript else {
        for p in &agent.problems {
            md.push_str(&format!("- {}\n", prose(p)));
        }
        md.push('\n');
        return;
    };
    let s = &agent.session;
    let or_none = |v: &Option<String>| v.as_deref().map_or("*not recorded*".to_string(), code);
    md.push_str("| | |\n| --- | --- |\n");
    md.push_str(&format!(
        "| Session record | {} ({}) |\n",
        code(&t.path),
        or_none(&t.session_id)
    ));
    md.push_str(&format!(
        "| Prompt as sent | {} |\n",
        or_none(&agent.prompt_sent_sha)
    ));
    let agents = result.field("agents_sha");
    md.push_str(&format!(
        "| AGENTS.md body | {} |\n",
        if agents.is_empty() {
            "*none*".to_string()
        } else {
            code(&agents)
        }
    ));
    md.push_str(&format!(
        "| Codex CLI | {} ({}) |\n",
        or_none(&s.cli_version),
        or_none(&s.originator)
    ));
    md.push_str(&format!("| Model | {} |\n", or_none(&s.model)));
    md.push_str(&format!(
        "| Approval, sandbox | {}, {} |\n",
        or_none(&s.approval_policy),
        or_none(&s.sandbox)
    ));
    if let Some(tk) = &s.tokens {
        md.push_str(&format!(
            "| Tokens | {} total: {} input ({} cached), {} output ({} reasoning) |\n",
            tk.total, tk.input, tk.cached_input, tk.output, tk.reasoning
        ));
    }
    if let Some(ms) = s.duration_ms {
        md.push_str(&format!("| Duration | {:.1} s |\n", ms as f64 / 1000.0));
    }
    md.push('\n');
    if agent.problems.is_empty() {
        md.push_str("The prompt, the AGENTS.md chain, the CLI version, the model and the review agree with the checkout.\n\n");
    }
    for p in &agent.problems {
        md.push_str(&format!("- **Mismatch**: {}\n", prose(p)));
    }
    for n in &agent.notes {
        md.push_str(&format!("- {}\n", prose(n)));
    }
    if !agent.problems.is_empty() || !agent.notes.is_empty() {
        md.push('\n');
    }
}

fn render_review(md: &mut String, review: &Review) {
    md.push_str("### Review\n\n");
    // The draft matters only once the output was read as JSON and validated.
    let draft = match review.verdict {
        Verdict::Valid | Verdict::Invalid => format!(" (JSON Schema draft {})", review.draft),
        _ => String::new(),
    };
    md.push_str(&format!(
        "{} {}{draft}.\n\n",
        code(&review.path),
        text(&review.verdict.explain(review.violations_total)),
    ));
    if !review.violations.is_empty() {
        md.push_str("| Where | Value | Keyword | Problem |\n| --- | --- | --- | --- |\n");
        for v in review.violations.iter().take(MAX_ROWS) {
            let at = v.position.map_or("—".to_string(), |p| {
                format!("line {}, column {}", p.line, p.column)
            });
            let pointer = if v.instance_path.is_empty() {
                "/".to_string()
            } else {
                v.instance_path.clone()
            };
            md.push_str(&format!(
                "| {at} | {} | {} | {} |\n",
                code(&clip(&pointer, 120)),
                code(&v.keyword),
                text(&clip(&v.message, MAX_CELL_CHARS))
            ));
        }
        if review.violations_total > MAX_ROWS {
            md.push_str(&format!(
                "\n{} more violations are not shown.\n",
                review.violations_total - MAX_ROWS
            ));
        }
        md.push('\n');
    }
    let findings = &review.findings.list;
    if findings.is_empty() {
        return;
    }
    md.push_str(&format!("### Findings ({})\n\n", findings.len()));
    let mut shown = 0;
    let groups = Severity::ALL.iter().rev().map(|s| Some(*s)).chain([None]);
    for sev in groups {
        let group: Vec<_> = findings.iter().filter(|f| f.severity == sev).collect();
        if group.is_empty() {
            continue;
        }
        let name = sev.map_or("Unknown severity".to_string(), |s| {
            let n = s.as_str();
            n[..1].to_uppercase() + &n[1..]
        });
        md.push_str(&format!(
            "**{name}** ({})\n\n| Location | Finding |\n| --- | --- |\n",
            group.len()
        ));
        for f in group {
            if shown == MAX_ROWS {
                break;
            }
            shown += 1;
            let location = match (&f.path, f.line) {
                (Some(p), Some(l)) => code(&format!("{}:{l}", clip(p, 120))),
                (Some(p), None) => code(&clip(p, 120)),
                _ => "—".to_string(),
            };
            let body = match &f.title {
                Some(t) => format!(
                    "**{}**: {}",
                    text(&clip(t, 120)),
                    text(&clip(&f.message, MAX_CELL_CHARS))
                ),
                None => text(&clip(&f.message, MAX_CELL_CHARS)),
            };
            md.push_str(&format!("| {location} | {body} |\n"));
        }
        md.push('\n');
    }
    if findings.len() > shown {
        md.push_str(&format!(
            "{} more findings are not shown.\n\n",
            findings.len() - shown
        ));
    }
}

fn value_text(v: &Value) -> String {
    match v {
        Value::String(s) => s.clone(),
        other => other.to_string(),
    }
}

/// Cuts Markdown at a line boundary so it fits `max` bytes, with a visible note.
pub fn fit(md: &str, max: usize) -> String {
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
    fn fit_cuts_at_a_line_and_says_so() {
        let md = "line one\nline two\nline three\n".repeat(100);
        let cut = fit(&md, 200);
        assert!(cut.len() <= 200);
        assert!(cut.contains("Cut here"));
        assert!(cut.split("\n\n> **Cut").next().unwrap().ends_with('\n'));
        assert_eq!(fit("short\n", 200), "short\n");
    }
}
