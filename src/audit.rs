//! `audit`: which instructions did each run get? A folder of receipts
//! (`usage.json`), statements (`usage.intoto.json`) or bundles (`gh
//! attestation download`'s `.jsonl`), downloaded from many runs, read once
//! each and told run by run, ordered by the time recorded: the agent, its CLI
//! version, the models, the prompt and chain hashes, the verdict, and which
//! of them changed from the run before. One pass over the files, one sort:
//! linear in the number of receipts but for the sort.

use std::collections::HashSet;
use std::path::{Path, PathBuf};

use serde::Serialize;
use serde_json::Value;

use crate::error::Error;
use crate::limits;
use crate::receipt::statement;

/// One run, as its receipt or statement tells it.
#[derive(Clone, Debug, Serialize)]
pub(crate) struct Run {
    /// When it was recorded (a statement's `recorded_at`), else the file's
    /// modification time: a receipt holds no time.
    pub(crate) time: String,
    /// `recorded_at` or `file`.
    pub(crate) time_from: &'static str,
    pub(crate) agent: String,
    pub(crate) cli_version: Option<String>,
    pub(crate) models: Vec<String>,
    pub(crate) prompt_sha256: Option<String>,
    pub(crate) chain_sha256: Option<String>,
    pub(crate) verdict: String,
    /// The workflow run, when a statement names it.
    pub(crate) run_id: Option<String>,
    /// The file, relative to the folder (`#N`: the bundle's line).
    pub(crate) source: String,
    /// Which of agent, cli_version, models, prompt_sha256, chain_sha256 and
    /// verdict differ from the run before.
    pub(crate) changed: Vec<&'static str>,
    #[serde(skip)]
    order: (i128, String),
    #[serde(skip)]
    from_statement: bool,
    #[serde(skip)]
    key: String,
}

/// The table, and what was read to make it.
#[derive(Clone, Debug, Serialize)]
pub(crate) struct Audit {
    pub(crate) folder: String,
    pub(crate) runs: Vec<Run>,
    /// Files read (JSON and JSON lines).
    pub(crate) files_read: usize,
    /// Files that looked like a statement or bundle and could not be read, with why.
    pub(crate) unreadable: Vec<(String, String)>,
}

/// Reads `dir` and makes the table.
pub(crate) fn audit(dir: &Path, shown: &str) -> Result<Audit, Error> {
    let files = walk(dir, shown)?;
    let mut runs: Vec<Run> = Vec::new();
    let mut unreadable = Vec::new();
    let root = std::fs::canonicalize(dir).unwrap_or_else(|_| dir.to_path_buf());
    for path in &files {
        let rel = path
            .strip_prefix(dir)
            .unwrap_or(path)
            .to_string_lossy()
            .into_owned();
        match read_one(path, &root, &rel) {
            Ok(found) => runs.extend(found),
            Err(why) => unreadable.push((rel, why)),
        }
    }
    let runs = order_and_mark(dedupe(runs));
    Ok(Audit {
        folder: shown.to_string(),
        runs,
        files_read: files.len(),
        unreadable,
    })
}

/// Every `.json` and `.jsonl` regular file under `dir`, links not followed,
/// in a stable order; bounded in entries and depth.
fn walk(dir: &Path, shown: &str) -> Result<Vec<PathBuf>, Error> {
    let fail = |why: String| Error::in_file(shown, format!("audit folder `{shown}`: {why}"));
    let mut stack = vec![(dir.to_path_buf(), 0usize)];
    let (mut files, mut seen) = (Vec::new(), 0usize);
    while let Some((folder, depth)) = stack.pop() {
        let entries = std::fs::read_dir(&folder).map_err(|e| {
            fail(format!(
                "cannot read `{}` ({e}); give a folder of downloaded receipts",
                folder.display()
            ))
        })?;
        for entry in entries.flatten() {
            seen += 1;
            if seen > limits::FOLDER_ENTRIES {
                return Err(fail(format!(
                    "holds more than {} entries; audit a narrower folder",
                    limits::FOLDER_ENTRIES
                )));
            }
            let Ok(kind) = entry.file_type() else {
                continue;
            };
            let path = entry.path();
            if kind.is_dir() && depth < limits::AUDIT_DEPTH {
                stack.push((path, depth + 1));
            } else if kind.is_file()
                && path
                    .extension()
                    .is_some_and(|e| e == "json" || e == "jsonl")
            {
                files.push(path);
            }
        }
    }
    files.sort();
    Ok(files)
}

