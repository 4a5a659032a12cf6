//! What reached GitHub Copilot CLI, proven with the real CLI offline (1.0.80
//! and 1.0.102, installed by `.ci/run`).
//!
//! Each case runs `copilot -p "$PROMPT" --allow-all-tools -s` in a checkout
//! with every kind of instruction file, against a local OpenAI API that logs
//! every request; then the receipt step runs with `agent: copilot` and the
//! agent home (`~/.copilot`), and its hashes are compared with what the fake
//! received. Expected values come from the logged requests, never from the
//! receipt.

use crate::common;

use std::path::PathBuf;

use common::copilot::{self, FakeOpenAi, REVIEW, VERSIONS};
use common::*;
use prompt_receipt::digest::sha256_hex;
use serde_json::{Value, json};

const PROMPT: &str = EXAMPLE_PROMPT;
const MODEL: &str = "gpt-5.4";
/// Every kind of file Copilot CLI sends whole: (path, text). AGENTS.md has
/// a BOM (removed) and CRLF (kept).
const FILES: &[(&str, &str)] = &[
    (
        ".github/copilot-instructions.md",
        "Copilot: flag every TODO.\n",
    ),
    ("AGENTS.md", "\u{feff}# Review rules\r\nBe strict.\r\n"),
    ("CLAUDE.md", "Claude: check rounding.\n"),
    ("GEMINI.md", "Gemini: prefer small functions.\n"),
    (
        ".github/instructions/all.instructions.md",
        "---\napplyTo: \"**\"\n---\nEvery file: no secrets.\n",
    ),
    (
        ".github/instructions/deep/plain.instructions.md",
        "No front matter: sent whole.\n",
    ),
];
/// Sent as a path only.
const NARROW: (&str, &str) = (
    ".github/instructions/py.instructions.md",
    "---\napplyTo: \"**/*.py\"\n---\nPython: type hints.\n",
);

struct Case {
    scenario: Scenario,
    /// `$HOME` of the agent job; the agent home is its `.copilot`.
    home: PathBuf,
    server: FakeOpenAi,
    version: &'static str,
}

impl Case {
    async fn new(version: &'static str, answers: &[&str], more: &[(&str, &str)]) -> Case {
        let s = Scenario::example();
        s.remove("artifacts/review.json");
        for (path, text) in FILES.iter().chain([&NARROW]).chain(more) {
            s.write(path, text);
        }
        let scenario = s.commit("copilot instructions");
        let home = scenario.runner_temp().join("copilot-home");
        std::fs::create_dir_all(&home).unwrap();
        Case {
            scenario,
            home,
            server: FakeOpenAi::start(answers).await,
            version,
        }
    }

    fn agent_home(&self) -> PathBuf {
        self.home.join(".copilot")
    }

    fn prompt(&self) -> String {
        String::from_utf8(self.scenario.read(PROMPT)).unwrap()
    }

    async fn run(&self, args: &[&str]) -> String {
        self.run_with(MODEL, args).await
    }

    async fn run_with(&self, model: &str, args: &[&str]) -> String {
        copilot::run_beside(
            self.version,
            &self.home,
            &self.server.url,
            &self.scenario.ws,
            &self.scenario.ws,
            &self.prompt(),
            model,
            args,
        )
        .await
    }

    /// The receipt job, `agent: copilot`.
    fn receipt(&self, extra: &[(&str, &str)]) -> Outcome {
        let step = self
            .scenario
            .action()
            .input("agent", "copilot")
            .input("prompt-file", PROMPT)
            .input("agent-version", self.version)
            .input("model", MODEL)
            .input("agent-home", self.agent_home().to_str().unwrap());
        step.with(extra).run()
    }

    /// The receipt on a pull request from the commit before the last.
    fn pull_request(&self, extra: &[(&str, &str)]) -> Outcome {
        let base = self.scenario.git(&["rev-parse", "HEAD~1"]);
        let head = self.scenario.git(&["rev-parse", "HEAD"]);
        let mut step = self
            .scenario
            .action()
            .input("agent", "copilot")
            .input("prompt-file", PROMPT)
            .input("agent-home", self.agent_home().to_str().unwrap());
        for (k, v) in extra {
            step = step.input(k, v);
        }
        step.event(
            "pull_request",
            json!({"pull_request": {"number": 7, "head": {"sha": head}, "base": {"sha": base}}}),
        )
        .run()
    }
}

