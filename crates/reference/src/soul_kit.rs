//! Soul Kit exchange format v1 ("Soul Kit exchange format, version 1" in SPECS.md): a
//! closed JSON object of at most 262144 bytes describing a personality kit.
//!
//! The checker reads the document with the strict JSON reader, then walks the fixed shape
//! the spec's field table gives, reporting every violation it finds. Each check names its
//! rule constant; the rule's catalogue entry cites the passage and any decision taken.
//! The strict profile adds the suite's protective string rules (C1 controls, look-alike
//! spellings of the markers), which the spec's text allows.

use crate::diagnostic::rules::soul_kit as rule;

use crate::diagnostic::{Collect, Format, Message, Report, RuleId, Span};
use crate::json::walk::{optional, JsonRules, Repeats, UnknownMembers, Walker};
use crate::json::{pointer_join, Limits, Node, ReadRules, Value};
use crate::text;
use crate::{Context, Input, Profile, Unsupported};

/// Largest valid document, in bytes (spec: "Maximum encoded size is 262144 bytes").
pub const MAX_BYTES: usize = 262_144;

/// Nesting bound of the reader; see `soul-kit.json.depth`.
pub const MAX_DEPTH: usize = 64;

/// The JSON layer: soul-kit.size.max (spec: "Maximum encoded size is 262144 bytes"),
/// soul-kit.json.* (spec: "A Soul Kit is a UTF-8 JSON object"),
/// soul-kit.json.duplicate-key and soul-kit.object.unknown-key (spec: "unknown properties
/// and duplicate keys are invalid"; "All objects are closed"), soul-kit.field.type.
static JSON_RULES: JsonRules = JsonRules {
    limits: Limits {
        max_bytes: MAX_BYTES,
        max_depth: MAX_DEPTH,
    },
    read: ReadRules {
        size: rule::SIZE_MAX,
        bom: rule::JSON_BOM,
        utf8: rule::JSON_UTF8,
        surrogate: rule::JSON_SURROGATE,
        depth: rule::JSON_DEPTH,
        trailing: rule::JSON_TRAILING_DATA,
        syntax: rule::JSON_SYNTAX,
    },
    duplicate: rule::JSON_DUPLICATE_KEY,
    field_type: rule::FIELD_TYPE,
    required: rule::FIELD_REQUIRED,
    // Like every other check, the unknown-key check looks at the first occurrence of a
    // key only, so an unknown key is reported once however often it repeats; its
    // repetitions are soul-kit.json.duplicate-key's.
    unknown: Some(UnknownMembers {
        rule: rule::OBJECT_UNKNOWN_KEY,
        note: "this object is closed",
        repeats: Repeats::FirstOnly,
    }),
    null_as_absent: false,
};

