//! A small JSON tree that, unlike `serde_json::Value`, can hold repeated keys, and a writer
//! that serialises it in many equivalent ways (whitespace, escapes, line endings).
//!
//! The generators build documents as [`Json`] trees, so a near-valid document can carry a
//! duplicate key, and the invariants can compare two encodings of the same tree: the
//! diagnostics must not depend on how the text spells the values.

use arbitrary::Unstructured;

/// A JSON value whose objects keep every member in order, repeated keys included.
#[derive(Debug, Clone, PartialEq)]
pub enum Json {
    /// `null`.
    Null,
    /// `true` or `false`.
    Bool(bool),
    /// A number, written exactly as given.
    Number(String),
    /// A string (unescaped).
    String(String),
    /// An array.
    Array(Vec<Json>),
    /// An object's members in order.
    Object(Vec<(String, Json)>),
}

impl Json {
    /// A string value.
    pub fn str(text: impl Into<String>) -> Json {
        Json::String(text.into())
    }

    /// An array of strings.
    pub fn strings<S: AsRef<str>>(items: &[S]) -> Json {
        Json::Array(items.iter().map(|item| Json::str(item.as_ref())).collect())
    }

    /// An object from members.
    pub fn object(members: Vec<(&str, Json)>) -> Json {
        Json::Object(
            members
                .into_iter()
                .map(|(key, value)| (key.to_owned(), value))
                .collect(),
        )
    }

    /// The value at an RFC 6901 pointer, following the first member of a repeated key.
    pub fn at_mut(&mut self, pointer: &str) -> Option<&mut Json> {
        let mut node = self;
        for token in tokens(pointer)? {
            node = match node {
                Json::Object(members) => members
                    .iter_mut()
                    .find(|(key, _)| *key == token)
                    .map(|(_, value)| value)?,
                Json::Array(items) => items.get_mut(token.parse::<usize>().ok()?)?,
                _ => return None,
            };
        }
        Some(node)
    }

    /// The value at a pointer, read-only.
    pub fn at(&self, pointer: &str) -> Option<&Json> {
        let mut node = self;
        for token in tokens(pointer)? {
            node = match node {
                Json::Object(members) => members
                    .iter()
                    .find(|(key, _)| *key == token)
                    .map(|(_, value)| value)?,
                Json::Array(items) => items.get(token.parse::<usize>().ok()?)?,
                _ => return None,
            };
        }
        Some(node)
    }

    /// Removes the member a pointer names; returns whether it was there.
    pub fn remove(&mut self, pointer: &str) -> bool {
        let Some((parent, key)) = split_last(pointer) else {
            return false;
        };
        match self.at_mut(&parent) {
            Some(Json::Object(members)) => {
                let before = members.len();
                members.retain(|(name, _)| *name != key);
                members.len() != before
            }
            _ => false,
        }
    }

    /// Appends a member to the object at `pointer`; returns whether there was one.
    pub fn push_member(&mut self, pointer: &str, key: &str, value: Json) -> bool {
        match self.at_mut(pointer) {
            Some(Json::Object(members)) => {
                members.push((key.to_owned(), value));
                true
            }
            _ => false,
        }
    }

    /// Repeats the member a pointer names right after itself; returns whether it was there.
    pub fn duplicate(&mut self, pointer: &str) -> bool {
        let Some((parent, key)) = split_last(pointer) else {
            return false;
        };
        match self.at_mut(&parent) {
            Some(Json::Object(members)) => {
                let Some(index) = members.iter().position(|(name, _)| *name == key) else {
                    return false;
                };
                let copy = members[index].clone();
                members.insert(index + 1, copy);
                true
            }
            _ => false,
        }
    }

    /// Every pointer in the tree whose value satisfies `pick`, in document order.
    pub fn pointers(&self, pick: &dyn Fn(&Json) -> bool) -> Vec<String> {
        let mut found = Vec::new();
        collect(self, String::new(), pick, &mut found);
        found
    }
}

fn collect(node: &Json, pointer: String, pick: &dyn Fn(&Json) -> bool, found: &mut Vec<String>) {
    if pick(node) {
        found.push(pointer.clone());
    }
    match node {
        Json::Array(items) => {
            for (index, item) in items.iter().enumerate() {
                collect(item, format!("{pointer}/{index}"), pick, found);
            }
        }
        Json::Object(members) => {
            for (key, value) in members {
                collect(value, join(&pointer, key), pick, found);
            }
        }
        _ => {}
    }
}

/// Appends one escaped token to a pointer (RFC 6901).
pub fn join(pointer: &str, token: &str) -> String {
    format!("{pointer}/{}", token.replace('~', "~0").replace('/', "~1"))
}

/// The unescaped tokens of a pointer; `None` when it is not a pointer.
pub fn tokens(pointer: &str) -> Option<Vec<String>> {
    if pointer.is_empty() {
        return Some(Vec::new());
    }
    let rest = pointer.strip_prefix('/')?;
    Some(
        rest.split('/')
            .map(|token| token.replace("~1", "/").replace("~0", "~"))
            .collect(),
    )
}

/// A pointer's parent pointer and last token.
pub fn split_last(pointer: &str) -> Option<(String, String)> {
    let at = pointer.rfind('/')?;
    let token = pointer[at + 1..].replace("~1", "/").replace("~0", "~");
    Some((pointer[..at].to_owned(), token))
}

