//! The shape of a kit: the field table, the voice, behavior, adaptations and examples
//! paragraphs, and "All objects are closed". Each member is looked up once (its first
//! occurrence, the repetitions being soul-kit.json.duplicate-key's), checked for its type,
//! then for its value, and every string it holds goes through [`strings::check_text`].

use std::borrow::Cow;
use std::collections::HashSet;

use regex::Regex;

use super::raw;
use super::read::Document;
use super::report::{index_pointer, member_pointer, Report};
use super::strings::check_text;
use super::tree::{Member, Node};
use super::Planted;

/// The root's members (field table), in the table's order.
const ROOT_KEYS: [&str; 12] = [
    "format",
    "format_version",
    "id",
    "name",
    "version",
    "summary",
    "scope",
    "voice",
    "behavior",
    "adaptations",
    "examples",
    "checks",
];

/// voice: "Object containing core, traits, style_rules, avoid".
const VOICE_KEYS: [&str; 4] = ["core", "traits", "style_rules", "avoid"];

/// behavior: "Object with explain, disagree, uncertainty, mistakes, progress".
const BEHAVIOR_KEYS: [&str; 5] = ["explain", "disagree", "uncertainty", "mistakes", "progress"];

/// adaptations: "Object with everyday, focused, sensitive, writing".
const ADAPTATION_KEYS: [&str; 4] = ["everyday", "focused", "sensitive", "writing"];

/// format: "Exactly `soulware.soul-kit`".
const FORMAT: &str = "soulware.soul-kit";

/// scope: "`conversation`, `writing`, or `both`".
const SCOPES: [&str; 3] = ["conversation", "writing", "both"];

/// A string with a length limit in characters.
struct Text {
    /// The member's key.
    key: &'static str,
    /// The catalogue rule of its length.
    rule: &'static str,
    /// At most this many characters.
    max: usize,
    /// Whether the spec says "nonempty" (the visible-content rule applies either way).
    nonempty: bool,
}

/// "For each example, situation is at most 160 characters; user 800; assistant 1800;
/// note 400. All four are required."
const EXAMPLE_TEXTS: [Text; 4] = [
    Text {
        key: "situation",
        rule: "soul-kit.examples.situation.length",
        max: 160,
        nonempty: false,
    },
    Text {
        key: "user",
        rule: "soul-kit.examples.user.length",
        max: 800,
        nonempty: false,
    },
    Text {
        key: "assistant",
        rule: "soul-kit.examples.assistant.length",
        max: 1800,
        nonempty: false,
    },
    Text {
        key: "note",
        rule: "soul-kit.examples.note.length",
        max: 400,
        nonempty: false,
    },
];

/// A list of strings with a count range and a length limit per entry.
struct List {
    /// The member's key.
    key: &'static str,
    /// The catalogue rule of its count.
    count_rule: &'static str,
    /// At least this many entries.
    min: usize,
    /// At most this many entries.
    max: usize,
    /// Each entry.
    entry: Text,
}

/// "`traits` has 3–6 entries of at most 240 characters".
const TRAITS: List = List {
    key: "traits",
    count_rule: "soul-kit.voice.traits.count",
    min: 3,
    max: 6,
    entry: Text {
        key: "traits",
        rule: "soul-kit.voice.traits.length",
        max: 240,
        nonempty: false,
    },
};

/// "`style_rules` has 3–12 entries of at most 400".
const STYLE_RULES: List = List {
    key: "style_rules",
    count_rule: "soul-kit.voice.style-rules.count",
    min: 3,
    max: 12,
    entry: Text {
        key: "style_rules",
        rule: "soul-kit.voice.style-rules.length",
        max: 400,
        nonempty: false,
    },
};

/// "`avoid` has 0–8 entries of at most 240".
const AVOID: List = List {
    key: "avoid",
    count_rule: "soul-kit.voice.avoid.count",
    min: 0,
    max: 8,
    entry: Text {
        key: "avoid",
        rule: "soul-kit.voice.avoid.length",
        max: 240,
        nonempty: false,
    },
};

/// checks: "3–8 nonempty strings, each at most 240 characters".
const CHECKS: List = List {
    key: "checks",
    count_rule: "soul-kit.checks.count",
    min: 3,
    max: 8,
    entry: Text {
        key: "checks",
        rule: "soul-kit.checks.length",
        max: 240,
        nonempty: true,
    },
};

