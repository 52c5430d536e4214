//! The properties every input must keep, beyond "no panic". Each check returns a
//! [`Violation`] naming the invariant, so a fuzz crash says which promise broke.
//!
//! - determinism: the same input gives the same report, messages included;
//! - locations: every span lies inside the input, every line and column exists, a position
//!   given with a span is that span's start, and every JSON pointer resolves in the parsed
//!   document (to the value or key it blames, or to the object a missing member belongs
//!   in);
//! - rules: every diagnostic names a rule of the checked format;
//! - round trip: an accepted JSON document re-serialised by serde_json (compact and
//!   pretty) gets the same rules at the same pointers;
//! - expectations: a generated document gets exactly the diagnostics its generator
//!   predicted;
//! - size: an input over the format's limit gets the size diagnostic alone, and is refused
//!   with almost no allocation, so it was not parsed;
//! - allocation: no input makes the check allocate more than a bounded multiple of its
//!   size.

use std::collections::BTreeMap;
use std::fmt;

use soulcheck_reference::json::{self, Limits, Node, Value};
use soulcheck_reference::{Diagnostic, Format, Report, Severity, Span};

use crate::json_text;

/// A broken invariant.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Violation {
    /// Which invariant, as a short kebab-case name (`determinism`, `location`, ...).
    pub invariant: &'static str,
    /// What was seen.
    pub detail: String,
}

impl Violation {
    /// A violation of `invariant`.
    pub fn new(invariant: &'static str, detail: impl Into<String>) -> Violation {
        Violation {
            invariant,
            detail: detail.into(),
        }
    }
}

impl fmt::Display for Violation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "invariant `{}` broken: {}", self.invariant, self.detail)
    }
}

impl std::error::Error for Violation {}

/// Where an expected diagnostic points, in the corpus's terms.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub enum Place {
    /// A JSON pointer (and no line).
    Pointer(String),
    /// A line and column of the text.
    Position {
        /// 1-based line.
        line: u32,
        /// 1-based column in Unicode scalar values.
        column: u32,
    },
    /// A line, whatever the column.
    Line(u32),
    /// Some line and column, and no pointer (a JSON syntax error, say).
    Text,
    /// The document as a whole: no pointer, no position.
    Document,
}

/// A diagnostic a generator predicts.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub struct Expected {
    /// The rule ID.
    pub rule: String,
    /// Where.
    pub place: Place,
}

impl Expected {
    /// A diagnostic at a JSON pointer.
    pub fn pointer(rule: &str, pointer: impl Into<String>) -> Expected {
        Expected {
            rule: rule.to_owned(),
            place: Place::Pointer(pointer.into()),
        }
    }

    /// A diagnostic about the whole document.
    pub fn document(rule: &str) -> Expected {
        Expected {
            rule: rule.to_owned(),
            place: Place::Document,
        }
    }

    /// A diagnostic on a line.
    pub fn line(rule: &str, line: u32) -> Expected {
        Expected {
            rule: rule.to_owned(),
            place: Place::Line(line),
        }
    }

    /// Whether a reported diagnostic is this one.
    pub fn matches(&self, diagnostic: &Diagnostic) -> bool {
        if diagnostic.rule.id != self.rule {
            return false;
        }
        let location = &diagnostic.location;
        match &self.place {
            Place::Pointer(pointer) => location.pointer.as_deref() == Some(pointer.as_str()),
            Place::Position { line, column } => location
                .position
                .is_some_and(|at| at.line == *line && at.column == *column),
            Place::Line(line) => location.position.is_some_and(|at| at.line == *line),
            Place::Text => location.pointer.is_none() && location.position.is_some(),
            Place::Document => location.pointer.is_none() && location.position.is_none(),
        }
    }
}

impl fmt::Display for Expected {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.place {
            Place::Pointer(pointer) => write!(f, "{} at {pointer:?}", self.rule),
            Place::Position { line, column } => {
                write!(f, "{} at line {line}, column {column}", self.rule)
            }
            Place::Line(line) => write!(f, "{} on line {line}", self.rule),
            Place::Text => write!(f, "{} at some line and column", self.rule),
            Place::Document => write!(f, "{} (whole document)", self.rule),
        }
    }
}

