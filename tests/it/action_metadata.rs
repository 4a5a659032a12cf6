//! action.yml, the command line and the Dockerfile must agree: an input declared
//! but not handled is silently ignored by the runner, and one handled but not
//! declared cannot be set from a workflow.

use crate::common;

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
    // missing (tests/it/github.rs and tests/it/real/codex.rs cover them), and the compare
    // outputs belong to mode `compare` (tests/it/compare.rs); with no base and
    // nothing unchecked, the trust outputs are absent (tests/it/trust.rs).
    let conditional: BTreeSet<String> = [
        "instructions-changed",
        "not-verified",
        "check-run-id",
        "check-run-url",
        "prompt-sent-sha",
        "total-tokens",
        "input-tokens",
        "cached-input-tokens",
        "cache-write-input-tokens",
        "output-tokens",
        "context-sha",
        "controlled",
        "findings-added",
        "findings-removed",
        // Pinned runs only (tests/it/pinned.rs).
        "pinned-commit",
        "pinned-files",
        "not-used",
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
    // On the command line, each input is an option of some command's help.
    let s = Scenario::new();
    let out = s.cli().arg("--help").run();
    out.code(0);
    let modes = [
        "run", "record", "verify", "compare", "lint", "validate", "audit", "restore",
    ];
    for mode in modes {
        assert!(
            out.stdout.contains(&format!("\n  {mode} ")),
            "{mode}: {}",
            out.stdout
        );
    }
    let helps: Vec<String> = modes
        .iter()
        .map(|m| {
            let out = s.cli().arg(m).arg("--help").run();
            out.code(0);
            assert!(
                out.stdout.contains(&format!("Usage: prompt-receipt {m} ")),
                "{}",
                out.stdout
            );
            out.stdout
        })
        .collect();
    for name in handled_inputs().iter().filter(|n| *n != "mode") {
        assert!(
            helps.iter().any(|h| h.contains(&format!("--{name} "))),
            "--{name} is in no command's help"
        );
    }
}

/// A command line as people type one: `help`, a command's own help, its
/// options in any order around its words, `--mode` as the action gives it,
/// and an error that lists the values an option takes.
#[test]
fn the_command_line_takes_commands_in_any_order_and_says_the_values() {
    let s = Scenario::new();
    let help = s.cli().arg("help").run();
    help.code(0);
    assert!(help.stdout.contains("Commands:") && help.stdout.contains("restore"));
    let audit = s.cli().arg("help").arg("audit").run();
    audit.code(0);
    assert!(
        audit
            .stdout
            .contains("Usage: prompt-receipt audit [OPTIONS] [DIR]")
    );
    assert!(!audit.stdout.contains("--prompt-file"), "{}", audit.stdout);
    let verify = s.cli().arg("verify").arg("--help").run();
    assert!(verify.stdout.contains("--statement") && !verify.stdout.contains("--base-usage-file"));
    assert_ne!(verify.stdout, audit.stdout);
    // The action's form: the mode as an option, its help the mode's.
    let flat = s.cli().arg("--mode").arg("verify").arg("--help").run();
    flat.code(0);
    assert_eq!(flat.stdout, verify.stdout);

    for args in [&["--agent", "nope"][..], &["run", "--agent", "nope"][..]] {
        let out = s.cli().args(args).run();
        out.code(2);
        assert!(
            out.stderr
                .contains("[possible values: codex, claude, gemini, copilot, opencode]"),
            "{}",
            out.stderr
        );
    }
    let out = s.cli().arg("run").arg("--agent").arg("nope").run();
    assert!(
        out.stderr.contains("see `prompt-receipt run --help`"),
        "{}",
        out.stderr
    );
    let out = s.cli().arg("audit").arg("--prompt-file").arg("x").run();
    out.code(2);
    assert!(out.stderr.contains("--prompt-file"), "{}", out.stderr);
}

