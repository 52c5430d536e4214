//! The one diagnostics model shared by every format of the reference implementation, and
//! its two renderings: human text with the source line underlined, and the JSON shape of
//! `soulcheck check --json` that the harness reads back.

use std::fmt;
use std::ops::Range;

use annotate_snippets::{AnnotationKind, Level, Renderer, Snippet};
use serde_json::json;
pub use soulcheck_harness::{Format, Severity, Verdict};

/// Rule constants generated from the catalogue (`cases/<format>/rules.toml`); one module
/// per format, one constant per rule.
pub mod rules {
    use super::{RuleId, Severity};
    include!(concat!(env!("OUT_DIR"), "/rules.rs"));
}

/// A catalogued rule: its stable ID and the severity its diagnostics have by default.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct RuleId {
    /// The stable ID, e.g. `soul-kit.id.pattern`.
    pub id: &'static str,
    /// Default severity.
    pub severity: Severity,
}

impl fmt::Display for RuleId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.id)
    }
}

/// A byte range in the checked document.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Span {
    /// First byte.
    pub start: usize,
    /// One past the last byte.
    pub end: usize,
}

impl Span {
    /// A span from a range.
    pub fn new(range: Range<usize>) -> Span {
        Span {
            start: range.start,
            end: range.end,
        }
    }
}

/// A line and column, both 1-based; the column counts Unicode scalar values.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Position {
    /// Line.
    pub line: u32,
    /// Column.
    pub column: u32,
}

impl Position {
    /// The position of byte `offset` in `text`. Lines end at LF, CRLF or a lone CR (as in
    /// CommonMark); a column counts the characters before the offset on its line, where
    /// each byte that does not continue a UTF-8 sequence counts as one, so positions stay
    /// defined inside invalid UTF-8.
    pub fn of(text: &[u8], offset: usize) -> Position {
        let offset = offset.min(text.len());
        let mut line = 1u32;
        let mut line_start = 0;
        let mut index = 0;
        while index < offset {
            match text[index] {
                b'\n' => {
                    line += 1;
                    line_start = index + 1;
                }
                b'\r' if text.get(index + 1) != Some(&b'\n') => {
                    line += 1;
                    line_start = index + 1;
                }
                _ => {}
            }
            index += 1;
        }
        let column = text[line_start..offset]
            .iter()
            .filter(|&&b| b & 0xC0 != 0x80)
            .count() as u32
            + 1;
        Position { line, column }
    }
}

/// Where a diagnostic points: see the harness's `Location` for which fields a kind of
/// document sets. `span` is for rendering only and is never compared.
#[derive(Debug, Clone, Default, PartialEq, Eq, Hash)]
pub struct Location {
    /// RFC 6901 JSON pointer, for JSON documents.
    pub pointer: Option<String>,
    /// Line and column in the text the diagnostic is about.
    pub position: Option<Position>,
    /// Byte range in the checked document, used to underline the source.
    pub span: Option<Span>,
}

impl Location {
    /// The document as a whole (its size, its encoding as a whole).
    pub fn document() -> Location {
        Location::default()
    }

    /// A JSON value or member, with its span for rendering.
    pub fn pointer(pointer: impl Into<String>, span: Span) -> Location {
        Location {
            pointer: Some(pointer.into()),
            position: None,
            span: Some(span),
        }
    }

    /// A place in the document's text, e.g. a syntax error.
    pub fn text(source: &[u8], span: Span) -> Location {
        Location {
            pointer: None,
            position: Some(Position::of(source, span.start)),
            span: Some(span),
        }
    }
}

/// One finding of a validator.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Diagnostic {
    /// The rule broken.
    pub rule: RuleId,
    /// Error or warning; usually the rule's default.
    pub severity: Severity,
    /// Where.
    pub location: Location,
    /// What, for a human.
    pub message: String,
}

impl Diagnostic {
    /// A diagnostic with the rule's default severity.
    pub fn new(rule: RuleId, location: Location, message: impl Into<String>) -> Diagnostic {
        Diagnostic {
            rule,
            severity: rule.severity,
            location,
            message: message.into(),
        }
    }

    /// The same diagnostic with another severity.
    pub fn with_severity(mut self, severity: Severity) -> Diagnostic {
        self.severity = severity;
        self
    }
}

/// Everything the reference found in one input.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Report {
    /// The format the input was checked as.
    pub format: Format,
    /// Every diagnostic, in the order found.
    pub diagnostics: Vec<Diagnostic>,
    /// The result of a non-`validate` operation.
    pub value: Option<serde_json::Value>,
}

impl Report {
    /// An empty report for a format.
    pub fn new(format: Format) -> Report {
        Report {
            format,
            diagnostics: Vec::new(),
            value: None,
        }
    }

    /// Reject when any diagnostic is an error; accept otherwise.
    pub fn verdict(&self) -> Verdict {
        if self
            .diagnostics
            .iter()
            .any(|d| d.severity == Severity::Error)
        {
            Verdict::Reject
        } else {
            Verdict::Accept
        }
    }

