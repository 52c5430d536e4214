//! From bytes to a JSON tree: "A Soul Kit is a UTF-8 JSON object ... Maximum encoded size
//! is 262144 bytes" (opening paragraph). The size is judged on the file as it is, before
//! anything is decoded; the text must be UTF-8 and then one RFC 8259 JSON text, which
//! serde_json reads (syntax, whitespace, escapes, trailing data).

use std::borrow::Cow;

use serde::Deserialize as _;

use super::raw::outside_strings;
use super::report::Report;
use super::tree::Node;
use super::Planted;

/// soul-kit.size.max: the limit, inclusive, in bytes of the encoded file.
const MAX_BYTES: usize = 262_144;

/// soul-kit.json.depth: the nesting the suite's strict profile allows (the root is level
/// 1). A kit needs three levels; deeper values always break a rule of the spec too.
const MAX_DEPTH: usize = 64;

/// A UTF-8 byte order mark.
const BOM: &[u8] = b"\xEF\xBB\xBF";

/// A document that is JSON: its text (byte order mark removed) and its tree.
pub struct Document {
    /// The JSON text the tree was read from.
    pub text: String,
    /// The top-level value.
    pub root: Node,
}

/// Reads the document, or reports why it is no JSON text at all and returns `None`.
pub fn read(bytes: &[u8], report: &mut Report<'_>) -> Option<Document> {
    if let Some(size) = oversize(bytes, report) {
        // soul-kit.size.max: "Maximum encoded size is 262144 bytes"; a larger file is
        // refused unread.
        report.error(
            "soul-kit.size.max",
            "",
            format!("the document is {size} long, past the limit of {MAX_BYTES} bytes"),
        );
        return None;
    }
    let text = decode(bytes, report)?;
    let text = strip_bom(text, report);
    let text = mistaken_reading(text, report)?;
    let mut deserializer = serde_json::Deserializer::from_str(&text);
    let parsed = Node::deserialize(&mut deserializer).and_then(|root| {
        // soul-kit.json.trailing-data: one JSON value and only whitespace after it
        // (RFC 8259, section 2).
        if !report.planted(Planted::TrailingDataIgnored) {
            deserializer.end()?;
        }
        Ok(root)
    });
    match parsed {
        Ok(root) => Some(Document {
            text: text.into_owned(),
            root,
        }),
        Err(error) => {
            // soul-kit.json.syntax (and trailing-data): "a UTF-8 JSON object" is a JSON
            // text. serde_json also refuses an unpaired surrogate escape, which
            // soul-kit.json.surrogate leaves to the implementation in the spec profile
            // and the strict profile rejects, and nesting past its recursion limit,
            // which in a kit always breaks the shape as well (soul-kit.json.depth).
            report.error(
                "soul-kit.json.syntax",
                "",
                format!("not a JSON text: {error}"),
            );
            None
        }
    }
}

/// The size of a document past the limit, as the message says it, or `None`.
fn oversize(bytes: &[u8], report: &Report<'_>) -> Option<String> {
    // soul-kit.size.max: every byte counts, a byte order mark and the whitespace around
    // the value included (the rule's decision).
    let measured = if report.planted(Planted::SizeCountsCharacters) {
        String::from_utf8_lossy(bytes).chars().count()
    } else if report.planted(Planted::SizeAfterTrim) {
        bytes.trim_ascii().len()
    } else if report.planted(Planted::SizeExcludesBom) {
        bytes.strip_prefix(BOM).unwrap_or(bytes).len()
    } else {
        bytes.len()
    };
    (measured > MAX_BYTES).then(|| format!("{measured} bytes"))
}

/// The text of the document: soul-kit.json.utf8 ("a UTF-8 JSON object"), so any byte
/// sequence that is not well-formed UTF-8 is no kit.
fn decode<'b>(bytes: &'b [u8], report: &mut Report<'_>) -> Option<Cow<'b, str>> {
    if let Some(text) = mistaken_transcoding(bytes, report) {
        return text.map(Cow::Owned);
    }
    if report.planted(Planted::Utf8Lossy) {
        return Some(String::from_utf8_lossy(bytes));
    }
    match std::str::from_utf8(bytes) {
        Ok(text) => Some(Cow::Borrowed(text)),
        Err(error) => {
            report.error(
                "soul-kit.json.utf8",
                "",
                format!(
                    "not UTF-8: the byte at offset {} starts no well-formed sequence",
                    error.valid_up_to()
                ),
            );
            None
        }
    }
}

/// The planted mistakes that take the document for UTF-16 or UTF-32: `None` when none
/// applies, else the transcoded text (or `None` inside when it does not decode).
fn mistaken_transcoding(bytes: &[u8], report: &mut Report<'_>) -> Option<Option<String>> {
    let first = |count: usize| bytes.get(..count).unwrap_or(&[]);
    let nul = |at: usize| bytes.get(at) == Some(&0);
    let some = |at: usize| bytes.get(at).is_some_and(|&byte| byte != 0);
    let utf32 = if report.planted(Planted::Utf32WithBom) {
        match first(4) {
            [0xFF, 0xFE, 0, 0] => Some((Endian::Little, 4)),
            [0, 0, 0xFE, 0xFF] => Some((Endian::Big, 4)),
            _ => None,
        }
    } else if report.planted(Planted::Utf32WithoutBom) {
        // RFC 4627, section 3: 00 00 00 xx is UTF-32BE, xx 00 00 00 UTF-32LE.
        if nul(0) && nul(1) && nul(2) && some(3) {
            Some((Endian::Big, 0))
        } else if some(0) && nul(1) && nul(2) && nul(3) {
            Some((Endian::Little, 0))
        } else {
            None
        }
    } else {
        None
    };
    if let Some((endian, skip)) = utf32 {
        return Some(transcode_utf32(
            bytes.get(skip..).unwrap_or(&[]),
            endian,
            report,
        ));
    }
    let utf16 = if report.planted(Planted::Utf16WithBom) {
        match first(2) {
            [0xFF, 0xFE] => Some((Endian::Little, 2)),
            [0xFE, 0xFF] => Some((Endian::Big, 2)),
            _ => None,
        }
    } else if report.planted(Planted::Utf16WithoutBom) {
        // RFC 4627, section 3: 00 xx 00 xx is UTF-16BE, xx 00 xx 00 UTF-16LE.
        if nul(0) && some(1) {
            Some((Endian::Big, 0))
        } else if some(0) && nul(1) && some(2) {
            Some((Endian::Little, 0))
        } else {
            None
        }
    } else {
        None
    };
    utf16.map(|(endian, skip)| transcode_utf16(bytes.get(skip..).unwrap_or(&[]), endian, report))
}

