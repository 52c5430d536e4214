#![no_main]
//! Fuzz target `compose_bundle_tree`: see `soulcheck_fuzzing::Target::ComposeBundleTree`.

libfuzzer_sys::fuzz_target!(|data: &[u8]| -> libfuzzer_sys::Corpus {
    soulcheck_fuzz::fuzz(soulcheck_fuzzing::Target::ComposeBundleTree, data)
});
