//! The committed generated files are what the generators produce: regenerating the case
//! families, the README formats table and the corpus-power page in memory gives the same
//! bytes as the checkout.

#[test]
fn generated_files_match_the_checkout() {
    let root = xtask::repository_root();
    let generation = xtask::generate(&root).unwrap_or_else(|error| panic!("{error}"));
    let problems = generation
        .problems(&root)
        .unwrap_or_else(|error| panic!("{error}"));
    let listing: Vec<String> = problems.iter().map(ToString::to_string).collect();
    assert!(
        problems.is_empty(),
        "{} generated files differ from the families in xtask/families or the catalogue; \
         run `cargo xtask generate` and review the diff:\n{}",
        problems.len(),
        listing.join("\n")
    );
}

/// The corpus-power page and JSON are what the record and the classification render to.
#[test]
fn the_corpus_power_record_is_rendered() {
    let root = xtask::repository_root();
    let stale = xtask::corpus_power::stale(&root).unwrap_or_else(|error| panic!("{error}"));
    assert!(
        stale.is_empty(),
        "stale: {stale:?}; run `cargo xtask corpus-power render` and review the diff"
    );
}