/// The instruction text `agents_sha` hashes, rebuilt from the system prompt
/// the API received: each whole file's text (less a BOM) found there, in
/// order, as Copilot CLI wraps it.
fn sent_chain(system: &str) -> String {
    let mut body = String::new();
    let mut at = 0;
    for (path, text) in FILES {
        let text = text.trim_start_matches('\u{feff}');
        let (needle, rendered) = if path.ends_with(".instructions.md") {
            (text.to_string(), format!("{text}\n\n"))
        } else {
            let wrapped = format!("<custom_instruction>\n{text}\n</custom_instruction>");
            (wrapped.clone(), format!("{wrapped}\n\n"))
        };
        let pos = system[at..]
            .find(&needle)
            .unwrap_or_else(|| panic!("`{path}` is not in the system prompt sent"));
        at += pos + needle.len();
        body.push_str(&rendered);
    }
    // The narrow file is listed by path; its hash stands in the body.
    let (path, text) = NARROW;
    assert!(system.contains(&format!("| **/*.py | '{path}' |")));
    body.push_str(&format!(
        "<listed_instruction applyTo=\"**/*.py\" path=\"{path}\" sha256=\"{}\"/>\n\n",
        sha256_hex(text.as_bytes())
    ));
    body
}

/// What the receipt says the agent received equals what the API received,
/// at both versions: the prompt, each instruction file inside the system
/// prompt, the system prompt, the model, the CLI version and the tokens.
#[tokio::test(flavor = "multi_thread")]
async fn the_receipt_hashes_what_the_api_received() {
    if copilot::missing(VERSIONS) {
        return;
    }
    for &version in VERSIONS {
        let c = Case::new(version, &[REVIEW], &[]).await;
        c.run(&[]).await;
        let requests = c.server.requests();
        assert_eq!(requests.len(), 1, "{version}");
        let system = requests[0].system();
        let user = requests[0].user();
        let prompt = c.prompt();
        // 1.0.102 drops the prompt's trailing line break.
        assert!(user.contains(prompt.trim_end()), "{version}: {user}");
        assert!(
            system.contains("| **/*.py | '.github/instructions/py.instructions.md' |"),
            "{version}: the narrow file is listed"
        );
        assert!(!system.contains("Python: type hints."), "{version}");

        let out = c.receipt(&[]);
        out.code(0);
        let usage = out.usage();
        assert_eq!(usage["agent"], "copilot");
        assert_eq!(usage["prompt_sent_sha"], sha256_hex(prompt.as_bytes()));
        assert_eq!(
            usage["agents_sha"],
            sha256_hex(sent_chain(&system).as_bytes()),
            "{version}"
        );
        assert_eq!(
            usage["base_instructions_sha"],
            sha256_hex(system.as_bytes()),
            "{version}: the system prompt, byte for byte"
        );
        assert_eq!(usage["session"]["model"], requests[0].model());
        assert_eq!(usage["models"], json!([requests[0].model()]));
        assert_eq!(usage["session"]["cli_version"], version);
        let (input, cached, output) = copilot::USAGE;
        assert_eq!(usage["tokens"]["input"], input, "{version}");
        assert_eq!(usage["tokens"]["output"], output, "{version}");
        assert_eq!(usage["tokens"]["total"], input + output, "{version}");
        let _ = cached;
        let agents: Vec<&str> = usage["agents"]
            .as_array()
            .unwrap()
            .iter()
            .map(|a| a["path"].as_str().unwrap())
            .collect();
        assert_eq!(
            agents,
            [
                ".github/copilot-instructions.md",
                "AGENTS.md",
                "CLAUDE.md",
                "GEMINI.md",
                ".github/instructions/all.instructions.md",
                ".github/instructions/deep/plain.instructions.md",
                ".github/instructions/py.instructions.md",
            ],
            "{version}"
        );
        // The user text as sent (the time before the prompt; 1.0.80's
        // reminder after it) is shown by its hash.
        let user_sha = sha256_hex(user.as_bytes());
        assert!(
            out.summary.contains(&user_sha[..24]),
            "{version}: {}",
            out.summary
        );
        // No message between the system prompt and the prompt.
        assert_eq!(requests[0].body["messages"][1]["role"], "user");
        assert_eq!(usage["context_sha"], sha256_hex(b"[]"), "{version}");
        // What the record never shows is said, and leaves a clean run green:
        // it holds for every run, whatever the pull request does.
        assert!(
            !out.outputs.contains_key("not-verified"),
            "{:?}",
            out.outputs
        );
        let limits = out
            .summary
            .split("### What Copilot CLI's record never shows")
            .nth(1)
            .unwrap_or_else(|| panic!("{version}: {}", out.summary));
        assert!(
            limits.contains("the tools the model was offered"),
            "{limits}"
        );
        assert!(
            limits.contains("what `.github/instructions/py.instructions.md` says"),
            "{limits}"
        );
        assert_eq!(out.outputs["conclusion"], "success", "{}", out.summary);
        // The control: the same clean run, as receipt.yml runs it in the
        // binding layout, where anything not verified would fail: success.
        let gh = common::github::FakeGitHub::start().await;
        let bound = c.receipt(&[(BINDING, &gh.url())]);
        bound.code(0);
        assert_eq!(bound.outputs["layout"], "binding", "{:?}", bound.outputs);
        assert_eq!(bound.outputs["conclusion"], "success", "{}", bound.summary);

        // Another version than the step's is named.
        let out = c.receipt(&[("agent-version", "1.0.1")]);
        assert_ne!(out.code, 0);
        out.error_says(&format!("written by Copilot CLI `{version}`"));
    }
}

