//! Pinning to the base with the real agent CLIs, offline against the logging
//! fakes: a pull request that rewrites the instruction file, the prompt and a
//! committed hook's script, with `mode: restore` before the agent and without
//! it. With it, the fake receives the base's instructions and prompt, the
//! base's hook script is the one that runs, and the receipt
//! (`configuration: base`) gives the verdict of a clean pull request with the
//! files named as not used; without it, the receipt fails. One file per agent.

mod claude;
mod codex;
mod copilot;
mod gemini;
