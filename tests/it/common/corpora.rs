//! Test corpora from the package registries, each pinned by exact version and
//! by the SHA-256 of its archive (the values below), fetched with the
//! registry's own client, and cached under `target/corpora/`:
//!
//! - the official JSON-Schema-Test-Suite, as the `jsonschema` source
//!   distribution on PyPI ships it (`json/tests/`, `json/remotes/`);
//! - GitHub's OpenAPI description of api.github.com, as the npm package
//!   `@octokit/openapi` ships it (`generated/api.github.com.json`).
//!
//! The archive is kept in `target/corpora/downloads/` and unpacked beside it.
//! Both steps write into a temporary folder and rename it into place, so test
//! binaries running at once never see half a corpus (the slower one's copy is
//! dropped). An archive whose SHA-256 is not the pinned one is a hard failure.
#![allow(dead_code)]

use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;

use sha2::{Digest, Sha256};

/// One archive from a registry.
pub struct Pinned {
    /// What it is, for messages.
    pub what: &'static str,
    /// The archive's file name, as the client writes it.
    pub archive: &'static str,
    pub sha256: &'static str,
    /// The client's command; `{dir}` is the folder it writes the archive into.
    pub fetch: &'static [&'static str],
    /// The folder under `target/corpora/` it is unpacked to.
    pub unpacked: &'static str,
    /// The members taken from the archive (the first path component is renamed
    /// to `unpacked`).
    pub members: &'static [&'static str],
}

/// The JSON-Schema-Test-Suite inside `jsonschema` 4.26.0's source distribution.
/// `--no-binary jsonschema` asks for the sdist (the wheel has no suite);
/// pip still builds its metadata, with wheels of the build backend.
pub const JSONSCHEMA_SDIST: Pinned = Pinned {
    what: "the JSON-Schema-Test-Suite (jsonschema 4.26.0 sdist, PyPI)",
    archive: "jsonschema-4.26.0.tar.gz",
    sha256: "0c26707e2efad8aa1bfc5b7ce170f3fccc2e4918ff85989ba9ffa9facb2be326",
    fetch: &[
        "python3",
        "-m",
        "pip",
        "download",
        "--quiet",
        "--disable-pip-version-check",
        "--no-deps",
        "--no-binary",
        "jsonschema",
        "--dest",
        "{dir}",
        "jsonschema==4.26.0",
    ],
    unpacked: "jsonschema-4.26.0",
    members: &[
        "jsonschema-4.26.0/json/tests",
        "jsonschema-4.26.0/json/remotes",
        "jsonschema-4.26.0/json/LICENSE",
    ],
};

/// GitHub's OpenAPI description, as `@octokit/openapi` 23.0.2 (npm) builds it.
pub const OCTOKIT_OPENAPI: Pinned = Pinned {
    what: "GitHub's OpenAPI description (@octokit/openapi 23.0.2, npm)",
    archive: "octokit-openapi-23.0.2.tgz",
    sha256: "71a18407dd5e8464f4e0525daf03deabbe65abd9287d6adc7b5d98f516cd0d0c",
    fetch: &[
        "npm",
        "pack",
        "--silent",
        "--pack-destination",
        "{dir}",
        "@octokit/openapi@23.0.2",
    ],
    unpacked: "octokit-openapi-23.0.2",
    members: &["package/generated/api.github.com.json", "package/LICENSE"],
};

/// `json/` of the JSON-Schema-Test-Suite: `tests/<draft>/`, `remotes/`.
pub fn json_schema_test_suite() -> &'static Path {
    static DIR: OnceLock<PathBuf> = OnceLock::new();
    DIR.get_or_init(|| unpacked(&JSONSCHEMA_SDIST).join("json"))
        .as_path()
}

/// `api.github.com.json` of `@octokit/openapi`.
pub fn github_openapi_description() -> PathBuf {
    unpacked(&OCTOKIT_OPENAPI).join("generated/api.github.com.json")
}

