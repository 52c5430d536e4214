//! Differential checking: the same input through a validator under test and through an
//! oracle (the reference, reached through the [`Validator`] trait like any other
//! validator, so this crate still knows no implementation), and a judgement of how the
//! two answers differ.
//!
//! A corpus asks only the questions someone thought of; generated inputs ask the others.
//! Where no case says what the answer must be, the oracle's answer stands in for it. Every
//! disagreement gets a [`Class`], and only one about a document the spec (or the
//! publisher's code) decides in the campaign's profile is a finding: a different verdict,
//! or a diagnostics grade of `wrong` when the validator reports diagnostics at all. What
//! rests on a reading is counted apart with the reading named: rules that do not decide in
//! the profile (`suite` rules in the spec profile, strict-only rules, the reference's own
//! bounds), a value the document repeats where repeated members are left open, the strict
//! profile's protective reading where the validator's answer matches it
//! ([`Differential::judge_with`]), and the open points the generator's source names
//! ([`Disagreement::on_open_points`]). A rejection of a document both profiles accept,
//! with no open point in sight, is a finding whatever rule the validator names, and if it
//! names none; one that names none where an open reading refuses is unexplained. A crash,
//! a timeout or a broken protocol is always a finding: no reading of the spec makes one
//! right.
//!
//! [`Differential::compare`] judges one input; [`check_one`] is the short form for a fuzz
//! target. [`campaign`] runs many generated inputs in parallel, deduplicates what it finds
//! by rule and kind, and [`shrink`]s each finding; [`draft`] writes a finding as a draft
//! case for review, and [`jsonl`] the campaign's JSON Lines record.

pub mod campaign;
pub mod draft;
pub mod jsonl;
pub mod shrink;

use std::collections::BTreeSet;
use std::fmt;
use std::panic::{catch_unwind, AssertUnwindSafe};

use serde::{Deserialize, Serialize};
use soulcheck_vocabulary::{Context, Format, Profile, Severity, Verdict};

use crate::catalogue::Catalogue;
use crate::corpus::{Expectation, ExpectedDiagnostic, ExpectedVerdict};
use crate::runner::{grade_against, profile_context, Grade, Grading, Strictness};
use crate::validator::{Answer, Input, Observation, Outcome, Request, Validator};
use soulcheck_vocabulary::catalogue::RuleKind;

/// The case ID requests of a differential check carry (a validator may log it).
pub const REQUEST_ID: &str = "differential";

/// How a validator's answer differs from the oracle's.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
#[non_exhaustive]
pub enum Kind {
    /// The oracle accepts; the validator rejects.
    RejectsValid,
    /// The oracle rejects; the validator accepts.
    AcceptsInvalid,
    /// The verdicts agree, but the validator reports a catalogued rule the oracle does not
    /// report there.
    UnexpectedDiagnostic,
    /// The verdicts agree, but the validator's diagnostics include none of the oracle's.
    MissedDiagnostics,
    /// The validator crashed, or answered with an error of its own.
    Crash,
    /// The validator did not answer in time.
    Timeout,
    /// The validator's answer broke the protocol.
    ProtocolError,
}

impl Kind {
    /// Every kind, in the order summaries list them.
    pub const ALL: &'static [Kind] = &[
        Kind::Crash,
        Kind::Timeout,
        Kind::ProtocolError,
        Kind::AcceptsInvalid,
        Kind::RejectsValid,
        Kind::UnexpectedDiagnostic,
        Kind::MissedDiagnostics,
    ];

    /// The kind's name in reports and case IDs.
    pub fn name(self) -> &'static str {
        match self {
            Kind::RejectsValid => "rejects-valid",
            Kind::AcceptsInvalid => "accepts-invalid",
            Kind::UnexpectedDiagnostic => "unexpected-diagnostic",
            Kind::MissedDiagnostics => "missed-diagnostics",
            Kind::Crash => "crash",
            Kind::Timeout => "timeout",
            Kind::ProtocolError => "protocol-error",
        }
    }

    /// Whether the disagreement is about the verdict (or no verdict at all), rather than
    /// about the diagnostics beside an agreeing verdict.
    pub fn is_verdict(self) -> bool {
        !matches!(self, Kind::UnexpectedDiagnostic | Kind::MissedDiagnostics)
    }
}

