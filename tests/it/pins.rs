//! Pins that are what they say (docs/pins.md). Every `uses:` of a remote
//! action in the README's YAML, the examples' workflows, this repository's
//! workflows and its composite actions is a full commit SHA with a comment
//! naming the released version, and that version and commit are a row of
//! docs/pins.md; the inputs a step gives (`with:`) and the outputs read from it
//! (`steps.<id>.outputs.<name>`) are declared by that release's action.yml,
//! kept under tests/pinned-actions/ as taken from the action's repository.
//! prompt-receipt's own steps are checked against its action.yml at the
//! commit they pin (from this repository's history). `docker://` references
//! must be by digest. What cannot be true before prompt-receipt's first
//! release (a pin of main's commit, an image digest) is a known gap: listed in
//! docs/pins.md, printed by the test, and the ignored test
//! `prompt_receipt_is_pinned_to_a_release` says so in every test run.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::process::Command;

use serde_yaml::Value;

const SELF: &str = "prompt-receipt/prompt-receipt";

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// A text whose `uses:` are checked: a workflow, an action.yml, a README block.
struct Source {
    name: String,
    /// The line of the source's first line in its file (README blocks).
    first_line: usize,
    text: String,
}

fn sources() -> Vec<Source> {
    let mut out = Vec::new();
    let readme = std::fs::read_to_string(root().join("README.md")).unwrap();
    let mut in_block: Option<(usize, String)> = None;
    for (i, line) in readme.lines().enumerate() {
        match &mut in_block {
            None if line.trim_start() == "```yaml" => in_block = Some((i + 2, String::new())),
            Some((first, text)) if line.trim_start().starts_with("```") => {
                out.push(Source {
                    name: "README.md".into(),
                    first_line: *first,
                    text: std::mem::take(text),
                });
                in_block = None;
            }
            Some((_, text)) => {
                text.push_str(line);
                text.push('\n');
            }
            None => {}
        }
    }
    let mut workflow_dirs = vec![root().join(".github/workflows")];
    for example in std::fs::read_dir(root().join("examples")).unwrap() {
        workflow_dirs.push(example.unwrap().path().join(".github/workflows"));
    }
    for dir in workflow_dirs {
        let Ok(entries) = std::fs::read_dir(&dir) else {
            continue;
        };
        let mut files: Vec<PathBuf> = entries.map(|e| e.unwrap().path()).collect();
        files.sort();
        for file in files {
            if file.extension().is_some_and(|x| x == "yml" || x == "yaml") {
                out.push(file_source(&file));
            }
        }
    }
    let mut actions = Vec::new();
    find_actions(&root(), &mut actions);
    actions.sort();
    for file in actions {
        let source = file_source(&file);
        let doc: Value = serde_yaml::from_str(&source.text).unwrap();
        if doc["runs"]["steps"].is_sequence() {
            out.push(source);
        }
    }
    out
}

fn file_source(path: &Path) -> Source {
    Source {
        name: path.strip_prefix(root()).unwrap().display().to_string(),
        first_line: 1,
        text: std::fs::read_to_string(path).unwrap(),
    }
}

/// Every action.yml of this repository (its own, composite ones, test stand-ins).
fn find_actions(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        if path.is_dir() {
            if !matches!(name.as_str(), ".git" | "target" | "node_modules") {
                find_actions(&path, out);
            }
        } else if name == "action.yml" || name == "action.yaml" {
            out.push(path);
        }
    }
}

/// docs/pins.md's table: (action, tag) to commit.
fn pins_table() -> BTreeMap<(String, String), String> {
    let text = std::fs::read_to_string(root().join("docs/pins.md")).unwrap();
    let mut table = BTreeMap::new();
    for line in text.lines().filter(|l| l.starts_with('|')) {
        let cells: Vec<&str> = line
            .split('|')
            .map(|c| c.trim().trim_matches('`'))
            .collect();
        if cells.len() > 4 && is_commit(cells[3]) {
            table.insert(
                (cells[1].to_string(), cells[2].to_string()),
                cells[3].to_string(),
            );
        }
    }
    table
}

