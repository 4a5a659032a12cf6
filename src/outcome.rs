//! What one invocation found: the receipt, its verification, the review and
//! the gate's decision, what reached the agent, a comparison, lint findings.
//! The modes produce it and the reports read it; it sits between them so that
//! no report imports the modes.

use serde_json::{Map, Value};

use crate::agent::AgentCheck;
use crate::base::{self, Policy};
use crate::compare::Comparison;
use crate::event::Layout;
use crate::inputs::Mode;
use crate::level::{Caveat, Level};
use crate::lint::Lint;
use crate::receipt::verify::Verification;
use crate::review::Review;
use crate::review::gate::{Conclusion, Decision};

/// Everything the reports need to tell the story of one invocation.
#[derive(Clone, Debug)]
pub struct Outcome {
    pub(crate) mode: Mode,
    /// The usage file, relative to the workspace.
    pub(crate) usage_file: String,
    /// The receipt as written (`record`, `run`) or as read (`verify`).
    pub(crate) receipt: Map<String, Value>,
    pub(crate) verification: Option<Verification>,
    /// The agent's output checked against the schema (`run` only).
    pub(crate) review: Option<Review>,
    /// What the gate made of the review (`run` only).
    pub(crate) decision: Option<Decision>,
    pub(crate) caveats: Vec<Caveat>,
    /// What reached the agent, from Codex's record (`run` with codex-home).
    pub(crate) agent: Option<AgentCheck>,
    /// Filled in by the check-run report.
    pub(crate) check_run: Option<CheckRunOutcome>,
    /// Check runs of this check's name on the head commit that this receipt
    /// did not post and that could pass (filled in by the check-run report,
    /// before it posts). They do not change the conclusion: when this receipt
    /// passes, they let through nothing it does not (a re-run of the agent
    /// workflow, a reopened pull request, find the earlier receipt's check);
    /// when it fails, they are what it names first, since a reader, or the
    /// merge, could take one for the receipt. No conclusion of this one can
    /// make GitHub read it instead of them: the app route can.
    pub(crate) imitations: Vec<Imitation>,
    /// (`compare`) Base against head.
    pub(crate) comparison: Option<Comparison>,
    /// What the workflow lint found (`lint`; `run` as warnings).
    pub(crate) lints: Vec<Lint>,
    /// The agent's instructions compared with the trusted base.
    pub(crate) instructions: Option<base::Check>,
    /// Checks the receipt expected to make and could not. A check that could
    /// not run is not a pass: at most neutral, and in the binding layout a
    /// failure (anything the pull request controls that could not be
    /// verified fails there; GitHub counts a neutral required check as
    /// passing).
    pub(crate) unverified: Vec<Unverified>,
    /// What the agent's record never shows on any run: said, never a cap.
    pub(crate) limits: Vec<Unverified>,
    /// What made the session more than one turn of one model (a compaction,
    /// several turns, a model switch), each a sentence for the title: the
    /// conclusion is at most neutral.
    pub(crate) timeline: Vec<String>,
    /// (`run`) Where the in-toto statement, its predicate and its subjects
    /// (`sha256sum` form) are written, once the verdict is known.
    pub(crate) attestation: Option<[crate::workspace::Location; 3]>,
    /// (`audit`) The table of runs, and how to print it.
    pub(crate) audit: Option<(crate::audit::Audit, crate::inputs::Format)>,
    /// (`verify --statement`) What was verified is a statement's subjects.
    pub(crate) statement: bool,
    /// Whether the pull request could change the workflow file that ran this
    /// step (`run`, `verify`, `validate`, `compare` in Actions; `None` when
    /// the run cannot tell). It never changes the conclusion: a green check
    /// in the advisory layout stays green, and its title says `advisory`.
    /// What the layout decides is who wrote the check, not what the receipt
    /// found; and a cap to neutral would hold nothing in the one layout it
    /// would apply to, where the pull request edits this very step (its
    /// inputs, its `uses:`) or posts the check itself. It would only turn
    /// every run of that layout yellow, and teach reviewers to read past
    /// yellow.
    pub(crate) layout: Option<Layout>,
    /// The agent ran with the base's configuration: what `restore` put back,
    /// or (`run` with `configuration: base`) what the receipt's own checkout
    /// had put back to hold the record to the base's files.
    pub(crate) pinned: Option<crate::base::Pinned>,
    /// The run could not be made: why, in one of our sentences (an input that
    /// names no file, an artifact that is not there). Nothing was verified.
    pub(crate) error: Option<String>,
}

/// What the advisory layout's check says, in its title, the job summary and
/// the log: this exact phrase, which people and scripts look for.
pub(crate) const ADVISORY: &str = "advisory: this workflow file can be changed by the pull request";

/// Where the README shows the layout the pull request cannot edit.
pub(crate) const BINDING_LAYOUT_URL: &str =
    "https://github.com/prompt-receipt/prompt-receipt#the-binding-layout";

