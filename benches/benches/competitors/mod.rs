//! The competitor a Rust user would pick instead of the reference for the JSON formats:
//! jsonschema-rs with this repository's own JSON Schemas (`schemas/`, embedded at build
//! time), after `serde_json::from_slice` on the same bytes, in its two modes:
//! - `iter_errors`: every error collected, what a validator that reports all problems at
//!   once (as the reference does) must do;
//! - `is_valid`: the verdict alone, stopping at the first error.
//!
//! A schema decides less than the reference (it cannot see the size limit, duplicate keys
//! or digests), so the benches use it only on inputs where both should agree, and check
//! that they do before timing, as they check the reference's verdict.

use jsonschema::Validator;
use soulcheck_reference::Format;

/// The compiled schema of every JSON format the limits bench times at or under its limit.
pub struct Schemas {
    soul_kit: Validator,
    skill_package: Validator,
    soulacy_package: Validator,
    compose_bundle: Validator,
}

/// Compiles one embedded schema with jsonschema-rs's defaults (draft 2020-12 from the
/// schema's `$schema`, fancy-regex patterns); the schemas hold no remote references.
fn compile(name: &str, text: &str) -> Validator {
    let schema: serde_json::Value = serde_json::from_str(text)
        .unwrap_or_else(|error| panic!("{name}.schema.json is not JSON: {error}"));
    jsonschema::validator_for(&schema)
        .unwrap_or_else(|error| panic!("{name}.schema.json does not compile: {error}"))
}

impl Schemas {
    /// Compiles the schemas once, before any group runs.
    pub fn load() -> Schemas {
        Schemas {
            soul_kit: compile(
                "soul-kit",
                include_str!("../../../schemas/soul-kit.schema.json"),
            ),
            skill_package: compile(
                "skill-package",
                include_str!("../../../schemas/skill-package.schema.json"),
            ),
            soulacy_package: compile(
                "soulacy-package",
                include_str!("../../../schemas/soulacy-package.schema.json"),
            ),
            compose_bundle: compile(
                "compose-bundle-manifest",
                include_str!("../../../schemas/compose-bundle-manifest.schema.json"),
            ),
        }
    }

    /// The schema of `format`'s JSON document (for a compose bundle, its manifest).
    pub fn of(&self, format: Format) -> &Validator {
        match format {
            Format::SoulKit => &self.soul_kit,
            Format::SkillPackage => &self.skill_package,
            Format::SoulacyPackage => &self.soulacy_package,
            Format::ComposeBundle => &self.compose_bundle,
            other => panic!("the limits bench has no schema competitor for {other}"),
        }
    }
}

/// `serde_json::from_slice`, then every error of `validator` collected: the number of
/// errors, or `None` when the bytes are not JSON.
pub fn iter_errors(validator: &Validator, bytes: &[u8]) -> Option<usize> {
    let value: serde_json::Value = serde_json::from_slice(bytes).ok()?;
    let errors: Vec<_> = validator.iter_errors(&value).collect();
    Some(errors.len())
}

/// `serde_json::from_slice`, then `validator`'s verdict alone (false when not JSON).
pub fn is_valid(validator: &Validator, bytes: &[u8]) -> bool {
    serde_json::from_slice::<serde_json::Value>(bytes).is_ok_and(|value| validator.is_valid(&value))
}

/// Asserts the schema's verdict on a generated input, so a competitor row times the path
/// its group names too; returns how many errors the schema reports.
pub fn expect(validator: &Validator, bytes: &[u8], valid: bool, what: &str) -> usize {
    let errors = iter_errors(validator, bytes)
        .unwrap_or_else(|| panic!("{what}: serde_json does not parse the input"));
    assert_eq!(
        is_valid(validator, bytes),
        valid,
        "{what}: the schema's verdict"
    );
    assert_eq!(errors == 0, valid, "{what}: {errors} schema errors");
    errors
}
