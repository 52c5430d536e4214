//! Structure-aware generators: from fuzz bytes (read through `arbitrary::Unstructured`)
//! they build documents that are valid by construction, then apply at most one targeted
//! mutation (drop a required member, add an unknown key, exceed a bound by one, insert a
//! control character, repeat a key, change a type ...) whose diagnostics they predict
//! exactly, or several untargeted ones whose outcome they do not predict.
//!
//! Valid strings are drawn from a palette of odd but legal Unicode (combining marks,
//! astral characters, right-to-left text, zero-width joiners, characters that need
//! escaping in JSON) with lengths biased to the bounds, so "valid" is exercised at its
//! edges and not only in its middle.

pub mod bundle;
pub mod skill;
pub mod soul_kit;
pub mod soul_md;
pub mod soulacy;

use arbitrary::Unstructured;

use crate::invariants::Expected;
use crate::json_text::{self, Json, Style};

/// A generated document and what its generator knows about it.
#[derive(Debug, Clone)]
pub struct Generated {
    /// The document's exact bytes.
    pub bytes: Vec<u8>,
    /// The diagnostics it must get, exactly, in the spec profile (the one the targets
    /// check in); `None` after untargeted mutations.
    pub expected: Option<Vec<Expected>>,
    /// The diagnostics a strict-only rule adds in the strict profile, on top of
    /// `expected`, for a mutation the spec allows (a repeated key with the same value, say).
    /// When not empty, the document is checked in the strict profile too, and must get
    /// exactly `expected` and these there.
    pub strict_only: Vec<Expected>,
    /// The same document spelled differently (JSON whitespace and escapes, Markdown line
    /// endings), which must get the same rules at the same pointers; `None` when a
    /// mutation was made on the text itself.
    pub respelled: Option<Vec<u8>>,
    /// A short name of what was done, for violation messages.
    pub summary: String,
}

/// Characters that start a valid string: visible, outside every marker, safe alone.
const SOLID: &[&str] = &[
    "a", "B", "z", "7", "é", "ß", "漢", "字", "ש", "٣", "Ω", "ø", "🙂", "𝄞", "\u{2800}",
    "\u{E000}", "\u{FFFD}", "q", "K",
];

/// Characters that may follow: the solid ones plus whitespace, joiners, combining marks,
/// characters JSON must escape and pointer-special characters. No `w` or `W` appears, so
/// no generated string can spell a reserved marker such as `soulware:default`.
const ANY: &[&str] = &[
    "a",
    "e",
    "t",
    " ",
    "\u{301}",
    "\u{200D}",
    "\u{A0}",
    "\t",
    "\n",
    "\"",
    "\\",
    "/",
    "~",
    "'",
    "<",
    "&",
    "\u{FEFF}",
    "\u{1F600}",
    "\u{E0041}",
    "ﬁ",
    "İ",
    "\u{1F3FD}",
    ".",
    "-",
    ":",
];

/// A visible string of exactly `chars` characters (at least one).
pub fn text_of(u: &mut Unstructured<'_>, chars: usize) -> arbitrary::Result<String> {
    let mut text = String::new();
    text.push_str(u.choose(SOLID)?);
    let mut count = 1;
    while count < chars {
        let piece = if u.is_empty() { "a" } else { u.choose(ANY)? };
        text.push_str(piece);
        count += 1;
    }
    Ok(text)
}

/// A length in `min..=max` (with `min` raised to 1), biased to the ends and their
/// neighbours.
pub fn length(u: &mut Unstructured<'_>, min: usize, max: usize) -> arbitrary::Result<usize> {
    let min = min.max(1);
    Ok(match u.int_in_range(0u8..=7)? {
        0 | 1 => max,
        2 => min,
        3 => (min + 1).min(max),
        4 => max.saturating_sub(1).max(min),
        _ => u.int_in_range(min..=max.min(min + 24))?,
    })
}

/// A visible string with a length in `min..=max`, biased to the bounds.
pub fn text(u: &mut Unstructured<'_>, min: usize, max: usize) -> arbitrary::Result<String> {
    let chars = length(u, min, max)?;
    text_of(u, chars)
}

/// A count in `min..=max`, biased to the bounds.
pub fn count(u: &mut Unstructured<'_>, min: usize, max: usize) -> arbitrary::Result<usize> {
    Ok(match u.int_in_range(0u8..=3)? {
        0 => min,
        1 => max,
        _ => u.int_in_range(min..=max)?,
    })
}

/// Keys that are close to real member names but none of them.
pub const NEAR_MISS_KEYS: &[&str] = &[
    "Name",
    "name ",
    "nmae",
    "names",
    "ID",
    "$schema",
    "",
    "x-extension",
    "voice_",
    "na\u{200B}me",
    "ñame",
    "a/b",
    "~0",
    "__proto__",
    "constructor",
];

/// Characters the formats forbid inside strings (ASCII controls other than tab and line
/// feed, and C1 controls).
pub const CONTROLS: &[char] = &[
    '\u{0}', '\u{1}', '\u{7}', '\u{8}', '\u{B}', '\u{C}', '\r', '\u{1B}', '\u{1F}', '\u{7F}',
    '\u{80}', '\u{85}', '\u{9F}',
];

/// Values of every JSON type, for type changes.
pub fn other_type(u: &mut Unstructured<'_>, not: &Json) -> arbitrary::Result<Json> {
    other_type_among(u, not, true)
}

