//! `soulcheck fuzz`: differential fuzzing of a validator against the reference. Documents
//! come from the structure-aware generators (`soulcheck::generated`), valid by
//! construction with one predicted mutation or a few untargeted ones; each goes to the
//! in-process reference (the oracle) and to the validator, set up exactly as `run` sets it
//! up (`crate::subject`). A different verdict, or diagnostics graded `wrong` against the
//! reference's, is a finding when the spec profile decides the document; the others
//! (strict-only readings, the reference's bounds, points the spec leaves open, rejections
//! that name no rule where an open reading refuses, and deviations the validator's
//! `--expectations` file lists) are counted apart by class. Findings are deduplicated by
//! the rule the generator's mutation targeted, shrunk (the generator's choices, then the
//! document's values and bytes) to inputs that isolate them where they can, within
//! `--duration`, and written as draft cases for triage.
//!
//! [`fuzz`] reads as its steps: set up, fuzz and shrink (`soulcheck_harness::differential::
//! campaign`), write the drafts and the report, print the summary. Exit codes: 0 no
//! finding, 1 findings, 2 usage or setup errors (and a campaign that compared nothing).

use std::collections::BTreeSet;
use std::fmt::Write as _;
use std::io::IsTerminal as _;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use anyhow::{bail, Context as _, Result};
use clap::Args;
use indicatif::{ProgressBar, ProgressStyle};
use soulcheck::generated::Generator;
use soulcheck::Reference;
use soulcheck_harness::corpus::InputSource;
use soulcheck_harness::differential::campaign::{
    self, Finding, Phase, Progress, Results, Settings,
};
use soulcheck_harness::differential::{draft, jsonl, Class, Differential, Key};
use soulcheck_harness::expectations::Expectations;
use soulcheck_harness::report::staging::Staging;
use soulcheck_harness::runner::prepare_input;
use soulcheck_harness::store::Store;
use soulcheck_harness::Input;
use soulcheck_harness::{Catalogue, Corpus, ExpectedVerdict, Format, Implementation, Profile};

use crate::guarded::{guarded, Guarded};
use crate::subject::{Subject, ValidatorArgs};
use crate::{corpus_store, output, parse_format};

#[derive(Args)]
pub struct FuzzArgs {
    /// The format whose documents are generated and checked.
    #[arg(long, value_parser = parse_format)]
    format: Format,
    /// Corpus directory whose rule catalogue judges (default: $SOULCHECK_CORPUS, or the
    /// corpus built into this binary).
    #[arg(long)]
    corpus: Option<PathBuf>,
    /// Stop the whole campaign after this long, shrinking included: seconds, or a number
    /// with a unit (`90s`, `5m`, `1h`). Once a finding is held, fuzzing stops a quarter of
    /// the time early and the shrinks share what is left. Default: 60 seconds, unless
    /// --runs is given (then shrinking is bounded by --shrink-steps alone).
    #[arg(long, value_name = "DURATION", value_parser = parse_duration)]
    duration: Option<Duration>,
    /// Stop after this many generated documents.
    #[arg(long, value_name = "N")]
    runs: Option<u64>,
    /// The seed every document derives from (default: a fresh one, printed). The same
    /// seed gives the same documents whatever --jobs, so `--seed S --runs N` repeats a
    /// campaign up to its run N.
    #[arg(long)]
    seed: Option<u64>,
    /// Parallel jobs (default: the number of cores).
    #[arg(long)]
    jobs: Option<usize>,
    /// The profile: `spec` (the default; disagreements resting only on strict-only rules,
    /// the reference's bounds or points the spec leaves open are counted apart) or
    /// `strict` (every rule but a bound decides).
    #[arg(long, default_value = "spec")]
    profile: Profile,
    /// Distinct findings shrunk and written as draft cases; more are counted only.
    #[arg(long, value_name = "N", default_value_t = 20)]
    max_findings: usize,
    /// Trials (the reference and the validator on one candidate) the shrinking of one
    /// finding may spend.
    #[arg(long, value_name = "N", default_value_t = 2_000)]
    shrink_steps: usize,
    /// Largest fuzz input a generator reads its choices from, in bytes.
    #[arg(long, value_name = "BYTES", default_value_t = 4_096)]
    max_input: usize,
    /// Write report.jsonl and the draft cases (cases/<format>/<id>/) into DIR, replacing
    /// it as a whole when the campaign ends (an interrupted one leaves an INCOMPLETE
    /// marker).
    #[arg(long, value_name = "DIR")]
    report: Option<PathBuf>,
    /// Write the draft cases into DIR/<format>/<id>/ instead (`--drafts cases` puts them
    /// where CONTRIBUTING.md's triage expects them).
    #[arg(long, value_name = "DIR")]
    drafts: Option<PathBuf>,
    /// The validator's expectations file, as `run --expectations` reads it: a finding
    /// whose rule and kind a listed case fails with is a known deviation, counted apart
    /// (class `listed`) instead of coming back as a finding in every campaign.
    #[arg(long, value_name = "FILE")]
    expectations: Option<PathBuf>,
    #[command(flatten)]
    validator: ValidatorArgs,
    /// No progress display (on a terminal a progress line; otherwise, as in a CI log, a
    /// line on stderr every 5 seconds and at each phase).
    #[arg(long)]
    quiet: bool,
}

