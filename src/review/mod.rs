//! The agent's review, checked against its schema: the primary gate.
//!
//! The output is untrusted. It is read only up to [`limits::OUTPUT_BYTES`],
//! parsed with serde_json's nesting limit, and every violation (up to
//! [`limits::LOCATED_VIOLATIONS`]) is located at the line and column where
//! the offending value starts; the first [`limits::REPORTED_VIOLATIONS`] in
//! the file are reported. Each limit, when hit, is named in the verdict.

pub(crate) mod findings;
pub(crate) mod gate;
pub(crate) mod judge;
pub mod locate;
pub mod schema;

use std::fs;
use std::sync::mpsc::Receiver;

use serde_json::Value;

use crate::error::Error;
use crate::limits;
use crate::markdown::clip;
use crate::workspace::{self, Location, Presence};
use findings::Findings;
use locate::Position;
use schema::Schema;

/// What the output file turned out to be. Each has its own message.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum Verdict {
    Missing,
    Empty,
    TooLarge { bytes: u64 },
    NotJson { position: Position, message: String },
    TooDeep { position: Position },
    Invalid,
    Valid,
}

impl Verdict {
    /// One line for people, naming the file and what to do.
    pub(crate) fn describe(&self, path: &str, errors: usize) -> String {
        format!("`{path}` {}", self.explain(errors))
    }

    /// What the verdict means, without the file's name.
    pub(crate) fn explain(&self, errors: usize) -> String {
        match self {
            Verdict::Missing => "does not exist: the agent wrote no output there; check the agent step's output-file".into(),
            Verdict::Empty => "is empty: the agent produced no output".into(),
            Verdict::TooLarge { bytes } => format!(
                "is {bytes} bytes, over the {} MiB limit on agent output; it was not read",
                limits::OUTPUT_BYTES >> 20
            ),
            Verdict::NotJson { position, message } => format!(
                "is not JSON: {message} at line {}, column {}",
                position.line, position.column
            ),
            Verdict::TooDeep { position } => format!(
                "nests deeper than the {}-level limit (at line {}, column {}); it was not validated",
                limits::OUTPUT_DEPTH, position.line, position.column
            ),
            Verdict::Invalid => format!("violates the output schema in {errors} place{}", if errors == 1 { "" } else { "s" }),
            Verdict::Valid => "satisfies the output schema".into(),
        }
    }

    pub(crate) fn as_str(&self) -> &'static str {
        match self {
            Verdict::Missing => "missing",
            Verdict::Empty => "empty",
            Verdict::TooLarge { .. } => "too-large",
            Verdict::NotJson { .. } => "not-json",
            Verdict::TooDeep { .. } => "too-deep",
            Verdict::Invalid => "invalid",
            Verdict::Valid => "valid",
        }
    }
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Violation {
    /// JSON Pointer to the offending value in the review.
    pub instance_path: String,
    /// JSON Pointer to the schema keyword that failed.
    pub(crate) schema_path: String,
    pub(crate) keyword: String,
    pub(crate) message: String,
    pub position: Option<Position>,
}

#[derive(Clone, Debug)]
pub struct Review {
    /// The output file, relative to the workspace.
    pub(crate) path: String,
    pub(crate) verdict: Verdict,
    pub(crate) draft: &'static str,
    /// Sorted by position in the file.
    pub violations: Vec<Violation>,
    /// All violations, including those past [`limits::REPORTED_VIOLATIONS`].
    pub(crate) violations_total: usize,
    /// The strings `pattern` did not decide (each also a violation).
    pub(crate) patterns: schema::PatternReport,
    pub(crate) findings: Findings,
    /// The parsed review. Kept, not dropped inside `check`: freeing 100,000
    /// nodes one by one costs milliseconds, and the binary exits without it.
    pub(crate) document: Option<Value>,
    /// The output's bytes as read (not when missing or over the size limit).
    pub(crate) bytes: Option<Vec<u8>>,
}

impl Review {
    pub(crate) fn valid(&self) -> bool {
        self.verdict == Verdict::Valid
    }

    pub(crate) fn summary(&self) -> String {
        let mut out = self.verdict.describe(&self.path, self.violations_total);
        if let Some(p) = self.patterns_said() {
            out.push_str("; ");
            out.push_str(&p);
        }
        out
    }

