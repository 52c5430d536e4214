//! Certificates: per format and operation, whether a validator conforms to the corpus.
//! A format's validation is certified when the run judged every validation case the
//! corpus holds for it (operation `validate`, every input and rule) and the validator
//! passed, on its verdict in the run's profile, every case that decides a certificate
//! ([`Deciding`]): every case that expects a definite acceptance, whatever the level of the
//! rules it was written for (rejecting a document the spec allows is never conforming),
//! and every other case that exercises a must-level rule (a definite rejection; an
//! implementation-defined case, which any allowed verdict passes but a crash does not).
//! Nothing else decides it: not a should- or may-level rejection the validator missed, not
//! warnings, not other operations, not diagnostics. Each other operation (a fingerprint,
//! an ordering) is certified on its own, by its own cases, judged on their value. A known
//! failure still counts against a certificate, and so does a skipped deciding case.
//!
//! A run narrowed by a filter (`--case`, `--rule`, `--input-name`) or cut short
//! (`--fail-fast`) judged only part of a format: its certificate says "not a
//! certification: N of M cases judged" and names the filters ([`Selection`]), whatever
//! those cases did, so nobody can mint a certificate by selecting the cases their tool
//! passes.
//!
//! The certificate also grades the diagnostics (see [`crate::runner::Grade`]), lists the
//! implementation-defined choices the validator made and names the corpus and profile.

use std::collections::BTreeMap;

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

/// How many cases the corpus holds, per format and operation: what a certificate's
/// [`Selection`] is measured against.
pub type Held = BTreeMap<Format, BTreeMap<String, usize>>;

/// Counts the cases of `cases` per format and operation.
pub fn held<'c>(cases: impl IntoIterator<Item = &'c Case>) -> Held {
    let mut held = Held::new();
    for case in cases {
        *held
            .entry(case.format)
            .or_default()
            .entry(case.operation.clone())
            .or_default() += 1;
    }
    held
}

/// How many cases `held` counts of this format and operation (0 when it names none).
pub fn held_of(held: &Held, format: Format, operation: &str) -> usize {
    held.get(&format)
        .and_then(|operations| operations.get(operation))
        .copied()
        .unwrap_or(0)
}

/// What an operation's cases are called in a certificate: `validation`, or the
/// operation's name.
fn cases_called(operation: &str) -> &str {
    if operation == "validate" {
        "validation"
    } else {
        operation
    }
}

/// How a validator warns on the cases of one format, judged on the warnings it reports:
/// beside the certificate, never deciding it. A verdict never shows a warning, so a
/// validator that warns exactly where the spec says it should (the should-level rules)
/// and one that never warns earn the same certificate; this tells them apart, for a
/// validator that reports its diagnostics (in the `check --json` shape, or through a
/// mapping file).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
pub struct Warnings {
    /// Whether the validator reported diagnostics on any case of the format; without
    /// them its warnings cannot be judged, and the other counts say nothing.
    pub reported: bool,
    /// Cases that expect an acceptance with warnings (in the run's profile).
    pub expected: usize,
    /// Of those, the cases the validator accepted with at least one warning.
    pub warned: usize,
    /// Cases that expect a plain acceptance.
    pub plain: usize,
    /// Of those, the cases the validator accepted with a warning all the same.
    pub spurious: usize,
    /// Cases left out because the catalogue judges them on the verdict alone
    /// (`verdict_only`): a correct validator may report other diagnostics there, so its
    /// warnings say nothing about how it warns.
    pub left_out: usize,
}

impl Warnings {
    /// Whether the validator warns as the spec says: it reports diagnostics, warns on
    /// every case that expects a warning, and on no case that expects none.
    pub fn as_specified(&self) -> bool {
        self.reported && self.warned == self.expected && self.spurious == 0
    }

    /// Counts one case: `compared` is false for a case judged on its verdict alone, whose
    /// warnings are left out.
    fn add(
        &mut self,
        expected: &ExpectedVerdict,
        actual: Option<&crate::Observation>,
        compared: bool,
    ) {
        let Some(actual) = actual else { return };
        if actual.diagnostics.as_ref().is_some_and(|d| !d.is_empty()) {
            self.reported = true;
        }
        if !compared {
            self.left_out += 1;
            return;
        }
        // A report's notice that it left diagnostics out (`<format>.report.truncated`)
        // warns of nothing in the document.
        let warned = actual.verdict == soulcheck_vocabulary::Verdict::Accept
            && actual.diagnostics.iter().flatten().any(|d| {
                d.severity == soulcheck_vocabulary::Severity::Warning
                    && !d.rule.ends_with(".report.truncated")
            });
        match expected {
            ExpectedVerdict::AcceptWithWarnings => {
                self.expected += 1;
                self.warned += usize::from(warned);
            }
            ExpectedVerdict::Accept => {
                self.plain += 1;
                self.spurious += usize::from(warned);
            }
            _ => {}
        }
    }