/// How far a campaign got, for the report a signal interrupts.
#[derive(Default)]
struct Runs {
    runs: AtomicU64,
}

type Interruptible = Guarded<Runs>;

pub fn fuzz(args: FuzzArgs) -> Result<ExitCode> {
    guarded(
        |progress: &Runs| {
            format!(
                "{} generated documents had been judged, and report.jsonl has its header",
                progress.runs.load(Ordering::SeqCst)
            )
        },
        |interruptible| fuzz_inner(args, interruptible),
    )
}

fn fuzz_inner(args: FuzzArgs, interruptible: &Interruptible) -> Result<ExitCode> {
    let Some(command) = args.validator.command.clone() else {
        bail!(
            "fuzz needs a validator to hold against the reference\nhint: --validator 'my-tool --json {{path}}'; to fuzz the reference through the protocol, --validator 'soulcheck check --json --format {{format}} {{path}}'"
        );
    };
    let Some(generator) = Generator::new(args.format) else {
        bail!("no generator builds {} documents", args.format);
    };
    // Step 1: the catalogue that judges, and the validator set up as `run` sets it up.
    let (store, catalogue, corpus_hash) = catalogue(args.corpus.as_deref())?;
    let without_path = generator.is_tree().then(|| {
        format!(
            "{} documents are directories, and the validator command has no {{path}} to hand them over (without it a document goes to stdin)\nhint: add {{path}} to the command",
            args.format
        )
    });
    let subject = args.validator.subject(&store, without_path)?;
    let implementation = args.validator.implementation(subject.validator.as_ref());
    let mut settings = settings(&args);
    if let Some(path) = &args.expectations {
        settings.listed = listed(&store, args.format, args.profile, path)?;
    }
    let reproduce = Reproduce::from_env();
    // Step 2: the report's staging directory and header, written before the campaign.
    let staging = match &args.report {
        Some(dir) => Some(Staging::create(dir)?),
        None => None,
    };
    interruptible.watch(staging.clone());
    let writer = match &staging {
        Some(staging) => Some(open_report(
            staging.path(),
            &args,
            &command,
            &subject,
            &implementation,
            &corpus_hash,
            &settings,
        )?),
        None => None,
    };
    // Step 3: fuzz, then shrink.
    let results = execute(
        &args,
        &settings,
        &subject,
        &catalogue,
        &generator,
        interruptible,
    );
    drop(subject);
    // Step 4: the drafts, the report's records and the summary.
    let drafts_dir = match (&args.drafts, &staging) {
        (Some(dir), _) => Some(dir.clone()),
        (None, Some(staging)) => Some(staging.path().join("cases")),
        (None, None) => None,
    };
    let origin = |finding: &Finding| draft::Origin {
        validator: &implementation.name,
        seed: settings.seed,
        reproduce: Some(reproduce.command(settings.seed, finding.first_run + 1)),
    };
    let differential = Differential::new(&Reference, &catalogue, args.profile);
    let existing = if results.findings.is_empty() {
        Vec::new()
    } else {
        existing_cases(&store, args.format, args.profile)?
    };
    let mut written: Vec<Option<PathBuf>> = Vec::new();
    for finding in &results.findings {
        let dir = match &drafts_dir {
            Some(out) => Some(
                draft::write_finding(
                    out,
                    finding,
                    &generator,
                    &differential,
                    &existing,
                    &origin(finding),
                )
                .with_context(|| format!("cannot write a draft case in {}", out.display()))?,
            ),
            None => None,
        };
        // A draft inside the report directory is named where it will be.
        let shown = match (&dir, &staging, &args.report) {
            (Some(dir), Some(staging), Some(report)) => Some(
                dir.strip_prefix(staging.path())
                    .map_or_else(|_| dir.clone(), |inside| report.join(inside)),
            ),
            _ => dir,
        };
        written.push(shown);
    }
    // The existing case each finding repeats, if one asks its question.
    let duplicates: Vec<Option<String>> = results
        .findings
        .iter()
        .map(|finding| draft::duplicate_of(finding, &existing).map(|case| case.id.clone()))
        .collect();
    if let Some(writer) = &writer {
        for ((finding, dir), duplicate) in results.findings.iter().zip(&written).zip(&duplicates) {
            writer.finding(jsonl::FindingRecord::kept(
                finding,
                dir.as_deref(),
                duplicate.as_deref(),
            ));
        }
        for tally in &results.unkept {
            writer.finding(jsonl::FindingRecord::unkept(tally));
        }
        for tally in &results.apart {
            writer.apart(tally);
        }
        writer.finish(jsonl::Footer::of(&results));
        let staging = interruptible.release();
        if let Some(staging) = staging {
            staging.complete()?;
        }
    }
    let compared = results.runs - results.skipped - results.unusable;
    output::print(&render(
        &results,
        &implementation,
        args.profile,
        &written,
        &duplicates,
        &reproduce,
    ))?;
    if compared == 0 && !results.has_findings() {
        eprintln!(
            "soulcheck: nothing was compared: the validator (or the reference) declined every generated document\nhint: the skip reasons are listed above; check --validator and --format"
        );
        return Ok(ExitCode::from(2));
    }
    Ok(if results.has_findings() {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    })
}

