//! A JSON document as the case generators edit it: objects and arrays as a tree, every
//! scalar and every key kept as its exact source bytes.
//!
//! Corpus inputs are written byte by byte (escapes, odd numbers, even bytes that are not
//! JSON), so the tree never decodes a scalar: the reader only finds where each one starts
//! and ends, and the printer writes it back verbatim. The reader is lenient for the same
//! reason: a replacement value may be deliberately broken (`1.`, `NaN`, an unterminated
//! escape), and it only has to be delimited, not valid.

use std::fmt;

/// A value of the tree.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Node {
    /// An object; members keep their order, and a key may repeat.
    Object(Vec<Member>),
    /// An array.
    Array(Vec<Node>),
    /// Any other value (string, number, literal, or deliberately broken text), as bytes.
    Scalar(Vec<u8>),
}

/// One member of an object.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Member {
    /// The key as written, quotes and escapes included.
    pub key: Vec<u8>,
    /// The member's value.
    pub value: Node,
}

impl Member {
    /// The key after JSON unescaping, or its raw text between the quotes when it does not
    /// decode (a generator may write a broken key on purpose).
    pub fn name(&self) -> String {
        serde_json::from_slice::<String>(&self.key).unwrap_or_else(|_| {
            let inner = self
                .key
                .strip_prefix(b"\"")
                .and_then(|key| key.strip_suffix(b"\""))
                .unwrap_or(&self.key);
            String::from_utf8_lossy(inner).into_owned()
        })
    }
}

/// Why a text could not be read as a tree.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ReadError {
    /// Byte offset of the problem.
    pub offset: usize,
    /// What was expected there.
    pub expected: &'static str,
}

impl fmt::Display for ReadError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "expected {} at byte {}", self.expected, self.offset)
    }
}

impl std::error::Error for ReadError {}

/// Reads a whole text as one value, with only whitespace around it.
pub fn read(text: &[u8]) -> Result<Node, ReadError> {
    let mut reader = Reader { text, at: 0 };
    let node = reader.value()?;
    reader.skip_whitespace();
    if reader.at != text.len() {
        return Err(reader.error("the end of the text"));
    }
    Ok(node)
}

struct Reader<'a> {
    text: &'a [u8],
    at: usize,
}

impl Reader<'_> {
    fn error(&self, expected: &'static str) -> ReadError {
        ReadError {
            offset: self.at,
            expected,
        }
    }

    fn peek(&self) -> Option<u8> {
        self.text.get(self.at).copied()
    }

    fn skip_whitespace(&mut self) {
        while matches!(self.peek(), Some(b' ' | b'\t' | b'\n' | b'\r')) {
            self.at += 1;
        }
    }

    fn eat(&mut self, byte: u8) -> bool {
        self.skip_whitespace();
        if self.peek() == Some(byte) {
            self.at += 1;
            true
        } else {
            false
        }
    }

    fn value(&mut self) -> Result<Node, ReadError> {
        self.skip_whitespace();
        match self.peek() {
            Some(b'{') => {
                self.at += 1;
                let mut members = Vec::new();
                if self.eat(b'}') {
                    return Ok(Node::Object(members));
                }
                loop {
                    self.skip_whitespace();
                    if self.peek() != Some(b'"') {
                        return Err(self.error("a quoted key"));
                    }
                    let key = self.string();
                    if !self.eat(b':') {
                        return Err(self.error("`:`"));
                    }
                    let value = self.value()?;
                    members.push(Member { key, value });
                    if self.eat(b',') {
                        continue;
                    }
                    if self.eat(b'}') {
                        return Ok(Node::Object(members));
                    }
                    return Err(self.error("`,` or `}`"));
                }
            }
            Some(b'[') => {
                self.at += 1;
                let mut items = Vec::new();
                if self.eat(b']') {
                    return Ok(Node::Array(items));
                }
                loop {
                    items.push(self.value()?);
                    if self.eat(b',') {
                        continue;
                    }
                    if self.eat(b']') {
                        return Ok(Node::Array(items));
                    }
                    return Err(self.error("`,` or `]`"));
                }
            }
            Some(b'"') => Ok(Node::Scalar(self.string())),
            _ => {
                let start = self.at;
                while let Some(byte) = self.peek() {
                    if matches!(
                        byte,
                        b' ' | b'\t' | b'\n' | b'\r' | b',' | b':' | b']' | b'}'
                    ) {
                        break;
                    }
                    self.at += 1;
                }
                if self.at == start {
                    return Err(self.error("a value"));
                }
                Ok(Node::Scalar(self.text[start..self.at].to_vec()))
            }
        }
    }

    /// A string token from its opening quote to its closing one (or the end of the text,
    /// for a deliberately unterminated string), escapes skipped but not decoded.
    fn string(&mut self) -> Vec<u8> {
        let start = self.at;
        self.at += 1;
        while let Some(byte) = self.peek() {
            self.at += 1;
            match byte {
                b'\\' => self.at = (self.at + 1).min(self.text.len()),
                b'"' => break,
                _ => {}
            }
        }
        self.text[start..self.at].to_vec()
    }
}

/// How a tree is written out.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Layout {
    /// One level of indentation; `None` writes everything on one line without spaces.
    pub indent: Option<String>,
    /// The line break between lines.
    pub newline: String,
    /// Whether the text ends with a line break.
    pub final_newline: bool,
}

impl Default for Layout {
    /// The corpus's usual layout: two spaces, LF, a final newline.
    fn default() -> Self {
        Layout {
            indent: Some("  ".to_owned()),
            newline: "\n".to_owned(),
            final_newline: true,
        }
    }
}

