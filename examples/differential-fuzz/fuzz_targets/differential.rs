#![no_main]
//! Holds `MyValidator` against the reference on generated documents of one format
//! (`SOULCHECK_FORMAT`, default `soul-kit`):
//!
//!     SOULCHECK_FORMAT=soul-md cargo +nightly fuzz run differential -- -max_total_time=600
//!
//! A disagreement the spec decides panics with both answers, so libFuzzer keeps the input
//! as a crash artifact (`cargo fuzz tmin` shrinks it). Replay it with
//! `cargo +nightly fuzz run differential ARTIFACT`; `soulcheck fuzz` writes findings as
//! draft cases, this target as artifacts. Implementation-defined disagreements are not
//! findings.

use std::sync::OnceLock;

use differential_fuzz_example::{MyValidator, Setup};
use libfuzzer_sys::{fuzz_target, Corpus};
use soulcheck::Reference;
use soulcheck_harness::differential::campaign::{check_input, Checked};
use soulcheck_harness::differential::Differential;

static SETUP: OnceLock<Setup> = OnceLock::new();

fuzz_target!(|data: &[u8]| -> Corpus {
    let setup = SETUP.get_or_init(Setup::from_env);
    let differential = Differential::new(&Reference, &setup.catalogue, setup.profile);
    match check_input(&MyValidator, &differential, &setup.generator, data) {
        Checked::Unusable => Corpus::Reject,
        Checked::Finding(disagreement) => panic!(
            "{}: {}",
            disagreement.key(),
            disagreement.explain()
        ),
        _ => Corpus::Keep,
    }
});
