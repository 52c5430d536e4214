//! Runs cases against a validator and judges each outcome against the case's expectation.
//!
//! Two things are judged apart. The *verdict* decides whether a case passes: a silent
//! validator and one that stops at the first error can conform exactly as well as one
//! that reports everything. The *diagnostics* get a [`Grade`] of their own (exact,
//! partial, wrong or none), reported beside the verdict; only the reference itself
//! (`Strictness::Reference`) fails a case on its diagnostics.

use soulcheck_vocabulary::{Context, Profile, Severity, Verdict};
use std::collections::{BTreeMap, BTreeSet};
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::Mutex;
use std::time::{Duration, Instant};

use serde::{Deserialize, Serialize};

use crate::catalogue::Catalogue;
use crate::corpus::{Case, Expectation, ExpectedDiagnostic};
use crate::expectations::Expectations;
use crate::tree::{materialise_temp, Materialised};
use crate::validator::{Answer, Evidence, Input, Observation, Outcome, Request, Validator};

/// How strictly outcomes are judged.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
#[non_exhaustive]
pub enum Strictness {
    /// For the reference implementation: implementation-defined cases must match the
    /// recorded reference choice, and diagnostics must match exactly.
    Reference,
    /// For any other validator: any allowed verdict conforms, and the diagnostics are
    /// graded beside the verdict without deciding the case.
    Conformance,
}

/// The judgement on one case.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(tag = "result", rename_all = "kebab-case")]
#[non_exhaustive]
pub enum Judgement {
    /// The validator conforms on this case.
    Pass,
    /// The verdict is not one the case allows.
    WrongVerdict {
        /// What the case expects.
        expected: String,
        /// What the validator said.
        actual: Verdict,
    },
    /// The verdict is right but the diagnostics differ (reference strictness only).
    WrongDiagnostics {
        /// Expected diagnostics the validator did not report.
        missing: Vec<ExpectedDiagnostic>,
        /// Reported diagnostics the case does not expect.
        unexpected: Vec<ExpectedDiagnostic>,
    },
    /// An operation returned a different value.
    WrongValue {
        /// Expected value.
        expected: serde_json::Value,
        /// Other values that would have conformed.
        #[serde(default, skip_serializing_if = "Vec::is_empty")]
        others: Vec<serde_json::Value>,
        /// Returned value, if any.
        actual: Option<serde_json::Value>,
    },
    /// The validator declined the case.
    Skipped {
        /// Its reason.
        reason: String,
    },
    /// The validator crashed or broke the protocol.
    Crashed {
        /// What happened.
        message: String,
    },
    /// The validator did not answer in time.
    TimedOut,
    /// The validator broke the protocol.
    ProtocolError {
        /// What was wrong.
        message: String,
    },
    /// A known failure listed in the expectations file.
    ExpectedFailure {
        /// The failure as it happened.
        actual: Box<Judgement>,
        /// The reason the expectations file gives.
        reason: String,
    },
    /// A case listed as a known failure passed: remove it from the expectations file.
    UnexpectedPass {
        /// The reason the expectations file gave.
        reason: String,
    },
    /// The harness could not prepare the case's input (a corpus defect).
    InputError {
        /// What went wrong.
        message: String,
    },
    /// The run was interrupted (SIGINT, SIGTERM, SIGHUP) while the case ran, and the
    /// harness stopped the validator: neither a pass nor the validator's failure.
    Interrupted {
        /// How the validator's process ended once the harness stopped it.
        message: String,
    },
}

impl Judgement {
    /// Whether the case passed.
    pub fn is_pass(&self) -> bool {
        matches!(self, Judgement::Pass)
    }

    /// Whether the case counts against the validator: anything but a pass, a skip, a
    /// failure the expectations file already lists, or a case the harness itself stopped.
    pub fn is_failure(&self) -> bool {
        !matches!(
            self,
            Judgement::Pass
                | Judgement::Skipped { .. }
                | Judgement::ExpectedFailure { .. }
                | Judgement::Interrupted { .. }
        )
    }