/// The members of one object, looked up by key.
struct Fields<'n> {
    members: &'n [Member],
    /// Where the object is.
    pointer: String,
    /// A map-based reader (the planted mistake) keeps a repeated key's last value.
    last_wins: bool,
}

impl<'n> Fields<'n> {
    /// The member `key` with its position among the members, if present.
    fn get(&self, key: &str) -> Option<(usize, &'n Node)> {
        let mut found = self
            .members
            .iter()
            .enumerate()
            .filter(|(_, member)| member.key == key);
        let member = if self.last_wins {
            found.next_back()
        } else {
            found.next()
        };
        member.map(|(index, member)| (index, &member.value))
    }

    /// The pointer of member `key`.
    fn pointer(&self, key: &str) -> String {
        member_pointer(&self.pointer, key)
    }

    /// soul-kit.field.required: the member `key`, or a report that it is missing.
    fn required(&self, key: &str, report: &mut Report<'_>) -> Option<&'n Node> {
        let value = self.get(key).map(|(_, value)| value);
        if value.is_none() {
            report.error(
                "soul-kit.field.required",
                &self.pointer(key),
                "a required member is missing",
            );
        }
        value
    }
}

/// Checks the whole kit.
pub fn check_kit(document: &Document, report: &mut Report<'_>) {
    let mut root = &document.root;
    if report.planted(Planted::RootArrayUnwrapped) {
        if let Node::Array(items) = root {
            if let [only @ Node::Object(_)] = items.as_slice() {
                root = only;
            }
        }
    }
    // soul-kit.root.type: "A Soul Kit is a UTF-8 JSON object".
    let Some(fields) = object(root, String::new(), "soul-kit.root.type", report) else {
        return;
    };
    closed(&fields, &ROOT_KEYS, true, report);
    check_format(&fields, report);
    check_format_version(&fields, &document.text, report);
    check_id(&fields, report);
    if let Some(name) = string_member(&fields, "name", report) {
        // soul-kit.name.length: "Nonempty string, at most 80 characters".
        check_length(
            name,
            "soul-kit.name.length",
            80,
            true,
            &fields.pointer("name"),
            report,
        );
    }
    check_version(&fields, report);
    if let Some(summary) = string_member(&fields, "summary", report) {
        // soul-kit.summary.length: "Nonempty string, at most 400 characters".
        let pointer = fields.pointer("summary");
        check_length(
            summary,
            "soul-kit.summary.length",
            400,
            true,
            &pointer,
            report,
        );
    }
    check_scope(&fields, report);
    check_voice(&fields, report);
    check_texts_object(
        &fields,
        "behavior",
        &BEHAVIOR_KEYS,
        "soul-kit.behavior.length",
        report,
    );
    check_texts_object(
        &fields,
        "adaptations",
        &ADAPTATION_KEYS,
        "soul-kit.adaptations.length",
        report,
    );
    check_examples(&fields, report);
    if let Some(checks) = fields.required(CHECKS.key, report) {
        check_list(checks, &CHECKS, &fields.pointer(CHECKS.key), report);
    }
}

/// The members of `node` if it is an object; else a type error under `rule`.
fn object<'n>(
    node: &'n Node,
    pointer: String,
    rule: &str,
    report: &mut Report<'_>,
) -> Option<Fields<'n>> {
    match node {
        Node::Object(members) => Some(Fields {
            members,
            pointer,
            last_wins: report.planted(Planted::DuplicateKeysIgnored),
        }),
        other => {
            report.error(
                rule,
                &pointer,
                format!("an object is due, not {}", other.kind()),
            );
            None
        }
    }
}

/// soul-kit.object.unknown-key ("All objects are closed: unknown properties ... are
/// invalid"): every member not listed is an error, reported at its first occurrence. Its
/// key is a string like any other, so it goes through the string rules too; its value is
/// not looked at.
fn closed(fields: &Fields<'_>, allowed: &[&str], is_root: bool, report: &mut Report<'_>) {
    if !is_root && report.planted(Planted::NestedObjectsOpen) {
        return;
    }
    let mut reported = HashSet::new();
    for member in fields.members {
        let key = member.key.as_str();
        if allowed.contains(&key) || !reported.insert(key) {
            continue;
        }
        let pointer = fields.pointer(key);
        report.error(
            "soul-kit.object.unknown-key",
            &pointer,
            "the object does not take this member",
        );
        check_text(key, &pointer, report);
    }
}

