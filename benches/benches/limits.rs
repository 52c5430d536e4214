//! Benchmarks of the reference at the formats' size limits (issue 9), each group timing the
//! reference and baselines on the same bytes:
//! - `from_utf8`: `std::str::from_utf8`, the floor (every byte must be looked at once);
//! - `serde_json_value`: `serde_json::from_slice::<serde_json::Value>`, what a naive
//!   importer does. SOUL.md is not JSON: its second baseline is `pulldown_cmark`, decoding
//!   the text and pulling every CommonMark event from it. A Soulacy package also gets
//!   `serde_json_value_and_digests`, the naive importer that checks the files' SHA-256
//!   digests as the reference must. Directory inputs (a skill directory, a compose bundle)
//!   get baselines that read the same files from disk;
//! - `jsonschema_iter_errors` and `jsonschema_is_valid`: the competitor a Rust user would
//!   pick, jsonschema-rs with our own schemas after `serde_json::from_slice`, collecting
//!   every error or only deciding (see `competitors`), on every JSON input at or under its
//!   limit (a schema cannot see a size limit, so not on the inputs over one).
//!
//! Every input is generated once, in code, before its group runs (see `inputs`), and the
//! reference's verdict on it (and the schema's, where a schema competes) is checked then,
//! so each group times the path it names. Groups:
//! - Soul Kit: the largest content a valid kit holds (every string at its bound, every
//!   count at its maximum, no padding), the same kit padded with spaces to exactly 262144
//!   bytes and one byte over, each in ASCII, raw multi-byte and `\u`-escaped text; and a
//!   kit of 262144 bytes wrong in every field, with hundreds of diagnostics;
//! - skill package envelopes with one file of exactly 256 KiB and with 1 MiB of content in
//!   total across many files (the content limits: nothing is padded), ASCII, multi-byte
//!   and `\u`-escaped, the first two one byte over too; the 1 MiB package as a directory;
//! - SOUL.md at the recommended 4,000-token ceiling and at 1 MiB;
//! - a realistic large Soulacy package, and the largest content a valid one holds (4 MiB
//!   of manifest and inline files), raw and `\u`-escaped;
//! - a realistic large compose bundle, and one whose manifest is 1 MiB of content list;
//! - oversize rejection, one byte over each hard limit and at 64 MiB;
//! - documents at a limit shaped to expose costs that grow faster than the input (the
//!   widest object, repeated keys, the longest array, the most files).
//!
//! Run `cargo bench --bench limits`; the ratio table is printed at the end.

mod competitors;
mod inputs;
mod support;

use std::hint::black_box;
use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime};

use criterion::{BenchmarkId, Criterion, SamplingMode, Throughput};
use sha2::{Digest, Sha256};
use soulcheck_reference::diagnostic::rules;
use soulcheck_reference::{check, Context, Format, Input, Report, Verdict};

use competitors::Schemas;
use inputs::Text;
use support::Ratio;

/// 1 MiB.
const MIB: usize = 1024 * 1024;

/// The oversize input every format is also timed at.
const HUGE: usize = 64 * MIB;

/// The reference's first-error mode: the verdict alone, stopping at the first error, as
/// `jsonschema_is_valid` does ([`soulcheck_reference::first_error`]). Every document group
/// with a schema competitor also times it as `reference_first_error` and prints the ratio
/// `reference_first_error / jsonschema_is_valid`.
const REFERENCE_FIRST_ERROR: Option<FirstError> = Some(first_error_is_valid);

/// The reference's first-error verdict on one document.
fn first_error_is_valid(format: Format, name: &str, bytes: &[u8]) -> bool {
    soulcheck_reference::first_error(format, Input::Document { name, bytes }, &Context::new())
        .expect("the reference validates this format")
        .verdict()
        == Verdict::Accept
}

/// A first-error check: the format, the document's file name and bytes; true when valid.
type FirstError = fn(Format, &str, &[u8]) -> bool;

/// The bench name of jsonschema-rs's verdict-only mode, the first-error mode's competitor.
const IS_VALID: &str = "jsonschema_is_valid";

