//! The frontmatter, read as YAML 1.2 with the core schema (the catalogue's reading), with
//! libyaml (through yaml_serde) as the parser.
//!
//! yaml_serde hands a serde visitor values it has already typed, with its own resolution
//! (close to the core schema, not equal to it: it reads `0b101` as an integer and `0123`
//! as a string, where the core schema does the opposite), and never the written text of a
//! typed scalar. So the frontmatter is read twice. The first pass takes the structure and
//! yaml_serde's typing (and tags it passes on as enums); the second, guided by the first,
//! asks for every scalar as a string, which yields its text and, when the text lies in the
//! input as written, where it starts. From the text, its place (quoted or plain) and the
//! tag written before it, each scalar is typed by the core schema here.
//!
//! Resources are bounded (skill-package.head.yaml-resources): nesting past 64 levels, or
//! aliases expanding past about 10000 nodes (a scalar weighing one node per started KiB),
//! is not read.

use std::cell::Cell;
use std::collections::HashMap;
use std::fmt;
use std::rc::Rc;

use serde::de::{
    self, DeserializeSeed, Deserializer, EnumAccess, IgnoredAny, MapAccess, SeqAccess,
    VariantAccess, Visitor,
};
use serde::Deserialize as _;

/// skill-package.head.yaml-resources: the nesting bound.
const DEPTH_BOUND: usize = 64;

/// How deeply brackets may open, counted without regard to quotes, comments or scalars,
/// before libyaml is given the text: an upper bound of the flow nesting, far above the
/// nesting bound.
const FLOW_BOUND: usize = 1000;

/// The deepest `[`/`{` nesting of the text, every bracket counted.
fn bracket_depth(source: &str) -> usize {
    let mut depth: usize = 0;
    let mut deepest = 0;
    for byte in source.bytes() {
        match byte {
            b'[' | b'{' => {
                depth += 1;
                deepest = deepest.max(depth);
            }
            b']' | b'}' => depth = depth.saturating_sub(1),
            _ => {}
        }
    }
    deepest
}

/// skill-package.head.yaml-resources: the nodes aliases may add.
const ALIAS_BOUND: usize = 10_000;

/// A YAML node, typed.
#[derive(Debug, Clone)]
pub(super) enum Node {
    Scalar(Scalar),
    Sequence(Vec<Node>),
    Mapping(Vec<(Node, Node)>),
}

/// A scalar: its text (after quoting and folding) and its type under the core schema.
#[derive(Debug, Clone)]
pub(super) struct Scalar {
    pub text: Rc<str>,
    pub value: Core,
    /// How it was written, as far as its place in the source tells.
    pub style: Style,
}

/// How a scalar was written.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Style {
    /// Plain, on one line.
    Plain,
    /// In quotes.
    Quoted,
    /// Not in the source as written (a block scalar, a folded or escaped one).
    Unknown,
}

/// A scalar's type and canonical value under the YAML 1.2 core schema.
#[derive(Debug, Clone, PartialEq)]
pub(super) enum Core {
    Null,
    Bool(bool),
    /// An integer, canonical (decimal, no leading zeros).
    Int(String),
    Float(f64),
    Str,
    /// A tag this reading does not resolve (a local tag such as `!foo`).
    Other(String),
}

/// The first document of the frontmatter.
#[derive(Debug)]
pub(super) enum Document {
    /// No node at all (empty, or only comments).
    Empty,
    Node(Node),
    /// A collection under a local tag (`!foo`): a value of a type this reading does not
    /// know, not a mapping.
    Tagged(String),
}

/// Why the frontmatter was not read.
#[derive(Debug)]
pub(super) enum Failure {
    /// Not YAML (skill-package.head.yaml-syntax), with the line the parser stopped at.
    Syntax {
        message: String,
        line: Option<usize>,
    },
    /// Past a resource bound (skill-package.head.yaml-resources).
    Bound(String),
}

/// How to read scalars.
#[derive(Debug, Clone, Copy, Default)]
pub(super) struct Options {
    /// Every scalar is a string (the `yaml-scalars-as-strings` switch).
    pub as_strings: bool,
}

/// Reads the frontmatter: its first document, and the whole stream for syntax.
pub(super) fn read(source: &str, options: Options) -> Result<Document, Failure> {
    let softened = soften_tabs(source);
    let (prepared, breaks) = hide_yaml11_breaks(&softened);
    let mut document = read_yaml(&prepared, options)?;
    if let (Some(breaks), Document::Node(node)) = (breaks, &mut document) {
        breaks.restore(node);
    }
    if let Document::Node(node) = &document {
        if has_plain_bom(node) {
            // YAML 1.2 (5.2): a byte order mark is no nb-char, so it cannot stand in a
            // plain scalar (quoted scalars take any nb-json character); libyaml lets it
            // pass.
            return Err(Failure::Syntax {
                message: "a byte order mark inside a plain scalar".into(),
                line: None,
            });
        }
    }
    Ok(document)
}

