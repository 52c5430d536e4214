//! The document's block structure, read by markdown-rs as CommonMark (the catalogue's
//! header: Markdown decides what a heading or a list is). Only the document's direct
//! children are kept: a heading or a list inside a block quote or a list item is quoted or
//! nested content, never the title, a section or a section's list.
//!
//! markdown-rs is exact but not linear: its cost grows with the square of the lines of the
//! text it is given (and of the inline delimiters of one paragraph, and of the nesting of
//! containers on one line). So the text is read in two passes of bounded size (see
//! [`super::chunks`]): the block structure window by window with the inline constructs
//! off, then the inline content of the headings and list items the checks read, in
//! batches. What this changes against one whole-document parse: link reference
//! definitions are not applied to that inline content (`[x][ref]` stays text), and a
//! heading or list item longer than [`INLINE_LIMIT`] bytes is read as its raw text (a
//! level-1 heading up to [`TITLE_LIMIT`] bytes is still parsed when no other one names the
//! role).

use std::ops::Range;

use markdown::mdast::Node;
use markdown::{Constructs, ParseOptions};

use super::chunks::{self, Prepared, RawBlock, RawKind};

/// Longest heading or list-item paragraph whose inline content is parsed in a batch.
pub(super) const INLINE_LIMIT: usize = 4096;

/// Longest level-1 heading parsed on its own when no shorter one has visible text.
pub(super) const TITLE_LIMIT: usize = 16384;

/// Headings and paragraphs parsed together in one inline batch, at most.
const BATCH_ITEMS: usize = 64;

/// Bytes of one inline batch, at most (past one item longer than that).
const BATCH_BYTES: usize = 64 * 1024;

/// One top-level block, with the byte offset (in the text given to [`read`]) where it
/// starts.
#[derive(Debug, Clone)]
pub(super) struct Block {
    /// What it is.
    pub kind: Kind,
    /// Offset of its first character.
    pub offset: usize,
}

/// The blocks the checks look at; everything else is `Other`.
#[derive(Debug, Clone)]
pub(super) enum Kind {
    /// An ATX or setext heading.
    Heading(Heading),
    /// A bullet or ordered list.
    List(List),
    /// A code block, fenced (``` or ~~~) or indented.
    Code {
        /// Written with a fence.
        fenced: bool,
    },
    /// A paragraph, a block quote, an HTML block, a thematic break...
    Other,
}

/// A heading and its text.
#[derive(Debug, Clone)]
pub(super) struct Heading {
    /// 1 to 6.
    pub depth: u8,
    /// Its inline content as plain text (emphasis markers dropped, code spans kept, line
    /// breaks read as spaces), trimmed.
    pub text: String,
    /// Only its direct text nodes, trimmed (what a reader that does not descend into
    /// emphasis or code spans sees).
    pub direct_text: String,
}

/// A list and its items.
#[derive(Debug, Clone)]
pub(super) struct List {
    /// Numbered (`1.` or `1)`), not bulleted.
    pub ordered: bool,
    /// Its items, in order.
    pub items: Vec<Item>,
}

/// One list item.
#[derive(Debug, Clone)]
pub(super) struct Item {
    /// Offset of the item's marker.
    pub offset: usize,
    /// The source of its first paragraph, when the item opens with one; [`leads`] reads
    /// it (only the Personality traits need it, so it is parsed on demand).
    pub paragraph: Option<String>,
}

/// The first paragraph of a list item, as the trait check reads it.
#[derive(Debug, Clone)]
pub(super) struct Lead {
    /// The plain text of its opening bold span, when it opens with one.
    pub bold_label: Option<String>,
    /// The plain text after that bold span.
    pub after_label: String,
    /// The plain text of the whole paragraph.
    pub plain: String,
}

