//! soulcheck-reference: the reference implementation of the five agent-identity formats
//! the suite certifies, with one module per format, the shared diagnostics model and the
//! strict JSON reader.
//!
//! It is a library and nothing else: no command line, no harness, no processes. The
//! reference is one validator among others; the command line adapts it to the harness's
//! `Validator` trait, and nothing in the harness depends on this crate.

pub mod compose_bundle;
pub mod diagnostic;
pub mod json;
pub mod skill_package;
pub mod soul_kit;
pub mod soul_md;
pub mod soulacy;
pub mod text;

use std::path::Path;

pub use diagnostic::{Diagnostic, Format, Location, Report, Severity, Span, Verdict};

pub use soulcheck_vocabulary::{Context, Profile};

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

/// The reference cannot handle a request: the format, the operation or the kind of input
/// is not implemented.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Unsupported {
    /// Why.
    pub reason: String,
}

impl std::fmt::Display for Unsupported {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.reason)
    }
}

impl std::error::Error for Unsupported {}

/// Operations besides `validate` that the reference implements, for some format each.
pub const OPERATIONS: &[&str] = &[
    "fingerprint",
    "calendar-order",
    "requirements-gate",
    "voice-profile",
    "whoami",
];

/// Runs `operation` (`validate` for plain validation) on `input` as `format`.
pub fn check(
    format: Format,
    operation: &str,
    input: Input<'_>,
    context: &Context,
) -> Result<Report, Unsupported> {
    let unsupported = || Unsupported {
        reason: format!(
            "the reference does not implement operation `{operation}` of {format} on this input"
        ),
    };
    match (format, operation, input) {
        (Format::SoulKit, "validate", Input::Document { bytes, .. }) => {
            Ok(soul_kit::check(bytes, profile(context)))
        }
        (Format::SkillPackage, "validate", Input::Document { name, bytes }) => {
            Ok(skill_package::check_document(name, bytes))
        }
        (Format::SkillPackage, "validate", Input::Tree(root)) => {
            Ok(skill_package::check_tree(root))
        }
        (Format::SoulacyPackage, "validate", Input::Document { bytes, .. }) => {
            soulacy::check_package(bytes, context)
        }
        (Format::SoulacyPackage, "calendar-order", Input::Document { bytes, .. }) => {
            Ok(soulacy::calendar_order(bytes))
        }
        (Format::SoulacyPackage, "requirements-gate", Input::Document { bytes, .. }) => {
            soulacy::requirements_gate(bytes, context)
        }
        (Format::SoulacySidecar, "validate", Input::Document { bytes, .. }) => {
            Ok(soulacy::check_sidecar(bytes))
        }
        (Format::SoulMd, "validate", Input::Document { bytes, .. }) => {
            Ok(soul_md::check(bytes, context))
        }
        (Format::SoulMd, "fingerprint", Input::Document { bytes, .. }) => {
            Ok(soul_md::fingerprint_report(bytes))
        }
        (Format::ComposeBundle, "validate", Input::Tree(root)) => {
            Ok(compose_bundle::check_tree(root))
        }
        (Format::ComposeBundle, "fingerprint", Input::Document { bytes, .. }) => {
            Ok(compose_bundle::fingerprint_operation(bytes))
        }
        (Format::ComposeBundle, "voice-profile", Input::Document { bytes, .. }) => {
            Ok(compose_bundle::voice_profile_operation(bytes))
        }
        (Format::ComposeBundle, "whoami", Input::Document { bytes, .. }) => {
            Ok(compose_bundle::whoami_operation(bytes, context))
        }
        _ => Err(unsupported()),
    }
}

/// Guesses the format from a path's name (and, for a directory, what it holds), as the
/// command line does when `--format` is not given.
pub fn detect_format(path: &Path) -> Option<Format> {
    if path.is_dir() {
        // A bundle is told by its manifest's marker. A manifest.json without the marker
        // (or one that is not even a regular file) still makes the directory a bundle to
        // check, unless a SKILL.md says it is a skill package shipping a manifest of its own.
        let has_manifest = std::fs::symlink_metadata(path.join("manifest.json")).is_ok();
        let has_skill = path.join("SKILL.md").is_file();
        if compose_bundle::holds_bundle_marker(path) || (has_manifest && !has_skill) {
            return Some(Format::ComposeBundle);
        }
        if has_skill {
            return Some(Format::SkillPackage);
        }
        return None;
    }
    let name = path.file_name()?.to_str()?;
    match name {
        "SOUL.md" => Some(Format::SoulMd),
        "SKILL.md" => Some(Format::SkillPackage),
        ".soulacy-package.json" => Some(Format::SoulacySidecar),
        _ if name.ends_with(".soulkit.json") => Some(Format::SoulKit),
        _ if name.ends_with(".soulacy-agent.json") => Some(Format::SoulacyPackage),
        _ => None,
    }
}
