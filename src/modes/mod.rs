//! One function per mode, each a few stages over the parts [`crate::setup`]
//! makes of the inputs: `run` (verify what was recorded before the agent ran,
//! record this run beside the review, verify the record), `record`, `verify`,
//! `validate` (the schema gate alone), `compare` and `lint`.

mod attested;
mod compare;
mod lint;
mod record;
mod restore;
mod run;
mod validate;
mod verify;

use std::path::Path;
use std::sync::mpsc::{Receiver, Sender};

use crate::agent::reach::Reach;
use crate::agent::{AgentCheck, Expected, SessionOptions, Setup};
use crate::base::{self, Subject};
use crate::error::Error;
use crate::event::Origin;
use crate::inputs::{Inputs, Mode};
use crate::outcome::Outcome;
use crate::receipt::Receipt;
use crate::sources::Sources;
use crate::workspace::Workspace;

/// Runs the mode the inputs ask for. `origin`: what the event says of the
/// pull request (its base, a fork, the workflow file), for the comparison of
/// the agent's instructions with the base.
pub(crate) fn execute(
    inputs: &Inputs,
    ws: &Workspace,
    home: Option<&Path>,
    origin: &Origin,
) -> Result<Outcome, Error> {
    match inputs.mode {
        Mode::Run => run::run(inputs, ws, home, origin),
        Mode::Record => record::record(inputs, ws, home),
        Mode::Verify => match &inputs.statement {
            Some(statement) => attested::verify_statement(
                statement,
                &inputs.expected_signer,
                inputs.review.as_deref(),
                ws,
            ),
            None => verify::verify(inputs, ws, home, origin),
        },
        Mode::Audit => audit(inputs, ws),
        Mode::Validate => validate::validate(inputs, ws, origin),
        Mode::Compare => compare::compare(inputs, ws),
        Mode::Lint => lint::lint(ws),
        Mode::Restore => restore::restore(inputs, ws, home, origin),
    }
}

/// `audit`: the folder's runs, as a table.
fn audit(inputs: &Inputs, ws: &Workspace) -> Result<Outcome, Error> {
    let given = inputs.audit_dir.as_deref().unwrap_or(".");
    let dir = ws.resolve_anywhere("audit-dir", given)?;
    let table = crate::audit::audit(&dir.path, &dir.shown)?;
    let mut outcome = Outcome::empty(Mode::Audit, String::new(), serde_json::Map::new());
    outcome.audit = Some((table, inputs.format));
    Ok(outcome)
}

/// What a receipt covers, as `run`, `record` and `verify` read it (after the
/// receipt file itself): the files to hash, the agent as the step set it up
/// (its chain is read through it), and what its runtime reaches.
struct Covered {
    sources: Sources,
    agent: Setup,
    /// What the agent's runtime runs or loads besides its chain.
    reach: Reach,
    /// What the agent workflow's other steps run (the workflow the event
    /// names; nothing without one): compared with the base, not listed in
    /// the receipt, whose `runtime` is what the agent itself runs.
    workflow: Reach,
}

impl Covered {
    /// `origin`: the event's, for `run` and `verify` (the agent workflow's
    /// reach is read only where there is a base to compare it with).
    fn read(
        inputs: &Inputs,
        ws: &Workspace,
        home: Option<&Path>,
        origin: Option<&Origin>,
    ) -> Result<Self, Error> {
        let sources = inputs.sources(ws)?;
        let agent = inputs.agent_setup(home)?;
        let reach = agent.reach(&sources.workdir, ws);
        let workflow = match origin {
            Some(o) => workflow_reach(ws, o),
            None => Reach::default(),
        };
        Ok(Self {
            sources,
            agent,
            reach,
            workflow,
        })
    }

    /// What the receipt cannot see through, as not verified: of the agent's
    /// runtime, then of the agent workflow's steps.
    fn unseen(&self) -> impl Iterator<Item = crate::outcome::Unverified> + '_ {
        self.reach
            .unseen
            .iter()
            .chain(&self.workflow.unseen)
            .map(|(what, why)| crate::outcome::Unverified::new(what.clone(), why.clone()))
    }
}