/// The rule catalogue of the corpus (`--corpus`, `$SOULCHECK_CORPUS` or the built-in one),
/// where it is stored and its content hash. No case is loaded: a campaign needs the rules
/// alone.
fn catalogue(flag: Option<&Path>) -> Result<(Store, Catalogue, String)> {
    if let Some(path) = flag {
        if !path.is_dir() {
            bail!(
                "the corpus directory {} does not exist\nhint: --corpus names a directory holding <format>/rules.toml; leave it out to use the corpus built into soulcheck",
                path.display()
            );
        }
    }
    let store = corpus_store(flag);
    let catalogue = Catalogue::open(&store)?;
    let hash = match &store {
        Store::Embedded(_) => soulcheck_corpus::CONTENT_HASH.to_owned(),
        _ => Corpus {
            store: store.clone(),
            cases: Vec::new(),
            retired: BTreeSet::new(),
        }
        .content_hash()?,
    };
    Ok((store, catalogue, hash))
}

/// The corpus's cases of `format`, as drafts compare themselves with them: their rules,
/// and the shape of each input that is one committed file (a tree or a generated input
/// is not built for this: some are tens of thousands of entries, or megabytes).
fn existing_cases(store: &Store, format: Format, profile: Profile) -> Result<Vec<draft::Existing>> {
    let corpus = Corpus::open(store.clone())?;
    Ok(corpus
        .cases
        .iter()
        .filter(|case| case.format == format)
        .map(|case| draft::Existing {
            id: case.id.clone(),
            rules: case.rules.clone(),
            question: {
                let expectation = case.expectation(profile);
                let reject = match expectation.verdict {
                    ExpectedVerdict::Reject => Some(true),
                    ExpectedVerdict::Accept | ExpectedVerdict::AcceptWithWarnings => Some(false),
                    // Implementation-defined: it asks what the spec leaves open.
                    _ => None,
                };
                reject.map(|reject| {
                    draft::question(
                        reject,
                        expectation
                            .diagnostics
                            .iter()
                            .map(|d| (d.rule.as_str(), d.severity, d.location.pointer.as_deref())),
                    )
                })
            },
            shape: matches!(case.input, InputSource::File { .. })
                .then(|| prepare_input(case).ok())
                .flatten()
                .and_then(|prepared| match prepared.input() {
                    Input::Document { bytes, .. } => Some(draft::shape(bytes)),
                    _ => None,
                }),
        })
        .collect())
}

