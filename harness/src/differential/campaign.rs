//! A differential fuzzing campaign: many generated inputs through a validator and the
//! oracle, in parallel, until a number of runs or a duration is reached; the
//! disagreements deduplicated by rule and kind ([`Key`], the rule the generator's mutation
//! targeted first), those that are not findings counted apart by [`Class`], and each kept
//! finding shrunk ([`super::shrink`]) to an input that isolates it where it can.
//!
//! A duration bounds the whole campaign, shrinking included: once a finding is held,
//! fuzzing stops [`SHRINK_SHARE`] of the duration before its end, and the shrinks share
//! what is left, each stopping at its slice's end. Only a trial already running (one
//! answer, within the validator's timeout) can take the campaign past its duration.
//!
//! A run is reproducible from its seed: run `n` of seed `s` always reads the same fuzz
//! input ([`fuzz_input`]), whatever the number of jobs, so a finding is named by the
//! seed and the first run that showed it, and each finding is shrunk from that run. The
//! inputs come from a [`Source`] (the command line's is the structure-aware generators of
//! `soulcheck-fuzzing`), so this module knows no format and no implementation.
//!
//! Everything is bounded: the fuzz input's size, the distinct disagreements tracked, the
//! findings kept and shrunk, the trials each shrink may spend, and (through the
//! validator's own limits) the output captured and the time each answer may take.

use std::cell::{Cell, RefCell};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::sync::Mutex;
use std::time::{Duration, Instant};

use soulcheck_vocabulary::Format;

use super::shrink::{self, Budget};
use super::{Class, Comparison, Differential, Disagreement, Key, Kind};
use crate::validator::{Input, Validator};

/// How long a campaign fuzzes when neither a number of runs nor a duration is given.
pub const DEFAULT_DURATION: Duration = Duration::from_secs(60);

/// Distinct disagreements (findings and implementation-defined points together) a
/// campaign tracks; more are counted but not told apart. Keys are a rule and a kind, so a
/// catalogue's rules times the kinds bound them well below this.
pub const MAX_KEYS: usize = 1024;

/// The part of a duration kept for shrinking once a finding is held (a quarter).
pub const SHRINK_SHARE: u32 = 4;

/// Distinct reasons for skipped inputs kept for the summary.
const MAX_SKIP_REASONS: usize = 8;

/// A document built from fuzz input, and what the generator did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Sample {
    /// The document's bytes: the whole input, or for a tree the one file shrinking edits.
    pub document: Vec<u8>,
    /// What the generator built (its mutation), for reports.
    pub summary: String,
    /// The rules the generator's mutation targets (empty after untargeted mutations):
    /// findings are deduplicated by them first.
    pub targets: Vec<String>,
    /// The rules whose verdict on this document rests on a reading of a point the spec
    /// leaves open ([`Source::open_points`]): a disagreement about them alone is counted
    /// apart, never a finding.
    pub open: Vec<String>,
}

/// An input ready for both validators, with the temporary directory a tree lives in
/// (removed when this is dropped).
#[derive(Debug)]
pub struct Prepared {
    input: Input,
    _dir: Option<tempfile::TempDir>,
}

impl Prepared {
    /// A document input.
    pub fn document(file_name: &str, bytes: &[u8]) -> Prepared {
        Prepared {
            input: Input::Document {
                file_name: file_name.to_owned(),
                bytes: bytes.to_vec(),
            },
            _dir: None,
        }
    }

    /// A tree input at `root`, inside `dir`, which lives as long as this value.
    pub fn tree(dir: tempfile::TempDir, root: PathBuf) -> Prepared {
        Prepared {
            input: Input::Tree { root },
            _dir: Some(dir),
        }
    }

    /// The input to hand both validators.
    pub fn input(&self) -> &Input {
        &self.input
    }
}

/// Where a campaign's inputs come from: a structure-aware generator reading its choices
/// from fuzz input bytes. The harness shrinks those bytes and the document's bytes
/// without knowing the format.
pub trait Source: Sync {
    /// The format the inputs are checked as.
    fn format(&self) -> Format;

    /// The document built from fuzz input; `None` when the generator cannot use it.
    fn document(&self, data: &[u8]) -> Option<Sample>;

    /// The input both validators see for `document`, a document built from `data` and
    /// perhaps shrunk since (for a tree, `data` rebuilds the other files).
    fn prepare(&self, data: &[u8], document: &[u8]) -> std::io::Result<Prepared>;

