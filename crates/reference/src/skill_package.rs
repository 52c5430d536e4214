//! Skill package ("Package reference", SPECS.md): the JSON envelope of an asset
//! package, its `SKILL.md` head, the package paths and the content limits.
//!
//! Three inputs reach the same rules through [`validate`]:
//! - a JSON envelope `{version, kind, headPath, files: [{path, content, contentType}]}`, read
//!   with the strict JSON reader (`check_envelope`);
//! - a bare `SKILL.md`, checked against the head contract and the per-file limit
//!   (`check_head_file`);
//! - a skill directory, whose files are read as the envelope would hold them (`tree`).
//!
//! The head contract lives in `head`, the path rules in `paths`. Every diagnostic about the
//! package as a whole or one of its files carries a JSON pointer into the envelope (for a
//! directory: the envelope it would serialise to); a head diagnostic adds the line and
//! column inside the file's content. Each check names its rule constant; the catalogue
//! (`cases/skill-package/rules.toml`) cites the spec passage and records every decision.

mod head;
mod paths;
mod tree;

use std::ops::Range;
use std::path::Path;

use mediatype::{MediaType, ReadParams};

use crate::diagnostic::rules::skill_package as rule;
use crate::diagnostic::{
    Collect, Diagnostic, Format, LineIndex, Location, Position, Report, RuleId, Span,
};
use crate::json::walk::{optional as member, JsonRules, Repeats, UnknownMembers, Walker};
use crate::json::{Limits, Node, ReadRules, Value};
use crate::{Context, Input, Profile, Unsupported};

/// Largest content of one file, in UTF-8 bytes of the decoded text (spec, Limits: "Text
/// content per file: 256 KiB in UTF-8 bytes").
pub const MAX_FILE_BYTES: usize = 262_144;

/// Largest content of all files together, in UTF-8 bytes (spec, Limits: "Total text
/// content: 1 MiB in UTF-8 bytes").
pub const MAX_TOTAL_BYTES: usize = 1_048_576;

/// Largest envelope the reader accepts, in bytes; see `skill-package.envelope.size`. A JSON
/// escape spends at most six bytes on one decoded byte, so every envelope whose contents
/// fit [`MAX_TOTAL_BYTES`] fits six times that, and the 2 MiB on top leave room for paths,
/// content types and structure. The content limits are therefore always reported on the
/// decoded text, never masked by this bound.
pub const MAX_ENVELOPE_BYTES: usize = 8 * 1024 * 1024;

/// Nesting bound of the envelope reader; see `skill-package.json.depth`.
pub const MAX_DEPTH: usize = 32;

/// The head's path (spec, Head contract: "Head path: Exactly SKILL.md").
pub const HEAD_PATH: &str = "SKILL.md";

/// The envelope's JSON layer: skill-package.envelope.size (decision: 8 MiB bound on the
/// envelope), skill-package.json.* (spec, Serialization: the envelope is JSON),
/// skill-package.json.duplicate-key (decision: every repetition is an error) and
/// skill-package.envelope.unknown-key (strict profile only: both objects are closed, and
/// each unknown member is reported, repetitions included).
static JSON_RULES: JsonRules = JsonRules {
    limits: Limits {
        max_bytes: MAX_ENVELOPE_BYTES,
        max_depth: MAX_DEPTH,
    },
    read: ReadRules {
        size: rule::ENVELOPE_SIZE,
        bom: rule::JSON_BOM,
        utf8: rule::JSON_UTF8,
        surrogate: rule::JSON_SURROGATE,
        depth: rule::JSON_DEPTH,
        trailing: rule::JSON_TRAILING_DATA,
        syntax: rule::JSON_SYNTAX,
    },
    duplicate: rule::JSON_DUPLICATE_KEY,
    field_type: rule::FIELD_TYPE,
    required: rule::ENVELOPE_REQUIRED,
    unknown: Some(UnknownMembers {
        rule: rule::ENVELOPE_UNKNOWN_KEY,
        note: "this object is closed",
        repeats: Repeats::EachOccurrence,
    }),
    null_as_absent: false,
};