/// Whether a plain scalar of `node` holds U+FEFF.
fn has_plain_bom(node: &Node) -> bool {
    match node {
        Node::Scalar(scalar) => scalar.style == Style::Plain && scalar.text.contains('\u{FEFF}'),
        Node::Sequence(items) => items.iter().any(has_plain_bom),
        Node::Mapping(entries) => entries
            .iter()
            .any(|(key, value)| has_plain_bom(key) || has_plain_bom(value)),
    }
}

/// A character libyaml reads otherwise than YAML 1.2, and the stand-in it reads instead.
#[derive(Debug, Clone, Copy)]
struct StandIn {
    original: char,
    stand_in: char,
}

/// NEL, LS and PS: line breaks in YAML 1.1, which libyaml reads, and ordinary characters
/// in YAML 1.2, the catalogue's reading. Each is swapped for a stand-in of the same length
/// in UTF-8 (so every offset holds) that libyaml reads as a character, and swapped back in
/// the scalars read.
const YAML11_BREAKS: [StandIn; 3] = [
    StandIn {
        original: '\u{85}',
        stand_in: '\u{7FA}',
    },
    StandIn {
        original: '\u{2028}',
        stand_in: '\u{E000}',
    },
    StandIn {
        original: '\u{2029}',
        stand_in: '\u{E001}',
    },
];

/// The stand-ins used, to swap back.
struct Breaks {
    used: Vec<StandIn>,
}

/// The source with the stand-ins in, when it holds one of the three (and none of their
/// stand-ins already).
fn hide_yaml11_breaks(source: &str) -> (std::borrow::Cow<'_, str>, Option<Breaks>) {
    let used: Vec<StandIn> = YAML11_BREAKS
        .into_iter()
        .filter(|pair| source.contains(pair.original) && !source.contains(pair.stand_in))
        .collect();
    if used.is_empty() {
        return (std::borrow::Cow::Borrowed(source), None);
    }
    let replaced = source
        .chars()
        .map(|c| {
            used.iter()
                .find(|pair| pair.original == c)
                .map_or(c, |pair| pair.stand_in)
        })
        .collect();
    (std::borrow::Cow::Owned(replaced), Some(Breaks { used }))
}

impl Breaks {
    /// Puts the original characters back into every scalar of `node`.
    fn restore(&self, node: &mut Node) {
        match node {
            Node::Scalar(scalar) => {
                if self
                    .used
                    .iter()
                    .any(|pair| scalar.text.contains(pair.stand_in))
                {
                    let text: String = scalar
                        .text
                        .chars()
                        .map(|c| {
                            self.used
                                .iter()
                                .find(|pair| pair.stand_in == c)
                                .map_or(c, |pair| pair.original)
                        })
                        .collect();
                    scalar.text = Rc::from(text);
                }
            }
            Node::Sequence(items) => items.iter_mut().for_each(|item| self.restore(item)),
            Node::Mapping(entries) => {
                for (key, value) in entries {
                    self.restore(key);
                    self.restore(value);
                }
            }
        }
    }
}

/// libyaml refuses a tab after a block indicator (`?\tname`, `:\tvalue`), which YAML 1.2
/// allows as separation within a line (the catalogue's header: "A tab separates tokens
/// within a line as a space does ... but never indents"). Such a tab is turned into a
/// space, byte for byte, unless what follows on the line starts a block collection, which
/// the tab would then indent (`:\tteam: platform` stays refused).
fn soften_tabs(source: &str) -> std::borrow::Cow<'_, str> {
    if !source.contains('\t') {
        return std::borrow::Cow::Borrowed(source);
    }
    let mut bytes = source.as_bytes().to_vec();
    let mut start = 0;
    while start < bytes.len() {
        let end = bytes[start..]
            .iter()
            .position(|&b| b == b'\n' || b == b'\r')
            .map_or(bytes.len(), |offset| start + offset);
        let mut at = start + bytes[start..end].iter().take_while(|&&b| b == b' ').count();
        // Indicators may follow one another (`- ? x`): each with its separation run.
        while at + 1 < end
            && matches!(bytes[at], b'?' | b':' | b'-')
            && matches!(bytes[at + 1], b' ' | b'\t')
        {
            let run = bytes[at + 1..end]
                .iter()
                .take_while(|&&b| b == b' ' || b == b'\t')
                .count();
            let separation = at + 1..at + 1 + run;
            if bytes[separation.clone()].contains(&b'\t') {
                if !starts_block_collection(&source[separation.end..end]) {
                    for byte in &mut bytes[separation] {
                        *byte = b' ';
                    }
                }
                break;
            }
            at = separation.end;
        }
        start = end + 1;
    }
    // Only ASCII tabs became ASCII spaces: still UTF-8.
    std::borrow::Cow::Owned(String::from_utf8(bytes).unwrap_or_else(|_| source.to_owned()))
}

