//! Whose output schema judges the review.
//!
//! The agent is given the checkout's schema, and a pull request can loosen it
//! (drop a required field, allow any severity) so that its own review passes.
//! With a trusted base at hand the gate takes the base commit's copy instead:
//! the pull request cannot change the rules it is judged by. When the two
//! differ, that is said.

use serde::{Deserialize, Serialize};

use crate::base;
use crate::digest::sha256_hex;
use crate::error::Error;
use crate::git;
use crate::level::Caveat;
use crate::review::schema::{self, Schema};
use crate::sources::SchemaInput;
use crate::workspace::Workspace;

/// Whose output schema judges the review (input `gate-schema`).
#[derive(Copy, Clone, Debug, PartialEq, Eq, clap::ValueEnum)]
pub(crate) enum Whose {
    /// The base commit's copy: a pull request cannot loosen its own judge.
    Base,
    /// The checkout's copy, the one the agent was given.
    Checkout,
}

/// The schema the gate uses, chosen before the review is read.
#[derive(Clone, Debug, Default)]
pub(crate) struct Judge {
    /// The base commit's bytes of the schema file, when they judge.
    base: Option<(String, Vec<u8>)>,
    /// What the receipt records of the choice.
    pub(crate) record: Option<JudgeRecord>,
    /// Why the choice is worth a word: the schemas differ, or base was asked
    /// for and could not be had.
    pub(crate) caveat: Option<Caveat>,
}

/// The schema file as the step names it (`output-schema-file`, or the
/// default), relative to the workspace; the resolved path when none is kept.
fn given_path(input: &SchemaInput, resolved: &str) -> String {
    match input {
        SchemaInput::File(loc) | SchemaInput::Default(loc) => {
            loc.named.clone().unwrap_or_else(|| resolved.to_string())
        }
        SchemaInput::Inline(_) => resolved.to_string(),
    }
}

/// The receipt's `gate_schema`: whose schema judged, and its hash.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub(crate) struct JudgeRecord {
    /// `base` or `checkout`.
    pub(crate) from: String,
    pub(crate) sha256: Option<String>,
}

impl Judge {
    /// `whose` as given (`None`: base when a base commit is known).
    pub(crate) fn choose(
        whose: Option<Whose>,
        input: &SchemaInput,
        ws: &Workspace,
        base: Option<&base::Check>,
    ) -> Judge {
        let commit = base.and_then(|c| c.commit.as_deref());
        let checkout = || Judge {
            record: Some(JudgeRecord {
                from: "checkout".into(),
                sha256: None,
            }),
            ..Judge::default()
        };
        match (whose, commit) {
            (Some(Whose::Checkout), _) | (None, None) => return Judge::default(),
            (Some(Whose::Base), None) => {
                return Judge {
                    caveat: Some(Caveat::warning(
                        "`gate-schema: base`, but there is no base commit to take the schema from: \
                         the review is judged by the checkout's schema, which the pull request \
                         controls",
                    )),
                    ..checkout()
                };
            }
            _ => {}
        }
        let commit = commit.expect("matched above");
        let loc = match input {
            SchemaInput::Inline(_) => {
                return Judge {
                    caveat: Some(Caveat::notice(
                        "the output schema is inline (`output-schema`): it is judged as the workflow \
                         gives it; the comparison of the workflow file with the base covers it",
                    )),
                    ..checkout()
                };
            }
            SchemaInput::File(loc) | SchemaInput::Default(loc) => loc,
        };
        let ours = crate::workspace::read_bounded(&loc.path, crate::limits::FILE_BYTES).ok();
        // The file as the input names it, links followed inside the base's
        // tree: not the path a link in the checkout points to.
        match git::file_at(ws.root(), commit, &given_path(input, &loc.shown)) {
            None => Judge {
                caveat: Some(
                    Caveat::warning(format!(
                        "the base commit has no `{}`: the review is judged by the checkout's copy, \
                         which this pull request adds",
                        loc.shown
                    ))
                    .on(&loc.shown),
                ),
                ..checkout()
            },
            Some(bytes) => {
                let sha = sha256_hex(&bytes);
                let differs = ours.as_deref().map(sha256_hex).as_deref() != Some(sha.as_str());
                Judge {
                    caveat: differs.then(|| {
                        Caveat::warning(format!(
                            "this pull request changes the output schema `{}`: the review is judged \
                             by the base commit's copy (sha256 {}), not the checkout's, which the \
                             agent was given",
                            loc.shown,
                            &sha[..12]
                        ))
                        .on(&loc.shown)
                    }),
                    record: Some(JudgeRecord {
                        from: "base".into(),
                        sha256: Some(sha),
                    }),
                    base: Some((commit.to_string(), bytes)),
                }
            }
        }
    }

    /// The checkout's schema, chosen without git (`validate`): a base named
    /// there (`base_named`), or `gate-schema: base`, is said not to judge.
    pub(crate) fn without_git(whose: Option<Whose>, base_named: bool) -> Judge {
        let why = "`validate` runs no git, so the review is judged by the checkout's schema, \
                   which a pull request controls; `run` judges it by the base commit's copy";
        let caveat = match (whose, base_named) {
            (Some(Whose::Base), _) => Caveat::warning(format!("`gate-schema: base`, but {why}")),
            (None, true) => Caveat::notice(format!("a base commit is named, but {why}")),
            (Some(Whose::Checkout), _) | (None, false) => return Judge::default(),
        };
        Judge {
            caveat: Some(caveat),
            ..Judge::default()
        }
    }

    /// Compiles the chosen schema. A base copy's relative `$ref`s resolve in
    /// the checkout: only the file itself is taken from the base.
    pub(crate) fn compile(&self, input: &SchemaInput, ws: &Workspace) -> Result<Schema, Error> {
        match (&self.base, input) {
            (Some((commit, bytes)), SchemaInput::File(loc) | SchemaInput::Default(loc)) => {
                let shown = format!("{} (at the base commit {})", loc.shown, &commit[..12]);
                schema::compile(bytes, &shown, &loc.path, ws.root())
            }
            _ => schema::compile_input(input, ws),
        }
    }
}