    /// Whether the case was skipped.
    pub fn is_skip(&self) -> bool {
        matches!(self, Judgement::Skipped { .. })
    }

    /// A one-word name for summaries.
    pub fn name(&self) -> &'static str {
        match self {
            Judgement::Pass => "pass",
            Judgement::WrongVerdict { .. } => "wrong-verdict",
            Judgement::WrongDiagnostics { .. } => "wrong-diagnostics",
            Judgement::WrongValue { .. } => "wrong-value",
            Judgement::Skipped { .. } => "skipped",
            Judgement::Crashed { .. } => "crash",
            Judgement::TimedOut => "timeout",
            Judgement::ProtocolError { .. } => "protocol-error",
            Judgement::ExpectedFailure { .. } => "expected-failure",
            Judgement::UnexpectedPass { .. } => "unexpected-pass",
            Judgement::InputError { .. } => "input-error",
            Judgement::Interrupted { .. } => "interrupted",
        }
    }

    /// A multi-line explanation of a failure, empty for a pass.
    pub fn explain(&self) -> String {
        match self {
            Judgement::Pass => String::new(),
            Judgement::WrongVerdict { expected, actual } => {
                format!("expected verdict {expected}, got {actual}")
            }
            Judgement::WrongDiagnostics {
                missing,
                unexpected,
            } => {
                let mut text = String::from("diagnostics differ");
                for diagnostic in missing {
                    text.push_str(&format!("\n  missing:    {diagnostic}"));
                }
                for diagnostic in unexpected {
                    text.push_str(&format!("\n  unexpected: {diagnostic}"));
                }
                text
            }
            Judgement::WrongValue {
                expected,
                others,
                actual,
            } => {
                let actual = actual
                    .as_ref()
                    .map_or("nothing".to_owned(), ToString::to_string);
                let mut expected = expected.to_string();
                for other in others {
                    expected.push_str(&format!(" or {other}"));
                }
                format!("expected value {expected}, got {actual}")
            }
            Judgement::Skipped { reason } => format!("skipped: {reason}"),
            Judgement::Crashed { message } => format!("crashed: {message}"),
            Judgement::TimedOut => "timed out".to_owned(),
            Judgement::ProtocolError { message } => format!("protocol error: {message}"),
            Judgement::ExpectedFailure { actual, reason } => {
                format!("expected failure ({reason}): {}", actual.explain())
            }
            Judgement::UnexpectedPass { reason } => {
                format!("listed as a known failure ({reason}) but passed: remove it from the expectations file")
            }
            Judgement::InputError { message } => format!("could not prepare the input: {message}"),
            Judgement::Interrupted { message } => format!(
                "the run was interrupted while this case ran and the harness stopped the validator (its process: {message}): not the validator's failure"
            ),
        }
    }
}

/// One case's result in a run.
#[derive(Debug, Clone, Serialize)]
pub struct CaseResult {
    /// The case's trial name (`<format>/<case-id>`).
    pub name: String,
    /// Index of the case in the corpus.
    #[serde(skip)]
    pub index: usize,
    /// The judgement.
    pub judgement: Judgement,
    /// Wall time spent in the validator.
    #[serde(skip)]
    pub duration: Duration,
    /// What the validator said, when it said anything judgeable.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub actual: Option<Observation>,
    /// How its diagnostics compare with the expected ones.
    pub diagnostics: Grading,
    /// What the validator printed, kept for cases that did not pass (or whose
    /// diagnostics were wrong), so the failure can be understood without a rerun.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub evidence: Option<Evidence>,
}

impl CaseResult {
    /// A result with no observation, grade or evidence (for reports built by hand).
    pub fn new(name: String, index: usize, judgement: Judgement) -> CaseResult {
        CaseResult {
            name,
            index,
            judgement,
            duration: Duration::ZERO,
            actual: None,
            diagnostics: Grading::default(),
            evidence: None,
        }
    }
}

