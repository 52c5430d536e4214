//! soulcheck-reference: the reference implementation of the five agent-identity formats
//! the suite certifies, with one module per format, the shared diagnostics model, the
//! strict JSON reader with the walk every JSON checker shares, and the [`registry`] that
//! says which module checks which format.
//!
//! It is a library and nothing else: no command line, no harness, no processes. The
//! reference is one validator among others; the command line adapts it to the harness's
//! `Validator` trait, and nothing in the harness depends on this crate.
//!
//! # Bounds
//!
//! Every input, valid or hostile, costs at most a constant times its size in time, memory
//! and output, plus a constant. The mechanisms and their numbers:
//!
//! - **Documents are not read past their size limit** ([`registry::SizeLimit`]):
//!   Soul Kit 256 KiB, Soulacy package 4 MiB, Soulacy sidecar 64 KiB, skill package
//!   envelope 8 MiB and bare `SKILL.md` 256 KiB, bundle JSON files 1 MiB, and SOUL.md
//!   1 MiB (`soul-md.size.max`, a decision of this suite: the spec sets no hard limit).
//!   `soulcheck check` reads at most the limit plus one byte of a regular file, and
//!   refuses anything else (a FIFO, a device, a socket) before reading.
//! - **A report keeps at most [`diagnostic::MAX_DIAGNOSTICS`] (100) diagnostics** and takes
//!   none once its pointers and messages hold [`diagnostic::MAX_DIAGNOSTIC_TEXT`]
//!   (256 KiB); the kept text is then at most 256 KiB plus one diagnostic (whose pointer
//!   and message are at most a few times the input). What is left out is counted by
//!   severity, still decides the verdict, and is announced by one warning of the format's
//!   `<format>.report.truncated` rule. Checkers ask for room before building a pointer
//!   or message, so a dropped diagnostic costs a count.
//! - **Duplicate keys share their path**: the JSON reader records the path of a
//!   duplicate as places shared with every other duplicate under it and builds a pointer
//!   only for a duplicate that is reported, so duplicates under a long key cost one copy
//!   of the key.
//! - **Rendering is bounded per diagnostic**: a source excerpt is at most
//!   [`diagnostic::MAX_EXCERPT_BYTES`] (4 KiB) and nothing longer is scanned, so text
//!   output is at most about 13 KiB per kept diagnostic plus its pointer and message.
//! - **Tree walks stop at [`MAX_TREE_ENTRIES`] (10,000) entries**: a bundle or skill
//!   directory holding more gets one diagnostic of its `<format>.report.truncated` rule and
//!   is not checked further.
//!
//! Each of these limits that the spec does not set is a **bound** of the reference
//! (`kind = "bound"` in the catalogue), not a rule of the spec: past one, the spec profile
//! does not judge the input ([`Report::not_judged`]: the bound's diagnostic is a warning,
//! and `soulcheck check` exits 3) unless what was read already breaks a rule of the spec,
//! and the strict profile rejects. Limits the spec sets itself (a Soul Kit's 262144
//! bytes) are rules of the spec and reject in both profiles.
//!
//! `crates/reference/tests/bounds.rs` reproduces each attack these answer and asserts the
//! bound on counted allocation, output and time; `crates/cli/tests/bounded_reads.rs` does
//! the same for what `soulcheck check` reads.

pub mod compose_bundle;
pub mod diagnostic;
pub mod json;
pub mod registry;
pub mod skill_package;
pub mod soul_kit;
pub mod soul_md;
pub mod soulacy;
pub mod text;

use std::path::Path;

pub use diagnostic::{Diagnostic, Format, Location, Report, Severity, Span, Verdict};
pub use registry::operations;

pub use soulcheck_vocabulary::{Context, Profile};

/// Most entries a tree walk visits (files, directories and anything else, at any depth);
/// a bundle or skill directory with more gets one diagnostic and is not checked further.
/// Generous for real trees (a skill package holds at most 1 MiB of text), and it bounds
/// what a walk keeps: about a path per entry.
pub const MAX_TREE_ENTRIES: usize = 10_000;

