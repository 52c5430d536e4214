//! What every fuzz binary shares: the counting allocator (so the allocation invariant
//! measures real allocations) and the call into `soulcheck_fuzzing::run`, which panics
//! with the broken invariant so libFuzzer records a crash artifact.

use libfuzzer_sys::Corpus;
use soulcheck_fuzzing::{Meter, Outcome, StatsAlloc, Target, INSTRUMENTED_SYSTEM};

#[global_allocator]
static ALLOCATOR: &StatsAlloc<std::alloc::System> = &INSTRUMENTED_SYSTEM;

/// Runs one input; an input the generator cannot use is not kept in the corpus.
pub fn fuzz(target: Target, data: &[u8]) -> Corpus {
    match soulcheck_fuzzing::run(target, data, Some(&Meter::installed())) {
        Ok(Outcome::Checked) => Corpus::Keep,
        Ok(Outcome::Unusable) => Corpus::Reject,
        Err(violation) => panic!("{}: {violation}", target.name()),
    }
}