/// A changed instruction file of each kind fails naming it; a narrow
/// `.instructions.md` (only listed) fails `verify` once a receipt has it.
#[tokio::test(flavor = "multi_thread")]
async fn each_changed_instruction_file_fails_naming_it() {
    if copilot::missing(VERSIONS) {
        return;
    }
    for &version in VERSIONS {
        let c = Case::new(version, &[REVIEW], &[]).await;
        c.run(&[]).await;
        // Each receipt checks the record afresh, not against the last one.
        let fresh = || {
            let _ = std::fs::remove_file(c.scenario.ws.join("usage.json"));
            c.receipt(&[])
        };
        fresh().code(0);
        for (path, _) in FILES {
            let before = c.scenario.read(path);
            c.scenario.write(path, "Changed after the run.\n");
            let out = fresh();
            assert_ne!(out.code, 0, "{version} {path}: {}", out.stdout);
            out.error_says(&format!("`{path}` as the checkout has it"));
            c.scenario.write(path, before);
        }
        fresh().code(0);
        // Added after the run: the record's system prompt lacks it.
        c.scenario
            .write(".github/instructions/new.instructions.md", "New.\n");
        let out = fresh();
        assert_ne!(out.code, 0);
        out.error_says("`.github/instructions/new.instructions.md` as the checkout has it");
        c.scenario
            .remove(".github/instructions/new.instructions.md");
        // The narrow file: listed, so only `verify` of a receipt sees it.
        fresh().code(0);
        c.scenario
            .write(NARROW.0, "---\napplyTo: \"**/*.py\"\n---\nOther.\n");
        let out = c.receipt(&[("mode", "verify")]);
        assert_ne!(out.code, 0, "{}", out.stdout);
        out.error_says(NARROW.0);
    }
}

