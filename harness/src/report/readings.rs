//! Open readings: the questions the specs leave open, answered by the implementations.
//!
//! Every case the corpus marks implementation-defined in the spec profile asks the spec a
//! question its text does not settle (a repeated key, a typed scalar where a string is
//! named, a bound). The cases are grouped by the rule whose reading they ask about (a
//! case's first rule), with the catalogue's requirement and decision for that rule, and
//! each run of the spec profile gives its answer per case. Spec authors settle a question
//! with this in hand; an implementer sees which reading the tools already take.
//!
//! The same data feeds the Markdown page (`soulcheck report readings`, committed as
//! docs/open-readings.md) and a view of the HTML page ([`super::html`]). Like the
//! scoreboard, it holds nothing that changes between two runs with the same results.

use std::collections::BTreeMap;
use std::fmt::Write as _;

use soulcheck_vocabulary::{Format, Profile, Verdict};

use super::jsonl::Record;
use super::runs::{Comparison, Run};
use super::table_cell as cell;
use crate::catalogue::{Catalogue, Rule};
use crate::corpus::{Case, Corpus, ExpectedVerdict};

/// The open questions of a corpus with the runs' answers.
pub struct Readings<'a> {
    /// The runs judged by the spec profile (the only one with open readings), in the
    /// scoreboard's order.
    pub runs: Vec<&'a Run>,
    /// One group per rule a question is asked under, by format, then rule ID.
    pub groups: Vec<Question<'a>>,
}

/// The cases that ask the spec one rule's open question.
pub struct Question<'a> {
    /// The format of the rule.
    pub format: Format,
    /// The rule's ID.
    pub rule: &'a str,
    /// The rule as the catalogue states it (absent when the catalogue lacks it).
    pub catalogue: Option<&'a Rule>,
    /// The cases, by ID.
    pub cases: Vec<OpenCase<'a>>,
}

/// One implementation-defined case.
pub struct OpenCase<'a> {
    /// The case.
    pub case: &'a Case,
    /// The verdicts a conforming validator may give.
    pub allowed: Vec<Verdict>,
    /// The reference's recorded choice (`not judged` past one of its bounds).
    pub reference: String,
}

/// What one run answered on one case.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub enum Answer {
    /// The run did not judge the case (another format, or a filter).
    NotRun,
    /// A verdict (`accept`, `reject`, `accept-with-warnings`).
    Verdict(String),
    /// No verdict: the result's name (`crash`, `timeout`, `skipped`, ...).
    Result(String),
}

impl Answer {
    /// Of a run's record of the case, if any.
    pub fn of(record: Option<&Record>) -> Answer {
        let Some(record) = record else {
            return Answer::NotRun;
        };
        match record.result.as_str() {
            // Declined (past one of its bounds): no verdict to show, whatever the result.
            "skipped" => Answer::Result("not judged".to_owned()),
            "pass" if record.actual.is_none() => Answer::Result("not judged".to_owned()),
            "crash" | "timeout" | "protocol-error" | "interrupted" | "input-error" => {
                Answer::Result(record.result.clone())
            }
            _ => match record.actual_verdict() {
                Some(verdict) => Answer::Verdict(verdict),
                None => Answer::Result(record.result.clone()),
            },
        }
    }

    /// As a table cell shows it.
    pub fn label(&self) -> String {
        match self {
            Answer::NotRun => "not run".to_owned(),
            Answer::Verdict(verdict) => verdict.clone(),
            Answer::Result(result) => result.clone(),
        }
    }
}

impl<'a> Readings<'a> {
    /// The open questions of `corpus`, answered by the spec-profile runs of `comparison`.
    pub fn collect(
        comparison: &'a Comparison,
        corpus: &'a Corpus,
        catalogue: &'a Catalogue,
    ) -> Readings<'a> {
        let mut runs: Vec<&Run> = comparison
            .runs
            .iter()
            .filter(|run| run.profile == Profile::Spec)
            .collect();
        runs.sort_by(|a, b| {
            (&a.implementation.name, &a.implementation.version, &a.mode).cmp(&(
                &b.implementation.name,
                &b.implementation.version,
                &b.mode,
            ))
        });
        let mut groups: BTreeMap<(Format, &str), Vec<OpenCase>> = BTreeMap::new();
        for case in &corpus.cases {
            let ExpectedVerdict::ImplementationDefined { allowed, reference } =
                case.expectation(Profile::Spec).verdict
            else {
                continue;
            };
            let Some(rule) = case.rules.first() else {
                continue;
            };
            let reference = if case.reference_not_judged {
                "not judged".to_owned()
            } else {
                reference.to_string()
            };
            groups
                .entry((case.format, rule.as_str()))
                .or_default()
                .push(OpenCase {
                    case,
                    allowed,
                    reference,
                });
        }
        let groups = groups
            .into_iter()
            .map(|((format, rule), mut cases)| {
                cases.sort_by(|a, b| a.case.id.cmp(&b.case.id));
                Question {
                    format,
                    rule,
                    catalogue: catalogue.get(rule),
                    cases,
                }
            })
            .collect();
        Readings { runs, groups }
    }

    /// Each run's answer to a case.
    pub fn answers(&self, case: &Case) -> Vec<Answer> {
        let name = case.name();
        self.runs
            .iter()
            .map(|run| Answer::of(run.records.get(&name)))
            .collect()
    }

    /// How many cases in all.
    pub fn cases(&self) -> usize {
        self.groups.iter().map(|group| group.cases.len()).sum()
    }
}

