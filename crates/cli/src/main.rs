//! The `soulcheck` command line: check one document with the reference, run the corpus,
//! list rules and cases, export the corpus as plain files.
//!
//! Exit codes follow the validator protocol: `check` exits 0 when the document is
//! accepted (warnings allowed), 1 when it is rejected and 2 on usage or I/O errors; `run`
//! exits 0 when every selected case passes and 1 otherwise.

use std::io::{IsTerminal as _, Write as _};
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::Duration;

use anyhow::{bail, Context as _, Result};
use clap::{Args, Parser, Subcommand};
use globset::{Glob, GlobSet, GlobSetBuilder};
use indicatif::{ProgressBar, ProgressStyle};
use soulcheck::Reference;
use soulcheck_harness::expectations::Expectations;
use soulcheck_harness::external::{CommandValidator, Mapping};
use soulcheck_harness::persistent::PersistentValidator;
use soulcheck_harness::process::Limits;
use soulcheck_harness::report::diff as report_diff;
use soulcheck_harness::report::{badge, certificate, jsonl, junit, markdown, Summary};
use soulcheck_harness::runner::{self, CaseResult, RunOptions};
use soulcheck_harness::store::Store;
use soulcheck_harness::{selfcheck, Case, Catalogue, Corpus, Strictness, Validator};
use soulcheck_reference::{detect_format, Context, Format, Input, Verdict};

#[derive(Parser)]
#[command(
    name = "soulcheck",
    version,
    about = "Conformance suite and reference validator for agent-identity formats"
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Validate one document (or bundle directory) with the reference implementation.
    Check(CheckArgs),
    /// Run the corpus against the reference and print a summary per format and per rule.
    Run(RunArgs),
    /// List the rule catalogue.
    Rules(ListArgs),
    /// List the cases, or export them as plain files.
    Cases(CasesArgs),
    /// Serve the reference over the persistent validator protocol on stdin/stdout.
    Serve,
    /// Show the cases whose result changed between two JSON Lines reports.
    Diff {
        /// The older report.jsonl.
        old: PathBuf,
        /// The newer report.jsonl.
        new: PathBuf,
    },
}

#[derive(Args)]
struct CheckArgs {
    /// The document or directory to check.
    path: PathBuf,
    /// Format to check as; detected from the name when absent.
    #[arg(long, value_parser = parse_format)]
    format: Option<Format>,
    /// Print the result as JSON.
    #[arg(long)]
    json: bool,
    /// The date (YYYY-MM-DD) or instant (RFC 3339) date-dependent rules use as "now".
    #[arg(long)]
    now: Option<String>,
    /// The stored fingerprint to compare the document against (lowercase hex SHA-256).
    #[arg(long)]
    fingerprint: Option<String>,
    /// Any other context entry, as KEY=VALUE; VALUE is read as JSON when it parses.
    #[arg(long = "context", value_name = "KEY=VALUE")]
    context: Vec<String>,
    /// The whole context as one JSON object (entries of the other flags are added to it).
    #[arg(long, value_name = "JSON")]
    context_json: Option<String>,
    /// Operation to run instead of plain validation (format-specific).
    #[arg(long, default_value = "validate")]
    operation: String,
}

#[derive(Args)]
struct Selection {
    /// Corpus directory (default: $SOULCHECK_CORPUS, ./cases, or the built-in corpus).
    #[arg(long)]
    corpus: Option<PathBuf>,
    /// Only cases of these formats.
    #[arg(long, value_parser = parse_format)]
    format: Vec<Format>,
}

