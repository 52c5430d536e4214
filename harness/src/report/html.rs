//! One self-contained HTML page comparing any number of runs ([`super::runs`]): who ran
//! what on which corpus, a matrix of formats by implementations (certified or not, cases
//! passed, the diagnostics grade), a row per rule with its cases passed per
//! implementation, the open readings (each question the spec leaves open, with every
//! implementation's answer), and a row per case that opens on its input, what it expects and what
//! each implementation answered and printed. Filters by format, rule, result and
//! implementation run in the page.
//!
//! The page works from `file://` with nothing else: its style and script are inline, it
//! loads nothing, and its Content-Security-Policy allows no network and no script or
//! style but its own (by hash), so even markup that slipped through escaping could not
//! run or fetch. Everything taken from a report or the corpus is escaped: a validator's
//! output is hostile.
//!
//! The page is bounded ([`Limits`]): each output stream and each input is cut (saying
//! so, with its full size), and case details stop being added when the page reaches its
//! size cap, cases on which some implementation did not pass first. The page says what
//! it left out.

use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write as _;
use std::path::Path;

use base64::Engine as _;
use sha2::{Digest, Sha256};
use soulcheck_vocabulary::{Format, Profile};

use super::jsonl::Record;
use super::readings::{Answer, Readings};
use super::runs::{Certification, Comparison, Run, Standing};
use crate::catalogue::Catalogue;
use crate::corpus::{Case, Corpus, ExpectedDiagnostic};
use crate::validator::{Captured, Diagnostic, Evidence};

/// How much of what the page shows.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Limits {
    /// Bytes of each output stream shown per case and implementation (reports keep
    /// 8 KiB).
    pub evidence_bytes: usize,
    /// Bytes of a case's input shown (for a directory, of all its files together).
    pub input_bytes: usize,
    /// Diagnostics listed per case and implementation.
    pub diagnostics: usize,
    /// Bytes of the whole page past which no more case details are added.
    pub page_bytes: usize,
}

impl Default for Limits {
    fn default() -> Limits {
        Limits {
            evidence_bytes: 4 * 1024,
            input_bytes: 16 * 1024,
            diagnostics: 50,
            page_bytes: 8 * 1024 * 1024,
        }
    }
}

/// What a page is made from.
#[derive(Debug, Clone, Copy)]
pub struct Page<'a> {
    /// The runs.
    pub comparison: &'a Comparison,
    /// The corpus the inputs and descriptions are read from, by case ID.
    pub corpus: &'a Corpus,
    /// That corpus's content hash (flagged when the reports name another).
    pub corpus_hash: &'a str,
    /// Its catalogue: rule levels for the certificates and the rule rows.
    pub catalogue: &'a Catalogue,
    /// What to cut.
    pub limits: Limits,
}

/// Renders the page.
pub fn render(page: &Page) -> String {
    let comparison = page.comparison;
    let runs = &comparison.runs;
    let limits = &page.limits;
    let by_name: BTreeMap<String, &Case> = page
        .corpus
        .cases
        .iter()
        .map(|case| (case.name(), case))
        .collect();
    let rows = case_rows(comparison, page.corpus);

    // Everything but the case details is laid out first and measured, so the details
    // get exactly the room the cap leaves.
    let style = style(runs.len());
    let head = head(runs, &style);
    let mut body = String::new();
    header(&mut body, page);
    body.push_str(&filters(comparison, &rows));
    matrix(&mut body, comparison, page.catalogue);
    rules(&mut body, comparison, page.catalogue, &by_name);
    readings(&mut body, page);
    body.push_str(&cases_head(&rows, runs));
    let summaries: Vec<String> = rows.iter().map(|row| case_summary(row, runs)).collect();
    let omitted: Vec<String> = rows
        .iter()
        .map(|row| {
            format!(
                "<div class=\"detail\"><p class=\"note\">Details left out: the page reached its size cap of {}. The report.jsonl files hold every record; <code>soulcheck cases export --case {}</code> writes the input.</p></div>\n",
                size(limits.page_bytes),
                escape(&row.name)
            )
        })
        .collect();
    let tail = format!(
        "</section>\n<footer><p>Written by soulcheck {}. Shown per case: each output stream up to {} (reports keep 8 KiB), the input up to {}, up to {} diagnostics per implementation; the page stops adding case details at {}. It loads nothing: open it from disk.</p></footer>\n<script>{SCRIPT}</script>\n</body>\n</html>\n",
        escape(env!("CARGO_PKG_VERSION")),
        size(limits.evidence_bytes),
        size(limits.input_bytes),
        limits.diagnostics,
        size(limits.page_bytes)
    );
    let fixed = head.len()
        + body.len()
        + tail.len()
        + NOTES_BYTES
        + summaries.iter().map(String::len).sum::<usize>()
        + omitted.iter().map(String::len).sum::<usize>()
        + rows.len() * "</details>\n".len();
    let mut budget = limits.page_bytes.saturating_sub(fixed);
    let mut order: Vec<usize> = (0..rows.len()).collect();
    // Cases some implementation did not pass are the ones a reader opens: they get the
    // room first.
    order.sort_by_key(|&index| (rows[index].all_pass(), index));
    let mut details: Vec<Option<String>> = vec![None; rows.len()];
    let mut left_out = 0;
    for index in order {
        let detail = case_detail(&rows[index], runs, page);
        // A detail replaces its left-out line.
        let room = budget + omitted[index].len();
        if detail.len() <= room {
            budget = room - detail.len();
            details[index] = Some(detail);
        } else {
            left_out += 1;
        }
    }

    let mut notes = String::new();
    if left_out > 0 {
        let _ = writeln!(
            notes,
            "<p class=\"warning\">This page is capped at {}: the details of {left_out} of {} cases are left out (cases every implementation passed first).</p>",
            size(limits.page_bytes),
            rows.len()
        );
    }
    let mut out = String::with_capacity(fixed);
    out.push_str(&head);
    out.push_str(&body.replacen("<!--notes-->", &notes, 1));
    for ((summary, detail), omitted) in summaries.iter().zip(details).zip(&omitted) {
        out.push_str(summary);
        out.push_str(detail.as_deref().unwrap_or(omitted));
        out.push_str("</details>\n");
    }
    out.push_str(&tail);
    out
}

/// Bytes set aside for the notes at the top (what the page left out).
const NOTES_BYTES: usize = 512;

/// The document's head: the policy that admits only this page's script and style, the
/// title, the style; and the body's opening tag.
fn head(runs: &[Run], style: &str) -> String {
    let mut out = String::new();
    out.push_str("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n");
    out.push_str("<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n");
    let _ = writeln!(
        out,
        "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; script-src 'sha256-{}'; style-src 'sha256-{}'; base-uri 'none'; form-action 'none'\">",
        hash(SCRIPT),
        hash(style)
    );
    let _ = writeln!(
        out,
        "<title>soulcheck: {}</title>",
        escape(
            &runs
                .iter()
                .map(|run| short_label(run, runs))
                .collect::<Vec<_>>()
                .join(" vs ")
        )
    );
    let _ = write!(out, "<style>{style}</style>\n</head>\n");
    let _ = writeln!(out, "<body data-runs=\"{}\">", runs.len());
    out
}

