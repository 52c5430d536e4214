//! `soulcheck run`: the corpus against a validator (the in-process reference, or any
//! command through the per-case or persistent protocol), with filters, expectations,
//! reports and certificates. [`run`] reads as its steps: load and self-check the corpus,
//! select the cases, set up the validator, run, then report.

use std::io::IsTerminal as _;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::Duration;

use anyhow::{Context as _, Result};
use clap::Args;
use globset::{Glob, GlobSet, GlobSetBuilder};
use indicatif::{ProgressBar, ProgressStyle};
use soulcheck::Reference;
use soulcheck_harness::expectations::Expectations;
use soulcheck_harness::external::{CommandValidator, Mapping};
use soulcheck_harness::persistent::PersistentValidator;
use soulcheck_harness::process::Limits;
use soulcheck_harness::report::{badge, certificate, jsonl, junit, markdown, Summary};
use soulcheck_harness::runner::{self, CaseResult, RunOptions};
use soulcheck_harness::{
    selfcheck, Case, Catalogue, Corpus, Implementation, Profile, Strictness, Validator,
};

use crate::listing::selected;
use crate::{load, output, Selection};

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
    /// The validator under test, as a command template (`my-tool --json {path}`); without
    /// it the in-process reference runs. See crates/harness/PROTOCOL.md.
    #[arg(long, value_name = "COMMAND")]
    validator: Option<String>,
    /// The validator speaks the persistent newline-delimited JSON protocol.
    #[arg(long, requires = "validator")]
    persistent: bool,
    /// Mapping file teaching the harness an unmodified tool's exit codes and messages.
    #[arg(long, value_name = "FILE", requires = "validator")]
    mapping: Option<PathBuf>,
    /// Seconds a validator may spend on one case before its process group is killed.
    #[arg(long, default_value_t = 5.0)]
    timeout: f64,
    /// Bytes of each output stream kept per case.
    #[arg(long, default_value_t = 4 * 1024 * 1024)]
    output_cap: usize,
    /// Stop after the first failure.
    #[arg(long)]
    fail_fast: bool,
    /// Known failures (TOML); listed failures do not fail the run, listed passes do.
    #[arg(long, value_name = "FILE")]
    expectations: Option<PathBuf>,
    /// Write the run's failures as an expectations file.
    #[arg(long, value_name = "FILE")]
    write_expectations: Option<PathBuf>,
    /// Write report.jsonl, junit.xml, summary.md, badges/ and certificates/ into DIR.
    #[arg(long, value_name = "DIR")]
    report: Option<PathBuf>,
    /// No progress bar.
    #[arg(long)]
    quiet: bool,
}

/// The validator a run judges, and how it is reached.
struct Subject {
    validator: Box<dyn Validator>,
    strictness: Strictness,
    /// `in-process`, `per-case` or `persistent`, as the report header says.
    mode: &'static str,
}

pub fn run(args: RunArgs) -> Result<ExitCode> {
    let (corpus, catalogue) = load(&args.selection)?;
    let problems = self_check(&corpus, &catalogue);
    let cases = select(&args, &corpus)?;
    let jobs = args
        .jobs
        .unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get()));
    let subject = subject(&args)?;
    let expectations = match &args.expectations {
        Some(path) => Some(Expectations::load(path, &corpus.cases)?),
        None => None,
    };
    let implementation = subject.validator.implementation();
    let corpus_hash = corpus.content_hash()?;
    let writer = open_report(&args, &cases, &subject, &implementation, &corpus_hash, jobs)?;
    let results = execute(
        &args,
        &cases,
        &catalogue,
        &subject,
        expectations.as_ref(),
        jobs,
        writer.as_ref(),
    );
    let summary = Summary::new(&cases, &results);
    let certificates =
        certificate::issue(&cases, &results, &catalogue, &implementation, &corpus_hash);
    if let (Some(dir), Some(writer)) = (&args.report, &writer) {
        write_reports(
            dir,
            &summary,
            &certificates,
            &cases,
            &results,
            &implementation,
        )?;
        writer.finish(jsonl::Footer {
            complete: true,
            finished_at: jsonl::now(),
            summary: summary.overall,
        });
    }
    if let Some(path) = &args.write_expectations {
        std::fs::write(path, Expectations::render_from(&results))
            .with_context(|| format!("cannot write {}", path.display()))?;
    }
    print_summary(&args, &summary, &certificates, &cases, &results, &catalogue)?;
    // The reference must implement every case; another validator may skip what it does
    // not support.
    let skips_fail = args.validator.is_none() && summary.overall.skipped > 0;
    Ok(
        if summary.no_failures() && !skips_fail && problems.is_empty() {
            ExitCode::SUCCESS
        } else {
            ExitCode::from(1)
        },
    )
}

