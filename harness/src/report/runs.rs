//! Runs read back from `report.jsonl` files and put side by side, for the reports that
//! compare implementations (the HTML page, [`super::html`], and the scoreboard,
//! [`super::scoreboard`]).
//!
//! A run is one implementation judged in one profile and reached one way. Several
//! reports of the same run merge into one (check-jsonschema is certified once per format,
//! with a schema each), as long as no case appears twice. Reports made on different
//! corpora are refused unless the caller allows them, and then the comparison says so:
//! the same case ID may mean different bytes in two corpora.
//!
//! The standing of a run on a format (certified or not, passed of run, the diagnostics
//! grade) is worked out from the records with the certificate's rule
//! ([`super::certificate`]), so a page and a `certificates/` directory never disagree.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use soulcheck_vocabulary::{Format, Profile};

use super::certificate::{held_of, Deciding, DecidingTally, Held};
use super::jsonl::{Log, Record};
use super::Tally;
use crate::catalogue::Catalogue;
use crate::validator::Implementation;
use crate::LoadError;

/// One implementation's results in one profile, from one report or several.
#[derive(Debug, Clone)]
pub struct Run {
    /// Who the reports say the validator is.
    pub implementation: Implementation,
    /// The profile its cases were judged by.
    pub profile: Profile,
    /// How it was reached: `in-process`, `per-case` or `persistent`.
    pub mode: String,
    /// The validator commands of its reports, each once, in report order.
    pub commands: Vec<String>,
    /// The corpus hashes of its reports, each once.
    pub corpus_hashes: Vec<String>,
    /// The soulcheck versions that wrote its reports, each once.
    pub soulcheck_versions: Vec<String>,
    /// The reports it was read from.
    pub reports: Vec<PathBuf>,
    /// Those of its reports that have no footer: the run was interrupted.
    pub incomplete: Vec<PathBuf>,
    /// Its case records, by `<format>/<case-id>`.
    pub records: BTreeMap<String, Record>,
    /// How many cases the corpus holds per format and operation, as its reports' headers
    /// say (empty for reports that predate it).
    pub corpus_cases: Held,
}

impl Run {
    /// `check-jsonschema 0.39.0`, or the name alone when there is no version, on one line:
    /// a persistent validator names itself, so a line break or a control character in its
    /// name is shown escaped (a name holding `\n| certified |` must not add a row).
    pub fn label(&self) -> String {
        let implementation = &self.implementation;
        let label = if implementation.version.is_empty() {
            implementation.name.clone()
        } else {
            format!("{} {}", implementation.name, implementation.version)
        };
        soulcheck_vocabulary::display::visible_line(&label).into_owned()
    }

    /// Whether every report of the run completed.
    pub fn is_complete(&self) -> bool {
        self.incomplete.is_empty()
    }

    /// The run's standing per format and operation present in it: validation first
    /// within a format.
    pub fn standings(&self, catalogue: &Catalogue) -> Vec<Standing> {
        let mut standings: BTreeMap<(Format, bool, &str), Standing> = BTreeMap::new();
        for record in self.records.values() {
            let key = (
                record.format,
                record.operation != "validate",
                record.operation.as_str(),
            );
            let standing = standings.entry(key).or_insert_with(|| Standing {
                format: record.format,
                operation: record.operation.clone(),
                tally: Tally::default(),
                deciding: DecidingTally::default(),
                cases: held_of(&self.corpus_cases, record.format, &record.operation),
            });
            standing.tally.add_record(record);
            if let Some(kind) =
                Deciding::of_record(&record.expected_verdict, &record.rules, catalogue)
            {
                // As the certificate counts it: a listed known failure that now passes
                // passed on its verdict.
                let passed = matches!(record.result.as_str(), "pass" | "unexpected-pass");
                standing.deciding.add(kind, passed);
            }
        }
        standings.into_values().collect()
    }
}

/// Where a run stands on one format and operation ([`Standing::certification`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Certification {
    /// The report does not say how many cases the corpus holds: no certification.
    CorpusUnknown,
    /// The run judged part of the cases: no certification.
    Partial,
    /// Every case that decides a certificate passed.
    Certified,
    /// The run judged no case that decides a certificate.
    NoDecidingCase,
    /// A case that decides a certificate did not pass.
    NotCertified,
}