/// The runs one file holds: a receipt holds one, a bundle file one a line;
/// any other JSON (a review, a schema) none.
fn read_one(path: &Path, root: &Path, rel: &str) -> Result<Vec<Run>, String> {
    let bytes = crate::workspace::read_contained(path, &[root], limits::STATEMENT_BYTES)
        .map_err(|why| why.why(rel))?;
    let mtime = std::fs::metadata(path).and_then(|m| m.modified()).ok();
    let whole: Option<Value> = serde_json::from_slice(&bytes).ok();
    if let Some(receipt) = &whole
        && receipt.get("receipt_version").is_some()
        && receipt.get("prompt_sha").is_some()
    {
        return Ok(vec![of_receipt(receipt, mtime, rel)]);
    }
    let looks_ours = match &whole {
        Some(v) => statement::kind_of(v).is_some(),
        None => rel.ends_with(".jsonl"),
    };
    if !looks_ours {
        return Ok(Vec::new());
    }
    let attested = statement::parse(rel, &bytes).map_err(|e| e.message().to_string())?;
    Ok(attested
        .statements
        .iter()
        .enumerate()
        .map(|(i, s)| {
            let source = if attested.statements.len() > 1 {
                format!("{rel}#{}", i + 1)
            } else {
                rel.to_string()
            };
            of_statement(&s["predicate"], mtime, source)
        })
        .collect())
}

fn text(v: &Value, pointer: &str) -> Option<String> {
    v.pointer(pointer)
        .and_then(Value::as_str)
        .map(str::to_string)
}

/// A receipt's run: no time of its own, no conclusion (the gate's and the
/// verification's results stand for it).
fn of_receipt(v: &Value, mtime: Option<std::time::SystemTime>, rel: &str) -> Run {
    let valid = v.pointer("/validation/valid").and_then(Value::as_bool);
    let verified = v.pointer("/verification/verified").and_then(Value::as_bool);
    let findings = v.get("findings_count").and_then(Value::as_u64);
    let mut verdict = match (verified, valid) {
        (Some(false), _) => "not verified".to_string(),
        (_, Some(false)) => "invalid".to_string(),
        (_, Some(true)) => "valid".to_string(),
        _ => "recorded".to_string(),
    };
    if let Some(n) = findings {
        verdict.push_str(&format!(", {n} findings"));
    }
    let cli = text(v, "/session/cli_version").or_else(|| text(v, "/codex_version"));
    run(v, (None, mtime), cli, verdict, None, rel.to_string(), false)
}

/// A statement's run, from its predicate. Its receipt is `receipt` and
/// `claimed` together (what was recomputed, and what the session record
/// says), as `usage.json` holds them: the run reads as its receipt does.
fn of_statement(p: &Value, mtime: Option<std::time::SystemTime>, source: String) -> Run {
    let mut whole = p.get("receipt").cloned().unwrap_or(Value::Null);
    if let (Some(r), Some(Value::Object(claimed))) = (whole.as_object_mut(), p.get("claimed")) {
        r.extend(claimed.iter().map(|(k, v)| (k.clone(), v.clone())));
    }
    let receipt = &whole;
    let mut verdict = text(p, "/verdict/conclusion").unwrap_or_else(|| "unknown".into());
    if let Some(n) = p.pointer("/verdict/findings").and_then(Value::as_u64) {
        verdict.push_str(&format!(", {n} findings"));
    }
    let recorded = text(p, "/recorded_at");
    let cli = text(p, "/claimed/session/cli_version").or_else(|| text(p, "/agent/cli_version"));
    let run_id = text(p, "/workflow/run_id");
    run(
        receipt,
        (recorded, mtime),
        cli,
        verdict,
        run_id,
        source,
        true,
    )
}

fn run(
    receipt: &Value,
    (recorded, mtime): (Option<String>, Option<std::time::SystemTime>),
    cli_version: Option<String>,
    verdict: String,
    run_id: Option<String>,
    source: String,
    from_statement: bool,
) -> Run {
    let models: Vec<String> = match receipt.get("models").and_then(Value::as_array) {
        Some(list) if !list.is_empty() => list
            .iter()
            .filter_map(|m| m.as_str().map(String::from))
            .collect(),
        _ => text(receipt, "/model").into_iter().collect(),
    };
    let at_recorded = recorded.as_deref().and_then(parse_rfc3339);
    let (nanos, time, time_from) = match (at_recorded, mtime) {
        (Some(secs), _) => (
            i128::from(secs) * 1_000_000_000,
            recorded.unwrap_or_default(),
            "recorded_at",
        ),
        (None, Some(t)) => (nanos_of(t), crate::receipt::attest::rfc3339(t), "file"),
        (None, None) => (0, String::new(), "file"),
    };
    let key = format!("{}\0{}", folder_of(&source), owned_key(receipt));
    Run {
        time,
        time_from,
        agent: text(receipt, "/agent").unwrap_or_else(|| "codex".into()),
        cli_version,
        models,
        prompt_sha256: text(receipt, "/prompt_sha"),
        chain_sha256: text(receipt, "/agents_sha"),
        verdict,
        run_id,
        order: (nanos, source.clone()),
        source,
        changed: Vec::new(),
        from_statement,
        // The same receipt in two files of one folder (usage.json beside its
        // statement: one artifact) is one run; in two folders, two runs.
        key,
    }
}

