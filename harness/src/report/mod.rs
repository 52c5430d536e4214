//! Reports of a run: the tallies and the human summary here (per format, per rule,
//! failures grouped by rule and kind with what the validator printed and a command that
//! reproduces each), and the machine formats in submodules: a JSON Lines record of the
//! run ([`jsonl`]), JUnit XML ([`junit`]), a Markdown summary for CI step summaries
//! ([`markdown`]), badge endpoints ([`badge`]), certificates per format and operation
//! ([`certificate`]), the difference between two runs ([`diff`]), and, for several runs
//! side by side ([`runs`]), a self-contained HTML page ([`html`]), a Markdown
//! scoreboard ([`scoreboard`]), the open readings with every implementation's answer
//! ([`readings`]) and the page of certified implementations ([`implementations`]). A
//! report directory is written all or nothing ([`staging`]).
//!
//! Every report shows two grades per case: the verdict's (pass or the kind of failure)
//! and the diagnostics' ([`Grade`]).

pub mod badge;
pub mod certificate;
pub mod diff;
pub mod html;
pub mod implementations;
pub mod jsonl;
pub mod junit;
pub mod markdown;
pub mod readings;
pub mod runs;
pub mod scoreboard;
pub mod staging;

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::PathBuf;

use serde::{Deserialize, Serialize};

use crate::catalogue::Catalogue;
use crate::corpus::{Case, ExpectedVerdict};
use crate::runner::{CaseResult, Grade, Judgement};
use soulcheck_vocabulary::display::visible;
use soulcheck_vocabulary::{Format, Verdict};

use self::certificate::Certificate;

/// Untrusted text (from a corpus, a card, an expectations file or a report) in one cell
/// of a Markdown table: on one line, escapes visible, and no `|` that would split the cell.
pub(crate) fn table_cell(text: &str) -> String {
    soulcheck_vocabulary::display::visible_line(text).replace('|', "\\|")
}

/// Lines of failures the terminal lists before it points to the report instead.
pub const MAX_FAILURE_LINES: usize = 50;

/// Lines of a validator's output shown under a failure.
const EVIDENCE_LINES: usize = 3;

/// How many cases got each diagnostics grade.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct GradeTally {
    /// Exactly the expected diagnostics.
    pub exact: usize,
    /// Some of them and nothing wrong.
    pub partial: usize,
    /// Wrong diagnostics.
    pub wrong: usize,
    /// Nothing to grade.
    pub none: usize,
}

impl GradeTally {
    /// Counts one grade.
    pub fn add(&mut self, grade: Grade) {
        match grade {
            Grade::Exact => self.exact += 1,
            Grade::Partial => self.partial += 1,
            Grade::Wrong => self.wrong += 1,
            _ => self.none += 1,
        }
    }

    /// The grade of the whole: `wrong` if any case was, `none` if nothing was graded,
    /// `exact` if every graded case was, `partial` otherwise.
    pub fn overall(&self) -> Grade {
        if self.wrong > 0 {
            Grade::Wrong
        } else if self.exact + self.partial == 0 {
            Grade::None
        } else if self.partial == 0 && self.none == 0 {
            Grade::Exact
        } else {
            Grade::Partial
        }
    }

    /// `30 exact, 5 partial, 0 wrong, 5 none`.
    pub fn describe(&self) -> String {
        format!(
            "{} exact, {} partial, {} wrong, {} none",
            self.exact, self.partial, self.wrong, self.none
        )
    }

    /// The counts with the cases they are taken over: `graded over 40 of 179 cases (30
    /// exact, 5 partial, 0 wrong, 5 none; 139 not graded: they expect no diagnostic and
    /// got none, or nothing was compared)`. A case is graded when it expects diagnostics
    /// or got some ([`is_graded`]).
    pub fn describe_over(&self, cases: usize) -> String {
        let graded = self.exact + self.partial + self.wrong + self.none;
        let rest = cases.saturating_sub(graded);
        let mut text = format!("graded over {graded} of {cases} cases ({}", self.describe());
        if rest > 0 {
            text.push_str(&format!(
                "; {rest} not graded: they expect no diagnostic and got none, or nothing was compared"
            ));
        }
        text.push(')');
        text
    }
}

