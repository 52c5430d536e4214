//! What both oracle tests share: the corpus from `cases/`, the check, and a failure
//! message listing the first cases missed.

use std::path::Path;
use std::time::Instant;

use soulcheck_harness::{Catalogue, Corpus};
use soulcheck_oracle::verdicts::{check_with, Oracle};

/// Holds the reference to the corpus under `oracle`; panics with the cases it misses.
pub fn holds(oracle: Oracle) {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../cases");
    let corpus = Corpus::load(&root).expect("the corpus loads");
    let catalogue = Catalogue::load(&root).expect("the catalogue loads");
    assert!(
        corpus.cases.len() > 1000,
        "a corpus of {} cases",
        corpus.cases.len()
    );
    // The trees of tree cases are kept between runs under the corpus's hash: the
    // oracle runs once per mutant (scripts/corpus-power.sh), and building them is most of
    // its time. A changed corpus has another hash, and the old trees are removed.
    let hash = corpus.content_hash().expect("the corpus hashes");
    let trees = Path::new(env!("CARGO_TARGET_TMPDIR")).join("oracle-trees");
    if let Ok(entries) = std::fs::read_dir(&trees) {
        for entry in entries.flatten() {
            if entry.file_name() != hash.as_str() {
                let _ = std::fs::remove_dir_all(entry.path());
            }
        }
    }
    let started = Instant::now();
    let misses = check_with(&corpus, &catalogue, oracle, Some(&trees.join(&hash)));
    eprintln!(
        "{oracle:?} oracle: {} cases in both profiles in {:?}",
        corpus.cases.len(),
        started.elapsed()
    );
    let listed: Vec<String> = misses.iter().take(40).map(ToString::to_string).collect();
    assert!(
        misses.is_empty(),
        "{} cases missed:\n{}",
        misses.len(),
        listed.join("\n")
    );
}
