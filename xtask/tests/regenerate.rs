//! The committed generated files are what the generators produce: regenerating the case
//! families and the README formats table in memory gives the same bytes as the checkout.

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