/// Pass / fail / skip counts, and the diagnostics grades beside them.
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
    /// Cases the harness stopped because a signal ended the run (only an interrupted
    /// report has any, and it has no footer).
    #[serde(default, skip_serializing_if = "is_zero")]
    pub interrupted: usize,
    /// Diagnostics grades of the cases that expect diagnostics or got some (see
    /// [`is_graded`]).
    #[serde(default)]
    pub diagnostics: GradeTally,
}

impl Tally {
    fn add(&mut self, result: &CaseResult) {
        match &result.judgement {
            Judgement::Pass => self.passed += 1,
            Judgement::Skipped { .. } => self.skipped += 1,
            Judgement::ExpectedFailure { .. } => self.expected_failures += 1,
            Judgement::Interrupted { .. } => self.interrupted += 1,
            _ => self.failed += 1,
        }
        if is_graded(result) {
            self.diagnostics.add(result.diagnostics.grade);
        }
    }

    /// Counts one case record read back from a report (see [`jsonl::Record`]), by the
    /// same rules as [`Tally::add`]: its result's name decides the column, and it counts
    /// in the grade tally when it earned a grade or missed expected diagnostics.
    pub fn add_record(&mut self, record: &jsonl::Record) {
        match record.result.as_str() {
            "pass" => self.passed += 1,
            "skipped" => self.skipped += 1,
            "expected-failure" => self.expected_failures += 1,
            "interrupted" => self.interrupted += 1,
            _ => self.failed += 1,
        }
        if record.diagnostics.grade != Grade::None || !record.diagnostics.missing.is_empty() {
            self.diagnostics.add(record.diagnostics.grade);
        }
    }

    /// Total cases counted.
    pub fn total(&self) -> usize {
        self.passed + self.failed + self.skipped + self.expected_failures + self.interrupted
    }

    /// Percentage of attempted (not skipped, not interrupted) cases that passed, rounded
    /// down.
    pub fn percent_passing(&self) -> usize {
        let attempted = self.total() - self.skipped - self.interrupted;
        (self.passed * 100).checked_div(attempted).unwrap_or(0)
    }
}

/// How many of the certificates `test` holds for.
fn how_many(certificates: &[Certificate], test: impl Fn(&Certificate) -> bool) -> usize {
    certificates
        .iter()
        .filter(|certificate| test(certificate))
        .count()
}

/// `1 certificate`, `3 certificates`.
fn counted(count: usize, one: &str, many: &str) -> String {
    format!("{count} {}", if count == 1 { one } else { many })
}

fn is_zero(count: &usize) -> bool {
    *count == 0
}

/// Whether a result counts in a grade tally: it earned a grade, or it expected
/// diagnostics and got none. A case expecting none and getting none says nothing.
pub fn is_graded(result: &CaseResult) -> bool {
    result.diagnostics.grade != Grade::None || !result.diagnostics.missing.is_empty()
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

/// What the human reports need besides the results, to say how to reproduce a failure.
#[derive(Debug, Clone, Default)]
pub struct Context {
    /// The validator command template (`None`: the in-process reference).
    pub command: Option<String>,
    /// The corpus directory given on the command line, if any.
    pub corpus: Option<PathBuf>,
    /// Where the reports were written, if anywhere.
    pub report_dir: Option<PathBuf>,
    /// Lines of failures listed before the rest is only counted.
    pub max_lines: usize,
    /// How the run ends, for the summary's last line ([`status_line`]); `None` prints no
    /// such line.
    pub ending: Option<Ending>,
}

/// How a run ends: the exit code the command returns, and what fails it besides failed
/// cases.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Ending {
    /// The exit code.
    pub exit_code: u8,
    /// Why the run fails besides its failed cases (`the corpus fails its self-check`).
    pub also_failing: Vec<String>,
    /// Whether the terminal leaves the certificates out by design (the reference's own
    /// run is judged by its strictness); the status line says so when none is given.
    pub uncertified_by_design: bool,
}

