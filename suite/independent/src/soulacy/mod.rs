//! Soulacy: the agent package (`*.soulacy-agent.json`) and its install sidecar
//! (`.soulacy-package.json`), from "Agent Package Format" (shared/specs), the field notes on
//! Soulacy's Go code and the two rule catalogues. What the two formats share lives here:
//! the JSON reader ([`json`]), calendar versions ([`calendar`]), namespaced package ids
//! ([`namespace`]), RFC 3339 date-times and the clock ([`instant`]), and a small
//! declarative walker that checks members' presence and JSON types ([`Kind`], [`Field`]).
//!
//! Planted mistakes in shared code are named by [`Slip`]; each format maps its own
//! switches onto them, so one mistake is written once and planted in both formats.

pub mod calendar;
pub mod golang;
pub mod instant;
pub mod json;
pub mod namespace;
pub mod package;
pub mod sidecar;

use crate::Outcome;
use json::{Json, Lookup, Member, Number};

/// A planted mistake in the shared code (each format's switch maps to at most one).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Slip {
    // Reading.
    /// Sniffs UTF-16 and transcodes.
    Utf16,
    /// Sniffs UTF-32 and transcodes.
    Utf32,
    /// Replaces invalid UTF-8 with U+FFFD.
    ReplaceInvalidUtf8,
    /// Trims Unicode white space around the text before parsing.
    TrimText,
    /// Stops after the first value.
    TrailingData,
    /// Drops a comma before `]` or `}`.
    TrailingComma,
    /// Keeps the first of repeated keys.
    DuplicateFirstWins,
    /// Matches keys without regard to ASCII case.
    KeysIgnoreCase,
    // Member types.
    /// `null` counts as absent.
    NullAsAbsent,
    /// A string passes where a list of strings is due.
    StringForList,
    /// Items of a list of strings are not type-checked.
    ListItemsUnchecked,
    /// A byte count may be a number with a fraction or exponent.
    CountAcceptsFloat,
    /// A boolean may be the string "true" or "false".
    FlagAcceptsString,
    // Calendar versions.
    /// Trims before matching.
    VersionTrimmed,
    /// Finds the pattern anywhere.
    VersionUnanchored,
    /// Checks the pattern only, not the date.
    VersionNoDateCheck,
    /// Accepts one-digit month and day.
    VersionUnpadded,
    /// Parses PATCH into a u64.
    PatchAsU64,
    /// `\d` matches any Unicode decimal digit.
    VersionUnicodeDigits,
    /// Refuses year 0000.
    YearZeroRefused,
    /// Accepts month 00 and day 00.
    MonthDayZero,
    /// Accepts month 13.
    Month13,
    /// Every month has 31 days.
    Days31,
    /// Every fourth year is a leap year.
    LeapEveryFourth,
    // Package ids.
    /// Trims before matching.
    IdTrimmed,
    /// Finds the pattern anywhere.
    IdUnanchored,
    /// Accepts uppercase ASCII letters.
    IdUppercase,
    /// Accepts any lowercase Unicode alphanumeric.
    IdUnicodeAlphanumeric,
    /// Publisher of one character passes.
    PublisherMinOne,
    /// Publisher of 33 characters passes.
    PublisherMax33,
    /// Publisher may not start or end with a hyphen.
    PublisherHyphenEdges,
    /// Package of 64 characters passes.
    PackageMax64,
    /// Package may start with a hyphen.
    PackageLeadingHyphen,
    // Timestamps.
    /// No range check of date, time or offset.
    TimestampNoRangeCheck,
    /// A date alone passes.
    TimestampDateOnly,
    /// A space separator passes.
    TimestampSpace,
    /// A fraction of a second is refused.
    TimestampFractionRefused,
    /// Only `Z` is accepted as a zone.
    TimestampUtcOnly,
    /// An offset without colon passes.
    TimestampOffsetNoColon,
    /// A missing offset passes.
    TimestampNoOffset,
}