/// One line per diagnostic: rule, severity and location, for violation messages.
pub fn describe(report: &Report) -> String {
    if report.diagnostics.is_empty() {
        return "no diagnostics".to_owned();
    }
    report
        .diagnostics
        .iter()
        .map(|diagnostic| {
            let location = &diagnostic.location;
            let mut line = format!("{} {}", diagnostic.severity, diagnostic.rule.id);
            if let Some(pointer) = &location.pointer {
                line.push_str(&format!(" at {pointer:?}"));
            }
            if let Some(position) = location.position {
                line.push_str(&format!(
                    " line {} column {}",
                    position.line, position.column
                ));
            }
            line
        })
        .collect::<Vec<_>>()
        .join("; ")
}

/// The report has exactly the predicted diagnostics (as a multiset).
pub fn expectations(report: &Report, expected: &[Expected]) -> Result<(), Violation> {
    let mut unmatched: Vec<&Diagnostic> = report.diagnostics.iter().collect();
    let mut missing = Vec::new();
    for want in expected {
        match unmatched
            .iter()
            .position(|diagnostic| want.matches(diagnostic))
        {
            Some(index) => {
                unmatched.remove(index);
            }
            None => missing.push(want.to_string()),
        }
    }
    if missing.is_empty() && unmatched.is_empty() {
        return Ok(());
    }
    let wanted: Vec<String> = expected.iter().map(ToString::to_string).collect();
    Err(Violation::new(
        "expectation",
        format!(
            "expected [{}], got [{}]; missing [{}]",
            wanted.join("; "),
            describe(report),
            missing.join("; ")
        ),
    ))
}

/// Every diagnostic names a rule of the format checked.
pub fn rules_of_format(format: Format, report: &Report) -> Result<(), Violation> {
    let prefix = format!("{}.", format.name());
    for diagnostic in &report.diagnostics {
        if !diagnostic.rule.id.starts_with(&prefix) {
            return Err(Violation::new(
                "rule-format",
                format!("{} reported for a {format} document", diagnostic.rule.id),
            ));
        }
    }
    if report.format != format {
        return Err(Violation::new(
            "rule-format",
            format!("report is for {}, not {format}", report.format),
        ));
    }
    Ok(())
}

/// The same input gave the same report.
pub fn determinism(first: &Report, second: &Report) -> Result<(), Violation> {
    if first == second {
        return Ok(());
    }
    Err(Violation::new(
        "determinism",
        format!(
            "first run: [{}]; second run: [{}]",
            describe(first),
            describe(second)
        ),
    ))
}

/// Line starts of `source`, computed apart from the reference's own line index: lines
/// end at LF, CRLF or a lone CR.
fn line_starts(source: &[u8]) -> Vec<usize> {
    let mut starts = vec![0];
    let mut index = 0;
    while index < source.len() {
        match source[index] {
            b'\r' if source.get(index + 1) == Some(&b'\n') => {
                index += 2;
                starts.push(index);
            }
            b'\n' | b'\r' => {
                index += 1;
                starts.push(index);
            }
            _ => index += 1,
        }
    }
    starts
}

/// The 1-based line and column of a byte offset; the column counts the bytes of the line
/// before it that start a character (so it stays defined in invalid UTF-8).
fn position_of(source: &[u8], starts: &[usize], offset: usize) -> (u32, u32) {
    let line = starts.partition_point(|&start| start <= offset).max(1) - 1;
    let column = source[starts[line]..offset]
        .iter()
        .filter(|&&byte| byte & 0xC0 != 0x80)
        .count();
    (
        u32::try_from(line + 1).unwrap_or(u32::MAX),
        u32::try_from(column + 1).unwrap_or(u32::MAX),
    )
}

/// How long a line is, in columns, without its terminator.
fn line_columns(source: &[u8], starts: &[usize], line: usize) -> usize {
    let start = starts[line];
    let mut end = starts.get(line + 1).copied().unwrap_or(source.len());
    while end > start && matches!(source[end - 1], b'\n' | b'\r') {
        end -= 1;
    }
    source[start..end]
        .iter()
        .filter(|&&byte| byte & 0xC0 != 0x80)
        .count()
}

