//! `soulcheck rules` and `soulcheck cases`: the catalogue and the corpus as text or JSON,
//! and `soulcheck cases export`: the corpus as plain files for implementers who do not
//! use this tool.

use std::fmt::Write as _;
use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::Result;
use clap::{Args, Subcommand};
use soulcheck_harness::{Case, Corpus, Profile};

use crate::{load, output, Selection};

#[derive(Args)]
pub struct ListArgs {
    #[command(flatten)]
    selection: Selection,
    /// Print JSON.
    #[arg(long)]
    json: bool,
}

#[derive(Args)]
#[command(args_conflicts_with_subcommands = true)]
pub struct CasesArgs {
    #[command(subcommand)]
    command: Option<CasesCommand>,
    #[command(flatten)]
    list: ListArgs,
}

#[derive(Subcommand)]
enum CasesCommand {
    /// Write the cases as plain files plus JSON metadata into DIR (which must be empty).
    Export {
        /// Target directory.
        dir: PathBuf,
        #[command(flatten)]
        selection: Selection,
        /// Only cases whose ID (or `<format>/<id>`) matches one of these globs.
        #[arg(long = "case", value_name = "GLOB")]
        cases: Vec<String>,
    },
}

pub fn rules(args: ListArgs) -> Result<ExitCode> {
    let (_, catalogue) = load(&args.selection)?;
    let formats = &args.selection.format;
    let rules: Vec<_> = catalogue
        .rules()
        .filter(|rule| formats.is_empty() || formats.contains(&rule.format))
        .collect();
    let text = if args.json {
        serde_json::to_string_pretty(&rules)? + "\n"
    } else {
        let mut text = String::new();
        for rule in rules {
            let _ = writeln!(
                text,
                "{:<48} {:<6} {:<7} {}",
                rule.id, rule.level, rule.severity, rule.source
            );
            let _ = writeln!(text, "    {}", rule.requirement);
            if let Some(decision) = &rule.decision {
                let _ = writeln!(text, "    decision: {decision}");
            }
        }
        text
    };
    output::print(&text)?;
    Ok(ExitCode::SUCCESS)
}

pub fn cases(args: CasesArgs) -> Result<ExitCode> {
    if let Some(CasesCommand::Export {
        dir,
        selection,
        cases,
    }) = args.command
    {
        let (mut corpus, catalogue) = load(&selection)?;
        let mut globs = globset::GlobSetBuilder::new();
        for pattern in &cases {
            globs.add(globset::Glob::new(pattern)?);
        }
        let globs = globs.build()?;
        corpus.cases.retain(|case| {
            (selection.format.is_empty() || selection.format.contains(&case.format))
                && (cases.is_empty() || globs.is_match(&case.id) || globs.is_match(case.name()))
        });
        if corpus.cases.is_empty() {
            anyhow::bail!("no case matches the selection\nhint: `soulcheck cases` lists the cases");
        }
        let count = soulcheck_harness::export::export(&corpus, &catalogue, &dir)?;
        output::print(&format!("exported {count} cases to {}\n", dir.display()))?;
        return Ok(ExitCode::SUCCESS);
    }
    let (corpus, catalogue) = load(&args.list.selection)?;
    let cases = selected(&corpus, &args.list.selection.format);
    let text = if args.list.json {
        let list: Vec<serde_json::Value> = cases
            .iter()
            .map(|case| {
                let profile = if case.is_definite(Profile::Spec) {
                    Profile::Spec
                } else {
                    Profile::Strict
                };
                serde_json::json!({
                    "id": case.id,
                    "format": case.format,
                    "operation": case.operation,
                    "input": case.input_name(),
                    // A directory input needs `{path}` in a per-case validator command.
                    "input_kind": if case.tree().is_some() { "directory" } else { "document" },
                    "rules": case.rules,
                    "verdict": case.verdict.name(),
                    "strict_verdict": case.expectation(Profile::Strict).verdict.name(),
                    "basis": catalogue.basis_of(case),
                    "profile": profile,
                    "description": case.description,
                    "deviations": case.deviations,
                })
            })
            .collect();
        serde_json::to_string_pretty(&list)? + "\n"
    } else {
        let mut text = String::new();
        for case in cases {
            let _ = writeln!(
                text,
                "{:<56} {:<24} {}",
                case.name(),
                case.verdict.name(),
                case.description
            );
        }
        text
    };
    output::print(&text)?;
    Ok(ExitCode::SUCCESS)
}

/// The cases of the selected formats (all when none is named), in corpus order.
pub fn selected<'c>(corpus: &'c Corpus, formats: &[soulcheck_reference::Format]) -> Vec<&'c Case> {
    corpus
        .cases
        .iter()
        .filter(|case| formats.is_empty() || formats.contains(&case.format))
        .collect()
}