/// The findings an expectations file lists, checked against the corpus as `run` checks it.
fn listed(store: &Store, format: Format, profile: Profile, path: &Path) -> Result<Vec<Key>> {
    let corpus = Corpus::open_formats(store.clone(), &[format])?;
    let expectations = Expectations::load(path, &corpus.cases)
        .with_context(|| format!("cannot read the expectations file {}", path.display()))?;
    Ok(campaign::listed_keys(&expectations, &corpus.cases, profile))
}

/// The campaign's settings from the command line; a fresh seed when none is given.
fn settings(args: &FuzzArgs) -> Settings {
    let jobs = args
        .jobs
        .unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get()));
    Settings {
        seed: args.seed.unwrap_or_else(fresh_seed),
        runs: args.runs,
        duration: args.duration,
        jobs: jobs.max(1),
        max_findings: args.max_findings,
        shrink_steps: args.shrink_steps,
        max_input: args.max_input.max(1),
        listed: Vec::new(),
    }
}

/// A seed nobody chose: the clock and the process id, folded to at most ten digits so
/// it is easy to copy.
fn fresh_seed() -> u64 {
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |elapsed| elapsed.as_nanos() as u64);
    let mixed = (nanos ^ (u64::from(std::process::id()) << 40)).wrapping_mul(0x9E37_79B9_7F4A_7C15);
    (mixed >> 16) % 10_000_000_000
}

/// `90`, `90s`, `1.5m`, `2h`, `500ms`.
fn parse_duration(text: &str) -> Result<Duration, String> {
    let text = text.trim();
    let (number, unit) = match text.find(|c: char| c.is_ascii_alphabetic()) {
        Some(at) => text.split_at(at),
        None => (text, "s"),
    };
    let scale = match unit {
        "ms" => 0.001,
        "s" => 1.0,
        "m" => 60.0,
        "h" => 3600.0,
        _ => return Err(format!("unknown unit {unit:?} (use ms, s, m or h)")),
    };
    let value: f64 = number
        .trim()
        .parse()
        .map_err(|_| format!("{text:?} is not a duration (`90`, `90s`, `5m`, `1h`)"))?;
    if !value.is_finite() || value <= 0.0 {
        return Err("a duration is positive".to_owned());
    }
    Duration::try_from_secs_f64(value * scale).map_err(|error| error.to_string())
}

/// Step 2: the header of `report.jsonl` in the staging directory.
fn open_report(
    dir: &Path,
    args: &FuzzArgs,
    command: &str,
    subject: &Subject,
    implementation: &Implementation,
    corpus_hash: &str,
    settings: &Settings,
) -> Result<jsonl::Writer> {
    let header = jsonl::Header {
        soulcheck_version: env!("CARGO_PKG_VERSION").to_owned(),
        corpus_hash: corpus_hash.to_owned(),
        format: args.format,
        mode: subject.mode.to_owned(),
        command: Some(command.to_owned()),
        implementation: implementation.clone(),
        profile: args.profile,
        seed: settings.seed,
        settings: serde_json::json!({
            "runs": settings.runs,
            "duration_seconds": settings.duration.map(|duration| duration.as_secs_f64()),
            "jobs": settings.jobs,
            "max_findings": settings.max_findings,
            "shrink_steps": settings.shrink_steps,
            "max_input_bytes": settings.max_input,
            "expectations": args.expectations.as_ref().map(|path| path.display().to_string()),
            "listed": settings.listed.len(),
            "timeout_seconds": args.validator.timeout,
            "sandbox": args.validator.sandboxed(),
            "crash_patterns": args.validator.crash_patterns,
            "default_crash_patterns": !args.validator.no_default_crash_patterns,
            "evidence_cap_bytes": soulcheck_harness::validator::EVIDENCE_CAP,
        }),
        started_at: soulcheck_harness::report::jsonl::now(),
    };
    Ok(jsonl::Writer::create(&dir.join("report.jsonl"), &header)?)
}