    /// Writes that input into a draft case directory, returning its name there (a file
    /// name, or a directory for a tree).
    fn write(&self, dir: &Path, data: &[u8], document: &[u8]) -> std::io::Result<String>;

    /// The rules whose verdict on `document` rests on a reading of a point the spec leaves
    /// open (the corpus's implementation-defined cases): a disagreement resting on them
    /// is counted apart, and a shrink never makes a document open on the finding's rule.
    /// None by default.
    fn open_points(&self, document: &[u8]) -> Vec<String> {
        let _ = document;
        Vec::new()
    }
}

/// What a campaign does.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Settings {
    /// The seed every run's fuzz input derives from.
    pub seed: u64,
    /// Stop after this many runs.
    pub runs: Option<u64>,
    /// Stop the whole campaign after this long, shrinking included (fuzzing stops
    /// `1/SHRINK_SHARE` of it early once a finding is held). Without it, shrinking is
    /// bounded by `shrink_steps` alone.
    pub duration: Option<Duration>,
    /// Parallel workers (at least one).
    pub jobs: usize,
    /// Distinct findings shrunk and kept; the others are counted only.
    pub max_findings: usize,
    /// Trials (oracle and validator on one candidate) each shrink may spend.
    pub shrink_steps: usize,
    /// Largest fuzz input, in bytes; each run's is between 1 and this.
    pub max_input: usize,
    /// Findings the validator is known for (its expectations file, through
    /// [`listed_keys`]): a finding with one of these keys is counted apart as
    /// [`Class::Listed`].
    pub listed: Vec<Key>,
}

impl Default for Settings {
    fn default() -> Settings {
        Settings {
            seed: 0,
            runs: None,
            duration: None,
            jobs: 1,
            max_findings: 20,
            shrink_steps: 2_000,
            max_input: 4_096,
            listed: Vec::new(),
        }
    }
}

/// Which part of a campaign is under way.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum Phase {
    /// Generating inputs and comparing answers.
    Fuzzing,
    /// Shrinking the kept findings.
    Shrinking {
        /// Findings shrunk so far.
        done: usize,
        /// Findings to shrink.
        total: usize,
    },
}

/// Where a campaign stands, for a progress display.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Progress {
    /// The phase.
    pub phase: Phase,
    /// Runs finished.
    pub runs: u64,
    /// Distinct findings so far.
    pub findings: usize,
    /// Runs whose disagreement was counted apart (not a finding).
    pub apart: u64,
    /// Time since the campaign started.
    pub elapsed: Duration,
}

/// The first bytes of an example document a tally keeps; enough to see what it is.
pub const EXAMPLE_BYTES: usize = 1024;

/// One document a disagreement counted apart was seen on, as reports show it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Example {
    /// The run that built it.
    pub run: u64,
    /// The document's size in bytes.
    pub size: usize,
    /// Its first [`EXAMPLE_BYTES`] bytes.
    pub head: Vec<u8>,
}

impl Example {
    fn of(run: u64, document: &[u8]) -> Example {
        Example {
            run,
            size: document.len(),
            head: document[..document.len().min(EXAMPLE_BYTES)].to_vec(),
        }
    }
}

/// How often one disagreement was seen, and first where.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Tally {
    /// What it rests on.
    pub class: Class,
    /// The rule and kind (for a disagreement counted apart, the reading it rests on).
    pub key: Key,
    /// Runs that disagreed this way.
    pub count: u64,
    /// The first such run (reproduce with the campaign's seed and `--runs first_run+1`).
    pub first_run: u64,
    /// For a disagreement counted apart: the first run's document.
    pub first: Option<Example>,
    /// For a disagreement counted apart: the smallest document (the lowest run among
    /// equals), what a maintainer reads first.
    pub smallest: Option<Example>,
}

/// One finding, shrunk.
#[derive(Debug, Clone)]
pub struct Finding {
    /// The rule and kind.
    pub key: Key,
    /// Runs that disagreed this way.
    pub count: u64,
    /// The run that stands for it: the first whose input isolated it, else the first.
    pub first_run: u64,
    /// When the first such run was seen, from the campaign's start.
    pub found_after: Duration,
    /// What the generator built for the first run.
    pub summary: String,
    /// Bytes of the first run's document.
    pub original_size: usize,
    /// The shrunk fuzz input.
    pub data: Vec<u8>,
    /// The shrunk document.
    pub document: Vec<u8>,
    /// The disagreement on the shrunk document.
    pub disagreement: Disagreement,
    /// Trials the shrink spent.
    pub shrink_steps: usize,
    /// Whether the first run's disagreement came back when it was run again; a validator
    /// that answers the same input differently is not shrunk.
    pub reproduced: bool,
    /// Whether the shrunk input isolates the finding ([`Disagreement::isolates`]).
    pub isolating: bool,
    /// The rules the generator's mutation targeted.
    pub targets: Vec<String>,
}

