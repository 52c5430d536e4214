//! `soulcheck report html`, `scoreboard`, `readings` and `implementations`: several
//! `report.jsonl` files side by side, as one self-contained HTML page or as Markdown pages
//! to commit (the scoreboard; the open readings with every implementation's answer; the
//! certified implementations with their deviations). All read the corpus (the embedded
//! one, `--corpus DIR` or `$SOULCHECK_CORPUS`) for rule levels, and the pages for inputs
//! and case descriptions too; all refuse reports made on another corpus than each other or
//! than the one read, unless `--allow-mixed-corpus`. Each Markdown page has `--check`,
//! which compares instead of writing, so CI keeps the committed copy true.

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::{bail, Context as _, Result};
use clap::{Args, Subcommand};
use soulcheck_harness::report::html::{self, Limits, Page};
use soulcheck_harness::report::implementations::{self, Certified};
use soulcheck_harness::report::readings::{self, Readings};
use soulcheck_harness::report::runs::{self, Comparison};
use soulcheck_harness::report::scoreboard;
use soulcheck_harness::{Catalogue, Corpus};

use crate::{corpus_hash, corpus_store, output};

#[derive(Subcommand)]
pub enum ReportCommand {
    /// Write one self-contained HTML page comparing the runs: formats by
    /// implementations, rules, and every case with its input and each implementation's
    /// answer and output. Reports of one implementation, profile and mode merge.
    Html {
        /// The page to write.
        out: PathBuf,
        #[command(flatten)]
        inputs: Inputs,
    },
    /// Write a Markdown scoreboard of the runs (per format and profile: certified or not,
    /// passed, diagnostics grade; every case that did not pass), with nothing in it that
    /// changes between two runs with the same results.
    Scoreboard {
        /// The Markdown file to write (with --check: to compare with).
        out: PathBuf,
        /// Compare with OUT instead of writing it: exit 1 and print the difference when
        /// they differ.
        #[arg(long)]
        check: bool,
        #[command(flatten)]
        inputs: Inputs,
    },
    /// Write the open readings: every case the corpus leaves implementation-defined, grouped
    /// by the rule whose reading it asks about, with each spec-profile run's answer.
    Readings {
        /// The Markdown file to write (with --check: to compare with).
        out: PathBuf,
        /// Compare with OUT instead of writing it: exit 1 and print the difference when
        /// they differ.
        #[arg(long)]
        check: bool,
        #[command(flatten)]
        inputs: Inputs,
    },
    /// Write the page of certified implementations: for each folder of DIR with an
    /// implementation.toml, what it is, how it is run, its certificate per format and
    /// profile, and its known failures grouped by rule with the spec's words.
    Implementations {
        /// The Markdown file to write (with --check: to compare with).
        out: PathBuf,
        /// The folder of implementation folders (each with implementation.toml and its
        /// expectations files).
        #[arg(long, value_name = "DIR")]
        implementations: PathBuf,
        /// Compare with OUT instead of writing it: exit 1 and print the difference when
        /// they differ.
        #[arg(long)]
        check: bool,
        #[command(flatten)]
        inputs: Inputs,
    },
}

/// The reports and the corpus they were made on.
#[derive(Args)]
pub struct Inputs {
    /// report.jsonl files written by `soulcheck run --report DIR`.
    #[arg(required = true, value_name = "REPORT.jsonl")]
    reports: Vec<PathBuf>,
    /// Corpus directory the reports were made on (default: $SOULCHECK_CORPUS, or the
    /// corpus built into this binary).
    #[arg(long)]
    corpus: Option<PathBuf>,
    /// Compare reports made on different corpora, flagging it, instead of refusing.
    #[arg(long)]
    allow_mixed_corpus: bool,
}

