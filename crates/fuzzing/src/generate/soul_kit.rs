//! Soul Kit documents: the spec's field table as data ([`ROOT`]), a valid kit built from
//! it, and the targeted mutations with the diagnostics each must draw.

use arbitrary::Unstructured;

use super::{Generated, CONTROLS, NEAR_MISS_KEYS};
use crate::invariants::{Expected, Place};
use crate::json_text::{self, Json};

/// The shape of one value, as the spec's field table gives it.
#[derive(Debug, Clone, Copy)]
pub enum Shape {
    /// `format`: exactly `soulware.soul-kit`.
    Format,
    /// `format_version`: the integer 1.
    FormatVersion,
    /// `id`: 1-48 characters of `^[a-z0-9]+(-[a-z0-9]+)*$`.
    Id,
    /// `version`: `X.Y.Z`, 1-4 ASCII digits each.
    Version,
    /// `scope`: `conversation`, `writing` or `both`.
    Scope,
    /// A string with visible content and at most `max` characters.
    Text {
        /// The length rule.
        rule: &'static str,
        /// Fewest characters (0 or 1).
        min: usize,
        /// Most characters.
        max: usize,
    },
    /// An array of `min..=max` strings, each a [`Shape::Text`].
    Texts {
        /// The count rule.
        count_rule: &'static str,
        /// Fewest items.
        min: usize,
        /// Most items.
        max: usize,
        /// Each item's shape.
        item: &'static Shape,
    },
    /// A closed object whose members are all required.
    Object(&'static [(&'static str, Shape)]),
    /// An array of `min..=max` closed objects.
    Objects {
        /// The count rule.
        count_rule: &'static str,
        /// Fewest items.
        min: usize,
        /// Most items.
        max: usize,
        /// Each item's members.
        fields: &'static [(&'static str, Shape)],
    },
}

const fn text(rule: &'static str, min: usize, max: usize) -> Shape {
    Shape::Text { rule, min, max }
}

const TRAIT: Shape = text("soul-kit.voice.traits.length", 0, 240);
const STYLE_RULE: Shape = text("soul-kit.voice.style-rules.length", 0, 400);
const AVOID: Shape = text("soul-kit.voice.avoid.length", 0, 240);
const CHECK: Shape = text("soul-kit.checks.length", 1, 240);

const VOICE: &[(&str, Shape)] = &[
    ("core", text("soul-kit.voice.core.length", 0, 800)),
    (
        "traits",
        Shape::Texts {
            count_rule: "soul-kit.voice.traits.count",
            min: 3,
            max: 6,
            item: &TRAIT,
        },
    ),
    (
        "style_rules",
        Shape::Texts {
            count_rule: "soul-kit.voice.style-rules.count",
            min: 3,
            max: 12,
            item: &STYLE_RULE,
        },
    ),
    (
        "avoid",
        Shape::Texts {
            count_rule: "soul-kit.voice.avoid.count",
            min: 0,
            max: 8,
            item: &AVOID,
        },
    ),
];

const BEHAVIOR: &[(&str, Shape)] = &[
    ("explain", text("soul-kit.behavior.length", 1, 600)),
    ("disagree", text("soul-kit.behavior.length", 1, 600)),
    ("uncertainty", text("soul-kit.behavior.length", 1, 600)),
    ("mistakes", text("soul-kit.behavior.length", 1, 600)),
    ("progress", text("soul-kit.behavior.length", 1, 600)),
];

const ADAPTATIONS: &[(&str, Shape)] = &[
    ("everyday", text("soul-kit.adaptations.length", 1, 600)),
    ("focused", text("soul-kit.adaptations.length", 1, 600)),
    ("sensitive", text("soul-kit.adaptations.length", 1, 600)),
    ("writing", text("soul-kit.adaptations.length", 1, 600)),
];

const EXAMPLE: &[(&str, Shape)] = &[
    (
        "situation",
        text("soul-kit.examples.situation.length", 0, 160),
    ),
    ("user", text("soul-kit.examples.user.length", 0, 800)),
    (
        "assistant",
        text("soul-kit.examples.assistant.length", 0, 1800),
    ),
    ("note", text("soul-kit.examples.note.length", 0, 400)),
];