/// A second baseline for a document.
#[derive(Clone, Copy)]
enum Baseline<'s> {
    /// `serde_json::from_slice::<serde_json::Value>`.
    SerdeJson,
    /// `std::str::from_utf8` then every `pulldown_cmark` event.
    PulldownCmark,
    /// `serde_json::from_slice::<serde_json::Value>`, then the SHA-256 of every
    /// `files[].text` compared with its `sha256`: a naive importer that honours the
    /// package's digests, which the reference checks too.
    SerdeJsonDigests,
    /// `serde_json::from_slice`, then every error of jsonschema-rs with the format's
    /// schema collected.
    JsonSchemaIterErrors(&'s jsonschema::Validator),
    /// `serde_json::from_slice`, then jsonschema-rs's verdict alone.
    JsonSchemaIsValid(&'s jsonschema::Validator),
}

impl<'s> Baseline<'s> {
    fn name(self) -> &'static str {
        match self {
            Baseline::SerdeJson => "serde_json_value",
            Baseline::PulldownCmark => "pulldown_cmark",
            Baseline::SerdeJsonDigests => "serde_json_value_and_digests",
            Baseline::JsonSchemaIterErrors(_) => "jsonschema_iter_errors",
            Baseline::JsonSchemaIsValid(_) => IS_VALID,
        }
    }

    /// The baselines of a JSON document at or under its limit: `serde_json_value`, then
    /// the two jsonschema-rs modes with `format`'s schema, after checking that the schema
    /// decides `bytes` as `valid` says.
    fn json(
        schemas: &'s Schemas,
        format: Format,
        bytes: &[u8],
        valid: bool,
        what: &str,
    ) -> Vec<Baseline<'s>> {
        let validator = schemas.of(format);
        competitors::expect(validator, bytes, valid, what);
        vec![
            Baseline::SerdeJson,
            Baseline::JsonSchemaIterErrors(validator),
            Baseline::JsonSchemaIsValid(validator),
        ]
    }

    /// Runs the baseline; results go through `black_box` so nothing is optimised out.
    fn run(self, bytes: &[u8]) {
        match self {
            Baseline::SerdeJson => {
                black_box(serde_json::from_slice::<serde_json::Value>(bytes).is_ok());
            }
            Baseline::PulldownCmark => {
                if let Ok(text) = std::str::from_utf8(bytes) {
                    let parser =
                        pulldown_cmark::Parser::new_ext(text, pulldown_cmark::Options::empty());
                    black_box(parser.count());
                }
            }
            Baseline::SerdeJsonDigests => {
                let Ok(value) = serde_json::from_slice::<serde_json::Value>(bytes) else {
                    return;
                };
                let files = value["files"].as_array().map(Vec::as_slice);
                let matching = files
                    .unwrap_or_default()
                    .iter()
                    .filter(|file| {
                        let text = file["text"].as_str().unwrap_or_default();
                        let digest = format!("{:x}", Sha256::digest(text.as_bytes()));
                        file["sha256"].as_str() == Some(digest.as_str())
                    })
                    .count();
                black_box(matching);
            }
            Baseline::JsonSchemaIterErrors(validator) => {
                black_box(competitors::iter_errors(validator, bytes));
            }
            Baseline::JsonSchemaIsValid(validator) => {
                black_box(competitors::is_valid(validator, bytes));
            }
        }
    }
}

/// The reference's `validate` on one document.
fn validate(format: Format, name: &str, bytes: &[u8]) -> Report {
    check(
        format,
        "validate",
        Input::Document { name, bytes },
        &Context::new(),
    )
    .expect("the reference validates this format")
}

/// The reference's `validate` on a directory.
fn validate_tree(format: Format, root: &Path) -> Report {
    check(format, "validate", Input::Tree(root), &Context::new())
        .expect("the reference validates this format")
}

/// A measured piece of work.
type Work<'a> = Box<dyn Fn() + 'a>;

/// One group: the reference and its baselines on the same input.
struct Subject<'a> {
    /// Group name, also its directory under criterion's home.
    group: String,
    /// Bytes of input, for `Throughput::Bytes`.
    bytes: usize,
    reference: Work<'a>,
    /// The reference's first-error mode (see `REFERENCE_FIRST_ERROR`), where it competes.
    first_error: Option<Work<'a>>,
    /// Named baselines, in the order they run.
    baselines: Vec<(&'static str, Work<'a>)>,
}

