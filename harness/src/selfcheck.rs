//! The corpus self-check: the corpus must be well formed before any validator is judged
//! against it. `cargo test` runs it as a trial of its own.

use soulcheck_vocabulary::{Basis, Level, Profile, Severity, Verdict};
use std::collections::{BTreeMap, BTreeSet};
use std::fmt;

use crate::catalogue::Catalogue;
use crate::corpus::{Case, Corpus, Expectation, ExpectedVerdict, InputSource};

/// One defect found in the corpus.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Problem {
    /// The case concerned (`<format>/<id>`), or the rule, or `corpus`.
    pub subject: String,
    /// What is wrong.
    pub message: String,
}

impl fmt::Display for Problem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.subject, self.message)
    }
}

/// Invisible characters that must be named in a case's description when its input holds
/// them, with the words that count as naming them.
const INVISIBLES: &[(&str, &[&str])] = &[
    ("a byte order mark", &["bom", "byte order mark"]),
    ("a carriage return", &["cr", "crlf", "carriage return"]),
    ("a tab", &["tab"]),
    (
        "trailing whitespace on a line",
        &["trailing space", "trailing whitespace", "trailing blank"],
    ),
    (
        "no final newline",
        &[
            "no final newline",
            "no trailing newline",
            "without a final newline",
            "empty",
        ],
    ),
];

/// Checks the whole corpus against the catalogue and returns every problem found.
pub fn check(corpus: &Corpus, catalogue: &Catalogue) -> Vec<Problem> {
    check_building(corpus, catalogue, &|_| true)
}

