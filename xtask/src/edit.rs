//! Edits that turn a family's base document into one case's input.
//!
//! Tree edits (`at`/`value`, `remove`, `add`, `rename`, `resize`) work on the parsed base
//! and name what they change by JSON pointer; the tree is then written out in the base's
//! layout. Text edits (`replace`, `prepend`, `append`, `truncate_after`) work on the bytes
//! written out, for inputs a tree cannot hold (a missing comma, a comment, trailing data).
//! Tree edits come first, text edits after them, each group in the order listed.

use serde::Deserialize;

use crate::document::{self, Layout, Member, Node, Pointer};

/// Bytes as a family file writes them: a string, or, for bytes that are not UTF-8, an
/// array of strings, byte values and such arrays (`['"caf', 0xE9, '"']`).
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Bytes(pub Vec<u8>);

/// The written forms of [`Bytes`].
#[derive(Deserialize)]
#[serde(untagged)]
enum Written {
    Text(String),
    Byte(u8),
    Parts(Vec<Written>),
}

impl Written {
    fn append_to(self, bytes: &mut Vec<u8>) {
        match self {
            Written::Text(text) => bytes.extend_from_slice(text.as_bytes()),
            Written::Byte(byte) => bytes.push(byte),
            Written::Parts(parts) => parts.into_iter().for_each(|part| part.append_to(bytes)),
        }
    }
}

impl<'de> Deserialize<'de> for Bytes {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let mut bytes = Vec::new();
        match Written::deserialize(deserializer)? {
            Written::Byte(_) => {
                return Err(serde::de::Error::custom(
                    "bytes are a string or an array of strings and byte values",
                ))
            }
            written => written.append_to(&mut bytes),
        }
        Ok(Bytes(bytes))
    }
}

/// A new value as a family file writes it.
#[derive(Debug, Clone, Deserialize)]
#[serde(untagged)]
pub enum ValueSpec {
    /// JSON text: read leniently, scalars kept as written, objects and arrays laid out
    /// like the rest of the document.
    Text(Bytes),
    /// A value too long or too repetitive to write out, described by a [`Builder`].
    Built(Builder),
}

/// Values too long or too repetitive to write out.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Builder {
    /// Text written exactly as given, never laid out (a one-line nested array, say).
    #[serde(default)]
    pub raw: Option<Bytes>,
    /// A string of exactly this many characters (Unicode scalar values): the unit
    /// repeated and cut, with a final space turned into `.` so no string ends in a space.
    #[serde(default)]
    pub fill: Option<usize>,
    /// The repeated text of `fill`; the family's `filler` by default. In `items`, `{n}`
    /// stands for the item's 1-based number.
    #[serde(default)]
    pub unit: Option<String>,
    /// An array of this many `fill` strings.
    #[serde(default)]
    pub items: Option<usize>,
    /// A string whose content is `unit` written this many times, as JSON text (so
    /// `{ repeat = 80, unit = '\u00e9' }` is 80 escapes).
    #[serde(default)]
    pub repeat: Option<usize>,
    /// This many arrays nested in one another, on one line, around `inner`.
    #[serde(default)]
    pub nest: Option<usize>,
    /// The innermost value of `nest`, as JSON text.
    #[serde(default)]
    pub inner: Option<String>,
}

impl ValueSpec {
    /// The tree node the value stands for.
    pub fn build(&self, filler: &str) -> Result<Node, String> {
        match self {
            ValueSpec::Text(Bytes(text)) => document::read(text).map_err(|error| {
                format!(
                    "value {:?} does not read as JSON ({error}); write it as {{ raw = ... }}",
                    String::from_utf8_lossy(text)
                )
            }),
            ValueSpec::Built(builder) => builder.build(filler),
        }
    }
}

