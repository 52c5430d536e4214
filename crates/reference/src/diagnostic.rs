//! The one diagnostics model shared by every format of the reference implementation, and
//! its two renderings: human text with the source line underlined, and the JSON shape of
//! `soulcheck check --json` that the harness reads back.
//!
//! A [`Report`] is bounded whatever the input: it keeps at most [`MAX_DIAGNOSTICS`]
//! diagnostics and stops taking more once its pointers and messages hold
//! [`MAX_DIAGNOSTIC_TEXT`] bytes; what it leaves out is counted by severity (so the verdict
//! still sees every error) and announced by one notice diagnostic of the format's
//! `<format>.report.truncated` rule ([`Report::cap`]). Checkers ask [`Report::has_room`]
//! (or use [`Report::add`]) before building a pointer or a message, so a dropped
//! diagnostic costs a count, not a copy of a long key. Rendering is bounded per diagnostic:
//! a source excerpt is at most [`MAX_EXCERPT_BYTES`] and is never scanned further.

use std::fmt;
use std::ops::Range;

use annotate_snippets::{AnnotationKind, Level, Renderer, Snippet};
use soulcheck_vocabulary::wire;
pub use soulcheck_vocabulary::{Basis, Format, Severity, Verdict};

/// Rule constants generated from the catalogue (`cases/<format>/rules.toml`); one module
/// per format, one constant per rule.
pub mod rules {
    use super::{Basis, RuleId, Severity};
    include!(concat!(env!("OUT_DIR"), "/rules.rs"));
}

/// A catalogued rule: its stable ID, the severity its diagnostics have by default, and
/// what the catalogue says of it that changes how the reference applies it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct RuleId {
    /// The stable ID, e.g. `soul-kit.id.pattern`.
    pub id: &'static str,
    /// Default severity.
    pub severity: Severity,
    /// What the rule rests on: a report short of room keeps `spec` and `upstream`
    /// diagnostics ahead of `suite` ones.
    pub basis: Basis,
    /// Applied in the strict profile only.
    pub strict: bool,
    /// A bound of the reference's own (`kind = "bound"`): past it, the reference does not
    /// judge an input in the spec profile.
    pub bound: bool,
}

impl RuleId {
    /// Whether the rule rests on the spec's text or the publisher's code.
    pub fn spec_grounded(&self) -> bool {
        self.basis != Basis::Suite
    }
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
        LineIndex::new(text).position(text, offset)
    }
}

/// Where each line of a text starts, so that many positions in one document are found
/// with one scan instead of one scan each. Lines end as in [`Position::of`]: at LF, CRLF
/// or a lone CR.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LineIndex {
    starts: Vec<usize>,
    /// Characters (bytes that do not continue a UTF-8 sequence) before every multiple of
    /// [`LineIndex::BLOCK`] bytes, so a column is counted in bounded time however long its
    /// line: one line of a megabyte with many diagnostics on it stays linear.
    chars_before: Vec<usize>,
}

impl LineIndex {
    const BLOCK: usize = 1024;

    /// Indexes `source`.
    pub fn new(source: &[u8]) -> LineIndex {
        // Line starts: only the line-ending bytes are looked at, found with a vectorized
        // search. A CR ends a line unless an LF follows (then the LF ends it).
        let mut starts = vec![0];
        starts.extend(
            memchr::memchr2_iter(b'\n', b'\r', source)
                .filter(|&at| source[at] == b'\n' || source.get(at + 1) != Some(&b'\n'))
                .map(|at| at + 1),
        );
        // Characters before each block: a character starts at every byte that is not a
        // UTF-8 continuation byte (10xxxxxx), counted a block at a time by a loop the
        // compiler vectorizes.
        let mut chars_before = Vec::with_capacity(source.len() / Self::BLOCK + 2);
        let mut chars = 0;
        for block in source.chunks(Self::BLOCK) {
            chars_before.push(chars);
            chars += block.iter().filter(|&&byte| byte & 0xC0 != 0x80).count();
        }
        // The end of the text may start a block of its own; its count must exist too, or a
        // position at the very end would count from zero.
        if source.len().is_multiple_of(Self::BLOCK) {
            chars_before.push(chars);
        }
        LineIndex {
            starts,
            chars_before,
        }
    }