/// How a validator's diagnostics compare with a case's expected ones.
#[derive(
    Debug, Clone, Copy, Default, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize,
)]
#[serde(rename_all = "kebab-case")]
#[non_exhaustive]
pub enum Grade {
    /// Exactly the expected multiset (optional diagnostics aside).
    Exact,
    /// At least one expected diagnostic at its location and no diagnostic of a catalogued
    /// rule the case does not expect: what a validator that stops at the first error earns.
    Partial,
    /// A diagnostic of a catalogued rule the case does not expect, or none of the expected
    /// ones.
    Wrong,
    /// Nothing to grade: the validator reported no diagnostics (no `diagnostics`, an empty
    /// list, or only rules the catalogue does not know), or the case expects none, or its
    /// diagnostics are not compared (implementation-defined or verdict-only cases).
    #[default]
    None,
}

impl Grade {
    /// The grade's name in reports.
    pub fn name(self) -> &'static str {
        match self {
            Grade::Exact => "exact",
            Grade::Partial => "partial",
            Grade::Wrong => "wrong",
            Grade::None => "none",
        }
    }
}

impl std::fmt::Display for Grade {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

/// The diagnostics grade of one case, with what made it.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Grading {
    /// The grade.
    pub grade: Grade,
    /// Expected diagnostics the validator did not report.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub missing: Vec<ExpectedDiagnostic>,
    /// Reported diagnostics of catalogued rules the case does not expect.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub unexpected: Vec<ExpectedDiagnostic>,
}

/// A case's input, ready for a validator, together with what must outlive the
/// validator's run: a tree input lives in a temporary directory that is removed when
/// this value is dropped. It dereferences to the [`Input`].
#[derive(Debug)]
pub struct PreparedInput {
    input: Input,
    _tree: Option<Materialised>,
}

impl PreparedInput {
    /// The input to hand the validator.
    pub fn input(&self) -> &Input {
        &self.input
    }
}

impl std::ops::Deref for PreparedInput {
    type Target = Input;

    fn deref(&self) -> &Input {
        &self.input
    }
}

/// Prepares the input a validator sees for a case. Document inputs are read into memory
/// (recipes expanded); directory inputs, committed or described (see [`crate::tree`]),
/// are materialised in a fresh temporary directory and handed over by path, so a
/// validator never sees or touches the corpus itself. Keep the result alive until the
/// validator has finished.
pub fn prepare_input(case: &Case) -> Result<PreparedInput, String> {
    match case.tree() {
        None => Ok(PreparedInput {
            input: Input::Document {
                file_name: case.input_name().to_owned(),
                bytes: case.input_bytes().map_err(|error| error.to_string())?,
            },
            _tree: None,
        }),
        Some(spec) => {
            let tree = materialise_temp(&case.dir, &spec).map_err(|error| error.to_string())?;
            Ok(PreparedInput {
                input: Input::Tree {
                    root: tree.root.clone(),
                },
                _tree: Some(tree),
            })
        }
    }
}

/// Runs one case against a validator and judges the outcome. A panic inside an in-process
/// validator is caught and judged a crash.
pub fn run_case(
    validator: &dyn Validator,
    case: &Case,
    catalogue: &Catalogue,
    strictness: Strictness,
    profile: Profile,
) -> CaseRun {
    match prepare_input(case) {
        Ok(input) => run_prepared(validator, case, &input, catalogue, strictness, profile),
        Err(message) => input_error(message),
    }
}

/// [`run_case`], with the prepared input checked first as the corpus's self-check would
/// check it ([`crate::selfcheck::document_problems`]); a problem is an input error.
pub fn run_case_checked(
    validator: &dyn Validator,
    case: &Case,
    catalogue: &Catalogue,
    strictness: Strictness,
    profile: Profile,
) -> CaseRun {
    let input = match prepare_input(case) {
        Ok(input) => input,
        Err(message) => return input_error(message),
    };
    if let Input::Document { bytes, .. } = input.input() {
        let problems = crate::selfcheck::document_problems(case, bytes);
        if !problems.is_empty() {
            return input_error(format!(
                "the corpus case fails its self-check: {}",
                problems.join("; ")
            ));
        }
    }
    run_prepared(validator, case, &input, catalogue, strictness, profile)
}