/// Reads `text` as CommonMark and returns its top-level blocks. `Err` when the text lies
/// outside what this reader judges within bounded cost (see [`super::chunks`]).
pub(super) fn read(text: &str) -> Result<Vec<Block>, String> {
    let prepared = chunks::prepare(text)?;
    let raw_blocks = chunks::structure(&prepared.text)?;
    let source = |range: &Range<usize>| prepared.text.get(range.clone()).unwrap_or("");
    let heading_sources: Vec<&str> = raw_blocks
        .iter()
        .filter_map(|raw| match &raw.kind {
            RawKind::Heading { content, .. } => Some(source(content)),
            _ => None,
        })
        .collect();
    let mut heading_texts = parse_inline_batches(&heading_sources).into_iter();
    let mut blocks = Vec::with_capacity(raw_blocks.len());
    for raw in &raw_blocks {
        let kind = match &raw.kind {
            RawKind::Heading { depth, content } => {
                let (text, direct_text) = match heading_texts.next().flatten() {
                    Some(children) => (plain_text(&children), direct_text(&children)),
                    None => (spaced(source(content)), spaced(source(content))),
                };
                Kind::Heading(Heading {
                    depth: *depth,
                    text,
                    direct_text,
                })
            }
            RawKind::List { ordered, items } => Kind::List(List {
                ordered: *ordered,
                items: items
                    .iter()
                    .map(|item| Item {
                        offset: prepared.original(item.offset),
                        paragraph: item
                            .paragraph
                            .as_ref()
                            .map(|range| source(range).to_owned()),
                    })
                    .collect(),
            }),
            RawKind::Code { fenced } => Kind::Code { fenced: *fenced },
            RawKind::Other => Kind::Other,
        };
        blocks.push(Block {
            kind,
            offset: prepared.original(raw.offset),
        });
    }
    resolve_long_titles(&prepared, &raw_blocks, &mut blocks);
    Ok(blocks)
}

/// The leads of list items from their first paragraphs' sources, parsed in batches; a
/// paragraph longer than [`INLINE_LIMIT`] is read as its raw text.
pub(super) fn leads(paragraphs: &[&str]) -> Vec<Lead> {
    parse_inline_batches(paragraphs)
        .into_iter()
        .zip(paragraphs)
        .map(|(children, source)| match children {
            Some(children) => lead(&children),
            None => raw_lead(source),
        })
        .collect()
}

/// A level-1 heading too long for a batch was read as its raw text; when no level-1
/// heading has visible text by an exact reading, the long ones are parsed one at a time
/// (up to [`TITLE_LIMIT`] bytes) until one has.
fn resolve_long_titles(prepared: &Prepared, raw_blocks: &[RawBlock], blocks: &mut [Block]) {
    let is_long_title = |raw: &RawBlock| matches!(&raw.kind, RawKind::Heading { depth: 1, content } if content.len() > INLINE_LIMIT);
    let exact_title = raw_blocks.iter().zip(blocks.iter()).any(|(raw, block)| {
        !is_long_title(raw)
            && matches!(&block.kind, Kind::Heading(heading) if heading.depth == 1 && super::structure::visible(&heading.text))
    });
    if exact_title {
        return;
    }
    for (raw, block) in raw_blocks.iter().zip(blocks.iter_mut()) {
        let (RawKind::Heading { content, .. }, Kind::Heading(heading)) =
            (&raw.kind, &mut block.kind)
        else {
            continue;
        };
        if !is_long_title(raw) || content.len() > TITLE_LIMIT {
            continue;
        }
        let source = prepared.text.get(content.clone()).unwrap_or("");
        if let Some(children) = parse_batch(&[source]).into_iter().next().flatten() {
            heading.text = plain_text(&children);
            heading.direct_text = direct_text(&children);
        }
        if super::structure::visible(&heading.text) {
            return;
        }
    }
}

