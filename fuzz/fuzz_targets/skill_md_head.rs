#![no_main]
//! Fuzz target `skill_md_head`: see `soulcheck_fuzzing::Target::SkillMdHead`.

libfuzzer_sys::fuzz_target!(|data: &[u8]| -> libfuzzer_sys::Corpus {
    soulcheck_fuzz::fuzz(soulcheck_fuzzing::Target::SkillMdHead, data)
});
