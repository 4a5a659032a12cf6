//! Inputs, read the way the Actions runner passes them to a container, or as flags.
//!
//! The runner passes input `prompt-file` as the variable `INPUT_PROMPT-FILE`
//! (upper-cased, spaces to `_`, hyphens kept). `@actions/core` trims values and
//! treats empty as not given, so we do too. A flag on the command line wins over
//! the variable, which lets the same binary run locally with flags only.

use std::collections::BTreeMap;
use std::ffi::OsString;
use std::path::PathBuf;

use clap::parser::ValueSource;
use clap::{ArgMatches, CommandFactory, FromArgMatches, Parser, ValueEnum};

mod command;

use crate::base::Policy as InstructionsPolicy;
use crate::error::Error;
use crate::review::findings::Severity;
use crate::review::gate::FailOn;
pub(crate) use crate::review::judge::Whose as GateSchema;

/// A snapshot of the process environment; tests build their own.
pub type Env = BTreeMap<String, String>;

/// The check run's name when `check-name` is not given.
pub(crate) const DEFAULT_CHECK_NAME: &str = "Agent review receipt";

/// Flags that are not action inputs: they exist for local runs only.
pub const CLI_ONLY: &[&str] = &["workspace"];

pub(crate) const DEFAULT_SCHEMA_FILE: &str = ".github/codex/review.schema.json";

#[derive(Copy, Clone, Debug, PartialEq, Eq, ValueEnum)]
pub(crate) enum Mode {
    /// Verify any identities recorded earlier, record this run's, verify the record.
    Run,
    /// Record the identities into the usage file, and nothing else.
    Record,
    /// Recompute every identity recorded in the usage file and fail on any difference.
    Verify,
    /// Compare this run's receipt with a base run's: only the prompt may differ.
    Compare,
    /// Lint the repository's workflows for the agent-review failure modes.
    Lint,
    /// Check the agent's output against the output schema, and nothing else:
    /// no receipt is read or written, no git.
    Validate,
    /// Read a folder of receipts, statements or bundles and tell, run by run,
    /// what the agent was given and where it changed.
    Audit,
    /// Before the agent: put back, as the base has them, every file that can
    /// steer the configured agent (its instructions, settings, hooks and what
    /// they run, skills, the prompt and the schema); the code stays the pull
    /// request's.
    Restore,
}

/// Whose configuration the agent ran with, as the receipt holds its record to.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq, ValueEnum)]
pub(crate) enum Configuration {
    /// The checkout's, as the pull request has it.
    #[default]
    Checkout,
    /// The base's: `mode: restore` put it back before the agent ran.
    Base,
}

/// How `audit` prints its table.
#[derive(Copy, Clone, Debug, PartialEq, Eq, ValueEnum)]
pub(crate) enum Format {
    /// Plain text, columns aligned: for a terminal or the log.
    Text,
    /// A Markdown table (the job summary's), to paste where Markdown renders.
    Markdown,
    /// One JSON document, for scripts.
    Json,
}

/// What every help ends with: inputs as variables, and the exit codes.
const AFTER_HELP: &str = "Every option can also be given as the Actions runner passes inputs: the \
variable INPUT_<NAME>, upper-cased with hyphens kept (INPUT_PROMPT-FILE). A flag wins over \
the variable. Relative paths resolve against the workspace.\n\nExit codes: 0 every check passed, \
1 a check failed, 2 bad input or configuration.";

/// Record, verify and report which exact bytes reached a coding agent.
#[derive(Parser, Debug)]
#[command(
    name = "prompt-receipt",
    version,
    about = "Record, verify and report which exact bytes reached a coding agent",
    after_help = AFTER_HELP
)]
pub struct Cli {
    /// What to do: `run` (after the agent step), `record`, `verify`, `validate`, `compare`,
    /// `lint` or `audit`. Also the first word: `prompt-receipt verify --statement F`,
    /// `prompt-receipt audit DIR`.
    #[arg(long, value_enum, default_value = "run")]
    pub(crate) mode: Mode,

    /// The prompt text, when the agent step was given an inline prompt. Hashed as UTF-8.
    #[arg(long, value_name = "TEXT")]
    pub(crate) prompt: Option<String>,

    /// The prompt file sent to the agent (the rendered payload, if the harness renders one).
    #[arg(long, value_name = "PATH")]
    pub(crate) prompt_file: Option<String>,

    /// The template a rendered prompt file came from; recorded beside the prompt.
    #[arg(long, value_name = "PATH")]
    pub(crate) prompt_template_file: Option<String>,

    /// The agent's tool definitions. A missing file is recorded as `tools_sha: null`.
    #[arg(long, value_name = "PATH", default_value = ".agent/tools.json")]
    pub(crate) tools_file: String,

    /// The agent's output (review.json). A missing file is recorded as `output_sha: null`.
    #[arg(long, value_name = "PATH", default_value = "artifacts/review.json")]
    pub(crate) output_file: String,

    /// The output schema file given to the agent [default: .github/codex/review.schema.json].
    #[arg(long, value_name = "PATH")]
    pub(crate) output_schema_file: Option<String>,

    /// The output schema, when the agent step was given it inline. Hashed as UTF-8.
    #[arg(long, value_name = "JSON")]
    pub(crate) output_schema: Option<String>,

    /// The receipt file. Existing keys this tool does not own are kept.
    #[arg(long, value_name = "PATH", default_value = "usage.json")]
    pub(crate) usage_file: String,

    /// The exact agent CLI version the agent job installed, e.g. 0.169.0 (Codex) or
    /// 2.1.300 (Claude Code); checked against the record. Ranges and tags such as
    /// `latest` are refused.
    #[arg(long, value_name = "VERSION")]
    pub(crate) agent_version: Option<String>,

    /// The extra arguments given to the agent's action (codex-action's `codex-args`,
    /// claude-code-action's `claude_args`), as given to it.
    #[arg(long, value_name = "ARGS")]
    pub(crate) agent_args: Option<String>,

    /// (agent: codex) The older name of agent-version.
    #[arg(long, value_name = "VERSION", hide_short_help = true)]
    pub(crate) codex_version: Option<String>,

    /// (agent: codex) The older name of agent-args.
    #[arg(long, value_name = "ARGS", hide_short_help = true)]
    pub(crate) codex_args: Option<String>,

    /// (agent: claude) The older name of agent-args.
    #[arg(long, value_name = "ARGS", hide_short_help = true)]
    pub(crate) claude_args: Option<String>,

    /// (agent: claude) The older name of agent-version.
    #[arg(long, value_name = "VERSION", hide_short_help = true)]
    pub(crate) claude_version: Option<String>,

    /// The model the agent step asked for.
    #[arg(long, value_name = "MODEL")]
    pub(crate) model: Option<String>,

    /// The folder the agent ran in (codex-action's `working-directory`); git runs there.
    #[arg(long, value_name = "PATH")]
    pub(crate) working_directory: Option<String>,

    /// Where the list of findings is in the review, as a JSON Pointer.
    #[arg(long, value_name = "POINTER", default_value = "/findings")]
    pub(crate) findings_pointer: String,

    /// Which problems fail the step: `invalid` (missing, unparsable or schema-invalid
    /// output), `findings` (also `ok: false` or a finding at or above min-severity), or
    /// `never` (report only).
    #[arg(long, value_enum, value_name = "WHEN", default_value = "invalid")]
    pub(crate) fail_on: FailOn,