/// The folder of a file named relative to the audited one.
fn folder_of(source: &str) -> &str {
    source.rsplit_once('/').map_or("", |(dir, _)| dir)
}

/// The receipt's own keys, canonically: what identifies a run.
fn owned_key(receipt: &Value) -> String {
    use sha2::Digest;
    let mut hash = sha2::Sha256::new();
    // Keys in order (a `Map` is sorted), each with its value: no copy made.
    for (k, v) in receipt.as_object().into_iter().flatten() {
        if crate::receipt::OWNED_KEYS.contains(&k.as_str()) {
            hash.update(k.as_bytes());
            hash.update([0]);
            let _ = serde_json::to_writer(HashWriter(&mut hash), v);
            hash.update([0]);
        }
    }
    hex::encode(hash.finalize())
}

/// Serialized JSON straight into the hash.
struct HashWriter<'a>(&'a mut sha2::Sha256);

impl std::io::Write for HashWriter<'_> {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        sha2::Digest::update(self.0, buf);
        Ok(buf.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

fn nanos_of(t: std::time::SystemTime) -> i128 {
    match t.duration_since(std::time::UNIX_EPOCH) {
        Ok(d) => d.as_nanos() as i128,
        Err(e) => -(e.duration().as_nanos() as i128),
    }
}

/// `YYYY-MM-DDTHH:MM:SSZ` (what `run` writes) as seconds since the epoch.
fn parse_rfc3339(s: &str) -> Option<i64> {
    let b = s.as_bytes();
    if b.len() != 20 || b[4] != b'-' || b[7] != b'-' || b[10] != b'T' || b[19] != b'Z' {
        return None;
    }
    let n = |r: std::ops::Range<usize>| s.get(r)?.parse::<i64>().ok();
    let (y, m, d) = (n(0..4)?, n(5..7)?, n(8..10)?);
    let (hh, mm, ss) = (n(11..13)?, n(14..16)?, n(17..19)?);
    // Howard Hinnant's days_from_civil.
    let y = if m <= 2 { y - 1 } else { y };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let doy = (153 * (if m > 2 { m - 3 } else { m + 9 }) + 2) / 5 + d - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    let days = era * 146_097 + doe - 719_468;
    Some(days * 86_400 + hh * 3600 + mm * 60 + ss)
}

/// One row per run: a statement wins over the receipt it carries.
fn dedupe(mut runs: Vec<Run>) -> Vec<Run> {
    runs.sort_by_key(|r| !r.from_statement);
    let mut seen = HashSet::new();
    runs.retain(|r| seen.insert(r.key.clone()));
    runs
}

/// Ordered by time recorded (then by file), each marked with what changed.
fn order_and_mark(mut runs: Vec<Run>) -> Vec<Run> {
    runs.sort_by(|a, b| a.order.cmp(&b.order));
    for i in 1..runs.len() {
        let (before, now) = runs.split_at_mut(i);
        let (a, b) = (&before[i - 1], &mut now[0]);
        let pairs: [(&'static str, bool); 6] = [
            ("agent", a.agent != b.agent),
            ("cli_version", a.cli_version != b.cli_version),
            ("models", a.models != b.models),
            ("prompt_sha256", a.prompt_sha256 != b.prompt_sha256),
            ("chain_sha256", a.chain_sha256 != b.chain_sha256),
            // A receipt has no conclusion: its verdict is said in other
            // words, compared only with another receipt's.
            (
                "verdict",
                a.from_statement == b.from_statement && a.verdict != b.verdict,
            ),
        ];
        b.changed = pairs.iter().filter(|(_, c)| *c).map(|(n, _)| *n).collect();
    }
    runs
}

/// The table in Markdown: one row per run, each changed value marked.
pub(crate) fn markdown(a: &Audit) -> String {
    use crate::markdown::{cell, short_hash};
    let mut out = format!(
        "## Agent runs in {}\n\n{} runs from {} files, oldest first; **▲** marks a value that differs from the run before.\n\n",
        crate::markdown::code(&a.folder),
        a.runs.len(),
        a.files_read
    );
    out.push_str(
        "| # | recorded | agent | CLI | models | prompt | chain | verdict | changed | file |\n",
    );
    out.push_str("| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |\n");
    for (i, r) in a.runs.iter().enumerate() {
        let mark = |field: &str, value: String| {
            if r.changed.contains(&field) {
                format!("**▲** {value}")
            } else {
                value
            }
        };
        let hash = |h: &Option<String>| {
            h.as_deref()
                .map_or("–".into(), |h| crate::markdown::code(&short_hash(h)))
        };
        let time = if r.time_from == "file" {
            format!("{} (file)", r.time)
        } else {
            r.time.clone()
        };
        out.push_str(&format!(
            "| {} | {} | {} | {} | {} | {} | {} | {} | {} | {} |\n",
            i + 1,
            cell(&time),
            mark("agent", cell(&r.agent)),
            mark("cli_version", cell(r.cli_version.as_deref().unwrap_or("–"))),
            mark("models", cell(&r.models.join(", "))),
            mark("prompt_sha256", hash(&r.prompt_sha256)),
            mark("chain_sha256", hash(&r.chain_sha256)),
            mark("verdict", cell(&r.verdict)),
            cell(
                &r.changed
                    .iter()
                    .map(|c| c.trim_end_matches("_sha256"))
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
            cell(&r.source),
        ));
    }
    for (file, why) in &a.unreadable {
        out.push_str(&format!("\n- not read: {}: {}", cell(file), cell(why)));
    }
    out.push('\n');
    out
}

/// The table as plain text, for a terminal or the log: columns aligned,
/// nothing escaped for Markdown (nothing renders it there), every value one
/// safe line ([`crate::escape::one_line`]: no control or invisible
/// character, no workflow command).
pub(crate) fn plain(a: &Audit) -> String {
    use crate::escape::one_line;
    let short = |h: &Option<String>| {
        h.as_deref()
            .map_or("–".to_string(), |h| h.chars().take(12).collect())
    };
    let mut rows = vec![
        [
            "#", "recorded", "agent", "CLI", "models", "prompt", "chain", "verdict", "changed",
            "file",
        ]
        .map(String::from)
        .to_vec(),
    ];
    for (i, r) in a.runs.iter().enumerate() {
        let mark = |field: &str, value: String| {
            if r.changed.contains(&field) {
                format!("▲ {value}")
            } else {
                value
            }
        };
        let time = if r.time_from == "file" {
            format!("{} (file)", r.time)
        } else {
            r.time.clone()
        };
        let changed: Vec<&str> = r
            .changed
            .iter()
            .map(|c| c.trim_end_matches("_sha256"))
            .collect();
        rows.push(
            [
                (i + 1).to_string(),
                time,
                mark("agent", r.agent.clone()),
                mark("cli_version", r.cli_version.clone().unwrap_or("–".into())),
                mark("models", r.models.join(", ")),
                mark("prompt_sha256", short(&r.prompt_sha256)),
                mark("chain_sha256", short(&r.chain_sha256)),
                mark("verdict", r.verdict.clone()),
                changed.join(", "),
                r.source.clone(),
            ]
            .map(|v| one_line(&v).into_owned())
            .to_vec(),
        );
    }
    let widths: Vec<usize> = (0..rows[0].len())
        .map(|c| rows.iter().map(|r| r[c].chars().count()).max().unwrap_or(0))
        .collect();
    let mut out = format!(
        "Agent runs in {}: {} runs from {} files, oldest first; ▲ marks a value that differs from the run before.\n\n",
        one_line(&a.folder),
        a.runs.len(),
        a.files_read
    );
    for row in &rows {
        let cells: Vec<String> = row
            .iter()
            .zip(&widths)
            .map(|(v, w)| format!("{v}{}", " ".repeat(w - v.chars().count())))
            .collect();
        out.push_str(cells.join("  ").trim_end());
        out.push('\n');
    }
    for (file, why) in &a.unreadable {
        out.push_str(&format!(
            "not read: {}: {}\n",
            one_line(file),
            one_line(why)
        ));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn times_read_back_as_written() {
        use std::time::{Duration, UNIX_EPOCH};
        for secs in [0u64, 951_782_400, 1_796_211_804] {
            let t = UNIX_EPOCH + Duration::from_secs(secs);
            let s = crate::receipt::attest::rfc3339(t);
            assert_eq!(parse_rfc3339(&s), Some(secs as i64), "{s}");
        }
        assert_eq!(parse_rfc3339("2026-12-02 11:43:24Z"), None);
    }
}
