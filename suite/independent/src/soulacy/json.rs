//! The JSON reader both Soulacy formats share: serde_json parses (RFC 8259 grammar, no
//! comments, no trailing commas, whitespace only after the value), but into a tree of our
//! own that keeps every member of an object in order, repetitions included, so that the
//! strict profile can see duplicate keys and the integrity check can replay Go's "last
//! member wins" decoding. Numbers keep the distinction serde_json draws between integers
//! that fit 64 bits and everything else (fractions, exponents, larger integers), which is
//! what a Go `int` field accepts.
//!
//! The planted reading mistakes (another encoding, trimming, trailing data, trailing
//! commas, invalid UTF-8 replaced) live here too, so that each format only says which is on.

use serde::de::{Deserialize, Deserializer, MapAccess, SeqAccess, Visitor};

use super::Slip;

/// A JSON value as read.
#[derive(Debug, Clone, PartialEq)]
pub enum Json {
    /// `null`.
    Null,
    /// `true` or `false`.
    Bool(bool),
    /// A number.
    Number(Number),
    /// A string, escapes decoded.
    String(String),
    /// An array.
    Array(Vec<Json>),
    /// An object: every member in document order, repeated keys kept.
    Object(Vec<Member>),
}

/// A JSON number, as serde_json classifies it.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Number {
    /// An integer without fraction or exponent that fits in a u64.
    Unsigned(u64),
    /// A negative integer without fraction or exponent that fits in an i64.
    Negative(i64),
    /// Anything else: a fraction, an exponent, `-0`, or an integer past 64 bits.
    Float(f64),
}

/// One member of an object.
#[derive(Debug, Clone, PartialEq)]
pub struct Member {
    /// The key, escapes decoded.
    pub key: String,
    /// The value.
    pub value: Json,
}

impl Json {
    /// The members, when this is an object.
    pub fn as_object(&self) -> Option<&[Member]> {
        match self {
            Json::Object(members) => Some(members),
            _ => None,
        }
    }

    /// The text, when this is a string.
    pub fn as_str(&self) -> Option<&str> {
        match self {
            Json::String(text) => Some(text),
            _ => None,
        }
    }

    /// How deep arrays and objects nest here (a scalar is 0). serde_json's own recursion
    /// limit (128) bounds the recursion.
    pub fn depth(&self) -> usize {
        match self {
            Json::Array(items) => 1 + items.iter().map(Json::depth).max().unwrap_or(0),
            Json::Object(members) => {
                1 + members
                    .iter()
                    .map(|member| member.value.depth())
                    .max()
                    .unwrap_or(0)
            }
            _ => 0,
        }
    }
}

impl<'de> Deserialize<'de> for Json {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Json, D::Error> {
        deserializer.deserialize_any(JsonVisitor)
    }
}

struct JsonVisitor;

impl<'de> Visitor<'de> for JsonVisitor {
    type Value = Json;

    fn expecting(&self, formatter: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        formatter.write_str("a JSON value")
    }

    fn visit_unit<E>(self) -> Result<Json, E> {
        Ok(Json::Null)
    }

    fn visit_bool<E>(self, value: bool) -> Result<Json, E> {
        Ok(Json::Bool(value))
    }

    fn visit_u64<E>(self, value: u64) -> Result<Json, E> {
        Ok(Json::Number(Number::Unsigned(value)))
    }

    fn visit_i64<E>(self, value: i64) -> Result<Json, E> {
        // serde_json reports non-negative integers as u64; keep one spelling of each.
        Ok(Json::Number(match u64::try_from(value) {
            Ok(unsigned) => Number::Unsigned(unsigned),
            Err(_) => Number::Negative(value),
        }))
    }

    fn visit_f64<E>(self, value: f64) -> Result<Json, E> {
        Ok(Json::Number(Number::Float(value)))
    }

    fn visit_str<E>(self, value: &str) -> Result<Json, E> {
        Ok(Json::String(value.to_owned()))
    }

    fn visit_string<E>(self, value: String) -> Result<Json, E> {
        Ok(Json::String(value))
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Json, A::Error> {
        let mut items = Vec::new();
        while let Some(item) = seq.next_element::<Json>()? {
            items.push(item);
        }
        Ok(Json::Array(items))
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Json, A::Error> {
        let mut members = Vec::new();
        while let Some(key) = map.next_key::<String>()? {
            let value = map.next_value::<Json>()?;
            members.push(Member { key, value });
        }
        Ok(Json::Object(members))
    }
}

/// Why a document could not be read as JSON.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ReadError {
    /// The bytes are not UTF-8 (RFC 8259 section 8.1).
    NotUtf8,
    /// A byte order mark leads the text.
    ByteOrderMark,
    /// Not one well-formed JSON value (serde_json's message).
    Syntax(String),
    /// A well-formed value followed by more than whitespace.
    TrailingData,
}

/// How a format wants the leading byte order mark treated.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BomPolicy {
    /// A byte order mark is an error.
    Refuse,
    /// A byte order mark is skipped.
    Skip,
}

