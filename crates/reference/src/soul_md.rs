//! SOUL.md, the DuDuClaw agent identity document ("SOUL.md Format Specification v1.0" in
//! SPECS.md): freeform Markdown with four hard checks (UTF-8, a role title, no frontmatter, the stored SHA-256
//! fingerprint) and soft ones reported as warnings (the required sections, the shape of
//! the Personality and Core Responsibilities lists, heading levels, size).
//!
//! The checker reads the text with pulldown-cmark, so CommonMark decides what a heading or
//! a list is, and keeps a small outline of it: the headings and the lists that are direct
//! children of the document, with their byte spans in the original file. The rules are
//! checked against that outline. The catalogue (`cases/soul-md/rules.toml`) records every
//! reading the spec leaves open; the comments below name the rule each check enforces.

use std::cell::OnceCell;
use std::collections::HashMap;

use pulldown_cmark::{Event, HeadingLevel, Options, Parser, Tag, TagEnd};
use sha2::{Digest, Sha256};

use crate::diagnostic::rules::soul_md as rule;
use crate::diagnostic::{Diagnostic, Format, LineIndex, Location, Report, RuleId, Span};
use crate::text;
use crate::{Context, Input, Profile, Unsupported};

/// The recommended maximum size, in estimated tokens (spec: "keep under 4,000 tokens").
pub const RECOMMENDED_MAX_TOKENS: usize = 4_000;

/// Largest file read, in bytes; a larger one is not read (`soul-md.size.max`, a bound of
/// the reference: the spec sets no hard limit, so the spec profile does not judge it).
pub const MAX_BYTES: usize = 1024 * 1024;

/// Bytes counted as one token by the size estimate; see `soul-md.size.tokens`.
pub const BYTES_PER_TOKEN: usize = 4;

/// Smallest and largest number of Core Responsibilities (spec: "Numbered list of 4-8").
pub const RESPONSIBILITIES: std::ops::RangeInclusive<usize> = 4..=8;

/// The key of the stored fingerprint in the case context and on the command line.
pub const FINGERPRINT_CONTEXT_KEY: &str = "fingerprint";

const BOM: &str = "\u{FEFF}";

const IDENTITY: &str = "Identity";
const PERSONALITY: &str = "Personality";
const CORE_RESPONSIBILITIES: &str = "Core Responsibilities";

/// The required sections other than Identity, in the spec's order.
const OTHER_REQUIRED: &[&str] = &[
    PERSONALITY,
    CORE_RESPONSIBILITIES,
    "Response Style",
    "Escalation Rules",
];

/// Every section name the spec knows: the required ones, then the optional ones (the
/// table's four and the two spellings of the tone section).
const KNOWN_SECTIONS: &[&str] = &[
    IDENTITY,
    PERSONALITY,
    CORE_RESPONSIBILITIES,
    "Response Style",
    "Escalation Rules",
    "Domain Knowledge",
    "Greeting Templates",
    "Prohibited Topics",
    "Evolution Notes",
    "Terminology & Tone",
    "Tone",
];

/// The parenthesis pairs that may hold a qualifier after a section name.
const QUALIFIER_PARENTHESES: &[(char, char)] = &[('(', ')'), ('（', '）')];

/// Characters that may stand between a bold trait label and its description.
const LABEL_SEPARATORS: &[char] = &[':', '：', '—', '–', '-'];

/// The fingerprint of a SOUL.md: the SHA-256 digest of its exact bytes as 64 lowercase
/// hex digits (`soul-md.fingerprint.digest`). Nothing is normalised first.
pub fn fingerprint_of(bytes: &[u8]) -> String {
    format!("{:x}", Sha256::digest(bytes))
}

/// The size estimate of `soul-md.size.tokens`: bytes divided by four, rounded up.
pub fn estimated_tokens(bytes: &[u8]) -> usize {
    bytes.len().div_ceil(BYTES_PER_TOKEN)
}

/// The `fingerprint` operation: the document's fingerprint as the report's value; a tree
/// is refused.
pub fn fingerprint(input: Input<'_>, _context: &Context) -> Result<Report, Unsupported> {
    let source = input.document_bytes(Format::SoulMd, "fingerprint")?;
    if let Some(refusal) = oversized(source) {
        return Ok(refusal);
    }
    let mut report = Report::new(Format::SoulMd);
    report.value = Some(serde_json::Value::String(fingerprint_of(source)));
    Ok(report)
}

