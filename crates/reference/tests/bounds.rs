//! The reference's bounds under attack (see the "Bounds" section of the crate's
//! documentation): each test rebuilds an input that once cost far more than its size,
//! runs the whole of what `soulcheck check` does with it in process (the check, the JSON
//! report and the text rendering) and asserts that the bytes allocated, the output and
//! the time stay within a stated constant times the input plus a stated base.
//!
//! Allocation is counted by `stats_alloc`, installed as this binary's allocator; the count
//! is process-wide, so every test holds one lock from start to end ([`serial`]): no other
//! test allocates while one measures. The bytes allocated
//! in all bound the peak memory from above. Times are ceilings for an unoptimised build on
//! a busy machine, tens of times what the bounded code takes; the attacks took minutes to
//! hours, or ran out of memory, before.

use std::path::Path;
use std::sync::{Mutex, MutexGuard};
use std::time::{Duration, Instant};

use soulcheck_reference::diagnostic::{MAX_DIAGNOSTICS, MAX_DIAGNOSTIC_TEXT};
use soulcheck_reference::{check, Context, Format, Input, Report, Severity, Verdict};
use stats_alloc::{Region, StatsAlloc, INSTRUMENTED_SYSTEM};

#[global_allocator]
static ALLOCATOR: &StatsAlloc<std::alloc::System> = &INSTRUMENTED_SYSTEM;

/// One test at a time: the allocation count is process-wide.
static ONE_AT_A_TIME: Mutex<()> = Mutex::new(());

/// Held for the whole of a test, so that no other test allocates while it measures.
fn serial() -> MutexGuard<'static, ()> {
    ONE_AT_A_TIME
        .lock()
        .unwrap_or_else(|poison| poison.into_inner())
}

/// Bytes a check (with both renderings) may allocate per input byte: the parse keeps a
/// node per value, the reader a record per duplicate.
const ALLOCATION_PER_BYTE: usize = 64;

/// Bytes a check may allocate whatever the input: the kept diagnostics (at most
/// 256 KiB of text and one more diagnostic), their renderings and fixed costs.
const ALLOCATION_BASE: usize = 16 << 20;

/// Output bytes (JSON report or text rendering) per input byte: the one diagnostic allowed
/// past the text budget may quote the input about twice (pointer and message).
const OUTPUT_PER_BYTE: usize = 4;

/// Output bytes whatever the input: 100 diagnostics, each with at most a 4 KiB excerpt,
/// and 256 KiB of pointers and messages, escaped.
const OUTPUT_BASE: usize = 4 << 20;

/// Wall-time ceiling of one attack (unoptimised build, shared machine).
const CEILING: Duration = Duration::from_secs(30);

/// What checking one input cost.
struct Measured {
    report: Report,
    allocated: usize,
    json_bytes: usize,
    text_bytes: usize,
    elapsed: Duration,
}

/// Runs `input` as `soulcheck check` would (the check, `--json` and the text rendering),
/// counting what it allocates, in the spec profile.
fn measure(format: Format, input: Input<'_>, source: &[u8]) -> Measured {
    measure_in(&Context::new(), format, input, source)
}

/// A context asking for the strict profile (`--profile strict`).
fn strict() -> Context {
    let mut context = Context::new();
    context.insert("profile".to_owned(), "strict".into());
    context
}

/// [`measure`] in the profile `context` asks for.
fn measure_in(context: &Context, format: Format, input: Input<'_>, source: &[u8]) -> Measured {
    let region = Region::new(ALLOCATOR);
    let started = Instant::now();
    let report = check(format, "validate", input, context).expect("supported");
    let json = serde_json::to_string_pretty(&report.to_wire()).expect("serialisable");
    let text = report.render(source, "input");
    let elapsed = started.elapsed();
    let allocated = region.change().bytes_allocated;
    Measured {
        json_bytes: json.len(),
        text_bytes: text.len(),
        report,
        allocated,
        elapsed,
    }
}

