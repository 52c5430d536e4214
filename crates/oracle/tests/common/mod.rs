//! What both oracle tests share: the corpus from `cases/`, the check, and a failure
//! message listing the first cases missed.

use std::path::Path;
use std::time::Instant;

use soulcheck_harness::{Catalogue, Corpus};
use soulcheck_oracle::verdicts::{check, Oracle};

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
    let started = Instant::now();
    let misses = check(&corpus, &catalogue, oracle);
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