pub fn report(command: ReportCommand) -> Result<ExitCode> {
    match command {
        ReportCommand::Html { out, inputs } => {
            let loaded = load(&inputs)?;
            let page = html::render(&Page {
                comparison: &loaded.comparison,
                corpus: &loaded.corpus,
                corpus_hash: &loaded.corpus_hash,
                catalogue: &loaded.catalogue,
                limits: Limits::default(),
            });
            write(&out, &page)?;
            let runs = loaded.comparison.runs.len();
            output::print(&format!(
                "wrote {} ({runs} {}, {} bytes)\n",
                out.display(),
                if runs == 1 { "run" } else { "runs" },
                page.len()
            ))?;
            Ok(ExitCode::SUCCESS)
        }
        ReportCommand::Scoreboard { out, check, inputs } => {
            let loaded = load(&inputs)?;
            let fresh = scoreboard::render(&loaded.comparison, &loaded.catalogue);
            write_or_check(&out, check, &fresh, "scoreboard", &inputs, "")
        }
        ReportCommand::Readings { out, check, inputs } => {
            let loaded = load(&inputs)?;
            let found = Readings::collect(&loaded.comparison, &loaded.corpus, &loaded.catalogue);
            if found.runs.is_empty() {
                // Open readings exist in the spec profile only: a page of no answers is no
                // page.
                bail!(
                    "no report of a spec-profile run among these: the open readings are answered in the spec profile\nhint: add the report of a run made without --profile strict"
                );
            }
            let fresh = readings::render(&found);
            write_or_check(&out, check, &fresh, "readings", &inputs, "")
        }
        ReportCommand::Implementations {
            out,
            implementations: folder,
            check,
            inputs,
        } => {
            let loaded = load(&inputs)?;
            let cards = implementations::load_cards(&folder)?;
            if cards.is_empty() {
                bail!(
                    "no implementation folder (one with an {}) in {}\nhint: pass the folder that holds them, e.g. --implementations implementations",
                    implementations::CARD_FILE,
                    folder.display()
                );
            }
            let mut certified = Vec::new();
            for card in cards {
                certified.push(Certified::load(card, &loaded.corpus.cases)?);
            }
            let left_out = implementations::load_left_out(&folder)?;
            let fresh = implementations::render(
                &certified,
                &left_out,
                &loaded.comparison,
                &loaded.catalogue,
            );
            let extra = format!("--implementations {} ", folder.display());
            write_or_check(&out, check, &fresh, "implementations", &inputs, &extra)
        }
    }
}

/// Writes a generated page, or with `check` compares it with the committed one: exit 1
/// with the difference and the command that regenerates it when they differ.
fn write_or_check(
    out: &Path,
    check: bool,
    fresh: &str,
    command: &str,
    inputs: &Inputs,
    extra: &str,
) -> Result<ExitCode> {
    if !check {
        write(out, fresh)?;
        output::print(&format!("wrote {}\n", out.display()))?;
        return Ok(ExitCode::SUCCESS);
    }
    // Through the one bounded reader: a FIFO or a device is refused, not waited on.
    let committed =
        soulcheck_harness::files::read_string(out, soulcheck_harness::files::MAX_REPORT_FILE)?;
    match scoreboard::check(&committed, fresh) {
        None => {
            output::print(&format!("{} is up to date\n", out.display()))?;
            Ok(ExitCode::SUCCESS)
        }
        Some(difference) => {
            let reports: Vec<String> = inputs
                .reports
                .iter()
                .map(|path| path.display().to_string())
                .collect();
            output::print(&format!(
                "{} differs from the results (- committed, + these reports):\n{difference}hint: if the change is intended, regenerate it: soulcheck report {command} {extra}{} {}\n",
                out.display(),
                out.display(),
                reports.join(" ")
            ))?;
            Ok(ExitCode::from(1))
        }
    }
}

/// The runs, and the corpus and catalogue read beside them.
struct Loaded {
    comparison: Comparison,
    corpus: Corpus,
    corpus_hash: String,
    catalogue: Catalogue,
}

fn load(inputs: &Inputs) -> Result<Loaded> {
    let comparison = runs::compare(&inputs.reports, inputs.allow_mixed_corpus)?;
    if let Some(path) = &inputs.corpus {
        if !path.is_dir() {
            bail!(
                "the corpus directory {} does not exist\nhint: leave --corpus out to use the corpus built into soulcheck",
                path.display()
            );
        }
    }
    let store = corpus_store(inputs.corpus.as_deref());
    let catalogue = Catalogue::open(&store)?;
    let corpus = Corpus::open(store)?;
    let corpus_hash = corpus_hash(&corpus)?;
    if !inputs.allow_mixed_corpus && !comparison.corpus_hashes.contains(&corpus_hash) {
        bail!(
            "the reports were made on corpus {}, but this soulcheck reads corpus {corpus_hash}\nhint: pass the reports' corpus with --corpus DIR (or use the soulcheck that made them), or --allow-mixed-corpus to go on anyway (flagged)",
            comparison.corpus_hashes.join(", ")
        );
    }
    Ok(Loaded {
        comparison,
        corpus,
        corpus_hash,
        catalogue,
    })
}

fn write(path: &Path, text: &str) -> Result<()> {
    if let Some(parent) = path
        .parent()
        .filter(|parent| !parent.as_os_str().is_empty())
    {
        std::fs::create_dir_all(parent)
            .with_context(|| format!("cannot create {}", parent.display()))?;
    }
    std::fs::write(path, text).with_context(|| format!("cannot write {}", path.display()))
}
