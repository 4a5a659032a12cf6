//! Collects the identity of every input named by the inputs: reads files inside
//! the workspace, asks git, and turns it all into a [`Receipt`] plus the caveats
//! the receipt cannot vouch for.

use std::path::{Path, PathBuf};

use crate::agents;
use crate::digest::{self, LineEndings};
use crate::error::Error;
use crate::git;
use crate::inputs::{DEFAULT_SCHEMA_FILE, Inputs, Mode, PromptSource, SchemaSource};
use crate::receipt::{RECEIPT_VERSION, Receipt};
use crate::workspace::{self, Location, Presence, Workspace};

/// How much a caveat matters; maps to `::notice` and `::warning` in Actions.
#[derive(Copy, Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Level {
    Notice,
    Warning,
}

/// Something the receipt cannot vouch for, or a fact about the bytes worth a look.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Caveat {
    pub level: Level,
    pub message: String,
    pub file: Option<String>,
}

impl Caveat {
    pub fn warning(message: impl Into<String>) -> Caveat {
        Caveat {
            level: Level::Warning,
            message: message.into(),
            file: None,
        }
    }
    pub fn notice(message: impl Into<String>) -> Caveat {
        Caveat {
            level: Level::Notice,
            message: message.into(),
            file: None,
        }
    }
    pub fn on(mut self, file: &str) -> Caveat {
        self.file = Some(file.to_string());
        self
    }

    fn on_opt(self, file: Option<&str>) -> Caveat {
        match file {
            Some(f) => self.on(f),
            None => self,
        }
    }
}

pub struct Collected {
    pub receipt: Receipt,
    pub caveats: Vec<Caveat>,
    /// The prompt's bytes, to compare with what the agent received.
    pub prompt_bytes: Vec<u8>,
}

/// How Codex was set up to read the AGENTS.md chain.
pub fn chain_options(inputs: &Inputs, codex_home: Option<&Path>) -> agents::Options {
    agents::Options {
        fallback_names: inputs.agents_fallback_filenames.clone(),
        max_bytes: inputs.project_doc_max_bytes,
        codex_home: codex_home.map(Path::to_path_buf),
    }
}

/// The facts about a prompt's bytes that change its identity without changing how it looks.
pub struct PromptFacts {
    pub sha: String,
    pub bom: bool,
    pub line_endings: LineEndings,
}

impl PromptFacts {
    pub fn of(bytes: &[u8]) -> PromptFacts {
        PromptFacts {
            sha: digest::sha256_hex(bytes),
            bom: digest::has_bom(bytes),
            line_endings: LineEndings::of(bytes),
        }
    }
}

/// The folder the agent ran in, inside the workspace.
pub fn working_directory(inputs: &Inputs, ws: &Workspace) -> Result<PathBuf, Error> {
    let Some(dir) = &inputs.working_directory else {
        return Ok(ws.root().to_path_buf());
    };
    let loc = ws.resolve("working-directory", dir)?;
    if !loc.path.is_dir() {
        return Err(Error::new(format!(
            "input `working-directory`: `{}` is not a folder; name the folder the agent ran in",
            loc.shown
        )));
    }
    Ok(loc.path)
}