/// [`measure_in`] on a JSON document of `format` named `name`: a bundle's manifest is
/// checked as the one file of a bundle tree, any other as a document.
fn measure_json(context: &Context, format: Format, name: &str, bytes: &[u8]) -> Measured {
    if format == Format::ComposeBundle {
        let dir = tempfile::tempdir().expect("temp dir");
        std::fs::write(dir.path().join(name), bytes).expect("write");
        measure_in(context, format, Input::Tree(dir.path()), &[])
    } else {
        measure_in(context, format, Input::Document { name, bytes }, bytes)
    }
}

fn document(format: Format, name: &str, bytes: &[u8]) -> Measured {
    measure(format, Input::Document { name, bytes }, bytes)
}

/// Asserts the bounds for an input of `size` bytes.
fn assert_bounded(what: &str, size: usize, measured: &Measured) {
    let allocation = ALLOCATION_PER_BYTE * size + ALLOCATION_BASE;
    let output = OUTPUT_PER_BYTE * size + OUTPUT_BASE;
    eprintln!(
        "{what}: {size} bytes in, {} allocated, {} B JSON, {} B text, {:?}",
        measured.allocated, measured.json_bytes, measured.text_bytes, measured.elapsed
    );
    assert!(
        measured.allocated <= allocation,
        "{what}: allocated {} bytes, over {allocation}",
        measured.allocated
    );
    assert!(
        measured.json_bytes <= output,
        "{what}: {} bytes of JSON, over {output}",
        measured.json_bytes
    );
    assert!(
        measured.text_bytes <= output,
        "{what}: {} bytes of text, over {output}",
        measured.text_bytes
    );
    assert!(
        measured.elapsed <= CEILING,
        "{what}: took {:?}",
        measured.elapsed
    );
    // The report keeps its own bounds: 100 diagnostics and the notice at most.
    assert!(
        measured.report.diagnostics.len() <= MAX_DIAGNOSTICS + 1,
        "{what}"
    );
}

/// The report was cut: it ends with the format's notice, rejects, and the diagnostics it
/// kept hold at most the text budget plus one diagnostic.
fn assert_truncated(what: &str, report: &Report, notice: &str) {
    let last = report.diagnostics.last().expect("diagnostics");
    assert_eq!(last.rule.id, notice, "{what}");
    assert_eq!(last.severity, Severity::Warning, "{what}");
    assert!(report.omitted.total() > 0, "{what}");
    assert_eq!(report.verdict(), Verdict::Reject, "{what}");
    let kept = &report.diagnostics[..report.diagnostics.len() - 1];
    let text_before_last: usize = kept[..kept.len() - 1]
        .iter()
        .map(|d| d.message.len() + d.location.pointer.as_ref().map_or(0, String::len))
        .sum();
    assert!(text_before_last < MAX_DIAGNOSTIC_TEXT, "{what}");
}

/// `{"<half the size in k>": {"a": 0, "a": 0, ...}}`: every duplicate's pointer holds
/// the long key, so an eager pointer per duplicate costs the size squared over twelve.
fn duplicates_under_a_long_key(size: usize) -> Vec<u8> {
    let key = "k".repeat(size / 2);
    let mut text = format!("{{\"{key}\": {{\"a\": 0");
    while text.len() + 8 <= size {
        text.push_str(",\"a\":0");
    }
    text.push_str("}}");
    text.into_bytes()
}

