//! Benchmarks of the reference at the formats' size limits (issue 9), each group timing the
//! reference and baselines on the same bytes:
//! - `from_utf8`: `std::str::from_utf8`, the floor (every byte must be looked at once);
//! - `serde_json_value`: `serde_json::from_slice::<serde_json::Value>`, what a naive
//!   importer does. SOUL.md is not JSON: its second baseline is `pulldown_cmark`, decoding
//!   the text and pulling every CommonMark event from it. A Soulacy package also gets
//!   `serde_json_value_and_digests`, the naive importer that checks the files' SHA-256
//!   digests as the reference must. Directory inputs (a skill directory, a compose bundle)
//!   get baselines that read the same files from disk.
//!
//! Every input is generated once, in code, before its group runs (see `inputs`), and the
//! reference's verdict on it is checked then, so each group times the path it names.
//! Groups:
//! - Soul Kit at exactly 262144 bytes and one byte over, in ASCII, raw multi-byte and
//!   escaped text;
//! - skill package envelopes with one file of exactly 256 KiB and with 1 MiB of content in
//!   total across many files, ASCII and multi-byte, each one byte over too; the 1 MiB
//!   package as a directory;
//! - SOUL.md at the recommended 4,000-token ceiling and at 1 MiB;
//! - a realistic large Soulacy package and compose bundle;
//! - oversize rejection, one byte over each hard limit and at 64 MiB;
//! - documents at a limit shaped to expose costs that grow faster than the input (the
//!   widest object, repeated keys, the longest array, the most files).
//!
//! Run `cargo bench --bench limits`; the ratio table is printed at the end.

mod inputs;
mod support;

use std::hint::black_box;
use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime};

use criterion::{BenchmarkId, Criterion, SamplingMode, Throughput};
use sha2::{Digest, Sha256};
use soulcheck_reference::diagnostic::rules;
use soulcheck_reference::{check, Context, Format, Input, Report, Verdict};

use inputs::Text;
use support::Ratio;

/// 1 MiB.
const MIB: usize = 1024 * 1024;

/// The oversize input every format is also timed at.
const HUGE: usize = 64 * MIB;

/// A second baseline for a document.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Baseline {
    /// `serde_json::from_slice::<serde_json::Value>`.
    SerdeJson,
    /// `std::str::from_utf8` then every `pulldown_cmark` event.
    PulldownCmark,
    /// `serde_json::from_slice::<serde_json::Value>`, then the SHA-256 of every
    /// `files[].text` compared with its `sha256`: a naive importer that honours the
    /// package's digests, which the reference checks too.
    SerdeJsonDigests,
}

impl Baseline {
    fn name(self) -> &'static str {
        match self {
            Baseline::SerdeJson => "serde_json_value",
            Baseline::PulldownCmark => "pulldown_cmark",
            Baseline::SerdeJsonDigests => "serde_json_value_and_digests",
        }
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
        baselines: &[Baseline],
    ) -> Subject<'a> {
        let mut subject = Subject {
            group,
            bytes: bytes.len(),
            reference: Box::new(move || {
                black_box(validate(format, name, black_box(bytes)));
            }),
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
    }
}

/// Asserts what the reference says about a generated input, so a generator bug cannot
/// turn a happy-path benchmark into an early rejection.
fn expect(report: &Report, verdict: Verdict, rules: &[&str], what: &str) {
    let found: Vec<&str> = report.diagnostics.iter().map(|d| d.rule.id).collect();
    assert_eq!(report.verdict(), verdict, "{what}: {found:?}");
    assert_eq!(found, rules, "{what}");
}

fn soul_kit(criterion: &mut Criterion, ratios: &mut Vec<Ratio>) {
    let limit = soulcheck_reference::soul_kit::MAX_BYTES;
    for style in [Text::Ascii, Text::Multibyte, Text::Escaped] {
        for total in [limit, limit + 1] {
            let bytes = inputs::soul_kit(style, total);
            let report = validate(Format::SoulKit, "kit.soulkit.json", &bytes);
            if total > limit {
                let size = [rules::soul_kit::SIZE_MAX.id];
                expect(&report, Verdict::Reject, &size, "kit over the limit");
            } else {
                expect(&report, Verdict::Accept, &[], "kit at the limit");
            }
            Subject::document(
                format!("soul-kit-{}-{total}", style.name()),
                Format::SoulKit,
                "kit.soulkit.json",
                &bytes,
                &[Baseline::SerdeJson],
            )
            .compare(criterion, ratios);
        }
    }
}

/// Reads every file below `root`, as a naive importer of a directory does, and returns the
/// bytes read.
fn read_all(files: &[PathBuf]) -> usize {
    files
        .iter()
        .map(|path| std::fs::read(path).map_or(0, |bytes| bytes.len()))
        .sum()
}

