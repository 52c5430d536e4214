//! soulcheck-fuzzing: the fuzz logic of soulcheck, kept in a library so that two drivers
//! share it and it cannot rot:
//!
//! - the cargo-fuzz binaries in `fuzz/` (nightly, libFuzzer, sanitizers) call [`run`] on
//!   every input of a campaign;
//! - the stable test `tests/seeded.rs` calls the same [`run`] on every corpus input and a
//!   bounded number of seeded pseudo-random inputs, so plain `cargo test` exercises every
//!   target and every invariant.
//!
//! A [`Target`] is one entry point: the strict JSON reader, or one format's validator fed
//! either raw bytes (seeded from the corpus) or a document built by a structure-aware
//! generator ([`generate`]) from the fuzz input. [`run`] checks the invariants of
//! [`invariants`] and [`reader`] and returns the first one broken.

pub mod generate;
pub mod invariants;
pub mod json_text;
pub mod open;
pub mod reader;
pub mod seeds;

use std::alloc::System;

use arbitrary::Unstructured;
use soulcheck_reference::json;
use soulcheck_reference::registry::{self, DocumentKind, SizeLimit};
use soulcheck_reference::skill_package;
use soulcheck_reference::{Context, Format, Input, Report, Verdict};

pub use invariants::{Expected, Place, Violation};
pub use stats_alloc::{StatsAlloc, INSTRUMENTED_SYSTEM};

use generate::Generated;

/// Bytes a check may allocate, in total, per byte of input (see [`ALLOCATION_BASE`]).
/// The reference keeps a node per value and a pointer per diagnostic, so a small
/// constant factor is expected; super-linear behaviour (a quadratic copy, a line index
/// rebuilt per diagnostic) blows through it.
pub const ALLOCATION_PER_BYTE: usize = 512;

/// Bytes a check may allocate whatever the input's size.
pub const ALLOCATION_BASE: usize = 256 * 1024;

/// What a skill package check may allocate on top of [`ALLOCATION_BASE`]: YAML aliases in
/// a head may expand up to `skill-package.head.yaml-resources`' budget whatever the
/// head's size, and a package holds up to four heads' worth of text.
pub const YAML_ALIAS_ALLOWANCE: usize = 64 * 1024 * 1024;

/// Bytes a check may allocate to refuse an input over its format's size limit: enough for
/// the report and its message, far too little to hold a parse of the input.
pub const OVERSIZE_ALLOCATION: usize = 16 * 1024;

/// Reads the bytes allocated so far by the process, through `stats_alloc`'s counting
/// allocator. It only counts when the binary installed [`INSTRUMENTED_SYSTEM`] as its
/// global allocator:
///
/// ```ignore
/// #[global_allocator]
/// static ALLOCATOR: &soulcheck_fuzzing::StatsAlloc<std::alloc::System> =
///     &soulcheck_fuzzing::INSTRUMENTED_SYSTEM;
/// ```
///
/// The counter is process-wide, so measurements are only meaningful while one thread
/// runs checks.
#[derive(Debug, Clone, Copy)]
pub struct Meter {
    stats: &'static StatsAlloc<System>,
}

impl Meter {
    /// The meter of [`INSTRUMENTED_SYSTEM`].
    pub const fn installed() -> Meter {
        Meter {
            stats: &INSTRUMENTED_SYSTEM,
        }
    }

    /// Bytes allocated since the process started (reallocation growth included).
    pub fn allocated(&self) -> usize {
        self.stats.stats().bytes_allocated
    }
}

