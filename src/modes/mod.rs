//! One function per mode, each a few stages over the parts [`crate::setup`]
//! makes of the inputs: `run` (verify what was recorded before the agent ran,
//! record this run beside the review, verify the record), `record`, `verify`,
//! `validate` (the schema gate alone), `compare` and `lint`.

mod compare;
mod lint;
mod record;
mod run;
mod validate;
mod verify;

use std::path::Path;
use std::sync::mpsc::{Receiver, Sender};

use crate::agent::chain::Options as ChainOptions;
use crate::agent::config::CodexConfig;
use crate::error::Error;
use crate::inputs::{Inputs, Mode};
use crate::outcome::Outcome;
use crate::sources::Sources;
use crate::workspace::Workspace;

/// Runs the mode the inputs ask for.
/// `base`: the pull request's base commit, when the event names one (what
/// the pull request changed is said, e.g. a skill it adds).
pub fn execute(
    inputs: &Inputs,
    ws: &Workspace,
    codex_home: Option<&Path>,
    base: Option<&str>,
) -> Result<Outcome, Error> {
    match inputs.mode {
        Mode::Run => run::run(inputs, ws, codex_home, base),
        Mode::Record => record::record(inputs, ws, codex_home),
        Mode::Verify => verify::verify(inputs, ws, codex_home),
        Mode::Validate => validate::validate(inputs, ws),
        Mode::Compare => compare::compare(inputs, ws),
        Mode::Lint => lint::lint(ws),
    }
}

/// What a receipt covers, as `run`, `record` and `verify` read it (after the
/// receipt file itself): the files to hash, Codex's settings, and how Codex
/// read the AGENTS.md chain with them.
struct Covered {
    sources: Sources,
    config: CodexConfig,
    chain: ChainOptions,
}

impl Covered {
    fn read(inputs: &Inputs, ws: &Workspace, codex_home: Option<&Path>) -> Result<Self, Error> {
        let sources = inputs.sources(ws)?;
        let config = inputs.codex_config(codex_home)?;
        let chain = inputs.chain_options(codex_home, &config);
        Ok(Self {
            sources,
            config,
            chain,
        })
    }
}

/// Runs `beside` on a thread named `name` while `here` runs on this one, the
/// first handing the second what it makes through a channel (the schema,
/// once compiled). Both capture only references, so without a thread to be
/// had `beside` still runs, first. `here` keeps the main thread, its
/// allocator arena and its stack: it does the heavy reading.
fn side_by_side<S: Send, A: Send, B>(
    name: &str,
    beside: impl FnOnce(Sender<S>) -> A + Copy + Send,
    here: impl FnOnce(&Receiver<S>) -> B,
) -> (A, B) {
    std::thread::scope(|scope| {
        let (tx, rx) = std::sync::mpsc::channel();
        let thread = {
            let tx = tx.clone();
            std::thread::Builder::new()
                .name(name.into())
                .spawn_scoped(scope, move || beside(tx))
        };
        match thread {
            Ok(thread) => {
                // The receiver hears the channel close if `beside` stops early.
                drop(tx);
                let b = here(&rx);
                let a = thread
                    .join()
                    .unwrap_or_else(|panic| std::panic::resume_unwind(panic));
                (a, b)
            }
            Err(_) => (beside(tx), here(&rx)),
        }
    })
}
