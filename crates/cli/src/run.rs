//! `soulcheck run`: the corpus against a validator (the in-process reference, or any
//! command through the per-case or persistent protocol), with filters, expectations,
//! reports and certificates. [`run`] reads as its steps: load and self-check the corpus,
//! select the cases, set up the validator, run, then report.
//!
//! A run that cannot mean anything ends with exit code 2 and a hint before any case runs:
//! an empty selection, a filter that matches nothing, an unknown rule, an empty corpus, a
//! directory case for a command without `{path}`, a program that is not there.

use std::io::IsTerminal as _;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, OnceLock};

use anyhow::{bail, Context as _, Result};
use clap::Args;
use globset::{Glob, GlobSet, GlobSetBuilder};
use indicatif::{ProgressBar, ProgressStyle};
use soulcheck_harness::expectations::Expectations;
use soulcheck_harness::report::staging::Staging;
use soulcheck_harness::report::{self, badge, certificate, jsonl, junit, markdown, Summary};
use soulcheck_harness::runner::{self, CaseResult, RunOptions};
use soulcheck_harness::store::Store;
use soulcheck_harness::{selfcheck, Case, Catalogue, Corpus, Format, Implementation, Profile};

use crate::guarded::{guarded, Guarded};
use crate::listing::selected;
use crate::subject::{Subject, ValidatorArgs};
use crate::{corpus_hash, load_formats, output, Selection};

#[derive(Args)]
pub struct RunArgs {
    #[command(flatten)]
    selection: Selection,
    /// Only cases whose ID (or `<format>/<id>`) matches one of these globs.
    #[arg(long = "case", value_name = "GLOB")]
    cases: Vec<String>,
    /// Only cases exercising one of these rules.
    #[arg(long = "rule", value_name = "RULE")]
    rules: Vec<String>,
    /// Only cases of these operations (`validate`, `fingerprint`, ...); default: all. A
    /// validator that only validates, such as a JSON Schema validator, runs with
    /// `--operation validate`.
    #[arg(long = "operation", value_name = "NAME")]
    operations: Vec<String>,
    /// Only cases whose input file or directory name matches one of these globs
    /// (`'*.json'`: the JSON documents, for a validator that reads nothing else).
    #[arg(long = "input-name", value_name = "GLOB")]
    input_names: Vec<String>,
    /// The expectations to judge by: `spec` (what the spec's text decides; the default)
    /// or `strict` (plus the suite's protective choices, each a definite verdict).
    #[arg(long, default_value = "spec")]
    profile: Profile,
    /// Parallel jobs (default: the number of cores).
    #[arg(long)]
    jobs: Option<usize>,
    #[command(flatten)]
    validator: ValidatorArgs,
    /// Stop after the first failure.
    #[arg(long)]
    fail_fast: bool,
    /// Known failures (TOML); listed failures do not fail the run, listed passes do.
    #[arg(long, value_name = "FILE")]
    expectations: Option<PathBuf>,
    /// Write the run's failures as an expectations file.
    #[arg(long, value_name = "FILE")]
    write_expectations: Option<PathBuf>,
    /// Write report.jsonl, junit.xml, summary.md, badges/ and certificates/ into DIR,
    /// replacing it as a whole when the run ends (an interrupted run leaves an INCOMPLETE
    /// marker and no certificate).
    #[arg(long, value_name = "DIR")]
    report: Option<PathBuf>,
    /// No progress bar.
    #[arg(long)]
    quiet: bool,
}

/// How far a run got, for the report a signal interrupts: the cases selected, and the
/// report being written, which the signal's handler closes and counts.
#[derive(Default)]
struct Progress {
    total: AtomicUsize,
    writer: OnceLock<Arc<jsonl::Writer>>,
}

type Interruptible = Guarded<Progress>;

pub fn run(args: RunArgs) -> Result<ExitCode> {
    guarded(interrupted_after, |interruptible| {
        run_inner(args, interruptible)
    })
}

/// What an interrupted report holds, for its `INCOMPLETE` marker and summary: the report
/// is closed first, so the counts are those of the records in `report.jsonl`.
fn interrupted_after(progress: &Progress) -> String {
    let total = progress.total.load(Ordering::SeqCst);
    let Some(writer) = progress.writer.get() else {
        return format!("none of {total} cases had started");
    };
    let written = writer.close();
    format!(
        "{} of {total} cases had started: report.jsonl has a record for each of them ({} stopped by the interruption, recorded as `interrupted`) and none for the {} that never started",
        written.cases,
        written.interrupted,
        total.saturating_sub(written.cases)
    )
}

