//! The strict JSON reader shared by the JSON formats (Soul Kit, Soulacy package and
//! sidecar, bundle manifest, skill package envelope).
//!
//! It is built on `jiter`, a maintained pull parser, because serde_json's visitors do not
//! expose byte offsets and every value here needs a span for located diagnostics. On top
//! of the parser this module adds what the formats require and a plain JSON parser does
//! not give:
//! - the size limit, checked before any parsing;
//! - a clean error for a byte order mark, invalid UTF-8 and lone surrogate escapes;
//! - a nesting bound, so a million `[` is an error and not a stack overflow;
//! - every object member kept in order, duplicates included, and duplicate keys reported
//!   at every depth, comparing keys after escape decoding (`"id"` equals `"\u0069d"`);
//! - a byte span for every value and key, and JSON pointers for locating them. A
//!   duplicate's pointer is built only when it is asked for ([`Document::pointer`]): the
//!   reader records where each duplicate sits as a place in a table shared by every
//!   duplicate under the same path, so ten thousand duplicates under one long key cost one
//!   copy of the key, not ten thousand;
//! - string values read in one pass by this module (`read_string`), which borrows a
//!   string without escapes and decodes escapes as it goes, without the second UTF-8
//!   check and copy the parser's own decoding costs; the parser goes on after the
//!   string, and reads (and explains) any string this pass refuses.
//!
//! [`walk`] builds on the reader: the typed member access every JSON checker shares.

pub mod walk;

use std::borrow::Cow;
use std::collections::HashMap;
use std::fmt;

use jiter::{Jiter, JiterError, JiterErrorType, JsonErrorType, Peek};

use crate::diagnostic::{Diagnostic, LineIndex, Location, RuleId, Span};

/// Member count from which an object's keys are indexed for duplicate detection.
const INDEXED_FROM: usize = 16;

/// Bounds a read respects.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Limits {
    /// Largest accepted input, in bytes; larger input is refused before parsing.
    pub max_bytes: usize,
    /// Deepest accepted nesting of arrays and objects (the root value is depth 1).
    pub max_depth: usize,
}

/// Why a document could not be read. Offsets are byte offsets into the input.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ReadError {
    /// The input is larger than [`Limits::max_bytes`]; it was not parsed.
    TooLarge {
        /// Input size in bytes.
        size: usize,
        /// The limit.
        limit: usize,
    },
    /// The input starts with a UTF-8 byte order mark.
    ByteOrderMark,
    /// The input is not valid UTF-8 from this offset on.
    InvalidUtf8 {
        /// First offending byte.
        offset: usize,
    },
    /// A `\u` escape denotes half of a surrogate pair without the other half.
    LoneSurrogate {
        /// Where the parser noticed.
        offset: usize,
    },
    /// Arrays and objects nest deeper than [`Limits::max_depth`].
    TooDeep {
        /// Start of the value past the limit.
        offset: usize,
        /// The limit.
        limit: usize,
    },
    /// Something follows the top-level value.
    TrailingData {
        /// First byte after the value that is not whitespace.
        offset: usize,
    },
    /// Any other violation of the JSON grammar (RFC 8259).
    Syntax {
        /// Where the parser noticed.
        offset: usize,
        /// The parser's description.
        message: String,
    },
}

impl ReadError {
    /// The offset the error points at, if it points anywhere.
    pub fn offset(&self) -> Option<usize> {
        match self {
            ReadError::TooLarge { .. } => None,
            ReadError::ByteOrderMark => Some(0),
            ReadError::InvalidUtf8 { offset }
            | ReadError::LoneSurrogate { offset }
            | ReadError::TooDeep { offset, .. }
            | ReadError::TrailingData { offset }
            | ReadError::Syntax { offset, .. } => Some(*offset),
        }
    }
}

/// The rule a format reports for each kind of read error, so every JSON format maps
/// reader errors to its own catalogue the same way.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ReadRules {
    /// [`ReadError::TooLarge`].
    pub size: RuleId,
    /// [`ReadError::ByteOrderMark`].
    pub bom: RuleId,
    /// [`ReadError::InvalidUtf8`].
    pub utf8: RuleId,
    /// [`ReadError::LoneSurrogate`].
    pub surrogate: RuleId,
    /// [`ReadError::TooDeep`].
    pub depth: RuleId,
    /// [`ReadError::TrailingData`].
    pub trailing: RuleId,
    /// [`ReadError::Syntax`].
    pub syntax: RuleId,
}

impl ReadError {
    /// The rule this error breaks under a format's rules.
    pub fn rule(&self, rules: &ReadRules) -> RuleId {
        match self {
            ReadError::TooLarge { .. } => rules.size,
            ReadError::ByteOrderMark => rules.bom,
            ReadError::InvalidUtf8 { .. } => rules.utf8,
            ReadError::LoneSurrogate { .. } => rules.surrogate,
            ReadError::TooDeep { .. } => rules.depth,
            ReadError::TrailingData { .. } => rules.trailing,
            ReadError::Syntax { .. } => rules.syntax,
        }
    }

    /// Where the error points: the line and column of its offset (one byte underlined),
    /// or the document as a whole for the size limit.
    pub fn location(&self, source: &[u8]) -> Location {
        match self.offset() {
            Some(offset) => {
                Location::text(source, Span::new(offset..(offset + 1).min(source.len())))
            }
            None => Location::document(),
        }
    }

    /// The diagnostic this error gives under a format's rules.
    pub fn diagnostic(&self, source: &[u8], rules: &ReadRules) -> Diagnostic {
        Diagnostic::new(self.rule(rules), self.location(source), self.to_string())
    }
}

