//! Pinning to the base, in the summary: what `restore` put back before the
//! agent ran, and, in the receipt of a pinned run, what the pull request
//! changed that the agent did not run with.

use super::Table;
use crate::base::Pinned;
use crate::markdown::{code, prose, shorten_middle};
use crate::outcome::Outcome;

/// (`restore`) What the step did, and what it means for the agent.
pub(super) fn sentence(md: &mut String, result: &Outcome) {
    let Some(p) = &result.pinned else {
        return;
    };
    md.push_str(&format!(
        "**The step passes**: every file that can steer the agent (its prompt and schema, \
         instructions at every level, settings, hooks and what they run, skills) is now as the \
         base {} has it; the code under review stays the pull request's. The receipt holds the \
         agent's record to these files (`configuration: base`).\n\n",
        prose(&p.label())
    ));
}

/// (`restore`) Each file put back, and how.
pub(super) fn put_back(md: &mut String, result: &Outcome, room: &mut usize) {
    let Some(p) = result
        .pinned
        .as_ref()
        .filter(|_| result.mode == crate::inputs::Mode::Restore)
    else {
        return;
    };
    if p.files.is_empty() {
        md.push_str(
            "Nothing differed from the base: the pull request changes none of the agent's \
             configuration.\n\n",
        );
        return;
    }
    md.push_str("### Put back as the base has it\n\n");
    table(md, p, room);
}

fn table(md: &mut String, p: &Pinned, room: &mut usize) {
    let mut table = Table::new(&["File", "Done"]);
    for f in &p.files {
        let row = [
            code(&shorten_middle(&f.path, super::MAX_PATH_CHARS)),
            f.how.as_str().to_string(),
        ];
        if !table.row(&row, room) {
            break;
        }
    }
    md.push_str(&table.md);
    md.push('\n');
    if table.rows < p.files.len() {
        md.push_str(&format!(
            "{} more files are left out here.\n\n",
            p.files.len() - table.rows
        ));
    }
}

/// (`run`, pinned) The base's configuration is what the record was held to,
/// and what the pull request changed of it did not reach the agent.
pub(super) fn not_used(md: &mut String, result: &Outcome, room: &mut usize) {
    let Some(p) = result
        .pinned
        .as_ref()
        .filter(|_| result.mode != crate::inputs::Mode::Restore)
    else {
        return;
    };
    md.push_str(&format!(
        "**Pinned** (`configuration: base`): the agent's configuration is held to the base {}. \
         The receipt put the base's files back in its own checkout, as the agent workflow's \
         `mode: restore` step did before the agent, and held the agent's record to them: a \
         record that shows anything else fails (the step was skipped or edited, or something \
         wrote a file after it).\n\n",
        prose(&p.label())
    ));
    let Some(c) = result
        .instructions
        .as_ref()
        .filter(|c| !c.not_used.is_empty())
    else {
        return;
    };
    md.push_str("### Not used: the agent ran with the base's\n\n");
    md.push_str(
        "This pull request changes these files of the agent's configuration. They did not reach \
         the agent, so they do not change the verdict; they take effect once merged, and a \
         person reviews them as any other change.\n\n",
    );
    super::instructions::changes_table(md, &c.not_used, "not_used", room);
}