fn run_inner(args: RunArgs, interruptible: &Interruptible) -> Result<ExitCode> {
    let (corpus, catalogue) = load_formats(&args.selection, |store| formats_to_load(&args, store))?;
    if corpus.cases.is_empty() {
        bail!(
            "the corpus at {} has no cases\nhint: --corpus names a directory holding <format>/<case-id>/case.toml; leave it out to use the corpus built into soulcheck",
            corpus.store.display(Path::new("")).display()
        );
    }
    let cases = select(&args, &corpus, &catalogue)?;
    interruptible
        .progress
        .total
        .store(cases.len(), Ordering::SeqCst);
    let subject = subject(&args, &cases, &corpus.store)?;
    let problems = self_check(&corpus, &catalogue, &cases);
    let jobs = args
        .jobs
        .unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get()));
    let expectations = match &args.expectations {
        Some(path) => Some(Expectations::load(path, &corpus.cases)?),
        None => None,
    };
    let implementation = args.validator.implementation(subject.validator.as_ref());
    let corpus_hash = corpus_hash(&corpus)?;
    let staging = match &args.report {
        Some(dir) => Some(Staging::create(dir)?),
        None => None,
    };
    interruptible.watch(staging.clone());
    // What the certificates are measured against, counted once: the header records it too.
    let scope = args.scope(&corpus);
    let writer = match &staging {
        Some(staging) => Some(Arc::new(open_report(
            staging.path(),
            &args,
            Chosen {
                held: &scope.held,
                cases: &cases,
            },
            &subject,
            &implementation,
            &corpus_hash,
            jobs,
        )?)),
        None => None,
    };
    if let Some(writer) = &writer {
        let _ = interruptible.progress.writer.set(Arc::clone(writer));
    }
    let results = execute(
        &args,
        &cases,
        &catalogue,
        &subject,
        expectations.as_ref(),
        jobs,
        writer.as_deref(),
    );
    // A signal that stopped the cases ends the run from its handler, which closes the
    // report as interrupted: this thread writes no complete report over it.
    soulcheck_harness::interrupt::settle();
    // The validator's processes end now (a persistent pool says goodbye), before the
    // reports are written.
    drop(subject);
    let summary = Summary::new(&cases, &results);
    let certificates = certificate::issue(
        &cases,
        &results,
        &catalogue,
        &implementation,
        &corpus_hash,
        args.profile,
        &scope,
    );
    // The reference must implement every case; another validator may skip what it does
    // not support.
    let skips_fail = args.is_reference() && summary.overall.skipped > 0;
    let mut also_failing = Vec::new();
    if skips_fail {
        also_failing.push(format!(
            "the reference skipped {} cases",
            summary.overall.skipped
        ));
    }
    if !problems.is_empty() {
        also_failing.push(format!(
            "the corpus fails its self-check ({} problems)",
            problems.len()
        ));
    }
    let ending = report::Ending {
        exit_code: if summary.no_failures() && also_failing.is_empty() {
            0
        } else {
            1
        },
        also_failing,
        uncertified_by_design: args.is_reference(),
    };
    let exit_code = ending.exit_code;
    let context = report::Context {
        command: args.validator.command.clone(),
        corpus: args.selection.corpus.clone(),
        report_dir: args.report.clone(),
        max_lines: report::MAX_FAILURE_LINES,
        ending: Some(ending),
    };
    if let (Some(staging), Some(writer)) = (&staging, &writer) {
        write_reports(
            staging.path(),
            &summary,
            &certificates,
            &cases,
            &results,
            &implementation,
            &context,
        )?;
        writer.finish(jsonl::Footer {
            complete: true,
            finished_at: jsonl::now(),
            summary: summary.overall,
        });
        // Past this point a signal no longer marks the report interrupted: it is whole.
        let staging = interruptible.release();
        if let Some(staging) = staging {
            staging.complete()?;
        }
    }
    if let Some(path) = &args.write_expectations {
        std::fs::write(path, Expectations::render_from(&cases, &results))
            .with_context(|| format!("cannot write {}", path.display()))?;
    }
    // The reference's own run prints no certificates: it is judged by its strictness.
    let shown: &[certificate::Certificate] = if !args.is_reference() {
        &certificates
    } else {
        &[]
    };
    output::print(&summary.render(&cases, &results, &catalogue, shown, &context))?;
    Ok(ExitCode::from(exit_code))
}