/// soul-kit.format.value: "Exactly `soulware.soul-kit`", a string, compared as it is.
fn check_format(fields: &Fields<'_>, report: &mut Report<'_>) {
    let Some(value) = fields.required("format", report) else {
        return;
    };
    let pointer = fields.pointer("format");
    let right = match value {
        Node::String(text) => {
            check_text(text, &pointer, report);
            if report.planted(Planted::FormatCaseInsensitive) {
                text.eq_ignore_ascii_case(FORMAT)
            } else {
                text == FORMAT
            }
        }
        _ => false,
    };
    if !right {
        report.error(
            "soul-kit.format.value",
            &pointer,
            format!("format must be exactly `{FORMAT}`"),
        );
    }
}

/// soul-kit.format-version.value: "Integer `1`", the number one, however JSON spells it
/// (`1.0` and `1e0` are the same JSON value). The strict profile asks for the spelling
/// `1` (soul-kit.format-version.spelling).
fn check_format_version(fields: &Fields<'_>, text: &str, report: &mut Report<'_>) {
    let Some((index, value)) = fields.get("format_version") else {
        fields.required("format_version", report);
        return;
    };
    let pointer = fields.pointer("format_version");
    let (is_one, spelt_one) = match value {
        Node::Number(number) if number.as_u64() == Some(1) => (true, true),
        Node::Number(number) => {
            // Not the integer 1 as serde_json reads it: decide on the digits as written,
            // since a float close to 1 is not 1.
            match root_scalar(text, index) {
                Some(spelling) => (raw::number_is_one(spelling), spelling == "1"),
                None => (number.as_f64() == Some(1.0), false),
            }
        }
        Node::String(string) if report.planted(Planted::FormatVersionStringAccepted) => {
            (string.trim().parse::<f64>() == Ok(1.0), true)
        }
        _ => (false, false),
    };
    if !is_one {
        report.error(
            "soul-kit.format-version.value",
            &pointer,
            "format_version must be the integer 1",
        );
    } else if !spelt_one && report.strict() {
        report.error(
            "soul-kit.format-version.spelling",
            &pointer,
            "format_version must be written `1`",
        );
    }
}

/// The text of the root object's member at `index` when it is a number or a literal.
fn root_scalar(text: &str, index: usize) -> Option<&str> {
    raw::objects(text)
        .into_iter()
        .next()?
        .members
        .get(index)?
        .scalar
}

/// soul-kit.id.length ("1–48 characters") and soul-kit.id.pattern ("lowercase
/// letters/digits separated by single hyphens", read as ASCII by the rule's decision).
fn check_id(fields: &Fields<'_>, report: &mut Report<'_>) {
    let Some(id) = string_member(fields, "id", report) else {
        return;
    };
    let pointer = fields.pointer("id");
    check_length(id, "soul-kit.id.length", 48, true, &pointer, report);
    let body = "[a-z0-9]+(?:-[a-z0-9]+)*";
    let pattern = match (
        report.planted(Planted::IdPatternUnanchored),
        report.planted(Planted::IdCaseInsensitive),
    ) {
        (true, _) => body.to_owned(),
        (false, true) => format!("(?i)^{body}$"),
        (false, false) => format!("^{body}$"),
    };
    if !full_match(&pattern, id) {
        report.error(
            "soul-kit.id.pattern",
            &pointer,
            "the id must be lowercase ASCII letters and digits in groups joined by single hyphens",
        );
    }
}

/// soul-kit.version.pattern ("Numeric `X.Y.Z`; 1–4 digits per component"): three groups
/// of one to four ASCII digits and nothing else, no trailing newline either.
fn check_version(fields: &Fields<'_>, report: &mut Report<'_>) {
    let Some(version) = string_member(fields, "version", report) else {
        return;
    };
    let digits = if report.planted(Planted::VersionFiveDigits) {
        "[0-9]{1,5}"
    } else {
        "[0-9]{1,4}"
    };
    let body = format!(r"{digits}\.{digits}\.{digits}");
    let pattern = if report.planted(Planted::VersionPatternUnanchored) {
        body
    } else if report.planted(Planted::VersionTrailingNewline) {
        format!("^{body}\n?$")
    } else {
        // In the regex crate `$` without the `m` flag is the end of the text only.
        format!("^{body}$")
    };
    if !full_match(&pattern, version) {
        report.error(
            "soul-kit.version.pattern",
            &fields.pointer("version"),
            "the version must be X.Y.Z with 1 to 4 digits per component",
        );
    }
}

