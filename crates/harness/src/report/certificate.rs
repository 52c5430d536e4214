//! Certificates: per format, whether a validator conforms to the corpus. A format is
//! certified only when every case exercising a must-level rule passed (a known failure
//! still counts against it) and no case of the format crashed or timed out. The
//! certificate lists the implementation-defined choices the validator made and names the
//! corpus it was certified against.

use serde::Serialize;
use soulcheck_vocabulary::Level;

use crate::catalogue::Catalogue;
use crate::corpus::{Case, ExpectedVerdict};
use crate::runner::{CaseResult, Judgement};
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

/// The certificate of one format.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Certificate {
    /// The format.
    pub format: Format,
    /// Whether the validator is certified for it.
    pub certified: bool,
    /// Why not, when it is not.
    pub reasons: Vec<String>,
    /// Must-level cases passed / attempted.
    pub must_cases_passed: usize,
    /// Must-level cases in the run.
    pub must_cases: usize,
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

/// Issues the certificate of every format present in the run.
pub fn issue(
    cases: &[&Case],
    results: &[CaseResult],
    catalogue: &Catalogue,
    implementation: &Implementation,
    corpus_hash: &str,
) -> Vec<Certificate> {
    let mut formats: Vec<Format> = results
        .iter()
        .map(|result| cases[result.index].format)
        .collect();
    formats.sort();
    formats.dedup();
    formats
        .into_iter()
        .map(|format| {
            let mine: Vec<&CaseResult> = results
                .iter()
                .filter(|r| cases[r.index].format == format)
                .collect();
            let is_must = |case: &Case| {
                case.rules.iter().any(|rule| {
                    catalogue
                        .get(rule)
                        .is_some_and(|rule| rule.level == Level::Must)
                })
            };
            let mut reasons = Vec::new();
            let mut must_cases = 0;
            let mut must_cases_passed = 0;
            let mut choices = Vec::new();
            for result in &mine {
                let case = cases[result.index];
                let judgement = match &result.judgement {
                    Judgement::ExpectedFailure { actual, .. } => actual.as_ref(),
                    other => other,
                };
                if matches!(judgement, Judgement::Crashed { .. } | Judgement::TimedOut) {
                    reasons.push(format!("{} {}", result.name, judgement.name()));
                }
                if is_must(case) {
                    must_cases += 1;
                    if result.judgement.is_pass() {
                        must_cases_passed += 1;
                    } else if !matches!(judgement, Judgement::Crashed { .. } | Judgement::TimedOut)
                    {
                        reasons.push(format!("{} {}", result.name, judgement.name()));
                    }
                }
                if let (ExpectedVerdict::ImplementationDefined { reference, .. }, Some(actual)) =
                    (&case.verdict, &result.actual)
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
                reasons.push("no must-level case was run".to_owned());
            }
            Certificate {
                format,
                certified: reasons.is_empty(),
                reasons,
                must_cases_passed,
                must_cases,
                choices,
                implementation: implementation.clone(),
                corpus_hash: corpus_hash.to_owned(),
                soulcheck_version: env!("CARGO_PKG_VERSION").to_owned(),
                issued_at: super::jsonl::now(),
            }
        })
        .collect()
}
