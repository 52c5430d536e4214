//! The verdict oracle: every corpus case through the reference in both profiles, judged
//! as a certification judges a validator, plus the warnings a verdict alone never shows.
//!
//! A certification looks at verdicts and operation values only ([`Strictness::Conformance`]:
//! an implementation-defined case takes any allowed verdict, diagnostics never fail a
//! case). A mutant of the reference that this oracle passes is therefore a wrong
//! implementation the corpus would certify, which is exactly what the corpus-power
//! measurement counts. One thing is added to what a certification judges, so that the
//! should-level rules count too: a case that expects warnings must get at least one, and a
//! case that expects a plain acceptance must get none (a validator that never warns, or
//! warns everywhere, is caught).
//!
//! The stricter second oracle ([`Oracle::Diagnostics`]) holds the reference to its exact
//! diagnostics and locations, as the `cargo test` suite does (less the rendered
//! snapshots, whose text no validator is compared on); a mutant only it catches changes
//! what a validator reports, not what a certification decides.

use std::fmt;
use std::fs;
use std::path::{Path, PathBuf};

use soulcheck_harness::runner::{judge, prepare_input, profile_context, NOT_JUDGED};
use soulcheck_harness::tree::materialise_with_decoys;
use soulcheck_harness::{
    Case, Catalogue, Corpus, ExpectedVerdict, Input, Observation, Outcome, PreparedInput, Profile,
    Request, Severity, Strictness, Validator,
};

use crate::Reference;

/// One case the reference fails in one profile.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Miss {
    /// `<format>/<case-id>`.
    pub case: String,
    /// The profile it was judged in.
    pub profile: Profile,
    /// What went wrong.
    pub why: String,
}

impl fmt::Display for Miss {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} ({} profile): {}", self.case, self.profile, self.why)
    }
}

/// How strictly the reference is held to the corpus.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Oracle {
    /// As a certification judges any validator (verdicts and operation values), plus the
    /// warnings each case expects: the corpus's power to fail a wrong implementation.
    Verdicts,
    /// As the `cargo test` suite judges the reference (its recorded implementation-defined
    /// choices, exact diagnostics and locations), without the rendered snapshots: what a
    /// validator's report would show, beyond its verdict.
    Diagnostics,
}

/// Runs every case of `corpus` through the reference in both profiles and returns each
/// case the reference fails under `oracle`.
pub fn check(corpus: &Corpus, catalogue: &Catalogue, oracle: Oracle) -> Vec<Miss> {
    check_with(corpus, catalogue, oracle, None)
}

/// [`check`], keeping the trees of tree cases under `kept` between runs (see
/// `Prepared::new`); `None` builds each in a temporary directory, as a certification does.
pub fn check_with(
    corpus: &Corpus,
    catalogue: &Catalogue,
    oracle: Oracle,
    kept: Option<&Path>,
) -> Vec<Miss> {
    let mut misses = Vec::new();
    for case in &corpus.cases {
        let input = match Prepared::new(case, kept) {
            Ok(input) => input,
            Err(error) => {
                misses.push(Miss {
                    case: case.name(),
                    profile: Profile::Spec,
                    why: format!("its input cannot be prepared: {error}"),
                });
                continue;
            }
        };
        for profile in Profile::ALL {
            let context = profile_context(&case.context, profile);
            let request = Request {
                case_id: &case.id,
                format: case.format,
                operation: &case.operation,
                input: input.input(),
                context: &context,
                profile,
            };
            let outcome = Reference.run(&request);
            let why = match oracle {
                Oracle::Verdicts => miss(case, &outcome, catalogue, profile),
                Oracle::Diagnostics => {
                    let judgement =
                        judge(case, &outcome, catalogue, Strictness::Reference, profile);
                    (!judgement.is_pass()).then(|| judgement.explain())
                }
            };
            if let Some(why) = why {
                misses.push(Miss {
                    case: case.name(),
                    profile,
                    why,
                });
            }
        }
    }
    misses
}

