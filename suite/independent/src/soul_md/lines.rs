//! Lines as CommonMark ends them (LF, CRLF or a lone CR) and positions counted in Unicode
//! scalar values, so that a diagnostic points where an editor shows the character whatever
//! the file's line endings.

/// One line of a text, by byte offsets.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct Line {
    /// Offset of its first byte.
    pub start: usize,
    /// Offset just past its content (where its line ending starts).
    pub end: usize,
    /// Offset of the next line (past the line ending).
    pub next: usize,
}

impl Line {
    /// The line's content, without its ending.
    pub fn content<'a>(&self, text: &'a str) -> &'a str {
        text.get(self.start..self.end).unwrap_or("")
    }

    /// The line's ending: `\n`, `\r\n`, `\r`, or empty at the end of the text.
    pub fn ending<'a>(&self, text: &'a str) -> &'a str {
        text.get(self.end..self.next).unwrap_or("")
    }
}

/// Splits a text into lines. A text ending in a line ending has no empty last line; an
/// empty text has no lines.
pub(super) fn split(text: &str) -> Vec<Line> {
    let bytes = text.as_bytes();
    let mut lines = Vec::new();
    let mut start = 0;
    let mut index = 0;
    while index < bytes.len() {
        match bytes[index] {
            b'\n' => {
                lines.push(Line {
                    start,
                    end: index,
                    next: index + 1,
                });
                index += 1;
                start = index;
            }
            b'\r' => {
                let next = if bytes.get(index + 1) == Some(&b'\n') {
                    index + 2
                } else {
                    index + 1
                };
                lines.push(Line {
                    start,
                    end: index,
                    next,
                });
                index = next;
                start = index;
            }
            _ => index += 1,
        }
    }
    if start < bytes.len() {
        lines.push(Line {
            start,
            end: bytes.len(),
            next: bytes.len(),
        });
    }
    lines
}

/// Whether a line holds nothing but spaces and tabs (a CommonMark blank line).
pub(super) fn is_blank(content: &str) -> bool {
    content.bytes().all(|byte| byte == b' ' || byte == b'\t')
}

/// Whether a line is blank as the catalogue's decision reads the lines before a metadata
/// block (pulldown-cmark's): a line of a line tabulation or a form feed is blank too, where
/// CommonMark would start a paragraph.
pub(super) fn is_blank_before_metadata(content: &str) -> bool {
    content
        .bytes()
        .all(|byte| matches!(byte, b' ' | b'\t' | 0x0B | 0x0C))
}

/// A line that looks like a code fence (CommonMark 4.5): up to three spaces, then three or
/// more backticks or tildes, then an info string.
#[derive(Debug, Clone, Copy)]
pub(super) struct Marker {
    /// Spaces before the run.
    pub indent: usize,
    /// `` ` `` or `~`.
    pub ch: u8,
    /// Length of the run.
    pub length: usize,
    /// Nothing but spaces or tabs after the run.
    pub bare: bool,
    /// The text after a backtick run holds a backtick (so the line opens nothing).
    pub backtick_in_info: bool,
}

impl Marker {
    /// Whether the line opens a fence.
    pub fn opens(&self) -> bool {
        !self.backtick_in_info
    }

    /// Whether `line` closes the fence this one opened: the same character, at least as
    /// long, nothing after it.
    pub fn closed_by(&self, line: &Marker) -> bool {
        line.ch == self.ch && line.length >= self.length && line.bare
    }
}

/// The fence marker a line holds, if any.
pub(super) fn fence_marker(line: &str) -> Option<Marker> {
    let indent = line.bytes().take_while(|&byte| byte == b' ').count();
    if indent > 3 {
        return None;
    }
    let rest = &line[indent..];
    let ch = *rest
        .as_bytes()
        .first()
        .filter(|&&byte| byte == b'`' || byte == b'~')?;
    let length = rest.bytes().take_while(|&byte| byte == ch).count();
    if length < 3 {
        return None;
    }
    let info = &rest[length..];
    Some(Marker {
        indent,
        ch,
        length,
        bare: is_blank(info),
        backtick_in_info: ch == b'`' && info.contains('`'),
    })
}

/// Columns of an indentation, a tab advancing to the next multiple of four.
pub(super) fn indent_columns(indentation: &str) -> usize {
    indentation.bytes().fold(0, |columns, byte| {
        if byte == b'\t' {
            columns + 4 - columns % 4
        } else {
            columns + 1
        }
    })
}

/// The leading spaces and tabs of a line.
pub(super) fn indentation(line: &str) -> &str {
    &line[..line.len() - line.trim_start_matches([' ', '\t']).len()]
}

/// A place in the document: 1-based line and column, the column counted in Unicode scalar
/// values (a byte order mark is column 1 of line 1).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct Position {
    /// 1-based line.
    pub line: usize,
    /// 1-based column.
    pub column: usize,
}

impl std::fmt::Display for Position {
    fn fmt(&self, formatter: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(formatter, "{}:{}", self.line, self.column)
    }
}

/// Finds positions by byte offset in one text, in logarithmic time per look-up (a document
/// with many list items gets many diagnostics).
pub(super) struct Locator<'a> {
    text: &'a str,
    starts: Vec<usize>,
    /// Columns added on line 1: 1 when a byte order mark was cut off the text.
    first_line_shift: usize,
}

impl<'a> Locator<'a> {
    /// A locator over `text`; `bom_cut` says a byte order mark preceded it in the file.
    pub fn new(text: &'a str, bom_cut: bool) -> Locator<'a> {
        let mut starts = vec![0];
        // A line with an ending starts the next one, even at the very end of the text (an
        // offset there is column 1 of a line of its own).
        starts.extend(
            split(text)
                .iter()
                .filter(|line| line.next > line.end)
                .map(|line| line.next),
        );
        Locator {
            text,
            starts,
            first_line_shift: usize::from(bom_cut),
        }
    }

    /// The position of the character at `offset`.
    pub fn at(&self, offset: usize) -> Position {
        let index = match self.starts.binary_search(&offset) {
            Ok(index) => index,
            Err(index) => index.saturating_sub(1),
        };
        let start = self.starts.get(index).copied().unwrap_or(0);
        let column = self
            .text
            .get(start..offset)
            .map_or(0, |before| before.chars().count())
            + 1;
        let shift = if index == 0 { self.first_line_shift } else { 0 };
        Position {
            line: index + 1,
            column: column + shift,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_line_ending_ends_a_line() {
        let text = "a\nb\r\nc\rd";
        let contents: Vec<&str> = split(text).iter().map(|line| line.content(text)).collect();
        assert_eq!(contents, ["a", "b", "c", "d"]);
        let locator = Locator::new(text, false);
        assert_eq!(locator.at(7), Position { line: 4, column: 1 });
        assert_eq!(locator.at(2), Position { line: 2, column: 1 });
        assert_eq!(locator.at(3), Position { line: 2, column: 2 });
    }

    #[test]
    fn a_cut_byte_order_mark_shifts_line_one_only() {
        let locator = Locator::new("# T\nx", true);
        assert_eq!(locator.at(0), Position { line: 1, column: 2 });
        assert_eq!(locator.at(4), Position { line: 2, column: 1 });
    }
}