/// Whether a line's rest starts a block sequence or mapping (an entry indicator, an
/// explicit key or value, or an implicit key: a `:` followed by a space, a tab or the end,
/// outside quotes).
fn starts_block_collection(rest: &str) -> bool {
    let indicator = |c: char| {
        rest.strip_prefix(c)
            .is_some_and(|after| after.is_empty() || after.starts_with([' ', '\t']))
    };
    if indicator('-') || indicator('?') || indicator(':') {
        return true;
    }
    let bytes = rest.as_bytes();
    let mut quote: Option<u8> = None;
    for (index, &byte) in bytes.iter().enumerate() {
        match quote {
            Some(open) if byte == open => quote = None,
            Some(_) => {}
            None => match byte {
                b'"' | b'\'' => quote = Some(byte),
                b'#' if index > 0 && matches!(bytes[index - 1], b' ' | b'\t') => return false,
                b':' if matches!(bytes.get(index + 1), None | Some(b' ' | b'\t')) => return true,
                _ => {}
            },
        }
    }
    false
}

fn read_yaml(source: &str, options: Options) -> Result<Document, Failure> {
    // libyaml's scanner costs about the tokens times the flow nesting, so a text whose
    // brackets could nest past FLOW_BOUND is not given to it (the nesting bound, 64, is
    // checked exactly on what it reads).
    if bracket_depth(source) > FLOW_BOUND {
        return Err(Failure::Bound(format!(
            "brackets open more than {FLOW_BOUND} levels deep"
        )));
    }
    let state = State {
        weight: Cell::new(0),
        budget: 2 * source.len() + ALIAS_BOUND,
        bound: Cell::new(None),
    };
    let mut documents = yaml_serde::Deserializer::from_str(source);
    let Some(first) = documents.next() else {
        return Ok(Document::Empty);
    };
    let probe = ProbeSeed {
        state: &state,
        depth: 1,
    }
    .deserialize(first)
    .map_err(|error| failure(error, &state))?;
    // The rest of the stream must be YAML too ("The frontmatter is well-formed YAML").
    for document in documents {
        IgnoredAny::deserialize(document).map_err(|error| failure(error, &state))?;
    }
    match &probe {
        Probe::Empty => return Ok(Document::Empty),
        Probe::Tagged(tag, inner)
            if tag != "!" && matches!(**inner, Probe::Mapping(_) | Probe::Sequence(_)) =>
        {
            return Ok(Document::Tagged(tag.clone()));
        }
        _ => {}
    }
    let mut second = yaml_serde::Deserializer::from_str(source);
    let Some(first) = second.next() else {
        return Ok(Document::Empty);
    };
    let interned = std::cell::RefCell::new(HashMap::new());
    let raw = TextSeed {
        probe: &probe,
        source,
        interned: &interned,
        key: false,
    }
    .deserialize(first)
    .map_err(|error| failure(error, &state))?;
    Ok(Document::Node(typed(&probe, raw, source, options)))
}

fn failure(error: yaml_serde::Error, state: &State) -> Failure {
    if let Some(reason) = state.bound.take() {
        return Failure::Bound(reason);
    }
    let message = error.to_string();
    if message.contains("recursion limit exceeded") || message.contains("repetition limit") {
        return Failure::Bound(message);
    }
    Failure::Syntax {
        line: error.location().map(|location| location.line()),
        message,
    }
}

/// What the passes share: the weight read so far and the bound's reason once passed.
struct State {
    weight: Cell<usize>,
    budget: usize,
    bound: Cell<Option<String>>,
}

impl State {
    /// Counts `weight` nodes; an error once past the budget. Without aliases a document
    /// weighs at most about a node per byte, so the budget (twice the text's length plus
    /// the alias bound) is passed only through aliases.
    fn charge<E: de::Error>(&self, weight: usize) -> Result<(), E> {
        let total = self.weight.get().saturating_add(weight);
        self.weight.set(total);
        if total > self.budget {
            return Err(self.passed(format!(
                "aliases expand past {ALIAS_BOUND} nodes (read {total})"
            )));
        }
        Ok(())
    }

