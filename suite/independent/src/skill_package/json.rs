//! The envelope's JSON, read with serde_json into a tree that keeps what serde_json's own
//! `Value` forgets and the rules need: every member of an object in order (repeated keys
//! are reported in the strict profile, and the last one counts otherwise, as JavaScript's
//! `JSON.parse` and Go keep it), whether a number was written as an integer
//! (`version-spelling`), and each string's place among the document's strings (so a switch
//! can measure a content's escaped text).

use std::borrow::Cow;
use std::cell::Cell;
use std::fmt;

use serde::de::{DeserializeSeed, Deserializer, MapAccess, SeqAccess, Visitor};

/// A JSON value.
#[derive(Debug, Clone, PartialEq)]
pub(super) enum Json {
    Null,
    Bool(bool),
    Number(Number),
    String(JsonString),
    Array(Vec<Json>),
    Object(Vec<Member>),
}

/// A number, as serde_json delivers it: an integer when written without fraction or
/// exponent (and in range), a float otherwise.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(super) enum Number {
    Integer(i128),
    Float(f64),
}

/// A string and its place among the document's strings (keys included), in order.
#[derive(Debug, Clone, PartialEq)]
pub(super) struct JsonString {
    pub text: String,
    pub ordinal: usize,
}

/// One member of an object.
#[derive(Debug, Clone, PartialEq)]
pub(super) struct Member {
    pub key: String,
    pub value: Json,
}

/// Why the text is no JSON value.
#[derive(Debug)]
pub(super) enum Failure {
    /// Not well-formed (skill-package.json.syntax).
    Syntax(String),
    /// Something besides whitespace follows the value (skill-package.json.trailing-data).
    TrailingData(String),
    /// Deeper than serde_json reads (128 levels).
    TooDeep(String),
}

/// Reads `text` as one JSON value. With `whole`, the value must be all of the text (RFC
/// 8259's JSON-text: whitespace around one value); without it, what follows is ignored
/// (the `json-trailing-data-ignored` switch).
pub(super) fn parse(text: &str, whole: bool) -> Result<Json, Failure> {
    match parse_once(text, whole) {
        // RFC 8259 allows any magnitude; serde_json refuses what overflows an f64. Such a
        // number stands for a number no rule accepts as a value (version is 1), so it is
        // read as 0 and the rest judged.
        Err(Failure::Syntax(message)) if message.starts_with("number out of range") => {
            parse_once(&tame_huge_numbers(text), whole)
        }
        other => other,
    }
}

/// The text with every number token that overflows an f64 written `0` instead.
fn tame_huge_numbers(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    let mut in_string = false;
    while let Some(c) = rest.chars().next() {
        if in_string {
            let step = if c == '\\' {
                c.len_utf8() + rest[1..].chars().next().map_or(0, char::len_utf8)
            } else {
                c.len_utf8()
            };
            if c == '"' {
                in_string = false;
            }
            out.push_str(&rest[..step]);
            rest = &rest[step..];
            continue;
        }
        if c == '-' || c.is_ascii_digit() {
            let length = rest
                .find(|c: char| !(c.is_ascii_digit() || "+-.eE".contains(c)))
                .unwrap_or(rest.len());
            let token = &rest[..length];
            if token.parse::<f64>().is_ok_and(f64::is_infinite) {
                out.push('0');
            } else {
                out.push_str(token);
            }
            rest = &rest[length..];
            continue;
        }
        if c == '"' {
            in_string = true;
        }
        out.push(c);
        rest = &rest[c.len_utf8()..];
    }
    out
}

fn parse_once(text: &str, whole: bool) -> Result<Json, Failure> {
    let counter = Cell::new(0);
    let mut deserializer = serde_json::Deserializer::from_str(text);
    let value = ValueSeed { counter: &counter }
        .deserialize(&mut deserializer)
        .map_err(classify)?;
    if whole {
        deserializer
            .end()
            .map_err(|error| Failure::TrailingData(error.to_string()))?;
    }
    Ok(value)
}

fn classify(error: serde_json::Error) -> Failure {
    let message = error.to_string();
    if message.contains("recursion limit exceeded") {
        Failure::TooDeep(message)
    } else {
        Failure::Syntax(message)
    }
}