/// Reads `bytes` as one JSON text. `slip` is the planted reading mistake, if any.
pub fn read(bytes: &[u8], bom: BomPolicy, slip: Option<Slip>) -> Result<Json, ReadError> {
    let transcoded = match slip {
        Some(Slip::Utf16) => sniff_utf16(bytes),
        Some(Slip::Utf32) => sniff_utf32(bytes),
        _ => None,
    };
    let text: String = match transcoded {
        Some(text) => text,
        None => match std::str::from_utf8(bytes) {
            Ok(text) => text.to_owned(),
            // A mistaken reader replaces what is not UTF-8, as Go's decoder does.
            Err(_) if slip == Some(Slip::ReplaceInvalidUtf8) => {
                String::from_utf8_lossy(bytes).into_owned()
            }
            Err(_) => return Err(ReadError::NotUtf8),
        },
    };
    let mut text: &str = &text;
    if let Some(rest) = text.strip_prefix('\u{feff}') {
        match bom {
            BomPolicy::Refuse => return Err(ReadError::ByteOrderMark),
            BomPolicy::Skip => text = rest,
        }
    }
    // A mistaken reader trims every Unicode white space (NBSP, U+2028, form feed...)
    // around the text first; JSON's own whitespace is only space, tab, LF and CR.
    if slip == Some(Slip::TrimText) {
        text = text.trim_matches(char::is_whitespace);
    }
    let relaxed;
    if slip == Some(Slip::TrailingComma) {
        relaxed = drop_trailing_commas(text);
        text = &relaxed;
    }
    let mut deserializer = serde_json::Deserializer::from_str(text);
    let value = Json::deserialize(&mut deserializer)
        .map_err(|error| ReadError::Syntax(error.to_string()))?;
    if slip != Some(Slip::TrailingData) && deserializer.end().is_err() {
        return Err(ReadError::TrailingData);
    }
    Ok(value)
}

/// The mistaken reader's UTF-16 sniffing: a UTF-16 byte order mark, or a NUL in every
/// other byte of the first pair, and the text is transcoded.
fn sniff_utf16(bytes: &[u8]) -> Option<String> {
    let (little, body) = match bytes {
        [0xff, 0xfe, rest @ ..] if !rest.starts_with(&[0, 0]) => (true, rest),
        [0xfe, 0xff, rest @ ..] => (false, rest),
        [first, 0, ..] if *first != 0 => (true, bytes),
        [0, second, ..] if *second != 0 => (false, bytes),
        _ => return None,
    };
    if body.len() % 2 != 0 {
        return None;
    }
    let units = body.chunks_exact(2).map(|pair| {
        if little {
            u16::from_le_bytes([pair[0], pair[1]])
        } else {
            u16::from_be_bytes([pair[0], pair[1]])
        }
    });
    char::decode_utf16(units)
        .collect::<Result<String, _>>()
        .ok()
}

/// The mistaken reader's UTF-32 sniffing: a UTF-32 byte order mark, or three NULs around
/// the first character, and the text is transcoded.
fn sniff_utf32(bytes: &[u8]) -> Option<String> {
    let (little, body) = match bytes {
        [0xff, 0xfe, 0, 0, rest @ ..] => (true, rest),
        [0, 0, 0xfe, 0xff, rest @ ..] => (false, rest),
        [first, 0, 0, 0, ..] if *first != 0 => (true, bytes),
        [0, 0, 0, last, ..] if *last != 0 => (false, bytes),
        _ => return None,
    };
    if body.len() % 4 != 0 {
        return None;
    }
    body.chunks_exact(4)
        .map(|quad| {
            let quad = [quad[0], quad[1], quad[2], quad[3]];
            let scalar = if little {
                u32::from_le_bytes(quad)
            } else {
                u32::from_be_bytes(quad)
            };
            char::from_u32(scalar)
        })
        .collect()
}