fn is_commit(s: &str) -> bool {
    s.len() == 40
        && s.bytes()
            .all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b))
}

fn is_digest(s: &str) -> bool {
    s.strip_prefix("sha256:").is_some_and(|h| {
        h.len() == 64
            && h.bytes()
                .all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b))
    })
}

/// One `uses:` line: the reference and the version its comment names.
#[derive(Debug)]
struct Use {
    line: usize,
    reference: String,
    version: Option<String>,
}

fn uses_lines(source: &Source) -> Vec<Use> {
    let mut out = Vec::new();
    for (i, line) in source.text.lines().enumerate() {
        let t = line.trim_start();
        let t = t.strip_prefix("- ").unwrap_or(t).trim_start();
        let Some(rest) = t.strip_prefix("uses:") else {
            continue;
        };
        let (value, comment) = match rest.find(" #") {
            Some(at) => (&rest[..at], Some(rest[at + 2..].trim())),
            None => (rest, None),
        };
        let reference = value.trim().trim_matches(|c| c == '"' || c == '\'');
        let version = comment
            .and_then(|c| c.split_whitespace().next())
            .map(|v| v.trim_end_matches([';', ':', ',']).to_string())
            .filter(|v| !v.is_empty());
        out.push(Use {
            line: source.first_line + i,
            reference: reference.to_string(),
            version,
        });
    }
    out
}

/// What an action or reusable workflow declares.
#[derive(Debug, Clone, Default)]
struct Declared {
    inputs: BTreeSet<String>,
    outputs: BTreeSet<String>,
}

fn keys(v: &Value) -> BTreeSet<String> {
    v.as_mapping()
        .map(|m| {
            m.keys()
                .filter_map(|k| k.as_str().map(str::to_string))
                .collect()
        })
        .unwrap_or_default()
}

fn declared(text: &str) -> Declared {
    let doc: Value = serde_yaml::from_str(text).unwrap();
    // A reusable workflow declares under on.workflow_call (serde_yaml reads
    // the key `on` as a string).
    let call = &doc["on"]["workflow_call"];
    if !call.is_null() {
        let mut inputs = keys(&call["inputs"]);
        inputs.extend(keys(&call["secrets"]));
        return Declared {
            inputs,
            outputs: keys(&call["outputs"]),
        };
    }
    Declared {
        inputs: keys(&doc["inputs"]),
        outputs: keys(&doc["outputs"]),
    }
}

/// `owner/name[/path]@ref` split.
fn split_remote(reference: &str) -> Option<(String, String, String)> {
    let (path, git_ref) = reference.split_once('@')?;
    let mut parts = path.splitn(3, '/');
    let owner = parts.next()?;
    let name = parts.next()?;
    let sub = parts.next().unwrap_or("");
    Some((
        format!("{owner}/{name}"),
        sub.to_string(),
        git_ref.to_string(),
    ))
}

fn git(args: &[&str]) -> Option<String> {
    let out = Command::new("git")
        .arg("-C")
        .arg(root())
        .args(args)
        .output()
        .ok()?;
    out.status
        .success()
        .then(|| String::from_utf8_lossy(&out.stdout).into_owned())
}

/// The kept action.yml of a pinned release, named as tests/pinned-actions/ names it.
fn kept_file(action: &str, tag: &str) -> PathBuf {
    root()
        .join("tests/pinned-actions")
        .join(format!("{}@{tag}.yml", action.replace('/', "__")))
}

#[derive(Default)]
struct Findings {
    errors: Vec<String>,
    known_gaps: Vec<String>,
}

/// The files a pin of prompt-receipt brings: the action (everything the image
/// is built from), the collect action, or the reusable receipt workflow.
fn pinned_files(sub: &str) -> &'static [&'static str] {
    match sub {
        "" => &[
            "src",
            "action.yml",
            "Dockerfile",
            ".dockerignore",
            "Cargo.toml",
            "Cargo.lock",
        ],
        "collect" => &["collect"],
        _ => &[".github/workflows/receipt.yml"],
    }
}