/// The run of a case whose input could not be prepared.
fn input_error(message: String) -> CaseRun {
    CaseRun {
        judgement: Judgement::InputError { message },
        duration: Duration::ZERO,
        actual: None,
        diagnostics: Grading::default(),
        evidence: None,
    }
}

/// Runs one case on its prepared input and judges the outcome.
fn run_prepared(
    validator: &dyn Validator,
    case: &Case,
    input: &PreparedInput,
    catalogue: &Catalogue,
    strictness: Strictness,
    profile: Profile,
) -> CaseRun {
    let context = profile_context(&case.context, profile);
    let request = Request {
        case_id: &case.id,
        format: case.format,
        operation: &case.operation,
        input: input.input(),
        context: &context,
        profile,
    };
    let started = Instant::now();
    let Answer { outcome, evidence } =
        catch_unwind(AssertUnwindSafe(|| validator.answer(&request))).unwrap_or_else(|panic| {
            let message = panic
                .downcast_ref::<&str>()
                .map(|text| (*text).to_owned())
                .or_else(|| panic.downcast_ref::<String>().cloned())
                .unwrap_or_else(|| "panic".to_owned());
            Outcome::Crashed {
                message: format!("panicked: {message}"),
            }
            .into()
        });
    let duration = started.elapsed();
    let Assessment {
        judgement,
        diagnostics,
    } = assess(case, &outcome, catalogue, strictness, profile);
    // Evidence of a passing case with acceptable diagnostics would only cost memory; a
    // case whose diagnostics were cut keeps it, to say so.
    let evidence = evidence.filter(|evidence| {
        !judgement.is_pass()
            || diagnostics.grade == Grade::Wrong
            || evidence.diagnostics_dropped > 0
    });
    let actual = match outcome {
        Outcome::Observed(observation) => Some(observation),
        _ => None,
    };
    CaseRun {
        judgement,
        duration,
        actual,
        diagnostics,
        evidence,
    }
}

/// The context a validator sees: the case's, plus `"profile": "strict"` in a strict run,
/// so a validator behind the protocol learns the profile the way it learns the clock.
pub fn profile_context(context: &Context, profile: Profile) -> Context {
    let mut context = context.clone();
    if profile != Profile::Spec {
        context.insert("profile".to_owned(), profile.name().into());
    }
    context
}

/// What running one case produced.
#[derive(Debug, Clone)]
pub struct CaseRun {
    /// The judgement.
    pub judgement: Judgement,
    /// Time spent in the validator.
    pub duration: Duration,
    /// The validator's answer, when it gave one.
    pub actual: Option<Observation>,
    /// The diagnostics grade.
    pub diagnostics: Grading,
    /// What the validator printed, for a case that did not pass.
    pub evidence: Option<Evidence>,
}

/// The judgement of an outcome and the grade of its diagnostics.
#[derive(Debug, Clone, PartialEq)]
pub struct Assessment {
    /// Whether the case passed, and if not, why.
    pub judgement: Judgement,
    /// The diagnostics grade (`none` when the validator did not answer).
    pub diagnostics: Grading,
}

/// How the reference's reason for declining an input past one of its bounds begins
/// (`reference = "not-judged"` in a case).
pub const NOT_JUDGED: &str = "not judged: ";

/// Judges an outcome against a case's expectation in `profile`.
pub fn judge(
    case: &Case,
    outcome: &Outcome,
    catalogue: &Catalogue,
    strictness: Strictness,
    profile: Profile,
) -> Judgement {
    assess(case, outcome, catalogue, strictness, profile).judgement
}

