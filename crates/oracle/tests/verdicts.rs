//! The verdict oracle over the whole corpus (`soulcheck_oracle::verdicts`): the reference
//! passes every case in both profiles as a certification judges it, and gives the warnings
//! each case expects. This is the test cargo-mutants runs on every mutant of the reference
//! (`.cargo/mutants.toml`), so it builds nothing of the command line and reads the corpus
//! from `cases/`.

mod common;

#[test]
fn the_reference_passes_every_case_as_a_certification_judges_it() {
    common::holds(soulcheck_oracle::verdicts::Oracle::Verdicts);
}