/// docs/open-readings.md: the questions by format and rule, each with its cases and every
/// spec-profile run's answer.
pub fn render(readings: &Readings) -> String {
    let mut out = String::new();
    out.push_str("# Open readings\n\n");
    out.push_str(
        "<!-- Generated by `soulcheck report readings` from report.jsonl files; do not edit. -->\n\n",
    );
    let labels: Vec<String> = readings.runs.iter().map(|run| cell(&run.label())).collect();
    let _ = writeln!(
        out,
        "The questions the specs leave open, answered by the implementations. Each of the {} cases below is **implementation-defined** in the spec profile: the spec's text admits more than one verdict, and a reading that a public implementation or a mainstream JSON, YAML or CommonMark reader really takes is one of them, so any allowed verdict conforms. The cases are grouped by the rule whose reading they ask about (a case's first rule), under the catalogue's requirement and the decision the reference takes. **reference** is the reference's recorded choice (the strict profile's definite verdict; `not judged` past one of its own bounds); then each implementation's answer in its spec-profile run ({}): `not run` where it did not judge the case (another format, or inputs it does not read). A spec that settles a question moves its cases to a definite verdict (CHANGELOG.md says when).\n",
        readings.cases(),
        labels.join(", ")
    );
    out.push_str("| format | rule | cases | answers (all implementations) |\n");
    out.push_str("| --- | --- | ---: | --- |\n");
    for group in &readings.groups {
        let mut tally: BTreeMap<String, usize> = BTreeMap::new();
        for open in &group.cases {
            for answer in readings.answers(open.case) {
                if answer != Answer::NotRun {
                    *tally.entry(answer.label()).or_default() += 1;
                }
            }
        }
        let tally: Vec<String> = tally
            .iter()
            .map(|(answer, count)| format!("{answer} {count}"))
            .collect();
        let _ = writeln!(
            out,
            "| {} | [`{}`](#{}) | {} | {} |",
            group.format,
            cell(group.rule),
            anchor(group.rule),
            group.cases.len(),
            tally.join(", ")
        );
    }
    let mut format = None;
    for group in &readings.groups {
        if format != Some(group.format) {
            format = Some(group.format);
            let _ = writeln!(out, "\n## {}", group.format);
        }
        let _ = writeln!(out, "\n### {}\n", cell(group.rule));
        if let Some(rule) = group.catalogue {
            let _ = writeln!(
                out,
                "{} ({}; {})\n",
                cell(&rule.requirement),
                rule.level,
                cell(&rule.source)
            );
            if let Some(decision) = &rule.decision {
                let _ = writeln!(out, "Decision: {}\n", cell(decision));
            }
        }
        let _ = writeln!(
            out,
            "| case | document | allowed | reference | {} |",
            labels.join(" | ")
        );
        let _ = writeln!(
            out,
            "| --- | --- | --- | --- |{}",
            " --- |".repeat(labels.len())
        );
        for open in &group.cases {
            let allowed: Vec<String> = open.allowed.iter().map(ToString::to_string).collect();
            let answers: Vec<String> = readings
                .answers(open.case)
                .iter()
                .map(|answer| cell(&answer.label()))
                .collect();
            let _ = writeln!(
                out,
                "| `{}` | {} | {} | {} | {} |",
                cell(&open.case.id),
                cell(&open.case.description),
                allowed.join(" or "),
                cell(&open.reference),
                answers.join(" | ")
            );
        }
    }
    out
}

/// GitHub's heading anchor for a rule ID heading (lowercase, dots dropped).
fn anchor(rule: &str) -> String {
    rule.chars()
        .filter(|c| c.is_alphanumeric() || *c == '-' || *c == '_')
        .flat_map(char::to_lowercase)
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_cell_stays_one_cell_on_one_line() {
        assert_eq!(cell("a | b\nc"), "a \\| b\\nc");
    }

    #[test]
    fn anchors_follow_githubs_rule_for_ids() {
        assert_eq!(
            anchor("skill-package.head.name.type"),
            "skill-packageheadnametype"
        );
    }
}
