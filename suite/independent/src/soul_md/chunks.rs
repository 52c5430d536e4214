//! Reading the block structure of a long document in windows, so that markdown-rs (whose
//! cost grows with the square of the lines it is given) only ever sees a bounded number
//! of lines at a time, and the whole costs time linear in the document.
//!
//! The reasoning that makes it exact: CommonMark decides the block structure line by
//! line, each line against the blocks left open by the lines before it, with no
//! look-ahead. So when a window's reading starts a new block at line `s` that is a direct
//! child of the document, everything before `s` is final, and the blocks open at `s` are
//! exactly those whose markers line `s` itself carries (a block quote's `>`, a list
//! item's marker). Reading again from `s` with nothing open gives what the whole reading
//! gives from there on. Such lines are: the start of a top-level block, the start of an
//! item of a top-level list, and the start of a child of a top-level block quote (and so
//! on through block quotes and the lists directly in them). A window is read, cut at the
//! last such line, and the next window starts there.
//!
//! A window with no such line is one long block: a fenced or indented code block or an
//! HTML block is skipped by finding its end line by line (CommonMark 4.4 to 4.6 say where
//! each ends); a paragraph (or a block quote ending in one) is cut at a line that can only
//! continue it and would only start a paragraph afresh (no indentation, a letter first),
//! which changes its inline content but no block around it. Anything else (one list item
//! of thousands of lines) grows the window, up to [`MAX_WINDOW_LINES`].
//!
//! Before that, [`prepare`] takes out what costs markdown-rs more than linear time on a
//! single line: runs of more than two blank lines are cut to two (CommonMark never
//! counts blank lines past two), indentation past [`MAX_INDENT`] columns is cut to it
//! (only nesting deeper than a few dozen levels reads it), and a line opening more than
//! [`MAX_MARKERS`] nested containers is past this reader's bound.

use std::ops::Range;

use markdown::mdast::Node;

use super::lines::{self, fence_marker, Line};

/// Lines of a first window.
const WINDOW_LINES: usize = 64;

/// Lines one window may grow to before the document is past this reader's bound.
const MAX_WINDOW_LINES: usize = 8192;

/// Indentation columns kept on a line.
const MAX_INDENT: usize = 128;

/// Nested container markers (`>`, list markers) one line may open.
const MAX_MARKERS: usize = 32;

/// The text markdown-rs reads, and how its offsets map back to the text given.
pub(super) struct Prepared {
    /// The text with long blank runs and deep indentation cut.
    pub text: String,
    /// Where each stretch of `text` came from, ascending.
    segments: Vec<Segment>,
}

/// A stretch of the prepared text copied from the original without a cut.
#[derive(Debug, Clone, Copy, Default)]
struct Segment {
    /// Where it starts in the prepared text.
    prepared: usize,
    /// Where it starts in the original.
    original: usize,
}

impl Prepared {
    /// The original offset of an offset in the prepared text.
    pub fn original(&self, offset: usize) -> usize {
        let index = self
            .segments
            .partition_point(|segment| segment.prepared <= offset);
        match index
            .checked_sub(1)
            .and_then(|index| self.segments.get(index))
        {
            Some(segment) => segment.original + (offset - segment.prepared),
            None => offset,
        }
    }
}

/// Cuts what costs the reader more than linear time and says nothing about the structure.
pub(super) fn prepare(text: &str) -> Result<Prepared, String> {
    let mut prepared = String::with_capacity(text.len());
    let mut segments = vec![Segment::default()];
    let mut blank_run = 0;
    for line in lines::split(text) {
        let content = line.content(text);
        if lines::is_blank(content) {
            blank_run += 1;
            if blank_run > 2 {
                continue;
            }
        } else {
            blank_run = 0;
        }
        if container_markers(content) > MAX_MARKERS {
            return Err(format!("past this reader's bound: a line opens more than {MAX_MARKERS} nested block quotes or lists"));
        }
        // A new segment starts wherever the copy resumes after a cut.
        let mut mark = |prepared: usize, original: usize| {
            let last = segments.last().copied().unwrap_or_default();
            if last.original + (prepared - last.prepared) != original {
                segments.push(Segment { prepared, original });
            }
        };
        mark(prepared.len(), line.start);
        let indentation = lines::indentation(content);
        if lines::indent_columns(indentation) > MAX_INDENT {
            prepared.push_str(&" ".repeat(MAX_INDENT));
            mark(prepared.len(), line.start + indentation.len());
            prepared.push_str(&content[indentation.len()..]);
        } else {
            prepared.push_str(content);
        }
        prepared.push_str(line.ending(text));
    }
    Ok(Prepared {
        text: prepared,
        segments,
    })
}