    /// Characters of the indexed `source` before byte `offset`.
    fn chars(&self, source: &[u8], offset: usize) -> usize {
        let block = offset / Self::BLOCK;
        let base = self.chars_before.get(block).copied().unwrap_or(0);
        let from = (block * Self::BLOCK).min(offset);
        base + source[from..offset]
            .iter()
            .filter(|&&byte| byte & 0xC0 != 0x80)
            .count()
    }

    /// The position of byte `offset` of the indexed `source`.
    pub fn position(&self, source: &[u8], offset: usize) -> Position {
        let offset = offset.min(source.len());
        let line = self.line_of(offset);
        let start = self.starts[line];
        let column = self.chars(source, offset) - self.chars(source, start);
        Position {
            line: u32::try_from(line + 1).unwrap_or(u32::MAX),
            column: u32::try_from(column + 1).unwrap_or(u32::MAX),
        }
    }

    /// What [`Location::text`] gives for `span`.
    pub fn location(&self, source: &[u8], span: Span) -> Location {
        Location {
            pointer: None,
            position: Some(self.position(source, span.start)),
            span: Some(span),
        }
    }

    /// The 0-based line holding byte `offset`.
    fn line_of(&self, offset: usize) -> usize {
        self.starts
            .partition_point(|&start| start <= offset)
            .saturating_sub(1)
    }

    /// The bytes of 0-based `line`, without its terminator.
    fn line_range(&self, source: &[u8], line: usize) -> Range<usize> {
        let start = self.starts[line];
        let mut end = self.starts.get(line + 1).copied().unwrap_or(source.len());
        if end > start && source.get(end - 1) == Some(&b'\n') {
            end -= 1;
        }
        if end > start && source.get(end - 1) == Some(&b'\r') {
            end -= 1;
        }
        start..end
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

/// A diagnostic's message as a checker hands it over, turned into text only when a report
/// keeps the diagnostic: a checker passes `format_args!(...)` (or a plain string), so a
/// diagnostic that the report's bounds drop, or that a first-error check never reaches,
/// costs no formatting.
pub trait Message {
    /// The message's text.
    fn build(self) -> String;
}

impl Message for String {
    fn build(self) -> String {
        self
    }
}

impl Message for &str {
    fn build(self) -> String {
        self.to_owned()
    }
}

impl Message for fmt::Arguments<'_> {
    fn build(self) -> String {
        // A message without arguments is a static string and needs no formatting.
        match self.as_str() {
            Some(text) => text.to_owned(),
            None => self.to_string(),
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

/// Most diagnostics a report keeps (the notice of [`Report::cap`] comes on top). A
/// document with more is broken enough that the first hundred say what to fix; the rest
/// are counted, not listed.
pub const MAX_DIAGNOSTICS: usize = 100;

/// Bytes of pointer and message text after which a report takes no further diagnostic.
/// Room is judged before a diagnostic is added, so the kept text is at most this plus one
/// diagnostic's, and a single diagnostic is never split or refused for its own size.
pub const MAX_DIAGNOSTIC_TEXT: usize = 256 * 1024;

/// Diagnostics a report left out, by severity.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Omitted {
    /// Errors left out.
    pub errors: usize,
    /// Warnings left out.
    pub warnings: usize,
}

impl Omitted {
    /// How many in all.
    pub fn total(&self) -> usize {
        self.errors + self.warnings
    }

    fn count(&mut self, severity: Severity, count: usize) {
        match severity {
            Severity::Error => self.errors += count,
            Severity::Warning => self.warnings += count,
        }
    }
}

/// Whether a report holding `diagnostics` (and having left out none) takes another: fewer
/// than [`MAX_DIAGNOSTICS`] and less than [`MAX_DIAGNOSTIC_TEXT`] bytes of pointers and
/// messages. At most [`MAX_DIAGNOSTICS`] lengths are added, so asking is cheap.
pub fn has_room(diagnostics: &[Diagnostic]) -> bool {
    diagnostics.len() < MAX_DIAGNOSTICS && text_bytes(diagnostics) < MAX_DIAGNOSTIC_TEXT
}

/// Bytes of pointer and message text a diagnostic adds to a report.
fn text_of(diagnostic: &Diagnostic) -> usize {
    diagnostic.message.len() + diagnostic.location.pointer.as_ref().map_or(0, String::len)
}

fn text_bytes(diagnostics: &[Diagnostic]) -> usize {
    diagnostics.iter().map(text_of).sum()
}

/// Everything the reference found in one input.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Report {
    /// The format the input was checked as.
    pub format: Format,
    /// Every diagnostic kept, in the order found.
    pub diagnostics: Vec<Diagnostic>,
    /// The result of a non-`validate` operation.
    pub value: Option<serde_json::Value>,
    /// The diagnostics found but left out of [`Report::diagnostics`] by the bounds.
    pub omitted: Omitted,
    /// Whether the check collects every diagnostic or stops at the first error.
    pub collect: Collect,
    /// Whether a diagnostic resting on the spec or the publisher's code was left out: then
    /// none is taken any more, so the kept ones are always the first found.
    spec_omitted: bool,
    /// Whether the input went past a bound of the reference's own in the spec profile
    /// ([`Report::settle`]): what lies past it was not judged.
    unjudged: bool,
}

/// How much a check collects.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum Collect {
    /// Every diagnostic, up to the report's bounds: what the suite compares.
    #[default]
    Every,
    /// Up to the first error: the report then takes nothing more, and a checker that
    /// asks [`Report::stopped`] stops walking. For an importer that needs the verdict
    /// (and the first reason) only.
    FirstError,
}

impl Report {
    /// An empty report for a format.
    pub fn new(format: Format) -> Report {
        Report {
            format,
            diagnostics: Vec::new(),
            value: None,
            omitted: Omitted::default(),
            collect: Collect::Every,
            spec_omitted: false,
            unjudged: false,
        }
    }