/// Why the reference's `outcome` fails `case` in `profile`, if it does.
fn miss(case: &Case, outcome: &Outcome, catalogue: &Catalogue, profile: Profile) -> Option<String> {
    // Past one of its bounds the reference declines in the spec profile; a certification
    // would also take any verdict the case allows (it is implementation-defined there).
    if case.reference_not_judged && profile == Profile::Spec {
        if let Outcome::Skipped { reason } = outcome {
            return (!reason.starts_with(NOT_JUDGED))
                .then(|| format!("skipped without being past a bound: {reason}"));
        }
    }
    let judgement = judge(case, outcome, catalogue, Strictness::Conformance, profile);
    if !judgement.is_pass() {
        return Some(judgement.explain());
    }
    match outcome {
        Outcome::Observed(observation) => warnings_miss(case, observation, profile),
        _ => None,
    }
}

/// The should-level check a verdict cannot show: a case expecting warnings gets at least
/// one, and a case expecting a plain acceptance gets none beyond those it lists as
/// optional.
fn warnings_miss(case: &Case, observation: &Observation, profile: Profile) -> Option<String> {
    let expectation = case.expectation(profile);
    let optional: Vec<&str> = expectation
        .optional
        .iter()
        .map(|diagnostic| diagnostic.rule.as_str())
        .collect();
    // The report's own notice that it left diagnostics out is no warning of the format's:
    // a report whose every warning was left out has warned of nothing.
    let warnings: Vec<&str> = observation
        .diagnostics
        .iter()
        .flatten()
        .filter(|diagnostic| diagnostic.severity == Severity::Warning)
        .map(|diagnostic| diagnostic.rule.as_str())
        .filter(|rule| !rule.ends_with(".report.truncated"))
        .collect();
    match expectation.verdict {
        ExpectedVerdict::AcceptWithWarnings if warnings.is_empty() => {
            Some("expected warnings, got none".to_owned())
        }
        ExpectedVerdict::Accept => {
            let unexpected: Vec<&str> = warnings
                .into_iter()
                .filter(|rule| !optional.contains(rule))
                .collect();
            (!unexpected.is_empty())
                .then(|| format!("expected no warning, got {}", unexpected.join(", ")))
        }
        _ => None,
    }
}

/// A case's input as the oracle hands it to the reference: prepared afresh, or a tree
/// kept from an earlier run.
enum Prepared {
    Fresh(PreparedInput),
    Kept(Input),
}

impl Prepared {
    /// Prepares `case`'s input; a tree case's tree is taken from, or built into, `kept`.
    ///
    /// Building the trees is most of the oracle's time (two cases at the entry bounds
    /// write tens of thousands of entries), and cargo-mutants runs the oracle once per
    /// mutant, so the trees are built once per corpus version. The reference only reads
    /// them. A tree is built in a directory of its own and renamed into place whole, and
    /// its root is recorded after that, so a concurrent run (cargo-mutants `-j`) never
    /// reads a tree half built.
    fn new(case: &Case, kept: Option<&Path>) -> Result<Prepared, String> {
        let (Some(kept), Some(spec)) = (kept, case.tree()) else {
            return prepare_input(case).map(Prepared::Fresh);
        };
        let at = kept.join(case.format.to_string()).join(&case.id);
        let root_file = at.with_extension("root");
        if let Ok(relative) = fs::read_to_string(&root_file) {
            return Ok(Prepared::Kept(Input::Tree {
                root: at.join(relative),
            }));
        }
        let parent = at.parent().unwrap_or(kept);
        fs::create_dir_all(parent).map_err(|error| format!("{}: {error}", parent.display()))?;
        let building = parent.join(format!(".{}-{}", case.id, std::process::id()));
        let _ = fs::remove_dir_all(&building);
        fs::create_dir(&building).map_err(|error| format!("{}: {error}", building.display()))?;
        let root = materialise_with_decoys(&case.dir, &spec, &building)
            .map_err(|error| error.to_string())?;
        let relative: PathBuf = root
            .strip_prefix(&building)
            .map_err(|error| error.to_string())?
            .to_owned();
        if fs::rename(&building, &at).is_err() {
            // Another run put the same tree in place first.
            let _ = fs::remove_dir_all(&building);
        }
        let relative = relative.to_string_lossy().into_owned();
        let written = root_file.with_extension(format!("root-{}", std::process::id()));
        fs::write(&written, &relative)
            .and_then(|()| fs::rename(&written, &root_file))
            .map_err(|error| format!("{}: {error}", root_file.display()))?;
        Ok(Prepared::Kept(Input::Tree {
            root: at.join(relative),
        }))
    }

    fn input(&self) -> &Input {
        match self {
            Prepared::Fresh(prepared) => prepared.input(),
            Prepared::Kept(input) => input,
        }
    }
}