/// How many block quote and list markers open the line, one inside the other. A thematic
/// break (`* * * *`) opens none.
fn container_markers(line: &str) -> usize {
    let bytes = line.as_bytes();
    let first = line.trim_start_matches([' ', '\t']).bytes().next();
    if let Some(mark @ (b'*' | b'-' | b'_')) = first {
        if bytes
            .iter()
            .all(|&byte| byte == mark || byte == b' ' || byte == b'\t')
        {
            return 0;
        }
    }
    let mut index = 0;
    let mut count = 0;
    loop {
        while matches!(bytes.get(index), Some(b' ' | b'\t')) {
            index += 1;
        }
        let spaced = |at: usize| matches!(bytes.get(at), Some(b' ' | b'\t') | None);
        match bytes.get(index) {
            Some(b'>') => index += 1,
            Some(b'-' | b'+' | b'*') if spaced(index + 1) => index += 1,
            Some(b'0'..=b'9') => {
                let digits = bytes[index..]
                    .iter()
                    .take_while(|byte| byte.is_ascii_digit())
                    .count();
                let delimited = matches!(bytes.get(index + digits), Some(b'.' | b')'));
                if digits > 9 || !delimited || !spaced(index + digits + 1) {
                    return count;
                }
                index += digits + 1;
            }
            _ => return count,
        }
        count += 1;
    }
}

/// A top-level block as the structure pass reads it, offsets in the prepared text.
#[derive(Debug, Clone)]
pub(super) struct RawBlock {
    /// Where it starts.
    pub offset: usize,
    /// What it is.
    pub kind: RawKind,
}

/// What a top-level block is.
#[derive(Debug, Clone)]
pub(super) enum RawKind {
    /// A heading: its level and the source of its inline content.
    Heading {
        /// 1 to 6.
        depth: u8,
        /// The source of its content (empty for an empty heading).
        content: Range<usize>,
    },
    /// A list: ordered or not, and its items.
    List {
        /// Numbered.
        ordered: bool,
        /// Its items.
        items: Vec<RawItem>,
    },
    /// A code block.
    Code {
        /// Written with a fence.
        fenced: bool,
    },
    /// Anything else.
    Other,
}

/// A list item: where it starts and the source of its first paragraph, if it opens with
/// one.
#[derive(Debug, Clone)]
pub(super) struct RawItem {
    /// Where its marker is.
    pub offset: usize,
    /// Its first paragraph's source.
    pub paragraph: Option<Range<usize>>,
}

/// Reads the top-level blocks of `text` window by window.
pub(super) fn structure(text: &str) -> Result<Vec<RawBlock>, String> {
    let lines = lines::split(text);
    let mut blocks = Vec::new();
    let mut first = 0;
    let mut span = WINDOW_LINES;
    while first < lines.len() {
        let last = first.saturating_add(span).min(lines.len());
        let base = lines[first].start;
        let end = lines.get(last).map_or(text.len(), |line| line.start);
        let window = text.get(base..end).unwrap_or("");
        let top = parse(window)?;
        if last == lines.len() {
            collect(&top, window, base, usize::MAX, &mut blocks);
            break;
        }
        if let Some(cut) = cut_point(&top, window) {
            collect(&top, window, base, cut, &mut blocks);
            first = lines.partition_point(|line| line.start < base + cut);
            span = WINDOW_LINES;
        } else if let Some((block, resume)) = skip_leaf(&top, text, base, &lines, first) {
            blocks.push(block);
            first = resume.max(first + 1);
            span = WINDOW_LINES;
        } else if span >= MAX_WINDOW_LINES {
            return Err(format!("past this reader's bound: one Markdown block spans more than {MAX_WINDOW_LINES} lines"));
        } else {
            span *= 2;
        }
    }
    Ok(blocks)
}

fn parse(window: &str) -> Result<Vec<Node>, String> {
    match markdown::to_mdast(window, &super::outline::structure_options()) {
        Ok(Node::Root(root)) => Ok(root.children),
        Ok(_) => Ok(Vec::new()),
        Err(message) => Err(format!("the Markdown reader failed: {message}")),
    }
}

