//! A Markdown summary of a run, for CI step summaries: a table per format with both
//! grades and the certificate status, the certificates, warnings, then the failures
//! grouped by kind and rule with what the validator printed and how to reproduce each.

use std::fmt::Write as _;

use crate::corpus::Case;
use crate::report::certificate::Certificate;
use crate::report::{failure_lines_markdown, push_capped, status_line, warnings, Context, Summary};
use crate::runner::CaseResult;

/// Renders the summary.
pub fn render(
    title: &str,
    summary: &Summary,
    certificates: &[Certificate],
    cases: &[&Case],
    results: &[CaseResult],
    context: &Context,
) -> String {
    let mut out = String::new();
    // The title names the implementation, which a persistent validator gives itself.
    let _ = writeln!(
        out,
        "## {}\n",
        soulcheck_vocabulary::display::visible_line(title)
    );
    let _ = writeln!(
        out,
        "| format | passed | failed | skipped | expected failures | passing | diagnostics (exact / partial / wrong / none) | certificate |"
    );
    let _ = writeln!(
        out,
        "| --- | ---: | ---: | ---: | ---: | ---: | --- | --- |"
    );
    for (format, tally) in &summary.formats {
        let certificate = certificates
            .iter()
            .find(|certificate| {
                certificate.format == *format && certificate.operation == "validate"
            })
            .map_or("n/a", |certificate| {
                if !certificate.selection.complete {
                    "not a certification (part of the cases)"
                } else if certificate.certified {
                    "certified"
                } else {
                    "not certified"
                }
            });
        let grades = tally.diagnostics;
        let _ = writeln!(
            out,
            "| {format} | {} | {} | {} | {} | {}% | {} / {} / {} / {} | {certificate} |",
            tally.passed,
            tally.failed,
            tally.skipped,
            tally.expected_failures,
            tally.percent_passing(),
            grades.exact,
            grades.partial,
            grades.wrong,
            grades.none
        );
    }
    if !certificates.is_empty() {
        out.push('\n');
        for certificate in certificates {
            let _ = writeln!(out, "- {}", certificate.line());
        }
    }
    for warning in warnings(cases, results) {
        let _ = writeln!(out, "\n**Warning:** {warning}");
    }
    let failures = results
        .iter()
        .filter(|result| result.judgement.is_failure())
        .count();
    if failures == 0 {
        out.push_str("\nNo failures.\n");
        push_status(&mut out, summary, certificates, context);
        return out;
    }
    let _ = writeln!(out, "\n### Failures ({failures})\n");
    // A code block keeps the validator's output as it was printed.
    out.push_str("```text\n");
    let lines: Vec<String> = failure_lines_markdown(cases, results, context)
        .into_iter()
        .map(|line| line.replace("```", "'''"))
        .collect();
    push_capped(&mut out, &lines, context);
    out.push_str("```\n");
    push_status(&mut out, summary, certificates, context);
    out
}

/// The run's status line, last, as the terminal prints it.
fn push_status(
    out: &mut String,
    summary: &Summary,
    certificates: &[Certificate],
    context: &Context,
) {
    if let Some(ending) = &context.ending {
        let _ = writeln!(out, "\n**{}**", status_line(summary, certificates, ending));
    }
}