const ROOT_FIELDS: &[&str] = &[
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
const VOICE_FIELDS: &[&str] = &["core", "traits", "style_rules", "avoid"];
const BEHAVIOR_FIELDS: &[&str] = &["explain", "disagree", "uncertainty", "mistakes", "progress"];
const ADAPTATION_FIELDS: &[&str] = &["everyday", "focused", "sensitive", "writing"];
const EXAMPLE_FIELDS: &[&str] = &["situation", "user", "assistant", "note"];
const SCOPES: &[&str] = &["conversation", "writing", "both"];
/// The reserved marker texts, found by the colon both hold.
const MARKERS: text::Markers = text::Markers::new(&["soulware:default", "soulware-kit:"], b':');

/// Character bounds of a string field and the rule enforcing them.
struct Bounds {
    rule: RuleId,
    min: usize,
    max: usize,
}

/// Count bounds of an array field and the rule enforcing them.
struct Count {
    rule: RuleId,
    min: usize,
    max: usize,
}

/// Validates one Soul Kit document (`soul-kit`, operation `validate`); a tree is refused.
/// The context's profile says whether the strict-only rules apply.
pub fn validate(input: Input<'_>, context: &Context) -> Result<Report, Unsupported> {
    Ok(check(
        input.document_bytes(Format::SoulKit, "validate")?,
        crate::profile(context),
    ))
}

/// Validates one Soul Kit document up to its first error (see
/// [`crate::first_error`]); a tree is refused.
pub fn validate_first_error(input: Input<'_>, context: &Context) -> Result<Report, Unsupported> {
    Ok(check_collecting(
        input.document_bytes(Format::SoulKit, "validate")?,
        crate::profile(context),
        Collect::FirstError,
    ))
}

/// Checks one Soul Kit document in `profile`.
pub fn check(source: &[u8], profile: Profile) -> Report {
    check_collecting(source, profile, Collect::Every)
}

/// Checks one Soul Kit document in `profile`, collecting every diagnostic or stopping at
/// the first error.
pub fn check_collecting(source: &[u8], profile: Profile, collect: Collect) -> Report {
    let mut walker = Walker::new(source, &JSON_RULES, Format::SoulKit, profile);
    walker.report.collect = collect;
    let mut checker = Checker { walker, profile };
    // The reader reports soul-kit.size.max, soul-kit.json.* and duplicate keys.
    if let Some(document) = checker.walker.read() {
        checker.root(&document.root);
    }
    checker.walker.report
}

/// Where a string sits: a JSON pointer, built only when a diagnostic needs it (a valid
/// kit has a hundred strings and no diagnostic).
#[derive(Debug, Clone, Copy)]
enum Place<'p> {
    /// At this pointer.
    At(&'p str),
    /// The member named by the key, of the object at the pointer.
    Member(&'p str, &'p str),
    /// The item at the index, of the array at the pointer.
    Item(&'p str, usize),
}

impl Place<'_> {
    /// The pointer.
    fn render(self) -> String {
        match self {
            Place::At(pointer) => pointer.to_owned(),
            Place::Member(object, key) => pointer_join(object, key),
            Place::Item(array, index) => format!("{array}/{index}"),
        }
    }
}

struct Checker<'s> {
    walker: Walker<'s>,
    profile: Profile,
}