    /// The `soulcheck check --json` shape.
    pub fn to_json(&self) -> serde_json::Value {
        let diagnostics: Vec<serde_json::Value> = self
            .diagnostics
            .iter()
            .map(|diagnostic| {
                let mut object = serde_json::Map::new();
                object.insert("rule".into(), json!(diagnostic.rule.id));
                object.insert("severity".into(), json!(diagnostic.severity));
                if let Some(pointer) = &diagnostic.location.pointer {
                    object.insert("pointer".into(), json!(pointer));
                }
                if let Some(position) = diagnostic.location.position {
                    object.insert("line".into(), json!(position.line));
                    object.insert("column".into(), json!(position.column));
                }
                object.insert("message".into(), json!(diagnostic.message));
                serde_json::Value::Object(object)
            })
            .collect();
        let mut object = json!({
            "format": self.format,
            "verdict": self.verdict(),
            "diagnostics": diagnostics,
        });
        if let Some(value) = &self.value {
            object["value"] = value.clone();
        }
        object
    }

    /// Human rendering: one block per diagnostic with the source line and a marker under
    /// the offending span, then the verdict. `origin` names the input in headers.
    pub fn render(&self, source: &[u8], origin: &str) -> String {
        let renderer = Renderer::plain().term_width(100);
        let mut out = String::new();
        for diagnostic in &self.diagnostics {
            let level = match diagnostic.severity {
                Severity::Error => Level::ERROR,
                Severity::Warning => Level::WARNING,
            };
            let title = level
                .primary_title(diagnostic.message.as_str())
                .id(diagnostic.rule.id);
            let where_ = describe_location(&diagnostic.location);
            let text = match excerpt(source, diagnostic.location.span) {
                Some(excerpt) => {
                    let snippet = Snippet::source(excerpt.text)
                        .line_start(excerpt.first_line)
                        .path(origin)
                        .annotation(
                            AnnotationKind::Primary
                                .span(excerpt.span)
                                .label(where_.as_str()),
                        );
                    renderer.render(&[title.element(snippet)])
                }
                None => {
                    let plain = format!(
                        "{}[{}]: {} ({origin}: {where_})",
                        diagnostic.severity, diagnostic.rule.id, diagnostic.message
                    );
                    plain
                }
            };
            out.push_str(&text);
            out.push_str("\n\n");
        }
        let errors = self
            .diagnostics
            .iter()
            .filter(|d| d.severity == Severity::Error)
            .count();
        let warnings = self.diagnostics.len() - errors;
        out.push_str(&format!(
            "{origin}: {} as {} ({}, {})\n",
            match self.verdict() {
                Verdict::Accept => "accepted",
                Verdict::Reject => "rejected",
            },
            self.format,
            count(errors, "error"),
            count(warnings, "warning"),
        ));
        out
    }
}

/// `1 error`, `2 errors`.
fn count(n: usize, noun: &str) -> String {
    if n == 1 {
        format!("{n} {noun}")
    } else {
        format!("{n} {noun}s")
    }
}

fn describe_location(location: &Location) -> String {
    let mut parts = Vec::new();
    if let Some(pointer) = &location.pointer {
        parts.push(format!("at {pointer:?}"));
    }
    if let Some(position) = location.position {
        parts.push(format!(
            "line {}, column {}",
            position.line, position.column
        ));
    }
    if parts.is_empty() {
        "whole document".to_owned()
    } else {
        parts.join(", ")
    }
}

/// The lines of `source` that a span touches, as valid UTF-8, with the span made relative
/// to them. Rendering only those lines keeps the output small for large inputs.
struct Excerpt<'a> {
    text: &'a str,
    first_line: usize,
    span: Range<usize>,
}

/// Longest excerpt rendered; a span inside a longer line is shown without source.
const MAX_EXCERPT_BYTES: usize = 4096;

fn excerpt(source: &[u8], span: Option<Span>) -> Option<Excerpt<'_>> {
    let span = span?;
    if span.start > source.len() {
        return None;
    }
    let end = span.end.clamp(span.start, source.len());
    let start = source[..span.start]
        .iter()
        .rposition(|&b| b == b'\n')
        .map_or(0, |at| at + 1);
    let stop = source[end..]
        .iter()
        .position(|&b| b == b'\n')
        .map_or(source.len(), |at| end + at);
    if stop - start > MAX_EXCERPT_BYTES {
        return None;
    }
    let text = std::str::from_utf8(&source[start..stop]).ok()?;
    if !text.is_char_boundary(span.start - start) || !text.is_char_boundary(end - start) {
        return None;
    }
    let first_line = Position::of(source, start).line as usize;
    Some(Excerpt {
        text,
        first_line,
        span: span.start - start..end - start,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn positions_count_lines_and_characters() {
        let text = "ab\néx\r\ny\rz".as_bytes();
        assert_eq!(Position::of(text, 0), Position { line: 1, column: 1 });
        assert_eq!(Position::of(text, 3), Position { line: 2, column: 1 });
        // `é` is two bytes but one column.
        assert_eq!(Position::of(text, 5), Position { line: 2, column: 2 });
        assert_eq!(Position::of(text, 8), Position { line: 3, column: 1 });
        // A lone CR ends a line too.
        assert_eq!(Position::of(text, 10), Position { line: 4, column: 1 });
    }
}
