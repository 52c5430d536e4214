//! JUnit XML, one test case per corpus case grouped in one suite per format, for CI
//! systems that display test results. A failure is a failure of the verdict; the
//! diagnostics grade is a property of each test case, and what the validator printed
//! is its `system-out` and `system-err`.

use std::collections::BTreeMap;
use std::fmt::Write as _;

use quick_xml::escape::escape;
use soulcheck_vocabulary::display::visible;

use crate::corpus::Case;
use crate::runner::{CaseResult, Judgement};
use soulcheck_vocabulary::Format;

/// Renders the results as a JUnit XML document.
pub fn render(cases: &[&Case], results: &[CaseResult]) -> String {
    let mut suites: BTreeMap<Format, Vec<&CaseResult>> = BTreeMap::new();
    for result in results {
        suites
            .entry(cases[result.index].format)
            .or_default()
            .push(result);
    }
    let count = |list: &[&CaseResult], test: fn(&Judgement) -> bool| {
        list.iter().filter(|r| test(&r.judgement)).count()
    };
    let failed = |judgement: &Judgement| judgement.is_failure();
    let skipped = |judgement: &Judgement| {
        matches!(
            judgement,
            Judgement::Skipped { .. }
                | Judgement::ExpectedFailure { .. }
                | Judgement::Interrupted { .. }
        )
    };
    let all: Vec<&CaseResult> = results.iter().collect();
    let mut xml = String::from("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
    let _ = writeln!(
        xml,
        "<testsuites name=\"soulcheck\" tests=\"{}\" failures=\"{}\" skipped=\"{}\">",
        all.len(),
        count(&all, failed),
        count(&all, skipped)
    );
    for (format, list) in &suites {
        let seconds: f64 = list
            .iter()
            .map(|result| result.duration.as_secs_f64())
            .sum();
        let _ = writeln!(
            xml,
            "  <testsuite name=\"{format}\" tests=\"{}\" failures=\"{}\" skipped=\"{}\" time=\"{seconds:.3}\">",
            list.len(),
            count(list, failed),
            count(list, skipped)
        );
        for result in list {
            let case = cases[result.index];
            let _ = write!(
                xml,
                "    <testcase classname=\"soulcheck.{format}\" name=\"{}\" time=\"{:.3}\"",
                text(case.id.as_str()),
                result.duration.as_secs_f64()
            );
            let message = text(result.judgement.name());
            let body = text(&format!(
                "{}\n{}",
                case.description,
                result.judgement.explain()
            ));
            xml.push_str(">\n");
            let _ = writeln!(
                xml,
                "      <properties><property name=\"diagnostics\" value=\"{}\"/></properties>",
                result.diagnostics.grade
            );
            match &result.judgement {
                Judgement::Pass => {}
                Judgement::Skipped { reason } => {
                    let _ = writeln!(
                        xml,
                        "      <skipped message=\"{}\"/>",
                        text(reason.as_str())
                    );
                }
                Judgement::ExpectedFailure { .. } => {
                    let _ = writeln!(
                        xml,
                        "      <skipped message=\"expected failure\">{body}</skipped>"
                    );
                }
                // The harness stopped it: not the validator's failure.
                Judgement::Interrupted { .. } => {
                    let _ = writeln!(
                        xml,
                        "      <skipped message=\"interrupted\">{body}</skipped>"
                    );
                }
                _ => {
                    let _ = writeln!(xml, "      <failure message=\"{message}\">{body}</failure>");
                }
            }
            if let Some(evidence) = &result.evidence {
                for (tag, stream) in [
                    ("system-out", &evidence.stdout),
                    ("system-err", &evidence.stderr),
                ] {
                    if !stream.is_empty() {
                        let cut = if stream.truncated {
                            "\n[truncated]"
                        } else {
                            ""
                        };
                        let _ = writeln!(xml, "      <{tag}>{}{cut}</{tag}>", text(&stream.text));
                    }
                }
            }
            xml.push_str("    </testcase>\n");
        }
        xml.push_str("  </testsuite>\n");
    }
    xml.push_str("</testsuites>\n");
    xml
}

/// Untrusted text (a validator's output, a skip reason, a case's strings) as XML content
/// or attribute value: shown as the terminal shows it ([`visible`]: control characters,
/// bidirectional and zero-width marks and the noncharacters U+FFFE and U+FFFF written as
/// escapes, which XML 1.0 could not carry even escaped), then escaped for XML.
fn text(text: &str) -> String {
    escape(visible(text).as_ref()).into_owned()
}