/// How often a campaign without a terminal (a CI log) says how it stands, besides a line
/// at each change of phase: often enough that a log never sits silent for long.
const LOG_EVERY: std::time::Duration = std::time::Duration::from_secs(5);

/// Progress as log lines on stderr, for a campaign whose stderr is not a terminal: one
/// every [`LOG_EVERY`], and one whenever the phase changes (fuzzing to shrinking, each
/// finding shrunk).
struct LogLines {
    last: std::sync::Mutex<Option<(std::time::Instant, Phase)>>,
}

impl LogLines {
    fn new() -> LogLines {
        LogLines {
            last: std::sync::Mutex::new(None),
        }
    }

    fn show(&self, progress: &Progress) {
        let mut last = self
            .last
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner());
        let due = match *last {
            None => true,
            Some((at, phase)) => phase != progress.phase || at.elapsed() >= LOG_EVERY,
        };
        if due {
            *last = Some((std::time::Instant::now(), progress.phase));
            eprintln!("fuzz: {}", describe_progress(progress));
        }
    }
}

/// Step 3: the campaign, with a progress line on a terminal, or progress lines in a log.
fn execute(
    args: &FuzzArgs,
    settings: &Settings,
    subject: &Subject,
    catalogue: &Catalogue,
    generator: &Generator,
    interruptible: &Interruptible,
) -> Results {
    let interactive =
        !args.quiet && std::io::stderr().is_terminal() && std::env::var_os("CI").is_none();
    let bar = interactive.then(|| {
        let bar = ProgressBar::new_spinner();
        if let Ok(style) = ProgressStyle::with_template("{spinner} {msg}") {
            bar.set_style(style);
        }
        bar
    });
    let log = (!args.quiet && !interactive).then(LogLines::new);
    let on_progress = |progress: &Progress| {
        interruptible
            .progress
            .runs
            .store(progress.runs, Ordering::SeqCst);
        if let Some(bar) = &bar {
            bar.set_message(describe_progress(progress));
            bar.tick();
        }
        if let Some(log) = &log {
            log.show(progress);
        }
    };
    let differential = Differential::new(&Reference, catalogue, args.profile);
    let results = campaign::run(
        settings,
        subject.validator.as_ref(),
        &differential,
        generator,
        Some(&on_progress),
    );
    if let Some(bar) = &bar {
        bar.finish_and_clear();
    }
    results
}

fn describe_progress(progress: &Progress) -> String {
    let seconds = progress.elapsed.as_secs_f64();
    let rate = progress.runs as f64 / seconds.max(0.001);
    match progress.phase {
        Phase::Shrinking { done, total } => format!(
            "{} runs in {seconds:.0} s; shrinking finding {} of {total}",
            progress.runs,
            (done + 1).min(total)
        ),
        _ => format!(
            "{} runs in {seconds:.0} s ({rate:.0}/s); {} findings, {} runs counted apart (not findings)",
            progress.runs, progress.findings, progress.apart
        ),
    }
}

/// The command line that repeats this campaign: the same arguments, with the seed and a
/// number of runs instead of a duration, and without where the results went; prefixed by
/// the variables the validator was started with beyond `PATH` (those `--env` names, the
/// `SOULCHECK_*` ones and the locale and time zone), each as this campaign had it, so the
/// validator runs again as it ran here.
struct Reproduce {
    env: Vec<(String, String)>,
    kept: Vec<String>,
}

impl Reproduce {
    fn from_env() -> Reproduce {
        let mut reproduce = Reproduce::from_args(std::env::args().skip(1));
        reproduce.env = reproduce
            .passed()
            .into_iter()
            .filter_map(|name| std::env::var(&name).ok().map(|value| (name, value)))
            .collect();
        reproduce
    }

