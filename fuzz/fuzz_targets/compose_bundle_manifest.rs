#![no_main]
//! Fuzz target `compose_bundle_manifest`: see `soulcheck_fuzzing::Target::ComposeBundleManifest`.

libfuzzer_sys::fuzz_target!(|data: &[u8]| -> libfuzzer_sys::Corpus {
    soulcheck_fuzz::fuzz(soulcheck_fuzzing::Target::ComposeBundleManifest, data)
});