/// Checks the whole corpus against the catalogue, but builds the inputs (generated
/// documents, materialised trees) of only the cases `build` selects: the structure of every
/// case and the rules' coverage are checked as [`check`] does, and they cost little, while
/// building every input costs more than running a few cases. A run checks the inputs of the
/// cases it runs; `cargo test` and a run without filters check them all.
pub fn check_building(
    corpus: &Corpus,
    catalogue: &Catalogue,
    build: &dyn Fn(&Case) -> bool,
) -> Vec<Problem> {
    let mut problems = Vec::new();
    let mut seen: BTreeMap<&str, String> = BTreeMap::new();
    // Per rule: (cases triggering it, cases exercising it without triggering it,
    // operation cases naming it), counting only cases with a definite verdict.
    let mut triggered: BTreeMap<&str, usize> = BTreeMap::new();
    let mut passed: BTreeMap<&str, usize> = BTreeMap::new();
    let mut operations: BTreeMap<&str, usize> = BTreeMap::new();
    let mut named: BTreeSet<&str> = BTreeSet::new();

    for case in &corpus.cases {
        let subject = case.name();
        let mut problem = |message: String| {
            problems.push(Problem {
                subject: subject.clone(),
                message,
            })
        };
        if let Some(other) = seen.insert(&case.id, case.name()) {
            problem(format!("case ID `{}` is also used by {other}", case.id));
        }
        if corpus.retired.contains(&case.id) {
            problem(format!(
                "case ID `{}` is retired and may not be reused",
                case.id
            ));
        }
        if case.description.trim().is_empty() || case.description.contains('\n') {
            problem("the description must be one non-empty line".to_owned());
        }
        if case.rules.is_empty() {
            problem("the case names no rule".to_owned());
        }
        for rule in case.all_rules() {
            named.insert(rule);
            match catalogue.get(rule) {
                None => problem(format!("unknown rule ID `{rule}`")),
                Some(found) if found.format != case.format => problem(format!(
                    "rule `{rule}` belongs to {}, not {}",
                    found.format, case.format
                )),
                Some(_) => {}
            }
        }
        let strict_diagnostics = case
            .strict
            .iter()
            .flat_map(|strict| strict.diagnostics.iter().chain(&strict.optional));
        for diagnostic in case
            .diagnostics
            .iter()
            .chain(&case.optional)
            .chain(strict_diagnostics)
        {
            if !case.rules.contains(&diagnostic.rule) {
                problem(format!(
                    "diagnostic rule `{}` is missing from `rules`",
                    diagnostic.rule
                ));
            }
        }
        let spec = case.expectation(Profile::Spec);
        if case.reference_not_judged {
            // The reference declines the input, so the spec profile's diagnostics are what
            // it read before the bound: warnings only (an error would be a verdict).
            if !matches!(spec.verdict, ExpectedVerdict::ImplementationDefined { .. }) {
                problem(
                    "`reference = \"not-judged\"` belongs to implementation-defined cases"
                        .to_owned(),
                );
            }
            if spec
                .diagnostics
                .iter()
                .chain(&spec.optional)
                .any(|diagnostic| diagnostic.severity == Severity::Error)
            {
                problem(
                    "a case the reference does not judge expects no error in the spec profile"
                        .to_owned(),
                );
            }
            if case.strict.is_none() {
                problem("a case the reference does not judge gives the strict profile's expectation in a [strict] table".to_owned());
            }
        } else if let Some(message) = inconsistency(&spec) {
            problem(message);
        }
        if let Some(strict) = &case.strict {
            if let Some(message) = inconsistency(strict) {
                problem(format!("[strict]: {message}"));
            }
            if *strict == case.expectation(Profile::Spec) {
                problem(
                    "the [strict] table repeats the spec profile's expectation; drop it".to_owned(),
                );
            }
        }
        // Only the spec's text (or a uniform upstream shape) may fail a validator: a
        // definite verdict in the spec profile rests on such rules alone.
        // A strict-only rule never fires in the spec profile, so a spec verdict cannot rest
        // on it: naming it (for the [strict] table's sake) is fine.
        if spec.verdict.is_definite() {
            for rule in case.spec_rules() {
                // A definite reject rests on its errors: a suite rule that only warns in
                // it (an unknown member beside missing required ones) decides nothing.
                let only_warns = spec.verdict == ExpectedVerdict::Reject
                    && spec
                        .diagnostics
                        .iter()
                        .chain(&spec.optional)
                        .filter(|diagnostic| diagnostic.rule == rule)
                        .all(|diagnostic| diagnostic.severity == Severity::Warning);
                if !only_warns
                    && catalogue.get(rule).is_some_and(|found| {
                        found.basis == Basis::Suite && !found.strict && !found.kind.is_bound()
                    })
                {
                    problem(format!(
                        "the definite verdict rests on `{rule}`, which is a decision of this suite: make the case implementation-defined, or, where the spec's text allows what the rule forbids, make the rule strict-only and give the strict profile's expectation in a [strict] table"
                    ));
                }
            }
        }
        for diagnostic in spec.diagnostics.iter().chain(&spec.optional) {
            // A bound names the reference's limit, never a broken rule of the spec: in the
            // spec profile it only warns (past it the reference does not judge), so a
            // definite verdict may name it and no case expects it as an error there.
            if diagnostic.severity == Severity::Error
                && catalogue
                    .get(&diagnostic.rule)
                    .is_some_and(|rule| rule.kind.is_bound())
            {
                problem(format!(
                    "`{}` is a bound of the reference: in the spec profile it is a warning (the error belongs in the [strict] table)",
                    diagnostic.rule
                ));
            }
            if catalogue
                .get(&diagnostic.rule)
                .is_some_and(|rule| rule.strict)
            {
                problem(format!(
                    "`{}` applies in the strict profile only; its diagnostics belong in the [strict] table",
                    diagnostic.rule
                ));
            }
        }
        match (case.operation.as_str(), &case.value) {
            ("validate", Some(_)) => problem("a `validate` case has no `value`".to_owned()),
            ("validate", None) => {}
            (_, None) => problem(format!(
                "operation `{}` needs an expected `value`",
                case.operation
            )),
            (_, Some(_)) => {}
        }
        match &case.input {
            _ if !build(case) => {}
            // A tree must build: its description was checked when the case loaded, and
            // building it once catches the rest (an entry below a non-directory, a
            // duplicate entry, a committed symlink, a failing recipe).
            InputSource::Directory { .. } | InputSource::Tree(_) => {
                if let Some(spec) = case.tree() {
                    if let Err(error) = crate::tree::materialise_temp(&case.dir, &spec) {
                        problem(format!("tree input: {error}"));
                    }
                }
            }
            InputSource::File { .. } | InputSource::Recipe(_) => match case.input_bytes() {
                Err(error) => problem(format!("input: {error}")),
                Ok(bytes) => {
                    for message in document_problems(case, &bytes) {
                        problem(message);
                    }
                }
            },
        }

        // Coverage counts the profile in which a rule decides verdicts: the spec profile
        // for the spec's own rules, the strict profile for the suite's.
        for rule in &case.rules {
            if case.operation != "validate" {
                *operations.entry(rule).or_default() += 1;
                continue;
            }
            let profile = match catalogue.get(rule) {
                Some(found) if found.decides_spec_verdicts() => Profile::Spec,
                _ => Profile::Strict,
            };
            let expectation = case.expectation(profile);
            if !expectation.verdict.is_definite() {
                continue;
            }
            let fired = expectation
                .diagnostics
                .iter()
                .chain(&expectation.optional)
                .any(|diagnostic| diagnostic.rule == *rule);
            if fired {
                *triggered.entry(rule).or_default() += 1;
            } else {
                *passed.entry(rule).or_default() += 1;
            }
        }
    }

    for rule in catalogue.rules() {
        let subject = format!("rule {}", rule.id);
        if !named.contains(rule.id.as_str()) {
            problems.push(Problem {
                subject,
                message: "no case exercises this rule".to_owned(),
            });
            continue;
        }
        let binding = matches!(rule.level, Level::Must | Level::Should);
        let by_operation = operations.get(rule.id.as_str()).copied().unwrap_or(0) > 0;
        if binding && !by_operation {
            if triggered.get(rule.id.as_str()).copied().unwrap_or(0) == 0 {
                problems.push(Problem {
                    subject: subject.clone(),
                    message: "no case with a definite verdict breaks this rule".to_owned(),
                });
            }
            if passed.get(rule.id.as_str()).copied().unwrap_or(0) == 0 {
                problems.push(Problem {
                    subject,
                    message: "no case with a definite verdict exercises this rule and passes it"
                        .to_owned(),
                });
            }
        }
    }
    problems
}