/// The inline content of each source (a heading's content, a paragraph), parsed in
/// batches; `None` for one longer than [`INLINE_LIMIT`]. An empty source has no content.
fn parse_inline_batches(sources: &[&str]) -> Vec<Option<Vec<Node>>> {
    let mut parsed = Vec::with_capacity(sources.len());
    let mut batch: Vec<&str> = Vec::new();
    let mut bytes = 0;
    let flush = |batch: &mut Vec<&str>, parsed: &mut Vec<Option<Vec<Node>>>| {
        parsed.extend(parse_batch(batch));
        batch.clear();
    };
    for &source in sources {
        if source.len() > INLINE_LIMIT {
            flush(&mut batch, &mut parsed);
            bytes = 0;
            parsed.push(None);
            continue;
        }
        if batch.len() == BATCH_ITEMS || bytes + source.len() > BATCH_BYTES {
            flush(&mut batch, &mut parsed);
            bytes = 0;
        }
        bytes += source.len() + 2;
        batch.push(source);
    }
    flush(&mut batch, &mut parsed);
    parsed
}

/// Parses several inline texts at once: each becomes one paragraph of a document that
/// separates them by blank lines, read with every block construct off. One result per
/// source, in order (an empty source has no paragraph and no content).
fn parse_batch(batch: &[&str]) -> Vec<Option<Vec<Node>>> {
    let mut results: Vec<Option<Vec<Node>>> = vec![Some(Vec::new()); batch.len()];
    if batch.is_empty() {
        return results;
    }
    let mut document = String::new();
    let mut starts = Vec::with_capacity(batch.len());
    for source in batch {
        starts.push(document.len());
        document.push_str(source);
        document.push_str("\n\n");
    }
    let Ok(Node::Root(root)) = markdown::to_mdast(&document, &inline_options()) else {
        return vec![None; batch.len()];
    };
    for node in root.children {
        let Node::Paragraph(paragraph) = node else {
            continue;
        };
        let at = paragraph
            .position
            .as_ref()
            .map_or(0, |position| position.start.offset);
        let index = starts
            .partition_point(|&start| start <= at)
            .saturating_sub(1);
        if let Some(slot) = results.get_mut(index) {
            *slot = Some(paragraph.children);
        }
    }
    results
}

/// CommonMark's inline constructs and no block construct: every line is paragraph text.
fn inline_options() -> ParseOptions {
    ParseOptions {
        constructs: Constructs {
            block_quote: false,
            code_indented: false,
            code_fenced: false,
            definition: false,
            heading_atx: false,
            heading_setext: false,
            html_flow: false,
            list_item: false,
            thematic_break: false,
            ..Constructs::default()
        },
        ..ParseOptions::default()
    }
}

/// CommonMark's block constructs with the costly inline ones off. Escapes and character
/// references stay on: a link reference definition's label depends on them, and whether a
/// paragraph is a definition decides whether the line after it can underline a heading.
pub(super) fn structure_options() -> ParseOptions {
    ParseOptions {
        constructs: Constructs {
            attention: false,
            autolink: false,
            code_text: false,
            hard_break_escape: false,
            hard_break_trailing: false,
            html_text: false,
            label_start_image: false,
            label_start_link: false,
            label_end: false,
            ..Constructs::default()
        },
        ..ParseOptions::default()
    }
}

fn lead(children: &[Node]) -> Lead {
    let plain = plain_text(children);
    match children.split_first() {
        Some((Node::Strong(strong), rest)) => Lead {
            bold_label: Some(plain_text(&strong.children)),
            after_label: plain_text(rest),
            plain,
        },
        _ => Lead {
            bold_label: None,
            after_label: String::new(),
            plain,
        },
    }
}

/// A paragraph too long to parse, read as its raw text.
fn raw_lead(source: &str) -> Lead {
    Lead {
        bold_label: None,
        after_label: String::new(),
        plain: spaced(source),
    }
}