/// How a tree is spelled: all styles of one tree denote the same JSON value.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Style {
    /// Indent nested values on their own lines.
    pub pretty: bool,
    /// Use CRLF for line breaks (pretty only).
    pub crlf: bool,
    /// Write every non-ASCII character (and some ASCII letters) as `\u` escapes.
    pub escape_unicode: bool,
    /// Escape `/` as `\/`.
    pub escape_solidus: bool,
    /// Spaces around `:` and after `,`.
    pub loose: bool,
    /// Whitespace before the first and after the last token.
    pub padded: bool,
}

impl Style {
    /// A style drawn from fuzz input.
    pub fn arbitrary(u: &mut Unstructured<'_>) -> arbitrary::Result<Style> {
        let bits: u8 = u.arbitrary()?;
        Ok(Style {
            pretty: bits & 1 != 0,
            crlf: bits & 2 != 0,
            escape_unicode: bits & 4 != 0,
            escape_solidus: bits & 8 != 0,
            loose: bits & 16 != 0,
            padded: bits & 32 != 0,
        })
    }
}

/// Serialises `value` in `style`; the text always ends with a newline.
pub fn write(value: &Json, style: Style) -> String {
    let mut out = String::new();
    if style.padded {
        out.push_str(" \t");
    }
    write_value(value, style, 0, &mut out);
    if style.padded {
        out.push_str("  ");
    }
    out.push_str(if style.crlf { "\r\n" } else { "\n" });
    out
}

fn newline(style: Style, depth: usize, out: &mut String) {
    if style.pretty {
        out.push_str(if style.crlf { "\r\n" } else { "\n" });
        for _ in 0..depth {
            out.push_str("  ");
        }
    }
}

fn write_value(value: &Json, style: Style, depth: usize, out: &mut String) {
    match value {
        Json::Null => out.push_str("null"),
        Json::Bool(true) => out.push_str("true"),
        Json::Bool(false) => out.push_str("false"),
        Json::Number(text) => out.push_str(text),
        Json::String(text) => write_string(text, style, out),
        Json::Array(items) => {
            out.push('[');
            for (index, item) in items.iter().enumerate() {
                if index > 0 {
                    out.push(',');
                    if style.loose && !style.pretty {
                        out.push(' ');
                    }
                }
                newline(style, depth + 1, out);
                write_value(item, style, depth + 1, out);
            }
            if !items.is_empty() {
                newline(style, depth, out);
            }
            out.push(']');
        }
        Json::Object(members) => {
            out.push('{');
            for (index, (key, item)) in members.iter().enumerate() {
                if index > 0 {
                    out.push(',');
                    if style.loose && !style.pretty {
                        out.push(' ');
                    }
                }
                newline(style, depth + 1, out);
                write_string(key, style, out);
                out.push_str(if style.loose { " : " } else { ":" });
                write_value(item, style, depth + 1, out);
            }
            if !members.is_empty() {
                newline(style, depth, out);
            }
            out.push('}');
        }
    }
}

/// Writes a JSON string literal: the required escapes always, the optional ones by style.
pub fn write_string(text: &str, style: Style, out: &mut String) {
    out.push('"');
    for c in text.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\t' => out.push_str("\\t"),
            '\r' => out.push_str("\\r"),
            '/' if style.escape_solidus => out.push_str("\\/"),
            c if (c as u32) < 0x20 => out.push_str(&format!("\\u{:04x}", c as u32)),
            // Escaping non-ASCII (as UTF-16 units, surrogate pairs for astral characters)
            // and every `e` exercises the reader's escape decoding on ordinary text.
            c if style.escape_unicode && (!c.is_ascii() || c == 'e') => {
                let mut units = [0u16; 2];
                for unit in c.encode_utf16(&mut units) {
                    out.push_str(&format!("\\u{unit:04X}"));
                }
            }
            c => out.push(c),
        }
    }
    out.push('"');
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn styles_denote_the_same_value() {
        let tree = Json::object(vec![
            ("a/b~", Json::strings(&["é🙂", "x/y\u{1}"])),
            ("n", Json::Number("1".into())),
            ("o", Json::Object(Vec::new())),
        ]);
        let plain: serde_json::Value =
            serde_json::from_str(&write(&tree, Style::default())).expect("valid");
        for bits in 0..64u8 {
            let style = Style::arbitrary(&mut Unstructured::new(&[bits])).expect("style");
            let text = write(&tree, style);
            let value: serde_json::Value = serde_json::from_str(&text).expect("valid");
            assert_eq!(value, plain, "{text}");
        }
        assert_eq!(
            tree.pointers(&|node| matches!(node, Json::String(_))).len(),
            2
        );
        assert!(tree.at("/a~1b~0/1").is_some());
    }

    #[test]
    fn edits() {
        let mut tree = Json::object(vec![("a", Json::Null), ("b", Json::Bool(true))]);
        assert!(tree.duplicate("/a"));
        assert_eq!(
            write(&tree, Style::default()),
            "{\"a\":null,\"a\":null,\"b\":true}\n"
        );
        assert!(tree.remove("/a"));
        assert!(!tree.remove("/a"));
        assert!(tree.push_member("", "c", Json::str("x")));
        assert_eq!(write(&tree, Style::default()), "{\"b\":true,\"c\":\"x\"}\n");
    }
}
