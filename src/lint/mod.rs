//! Workflow lint: the seed's failure modes, caught before a run.
//!
//! Reads `.github/workflows/*.yml` and `*.yaml` with serde_yaml (anchors,
//! aliases and merge keys resolved) and reports, with file and line: a
//! codex-action step with both `prompt` and `prompt-file`; a `codex-version`
//! that is missing, `latest` or a range; a checkout before an agent step without
//! `fetch-depth: 0`, or with credentials left in the checkout; and a
//! prompt-receipt step whose inputs describe another run than the codex-action
//! step of its job. serde_yaml keeps no positions for values, so lines are
//! found in the text of each step.

use std::fs;

use serde_yaml::{Mapping, Value};

use crate::level::Level;
use crate::version::is_exact_version;
use crate::workspace::Workspace;

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Lint {
    pub level: Level,
    pub file: String,
    pub line: u64,
    pub message: String,
}

/// Lints every workflow of the repository.
pub fn lint_workflows(ws: &Workspace) -> Vec<Lint> {
    let dir = ws.root().join(".github/workflows");
    let Ok(entries) = fs::read_dir(&dir) else {
        return Vec::new();
    };
    let mut files: Vec<_> = entries
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|e| e == "yml" || e == "yaml") && p.is_file())
        .collect();
    files.sort();
    let mut out = Vec::new();
    for path in files {
        let shown = ws.relative(&path);
        match fs::read(&path) {
            Ok(bytes) if bytes.len() <= 4 * 1024 * 1024 => {
                out.extend(lint(&shown, &String::from_utf8_lossy(&bytes)))
            }
            Ok(_) => out.push(Lint {
                level: Level::Warning,
                file: shown,
                line: 1,
                message: "over 4 MiB: not linted".into(),
            }),
            Err(e) => out.push(Lint {
                level: Level::Warning,
                file: shown,
                line: 1,
                message: format!("cannot be read: {e}"),
            }),
        }
    }
    out
}

/// A step and where its text is.
struct Step<'a> {
    map: &'a Mapping,
    uses: String,
    /// 0-based line range of the step's text: its `- ` line up to the next step.
    lines: Option<(usize, usize)>,
}

impl Step<'_> {
    fn input(&self, key: &str) -> Option<String> {
        match self.map.get("with").and_then(|w| w.get(key)) {
            Some(Value::String(s)) => Some(s.trim().to_string()),
            Some(Value::Number(n)) => Some(n.to_string()),
            Some(Value::Bool(b)) => Some(b.to_string()),
            Some(Value::Null) | None => None,
            Some(other) => Some(
                serde_yaml::to_string(other)
                    .unwrap_or_default()
                    .trim()
                    .to_string(),
            ),
        }
    }

    fn is(&self, action: &str) -> bool {
        let name = self
            .uses
            .split('@')
            .next()
            .unwrap_or("")
            .trim_end_matches('/');
        name.eq_ignore_ascii_case(action)
    }
}