impl Json {
    /// The value of the last member named `key` (the member that counts when a key is
    /// repeated), if this is an object.
    pub(super) fn member(&self, key: &str) -> Option<&Json> {
        match self {
            Json::Object(members) => members
                .iter()
                .rev()
                .find(|member| member.key == key)
                .map(|member| &member.value),
            _ => None,
        }
    }

    /// How deeply arrays and objects nest in this value (a scalar is 0, `[]` is 1).
    pub(super) fn depth(&self) -> usize {
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

    /// The JSON type's name, for messages.
    pub(super) fn type_name(&self) -> &'static str {
        match self {
            Json::Null => "null",
            Json::Bool(_) => "a boolean",
            Json::Number(_) => "a number",
            Json::String(_) => "a string",
            Json::Array(_) => "an array",
            Json::Object(_) => "an object",
        }
    }
}

/// The length in bytes of each string token's escaped text (between its quotes), in the
/// order the strings appear. `text` must be well-formed JSON. Only the
/// `file-limit-on-escaped-json` switch measures contents this way.
pub(super) fn escaped_lengths(text: &str) -> Vec<usize> {
    let mut lengths = Vec::new();
    let mut bytes = text.bytes().enumerate();
    while let Some((index, byte)) = bytes.next() {
        if byte != b'"' {
            continue;
        }
        let start = index + 1;
        while let Some((inner, byte)) = bytes.next() {
            match byte {
                b'\\' => {
                    bytes.next();
                }
                b'"' => {
                    lengths.push(inner - start);
                    break;
                }
                _ => {}
            }
        }
    }
    lengths
}

/// What a JSON5-style reader does before reading JSON: comments (`//` and `/* */`) and
/// commas before `]` or `}` are dropped. Only the `json-lenient-syntax` switch reads this
/// way.
pub(super) fn strip_json5(text: &str) -> Cow<'_, str> {
    let mut out = String::with_capacity(text.len());
    let mut chars = text.chars().peekable();
    let mut in_string = false;
    let mut pending_comma: Option<String> = None;
    while let Some(c) = chars.next() {
        if in_string {
            out.push(c);
            if c == '\\' {
                if let Some(next) = chars.next() {
                    out.push(next);
                }
            } else if c == '"' {
                in_string = false;
            }
            continue;
        }
        match c {
            '/' if chars.peek() == Some(&'/') => {
                for next in chars.by_ref() {
                    if next == '\n' {
                        push(&mut out, &mut pending_comma, '\n');
                        break;
                    }
                }
            }
            '/' if chars.peek() == Some(&'*') => {
                chars.next();
                let mut previous = ' ';
                for next in chars.by_ref() {
                    if previous == '*' && next == '/' {
                        break;
                    }
                    previous = next;
                }
            }
            ',' => {
                if let Some(held) = pending_comma.take() {
                    out.push_str(&held);
                }
                pending_comma = Some(String::from(","));
            }
            ']' | '}' => {
                if let Some(held) = pending_comma.take() {
                    // The held comma is dropped, its trailing whitespace kept.
                    out.push_str(held.trim_start_matches(','));
                }
                out.push(c);
            }
            c if c.is_ascii_whitespace() => push(&mut out, &mut pending_comma, c),
            c => {
                if let Some(held) = pending_comma.take() {
                    out.push_str(&held);
                }
                if c == '"' {
                    in_string = true;
                }
                out.push(c);
            }
        }
    }
    if let Some(held) = pending_comma {
        out.push_str(&held);
    }
    Cow::Owned(out)
}

fn push(out: &mut String, pending: &mut Option<String>, c: char) {
    match pending {
        Some(held) => held.push(c),
        None => out.push(c),
    }
}

/// Reads one value, numbering its strings with `counter`.
struct ValueSeed<'c> {
    counter: &'c Cell<usize>,
}

impl<'de> DeserializeSeed<'de> for ValueSeed<'_> {
    type Value = Json;

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<Json, D::Error> {
        deserializer.deserialize_any(ValueVisitor {
            counter: self.counter,
        })
    }
}