/// One fuzz target: an entry point of the reference and how the fuzz input reaches it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Target {
    /// `soulcheck_reference::json::read` on raw bytes, checked against serde_json.
    JsonReader,
    /// The Soul Kit validator on raw bytes.
    SoulKit,
    /// The Soul Kit validator on generated near-valid kits.
    SoulKitStructured,
    /// The Soulacy package validator on raw bytes.
    SoulacyPackage,
    /// The Soulacy package validator on generated near-valid packages (v1 and v2).
    SoulacyPackageStructured,
    /// The Soulacy sidecar validator on raw bytes.
    SoulacySidecar,
    /// The Soulacy sidecar validator on generated near-valid sidecars.
    SoulacySidecarStructured,
    /// The SOUL.md validator on raw bytes.
    SoulMd,
    /// The SOUL.md validator on generated near-valid documents.
    SoulMdStructured,
    /// The skill package validator on raw bytes as a JSON envelope.
    SkillPackage,
    /// The skill package validator on generated near-valid envelopes.
    SkillPackageStructured,
    /// The skill package validator on raw bytes as a bare `SKILL.md` head.
    SkillMdHead,
    /// The bundle validator on a bundle whose `manifest.json` is the raw input (the other
    /// files are the corpus's valid bundle), written into a temporary directory.
    ComposeBundleManifest,
    /// The bundle validator on generated bundle trees written into a temporary directory.
    ComposeBundleTree,
}

impl Target {
    /// Every target; `fuzz/Cargo.toml` has one binary for each.
    pub const ALL: &'static [Target] = &[
        Target::JsonReader,
        Target::SoulKit,
        Target::SoulKitStructured,
        Target::SoulacyPackage,
        Target::SoulacyPackageStructured,
        Target::SoulacySidecar,
        Target::SoulacySidecarStructured,
        Target::SoulMd,
        Target::SoulMdStructured,
        Target::SkillPackage,
        Target::SkillPackageStructured,
        Target::SkillMdHead,
        Target::ComposeBundleManifest,
        Target::ComposeBundleTree,
    ];

    /// The cargo-fuzz target name (`cargo +nightly fuzz run <name>`).
    pub fn name(self) -> &'static str {
        match self {
            Target::JsonReader => "json_reader",
            Target::SoulKit => "soul_kit",
            Target::SoulKitStructured => "soul_kit_structured",
            Target::SoulacyPackage => "soulacy_package",
            Target::SoulacyPackageStructured => "soulacy_package_structured",
            Target::SoulacySidecar => "soulacy_sidecar",
            Target::SoulacySidecarStructured => "soulacy_sidecar_structured",
            Target::SoulMd => "soul_md",
            Target::SoulMdStructured => "soul_md_structured",
            Target::SkillPackage => "skill_package",
            Target::SkillPackageStructured => "skill_package_structured",
            Target::SkillMdHead => "skill_md_head",
            Target::ComposeBundleManifest => "compose_bundle_manifest",
            Target::ComposeBundleTree => "compose_bundle_tree",
        }
    }

    /// The target of a name.
    pub fn from_name(name: &str) -> Option<Target> {
        Target::ALL
            .iter()
            .copied()
            .find(|target| target.name() == name)
    }

    /// The format whose validator the target drives (`None` for the bare JSON reader).
    pub fn format(self) -> Option<Format> {
        match self {
            Target::JsonReader => None,
            Target::SoulKit | Target::SoulKitStructured => Some(Format::SoulKit),
            Target::SoulacyPackage | Target::SoulacyPackageStructured => {
                Some(Format::SoulacyPackage)
            }
            Target::SoulacySidecar | Target::SoulacySidecarStructured => {
                Some(Format::SoulacySidecar)
            }
            Target::SoulMd | Target::SoulMdStructured => Some(Format::SoulMd),
            Target::SkillPackage | Target::SkillPackageStructured | Target::SkillMdHead => {
                Some(Format::SkillPackage)
            }
            Target::ComposeBundleManifest | Target::ComposeBundleTree => {
                Some(Format::ComposeBundle)
            }
        }
    }

    /// Whether the fuzz input is the document itself (so corpus inputs are seeds), rather
    /// than the choices of a generator.
    pub fn takes_documents(self) -> bool {
        matches!(
            self,
            Target::JsonReader
                | Target::SoulKit
                | Target::SoulacyPackage
                | Target::SoulacySidecar
                | Target::SoulMd
                | Target::SkillPackage
                | Target::SkillMdHead
                | Target::ComposeBundleManifest
        )
    }

    /// Whether the input becomes a directory tree rather than one document.
    pub fn is_tree(self) -> bool {
        matches!(
            self,
            Target::ComposeBundleManifest | Target::ComposeBundleTree
        )
    }

    /// The kind of document the target checks, from its format's registry entry: the
    /// format's default document, or for the head target the bare `SKILL.md`. `None` for
    /// the bare JSON reader.
    pub fn document_kind(self) -> Option<&'static DocumentKind> {
        let entry = registry::entry(self.format()?)?;
        match self {
            Target::SkillMdHead => entry.document(skill_package::HEAD_PATH),
            _ => entry.default_document(),
        }
    }

    /// Whether a corpus case input feeds this target: a JSON document for the reader, a
    /// bundle's own `manifest.json` for the manifest target (an operation's input document
    /// is no manifest), and for the other targets that take documents a document of their
    /// format and kind.
    pub fn seeded_by(self, format: Format, input_name: &str) -> bool {
        match self {
            Target::JsonReader => is_json_format(format, input_name),
            Target::ComposeBundleManifest => {
                self.format() == Some(format) && input_name == self.file_name()
            }
            target if target.takes_documents() => {
                let kind = registry::entry(format).and_then(|entry| entry.document(input_name));
                target.format() == Some(format) && kind == target.document_kind()
            }
            _ => false,
        }
    }

    /// The size limit past which the target's document is refused unread, and its rule.
    /// A tree target has none: its document is one file of a tree, and the tree
    /// invariants do not judge how a file is refused.
    pub fn size_limit(self) -> Option<SizeLimit> {
        if self.is_tree() {
            return None;
        }
        self.document_kind()?.size_limit
    }

    /// The file name the document is checked under.
    pub fn file_name(self) -> &'static str {
        self.document_kind()
            .map_or("input.json", |kind| kind.file_name)
    }

    /// Whether the target's documents are JSON (pointers resolve, serde_json round trips).
    pub fn is_json(self) -> bool {
        self.document_kind().is_none_or(|kind| kind.json)
    }
}