    /// With `fail-on: findings`, the lowest severity that fails: info, low, medium, high, critical.
    #[arg(long, value_name = "SEVERITY", default_value = "high", value_parser = parse_severity)]
    pub(crate) min_severity: Severity,

    /// Which agent ran: codex (openai/codex-action, the default), claude
    /// (anthropics/claude-code-action), gemini (google-github-actions/run-gemini-cli)
    /// or copilot (Copilot CLI, installed from npm).
    /// Its record, its instruction chain and its settings are read the way that agent has them.
    #[arg(long, value_enum, value_name = "AGENT", default_value = "codex")]
    pub(crate) agent: crate::agent::AgentKind,

    /// The folder holding the agent's record of the run, as the agent job left
    /// it or as it was downloaded (for Codex, the same as codex-home).
    #[arg(long, value_name = "PATH")]
    pub(crate) agent_home: Option<String>,

    /// The `codex-home` given to codex-action: its session record shows what
    /// reached the agent, and its AGENTS.md is part of the chain.
    #[arg(long, value_name = "PATH")]
    pub(crate) codex_home: Option<String>,

    /// The Codex session to read, when codex-home holds several.
    #[arg(long, value_name = "ID")]
    pub(crate) session_id: Option<String>,

    /// Extra AGENTS.md file names Codex is configured to try (project_doc_fallback_filenames),
    /// comma- or newline-separated.
    #[arg(long, value_name = "NAMES")]
    pub(crate) agents_fallback_filenames: Option<String>,

    /// Codex's project_doc_max_bytes: the budget of the AGENTS.md chain. Default: as
    /// codex-home's config.toml or `-c` in codex-args set it, else 32768.
    #[arg(long, value_name = "BYTES")]
    pub(crate) project_doc_max_bytes: Option<u64>,

    /// The reasoning effort given to codex-action (`effort`); checked against the session record.
    #[arg(long, value_name = "EFFORT")]
    pub(crate) effort: Option<String>,

    /// The permission profile given to codex-action (`permission-profile`); checked
    /// against the session record.
    #[arg(long, value_name = "PROFILE")]
    pub(crate) permission_profile: Option<String>,

    /// codex-action's `safety-strategy` (drop-sudo when not given); recorded.
    #[arg(long, value_name = "STRATEGY")]
    pub(crate) safety_strategy: Option<String>,

    /// codex-action's `project-instructions-mode`: `workspace` (the checkout's
    /// AGENTS.md files) or `default-branch` (the default branch's, written to
    /// `$CODEX_HOME/AGENTS.override.md`).
    #[arg(long, value_name = "MODE", value_parser = ["workspace", "default-branch"])]
    pub(crate) project_instructions_mode: Option<String>,

    /// Fail when the session used more tokens than this (input plus output).
    #[arg(long, value_name = "TOKENS")]
    pub(crate) max_total_tokens: Option<u64>,

    /// The frozen pull-request diff the review ran on; recorded as `fixture_sha`.
    #[arg(long, value_name = "PATH")]
    pub(crate) fixture_file: Option<String>,

    /// (compare) The base run's receipt.
    #[arg(long, value_name = "PATH")]
    pub(crate) base_usage_file: Option<String>,

    /// (compare) The base run's agent output.
    #[arg(long, value_name = "PATH")]
    pub(crate) base_output_file: Option<String>,

    /// (compare) Channels besides the prompt that may differ: tools, agents, schema,
    /// codex-version, model, codex-args, fixture (comma-separated).
    #[arg(long, value_name = "CHANNELS")]
    pub(crate) allow_changed: Option<String>,

    /// (run, verify) The commit whose instructions are trusted: every input the
    /// receipt covers is compared with it. Default: the event's pull_request.base.sha.
    #[arg(long, value_name = "REF")]
    pub(crate) base_ref: Option<String>,

    /// (run, restore) Whose configuration the agent ran with: checkout (the pull request's)
    /// or base (a `mode: restore` step put the base's back before the agent). With base,
    /// the receipt puts it back in its own checkout too, holds the record to it, and lists
    /// the pull request's changes to it as not used.
    #[arg(long, value_enum, value_name = "WHOSE", default_value = "checkout")]
    pub(crate) configuration: Configuration,

    /// (restore) Base branches besides the default branch whose tip is trusted, one a line
    /// or comma-separated: a pull request into one of them is held to its configuration.
    #[arg(long, value_name = "BRANCHES")]
    pub(crate) protected_bases: Option<String>,

    /// (run, verify) The branch base-ref is the tip of: the default branch, or a base
    /// branch the caller protects. Named with its commit in the check, and the branch
    /// every pull request of this head must merge into (see pull-request-bases).
    #[arg(long, value_name = "BRANCH")]
    pub(crate) base_branch: Option<String>,

    /// (run, verify) The branches the open pull requests of this head merge into, as
    /// GitHub names them, one a line (receipt.yml finds them). With base-branch: a pull
    /// request into any other branch is a failure, and none found is not verified.
    #[arg(long, value_name = "BRANCHES")]
    pub(crate) pull_request_bases: Option<String>,

    /// (run, verify) What a change of the agent's instructions against the base
    /// does: fail, warn (neutral) or allow.
    #[arg(long, value_enum, value_name = "WHAT", default_value = "warn")]
    pub(crate) instructions_changed: InstructionsPolicy,

    /// (run, validate) Whose output schema judges the review: base (the base commit's copy;
    /// the default when a base is known) or checkout. validate runs no git: it takes the
    /// checkout's, and says so when a base is named.
    #[arg(long, value_enum, value_name = "WHOSE")]
    pub(crate) gate_schema: Option<GateSchema>,

    /// (run) What a session of more than one turn, with a compaction or a model
    /// switch does: require (one turn, else fail), warn (neutral) or allow.
    #[arg(long, value_enum, value_name = "WHAT", default_value = "warn")]
    pub(crate) single_turn: crate::agent::turns::SingleTurn,

    /// (run) Lint the workflows and report what is found as warnings.
    #[arg(long, value_name = "BOOL", default_value = "true", action = clap::ArgAction::Set, value_parser = clap::builder::BoolishValueParser::new())]
    pub(crate) lint_workflows: bool,

    /// (verify) An in-toto statement a run wrote (usage.intoto.json), or the Sigstore
    /// bundles `gh attestation download` wrote (.jsonl). Verified only when the receipt
    /// it records succeeded, it names a subject, its signer, ref and repository are the
    /// ones expected, and every subject hashes again as recorded in the checkout; the
    /// command that checks the signature is printed with the expected values.
    #[arg(long, value_name = "PATH")]
    pub(crate) statement: Option<String>,

    /// (verify, with statement) The repository the statement must come from, OWNER/REPO:
    /// compared with the repository it names, and the `-R` of the `gh attestation verify`
    /// command printed. Without it the repository is not verified.
    #[arg(long, value_name = "OWNER/REPO")]
    pub(crate) repo: Option<String>,

    /// (verify, with statement) The repository's default branch: the statement must have
    /// been made by a workflow run from it (`--source-ref refs/heads/NAME`).
    #[arg(long, value_name = "NAME", default_value = "main")]
    pub(crate) default_branch: String,

