#![no_main]
//! Fuzz target `soulacy_sidecar_structured`: see `soulcheck_fuzzing::Target::SoulacySidecarStructured`.

libfuzzer_sys::fuzz_target!(|data: &[u8]| -> libfuzzer_sys::Corpus {
    soulcheck_fuzz::fuzz(soulcheck_fuzzing::Target::SoulacySidecarStructured, data)
});
