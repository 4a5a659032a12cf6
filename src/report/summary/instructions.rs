//! The trust part of the summary: what the pull request changed of the
//! agent's instructions against the trusted base (each file, both hashes, its
//! diff), and every check that could not run. Both come before the findings:
//! they say how far the findings can be believed.

use super::Table;
use crate::base::{Check, Policy};
use crate::markdown::{cell, code, fenced, prose, short_hash, shorten_middle};
use crate::outcome::Outcome;

/// The base, what was not verified, then the changed instructions (within
/// `room` bytes for the diffs). The summary puts what pinning did after
/// them, then [`limits`].
pub(super) fn sections(md: &mut String, result: &Outcome, room: &mut usize) {
    base_line(md, result);
    not_verified(md, result);
    if let Some(c) = result.instructions_changed() {
        changed(md, c, room);
    }
}

/// Which base the head was held to, always: a check run belongs to the
/// commit, and shows on every pull request of this head.
fn base_line(md: &mut String, result: &Outcome) {
    let Some(c) = &result.instructions else {
        return;
    };
    let Some(label) = c.label() else {
        return;
    };
    let merge_base = c
        .merge_base
        .as_deref()
        .filter(|m| Some(*m) != c.commit.as_deref())
        .map(|m| {
            format!(
                " (the pull request branched from it at {})",
                code(&m[..m.len().min(12)])
            )
        })
        .unwrap_or_default();
    md.push_str(&format!(
        "**Base**: {}{merge_base}, whose instructions this head is held to.\n\n",
        prose(&label)
    ));
}

/// What the agent's record never shows, whatever the pull request does:
/// said, and no cap on the conclusion.
pub(super) fn limits(md: &mut String, result: &Outcome) {
    if result.limits.is_empty() {
        return;
    }
    md.push_str(&format!(
        "### What {}'s record never shows\n\n",
        result.agent_kind().name()
    ));
    md.push_str(
        "True of every run of this agent, so it does not change the conclusion; the receipt \
         vouches for the rest.\n\n",
    );
    for u in &result.limits {
        md.push_str(&format!("- **{}**: {}\n", prose(&u.what), prose(&u.why)));
    }
    md.push('\n');
}

fn not_verified(md: &mut String, result: &Outcome) {
    let missing: Vec<_> = result.not_verified().collect();
    if missing.is_empty() {
        return;
    }
    md.push_str("### Not verified\n\n");
    if result.binding() {
        md.push_str(
            "These checks could not run, so the receipt does not vouch for what they cover. This \
             workflow is out of the pull request's reach, where a required check is what stands \
             before the merge and GitHub counts `neutral` as a pass: the conclusion is \
             `failure`.\n\n",
        );
    } else {
        md.push_str(
            "These checks could not run, so the receipt does not vouch for what they cover; the \
             conclusion is at most `neutral`.\n\n",
        );
    }
    for u in missing {
        md.push_str(&format!("- **{}**: {}\n", prose(&u.what), prose(&u.why)));
    }
    md.push('\n');
}

fn changed(md: &mut String, c: &Check, room: &mut usize) {
    if c.changes.iter().any(|ch| ch.runs) {
        md.push_str("### This pull request changes what the agent runs or reads\n\n");
        md.push_str(
            "Files marked *runs* are not instructions the agent reads but files its runtime runs or \
             loads (a hook's script, an MCP server, `.env`, a file a setting names): they can \
             change what the model is sent, where it is sent, and the answer after the model gave \
             it, and no record shows it.\n\n",
        );
    } else {
        md.push_str("### This pull request changes the agent's instructions\n\n");
    }
    let base = c
        .commit
        .as_deref()
        .map(|s| code(&s[..s.len().min(12)]))
        .unwrap_or_default();
    let what = match c.policy {
        Policy::Fail => "`instructions-changed: fail` fails the step",
        Policy::Warn => {
            "`instructions-changed: warn` makes the conclusion at most `neutral`; set it to `fail` to \
             block the merge, or have a person review these files"
        }
        Policy::Allow => "`instructions-changed: allow` lets it pass; it is said here all the same",
    };
    let followed = if c.changes.iter().any(|ch| ch.runs) {
        "its runtime ran files the pull request wrote, which can rewrite the answer itself"
    } else {
        "it followed instructions the pull request wrote"
    };
    md.push_str(&format!(
        "The agent ran with these files as this pull request has them, not as its base {base} has \
         them. Its record matches them, so the review is genuine, but {followed}. {}.\n\n",
        prose(what)
    ));
    changes_table(md, &c.changes, "instructions_changed", room);
    let mut diffs = String::new();
    for ch in &c.changes {
        let Some(diff) = &ch.diff else { continue };
        let block = format!("\n{}\n", fenced("diff", diff));
        if block.len() > *room {
            break;
        }
        *room -= block.len();
        diffs.push_str(&block);
    }
    if !diffs.is_empty() {
        md.push_str("<details open><summary>The changes, base against pull request</summary>\n");
        md.push_str(&diffs);
        md.push_str("\n</details>\n\n");
    }
}

/// The changed files as a table (path, what it is, the change, both hashes),
/// as many rows as `room` holds; the rest counted, pointing at `base.<list>`
/// in the receipt. The instruction changes' and the pinned run's not-used.
pub(super) fn changes_table(
    md: &mut String,
    changes: &[crate::base::Change],
    list: &str,
    room: &mut usize,
) {
    let mut table = Table::new(&["File", "What it is", "Change", "Base", "Pull request"]);
    let sha = |s: &Option<String>| {
        s.as_deref()
            .map_or("none".to_string(), |s| code(&short_hash(s)))
    };
    for ch in changes {
        let row = [
            code(&shorten_middle(&ch.path, super::MAX_PATH_CHARS)),
            if ch.runs {
                format!("{} (*runs*)", cell(&ch.kind))
            } else {
                cell(&ch.kind)
            },
            ch.what().to_string(),
            sha(&ch.base_sha),
            sha(&ch.head_sha),
        ];
        if !table.row(&row, room) {
            break;
        }
    }
    md.push_str(&table.md);
    md.push('\n');
    if table.rows < changes.len() {
        md.push_str(&format!(
            "{} more files are left out here; the receipt's `base.{list}` lists them all.\n\n",
            changes.len() - table.rows
        ));
    }
}
