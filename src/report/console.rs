//! The console: workflow commands in Actions (annotations people can click),
//! plain lines and the summary on a terminal.

use std::io::Write;

use super::Report;
use super::annotations::{self, Annotation};
use crate::error::Error;
use crate::escape::{one_line, workflow_command};
use crate::level::Level;
use crate::outcome::Outcome;

/// The runner records at most 10 annotations of each level per step.
pub(crate) const ANNOTATIONS_PER_LEVEL: usize = 10;
/// Lines of findings and problems the console shows in all, a screenful:
/// a review of 10,000 findings flooded the log with a megabyte. The rest
/// are in the job summary and the check run.
pub(crate) const CONSOLE_LINES: usize = 20;
/// Characters of one console line's message on a terminal (in Actions, an
/// annotation keeps the runner's 4,000: it is shown on the diff).
const TERMINAL_MESSAGE_CHARS: usize = 400;
/// The summary printed on a terminal, cut to this (its tables say how many
/// rows did not fit); the job summary has the whole page.
const TERMINAL_SUMMARY_BYTES: usize = 8 * 1024;

pub(crate) struct Console {
    pub(crate) in_actions: bool,
}

impl Report for Console {
    fn name(&self) -> &'static str {
        "console"
    }

    fn report(&mut self, result: &mut Outcome) -> Result<(), Error> {
        if let Some((audit, format)) = &result.audit {
            return print(&[audit_text(audit, *format, self.in_actions)]);
        }
        let per_level = if self.in_actions {
            ANNOTATIONS_PER_LEVEL
        } else {
            CONSOLE_LINES
        };
        let all = annotations::collect(result, per_level.min(CONSOLE_LINES));
        let mut lines = self.within_budget(&all, per_level);
        if self.in_actions {
            lines.push(format!(
                "prompt-receipt: {} ({})",
                one_line(&super::verdict::of(result).plain()),
                result.conclusion().as_str()
            ));
        } else {
            let page = super::Page {
                budget: TERMINAL_SUMMARY_BYTES,
                ..super::Page::terminal()
            };
            lines.push(super::render_summary(result, &page));
        }
        print(&lines)
    }
}

/// The audit's table for stdout: plain text, Markdown, or JSON (on one line in Actions,
/// so no line of it can read as a workflow command).
fn audit_text(
    audit: &crate::audit::Audit,
    format: crate::inputs::Format,
    in_actions: bool,
) -> String {
    match format {
        crate::inputs::Format::Text => crate::audit::plain(audit),
        crate::inputs::Format::Markdown => crate::audit::markdown(audit),
        crate::inputs::Format::Json if in_actions => {
            serde_json::to_string(audit).unwrap_or_default()
        }
        crate::inputs::Format::Json => serde_json::to_string_pretty(audit).unwrap_or_default(),
    }
}

/// Lines to stdout; a reader that has gone (`| head`) wanted no more.
fn print(lines: &[String]) -> Result<(), Error> {
    let mut out = std::io::stdout().lock();
    for line in lines {
        match writeln!(out, "{line}") {
            Ok(()) => {}
            // The result still decides the exit code.
            Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => break,
            Err(e) => return Err(Error::new(format!("cannot write to stdout: {e}"))),
        }
    }
    Ok(())
}

impl Console {
    /// Failures first, then warnings, then notices: at most `per_level` of
    /// each and [`CONSOLE_LINES`] in all. Past the runner's limit an
    /// annotation is dropped silently, so the last slot of a level says how
    /// many more there are and where; a level with no slot left is counted
    /// on one plain line.
    fn within_budget(&self, all: &annotations::Annotations, per_level: usize) -> Vec<String> {
        let mut lines = Vec::new();
        let mut unshown = Vec::new();
        for level in [Level::Failure, Level::Warning, Level::Notice] {
            let room = per_level.min(CONSOLE_LINES - lines.len());
            let total = all.total(level);
            if total == 0 {
                continue;
            }
            if room == 0 {
                let plural = if total == 1 { "" } else { "s" };
                unshown.push(format!("{total} {}{plural}", level.command()));
                continue;
            }
            let shown = if total <= room { total } else { room - 1 };
            lines.extend(all.of_level(level).take(shown).map(|a| self.line(a)));
            if total > shown {
                lines.push(self.more(level, total - shown, per_level));
            }
        }
        if !unshown.is_empty() {
            lines.push(format!(
                "prompt-receipt: {} more: {}",
                unshown.join(", "),
                if self.in_actions {
                    "see the job summary and the check run"
                } else {
                    "see the summary below and the receipt"
                }
            ));
        }
        lines
    }

    /// The last slot of a level: how many more, and where they are.
    fn more(&self, level: Level, rest: usize, limit: usize) -> String {
        let name = level.command();
        if self.in_actions {
            workflow_command(
                name,
                &[("title", "More annotations".to_string())],
                &format!(
                    "{rest} more {name} annotations did not fit the runner's limit of {limit} per step; see the job summary"
                ),
            )
        } else {
            format!("{name}: ... and {rest} more; see the summary below and the receipt")
        }
    }

    fn line(&self, a: &Annotation) -> String {
        if self.in_actions {
            let mut props: Vec<(&str, String)> = Vec::new();
            if let Some(p) = &a.path {
                props.push(("file", p.clone()));
            }
            if let Some(l) = a.line {
                props.push(("line", l.to_string()));
            }
            if let Some(e) = a.end_line {
                props.push(("endLine", e.to_string()));
            }
            if let Some(c) = a.column {
                props.push(("col", c.to_string()));
            }
            if let Some(t) = &a.title {
                props.push(("title", crate::markdown::clip(t, 200)));
            }
            workflow_command(
                a.level.command(),
                &props,
                &crate::markdown::clip(&a.message, 4000),
            )
        } else {
            let at = match (&a.path, a.line, a.column) {
                (Some(p), Some(l), Some(c)) => format!("{p}:{l}:{c}: "),
                (Some(p), Some(l), None) => format!("{p}:{l}: "),
                (Some(p), None, _) => format!("{p}: "),
                _ => String::new(),
            };
            let title = a
                .title
                .as_deref()
                .map(|t| format!("{t}: "))
                .unwrap_or_default();
            format!(
                "{}: {}{}{}",
                a.level.command(),
                one_line(&at),
                one_line(&title),
                one_line(&crate::markdown::clip(&a.message, TERMINAL_MESSAGE_CHARS))
            )
        }
    }
}
