//! Soulacy agent packages ("Soulacy Agent Package Format", SPECS.md): validation of
//! `*.soulacy-agent.json` packages (schema v1 and v2) and of the `.soulacy-package.json`
//! install sidecar, and the two package operations, `calendar-order` and
//! `requirements-gate`.
//!
//! The rule catalogues (`cases/soulacy-package/rules.toml`,
//! `cases/soulacy-sidecar/rules.toml`) record every decision taken where the spec is
//! silent; the checks here cite those rules. The clock and the trust list are inputs
//! ([`Settings`]); nothing here reads the wall clock.

mod calendar;
mod gate;
mod importer_digest;
mod package;
mod package_id;
mod sidecar;
mod timestamp;

use time::OffsetDateTime;

use crate::diagnostic::rules::{soulacy_package, soulacy_sidecar};
use crate::diagnostic::{Format, Report};
use crate::json::walk::{JsonRules, Repeats, UnknownMembers};
use crate::json::{Limits, ReadRules};
use crate::{Context, Input, Unsupported};

pub use calendar::{compare as compare_versions, parse as parse_version, CalendarVersion};

/// Largest package read, in bytes (`soulacy-package.size.max`).
pub const MAX_PACKAGE_BYTES: usize = 4 * 1024 * 1024;

/// Largest sidecar read, in bytes (`soulacy-sidecar.size.max`).
pub const MAX_SIDECAR_BYTES: usize = 64 * 1024;

/// Nesting bound of both formats' reader (`*.json.depth`).
pub const MAX_DEPTH: usize = 64;

/// What becomes of an unknown member in both formats: a warning, and the member is
/// ignored (`*.object.unknown-key`); a repeated unknown key is reported at each occurrence.
const UNKNOWN_NOTE: &str = "it is ignored";

static PACKAGE_RULES: JsonRules = JsonRules {
    limits: Limits {
        max_bytes: MAX_PACKAGE_BYTES,
        max_depth: MAX_DEPTH,
    },
    read: ReadRules {
        size: soulacy_package::SIZE_MAX,
        bom: soulacy_package::JSON_BOM,
        utf8: soulacy_package::JSON_UTF8,
        surrogate: soulacy_package::JSON_SURROGATE,
        depth: soulacy_package::JSON_DEPTH,
        trailing: soulacy_package::JSON_TRAILING_DATA,
        syntax: soulacy_package::JSON_SYNTAX,
    },
    duplicate: soulacy_package::JSON_DUPLICATE_KEY,
    field_type: soulacy_package::FIELD_TYPE,
    required: soulacy_package::FIELD_REQUIRED,
    unknown: Some(UnknownMembers {
        rule: soulacy_package::OBJECT_UNKNOWN_KEY,
        note: UNKNOWN_NOTE,
        repeats: Repeats::EachOccurrence,
    }),
    // The publisher reads with Go's encoding/json, which reads `null` as absent.
    null_as_absent: true,
};

static SIDECAR_RULES: JsonRules = JsonRules {
    limits: Limits {
        max_bytes: MAX_SIDECAR_BYTES,
        max_depth: MAX_DEPTH,
    },
    read: ReadRules {
        size: soulacy_sidecar::SIZE_MAX,
        bom: soulacy_sidecar::JSON_BOM,
        utf8: soulacy_sidecar::JSON_UTF8,
        surrogate: soulacy_sidecar::JSON_SURROGATE,
        depth: soulacy_sidecar::JSON_DEPTH,
        trailing: soulacy_sidecar::JSON_TRAILING_DATA,
        syntax: soulacy_sidecar::JSON_SYNTAX,
    },
    duplicate: soulacy_sidecar::JSON_DUPLICATE_KEY,
    field_type: soulacy_sidecar::FIELD_TYPE,
    required: soulacy_sidecar::FIELD_REQUIRED,
    unknown: Some(UnknownMembers {
        rule: soulacy_sidecar::OBJECT_UNKNOWN_KEY,
        note: UNKNOWN_NOTE,
        repeats: Repeats::EachOccurrence,
    }),
    null_as_absent: false,
};

/// The profile a check asked for strictness `strict` runs in.
pub(crate) fn profile_of(strict: bool) -> crate::Profile {
    if strict {
        crate::Profile::Strict
    } else {
        crate::Profile::Spec
    }
}

/// The inputs package rules need besides the document.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Settings {
    /// The clock (`now`); `None` when unknown.
    pub now: Option<OffsetDateTime>,
    /// Publisher keys listed as official (`official_keys`); empty when not given.
    pub official_keys: Vec<String>,
    /// Whether the strict profile is asked for: the catalogues' `strict` rules (the
    /// suite's protective decisions) apply only then.
    pub strict: bool,
}