    fn passed<E: de::Error>(&self, reason: String) -> E {
        let error = E::custom(&reason);
        self.bound.set(Some(reason));
        error
    }
}

/// A scalar's weight: one node per started KiB of its text.
fn scalar_weight(length: usize) -> usize {
    length.div_ceil(1024).max(1)
}

/// The first pass's view of a node: the structure and yaml_serde's typing.
#[derive(Debug)]
enum Probe {
    /// The document holds no node.
    Empty,
    Null,
    Bool(bool),
    Int(String),
    Float(f64),
    Str,
    /// A node under a tag yaml_serde passes on (local tags and the non-specific `!`).
    Tagged(String, Box<Probe>),
    Sequence(Vec<Probe>),
    Mapping(Vec<(Probe, Probe)>),
}

impl Probe {
    /// The node itself, under any tag.
    fn untagged(&self) -> &Probe {
        match self {
            Probe::Tagged(_, inner) => inner.untagged(),
            other => other,
        }
    }
}

struct ProbeSeed<'s> {
    state: &'s State,
    /// The nesting level a collection here would be at.
    depth: usize,
}

impl<'de> DeserializeSeed<'de> for ProbeSeed<'_> {
    type Value = Probe;

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<Probe, D::Error> {
        deserializer.deserialize_any(ProbeVisitor {
            state: self.state,
            depth: self.depth,
        })
    }
}

struct ProbeVisitor<'s> {
    state: &'s State,
    depth: usize,
}

impl ProbeVisitor<'_> {
    fn enter<E: de::Error>(&self) -> Result<(), E> {
        if self.depth > DEPTH_BOUND {
            return Err(self
                .state
                .passed(format!("nests more than {DEPTH_BOUND} levels")));
        }
        self.state.charge(1)
    }

    fn child(&self) -> ProbeSeed<'_> {
        ProbeSeed {
            state: self.state,
            depth: self.depth + 1,
        }
    }
}

impl<'de> Visitor<'de> for ProbeVisitor<'_> {
    type Value = Probe;

    fn expecting(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
        formatter.write_str("a YAML node")
    }

    fn visit_none<E: de::Error>(self) -> Result<Probe, E> {
        Ok(Probe::Empty)
    }

    fn visit_unit<E: de::Error>(self) -> Result<Probe, E> {
        self.state.charge(1)?;
        Ok(Probe::Null)
    }

    fn visit_bool<E: de::Error>(self, value: bool) -> Result<Probe, E> {
        self.state.charge(1)?;
        Ok(Probe::Bool(value))
    }

    fn visit_i64<E: de::Error>(self, value: i64) -> Result<Probe, E> {
        self.visit_i128(i128::from(value))
    }

    fn visit_u64<E: de::Error>(self, value: u64) -> Result<Probe, E> {
        self.visit_u128(u128::from(value))
    }

    fn visit_i128<E: de::Error>(self, value: i128) -> Result<Probe, E> {
        self.state.charge(1)?;
        Ok(Probe::Int(value.to_string()))
    }

    fn visit_u128<E: de::Error>(self, value: u128) -> Result<Probe, E> {
        self.state.charge(1)?;
        Ok(Probe::Int(value.to_string()))
    }

    fn visit_f64<E: de::Error>(self, value: f64) -> Result<Probe, E> {
        self.state.charge(1)?;
        Ok(Probe::Float(value))
    }

    fn visit_str<E: de::Error>(self, value: &str) -> Result<Probe, E> {
        self.state.charge(scalar_weight(value.len()))?;
        Ok(Probe::Str)
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Probe, A::Error> {
        self.enter()?;
        let mut items = Vec::new();
        while let Some(item) = seq.next_element_seed(self.child())? {
            items.push(item);
        }
        Ok(Probe::Sequence(items))
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Probe, A::Error> {
        self.enter()?;
        let mut entries = Vec::new();
        while let Some(key) = map.next_key_seed(self.child())? {
            let value = map.next_value_seed(self.child())?;
            entries.push((key, value));
        }
        Ok(Probe::Mapping(entries))
    }

    fn visit_enum<A: EnumAccess<'de>>(self, data: A) -> Result<Probe, A::Error> {
        let (tag, variant): (String, _) = data.variant()?;
        let inner = variant.newtype_variant_seed(ProbeSeed {
            state: self.state,
            depth: self.depth,
        })?;
        Ok(Probe::Tagged(tag, Box::new(inner)))
    }
}

/// The second pass's view of a node: each scalar's text and where it starts in the source
/// when it lies there as written.
enum Raw {
    Scalar {
        text: Rc<str>,
        at: Option<usize>,
        key: bool,
    },
    Sequence(Vec<Raw>),
    Mapping(Vec<(Raw, Raw)>),
}