/// The case list's heading and column titles.
fn cases_head(rows: &[CaseRow], runs: &[Run]) -> String {
    let mut out = String::new();
    let _ = writeln!(
        out,
        "<section id=\"cases\"><h2>Cases</h2><p><output id=\"shown\">{} cases</output>. Open a case for its input, what it expects and what each implementation answered and printed.</p>",
        rows.len()
    );
    let _ = writeln!(
        out,
        "<div class=\"case-head\"><span>case</span><span>expected</span>{}</div>",
        runs.iter()
            .enumerate()
            .map(|(index, run)| format!(
                "<span class=\"run-{index}\" title=\"{}\">{}</span>",
                escape(&run_title(run)),
                escape(&short_label(run, runs))
            ))
            .collect::<String>()
    );
    out
}

/// One case as the page lists it: its corpus entry, if the corpus has it, and each
/// run's record, if the run has one.
struct CaseRow<'a> {
    name: String,
    format: Format,
    case: Option<&'a Case>,
    records: Vec<Option<&'a Record>>,
}

impl CaseRow<'_> {
    /// Whether every run that has the case passed it.
    fn all_pass(&self) -> bool {
        self.records
            .iter()
            .flatten()
            .all(|record| record.result == "pass")
    }

    /// The rules the case names: all of them (its diagnostics' too) when the corpus has
    /// it, else those its records name.
    fn rules(&self) -> BTreeSet<&str> {
        match self.case {
            Some(case) => case.all_rules(),
            None => self
                .records
                .iter()
                .flatten()
                .flat_map(|record| record.rules.iter().map(String::as_str))
                .collect(),
        }
    }
}

/// The cases of the runs, in corpus order (format, then ID), then any the corpus lacks.
fn case_rows<'a>(comparison: &'a Comparison, corpus: &'a Corpus) -> Vec<CaseRow<'a>> {
    let names: BTreeSet<&str> = comparison.case_names().into_iter().collect();
    let record_of = |name: &str| -> Vec<Option<&'a Record>> {
        comparison
            .runs
            .iter()
            .map(|run| run.records.get(name))
            .collect()
    };
    let mut rows = Vec::new();
    let mut seen = BTreeSet::new();
    for case in &corpus.cases {
        let name = case.name();
        if names.contains(name.as_str()) {
            seen.insert(name.clone());
            rows.push(CaseRow {
                records: record_of(&name),
                name,
                format: case.format,
                case: Some(case),
            });
        }
    }
    for name in names {
        if seen.contains(name) {
            continue;
        }
        let records = record_of(name);
        let format = records
            .iter()
            .flatten()
            .map(|record| record.format)
            .next()
            .unwrap_or(Format::ALL[0]);
        rows.push(CaseRow {
            name: name.to_owned(),
            format,
            case: None,
            records,
        });
    }
    rows
}

/// The page's title block: the corpus, the runs, and anything that makes a comparison
/// doubtful.
fn header(out: &mut String, page: &Page) {
    let comparison = page.comparison;
    let runs = &comparison.runs;
    // A run is an implementation in one profile and mode: one implementation may have
    // several.
    let implementations: BTreeSet<(&str, &str)> = runs
        .iter()
        .map(|run| {
            (
                run.implementation.name.as_str(),
                run.implementation.version.as_str(),
            )
        })
        .collect();
    let plural = |count: usize, word: &str| {
        if count == 1 {
            format!("1 {word}")
        } else {
            format!("{count} {word}s")
        }
    };
    let _ = writeln!(
        out,
        "<header><h1>soulcheck: {} of {} compared</h1>",
        plural(runs.len(), "run"),
        plural(implementations.len(), "implementation")
    );
    let hashes: Vec<String> = comparison
        .corpus_hashes
        .iter()
        .map(|hash| format!("<code>{}</code>", escape(hash)))
        .collect();
    let _ = writeln!(out, "<p class=\"corpus\">Corpus {}</p>", hashes.join(", "));
    if comparison.is_mixed() {
        out.push_str("<p class=\"warning\">The reports were made on different corpora (allowed with --allow-mixed-corpus): a case ID may not mean the same input in every column, and the inputs below come from one corpus only.</p>\n");
    }
    if !comparison
        .corpus_hashes
        .iter()
        .any(|hash| hash == page.corpus_hash)
    {
        let _ = writeln!(
            out,
            "<p class=\"warning\">The inputs, descriptions and rule levels below come from corpus <code>{}</code>, which no report names.</p>",
            escape(page.corpus_hash)
        );
    }
    // Filled in last: what the page left out is known only once the cases are laid out.
    out.push_str("<!--notes-->");
    out.push_str("<table class=\"runs\"><thead><tr><th>#</th><th>implementation</th><th>version</th><th>profile</th><th>mode</th><th>command</th><th>cases</th><th>reports</th></tr></thead><tbody>\n");
    for (index, run) in runs.iter().enumerate() {
        let implementation = &run.implementation;
        let mut name = escape(&implementation.name);
        if !implementation.language.is_empty() {
            let _ = write!(
                name,
                " <small>({})</small>",
                escape(&implementation.language)
            );
        }
        let commands = if run.commands.is_empty() {
            "<em>in process</em>".to_owned()
        } else {
            run.commands
                .iter()
                .map(|command| format!("<code>{}</code>", escape(command)))
                .collect::<Vec<_>>()
                .join("<br>")
        };
        let reports = run
            .reports
            .iter()
            .map(|path| {
                let mark = if run.incomplete.contains(path) {
                    " <strong class=\"bad\">incomplete: the run was interrupted</strong>"
                } else {
                    ""
                };
                format!("<code>{}</code>{mark}", escape(&path.display().to_string()))
            })
            .collect::<Vec<_>>()
            .join("<br>");
        let _ = writeln!(
            out,
            "<tr class=\"run-{index}\"><td>{}</td><td>{name}</td><td>{}</td><td>{}</td><td>{}</td><td>{commands}</td><td class=\"num\">{}</td><td>{reports}</td></tr>",
            index + 1,
            escape(&implementation.version),
            run.profile,
            escape(&run.mode),
            run.records.len()
        );
    }
    out.push_str("</tbody></table></header>\n");
}