/// A check that could not run: what, in a few words for the title, and why,
/// with the fix, for the summary and the annotation.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Unverified {
    pub(crate) what: String,
    pub(crate) why: String,
}

impl Unverified {
    pub(crate) fn new(what: impl Into<String>, why: impl Into<String>) -> Unverified {
        Unverified {
            what: what.into(),
            why: why.into(),
        }
    }
}

impl Outcome {
    /// An outcome with nothing found yet.
    pub(crate) fn empty(mode: Mode, usage_file: String, receipt: Map<String, Value>) -> Outcome {
        Outcome {
            mode,
            usage_file,
            receipt,
            verification: None,
            review: None,
            decision: None,
            caveats: Vec::new(),
            agent: None,
            check_run: None,
            imitations: Vec::new(),
            comparison: None,
            lints: Vec::new(),
            instructions: None,
            unverified: Vec::new(),
            limits: Vec::new(),
            timeline: Vec::new(),
            attestation: None,
            audit: None,
            statement: false,
            layout: None,
            pinned: None,
            error: None,
        }
    }

    /// Every check passed: the exit code is 0.
    pub fn passed(&self) -> bool {
        self.conclusion() != Conclusion::Failure
    }

    /// A failed verification fails whatever `fail-on` says: it is about the
    /// receipt's integrity, not the review's content.
    pub(crate) fn conclusion(&self) -> Conclusion {
        if self.error.is_some() {
            return Conclusion::Failure;
        }
        if self.verification.as_ref().is_some_and(|v| !v.passed()) {
            return Conclusion::Failure;
        }
        // What reached the agent is integrity too: `fail-on` does not silence it.
        if self.agent.as_ref().is_some_and(|a| !a.problems.is_empty()) {
            return Conclusion::Failure;
        }
        if self.comparison.as_ref().is_some_and(|c| !c.controlled) {
            return Conclusion::Failure;
        }
        // A base the pull request chose is no base: its verdict would show on
        // the same head opened against the default branch.
        if self
            .instructions
            .as_ref()
            .is_some_and(|c| matches!(c.target, base::Target::Elsewhere(_)))
        {
            return Conclusion::Failure;
        }
        if self.mode == Mode::Lint && self.lints.iter().any(|l| l.level == Level::Failure) {
            return Conclusion::Failure;
        }
        let changed = self.instructions_changed();
        if changed.is_some_and(|c| c.policy == Policy::Fail) {
            return Conclusion::Failure;
        }
        // `fail` fails closed: a comparison that could not run fails too.
        if self
            .instructions
            .as_ref()
            .is_some_and(|c| c.policy == Policy::Fail && c.unavailable.is_some())
        {
            return Conclusion::Failure;
        }
        // Where the pull request cannot edit the workflow, a required check
        // is what stands between it and the merge, and GitHub counts neutral
        // as a pass: what could not be verified fails.
        if self.binding() && self.not_verified().next().is_some() {
            return Conclusion::Failure;
        }
        let decided = self
            .decision
            .as_ref()
            .map_or(Conclusion::Success, |d| d.conclusion);
        // Never green over changed instructions, or over a check that did not run.
        let capped = changed.is_some_and(|c| c.policy == Policy::Warn)
            || self.not_verified().next().is_some()
            || !self.timeline.is_empty();
        if capped && decided == Conclusion::Success {
            return Conclusion::Neutral;
        }
        decided
    }

    /// The workflow file that ran this step is out of the pull request's reach.
    pub(crate) fn binding(&self) -> bool {
        matches!(self.layout, Some(Layout::Binding(_)))
    }

    /// Takes what the agent's record showed: the check itself, the checks it
    /// could not support, its limits, and the turns it read. What a hook said
    /// is a limit when `hooks_configured` (the checkout or the agent home
    /// configures one), and not verified when nothing does: then no file of
    /// the receipt accounts for the text.
    pub(crate) fn take_agent(&mut self, agent: Option<AgentCheck>, hooks_configured: bool) {
        if let Some(a) = &agent {
            for (what, why) in &a.hook_said {
                if hooks_configured {
                    self.limits.push(Unverified::new(what, why));
                } else {
                    self.unverified.push(Unverified::new(
                        what,
                        format!("{why}; and no hook is configured in the checkout or the agent home, so nothing accounts for it"),
                    ));
                }
            }
            self.unverified.extend(
                a.unverified
                    .iter()
                    .map(|(what, why)| Unverified::new(what, why)),
            );
            self.limits.extend(
                a.limits
                    .iter()
                    .map(|(what, why)| Unverified::new(what, why)),
            );
            self.timeline.extend(a.timeline.iter().cloned());
        }
        self.agent = agent;
    }

    /// The comparison with the base, when it found a change.
    pub(crate) fn instructions_changed(&self) -> Option<&base::Check> {
        self.instructions.as_ref().filter(|c| !c.changes.is_empty())
    }

