//! `soulcheck diff OLD NEW`: the cases whose result changed between two JSON Lines reports.

use std::collections::BTreeMap;
use std::fmt::Write as _;

use super::jsonl::Log;

/// One changed case.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Change {
    /// `<format>/<case-id>`.
    pub name: String,
    /// Result in the old report (`absent` when the case was not there).
    pub old: String,
    /// Result in the new report.
    pub new: String,
}

impl Change {
    /// Whether the case passed before and does not now. A case that passed and is absent
    /// from the new report is one: a run that judged less (an empty report, a narrower
    /// selection, a case retired) must not read as no change. When the corpus changed,
    /// `render` says so beside it.
    pub fn is_regression(&self) -> bool {
        self.old == "pass" && self.new != "pass"
    }
}

/// The changed cases, by name.
pub fn changes(old: &Log, new: &Log) -> Vec<Change> {
    let index = |log: &Log| -> BTreeMap<String, String> {
        log.records
            .iter()
            .map(|record| (record.name.clone(), record.result.clone()))
            .collect()
    };
    let (before, after) = (index(old), index(new));
    let mut names: Vec<&String> = before.keys().chain(after.keys()).collect();
    names.sort();
    names.dedup();
    names
        .into_iter()
        .filter_map(|name| {
            let old = before.get(name).map_or("absent", String::as_str);
            let new = after.get(name).map_or("absent", String::as_str);
            (old != new).then(|| Change {
                name: name.clone(),
                old: old.to_owned(),
                new: new.to_owned(),
            })
        })
        .collect()
}

/// Human text: warnings about incomplete or mismatched runs, then one line per change.
pub fn render(old: &Log, new: &Log, changes: &[Change]) -> String {
    let mut out = String::new();
    for (label, log) in [("old", old), ("new", new)] {
        if !log.is_complete() {
            let _ = writeln!(
                out,
                "warning: the {label} report is incomplete (the run was interrupted)"
            );
        }
    }
    if old.header.corpus_hash != new.header.corpus_hash {
        let _ = writeln!(
            out,
            "note: the corpus changed ({} -> {})",
            old.header.corpus_hash, new.header.corpus_hash
        );
    }
    for change in changes {
        let mark = if change.is_regression() {
            "REGRESSION "
        } else {
            ""
        };
        let _ = writeln!(
            out,
            "{mark}{}: {} -> {}",
            change.name, change.old, change.new
        );
    }
    let regressions = changes
        .iter()
        .filter(|change| change.is_regression())
        .count();
    let _ = writeln!(out, "{} changed, {regressions} regressions", changes.len());
    // Case names and results come from the reports, which are untrusted.
    soulcheck_vocabulary::display::visible(&out).into_owned()
}
