//! Certifies this crate's validator against the soulcheck corpus: every case is a
//! `cargo test` trial (`cargo test --test conformance -- soul-kit/` runs one format).
//! All it takes is an implementation of `Validator` and one call.

use soulcheck_harness::{
    Implementation, Input, Observation, Outcome, Request, Validator,
};

/// Adapts the implementation to the harness.
struct MyValidator;

impl Validator for MyValidator {
    fn implementation(&self) -> Implementation {
        Implementation {
            name: "implementer-example".to_owned(),
            version: env!("CARGO_PKG_VERSION").to_owned(),
            language: "Rust".to_owned(),
            // Formats and operations it supports; cases of others are ignored trials.
            formats: implementer_example::Format::ALL
                .iter()
                .map(|format| format.name().to_owned())
                .collect(),
            operations: ["fingerprint", "calendar-order", "requirements-gate", "voice-profile", "whoami"]
                .map(str::to_owned)
                .to_vec(),
            ..Implementation::default()
        }
    }

    fn run(&self, request: &Request<'_>) -> Outcome {
        let input = match request.input {
            Input::Document { file_name, bytes } => implementer_example::Input::Document {
                name: file_name,
                bytes,
            },
            Input::Tree { root } => implementer_example::Input::Tree(root),
            _ => {
                return Outcome::Skipped {
                    reason: "an input kind this validator does not read".to_owned(),
                }
            }
        };
        match implementer_example::check(request.format, request.operation, input, request.context) {
            Ok(report) => {
                let report = report.to_wire();
                Outcome::Observed(Observation {
                    verdict: report.verdict,
                    diagnostics: report.diagnostics,
                    value: report.value,
                })
            }
            Err(unsupported) => Outcome::Skipped {
                reason: unsupported.reason,
            },
        }
    }
}

fn main() {
    soulcheck_harness::libtest::certify(MyValidator, &soulcheck_corpus::CASES);
}
