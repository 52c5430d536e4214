//! The checks on the document's structure: the role title (a must) and the soft checks the
//! spec lists or implies (shoulds, reported as warnings that never decide the verdict).

use super::lines::Locator;
use super::outline::{self, Block, Heading, Item, Kind, Lead, List};
use super::{Planted, Report};
use crate::Settings;

/// The five sections "Required Sections" lists, in the spec's spelling.
const REQUIRED: [&str; 5] = [
    "Identity",
    "Personality",
    "Core Responsibilities",
    "Response Style",
    "Escalation Rules",
];

/// The optional sections the spec names ("Optional Sections" and "Reply Language").
const OPTIONAL: [&str; 6] = [
    "Domain Knowledge",
    "Greeting Templates",
    "Prohibited Topics",
    "Evolution Notes",
    "Terminology & Tone",
    "Tone",
];

/// A level-2 section: its heading and the blocks up to the next heading of level 1 or 2.
struct Section<'a> {
    /// The known section it is, in the spec's spelling, if any.
    known: Option<&'static str>,
    /// What repetitions compare: the known name, or the heading text in lowercase.
    key: String,
    /// Offset of its heading.
    offset: usize,
    /// The blocks after its heading.
    blocks: &'a [Block],
}

/// Runs every structural check on the document's top-level blocks.
pub(super) fn check(
    blocks: &[Block],
    locate: &Locator<'_>,
    settings: &Settings<'_>,
    report: &mut Report,
) {
    let planted = |switch: Planted| settings.planted(switch.name());
    check_title(blocks, locate, settings, report);
    check_heading_levels(blocks, locate, settings, report);
    let sections = sections(blocks);
    check_required_sections(&sections, settings, report);
    if settings.strict || planted(Planted::RepeatedSectionError) {
        check_repeated_sections(&sections, locate, settings, report);
    }
    if let Some(section) = first(&sections, "Core Responsibilities") {
        check_responsibilities(section, locate, settings, report);
    }
    if let Some(section) = first(&sections, "Personality") {
        check_personality(section, locate, settings, report);
    }
    check_planted_rejections(blocks, &sections, locate, settings, report);
}

fn headings(blocks: &[Block]) -> impl Iterator<Item = (&Block, &Heading)> {
    blocks.iter().filter_map(|block| match &block.kind {
        Kind::Heading(heading) => Some((block, heading)),
        _ => None,
    })
}

/// Text a reader can see: something other than whitespace and invisible format characters.
pub(super) fn visible(text: &str) -> bool {
    text.chars().any(|c| {
        !c.is_whitespace()
            && !matches!(
                c,
                '\u{200B}'..='\u{200D}' | '\u{2060}' | '\u{FEFF}' | '\u{00AD}'
            )
    })
}

/// Required Sections, "# <Role Title>"; Validation item 1: "File must contain at least one
/// # heading". Rule `soul-md.title.required`: a level-1 heading with visible text, read by
/// CommonMark among the document's direct children.
fn check_title(
    blocks: &[Block],
    locate: &Locator<'_>,
    settings: &Settings<'_>,
    report: &mut Report,
) {
    let planted = |switch: Planted| settings.planted(switch.name());
    if planted(Planted::TitleCheckMissing) {
        return;
    }
    let is_title = |block: &Block, heading: &Heading| {
        let level = heading.depth == 1 || planted(Planted::TitleAnyHeadingLevel);
        let text = if planted(Planted::TitleDirectTextOnly) {
            &heading.direct_text
        } else {
            &heading.text
        };
        let placed = !planted(Planted::TitleFirstLineOnly) || locate.at(block.offset).line == 1;
        level && visible(text) && placed
    };
    if !headings(blocks).any(|(block, heading)| is_title(block, heading)) {
        report.error(
            "soul-md.title.required",
            None,
            "no level-1 heading with text: the role title is missing",
        );
    }
}

/// Constraints, "Heading levels: Use ## for all sections; # is reserved for the role
/// title". Rules `soul-md.heading.title-single` (one level-1 heading) and
/// `soul-md.heading.section-level` (a level 3 to 6 heading outside any `##` section).
fn check_heading_levels(
    blocks: &[Block],
    locate: &Locator<'_>,
    settings: &Settings<'_>,
    report: &mut Report,
) {
    let planted = |switch: Planted| settings.planted(switch.name());
    let mut titles = 0;
    let mut in_section = false;
    for (block, heading) in headings(blocks) {
        let at = Some(locate.at(block.offset));
        match heading.depth {
            1 => {
                titles += 1;
                in_section = false;
                if titles > 1 {
                    report.should(
                        planted(Planted::SecondTitleError),
                        "soul-md.heading.title-single",
                        at,
                        "a further level-1 heading: `#` is reserved for the role title",
                    );
                }
            }
            2 => in_section = true,
            _ if !in_section => report.should(
                planted(Planted::SectionLevelError),
                "soul-md.heading.section-level",
                at,
                "a section heading below level 2 outside any `##` section: sections use `##`",
            ),
            _ => {}
        }
    }
}

