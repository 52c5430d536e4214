//! The walk every JSON checker shares (Soul Kit, the skill package envelope, the Soulacy
//! package and sidecar, the bundle's JSON files): reading a document with the strict
//! reader and mapping its failures and duplicate keys to a format's rules, then typed
//! member access (object, array, string, boolean, count), required members, closed
//! objects and unknown members, each reported the same way in every format.
//!
//! A format hands in its limits and rule constants through [`JsonRules`], so the same
//! walk names `soul-kit.*` rules for a kit and `soulacy-sidecar.*` rules for a sidecar.
//! Where the document sits decides how its diagnostics are located: a document checked
//! on its own ([`Walker::new`]) is located by pointers into it with spans to underline; a
//! file of a directory tree ([`Walker::in_tree`]) by pointers into the tree, without
//! spans, because a tree's report points into several files and no single source can be
//! underlined.
//!
//! The walk keeps the report's bounds (see [`crate::diagnostic`]): it asks for room before
//! it builds a pointer, a location or a duplicate's pointer, and counts what it leaves out.

use crate::diagnostic::{Diagnostic, Format, LineIndex, Location, Message, Report, RuleId, Span};
use crate::json::{
    self, pointer_join, Document, Limits, Member, Node, ReadRules, Tolerance, Value,
};
use crate::Profile;

/// How a format reads its JSON documents and which of its rules the walk reports.
#[derive(Debug, Clone, Copy)]
pub struct JsonRules {
    /// The size and nesting bounds of the reader.
    pub limits: Limits,
    /// The size rule and the `*.json.*` rules for reader errors.
    pub read: ReadRules,
    /// The duplicate-key rule.
    pub duplicate: RuleId,
    /// The rule a member of the wrong JSON type breaks.
    pub field_type: RuleId,
    /// The rule a missing member breaks when [`Walker::required`] asks for it.
    pub required: RuleId,
    /// How unknown members are reported; `None` for a format whose objects are open and
    /// never reported for extra members.
    pub unknown: Option<UnknownMembers>,
    /// Whether the publisher's reader is Go's decoder, which reads a `null` member as
    /// absent: then so does the spec profile ([`Document::drop_null_members`]); the strict
    /// profile keeps it, a type error.
    pub null_as_absent: bool,
}

/// How a format reports members an object does not define.
#[derive(Debug, Clone, Copy)]
pub struct UnknownMembers {
    /// The rule an unknown member breaks.
    pub rule: RuleId,
    /// What the message says becomes of the member, after `unknown member "key"; ` (for
    /// example "this object is closed" or "it is ignored").
    pub note: &'static str,
    /// Whether an unknown key that repeats is reported at every occurrence.
    pub repeats: Repeats,
}

/// Whether an unknown key that occurs more than once in one object is reported once or at
/// every occurrence. Formats decide differently, and their catalogues record it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum Repeats {
    /// Every occurrence is reported.
    EachOccurrence,
    /// Only the first occurrence is reported; the duplicate-key rule reports the rest.
    FirstOnly,
}

/// Collects one report while walking one document.
pub struct Walker<'s> {
    /// The document's bytes, for positions.
    pub source: &'s [u8],
    /// The format's rules.
    pub rules: &'static JsonRules,
    /// What was found so far.
    pub report: Report,
    /// The pointer of the document in a directory tree, when it is one file of a tree.
    tree_prefix: Option<String>,
    /// The profile the document is read in (see [`Walker::read`]).
    profile: Profile,
}

