//! Reading one JSON file of the bundle (manifest.json, trace.json, the voice profile) with
//! serde_json. The catalogue's readings, in the order a byte meets them: at most 1 MiB
//! (compose-bundle.json.size), no UTF-8 byte order mark (compose-bundle.json.bom, from
//! agent-compose's Go reader), valid UTF-8 without unpaired surrogate escapes
//! (compose-bundle.json.encoding, RFC 8259 section 8.1), one JSON value with only JSON
//! whitespace around it (compose-bundle.json.syntax), at most 64 levels of nesting
//! (compose-bundle.json.depth) and, in the strict profile, no repeated key
//! (compose-bundle.json.duplicate-key). Repeated keys otherwise keep the last value, as
//! Go's decoder (the publisher's) does.

use std::cell::RefCell;
use std::fmt;

use serde::de::{DeserializeSeed, MapAccess, SeqAccess, Visitor};
use serde_json::{Map, Value};

use super::names::escape_token;
use super::{Planted, Run, MAX_DEPTH, MAX_JSON_BYTES};

/// What the reader noticed besides the value.
#[derive(Default)]
struct Notes {
    /// The deepest level of arrays and objects reached (the root is level 1).
    depth: usize,
    /// The pointer of every repeated member, once per repetition.
    duplicates: Vec<String>,
}

/// Reads `bytes` (the file at tree pointer `pointer`); reports every problem and returns
/// the value only when the file is one JSON value the catalogue lets through.
pub(crate) fn read(run: &mut Run<'_>, pointer: &str, bytes: &[u8]) -> Option<Value> {
    let limit = if run.on(Planted::SizeBoundExclusive) {
        MAX_JSON_BYTES - 1
    } else {
        MAX_JSON_BYTES
    };
    if bytes.len() > limit {
        run.past_bound(
            "compose-bundle.json.size",
            pointer,
            format!("larger than {MAX_JSON_BYTES} bytes: not read"),
        );
        return None;
    }
    let transcoded = transcode_by_mistake(run, bytes);
    let mut bytes: &[u8] = transcoded.as_deref().unwrap_or(bytes);
    if let Some(rest) = bytes.strip_prefix(b"\xEF\xBB\xBF") {
        if run.on(Planted::BomSkipped) {
            bytes = rest;
        } else {
            // compose-bundle.json.bom: agent-compose's reader refuses a leading BOM.
            run.error(
                "compose-bundle.json.bom",
                pointer,
                "the file starts with a UTF-8 byte order mark",
            );
            return None;
        }
    }
    let text = match std::str::from_utf8(bytes) {
        Ok(text) => std::borrow::Cow::Borrowed(text),
        Err(_) if run.on(Planted::InvalidUtf8Replaced) => String::from_utf8_lossy(bytes),
        Err(error) => {
            run.error(
                "compose-bundle.json.encoding",
                pointer,
                format!("not UTF-8: {error}"),
            );
            return None;
        }
    };
    let mut text: &str = &text;
    if run.on(Planted::UnicodeWhitespaceTrimmed) {
        text = text.trim();
    }
    let owned;
    if run.on(Planted::TrailingCommaAccepted) {
        owned = drop_trailing_commas(text);
        text = &owned;
    }
    parse(run, pointer, text)
}

/// serde_json over the text, noting depth and repetitions as it goes. serde_json refuses
/// a number outside f64's range (`1e400`), which RFC 8259 allows and no member the spec
/// names can hold: such a text is read again with every number as `0`, so the
/// document is judged on everything else.
fn parse(run: &mut Run<'_>, pointer: &str, text: &str) -> Option<Value> {
    let out_of_range = serde_json::from_str::<Value>(text)
        .err()
        .is_some_and(|error| error.to_string().contains("number out of range"));
    if out_of_range {
        return parse_text(run, pointer, &zero_numbers(text));
    }
    parse_text(run, pointer, text)
}

/// Every well-formed number token outside strings replaced by `0` (a linear pass); a
/// malformed one is kept as written, so the second reading still refuses it.
fn zero_numbers(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut token = String::new();
    let mut in_string = false;
    let mut escaped = false;
    for c in text.chars() {
        if in_string {
            out.push(c);
            if escaped {
                escaped = false;
            } else if c == '\\' {
                escaped = true;
            } else if c == '"' {
                in_string = false;
            }
            continue;
        }
        let number_char = c.is_ascii_digit() || matches!(c, '-' | '+' | '.' | 'e' | 'E');
        if number_char && (!token.is_empty() || c == '-' || c.is_ascii_digit()) {
            token.push(c);
            continue;
        }
        flush_number(&mut out, &mut token);
        if c == '"' {
            in_string = true;
        }
        out.push(c);
    }
    flush_number(&mut out, &mut token);
    out
}

