//! Workflow lint on hand-made workflows: each defect at its exact line and
//! level, clean files silent, positions from the parser however the YAML is
//! written (aliases, merge keys, flow style, block scalars, scripts that quote
//! `uses:`, a byte order mark, CRLF line ends, expressions, reusable
//! workflows): every pattern the public workflows of the shared corpus taught,
//! so they are tested without it (`tests/it/corpus_workflows.rs`).

use crate::common;

use common::*;
use prompt_receipt::level::Level;
use prompt_receipt::lint::{LocalAction, every_rule, lint};

/// (line, level, rule, words the message must hold) for each finding, in order.
fn expect(text: &str, expected: &[(u64, Level, &str, &str)]) {
    expect_with(text, &|_| None, expected)
}

fn expect_with(
    text: &str,
    local: &dyn Fn(&str) -> Option<LocalAction>,
    expected: &[(u64, Level, &str, &str)],
) {
    let got = lint("w.yml", text, local);
    let shown: Vec<String> = got
        .iter()
        .map(|l| format!("{}:{:?}:{}: {}", l.line, l.level, l.rule, l.message))
        .collect();
    assert_eq!(got.len(), expected.len(), "{shown:#?}");
    for (l, (line, level, rule, words)) in got.iter().zip(expected) {
        assert_eq!(
            (l.line, l.level, l.rule),
            (*line, *level, *rule),
            "{shown:#?}"
        );
        assert!(l.message.contains(words), "`{words}` not in {}", l.message);
    }
}

/// The in-job layout, valid where Docker stays reachable after the agent
/// (here `safety-strategy: unprivileged-user`). On `push`: on `pull_request`
/// the layout itself is advisory (`receipt-advisory-layout`, tested below).
const CLEAN: &str = "\
name: Agent review
on: push
jobs:
  review:
    runs-on: ubuntu-latest
    steps:
      - uses: actions/checkout@11bd71901bbe5b1630ceea73d27597364c9af683 # v4.2.2
        with:
          fetch-depth: 0
          persist-credentials: false
      - name: Run Codex review
        uses: openai/codex-action@v1
        with:
          prompt-file: .github/codex/prompts/review.md
          output-file: artifacts/review.json
          codex-version: 0.169.0
          codex-home: ${{ runner.temp }}/codex-home
          safety-strategy: unprivileged-user
          codex-user: codex
      - uses: prompt-receipt/prompt-receipt@v1
        with:
          prompt-file: .github/codex/prompts/review.md
          codex-version: 0.169.0
          codex-home: ${{ runner.temp }}/codex-home
";

#[test]
fn clean_workflows_are_silent() {
    expect(CLEAN, &[]);
    expect(
        "on: push\njobs:\n  build:\n    runs-on: ubuntu-latest\n    steps:\n      - run: make\n",
        &[],
    );
    expect(
        "name: reusable\non: push\njobs:\n  call:\n    uses: org/repo/.github/workflows/x.yml@main\n",
        &[],
    );
    // The examples are clean but for their layout: the advisory one-workflow
    // example on `pull_request` warns once, at the receipt step that reports;
    // the binding layout's workflows are silent.
    let examples = example_dir().join(".github/workflows");
    let claude = repo_root().join("examples/claude-review/.github/workflows");
    let advisory = repo_root().join("examples/advisory/.github/workflows");
    let copilot = repo_root().join("examples/copilot-review/.github/workflows");
    let opencode = repo_root().join("examples/opencode-review/.github/workflows");
    for (dir, example, advisory) in [
        (&examples, "agent-review.yml", 0),
        (&examples, "agent-receipt.yml", 0),
        (&examples, "compare-prompts.yml", 0),
        (&examples, "gemini-review.yml", 0),
        (&examples, "gemini-receipt.yml", 0),
        (&claude, "claude-review.yml", 0),
        (&claude, "claude-receipt.yml", 0),
        (&copilot, "copilot-review.yml", 0),
        (&copilot, "copilot-receipt.yml", 0),
        (&opencode, "opencode-review.yml", 0),
        (&opencode, "opencode-receipt.yml", 0),
        (&advisory, "agent-review.yml", 1),
    ] {
        let path = dir.join(example);
        let text = std::fs::read_to_string(&path).unwrap();
        let got = lint(example, &text, &|_| None);
        let rules: Vec<&str> = got.iter().map(|l| l.rule).collect();
        assert_eq!(
            rules,
            vec!["receipt-advisory-layout"; advisory],
            "{}: {got:#?}",
            path.display()
        );
        for l in &got {
            let step = text
                .lines()
                .skip(l.line as usize - 1)
                .take(4)
                .collect::<String>();
            assert!(
                step.contains("prompt-receipt/prompt-receipt@"),
                "{}:{}",
                path.display(),
                l.line
            );
        }
    }
}

