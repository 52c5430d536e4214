//! Summaries of a run: per format, per rule, and the failures with expected vs actual.

use std::collections::BTreeMap;
use std::fmt::Write as _;

use serde::Serialize;

use crate::catalogue::Catalogue;
use crate::corpus::Case;
use crate::format::Format;
use crate::runner::CaseResult;

/// Pass / fail / skip counts.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
pub struct Tally {
    /// Cases that passed.
    pub passed: usize,
    /// Cases that failed (any non-pass, non-skip judgement).
    pub failed: usize,
    /// Cases the validator declined.
    pub skipped: usize,
}

impl Tally {
    fn add(&mut self, result: &CaseResult) {
        if result.judgement.is_pass() {
            self.passed += 1;
        } else if result.judgement.is_skip() {
            self.skipped += 1;
        } else {
            self.failed += 1;
        }
    }

    /// Total cases counted.
    pub fn total(&self) -> usize {
        self.passed + self.failed + self.skipped
    }
}

/// The summary of one run.
#[derive(Debug, Clone, Default, Serialize)]
pub struct Summary {
    /// All cases.
    pub overall: Tally,
    /// Per format.
    pub formats: BTreeMap<Format, Tally>,
    /// Per rule: every case naming the rule counts for it.
    pub rules: BTreeMap<String, Tally>,
}

impl Summary {
    /// Tallies results; `cases` is the list the results' indices refer to.
    pub fn new(cases: &[&Case], results: &[CaseResult]) -> Summary {
        let mut summary = Summary::default();
        for result in results {
            let case = cases[result.index];
            summary.overall.add(result);
            summary.formats.entry(case.format).or_default().add(result);
            for rule in case.all_rules() {
                summary
                    .rules
                    .entry(rule.to_owned())
                    .or_default()
                    .add(result);
            }
        }
        summary
    }

    /// Whether every case passed (skips count as not passing).
    pub fn all_passed(&self) -> bool {
        self.overall.failed == 0 && self.overall.skipped == 0
    }

    /// Human-readable text: failures first, then per-format and per-rule tables.
    pub fn render(&self, cases: &[&Case], results: &[CaseResult], catalogue: &Catalogue) -> String {
        let mut out = String::new();
        let failures: Vec<&CaseResult> = results
            .iter()
            .filter(|result| !result.judgement.is_pass())
            .collect();
        if !failures.is_empty() {
            let _ = writeln!(out, "failures:");
            for result in &failures {
                let case = cases[result.index];
                let _ = writeln!(
                    out,
                    "  {} [{}] {}",
                    result.name,
                    result.judgement.name(),
                    case.description
                );
                for line in result.judgement.explain().lines() {
                    let _ = writeln!(out, "      {line}");
                }
            }
            let _ = writeln!(out);
        }
        let _ = writeln!(
            out,
            "{:<52} {:>6} {:>6} {:>7}",
            "format", "passed", "failed", "skipped"
        );
        for (format, tally) in &self.formats {
            let _ = writeln!(
                out,
                "{:<52} {:>6} {:>6} {:>7}",
                format.name(),
                tally.passed,
                tally.failed,
                tally.skipped
            );
        }
        let _ = writeln!(out);
        let _ = writeln!(
            out,
            "{:<52} {:>6} {:>6} {:>7}  level",
            "rule", "passed", "failed", "skipped"
        );
        for (rule, tally) in &self.rules {
            let level = catalogue
                .get(rule)
                .map_or("?".to_owned(), |rule| rule.level.to_string());
            let _ = writeln!(
                out,
                "{rule:<52} {:>6} {:>6} {:>7}  {level}",
                tally.passed, tally.failed, tally.skipped
            );
        }
        let _ = writeln!(out);
        let _ = writeln!(
            out,
            "{} passed, {} failed, {} skipped",
            self.overall.passed, self.overall.failed, self.overall.skipped
        );
        out
    }
}