/// What is wrong with the document a case's input was built into, if anything: every
/// invisible or look-alike character it holds must be named in the case's description, so
/// a reader of the case knows it is there. [`check_building`] asks this of the documents
/// it builds; a run that builds its inputs itself asks it of each prepared input instead
/// (see `RunOptions::check_inputs` in [`crate::runner`]), so no input is built twice.
pub fn document_problems(case: &Case, bytes: &[u8]) -> Vec<String> {
    let lower = case.description.to_lowercase();
    invisible_characters(bytes)
        .into_iter()
        .filter(|(_, words)| !words.iter().any(|word| contains_word(&lower, word)))
        .map(|(what, _)| format!("the input holds {what}, which the description must name"))
        .collect()
}

/// Why an expectation's verdict disagrees with its diagnostics, if it does.
fn inconsistency(expectation: &Expectation) -> Option<String> {
    let count = |list: &[crate::ExpectedDiagnostic], severity| {
        list.iter().filter(|d| d.severity == severity).count()
    };
    let errors = count(&expectation.diagnostics, Severity::Error);
    let warnings = count(&expectation.diagnostics, Severity::Warning);
    let optional_errors = count(&expectation.optional, Severity::Error);
    let consistent = match &expectation.verdict {
        ExpectedVerdict::Accept => {
            expectation.diagnostics.is_empty() && expectation.optional.is_empty()
        }
        ExpectedVerdict::AcceptWithWarnings => errors == 0 && optional_errors == 0 && warnings > 0,
        ExpectedVerdict::Reject => errors > 0,
        ExpectedVerdict::ImplementationDefined { allowed, reference } => {
            allowed.len() > 1
                && ((*reference == Verdict::Reject) == (errors > 0))
                && (optional_errors == 0 || errors > 0)
        }
    };
    (!consistent).then(|| {
        format!(
            "verdict {} does not agree with the expected diagnostics ({errors} errors, {warnings} warnings, {optional_errors} optional errors)",
            expectation.verdict
        )
    })
}

fn contains_word(haystack: &str, word: &str) -> bool {
    haystack.match_indices(word).any(|(at, _)| {
        let before = haystack[..at].chars().next_back();
        let after = haystack[at + word.len()..].chars().next();
        !before.is_some_and(char::is_alphanumeric) && !after.is_some_and(char::is_alphanumeric)
    })
}

fn invisible_characters(bytes: &[u8]) -> Vec<(&'static str, &'static [&'static str])> {
    let mut found = Vec::new();
    // Whether the line ending at `end` (exclusive, before its LF) ends in a space or a tab,
    // a CR before the LF aside. The byte before a line's start is an LF, so looking back
    // from `end` never mistakes the previous line's content for this one's.
    let blank_at_end = |end: usize| {
        let line = &bytes[..end];
        let line = line.strip_suffix(b"\r").unwrap_or(line);
        matches!(line.last(), Some(b' ' | b'\t'))
    };
    // Only the line ends are looked at, found with a vectorized search: generated inputs
    // run to megabytes.
    let has_trailing_whitespace =
        memchr::memchr_iter(b'\n', bytes).any(blank_at_end) || blank_at_end(bytes.len());
    let checks = [
        bytes.starts_with(b"\xEF\xBB\xBF"),
        bytes.contains(&b'\r'),
        bytes.contains(&b'\t'),
        has_trailing_whitespace,
        !bytes.ends_with(b"\n"),
    ];
    for (present, (what, words)) in checks.into_iter().zip(INVISIBLES) {
        if present {
            found.push((*what, *words));
        }
    }
    found
}
