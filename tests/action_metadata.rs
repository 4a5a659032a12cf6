//! action.yml, the command line and the Dockerfile must agree: an input declared
//! but not handled is silently ignored by the runner, and one handled but not
//! declared cannot be set from a workflow.

mod common;

use std::collections::BTreeSet;
use std::fs;

use clap::CommandFactory;
use common::*;
use prompt_receipt::inputs::{CLI_ONLY, Cli};
use prompt_receipt::report::{OTHER_OUTPUTS, OUTPUTS};

fn action() -> serde_yaml::Value {
    serde_yaml::from_str(&fs::read_to_string(repo_root().join("action.yml")).unwrap()).unwrap()
}

fn handled_inputs() -> BTreeSet<String> {
    Cli::command()
        .get_arguments()
        .filter_map(|a| a.get_long())
        .filter(|l| !CLI_ONLY.contains(l) && *l != "help" && *l != "version")
        .map(String::from)
        .collect()
}

#[test]
fn every_input_is_declared_and_handled() {
    let declared: BTreeSet<String> = declared_inputs().into_iter().map(|(n, _)| n).collect();
    let handled = handled_inputs();
    assert_eq!(
        declared.difference(&handled).collect::<Vec<_>>(),
        Vec::<&String>::new(),
        "declared in action.yml but not handled"
    );
    assert_eq!(
        handled.difference(&declared).collect::<Vec<_>>(),
        Vec::<&String>::new(),
        "handled but not declared in action.yml"
    );
}

#[test]
fn defaults_agree() {
    let cmd = Cli::command();
    for (name, default) in declared_inputs() {
        let arg = cmd
            .get_arguments()
            .find(|a| a.get_long() == Some(name.as_str()))
            .unwrap();
        let ours: Vec<String> = arg
            .get_default_values()
            .iter()
            .map(|v| v.to_string_lossy().into_owned())
            .collect();
        match default.as_deref() {
            Some("${{ github.token }}") => assert_eq!(name, "github-token"),
            Some(d) => assert_eq!(ours, vec![d.to_string()], "default of `{name}`"),
            None => assert!(
                ours.is_empty(),
                "`{name}` has a default in the binary but not in action.yml"
            ),
        }
    }
}

#[test]
fn every_output_is_declared_and_written() {
    let a = action();
    let declared: BTreeSet<String> = a["outputs"]
        .as_mapping()
        .unwrap()
        .keys()
        .map(|k| k.as_str().unwrap().to_string())
        .collect();
    let written: BTreeSet<String> = OUTPUTS
        .iter()
        .map(|(n, _)| n.to_string())
        .chain(OTHER_OUTPUTS.iter().map(|n| n.to_string()))
        .collect();
    assert_eq!(declared, written);
    // And the binary really writes them.
    let s = Scenario::example();
    let out = s.review_step().run();
    out.code(0);
    let got: BTreeSet<String> = out.outputs.keys().cloned().collect();
    // Without a GitHub API or a Codex session record, only their outputs are
    // missing (tests/github.rs and tests/codex.rs cover them), and the compare
    // outputs belong to mode `compare` (tests/compare.rs).
    let conditional: BTreeSet<String> = [
        "check-run-id",
        "check-run-url",
        "prompt-sent-sha",
        "total-tokens",
        "controlled",
        "findings-added",
        "findings-removed",
    ]
    .map(String::from)
    .into();
    assert_eq!(got, &declared - &conditional);
}

#[test]
fn metadata_is_complete() {
    let a = action();
    for key in ["name", "description", "author"] {
        assert!(a[key].as_str().is_some_and(|s| !s.is_empty()), "{key}");
    }
    assert!(a["branding"]["icon"].is_string() && a["branding"]["color"].is_string());
    for section in ["inputs", "outputs"] {
        for (k, v) in a[section].as_mapping().unwrap() {
            let description = v["description"].as_str().unwrap_or("");
            assert!(
                description.len() > 10,
                "{section}.{k:?} needs a description"
            );
            // nektos/act refuses an expression in a description ("expressions
            // are not allowed here"); GitHub ignores it, but the action must run under both.
            assert!(
                !description.contains("${{"),
                "{section}.{k:?}: an expression in a description breaks act"
            );
        }
    }
    assert_eq!(
        a["inputs"]["github-token"]["default"],
        "${{ github.token }}"
    );
    assert_eq!(a["runs"]["using"], "docker");
    assert_eq!(a["runs"]["image"], "Dockerfile");
}

#[test]
fn help_documents_every_input() {
    let help = Cli::command().render_long_help().to_string();
    for name in handled_inputs() {
        assert!(
            help.contains(&format!("--{name}")),
            "--{name} missing from --help"
        );
    }
    assert!(help.contains("INPUT_PROMPT-FILE"));
    assert!(help.contains("Exit codes"));
    let s = Scenario::new();
    let out = s.cli().arg("--help").run();
    out.code(0);
    assert!(out.stdout.contains("--prompt-file"));
}

/// The Dockerfile, read as a user reviewing it would.
#[test]
fn dockerfile_builds_locked_and_runs_as_the_runner_expects() {
    let text = fs::read_to_string(repo_root().join("Dockerfile")).unwrap();
    let lines: Vec<&str> = text
        .lines()
        .filter(|l| !l.trim_start().starts_with('#'))
        .collect();
    let froms: Vec<&str> = lines
        .iter()
        .filter(|l| l.starts_with("FROM "))
        .copied()
        .collect();
    assert_eq!(froms.len(), 2, "a build stage and a runtime stage");
    let release = |from: &str| {
        ["bookworm", "trixie", "bullseye"]
            .into_iter()
            .find(|r| from.contains(r))
            .map(String::from)
    };
    assert!(
        release(froms[0]).is_some(),
        "the build image names its Debian release"
    );
    assert_eq!(
        release(froms[0]),
        release(froms[1]),
        "both stages on one Debian release: one glibc"
    );
    let runtime_start = lines.iter().position(|l| *l == froms[1]).unwrap();
    let (build, runtime) = lines.split_at(runtime_start);
    assert!(
        build
            .iter()
            .any(|l| l.contains("cargo build --release --locked"))
    );
    assert!(
        !runtime.iter().any(|l| l.starts_with("USER")),
        "GitHub's docs: no USER, the runner expects root"
    );
    assert!(
        runtime
            .join("\n")
            .contains("install -y --no-install-recommends git")
    );
    assert_eq!(
        runtime.last().copied(),
        Some(r#"ENTRYPOINT ["/usr/local/bin/prompt-receipt"]"#)
    );
    // The build copies what it needs and the lockfile it is locked to.
    assert!(
        build
            .iter()
            .any(|l| l.starts_with("COPY Cargo.toml Cargo.lock"))
    );
}