/// Interned scalar texts, by where yaml_serde holds them: an alias hands over the same text
/// again, which is then shared rather than copied.
type Interned = std::cell::RefCell<HashMap<(usize, usize), Rc<str>>>;

struct TextSeed<'p, 's> {
    probe: &'p Probe,
    source: &'s str,
    interned: &'s Interned,
    /// Whether the node is a mapping's key.
    key: bool,
}

impl<'de> DeserializeSeed<'de> for TextSeed<'_, '_> {
    type Value = Raw;

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<Raw, D::Error> {
        match self.probe.untagged() {
            Probe::Sequence(items) => deserializer.deserialize_seq(SequenceText {
                items,
                source: self.source,
                interned: self.interned,
            }),
            Probe::Mapping(entries) => deserializer.deserialize_map(MappingText {
                entries,
                source: self.source,
                interned: self.interned,
            }),
            _ => deserializer.deserialize_str(ScalarText {
                source: self.source,
                interned: self.interned,
                key: self.key,
            }),
        }
    }
}

struct ScalarText<'s> {
    source: &'s str,
    interned: &'s Interned,
    key: bool,
}

impl ScalarText<'_> {
    fn scalar(&self, value: &str) -> Raw {
        let address = value.as_ptr() as usize;
        let base = self.source.as_ptr() as usize;
        let at = (address >= base && address + value.len() <= base + self.source.len())
            .then(|| address - base);
        let text = self
            .interned
            .borrow_mut()
            .entry((address, value.len()))
            .or_insert_with(|| Rc::from(value))
            .clone();
        Raw::Scalar {
            text,
            at,
            key: self.key,
        }
    }
}

impl<'de> Visitor<'de> for ScalarText<'_> {
    type Value = Raw;

    fn expecting(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
        formatter.write_str("a scalar")
    }

    fn visit_borrowed_str<E: de::Error>(self, value: &'de str) -> Result<Raw, E> {
        Ok(self.scalar(value))
    }

    fn visit_str<E: de::Error>(self, value: &str) -> Result<Raw, E> {
        Ok(self.scalar(value))
    }
}

struct SequenceText<'p, 's> {
    items: &'p [Probe],
    source: &'s str,
    interned: &'s Interned,
}

impl<'de> Visitor<'de> for SequenceText<'_, '_> {
    type Value = Raw;

    fn expecting(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
        formatter.write_str("a sequence")
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Raw, A::Error> {
        let mut items = Vec::with_capacity(self.items.len());
        for probe in self.items {
            let item = seq
                .next_element_seed(TextSeed {
                    probe,
                    source: self.source,
                    interned: self.interned,
                    key: false,
                })?
                .ok_or_else(|| de::Error::custom("the second reading lost an item"))?;
            items.push(item);
        }
        Ok(Raw::Sequence(items))
    }
}

struct MappingText<'p, 's> {
    entries: &'p [(Probe, Probe)],
    source: &'s str,
    interned: &'s Interned,
}

impl<'de> Visitor<'de> for MappingText<'_, '_> {
    type Value = Raw;