/// A pin of main's commit whose files differ from this tree's: whoever
/// copies it runs an older prompt-receipt than the one this tree documents
/// and tests (the attack review found the README's receipt workflow on a
/// commit from before the fixes it describes).
fn stale(at: &str, r: &str, sub: &str, git_ref: &str, f: &mut Findings) {
    let files = pinned_files(sub);
    let mut args = vec!["diff", "--quiet", git_ref, "HEAD", "--"];
    args.extend(files);
    if git(&args).is_none() {
        let mut log = vec!["log", "-1", "--format=%H", "HEAD", "--"];
        log.extend(files);
        let newest = git(&log).unwrap_or_default();
        f.errors.push(format!(
            "{at}: `{r}`: {git_ref} is older than this tree's {}: pin {} or later (the newest commit that changed them)",
            files.join(", "),
            newest.trim()
        ));
    }
}

/// Checks one `uses:`; returns what it declares when that can be known.
fn check_use(
    at: &str,
    u: &Use,
    pins: &BTreeMap<(String, String), String>,
    f: &mut Findings,
) -> Option<Declared> {
    let r = u.reference.as_str();
    if r.starts_with("./") {
        let dir = root().join(r.trim_start_matches("./"));
        let file = if dir.is_dir() {
            dir.join("action.yml")
        } else {
            dir
        };
        return match std::fs::read_to_string(&file) {
            Ok(text) => Some(declared(&text)),
            Err(_) => {
                f.errors
                    .push(format!("{at}: `{r}`: no {} here", file.display()));
                None
            }
        };
    }
    if let Some(image) = r.strip_prefix("docker://") {
        let digest = image.split_once('@').map(|(_, d)| d);
        if digest.is_some_and(is_digest) {
            return Some(Declared {
                inputs: ["args", "entrypoint"].map(String::from).into(),
                outputs: BTreeSet::new(),
            });
        }
        if image.starts_with("ghcr.io/prompt-receipt/prompt-receipt@") {
            f.known_gaps.push(format!(
                "{at}: `{r}`: no release has pushed the image yet, so no digest to pin"
            ));
            return Some(Declared {
                inputs: ["args", "entrypoint"].map(String::from).into(),
                outputs: BTreeSet::new(),
            });
        }
        f.errors.push(format!(
            "{at}: `{r}`: a docker:// step must name its image by digest (@sha256:<64 hex>)"
        ));
        return None;
    }
    let Some((action, sub, git_ref)) = split_remote(r) else {
        f.errors
            .push(format!("{at}: `{r}`: not owner/name@<commit>"));
        return None;
    };
    if !is_commit(&git_ref) {
        f.errors.push(format!(
            "{at}: `{r}`: pinned to `{git_ref}`, not to a full commit SHA (40 hex digits)"
        ));
        return None;
    }
    let Some(version) = &u.version else {
        f.errors.push(format!(
            "{at}: `{r}`: no `# vX.Y.Z` comment naming the release of that commit"
        ));
        return None;
    };
    if action == SELF {
        // prompt-receipt itself: its action.yml at the pinned commit.
        if git(&["cat-file", "-t", &git_ref]).as_deref().map(str::trim) != Some("commit") {
            f.errors.push(format!(
                "{at}: `{r}`: {git_ref} is not a commit of this repository"
            ));
            return None;
        }
        if version == "main" {
            f.known_gaps.push(format!(
                "{at}: `{r}`: a commit of main, not a release (there is none yet): every job builds the image"
            ));
            stale(at, r, &sub, &git_ref, f);
        } else if pins.get(&(action.clone(), version.clone())) != Some(&git_ref) {
            f.errors.push(format!(
                "{at}: `{r}`: `# {version}` with this commit is not a row of docs/pins.md"
            ));
        }
        let path = if sub.is_empty() {
            "action.yml".to_string()
        } else if sub.ends_with(".yml") || sub.ends_with(".yaml") {
            sub.clone()
        } else {
            format!("{sub}/action.yml")
        };
        return match git(&["show", &format!("{git_ref}:{path}")]) {
            Some(text) => Some(declared(&text)),
            None => {
                f.errors
                    .push(format!("{at}: `{r}`: commit {git_ref} has no {path}"));
                None
            }
        };
    }
    let named = if sub.is_empty() {
        action.clone()
    } else {
        format!("{action}/{sub}")
    };
    if !(version.starts_with('v') && version[1..].starts_with(|c: char| c.is_ascii_digit())) {
        f.errors.push(format!(
            "{at}: `{r}`: its comment `# {version}` names no release (vX.Y.Z)"
        ));
        return None;
    }
    match pins.get(&(named.clone(), version.clone())) {
        Some(commit) if *commit == git_ref => {}
        Some(commit) => {
            f.errors.push(format!(
                "{at}: `{r}`: docs/pins.md has {named} {version} at {commit}, not {git_ref}"
            ));
            return None;
        }
        None => {
            f.errors.push(format!(
                "{at}: `{r}`: {named} {version} is not a row of docs/pins.md"
            ));
            return None;
        }
    }
    let kept = kept_file(&named, version);
    let Ok(text) = std::fs::read_to_string(&kept) else {
        f.errors.push(format!(
            "{at}: `{r}`: the release's action.yml is not kept at {}",
            kept.display()
        ));
        return None;
    };
    let header = text.lines().next().unwrap_or("");
    if !header.contains(&format!("/{git_ref}/")) {
        f.errors.push(format!(
            "{}: its first line does not name the commit {git_ref} it was taken from",
            kept.display()
        ));
    }
    Some(declared(&text))
}

