//! Skill package envelopes: a valid envelope (version 1, `asset-package`, a `SKILL.md` head
//! whose YAML frontmatter holds a name and a description at their length bounds, in any
//! YAML quoting, and supporting files under safe paths), and targeted mutations of the
//! envelope, its paths and its head with the diagnostics each must draw.

use arbitrary::Unstructured;

use super::{Generated, NEAR_MISS_KEYS};
use crate::invariants::{Expected, Place};
use crate::json_text::Json;

/// Most characters of the head's name (spec, Head contract).
pub const NAME_MAX: usize = 128;

/// Most characters of the head's description (spec, Head contract).
pub const DESCRIPTION_MAX: usize = 1024;

/// Characters of YAML scalars: inert in plain, single- and double-quoted style alike (no
/// `:`, `#`, quotes, backslashes or flow indicators), so every quoting denotes the same
/// text.
const SCALAR: &[&str] = &[
    "a", "b", "k", "o", "r", "s", "t", "y", "é", "ß", "漢", "字", "ש", "Ω", " ", ".", "-", "ø",
    "\u{301}",
];

/// A YAML scalar's text of exactly `chars` characters: starts with a letter, no space at
/// either end.
fn scalar(u: &mut Unstructured<'_>, chars: usize) -> arbitrary::Result<String> {
    let mut text = String::from(*u.choose(&["R", "e", "漢", "Ω"])?);
    while text.chars().count() < chars {
        let piece = if u.is_empty() { "a" } else { u.choose(SCALAR)? };
        text.push_str(piece);
    }
    if text.ends_with(' ') || text.ends_with('-') || text.ends_with('\u{301}') {
        text.pop();
        text.push('z');
    }
    Ok(text)
}

/// A scalar in a fuzz-chosen YAML quoting.
fn quoted(u: &mut Unstructured<'_>, text: &str) -> arbitrary::Result<String> {
    Ok(match u.int_in_range(0u8..=2)? {
        0 => text.to_owned(),
        1 => format!("'{text}'"),
        _ => format!("\"{text}\""),
    })
}

/// The parts of a head, so mutations can change one.
struct Head {
    name: Option<String>,
    description: Option<String>,
    body: String,
}

impl Head {
    fn text(&self, u: &mut Unstructured<'_>) -> arbitrary::Result<String> {
        let mut lines = vec!["---".to_owned()];
        let mut fields = Vec::new();
        if let Some(name) = &self.name {
            fields.push(format!("name: {}", quoted(u, name)?));
        }
        if let Some(description) = &self.description {
            fields.push(format!("description: {}", quoted(u, description)?));
        }
        if u.arbitrary()? {
            fields.reverse();
        }
        lines.extend(fields);
        lines.push("---".to_owned());
        lines.push(self.body.clone());
        Ok(lines.join("\n") + "\n")
    }
}

/// Safe supporting file paths.
const PATHS: &[&str] = &[
    "references/checklist.md",
    "scripts/run.py",
    "assets/template.txt",
    "notes.md",
    "a/b/c/d.json",
    "données/été.md",
];

/// The content types of supporting files, all text.
const TYPES: &[&str] = &[
    "text/markdown",
    "text/plain",
    "text/x-python",
    "application/json",
    "text/plain; charset=utf-8",
    "application/ld+json",
];

/// The targeted mutations of an envelope.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mutation {
    /// None: the valid envelope.
    None,
    /// The name or description one character too long.
    LengthPlusOne,
    /// The name or description missing.
    DropField,
    /// An envelope member no envelope has (accepted in the spec profile).
    UnknownKey,
    /// A repeated envelope member.
    DuplicateKey,
    /// A supporting file's path leaving the package or absolute.
    BadPath,
    /// Two files with one path.
    DuplicatePath,
    /// A raw control byte inside a string literal: not JSON any more.
    RawControl,
    /// Several untargeted edits; no prediction.
    Scramble,
}

impl Mutation {
    /// Every mutation.
    pub const ALL: &'static [Mutation] = &[
        Mutation::None,
        Mutation::LengthPlusOne,
        Mutation::DropField,
        Mutation::UnknownKey,
        Mutation::DuplicateKey,
        Mutation::BadPath,
        Mutation::DuplicatePath,
        Mutation::RawControl,
        Mutation::Scramble,
    ];
}