    /// How many strings `pattern` did not decide, and the first few by JSON
    /// Pointer: "10000 strings were not checked against the schema's
    /// `pattern` (120 needed more than 10000 backtracking steps, 9880 were
    /// left once the document's 200 ms of pattern matching was spent), first
    /// `/findings/0`, ...". `None` when every string was decided.
    pub(crate) fn patterns_said(&self) -> Option<String> {
        let p = &self.patterns;
        let n = p.limited + p.unchecked;
        if n == 0 {
            return None;
        }
        let first: Vec<String> = p
            .first
            .iter()
            .map(|f| format!("`{}`", crate::escape::one_line(&clip(f, 120))))
            .collect();
        Some(format!(
            "{n} string{} {} not checked against the schema's `pattern` ({} needed more than {} backtracking steps, {} {} left once the document's {} ms of pattern matching was spent), each counted as a violation; first {}",
            if n == 1 { "" } else { "s" },
            if n == 1 { "was" } else { "were" },
            p.limited,
            limits::PATTERN_BACKTRACK,
            p.unchecked,
            if p.unchecked == 1 { "was" } else { "were" },
            limits::PATTERN_TIME.as_millis(),
            first.join(", ")
        ))
    }

    /// Checks each finding's place against the checkout: is the file there,
    /// is the line within it? Files over 16 MiB are not counted.
    pub(crate) fn place_findings(&mut self, workspace: &std::path::Path) {
        use findings::Place;
        use std::collections::{HashMap, HashSet};
        type Fast = foldhash::fast::RandomState;
        // Many findings name one file, and many missing files one missing
        // folder: each file is read (and its lines counted) once, and a
        // folder found missing answers for every file in it. Where each
        // finding is goes first, then each path moves into its place.
        let mut lines_of: HashMap<&str, Result<Option<u64>, ()>, Fast> = HashMap::default();
        let mut missing_folders: HashSet<String, Fast> = HashSet::default();
        let found: Vec<Option<Result<Option<u64>, ()>>> = self
            .findings
            .list
            .iter()
            .map(|f| match &f.place {
                Place::Path(path) => Some(
                    *lines_of
                        .entry(path.as_str())
                        .or_insert_with(|| file_lines(workspace, path, &mut missing_folders)),
                ),
                _ => None,
            })
            .collect();
        for (f, lines) in self.findings.list.iter_mut().zip(found) {
            let (Some(lines), Place::Path(path)) = (lines, &mut f.place) else {
                continue;
            };
            let path = std::mem::take(path);
            f.place = match lines {
                Ok(Some(lines)) if f.line.is_some_and(|line| line > lines) => {
                    Place::PastEnd { path, lines }
                }
                Ok(_) => Place::InCheckout(path),
                Err(()) => Place::Missing(path),
            };
        }
    }

    /// What is worth saying about the review without failing it.
    pub(crate) fn caveats(&self) -> Vec<crate::level::Caveat> {
        self.findings
            .hint
            .iter()
            .map(|h| crate::level::Caveat::notice(h.clone()).on(&self.path))
            .collect()
    }
}

/// The lines of a file a finding names: `Ok(None)` when it is there but over
/// the size read, `Err` when it is not in the checkout. The agent names the
/// file: it may be a link to `/proc/self/pagemap`, so it is read contained.
fn file_lines(
    workspace: &std::path::Path,
    path: &str,
    missing_folders: &mut std::collections::HashSet<String, foldhash::fast::RandomState>,
) -> Result<Option<u64>, ()> {
    // The folder as the finding names it: paths here are relative and
    // normalized, so their text is the folder (and hashing text is cheaper
    // than hashing a path's components, 10,000 times over).
    let folder = path.rsplit_once('/').map(|(folder, _)| folder);
    if folder.is_some_and(|f| missing_folders.contains(f)) {
        return Err(());
    }
    let file = workspace.join(path);
    match crate::workspace::read_contained(&file, &[workspace], limits::FILE_BYTES) {
        Ok(bytes) => Ok(Some(count_lines(&bytes))),
        Err(crate::workspace::Unread::TooLarge(_)) => Ok(None),
        Err(crate::workspace::Unread::Missing) => {
            // A path under a folder that is not there: so is every file in it.
            if let Some(f) = folder.filter(|f| {
                std::fs::symlink_metadata(workspace.join(f))
                    .is_err_and(|e| e.kind() == std::io::ErrorKind::NotFound)
            }) {
                missing_folders.insert(f.to_string());
            }
            Err(())
        }
        Err(_) => Err(()),
    }
}