    /// An empty report for a format that stops at the first error ([`Collect::FirstError`]).
    pub fn first_error(format: Format) -> Report {
        Report {
            collect: Collect::FirstError,
            ..Report::new(format)
        }
    }

    /// Whether the check may stop: the report stops at the first error and holds one
    /// (kept or left out).
    pub fn stopped(&self) -> bool {
        self.collect == Collect::FirstError && self.verdict() == Verdict::Reject
    }

    /// Whether the report takes another diagnostic of any rule. Once one was left out none
    /// is taken, so the kept diagnostics are always the first ones found; a diagnostic of
    /// a `spec` or `upstream` rule may still displace a `suite` one ([`Report::has_room_for`]).
    pub fn has_room(&self) -> bool {
        self.omitted.total() == 0 && !self.stopped() && has_room(&self.diagnostics)
    }

    /// Whether the report takes another diagnostic of `rule`. A full report still takes
    /// one of a `spec` or `upstream` rule while it holds a `suite` diagnostic to leave out
    /// in its place, so what the spec decides is never crowded out by the suite's own
    /// findings (a hundred duplicate keys, say, ahead of a missing required member).
    pub fn has_room_for(&self, rule: RuleId) -> bool {
        if self.has_room() || (rule.severity == Severity::Error && self.can_make_room_for_error()) {
            return true;
        }
        rule.spec_grounded()
            && !self.spec_omitted
            && !self.stopped()
            && (has_room(&self.diagnostics) || self.last_evictable(rule.severity).is_some())
    }

    /// Where the last kept `suite` diagnostic is that a diagnostic of `incoming` severity
    /// may displace: any of them, except the report's only kept error when the incoming
    /// one is a warning, so a report that rejects always shows one of its errors (in the
    /// strict profile a `suite` rule's error may be the only one a report has).
    fn last_evictable(&self, incoming: Severity) -> Option<usize> {
        let errors_kept = self
            .diagnostics
            .iter()
            .filter(|kept| kept.severity == Severity::Error)
            .count();
        let keep_error = incoming == Severity::Warning && errors_kept == 1;
        self.diagnostics.iter().rposition(|kept| {
            !kept.rule.spec_grounded() && (kept.severity == Severity::Warning || !keep_error)
        })
    }

    /// Makes room for a diagnostic of a `spec` or `upstream` rule (of `incoming` severity)
    /// by leaving out the last kept `suite` diagnostics (counted, as every omission is),
    /// never the report's only error for a warning ([`Report::last_evictable`]); false
    /// when no room can be made. At most [`MAX_DIAGNOSTICS`] diagnostics are looked at per
    /// call.
    fn make_room_for_spec(&mut self, incoming: Severity) -> bool {
        if self.spec_omitted || self.stopped() {
            return false;
        }
        while !has_room(&self.diagnostics) {
            match self.last_evictable(incoming) {
                Some(at) => {
                    let left_out = self.diagnostics.remove(at);
                    self.omitted.count(left_out.severity, 1);
                }
                None => return false,
            }
        }
        true
    }

