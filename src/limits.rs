//! Every cap on what the receipt reads from untrusted input (the checkout, an
//! upload, an agent's record, the agent's output, the inputs), each named
//! once. The groups follow the rows of the README's "Limits on hostile
//! input" and "Limits on the agent's output" tables, and the test below holds
//! each value to the row that states it. Caps on what the receipt writes (the
//! job summary, the check run, the console) stay beside the code that writes.

use std::time::Duration;

// A diff of a changed instruction file.
/// The longest one diff of two texts may take: past it the diff is coarser, never slower.
pub(crate) const DIFF_TIME: Duration = Duration::from_millis(300);

// A schema `pattern`.
/// Backtracking steps one match may take: `^((a|a)*)\2?b` then costs milliseconds a string.
pub(crate) const PATTERN_BACKTRACK: usize = 10_000;
/// All matching on one document: 10,000 strings built to backtrack took 10 s at 1 ms each.
pub(crate) const PATTERN_TIME: Duration = Duration::from_millis(200);

// The prompt file, the output schema, each `$ref`; AGENTS files, skills,
// finding targets; the instruction chains; a file `restore` puts back.
/// One file read whole from the checkout or an upload: an instruction file or a prompt is KiB.
pub(crate) const FILE_BYTES: u64 = 16 << 20;

// Git on the checkout; a file of the base or of `HEAD` read from git.
/// One object read from git (a file of the base or of `HEAD`, a folder's
/// tree): a blob of zeros packs small and unpacks to gigabytes. Git's
/// other answers (a listing, a diff) are held to the same.
pub(crate) const GIT_OBJECT_BYTES: u64 = 64 << 20;
/// The trees git's object reader keeps, to walk the next path through the
/// same folders without asking again: past it, a tree is read again when
/// it is needed, never kept.
pub(crate) const GIT_TREES_KEPT_BYTES: u64 = 64 << 20;
/// The first line of each answer of git's object reader (`<id> <kind>
/// <size>`, or the name asked and `missing`): the names asked are ours.
pub(crate) const GIT_ANSWER_LINE_BYTES: u64 = 4 << 10;

/// The longest one git call may take: a read that blocks for ever (a FIFO, a
/// descriptor) ends the call, not the job.
pub(crate) const GIT_TIME: std::time::Duration = std::time::Duration::from_secs(60);
/// A file of the git folder git reads as settings (the config, its includes,
/// alternates, attributes, grafts): these are KiB.
pub(crate) const GIT_CONFIG_BYTES: u64 = 1 << 20;
/// A file of the git folder that holds one name (`HEAD`, `commondir`, a loose
/// ref, a `.git` file).
pub(crate) const GIT_REF_BYTES: u64 = 4 << 10;
/// The git folder's `shallow`: one line a shallow commit.
pub(crate) const GIT_SHALLOW_BYTES: u64 = 64 << 20;
/// The git folder's `packed-refs`: a large repository's is tens of MiB.
pub(crate) const GIT_PACKED_REFS_BYTES: u64 = 256 << 20;
/// The git index: a 300,000-file repository's is tens of MiB.
pub(crate) const GIT_INDEX_BYTES: u64 = 4 << 30;
/// Entries of the loose refs looked at.
pub(crate) const GIT_REF_ENTRIES: usize = 200_000;
/// How deep config includes and alternates are followed.
pub(crate) const GIT_INCLUDE_DEPTH: usize = 5;

// A diff of a changed instruction file.
/// Diffs kept in one comparison: past them, the files are listed without one.
pub(crate) const DIFFED_FILES: usize = 20;
/// One side of a diff read: a larger file is named, not diffed.
pub(crate) const DIFF_SIDE_BYTES: u64 = 1 << 20;