impl fmt::Display for Kind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// What findings are deduplicated by: the rule a disagreement is about and its kind.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub struct Key {
    /// The rule; `None` when no catalogued rule names the disagreement (a crash, or a
    /// rejection the validator gives no catalogued reason for).
    pub rule: Option<String>,
    /// The kind of disagreement.
    pub kind: Kind,
}

impl fmt::Display for Key {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{} ({})",
            self.rule.as_deref().unwrap_or("no rule"),
            self.kind
        )
    }
}

/// What a disagreement rests on, and so whether it is a finding.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
#[non_exhaustive]
pub enum Class {
    /// A rule that decides in the campaign's profile (the spec's text, or the publisher's
    /// code on every path); a rejection of a document both profiles accept with no open
    /// point in sight, named rule or not; or a crash, timeout or broken protocol: a
    /// finding.
    Finding,
    /// Only what the strict profile adds: its rules (the spec allows what they refuse),
    /// or its protective reading of an open point, which the validator's answer matches.
    StrictOnly,
    /// Only a bound of the reference's own (a size, depth or entry limit), never a rule
    /// of the spec.
    Bound,
    /// Only points the spec leaves open: `suite` rules in the spec profile, or a value the
    /// document repeats where which occurrence counts is open.
    ImplementationDefined,
    /// The validator rejects a document only an open reading refuses (the strict profile's
    /// protective choice, or a point the oracle reports as open) and names no catalogued
    /// rule: whether it took that reading is unknown. A rejection of a document the spec
    /// decides is a finding, named rule or not.
    Unexplained,
    /// A finding whose rule and kind the validator's expectations file lists (`fuzz
    /// --expectations`): a known, recorded deviation, counted apart so that it does not
    /// come back as news in every campaign.
    Listed,
}

impl Class {
    /// Every class, in the order summaries list them.
    pub const ALL: &'static [Class] = &[
        Class::Finding,
        Class::StrictOnly,
        Class::Bound,
        Class::ImplementationDefined,
        Class::Unexplained,
        Class::Listed,
    ];

    /// The class's name in reports.
    pub fn name(self) -> &'static str {
        match self {
            Class::Finding => "finding",
            Class::StrictOnly => "strict-only",
            Class::Bound => "bound",
            Class::ImplementationDefined => "implementation-defined",
            Class::Unexplained => "unexplained",
            Class::Listed => "listed",
        }
    }
}

impl fmt::Display for Class {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// One input on which the validator and the oracle disagree.
#[derive(Debug, Clone, PartialEq)]
pub struct Disagreement {
    /// How they disagree.
    pub kind: Kind,
    /// The catalogued rules the disagreement is about, most telling first: for
    /// `accepts-invalid` the oracle's errors; for `rejects-valid` the validator's errors;
    /// for `unexpected-diagnostic` the rules it reports that the oracle does not; for
    /// `missed-diagnostics` the oracle's rules it misses. Empty for crashes, timeouts and
    /// protocol errors.
    pub rules: Vec<String>,
    /// What the disagreement rests on: only [`Class::Finding`] is a finding; the others
    /// are counted apart, each with the reading they rest on.
    pub class: Class,
    /// What the oracle said.
    pub oracle: Observation,
    /// What the validator said, with what it printed.
    pub validator: Answer,
    /// The validator's diagnostics graded against the oracle's (`none` when it reports
    /// none, or did not answer).
    pub grading: Grading,
}

impl Disagreement {
    /// The rule and kind findings are deduplicated by.
    pub fn key(&self) -> Key {
        Key {
            rule: self.rules.first().cloned(),
            kind: self.kind,
        }
    }

    /// The key of this disagreement when a generator aimed its mutation at `targets`: the
    /// first targeted rule it is about stands for it, so one deviation is one finding
    /// whichever other rule also fired.
    pub fn key_for(&self, targets: &[String]) -> Key {
        let targeted = targets
            .iter()
            .find(|target| self.rules.iter().any(|rule| rule == *target));
        Key {
            rule: targeted.or(self.rules.first()).cloned(),
            kind: self.kind,
        }
    }