/// Byte order of a UTF-16 or UTF-32 text.
#[derive(Clone, Copy)]
enum Endian {
    Little,
    Big,
}

/// The planted mistakes' UTF-16 decoder.
fn transcode_utf16(bytes: &[u8], endian: Endian, report: &mut Report<'_>) -> Option<String> {
    let units = bytes.chunks(2).map(|pair| match (endian, pair) {
        (Endian::Little, [low, high]) => u16::from_le_bytes([*low, *high]),
        (Endian::Big, [high, low]) => u16::from_be_bytes([*high, *low]),
        _ => 0xFFFF,
    });
    let text: Result<String, _> = char::decode_utf16(units).collect();
    text.map_err(|_| report.error("soul-kit.json.utf8", "", "not UTF-16 either"))
        .ok()
}

/// The planted mistakes' UTF-32 decoder.
fn transcode_utf32(bytes: &[u8], endian: Endian, report: &mut Report<'_>) -> Option<String> {
    let text: Option<String> = bytes
        .chunks(4)
        .map(|quad| {
            let quad: [u8; 4] = quad.try_into().ok()?;
            char::from_u32(match endian {
                Endian::Little => u32::from_le_bytes(quad),
                Endian::Big => u32::from_be_bytes(quad),
            })
        })
        .collect();
    if text.is_none() {
        report.error("soul-kit.json.utf8", "", "not UTF-32 either");
    }
    text
}

/// soul-kit.json.bom: RFC 8259 lets a parser ignore a leading byte order mark and the
/// spec names no tolerance, so the spec profile skips it (implementation-defined) and the
/// strict profile refuses it; the rest is read either way.
fn strip_bom<'b>(text: Cow<'b, str>, report: &mut Report<'_>) -> Cow<'b, str> {
    if !text.starts_with('\u{FEFF}') {
        return text;
    }
    if report.strict() {
        report.error(
            "soul-kit.json.bom",
            "",
            "the document starts with a byte order mark",
        );
    }
    match text {
        Cow::Borrowed(text) => Cow::Borrowed(&text['\u{FEFF}'.len_utf8()..]),
        Cow::Owned(text) => Cow::Owned(text['\u{FEFF}'.len_utf8()..].to_owned()),
    }
}

/// The planted mistakes of readers that do not take RFC 8259's whitespace (space, tab,
/// line feed, carriage return, and nothing else) as it is. `None` when such a reader
/// refuses the text.
fn mistaken_reading<'b>(text: Cow<'b, str>, report: &mut Report<'_>) -> Option<Cow<'b, str>> {
    if report.planted(Planted::TrimsUnicodeWhitespace) {
        let trimmed = text.trim();
        if trimmed.len() != text.len() {
            return Some(Cow::Owned(trimmed.to_owned()));
        }
    }
    if report.planted(Planted::FormFeedAsWhitespace) {
        let bytes = text.as_bytes();
        let outside = outside_strings(bytes);
        let replaced: Vec<u8> = bytes
            .iter()
            .zip(outside)
            .map(|(&byte, outside)| if outside && byte == 0x0C { b' ' } else { byte })
            .collect();
        // Only an ASCII byte was replaced by another, so the text is still UTF-8.
        return String::from_utf8(replaced).ok().map(Cow::Owned);
    }
    if report.planted(Planted::LoneCrNotWhitespace) {
        let bytes = text.as_bytes();
        let outside = outside_strings(bytes);
        let lone_cr = bytes
            .iter()
            .enumerate()
            .any(|(at, &byte)| byte == b'\r' && outside[at] && bytes.get(at + 1) != Some(&b'\n'));
        if lone_cr {
            report.error(
                "soul-kit.json.syntax",
                "",
                "a carriage return that ends no CR LF line",
            );
            return None;
        }
    }
    Some(text)
}

/// soul-kit.json.depth (strict profile): arrays and objects nest at most 64 levels.
/// Nothing deeper fits the field table, so in the spec profile another rule always
/// rejects such a kit and this bound decides nothing.
pub fn check_depth(root: &Node, report: &mut Report<'_>) {
    if !report.strict() {
        return;
    }
    let mut pending = vec![(root, 1_usize)];
    while let Some((node, depth)) = pending.pop() {
        let children: Box<dyn Iterator<Item = &Node>> = match node {
            Node::Array(items) => Box::new(items.iter()),
            Node::Object(members) => Box::new(members.iter().map(|member| &member.value)),
            _ => continue,
        };
        if depth > MAX_DEPTH {
            report.error(
                "soul-kit.json.depth",
                "",
                format!("arrays and objects nest more than {MAX_DEPTH} levels deep"),
            );
            return;
        }
        pending.extend(children.map(|child| (child, depth + 1)));
    }
}
