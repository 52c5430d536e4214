//! A model of what Soulacy's importer does to compute the package digest (rule
//! `soulacy-package.integrity.mismatch`, basis upstream; field notes, "Learned by running
//! the public code"): Go's `encoding/json` decodes the package into typed structures (keys
//! bound to fields exactly or, failing that, without regard to letter case; the last
//! repetition wins; `null` leaves a scalar alone and clears a slice or pointer; unknown
//! members dropped; a value of another type is an error), then `json.Marshal` writes the
//! structures back compactly in field order, leaving out empty `omitempty` members and
//! escaping `<`, `>`, `&`, U+2028 and U+2029.
//!
//! The model is a tree of [`GoValue`]s shaped by static [`GoField`] tables; decoding
//! follows Go's rules for merging into existing values, encoding Go's writer.

use super::instant::{self, DateTime};
use super::json::{Json, Member, Number};

/// A Go field type, as far as the package structures use them.
#[derive(Debug, Clone, Copy)]
pub enum GoKind {
    /// `string`.
    Str,
    /// `int` (64 bits).
    Int,
    /// `bool`.
    Bool,
    /// `time.Time`.
    Time,
    /// `[]string`.
    Strs,
    /// `[]T` for a struct T.
    Structs(&'static [GoField]),
    /// A struct held by value.
    Struct(&'static [GoField]),
    /// `*T` for a struct T.
    Ptr(&'static [GoField]),
}

/// One field of a Go structure: its JSON name, type and whether it is `omitempty`.
#[derive(Debug, Clone, Copy)]
pub struct GoField {
    /// The JSON name.
    pub name: &'static str,
    /// The type.
    pub kind: GoKind,
    /// `,omitempty`.
    pub omit_empty: bool,
}

/// A Go value.
#[derive(Debug, Clone, PartialEq)]
pub enum GoValue {
    /// A string.
    Str(String),
    /// An int.
    Int(i64),
    /// A bool.
    Bool(bool),
    /// A time; `None` is the zero time.
    Time(Option<DateTime>),
    /// A string slice; `None` is nil.
    Strs(Option<Vec<String>>),
    /// A struct slice; `None` is nil.
    Structs(Option<Vec<Vec<GoValue>>>),
    /// A struct's fields, in table order.
    Struct(Vec<GoValue>),
    /// A pointer to a struct; `None` is nil.
    Ptr(Option<Vec<GoValue>>),
}

/// The zero value of a kind.
pub fn zero(kind: GoKind) -> GoValue {
    match kind {
        GoKind::Str => GoValue::Str(String::new()),
        GoKind::Int => GoValue::Int(0),
        GoKind::Bool => GoValue::Bool(false),
        GoKind::Time => GoValue::Time(None),
        GoKind::Strs => GoValue::Strs(None),
        GoKind::Structs(_) => GoValue::Structs(None),
        GoKind::Struct(fields) => GoValue::Struct(zero_struct(fields)),
        GoKind::Ptr(_) => GoValue::Ptr(None),
    }
}

/// The zero value of a struct.
pub fn zero_struct(fields: &[GoField]) -> Vec<GoValue> {
    fields.iter().map(|field| zero(field.kind)).collect()
}

/// Decodes an object into a struct, merging into what is there (Go's `Unmarshal` into an
/// existing value). An error sets `failed` (Go's `Unmarshal` then returns an error: the
/// import is refused and no digest is computed); decoding goes on, as Go's does.
pub fn decode_struct(
    fields: &[GoField],
    target: &mut [GoValue],
    members: &[Member],
    failed: &mut bool,
) {
    for member in members {
        let index = fields
            .iter()
            .position(|field| field.name == member.key)
            .or_else(|| {
                let folded = fold(&member.key);
                fields.iter().position(|field| fold(field.name) == folded)
            });
        if let Some(index) = index {
            if let (Some(field), Some(value)) = (fields.get(index), target.get_mut(index)) {
                decode(field.kind, value, &member.value, failed);
            }
        }
    }
}

/// Go's key folding (encoding/json `foldName`): ASCII letters to upper case, any other
/// character to the upper case of its lower case, so `K` (Kelvin sign) folds like `k`.
fn fold(key: &str) -> String {
    key.chars()
        .map(|character| {
            if character.is_ascii() {
                character.to_ascii_uppercase()
            } else {
                single(character.to_lowercase())
                    .and_then(|lower| single(lower.to_uppercase()))
                    .unwrap_or(character)
            }
        })
        .collect()
}

/// The only character of a case mapping, when it maps to exactly one (as Go's
/// `unicode.ToLower` and `ToUpper` always do).
fn single(mut mapping: impl Iterator<Item = char>) -> Option<char> {
    let first = mapping.next()?;
    mapping.next().is_none().then_some(first)
}

/// Decodes one JSON value into a Go value of `kind`.
fn decode(kind: GoKind, target: &mut GoValue, value: &Json, failed: &mut bool) {
    if *value == Json::Null {
        // null clears slices and pointers and leaves everything else as it is.
        match target {
            GoValue::Strs(slice) => *slice = None,
            GoValue::Structs(slice) => *slice = None,
            GoValue::Ptr(pointer) => *pointer = None,
            _ => {}
        }
        return;
    }
    match (kind, target, value) {
        (GoKind::Str, GoValue::Str(slot), Json::String(text)) => text.clone_into(slot),
        (GoKind::Int, GoValue::Int(slot), Json::Number(number)) => match number {
            Number::Unsigned(unsigned) => match i64::try_from(*unsigned) {
                Ok(int) => *slot = int,
                Err(_) => *failed = true,
            },
            Number::Negative(int) => *slot = *int,
            Number::Float(_) => *failed = true,
        },
        (GoKind::Bool, GoValue::Bool(slot), Json::Bool(flag)) => *slot = *flag,
        (GoKind::Time, GoValue::Time(slot), Json::String(text)) => {
            match instant::parse_as(text, None, instant::Reading::Go) {
                Some(time) => *slot = Some(time),
                None => *failed = true,
            }
        }
        (GoKind::Strs, GoValue::Strs(slot), Json::Array(items)) => {
            let mut strings = Vec::with_capacity(items.len());
            for item in items {
                match item {
                    Json::String(text) => strings.push(text.clone()),
                    Json::Null => strings.push(String::new()),
                    _ => {
                        *failed = true;
                        strings.push(String::new());
                    }
                }
            }
            *slot = Some(strings);
        }
        (GoKind::Structs(fields), GoValue::Structs(slot), Json::Array(items)) => {
            // Go decodes element i into the existing element i (merging), then truncates.
            let mut elements = slot.take().unwrap_or_default();
            elements.truncate(items.len());
            for (index, item) in items.iter().enumerate() {
                if index >= elements.len() {
                    elements.push(zero_struct(fields));
                }
                match (item, elements.get_mut(index)) {
                    (Json::Object(members), Some(element)) => {
                        decode_struct(fields, element, members, failed);
                    }
                    (Json::Null, _) => {}
                    _ => *failed = true,
                }
            }
            *slot = Some(elements);
        }
        (GoKind::Struct(fields), GoValue::Struct(slot), Json::Object(members)) => {
            decode_struct(fields, slot, members, failed);
        }
        (GoKind::Ptr(fields), GoValue::Ptr(slot), Json::Object(members)) => {
            let pointed = slot.get_or_insert_with(|| zero_struct(fields));
            decode_struct(fields, pointed, members, failed);
        }
        _ => *failed = true,
    }
}

/// How the writer escapes strings; the clean writer is Go's, the others planted mistakes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Escaping {
    /// Escape `<`, `>`, `&` (Go's HTML-safe default).
    pub html: bool,
    /// Escape U+2028 and U+2029 (Go does; serde_json and most writers do not).
    pub separators: bool,
    /// Write members sorted by name (as a map-based writer does) instead of in field order.
    pub sorted: bool,
    /// Leave out empty `omitempty` members.
    pub omit_empty: bool,
    /// Write U+0008 and U+000C as `\u0008` and `\u000c`, as Go did before 1.22 (Go 1.22
    /// and later write `\b` and `\f`; Soulacy builds with Go 1.25).
    pub before_go_1_22: bool,
}

/// `json.Marshal` of a struct.
pub fn encode_struct(fields: &[GoField], values: &[GoValue], escaping: Escaping, out: &mut String) {
    out.push('{');
    let mut first = true;
    let mut pairs: Vec<(&GoField, &GoValue)> = fields.iter().zip(values).collect();
    if escaping.sorted {
        pairs.sort_by_key(|(field, _)| field.name);
    }
    for (field, value) in pairs {
        if escaping.omit_empty && field.omit_empty && is_empty(value) {
            continue;
        }
        if !first {
            out.push(',');
        }
        first = false;
        encode_string(field.name, escaping, out);
        out.push(':');
        encode(field.kind, value, escaping, out);
    }
    out.push('}');
}

/// Whether `omitempty` leaves the value out: empty string, zero, false, nil or empty
/// slice, nil pointer (a struct held by value is never empty).
fn is_empty(value: &GoValue) -> bool {
    match value {
        GoValue::Str(text) => text.is_empty(),
        GoValue::Int(int) => *int == 0,
        GoValue::Bool(flag) => !flag,
        GoValue::Strs(slice) => slice.as_ref().is_none_or(Vec::is_empty),
        GoValue::Structs(slice) => slice.as_ref().is_none_or(Vec::is_empty),
        GoValue::Ptr(pointer) => pointer.is_none(),
        GoValue::Time(_) | GoValue::Struct(_) => false,
    }
}

/// `json.Marshal` of one value.
fn encode(kind: GoKind, value: &GoValue, escaping: Escaping, out: &mut String) {
    match (kind, value) {
        (_, GoValue::Str(text)) => encode_string(text, escaping, out),
        (_, GoValue::Int(int)) => out.push_str(&int.to_string()),
        (_, GoValue::Bool(flag)) => out.push_str(if *flag { "true" } else { "false" }),
        (_, GoValue::Time(time)) => {
            let text = time
                .as_ref()
                .map_or_else(|| instant::GO_ZERO_TIME.to_owned(), DateTime::go_format);
            encode_string(&text, escaping, out);
        }
        (_, GoValue::Strs(None) | GoValue::Structs(None) | GoValue::Ptr(None)) => {
            out.push_str("null");
        }
        (_, GoValue::Strs(Some(items))) => {
            out.push('[');
            for (index, item) in items.iter().enumerate() {
                if index > 0 {
                    out.push(',');
                }
                encode_string(item, escaping, out);
            }
            out.push(']');
        }
        (GoKind::Structs(fields), GoValue::Structs(Some(items))) => {
            out.push('[');
            for (index, item) in items.iter().enumerate() {
                if index > 0 {
                    out.push(',');
                }
                encode_struct(fields, item, escaping, out);
            }
            out.push(']');
        }
        (GoKind::Struct(fields), GoValue::Struct(values))
        | (GoKind::Ptr(fields), GoValue::Ptr(Some(values))) => {
            encode_struct(fields, values, escaping, out);
        }
        // A value whose kind does not match its table cannot be built by `decode`.
        _ => out.push_str("null"),
    }
}

/// Go's string encoder with HTML escaping on.
fn encode_string(text: &str, escaping: Escaping, out: &mut String) {
    out.push('"');
    for character in text.chars() {
        match character {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            '\u{8}' if !escaping.before_go_1_22 => out.push_str("\\b"),
            '\u{c}' if !escaping.before_go_1_22 => out.push_str("\\f"),
            '<' | '>' | '&' if escaping.html => {
                out.push_str(&format!("\\u{:04x}", u32::from(character)));
            }
            '\u{2028}' | '\u{2029}' if escaping.separators => {
                out.push_str(&format!("\\u{:04x}", u32::from(character)))
            }
            control if u32::from(control) < 0x20 => {
                out.push_str(&format!("\\u{:04x}", u32::from(control)));
            }
            other => out.push(other),
        }
    }
    out.push('"');
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escapes_as_go() {
        let mut out = String::new();
        let escaping = Escaping {
            html: true,
            separators: true,
            sorted: false,
            omit_empty: true,
            before_go_1_22: false,
        };
        encode_string("<a>&\u{2028}\u{7}\u{7f}\"é\u{8}\u{c}", escaping, &mut out);
        assert_eq!(
            out,
            "\"\\u003ca\\u003e\\u0026\\u2028\\u0007\u{7f}\\\"é\\b\\f\""
        );
    }

    #[test]
    fn folds_keys_as_go() {
        assert_eq!(fold("ChangeLog"), fold("changelog"));
        assert_eq!(fold("\u{212a}ind"), fold("kind"));
        assert_eq!(fold("\u{17f}ecrets"), fold("secrets"));
    }
}