/// Every `<prefix><id>.outputs.<name>` in `text`.
fn output_refs(text: &str, prefix: &str) -> Vec<(String, String)> {
    let word = |s: &str| {
        s.find(|c: char| !(c.is_ascii_alphanumeric() || c == '-' || c == '_'))
            .unwrap_or(s.len())
    };
    let mut out = Vec::new();
    let mut rest = text;
    while let Some(at) = rest.find(prefix) {
        let preceded = rest[..at]
            .chars()
            .next_back()
            .is_some_and(|c| c.is_ascii_alphanumeric() || c == '.' || c == '_');
        rest = &rest[at + prefix.len()..];
        if preceded {
            continue;
        }
        let id_len = word(rest);
        let id = &rest[..id_len];
        if let Some(after) = rest[id_len..].strip_prefix(".outputs.") {
            let name = &after[..word(after)];
            if !id.is_empty() && !name.is_empty() {
                out.push((id.to_string(), name.to_string()));
            }
        }
    }
    out
}

/// The steps of a job or composite action: their `with:` keys against what
/// their action declares, and `steps.<id>.outputs.<name>` in `scope`.
fn check_steps(
    at: &str,
    steps: &Value,
    scope: &str,
    declared_by: &BTreeMap<String, Option<Declared>>,
    f: &mut Findings,
) {
    let mut by_id: BTreeMap<String, Option<Declared>> = BTreeMap::new();
    for step in steps.as_sequence().into_iter().flatten() {
        let id = step["id"].as_str().map(str::to_string);
        let declared = step["uses"]
            .as_str()
            .and_then(|u| declared_by.get(u).cloned().flatten());
        if let (Some(uses), Some(d)) = (step["uses"].as_str(), &declared) {
            for key in keys(&step["with"]) {
                if !d.inputs.contains(&key) {
                    f.errors.push(format!(
                        "{at}: `{uses}` is given `{key}`, an input its action.yml does not declare"
                    ));
                }
            }
        }
        if let Some(id) = id {
            // A `run:` step's outputs are whatever it writes: not checked.
            by_id.insert(id, declared);
        }
    }
    for (id, name) in output_refs(scope, "steps.") {
        match by_id.get(&id) {
            Some(Some(d)) if !d.outputs.contains(&name) => f.errors.push(format!(
                "{at}: `steps.{id}.outputs.{name}`: the action of step `{id}` declares no output `{name}`"
            )),
            None => f.errors.push(format!(
                "{at}: `steps.{id}.outputs.{name}`: no step `{id}` here"
            )),
            _ => {}
        }
    }
}