// The CLAUDE.md chain: its imports and `.claude/rules/`.
/// Rule files read from one `.claude/rules/`: Claude Code reads them all, a repository has tens.
pub(crate) const RULES: usize = 512;
/// Entries of `.claude/rules/` looked at to find them.
pub(crate) const RULES_FOLDER_ENTRIES: usize = 4 * RULES;
/// How many folders deep `.claude/rules/` is read.
pub(crate) const RULES_DEPTH: usize = 8;
/// `@` mentions looked up in one chain, found or not: prose names people and
/// files that are not there, and each costs a path resolution.
pub(crate) const IMPORT_LOOKUPS: usize = 100_000;
/// Bytes one CLAUDE.md chain reads: every file, imports and rules.
pub(crate) const CHAIN_BYTES: u64 = 32 << 20;

// Every file hashed.
/// A file hashed as a stream (the output, the tools file, a template): past it, no minutes hashing.
pub(crate) const HASHED_BYTES: u64 = 256 << 20;

// Workflow files the lint reads, and the `action.yml` of a local action.
/// One workflow linted: GitHub's own limit on a workflow file is far below.
pub(crate) const LINTED_WORKFLOW_BYTES: u64 = 16 << 20;
/// All workflows linted together: links can name one large file many times.
pub(crate) const LINTED_BYTES: u64 = 64 << 20;
/// The workflow files linted: a repository has tens.
pub(crate) const LINTED_WORKFLOWS: usize = 1_000;
/// The jobs of one workflow linted: far more than a workflow holds.
pub(crate) const LINTED_JOBS: usize = 500;
/// Steps a job is linted with (its own and upstream): a chain of `needs:` grows as its square.
pub(crate) const LINTED_STEPS: usize = 20_000;
/// A local action's `action.yml` the lint reads: an action's metadata is KiB.
pub(crate) const LINTED_ACTION_BYTES: u64 = 1 << 20;
/// Nodes YAML aliases may copy in one document: a "billion laughs" file must not take the memory.
pub(crate) const ALIAS_NODES: usize = 1_000_000;

// A session record.
/// A session record after decompression: a review's is a few MiB, and 134 KB of zstd can be 4 GiB.
pub(crate) const RECORD_BYTES: u64 = 256 << 20;
// opencode's database and snapshots (the seconds below are SQLite's).
/// The most files listed from one opencode plugin or custom tool folder.
pub(crate) const PLUGIN_FOLDER_FILES: usize = 64;
/// How deep a glob of opencode's `instructions` list is walked.
pub(crate) const INSTRUCTIONS_GLOB_DEPTH: usize = 16;
/// The most files one glob of opencode's `instructions` list adds.
pub(crate) const INSTRUCTIONS_GLOB_FILES: usize = 512;
/// The opencode snapshot repositories looked at.
pub(crate) const SNAPSHOT_REPOSITORIES: usize = 16;
/// The files of a differing opencode snapshot tree named.
pub(crate) const SNAPSHOT_NAMED: usize = 200;
/// The seconds SQLite may work on a record that is a database (opencode's)
/// before it is stopped: a hostile file can ask for work no size cap bounds.
pub(crate) const DATABASE_SECONDS: u64 = 30;

// Codex-home.
/// The rollout files looked at in codex-home: an agent job's holds a handful.
pub(crate) const ROLLOUTS: usize = 1_000;
/// Entries a walk of codex-home, `audit`'s folder or the workflows looks at: each holds tens.
pub(crate) const FOLDER_ENTRIES: usize = 100_000;
/// A rollout's first line (`session_meta`), decompressed: a line that never ends costs no more.
pub(crate) const FIRST_LINE_BYTES: u64 = 1 << 20;

// `usage.json`.
/// The usage file the agent job uploads: a receipt is a few KiB.
pub(crate) const USAGE_BYTES: u64 = 4 << 20;