/// A value of another JSON type than `not`, never `null`: for formats whose publisher's
/// reader (Go's decoder) reads a `null` member as absent, so null is no wrong type there.
pub fn other_type_not_null(u: &mut Unstructured<'_>, not: &Json) -> arbitrary::Result<Json> {
    other_type_among(u, not, false)
}

fn other_type_among(u: &mut Unstructured<'_>, not: &Json, null: bool) -> arbitrary::Result<Json> {
    let candidates = [
        Json::Null,
        Json::Bool(u.arbitrary()?),
        Json::Number((*u.choose(&["0", "-1", "1.5", "1e3", "12345678901234567890"])?).to_owned()),
        Json::str("a"),
        Json::Array(vec![Json::str("a")]),
        Json::Object(Vec::new()),
    ];
    let same_kind = |value: &Json| std::mem::discriminant(value) == std::mem::discriminant(not);
    let choices: Vec<Json> = candidates
        .into_iter()
        .filter(|c| !same_kind(c) && (null || !matches!(c, Json::Null)))
        .collect();
    Ok(u.choose(&choices)?.clone())
}

/// The document after several untargeted edits ([`scramble`]), with no prediction.
pub fn scrambled(u: &mut Unstructured<'_>, tree: &mut Json) -> arbitrary::Result<Generated> {
    let summary = scramble(u, tree)?;
    let (bytes, _) = spell(u, tree)?;
    Ok(Generated {
        bytes,
        expected: None,
        strict_only: Vec::new(),
        respelled: None,
        summary,
    })
}

/// Untargeted edits of a tree: after these the outcome is not predicted, only the general
/// invariants apply.
pub fn scramble(u: &mut Unstructured<'_>, tree: &mut Json) -> arbitrary::Result<String> {
    let mut done = Vec::new();
    let rounds = u.int_in_range(1u8..=4)?;
    for _ in 0..rounds {
        let pointers = tree.pointers(&|_| true);
        let pointer = u.choose(&pointers)?.clone();
        match u.int_in_range(0u8..=5)? {
            0 => {
                tree.remove(&pointer);
                done.push(format!("remove {pointer}"));
            }
            1 => {
                let Some(node) = tree.at(&pointer).cloned() else {
                    continue;
                };
                let replacement = other_type(u, &node)?;
                if let Some(slot) = tree.at_mut(&pointer) {
                    *slot = replacement;
                }
                done.push(format!("retype {pointer}"));
            }
            2 => {
                tree.duplicate(&pointer);
                done.push(format!("repeat {pointer}"));
            }
            3 => {
                let key = u.choose(NEAR_MISS_KEYS)?;
                tree.push_member(&pointer, key, Json::str("x"));
                done.push(format!("add {key:?} to {pointer}"));
            }
            4 => {
                if let Some(Json::String(text)) = tree.at_mut(&pointer) {
                    let extra = u.int_in_range(0usize..=2000)?;
                    text.push_str(&"x".repeat(extra));
                }
                done.push(format!("lengthen {pointer}"));
            }
            _ => {
                if let Some(Json::Array(items)) = tree.at_mut(&pointer) {
                    if let Some(first) = items.first().cloned() {
                        let copies = u.int_in_range(0usize..=20)?;
                        items.extend(std::iter::repeat_n(first, copies));
                    } else {
                        items.push(Json::Null);
                    }
                }
                done.push(format!("grow {pointer}"));
            }
        }
    }
    Ok(done.join(", "))
}

/// Writes a tree in a fuzz-chosen style and again in another one.
pub fn spell(u: &mut Unstructured<'_>, tree: &Json) -> arbitrary::Result<(Vec<u8>, Vec<u8>)> {
    let style = Style::arbitrary(u)?;
    let other = Style {
        pretty: !style.pretty,
        escape_unicode: !style.escape_unicode,
        ..Style::arbitrary(u)?
    };
    Ok((
        json_text::write(tree, style).into_bytes(),
        json_text::write(tree, other).into_bytes(),
    ))
}

/// Pads a JSON text with trailing spaces to exactly `size` bytes (before its final
/// newline), when it is not already longer.
pub fn pad_json(bytes: &mut Vec<u8>, size: usize) {
    if bytes.len() >= size {
        return;
    }
    let newline = bytes.pop();
    let fill = size - bytes.len() - usize::from(newline.is_some());
    bytes.extend(std::iter::repeat_n(b' ', fill));
    bytes.extend(newline);
}

/// Inserts a raw control byte inside the first string literal at or after `from` in a
/// JSON text: the text is then not JSON at all.
pub fn raw_control(bytes: &mut Vec<u8>, control: u8, from: usize) -> bool {
    let start = bytes
        .iter()
        .skip(from)
        .position(|&b| b == b'"')
        .map(|at| from + at + 1);
    match start {
        Some(at) if at <= bytes.len() => {
            bytes.insert(at, control);
            true
        }
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn texts_have_their_length_and_are_visible() {
        let data: Vec<u8> = (0..=255u8).cycle().take(4096).collect();
        let mut u = Unstructured::new(&data);
        for chars in [1, 2, 80, 1800] {
            let text = text_of(&mut u, chars).expect("text");
            assert_eq!(text.chars().count(), chars);
            assert!(soulcheck_reference::text::has_visible_content(&text));
            assert!(!soulcheck_reference::text::contains_folded(
                &text,
                &["soulware:default", "soulware-kit:"]
            ));
        }
    }

    #[test]
    fn padding_reaches_the_size() {
        let mut bytes = b"{}\n".to_vec();
        pad_json(&mut bytes, 10);
        assert_eq!(bytes, b"{}       \n");
    }
}