impl Document<'_> {
    /// Reads `null` as Go's decoder does for a field (the publisher's reader of a Go-read
    /// format): it leaves the field as it was, so a member whose value is `null` is read as
    /// absent, even after an earlier occurrence of its key. Array items are left as they
    /// are. Linear in the document.
    pub fn drop_null_members(&mut self) {
        let mut pending: Vec<&mut Node<'_>> = vec![&mut self.root];
        while let Some(node) = pending.pop() {
            match &mut node.value {
                Value::Array(items) => pending.extend(items.iter_mut()),
                Value::Object(members) => {
                    members.retain(|member| !matches!(member.value.value, Value::Null));
                    pending.extend(members.iter_mut().map(|member| &mut member.value));
                }
                _ => {}
            }
        }
    }

    /// Reads repeated keys as Go's, Python's and JavaScript's decoders do: the last
    /// occurrence of a key stands, the earlier ones are dropped, and no duplicate is left
    /// to report. For a format whose duplicate-key rule is strict-only, in the spec
    /// profile. Linear: each object holding a repeat is indexed once.
    pub fn keep_last_duplicates(&mut self) {
        if self.duplicates.is_empty() {
            return;
        }
        self.duplicates.clear();
        self.places.clear();
        let mut pending: Vec<&mut Node<'_>> = vec![&mut self.root];
        while let Some(node) = pending.pop() {
            match &mut node.value {
                Value::Array(items) => pending.extend(items.iter_mut()),
                Value::Object(members) => {
                    if members.iter().any(|member| member.repeated) {
                        let mut last: HashMap<String, usize, foldhash::fast::RandomState> =
                            HashMap::default();
                        for (at, member) in members.iter().enumerate() {
                            last.insert(member.key.to_string(), at);
                        }
                        let mut at = 0;
                        members.retain(|member| {
                            let keep = last.get(member.key.as_ref()) == Some(&at);
                            at += 1;
                            keep
                        });
                        for member in members.iter_mut() {
                            member.repeated = false;
                        }
                    }
                    pending.extend(members.iter_mut().map(|member| &mut member.value));
                }
                _ => {}
            }
        }
    }

    /// The diagnostic of `rule` for one repeated key, at the member's pointer, naming
    /// where the key first appeared. `lines` indexes `source`; one index serves every
    /// duplicate, so many duplicates stay linear.
    pub fn duplicate_diagnostic(
        &self,
        source: &[u8],
        lines: &LineIndex,
        duplicate: &DuplicateKey,
        rule: RuleId,
    ) -> Diagnostic {
        let first = lines.position(source, duplicate.first.start);
        let message = format!(
            "duplicate key {:?}; first defined at line {}, column {}",
            duplicate.key, first.line, first.column
        );
        Diagnostic::new(
            rule,
            Location::pointer(self.pointer(duplicate), duplicate.span),
            message,
        )
    }

    /// The pointer of a duplicate's member (shared by both occurrences), built now: from
    /// the places of the path above it, then its key.
    pub fn pointer(&self, duplicate: &DuplicateKey) -> String {
        let mut steps = Vec::new();
        let mut place = duplicate.object;
        while let Some(at) = place {
            let found = &self.places[at];
            steps.push(&found.step);
            place = found.parent;
        }
        let mut pointer = String::new();
        for step in steps.into_iter().rev() {
            match step {
                Step::Index(index) => {
                    pointer.push('/');
                    pointer.push_str(&index.to_string());
                }
                Step::Key(name) => push_token(&mut pointer, name),
            }
        }
        push_token(&mut pointer, &duplicate.key);
        pointer
    }
}

impl fmt::Display for ReadError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ReadError::TooLarge { size, limit } => write!(
                f,
                "the document is {size} bytes, over the {limit}-byte limit"
            ),
            ReadError::ByteOrderMark => f.write_str("the document starts with a byte order mark"),
            ReadError::InvalidUtf8 { .. } => f.write_str("the document is not valid UTF-8"),
            ReadError::LoneSurrogate { .. } => f.write_str("a \\u escape is an unpaired surrogate"),
            ReadError::TooDeep { limit, .. } => {
                write!(f, "arrays and objects nest deeper than {limit} levels")
            }
            ReadError::TrailingData { .. } => f.write_str("data follows the top-level value"),
            ReadError::Syntax { message, .. } => write!(f, "invalid JSON: {message}"),
        }
    }
}

/// A parsed document: its root value and the duplicate keys met on the way.
#[derive(Debug, Clone, PartialEq)]
pub struct Document<'a> {
    /// The top-level value.
    pub root: Node<'a>,
    /// Every member whose key repeats an earlier key of the same object, in document order.
    pub duplicates: Vec<DuplicateKey>,
    /// The steps of the paths to the objects holding duplicates, each step once however
    /// many duplicates lie below it; [`Document::pointer`] walks them.
    places: Vec<Place<'a>>,
    /// The first value nested past the depth bound ([`ReadError::TooDeep`]), when the read
    /// skipped such values ([`Tolerance::skip_too_deep`]): each stands as an empty array or
    /// object, and what it held was not read.
    pub too_deep: Option<ReadError>,
}

/// A member whose key repeats an earlier key of the same object.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DuplicateKey {
    /// The decoded key.
    pub key: String,
    /// Span of the repeated key.
    pub span: Span,
    /// Span of the first occurrence's key.
    pub first: Span,
    /// The object holding the member, as a place of [`Document::places`]; `None` for the
    /// root. Its pointer is [`Document::pointer`].
    object: Option<usize>,
}

/// One step of a path recorded for duplicates: the step from its parent place (`None`:
/// the root) to a value.
#[derive(Debug, Clone, PartialEq)]
struct Place<'a> {
    parent: Option<usize>,
    step: Step<'a>,
}

/// A value with its span.
#[derive(Debug, Clone, PartialEq)]
pub struct Node<'a> {
    /// Bytes the value occupies in the input.
    pub span: Span,
    /// The value.
    pub value: Value<'a>,
}

/// A JSON value. Strings borrow from the input when they hold no escapes; numbers keep
/// their exact source text, so `1`, `1.0` and `1e0` stay distinguishable.
#[derive(Debug, Clone, PartialEq)]
pub enum Value<'a> {
    /// `null`.
    Null,
    /// `true` or `false`.
    Bool(bool),
    /// A number, as written.
    Number(&'a str),
    /// A string, escapes decoded.
    String(Cow<'a, str>),
    /// An array.
    Array(Vec<Node<'a>>),
    /// An object, members in document order, duplicates included.
    Object(Vec<Member<'a>>),
}

/// One object member.
#[derive(Debug, Clone, PartialEq)]
pub struct Member<'a> {
    /// The key, escapes decoded.
    pub key: Cow<'a, str>,
    /// Bytes the key (with its quotes) occupies.
    pub key_span: Span,
    /// The value.
    pub value: Node<'a>,
    /// Whether an earlier member of the same object has the same key (a duplicate, which
    /// the reader has recorded): checks that look at the first occurrence of a key only
    /// skip it without hashing the keys again.
    pub repeated: bool,
}

impl Value<'_> {
    /// The JSON type's name, for messages.
    pub fn kind(&self) -> &'static str {
        match self {
            Value::Null => "null",
            Value::Bool(_) => "a boolean",
            Value::Number(_) => "a number",
            Value::String(_) => "a string",
            Value::Array(_) => "an array",
            Value::Object(_) => "an object",
        }
    }
}

impl<'a> Node<'a> {
    /// The string, if this is one.
    pub fn as_str(&self) -> Option<&str> {
        match &self.value {
            Value::String(text) => Some(text),
            _ => None,
        }
    }

    /// The members, if this is an object.
    pub fn as_object(&self) -> Option<&[Member<'a>]> {
        match &self.value {
            Value::Object(members) => Some(members),
            _ => None,
        }
    }

    /// The items, if this is an array.
    pub fn as_array(&self) -> Option<&[Node<'a>]> {
        match &self.value {
            Value::Array(items) => Some(items),
            _ => None,
        }
    }

    /// The first member named `key`, if this is an object holding one.
    pub fn get(&self, key: &str) -> Option<&Member<'a>> {
        self.as_object()?.iter().find(|member| member.key == key)
    }
}

/// Appends one reference token to a JSON pointer, escaping `~` and `/` (RFC 6901).
pub fn pointer_join(base: &str, token: &str) -> String {
    let mut pointer = String::with_capacity(base.len() + token.len() + 1);
    pointer.push_str(base);
    push_token(&mut pointer, token);
    pointer
}