/// The agent's output as read, before any schema: its bytes and the parsed
/// document, or the verdict that leaves nothing to validate. Reading needs no
/// schema, so it can start while the schema is compiled elsewhere.
pub(crate) struct Output {
    /// The output file, relative to the workspace.
    pub(crate) path: String,
    /// The bytes as read (not when missing or over the size limit).
    pub(crate) bytes: Option<Vec<u8>>,
    pub(crate) document: Result<Value, Verdict>,
}

/// Reads and parses the output file at `loc`.
pub(crate) fn read(loc: &Location) -> Result<Output, Error> {
    let output = |bytes, document| Output {
        path: loc.shown.clone(),
        bytes,
        document,
    };
    if let Presence::Missing = workspace::presence("output-file", loc)? {
        return Ok(output(None, Err(Verdict::Missing)));
    }
    let size = fs::metadata(&loc.path)
        .map_err(|e| {
            Error::io(
                "input `output-file`: cannot read",
                &loc.shown,
                &loc.path,
                &e,
            )
        })?
        .len();
    if size > limits::OUTPUT_BYTES {
        return Ok(output(None, Err(Verdict::TooLarge { bytes: size })));
    }
    if size >= crate::memory::LARGE {
        crate::memory::huge_pages();
    }
    let bytes = workspace::read_required("output-file", loc, limits::OUTPUT_BYTES)?;
    let document = parse(&bytes);
    Ok(output(Some(bytes), document))
}

/// Reads the agent's output at `output` and checks it with the schema that is
/// compiled elsewhere meanwhile (`schema` hands it over). A broken schema is a
/// configuration error, reported before anything about the output.
pub(crate) fn read_and_judge(
    output: &Location,
    schema: &Receiver<Result<Schema, Error>>,
    findings_pointer: &str,
) -> Result<Review, Error> {
    let output = read(output);
    let Ok(compiled) = schema.recv() else {
        // The side that compiles the schema failed first; that error is the one reported.
        return Err(Error::new("the identities could not be collected"));
    };
    // In the order they were always reported: the schema, then the output.
    let compiled = compiled?;
    Ok(judge(output?, &compiled, findings_pointer))
}

/// Parses an output's bytes, or says why they cannot be validated.
pub(crate) fn parse(bytes: &[u8]) -> Result<Value, Verdict> {
    if bytes.len() as u64 > limits::OUTPUT_BYTES {
        return Err(Verdict::TooLarge {
            bytes: bytes.len() as u64,
        });
    }
    if bytes.iter().all(u8::is_ascii_whitespace) {
        return Err(Verdict::Empty);
    }
    let clock = crate::logging::Stopwatch::start("review");
    let parsed = serde_json::from_slice(bytes).map_err(|e| {
        let position = char_position(bytes, e.line(), e.column());
        let text = e.to_string();
        if text.contains("recursion limit exceeded") {
            Verdict::TooDeep { position }
        } else if bytes.starts_with(crate::digest::UTF8_BOM) {
            Verdict::NotJson {
                position: Position { line: 1, column: 1 },
                message: "it starts with a UTF-8 byte order mark".into(),
            }
        } else {
            Verdict::NotJson {
                position,
                message: text.split(" at line ").next().unwrap_or(&text).to_string(),
            }
        }
    });
    clock.lap("parsed");
    parsed
}

/// Checks an output against the schema: the verdict, every violation located,
/// and the findings.
pub(crate) fn judge(output: Output, schema: &Schema, findings_pointer: &str) -> Review {
    let mut review = Review {
        path: output.path,
        verdict: Verdict::Valid,
        draft: schema.draft,
        violations: Vec::new(),
        violations_total: 0,
        patterns: schema::PatternReport::default(),
        findings: Findings::default(),
        document: None,
        bytes: None,
    };
    let mut document = match output.document {
        Ok(document) => document,
        Err(verdict) => {
            review.verdict = verdict;
            review.bytes = output.bytes;
            return review;
        }
    };
    let bytes = output.bytes.unwrap_or_default();
    let clock = crate::logging::Stopwatch::start("review");
    let (violations, total) = violations(&bytes, &document, schema);
    if total > 0 {
        review.verdict = Verdict::Invalid;
    }
    review.violations = violations;
    review.violations_total = total;
    review.patterns = schema.patterns.report(&document);
    clock.lap("validated and located");
    review.findings = findings::take(&mut document, findings_pointer);
    clock.lap("findings read");
    review.document = Some(document);
    review.bytes = Some(bytes);
    review
}