impl<'a> Subject<'a> {
    /// A document checked as `format`, with `from_utf8` and the given baselines.
    fn document(
        group: String,
        format: Format,
        name: &'a str,
        bytes: &'a [u8],
        baselines: &[Baseline<'a>],
    ) -> Subject<'a> {
        let schema_competes = baselines
            .iter()
            .any(|baseline| matches!(baseline, Baseline::JsonSchemaIsValid(_)));
        let first_error =
            REFERENCE_FIRST_ERROR
                .filter(|_| schema_competes)
                .map(|first_error| -> Work<'a> {
                    Box::new(move || {
                        black_box(first_error(format, name, black_box(bytes)));
                    })
                });
        let mut subject = Subject {
            group,
            bytes: bytes.len(),
            reference: Box::new(move || {
                black_box(validate(format, name, black_box(bytes)));
            }),
            first_error,
            baselines: vec![(
                "from_utf8",
                Box::new(move || {
                    black_box(std::str::from_utf8(black_box(bytes)).is_ok());
                }),
            )],
        };
        for &baseline in baselines {
            subject.baselines.push((
                baseline.name(),
                Box::new(move || baseline.run(black_box(bytes))),
            ));
        }
        subject
    }

    /// Times the reference and the baselines, and adds the ratio lines the table prints.
    fn compare(&self, criterion: &mut Criterion, ratios: &mut Vec<Ratio>) {
        let mut group = criterion.benchmark_group(&self.group);
        group.throughput(Throughput::Bytes(self.bytes as u64));
        if self.bytes > MIB / 2 {
            group.sampling_mode(SamplingMode::Flat).sample_size(20);
        }
        group.bench_function("reference", |b| b.iter(|| (self.reference)()));
        if let Some(first_error) = &self.first_error {
            group.bench_function("reference_first_error", |b| b.iter(first_error));
        }
        for (name, work) in &self.baselines {
            group.bench_function(*name, |b| b.iter(work));
        }
        group.finish();
        for (name, _) in &self.baselines {
            ratios.push(Ratio::within(
                format!("{} ({} bytes): reference / {name}", self.group, self.bytes),
                &self.group,
                "reference",
                name,
            ));
        }
        if self.first_error.is_some() {
            ratios.push(Ratio::within(
                format!(
                    "{} ({} bytes): reference_first_error / {IS_VALID}",
                    self.group, self.bytes
                ),
                &self.group,
                "reference_first_error",
                IS_VALID,
            ));
        }
    }
}

/// Asserts what the reference says about a generated input, so a generator bug cannot
/// turn a happy-path benchmark into an early rejection.
fn expect(report: &Report, verdict: Verdict, rules: &[&str], what: &str) {
    let found: Vec<&str> = report.diagnostics.iter().map(|d| d.rule.id).collect();
    assert_eq!(report.verdict(), verdict, "{what}: {found:?}");
    assert_eq!(found, rules, "{what}");
}

/// Asserts that the reference rejects an input meant to be wrong everywhere with at least
/// `at_least` diagnostics (kept or counted as left out by the report's bounds), each kept
/// one of a rule listed (or the bound's notice), so the group times the collection of many
/// errors and not an early stop such as a syntax error.
fn expect_many(report: &Report, at_least: usize, rules: &[&str], what: &str) {
    assert_eq!(report.verdict(), Verdict::Reject, "{what}");
    let found = report.diagnostics.len() + report.omitted.total();
    assert!(
        found >= at_least,
        "{what}: {found} diagnostics, fewer than {at_least}"
    );
    for diagnostic in &report.diagnostics {
        let rule = diagnostic.rule.id;
        assert!(
            rules.contains(&rule) || rule.ends_with(".report.truncated"),
            "{what}: unexpected rule {rule}"
        );
    }
}

/// The Soul Kit: the largest content a valid kit holds, as it is (where the work is) and
/// padded with spaces to the byte limit (where whitespace skipping dominates), one byte
/// over the limit, and a kit at the limit with hundreds of diagnostics.
fn soul_kit(criterion: &mut Criterion, ratios: &mut Vec<Ratio>, schemas: &Schemas) {
    let limit = soulcheck_reference::soul_kit::MAX_BYTES;
    let name = "kit.soulkit.json";
    for style in [Text::Ascii, Text::Multibyte, Text::Escaped] {
        let content = inputs::soul_kit_content(style);
        let report = validate(Format::SoulKit, name, &content);
        expect(&report, Verdict::Accept, &[], "kit content");
        let baselines = Baseline::json(schemas, Format::SoulKit, &content, true, "kit content");
        Subject::document(
            format!("soul-kit-content-{}-{}", style.name(), content.len()),
            Format::SoulKit,
            name,
            &content,
            &baselines,
        )
        .compare(criterion, ratios);
        for total in [limit, limit + 1] {
            let bytes = inputs::soul_kit(style, total);
            let report = validate(Format::SoulKit, name, &bytes);
            // One byte over, the reference rejects on the size alone, which a schema cannot
            // see: only the parsing baselines compete there.
            let baselines = if total > limit {
                let size = [rules::soul_kit::SIZE_MAX.id];
                expect(&report, Verdict::Reject, &size, "kit over the limit");
                vec![Baseline::SerdeJson]
            } else {
                expect(&report, Verdict::Accept, &[], "kit at the limit");
                Baseline::json(schemas, Format::SoulKit, &bytes, true, "kit at the limit")
            };
            Subject::document(
                format!("soul-kit-{}-{total}", style.name()),
                Format::SoulKit,
                name,
                &bytes,
                &baselines,
            )
            .compare(criterion, ratios);
        }
    }
    let bytes = inputs::soul_kit_invalid(limit);
    let report = validate(Format::SoulKit, name, &bytes);
    expect_many(
        &report,
        300,
        &[
            rules::soul_kit::ID_LENGTH.id,
            rules::soul_kit::NAME_LENGTH.id,
            rules::soul_kit::SUMMARY_LENGTH.id,
            rules::soul_kit::VOICE_CORE_LENGTH.id,
            rules::soul_kit::VOICE_TRAITS_COUNT.id,
            rules::soul_kit::VOICE_TRAITS_LENGTH.id,
            rules::soul_kit::VOICE_STYLE_RULES_COUNT.id,
            rules::soul_kit::VOICE_STYLE_RULES_LENGTH.id,
            rules::soul_kit::VOICE_AVOID_COUNT.id,
            rules::soul_kit::VOICE_AVOID_LENGTH.id,
            rules::soul_kit::BEHAVIOR_LENGTH.id,
            rules::soul_kit::ADAPTATIONS_LENGTH.id,
            rules::soul_kit::EXAMPLES_COUNT.id,
            rules::soul_kit::EXAMPLES_SITUATION_LENGTH.id,
            rules::soul_kit::EXAMPLES_USER_LENGTH.id,
            rules::soul_kit::EXAMPLES_ASSISTANT_LENGTH.id,
            rules::soul_kit::EXAMPLES_NOTE_LENGTH.id,
            rules::soul_kit::CHECKS_COUNT.id,
            rules::soul_kit::CHECKS_LENGTH.id,
            rules::soul_kit::STRING_CONTROL.id,
            rules::soul_kit::OBJECT_UNKNOWN_KEY.id,
        ],
        "kit wrong in every field",
    );
    let baselines = Baseline::json(
        schemas,
        Format::SoulKit,
        &bytes,
        false,
        "kit wrong in every field",
    );
    Subject::document(
        format!("soul-kit-invalid-{limit}"),
        Format::SoulKit,
        name,
        &bytes,
        &baselines,
    )
    .compare(criterion, ratios);
}