#[derive(Args)]
struct RunArgs {
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
    /// Parallel jobs (default: the number of cores).
    #[arg(long)]
    jobs: Option<usize>,
    /// The validator under test, as a command template (`my-tool --json {path}`); without
    /// it the in-process reference runs. See harness/PROTOCOL.md.
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

#[derive(Args)]
struct ListArgs {
    #[command(flatten)]
    selection: Selection,
    /// Print JSON.
    #[arg(long)]
    json: bool,
}

#[derive(Args)]
#[command(args_conflicts_with_subcommands = true)]
struct CasesArgs {
    #[command(subcommand)]
    command: Option<CasesCommand>,
    #[command(flatten)]
    list: ListArgs,
}

#[derive(Subcommand)]
enum CasesCommand {
    /// Write every case as plain files plus JSON metadata into DIR (which must be empty).
    Export {
        /// Target directory.
        dir: PathBuf,
        /// Corpus directory.
        #[arg(long)]
        corpus: Option<PathBuf>,
    },
}

fn parse_format(name: &str) -> Result<Format, String> {
    name.parse::<Format>().map_err(|error| error.to_string())
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let result = match cli.command {
        Command::Check(args) => check(args),
        Command::Run(args) => run(args),
        Command::Rules(args) => rules(args),
        Command::Cases(args) => cases(args),
        Command::Serve => {
            soulcheck::serve::serve(std::io::stdin().lock(), std::io::stdout().lock())
                .map(|()| ExitCode::SUCCESS)
                .map_err(anyhow::Error::from)
        }
        Command::Diff { old, new } => diff(&old, &new),
    };
    match result {
        Ok(code) => code,
        Err(error) => {
            eprintln!("soulcheck: {error:#}");
            ExitCode::from(2)
        }
    }
}

fn check(args: CheckArgs) -> Result<ExitCode> {
    let format = match args.format.or_else(|| detect_format(&args.path)) {
        Some(format) => format,
        None => bail!(
            "cannot tell the format of {} from its name; pass --format ({})",
            args.path.display(),
            Format::ALL.map(Format::name).join(", ")
        ),
    };
    let mut context = match &args.context_json {
        Some(text) => match serde_json::from_str::<serde_json::Value>(text) {
            Ok(serde_json::Value::Object(map)) => map,
            _ => bail!("--context-json takes a JSON object"),
        },
        None => Context::new(),
    };
    if let Some(now) = args.now {
        context.insert("now".into(), now.into());
    }
    if let Some(fingerprint) = args.fingerprint {
        context.insert("fingerprint".into(), fingerprint.into());
    }
    for entry in &args.context {
        let Some((key, value)) = entry.split_once('=') else {
            bail!("--context takes KEY=VALUE, got {entry:?}");
        };
        let value = serde_json::from_str(value)
            .unwrap_or_else(|_| serde_json::Value::String(value.to_owned()));
        context.insert(key.to_owned(), value);
    }
    let origin = args.path.display().to_string();
    let (report, source) = if args.path.is_dir() {
        let report =
            soulcheck_reference::check(format, &args.operation, Input::Tree(&args.path), &context)?;
        (report, Vec::new())
    } else {
        let bytes = std::fs::read(&args.path).with_context(|| format!("cannot read {origin}"))?;
        let name = args
            .path
            .file_name()
            .and_then(|name| name.to_str())
            .unwrap_or_default();
        let report = soulcheck_reference::check(
            format,
            &args.operation,
            Input::Document {
                name,
                bytes: &bytes,
            },
            &context,
        )?;
        (report, bytes)
    };
    let mut stdout = std::io::stdout().lock();
    if args.json {
        writeln!(
            stdout,
            "{}",
            serde_json::to_string_pretty(&report.to_wire())?
        )?;
    } else {
        write!(stdout, "{}", report.render(&source, &origin))?;
        if let Some(value) = &report.value {
            writeln!(stdout, "value: {value}")?;
        }
    }
    Ok(match report.verdict() {
        Verdict::Accept => ExitCode::SUCCESS,
        Verdict::Reject => ExitCode::from(1),
    })
}

/// Finds the corpus: the flag, `$SOULCHECK_CORPUS`, or the corpus embedded in this
/// binary when it was built.
fn corpus_store(flag: Option<&Path>) -> Store {
    if let Some(path) = flag {
        return Store::Disk(path.to_owned());
    }
    if let Some(path) = std::env::var_os("SOULCHECK_CORPUS") {
        return Store::Disk(PathBuf::from(path));
    }
    Store::Embedded(&soulcheck_corpus::CASES)
}

fn load(selection: &Selection) -> Result<(Corpus, Catalogue)> {
    let store = corpus_store(selection.corpus.as_deref());
    let catalogue = Catalogue::open(&store).map_err(|error| anyhow::anyhow!("{error}"))?;
    let corpus = Corpus::open(store).map_err(|error| anyhow::anyhow!("{error}"))?;
    Ok((corpus, catalogue))
}

fn selected<'c>(corpus: &'c Corpus, formats: &[Format]) -> Vec<&'c Case> {
    corpus
        .cases
        .iter()
        .filter(|case| formats.is_empty() || formats.contains(&case.format))
        .collect()
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