/// An envelope with a fuzz-chosen mutation.
pub fn generate(u: &mut Unstructured<'_>) -> arbitrary::Result<Generated> {
    let mutation = *u.choose(Mutation::ALL)?;
    generate_with(u, mutation)
}

/// A supporting file of the envelope.
struct SupportFile {
    path: String,
    content: String,
    content_type: String,
}

/// What a mutation must draw, and how to describe it in a violation message.
struct Prediction {
    /// The diagnostics the envelope must get, exactly.
    expected: Vec<Expected>,
    /// What the strict profile adds ([`Generated::strict_only`]).
    strict_only: Vec<Expected>,
    /// The mutation's name and what it did.
    summary: String,
}

/// The pointer of the head's content: the head is always the first file.
const HEAD_POINTER: &str = "/files/0/content";

/// An envelope with the given mutation applied.
pub fn generate_with(u: &mut Unstructured<'_>, mutation: Mutation) -> arbitrary::Result<Generated> {
    let decisions = u.bytes(u.len().min(64))?;
    let mut plan = Unstructured::new(decisions);
    let mut head = valid_head(u)?;
    let files = support_files(u)?;
    let u = &mut plan;
    let mut prediction = Prediction {
        strict_only: Vec::new(),
        expected: Vec::new(),
        summary: format!("{mutation:?}"),
    };
    edit_head(u, mutation, &mut head, &mut prediction)?;
    let mut tree = envelope(u, &head, &files)?;
    edit_envelope(u, mutation, &mut tree, &files, &mut prediction)?;
    if mutation == Mutation::Scramble {
        return super::scrambled(u, &mut tree);
    }
    spell(u, mutation, &tree, prediction)
}

/// A valid head: name and description of fuzz-chosen lengths within their bounds, and a
/// short body.
fn valid_head(u: &mut Unstructured<'_>) -> arbitrary::Result<Head> {
    let name_length = super::length(u, 1, NAME_MAX)?;
    let description_length = super::length(u, 1, DESCRIPTION_MAX)?;
    Ok(Head {
        name: Some(scalar(u, name_length)?),
        description: Some(scalar(u, description_length)?),
        body: format!("# {}\n{}", scalar(u, 20)?, scalar(u, 60)?),
    })
}

/// Up to three supporting files under distinct safe paths.
fn support_files(u: &mut Unstructured<'_>) -> arbitrary::Result<Vec<SupportFile>> {
    let extra = u.int_in_range(0usize..=3)?;
    let mut files = Vec::new();
    let mut used = Vec::new();
    for _ in 0..extra {
        let path = *u.choose(PATHS)?;
        if used.contains(&path) {
            continue;
        }
        used.push(path);
        files.push(SupportFile {
            path: path.to_owned(),
            content: scalar(u, 30)? + "\n",
            content_type: (*u.choose(TYPES)?).to_owned(),
        });
    }
    Ok(files)
}

/// Applies the mutations made on the head: the name or description one character too
/// long, or missing.
fn edit_head(
    u: &mut Unstructured<'_>,
    mutation: Mutation,
    head: &mut Head,
    prediction: &mut Prediction,
) -> arbitrary::Result<()> {
    let (field, rule) = match mutation {
        Mutation::LengthPlusOne => {
            if u.arbitrary()? {
                head.name = Some(scalar(u, NAME_MAX + 1)?);
                ("name", "skill-package.head.name.length")
            } else {
                head.description = Some(scalar(u, DESCRIPTION_MAX + 1)?);
                ("description", "skill-package.head.description.length")
            }
        }
        Mutation::DropField => {
            if u.arbitrary()? {
                head.name = None;
                ("name", "skill-package.head.name.required")
            } else {
                head.description = None;
                ("description", "skill-package.head.description.required")
            }
        }
        _ => return Ok(()),
    };
    prediction
        .expected
        .push(Expected::pointer(rule, HEAD_POINTER));
    prediction.summary.push_str(&format!(" {field}"));
    Ok(())
}