    /// Counts a finding apart when it rests only on points `open` names (the rules whose
    /// verdict on the document rests on a reading of a point the spec leaves open,
    /// [`campaign::Source::open_points`]): a validator there may take the other reading.
    /// A rejection that names no rule on such a document is unexplained, under the open
    /// rules' names; a crash, a timeout or a broken protocol stays a finding.
    pub fn on_open_points(&mut self, open: &[String]) {
        if !self.is_finding()
            || open.is_empty()
            || matches!(self.kind, Kind::Crash | Kind::Timeout | Kind::ProtocolError)
        {
            return;
        }
        if self.rules.is_empty() {
            if self.kind == Kind::RejectsValid {
                self.class = Class::Unexplained;
                self.rules = open.to_vec();
            }
        } else if self.rules.iter().all(|rule| open.contains(rule)) {
            self.class = Class::ImplementationDefined;
        }
    }

    /// Whether this is a finding.
    pub fn is_finding(&self) -> bool {
        self.class == Class::Finding
    }

    /// What keeps the input from isolating the finding, counted in the oracle's
    /// diagnostics; zero when the input asks only the finding's question:
    /// - the validator misses or accepts what the oracle reports: every oracle diagnostic
    ///   of another rule than the finding's;
    /// - the validator reports a rule the oracle does not, beside an agreeing verdict:
    ///   every oracle diagnostic but one (the one defect whose verdict both agree on);
    /// - the validator rejects a valid input, crashes, times out or breaks the protocol:
    ///   every oracle diagnostic (the input is otherwise valid).
    pub fn noise(&self, key: &Key) -> usize {
        noise_of(key, &self.oracle)
    }

    /// Whether the input isolates the finding ([`Disagreement::noise`] is zero).
    pub fn isolates(&self, key: &Key) -> bool {
        self.noise(key) == 0
    }

    /// Whether this is a finding of the same kind about the same rule as `key`: what a
    /// shrunk input must keep.
    pub fn matches(&self, key: &Key) -> bool {
        self.is_finding()
            && self.kind == key.kind
            && match &key.rule {
                Some(rule) => self.rules.iter().any(|r| r == rule),
                None => self.rules.is_empty(),
            }
    }

    /// One line saying how the answers differ.
    pub fn explain(&self) -> String {
        let validator = match &self.validator.outcome {
            Outcome::Observed(observation) => describe(observation),
            Outcome::Skipped { reason } => format!("skipped ({reason})"),
            Outcome::Crashed { message } => format!("crashed: {message}"),
            Outcome::TimedOut => "timed out".to_owned(),
            Outcome::ProtocolError { message } => format!("broke the protocol: {message}"),
        };
        let oracle = describe(&self.oracle);
        match self.kind {
            Kind::RejectsValid | Kind::AcceptsInvalid => {
                format!("the oracle {oracle}; the validator {validator}")
            }
            Kind::UnexpectedDiagnostic => format!(
                "the oracle {oracle}; the validator {validator}, naming {} where the oracle does not",
                self.rules.join(", ")
            ),
            Kind::MissedDiagnostics => format!(
                "the oracle {oracle}; the validator {validator}, missing all of the oracle's"
            ),
            Kind::Crash | Kind::Timeout | Kind::ProtocolError => {
                format!("the validator {validator} (the oracle {oracle})")
            }
        }
    }
}

/// "accepts" / "rejects: error rule at pointer ..., ..." (at most five diagnostics).
fn describe(observation: &Observation) -> String {
    let verdict = match observation.verdict {
        Verdict::Accept => "accepts",
        Verdict::Reject => "rejects",
    };
    let Some(diagnostics) = observation.diagnostics.as_ref().filter(|d| !d.is_empty()) else {
        return verdict.to_owned();
    };
    let mut listed: Vec<String> = diagnostics
        .iter()
        .take(5)
        .map(|diagnostic| {
            let location = diagnostic
                .location
                .as_ref()
                .map_or_else(|| "anywhere".to_owned(), ToString::to_string);
            format!("{} {} at {location}", diagnostic.severity, diagnostic.rule)
        })
        .collect();
    if diagnostics.len() > listed.len() {
        listed.push(format!("{} more", diagnostics.len() - listed.len()));
    }
    format!("{verdict}: {}", listed.join(", "))
}

/// The judgement of one input.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub enum Comparison {
    /// The validator agrees with the oracle: the same verdict, and diagnostics that are
    /// not graded `wrong` against the oracle's.
    Agree,
    /// They disagree (a finding, or a point counted apart: see [`Disagreement::class`]).
    Disagree(Box<Disagreement>),
    /// Nothing to compare: the validator declined the input, or the oracle could not
    /// check it.
    Skipped {
        /// Why.
        reason: String,
    },
}