/// The filter controls.
fn filters(comparison: &Comparison, rows: &[CaseRow]) -> String {
    let mut out = String::new();
    out.push_str("<form id=\"filters\" class=\"filters\"><noscript><p>The filters need JavaScript; without it everything is shown.</p></noscript>\n");
    let formats: BTreeSet<Format> = rows.iter().map(|row| row.format).collect();
    out.push_str("<label>format <select id=\"f-format\"><option value=\"\">all formats</option>");
    for format in &formats {
        let _ = write!(out, "<option value=\"{format}\">{format}</option>");
    }
    out.push_str("</select></label>\n");
    out.push_str("<label>rule <input id=\"f-rule\" list=\"rule-list\" placeholder=\"rule ID or part of one\" autocomplete=\"off\"></label><datalist id=\"rule-list\">");
    let rules: BTreeSet<&str> = rows.iter().flat_map(|row| row.rules()).collect();
    for rule in rules {
        let _ = write!(out, "<option value=\"{}\">", escape(rule));
    }
    out.push_str("</datalist>\n");
    out.push_str("<label>result <select id=\"f-result\"><option value=\"\">any result</option><option value=\"failing\">not passed</option><option value=\"disagree\">implementations disagree</option>");
    let results: BTreeSet<&str> = comparison
        .runs
        .iter()
        .flat_map(|run| run.records.values().map(|record| record.result.as_str()))
        .collect();
    for result in results {
        let _ = write!(out, "<option value=\"{0}\">{0}</option>", escape(result));
    }
    out.push_str("</select></label>\n");
    out.push_str("<label>implementation <select id=\"f-run\"><option value=\"\">all implementations</option>");
    for (index, run) in comparison.runs.iter().enumerate() {
        let _ = write!(
            out,
            "<option value=\"{index}\">{}</option>",
            escape(&short_label(run, &comparison.runs))
        );
    }
    out.push_str(
        "</select></label>\n<button type=\"button\" id=\"f-reset\">show all</button></form>\n",
    );
    out
}

/// Formats (and operations) by implementations.
fn matrix(out: &mut String, comparison: &Comparison, catalogue: &Catalogue) {
    let runs = &comparison.runs;
    let standings: Vec<Vec<Standing>> = runs.iter().map(|run| run.standings(catalogue)).collect();
    let mut subjects: Vec<(Format, bool, String)> = standings
        .iter()
        .flatten()
        .map(|standing| {
            (
                standing.format,
                standing.operation != "validate",
                standing.operation.clone(),
            )
        })
        .collect();
    subjects.sort();
    subjects.dedup();
    out.push_str("<section id=\"matrix\"><h2>Formats by implementation</h2>\n<p>Certified: the run judged every case of the format and operation, accepted every case that expects a definite acceptance (whatever the level of its rules) and passed every other must-level case, on its verdict in the run's profile (should- and may-level rejections and diagnostics never decide it); a run that judged part of them is not a certification. Passed: cases that passed of those run. Diagnostics: the grade over the cases, then how many got each grade (exact / partial / wrong / none).</p>\n");
    out.push_str("<table class=\"matrix\"><thead><tr><th>format</th>");
    for (index, run) in runs.iter().enumerate() {
        let _ = write!(
            out,
            "<th class=\"run-{index}\" title=\"{}\">{}<br><small>{} profile, {}</small></th>",
            escape(&run_title(run)),
            escape(&run.label()),
            run.profile,
            escape(&run.mode)
        );
    }
    out.push_str("</tr></thead><tbody>\n");
    for (format, _, operation) in &subjects {
        let subject = if operation == "validate" {
            format.to_string()
        } else {
            format!("{format} <small>{}</small>", escape(operation))
        };
        let _ = write!(
            out,
            "<tr class=\"subject\" data-format=\"{format}\"><th>{subject}</th>"
        );
        for (index, standings) in standings.iter().enumerate() {
            let standing = standings
                .iter()
                .find(|standing| standing.format == *format && standing.operation == *operation);
            let _ = write!(
                out,
                "<td class=\"cell run-{index}\" data-run=\"{index}\" data-format=\"{format}\" data-operation=\"{}\">",
                escape(operation)
            );
            match standing {
                None => out.push_str("<span class=\"cert none\">not run</span>"),
                Some(standing) => {
                    let (class, status) = match standing.certification() {
                        Certification::CorpusUnknown => (
                            "none",
                            "not a certification (the corpus's size is not in the report)",
                        ),
                        Certification::Partial => {
                            ("none", "not a certification (part of the cases)")
                        }
                        Certification::Certified => ("yes", "certified"),
                        Certification::NoDecidingCase | Certification::NotCertified => {
                            ("no", "not certified")
                        }
                    };
                    let tally = &standing.tally;
                    let grades = tally.diagnostics;
                    let _ = write!(
                        out,
                        "<span class=\"cert {class}\">{status}</span><br>{} of {} passed<br><small>accept {} of {}, other must-level {} of {}</small><br>diagnostics: <span class=\"grade {}\">{}</span> <small>({} / {} / {} / {})</small>",
                        tally.passed,
                        tally.total(),
                        standing.deciding.accept_cases_passed,
                        standing.deciding.accept_cases,
                        standing.deciding.must_cases_passed,
                        standing.deciding.must_cases,
                        grades.overall(),
                        grades.overall(),
                        grades.exact,
                        grades.partial,
                        grades.wrong,
                        grades.none
                    );
                    let others = tally.failed + tally.skipped + tally.expected_failures;
                    if others > 0 {
                        let _ = write!(
                            out,
                            "<br><small>{} failed, {} skipped, {} expected failures</small>",
                            tally.failed, tally.skipped, tally.expected_failures
                        );
                    }
                }
            }
            out.push_str("</td>");
        }
        out.push_str("</tr>\n");
    }
    out.push_str("</tbody></table></section>\n");
}

/// One row per rule: its cases passed per implementation.
fn rules(
    out: &mut String,
    comparison: &Comparison,
    catalogue: &Catalogue,
    by_name: &BTreeMap<String, &Case>,
) {
    let runs = &comparison.runs;
    // rule -> per run (passed, total)
    let mut counts: BTreeMap<&str, Vec<(usize, usize)>> = BTreeMap::new();
    for (index, run) in runs.iter().enumerate() {
        for record in run.records.values() {
            let rules: BTreeSet<&str> = match by_name.get(&record.name) {
                Some(case) => case.all_rules(),
                None => record.rules.iter().map(String::as_str).collect(),
            };
            for rule in rules {
                let entry = counts
                    .entry(rule)
                    .or_insert_with(|| vec![(0, 0); runs.len()]);
                entry[index].1 += 1;
                if record.result == "pass" {
                    entry[index].0 += 1;
                }
            }
        }
    }
    let short = counts
        .values()
        .filter(|per_run| per_run.iter().any(|(passed, total)| passed < total))
        .count();
    // Closed at first: with a few hundred rules it would push the cases off the first
    // screens. The rule filter opens it.
    let _ = write!(
        out,
        "<section id=\"rules\"><details id=\"rules-details\"><summary><h2>Rules: {} rules, {short} with a case not passed</h2></summary>\n<p>Cases naming the rule that passed, of those run, per implementation.</p>\n<table class=\"rules\"><thead><tr><th>rule</th><th>level</th>",
        counts.len()
    );
    for (index, run) in runs.iter().enumerate() {
        let _ = write!(
            out,
            "<th class=\"run-{index}\" title=\"{}\">{}</th>",
            escape(&run_title(run)),
            escape(&short_label(run, runs))
        );
    }
    out.push_str("<th>requirement</th></tr></thead><tbody>\n");
    for (rule, per_run) in counts {
        let entry = catalogue.get(rule);
        let format = entry
            .map(|entry| entry.format.name())
            .or_else(|| rule.split('.').next())
            .unwrap_or_default();
        let level = entry.map_or("?".to_owned(), |entry| entry.level.to_string());
        let _ = write!(
            out,
            "<tr class=\"rule\" data-format=\"{}\" data-rule=\"{}\"><td><code>{}</code></td><td>{}</td>",
            escape(format),
            escape(rule),
            escape(rule),
            escape(&level)
        );
        for (index, (passed, total)) in per_run.iter().enumerate() {
            let class = if *total == 0 {
                "none"
            } else if passed == total {
                "good"
            } else {
                "bad"
            };
            if *total == 0 {
                let _ = write!(out, "<td class=\"num run-{index} {class}\">-</td>");
            } else {
                let _ = write!(
                    out,
                    "<td class=\"num run-{index} {class}\">{passed}/{total}</td>"
                );
            }
        }
        let requirement = entry.map_or("", |entry| entry.requirement.as_str());
        let _ = writeln!(
            out,
            "<td class=\"requirement\">{}</td></tr>",
            escape(requirement)
        );
    }
    out.push_str("</tbody></table></details></section>\n");
}