/// Validates one SOUL.md (`soul-md`, operation `validate`); a tree is refused. `context`
/// may hold the stored fingerprint under [`FINGERPRINT_CONTEXT_KEY`], and the profile (the
/// strict profile adds `soul-md.section.duplicate`).
pub fn validate(input: Input<'_>, context: &Context) -> Result<Report, Unsupported> {
    Ok(check(
        input.document_bytes(Format::SoulMd, "validate")?,
        context,
    ))
}

/// soul-md.size.max (decision: the spec sets no hard limit, the reference reads at most
/// [`MAX_BYTES`]): the report on a larger file, which is checked no further.
fn oversized(source: &[u8]) -> Option<Report> {
    (source.len() > MAX_BYTES).then(|| {
        let mut report = Report::new(Format::SoulMd);
        report.diagnostics.push(Diagnostic::new(
            rule::SIZE_MAX,
            Location::document(),
            format!(
                "the document is {} bytes, over the {MAX_BYTES}-byte limit",
                source.len()
            ),
        ));
        report
    })
}

/// Checks one SOUL.md.
fn check(source: &[u8], context: &Context) -> Report {
    if let Some(refusal) = oversized(source) {
        return refusal;
    }
    let mut checker = Checker {
        source,
        lines: OnceCell::new(),
        report: Report::new(Format::SoulMd),
        strict: crate::profile(context) == Profile::Strict,
    };
    // simdutf8's `compat` errors carry the same offsets as the standard library's.
    match simdutf8::compat::from_utf8(source) {
        Ok(text) => checker.markdown(text),
        Err(error) => checker.invalid_utf8(&error),
    }
    checker.size();
    checker.fingerprint(context);
    checker.report
}

/// A heading that is a direct child of the document.
struct Heading {
    level: HeadingLevel,
    /// Inline content as plain text, trimmed.
    text: String,
    /// Whether the heading has any inline content at all (text, code, HTML, an image),
    /// visible or not: `#` alone and `# ` followed by blanks have none.
    content: bool,
    span: Span,
}

/// A list that is a direct child of the document.
struct List {
    ordered: bool,
    span: Span,
    items: Vec<Item>,
}

/// A top-level item of such a list.
struct Item {
    span: Span,
    /// The item's first paragraph as runs of bold and plain text.
    lead: Vec<Run>,
}

/// A run of inline text that is all bold or all not bold.
struct Run {
    bold: bool,
    text: String,
}

/// What the rules look at.
#[derive(Default)]
struct Outline {
    /// The frontmatter block, when the document starts with one.
    frontmatter: Option<Span>,
    headings: Vec<Heading>,
    lists: Vec<List>,
}

/// A level-2 heading and the byte range its content runs over.
struct Section<'o> {
    heading: &'o Heading,
    /// The known section it is, if any.
    known: Option<&'static str>,
    /// From the end of the heading to the start of the next heading of level 1 or 2.
    content: std::ops::Range<usize>,
}

impl Section<'_> {
    /// The lists that start inside this section.
    fn lists<'o>(&self, outline: &'o Outline) -> impl Iterator<Item = &'o List> {
        let content = self.content.clone();
        outline
            .lists
            .iter()
            .filter(move |list| content.contains(&list.span.start))
    }
}

struct Checker<'s> {
    source: &'s [u8],
    /// Where lines start, built on the first diagnostic that needs a position, so a
    /// document without located diagnostics is not scanned for them.
    lines: OnceCell<LineIndex>,
    report: Report,
    /// Whether the strict-only rules apply.
    strict: bool,
}