impl Settings {
    /// Reads `now` (a quoted `YYYY-MM-DD` or RFC 3339 date-time) and `official_keys` (an
    /// array of strings) from the context. A malformed entry is a defect of the request,
    /// not of the document, so it is refused as unsupported rather than diagnosed.
    pub fn from_context(context: &Context) -> Result<Settings, Unsupported> {
        let refuse = |reason: String| Unsupported { reason };
        let now = match context.get("now") {
            None => None,
            Some(serde_json::Value::String(text)) => {
                Some(timestamp::parse_now(text).ok_or_else(|| {
                    refuse(format!(
                        "context `now` must be YYYY-MM-DD or an RFC 3339 date-time, got {text:?}"
                    ))
                })?)
            }
            Some(other) => {
                return Err(refuse(format!(
                    "context `now` must be a string (YYYY-MM-DD or RFC 3339), got {other}"
                )))
            }
        };
        let official_keys = match context.get("official_keys") {
            None => Vec::new(),
            Some(serde_json::Value::Array(items)) => items
                .iter()
                .map(|item| {
                    item.as_str().map(str::to_owned).ok_or_else(|| {
                        refuse(format!(
                            "context `official_keys` must hold strings, got {item}"
                        ))
                    })
                })
                .collect::<Result<_, _>>()?,
            Some(other) => {
                return Err(refuse(format!(
                    "context `official_keys` must be an array of strings, got {other}"
                )))
            }
        };
        Ok(Settings {
            now,
            official_keys,
            strict: crate::profile(context) == crate::Profile::Strict,
        })
    }
}

/// Validates one package (`soulacy-package`, operation `validate`); a tree, or a context
/// whose settings are malformed, is refused.
pub fn validate_package(input: Input<'_>, context: &Context) -> Result<Report, Unsupported> {
    let source = input.document_bytes(Format::SoulacyPackage, "validate")?;
    let settings = Settings::from_context(context)?;
    Ok(package::check(source, &settings))
}

/// [`validate_package`] up to the first error (see [`crate::first_error`]).
pub fn validate_package_first_error(
    input: Input<'_>,
    context: &Context,
) -> Result<Report, Unsupported> {
    let source = input.document_bytes(Format::SoulacyPackage, "validate")?;
    let settings = Settings::from_context(context)?;
    Ok(package::check_collecting(
        source,
        &settings,
        crate::diagnostic::Collect::FirstError,
    ))
}

/// Validates one sidecar (`soulacy-sidecar`, operation `validate`); a tree is refused.
pub fn validate_sidecar(input: Input<'_>, context: &Context) -> Result<Report, Unsupported> {
    let source = input.document_bytes(Format::SoulacySidecar, "validate")?;
    Ok(sidecar::check(
        source,
        crate::profile(context) == crate::Profile::Strict,
    ))
}

/// The package operation `calendar-order`; a tree is refused.
pub fn calendar_order(input: Input<'_>, context: &Context) -> Result<Report, Unsupported> {
    let source = input.document_bytes(Format::SoulacyPackage, "calendar-order")?;
    Ok(gate::calendar_order(
        source,
        crate::profile(context) == crate::Profile::Strict,
    ))
}

/// The package operation `requirements-gate`; a tree, or a context whose settings are
/// malformed, is refused.
pub fn requirements_gate(input: Input<'_>, context: &Context) -> Result<Report, Unsupported> {
    let source = input.document_bytes(Format::SoulacyPackage, "requirements-gate")?;
    let settings = Settings::from_context(context)?;
    Ok(gate::requirements_gate(source, &settings))
}

/// Whether a string has no character other than whitespace.
fn is_blank(text: &str) -> bool {
    text.chars().all(char::is_whitespace)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A document input without a name (no Soulacy check looks at it).
    fn document(bytes: &[u8]) -> Input<'_> {
        Input::Document { name: "", bytes }
    }

    /// Reads a committed case input.
    fn input(format: &str, case: &str, name: &str) -> Vec<u8> {
        let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../../cases")
            .join(format)
            .join(case)
            .join(name);
        std::fs::read(&path).unwrap_or_else(|error| panic!("{}: {error}", path.display()))
    }

    /// Every prefix of a valid document is handled without a panic, and every proper
    /// prefix is rejected: truncation never yields a valid package or sidecar.
    #[test]
    fn truncated_documents_are_rejected_without_panics() {
        let context = Context::new();
        let package = input("soulacy-package", "pkg-v2-full", "input.soulacy-agent.json");
        let gate = input("soulacy-package", "gate-all-available", "input.json");
        let sidecar = input(
            "soulacy-sidecar",
            "sidecar-spec-example",
            ".soulacy-package.json",
        );
        // The final newline is whitespace, so the prefix without it is still complete.
        for end in 0..package.len() - 1 {
            let report =
                validate_package(document(&package[..end]), &context).expect("no context needed");
            assert_eq!(
                report.verdict(),
                crate::Verdict::Reject,
                "prefix of {end} bytes"
            );
        }
        for end in 0..gate.len() - 1 {
            let report =
                requirements_gate(document(&gate[..end]), &context).expect("no context needed");
            assert_eq!(
                report.verdict(),
                crate::Verdict::Reject,
                "prefix of {end} bytes"
            );
        }
        for end in 0..sidecar.len() - 1 {
            assert_eq!(
                validate_sidecar(document(&sidecar[..end]), &context)
                    .expect("no context needed")
                    .verdict(),
                crate::Verdict::Reject,
                "prefix of {end} bytes"
            );
        }
    }

    #[test]
    fn malformed_context_is_refused() {
        let mut context = Context::new();
        context.insert("now".into(), "next tuesday".into());
        assert!(validate_package(document(b"{}"), &context).is_err());
        let mut context = Context::new();
        context.insert("official_keys".into(), serde_json::json!("ed25519:one"));
        assert!(requirements_gate(document(b"{}"), &context).is_err());
    }
}