/// The summary's last line, stable for scripts to read (README, "Reading results"):
///
/// ```text
/// soulcheck: PASS (exit 0): 98 passed, 0 failed, 0 skipped of 98 cases; certified: 2 of 2 certificates
/// soulcheck: FAIL (exit 1): 90 passed, 8 failed, 0 skipped of 98 cases; certified: 1 of 2 certificates
/// soulcheck: PASS (exit 0): 1 passed, 0 failed, 0 skipped of 1 cases; not a certification: 1 of 1 certificate judged part of the cases
/// ```
///
/// `PASS` is exit code 0 and `FAIL` any other; the counts are those of the table above it
/// (`, N expected failures` follows the skips with an expectations file); after the `;`
/// comes what the certificates say, which a passing run need not earn (known failures
/// still count against a certificate).
pub fn status_line(summary: &Summary, certificates: &[Certificate], ending: &Ending) -> String {
    let word = if ending.exit_code == 0 {
        "PASS"
    } else {
        "FAIL"
    };
    let tally = &summary.overall;
    let mut line = format!(
        "soulcheck: {word} (exit {}): {} passed, {} failed, {} skipped",
        ending.exit_code, tally.passed, tally.failed, tally.skipped
    );
    if tally.expected_failures > 0 {
        let _ = write!(line, ", {} expected failures", tally.expected_failures);
    }
    let _ = write!(line, " of {}", counted(tally.total(), "case", "cases"));
    let partial = how_many(certificates, |certificate| !certificate.selection.complete);
    let certified = how_many(certificates, |certificate| certificate.certified);
    if certificates.is_empty() && ending.uncertified_by_design {
        line.push_str("; no certificate shown (the reference is judged by its strictness)");
    } else if certificates.is_empty() {
        line.push_str("; no certificate");
    } else if partial > 0 {
        let _ = write!(
            line,
            "; not a certification: {partial} of {} judged part of the cases",
            counted(certificates.len(), "certificate", "certificates")
        );
    } else {
        let _ = write!(
            line,
            "; certified: {certified} of {}",
            counted(certificates.len(), "certificate", "certificates")
        );
    }
    for reason in &ending.also_failing {
        let _ = write!(line, "; {reason}");
    }
    line
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

    /// Human-readable text: failures grouped and capped, the per-format and per-rule
    /// tables, the certificates (when given), warnings, the next steps, and last the
    /// status line ([`status_line`], when the context says how the run ends; the bare
    /// totals otherwise).
    pub fn render(
        &self,
        cases: &[&Case],
        results: &[CaseResult],
        catalogue: &Catalogue,
        certificates: &[Certificate],
        context: &Context,
    ) -> String {
        let mut out = String::new();
        let lines = failure_lines(cases, results, context, "  ");
        if !lines.is_empty() {
            let failures = results.iter().filter(|r| r.judgement.is_failure()).count();
            let _ = writeln!(out, "failures ({failures}), by kind and rule:");
            push_capped(&mut out, &lines, context);
            let _ = writeln!(out);
        }
        let header = |out: &mut String, first: &str| {
            let _ = writeln!(
                out,
                "{first:<48} {:>6} {:>6} {:>7} {:>5}  diagnostics: {:>5} {:>7} {:>5} {:>4}",
                "passed", "failed", "skipped", "xfail", "exact", "partial", "wrong", "none"
            );
        };
        let row = |out: &mut String, first: &str, tally: &Tally, tail: &str| {
            let grades = tally.diagnostics;
            let _ = writeln!(
                out,
                "{first:<48} {:>6} {:>6} {:>7} {:>5}               {:>5} {:>7} {:>5} {:>4}{tail}",
                tally.passed,
                tally.failed,
                tally.skipped,
                tally.expected_failures,
                grades.exact,
                grades.partial,
                grades.wrong,
                grades.none
            );
        };
        header(&mut out, "format");
        for (format, tally) in &self.formats {
            row(&mut out, format.name(), tally, "");
        }
        let _ = writeln!(out);
        header(&mut out, "rule");
        for (rule, tally) in &self.rules {
            let level = catalogue
                .get(rule)
                .map_or("?".to_owned(), |rule| rule.level.to_string());
            row(&mut out, rule, tally, &format!("  {level}"));
        }
        let _ = writeln!(out);
        if !certificates.is_empty() {
            for certificate in certificates {
                let _ = writeln!(out, "{}", certificate.line());
            }
            let _ = writeln!(out);
        }
        for warning in warnings(cases, results) {
            let _ = writeln!(out, "warning: {warning}");
        }
        if self.overall.expected_failures > 0 {
            let _ = writeln!(
                out,
                "{} expected failures (listed in the expectations file)",
                self.overall.expected_failures
            );
        }
        if self.overall.interrupted > 0 {
            let _ = writeln!(
                out,
                "{} cases were stopped by an interruption",
                self.overall.interrupted
            );
        }
        if let Some(next) = next_steps(self, results, certificates, context) {
            let _ = writeln!(out, "next steps: {next}");
        }
        match &context.ending {
            Some(ending) => {
                let _ = writeln!(out, "{}", status_line(self, certificates, ending));
            }
            None => {
                let _ = writeln!(
                    out,
                    "{} passed, {} failed, {} skipped",
                    self.overall.passed, self.overall.failed, self.overall.skipped
                );
            }
        }
        out
    }
}

