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
/// On a terminal, more fit; past this many the summary has the rest.
pub(crate) const LINES_PER_LEVEL: usize = 50;

pub(crate) struct Console {
    pub(crate) in_actions: bool,
}

impl Report for Console {
    fn report(&mut self, result: &mut Outcome) -> Result<(), Error> {
        if let Some((audit, format)) = &result.audit {
            return print(&[audit_text(audit, *format, self.in_actions)]);
        }
        let mut lines = Vec::new();
        let limit = if self.in_actions {
            ANNOTATIONS_PER_LEVEL
        } else {
            LINES_PER_LEVEL
        };
        let all = annotations::collect(result, limit);
        for level in [Level::Failure, Level::Warning, Level::Notice] {
            let of_level: Vec<&Annotation> = all.of_level(level).collect();
            lines.extend(self.within_budget(level, &of_level, all.total(level), limit));
        }
        if self.in_actions {
            lines.push(format!(
                "prompt-receipt: {} ({})",
                one_line(&super::verdict::of(result).plain()),
                result.conclusion().as_str()
            ));
        } else {
            lines.push(super::render_summary(result, &super::Page::terminal()));
        }
        print(&lines)
    }
}

/// The audit's table for stdout: Markdown, or JSON (on one line in Actions,
/// so no line of it can read as a workflow command).
fn audit_text(
    audit: &crate::audit::Audit,
    format: crate::inputs::Format,
    in_actions: bool,
) -> String {
    match format {
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
    /// Past the runner's limit an annotation is dropped silently, so the last
    /// slot says how many more there are and where to find them.
    fn within_budget(
        &self,
        level: Level,
        list: &[&Annotation],
        total: usize,
        limit: usize,
    ) -> Vec<String> {
        if total <= limit {
            return list.iter().map(|a| self.line(a)).collect();
        }
        let shown = limit - 1;
        let mut lines: Vec<String> = list[..shown].iter().map(|a| self.line(a)).collect();
        let rest = total - shown;
        let name = level.command();
        lines.push(if self.in_actions {
            workflow_command(
                name,
                &[("title", "More annotations".to_string())],
                &format!("{rest} more {name} annotations did not fit the runner's limit of {limit} per step; see the job summary"),
            )
        } else {
            format!("{name}: ... and {rest} more; see the summary below and the receipt")
        });
        lines
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
                one_line(&a.message)
            )
        }
    }
}
