//! The command line a person types: one subcommand per mode, as clap's derive
//! subcommands have them, each with its own help and only the options that
//! mode reads. The Actions runner never types a word: it sets `INPUT_MODE`
//! and the other `INPUT_*` variables, and `--mode` with every option keeps
//! working for it, so a subcommand is turned back into that flat form
//! ([`flat`]) and parsed once, one way, by [`super::Cli`].

use std::ffi::OsString;

use clap::parser::ValueSource;
use clap::{Arg, ArgMatches, Command, CommandFactory, ValueEnum};

use super::{Cli, Mode};

/// Options every mode reads: where it runs, and how it reports.
const REPORTING: &[&str] = &[
    "workspace",
    "check-name",
    "max-annotations",
    "api-timeout",
    "app-slug",
    "earlier-check-runs",
    "github-token",
];

/// The modes whose options are listed here, beside [`REPORTING`]; every
/// other mode reads the options without a `(mode, ...)` note in their help,
/// and those whose note names it.
fn listed(mode: Mode) -> Option<&'static [&'static str]> {
    Some(match mode {
        Mode::Audit => &["audit-dir", "format"],
        Mode::Lint => &["agent", "working-directory"],
        Mode::Validate => &[
            "output-file",
            "output-schema-file",
            "output-schema",
            "findings-pointer",
            "fail-on",
            "min-severity",
            "gate-schema",
            "base-ref",
            "base-branch",
            "instructions-changed",
        ],
        Mode::Restore => &[
            "agent",
            "prompt",
            "prompt-file",
            "prompt-template-file",
            "output-schema-file",
            "output-schema",
            "agent-home",
            "codex-home",
            "agent-args",
            "codex-args",
            "claude-args",
            "agent-version",
            "codex-version",
            "claude-version",
            "model",
            "agents-fallback-filenames",
            "working-directory",
            "base-ref",
            "base-branch",
            "protected-bases",
        ],
        Mode::Run | Mode::Record | Mode::Verify | Mode::Compare => return None,
    })
}

/// The word a mode is typed as.
pub(super) fn word(mode: Mode) -> &'static str {
    match mode {
        Mode::Run => "run",
        Mode::Record => "record",
        Mode::Verify => "verify",
        Mode::Compare => "compare",
        Mode::Lint => "lint",
        Mode::Validate => "validate",
        Mode::Audit => "audit",
        Mode::Restore => "restore",
    }
}

/// The modes a `(run, verify)` note at the start of an option's help names;
/// `None` when it has none (or names an agent, as the older names do).
fn noted(help: &str) -> Option<Vec<String>> {
    let note = help.strip_prefix('(')?.split_once(')')?.0;
    if note.starts_with("agent:") {
        return None;
    }
    Some(
        note.split(',')
            .map(|w| w.trim().split(' ').next().unwrap_or_default().to_string())
            .collect(),
    )
}

/// Options without a note that a mode of the receipt still does not read:
/// `record` judges no review.
fn ignored(mode: Mode) -> &'static [&'static str] {
    match mode {
        Mode::Record => &["fail-on", "min-severity", "findings-pointer"],
        _ => &[],
    }
}

/// Whether `mode` reads the option `arg`.
fn reads(mode: Mode, arg: &Arg) -> bool {
    let long = arg.get_long().unwrap_or_default();
    if REPORTING.contains(&long) {
        return true;
    }
    if ignored(mode).contains(&long) {
        return false;
    }
    if let Some(list) = listed(mode) {
        return list.contains(&long);
    }
    let help = arg.get_help().map(|h| h.to_string()).unwrap_or_default();
    match noted(&help) {
        Some(modes) => modes.iter().any(|m| m == word(mode)),
        None => true,
    }
}

/// An option as a mode's help shows it: without the note of which modes read
/// it, which that help already says.
fn for_mode(arg: &Arg) -> Arg {
    let help = arg.get_help().map(|h| h.to_string()).unwrap_or_default();
    match help.strip_prefix('(').and_then(|h| h.split_once(") ")) {
        Some((note, rest)) if !note.starts_with("agent:") => arg.clone().help(rest.to_string()),
        _ => arg.clone(),
    }
}

/// One mode's subcommand: its options, and audit's folder as a word.
fn subcommand(mode: Mode, all: &Command) -> Command {
    let about = mode
        .to_possible_value()
        .and_then(|v| v.get_help().map(|h| h.to_string()))
        .unwrap_or_default();
    let mut sub = Command::new(word(mode))
        .about(about)
        .after_help(super::AFTER_HELP)
        .args(
            all.get_arguments()
                .filter(|a| !["mode", "help", "version"].contains(&a.get_id().as_str()))
                .filter(|a| reads(mode, a))
                .map(for_mode),
        );
    if mode == Mode::Audit {
        sub = sub.arg(
            Arg::new("dir")
                .value_name("DIR")
                .help("The folder of receipts, statements or bundles (the same as --audit-dir)")
                .conflicts_with("audit_dir"),
        );
    }
    sub
}