impl Checker<'_> {
    fn lines(&self) -> &LineIndex {
        self.lines.get_or_init(|| LineIndex::new(self.source))
    }

    /// A diagnostic at a place in the text; the marker covers the first line of `span`.
    /// Without room in the report it is only counted (see [`Report::has_room_for`]: a
    /// full report still makes room for its first error, so a rejecting report shows one).
    fn at(&mut self, rule: RuleId, span: Span, message: String) {
        if !self.report.has_room_for(rule) {
            self.report.omit_of(rule, rule.severity, 1);
            return;
        }
        let span = first_line(self.source, span);
        let location = self.lines().location(self.source, span);
        self.report.push(Diagnostic::new(rule, location, message));
    }

    /// A diagnostic about the document as a whole.
    fn whole(&mut self, rule: RuleId, message: String) {
        self.report
            .push(Diagnostic::new(rule, Location::document(), message));
    }

    /// soul-md.encoding.utf8 (spec: "Encoding: UTF-8"; "File must be valid UTF-8").
    /// Text that is not UTF-8 is not read as Markdown at all.
    fn invalid_utf8(&mut self, error: &simdutf8::compat::Utf8Error) {
        let start = error.valid_up_to();
        let length = error
            .error_len()
            .unwrap_or(self.source.len().saturating_sub(start));
        let end = (start + length.max(1)).min(self.source.len());
        let bytes: Vec<String> = self
            .source
            .get(start..end)
            .unwrap_or_default()
            .iter()
            .map(|byte| format!("{byte:02X}"))
            .collect();
        let what = if error.error_len().is_none() {
            "the file ends inside a UTF-8 sequence"
        } else {
            "invalid UTF-8"
        };
        let message = format!(
            "{what} (bytes {} at offset {start}); SOUL.md must be UTF-8",
            bytes.join(" ")
        );
        let location = self.lines().location(self.source, Span::new(start..end));
        self.report
            .diagnostics
            .push(Diagnostic::new(rule::ENCODING_UTF8, location, message));
    }

    fn markdown(&mut self, text: &str) {
        let outline = outline(text);
        // soul-md.frontmatter.forbidden (spec: "Do not use YAML/TOML frontmatter — the file
        // must be pure Markdown").
        if let Some(span) = outline.frontmatter {
            let delimiter = Span::new(span.start..(span.start + 3).min(span.end));
            self.at(
                rule::FRONTMATTER_FORBIDDEN,
                delimiter,
                "the file starts with a frontmatter block; SOUL.md is pure Markdown without YAML or TOML frontmatter".to_owned(),
            );
        }
        self.title(&outline);
        self.heading_levels(&outline);
        let sections = sections(&outline);
        self.required_sections(&sections);
        if self.strict {
            self.duplicate_sections(&sections);
        }
        if let Some(section) = first_known(&sections, CORE_RESPONSIBILITIES) {
            self.responsibilities(section, &outline);
        }
        if let Some(section) = first_known(&sections, PERSONALITY) {
            self.personality(section, &outline);
        }
    }

    /// soul-md.title.required (spec: "File must contain at least one # heading") and, in
    /// the strict profile, soul-md.title.visible (decision: a title of blanks, invisible
    /// characters or an HTML comment names no role).
    fn title(&mut self, outline: &Outline) {
        let mut titles = outline
            .headings
            .iter()
            .filter(|heading| heading.level == HeadingLevel::H1 && heading.content);
        let Some(first) = titles.next() else {
            self.whole(
                rule::TITLE_REQUIRED,
                "no level-1 heading (`# <Role Title>`) with content outside code blocks".to_owned(),
            );
            return;
        };
        let visible = |heading: &Heading| text::has_visible_content(&heading.text);
        if self.strict && !visible(first) && !titles.any(visible) {
            self.at(
                rule::TITLE_VISIBLE,
                first.span,
                "the role title has no visible text (only blanks, invisible characters, HTML or an image without text)".to_owned(),
            );
        }
    }

    /// soul-md.heading.title-single and soul-md.heading.section-level (spec: "Use ## for
    /// all sections; # is reserved for the role title").
    fn heading_levels(&mut self, outline: &Outline) {
        let mut titles = 0usize;
        let mut in_section = false;
        for heading in &outline.headings {
            match heading.level {
                HeadingLevel::H1 => {
                    titles += 1;
                    in_section = false;
                    if titles > 1 {
                        self.at(
                            rule::HEADING_TITLE_SINGLE,
                            heading.span,
                            format!(
                                "a further level-1 heading {:?}; `#` is reserved for the one role title, sections use `##`",
                                heading.text
                            ),
                        );
                    }
                }
                HeadingLevel::H2 => in_section = true,
                level if !in_section => self.at(
                    rule::HEADING_SECTION_LEVEL,
                    heading.span,
                    format!(
                        "level-{} heading {:?} outside any `##` section; sections use `##`",
                        level as u8, heading.text
                    ),
                ),
                _ => {}
            }
        }
    }

    /// soul-md.section.identity (spec: "File should contain ## Identity section (warning
    /// if missing)") and soul-md.section.required (spec: Required Sections).
    fn required_sections(&mut self, sections: &[Section<'_>]) {
        if first_known(sections, IDENTITY).is_none() {
            self.whole(
                rule::SECTION_IDENTITY,
                "no `## Identity` section".to_owned(),
            );
        }
        for name in OTHER_REQUIRED {
            if first_known(sections, name).is_none() {
                self.whole(rule::SECTION_REQUIRED, format!("no `## {name}` section"));
            }
        }
    }

    /// soul-md.section.duplicate, strict profile only (decision: the Evolution Engine
    /// locates sections by their heading, so a repeated section is ambiguous).
    fn duplicate_sections(&mut self, sections: &[Section<'_>]) {
        // Where each section name first appears; its line is only looked up for a message.
        let mut first_starts: HashMap<String, usize> = HashMap::new();
        for section in sections {
            let key = match section.known {
                Some(name) => name.to_lowercase(),
                None => section.heading.text.to_lowercase(),
            };
            match first_starts.get(&key) {
                // Only counted when the report has no room: no message is built.
                Some(_) if !self.report.has_room_for(rule::SECTION_DUPLICATE) => {
                    self.report.omit_of(
                        rule::SECTION_DUPLICATE,
                        rule::SECTION_DUPLICATE.severity,
                        1,
                    );
                }
                Some(&start) => {
                    let first = self.lines().position(self.source, start).line;
                    let message = format!(
                        "section {:?} repeats the section at line {first}",
                        section.heading.text
                    );
                    self.at(rule::SECTION_DUPLICATE, section.heading.span, message);
                }
                None => {
                    first_starts.insert(key, section.heading.span.start);
                }
            }
        }
    }

    /// soul-md.responsibilities.numbered and soul-md.responsibilities.count (spec:
    /// "Numbered list of 4-8 main operational duties").
    fn responsibilities(&mut self, section: &Section<'_>, outline: &Outline) {
        let ordered: Vec<&List> = section.lists(outline).filter(|list| list.ordered).collect();
        let Some(first) = ordered.first() else {
            self.at(
                rule::RESPONSIBILITIES_NUMBERED,
                section.heading.span,
                "Core Responsibilities holds no numbered list".to_owned(),
            );
            return;
        };
        let count: usize = ordered.iter().map(|list| list.items.len()).sum();
        if !RESPONSIBILITIES.contains(&count) {
            let message = format!(
                "{count} numbered responsibilities; there should be {} to {}",
                RESPONSIBILITIES.start(),
                RESPONSIBILITIES.end()
            );
            self.at(rule::RESPONSIBILITIES_COUNT, first.span, message);
        }
    }

    /// soul-md.personality.bullets and soul-md.personality.trait (spec: "Bulleted list of
    /// personality traits. Each trait has a short label followed by a description").
    fn personality(&mut self, section: &Section<'_>, outline: &Outline) {
        let bullets: Vec<&List> = section
            .lists(outline)
            .filter(|list| !list.ordered)
            .collect();
        if bullets.is_empty() {
            self.at(
                rule::PERSONALITY_BULLETS,
                section.heading.span,
                "Personality holds no bulleted list of traits".to_owned(),
            );
            return;
        }
        for item in bullets.iter().flat_map(|list| &list.items) {
            if !has_label_and_description(&item.lead) {
                self.at(
                    rule::PERSONALITY_TRAIT,
                    item.span,
                    "a trait should be a short label followed by a description, e.g. `**Patient** — handle repeated questions gracefully`".to_owned(),
                );
            }
        }
    }

    /// soul-md.size.tokens (spec: "keep under 4,000 tokens for optimal prompt injection").
    fn size(&mut self) {
        let tokens = estimated_tokens(self.source);
        if tokens > RECOMMENDED_MAX_TOKENS {
            self.whole(
                rule::SIZE_TOKENS,
                format!(
                    "about {tokens} tokens ({} bytes / {BYTES_PER_TOKEN}, rounded up); keep SOUL.md to at most {RECOMMENDED_MAX_TOKENS}",
                    self.source.len()
                ),
            );
        }
    }

    /// soul-md.fingerprint.match (spec: "SHA-256 hash must match stored fingerprint").
    fn fingerprint(&mut self, context: &Context) {
        let Some(stored) = context.get(FINGERPRINT_CONTEXT_KEY) else {
            return;
        };
        let actual = fingerprint_of(self.source);
        let message = match stored.as_str().map(str::trim) {
            None => format!(
                "the stored fingerprint is not a string; the file's SHA-256 is {actual}"
            ),
            Some(stored) if !is_sha256_hex(stored) => format!(
                "the stored fingerprint {} is not 64 hex digits, so it matches nothing; the file's SHA-256 is {actual}",
                abbreviate(stored)
            ),
            Some(stored) if stored.eq_ignore_ascii_case(&actual) => return,
            Some(stored) => format!(
                "SHA-256 fingerprint drift: the file's is {actual}, the stored one is {}",
                stored.to_ascii_lowercase()
            ),
        };
        self.whole(rule::FINGERPRINT_MATCH, message);
    }
}

/// Reads the document into an outline. A leading byte order mark and a frontmatter block
/// are set aside first; every span is an offset into the original text.
fn outline(source: &str) -> Outline {
    let mut outline = Outline::default();
    let mut offset = if source.starts_with(BOM) {
        BOM.len()
    } else {
        0
    };
    // Frontmatter is a metadata block opening the document. The metadata extensions are
    // only asked about the first block: elsewhere they would read a thematic break and a
    // setext heading as metadata, which CommonMark does not. They end lines at LF only, so
    // they are given a copy in which every lone CR (a line ending in CommonMark) is an LF:
    // the same length, so every offset still points into the original.
    let start = offset;
    let rest = lone_cr_as_lf(source.get(offset..).unwrap_or_default());
    let mut metadata = Options::empty();
    metadata.insert(Options::ENABLE_YAML_STYLE_METADATA_BLOCKS);
    metadata.insert(Options::ENABLE_PLUSES_DELIMITED_METADATA_BLOCKS);
    let frontmatter = if may_open_with_metadata(&rest) {
        let delimited = delimiter_tabs_as_spaces(&rest);
        Parser::new_ext(&delimited, metadata)
            .into_offset_iter()
            .next()
            .map(|(event, range)| (matches!(event, Event::Start(Tag::MetadataBlock(_))), range))
    } else {
        None
    };
    if let Some((true, range)) = frontmatter {
        outline.frontmatter = Some(Span::new(offset + range.start..offset + range.end));
        offset += range.end;
    }
    // The body is walked in the same copy: pulldown-cmark ends the lines of an HTML block
    // or a fenced code block at LF only, so over lone CRs it would run such a block to the
    // end of the document (and miss the title after it, or find one inside it).
    let body = rest.get(offset - start..).unwrap_or_default();
    Walker {
        offset,
        outline: &mut outline,
        depth: 0,
        heading: None,
        list: None,
        item: None,
        lead_open: false,
        bold: 0,
    }
    .walk(body);
    outline
}

/// `text` with every CR that is not followed by LF replaced by LF, byte for byte.
fn lone_cr_as_lf(text: &str) -> std::borrow::Cow<'_, str> {
    let bytes = text.as_bytes();
    let lone = |at: usize| bytes[at] == b'\r' && bytes.get(at + 1) != Some(&b'\n');
    // Only the CRs are looked at, found with a vectorized search.
    if !memchr::memchr_iter(b'\r', bytes).any(lone) {
        return std::borrow::Cow::Borrowed(text);
    }
    let replaced: String = text
        .char_indices()
        .map(|(at, c)| if lone(at) { '\n' } else { c })
        .collect();
    std::borrow::Cow::Owned(replaced)
}