/// Reads every file below `root`, as a naive importer of a directory does, and returns the
/// bytes read.
fn read_all(files: &[PathBuf]) -> usize {
    files
        .iter()
        .map(|path| std::fs::read(path).map_or(0, |bytes| bytes.len()))
        .sum()
}

/// One skill package envelope of the limits bench.
struct SkillCase {
    /// Which limit it is at: `file` (one file of 256 KiB) or `total` (1 MiB in all).
    shape: &'static str,
    files: inputs::SkillFiles,
    /// One byte over the limit.
    over: bool,
}

/// Skill package envelopes at the content limits (one file of 256 KiB, 1 MiB in total:
/// all of it content, nothing padded) and one byte over, and the 1 MiB package as a
/// directory. Escaped envelopes (every non-ASCII character a `\u` escape) are timed at
/// the limits only: one byte over, the reference stops at the same count either way.
fn skill_package(criterion: &mut Criterion, ratios: &mut Vec<Ratio>, schemas: &Schemas) {
    let file_limit = soulcheck_reference::skill_package::MAX_FILE_BYTES;
    let total_limit = soulcheck_reference::skill_package::MAX_TOTAL_BYTES;
    let name = "package.json";
    for style in [Text::Ascii, Text::Multibyte, Text::Escaped] {
        let mut cases = vec![
            SkillCase {
                shape: "file",
                files: inputs::skill_single_file(style, file_limit),
                over: false,
            },
            SkillCase {
                shape: "total",
                files: inputs::skill_many_files(style, total_limit),
                over: false,
            },
        ];
        if style != Text::Escaped {
            cases.push(SkillCase {
                shape: "file",
                files: inputs::skill_single_file(style, file_limit + 1),
                over: true,
            });
            cases.push(SkillCase {
                shape: "total",
                files: inputs::skill_many_files(style, total_limit + 1),
                over: true,
            });
        }
        for case in cases {
            let (measure, rule) = if case.shape == "file" {
                let largest = case.files.iter().map(|(_, content)| content.len()).max();
                (
                    largest.unwrap_or_default(),
                    rules::skill_package::LIMIT_FILE_BYTES.id,
                )
            } else {
                let content = case.files.iter().map(|(_, content)| content.len()).sum();
                (content, rules::skill_package::LIMIT_TOTAL_BYTES.id)
            };
            let mut bytes = inputs::skill_envelope(&case.files);
            if style == Text::Escaped {
                bytes = inputs::escape_non_ascii(&bytes);
            }
            let report = validate(Format::SkillPackage, name, &bytes);
            let baselines = if case.over {
                expect(&report, Verdict::Reject, &[rule], "skill package over");
                vec![Baseline::SerdeJson]
            } else {
                let what = "skill package at the limit";
                expect(&report, Verdict::Accept, &[], what);
                Baseline::json(schemas, Format::SkillPackage, &bytes, true, what)
            };
            Subject::document(
                format!("skill-package-{}-{}-{measure}", case.shape, style.name()),
                Format::SkillPackage,
                name,
                &bytes,
                &baselines,
            )
            .compare(criterion, ratios);
        }
    }
    // The 1 MiB package as a skill directory: the reference walks and reads the tree; the
    // baseline reads the same files.
    let files = inputs::skill_many_files(Text::Multibyte, total_limit);
    let dir = tempfile::tempdir().expect("a temporary directory");
    inputs::write_skill_tree(dir.path(), &files);
    let paths: Vec<PathBuf> = files
        .iter()
        .map(|(path, _)| dir.path().join(path))
        .collect();
    let report = validate_tree(Format::SkillPackage, dir.path());
    expect(
        &report,
        Verdict::Accept,
        &[],
        "skill directory at the limit",
    );
    let root = dir.path();
    let paths = &paths;
    Subject {
        group: format!("skill-directory-total-multibyte-{total_limit}"),
        bytes: total_limit,
        reference: Box::new(move || {
            black_box(validate_tree(Format::SkillPackage, root));
        }),
        first_error: None,
        baselines: vec![
            (
                "read_files",
                Box::new(move || {
                    black_box(read_all(paths));
                }),
            ),
            (
                "read_files_from_utf8",
                Box::new(move || {
                    let valid = paths.iter().all(|path| {
                        std::fs::read(path).is_ok_and(|bytes| std::str::from_utf8(&bytes).is_ok())
                    });
                    black_box(valid);
                }),
            ),
        ],
    }
    .compare(criterion, ratios);
}

