//! SOUL.md documents: a valid identity document (a role title in any heading spelling
//! CommonMark allows, the five required sections in any order, spelled in any letter case
//! and with qualifiers, a bulleted Personality list of labelled traits, four to eight
//! numbered Core Responsibilities, optional sections), and targeted mutations with the
//! diagnostic and line each must draw.

use arbitrary::Unstructured;

use super::Generated;
use crate::invariants::Expected;

/// Bytes at which the size estimate passes 4,000 tokens.
pub const SIZE_WARNING_AFTER: usize = soulcheck_reference::soul_md::RECOMMENDED_MAX_TOKENS
    * soulcheck_reference::soul_md::BYTES_PER_TOKEN;

/// Characters of generated prose: visible and inert in Markdown (nothing that opens a
/// block, emphasis, a link, an escape or an entity), no `w` so no marker text either.
const PROSE: &[&str] = &[
    "a", "b", "c", "d", "e", "l", "o", "r", "s", "t", "y", "é", "ß", "漢", "字", "ש", "Ω", "🙂",
    "\u{301}", " ", ",", "'", "?", "；", "、", "\u{200D}", "ø",
];

/// A line of prose of 1 to `max` characters: starts with a letter, ends without a space.
fn prose(u: &mut Unstructured<'_>, max: usize) -> arbitrary::Result<String> {
    let length = u.int_in_range(1..=max)?;
    let mut text = String::from(*u.choose(&["A", "Z", "漢", "ש", "É", "Ω"])?);
    for _ in 1..length {
        text.push_str(if u.is_empty() { "a" } else { u.choose(PROSE)? });
    }
    Ok(text.trim_end().to_owned())
}

/// One section: its heading line and body lines.
#[derive(Debug, Clone)]
struct Section {
    /// The known name, when it is one the spec names.
    name: &'static str,
    heading: String,
    body: Vec<String>,
}

/// How a section name may be spelled in a heading.
fn heading(u: &mut Unstructured<'_>, name: &str) -> arbitrary::Result<String> {
    let spelled = match u.int_in_range(0u8..=5)? {
        0 => name.to_uppercase(),
        1 => name.to_lowercase(),
        2 => format!("{name} (in short)"),
        3 => format!("{name}（溫暖、專業）"),
        _ => name.to_owned(),
    };
    // Extra spaces after the hashes are not part of the heading's text.
    let hashes = if u.ratio(1u8, 6)? { "##  " } else { "## " };
    Ok(format!("{hashes}{spelled}"))
}

fn trait_line(u: &mut Unstructured<'_>) -> arbitrary::Result<String> {
    let bullet = *u.choose(&["-", "*", "+"])?;
    let label = prose(u, 12)?;
    let description = prose(u, 40)?;
    Ok(match u.int_in_range(0u8..=4)? {
        0 => format!("{bullet} **{label}** — {description}"),
        1 => format!("{bullet} **{label}**：{description}"),
        2 => format!("{bullet} **{label}**: {description}"),
        3 => format!("{bullet} {label}: {description}"),
        _ => format!("{bullet} **{label}** - {description}"),
    })
}

fn numbered(u: &mut Unstructured<'_>, n: usize) -> arbitrary::Result<Vec<String>> {
    let delimiter = *u.choose(&[".", ")"])?;
    let mut lines = Vec::new();
    for index in 1..=n {
        lines.push(format!("{index}{delimiter} {}", prose(u, 40)?));
    }
    Ok(lines)
}

/// The role title's lines: an ATX heading spelled any way CommonMark allows (one to
/// three spaces of indentation, a tab or several spaces after the `#`, a closing
/// sequence of `#`s), or a setext heading (its text underlined with `=`). Readers that
/// look for a line starting with `# ` see only the plainest of these.
fn title(u: &mut Unstructured<'_>) -> arbitrary::Result<Vec<String>> {
    let text = prose(u, 30)?;
    Ok(match u.int_in_range(0u8..=9)? {
        0 => vec![format!(" # {text}")],
        1 => vec![format!("   # {text}")],
        2 => vec![format!("#\t{text}")],
        3 => vec![format!("#   {text}")],
        4 => vec![format!("# {text} ##")],
        5 => {
            let underline = u.int_in_range(1usize..=12)?;
            vec![text, "=".repeat(underline)]
        }
        _ => vec![format!("# {text}")],
    })
}

