//! Pinning to the base with gemini: see `super`.