    /// (verify, with statement) The workflow that must have signed the statement,
    /// OWNER/REPO/.github/workflows/FILE.yml: receipt.yml in the binding layout (a reusable
    /// workflow signs as itself), or your own workflow file if it runs actions/attest.
    #[arg(
        long,
        value_name = "WORKFLOW",
        default_value = crate::receipt::attest::RECEIPT_WORKFLOW
    )]
    pub(crate) signer_workflow: String,

    /// (verify, with statement) The review the agent job uploaded, where you downloaded it:
    /// hashed for the statement's review subject. Default: the subject's own name
    /// in the checkout, `agent-run/review.json` in the binding layout
    /// (`gh run download RUN_ID -n agent-run -D agent-run`).
    #[arg(long, value_name = "PATH")]
    pub(crate) review: Option<String>,

    /// (audit) The folder of receipts (usage.json), statements or bundles, read recursively.
    #[arg(long, value_name = "PATH")]
    pub(crate) audit_dir: Option<String>,

    /// (audit) How the table is printed: text, markdown or json (the job summary is
    /// always Markdown).
    #[arg(long, value_enum, value_name = "FORMAT", default_value = "text")]
    pub(crate) format: Format,

    /// The check run's name on the pull request.
    #[arg(long, value_name = "NAME", default_value = DEFAULT_CHECK_NAME)]
    pub(crate) check_name: String,

    /// The most annotations the check run carries (GitHub takes 50 a request).
    #[arg(long, value_name = "N", default_value = "200", value_parser = clap::value_parser!(u32).range(0..=5000))]
    pub(crate) max_annotations: u32,

    /// Seconds the GitHub API calls may take in all, retries included; a single
    /// request gets a third of it.
    #[arg(long, value_name = "SECONDS", default_value = "60", value_parser = clap::value_parser!(u64).range(1..=600))]
    pub(crate) api_timeout: u64,

    /// The slug of the GitHub App whose installation token is github-token (receipt.yml
    /// mints it from a key in an environment only the default branch reaches): a check
    /// of this name from any other app, GitHub Actions included, is an imitation.
    #[arg(long, value_name = "SLUG")]
    pub(crate) app_slug: Option<String>,

    /// Check runs of this name that earlier attempts of this workflow run posted, by id
    /// (comma-separated; receipt.yml reads them from its own artifact): not imitations.
    #[arg(long, value_name = "IDS")]
    pub(crate) earlier_check_runs: Option<String>,

    /// Token for the GitHub API (the action passes `github.token`). Never logged.
    #[arg(long, value_name = "TOKEN")]
    pub(crate) github_token: Option<String>,

    /// The workspace root (local runs). Default: $GITHUB_WORKSPACE, else the current folder.
    #[arg(long, value_name = "PATH")]
    pub(crate) workspace: Option<PathBuf>,
}

/// Where the prompt came from.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum PromptSource {
    Inline(String),
    File(String),
}

/// Where the output schema came from.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum SchemaSource {
    Inline(String),
    File(String),
    /// Neither input was given; the default file is used if it exists.
    Default,
}

/// Validated inputs. `None` means "not given" (after trimming).
#[derive(Clone, Debug)]
pub struct Inputs {
    pub(crate) mode: Mode,
    /// `None` only in `verify` mode, which reads the paths from the receipt.
    pub(crate) prompt: Option<PromptSource>,
    pub(crate) prompt_template_file: Option<String>,
    pub(crate) tools_file: String,
    pub(crate) tools_file_given: bool,
    pub(crate) output_file: String,
    pub(crate) output_file_given: bool,
    pub(crate) schema: SchemaSource,
    pub(crate) usage_file: String,
    /// `agent-version`, or the agent's older name for it.
    pub(crate) agent_version: Option<String>,
    /// `agent-args`, or the agent's older name for it.
    pub(crate) agent_args: Option<String>,
    pub(crate) model: Option<String>,
    pub(crate) working_directory: Option<String>,
    pub(crate) github_token: Option<String>,
    /// `app-slug`: the app that posts the check, when it is not GitHub Actions.
    pub(crate) app_slug: Option<String>,
    /// `earlier-check-runs`: this workflow run's own checks of earlier attempts.
    pub(crate) earlier_check_runs: Vec<u64>,
    pub workspace: Option<PathBuf>,
    pub(crate) findings_pointer: String,
    pub(crate) fail_on: FailOn,
    pub(crate) min_severity: Severity,
    pub(crate) check_name: String,
    pub(crate) max_annotations: u32,
    pub(crate) api_timeout: u64,
    pub(crate) agent: crate::agent::AgentKind,
    /// `agent-home`, else `codex-home` (for Codex), and which input it was.
    pub(crate) agent_home: Option<(&'static str, String)>,
    pub(crate) session_id: Option<String>,
    pub(crate) agents_fallback_filenames: Vec<String>,
    pub(crate) project_doc_max_bytes: Option<u64>,
    pub(crate) effort: Option<String>,
    pub(crate) permission_profile: Option<String>,
    pub(crate) safety_strategy: Option<String>,
    /// `default-branch`: the agent saw the default branch's AGENTS files.
    pub(crate) default_branch_instructions: bool,
    pub(crate) max_total_tokens: Option<u64>,
    pub(crate) fixture_file: Option<String>,
    pub(crate) base_usage_file: Option<String>,
    pub(crate) base_output_file: Option<String>,
    pub(crate) allow_changed: Vec<String>,
    pub(crate) base_ref: Option<String>,
    /// `base-branch`: the branch `base-ref` is the tip of.
    pub(crate) base_branch: Option<String>,
    /// `configuration`: whose configuration the agent ran with.
    pub(crate) configuration: Configuration,
    /// `protected-bases`: base branches trusted besides the default branch.
    pub(crate) protected_bases: Vec<String>,
    /// `pull-request-bases`: the branches this head's pull requests merge into.
    pub(crate) pull_request_bases: Vec<String>,
    pub(crate) instructions_changed: InstructionsPolicy,
    pub(crate) gate_schema: Option<GateSchema>,
    pub(crate) single_turn: crate::agent::turns::SingleTurn,
    pub(crate) lint_workflows: bool,
    /// (verify) The statement or bundle file to re-check.
    pub(crate) statement: Option<String>,
    /// (verify, with `statement`) What the statement must say of who signed
    /// it, from the user, never from the statement.
    pub(crate) expected_signer: ExpectedSigner,
    /// (verify, with `statement`) Where the downloaded review is.
    pub(crate) review: Option<String>,
    /// (audit) The folder to read.
    pub(crate) audit_dir: Option<String>,
    pub(crate) format: Format,
}

/// What the command line asked for.
#[derive(Debug)]
pub enum Invocation {
    Run(Box<Inputs>),
    /// `--help` or `--version`: print this and exit 0.
    Print(String),
}

/// The variable the runner sets for input `name`.
pub(crate) fn input_variable(name: &str) -> String {
    format!("INPUT_{}", name.replace(' ', "_").to_uppercase())
}

/// The value of input `name` from the environment: trimmed, empty means absent.
pub(crate) fn input_from_env<'a>(env: &'a Env, name: &str) -> Option<&'a str> {
    env.get(&input_variable(name))
        .map(|v| v.trim())
        .filter(|v| !v.is_empty())
}