/// The root object of a Soul Kit (spec: field table).
pub const ROOT: &[(&str, Shape)] = &[
    ("format", Shape::Format),
    ("format_version", Shape::FormatVersion),
    ("id", Shape::Id),
    ("name", text("soul-kit.name.length", 1, 80)),
    ("version", Shape::Version),
    ("summary", text("soul-kit.summary.length", 1, 400)),
    ("scope", Shape::Scope),
    ("voice", Shape::Object(VOICE)),
    ("behavior", Shape::Object(BEHAVIOR)),
    ("adaptations", Shape::Object(ADAPTATIONS)),
    (
        "examples",
        Shape::Objects {
            count_rule: "soul-kit.examples.count",
            min: 3,
            max: 8,
            fields: EXAMPLE,
        },
    ),
    (
        "checks",
        Shape::Texts {
            count_rule: "soul-kit.checks.count",
            min: 3,
            max: 8,
            item: &CHECK,
        },
    ),
];

/// Largest valid document, in bytes.
pub const MAX_BYTES: usize = soulcheck_reference::soul_kit::MAX_BYTES;

/// A value of the tree with its shape, so a mutation knows which rule guards it.
#[derive(Debug, Clone)]
pub struct Slot {
    /// Where it is.
    pub pointer: String,
    /// What it must be.
    pub shape: Shape,
}

/// A valid kit and every slot in it.
pub fn valid(u: &mut Unstructured<'_>) -> arbitrary::Result<(Json, Vec<Slot>)> {
    let mut slots = Vec::new();
    let tree = object(u, ROOT, "", &mut slots)?;
    Ok((tree, slots))
}

fn object(
    u: &mut Unstructured<'_>,
    fields: &[(&str, Shape)],
    pointer: &str,
    slots: &mut Vec<Slot>,
) -> arbitrary::Result<Json> {
    let mut members = Vec::new();
    for (key, shape) in fields {
        let member_pointer = json_text::join(pointer, key);
        members.push(((*key).to_owned(), value(u, *shape, &member_pointer, slots)?));
    }
    // Member order is free (spec: a JSON object); rotate it by a fuzz-chosen amount.
    let turn = u.int_in_range(0..=members.len().saturating_sub(1))?;
    members.rotate_left(turn);
    Ok(Json::Object(members))
}

fn value(
    u: &mut Unstructured<'_>,
    shape: Shape,
    pointer: &str,
    slots: &mut Vec<Slot>,
) -> arbitrary::Result<Json> {
    slots.push(Slot {
        pointer: pointer.to_owned(),
        shape,
    });
    Ok(match shape {
        Shape::Format => Json::str("soulware.soul-kit"),
        Shape::FormatVersion => Json::Number("1".to_owned()),
        Shape::Id => Json::String(id(u)?),
        Shape::Version => {
            let mut parts = Vec::new();
            for _ in 0..3 {
                let digits = u.int_in_range(1..=4)?;
                let part: String = (0..digits)
                    .map(|_| u.int_in_range(b'0'..=b'9').map(char::from))
                    .collect::<arbitrary::Result<_>>()?;
                parts.push(part);
            }
            Json::String(parts.join("."))
        }
        Shape::Scope => Json::str(*u.choose(&["conversation", "writing", "both"])?),
        Shape::Text { min, max, .. } => Json::String(super::text(u, min, max)?),
        Shape::Texts { min, max, item, .. } => {
            let n = super::count(u, min, max)?;
            let mut items = Vec::new();
            for index in 0..n {
                items.push(value(u, *item, &format!("{pointer}/{index}"), slots)?);
            }
            Json::Array(items)
        }
        Shape::Object(fields) => object(u, fields, pointer, slots)?,
        Shape::Objects {
            min, max, fields, ..
        } => {
            let n = super::count(u, min, max)?;
            let mut items = Vec::new();
            for index in 0..n {
                let item_pointer = format!("{pointer}/{index}");
                slots.push(Slot {
                    pointer: item_pointer.clone(),
                    shape: Shape::Object(fields),
                });
                items.push(object(u, fields, &item_pointer, slots)?);
            }
            Json::Array(items)
        }
    })
}

