//! Annotations: a message pinned to a file and line, shown on the pull request.
//!
//! One list, built from every problem of an invocation, feeds both the
//! workflow-command annotations in the log and the check run's annotations.

use crate::base::Policy;
use crate::level::Level;
use crate::outcome::Outcome;
use crate::receipt::Mismatch;
use crate::review::findings::Severity;
use crate::review::gate::Conclusion;
use crate::review::{Review, Verdict};

/// A finding's level: high and critical fail, medium warns, the rest notes.
/// Unknown severity warns: it is seen, but not blamed on the author as an error.
pub(crate) fn level_of(s: Option<Severity>) -> Level {
    match s {
        Some(Severity::Critical | Severity::High) => Level::Failure,
        Some(Severity::Medium) | None => Level::Warning,
        Some(Severity::Low | Severity::Info) => Level::Notice,
    }
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Annotation {
    pub(crate) level: Level,
    pub(crate) path: Option<String>,
    pub(crate) line: Option<u64>,
    pub(crate) end_line: Option<u64>,
    pub(crate) column: Option<u64>,
    pub(crate) title: Option<String>,
    pub(crate) message: String,
}

/// The annotations of a run, up to a number per level, and how many there were.
#[derive(Clone, Debug, Default)]
pub(crate) struct Annotations {
    /// Most important first within each level.
    pub(crate) list: Vec<Annotation>,
    totals: [usize; 3],
    kept: [usize; 3],
    per_level: usize,
    located: usize,
}

impl Annotations {
    /// Counts an annotation, and builds it only while its level has room:
    /// 10,000 findings should not cost 10,000 strings nobody is shown.
    fn add(&mut self, level: Level, located: bool, make: impl FnOnce() -> Annotation) {
        let i = level as usize;
        self.totals[i] += 1;
        self.located += usize::from(located);
        if self.kept[i] < self.per_level {
            self.kept[i] += 1;
            self.list.push(make());
        }
    }

    /// How many annotations had a file and a line, kept or not.
    pub(crate) fn located(&self) -> usize {
        self.located
    }

    /// How many annotations of `level` the run had, kept or not.
    pub(crate) fn total(&self, level: Level) -> usize {
        self.totals[level as usize]
    }

    pub(crate) fn of_level(&self, level: Level) -> impl Iterator<Item = &Annotation> {
        self.list.iter().filter(move |a| a.level == level)
    }
}

fn note(level: Level, message: String) -> Annotation {
    Annotation {
        level,
        path: None,
        line: None,
        end_line: None,
        column: None,
        title: None,
        message,
    }
}

/// Each other check of this name on the commit that could pass: an error
/// when this receipt fails (a reader, or the merge, could take it for the
/// receipt), a notice when it passes too.
fn imitations(out: &mut Annotations, result: &Outcome) {
    let fails = result.conclusion() == crate::review::gate::Conclusion::Failure;
    let level = if fails { Level::Failure } else { Level::Notice };
    for i in &result.imitations {
        out.add(level, false, || Annotation {
            title: Some("Another check of this name".into()),
            ..note(
                level,
                format!(
                    "check run {} ({}), posted {}, is named `{}` too, and says {}; this receipt did not post it: require the check from the repository's own GitHub App (README: The strongest source), and let no other workflow use its name",
                    i.check_run_id, i.url, i.source, i.name, i.conclusion
                ),
            )
        });
    }
}

/// Every annotation of a run, keeping at most `per_level` of each level.
pub(crate) fn collect(result: &Outcome, per_level: usize) -> Annotations {
    let mut out = Annotations {
        per_level,
        ..Annotations::default()
    };
    imitations(&mut out, result);
    statement_refused(&mut out, result);
    if let Some(v) = &result.verification {
        for m in &v.mismatches {
            out.add(Level::Failure, false, || {
                let (path, message) = explain_mismatch(m, &result.usage_file);
                Annotation {
                    path: Some(path),
                    title: Some("Receipt verification failed".into()),
                    ..note(Level::Failure, message)
                }
            });
        }
    }
    if let Some(review) = &result.review {
        // A passing check does not carry failure annotations: a finding
        // reads as a warning at most there.
        let cap = if result.conclusion() == Conclusion::Failure {
            Level::Failure
        } else {
            Level::Warning
        };
        add_review(&mut out, review, cap);
    }
    if let Some(agent) = &result.agent {
        for p in &agent.problems {
            out.add(Level::Failure, false, || Annotation {
                title: Some("What reached the agent".into()),
                ..note(Level::Failure, p.clone())
            });
        }
        for n in agent.notes.iter().chain(&agent.new_skills) {
            out.add(Level::Notice, false, || note(Level::Notice, n.clone()));
        }
    }
    if let Some(c) = result.instructions_changed() {
        add_instruction_changes(&mut out, c);
    }
    if let Some(c) = &result.instructions {
        add_not_used(&mut out, c);
    }
    add_unverified(&mut out, result);
    for l in &result.lints {
        out.add(l.level, true, || Annotation {
            path: Some(l.file.clone()),
            line: Some(l.line),
            title: Some("Workflow lint".into()),
            ..note(l.level, l.message.clone())
        });
    }
    if let Some(c) = result.comparison.as_ref().filter(|c| !c.controlled) {
        let why = if !c.prompt_changed {
            "the prompt did not change between the two runs: there is nothing to compare"
                .to_string()
        } else {
            format!(
                "not a controlled prompt change: {} changed too",
                c.unexpected.join(", ")
            )
        };
        out.add(Level::Failure, false, || Annotation {
            title: Some("Comparison".into()),
            ..note(Level::Failure, why)
        });
    }
    add_layout(&mut out, result);
    for c in result.caveats.iter().filter(|c| !c.quiet) {
        out.add(c.level, false, || Annotation {
            path: c.file.clone(),
            ..note(c.level, c.message.clone())
        });
    }
    out.list.sort_by_key(|a| std::cmp::Reverse(a.level));
    out
}

/// (`verify --statement`) Why the statement is not verified, first: on a
/// terminal the first line says it, before any file.
fn statement_refused(out: &mut Annotations, result: &Outcome) {
    let Some(d) = result.decision.as_ref().filter(|_| result.statement) else {
        return;
    };
    for why in &d.fails {
        out.add(Level::Failure, false, || Annotation {
            path: Some(result.usage_file.clone()),
            title: Some("Statement not verified".into()),
            ..note(Level::Failure, why.clone())
        });
    }
}

/// The advisory layout, as a notice: the log's pointer to the binding one.
fn add_layout(out: &mut Annotations, result: &Outcome) {
    if result.layout == Some(crate::event::Layout::Advisory) {
        out.add(Level::Notice, false, || Annotation {
            title: Some("Advisory layout".into()),
            ..note(Level::Notice, advisory_pointer())
        });
    }
}

/// The log's one line on the advisory layout: what it means, and where the
/// layout that binds is shown.
fn advisory_pointer() -> String {
    format!(
        "{}, so it could have changed this step's inputs or posted this check itself: for a receipt it cannot edit, run the receipt from a `workflow_run` workflow (README: The binding layout, {})",
        crate::outcome::ADVISORY,
        crate::outcome::BINDING_LAYOUT_URL
    )
}

/// Each change of the agent's configuration the agent, pinned, did not run
/// with: a notice on the file, so the person who reviews it sees it there.
fn add_not_used(out: &mut Annotations, c: &crate::base::Check) {
    for ch in &c.not_used {
        let line = ch.head_sha.is_some().then_some(1);
        out.add(Level::Notice, line.is_some(), || Annotation {
            path: Some(ch.path.clone()),
            line,
            title: Some("Not used: the agent ran with the base's".into()),
            ..note(
                Level::Notice,
                format!(
                    "this pull request {} `{}` ({}), which the agent did not run with: it ran pinned to the base's configuration (`configuration: base`); the change takes effect once merged",
                    ch.what(),
                    ch.path,
                    ch.kind
                ),
            )
        });
    }
}

/// Each instruction file the pull request changed, on the file's first line,
/// at the level `instructions-changed` asks for.
fn add_instruction_changes(out: &mut Annotations, c: &crate::base::Check) {
    let level = match c.policy {
        Policy::Fail => Level::Failure,
        Policy::Warn => Level::Warning,
        Policy::Allow => Level::Notice,
    };
    for ch in &c.changes {
        // On the file's first line: a check run's annotation needs one.
        let line = ch.head_sha.is_some().then_some(1);
        out.add(level, line.is_some(), || Annotation {
            path: Some(ch.path.clone()),
            line,
            title: Some(if ch.runs {
                "What the agent runs changed".into()
            } else {
                "The agent's instructions changed".into()
            }),
            ..note(
                level,
                format!(
                    "this pull request {} `{}` ({}), which {}; its base has {} (`instructions-changed: {}`)",
                    ch.what(),
                    ch.path,
                    ch.kind,
                    if ch.runs {
                        "the agent's runtime runs or loads: it can change what the model sees and what the review says"
                    } else {
                        "reached the agent"
                    },
                    match &ch.base_sha {
                        Some(s) => format!("another version (sha256 {}…)", &s[..12.min(s.len())]),
                        None => "no such file".to_string(),
                    },
                    c.policy.as_str()
                ),
            )
        });
    }
}

/// What the receipt cannot vouch for: turns beyond the first, and each
/// thing not verified.
fn add_unverified(out: &mut Annotations, result: &Outcome) {
    for said in &result.timeline {
        out.add(Level::Warning, false, || Annotation {
            title: Some("More than one turn".into()),
            ..note(
                Level::Warning,
                format!(
                    "{said}: the receipt names every turn (`turns`), and cannot vouch for what the model wrote to itself or was told in an earlier turn (`single-turn: warn`; `require` fails the step)"
                ),
            )
        });
    }
    for u in result.not_verified() {
        out.add(Level::Warning, false, || Annotation {
            title: Some("Not verified".into()),
            ..note(
                Level::Warning,
                format!("not verified, missing {}: {}", u.what, u.why),
            )
        });
    }
}

/// A recorded value as a sentence shows it: a hash shortened (the receipt
/// has it in full), anything else as JSON.
fn shown(v: &serde_json::Value) -> String {
    match v {
        serde_json::Value::String(s)
            if s.len() == 64 && s.bytes().all(|b| b.is_ascii_hexdigit()) =>
        {
            format!("{}…", &s[..12])
        }
        serde_json::Value::String(s) => format!("`{s}`"),
        other => format!("`{other}`"),
    }
}

/// Where a verification failure belongs, and what it says: the file that
/// changed, what changed, and what to do about it.
pub(crate) fn explain_mismatch(m: &Mismatch, usage: &str) -> (String, String) {
    let (recorded, actual) = (shown(&m.recorded), shown(&m.actual));
    if let Some(first) = m.files.first() {
        let names: Vec<String> = m.files.iter().map(|f| format!("`{f}`")).collect();
        let (it, was, its) = if names.len() == 1 {
            ("it", "was", "its")
        } else {
            ("they", "were", "their")
        };
        let what = match m.field.as_str() {
            "prompt_bom" => format!("{its} byte order mark"),
            "prompt_line_endings" => format!("{its} line endings"),
            _ => format!("{its} bytes"),
        };
        let them = if names.len() == 1 { "it" } else { "them" };
        return (
            first.clone(),
            format!(
                "{} changed after {it} {was} recorded in `{usage}`: {what} differ (`{}` {recorded} recorded, {actual} now); restore {them} to the recorded version, or record the receipt again if the change is meant",
                names.join(", "),
                m.field
            ),
        );
    }
    let message = match m.field.as_str() {
        "git_sha" => format!(
            "the checkout is commit {actual}, but `{usage}` was recorded on commit {recorded}: check out the commit the receipt was recorded on (give both jobs the same `ref`)"
        ),
        "agents_sha" => format!(
            "the instruction chain the agent would receive now (sha256 {actual}) is not the one recorded in `{usage}` ({recorded}): one of its files (AGENTS.md for Codex), its budget or the agent's home changed; restore it, or record the receipt again"
        ),
        "agent" => format!(
            "`{usage}` is the receipt of agent {recorded}, but this step reads agent {actual}: give this step the `agent` of the run it verifies"
        ),
        "prompt_path" | "tools_path" | "output_path" | "schema_path" | "codex_version"
        | "model" | "codex_args" => format!(
            "`{usage}` records {} {recorded}, but this step was given {actual}: give this step the same input as the run it verifies, or record the receipt again",
            m.field
        ),
        _ => format!(
            "`{usage}` on disk says {} is {recorded}, but {actual} was written: something changed the receipt after it was written",
            m.field
        ),
    };
    (usage.to_string(), message)
}

/// The review's annotations: why it was rejected, each schema violation where
/// the value starts, each finding that names a file and line.
fn add_review(out: &mut Annotations, review: &Review, cap: Level) {
    if !review.valid() && review.violations.is_empty() {
        let position = match &review.verdict {
            Verdict::NotJson { position, .. } | Verdict::TooDeep { position } => Some(*position),
            _ => None,
        };
        out.add(Level::Failure, position.is_some(), || Annotation {
            path: Some(review.path.clone()),
            line: position.map(|p| p.line),
            column: position.map(|p| p.column),
            title: Some("Agent output rejected".into()),
            ..note(Level::Failure, review.summary())
        });
    }
    if let Some(problem) = &review.findings.problem {
        out.add(Level::Failure, false, || Annotation {
            path: Some(review.path.clone()),
            title: Some("Findings unreadable".into()),
            ..note(Level::Failure, format!("`{}`: {problem}", review.path))
        });
    }
    if let Some(said) = review.patterns_said() {
        out.add(Level::Failure, false, || Annotation {
            path: Some(review.path.clone()),
            title: Some("Schema pattern not checked".into()),
            ..note(Level::Failure, said)
        });
    }
    for v in &review.violations {
        out.add(Level::Failure, v.position.is_some(), || {
            let at = if v.instance_path.is_empty() {
                "the document".to_string()
            } else {
                format!("`{}`", v.instance_path)
            };
            Annotation {
                path: Some(review.path.clone()),
                line: v.position.map(|p| p.line),
                column: v.position.map(|p| p.column),
                title: Some(format!("Schema violation: {}", v.keyword)),
                ..note(
                    Level::Failure,
                    format!("{} (at {at}; schema {})", v.message, v.schema_path),
                )
            }
        });
    }
    for f in review.findings.list.iter().filter(|f| f.is_located()) {
        let level = level_of(f.severity).min(cap);
        out.add(level, true, || {
            let sev = f.severity.map_or("finding".to_string(), |s| s.to_string());
            Annotation {
                path: f.place.annotatable().map(str::to_string),
                line: f.line,
                end_line: f.end_line,
                title: Some(match &f.title {
                    Some(t) => format!("{sev}: {t}"),
                    None => sev,
                }),
                ..note(level, f.message.clone())
            }
        });
    }
}