/// Parses flags, then fills every flag not given on the command line from its
/// `INPUT_*` variable, then validates.
pub fn parse(args: Vec<OsString>, env: &Env) -> Result<Invocation, Error> {
    let typed = command::typed(&args);
    let args = if typed {
        match command::command().try_get_matches_from(&args) {
            Ok(m) => command::flat(&args[0], &m),
            Err(e) => return clap_outcome(e, word_typed(&args), false),
        }
    } else {
        args
    };
    let mode = word_typed(&args).or_else(|| mode_flag(&args));
    let first = match Cli::command().try_get_matches_from(&args) {
        Ok(m) => m,
        Err(e) => return clap_outcome(e, mode.clone(), true),
    };
    let mut argv = args;
    for arg in Cli::command().get_arguments() {
        let Some(long) = arg.get_long() else { continue };
        if CLI_ONLY.contains(&long)
            || first.value_source(arg.get_id().as_str()) == Some(ValueSource::CommandLine)
        {
            continue;
        }
        if let Some(value) = input_from_env(env, long) {
            argv.push(format!("--{long}={value}").into());
        }
    }
    let matches = match Cli::command().try_get_matches_from(&argv) {
        Ok(m) => m,
        Err(e) => return clap_outcome(e, mode.clone(), true),
    };
    let cli =
        Cli::from_arg_matches(&matches).map_err(|e| Error::new(first_line(&e.to_string())))?;
    Inputs::validate(cli, &matches).map(|i| Invocation::Run(Box::new(i)))
}

/// The command typed as the first word (`prompt-receipt verify ...`), when
/// it is a mode.
fn word_typed(args: &[OsString]) -> Option<String> {
    let first = args.get(1)?.to_str()?;
    Mode::from_str(first, false)
        .ok()
        .map(|m| command::word(m).to_string())
}

/// The mode of the flat form (`--mode verify`, `--mode=verify`), for its help.
fn mode_flag(args: &[OsString]) -> Option<String> {
    let words: Vec<&str> = args.iter().filter_map(|a| a.to_str()).collect();
    words
        .iter()
        .enumerate()
        .find_map(|(i, w)| match w.strip_prefix("--mode") {
            Some("") => words.get(i + 1).map(|m| m.to_string()),
            Some(m) => m.strip_prefix('=').map(str::to_string),
            None => None,
        })
}

/// An input one mode reads, given to another: a mistake worth stopping on
/// (a `run` step given `statement` would not check it).
fn only_in(
    mode: Mode,
    own: Mode,
    name: &str,
    value: Option<String>,
) -> Result<Option<String>, Error> {
    match value {
        Some(_) if mode != own => Err(Error::new(format!(
            "input `{name}` is read by mode `{}` only, and this step's mode is `{}`; set `mode: {}` or leave `{name}` out",
            mode_word_of(own),
            mode_word_of(mode),
            mode_word_of(own)
        ))),
        v => Ok(v),
    }
}

fn mode_word_of(m: Mode) -> String {
    m.to_possible_value()
        .map(|v| v.get_name().to_string())
        .unwrap_or_default()
}

/// Who must have signed a statement, as the user expects it: the repository
/// (`None`: not given, so not compared), the ref its workflow ran from
/// (`refs/heads/<default branch>`) and the signing workflow file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct ExpectedSigner {
    pub(crate) repo: Option<String>,
    pub(crate) source_ref: String,
    pub(crate) workflow: String,
}

/// An input `verify --statement` reads, given without a statement: nothing
/// would read it, and the step would pass without the check it asked for.
fn with_statement(
    reads_statement: bool,
    name: &str,
    value: Option<String>,
) -> Result<Option<String>, Error> {
    match value {
        Some(_) if !reads_statement => Err(Error::new(format!(
            "input `{name}` is read by `verify --statement` only (mode `verify` with `statement`), and this step has no statement; give the statement (`prompt-receipt verify --statement usage.intoto.json --{name} ...`) or leave `{name}` out"
        ))),
        v => Ok(v),
    }
}

/// `OWNER/REPO`, plainly: it goes into the command the step prints.
fn repository(given: &str) -> Result<String, Error> {
    let plain = |p: &str| {
        !p.is_empty()
            && !p.starts_with('.')
            && p.bytes()
                .all(|b| b.is_ascii_alphanumeric() || b"._-".contains(&b))
    };
    match given.split_once('/') {
        Some((owner, repo)) if plain(owner) && plain(repo) => Ok(given.to_string()),
        _ => Err(Error::new(format!(
            "input `repo` is `{}`, not OWNER/REPO; give the repository whose receipt workflow signed the statement, e.g. `octo/reviews`",
            crate::escape::one_line(&crate::markdown::clip(given, 80))
        ))),
    }
}

/// `refs/heads/<default branch>`: the ref the signing workflow must have run from.
fn source_ref(branch: &str) -> Result<String, Error> {
    let branch = branch.trim();
    let plain = crate::base::valid_ref(branch)
        && !branch.starts_with("refs/")
        && !branch.contains("..")
        && !branch.ends_with('/');
    if plain {
        Ok(format!("refs/heads/{branch}"))
    } else {
        Err(Error::new(format!(
            "input `default-branch` is `{}`, not a branch name; give the repository's default branch as its name alone, e.g. `main`",
            crate::escape::one_line(&crate::markdown::clip(branch, 80))
        )))
    }
}

/// `OWNER/REPO/.github/workflows/FILE.yml`, as `gh attestation verify
/// --signer-workflow` takes it.
fn signer_workflow(given: &str) -> Result<String, Error> {
    let given = given.trim();
    if signer_workflow_shape(given) {
        Ok(given.to_string())
    } else {
        Err(Error::new(format!(
            "input `signer-workflow` is `{}`, not OWNER/REPO/.github/workflows/FILE.yml; give the workflow file that signs the statements, e.g. `{}`",
            crate::escape::one_line(&crate::markdown::clip(given, 120)),
            crate::receipt::attest::RECEIPT_WORKFLOW
        )))
    }
}

/// `audit` needs its folder, and only `audit` reads one.
fn audit_dir(mode: Mode, dir: Option<String>) -> Result<Option<String>, Error> {
    let dir = only_in(mode, Mode::Audit, "audit-dir", dir)?;
    match (mode, dir) {
        (Mode::Audit, None) => Err(Error::new(
            "mode `audit` needs a folder: `prompt-receipt audit DIR`, or the input `audit-dir` (downloaded receipts, statements or bundles)",
        )),
        (_, dir) => Ok(dir),
    }
}

