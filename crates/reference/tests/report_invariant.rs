//! The report's invariant under its bounds: a report that rejects shows one of its
//! errors, in both profiles, whatever the hundred-diagnostic cap leaves out or evicts.
//!
//! The inputs are the shapes that once broke it: a full report whose only error rests
//! on a `suite` rule (a repeated key, an invisible title; errors in the strict profile
//! only) while `spec` warnings keep arriving and displace `suite` diagnostics, and a full
//! report whose first error arrives after a hundred warnings. Each shape is tried at
//! every fill around the cap, so an off-by-one in where the cap falls cannot hide it.

use soulcheck_reference::{check, Context, Format, Input, Severity, Verdict};

/// The profiles a certification runs the reference in.
fn contexts() -> [(&'static str, Context); 2] {
    let mut strict = Context::new();
    strict.insert("profile".to_owned(), "strict".into());
    [("spec", Context::new()), ("strict", strict)]
}

/// One hostile input: what it is, its format and its bytes (checked as a document).
struct Shape {
    what: String,
    format: Format,
    name: &'static str,
    bytes: Vec<u8>,
}

/// The members of the smallest v1 Soulacy package, soul_yaml last.
fn soulacy_v1_members() -> Vec<String> {
    vec![
        r#""schema_version": "soulacy.agent.package/v1""#.to_owned(),
        r#""manifest": {}"#.to_owned(),
        r#""soul_yaml": "id: hn-digest\n""#.to_owned(),
    ]
}

/// A v1 Soulacy package (a `spec` warning, `v1.deprecated`) with `unknown` unknown
/// members (`suite` warnings) and a repeated member (a `suite` error in the strict
/// profile) before or after them.
fn soulacy_v1(unknown: usize, repeat_first: bool) -> Shape {
    let mut members = soulacy_v1_members();
    let unknowns = (0..unknown).map(|index| format!(r#""extra_{index}": {index}"#));
    let repeat = members[2].clone();
    if repeat_first {
        members.push(repeat);
        members.extend(unknowns);
    } else {
        members.extend(unknowns);
        members.push(repeat);
    }
    Shape {
        what: format!(
            "soulacy v1 package, {unknown} unknown members, the repeated key {}",
            if repeat_first { "first" } else { "last" }
        ),
        format: Format::SoulacyPackage,
        name: "input.soulacy-agent.json",
        bytes: format!("{{{}}}", members.join(", ")).into_bytes(),
    }
}

/// A v1 Soulacy package whose one long member name is repeated `copies` times: each
/// repeat's diagnostic (pointer and message) holds the name, so a few of them fill the
/// report's text bound, and the `spec` warning `v1.deprecated` then makes room.
fn soulacy_v1_long_key(length: usize, copies: usize) -> Shape {
    let key = "k".repeat(length);
    let mut members = soulacy_v1_members();
    members.extend((0..copies).map(|copy| format!(r#""{key}": {copy}"#)));
    Shape {
        what: format!("soulacy v1 package, a {length}-byte member name {copies} times"),
        format: Format::SoulacyPackage,
        name: "input.soulacy-agent.json",
        bytes: format!("{{{}}}", members.join(", ")).into_bytes(),
    }
}

/// A SOUL.md whose title is invisible (a `suite` error in the strict profile) followed
/// by `titles` more level-1 headings (`spec` warnings, `heading.title-single`).
fn soul_md_invisible_title(titles: usize) -> Shape {
    let mut text = String::from("# \u{200B}\n\n## Identity\n\nAn agent.\n\n");
    for index in 0..titles {
        text.push_str(&format!("# Another title {index}\n\n"));
    }
    Shape {
        what: format!("SOUL.md with an invisible title and {titles} more titles"),
        format: Format::SoulMd,
        name: "SOUL.md",
        bytes: text.into_bytes(),
    }
}

/// A SOUL.md with `titles` extra level-1 headings (`spec` warnings) and then frontmatter
/// is impossible (it must open the file), so the error comes first as forbidden
/// frontmatter, and as a missing title (no heading at level 1 at the top) after the
/// warnings: both orders of error and warnings.
fn soul_md_warnings_then_error(warnings: usize) -> Shape {
    let mut text = String::from("Some text before any heading.\n\n");
    for index in 0..warnings {
        text.push_str(&format!("## Section {index}\n\n###### Deep {index}\n\n"));
    }
    Shape {
        what: format!("SOUL.md with no title and {warnings} section warnings"),
        format: Format::SoulMd,
        name: "SOUL.md",
        bytes: text.into_bytes(),
    }
}

fn shapes() -> Vec<Shape> {
    let mut shapes = Vec::new();
    for fill in 90..=110 {
        shapes.push(soulacy_v1(fill, false));
        shapes.push(soulacy_v1(fill, true));
        shapes.push(soul_md_invisible_title(fill));
        shapes.push(soul_md_warnings_then_error(fill / 2));
        shapes.push(soul_md_warnings_then_error(fill));
    }
    for length in [20_000, 45_000, 70_000, 100_000, 140_000, 270_000] {
        for copies in 2..=5 {
            shapes.push(soulacy_v1_long_key(length, copies));
        }
    }
    shapes
}

#[test]
fn a_rejecting_report_shows_one_of_its_errors() {
    let mut broken = Vec::new();
    let mut capped_rejections = 0;
    for shape in shapes() {
        for (profile, context) in contexts() {
            let input = Input::Document {
                name: shape.name,
                bytes: &shape.bytes,
            };
            let report = check(shape.format, "validate", input, &context).expect("supported");
            if report.verdict() != Verdict::Reject {
                continue;
            }
            if report.omitted.total() > 0 {
                capped_rejections += 1;
            }
            let shows_error = report
                .diagnostics
                .iter()
                .any(|diagnostic| diagnostic.severity == Severity::Error);
            if !shows_error {
                broken.push(format!(
                    "{} ({profile} profile): rejects, {} error(s) left out, none kept",
                    shape.what, report.omitted.errors
                ));
            }
        }
    }
    // The shapes must reach the cap, or the test proves nothing about it.
    assert!(
        capped_rejections >= 20,
        "only {capped_rejections} rejecting reports were capped: the shapes no longer fill a report"
    );
    assert!(broken.is_empty(), "{}", broken.join("\n"));
}
