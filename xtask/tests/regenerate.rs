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

/// Every record of the corpus-power page was measured on the code as it is: a file of the
/// reference changed since its mutants were measured (or never measured) fails here, so
/// the page's figures never describe code that is gone.
#[test]
fn the_corpus_power_record_is_measured_on_the_current_code() {
    let root = xtask::repository_root();
    let outdated = xtask::corpus_power::outdated(&root).unwrap_or_else(|error| panic!("{error}"));
    let listing: Vec<String> = outdated.iter().map(ToString::to_string).collect();
    assert!(
        outdated.is_empty(),
        "{} files of the reference were measured on other code:\n{}\n\
         measure each again whole: scripts/corpus-power.sh --file FILE",
        outdated.len(),
        listing.join("\n")
    );
}
