//! Benchmarks of the reference at the formats' size limits (issue 9), each group timing the
//! reference and two baselines on the same bytes:
//! - `from_utf8`: `std::str::from_utf8`, the floor (every byte must be looked at once);
//! - `serde_json_value`: `serde_json::from_slice::<serde_json::Value>`, what a naive
//!   importer does; for SOUL.md the second baseline is `pulldown_cmark` instead, decoding
//!   the text and pulling every CommonMark event from it, since SOUL.md is not JSON.
//!
//! Every input is generated once, in code, before its group runs (see `inputs`). Groups:
//! Soul Kit at exactly 262144 bytes and one byte over, in ASCII, raw multi-byte and escaped
//! text; SOUL.md at the recommended 4,000-token ceiling and at 1 MiB; a realistic large
//! Soulacy package; oversize rejection at one byte over each limit and at 64 MiB; and
//! documents at the limit built to expose costs that grow faster than the input (the
//! widest object, the longest array, the most files).
//!
//! Run `cargo bench --bench limits`; the ratio table is printed at the end.

mod inputs;
mod support;

use std::hint::black_box;
use std::time::{Duration, SystemTime};

use criterion::{BenchmarkId, Criterion, SamplingMode, Throughput};
use soulcheck::diagnostic::rules;
use soulcheck::{check, Context, Format, Input, Report, Verdict};

use inputs::Text;
use sha2::{Digest, Sha256};
use support::Ratio;

/// 1 MiB.
const MIB: usize = 1024 * 1024;

/// The oversize input every format is also timed at.
const HUGE: usize = 64 * MIB;

/// A baseline besides `from_utf8`.
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

    /// Runs the baseline; the result is passed to `black_box` so nothing is optimised out.
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
fn validate(format: Format, name: &str, bytes: &[u8], context: &Context) -> Report {
    check(format, "validate", Input::Document { name, bytes }, context)
        .expect("the reference validates this format")
}

/// One document a group times.
struct Subject<'a> {
    /// Group name, also its directory under criterion's home.
    group: String,
    format: Format,
    /// File name handed to the reference.
    name: &'a str,
    bytes: Vec<u8>,
    /// The baselines besides `from_utf8`.
    baselines: &'a [Baseline],
}

/// Times the reference and the baselines on the subject's bytes, and adds the ratio
/// lines the table prints for it.
fn compare(criterion: &mut Criterion, subject: &Subject<'_>, ratios: &mut Vec<Ratio>) {
    let context = Context::new();
    let mut group = criterion.benchmark_group(&subject.group);
    group.throughput(Throughput::Bytes(subject.bytes.len() as u64));
    if subject.bytes.len() > MIB / 2 {
        group.sampling_mode(SamplingMode::Flat).sample_size(20);
    }
    let bytes = subject.bytes.as_slice();
    group.bench_function("reference", |b| {
        b.iter(|| {
            black_box(validate(
                subject.format,
                subject.name,
                black_box(bytes),
                &context,
            ))
        })
    });
    group.bench_function("from_utf8", |b| {
        b.iter(|| black_box(std::str::from_utf8(black_box(bytes)).is_ok()))
    });
    for baseline in subject.baselines {
        group.bench_function(baseline.name(), |b| {
            b.iter(|| baseline.run(black_box(bytes)))
        });
    }
    group.finish();
    let label = format!("{} ({} bytes)", subject.group, subject.bytes.len());
    for baseline in subject.baselines {
        ratios.push(Ratio::within(
            format!("{label}: reference / {}", baseline.name()),
            &subject.group,
            "reference",
            baseline.name(),
        ));
    }
    ratios.push(Ratio::within(
        format!("{label}: reference / from_utf8"),
        &subject.group,
        "reference",
        "from_utf8",
    ));
}

/// Asserts what the reference says about a generated input, so a generator bug cannot
/// turn a happy-path benchmark into an early rejection.
fn expect(report: &Report, verdict: Verdict, rules: &[&str], what: &str) {
    let found: Vec<&str> = report.diagnostics.iter().map(|d| d.rule.id).collect();
    assert_eq!(report.verdict(), verdict, "{what}: {found:?}");
    assert_eq!(found, rules, "{what}");
}