    /// Whether a full report would leave out a kept warning for an error: only while it
    /// holds no error at all, so a report that rejects always shows one of its errors
    /// (a hundred warnings never hide the one error that decides the verdict).
    fn can_make_room_for_error(&self) -> bool {
        !self.stopped()
            && !self
                .diagnostics
                .iter()
                .any(|kept| kept.severity == Severity::Error)
            && self
                .diagnostics
                .iter()
                .any(|kept| kept.severity == Severity::Warning)
    }

    /// Makes room for the report's first error by leaving out its last kept warning
    /// (counted, as every omission is); false when it holds an error already or no
    /// warning to leave out.
    fn make_room_for_error(&mut self) -> bool {
        if !self.can_make_room_for_error() {
            return false;
        }
        match self
            .diagnostics
            .iter()
            .rposition(|kept| kept.severity == Severity::Warning)
        {
            Some(at) => {
                let left_out = self.diagnostics.remove(at);
                if left_out.rule.spec_grounded() {
                    self.spec_omitted = true;
                }
                self.omitted.count(left_out.severity, 1);
                true
            }
            None => false,
        }
    }

    /// Whether a diagnostic of `rule` is kept now, making room for it when it rests on
    /// the spec, or when it is the report's first error; when it is not, it is counted as
    /// left out.
    fn admit(&mut self, rule: RuleId, severity: Severity) -> bool {
        if self.has_room() || (rule.spec_grounded() && self.make_room_for_spec(severity)) {
            return true;
        }
        if severity == Severity::Error && self.make_room_for_error() {
            return true;
        }
        if rule.spec_grounded() {
            self.spec_omitted = true;
        }
        self.omitted.count(severity, 1);
        false
    }

    /// Adds a diagnostic when there is room (see [`Report::has_room_for`]); otherwise
    /// counts it as left out.
    pub fn push(&mut self, diagnostic: Diagnostic) {
        if self.admit(diagnostic.rule, diagnostic.severity) {
            self.diagnostics.push(diagnostic);
        }
    }

    /// Adds a diagnostic of `rule` whose location and message `build` makes, calling it
    /// only when there is room: a diagnostic that would be dropped costs nothing to build.
    pub fn add(&mut self, rule: RuleId, build: impl FnOnce() -> (Location, String)) {
        if self.admit(rule, rule.severity) {
            let (location, message) = build();
            self.diagnostics
                .push(Diagnostic::new(rule, location, message));
        }
    }

    /// Counts `count` diagnostics of `rule` (at `severity`) as left out without building
    /// them.
    pub fn omit_of(&mut self, rule: RuleId, severity: Severity, count: usize) {
        if rule.spec_grounded() && count > 0 {
            self.spec_omitted = true;
        }
        self.omitted.count(severity, count);
    }

    /// Takes over another report's diagnostics (after this one's) and its omissions; the
    /// result is bounded again by [`Report::cap`].
    pub fn absorb(&mut self, other: &mut Report) {
        self.diagnostics.append(&mut other.diagnostics);
        self.omitted.errors += other.omitted.errors;
        self.omitted.warnings += other.omitted.warnings;
        other.omitted = Omitted::default();
        self.spec_omitted |= other.spec_omitted;
        self.unjudged |= other.unjudged;
    }