/// Every location lies inside the input. `document` is the parsed JSON document, when
/// the format is JSON and the input parsed; pointers are then resolved in it.
/// Diagnostics about a directory tree carry no spans (there is no one document to
/// underline), so `require_spans` is false for them.
pub fn locations(
    source: &[u8],
    report: &Report,
    document: Option<&Node<'_>>,
    require_spans: bool,
) -> Result<(), Violation> {
    let starts = line_starts(source);
    for diagnostic in &report.diagnostics {
        let location = &diagnostic.location;
        let fail = |detail: String| {
            Err(Violation::new(
                "location",
                format!("{} ({}): {detail}", diagnostic.rule.id, diagnostic.message),
            ))
        };
        if let Some(span) = location.span {
            if span.start > span.end || span.end > source.len() {
                return fail(format!(
                    "span {}..{} outside the {}-byte input",
                    span.start,
                    span.end,
                    source.len()
                ));
            }
        }
        if let (None, Some(position)) = (&location.pointer, location.position) {
            let line = position.line as usize;
            if line == 0 || line > starts.len() {
                return fail(format!("line {line} of a {}-line input", starts.len()));
            }
            let columns = line_columns(source, &starts, line - 1);
            if position.column == 0 || position.column as usize > columns + 1 {
                return fail(format!(
                    "column {} on line {line} of {columns} columns",
                    position.column
                ));
            }
            if let Some(span) = location.span {
                let (line, column) = position_of(source, &starts, span.start);
                if (line, column) != (position.line, position.column) {
                    return fail(format!(
                        "position {}:{} but the span starts at {line}:{column}",
                        position.line, position.column
                    ));
                }
            }
        }
        if let (Some(pointer), Some(position)) = (&location.pointer, location.position) {
            // Text inside a JSON string: the position is in the string's decoded text,
            // and the span lies inside the string's literal.
            let Some(root) = document else {
                return fail(format!("pointer {pointer:?} but no document was parsed"));
            };
            let strings: Vec<&Node<'_>> = pointer_nodes(root, pointer)
                .into_iter()
                .filter(|node| node.as_str().is_some())
                .collect();
            let fits = strings.iter().any(|node| {
                let text = node.as_str().unwrap_or_default().as_bytes();
                let starts = line_starts(text);
                let line = position.line as usize;
                let inside_span = location
                    .span
                    .is_none_or(|span| span.start >= node.span.start && span.end <= node.span.end);
                line >= 1
                    && line <= starts.len()
                    && position.column >= 1
                    && position.column as usize <= line_columns(text, &starts, line - 1) + 1
                    && inside_span
            });
            if !fits {
                return fail(format!(
                    "line {} column {} is not inside the string at {pointer:?}",
                    position.line, position.column
                ));
            }
            continue;
        }
        if let Some(pointer) = &location.pointer {
            let Some(root) = document else {
                return fail(format!("pointer {pointer:?} but no document was parsed"));
            };
            let Some(spans) = pointer_spans(root, pointer) else {
                return fail(format!("pointer {pointer:?} does not resolve"));
            };
            match location.span {
                Some(span) if spans.contains(&span) => {}
                Some(span) => {
                    return fail(format!(
                        "pointer {pointer:?} resolves, but the span {}..{} is neither its value, its key nor the object it is missing from",
                        span.start, span.end
                    ))
                }
                None if require_spans => {
                    return fail(format!("pointer {pointer:?} without a span"))
                }
                None => {}
            }
        }
    }
    Ok(())
}

/// The spans a diagnostic at `pointer` may carry: the value and key of every member the
/// pointer names (repeated keys included), or, when the last member is missing, the object
/// it would belong to. `None` when not even the parent resolves.
pub fn pointer_spans(root: &Node<'_>, pointer: &str) -> Option<Vec<Span>> {
    let tokens = json_text::tokens(pointer)?;
    let mut current: Vec<&Node<'_>> = vec![root];
    let mut spans = vec![root.span];
    for (index, token) in tokens.iter().enumerate() {
        let last = index + 1 == tokens.len();
        let mut next = Vec::new();
        spans.clear();
        for node in &current {
            match &node.value {
                Value::Object(members) => {
                    let mut found = false;
                    let mut null = false;
                    for member in members.iter().filter(|member| member.key == *token) {
                        found = true;
                        null |= matches!(member.value.value, Value::Null);
                        spans.push(member.key_span);
                        spans.push(member.value.span);
                        next.push(&member.value);
                    }
                    // A member written `null` is absent to readers that read null so
                    // (Go's decoder, which the Soulacy and agent-compose formats follow):
                    // a diagnostic may call it missing, at the object.
                    if (!found || null) && last {
                        spans.push(node.span);
                    }
                }
                Value::Array(items) => {
                    let canonical = token == "0" || !token.starts_with('0');
                    if let Some(item) = token
                        .parse::<usize>()
                        .ok()
                        .filter(|_| canonical)
                        .and_then(|at| items.get(at))
                    {
                        spans.push(item.span);
                        next.push(item);
                    }
                }
                _ => {}
            }
        }
        if spans.is_empty() {
            return None;
        }
        current = next;
    }
    Some(spans)
}