fn soul_kit(criterion: &mut Criterion, ratios: &mut Vec<Ratio>) {
    let limit = soulcheck::soul_kit::MAX_BYTES;
    for style in [Text::Ascii, Text::Multibyte, Text::Escaped] {
        for (total, over) in [(limit, false), (limit + 1, true)] {
            let bytes = inputs::soul_kit(style, total);
            let report = validate(Format::SoulKit, "kit.soulkit.json", &bytes, &Context::new());
            if over {
                expect(
                    &report,
                    Verdict::Reject,
                    &[rules::soul_kit::SIZE_MAX.id],
                    "kit over the limit",
                );
            } else {
                expect(&report, Verdict::Accept, &[], "kit at the limit");
            }
            let subject = Subject {
                group: format!("soul-kit-{}-{total}", style.name()),
                format: Format::SoulKit,
                name: "kit.soulkit.json",
                bytes,
                baselines: &[Baseline::SerdeJson],
            };
            compare(criterion, &subject, ratios);
        }
    }
}

fn soul_md(criterion: &mut Criterion, ratios: &mut Vec<Ratio>) {
    let ceiling = soulcheck::soul_md::RECOMMENDED_MAX_TOKENS * soulcheck::soul_md::BYTES_PER_TOKEN;
    for total in [ceiling, MIB] {
        let bytes = inputs::soul_md(total);
        let report = validate(Format::SoulMd, "SOUL.md", &bytes, &Context::new());
        let warnings: &[&str] = if total > ceiling {
            &[rules::soul_md::SIZE_TOKENS.id]
        } else {
            &[]
        };
        expect(&report, Verdict::Accept, warnings, "SOUL.md");
        let subject = Subject {
            group: format!("soul-md-{total}"),
            format: Format::SoulMd,
            name: "SOUL.md",
            bytes,
            baselines: &[Baseline::PulldownCmark],
        };
        compare(criterion, &subject, ratios);
    }
}

fn soulacy_package(criterion: &mut Criterion, ratios: &mut Vec<Ratio>) {
    let bytes = inputs::soulacy_package(128);
    let report = validate(
        Format::SoulacyPackage,
        "agent.soulacy-agent.json",
        &bytes,
        &Context::new(),
    );
    expect(&report, Verdict::Accept, &[], "Soulacy package");
    let subject = Subject {
        group: "soulacy-package-large".to_owned(),
        format: Format::SoulacyPackage,
        name: "agent.soulacy-agent.json",
        bytes,
        baselines: &[Baseline::SerdeJson, Baseline::SerdeJsonDigests],
    };
    compare(criterion, &subject, ratios);
}

/// Rejection of oversize input must not grow with the input: each format with a size
/// limit is timed one byte over it and at 64 MiB, with `from_utf8` on the same bytes for
/// contrast (a check that reads the input grows with it).
fn oversize(criterion: &mut Criterion, ratios: &mut Vec<Ratio>) {
    let formats: [(Format, &str, usize, &[u8]); 3] = [
        (
            Format::SoulKit,
            "kit.soulkit.json",
            soulcheck::soul_kit::MAX_BYTES,
            b"{\"format\": \"soulware.soul-kit\"}\n",
        ),
        (
            Format::SoulacyPackage,
            "agent.soulacy-agent.json",
            soulcheck::soulacy::MAX_PACKAGE_BYTES,
            b"{\"schema_version\": \"soulacy.agent.package/v2\"}\n",
        ),
        (
            Format::SoulacySidecar,
            ".soulacy-package.json",
            soulcheck::soulacy::MAX_SIDECAR_BYTES,
            b"{\"schema_version\": \"soulacy.agent.package/v2\"}\n",
        ),
    ];
    let context = Context::new();
    for (format, name, limit, seed) in formats {
        let group_name = format!("oversize-{}", format.name());
        let mut group = criterion.benchmark_group(&group_name);
        group.sampling_mode(SamplingMode::Flat).sample_size(10);
        let sizes = [limit + 1, HUGE];
        for size in sizes {
            let bytes = inputs::padded_to(seed.to_vec(), size);
            let report = validate(format, name, &bytes, &context);
            assert_eq!(report.verdict(), Verdict::Reject);
            assert!(
                report
                    .diagnostics
                    .iter()
                    .all(|d| d.rule.id.ends_with(".size.max")),
                "{group_name}: only the size rule"
            );
            group.throughput(Throughput::Bytes(size as u64));
            group.bench_with_input(BenchmarkId::new("reference", size), &bytes, |b, bytes| {
                b.iter(|| black_box(validate(format, name, black_box(bytes), &context)))
            });
            group.bench_with_input(BenchmarkId::new("from_utf8", size), &bytes, |b, bytes| {
                b.iter(|| black_box(std::str::from_utf8(black_box(bytes)).is_ok()))
            });
        }
        group.finish();
        ratios.push(Ratio {
            label: format!("{group_name}: reference at 64 MiB / at {} bytes", limit + 1),
            numerator: (group_name.clone(), format!("reference/{HUGE}")),
            denominator: (group_name.clone(), format!("reference/{}", limit + 1)),
        });
        ratios.push(Ratio {
            label: format!(
                "{group_name}: from_utf8 at 64 MiB / at {} bytes (contrast)",
                limit + 1
            ),
            numerator: (group_name.clone(), format!("from_utf8/{HUGE}")),
            denominator: (group_name.clone(), format!("from_utf8/{}", limit + 1)),
        });
    }
}