/// `target/corpora`, in the build folder cargo uses (`CARGO_TARGET_DIR` too).
pub fn corpora_dir() -> PathBuf {
    Path::new(env!("CARGO_TARGET_TMPDIR"))
        .parent()
        .expect("CARGO_TARGET_TMPDIR is inside the build folder")
        .join("corpora")
}

/// The archive unpacked under `target/corpora/`, fetched first if needed.
pub fn unpacked(p: &Pinned) -> PathBuf {
    let root = corpora_dir();
    let dir = root.join(p.unpacked);
    if dir.is_dir() {
        return dir;
    }
    let archive = archive(p);
    let tmp = temp_in(&root);
    let out = Command::new("tar")
        .arg("-xzf")
        .arg(&archive)
        .arg("-C")
        .arg(tmp.path())
        .args(p.members)
        .output()
        .unwrap_or_else(|e| panic!("cannot run tar to unpack {}: {e}", archive.display()));
    assert!(
        out.status.success(),
        "tar -xzf {} did not unpack {:?}: {}",
        archive.display(),
        p.members,
        last_line(&out.stderr)
    );
    let top = p.members[0].split('/').next().unwrap();
    // Another test (a thread, or another `cargo test`) may have finished
    // first: its copy is the same.
    if fs::rename(tmp.path().join(top), &dir).is_err() && !dir.is_dir() {
        panic!(
            "cannot move the unpacked {} to {}",
            p.archive,
            dir.display()
        );
    }
    dir
}

/// The archive in `target/corpora/downloads/`, checked against its SHA-256.
fn archive(p: &Pinned) -> PathBuf {
    let downloads = corpora_dir().join("downloads");
    let path = downloads.join(p.archive);
    if !path.is_file() {
        let tmp = temp_in(&downloads);
        let command: Vec<String> = p
            .fetch
            .iter()
            .map(|a| a.replace("{dir}", &tmp.path().to_string_lossy()))
            .collect();
        let shown = p
            .fetch
            .iter()
            .map(|a| a.replace("{dir}", &downloads.to_string_lossy()))
            .collect::<Vec<_>>()
            .join(" ");
        let fetched = Command::new(&command[0])
            .args(&command[1..])
            .current_dir(tmp.path())
            .output();
        let why = match fetched {
            Err(e) => Some(format!("cannot start {}: {e}", command[0])),
            Ok(out) if !out.status.success() => {
                Some(format!("{} ({})", last_line(&out.stderr), out.status))
            }
            Ok(_) if !tmp.path().join(p.archive).is_file() => {
                Some(format!("it wrote no {}", p.archive))
            }
            Ok(_) => None,
        };
        if let Some(why) = why {
            panic!(
                "cannot fetch {}: `{shown}` failed: {why}; run that command (it needs the registry) and test again",
                p.what
            );
        }
        check_sha256(p, &tmp.path().join(p.archive));
        // Same bytes whoever renames last.
        fs::rename(tmp.path().join(p.archive), &path).unwrap_or_else(|e| {
            panic!(
                "cannot move {} into {}: {e}",
                p.archive,
                downloads.display()
            )
        });
    }
    check_sha256(p, &path);
    path
}

fn check_sha256(p: &Pinned, path: &Path) {
    let bytes = fs::read(path).unwrap_or_else(|e| panic!("cannot read {}: {e}", path.display()));
    let got = hex::encode(Sha256::digest(&bytes));
    assert!(
        got == p.sha256,
        "{} has SHA-256 {got}, not the pinned {}: not the archive the tests were written for; \
         delete it to fetch it again, or pin the new one in tests/it/common/corpora.rs after reading it",
        path.display(),
        p.sha256
    );
}

fn temp_in(dir: &Path) -> tempfile::TempDir {
    fs::create_dir_all(dir).unwrap_or_else(|e| panic!("cannot create {}: {e}", dir.display()));
    tempfile::Builder::new()
        .prefix(".fetching-")
        .tempdir_in(dir)
        .unwrap_or_else(|e| panic!("cannot create a folder in {}: {e}", dir.display()))
}

fn last_line(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes)
        .lines()
        .rev()
        .find(|l| !l.trim().is_empty())
        .unwrap_or("no message")
        .trim()
        .to_string()
}