/// Writes a tree out in a layout.
pub fn write(node: &Node, layout: &Layout) -> Vec<u8> {
    let mut out = Vec::new();
    write_node(node, layout, 0, &mut out);
    if layout.final_newline {
        out.extend_from_slice(layout.newline.as_bytes());
    }
    out
}

fn write_node(node: &Node, layout: &Layout, depth: usize, out: &mut Vec<u8>) {
    match node {
        Node::Scalar(bytes) => out.extend_from_slice(bytes),
        Node::Object(members) if members.is_empty() => out.extend_from_slice(b"{}"),
        Node::Array(items) if items.is_empty() => out.extend_from_slice(b"[]"),
        Node::Object(members) => {
            write_container(b'{', b'}', members, layout, depth, out, |member, out| {
                out.extend_from_slice(&member.key);
                out.extend_from_slice(if layout.indent.is_some() { b": " } else { b":" });
                write_node(&member.value, layout, depth + 1, out);
            })
        }
        Node::Array(items) => {
            write_container(b'[', b']', items, layout, depth, out, |item, out| {
                write_node(item, layout, depth + 1, out)
            })
        }
    }
}

fn write_container<T>(
    open: u8,
    close: u8,
    entries: &[T],
    layout: &Layout,
    depth: usize,
    out: &mut Vec<u8>,
    mut entry: impl FnMut(&T, &mut Vec<u8>),
) {
    out.push(open);
    for (index, item) in entries.iter().enumerate() {
        if index > 0 {
            out.push(b',');
        }
        if let Some(indent) = &layout.indent {
            out.extend_from_slice(layout.newline.as_bytes());
            out.extend_from_slice(indent.repeat(depth + 1).as_bytes());
        }
        entry(item, out);
    }
    if let Some(indent) = &layout.indent {
        out.extend_from_slice(layout.newline.as_bytes());
        out.extend_from_slice(indent.repeat(depth).as_bytes());
    }
    out.push(close);
}

/// A JSON pointer (RFC 6901) split into its unescaped reference tokens.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Pointer {
    /// The pointer as written.
    pub text: String,
    /// Its tokens; empty for the whole document.
    pub tokens: Vec<String>,
}

impl Pointer {
    /// Parses a pointer: empty, or `/`-separated tokens with `~1` for `/` and `~0` for `~`.
    pub fn parse(text: &str) -> Result<Pointer, String> {
        if text.is_empty() {
            return Ok(Pointer {
                text: String::new(),
                tokens: Vec::new(),
            });
        }
        let Some(rest) = text.strip_prefix('/') else {
            return Err(format!("pointer `{text}` must be empty or start with `/`"));
        };
        let tokens = rest
            .split('/')
            .map(|token| token.replace("~1", "/").replace("~0", "~"))
            .collect();
        Ok(Pointer {
            text: text.to_owned(),
            tokens,
        })
    }

    /// The pointer of the containing value and the last token, or `None` for the root.
    pub fn split_last(&self) -> Option<(Pointer, &str)> {
        let (last, parent) = self.tokens.split_last()?;
        let cut = self.text.rfind('/').unwrap_or(0);
        Some((
            Pointer {
                text: self.text[..cut].to_owned(),
                tokens: parent.to_vec(),
            },
            last,
        ))
    }
}

impl fmt::Display for Pointer {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "`{}`", self.text)
    }
}

/// The value a pointer names, for editing. In an object, a repeated key names its first
/// occurrence.
pub fn find_mut<'a>(node: &'a mut Node, pointer: &Pointer) -> Result<&'a mut Node, String> {
    let mut current = node;
    for token in &pointer.tokens {
        current = match current {
            Node::Object(members) => members
                .iter_mut()
                .find(|member| member.name() == *token)
                .map(|member| &mut member.value),
            Node::Array(items) => token
                .parse::<usize>()
                .ok()
                .and_then(|index| items.get_mut(index)),
            Node::Scalar(_) => None,
        }
        .ok_or_else(|| format!("nothing at {pointer} (no `{token}`)"))?;
    }
    Ok(current)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_pretty_document_reads_and_writes_back_unchanged() {
        let text = b"{\n  \"a\": [\n    1,\n    \"x\\\"y\"\n  ],\n  \"b\": {},\n  \"c\": []\n}\n";
        let node = read(text).unwrap();
        assert_eq!(write(&node, &Layout::default()), text);
    }

    #[test]
    fn the_compact_layout_has_no_whitespace() {
        let node = read(b"{ \"a\": [1, 2], \"b\": {\"c\": null} }").unwrap();
        let compact = Layout {
            indent: None,
            newline: "\n".to_owned(),
            final_newline: false,
        };
        assert_eq!(write(&node, &compact), b"{\"a\":[1,2],\"b\":{\"c\":null}}");
    }

    #[test]
    fn broken_scalars_are_kept_as_written() {
        let node = read(b"[1., NaN, \"\\u00e \", true1]").unwrap();
        let Node::Array(items) = node else { panic!() };
        assert_eq!(items[0], Node::Scalar(b"1.".to_vec()));
        assert_eq!(items[2], Node::Scalar(b"\"\\u00e \"".to_vec()));
    }

    #[test]
    fn pointers_unescape_and_find_escaped_keys() {
        let mut node = read(b"{\"a/b\": {\"\\u0063\": 1}}").unwrap();
        let pointer = Pointer::parse("/a~1b/c").unwrap();
        assert_eq!(pointer.tokens, ["a/b", "c"]);
        assert_eq!(
            find_mut(&mut node, &pointer).unwrap(),
            &Node::Scalar(b"1".to_vec())
        );
        let (parent, last) = pointer.split_last().unwrap();
        assert_eq!((parent.text.as_str(), last), ("/a~1b", "c"));
    }
}