/// A valid kit id of a fuzz-chosen length (1-48).
fn id(u: &mut Unstructured<'_>) -> arbitrary::Result<String> {
    let length = super::length(u, 1, 48)?;
    let mut id = String::new();
    while id.len() < length {
        let hyphen = !id.is_empty() && !id.ends_with('-') && id.len() + 1 < length;
        if hyphen && u.ratio(1u8, 5)? {
            id.push('-');
        } else {
            id.push(char::from(
                *u.choose(b"abcdefghijklmnopqrstuvxyz0123456789")?,
            ));
        }
    }
    Ok(id)
}

/// The targeted mutations of a Soul Kit.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mutation {
    /// None: the valid kit.
    None,
    /// Remove a required member.
    DropRequired,
    /// Add a member no object has.
    UnknownKey,
    /// Make a bounded string one character too long.
    LengthPlusOne,
    /// Make an array one item too long or too short.
    CountOffByOne,
    /// Put a forbidden control character into a string.
    ControlCharacter,
    /// Repeat a member.
    DuplicateKey,
    /// Give a value the wrong JSON type.
    WrongType,
    /// Put reserved marker text into a string.
    Marker,
    /// Make a string invisible.
    Invisible,
    /// Break the id, version, scope, format or format_version.
    BadValue,
    /// Pad the kit to exactly the size limit (still valid) or one byte past it.
    Size,
    /// A raw control byte inside a string literal: not JSON any more.
    RawControl,
    /// Several untargeted edits; no prediction.
    Scramble,
}

impl Mutation {
    /// Every mutation.
    pub const ALL: &'static [Mutation] = &[
        Mutation::None,
        Mutation::DropRequired,
        Mutation::UnknownKey,
        Mutation::LengthPlusOne,
        Mutation::CountOffByOne,
        Mutation::ControlCharacter,
        Mutation::DuplicateKey,
        Mutation::WrongType,
        Mutation::Marker,
        Mutation::Invisible,
        Mutation::BadValue,
        Mutation::Size,
        Mutation::RawControl,
        Mutation::Scramble,
    ];
}

/// A kit with a fuzz-chosen mutation.
pub fn generate(u: &mut Unstructured<'_>) -> arbitrary::Result<Generated> {
    // A third of the kits are left valid: most mutations break one of the first checks a
    // reader makes, and a campaign needs documents that reach every check behind them
    // (measured in the fuzz tool's `generators/soul-kit/accepted-share` trial).
    let mutation = if u.ratio(1u8, 3u8)? {
        Mutation::None
    } else {
        *u.choose(Mutation::ALL)?
    };
    generate_with(u, mutation)
}

/// A kit with the given mutation applied.
pub fn generate_with(u: &mut Unstructured<'_>, mutation: Mutation) -> arbitrary::Result<Generated> {
    // The mutation's choices come from the front of the input, apart from the bytes the
    // document's content consumes, so they stay varied however long the document is.
    let decisions = u.bytes(u.len().min(64))?;
    let mut plan = Unstructured::new(decisions);
    let (mut tree, slots) = valid(u)?;
    let u = &mut plan;
    if mutation == Mutation::Scramble {
        return super::scrambled(u, &mut tree);
    }
    let mut prediction = Prediction {
        expected: Vec::new(),
        strict_only: Vec::new(),
        summary: format!("{mutation:?}"),
    };
    edit_tree(u, mutation, &mut tree, &slots, &mut prediction)?;
    spell(u, mutation, &tree, prediction)
}

/// What a mutation must draw, and how to describe it in a violation message.
struct Prediction {
    /// The diagnostics the document must get, exactly.
    expected: Vec<Expected>,
    /// What a strict-only rule adds in the strict profile ([`Generated::strict_only`]).
    strict_only: Vec<Expected>,
    /// The mutation's name and what it did.
    summary: String,
}