/// The open readings ([`super::readings`]): each question the spec leaves open, with its
/// cases and every spec-profile run's answer. Closed at first, like the rules.
fn readings(out: &mut String, page: &Page) {
    let readings = Readings::collect(page.comparison, page.corpus, page.catalogue);
    let _ = write!(
        out,
        "<section id=\"readings\"><details id=\"readings-details\"><summary><h2>Open readings: {} questions the specs leave open, {} cases</h2></summary>\n<p>Cases implementation-defined in the spec profile (any allowed verdict conforms), grouped by the rule whose reading they ask about, with the reference's recorded choice and each spec-profile run's answer.</p>\n",
        readings.groups.len(),
        readings.cases()
    );
    for group in &readings.groups {
        let _ = write!(
            out,
            "<h3 data-format=\"{}\"><code>{}</code></h3>",
            escape(group.format.name()),
            escape(group.rule)
        );
        if let Some(rule) = group.catalogue {
            let _ = write!(
                out,
                "<p class=\"requirement\">{}",
                escape(&rule.requirement)
            );
            if let Some(decision) = &rule.decision {
                let _ = write!(out, " <em>Decision:</em> {}", escape(decision));
            }
            out.push_str("</p>");
        }
        out.push_str("<table class=\"readings\"><thead><tr><th>case</th><th>document</th><th>allowed</th><th>reference</th>");
        for run in &readings.runs {
            let _ = write!(
                out,
                "<th title=\"{}\">{}</th>",
                escape(&run_title(run)),
                escape(&run.label())
            );
        }
        out.push_str("</tr></thead><tbody>\n");
        for open in &group.cases {
            let allowed: Vec<String> = open.allowed.iter().map(ToString::to_string).collect();
            let _ = write!(
                out,
                "<tr><td><code>{}</code></td><td>{}</td><td>{}</td><td>{}</td>",
                escape(&open.case.id),
                escape(&open.case.description),
                escape(&allowed.join(" or ")),
                escape(&open.reference)
            );
            for answer in readings.answers(open.case) {
                let class = match answer {
                    Answer::NotRun => "none",
                    Answer::Verdict(_) => "answer",
                    Answer::Result(_) => "bad",
                };
                let _ = write!(
                    out,
                    "<td class=\"{class}\">{}</td>",
                    escape(&answer.label())
                );
            }
            out.push_str("</tr>\n");
        }
        out.push_str("</tbody></table>\n");
    }
    out.push_str("</details></section>\n");
}

/// A case's line: its name, expected verdict and each run's result. Opens the
/// `<details>` element its detail and `</details>` close.
fn case_summary(row: &CaseRow, runs: &[Run]) -> String {
    let mut out = String::new();
    let rules: Vec<&str> = row.rules().into_iter().collect();
    let _ = write!(
        out,
        "<details class=\"case\" id=\"case-{0}\" data-name=\"{0}\" data-format=\"{1}\" data-rules=\"{2}\"",
        escape(&row.name),
        row.format,
        escape(&rules.join(" "))
    );
    for (index, record) in row.records.iter().enumerate() {
        let result = record.map_or("not-run", |record| record.result.as_str());
        let _ = write!(out, " data-r{index}=\"{}\"", escape(result));
        if let Some(verdict) = record.and_then(Record::actual_verdict) {
            let _ = write!(out, " data-v{index}=\"{}\"", escape(&verdict));
        }
    }
    // What is expected, per profile among the runs: the profiles may disagree.
    let mut by_profile: BTreeMap<Profile, &str> = BTreeMap::new();
    for (run, record) in runs.iter().zip(&row.records) {
        if let Some(record) = record {
            by_profile
                .entry(run.profile)
                .or_insert(record.expected_verdict.as_str());
        }
    }
    let verdicts: BTreeSet<&str> = by_profile.values().copied().collect();
    let expected = if verdicts.len() > 1 {
        by_profile
            .iter()
            .map(|(profile, verdict)| format!("{} <small>({profile})</small>", escape(verdict)))
            .collect::<Vec<_>>()
            .join("<br>")
    } else {
        escape(verdicts.first().copied().unwrap_or("?"))
    };
    let _ = write!(
        out,
        "><summary><span class=\"name\">{}</span><span class=\"expected\">{expected}</span>",
        escape(&row.name),
    );
    for (index, record) in row.records.iter().enumerate() {
        match record {
            None => {
                let _ = write!(
                    out,
                    "<span class=\"chip run-{index} res-none\" title=\"{}\">not run</span>",
                    escape(&runs[index].label())
                );
            }
            Some(record) => {
                let grade = record.diagnostics.grade;
                let _ = write!(
                    out,
                    "<span class=\"chip run-{index} {}\" title=\"{}: {}, diagnostics {grade}\">{}<small> {grade}</small></span>",
                    result_class(&record.result),
                    escape(&runs[index].label()),
                    escape(&record.result),
                    escape(&record.result)
                );
            }
        }
    }
    out.push_str("</summary>\n");
    out
}

/// A case's detail: the input, what it expects, and per run what it answered and
/// printed.
fn case_detail(row: &CaseRow, runs: &[Run], page: &Page) -> String {
    let limits = &page.limits;
    let mut out = String::from("<div class=\"detail\">");
    match row.case {
        Some(case) => {
            let _ = write!(
                out,
                "<p class=\"description\">{}</p><p>operation <code>{}</code>; rules: {}</p>",
                escape(&case.description),
                escape(&case.operation),
                case.all_rules()
                    .iter()
                    .map(|rule| format!("<code>{}</code>", escape(rule)))
                    .collect::<Vec<_>>()
                    .join(", ")
            );
            if !case.context.is_empty() {
                let context = serde_json::Value::Object(case.context.clone()).to_string();
                let (shown, _) = clip(&context, limits.evidence_bytes);
                let _ = write!(out, "<p>context: <code>{}</code></p>", escape(shown));
            }
            for deviation in &case.deviations {
                let _ = write!(
                    out,
                    "<p class=\"note\">Known deviation: {}</p>",
                    escape(deviation)
                );
            }
            input(&mut out, case, limits.input_bytes);
        }
        None => out.push_str(
            "<p class=\"warning\">This corpus has no case of that name: its input cannot be shown.</p>",
        ),
    }
    // What is expected, once per profile among the runs.
    let mut shown_profiles = BTreeSet::new();
    for (run, record) in runs.iter().zip(&row.records) {
        let Some(record) = record else { continue };
        if !shown_profiles.insert(run.profile) {
            continue;
        }
        let _ = write!(
            out,
            "<div class=\"expected\"><h4>Expected ({} profile)</h4><p>verdict <strong>{}</strong></p>",
            run.profile,
            escape(&record.expected_verdict)
        );
        expected_list(
            &mut out,
            "diagnostics",
            &record.expected_diagnostics,
            limits,
        );
        out.push_str("</div>");
    }
    for (index, (run, record)) in runs.iter().zip(&row.records).enumerate() {
        let _ = write!(
            out,
            "<div class=\"answer run-{index}\"><h4>{} <small>({} profile, {})</small></h4>",
            escape(&run.label()),
            run.profile,
            escape(&run.mode)
        );
        match record {
            None => out.push_str("<p>Not run.</p>"),
            Some(record) => answer(&mut out, record, limits),
        }
        out.push_str("</div>");
    }
    out.push_str("</div>\n");
    out
}