    /// `warns as the spec says (warned on 12 of 12 cases that expect a warning, and on 0
    /// of 30 that expect none; 2 verdict-only cases not judged)`, or why not.
    pub fn describe(&self) -> String {
        if !self.reported {
            return "warnings not judged (no diagnostics reported)".to_owned();
        }
        let verdict = if self.as_specified() {
            "warns as the spec says"
        } else {
            "does not warn as the spec says"
        };
        let mut text = format!(
            "{verdict} (warned on {} of {} cases that expect a warning, and on {} of {} that expect none",
            self.warned, self.expected, self.spurious, self.plain
        );
        match self.left_out {
            0 => {}
            1 => text.push_str("; 1 verdict-only case not judged"),
            n => text.push_str(&format!("; {n} verdict-only cases not judged")),
        }
        text.push(')');
        text
    }
}

/// What a run selected, for its certificates: the corpus's cases per format and
/// operation, and the options that narrowed the run within a format, as typed.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Scope {
    /// Cases the corpus holds.
    pub held: Held,
    /// The narrowing options (`--case 'name-*'`, `--rule R`, `--input-name '*.json'`,
    /// `--fail-fast`); `--format` and `--operation` choose whole certificates and are not
    /// among them.
    pub filters: Vec<String>,
}

impl Scope {
    /// The scope of a run over exactly `cases`, unfiltered: each certificate is measured
    /// against the cases given.
    pub fn whole(cases: &[&Case]) -> Scope {
        Scope {
            held: held(cases.iter().copied()),
            filters: Vec::new(),
        }
    }

    /// How many cases the corpus holds of this format and operation.
    pub fn cases(&self, format: Format, operation: &str) -> usize {
        held_of(&self.held, format, operation)
    }
}

/// Which of the corpus's cases of a format and operation a certificate judged.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Selection {
    /// Whether every case the corpus holds of this format and operation was judged; a
    /// certificate without it certifies nothing.
    pub complete: bool,
    /// Cases of this format and operation the run judged.
    pub judged: usize,
    /// Cases of this format and operation the corpus holds.
    pub cases: usize,
    /// The options that narrowed the run, as typed.
    pub filters: Vec<String>,
}

impl Selection {
    /// `not a certification: 1 of 98 validation cases judged (--case name-long)`.
    pub fn describe(&self, what: &str) -> String {
        let mut text = format!(
            "not a certification: {} of {} {what} cases judged",
            self.judged, self.cases
        );
        if !self.filters.is_empty() {
            text.push_str(&format!(" ({})", self.filters.join(" ")));
        }
        text
    }
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
    /// Which of the corpus's cases the run judged: a certificate certifies only a run that
    /// judged them all.
    pub selection: Selection,
    /// Why not, when it is not: that the run judged only part of the cases, then one
    /// entry per deciding case that did not pass.
    pub reasons: Vec<String>,
    /// The cases that decide it ([`Deciding`]) and how many passed.
    #[serde(flatten)]
    pub deciding: DecidingTally,
    /// Cases that failed but decide nothing: they expect no definite acceptance and
    /// exercise no must-level rule (a should-level rejection missed, say), and the line
    /// says so.
    pub other_failures: usize,
    /// The diagnostics grade over the cases of this format and operation.
    pub diagnostics_grade: Grade,
    /// How many cases got each diagnostics grade.
    pub diagnostics: GradeTally,
    /// How the validator warns, for validation (never deciding the certificate).
    pub warnings: Warnings,
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

    /// What its cases are called: `validation` or the operation's name.
    fn what(&self) -> &str {
        cases_called(&self.operation)
    }

    /// One line for the terminal and the Markdown summary.
    pub fn line(&self) -> String {
        let cases = self.what();
        let mut line = if !self.selection.complete {
            format!(
                "{}: {}; {}, {} profile",
                self.subject(),
                self.selection.describe(cases),
                self.deciding.describe(cases),
                self.profile
            )
        } else if self.deciding.cases() == 0 {
            format!(
                "{}: not certified (no {cases} case that decides a certificate was run)",
                self.subject()
            )
        } else {
            let status = if self.certified {
                "certified"
            } else {
                "not certified"
            };
            format!(
                "{}: {status} ({}, {} profile)",
                self.subject(),
                self.deciding.describe(cases),
                self.profile
            )
        };
        if self.other_failures > 0 {
            let (count, verb) = match self.other_failures {
                1 => ("1 failed case".to_owned(), "does"),
                n => (format!("{n} failed cases"), "do"),
            };
            line.push_str(&format!(
                "; {count} {verb} not decide it (no definite acceptance, no must-level rule)"
            ));
        }
        if self.operation == "validate" {
            line.push_str(&format!(
                "; diagnostics: {}, {}",
                self.diagnostics_grade,
                self.diagnostics.describe_over(self.selection.judged)
            ));
            if self.warnings.expected > 0 {
                line.push_str(&format!("; {}", self.warnings.describe()));
            }
        }
        line
    }
}