/// The valid document's parts: the title's lines and the sections.
fn valid(u: &mut Unstructured<'_>) -> arbitrary::Result<(Vec<String>, Vec<Section>)> {
    let title = title(u)?;
    let traits = u.int_in_range(1usize..=5)?;
    let mut personality = Vec::new();
    for _ in 0..traits {
        personality.push(trait_line(u)?);
    }
    let duties = u.int_in_range(4usize..=8)?;
    let mut sections = vec![
        Section {
            name: "Identity",
            heading: heading(u, "Identity")?,
            body: vec![prose(u, 80)?],
        },
        Section {
            name: "Personality",
            heading: heading(u, "Personality")?,
            body: personality,
        },
        Section {
            name: "Core Responsibilities",
            heading: heading(u, "Core Responsibilities")?,
            body: numbered(u, duties)?,
        },
        Section {
            name: "Response Style",
            heading: heading(u, "Response Style")?,
            body: vec![prose(u, 80)?],
        },
        Section {
            name: "Escalation Rules",
            heading: heading(u, "Escalation Rules")?,
            body: vec![format!("- {}", prose(u, 60)?)],
        },
    ];
    for name in [
        "Domain Knowledge",
        "Greeting Templates",
        "Prohibited Topics",
        "Evolution Notes",
        "Terminology & Tone",
        "Tone",
    ] {
        if u.ratio(1u8, 4)? {
            sections.push(Section {
                name,
                heading: heading(u, name)?,
                body: vec![prose(u, 60)?],
            });
        }
    }
    let turn = u.int_in_range(0..=sections.len() - 1)?;
    sections.rotate_left(turn);
    Ok((title, sections))
}

/// The targeted mutations of a SOUL.md.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mutation {
    /// None: the valid document.
    None,
    /// No role title.
    DropTitle,
    /// A required section missing.
    DropSection,
    /// Three or nine Core Responsibilities.
    CountOffByOne,
    /// Core Responsibilities as bullets.
    NotNumbered,
    /// Personality without a bulleted list.
    NoBullets,
    /// A trait without a label.
    TraitWithoutLabel,
    /// YAML or TOML frontmatter.
    Frontmatter,
    /// A second `#` heading.
    SecondTitle,
    /// A `###` heading before any section.
    SectionLevel,
    /// A section repeated (allowed in the spec profile: no diagnostic).
    DuplicateSection,
    /// A byte that is not UTF-8.
    InvalidUtf8,
    /// Exactly at the size recommendation or one byte past it.
    Size,
    /// Lines deleted, repeated or swapped; no prediction.
    Scramble,
}

impl Mutation {
    /// Every mutation.
    pub const ALL: &'static [Mutation] = &[
        Mutation::None,
        Mutation::DropTitle,
        Mutation::DropSection,
        Mutation::CountOffByOne,
        Mutation::NotNumbered,
        Mutation::NoBullets,
        Mutation::TraitWithoutLabel,
        Mutation::Frontmatter,
        Mutation::SecondTitle,
        Mutation::SectionLevel,
        Mutation::DuplicateSection,
        Mutation::InvalidUtf8,
        Mutation::Size,
        Mutation::Scramble,
    ];
}

/// A SOUL.md with a fuzz-chosen mutation.
pub fn generate(u: &mut Unstructured<'_>) -> arbitrary::Result<Generated> {
    let mutation = *u.choose(Mutation::ALL)?;
    generate_with(u, mutation)
}

/// Lays out the document and returns its lines with the line number of each section's
/// heading and of the first body line.
struct Layout {
    lines: Vec<String>,
    /// For each section: the 0-based indices of its heading line and first body line.
    at: Vec<(usize, usize)>,
}

fn layout(prefix: &[String], title: Option<&[String]>, sections: &[Section]) -> Layout {
    let mut lines: Vec<String> = prefix.to_vec();
    if let Some(title) = title {
        lines.extend(title.iter().cloned());
        lines.push(String::new());
    }
    let mut at = Vec::new();
    for section in sections {
        let heading = lines.len();
        lines.push(section.heading.clone());
        lines.push(String::new());
        at.push((heading, lines.len()));
        lines.extend(section.body.iter().cloned());
        lines.push(String::new());
    }
    Layout { lines, at }
}

/// An edit made once the document is laid out, adding the diagnostic it predicts.
type LayoutEdit = Box<dyn FnOnce(&mut Layout, &mut Vec<Expected>)>;

/// What a mutation changes besides the sections, and what it must draw.
struct Edits {
    /// Lines before the title (frontmatter).
    prefix: Vec<String>,
    /// Whether the document keeps its role title.
    keep_title: bool,
    /// An edit that needs the final layout, made after it.
    after: Option<LayoutEdit>,
    /// The diagnostics the document must get, exactly.
    expected: Vec<Expected>,
    /// The mutation's name and what it did.
    summary: String,
}

