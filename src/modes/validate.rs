//! `validate`: the schema gate alone. No receipt is read or written, and no
//! git runs, whatever the step is given: a base named (`base-ref`, or the
//! pull request's) is said not to judge, as `run` is what takes the base's
//! schema.

use super::side_by_side;
use crate::error::Error;
use crate::event::Origin;
use crate::inputs::{Inputs, Mode};
use crate::outcome::Outcome;
use crate::review::judge::Judge;
use crate::review::{self};
use crate::workspace::Workspace;

pub(crate) fn validate(inputs: &Inputs, ws: &Workspace, origin: &Origin) -> Result<Outcome, Error> {
    let policy = inputs.gate_policy();
    let schema_input = inputs.schema_input(ws)?;
    let gate = Judge::without_git(inputs.gate_schema, inputs.base(origin).is_some());
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