/// What became of one input.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Outcome {
    /// The input was checked and kept every invariant.
    Checked,
    /// The generator could not use the input; a fuzzer should not keep it.
    Unusable,
}

/// The document a structured target builds from fuzz input, or the input itself for the
/// others; `None` when the generator cannot use it. For a tree target this is the
/// manifest; [`tree`] gives the whole tree.
pub fn document(target: Target, data: &[u8]) -> Option<Generated> {
    let mut u = Unstructured::new(data);
    let generated = match target {
        Target::SoulKitStructured => generate::soul_kit::generate(&mut u),
        Target::SoulacyPackageStructured => {
            generate::soulacy::generate(&mut u, generate::soulacy::Document::Package)
        }
        Target::SoulacySidecarStructured => {
            generate::soulacy::generate(&mut u, generate::soulacy::Document::Sidecar)
        }
        Target::SoulMdStructured => generate::soul_md::generate(&mut u),
        Target::SkillPackageStructured => generate::skill::generate(&mut u),
        Target::ComposeBundleTree => {
            generate::bundle::generate(&mut u).map(|(generated, _)| generated)
        }
        Target::JsonReader
        | Target::SoulKit
        | Target::SoulacyPackage
        | Target::SoulacySidecar
        | Target::SoulMd
        | Target::SkillPackage
        | Target::SkillMdHead
        | Target::ComposeBundleManifest => Ok(Generated {
            bytes: data.to_vec(),
            expected: None,
            strict_only: Vec::new(),
            respelled: None,
            summary: "raw input".to_owned(),
        }),
    };
    generated.ok()
}

/// The tree a tree target builds from fuzz input.
pub fn tree(target: Target, data: &[u8]) -> Option<(Generated, Vec<generate::bundle::Entry>)> {
    match target {
        Target::ComposeBundleTree => generate::bundle::generate(&mut Unstructured::new(data)).ok(),
        Target::ComposeBundleManifest => Some((
            Generated {
                bytes: data.to_vec(),
                expected: None,
                strict_only: Vec::new(),
                respelled: None,
                summary: "raw manifest".to_owned(),
            },
            generate::bundle::with_manifest(data),
        )),
        _ => None,
    }
}