/// One run's answer to a case.
fn answer(out: &mut String, record: &Record, limits: &Limits) {
    let _ = write!(
        out,
        "<p>result <span class=\"chip {}\">{}</span>; diagnostics grade <span class=\"grade {}\">{}</span></p>",
        result_class(&record.result),
        escape(&record.result),
        record.diagnostics.grade,
        record.diagnostics.grade
    );
    if !record.explanation.is_empty() {
        pre(
            out,
            "explanation",
            &record.explanation,
            limits.evidence_bytes,
            None,
        );
    }
    if let Some(actual) = record.actual_value() {
        // Parsed once here, so the verdict is read from it rather than parsed again.
        if let Some(verdict) = actual.get("verdict").and_then(serde_json::Value::as_str) {
            let _ = write!(
                out,
                "<p>verdict given: <strong>{}</strong></p>",
                escape(verdict)
            );
        }
        if let Some(value) = actual.get("value").filter(|value| !value.is_null()) {
            pre(
                out,
                "value",
                &value.to_string(),
                limits.evidence_bytes,
                None,
            );
        }
        match actual.get("diagnostics") {
            Some(serde_json::Value::Array(list)) => {
                let _ = write!(out, "<p>diagnostics given: {}</p>", list.len());
                let shown = list.iter().take(limits.diagnostics).map(|item| {
                    let text = match serde_json::from_value::<Diagnostic>(item.clone()) {
                        Ok(diagnostic) => {
                            let location = diagnostic
                                .location
                                .map_or("anywhere".to_owned(), |location| location.to_string());
                            format!(
                                "{} {} at {}: {}",
                                diagnostic.severity, diagnostic.rule, location, diagnostic.message
                            )
                        }
                        Err(_) => item.to_string(),
                    };
                    clip(&text, limits.evidence_bytes).0.to_owned()
                });
                capped_list(out, "diagnostics", shown, list.len());
            }
            _ => out.push_str("<p>diagnostics given: none reported</p>"),
        }
    }
    expected_list(out, "missing", &record.diagnostics.missing, limits);
    expected_list(out, "unexpected", &record.diagnostics.unexpected, limits);
    if let Some(evidence) = &record.evidence {
        evidence_block(out, evidence, limits);
    }
}

/// What the validator printed.
fn evidence_block(out: &mut String, evidence: &Evidence, limits: &Limits) {
    out.push_str("<div class=\"evidence\">");
    if !evidence.exit.is_empty() {
        let _ = write!(out, "<p>process: {}</p>", escape(&evidence.exit));
    }
    if let Some(crash) = &evidence.crash_match {
        let _ = write!(
            out,
            "<p>crash pattern <code>{}</code> matched line {}: <code>{}</code></p>",
            escape(&crash.pattern),
            crash.line_number,
            escape(&crash.line)
        );
    }
    for (label, stream) in [("stdout", &evidence.stdout), ("stderr", &evidence.stderr)] {
        if stream.is_empty() {
            let _ = write!(out, "<p>{label}: nothing</p>");
            continue;
        }
        pre(
            out,
            label,
            &stream.text,
            limits.evidence_bytes,
            Some((stream, evidence.cap_bytes)),
        );
    }
    out.push_str("</div>");
}

/// A labelled block of preformatted text, cut at `cap` bytes with a note saying so.
fn pre(
    out: &mut String,
    label: &str,
    text: &str,
    cap: usize,
    captured: Option<(&Captured, usize)>,
) {
    let (shown, cut) = clip(text, cap);
    let _ = write!(
        out,
        "<p class=\"label\">{label}</p><pre class=\"{label}\">{}</pre>",
        escape(shown)
    );
    if cut {
        let _ = write!(
            out,
            "<p class=\"note\">{label}: the first {} of {} shown.</p>",
            size(shown.len()),
            size(text.len())
        );
    }
    if let Some((stream, cap_bytes)) = captured {
        if stream.truncated {
            let _ = write!(
                out,
                "<p class=\"note\">{label}: the harness kept the first {} of more.</p>",
                size(cap_bytes)
            );
        }
    }
}

fn expected_list(out: &mut String, label: &str, list: &[ExpectedDiagnostic], limits: &Limits) {
    if list.is_empty() {
        if label == "diagnostics" {
            out.push_str("<p>diagnostics: none</p>");
        }
        return;
    }
    let _ = write!(out, "<p>{label}:</p>");
    let shown = list
        .iter()
        .take(limits.diagnostics)
        .map(ExpectedDiagnostic::to_string);
    capped_list(out, &format!("diagnostics {label}"), shown, list.len());
}

/// A list of the items shown (already cut to the page's limit), escaped, and a note
/// counting those of `total` left out.
fn capped_list(out: &mut String, class: &str, shown: impl Iterator<Item = String>, total: usize) {
    let _ = write!(out, "<ul class=\"{class}\">");
    let mut count = 0;
    for text in shown {
        let _ = write!(out, "<li>{}</li>", escape(&text));
        count += 1;
    }
    if total > count {
        let _ = write!(
            out,
            "<li class=\"note\">and {} more, not shown</li>",
            total - count
        );
    }
    out.push_str("</ul>");
}

/// A case's input from the corpus: a document's bytes, or a directory's entries.
fn input(out: &mut String, case: &Case, cap: usize) {
    match case.tree() {
        None => match case.input_bytes() {
            Ok(bytes) => {
                let _ = write!(
                    out,
                    "<p class=\"label\">input <code>{}</code>, {}</p>",
                    escape(case.input_name()),
                    size(bytes.len())
                );
                document(out, &bytes, cap);
            }
            Err(error) => {
                let _ = write!(
                    out,
                    "<p class=\"warning\">The input cannot be read: {}</p>",
                    escape(&error.to_string())
                );
            }
        },
        Some(spec) => match crate::tree::materialise_temp(&case.dir, &spec) {
            Ok(tree) => {
                let _ = write!(
                    out,
                    "<p class=\"label\">input: the directory <code>{}/</code></p>",
                    escape(&spec.name)
                );
                let base = tree.root.parent().unwrap_or(&tree.root).to_owned();
                let mut remaining = cap;
                out.push_str("<ul class=\"tree\">");
                walk(out, &base, &base, &mut remaining);
                out.push_str("</ul>");
            }
            Err(error) => {
                let _ = write!(
                    out,
                    "<p class=\"warning\">The input tree cannot be built: {}</p>",
                    escape(&error.to_string())
                );
            }
        },
    }
}

