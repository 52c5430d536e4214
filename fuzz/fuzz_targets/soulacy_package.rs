#![no_main]
//! Fuzz target `soulacy_package`: see `soulcheck_fuzzing::Target::SoulacyPackage`.

libfuzzer_sys::fuzz_target!(|data: &[u8]| -> libfuzzer_sys::Corpus {
    soulcheck_fuzz::fuzz(soulcheck_fuzzing::Target::SoulacyPackage, data)
});
