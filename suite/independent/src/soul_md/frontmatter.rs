//! Frontmatter (Format: "SOUL.md is pure Markdown with no YAML frontmatter"; Constraints:
//! "No frontmatter: Do not use YAML/TOML frontmatter"; rule `soul-md.frontmatter.forbidden`).
//!
//! The spec does not say what counts as frontmatter; the catalogue's decision does: a block
//! at the start of the document (after blank lines, if any) opened by a `---` (YAML) or
//! `+++` (TOML) line whose next line holds something, and closed by a `---` or `...` line
//! (YAML) or a `+++` line (TOML). Delimiter lines may carry trailing spaces or tabs. An
//! unclosed opener, or an opener directly followed by its closer, is not frontmatter:
//! CommonMark reads those lines as thematic breaks. Lines end at LF, CRLF or a lone CR.

use super::lines::{self, Line};

/// The two kinds the spec names.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Kind {
    /// `---` ... `---` (or `...`).
    Yaml,
    /// `+++` ... `+++`.
    Toml,
}

/// A frontmatter block found at the start of the document.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct Frontmatter {
    /// Offset of the opening delimiter.
    pub start: usize,
    /// Offset just past the closing delimiter's line.
    pub end: usize,
    /// YAML or TOML.
    pub kind: Kind,
}

/// How a (mistaken) implementation recognises frontmatter.
#[derive(Debug, Clone, Copy)]
pub(super) struct Reading {
    /// Frontmatter is looked for at all.
    pub checked: bool,
    /// `+++` blocks are known.
    pub toml: bool,
    /// A delimiter line ending in CRLF is a delimiter.
    pub crlf_delimiters: bool,
    /// Any `---` line anywhere opens a block closed by any later one.
    pub anywhere: bool,
    /// A YAML block counts only when its content parses as a YAML mapping.
    pub mapping_only: bool,
    /// An unclosed `---` opens a block running to the end when the rest parses as YAML.
    pub unclosed_yaml_remainder: bool,
}

impl Default for Reading {
    fn default() -> Reading {
        Reading {
            checked: true,
            toml: true,
            crlf_delimiters: true,
            anywhere: false,
            mapping_only: false,
            unclosed_yaml_remainder: false,
        }
    }
}

/// Finds the frontmatter block of `body` (the text after any byte order mark).
pub(super) fn find(body: &str, reading: Reading) -> Option<Frontmatter> {
    if !reading.checked {
        return None;
    }
    let lines = lines::split(body);
    if reading.anywhere {
        return (0..lines.len()).find_map(|index| block_at(body, &lines, index, reading));
    }
    // The first block of the document: blank lines before it do not matter.
    let first = lines
        .iter()
        .position(|line| !lines::is_blank_before_metadata(line.content(body)))?;
    block_at(body, &lines, first, reading)
}

/// The block opened at line `index`, if that line opens one.
fn block_at(body: &str, lines: &[Line], index: usize, reading: Reading) -> Option<Frontmatter> {
    let opener = lines.get(index)?;
    let kind = delimiter_kind(body, opener, reading)?;
    if kind == Kind::Toml && !reading.toml {
        return None;
    }
    let first_content = index + 1;
    let search_from = if reading.anywhere {
        first_content
    } else {
        // The line after the opener must hold something, and not be the closer itself.
        let next = lines.get(first_content)?;
        if lines::is_blank(next.content(body)) || closes(body, next, kind, reading) {
            return None;
        }
        first_content + 1
    };
    let closer = (search_from..lines.len()).find(|&at| closes(body, &lines[at], kind, reading));
    let content_start = lines
        .get(first_content)
        .map_or(body.len(), |line| line.start);
    match closer {
        Some(at) => {
            let closer = lines[at];
            if reading.mapping_only && kind == Kind::Yaml {
                let content = body.get(content_start..closer.start).unwrap_or("");
                if !is_yaml_mapping(content) {
                    return None;
                }
            }
            Some(Frontmatter {
                start: opener.start,
                end: closer.next,
                kind,
            })
        }
        None if reading.unclosed_yaml_remainder && kind == Kind::Yaml => {
            let remainder = body.get(content_start..).unwrap_or("");
            yaml_serde::from_str::<yaml_serde::Value>(remainder).ok()?;
            Some(Frontmatter {
                start: opener.start,
                end: body.len(),
                kind,
            })
        }
        None => None,
    }
}

/// The kind of block a line opens: `---` or `+++`, then only spaces or tabs.
fn delimiter_kind(body: &str, line: &Line, reading: Reading) -> Option<Kind> {
    if is_delimiter(body, line, "---", reading) {
        Some(Kind::Yaml)
    } else if is_delimiter(body, line, "+++", reading) {
        Some(Kind::Toml)
    } else {
        None
    }
}

/// Whether a line closes a block of this kind.
fn closes(body: &str, line: &Line, kind: Kind, reading: Reading) -> bool {
    match kind {
        Kind::Yaml => {
            is_delimiter(body, line, "---", reading) || is_delimiter(body, line, "...", reading)
        }
        Kind::Toml => is_delimiter(body, line, "+++", reading),
    }
}

fn is_delimiter(body: &str, line: &Line, marker: &str, reading: Reading) -> bool {
    if !reading.crlf_delimiters && line.ending(body) == "\r\n" {
        // The mistaken reader splits at LF and keeps the CR: `---\r` is no delimiter.
        return false;
    }
    line.content(body)
        .strip_prefix(marker)
        .is_some_and(lines::is_blank)
}

fn is_yaml_mapping(content: &str) -> bool {
    matches!(
        yaml_serde::from_str::<yaml_serde::Value>(content),
        Ok(yaml_serde::Value::Mapping(_))
    )
}

/// The body with the frontmatter's lines emptied: their line endings stay, so lines and
/// columns of the rest are unchanged, and the rest is still read as Markdown (catalogue:
/// "The rest of the document after the frontmatter is still checked").
pub(super) fn blank(body: &str, frontmatter: Frontmatter) -> String {
    let mut blanked = String::with_capacity(body.len());
    blanked.push_str(body.get(..frontmatter.start).unwrap_or(""));
    let inside = body.get(frontmatter.start..frontmatter.end).unwrap_or("");
    blanked.extend(inside.chars().filter(|&c| c == '\n' || c == '\r'));
    blanked.push_str(body.get(frontmatter.end..).unwrap_or(""));
    blanked
}

#[cfg(test)]
mod tests {
    use super::*;

    fn found(body: &str) -> Option<Kind> {
        find(body, Reading::default()).map(|block| block.kind)
    }

    #[test]
    fn blocks() {
        assert_eq!(found("---\na: 1\n---\n# T\n"), Some(Kind::Yaml));
        assert_eq!(found("\n\n---\na: 1\n...\n# T\n"), Some(Kind::Yaml));
        assert_eq!(found("+++\r\na = 1\r\n+++\r\n# T\r\n"), Some(Kind::Toml));
        assert_eq!(found("---\ra: 1\r---\r# T"), Some(Kind::Yaml));
        assert_eq!(found("---\n# T\n"), None);
        assert_eq!(found("---\n---\n# T\n"), None);
        assert_eq!(found("---\n\na: 1\n---\n"), None);
        assert_eq!(found("# T\n\n---\n\nx\n\n---\n"), None);
    }

    #[test]
    fn blanking_keeps_line_endings() {
        let body = "---\r\na: 1\r\n---\r\n# T\r\n";
        let block = find(body, Reading::default()).expect("a block");
        assert_eq!(blank(body, block), "\r\n\r\n\r\n# T\r\n");
    }
}
