//! One checklist for every agent. Each agent's folder turns its record into
//! an [`Observation`] (where the agent ran, the prompt as sent, the turns and
//! their models, the tokens and where they were counted, the tool calls as
//! file writes and commands, the answer), and [`judge`] holds it to what the
//! checkout predicts, the same way and in the same words whichever agent ran.
//! What only one agent's record can show (Codex's settings, Claude Code's
//! structured output, Copilot CLI's system prompt) stays in its folder.

use super::check::{AgentCheck, Expected, Tokens, inputs_a_command_can_write, short};
use super::seam::About;
use super::turns::{self, SingleTurn, Turn};
use crate::digest::{UTF8_BOM, sha256_hex};
use crate::escape::one_line;
use crate::markdown::clip;

/// What an agent's record holds of a value the step also states (the CLI
/// version, the commit).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Recorded<'r> {
    Value(&'r str),
    /// This record does not say, though the agent's records can.
    Missing,
    /// No record of this agent ever says: a limit of the agent, not of the run.
    Never,
}

/// How the record names the commit the agent ran on.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Commit<'r> {
    Full(&'r str),
    /// Abbreviated, as `git status` shows it: a prefix of the checkout's.
    Abbreviated(&'r str),
    Missing,
    Never,
}

/// The model's answer, where the review must come from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Answer<'r> {
    /// Its text, as the model sent it.
    Text(&'r str),
    /// The record holds none.
    Missing,
    /// Not text: the agent's folder holds the review to it (Claude Code's
    /// structured output is a JSON value a hook can replace).
    Own,
}

/// One tool call of the agent, as far as its inputs are concerned.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum Call<'r> {
    /// A tool that writes the file it names.
    Write {
        path: String,
        /// `changed`, `created` or `deleted`.
        verb: &'static str,
        /// How, for the sentence: the tool's name in backticks, "an applied patch".
        how: String,
        /// `None` when it took effect; else why not (`status failed`, "its
        /// result was an error"): said, not failed.
        not_done: Option<String>,
    },
    /// A shell command: the record says what ran, not what it changed.
    Command { text: &'r str, failed: bool },
}

/// What one record shows of one run, in words every agent's record fits.
#[derive(Debug, Default)]
pub(crate) struct Observation<'r> {
    /// The folder the agent ran in, on the agent's machine.
    pub(crate) cwd: Option<&'r str>,
    /// The prompt of the turn whose answer is the output, as sent.
    pub(crate) prompt: Option<&'r str>,
    pub(crate) version: Option<Recorded<'r>>,
    pub(crate) commit: Option<Commit<'r>>,
    /// The model of the answer.
    pub(crate) model: Option<&'r str>,
    /// Every turn, and the one whose answer is the output.
    pub(crate) turns: Vec<Turn>,
    pub(crate) output_turn: Option<usize>,
    /// Models a turn switched to before its last (turn, model).
    pub(crate) switched: Vec<(usize, &'r str)>,
    pub(crate) tokens: Option<Tokens>,
    pub(crate) calls: Vec<Call<'r>>,
    pub(crate) answer: Option<Answer<'r>>,
}

/// Everything the checklist judges, in order. Returns where the workspace
/// root was on the agent's machine (its cwd less the working directory),
/// for the agent's own checks of the paths its record names.
pub(crate) fn judge(
    c: &mut AgentCheck,
    about: &About,
    o: Observation,
    x: &Expected,
) -> Option<String> {
    let root = working_directory(c, about, o.cwd, x.workdir);
    prompt(c, about, o.prompt, x);
    version(c, about, o.version, x.cli_version);
    commit(c, about, o.commit, x.git_sha);
    models(c, about, &o, x.model);
    budget(c, about, o.tokens.as_ref(), x.max_total_tokens);
    edits(c, about, &o.calls, o.cwd.unwrap_or_default(), x);
    answer(c, about, o.answer, x);
    timeline(c, &o.turns, &o.switched, x.single_turn);
    c.tokens = o.tokens;
    c.turns = o.turns;
    c.output_turn = o.output_turn;
    root
}

/// The files an `apply_patch` text names (`*** Update File: p`), each a
/// [`Call::Write`]: the patch format Codex, Copilot CLI and opencode share.
pub(crate) fn patched_files(patch: &str) -> Vec<String> {
    patch
        .lines()
        .filter_map(|l| {
            [
                "*** Update File: ",
                "*** Add File: ",
                "*** Delete File: ",
                "*** Move to: ",
            ]
            .iter()
            .find_map(|p| l.strip_prefix(p))
        })
        .map(|p| p.trim().to_string())
        .collect()
}

/// The workspace root on the agent's machine: `cwd` less the working
/// directory (`None` when `cwd` is elsewhere).
pub(crate) fn agent_root(cwd: &str, workdir: &str) -> Option<String> {
    let cwd = cwd.trim_end_matches('/');
    let workdir = workdir.trim_end_matches('/');
    if workdir == "." || workdir.is_empty() {
        return Some(cwd.to_string());
    }
    cwd.strip_suffix(workdir)
        .and_then(|r| r.strip_suffix('/'))
        .map(str::to_string)
}

/// The agent ran in the working directory of this checkout.
fn working_directory(
    c: &mut AgentCheck,
    about: &About,
    cwd: Option<&str>,
    workdir: &str,
) -> Option<String> {
    let Some(cwd) = cwd else {
        c.unverified.push((
            "the agent's working directory".into(),
            format!(
                "the record names no working directory{}: the paths it names could not be placed in the checkout",
                about.fields.cwd
            ),
        ));
        return None;
    };
    let root = agent_root(cwd, workdir);
    if root.is_none() {
        c.problems.push(format!(
            "the agent ran in `{}`, which does not end in the working directory `{workdir}`: the record is of another folder; give this step the agent's working-directory",
            one_line(&clip(cwd, 200))
        ));
    }
    root
}

/// The prompt as sent is the prompt hashed, byte for byte, but for what
/// agents and shells are known to drop: a leading byte order mark, and the
/// trailing line breaks `$(cat file)` drops. Each is said.
fn prompt(c: &mut AgentCheck, about: &About, sent: Option<&str>, x: &Expected) {
    let name = x
        .prompt_path
        .map_or("the inline prompt".to_string(), |p| format!("`{p}`"));
    let Some(sent) = sent else {
        c.problems
            .push("the record holds no user prompt: the agent may not have run".into());
        return;
    };
    let without_bom = x.prompt_bytes.strip_prefix(UTF8_BOM);
    if without_bom.is_some_and(|rest| rest == sent.as_bytes()) {
        c.notes.push(format!(
            "{name} starts with a byte order mark, which {} strips: the agent received the rest, byte for byte",
            about.name
        ));
    } else {
        match super::check::same_prompt(sent, x.prompt_bytes) {
            Some(true) => {}
            Some(false) => c.notes.push(format!(
                "{name} ends with line breaks the agent did not receive (a shell's `$(cat …)` drops them): the agent received the rest, byte for byte"
            )),
            None => c.problems.push(format!(
                "the prompt the agent received (sha256 {}) is not {name} (sha256 {}): was the hash taken before a template was rendered, or the agent given another prompt?",
                short(&sha256_hex(sent.as_bytes())),
                short(&sha256_hex(x.prompt_bytes))
            )),
        }
    }
    c.prompt_sent_sha = Some(sha256_hex(sent.as_bytes()));
}

/// The CLI version the step states is the one that wrote the record.
fn version(c: &mut AgentCheck, about: &About, ran: Option<Recorded>, claimed: Option<&str>) {
    let name = about.name;
    match (ran, claimed) {
        (None, _) => {}
        (Some(Recorded::Value(ran)), Some(claimed)) if claimed != ran => c.problems.push(format!(
            "agent-version is `{claimed}` but the record was written by {name} `{}`{}",
            one_line(&clip(ran, 80)),
            about.fields.other_version
        )),
        (Some(Recorded::Value(ran)), None) if about.without_version.is_none() => {
            c.notes.push(format!(
                "agent-version was not given: the record says {name} `{}` ran, and nothing holds it to the version the agent job pinned; pass the agent job's exact version to this step too",
                one_line(&clip(ran, 80))
            ))
        }
        (Some(Recorded::Missing), Some(claimed)) => c.unverified.push((
            "the CLI version".into(),
            format!(
                "agent-version is `{claimed}`, but the record names no {name} version{}: nothing shows which {name} ran",
                about.fields.version
            ),
        )),
        (Some(Recorded::Never), _) => c.limits.push((
            "the CLI version".into(),
            format!(
                "{name}'s records name no version{}: nothing shows which {name} ran",
                claimed.map_or(String::new(), |v| format!(" (the step says `{v}`)"))
            ),
        )),
        _ => {}
    }
}

/// The record is of the commit the receipt names.
fn commit(c: &mut AgentCheck, about: &About, ran: Option<Commit>, git_sha: &str) {
    let other = |ran: &str| {
        format!(
            "the session ran on commit {}, but the checkout is {git_sha}: the record is from another run; download the artifact of this run, and check out the commit the agent job checked out",
            one_line(&clip(ran, 80))
        )
    };
    match ran {
        None => {}
        Some(Commit::Full(ran)) if ran != git_sha => c.problems.push(other(ran)),
        Some(Commit::Abbreviated(ran)) if ran.is_empty() || !git_sha.starts_with(ran) => {
            c.problems.push(other(ran))
        }
        Some(Commit::Missing) => c.unverified.push((
            "the record's commit".into(),
            format!(
                "the record names no git commit{}: nothing ties it to this checkout",
                about.fields.commit
            ),
        )),
        Some(Commit::Never) => c.limits.push((
            "the record's commit".into(),
            format!(
                "{}'s records name no git commit: nothing but the prompt and the instruction files ties one to this checkout",
                about.name
            ),
        )),
        Some(_) => {}
    }
}

/// The answer's model is the one the step states, and so is every other
/// turn's and every model a turn switched to.
fn models(c: &mut AgentCheck, about: &About, o: &Observation, claimed: Option<&str>) {
    let Some(claimed) = claimed else { return };
    let n = o.turns.len();
    match o.model {
        Some(ran) if ran != claimed => c.problems.push(format!(
            "model is `{claimed}` but the session ran `{}`",
            one_line(&clip(ran, 80))
        )),
        Some(_) => {}
        None => c.unverified.push((
            "the model".into(),
            format!(
                "model is `{claimed}`, but the record names no model for the answer{}",
                about.fields.model
            ),
        )),
    }
    let answered = o.output_turn.or(n.checked_sub(1));
    let others = o.turns.iter().enumerate().filter_map(|(t, turn)| {
        (Some(t) != answered)
            .then_some(turn.model.as_deref().map(|m| (t, m)))
            .flatten()
    });
    let mut said: Vec<(usize, &str)> = Vec::new();
    for (t, ran) in others.chain(o.switched.iter().copied()) {
        if ran == claimed || said.contains(&(t, ran)) {
            continue;
        }
        said.push((t, ran));
        c.problems.push(format!(
            "model is `{claimed}` but turn {} of {n} ran `{}`",
            t + 1,
            one_line(&clip(ran, 80))
        ));
    }
}

/// The circuit breaker: the session used no more tokens than allowed.
fn budget(c: &mut AgentCheck, about: &About, tokens: Option<&Tokens>, max: Option<u64>) {
    let Some(max) = max else { return };
    let Some(t) = tokens else {
        c.unverified.push((
            "the token count".into(),
            format!(
                "max-total-tokens is {max}, but the record has no token count{}: the budget could not be checked",
                about.fields.tokens
            ),
        ));
        return;
    };
    if t.total <= max {
        return;
    }
    let cache: Vec<String> = [
        (t.cached_input, "cache reads"),
        (t.cache_write_input, "cache writes"),
    ]
    .iter()
    .filter(|(n, _)| *n > 0)
    .map(|(n, what)| format!("{n} {what}"))
    .collect();
    let of = |parts: &[String]| {
        if parts.is_empty() {
            String::new()
        } else {
            format!(" of which {}", parts.join(" and "))
        }
    };
    let reasoning = if t.reasoning > 0 {
        vec![format!("{} reasoning", t.reasoning)]
    } else {
        Vec::new()
    };
    c.problems.push(format!(
        "the session used {} tokens ({} input{}, {} output{}), over max-total-tokens {max}",
        t.total,
        t.input,
        of(&cache),
        t.output,
        of(&reasoning)
    ));
}

/// The agent must not change what it was given: a tool that wrote an input
/// or an instruction file is named, and so is a command that names an input
/// and can write (the records say what ran, not what it changed).
fn edits(c: &mut AgentCheck, about: &About, calls: &[Call], cwd: &str, x: &Expected) {
    for call in calls {
        match call {
            Call::Write {
                path,
                verb,
                how,
                not_done,
            } => {
                // Normalised first: `<root>/./a` and `<root>/docs/../a` are
                // `a`; a path outside the workspace is still an instruction
                // file by its name.
                let rel = super::check::workspace_path(path, cwd, x.workdir)
                    .or_else(|| super::check::normalize(path))
                    .unwrap_or_else(|| path.clone());
                if !(x.inputs.contains(&rel) || (about.instructions)(&rel)) {
                    continue;
                }
                let rel = one_line(&clip(&rel, 200)).into_owned();
                match not_done {
                    None => c.problems.push(format!(
                        "the agent {verb} `{rel}` during its run ({how}): what the receipt recorded is not what the agent left; fix the prompt or the agent's permissions so it cannot change its own inputs"
                    )),
                    Some(why) => c.notes.push(format!(
                        "the agent's {how} on `{rel}` during its run did not take effect ({why}): the file was not changed by it"
                    )),
                }
            }
            Call::Command { text, failed } => {
                for input in inputs_a_command_can_write(text, x.inputs, cwd, x.workdir) {
                    let what = format!(
                        "the agent ran a command that can write `{input}`: `{}`; the receipt cannot vouch that the agent left it as recorded",
                        one_line(&clip(text, 200))
                    );
                    if *failed {
                        c.notes.push(format!("{what} (its result was an error)"));
                    } else {
                        c.problems.push(what);
                    }
                }
            }
        }
    }
}

/// The review the gate read is the model's own last answer. Any difference
/// but trailing whitespace is a problem; a record without one is said.
fn answer(c: &mut AgentCheck, about: &About, answer: Option<Answer>, x: &Expected) {
    let (Some(output), Some(answer)) = (x.output, answer) else {
        return;
    };
    let path = x.output_path;
    let last = match answer {
        Answer::Own => return,
        Answer::Text(last) => last,
        Answer::Missing => {
            c.unverified.push((
                "the agent's last answer".into(),
                format!(
                    "the record holds no answer of the model{}: that `{path}` is the model's own answer is not shown",
                    about.fields.answer
                ),
            ));
            return;
        }
    };
    let output = String::from_utf8_lossy(output);
    if output == last {
    } else if output.trim_end() == last.trim_end() {
        c.notes.push(format!(
            "`{path}` is the agent's last answer plus trailing whitespace"
        ));
    } else {
        c.problems.push(format!(
            "`{path}` is not the agent's last answer (sha256 {} vs {}): something rewrote the review after the agent",
            short(&sha256_hex(output.as_bytes())),
            short(&sha256_hex(last.as_bytes()))
        ));
    }
}

/// Every item no input covers is named (a hook's output, a message after
/// the prompt), and more than one turn, a compaction or a model switch is
/// said as `single-turn` decides.
fn timeline(c: &mut AgentCheck, all: &[Turn], switched: &[(usize, &str)], policy: SingleTurn) {
    for (t, turn) in all.iter().enumerate() {
        let of_turn = if all.len() > 1 {
            format!(" of turn {}", t + 1)
        } else {
            String::new()
        };
        turns::name_uncovered_items(c, turn, &of_turn);
    }
    let said = turns::beyond_one_turn(all, switched);
    match policy {
        SingleTurn::Require => c.problems.extend(said.iter().map(|s| {
            format!("{s}, and `single-turn: require` asks for one turn of one model with nothing summarised")
        })),
        SingleTurn::Warn => c.timeline.extend(said),
        SingleTurn::Allow => c.notes.extend(
            said.iter()
                .map(|s| format!("{s} (allowed by `single-turn: allow`)")),
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::agent::registry;

    fn expected<'a>(inputs: &'a [String]) -> Expected<'a> {
        Expected {
            prompt_path: Some("p.md"),
            prompt_bytes: b"Review\n",
            agents_sha: None,
            cli_version: Some("1.0.0"),
            model: Some("m1"),
            output_path: "r.json",
            output: Some(b"{\"ok\": true}"),
            max_total_tokens: Some(100),
            git_sha: "c0ffee00",
            workdir: "sub",
            inputs,
            changed_skills: &[],
            single_turn: SingleTurn::Require,
            schema: None,
        }
    }

    /// Everything wrong at once, in a record every agent's folder could fill.
    fn wrong() -> Observation<'static> {
        Observation {
            cwd: Some("/home/runner/work/r/r/other"),
            prompt: Some("Review something else"),
            version: Some(Recorded::Value("2.0.0")),
            commit: Some(Commit::Full("deadbeef")),
            model: Some("m2"),
            turns: vec![
                Turn {
                    model: Some("m3".into()),
                    ..Turn::default()
                },
                Turn {
                    model: Some("m2".into()),
                    ..Turn::default()
                },
            ],
            output_turn: Some(1),
            switched: Vec::new(),
            tokens: Some(Tokens {
                input: 120,
                cached_input: 20,
                output: 30,
                total: 150,
                ..Tokens::default()
            }),
            calls: vec![
                Call::Write {
                    path: "/home/runner/work/r/r/other/../p.md".into(),
                    verb: "changed",
                    how: "`write`".into(),
                    not_done: None,
                },
                Call::Command {
                    text: "sed -i s/a/b/ ../p.md",
                    failed: false,
                },
            ],
            answer: Some(Answer::Text("{\"ok\": false}")),
        }
    }

    /// One sentence per judgement, whichever agent ran: the same record
    /// gives every agent the same problems, word for word.
    #[test]
    fn every_agent_is_judged_in_the_same_words() {
        let inputs = vec!["p.md".to_string()];
        let mut seen: Option<Vec<String>> = None;
        for kind in registry::all() {
            let mut c = AgentCheck::default();
            let root = judge(
                &mut c,
                registry::agent(kind).about(),
                wrong(),
                &expected(&inputs),
            );
            assert_eq!(root, None, "the agent ran elsewhere");
            let problems = c.problems.clone();
            for said in [
                "the agent ran in `/home/runner/work/r/r/other`, which does not end in the working directory `sub`",
                "the prompt the agent received (sha256 ",
                "agent-version is `1.0.0` but the record was written by ",
                "the session ran on commit deadbeef, but the checkout is c0ffee00",
                "model is `m1` but the session ran `m2`",
                "model is `m1` but turn 1 of 2 ran `m3`",
                "the session used 150 tokens (120 input of which 20 cache reads, 30 output), over max-total-tokens 100",
                "`r.json` is not the agent's last answer",
                "2 turns, 2 models: m3, m2, and `single-turn: require`",
            ] {
                assert!(
                    problems.iter().any(|p| p.starts_with(said)),
                    "{kind:?} {said}: {problems:#?}"
                );
            }
            // The version sentence names the agent; nothing else differs.
            let words: Vec<String> = problems
                .iter()
                .filter(|p| !p.starts_with("agent-version"))
                .cloned()
                .collect();
            match &seen {
                None => seen = Some(words),
                Some(before) => assert_eq!(before, &words, "{kind:?}"),
            }
        }
    }

    #[test]
    fn a_write_outside_the_workspace_is_an_instruction_file_by_its_name() {
        let inputs = Vec::new();
        let mut x = expected(&inputs);
        x.workdir = ".";
        for (kind, file) in [
            (crate::agent::AgentKind::Codex, "AGENTS.md"),
            (crate::agent::AgentKind::Claude, "CLAUDE.md"),
            (crate::agent::AgentKind::Gemini, "GEMINI.md"),
            (crate::agent::AgentKind::Copilot, "x.instructions.md"),
        ] {
            let mut c = AgentCheck::default();
            let o = Observation {
                cwd: Some("/w"),
                calls: vec![Call::Write {
                    path: format!("/elsewhere/{file}"),
                    verb: "created",
                    how: "`write`".into(),
                    not_done: Some("status `declined`".into()),
                }],
                ..Observation::default()
            };
            judge(&mut c, registry::agent(kind).about(), o, &x);
            assert!(
                c.notes.iter().any(|n| n.contains(&format!(
                    "the agent's `write` on `/elsewhere/{file}` during its run did not take effect (status `declined`)"
                ))),
                "{kind:?}: {:?}",
                c.notes
            );
        }
    }

    #[test]
    fn what_a_record_lacks_is_unverified_and_what_no_record_has_is_a_limit() {
        let inputs = Vec::new();
        let x = expected(&inputs);
        let mut c = AgentCheck::default();
        let o = Observation {
            version: Some(Recorded::Missing),
            commit: Some(Commit::Never),
            answer: Some(Answer::Missing),
            ..Observation::default()
        };
        judge(
            &mut c,
            registry::agent(crate::agent::AgentKind::Codex).about(),
            o,
            &x,
        );
        let unverified: Vec<&str> = c.unverified.iter().map(|(w, _)| w.as_str()).collect();
        assert_eq!(
            unverified,
            [
                "the agent's working directory",
                "the CLI version",
                "the model",
                "the token count",
                "the agent's last answer"
            ]
        );
        let limits: Vec<&str> = c.limits.iter().map(|(w, _)| w.as_str()).collect();
        assert_eq!(limits, ["the record's commit"]);
        assert_eq!(
            c.problems,
            ["the record holds no user prompt: the agent may not have run"]
        );
    }

    #[test]
    fn the_root_is_the_cwd_less_the_working_directory() {
        assert_eq!(agent_root("/w/r/sub", "sub").as_deref(), Some("/w/r"));
        assert_eq!(agent_root("/w/r/", "sub/").as_deref(), None);
        assert_eq!(agent_root("/w/r", ".").as_deref(), Some("/w/r"));
        assert_eq!(agent_root("/w/rsub", "sub"), None);
    }
}