/// The pure core: bytes and a schema in, a review out.
pub fn check(path: &str, bytes: &[u8], schema: &Schema, findings_pointer: &str) -> Review {
    let output = Output {
        path: path.to_string(),
        bytes: Some(bytes.to_vec()),
        document: parse(bytes),
    };
    judge(output, schema, findings_pointer)
}

/// The first [`limits::REPORTED_VIOLATIONS`] violations in file order, and
/// how many there are in all. Errors are kept as they come (they borrow the document) and
/// described only once sorted: a message costs more than finding the error.
fn violations(bytes: &[u8], value: &Value, schema: &Schema) -> (Vec<Violation>, usize) {
    schema.patterns.reset();
    // The common case, a valid review, is decided without the error machinery.
    if schema.validator.is_valid(value) {
        return (Vec::new(), 0);
    }
    let clock = crate::logging::Stopwatch::start("review");
    let mut total = 0;
    let mut errors = Vec::new();
    for error in schema.validator.iter_errors(value) {
        total += 1;
        if errors.len() < limits::LOCATED_VIOLATIONS {
            errors.push(error);
        }
    }
    if errors.is_empty() {
        return (Vec::new(), total);
    }
    clock.lap("errors collected");
    let pointers: Vec<&str> = errors.iter().map(|e| e.instance_path().as_str()).collect();
    let positions = locate::locate(bytes, &pointers);
    clock.lap("errors located");
    let mut order: Vec<usize> = (0..errors.len()).collect();
    // Stable: errors at one place keep the validator's order.
    order.sort_by(|&a, &b| {
        (positions[a].is_none(), positions[a], pointers[a]).cmp(&(
            positions[b].is_none(),
            positions[b],
            pointers[b],
        ))
    });
    let described = order
        .into_iter()
        .take(limits::REPORTED_VIOLATIONS)
        .map(|i| Violation {
            instance_path: pointers[i].to_string(),
            schema_path: errors[i].schema_path().as_str().to_string(),
            keyword: errors[i].kind().keyword().to_string(),
            message: clip(&describe(&errors[i]), limits::MESSAGE_CHARS),
            position: positions[i],
        })
        .collect();
    (described, total)
}

/// Enum values shown in a violation; a longer list is counted.
const MAX_ENUM_VALUES: usize = 12;

/// The validator's message, except where it hides what a fix needs: an
/// `enum` violation lists the allowed values (the validator names two and
/// counts "other candidates").
fn describe(error: &jsonschema::ValidationError) -> String {
    use jsonschema::error::ValidationErrorKind as Kind;
    let options = match error.kind() {
        Kind::Enum { options } => options,
        Kind::BacktrackLimitExceeded { .. } => {
            return format!(
                "the schema's `pattern` needed more than {} backtracking steps on this value, so the gate stopped and counts it as a violation; simplify the pattern (no nested repetition with backreferences)",
                limits::PATTERN_BACKTRACK
            );
        }
        _ => return error.to_string(),
    };
    let Some(values) = options.as_array() else {
        return error.to_string();
    };
    let mut shown: Vec<String> = values
        .iter()
        .take(MAX_ENUM_VALUES)
        .map(|v| clip(&v.to_string(), 60))
        .collect();
    if values.len() > MAX_ENUM_VALUES {
        shown.push(format!("and {} more", values.len() - MAX_ENUM_VALUES));
    }
    format!(
        "{} is not one of the allowed values: {}",
        clip(&error.instance().to_string(), 120),
        shown.join(", ")
    )
}

/// Lines of a file as an editor numbers them (a last line without its
/// newline counts).
fn count_lines(bytes: &[u8]) -> u64 {
    let newlines = memchr::memchr_iter(b'\n', bytes).count() as u64;
    newlines + u64::from(!bytes.is_empty() && !bytes.ends_with(b"\n"))
}