fn check_source(source: &Source, pins: &BTreeMap<(String, String), String>, f: &mut Findings) {
    let mut declared_by: BTreeMap<String, Option<Declared>> = BTreeMap::new();
    for u in uses_lines(source) {
        let at = format!("{}:{}", source.name, u.line);
        let d = check_use(&at, &u, pins, f);
        declared_by.entry(u.reference.clone()).or_insert(d);
    }
    let at = format!("{} (from line {})", source.name, source.first_line);
    // README blocks are whole workflows, or a few steps; other text is skipped.
    let Ok(doc) = serde_yaml::from_str::<Value>(&dedent(&source.text)) else {
        return;
    };
    if doc.is_sequence() {
        check_steps(&at, &doc, "", &declared_by, f);
        return;
    }
    if doc["runs"]["steps"].is_sequence() {
        check_steps(&at, &doc["runs"]["steps"], &source.text, &declared_by, f);
        return;
    }
    let Some(jobs) = doc["jobs"].as_mapping() else {
        return;
    };
    let mut job_outputs: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for (name, job) in jobs {
        let name = name.as_str().unwrap_or_default().to_string();
        let mut outputs = keys(&job["outputs"]);
        if let Some(uses) = job["uses"].as_str() {
            // A reusable workflow called: its inputs and outputs.
            if let Some(Some(d)) = declared_by.get(uses) {
                for key in keys(&job["with"]).into_iter().chain(keys(&job["secrets"])) {
                    if !d.inputs.contains(&key) {
                        f.errors.push(format!(
                            "{at}: job `{name}` gives `{key}` to `{uses}`, which does not declare it"
                        ));
                    }
                }
                outputs = d.outputs.clone();
            }
        }
        let scope = serde_yaml::to_string(job).unwrap();
        check_steps(
            &format!("{at}, job `{name}`"),
            &job["steps"],
            &scope,
            &declared_by,
            f,
        );
        job_outputs.insert(name, outputs);
    }
    for (job, name) in output_refs(&source.text, "needs.") {
        match job_outputs.get(&job) {
            Some(outputs) if !outputs.contains(&name) => f.errors.push(format!(
                "{at}: `needs.{job}.outputs.{name}`: job `{job}` has no output `{name}`"
            )),
            None => f.errors.push(format!(
                "{at}: `needs.{job}.outputs.{name}`: no job `{job}`"
            )),
            _ => {}
        }
    }
}

/// A README block of steps is indented as inside a job.
fn dedent(text: &str) -> String {
    let indent = text
        .lines()
        .filter(|l| !l.trim().is_empty())
        .map(|l| l.len() - l.trim_start().len())
        .min()
        .unwrap_or(0);
    text.lines()
        .map(|l| l.get(indent..).unwrap_or("").to_string() + "\n")
        .collect()
}

fn check_all() -> Findings {
    let pins = pins_table();
    let mut f = Findings::default();
    for source in sources() {
        check_source(&source, &pins, &mut f);
    }
    // Each row of docs/pins.md has its kept action.yml, taken at that commit.
    for ((action, tag), commit) in &pins {
        if action == SELF {
            continue;
        }
        match std::fs::read_to_string(kept_file(action, tag)) {
            Ok(text) if text.lines().next().unwrap_or("").contains(commit.as_str()) => {}
            Ok(_) => f.errors.push(format!(
                "docs/pins.md: {action} {tag}: the kept action.yml's first line does not name {commit}"
            )),
            Err(_) => f.errors.push(format!(
                "docs/pins.md: {action} {tag}: no {}",
                kept_file(action, tag).display()
            )),
        }
    }
    f
}

