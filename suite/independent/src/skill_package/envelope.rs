//! The JSON envelope (`{version, kind, headPath, files}`): reading the document (size,
//! encoding, JSON), then its shape ("Serialization" and "Supporting files and paths"), into
//! a [`Package`] the package rules check.

use std::borrow::Cow;

use super::json::{self, Json, Number};
use super::{head, package, text, Package, PackageFile, Planted, Report};

/// skill-package.envelope.size (a bound of this implementation, as of the reference): an
/// envelope past 8 MiB is not read.
const ENVELOPE_BOUND: usize = 8 * 1024 * 1024;

/// skill-package.json.depth (a bound): a valid envelope nests three levels; past 32 the
/// strict profile rejects.
const DEPTH_BOUND: usize = 32;

/// The envelope's members (Serialization).
const ENVELOPE_MEMBERS: [&str; 4] = ["version", "kind", "headPath", "files"];

/// A file entry's members ("Each file entry needs path, content and contentType").
const FILE_MEMBERS: [&str; 3] = ["path", "content", "contentType"];

/// Checks an envelope document.
pub(super) fn check(bytes: &[u8], report: &mut Report<'_>) {
    // skill-package.envelope.size: past the bound the document is not read.
    if bytes.len() > ENVELOPE_BOUND {
        report.bound(
            "envelope.size",
            "the document",
            format!("{} bytes, past the 8 MiB reading bound", bytes.len()),
        );
        return;
    }
    let Some(text) = decode(bytes, report) else {
        return;
    };
    let text = prepare(&text, report);
    let Some(root) = read(&text, report) else {
        return;
    };
    let escaped = (report.planted(Planted::FileLimitOnEscapedJson)
        || report.planted(Planted::TotalLimitOnEscapedJson))
    .then(|| json::escaped_lengths(&text));
    let package = shape(&root, escaped.as_deref(), report);
    package::check(&package, report);
    if let Some(file) = package::head_file(&package, report) {
        if let Some(content) = &file.content {
            if !package::over_file_limit(file, report) {
                head::check_content(content, &format!("{}/content", file.pointer), report);
            }
        }
    }
}

/// The envelope's text: UTF-8 (skill-package.json.utf8), without a byte order mark
/// (skill-package.json.bom, strict; skipped otherwise, as RFC 8259 lets a parser do).
fn decode(bytes: &[u8], report: &mut Report<'_>) -> Option<String> {
    let transcoded = report
        .planted(Planted::EnvelopeReadsUtf16Utf32)
        .then(|| text::sniff_wide(bytes))
        .flatten();
    let bytes: &[u8] = match &transcoded {
        Some(text) => text.as_bytes(),
        None => bytes,
    };
    let bytes = match bytes.strip_prefix(b"\xEF\xBB\xBF") {
        Some(rest) => {
            report.strict_error("json.bom", "line 1 column 1", "a byte order mark");
            rest
        }
        None => bytes,
    };
    // skill-package.json.utf8 (Serialization: a JSON text exchanged between systems is
    // UTF-8).
    match std::str::from_utf8(bytes) {
        Ok(text) => Some(text.to_owned()),
        Err(_) if report.planted(Planted::JsonInvalidUtf8Replaced) => {
            Some(String::from_utf8_lossy(bytes).into_owned())
        }
        Err(error) => {
            report.error(
                "json.utf8",
                &format!("byte {}", error.valid_up_to()),
                "the envelope is not valid UTF-8",
            );
            None
        }
    }
}

/// What the planted readers do to the text before reading it as JSON.
fn prepare<'t>(text: &'t str, report: &Report<'_>) -> Cow<'t, str> {
    let text = if report.planted(Planted::JsonTrimsUnicodeWhitespace) {
        text.trim()
    } else {
        text
    };
    if report.planted(Planted::JsonLenientSyntax) {
        json::strip_json5(text)
    } else {
        Cow::Borrowed(text)
    }
}

/// Reads the JSON value: skill-package.json.syntax, .trailing-data, and the strict
/// profile's .duplicate-key and .depth.
fn read(text: &str, report: &mut Report<'_>) -> Option<Json> {
    let whole = !report.planted(Planted::JsonTrailingDataIgnored);
    let root = match json::parse(text, whole) {
        Ok(root) => root,
        Err(json::Failure::Syntax(message)) => {
            report.error("json.syntax", "the document", message);
            return None;
        }
        Err(json::Failure::TrailingData(message)) => {
            report.error("json.trailing-data", "the document", message);
            return None;
        }
        // Deeper than serde_json reads: no valid envelope nests like this (three levels), so
        // the shape rules would reject whatever stands there; the strict profile's depth
        // bound rejects it too.
        Err(json::Failure::TooDeep(message)) => {
            report.error("json.depth", "the document", message);
            return None;
        }
    };
    // skill-package.json.depth (strict: a bound; the spec profile reads deeper values, which
    // the shape rules judge).
    if root.depth() > DEPTH_BOUND {
        report.strict_error(
            "json.depth",
            "the document",
            format!("nests {} levels, past 32", root.depth()),
        );
    }
    // skill-package.json.duplicate-key (strict; RFC 8259 only says names should be unique).
    if report.strict() {
        duplicate_keys(&root, &mut Vec::new(), report);
    }
    Some(root)
}