fn skill_package(criterion: &mut Criterion, ratios: &mut Vec<Ratio>) {
    let file_limit = soulcheck_reference::skill_package::MAX_FILE_BYTES;
    let total_limit = soulcheck_reference::skill_package::MAX_TOTAL_BYTES;
    let name = "package.json";
    for style in [Text::Ascii, Text::Multibyte] {
        let cases = [
            ("file", inputs::skill_single_file(style, file_limit), false),
            (
                "file",
                inputs::skill_single_file(style, file_limit + 1),
                true,
            ),
            ("total", inputs::skill_many_files(style, total_limit), false),
            (
                "total",
                inputs::skill_many_files(style, total_limit + 1),
                true,
            ),
        ];
        for (shape, files, over) in cases {
            let content: usize = files.iter().map(|(_, content)| content.len()).sum();
            let largest = files.iter().map(|(_, content)| content.len()).max();
            let bytes = inputs::skill_envelope(&files);
            let report = validate(Format::SkillPackage, name, &bytes);
            let measure = if shape == "file" {
                (
                    largest.unwrap_or_default(),
                    rules::skill_package::LIMIT_FILE_BYTES.id,
                )
            } else {
                (content, rules::skill_package::LIMIT_TOTAL_BYTES.id)
            };
            if over {
                expect(&report, Verdict::Reject, &[measure.1], "skill package over");
            } else {
                expect(&report, Verdict::Accept, &[], "skill package at the limit");
            }
            Subject::document(
                format!("skill-package-{shape}-{}-{}", style.name(), measure.0),
                Format::SkillPackage,
                name,
                &bytes,
                &[Baseline::SerdeJson],
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

fn soulacy_package(criterion: &mut Criterion, ratios: &mut Vec<Ratio>) {
    let name = "agent.soulacy-agent.json";
    let bytes = inputs::soulacy_package(128);
    let report = validate(Format::SoulacyPackage, name, &bytes);
    expect(&report, Verdict::Accept, &[], "Soulacy package");
    Subject::document(
        "soulacy-package-large".to_owned(),
        Format::SoulacyPackage,
        name,
        &bytes,
        &[Baseline::SerdeJson, Baseline::SerdeJsonDigests],
    )
    .compare(criterion, ratios);
}

/// A compose bundle is a directory: the reference verifies the tree (walking every entry,
/// reading the manifest and the trace, resolving the entry points). The baselines work on
/// the manifest's bytes in memory, read and parse the manifest and the trace, and also
/// list every entry of the tree as a naive importer would.
fn compose_bundle(criterion: &mut Criterion, ratios: &mut Vec<Ratio>) {
    let dir = tempfile::tempdir().expect("a temporary directory");
    let manifest = inputs::compose_bundle(dir.path(), 60, 600);
    let report = validate_tree(Format::ComposeBundle, dir.path());
    expect(&report, Verdict::Accept, &[], "compose bundle");
    let root = dir.path();
    let manifest = manifest.as_slice();
    let json_files = [root.join("manifest.json"), root.join("trace.json")];
    let json_files = &json_files;
    Subject {
        group: "compose-bundle-large".to_owned(),
        bytes: manifest.len(),
        reference: Box::new(move || {
            black_box(validate_tree(Format::ComposeBundle, root));
        }),
        baselines: vec![
            (
                "from_utf8",
                Box::new(move || {
                    black_box(std::str::from_utf8(black_box(manifest)).is_ok());
                }),
            ),
            (
                "serde_json_value",
                Box::new(move || Baseline::SerdeJson.run(black_box(manifest))),
            ),
            (
                "read_serde_json_value",
                Box::new(move || {
                    for path in json_files {
                        let bytes = std::fs::read(path).unwrap_or_default();
                        Baseline::SerdeJson.run(&bytes);
                    }
                }),
            ),
            (
                "walk_read_serde_json_value",
                Box::new(move || {
                    black_box(walk(root));
                    for path in json_files {
                        let bytes = std::fs::read(path).unwrap_or_default();
                        Baseline::SerdeJson.run(&bytes);
                    }
                }),
            ),
        ],
    }
    .compare(criterion, ratios);
}

/// Rejection of oversize input must not grow with the input: each format with a hard
/// limit is timed one byte over it and at 64 MiB, with `from_utf8` on the same bytes for
/// contrast (a check that reads the input grows with it). A skill directory is bounded by
/// its total: 1 MiB + 1 byte spread over files, and one file of 64 MiB.
fn oversize(criterion: &mut Criterion, ratios: &mut Vec<Ratio>) {
    let documents: [(&str, Format, &str, usize, &[u8]); 5] = [
        (
            "soul-kit",
            Format::SoulKit,
            "kit.soulkit.json",
            soulcheck_reference::soul_kit::MAX_BYTES,
            b"{\"format\": \"soulware.soul-kit\"}\n",
        ),
        (
            "soulacy-package",
            Format::SoulacyPackage,
            "agent.soulacy-agent.json",
            soulcheck_reference::soulacy::MAX_PACKAGE_BYTES,
            b"{\"schema_version\": \"soulacy.agent.package/v2\"}\n",
        ),
        (
            "soulacy-sidecar",
            Format::SoulacySidecar,
            ".soulacy-package.json",
            soulcheck_reference::soulacy::MAX_SIDECAR_BYTES,
            b"{\"schema_version\": \"soulacy.agent.package/v2\"}\n",
        ),
        (
            "skill-package-envelope",
            Format::SkillPackage,
            "package.json",
            soulcheck_reference::skill_package::MAX_ENVELOPE_BYTES,
            b"{\"version\": 1, \"kind\": \"asset-package\"}\n",
        ),
        (
            "skill-package-head",
            Format::SkillPackage,
            "SKILL.md",
            soulcheck_reference::skill_package::MAX_FILE_BYTES,
            b"---\nname: big\ndescription: A big head.\n---\n# Big\n",
        ),
    ];
    for (label, format, name, limit, seed) in documents {
        let group_name = format!("oversize-{label}");
        let mut group = criterion.benchmark_group(&group_name);
        group.sampling_mode(SamplingMode::Flat).sample_size(10);
        for size in [limit + 1, HUGE] {
            let bytes = inputs::padded_to(seed.to_vec(), size);
            let report = validate(format, name, &bytes);
            assert_eq!(report.verdict(), Verdict::Reject, "{group_name}");
            assert_eq!(
                report.diagnostics.len(),
                1,
                "{group_name}: only the size rule"
            );
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

/// Documents at a limit shaped to expose costs that grow faster than the input: the
/// widest object (distinct keys, one key repeated, every key repeated once after all the
/// others), the longest array, and a package with as many file entries as fit. All are
/// rejected; what matters is that the reference stays within a small factor of parsing
/// the same bytes.
fn adversarial(criterion: &mut Criterion, ratios: &mut Vec<Ratio>) {
    let kit = soulcheck_reference::soul_kit::MAX_BYTES;
    let package = soulcheck_reference::soulacy::MAX_PACKAGE_BYTES;
    let kit_name = "kit.soulkit.json";
    let package_name = "agent.soulacy-agent.json";
    let cases: Vec<(String, Format, &str, Vec<u8>)> = vec![
        (
            format!("wide-distinct-soul-kit-{kit}"),
            Format::SoulKit,
            kit_name,
            inputs::wide_object(kit, inputs::Keys::Distinct),
        ),
        (
            format!("wide-same-soul-kit-{kit}"),
            Format::SoulKit,
            kit_name,
            inputs::wide_object(kit, inputs::Keys::Same),
        ),
        (
            format!("wide-twice-soul-kit-{kit}"),
            Format::SoulKit,
            kit_name,
            inputs::wide_object(kit, inputs::Keys::Twice),
        ),
        (
            format!("long-array-soul-kit-{kit}"),
            Format::SoulKit,
            kit_name,
            inputs::long_array("checks", kit),
        ),
        (
            format!("wide-distinct-soulacy-package-{package}"),
            Format::SoulacyPackage,
            package_name,
            inputs::wide_object(package, inputs::Keys::Distinct),
        ),
        (
            format!("wide-same-soulacy-package-{package}"),
            Format::SoulacyPackage,
            package_name,
            inputs::wide_object(package, inputs::Keys::Same),
        ),
        (
            format!("wide-twice-soulacy-package-{package}"),
            Format::SoulacyPackage,
            package_name,
            inputs::wide_object(package, inputs::Keys::Twice),
        ),
        (
            format!("long-array-soulacy-package-{package}"),
            Format::SoulacyPackage,
            package_name,
            inputs::long_array("files", package),
        ),
        (
            format!("many-files-soulacy-package-{package}"),
            Format::SoulacyPackage,
            package_name,
            inputs::many_files_package(package),
        ),
    ];
    for (group, format, name, bytes) in &cases {
        Subject::document(group.clone(), *format, name, bytes, &[Baseline::SerdeJson])
            .compare(criterion, ratios);
    }
}

fn main() {
    let started = SystemTime::now() - Duration::from_secs(1);
    let mut criterion = support::criterion();
    let mut ratios = Vec::new();
    soul_kit(&mut criterion, &mut ratios);
    skill_package(&mut criterion, &mut ratios);
    soul_md(&mut criterion, &mut ratios);
    soulacy_package(&mut criterion, &mut ratios);
    compose_bundle(&mut criterion, &mut ratios);
    oversize(&mut criterion, &mut ratios);
    adversarial(&mut criterion, &mut ratios);
    criterion.final_summary();
    support::print_ratios("Reference / baseline ratios", &ratios, started);
}
