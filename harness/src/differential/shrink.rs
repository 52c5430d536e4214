//! Shrinking a finding to a small input that still disagrees the same way, in two stages:
//!
//! 1. [`choices`]: the fuzz input a generator read its choices from. Removing chunks of it
//!    and zeroing bytes makes the generator take its first alternatives (fewer items,
//!    plainer characters, no mutation beyond the one that matters) while every candidate
//!    stays a document the generator could build, so this stage simplifies the structure
//!    without breaking the syntax.
//! 2. [`json`], when the document is JSON: its values, each member and item removed on
//!    its own (the innermost first, so every removal leaves the others' places intact)
//!    and each string value cut short. Keys are never edited, so they stay distinct.
//! 3. [`document`]: the document's own bytes: first its largest tokens on their own (a
//!    long string's text goes in one trial even where most cuts break the syntax), then
//!    delta debugging over lines, then tokens (runs of letters and digits, and single
//!    punctuation bytes), then characters (a UTF-8 sequence, or one byte that is not part
//!    of one), then single bytes when the text is not UTF-8. Each level removes the
//!    largest chunks first and halves their size until no single unit can go.
//!
//! Every candidate costs one trial of the caller's predicate, which runs the oracle and the
//! validator; a [`Budget`] bounds the trials of one finding, and may end it at a deadline.
//! Every stage is deterministic: the same finding and trial budget give the same shrunk
//! input (a deadline can only end it sooner).

use std::cell::Cell;
use std::time::Instant;

/// The trials a shrink may spend (one trial: the oracle and the validator on one
/// candidate). The predicate spends them; the shrinkers stop when none is left.
#[derive(Debug)]
pub struct Budget {
    limit: usize,
    spent: Cell<usize>,
    until: Option<Instant>,
}

impl Budget {
    /// A budget of `limit` trials.
    pub fn new(limit: usize) -> Budget {
        Budget {
            limit,
            spent: Cell::new(0),
            until: None,
        }
    }

    /// The same budget, also used up at `until` (when given).
    pub fn until(self, until: Option<Instant>) -> Budget {
        Budget { until, ..self }
    }

    /// Spends one trial; false when none was left (the trial must not run).
    pub fn spend(&self) -> bool {
        if self.exhausted() {
            return false;
        }
        self.spent.set(self.spent.get() + 1);
        true
    }

    /// Whether every trial is spent, or the deadline has passed.
    pub fn exhausted(&self) -> bool {
        self.spent.get() >= self.limit || self.until.is_some_and(|until| Instant::now() >= until)
    }

    /// Trials spent so far.
    pub fn spent(&self) -> usize {
        self.spent.get()
    }
}

/// Shrinks a generator's fuzz input: removes chunks, then zeroes chunks, keeping each
/// change for which `still` holds. `still` decides whether a candidate input still builds
/// a document that disagrees the same way; it should spend from `budget` for each trial
/// it runs.
pub fn choices(data: &[u8], budget: &Budget, still: &mut dyn FnMut(&[u8]) -> bool) -> Vec<u8> {
    let units: Vec<Vec<u8>> = data.iter().map(|&byte| vec![byte]).collect();
    let mut data = remove_chunks(units, budget, still).concat();
    // Zeroed choices are a generator's first alternatives: the bounds, the first item of
    // every palette.
    let mut size = (data.len() / 2).max(1);
    while !data.is_empty() && !budget.exhausted() {
        let mut start = 0;
        while start < data.len() && !budget.exhausted() {
            let end = (start + size).min(data.len());
            if data[start..end].iter().any(|&byte| byte != 0) {
                let mut candidate = data.clone();
                candidate[start..end].fill(0);
                if still(&candidate) {
                    data = candidate;
                }
            }
            start = end;
        }
        if size == 1 {
            break;
        }
        size /= 2;
    }
    data
}