impl Builder {
    fn build(&self, filler: &str) -> Result<Node, String> {
        let unit = self.unit.as_deref().unwrap_or(filler);
        let has_unit = self.unit.is_some();
        match (&self.raw, self.fill, self.items, self.repeat, self.nest) {
            (Some(Bytes(raw)), None, None, None, None) if !has_unit => {
                Ok(Node::Scalar(raw.clone()))
            }
            (None, Some(chars), None, None, None) => Ok(string_node(&fill(unit, chars))),
            (None, Some(chars), Some(count), None, None) => Ok(Node::Array(
                (1..=count)
                    .map(|n| string_node(&fill(&unit.replace("{n}", &n.to_string()), chars)))
                    .collect(),
            )),
            (None, None, None, Some(count), None) if has_unit => {
                Ok(Node::Scalar(format!("\"{}\"", unit.repeat(count)).into_bytes()))
            }
            (None, None, None, None, Some(depth)) if !has_unit => {
                let inner = self.inner.as_deref().ok_or("`nest` needs `inner`")?;
                Ok(Node::Scalar(
                    format!("{}{inner}{}", "[".repeat(depth), "]".repeat(depth)).into_bytes(),
                ))
            }
            _ => Err("a built value is { raw }, { fill, unit? }, { items, fill, unit? }, { repeat, unit } or { nest, inner }".to_owned()),
        }
    }
}

/// `chars` characters of `unit` repeated; a final space becomes `.`, because a string
/// ending in a space would test trailing whitespace as well as the length.
pub fn fill(unit: &str, chars: usize) -> String {
    let mut text: String = unit.chars().cycle().take(chars).collect();
    if text.ends_with(' ') {
        text.pop();
        text.push('.');
    }
    text
}

/// A JSON string of `text`, escaping only what JSON requires of printable text.
pub fn string_node(text: &str) -> Node {
    let mut bytes = Vec::with_capacity(text.len() + 2);
    bytes.push(b'"');
    for byte in text.bytes() {
        if matches!(byte, b'"' | b'\\') {
            bytes.push(b'\\');
        }
        bytes.push(byte);
    }
    bytes.push(b'"');
    Node::Scalar(bytes)
}

/// One edit as a family file writes it; exactly one of the first keys names its kind.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct EditSpec {
    /// Replace the value at this pointer (`""`: the whole document) with `value`.
    #[serde(default)]
    pub at: Option<String>,
    /// Remove the member or item at this pointer.
    #[serde(default)]
    pub remove: Option<String>,
    /// Add a member (or an array item, `-` appending) at this pointer, holding `value`.
    /// A member goes after the last member of the same name, else at the end, unless
    /// `after` or `before` names its neighbour.
    #[serde(default)]
    pub add: Option<String>,
    /// Give the member at this pointer the key `key`.
    #[serde(default)]
    pub rename: Option<String>,
    /// Make the array at this pointer `count` items long by repeating its items in turn,
    /// prefixing the string at `label` in each item with `prefix` (`{n}`: its number).
    #[serde(default)]
    pub resize: Option<String>,
    /// Replace this text, which must occur exactly once in the written document, by `with`.
    #[serde(default)]
    pub replace: Option<Bytes>,
    /// Put these bytes before the document.
    #[serde(default)]
    pub prepend: Option<Bytes>,
    /// Put these bytes after the document.
    #[serde(default)]
    pub append: Option<Bytes>,
    /// End the document right after this text, which must occur exactly once.
    #[serde(default)]
    pub truncate_after: Option<Bytes>,
    /// The new value of `at` and `add`.
    #[serde(default)]
    pub value: Option<ValueSpec>,
    /// The key of `add` and `rename`, as written with its quotes; by default the last
    /// pointer token, quoted.
    #[serde(default)]
    pub key: Option<Bytes>,
    /// For `add`: the name of the member the new one follows.
    #[serde(default)]
    pub after: Option<String>,
    /// For `add`: the name of the member the new one precedes.
    #[serde(default)]
    pub before: Option<String>,
    /// For `resize`: the new length.
    #[serde(default)]
    pub count: Option<usize>,
    /// For `resize`: the pointer, inside each item, of the string to prefix.
    #[serde(default)]
    pub label: Option<String>,
    /// For `resize`: the prefix.
    #[serde(default)]
    pub prefix: Option<String>,
    /// For `replace`: the replacement.
    #[serde(default)]
    pub with: Option<Bytes>,
}