    /// Applies the bounds to the finished report: keeps the longest prefix of the
    /// diagnostics a report with room takes one by one (checkers that push onto
    /// [`Report::diagnostics`] directly are bounded here), counts the rest as left out,
    /// and, when anything was left out, adds one notice of `notice` (the format's
    /// `<format>.report.truncated` rule) saying how much. [`crate::check`] calls it once
    /// per report.
    pub fn cap(&mut self, notice: RuleId) {
        if !has_room(&self.diagnostics[..self.diagnostics.len().saturating_sub(1)]) {
            // Over the bounds: the first `spec` and `upstream` diagnostics a report with
            // room takes one by one, then the first `suite` ones in the room left, kept in
            // the order found.
            let mut kept = vec![false; self.diagnostics.len()];
            let mut count = 0;
            let mut text = 0;
            for spec_pass in [true, false] {
                for (index, diagnostic) in self.diagnostics.iter().enumerate() {
                    if diagnostic.rule.spec_grounded() != spec_pass {
                        continue;
                    }
                    if count >= MAX_DIAGNOSTICS || text >= MAX_DIAGNOSTIC_TEXT {
                        break;
                    }
                    kept[index] = true;
                    count += 1;
                    text += text_of(diagnostic);
                }
            }
            // A report that rejects shows one of its errors: when every error fell
            // outside the bounds, the first one takes the place of the last kept warning.
            let kept_error = self
                .diagnostics
                .iter()
                .zip(&kept)
                .any(|(diagnostic, kept)| *kept && diagnostic.severity == Severity::Error);
            let first_error = self
                .diagnostics
                .iter()
                .position(|diagnostic| diagnostic.severity == Severity::Error);
            let last_warning = self
                .diagnostics
                .iter()
                .zip(&kept)
                .rposition(|(diagnostic, kept)| *kept && diagnostic.severity == Severity::Warning);
            if let (false, Some(error), Some(warning)) = (kept_error, first_error, last_warning) {
                kept[warning] = false;
                kept[error] = true;
            }
            let mut index = 0;
            let omitted = &mut self.omitted;
            self.diagnostics.retain(|diagnostic| {
                let keep = kept[index];
                index += 1;
                if !keep {
                    omitted.count(diagnostic.severity, 1);
                }
                keep
            });
        }
        let omitted = self.omitted;
        if omitted.total() == 0 {
            return;
        }
        // <format>.report.truncated (suite decision: a report is bounded, and says so).
        self.diagnostics.push(Diagnostic::new(
            notice,
            Location::document(),
            format!(
                "{} omitted ({}, {}): a report keeps at most {MAX_DIAGNOSTICS} diagnostics and stops at {} KiB of pointer and message text",
                count(omitted.total(), "more diagnostic"),
                count(omitted.errors, "error"),
                count(omitted.warnings, "warning"),
                MAX_DIAGNOSTIC_TEXT / 1024
            ),
        ));
    }

    /// Settles the reference's own bounds for `profile`: in the spec profile an error of a
    /// bound (`kind = "bound"` in the catalogue: a size, depth or entry limit the spec does
    /// not set) says only that the reference stopped reading, so it becomes a warning and
    /// the report is marked as not judged ([`Report::not_judged`]); in the strict profile
    /// the bound is one of the suite's protective choices and rejects. [`crate::check`]
    /// calls it once per report.
    pub fn settle_bounds(&mut self, profile: crate::Profile) {
        if profile == crate::Profile::Strict {
            return;
        }
        for diagnostic in &mut self.diagnostics {
            if diagnostic.rule.bound && diagnostic.severity == Severity::Error {
                diagnostic.severity = Severity::Warning;
                self.unjudged = true;
            }
        }
    }

    /// Records that the input went past a bound of the reference in the spec profile
    /// whose diagnostic the checker already made a warning (a depth bound, past which the
    /// rest of the document is still read).
    pub fn reached_bound(&mut self) {
        self.unjudged = true;
    }

    /// The bound the input went past, when that is all the report found: the reference
    /// then did not judge the input (it neither accepts nor rejects it), and says why.
    /// `None` when the report holds an error (what was read already breaks a rule of the
    /// spec, so it rejects) or when no bound was reached.
    pub fn not_judged(&self) -> Option<&Diagnostic> {
        if !self.unjudged || self.verdict() == Verdict::Reject {
            return None;
        }
        self.diagnostics
            .iter()
            .find(|diagnostic| diagnostic.rule.bound)
    }

    /// Why the reference did not judge the input ([`Report::not_judged`]), as one line for
    /// the protocol's `skipped` answer.
    pub fn not_judged_reason(&self) -> Option<String> {
        self.not_judged().map(|bound| {
            format!(
                "not judged: {} ({}: a bound of the reference, not a rule of the spec; the strict profile rejects past it)",
                bound.message, bound.rule.id
            )
        })
    }

    /// Reject when any diagnostic, kept or left out, is an error; accept otherwise.
    pub fn verdict(&self) -> Verdict {
        let kept_error = self
            .diagnostics
            .iter()
            .any(|d| d.severity == Severity::Error);
        if kept_error || self.omitted.errors > 0 {
            Verdict::Reject
        } else {
            Verdict::Accept
        }
    }

