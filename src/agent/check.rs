//! The agent-neutral result: what an agent's record showed, and every
//! disagreement with what the checkout predicts. Each agent's folder fills
//! it; the receipt, verify and report stages read nothing else.

use serde::{Deserialize, Serialize};

use super::AgentKind;
use super::turns::{SingleTurn, Turn};

/// Token counts, one meaning for every agent: `input` is every input token
/// of every request, cached reads and cache writes included (Codex counts so;
/// Anthropic's `input_tokens` leaves both out, and the Claude reader adds
/// them back). `total` is `input + output`.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct Tokens {
    pub(crate) input: u64,
    /// The part of `input` read from the prompt cache.
    pub(crate) cached_input: u64,
    /// The part of `input` written to the prompt cache (Codex 0.169 and later, Claude).
    #[serde(default)]
    pub(crate) cache_write_input: u64,
    pub(crate) output: u64,
    /// The part of `output` spent reasoning, where the agent says.
    pub(crate) reasoning: u64,
    pub(crate) total: u64,
}

/// The record itself, as the receipt names it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct TranscriptRecord {
    pub(crate) path: String,
    pub(crate) session_id: Option<String>,
    pub(crate) sha256: String,
    /// `raw`, or `redacted` when the agent job's filter cut the record down
    /// (then `redaction` says what it dropped).
    #[serde(default)]
    pub(crate) record: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) redaction: Option<super::redaction::Redaction>,
}

impl TranscriptRecord {
    /// The record as the receipt names it: `path` as shown (relative to the
    /// workspace, or under the agent's home), raw or redacted.
    pub(crate) fn of(
        path: String,
        session_id: Option<String>,
        sha256: String,
        redaction: Option<super::redaction::Redaction>,
    ) -> TranscriptRecord {
        TranscriptRecord {
            path,
            session_id,
            sha256,
            record: super::redaction::kind(redaction.as_ref()).into(),
            redaction,
        }
    }
}

/// The session's settings, as the record has them (the receipt's `session`).
/// Codex's names; an agent fills what it records and leaves the rest `None`.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct SessionRecord {
    pub(crate) cli_version: Option<String>,
    pub(crate) originator: Option<String>,
    pub(crate) model: Option<String>,
    pub(crate) approval_policy: Option<String>,
    pub(crate) sandbox: Option<String>,
    pub(crate) duration_ms: Option<u64>,
    /// The commit the agent ran on: the receipt's `git_sha` must be it.
    #[serde(default)]
    pub(crate) git_commit: Option<String>,
    /// The reasoning effort and permission profile the turn ran with.
    #[serde(default)]
    pub(crate) effort: Option<String>,
    #[serde(default)]
    pub(crate) permission_profile: Option<String>,
}

/// A skill as the receipt records it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct Skill {
    pub(crate) name: String,
    /// Relative to the workspace for the repository's skills; as listed
    /// (`$CODEX_HOME/...` or absolute) for the others.
    pub(crate) path: String,
    /// SHA-256 of the SKILL.md file, when the receipt can read it.
    pub(crate) sha256: Option<String>,
}

/// The hashes of what the model received before the prompt, part by part.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(crate) struct Context {
    /// Every message between the base instructions and the prompt, canonically serialized.
    pub(crate) sha: String,
    /// The base instructions (system prompt) as the agent recorded them.
    pub(crate) base_instructions_sha: Option<String>,
    /// The developer message: developer instructions, skills, permissions, tools note.
    pub(crate) developer_sha: Option<String>,
    /// The environment block.
    pub(crate) environment_sha: Option<String>,
    pub(crate) skills: Vec<Skill>,
}

/// One row of the evidence table that only one agent has ("Codex CLI",
/// "Permission mode"). The value is the record's text: the report escapes it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Fact {
    pub(crate) label: String,
    pub(crate) value: FactValue,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum FactValue {
    /// An identifier, a version, a hash: shown as code.
    Code(String),
    /// A sentence: shown as prose.
    Text(String),
    /// The record does not say.
    Missing,
}

