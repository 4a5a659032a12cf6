#![no_main]
// See prompt_receipt::fuzzing::rollout for the property checked.
libfuzzer_sys::fuzz_target!(|data: &[u8]| prompt_receipt::fuzzing::rollout(data));