impl Comparison {
    /// The disagreement, if it is a finding.
    pub fn finding(self) -> Option<Disagreement> {
        match self {
            Comparison::Disagree(disagreement) if disagreement.is_finding() => Some(*disagreement),
            _ => None,
        }
    }
}

/// The oracle and what judging against it needs: the catalogue (each rule's basis, and
/// which rules are catalogued at all), the profile and the context every request carries.
pub struct Differential<'a> {
    /// The validator whose answers stand in for a case's expectation: the reference.
    pub oracle: &'a dyn Validator,
    /// The rule catalogue.
    pub catalogue: &'a Catalogue,
    /// The profile: in `spec`, disagreements resting only on `suite` rules are
    /// implementation-defined; in `strict` every rule decides.
    pub profile: Profile,
    /// The context every request carries (`"profile": "strict"` is added in the strict
    /// profile, as in a run).
    pub context: Context,
}

impl<'a> Differential<'a> {
    /// An oracle judging in `profile`, with an empty context.
    pub fn new(
        oracle: &'a dyn Validator,
        catalogue: &'a Catalogue,
        profile: Profile,
    ) -> Differential<'a> {
        Differential {
            oracle,
            catalogue,
            profile,
            context: Context::new(),
        }
    }

    /// Validates `input` as `format` with both the oracle and `validator`, and judges how
    /// their answers differ. A panic of an in-process validator is a crash.
    pub fn compare(&self, validator: &dyn Validator, format: Format, input: &Input) -> Comparison {
        let oracle = self.ask(self.oracle, format, input, self.profile).outcome;
        let Outcome::Observed(oracle) = oracle else {
            return Comparison::Skipped {
                reason: format!("the oracle could not check the input: {oracle:?}"),
            };
        };
        self.compare_observed(validator, format, input, oracle)
    }

    /// [`Differential::compare`], with the oracle's observation of `input` in this run's
    /// profile already at hand ([`Differential::observe`]), so a caller that looked at the
    /// oracle's answer first does not ask for it twice.
    pub fn compare_observed(
        &self,
        validator: &dyn Validator,
        format: Format,
        input: &Input,
        oracle: Observation,
    ) -> Comparison {
        let answer = self.ask(validator, format, input, self.profile);
        // The protective reading: the same oracle asked in the strict profile, which takes
        // the suite's protective choice at every point the spec leaves open. Asked only
        // when a spec-profile disagreement needs it.
        let protective = || match self
            .ask(self.oracle, format, input, Profile::Strict)
            .outcome
        {
            Outcome::Observed(observation) => Some(observation),
            _ => None,
        };
        self.judge_with(oracle, answer, protective)
    }

    /// The oracle's observation of `input` in this run's profile, if it judges it.
    pub fn observe(&self, format: Format, input: &Input) -> Option<Observation> {
        match self.ask(self.oracle, format, input, self.profile).outcome {
            Outcome::Observed(observation) => Some(crate::bounded::bound(observation)),
            _ => None,
        }
    }

    /// `validator`'s answer on `input` in `profile`: the request every side of a
    /// comparison gets, this run's context with the profile's entry added.
    fn ask(
        &self,
        validator: &dyn Validator,
        format: Format,
        input: &Input,
        profile: Profile,
    ) -> Answer {
        let context = profile_context(&self.context, profile);
        let request = Request {
            case_id: REQUEST_ID,
            format,
            operation: "validate",
            input,
            context: &context,
            profile,
        };
        guarded(validator, &request)
    }

    /// Judges a validator's answer against the oracle's observation of the same input.
    /// Both observations are held to the bounds a process's answer is read within
    /// ([`crate::bounded::bound`]) before they are compared. Without the input, the
    /// protective reading cannot be asked for: [`Differential::compare`] asks for it.
    pub fn judge(&self, oracle: Observation, validator: Answer) -> Comparison {
        self.judge_with(oracle, validator, || None)
    }

    /// [`Differential::judge`], with the oracle's observation of the same input in the
    /// strict profile at hand (`protective`, asked for only when a disagreement in the spec
    /// profile would otherwise be a finding or unexplained).
    ///
    /// A document the two profiles answer alike, with no diagnostic of an open rule, is one
    /// the spec decides: every reading it allows answers so. Where they differ, the strict
    /// profile's answer is the reading made explicit: a validator whose answer matches it
    /// there (the same verdict, and diagnostics not graded `wrong` against it) took that
    /// reading, and its disagreement is counted apart under the first rule the strict
    /// profile adds. A validator that rejects a document both profiles accept, naming no
    /// catalogued rule (or only rules no reading breaks there), is a finding.
    pub fn judge_with(
        &self,
        oracle: Observation,
        validator: Answer,
        protective: impl FnOnce() -> Option<Observation>,
    ) -> Comparison {
        let oracle = crate::bounded::bound(oracle);
        let (kind, rules, grading) = match &validator.outcome {
            Outcome::Skipped { reason } => {
                return Comparison::Skipped {
                    reason: reason.clone(),
                }
            }
            Outcome::Crashed { .. } => (Kind::Crash, Vec::new(), Grading::default()),
            Outcome::TimedOut => (Kind::Timeout, Vec::new(), Grading::default()),
            Outcome::ProtocolError { .. } => (Kind::ProtocolError, Vec::new(), Grading::default()),
            Outcome::Observed(observation) => {
                let observation = &crate::bounded::bound(observation.clone());
                let grading = grade_against(
                    &expectation_of(&oracle),
                    observation,
                    self.catalogue,
                    Strictness::Conformance,
                );
                match self.observed(&oracle, observation, &grading) {
                    Some((kind, rules)) => (kind, rules, grading),
                    None => return Comparison::Agree,
                }
            }
        };
        let (mut class, mut rules) = self.classify(kind, rules, &oracle, &validator, &grading);
        // No reading makes a crash, a timeout or a broken protocol right.
        let explainable = !matches!(kind, Kind::Crash | Kind::Timeout | Kind::ProtocolError);
        if self.profile == Profile::Spec
            && explainable
            && matches!(class, Class::Finding | Class::Unexplained)
        {
            if let (Some(protective), Outcome::Observed(observation)) =
                (protective(), &validator.outcome)
            {
                (class, rules) = self.by_readings(class, rules, &oracle, protective, observation);
            }
        }
        Comparison::Disagree(Box::new(Disagreement {
            kind,
            rules,
            class,
            oracle,
            validator,
            grading,
        }))
    }

    /// The class and rules of a spec-profile disagreement that would otherwise be a finding
    /// or unexplained, once the protective reading is at hand: counted apart under the
    /// reading the validator took ([`Differential::reading_taken`]); else, for a rejection
    /// naming no rule, a finding where both profiles accept with no open point in sight,
    /// or unexplained under the open points in sight.
    fn by_readings(
        &self,
        class: Class,
        rules: Vec<String>,
        oracle: &Observation,
        protective: Observation,
        validator: &Observation,
    ) -> (Class, Vec<String>) {
        // Held to the same bounds as the answers compared before.
        let protective = crate::bounded::bound(protective);
        let validator = crate::bounded::bound(validator.clone());
        if let Some((reading, reading_class)) = self.reading_taken(oracle, &protective, &validator)
        {
            return (reading_class, vec![reading]);
        }
        if class != Class::Unexplained {
            return (class, rules);
        }
        if protective.verdict == Verdict::Accept
            && !self.touches_open_point(oracle)
            && !self.touches_open_point(&protective)
        {
            // Both profiles accept, and no open point is in sight: the spec decides this
            // document, whatever the validator names.
            return (Class::Finding, rules);
        }
        // Counted apart under the open points in sight.
        let mut open = self.open_rules(oracle);
        for rule in self.open_rules(&protective) {
            if !open.contains(&rule) {
                open.push(rule);
            }
        }
        (class, open)
    }

    /// The reading a validator's answer took, if it matches the protective reading where
    /// that differs from the oracle's: the first rule the strict profile reports that the
    /// oracle does not (at that location), and the class it is counted apart under. A
    /// verdict alone, with no catalogued diagnostic beside it, says nothing about which
    /// reason the validator had: unexplained, under the reading's name.
    fn reading_taken(
        &self,
        oracle: &Observation,
        protective: &Observation,
        validator: &Observation,
    ) -> Option<(String, Class)> {
        if protective.verdict != validator.verdict {
            return None;
        }
        let grading = grade_against(
            &expectation_of(protective),
            validator,
            self.catalogue,
            Strictness::Conformance,
        );
        if grading.grade == Grade::Wrong {
            return None;
        }
        let located = |observation: &Observation| -> BTreeSet<(String, Option<String>)> {
            observation
                .diagnostics
                .iter()
                .flatten()
                .map(|d| {
                    let pointer = d.location.as_ref().and_then(|l| l.pointer.clone());
                    (d.rule.clone(), pointer)
                })
                .collect()
        };
        let seen = located(oracle);
        let added = protective.diagnostics.iter().flatten().find(|d| {
            let pointer = d.location.as_ref().and_then(|l| l.pointer.clone());
            self.catalogue.get(&d.rule).is_some() && !seen.contains(&(d.rule.clone(), pointer))
        })?;
        let says_why = validator
            .diagnostics
            .iter()
            .flatten()
            .any(|d| self.catalogue.get(&d.rule).is_some());
        let class = match self.catalogue.get(&added.rule) {
            _ if !says_why => Class::Unexplained,
            Some(rule) if rule.kind == RuleKind::Bound => Class::Bound,
            _ => Class::StrictOnly,
        };
        Some((added.rule.clone(), class))
    }

    /// Whether an observation reports a diagnostic of a rule that does not decide in this
    /// profile (a point the spec leaves open, a strict-only rule or a bound), at any
    /// severity: the document is on an open point.
    fn touches_open_point(&self, observation: &Observation) -> bool {
        !self.open_rules(observation).is_empty()
    }

    /// The rules of an observation's diagnostics that do not decide in this profile, each
    /// once, in report order.
    fn open_rules(&self, observation: &Observation) -> Vec<String> {
        self.catalogued(observation, |d| !self.decides(&d.rule))
    }

    /// The kind and rules of a disagreement between two observations, if they disagree.
    fn observed(
        &self,
        oracle: &Observation,
        validator: &Observation,
        grading: &Grading,
    ) -> Option<(Kind, Vec<String>)> {
        match (oracle.verdict, validator.verdict) {
            (Verdict::Accept, Verdict::Reject) => {
                // The validator's reasons: its catalogued errors, else any catalogued rule
                // it names that the oracle does not.
                let mut rules = self.catalogued(validator, |d| d.severity == Severity::Error);
                if rules.is_empty() {
                    let named: BTreeSet<&str> = rules_of(oracle).collect();
                    rules = self.catalogued(validator, |d| !named.contains(d.rule.as_str()));
                }
                Some((Kind::RejectsValid, rules))
            }
            (Verdict::Reject, Verdict::Accept) => Some((
                Kind::AcceptsInvalid,
                self.catalogued(oracle, |d| d.severity == Severity::Error),
            )),
            _ if grading.grade != Grade::Wrong => None,
            _ if !grading.unexpected.is_empty() => {
                Some((Kind::UnexpectedDiagnostic, dedup_rules(&grading.unexpected)))
            }
            _ => Some((Kind::MissedDiagnostics, dedup_rules(&grading.missing))),
        }
    }

    /// The catalogued rules of an observation's diagnostics that `keep` selects, each
    /// once, in report order.
    fn catalogued(
        &self,
        observation: &Observation,
        keep: impl Fn(&crate::Diagnostic) -> bool,
    ) -> Vec<String> {
        let mut rules: Vec<String> = Vec::new();
        for diagnostic in observation.diagnostics.iter().flatten() {
            if keep(diagnostic)
                && self.catalogue.get(&diagnostic.rule).is_some()
                && !rules.contains(&diagnostic.rule)
            {
                rules.push(diagnostic.rule.clone());
            }
        }
        rules
    }

    /// Whether a rule decides definite verdicts in this run's profile: in `spec`, a `spec`
    /// or `upstream` rule; in `strict`, every rule (the strict profile makes the suite's
    /// choices definite). A bound never decides: it is the reference's limit, not a rule
    /// an implementation can break.
    pub fn decides(&self, rule: &str) -> bool {
        match self.catalogue.get(rule) {
            Some(rule) if rule.kind == RuleKind::Bound => false,
            Some(rule) => self.profile == Profile::Strict || rule.decides_spec_verdicts(),
            // An uncatalogued rule is never the subject of a disagreement.
            None => true,
        }
    }

    /// The class of an open rule (one that does not decide in this profile).
    fn open_class(&self, rule: &str) -> Class {
        match self.catalogue.get(rule) {
            Some(rule) if rule.kind == RuleKind::Bound => Class::Bound,
            Some(rule) if rule.strict && self.profile == Profile::Spec => Class::StrictOnly,
            _ => Class::ImplementationDefined,
        }
    }

    /// The class of a disagreement, and the rules it is about (for a finding, only the
    /// deciding ones; otherwise the open readings it rests on, the telling one first).
    ///
    /// A diagnostic is open when its rule does not decide in this profile, or when it is
    /// about a member the document repeats where repeating it is itself open (either
    /// answer's duplicate-key diagnostics say which): which of two members with one name a
    /// reader keeps is up to it where the catalogue leaves duplicate keys open (Go and
    /// Python keep the last), so an error one reader finds in one occurrence says nothing
    /// definite about a reader that kept the other.
    fn classify(
        &self,
        kind: Kind,
        rules: Vec<String>,
        oracle: &Observation,
        validator: &Answer,
        grading: &Grading,
    ) -> (Class, Vec<String>) {
        let observed = match &validator.outcome {
            Outcome::Observed(observation) => Some(observation),
            _ => None,
        };
        let repeated = self.repeated_members(oracle, observed);
        let split = |diagnostics: Vec<(&str, Option<&str>)>| -> (Class, Vec<String>) {
            let mut deciding: Vec<String> = Vec::new();
            let mut open: Vec<String> = Vec::new();
            for (rule, pointer) in diagnostics {
                if self.catalogue.get(rule).is_none() {
                    continue;
                }
                let under_repeated = pointer.is_some_and(|at| {
                    repeated.iter().any(|member| {
                        at == member
                            || at
                                .strip_prefix(member.as_str())
                                .is_some_and(|rest| rest.starts_with('/'))
                    })
                });
                let list = if self.decides(rule) && !under_repeated {
                    &mut deciding
                } else {
                    &mut open
                };
                if !list.iter().any(|known| known == rule) {
                    list.push(rule.to_owned());
                }
            }
            match (deciding.is_empty(), open.first()) {
                (false, _) => (Class::Finding, deciding),
                (true, Some(first)) => (self.open_class(first), open),
                (true, None) => (Class::Finding, Vec::new()),
            }
        };
        let errors = |observation: &Observation| -> Vec<(String, Option<String>)> {
            observation
                .diagnostics
                .iter()
                .flatten()
                .filter(|d| d.severity == Severity::Error)
                .map(|d| {
                    let pointer = d.location.as_ref().and_then(|l| l.pointer.clone());
                    (d.rule.clone(), pointer)
                })
                .collect()
        };
        let classify_list = |list: Vec<(String, Option<String>)>| {
            split(
                list.iter()
                    .map(|(rule, pointer)| (rule.as_str(), pointer.as_deref()))
                    .collect(),
            )
        };
        match kind {
            Kind::Crash | Kind::Timeout | Kind::ProtocolError => (Class::Finding, rules),
            Kind::AcceptsInvalid => classify_list(errors(oracle)),
            Kind::RejectsValid => {
                if rules.is_empty() {
                    return (Class::Unexplained, rules);
                }
                let named = observed.map(errors).unwrap_or_default();
                let catalogued = named
                    .iter()
                    .any(|(rule, _)| self.catalogue.get(rule).is_some());
                if catalogued {
                    classify_list(named)
                } else {
                    // No catalogued error: the rules it names beside the oracle's.
                    classify_list(rules.into_iter().map(|rule| (rule, None)).collect())
                }
            }
            Kind::UnexpectedDiagnostic | Kind::MissedDiagnostics => {
                let graded = if kind == Kind::UnexpectedDiagnostic {
                    &grading.unexpected
                } else {
                    &grading.missing
                };
                let list = graded
                    .iter()
                    .map(|d| (d.rule.clone(), d.location.pointer.clone()))
                    .collect();
                let (class, found) = classify_list(list);
                if found.is_empty() {
                    (class, rules)
                } else {
                    (class, found)
                }
            }
        }
    }

    /// The members either answer reports as repeated under a duplicate-key rule that does
    /// not decide in this profile (the repetition is open).
    fn repeated_members(
        &self,
        oracle: &Observation,
        validator: Option<&Observation>,
    ) -> Vec<String> {
        [Some(oracle), validator]
            .into_iter()
            .flatten()
            .flat_map(|observation| observation.diagnostics.iter().flatten())
            .filter(|d| is_repeated_member(&d.rule) && !self.decides(&d.rule))
            .filter_map(|d| d.location.as_ref().and_then(|l| l.pointer.clone()))
            .collect()
    }
}