    /// The names of the variables the validator gets besides `PATH`, `HOME` and `TMPDIR`
    /// (the sandbox sets those two): what `--env` names, and the fixed ones that change
    /// how a program reads text and time, and `SOULCHECK_*`.
    fn passed(&self) -> Vec<String> {
        let mut names: Vec<String> = Vec::new();
        let mut next_is_name = false;
        for arg in &self.kept {
            if next_is_name {
                names.push(arg.clone());
                next_is_name = false;
            } else if arg == "--env" {
                next_is_name = true;
            } else if let Some(name) = arg.strip_prefix("--env=") {
                names.push(name.to_owned());
            }
        }
        let fixed = soulcheck_harness::sandbox::PASSED_ENV
            .iter()
            .filter(|name| **name != "PATH")
            .map(|name| (*name).to_owned());
        let ours = std::env::vars_os()
            .filter_map(|(name, _)| name.into_string().ok())
            .filter(|name| name.starts_with("SOULCHECK_"));
        let mut all: Vec<String> = fixed.chain(ours).chain(names).collect();
        all.sort();
        all.dedup();
        all
    }

    fn from_args(args: impl Iterator<Item = String>) -> Reproduce {
        // Flags replaced (--seed, --runs, --duration) or dropped (where results go, how
        // the campaign is shown), with the value each takes.
        const DROPPED: &[(&str, bool)] = &[
            ("--seed", true),
            ("--runs", true),
            ("--duration", true),
            ("--report", true),
            ("--drafts", true),
            ("--jobs", true),
            ("--quiet", false),
        ];
        let mut kept = Vec::new();
        let mut skip_value = false;
        for arg in args {
            if skip_value {
                skip_value = false;
                continue;
            }
            let flag = arg.split('=').next().unwrap_or_default();
            match DROPPED.iter().find(|(name, _)| *name == flag) {
                Some((_, takes_value)) => skip_value = *takes_value && !arg.contains('='),
                None => kept.push(arg),
            }
        }
        Reproduce {
            env: Vec::new(),
            kept,
        }
    }

    /// The campaign's first `runs` runs, with `seed`.
    fn command(&self, seed: u64, runs: u64) -> String {
        let mut words: Vec<String> = self
            .env
            .iter()
            .map(|(name, value)| format!("{name}={}", shell_quote(value)))
            .collect();
        words.push("soulcheck".to_owned());
        words.extend(self.kept.iter().map(|word| shell_quote(word)));
        words.push(format!("--seed {seed} --runs {runs}"));
        words.join(" ")
    }
}

/// A word as a POSIX shell reads it back: bare when it is plain, else single-quoted.
fn shell_quote(word: &str) -> String {
    let plain = !word.is_empty()
        && word
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || "-_./=:,+@%".contains(c));
    if plain {
        word.to_owned()
    } else {
        format!("'{}'", word.replace('\'', r"'\''"))
    }
}

/// What a class of disagreements counted apart means, for the summary.
fn class_meaning(class: Class) -> &'static str {
    match class {
        Class::StrictOnly => "only rules the strict profile adds; the spec allows what they refuse",
        Class::Bound => "only the reference's own size, depth or entry bounds",
        Class::ImplementationDefined => "only points the spec leaves open",
        Class::Listed => "known deviations: the expectations file lists a case failing with this rule and kind",
        Class::Unexplained => {
            "the validator rejects a document only an open reading refuses (named here) and names no catalogued rule, so which reading it took is unknown; check its output on the documents shown"
        }
        _ => "decided by the spec",
    }
}

