//! `soulcheck check`: one document or directory through the reference, printed as a human
//! report with the source underlined, or as the protocol's JSON report (`--json`).
//!
//! A document is read through [`soulcheck::read`]: a regular file only, and at most its
//! format's size limit (from the registry) plus one byte; a larger file gets the limit's
//! diagnostic without being read. Anything else (a FIFO, a device, a socket) is a usage
//! error, exit 2. Exit 0 is accept, 1 reject, and 3 not judged: the input went past one of
//! the reference's own bounds (a size, depth or entry limit the spec does not set) and
//! nothing read before it broke a rule, so in the spec profile the reference says neither.

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::{bail, Context as _, Result};
use clap::Args;
use soulcheck::read::{read_document, Document};
use soulcheck_reference::{detect_format, registry, Context, Format, Input, Profile, Verdict};

use crate::output;

#[derive(Args)]
pub struct CheckArgs {
    /// The document or directory to check.
    path: PathBuf,
    /// Format to check as; detected from the name when absent.
    #[arg(long, value_parser = crate::parse_format)]
    format: Option<Format>,
    /// Print the result as JSON (the protocol's report shape).
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
    /// `strict`: apply the suite's protective choices too (the strict profile); the
    /// default, `spec`, follows the spec's text where it is definite.
    #[arg(long, default_value = "spec")]
    profile: Profile,
    /// Operation to run instead of plain validation (format-specific).
    #[arg(long, default_value = "validate")]
    operation: String,
}

pub fn check(args: CheckArgs) -> Result<ExitCode> {
    let format = match args.format.or_else(|| detect_format(&args.path)) {
        Some(format) => format,
        None => bail!(
            "cannot tell the format of {} from its name; pass --format ({})",
            args.path.display(),
            Format::ALL.map(Format::name).join(", ")
        ),
    };
    check_operation(format, &args.operation)?;
    let context = context(&args)?;
    let origin = args.path.display().to_string();
    // Looked at without opening it: a FIFO is not waited on here.
    let metadata =
        std::fs::metadata(&args.path).with_context(|| format!("cannot read {origin}"))?;
    let (report, source, origin) = if metadata.is_dir() {
        match soulcheck_reference::check(format, &args.operation, Input::Tree(&args.path), &context)
        {
            Ok(report) => (report, Vec::new(), origin),
            // An operation on the document a tree holds (a bundle's fingerprint of its
            // manifest) takes the tree: the document inside is what it reads.
            Err(unsupported) => match held_document(format, &args.path) {
                Some(document) => {
                    let origin = document.display().to_string();
                    let (report, source) =
                        check_document(format, &args.operation, &document, &origin, &context)?;
                    (report, source, origin)
                }
                None => {
                    let names: Vec<&str> = registry::entry(format)
                        .filter(|entry| entry.detection.directory.is_some())
                        .map(|entry| entry.documents.iter().map(|kind| kind.file_name).collect())
                        .unwrap_or_default();
                    if names.is_empty() {
                        return Err(unsupported.into());
                    }
                    bail!(
                        "{unsupported}: `{}` of {format} reads the document a {format} directory holds ({}), and {origin} has none\nhint: pass the document's path",
                        args.operation,
                        names.join(" or ")
                    );
                }
            },
        }
    } else {
        let (report, source) =
            check_document(format, &args.operation, &args.path, &origin, &context)?;
        (report, source, origin)
    };
    let text = if let (true, Some(reason)) = (args.json, report.not_judged_reason()) {
        // Not judged: the per-case protocol's way to decline, with exit code 3.
        serde_json::to_string_pretty(&serde_json::json!({
            "format": report.format,
            "skipped": reason,
        }))? + "\n"
    } else if args.json {
        serde_json::to_string_pretty(&report.to_wire())? + "\n"
    } else {
        let mut text = report.render(&source, &origin);
        if let Some(value) = &report.value {
            text.push_str(&format!("value: {value}\n"));
        }
        text
    };
    output::print(&text)?;
    Ok(match report.verdict() {
        // Past a bound of the reference the input was not judged: neither accepted nor
        // rejected.
        _ if report.not_judged().is_some() => ExitCode::from(3),
        Verdict::Accept => ExitCode::SUCCESS,
        Verdict::Reject => ExitCode::from(1),
    })
}