fn sections(blocks: &[Block]) -> Vec<Section<'_>> {
    let mut sections = Vec::new();
    for (index, block) in blocks.iter().enumerate() {
        let Kind::Heading(heading) = &block.kind else {
            continue;
        };
        if heading.depth != 2 {
            continue;
        }
        let rest = &blocks[index + 1..];
        let end = rest
            .iter()
            .position(|block| matches!(&block.kind, Kind::Heading(next) if next.depth <= 2))
            .unwrap_or(rest.len());
        let known = known_section(&heading.text);
        let key = known.map_or_else(|| heading.text.to_lowercase(), |name| name.to_lowercase());
        sections.push(Section {
            known,
            key,
            offset: block.offset,
            blocks: &rest[..end],
        });
    }
    sections
}

/// The known section a heading names (catalogue header): the name in any letter case,
/// alone or followed by optional whitespace and one parenthesised qualifier in ASCII or
/// full-width parentheses that ends the heading, as `## Personality（溫暖、專業）`.
fn known_section(text: &str) -> Option<&'static str> {
    let lower = text.to_lowercase();
    REQUIRED
        .iter()
        .chain(OPTIONAL.iter())
        .copied()
        .find(|name| {
            let name_lower = name.to_lowercase();
            match lower.strip_prefix(&name_lower) {
                Some("") => true,
                Some(rest) => is_qualifier(rest.trim_start()),
                None => false,
            }
        })
}

fn is_qualifier(rest: &str) -> bool {
    [('(', ')'), ('（', '）')].iter().any(|&(open, close)| {
        rest.strip_prefix(open)
            .and_then(|inner| inner.strip_suffix(close))
            .is_some_and(|inner| !inner.contains([open, close]))
    })
}

fn first<'a, 'b>(sections: &'b [Section<'a>], name: &str) -> Option<&'b Section<'a>> {
    sections.iter().find(|section| section.known == Some(name))
}

