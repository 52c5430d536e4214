//! A Markdown summary of a run, for CI step summaries: a table per format with the
//! certificate status, then the failures.

use std::fmt::Write as _;

use crate::corpus::Case;
use crate::report::certificate::Certificate;
use crate::report::Summary;
use crate::runner::CaseResult;

/// Failures listed in full before the list is cut short.
const MAX_LISTED: usize = 100;

/// Renders the summary.
pub fn render(
    title: &str,
    summary: &Summary,
    certificates: &[Certificate],
    cases: &[&Case],
    results: &[CaseResult],
) -> String {
    let mut out = String::new();
    let _ = writeln!(out, "## {title}\n");
    let _ = writeln!(
        out,
        "| format | passed | failed | skipped | expected failures | passing | certificate |"
    );
    let _ = writeln!(out, "| --- | ---: | ---: | ---: | ---: | ---: | --- |");
    for (format, tally) in &summary.formats {
        let certificate = certificates
            .iter()
            .find(|certificate| certificate.format == *format)
            .map_or("n/a", |certificate| {
                if certificate.certified {
                    "certified"
                } else {
                    "not certified"
                }
            });
        let _ = writeln!(
            out,
            "| {format} | {} | {} | {} | {} | {}% | {certificate} |",
            tally.passed,
            tally.failed,
            tally.skipped,
            tally.expected_failures,
            tally.percent_passing()
        );
    }
    let failures: Vec<&CaseResult> = results
        .iter()
        .filter(|result| result.judgement.is_failure())
        .collect();
    if failures.is_empty() {
        out.push_str("\nNo failures.\n");
        return out;
    }
    let _ = writeln!(out, "\n### Failures ({})\n", failures.len());
    for result in failures.iter().take(MAX_LISTED) {
        let case = cases[result.index];
        let _ = writeln!(
            out,
            "- `{}` **{}**: {}",
            result.name,
            result.judgement.name(),
            case.description
        );
        for line in result.judgement.explain().lines() {
            let _ = writeln!(out, "  - {}", line.trim());
        }
    }
    if failures.len() > MAX_LISTED {
        let _ = writeln!(
            out,
            "\n…and {} more; see the JSON Lines report.",
            failures.len() - MAX_LISTED
        );
    }
    out
}