/// The spec profile's reading rules: the spec lists the members without closing the
/// objects, so unknown members are not reported (skill-package.envelope.unknown-key is the
/// strict profile's).
static JSON_RULES_SPEC: JsonRules = JsonRules {
    limits: Limits {
        max_bytes: MAX_ENVELOPE_BYTES,
        max_depth: MAX_DEPTH,
    },
    read: ReadRules {
        size: rule::ENVELOPE_SIZE,
        bom: rule::JSON_BOM,
        utf8: rule::JSON_UTF8,
        surrogate: rule::JSON_SURROGATE,
        depth: rule::JSON_DEPTH,
        trailing: rule::JSON_TRAILING_DATA,
        syntax: rule::JSON_SYNTAX,
    },
    duplicate: rule::JSON_DUPLICATE_KEY,
    field_type: rule::FIELD_TYPE,
    required: rule::ENVELOPE_REQUIRED,
    unknown: None,
    null_as_absent: false,
};

const ENVELOPE_FIELDS: &[&str] = &["version", "kind", "headPath", "files"];
const FILE_FIELDS: &[&str] = &["path", "content", "contentType"];

/// Application media types whose content is text, besides `text/*` and the `+json`,
/// `+xml` and `+yaml` suffixes (see `skill-package.file.content-type.text`).
const TEXT_APPLICATION_TYPES: &[&str] = &[
    "json",
    "xml",
    "yaml",
    "x-yaml",
    "toml",
    "javascript",
    "ecmascript",
    "x-sh",
    "x-shellscript",
    "x-python",
    "sql",
    "graphql",
    "x-ndjson",
];
const TEXT_SUFFIXES: &[&str] = &["json", "xml", "yaml"];

/// Validates a skill package (`skill-package`, operation `validate`): a document named
/// `SKILL.md` is a bare head, any other document a JSON envelope, and a tree a skill
/// directory. The context's profile says whether the catalogue's strict-only rules
/// (`strict = true`) apply.
pub fn validate(input: Input<'_>, context: &Context) -> Result<Report, Unsupported> {
    let profile = crate::profile(context);
    Ok(match input {
        Input::Document { name, bytes } if is_head_file_name(name) => {
            check_head_file(bytes, profile)
        }
        Input::Document { bytes, .. } => check_envelope(bytes, profile),
        Input::Tree(root) => tree::check(root, profile),
    })
}

/// `validate` up to the first error (see [`crate::first_error`]): a JSON envelope is
/// walked until its first error and nothing after it is formatted; a bare head or a tree
/// is checked whole.
pub fn validate_first_error(input: Input<'_>, context: &Context) -> Result<Report, Unsupported> {
    match input {
        Input::Document { name, bytes } if !is_head_file_name(name) => Ok(
            check_envelope_collecting(bytes, crate::profile(context), Collect::FirstError),
        ),
        _ => validate(input, context),
    }
}

/// Whether a directory is a skill package: it holds a regular `SKILL.md`.
pub fn is_skill_directory(dir: &Path) -> bool {
    dir.join(HEAD_PATH).is_file()
}

/// Whether a file name (or path) names a bare head file.
pub fn is_head_file_name(name: &str) -> bool {
    Path::new(name)
        .file_name()
        .is_some_and(|file_name| file_name == HEAD_PATH)
}

/// Checks a bare `SKILL.md`: the per-file limit, UTF-8, then the head contract.
/// Diagnostics carry a line and column in the file (the size limit carries none).
fn check_head_file(source: &[u8], profile: Profile) -> Report {
    let mut report = Report::new(Format::SkillPackage);
    // skill-package.limit.file-bytes (spec, Limits: 256 KiB per file): an oversize head is
    // reported by the limit alone and not parsed.
    if source.len() > MAX_FILE_BYTES {
        report.diagnostics.push(Diagnostic::new(
            rule::LIMIT_FILE_BYTES,
            Location::document(),
            format!(
                "SKILL.md is {} bytes, over the {MAX_FILE_BYTES}-byte limit of one file",
                source.len()
            ),
        ));
        return report;
    }
    // skill-package.file.text (spec: "All supported package contents are text").
    // simdutf8's `compat` errors carry the same offsets as the standard library's.
    let content = match simdutf8::compat::from_utf8(source) {
        Ok(content) => content,
        Err(error) => {
            let at = error.valid_up_to();
            report.diagnostics.push(Diagnostic::new(
                rule::FILE_TEXT,
                Location::text(source, Span::new(at..(at + 1).min(source.len()))),
                "SKILL.md is not valid UTF-8 from here on",
            ));
            return report;
        }
    };
    head::check(content, &Place::Bare, profile, &mut report.diagnostics);
    report
}

/// Checks a JSON envelope.
fn check_envelope(source: &[u8], profile: Profile) -> Report {
    check_envelope_collecting(source, profile, Collect::Every)
}

