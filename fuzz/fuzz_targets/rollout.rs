#![no_main]
// See properties::rollout for the property checked.
#[path = "../properties.rs"]
mod properties;
libfuzzer_sys::fuzz_target!(|data: &[u8]| properties::rollout(data));