/// `text` with the tabs of every delimiter-only line (`---`, `...` or `+++`, then spaces or
/// tabs) turned into spaces, byte for byte. The metadata extensions end a block at a
/// delimiter followed by spaces but not by a tab; whitespace after a delimiter is read one
/// way, as the skill-package head reads it (`soul-md.frontmatter.forbidden`). Only the
/// copy the metadata block is looked for in changes: in the body a tab and a space after
/// such a line mean the same to CommonMark anyway.
fn delimiter_tabs_as_spaces(text: &str) -> std::borrow::Cow<'_, str> {
    let is_delimiter = |line: &str| {
        let bare = line.trim_end_matches([' ', '\t', '\r']);
        matches!(bare, "---" | "..." | "+++") && line[bare.len()..].contains('\t')
    };
    if !text.split('\n').any(is_delimiter) {
        return std::borrow::Cow::Borrowed(text);
    }
    let lines: Vec<String> = text
        .split('\n')
        .map(|line| {
            if is_delimiter(line) {
                line.replace('\t', " ")
            } else {
                line.to_owned()
            }
        })
        .collect();
    std::borrow::Cow::Owned(lines.join("\n"))
}

/// Whether the parser with metadata blocks enabled may give a metadata block as the first
/// event of `text`. The parser reads the block structure of the whole text before it gives
/// any event, so this check spares most documents a second full read. A metadata block is
/// the first event only when no block came before it, and every line before it is then
/// blank or part of a link reference definition (which makes no block): so the first line
/// that is not blank starts with a delimiter (`-` or `+`) or with the `[` of a definition.
/// Any other first line opens another block first. Lines of ASCII whitespace count as
/// blank and leading whitespace is skipped, which only ever errs towards reading the
/// document twice; the line tabulation (U+000B) counts too, since the parser takes a line
/// of it as blank where `char::is_ascii_whitespace` does not.
fn may_open_with_metadata(text: &str) -> bool {
    text.split('\n')
        .map(|line| line.trim_start_matches(|c: char| c.is_ascii_whitespace() || c == '\u{0B}'))
        .find(|line| !line.is_empty())
        .is_some_and(|line| line.starts_with(['-', '+', '[']))
}