// `verify --statement`; `audit`.
/// A statement or bundle: a 16 MiB predicate is 21 MiB in base64, and a download holds several.
pub(crate) const STATEMENT_BYTES: u64 = 64 << 20;
/// The subjects of one statement checked: as many as `actions/attest` signs.
pub(crate) const SUBJECTS: usize = 1_024;
/// One subject hashed: as large as a runtime file the receipt hashes.
pub(crate) const SUBJECT_BYTES: u64 = 64 << 20;
/// The deepest folder `audit` follows: a folder of downloaded artifacts is a few deep.
pub(crate) const AUDIT_DEPTH: usize = 32;

// AGENTS files, skills, codex-home's `config.toml`; configurations the
// runtime reads.
/// A configuration (settings, `.mcp.json`, `config.toml`, `hooks.json`, `.env`): these are KiB.
pub(crate) const CONFIG_BYTES: u64 = 1 << 20;

// Claude Code's, Gemini CLI's and Copilot CLI's records.
/// Lines read from one record: far more than a review writes, and a bound on a hostile one's work.
pub(crate) const RECORD_LINES: usize = 200_000;
/// One line of a record: a longer one is not parsed (a parsed line takes several times its size).
pub(crate) const RECORD_LINE_BYTES: usize = 32 << 20;
/// The agent's account beside its record (Claude's execution file, Gemini's stdout), read whole.
pub(crate) const EXECUTION_BYTES: u64 = 64 << 20;
/// Entries of one folder looked at when an agent's records are listed: a job's home has a handful.
pub(crate) const RECORD_FOLDER_ENTRIES: usize = 10_000;
/// The records read to find this run's among several: a job's home has one or two.
pub(crate) const RECORD_CANDIDATES: usize = 64;
/// Gemini's history rewinds and rebuilds read: each rebuilds the history, a session has a few.
pub(crate) const REBUILDS: usize = 64;
/// Gemini's turns' contexts hashed in all: each is all before it, so one long message repeats.
pub(crate) const CONTEXT_HASHED_BYTES: usize = 256 << 20;

// What is kept of a record.
/// Commands kept from a Codex record (the rest counted): a review runs tens.
pub(crate) const RECORD_COMMANDS: usize = 10_000;
/// Hook runs kept from a Claude Code record (each names its command): a review has tens.
pub(crate) const HOOK_RUNS: usize = 10_000;
/// A hook event name kept (`PreToolUse:StructuredOutput` is 27 bytes).
pub(crate) const HOOK_EVENT_BYTES: usize = 128;
/// Instruction files Copilot CLI loaded just in time that are named: a record names a few.
pub(crate) const DISCOVERED_FILES: usize = 256;
/// Kinds kept from a redaction marker (the rest added up under `other`): the filters drop a few.
pub(crate) const MARKER_KINDS: usize = 32;
/// A redaction marker's kind or filter name, cut: `response_item:function_call_output` is 34.
pub(crate) const MARKER_KIND_CHARS: usize = 80;

// Configurations the runtime reads.
/// Commands read from one configuration: a configuration has a handful of hooks.
pub(crate) const CONFIG_COMMANDS: usize = 256;
/// Files one agent's reach lists, and the agent workflow compares: past them the rest is said.
pub(crate) const REACH_FILES: usize = 256;
/// A runtime file hashed for the receipt: a larger one is listed unhashed (git compares it whole).
pub(crate) const RUNTIME_HASHED_BYTES: u64 = 64 << 20;

// The CLAUDE.md, GEMINI.md and Copilot instruction chains, hook settings.
/// `.instructions.md` files Copilot CLI's chain reads from one folder tree: a repository has tens.
pub(crate) const INSTRUCTION_FILES: usize = 512;
/// How deep `.github/instructions/` is walked: a tree of instructions is a few deep.
pub(crate) const INSTRUCTIONS_DEPTH: usize = 8;
/// `.github/hooks/*.json` files read for Copilot CLI: a repository has a few.
pub(crate) const HOOK_FILES: usize = 64;

