#![no_main]
// See properties::usage_merge for the property checked.
#[path = "../properties.rs"]
mod properties;
libfuzzer_sys::fuzz_target!(|data: &[u8]| properties::usage_merge(data));
