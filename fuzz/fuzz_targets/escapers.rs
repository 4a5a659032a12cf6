#![no_main]
// See prompt_receipt::fuzzing::escapers for the property checked.
libfuzzer_sys::fuzz_target!(|data: &[u8]| prompt_receipt::fuzzing::escapers(data));