/// A JSON value as written, with every member of an object in order and a repeated key
/// kept: serde_json's `Value` keeps one member per key, and a repeated key may be the very
/// question a finding asks.
#[derive(Debug, Clone, PartialEq)]
enum Node {
    Null,
    Bool(bool),
    Number(serde_json::Number),
    String(String),
    Array(Vec<Node>),
    Object(Vec<(String, Node)>),
}

impl<'de> serde::Deserialize<'de> for Node {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Node, D::Error> {
        struct Visitor;
        impl<'de> serde::de::Visitor<'de> for Visitor {
            type Value = Node;
            fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str("a JSON value")
            }
            fn visit_unit<E>(self) -> Result<Node, E> {
                Ok(Node::Null)
            }
            fn visit_bool<E>(self, value: bool) -> Result<Node, E> {
                Ok(Node::Bool(value))
            }
            fn visit_i64<E>(self, value: i64) -> Result<Node, E> {
                Ok(Node::Number(value.into()))
            }
            fn visit_u64<E>(self, value: u64) -> Result<Node, E> {
                Ok(Node::Number(value.into()))
            }
            fn visit_f64<E: serde::de::Error>(self, value: f64) -> Result<Node, E> {
                serde_json::Number::from_f64(value)
                    .map(Node::Number)
                    .ok_or_else(|| E::custom("not a finite number"))
            }
            fn visit_str<E>(self, value: &str) -> Result<Node, E> {
                Ok(Node::String(value.to_owned()))
            }
            fn visit_string<E>(self, value: String) -> Result<Node, E> {
                Ok(Node::String(value))
            }
            fn visit_seq<A: serde::de::SeqAccess<'de>>(self, mut seq: A) -> Result<Node, A::Error> {
                let mut items = Vec::new();
                while let Some(item) = seq.next_element()? {
                    items.push(item);
                }
                Ok(Node::Array(items))
            }
            fn visit_map<A: serde::de::MapAccess<'de>>(self, mut map: A) -> Result<Node, A::Error> {
                let mut members = Vec::new();
                while let Some(member) = map.next_entry()? {
                    members.push(member);
                }
                Ok(Node::Object(members))
            }
        }
        deserializer.deserialize_any(Visitor)
    }
}

impl Node {
    /// The value as JSON text: compact, or indented by two spaces per level as
    /// serde_json's pretty printer does.
    fn write(&self, pretty: bool, depth: usize, out: &mut String) {
        let quoted = |text: &str| serde_json::to_string(text).unwrap_or_default();
        let indent = |out: &mut String, depth: usize| {
            if pretty {
                out.push('\n');
                out.push_str(&"  ".repeat(depth));
            }
        };
        match self {
            Node::Null => out.push_str("null"),
            Node::Bool(value) => out.push_str(if *value { "true" } else { "false" }),
            Node::Number(number) => out.push_str(&number.to_string()),
            Node::String(text) => out.push_str(&quoted(text)),
            Node::Array(items) if items.is_empty() => out.push_str("[]"),
            Node::Object(members) if members.is_empty() => out.push_str("{}"),
            Node::Array(items) => {
                out.push('[');
                for (index, item) in items.iter().enumerate() {
                    if index > 0 {
                        out.push(',');
                    }
                    indent(out, depth + 1);
                    item.write(pretty, depth + 1, out);
                }
                indent(out, depth);
                out.push(']');
            }
            Node::Object(members) => {
                out.push('{');
                for (index, (key, member)) in members.iter().enumerate() {
                    if index > 0 {
                        out.push(',');
                    }
                    indent(out, depth + 1);
                    out.push_str(&quoted(key));
                    out.push_str(if pretty { ": " } else { ":" });
                    member.write(pretty, depth + 1, out);
                }
                indent(out, depth);
                out.push('}');
            }
        }
    }