/// What a campaign found.
#[derive(Debug, Clone)]
pub struct Results {
    /// The format fuzzed.
    pub format: Format,
    /// The settings it ran with.
    pub settings: Settings,
    /// Runs finished.
    pub runs: u64,
    /// Runs on which the validator agreed with the oracle.
    pub agreed: u64,
    /// Runs the validator (or the oracle) declined.
    pub skipped: u64,
    /// Runs whose fuzz input the generator could not use.
    pub unusable: u64,
    /// The kept findings, shrunk, in the order of their first run.
    pub findings: Vec<Finding>,
    /// Findings past `max_findings`, counted but not shrunk.
    pub unkept: Vec<Tally>,
    /// Disagreements that are not findings (strict-only, bound, implementation-defined,
    /// unexplained), counted apart by class and reading, in first-run order.
    pub apart: Vec<Tally>,
    /// Runs whose disagreement was not told apart because [`MAX_KEYS`] were tracked.
    pub untracked: u64,
    /// The first few distinct reasons for skips, with their counts.
    pub skip_reasons: Vec<(String, u64)>,
    /// Time spent generating and comparing.
    pub fuzz_time: Duration,
    /// Time spent shrinking.
    pub shrink_time: Duration,
}

impl Results {
    /// The disagreements counted apart of one class.
    pub fn apart_of(&self, class: Class) -> impl Iterator<Item = &Tally> {
        self.apart.iter().filter(move |tally| tally.class == class)
    }

    /// Runs whose disagreement was counted apart as `class`.
    pub fn runs_apart(&self, class: Class) -> u64 {
        self.apart_of(class).map(|tally| tally.count).sum()
    }
}

impl Results {
    /// Whether anything but agreement and implementation-defined points was found.
    pub fn has_findings(&self) -> bool {
        !self.findings.is_empty() || !self.unkept.is_empty() || self.untracked > 0
    }

    /// Every finding's rule and kind with its count, kept or not, in first-run order.
    pub fn tallies(&self) -> Vec<Tally> {
        let mut all: Vec<Tally> = self
            .findings
            .iter()
            .map(|finding| Tally {
                class: Class::Finding,
                key: finding.key.clone(),
                count: finding.count,
                first_run: finding.first_run,
                first: None,
                smallest: None,
            })
            .chain(self.unkept.iter().cloned())
            .collect();
        all.sort_by_key(|tally| tally.first_run);
        all
    }
}

/// The findings an expectations file lists, as campaign keys: each entry's rule (else its
/// case's first rule) with the kinds a failure of that case can show in `profile`. A case
/// that must be rejected fails by being accepted, or by wrong diagnostics; one that must
/// be accepted, by being rejected or by a diagnostic of a rule it does not break. An
/// implementation-defined case fails in no way a campaign counts as a finding, and gives
/// no key.
pub fn listed_keys(
    expectations: &crate::expectations::Expectations,
    cases: &[crate::corpus::Case],
    profile: soulcheck_vocabulary::Profile,
) -> Vec<Key> {
    use crate::corpus::ExpectedVerdict;
    let mut keys: Vec<Key> = Vec::new();
    for case in cases {
        let Some(entry) = expectations.entries().get(&case.name()) else {
            continue;
        };
        let Some(rule) = entry.rule.clone().or_else(|| case.rules.first().cloned()) else {
            continue;
        };
        let kinds: &[Kind] = match case.expectation(profile).verdict {
            ExpectedVerdict::Reject => &[
                Kind::AcceptsInvalid,
                Kind::MissedDiagnostics,
                Kind::UnexpectedDiagnostic,
            ],
            ExpectedVerdict::Accept | ExpectedVerdict::AcceptWithWarnings => {
                &[Kind::RejectsValid, Kind::UnexpectedDiagnostic]
            }
            ExpectedVerdict::ImplementationDefined { .. } => &[],
        };
        for &kind in kinds {
            let key = Key {
                rule: Some(rule.clone()),
                kind,
            };
            if !keys.contains(&key) {
                keys.push(key);
            }
        }
    }
    keys
}

