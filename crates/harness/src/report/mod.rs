//! Reports of a run: the human summary (per format, per rule, failures with expected vs
//! actual) here, and the machine formats in submodules: a JSON Lines record of the run
//! ([`jsonl`]), JUnit XML ([`junit`]), a Markdown summary for CI step summaries
//! ([`markdown`]), badge endpoints ([`badge`]), certificates per format ([`certificate`])
//! and the difference between two runs ([`diff`]).

pub mod badge;
pub mod certificate;
pub mod diff;
pub mod jsonl;
pub mod junit;
pub mod markdown;

use std::collections::BTreeMap;
use std::fmt::Write as _;

use serde::{Deserialize, Serialize};

use crate::catalogue::Catalogue;
use crate::corpus::Case;
use crate::runner::{CaseResult, Judgement};
use soulcheck_vocabulary::Format;

/// Pass / fail / skip counts.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Tally {
    /// Cases that passed.
    pub passed: usize,
    /// Cases that failed (any non-pass, non-skip judgement).
    pub failed: usize,
    /// Cases the validator declined.
    pub skipped: usize,
    /// Failures the expectations file lists.
    pub expected_failures: usize,
}

impl Tally {
    fn add(&mut self, result: &CaseResult) {
        match &result.judgement {
            Judgement::Pass => self.passed += 1,
            Judgement::Skipped { .. } => self.skipped += 1,
            Judgement::ExpectedFailure { .. } => self.expected_failures += 1,
            _ => self.failed += 1,
        }
    }

    /// Total cases counted.
    pub fn total(&self) -> usize {
        self.passed + self.failed + self.skipped + self.expected_failures
    }

    /// Percentage of attempted (not skipped) cases that passed, rounded down.
    pub fn percent_passing(&self) -> usize {
        let attempted = self.total() - self.skipped;
        (self.passed * 100).checked_div(attempted).unwrap_or(0)
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

    /// Whether no case failed (expected failures and skips do not count as failures).
    pub fn no_failures(&self) -> bool {
        self.overall.failed == 0
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
        if self.overall.expected_failures > 0 {
            let _ = writeln!(
                out,
                "{} expected failures (listed in the expectations file)",
                self.overall.expected_failures
            );
        }
        let _ = writeln!(
            out,
            "{} passed, {} failed, {} skipped",
            self.overall.passed, self.overall.failed, self.overall.skipped
        );
        out
    }
}