    /// The value as a document: its text and a final line break.
    fn render(&self, pretty: bool) -> Vec<u8> {
        let mut out = String::new();
        self.write(pretty, 0, &mut out);
        out.push('\n');
        out.into_bytes()
    }

    /// The members or items of a container.
    fn children(&self) -> Vec<&Node> {
        match self {
            Node::Array(items) => items.iter().collect(),
            Node::Object(members) => members.iter().map(|(_, member)| member).collect(),
            _ => Vec::new(),
        }
    }

    /// The member or item at `index` of a container.
    fn child_mut(&mut self, index: usize) -> Option<&mut Node> {
        match self {
            Node::Array(items) => items.get_mut(index),
            Node::Object(members) => members.get_mut(index).map(|(_, member)| member),
            _ => None,
        }
    }
}

/// Shrinks a JSON document as values: `None` when it is not JSON serde_json reads, when
/// its printed form (the form every candidate takes: pretty where that is no longer than
/// the document, else compact) does not keep `still`, or when nothing made it smaller than
/// `bytes`. The candidates are each object member and array item removed, and each string
/// value cut to its first character or its first half, tried largest first (by the bytes
/// they would save) so that a small trial budget goes where it saves most, in passes until
/// one changes nothing. Keys are kept as they are (cut keys collide), and so is a repeated
/// key: members are read in order, each occurrence its own. A place made stale by an
/// earlier removal in the same pass (the members after it move up) is still a candidate
/// the predicate judges like any other.
pub fn json(
    bytes: &[u8],
    budget: &Budget,
    still: &mut dyn FnMut(&[u8]) -> bool,
) -> Option<Vec<u8>> {
    let mut value: Node = serde_json::from_slice(bytes).ok()?;
    // Pretty-printed where that is no longer than the document (a draft is read by a
    // person), compact otherwise: a shrink never grows, and a compact document printed
    // pretty would be refused as a whole.
    let pretty = value.render(true).len() <= bytes.len();
    let printed = value.render(pretty);
    if printed != bytes && (budget.exhausted() || !still(&printed)) {
        return None;
    }
    // Passes until one changes nothing: a removal moves the items after it up, so the
    // next pass sees the places as they now are.
    let mut changed = true;
    while changed && !budget.exhausted() {
        changed = false;
        let mut places = Vec::new();
        collect_places(&value, &mut Vec::new(), &mut places);
        let mut candidates: Vec<(usize, Edit)> = places
            .into_iter()
            .map(|(size, path)| (size, Edit::Remove(path)))
            .collect();
        let mut strings = Vec::new();
        collect_strings(&value, &mut Vec::new(), &mut strings);
        for (length, path) in strings {
            candidates.push((
                length.saturating_sub(1),
                Edit::Shorten(path.clone(), Cut::First),
            ));
            candidates.push((length / 2, Edit::Shorten(path, Cut::Half)));
        }
        // Largest saving first; among equals, document order (the sort is stable).
        candidates.sort_by_key(|(saving, _)| std::cmp::Reverse(*saving));
        for (_, edit) in candidates {
            if budget.exhausted() {
                break;
            }
            let mut candidate = value.clone();
            let applied = match &edit {
                Edit::Remove(path) => remove_at(&mut candidate, path),
                Edit::Shorten(path, cut) => shorten_at(&mut candidate, path, *cut),
            };
            if applied && candidate != value && still(&candidate.render(pretty)) {
                value = candidate;
                changed = true;
            }
        }
    }
    let shrunk = value.render(pretty);
    (shrunk.len() < bytes.len()).then_some(shrunk)
}

/// One change [`json`] tries: at a path of member or item positions.
#[derive(Debug, Clone)]
enum Edit {
    Remove(Vec<usize>),
    Shorten(Vec<usize>, Cut),
}