fn run(args: RunArgs) -> Result<ExitCode> {
    let (corpus, catalogue) = load(&args.selection)?;
    let problems = selfcheck::check(&corpus, &catalogue);
    if !problems.is_empty() {
        eprintln!("the corpus fails its self-check:");
        for problem in &problems {
            eprintln!("  {problem}");
        }
    }
    let globs = glob_set(&args.cases)?;
    let input_globs = glob_set(&args.input_names)?;
    let cases: Vec<&Case> = selected(&corpus, &args.selection.format)
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
    let jobs = args
        .jobs
        .unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get()));
    let limits = Limits {
        timeout: Duration::from_secs_f64(args.timeout.max(0.001)),
        output_cap: args.output_cap,
        ..Limits::default()
    };
    let (validator, strictness, mode): (Box<dyn Validator>, Strictness, &str) =
        match &args.validator {
            None => (Box::new(Reference), Strictness::Reference, "in-process"),
            Some(command) if args.persistent => (
                Box::new(
                    PersistentValidator::start(command, limits)
                        .map_err(|error| anyhow::anyhow!(error))?,
                ),
                Strictness::Conformance,
                "persistent",
            ),
            Some(command) => {
                let mapping = match &args.mapping {
                    Some(path) => {
                        Some(Mapping::load(path).map_err(|error| anyhow::anyhow!("{error}"))?)
                    }
                    None => None,
                };
                let validator = CommandValidator::new(command, limits, mapping)
                    .map_err(|error| anyhow::anyhow!(error))?;
                (Box::new(validator), Strictness::Conformance, "per-case")
            }
        };
    let expectations = match &args.expectations {
        Some(path) => Some(
            Expectations::load(path, &corpus.cases).map_err(|error| anyhow::anyhow!("{error}"))?,
        ),
        None => None,
    };
    let implementation = validator.implementation();
    let corpus_hash = corpus
        .content_hash()
        .map_err(|error| anyhow::anyhow!("{error}"))?;
    let writer = match &args.report {
        Some(dir) => {
            std::fs::create_dir_all(dir)
                .with_context(|| format!("cannot create {}", dir.display()))?;
            let header = jsonl::Header {
                soulcheck_version: env!("CARGO_PKG_VERSION").to_owned(),
                corpus_hash: corpus_hash.clone(),
                cases: cases.len(),
                mode: mode.to_owned(),
                command: args.validator.clone(),
                implementation: implementation.clone(),
                settings: serde_json::json!({
                    "strictness": strictness,
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
            Some(
                jsonl::Writer::create(&dir.join("report.jsonl"), &header)
                    .map_err(|error| anyhow::anyhow!("{error}"))?,
            )
        }
        None => None,
    };
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
        if let Some(writer) = &writer {
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
        fail_fast: args.fail_fast,
        expectations: expectations.as_ref(),
        on_result: Some(&on_result),
    };
    let results = runner::run_all(validator.as_ref(), &cases, &catalogue, strictness, &options);
    if let Some(bar) = &progress {
        bar.finish_and_clear();
    }
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
    print!("{}", summary.render(&cases, &results, &catalogue));
    if args.validator.is_some() {
        println!();
        for certificate in &certificates {
            let status = if certificate.certified {
                "certified"
            } else {
                "not certified"
            };
            println!(
                "{}: {status} ({} of {} must-level cases passed)",
                certificate.format, certificate.must_cases_passed, certificate.must_cases
            );
        }
    }
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

fn write_reports(
    dir: &Path,
    summary: &Summary,
    certificates: &[certificate::Certificate],
    cases: &[&Case],
    results: &[CaseResult],
    implementation: &soulcheck_harness::Implementation,
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

fn diff(old: &Path, new: &Path) -> Result<ExitCode> {
    let old = jsonl::Log::read(old).map_err(|error| anyhow::anyhow!("{error}"))?;
    let new = jsonl::Log::read(new).map_err(|error| anyhow::anyhow!("{error}"))?;
    let changes = report_diff::changes(&old, &new);
    print!("{}", report_diff::render(&old, &new, &changes));
    Ok(if changes.iter().any(report_diff::Change::is_regression) {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    })
}

fn rules(args: ListArgs) -> Result<ExitCode> {
    let (_, catalogue) = load(&args.selection)?;
    let rules: Vec<_> = catalogue
        .rules()
        .filter(|rule| {
            args.selection.format.is_empty() || args.selection.format.contains(&rule.format)
        })
        .collect();
    let mut stdout = std::io::stdout().lock();
    if args.json {
        writeln!(stdout, "{}", serde_json::to_string_pretty(&rules)?)?;
    } else {
        for rule in rules {
            writeln!(
                stdout,
                "{:<48} {:<6} {:<7} {}",
                rule.id, rule.level, rule.severity, rule.source
            )?;
            writeln!(stdout, "    {}", rule.requirement)?;
            if let Some(decision) = &rule.decision {
                writeln!(stdout, "    decision: {decision}")?;
            }
        }
    }
    Ok(ExitCode::SUCCESS)
}

fn cases(args: CasesArgs) -> Result<ExitCode> {
    if let Some(CasesCommand::Export { dir, corpus }) = args.command {
        let selection = Selection {
            corpus,
            format: Vec::new(),
        };
        let (corpus, catalogue) = load(&selection)?;
        let count = soulcheck_harness::export::export(&corpus, &catalogue, &dir)
            .map_err(|error| anyhow::anyhow!("{error}"))?;
        println!("exported {count} cases to {}", dir.display());
        return Ok(ExitCode::SUCCESS);
    }
    let (corpus, _) = load(&args.list.selection)?;
    let cases = selected(&corpus, &args.list.selection.format);
    let mut stdout = std::io::stdout().lock();
    if args.list.json {
        let list: Vec<serde_json::Value> = cases
            .iter()
            .map(|case| {
                serde_json::json!({
                    "id": case.id,
                    "format": case.format,
                    "operation": case.operation,
                    "rules": case.rules,
                    "verdict": case.verdict.name(),
                    "description": case.description,
                })
            })
            .collect();
        writeln!(stdout, "{}", serde_json::to_string_pretty(&list)?)?;
    } else {
        for case in cases {
            writeln!(
                stdout,
                "{:<56} {:<24} {}",
                case.name(),
                case.verdict.name(),
                case.description
            )?;
        }
    }
    Ok(ExitCode::SUCCESS)
}