/// The README's first screen: the agent workflow and the receipt workflow,
/// each clean under the lint, each within fifteen lines a user adds.
#[test]
fn the_readme_workflows_are_clean_and_fifteen_lines() {
    let readme = std::fs::read_to_string(repo_root().join("README.md")).unwrap();
    let block = |first_line: &str| {
        let start = readme.find(&format!("```yaml\n{first_line}")).unwrap() + 8;
        let end = start + readme[start..].find("```").unwrap();
        readme[start..end].to_string()
    };
    let agent = block("# .github/workflows/agent-review.yml");
    assert!(
        agent.contains("prompt-receipt/prompt-receipt/collect@"),
        "the agent workflow collects"
    );
    expect(&agent, &[]);
    let added = agent.lines().filter(|l| l.contains("# +")).count();
    assert!(
        (1..=15).contains(&added),
        "{added} lines marked `# +` in the agent workflow"
    );
    let receipt = block("# .github/workflows/agent-receipt.yml");
    assert!(
        receipt.contains("workflow_run:") && receipt.contains("/.github/workflows/receipt.yml@")
    );
    expect(&receipt, &[]);
    let lines = |text: &str| {
        text.lines()
            .filter(|l| !l.trim().is_empty() && !l.trim_start().starts_with('#'))
            .count()
    };
    assert!(
        lines(&receipt) <= 15,
        "the receipt workflow is {} lines",
        lines(&receipt)
    );
    assert!(restore_lines(&agent) <= 3, "the README's restore step");
    // Claude Code's, Gemini CLI's and Copilot CLI's: their receipt workflows
    // (one line more than Codex's: the model), and the lines their agent jobs
    // add (the restore and collect steps).
    let codex = std::fs::read_to_string(
        repo_root().join("examples/agent-review/.github/workflows/agent-review.yml"),
    )
    .unwrap();
    assert!(
        (1..=3).contains(&restore_lines(&codex)),
        "agent-review.yml's restore step"
    );
    for (receipt, agent) in [
        (
            "examples/claude-review/.github/workflows/claude-receipt.yml",
            "examples/claude-review/.github/workflows/claude-review.yml",
        ),
        (
            "examples/agent-review/.github/workflows/gemini-receipt.yml",
            "examples/agent-review/.github/workflows/gemini-review.yml",
        ),
        (
            "examples/copilot-review/.github/workflows/copilot-receipt.yml",
            "examples/copilot-review/.github/workflows/copilot-review.yml",
        ),
        (
            "examples/opencode-review/.github/workflows/opencode-receipt.yml",
            "examples/opencode-review/.github/workflows/opencode-review.yml",
        ),
    ] {
        let text = std::fs::read_to_string(repo_root().join(receipt)).unwrap();
        assert!(lines(&text) <= 16, "{receipt}: {} lines", lines(&text));
        let text = std::fs::read_to_string(repo_root().join(agent)).unwrap();
        assert!(
            (1..=3).contains(&restore_lines(&text)),
            "{agent}: the restore step takes {} lines",
            restore_lines(&text)
        );
        let mut collect = 0;
        let mut inside = false;
        for l in text.lines() {
            if l.trim_start().starts_with("- ") {
                inside = l.contains("prompt-receipt/collect@");
            }
            if inside && !l.trim().is_empty() && !l.trim_start().starts_with('#') {
                collect += 1;
            }
        }
        assert!(
            (1..=15).contains(&collect),
            "{agent}: collect takes {collect} lines"
        );
    }
}

/// The lines of the `mode: restore` step, comments left out; 0 without one.
fn restore_lines(workflow: &str) -> usize {
    let mut steps: Vec<Vec<&str>> = Vec::new();
    for l in workflow.lines() {
        if l.trim_start().starts_with("- ") {
            steps.push(Vec::new());
        }
        if let Some(step) = steps.last_mut()
            && !l.trim().is_empty()
            && !l.trim_start().starts_with('#')
        {
            step.push(l);
        }
    }
    steps
        .iter()
        .find(|s| s.iter().any(|l| l.contains("mode: restore")))
        .map_or(0, Vec::len)
}

#[test]
fn each_defect_at_its_line() {
    let both = CLEAN.replace("          prompt-file: .github/codex/prompts/review.md\n          output-file", "          prompt: Review this\n          prompt-file: .github/codex/prompts/review.md\n          output-file");
    expect(
        &both,
        &[(
            14,
            Level::Failure,
            "both-prompts",
            "both `prompt` and `prompt-file`",
        )],
    );

    let missing = CLEAN.replacen("          codex-version: 0.169.0\n", "", 1);
    // A missing input is reported where the step starts.
    expect(
        &missing,
        &[(
            11,
            Level::Failure,
            "codex-version",
            "`codex-version` is not set",
        )],
    );
    for bad in ["latest", "^0.169", "0.x", "'>=0.1'"] {
        let v = CLEAN.replacen(
            "codex-version: 0.169.0",
            &format!("codex-version: {bad}"),
            1,
        );
        expect(
            &v,
            &[
                (16, Level::Failure, "codex-version", "a tag or a range"),
                (23, Level::Failure, "receipt-mismatch", "`codex-version`"),
            ],
        );
    }
    let expr = CLEAN.replacen(
        "codex-version: 0.169.0",
        "codex-version: ${{ vars.CODEX_VERSION_EXACT }}",
        1,
    );
    expect(&expr, &[(16, Level::Notice, "codex-version", "comes from")]);

    let shallow = CLEAN.replace("          fetch-depth: 0\n", "");
    expect(
        &shallow,
        &[(7, Level::Warning, "shallow-checkout", "shallow")],
    );
    let creds = CLEAN.replace("          persist-credentials: false\n", "");
    expect(
        &creds,
        &[(
            7,
            Level::Notice,
            "checkout-credentials",
            "persist-credentials: false",
        )],
    );
    let creds_true = CLEAN.replace("persist-credentials: false", "persist-credentials: true");
    expect(
        &creds_true,
        &[(
            10,
            Level::Notice,
            "checkout-credentials",
            "persist-credentials",
        )],
    );
}

