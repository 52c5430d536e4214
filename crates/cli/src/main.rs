//! The `soulcheck` command line: check one document with the reference, certify a
//! validator against the corpus, fuzz a validator against the reference, list rules and
//! cases, export the corpus as plain files, serve the reference over the persistent
//! protocol, compare two runs, and put any number of runs side by side (an HTML page, a
//! scoreboard).
//!
//! Exit codes follow the validator protocol: `check` exits 0 when the document is
//! accepted (warnings allowed), 1 when it is rejected and 2 on usage or I/O errors; `run`
//! exits 0 when every selected case passes, 1 otherwise and 2 when it cannot run; `fuzz`
//! exits 0 without findings, 1 with findings and 2 when it cannot run. Output
//! to a closed pipe (`soulcheck rules | head`) ends the command quietly with exit 0.

mod check;
mod fuzz;
mod guarded;
mod listing;
mod output;
mod report;
mod run;
mod subject;

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::Result;
use clap::{Args, CommandFactory as _, FromArgMatches as _, Parser, Subcommand};
use soulcheck_harness::report::diff as report_diff;
use soulcheck_harness::report::jsonl;
use soulcheck_harness::store::Store;
use soulcheck_harness::{Catalogue, Corpus};
use soulcheck_reference::Format;

#[derive(Parser)]
#[command(
    name = "soulcheck",
    about = "Conformance suite and reference validator for agent-identity formats"
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Check one document (or directory) with the reference implementation.
    Check(check::CheckArgs),
    /// Run the corpus against a validator (the reference, or --validator) and report per
    /// case, per rule and per format.
    Run(Box<run::RunArgs>),
    /// Fuzz a validator against the reference: generated documents to both, disagreements
    /// shrunk and written as draft cases.
    Fuzz(Box<fuzz::FuzzArgs>),
    /// List the rule catalogue.
    Rules(listing::ListArgs),
    /// List the cases, or export them as plain files.
    Cases(listing::CasesArgs),
    /// Serve the reference over the persistent validator protocol on stdin/stdout.
    Serve,
    /// Show the cases whose result changed between two JSON Lines reports.
    Diff {
        /// The older report.jsonl.
        old: PathBuf,
        /// The newer report.jsonl.
        new: PathBuf,
    },
    /// Put several JSON Lines reports side by side: an HTML page or a scoreboard.
    #[command(subcommand)]
    Report(report::ReportCommand),
}

/// Which corpus, and which formats of it.
#[derive(Args)]
struct Selection {
    /// Corpus directory (default: $SOULCHECK_CORPUS, or the corpus built into this binary).
    #[arg(long)]
    corpus: Option<PathBuf>,
    /// Only these formats.
    #[arg(long, value_parser = parse_format)]
    format: Vec<Format>,
}

fn parse_format(name: &str) -> Result<Format, String> {
    name.parse::<Format>().map_err(|error| error.to_string())
}

/// `soulcheck 0.1.0` plus the hash of the corpus built into the binary, so a report can
/// be tied to the binary that made it.
fn version() -> &'static str {
    let text = format!(
        "{} (corpus {})",
        env!("CARGO_PKG_VERSION"),
        soulcheck_corpus::CONTENT_HASH
    );
    // Made once per process, before parsing; leaking it gives clap the `'static` text it
    // wants without an extra feature.
    Box::leak(text.into_boxed_str())
}

fn main() -> ExitCode {
    let version = version();
    let matches = Cli::command()
        .version(version)
        .long_version(version)
        .get_matches();
    let cli = match Cli::from_arg_matches(&matches) {
        Ok(cli) => cli,
        Err(error) => error.exit(),
    };
    let result = match cli.command {
        Command::Check(args) => check::check(args),
        Command::Run(args) => run::run(*args),
        Command::Fuzz(args) => fuzz::fuzz(*args),
        Command::Rules(args) => listing::rules(args),
        Command::Cases(args) => listing::cases(args),
        Command::Serve => {
            soulcheck::serve::serve(std::io::stdin().lock(), std::io::stdout().lock())
                .map(|()| ExitCode::SUCCESS)
                .map_err(anyhow::Error::from)
        }
        Command::Diff { old, new } => diff(&old, &new),
        Command::Report(command) => report::report(command),
    };
    match result {
        Ok(code) => code,
        // A reader that went away (`soulcheck rules | head`) is not an error of ours.
        Err(error) if output::is_closed_pipe(&error) => ExitCode::SUCCESS,
        Err(error) => {
            eprintln!("soulcheck: {error:#}");
            ExitCode::from(2)
        }
    }
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

/// The content hash of a corpus, as reports name it. The embedded corpus's hash was taken
/// when it was built (a test holds it equal to the harness's), so only a corpus on disk is
/// hashed again: reading and hashing every file is a fixed cost no run should pay twice.
fn corpus_hash(corpus: &Corpus) -> Result<String> {
    Ok(match &corpus.store {
        Store::Embedded(_) => soulcheck_corpus::CONTENT_HASH.to_owned(),
        _ => corpus.content_hash()?,
    })
}

/// Loads the selected corpus and its catalogue, every format.
fn load(selection: &Selection) -> Result<(Corpus, Catalogue)> {
    load_formats(selection, |_| Ok(Format::ALL.to_vec()))
}

/// Loads the selected corpus's cases and catalogues of the formats `formats` picks from
/// the store (a run selects before it loads).
fn load_formats(
    selection: &Selection,
    formats: impl FnOnce(&Store) -> Result<Vec<Format>>,
) -> Result<(Corpus, Catalogue)> {
    if let Some(path) = &selection.corpus {
        if !path.is_dir() {
            anyhow::bail!(
                "the corpus directory {} does not exist\nhint: --corpus names a directory holding <format>/<case-id>/case.toml; leave it out to use the corpus built into soulcheck",
                path.display()
            );
        }
    }
    let store = corpus_store(selection.corpus.as_deref());
    let formats = formats(&store)?;
    let catalogue = Catalogue::open_formats(&store, &formats)?;
    let corpus = Corpus::open_formats(store, &formats)?;
    Ok((corpus, catalogue))
}

fn diff(old: &Path, new: &Path) -> Result<ExitCode> {
    let old = jsonl::Log::read(old)?;
    let new = jsonl::Log::read(new)?;
    let changes = report_diff::changes(&old, &new);
    output::print(&report_diff::render(&old, &new, &changes))?;
    Ok(if changes.iter().any(report_diff::Change::is_regression) {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    })
}
