#![no_main]
//! Fuzz target `soul_md`: see `soulcheck_fuzzing::Target::SoulMd`.

libfuzzer_sys::fuzz_target!(|data: &[u8]| -> libfuzzer_sys::Corpus {
    soulcheck_fuzz::fuzz(soulcheck_fuzzing::Target::SoulMd, data)
});