/// A hook is configured: the receipt hashed a hook configuration (`hooks`),
/// or the runtime's reach read a hook command in the checkout's or the
/// agent home's settings.
fn hooks_configured(receipt: &serde_json::Map<String, serde_json::Value>, reach: &Reach) -> bool {
    receipt
        .get("hooks")
        .and_then(serde_json::Value::as_array)
        .is_some_and(|a| !a.is_empty())
        || reach.hook_commands > 0
}

/// What the agent workflow runs: the workflow the event names, read from
/// the checkout. A `workflow_run` whose agent workflow the event does not name
/// (no `path`, or one outside `.github/workflows/`) is not verified: nothing
/// shows what ran before the upload.
fn workflow_reach(ws: &Workspace, origin: &Origin) -> Reach {
    match origin.workflow_path.as_deref() {
        Some(path) => crate::agent::workflow::reach(ws, path),
        None if origin.names_no_agent_workflow => Reach {
            unseen: vec![(
                "what the agent workflow runs".into(),
                "the `workflow_run` event names no workflow file of this repository (`workflow_run.path`): neither the agent workflow nor what its steps ran is compared with the base".into(),
            )],
            ..Reach::default()
        },
        None => Reach::default(),
    }
}

/// The runtime's files the checkout has, for the receipt (`runtime`): a
/// place the runtime would load from but that is empty is compared with the
/// base, not listed.
fn runtime_record(reach: &Reach) -> Option<Vec<crate::agent::reach::RuntimeFile>> {
    let files: Vec<_> = reach
        .files
        .iter()
        .filter(|f| f.sha256.is_some() || f.path.ends_with('/'))
        .cloned()
        .collect();
    (!files.is_empty()).then_some(files)
}

