//! Log lines go to stderr through `tracing`; `RUNNER_DEBUG=1` (the runner's
//! "debug logging" switch) turns on debug lines. Anything untrusted in a log
//! field must go through [`crate::escape::one_line`] first.

use tracing::Level;

pub fn init(debug: bool) {
    let level = if debug { Level::DEBUG } else { Level::INFO };
    let _ = tracing_subscriber::fmt()
        .with_writer(std::io::stderr)
        .with_max_level(level)
        .with_ansi(false)
        .with_target(false)
        .without_time()
        .try_init();
}