/// Step 3: the corpus's own checks. Problems of the selected cases (and of the rules of
/// their formats) are printed and fail the run at the end; problems elsewhere in the
/// corpus do not bear on this run's judgements and are only counted.
fn self_check(corpus: &Corpus, catalogue: &Catalogue, cases: &[&Case]) -> Vec<selfcheck::Problem> {
    let names: std::collections::BTreeSet<String> = cases.iter().map(|case| case.name()).collect();
    let formats: std::collections::BTreeSet<&str> =
        cases.iter().map(|case| case.format.name()).collect();
    let concerns_run = |problem: &selfcheck::Problem| {
        let subject = problem.subject.as_str();
        let subject = subject.strip_prefix("rule ").unwrap_or(subject);
        if subject.contains('/') {
            return names.contains(subject);
        }
        match subject.split_once('.') {
            Some((format, _)) if Format::ALL.iter().any(|f| f.name() == format) => {
                formats.contains(format)
            }
            _ => true,
        }
    };
    // No input is built here: the rest of the corpus's inputs bear on nothing this run
    // reports, and the selected cases' inputs are built by the run, once each, and
    // checked there (`RunOptions::check_inputs`: a problem is the case's input error).
    let (mine, others): (Vec<_>, Vec<_>) = selfcheck::check_building(corpus, catalogue, &|_| false)
        .into_iter()
        .partition(concerns_run);
    if !mine.is_empty() {
        eprintln!("the corpus fails its self-check:");
        for problem in &mine {
            eprintln!("  {problem}");
        }
    }
    if !others.is_empty() {
        eprintln!(
            "note: the corpus fails its self-check in cases outside this selection; they do not bear on this run (`soulcheck run` without filters lists them)"
        );
    }
    mine
}

/// Step 0: the formats a run loads, chosen before any case is read: those `--format`
/// names; else those holding a case directory that a `--case` pattern matches (by its ID
/// or `<format>/<id>`); else every format. When the patterns match no directory at all,
/// every format is loaded, so the selection's own check says which pattern matched
/// nothing. The certificates of a loaded format count all its cases, as before.
fn formats_to_load(args: &RunArgs, store: &Store) -> Result<Vec<Format>> {
    if !args.selection.format.is_empty() {
        return Ok(args.selection.format.clone());
    }
    let Some(globs) = glob_set(&args.cases)? else {
        return Ok(Format::ALL.to_vec());
    };
    let mut formats = Vec::new();
    for format in Format::ALL {
        let named = Corpus::case_ids(store, format)?
            .iter()
            .any(|id| globs.is_match(id) || globs.is_match(format!("{}/{id}", format.name())));
        if named {
            formats.push(format);
        }
    }
    if formats.is_empty() {
        formats = Format::ALL.to_vec();
    }
    Ok(formats)
}

/// Step 1: the cases the filters select, in corpus order. Every filter must match
/// something: a typo that selects nothing would otherwise make a green run.
fn select<'c>(args: &RunArgs, corpus: &'c Corpus, catalogue: &Catalogue) -> Result<Vec<&'c Case>> {
    let in_formats = selected(corpus, &args.selection.format);
    if in_formats.is_empty() {
        bail!("the corpus has no cases of the selected formats\nhint: `soulcheck cases` lists the cases");
    }
    for rule in &args.rules {
        if catalogue.get(rule).is_none() {
            let hint = match closest(rule, catalogue.rules().map(|rule| rule.id.as_str())) {
                Some(near) => format!("did you mean `{near}`?"),
                None => "`soulcheck rules` lists the rule IDs".to_owned(),
            };
            bail!("--rule {rule}: no such rule in the catalogue\nhint: {hint}");
        }
        if !in_formats
            .iter()
            .any(|case| case.all_rules().contains(rule.as_str()))
        {
            bail!("--rule {rule}: no case of the selected formats exercises this rule\nhint: `soulcheck cases --json` shows each case's rules");
        }
    }
    let matches_case = |glob: &globset::GlobMatcher, case: &Case| {
        glob.is_match(&case.id) || glob.is_match(case.name())
    };
    for pattern in &args.cases {
        let glob = Glob::new(pattern)
            .with_context(|| format!("bad glob {pattern:?}"))?
            .compile_matcher();
        if !in_formats.iter().any(|case| matches_case(&glob, case)) {
            bail!("--case {pattern}: matches no case of the selected formats\nhint: a case is named by its ID or <format>/<id>; `soulcheck cases` lists them");
        }
    }
    for pattern in &args.input_names {
        let glob = Glob::new(pattern)
            .with_context(|| format!("bad glob {pattern:?}"))?
            .compile_matcher();
        if !in_formats
            .iter()
            .any(|case| glob.is_match(case.input_name()))
        {
            bail!("--input-name {pattern}: matches no input name of the selected formats\nhint: `soulcheck cases --json` shows each case's `input`");
        }
    }
    for operation in &args.operations {
        if !in_formats.iter().any(|case| &case.operation == operation) {
            bail!("--operation {operation}: no case of the selected formats has this operation\nhint: `soulcheck cases --json` shows each case's `operation`");
        }
    }
    let globs = glob_set(&args.cases)?;
    let input_globs = glob_set(&args.input_names)?;
    let cases: Vec<&Case> = in_formats
        .into_iter()
        .filter(|case| {
            globs
                .as_ref()
                .is_none_or(|globs| globs.is_match(&case.id) || globs.is_match(case.name()))
        })
        .filter(|case| {
            args.rules.is_empty()
                || case
                    .all_rules()
                    .iter()
                    .any(|rule| args.rules.iter().any(|r| r == rule))
        })
        .filter(|case| args.operations.is_empty() || args.operations.contains(&case.operation))
        .filter(|case| {
            input_globs
                .as_ref()
                .is_none_or(|globs| globs.is_match(case.input_name()))
        })
        .collect();
    if cases.is_empty() {
        bail!("no case matches all the filters together\nhint: each filter matches some cases, but no case matches them all; `soulcheck cases --json` shows each case's format, operation, input and rules");
    }
    Ok(cases)
}