/// Step 1: the corpus's own checks; problems are printed and fail the run at the end.
fn self_check(corpus: &Corpus, catalogue: &Catalogue) -> Vec<selfcheck::Problem> {
    let problems = selfcheck::check(corpus, catalogue);
    if !problems.is_empty() {
        eprintln!("the corpus fails its self-check:");
        for problem in &problems {
            eprintln!("  {problem}");
        }
    }
    problems
}

/// Step 2: the cases the filters select, in corpus order.
fn select<'c>(args: &RunArgs, corpus: &'c Corpus) -> Result<Vec<&'c Case>> {
    let globs = glob_set(&args.cases)?;
    let input_globs = glob_set(&args.input_names)?;
    Ok(selected(corpus, &args.selection.format)
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
        .collect())
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

/// Step 3: the validator under test, with the limits a process gets.
fn subject(args: &RunArgs) -> Result<Subject> {
    let limits = Limits {
        timeout: Duration::from_secs_f64(args.timeout.max(0.001)),
        output_cap: args.output_cap,
        ..Limits::default()
    };
    Ok(match &args.validator {
        None => Subject {
            validator: Box::new(Reference),
            strictness: Strictness::Reference,
            mode: "in-process",
        },
        Some(command) if args.persistent => Subject {
            validator: Box::new(
                PersistentValidator::start(command, limits).map_err(anyhow::Error::msg)?,
            ),
            strictness: Strictness::Conformance,
            mode: "persistent",
        },
        Some(command) => {
            let mapping = match &args.mapping {
                Some(path) => Some(Mapping::load(path)?),
                None => None,
            };
            let validator =
                CommandValidator::new(command, limits, mapping).map_err(anyhow::Error::msg)?;
            Subject {
                validator: Box::new(validator),
                strictness: Strictness::Conformance,
                mode: "per-case",
            }
        }
    })
}

/// Step 4: the report directory and the header of `report.jsonl`, written before the run
/// so that an interrupted run leaves a report without a footer.
fn open_report(
    args: &RunArgs,
    cases: &[&Case],
    subject: &Subject,
    implementation: &Implementation,
    corpus_hash: &str,
    jobs: usize,
) -> Result<Option<jsonl::Writer>> {
    let Some(dir) = &args.report else {
        return Ok(None);
    };
    std::fs::create_dir_all(dir).with_context(|| format!("cannot create {}", dir.display()))?;
    let header = jsonl::Header {
        soulcheck_version: env!("CARGO_PKG_VERSION").to_owned(),
        corpus_hash: corpus_hash.to_owned(),
        cases: cases.len(),
        mode: subject.mode.to_owned(),
        command: args.validator.clone(),
        implementation: implementation.clone(),
        settings: serde_json::json!({
            "strictness": subject.strictness,
            "profile": args.profile,
            "timeout_seconds": args.timeout,
            "jobs": jobs,
            "formats": args.selection.format,
            "cases": args.cases,
            "rules": args.rules,
            "operations": args.operations,
            "input_names": args.input_names,
            "fail_fast": args.fail_fast,
            "expectations": args.expectations,
        }),
        started_at: jsonl::now(),
    };
    Ok(Some(jsonl::Writer::create(
        &dir.join("report.jsonl"),
        &header,
    )?))
}

/// Step 5: every case through the validator, streaming records and progress.
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
            writer.record(jsonl::Record::new(cases[result.index], result));
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
        markdown::render(title.trim(), summary, certificates, cases, results),
    )?;
    std::fs::create_dir_all(dir.join("badges"))?;
    for (format, tally) in &summary.formats {
        write(
            dir.join("badges").join(format!("{format}.json")),
            badge::render(*format, tally).to_string(),
        )?;
    }
    std::fs::create_dir_all(dir.join("certificates"))?;
    for certificate in certificates {
        let path = dir
            .join("certificates")
            .join(format!("{}.json", certificate.format));
        write(path, serde_json::to_string_pretty(certificate)? + "\n")?;
    }
    Ok(())
}

/// Step 7: the terminal summary, and the certificates when another validator ran.
fn print_summary(
    args: &RunArgs,
    summary: &Summary,
    certificates: &[certificate::Certificate],
    cases: &[&Case],
    results: &[CaseResult],
    catalogue: &Catalogue,
) -> Result<()> {
    let mut text = summary.render(cases, results, catalogue);
    if args.validator.is_some() {
        text.push('\n');
        for certificate in certificates {
            let status = if certificate.certified {
                "certified"
            } else {
                "not certified"
            };
            text.push_str(&format!(
                "{}: {status} ({} of {} must-level cases passed)\n",
                certificate.format, certificate.must_cases_passed, certificate.must_cases
            ));
        }
    }
    output::print(&text)?;
    Ok(())
}