/// Whether a rule is a format's rule against repeated object members
/// (`<format>.json.duplicate-key`), located at the repeated member.
fn is_repeated_member(rule: &str) -> bool {
    rule.ends_with(".json.duplicate-key")
}

/// [`Disagreement::noise`] of a disagreement of `key`'s kind on an input the oracle
/// observed so: it needs only the oracle's answer, so a shrink can refuse a candidate
/// before asking the validator.
pub fn noise_of(key: &Key, oracle: &Observation) -> usize {
    let diagnostics = oracle.diagnostics.iter().flatten();
    match key.kind {
        Kind::AcceptsInvalid | Kind::MissedDiagnostics => diagnostics
            .filter(|diagnostic| key.rule.as_deref() != Some(diagnostic.rule.as_str()))
            .count(),
        Kind::UnexpectedDiagnostic => diagnostics.count().saturating_sub(1),
        _ => diagnostics.count(),
    }
}

/// The rule IDs of an observation's diagnostics.
fn rules_of(observation: &Observation) -> impl Iterator<Item = &str> {
    observation
        .diagnostics
        .iter()
        .flatten()
        .map(|diagnostic| diagnostic.rule.as_str())
}

fn dedup_rules(diagnostics: &[ExpectedDiagnostic]) -> Vec<String> {
    let mut rules: Vec<String> = Vec::new();
    for diagnostic in diagnostics {
        if !rules.contains(&diagnostic.rule) {
            rules.push(diagnostic.rule.clone());
        }
    }
    rules
}