/// A release commit points action.yml at the published image by digest: that
/// line changes, nothing else does, and the result is still an action the
/// runner reads (a `docker://` image, every input and output as before).
#[test]
fn the_release_rewrite_changes_only_the_image_line() {
    let dir = tempfile::tempdir().unwrap();
    let copy = dir.path().join("action.yml");
    let original = fs::read_to_string(repo_root().join("action.yml")).unwrap();
    fs::write(&copy, &original).unwrap();
    let digest = format!("sha256:{}", "0123456789abcdef".repeat(4));
    let run = |args: &[&str]| {
        std::process::Command::new("bash")
            .arg(repo_root().join("scripts/pin-image.sh"))
            .args(args)
            .output()
            .unwrap()
    };
    let out = run(&[&digest, copy.to_str().unwrap()]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let pinned = fs::read_to_string(&copy).unwrap();
    let changed: Vec<(&str, &str)> = original
        .lines()
        .zip(pinned.lines())
        .filter(|(a, b)| a != b)
        .collect();
    assert_eq!(original.lines().count(), pinned.lines().count());
    assert_eq!(
        changed,
        vec![(
            "  image: Dockerfile",
            &*format!("  image: docker://ghcr.io/prompt-receipt/prompt-receipt@{digest}")
        )]
    );
    let yaml: serde_yaml::Value = serde_yaml::from_str(&pinned).unwrap();
    assert_eq!(yaml["runs"]["using"], "docker");
    assert_eq!(yaml["inputs"], action()["inputs"]);
    assert_eq!(yaml["outputs"], action()["outputs"]);
    // Twice, or with a tag instead of a digest, is refused: no half-made release.
    assert_eq!(
        run(&[&digest, copy.to_str().unwrap()]).status.code(),
        Some(2)
    );
    fs::write(&copy, &original).unwrap();
    assert_eq!(
        run(&["latest", copy.to_str().unwrap()]).status.code(),
        Some(2)
    );
    assert_eq!(fs::read_to_string(&copy).unwrap(), original);
}

/// The Dockerfile, read as a user reviewing it would.
#[test]
fn dockerfile_builds_locked_and_runs_as_the_runner_expects() {
    let text = fs::read_to_string(repo_root().join("Dockerfile")).unwrap();
    let lines: Vec<&str> = text
        .lines()
        .filter(|l| !l.trim_start().starts_with('#') && !l.trim().is_empty())
        .collect();
    let froms: Vec<&str> = lines
        .iter()
        .filter(|l| l.starts_with("FROM "))
        .copied()
        .collect();
    assert_eq!(froms.len(), 3, "build, packages, runtime: {froms:?}");
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
        "one Debian release: one glibc, Debian's git"
    );
    assert_eq!(
        froms[2], "FROM scratch",
        "the runtime holds only the files the packages stage lays out"
    );
    let runtime_start = lines.iter().position(|l| *l == froms[2]).unwrap();
    let (build, runtime) = lines.split_at(runtime_start);
    assert!(
        build
            .iter()
            .any(|l| l.contains("cargo build --release --locked"))
    );
    assert!(
        build
            .iter()
            .any(|l| l.starts_with("COPY Cargo.toml Cargo.lock")),
        "the build copies the lockfile it is locked to"
    );
    // Only what the build needs is in its context: the code, never tests, fuzz
    // or examples (.dockerignore leaves them out, so no include may reach them).
    for l in build
        .iter()
        .filter(|l| l.starts_with("COPY ") && !l.contains("--from"))
    {
        assert!(
            l.starts_with("COPY Cargo.toml Cargo.lock") || l.starts_with("COPY src "),
            "{l}"
        );
    }
    // ...and the release code includes no file from beyond src/ (what broke the build once).
    let mut stack = vec![repo_root().join("src")];
    while let Some(dir) = stack.pop() {
        for entry in fs::read_dir(dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                stack.push(path);
                continue;
            }
            let code = fs::read_to_string(&path).unwrap();
            let release = code.split("#[cfg(test)]").next().unwrap();
            for include in ["include_bytes!(", "include_str!("] {
                assert!(
                    !release.contains(include),
                    "{}: {include} in release code: the Docker build context holds only src/",
                    path.display()
                );
            }
        }
    }
    assert!(
        !runtime.iter().any(|l| l.starts_with("USER")),
        "GitHub's docs: no USER, the runner expects root"
    );
    assert!(
        !runtime.iter().any(|l| l.starts_with("RUN ")),
        "the runtime stage only copies files in"
    );
    assert_eq!(
        runtime
            .iter()
            .filter(|l| l.starts_with("COPY "))
            .copied()
            .collect::<Vec<_>>(),
        ["COPY --from=packages /image/ /"],
        "one tree, laid out and started in the packages stage"
    );
    for file in [
        "/usr/bin/git",
        "/etc/ssl/certs/ca-certificates.crt",
        "/usr/local/bin/prompt-receipt",
    ] {
        assert!(
            build.iter().any(|l| l.contains(&format!(" /image{file}"))),
            "{file}"
        );
    }
    // The libraries as the loader links them, and both programs started
    // inside the tree before it becomes the image.
    assert!(build.iter().any(|l| l.contains("ldd /usr/bin/git")));
    assert!(
        build
            .iter()
            .any(|l| l.contains("ldd /usr/local/bin/prompt-receipt"))
    );
    for program in ["/usr/bin/git", "/usr/local/bin/prompt-receipt"] {
        assert!(
            build
                .iter()
                .any(|l| l.contains(&format!("chroot /image {program} --version"))),
            "{program}"
        );
    }
    assert!(
        runtime
            .iter()
            .any(|l| l.starts_with("ENV PATH=") && l.contains("/usr/bin")),
        "scratch sets no PATH, and git is found on it"
    );
    assert_eq!(
        runtime.last().copied(),
        Some(r#"ENTRYPOINT ["/usr/local/bin/prompt-receipt"]"#)
    );
}