/// Whether a case with these rules is must-level: it exercises a rule of level `must`.
pub fn is_must(rules: &[String], catalogue: &Catalogue) -> bool {
    rules.iter().any(|rule| {
        catalogue
            .get(rule)
            .is_some_and(|rule| rule.level == Level::Must)
    })
}

/// Why a case decides a certificate. Certified means right on every document the spec
/// decides: every definite acceptance, and every must-level rejection.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Deciding {
    /// It expects a definite acceptance (`accept` or `accept-with-warnings`) in the run's
    /// profile: rejecting a document the spec allows is never conforming, whatever the
    /// level of the rule the case was written for.
    Accept,
    /// It exercises a must-level rule and expects no definite acceptance: a definite
    /// rejection, or an implementation-defined case (any allowed verdict passes it; a
    /// crash, a timeout or a skip does not).
    Must,
}

impl Deciding {
    /// How a case that expects `expected` and exercises `rules` decides, if it does.
    pub fn of(
        expected: &ExpectedVerdict,
        rules: &[String],
        catalogue: &Catalogue,
    ) -> Option<Deciding> {
        let accepts = matches!(
            expected,
            ExpectedVerdict::Accept | ExpectedVerdict::AcceptWithWarnings
        );
        Deciding::from_parts(accepts, rules, catalogue)
    }

    /// The same for a case read back from `report.jsonl`, whose expected verdict is its
    /// name (`accept`, `accept-with-warnings`, `reject`, `implementation-defined (...)`).
    pub fn of_record(
        expected_verdict: &str,
        rules: &[String],
        catalogue: &Catalogue,
    ) -> Option<Deciding> {
        let accepts = matches!(expected_verdict, "accept" | "accept-with-warnings");
        Deciding::from_parts(accepts, rules, catalogue)
    }

    fn from_parts(accepts: bool, rules: &[String], catalogue: &Catalogue) -> Option<Deciding> {
        if accepts {
            Some(Deciding::Accept)
        } else if is_must(rules, catalogue) {
            Some(Deciding::Must)
        } else {
            None
        }
    }
}

/// The cases of one format and operation that decide its certificate, and how many of
/// each kind passed on their verdict (or value).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
pub struct DecidingTally {
    /// Cases that expect a definite acceptance, whatever the level of their rules.
    pub accept_cases: usize,
    /// Of those, the cases that passed.
    pub accept_cases_passed: usize,
    /// Cases that exercise a must-level rule and expect no definite acceptance (definite
    /// rejections, and implementation-defined cases).
    pub must_cases: usize,
    /// Of those, the cases that passed.
    pub must_cases_passed: usize,
}

impl DecidingTally {
    /// Counts one deciding case.
    pub fn add(&mut self, deciding: Deciding, passed: bool) {
        let (cases, passed_cases) = match deciding {
            Deciding::Accept => (&mut self.accept_cases, &mut self.accept_cases_passed),
            Deciding::Must => (&mut self.must_cases, &mut self.must_cases_passed),
        };
        *cases += 1;
        *passed_cases += usize::from(passed);
    }

    /// Deciding cases run.
    pub fn cases(&self) -> usize {
        self.accept_cases + self.must_cases
    }

    /// Whether there was a deciding case and every one passed.
    pub fn all_passed(&self) -> bool {
        self.cases() > 0
            && self.accept_cases_passed == self.accept_cases
            && self.must_cases_passed == self.must_cases
    }

    /// `118 of 120 accept and 317 of 317 other must-level validation cases passed`.
    pub fn describe(&self, what: &str) -> String {
        format!(
            "{} of {} accept and {} of {} other must-level {what} cases passed",
            self.accept_cases_passed, self.accept_cases, self.must_cases_passed, self.must_cases
        )
    }
}