/// Every value a pointer names (all members of a repeated key).
pub fn pointer_nodes<'n, 'a>(root: &'n Node<'a>, pointer: &str) -> Vec<&'n Node<'a>> {
    let Some(tokens) = json_text::tokens(pointer) else {
        return Vec::new();
    };
    let mut current: Vec<&Node<'_>> = vec![root];
    for token in &tokens {
        let mut next = Vec::new();
        for node in current {
            match &node.value {
                Value::Object(members) => next.extend(
                    members
                        .iter()
                        .filter(|member| member.key == *token)
                        .map(|member| &member.value),
                ),
                Value::Array(items) => {
                    if let Some(item) = token.parse::<usize>().ok().and_then(|at| items.get(at)) {
                        next.push(item);
                    }
                }
                _ => {}
            }
        }
        current = next;
    }
    current
}

/// The diagnostics as (rule, severity, pointer) triples, counted: what must survive a
/// re-serialisation that moves every byte.
pub fn by_pointer(report: &Report) -> BTreeMap<(String, String, Option<String>), usize> {
    let mut counts = BTreeMap::new();
    for diagnostic in &report.diagnostics {
        let severity = match diagnostic.severity {
            Severity::Error => "error",
            Severity::Warning => "warning",
        };
        *counts
            .entry((
                diagnostic.rule.id.to_owned(),
                severity.to_owned(),
                diagnostic.location.pointer.clone(),
            ))
            .or_insert(0) += 1;
    }
    counts
}

/// Two spellings of one document got the same rules at the same pointers.
pub fn same_by_pointer(
    invariant: &'static str,
    original: &Report,
    other: &Report,
    other_text: &[u8],
) -> Result<(), Violation> {
    if by_pointer(original) == by_pointer(other) {
        return Ok(());
    }
    Err(Violation::new(
        invariant,
        format!(
            "original: [{}]; re-spelled: [{}]; re-spelled text: {}",
            describe(original),
            describe(other),
            String::from_utf8_lossy(other_text)
        ),
    ))
}

/// An input over the limit got the size diagnostic alone, at no location.
pub fn oversized(rule: &str, report: &Report) -> Result<(), Violation> {
    let alone = report.diagnostics.len() == 1
        && report.diagnostics[0].rule.id == rule
        && report.diagnostics[0].location.pointer.is_none()
        && report.diagnostics[0].location.position.is_none();
    if alone {
        return Ok(());
    }
    Err(Violation::new(
        "size-limit",
        format!(
            "an input over the limit must get only {rule}; got [{}]",
            describe(report)
        ),
    ))
}

/// Reads a JSON document for resolving pointers: limits large enough for any input the
/// formats accept.
pub fn parse_for_pointers(source: &[u8]) -> Option<json::Document<'_>> {
    // Tolerant as the spec profile reads: a byte order mark skipped, an unpaired surrogate
    // as U+FFFD, and values nested past the depth bound skipped while the rest is read
    // (the reference still reports the rest, at pointers into it).
    json::read_tolerant(
        source,
        Limits {
            max_bytes: usize::MAX,
            max_depth: 128,
        },
        json::Tolerance {
            byte_order_mark: true,
            lone_surrogates: true,
            skip_too_deep: true,
        },
    )
    .ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn positions_follow_every_line_ending() {
        let text = b"a\r\nb\rc\nd";
        let starts = line_starts(text);
        assert_eq!(starts, vec![0, 3, 5, 7]);
        assert_eq!(position_of(text, &starts, 5), (3, 1));
        assert_eq!(position_of(text, &starts, 8), (4, 2));
        assert_eq!(line_columns(text, &starts, 0), 1);
    }

    #[test]
    fn pointers_resolve_to_values_keys_and_missing_members() {
        let text = br#"{"a": {"b": [1, 2]}, "a": {"c": 3}, "x~/": 0}"#;
        let document = parse_for_pointers(text).expect("valid");
        let spans = pointer_spans(&document.root, "/a/b/1").expect("resolves");
        assert_eq!(&text[spans[0].start..spans[0].end], b"2");
        // The second `a` holds `c`; the first does not, so its span is the missing place.
        assert_eq!(
            pointer_spans(&document.root, "/a/c")
                .expect("resolves")
                .len(),
            3
        );
        assert!(pointer_spans(&document.root, "/x~0~1").is_some());
        assert!(pointer_spans(&document.root, "/a/b/01").is_none());
        assert!(pointer_spans(&document.root, "/q/r").is_none());
        // A missing member of the root resolves to the root.
        assert_eq!(
            pointer_spans(&document.root, "/missing").expect("resolves"),
            vec![document.root.span]
        );
    }
}