    /// Everything expected and not checked: the comparison with the base
    /// that could not be made, then each check the record could not support.
    pub(crate) fn not_verified(&self) -> impl Iterator<Item = Unverified> + '_ {
        let target = self
            .instructions
            .iter()
            .filter(|c| c.target == base::Target::Unknown)
            .map(|c| {
                Unverified::new(
                    "the branch the pull request merges into",
                    format!(
                        "no open pull request of this head was named (`pull-request-bases`), so nothing shows that it merges into {}, the base compared with; a check run belongs to the commit, and shows on every pull request of this head",
                        c.label().unwrap_or_else(|| "the base".into())
                    ),
                )
            });
        self.instructions
            .iter()
            .filter_map(|c| c.unavailable.as_deref())
            .map(|why| Unverified::new("the base commit", why))
            .chain(target)
            .chain(self.unverified.iter().cloned())
    }

    /// What was not verified, each named once, in order: the title, the
    /// outputs and the predicate list the checks, the summary each reason.
    pub(crate) fn not_verified_names(&self) -> Vec<String> {
        let mut names: Vec<String> = Vec::new();
        for u in self.not_verified() {
            if !names.contains(&u.what) {
                names.push(u.what);
            }
        }
        names
    }

    /// A receipt field as text, empty when absent or null.
    /// The agent the receipt covers (a receipt without `agent` is Codex's).
    pub(crate) fn agent_kind(&self) -> crate::agent::AgentKind {
        crate::agent::AgentKind::of_receipt(&self.receipt)
    }

    pub(crate) fn field(&self, key: &str) -> String {
        match self.receipt.get(key) {
            Some(Value::String(s)) => s.clone(),
            Some(Value::Null) | None => String::new(),
            Some(other) => other.to_string(),
        }
    }
}

/// A check run that bears this check's name on the head commit and was not
/// posted by this workflow run. Every part is ours to print: numbers, the
/// link built from them, and the check's own name (an input).
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Imitation {
    /// The name both checks bear (`check-name`).
    pub(crate) name: String,
    pub(crate) check_run_id: u64,
    /// Who posted it, in a few plain words: `workflow run 77 (job 88)`, `the
    /// app \`some-app\``, `a GitHub Actions workflow`.
    pub(crate) source: String,
    /// `{server}/{repo}/runs/{id}`, built from the id, never the answer's URL.
    pub(crate) url: String,
    /// What it says: `success`, `failure`, ..., or its status while it runs.
    pub(crate) conclusion: String,
}

/// What a listing that failed leaves unverified (`not verified, missing: ...`).
pub(crate) const NO_OTHER_CHECK: &str = "no other check of this name";

/// How the warning about a check run that was not created begins: the log
/// says it as an annotation, the job summary near its top.
pub(crate) const NOT_PUBLISHED: &str = "the check run was not created: ";

/// What became of the check run: the check-run report fills it in, and the
/// reports after it (step outputs, summary) link it or say why there is none.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum CheckRunOutcome {
    Published {
        id: u64,
        url: String,
        annotations: usize,
        left_out: usize,
        requests: usize,
    },
    /// Not published; the reason says how to fix it.
    NotPublished { reason: String },
}

#[cfg(test)]
mod tests {
    use super::*;

    fn said_by_a_hook() -> AgentCheck {
        AgentCheck {
            hook_said: vec![(
                "what the SessionStart hook said before the prompt".into(),
                "a SessionStart hook added a message".into(),
            )],
            ..AgentCheck::default()
        }
    }

    /// What a hook said is a limit where a hook is configured, and not
    /// verified where none is: a record (a forged one) with a hook's text
    /// that no configuration accounts for fails in the binding layout.
    #[test]
    fn a_hooks_text_is_a_limit_only_where_a_hook_is_configured() {
        let mut configured = Outcome::empty(Mode::Run, String::new(), Map::new());
        configured.layout = Some(Layout::Binding("workflow_run"));
        configured.take_agent(Some(said_by_a_hook()), true);
        assert_eq!(configured.limits.len(), 1);
        assert_eq!(configured.not_verified().count(), 0);
        assert_eq!(configured.conclusion(), Conclusion::Success);

        let mut nothing = Outcome::empty(Mode::Run, String::new(), Map::new());
        nothing.layout = Some(Layout::Binding("workflow_run"));
        nothing.take_agent(Some(said_by_a_hook()), false);
        assert!(nothing.limits.is_empty());
        let why = nothing.not_verified().next().unwrap().why;
        assert!(why.contains("no hook is configured"), "{why}");
        assert_eq!(nothing.conclusion(), Conclusion::Failure);
        // Outside the binding layout the same is at most neutral.
        nothing.layout = Some(Layout::Advisory);
        assert_eq!(nothing.conclusion(), Conclusion::Neutral);
    }
}