/// The reference's verdict, in the spec profile, on what a structured target builds from
/// fuzz input (the document, or for a tree target the whole tree); `None` when the
/// generator cannot use the input or the reference declines it. How much of the valid
/// space a generator reaches is measured with it (`tests/seeded.rs`).
pub fn verdict(target: Target, data: &[u8]) -> Option<Verdict> {
    let format = target.format()?;
    let report = if target.is_tree() {
        let (_, entries) = tree(target, data)?;
        let dir = tempfile::tempdir().ok()?;
        generate::bundle::write(dir.path(), &entries);
        soulcheck_reference::check(format, "validate", Input::Tree(dir.path()), &Context::new())
            .ok()?
    } else {
        let generated = document(target, data)?;
        check(format, target.file_name(), &generated.bytes).ok()?
    };
    (report.not_judged_reason().is_none()).then(|| report.verdict())
}

/// Runs one input through a target and checks every invariant that applies.
pub fn run(target: Target, data: &[u8], meter: Option<&Meter>) -> Result<Outcome, Violation> {
    let Some(format) = target.format() else {
        json_reader(data, meter)?;
        return Ok(Outcome::Checked);
    };
    let with_summary = |summary: &str, violation: Violation| Violation {
        invariant: violation.invariant,
        detail: format!("{} [input: {summary}]", violation.detail),
    };
    if target.is_tree() {
        let Some((generated, entries)) = tree(target, data) else {
            return Ok(Outcome::Unusable);
        };
        check_tree(format, &generated, &entries, meter)
            .map_err(|violation| with_summary(&generated.summary, violation))?;
        return Ok(Outcome::Checked);
    }
    let Some(generated) = document(target, data) else {
        return Ok(Outcome::Unusable);
    };
    check_document(target, format, &generated, meter)
        .map_err(|violation| with_summary(&generated.summary, violation))?;
    Ok(Outcome::Checked)
}

/// Whether a case input of `format` named `name` is a JSON document, by the kind of
/// document the registry makes of the name.
pub fn is_json_format(format: Format, name: &str) -> bool {
    registry::entry(format)
        .and_then(|entry| entry.document(name))
        .is_some_and(|kind| kind.json)
}

/// The reference's report on one document.
pub fn check(format: Format, name: &str, bytes: &[u8]) -> Result<Report, Violation> {
    soulcheck_reference::check(
        format,
        "validate",
        Input::Document { name, bytes },
        &Context::new(),
    )
    .map_err(|unsupported| Violation::new("supported", unsupported.reason))
}

/// [`check`] in the strict profile: what a generated document's
/// [`Generated::strict_only`] diagnostics are held against.
pub fn check_strict(format: Format, name: &str, bytes: &[u8]) -> Result<Report, Violation> {
    let mut context = Context::new();
    context.insert("profile".to_owned(), "strict".into());
    soulcheck_reference::check(
        format,
        "validate",
        Input::Document { name, bytes },
        &context,
    )
    .map_err(|unsupported| Violation::new("supported", unsupported.reason))
}

/// Holds a generated document to its predictions: exactly `expected` in the spec profile
/// and, when a strict-only rule is predicted too, exactly both in the strict profile.
pub fn holds(
    format: Format,
    name: &str,
    generated: &Generated,
    report: &Report,
) -> Result<(), Violation> {
    let Some(expected) = &generated.expected else {
        return Ok(());
    };
    invariants::expectations(report, expected)?;
    if !generated.strict_only.is_empty() {
        let strict = check_strict(format, name, &generated.bytes)?;
        let both: Vec<Expected> = expected
            .iter()
            .chain(&generated.strict_only)
            .cloned()
            .collect();
        invariants::expectations(&strict, &both).map_err(|violation| {
            Violation::new(
                violation.invariant,
                format!("strict profile: {}", violation.detail),
            )
        })?;
    }
    Ok(())
}

/// Runs `body`, returning its result and the bytes it allocated (0 without a meter).
fn measured<T>(meter: Option<&Meter>, body: impl FnOnce() -> T) -> (T, usize) {
    let before = meter.map(Meter::allocated);
    let result = body();
    let allocated = meter.zip(before).map_or(0, |(meter, before)| {
        meter.allocated().saturating_sub(before)
    });
    (result, allocated)
}