/// The candidate nearest to `word` by edit distance, if it is near enough to be a typo.
fn closest<'a>(word: &str, candidates: impl Iterator<Item = &'a str>) -> Option<&'a str> {
    candidates
        .map(|candidate| (edit_distance(word, candidate), candidate))
        .filter(|(distance, _)| *distance <= word.len().max(3) / 3)
        .min()
        .map(|(_, candidate)| candidate)
}

fn edit_distance(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut row: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut diagonal = row[0];
        row[0] = i + 1;
        for (j, cb) in b.iter().enumerate() {
            let above = row[j + 1];
            row[j + 1] = (above + 1)
                .min(row[j] + 1)
                .min(diagonal + usize::from(ca != *cb));
            diagonal = above;
        }
    }
    row[b.len()]
}

fn glob_set(patterns: &[String]) -> Result<Option<GlobSet>> {
    if patterns.is_empty() {
        return Ok(None);
    }
    let mut builder = GlobSetBuilder::new();
    for pattern in patterns {
        builder.add(Glob::new(pattern).with_context(|| format!("bad glob {pattern:?}"))?);
    }
    Ok(Some(builder.build()?))
}

/// Step 2: the validator under test, with the limits a process gets. A command that
/// cannot run (no such program, not executable, no `{path}` for a directory case) stops
/// here, before any case runs.
fn subject(args: &RunArgs, cases: &[&Case], store: &Store) -> Result<Subject> {
    let trees = cases.iter().filter(|case| case.tree().is_some()).count();
    let without_path = (trees > 0).then(|| format!(
        "{trees} of the selected cases are directories, and the validator command has no {{path}} to hand them over (without it a document goes to stdin)\nhint: add {{path}} to the command, or select documents only (--input-name '*.json', --format, --case)"
    ));
    args.validator.subject(store, without_path)
}

impl RunArgs {
    /// Whether the run judges the in-process reference.
    fn is_reference(&self) -> bool {
        self.validator.is_reference()
    }

    /// The options that narrow the run within a format, as typed: a certificate names
    /// them when it judged only part of its format.
    fn filters(&self) -> Vec<String> {
        let quote = report::quote;
        let mut filters = Vec::new();
        for (option, values) in [
            ("--case", &self.cases),
            ("--rule", &self.rules),
            ("--input-name", &self.input_names),
        ] {
            filters.extend(
                values
                    .iter()
                    .map(|value| format!("{option} {}", quote(value))),
            );
        }
        if self.fail_fast {
            filters.push("--fail-fast".to_owned());
        }
        filters
    }

    /// What the certificates are measured against: every case of the corpus the run
    /// loaded, and the filters.
    fn scope(&self, corpus: &Corpus) -> certificate::Scope {
        certificate::Scope {
            held: certificate::held(&corpus.cases),
            filters: self.filters(),
        }
    }
}

/// What a run chose: the cases it selected, and what the corpus it loaded holds.
struct Chosen<'c> {
    held: &'c certificate::Held,
    cases: &'c [&'c Case],
}