/// Judges an outcome and grades its diagnostics.
pub fn assess(
    case: &Case,
    outcome: &Outcome,
    catalogue: &Catalogue,
    strictness: Strictness,
    profile: Profile,
) -> Assessment {
    // Past a bound of its own the reference declines in the spec profile, saying so; any
    // other validator may give a verdict or decline too (the case is implementation-defined).
    if strictness == Strictness::Reference && profile == Profile::Spec && case.reference_not_judged
    {
        let judgement = match outcome {
            Outcome::Skipped { reason } if reason.starts_with(NOT_JUDGED) => Judgement::Pass,
            Outcome::Observed(observation) => Judgement::WrongVerdict {
                expected: "not judged (the input is past a bound of the reference)".to_owned(),
                actual: observation.verdict,
            },
            other => judge_unobserved(other),
        };
        return Assessment {
            judgement,
            diagnostics: Grading::default(),
        };
    }
    let Outcome::Observed(observation) = outcome else {
        return Assessment {
            judgement: judge_unobserved(outcome),
            diagnostics: Grading::default(),
        };
    };
    let expectation = case.expectation(profile);
    let diagnostics = grade(case, &expectation, observation, catalogue, strictness);
    let judgement = judge_observed(case, &expectation, observation, &diagnostics, strictness);
    Assessment {
        judgement,
        diagnostics,
    }
}

fn judge_unobserved(outcome: &Outcome) -> Judgement {
    match outcome {
        Outcome::Skipped { reason } => Judgement::Skipped {
            reason: reason.clone(),
        },
        Outcome::Crashed { message } => Judgement::Crashed {
            message: message.clone(),
        },
        Outcome::TimedOut => Judgement::TimedOut,
        Outcome::ProtocolError { message } => Judgement::ProtocolError {
            message: message.clone(),
        },
        // Only the unobserved outcomes come here.
        Outcome::Observed(_) => Judgement::Pass,
    }
}

fn judge_observed(
    case: &Case,
    expectation: &Expectation,
    observation: &Observation,
    diagnostics: &Grading,
    strictness: Strictness,
) -> Judgement {
    // An operation's value is compared where the case is definite; where it is
    // implementation-defined (the value rests on a decision of this suite) only the
    // reference must give the recorded one.
    let value_decided = strictness == Strictness::Reference || expectation.verdict.is_definite();
    if let Some(expected) = case.value.as_ref().filter(|_| value_decided) {
        // The reference gives the case's value; another validator may give any value that
        // conforms (the case's `other_values`, readings the spec leaves open).
        let conforms = |value: &serde_json::Value| {
            value == expected
                || (strictness == Strictness::Conformance && case.other_values.contains(value))
        };
        if !observation.value.as_ref().is_some_and(conforms) {
            return Judgement::WrongValue {
                expected: expected.clone(),
                others: if strictness == Strictness::Conformance {
                    case.other_values.clone()
                } else {
                    Vec::new()
                },
                actual: observation.value.clone(),
            };
        }
    }
    let verdict_ok = match strictness {
        Strictness::Reference => observation.verdict == expectation.verdict.reference_verdict(),
        Strictness::Conformance => expectation.verdict.allows(observation.verdict),
    };
    if !verdict_ok {
        return Judgement::WrongVerdict {
            expected: expectation.verdict.to_string(),
            actual: observation.verdict,
        };
    }
    match strictness {
        // Another validator is judged on its verdict; its diagnostics are graded beside it.
        Strictness::Conformance => Judgement::Pass,
        Strictness::Reference if observation.diagnostics.is_none() => Judgement::Crashed {
            message: "the reference must report diagnostics".to_owned(),
        },
        Strictness::Reference
            if diagnostics.missing.is_empty() && diagnostics.unexpected.is_empty() =>
        {
            Judgement::Pass
        }
        Strictness::Reference => Judgement::WrongDiagnostics {
            missing: diagnostics.missing.clone(),
            unexpected: diagnostics.unexpected.clone(),
        },
    }
}

/// Grades the diagnostics of an observation. The reference must report its optional
/// diagnostics too; another validator may report each of them or not.
fn grade(
    case: &Case,
    expectation: &Expectation,
    observation: &Observation,
    catalogue: &Catalogue,
    strictness: Strictness,
) -> Grading {
    // Another validator's diagnostics are compared only where the verdict is definite:
    // an implementation-defined verdict rests on a decision of this suite, and so do the
    // diagnostics that come with it.
    if strictness == Strictness::Conformance
        && (case.verdict_only || !expectation.verdict.is_definite())
    {
        return Grading::default();
    }
    grade_against(expectation, observation, catalogue, strictness)
}