impl Prediction {
    /// Expects `rule` at `pointer` and names the pointer in the summary.
    fn at(&mut self, rule: &str, pointer: &str) {
        self.expected.push(Expected::pointer(rule, pointer));
        self.summary.push_str(&format!(" {pointer}"));
    }
}

/// Applies the mutations made on the tree; the size and raw-control mutations act on the
/// spelled text instead ([`spell`]).
fn edit_tree(
    u: &mut Unstructured<'_>,
    mutation: Mutation,
    tree: &mut Json,
    slots: &[Slot],
    prediction: &mut Prediction,
) -> arbitrary::Result<()> {
    match mutation {
        Mutation::None | Mutation::Size | Mutation::RawControl | Mutation::Scramble => Ok(()),
        Mutation::DropRequired => drop_required(u, tree, slots, prediction),
        Mutation::UnknownKey => unknown_key(u, tree, slots, prediction),
        Mutation::LengthPlusOne => length_plus_one(u, tree, slots, prediction),
        Mutation::CountOffByOne => count_off_by_one(u, tree, slots, prediction),
        Mutation::ControlCharacter => control_character(u, tree, slots, prediction),
        Mutation::DuplicateKey => duplicate_key(u, tree, slots, prediction),
        Mutation::WrongType => wrong_type(u, tree, slots, prediction),
        Mutation::Marker => marker(u, tree, slots, prediction),
        Mutation::Invisible => invisible(u, tree, slots, prediction),
        Mutation::BadValue => bad_value(u, tree, prediction),
    }
}

/// A fuzz-chosen slot among those `keep` accepts.
fn pick(
    u: &mut Unstructured<'_>,
    slots: &[Slot],
    keep: impl Fn(&Slot) -> bool,
) -> arbitrary::Result<Slot> {
    let candidates: Vec<&Slot> = slots.iter().filter(|slot| keep(slot)).collect();
    Ok((*u.choose(&candidates)?).clone())
}

/// Whether a slot is an object member (rather than an array item).
fn is_member(slot: &Slot) -> bool {
    !slot.pointer.rsplit('/').next().is_some_and(is_index)
}

/// Whether a slot is a bounded string.
fn is_text(slot: &Slot) -> bool {
    matches!(slot.shape, Shape::Text { .. })
}

/// Removes a required member.
fn drop_required(
    u: &mut Unstructured<'_>,
    tree: &mut Json,
    slots: &[Slot],
    prediction: &mut Prediction,
) -> arbitrary::Result<()> {
    let slot = pick(u, slots, is_member)?;
    tree.remove(&slot.pointer);
    prediction.at("soul-kit.field.required", &slot.pointer);
    Ok(())
}

/// Adds a near-miss key to the root or another object.
fn unknown_key(
    u: &mut Unstructured<'_>,
    tree: &mut Json,
    slots: &[Slot],
    prediction: &mut Prediction,
) -> arbitrary::Result<()> {
    let mut objects = vec![String::new()];
    objects.extend(
        slots
            .iter()
            .filter(|slot| matches!(slot.shape, Shape::Object(_)))
            .map(|slot| slot.pointer.clone()),
    );
    let object = u.choose(&objects)?.clone();
    let key = *u.choose(NEAR_MISS_KEYS)?;
    let value = Json::str(super::text(u, 1, 20)?);
    tree.push_member(&object, key, value);
    let pointer = json_text::join(&object, key);
    prediction.at("soul-kit.object.unknown-key", &pointer);
    // The key of an unknown member is a string the string rules check too; of the
    // near-miss keys only the empty one breaks one of them.
    if key.is_empty() {
        prediction
            .expected
            .push(Expected::pointer("soul-kit.string.visible", &pointer));
    }
    Ok(())
}