struct ValueVisitor<'c> {
    counter: &'c Cell<usize>,
}

impl ValueVisitor<'_> {
    fn string(&self, text: String) -> Json {
        let ordinal = self.counter.get();
        self.counter.set(ordinal + 1);
        Json::String(JsonString { text, ordinal })
    }
}

impl<'de> Visitor<'de> for ValueVisitor<'_> {
    type Value = Json;

    fn expecting(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
        formatter.write_str("a JSON value")
    }

    fn visit_unit<E>(self) -> Result<Json, E> {
        Ok(Json::Null)
    }

    fn visit_bool<E>(self, value: bool) -> Result<Json, E> {
        Ok(Json::Bool(value))
    }

    fn visit_i64<E>(self, value: i64) -> Result<Json, E> {
        Ok(Json::Number(Number::Integer(i128::from(value))))
    }

    fn visit_u64<E>(self, value: u64) -> Result<Json, E> {
        Ok(Json::Number(Number::Integer(i128::from(value))))
    }

    fn visit_f64<E>(self, value: f64) -> Result<Json, E> {
        Ok(Json::Number(Number::Float(value)))
    }

    fn visit_str<E>(self, value: &str) -> Result<Json, E> {
        Ok(self.string(value.to_owned()))
    }

    fn visit_string<E>(self, value: String) -> Result<Json, E> {
        Ok(self.string(value))
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Json, A::Error> {
        let mut items = Vec::new();
        while let Some(item) = seq.next_element_seed(ValueSeed {
            counter: self.counter,
        })? {
            items.push(item);
        }
        Ok(Json::Array(items))
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Json, A::Error> {
        let mut members = Vec::new();
        while let Some(key) = map.next_key_seed(KeySeed {
            counter: self.counter,
        })? {
            let value = map.next_value_seed(ValueSeed {
                counter: self.counter,
            })?;
            members.push(Member { key, value });
        }
        Ok(Json::Object(members))
    }
}

/// Reads an object's key, counting it among the strings.
struct KeySeed<'c> {
    counter: &'c Cell<usize>,
}

impl<'de> DeserializeSeed<'de> for KeySeed<'_> {
    type Value = String;

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<String, D::Error> {
        let key = deserializer.deserialize_str(KeyVisitor)?;
        self.counter.set(self.counter.get() + 1);
        Ok(key)
    }
}

struct KeyVisitor;

impl Visitor<'_> for KeyVisitor {
    type Value = String;

    fn expecting(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
        formatter.write_str("a key")
    }

    fn visit_str<E>(self, value: &str) -> Result<String, E> {
        Ok(value.to_owned())
    }

    fn visit_string<E>(self, value: String) -> Result<String, E> {
        Ok(value)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keeps_repeated_members_and_number_spelling() {
        let value = parse(r#"{"a": 1, "a": 1.0, "b": "x\u0041"}"#, true).unwrap();
        let Json::Object(members) = &value else {
            panic!("not an object")
        };
        assert_eq!(members.len(), 3);
        assert_eq!(value.member("a"), Some(&Json::Number(Number::Float(1.0))));
        assert_eq!(
            value.member("b"),
            Some(&Json::String(JsonString {
                text: "xA".into(),
                ordinal: 3
            }))
        );
        assert_eq!(escaped_lengths(r#"{"a": "x\"\u0041"}"#), vec![1, 9]);
    }

    #[test]
    fn numbers_past_f64() {
        let value = parse(r#"{"a\"1e999": "1e999", "b": [-1e400, 1]}"#, true).unwrap();
        assert_eq!(
            value.member("b"),
            Some(&Json::Array(vec![
                Json::Number(Number::Integer(0)),
                Json::Number(Number::Integer(1))
            ]))
        );
        assert!(parse("[1e400", true).is_err());
    }

    #[test]
    fn trailing_data_and_json5() {
        assert!(matches!(
            parse("{} {}", true),
            Err(Failure::TrailingData(_))
        ));
        assert!(parse("{} {}", false).is_ok());
        let lenient = strip_json5("{\"a\": [1, 2,], // c\n \"b\": 1, /* x */}");
        assert!(parse(&lenient, true).is_ok(), "{lenient}");
    }
}
