//! How a Rust implementer certifies their own validator with the harness as a library.
//!
//! In your crate, add `soulcheck-harness` as a dev-dependency and a test target with
//! `harness = false`, implement `Validator` for your implementation, and hand it to
//! `soulcheck_harness::libtest::trials`: every corpus case becomes a `cargo test` trial
//! you can filter (`cargo test -- soul-kit/`). This example's toy validator only checks
//! that a Soul Kit is a JSON object of at most 262144 bytes, so most cases fail: run it
//! with `cargo run -p soulcheck-harness --example implementer -- soul-kit/size` to see
//! passing and failing trials side by side.

use std::path::Path;
use std::sync::Arc;

use soulcheck_harness::{
    Catalogue, Corpus, Implementation, Input, Observation, Outcome, Request, Validator, Verdict,
};

/// The implementation under test: accepts any JSON object of at most 262144 bytes.
struct ToyValidator;

impl Validator for ToyValidator {
    fn implementation(&self) -> Implementation {
        Implementation {
            name: "toy".to_owned(),
            version: "0.1.0".to_owned(),
            language: "Rust".to_owned(),
            ..Implementation::default()
        }
    }

    fn run(&self, request: &Request<'_>) -> Outcome {
        if request.format.name() != "soul-kit" || request.operation != "validate" {
            return Outcome::Skipped {
                reason: "the toy only knows Soul Kit validation".to_owned(),
            };
        }
        let Input::Document { bytes, .. } = request.input else {
            return Outcome::Skipped {
                reason: "documents only".to_owned(),
            };
        };
        let object = bytes.len() <= 262_144
            && matches!(
                serde_json::from_slice::<serde_json::Value>(bytes),
                Ok(serde_json::Value::Object(_))
            );
        Outcome::Observed(Observation {
            verdict: if object {
                Verdict::Accept
            } else {
                Verdict::Reject
            },
            // The toy reports no diagnostics, so it is judged on verdicts alone.
            diagnostics: None,
            value: None,
        })
    }
}

fn main() {
    let args = libtest_mimic::Arguments::from_args();
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../cases");
    let (corpus, catalogue) = match (Corpus::load(&root), Catalogue::load(&root)) {
        (Ok(corpus), Ok(catalogue)) => (corpus, catalogue),
        (Err(error), _) | (_, Err(error)) => {
            eprintln!("cannot load the corpus: {error}");
            std::process::exit(2);
        }
    };
    let trials = soulcheck_harness::libtest::trials(
        Arc::new(ToyValidator),
        Arc::new(corpus),
        Arc::new(catalogue),
        None,
    );
    libtest_mimic::run(&args, trials).exit();
}