/// The JSON type a member must have.
#[derive(Debug, Clone, Copy)]
pub enum Kind {
    /// A string.
    Text,
    /// An array of strings.
    Texts,
    /// A boolean.
    Flag,
    /// A non-negative integer up to 2^63 - 1, no fraction or exponent.
    Count,
    /// An object with these members.
    Record(&'static [Field]),
    /// An array of such objects.
    Records(&'static [Field]),
}

/// One member of an object shape.
#[derive(Debug, Clone, Copy)]
pub struct Field {
    /// Its key.
    pub key: &'static str,
    /// Its type.
    pub kind: Kind,
    /// Whether it must be present.
    pub required: bool,
}

/// Shorthand for a field table entry.
pub const fn field(key: &'static str, kind: Kind, required: bool) -> Field {
    Field {
        key,
        kind,
        required,
    }
}

/// Checks presence and types of members against a shape and warns about unknown members
/// (rules `field.required`, `field.type`, `object.unknown-key` of either catalogue).
pub struct Walker<'a> {
    /// How members are found.
    pub lookup: Lookup,
    /// The planted shared mistake, if any.
    pub slip: Option<Slip>,
    /// The rule prefix (`soulacy-package` or `soulacy-sidecar`), for messages.
    pub format: &'static str,
    /// A member (as a dotted path without indices, `files.sha256`) whose requirement a
    /// planted mistake leaves out.
    pub not_required: Option<&'static str>,
    /// Where findings go.
    pub outcome: &'a mut Outcome,
}

impl Walker<'_> {
    /// Walks an object's members against `fields`. `path` is the dotted path of the
    /// object (empty at the root), `pointer` its JSON pointer.
    pub fn record(&mut self, members: &[Member], fields: &[Field], path: &str, pointer: &str) {
        for field in fields {
            let child_path = if path.is_empty() {
                field.key.to_owned()
            } else {
                format!("{path}.{}", field.key)
            };
            let child_pointer = format!("{pointer}/{}", field.key);
            let value = self
                .lookup
                .get(members, field.key)
                .filter(|value| !(self.slip == Some(Slip::NullAsAbsent) && **value == Json::Null));
            match value {
                None if field.required && self.not_required != Some(child_path.as_str()) => {
                    self.outcome.error(format!(
                        "{}.field.required: {child_pointer} is missing",
                        self.format
                    ));
                }
                None => {}
                Some(value) => self.value(value, field.kind, &child_path, &child_pointer),
            }
        }
        let known: Vec<&str> = fields.iter().map(|field| field.key).collect();
        for member in members {
            if !self.lookup.is_known(&member.key, &known) {
                self.outcome.warning(format!(
                    "{}.object.unknown-key: {pointer}/{} is not a member of this object",
                    self.format,
                    json::escape_pointer(&member.key)
                ));
            }
        }
    }

    /// Checks one value against its kind.
    fn value(&mut self, value: &Json, kind: Kind, path: &str, pointer: &str) {
        let fits = match (kind, value) {
            (Kind::Text, Json::String(_)) => true,
            (Kind::Texts, Json::Array(items)) => {
                self.slip == Some(Slip::ListItemsUnchecked)
                    || items.iter().all(|item| matches!(item, Json::String(_)))
            }
            // The planted mistake: anything with a length will do.
            (Kind::Texts, Json::String(_)) => self.slip == Some(Slip::StringForList),
            (Kind::Flag, Json::Bool(_)) => true,
            (Kind::Flag, Json::String(text)) => {
                self.slip == Some(Slip::FlagAcceptsString) && (text == "true" || text == "false")
            }
            (Kind::Count, Json::Number(number)) => count_fits(*number, self.slip),
            (Kind::Record(fields), Json::Object(members)) => {
                self.record(members, fields, path, pointer);
                true
            }
            (Kind::Records(fields), Json::Array(items)) => {
                let mut all_objects = true;
                for (index, item) in items.iter().enumerate() {
                    match item {
                        Json::Object(members) => {
                            self.record(members, fields, path, &format!("{pointer}/{index}"));
                        }
                        _ => all_objects = false,
                    }
                }
                all_objects
            }
            _ => false,
        };
        if !fits {
            self.outcome.error(format!(
                "{}.field.type: {pointer} does not have the member's JSON type",
                self.format
            ));
        }
    }
}

/// A byte count: a JSON integer from 0 to 2^63 - 1 written without fraction or exponent
/// (the importer's Go `int`; negative counts refused as this project's reading).
fn count_fits(number: Number, slip: Option<Slip>) -> bool {
    match number {
        Number::Unsigned(value) => i64::try_from(value).is_ok(),
        Number::Negative(_) => false,
        // serde_json reads `-0` as the float -0.0; Go's decoder reads it into the int as 0.
        // (`-0.0`, which Go refuses for an int, reads the same here: no case tells them
        // apart, and this reader keeps no number's spelling.)
        Number::Float(value) if value == 0.0 && value.is_sign_negative() => true,
        Number::Float(value) => {
            slip == Some(Slip::CountAcceptsFloat)
                && value.is_finite()
                && value >= 0.0
                && value.fract() == 0.0
                && value < 9.223_372_036_854_775e18
        }
    }
}

/// Whether a string has a character other than white space (Unicode White_Space, which is
/// what Go's `strings.TrimSpace` trims).
pub fn has_visible(text: &str) -> bool {
    text.chars().any(|character| !character.is_whitespace())
}