/// Lints one workflow's text. `file` names it in the results.
pub fn lint(file: &str, text: &str) -> Vec<Lint> {
    // YAML counts a lone CR as a line break; so do we, or the parser's line
    // numbers and ours would disagree (found by the workflow_lint fuzz target).
    let text = &line_breaks(text);
    let mut out = Vec::new();
    let mut value: Value = match serde_yaml::from_str(text) {
        Ok(v) => v,
        Err(e) => {
            let line = e.location().map_or(1, |l| l.line() as u64);
            return vec![Lint {
                level: Level::Failure,
                file: file.into(),
                line,
                message: format!(
                    "not valid YAML: {}",
                    crate::escape::one_line(&e.to_string())
                ),
            }];
        }
    };
    let _ = value.apply_merge();
    let lines: Vec<&str> = text.lines().collect();
    let mut occurrences = Occurrences::new(&lines);
    let Some(jobs) = value.get("jobs").and_then(Value::as_mapping) else {
        return out;
    };
    for (_, job) in jobs {
        let Some(steps) = job.get("steps").and_then(Value::as_sequence) else {
            continue;
        };
        let steps: Vec<Step> = steps
            .iter()
            .filter_map(Value::as_mapping)
            .map(|map| {
                let uses = map
                    .get("uses")
                    .and_then(Value::as_str)
                    .unwrap_or("")
                    .trim()
                    .to_string();
                let lines = (!uses.is_empty())
                    .then(|| occurrences.next(&uses))
                    .flatten();
                Step { map, uses, lines }
            })
            .collect();
        let push =
            |out: &mut Vec<Lint>, level: Level, step: &Step, key: Option<&str>, message: String| {
                let line = step.lines.map_or(1, |(start, end)| {
                    key.and_then(|k| {
                        (start..end).find(|i| {
                            lines[*i]
                                .trim_start()
                                .trim_start_matches("- ")
                                .starts_with(&format!("{k}:"))
                        })
                    })
                    .unwrap_or(start) as u64
                        + 1
                });
                out.push(Lint {
                    level,
                    file: file.into(),
                    line,
                    message,
                });
            };
        let agent_steps: Vec<usize> = (0..steps.len())
            .filter(|i| steps[*i].is("openai/codex-action"))
            .collect();
        for &i in &agent_steps {
            let step = &steps[i];
            if step.input("prompt").is_some() && step.input("prompt-file").is_some() {
                push(&mut out, Level::Failure, step, Some("prompt"), "this codex-action step sets both `prompt` and `prompt-file`: the action rejects that; keep the one versioned source, `prompt-file`".into());
            }
            match step.input("codex-version") {
                None => push(&mut out, Level::Failure, step, None, "`codex-version` is not set: codex-action then installs whatever npm serves that day; pin an exact version such as 0.169.0".into()),
                Some(v) if v.contains("${{") => push(&mut out, Level::Notice, step, Some("codex-version"), format!("`codex-version` comes from `{v}`: make sure it resolves to an exact version, and give the same value to prompt-receipt")),
                Some(v) if !is_exact_version(&v) => push(&mut out, Level::Failure, step, Some("codex-version"), format!("`codex-version` is `{v}`, a tag or a range: pin an exact version such as 0.169.0")),
                Some(_) => {}
            }
        }
        if let Some(&first_agent) = agent_steps.first() {
            let checkouts: Vec<&Step> = steps[..first_agent]
                .iter()
                .filter(|s| s.is("actions/checkout"))
                .collect();
            if checkouts.is_empty() {
                push(&mut out, Level::Warning, &steps[first_agent], None, "no actions/checkout runs before this agent step: the agent reviews whatever is in the workspace".into());
            }
            for c in checkouts {
                if c.input("fetch-depth").as_deref() != Some("0") {
                    push(&mut out, Level::Warning, c, Some("fetch-depth"), "this checkout is shallow (no `fetch-depth: 0`): `git describe` cannot see tags, so the receipt cannot place the commit".into());
                }
                if c.input("persist-credentials").as_deref() != Some("false") {
                    push(&mut out, Level::Notice, c, Some("persist-credentials"), "the checkout leaves its token in `.git/config` where the agent can read it; set `persist-credentials: false`".into());
                }
            }
        }
        for (i, ours) in steps
            .iter()
            .enumerate()
            .filter(|(_, s)| s.uses.contains("prompt-receipt"))
        {
            let Some(agent) = agent_steps
                .iter()
                .rev()
                .find(|a| **a < i)
                .or(agent_steps.first())
                .map(|a| &steps[*a])
            else {
                continue;
            };
            let norm = |v: Option<String>, default: &str| {
                let v = v.unwrap_or_else(|| default.to_string());
                let v = v
                    .trim()
                    .trim_start_matches("./")
                    .trim_end_matches('/')
                    .to_string();
                if v.is_empty() { ".".to_string() } else { v }
            };
            for (key, our_default) in [
                ("prompt-file", ""),
                ("codex-home", ""),
                ("working-directory", "."),
                ("output-file", "artifacts/review.json"),
            ] {
                let theirs = agent.input(key);
                let mine = ours.input(key);
                if key == "codex-home" && (theirs.is_none() || mine.is_none()) {
                    continue; // a missing codex-home is said at run time
                }
                if key == "output-file" && theirs.is_none() {
                    continue;
                }
                let (t, m) = (
                    norm(theirs, if key == "working-directory" { "." } else { "" }),
                    norm(mine, our_default),
                );
                if t != m {
                    push(
                        &mut out,
                        Level::Failure,
                        ours,
                        Some(key),
                        format!(
                            "prompt-receipt's `{key}` is `{m}` but the codex-action step of this job uses `{t}`: the receipt would describe another run"
                        ),
                    );
                }
            }
        }
    }
    out
}