impl Fact {
    pub(crate) fn code(label: &str, value: Option<&str>) -> Fact {
        Fact {
            label: label.into(),
            value: value.map_or(FactValue::Missing, |v| FactValue::Code(v.into())),
        }
    }

    pub(crate) fn text(label: &str, value: impl Into<String>) -> Fact {
        Fact {
            label: label.into(),
            value: FactValue::Text(value.into()),
        }
    }
}

/// What the record showed, and every disagreement with the checkout.
#[derive(Clone, Debug, Default)]
pub(crate) struct AgentCheck {
    pub(crate) kind: AgentKind,
    pub(crate) transcript: Option<TranscriptRecord>,
    /// The settings the record holds (the receipt's `session`).
    pub(crate) settings: Option<SessionRecord>,
    pub(crate) prompt_sent_sha: Option<String>,
    pub(crate) tokens: Option<Tokens>,
    /// Every turn the model answered; `output_turn` is the one whose answer
    /// is the output.
    pub(crate) turns: Vec<Turn>,
    pub(crate) output_turn: Option<usize>,
    /// What the model received between its base instructions and the prompt.
    pub(crate) context: Option<Context>,
    /// Rows of the evidence table only this agent has, in order.
    pub(crate) facts: Vec<Fact>,
    /// Each fails the run.
    pub(crate) problems: Vec<String>,
    /// Worth saying, not failing: a stripped BOM, a choice between records.
    pub(crate) notes: Vec<String>,
    /// Skills the pull request added or changed that the agent was shown.
    pub(crate) new_skills: Vec<String>,
    /// Checks the record could not support: (what is missing, why it matters).
    /// The pull request or the upload could be behind each: in the binding
    /// layout, each fails the run.
    pub(crate) unverified: Vec<(String, String)>,
    /// What this agent's record never shows, on any run (Copilot CLI's record
    /// holds no tools list): (what, why). Said in the summary and the docs,
    /// and never a cap on the conclusion: nothing a pull request does makes
    /// it so, and a check that is never green teaches people to read past it.
    pub(crate) limits: Vec<(String, String)>,
    /// What a hook said, as the record shows it: (what, why). No record keeps
    /// a hook's command or where it came from, so this is a limit when a
    /// hook is configured (its configuration and what it runs are compared
    /// with the base), and not verified when none is: then nothing accounts
    /// for the text.
    pub(crate) hook_said: Vec<(String, String)>,
    /// What makes the session more than one turn of one model (a compaction,
    /// turns, models), each a sentence for the title: at most neutral.
    pub(crate) timeline: Vec<String>,
}

/// What the checkout says the agent should have received: the same for
/// every agent (each agent's own settings are in its options).
#[derive(Clone)]
pub(crate) struct Expected<'a> {
    pub(crate) prompt_path: Option<&'a str>,
    pub(crate) prompt_bytes: &'a [u8],
    /// SHA-256 of the instruction text the chain computed from the checkout
    /// predicts (the receipt's `agents_sha`).
    pub(crate) agents_sha: Option<&'a str>,
    pub(crate) cli_version: Option<&'a str>,
    pub(crate) model: Option<&'a str>,
    pub(crate) output_path: &'a str,
    /// `None` when there is no output (the review gate says so already).
    pub(crate) output: Option<&'a [u8]>,
    pub(crate) max_total_tokens: Option<u64>,
    /// The commit of the checkout (`git rev-parse HEAD`).
    pub(crate) git_sha: &'a str,
    /// The folder the agent ran in, relative to the workspace (`.` for the root).
    pub(crate) workdir: &'a str,
    /// Every input the receipt records, relative to the workspace: the agent
    /// must not have changed any of them during its run.
    pub(crate) inputs: &'a [String],
    /// Skill files the pull request added or changed (relative to the workspace).
    pub(crate) changed_skills: &'a [String],
    /// What more than one turn, a compaction or a model switch does.
    pub(crate) single_turn: SingleTurn,
    /// The receipt's output schema, as the checkout (or the input) has it:
    /// the schema the agent must have been given.
    pub(crate) schema: Option<&'a [u8]>,
}

