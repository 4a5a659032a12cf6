#![no_main]
// See properties::event_payload for the property checked.
#[path = "../properties.rs"]
mod properties;
libfuzzer_sys::fuzz_target!(|data: &[u8]| properties::event_payload(data));