fn soul_md(criterion: &mut Criterion, ratios: &mut Vec<Ratio>) {
    let ceiling = soulcheck_reference::soul_md::RECOMMENDED_MAX_TOKENS
        * soulcheck_reference::soul_md::BYTES_PER_TOKEN;
    for total in [ceiling, MIB] {
        let bytes = inputs::soul_md(total);
        let report = validate(Format::SoulMd, "SOUL.md", &bytes);
        let warnings: &[&str] = if total > ceiling {
            &[rules::soul_md::SIZE_TOKENS.id]
        } else {
            &[]
        };
        expect(&report, Verdict::Accept, warnings, "SOUL.md");
        Subject::document(
            format!("soul-md-{total}"),
            Format::SoulMd,
            "SOUL.md",
            &bytes,
            &[Baseline::PulldownCmark],
        )
        .compare(criterion, ratios);
    }
}

/// The Soulacy package: a realistic large one (1.1 MB, 128 files) and the largest content
/// a valid one holds (4 MiB of manifest and inline files: the format bounds no string or
/// count), raw and `\u`-escaped.
fn soulacy_package(criterion: &mut Criterion, ratios: &mut Vec<Ratio>, schemas: &Schemas) {
    let name = "agent.soulacy-agent.json";
    let limit = soulcheck_reference::soulacy::MAX_PACKAGE_BYTES;
    let packages = [
        (
            "soulacy-package-large".to_owned(),
            inputs::soulacy_package(128),
        ),
        (
            format!("soulacy-package-content-{limit}"),
            inputs::soulacy_package_filled(limit, false),
        ),
        (
            format!("soulacy-package-content-escaped-{limit}"),
            inputs::soulacy_package_filled(limit, true),
        ),
    ];
    for (group, bytes) in &packages {
        let report = validate(Format::SoulacyPackage, name, bytes);
        expect(&report, Verdict::Accept, &[], group);
        let mut baselines = Baseline::json(schemas, Format::SoulacyPackage, bytes, true, group);
        baselines.insert(1, Baseline::SerdeJsonDigests);
        Subject::document(
            group.clone(),
            Format::SoulacyPackage,
            name,
            bytes,
            &baselines,
        )
        .compare(criterion, ratios);
    }
}