/// Documents at a limit shaped to expose costs that grow faster than the input: the
/// widest object (distinct keys, and one key repeated), the longest array, and a package
/// with as many file entries as fit. All are rejected; what matters is that the reference
/// stays within a small factor of parsing the same bytes.
fn adversarial(criterion: &mut Criterion, ratios: &mut Vec<Ratio>) {
    let kit = soulcheck::soul_kit::MAX_BYTES;
    let package = soulcheck::soulacy::MAX_PACKAGE_BYTES;
    let cases: Vec<(String, Format, &str, Vec<u8>)> = vec![
        (
            format!("wide-distinct-soul-kit-{kit}"),
            Format::SoulKit,
            "kit.soulkit.json",
            inputs::wide_object(kit, true),
        ),
        (
            format!("wide-repeated-soul-kit-{kit}"),
            Format::SoulKit,
            "kit.soulkit.json",
            inputs::wide_object(kit, false),
        ),
        (
            format!("long-array-soul-kit-{kit}"),
            Format::SoulKit,
            "kit.soulkit.json",
            inputs::long_array("checks", kit),
        ),
        (
            format!("wide-distinct-soulacy-package-{package}"),
            Format::SoulacyPackage,
            "agent.soulacy-agent.json",
            inputs::wide_object(package, true),
        ),
        (
            format!("wide-repeated-soulacy-package-{package}"),
            Format::SoulacyPackage,
            "agent.soulacy-agent.json",
            inputs::wide_object(package, false),
        ),
        (
            format!("long-array-soulacy-package-{package}"),
            Format::SoulacyPackage,
            "agent.soulacy-agent.json",
            inputs::long_array("files", package),
        ),
        (
            format!("many-files-soulacy-package-{package}"),
            Format::SoulacyPackage,
            "agent.soulacy-agent.json",
            inputs::many_files_package(package),
        ),
    ];
    for (group, format, name, bytes) in cases {
        assert_eq!(
            bytes.len(),
            if format == Format::SoulKit {
                kit
            } else {
                package
            }
        );
        let subject = Subject {
            group,
            format,
            name,
            bytes,
            baselines: &[Baseline::SerdeJson],
        };
        compare(criterion, &subject, ratios);
    }
}

fn main() {
    let started = SystemTime::now() - Duration::from_secs(1);
    let mut criterion = support::criterion();
    let mut ratios = Vec::new();
    soul_kit(&mut criterion, &mut ratios);
    soul_md(&mut criterion, &mut ratios);
    soulacy_package(&mut criterion, &mut ratios);
    oversize(&mut criterion, &mut ratios);
    adversarial(&mut criterion, &mut ratios);
    criterion.final_summary();
    support::print_ratios("Reference / baseline ratios", &ratios, started);
}
