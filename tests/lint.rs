//! Workflow lint on a corpus: each defect at its exact line, clean files silent.

mod common;

use common::*;
use prompt_receipt::level::Level;
use prompt_receipt::lint::lint;

/// (line, level, words the message must hold) for each finding, in order.
fn expect(text: &str, expected: &[(u64, Level, &str)]) {
    let got = lint("w.yml", text);
    let shown: Vec<String> = got
        .iter()
        .map(|l| format!("{}:{:?}: {}", l.line, l.level, l.message))
        .collect();
    assert_eq!(got.len(), expected.len(), "{shown:#?}");
    for (l, (line, level, words)) in got.iter().zip(expected) {
        assert_eq!((l.line, l.level), (*line, *level), "{shown:#?}");
        assert!(l.message.contains(words), "`{words}` not in {}", l.message);
    }
}

const CLEAN: &str = "\
name: Agent review
on: pull_request
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
}

#[test]
fn each_defect_at_its_line() {
    let both = CLEAN.replace("          prompt-file: .github/codex/prompts/review.md\n          output-file", "          prompt: Review this\n          prompt-file: .github/codex/prompts/review.md\n          output-file");
    expect(
        &both,
        &[(14, Level::Failure, "both `prompt` and `prompt-file`")],
    );

    let missing = CLEAN.replacen("          codex-version: 0.169.0\n", "", 1);
    // A missing input is reported where the step starts.
    expect(
        &missing,
        &[(11, Level::Failure, "`codex-version` is not set")],
    );
    for bad in ["latest", "^0.169", "0.x", "'>=0.1'"] {
        let v = CLEAN.replacen(
            "codex-version: 0.169.0",
            &format!("codex-version: {bad}"),
            1,
        );
        expect(&v, &[(16, Level::Failure, "a tag or a range")]);
    }
    let expr = CLEAN.replacen(
        "codex-version: 0.169.0",
        "codex-version: ${{ vars.CODEX_VERSION_EXACT }}",
        1,
    );
    expect(&expr, &[(16, Level::Notice, "comes from")]);

    let shallow = CLEAN.replace("          fetch-depth: 0\n", "");
    expect(&shallow, &[(7, Level::Warning, "shallow")]);
    let creds = CLEAN.replace("          persist-credentials: false\n", "");
    expect(&creds, &[(7, Level::Notice, "persist-credentials: false")]);
    let creds_true = CLEAN.replace("persist-credentials: false", "persist-credentials: true");
    expect(&creds_true, &[(10, Level::Notice, "persist-credentials")]);
}

#[test]
fn a_receipt_step_that_describes_another_run() {
    let other = CLEAN.replace(
        "      - uses: prompt-receipt/prompt-receipt@v1\n        with:\n          prompt-file: .github/codex/prompts/review.md",
        "      - uses: prompt-receipt/prompt-receipt@v1\n        with:\n          prompt-file: .github/codex/prompts/review.v3.md\n          working-directory: sub\n          output-file: out/review.json",
    );
    expect(
        &other,
        &[
            (
                20,
                Level::Failure,
                "`prompt-file` is `.github/codex/prompts/review.v3.md`",
            ),
            (21, Level::Failure, "`working-directory` is `sub`"),
            (22, Level::Failure, "`output-file` is `out/review.json`"),
        ],
    );
    let home = CLEAN.replace(
        "codex-home: ${{ runner.temp }}/codex-home\n      - uses",
        "codex-home: /tmp/elsewhere\n      - uses",
    );
    expect(&home, &[(22, Level::Failure, "`codex-home`")]);
}

#[test]
fn malformed_yaml_is_reported_at_its_line() {
    let got = lint(
        "w.yml",
        "on: push\njobs:\n  a:\n    steps:\n      - uses: x\n     bad: [\n",
    );
    assert_eq!(got.len(), 1);
    assert!(
        got[0].message.starts_with("not valid YAML") && got[0].line >= 5,
        "{got:?}"
    );
}

#[test]
fn anchors_aliases_refs_and_several_jobs() {
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
            (9, Level::Failure, "tag or a range"),
            (8, Level::Warning, "shallow"),
            (8, Level::Notice, "persist-credentials"),
            (21, Level::Failure, "both `prompt` and `prompt-file`"),
            (18, Level::Failure, "tag or a range"),
        ],
    );
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