/// Issues the certificate of every format and operation present in the run, each
/// measured against what `scope` says the corpus holds.
pub fn issue(
    cases: &[&Case],
    results: &[CaseResult],
    catalogue: &Catalogue,
    implementation: &Implementation,
    corpus_hash: &str,
    profile: Profile,
    scope: &Scope,
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
            let mut judged = 0;
            let mut deciding = DecidingTally::default();
            let mut other_failures = 0;
            let mut choices = Vec::new();
            let mut diagnostics = GradeTally::default();
            let mut warnings = Warnings::default();
            for result in results.iter().filter(|result| {
                let case = cases[result.index];
                case.format == format && case.operation == operation
            }) {
                let case = cases[result.index];
                judged += 1;
                if is_graded(result) {
                    diagnostics.add(result.diagnostics.grade);
                }
                let expectation = case.expectation(profile);
                match Deciding::of(&expectation.verdict, &case.rules, catalogue) {
                    None => {
                        if result.judgement.is_failure() {
                            other_failures += 1;
                        }
                    }
                    Some(kind) => {
                        // A listed known failure that now passes is news for the
                        // expectations file, not a failure of the validator: it passed on
                        // its verdict.
                        let passed = matches!(
                            result.judgement,
                            Judgement::Pass | Judgement::UnexpectedPass { .. }
                        );
                        deciding.add(kind, passed);
                        if !passed {
                            let judgement = match &result.judgement {
                                Judgement::ExpectedFailure { actual, .. } => actual.as_ref(),
                                other => other,
                            };
                            reasons.push(format!("{} {}", result.name, judgement.name()));
                        }
                    }
                }
                // Warnings are judged where the case compares them: a verdict-only case's
                // diagnostics (and so its warnings) may differ from a correct validator's.
                warnings.add(
                    &expectation.verdict,
                    result.actual.as_ref(),
                    !case.verdict_only,
                );
                // The choices are those the run's profile leaves open.
                if let (ExpectedVerdict::ImplementationDefined { reference, .. }, Some(actual)) =
                    (&expectation.verdict, &result.actual)
                {
                    choices.push(Choice {
                        case: result.name.clone(),
                        rules: case.rules.clone(),
                        verdict: actual.verdict.to_string(),
                        same_as_reference: actual.verdict == *reference,
                    });
                }
            }
            if deciding.cases() == 0 {
                reasons.push(format!(
                    "no {} case that decides a certificate was run",
                    cases_called(operation)
                ));
            }
            let held = scope.cases(format, operation);
            let selection = Selection {
                complete: judged >= held,
                judged,
                cases: held.max(judged),
                filters: scope.filters.clone(),
            };
            if !selection.complete {
                reasons.insert(0, selection.describe(cases_called(operation)));
            }
            Certificate {
                format,
                operation: operation.to_owned(),
                profile,
                certified: reasons.is_empty(),
                selection,
                reasons,
                deciding,
                other_failures,
                diagnostics_grade: diagnostics.overall(),
                diagnostics,
                warnings,
                choices,
                implementation: implementation.clone(),
                corpus_hash: corpus_hash.to_owned(),
                soulcheck_version: env!("CARGO_PKG_VERSION").to_owned(),
                issued_at: super::jsonl::now(),
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{Diagnostic, Observation};
    use soulcheck_vocabulary::{Severity, Verdict};

    fn accepted(warnings: usize) -> Observation {
        Observation {
            verdict: Verdict::Accept,
            diagnostics: Some(
                (0..warnings)
                    .map(|_| Diagnostic {
                        rule: "soul-md.section.required".to_owned(),
                        severity: Severity::Warning,
                        location: None,
                        message: String::new(),
                    })
                    .collect(),
            ),
            value: None,
        }
    }

    /// A validator that never warns, one that warns everywhere and one that warns where
    /// the cases expect it are told apart; one that reports nothing is not judged.
    #[test]
    fn warnings_are_judged_on_what_a_validator_reports() {
        let cases = [
            ExpectedVerdict::AcceptWithWarnings,
            ExpectedVerdict::AcceptWithWarnings,
            ExpectedVerdict::Accept,
        ];
        let tally = |answers: [Observation; 3]| {
            let mut warnings = Warnings::default();
            for (expected, actual) in cases.iter().zip(&answers) {
                warnings.add(expected, Some(actual), true);
            }
            warnings
        };
        let exact = tally([accepted(1), accepted(2), accepted(0)]);
        assert!(exact.as_specified(), "{}", exact.describe());
        let silent = tally([accepted(0), accepted(0), accepted(0)]);
        assert!(!silent.reported);
        assert!(silent.describe().contains("not judged"));
        let missing_one = tally([accepted(1), accepted(0), accepted(0)]);
        assert_eq!((missing_one.warned, missing_one.expected), (1, 2));
        assert!(missing_one
            .describe()
            .starts_with("does not warn as the spec says"));
        let everywhere = tally([accepted(1), accepted(1), accepted(1)]);
        assert_eq!(everywhere.spurious, 1);
        assert!(!everywhere.as_specified());
    }
}