/// A SOUL.md with the given mutation applied.
pub fn generate_with(u: &mut Unstructured<'_>, mutation: Mutation) -> arbitrary::Result<Generated> {
    // The mutation's choices come from the front of the input, apart from the bytes the
    // document's content consumes, so they stay varied however long the document is.
    let decisions = u.bytes(u.len().min(64))?;
    let mut plan = Unstructured::new(decisions);
    let (title, mut sections) = valid(u)?;
    let u = &mut plan;
    let mut edits = Edits {
        prefix: Vec::new(),
        keep_title: true,
        after: None,
        expected: Vec::new(),
        summary: format!("{mutation:?}"),
    };
    edit_sections(u, mutation, &mut sections, &mut edits)?;
    let title = edits.keep_title.then_some(title.as_slice());
    let mut layout = layout(&edits.prefix, title, &sections);
    if let Some(edit) = edits.after.take() {
        edit(&mut layout, &mut edits.expected);
    }
    if mutation == Mutation::Scramble {
        let summary = scramble(u, &mut layout.lines)?;
        return Ok(Generated {
            bytes: join(&layout.lines, "\n").into_bytes(),
            expected: None,
            strict_only: Vec::new(),
            respelled: None,
            summary,
        });
    }
    spell(u, mutation, &layout, edits)
}

/// Applies the mutations made on the sections, the title or the lines before it; the
/// encoding and size mutations act on the spelled text instead ([`spell`]).
fn edit_sections(
    u: &mut Unstructured<'_>,
    mutation: Mutation,
    sections: &mut Vec<Section>,
    edits: &mut Edits,
) -> arbitrary::Result<()> {
    match mutation {
        Mutation::None | Mutation::Size | Mutation::InvalidUtf8 | Mutation::Scramble => {}
        Mutation::DropTitle => {
            edits.keep_title = false;
            edits
                .expected
                .push(Expected::document("soul-md.title.required"));
        }
        Mutation::DropSection => drop_section(u, sections, edits)?,
        Mutation::CountOffByOne => count_off_by_one(u, sections, edits)?,
        Mutation::NotNumbered => not_numbered(u, sections, edits)?,
        Mutation::NoBullets => no_bullets(u, sections, edits)?,
        Mutation::TraitWithoutLabel => trait_without_label(u, sections, edits)?,
        Mutation::Frontmatter => frontmatter(u, edits)?,
        Mutation::SecondTitle | Mutation::SectionLevel | Mutation::DuplicateSection => {
            extra_heading(u, mutation, sections, edits)?;
        }
    }
    Ok(())
}

/// The index of the section the spec names `name`.
fn index_of(sections: &[Section], name: &str) -> Option<usize> {
    sections.iter().position(|section| section.name == name)
}

/// Removes a required section.
fn drop_section(
    u: &mut Unstructured<'_>,
    sections: &mut Vec<Section>,
    edits: &mut Edits,
) -> arbitrary::Result<()> {
    let name = *u.choose(&[
        "Identity",
        "Personality",
        "Core Responsibilities",
        "Response Style",
        "Escalation Rules",
    ])?;
    if let Some(index) = index_of(sections, name) {
        sections.remove(index);
    }
    edits
        .expected
        .push(Expected::document(if name == "Identity" {
            "soul-md.section.identity"
        } else {
            "soul-md.section.required"
        }));
    edits.summary.push_str(&format!(" {name}"));
    Ok(())
}

/// Three or nine Core Responsibilities.
fn count_off_by_one(
    u: &mut Unstructured<'_>,
    sections: &mut [Section],
    edits: &mut Edits,
) -> arbitrary::Result<()> {
    let n = *u.choose(&[3usize, 9])?;
    if let Some(index) = index_of(sections, "Core Responsibilities") {
        sections[index].body = numbered(u, n)?;
        edits.after = Some(Box::new(move |layout, expected| {
            expected.push(Expected::line(
                "soul-md.responsibilities.count",
                line_number(layout.at[index].1),
            ));
        }));
    }
    edits.summary.push_str(&format!(" to {n}"));
    Ok(())
}

