//! The attestable run (`run` only): the in-toto statement, its predicate and
//! its subjects, written beside the receipt once the verdict is known (after
//! the check run, whose search for an imitation can still fail the run).

use super::Report;
use crate::context::Context;
use crate::error::Error;
use crate::outcome::Outcome;
use crate::receipt::attest::{self, Verdict, Workflow};
use crate::receipt::pyjson;
use crate::receipt::usage_file::write_derived;

/// The verdict's words in the predicate, at most as long as a check run's
/// title (GitHub keeps 255 characters of it).
const TITLE_CHARS: usize = 255;

pub(crate) struct Attestation {
    pub(crate) ctx: Context,
}

impl Report for Attestation {
    fn name(&self) -> &'static str {
        "attestation files"
    }

    fn report(&mut self, result: &mut Outcome) -> Result<(), Error> {
        let Some([statement, predicate_file, subjects_file]) = &result.attestation else {
            return Ok(());
        };
        let said = super::verdict::of(result);
        let verdict = Verdict {
            conclusion: result.conclusion().as_str(),
            title: said.words_within(TITLE_CHARS),
            verified: result.verification.as_ref().is_some_and(|v| v.passed()),
            not_verified: result.not_verified_names(),
        };
        let workflow = self.ctx.in_actions.then(|| workflow(&self.ctx));
        let now = attest::rfc3339(std::time::SystemTime::now());
        let predicate = attest::predicate(
            &result.receipt,
            &verdict,
            result.instructions.as_ref(),
            workflow.as_ref(),
            &now,
            self.ctx.runner_temp.as_deref().and_then(|t| t.to_str()),
        );
        let subjects = attest::subjects(&predicate);
        write_derived(predicate_file, pyjson::to_string(&predicate).as_bytes())?;
        write_derived(subjects_file, attest::checksums(&subjects).as_bytes())?;
        let whole = attest::statement(&subjects, predicate);
        write_derived(statement, pyjson::to_string(&whole).as_bytes())
    }
}

/// The workflow run, as the runner's variables name it.
fn workflow(ctx: &Context) -> Workflow {
    let payload = crate::event::read(ctx.event_path.as_deref());
    let sha = ctx.sha.clone().unwrap_or_default();
    let head = crate::event::target(&ctx.event_name, payload.as_ref(), &sha).head_sha;
    Workflow {
        workflow_ref: ctx.workflow_ref.clone(),
        repository: ctx.repository.clone(),
        run_id: ctx.run_id.clone(),
        run_attempt: ctx.run_attempt.clone(),
        event: ctx.event_name.clone(),
        head_sha: (!head.is_empty()).then_some(head),
        sha: ctx.sha.clone(),
        signer_workflow: ctx.signer_workflow.clone(),
    }
}