/// A hook from `.github/hooks/` in a trusted folder: the record says a
/// `sessionStart` hook ran, and the receipt names it as not verified; the
/// hook script is a runtime file, and a pull request changing it, or an
/// `.instructions.md`, is named by the comparison with the base.
#[tokio::test(flavor = "multi_thread")]
async fn a_hook_is_named_and_a_pull_request_changing_its_script_too() {
    if copilot::missing(VERSIONS) {
        return;
    }
    let hooks = json!({"version": 1, "hooks": {"sessionStart": [{"type": "command", "bash": "sh .github/hooks/start.sh", "timeoutSec": 10}]}}).to_string();
    for &version in VERSIONS {
        let c = Case::new(
            version,
            &[REVIEW],
            &[
                (".github/hooks/review.json", &hooks),
                (".github/hooks/start.sh", "echo started > hook-ran.txt\n"),
            ],
        )
        .await;
        copilot::trust(&c.home, &c.scenario.ws);
        c.run(&[]).await;
        assert!(
            c.scenario.ws.join("hook-ran.txt").exists(),
            "{version}: the hook ran"
        );
        std::fs::remove_file(c.scenario.ws.join("hook-ran.txt")).unwrap();
        let out = c.receipt(&[]);
        out.code(0);
        assert!(
            out.summary.contains("what the sessionStart hook ran"),
            "{version}: {}",
            out.summary
        );
        assert!(
            out.outputs
                .get("not-verified")
                .is_none_or(|n| !n.contains("hook")),
            "{version}: {:?}",
            out.outputs
        );
        let usage = out.usage();
        assert!(
            usage["hooks"]
                .to_string()
                .contains(".github/hooks/review.json"),
            "{}",
            usage["hooks"]
        );

        // A pull request that changes the hook script and an .instructions.md.
        c.scenario
            .write(".github/hooks/start.sh", "echo changed > hook-ran.txt\n")
            .write(
                ".github/instructions/all.instructions.md",
                "---\napplyTo: \"**\"\n---\nChanged.\n",
            );
        c.scenario.git(&["commit", "-qam", "change the hook"]);
        let out = c.pull_request(&[("instructions-changed", "fail")]);
        assert_ne!(out.code, 0, "{}", out.stdout);
        let changed = &out.outputs["instructions-changed"];
        assert!(
            changed.contains(".github/hooks/start.sh"),
            "{changed}\n{}",
            out.stdout
        );
        assert!(
            changed.contains(".github/instructions/all.instructions.md"),
            "{changed}"
        );
    }
}

/// A resumed session with another model: two turns, each model named, at
/// most neutral; `single-turn: require` fails.
#[tokio::test(flavor = "multi_thread")]
async fn a_resumed_session_with_another_model_is_named() {
    if copilot::missing(VERSIONS) {
        return;
    }
    for &version in VERSIONS {
        let c = Case::new(version, &[REVIEW], &[]).await;
        c.run(&[]).await;
        let records = copilot::records(&c.home);
        assert_eq!(records.len(), 1);
        let id = records[0]
            .parent()
            .unwrap()
            .file_name()
            .unwrap()
            .to_string_lossy()
            .into_owned();
        c.run(&["--resume", &id, "--model", "gpt-other"]).await;
        let requests = c.server.requests();
        assert_eq!(requests.len(), 2);
        assert_eq!(requests[1].model(), "gpt-other");
        let out = c
            .scenario
            .action()
            .input("agent", "copilot")
            .input("prompt-file", PROMPT)
            .input("agent-home", c.agent_home().to_str().unwrap())
            .run();
        out.code(0);
        let usage = out.usage();
        assert_eq!(usage["models"], json!([MODEL, "gpt-other"]), "{version}");
        assert_eq!(usage["turns"].as_array().unwrap().len(), 2);
        assert!(
            out.stdout.contains("2 turns, 2 models: gpt-5.4, gpt-other"),
            "{}",
            out.stdout
        );
        assert_eq!(out.outputs["conclusion"], "neutral");
        // The step's model is not the second turn's, whose answer is the review.
        let out = c.receipt(&[]);
        assert_ne!(out.code, 0);
        out.error_says("model is `gpt-5.4` but the session ran `gpt-other`");
        let out = c.receipt(&[("model", ""), ("single-turn", "require")]);
        assert_ne!(out.code, 0);
        out.error_says("single-turn: require");
    }
}