/// The document of `format` that the directory `dir` holds (a bundle's `manifest.json`),
/// if the format is a tree format, names its document by file name, and it is there. A
/// format whose inputs are never directories takes no directory this way.
fn held_document(format: Format, dir: &Path) -> Option<PathBuf> {
    let entry = registry::entry(format)?;
    entry.detection.directory?;
    entry
        .documents
        .iter()
        .map(|kind| dir.join(kind.file_name))
        .find(|path| path.is_file())
}

/// Runs `operation` on the document at `path`, read within its kind's size limit; the
/// report and the bytes it points into.
fn check_document(
    format: Format,
    operation: &str,
    path: &Path,
    origin: &str,
    context: &Context,
) -> Result<(soulcheck_reference::Report, Vec<u8>)> {
    let name = path
        .file_name()
        .and_then(|name| name.to_str())
        .unwrap_or_default();
    let limit = registry::entry(format)
        .and_then(|entry| entry.document(name))
        .and_then(|kind| kind.size_limit);
    Ok(
        match read_document(path, limit.map(|limit| limit.max_bytes))? {
            Document::Bytes(bytes) => {
                let input = Input::Document {
                    name,
                    bytes: &bytes,
                };
                let report = soulcheck_reference::check(format, operation, input, context)?;
                (report, bytes)
            }
            // The limit's diagnostic, as the reference gives it, without reading further.
            Document::TooLarge { size } => match limit {
                Some(limit) => {
                    let mut report = limit.refusal(format, size);
                    // As `soulcheck_reference::check` does: past a bound, not judged in the
                    // spec profile.
                    report.settle_bounds(soulcheck_reference::profile(context));
                    (report, Vec::new())
                }
                None => bail!("{origin} grew while it was read"),
            },
        },
    )
}

/// Refuses an operation the format does not have, naming the ones it has (from the
/// reference's format registry).
fn check_operation(format: Format, operation: &str) -> Result<()> {
    if operation == "validate" {
        return Ok(());
    }
    let Some(entry) = registry::entry(format) else {
        bail!("the reference has no entry for {format}");
    };
    if entry.operation(operation).is_some() {
        return Ok(());
    }
    let known: Vec<String> = std::iter::once("validate".to_owned())
        .chain(
            entry
                .operations
                .iter()
                .map(|operation| format!("{} ({})", operation.name, operation.summary)),
        )
        .collect();
    bail!(
        "{format} has no operation `{operation}`; its operations: {}",
        known.join(", ")
    )
}

/// The context rules see: `--context-json`, then `--now`, `--fingerprint`, `--profile`
/// and each `--context KEY=VALUE` on top.
fn context(args: &CheckArgs) -> Result<Context> {
    let mut context = match &args.context_json {
        Some(text) => match serde_json::from_str::<serde_json::Value>(text) {
            Ok(serde_json::Value::Object(map)) => map,
            _ => bail!("--context-json takes a JSON object"),
        },
        None => Context::new(),
    };
    if let Some(now) = &args.now {
        context.insert("now".into(), now.clone().into());
    }
    if let Some(fingerprint) = &args.fingerprint {
        context.insert("fingerprint".into(), fingerprint.clone().into());
    }
    if args.profile != Profile::Spec {
        context.insert("profile".into(), args.profile.name().into());
    }
    for entry in &args.context {
        let Some((key, value)) = entry.split_once('=') else {
            bail!("--context takes KEY=VALUE, got {entry:?}");
        };
        let value = serde_json::from_str(value)
            .unwrap_or_else(|_| serde_json::Value::String(value.to_owned()));
        context.insert(key.to_owned(), value);
    }
    Ok(context)
}
