//! The suites that run the real agent CLIs (installed by `.ci/run` under
//! `target/`), the slow part of `cargo test`: `cargo test --locked --test it
//! real::` runs only them, `cargo test --locked --test it -- --skip real::`
//! everything else. Without its CLI (or jq, for the tests that run the
//! collect action or a record filter) a test says `SKIPPED` with the command
//! that installs it and the one that runs it (under `.ci/run`, with
//! `PROMPT_RECEIPT_NO_SKIP=1`, it fails): `common::npm_cli_missing` and
//! `common::tool_missing`. One test outside `real/` runs Codex too, and is
//! skipped without it: `trust::what_the_record_cannot_show_is_not_verified`.

mod claude;
mod codex;
mod context;
mod copilot;
mod fork_report;
mod gemini;
mod opencode;
mod pinned;
mod redaction;
mod turns;
mod two_jobs;
