//! Known failures, recorded as data: a validator's expectations file lists the cases it is
//! known to fail, with a reason. A listed failure is reported but does not fail the run;
//! a listed case that passes is an unexpected pass (so the list cannot silently rot); an
//! ID the corpus does not have is an error. A run that loaded some formats only (it
//! selects before it loads) checks the entries of those formats; an entry of a format it
//! did not load cannot apply to it and is passed over.

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
    failures: BTreeMap<String, String>,
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
    reason: String,
}

impl Expectations {
    /// Loads an expectations file and checks every listed case exists: among `cases`,
    /// for an entry of a format `cases` hold; an entry must name a format in any case.
    pub fn load(path: &Path, cases: &[Case]) -> Result<Expectations, LoadError> {
        let text = crate::files::read_string(path, crate::files::MAX_CONFIG_FILE)?;
        let file: File =
            toml::from_str(&text).map_err(|error| LoadError::invalid(path, error.to_string()))?;
        let names: std::collections::BTreeSet<String> = cases.iter().map(Case::name).collect();
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
            if !names.contains(&entry.case) {
                return Err(LoadError::invalid(
                    path,
                    format!("unknown case `{}`", entry.case),
                ));
            }
            if failures.insert(entry.case.clone(), entry.reason).is_some() {
                return Err(LoadError::invalid(
                    path,
                    format!("case `{}` is listed twice", entry.case),
                ));
            }
        }
        Ok(Expectations { failures })
    }

    /// Re-judges results against the list.
    pub fn apply(&self, results: &mut [CaseResult]) {
        for result in results {
            let Some(reason) = self.failures.get(&result.name) else {
                continue;
            };
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
                    reason,
                })
            })
            .collect();
        let header =
            "# Known failures of this validator: one [[failure]] per case, with a reason.\n\
                      # Generated by `soulcheck run --write-expectations`; edit the reasons.\n\n";
        format!(
            "{header}{}",
            toml::to_string(&File { failures }).unwrap_or_default()
        )
    }
}