/// Item 1: duplicate keys under a long key, in every JSON format. At 256 KiB a Soul Kit
/// aborted at a 4 GiB cap (about 27 GB extrapolated); 64 KiB gave 431 MB of JSON.
#[test]
fn duplicates_under_a_long_key_cost_the_input_once() {
    let _serial = serial();
    let formats = [
        (Format::SoulKit, "input.soulkit.json", 262_144, "soul-kit"),
        (
            Format::SoulacyPackage,
            "input.soulacy-agent.json",
            262_144,
            "soulacy-package",
        ),
        (
            Format::SoulacySidecar,
            ".soulacy-package.json",
            65_536,
            "soulacy-sidecar",
        ),
        (
            Format::SkillPackage,
            "package.json",
            262_144,
            "skill-package",
        ),
        (
            Format::ComposeBundle,
            "manifest.json",
            262_144,
            "compose-bundle",
        ),
    ];
    for (format, name, size, prefix) in formats {
        let bytes = duplicates_under_a_long_key(size);
        // Duplicate keys are the spec's rule in a Soul Kit only; elsewhere they are refused
        // in the strict profile alone, so the report fills up there (and the spec profile,
        // which reads the last occurrence, must stay bounded all the same).
        for (profile, context) in [("spec", Context::new()), ("strict", strict())] {
            let measured = measure_json(&context, format, name, &bytes);
            let what = format!("{format} with duplicates under a long key, {profile} profile");
            assert_bounded(&what, bytes.len(), &measured);
            if profile == "strict" || format == Format::SoulKit {
                assert_truncated(
                    &what,
                    &measured.report,
                    &format!("{prefix}.report.truncated"),
                );
            } else {
                // Read leniently, the document breaks only the spec's rules, none repeated.
                assert_eq!(measured.report.verdict(), Verdict::Reject, "{what}");
                assert!(measured
                    .report
                    .diagnostics
                    .iter()
                    .all(|d| !d.rule.id.ends_with(".json.duplicate-key")));
            }
        }
    }
}

/// Item 1 at the largest limit: an 8 MiB skill package envelope, the same attack.
#[test]
fn duplicates_under_a_long_key_at_the_envelope_limit() {
    let _serial = serial();
    let bytes = duplicates_under_a_long_key(8 * 1024 * 1024);
    // Read leniently (the spec profile), the envelope lacks its members and nothing more.
    let measured = document(Format::SkillPackage, "package.json", &bytes);
    assert_bounded("8 MiB envelope, spec profile", bytes.len(), &measured);
    assert_eq!(measured.report.verdict(), Verdict::Reject);
    // The strict profile refuses every repeated key, so its report fills up.
    let measured = measure_in(
        &strict(),
        Format::SkillPackage,
        Input::Document {
            name: "package.json",
            bytes: &bytes,
        },
        &bytes,
    );
    assert_bounded("8 MiB envelope", bytes.len(), &measured);
    assert_truncated(
        "8 MiB envelope",
        &measured.report,
        "skill-package.report.truncated",
    );
}

/// Item 2: many diagnostics on one long line, rendered as text. A one-line 512 KiB Soulacy
/// package took 53 s, 1 MiB did not finish in 200 s: the renderer scanned the whole line
/// for a lone CR once per diagnostic.
#[test]
fn many_diagnostics_on_one_long_line_render_in_bounded_time() {
    let _serial = serial();
    let size = 1024 * 1024;
    let mut text = String::from("{\"x\": 0");
    while text.len() + 7 <= size {
        text.push_str(",\"x\":0");
    }
    text.push('}');
    // Repeated keys are refused in the strict profile only, so that is where the line
    // gathers a full report.
    let measured = measure_in(
        &strict(),
        Format::SoulacyPackage,
        Input::Document {
            name: "input.soulacy-agent.json",
            bytes: text.as_bytes(),
        },
        text.as_bytes(),
    );
    assert_bounded("one-line Soulacy package", text.len(), &measured);
    assert_truncated(
        "one-line Soulacy package",
        &measured.report,
        "soulacy-package.report.truncated",
    );
}