/// Makes a bounded string one character too long.
fn length_plus_one(
    u: &mut Unstructured<'_>,
    tree: &mut Json,
    slots: &[Slot],
    prediction: &mut Prediction,
) -> arbitrary::Result<()> {
    let slot = pick(u, slots, is_text)?;
    let Shape::Text { rule, max, .. } = slot.shape else {
        unreachable!("picked a text slot")
    };
    let long = super::text_of(u, max + 1)?;
    if let Some(node) = tree.at_mut(&slot.pointer) {
        *node = Json::String(long);
    }
    prediction.at(rule, &slot.pointer);
    Ok(())
}

/// Makes an array one item too long or too short.
fn count_off_by_one(
    u: &mut Unstructured<'_>,
    tree: &mut Json,
    slots: &[Slot],
    prediction: &mut Prediction,
) -> arbitrary::Result<()> {
    let slot = pick(u, slots, |slot| {
        matches!(slot.shape, Shape::Texts { .. } | Shape::Objects { .. })
    })?;
    let (count_rule, min, max) = match slot.shape {
        Shape::Texts {
            count_rule,
            min,
            max,
            ..
        }
        | Shape::Objects {
            count_rule,
            min,
            max,
            ..
        } => (count_rule, min, max),
        _ => unreachable!("picked an array slot"),
    };
    let grow = min == 0 || u.arbitrary()?;
    let target = if grow { max + 1 } else { min - 1 };
    // A new item is built from the same shape, so only the count is wrong.
    let mut scratch = Vec::new();
    let item = match slot.shape {
        Shape::Texts { item, .. } => value(u, *item, "", &mut scratch)?,
        Shape::Objects { fields, .. } => object(u, fields, "", &mut scratch)?,
        _ => unreachable!("picked an array slot"),
    };
    if let Some(Json::Array(items)) = tree.at_mut(&slot.pointer) {
        items.truncate(target);
        while items.len() < target {
            items.push(item.clone());
        }
    }
    prediction
        .expected
        .push(Expected::pointer(count_rule, &slot.pointer));
    prediction
        .summary
        .push_str(&format!(" {} to {target}", slot.pointer));
    Ok(())
}

/// Puts a forbidden control character into a string.
fn control_character(
    u: &mut Unstructured<'_>,
    tree: &mut Json,
    slots: &[Slot],
    prediction: &mut Prediction,
) -> arbitrary::Result<()> {
    let slot = pick(u, slots, is_text)?;
    // The spec forbids ASCII controls; C1 controls are a strict-profile rule.
    let ascii: Vec<char> = CONTROLS.iter().copied().filter(char::is_ascii).collect();
    let control = *u.choose(&ascii)?;
    if let Some(Json::String(text)) = tree.at_mut(&slot.pointer) {
        // After the first (visible) character; the last one goes, so the length stays
        // within bounds.
        let mut chars: Vec<char> = text.chars().collect();
        if chars.len() > 1 {
            chars.pop();
        }
        chars.insert(1, control);
        *text = chars.into_iter().collect();
    }
    prediction
        .expected
        .push(Expected::pointer("soul-kit.string.control", &slot.pointer));
    prediction
        .summary
        .push_str(&format!(" U+{:04X} in {}", control as u32, slot.pointer));
    Ok(())
}

/// Repeats a member.
fn duplicate_key(
    u: &mut Unstructured<'_>,
    tree: &mut Json,
    slots: &[Slot],
    prediction: &mut Prediction,
) -> arbitrary::Result<()> {
    let slot = pick(u, slots, is_member)?;
    tree.duplicate(&slot.pointer);
    prediction.at("soul-kit.json.duplicate-key", &slot.pointer);
    Ok(())
}