/// A compose bundle is a directory: the reference verifies the tree (walking every entry,
/// reading the manifest and the trace, resolving the entry points). The baselines work on
/// the manifest's bytes in memory (parsing, and validating with the manifest's schema),
/// read and parse the manifest and the trace, and also list every entry of the tree as a
/// naive importer would. Two bundles: a realistic large one (600 content entries) and one
/// whose manifest is as large as the limit allows, a content list of 1 MiB.
fn compose_bundle(criterion: &mut Criterion, ratios: &mut Vec<Ratio>, schemas: &Schemas) {
    let limit = soulcheck_reference::compose_bundle::MAX_JSON_BYTES;
    let bundles = [
        (
            "compose-bundle-large".to_owned(),
            inputs::Content::Entries(600),
        ),
        (
            format!("compose-bundle-content-{limit}"),
            inputs::Content::FillTo(limit),
        ),
    ];
    let validator = schemas.of(Format::ComposeBundle);
    for (group, content) in bundles {
        let dir = tempfile::tempdir().expect("a temporary directory");
        let manifest = inputs::compose_bundle(dir.path(), 60, content);
        let report = validate_tree(Format::ComposeBundle, dir.path());
        expect(&report, Verdict::Accept, &[], &group);
        competitors::expect(validator, &manifest, true, &group);
        let root = dir.path();
        let manifest = manifest.as_slice();
        let json_files = [root.join("manifest.json"), root.join("trace.json")];
        let json_files = &json_files;
        let in_memory = [
            Baseline::SerdeJson,
            Baseline::JsonSchemaIterErrors(validator),
            Baseline::JsonSchemaIsValid(validator),
        ];
        let mut baselines: Vec<(&'static str, Work<'_>)> = vec![(
            "from_utf8",
            Box::new(move || {
                black_box(std::str::from_utf8(black_box(manifest)).is_ok());
            }),
        )];
        for baseline in in_memory {
            baselines.push((
                baseline.name(),
                Box::new(move || baseline.run(black_box(manifest))),
            ));
        }
        baselines.push((
            "read_serde_json_value",
            Box::new(move || {
                for path in json_files {
                    let bytes = std::fs::read(path).unwrap_or_default();
                    Baseline::SerdeJson.run(&bytes);
                }
            }),
        ));
        baselines.push((
            "walk_read_serde_json_value",
            Box::new(move || {
                black_box(walk(root));
                for path in json_files {
                    let bytes = std::fs::read(path).unwrap_or_default();
                    Baseline::SerdeJson.run(&bytes);
                }
            }),
        ));
        Subject {
            group,
            bytes: manifest.len(),
            reference: Box::new(move || {
                black_box(validate_tree(Format::ComposeBundle, root));
            }),
            first_error: None,
            baselines,
        }
        .compare(criterion, ratios);
    }
}

/// What the reference answers one byte past a format's size limit, in the spec profile.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum PastLimit {
    /// The limit is the spec's: the input is rejected, in both profiles.
    Rejects,
    /// The limit is a bound of the reference's own: the spec profile does not judge the
    /// input (the strict profile rejects it).
    NotJudged,
}

/// One document format with a size limit, as the oversize groups time it.
struct Oversize {
    /// The group's name after `oversize-`.
    label: &'static str,
    format: Format,
    /// The file name the reference sees.
    name: &'static str,
    /// The limit in bytes.
    limit: usize,
    /// The start of the document, padded past the limit.
    seed: &'static [u8],
    /// What the spec profile answers past the limit.
    past: PastLimit,
}