/// Required Sections; Validation item 3 ("should contain ## Identity section (warning if
/// missing)"). Rules `soul-md.section.identity` and `soul-md.section.required`: warnings,
/// since "There is no strict schema validation for SOUL.md".
fn check_required_sections(sections: &[Section<'_>], settings: &Settings<'_>, report: &mut Report) {
    let planted = |switch: Planted| settings.planted(switch.name());
    for name in REQUIRED {
        if first(sections, name).is_some() {
            continue;
        }
        if name == "Identity" {
            report.should(
                planted(Planted::IdentityMissingError),
                "soul-md.section.identity",
                None,
                "no `## Identity` section",
            );
        } else {
            report.should(
                planted(Planted::RequiredSectionMissingError),
                "soul-md.section.required",
                None,
                &format!("no `## {name}` section"),
            );
        }
    }
}

/// Rule `soul-md.section.duplicate` (the suite's, strict profile only: the Evolution Engine
/// locates sections by heading, so a repeated one is ambiguous).
fn check_repeated_sections(
    sections: &[Section<'_>],
    locate: &Locator<'_>,
    settings: &Settings<'_>,
    report: &mut Report,
) {
    let mut seen = std::collections::HashSet::new();
    for section in sections {
        if !seen.insert(section.key.as_str()) {
            report.should(
                settings.planted(Planted::RepeatedSectionError.name()),
                "soul-md.section.duplicate",
                Some(locate.at(section.offset)),
                "this section repeats an earlier one",
            );
        }
    }
}

fn lists<'a>(
    section: &'a Section<'_>,
    ordered: bool,
) -> impl Iterator<Item = (&'a Block, &'a List)> {
    section
        .blocks
        .iter()
        .filter_map(move |block| match &block.kind {
            Kind::List(list) if list.ordered == ordered => Some((block, list)),
            _ => None,
        })
}

/// Core Responsibilities: "Numbered list of 4-8 main operational duties". Rules
/// `soul-md.responsibilities.numbered` and `soul-md.responsibilities.count` (items counted
/// over every top-level ordered list of the section, bounds inclusive).
fn check_responsibilities(
    section: &Section<'_>,
    locate: &Locator<'_>,
    settings: &Settings<'_>,
    report: &mut Report,
) {
    let planted = |switch: Planted| settings.planted(switch.name());
    let ordered: Vec<_> = lists(section, true).collect();
    let Some((first_list, _)) = ordered.first() else {
        report.should(
            planted(Planted::ResponsibilitiesNotNumberedError),
            "soul-md.responsibilities.numbered",
            Some(locate.at(section.offset)),
            "Core Responsibilities holds no numbered list",
        );
        return;
    };
    let items: usize = ordered.iter().map(|(_, list)| list.items.len()).sum();
    if !(4..=8).contains(&items) {
        report.should(
            planted(Planted::ResponsibilitiesCountError),
            "soul-md.responsibilities.count",
            Some(locate.at(first_list.offset)),
            &format!("{items} responsibilities; the spec asks for 4 to 8"),
        );
    }
}

/// Personality: "Bulleted list of personality traits. Each trait has a short label
/// followed by a description." Rules `soul-md.personality.bullets` and
/// `soul-md.personality.trait`.
fn check_personality(
    section: &Section<'_>,
    locate: &Locator<'_>,
    settings: &Settings<'_>,
    report: &mut Report,
) {
    let planted = |switch: Planted| settings.planted(switch.name());
    let bullets: Vec<_> = lists(section, false).collect();
    if bullets.is_empty() {
        report.should(
            planted(Planted::PersonalityNotBulletedError),
            "soul-md.personality.bullets",
            Some(locate.at(section.offset)),
            "Personality holds no bulleted list",
        );
        return;
    }
    let items: Vec<&Item> = bullets.iter().flat_map(|(_, list)| &list.items).collect();
    let sources: Vec<&str> = items
        .iter()
        .filter_map(|item| item.paragraph.as_deref())
        .collect();
    let mut leads = outline::leads(&sources).into_iter();
    for item in items {
        let lead = item.paragraph.as_ref().and_then(|_| leads.next());
        if !has_label_and_description(lead.as_ref()) {
            report.should(
                planted(Planted::PersonalityTraitError),
                "soul-md.personality.trait",
                Some(locate.at(item.offset)),
                "this trait has no label followed by a description",
            );
        }
    }
}

/// Separators allowed between a label and its description.
const SEPARATORS: [char; 5] = ['-', '–', '—', ':', '：'];

/// The catalogue's reading of "a short label followed by a description": a bold label
/// followed by visible text (a separator between them optional), or plain text split by
/// its first colon, en or em dash, or spaced hyphen, with visible text on both sides.
fn has_label_and_description(lead: Option<&Lead>) -> bool {
    let Some(Lead {
        bold_label,
        after_label,
        plain,
    }) = lead
    else {
        return false;
    };
    if let Some(label) = bold_label {
        let description =
            after_label.trim_start_matches(|c: char| c.is_whitespace() || SEPARATORS.contains(&c));
        return visible(label) && visible(description);
    }
    let split = [":", "：", "–", "—", " - "]
        .iter()
        .filter_map(|separator| plain.find(separator).map(|at| (at, separator.len())))
        .min();
    split.is_some_and(|(at, length)| visible(&plain[..at]) && visible(&plain[at + length..]))
}

/// The mistakes that reject what the spec allows, beyond the soft checks made errors.
fn check_planted_rejections(
    blocks: &[Block],
    sections: &[Section<'_>],
    locate: &Locator<'_>,
    settings: &Settings<'_>,
    report: &mut Report,
) {
    let planted = |switch: Planted| settings.planted(switch.name());
    for block in blocks {
        let at = Some(locate.at(block.offset));
        match &block.kind {
            Kind::Code { fenced: true } if planted(Planted::CodeBlockRejected) => {
                report.error(
                    "soul-md.mistake",
                    at,
                    "a fenced code block (no executable code)",
                );
            }
            Kind::Heading(heading)
                if heading.depth >= 3 && planted(Planted::SubsectionRejected) =>
            {
                report.error("soul-md.mistake", at, "a heading below level 2");
            }
            _ => {}
        }
    }
    if planted(Planted::UnknownSectionRejected) {
        for section in sections.iter().filter(|section| section.known.is_none()) {
            report.error(
                "soul-md.mistake",
                Some(locate.at(section.offset)),
                "a section the spec does not name",
            );
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn section_names() {
        assert_eq!(known_section("identity"), Some("Identity"));
        assert_eq!(
            known_section("Personality（溫暖、專業）"),
            Some("Personality")
        );
        assert_eq!(
            known_section("Personality (warm, precise)"),
            Some("Personality")
        );
        assert_eq!(known_section("Identityfoo"), None);
        assert_eq!(known_section("Identity#"), None);
        assert_eq!(known_section("Identity and goals"), None);
        assert_eq!(known_section("Tone"), Some("Tone"));
        assert_eq!(
            known_section("Terminology & Tone"),
            Some("Terminology & Tone")
        );
    }
}