/// `prompt-receipt` with a subcommand per mode, and `help`.
pub(super) fn command() -> Command {
    let all = Cli::command();
    let mut top = Command::new("prompt-receipt")
        .bin_name("prompt-receipt")
        .version(env!("CARGO_PKG_VERSION"))
        .about(all.get_about().map(|a| a.to_string()).unwrap_or_default())
        .subcommand_value_name("COMMAND")
        .after_help(format!(
            "`prompt-receipt <COMMAND> --help` lists the options of one command.\n\n\
             In GitHub Actions the mode is the input `mode` (`--mode MODE`), and every \
             option is read as the runner passes inputs.\n\n{}",
            super::AFTER_HELP
        ));
    for mode in Mode::value_variants() {
        top = top.subcommand(subcommand(*mode, &all));
    }
    top
}

/// Whether the first word is a command: a mode, or `help`.
pub(super) fn typed(args: &[OsString]) -> bool {
    let Some(first) = args.get(1).and_then(|a| a.to_str()) else {
        return false;
    };
    first == "help" || Mode::from_str(first, false).is_ok()
}

/// The subcommand's matches as the flat form `--mode=MODE --name=value ...`
/// that [`super::Cli`] parses, with only what was typed: an option left out
/// is still read from its `INPUT_*` variable after.
pub(super) fn flat(program: &OsString, matches: &ArgMatches) -> Vec<OsString> {
    let mut argv = vec![program.clone()];
    let Some((mode, sub)) = matches.subcommand() else {
        return argv;
    };
    argv.push(format!("--mode={mode}").into());
    let all = Cli::command();
    for id in sub.ids() {
        if sub.value_source(id.as_str()) != Some(ValueSource::CommandLine) {
            continue;
        }
        let long = match id.as_str() {
            "dir" => "audit-dir",
            id => match all.get_arguments().find(|a| a.get_id() == id) {
                Some(arg) => arg.get_long().unwrap_or_default(),
                None => continue,
            },
        };
        for value in sub.get_raw(id.as_str()).into_iter().flatten() {
            let mut flag = OsString::from(format!("--{long}="));
            flag.push(value);
            argv.push(flag);
        }
    }
    argv
}

#[cfg(test)]
mod tests {
    use super::*;

    fn help(mode: &str) -> String {
        let mut top = command();
        top.find_subcommand_mut(mode)
            .unwrap()
            .render_help()
            .to_string()
    }

    #[test]
    fn each_mode_lists_only_what_it_reads() {
        let audit = help("audit");
        assert!(
            audit.contains("--format") && audit.contains("[DIR]"),
            "{audit}"
        );
        assert!(!audit.contains("--prompt-file"), "{audit}");
        let verify = help("verify");
        assert!(verify.contains("--statement") && verify.contains("--base-ref"));
        assert!(!verify.contains("--base-usage-file") && !verify.contains("--audit-dir"));
        assert!(!verify.contains("(verify"), "the note is dropped: {verify}");
        let compare = help("compare");
        assert!(compare.contains("--base-usage-file") && !compare.contains("--statement"));
        let record = help("record");
        assert!(record.contains("--prompt-file") && !record.contains("--fail-on"));
        let restore = help("restore");
        assert!(restore.contains("--protected-bases") && !restore.contains("--fail-on"));
        assert!(
            help("run").lines().count() < Cli::command().render_help().to_string().lines().count()
        );
    }

    #[test]
    fn every_option_is_read_by_some_mode() {
        let all = Cli::command();
        for arg in all.get_arguments() {
            let id = arg.get_id().as_str();
            if ["mode", "help", "version"].contains(&id) {
                continue;
            }
            assert!(
                Mode::value_variants().iter().any(|m| reads(*m, arg)),
                "no mode reads --{id}"
            );
        }
    }

    #[test]
    fn a_typed_command_becomes_the_flat_form_in_any_order() {
        let args = |a: &[&str]| a.iter().map(OsString::from).collect::<Vec<_>>();
        let mut want = args(&[
            "prompt-receipt",
            "--mode=audit",
            "--format=json",
            "--audit-dir=receipts",
        ]);
        want.sort();
        for order in [
            &["prompt-receipt", "audit", "--format", "json", "receipts"][..],
            &["prompt-receipt", "audit", "receipts", "--format", "json"][..],
            &[
                "prompt-receipt",
                "audit",
                "--format=json",
                "--audit-dir",
                "receipts",
            ][..],
        ] {
            let m = command().try_get_matches_from(args(order)).unwrap();
            let mut got = flat(&"prompt-receipt".into(), &m);
            got.sort();
            assert_eq!(got, want, "{order:?}");
        }
    }
}
