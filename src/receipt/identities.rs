//! Collects the identity of every input the step names: reads files inside the
//! workspace, asks git, and turns it all into a [`Receipt`] plus the caveats the
//! receipt cannot vouch for.

use crate::agent::Setup;
use crate::agent::chain::Chain;
use crate::digest::{self, LineEndings};
use crate::error::Error;
use crate::git;
use crate::level::Caveat;
use crate::receipt::{RECEIPT_VERSION, Receipt};
use crate::sources::{Prompt, SchemaInput, Sources};
use crate::workspace::{self, Location, Presence, Workspace};

pub(crate) struct Collected {
    pub(crate) receipt: Receipt,
    pub(crate) caveats: Vec<Caveat>,
    /// The prompt's bytes, to compare with what the agent received.
    pub(crate) prompt_bytes: Vec<u8>,
}

/// The facts about a prompt's bytes that change its identity without changing how it looks.
pub(crate) struct PromptFacts {
    pub(crate) sha: String,
    pub(crate) bom: bool,
    pub(crate) line_endings: LineEndings,
}

impl PromptFacts {
    pub(crate) fn of(bytes: &[u8]) -> PromptFacts {
        PromptFacts {
            sha: digest::sha256_hex(bytes),
            bom: digest::has_bom(bytes),
            line_endings: LineEndings::of(bytes),
        }
    }
}

/// Reads a prompt file that must exist and be UTF-8, as the agent step sends it.
pub(crate) fn read_prompt(input: &str, loc: &Location) -> Result<Vec<u8>, Error> {
    let bytes = workspace::read_required(input, loc, crate::limits::FILE_BYTES)?;
    if let Err(e) = std::str::from_utf8(&bytes) {
        return Err(Error::in_file(
            &loc.shown,
            format!(
                "input `{input}`: `{}` is not valid UTF-8 (byte {}): codex-action sends the prompt as \
                 UTF-8 text, so the agent would not receive these bytes; save the file as UTF-8",
                loc.shown,
                e.valid_up_to()
            ),
        ));
    }
    Ok(bytes)
}

/// SHA-256 of an optional file: `None` when it does not exist.
pub(crate) fn optional_sha(input: &str, loc: &Location) -> Result<Option<String>, Error> {
    match workspace::presence(input, loc)? {
        Presence::Missing => Ok(None),
        Presence::File => match digest::sha256_file(&loc.path, crate::limits::HASHED_BYTES) {
            Ok(Some(sha)) => Ok(Some(sha)),
            Ok(None) => Err(workspace::too_large(
                input,
                loc,
                crate::limits::HASHED_BYTES,
            )),
            Err(e) => Err(Error::io(
                &format!("input `{input}`: cannot read"),
                &loc.shown,
                &loc.path,
                &e,
            )),
        },
    }
}

/// The path shown and SHA-256 of an optional input naming a file that must
/// exist when given (a template, a fixture).
fn given_sha(input: &str, loc: Option<&Location>) -> Result<Option<(String, String)>, Error> {
    loc.map(|loc| Ok((loc.shown.clone(), required_sha(input, loc)?)))
        .transpose()
}

/// SHA-256 of a file that must exist.
pub(crate) fn required_sha(input: &str, loc: &Location) -> Result<String, Error> {
    optional_sha(input, loc)?.ok_or_else(|| workspace::missing(input, loc))
}

/// Hashes every source, asks git, and reads the AGENTS.md chain (git runs
/// while the files are hashed).
pub(crate) fn collect(
    sources: &Sources,
    agent: &Setup,
    ws: &Workspace,
    record_output_missing: bool,
) -> Result<Collected, Error> {
    collect_beside(sources, agent, ws, record_output_missing, || ())
}

