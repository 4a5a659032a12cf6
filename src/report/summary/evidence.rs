//! The evidence under the findings: the inputs with short hashes, the
//! checkout and the agent's settings, what reached the agent, the
//! verification, every hash in full, and the notes. Collapsed when the
//! receipt holds up, open when it does not.

use serde_json::Value;

use super::{MAX_PATH_CHARS, draft, holds_up};
use crate::inputs::Mode;
use crate::level::Level;
use crate::markdown::{code, fenced, prose, short_hash, shorten_middle, text, visible};
use crate::outcome::Outcome;
use crate::report::verdict::distinct;

/// The inputs, the run, what reached the agent and the verification:
/// collapsed when it holds up, open when it does not.
pub(super) fn evidence(md: &mut String, result: &Outcome) {
    let open = !holds_up(result) || matches!(result.mode, Mode::Record | Mode::Verify);
    md.push_str("### Evidence\n\n");
    md.push_str(&format!(
        "<details{}><summary>Inputs, checkout, what reached the agent, verification</summary>\n\n",
        if open { " open" } else { "" }
    ));
    inputs_table(md, result);
    run_table(md, result);
    if let Some(agent) = &result.agent {
        agent_table(md, agent, result);
    }
    if let Some(v) = &result.verification {
        if v.passed() {
            md.push_str(&format!(
                "**Verification**: {} recorded identities recomputed from the files and equal.\n\n",
                distinct(&v.checked)
            ));
        }
        for (field, why) in &v.skipped {
            md.push_str(&format!("- Not verified: {}: {}\n", code(field), text(why)));
        }
        if !v.skipped.is_empty() {
            md.push('\n');
        }
    }
    if let Some(review) = result.review.as_ref().filter(|r| r.valid()) {
        md.push_str(&format!(
            "**Agent output**: {} satisfies the output schema{}.\n\n",
            code(&review.path),
            draft(review)
        ));
    }
    full_values(md, result);
    let notes: Vec<_> = result
        .caveats
        .iter()
        .filter(|c| c.level == Level::Notice)
        .collect();
    if !notes.is_empty() {
        md.push_str("**Notes**\n\n");
        for c in notes {
            md.push_str(&format!("- {}\n", prose(&c.message)));
        }
        md.push('\n');
    }
    md.push_str("</details>\n\n");
}

fn inputs_table(md: &mut String, result: &Outcome) {
    md.push_str("| Input | File | SHA-256 |\n| --- | --- | --- |\n");
    let rows = [
        ("Prompt", "prompt_path", "prompt_sha", "inline `prompt`"),
        (
            "Prompt template",
            "prompt_template_path",
            "prompt_template_sha",
            "",
        ),
        ("Tools", "tools_path", "tools_sha", ""),
        (
            "Output schema",
            "schema_path",
            "schema_sha",
            "inline `output-schema`",
        ),
        ("Fixture", "fixture_path", "fixture_sha", ""),
        ("Agent output", "output_path", "output_sha", ""),
    ];
    for (label, path_key, sha_key, inline) in rows {
        let (path, sha) = (result.receipt.get(path_key), result.receipt.get(sha_key));
        if path.is_none() && sha.is_none() {
            continue;
        }
        let path = match path {
            Some(Value::String(p)) => code(&shorten_middle(p, MAX_PATH_CHARS)),
            _ if !inline.is_empty() && sha.is_some_and(|s| !s.is_null()) => prose(inline),
            _ => "—".to_string(),
        };
        let sha = match sha {
            Some(Value::String(s)) => code(&short_hash(s)),
            _ if label == "Prompt template" || label == "Fixture" => continue,
            _ => "*missing*".to_string(),
        };
        md.push_str(&format!("| {label} | {path} | {sha} |\n"));
    }
    if let Some(Value::Array(files)) = result.receipt.get("agents") {
        let used: Vec<&str> = files.iter().filter_map(|f| f["path"].as_str()).collect();
        let paths = match used.as_slice() {
            [] => "—".to_string(),
            [one] => code(&shorten_middle(one, MAX_PATH_CHARS)),
            [first, rest @ ..] => format!(
                "{} and {} more",
                code(&shorten_middle(first, MAX_PATH_CHARS)),
                rest.len()
            ),
        };
        let sha = match result.receipt.get("agents_sha") {
            Some(Value::String(s)) => code(&short_hash(s)),
            _ => "*empty*".to_string(),
        };
        md.push_str(&format!(
            "| {} chain | {paths} | {sha} |\n",
            result.agent_kind().chain_name()
        ));
    }
    md.push('\n');
}

