//! Pinning to the base with claude: see `super`.