#[test]
fn a_receipt_step_that_describes_another_run() {
    let other = CLEAN.replace(
        "      - uses: prompt-receipt/prompt-receipt@v1\n        with:\n          prompt-file: .github/codex/prompts/review.md\n          codex-version: 0.169.0",
        "      - uses: prompt-receipt/prompt-receipt@v1\n        with:\n          prompt-file: .github/codex/prompts/review.v3.md\n          working-directory: sub\n          output-file: out/review.json\n          codex-version: 0.171.0\n          model: o3",
    );
    // The model is compared only when both steps name one.
    let other = other.replace(
        "          codex-user: codex\n",
        "          codex-user: codex\n          model: gpt-5.5\n",
    );
    expect(
        &other,
        &[
            (
                23,
                Level::Failure,
                "receipt-mismatch",
                "`prompt-file` is `.github/codex/prompts/review.v3.md`",
            ),
            (
                24,
                Level::Failure,
                "receipt-mismatch",
                "`working-directory` is `sub`",
            ),
            (
                25,
                Level::Failure,
                "receipt-mismatch",
                "`output-file` is `out/review.json`",
            ),
            (
                26,
                Level::Failure,
                "receipt-mismatch",
                "`codex-version` is `0.171.0`",
            ),
            (27, Level::Failure, "receipt-mismatch", "`model` is `o3`"),
        ],
    );
    let home = CLEAN.replace(
        "codex-home: ${{ runner.temp }}/codex-home\n",
        "codex-home: /tmp/elsewhere\n",
    );
    let home = home.replacen(
        "codex-home: /tmp/elsewhere\n",
        "codex-home: ${{ runner.temp }}/codex-home\n",
        1,
    );
    expect(
        &home,
        &[(24, Level::Failure, "receipt-mismatch", "`codex-home`")],
    );
    let none = CLEAN.replace(
        "          codex-version: 0.169.0\n          codex-home: ${{ runner.temp }}/codex-home\n",
        "          codex-version: 0.169.0\n",
    );
    let none = none.replacen(
        "          codex-version: 0.169.0\n          safety",
        "          codex-version: 0.169.0\n          codex-home: ${{ runner.temp }}/codex-home\n          safety",
        1,
    );
    expect(
        &none,
        &[(
            20,
            Level::Warning,
            "receipt-without-codex-home",
            "is not given it",
        )],
    );
    // The version installed, from codex-action's output: known only at run time.
    let output = CLEAN.replacen(
        "      - uses: prompt-receipt/prompt-receipt@v1\n        with:\n          prompt-file: .github/codex/prompts/review.md\n          codex-version: 0.169.0",
        "      - uses: prompt-receipt/prompt-receipt@v1\n        with:\n          prompt-file: .github/codex/prompts/review.md\n          codex-version: ${{ steps.codex.outputs.codex-version }}",
        1,
    );
    expect(&output, &[]);
}

#[test]
fn a_container_action_after_the_agent_cannot_start() {
    // codex-action's default safety strategy revokes Docker for the rest of the job.
    let old = CLEAN.replace(
        "          safety-strategy: unprivileged-user\n          codex-user: codex\n",
        "",
    );
    expect(
        &old,
        &[(
            18,
            Level::Failure,
            "container-after-agent",
            "a job of its own",
        )],
    );
    let explicit = CLEAN.replace(
        "safety-strategy: unprivileged-user",
        "safety-strategy: drop-sudo",
    );
    expect(
        &explicit,
        &[(20, Level::Failure, "container-after-agent", "(line 11)")],
    );
    for stays in ["read-only", "unsafe"] {
        expect(&CLEAN.replace("unprivileged-user", stays), &[]);
    }
    let unknown = CLEAN.replace("unprivileged-user", "${{ inputs.safety }}");
    expect(
        &unknown,
        &[(20, Level::Notice, "container-after-agent", "comes from")],
    );
    // Any container: docker://, and a local action whose action.yml says so.
    let docker = old.replace("prompt-receipt/prompt-receipt@v1", "docker://alpine:3");
    expect(
        &docker,
        &[(18, Level::Failure, "container-after-agent", "cannot start")],
    );
    let local = old.replace("prompt-receipt/prompt-receipt@v1", "./");
    let ours = |p: &str| {
        (p == "./").then_some(LocalAction {
            container: true,
            receipt: true,
        })
    };
    expect_with(
        &local,
        &ours,
        &[(18, Level::Failure, "container-after-agent", "cannot start")],
    );
    let script = |_: &str| {
        Some(LocalAction {
            container: false,
            receipt: false,
        })
    };
    expect_with(&local, &script, &[]);
    // Before the agent, Docker is still there.
    let before = "jobs:\n  j:\n    steps:\n      - uses: prompt-receipt/prompt-receipt@v1\n        with:\n          mode: record\n          prompt-file: p.md\n      - uses: openai/codex-action@v1\n        with:\n          prompt-file: p.md\n          codex-version: 0.169.0\n";
    expect(before, &[]);
}

#[test]
fn the_old_in_job_example_is_caught_at_its_receipt_step() {
    let text =
        std::fs::read_to_string(repo_root().join("tests/fixtures/in-job-layout.yml")).unwrap();
    let receipt_line = text
        .lines()
        .position(|l| l.trim() == "- name: Receipt")
        .unwrap() as u64
        + 1;
    expect(
        &text,
        &[
            (
                receipt_line,
                Level::Failure,
                "container-after-agent",
                "a job of its own",
            ),
            (
                receipt_line,
                Level::Warning,
                "receipt-without-codex-home",
                "same folder as `agent-home`",
            ),
            // On `pull_request`: the pull request's own copy runs.
            (
                receipt_line,
                Level::Warning,
                "receipt-advisory-layout",
                "advisory",
            ),
        ],
    );
}

#[test]
fn positions_come_from_the_parser() {
    // A script that quotes `uses:` is text, not a step.
    let quoted = CLEAN.replace(
        "      - name: Run Codex review\n",
        "      - run: |\n          echo '- uses: openai/codex-action@v1'\n          echo \"uses: prompt-receipt/prompt-receipt@v1\"\n      - name: Run Codex review\n",
    );
    expect(&quoted, &[]);
    let quoted_bad = quoted.replacen("          codex-version: 0.169.0\n", "", 1);
    expect(
        &quoted_bad,
        &[(14, Level::Failure, "codex-version", "not set")],
    );
    // Flow style: the step and its inputs where they are written.
    let flow = "jobs:\n  j:\n    steps:\n      - run: echo\n      - { uses: openai/codex-action@v1, with: { prompt: hi, prompt-file: p.md } }\n";
    expect(
        flow,
        &[
            (5, Level::Failure, "both-prompts", "both"),
            (5, Level::Failure, "codex-version", "not set"),
        ],
    );
    // An aliased step is reported where it is used, each use at its own line.
    let aliased = "\
jobs:
  j:
    steps:
      - &agent
        uses: openai/codex-action@v1
        with:
          prompt-file: p.md
          codex-version: latest
      - run: echo between
      - *agent
";
    expect(
        aliased,
        &[
            (8, Level::Failure, "codex-version", "`latest`"),
            (10, Level::Failure, "codex-version", "`latest`"),
        ],
    );
}