// `@` imports of the GEMINI.md and CLAUDE.md chains.
/// Imports one chain follows, every occurrence counted: imports that fan out multiply.
pub(crate) const IMPORTS: usize = 1_024;
/// How deep imports are followed: as deep as Gemini CLI and Claude Code follow them (5 hops).
pub(crate) const IMPORT_DEPTH: usize = 5;
/// Bytes imports add to one GEMINI.md chain, every occurrence counted: Gemini CLI inlines each.
pub(crate) const INLINED_BYTES: u64 = 16 << 20;

// The agent workflow and what its steps run.
/// The agent workflow, a local `action.yml` or a local called workflow: GitHub's own are KiB.
pub(crate) const AGENT_WORKFLOW_BYTES: u64 = 1 << 20;
/// How deep local actions and called workflows are followed: a job's nest one or two deep.
pub(crate) const AGENT_WORKFLOW_DEPTH: usize = 8;
/// Local actions and called workflows followed in all: a job uses a few.
pub(crate) const AGENT_WORKFLOWS_FOLLOWED: usize = 64;
/// `run:` steps whose scripts are read: far more than a job holds.
pub(crate) const RUN_STEPS: usize = 500;
/// Lines of one script read: a step's script is tens.
pub(crate) const SCRIPT_LINES: usize = 2_000;
/// How deep `$( )` and `bash -c` in a script are followed: a script nests one or two.
pub(crate) const SCRIPT_NESTING: usize = 8;

// What `mode: restore` puts back.
/// Files put back: an agent's configuration is tens of files.
pub(crate) const RESTORE_FILES: usize = 10_000;
/// Bytes put back in all: memory holds every file until all are checked.
pub(crate) const RESTORE_BYTES: u64 = 256 << 20;
/// Rounds of reading what the restored settings reach: a hook configuration names its scripts.
pub(crate) const RESTORE_ROUNDS: usize = 4;

// `earlier-check-runs`, `pull-request-bases`, the event payload.
/// Check run ids `earlier-check-runs` gives: receipt.yml keeps 1,000, one per attempt and check.
pub(crate) const EARLIER_CHECK_RUNS: usize = 1_000;
/// Branches `pull-request-bases` names: receipt.yml keeps 100, one page of pull requests.
pub(crate) const PULL_REQUEST_BASES: usize = 100;
/// A branch name from an input or the event: as GitHub gives one, at most 255 bytes.
pub(crate) const BRANCH_NAME_BYTES: usize = 255;
/// The event payload (`GITHUB_EVENT_PATH`): GitHub caps a webhook payload at 25 MB.
pub(crate) const EVENT_BYTES: u64 = 64 << 20;

// The GitHub API's answers about check runs.
/// Check runs a listing asks for at a time: the most GitHub gives.
pub(crate) const CHECK_RUNS_PER_PAGE: usize = 100;
/// Pages of check runs of this name read to find another's (an imitation):
/// 1,000 runs of one name on one commit. Past them the listing is not verified.
pub(crate) const CHECK_RUN_PAGES: usize = 10;
/// Pages read to find the check run this step made when the answer to its
/// create was lost: 10,000 runs of one name on one commit is far past any
/// real workflow.
pub(crate) const OWN_CHECK_RUN_PAGES: usize = 100;

// The agent's output.
/// The agent's output read: a review is KiB, and this keeps memory bounded whatever it wrote.
pub(crate) const OUTPUT_BYTES: u64 = 32 << 20;
/// Nesting of the output: serde_json's own limit, named here because it is one of ours.
pub(crate) const OUTPUT_DEPTH: usize = 128;
/// Violations located to put them in file order; the rest are counted.
pub(crate) const LOCATED_VIOLATIONS: usize = 10_000;
/// Violations reported, the first in the file: more than any report shows.
pub(crate) const REPORTED_VIOLATIONS: usize = 1_000;
/// A violation message, which quotes the offending value: cut past this.
pub(crate) const MESSAGE_CHARS: usize = 500;