impl<'s> Walker<'s> {
    /// A walker with an empty report, for a document checked on its own in `profile`.
    pub fn new(
        source: &'s [u8],
        rules: &'static JsonRules,
        format: Format,
        profile: Profile,
    ) -> Walker<'s> {
        Walker {
            source,
            rules,
            report: Report::new(format),
            tree_prefix: None,
            profile,
        }
    }

    /// A walker with an empty report, for the file at `prefix` (a JSON pointer over the
    /// tree, such as `/manifest.json`) of a directory tree: every pointer gains the
    /// prefix, a diagnostic about the document as a whole gets the file's own pointer, and
    /// no span is kept.
    pub fn in_tree(
        source: &'s [u8],
        rules: &'static JsonRules,
        format: Format,
        prefix: impl Into<String>,
        profile: Profile,
    ) -> Walker<'s> {
        Walker {
            tree_prefix: Some(prefix.into()),
            ..Walker::new(source, rules, format, profile)
        }
    }

    /// Whether an error has been reported (or left out for want of room).
    pub fn has_errors(&self) -> bool {
        self.report.verdict() == crate::Verdict::Reject
    }

    /// The pointer of a place in the document (given by its pointer inside the document)
    /// in the space the report uses: unchanged for a document on its own, prefixed for a
    /// file of a tree.
    pub fn pointer(&self, inner: &str) -> String {
        match &self.tree_prefix {
            Some(prefix) => format!("{prefix}{inner}"),
            None => inner.to_owned(),
        }
    }

    /// Reports a diagnostic located by a JSON pointer into the document, with the span to
    /// underline.
    pub fn at(&mut self, rule: RuleId, pointer: &str, span: Span, message: impl Message) {
        self.diagnose(rule, pointer, Some(span), message);
    }

    /// Reports a diagnostic located by a JSON pointer alone, with nothing to underline.
    pub fn at_pointer(&mut self, rule: RuleId, pointer: &str, message: impl Message) {
        self.diagnose(rule, pointer, None, message);
    }

    /// Reports a diagnostic located by a JSON pointer and, when there is one, a span.
    pub fn diagnose(
        &mut self,
        rule: RuleId,
        pointer: &str,
        span: Option<Span>,
        message: impl Message,
    ) {
        if !self.report.has_room_for(rule) {
            self.report.omit_of(rule, rule.severity, 1);
            return;
        }
        let location = Location {
            pointer: Some(pointer.to_owned()),
            position: None,
            span,
        };
        self.push(Diagnostic::new(rule, location, message.build()));
    }

    /// Adds a diagnostic located in the document to the report, moved into the tree's
    /// pointer space when the document is a file of a tree.
    fn push(&mut self, mut diagnostic: Diagnostic) {
        if !self.report.has_room_for(diagnostic.rule) {
            self.report.omit_of(diagnostic.rule, diagnostic.severity, 1);
            return;
        }
        if let Some(prefix) = &self.tree_prefix {
            let location = &mut diagnostic.location;
            location.pointer = match location.pointer.take() {
                Some(inner) => Some(format!("{prefix}{inner}")),
                None => (!prefix.is_empty()).then(|| prefix.clone()),
            };
            location.span = None;
        }
        self.report.push(diagnostic);
    }

    /// Reads the document under the format's limits in the walker's profile. Read errors and
    /// duplicate keys are reported with the format's rules; `None` when there is no
    /// document to walk.
    ///
    /// What RFC 8259 lets a parser accept or refuse (a byte order mark, an unpaired
    /// surrogate escape, a repeated key) is refused only where the format's catalogue
    /// makes the refusal a rule in the profile: a strict-only rule leaves the spec profile
    /// reading as the common decoders do (the mark skipped, U+FFFD for the escape, the
    /// last of the repeated keys standing).
    pub fn read(&mut self) -> Option<Document<'s>> {
        let profile = self.profile;
        let lenient = |rule: RuleId| rule.strict && profile != Profile::Strict;
        let tolerance = Tolerance {
            byte_order_mark: lenient(self.rules.read.bom),
            lone_surrogates: lenient(self.rules.read.surrogate),
            // Past the depth bound the rest of the document is still read, so what the
            // spec decides about it is still reported.
            skip_too_deep: true,
        };
        let mut document = match json::read_tolerant(self.source, self.rules.limits, tolerance) {
            Ok(document) => document,
            Err(error) => {
                let diagnostic = error.diagnostic(self.source, &self.rules.read);
                self.push(diagnostic);
                return None;
            }
        };
        if let Some(error) = &document.too_deep {
            let mut diagnostic = error.diagnostic(self.source, &self.rules.read);
            // A depth bound of the reference's own only warns in the spec profile, from
            // the start: the rest of the document is still checked, and a check stopping at
            // its first error must not stop here ([`Report::settle_bounds`]).
            if diagnostic.rule.bound && profile != Profile::Strict {
                diagnostic.severity = crate::Severity::Warning;
                self.report.reached_bound();
            }
            self.push(diagnostic);
        }
        if self.rules.null_as_absent && profile != Profile::Strict {
            document.drop_null_members();
        }
        if lenient(self.rules.duplicate) {
            document.keep_last_duplicates();
        }
        self.duplicates(&document);
        Some(document)
    }

    /// One diagnostic of the duplicate-key rule per repeated key while there is room; the
    /// rest are counted without building their pointers.
    fn duplicates(&mut self, document: &Document<'_>) {
        if document.duplicates.is_empty() {
            return;
        }
        let rule = self.rules.duplicate;
        let lines = LineIndex::new(self.source);
        for (index, duplicate) in document.duplicates.iter().enumerate() {
            if !self.report.has_room_for(rule) {
                let left = document.duplicates.len() - index;
                self.report.omit_of(rule, rule.severity, left);
                return;
            }
            let diagnostic = document.duplicate_diagnostic(self.source, &lines, duplicate, rule);
            self.push(diagnostic);
        }
    }

    /// The members of an object, or a type error.
    pub fn object<'n, 'a>(
        &mut self,
        node: &'n Node<'a>,
        pointer: &str,
    ) -> Option<&'n [Member<'a>]> {
        if let Some(members) = node.as_object() {
            return Some(members);
        }
        self.type_error(node, pointer, "an object");
        None
    }

    /// The items of an array, or a type error.
    pub fn array<'n, 'a>(&mut self, node: &'n Node<'a>, pointer: &str) -> Option<&'n [Node<'a>]> {
        if let Some(items) = node.as_array() {
            return Some(items);
        }
        self.type_error(node, pointer, "an array");
        None
    }

    /// The text of a string, or a type error (`null` included: `null` is not a string).
    pub fn string<'n>(&mut self, node: &'n Node<'_>, pointer: &str) -> Option<&'n str> {
        if let Some(text) = node.as_str() {
            return Some(text);
        }
        self.type_error(node, pointer, "a string");
        None
    }

    /// A boolean, or a type error.
    pub fn boolean(&mut self, node: &Node<'_>, pointer: &str) -> Option<bool> {
        if let Value::Bool(value) = node.value {
            return Some(value);
        }
        self.type_error(node, pointer, "a boolean");
        None
    }

    /// An array whose items are all strings; type errors for the array or any item.
    pub fn string_array(&mut self, node: &Node<'_>, pointer: &str) {
        let Some(items) = self.array(node, pointer) else {
            return;
        };
        for (index, item) in items.iter().enumerate() {
            // The item's pointer is built only for an item that is not a string.
            if item.as_str().is_none() {
                self.type_error_at(item, || format!("{pointer}/{index}"), "a string");
            }
        }
    }

    /// [`Walker::type_error`] at a pointer built only when the report takes the
    /// diagnostic (otherwise it is just counted): for a caller that would build one per
    /// item of a long array.
    pub fn type_error_at(
        &mut self,
        node: &Node<'_>,
        pointer: impl FnOnce() -> String,
        expected: &str,
    ) {
        let rule = self.rules.field_type;
        if !self.report.has_room_for(rule) {
            self.report.omit_of(rule, rule.severity, 1);
            return;
        }
        self.type_error(node, &pointer(), expected);
    }

    /// Reports the format's type rule: `node` is not what was `expected` (a phrase such as
    /// "an array of strings").
    pub fn type_error(&mut self, node: &Node<'_>, pointer: &str, expected: &str) {
        self.at(
            self.rules.field_type,
            pointer,
            node.span,
            format_args!("expected {expected}, found {}", node.value.kind()),
        );
    }

    /// Reports every member of `object` not in `known` under the format's unknown-member
    /// rule; `explain` may give a reason for a member (e.g. that it belongs to another
    /// schema version).
    pub fn unknown_members(
        &mut self,
        object: &Node<'_>,
        pointer: &str,
        known: &[&str],
        explain: impl Fn(&str) -> Option<&'static str>,
    ) {
        self.unknown_members_where(object, pointer, |key| known.contains(&key), explain);
    }

    /// [`Walker::unknown_members`] with the known members given by a predicate.
    pub fn unknown_members_where(
        &mut self,
        object: &Node<'_>,
        pointer: &str,
        known: impl Fn(&str) -> bool,
        explain: impl Fn(&str) -> Option<&'static str>,
    ) {
        let Some(unknown) = self.rules.unknown else {
            return;
        };
        for member in object.as_object().unwrap_or_default() {
            // The reader marks the repeats of a key, so reporting only its first
            // occurrence needs no search.
            if (unknown.repeats == Repeats::FirstOnly && member.repeated) || known(&member.key) {
                continue;
            }
            if !self.report.has_room_for(unknown.rule) {
                self.report.omit_of(unknown.rule, unknown.rule.severity, 1);
                continue;
            }
            let message = match explain(&member.key) {
                Some(reason) => format!("unknown member {:?}: {reason}", member.key),
                None => format!("unknown member {:?}; {}", member.key, unknown.note),
            };
            self.at(
                unknown.rule,
                &pointer_join(pointer, &member.key),
                member.key_span,
                message,
            );
        }
    }

    /// A closed object whose members are exactly `fields`, all required: every unknown
    /// member is reported (as [`Walker::unknown_members`] does), then every missing field
    /// under `required`, in the order of `fields`.
    pub fn closed_object(
        &mut self,
        object: &Node<'_>,
        pointer: &str,
        fields: &[&str],
        required: RuleId,
    ) {
        self.unknown_members(object, pointer, fields, |_| None);
        for field in fields {
            if object.get(field).is_none() {
                self.missing(required, object, pointer, field);
            }
        }
    }

    /// The value of a required member, or an error at the pointer it would have.
    pub fn required<'n, 'a>(
        &mut self,
        object: &'n Node<'a>,
        pointer: &str,
        field: &str,
    ) -> Option<&'n Node<'a>> {
        if let Some(member) = object.get(field) {
            return Some(&member.value);
        }
        self.missing(self.rules.required, object, pointer, field);
        None
    }

    /// Reports `field` missing from `object` under `rule`, at the pointer it would have.
    fn missing(&mut self, rule: RuleId, object: &Node<'_>, pointer: &str, field: &str) {
        self.at(
            rule,
            &pointer_join(pointer, field),
            object.span,
            format_args!("required member {field:?} is missing"),
        );
    }

    /// A required string member: missing and type errors reported.
    pub fn required_string<'n>(
        &mut self,
        object: &'n Node<'_>,
        pointer: &str,
        field: &str,
    ) -> Option<Text<'n>> {
        let node = self.required(object, pointer, field)?;
        let text = self.string(node, &pointer_join(pointer, field))?;
        Some(Text {
            text,
            span: node.span,
        })
    }

    /// An optional string member: type errors reported.
    pub fn optional_string<'n>(
        &mut self,
        object: &'n Node<'_>,
        pointer: &str,
        field: &str,
    ) -> Option<Text<'n>> {
        let node = optional(object, field)?;
        let text = self.string(node, &pointer_join(pointer, field))?;
        Some(Text {
            text,
            span: node.span,
        })
    }
}