/// Whether `text` matches `pattern` (anchored or not, as the pattern says).
fn full_match(pattern: &str, text: &str) -> bool {
    // The patterns are this module's own; one that failed to compile would be a bug,
    // and matching nothing then refuses rather than lets through.
    Regex::new(pattern).is_ok_and(|regex| regex.is_match(text))
}

/// soul-kit.scope.value: "`conversation`, `writing`, or `both`", exactly.
fn check_scope(fields: &Fields<'_>, report: &mut Report<'_>) {
    let Some(value) = fields.required("scope", report) else {
        return;
    };
    let pointer = fields.pointer("scope");
    let right = match value {
        Node::String(text) => {
            check_text(text, &pointer, report);
            if report.planted(Planted::ScopeCaseInsensitive) {
                SCOPES.iter().any(|scope| text.eq_ignore_ascii_case(scope))
            } else {
                SCOPES.contains(&text.as_str())
            }
        }
        _ => false,
    };
    if !right {
        report.error(
            "soul-kit.scope.value",
            &pointer,
            "scope must be `conversation`, `writing` or `both`",
        );
    }
}

/// voice: "Object containing core, traits, style_rules, avoid". "`voice.core` is at most
/// 800 characters" (no minimum: an empty core has no visible content instead).
fn check_voice(root: &Fields<'_>, report: &mut Report<'_>) {
    let Some(value) = root.required("voice", report) else {
        return;
    };
    let Some(voice) = object(value, root.pointer("voice"), "soul-kit.field.type", report) else {
        return;
    };
    closed(&voice, &VOICE_KEYS, false, report);
    if let Some(core) = string_member(&voice, "core", report) {
        // soul-kit.voice.core.length.
        check_length(
            core,
            "soul-kit.voice.core.length",
            800,
            false,
            &voice.pointer("core"),
            report,
        );
    }
    for list in [&TRAITS, &STYLE_RULES, &AVOID] {
        let value = if list.key == AVOID.key && report.planted(Planted::AvoidOptional) {
            voice.get(list.key).map(|(_, value)| value)
        } else {
            voice.required(list.key, report)
        };
        if let Some(value) = value {
            check_list(value, list, &voice.pointer(list.key), report);
        }
    }
}

/// behavior and adaptations: "Each behavior and adaptation is a nonempty string of at
/// most 600 characters" (soul-kit.behavior.length, soul-kit.adaptations.length).
fn check_texts_object(
    root: &Fields<'_>,
    key: &str,
    keys: &[&str],
    rule: &str,
    report: &mut Report<'_>,
) {
    let Some(value) = root.required(key, report) else {
        return;
    };
    let Some(fields) = object(value, root.pointer(key), "soul-kit.field.type", report) else {
        return;
    };
    closed(&fields, keys, false, report);
    for &member in keys {
        if let Some(text) = string_member(&fields, member, report) {
            check_length(text, rule, 600, true, &fields.pointer(member), report);
        }
    }
}

/// examples: "3–8 objects with situation, user, assistant, note" (soul-kit.examples.count).
fn check_examples(root: &Fields<'_>, report: &mut Report<'_>) {
    let Some(value) = root.required("examples", report) else {
        return;
    };
    let pointer = root.pointer("examples");
    let Some(entries) = entries(value, &pointer, report) else {
        return;
    };
    check_count(
        entries.len(),
        3,
        8,
        "soul-kit.examples.count",
        &pointer,
        report,
    );
    for (index, entry) in entries.iter().enumerate() {
        let entry_pointer = index_pointer(&pointer, index);
        if let Some(example) = object(entry, entry_pointer, "soul-kit.field.type", report) {
            check_example(&example, report);
        }
    }
}

/// One example: closed, all four strings required, each within its limit.
fn check_example(example: &Fields<'_>, report: &mut Report<'_>) {
    let keys = EXAMPLE_TEXTS.map(|text| text.key);
    closed(example, &keys, false, report);
    for text in &EXAMPLE_TEXTS {
        if text.key == "note"
            && report.planted(Planted::ExampleNoteOptional)
            && example.get(text.key).is_none()
        {
            continue;
        }
        if let Some(value) = string_member(example, text.key, report) {
            let pointer = example.pointer(text.key);
            check_length(value, text.rule, text.max, text.nonempty, &pointer, report);
        }
    }
}