/// Grades the diagnostics of an observation against an expectation, whatever its
/// verdict: the multiset comparison behind [`Grade`], shared with the differential
/// checks, which take another validator's diagnostics as the expectation.
pub fn grade_against(
    expectation: &Expectation,
    observation: &Observation,
    catalogue: &Catalogue,
    strictness: Strictness,
) -> Grading {
    let reported = observation.diagnostics.as_deref().unwrap_or_default();
    let mut expected: BTreeMap<ExpectedDiagnostic, usize> = BTreeMap::new();
    for diagnostic in &expectation.diagnostics {
        *expected.entry(diagnostic.clone()).or_default() += 1;
    }
    // The reference must report its optional diagnostics too; another validator may
    // report each of them or not.
    let mut optional: BTreeMap<ExpectedDiagnostic, usize> = BTreeMap::new();
    for diagnostic in &expectation.optional {
        let slot = match strictness {
            Strictness::Reference => &mut expected,
            Strictness::Conformance => &mut optional,
        };
        *slot.entry(diagnostic.clone()).or_default() += 1;
    }
    let expected_rules: BTreeSet<(&str, Severity)> = expectation
        .diagnostics
        .iter()
        .chain(&expectation.optional)
        .map(|diagnostic| (diagnostic.rule.as_str(), diagnostic.severity))
        .collect();
    let mut unexpected = Vec::new();
    // Expected (not optional) diagnostics the validator did report.
    let mut matched = 0usize;
    // Located diagnostics first, so a location-less one only takes what they leave.
    let (located, unlocated): (Vec<_>, Vec<_>) =
        reported.iter().partition(|d| d.location.is_some());
    for diagnostic in located {
        let key = ExpectedDiagnostic {
            rule: diagnostic.rule.clone(),
            severity: diagnostic.severity,
            location: diagnostic.location.clone().unwrap_or_default(),
        };
        if let Some(count) = optional.get_mut(&key).filter(|count| **count > 0) {
            *count -= 1;
            continue;
        }
        match expected.get_mut(&key) {
            Some(count) if *count > 0 => {
                *count -= 1;
                matched += 1;
            }
            _ => {
                // Conformance mode ignores diagnostics of rules the catalogue does not
                // know: an implementation may have checks of its own.
                if strictness == Strictness::Reference || catalogue.get(&key.rule).is_some() {
                    unexpected.push(key);
                }
            }
        }
    }
    for diagnostic in unlocated {
        // A diagnostic without a location matches its rule anywhere; repeating a rule
        // the case expects is not an error.
        let slot = expected.iter_mut().find(|(key, count)| {
            **count > 0 && key.rule == diagnostic.rule && key.severity == diagnostic.severity
        });
        match slot {
            Some((_, count)) => {
                *count -= 1;
                matched += 1;
            }
            None if expected_rules.contains(&(diagnostic.rule.as_str(), diagnostic.severity)) => {}
            None => {
                if strictness == Strictness::Reference || catalogue.get(&diagnostic.rule).is_some()
                {
                    unexpected.push(ExpectedDiagnostic {
                        rule: diagnostic.rule.clone(),
                        severity: diagnostic.severity,
                        location: Default::default(),
                    });
                }
            }
        }
    }
    let missing: Vec<ExpectedDiagnostic> = expected
        .into_iter()
        .flat_map(|(diagnostic, count)| std::iter::repeat_n(diagnostic, count))
        .collect();
    let reported_any = reported.iter().any(|diagnostic| {
        strictness == Strictness::Reference || catalogue.get(&diagnostic.rule).is_some()
    });
    let grade = if !reported_any {
        // Nothing reported (or only rules of the validator's own) cannot be wrong.
        Grade::None
    } else if !unexpected.is_empty() {
        Grade::Wrong
    } else if missing.is_empty() {
        Grade::Exact
    } else if matched > 0 {
        Grade::Partial
    } else {
        Grade::Wrong
    };
    Grading {
        grade,
        missing,
        unexpected,
    }
}