/// Answering oversize input must not grow with the input: each format with a size limit
/// is timed one byte over it and at 64 MiB, with `from_utf8` on the same bytes for
/// contrast (a check that reads the input grows with it). Each input is first held to
/// what each profile answers: the spec's own limits reject in both; past a bound of the
/// reference's the spec profile declines and the strict profile rejects. A skill directory
/// is bounded by its total: 1 MiB + 1 byte spread over files, and one file of 64 MiB.
fn oversize(criterion: &mut Criterion, ratios: &mut Vec<Ratio>) {
    let documents = [
        Oversize {
            label: "soul-kit",
            format: Format::SoulKit,
            name: "kit.soulkit.json",
            limit: soulcheck_reference::soul_kit::MAX_BYTES,
            seed: b"{\"format\": \"soulware.soul-kit\"}\n",
            past: PastLimit::Rejects,
        },
        Oversize {
            label: "soulacy-package",
            format: Format::SoulacyPackage,
            name: "agent.soulacy-agent.json",
            limit: soulcheck_reference::soulacy::MAX_PACKAGE_BYTES,
            seed: b"{\"schema_version\": \"soulacy.agent.package/v2\"}\n",
            past: PastLimit::NotJudged,
        },
        Oversize {
            label: "soulacy-sidecar",
            format: Format::SoulacySidecar,
            name: ".soulacy-package.json",
            limit: soulcheck_reference::soulacy::MAX_SIDECAR_BYTES,
            seed: b"{\"schema_version\": \"soulacy.agent.package/v2\"}\n",
            past: PastLimit::NotJudged,
        },
        Oversize {
            label: "skill-package-envelope",
            format: Format::SkillPackage,
            name: "package.json",
            limit: soulcheck_reference::skill_package::MAX_ENVELOPE_BYTES,
            seed: b"{\"version\": 1, \"kind\": \"asset-package\"}\n",
            past: PastLimit::NotJudged,
        },
        Oversize {
            label: "skill-package-head",
            format: Format::SkillPackage,
            name: "SKILL.md",
            limit: soulcheck_reference::skill_package::MAX_FILE_BYTES,
            seed: b"---\nname: big\ndescription: A big head.\n---\n# Big\n",
            past: PastLimit::Rejects,
        },
    ];
    let mut strict = Context::new();
    strict.insert("profile".to_owned(), "strict".into());
    for Oversize {
        label,
        format,
        name,
        limit,
        seed,
        past,
    } in documents
    {
        let group_name = format!("oversize-{label}");
        let mut group = criterion.benchmark_group(&group_name);
        group.sampling_mode(SamplingMode::Flat).sample_size(10);
        for size in [limit + 1, HUGE] {
            let bytes = inputs::padded_to(seed.to_vec(), size);
            let report = validate(format, name, &bytes);
            let strict_report = check(
                format,
                "validate",
                Input::Document {
                    name,
                    bytes: &bytes,
                },
                &strict,
            )
            .expect("the reference validates this format");
            for (profile, report) in [("spec", &report), ("strict", &strict_report)] {
                assert_eq!(
                    report.diagnostics.len(),
                    1,
                    "{group_name}, {profile} profile: only the size rule"
                );
            }
            assert_eq!(
                strict_report.verdict(),
                Verdict::Reject,
                "{group_name}, strict profile"
            );
            match past {
                PastLimit::Rejects => {
                    assert_eq!(
                        report.verdict(),
                        Verdict::Reject,
                        "{group_name}, spec profile"
                    );
                }
                PastLimit::NotJudged => assert!(
                    report.not_judged_reason().is_some(),
                    "{group_name}, spec profile: not judged past the bound"
                ),
            }
            group.throughput(Throughput::Bytes(size as u64));
            group.bench_with_input(BenchmarkId::new("reference", size), &bytes, |b, bytes| {
                b.iter(|| black_box(validate(format, name, black_box(bytes))))
            });
            group.bench_with_input(BenchmarkId::new("from_utf8", size), &bytes, |b, bytes| {
                b.iter(|| black_box(std::str::from_utf8(black_box(bytes)).is_ok()))
            });
        }
        group.finish();
        constant_time_ratios(ratios, &group_name, limit + 1);
    }

    // A skill directory over the total limit: many files, and one huge file.
    let total_limit = soulcheck_reference::skill_package::MAX_TOTAL_BYTES;
    let group_name = "oversize-skill-directory";
    let many = tempfile::tempdir().expect("a temporary directory");
    inputs::write_skill_tree(
        many.path(),
        &inputs::skill_many_files(Text::Ascii, total_limit + 1),
    );
    let huge = tempfile::tempdir().expect("a temporary directory");
    let head = inputs::skill_head();
    let mut files = vec![("SKILL.md".to_owned(), head.clone())];
    files.push(("assets/huge.txt".to_owned(), "z".repeat(HUGE - head.len())));
    inputs::write_skill_tree(huge.path(), &files);
    let mut group = criterion.benchmark_group(group_name);
    group.sampling_mode(SamplingMode::Flat).sample_size(10);
    for (size, root) in [(total_limit + 1, many.path()), (HUGE, huge.path())] {
        let report = validate_tree(Format::SkillPackage, root);
        assert_eq!(report.verdict(), Verdict::Reject, "{group_name}");
        let paths = tree_files(root);
        group.throughput(Throughput::Bytes(size as u64));
        group.bench_function(BenchmarkId::new("reference", size), |b| {
            b.iter(|| black_box(validate_tree(Format::SkillPackage, root)))
        });
        group.bench_function(BenchmarkId::new("read_files", size), |b| {
            b.iter(|| black_box(read_all(&paths)))
        });
    }
    group.finish();
    ratios.push(Ratio {
        label: format!(
            "{group_name}: reference at 64 MiB / at {} bytes",
            total_limit + 1
        ),
        numerator: (group_name.to_owned(), format!("reference/{HUGE}")),
        denominator: (
            group_name.to_owned(),
            format!("reference/{}", total_limit + 1),
        ),
    });
    ratios.push(Ratio {
        label: format!(
            "{group_name}: read_files at 64 MiB / at {} bytes (contrast)",
            total_limit + 1
        ),
        numerator: (group_name.to_owned(), format!("read_files/{HUGE}")),
        denominator: (
            group_name.to_owned(),
            format!("read_files/{}", total_limit + 1),
        ),
    });
}

/// Visits every entry below `root` without following links, as a naive importer listing
/// a bundle does, and returns how many it found.
fn walk(root: &Path) -> usize {
    let mut found = 0;
    let mut pending = vec![root.to_owned()];
    while let Some(dir) = pending.pop() {
        let Ok(entries) = std::fs::read_dir(&dir) else {
            continue;
        };
        for entry in entries.flatten() {
            found += 1;
            let path = entry.path();
            if std::fs::symlink_metadata(&path).is_ok_and(|metadata| metadata.is_dir()) {
                pending.push(path);
            }
        }
    }
    found
}

