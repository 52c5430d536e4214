//! The embedded corpus is the checkout's corpus: the harness loads it, and the content
//! hash computed at build time is the one the harness computes from the files, both
//! embedded and on disk.

use std::path::Path;

use soulcheck_harness::Corpus;

#[test]
fn the_build_time_hash_is_the_harness_hash() {
    let embedded = Corpus::embedded(&soulcheck_corpus::CASES).expect("the embedded corpus loads");
    let on_disk = Corpus::load(&Path::new(env!("CARGO_MANIFEST_DIR")).join("../../cases"))
        .expect("the checkout's corpus loads");
    assert_eq!(embedded.cases.len(), on_disk.cases.len());
    assert!(!embedded.cases.is_empty());
    let hash = embedded.content_hash().expect("hash");
    assert_eq!(hash, soulcheck_corpus::CONTENT_HASH);
    assert_eq!(on_disk.content_hash().expect("hash"), hash);
}