/// A list of strings: its count, then each entry's type, length and string rules.
fn check_list(value: &Node, list: &List, pointer: &str, report: &mut Report<'_>) {
    let Some(entries) = entries(value, pointer, report) else {
        return;
    };
    check_count(
        entries.len(),
        list.min,
        list.max,
        list.count_rule,
        pointer,
        report,
    );
    for (index, entry) in entries.iter().enumerate() {
        let entry_pointer = index_pointer(pointer, index);
        match entry.as_ref() {
            Node::String(text) => {
                let Text {
                    rule,
                    max,
                    nonempty,
                    ..
                } = list.entry;
                check_length(text, rule, max, nonempty, &entry_pointer, report);
            }
            _ if report.planted(Planted::ArrayItemsUntyped) => {}
            other => report.error(
                "soul-kit.field.type",
                &entry_pointer,
                format!("a string is due, not {}", other.kind()),
            ),
        }
    }
}

/// soul-kit.field.type: the entries of an array (the field table's lists are arrays);
/// `None` after reporting a value of another type.
fn entries<'n>(
    value: &'n Node,
    pointer: &str,
    report: &mut Report<'_>,
) -> Option<Vec<Cow<'n, Node>>> {
    match value {
        Node::Array(items) => Some(items.iter().map(Cow::Borrowed).collect()),
        Node::String(text) if report.planted(Planted::StringAsArray) => Some(
            text.chars()
                .map(|c| Cow::Owned(Node::String(c.to_string())))
                .collect(),
        ),
        Node::Object(members) if report.planted(Planted::ObjectAsArray) => Some(
            members
                .iter()
                .map(|member| Cow::Borrowed(&member.value))
                .collect(),
        ),
        other => {
            report.error(
                "soul-kit.field.type",
                pointer,
                format!("an array is due, not {}", other.kind()),
            );
            None
        }
    }
}

/// A count range, both ends included.
fn check_count(
    count: usize,
    min: usize,
    max: usize,
    rule: &str,
    pointer: &str,
    report: &mut Report<'_>,
) {
    let min = if report.planted(Planted::CountMinMinusOne) {
        min.saturating_sub(1)
    } else {
        min
    };
    let max = if report.planted(Planted::CountMaxPlusOne) {
        max + 1
    } else {
        max
    };
    if !(min..=max).contains(&count) {
        report.error(
            rule,
            pointer,
            format!("{count} entries, not {min} to {max}"),
        );
    }
}

/// soul-kit.field.type: member `key`, which must be a string (null is none); `None` when
/// it is missing or of another type, after reporting that.
fn string_member<'n>(fields: &Fields<'n>, key: &str, report: &mut Report<'_>) -> Option<&'n str> {
    match fields.required(key, report)? {
        Node::String(text) => Some(text),
        other => {
            report.error(
                "soul-kit.field.type",
                &fields.pointer(key),
                format!("a string is due, not {}", other.kind()),
            );
            None
        }
    }
}

/// A length limit in characters, and the string rules. The catalogue counts Unicode
/// scalar values (JSON Schema's maxLength): the spec says "characters".
fn check_length(
    text: &str,
    rule: &str,
    max: usize,
    nonempty: bool,
    pointer: &str,
    report: &mut Report<'_>,
) {
    let length = measure(text, report);
    if nonempty && length == 0 {
        report.error(rule, pointer, "the string is empty");
    }
    let over = if report.planted(Planted::CharLimitsExclusive) {
        length >= max
    } else if report.planted(Planted::CharLimitsPlusOne) {
        length > max + 1
    } else {
        length > max
    };
    if over {
        report.error(
            rule,
            pointer,
            format!("{length} characters, more than {max}"),
        );
    }
    check_text(text, pointer, report);
}

/// The length of a string in characters (code points), or in the planted mistakes' units.
fn measure(text: &str, report: &Report<'_>) -> usize {
    if report.planted(Planted::LengthInBytes) {
        text.len()
    } else if report.planted(Planted::LengthInUtf16Units) {
        text.encode_utf16().count()
    } else if report.planted(Planted::LengthAfterTrim) {
        text.trim().chars().count()
    } else {
        text.chars().count()
    }
}
