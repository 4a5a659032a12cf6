#![no_main]
// See prompt_receipt::fuzzing::event_payload for the property checked.
libfuzzer_sys::fuzz_target!(|data: &[u8]| prompt_receipt::fuzzing::event_payload(data));