/// A string member's text with the span of its value.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Text<'n> {
    /// The decoded text.
    pub text: &'n str,
    /// The span of the string literal.
    pub span: Span,
}

/// The value of an optional member (the first of its name), if present.
pub fn optional<'n, 'a>(object: &'n Node<'a>, field: &str) -> Option<&'n Node<'a>> {
    object.get(field).map(|member| &member.value)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::diagnostic::rules::soul_kit as rule;

    /// Soul Kit's rules with a given repeat policy; the rule IDs only label diagnostics.
    const fn rules(repeats: Repeats) -> JsonRules {
        JsonRules {
            limits: Limits {
                max_bytes: 1024,
                max_depth: 8,
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
            unknown: Some(UnknownMembers {
                rule: rule::OBJECT_UNKNOWN_KEY,
                note: "this object is closed",
                repeats,
            }),
            null_as_absent: false,
        }
    }

    static EACH: JsonRules = rules(Repeats::EachOccurrence);
    static FIRST: JsonRules = rules(Repeats::FirstOnly);

    /// The rules and pointers of a closed-object walk over `source`.
    fn closed(source: &[u8], rules: &'static JsonRules) -> Vec<(&'static str, String)> {
        let mut walker = Walker::new(source, rules, Format::SoulKit, Profile::Strict);
        let document = walker.read().expect("readable");
        walker.closed_object(&document.root, "", &["a", "b"], rule::FIELD_REQUIRED);
        walker
            .report
            .diagnostics
            .iter()
            .map(|d| (d.rule.id, d.location.pointer.clone().unwrap_or_default()))
            .collect()
    }

    #[test]
    fn closed_objects_report_unknown_then_missing_members() {
        let source = br#"{"x": 1, "a": 1, "x": 2}"#;
        let duplicate = ("soul-kit.json.duplicate-key", "/x".to_owned());
        let unknown = ("soul-kit.object.unknown-key", "/x".to_owned());
        let missing = ("soul-kit.field.required", "/b".to_owned());
        assert_eq!(
            closed(source, &EACH),
            [
                duplicate.clone(),
                unknown.clone(),
                unknown.clone(),
                missing.clone()
            ]
        );
        assert_eq!(closed(source, &FIRST), [duplicate, unknown, missing]);
    }

    #[test]
    fn a_file_of_a_tree_is_located_in_the_tree_without_spans() {
        let mut walker = Walker::in_tree(
            b"{\"a\": 1}",
            &EACH,
            Format::SoulKit,
            "/dir/f.json",
            Profile::Strict,
        );
        let document = walker.read().expect("readable");
        walker.string(optional(&document.root, "a").expect("present"), "/a");
        assert_eq!(walker.pointer("/a"), "/dir/f.json/a");
        let location = &walker.report.diagnostics[0].location;
        assert_eq!(location.pointer.as_deref(), Some("/dir/f.json/a"));
        assert_eq!(location.span, None);

        // A read error points at the file itself, keeping its line and column.
        let mut walker =
            Walker::in_tree(b"{,}", &EACH, Format::SoulKit, "/f.json", Profile::Strict);
        assert!(walker.read().is_none());
        let location = &walker.report.diagnostics[0].location;
        assert_eq!(location.pointer.as_deref(), Some("/f.json"));
        assert!(location.position.is_some() && location.span.is_none());
    }
}