fn start(node: &Node) -> usize {
    node.position().map_or(0, |position| position.start.offset)
}

fn end(node: &Node) -> usize {
    node.position().map_or(0, |position| position.end.offset)
}

/// The start of the line holding `offset`.
fn line_start(text: &str, offset: usize) -> usize {
    let before = text.as_bytes().get(..offset).unwrap_or(&[]);
    before
        .iter()
        .rposition(|&byte| byte == b'\n' || byte == b'\r')
        .map_or(0, |at| at + 1)
}

/// The last line of the window after which reading afresh gives the same structure (see
/// the module's documentation), if any besides the first.
fn cut_point(top: &[Node], window: &str) -> Option<usize> {
    let mut latest = 0;
    let mut stack: Vec<&Node> = top.iter().collect();
    while let Some(node) = stack.pop() {
        latest = latest.max(start(node));
        match node {
            Node::List(list) => {
                latest = list.children.iter().map(start).fold(latest, usize::max);
            }
            Node::Blockquote(quote) => stack.extend(quote.children.iter()),
            _ => {}
        }
    }
    let cut = line_start(window, latest);
    if cut > 0 {
        return Some(cut);
    }
    paragraph_cut(top, window)
}

/// A cut inside one long paragraph (or a block quote ending in one): the last line that
/// starts, with no indentation, with a character that opens no block, so that it both
/// continues the paragraph and, read afresh, starts one.
fn paragraph_cut(top: &[Node], window: &str) -> Option<usize> {
    let [only] = top else { return None };
    let quoted = match only {
        Node::Paragraph(_) => false,
        Node::Blockquote(quote) if matches!(quote.children.last(), Some(Node::Paragraph(_))) => {
            true
        }
        _ => return None,
    };
    let opens_nothing = |rest: &str| match rest.bytes().next() {
        Some(byte) if byte.is_ascii_alphabetic() || byte >= 0x80 => true,
        Some(byte) if b"(\"',.;:?/@$%^{}&".contains(&byte) => true,
        // A digit opens an ordered list only as `1.` or `1)` (nine digits at most).
        Some(byte) if byte.is_ascii_digit() => container_markers(rest) == 0,
        _ => false,
    };
    lines::split(window)
        .iter()
        .skip(1)
        .rev()
        .find(|line| {
            let content = line.content(window);
            let rest = if quoted {
                let unindented = content.trim_start_matches(' ');
                match unindented.strip_prefix('>') {
                    Some(rest) if content.len() - unindented.len() <= 3 => {
                        rest.strip_prefix(' ').unwrap_or(rest)
                    }
                    _ => return false,
                }
            } else {
                content
            };
            opens_nothing(rest)
        })
        .map(|line| line.start)
}

/// The blocks of a window that start before `cut` (a list's items too).
fn collect(top: &[Node], window: &str, base: usize, cut: usize, blocks: &mut Vec<RawBlock>) {
    for node in top {
        let at = start(node);
        if at >= cut {
            break;
        }
        let kind = match node {
            Node::Heading(heading) => RawKind::Heading {
                depth: heading.depth,
                content: match (heading.children.first(), heading.children.last()) {
                    (Some(first), Some(last)) => base + start(first)..base + end(last),
                    _ => base + at..base + at,
                },
            },
            Node::List(list) => RawKind::List {
                ordered: list.ordered,
                items: list
                    .children
                    .iter()
                    .filter(|item| start(item) < cut)
                    .map(|item| RawItem {
                        offset: base + start(item),
                        paragraph: match item.children().and_then(|children| children.first()) {
                            Some(paragraph @ Node::Paragraph(_)) => {
                                Some(base + start(paragraph)..base + end(paragraph))
                            }
                            _ => None,
                        },
                    })
                    .collect(),
            },
            Node::Code(_) => RawKind::Code {
                fenced: is_fenced(window, at),
            },
            _ => RawKind::Other,
        };
        blocks.push(RawBlock {
            offset: base + at,
            kind,
        });
    }
}

/// A code block opens with a fence when its first line, past up to three spaces of
/// indentation, starts with ``` or ~~~ (an indented code block starts with its content).
fn is_fenced(text: &str, offset: usize) -> bool {
    let rest = text.get(offset..).unwrap_or("").trim_start_matches(' ');
    rest.starts_with("```") || rest.starts_with("~~~")
}