/// Step 4: the header of `report.jsonl` in the staging directory, written before the run
/// so that an interrupted run leaves a report without a footer.
fn open_report(
    dir: &Path,
    args: &RunArgs,
    chosen: Chosen<'_>,
    subject: &Subject,
    implementation: &Implementation,
    corpus_hash: &str,
    jobs: usize,
) -> Result<jsonl::Writer> {
    let header = jsonl::Header {
        soulcheck_version: env!("CARGO_PKG_VERSION").to_owned(),
        corpus_hash: corpus_hash.to_owned(),
        cases: chosen.cases.len(),
        corpus_cases: chosen.held.clone(),
        mode: subject.mode.to_owned(),
        command: args.validator.command.clone(),
        implementation: implementation.clone(),
        settings: serde_json::json!({
            "strictness": subject.strictness,
            "profile": args.profile,
            "timeout_seconds": args.validator.timeout,
            "sandbox": args.validator.sandboxed(),
            "jobs": jobs,
            "formats": args.selection.format,
            "cases": args.cases,
            "rules": args.rules,
            "operations": args.operations,
            "input_names": args.input_names,
            "fail_fast": args.fail_fast,
            "expectations": args.expectations,
            "crash_patterns": args.validator.crash_patterns,
            "default_crash_patterns": !args.validator.no_default_crash_patterns,
            "evidence_cap_bytes": soulcheck_harness::validator::EVIDENCE_CAP,
        }),
        started_at: jsonl::now(),
    };
    Ok(jsonl::Writer::create(&dir.join("report.jsonl"), &header)?)
}

/// Step 5: every case through the validator, streaming records (to `writer`) and progress.
fn execute(
    args: &RunArgs,
    cases: &[&Case],
    catalogue: &Catalogue,
    subject: &Subject,
    expectations: Option<&Expectations>,
    jobs: usize,
    writer: Option<&jsonl::Writer>,
) -> Vec<CaseResult> {
    let interactive =
        !args.quiet && std::io::stderr().is_terminal() && std::env::var_os("CI").is_none();
    let progress = interactive.then(|| {
        let bar = ProgressBar::new(cases.len() as u64);
        if let Ok(style) = ProgressStyle::with_template("{bar:40} {pos}/{len} {msg}") {
            bar.set_style(style);
        }
        bar
    });
    let on_result = |result: &CaseResult| {
        if let Some(writer) = writer {
            writer.record(jsonl::Record::new(
                cases[result.index],
                result,
                args.profile,
            ));
        }
        if let Some(bar) = &progress {
            bar.inc(1);
            if result.judgement.is_failure() {
                bar.set_message(format!("failed: {}", result.name));
            }
        }
    };
    let options = RunOptions {
        jobs,
        profile: args.profile,
        fail_fast: args.fail_fast,
        expectations,
        on_result: Some(&on_result),
        // The self-check left the selected cases' inputs to the run: each is built once,
        // for its case, and checked there.
        check_inputs: true,
    };
    let results = runner::run_all(
        subject.validator.as_ref(),
        cases,
        catalogue,
        subject.strictness,
        &options,
    );
    if let Some(bar) = &progress {
        bar.finish_and_clear();
    }
    results
}

/// Step 6: the report directory's files besides `report.jsonl`.
fn write_reports(
    dir: &Path,
    summary: &Summary,
    certificates: &[certificate::Certificate],
    cases: &[&Case],
    results: &[CaseResult],
    implementation: &Implementation,
    context: &report::Context,
) -> Result<()> {
    let write = |path: PathBuf, text: String| {
        std::fs::write(&path, text).with_context(|| format!("cannot write {}", path.display()))
    };
    write(dir.join("junit.xml"), junit::render(cases, results))?;
    let title = format!(
        "soulcheck: {} {}",
        implementation.name, implementation.version
    );
    write(
        dir.join("summary.md"),
        markdown::render(title.trim(), summary, certificates, cases, results, context),
    )?;
    std::fs::create_dir_all(dir.join("badges"))?;
    for (format, tally) in &summary.formats {
        let certificate = certificates.iter().find(|certificate| {
            certificate.format == *format && certificate.operation == "validate"
        });
        write(
            dir.join("badges").join(format!("{format}.json")),
            badge::render(*format, tally, certificate, &implementation.name).to_string(),
        )?;
    }
    std::fs::create_dir_all(dir.join("certificates"))?;
    for certificate in certificates {
        let path = dir.join("certificates").join(certificate.file_name());
        write(path, serde_json::to_string_pretty(certificate)? + "\n")?;
    }
    Ok(())
}