#[cfg(test)]
impl Expected<'static> {
    /// What a test states when it states nothing else: the prompt `Review`
    /// from `p.md`, no chain, no claims, the output `r.json`, commit
    /// `c0ffee`, the workspace root as the working directory.
    pub(crate) fn example() -> Expected<'static> {
        Expected {
            prompt_path: Some("p.md"),
            prompt_bytes: b"Review",
            agents_sha: None,
            cli_version: None,
            model: None,
            output_path: "r.json",
            output: None,
            max_total_tokens: None,
            git_sha: "c0ffee",
            workdir: ".",
            inputs: &[],
            changed_skills: &[],
            single_turn: super::turns::SingleTurn::Warn,
            schema: None,
        }
    }
}

/// Shell commands that can write a file they name: a command of the agent's
/// that names one of its inputs and holds one of these is counted as an edit
/// (the records say what ran, not what it changed). The same for every agent.
pub(crate) const SHELL_WRITES: &[&str] = &[
    ">",
    "tee ",
    "sed -i",
    "perl -i",
    "mv ",
    "cp ",
    "rm ",
    "truncate",
    "dd ",
    "ln ",
    "touch ",
    "install ",
    "patch ",
    "git checkout",
    "git restore",
    "git apply",
    "git mv",
    "git rm",
];

/// A hash shortened for a sentence; the receipt has it in full.
pub(crate) fn short(sha: &str) -> String {
    sha.chars().take(12).collect()
}

/// The prompt as a CLI that takes it as an argument got it: `Some(true)` byte
/// for byte, `Some(false)` with only the trailing line breaks a shell's
/// `$(cat file)` drops (said, not failed), `None` another text.
pub(crate) fn same_prompt(sent: &str, expected: &[u8]) -> Option<bool> {
    if sent.as_bytes() == expected {
        return Some(true);
    }
    let text = String::from_utf8_lossy(expected);
    let trimmed = text.trim_end_matches(['\n', '\r']);
    (sent == trimmed && !sent.is_empty()).then_some(false)
}

/// A path as a path walker reads it: empty and `.` parts dropped (`a//b`,
/// `./a`), each `..` taking out the part before it. An absolute path stays
/// absolute (`/..` is `/`); a relative one whose `..` climbs above where it
/// starts is `None`. Lexical, as the agents' file tools resolve paths.
pub(crate) fn normalize(path: &str) -> Option<String> {
    let absolute = path.starts_with('/');
    let mut parts: Vec<&str> = Vec::new();
    for part in path.split('/') {
        match part {
            "" | "." => {}
            ".." => {
                if parts.pop().is_none() && !absolute {
                    return None;
                }
            }
            p => parts.push(p),
        }
    }
    let joined = parts.join("/");
    Some(if absolute {
        format!("/{joined}")
    } else {
        joined
    })
}