    /// The report in the protocol's wire shape: what `soulcheck check --json` prints and
    /// what the harness compares.
    pub fn to_wire(&self) -> wire::Report {
        let diagnostics = self
            .diagnostics
            .iter()
            .map(|diagnostic| wire::Diagnostic {
                rule: diagnostic.rule.id.to_owned(),
                severity: diagnostic.severity,
                location: Some(soulcheck_vocabulary::Location {
                    pointer: diagnostic.location.pointer.clone(),
                    line: diagnostic.location.position.map(|position| position.line),
                    column: diagnostic.location.position.map(|position| position.column),
                }),
                message: diagnostic.message.clone(),
            })
            .collect();
        wire::Report {
            format: Some(self.format),
            verdict: self.verdict(),
            diagnostics: Some(diagnostics),
            value: self.value.clone(),
        }
    }

    /// Human rendering: one block per diagnostic with the source line and a marker under
    /// the offending span, then the verdict. `origin` names the input in headers.
    pub fn render(&self, source: &[u8], origin: &str) -> String {
        let renderer = Renderer::plain().term_width(100);
        // Indexed on the first diagnostic that has source to show: a report about the
        // document as a whole (a size refusal) does not scan the document at all.
        let lines = std::cell::OnceCell::new();
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
            let shown = diagnostic.location.span.and_then(|span| {
                excerpt(
                    source,
                    lines.get_or_init(|| LineIndex::new(source)),
                    Some(span),
                )
            });
            let text = match shown {
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
        let omitted = match self.omitted.total() {
            0 => String::new(),
            more => format!(", {more} more omitted"),
        };
        out.push_str(&format!(
            "{origin}: {} as {} ({}, {}{omitted})\n",
            match self.verdict() {
                _ if self.not_judged().is_some() => "not judged (past a bound of the reference)",
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
pub const MAX_EXCERPT_BYTES: usize = 4096;

fn excerpt<'a>(source: &'a [u8], lines: &LineIndex, span: Option<Span>) -> Option<Excerpt<'a>> {
    let span = span?;
    if span.start > source.len() {
        return None;
    }
    let end = span.end.clamp(span.start, source.len());
    let first = lines.line_of(span.start);
    let last = lines.line_of(end.saturating_sub(1).max(span.start));
    let start = lines.line_range(source, first).start;
    let stop = lines
        .line_range(source, last)
        .end
        .max(end.min(source.len()));
    // The length first: the scan below then reads at most MAX_EXCERPT_BYTES, so many
    // diagnostics on one long line cost a bounded amount each, not the line each.
    if stop - start > MAX_EXCERPT_BYTES {
        return None;
    }
    let lone_cr = source[start..stop]
        .iter()
        .enumerate()
        .any(|(at, &byte)| byte == b'\r' && source.get(start + at + 1) != Some(&b'\n'));
    if lone_cr {
        // A lone CR ends a line here but not for the renderer; such spans are shown
        // without source rather than with wrong line numbers.
        return None;
    }
    let text = std::str::from_utf8(&source[start..stop]).ok()?;
    let (from, to) = (span.start - start, end.min(stop) - start);
    if !text.is_char_boundary(from) || !text.is_char_boundary(to) {
        return None;
    }
    Some(Excerpt {
        text,
        first_line: first + 1,
        span: from..to,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Columns counted through the block index agree with counting from the line start,
    /// on lines far longer than a block, with multi-byte characters across block edges.
    #[test]
    fn positions_agree_with_counting_across_blocks() {
        let text = format!(
            "{}\n{}\r\n\u{e9}x\r",
            "a\u{e9}\u{1F375}".repeat(700),
            "\u{3042}b".repeat(900)
        );
        let source = text.as_bytes();
        let index = LineIndex::new(source);
        for offset in (0..=source.len()).step_by(5) {
            // A line ends at LF, or at a CR that no LF follows.
            let line_start = (0..offset)
                .rev()
                .find(|&at| {
                    source[at] == b'\n'
                        || (source[at] == b'\r' && source.get(at + 1) != Some(&b'\n'))
                })
                .map_or(0, |at| at + 1);
            let column = source[line_start..offset]
                .iter()
                .filter(|&&b| b & 0xC0 != 0x80)
                .count();
            assert_eq!(
                index.position(source, offset).column as usize,
                column + 1,
                "offset {offset}"
            );
        }
    }

    /// The end of a text whose length is a whole number of blocks has a position too.
    #[test]
    fn positions_at_the_end_of_whole_blocks() {
        for text in ["", "ab\n"] {
            for length in [1024, 2048, 4096] {
                let source = format!("{text}{}", "x".repeat(length - text.len()));
                let index = LineIndex::new(source.as_bytes());
                let end = index.position(source.as_bytes(), length);
                let expected = if text.is_empty() {
                    length + 1
                } else {
                    length - 2
                };
                assert_eq!(end.column as usize, expected, "{length}");
            }
        }
        assert_eq!(
            LineIndex::new(b"").position(b"", 0),
            Position { line: 1, column: 1 }
        );
    }

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
        // Past the end clamps to the end; an empty text has one line.
        assert_eq!(Position::of(text, 99), Position { line: 4, column: 2 });
        assert_eq!(Position::of(b"", 0), Position { line: 1, column: 1 });
        // The end of a text whose length is a whole number of index blocks.
        let block = vec![b'a'; LineIndex::BLOCK];
        assert_eq!(
            Position::of(&block, block.len()),
            Position {
                line: 1,
                column: 1025
            }
        );
    }

    #[test]
    fn excerpts_drop_line_terminators_and_refuse_lone_cr() {
        let crlf = b"{\r\n  \"a\": 1\r\n}\r\n";
        let lines = LineIndex::new(crlf);
        let shown = excerpt(crlf, &lines, Some(Span::new(8..9))).expect("excerpt");
        assert_eq!(shown.text, "  \"a\": 1");
        assert_eq!(shown.first_line, 2);
        let lone = b"a\rbc\rd";
        assert!(excerpt(lone, &LineIndex::new(lone), Some(Span::new(0..4))).is_none());
        assert!(excerpt(lone, &LineIndex::new(lone), Some(Span::new(2..3))).is_some());
    }

    const SUITE: RuleId = RuleId {
        id: "test.suite",
        severity: Severity::Error,
        basis: Basis::Suite,
        strict: true,
        bound: false,
    };
    const SPEC: RuleId = RuleId {
        id: "test.spec",
        severity: Severity::Error,
        basis: Basis::Spec,
        strict: false,
        bound: false,
    };
    const BOUND: RuleId = RuleId {
        id: "test.bound",
        severity: Severity::Error,
        basis: Basis::Suite,
        strict: false,
        bound: true,
    };

    fn rules_of(report: &Report) -> Vec<&'static str> {
        report.diagnostics.iter().map(|d| d.rule.id).collect()
    }

    /// A full report of suite diagnostics still takes the spec's, leaving out the last
    /// suite ones in their place; every omission is counted.
    #[test]
    fn spec_diagnostics_are_kept_ahead_of_suite_ones() {
        for pushed in [true, false] {
            let mut report = Report::new(Format::SoulKit);
            for _ in 0..MAX_DIAGNOSTICS + 20 {
                report.add(SUITE, || (Location::document(), "suite".to_owned()));
            }
            for _ in 0..3 {
                assert!(report.has_room_for(SPEC));
                if pushed {
                    report.push(Diagnostic::new(SPEC, Location::document(), "spec"));
                } else {
                    report.add(SPEC, || (Location::document(), "spec".to_owned()));
                }
            }
            assert!(!report.has_room_for(SUITE));
            let rules = rules_of(&report);
            assert_eq!(rules.len(), MAX_DIAGNOSTICS);
            assert_eq!(rules[MAX_DIAGNOSTICS - 3..], ["test.spec"; 3]);
            assert_eq!(rules.iter().filter(|id| **id == "test.spec").count(), 3);
            assert_eq!(report.omitted.errors, 23);
        }
    }

    /// A spec rule at warning severity (a should-level rule).
    const WARNING: RuleId = RuleId {
        id: "test.warning",
        severity: Severity::Warning,
        basis: Basis::Spec,
        strict: false,
        bound: false,
    };

    /// A report full of warnings still shows its first error, in place of its last
    /// warning, whether the error is added, pushed or found by the final cap; a second
    /// error is counted only.
    #[test]
    fn a_report_that_rejects_shows_an_error() {
        for way in ["add", "push", "cap"] {
            let mut report = Report::new(Format::SoulMd);
            for _ in 0..MAX_DIAGNOSTICS + 20 {
                match way {
                    "cap" => report.diagnostics.push(Diagnostic::new(
                        WARNING,
                        Location::document(),
                        "warning",
                    )),
                    _ => report.add(WARNING, || (Location::document(), "warning".to_owned())),
                }
            }
            for _ in 0..2 {
                match way {
                    "add" => {
                        report.add(SPEC, || (Location::document(), "error".to_owned()));
                    }
                    _ => report.diagnostics.push(Diagnostic::new(
                        SPEC,
                        Location::document(),
                        "error",
                    )),
                }
                if way == "add" {
                    assert!(!report.has_room_for(SPEC), "{way}");
                }
            }
            report.cap(SUITE);
            let rules = rules_of(&report);
            assert_eq!(
                rules.iter().filter(|id| **id == "test.spec").count(),
                1,
                "{way}"
            );
            assert_eq!(rules.len(), MAX_DIAGNOSTICS + 1, "{way}: the notice");
            assert_eq!(report.omitted.errors, 1, "{way}");
            assert_eq!(report.omitted.warnings, 21, "{way}");
            assert_eq!(report.verdict(), Verdict::Reject);
        }
    }

    /// A report of spec diagnostics only keeps the first ones found; none displaces
    /// another, and none is taken once one was left out.
    #[test]
    fn spec_diagnostics_never_displace_each_other() {
        let mut report = Report::new(Format::SoulKit);
        for _ in 0..MAX_DIAGNOSTICS + 5 {
            report.add(SPEC, || (Location::document(), "spec".to_owned()));
        }
        report.add(SUITE, || (Location::document(), "suite".to_owned()));
        assert_eq!(rules_of(&report), ["test.spec"; MAX_DIAGNOSTICS]);
        assert!(!report.has_room_for(SPEC));
        assert_eq!(report.omitted.errors, 6);
    }

    /// Capping a report pushed to directly keeps the spec's diagnostics first, then the
    /// suite's in the room left, in the order found.
    #[test]
    fn cap_keeps_spec_diagnostics_first_in_order() {
        let mut report = Report::new(Format::SoulKit);
        for index in 0..MAX_DIAGNOSTICS + 10 {
            let rule = if index % 10 == 9 { SPEC } else { SUITE };
            report.diagnostics.push(Diagnostic::new(
                rule,
                Location::document(),
                index.to_string(),
            ));
        }
        report.cap(SUITE);
        // 100 kept (all 11 spec ones among them), 10 suite ones left out, then the notice.
        assert_eq!(report.diagnostics.len(), MAX_DIAGNOSTICS + 1);
        assert_eq!(report.omitted.errors, 10);
        let kept: Vec<usize> = report.diagnostics[..MAX_DIAGNOSTICS]
            .iter()
            .map(|d| d.message.parse().expect("index"))
            .collect();
        assert!(kept.windows(2).all(|pair| pair[0] < pair[1]));
        assert_eq!(kept.iter().filter(|&&i| i % 10 == 9).count(), 11);
    }

    /// Past a bound the spec profile does not judge (unless something read already
    /// broke a rule); the strict profile rejects.
    #[test]
    fn a_bound_is_not_judged_in_the_spec_profile() {
        let bounded = || {
            let mut report = Report::new(Format::SoulKit);
            report.push(Diagnostic::new(BOUND, Location::document(), "too big"));
            report
        };
        let mut spec = bounded();
        spec.settle_bounds(crate::Profile::Spec);
        assert_eq!(spec.verdict(), Verdict::Accept);
        assert_eq!(spec.not_judged().map(|d| d.rule.id), Some("test.bound"));
        let reason = spec.not_judged_reason().expect("reason");
        assert!(reason.starts_with("not judged: too big"), "{reason}");
        let mut strict = bounded();
        strict.settle_bounds(crate::Profile::Strict);
        assert_eq!(strict.verdict(), Verdict::Reject);
        assert!(strict.not_judged().is_none());
        let mut broken = bounded();
        broken.push(Diagnostic::new(SPEC, Location::document(), "broken"));
        broken.settle_bounds(crate::Profile::Spec);
        assert_eq!(broken.verdict(), Verdict::Reject);
        assert!(broken.not_judged().is_none());
    }
}