/// One edit, ready to apply.
#[derive(Debug, Clone)]
pub enum Edit {
    /// Replace a value.
    Set {
        /// What to replace.
        at: Pointer,
        /// The new value.
        value: Node,
    },
    /// Remove a member or item.
    Remove {
        /// What to remove.
        at: Pointer,
    },
    /// Add a member or item.
    Add {
        /// Where the new member or item goes.
        at: Pointer,
        /// The key as written, for a member.
        key: Option<Vec<u8>>,
        /// The new value.
        value: Node,
        /// The neighbour of the new member: `(name, after)`.
        beside: Option<(String, bool)>,
    },
    /// Change a member's key.
    Rename {
        /// The member.
        at: Pointer,
        /// Its new key, as written.
        key: Vec<u8>,
    },
    /// Repeat an array's items to a length, labelling each.
    Resize {
        /// The array.
        at: Pointer,
        /// The new length.
        count: usize,
        /// The string to prefix inside each item, and the prefix.
        label: Option<(Pointer, String)>,
    },
    /// Replace text.
    Replace {
        /// The text, found exactly once.
        find: Vec<u8>,
        /// Its replacement.
        with: Vec<u8>,
    },
    /// Put bytes before the document.
    Prepend(Vec<u8>),
    /// Put bytes after the document.
    Append(Vec<u8>),
    /// Cut the document after a text.
    TruncateAfter(Vec<u8>),
}

impl EditSpec {
    /// Whether no key is set, so there is no edit here.
    pub fn is_empty(&self) -> bool {
        self.kinds().is_empty() && self.value.is_none() && self.key.is_none() && self.with.is_none()
    }

    fn kinds(&self) -> Vec<&'static str> {
        [
            ("at", self.at.is_some()),
            ("remove", self.remove.is_some()),
            ("add", self.add.is_some()),
            ("rename", self.rename.is_some()),
            ("resize", self.resize.is_some()),
            ("replace", self.replace.is_some()),
            ("prepend", self.prepend.is_some()),
            ("append", self.append.is_some()),
            ("truncate_after", self.truncate_after.is_some()),
        ]
        .into_iter()
        .filter_map(|(name, present)| present.then_some(name))
        .collect()
    }

    /// Checks the combination of keys and builds the edit.
    pub fn build(&self, filler: &str) -> Result<Edit, String> {
        let kinds = self.kinds();
        let [kind] = kinds[..] else {
            return Err(format!(
                "an edit needs exactly one of at, remove, add, rename, resize, replace, prepend, append, truncate_after; found {kinds:?}"
            ));
        };
        let allowed: &[&str] = match kind {
            "at" => &["value"],
            "add" => &["value", "key", "after", "before"],
            "rename" => &["key"],
            "resize" => &["count", "label", "prefix"],
            "replace" => &["with"],
            _ => &[],
        };
        let extras = [
            ("value", self.value.is_some()),
            ("key", self.key.is_some()),
            ("after", self.after.is_some()),
            ("before", self.before.is_some()),
            ("count", self.count.is_some()),
            ("label", self.label.is_some()),
            ("prefix", self.prefix.is_some()),
            ("with", self.with.is_some()),
        ];
        if let Some((extra, _)) = extras
            .iter()
            .find(|(name, present)| *present && !allowed.contains(name))
        {
            return Err(format!("`{extra}` does not belong to a `{kind}` edit"));
        }
        let pointer = |text: &Option<String>| Pointer::parse(text.as_deref().unwrap_or_default());
        let value = || -> Result<Node, String> {
            self.value
                .as_ref()
                .ok_or_else(|| format!("a `{kind}` edit needs `value`"))?
                .build(filler)
        };
        Ok(match kind {
            "at" => Edit::Set {
                at: pointer(&self.at)?,
                value: value()?,
            },
            "remove" => Edit::Remove {
                at: pointer(&self.remove)?,
            },
            "add" => Edit::Add {
                at: pointer(&self.add)?,
                key: self.key.clone().map(|key| key.0),
                value: value()?,
                beside: match (&self.after, &self.before) {
                    (Some(name), None) => Some((name.clone(), true)),
                    (None, Some(name)) => Some((name.clone(), false)),
                    (None, None) => None,
                    _ => return Err("`after` and `before` exclude each other".to_owned()),
                },
            },
            "rename" => Edit::Rename {
                at: pointer(&self.rename)?,
                key: self.key.clone().ok_or("a `rename` edit needs `key`")?.0,
            },
            "resize" => Edit::Resize {
                at: pointer(&self.resize)?,
                count: self.count.ok_or("a `resize` edit needs `count`")?,
                label: match (&self.label, &self.prefix) {
                    (Some(label), Some(prefix)) => Some((Pointer::parse(label)?, prefix.clone())),
                    (None, None) => None,
                    _ => return Err("`label` and `prefix` go together".to_owned()),
                },
            },
            "replace" => Edit::Replace {
                find: self.replace.clone().unwrap_or_default().0,
                with: self.with.clone().ok_or("a `replace` edit needs `with`")?.0,
            },
            "prepend" => Edit::Prepend(self.prepend.clone().unwrap_or_default().0),
            "append" => Edit::Append(self.append.clone().unwrap_or_default().0),
            _ => Edit::TruncateAfter(self.truncate_after.clone().unwrap_or_default().0),
        })
    }
}