/// Options of a run beyond the validator and the cases.
#[derive(Default)]
pub struct RunOptions<'a> {
    /// Parallel workers (at least one).
    pub jobs: usize,
    /// The profile whose expectations judge the run.
    pub profile: Profile,
    /// Stop scheduling new cases after the first failure.
    pub fail_fast: bool,
    /// Known failures to re-judge results against.
    pub expectations: Option<&'a Expectations>,
    /// Called once per finished case, in completion order (for streaming reports and
    /// progress).
    pub on_result: Option<&'a (dyn Fn(&CaseResult) + Sync)>,
    /// Check each input as it is prepared, as the corpus's self-check would
    /// ([`crate::selfcheck::document_problems`]): a problem is the case's
    /// [`Judgement::InputError`]. A run whose self-check does not build the selected
    /// cases' inputs sets this, so each input is built once, for its case.
    pub check_inputs: bool,
}

/// Runs `cases` against `validator`; results come back in case order. With `fail_fast`,
/// cases not started before the first failure are left out.
pub fn run_all(
    validator: &dyn Validator,
    cases: &[&Case],
    catalogue: &Catalogue,
    strictness: Strictness,
    options: &RunOptions<'_>,
) -> Vec<CaseResult> {
    let next = AtomicUsize::new(0);
    let stop = AtomicBool::new(false);
    let results = Mutex::new(Vec::with_capacity(cases.len()));
    std::thread::scope(|scope| {
        for _ in 0..options.jobs.max(1) {
            scope.spawn(|| loop {
                if stop.load(Ordering::Relaxed) {
                    break;
                }
                // No case starts once a signal is ending the run; one that has started is
                // waited for (briefly) before the report is closed.
                let Some(_in_flight) = crate::interrupt::case_started() else {
                    break;
                };
                let index = next.fetch_add(1, Ordering::Relaxed);
                let Some(case) = cases.get(index) else { break };
                let run = if options.check_inputs {
                    run_case_checked(validator, case, catalogue, strictness, options.profile)
                } else {
                    run_case(validator, case, catalogue, strictness, options.profile)
                };
                let Some(run) = after_interruption(run) else {
                    break;
                };
                let mut result = CaseResult {
                    name: case.name(),
                    index,
                    judgement: run.judgement,
                    duration: run.duration,
                    actual: run.actual,
                    diagnostics: run.diagnostics,
                    evidence: run.evidence,
                };
                if let Some(expectations) = options.expectations {
                    expectations.apply(std::slice::from_mut(&mut result));
                }
                if options.fail_fast && result.judgement.is_failure() {
                    stop.store(true, Ordering::Relaxed);
                }
                if let Some(on_result) = options.on_result {
                    on_result(&result);
                }
                results
                    .lock()
                    .unwrap_or_else(|poisoned| poisoned.into_inner())
                    .push(result);
            });
        }
    });
    let mut results = results
        .into_inner()
        .unwrap_or_else(|poisoned| poisoned.into_inner());
    results.sort_by_key(|result| result.index);
    results
}

/// A case's run as the record should tell it when a signal may have cut it short. Outside
/// an interruption, the run as it is. Once a signal is ending the run, a validator that
/// answered (a verdict, a value, a refusal) keeps its judgement; one that failed to answer
/// after it was started (the harness has its output: evidence) was stopped by the harness,
/// so it is [`Judgement::Interrupted`], never the validator's crash or timeout; and a case
/// whose validator never started (no process, no evidence: the harness refused to start
/// one) did not run, so it gets no record at all (`None`).
fn after_interruption(run: CaseRun) -> Option<CaseRun> {
    if !crate::interrupt::interrupted() {
        return Some(run);
    }
    match &run.judgement {
        Judgement::Crashed { .. }
        | Judgement::TimedOut
        | Judgement::ProtocolError { .. }
        | Judgement::InputError { .. } => {
            let evidence = run.evidence.as_ref()?;
            let message = evidence.exit.clone();
            Some(CaseRun {
                judgement: Judgement::Interrupted { message },
                actual: None,
                diagnostics: Grading::default(),
                ..run
            })
        }
        _ => Some(run),
    }
}