/// Item 4: SOUL.md has a read bound. 64 MiB of `## Identity` lines gave 2.5 GB RSS and
/// 1.1 GB of output; past 1 MiB the document is now not read (not judged in the spec
/// profile, refused in the strict profile). At 1 MiB the same
/// lines are repeated sections (warned of in the strict profile only) and unlabelled
/// Personality bullets draw a warning each in the spec profile: either way the report
/// keeps 100 and counts the rest.
#[test]
fn soul_md_is_bounded() {
    let _serial = serial();
    let max = soulcheck_reference::soul_md::MAX_BYTES;
    let fill =
        |head: &str, line: &str| format!("{head}{}", line.repeat((max - head.len()) / line.len()));
    let title = "# T\n";
    let line = "## Identity\n";
    let sections = fill(title, line);
    let bullets = fill("# T\n## Identity\nI am T.\n## Personality\n", "- calm\n");
    let attacks = [
        (
            "repeated sections at the limit, spec profile",
            &sections,
            Context::new(),
            false,
        ),
        (
            "repeated sections at the limit, strict profile",
            &sections,
            strict(),
            true,
        ),
        (
            "unlabelled bullets at the limit",
            &bullets,
            Context::new(),
            true,
        ),
    ];
    for (what, text, context, truncated) in attacks {
        let measured = measure_in(
            &context,
            Format::SoulMd,
            Input::Document {
                name: "SOUL.md",
                bytes: text.as_bytes(),
            },
            text.as_bytes(),
        );
        assert_bounded(what, text.len(), &measured);
        let report = &measured.report;
        let notice = report.diagnostics.last().map(|d| d.rule.id);
        if truncated {
            assert_eq!(notice, Some("soul-md.report.truncated"), "{what}");
        } else {
            assert_ne!(notice, Some("soul-md.report.truncated"), "{what}");
        }
        // Only warnings were left out: the verdict is the one every diagnostic gives.
        assert_eq!(report.omitted.errors, 0, "{what}");
        assert_eq!(report.verdict(), Verdict::Accept, "{what}");
    }

    let huge = format!("{title}{}", line.repeat(64 * 1024 * 1024 / line.len()));
    let measured = document(Format::SoulMd, "SOUL.md", huge.as_bytes());
    // Refused without a parse: next to nothing is allocated.
    assert_bounded("64 MiB SOUL.md", 0, &measured);
    let rules: Vec<&str> = measured
        .report
        .diagnostics
        .iter()
        .map(|d| d.rule.id)
        .collect();
    assert_eq!(rules, ["soul-md.size.max"]);
    // The spec sets SOUL.md no hard limit: past the reference's bound the spec profile
    // does not judge the document, and the strict profile refuses it.
    assert_eq!(
        measured.report.not_judged().map(|d| d.rule.id),
        Some("soul-md.size.max")
    );
    assert_eq!(measured.report.verdict(), Verdict::Accept);
    let measured = measure_in(
        &strict(),
        Format::SoulMd,
        Input::Document {
            name: "SOUL.md",
            bytes: huge.as_bytes(),
        },
        huge.as_bytes(),
    );
    assert_bounded("64 MiB SOUL.md, strict profile", 0, &measured);
    assert_eq!(measured.report.verdict(), Verdict::Reject);
    let measured = {
        let region = Region::new(ALLOCATOR);
        let report = check(
            Format::SoulMd,
            "fingerprint",
            Input::Document {
                name: "SOUL.md",
                bytes: huge.as_bytes(),
            },
            &Context::new(),
        )
        .expect("supported");
        (report, region.change().bytes_allocated)
    };
    assert!(measured.1 < 64 * 1024, "{}", measured.1);
    assert_eq!(measured.0.value, None);
}

/// `count` symlinks at the end of a path about `depth` bytes long (at most about 3,900),
/// under `root`; the length of a symlink's path relative to `root`.
#[cfg(unix)]
fn symlinks_under_a_deep_path(root: &Path, depth: usize, count: usize) -> usize {
    let mut deep = root.to_path_buf();
    let mut relative = 0;
    let budget = depth.min(3_900usize.saturating_sub(root.as_os_str().len()));
    for _ in 0..budget / 241 {
        deep.push("d".repeat(240));
        relative += 241;
    }
    std::fs::create_dir_all(&deep).expect("deep directories");
    for index in 0..count {
        std::os::unix::fs::symlink("target", deep.join(format!("l{index:05}"))).expect("symlink");
    }
    relative + 6
}