/// Every member and item below `value` with the bytes it takes (compact), in document
/// order (a container before what it holds).
fn collect_places(value: &Node, path: &mut Vec<usize>, out: &mut Vec<(usize, Vec<usize>)>) {
    let size = |node: &Node| {
        let mut text = String::new();
        node.write(false, 0, &mut text);
        text.len()
    };
    let keys: Vec<usize> = match value {
        Node::Object(members) => members.iter().map(|(key, _)| key.len()).collect(),
        _ => Vec::new(),
    };
    for (index, child) in value.children().into_iter().enumerate() {
        path.push(index);
        out.push((
            size(child) + keys.get(index).copied().unwrap_or(0),
            path.clone(),
        ));
        collect_places(child, path, out);
        path.pop();
    }
}

/// Every string value (not key) of more than one character below `value`, with its
/// length in bytes, in document order.
fn collect_strings(value: &Node, path: &mut Vec<usize>, out: &mut Vec<(usize, Vec<usize>)>) {
    if let Node::String(text) = value {
        if text.chars().nth(1).is_some() {
            out.push((text.len(), path.clone()));
        }
        return;
    }
    for (index, child) in value.children().into_iter().enumerate() {
        path.push(index);
        collect_strings(child, path, out);
        path.pop();
    }
}

/// The value at `path`, if it is there.
fn at_mut<'v>(value: &'v mut Node, path: &[usize]) -> Option<&'v mut Node> {
    path.iter()
        .try_fold(value, |value, &index| value.child_mut(index))
}

/// Removes the member or item at `path` (keeping the order of the others); false when it
/// is not there.
fn remove_at(value: &mut Node, path: &[usize]) -> bool {
    let Some((&last, parent)) = path.split_last() else {
        return false;
    };
    match at_mut(value, parent) {
        Some(Node::Object(members)) if last < members.len() => {
            members.remove(last);
            true
        }
        Some(Node::Array(items)) if last < items.len() => {
            items.remove(last);
            true
        }
        _ => false,
    }
}

/// How a string value is cut short.
#[derive(Debug, Clone, Copy)]
enum Cut {
    First,
    Half,
}

/// Cuts the string at `path` short; false when there is none or it is short already.
fn shorten_at(value: &mut Node, path: &[usize], cut: Cut) -> bool {
    let Some(Node::String(text)) = at_mut(value, path) else {
        return false;
    };
    let count = text.chars().count();
    let keep = match cut {
        Cut::First => 1,
        Cut::Half => count / 2,
    };
    if keep == 0 || keep >= count {
        return false;
    }
    *text = text.chars().take(keep).collect();
    true
}

/// Shrinks a document by delta debugging over its lines, then its tokens, then its
/// characters, keeping each removal for which `still` holds (see [`choices`] for the
/// contract of `still`).
pub fn document(bytes: &[u8], budget: &Budget, still: &mut dyn FnMut(&[u8]) -> bool) -> Vec<u8> {
    let mut current = bytes.to_vec();
    // The largest tokens alone first (a long string's text, a run of padding): one trial
    // each, and where the document's syntax forbids most cuts these are the ones that go.
    if !budget.exhausted() {
        current = remove_largest(tokens(&current), LARGEST, budget, still).concat();
    }
    for split in [lines, tokens, characters] {
        if budget.exhausted() {
            break;
        }
        current = remove_chunks(split(&current), budget, still).concat();
    }
    // Single bytes only where the text is not UTF-8 anyway: cutting a character of a
    // well-formed text makes another kind of input, not a smaller one.
    if std::str::from_utf8(&current).is_err() && !budget.exhausted() {
        let bytes = current.iter().map(|&byte| vec![byte]).collect();
        current = remove_chunks(bytes, budget, still).concat();
    }
    current
}

/// Units [`remove_largest`] tries on their own before delta debugging.
const LARGEST: usize = 16;

/// Units shorter than this are left to delta debugging.
const LARGE_UNIT: usize = 16;