/// Checks a JSON envelope, collecting every diagnostic or stopping at the first error.
fn check_envelope_collecting(source: &[u8], profile: Profile, collect: Collect) -> Report {
    // skill-package.envelope.unknown-key (strict profile only: both objects are closed).
    let rules = match profile {
        Profile::Strict => &JSON_RULES,
        _ => &JSON_RULES_SPEC,
    };
    let mut walker = Walker::new(source, rules, Format::SkillPackage, profile);
    walker.report.collect = collect;
    let mut checker = Envelope { walker, profile };
    // The reader reports skill-package.envelope.size, skill-package.json.* and duplicate
    // keys.
    if let Some(document) = checker.walker.read() {
        checker.root(&document.root);
    }
    checker.walker.report
}

/// Where a file's content sits, so that a diagnostic about a place inside the content gets
/// the location its input calls for.
pub(crate) enum Place<'s> {
    /// A bare `SKILL.md`: the content is the checked document.
    Bare,
    /// The decoded value of a JSON string in an envelope.
    Json {
        /// The envelope's bytes.
        source: &'s [u8],
        /// Pointer of the string (`/files/N/content`).
        pointer: String,
        /// Span of the string literal, quotes included.
        literal: Span,
    },
    /// A file of a skill directory.
    Tree {
        /// Pointer of the content in the equivalent envelope.
        pointer: String,
    },
}

impl<'s> Place<'s> {
    /// A locator for places inside `content`, with its lookups computed once.
    pub(crate) fn locator<'c>(&'c self, content: &'c str) -> Locator<'c> {
        let raw = match self {
            Place::Json {
                source, literal, ..
            } => Some(RawMap::new(source, *literal)),
            _ => None,
        };
        Locator {
            place: self,
            index: TextIndex::new(content.as_bytes()),
            raw,
        }
    }
}

/// Turns byte ranges of one file's content into locations. Lines, columns and escapes are
/// indexed once, so a content with thousands of diagnostics is not rescanned for each.
pub(crate) struct Locator<'c> {
    place: &'c Place<'c>,
    index: TextIndex<'c>,
    raw: Option<RawMap>,
}

impl Locator<'_> {
    /// The line and column of a byte offset of the content.
    pub(crate) fn position(&self, offset: usize) -> Position {
        self.index.position(offset)
    }

    /// The location of a byte range of the content: its line and column in the content,
    /// plus the pointer of the content for embedded text, and a span in the checked
    /// document for rendering.
    pub(crate) fn locate(&self, range: Range<usize>) -> Location {
        let position = Some(self.index.position(range.start));
        match self.place {
            Place::Bare => Location {
                pointer: None,
                position,
                span: Some(Span::new(range)),
            },
            Place::Json { pointer, .. } => Location {
                pointer: Some(pointer.clone()),
                position,
                span: self
                    .raw
                    .as_ref()
                    .map(|raw| Span::new(raw.offset(range.start)..raw.offset(range.end))),
            },
            Place::Tree { pointer } => Location {
                pointer: Some(pointer.clone()),
                position,
                span: None,
            },
        }
    }
}

/// Line and column lookup for one text: the shared [`LineIndex`] bound to the text it
/// indexes.
pub(crate) struct TextIndex<'t> {
    text: &'t [u8],
    lines: LineIndex,
}

impl<'t> TextIndex<'t> {
    pub(crate) fn new(text: &'t [u8]) -> TextIndex<'t> {
        TextIndex {
            text,
            lines: LineIndex::new(text),
        }
    }

    pub(crate) fn position(&self, offset: usize) -> Position {
        self.lines.position(self.text, offset)
    }
}

/// Maps byte offsets of a JSON string's decoded value to offsets in the envelope: a plain
/// byte stands for itself, `\n` and the like for one byte, `\uXXXX` for the UTF-8 length of
/// its code point, and a surrogate pair escape for four bytes. The literal is walked once;
/// each escape leaves a checkpoint of where decoding and source stand after it.
struct RawMap {
    /// First byte of the value in the source (after the opening quote).
    start: usize,
    /// One past the last byte of the value (the closing quote).
    end: usize,
    /// (decoded offset, source offset) after each escape, in order.
    checkpoints: Vec<(usize, usize)>,
}

impl RawMap {
    fn new(source: &[u8], literal: Span) -> RawMap {
        let end = literal.end.saturating_sub(1).min(source.len());
        let start = (literal.start + 1).min(end);
        let mut checkpoints = Vec::new();
        let mut raw = start;
        let mut decoded = 0;
        while raw < end {
            if source[raw] != b'\\' {
                raw += 1;
                decoded += 1;
                continue;
            }
            if source.get(raw + 1) != Some(&b'u') {
                raw += 2;
                decoded += 1;
            } else {
                let unit = source
                    .get(raw + 2..raw + 6)
                    .and_then(|hex| std::str::from_utf8(hex).ok())
                    .and_then(|hex| u32::from_str_radix(hex, 16).ok())
                    .unwrap_or(0);
                if (0xD800..0xDC00).contains(&unit) && source.get(raw + 6..raw + 8) == Some(b"\\u")
                {
                    raw += 12;
                    decoded += 4;
                } else {
                    raw += 6;
                    decoded += match unit {
                        0..=0x7F => 1,
                        0x80..=0x7FF => 2,
                        _ => 3,
                    };
                }
            }
            checkpoints.push((decoded, raw.min(end)));
        }
        RawMap {
            start,
            end,
            checkpoints,
        }
    }