#[test]
fn every_pin_is_a_released_commit_and_every_input_and_output_is_declared() {
    let f = check_all();
    assert!(
        f.errors.is_empty(),
        "{} pin problem(s):\n{}",
        f.errors.len(),
        f.errors.join("\n")
    );
    // Known gaps are not silent: each is printed and listed in docs/pins.md.
    let doc = std::fs::read_to_string(root().join("docs/pins.md")).unwrap();
    for gap in &f.known_gaps {
        eprintln!("known gap: {gap}");
    }
    if f.known_gaps.iter().any(|g| g.contains("a commit of main")) {
        assert!(
            doc.contains("TODO: no release of prompt-receipt yet"),
            "pins of main's commit, and docs/pins.md does not say so"
        );
    }
}

/// Fails until prompt-receipt has a release: then the examples pin its commit
/// (`# vX.Y.Z`) and the README's docker:// step its image digest.
#[test]
#[ignore = "known gap (docs/pins.md): no release of prompt-receipt yet; the examples pin a commit of main, the README's image digest is a placeholder"]
fn prompt_receipt_is_pinned_to_a_release() {
    let f = check_all();
    assert_eq!(f.known_gaps, Vec::<String>::new());
}

#[test]
fn the_check_catches_what_issue_29_found() {
    let pins = pins_table();
    let check = |text: &str| {
        let mut f = Findings::default();
        let source = Source {
            name: "w.yml".into(),
            first_line: 1,
            text: text.to_string(),
        };
        check_source(&source, &pins, &mut f);
        f.errors
    };
    let workflow = |uses: &str, with: &str, outputs: &str| {
        format!(
            "on: pull_request\njobs:\n  agent:\n    runs-on: ubuntu-latest\n    outputs: {{ v: \"{outputs}\" }}\n    steps:\n      - id: codex\n        uses: {uses}\n        with:\n          {with}\n"
        )
    };
    let good = "openai/codex-action@e0fdf01220eb9a88167c4898839d273e3f2609d1 # v1.8";
    assert_eq!(
        check(&workflow(
            good,
            "codex-version: 0.169.0",
            "${{ steps.codex.outputs.final-message }}"
        )),
        Vec::<String>::new()
    );
    let cases = [
        // The annotated tag object of v1, not a commit.
        (
            workflow(
                "openai/codex-action@a26d2d4d8b78a694338b8e3715c3630254340b2c # v1",
                "codex-version: 0.169.0",
                "",
            ),
            "is not a row of docs/pins.md",
        ),
        (
            workflow("openai/codex-action@v1", "codex-version: 0.169.0", ""),
            "not to a full commit SHA",
        ),
        (
            workflow(
                "openai/codex-action@e0fdf01220eb9a88167c4898839d273e3f2609d1",
                "codex-version: 0.169.0",
                "",
            ),
            "no `# vX.Y.Z` comment",
        ),
        (
            workflow(
                "openai/codex-action@0123456789abcdef0123456789abcdef01234567 # v1.8",
                "codex-version: 0.169.0",
                "",
            ),
            "docs/pins.md has openai/codex-action v1.8 at",
        ),
        // The output the examples read that codex-action v1.8 does not have.
        (
            workflow(
                good,
                "codex-version: 0.169.0",
                "${{ steps.codex.outputs.codex-version }}",
            ),
            "declares no output `codex-version`",
        ),
        (
            workflow(good, "codex-versoin: 0.169.0", ""),
            "does not declare",
        ),
        (
            workflow("docker://ghcr.io/o/i:latest", "args: x", ""),
            "by digest",
        ),
        (
            workflow(
                good,
                "codex-version: 0.169.0",
                "${{ needs.other.outputs.v }}",
            ),
            "no job `other`",
        ),
    ];
    for (text, says) in cases {
        let errors = check(&text);
        assert!(
            errors.iter().any(|e| e.contains(says)),
            "expected an error with `{says}` for:\n{text}\ngot: {errors:?}"
        );
    }
}