/// The state of one pass over the parser's events.
struct Walker<'o> {
    /// Where the parsed text starts in the file.
    offset: usize,
    outline: &'o mut Outline,
    /// How many tags are open; 0 is the document itself.
    depth: usize,
    heading: Option<Heading>,
    list: Option<List>,
    item: Option<Item>,
    /// Whether inline text still belongs to the current item's first paragraph.
    lead_open: bool,
    /// How many bold spans are open.
    bold: usize,
}

impl Walker<'_> {
    fn walk(&mut self, body: &str) {
        for (event, range) in Parser::new_ext(body, Options::empty()).into_offset_iter() {
            let span = Span::new(self.offset + range.start..self.offset + range.end);
            // Every event between a heading's start and end is some of its content.
            if let Some(heading) = self.heading.as_mut() {
                heading.content |= !matches!(event, Event::End(TagEnd::Heading(_)));
            }
            match event {
                Event::Start(tag) => {
                    self.start(&tag, span);
                    self.depth += 1;
                }
                Event::End(end) => {
                    self.depth = self.depth.saturating_sub(1);
                    self.end(end);
                }
                Event::Text(text) | Event::Code(text) => self.text(&text),
                Event::SoftBreak | Event::HardBreak => self.text(" "),
                _ => {}
            }
        }
    }

    fn start(&mut self, tag: &Tag<'_>, span: Span) {
        match tag {
            Tag::Heading { level, .. } if self.depth == 0 => {
                self.heading = Some(Heading {
                    level: *level,
                    text: String::new(),
                    content: false,
                    span,
                });
            }
            Tag::List(first_number) if self.depth == 0 => {
                self.list = Some(List {
                    ordered: first_number.is_some(),
                    span,
                    items: Vec::new(),
                });
            }
            Tag::Item if self.depth == 1 && self.list.is_some() => {
                self.item = Some(Item {
                    span,
                    lead: Vec::new(),
                });
                self.lead_open = true;
            }
            // The first paragraph of a loose item is its lead; in a tight item the text
            // comes without a paragraph.
            Tag::Paragraph
                if self.depth == 2 && self.item.as_ref().is_some_and(|i| i.lead.is_empty()) => {}
            Tag::Strong => self.bold += 1,
            // Any other block inside an item (a nested list, a code block, a second
            // paragraph) ends the lead.
            other if self.depth >= 2 && !is_inline(other) => self.lead_open = false,
            _ => {}
        }
    }

    fn end(&mut self, end: TagEnd) {
        match end {
            TagEnd::Heading(_) if self.depth == 0 => {
                if let Some(mut heading) = self.heading.take() {
                    heading.text = heading.text.trim().to_owned();
                    self.outline.headings.push(heading);
                }
            }
            TagEnd::List(_) if self.depth == 0 => {
                if let Some(list) = self.list.take() {
                    self.outline.lists.push(list);
                }
            }
            TagEnd::Item if self.depth == 1 => {
                if let (Some(list), Some(item)) = (self.list.as_mut(), self.item.take()) {
                    list.items.push(item);
                }
                self.lead_open = false;
            }
            TagEnd::Paragraph if self.depth == 2 => self.lead_open = false,
            TagEnd::Strong => self.bold = self.bold.saturating_sub(1),
            _ => {}
        }
    }

    fn text(&mut self, text: &str) {
        if let Some(heading) = self.heading.as_mut() {
            heading.text.push_str(text);
        }
        if !self.lead_open {
            return;
        }
        let Some(item) = self.item.as_mut() else {
            return;
        };
        let bold = self.bold > 0;
        match item.lead.last_mut() {
            Some(run) if run.bold == bold => run.text.push_str(text),
            _ => item.lead.push(Run {
                bold,
                text: text.to_owned(),
            }),
        }
    }
}