    fn offset(&self, decoded: usize) -> usize {
        let before = self.checkpoints.partition_point(|&(at, _)| at <= decoded);
        let (at, raw) = match before {
            0 => (0, self.start),
            n => self.checkpoints[n - 1],
        };
        (raw + (decoded - at)).min(self.end)
    }
}

/// A file of the package as the package-level rules see it, whatever the input.
pub(crate) struct PackageFile<'a> {
    /// The path, when it is a string.
    pub path: Option<&'a str>,
    /// Location of the path.
    pub path_location: Location,
}

struct Envelope<'s> {
    walker: Walker<'s>,
    profile: Profile,
}

impl Envelope<'_> {
    fn at(&mut self, rule: RuleId, pointer: &str, span: Span, message: String) {
        self.walker.at(rule, pointer, span, message);
    }

    fn root(&mut self, root: &Node<'_>) {
        // skill-package.envelope.type (spec, Serialization: the envelope is an object).
        if root.as_object().is_none() {
            self.at(
                rule::ENVELOPE_TYPE,
                "",
                root.span,
                format!("the envelope is a JSON object, not {}", root.value.kind()),
            );
            return;
        }
        self.closed_object(root, "", ENVELOPE_FIELDS, rule::ENVELOPE_REQUIRED);

        // skill-package.envelope.version (spec: "The envelope is version 1") and
        // skill-package.envelope.version-spelling (strict profile only: the number 1
        // written otherwise, which typed readers refuse).
        if let Some(node) = member(root, "version") {
            match node.value {
                Value::Number("1") => {}
                Value::Number(text) if crate::json::number_is_one(text) => {
                    if self.profile == Profile::Strict {
                        self.at(
                            rule::ENVELOPE_VERSION_SPELLING,
                            "/version",
                            node.span,
                            "version is 1 but written otherwise; write it `1`".to_owned(),
                        );
                    }
                }
                _ => self.at(
                    rule::ENVELOPE_VERSION,
                    "/version",
                    node.span,
                    "version must be the number 1".to_owned(),
                ),
            }
        }
        // skill-package.envelope.kind (spec: "kind asset-package").
        if let Some(node) = member(root, "kind") {
            if node.as_str() != Some("asset-package") {
                self.at(
                    rule::ENVELOPE_KIND,
                    "/kind",
                    node.span,
                    "kind must be the string \"asset-package\"".to_owned(),
                );
            }
        }
        // skill-package.envelope.head-path (spec: "headPath SKILL.md").
        if let Some(node) = member(root, "headPath") {
            if node.as_str() != Some(HEAD_PATH) {
                self.at(
                    rule::ENVELOPE_HEAD_PATH,
                    "/headPath",
                    node.span,
                    "headPath must be the string \"SKILL.md\"".to_owned(),
                );
            }
        }
        if let Some(files) = member(root, "files") {
            self.files(files);
        }
    }

    /// skill-package.envelope.unknown-key and the object's required-member rule.
    fn closed_object(&mut self, node: &Node<'_>, pointer: &str, fields: &[&str], required: RuleId) {
        self.walker.closed_object(node, pointer, fields, required);
    }

    fn files(&mut self, files: &Node<'_>) {
        // skill-package.field.type (spec: "a nonempty files array").
        let Some(items) = files.as_array() else {
            self.at(
                rule::FIELD_TYPE,
                "/files",
                files.span,
                format!("files must be an array, not {}", files.value.kind()),
            );
            return;
        };
        // skill-package.files.nonempty (spec: "a nonempty files array").
        if items.is_empty() {
            self.at(
                rule::FILES_NONEMPTY,
                "/files",
                files.span,
                "files is empty; a package holds at least its SKILL.md head".to_owned(),
            );
            return;
        }
        let mut package = Vec::with_capacity(items.len());
        let mut total = 0usize;
        let mut head: Option<(usize, &Node<'_>)> = None;
        for (index, entry) in items.iter().enumerate() {
            let pointer = format!("/files/{index}");
            let path_pointer = format!("{pointer}/path");
            // skill-package.field.type (spec: "Each file is {path, content, contentType}").
            if entry.as_object().is_none() {
                self.at(
                    rule::FIELD_TYPE,
                    &pointer,
                    entry.span,
                    format!("a file entry must be an object, not {}", entry.value.kind()),
                );
                package.push(PackageFile {
                    path: None,
                    path_location: Location::pointer(path_pointer, entry.span),
                });
                continue;
            }
            // skill-package.file.required (spec: "Each file entry needs path, content and
            // contentType").
            self.closed_object(entry, &pointer, FILE_FIELDS, rule::FILE_REQUIRED);
            let path = member(entry, "path").and_then(|node| self.string(node, &path_pointer));
            package.push(PackageFile {
                path,
                path_location: Location::pointer(
                    path_pointer.clone(),
                    member(entry, "path").map_or(entry.span, |node| node.span),
                ),
            });
            let content_pointer = format!("{pointer}/content");
            let content = member(entry, "content");
            if let Some(node) = content {
                if let Some(text) = self.string(node, &content_pointer) {
                    // skill-package.limit.file-bytes (spec, Limits: 256 KiB per file, in
                    // UTF-8 bytes of the decoded string).
                    if text.len() > MAX_FILE_BYTES {
                        self.at(
                            rule::LIMIT_FILE_BYTES,
                            &content_pointer,
                            node.span,
                            format!(
                                "the content is {} bytes in UTF-8, over the {MAX_FILE_BYTES}-byte limit of one file",
                                text.len()
                            ),
                        );
                    }
                    total = total.saturating_add(text.len());
                }
            }
            if let Some(node) = member(entry, "contentType") {
                let type_pointer = format!("{pointer}/contentType");
                if let Some(value) = self.string(node, &type_pointer) {
                    self.content_type(value, &type_pointer, node.span);
                }
            }
            if head.is_none() && path == Some(HEAD_PATH) {
                if let Some(node) = content {
                    head = Some((index, node));
                }
            }
        }
        paths::check(&package, self.profile, &mut self.walker.report.diagnostics);
        // skill-package.limit.total-bytes (spec, Limits: 1 MiB in total).
        if total > MAX_TOTAL_BYTES {
            self.at(
                rule::LIMIT_TOTAL_BYTES,
                "/files",
                files.span,
                format!(
                    "the contents are {total} bytes in UTF-8 together, over the {MAX_TOTAL_BYTES}-byte limit of a package"
                ),
            );
        }
        // skill-package.head.present (spec: "it must appear among the package files").
        if !package.iter().any(|file| file.path == Some(HEAD_PATH)) {
            self.at(
                rule::HEAD_PRESENT,
                "/files",
                files.span,
                "no file has the path \"SKILL.md\"; the package has no head".to_owned(),
            );
        }
        if let Some((index, node)) = head {
            if let Some(content) = node.as_str().filter(|text| text.len() <= MAX_FILE_BYTES) {
                let place = Place::Json {
                    source: self.walker.source,
                    pointer: format!("/files/{index}/content"),
                    literal: node.span,
                };
                head::check(
                    content,
                    &place,
                    self.profile,
                    &mut self.walker.report.diagnostics,
                );
            }
        }
    }

    /// skill-package.field.type for strings.
    fn string<'n>(&mut self, node: &'n Node<'_>, pointer: &str) -> Option<&'n str> {
        self.walker.string(node, pointer)
    }

    /// The contentType rules. The spec gives contentType no grammar and no list of types,
    /// so every one of them is the strict profile's: the spec profile takes any string.
    fn content_type(&mut self, value: &str, pointer: &str, span: Span) {
        if self.profile != Profile::Strict {
            return;
        }
        // skill-package.file.content-type.syntax (strict profile only: the RFC 6838 /
        // RFC 9110 grammar).
        let Ok(media) = MediaType::parse(value) else {
            self.at(
                rule::FILE_CONTENT_TYPE_SYNTAX,
                pointer,
                span,
                format!("{value:?} is not a media type (type/subtype with optional parameters)"),
            );
            return;
        };
        // skill-package.file.content-type.text (strict profile only: "All supported package
        // contents are text" describes the contents; the strict profile also refuses a
        // declared type that is not textual, from the catalogue's list).
        let top = media.ty.as_str().to_ascii_lowercase();
        let sub = media.subty.as_str().to_ascii_lowercase();
        let suffix = media
            .suffix
            .map(|suffix| suffix.as_str().to_ascii_lowercase());
        let textual = top == "text"
            || suffix
                .as_deref()
                .is_some_and(|suffix| TEXT_SUFFIXES.contains(&suffix))
            || (top == "application" && TEXT_APPLICATION_TYPES.contains(&sub.as_str()));
        if !textual {
            self.at(
                rule::FILE_CONTENT_TYPE_TEXT,
                pointer,
                span,
                format!("{value:?} is not a text media type; all package contents are text"),
            );
        }
        // skill-package.file.content-type.charset (strict profile only: only UTF-8 may be
        // declared).
        if let Some(charset) = media.get_param(mediatype::names::CHARSET) {
            if !charset.unquoted_str().eq_ignore_ascii_case("utf-8") {
                self.at(
                    rule::FILE_CONTENT_TYPE_CHARSET,
                    pointer,
                    span,
                    format!(
                        "the content is UTF-8 text, but the type declares charset {:?}",
                        charset.unquoted_str()
                    ),
                );
            }
        }
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn text_index_locates_the_end_of_a_whole_block() {
        let text = vec![b'x'; 2048];
        let index = super::TextIndex::new(&text);
        assert_eq!(
            index.position(2048),
            super::Position {
                line: 1,
                column: 2049
            }
        );
    }

    use super::*;

    #[test]
    fn raw_offsets_follow_escapes() {
        // "a\nb\u00e9c\ud83d\ude00d": decoded a(0) \n(1) b(2) é(3..5) c(5) 😀(6..10) d(10)
        let source = br#"["a\nb\u00e9c\ud83d\ude00d"]"#;
        let map = RawMap::new(source, Span::new(1..source.len() - 1));
        let offsets: Vec<usize> = [0, 1, 2, 3, 5, 6, 10, 99]
            .iter()
            .map(|&decoded| map.offset(decoded))
            .collect();
        assert_eq!(offsets, [2, 3, 5, 6, 12, 13, 25, source.len() - 2]);
    }

    #[test]
    fn text_index_agrees_with_position_of() {
        let text = "ab\néx\r\ny\rz\r".repeat(300);
        let index = TextIndex::new(text.as_bytes());
        for offset in 0..=text.len() + 1 {
            assert_eq!(
                index.position(offset),
                Position::of(text.as_bytes(), offset),
                "offset {offset}"
            );
        }
    }

    /// Escapes inflate the envelope up to six times; the 8 MiB bound must leave a package
    /// at the 1 MiB content limit written entirely as `\u0001` escapes readable, so the
    /// content limits and not the envelope bound decide.
    #[test]
    fn fully_escaped_package_at_the_limit_is_read() {
        let escaped = "\\u0001".repeat(MAX_FILE_BYTES);
        let mut envelope =
            String::from(r#"{"version":1,"kind":"asset-package","headPath":"SKILL.md","files":["#);
        envelope.push_str(
            r#"{"path":"SKILL.md","content":"---\nname: n\ndescription: d\n---\nBody\n","contentType":"text/markdown"}"#,
        );
        let head_bytes = "---\nname: n\ndescription: d\n---\nBody\n".len();
        for index in 0..4 {
            let content = if index == 3 {
                "\\u0001".repeat(MAX_FILE_BYTES - head_bytes)
            } else {
                escaped.clone()
            };
            envelope.push_str(&format!(
                r#",{{"path":"r/{index}.txt","content":"{content}","contentType":"text/plain"}}"#
            ));
        }
        envelope.push_str("]}");
        assert!(envelope.len() > 6 * 1024 * 1024 && envelope.len() < MAX_ENVELOPE_BYTES);
        let report = check_envelope(envelope.as_bytes(), Profile::Strict);
        assert!(report.diagnostics.is_empty(), "{:?}", report.diagnostics);
    }
}
