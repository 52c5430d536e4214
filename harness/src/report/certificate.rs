//! Certificates: per format and operation, whether a validator conforms to the corpus.
//! A format's validation is certified when every must-level validation case (operation
//! `validate`) passed on its verdict in the run's profile; nothing else decides it: not
//! warnings (should- and may-level rules), not other operations, not diagnostics. Each
//! other operation (a fingerprint, an ordering) is certified on its own, by its own
//! must-level cases. A known failure still counts against a certificate, and so does a
//! skipped must-level case.
//!
//! The certificate also grades the diagnostics (see [`crate::runner::Grade`]), lists the
//! implementation-defined choices the validator made and names the corpus and profile.

use serde::Serialize;
use soulcheck_vocabulary::{Level, Profile};

use crate::catalogue::Catalogue;
use crate::corpus::{Case, ExpectedVerdict};
use crate::report::{is_graded, GradeTally};
use crate::runner::{CaseResult, Grade, Judgement};
use crate::validator::Implementation;
use soulcheck_vocabulary::Format;

/// A choice the validator made on an implementation-defined case.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Choice {
    /// The case.
    pub case: String,
    /// The rules it exercises.
    pub rules: Vec<String>,
    /// The verdict the validator gave.
    pub verdict: String,
    /// Whether it is the reference's choice.
    pub same_as_reference: bool,
}

/// The certificate of one format and operation.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Certificate {
    /// The format.
    pub format: Format,
    /// The operation (`validate`, `fingerprint`, ...).
    pub operation: String,
    /// The profile the cases were judged by.
    pub profile: Profile,
    /// Whether the validator is certified for it.
    pub certified: bool,
    /// Why not, when it is not: one entry per must-level case that did not pass.
    pub reasons: Vec<String>,
    /// Must-level cases of this operation that passed.
    pub must_cases_passed: usize,
    /// Must-level cases of this operation in the run.
    pub must_cases: usize,
    /// The diagnostics grade over the cases of this format and operation.
    pub diagnostics_grade: Grade,
    /// How many cases got each diagnostics grade.
    pub diagnostics: GradeTally,
    /// Implementation-defined choices.
    pub choices: Vec<Choice>,
    /// The validator.
    pub implementation: Implementation,
    /// The corpus's content hash.
    pub corpus_hash: String,
    /// soulcheck's version.
    pub soulcheck_version: String,
    /// RFC 3339 time of issue.
    pub issued_at: String,
}

impl Certificate {
    /// The file name in `certificates/`: `<format>.json` for validation,
    /// `<format>.<operation>.json` for another operation.
    pub fn file_name(&self) -> String {
        if self.operation == "validate" {
            format!("{}.json", self.format)
        } else {
            format!("{}.{}.json", self.format, self.operation)
        }
    }

    /// What it certifies: `soul-kit` or `compose-bundle fingerprint`.
    pub fn subject(&self) -> String {
        if self.operation == "validate" {
            self.format.to_string()
        } else {
            format!("{} {}", self.format, self.operation)
        }
    }

    /// One line for the terminal.
    pub fn line(&self) -> String {
        let status = if self.certified {
            "certified"
        } else {
            "not certified"
        };
        let cases = if self.operation == "validate" {
            "validation".to_owned()
        } else {
            self.operation.clone()
        };
        let mut line = format!(
            "{}: {status} ({} of {} must-level {cases} cases passed, {} profile)",
            self.subject(),
            self.must_cases_passed,
            self.must_cases,
            self.profile
        );
        if self.must_cases == 0 {
            line = format!(
                "{}: {status} (no must-level {cases} case was run)",
                self.subject()
            );
        }
        if self.operation == "validate" {
            line.push_str(&format!(
                "; diagnostics: {} ({})",
                self.diagnostics_grade,
                self.diagnostics.describe()
            ));
        }
        line
    }
}

/// Whether a case with these rules is must-level: it exercises a rule of level `must`.
/// Only must-level cases decide a certificate.
pub fn is_must(rules: &[String], catalogue: &Catalogue) -> bool {
    rules.iter().any(|rule| {
        catalogue
            .get(rule)
            .is_some_and(|rule| rule.level == Level::Must)
    })
}

/// Issues the certificate of every format and operation present in the run.
pub fn issue(
    cases: &[&Case],
    results: &[CaseResult],
    catalogue: &Catalogue,
    implementation: &Implementation,
    corpus_hash: &str,
    profile: Profile,
) -> Vec<Certificate> {
    let mut subjects: Vec<(Format, &str)> = results
        .iter()
        .map(|result| {
            let case = cases[result.index];
            (case.format, case.operation.as_str())
        })
        .collect();
    // Validation first within a format.
    subjects.sort_by_key(|(format, operation)| (*format, *operation != "validate", *operation));
    subjects.dedup();
    subjects
        .into_iter()
        .map(|(format, operation)| {
            let mut reasons = Vec::new();
            let mut must_cases = 0;
            let mut must_cases_passed = 0;
            let mut choices = Vec::new();
            let mut diagnostics = GradeTally::default();
            for result in results.iter().filter(|result| {
                let case = cases[result.index];
                case.format == format && case.operation == operation
            }) {
                let case = cases[result.index];
                if is_graded(result) {
                    diagnostics.add(result.diagnostics.grade);
                }
                if is_must(&case.rules, catalogue) {
                    must_cases += 1;
                    // A listed known failure that now passes is news for the expectations
                    // file, not a failure of the validator: it passed on its verdict.
                    if matches!(
                        result.judgement,
                        Judgement::Pass | Judgement::UnexpectedPass { .. }
                    ) {
                        must_cases_passed += 1;
                    } else {
                        let judgement = match &result.judgement {
                            Judgement::ExpectedFailure { actual, .. } => actual.as_ref(),
                            other => other,
                        };
                        reasons.push(format!("{} {}", result.name, judgement.name()));
                    }
                }
                // The choices are those the run's profile leaves open.
                if let (ExpectedVerdict::ImplementationDefined { reference, .. }, Some(actual)) =
                    (&case.expectation(profile).verdict, &result.actual)
                {
                    choices.push(Choice {
                        case: result.name.clone(),
                        rules: case.rules.clone(),
                        verdict: actual.verdict.to_string(),
                        same_as_reference: actual.verdict == *reference,
                    });
                }
            }
            if must_cases == 0 {
                reasons.push(format!("no must-level {operation} case was run"));
            }
            Certificate {
                format,
                operation: operation.to_owned(),
                profile,
                certified: reasons.is_empty(),
                reasons,
                must_cases_passed,
                must_cases,
                diagnostics_grade: diagnostics.overall(),
                diagnostics,
                choices,
                implementation: implementation.clone(),
                corpus_hash: corpus_hash.to_owned(),
                soulcheck_version: env!("CARGO_PKG_VERSION").to_owned(),
                issued_at: super::jsonl::now(),
            }
        })
        .collect()
}
