#![no_main]
//! Fuzz target `soul_md_structured`: see `soulcheck_fuzzing::Target::SoulMdStructured`.

libfuzzer_sys::fuzz_target!(|data: &[u8]| -> libfuzzer_sys::Corpus {
    soulcheck_fuzz::fuzz(soulcheck_fuzzing::Target::SoulMdStructured, data)
});
