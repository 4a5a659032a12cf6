//! Pinning to the base with copilot: see `super`.