/// What became of one fuzz input checked on its own ([`check_input`]).
#[derive(Debug, Clone)]
#[non_exhaustive]
pub enum Checked {
    /// The source could not build an input from the bytes (a fuzzer should not keep them).
    Unusable,
    /// The validator agreed with the oracle.
    Agreed,
    /// The validator (or the oracle) declined the input, or it could not be prepared.
    Skipped {
        /// Why.
        reason: String,
    },
    /// They disagree on a point the spec does not decide (see [`Disagreement::class`]):
    /// not a finding.
    Apart(Box<Disagreement>),
    /// They disagree: a finding.
    Finding(Box<Disagreement>),
}

/// Checks one fuzz input without a campaign: `source` builds the input from `data`, and
/// `validator` is judged against the oracle on it. This is the body of a libFuzzer target
/// holding an in-process validator against the reference (`examples/differential-fuzz/`):
/// libFuzzer supplies and minimises the bytes, so this does no shrinking of its own.
pub fn check_input(
    validator: &dyn Validator,
    differential: &Differential<'_>,
    source: &dyn Source,
    data: &[u8],
) -> Checked {
    let Some(sample) = source.document(data) else {
        return Checked::Unusable;
    };
    let prepared = match source.prepare(data, &sample.document) {
        Ok(prepared) => prepared,
        Err(error) => {
            return Checked::Skipped {
                reason: format!("cannot prepare the input: {error}"),
            }
        }
    };
    let mut compared = differential.compare(validator, source.format(), prepared.input());
    if let Comparison::Disagree(disagreement) = &mut compared {
        disagreement.on_open_points(&sample.open);
    }
    match compared {
        Comparison::Agree => Checked::Agreed,
        Comparison::Skipped { reason } => Checked::Skipped { reason },
        Comparison::Disagree(disagreement) if !disagreement.is_finding() => {
            Checked::Apart(disagreement)
        }
        Comparison::Disagree(disagreement) => Checked::Finding(disagreement),
    }
}

/// The fuzz input of run `run` of a campaign seeded with `seed`: between 1 and `max`
/// pseudo-random bytes, the same on every machine and whatever the number of jobs.
pub fn fuzz_input(seed: u64, run: u64, max: usize) -> Vec<u8> {
    let mut rng = SplitMix64(seed);
    let mut rng = SplitMix64(rng.next() ^ run.wrapping_mul(0xD1B5_4A32_D192_ED03));
    let length = 1 + (rng.next() % max.max(1) as u64) as usize;
    let mut data = Vec::with_capacity(length + 8);
    while data.len() < length {
        data.extend_from_slice(&rng.next().to_le_bytes());
    }
    data.truncate(length);
    data
}

/// SplitMix64: tiny, fast and good enough to spread fuzz inputs; a campaign needs
/// reproducibility, not cryptography.
struct SplitMix64(u64);

impl SplitMix64 {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }
}

/// The first run that showed a disagreement, and how often it came.
struct Seen {
    count: u64,
    first_run: u64,
    found_after: Duration,
    data: Vec<u8>,
    summary: String,
    original_size: usize,
    targets: Vec<String>,
    disagreement: Disagreement,
    /// Whether that run's input isolates the finding already.
    isolating: bool,
}

/// What the workers share while fuzzing.
#[derive(Default)]
struct Tracker {
    findings: BTreeMap<Key, Seen>,
    apart: BTreeMap<(Class, Key), Tally>,
    untracked: u64,
    agreed: u64,
    skipped: u64,
    unusable: u64,
    apart_runs: u64,
    skip_reasons: BTreeMap<String, u64>,
}