/// Help and version printed; an error as one line, with the values an
/// option takes when it names them, and the help to read.
fn clap_outcome(e: clap::Error, mode: Option<String>, flat: bool) -> Result<Invocation, Error> {
    use clap::error::ErrorKind::*;
    let mut top = command::command();
    // Built, so that a command's help names it as `prompt-receipt <mode>`.
    top.build();
    let help_of = |top: &mut clap::Command, mode: &Option<String>| match mode {
        Some(m) if top.find_subcommand(m).is_some() => top
            .find_subcommand_mut(m)
            .unwrap()
            .render_long_help()
            .to_string(),
        _ => top.render_help().to_string(),
    };
    match e.kind() {
        DisplayVersion => Ok(Invocation::Print(e.render().to_string())),
        // The flat form's help would list every option of every mode: the
        // mode's own help, or the list of commands.
        DisplayHelp if flat => Ok(Invocation::Print(help_of(&mut top, &mode))),
        DisplayHelp | DisplayHelpOnMissingArgumentOrSubcommand => {
            Ok(Invocation::Print(e.render().to_string()))
        }
        _ => {
            let rendered = e.render().to_string();
            let values = rendered
                .lines()
                .map(str::trim)
                .find(|l| l.starts_with("[possible values:"))
                .map(|l| format!(" {l}"))
                .unwrap_or_default();
            let help = match &mode {
                Some(m) if top.find_subcommand(m).is_some() => format!("prompt-receipt {m} --help"),
                _ => "prompt-receipt --help".to_string(),
            };
            Err(Error::new(format!(
                "{}{values}; see `{help}`",
                first_line(&rendered).trim_start_matches("error: ")
            )))
        }
    }
}

fn first_line(s: &str) -> String {
    s.lines().next().unwrap_or_default().trim().to_string()
}

/// `owner/repo/.github/workflows/file.yml`, plainly: the only shape a signer
/// workflow is taken in (it goes into a command the summary prints).
pub(crate) fn signer_workflow_shape(w: &str) -> bool {
    let plain = |p: &str| {
        !p.is_empty()
            && !p.starts_with('.')
            && p.bytes()
                .all(|b| b.is_ascii_alphanumeric() || b"._-".contains(&b))
    };
    let parts: Vec<&str> = w.split('/').collect();
    matches!(parts.as_slice(), [owner, repo, ".github", "workflows", file]
        if plain(owner) && plain(repo) && plain(file)
            && (file.ends_with(".yml") || file.ends_with(".yaml")))
}

/// A flag's value, trimmed, with empty meaning "not given", as the runner does it.
fn given(value: Option<String>) -> Option<String> {
    value
        .map(|v| v.trim().to_string())
        .filter(|v| !v.is_empty())
}

impl Inputs {
    fn validate(cli: Cli, matches: &ArgMatches) -> Result<Inputs, Error> {
        let explicit = |id: &str| matches.value_source(id) == Some(ValueSource::CommandLine);
        let (expected_signer, review) = statement_inputs(&cli)?;
        let prompt = prompt_source(cli.mode, given(cli.prompt), given(cli.prompt_file))?;
        let schema = schema_source(given(cli.output_schema), given(cli.output_schema_file))?;
        let aliased = |neutral: &'static str, values: [(&'static str, Option<String>); 3]| {
            neutral_input(cli.agent, neutral, values.map(|(n, v)| (n, given(v))))
        };
        // `v0.169.0` is the version npm installs as 0.169.0: recorded as that.
        let version = [
            ("agent-version", cli.agent_version),
            ("codex-version", cli.codex_version),
            ("claude-version", cli.claude_version),
        ];
        let agent_version = aliased("agent-version", version)?
            .map(|(input, v)| exact_version(input, &v).map(str::to_string))
            .transpose()?;
        let args = [
            ("agent-args", cli.agent_args),
            ("codex-args", cli.codex_args),
            ("claude-args", cli.claude_args),
        ];
        let agent_args = aliased("agent-args", args)?.map(|(_, v)| v);
        Ok(Inputs {
            mode: cli.mode,
            prompt,
            prompt_template_file: given(cli.prompt_template_file),
            tools_file_given: explicit("tools_file"),
            tools_file: cli.tools_file.trim().to_string(),
            output_file_given: explicit("output_file"),
            output_file: cli.output_file.trim().to_string(),
            schema,
            usage_file: cli.usage_file.trim().to_string(),
            agent_version,
            agent_args,
            model: given(cli.model),
            working_directory: given(cli.working_directory),
            github_token: given(cli.github_token),
            app_slug: given(cli.app_slug),
            earlier_check_runs: check_run_ids(given(cli.earlier_check_runs))?,
            workspace: cli.workspace,
            findings_pointer: findings_pointer(&cli.findings_pointer)?,
            fail_on: cli.fail_on,
            min_severity: cli.min_severity,
            check_name: check_name(&cli.check_name)?,
            max_annotations: cli.max_annotations,
            api_timeout: cli.api_timeout,
            agent: cli.agent,
            agent_home: agent_home(cli.agent, given(cli.agent_home), given(cli.codex_home))?,
            session_id: given(cli.session_id),
            agents_fallback_filenames: names(given(cli.agents_fallback_filenames)),
            project_doc_max_bytes: cli.project_doc_max_bytes,
            effort: given(cli.effort),
            permission_profile: given(cli.permission_profile),
            safety_strategy: given(cli.safety_strategy),
            default_branch_instructions: cli.project_instructions_mode.as_deref()
                == Some("default-branch"),
            max_total_tokens: cli.max_total_tokens,
            fixture_file: given(cli.fixture_file),
            base_usage_file: given(cli.base_usage_file),
            base_output_file: given(cli.base_output_file),
            allow_changed: allowed_channels(cli.allow_changed.as_deref())?,
            base_ref: base_ref(given(cli.base_ref))?,
            base_branch: branch_name("base-branch", given(cli.base_branch))?,
            configuration: cli.configuration,
            protected_bases: names(given(cli.protected_bases)),
            pull_request_bases: branch_names(given(cli.pull_request_bases))?,
            instructions_changed: cli.instructions_changed,
            gate_schema: cli.gate_schema,
            single_turn: cli.single_turn,
            lint_workflows: cli.lint_workflows,
            statement: only_in(cli.mode, Mode::Verify, "statement", given(cli.statement))?,
            expected_signer,
            review,
            audit_dir: audit_dir(cli.mode, given(cli.audit_dir))?,
            format: cli.format,
        })
    }
}

/// What `verify --statement` holds a statement to (its signer, ref and
/// repository), and the review it re-hashes.
fn statement_inputs(cli: &Cli) -> Result<(ExpectedSigner, Option<String>), Error> {
    let reads_statement = cli.mode == Mode::Verify && given(cli.statement.clone()).is_some();
    let expected_signer = ExpectedSigner {
        repo: with_statement(reads_statement, "repo", given(cli.repo.clone()))?
            .map(|r| repository(&r))
            .transpose()?,
        source_ref: source_ref(&cli.default_branch)?,
        workflow: signer_workflow(&cli.signer_workflow)?,
    };
    let review = with_statement(reads_statement, "review", given(cli.review.clone()))?;
    Ok((expected_signer, review))
}

/// The prompt, inline or a file, and only one of them; none for the modes
/// that read the receipt's.
fn prompt_source(
    mode: Mode,
    prompt: Option<String>,
    file: Option<String>,
) -> Result<Option<PromptSource>, Error> {
    match (prompt, file) {
        (Some(_), Some(_)) => Err(Error::new(
            "Only one of `prompt` or `prompt-file` may be specified.",
        )),
        (Some(text), None) => Ok(Some(PromptSource::Inline(text))),
        (None, Some(path)) => Ok(Some(PromptSource::File(path))),
        (None, None)
            if matches!(
                mode,
                Mode::Verify | Mode::Compare | Mode::Lint | Mode::Validate | Mode::Audit
            ) =>
        {
            Ok(None)
        }
        (None, None) => Err(Error::new(
            "Either `prompt` or `prompt-file` must be specified.",
        )),
    }
}