fn allocation_bound(target: Target, size: usize, allocated: usize) -> Result<(), Violation> {
    // Only a skill package carries YAML (its heads), and with it the alias budget.
    let base = if target.format() == Some(Format::SkillPackage) {
        ALLOCATION_BASE + YAML_ALIAS_ALLOWANCE
    } else {
        ALLOCATION_BASE
    };
    let bound = ALLOCATION_PER_BYTE
        .saturating_mul(size)
        .saturating_add(base);
    if allocated <= bound {
        return Ok(());
    }
    Err(Violation::new(
        "allocation",
        format!(
            "checking {size} bytes allocated {allocated} bytes, over the bound of {bound} ({ALLOCATION_PER_BYTE} per byte + {base})"
        ),
    ))
}

fn check_document(
    target: Target,
    format: Format,
    generated: &Generated,
    meter: Option<&Meter>,
) -> Result<(), Violation> {
    let bytes = generated.bytes.as_slice();
    let name = target.file_name();
    // The rendering is measured with the check: `soulcheck check` does both.
    let (checked, allocated) = measured(meter, || {
        check(format, name, bytes).map(|report| {
            let rendered = report.render(bytes, name);
            (report, rendered)
        })
    });
    let (report, rendered) = checked?;
    allocation_bound(target, bytes.len(), allocated)?;
    invariants::determinism(&report, &check(format, name, bytes)?)?;
    invariants::rules_of_format(format, &report)?;
    let limit = target.size_limit().map(|limit| limit.max_bytes);
    let oversized = limit.is_some_and(|limit| bytes.len() > limit);
    if let (true, Some(size_limit)) = (oversized, target.size_limit()) {
        invariants::oversized(size_limit.rule.id, &report)?;
        if allocated > OVERSIZE_ALLOCATION {
            return Err(Violation::new(
                "size-limit",
                format!("refusing an oversized input allocated {allocated} bytes"),
            ));
        }
    }
    let parsed = if target.is_json() && !oversized {
        invariants::parse_for_pointers(bytes)
    } else {
        None
    };
    invariants::locations(
        bytes,
        &report,
        parsed.as_ref().map(|document| &document.root),
        true,
    )?;
    // The command line renders every report; rendering must not fail either.
    let _ = report.to_wire();
    if rendered.is_empty() {
        return Err(Violation::new("render", "the rendering is empty"));
    }
    holds(format, name, generated, &report)?;
    let fits = |text: &[u8]| limit.is_none_or(|limit| text.len() <= limit);
    if let Some(respelled) = &generated.respelled {
        if fits(bytes) && fits(respelled) {
            let other = check(format, name, respelled)?;
            invariants::same_by_pointer("respelling", &report, &other, respelled)?;
        }
    }
    // A document past a bound of the reference was not judged, and its re-serialisation
    // (shorter, or shallower) may be: only a judged acceptance must survive it.
    if target.is_json() && report.verdict() == Verdict::Accept && report.not_judged().is_none() {
        round_trip(format, name, bytes, &report, &fits)?;
    }
    Ok(())
}

/// An accepted document re-serialised by serde_json, compact and pretty, gets the same
/// rules at the same pointers (so it is accepted again). Documents serde_json cannot
/// read (numbers beyond its range) are skipped.
fn round_trip(
    format: Format,
    name: &str,
    bytes: &[u8],
    report: &Report,
    fits: &dyn Fn(&[u8]) -> bool,
) -> Result<(), Violation> {
    let Ok(mut value) = serde_json::from_slice::<serde_json::Value>(bytes) else {
        return Ok(());
    };
    unsign_zero(&mut value);
    for text in [
        serde_json::to_vec(&value),
        serde_json::to_vec_pretty(&value),
    ] {
        let Ok(text) = text else { continue };
        if !fits(&text) {
            continue;
        }
        let again = check(format, name, &text)?;
        invariants::same_by_pointer("round-trip", report, &again, &text)?;
    }
    Ok(())
}

