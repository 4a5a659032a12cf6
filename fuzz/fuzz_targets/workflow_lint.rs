#![no_main]
// See properties::workflow_lint for the property checked.
#[path = "../properties.rs"]
mod properties;
libfuzzer_sys::fuzz_target!(|data: &[u8]| properties::workflow_lint(data));
