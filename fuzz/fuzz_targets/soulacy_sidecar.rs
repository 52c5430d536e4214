#![no_main]
//! Fuzz target `soulacy_sidecar`: see `soulcheck_fuzzing::Target::SoulacySidecar`.

libfuzzer_sys::fuzz_target!(|data: &[u8]| -> libfuzzer_sys::Corpus {
    soulcheck_fuzz::fuzz(soulcheck_fuzzing::Target::SoulacySidecar, data)
});