/// The receipt's files, each named by what it is to the agent.
type Named = [(&'static str, Option<String>)];

/// The files a step's sources name.
fn named(sources: &Sources) -> Vec<(&'static str, Option<String>)> {
    use crate::sources::{Prompt, SchemaInput};
    use crate::workspace::Location;
    let prompt = match &sources.prompt {
        Some(Prompt::File(loc)) => Some(loc),
        _ => None,
    };
    let schema = match &sources.schema {
        SchemaInput::File(loc) | SchemaInput::Default(loc) => Some(loc),
        SchemaInput::Inline(_) => None,
    };
    let locations: [(&'static str, Option<&Location>); 4] = [
        ("prompt", prompt),
        ("prompt template", sources.template.as_ref()),
        ("tools", Some(&sources.tools)),
        ("output schema", schema),
    ];
    let mut files: Vec<(&'static str, Option<String>)> = locations
        .iter()
        .map(|(kind, loc)| (*kind, loc.map(|l| l.shown.clone())))
        .collect();
    // Each also as named, links not followed: a file the pull request turned
    // into a link (to an older prompt, to a file that is no schema) changed.
    for (kind, loc) in locations {
        if let Some(named) = loc
            .and_then(|l| l.named.clone())
            .filter(|n| Some(n) != loc.map(|l| &l.shown))
        {
            files.push((kind, Some(named)));
        }
    }
    files
}

/// Compares every file the receipt covers with the trusted base: `None` when
/// there is no base and none is expected (a push, a local run).
fn compare_with_base(
    inputs: &Inputs,
    ws: &Workspace,
    files: &Named,
    covered: &Covered,
    origin: &Origin,
) -> Option<base::Check> {
    let (sources, agent) = (&covered.sources, &covered.agent);
    let policy = inputs.instructions_changed;
    let Some(base) = inputs.base(origin) else {
        return origin.reviews_pull_request.then(|| base::no_base(policy));
    };
    let mut subjects = named_subjects(files);
    if let Some(workflow) = &origin.workflow_path {
        subjects.push(Subject::file("workflow", workflow));
    }
    // What the runtime runs or loads (a hook's script, an MCP server, `.env`)
    // and what the agent workflow's steps run, before the agent's globs, so
    // that each is named by what it does.
    subjects.extend(runtime_subjects(
        covered.reach.files.iter().chain(&covered.workflow.files),
    ));
    subjects.extend(chain_subjects(agent, sources, ws));
    // Attributes change the bytes a checkout writes without changing a blob
    // (`working-tree-encoding`).
    subjects.push(Subject::glob("git attributes", "**/.gitattributes"));
    subjects.extend(glob_subjects(agent.kind.base_globs()));
    // Pinned, the nested instruction files put back are named too, as not used.
    if inputs.configuration == crate::inputs::Configuration::Base {
        subjects.extend(glob_subjects(agent.kind.pinned_globs()));
    }
    let target = base::Target::of(base.branch.as_deref(), &inputs.pull_request_bases);
    Some(base::check(ws.root(), &base, &subjects, policy, target))
}

/// What `mode: restore` puts back as the base has it, and what a receipt of
/// a pinned run holds the record to: every file the comparison with the base
/// covers that steers the agent (the step's files, what the runtime runs or
/// loads, the chain, the agent's own folders, its instruction files at every
/// level), and not the agent workflow or what it runs, which ran already.
fn configuration_subjects(ws: &Workspace, files: &Named, covered: &Covered) -> Vec<Subject> {
    let (sources, agent) = (&covered.sources, &covered.agent);
    let mut subjects = named_subjects(files);
    subjects.extend(runtime_subjects(covered.reach.files.iter()));
    subjects.extend(chain_subjects(agent, sources, ws));
    subjects.extend(glob_subjects(agent.kind.base_globs()));
    subjects.extend(glob_subjects(agent.kind.pinned_globs()));
    subjects
}

fn named_subjects(files: &Named) -> Vec<Subject> {
    files
        .iter()
        .filter_map(|(kind, path)| path.as_deref().map(|p| Subject::file(kind, p)))
        .collect()
}

fn runtime_subjects<'a>(
    files: impl Iterator<Item = &'a crate::agent::reach::RuntimeFile>,
) -> impl Iterator<Item = Subject> {
    files.map(|f| Subject::runtime(&f.kind, &f.path))
}

/// Each place the agent looks for its chain from the working directory.
fn chain_subjects(agent: &Setup, sources: &Sources, ws: &Workspace) -> Vec<Subject> {
    agent
        .candidate_paths(&sources.workdir, ws)
        .iter()
        .map(|p| Subject::file(agent.kind.chain_name(), p))
        .collect()
}

/// The agent's own folders and files: skills, hooks (first: their output
/// reaches the model, and the kind says so), its config.
fn glob_subjects<'a>(globs: &'a [(&'a str, &'a str)]) -> impl Iterator<Item = Subject> + 'a {
    globs.iter().map(|(kind, glob)| Subject::glob(kind, glob))
}

/// Reads the agent's record of this run and checks it against the checkout and
/// the review bytes the gate read.
fn check_agent(
    (agent, opts): (&Setup, &SessionOptions),
    sources: &Sources,
    ws: &Workspace,
    receipt: &Receipt,
    prompt: &[u8],
    output: Option<&[u8]>,
    instructions: Option<&base::Check>,
) -> AgentCheck {
    let agents_sha = receipt.agents_sha.clone().flatten();
    let inputs = receipt.input_paths();
    let changed_skills: Vec<String> = instructions
        .iter()
        .flat_map(|c| &c.changes)
        .filter(|c| c.kind == "skill")
        .map(|c| c.path.clone())
        .collect();
    let workdir = ws.relative(&sources.workdir);
    let schema = match &sources.schema {
        crate::sources::SchemaInput::Inline(text) => Some(text.as_bytes().to_vec()),
        crate::sources::SchemaInput::File(l) | crate::sources::SchemaInput::Default(l) => {
            let root = std::fs::canonicalize(ws.root()).unwrap_or_else(|_| ws.root().to_path_buf());
            crate::workspace::read_contained(&l.path, &[&root], crate::limits::FILE_BYTES).ok()
        }
    };
    let expected = Expected {
        prompt_path: receipt.prompt_path.as_deref(),
        prompt_bytes: prompt,
        agents_sha: agents_sha.as_deref(),
        cli_version: sources.agent_version.as_deref(),
        model: sources.model.as_deref(),
        output_path: &receipt.output_path,
        output,
        max_total_tokens: opts.max_total_tokens,
        git_sha: &receipt.git_sha,
        workdir: &workdir,
        inputs: &inputs,
        changed_skills: &changed_skills,
        single_turn: opts.single_turn,
        schema: schema.as_deref(),
    };
    agent.read_and_check(opts, &sources.workdir, ws, &expected)
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
