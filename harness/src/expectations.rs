//! Known failures, recorded as data: a validator's expectations file lists the cases it is
//! known to fail, with a reason. A listed failure is reported but does not fail the run;
//! a listed case that passes is an unexpected pass (so the list cannot silently rot); an
//! ID the corpus does not have is an error. A run that loaded some formats only (it
//! selects before it loads) checks the entries of those formats; an entry of a format it
//! did not load cannot apply to it and is passed over.
//!
//! An entry may also say which of the case's rules the failure is about (`rule`), and its
//! class: the validator departs from the spec's words (`deviation`, with those words quoted
//! in `spec`), it takes another reading the spec allows where the strict profile makes a
//! protective choice (`strict`), or the reading is contested (`contested`: the corpus, not
//! the validator, may be what has to change; see CONTRIBUTING.md, "One policy decides the
//! basis"). The
//! implementations soulcheck certifies in CI (`implementations/`) classify every entry;
//! a file of one's own need not.

use std::collections::BTreeMap;
use std::path::Path;

use serde::{Deserialize, Serialize};

use crate::corpus::Case;
use crate::runner::{CaseResult, Judgement};
use crate::LoadError;
use soulcheck_vocabulary::Format;

/// Known failures by case name (`<format>/<case-id>`).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Expectations {
    failures: BTreeMap<String, KnownFailure>,
}

/// One listed failure, as its file gives it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct KnownFailure {
    /// Why it fails, in the file's words.
    pub reason: String,
    /// The rule the failure is about, when the file names one (always one the case is
    /// written for or expects a diagnostic of).
    pub rule: Option<String>,
    /// What kind of failure it is, when the file says.
    pub class: Option<FailureClass>,
    /// The spec's words the validator departs from (required for a `deviation`).
    pub spec: Option<String>,
}

/// What kind of failure a listed one is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum FailureClass {
    /// The validator departs from the spec's words (quoted in the entry's `spec`).
    Deviation,
    /// The reading is contested: the spec's text may not decide the case, so the corpus
    /// may be what has to change.
    Contested,
    /// The case's verdict in the strict profile is the suite's protective choice (a
    /// strict-only rule, or the reference's reading of a question the spec leaves open),
    /// not the spec's words: the validator takes another reading the spec allows.
    Strict,
}

impl FailureClass {
    /// The name a file gives it.
    pub fn name(self) -> &'static str {
        match self {
            FailureClass::Deviation => "deviation",
            FailureClass::Contested => "contested",
            FailureClass::Strict => "strict",
        }
    }
}

#[derive(Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct File {
    #[serde(default, rename = "failure")]
    failures: Vec<Entry>,
}

#[derive(Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct Entry {
    case: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    rule: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    class: Option<FailureClass>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    spec: Option<String>,
    reason: String,
}

impl Expectations {
    /// Loads an expectations file and checks every listed case exists: among `cases`,
    /// for an entry of a format `cases` hold; an entry must name a format in any case.
    pub fn load(path: &Path, cases: &[Case]) -> Result<Expectations, LoadError> {
        let text = crate::files::read_string(path, crate::files::MAX_CONFIG_FILE)?;
        let file: File =
            toml::from_str(&text).map_err(|error| LoadError::invalid(path, error.to_string()))?;
        let cases_by_name: BTreeMap<String, &Case> =
            cases.iter().map(|case| (case.name(), case)).collect();
        let loaded: std::collections::BTreeSet<Format> =
            cases.iter().map(|case| case.format).collect();
        let mut failures = BTreeMap::new();
        for entry in file.failures {
            let format = entry
                .case
                .split_once('/')
                .and_then(|(format, _)| format.parse::<Format>().ok());
            if format.is_some_and(|format| !loaded.contains(&format)) {
                continue;
            }
            let Some(case) = cases_by_name.get(&entry.case) else {
                return Err(LoadError::invalid(
                    path,
                    format!("unknown case `{}`", entry.case),
                ));
            };
            if let Some(rule) = &entry.rule {
                if !case.all_rules().contains(rule.as_str()) {
                    return Err(LoadError::invalid(
                        path,
                        format!(
                            "case `{}` is not written for rule `{rule}` (its rules: {})",
                            entry.case,
                            case.rules.join(", ")
                        ),
                    ));
                }
            }
            let quoted = entry
                .spec
                .as_deref()
                .is_some_and(|words| !words.trim().is_empty());
            if entry.class == Some(FailureClass::Deviation) && !quoted {
                return Err(LoadError::invalid(
                    path,
                    format!(
                        "case `{}` is a deviation without the spec's words (`spec = \"...\"`)",
                        entry.case
                    ),
                ));
            }
            let known = KnownFailure {
                reason: entry.reason,
                rule: entry.rule,
                class: entry.class,
                spec: entry.spec,
            };
            if failures.insert(entry.case.clone(), known).is_some() {
                return Err(LoadError::invalid(
                    path,
                    format!("case `{}` is listed twice", entry.case),
                ));
            }
        }
        Ok(Expectations { failures })
    }

    /// The listed failures, by case name.
    pub fn entries(&self) -> &BTreeMap<String, KnownFailure> {
        &self.failures
    }

    /// Re-judges results against the list.
    pub fn apply(&self, results: &mut [CaseResult]) {
        for result in results {
            let Some(known) = self.failures.get(&result.name) else {
                continue;
            };
            let reason = &known.reason;
            let judgement = std::mem::replace(&mut result.judgement, Judgement::Pass);
            result.judgement = match judgement {
                Judgement::Pass => Judgement::UnexpectedPass {
                    reason: reason.clone(),
                },
                skipped @ Judgement::Skipped { .. } => skipped,
                // The harness stopped it: nothing the validator did, known or not.
                interrupted @ Judgement::Interrupted { .. } => interrupted,
                failure => Judgement::ExpectedFailure {
                    actual: Box::new(failure),
                    reason: reason.clone(),
                },
            };
        }
    }

    /// An expectations file listing every failure of a run, to bootstrap a validator's
    /// list; each reason says what failed, and the case's notes on known deviations of
    /// public implementations, so a human can refine it. `cases` is the list the results'
    /// indices refer to.
    pub fn render_from(cases: &[&Case], results: &[CaseResult]) -> String {
        let failures: Vec<Entry> = results
            .iter()
            .filter_map(|result| {
                let judgement = match &result.judgement {
                    Judgement::ExpectedFailure { actual, .. } => actual.as_ref(),
                    other if other.is_failure() => other,
                    _ => return None,
                };
                if matches!(judgement, Judgement::UnexpectedPass { .. }) {
                    return None;
                }
                let first_line = judgement
                    .explain()
                    .lines()
                    .next()
                    .unwrap_or_default()
                    .to_owned();
                let mut reason = format!("{}: {first_line}", judgement.name());
                if let Some(case) = cases.get(result.index) {
                    for deviation in &case.deviations {
                        reason.push_str(&format!(" (known deviation: {deviation})"));
                    }
                }
                Some(Entry {
                    case: result.name.clone(),
                    rule: None,
                    class: None,
                    spec: None,
                    reason,
                })
            })
            .collect();
        let header =
            "# Known failures of this validator: one [[failure]] per case, with a reason.\n\
                      # Generated by `soulcheck run --write-expectations`; edit the reasons.\n\
                      # An entry may name the case's rule it is about (`rule`) and its class:\n\
                      # `class = \"deviation\"` with the spec's words in `spec`, `\"strict\"` or `\"contested\"`.\n\n";
        format!(
            "{header}{}",
            toml::to_string(&File { failures }).unwrap_or_default()
        )
    }
}