/// Appends `/` and an escaped reference token to a pointer in place.
fn push_token(pointer: &mut String, token: &str) {
    pointer.push('/');
    for c in token.chars() {
        match c {
            '~' => pointer.push_str("~0"),
            '/' => pointer.push_str("~1"),
            c => pointer.push(c),
        }
    }
}

/// What a read tolerates that RFC 8259 lets a parser accept or refuse: a format whose
/// catalogue makes the refusal a strict-only rule reads leniently in the spec profile.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Tolerance {
    /// A leading UTF-8 byte order mark is skipped ("implementations MAY ignore" one).
    pub byte_order_mark: bool,
    /// An unpaired surrogate escape stands for U+FFFD, as Go's and Python's decoders read
    /// it (RFC 8259 calls the behaviour unpredictable).
    pub lone_surrogates: bool,
    /// An array or object nested past [`Limits::max_depth`] is skipped unread and stands
    /// as an empty one of its kind, so the rest of the document is still read; the first
    /// is recorded in [`Document::too_deep`]. Without it the read fails there.
    pub skip_too_deep: bool,
}

/// Whether a JSON number, as written, is exactly the number 1 (`1`, `1.0`, `1e0`,
/// `10e-1`, `0.1E+1`): its digits, leading and trailing zeros dropped, are `1` at the
/// units place. Exact decimal arithmetic, so `1.0000000000000000001` (1 as a float) is not.
/// `text` is a number the reader took, so it follows RFC 8259's grammar.
pub fn number_is_one(text: &str) -> bool {
    if text.starts_with('-') {
        return false;
    }
    let (mantissa, exponent) = match text.find(['e', 'E']) {
        Some(at) => (&text[..at], &text[at + 1..]),
        None => (text, "0"),
    };
    let Ok(exponent) = exponent.trim_start_matches('+').parse::<i64>() else {
        // An exponent too long for an i64 is never that of a 1 written with fewer digits.
        return false;
    };
    let (whole, fraction) = mantissa.split_once('.').unwrap_or((mantissa, ""));
    let digits = format!("{whole}{fraction}");
    // The value is digits x 10^(exponent - fraction length).
    let Some(first) = digits.find(|c: char| c != '0') else {
        return false;
    };
    let significant = digits[first..].trim_end_matches('0');
    let trailing_zeros = digits.len() - first - significant.len();
    let scale = exponent - fraction.len() as i64 + trailing_zeros as i64;
    significant == "1" && scale == 0
}

/// Reads one JSON document under `limits`.
pub fn read(input: &[u8], limits: Limits) -> Result<Document<'_>, ReadError> {
    read_tolerant(input, limits, Tolerance::default())
}

/// Reads one JSON document under `limits`, tolerating what `tolerance` allows. Spans and
/// offsets stay offsets into `input` (a skipped byte order mark included).
pub fn read_tolerant(
    input: &[u8],
    limits: Limits,
    tolerance: Tolerance,
) -> Result<Document<'_>, ReadError> {
    if input.len() > limits.max_bytes {
        return Err(ReadError::TooLarge {
            size: input.len(),
            limit: limits.max_bytes,
        });
    }
    let bom = input.starts_with(b"\xEF\xBB\xBF");
    if bom && !tolerance.byte_order_mark {
        return Err(ReadError::ByteOrderMark);
    }
    let start = if bom { 3 } else { 0 };
    // simdutf8 checks many bytes at once; its `compat` errors say where the valid prefix
    // ends exactly as the standard library does.
    let text = simdutf8::compat::from_utf8(input).map_err(|error| ReadError::InvalidUtf8 {
        offset: error.valid_up_to(),
    })?;
    let mut reader = Reader {
        text,
        jiter: Jiter::new(&input[start..]),
        base: start,
        limits,
        lone_surrogates: tolerance.lone_surrogates,
        skip_too_deep: tolerance.skip_too_deep,
        too_deep: None,
        duplicates: Vec::new(),
        path: Vec::new(),
        places: Vec::new(),
        items: Vec::new(),
        members: Vec::new(),
    };
    let root = reader.value(1)?;
    reader
        .jiter
        .finish()
        .map_err(|error| to_error(text, reader.base, error))?;
    Ok(Document {
        root,
        duplicates: reader.duplicates,
        places: reader.places,
        too_deep: reader.too_deep,
    })
}

struct Reader<'a> {
    text: &'a str,
    /// The parser, over the input from `base` on: after a string read by
    /// [`Reader::string`] without it, a new parser starts after the string.
    jiter: Jiter<'a>,
    /// Where in the input the parser's data starts.
    base: usize,
    limits: Limits,
    /// Whether an unpaired surrogate escape reads as U+FFFD ([`Tolerance`]).
    lone_surrogates: bool,
    /// Whether values past the depth bound are skipped ([`Tolerance::skip_too_deep`]).
    skip_too_deep: bool,
    /// The first value skipped for its depth.
    too_deep: Option<ReadError>,
    duplicates: Vec<DuplicateKey>,
    /// The way from the root to the value being read, each step with its place in
    /// `places` once a duplicate below it has needed one. No pointer is built while
    /// reading: building one per value would copy a long key once per item of an array
    /// below it, and one per duplicate once per duplicate under it, quadratic in the input.
    path: Vec<(Step<'a>, Option<usize>)>,
    /// The places recorded so far (see [`Document::pointer`]).
    places: Vec<Place<'a>>,
    /// Items of the arrays being read, innermost last: an array's items wait here and go
    /// into a vector of exactly their number when it closes. A vector grown item by item
    /// reserves room for four nodes at least, so `[[[...]]]` cost about 95 bytes per
    /// input byte; this way each array costs its items, and the stack at most twice the
    /// deepest pending run.
    items: Vec<Node<'a>>,
    /// Members of the objects being read, innermost last, as `items`.
    members: Vec<Member<'a>>,
}

/// One step of a path.
#[derive(Debug, Clone, PartialEq)]
enum Step<'a> {
    /// An array item.
    Index(usize),
    /// An object member.
    Key(Cow<'a, str>),
}

/// Classifies a parser error; `base` is where in the input the parser's data starts.
fn to_error(text: &str, base: usize, error: JiterError) -> ReadError {
    let offset = (base + error.index).min(text.len());
    if let JiterErrorType::JsonError(
        JsonErrorType::LoneLeadingSurrogateInHexEscape | JsonErrorType::UnexpectedEndOfHexEscape,
    ) = error.error_type
    {
        return ReadError::LoneSurrogate {
            offset: unpaired_surrogate_start(text.as_bytes(), offset),
        };
    }
    match error.error_type {
        JiterErrorType::JsonError(JsonErrorType::TrailingCharacters) => {
            ReadError::TrailingData { offset }
        }
        other => ReadError::Syntax {
            offset,
            message: other.to_string(),
        },
    }
}

