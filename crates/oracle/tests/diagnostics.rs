//! The stricter oracle over the whole corpus: the reference gives every case its recorded
//! choice and exactly its diagnostics, in both profiles. The corpus-power measurement runs
//! it on the mutants the verdict oracle lets through, to tell a mutant that changes only
//! what a report shows from one no test can see.

mod common;

#[test]
fn the_reference_gives_every_case_its_exact_diagnostics() {
    common::holds(soulcheck_oracle::verdicts::Oracle::Diagnostics);
}
