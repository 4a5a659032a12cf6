//! The suites that run the real agent CLIs (installed by `.ci/run` under
//! `target/`), the slow part of `cargo test`: `cargo test --locked --test it
//! real::` runs only them, `cargo test --locked --test it -- --skip real::`
//! everything else. Without its CLI a test says `SKIPPED` (under `.ci/run`,
//! with `PROMPT_RECEIPT_NO_SKIP=1`, it fails), except `redaction` and
//! `fork_report`, which fail naming the `npm install` to run. One test outside
//! `real/` runs Codex too, and is skipped without it:
//! `trust::what_the_record_cannot_show_is_not_verified`.

mod claude;
mod codex;
mod context;
mod copilot;
mod fork_report;
mod gemini;
mod pinned;
mod redaction;
mod turns;
mod two_jobs;