/// The mistaken reader's leniency: a comma directly before `]` or `}` (whitespace
/// between) is dropped, outside strings.
fn drop_trailing_commas(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut in_string = false;
    let mut escaped = false;
    let mut pending_comma: Option<String> = None;
    for character in text.chars() {
        if in_string {
            out.push(character);
            if escaped {
                escaped = false;
            } else if character == '\\' {
                escaped = true;
            } else if character == '"' {
                in_string = false;
            }
            continue;
        }
        if let Some(held) = pending_comma.as_mut() {
            if matches!(character, ' ' | '\t' | '\n' | '\r') {
                held.push(character);
                continue;
            }
            let held = pending_comma.take().unwrap_or_default();
            if matches!(character, ']' | '}') {
                out.push_str(&held[1..]);
            } else {
                out.push_str(&held);
            }
        }
        match character {
            ',' => pending_comma = Some(String::from(",")),
            '"' => {
                in_string = true;
                out.push(character);
            }
            _ => out.push(character),
        }
    }
    if let Some(held) = pending_comma {
        out.push_str(&held);
    }
    out
}

/// How members are looked up: the clean reader takes the last member with exactly the key
/// (as Go's decoder keeps the last repetition); planted mistakes take the first, or match
/// keys without regard to letter case.
#[derive(Debug, Clone, Copy)]
pub struct Lookup {
    /// The planted mistake, if it is a lookup one.
    pub slip: Option<Slip>,
}

impl Lookup {
    /// The member named `key` in `members`.
    pub fn get<'a>(&self, members: &'a [Member], key: &str) -> Option<&'a Json> {
        let matches = |member: &&Member| {
            if self.slip == Some(Slip::KeysIgnoreCase) {
                member.key.eq_ignore_ascii_case(key)
            } else {
                member.key == key
            }
        };
        let found = if self.slip == Some(Slip::DuplicateFirstWins) {
            members.iter().find(matches)
        } else {
            members.iter().rev().find(matches)
        };
        found.map(|member| &member.value)
    }

    /// Whether `key` is one of `known` (for the unknown-member warning).
    pub fn is_known(&self, key: &str, known: &[&str]) -> bool {
        known.iter().any(|name| {
            if self.slip == Some(Slip::KeysIgnoreCase) {
                name.eq_ignore_ascii_case(key)
            } else {
                *name == key
            }
        })
    }
}

/// Every repeated key, at any depth, as pointers (strict profile: duplicate-key rules).
pub fn duplicate_keys(value: &Json, pointer: &str, found: &mut Vec<String>) {
    match value {
        Json::Array(items) => {
            for (index, item) in items.iter().enumerate() {
                duplicate_keys(item, &format!("{pointer}/{index}"), found);
            }
        }
        Json::Object(members) => {
            let mut seen = std::collections::HashSet::new();
            for member in members {
                let child = format!("{pointer}/{}", escape_pointer(&member.key));
                if !seen.insert(member.key.as_str()) {
                    found.push(child.clone());
                }
                duplicate_keys(&member.value, &child, found);
            }
        }
        _ => {}
    }
}

/// RFC 6901 escaping of one reference token.
pub fn escape_pointer(token: &str) -> String {
    token.replace('~', "~0").replace('/', "~1")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keeps_repeated_members_in_order() {
        let value = read(br#"{"a":1,"a":2}"#, BomPolicy::Refuse, None).unwrap();
        let members = value.as_object().unwrap();
        assert_eq!(members.len(), 2);
        let lookup = Lookup { slip: None };
        assert_eq!(
            lookup.get(members, "a"),
            Some(&Json::Number(Number::Unsigned(2)))
        );
    }

    #[test]
    fn refuses_trailing_data_and_non_json_whitespace() {
        assert_eq!(
            read(b"{} {}", BomPolicy::Refuse, None),
            Err(ReadError::TrailingData)
        );
        assert!(read("{}\u{a0}".as_bytes(), BomPolicy::Refuse, None).is_err());
        assert!(read(
            "{}\u{a0}".as_bytes(),
            BomPolicy::Refuse,
            Some(Slip::TrimText)
        )
        .is_ok());
    }

    #[test]
    fn classifies_numbers() {
        let number = |text: &str| read(text.as_bytes(), BomPolicy::Refuse, None).unwrap();
        assert_eq!(number("45"), Json::Number(Number::Unsigned(45)));
        assert_eq!(number("-3"), Json::Number(Number::Negative(-3)));
        assert!(matches!(number("45.0"), Json::Number(Number::Float(_))));
        assert!(matches!(number("4e1"), Json::Number(Number::Float(_))));
        assert!(matches!(
            number("18446744073709551616"),
            Json::Number(Number::Float(_))
        ));
    }

    #[test]
    fn drops_trailing_commas_only_outside_strings() {
        assert_eq!(drop_trailing_commas(r#"[1, 2 , ]"#), "[1, 2  ]");
        assert_eq!(drop_trailing_commas(r#"{"a":",}"}"#), r#"{"a":",}"}"#);
    }
}