/// A run's results on one format and operation.
#[derive(Debug, Clone, PartialEq)]
pub struct Standing {
    /// The format.
    pub format: Format,
    /// The operation (`validate`, `fingerprint`, ...).
    pub operation: String,
    /// Passed, failed, skipped, expected failures and the diagnostics grades.
    pub tally: Tally,
    /// The cases that decide a certificate, and how many passed.
    pub deciding: DecidingTally,
    /// Cases of this format and operation the corpus holds (0: the report does not say).
    pub cases: usize,
}

impl Standing {
    /// Certified: the run judged every case of the format and operation, and every case
    /// that decides a certificate passed, and there was at least one (the rule of
    /// [`super::certificate`]).
    pub fn certified(&self) -> bool {
        self.certification() == Certification::Certified
    }

    /// Where the run stands, each reason a certification is withheld checked in the order
    /// every report shows it: the corpus's size unknown, part of the cases judged, no
    /// deciding case run, a deciding case failed.
    pub fn certification(&self) -> Certification {
        if self.corpus_unknown() {
            Certification::CorpusUnknown
        } else if self.is_partial() {
            Certification::Partial
        } else if self.deciding.all_passed() {
            Certification::Certified
        } else if self.deciding.cases() == 0 {
            Certification::NoDecidingCase
        } else {
            Certification::NotCertified
        }
    }

    /// Whether the report does not say how many cases the corpus holds (a header without
    /// `corpus_cases`, written before it existed or by hand): then nothing shows the run
    /// judged the whole format, and it is no certification.
    pub fn corpus_unknown(&self) -> bool {
        self.cases == 0
    }

    /// Whether the run judged only part of the cases the corpus holds: then it is not a
    /// certification, whatever those cases did.
    pub fn is_partial(&self) -> bool {
        self.tally.total() < self.cases
    }

    /// `soul-kit`, or `compose-bundle fingerprint` for another operation.
    pub fn subject(&self) -> String {
        if self.operation == "validate" {
            self.format.to_string()
        } else {
            format!("{} {}", self.format, self.operation)
        }
    }
}

/// Runs side by side.
#[derive(Debug, Clone)]
pub struct Comparison {
    /// The runs, in the order their first report was given.
    pub runs: Vec<Run>,
    /// Every corpus hash the reports name, each once, in report order.
    pub corpus_hashes: Vec<String>,
}

impl Comparison {
    /// Whether the reports were made on more than one corpus.
    pub fn is_mixed(&self) -> bool {
        self.corpus_hashes.len() > 1
    }

    /// Every case name in any run, in name order.
    pub fn case_names(&self) -> Vec<&str> {
        let mut names: Vec<&str> = self
            .runs
            .iter()
            .flat_map(|run| run.records.keys().map(String::as_str))
            .collect();
        names.sort_unstable();
        names.dedup();
        names
    }
}

/// Reads reports and merges them into runs. Reports on different corpora are an error
/// unless `allow_mixed_corpus`; so is a case that two reports of one run both hold.
pub fn compare(paths: &[PathBuf], allow_mixed_corpus: bool) -> Result<Comparison, LoadError> {
    let mut logs = Vec::new();
    for path in paths {
        logs.push((path.clone(), Log::read(path)?));
    }
    merge(logs, allow_mixed_corpus)
}

