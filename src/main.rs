//! The binary: parse, run, map the outcome to an exit code (0 passed, 1 a check
//! failed, 2 bad input or configuration).

use prompt_receipt::context::Context;
use prompt_receipt::error::{EXIT_CHECK_FAILED, EXIT_OK};
use prompt_receipt::inputs::{self, Env, Invocation};

fn main() {
    prompt_receipt::logging::started();
    let env: Env = std::env::vars_os()
        .filter_map(|(k, v)| Some((k.into_string().ok()?, v.into_string().ok()?)))
        .collect();
    let in_actions = env.get("GITHUB_ACTIONS").is_some_and(|v| v == "true");
    let code = match inputs::parse(std::env::args_os().collect(), &env) {
        Ok(Invocation::Print(text)) => {
            // `print!` would panic when the reader has gone (`--help | head -1`).
            use std::io::Write;
            let _ = std::io::stdout().lock().write_all(text.as_bytes());
            EXIT_OK
        }
        Ok(Invocation::Run(inputs)) => {
            let ctx = Context::from_env(&env, inputs.workspace.clone());
            prompt_receipt::logging::init(ctx.debug);
            match prompt_receipt::run(&inputs, &ctx) {
                // Exit with the result alive: the OS reclaims it at once, while
                // freeing 10,000 findings one by one costs milliseconds.
                Ok(result) => {
                    let code = if result.passed() {
                        EXIT_OK
                    } else {
                        EXIT_CHECK_FAILED
                    };
                    std::process::exit(code)
                }
                Err(e) => {
                    prompt_receipt::report_error(&e, in_actions);
                    e.exit_code()
                }
            }
        }
        Err(e) => {
            prompt_receipt::report_error(&e, in_actions);
            prompt_receipt::report_refusal(&env, &e);
            e.exit_code()
        }
    };
    std::process::exit(code);
}
