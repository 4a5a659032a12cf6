//! Pinning to the base with codex: see `super`.
