#![no_main]
//! Fuzz target `skill_package_structured`: see `soulcheck_fuzzing::Target::SkillPackageStructured`.

libfuzzer_sys::fuzz_target!(|data: &[u8]| -> libfuzzer_sys::Corpus {
    soulcheck_fuzz::fuzz(soulcheck_fuzzing::Target::SkillPackageStructured, data)
});
