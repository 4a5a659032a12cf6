//! The receipt read as its attacker would: a pull request that rewrites the
//! reviewer's instructions, a fork whose artifact unpacks a hostile `.git`
//! over the checkout, records with what they should hold left out, and inputs
//! built to exhaust time or memory.

mod common;

use std::fs;

use common::*;

/// A fork's artifact unpacked over the checkout can bring a `.git/config` with
/// a clean filter and an attributes file naming it for every path: `git
/// describe --dirty` would run it, with the step's environment (its token).
#[test]
fn a_filter_in_an_uploaded_git_config_never_runs() {
    let s = Scenario::example();
    let leak = s.root.join("leak");
    let config = s.ws.join(".git/config");
    let program = s.root.join("leak.sh");
    fs::write(
        &program,
        format!("#!/bin/sh\nenv > '{}'\ncat\n", leak.display()),
    )
    .unwrap();
    fs::set_permissions(
        &program,
        std::os::unix::fs::PermissionsExt::from_mode(0o755),
    )
    .unwrap();
    let mut text = fs::read_to_string(&config).unwrap();
    text.push_str(&format!(
        "[filter \"x\"]\n\tclean = {0}\n\tsmudge = {0}\n\trequired = true\n\
         [diff \"x\"]\n\ttextconv = {0}\n[core]\n\tfsmonitor = {0}\n\tpager = {0}\n",
        program.display()
    ));
    fs::write(&config, text).unwrap();
    fs::write(s.ws.join(".git/info/attributes"), "* filter=x diff=x\n").unwrap();
    s.write(".gitattributes", "* filter=x diff=x\n");
    // Same size, newer time: git must read the bytes, which is when a clean filter runs.
    let prompt = s.read(EXAMPLE_PROMPT);
    std::thread::sleep(std::time::Duration::from_millis(1100));
    s.write(EXAMPLE_PROMPT, &prompt);
    // The trap is real: plain git runs the filter (the fsmonitor hook aside, which
    // would answer nonsense to plain git), and it sees the environment.
    s.git(&[
        "-c",
        "core.fsmonitor=false",
        "describe",
        "--tags",
        "--always",
        "--dirty",
    ]);
    assert!(
        leak.exists(),
        "the scenario's filter did not run under plain git"
    );
    fs::remove_file(&leak).unwrap();
    s.write(EXAMPLE_PROMPT, &prompt);

    let out = s.review_step().input("model", "gpt-5.5").run();
    assert!(
        !leak.exists(),
        "a program of the repository's config ran: {}",
        fs::read_to_string(&leak).unwrap_or_default()
    );
    out.code(0);
    // Still the checkout's identity, its bytes compared without the filter.
    let usage = out.usage();
    assert_eq!(usage["git_describe"], "v1.4.0", "{usage}");
    assert_eq!(usage["git_sha"], s.git(&["rev-parse", "HEAD"]));
}