/// A document's bytes as text, cut at `cap`.
fn document(out: &mut String, bytes: &[u8], cap: usize) {
    let kept = &bytes[..bytes.len().min(cap)];
    let mut text = String::from_utf8_lossy(kept).into_owned();
    if kept.len() < bytes.len() {
        // A character cut in half is not a decoding error of the input.
        while text.ends_with('\u{fffd}') {
            text.pop();
        }
    }
    let _ = write!(out, "<pre class=\"input\">{}</pre>", escape(&text));
    if std::str::from_utf8(kept).is_err() && text.contains('\u{fffd}') {
        out.push_str("<p class=\"note\">Not valid UTF-8: invalid bytes are shown as \u{fffd}.</p>");
    }
    if kept.len() < bytes.len() {
        let _ = write!(
            out,
            "<p class=\"note\">input: the first {} of {} shown.</p>",
            size(kept.len()),
            size(bytes.len())
        );
    }
}

/// A materialised tree's entries, never following a symlink or opening anything but a
/// regular file (a FIFO would block).
fn walk(out: &mut String, base: &Path, dir: &Path, remaining: &mut usize) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    let mut paths: Vec<_> = entries.filter_map(Result::ok).map(|e| e.path()).collect();
    paths.sort();
    for path in paths {
        let relative = path
            .strip_prefix(base)
            .unwrap_or(&path)
            .display()
            .to_string();
        let Ok(meta) = std::fs::symlink_metadata(&path) else {
            continue;
        };
        let kind = meta.file_type();
        if kind.is_symlink() {
            let target = std::fs::read_link(&path)
                .map(|target| target.display().to_string())
                .unwrap_or_default();
            let _ = write!(
                out,
                "<li><code>{}</code> symlink to <code>{}</code></li>",
                escape(&relative),
                escape(&target)
            );
        } else if kind.is_dir() {
            let _ = write!(out, "<li><code>{}/</code><ul>", escape(&relative));
            walk(out, base, &path, remaining);
            out.push_str("</ul></li>");
        } else if kind.is_file() {
            let _ = write!(
                out,
                "<li><code>{}</code>, {}",
                escape(&relative),
                size(meta.len() as usize)
            );
            if *remaining == 0 {
                out.push_str(" <span class=\"note\">(not shown: the input cap is reached)</span>");
            } else if let Ok(bytes) = crate::files::read(&path, crate::files::MAX_CORPUS_FILE) {
                document(out, &bytes, *remaining);
                *remaining -= (*remaining).min(bytes.len());
            }
            out.push_str("</li>");
        } else {
            let _ = write!(
                out,
                "<li><code>{}</code> (a special file: a FIFO or device)</li>",
                escape(&relative)
            );
        }
    }
}

/// The CSS class of a result: green, amber or red.
fn result_class(result: &str) -> &'static str {
    match result {
        "pass" => "res-pass",
        "expected-failure" | "skipped" | "unexpected-pass" => "res-known",
        _ => "res-fail",
    }
}

/// A run's name in a column header: the label, with the profile when two runs share it.
fn short_label(run: &Run, runs: &[Run]) -> String {
    let shared = runs
        .iter()
        .filter(|other| other.label() == run.label())
        .count();
    if shared > 1 {
        format!("{} ({}, {})", run.label(), run.profile, run.mode)
    } else {
        run.label()
    }
}

fn run_title(run: &Run) -> String {
    format!("{}, {} profile, {}", run.label(), run.profile, run.mode)
}

/// Cuts `text` at `cap` bytes, on a character boundary.
fn clip(text: &str, cap: usize) -> (&str, bool) {
    if text.len() <= cap {
        return (text, false);
    }
    let mut end = cap;
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    (&text[..end], true)
}

/// `512 bytes`, `4 KiB`, `8 MiB`, `1.5 MiB`.
fn size(bytes: usize) -> String {
    const KIB: usize = 1024;
    const MIB: usize = 1024 * 1024;
    if bytes >= MIB {
        if bytes.is_multiple_of(MIB) {
            format!("{} MiB", bytes / MIB)
        } else {
            format!("{:.1} MiB", bytes as f64 / MIB as f64)
        }
    } else if bytes >= KIB {
        if bytes.is_multiple_of(KIB) {
            format!("{} KiB", bytes / KIB)
        } else {
            format!("{:.1} KiB", bytes as f64 / KIB as f64)
        }
    } else if bytes == 1 {
        "1 byte".to_owned()
    } else {
        format!("{bytes} bytes")
    }
}

/// Text made safe for an HTML text node or a double-quoted attribute value.
pub fn escape(text: &str) -> String {
    // Shown as the terminal shows it first: no escape sequence, bidirectional or
    // zero-width mark reaches the page raw (`\u{202e}`, `\x1b` instead).
    let text = soulcheck_vocabulary::display::visible(text);
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            // The parser turns NUL into U+FFFD anyway; saying so here keeps the page valid.
            '\0' => out.push('\u{fffd}'),
            c => out.push(c),
        }
    }
    out
}

/// The base64 SHA-256 of an inline script or style, as a CSP source wants it.
fn hash(text: &str) -> String {
    base64::engine::general_purpose::STANDARD.encode(Sha256::digest(text.as_bytes()))
}

/// The stylesheet: fixed rules plus one per run, hiding its column when the
/// implementation filter leaves it out.
fn style(runs: usize) -> String {
    let mut css = String::from(STYLE);
    for index in 0..runs {
        let _ = write!(css, "body.hide-run-{index} .run-{index}{{display:none}}");
    }
    let _ = write!(
        css,
        ".case>summary,.case-head{{grid-template-columns:minmax(16em,2fr) 9em repeat({}, minmax(8em,1fr))}}",
        runs.max(1)
    );
    css
}

