//! The corpus as libtest-mimic trials, for Rust implementers: implement [`Validator`] for
//! your crate, call [`trials`] from a `harness = false` test target, and every case
//! becomes a `cargo test` trial named `<format>/<case-id>`, judged with conformance
//! strictness. `harness/examples/implementer.rs` shows the whole thing.

use std::sync::Arc;

use libtest_mimic::{Failed, Trial};

use crate::catalogue::Catalogue;
use crate::corpus::Corpus;
use crate::expectations::Expectations;
use crate::runner::{run_case, Judgement, Strictness};
use crate::validator::Validator;

/// One trial per case. A case the validator skips is reported as ignored; a known failure
/// listed in `expectations` passes (and fails once it starts passing).
pub fn trials(
    validator: Arc<dyn Validator>,
    corpus: Arc<Corpus>,
    catalogue: Arc<Catalogue>,
    expectations: Option<Arc<Expectations>>,
) -> Vec<Trial> {
    (0..corpus.cases.len())
        .map(|index| {
            let case = &corpus.cases[index];
            let name = case.name();
            let kind = case.format.name().to_owned();
            let (validator, corpus, catalogue, expectations) = (
                Arc::clone(&validator),
                Arc::clone(&corpus),
                Arc::clone(&catalogue),
                expectations.clone(),
            );
            Trial::test(name.clone(), move || -> Result<(), Failed> {
                let case = &corpus.cases[index];
                let run = run_case(
                    validator.as_ref(),
                    case,
                    &catalogue,
                    Strictness::Conformance,
                );
                let mut result = crate::runner::CaseResult {
                    name,
                    index,
                    judgement: run.judgement,
                    duration: run.duration,
                    actual: run.actual,
                };
                if let Some(expectations) = &expectations {
                    expectations.apply(std::slice::from_mut(&mut result));
                }
                match &result.judgement {
                    Judgement::Pass
                    | Judgement::ExpectedFailure { .. }
                    | Judgement::Skipped { .. } => Ok(()),
                    other => Err(format!("{}\n{}", case.description, other.explain()).into()),
                }
            })
            .with_kind(kind)
        })
        .collect()
}