/// Appends `lines`, cut at the context's cap with a count and a pointer to the report.
fn push_capped(out: &mut String, lines: &[String], context: &Context) {
    let cap = if context.max_lines == 0 {
        MAX_FAILURE_LINES
    } else {
        context.max_lines
    };
    for line in lines.iter().take(cap) {
        let _ = writeln!(out, "{line}");
    }
    if lines.len() > cap {
        let whereto = match &context.report_dir {
            Some(dir) => format!("see {}", dir.join("report.jsonl").display()),
            None => "run with --report DIR to keep them all".to_owned(),
        };
        let _ = writeln!(
            out,
            "  ... {} more lines not shown: {whereto}",
            lines.len() - cap
        );
    }
}

/// The kinds of failure in the order a maintainer should look at them: a validator that
/// does not answer first, then wrong answers.
const KIND_ORDER: &[&str] = &[
    "crash",
    "timeout",
    "protocol-error",
    "input-error",
    "wrong-verdict",
    "wrong-value",
    "wrong-diagnostics",
    "unexpected-pass",
];

/// A group of failures of one kind on one rule (the case's first rule).
pub struct Group<'r> {
    /// The judgement's name.
    pub kind: &'static str,
    /// The rule.
    pub rule: String,
    /// The failures, in case order.
    pub results: Vec<&'r CaseResult>,
}

/// The failures, grouped by kind and rule.
pub fn failure_groups<'r>(cases: &[&Case], results: &'r [CaseResult]) -> Vec<Group<'r>> {
    let mut groups: BTreeMap<(usize, &'static str, String), Vec<&'r CaseResult>> = BTreeMap::new();
    for result in results.iter().filter(|r| r.judgement.is_failure()) {
        let kind = result.judgement.name();
        let order = KIND_ORDER
            .iter()
            .position(|k| *k == kind)
            .unwrap_or(KIND_ORDER.len());
        let rule = cases[result.index]
            .rules
            .first()
            .cloned()
            .unwrap_or_else(|| "(no rule)".to_owned());
        groups.entry((order, kind, rule)).or_default().push(result);
    }
    groups
        .into_iter()
        .map(|((_, kind, rule), results)| Group {
            kind,
            rule,
            results,
        })
        .collect()
}

/// The failure listing as lines: a heading per group, then per case its explanation,
/// the diagnostics grade, what the validator printed, any known deviation, and the
/// command that reproduces it.
fn failure_lines(
    cases: &[&Case],
    results: &[CaseResult],
    context: &Context,
    indent: &str,
) -> Vec<String> {
    let mut lines = Vec::new();
    for group in failure_groups(cases, results) {
        let count = group.results.len();
        let plural = if count == 1 { "" } else { "s" };
        lines.push(format!(
            "{indent}{} in {} ({count} case{plural})",
            group.kind, group.rule
        ));
        for result in group.results {
            let case = cases[result.index];
            let explained = result.judgement.explain();
            let mut explanation = explained.lines();
            lines.push(format!(
                "{indent}  {}: {} [diagnostics: {}]",
                result.name,
                explanation.next().unwrap_or_default(),
                result.diagnostics.grade
            ));
            for line in explanation {
                lines.push(format!("{indent}    {line}"));
            }
            for line in evidence_lines(result) {
                lines.push(format!("{indent}    {line}"));
            }
            for deviation in &case.deviations {
                lines.push(format!("{indent}    known deviation: {deviation}"));
            }
            lines.push(format!(
                "{indent}    reproduce: {}",
                reproduce(case, context)
            ));
        }
    }
    // Explanations quote validators and names come from corpora: nothing raw is shown.
    lines
        .into_iter()
        .map(|line| visible(&line).into_owned())
        .collect()
}

