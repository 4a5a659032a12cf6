//! Log lines go to stderr through `tracing`; `RUNNER_DEBUG=1` (the runner's
//! "debug logging" switch) turns on debug lines. Anything untrusted in a log
//! field must go through [`crate::escape::one_line`] first.

use std::time::Instant;

use tracing::Level;

/// Debug lines saying when each step of a part of the run ended, so
/// `RUNNER_DEBUG=1` shows where a run's time goes.
pub(crate) struct Stopwatch {
    part: &'static str,
    start: Instant,
}

impl Stopwatch {
    pub(crate) fn start(part: &'static str) -> Stopwatch {
        Stopwatch {
            part,
            start: Instant::now(),
        }
    }

    pub(crate) fn lap(&self, step: &str) {
        tracing::debug!(
            "{}: {step} after {:.1} ms (at {:.1} ms)",
            self.part,
            self.start.elapsed().as_secs_f64() * 1e3,
            STARTED
                .get()
                .map_or(0.0, |s| s.elapsed().as_secs_f64() * 1e3)
        );
    }
}

static STARTED: std::sync::OnceLock<Instant> = std::sync::OnceLock::new();

/// Notes when `main` began, so each lap also says when it ended in the run.
pub fn started() {
    let _ = STARTED.set(Instant::now());
}

/// Only debug events are logged this way (what users must see goes through the
/// console report), so without `RUNNER_DEBUG` there is nothing to set up, and
/// the start of every run stays cheap.
pub fn init(debug: bool) {
    if !debug {
        return;
    }
    let level = Level::DEBUG;
    let _ = tracing_subscriber::fmt()
        .with_writer(std::io::stderr)
        .with_max_level(level)
        .with_ansi(false)
        .with_target(false)
        .without_time()
        .try_init();
}