/// The oracle's observation as the expectation another validator's diagnostics are graded
/// against: every diagnostic it reports is expected.
pub fn expectation_of(oracle: &Observation) -> Expectation {
    let diagnostics: Vec<ExpectedDiagnostic> = oracle
        .diagnostics
        .iter()
        .flatten()
        .map(|diagnostic| ExpectedDiagnostic {
            rule: diagnostic.rule.clone(),
            severity: diagnostic.severity,
            location: diagnostic.location.clone().unwrap_or_default(),
        })
        .collect();
    let verdict = match oracle.verdict {
        Verdict::Reject => ExpectedVerdict::Reject,
        Verdict::Accept if diagnostics.is_empty() => ExpectedVerdict::Accept,
        Verdict::Accept => ExpectedVerdict::AcceptWithWarnings,
    };
    Expectation {
        verdict,
        diagnostics,
        optional: Vec::new(),
    }
}

/// A validator's answer, with a panic turned into a crash.
fn guarded(validator: &dyn Validator, request: &Request<'_>) -> Answer {
    catch_unwind(AssertUnwindSafe(|| validator.answer(request))).unwrap_or_else(|panic| {
        let message = panic
            .downcast_ref::<&str>()
            .map(|text| (*text).to_owned())
            .or_else(|| panic.downcast_ref::<String>().cloned())
            .unwrap_or_else(|| "panic".to_owned());
        Outcome::Crashed {
            message: format!("panicked: {message}"),
        }
        .into()
    })
}

/// Checks one document with `validator` and `oracle` in `profile`, and returns the
/// disagreement if it is a finding: the entry point of a fuzz target that holds a Rust
/// implementation against the reference (`examples/differential-fuzz/`). Agreement, a
/// disagreement counted apart (see [`Class`]) and a skip all give `None`.
pub fn check_one(
    validator: &dyn Validator,
    oracle: &dyn Validator,
    catalogue: &Catalogue,
    format: Format,
    file_name: &str,
    bytes: &[u8],
    profile: Profile,
) -> Option<Disagreement> {
    let input = Input::Document {
        file_name: file_name.to_owned(),
        bytes: bytes.to_vec(),
    };
    Differential::new(oracle, catalogue, profile)
        .compare(validator, format, &input)
        .finding()
}

#[cfg(test)]
mod tests;