#[test]
fn anchors_aliases_merge_keys_and_several_jobs() {
    let text = "\
x-codex: &codex
  codex-version: latest
  prompt-file: p.md
jobs:
  one:
    runs-on: ubuntu-latest
    steps:
      - uses: actions/checkout
      - uses: openai/codex-action
        with: *codex
  two:
    runs-on: ubuntu-latest
    steps:
      - uses: actions/checkout@v7
        with:
          fetch-depth: 0
          persist-credentials: false
      - uses: openai/codex-action@v1
        with:
          <<: *codex
          prompt: also inline
";
    expect(
        text,
        &[
            (8, Level::Warning, "shallow-checkout", "shallow"),
            (
                8,
                Level::Notice,
                "checkout-credentials",
                "persist-credentials",
            ),
            (10, Level::Failure, "codex-version", "tag or a range"),
            (20, Level::Failure, "codex-version", "tag or a range"),
            (
                21,
                Level::Failure,
                "both-prompts",
                "both `prompt` and `prompt-file`",
            ),
        ],
    );
}

#[test]
fn inputs_read_as_codex_action_reads_them() {
    // Empty is absent.
    let empty = CLEAN.replace(
        "          prompt-file: .github/codex/prompts/review.md\n          output-file",
        "          prompt: \"\"\n          prompt-file: .github/codex/prompts/review.md\n          output-file",
    );
    expect(&empty, &[]);
    let no_version = CLEAN.replacen("codex-version: 0.169.0", "codex-version: \"\"", 1);
    expect(
        &no_version,
        &[(16, Level::Failure, "codex-version", "is not set")],
    );
    // Expressions are unknown: a notice at most.
    let reusable = "on:\n  workflow_call:\njobs:\n  r:\n    steps:\n      - uses: openai/codex-action@v1\n        with:\n          prompt: ${{ inputs.prompt }}\n          prompt-file: ${{ inputs.prompt-file }}\n          codex-version: 0.169.0\n";
    expect(
        reusable,
        &[(8, Level::Notice, "both-prompts", "expression")],
    );
    // An exact version npm reads with a `v`.
    expect(&CLEAN.replace("0.169.0", "v0.169.0"), &[]);
    // `${{ env.X }}` from the workflow's, the job's or the step's literal env.
    let env = "env:\n  CODEX: latest\njobs:\n  j:\n    steps:\n      - uses: openai/codex-action@v1\n        with:\n          prompt-file: p.md\n          codex-version: ${{ env.CODEX }}\n";
    expect(
        env,
        &[(9, Level::Failure, "codex-version", "(from `env.CODEX`)")],
    );
    let job_env = env.replace("    steps:", "    env:\n      CODEX: 0.169.0\n    steps:");
    expect(&job_env, &[]);
    let step_env = job_env.replace(
        "        with:",
        "        env:\n          CODEX: ^0.169\n        with:",
    );
    expect(
        &step_env,
        &[(13, Level::Failure, "codex-version", "`^0.169`")],
    );
    // The workspace, spelled as an expression, is the workspace.
    let wd = CLEAN.replace(
        "          codex-user: codex\n",
        "          codex-user: codex\n          working-directory: ${{ github.workspace }}\n",
    );
    expect(&wd, &[]);
    let wd_sub = CLEAN.replace(
        "          codex-user: codex\n",
        "          codex-user: codex\n          working-directory: ${{ github.workspace }}/svc\n",
    );
    expect(
        &wd_sub,
        &[(21, Level::Failure, "receipt-mismatch", "uses `svc`")],
    );
}