/// Core Responsibilities as bullets.
fn not_numbered(
    u: &mut Unstructured<'_>,
    sections: &mut [Section],
    edits: &mut Edits,
) -> arbitrary::Result<()> {
    if let Some(index) = index_of(sections, "Core Responsibilities") {
        let n = u.int_in_range(4usize..=8)?;
        let mut body = Vec::new();
        for _ in 0..n {
            body.push(format!("- {}", prose(u, 30)?));
        }
        sections[index].body = body;
        edits.after = Some(Box::new(move |layout, expected| {
            expected.push(Expected::line(
                "soul-md.responsibilities.numbered",
                line_number(layout.at[index].0),
            ));
        }));
    }
    Ok(())
}

/// Personality as a paragraph or a numbered list instead of bullets.
fn no_bullets(
    u: &mut Unstructured<'_>,
    sections: &mut [Section],
    edits: &mut Edits,
) -> arbitrary::Result<()> {
    if let Some(index) = index_of(sections, "Personality") {
        sections[index].body = if u.arbitrary()? {
            vec![prose(u, 60)?]
        } else {
            numbered(u, 2)?
        };
        edits.after = Some(Box::new(move |layout, expected| {
            expected.push(Expected::line(
                "soul-md.personality.bullets",
                line_number(layout.at[index].0),
            ));
        }));
    }
    Ok(())
}

/// A Personality trait without a label.
fn trait_without_label(
    u: &mut Unstructured<'_>,
    sections: &mut [Section],
    edits: &mut Edits,
) -> arbitrary::Result<()> {
    if let Some(index) = index_of(sections, "Personality") {
        let body = &mut sections[index].body;
        let item = u.int_in_range(0..=body.len() - 1)?;
        let bullet = body[item].chars().next().unwrap_or('-');
        body[item] = format!(
            "{bullet} {}",
            u.choose(&[
                "Patient",
                "**Patient**",
                "Well-known and friendly",
                ": nothing before",
                "**Warm** — "
            ])?
        );
        edits.after = Some(Box::new(move |layout, expected| {
            expected.push(Expected::line(
                "soul-md.personality.trait",
                line_number(layout.at[index].1 + item),
            ));
        }));
    }
    Ok(())
}

/// YAML or TOML frontmatter before the title.
fn frontmatter(u: &mut Unstructured<'_>, edits: &mut Edits) -> arbitrary::Result<()> {
    let block: &[&str] = if u.arbitrary()? {
        &["---", "name: agent", "---"]
    } else {
        &["+++", "name = \"agent\"", "+++"]
    };
    edits.prefix = block.iter().map(|line| (*line).to_owned()).collect();
    edits.expected.push(Expected {
        rule: "soul-md.frontmatter.forbidden".to_owned(),
        place: crate::invariants::Place::Position { line: 1, column: 1 },
    });
    Ok(())
}

/// A heading too many: a second title, a `###` heading before any section, or a section
/// repeated.
fn extra_heading(
    u: &mut Unstructured<'_>,
    mutation: Mutation,
    sections: &[Section],
    edits: &mut Edits,
) -> arbitrary::Result<()> {
    let (line, rule) = match mutation {
        Mutation::SecondTitle => (
            format!("# {}", prose(u, 20)?),
            "soul-md.heading.title-single",
        ),
        Mutation::SectionLevel => (
            format!("### {}", prose(u, 20)?),
            "soul-md.heading.section-level",
        ),
        _ => {
            let index = u.int_in_range(0..=sections.len() - 1)?;
            (sections[index].heading.clone(), "soul-md.section.duplicate")
        }
    };
    let before_first = mutation == Mutation::SectionLevel;
    edits.after = Some(Box::new(move |layout, expected| {
        // A section-level heading goes before the first section; the others go at the
        // end.
        let at = if before_first {
            layout
                .at
                .first()
                .map_or(layout.lines.len(), |(heading, _)| *heading)
        } else {
            layout.lines.len()
        };
        layout.lines.insert(at, String::new());
        layout.lines.insert(at, line);
        if mutation == Mutation::DuplicateSection {
            layout.lines.insert(at + 2, "Repeated.".to_owned());
            layout.lines.insert(at + 3, String::new());
            // soul-md.section.duplicate warns in the strict profile only; the generators
            // predict the spec profile, where a repeat is allowed.
            return;
        }
        expected.push(Expected::line(rule, line_number(at)));
    }));
    Ok(())
}