/// Over `max-total-tokens`, a review that violates its schema, and a tool
/// call that writes an input: each fails, named.
#[tokio::test(flavor = "multi_thread")]
async fn a_budget_a_bad_review_and_an_edit_fail_named() {
    if copilot::missing(VERSIONS) {
        return;
    }
    for &version in VERSIONS {
        let c = Case::new(version, &[REVIEW], &[]).await;
        c.run(&[]).await;
        let out = c.receipt(&[("max-total-tokens", "500")]);
        assert_ne!(out.code, 0, "{}", out.stdout);
        out.error_says("over max-total-tokens 500");

        let c = Case::new(version, &[r#"{"ok":"yes","findings":[]}"#], &[]).await;
        c.run(&[]).await;
        let out = c.receipt(&[]);
        assert_ne!(out.code, 0, "{}", out.stdout);
        out.error_says("artifacts/review.json");

        let c = Case::new(version, &["bash:echo more >> AGENTS.md", REVIEW], &[]).await;
        c.run(&[]).await;
        assert_eq!(
            c.server.requests().len(),
            2,
            "{version}: the call, then the answer"
        );
        c.scenario.git(&["checkout", "AGENTS.md"]);
        let out = c.receipt(&[]);
        assert_ne!(out.code, 0, "{}", out.stdout);
        out.error_says("the agent ran a command that can write `AGENTS.md`");
    }
}

/// The collect action stages the record through `redact-events.jq`: the
/// receipt of the redacted record has every hash the raw one has, says it
/// is redacted, and still fails a changed instruction file.
#[tokio::test(flavor = "multi_thread")]
async fn a_collected_redacted_record_verifies_as_fully() {
    if copilot::missing(VERSIONS) || common::jq_missing() {
        return;
    }
    const SECRET: &str = "PLANTED-SECRET-5b1e";
    for &version in VERSIONS {
        let c = Case::new(
            version,
            &["bash:cat secret.txt", REVIEW],
            &[("secret.txt", SECRET)],
        )
        .await;
        c.run(&[]).await;
        let raw_text: String = copilot::records(&c.home)
            .iter()
            .map(|p| std::fs::read_to_string(p).unwrap())
            .collect();
        assert!(
            raw_text.contains(SECRET),
            "{version}: the raw record holds the output"
        );
        let raw = c.receipt(&[]);
        raw.code(0);
        let raw = raw.usage();

        let temp = tempfile::tempdir().unwrap();
        let temp = temp.path();
        let collected = collect::run(
            "copilot",
            temp,
            &collect::Given {
                agent_home: Some(&c.agent_home()),
                output_file: Some(&c.scenario.ws.join("artifacts/review.json")),
                workspace: Some(&c.scenario.ws),
                ..collect::Given::default()
            },
        );
        assert!(collected.ok, "{}", collected.log);
        // As the receipt workflow downloads it: under `${{ runner.temp }}`.
        let downloaded = c.scenario.runner_temp().join("collected");
        collect::copy_tree(&collected.dir.join("home"), &downloaded);
        let staged: String = prompt_receipt::agent::copilot::check::records(&downloaded)
            .iter()
            .map(|p| std::fs::read_to_string(p).unwrap())
            .collect();
        assert!(!staged.is_empty(), "{}", collected.log);
        assert!(!staged.contains(SECRET), "{version}: {staged}");
        let out = c
            .scenario
            .action()
            .input("agent", "copilot")
            .input("prompt-file", PROMPT)
            .input("agent-version", version)
            .input("model", MODEL)
            .input("agent-home", downloaded.to_str().unwrap())
            .run();
        out.code(0);
        let usage = out.usage();
        assert_eq!(usage["transcript"]["record"], "redacted");
        for key in [
            "prompt_sent_sha",
            "agents_sha",
            "base_instructions_sha",
            "context_sha",
            "tokens",
            "models",
            "turns",
            "session",
        ] {
            assert_eq!(usage[key], raw[key], "{version}: {key}");
        }
        c.scenario.write("CLAUDE.md", "Changed.\n");
        let out = c
            .scenario
            .action()
            .input("agent", "copilot")
            .input("prompt-file", PROMPT)
            .input("agent-home", downloaded.to_str().unwrap())
            .run();
        assert_ne!(out.code, 0);
        out.error_says("`CLAUDE.md` as the checkout has it");
        let _: Value = usage;
    }
}

/// Run in a folder below the root: the working directory's
/// `.github/copilot-instructions.md`, `AGENTS.md`, `CLAUDE.md`, `GEMINI.md`
/// and `.github/instructions/` are sent too, after the root's; each is in
/// the chain, in the API's order, and each changed after the run fails,
/// named.
#[tokio::test(flavor = "multi_thread")]
async fn the_working_directorys_files_are_the_chain_too() {
    if copilot::missing(VERSIONS) {
        return;
    }
    const SUB: &[(&str, &str)] = &[
        (
            "src/.github/copilot-instructions.md",
            "Sub: billing rules.\n",
        ),
        ("src/AGENTS.md", "Sub agents: check rounding.\n"),
        ("src/CLAUDE.md", "Sub claude: check currency.\n"),
        ("src/GEMINI.md", "Sub gemini: check taxes.\n"),
        (
            "src/.github/instructions/billing.instructions.md",
            "Sub instructions: no floats for money.\n",
        ),
    ];
    for &version in VERSIONS {
        let c = Case::new(version, &[REVIEW], SUB).await;
        let src = c.scenario.ws.join("src");
        copilot::run_beside(
            version,
            &c.home,
            &c.server.url,
            &c.scenario.ws,
            &src,
            &c.prompt(),
            MODEL,
            &[],
        )
        .await;
        let system = c.server.requests()[0].system();
        let at = |text: &str| {
            system
                .find(&format!(
                    "<custom_instruction>\n{text}\n</custom_instruction>"
                ))
                .unwrap_or_else(|| panic!("{version}: {text:?} not sent"))
        };
        let root = at(FILES[0].1);
        let sub = at(SUB[0].1);
        let sub_agents = at(SUB[1].1);
        let sub_claude = at(SUB[2].1);
        let sub_gemini = at(SUB[3].1);
        let gemini = at(FILES[3].1);
        let inline = |text: &str| {
            system
                .find(&format!("{text}\n\n"))
                .unwrap_or_else(|| panic!("{version}: {text:?} not sent"))
        };
        let root_instructions = inline(FILES[5].1);
        let sub_instructions = inline(SUB[4].1);
        assert!(
            root < sub
                && sub < gemini
                && gemini < sub_agents
                && sub_agents < sub_claude
                && sub_claude < sub_gemini
                && sub_gemini < root_instructions
                && root_instructions < sub_instructions,
            "{version}: the order sent"
        );
        let receipt = |c: &Case| {
            let _ = std::fs::remove_file(c.scenario.ws.join("usage.json"));
            c.receipt(&[("working-directory", "src")])
        };
        let out = receipt(&c);
        out.code(0);
        let agents: Vec<String> = out.usage()["agents"]
            .as_array()
            .unwrap()
            .iter()
            .map(|a| a["path"].as_str().unwrap().to_string())
            .collect();
        assert_eq!(
            agents,
            [
                ".github/copilot-instructions.md",
                "src/.github/copilot-instructions.md",
                "AGENTS.md",
                "CLAUDE.md",
                "GEMINI.md",
                "src/AGENTS.md",
                "src/CLAUDE.md",
                "src/GEMINI.md",
                ".github/instructions/all.instructions.md",
                ".github/instructions/deep/plain.instructions.md",
                ".github/instructions/py.instructions.md",
                "src/.github/instructions/billing.instructions.md",
            ],
            "{version}"
        );
        for (path, _) in SUB {
            let before = c.scenario.read(path);
            c.scenario.write(path, "Changed.\n");
            let out = receipt(&c);
            assert_ne!(out.code, 0, "{version} {path}: {}", out.stdout);
            out.error_says(&format!("`{path}` as the checkout has it"));
            c.scenario.write(path, before);
        }
    }
}

/// Each place besides the chain that Copilot CLI sends text from (measured,
/// docs/copilot.md): (path, its marker, whether its front matter's
/// description is what is sent, whether 1.0.80 sends it too). The first
/// seven reach the first request; the rest once a tool reads a file in
/// `src/` (the model views `src/billing/invoice.ts`).
const PLACES: &[(&str, &str, bool, bool)] = &[
    (
        ".github/skills/gh-review/SKILL.md",
        "PLACE-gh-skill-3f1",
        true,
        true,
    ),
    (
        ".claude/skills/cl-review/SKILL.md",
        "PLACE-cl-skill-3f1",
        true,
        true,
    ),
    (
        ".agents/skills/ag-review/SKILL.md",
        "PLACE-ag-skill-3f1",
        true,
        true,
    ),
    (
        ".claude/commands/approve.md",
        "PLACE-cl-command-3f1",
        true,
        true,
    ),
    (
        ".github/agents/gh-approver.agent.md",
        "PLACE-gh-agent-3f1",
        true,
        true,
    ),
    (
        ".claude/agents/cl-approver.md",
        "PLACE-cl-agent-3f1",
        true,
        true,
    ),
    (
        ".claude/rules/approve.md",
        "PLACE-cl-rule-3f1",
        false,
        false,
    ),
    ("src/AGENTS.md", "PLACE-src-agents-3f1", false, true),
    ("src/CLAUDE.md", "PLACE-src-claude-3f1", false, true),
    ("src/GEMINI.md", "PLACE-src-gemini-3f1", false, true),
    (
        "src/.github/copilot-instructions.md",
        "PLACE-src-copilot-3f1",
        false,
        true,
    ),
    (
        "src/.github/instructions/billing.instructions.md",
        "PLACE-src-instructions-3f1",
        false,
        true,
    ),
    (
        "src/.claude/rules/billing.md",
        "PLACE-src-rule-3f1",
        false,
        false,
    ),
];

/// A pull request that adds a file in each place Copilot CLI sends text
/// from: the marker of each reached the API (found in the logged requests),
/// and the comparison with the base names each path and fails under
/// `instructions-changed: fail`. The control, the same run compared with a
/// base that already has those files, names nothing and keeps the verdict of
/// a run with no base.
#[tokio::test(flavor = "multi_thread")]
async fn every_place_that_reaches_the_model_is_compared_with_the_base() {
    if copilot::missing(VERSIONS) {
        return;
    }
    let files = place_files(PLACES.iter().map(|(p, m, d, _)| (*p, *m, *d)));
    let more: Vec<(&str, &str)> = files.iter().map(|(p, t)| (*p, t.as_str())).collect();
    for &version in VERSIONS {
        let c = Case::new(version, &["view:src/billing/invoice.ts", REVIEW], &more).await;
        c.run(&[]).await;
        let requests = c.server.requests();
        let sent = all_sent(requests.iter().map(|r| &r.body));
        for (path, marker, _, old_too) in PLACES {
            assert_eq!(
                sent.contains(marker),
                *old_too || version != "1.0.80",
                "{version}: `{path}` reached the API"
            );
        }

        let out = c.pull_request(&[("instructions-changed", "fail")]);
        assert_every_place_named(&out, PLACES.iter().map(|p| p.0), version);

        // The control: no base, then a base that has every file.
        let _ = std::fs::remove_file(c.scenario.ws.join("usage.json"));
        let alone = c.receipt(&[]);
        alone.code(0);
        assert_eq!(alone.outputs["conclusion"], "neutral", "{}", alone.stdout);
        // The files sent after the tool call are named, not taken for a turn.
        assert!(
            alone.outputs["not-verified"].contains("the instruction files loaded just in time")
                && alone.stdout.contains("sent `src/"),
            "{version}: {}",
            alone.stdout
        );
        let _ = std::fs::remove_file(c.scenario.ws.join("usage.json"));
        let head = c.scenario.git(&["rev-parse", "HEAD"]);
        let out = c.receipt(&[("base-ref", &head), ("instructions-changed", "fail")]);
        assert_eq!(out.code, alone.code, "{}", out.stdout);
        assert_eq!(
            out.outputs["conclusion"], alone.outputs["conclusion"],
            "{}",
            out.stdout
        );
        assert_eq!(out.instructions_changed(), Vec::<String>::new());
    }
}

/// `redact-events.jq` with the real `jq`, on the tool calls a review could
/// make that carry file text: `apply_patch` keeps only its file lines,
/// `create` and `edit` their path, a shell command stays as written; the
/// model's text other than the turn's answer is cut to a placeholder.
#[test]
fn the_filter_keeps_what_names_a_file_and_cuts_what_it_writes() {
    if common::jq_missing() {
        return;
    }
    const SECRET: &str = "PLANTED-SECRET-c0de";
    let event = |t: &str, data: Value| json!({"type": t, "data": data, "id": "x"}).to_string();
    let record = [
        event("user.message", json!({"content": "Review", "transformedContent": "Review"})),
        event(
            "assistant.message",
            json!({"model": "m", "content": format!("Thinking about {SECRET}"), "toolRequests": [
                {"toolCallId": "1", "name": "apply_patch", "arguments": format!("*** Begin Patch\n*** Update File: AGENTS.md\n@@\n-a\n+{SECRET}\n*** End Patch")},
                {"toolCallId": "2", "name": "create", "arguments": {"path": "/w/r/notes.md", "file_text": SECRET}},
                {"toolCallId": "3", "name": "bash", "arguments": {"command": "echo ok > p.md"}},
            ]}),
        ),
        event(
            "tool.execution_complete",
            json!({"result": {"content": SECRET}}),
        ),
        // The instruction files sent once a tool read their folder: kept, so
        // that the receipt names them and takes neither for a turn.
        event(
            "user.message",
            json!({"source": "instruction-discovery", "content": "<system_reminder>\nCustom instructions from src/AGENTS.md. Apply these to any code you write here:\n\nA\n\n</system_reminder>"}),
        ),
        event(
            "system.notification",
            json!({"content": "Discovered instruction: src/AGENTS.md", "kind": {"type": "instruction_discovered", "sourcePath": "src/AGENTS.md", "triggerFile": format!("/w/r/{SECRET}")}}),
        ),
        event("assistant.message", json!({"model": "m", "content": REVIEW})),
    ]
    .join("\n");
    let filter = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/collect/copilot/redact-events.jq"
    );
    let mut child = std::process::Command::new("jq")
        .args(["-nRc", "-f", filter])
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .expect("jq is installed");
    use std::io::Write;
    child
        .stdin
        .take()
        .unwrap()
        .write_all(record.as_bytes())
        .unwrap();
    let out = child.wait_with_output().unwrap();
    assert!(out.status.success());
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(!text.contains(SECRET), "{text}");
    let lines: Vec<Value> = text
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let calls = &lines[1]["data"]["toolRequests"];
    assert_eq!(
        calls[0]["arguments"],
        "*** Begin Patch\n*** Update File: AGENTS.md\n*** End Patch"
    );
    assert_eq!(calls[1]["arguments"], json!({"path": "/w/r/notes.md"}));
    assert_eq!(calls[2]["arguments"], json!({"command": "echo ok > p.md"}));
    assert!(
        lines[1]["data"]["content"]
            .as_str()
            .unwrap()
            .starts_with("<prompt_receipt_cut kind=\"model\"")
    );
    assert_eq!(lines[2]["data"]["source"], "instruction-discovery");
    assert_eq!(
        lines[3]["data"],
        json!({"kind": {"type": "instruction_discovered", "sourcePath": "src/AGENTS.md"}})
    );
    assert_eq!(lines[4]["data"]["content"], REVIEW, "the answer is kept");
    let marker = lines.last().unwrap();
    assert_eq!(marker["type"], "prompt_receipt_redacted");
    assert_eq!(marker["payload"]["dropped"]["tool.execution_complete"], 1);
    assert_eq!(marker["payload"]["cut"]["toolRequests.apply_patch"], 1);
}