impl Tracker {
    fn disagreed(
        &mut self,
        run: u64,
        elapsed: Duration,
        data: &[u8],
        sample: &Sample,
        disagreement: Disagreement,
        listed: &[Key],
    ) {
        let key = disagreement.key_for(&sample.targets);
        let tracked = self.findings.len() + self.apart.len();
        let listed = disagreement.is_finding() && listed.contains(&key);
        if !disagreement.is_finding() || listed {
            self.apart_runs += 1;
            let class = if listed {
                Class::Listed
            } else {
                disagreement.class
            };
            let slot = (class, key.clone());
            if tracked >= MAX_KEYS && !self.apart.contains_key(&slot) {
                return;
            }
            let tally = self.apart.entry(slot).or_insert(Tally {
                class,
                key,
                count: 0,
                first_run: run,
                first: None,
                smallest: None,
            });
            tally.count += 1;
            tally.first_run = tally.first_run.min(run);
            let document = &sample.document;
            if tally.first.as_ref().is_none_or(|first| run < first.run) {
                tally.first = Some(Example::of(run, document));
            }
            let smaller = |kept: &Example| (document.len(), run) < (kept.size, kept.run);
            if tally.smallest.as_ref().is_none_or(smaller) {
                tally.smallest = Some(Example::of(run, document));
            }
            return;
        }
        if tracked >= MAX_KEYS && !self.findings.contains_key(&key) {
            self.untracked += 1;
            return;
        }
        let isolating = disagreement.isolates(&key);
        let seen = self.findings.entry(key).or_insert_with(|| Seen {
            count: 0,
            first_run: u64::MAX,
            found_after: elapsed,
            data: Vec::new(),
            summary: String::new(),
            original_size: 0,
            targets: Vec::new(),
            disagreement: disagreement.clone(),
            isolating: false,
        });
        seen.count += 1;
        seen.found_after = seen.found_after.min(elapsed);
        // The lowest run whose input isolates the finding stands for it (else the lowest
        // run), so the result does not depend on which worker got there first, and the
        // shrink starts from the cleanest input seen.
        if (!isolating, run) < (!seen.isolating, seen.first_run) {
            seen.first_run = run;
            seen.data = data.to_vec();
            seen.summary = sample.summary.clone();
            seen.original_size = sample.document.len();
            seen.targets = sample.targets.clone();
            seen.disagreement = disagreement;
            seen.isolating = isolating;
        }
    }

    fn skipped(&mut self, reason: String) {
        self.skipped += 1;
        if self.skip_reasons.len() < MAX_SKIP_REASONS || self.skip_reasons.contains_key(&reason) {
            *self.skip_reasons.entry(reason).or_default() += 1;
        }
    }
}

/// Everything a worker needs.
struct Campaign<'a> {
    settings: &'a Settings,
    validator: &'a dyn Validator,
    differential: &'a Differential<'a>,
    source: &'a dyn Source,
    started: Instant,
}

/// Runs a campaign: fuzzes until `settings.runs` or `settings.duration` (or
/// [`DEFAULT_DURATION`] when neither is set), then shrinks the first
/// `settings.max_findings` distinct findings, all within the duration when there is one
/// (see the module's documentation). `on_progress` is called from the calling thread
/// about ten times a second.
pub fn run(
    settings: &Settings,
    validator: &dyn Validator,
    differential: &Differential<'_>,
    source: &dyn Source,
    on_progress: Option<&(dyn Fn(&Progress) + Sync)>,
) -> Results {
    let campaign = Campaign {
        settings,
        validator,
        differential,
        source,
        started: Instant::now(),
    };
    let runs = AtomicU64::new(0);
    let tracker = Mutex::new(Tracker::default());
    let deadline = campaign.deadline();
    campaign.fuzz(&runs, &tracker, deadline, on_progress);
    let fuzz_time = campaign.started.elapsed();
    let tracker = tracker
        .into_inner()
        .unwrap_or_else(|poisoned| poisoned.into_inner());
    let runs = runs.into_inner();
    let mut seen: Vec<(Key, Seen)> = tracker.findings.into_iter().collect();
    seen.sort_by_key(|(_, seen)| seen.first_run);
    let unkept: Vec<Tally> = seen
        .iter()
        .skip(settings.max_findings)
        .map(|(key, seen)| Tally {
            class: Class::Finding,
            key: key.clone(),
            count: seen.count,
            first_run: seen.first_run,
            first: None,
            smallest: None,
        })
        .collect();
    seen.truncate(settings.max_findings);
    let shrink_started = Instant::now();
    let progress = Progress {
        phase: Phase::Fuzzing,
        runs,
        findings: seen.len() + unkept.len(),
        apart: tracker.apart_runs,
        elapsed: fuzz_time,
    };
    let findings = campaign.shrink_all(seen, progress, deadline, on_progress);
    let mut apart: Vec<Tally> = tracker.apart.into_values().collect();
    apart.sort_by_key(|tally| (tally.class, tally.first_run));
    Results {
        format: source.format(),
        settings: settings.clone(),
        runs,
        agreed: tracker.agreed,
        skipped: tracker.skipped,
        unusable: tracker.unusable,
        findings,
        unkept,
        apart,
        untracked: tracker.untracked,
        skip_reasons: tracker.skip_reasons.into_iter().collect(),
        fuzz_time,
        shrink_time: shrink_started.elapsed(),
    }
}

