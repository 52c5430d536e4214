//! The `soulcheck` command line: check one document with the reference, run the corpus,
//! list rules and cases, export the corpus as plain files.
//!
//! Exit codes follow the validator protocol: `check` exits 0 when the document is
//! accepted (warnings allowed), 1 when it is rejected and 2 on usage or I/O errors; `run`
//! exits 0 when every selected case passes and 1 otherwise.

use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::{bail, Context as _, Result};
use clap::{Args, Parser, Subcommand};
use globset::{Glob, GlobSet, GlobSetBuilder};
use soulcheck::reference::Reference;
use soulcheck::{detect_format, Context, Format, Input, Verdict};
use soulcheck_harness::report::Summary;
use soulcheck_harness::{selfcheck, Case, Catalogue, Corpus, Strictness};

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
    /// Parallel jobs (default: the number of cores).
    #[arg(long)]
    jobs: Option<usize>,
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
    let mut context = Context::new();
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
        let report = soulcheck::check(format, &args.operation, Input::Tree(&args.path), &context)?;
        (report, Vec::new())
    } else {
        let bytes = std::fs::read(&args.path).with_context(|| format!("cannot read {origin}"))?;
        let name = args
            .path
            .file_name()
            .and_then(|name| name.to_str())
            .unwrap_or_default();
        let report = soulcheck::check(
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
            serde_json::to_string_pretty(&report.to_json())?
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

/// Finds the corpus: the flag, `$SOULCHECK_CORPUS`, `./cases`, or the corpus this binary
/// was built from.
fn corpus_root(flag: Option<&Path>) -> PathBuf {
    if let Some(path) = flag {
        return path.to_owned();
    }
    if let Some(path) = std::env::var_os("SOULCHECK_CORPUS") {
        return PathBuf::from(path);
    }
    let local = PathBuf::from("cases");
    if local.join("soul-kit").is_dir() {
        return local;
    }
    Path::new(env!("CARGO_MANIFEST_DIR")).join("cases")
}

fn load(selection: &Selection) -> Result<(Corpus, Catalogue)> {
    let root = corpus_root(selection.corpus.as_deref());
    let catalogue = Catalogue::load(&root).map_err(|error| anyhow::anyhow!("{error}"))?;
    let corpus = Corpus::load(&root).map_err(|error| anyhow::anyhow!("{error}"))?;
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
        .collect();
    let jobs = args
        .jobs
        .unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get()));
    let results = soulcheck_harness::runner::run_all(
        &Reference,
        &cases,
        &catalogue,
        Strictness::Reference,
        jobs,
    );
    let summary = Summary::new(&cases, &results);
    print!("{}", summary.render(&cases, &results, &catalogue));
    Ok(if summary.all_passed() && problems.is_empty() {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
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