/// Every pin of prompt-receipt's own that users copy, by what it names (the
/// action, collect, receipt.yml), in the README, docs/ and the examples:
/// (kind, commit, where).
fn own_pins(root: &Path) -> Vec<(String, String, String)> {
    let mut files = vec![root.join("README.md")];
    for dir in [root.join("docs")] {
        for e in std::fs::read_dir(dir).unwrap() {
            let p = e.unwrap().path();
            if p.extension().is_some_and(|x| x == "md") {
                files.push(p);
            }
        }
    }
    for example in std::fs::read_dir(root.join("examples")).unwrap() {
        let dir = example.unwrap().path().join(".github/workflows");
        for e in std::fs::read_dir(dir).into_iter().flatten() {
            files.push(e.unwrap().path());
        }
    }
    let mut out = Vec::new();
    for file in files {
        let text = std::fs::read_to_string(&file).unwrap();
        for (n, line) in text.lines().enumerate() {
            let mut rest = line;
            while let Some(at) = rest.find("prompt-receipt/prompt-receipt") {
                let tail = &rest[at + "prompt-receipt/prompt-receipt".len()..];
                let (kind, after) = if let Some(a) = tail.strip_prefix("/collect@") {
                    ("collect", a)
                } else if let Some(a) = tail.strip_prefix("/.github/workflows/receipt.yml@") {
                    ("receipt.yml", a)
                } else if let Some(a) = tail.strip_prefix('@') {
                    ("the action", a)
                } else {
                    rest = tail;
                    continue;
                };
                let commit: String = after
                    .chars()
                    .take_while(|c| c.is_ascii_hexdigit())
                    .collect();
                if commit.len() == 40 {
                    let at = format!("{}:{}", file.strip_prefix(root).unwrap().display(), n + 1);
                    out.push((kind.to_string(), commit, at));
                }
                rest = after;
            }
        }
    }
    out
}

/// The pins of each kind, where they disagree with the first of their kind.
fn disagreeing(pins: &[(String, String, String)]) -> Vec<String> {
    let mut first: BTreeMap<&str, &str> = BTreeMap::new();
    let mut out = Vec::new();
    for (kind, commit, at) in pins {
        let expected = *first.entry(kind).or_insert(commit);
        if expected != commit {
            out.push(format!("{at}: {kind} at {commit}, elsewhere at {expected}"));
        }
    }
    out
}

/// A user copies one pin from the README and another from an example: they
/// must name the same commit, kind by kind.
#[test]
fn the_projects_own_pins_agree_with_each_other() {
    let pins = own_pins(&root());
    assert!(pins.len() >= 20, "{pins:?}");
    assert_eq!(disagreeing(&pins), Vec::<String>::new());
    // The check sees a disagreement.
    let mut changed = pins.clone();
    changed[3].1 = "0".repeat(40);
    assert_eq!(disagreeing(&changed).len(), 1);
}

/// The release's rewrite (scripts/release-pins.sh): every pin users copy
/// names the released commit and its tag, the README's docker:// step the
/// image digest; nothing else changes.
#[test]
fn a_release_points_every_pin_at_its_commit() {
    let dir = tempfile::tempdir().unwrap();
    for sub in ["docs", "examples"] {
        let out = std::process::Command::new("cp")
            .args(["-r"])
            .arg(root().join(sub))
            .arg(dir.path())
            .status()
            .unwrap();
        assert!(out.success());
    }
    std::fs::copy(root().join("README.md"), dir.path().join("README.md")).unwrap();
    let before = own_pins(dir.path());
    let commit = "c0ffee".repeat(6) + "c0ff";
    let digest = format!("sha256:{}", "ab".repeat(32));
    let out = std::process::Command::new("bash")
        .arg(root().join("scripts/release-pins.sh"))
        .args([&commit, "v1.2.3", &digest])
        .arg(dir.path())
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let after = own_pins(dir.path());
    assert_eq!(after.len(), before.len());
    assert!(after.iter().all(|(_, c, _)| *c == commit), "{after:?}");
    let readme = std::fs::read_to_string(dir.path().join("README.md")).unwrap();
    assert!(readme.contains(&format!(
        "docker://ghcr.io/prompt-receipt/prompt-receipt@{digest} # v1.2.3"
    )));
    for line in readme.lines().filter(|l| l.contains(&commit)) {
        assert!(
            line.ends_with("# v1.2.3") || !line.contains(" # "),
            "{line}"
        );
    }
    let bad = std::process::Command::new("bash")
        .arg(root().join("scripts/release-pins.sh"))
        .args(["main", "v1.2.3", &digest])
        .arg(dir.path())
        .output()
        .unwrap();
    assert_eq!(bad.status.code(), Some(2));
}