/// [`collect`], with `beside` done first while git runs (`run` compiles the
/// schema there: a few milliseconds that would otherwise wait for git).
pub(crate) fn collect_beside(
    sources: &Sources,
    agent: &Setup,
    ws: &Workspace,
    record_output_missing: bool,
    beside: impl FnOnce(),
) -> Result<Collected, Error> {
    let mut caveats = Vec::new();
    // git first, unless it is under way already: then `beside` first, while
    // the query that started it checks the git folder.
    let git = if git::prepared(&sources.workdir) {
        beside();
        git::start_identify(&sources.workdir)?
    } else {
        let git = git::start_identify(&sources.workdir)?;
        beside();
        git
    };
    let mut files = hash_files(sources, record_output_missing, &mut caveats)?;

    // An agent whose check names its version does not need it said here.
    if let Some(why) = agent.without_version() {
        caveats.push(Caveat::warning(why));
    }
    let chain = agent.chain(&sources.workdir, ws)?;
    caveats.extend(
        chain
            .warnings
            .iter()
            .map(|w| Caveat::warning(format!("{} chain: {w}", agent.kind.chain_name()))),
    );

    let checkout = git.checkout()?;
    if checkout.shallow {
        caveats.push(Caveat::warning(format!(
            "the checkout is shallow, so `git describe` cannot see tags (it gave `{}`); set \
             `fetch-depth: 0` on actions/checkout",
            crate::escape::one_line(&checkout.describe)
        )));
    }

    let prompt_bytes = std::mem::take(&mut files.prompt_bytes);
    Ok(Collected {
        receipt: receipt_of(files, sources, agent.kind, chain, checkout),
        caveats,
        prompt_bytes,
    })
}

/// The identities of the files the step names, before the chain and git.
struct Files {
    prompt_path: Option<String>,
    prompt_bytes: Vec<u8>,
    prompt: PromptFacts,
    /// The path shown and the SHA-256 of each.
    template: Option<(String, String)>,
    fixture: Option<(String, String)>,
    tools_sha: Option<String>,
    schema_path: Option<String>,
    schema_sha: String,
    output_sha: Option<String>,
}

/// Hashes the prompt, the template, the tools, the schema, the fixture and
/// the output, with a caveat for each the receipt cannot vouch for.
fn hash_files(
    sources: &Sources,
    record_output_missing: bool,
    caveats: &mut Vec<Caveat>,
) -> Result<Files, Error> {
    let (prompt_path, prompt_bytes) = prompt_bytes(sources.prompt.as_ref())?;
    let prompt = PromptFacts::of(&prompt_bytes);
    caveats.extend(prompt_caveats(&prompt, prompt_path.as_deref()));

    let template = given_sha("prompt-template-file", sources.template.as_ref())?;

    let tools_sha = optional_sha("tools-file", &sources.tools)?;
    if tools_sha.is_none() {
        caveats.push(no_tools(sources));
    }
    let (schema_path, schema_sha) = schema_identity(&sources.schema)?;

    let fixture = given_sha("fixture-file", sources.fixture.as_ref())?;

    let output_sha = optional_sha("output-file", &sources.output)?;
    if output_sha.is_none() && record_output_missing {
        caveats.push(Caveat::warning(format!(
            "no agent output at `{}`: output_sha is null; set output-file to the agent step's output-file",
            sources.output.shown
        )));
    }
    Ok(Files {
        prompt_path,
        prompt_bytes,
        prompt,
        template,
        fixture,
        tools_sha,
        schema_path,
        schema_sha,
        output_sha,
    })
}

