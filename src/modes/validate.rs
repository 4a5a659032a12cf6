//! `validate`: the schema gate alone. No receipt is read or written, no git.

use super::side_by_side;
use crate::error::Error;
use crate::inputs::{Inputs, Mode};
use crate::outcome::Outcome;
use crate::review::{self, schema};
use crate::workspace::Workspace;

pub fn validate(inputs: &Inputs, ws: &Workspace) -> Result<Outcome, Error> {
    let policy = inputs.gate_policy();
    let schema_input = inputs.schema_input(ws)?;
    let output = inputs.output_location(ws)?;
    // The schema compiles while the output is read and parsed.
    let ((), review) = side_by_side(
        "schema",
        |schema| {
            let _ = schema.send(schema::compile_input(&schema_input, ws));
        },
        |schema| review::read_and_judge(&output, schema, &policy.findings_pointer),
    );
    let mut review = review?;
    review.place_findings(ws.root());
    let mut outcome = Outcome::empty(Mode::Validate, String::new(), Default::default());
    outcome.decision = Some(policy.decide(&review));
    outcome.caveats = review.caveats();
    outcome.review = Some(review);
    Ok(outcome)
}