impl Checker<'_> {
    fn at(&mut self, rule: RuleId, pointer: &str, span: Span, message: impl Message) {
        self.walker.at(rule, pointer, span, message);
    }

    /// Whether a first-error check has found its error, so the walk can end.
    fn stopped(&self) -> bool {
        self.walker.report.stopped()
    }

    fn root(&mut self, root: &Node<'_>) {
        // soul-kit.root.type (spec: "A Soul Kit is a UTF-8 JSON object").
        if root.as_object().is_none() {
            self.at(
                rule::ROOT_TYPE,
                "",
                root.span,
                format_args!("a Soul Kit is a JSON object, not {}", root.value.kind()),
            );
            return;
        }
        self.closed_object(root, "", ROOT_FIELDS);
        // A first-error check ends the walk at each section once it has its error; the
        // scalar members are cheap and are checked as one section.

        // soul-kit.format.value (spec: format is exactly `soulware.soul-kit`).
        if let Some(node) = self.member(root, "format") {
            if node.as_str() != Some("soulware.soul-kit") {
                self.at(
                    rule::FORMAT_VALUE,
                    "/format",
                    node.span,
                    "format must be the string \"soulware.soul-kit\"",
                );
            }
            self.string_rules(node, Place::At("/format"));
        }
        // soul-kit.format-version.value (spec: format_version is integer 1) and
        // soul-kit.format-version.spelling (strict profile only: the number 1 written
        // otherwise, which typed readers refuse).
        if let Some(node) = self.member(root, "format_version") {
            match node.value {
                Value::Number("1") => {}
                Value::Number(text) if crate::json::number_is_one(text) => {
                    if self.profile == Profile::Strict {
                        self.at(
                            rule::FORMAT_VERSION_SPELLING,
                            "/format_version",
                            node.span,
                            "format_version is 1 but written otherwise; write it `1`",
                        );
                    }
                }
                _ => self.at(
                    rule::FORMAT_VERSION_VALUE,
                    "/format_version",
                    node.span,
                    "format_version must be the integer 1",
                ),
            }
        }
        // soul-kit.id.length and soul-kit.id.pattern (spec: 1-48 characters; lowercase
        // letters/digits separated by single hyphens).
        if let Some(node) = self.member(root, "id") {
            if let Some((id, scan)) = self.string(node, Place::At("/id")) {
                let length = scan.length;
                if !(1..=48).contains(&length) {
                    self.at(
                        rule::ID_LENGTH,
                        "/id",
                        node.span,
                        format_args!("id is {length} characters; it must be 1 to 48"),
                    );
                }
                if !is_kit_id(id) {
                    self.at(
                        rule::ID_PATTERN,
                        "/id",
                        node.span,
                        "id must be lowercase letters and digits in groups separated by single hyphens",
                    );
                }
            }
        }
        self.text_member(
            root,
            "",
            "name",
            &Bounds {
                rule: rule::NAME_LENGTH,
                min: 1,
                max: 80,
            },
        );
        // soul-kit.version.pattern (spec: numeric X.Y.Z, 1-4 digits per component).
        if let Some(node) = self.member(root, "version") {
            if let Some((version, _)) = self.string(node, Place::At("/version")) {
                if !is_kit_version(version) {
                    self.at(
                        rule::VERSION_PATTERN,
                        "/version",
                        node.span,
                        "version must be X.Y.Z with 1 to 4 ASCII digits in each part",
                    );
                }
            }
        }
        self.text_member(
            root,
            "",
            "summary",
            &Bounds {
                rule: rule::SUMMARY_LENGTH,
                min: 1,
                max: 400,
            },
        );
        // soul-kit.scope.value (spec: `conversation`, `writing`, or `both`).
        if let Some(node) = self.member(root, "scope") {
            if !node.as_str().is_some_and(|scope| SCOPES.contains(&scope)) {
                self.at(
                    rule::SCOPE_VALUE,
                    "/scope",
                    node.span,
                    "scope must be \"conversation\", \"writing\" or \"both\"",
                );
            }
            self.string_rules(node, Place::At("/scope"));
        }
        if self.stopped() {
            return;
        }
        if let Some(voice) = self.member(root, "voice") {
            self.voice(voice);
        }
        if self.stopped() {
            return;
        }
        if let Some(behavior) = self.member(root, "behavior") {
            self.text_object(
                behavior,
                "/behavior",
                BEHAVIOR_FIELDS,
                rule::BEHAVIOR_LENGTH,
            );
        }
        if self.stopped() {
            return;
        }
        if let Some(adaptations) = self.member(root, "adaptations") {
            self.text_object(
                adaptations,
                "/adaptations",
                ADAPTATION_FIELDS,
                rule::ADAPTATIONS_LENGTH,
            );
        }
        if self.stopped() {
            return;
        }
        if let Some(examples) = self.member(root, "examples") {
            self.examples(examples);
        }
        if self.stopped() {
            return;
        }
        if let Some(checks) = self.member(root, "checks") {
            self.text_array(
                checks,
                "/checks",
                &Count {
                    rule: rule::CHECKS_COUNT,
                    min: 3,
                    max: 8,
                },
                &Bounds {
                    rule: rule::CHECKS_LENGTH,
                    min: 1,
                    max: 240,
                },
            );
        }
    }

    /// voice: core (at most 800), traits (3-6 of at most 240), style_rules (3-12 of at
    /// most 400), avoid (0-8 of at most 240).
    fn voice(&mut self, voice: &Node<'_>) {
        if !self.object_type(voice, "/voice") {
            return;
        }
        self.closed_object(voice, "/voice", VOICE_FIELDS);
        self.text_member(
            voice,
            "/voice",
            "core",
            &Bounds {
                rule: rule::VOICE_CORE_LENGTH,
                min: 0,
                max: 800,
            },
        );
        if let Some(traits) = self.member(voice, "traits") {
            self.text_array(
                traits,
                "/voice/traits",
                &Count {
                    rule: rule::VOICE_TRAITS_COUNT,
                    min: 3,
                    max: 6,
                },
                &Bounds {
                    rule: rule::VOICE_TRAITS_LENGTH,
                    min: 0,
                    max: 240,
                },
            );
        }
        if let Some(style_rules) = self.member(voice, "style_rules") {
            self.text_array(
                style_rules,
                "/voice/style_rules",
                &Count {
                    rule: rule::VOICE_STYLE_RULES_COUNT,
                    min: 3,
                    max: 12,
                },
                &Bounds {
                    rule: rule::VOICE_STYLE_RULES_LENGTH,
                    min: 0,
                    max: 400,
                },
            );
        }
        if let Some(avoid) = self.member(voice, "avoid") {
            self.text_array(
                avoid,
                "/voice/avoid",
                &Count {
                    rule: rule::VOICE_AVOID_COUNT,
                    min: 0,
                    max: 8,
                },
                &Bounds {
                    rule: rule::VOICE_AVOID_LENGTH,
                    min: 0,
                    max: 240,
                },
            );
        }
    }

    /// examples: 3-8 closed objects with situation (160), user (800), assistant (1800)
    /// and note (400), all required.
    fn examples(&mut self, examples: &Node<'_>) {
        let Some(items) = self.array(
            examples,
            "/examples",
            &Count {
                rule: rule::EXAMPLES_COUNT,
                min: 3,
                max: 8,
            },
        ) else {
            return;
        };
        let limits = [
            ("situation", rule::EXAMPLES_SITUATION_LENGTH, 160),
            ("user", rule::EXAMPLES_USER_LENGTH, 800),
            ("assistant", rule::EXAMPLES_ASSISTANT_LENGTH, 1800),
            ("note", rule::EXAMPLES_NOTE_LENGTH, 400),
        ];
        for (index, example) in items.iter().enumerate() {
            if self.stopped() {
                return;
            }
            let pointer = format!("/examples/{index}");
            if !self.object_type(example, &pointer) {
                continue;
            }
            self.closed_object(example, &pointer, EXAMPLE_FIELDS);
            for (field, rule, max) in limits {
                self.text_member(example, &pointer, field, &Bounds { rule, min: 0, max });
            }
        }
    }

    /// An object whose listed members are all bounded strings under one rule.
    fn text_object(&mut self, node: &Node<'_>, pointer: &str, fields: &[&str], rule: RuleId) {
        if !self.object_type(node, pointer) {
            return;
        }
        self.closed_object(node, pointer, fields);
        for field in fields {
            if self.stopped() {
                return;
            }
            self.text_member(
                node,
                pointer,
                field,
                &Bounds {
                    rule,
                    min: 1,
                    max: 600,
                },
            );
        }
    }

    /// soul-kit.object.unknown-key and soul-kit.field.required (spec: "All objects are
    /// closed"; every listed field is required), then the string rules on the key of each
    /// unknown member: a key is a JSON string too, and the only one a kit spells freely.
    fn closed_object(&mut self, node: &Node<'_>, pointer: &str, fields: &[&str]) {
        self.walker
            .closed_object(node, pointer, fields, rule::FIELD_REQUIRED);
        // Like the unknown-key check, only the first occurrence of a key.
        for member in node.as_object().unwrap_or_default() {
            let key: &str = &member.key;
            if self.stopped() {
                return;
            }
            if member.repeated || fields.contains(&key) {
                continue;
            }
            self.text_rules(key, Place::Member(pointer, key), member.key_span);
        }
    }

    /// The first member named `field`, if present (absence is reported by `closed_object`).
    fn member<'n, 'a>(&self, node: &'n Node<'a>, field: &str) -> Option<&'n Node<'a>> {
        optional(node, field)
    }

    /// soul-kit.field.type for objects.
    fn object_type(&mut self, node: &Node<'_>, pointer: &str) -> bool {
        self.walker.object(node, pointer).is_some()
    }

    /// soul-kit.field.type for strings, then the rules every string obeys; the string and
    /// what the scan for those rules found.
    fn string<'n>(
        &mut self,
        node: &'n Node<'_>,
        pointer: Place<'_>,
    ) -> Option<(&'n str, text::Scan)> {
        let Some(text) = node.as_str() else {
            // soul-kit.field.type, with the pointer built only for a kept diagnostic.
            self.walker
                .type_error_at(node, || pointer.render(), "a string");
            return None;
        };
        let scan = self.text_rules(text, pointer, node.span);
        Some((text, scan))
    }

    /// An array of bounded strings.
    fn text_array(&mut self, node: &Node<'_>, pointer: &str, count: &Count, bounds: &Bounds) {
        let Some(items) = self.array(node, pointer, count) else {
            return;
        };
        for (index, item) in items.iter().enumerate() {
            if self.stopped() {
                return;
            }
            self.text(item, Place::Item(pointer, index), bounds);
        }
    }

    /// soul-kit.field.type for arrays, then the count rule.
    fn array<'n, 'a>(
        &mut self,
        node: &'n Node<'a>,
        pointer: &str,
        count: &Count,
    ) -> Option<&'n [Node<'a>]> {
        let items = self.walker.array(node, pointer)?;
        if !(count.min..=count.max).contains(&items.len()) {
            self.at(
                count.rule,
                pointer,
                node.span,
                format_args!(
                    "{} entries; there must be {} to {}",
                    items.len(),
                    count.min,
                    count.max
                ),
            );
        }
        Some(items)
    }

    fn text_member(&mut self, object: &Node<'_>, pointer: &str, field: &str, bounds: &Bounds) {
        if let Some(node) = self.member(object, field) {
            self.text(node, Place::Member(pointer, field), bounds);
        }
    }

    /// A string with a length rule.
    fn text(&mut self, node: &Node<'_>, pointer: Place<'_>, bounds: &Bounds) {
        let Some(scan) = self.string(node, pointer).map(|(_, scan)| scan) else {
            return;
        };
        let length = scan.length;
        if !(bounds.min..=bounds.max).contains(&length) {
            let (rule, span) = (bounds.rule, node.span);
            if bounds.min == 0 {
                let max = bounds.max;
                self.at(
                    rule,
                    &pointer.render(),
                    span,
                    format_args!("{length} characters; at most {max} allowed"),
                );
            } else {
                let (min, max) = (bounds.min, bounds.max);
                self.at(
                    rule,
                    &pointer.render(),
                    span,
                    format_args!("{length} characters; it must be {min} to {max}"),
                );
            }
        }
    }

    /// The rules every string value obeys.
    fn string_rules(&mut self, node: &Node<'_>, pointer: Place<'_>) {
        if let Some(value) = node.as_str() {
            self.text_rules(value, pointer, node.span);
        }
    }

    /// The rules every string obeys (spec: "Strings must contain visible content, may use
    /// newline or tab, and may not contain other ASCII control characters or
    /// `SOULWARE:DEFAULT` or `soulware-kit:` marker text in any letter case"), and in the
    /// strict profile the suite's protective string rules. One pass over the string finds
    /// what they all need (and its length, returned for the length rules).
    fn text_rules(&mut self, value: &str, pointer: Place<'_>, span: Span) -> text::Scan {
        let strict = self.profile == Profile::Strict;
        let scan = text::scan(value, &MARKERS);
        // soul-kit.string.visible
        if !scan.visible {
            self.at(
                rule::STRING_VISIBLE,
                &pointer.render(),
                span,
                "the string has no visible content",
            );
        }
        // soul-kit.string.control: ASCII controls other than newline and tab.
        if scan.ascii_control {
            self.at(
                rule::STRING_CONTROL,
                &pointer.render(),
                span,
                "the string holds an ASCII control character other than newline or tab",
            );
        }
        // soul-kit.string.c1-control (strict profile): the text allows C1 controls.
        if strict && scan.c1_control {
            self.at(
                rule::STRING_C1_CONTROL,
                &pointer.render(),
                span,
                "the string holds a C1 control character (U+0080 to U+009F)",
            );
        }
        // soul-kit.string.marker: the marker in any ASCII letter case.
        if scan.marker {
            self.at(
                rule::STRING_MARKER,
                &pointer.render(),
                span,
                "the string holds reserved marker text (SOULWARE:DEFAULT or soulware-kit:)",
            );
        } else if strict && !value.is_ascii() && text::contains_folded(value, MARKERS.needles()) {
            // soul-kit.string.marker-lookalike (strict profile): a spelling of the marker
            // that the text allows. ASCII text folds to itself, so only text of other
            // scripts can hold one the scan did not find.
            self.at(
                rule::STRING_MARKER_LOOKALIKE,
                &pointer.render(),
                span,
                "the string holds a look-alike spelling of reserved marker text (SOULWARE:DEFAULT or soulware-kit:)",
            );
        }
        scan
    }
}