/// The receipt as recording starts it: the identities, and nothing yet of
/// the review, the session or the verification.
fn receipt_of(
    files: Files,
    sources: &Sources,
    kind: crate::agent::AgentKind,
    chain: Chain,
    checkout: git::Checkout,
) -> Receipt {
    let chain_sha = chain.sha();
    let Files {
        prompt_path,
        prompt,
        template,
        fixture,
        tools_sha,
        schema_path,
        schema_sha,
        output_sha,
        ..
    } = files;
    Receipt {
        receipt_version: RECEIPT_VERSION,
        prompt_path,
        prompt_sha: prompt.sha,
        prompt_bom: prompt.bom,
        prompt_line_endings: prompt.line_endings,
        prompt_template_path: template.as_ref().map(|t| t.0.clone()),
        prompt_template_sha: template.map(|t| t.1),
        tools_path: sources.tools.shown.clone(),
        tools_sha,
        schema_path,
        schema_sha,
        output_path: sources.output.shown.clone(),
        fixture_path: fixture.as_ref().map(|f| f.0.clone()),
        fixture_sha: fixture.map(|f| f.1),
        output_sha,
        codex_version: sources.agent_version.clone(),
        codex_args: sources.agent_args.clone(),
        model: sources.model.clone(),
        git_describe: checkout.describe,
        git_sha: checkout.sha,
        git_shallow: checkout.shallow,
        validation: None,
        findings_count: None,
        ok: None,
        findings_by_severity: None,
        agent: Some(kind),
        agents: Some(chain.files),
        agents_sha: Some(chain_sha),
        prompt_sent_sha: None,
        transcript: None,
        tokens: None,
        session: None,
        context_sha: None,
        base_instructions_sha: None,
        developer_sha: None,
        environment_sha: None,
        turns: None,
        models: None,
        hooks: None,
        runtime: None,
        skills: None,
        base: None,
        gate_schema: None,
        safety_strategy: sources.safety_strategy.clone(),
        verification: None,
    }
}

/// The prompt's path (none when inline) and its bytes.
fn prompt_bytes(prompt: Option<&Prompt>) -> Result<(Option<String>, Vec<u8>), Error> {
    match prompt {
        Some(Prompt::Inline(text)) => Ok((None, text.as_bytes().to_vec())),
        Some(Prompt::File(loc)) => Ok((Some(loc.shown.clone()), read_prompt("prompt-file", loc)?)),
        None => Err(Error::new(
            "Either `prompt` or `prompt-file` must be specified.",
        )),
    }
}

/// A tools file that is not there: a warning when it was named, else a notice.
fn no_tools(sources: &Sources) -> Caveat {
    let message = format!(
        "no tools file at `{}`: tools_sha is null, so the receipt cannot vouch for the agent's tools",
        sources.tools.shown
    );
    if sources.tools_given {
        Caveat::warning(message)
    } else {
        Caveat::notice(message)
    }
}

/// The schema's path (none when inline) and SHA-256.
fn schema_identity(schema: &SchemaInput) -> Result<(Option<String>, String), Error> {
    Ok(match schema {
        SchemaInput::Inline(text) => (None, digest::sha256_hex(text.as_bytes())),
        SchemaInput::File(loc) => (
            Some(loc.shown.clone()),
            required_sha("output-schema-file", loc)?,
        ),
        SchemaInput::Default(loc) => match optional_sha("output-schema-file", loc)? {
            Some(sha) => (Some(loc.shown.clone()), sha),
            None => {
                return Err(Error::new(format!(
                    "Either `output-schema` or `output-schema-file` must be specified. \
                     (There is no schema at the default `{}`.)",
                    loc.shown
                )));
            }
        },
    })
}

/// What a prompt's bytes hide from a reader: a byte order mark, CRLF endings.
fn prompt_caveats(prompt: &PromptFacts, path: Option<&str>) -> Vec<Caveat> {
    let shown = path.map_or("input `prompt`".to_string(), str::to_string);
    let mut caveats = Vec::new();
    if prompt.bom {
        caveats.push(
            Caveat::notice(format!(
                "`{shown}` starts with a UTF-8 byte order mark: prompt_sha covers it, \
                 but Codex strips it before sending"
            ))
            .on_opt(path),
        );
    }
    if matches!(prompt.line_endings, LineEndings::Crlf | LineEndings::Mixed) {
        caveats.push(
            Caveat::notice(format!(
                "`{shown}` has {} line endings: the agent receives them as they are, and \
                 prompt_sha differs from an LF copy that looks the same",
                prompt.line_endings.as_str().to_uppercase()
            ))
            .on_opt(path),
        );
    }
    caveats
}
