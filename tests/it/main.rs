//! The integration tests, in one binary (`cargo test --locked --test it`):
//! each module was a test binary of its own, and each linked the library and
//! `common` again; one binary compiles and links them once.
//!
//! - `cargo test --locked --test it trust::` runs one module.
//! - `cargo test --locked --test it real::` runs only the suites that run the
//!   real Codex, Claude Code and Gemini CLI (`real/`); `-- --skip real::`
//!   runs everything but them.
//! - `image::` is `#[ignore]`d: `.ci/run` runs it with `-- --ignored`.
//!
//! `cargo test --locked` runs every module, the real-CLI ones included.

mod common;

mod action_metadata;
mod attestation;
mod bad_inputs;
mod binding;
mod collect;
mod compare;
mod corpus_workflows;
mod fuzz_corpus;
mod git_processes;
mod github;
mod image;
mod json_schema_suite;
mod lint;
mod pinned;
mod pins;
mod python_agreement;
mod real;
mod receipt;
mod summary;
mod trust;
mod validation;