/// Reports every repeated key of every object, at the repetition. The path to the value
/// is kept as tokens and written out only for a report, so the cost stays linear however
/// long the keys on the path are.
fn duplicate_keys<'j>(value: &'j Json, path: &mut Vec<Token<'j>>, report: &mut Report<'_>) {
    match value {
        Json::Array(items) => {
            for (index, item) in items.iter().enumerate() {
                path.push(Token::Index(index));
                duplicate_keys(item, path, report);
                path.pop();
            }
        }
        Json::Object(members) => {
            let mut seen = std::collections::HashSet::new();
            for member in members {
                path.push(Token::Key(&member.key));
                if !seen.insert(member.key.as_str()) {
                    report.error("json.duplicate-key", &pointer(path), "a repeated key");
                }
                duplicate_keys(&member.value, path, report);
                path.pop();
            }
        }
        _ => {}
    }
}

/// One step of a JSON pointer.
enum Token<'j> {
    Index(usize),
    Key(&'j str),
}

/// The RFC 6901 pointer of a path.
fn pointer(path: &[Token<'_>]) -> String {
    path.iter()
        .map(|token| match token {
            Token::Index(index) => format!("/{index}"),
            Token::Key(key) => format!("/{}", escape_pointer(key)),
        })
        .collect()
}

/// RFC 6901 escaping of one reference token.
fn escape_pointer(token: &str) -> String {
    token.replace('~', "~0").replace('/', "~1")
}

/// The envelope's shape (Serialization; Supporting files and paths), into the package's
/// files.
fn shape(root: &Json, escaped: Option<&[usize]>, report: &mut Report<'_>) -> Package {
    let mut package = Package::default();
    let root = match root {
        Json::Array(items) if report.planted(Planted::EnvelopeArrayUnwrapped) => {
            match items.as_slice() {
                [only @ Json::Object(_)] => only,
                _ => root,
            }
        }
        _ => root,
    };
    // skill-package.envelope.type: "version 1, kind asset-package, headPath SKILL.md and a
    // nonempty files array" are named fields: the envelope is an object.
    let Json::Object(members) = root else {
        report.error(
            "envelope.type",
            "",
            format!("the envelope is {}, not an object", root.type_name()),
        );
        return package;
    };
    closed_members(members, &ENVELOPE_MEMBERS, "", report);
    check_version(root.member("version"), report);
    check_kind(root.member("kind"), report);
    check_head_path(root.member("headPath"), report);
    // skill-package.envelope.required, skill-package.field.type, skill-package.files.nonempty.
    match root.member("files") {
        None => report.error("envelope.required", "/files", "files is missing"),
        Some(Json::Array(entries)) => {
            package.listed = true;
            if entries.is_empty() {
                report.error("files.nonempty", "/files", "files is empty");
                package.empty_reported = true;
            }
            for (index, entry) in entries.iter().enumerate() {
                let pointer = format!("/files/{index}");
                if let Some(file) = file_entry(entry, pointer, escaped, report) {
                    package.files.push(file);
                }
            }
        }
        Some(other) => report.error(
            "field.type",
            "/files",
            format!("files is {}, not an array", other.type_name()),
        ),
    }
    package
}

/// skill-package.envelope.unknown-key (strict; the `envelope-closed-objects` switch applies
/// it in the spec profile too).
fn closed_members(
    members: &[json::Member],
    known: &[&str],
    pointer: &str,
    report: &mut Report<'_>,
) {
    if !(report.strict() || report.planted(Planted::EnvelopeClosedObjects)) {
        return;
    }
    for member in members {
        if !known.contains(&member.key.as_str()) {
            report.error(
                "envelope.unknown-key",
                &format!("{pointer}/{}", escape_pointer(&member.key)),
                format!("unknown member `{}`", member.key),
            );
        }
    }
}

/// skill-package.envelope.version ("The envelope is version 1": the number 1) and, strict,
/// .version-spelling (`1`, not `1.0` or `1e0`).
fn check_version(version: Option<&Json>, report: &mut Report<'_>) {
    let Some(version) = version else {
        report.error("envelope.required", "/version", "version is missing");
        return;
    };
    let one = match version {
        Json::Number(Number::Integer(1)) => true,
        Json::Number(Number::Float(value)) if *value == 1.0 => {
            report.strict_error(
                "envelope.version-spelling",
                "/version",
                "version 1 is written as a float",
            );
            true
        }
        other if report.planted(Planted::VersionLooseEquality) => loosely_one(other),
        _ => false,
    };
    if !one {
        report.error(
            "envelope.version",
            "/version",
            "version is not the number 1",
        );
    }
}

/// JavaScript's `value == 1`, for the `version-loose-equality` switch.
fn loosely_one(value: &Json) -> bool {
    match value {
        Json::Bool(value) => *value,
        Json::String(string) => string.text.trim().parse::<f64>().ok() == Some(1.0),
        Json::Array(items) => match items.as_slice() {
            [only] => matches!(only, Json::Number(Number::Integer(1))) || loosely_one(only),
            _ => false,
        },
        _ => false,
    }
}

/// skill-package.envelope.kind: exactly the string `asset-package`.
fn check_kind(kind: Option<&Json>, report: &mut Report<'_>) {
    let Some(kind) = kind else {
        report.error("envelope.required", "/kind", "kind is missing");
        return;
    };
    let right = match kind {
        Json::String(kind) => {
            let kind = kind.text.as_str();
            if report.planted(Planted::KindCaseInsensitive) {
                kind.eq_ignore_ascii_case("asset-package")
            } else if report.planted(Planted::KindUnanchored) {
                kind.contains("asset-package")
            } else {
                kind == "asset-package"
            }
        }
        _ => false,
    };
    if !right {
        report.error("envelope.kind", "/kind", "kind is not `asset-package`");
    }
}

/// skill-package.envelope.head-path: exactly the string `SKILL.md` ("Exactly SKILL.md").
fn check_head_path(head_path: Option<&Json>, report: &mut Report<'_>) {
    let Some(head_path) = head_path else {
        if !report.planted(Planted::HeadPathDefaults) {
            report.error("envelope.required", "/headPath", "headPath is missing");
        }
        return;
    };
    let right = match head_path {
        Json::String(path) if report.planted(Planted::HeadPathCaseInsensitive) => {
            path.text.eq_ignore_ascii_case("SKILL.md")
        }
        Json::String(path) => path.text == "SKILL.md",
        _ => false,
    };
    if !right {
        report.error(
            "envelope.head-path",
            "/headPath",
            "headPath is not `SKILL.md`",
        );
    }
}

/// One file entry: skill-package.field.type (an object whose members are strings) and
/// skill-package.file.required (path, content and contentType present).
fn file_entry(
    entry: &Json,
    pointer: String,
    escaped: Option<&[usize]>,
    report: &mut Report<'_>,
) -> Option<PackageFile> {
    let Json::Object(members) = entry else {
        report.error(
            "field.type",
            &pointer,
            format!("a file entry is {}, not an object", entry.type_name()),
        );
        return None;
    };
    closed_members(members, &FILE_MEMBERS, &pointer, report);
    let path = string_member(entry, "path", &pointer, true, report);
    let content = content_member(entry, &pointer, report);
    let required_type = !report.planted(Planted::ContentTypeOptional);
    let content_type = string_member(entry, "contentType", &pointer, required_type, report);
    let escaped_bytes = match (escaped, entry.member("content")) {
        (Some(lengths), Some(Json::String(string))) => {
            lengths.get(string.ordinal).map(|&length| length as u64)
        }
        _ => None,
    };
    Some(PackageFile {
        bytes: content.as_ref().map(|text| text.len() as u64),
        path,
        content,
        escaped_bytes,
        content_type,
        pointer,
    })
}

/// A member that must be a string: its text, or the error.
fn string_member(
    entry: &Json,
    key: &str,
    pointer: &str,
    required: bool,
    report: &mut Report<'_>,
) -> Option<String> {
    let at = format!("{pointer}/{key}");
    match entry.member(key) {
        None => {
            if required {
                report.error("file.required", &at, format!("{key} is missing"));
            }
            None
        }
        Some(Json::String(string)) => Some(string.text.clone()),
        Some(other) => {
            if let Some(coerced) = coerced(other, report) {
                return Some(coerced);
            }
            report.error(
                "field.type",
                &at,
                format!("{key} is {}, not a string", other.type_name()),
            );
            None
        }
    }
}

/// The content member: a string ("All supported package contents are text").
fn content_member(entry: &Json, pointer: &str, report: &mut Report<'_>) -> Option<String> {
    if report.planted(Planted::ContentLinesJoined) {
        if let Some(Json::Array(lines)) = entry.member("content") {
            let texts: Option<Vec<&str>> = lines
                .iter()
                .map(|line| match line {
                    Json::String(string) => Some(string.text.as_str()),
                    _ => None,
                })
                .collect();
            if let Some(texts) = texts {
                return Some(texts.join("\n"));
            }
        }
    }
    string_member(entry, "content", pointer, true, report)
}

/// What the `file-fields-coerced` switch makes of a scalar that is not a string
/// (JavaScript's `String(value)`).
fn coerced(value: &Json, report: &Report<'_>) -> Option<String> {
    if !report.planted(Planted::FileFieldsCoerced) {
        return None;
    }
    match value {
        Json::Null => Some("null".into()),
        Json::Bool(value) => Some(value.to_string()),
        Json::Number(Number::Integer(value)) => Some(value.to_string()),
        Json::Number(Number::Float(value)) => Some(value.to_string()),
        _ => None,
    }
}