/// Gives a value the wrong JSON type.
fn wrong_type(
    u: &mut Unstructured<'_>,
    tree: &mut Json,
    slots: &[Slot],
    prediction: &mut Prediction,
) -> arbitrary::Result<()> {
    // format, format_version and scope have value rules of their own.
    let slot = pick(u, slots, |slot| {
        !matches!(
            slot.shape,
            Shape::Format | Shape::FormatVersion | Shape::Scope
        )
    })?;
    let Some(current) = tree.at(&slot.pointer).cloned() else {
        return Err(arbitrary::Error::IncorrectFormat);
    };
    let replacement = super::other_type(u, &current)?;
    if let Some(node) = tree.at_mut(&slot.pointer) {
        *node = replacement;
    }
    prediction.at("soul-kit.field.type", &slot.pointer);
    Ok(())
}

/// Puts reserved marker text, in some disguise, into a string long enough to hold it.
fn marker(
    u: &mut Unstructured<'_>,
    tree: &mut Json,
    slots: &[Slot],
    prediction: &mut Prediction,
) -> arbitrary::Result<()> {
    let slot = pick(
        u,
        slots,
        |slot| matches!(slot.shape, Shape::Text { max, .. } if max >= 40),
    )?;
    // The marker in ASCII letter cases; look-alike spellings (the Kelvin sign, zero-width
    // characters inside) are a strict-profile rule.
    let marker = *u.choose(&[
        "SOULWARE:DEFAULT",
        "soulware-kit:",
        "SoulWare-Kit:",
        "soulware:Default",
        "SOULWARE-kit:",
    ])?;
    let text = format!("Use {marker} here");
    if let Some(node) = tree.at_mut(&slot.pointer) {
        *node = Json::String(text);
    }
    prediction
        .expected
        .push(Expected::pointer("soul-kit.string.marker", &slot.pointer));
    prediction
        .summary
        .push_str(&format!(" {marker:?} in {}", slot.pointer));
    Ok(())
}

/// Makes a string invisible: whitespace, format characters, fillers.
fn invisible(
    u: &mut Unstructured<'_>,
    tree: &mut Json,
    slots: &[Slot],
    prediction: &mut Prediction,
) -> arbitrary::Result<()> {
    let slot = pick(u, slots, is_text)?;
    let blank = *u.choose(&[
        " ",
        "\u{200B}",
        "\u{3164}",
        "\u{A0}\u{2060}",
        "\t\n",
        "\u{301}",
        "\u{FEFF}",
        "\u{3000}",
        "\u{AD}",
        "\u{202E}\u{202C}",
    ])?;
    if let Some(node) = tree.at_mut(&slot.pointer) {
        *node = Json::str(blank);
    }
    prediction
        .expected
        .push(Expected::pointer("soul-kit.string.visible", &slot.pointer));
    prediction
        .summary
        .push_str(&format!(" {blank:?} in {}", slot.pointer));
    Ok(())
}

/// Breaks the id, version, scope, format or format_version.
fn bad_value(
    u: &mut Unstructured<'_>,
    tree: &mut Json,
    prediction: &mut Prediction,
) -> arbitrary::Result<()> {
    let (pointer, replacement, rule) = match u.int_in_range(0u8..=5)? {
        0 => (
            "/id",
            Json::str(*u.choose(&["A", "a--b", "-a", "a-", "a_b", "é", "a b"])?),
            "soul-kit.id.pattern",
        ),
        1 => ("/id", Json::String("a".repeat(49)), "soul-kit.id.length"),
        2 => (
            "/version",
            Json::str(*u.choose(&[
                "1.0",
                "10000.0.0",
                "v1.0.0",
                "1.0.0-rc1",
                "1..0",
                "١.٢.٣",
                " 1.0.0",
                "1.0.0\n",
            ])?),
            "soul-kit.version.pattern",
        ),
        3 => (
            "/scope",
            Json::str(*u.choose(&["Both", "none", "conversation ", "writing,both"])?),
            "soul-kit.scope.value",
        ),
        4 => (
            "/format",
            Json::str(*u.choose(&[
                "soulware.soul-kit ",
                "Soulware.Soul-Kit",
                "soul-kit",
                "soulware.soul_kit",
            ])?),
            "soul-kit.format.value",
        ),
        _ => (
            "/format_version",
            u.choose(&[
                Json::Number("1.0".into()),
                Json::Number("2".into()),
                Json::Number("1e0".into()),
                Json::Number("10e-1".into()),
                Json::str("1"),
                Json::Null,
            ])?
            .clone(),
            "soul-kit.format-version.value",
        ),
    };
    // The number 1 written otherwise is the value 1: only the strict profile's spelling
    // rule refuses it.
    let respelled_one = matches!(&replacement, Json::Number(text) if text != "1" && is_one(text));
    if let Some(node) = tree.at_mut(pointer) {
        *node = replacement;
    }
    if respelled_one {
        prediction.strict_only.push(Expected::pointer(
            "soul-kit.format-version.spelling",
            pointer,
        ));
        prediction.summary.push_str(&format!(" {pointer}"));
    } else {
        prediction.at(rule, pointer);
    }
    Ok(())
}

