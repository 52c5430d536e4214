#![no_main]
//! Fuzz target `soul_kit`: see `soulcheck_fuzzing::Target::SoulKit`.

libfuzzer_sys::fuzz_target!(|data: &[u8]| -> libfuzzer_sys::Corpus {
    soulcheck_fuzz::fuzz(soulcheck_fuzzing::Target::SoulKit, data)
});