/// Where the first unpaired surrogate escape starts. The parser notices a lone surrogate
/// only after reading past it (at the next escape, or at the closing quote), but the
/// offending text is the `\u` escape itself, so the error points there.
/// `noticed` is where the parser stopped; when no unpaired escape is found before it
/// (which a parser error of this kind rules out), that offset is kept.
fn unpaired_surrogate_start(source: &[u8], noticed: usize) -> usize {
    let hex4 = |at: usize| -> Option<u32> {
        let digits = source.get(at..at + 4)?;
        if !digits.iter().all(u8::is_ascii_hexdigit) {
            return None;
        }
        u32::from_str_radix(std::str::from_utf8(digits).ok()?, 16).ok()
    };
    let escape_at = |at: usize| -> Option<u32> {
        if source.get(at) == Some(&b'\\') && source.get(at + 1) == Some(&b'u') {
            hex4(at + 2)
        } else {
            None
        }
    };
    let end = noticed.min(source.len());
    let mut in_string = false;
    let mut index = 0;
    while index < end {
        match source[index] {
            b'"' => {
                in_string = !in_string;
                index += 1;
            }
            b'\\' if in_string => match escape_at(index) {
                // A high surrogate is paired only when a low surrogate escape follows.
                Some(0xD800..=0xDBFF) => match escape_at(index + 6) {
                    Some(0xDC00..=0xDFFF) => index += 12,
                    _ => return index,
                },
                Some(0xDC00..=0xDFFF) => return index,
                Some(_) => index += 6,
                // Any other escape is two bytes long.
                None => index += 2,
            },
            _ => index += 1,
        }
    }
    noticed
}

/// Turns text the parser produced into a borrow of the input when it is a slice of it (a
/// string or key without escapes), and an owned copy otherwise.
fn intern<'a>(text: &'a str, produced: &[u8]) -> Cow<'a, str> {
    let base = text.as_ptr() as usize;
    let at = produced.as_ptr() as usize;
    if at >= base && at + produced.len() <= base + text.len() {
        let start = at - base;
        if let Some(slice) = text.get(start..start + produced.len()) {
            return Cow::Borrowed(slice);
        }
    }
    Cow::Owned(String::from_utf8_lossy(produced).into_owned())
}

/// Reads the JSON string whose opening quote is at `start` in `text`: its value (borrowed
/// when it has no escapes) and the offset just past its closing quote. One pass: runs of
/// plain text are found with a vectorized search for the next quote or backslash and
/// checked for control characters, escapes are decoded one by one (escaped text is often
/// dense with them). `None` for a string JSON does not allow, which this function does
/// not explain: the caller has the parser read it and report why.
fn read_string(text: &str, start: usize, lone_surrogates: bool) -> Option<(Cow<'_, str>, usize)> {
    let bytes = text.as_bytes();
    let mut decoded: Option<String> = None;
    // The text from `copied` to the next escape or the closing quote goes into `decoded`
    // as it is.
    let mut copied = start + 1;
    let mut at = start + 1;
    // Whether the last run of plain text was short: escapes then come densely (every
    // non-ASCII character escaped), and the next run is looked at byte by byte first.
    let mut dense = true;
    loop {
        let from = at;
        at = run_end(bytes, at, dense)?;
        dense = at - from < SHORT_RUN;
        if bytes[at] == b'"' {
            break;
        }
        // Sized by this string, never by the document: a buffer per escaped string sized
        // from the whole text made an array of short escaped strings cost hundreds of
        // bytes per input byte. Growth by doubling keeps it within twice the decoded text.
        let value = decoded.get_or_insert_with(|| String::with_capacity(at - from + 8));
        if copied < at {
            value.push_str(text.get(copied..at)?);
        }
        let (character, length) = escape(bytes, at, lone_surrogates)?;
        value.push(character);
        at += length;
        copied = at;
    }
    // Control characters may not appear raw: one vectorized fold over the whole string
    // (escapes included, whose bytes are all printable) finds any.
    let raw = bytes.get(start + 1..at)?;
    if raw
        .iter()
        .fold(false, |control, &byte| control | (byte < 0x20))
    {
        return None;
    }
    let value = match decoded {
        None => Cow::Borrowed(text.get(start + 1..at)?),
        Some(mut value) => {
            value.push_str(text.get(copied..at)?);
            Cow::Owned(value)
        }
    };
    Some((value, at + 1))
}

/// Bytes of a run of plain string text looked at one by one before the rest of the run is
/// searched with vector instructions: escaped text is dense with escapes, and a search
/// call costs more than a few byte compares.
const SHORT_RUN: usize = 16;

/// Where the run of string text from `at` ends: the offset of the next quote or
/// backslash; `None` when the text ends first. With `dense`, the first bytes are looked
/// at one by one before the vectorized search.
#[inline(always)]
fn run_end(bytes: &[u8], at: usize, dense: bool) -> Option<usize> {
    if !dense {
        return Some(at + memchr::memchr2(b'"', b'\\', bytes.get(at..)?)?);
    }
    let short = bytes.len().min(at + SHORT_RUN);
    if let Some(offset) = bytes
        .get(at..short)?
        .iter()
        .position(|&byte| byte == b'"' || byte == b'\\')
    {
        return Some(at + offset);
    }
    Some(short + memchr::memchr2(b'"', b'\\', bytes.get(short..)?)?)
}

/// The character the escape at `at` (its backslash) stands for and the escape's length in
/// bytes; `None` for an escape JSON does not allow, including an unpaired surrogate.
/// With `lone_surrogates`, an unpaired surrogate escape stands for U+FFFD instead.
fn escape(bytes: &[u8], at: usize, lone_surrogates: bool) -> Option<(char, usize)> {
    Some(match *bytes.get(at + 1)? {
        b'"' => ('"', 2),
        b'\\' => ('\\', 2),
        b'/' => ('/', 2),
        b'b' => ('\u{8}', 2),
        b'f' => ('\u{C}', 2),
        b'n' => ('\n', 2),
        b'r' => ('\r', 2),
        b't' => ('\t', 2),
        b'u' => {
            let unit = hex_unit(bytes.get(at + 2..)?)?;
            let unpaired = || lone_surrogates.then_some((char::REPLACEMENT_CHARACTER, 6));
            if (0xD800..0xDC00).contains(&unit) {
                // A high surrogate stands for a character only with a low one after it.
                let low = match bytes.get(at + 6..at + 8) {
                    Some(b"\\u") => hex_unit(bytes.get(at + 8..).unwrap_or_default()),
                    _ => None,
                };
                match low {
                    Some(low) if (0xDC00..0xE000).contains(&low) => {
                        let scalar = 0x10000 + ((unit - 0xD800) << 10) + (low - 0xDC00);
                        (char::from_u32(scalar)?, 12)
                    }
                    // The escape after it is read on its own (a bad one is refused there).
                    _ => unpaired()?,
                }
            } else {
                // A lone low surrogate is no character: `from_u32` refuses it.
                match char::from_u32(unit) {
                    Some(character) => (character, 6),
                    None => unpaired()?,
                }
            }
        }
        _ => return None,
    })
}