/// Inline tags, which do not end an item's lead paragraph.
fn is_inline(tag: &Tag<'_>) -> bool {
    matches!(
        tag,
        Tag::Emphasis
            | Tag::Strong
            | Tag::Strikethrough
            | Tag::Superscript
            | Tag::Subscript
            | Tag::Link { .. }
            | Tag::Image { .. }
    )
}

/// The level-2 headings with the content each one heads.
fn sections(outline: &Outline) -> Vec<Section<'_>> {
    let headings = &outline.headings;
    headings
        .iter()
        .enumerate()
        .filter(|(_, heading)| heading.level == HeadingLevel::H2)
        .map(|(index, heading)| {
            let end = headings[index + 1..]
                .iter()
                .find(|next| next.level <= HeadingLevel::H2)
                .map_or(usize::MAX, |next| next.span.start);
            Section {
                heading,
                known: KNOWN_SECTIONS
                    .iter()
                    .copied()
                    .find(|name| names_section(&heading.text, name)),
                content: heading.span.end..end,
            }
        })
        .collect()
}

/// The first section that is the known section `name`.
fn first_known<'a, 'o>(sections: &'a [Section<'o>], name: &str) -> Option<&'a Section<'o>> {
    sections.iter().find(|section| section.known == Some(name))
}