/// Step 4: the summary: what ran, the findings by rule with their counts, isolation and
/// shrunk inputs, the disagreements counted apart by class, and the verdict.
fn render(
    results: &Results,
    implementation: &Implementation,
    profile: Profile,
    drafts: &[Option<PathBuf>],
    duplicates: &[Option<String>],
    reproduce: &Reproduce,
) -> String {
    let mut out = String::new();
    let name = format!("{} {}", implementation.name, implementation.version);
    let seconds = results.fuzz_time.as_secs_f64();
    let _ = writeln!(
        out,
        "soulcheck fuzz: {} against the reference, {} documents, {profile} profile, seed {}",
        name.trim(),
        results.format,
        results.settings.seed
    );
    let _ = writeln!(
        out,
        "{} runs in {seconds:.1} s ({:.0}/s, {} jobs): {} agreed, {} disagreed, {} skipped, {} unusable; shrinking took {:.1} s",
        results.runs,
        results.runs as f64 / seconds.max(0.001),
        results.settings.jobs,
        results.agreed,
        results.runs - results.agreed - results.skipped - results.unusable,
        results.skipped,
        results.unusable,
        results.shrink_time.as_secs_f64()
    );
    if let Some(duration) = results.settings.duration {
        let total = results.fuzz_time + results.shrink_time;
        let _ = writeln!(
            out,
            "the campaign took {:.1} s of its --duration {:.1} s (shrinking shares it)",
            total.as_secs_f64(),
            duration.as_secs_f64()
        );
    }
    for (reason, count) in &results.skip_reasons {
        let _ = writeln!(out, "  skipped {count}: {}", one_line(reason, 160));
    }
    let tallies = results.tallies();
    if tallies.is_empty() {
        let _ = writeln!(out, "\nno findings");
    } else {
        let mut by_rule = tallies.clone();
        by_rule.sort_by(|a, b| (&a.key.rule, a.key.kind).cmp(&(&b.key.rule, b.key.kind)));
        let _ = writeln!(out, "\nfindings by rule ({} distinct):", tallies.len());
        let width = by_rule
            .iter()
            .map(|tally| tally.key.rule.as_deref().unwrap_or("(no rule)").len())
            .max()
            .unwrap_or(0);
        for tally in &by_rule {
            let _ = writeln!(
                out,
                "  {:width$}  {:22} {:>6} runs  first run {}",
                tally.key.rule.as_deref().unwrap_or("(no rule)"),
                tally.key.kind.name(),
                tally.count,
                tally.first_run,
            );
        }
        for ((finding, draft), duplicate) in results.findings.iter().zip(drafts).zip(duplicates) {
            let _ = writeln!(out, "\n{}", finding.key);
            let _ = writeln!(out, "  {}", one_line(&finding.disagreement.explain(), 400));
            let _ = writeln!(
                out,
                "  found after {:.1} s (run {}, {}); shrunk from {} to {} bytes in {} trials{}",
                finding.found_after.as_secs_f64(),
                finding.first_run,
                one_line(&finding.summary, 80),
                finding.original_size,
                finding.document.len(),
                finding.shrink_steps,
                if finding.reproduced {
                    ""
                } else {
                    " (not shrunk: the validator did not answer the same way twice)"
                }
            );
            let _ = writeln!(
                out,
                "  {}",
                if finding.isolating {
                    "isolating: the reference reports nothing else on the shrunk input".to_owned()
                } else {
                    format!(
                        "not isolating: the reference reports {} more diagnostic(s) on the shrunk input",
                        finding.disagreement.noise(&finding.key)
                    )
                }
            );
            let _ = writeln!(out, "  input: {}", preview(&finding.document, 300));
            if let Some(case) = duplicate {
                let _ = writeln!(
                    out,
                    "  duplicate: the corpus's case {case} asks this question already (the same verdict and diagnostics at the same places)"
                );
            }
            match draft {
                Some(dir) => {
                    let _ = writeln!(out, "  draft case: {}", dir.display());
                }
                None => {
                    let _ = writeln!(
                        out,
                        "  reproduce: {}",
                        reproduce.command(results.settings.seed, finding.first_run + 1)
                    );
                }
            }
        }
        if !results.unkept.is_empty() {
            let _ = writeln!(
                out,
                "\n{} more distinct findings were counted but not shrunk (--max-findings)",
                results.unkept.len()
            );
        }
    }
    for &class in Class::ALL {
        let tallies: Vec<_> = results.apart_of(class).collect();
        if tallies.is_empty() {
            continue;
        }
        let _ = writeln!(
            out,
            "\n{} disagreements ({}; not findings): {} runs",
            class.name(),
            class_meaning(class),
            results.runs_apart(class)
        );
        for tally in tallies {
            let _ = writeln!(
                out,
                "  {}  {}  {} runs  first run {}",
                tally.key.rule.as_deref().unwrap_or("(no rule)"),
                tally.key.kind.name(),
                tally.count,
                tally.first_run
            );
            // The unexplained bucket shows its documents, as findings do: nothing else says
            // what the validator refused.
            if class == Class::Unexplained {
                let examples = [("first", &tally.first), ("smallest", &tally.smallest)];
                for (label, example) in examples {
                    if let Some(example) = example {
                        let _ = writeln!(
                            out,
                            "    {label}: run {}, {} bytes: {}",
                            example.run,
                            example.size,
                            preview(&example.head, 300)
                        );
                    }
                }
            }
        }
    }
    let distinct = results.findings.len() + results.unkept.len();
    let _ = writeln!(
        out,
        "\n{}",
        if results.has_findings() {
            format!(
                "{distinct} distinct finding{} (exit 1); drafts are the reference's answer, to review against the spec (CONTRIBUTING.md, \"Triage of a fuzz crash\")",
                if distinct == 1 { "" } else { "s" }
            )
        } else {
            "no finding (exit 0)".to_owned()
        }
    );
    out
}