/// A path an agent's file tool or command named, as the receipt names its
/// inputs: relative to the workspace, normalised ([`normalize`]) before
/// anything is matched, so `<root>/./a`, `<root>/docs/../a` and
/// `<root>//a` are all `a`. `path` is absolute on the agent's machine or
/// relative to its working directory `cwd`; `workdir` is that directory
/// relative to the workspace. `None` when it is outside the workspace, or
/// absolute and the agent's cwd is not known. Every agent's edit check
/// matches through this one function.
pub(crate) fn workspace_path(path: &str, cwd: &str, workdir: &str) -> Option<String> {
    let workdir = normalize(workdir).filter(|w| !w.starts_with('/'))?;
    let in_workdir = |rel: &str| {
        if workdir.is_empty() {
            normalize(rel)
        } else {
            normalize(&format!("{workdir}/{rel}"))
        }
    };
    let out = if path.starts_with('/') {
        let path = normalize(path)?;
        let cwd = normalize(cwd).filter(|c| c.starts_with('/'))?;
        let under = |base: &str| -> Option<String> {
            if base == "/" {
                return Some(path[1..].to_string());
            }
            let rest = path.strip_prefix(base)?;
            if rest.is_empty() {
                Some(String::new())
            } else {
                rest.strip_prefix('/').map(str::to_string)
            }
        };
        // The workspace root on the agent's machine: its cwd less the
        // working directory; failing that, the cwd is the working directory.
        let root = if workdir.is_empty() {
            Some(cwd.clone())
        } else {
            cwd.strip_suffix(&format!("/{workdir}")).map(|r| {
                if r.is_empty() {
                    "/".into()
                } else {
                    r.to_string()
                }
            })
        };
        match root {
            Some(root) => under(&root)?,
            None => in_workdir(&under(&cwd)?)?,
        }
    } else {
        in_workdir(path)?
    };
    (!out.is_empty()).then_some(out)
}

/// Characters around a path in a shell command: quotes, redirections,
/// `--flag=`, separators.
fn shell_boundary(c: char) -> bool {
    c.is_whitespace()
        || matches!(
            c,
            '\'' | '"' | '>' | '<' | '=' | ';' | '|' | '&' | '(' | ')'
        )
}

/// Whether a command names `input` (workspace-relative) as a whole path: as
/// the workspace names it, relative to the agent's cwd, or absolute, in any
/// spelling (`./a`, `docs/../a`, `a//b`, `<cwd>/./a`): each word of the
/// command is normalised as a file tool's path is.
fn mentions(command: &str, input: &str, cwd: &str, workdir: &str) -> bool {
    let spelled = command
        .split(shell_boundary)
        .filter(|w| !w.is_empty())
        .any(|w| {
            workspace_path(w, cwd, workdir).as_deref() == Some(input)
                || (!w.starts_with('/') && normalize(w).as_deref() == Some(input))
        });
    spelled || mentions_as_written(command, input, cwd, workdir)
}

/// [`mentions`] for the spellings written out whole.
fn mentions_as_written(command: &str, input: &str, cwd: &str, workdir: &str) -> bool {
    let mut spellings = vec![input.to_string()];
    let in_workdir = if workdir == "." || workdir.is_empty() {
        Some(input)
    } else {
        input.strip_prefix(&format!("{}/", workdir.trim_end_matches('/')))
    };
    if let Some(rel) = in_workdir {
        spellings.push(rel.to_string());
        spellings.push(format!("./{rel}"));
        if !cwd.is_empty() {
            spellings.push(format!("{}/{rel}", cwd.trim_end_matches('/')));
        }
    }
    let boundary = |c: Option<char>| c.is_none_or(shell_boundary);
    spellings.iter().any(|s| {
        command.match_indices(s.as_str()).any(|(at, _)| {
            boundary(command[..at].chars().next_back())
                && boundary(command[at + s.len()..].chars().next())
        })
    })
}

