//! The workflow lint on real workflows (`workflows/` of the shared corpus:
//! public files nobody here wrote, not copied into the repository, and shipped
//! by no package registry). Each file's findings must be exactly those in
//! `tests/corpus/workflows.expected`, which was written by reading the
//! workflows and says why each finding is right.
//!
//! An extra: without the corpus (`PROMPT_RECEIPT_CORPUS`, or `shared/corpus`
//! beside the checkout or a folder above it) the test says SKIPPED on stderr
//! and passes. The patterns the corpus taught are in `tests/it/lint.rs`, on the
//! project's own fixtures.

use crate::common;

use std::collections::BTreeSet;
use std::fs;
use std::path::PathBuf;

use prompt_receipt::level::Level;
use prompt_receipt::lint::lint;

/// The public workflows of the shared corpus (see `common::corpus_dir`), or
/// `None`, said on stderr, when there is no corpus.
fn corpus() -> Option<PathBuf> {
    let Some(corpus) = common::corpus_dir() else {
        common::skipped(
            "no workflow corpus (set PROMPT_RECEIPT_CORPUS to a folder with workflows/, or put \
             shared/corpus beside the checkout), then: cargo test --locked --test it corpus_workflows::",
        );
        return None;
    };
    let dir = corpus.join("workflows");
    assert!(dir.is_dir(), "no workflows in {}", dir.display());
    Some(dir)
}

type Finding = (String, u64, &'static str, String);

fn level_name(l: Level) -> &'static str {
    match l {
        Level::Failure => "error",
        Level::Warning => "warning",
        Level::Notice => "notice",
    }
}

/// The expected findings, and the files said to be clean.
fn expected() -> (BTreeSet<Finding>, BTreeSet<String>) {
    let text =
        fs::read_to_string(common::repo_root().join("tests/corpus/workflows.expected")).unwrap();
    let mut findings = BTreeSet::new();
    let mut clean = BTreeSet::new();
    for line in text.lines() {
        let line = line.split("  #").next().unwrap().trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let mut parts = line.split_whitespace();
        let place = parts.next().unwrap();
        let (file, at) = place.rsplit_once(':').unwrap();
        if at.is_empty() {
            assert_eq!(parts.next(), Some("clean"), "{line}");
            clean.insert(file.to_string());
            continue;
        }
        let level = match parts.next().unwrap() {
            "error" => "error",
            "warning" => "warning",
            "notice" => "notice",
            other => panic!("unknown level {other} in: {line}"),
        };
        let rule = parts.next().unwrap().to_string();
        findings.insert((file.to_string(), at.parse().unwrap(), level, rule));
    }
    (findings, clean)
}

#[test]
fn every_real_workflow_gets_exactly_its_findings() {
    let Some(dir) = corpus() else { return };
    let (expected, clean) = expected();
    let mut got = BTreeSet::new();
    let mut files = BTreeSet::new();
    for entry in fs::read_dir(&dir).unwrap() {
        let path = entry.unwrap().path();
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        if !(name.ends_with(".yml") || name.ends_with(".yaml")) {
            continue;
        }
        let text = String::from_utf8(fs::read(&path).unwrap()).unwrap();
        for l in lint(&name, &text, &|_| None) {
            assert!(l.line >= 1, "{name}: a finding on line 0");
            got.insert((
                name.clone(),
                l.line,
                level_name(l.level),
                l.rule.to_string(),
            ));
        }
        files.insert(name);
    }
    assert!(files.len() >= 37, "only {} workflows read", files.len());
    let listed: BTreeSet<String> = expected
        .iter()
        .map(|f| f.0.clone())
        .chain(clean.iter().cloned())
        .collect();
    assert_eq!(
        files.difference(&listed).collect::<Vec<_>>(),
        Vec::<&String>::new(),
        "workflows in the corpus that the expected list does not mention"
    );
    let missing: Vec<&Finding> = expected.difference(&got).collect();
    let extra: Vec<&Finding> = got.difference(&expected).collect();
    assert!(
        missing.is_empty() && extra.is_empty(),
        "expected but not found: {missing:#?}\nfound but not expected: {extra:#?}"
    );
    for file in &clean {
        assert!(
            !got.iter().any(|f| &f.0 == file),
            "{file} is listed as clean"
        );
    }
}