/// Whether heading text names the section `name`: the same words ignoring letter case,
/// optionally followed by one parenthesised qualifier, as in `Personality（溫暖、專業）`.
fn names_section(heading: &str, name: &str) -> bool {
    let heading = heading.to_lowercase();
    let Some(rest) = heading.strip_prefix(&name.to_lowercase()) else {
        return false;
    };
    if rest.is_empty() {
        return true;
    }
    let rest = rest.trim_start();
    QUALIFIER_PARENTHESES.iter().any(|&(open, close)| {
        rest.strip_prefix(open)
            .and_then(|inner| inner.strip_suffix(close))
            .is_some_and(|inner| !inner.contains([')', '）']))
    })
}

/// Whether a Personality item's lead is a label followed by a description.
fn has_label_and_description(lead: &[Run]) -> bool {
    let mut runs = lead.iter().skip_while(|run| run.text.trim().is_empty());
    let Some(first) = runs.next() else {
        return false;
    };
    if first.bold {
        // `**Label** — description`: the bold run is the label.
        let rest: String = runs.map(|run| run.text.as_str()).collect();
        let description =
            rest.trim_start_matches(|c: char| c.is_whitespace() || LABEL_SEPARATORS.contains(&c));
        return text::has_visible_content(&first.text) && text::has_visible_content(description);
    }
    // `Label: description` and `Label — description` in plain text.
    let plain: String = lead.iter().map(|run| run.text.as_str()).collect();
    split_label(&plain).is_some_and(|(label, description)| {
        text::has_visible_content(label) && text::has_visible_content(description)
    })
}

/// Splits plain trait text at the first colon, en or em dash, or spaced hyphen.
fn split_label(plain: &str) -> Option<(&str, &str)> {
    const SEPARATORS: &[&str] = &[":", "：", "—", "–", " - "];
    SEPARATORS
        .iter()
        .filter_map(|separator| plain.find(separator).map(|at| (at, at + separator.len())))
        .min_by_key(|&(at, _)| at)
        .map(|(at, after)| (&plain[..at], &plain[after..]))
}

/// Whether a stored fingerprint has the shape of a SHA-256 hex digest.
fn is_sha256_hex(value: &str) -> bool {
    value.len() == 64 && value.bytes().all(|byte| byte.is_ascii_hexdigit())
}

/// A stored value quoted for a message, shortened when long.
fn abbreviate(value: &str) -> String {
    const LIMIT: usize = 80;
    if value.chars().count() <= LIMIT {
        format!("{value:?}")
    } else {
        let head: String = value.chars().take(LIMIT).collect();
        format!("{head:?}…")
    }
}