fn run_table(md: &mut String, result: &Outcome) {
    let given = |key: &str| match result.receipt.get(key) {
        Some(Value::String(s)) => code(&shorten_middle(&short_hash(s), 60)),
        _ => "*not given*".to_string(),
    };
    md.push_str("| Run | |\n| --- | --- |\n");
    let commit = result.field("git_sha");
    md.push_str(&format!(
        "| Checkout | {} at {}{} |\n",
        given("git_describe"),
        code(&commit.chars().take(12).collect::<String>()),
        if result.receipt.get("git_shallow") == Some(&Value::Bool(true)) {
            " (shallow)"
        } else {
            ""
        }
    ));
    // The receipt keeps the first agent's field names for every agent.
    let name = crate::agent::AgentKind::of_receipt(&result.receipt).name();
    md.push_str(&format!(
        "| {name} version | {} |\n",
        given("codex_version")
    ));
    md.push_str(&format!("| Model | {} |\n", given("model")));
    md.push_str(&format!("| {name} args | {} |\n", given("codex_args")));
    match result.layout {
        Some(crate::event::Layout::Advisory) => md.push_str(
            "| Layout | advisory: the pull request's own copy of the workflow file ran this step |\n",
        ),
        Some(crate::event::Layout::Binding(why)) => {
            md.push_str(&format!("| Layout | binding: {} |\n", prose(why)));
        }
        None => {}
    }
    md.push_str(&format!("| Receipt | {} |\n\n", code(&result.usage_file)));
}

fn agent_table(md: &mut String, agent: &crate::agent::AgentCheck, result: &Outcome) {
    use crate::agent::check::FactValue;
    let Some(t) = &agent.transcript else {
        return;
    };
    let or_none = |v: &Option<String>| {
        v.as_deref()
            .map_or("*not recorded*".to_string(), |v| code(&short_hash(v)))
    };
    md.push_str("| What reached the agent | |\n| --- | --- |\n");
    md.push_str(&format!(
        "| Session record | {} |\n",
        code(&shorten_middle(&t.path, MAX_PATH_CHARS))
    ));
    // The rows only this agent has: its CLI, its settings, the record's kind.
    for f in &agent.facts {
        let value = match &f.value {
            FactValue::Code(v) => code(&shorten_middle(v, 60)),
            FactValue::Text(v) => prose(v),
            FactValue::Missing => "*not recorded*".to_string(),
        };
        md.push_str(&format!("| {} | {value} |\n", text(&f.label)));
    }
    md.push_str(&format!(
        "| Prompt as sent | {} |\n",
        or_none(&agent.prompt_sent_sha)
    ));
    let agents = result.field("agents_sha");
    md.push_str(&format!(
        "| {} body | {} |\n",
        agent.kind.chain_name(),
        if agents.is_empty() {
            "*none*".to_string()
        } else {
            code(&short_hash(&agents))
        }
    ));
    if let Some(c) = &agent.context {
        md.push_str(&format!(
            "| Context before the prompt | {} |\n",
            code(&short_hash(&c.sha))
        ));
    }
    let s = agent.settings.clone().unwrap_or_default();
    md.push_str(&format!("| Model | {} |\n", or_none(&s.model)));
    if let Some(tk) = &agent.tokens {
        md.push_str(&format!(
            "| Tokens | {} total: {} input ({} cached), {} output ({} reasoning) |\n",
            tk.total, tk.input, tk.cached_input, tk.output, tk.reasoning
        ));
    }
    if let Some(ms) = s.duration_ms {
        md.push_str(&format!("| Duration | {:.1} s |\n", ms as f64 / 1000.0));
    }
    md.push('\n');
    timeline(md, agent);
    if agent.problems.is_empty() {
        // What the record could not show is not said to agree.
        let mut agree = vec![format!("the {} chain", agent.kind.chain_name())];
        for what in ["the CLI version", "the model"] {
            if !agent.unverified.iter().any(|(w, _)| w == what) {
                agree.push(what.to_string());
            }
        }
        md.push_str(&format!(
            "The prompt, {} and the review agree with the checkout.\n\n",
            agree.join(", ")
        ));
    }
    for n in agent.notes.iter().chain(&agent.new_skills) {
        md.push_str(&format!("- {}\n", prose(n)));
    }
    if !agent.notes.is_empty() || !agent.new_skills.is_empty() {
        md.push('\n');
    }
}