/// Spells the laid-out lines with one line ending (the other is the respelling), then
/// applies the mutations made on the text: a byte that is not UTF-8 and the size padding.
fn spell(
    u: &mut Unstructured<'_>,
    mutation: Mutation,
    layout: &Layout,
    edits: Edits,
) -> arbitrary::Result<Generated> {
    let crlf = u.ratio(1u8, 4)?;
    let text = join(&layout.lines, if crlf { "\r\n" } else { "\n" });
    let other = join(&layout.lines, if crlf { "\n" } else { "\r\n" });
    let bytes = text.into_bytes();
    match mutation {
        Mutation::InvalidUtf8 => return invalid_utf8(u, layout, crlf, bytes, edits),
        Mutation::Size => return pad_to_recommendation(u, bytes, edits),
        _ => {}
    }
    let mut expected = edits.expected;
    if bytes.len() > SIZE_WARNING_AFTER {
        expected.push(Expected::document("soul-md.size.tokens"));
    }
    let respelled = (other.len() <= SIZE_WARNING_AFTER && bytes.len() <= SIZE_WARNING_AFTER)
        .then(|| other.into_bytes());
    Ok(Generated {
        bytes,
        expected: Some(expected),
        strict_only: Vec::new(),
        respelled,
        summary: edits.summary,
    })
}

/// Puts a byte that is not UTF-8 into the last line of prose, which is ASCII-free of
/// structure.
fn invalid_utf8(
    u: &mut Unstructured<'_>,
    layout: &Layout,
    crlf: bool,
    mut bytes: Vec<u8>,
    mut edits: Edits,
) -> arbitrary::Result<Generated> {
    let line = layout.lines.len() - 2;
    let offset: usize = layout.lines[..line]
        .iter()
        .map(|l| l.len() + if crlf { 2 } else { 1 })
        .sum();
    let bad = *u.choose(&[0xFFu8, 0xC0, 0x80, 0xED])?;
    bytes.insert(offset, bad);
    edits
        .expected
        .push(Expected::line("soul-md.encoding.utf8", line_number(line)));
    Ok(Generated {
        bytes,
        expected: Some(edits.expected),
        strict_only: Vec::new(),
        respelled: None,
        summary: edits.summary,
    })
}

/// Pads the document with a last paragraph of filler to exactly the size recommendation
/// or one byte past it.
fn pad_to_recommendation(
    u: &mut Unstructured<'_>,
    mut bytes: Vec<u8>,
    mut edits: Edits,
) -> arbitrary::Result<Generated> {
    let over = u.arbitrary::<bool>()?;
    let size = SIZE_WARNING_AFTER + usize::from(over);
    if bytes.len() + 2 > size {
        return Err(arbitrary::Error::IncorrectFormat);
    }
    // The filler ends in a newline.
    let fill = size - bytes.len() - 1;
    bytes.extend(std::iter::repeat_n(b'z', fill));
    bytes.push(b'\n');
    if over {
        edits
            .expected
            .push(Expected::document("soul-md.size.tokens"));
    }
    Ok(Generated {
        bytes,
        expected: Some(edits.expected),
        strict_only: Vec::new(),
        respelled: None,
        summary: edits.summary,
    })
}

/// A 0-based line index as a 1-based line number.
fn line_number(index: usize) -> u32 {
    u32::try_from(index + 1).unwrap_or(u32::MAX)
}

fn join(lines: &[String], newline: &str) -> String {
    let mut text = lines.join(newline);
    text.push_str(newline);
    text
}

fn scramble(u: &mut Unstructured<'_>, lines: &mut Vec<String>) -> arbitrary::Result<String> {
    let mut done = Vec::new();
    for _ in 0..u.int_in_range(1u8..=6)? {
        if lines.is_empty() {
            break;
        }
        let at = u.int_in_range(0..=lines.len() - 1)?;
        match u.int_in_range(0u8..=4)? {
            0 => {
                lines.remove(at);
                done.push(format!("drop line {}", at + 1));
            }
            1 => {
                let copy = lines[at].clone();
                lines.insert(at, copy);
                done.push(format!("repeat line {}", at + 1));
            }
            2 => {
                let other = u.int_in_range(0..=lines.len() - 1)?;
                lines.swap(at, other);
                done.push(format!("swap lines {} and {}", at + 1, other + 1));
            }
            3 => {
                let prefix =
                    *u.choose(&["    ", "> ", "```", "- ", "1. ", "<!-- ", "\t", "#", "---"])?;
                lines[at].insert_str(0, prefix);
                done.push(format!("prefix line {} with {prefix:?}", at + 1));
            }
            _ => {
                let suffix = *u.choose(&["  ", "\\", " #", "**", "\u{85}", "\r"])?;
                lines[at].push_str(suffix);
                done.push(format!("suffix line {} with {suffix:?}", at + 1));
            }
        }
    }
    Ok(done.join(", "))
}