/// The output schema, inline or a file, and only one of them.
fn schema_source(inline: Option<String>, file: Option<String>) -> Result<SchemaSource, Error> {
    match (inline, file) {
        (Some(_), Some(_)) => Err(Error::new(
            "Only one of `output-schema` or `output-schema-file` may be specified.",
        )),
        (Some(text), None) => Ok(SchemaSource::Inline(text)),
        (None, Some(path)) => Ok(SchemaSource::File(path)),
        (None, None) => Ok(SchemaSource::Default),
    }
}

fn check_name(given: &str) -> Result<String, Error> {
    match given.trim() {
        "" => Err(Error::new(
            "input `check-name` is empty; name the check run, e.g. `Agent review receipt`",
        )),
        name => Ok(name.to_string()),
    }
}

/// Names separated by commas or lines.
fn names(given: Option<String>) -> Vec<String> {
    given
        .map(|s| {
            s.split([',', '\n'])
                .map(|n| n.trim().to_string())
                .filter(|n| !n.is_empty())
                .collect()
        })
        .unwrap_or_default()
}

/// A `base-ref` git reads as nothing but a commit.
fn base_ref(given: Option<String>) -> Result<Option<String>, Error> {
    match given {
        Some(r) if !crate::base::valid_ref(&r) => Err(Error::new(format!(
            "input `base-ref` is `{}`, which git would not read as a commit; give a branch, tag or full SHA, such as `${{{{ github.event.pull_request.base.sha }}}}`",
            crate::escape::one_line(&crate::markdown::clip(&r, 80))
        ))),
        r => Ok(r),
    }
}

/// Check run ids, one a line or separated by commas: at most as many as
/// receipt.yml keeps.
fn check_run_ids(given: Option<String>) -> Result<Vec<u64>, Error> {
    let ids = names(given);
    if ids.len() > crate::limits::EARLIER_CHECK_RUNS {
        return Err(Error::new(format!(
            "input `earlier-check-runs` names {} check runs, more than the {} receipt.yml keeps; give the ids receipt.yml kept, one a line",
            ids.len(),
            crate::limits::EARLIER_CHECK_RUNS
        )));
    }
    ids.iter()
        .map(|id| {
            id.parse().map_err(|_| {
                Error::new(format!(
                    "input `earlier-check-runs` has `{}`, which is not a check run id; give the ids receipt.yml kept, one a line",
                    crate::escape::one_line(&crate::markdown::clip(id, 40))
                ))
            })
        })
        .collect()
}

/// Branch names, one a line: git allows a comma in a name (`main,`), never
/// a line break. At most as many as receipt.yml keeps.
fn branch_names(given: Option<String>) -> Result<Vec<String>, Error> {
    let names: Vec<&str> = given
        .iter()
        .flat_map(|s| s.lines())
        .map(str::trim)
        .filter(|b| !b.is_empty())
        .collect();
    if names.len() > crate::limits::PULL_REQUEST_BASES {
        return Err(Error::new(format!(
            "input `pull-request-bases` names {} branches, more than the {} receipt.yml keeps; give the branches the open pull requests of the head merge into, one a line",
            names.len(),
            crate::limits::PULL_REQUEST_BASES
        )));
    }
    names
        .into_iter()
        .map(|b| {
            branch_name("pull-request-bases", Some(b.to_string())).map(Option::unwrap_or_default)
        })
        .collect()
}

/// A branch name as GitHub gives it: one line, at most
/// [`crate::limits::BRANCH_NAME_BYTES`]. It is
/// only compared and shown (escaped); git reads `base-ref`, never this.
fn branch_name(input: &str, given: Option<String>) -> Result<Option<String>, Error> {
    match given {
        Some(b)
            if b.len() > crate::limits::BRANCH_NAME_BYTES || b.chars().any(char::is_control) =>
        {
            Err(Error::new(format!(
                "input `{input}` has `{}`, which is not a branch name; give the branch as GitHub names it, such as `main`",
                crate::escape::one_line(&crate::markdown::clip(&b, 80))
            )))
        }
        b => Ok(b),
    }
}

fn parse_severity(s: &str) -> Result<Severity, String> {
    match Severity::parse(s) {
        Some(sev)
            if Severity::ALL
                .iter()
                .any(|a| a.as_str() == s.trim().to_ascii_lowercase()) =>
        {
            Ok(sev)
        }
        _ => Err("expected one of info, low, medium, high, critical".into()),
    }
}

/// The channels `allow-changed` names, each one we know.
fn allowed_channels(s: Option<&str>) -> Result<Vec<String>, Error> {
    // The older names of two channels, as they were first documented.
    let neutral = |n: &str| match n {
        "codex-version" => "agent-version".to_string(),
        "codex-args" => "agent-args".to_string(),
        n => n.to_string(),
    };
    let names: Vec<String> = s
        .unwrap_or("")
        .split([',', '\n', ' '])
        .map(|n| neutral(n.trim()))
        .filter(|n| !n.is_empty())
        .collect();
    let known: Vec<&str> = crate::compare::CHANNELS
        .iter()
        .map(|(c, _)| *c)
        .filter(|c| *c != "prompt")
        .collect();
    match names.iter().find(|n| !known.contains(&n.as_str())) {
        Some(bad) => Err(Error::new(format!(
            "input `allow-changed` names `{}`, not a channel; use some of: {}",
            crate::escape::one_line(bad),
            known.join(", ")
        ))),
        None => Ok(names),
    }
}

/// A JSON Pointer is empty (the whole document) or starts with `/`.
fn findings_pointer(p: &str) -> Result<String, Error> {
    let p = p.trim();
    if p.is_empty() || p.starts_with('/') {
        Ok(p.to_string())
    } else {
        Err(Error::new(format!(
            "input `findings-pointer` is `{}`, not a JSON Pointer; write it as `/findings` (a leading `/`, one `/` per level)",
            crate::escape::one_line(p)
        )))
    }
}

/// The exact version given; refuses a Codex version that is not exact:
/// `latest`, `^1.2`, `1.x`, `>=0.1`...
///
/// A range or a tag resolves to whatever npm serves that day: an invisible input.
/// The receipt exists to make inputs visible, so such a version is a configuration
/// error, not a warning.
pub(crate) fn exact_version<'a>(input: &str, v: &'a str) -> Result<&'a str, Error> {
    crate::version::exact(v).ok_or_else(|| {
        Error::new(format!(
            "input `{input}` is `{}`, which is not an exact version: a tag or a range \
             installs whatever npm serves that day; set the exact version the agent job \
             installed, such as 0.169.0",
            crate::escape::one_line(v)
        ))
    })
}

