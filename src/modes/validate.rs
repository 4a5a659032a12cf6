//! `validate`: the schema gate alone. No receipt is read or written; git runs
//! only to take the schema from a trusted base.

use super::side_by_side;
use crate::base::{self, Subject};
use crate::error::Error;
use crate::event::Origin;
use crate::inputs::{Inputs, Mode};
use crate::outcome::Outcome;
use crate::review::judge::Judge;
use crate::review::{self};
use crate::sources::SchemaInput;

fn schema_shown(input: &SchemaInput) -> String {
    match input {
        SchemaInput::File(loc) | SchemaInput::Default(loc) => loc.shown.clone(),
        SchemaInput::Inline(_) => String::new(),
    }
}
use crate::workspace::Workspace;

pub(crate) fn validate(inputs: &Inputs, ws: &Workspace, origin: &Origin) -> Result<Outcome, Error> {
    let policy = inputs.gate_policy();
    let schema_input = inputs.schema_input(ws)?;
    // Whose schema judges: the base's copy when a base is known (git runs only then).
    let base = inputs.base(origin).map(|base| {
        let subjects = [Subject::file("output schema", &schema_shown(&schema_input))];
        // Only the schema is read there: where the pull request merges is
        // `run`'s to judge.
        base::check(
            ws.root(),
            &base,
            &subjects,
            inputs.instructions_changed,
            base::Target::NotAsked,
        )
    });
    let gate = Judge::choose(inputs.gate_schema, &schema_input, ws, base.as_ref());
    let output = inputs.output_location(ws)?;
    // The schema compiles while the output is read and parsed.
    let ((), review) = side_by_side(
        "schema",
        |schema| {
            let _ = schema.send(gate.compile(&schema_input, ws));
        },
        |schema| review::read_and_judge(&output, schema, &policy.findings_pointer),
    );
    let mut review = review?;
    let clock = crate::logging::Stopwatch::start("validate");
    review.place_findings(ws.root());
    clock.lap("findings placed");
    let mut outcome = Outcome::empty(Mode::Validate, String::new(), Default::default());
    outcome.decision = Some(policy.decide(&review));
    outcome.caveats = review.caveats();
    outcome.caveats.extend(gate.caveat);
    outcome.review = Some(review);
    Ok(outcome)
}
