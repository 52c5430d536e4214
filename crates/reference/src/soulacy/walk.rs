//! The JSON layer shared by the Soulacy package, its operations and the sidecar: reading a
//! document with the strict reader and mapping its failures to a format's rules, and the
//! shape checks (object, string, array, boolean, required and unknown members) every
//! object of both formats goes through.
//!
//! A format hands in its own rule constants through [`JsonRules`], so the same walk names
//! `soulacy-package.*` rules for a package and `soulacy-sidecar.*` rules for a sidecar.

use crate::diagnostic::{Diagnostic, Format, Location, Report, RuleId, Span};
use crate::json::{
    self, pointer_join, Document, Limits, Member, Node, ReadError, ReadRules, Value,
};

/// Nesting bound of both formats' reader (`*.json.depth`).
pub const MAX_DEPTH: usize = 64;

/// The rules a format reports for the JSON layer and the generic shape checks.
pub struct JsonRules {
    /// `*.size.max` and `*.json.*` for reader errors.
    pub read: ReadRules,
    /// `*.json.duplicate-key`.
    pub duplicate: RuleId,
    /// `*.object.unknown-key`.
    pub unknown: RuleId,
    /// `*.field.required`.
    pub required: RuleId,
    /// `*.field.type`.
    pub field_type: RuleId,
}

/// Collects one report while walking one document.
pub struct Walker<'s> {
    /// The document's bytes, for positions.
    pub source: &'s [u8],
    /// The format's rules.
    pub rules: &'static JsonRules,
    /// What was found so far.
    pub report: Report,
}

impl<'s> Walker<'s> {
    /// A walker with an empty report.
    pub fn new(source: &'s [u8], rules: &'static JsonRules, format: Format) -> Walker<'s> {
        Walker {
            source,
            rules,
            report: Report::new(format),
        }
    }

    /// Whether an error has been reported.
    pub fn has_errors(&self) -> bool {
        self.report.verdict() == crate::Verdict::Reject
    }

    /// Reports a diagnostic located by a JSON pointer.
    pub fn at(&mut self, rule: RuleId, pointer: &str, span: Span, message: impl Into<String>) {
        self.report.diagnostics.push(Diagnostic::new(
            rule,
            Location::pointer(pointer, span),
            message,
        ));
    }

    /// Reads the document under a size limit. Read errors and duplicate keys are reported
    /// with the format's rules; `None` when there is no document to walk.
    pub fn read(&mut self, max_bytes: usize) -> Option<Document<'s>> {
        let limits = Limits {
            max_bytes,
            max_depth: MAX_DEPTH,
        };
        let document = match json::read(self.source, limits) {
            Ok(document) => document,
            Err(error) => {
                self.read_error(&error);
                return None;
            }
        };
        let duplicates = document.duplicate_diagnostics(self.source, self.rules.duplicate);
        self.report.diagnostics.extend(duplicates);
        Some(document)
    }

    fn read_error(&mut self, error: &ReadError) {
        self.report
            .diagnostics
            .push(error.diagnostic(self.source, &self.rules.read));
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

    /// The text of a string, or a type error (`null` included: see `*.field.type`).
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

    /// A non-negative integer written without fraction or exponent that fits 64 bits, or a
    /// type error.
    pub fn count(&mut self, node: &Node<'_>, pointer: &str) -> Option<u64> {
        if let Value::Number(raw) = node.value {
            if raw.bytes().all(|b| b.is_ascii_digit()) {
                if let Ok(value) = raw.parse::<u64>() {
                    return Some(value);
                }
            }
        }
        self.type_error(
            node,
            pointer,
            "a non-negative integer (no fraction or exponent)",
        );
        None
    }

    /// An array whose items are all strings; type errors for the array or any item.
    pub fn string_array(&mut self, node: &Node<'_>, pointer: &str) {
        let Some(items) = self.array(node, pointer) else {
            return;
        };
        for (index, item) in items.iter().enumerate() {
            self.string(item, &format!("{pointer}/{index}"));
        }
    }

    fn type_error(&mut self, node: &Node<'_>, pointer: &str, expected: &str) {
        self.at(
            self.rules.field_type,
            pointer,
            node.span,
            format!("expected {expected}, found {}", node.value.kind()),
        );
    }

    /// Warns about every member of `object` not in `known`; `explain` may give a reason
    /// for a member (e.g. that it belongs to another schema version).
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
        for member in object.as_object().unwrap_or_default() {
            if known(&member.key) {
                continue;
            }
            let message = match explain(&member.key) {
                Some(reason) => format!("unknown member {:?}: {reason}", member.key),
                None => format!("unknown member {:?}; it is ignored", member.key),
            };
            self.at(
                self.rules.unknown,
                &pointer_join(pointer, &member.key),
                member.key_span,
                message,
            );
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
        self.at(
            self.rules.required,
            &pointer_join(pointer, field),
            object.span,
            format!("required member {field:?} is missing"),
        );
        None
    }

    /// A required string member: missing and type errors reported.
    pub fn required_string<'n>(
        &mut self,
        object: &'n Node<'_>,
        pointer: &str,
        field: &str,
    ) -> Option<(&'n str, Span)> {
        let node = self.required(object, pointer, field)?;
        let text = self.string(node, &pointer_join(pointer, field))?;
        Some((text, node.span))
    }

    /// An optional string member: type errors reported.
    pub fn optional_string<'n>(
        &mut self,
        object: &'n Node<'_>,
        pointer: &str,
        field: &str,
    ) -> Option<(&'n str, Span)> {
        let node = optional(object, field)?;
        let text = self.string(node, &pointer_join(pointer, field))?;
        Some((text, node.span))
    }
}

/// The value of an optional member, if present.
pub fn optional<'n, 'a>(object: &'n Node<'a>, field: &str) -> Option<&'n Node<'a>> {
    object.get(field).map(|member| &member.value)
}

/// Whether a string has a character other than whitespace.
pub fn is_blank(text: &str) -> bool {
    text.chars().all(char::is_whitespace)
}