/// The turns, when there is more than one or anything was added to one:
/// each turn's model and hashes, and each item with its kind, its place and
/// its hash (hooks by their event when the record names it).
fn timeline(md: &mut String, agent: &crate::agent::AgentCheck) {
    use crate::agent::turns::{ItemKind, hook_name};
    let turns = &agent.turns;
    if turns.len() <= 1 && turns.iter().all(|t| t.items.is_empty()) {
        return;
    }
    let hash = |h: &Option<String>| {
        h.as_deref()
            .map_or("—".to_string(), |h| code(&short_hash(h)))
    };
    md.push_str("| Turn | Model | Prompt | Context | Added to the model's input |\n| --- | --- | --- | --- | --- |\n");
    for (i, t) in turns.iter().enumerate() {
        let items: Vec<String> = t
            .items
            .iter()
            .map(|item| {
                let what = match &item.kind {
                    ItemKind::Hook {
                        event,
                        before_prompt,
                    } => format!(
                        "{} {} the prompt",
                        hook_name(event.as_deref()),
                        if *before_prompt { "before" } else { "after" }
                    ),
                    ItemKind::CompactionSummary => "compaction summary written by the model".into(),
                    ItemKind::User => "user message".into(),
                    ItemKind::Developer => "developer message".into(),
                    ItemKind::System => "system message".into(),
                };
                format!(
                    "{} {} ({} bytes)",
                    text(&what),
                    item.sha256
                        .as_deref()
                        .map_or("*cut from the record*".to_string(), |h| code(&short_hash(
                            h
                        ))),
                    item.bytes
                )
            })
            .collect();
        let model = t
            .model
            .as_deref()
            .map_or("*not recorded*".to_string(), |m| {
                code(&shorten_middle(m, 60))
            });
        md.push_str(&format!(
            "| {}{} | {model} | {} | {} | {} |\n",
            i + 1,
            if Some(i) == agent.output_turn {
                " (the output)"
            } else {
                ""
            },
            hash(&t.prompt_sha),
            hash(&t.context_sha),
            if items.is_empty() {
                "—".to_string()
            } else {
                items.join("<br>")
            }
        ));
    }
    md.push('\n');
}

/// Every hash and identity of the receipt in full, to copy or compare.
fn full_values(md: &mut String, result: &Outcome) {
    let rows: Vec<(&String, String)> = result
        .receipt
        .iter()
        .filter(|(k, _)| k.ends_with("_sha") || *k == "git_describe")
        .filter_map(|(k, v)| v.as_str().map(|s| (k, visible(s))))
        .collect();
    if rows.is_empty() {
        return;
    }
    let width = rows.iter().map(|(k, _)| k.len()).max().unwrap_or(0);
    let body: String = rows
        .iter()
        .map(|(k, v)| format!("{k:width$}  {v}\n"))
        .collect();
    md.push_str("Full values:\n\n");
    md.push_str(&fenced("text", body.trim_end()));
    md.push('\n');
}