#[cfg(test)]
mod tests {
    use super::*;

    /// `1,024`, as the README writes a count.
    fn count(n: usize) -> String {
        let digits = n.to_string();
        let mut out = String::new();
        for (i, c) in digits.chars().enumerate() {
            if i > 0 && (digits.len() - i) % 3 == 0 {
                out.push(',');
            }
            out.push(c);
        }
        out
    }

    /// `16 MiB`, as the README writes a size.
    fn mib(bytes: u64) -> String {
        assert_eq!(bytes % (1 << 20), 0, "{bytes} is not whole MiB");
        format!("{} MiB", bytes >> 20)
    }

    /// `300 ms`, as the README writes a time.
    fn ms(d: Duration) -> String {
        format!("{} ms", d.as_millis())
    }

    const INPUT: &str = "Limits on hostile input";
    const OUTPUT: &str = "Limits on the agent's output";

    /// Each cap as the README writes it: the table, how its row's first cell
    /// starts, and what the row says.
    macro_rules! stated {
        ($($table:ident $first:literal: $($said:expr),+;)*) => {
            vec![$($(($table, $first, $said)),+),*]
        };
    }

    fn stated() -> Vec<(&'static str, &'static str, String)> {
        stated![
            INPUT "git on the checkout":
                format!("{} of output", mib(GIT_OBJECT_BYTES)),
                format!("{} of trees kept", mib(GIT_TREES_KEPT_BYTES)),
                format!("its header line at most {} KiB", GIT_ANSWER_LINE_BYTES >> 10),
                format!("a {} s deadline", GIT_TIME.as_secs()),
                format!("`commondir` ({} KiB)", GIT_REF_BYTES >> 10),
                format!("alternates (followed {GIT_INCLUDE_DEPTH} deep)"),
                format!("it includes ({} each;", mib(GIT_CONFIG_BYTES)),
                format!("`shallow` ({})", mib(GIT_SHALLOW_BYTES)),
                format!("`packed-refs` ({})", mib(GIT_PACKED_REFS_BYTES)),
                format!("the index ({} GiB)", GIT_INDEX_BYTES >> 30),
                format!("every loose ref ({} KiB; {} loose refs)", GIT_REF_BYTES >> 10, count(GIT_REF_ENTRIES));
            INPUT "a file of the base or of `HEAD`":
                format!("{} (git is stopped past it)", mib(GIT_OBJECT_BYTES));
            INPUT "a diff of a changed instruction file": format!("{} each", ms(DIFF_TIME)),
                format!("{} per side, {DIFFED_FILES} files", mib(DIFF_SIDE_BYTES));
            INPUT "a schema `pattern`":
                format!("{} backtracking steps per match", count(PATTERN_BACKTRACK)),
                format!("{} of pattern matching per document", ms(PATTERN_TIME));
            INPUT "the prompt file, the output schema": format!("{} each", mib(FILE_BYTES));
            INPUT "every file hashed": format!("{}, hashed as a stream", mib(HASHED_BYTES));
            INPUT "workflow files the lint reads":
                format!("{} a workflow", mib(LINTED_WORKFLOW_BYTES)),
                format!("{} and {} files in all", mib(LINTED_BYTES), count(LINTED_WORKFLOWS)),
                format!("{} jobs a workflow", count(LINTED_JOBS)),
                format!("{} steps a job", count(LINTED_STEPS)),
                format!("{} an `action.yml`", mib(LINTED_ACTION_BYTES)),
                format!("{} nodes", count(ALIAS_NODES)),
                format!("{} entries of `.github/workflows`", count(FOLDER_ENTRIES));
            INPUT "a session record": format!("{} after decompression", mib(RECORD_BYTES));
            INPUT "opencode's database":
                format!("{DATABASE_SECONDS} s of SQLite's work"),
                format!("{SNAPSHOT_REPOSITORIES} snapshot repositories"),
                format!("{SNAPSHOT_NAMED} differing files named a snapshot"),
                format!("walks {INSTRUCTIONS_GLOB_DEPTH} folders deep"),
                format!("{INSTRUCTIONS_GLOB_FILES} files"),
                format!("{PLUGIN_FOLDER_FILES} files listed from a plugin or tool folder");
            INPUT "codex-home":
                format!("{} session records", count(ROLLOUTS)),
                format!("{} entries under `sessions/`", count(FOLDER_ENTRIES)),
                format!("its first line ({}, decompressed)", mib(FIRST_LINE_BYTES)),
                format!("inside codex-home, {}", mib(FILE_BYTES));
            INPUT "`usage.json`": format!("| {} |", mib(USAGE_BYTES));
            INPUT "`verify --statement`":
                format!("{}; the first {}", mib(STATEMENT_BYTES), count(SUBJECTS)),
                format!("the subjects past {}", count(SUBJECTS)),
                format!("each file once; {}", mib(SUBJECT_BYTES));
            INPUT "`audit`":
                format!("{} entries, {AUDIT_DEPTH} folders deep", count(FOLDER_ENTRIES)),
                format!("{} a file", mib(STATEMENT_BYTES));
            INPUT "AGENTS files":
                format!("{} ({} for the config)", mib(FILE_BYTES), mib(CONFIG_BYTES));
            INPUT "Claude Code's, Gemini CLI's":
                format!("{} lines", count(RECORD_LINES)),
                format!("{} a line", mib(RECORD_LINE_BYTES as u64)),
                format!("Gemini's `stdout.log` {} each", mib(EXECUTION_BYTES)),
                format!("Gemini's local telemetry {}", mib(RECORD_BYTES)),
                format!("at most {} entries a folder", count(RECORD_FOLDER_ENTRIES)),
                format!("{RECORD_CANDIDATES} read to find this run's"),
                format!("{REBUILDS} rewinds and rebuilt histories"),
                format!("hashed up to {} in all", mib(CONTEXT_HASHED_BYTES as u64));
            INPUT "what is kept of a record":
                format!("{} commands", count(RECORD_COMMANDS)),
                format!("{} hook runs", count(HOOK_RUNS)),
                format!("event names of {HOOK_EVENT_BYTES} bytes"),
                format!("{DISCOVERED_FILES} files loaded just in time"),
                format!("{MARKER_KINDS} kinds of {MARKER_KIND_CHARS} characters");
            INPUT "configurations the runtime reads":
                format!("{} each", mib(CONFIG_BYTES)),
                format!("{CONFIG_COMMANDS} commands a configuration"),
                format!("{REACH_FILES} files listed per agent"),
                format!("hashed up to {}", mib(RUNTIME_HASHED_BYTES));
            INPUT "the instruction chains":
                format!("at most {RULES} rules and {} entries a folder", count(RULES_FOLDER_ENTRIES)),
                format!("{INSTRUCTION_FILES} `.instructions.md` files"),
                format!("{INSTRUCTIONS_DEPTH} folders deep"),
                format!("{HOOK_FILES} hook files");
            INPUT "`@` imports of the GEMINI.md chain":
                format!("{} imports followed", count(IMPORTS)),
                format!("{IMPORT_DEPTH} deep"),
                format!("{} inlined per chain", mib(INLINED_BYTES));
            INPUT "`@` imports and `.claude/rules/`":
                format!("{} files imported", count(IMPORTS)),
                format!("{} `@` mentions looked up", count(IMPORT_LOOKUPS)),
                format!("{} read per chain", mib(CHAIN_BYTES)),
                format!("`.claude/rules/` {RULES_DEPTH} folders deep"),
                format!("{IMPORT_DEPTH} deep");
            INPUT "the agent workflow and":
                format!("{} each", mib(AGENT_WORKFLOW_BYTES)),
                format!("followed {AGENT_WORKFLOW_DEPTH} deep, {AGENT_WORKFLOWS_FOLLOWED} in all"),
                format!("{RUN_STEPS} `run:` steps"),
                format!("{} lines a script", count(SCRIPT_LINES)),
                format!("followed {SCRIPT_NESTING} deep in a script"),
                format!("{REACH_FILES} files compared");
            INPUT "what `mode: restore`":
                format!("{} files, {} a file", count(RESTORE_FILES), mib(FILE_BYTES)),
                format!("{} in all", mib(RESTORE_BYTES)),
                format!("{RESTORE_ROUNDS} rounds");
            INPUT "`earlier-check-runs`":
                format!("{} ids", count(EARLIER_CHECK_RUNS)),
                format!("{PULL_REQUEST_BASES} branch names"),
                format!("{BRANCH_NAME_BYTES} bytes");
            INPUT "the event payload":
                format!("{};", mib(EVENT_BYTES)),
                format!("{BRANCH_NAME_BYTES} bytes");
            INPUT "check runs of the check's name":
                format!("{CHECK_RUN_PAGES} pages of {CHECK_RUNS_PER_PAGE}"),
                format!("({} check runs)", count(CHECK_RUN_PAGES * CHECK_RUNS_PER_PAGE)),
                format!("{OWN_CHECK_RUN_PAGES} pages to find the one this step made");
            OUTPUT "size": format!("| {} |", mib(OUTPUT_BYTES)),
                format!("up to {}", mib(HASHED_BYTES));
            OUTPUT "nesting": format!("| {OUTPUT_DEPTH} levels |");
            OUTPUT "violations located": format!("| {} |", count(LOCATED_VIOLATIONS));
            OUTPUT "violations reported": format!("| {} |", count(REPORTED_VIOLATIONS));
            OUTPUT "message length": format!("| {MESSAGE_CHARS} characters |");
        ]
    }