/// The inputs one shell command of the agent's could have written: it holds
/// a writing command and names the input as a whole path. Every agent's
/// edit check asks this of each command its record holds.
pub(crate) fn inputs_a_command_can_write<'a>(
    command: &str,
    inputs: &'a [String],
    cwd: &str,
    workdir: &str,
) -> Vec<&'a String> {
    if !SHELL_WRITES.iter().any(|w| command.contains(w)) {
        return Vec::new();
    }
    inputs
        .iter()
        .filter(|input| mentions(command, input, cwd, workdir))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_command_writes_an_input_it_names_as_a_whole_path_in_any_spelling() {
        let inputs = ["src/p.md".to_string(), "AGENTS.md".to_string()];
        let can = |cmd: &str| inputs_a_command_can_write(cmd, &inputs, "/w/r/src", "src");
        assert_eq!(can("sed -i s/a/b/ ./p.md"), [&inputs[0]]);
        assert_eq!(can("echo x > /w/r/src/p.md"), [&inputs[0]]);
        assert_eq!(can("tee AGENTS.md"), [&inputs[1]]);
        // A reading command, and a longer name that holds an input's.
        assert!(can("cat src/p.md AGENTS.md").is_empty());
        assert!(can("echo x > AGENTS.mdx").is_empty());
    }

    #[test]
    fn paths_are_normalised_before_they_are_matched() {
        assert_eq!(normalize("./a//b/./c").as_deref(), Some("a/b/c"));
        assert_eq!(normalize("docs/../CLAUDE.md").as_deref(), Some("CLAUDE.md"));
        assert_eq!(normalize("/w/r/../r/./x").as_deref(), Some("/w/r/x"));
        assert_eq!(normalize("/../x").as_deref(), Some("/x"));
        assert_eq!(normalize("../x"), None);
        let root = |p: &str| workspace_path(p, "/w/r", ".");
        for spelled in [
            "/w/r/./.github/claude/review.schema.json",
            "/w/r/docs/../.github/claude/review.schema.json",
            "/w/r//.github///claude/review.schema.json",
            "/w/x/../r/.github/claude/./review.schema.json",
            "./.github/claude/review.schema.json",
            ".github/./claude/review.schema.json",
            "docs/../.github/claude/review.schema.json",
        ] {
            assert_eq!(
                root(spelled).as_deref(),
                Some(".github/claude/review.schema.json"),
                "{spelled}"
            );
        }
        assert_eq!(root("/w/r/../CLAUDE.md"), None, "above the workspace");
        assert_eq!(root("/w/rx/CLAUDE.md"), None, "a sibling folder");
        assert_eq!(root("../CLAUDE.md"), None);
        assert_eq!(root("/w/r"), None, "the root itself");
        assert_eq!(workspace_path("/w/r/a", "", "."), None, "no cwd");
        // The agent ran in `src`: relative to it, and above it in the workspace.
        let sub = |p: &str| workspace_path(p, "/w/r/src/", "./src");
        assert_eq!(sub("p.md").as_deref(), Some("src/p.md"));
        assert_eq!(sub("../AGENTS.md").as_deref(), Some("AGENTS.md"));
        assert_eq!(sub("/w/r/src/../AGENTS.md").as_deref(), Some("AGENTS.md"));
        assert_eq!(sub("../../AGENTS.md"), None);
        // A cwd that does not end with the working directory: the cwd is it.
        assert_eq!(
            workspace_path("/elsewhere/./p.md", "/elsewhere", "src").as_deref(),
            Some("src/p.md")
        );
    }

    #[test]
    fn a_command_that_spells_an_input_otherwise_writes_it() {
        let inputs = ["src/p.md".to_string(), "CLAUDE.md".to_string()];
        let can = |cmd: &str| inputs_a_command_can_write(cmd, &inputs, "/w/r/src", "src");
        for cmd in [
            "echo x > ../CLAUDE.md",
            "echo x > ./../CLAUDE.md",
            "tee /w/r/./CLAUDE.md",
            "cp a /w/r/docs/../CLAUDE.md",
            "cp a /w/r//CLAUDE.md",
            "sed -i s/a/b/ 'docs/../../CLAUDE.md'",
            "echo x >>\"/w/r/src/../CLAUDE.md\"",
        ] {
            assert_eq!(can(cmd), [&inputs[1]], "{cmd}");
        }
        for cmd in [
            "sed -i s/a/b/ .//p.md",
            "echo x > src/./p.md",
            "rm ./x/../p.md",
            "dd of=/w/r/src/./p.md",
        ] {
            assert_eq!(can(cmd), [&inputs[0]], "{cmd}");
        }
        assert!(can("cat ../CLAUDE.md").is_empty(), "reads only");
        assert!(can("echo x > ../CLAUDE.md.bak").is_empty());
        assert!(can("echo x > /w/r/x/../../CLAUDE.md").is_empty());
    }
}