/// serde_json reads the integer `-0` as the float -0.0 and writes it back `-0.0`, which an
/// integer member refuses (Go's decoder, which the Soulacy formats follow, reads `-0` as 0
/// and refuses `-0.0`). Zero written back as the integer 0 denotes what `-0` did.
fn unsign_zero(value: &mut serde_json::Value) {
    match value {
        serde_json::Value::Number(number)
            if number
                .as_f64()
                .is_some_and(|float| float == 0.0 && float.is_sign_negative()) =>
        {
            *value = serde_json::Value::from(0);
        }
        serde_json::Value::Array(items) => items.iter_mut().for_each(unsign_zero),
        serde_json::Value::Object(members) => members.values_mut().for_each(unsign_zero),
        _ => {}
    }
}

/// A tree target's invariants: the tree is written into a fresh temporary directory and
/// checked twice.
fn check_tree(
    format: Format,
    generated: &Generated,
    entries: &[generate::bundle::Entry],
    meter: Option<&Meter>,
) -> Result<(), Violation> {
    let dir = tempfile::tempdir().map_err(|error| {
        Violation::new("environment", format!("no temporary directory: {error}"))
    })?;
    generate::bundle::write(dir.path(), entries);
    let size: usize = entries
        .iter()
        .map(|entry| match entry {
            generate::bundle::Entry::File { bytes, .. } => bytes.len(),
            _ => 0,
        })
        .sum();
    let run = || {
        soulcheck_reference::check(format, "validate", Input::Tree(dir.path()), &Context::new())
            .map_err(|unsupported| Violation::new("supported", unsupported.reason))
    };
    let (report, allocated) = measured(meter, run);
    let report = report?;
    allocation_bound(Target::ComposeBundleTree, size, allocated)?;
    invariants::determinism(&report, &run()?)?;
    invariants::rules_of_format(format, &report)?;
    // Diagnostics inside manifest.json are located in it: strip the tree prefix and check
    // them against the manifest's bytes.
    let mut manifest_report = Report::new(format);
    manifest_report.omitted = report.omitted;
    manifest_report.collect = report.collect;
    manifest_report.diagnostics = report
        .diagnostics
        .iter()
        .filter_map(|diagnostic| {
            let pointer = diagnostic.location.pointer.as_deref()?;
            let rest = pointer.strip_prefix("/manifest.json")?;
            if !(rest.is_empty() || rest.starts_with('/')) {
                return None;
            }
            // The manifest as a whole (missing, too large) has no place inside it.
            if rest.is_empty() && diagnostic.location.position.is_none() {
                return None;
            }
            let mut inner = diagnostic.clone();
            inner.location.pointer = (!rest.is_empty()).then(|| rest.to_owned());
            Some(inner)
        })
        .collect();
    let parsed = invariants::parse_for_pointers(&generated.bytes);
    invariants::locations(
        &generated.bytes,
        &manifest_report,
        parsed.as_ref().map(|document| &document.root),
        false,
    )?;
    let _ = report.render(&[], "bundle");
    if let Some(expected) = &generated.expected {
        invariants::expectations(&report, expected)?;
    }
    Ok(())
}