impl Edit {
    /// Whether the edit works on the written bytes rather than the tree.
    pub fn is_text(&self) -> bool {
        matches!(
            self,
            Edit::Replace { .. } | Edit::Prepend(_) | Edit::Append(_) | Edit::TruncateAfter(_)
        )
    }

    /// The pointer the edit changes, for a tree edit.
    pub fn pointer(&self) -> Option<&Pointer> {
        match self {
            Edit::Set { at, .. }
            | Edit::Remove { at }
            | Edit::Add { at, .. }
            | Edit::Rename { at, .. }
            | Edit::Resize { at, .. } => Some(at),
            _ => None,
        }
    }
}

/// Builds an input: the base with the edits applied. The base is only re-read and
/// re-written when a tree edit or another layout asks for it, so text-only edits never
/// depend on the printer.
pub fn apply(base: &[u8], edits: &[Edit], layout: Option<&Layout>) -> Result<Vec<u8>, String> {
    let split = edits.iter().position(Edit::is_text).unwrap_or(edits.len());
    let (tree_edits, text_edits) = edits.split_at(split);
    if text_edits.iter().any(|edit| !edit.is_text()) {
        return Err(
            "tree edits (at, remove, add, rename, resize) must come before text edits".to_owned(),
        );
    }
    let mut bytes = if tree_edits.is_empty() && layout.is_none() {
        base.to_vec()
    } else {
        let mut tree = document::read(base).map_err(|error| format!("base: {error}"))?;
        for edit in tree_edits {
            apply_to_tree(&mut tree, edit)?;
        }
        document::write(&tree, layout.unwrap_or(&Layout::default()))
    };
    for edit in text_edits {
        bytes = apply_to_text(bytes, edit)?;
    }
    Ok(bytes)
}

fn parent_of<'a>(tree: &'a mut Node, at: &Pointer) -> Result<(&'a mut Node, String), String> {
    let (parent, last) = at
        .split_last()
        .ok_or_else(|| format!("{at} names the whole document, which has no parent"))?;
    let last = last.to_owned();
    Ok((document::find_mut(tree, &parent)?, last))
}

fn member_index(members: &[Member], name: &str, at: &Pointer) -> Result<usize, String> {
    members
        .iter()
        .position(|member| member.name() == name)
        .ok_or_else(|| format!("no member `{name}` for {at}"))
}