/// A neutral input (`agent-version`) given under its own name or an older
/// one (`codex-version`, `claude-version`), as (the name it came by, value).
/// The agent's own older name is its alias; two of them that differ are a
/// mistake worth stopping on. An older name every agent reads (an alias the
/// registry marks shared: it was once every agent's) is read last.
fn neutral_input(
    agent: crate::agent::AgentKind,
    neutral: &'static str,
    values: [(&'static str, Option<String>); 3],
) -> Result<Option<(&'static str, String)>, Error> {
    let own = agent.alias(neutral);
    let mut first: Option<(&'static str, String)> = None;
    for (name, value) in values.iter() {
        let Some(value) = value else { continue };
        if *name != neutral && Some(*name) != own {
            continue;
        }
        match &first {
            Some((other, v)) if v != value => {
                return Err(Error::new(format!(
                    "inputs `{other}` and `{name}` differ; give one of them (`{}` is the older name of `{neutral}`)",
                    if *other == neutral { name } else { other }
                )));
            }
            Some(_) => {}
            None => first = Some((name, value.clone())),
        }
    }
    let shared = crate::agent::registry::shared_alias(neutral);
    let legacy = values
        .iter()
        .find(|(n, _)| Some(*n) == shared)
        .and_then(|(n, v)| v.clone().map(|v| (*n, v)));
    Ok(first.or(legacy))
}

/// The folder of the agent's record: `agent-home`, or for Codex `codex-home`
/// (the name codex-action gives it). Both, naming different folders, is a
/// mistake worth stopping on; `codex-home` with another agent is too.
fn agent_home(
    agent: crate::agent::AgentKind,
    home: Option<String>,
    codex_home: Option<String>,
) -> Result<Option<(&'static str, String)>, Error> {
    match (home, codex_home) {
        (Some(h), Some(c)) if h != c => Err(Error::new(
            "inputs `agent-home` and `codex-home` name different folders; give one of them (codex-home is the name codex-action uses)",
        )),
        (Some(h), _) => Ok(Some(("agent-home", h))),
        (None, Some(c)) if agent.alias("agent-home") == Some("codex-home") => {
            Ok(Some(("codex-home", c)))
        }
        (None, Some(_)) => Err(Error::new(format!(
            "input `codex-home` is given, but `agent` is `{}`: give the folder with its record as `agent-home`",
            agent.as_str()
        ))),
        (None, None) => Ok(None),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn env(pairs: &[(&str, &str)]) -> Env {
        pairs
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect()
    }

    fn inputs(args: &[&str], pairs: &[(&str, &str)]) -> Result<Inputs, Error> {
        let mut argv: Vec<OsString> = vec!["prompt-receipt".into()];
        argv.extend(args.iter().map(OsString::from));
        match parse(argv, &env(pairs))? {
            Invocation::Run(i) => Ok(*i),
            Invocation::Print(s) => panic!("unexpected print: {s}"),
        }
    }

    #[test]
    fn variable_names_follow_the_runner() {
        assert_eq!(input_variable("prompt-file"), "INPUT_PROMPT-FILE");
        assert_eq!(input_variable("a b"), "INPUT_A_B");
    }

    #[test]
    fn env_inputs_are_trimmed_and_empty_means_absent() {
        let i = inputs(
            &[],
            &[("INPUT_PROMPT-FILE", "  p.md \n"), ("INPUT_MODEL", "   ")],
        )
        .unwrap();
        assert_eq!(i.prompt, Some(PromptSource::File("p.md".into())));
        assert_eq!(i.model, None);
        assert_eq!(i.tools_file, ".agent/tools.json");
        assert!(!i.tools_file_given);
    }

    #[test]
    fn flags_win_over_variables() {
        let i = inputs(
            &["--model", "m1"],
            &[("INPUT_MODEL", "m2"), ("INPUT_PROMPT", "hi")],
        )
        .unwrap();
        assert_eq!(i.model.as_deref(), Some("m1"));
    }

    #[test]
    fn values_that_look_like_flags_pass_through() {
        let i = inputs(
            &[],
            &[
                ("INPUT_PROMPT", "--mode=verify\nsecond line"),
                ("INPUT_CODEX-ARGS", "-c x=1"),
            ],
        )
        .unwrap();
        assert_eq!(
            i.prompt,
            Some(PromptSource::Inline("--mode=verify\nsecond line".into()))
        );
        assert_eq!(i.agent_args.as_deref(), Some("-c x=1"));
        assert_eq!(i.mode, Mode::Run);
    }

    #[test]
    fn ambiguous_sources_are_refused_with_codex_action_wording() {
        let both = inputs(&[], &[("INPUT_PROMPT", "x"), ("INPUT_PROMPT-FILE", "p")]).unwrap_err();
        assert_eq!(
            both.message(),
            "Only one of `prompt` or `prompt-file` may be specified."
        );
        let neither = inputs(&[], &[("INPUT_PROMPT", "  ")]).unwrap_err();
        assert_eq!(
            neither.message(),
            "Either `prompt` or `prompt-file` must be specified."
        );
        let schemas = inputs(
            &[
                "--prompt",
                "x",
                "--output-schema",
                "{}",
                "--output-schema-file",
                "s",
            ],
            &[],
        )
        .unwrap_err();
        assert_eq!(
            schemas.message(),
            "Only one of `output-schema` or `output-schema-file` may be specified."
        );
    }

    #[test]
    fn the_mode_as_the_first_word() {
        let v = inputs(&["verify", "--statement", "s.json"], &[]).unwrap();
        assert_eq!(
            (v.mode, v.statement.as_deref()),
            (Mode::Verify, Some("s.json"))
        );
        let a = inputs(&["audit", "runs", "--format", "json"], &[]).unwrap();
        assert_eq!(
            (a.mode, a.audit_dir.as_deref(), a.format),
            (Mode::Audit, Some("runs"), Format::Json)
        );
        // A prompt that reads like a mode is a prompt.
        let p = inputs(&["--prompt", "audit"], &[]).unwrap();
        assert_eq!(p.mode, Mode::Run);
        let e = inputs(&["audit"], &[]).unwrap_err();
        assert!(e.message().contains("needs a folder"), "{e}");
        let e = inputs(&["--prompt", "x", "--statement", "s.json"], &[]).unwrap_err();
        assert_eq!(
            e.message(),
            "input `statement` is read by mode `verify` only, and this step's mode is `run`; set `mode: verify` or leave `statement` out"
        );
    }

    /// What a statement is held to comes from the user, checked for the shape
    /// it goes into a command in; each refusal names the input and the fix.
    #[test]
    fn the_expected_signer_of_a_statement() {
        let v = inputs(&["verify", "--statement", "s.json"], &[]).unwrap();
        assert_eq!(
            v.expected_signer,
            ExpectedSigner {
                repo: None,
                source_ref: "refs/heads/main".into(),
                workflow: "prompt-receipt/prompt-receipt/.github/workflows/receipt.yml".into(),
            }
        );
        let v = inputs(
            &[
                "verify",
                "--statement",
                "s.json",
                "--repo",
                "octo/reviews",
                "--review",
                "dl/review.json",
            ],
            &[
                ("INPUT_DEFAULT-BRANCH", "trunk"),
                (
                    "INPUT_SIGNER-WORKFLOW",
                    "octo/reviews/.github/workflows/sign.yml",
                ),
            ],
        )
        .unwrap();
        assert_eq!(v.expected_signer.repo.as_deref(), Some("octo/reviews"));
        assert_eq!(v.expected_signer.source_ref, "refs/heads/trunk");
        assert_eq!(
            v.expected_signer.workflow,
            "octo/reviews/.github/workflows/sign.yml"
        );
        assert_eq!(v.review.as_deref(), Some("dl/review.json"));
        for (args, says) in [
            (
                &["--repo", "octo"][..],
                "input `repo` is `octo`, not OWNER/REPO",
            ),
            (&["--repo", "o/r; rm -rf ~"], "not OWNER/REPO"),
            (
                &["--default-branch", "refs/heads/main"],
                "input `default-branch` is `refs/heads/main`, not a branch name; give the repository's default branch as its name alone",
            ),
            (&["--default-branch", "a..b"], "not a branch name"),
            (
                &[
                    "--signer-workflow",
                    "o/r/.github/workflows/x.yml@refs/heads/main",
                ],
                "input `signer-workflow` is `o/r/.github/workflows/x.yml@refs/heads/main`, not OWNER/REPO/.github/workflows/FILE.yml",
            ),
        ] {
            let mut argv = vec!["verify", "--statement", "s.json"];
            argv.extend(args);
            let e = inputs(&argv, &[]).unwrap_err();
            assert!(e.message().contains(says), "{e}");
        }
        // Read with a statement only: without one, nothing would check them.
        for flag in ["--repo", "--review"] {
            let e = inputs(&["verify", flag, "o/r"], &[]).unwrap_err();
            assert!(
                e.message().contains("is read by `verify --statement` only"),
                "{e}"
            );
            assert!(inputs(&["--prompt", "x", flag, "o/r"], &[]).is_err());
        }
    }

    #[test]
    fn verify_mode_needs_no_prompt() {
        let i = inputs(&["--mode", "verify"], &[]).unwrap();
        assert_eq!(i.prompt, None);
    }

    #[test]
    fn exact_versions_only() {
        let i = inputs(&["--prompt", "x", "--codex-version", "v0.169.0"], &[]).unwrap();
        assert_eq!(i.agent_version.as_deref(), Some("0.169.0"));
        let e = inputs(&["--prompt", "x"], &[("INPUT_CODEX-VERSION", "latest")]).unwrap_err();
        assert!(
            e.message().contains("`latest`") && e.message().contains("0.169.0"),
            "{e}"
        );
    }

    #[test]
    fn bad_mode_is_one_line() {
        let e = inputs(&["--prompt", "x"], &[("INPUT_MODE", "bogus")]).unwrap_err();
        assert!(e.message().contains("bogus"), "{e}");
        assert_eq!(e.message().lines().count(), 1);
    }

    #[test]
    fn neutral_inputs_and_each_agents_older_names() {
        let i = inputs(
            &["--prompt", "x"],
            &[
                ("INPUT_AGENT-VERSION", "0.169.0"),
                ("INPUT_AGENT-ARGS", "-c a=1"),
            ],
        )
        .unwrap();
        assert_eq!(
            (i.agent_version.as_deref(), i.agent_args.as_deref()),
            (Some("0.169.0"), Some("-c a=1"))
        );
        // Claude Code's older names, and the same value twice.
        let c = inputs(
            &["--prompt", "x", "--agent", "claude"],
            &[
                ("INPUT_CLAUDE-VERSION", "2.1.300"),
                ("INPUT_AGENT-VERSION", "2.1.300"),
                ("INPUT_CLAUDE-ARGS", "--model m"),
            ],
        )
        .unwrap();
        assert_eq!(
            (c.agent_version.as_deref(), c.agent_args.as_deref()),
            (Some("2.1.300"), Some("--model m"))
        );
        // The agent's own older name wins over codex-*, once every agent's.
        let both = inputs(
            &["--prompt", "x", "--agent", "claude"],
            &[
                ("INPUT_CLAUDE-VERSION", "2.1.300"),
                ("INPUT_CODEX-VERSION", "0.169.0"),
            ],
        )
        .unwrap();
        assert_eq!(both.agent_version.as_deref(), Some("2.1.300"));
        let legacy = inputs(
            &["--prompt", "x", "--agent", "gemini"],
            &[("INPUT_CODEX-VERSION", "0.61.0")],
        )
        .unwrap();
        assert_eq!(legacy.agent_version.as_deref(), Some("0.61.0"));
        // Two names of one input that differ: stopped, both named.
        let e = inputs(
            &["--prompt", "x"],
            &[
                ("INPUT_AGENT-VERSION", "0.169.0"),
                ("INPUT_CODEX-VERSION", "0.170.0"),
            ],
        )
        .unwrap_err();
        assert!(
            e.message()
                .contains("`agent-version` and `codex-version` differ"),
            "{e}"
        );
        let e = inputs(
            &["--prompt", "x", "--agent", "claude"],
            &[("INPUT_CLAUDE-VERSION", "latest")],
        )
        .unwrap_err();
        assert!(
            e.message()
                .starts_with("input `claude-version` is `latest`"),
            "{e}"
        );
        // codex-home is Codex's older name of agent-home, and only Codex's.
        let h = inputs(&["--prompt", "x"], &[("INPUT_CODEX-HOME", "/h")]).unwrap();
        assert_eq!(h.agent_home, Some(("codex-home", "/h".to_string())));
        assert!(
            inputs(
                &["--prompt", "x", "--agent", "gemini"],
                &[("INPUT_CODEX-HOME", "/h")]
            )
            .is_err()
        );
    }

    /// Every older input name an agent's `aliases` give is a flag, beside its
    /// neutral one (and so an input of action.yml: `every_input_is_declared_and_handled`).
    #[test]
    fn every_alias_is_an_input() {
        let longs: Vec<String> = Cli::command()
            .get_arguments()
            .filter_map(|a| a.get_long().map(str::to_string))
            .collect();
        for alias in crate::agent::registry::aliases() {
            for name in [alias.neutral, alias.older] {
                assert!(longs.iter().any(|l| l == name), "--{name}");
            }
        }
    }

    #[test]
    fn check_run_ids_and_branches_past_what_receipt_yml_keeps_are_refused() {
        let ids = |n: usize| {
            (1..=n)
                .map(|i| i.to_string())
                .collect::<Vec<_>>()
                .join("\n")
        };
        let bases = |n: usize| {
            (1..=n)
                .map(|i| format!("b{i}"))
                .collect::<Vec<_>>()
                .join("\n")
        };
        let run = |name: &str, value: &str| inputs(&["--prompt", "x"], &[(name, value)]);
        let kept = run(
            "INPUT_EARLIER-CHECK-RUNS",
            &ids(crate::limits::EARLIER_CHECK_RUNS),
        );
        assert_eq!(kept.unwrap().earlier_check_runs.len(), 1_000);
        let e = run("INPUT_EARLIER-CHECK-RUNS", &ids(1_001)).unwrap_err();
        assert!(
            e.message().starts_with(
                "input `earlier-check-runs` names 1001 check runs, more than the 1000"
            ),
            "{e}"
        );
        let kept = run(
            "INPUT_PULL-REQUEST-BASES",
            &bases(crate::limits::PULL_REQUEST_BASES),
        );
        assert_eq!(kept.unwrap().pull_request_bases.len(), 100);
        let e = run("INPUT_PULL-REQUEST-BASES", &bases(101)).unwrap_err();
        assert!(
            e.message()
                .starts_with("input `pull-request-bases` names 101 branches, more than the 100"),
            "{e}"
        );
        let long = "b".repeat(crate::limits::BRANCH_NAME_BYTES + 1);
        let e = run("INPUT_PULL-REQUEST-BASES", &long).unwrap_err();
        assert!(e.message().contains("which is not a branch name"), "{e}");
    }
}