/// Reads a prompt file that must exist and be UTF-8, as the agent step sends it.
pub fn read_prompt(input: &str, loc: &Location) -> Result<Vec<u8>, Error> {
    let bytes = workspace::read_required(input, loc)?;
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
pub fn optional_sha(input: &str, loc: &Location) -> Result<Option<String>, Error> {
    match workspace::presence(input, loc)? {
        Presence::Missing => Ok(None),
        Presence::File => digest::sha256_file(&loc.path).map(Some).map_err(|e| {
            Error::io(
                &format!("input `{input}`: cannot read"),
                &loc.shown,
                &loc.path,
                &e,
            )
        }),
    }
}

/// The path shown and SHA-256 of an optional input naming a file that must
/// exist when given.
fn given_file_sha(
    ws: &Workspace,
    input: &str,
    given: Option<&str>,
) -> Result<Option<(String, String)>, Error> {
    let Some(given) = given else {
        return Ok(None);
    };
    let loc = ws.resolve(input, given)?;
    let sha = required_sha(input, &loc)?;
    Ok(Some((loc.shown, sha)))
}

/// SHA-256 of a file that must exist.
pub fn required_sha(input: &str, loc: &Location) -> Result<String, Error> {
    optional_sha(input, loc)?.ok_or_else(|| workspace::missing(input, loc))
}

pub fn collect(
    inputs: &Inputs,
    ws: &Workspace,
    codex_home: Option<&Path>,
) -> Result<Collected, Error> {
    let mut caveats = Vec::new();
    let workdir = working_directory(inputs, ws)?;
    let git = git::start_identify(&workdir)?;

    let (prompt_path, prompt_bytes) = match inputs.prompt.as_ref() {
        Some(PromptSource::Inline(text)) => (None, text.as_bytes().to_vec()),
        Some(PromptSource::File(given)) => {
            let loc = ws.resolve("prompt-file", given)?;
            let bytes = read_prompt("prompt-file", &loc)?;
            (Some(loc.shown), bytes)
        }
        None => {
            return Err(Error::new(
                "Either `prompt` or `prompt-file` must be specified.",
            ));
        }
    };
    let prompt = PromptFacts::of(&prompt_bytes);
    let prompt_shown = prompt_path
        .clone()
        .unwrap_or_else(|| "input `prompt`".into());
    if prompt.bom {
        caveats.push(
            Caveat::notice(format!(
                "`{prompt_shown}` starts with a UTF-8 byte order mark: prompt_sha covers it, \
                 but Codex strips it before sending"
            ))
            .on_opt(prompt_path.as_deref()),
        );
    }
    if matches!(prompt.line_endings, LineEndings::Crlf | LineEndings::Mixed) {
        caveats.push(
            Caveat::notice(format!(
                "`{prompt_shown}` has {} line endings: the agent receives them as they are, and \
                 prompt_sha differs from an LF copy that looks the same",
                prompt.line_endings.as_str().to_uppercase()
            ))
            .on_opt(prompt_path.as_deref()),
        );
    }

    let template = given_file_sha(
        ws,
        "prompt-template-file",
        inputs.prompt_template_file.as_deref(),
    )?;

    let tools = ws.resolve("tools-file", &inputs.tools_file)?;
    let tools_sha = optional_sha("tools-file", &tools)?;
    if tools_sha.is_none() {
        let message = format!(
            "no tools file at `{}`: tools_sha is null, so the receipt cannot vouch for the agent's tools",
            tools.shown
        );
        caveats.push(if inputs.tools_file_given {
            Caveat::warning(message)
        } else {
            Caveat::notice(message)
        });
    }

    let (schema_path, schema_sha) = match &inputs.schema {
        SchemaSource::Inline(text) => (None, digest::sha256_hex(text.as_bytes())),
        SchemaSource::File(given) => {
            let loc = ws.resolve("output-schema-file", given)?;
            let sha = required_sha("output-schema-file", &loc)?;
            (Some(loc.shown), sha)
        }
        SchemaSource::Default => {
            let loc = ws.resolve("output-schema-file", DEFAULT_SCHEMA_FILE)?;
            match optional_sha("output-schema-file", &loc)? {
                Some(sha) => (Some(loc.shown), sha),
                None => {
                    return Err(Error::new(format!(
                        "Either `output-schema` or `output-schema-file` must be specified. \
                         (There is no schema at the default `{DEFAULT_SCHEMA_FILE}`.)"
                    )));
                }
            }
        }
    };

    let fixture = given_file_sha(ws, "fixture-file", inputs.fixture_file.as_deref())?;

    let output = ws.resolve("output-file", &inputs.output_file)?;
    let output_sha = optional_sha("output-file", &output)?;
    if output_sha.is_none() && inputs.mode == Mode::Run {
        caveats.push(Caveat::warning(format!(
            "no agent output at `{}`: output_sha is null; set output-file to the agent step's output-file",
            output.shown
        )));
    }

    if inputs.codex_version.is_none() {
        caveats.push(Caveat::warning(
            "codex-version was not given: the receipt cannot say which agent CLI ran; pass the \
             agent step's exact codex-version to this step too",
        ));
    }

    let chain = agents::load(&workdir, ws, &chain_options(inputs, codex_home))?;
    for w in &chain.warnings {
        caveats.push(Caveat::warning(format!("AGENTS.md chain: {w}")));
    }
    let chain_sha = chain.sha();

    let checkout = git.checkout()?;
    if checkout.shallow {
        caveats.push(Caveat::warning(format!(
            "the checkout is shallow, so `git describe` cannot see tags (it gave `{}`); set \
             `fetch-depth: 0` on actions/checkout",
            crate::escape::one_line(&checkout.describe)
        )));
    }

    let receipt = Receipt {
        receipt_version: RECEIPT_VERSION,
        prompt_path,
        prompt_sha: prompt.sha,
        prompt_bom: prompt.bom,
        prompt_line_endings: prompt.line_endings,
        prompt_template_path: template.as_ref().map(|t| t.0.clone()),
        prompt_template_sha: template.map(|t| t.1),
        tools_path: tools.shown,
        tools_sha,
        schema_path,
        schema_sha,
        output_path: output.shown,
        fixture_path: fixture.as_ref().map(|f| f.0.clone()),
        fixture_sha: fixture.map(|f| f.1),
        output_sha,
        codex_version: inputs.codex_version.clone(),
        codex_args: inputs.codex_args.clone(),
        model: inputs.model.clone(),
        git_describe: checkout.describe,
        git_sha: checkout.sha,
        git_shallow: checkout.shallow,
        validation: None,
        findings_count: None,
        ok: None,
        findings_by_severity: None,
        agents: Some(chain.files),
        agents_sha: Some(chain_sha),
        prompt_sent_sha: None,
        transcript: None,
        tokens: None,
        session: None,
        verification: None,
    };
    Ok(Collected {
        receipt,
        caveats,
        prompt_bytes,
    })
}