/// The code unit of the four hexadecimal digits `bytes` starts with.
#[inline]
fn hex_unit(bytes: &[u8]) -> Option<u32> {
    bytes.get(..4)?.iter().try_fold(0, |unit, &byte| {
        let digit = match byte {
            b'0'..=b'9' => byte - b'0',
            b'a'..=b'f' => byte - b'a' + 10,
            b'A'..=b'F' => byte - b'A' + 10,
            _ => return None,
        };
        Some(unit << 4 | u32::from(digit))
    })
}

impl<'a> Reader<'a> {
    fn value(&mut self, depth: usize) -> Result<Node<'a>, ReadError> {
        let peek = self
            .jiter
            .peek()
            .map_err(|error| to_error(self.text, self.base, error))?;
        let start = self.index();
        let value = match peek {
            Peek::Null => {
                self.jiter
                    .known_null()
                    .map_err(|error| to_error(self.text, self.base, error))?;
                Value::Null
            }
            Peek::True | Peek::False => Value::Bool(
                self.jiter
                    .known_bool(peek)
                    .map_err(|error| to_error(self.text, self.base, error))?,
            ),
            Peek::String => self.string(start)?,
            Peek::Array | Peek::Object if depth > self.limits.max_depth => {
                let error = ReadError::TooDeep {
                    offset: start,
                    limit: self.limits.max_depth,
                };
                if !self.skip_too_deep {
                    return Err(error);
                }
                // Read past without building it, in bounded stack (see `Reader::skip`):
                // JSON that is broken in there is still a syntax error, which the spec
                // decides, while the depth bound is the reference's own.
                self.skip(peek)?;
                let end = self.index();
                self.too_deep.get_or_insert(error);
                return Ok(Node {
                    span: Span::new(start..end),
                    value: if peek == Peek::Array {
                        Value::Array(Vec::new())
                    } else {
                        Value::Object(Vec::new())
                    },
                });
            }
            Peek::Array => {
                let mark = self.items.len();
                let mut more = self
                    .jiter
                    .known_array()
                    .map_err(|error| to_error(self.text, self.base, error))?;
                while more.is_some() {
                    self.path.push((Step::Index(self.items.len() - mark), None));
                    let item = self.value(depth + 1);
                    self.path.pop();
                    self.items.push(item?);
                    more = self
                        .jiter
                        .array_step()
                        .map_err(|error| to_error(self.text, self.base, error))?;
                }
                // Collected from an exact-size iterator: a vector of exactly the items.
                Value::Array(self.items.drain(mark..).collect())
            }
            Peek::Object => self.object(depth)?,
            peek if peek.is_num() => {
                if let Err(error) = self.jiter.known_number_bytes(peek) {
                    return Err(to_error(self.text, self.base, error));
                }
                Value::Number(&self.text[start..self.index()])
            }
            _ => {
                return Err(ReadError::Syntax {
                    offset: start,
                    message: "expected a value".to_owned(),
                })
            }
        };
        Ok(Node {
            span: Span::new(start..self.index()),
            value,
        })
    }

    /// Reads past the array or object `first` opens, checking its grammar as
    /// [`Reader::value`] does but building nothing: the open arrays and objects are kept
    /// on an explicit stack (one flag each) instead of the call stack, so a value nested a
    /// million levels deep costs a million flags, not a stack overflow. Scalars are read
    /// by [`Reader::value`], so a string is taken exactly as it is elsewhere.
    fn skip(&mut self, first: Peek) -> Result<(), ReadError> {
        let text = self.text;
        let eof = |reader: &Self, error: JiterError| match error.error_type {
            JiterErrorType::JsonError(
                JsonErrorType::EofWhileParsingList
                | JsonErrorType::EofWhileParsingObject
                | JsonErrorType::EofWhileParsingValue,
            ) => ReadError::Syntax {
                offset: text.len(),
                message: format!(
                    "the input ends inside an array or object (nested deeper than {} levels)",
                    reader.limits.max_depth
                ),
            },
            _ => to_error(text, reader.base, error),
        };
        // `true` for an open array, `false` for an open object.
        let mut open: Vec<bool> = Vec::new();
        let mut peek = Some(first);
        loop {
            // Opens the value `peek` starts, or reads it whole when it is a scalar.
            match peek {
                Some(Peek::Array) => {
                    let inside = self.jiter.known_array().map_err(|e| eof(self, e))?;
                    if inside.is_some() {
                        open.push(true);
                        peek = inside;
                        continue;
                    }
                }
                Some(Peek::Object) => {
                    let key = self.jiter.known_object().map(|key| key.is_some());
                    if key.map_err(|e| eof(self, e))? {
                        open.push(false);
                        peek = Some(self.jiter.peek().map_err(|e| eof(self, e))?);
                        continue;
                    }
                }
                _ => {
                    // A scalar; `value` peeks again (peeking consumes nothing).
                    self.value(0)?;
                }
            }
            // The value is complete: go on in the innermost open container, closing those
            // that end here.
            peek = None;
            while peek.is_none() {
                match open.last() {
                    None => return Ok(()),
                    Some(true) => {
                        peek = self.jiter.array_step().map_err(|e| eof(self, e))?;
                    }
                    Some(false) => {
                        let key = self.jiter.next_key().map(|key| key.is_some());
                        if key.map_err(|e| eof(self, e))? {
                            peek = Some(self.jiter.peek().map_err(|e| eof(self, e))?);
                        }
                    }
                }
                if peek.is_none() {
                    open.pop();
                }
            }
        }
    }

    /// Reads the string starting at `start` (its opening quote) in one pass, decoding its
    /// escapes as it goes (see [`read_string`]); the whole input was checked as UTF-8
    /// already, so the text is neither checked again nor copied twice. The parser then
    /// goes on after the string. A string that pass does not take (a raw control
    /// character, a bad escape, an unpaired surrogate, no closing quote) is read by the
    /// parser instead, which reports the error as it does everywhere else.
    fn string(&mut self, start: usize) -> Result<Value<'a>, ReadError> {
        let text = self.text;
        if let Some((value, end)) = read_string(text, start, self.lone_surrogates) {
            self.restart_at(end);
            return Ok(Value::String(value));
        }
        match self.jiter.known_bytes() {
            // Unreachable in practice: the parser accepted what the pass refused.
            Ok(_) => Err(ReadError::Syntax {
                offset: start,
                message: "a string the reader could not decode".to_owned(),
            }),
            Err(error) => Err(to_error(text, self.base, error)),
        }
    }

    /// The parser's position in the input.
    fn index(&self) -> usize {
        self.base + self.jiter.current_index()
    }

    /// Starts a new parser at `at` in the input, keeping the old one's buffer.
    fn restart_at(&mut self, at: usize) {
        let tape = std::mem::replace(&mut self.jiter, Jiter::new(&[])).into_tape();
        let rest = self.text.as_bytes().get(at..).unwrap_or_default();
        self.jiter = Jiter::with_tape(rest, tape);
        self.base = at;
    }

    fn object(&mut self, depth: usize) -> Result<Value<'a>, ReadError> {
        let text = self.text;
        // This object's members are `self.members[mark..]` until it closes.
        let mark = self.members.len();
        // Keys seen so far, by their index in `members`. Small objects (every object of a
        // valid document here) are searched directly; past `INDEXED_FROM` members a hash
        // index keeps duplicate detection linear, so a flat object with a million
        // members cannot make the read quadratic.
        // foldhash, seeded at random per process, hashes a long key several times faster
        // than the standard library's SipHash and keeps colliding keys hard to craft.
        let mut index: HashMap<Cow<'a, str>, usize, foldhash::fast::RandomState> =
            HashMap::default();
        let mut key_start = self.index();
        let mut key = match self.jiter.known_object() {
            Ok(key) => key.map(|key| intern(text, key.as_bytes())),
            Err(error) => Some(self.key_despite(key_start, error)?),
        };
        while let Some(name) = key {
            let key_span = self.key_span(key_start, &name);
            let members = &self.members[mark..];
            let first = if members.len() < INDEXED_FROM {
                members.iter().position(|member| member.key == name)
            } else {
                if index.is_empty() {
                    index.reserve(2 * INDEXED_FROM);
                    for (at, member) in members.iter().enumerate() {
                        index.entry(member.key.clone()).or_insert(at);
                    }
                }
                let found = index.get(&name).copied();
                index.entry(name.clone()).or_insert(members.len());
                found
            };
            if let Some(first) = first {
                let first = self.members[mark + first].key_span;
                let object = self.place_path();
                self.duplicates.push(DuplicateKey {
                    key: name.to_string(),
                    span: key_span,
                    first,
                    object,
                });
            }
            self.path.push((Step::Key(name.clone()), None));
            let value = self.value(depth + 1);
            self.path.pop();
            self.members.push(Member {
                key: name,
                key_span,
                value: value?,
                repeated: first.is_some(),
            });
            key_start = self.index();
            key = match self.jiter.next_key() {
                Ok(key) => key.map(|key| intern(text, key.as_bytes())),
                Err(error) => Some(self.key_despite(key_start, error)?),
            };
        }
        Ok(Value::Object(self.members.drain(mark..).collect()))
    }

    /// A key the parser refused (`error`), read anyway when the read tolerates unpaired
    /// surrogate escapes and that is what it holds: Go's decoder reads such a key with
    /// U+FFFD, as it reads a value ([`Tolerance::lone_surrogates`]). The key's string starts
    /// at the first `"` after `from` (only whitespace and a `{` or `,` come before it); the
    /// parser then goes on after the colon that follows it. Any other error stands.
    fn key_despite(&mut self, from: usize, error: JiterError) -> Result<Cow<'a, str>, ReadError> {
        let refused = to_error(self.text, self.base, error);
        if !self.lone_surrogates || !matches!(refused, ReadError::LoneSurrogate { .. }) {
            return Err(refused);
        }
        let text = self.text;
        let bytes = text.as_bytes();
        let skip = |mut at: usize, also: &[u8]| {
            while bytes
                .get(at)
                .is_some_and(|b| b" \t\r\n".contains(b) || also.contains(b))
            {
                at += 1;
            }
            at
        };
        let quote = skip(from, b"{,");
        if bytes.get(quote) != Some(&b'"') {
            return Err(refused);
        }
        let Some((key, end)) = read_string(text, quote, true) else {
            return Err(refused);
        };
        let colon = skip(end, b"");
        if bytes.get(colon) != Some(&b':') {
            return Err(ReadError::Syntax {
                offset: colon,
                message: "expected `:` after an object's key".to_owned(),
            });
        }
        self.restart_at(colon + 1);
        Ok(key)
    }

    /// The place of the value being read (the object holding a duplicate), recording the
    /// steps of its path not recorded yet; `None` at the root. The recorded steps are a
    /// prefix of the path (a step is recorded with all steps above it), so only the new
    /// ones are visited: each step of the input is recorded at most once.
    fn place_path(&mut self) -> Option<usize> {
        let recorded = self
            .path
            .iter()
            .rposition(|(_, place)| place.is_some())
            .map_or(0, |at| at + 1);
        let mut parent = recorded.checked_sub(1).and_then(|at| self.path[at].1);
        for (step, place) in &mut self.path[recorded..] {
            let at = self.places.len();
            self.places.push(Place {
                parent,
                step: step.clone(),
            });
            *place = Some(at);
            parent = Some(at);
        }
        parent
    }

    /// The span of the key `name` just read. A key without escapes is a slice of the input
    /// (an owned key lives elsewhere), so its quotes sit right around it. Otherwise the
    /// span starts at the first `"` after `from` (the byte after `{` or after the previous
    /// value, so only whitespace and a comma come before it) and ends at the last `"`
    /// before the parser's position (just past the colon, so only whitespace and the colon
    /// come after it).
    fn key_span(&self, from: usize, name: &str) -> Span {
        let base = self.text.as_ptr() as usize;
        let at = name.as_ptr() as usize;
        if at > base && at + name.len() < base + self.text.len() {
            let offset = at - base;
            return Span::new(offset - 1..offset + name.len() + 1);
        }
        let bytes = self.text.as_bytes();
        let here = self.index().min(bytes.len());
        let start = bytes[from..here]
            .iter()
            .position(|&b| b == b'"')
            .map_or(from, |at| from + at);
        let end = bytes[start..here]
            .iter()
            .rposition(|&b| b == b'"')
            .map_or(here, |at| start + at + 1);
        Span::new(start..end)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const LIMITS: Limits = Limits {
        max_bytes: 1 << 20,
        max_depth: 16,
    };

    #[test]
    fn spans_and_borrowing() {
        let input = br#" {"a" : [1, "x\n"], "b": "plain"} "#;
        let document = read(input, LIMITS).expect("valid");
        let a = document.root.get("a").expect("member a");
        assert_eq!(&input[a.key_span.start..a.key_span.end], br#""a""#);
        assert_eq!(
            &input[a.value.span.start..a.value.span.end],
            br#"[1, "x\n"]"#
        );
        let b = document.root.get("b").expect("member b");
        assert!(matches!(
            b.value.value,
            Value::String(Cow::Borrowed("plain"))
        ));
        let items = a.value.as_array().expect("array");
        assert_eq!(items[1].as_str(), Some("x\n"));
    }

    #[test]
    fn duplicates_after_escape_decoding_at_depth() {
        let input = br#"{"o": {"id": 1, "\u0069d": 2}, "id": 3}"#;
        let document = read(input, LIMITS).expect("valid");
        assert_eq!(document.duplicates.len(), 1);
        assert_eq!(document.pointer(&document.duplicates[0]), "/o/id");
    }

    #[test]
    fn errors() {
        let deep = "[".repeat(1_000_000);
        assert!(matches!(
            read(
                deep.as_bytes(),
                Limits {
                    max_bytes: 2_000_000,
                    max_depth: 16
                }
            ),
            Err(ReadError::TooDeep { offset: 16, .. })
        ));
        assert!(matches!(
            read(b"{} x", LIMITS),
            Err(ReadError::TrailingData { offset: 3 })
        ));
        assert!(matches!(
            read(br#"["\ud800"]"#, LIMITS),
            Err(ReadError::LoneSurrogate { .. })
        ));
        assert!(matches!(
            read(br#"["\udc00"]"#, LIMITS),
            Err(ReadError::LoneSurrogate { .. })
        ));
        assert!(matches!(
            read(b"\xEF\xBB\xBF{}", LIMITS),
            Err(ReadError::ByteOrderMark)
        ));
        assert!(matches!(
            read(b"[\"\xff\"]", LIMITS),
            Err(ReadError::InvalidUtf8 { offset: 2 })
        ));
        assert!(matches!(
            read(b"[1,]", LIMITS),
            Err(ReadError::Syntax { .. })
        ));
        assert!(matches!(
            read(b"", LIMITS),
            Err(ReadError::Syntax { offset: 0, .. })
        ));
        assert!(matches!(
            read(
                b"{}",
                Limits {
                    max_bytes: 1,
                    max_depth: 4
                }
            ),
            Err(ReadError::TooLarge { size: 2, limit: 1 })
        ));
    }

    /// The fast UTF-8 check reports the same offsets as the standard library, including
    /// past the blocks it checks at once and for a sequence cut off by the end.
    #[test]
    fn utf8_errors_match_the_standard_library() {
        let long = "é語🍵x".repeat(40);
        let mut inputs: Vec<Vec<u8>> = vec![
            b"[\"\xff\"]".to_vec(),
            b"\xc3".to_vec(),
            b"ok \xe8\xaa".to_vec(),
            b"\xed\xa0\x80".to_vec(),
            b"\xf4\x90\x80\x80".to_vec(),
            b"\xc0\xaf".to_vec(),
        ];
        for cut in [1, 2, 3, 100, 333] {
            let mut bytes = long.as_bytes().to_vec();
            bytes.insert(cut, 0x80);
            inputs.push(bytes);
            inputs.push(long.as_bytes()[..cut].to_vec());
        }
        for input in inputs {
            let fast = simdutf8::compat::from_utf8(&input)
                .err()
                .map(|error| (error.valid_up_to(), error.error_len()));
            let std = std::str::from_utf8(&input)
                .err()
                .map(|error| (error.valid_up_to(), error.error_len()));
            assert_eq!(fast, std, "{input:?}");
        }
    }

    #[test]
    fn unpaired_surrogates_are_located_at_their_escape() {
        let start = |text: &str| unpaired_surrogate_start(text.as_bytes(), text.len());
        assert_eq!(start(r#"["ab\ud800cd"]"#), 4);
        assert_eq!(start(r#"["ab\udc00"]"#), 4);
        assert_eq!(start(r#"["\ud83d\ude00", "\\ud800", "x\ud800\ud800"]"#), 30);
        assert_eq!(start(r#"["\u0041\ud800\u0041"]"#), 8);
        assert_eq!(start(r#"["fine"]"#), 8);
    }

    #[test]
    fn duplicates_in_large_objects_are_found_linearly() {
        let mut text = String::from("{");
        for n in 0..200_000 {
            text.push_str(&format!("\"k{n}\":0,"));
        }
        text.push_str("\"k5\":1,\"k150000\":2}");
        let document = read(
            text.as_bytes(),
            Limits {
                max_bytes: 8 << 20,
                max_depth: 4,
            },
        )
        .expect("valid");
        let found: Vec<&str> = document.duplicates.iter().map(|d| d.key.as_str()).collect();
        assert_eq!(found, vec!["k5", "k150000"]);
    }

    /// Duplicates under one long key record its step once, and their pointers are built
    /// only when asked for.
    #[test]
    fn duplicates_under_a_long_key_share_its_place() {
        let key = "k~/".repeat(4_000);
        let text = format!(
            "{{\"{key}\": [0, {{\"a\": 0{}}}], \"b\": {{\"c\": 0, \"c\": 1}}, \"b\": 2}}",
            ",\"a\":0".repeat(1000)
        );
        let document = read(
            text.as_bytes(),
            Limits {
                max_bytes: 1 << 20,
                max_depth: 8,
            },
        )
        .expect("valid");
        assert_eq!(document.duplicates.len(), 1002);
        // The long key and the array index, then the key `b`.
        assert_eq!(document.places.len(), 3);
        let escaped = "k~0~1".repeat(4_000);
        assert_eq!(
            document.pointer(&document.duplicates[999]),
            format!("/{escaped}/1/a")
        );
        assert_eq!(document.pointer(&document.duplicates[1000]), "/b/c");
        assert_eq!(document.pointer(&document.duplicates[1001]), "/b");
    }

    /// Escaped strings decode as serde_json decodes them.
    #[test]
    fn escapes_decode_as_serde_json_does() {
        for literal in [
            r#""plain""#,
            r#""a\"b\\c\/d\be\ff\ng\rh\ti""#,
            r#""\u0041\u00e9\u20AC\ud83d\ude00 end""#,
            r#""caf\u00e9 é \n ü""#,
            r#""\u0000\u001f\u007f\u0085""#,
            r#""\uD834\uDD1E\"""#,
            r#""é\\""#,
        ] {
            let document = read(literal.as_bytes(), LIMITS).expect("valid");
            let expected: String = serde_json::from_str(literal).expect("serde_json reads it");
            assert_eq!(document.root.as_str(), Some(expected.as_str()), "{literal}");
        }
        for refused in [
            r#""\uDC00""#,
            r#""\uD800\u0041""#,
            r#""\uD800""#,
            r#""\x""#,
            r#""\u12G4""#,
            "\"tab\tin\"",
            r#""no end"#,
            r#""end\""#,
        ] {
            assert_eq!(read_string(refused, 0, false), None, "{refused}");
        }
    }

    #[test]
    fn numbers_keep_their_text() {
        let document = read(b"[1, 1.0, 1e0, -0]", LIMITS).expect("valid");
        let texts: Vec<_> = document
            .root
            .as_array()
            .unwrap()
            .iter()
            .map(|n| n.value.clone())
            .collect();
        assert_eq!(
            texts,
            vec![
                Value::Number("1"),
                Value::Number("1.0"),
                Value::Number("1e0"),
                Value::Number("-0")
            ]
        );
    }

    /// A tolerated byte order mark is skipped with every span still an offset into the
    /// input; refused unless tolerated.
    #[test]
    fn a_tolerated_byte_order_mark_keeps_offsets_into_the_input() {
        let input = b"\xEF\xBB\xBF{\"a\": \"x\"}";
        assert_eq!(read(input, LIMITS), Err(ReadError::ByteOrderMark));
        let tolerant = Tolerance {
            byte_order_mark: true,
            ..Tolerance::default()
        };
        let document = read_tolerant(input, LIMITS, tolerant).expect("readable");
        let a = document.root.get("a").expect("member a");
        assert_eq!(&input[a.key_span.start..a.key_span.end], br#""a""#);
        assert_eq!(document.root.span.start, 3);
    }

    /// A tolerated unpaired surrogate escape inside a key reads as U+FFFD too, at an
    /// object's first key and at a later one, and the read goes on after the key's colon;
    /// untolerated it is refused, and another bad escape in a key is refused either way.
    #[test]
    fn tolerated_lone_surrogates_in_keys() {
        let tolerant = Tolerance {
            lone_surrogates: true,
            ..Tolerance::default()
        };
        let text = br#"{"a\ud800" : 1, "b": {"\udc00c":[2]}, "d": 3}"#;
        let document = read_tolerant(text, LIMITS, tolerant).expect("readable");
        let keys: Vec<String> = match &document.root.value {
            Value::Object(members) => members.iter().map(|m| m.key.to_string()).collect(),
            other => panic!("{other:?}"),
        };
        assert_eq!(keys, ["a\u{FFFD}", "b", "d"]);
        let inner = document.root.get("b").expect("b");
        assert!(inner.value.get("\u{FFFD}c").is_some());
        assert!(matches!(
            read(text, LIMITS),
            Err(ReadError::LoneSurrogate { .. })
        ));
        assert!(read_tolerant(br#"{"a\x": 1}"#, LIMITS, tolerant).is_err());
        assert!(read_tolerant(br#"{"a\ud800" 1}"#, LIMITS, tolerant).is_err());
    }

    /// A tolerated unpaired surrogate escape reads as U+FFFD, a paired one as its
    /// character; a bad escape after a high surrogate is still refused.
    #[test]
    fn tolerated_lone_surrogates_read_as_the_replacement_character() {
        let tolerant = Tolerance {
            lone_surrogates: true,
            ..Tolerance::default()
        };
        for (input, expected) in [
            (&br#""\ud800""#[..], "\u{FFFD}"),
            (br#""\udc00x""#, "\u{FFFD}x"),
            (br#""\ud800\ud800""#, "\u{FFFD}\u{FFFD}"),
        ] {
            assert!(read(input, LIMITS).is_err(), "{input:?}");
            let document = read_tolerant(input, LIMITS, tolerant).expect("readable");
            assert_eq!(document.root.as_str(), Some(expected), "{input:?}");
        }
        let paired = read_tolerant(br#""\ud83d\ude00""#, LIMITS, tolerant).expect("readable");
        assert_eq!(paired.root.as_str(), Some("\u{1F600}"));
        assert!(read_tolerant(br#""\ud800\uZZZZ""#, LIMITS, tolerant).is_err());
    }

    /// Keeping the last of repeated keys drops the earlier occurrences at every depth and
    /// leaves no duplicate to report.
    #[test]
    fn the_last_of_repeated_keys_stands() {
        let input = br#"{"a": 1, "b": {"x": 1, "x": 2}, "a": [ {"y": 1, "y": 3} ]}"#;
        let mut document = read(input, LIMITS).expect("readable");
        assert_eq!(document.duplicates.len(), 3);
        document.keep_last_duplicates();
        assert!(document.duplicates.is_empty());
        let keys: Vec<&str> = document
            .root
            .as_object()
            .expect("object")
            .iter()
            .map(|member| member.key.as_ref())
            .collect();
        assert_eq!(keys, ["b", "a"]);
        let b = &document.root.get("b").expect("b").value;
        assert_eq!(b.get("x").expect("x").value.value, Value::Number("2"));
        let item = &document
            .root
            .get("a")
            .expect("a")
            .value
            .as_array()
            .expect("array")[0];
        assert_eq!(item.get("y").expect("y").value.value, Value::Number("3"));
        assert!(item
            .as_object()
            .expect("object")
            .iter()
            .all(|m| !m.repeated));
    }

    #[test]
    fn numbers_equal_to_one() {
        for one in [
            "1", "1.0", "1.000", "1e0", "1E+0", "10e-1", "0.1e1", "100E-2", "0001",
        ] {
            assert!(number_is_one(one), "{one}");
        }
        for other in [
            "0",
            "2",
            "-1",
            "1.5",
            "11",
            "1e1",
            "0.1",
            "1.0000000000000000001",
            "1e99999999999999999999",
            "10",
        ] {
            assert!(!number_is_one(other), "{other}");
        }
    }

    /// Values nested past the bound are skipped, standing as empty ones of their kind,
    /// and the rest of the document is read; the first is recorded.
    #[test]
    fn values_past_the_depth_bound_are_skipped_when_asked() {
        let deep = format!("{}\"]\\\"[{{\"{}", "[".repeat(20), "]".repeat(20));
        let input = format!(r#"{{"a": {deep}, "b": {{"c": [1]}}, "d": "x"}}"#);
        assert!(matches!(
            read(input.as_bytes(), LIMITS),
            Err(ReadError::TooDeep { .. })
        ));
        let skipping = Tolerance {
            skip_too_deep: true,
            ..Tolerance::default()
        };
        let document = read_tolerant(input.as_bytes(), LIMITS, skipping).expect("readable");
        assert!(matches!(
            document.too_deep,
            Some(ReadError::TooDeep { limit: 16, .. })
        ));
        assert_eq!(document.root.get("d").expect("d").value.as_str(), Some("x"));
        let mut node = &document.root.get("a").expect("a").value;
        let mut levels = 1;
        while let Some([inner]) = node.as_array() {
            node = inner;
            levels += 1;
        }
        assert_eq!(node.as_array().map(<[_]>::len), Some(0));
        assert_eq!(levels, 16);
        // A deep value the input ends inside is a syntax error at the end of the input.
        let unclosed = format!(r#"{{"a": {}"#, "[".repeat(40));
        assert!(matches!(
            read_tolerant(unclosed.as_bytes(), LIMITS, skipping),
            Err(ReadError::Syntax { offset, .. }) if offset == unclosed.len()
        ));
        // What is broken inside a skipped value is still a syntax error, where it is: the
        // skip checks the grammar, it only builds nothing.
        for broken in [
            "[1 2]",
            "{\"k\" 1}",
            "[tru]",
            "{\"k\": 1,}",
            "[\"\\x\"]",
            "[01]",
        ] {
            let input = format!(
                r#"{{"a": {}{broken}{}, "d": "x"}}"#,
                "[".repeat(20),
                "]".repeat(20)
            );
            let error = read_tolerant(input.as_bytes(), LIMITS, skipping).expect_err(broken);
            let ReadError::Syntax { offset, .. } = error else {
                panic!("{broken}: {error:?}");
            };
            assert!(
                offset > 27 && offset < 27 + broken.len() + 1,
                "{broken}: {offset}"
            );
        }
        // Arrays and objects mixed a million levels deep are skipped in bounded stack.
        let million = format!(
            r#"{{"a": {}1{}, "d": "x"}}"#,
            "[{\"k\":".repeat(500_000),
            "}]".repeat(500_000)
        );
        let unlimited = Limits {
            max_bytes: usize::MAX,
            ..LIMITS
        };
        let document = read_tolerant(million.as_bytes(), unlimited, skipping).expect("readable");
        assert_eq!(document.root.get("d").expect("d").value.as_str(), Some("x"));
    }
}