/// Tries removing each of the `count` largest units (of at least [`LARGE_UNIT`] bytes) on
/// its own, largest first, keeping each removal for which `still` holds.
fn remove_largest(
    mut units: Vec<Vec<u8>>,
    count: usize,
    budget: &Budget,
    still: &mut dyn FnMut(&[u8]) -> bool,
) -> Vec<Vec<u8>> {
    let mut order: Vec<usize> = (0..units.len())
        .filter(|&index| units[index].len() >= LARGE_UNIT)
        .collect();
    order.sort_by_key(|&index| (std::cmp::Reverse(units[index].len()), index));
    order.truncate(count);
    // Removed units become empty, so the indices of the others stay put.
    for index in order {
        if budget.exhausted() {
            break;
        }
        let candidate: Vec<u8> = units
            .iter()
            .enumerate()
            .filter(|(at, _)| *at != index)
            .flat_map(|(_, unit)| unit.iter().copied())
            .collect();
        if still(&candidate) {
            units[index].clear();
        }
    }
    units.retain(|unit| !unit.is_empty());
    units
}

/// Removes chunks of units, largest first: each chunk whose removal keeps `still` goes,
/// then the chunk size halves, down to single units, repeated until no unit can go.
fn remove_chunks(
    mut units: Vec<Vec<u8>>,
    budget: &Budget,
    still: &mut dyn FnMut(&[u8]) -> bool,
) -> Vec<Vec<u8>> {
    let mut size = (units.len() / 2).max(1);
    loop {
        let mut removed = false;
        let mut start = 0;
        while start < units.len() {
            if budget.exhausted() {
                return units;
            }
            let end = (start + size).min(units.len());
            let candidate: Vec<u8> = units[..start]
                .iter()
                .chain(&units[end..])
                .flatten()
                .copied()
                .collect();
            if still(&candidate) {
                units.drain(start..end);
                removed = true;
            } else {
                start = end;
            }
        }
        if size > 1 {
            size = (size / 2).max(1);
        } else if !removed || units.is_empty() {
            return units;
        }
    }
}

/// The lines of a text, each with its line ending.
fn lines(bytes: &[u8]) -> Vec<Vec<u8>> {
    bytes
        .split_inclusive(|&byte| byte == b'\n')
        .map(<[u8]>::to_vec)
        .collect()
}

/// Runs of word bytes (ASCII letters and digits, and every byte of a non-ASCII
/// character), and each other byte on its own: a JSON string's text or a Markdown word is
/// one unit, a quote or a comma another.
fn tokens(bytes: &[u8]) -> Vec<Vec<u8>> {
    let word = |byte: u8| byte.is_ascii_alphanumeric() || byte >= 0x80;
    let mut units: Vec<Vec<u8>> = Vec::new();
    for &byte in bytes {
        match units.last_mut() {
            Some(last) if word(byte) && last.last().is_some_and(|&b| word(b)) => last.push(byte),
            _ => units.push(vec![byte]),
        }
    }
    units
}