/// Text on one line, cut to `max` characters.
fn one_line(text: &str, max: usize) -> String {
    let flat: String = text
        .chars()
        .map(|c| if c == '\n' || c == '\r' { ' ' } else { c })
        .collect();
    // What a validator printed is untrusted: escapes are shown, never passed through.
    let flat = soulcheck_vocabulary::display::visible(&flat).into_owned();
    if flat.chars().count() <= max {
        flat
    } else {
        flat.chars().take(max).collect::<String>() + "..."
    }
}

/// A document's bytes as one escaped line, cut to `max` characters.
fn preview(bytes: &[u8], max: usize) -> String {
    let text = String::from_utf8_lossy(bytes);
    let mut out = String::new();
    for c in text.chars() {
        if out.chars().count() >= max {
            out.push_str("...");
            break;
        }
        match c {
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c if c.is_control() => {
                let _ = write!(out, "\\u{{{:X}}}", c as u32);
            }
            c => out.push(c),
        }
    }
    if std::str::from_utf8(bytes).is_err() {
        out.push_str(" (not UTF-8; shown lossily)");
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn durations() {
        assert_eq!(parse_duration("90"), Ok(Duration::from_secs(90)));
        assert_eq!(parse_duration("90s"), Ok(Duration::from_secs(90)));
        assert_eq!(parse_duration("1.5m"), Ok(Duration::from_secs(90)));
        assert_eq!(parse_duration("2h"), Ok(Duration::from_secs(7200)));
        assert_eq!(parse_duration("500ms"), Ok(Duration::from_millis(500)));
        assert!(parse_duration("0").is_err());
        assert!(parse_duration("5 days").is_err());
    }

    #[test]
    fn the_reproducing_command_keeps_the_validator_and_replaces_the_seed() {
        let args = [
            "fuzz",
            "--format",
            "soul-kit",
            "--validator",
            "my tool --json {path}",
            "--seed=5",
            "--duration",
            "10",
            "--report",
            "out",
            "--quiet",
        ];
        let reproduce = Reproduce::from_args(args.iter().map(|arg| (*arg).to_owned()));
        assert_eq!(
            reproduce.command(7, 13),
            "soulcheck fuzz --format soul-kit --validator 'my tool --json {path}' --seed 7 --runs 13"
        );
        assert_eq!(shell_quote("it's"), r"'it'\''s'");
        // The validator's environment comes first, quoted.
        let reproduce = Reproduce {
            env: vec![("TOOL_NOW".to_owned(), "2026-07-14 00:00".to_owned())],
            ..reproduce
        };
        assert_eq!(
            reproduce.command(7, 13),
            "TOOL_NOW='2026-07-14 00:00' soulcheck fuzz --format soul-kit --validator 'my tool --json {path}' --seed 7 --runs 13"
        );
        let named = Reproduce::from_args(
            [
                "fuzz",
                "--env",
                "TOOL_HOME",
                "--env=TOOL_NOW",
                "--validator",
                "t",
            ]
            .iter()
            .map(|arg| (*arg).to_owned()),
        );
        let passed = named.passed();
        assert!(passed.contains(&"TOOL_HOME".to_owned()), "{passed:?}");
        assert!(passed.contains(&"TOOL_NOW".to_owned()), "{passed:?}");
        assert!(passed.contains(&"TZ".to_owned()), "{passed:?}");
        assert!(!passed.contains(&"PATH".to_owned()), "{passed:?}");
    }

    #[test]
    fn previews_escape_what_cannot_be_seen() {
        assert_eq!(preview(b"a\tb\n\x01", 10), "a\\tb\\n\\u{1}");
        assert!(preview(b"\xff", 10).ends_with("(not UTF-8; shown lossily)"));
        assert_eq!(preview(b"abcdef", 3), "abc...");
    }
}