fn flush_number(out: &mut String, token: &mut String) {
    if token.is_empty() {
        return;
    }
    let well_formed = token.parse::<f64>().is_ok()
        && !token.starts_with('+')
        && !token.starts_with('.')
        && !token.contains(".e")
        && !token.contains(".E")
        && !token.ends_with('.')
        && !token.trim_start_matches('-').starts_with("00")
        && !(token.trim_start_matches('-').starts_with('0')
            && token
                .trim_start_matches('-')
                .chars()
                .nth(1)
                .is_some_and(|c| c.is_ascii_digit()))
        && !token.starts_with("-.")
        && !token.contains("inf")
        && token
            .chars()
            .next()
            .is_some_and(|c| c == '-' || c.is_ascii_digit());
    if well_formed {
        out.push('0');
    } else {
        out.push_str(token);
    }
    token.clear();
}

fn parse_text(run: &mut Run<'_>, pointer: &str, text: &str) -> Option<Value> {
    let notes = RefCell::new(Notes::default());
    let mut deserializer = serde_json::Deserializer::from_str(text);
    let parsed = Reader {
        notes: &notes,
        depth: 1,
        pointer: String::new(),
    }
    .deserialize(&mut deserializer);
    let value = match parsed {
        Ok(value) => value,
        Err(error) => {
            report_parse_error(run, pointer, &error);
            return None;
        }
    };
    if !run.on(Planted::TrailingDataIgnored) {
        if let Err(error) = deserializer.end() {
            run.error(
                "compose-bundle.json.syntax",
                pointer,
                format!("data after the JSON value: {error}"),
            );
            return None;
        }
    }
    let notes = notes.into_inner();
    if notes.depth > MAX_DEPTH {
        run.past_bound(
            "compose-bundle.json.depth",
            pointer,
            format!("nested {} levels deep, past {MAX_DEPTH}", notes.depth),
        );
        return None;
    }
    if run.strict() {
        for duplicate in &notes.duplicates {
            run.error(
                "compose-bundle.json.duplicate-key",
                &format!("{pointer}{duplicate}"),
                "a repeated member: readers disagree on which value counts",
            );
        }
    }
    Some(value)
}

/// Sorts a serde_json error into the catalogue's rules.
fn report_parse_error(run: &mut Run<'_>, pointer: &str, error: &serde_json::Error) {
    let message = error.to_string();
    if message.contains("recursion limit") {
        // Deeper than serde_json reads (128), so past the catalogue's 64 as well.
        run.past_bound(
            "compose-bundle.json.depth",
            pointer,
            "nested deeper than this reader reads",
        );
    } else if message.contains("surrogate") || message.contains("unicode code point") {
        run.error("compose-bundle.json.encoding", pointer, message);
    } else {
        run.error("compose-bundle.json.syntax", pointer, message);
    }
}

/// A seed that builds a [`Value`] while noting depth and repeated members.
struct Reader<'n> {
    notes: &'n RefCell<Notes>,
    depth: usize,
    pointer: String,
}

impl Reader<'_> {
    fn child(&self, token: &str) -> Self {
        Reader {
            notes: self.notes,
            depth: self.depth + 1,
            pointer: format!("{}/{}", self.pointer, escape_token(token)),
        }
    }

    fn enter(&self) {
        let mut notes = self.notes.borrow_mut();
        notes.depth = notes.depth.max(self.depth);
    }
}