/// Inline content as plain text, walked with an explicit stack: emphasis can nest as deep
/// as the input allows, and recursion must not follow it.
fn plain_text(nodes: &[Node]) -> String {
    let mut text = String::new();
    let mut stack: Vec<&Node> = nodes.iter().rev().collect();
    while let Some(node) = stack.pop() {
        match node {
            Node::Text(leaf) => text.push_str(&leaf.value),
            Node::InlineCode(leaf) => text.push_str(&leaf.value),
            Node::Break(_) => text.push(' '),
            Node::Image(image) => text.push_str(&image.alt),
            Node::ImageReference(image) => text.push_str(&image.alt),
            Node::Html(_) => {}
            other => {
                if let Some(children) = other.children() {
                    stack.extend(children.iter().rev());
                }
            }
        }
    }
    spaced(&text)
}

fn direct_text(nodes: &[Node]) -> String {
    let text: String = nodes
        .iter()
        .filter_map(|node| match node {
            Node::Text(leaf) => Some(leaf.value.as_str()),
            _ => None,
        })
        .collect();
    spaced(&text)
}

/// Line endings inside a heading (setext) or paragraph read as spaces; the ends trimmed.
fn spaced(text: &str) -> String {
    text.replace(['\r', '\n'], " ").trim().to_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn headings(text: &str) -> Vec<(u8, String)> {
        read(text)
            .expect("within bounds")
            .into_iter()
            .filter_map(|block| match block.kind {
                Kind::Heading(heading) => Some((heading.depth, heading.text)),
                _ => None,
            })
            .collect()
    }

    #[test]
    fn commonmark_decides_headings() {
        assert_eq!(headings("# A ##\n"), [(1, "A".to_owned())]);
        assert_eq!(headings("#\tA\n"), [(1, "A".to_owned())]);
        assert_eq!(headings("#A\n"), []);
        assert_eq!(headings("    # A\n"), []);
        assert_eq!(headings("```\n# A\n```\n"), []);
        assert_eq!(headings("~~~~\n~~~\n# A\n~~~~\n"), []);
        assert_eq!(headings("<!--\n# A\n-->\n"), []);
        assert_eq!(headings("> # A\n"), []);
        assert_eq!(headings("A\nB\n===\n"), [(1, "A B".to_owned())]);
        assert_eq!(headings("\u{FEFF}# **A** `b`\n"), [(1, "A b".to_owned())]);
        assert_eq!(headings("x\r# A\r"), [(1, "A".to_owned())]);
        assert_eq!(headings("# \\*A\\*\n"), [(1, "*A*".to_owned())]);
    }

    #[test]
    fn leads_of_list_items() {
        let blocks = read("- **Warm** — kind\n- plain: text\n").expect("within bounds");
        let Kind::List(list) = &blocks[0].kind else {
            panic!("a list")
        };
        let sources: Vec<&str> = list
            .items
            .iter()
            .filter_map(|item| item.paragraph.as_deref())
            .collect();
        let leads = leads(&sources);
        let first = &leads[0];
        assert_eq!(first.bold_label.as_deref(), Some("Warm"));
        assert_eq!(leads[1].plain, "plain: text");
        assert_eq!(first.after_label, "— kind");
        assert_eq!(list.items[1].offset, 18 + 2);
    }

    /// Long documents are read window by window, and come out as one reading would.
    #[test]
    fn windows_agree_with_one_reading() {
        let mut text = String::from("# Title\n\n## Personality\n\n");
        for index in 0..3000 {
            text.push_str(&format!("- **Trait {index}** — description\n"));
        }
        text.push_str("\n```\n# not a title\n");
        for _ in 0..2000 {
            text.push_str("code\n");
        }
        text.push_str("```\n\n## Core Responsibilities\n\n1. one\n2. two\n");
        let blocks = read(&text).expect("within bounds");
        let items: usize = blocks
            .iter()
            .filter_map(|block| match &block.kind {
                Kind::List(list) if !list.ordered => Some(list.items.len()),
                _ => None,
            })
            .sum();
        assert_eq!(items, 3000);
        let headings: Vec<_> = blocks
            .iter()
            .filter_map(|block| match &block.kind {
                Kind::Heading(heading) => Some(heading.text.as_str()),
                _ => None,
            })
            .collect();
        assert_eq!(headings, ["Title", "Personality", "Core Responsibilities"]);
    }
}