/// The envelope holding the head, first, and the supporting files.
fn envelope(
    u: &mut Unstructured<'_>,
    head: &Head,
    files: &[SupportFile],
) -> arbitrary::Result<Json> {
    let mut items = vec![Json::object(vec![
        ("path", Json::str("SKILL.md")),
        ("content", Json::String(head.text(u)?)),
        ("contentType", Json::str("text/markdown")),
    ])];
    for file in files {
        items.push(Json::object(vec![
            ("path", Json::str(&file.path)),
            ("content", Json::str(&file.content)),
            ("contentType", Json::str(&file.content_type)),
        ]));
    }
    Ok(Json::object(vec![
        ("version", Json::Number("1".into())),
        ("kind", Json::str("asset-package")),
        ("headPath", Json::str("SKILL.md")),
        ("files", Json::Array(items)),
    ]))
}

/// Applies the mutations made on the envelope: an unknown or repeated member, a bad or
/// repeated supporting file path.
fn edit_envelope(
    u: &mut Unstructured<'_>,
    mutation: Mutation,
    tree: &mut Json,
    files: &[SupportFile],
    prediction: &mut Prediction,
) -> arbitrary::Result<()> {
    let expected = &mut prediction.expected;
    let strict_only = &mut prediction.strict_only;
    let summary = &mut prediction.summary;
    match mutation {
        Mutation::UnknownKey => {
            let key = *u.choose(NEAR_MISS_KEYS)?;
            tree.push_member("", key, Json::str("x"));
            let pointer = crate::json_text::join("", key);
            // skill-package.envelope.unknown-key is a strict-profile rule: the spec lists
            // the members without closing the object, so the spec profile (the one
            // generated documents are judged in) accepts the member and predicts nothing.
            summary.push_str(&format!(" {pointer}"));
        }
        Mutation::DuplicateKey => {
            let pointer = *u.choose(&["/version", "/kind", "/headPath", "/files"])?;
            tree.duplicate(pointer);
            // skill-package.json.duplicate-key is a strict-profile rule: in the spec
            // profile the last occurrence stands, and it repeats the first.
            strict_only.push(Expected::pointer(
                "skill-package.json.duplicate-key",
                pointer,
            ));
            summary.push_str(&format!(" {pointer}"));
        }
        Mutation::BadPath | Mutation::DuplicatePath if files.is_empty() => {
            return Err(arbitrary::Error::IncorrectFormat)
        }
        Mutation::BadPath => {
            let (path, rule) = *u.choose(&[
                ("../outside.md", "skill-package.path.dot-dot"),
                ("references/../../x.md", "skill-package.path.dot-dot"),
                ("/etc/passwd", "skill-package.path.absolute"),
            ])?;
            if let Some(node) = tree.at_mut("/files/1/path") {
                *node = Json::str(path);
            }
            expected.push(Expected::pointer(rule, "/files/1/path"));
            summary.push_str(&format!(" {path}"));
        }
        Mutation::DuplicatePath => {
            if let Some(Json::Array(items)) = tree.at_mut("/files") {
                let copy = items[1].clone();
                items.push(copy);
            }
            let pointer = format!("/files/{}/path", files.len() + 1);
            expected.push(Expected::pointer("skill-package.path.duplicate", &pointer));
        }
        _ => {}
    }
    Ok(())
}

/// Spells the envelope; a raw control byte is put into the spelled text, and then the
/// syntax error is all that is reported.
fn spell(
    u: &mut Unstructured<'_>,
    mutation: Mutation,
    tree: &Json,
    prediction: Prediction,
) -> arbitrary::Result<Generated> {
    let (mut bytes, respelled) = super::spell(u, tree)?;
    if mutation == Mutation::RawControl {
        let control = *u.choose(&[0u8, 1, 2, 7, 8, 0x0B, 0x0C, 0x1B, 0x1F])?;
        let from = u.int_in_range(0..=bytes.len())?;
        if !super::raw_control(&mut bytes, control, from) {
            return Err(arbitrary::Error::IncorrectFormat);
        }
        return Ok(Generated {
            bytes,
            expected: Some(vec![Expected {
                rule: "skill-package.json.syntax".to_owned(),
                place: Place::Text,
            }]),
            strict_only: Vec::new(),
            respelled: None,
            summary: prediction.summary,
        });
    }
    Ok(Generated {
        bytes,
        expected: Some(prediction.expected),
        strict_only: prediction.strict_only,
        respelled: Some(respelled),
        summary: prediction.summary,
    })
}
