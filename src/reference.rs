//! The reference implementation seen through the harness's `Validator` trait, so the
//! runner, the `cargo test` suite and `soulcheck run` treat it like any other validator.

use soulcheck_harness::{
    Implementation, Observation, Outcome, ReportedDiagnostic, Request, Validator,
};

use crate::diagnostic::{Format, Report};
use crate::{check, Input};

/// The in-process reference validator.
#[derive(Debug, Clone, Copy, Default)]
pub struct Reference;

impl Reference {
    /// Runs a harness request through the reference and returns its report.
    pub fn report(&self, request: &Request<'_>) -> Result<Report, crate::Unsupported> {
        let input = match request.input {
            soulcheck_harness::Input::Document { file_name, bytes } => Input::Document {
                name: file_name,
                bytes,
            },
            soulcheck_harness::Input::Tree { root } => Input::Tree(root),
        };
        check(request.format, request.operation, input, request.context)
    }
}

/// Converts a report to what the harness compares: rule, severity and location.
pub fn observation(report: &Report) -> Observation {
    let diagnostics = report
        .diagnostics
        .iter()
        .map(|diagnostic| ReportedDiagnostic {
            rule: diagnostic.rule.id.to_owned(),
            severity: diagnostic.severity,
            location: Some(soulcheck_harness::Location {
                pointer: diagnostic.location.pointer.clone(),
                line: diagnostic.location.position.map(|position| position.line),
                column: diagnostic.location.position.map(|position| position.column),
            }),
            message: diagnostic.message.clone(),
        })
        .collect();
    Observation {
        verdict: report.verdict(),
        diagnostics: Some(diagnostics),
        value: report.value.clone(),
    }
}

impl Validator for Reference {
    fn implementation(&self) -> Implementation {
        Implementation {
            name: "soulcheck reference".to_owned(),
            version: env!("CARGO_PKG_VERSION").to_owned(),
            language: "Rust".to_owned(),
            homepage: String::new(),
            formats: Format::ALL
                .iter()
                .map(|format| format.name().to_owned())
                .collect(),
            operations: crate::OPERATIONS
                .iter()
                .map(|operation| (*operation).to_owned())
                .collect(),
        }
    }

    fn run(&self, request: &Request<'_>) -> Outcome {
        match self.report(request) {
            Ok(report) => Outcome::Observed(observation(&report)),
            Err(unsupported) => Outcome::Skipped {
                reason: unsupported.reason,
            },
        }
    }
}