/// The first lines the validator printed (stderr first: that is where errors go).
pub fn evidence_lines(result: &CaseResult) -> Vec<String> {
    let Some(evidence) = &result.evidence else {
        return Vec::new();
    };
    let mut lines = Vec::new();
    if evidence.stderr.is_empty() && evidence.stdout.is_empty() {
        lines.push(format!("validator: {}, printed nothing", evidence.exit));
        return lines;
    }
    for (label, stream) in [("stderr", &evidence.stderr), ("stdout", &evidence.stdout)] {
        let printed: Vec<&str> = stream
            .text
            .lines()
            .filter(|line| !line.trim().is_empty())
            .collect();
        if printed.is_empty() {
            continue;
        }
        // Control characters and escapes shown visibly (a validator's output is untrusted).
        let line = |text: &str| {
            let cut: String = text.chars().take(160).collect();
            format!("{label}: {}", visible(&cut))
        };
        if printed.len() <= EVIDENCE_LINES {
            lines.extend(printed.iter().map(|text| line(text)));
        } else {
            // The first line says what happened, the last ones where most runtimes put
            // the error itself (below a stack).
            lines.push(line(printed[0]));
            lines.push(format!("{label}: ..."));
            let tail = printed.len() - (EVIDENCE_LINES - 1);
            lines.extend(printed[tail..].iter().map(|text| line(text)));
        }
        if stream.truncated {
            lines.push(format!("{label}: [cut at {} bytes]", evidence.cap_bytes));
        }
        // One stream is enough under a failure; the report keeps both.
        break;
    }
    lines
}

/// One shell line that reproduces a case outside the harness: export it, then run the
/// validator on the exported input.
pub fn reproduce(case: &Case, context: &Context) -> String {
    let dir = format!("repro-{}", case.id);
    let input = format!("{dir}/{}/{}/{}", case.format, case.id, case.input_name());
    let corpus = context
        .corpus
        .as_ref()
        .map(|path| format!(" --corpus {}", quote(&path.to_string_lossy())))
        .unwrap_or_default();
    let export = format!(
        "soulcheck cases export{corpus} --case {} {dir}",
        quote(&case.name())
    );
    let context_json = serde_json::Value::Object(case.context.clone()).to_string();
    let run = match &context.command {
        None => {
            let mut line = format!("soulcheck check {} --format {}", quote(&input), case.format);
            if case.operation != "validate" {
                let _ = write!(line, " --operation {}", case.operation);
            }
            if !case.context.is_empty() {
                let _ = write!(line, " --context-json {}", quote(&context_json));
            }
            line
        }
        Some(command) => {
            let words = shlex::split(command).unwrap_or_else(|| vec![command.clone()]);
            let uses_path = words.iter().any(|word| word.contains("{path}"));
            let mut line = words
                .iter()
                .map(|word| {
                    quote(
                        &word
                            .replace("{path}", &input)
                            .replace("{name}", case.input_name())
                            .replace("{format}", case.format.name())
                            .replace("{operation}", &case.operation)
                            .replace("{context}", &context_json),
                    )
                })
                .collect::<Vec<_>>()
                .join(" ");
            if !uses_path {
                let _ = write!(line, " < {}", quote(&input));
            }
            line
        }
    };
    format!("{export} && {run}")
}

/// `word` quoted for a POSIX shell where it needs it (a reproduce line, a filter as typed).
pub fn quote(word: &str) -> String {
    shlex::try_quote(word).map_or_else(|_| word.to_owned(), |quoted| quoted.into_owned())
}

