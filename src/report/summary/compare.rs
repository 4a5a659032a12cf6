//! The comparison's part of the summary: what a reader needs to believe
//! "controlled" (the prompt files and their diff, every channel with its
//! state) and what the prompt change did to the findings.

use serde_json::Value;

use super::{MAX_CELL_CHARS, Table, cell, severity_cell, shown};
use crate::compare::{CHANNELS, Comparison, Entry, FindingsDiff};
use crate::markdown::{clip, code, fenced, prose, short_hash, shorten_middle};
use crate::outcome::Outcome;

/// What the step does, and why, for a comparison.
pub(super) fn sentence(md: &mut String, c: &Comparison) {
    let allowed: Vec<&str> = c
        .changed
        .iter()
        .map(|x| x.channel)
        .filter(|ch| *ch != "prompt" && !c.unexpected.contains(ch))
        .collect();
    if !c.prompt_changed {
        md.push_str("**The step fails**: both runs used the same prompt, so there is no prompt change to measure.\n\n");
    } else if !c.controlled {
        md.push_str(&format!(
            "**The step fails**: {} changed too, so a difference in findings cannot be put down to the prompt. \
             Run both reviews on the same inputs, or name the channel in `allow-changed` if the change is meant.\n\n",
            c.unexpected.iter().map(|ch| format!("`{ch}`")).collect::<Vec<_>>().join(", ")
        ));
    } else if allowed.is_empty() {
        md.push_str("**The step passes**: only the prompt changed between the two runs, so the difference in findings is the prompt's doing.\n\n");
    } else {
        md.push_str(&format!(
            "**The step passes**: only the prompt changed, besides what `allow-changed` names ({}).\n\n",
            allowed.iter().map(|ch| format!("`{ch}`")).collect::<Vec<_>>().join(", ")
        ));
    }
}

/// The comparison: the prompts and their diff, every channel, the findings
/// that changed.
pub(super) fn comparison(md: &mut String, c: &Comparison, result: &Outcome, room: &mut usize) {
    prompts(md, c, result);
    channels(md, c, result);
    findings(md, &c.findings, room);
}

/// The two prompt files, their short hashes, and a diff of their text.
fn prompts(md: &mut String, c: &Comparison, result: &Outcome) {
    md.push_str("### Prompt\n\n");
    let sha = |v: Option<&Value>| v.and_then(Value::as_str).map(short_hash);
    let (base_sha, head_sha) = c
        .changed
        .iter()
        .find(|x| x.channel == "prompt")
        .map_or((None, None), |x| (sha(Some(&x.base)), sha(Some(&x.head))));
    let side = |path: &Option<String>, sha: Option<String>| {
        let name = path.as_deref().map_or("inline `prompt`".to_string(), |p| {
            code(&shorten_middle(p, 80))
        });
        match sha {
            Some(s) => format!("{name} ({})", code(&s)),
            None => name,
        }
    };
    if c.prompt_changed {
        md.push_str(&format!(
            "Base {} → head {}\n\n",
            side(&c.prompts.base_path, base_sha),
            side(&c.prompts.head_path, head_sha)
        ));
        match (&c.prompts.diff, &c.prompts.no_diff) {
            (Some(diff), _) => {
                md.push_str(&fenced("diff", diff));
                md.push('\n');
            }
            (None, Some(why)) => md.push_str(&format!("No diff: {}.\n\n", prose(why))),
            (None, None) => {}
        }
    } else {
        md.push_str(&format!(
            "Both runs used the same prompt ({}): a comparison shows what one prompt change does, so there is nothing to compare.\n\n",
            code(&short_hash(&result.field("prompt_sha")))
        ));
    }
}

/// Every channel, changed or not: "controlled" shown, not claimed.
fn channels(md: &mut String, c: &Comparison, result: &Outcome) {
    md.push_str("### Channels\n\n");
    md.push_str("Everything else that shapes the agent's behaviour must be equal, or named in `allow-changed`.\n\n");
    md.push_str("| Channel | Result | Base → head |\n| --- | --- | --- |\n");
    for (channel, field) in CHANNELS {
        let changed = c.changed.iter().find(|x| x.channel == *channel);
        let (mark, values) = match changed {
            Some(x) => {
                let mark = if *channel == "prompt" {
                    "✏️ changed: the change under test"
                } else if c.unexpected.contains(channel) {
                    "❌ changed, not allowed"
                } else {
                    "☑️ changed, allowed by `allow-changed`"
                };
                (mark, format!("{} → {}", shown(&x.base), shown(&x.head)))
            }
            None => match result.receipt.get(*field) {
                None => ("➖ recorded by neither", "—".to_string()),
                Some(v) => ("✅ unchanged", shown(v)),
            },
        };
        md.push_str(&format!("| {channel} | {} | {values} |\n", prose(mark)));
    }
    md.push('\n');
    for n in &c.notes {
        md.push_str(&format!("- {}\n", prose(n)));
    }
    if !c.notes.is_empty() {
        md.push('\n');
    }
}

/// Findings added and removed, most severe first, within the page's budget.
fn findings(md: &mut String, f: &FindingsDiff, room: &mut usize) {
    md.push_str(&format!(
        "### Findings\n\n{} added, {} removed, {} kept, {} reworded only (case, whitespace or punctuation).\n\n",
        f.added.len(),
        f.removed.len(),
        f.kept.len(),
        f.reworded.len()
    ));
    if !f.added.is_empty() || !f.removed.is_empty() {
        let mut table = Table::new(&["Change", "Severity", "Finding"]);
        let rows = f
            .added
            .iter()
            .map(|e| ("➕ added", e))
            .chain(f.removed.iter().map(|e| ("➖ removed", e)));
        let total = f.added.len() + f.removed.len();
        for (what, e) in rows {
            if !table.row(
                &[what.to_string(), severity_cell(e.severity).into(), entry(e)],
                room,
            ) {
                break;
            }
        }
        md.push_str(&table.md);
        if table.rows < total {
            md.push_str(&format!(
                "\n{} more did not fit: the two runs' outputs have them all.\n",
                total - table.rows
            ));
        }
        md.push('\n');
    }
    if !f.reworded.is_empty() {
        md.push_str(&format!(
            "<details><summary>{} reworded only</summary>\n\n",
            f.reworded.len()
        ));
        for (b, h) in &f.reworded {
            let line = format!(
                "- {} → {}\n",
                cell(&clip(b, MAX_CELL_CHARS)),
                cell(&clip(h, MAX_CELL_CHARS))
            );
            if line.len() > *room {
                break;
            }
            *room -= line.len();
            md.push_str(&line);
        }
        md.push_str("\n</details>\n\n");
    }
}

fn entry(e: &Entry) -> String {
    cell(&clip(&e.text, MAX_CELL_CHARS))
}