/// Characters: a lead byte with the continuation bytes after it, so removing a unit never
/// cuts a well-formed UTF-8 sequence (a stray continuation byte is a unit of its own).
fn characters(bytes: &[u8]) -> Vec<Vec<u8>> {
    let continuation = |byte: u8| byte & 0xC0 == 0x80;
    let mut units: Vec<Vec<u8>> = Vec::new();
    for &byte in bytes {
        match units.last_mut() {
            Some(last) if continuation(byte) && last.len() < 4 && last[0] >= 0xC0 => {
                last.push(byte);
            }
            _ => units.push(vec![byte]),
        }
    }
    units
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_document_shrinks_to_what_the_predicate_needs() {
        let text = b"line one\nthe needle is here\nline three\n".repeat(20);
        let budget = Budget::new(10_000);
        let shrunk = document(&text, &budget, &mut |candidate| {
            budget.spend();
            candidate.windows(6).any(|w| w == b"needle")
        });
        assert_eq!(shrunk, b"needle");
        assert!(budget.spent() < 1_000, "{} trials", budget.spent());
    }

    #[test]
    fn characters_are_never_cut() {
        let text = "ééé🙂x".as_bytes();
        let budget = Budget::new(1_000);
        let shrunk = document(text, &budget, &mut |candidate| {
            budget.spend();
            std::str::from_utf8(candidate).is_ok_and(|text| text.contains('🙂'))
        });
        assert_eq!(shrunk, "🙂".as_bytes());
    }

    #[test]
    fn the_budget_bounds_the_trials() {
        let text = vec![b'a'; 10_000];
        let budget = Budget::new(50);
        let mut trials = 0;
        let shrunk = document(&text, &budget, &mut |candidate| {
            if !budget.spend() {
                return false;
            }
            trials += 1;
            candidate.len() % 7 == 3
        });
        assert!(trials <= 50);
        assert!(shrunk.len() <= text.len());
    }

    #[test]
    fn json_shrinks_by_values_and_keeps_keys() {
        let text = br#"{"keep": {"inner": [1, 2, "needle-and-more"], "other": true}, "drop": [3, 4], "b": "bbbbbb"}"#;
        let budget = Budget::new(1_000);
        let shrunk = json(text, &budget, &mut |candidate| {
            budget.spend();
            let value: serde_json::Value = serde_json::from_slice(candidate).expect("JSON");
            // Holds while a string starting with `n` sits under `keep` and `b` is there.
            value["keep"]["inner"].as_array().is_some_and(|items| {
                items
                    .iter()
                    .any(|item| item.as_str().is_some_and(|s| s.starts_with('n')))
            }) && value.get("b").is_some()
        })
        .expect("JSON");
        let value: serde_json::Value = serde_json::from_slice(&shrunk).unwrap();
        assert_eq!(
            value,
            serde_json::json!({"keep": {"inner": ["n"]}, "b": "b"})
        );
        assert!(json(b"not json", &budget, &mut |_| true).is_none());
    }

    #[test]
    fn json_keeps_a_repeated_key_and_prints_as_serde_json_does() {
        let text = br#"{"a": "xxxxxxxx", "a": "yyyyyyyy", "pad": [1, 2, 3, 4, 5, 6, 7, 8, 9]}"#;
        let budget = Budget::new(1_000);
        let shrunk = json(text, &budget, &mut |candidate| {
            budget.spend();
            // Holds while the key `a` is there twice.
            String::from_utf8_lossy(candidate).matches(r#""a""#).count() == 2
        })
        .expect("JSON");
        // Compact: the document was, and pretty would be longer.
        assert_eq!(
            shrunk,
            br#"{"a":"x","a":"y"}"#.iter().chain(b"\n").copied().collect::<Vec<u8>>()
        );
        // The printed forms are serde_json's, for a document without repeated keys.
        let value: serde_json::Value =
            serde_json::from_str(r#"{"k": [1, {"n": null, "t": true}], "e": {}, "s": "\u00e9\""}"#)
                .unwrap();
        let node: Node = serde_json::from_value(value.clone()).unwrap();
        let mut pretty = serde_json::to_vec_pretty(&value).unwrap();
        pretty.push(b'\n');
        assert_eq!(node.render(true), pretty);
        let mut compact = serde_json::to_vec(&value).unwrap();
        compact.push(b'\n');
        assert_eq!(node.render(false), compact);
    }

    #[test]
    fn choices_are_removed_then_zeroed() {
        let data: Vec<u8> = (1..=200u8).collect();
        let budget = Budget::new(10_000);
        // Holds while byte 3 is 4 and at least 5 bytes remain.
        let shrunk = choices(&data, &budget, &mut |candidate| {
            budget.spend();
            candidate.len() >= 5 && candidate[3] == 4
        });
        assert_eq!(shrunk, [0, 0, 0, 4, 0]);
    }
}
