//! The reference implementation seen through the harness's `Validator` trait, so the
//! runner, the `cargo test` suite, `soulcheck run` and the verdict oracle treat it like any
//! other validator.

use soulcheck_harness::{Implementation, Observation, Outcome, Request, Validator};
use soulcheck_reference::{check, operations, Format, Input, Report, Unsupported};

/// The in-process reference validator.
#[derive(Debug, Clone, Copy, Default)]
pub struct Reference;

impl Reference {
    /// Runs a harness request through the reference and returns its report.
    pub fn report(&self, request: &Request<'_>) -> Result<Report, Unsupported> {
        let input = match request.input {
            soulcheck_harness::Input::Document { file_name, bytes } => Input::Document {
                name: file_name,
                bytes,
            },
            soulcheck_harness::Input::Tree { root } => Input::Tree(root),
            _ => {
                return Err(Unsupported {
                    reason: "the reference reads documents and trees only".to_owned(),
                })
            }
        };
        check(request.format, request.operation, input, request.context)
    }
}

/// Converts a report to what the harness compares: rule, severity and location.
pub fn observation(report: &Report) -> Observation {
    let wire = report.to_wire();
    Observation {
        verdict: wire.verdict,
        diagnostics: wire.diagnostics,
        value: wire.value,
    }
}

impl Validator for Reference {
    fn implementation(&self) -> Implementation {
        implementation()
    }

    fn run(&self, request: &Request<'_>) -> Outcome {
        match self.report(request) {
            // Past a bound of its own the reference declines, as any validator may decline
            // an input it does not support.
            Ok(report) => match report.not_judged_reason() {
                Some(reason) => Outcome::Skipped { reason },
                None => Outcome::Observed(observation(&report)),
            },
            Err(unsupported) => Outcome::Skipped {
                reason: unsupported.reason,
            },
        }
    }
}

/// Who the reference is, as it introduces itself (in a report's header and in the
/// persistent protocol's hello).
pub fn implementation() -> Implementation {
    Implementation {
        name: "soulcheck reference".to_owned(),
        version: env!("CARGO_PKG_VERSION").to_owned(),
        language: "Rust".to_owned(),
        homepage: String::new(),
        formats: Format::ALL
            .iter()
            .map(|format| format.name().to_owned())
            .collect(),
        operations: operations().into_iter().map(str::to_owned).collect(),
    }
}