    /// The row of the README's table under `heading` whose first cell starts
    /// with `first`: there must be one.
    fn row<'r>(readme: &'r str, heading: &str, first: &str) -> &'r str {
        let table = readme
            .split(&format!("### {heading}\n"))
            .nth(1)
            .and_then(|t| t.split("\n#").next())
            .unwrap_or_else(|| panic!("the README has no `{heading}`"));
        let rows: Vec<&str> = table
            .lines()
            .filter(|l| l.starts_with(&format!("| {first}")))
            .collect();
        assert_eq!(rows.len(), 1, "`{heading}`: rows starting `{first}`");
        rows[0]
    }

    #[test]
    fn the_readme_states_each_cap() {
        let readme = include_str!("../README.md");
        for (heading, first, said) in stated() {
            let line = row(readme, heading, first);
            assert!(
                line.contains(&said),
                "the README's row `{first}` does not say `{said}`: {line}"
            );
        }
        assert_eq!(count(1024), "1,024");
        assert_eq!(count(100_000), "100,000");
    }

    /// A cap added above without its row in [`stated`] fails here.
    #[test]
    fn each_cap_is_held_to_a_row() {
        let source = include_str!("limits.rs");
        let (caps, tests) = source.split_once("#[cfg(test)]").unwrap();
        let stated = tests.split_once("stated![").unwrap().1;
        let stated = stated.split_once("\n        ]").unwrap().0;
        let word = |c: char| c == '_' || c.is_ascii_alphanumeric();
        let names: Vec<&str> = caps
            .lines()
            .filter_map(|l| l.strip_prefix("pub(crate) const "))
            .filter_map(|l| l.split_once(':').map(|(name, _)| name))
            .collect();
        assert!(names.contains(&"FILE_BYTES"), "{names:?}");
        for name in names {
            let held = stated.match_indices(name).any(|(i, _)| {
                !stated[..i].ends_with(word) && !stated[i + name.len()..].starts_with(word)
            });
            assert!(held, "`{name}` is not held to a row of the README");
        }
    }
}