/// serde_json counts columns in bytes; people count characters.
fn char_position(bytes: &[u8], line: usize, byte_column: usize) -> Position {
    let line = line.max(1);
    let start = if line == 1 {
        0
    } else {
        bytes
            .iter()
            .enumerate()
            .filter(|(_, b)| **b == b'\n')
            .nth(line - 2)
            .map(|(i, _)| i + 1)
            .unwrap_or(bytes.len())
    };
    let end = (start + byte_column).min(bytes.len());
    let chars = String::from_utf8_lossy(&bytes[start..end])
        .trim_end_matches('\r')
        .chars()
        .count();
    Position {
        line: line as u64,
        column: chars.max(1) as u64,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::review::schema::compile;
    use serde_json::json;

    fn schema() -> Schema {
        let s = json!({
            "type": "object", "required": ["ok", "findings"], "additionalProperties": false,
            "properties": {
                "ok": {"type": "boolean"},
                "findings": {"type": "array", "items": {
                    "type": "object", "required": ["severity"],
                    "properties": {"severity": {"enum": ["low", "high"]}, "line": {"type": "integer"}}
                }}
            }
        });
        let root = std::env::temp_dir();
        compile(s.to_string().as_bytes(), "s.json", &root, &root).unwrap()
    }

    fn verdict(text: &str) -> Verdict {
        check("r.json", text.as_bytes(), &schema(), "/findings").verdict
    }

    #[test]
    fn each_failure_is_told_apart() {
        assert_eq!(verdict(""), Verdict::Empty);
        assert_eq!(verdict(" \n"), Verdict::Empty);
        let v = verdict("{\"ok\": tru}");
        assert!(
            matches!(
                v,
                Verdict::NotJson {
                    position: Position {
                        line: 1,
                        column: 11
                    },
                    ..
                }
            ),
            "{v:?}"
        );
        assert!(matches!(verdict("\u{feff}{}"), Verdict::NotJson { .. }));
        assert!(matches!(
            verdict(&"[".repeat(10_000)),
            Verdict::TooDeep { .. }
        ));
        assert_eq!(verdict(r#"{"ok": true, "findings": []}"#), Verdict::Valid);
        assert_eq!(verdict(r#"{"ok": 1, "findings": []}"#), Verdict::Invalid);
    }

    #[test]
    fn syntax_errors_count_characters() {
        let Verdict::NotJson { position, .. } = verdict("{\n  \"é€\": x}") else {
            panic!()
        };
        assert_eq!((position.line, position.column), (2, 9));
    }

    #[test]
    fn past_the_reported_limit_the_first_in_the_file_are_kept_and_all_counted() {
        // Object members are validated in key order ("a…" before "b…"), the
        // file has them the other way round: the kept ones must be the file's first.
        let n = limits::REPORTED_VIOLATIONS + 500;
        let members: Vec<String> = (0..n)
            .map(|i| format!("\"{}{i:05}\": 1", if i < n / 2 { 'b' } else { 'a' }))
            .collect();
        let text = format!("{{\n{}\n}}", members.join(",\n"));
        let root = std::env::temp_dir();
        let schema = compile(
            br#"{"additionalProperties": {"type": "string"}}"#,
            "s.json",
            &root,
            &root,
        )
        .unwrap();
        let r = check("r.json", text.as_bytes(), &schema, "/findings");
        assert_eq!(r.violations_total, n);
        assert_eq!(r.violations.len(), limits::REPORTED_VIOLATIONS);
        let lines: Vec<u64> = r
            .violations
            .iter()
            .map(|v| v.position.unwrap().line)
            .collect();
        assert_eq!(
            lines,
            (2..2 + limits::REPORTED_VIOLATIONS as u64).collect::<Vec<_>>()
        );
        assert_eq!(r.violations[0].instance_path, "/b00000");
        assert_eq!(r.violations[0].message, "1 is not of type \"string\"");
    }

    #[test]
    fn every_violation_is_located_in_file_order() {
        let text = "{\r\n  \"findings\": [\r\n    {\"severity\": \"mid\", \"line\": \"7\"},\r\n    {}\r\n  ],\r\n  \"extra\": 1\r\n}";
        let r = check("r.json", text.as_bytes(), &schema(), "/findings");
        assert_eq!(r.verdict, Verdict::Invalid);
        let got: Vec<(String, Option<(u64, u64)>)> = r
            .violations
            .iter()
            .map(|v| (v.keyword.clone(), v.position.map(|p| (p.line, p.column))))
            .collect();
        assert_eq!(
            got,
            vec![
                ("required".to_string(), Some((1, 1))),
                ("additionalProperties".to_string(), Some((1, 1))),
                ("enum".to_string(), Some((3, 18))),
                ("type".to_string(), Some((3, 33))),
                ("required".to_string(), Some((4, 5))),
            ]
        );
        assert_eq!(r.violations_total, 5);
        assert_eq!(r.findings.list.len(), 2);
    }

    #[test]
    fn hostile_messages_are_clipped() {
        let long = "x".repeat(70_000);
        let text = json!({"ok": true, "findings": [{"severity": long}]}).to_string();
        let r = check("r.json", text.as_bytes(), &schema(), "/findings");
        assert!(r.violations[0].message.chars().count() <= limits::MESSAGE_CHARS);
    }
}