/// Item 5: trees. 30,000 symlinks under a deep path gave 462 MB of JSON for a bundle and
/// 126 MB for a skill directory. Now a tree over 10,000 entries gets one diagnostic and is
/// not checked further (not judged in the spec profile, refused in the strict one), and a
/// tree at the limit keeps 100 diagnostics.
#[cfg(unix)]
#[test]
fn tree_walks_are_bounded() {
    let _serial = serial();
    use soulcheck_reference::MAX_TREE_ENTRIES;
    let trees = [
        (
            Format::ComposeBundle,
            "manifest.json",
            "{\"format\": \"agent-compose.bundle\"}",
            "compose-bundle.report.truncated",
        ),
        (
            Format::SkillPackage,
            "SKILL.md",
            "---\nname: n\ndescription: d\n---\nBody\n",
            "skill-package.report.truncated",
        ),
    ];
    for (format, head, content, notice) in trees {
        // The attack (a deep path, three times the limit), then a tree just under the
        // limit whose every entry is bad. The second path is shorter only to keep this
        // unoptimised build quick: each path is normalised several times (linear work).
        for (depth, count) in [(3_900, 30_000), (1_000, MAX_TREE_ENTRIES - 40)] {
            let dir = tempfile::tempdir().expect("temp dir");
            std::fs::write(dir.path().join(head), content).expect("write");
            let path = symlinks_under_a_deep_path(dir.path(), depth, count);
            for (profile, context) in [("spec", Context::new()), ("strict", strict())] {
                let measured = measure_in(&context, format, Input::Tree(dir.path()), &[]);
                let what = format!("{format} tree of {count} symlinks, {profile} profile");
                // A tree's size is that of the paths it names, which an equivalent
                // envelope would spell out (the skill checker keeps each walked path,
                // twice); the walk reads at most MAX_TREE_ENTRIES of them.
                let size = count.min(MAX_TREE_ENTRIES) * path;
                assert_bounded(&what, size, &measured);
                // The output does not grow with the tree at all.
                assert!(measured.json_bytes <= OUTPUT_BASE, "{what}");
                assert!(measured.text_bytes <= OUTPUT_BASE, "{what}");
                let report = &measured.report;
                if count > MAX_TREE_ENTRIES {
                    // One diagnostic of the notice rule, and nothing walked past it: the
                    // spec sets no entry limit, so the spec profile does not judge the
                    // tree (a warning) and the strict profile refuses it (an error).
                    let found: Vec<(&str, Severity)> = report
                        .diagnostics
                        .iter()
                        .map(|d| (d.rule.id, d.severity))
                        .collect();
                    if profile == "spec" {
                        assert_eq!(found, [(notice, Severity::Warning)], "{what}");
                        assert!(report.not_judged().is_some(), "{what}");
                    } else {
                        assert_eq!(found, [(notice, Severity::Error)], "{what}");
                        assert_eq!(report.verdict(), Verdict::Reject, "{what}");
                    }
                } else {
                    assert_truncated(&what, report, notice);
                }
            }
        }
    }
}

/// Issue 26, item 7: a skill directory at the entry cap, 9,900 empty files under a path of
/// about 4,000 characters, allocates at most 6 bytes per byte of the paths it names (the
/// size of the equivalent envelope's paths). It allocated 398 MB here before (10.4 per
/// byte; 246 MB in the tree), each path copied about ten times; now 202 MB: the
/// normalised key borrows the path where normalising changes nothing (two copies fewer),
/// is shared by the duplicate index and the sorted list (one fewer), and `key/` is
/// compared without being built (one fewer). What is left is the relative path, the path
/// on disk and the copy the system call opening it needs, each once.
#[cfg(unix)]
#[test]
fn a_skill_directory_at_the_entry_cap_allocates_little_per_path() {
    let _serial = serial();
    const FILES: usize = 9_900;
    let dir = tempfile::tempdir().expect("temp dir");
    std::fs::write(
        dir.path().join("SKILL.md"),
        "---\nname: n\ndescription: d\n---\nBody\n",
    )
    .expect("write");
    let mut deep = dir.path().to_path_buf();
    let mut relative = 0;
    while relative + 241 < 4_000usize.saturating_sub(dir.path().as_os_str().len()) {
        deep.push("d".repeat(240));
        relative += 241;
    }
    std::fs::create_dir_all(&deep).expect("deep directories");
    for index in 0..FILES {
        std::fs::write(deep.join(format!("f{index:04}")), "").expect("file");
    }
    let measured = measure(Format::SkillPackage, Input::Tree(dir.path()), &[]);
    let paths = FILES * (relative + 6);
    eprintln!(
        "skill directory of {FILES} empty files, {paths} bytes of paths: {} allocated, {:?}",
        measured.allocated, measured.elapsed
    );
    assert!(
        measured.allocated <= 6 * paths,
        "allocated {} bytes for {paths} bytes of paths",
        measured.allocated
    );
    assert_eq!(measured.report.verdict(), Verdict::Accept);
}