/// Spells the tree, then applies the mutations made on the text: padding to the size
/// limit and a raw control byte. Only a document edited as a tree has a respelling.
fn spell(
    u: &mut Unstructured<'_>,
    mutation: Mutation,
    tree: &Json,
    prediction: Prediction,
) -> arbitrary::Result<Generated> {
    let (bytes, respelled) = super::spell(u, tree)?;
    if bytes.len() > MAX_BYTES {
        // Escaping every astral character can take a kit past the limit: then the size
        // is all that is reported.
        return Ok(Generated {
            bytes,
            expected: Some(vec![Expected::document("soul-kit.size.max")]),
            strict_only: Vec::new(),
            respelled: None,
            summary: format!("{}, over the size limit", prediction.summary),
        });
    }
    match mutation {
        Mutation::Size => pad_to_limit(u, bytes, prediction),
        Mutation::RawControl => raw_control(u, bytes, prediction),
        _ => Ok(Generated {
            bytes,
            expected: Some(prediction.expected),
            strict_only: prediction.strict_only,
            respelled: Some(respelled),
            summary: prediction.summary,
        }),
    }
}

/// Pads the kit to exactly the size limit (still valid) or one byte past it.
fn pad_to_limit(
    u: &mut Unstructured<'_>,
    mut bytes: Vec<u8>,
    mut prediction: Prediction,
) -> arbitrary::Result<Generated> {
    let over = u.arbitrary::<bool>()?;
    let size = MAX_BYTES + usize::from(over);
    super::pad_json(&mut bytes, size);
    if over {
        prediction
            .expected
            .push(Expected::document("soul-kit.size.max"));
    }
    prediction.summary.push_str(&format!(" to {size} bytes"));
    Ok(Generated {
        bytes,
        expected: Some(prediction.expected),
        strict_only: prediction.strict_only,
        respelled: None,
        summary: prediction.summary,
    })
}

/// Puts a raw control byte inside a string literal: not JSON any more.
fn raw_control(
    u: &mut Unstructured<'_>,
    mut bytes: Vec<u8>,
    mut prediction: Prediction,
) -> arbitrary::Result<Generated> {
    // Tab, line feed and carriage return are whitespace outside strings.
    let control = *u.choose(&[0u8, 1, 2, 7, 8, 0x0B, 0x0C, 0x1B, 0x1F])?;
    let from = u.int_in_range(0..=bytes.len())?;
    if !super::raw_control(&mut bytes, control, from) {
        return Err(arbitrary::Error::IncorrectFormat);
    }
    prediction.expected.push(Expected {
        rule: "soul-kit.json.syntax".to_owned(),
        place: Place::Text,
    });
    prediction.summary.push_str(&format!(" 0x{control:02X}"));
    Ok(Generated {
        bytes,
        expected: Some(prediction.expected),
        strict_only: prediction.strict_only,
        respelled: None,
        summary: prediction.summary,
    })
}

/// The spellings of 1 this generator writes (`1.0`, `1e0`, `10e-1`).
fn is_one(text: &str) -> bool {
    matches!(text, "1.0" | "1e0" | "10e-1")
}

fn is_index(token: &str) -> bool {
    !token.is_empty() && token.bytes().all(|b| b.is_ascii_digit())
}