const STYLE: &str = r#"
:root{font-family:system-ui,-apple-system,"Segoe UI",Roboto,"Liberation Sans",sans-serif;font-size:14px;color:#1b1f24;background:#fff}
body{margin:0 auto;padding:1em 2em;max-width:110em}
h1{font-size:1.6em;margin:.2em 0}h2{font-size:1.25em;margin:1.5em 0 .5em;border-bottom:1px solid #d0d7de}h4{margin:.8em 0 .3em}
code,pre{font-family:ui-monospace,"DejaVu Sans Mono","Liberation Mono",monospace;font-size:.92em}
pre{background:#f6f8fa;border:1px solid #d0d7de;padding:.5em;white-space:pre-wrap;overflow-wrap:anywhere;max-height:30em;overflow:auto;margin:.2em 0}
table{border-collapse:collapse;margin:.5em 0}th,td{border:1px solid #d0d7de;padding:.3em .5em;text-align:left;vertical-align:top}
thead th{background:#f6f8fa}.num{text-align:right;font-variant-numeric:tabular-nums}
.warning{background:#fff8c5;border:1px solid #d4a72c;padding:.4em .6em}.note{color:#57606a;font-size:.92em}
.bad{color:#cf222e}.good{color:#1a7f37}td.bad{background:#ffebe9}td.good{background:#dafbe1}td.none{color:#8c959f}
.cert{font-weight:bold;padding:.05em .4em;border-radius:.3em}.cert.yes{background:#1a7f37;color:#fff}.cert.no{background:#cf222e;color:#fff}.cert.none{background:#eaeef2;color:#57606a}
.grade.exact{color:#1a7f37}.grade.partial{color:#9a6700}.grade.wrong{color:#cf222e}.grade.none{color:#57606a}
.filters{position:sticky;top:0;background:#fff;border-bottom:1px solid #d0d7de;padding:.5em 0;display:flex;gap:1em;flex-wrap:wrap;align-items:center;z-index:1}
.filters input{width:22em}
#rules summary{cursor:pointer}#rules summary h2{display:inline-block;border:0}
.rules .requirement{max-width:40em;color:#57606a}
.case-head,.case>summary{display:grid;gap:.5em;align-items:center;padding:.25em .4em}
.case-head{font-weight:bold;border-bottom:2px solid #d0d7de}
.case{border-bottom:1px solid #eaeef2}.case>summary{cursor:pointer}.case>summary:hover{background:#f6f8fa}
.case[open]>summary{background:#ddf4ff}
.case .name{font-family:ui-monospace,"DejaVu Sans Mono",monospace;overflow-wrap:anywhere}
.chip{display:inline-block;padding:.05em .45em;border-radius:.3em;font-size:.9em}
.res-pass{background:#dafbe1;color:#116329}.res-fail{background:#ffebe9;color:#a40e26}.res-known{background:#fff8c5;color:#7d4e00}.res-none{background:#eaeef2;color:#57606a}
.detail{padding:.5em 1em 1em 2em;display:grid;grid-template-columns:repeat(auto-fit,minmax(28em,1fr));gap:0 1.5em}
.detail>.description,.detail>p,.detail>pre,.detail>ul{grid-column:1/-1}
.answer,.expected{min-width:0}.label{margin:.4em 0 0;font-weight:bold}
ul.diagnostics li{overflow-wrap:anywhere}
ul.tree,ul.tree ul{list-style:none;padding-left:1.2em}
[hidden]{display:none !important}
footer{margin-top:2em;color:#57606a;border-top:1px solid #d0d7de}
"#;

/// The page's script: the filters (a link may set them and open a case:
/// `?format=soul-kit&rule=..&result=failing&run=0&case=soul-kit/..`), and a self-test
/// (`?selftest`) that drives them and writes what was rendered into the page, for a
/// headless browser's `--dump-dom`.
const SCRIPT: &str = r#"
(() => {
  'use strict';
  const $ = (selector) => document.querySelector(selector);
  const $$ = (selector, root) => Array.from((root || document).querySelectorAll(selector));
  const runs = Number(document.body.dataset.runs);
  const form = { format: $('#f-format'), rule: $('#f-rule'), result: $('#f-result'), run: $('#f-run') };
  const cases = $$('details.case');
  const shownRuns = () => form.run.value === '' ? [...Array(runs).keys()] : [Number(form.run.value)];
  const ruleMatches = (rules, wanted) => !wanted || rules.split(' ').some((rule) => rule.includes(wanted));
  const resultOf = (element, index) => element.dataset['r' + index] || 'not-run';
  const resultMatches = (element, wanted, shown) => {
    if (!wanted) return true;
    const ran = shown.filter((index) => resultOf(element, index) !== 'not-run');
    if (wanted === 'failing') return ran.some((index) => resultOf(element, index) !== 'pass');
    if (wanted === 'disagree') {
      const answers = ran.map((index) => resultOf(element, index) + '/' + (element.dataset['v' + index] || ''));
      return new Set(answers).size > 1;
    }
    return ran.some((index) => resultOf(element, index) === wanted);
  };
  const apply = () => {
    const format = form.format.value;
    const rule = form.rule.value.trim();
    const result = form.result.value;
    const shown = shownRuns();
    for (let index = 0; index < runs; index++) {
      document.body.classList.toggle('hide-run-' + index, !shown.includes(index));
    }
    let visible = 0;
    for (const element of cases) {
      const show = (!format || element.dataset.format === format)
        && ruleMatches(element.dataset.rules, rule)
        && resultMatches(element, result, shown);
      element.hidden = !show;
      if (show) visible++;
    }
    if (rule) $('#rules-details').open = true;
    for (const row of $$('tr.rule')) {
      row.hidden = !((!format || row.dataset.format === format) && ruleMatches(row.dataset.rule, rule));
    }
    for (const row of $$('tr.subject')) {
      row.hidden = Boolean(format) && row.dataset.format !== format;
    }
    $('#shown').textContent = visible + ' of ' + cases.length + ' cases shown';
  };
  const set = (values) => {
    form.format.value = values.format || '';
    form.rule.value = values.rule || '';
    form.result.value = values.result || '';
    form.run.value = values.run === undefined ? '' : String(values.run);
    apply();
  };
  for (const control of Object.values(form)) {
    control.addEventListener('input', apply);
    control.addEventListener('change', apply);
  }
  $('#f-reset').addEventListener('click', () => set({}));
  apply();

  const params = new URLSearchParams(location.search);
  const rendered = (element) => element.getClientRects().length > 0;
  const shownCases = () => cases.filter(rendered).map((element) => element.dataset.name);
  const open = (name) => {
    const element = cases.find((candidate) => candidate.dataset.name === name);
    if (element) element.open = true;
    return element;
  };
  if (params.has('selftest')) {
    const out = { runs, total: cases.length };
    set({});
    out.shown = shownCases().length;
    out.matrix = $$('td.cell').filter(rendered).map((cell) => ({
      run: Number(cell.dataset.run), format: cell.dataset.format,
      operation: cell.dataset.operation, text: cell.innerText.replace(/\s+/g, ' ').trim(),
    }));
    out.formats = {};
    for (const option of $$('#f-format option')) {
      if (!option.value) continue;
      set({ format: option.value });
      out.formats[option.value] = { cases: shownCases(), subjects: $$('tr.subject').filter(rendered).length };
    }
    out.results = {};
    for (let index = 0; index < runs; index++) {
      out.results[index] = {};
      for (const option of $$('#f-result option')) {
        if (!option.value) continue;
        set({ run: index, result: option.value });
        out.results[index][option.value] = shownCases();
      }
      out.results[index].columns = $$('.chip.run-' + ((index + 1) % runs)).filter(rendered).length;
    }
    if (params.get('rule')) {
      set({ rule: params.get('rule') });
      out.rule = { cases: shownCases(), rows: $$('tr.rule').filter(rendered).map((row) => row.dataset.rule) };
    }
    set({});
    out.details = {};
    for (const name of params.getAll('case')) {
      const element = open(name);
      const detail = element && element.querySelector('.detail');
      out.details[name] = detail ? {
        rendered: rendered(detail), text: detail.innerText,
        summary: element.querySelector('summary').innerText.replace(/\s+/g, ' ').trim(),
      } : null;
    }
    out.scripts = document.scripts.length;
    out.images = document.images.length;
    out.pwned = typeof window.soulcheckPwned !== 'undefined';
    const result = document.createElement('pre');
    result.id = 'selftest-result';
    result.hidden = true;
    // base64, so no entity or markup in it can be mistaken by whoever reads the DOM.
    result.textContent = btoa(String.fromCharCode(...new TextEncoder().encode(JSON.stringify(out))));
    document.body.appendChild(result);
  } else if (['case', 'format', 'rule', 'result', 'run'].some((key) => params.has(key))) {
    // A link can carry the filters (?format=soul-kit&result=failing) and a case to open.
    set({
      format: params.get('format') || '', rule: params.get('rule') || '',
      result: params.get('result') || '', run: params.get('run') || undefined,
    });
    if (params.has('case')) open(params.get('case'));
  }
})();
"#;

#[cfg(test)]
mod tests {
    use super::*;
    use crate::report::jsonl::{Header, Log};
    use crate::report::runs::merge;
    use crate::store::Store;
    use crate::validator::Implementation;

    /// The harness's small test corpus, and one run on it whose failing case printed
    /// `printed` on stdout.
    fn page_of(printed: &str, limits: Limits) -> String {
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/corpus");
        let store = Store::Disk(root);
        let catalogue = Catalogue::open(&store).expect("catalogue");
        let corpus = Corpus::open(store).expect("corpus");
        let records = corpus
            .cases
            .iter()
            .map(|case| {
                let failing = case.id == "name-long";
                serde_json::from_value(serde_json::json!({
                    "name": case.name(),
                    "id": case.id,
                    "format": case.format,
                    "operation": case.operation,
                    "rules": case.rules,
                    "expected_verdict": case.verdict.name(),
                    "expected_diagnostics": [],
                    "actual": {"verdict": if failing { "accept" } else { case.verdict.name() }},
                    "result": if failing { "wrong-verdict" } else { "pass" },
                    "evidence": if failing {
                        serde_json::json!({
                            "exit": "exit code 0",
                            "stdout": {"text": printed, "truncated": true},
                            "stderr": {"text": "", "truncated": false},
                            "cap_bytes": 8192
                        })
                    } else {
                        serde_json::Value::Null
                    },
                    "duration_ms": 1
                }))
                .expect("record")
            })
            .collect();
        let log = Log {
            header: Header {
                soulcheck_version: "0".to_owned(),
                corpus_hash: "sha256:test".to_owned(),
                cases: corpus.cases.len(),
                corpus_cases: Default::default(),
                mode: "per-case".to_owned(),
                command: Some("<b>tool</b> {path}".to_owned()),
                implementation: Implementation {
                    name: "acme<script>".to_owned(),
                    version: "1".to_owned(),
                    ..Implementation::default()
                },
                settings: serde_json::json!({"profile": "spec"}),
                started_at: "2025-01-01T00:00:00Z".to_owned(),
            },
            records,
            footer: None,
        };
        let comparison = merge(vec![("report.jsonl".into(), log)], false).expect("merge");
        render(&Page {
            comparison: &comparison,
            corpus: &corpus,
            corpus_hash: "sha256:test",
            catalogue: &catalogue,
            limits,
        })
    }

    #[test]
    fn everything_from_a_report_is_escaped() {
        let page = page_of("<script>alert(1)</script>", Limits::default());
        assert_eq!(
            page.matches("<script").count(),
            1,
            "only the page's own script"
        );
        assert!(page.contains("&lt;script&gt;alert(1)&lt;/script&gt;"));
        assert!(page.contains("acme&lt;script&gt;"));
        assert!(page.contains("&lt;b&gt;tool&lt;/b&gt;"));
        assert!(page.contains("incomplete: the run was interrupted"));
        assert!(page.contains("the harness kept the first 8 KiB"));
    }

    #[test]
    fn the_policy_admits_only_the_pages_own_script_and_style() {
        let page = page_of("", Limits::default());
        assert!(page.contains(&format!("script-src 'sha256-{}'", hash(SCRIPT))));
        assert!(page.contains(&format!("style-src 'sha256-{}'", hash(&style(1)))));
        assert!(page.contains(&format!("<style>{}</style>", style(1))));
        assert!(page.contains("default-src 'none'"));
    }

    #[test]
    fn long_output_is_cut_and_says_so() {
        let limits = Limits {
            evidence_bytes: 100,
            ..Limits::default()
        };
        let page = page_of(&"x".repeat(5000), limits);
        assert!(page.contains(&format!("<pre class=\"stdout\">{}</pre>", "x".repeat(100))));
        assert!(page.contains("stdout: the first 100 bytes of 4.9 KiB shown."));
    }

    #[test]
    fn the_page_stops_adding_details_at_its_cap() {
        let full = page_of("", Limits::default());
        assert!(!full.contains("Details left out"));
        let bare = page_of(
            "",
            Limits {
                page_bytes: 0,
                ..Limits::default()
            },
        );
        assert!(bare.contains("Details left out"));
        let mut failing_case_first = false;
        for cap in (bare.len()..full.len() + 2 * NOTES_BYTES).step_by(64) {
            let limits = Limits {
                page_bytes: cap,
                ..Limits::default()
            };
            let page = page_of("", limits);
            let kept = page.matches("verdict given").count();
            // The cap stops details, never summaries: below the page with no details,
            // that page is what comes out.
            if kept > 0 {
                assert!(
                    page.len() <= cap,
                    "{} bytes for a cap of {cap}:\n{page}",
                    page.len()
                );
            }
            let failing = page
                .split("<details class=\"case\"")
                .find(|part| part.contains("data-name=\"soul-kit/name-long\""))
                .expect("the failing case");
            if page.contains("This page is capped at") && failing.contains("verdict given") {
                failing_case_first = true;
            }
        }
        // The failing case gets its detail first: it is the one a reader opens.
        assert!(failing_case_first);
    }

    #[test]
    fn escaping_leaves_no_markup() {
        assert_eq!(
            escape("<script>alert('x') & \"y\"</script>"),
            "&lt;script&gt;alert(&#39;x&#39;) &amp; &quot;y&quot;&lt;/script&gt;"
        );
        // Escape sequences and bidirectional overrides reach the page shown, not raw.
        assert_eq!(
            escape("ok\u{1b}[2J\u{202e}gnp.exe"),
            "ok\\x1b[2J\\u{202e}gnp.exe"
        );
    }

    #[test]
    fn clipping_keeps_whole_characters() {
        assert_eq!(clip("héllo", 2), ("h", true));
        assert_eq!(clip("héllo", 3), ("hé", true));
        assert_eq!(clip("abc", 3), ("abc", false));
    }

    #[test]
    fn sizes_read_naturally() {
        assert_eq!(size(1), "1 byte");
        assert_eq!(size(512), "512 bytes");
        assert_eq!(size(4096), "4 KiB");
        assert_eq!(size(8 * 1024 * 1024), "8 MiB");
        assert_eq!(size(1536), "1.5 KiB");
    }
}