/// The part of `span` on its first line, so a marker underlines one line of source.
fn first_line(source: &[u8], span: Span) -> Span {
    let end = span.end.min(source.len()).max(span.start);
    let stop = source
        .get(span.start..end)
        .and_then(|bytes| bytes.iter().position(|&b| b == b'\n' || b == b'\r'))
        .map_or(end, |at| span.start + at);
    Span::new(span.start..stop.max(span.start))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(text: &str) -> Vec<Run> {
        vec![Run {
            bold: false,
            text: text.to_owned(),
        }]
    }

    #[test]
    fn section_names() {
        assert!(names_section("Identity", IDENTITY));
        assert!(names_section("IDENTITY", IDENTITY));
        assert!(names_section("Personality（溫暖、專業）", PERSONALITY));
        assert!(names_section("Personality (warm)", PERSONALITY));
        for other in [
            "Identityfoo",
            "Identity#",
            "Identity and goals",
            "Identity (a) (b)",
            "My Identity",
            "Identity (",
        ] {
            assert!(!names_section(other, IDENTITY), "{other}");
        }
        assert!(names_section("Tone", "Tone"));
        assert!(!names_section("Terminology & Tone", "Tone"));
    }

    #[test]
    fn trait_labels() {
        let bold = |label: &str, rest: &str| {
            vec![
                Run {
                    bold: true,
                    text: label.to_owned(),
                },
                Run {
                    bold: false,
                    text: rest.to_owned(),
                },
            ]
        };
        assert!(has_label_and_description(&bold("Warm", " — greet")));
        assert!(has_label_and_description(&bold("溫暖", "：熱情招呼")));
        assert!(!has_label_and_description(&bold("Warm", " — ")));
        assert!(!has_label_and_description(&bold("Warm", "")));
        assert!(has_label_and_description(&run("Warm: greet everyone")));
        assert!(has_label_and_description(&run("Warm - greet everyone")));
        assert!(has_label_and_description(&run("Warm—greet everyone")));
        assert!(!has_label_and_description(&run("Well-known and friendly")));
        assert!(!has_label_and_description(&run("Patient")));
        assert!(!has_label_and_description(&run(": nothing before")));
        assert!(!has_label_and_description(&[]));
    }

    #[test]
    fn fingerprint_is_lowercase_hex_of_raw_bytes() {
        assert_eq!(
            fingerprint_of(b""),
            "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"
        );
        assert_ne!(fingerprint_of(b"# T\n"), fingerprint_of(b"# T\r\n"));
    }

    /// The shortcut never skips a document whose first event is a metadata block.
    #[test]
    fn metadata_shortcut_keeps_every_frontmatter() {
        let mut metadata = Options::empty();
        metadata.insert(Options::ENABLE_YAML_STYLE_METADATA_BLOCKS);
        metadata.insert(Options::ENABLE_PLUSES_DELIMITED_METADATA_BLOCKS);
        let documents = [
            "---\na: 1\n---\n# T\n",
            "+++\na = 1\n+++\n# T\n",
            "\n\n---\na: 1\n---\n# T\n",
            " \t\n---\na: 1\n...\n",
            "\r\n---\r\na: 1\r\n---\r\n",
            "[x]: /url\n---\na: 1\n---\n",
            "[x]:\n/url\n'title'\n---\na: 1\n---\n",
            "# T\n---\na: 1\n---\n",
            "> ---\n> a: 1\n> ---\n",
            "- ---\n  a: 1\n  ---\n",
            "text\n\n---\na: 1\n---\n",
            "    ---\na: 1\n---\n",
            "",
            "\n \n",
            "\u{0B}\n---\na: 1\n---\n# T\n",
        ];
        let mut frontmatters = 0;
        for document in documents {
            let first = Parser::new_ext(document, metadata).next();
            if matches!(first, Some(Event::Start(Tag::MetadataBlock(_)))) {
                assert!(may_open_with_metadata(document), "{document:?}");
                frontmatters += 1;
            }
        }
        // Link reference definitions, and a line of a line tabulation, before the block
        // are among them.
        assert_eq!(frontmatters, 8);
        assert!(!may_open_with_metadata("# Title\n\n---\na: 1\n---\n"));
    }

    /// Frontmatter with lone CR line endings is found as with LF or CRLF, at the same
    /// offsets.
    #[test]
    fn frontmatter_with_any_line_ending() {
        for document in [
            "---\ntitle: x\n---\n# T\n",
            "---\r\ntitle: x\r\n---\r\n# T\r\n",
            "---\rtitle: x\r---\r# T\r",
            "+++\rtitle = 1\r+++\r# T\r",
            "---\t\ntitle: x\n---\t\n# T\n",
            "--- \ntitle: x\n... \t\n# T\n",
            "+++\t\r\ntitle = 1\r\n+++ \t\r\n# T\r\n",
        ] {
            let outline = outline(document);
            let span = outline.frontmatter.expect(document);
            assert_eq!(span.start, 0, "{document:?}");
            assert!(span.end <= document.find("# T").unwrap(), "{document:?}");
            assert_eq!(outline.headings.len(), 1, "{document:?}");
        }
        assert_eq!(lone_cr_as_lf("a\rb\r\nc\r"), "a\nb\r\nc\n");
        assert!(matches!(
            lone_cr_as_lf("a\r\n"),
            std::borrow::Cow::Borrowed(_)
        ));
    }

    #[test]
    fn token_estimate_boundary() {
        assert_eq!(estimated_tokens(&[b'a'; 16_000]), 4_000);
        assert_eq!(estimated_tokens(&[b'a'; 16_001]), 4_001);
        assert_eq!(estimated_tokens(b""), 0);
    }
}