/// `^[a-z0-9]+(-[a-z0-9]+)*$`.
fn is_kit_id(id: &str) -> bool {
    !id.is_empty()
        && id.split('-').all(|group| {
            !group.is_empty()
                && group
                    .bytes()
                    .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit())
        })
}

/// `^[0-9]{1,4}\.[0-9]{1,4}\.[0-9]{1,4}$`, ASCII digits only, nothing after.
fn is_kit_version(version: &str) -> bool {
    let parts: Vec<&str> = version.split('.').collect();
    parts.len() == 3
        && parts
            .iter()
            .all(|part| (1..=4).contains(&part.len()) && part.bytes().all(|b| b.is_ascii_digit()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn id_and_version_patterns() {
        assert!(is_kit_id("a"));
        assert!(is_kit_id("a1-b2-c3"));
        for bad in ["", "-a", "a-", "a--b", "A", "a_b", "é"] {
            assert!(!is_kit_id(bad), "{bad}");
        }
        assert!(is_kit_version("0.0.0"));
        assert!(is_kit_version("9999.01.0"));
        for bad in [
            "1.0",
            "1.0.0.0",
            "10000.0.0",
            "1.0.0\n",
            "v1.0.0",
            "1.0.0-rc1",
            "١.٢.٣",
            "1..0",
        ] {
            assert!(!is_kit_version(bad), "{bad}");
        }
    }

    /// The base kit of the corpus's generated cases with its summary replaced.
    fn kit_with_summary(summary: &str) -> Vec<u8> {
        let base = include_str!("../../../xtask/families/soul-kit/base.soulkit.json");
        let start = base.find("\"summary\": ").expect("summary") + 11;
        let end = start + base[start..].find('\n').expect("line end") - 1;
        format!("{}{summary}{}", &base[..start], &base[end..]).into_bytes()
    }

    fn rules(source: &[u8], profile: Profile) -> Vec<(&'static str, String)> {
        check(source, profile)
            .diagnostics
            .iter()
            .map(|d| (d.rule.id, d.location.pointer.clone().unwrap_or_default()))
            .collect()
    }

    #[test]
    fn strict_rules_apply_in_the_strict_profile_only() {
        let summary = |rule: &'static str| vec![(rule, "/summary".to_owned())];
        let c1 = kit_with_summary(r#""A calm voice.\u0085It explains.""#);
        assert_eq!(rules(&c1, Profile::Spec), []);
        assert_eq!(
            rules(&c1, Profile::Strict),
            summary("soul-kit.string.c1-control")
        );
        let kelvin = kit_with_summary("\"soulware-\u{212A}it: here\"");
        assert_eq!(rules(&kelvin, Profile::Spec), []);
        assert_eq!(
            rules(&kelvin, Profile::Strict),
            summary("soul-kit.string.marker-lookalike")
        );
        // A marker in ASCII letter case is one rule in both profiles, never two.
        let marker = kit_with_summary(r#""SoulWare:Default""#);
        for profile in [Profile::Spec, Profile::Strict] {
            assert_eq!(rules(&marker, profile), summary("soul-kit.string.marker"));
        }
        // ASCII controls, U+2028 and U+2029 as the text says, in both profiles.
        let cr = kit_with_summary(r#""One.\r\nTwo.""#);
        let separators = kit_with_summary(r#""One.\u2028Two.\u2029Three.""#);
        for profile in [Profile::Spec, Profile::Strict] {
            assert_eq!(rules(&cr, profile), summary("soul-kit.string.control"));
            assert_eq!(rules(&separators, profile), []);
        }
    }

    #[test]
    fn the_keys_of_unknown_members_are_strings_too() {
        let base = include_str!("../../../xtask/families/soul-kit/base.soulkit.json");
        let kit = base.replacen(
            '{',
            r#"{"soulware-KIT:": 1, "": 2, "soulware-KIT:": 3, "#,
            1,
        );
        let found = rules(kit.as_bytes(), Profile::Spec);
        let at = |rule: &'static str, pointer: &str| (rule, pointer.to_owned());
        assert_eq!(
            found,
            [
                at("soul-kit.json.duplicate-key", "/soulware-KIT:"),
                at("soul-kit.object.unknown-key", "/soulware-KIT:"),
                at("soul-kit.object.unknown-key", "/"),
                at("soul-kit.string.marker", "/soulware-KIT:"),
                at("soul-kit.string.visible", "/"),
            ]
        );
    }
}