/// The shapes that cost a JSON reader most per input byte, `size` bytes each: an array of
/// short `\u`-escaped strings (a decoded buffer each), an object of tiny distinct members
/// (a node and a key each) and legal nesting 60 deep, of arrays and of objects, repeated
/// (a node, or a member, per level). Each
/// sits under a member no format names, inside an object a format reads whole.
fn worst_shapes(size: usize) -> Vec<(&'static str, Vec<u8>)> {
    let fill = |open: &str, item: &dyn Fn(usize) -> String, close: &str| {
        let mut text = format!("{{\"x\": {open}");
        let mut index = 0;
        loop {
            let next = item(index);
            if text.len() + next.len() + 1 + close.len() + 1 > size {
                break;
            }
            if index > 0 {
                text.push(',');
            }
            text.push_str(&next);
            index += 1;
        }
        text.push_str(close);
        text.push('}');
        text.into_bytes()
    };
    let deep = format!("{}0{}", "[".repeat(60), "]".repeat(60));
    let deep_objects = format!("{}0{}", "{\"a\":".repeat(60), "}".repeat(60));
    vec![
        (
            "short escaped strings",
            fill("[", &|_| "\"\\u0041\"".to_owned(), "]"),
        ),
        (
            "tiny members",
            fill("{", &|index| format!("\"{index:x}\":0"), "}"),
        ),
        ("arrays 60 deep", fill("[", &|_| deep.clone(), "]")),
        ("objects 60 deep", fill("[", &|_| deep_objects.clone(), "]")),
    ]
}

/// Issue 37, item 1: the JSON reader's allocation per input byte is bounded by construction
/// whatever the shape, at each format's read limit (4 MiB for a Soulacy package, 8 MiB for
/// a skill envelope), in both profiles. An array of short escaped strings allocated a
/// buffer per string sized from the whole document: about 455 bytes per input byte, a
/// 4 MiB package took 1.9 GB; nested arrays, a vector of room for four nodes per level:
/// about 95 bytes per input byte.
#[test]
fn worst_json_shapes_allocate_a_constant_per_byte() {
    let _serial = serial();
    let formats = [
        (Format::SoulKit, "input.soulkit.json", 262_144),
        (Format::SoulacyPackage, "input.soulacy-agent.json", 4 << 20),
        (Format::SoulacySidecar, ".soulacy-package.json", 65_536),
        (Format::SkillPackage, "package.json", 8 << 20),
        (Format::ComposeBundle, "manifest.json", 1 << 20),
    ];
    for (format, name, size) in formats {
        for (shape, bytes) in worst_shapes(size) {
            assert!(bytes.len() <= size && bytes.len() + 512 > size, "{shape}");
            for (profile, context) in [("spec", Context::new()), ("strict", strict())] {
                let measured = measure_json(&context, format, name, &bytes);
                let what = format!("{format}, {shape}, {profile} profile");
                assert_bounded(&what, bytes.len(), &measured);
                // Read whole, not declined: the document was judged (it lacks members).
                assert_eq!(measured.report.verdict(), Verdict::Reject, "{what}");
                assert!(
                    measured
                        .report
                        .diagnostics
                        .iter()
                        .all(|d| !d.rule.id.ends_with(".json.syntax")),
                    "{what}: {:?}",
                    measured.report.diagnostics
                );
            }
        }
    }
}