impl<'de> DeserializeSeed<'de> for Reader<'_> {
    type Value = Value;

    fn deserialize<D: serde::Deserializer<'de>>(self, deserializer: D) -> Result<Value, D::Error> {
        deserializer.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for Reader<'_> {
    type Value = Value;

    fn expecting(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
        formatter.write_str("a JSON value")
    }

    fn visit_bool<E>(self, value: bool) -> Result<Value, E> {
        Ok(Value::Bool(value))
    }

    fn visit_i64<E>(self, value: i64) -> Result<Value, E> {
        Ok(Value::from(value))
    }

    fn visit_u64<E>(self, value: u64) -> Result<Value, E> {
        Ok(Value::from(value))
    }

    fn visit_f64<E>(self, value: f64) -> Result<Value, E> {
        Ok(serde_json::Number::from_f64(value).map_or(Value::Null, Value::Number))
    }

    fn visit_str<E>(self, value: &str) -> Result<Value, E> {
        Ok(Value::String(value.to_owned()))
    }

    fn visit_string<E>(self, value: String) -> Result<Value, E> {
        Ok(Value::String(value))
    }

    fn visit_unit<E>(self) -> Result<Value, E> {
        Ok(Value::Null)
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Value, A::Error> {
        self.enter();
        let mut items = Vec::new();
        while let Some(item) = seq.next_element_seed(self.child(&items.len().to_string()))? {
            items.push(item);
        }
        Ok(Value::Array(items))
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Value, A::Error> {
        self.enter();
        let mut object = Map::new();
        while let Some(key) = map.next_key::<String>()? {
            let child = self.child(&key);
            let pointer = child.pointer.clone();
            let value = map.next_value_seed(child)?;
            // Go's decoder keeps the last of repeated members; so does the spec profile.
            if object.insert(key, value).is_some() {
                self.notes.borrow_mut().duplicates.push(pointer);
            }
        }
        Ok(Value::Object(object))
    }
}

/// Planted: a reader that sniffs UTF-16 or UTF-32 (a byte order mark, or the NUL pattern
/// of RFC 4627's detection) and transcodes to UTF-8. `None` when nothing is transcoded.
fn transcode_by_mistake(run: &Run<'_>, bytes: &[u8]) -> Option<Vec<u8>> {
    if run.on(Planted::Utf32Sniffed) {
        if let Some(text) = sniff_utf32(bytes) {
            return Some(text.into_bytes());
        }
    }
    if run.on(Planted::Utf16Sniffed) {
        if let Some(text) = sniff_utf16(bytes) {
            return Some(text.into_bytes());
        }
    }
    None
}

fn sniff_utf32(bytes: &[u8]) -> Option<String> {
    let (big_endian, body) = match bytes {
        [0, 0, 0xFE, 0xFF, rest @ ..] => (true, rest),
        [0xFF, 0xFE, 0, 0, rest @ ..] => (false, rest),
        [0, 0, 0, b, ..] if *b != 0 => (true, bytes),
        [b, 0, 0, 0, ..] if *b != 0 => (false, bytes),
        _ => return None,
    };
    if body.len() % 4 != 0 {
        return None;
    }
    body.chunks_exact(4)
        .map(|unit| {
            let quad = [unit[0], unit[1], unit[2], unit[3]];
            let code = if big_endian {
                u32::from_be_bytes(quad)
            } else {
                u32::from_le_bytes(quad)
            };
            char::from_u32(code)
        })
        .collect()
}

fn sniff_utf16(bytes: &[u8]) -> Option<String> {
    let (big_endian, body) = match bytes {
        [0xFE, 0xFF, rest @ ..] => (true, rest),
        [0xFF, 0xFE, rest @ ..] => (false, rest),
        [0, b, ..] if *b != 0 => (true, bytes),
        [b, 0, ..] if *b != 0 => (false, bytes),
        _ => return None,
    };
    if body.len() % 2 != 0 {
        return None;
    }
    let units = body.chunks_exact(2).map(|unit| {
        if big_endian {
            u16::from_be_bytes([unit[0], unit[1]])
        } else {
            u16::from_le_bytes([unit[0], unit[1]])
        }
    });
    char::decode_utf16(units)
        .collect::<Result<String, _>>()
        .ok()
}

/// Planted: drops a `,` that only whitespace separates from a closing `]` or `}`, outside
/// strings (a JSON5-style reader).
fn drop_trailing_commas(text: &str) -> String {
    let chars: Vec<char> = text.chars().collect();
    let mut out = String::with_capacity(text.len());
    let mut in_string = false;
    let mut escaped = false;
    for (index, &c) in chars.iter().enumerate() {
        if in_string {
            out.push(c);
            if escaped {
                escaped = false;
            } else if c == '\\' {
                escaped = true;
            } else if c == '"' {
                in_string = false;
            }
            continue;
        }
        if c == '"' {
            in_string = true;
        }
        if c == ',' {
            let next = chars[index + 1..]
                .iter()
                .find(|next| !matches!(next, ' ' | '\t' | '\n' | '\r'));
            if matches!(next, Some(']' | '}')) {
                continue;
            }
        }
        out.push(c);
    }
    out
}