/// Every line break YAML knows (CRLF, CR, and YAML 1.1's NEL, LS and PS)
/// becomes LF, so the parser's line numbers and ours agree.
pub fn line_breaks(text: &str) -> String {
    text.replace("\r\n", "\n")
        .replace(['\r', '\u{85}', '\u{2028}', '\u{2029}'], "\n")
}

/// Finds the line of each `uses: X` in order, so the n-th step using X gets the
/// n-th line that says so, and the step's text around it.
struct Occurrences<'a> {
    lines: &'a [&'a str],
    seen: std::collections::HashMap<String, usize>,
}

impl<'a> Occurrences<'a> {
    fn new(lines: &'a [&'a str]) -> Self {
        Occurrences {
            lines,
            seen: Default::default(),
        }
    }

    fn next(&mut self, uses: &str) -> Option<(usize, usize)> {
        let skip = self.seen.entry(uses.to_string()).or_insert(0);
        let at = self
            .lines
            .iter()
            .enumerate()
            .filter(|(_, l)| {
                let t = l.trim_start().trim_start_matches("- ").trim_start();
                t.strip_prefix("uses:").is_some_and(|v| {
                    v.split('#')
                        .next()
                        .unwrap_or("")
                        .trim()
                        .trim_matches(['"', '\''])
                        == uses
                })
            })
            .nth(*skip)
            .map(|(i, _)| i)?;
        *skip += 1;
        // The step starts at the nearest `- ` line at or above, and runs to the
        // next line at that indent or less.
        let indent = |l: &str| l.len() - l.trim_start().len();
        let start = (0..=at)
            .rev()
            .find(|i| self.lines[*i].trim_start().starts_with("- "))
            .unwrap_or(at);
        let dash = indent(self.lines[start]);
        let end = (start + 1..self.lines.len())
            .find(|i| {
                let l = self.lines[*i];
                !l.trim().is_empty() && !l.trim_start().starts_with('#') && indent(l) <= dash
            })
            .unwrap_or(self.lines.len());
        Some((start, end))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lines_of(text: &str) -> Vec<(u64, Level)> {
        lint("w.yml", text)
            .into_iter()
            .map(|l| (l.line, l.level))
            .collect()
    }

    #[test]
    fn a_clean_workflow_is_silent() {
        let text = include_str!("../../examples/agent-review/.github/workflows/agent-review.yml");
        assert_eq!(lint("w.yml", text), vec![]);
    }

    #[test]
    fn lone_carriage_returns_and_yaml_1_1_breaks_are_lines() {
        // The same workflow, its lines ended by CR, then by NEL, LS or PS: the
        // finding is on line 6 either way (found by the workflow_lint fuzz target).
        let lines = [
            "jobs:",
            "  r:",
            "    steps:",
            "      - uses: openai/codex-action@v1",
            "        with:",
            "          prompt: a",
            "          prompt-file: b",
            "          codex-version: 0.169.0",
            "",
        ];
        for sep in ["\n", "\r", "\u{85}", "\u{2028}", "\u{2029}"] {
            assert_eq!(
                lines_of(&lines.join(sep)),
                vec![(6, Level::Failure), (4, Level::Warning)],
                "{sep:?}"
            );
        }
    }

    #[test]
    fn malformed_yaml_is_located() {
        let l = lint("w.yml", "jobs:\n  a:\n    steps: [\n");
        assert_eq!(l.len(), 1);
        assert!(
            l[0].message.starts_with("not valid YAML"),
            "{}",
            l[0].message
        );
        assert!(l[0].line >= 3);
    }

    #[test]
    fn both_prompts_and_a_range() {
        let text = "jobs:\n  r:\n    steps:\n      - uses: actions/checkout@v7\n        with:\n          fetch-depth: 0\n          persist-credentials: false\n      - uses: openai/codex-action@v1\n        with:\n          prompt: hi\n          prompt-file: p.md\n          codex-version: ^0.169\n";
        assert_eq!(
            lines_of(text),
            vec![(10, Level::Failure), (12, Level::Failure)]
        );
    }
}