/// Warnings about a run that passed for the wrong reason: a validator that gives one
/// verdict to every validation case.
pub fn warnings(cases: &[&Case], results: &[CaseResult]) -> Vec<String> {
    let mut answered: BTreeMap<Verdict, usize> = BTreeMap::new();
    let mut expected: BTreeMap<Verdict, usize> = BTreeMap::new();
    for result in results {
        let case = cases[result.index];
        if case.operation != "validate" {
            continue;
        }
        if let Some(actual) = &result.actual {
            *answered.entry(actual.verdict).or_default() += 1;
            match case.verdict {
                ExpectedVerdict::Accept | ExpectedVerdict::AcceptWithWarnings => {
                    *expected.entry(Verdict::Accept).or_default() += 1;
                }
                ExpectedVerdict::Reject => *expected.entry(Verdict::Reject).or_default() += 1,
                _ => {}
            }
        }
    }
    let mut warnings = Vec::new();
    if let [(verdict, count)] = answered.iter().collect::<Vec<_>>()[..] {
        let other = match verdict {
            Verdict::Accept => Verdict::Reject,
            _ => Verdict::Accept,
        };
        if *count >= 2 && expected.get(&other).copied().unwrap_or(0) > 0 {
            let did = match verdict {
                Verdict::Accept => "accepted",
                _ => "rejected",
            };
            warnings.push(format!(
                "the validator {did} every one of the {count} validation cases it answered; \
                 the cases it passed say nothing about it (does it read its input? does its exit code follow the protocol?)"
            ));
        }
    }
    warnings
}

/// One line saying what to do next, or nothing when there is nothing to do.
fn next_steps(
    summary: &Summary,
    results: &[CaseResult],
    certificates: &[Certificate],
    context: &Context,
) -> Option<String> {
    let count = |kinds: &[&str]| {
        results
            .iter()
            .filter(|r| kinds.contains(&r.judgement.name()))
            .count()
    };
    let mut steps = Vec::new();
    let broken = count(&["crash", "timeout", "protocol-error"]);
    if broken > 0 {
        steps.push(format!(
            "fix the {broken} crashes, timeouts and protocol errors first (their output is under each)"
        ));
    }
    if summary.overall.failed > 0 {
        steps.push("reproduce a failure with the `reproduce:` line under it".to_owned());
        if context.report_dir.is_none() {
            steps.push("keep every record with --report DIR".to_owned());
        }
        steps.push(
            "list known failures with --write-expectations FILE and rerun with --expectations FILE"
                .to_owned(),
        );
    }
    let worst = certificates
        .iter()
        .filter(|certificate| certificate.operation == "validate")
        .map(|certificate| certificate.diagnostics_grade)
        .max_by_key(|grade| match grade {
            Grade::Exact => 0,
            Grade::Partial => 1,
            Grade::None => 2,
            _ => 3,
        });
    let partial = how_many(certificates, |certificate| !certificate.selection.complete);
    let uncertified = how_many(certificates, |certificate| {
        !certificate.certified && certificate.selection.complete
    });
    if steps.is_empty() && partial > 0 {
        steps.push(format!(
            "{} judged only part of the cases: run every case of the format (no --case, --rule, --input-name or --fail-fast) to be certified",
            counted(partial, "certificate", "certificates")
        ));
    }
    if steps.is_empty() && uncertified > 0 {
        steps.push(format!(
            "{} still {} known failures or skips of deciding cases (definite acceptances, must-level rules): fix those to be certified",
            counted(uncertified, "certificate", "certificates"),
            if uncertified == 1 { "counts" } else { "count" }
        ));
    }
    if steps.is_empty() && context.command.is_some() {
        match worst {
            Some(Grade::Wrong) => steps.push(
                "the diagnostics graded wrong are in report.jsonl (`diagnostics.unexpected`); fix them for a better diagnostics grade"
                    .to_owned(),
            ),
            Some(Grade::Partial) => steps.push(
                "report every diagnostic, not only the first, for an exact diagnostics grade"
                    .to_owned(),
            ),
            Some(Grade::None) => steps.push(
                "report diagnostics on stdout (the `soulcheck check --json` shape, harness/PROTOCOL.md) for a diagnostics grade"
                    .to_owned(),
            ),
            _ => {}
        }
    }
    (!steps.is_empty()).then(|| steps.join("; "))
}

/// The failure listing for Markdown (shared with [`markdown`]).
pub(crate) fn failure_lines_markdown(
    cases: &[&Case],
    results: &[CaseResult],
    context: &Context,
) -> Vec<String> {
    failure_lines(cases, results, context, "")
}
