#![no_main]
//! Fuzz target `json_reader`: see `soulcheck_fuzzing::Target::JsonReader`.

libfuzzer_sys::fuzz_target!(|data: &[u8]| -> libfuzzer_sys::Corpus {
    soulcheck_fuzz::fuzz(soulcheck_fuzzing::Target::JsonReader, data)
});