    fn expecting(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
        formatter.write_str("a mapping")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Raw, A::Error> {
        let mut entries = Vec::with_capacity(self.entries.len());
        for (key_probe, value_probe) in self.entries {
            let key = map
                .next_key_seed(TextSeed {
                    probe: key_probe,
                    source: self.source,
                    interned: self.interned,
                    key: true,
                })?
                .ok_or_else(|| de::Error::custom("the second reading lost a key"))?;
            let value = map.next_value_seed(TextSeed {
                probe: value_probe,
                source: self.source,
                interned: self.interned,
                key: false,
            })?;
            entries.push((key, value));
        }
        Ok(Raw::Mapping(entries))
    }
}

/// Joins the two passes into typed nodes.
fn typed(probe: &Probe, raw: Raw, source: &str, options: Options) -> Node {
    match raw {
        Raw::Sequence(items) => {
            let probes: &[Probe] = match probe.untagged() {
                Probe::Sequence(probes) => probes,
                _ => &[],
            };
            Node::Sequence(
                items
                    .into_iter()
                    .zip(probes)
                    .map(|(item, probe)| typed(probe, item, source, options))
                    .collect(),
            )
        }
        Raw::Mapping(entries) => {
            let probes: &[(Probe, Probe)] = match probe.untagged() {
                Probe::Mapping(probes) => probes,
                _ => &[],
            };
            Node::Mapping(
                entries
                    .into_iter()
                    .zip(probes)
                    .map(|((key, value), (key_probe, value_probe))| {
                        (
                            typed(key_probe, key, source, options),
                            typed(value_probe, value, source, options),
                        )
                    })
                    .collect(),
            )
        }
        Raw::Scalar { text, at, key } => {
            Node::Scalar(scalar(probe, text, at, key, source, options))
        }
    }
}

/// Types one scalar by the core schema (see the module's documentation).
fn scalar(
    probe: &Probe,
    text: Rc<str>,
    at: Option<usize>,
    key: bool,
    source: &str,
    options: Options,
) -> Scalar {
    let place = at.map(|at| Place::of(source, at, text.len(), key));
    let style = match &place {
        Some(place) if place.quoted => Style::Quoted,
        Some(_) => Style::Plain,
        None => Style::Unknown,
    };
    if options.as_strings {
        return Scalar {
            text,
            value: Core::Str,
            style,
        };
    }
    let value = match probe {
        // A tag yaml_serde passes on: the non-specific `!` makes a string (YAML 1.2); other
        // local tags are types this reading does not know.
        Probe::Tagged(tag, _) if tag == "!" => Core::Str,
        Probe::Tagged(tag, _) => Core::Other(tag.clone()),
        _ => match &place {
            Some(place) => match &place.tag {
                Some(tag) => tagged(tag, probe, &text),
                None if place.quoted => Core::Str,
                None => resolve_plain(&text),
            },
            // Not in the source as written (a block scalar, a folded plain or quoted
            // scalar, escapes): untagged, every such scalar is a string, and yaml_serde
            // typed it only for an explicit tag.
            None => from_probe(probe),
        },
    };
    Scalar { text, value, style }
}

/// Where a scalar's text lies in the source: whether in quotes, and the tag written before
/// it.
struct Place {
    quoted: bool,
    tag: Option<String>,
}

impl Place {
    /// A key's tag stands on its own line (a tag on the line before a block mapping's first
    /// key is the mapping's); a value's may stand on the line before it.
    fn of(source: &str, at: usize, length: usize, key: bool) -> Place {
        let bytes = source.as_bytes();
        let before = at
            .checked_sub(1)
            .and_then(|index| bytes.get(index))
            .copied();
        let after = bytes.get(at + length).copied();
        let quote = |byte: Option<u8>| matches!(byte, Some(b'"' | b'\''));
        let quoted = quote(before) || quote(after);
        // A plain scalar starts after a separator, an indicator or the start of the text;
        // any other byte before the text means it is the tail of a quoted scalar with
        // escapes.
        let plain_start = matches!(
            before,
            None | Some(b' ' | b'\t' | b'\n' | b'\r' | b'[' | b'{' | b',' | b':' | b'-' | b'?')
        );
        let token_start = if quote(before) { at - 1 } else { at };
        let tag = (quote(before) || plain_start)
            .then(|| tag_before(source, token_start, key))
            .flatten();
        Place {
            quoted: quoted || !plain_start,
            tag,
        }
    }
}

/// The tag written before the node starting at `start`, if any: the tokens before it,
/// skipping an anchor.
fn tag_before(source: &str, start: usize, same_line: bool) -> Option<String> {
    let bytes = source.as_bytes();
    let mut end = start;
    loop {
        while end > 0 && matches!(bytes[end - 1], b' ' | b'\t' | b'\n' | b'\r') {
            if same_line && matches!(bytes[end - 1], b'\n' | b'\r') {
                return None;
            }
            end -= 1;
        }
        let mut begin = end;
        while begin > 0 && !matches!(bytes[begin - 1], b' ' | b'\t' | b'\n' | b'\r') {
            begin -= 1;
        }
        let token = source.get(begin..end)?.trim_start_matches(['[', '{', ',']);
        if token.starts_with('!') {
            return Some(token.to_owned());
        }
        if token.starts_with('&') && begin < end {
            end = begin;
            continue;
        }
        return None;
    }
}

/// A scalar under an explicit tag.
fn tagged(tag: &str, probe: &Probe, text: &str) -> Core {
    const CORE: &str = "tag:yaml.org,2002:";
    let name = tag
        .strip_prefix("!!")
        .or_else(|| {
            tag.strip_prefix("!<")
                .and_then(|rest| rest.strip_suffix('>'))
                .and_then(|uri| uri.strip_prefix(CORE))
        })
        .unwrap_or(tag);
    match name {
        "!" | "str" => Core::Str,
        "int" | "float" | "bool" | "null" => match from_probe(probe) {
            Core::Str => resolve_plain(text),
            typed => typed,
        },
        other => Core::Other(other.to_owned()),
    }
}

/// yaml_serde's typing, where nothing better is known.
fn from_probe(probe: &Probe) -> Core {
    match probe {
        Probe::Null | Probe::Empty => Core::Null,
        Probe::Bool(value) => Core::Bool(*value),
        Probe::Int(value) => Core::Int(value.clone()),
        Probe::Float(value) => Core::Float(*value),
        Probe::Tagged(tag, _) if tag == "!" => Core::Str,
        Probe::Tagged(tag, _) => Core::Other(tag.clone()),
        Probe::Str | Probe::Sequence(_) | Probe::Mapping(_) => Core::Str,
    }
}

/// The YAML 1.2 core schema's resolution of an untagged plain scalar.
pub(super) fn resolve_plain(text: &str) -> Core {
    match text {
        "" | "~" | "null" | "Null" | "NULL" => return Core::Null,
        "true" | "True" | "TRUE" => return Core::Bool(true),
        "false" | "False" | "FALSE" => return Core::Bool(false),
        ".inf" | ".Inf" | ".INF" | "+.inf" | "+.Inf" | "+.INF" => {
            return Core::Float(f64::INFINITY)
        }
        "-.inf" | "-.Inf" | "-.INF" => return Core::Float(f64::NEG_INFINITY),
        ".nan" | ".NaN" | ".NAN" => return Core::Float(f64::NAN),
        _ => {}
    }
    if let Some(digits) = text.strip_prefix("0o") {
        if !digits.is_empty() && digits.bytes().all(|b| (b'0'..=b'7').contains(&b)) {
            return Core::Int(canonical_int(digits, 8, false));
        }
    }
    if let Some(digits) = text.strip_prefix("0x") {
        if !digits.is_empty() && digits.bytes().all(|b| b.is_ascii_hexdigit()) {
            return Core::Int(canonical_int(digits, 16, false));
        }
    }
    let (negative, unsigned) = match text.as_bytes().first() {
        Some(b'-') => (true, &text[1..]),
        Some(b'+') => (false, &text[1..]),
        _ => (false, text),
    };
    if !unsigned.is_empty() && unsigned.bytes().all(|b| b.is_ascii_digit()) {
        return Core::Int(canonical_int(unsigned, 10, negative));
    }
    if is_core_float(unsigned) {
        let value: f64 = unsigned.parse().unwrap_or(f64::NAN);
        return Core::Float(if negative { -value } else { value });
    }
    Core::Str
}

/// `(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?` (the sign already taken off).
fn is_core_float(text: &str) -> bool {
    let (mantissa, exponent) = match text.find(['e', 'E']) {
        Some(index) => (&text[..index], Some(&text[index + 1..])),
        None => (text, None),
    };
    let digits = |part: &str| part.bytes().all(|b| b.is_ascii_digit());
    let mantissa_ok = match mantissa.split_once('.') {
        Some(("", fraction)) => !fraction.is_empty() && digits(fraction),
        Some((whole, fraction)) => !whole.is_empty() && digits(whole) && digits(fraction),
        None => !mantissa.is_empty() && digits(mantissa),
    };
    let exponent_ok = match exponent {
        None => true,
        Some(exponent) => {
            let exponent = exponent.strip_prefix(['-', '+']).unwrap_or(exponent);
            !exponent.is_empty() && digits(exponent)
        }
    };
    mantissa_ok && exponent_ok
}

/// An integer's canonical decimal form (for comparing keys: `0x10` and `16` are equal).
fn canonical_int(digits: &str, radix: u32, negative: bool) -> String {
    match u128::from_str_radix(digits, radix) {
        Ok(0) => "0".into(),
        Ok(value) if negative => format!("-{value}"),
        Ok(value) => value.to_string(),
        // Past u128: the digits themselves, without leading zeros, stand for the value.
        Err(_) => {
            let trimmed = digits.trim_start_matches('0').to_ascii_lowercase();
            format!("{}{radix}:{trimmed}", if negative { "-" } else { "" })
        }
    }
}

/// A key's identity for finding repeated keys: equal values (after core-schema resolution,
/// mappings compared without regard to order) have equal identities. With `by_text`, a
/// scalar is its written form instead (the `yaml-duplicate-keys-by-text` switch).
pub(super) fn identity(node: &Node, by_text: bool) -> String {
    match node {
        Node::Scalar(scalar) if by_text => {
            let mark = if scalar.style == Style::Quoted {
                'q'
            } else {
                'p'
            };
            format!("{mark}{}:{}", scalar.text.len(), scalar.text)
        }
        Node::Scalar(scalar) => match &scalar.value {
            Core::Null => "n".into(),
            Core::Bool(value) => format!("b{value}"),
            Core::Int(value) => format!("i{value}"),
            Core::Float(value) if value.is_nan() => "fnan".into(),
            Core::Float(value) => format!("f{:?}", value + 0.0),
            Core::Str => format!("s{}:{}", scalar.text.len(), scalar.text),
            Core::Other(tag) => {
                format!("t{}:{tag}{}:{}", tag.len(), scalar.text.len(), scalar.text)
            }
        },
        Node::Sequence(items) => {
            let inner: Vec<String> = items.iter().map(|item| identity(item, by_text)).collect();
            format!("[{}:{}]", inner.len(), inner.join(","))
        }
        Node::Mapping(entries) => {
            let mut inner: Vec<String> = entries
                .iter()
                .map(|(key, value)| {
                    let key = identity(key, by_text);
                    format!("{}:{key}={}", key.len(), identity(value, by_text))
                })
                .collect();
            inner.sort();
            format!("{{{}:{}}}", inner.len(), inner.join(","))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn value_of(source: &str, key: &str) -> Core {
        let Ok(Document::Node(Node::Mapping(entries))) = read(source, Options::default()) else {
            panic!("not a mapping: {source:?}");
        };
        entries
            .into_iter()
            .find_map(|(k, v)| match (k, v) {
                (Node::Scalar(k), Node::Scalar(v)) if &*k.text == key => Some(v.value),
                _ => None,
            })
            .unwrap()
    }

    #[test]
    fn core_schema_typing() {
        assert_eq!(value_of("a: 123\n", "a"), Core::Int("123".into()));
        assert_eq!(value_of("a: 0123\n", "a"), Core::Int("123".into()));
        assert_eq!(value_of("a: 0b101\n", "a"), Core::Str);
        assert_eq!(value_of("a: \"123\"\n", "a"), Core::Str);
        assert_eq!(value_of("a: '0123'\n", "a"), Core::Str);
        assert_eq!(value_of("a: \"\\x31\"\n", "a"), Core::Str);
        assert_eq!(value_of("a: !!str 0123\n", "a"), Core::Str);
        assert_eq!(value_of("a: !!int \"5\"\n", "a"), Core::Int("5".into()));
        assert_eq!(value_of("a: ! 2024\n", "a"), Core::Str);
        assert_eq!(
            value_of("a: !<tag:yaml.org,2002:str> 2024\n", "a"),
            Core::Str
        );
        assert_eq!(value_of("a: 0o17\n", "a"), Core::Int("15".into()));
        assert_eq!(value_of("a: 1e3\n", "a"), Core::Float(1000.0));
        assert_eq!(value_of("a: 1_000\n", "a"), Core::Str);
        assert_eq!(value_of("a: yes\n", "a"), Core::Str);
        assert_eq!(value_of("a:\n", "a"), Core::Null);
        assert_eq!(value_of("a: ~\n", "a"), Core::Null);
        assert_eq!(value_of("a: &x 12\nb: *x\n", "b"), Core::Int("12".into()));
        assert_eq!(value_of("a: -0o17\n", "a"), Core::Str);
        assert_eq!(value_of("a: |\n  12\n", "a"), Core::Str);
        assert_eq!(value_of("!!map\na: 12\n", "a"), Core::Int("12".into()));
        assert_eq!(value_of("a: !!str\n  12\n", "a"), Core::Str);
        assert!(read("a: \u{feff}x\n", Options::default()).is_err());
        assert!(read("a: \"1\u{feff}2\"\n", Options::default()).is_ok());
        let Ok(Document::Node(Node::Mapping(entries))) = read("a: x\u{85}y\n", Options::default())
        else {
            panic!("NEL is a character in YAML 1.2");
        };
        assert!(matches!(&entries[0].1, Node::Scalar(s) if &*s.text == "x\u{85}y"));
    }

    #[test]
    fn tabs_and_bounds() {
        for source in [
            "?\tname\n:\tx\n",
            "{name:\tx, description:\ty}\n",
            "name:\tx\n",
            "- \tx\n",
            "-\tx\n",
        ] {
            assert!(read(source, Options::default()).is_ok(), "{source:?}");
        }
        assert!(read("? owner\n:\tteam: platform\n", Options::default()).is_err());
        let deep = format!("a: {}{}\n", "[".repeat(70), "]".repeat(70));
        assert!(matches!(
            read(&deep, Options::default()),
            Err(Failure::Bound(_))
        ));
        let unclosed = format!("a: {}\n", "[".repeat(2000));
        assert!(matches!(
            read(&unclosed, Options::default()),
            Err(Failure::Bound(_))
        ));
        let at = format!("a: {}{}\n", "[".repeat(63), "]".repeat(63));
        assert!(read(&at, Options::default()).is_ok());
    }
}