/// A window that is one code or HTML block: the block, and the index of the line after
/// its end, found line by line.
fn skip_leaf(
    top: &[Node],
    text: &str,
    base: usize,
    lines: &[Line],
    first: usize,
) -> Option<(RawBlock, usize)> {
    let [only] = top else { return None };
    let opening = lines.get(first)?.content(text);
    let rest = lines.get(first + 1..).unwrap_or(&[]);
    let (kind, end) = match only {
        Node::Code(_) => match fence_marker(opening) {
            // CommonMark 4.5: the first later line with a closing fence ends it.
            Some(fence) => {
                let closer = rest.iter().position(|line| {
                    fence_marker(line.content(text)).is_some_and(|marker| fence.closed_by(&marker))
                });
                (
                    RawKind::Code { fenced: true },
                    closer.map_or(lines.len(), |at| first + 1 + at + 1),
                )
            }
            // CommonMark 4.4: blank lines and lines indented four columns continue it.
            None => {
                let after = rest.iter().position(|line| {
                    let content = line.content(text);
                    !lines::is_blank(content)
                        && lines::indent_columns(lines::indentation(content)) < 4
                });
                (
                    RawKind::Code { fenced: false },
                    after.map_or(lines.len(), |at| first + 1 + at),
                )
            }
        },
        Node::Html(_) => (
            RawKind::Other,
            html_end(opening, text, rest).map_or(lines.len(), |at| first + 1 + at),
        ),
        _ => return None,
    };
    Some((
        RawBlock {
            offset: base + start(only),
            kind,
        },
        end,
    ))
}

/// CommonMark 4.6: where an HTML block opened by `opening` ends, as the index (in `rest`,
/// the lines after it) of the first line after it; `None` when it runs to the end.
fn html_end(opening: &str, text: &str, rest: &[Line]) -> Option<usize> {
    let tag = opening.trim_start_matches(' ').to_ascii_lowercase();
    let raw_text_tag = ["script", "pre", "style", "textarea"]
        .into_iter()
        .find(|name| {
            tag.strip_prefix('<')
                .and_then(|after| after.strip_prefix(name))
                .is_some_and(|after| {
                    matches!(after.bytes().next(), None | Some(b' ' | b'\t' | b'>'))
                })
        });
    let end_marker = match raw_text_tag {
        Some(name) => Some(format!("</{name}>")),
        None if tag.starts_with("<!--") => Some("-->".to_owned()),
        None if tag.starts_with("<?") => Some("?>".to_owned()),
        None if tag.starts_with("<![cdata[") => Some("]]>".to_owned()),
        None if tag
            .strip_prefix("<!")
            .is_some_and(|after| after.starts_with(|c: char| c.is_ascii_alphabetic())) =>
        {
            Some(">".to_owned())
        }
        None => None,
    };
    match end_marker {
        // Types 1 to 5 end at the line holding the end marker (the opening line too).
        Some(marker) => {
            if tag.contains(&marker) {
                return Some(0);
            }
            rest.iter()
                .position(|line| line.content(text).to_ascii_lowercase().contains(&marker))
                .map(|at| at + 1)
        }
        // Types 6 and 7 end before a blank line.
        None => rest
            .iter()
            .position(|line| lines::is_blank(line.content(text))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn preparing_cuts_blank_runs_and_maps_offsets_back() {
        let prepared = prepare("a\n\n\n\n\nb\n").expect("within bounds");
        assert_eq!(prepared.text, "a\n\n\nb\n");
        assert_eq!(prepared.original(4), 6);
        assert_eq!(prepared.original(1), 1);
    }

    #[test]
    fn markers() {
        assert_eq!(container_markers("> > - 1. x"), 4);
        assert_eq!(container_markers("* * * * *"), 0);
        assert_eq!(container_markers("-x"), 0);
        assert_eq!(container_markers("2024. was"), 1);
    }

    #[test]
    fn long_code_and_html_blocks_are_skipped_whole() {
        let mut text = String::from("# T\n\n<div>\n");
        text.push_str(&"x\n".repeat(3000));
        text.push_str("\n```\n");
        text.push_str(&"# no\n".repeat(3000));
        text.push_str("```\n# Yes\n");
        let blocks = structure(&text).expect("within bounds");
        let headings = blocks
            .iter()
            .filter(|block| matches!(block.kind, RawKind::Heading { .. }))
            .count();
        assert_eq!(headings, 2);
    }
}