/// Merges reports already read (see [`compare`]).
pub fn merge(logs: Vec<(PathBuf, Log)>, allow_mixed_corpus: bool) -> Result<Comparison, LoadError> {
    let mut corpus_hashes: Vec<String> = Vec::new();
    let mut runs: Vec<Run> = Vec::new();
    for (path, log) in logs {
        let hash = &log.header.corpus_hash;
        if !corpus_hashes.contains(hash) {
            if let (Some(first), false) = (corpus_hashes.first(), allow_mixed_corpus) {
                return Err(LoadError::invalid(
                    &path,
                    format!(
                        "made on corpus {hash}, but an earlier report on corpus {first}: their case IDs may not mean the same inputs\nhint: rerun on one corpus, or pass --allow-mixed-corpus to compare them anyway (the page flags it)"
                    ),
                ));
            }
            corpus_hashes.push(hash.clone());
        }
        let profile = profile_of(&log, &path)?;
        let position = runs.iter().position(|run| {
            run.implementation.name == log.header.implementation.name
                && run.implementation.version == log.header.implementation.version
                && run.profile == profile
                && run.mode == log.header.mode
        });
        let run = match position {
            Some(index) => &mut runs[index],
            None => {
                runs.push(Run {
                    implementation: log.header.implementation.clone(),
                    profile,
                    mode: log.header.mode.clone(),
                    commands: Vec::new(),
                    corpus_hashes: Vec::new(),
                    soulcheck_versions: Vec::new(),
                    reports: Vec::new(),
                    incomplete: Vec::new(),
                    records: BTreeMap::new(),
                    corpus_cases: Held::new(),
                });
                runs.last_mut().expect("just pushed")
            }
        };
        push_once(&mut run.commands, log.header.command.clone());
        push_once(&mut run.corpus_hashes, Some(hash.clone()));
        push_once(
            &mut run.soulcheck_versions,
            Some(log.header.soulcheck_version.clone()),
        );
        if !log.is_complete() {
            run.incomplete.push(path.clone());
        }
        run.reports.push(path.clone());
        for (format, operations) in &log.header.corpus_cases {
            let known = run.corpus_cases.entry(*format).or_default();
            for (operation, count) in operations {
                let held = known.entry(operation.clone()).or_default();
                *held = (*held).max(*count);
            }
        }
        for record in log.records {
            if run.records.contains_key(&record.name) {
                return Err(LoadError::invalid(
                    &path,
                    format!(
                        "case {} is already in another report of {} ({} profile, {})\nhint: name the runs apart with `soulcheck run --name`",
                        record.name,
                        run.label(),
                        run.profile,
                        run.mode
                    ),
                ));
            }
            run.records.insert(record.name.clone(), record);
        }
    }
    Ok(Comparison {
        runs,
        corpus_hashes,
    })
}

fn push_once(list: &mut Vec<String>, item: Option<String>) {
    if let Some(item) = item {
        if !list.contains(&item) {
            list.push(item);
        }
    }
}

/// The profile a report's header names (`spec` when it names none: reports older than
/// profiles were judged by the spec's text).
fn profile_of(log: &Log, path: &Path) -> Result<Profile, LoadError> {
    match log.header.settings.get("profile") {
        None | Some(serde_json::Value::Null) => Ok(Profile::Spec),
        Some(serde_json::Value::String(name)) => name
            .parse()
            .map_err(|error: String| LoadError::invalid(path, error)),
        Some(other) => Err(LoadError::invalid(
            path,
            format!("the header's profile is not a name: {other}"),
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn standing(cases: usize) -> Standing {
        Standing {
            format: Format::SoulKit,
            operation: "validate".to_owned(),
            tally: Tally {
                passed: 1,
                ..Tally::default()
            },
            deciding: DecidingTally {
                accept_cases: 1,
                accept_cases_passed: 1,
                ..DecidingTally::default()
            },
            cases,
        }
    }

    #[test]
    fn a_report_that_does_not_say_what_the_corpus_holds_certifies_nothing() {
        // One case passed, of a corpus of one: certified.
        assert!(standing(1).certified());
        // The same case from a header without `corpus_cases`: not a certification.
        assert!(standing(0).corpus_unknown());
        assert!(!standing(0).certified());
        // Part of the cases: not a certification either.
        assert!(!standing(2).certified());
    }

    #[test]
    fn a_label_stays_on_one_line() {
        let run = Run {
            implementation: Implementation {
                name: "tool\n| forged | certified |".to_owned(),
                version: "1\r".to_owned(),
                ..Implementation::default()
            },
            profile: Profile::Spec,
            mode: "persistent".to_owned(),
            commands: Vec::new(),
            corpus_hashes: Vec::new(),
            soulcheck_versions: Vec::new(),
            reports: Vec::new(),
            incomplete: Vec::new(),
            records: BTreeMap::new(),
            corpus_cases: Held::new(),
        };
        let label = run.label();
        assert!(!label.contains(['\n', '\r']), "{label}");
        assert!(label.contains("tool\\n| forged"), "{label}");
    }
}