fn apply_to_tree(tree: &mut Node, edit: &Edit) -> Result<(), String> {
    match edit {
        Edit::Set { at, value } => *document::find_mut(tree, at)? = value.clone(),
        Edit::Remove { at } => match parent_of(tree, at)? {
            (Node::Object(members), name) => {
                let index = member_index(members, &name, at)?;
                members.remove(index);
            }
            (Node::Array(items), token) => {
                let index = token
                    .parse::<usize>()
                    .ok()
                    .filter(|index| *index < items.len())
                    .ok_or_else(|| format!("no item at {at}"))?;
                items.remove(index);
            }
            _ => return Err(format!("{at} is inside a scalar")),
        },
        Edit::Add {
            at,
            key,
            value,
            beside,
        } => match parent_of(tree, at)? {
            (Node::Object(members), name) => {
                let index = match beside {
                    Some((neighbour, after)) => {
                        member_index(members, neighbour, at)? + usize::from(*after)
                    }
                    None => members
                        .iter()
                        .rposition(|member| member.name() == name)
                        .map_or(members.len(), |index| index + 1),
                };
                let key = match key {
                    Some(key) => key.clone(),
                    None => match string_node(&name) {
                        Node::Scalar(bytes) => bytes,
                        _ => unreachable!("a string node is a scalar"),
                    },
                };
                members.insert(
                    index,
                    Member {
                        key,
                        value: value.clone(),
                    },
                );
            }
            (Node::Array(items), token) => {
                let index = match token.as_str() {
                    "-" => items.len(),
                    token => token
                        .parse::<usize>()
                        .ok()
                        .filter(|index| *index <= items.len())
                        .ok_or_else(|| format!("cannot insert at {at}"))?,
                };
                items.insert(index, value.clone());
            }
            _ => return Err(format!("{at} is inside a scalar")),
        },
        Edit::Rename { at, key } => match parent_of(tree, at)? {
            (Node::Object(members), name) => {
                let index = member_index(members, &name, at)?;
                members[index].key = key.clone();
            }
            _ => return Err(format!("{at} is not an object member")),
        },
        Edit::Resize { at, count, label } => {
            let Node::Array(items) = document::find_mut(tree, at)? else {
                return Err(format!("{at} is not an array"));
            };
            if items.is_empty() {
                return Err(format!("{at} is empty: there is nothing to repeat"));
            }
            let mut resized: Vec<Node> = items.iter().cycle().take(*count).cloned().collect();
            if let Some((label, prefix)) = label {
                for (index, item) in resized.iter_mut().enumerate() {
                    let Node::Scalar(text) = document::find_mut(item, label)? else {
                        return Err(format!("{label} in {at} is not a string"));
                    };
                    let prefix = prefix.replace("{n}", &(index + 1).to_string());
                    text.splice(1..1, prefix.bytes());
                }
            }
            *items = resized;
        }
        _ => unreachable!("text edits are applied to bytes"),
    }
    Ok(())
}

fn find_once(bytes: &[u8], text: &[u8]) -> Result<usize, String> {
    let mut found = bytes
        .windows(text.len().max(1))
        .enumerate()
        .filter(|(_, window)| *window == text)
        .map(|(index, _)| index);
    match (found.next(), found.next()) {
        (Some(index), None) => Ok(index),
        (None, _) => Err(format!(
            "text {:?} does not occur in the document",
            String::from_utf8_lossy(text)
        )),
        (Some(_), Some(_)) => Err(format!(
            "text {:?} occurs more than once in the document; quote more of it",
            String::from_utf8_lossy(text)
        )),
    }
}

fn apply_to_text(mut bytes: Vec<u8>, edit: &Edit) -> Result<Vec<u8>, String> {
    match edit {
        Edit::Replace { find, with } => {
            let at = find_once(&bytes, find)?;
            bytes.splice(at..at + find.len(), with.iter().copied());
        }
        Edit::Prepend(prefix) => {
            bytes.splice(0..0, prefix.iter().copied());
        }
        Edit::Append(suffix) => bytes.extend_from_slice(suffix),
        Edit::TruncateAfter(text) => {
            let at = find_once(&bytes, text)?;
            bytes.truncate(at + text.len());
        }
        _ => unreachable!("tree edits are applied to the tree"),
    }
    Ok(bytes)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fill_cuts_the_unit_and_never_ends_in_a_space() {
        assert_eq!(fill("ab ", 5), "ab ab");
        assert_eq!(fill("ab ", 6), "ab ab.");
        assert_eq!(fill("é", 3), "ééé");
    }

    #[test]
    fn added_members_follow_their_namesake() {
        let base = b"{\n  \"a\": 1,\n  \"b\": 2\n}\n";
        let add = Edit::Add {
            at: Pointer::parse("/a").unwrap(),
            key: None,
            value: Node::Scalar(b"3".to_vec()),
            beside: None,
        };
        assert_eq!(
            apply(base, &[add], None).unwrap(),
            b"{\n  \"a\": 1,\n  \"a\": 3,\n  \"b\": 2\n}\n"
        );
    }

    #[test]
    fn text_edits_need_a_unique_match() {
        let replace = Edit::Replace {
            find: b"1".to_vec(),
            with: b"2".to_vec(),
        };
        assert!(apply(b"[1, 1]", &[replace], None).is_err());
    }
}