/// Every regular file below `root`.
fn tree_files(root: &Path) -> Vec<PathBuf> {
    let mut files = Vec::new();
    let mut pending = vec![root.to_owned()];
    while let Some(dir) = pending.pop() {
        for entry in std::fs::read_dir(&dir).expect("a readable directory") {
            let path = entry.expect("a directory entry").path();
            if path.is_dir() {
                pending.push(path);
            } else {
                files.push(path);
            }
        }
    }
    files
}

/// The ratio lines of an oversize group: the reference at 64 MiB over one byte past the
/// limit (constant time: about 1), and the same for `from_utf8` (linear, for contrast).
fn constant_time_ratios(ratios: &mut Vec<Ratio>, group: &str, over: usize) {
    for bench in ["reference", "from_utf8"] {
        let contrast = if bench == "from_utf8" {
            " (contrast)"
        } else {
            ""
        };
        ratios.push(Ratio {
            label: format!("{group}: {bench} at 64 MiB / at {over} bytes{contrast}"),
            numerator: (group.to_owned(), format!("{bench}/{HUGE}")),
            denominator: (group.to_owned(), format!("{bench}/{over}")),
        });
    }
}

/// A document of the adversarial groups.
struct Shaped {
    group: String,
    format: Format,
    /// The document's file name.
    name: &'static str,
    bytes: Vec<u8>,
    /// Whether the reference (and the schema) accept it.
    valid: bool,
}

/// Documents at a limit shaped to expose costs that grow faster than the input: the
/// widest object (distinct keys, one key repeated, every key repeated once after all the
/// others), the longest array, and a package with as many file entries as fit. All but
/// the last are rejected (the package of many empty files is valid), by the reference and
/// the schemas alike; what matters is that the reference stays within a small factor of
/// parsing the same bytes. They are also where a validator that collects every error
/// meets the most: jsonschema-rs competes on them as on the other inputs.
fn adversarial(criterion: &mut Criterion, ratios: &mut Vec<Ratio>, schemas: &Schemas) {
    let kit = soulcheck_reference::soul_kit::MAX_BYTES;
    let package = soulcheck_reference::soulacy::MAX_PACKAGE_BYTES;
    let kit_case = |shape: &str, bytes: Vec<u8>| Shaped {
        group: format!("{shape}-soul-kit-{kit}"),
        format: Format::SoulKit,
        name: "kit.soulkit.json",
        bytes,
        valid: false,
    };
    let package_case = |shape: &str, bytes: Vec<u8>, valid: bool| Shaped {
        group: format!("{shape}-soulacy-package-{package}"),
        format: Format::SoulacyPackage,
        name: "agent.soulacy-agent.json",
        bytes,
        valid,
    };
    let cases = [
        kit_case(
            "wide-distinct",
            inputs::wide_object(kit, inputs::Keys::Distinct),
        ),
        kit_case("wide-same", inputs::wide_object(kit, inputs::Keys::Same)),
        kit_case("wide-twice", inputs::wide_object(kit, inputs::Keys::Twice)),
        kit_case("long-array", inputs::long_array("checks", kit)),
        package_case(
            "wide-distinct",
            inputs::wide_object(package, inputs::Keys::Distinct),
            false,
        ),
        package_case(
            "wide-same",
            inputs::wide_object(package, inputs::Keys::Same),
            false,
        ),
        package_case(
            "wide-twice",
            inputs::wide_object(package, inputs::Keys::Twice),
            false,
        ),
        package_case("long-array", inputs::long_array("files", package), false),
        package_case("many-files", inputs::many_files_package(package), true),
    ];
    for case in &cases {
        let report = validate(case.format, case.name, &case.bytes);
        let verdict = if case.valid {
            Verdict::Accept
        } else {
            Verdict::Reject
        };
        assert_eq!(report.verdict(), verdict, "{}", case.group);
        let baselines = Baseline::json(schemas, case.format, &case.bytes, case.valid, &case.group);
        Subject::document(
            case.group.clone(),
            case.format,
            case.name,
            &case.bytes,
            &baselines,
        )
        .compare(criterion, ratios);
    }
}

fn main() {
    let started = SystemTime::now() - Duration::from_secs(1);
    let mut criterion = support::criterion();
    let mut ratios = Vec::new();
    let schemas = Schemas::load();
    soul_kit(&mut criterion, &mut ratios, &schemas);
    skill_package(&mut criterion, &mut ratios, &schemas);
    soul_md(&mut criterion, &mut ratios);
    soulacy_package(&mut criterion, &mut ratios, &schemas);
    compose_bundle(&mut criterion, &mut ratios, &schemas);
    oversize(&mut criterion, &mut ratios);
    adversarial(&mut criterion, &mut ratios, &schemas);
    criterion.final_summary();
    support::print_ratios("Reference / baseline ratios", &ratios, started);
}
