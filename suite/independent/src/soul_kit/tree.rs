//! The JSON tree of a kit as serde_json reads it, keeping what a map would lose: every
//! member of an object, in order, a repeated key included, because "duplicate keys are
//! invalid" (strings paragraph) and a reader that collects members into a map never sees
//! the repetition.

use std::collections::HashSet;

use serde::de::{self, Deserialize, Deserializer, MapAccess, SeqAccess, Visitor};
use serde_json::Number;

use super::read::Document;
use super::report::{index_pointer, member_pointer, Report};
use super::{raw, Planted};

/// One JSON value.
#[derive(Debug, Clone)]
pub enum Node {
    /// `null`.
    Null,
    /// `true` or `false` (which one matters to no rule).
    Bool,
    /// A number, as serde_json reads it (its spelling is in [`raw`]).
    Number(Number),
    /// A string, escapes decoded.
    String(String),
    /// An array.
    Array(Vec<Node>),
    /// An object: its members in document order, repetitions included.
    Object(Vec<Member>),
}

/// One member of an object.
#[derive(Debug, Clone)]
pub struct Member {
    /// The key, escapes decoded.
    pub key: String,
    /// The value.
    pub value: Node,
}

impl Node {
    /// The name of the value's JSON type, for messages.
    pub fn kind(&self) -> &'static str {
        match self {
            Node::Null => "null",
            Node::Bool => "a boolean",
            Node::Number(_) => "a number",
            Node::String(_) => "a string",
            Node::Array(_) => "an array",
            Node::Object(_) => "an object",
        }
    }
}

impl<'de> Deserialize<'de> for Node {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Node, D::Error> {
        // serde_json counts the nesting of arrays and objects here and stops at its
        // recursion limit (128), so neither reading nor dropping the tree recurses without
        // bound.
        deserializer.deserialize_any(NodeVisitor)
    }
}

/// Builds a [`Node`] from whatever serde_json reads.
struct NodeVisitor;

impl<'de> Visitor<'de> for NodeVisitor {
    type Value = Node;

    fn expecting(&self, formatter: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        formatter.write_str("a JSON value")
    }

    fn visit_bool<E: de::Error>(self, _value: bool) -> Result<Node, E> {
        Ok(Node::Bool)
    }

    fn visit_i64<E: de::Error>(self, value: i64) -> Result<Node, E> {
        Ok(Node::Number(value.into()))
    }

    fn visit_u64<E: de::Error>(self, value: u64) -> Result<Node, E> {
        Ok(Node::Number(value.into()))
    }

    fn visit_f64<E: de::Error>(self, value: f64) -> Result<Node, E> {
        // serde_json never hands over a NaN or an infinity (it refuses numbers out of
        // range), so the conversion does not fail; were it to, the value is still some
        // number other than 1.
        Ok(Number::from_f64(value).map_or(Node::Number(0.into()), Node::Number))
    }

    fn visit_str<E: de::Error>(self, value: &str) -> Result<Node, E> {
        Ok(Node::String(value.to_owned()))
    }

    fn visit_string<E: de::Error>(self, value: String) -> Result<Node, E> {
        Ok(Node::String(value))
    }

    fn visit_unit<E: de::Error>(self) -> Result<Node, E> {
        Ok(Node::Null)
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Node, A::Error> {
        let mut items = Vec::new();
        while let Some(item) = seq.next_element::<Node>()? {
            items.push(item);
        }
        Ok(Node::Array(items))
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Node, A::Error> {
        let mut members = Vec::new();
        while let Some(key) = map.next_key::<String>()? {
            let value = map.next_value::<Node>()?;
            members.push(Member { key, value });
        }
        Ok(Node::Object(members))
    }
}

/// soul-kit.json.duplicate-key ("All objects are closed: unknown properties and duplicate
/// keys are invalid"): no object, at any depth (inside an unknown member too), has two
/// members with the same key once escapes are decoded; each repetition is reported.
pub fn check_duplicate_keys(document: &Document, report: &mut Report<'_>) {
    if report.planted(Planted::DuplicateKeysIgnored) {
        return;
    }
    if report.planted(Planted::DuplicateKeysComparedRaw) {
        check_raw_duplicate_keys(&document.text, report);
        return;
    }
    let root_only = report.planted(Planted::DuplicateKeysRootOnly);
    walk_objects(&document.root, &mut Vec::new(), root_only, report);
}

/// One step of a path from the root, turned into a pointer only when a problem is listed
/// (building every node's pointer would cost the sum of all path lengths).
enum Step<'n> {
    Key(&'n str),
    Index(usize),
}

/// The pointer of a path.
fn pointer_of(path: &[Step<'_>]) -> String {
    path.iter().fold(String::new(), |pointer, step| match step {
        Step::Key(key) => member_pointer(&pointer, key),
        Step::Index(index) => index_pointer(&pointer, *index),
    })
}

/// Checks every object under `node`. It recurses, but no deeper than serde_json's
/// recursion limit let the tree be built.
fn walk_objects<'n>(
    node: &'n Node,
    path: &mut Vec<Step<'n>>,
    root_only: bool,
    report: &mut Report<'_>,
) {
    match node {
        Node::Object(members) => {
            let mut seen = HashSet::new();
            for member in members {
                if !seen.insert(member.key.as_str()) {
                    let pointer = if report.has_room() {
                        path.push(Step::Key(&member.key));
                        let pointer = pointer_of(path);
                        path.pop();
                        pointer
                    } else {
                        String::new()
                    };
                    report.error(
                        "soul-kit.json.duplicate-key",
                        &pointer,
                        "the key appears more than once in this object",
                    );
                }
            }
            if root_only {
                return;
            }
            for member in members {
                path.push(Step::Key(&member.key));
                walk_objects(&member.value, path, root_only, report);
                path.pop();
            }
        }
        Node::Array(items) if !root_only => {
            for (index, item) in items.iter().enumerate() {
                path.push(Step::Index(index));
                walk_objects(item, path, root_only, report);
                path.pop();
            }
        }
        _ => {}
    }
}

/// The planted mistake: keys compared as the JSON text spells them.
fn check_raw_duplicate_keys(text: &str, report: &mut Report<'_>) {
    for object in raw::objects(text) {
        let mut seen = HashSet::new();
        for member in &object.members {
            if !seen.insert(member.key) {
                report.error(
                    "soul-kit.json.duplicate-key",
                    "",
                    format!(
                        "the key `{}` appears more than once in an object",
                        member.key
                    ),
                );
            }
        }
    }
}