/// The profile a check runs in. A context holding `"profile": "strict"` asks for the
/// suite's protective choices on top of the spec (rules marked `strict` in the
/// catalogue); without it, or with any other value, the reference follows the spec's text
/// where the text is definite.
pub fn profile(context: &Context) -> Profile {
    match context.get("profile").and_then(serde_json::Value::as_str) {
        Some("strict") => Profile::Strict,
        _ => Profile::Spec,
    }
}

/// What the reference is asked to check.
#[derive(Debug, Clone, Copy)]
pub enum Input<'a> {
    /// One document's exact bytes and its file name.
    Document {
        /// File name; some formats treat a bare head file differently.
        name: &'a str,
        /// The bytes.
        bytes: &'a [u8],
    },
    /// A directory tree on disk.
    Tree(&'a Path),
}

impl<'a> Input<'a> {
    /// The bytes of a document, or the refusal of `operation` of `format` when the input
    /// is a tree: for an entry point that takes documents only.
    pub fn document_bytes(self, format: Format, operation: &str) -> Result<&'a [u8], Unsupported> {
        match self {
            Input::Document { bytes, .. } => Ok(bytes),
            Input::Tree(_) => Err(Unsupported::operation(format, operation)),
        }
    }

    /// The root of a tree, or the refusal of `operation` of `format` when the input is a
    /// document: for an entry point that takes trees only.
    pub fn tree_root(self, format: Format, operation: &str) -> Result<&'a Path, Unsupported> {
        match self {
            Input::Tree(root) => Ok(root),
            Input::Document { .. } => Err(Unsupported::operation(format, operation)),
        }
    }
}

/// The reference cannot handle a request: the format, the operation or the kind of input
/// is not implemented.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Unsupported {
    /// Why.
    pub reason: String,
}

impl Unsupported {
    /// The refusal of `operation` of `format`: the operation is unknown for the format, or
    /// its entry point does not take this kind of input.
    pub fn operation(format: Format, operation: &str) -> Unsupported {
        Unsupported {
            reason: format!(
                "the reference does not implement operation `{operation}` of {format} on this input"
            ),
        }
    }
}

impl std::fmt::Display for Unsupported {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.reason)
    }
}

impl std::error::Error for Unsupported {}

/// Runs `operation` (`validate` for plain validation) on `input` as `format`, through the
/// format's entry in the [`registry`].
pub fn check(
    format: Format,
    operation: &str,
    input: Input<'_>,
    context: &Context,
) -> Result<Report, Unsupported> {
    let entry = registry::entry(format).ok_or_else(|| Unsupported::operation(format, operation))?;
    let run = entry
        .entry_point(operation)
        .ok_or_else(|| Unsupported::operation(format, operation))?;
    let mut report = run(input, context)?;
    // Past a bound of the reference, the spec profile does not judge.
    report.settle_bounds(profile(context));
    // The report's bounds, with the format's notice when they left anything out.
    report.cap(entry.truncated);
    Ok(report)
}

/// Validates `input` as `format` up to its first error, for an importer that needs the
/// verdict and not the whole list: the report's verdict is the one [`check`] gives, and it
/// holds the diagnostics found up to and including the first error. The JSON checkers of
/// the Soul Kit, the Soulacy package and the skill package envelope format nothing after
/// the first error (the Soul Kit's also stops walking there); the other formats and inputs
/// are checked whole and cut at the first error.
pub fn first_error(
    format: Format,
    input: Input<'_>,
    context: &Context,
) -> Result<Report, Unsupported> {
    let entry =
        registry::entry(format).ok_or_else(|| Unsupported::operation(format, "validate"))?;
    let run = entry.validate_first_error.unwrap_or(entry.validate);
    let mut report = run(input, context)?;
    report.settle_bounds(profile(context));
    report.cap(entry.truncated);
    // Where the bounds left every error out of the kept diagnostics, the report stays as
    // it is: its count of omitted errors is what rejects it.
    if let Some(first) = report
        .diagnostics
        .iter()
        .position(|diagnostic| diagnostic.severity == Severity::Error)
    {
        report.diagnostics.truncate(first + 1);
        report.omitted = diagnostic::Omitted::default();
    }
    report.collect = diagnostic::Collect::FirstError;
    Ok(report)
}

/// Guesses the format from a path's name (and, for a directory, what it holds), as the
/// command line does when `--format` is not given; see [`registry::detect`].
pub fn detect_format(path: &Path) -> Option<Format> {
    registry::detect(path)
}