/// release.yml's git half (scripts/release.sh) as a dry run on a clone of
/// this checkout, its scripts as this tree has them: the tag's action.yml
/// pulls the image by digest, its receipt.yml runs the commit before it, and
/// the pins branch off the start names the tag everywhere users copy from,
/// changing nothing else; the start is left as it was.
#[test]
fn a_dry_run_of_the_release_tags_and_rewrites_the_pins() {
    let s = crate::common::Scenario::clone_of_path(&root());
    let clone = s.ws.clone();
    for script in [
        "release.sh",
        "release-pins.sh",
        "pin-image.sh",
        "pin-receipt-workflow.sh",
    ] {
        std::fs::copy(
            root().join("scripts").join(script),
            clone.join("scripts").join(script),
        )
        .unwrap();
    }
    if !s.git(&["status", "--porcelain"]).is_empty() {
        s.git(&["add", "scripts"]);
        s.git(&["commit", "-qm", "the scripts as this tree has them"]);
    }
    let start = s.git(&["rev-parse", "HEAD"]);
    let digest = format!("sha256:{}", "5e".repeat(32));
    let out = std::process::Command::new("bash")
        .arg(clone.join("scripts/release.sh"))
        .args(["v9.8.7", &digest, "ghcr.io/prompt-receipt/prompt-receipt"])
        .current_dir(&clone)
        .env("GIT_AUTHOR_NAME", "t")
        .env("GIT_AUTHOR_EMAIL", "t@e")
        .env("GIT_COMMITTER_NAME", "t")
        .env("GIT_COMMITTER_EMAIL", "t@e")
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let released = s.git(&["rev-parse", "v9.8.7^{commit}"]);
    assert!(String::from_utf8_lossy(&out.stdout).contains(&format!("released={released}")));
    assert_eq!(s.git(&["rev-parse", "v9^{commit}"]), released);
    let action = s.git(&["show", "v9.8.7:action.yml"]);
    assert!(action.contains(&format!(
        "  image: docker://ghcr.io/prompt-receipt/prompt-receipt@{digest}"
    )));
    let first = s.git(&["rev-parse", "v9.8.7^"]);
    let receipt = s.git(&["show", "v9.8.7:.github/workflows/receipt.yml"]);
    assert!(receipt.contains(&format!(
        "uses: prompt-receipt/prompt-receipt@{first} # v9.8.7"
    )));
    assert_eq!(s.git(&["rev-parse", "v9.8.7~2"]), start);
    // The pins branch: off the start, every pin users copy names the tag.
    assert_eq!(s.git(&["rev-parse", "release/v9.8.7-pins^"]), start);
    let changed = s.git(&["diff", "--name-only", &start, "release/v9.8.7-pins"]);
    assert!(!changed.is_empty());
    for file in changed.lines() {
        assert!(
            file == "README.md" || file.starts_with("docs/") || file.starts_with("examples/"),
            "{file}"
        );
    }
    s.git(&["checkout", "-q", "release/v9.8.7-pins"]);
    let pins = own_pins(&clone);
    assert!(pins.iter().all(|(_, c, _)| *c == released), "{pins:?}");
    assert_eq!(
        s.git(&["show", &format!("{start}:action.yml")]),
        std::fs::read_to_string(root().join("action.yml"))
            .unwrap()
            .trim_end()
    );
    // Twice is refused: the tag exists.
    s.git(&["checkout", "-q", &start]);
    let again = std::process::Command::new("bash")
        .arg(clone.join("scripts/release.sh"))
        .args(["v9.8.7", &digest, "ghcr.io/prompt-receipt/prompt-receipt"])
        .current_dir(&clone)
        .output()
        .unwrap();
    assert_eq!(again.status.code(), Some(2));
}