impl Campaign<'_> {
    /// When the whole campaign must end, if it has a duration.
    fn deadline(&self) -> Option<Instant> {
        let duration = match (self.settings.runs, self.settings.duration) {
            (None, None) => Some(DEFAULT_DURATION),
            (_, duration) => duration,
        };
        duration.map(|duration| self.started + duration)
    }

    /// The fuzzing phase: workers take run numbers in turn until the runs or the time are
    /// used up; once a finding is held, fuzzing leaves the last share of the time to
    /// shrinking.
    fn fuzz(
        &self,
        runs: &AtomicU64,
        tracker: &Mutex<Tracker>,
        deadline: Option<Instant>,
        on_progress: Option<&(dyn Fn(&Progress) + Sync)>,
    ) {
        let early = deadline.map(|deadline| {
            let total = deadline.saturating_duration_since(self.started);
            deadline - total / SHRINK_SHARE
        });
        let next = AtomicU64::new(0);
        let stop = AtomicBool::new(false);
        let workers = self.settings.jobs.max(1);
        let active = AtomicUsize::new(workers);
        std::thread::scope(|scope| {
            for _ in 0..workers {
                scope.spawn(|| {
                    self.worker(&next, &stop, (deadline, early), runs, tracker);
                    active.fetch_sub(1, Ordering::SeqCst);
                });
            }
            let report = |tracker: &Mutex<Tracker>| {
                if let Some(on_progress) = on_progress {
                    let tracker = tracker.lock().unwrap_or_else(|p| p.into_inner());
                    on_progress(&Progress {
                        phase: Phase::Fuzzing,
                        runs: runs.load(Ordering::Relaxed),
                        findings: tracker.findings.len(),
                        apart: tracker.apart_runs,
                        elapsed: self.started.elapsed(),
                    });
                }
            };
            while active.load(Ordering::SeqCst) > 0 {
                std::thread::sleep(Duration::from_millis(100));
                report(tracker);
            }
        });
    }

    fn worker(
        &self,
        next: &AtomicU64,
        stop: &AtomicBool,
        (deadline, early): (Option<Instant>, Option<Instant>),
        runs: &AtomicU64,
        tracker: &Mutex<Tracker>,
    ) {
        let lock = || {
            tracker
                .lock()
                .unwrap_or_else(|poisoned| poisoned.into_inner())
        };
        loop {
            let now = Instant::now();
            let over = deadline.is_some_and(|d| now >= d)
                || early.is_some_and(|e| now >= e && !lock().findings.is_empty());
            if stop.load(Ordering::Relaxed) || over {
                stop.store(true, Ordering::Relaxed);
                return;
            }
            let run = next.fetch_add(1, Ordering::Relaxed);
            if self.settings.runs.is_some_and(|limit| run >= limit) {
                stop.store(true, Ordering::Relaxed);
                return;
            }
            let data = fuzz_input(self.settings.seed, run, self.settings.max_input);
            let comparison = self.source.document(&data).map(|sample| {
                let mut compared = match self.source.prepare(&data, &sample.document) {
                    Ok(prepared) => self.differential.compare(
                        self.validator,
                        self.source.format(),
                        prepared.input(),
                    ),
                    Err(error) => Comparison::Skipped {
                        reason: format!("cannot prepare the input: {error}"),
                    },
                };
                if let Comparison::Disagree(disagreement) = &mut compared {
                    disagreement.on_open_points(&sample.open);
                }
                (sample, compared)
            });
            runs.fetch_add(1, Ordering::Relaxed);
            let elapsed = self.started.elapsed();
            let mut tracker = lock();
            match comparison {
                None => tracker.unusable += 1,
                Some((_, Comparison::Agree)) => tracker.agreed += 1,
                Some((_, Comparison::Skipped { reason })) => tracker.skipped(reason),
                Some((sample, Comparison::Disagree(disagreement))) => {
                    let listed = &self.settings.listed;
                    tracker.disagreed(run, elapsed, &data, &sample, *disagreement, listed);
                }
            }
        }
    }

    /// The shrinking phase: the kept findings, shrunk in parallel, each within its own
    /// budget of trials and, when the campaign has a deadline, its share of the time left:
    /// a worker gives each finding it takes the time left divided by the findings it may
    /// still have to take.
    fn shrink_all(
        &self,
        seen: Vec<(Key, Seen)>,
        progress: Progress,
        deadline: Option<Instant>,
        on_progress: Option<&(dyn Fn(&Progress) + Sync)>,
    ) -> Vec<Finding> {
        let total = seen.len();
        if total == 0 {
            return Vec::new();
        }
        let next = AtomicUsize::new(0);
        let done = AtomicUsize::new(0);
        let results: Mutex<Vec<Option<Finding>>> = Mutex::new(vec![None; total]);
        let started = Instant::now();
        let workers = self.settings.jobs.max(1).min(total.max(1));
        std::thread::scope(|scope| {
            let mut handles = Vec::new();
            for _ in 0..workers {
                handles.push(scope.spawn(|| loop {
                    let index = next.fetch_add(1, Ordering::Relaxed);
                    let Some((key, seen)) = seen.get(index) else {
                        break;
                    };
                    let slice = deadline.map(|deadline| {
                        let left = deadline.saturating_duration_since(Instant::now());
                        let mine = (total - index).div_ceil(workers) as u32;
                        Instant::now() + left / mine.max(1)
                    });
                    let finding = self.shrink_one(key, seen, slice);
                    results.lock().unwrap_or_else(|p| p.into_inner())[index] = Some(finding);
                    done.fetch_add(1, Ordering::Relaxed);
                }));
            }
            while handles.iter().any(|handle| !handle.is_finished()) {
                if let Some(on_progress) = on_progress {
                    on_progress(&Progress {
                        phase: Phase::Shrinking {
                            done: done.load(Ordering::Relaxed),
                            total,
                        },
                        elapsed: progress.elapsed + started.elapsed(),
                        ..progress
                    });
                }
                std::thread::sleep(Duration::from_millis(100));
            }
        });
        results
            .into_inner()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
            .into_iter()
            .flatten()
            .collect()
    }

    /// What a fatal error hides on a document: a reader stops at text that is not
    /// UTF-8, so an input isolated by an encoding error may break other rules the oracle
    /// never reached, and a draft of it would fail a validator that reads past the bad
    /// bytes for those other reasons. The oracle's diagnostics on the document with each
    /// bad sequence replaced by U+FFFD (what such a reader sees) that are not about the
    /// finding's rule are counted as noise; zero for UTF-8 text.
    fn masked(&self, key: &Key, data: &[u8], document: &[u8]) -> usize {
        if std::str::from_utf8(document).is_ok() {
            return 0;
        }
        let repaired = String::from_utf8_lossy(document).into_owned().into_bytes();
        let Ok(prepared) = self.source.prepare(data, &repaired) else {
            return 0;
        };
        let Some(observation) = self
            .differential
            .observe(self.source.format(), prepared.input())
        else {
            return 0;
        };
        observation
            .diagnostics
            .iter()
            .flatten()
            .filter(|diagnostic| key.rule.as_deref() != Some(diagnostic.rule.as_str()))
            .count()
    }

    /// Shrinks one finding: its fuzz input first, then its document (as JSON values when
    /// it is JSON, then as bytes), keeping only candidates that disagree the same way
    /// ([`Disagreement::matches`]) and on which the oracle reports no more about other
    /// rules ([`Disagreement::noise`]): an input that isolates the finding keeps doing so,
    /// and one that does not yet may come to. A timeout is not shrunk (every trial could
    /// take the whole timeout), nor is a finding that does not come back when its run is
    /// repeated. `until` ends the shrink early (the campaign's deadline).
    fn shrink_one(&self, key: &Key, seen: &Seen, until: Option<Instant>) -> Finding {
        let steps = if key.kind == Kind::Timeout {
            0
        } else {
            self.settings.shrink_steps
        };
        let budget = Budget::new(steps).until(until);
        let format = self.source.format();
        // The noise of the last kept candidate: a candidate may not add to it.
        let noise = Cell::new(usize::MAX);
        // Nor may it be longer than the last kept document: a shrink never grows (a
        // re-spelled JSON value, or the document a simpler choice builds, can be longer
        // than the text it came from).
        let size = Cell::new(usize::MAX);
        // A candidate whose oracle answer cannot show the finding (an input the oracle
        // rejects, for a rejected valid one) or adds to the noise is refused on the
        // oracle's answer alone, without asking the validator: against a slow validator
        // most candidates break something else, and the trials go to those that can
        // still disagree the same way. Those oracle-only refusals are bounded too, at ten
        // per trial.
        let oracle_verdict = match key.kind {
            Kind::RejectsValid => Some(soulcheck_vocabulary::Verdict::Accept),
            Kind::AcceptsInvalid => Some(soulcheck_vocabulary::Verdict::Reject),
            _ => None,
        };
        let refused = Cell::new(0usize);
        let trial = |data: &[u8], document: &[u8]| -> Option<(Disagreement, usize)> {
            if document.len() > size.get() || budget.exhausted() {
                return None;
            }
            // A candidate open on the finding's rule asks another question: the shrunk
            // input keeps the original's open-reading status (a definite one).
            let open = self.source.open_points(document);
            if key.rule.as_ref().is_some_and(|rule| open.contains(rule)) {
                return None;
            }
            let prepared = self.source.prepare(data, document).ok()?;
            let mut observed = None;
            if refused.get() < steps.saturating_mul(10) {
                observed = self.differential.observe(format, prepared.input());
                let cannot = observed.as_ref().is_some_and(|observed| {
                    oracle_verdict.is_some_and(|verdict| observed.verdict != verdict)
                        || super::noise_of(key, observed) > noise.get()
                });
                if cannot {
                    refused.set(refused.get() + 1);
                    return None;
                }
            }
            if !budget.spend() {
                return None;
            }
            // The oracle's answer, when it was looked at above, is not asked for again.
            let mut compared = match observed {
                Some(oracle) => self.differential.compare_observed(
                    self.validator,
                    format,
                    prepared.input(),
                    oracle,
                ),
                None => self
                    .differential
                    .compare(self.validator, format, prepared.input()),
            };
            if let Comparison::Disagree(disagreement) = &mut compared {
                disagreement.on_open_points(&open);
            }
            let disagreement = compared
                .finding()
                .filter(|disagreement| disagreement.matches(key))?;
            let total = disagreement.noise(key) + self.masked(key, data, document);
            (total <= noise.get()).then_some((disagreement, total))
        };
        let original = self.source.document(&seen.data);
        let unshrunk = |reproduced: bool| Finding {
            key: key.clone(),
            count: seen.count,
            first_run: seen.first_run,
            found_after: seen.found_after,
            summary: seen.summary.clone(),
            original_size: seen.original_size,
            data: seen.data.clone(),
            document: original
                .as_ref()
                .map(|sample| sample.document.clone())
                .unwrap_or_default(),
            disagreement: seen.disagreement.clone(),
            shrink_steps: budget.spent(),
            reproduced,
            isolating: seen.isolating,
            targets: seen.targets.clone(),
        };
        let Some(sample) = &original else {
            return unshrunk(false);
        };
        let Some((first, first_noise)) = trial(&seen.data, &sample.document) else {
            // A timeout is not tried again, nor is anything once the time is up; anything
            // else that does not come back is a validator answering one input two ways.
            return unshrunk(steps == 0 || budget.exhausted());
        };
        noise.set(first_noise);
        size.set(sample.document.len());
        let last = RefCell::new(first);
        let keep = |(disagreement, total): (Disagreement, usize), document: &[u8]| {
            noise.set(total);
            size.set(document.len());
            *last.borrow_mut() = disagreement;
            true
        };
        // The choices get half the trials and half the time left, so the document's
        // values and bytes always get their turn.
        let halfway = until.map(|until| {
            let now = Instant::now();
            now + until.saturating_duration_since(now) / 2
        });
        let choices_budget = Budget::new(steps / 2).until(halfway);
        let data = shrink::choices(&seen.data, &choices_budget, &mut |candidate| {
            if !choices_budget.spend() {
                return false;
            }
            let Some(sample) = self.source.document(candidate) else {
                return false;
            };
            trial(candidate, &sample.document)
                .is_some_and(|disagreement| keep(disagreement, &sample.document))
        });
        let start = self
            .source
            .document(&data)
            .map_or_else(|| sample.document.clone(), |sample| sample.document);
        let mut still = |candidate: &[u8]| {
            trial(&data, candidate).is_some_and(|disagreement| keep(disagreement, candidate))
        };
        let start = shrink::json(&start, &budget, &mut still).unwrap_or(start);
        let document = shrink::document(&start, &budget, &mut still);
        let disagreement = last.into_inner();
        Finding {
            key: key.clone(),
            count: seen.count,
            first_run: seen.first_run,
            found_after: seen.found_after,
            summary: seen.summary.clone(),
            original_size: seen.original_size,
            data,
            document,
            // Judged with what a fatal error hides counted too (see `masked`).
            isolating: noise.get() == 0,
            disagreement,
            shrink_steps: budget.spent(),
            reproduced: true,
            targets: seen.targets.clone(),
        }
    }
}