#[test]
fn codex_args_that_defeat_the_receipt() {
    let with = |args: &str| {
        CLEAN.replacen(
            "          codex-user: codex\n",
            &format!("          codex-user: codex\n          codex-args: {args}\n"),
            1,
        )
    };
    expect(
        &with(r#"'["--ephemeral", "-c", "model_reasoning_effort=high", "--image", "shot.png"]'"#),
        &[
            (20, Level::Warning, "codex-args", "`--ephemeral`"),
            (20, Level::Notice, "codex-args", "`--image`"),
        ],
    );
    expect(
        &with("--dangerously-bypass-approvals-and-sandbox --add-dir /tmp -p ci"),
        &[
            (
                20,
                Level::Warning,
                "codex-args",
                "`--dangerously-bypass-approvals-and-sandbox`",
            ),
            (20, Level::Warning, "codex-args", "`--add-dir`"),
            (20, Level::Warning, "codex-args", "`-p`"),
        ],
    );
    expect(&with(r#"'["--output-schema", "s.json"]'"#), &[]);
    expect(
        &with(r#"'["--ephemeral"'"#),
        &[(20, Level::Failure, "codex-args", "not a JSON array")],
    );
}

#[test]
fn a_checkout_only_after_the_agent_is_a_notice_and_none_at_all_is_silent() {
    let none = "jobs:\n  j:\n    steps:\n      - uses: actions/download-artifact@v5\n      - uses: openai/codex-action@v1\n        with:\n          prompt-file: p.md\n          codex-version: 0.169.0\n";
    expect(none, &[]);
    let after = format!("{none}      - uses: actions/checkout@v5\n");
    expect(
        &after,
        &[(5, Level::Notice, "checkout-after-agent", "only after")],
    );
}

#[test]
fn malformed_yaml_and_byte_order_marks() {
    let got = lint(
        "w.yml",
        "on: push\njobs:\n  a:\n    steps:\n      - uses: x\n     bad: [\n",
        &|_| None,
    );
    assert_eq!(got.len(), 1);
    assert!(
        got[0].message.starts_with("not valid YAML") && got[0].line >= 5,
        "{got:?}"
    );
    assert_eq!(got[0].rule, "yaml");
    // GitHub accepts a byte order mark before `name:` as before a comment.
    for text in [
        "\u{feff}name: x\non: push\njobs: {}\n",
        "\u{feff}# c\nname: x\n",
    ] {
        assert_eq!(lint("w.yml", text, &|_| None), vec![], "{text:?}");
    }
    let bom_bad = format!(
        "\u{feff}{}",
        CLEAN.replacen("          codex-version: 0.169.0\n", "", 1)
    );
    expect(
        &bom_bad,
        &[(11, Level::Failure, "codex-version", "not set")],
    );
}

/// Workflows saved with Windows line ends (CRLF), some also with a byte order
/// mark, as three of the public workflows in the shared corpus are: the same
/// findings at the same lines, and no `\r` in an input's value (an exact
/// `codex-version` stays exact, equal inputs stay equal).
#[test]
fn crlf_line_ends_read_as_lf() {
    let crlf = |s: &str| s.replace('\n', "\r\n");
    expect(&crlf(CLEAN), &[]);
    expect(&format!("\u{feff}{}", crlf(CLEAN)), &[]);
    let bad = CLEAN.replacen("          codex-version: 0.169.0\n", "", 1);
    for text in [crlf(&bad), format!("\u{feff}{}", crlf(&bad))] {
        expect(&text, &[(11, Level::Failure, "codex-version", "not set")]);
    }
    // A block scalar before the defect: its lines count once each.
    let block = bad.replace(
        "      - name: Run Codex review\n",
        "      - run: |\n          echo one\n          echo two\n      - name: Run Codex review\n",
    );
    expect(
        &crlf(&block),
        &[(14, Level::Failure, "codex-version", "not set")],
    );
    // A mismatch is still found, at the receipt step's line.
    let mismatch = CLEAN.replacen("codex-version: 0.169.0", "codex-version: 0.168.0", 1);
    let lf = lint("w.yml", &mismatch, &|_| None);
    assert!(lf.iter().any(|l| l.rule == "receipt-mismatch"), "{lf:?}");
    assert_eq!(lint("w.yml", &crlf(&mismatch), &|_| None), lf);
}

/// Each rule has a row with its level in docs/lint.md's tables (which the
/// README's lint section sends readers to), in the order of `every_rule()`:
/// those every agent shares, then each agent's own.
#[test]
fn every_rule_is_in_the_docs_with_its_level_in_order() {
    let docs = std::fs::read_to_string(repo_root().join("docs/lint.md")).unwrap();
    let mut last = 0;
    for rule in every_rule() {
        let level = match rule.level {
            Level::Failure => "error",
            Level::Warning => "warning",
            Level::Notice => "notice",
        };
        let row = format!("| `{}` | {level} |", rule.name);
        let at = docs.find(&row);
        assert!(at.is_some(), "docs/lint.md's tables have no `{row}`");
        assert!(
            at > Some(last),
            "`{row}` is out of the order of every_rule()"
        );
        last = at.unwrap_or(last);
    }
}

#[test]
fn lint_mode_fails_on_errors_and_run_mode_only_warns() {
    let s = Scenario::example();
    s.write(
        ".github/workflows/review.yml",
        CLEAN.replacen("          codex-version: 0.169.0\n", "", 1),
    );
    let out = s.action().input("mode", "lint").run();
    out.code(1);
    assert!(
        out.stdout
            .contains("::error file=.github/workflows/review.yml,line=11,title=Workflow lint::"),
        "{}",
        out.stdout
    );
    let out = s.review_step().run();
    out.code(0);
    assert!(
        out.stdout
            .contains("::warning file=.github/workflows/review.yml,line=11"),
        "{}",
        out.stdout
    );
    s.review_step()
        .input("lint-workflows", "false")
        .run()
        .code(0);
    s.write(".github/workflows/review.yml", CLEAN);
    s.action().input("mode", "lint").run().code(0);
}

/// Each agent action needs the receipt told its name, and a receipt in the
/// job of claude-code-action or run-gemini-cli reads what the agent could
/// have rewritten.
#[test]
fn the_receipt_is_told_which_agent_ran_and_runs_apart_from_it() {
    let job = |agent_action: &str, with: &str, receipt_agent: &str| {
        format!(
            "\
on: pull_request
jobs:
  review:
    runs-on: ubuntu-latest
    steps:
      - uses: actions/checkout@v4
        with:
          fetch-depth: 0
          persist-credentials: false
      - uses: {agent_action}
        with:
          {with}
      - uses: owner/prompt-receipt@v1
        with:
          prompt-file: p.md
{receipt_agent}"
        )
    };
    let claude = "anthropics/claude-code-action@v1";
    expect(
        &job(claude, "prompt: hi", ""),
        &[
            (13, Level::Failure, "receipt-agent", "set `agent: claude`"),
            (13, Level::Warning, "receipt-beside-agent", "job of its own"),
            (13, Level::Warning, "receipt-advisory-layout", "advisory"),
        ],
    );
    expect(
        &job(claude, "prompt: hi", "          agent: claude\n"),
        &[
            (13, Level::Warning, "receipt-beside-agent", "line 10"),
            (13, Level::Warning, "receipt-advisory-layout", "advisory"),
        ],
    );
    expect(
        &job(
            "google-github-actions/run-gemini-cli@v0",
            "prompt: hi",
            "          agent: claude\n",
        ),
        &[
            (13, Level::Warning, "receipt-beside-agent", "run-gemini-cli"),
            (13, Level::Warning, "receipt-advisory-layout", "advisory"),
            (16, Level::Failure, "receipt-agent", "set `agent: gemini`"),
        ],
    );
    // An expression decides at run time: said nothing of.
    expect(
        &job(claude, "prompt: hi", "          agent: ${{ vars.AGENT }}\n"),
        &[
            (13, Level::Warning, "receipt-beside-agent", "job of its own"),
            (13, Level::Warning, "receipt-advisory-layout", "advisory"),
        ],
    );
}

/// The two-job layout: the receipt job has no agent step of its own, and the
/// agent it reads is the one of the job it needs (through another job too).
#[test]
fn the_receipt_job_is_told_the_agent_of_the_job_it_needs() {
    let text = |receipt_agent: &str| {
        format!(
            "\
on: pull_request
jobs:
  agent:
    runs-on: ubuntu-latest
    steps:
      - uses: actions/checkout@v4
        with:
          fetch-depth: 0
          persist-credentials: false
      - uses: google-github-actions/run-gemini-cli@v0
        with:
          prompt: hi
  relay:
    needs: agent
    runs-on: ubuntu-latest
    steps:
      - run: echo relay
  receipt:
    needs: [relay]
    runs-on: ubuntu-latest
    steps:
      - uses: owner/prompt-receipt@v1
        with:
          prompt-file: p.md
{receipt_agent}"
        )
    };
    // Both jobs in one workflow on `pull_request`: the layout is advisory.
    let advisory = (22, Level::Warning, "receipt-advisory-layout", "advisory");
    expect(
        &text(""),
        &[
            (
                22,
                Level::Failure,
                "receipt-agent",
                "the job it needs runs `google-github-actions/run-gemini-cli` (line 10): set `agent: gemini`",
            ),
            advisory,
        ],
    );
    expect(&text("          agent: gemini\n"), &[advisory]);
}

/// The older names of the neutral inputs: an agent's own read as the neutral
/// ones (and are compared with the agent step as they are), another
/// agent's is not read and said.
#[test]
fn older_input_names_are_read_and_another_agents_is_said() {
    let step = |agent: &str, key: &str, value: &str| {
        format!(
            "jobs:\n  j:\n    steps:\n      - uses: actions/checkout@v5\n        with:\n          fetch-depth: 0\n          persist-credentials: false\n      - uses: prompt-receipt/prompt-receipt@v1\n        with:\n          agent: {agent}\n          prompt-file: p.md\n          {key}: {value}\n"
        )
    };
    for (agent, key) in [
        ("codex", "codex-version"),
        ("codex", "codex-home"),
        ("codex", "agent-version"),
        ("claude", "claude-version"),
        ("claude", "claude-args"),
        ("claude", "codex-version"),
        ("gemini", "agent-home"),
    ] {
        expect(&step(agent, key, "x"), &[]);
    }
    expect(
        &step("codex", "claude-version", "2.1.300"),
        &[(
            12,
            Level::Warning,
            "receipt-older-input",
            "give it as `agent-version`",
        )],
    );
    expect(
        &step("gemini", "codex-home", "/h"),
        &[(
            12,
            Level::Warning,
            "receipt-older-input",
            "`codex-home` is not read when `agent` is `gemini`",
        )],
    );
    // The neutral name is compared with the codex-action step as the older one was.
    let job = "jobs:\n  j:\n    steps:\n      - uses: actions/checkout@v5\n        with:\n          fetch-depth: 0\n          persist-credentials: false\n      - uses: openai/codex-action@v1\n        with:\n          prompt-file: p.md\n          codex-version: 0.169.0\n          codex-home: /h\n          safety-strategy: unsafe\n      - uses: prompt-receipt/prompt-receipt@v1\n        with:\n          prompt-file: p.md\n          agent-version: 0.168.0\n          agent-home: /other\n";
    let got = lint("w.yml", job, &|_| None);
    let rules: Vec<(&str, u64)> = got.iter().map(|l| (l.rule, l.line)).collect();
    assert!(
        rules.contains(&("receipt-mismatch", 17)) && rules.contains(&("receipt-mismatch", 18)),
        "{rules:?}"
    );
}

/// A receipt that reports, in a workflow the pull request's own copy of runs:
/// its verdict is advisory. Said where the step is, for the events that run
/// the pull request's copy and the modes that report; never for recording
/// before the agent, for the other modes, or for the binding layouts.
#[test]
fn a_receipt_the_pull_request_can_edit_is_advisory() {
    const WORDS: &str = "this workflow file can be changed by the pull request, so its receipt is advisory: run the receipt from a `workflow_run` workflow (README: The binding layout)";
    let workflow = |on: &str, mode: &str| {
        format!(
            "on: {on}\njobs:\n  receipt:\n    runs-on: ubuntu-latest\n    steps:\n      - uses: prompt-receipt/prompt-receipt@0123456789abcdef0123456789abcdef01234567 # v1\n        with:\n          prompt-file: p.md\n{mode}"
        )
    };
    // At the step: line 6, or 8 under the `on:` mapping of two lines.
    let at = |line| [(line, Level::Warning, "receipt-advisory-layout", WORDS)];
    let advisory = at(6);
    for (on, line) in [
        ("pull_request", 6),
        ("[push, pull_request]", 6),
        ("\n  pull_request_review:\n    types: [submitted]", 8),
        ("pull_request_review_comment", 6),
    ] {
        for mode in ["", "          mode: run\n", "          mode: verify\n"] {
            expect(&workflow(on, mode), &at(line));
        }
        for mode in [
            "record",
            "validate",
            "lint",
            "compare",
            "${{ inputs.mode }}",
        ] {
            expect(&workflow(on, &format!("          mode: {mode}\n")), &[]);
        }
    }
    for on in [
        "pull_request_target",
        "workflow_run",
        "push",
        "workflow_call",
        "[workflow_dispatch, merge_group]",
    ] {
        expect(&workflow(on, ""), &[]);
    }
    // A local prompt-receipt action (this repository is prompt-receipt).
    let local = workflow("pull_request", "").replace(
        "prompt-receipt/prompt-receipt@0123456789abcdef0123456789abcdef01234567 # v1",
        "./",
    );
    let receipt = |_: &str| {
        Some(LocalAction {
            container: true,
            receipt: true,
        })
    };
    expect_with(&local, &receipt, &advisory);
    expect(&local, &[]);
}

/// prompt-receipt's reusable workflow called from a `pull_request` workflow
/// is advisory too (the caller is the pull request's to edit); called from
/// `workflow_run` it binds. An action in a folder of prompt-receipt's
/// repository (a composite that collects the agent's record) is not the
/// receipt: neither advisory nor a container after the agent.
#[test]
fn the_reusable_receipt_workflow_and_other_actions_of_the_repository() {
    let call = |on: &str| {
        format!(
            "on: {on}\njobs:\n  receipt:\n    permissions: {{ contents: read, checks: write }}\n    uses: prompt-receipt/prompt-receipt/.github/workflows/receipt.yml@0123456789abcdef0123456789abcdef01234567 # v1\n"
        )
    };
    expect(
        &call("pull_request"),
        &[(5, Level::Warning, "receipt-advisory-layout", "advisory")],
    );
    expect(&call("workflow_run"), &[]);
    expect(
        &call("pull_request").replace("prompt-receipt/prompt-receipt/", "org/other/"),
        &[],
    );
    let collect = "on: pull_request\njobs:\n  agent:\n    runs-on: ubuntu-latest\n    steps:\n      - uses: actions/checkout@v5\n        with:\n          fetch-depth: 0\n          persist-credentials: false\n      - uses: openai/codex-action@v1\n        with:\n          prompt-file: p.md\n          codex-version: 0.169.0\n      - uses: prompt-receipt/prompt-receipt/collect@0123456789abcdef0123456789abcdef01234567 # v1\n        with:\n          agent: codex\n";
    // The binding layout's agent job runs the agent with the pull request's
    // configuration unless a restore step comes first.
    expect(
        collect,
        &[(
            10,
            Level::Warning,
            "restore-missing",
            "add a prompt-receipt step with `mode: restore` before it",
        )],
    );
}

/// `mode: restore` before the agent is the binding layout's agent job as
/// it should be; after the agent it is too late; it puts back the
/// configuration of the agent that runs, and codex-action's prompt.
#[test]
fn the_restore_step_comes_before_the_agent_and_names_its_prompt() {
    let job = |restore_first: bool, with: &str| {
        let restore = format!(
            "      - uses: prompt-receipt/prompt-receipt@0123456789abcdef0123456789abcdef01234567 # v1\n        with: {{ mode: restore, {with} }}\n"
        );
        let agent = "      - uses: openai/codex-action@v1\n        with:\n          prompt-file: p.md\n          codex-version: 0.169.0\n          safety-strategy: unprivileged-user\n";
        let (first, second) = if restore_first {
            (restore.as_str(), agent)
        } else {
            (agent, restore.as_str())
        };
        format!(
            "on: pull_request\njobs:\n  agent:\n    runs-on: ubuntu-latest\n    steps:\n      - uses: actions/checkout@v5\n        with:\n          fetch-depth: 0\n          persist-credentials: false\n{first}{second}      - uses: prompt-receipt/prompt-receipt/collect@0123456789abcdef0123456789abcdef01234567 # v1\n        with:\n          agent: codex\n"
        )
    };
    expect(&job(true, "prompt-file: p.md"), &[]);
    expect(
        &job(true, "prompt-file: other.md"),
        &[(
            11,
            Level::Failure,
            "receipt-mismatch",
            "the agent would run with the pull request's prompt",
        )],
    );
    expect(
        &job(true, "agent: claude, prompt-file: p.md"),
        &[(
            11,
            Level::Failure,
            "receipt-agent",
            "puts back the configuration of `claude`",
        )],
    );
    expect(
        &job(false, "prompt-file: p.md"),
        &[
            (10, Level::Warning, "restore-missing", "mode: restore"),
            (
                15,
                Level::Failure,
                "restore-after-agent",
                "already ran with the pull request's configuration",
            ),
        ],
    );
}

/// `mode: lint` says it as a warning at the receipt step; `run` does not
/// repeat it on every run (the run says its own layout in its title).
#[test]
fn lint_mode_says_the_layout_and_run_mode_leaves_it_to_the_title() {
    let s = Scenario::example();
    let text = std::fs::read_to_string(
        repo_root().join("examples/advisory/.github/workflows/agent-review.yml"),
    )
    .unwrap();
    s.write(".github/workflows/agent-review.yml", &text);
    let line = text
        .lines()
        .position(|l| l.trim() == "- name: Receipt")
        .unwrap()
        + 1;
    let out = s.action().input("mode", "lint").run();
    out.code(0);
    assert!(
        out.stdout.contains(&format!(
            "::warning file=.github/workflows/agent-review.yml,line={line},title=Workflow lint::this workflow file can be changed by the pull request, so its receipt is advisory"
        )),
        "{}",
        out.stdout
    );
    let out = s.review_step().run();
    out.code(0);
    assert!(
        !out.stdout.contains("receipt is advisory") && !out.summary.contains("receipt is advisory"),
        "{}",
        out.stdout
    );
}

/// Copilot CLI has no action: the lint knows it by its npm install, holds
/// the receipt's `agent` to it, and asks for an exact version with
/// auto-update off.
#[test]
fn copilots_npm_install_is_its_agent_step_and_is_pinned() {
    let workflow = |install: &str, env: &str, agent: &str| {
        format!(
            "on: push\n{env}jobs:\n  review:\n    runs-on: ubuntu-latest\n    steps:\n      - uses: actions/checkout@v5\n        with:\n          fetch-depth: 0\n          persist-credentials: false\n      - uses: prompt-receipt/prompt-receipt@v1\n        with:\n          mode: record\n          agent: {agent}\n          prompt-file: p.md\n      - run: {install}\n      - run: copilot -p hi --allow-all-tools -s > review.json\n"
        )
    };
    let env = "env:\n  COPILOT_AUTO_UPDATE: \"false\"\n  V: 1.0.102\n";
    let clean = workflow(
        "npm install --prefix x \"@github/copilot@$V\"",
        env,
        "copilot",
    );
    let rules = |text: &str| -> Vec<(&'static str, Level)> {
        lint("w.yml", text, &|_| None)
            .iter()
            .map(|l| (l.rule, l.level))
            .collect()
    };
    assert_eq!(rules(&clean), []);
    assert_eq!(
        rules(&workflow(
            "npm install --prefix x \"@github/copilot@$V\"",
            env,
            "codex"
        )),
        [("receipt-agent", Level::Failure)]
    );
    assert_eq!(
        rules(&workflow("npm i -g @github/copilot", env, "copilot")),
        [("copilot-install", Level::Failure)]
    );
    assert_eq!(
        rules(&workflow("npm i -g @github/copilot@^1.0", env, "copilot")),
        [("copilot-install", Level::Failure)]
    );
    assert_eq!(
        rules(&workflow("npm i -g @github/copilot@1.0.102", "", "copilot")),
        [("copilot-install", Level::Warning)]
    );
    // After the agent in its job: the agent could rewrite what it reads.
    let beside = clean.replace("      - uses: prompt-receipt/prompt-receipt@v1\n        with:\n          mode: record\n          agent: copilot\n          prompt-file: p.md\n", "")
        + "      - uses: prompt-receipt/prompt-receipt@v1\n        with:\n          agent: copilot\n          prompt-file: p.md\n";
    assert_eq!(rules(&beside), [("receipt-beside-agent", Level::Warning)]);
    // Another package whose name starts the same is not Copilot CLI.
    assert_eq!(
        rules(&workflow("npm i -g @github/copilot-sdk@1", env, "codex")),
        []
    );
}

/// opencode by npm at an exact version passes; an unpinned install fails;
/// its action, which installs the newest opencode, is said.
#[test]
fn opencodes_install_is_pinned_and_its_action_said() {
    let workflow = |step: &str| {
        format!(
            "on: push\njobs:\n  review:\n    runs-on: ubuntu-latest\n    steps:\n      - uses: actions/checkout@v5\n        with:\n          fetch-depth: 0\n          persist-credentials: false\n      - uses: prompt-receipt/prompt-receipt@v1\n        with:\n          mode: record\n          agent: opencode\n          prompt-file: p.md\n      {step}\n"
        )
    };
    let rules = |text: &str| -> Vec<(&'static str, Level)> {
        lint("w.yml", text, &|_| None)
            .iter()
            .map(|l| (l.rule, l.level))
            .collect()
    };
    assert_eq!(
        rules(&workflow(
            "- run: npm install --prefix x opencode-ai@1.18.33"
        )),
        []
    );
    assert_eq!(
        rules(&workflow("- run: npm install -g opencode-ai")),
        [("opencode-install", Level::Failure)]
    );
    assert_eq!(
        rules(&workflow("- run: npm install -g opencode-ai@latest")),
        [("opencode-install", Level::Failure)]
    );
    assert_eq!(
        rules(&workflow("- uses: sst/opencode/github@v1")),
        [("opencode-install", Level::Warning)]
    );
}

/// A `workflow_run` receipt workflow waits for a workflow by its `name:`: a
/// name no workflow has means no receipt ever runs, and a required check
/// waits forever. The lint fails, naming both; the example's names agree.
#[test]
fn a_receipt_workflow_waiting_for_no_workflow_fails_naming_both() {
    let s = Scenario::example();
    let receipt = ".github/workflows/agent-receipt.yml";
    let text = String::from_utf8(s.read(receipt)).unwrap();
    assert!(text.contains("workflows: [Agent review]"), "{text}");
    // The example as it is: its agent workflow is `name: Agent review`.
    s.action().input("mode", "lint").run().code(0);
    s.write(
        receipt,
        text.replace("workflows: [Agent review]", "workflows: [Agent reveiw]"),
    );
    let out = s.action().input("mode", "lint").run();
    out.code(1);
    let line = text
        .lines()
        .position(|l| l.contains("workflows: [Agent review]"))
        .unwrap()
        + 1;
    let error = out
        .stdout
        .lines()
        .find(|l| l.contains("receipt-workflow-name") || l.contains("Agent reveiw"))
        .unwrap_or_else(|| panic!("{}", out.stdout));
    assert!(
        error.starts_with(&format!(
            "::error file={receipt},line={line},title=Workflow lint::"
        )),
        "{error}"
    );
    for said in ["`Agent reveiw`", "`Agent review`", "would never run"] {
        assert!(error.contains(said), "{said}: {error}");
    }
    // A name that is there, of a workflow that never runs on a pull request
    // (the receipt workflow itself): no receipt would start either.
    s.write(
        receipt,
        text.replace(
            "workflows: [Agent review]",
            "workflows: [Agent review receipt]",
        ),
    );
    let out = s.action().input("mode", "lint").run();
    out.code(1);
    assert!(
        out.stdout
            .contains("a workflow that does not run on `pull_request`"),
        "{}",
        out.stdout
    );
    // A workflow that calls no receipt may wait for anything.
    s.write(
        ".github/workflows/other.yml",
        "on:\n  workflow_run: { workflows: [Nightly], types: [completed] }\njobs:\n  x:\n    runs-on: ubuntu-latest\n    steps:\n      - run: echo\n",
    );
    s.write(receipt, text);
    s.action().input("mode", "lint").run().code(0);
}