/// The strict JSON reader's invariants.
fn json_reader(data: &[u8], meter: Option<&Meter>) -> Result<(), Violation> {
    let (read, allocated) = measured(meter, || json::read(data, reader::LIMITS));
    allocation_bound(Target::JsonReader, data.len(), allocated)?;
    if read != json::read(data, reader::LIMITS) {
        return Err(Violation::new(
            "determinism",
            "two reads of the same input differ",
        ));
    }
    match &read {
        Ok(document) => reader::well_formed(data, document)?,
        Err(error) => {
            if error.offset().is_some_and(|offset| offset > data.len()) {
                return Err(Violation::new(
                    "location",
                    format!("error offset past the end: {error:?}"),
                ));
            }
        }
    }
    reader::agrees_with_serde(data, &read)?;
    reader::refuses_oversized(data, meter)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every target has its cargo-fuzz binary, `[[bin]]` in `fuzz/Cargo.toml` at
    /// `fuzz_targets/<name>.rs`, and that file exists; and every binary is a target.
    #[test]
    fn every_target_has_its_fuzz_binary() {
        let fuzz = seeds::workspace().join("fuzz");
        let manifest = std::fs::read_to_string(fuzz.join("Cargo.toml")).unwrap();
        let manifest: toml::Table = manifest.parse().unwrap();
        let bins = manifest["bin"].as_array().expect("[[bin]] tables");
        let bin_path = |name: &str| {
            bins.iter()
                .find(|bin| bin["name"].as_str() == Some(name))
                .map(|bin| bin["path"].as_str().expect("a path").to_owned())
        };
        for target in Target::ALL {
            let name = target.name();
            let expected = format!("fuzz_targets/{name}.rs");
            assert_eq!(bin_path(name), Some(expected.clone()), "[[bin]] of {name}");
            assert!(fuzz.join(&expected).is_file(), "{expected} is missing");
        }
        for bin in bins {
            let name = bin["name"].as_str().expect("a name");
            assert!(Target::from_name(name).is_some(), "{name} is no target");
        }
    }

    /// Every format whose entry points take documents is fuzzed on raw bytes by a target
    /// whose inputs are its documents.
    #[test]
    fn every_format_with_documents_has_a_raw_bytes_target() {
        for entry in registry::ENTRIES {
            if entry.documents.is_empty() {
                continue;
            }
            assert!(
                Target::ALL
                    .iter()
                    .any(|target| target.takes_documents() && target.format() == Some(entry.format)),
                "no raw-bytes target for {}",
                entry.format
            );
        }
    }

    /// The targets' file names and JSON-ness, as the registry gives them.
    #[test]
    fn targets_take_their_names_from_the_registry() {
        let names: Vec<(&str, &str, bool)> = Target::ALL
            .iter()
            .map(|target| (target.name(), target.file_name(), target.is_json()))
            .collect();
        assert_eq!(
            names,
            [
                ("json_reader", "input.json", true),
                ("soul_kit", "input.soulkit.json", true),
                ("soul_kit_structured", "input.soulkit.json", true),
                ("soulacy_package", "input.soulacy-agent.json", true),
                (
                    "soulacy_package_structured",
                    "input.soulacy-agent.json",
                    true
                ),
                ("soulacy_sidecar", ".soulacy-package.json", true),
                ("soulacy_sidecar_structured", ".soulacy-package.json", true),
                ("soul_md", "SOUL.md", false),
                ("soul_md_structured", "SOUL.md", false),
                ("skill_package", "package.json", true),
                ("skill_package_structured", "package.json", true),
                ("skill_md_head", "SKILL.md", false),
                ("compose_bundle_manifest", "manifest.json", true),
                ("compose_bundle_tree", "manifest.json", true),
            ]
        );
        let limits: Vec<(&str, usize, &str)> = Target::ALL
            .iter()
            .filter_map(|target| {
                let limit = target.size_limit()?;
                Some((target.name(), limit.max_bytes, limit.rule.id))
            })
            .collect();
        assert_eq!(
            limits,
            [
                ("soul_kit", 262_144, "soul-kit.size.max"),
                ("soul_kit_structured", 262_144, "soul-kit.size.max"),
                ("soulacy_package", 4 << 20, "soulacy-package.size.max"),
                (
                    "soulacy_package_structured",
                    4 << 20,
                    "soulacy-package.size.max"
                ),
                ("soulacy_sidecar", 64 << 10, "soulacy-sidecar.size.max"),
                (
                    "soulacy_sidecar_structured",
                    64 << 10,
                    "soulacy-sidecar.size.max"
                ),
                ("soul_md", 1 << 20, "soul-md.size.max"),
                ("soul_md_structured", 1 << 20, "soul-md.size.max"),
                ("skill_package", 8 << 20, "skill-package.envelope.size"),
                (
                    "skill_package_structured",
                    8 << 20,
                    "skill-package.envelope.size"
                ),
                ("skill_md_head", 262_144, "skill-package.limit.file-bytes"),
            ]
        );
    }
}
