//! The Soulacy install sidecar (`.soulacy-package.json`): "Agent Package Format",
//! ".soulacy-package.json sidecar", and the catalogue `cases/soulacy-sidecar/rules.toml`.
//! The sidecar records an import: the installed package's schema, id and calendar version,
//! when it was installed, its publisher block and two flags. Its members are checked with
//! the package format's calendar-version, package-id and timestamp rules.

use super::json::{self, BomPolicy, Json, Lookup, Member, ReadError};
use super::{calendar, field, has_visible, instant, namespace, Field, Kind, Slip, Walker};
use crate::{Input, Outcome, Settings};

crate::mistakes! {
    /// The planted mistakes of this format.
    pub enum Planted for SoulacySidecar {
        ReadUtf16 = "read-utf16": "sniffs a UTF-16 byte order mark or NUL pattern and transcodes the sidecar to UTF-8 before parsing",
        ReadUtf32 = "read-utf32": "sniffs a UTF-32 byte order mark or NUL pattern and transcodes the sidecar to UTF-8 before parsing",
        InvalidUtf8Replaced = "invalid-utf8-replaced": "replaces bytes that are not UTF-8 with U+FFFD and reads on, as Go's decoder does",
        TextTrimmed = "text-trimmed": "trims every Unicode white space (no-break space, U+2028, form feed) around the text before parsing",
        TrailingDataAccepted = "trailing-data-accepted": "stops reading after the first JSON value and ignores what follows",
        TrailingCommaAccepted = "trailing-comma-accepted": "accepts a comma before a closing bracket or brace",
        DuplicateFirstWins = "duplicate-first-wins": "keeps the first of repeated keys instead of the last",
        KeysCaseInsensitive = "keys-case-insensitive": "matches member names without regard to ASCII letter case, as Go binds fields",
        NullAsAbsent = "null-as-absent": "treats a null member as absent, as a Go reader would",
        FlagStringAccepted = "flag-string-accepted": "accepts the strings \"true\" and \"false\" for the boolean members",
        SchemaVersionTrimmed = "schema-version-trimmed": "trims white space around schema_version before comparing it",
        SchemaVersionCaseInsensitive = "schema-version-case-insensitive": "compares schema_version without regard to letter case",
        SchemaVersionUnchecked = "schema-version-unchecked": "accepts any string as schema_version",
        VersionTrimmed = "version-trimmed": "trims white space around installed_version before matching, as Soulacy's importer does",
        VersionUnanchored = "version-unanchored": "finds the calendar pattern anywhere in installed_version (a regex find, not a full match)",
        VersionRegexOnly = "version-regex-only": "checks installed_version's pattern but not that its date exists",
        VersionUnpadded = "version-unpadded": "accepts a one-digit month or day",
        VersionPatchU64 = "version-patch-u64": "parses PATCH into a 64-bit integer and refuses one that overflows",
        VersionUnicodeDigits = "version-unicode-digits": "reads \\d as any Unicode decimal digit (the default of Rust's regex)",
        VersionYearZeroRefused = "version-year-zero-refused": "refuses year 0000 (there is no year zero in the Julian reckoning)",
        VersionZeroMonthDay = "version-zero-month-day": "checks month and day against their upper bounds only, so 00 passes",
        VersionMonth13 = "version-month-13": "accepts month 13 (an off-by-one at the month bound)",
        VersionDays31 = "version-days-31": "lets every month have 31 days",
        VersionLeapEveryFourth = "version-leap-every-fourth": "makes every year divisible by 4 a leap year, 2100 included",
        VersionCheckedInV1 = "version-checked-in-v1": "holds a v1 sidecar's free-form installed_version to the calendar pattern",
        VersionUnchecked = "version-unchecked": "does not check installed_version as a calendar version at all",
        PackageIdTrimmed = "package-id-trimmed": "trims white space around package_id before matching, as Soulacy's code does",
        PackageIdUnanchored = "package-id-unanchored": "finds a publisher/package pair anywhere in package_id (a regex find)",
        PackageIdUppercase = "package-id-uppercase": "accepts uppercase ASCII letters in package_id",
        PackageIdUnicodeAlnum = "package-id-unicode-alnum": "accepts any lowercase Unicode letter or digit in package_id",
        PublisherMin1 = "publisher-min-1": "accepts a one-character publisher (off by one at the lower bound)",
        PublisherMax33 = "publisher-max-33": "accepts a 33-character publisher (off by one at the upper bound)",
        PublisherHyphenEdges = "publisher-hyphen-edges": "refuses a publisher that starts or ends with a hyphen, applying the package's rule",
        PackageMax64 = "package-max-64": "accepts a 64-character package part (off by one at the upper bound)",
        PackageLeadingHyphen = "package-leading-hyphen": "accepts a package part that starts with a hyphen",
        PackageIdUnchecked = "package-id-unchecked": "does not check package_id's shape at all",
        TimestampNoRangeCheck = "timestamp-no-range-check": "checks installed_at's shape only: hour 24, 30 February and offset +24:00 pass",
        TimestampDateOnly = "timestamp-date-only": "accepts a date without a time as installed_at",
        TimestampSpace = "timestamp-space": "accepts a space instead of T between date and time",
        TimestampFractionRefused = "timestamp-fraction-refused": "refuses fractional seconds in installed_at (the writer's nanoseconds)",
        TimestampUtcOnly = "timestamp-utc-only": "accepts only Z as installed_at's zone, refusing numeric offsets",
        TimestampOffsetNoColon = "timestamp-offset-no-colon": "accepts an offset without colon (+0200)",
        TimestampNoOffset = "timestamp-no-offset": "accepts installed_at without zone, as local time",
        V2PackageIdOptional = "v2-package-id-optional": "does not require package_id in a v2 sidecar",
        V2VersionOptional = "v2-version-optional": "does not require installed_version in a v2 sidecar",
        InstalledAtOptional = "installed-at-optional": "does not require installed_at",
        InstalledAtUnchecked = "installed-at-unchecked": "does not check installed_at as an RFC 3339 date-time",
    }
}

/// The switches that plant a mistake in the shared code, and which.
const SHARED: &[(Planted, Slip)] = &[
    (Planted::ReadUtf16, Slip::Utf16),
    (Planted::ReadUtf32, Slip::Utf32),
    (Planted::InvalidUtf8Replaced, Slip::ReplaceInvalidUtf8),
    (Planted::TextTrimmed, Slip::TrimText),
    (Planted::TrailingDataAccepted, Slip::TrailingData),
    (Planted::TrailingCommaAccepted, Slip::TrailingComma),
    (Planted::DuplicateFirstWins, Slip::DuplicateFirstWins),
    (Planted::KeysCaseInsensitive, Slip::KeysIgnoreCase),
    (Planted::NullAsAbsent, Slip::NullAsAbsent),
    (Planted::FlagStringAccepted, Slip::FlagAcceptsString),
    (Planted::VersionTrimmed, Slip::VersionTrimmed),
    (Planted::VersionUnanchored, Slip::VersionUnanchored),
    (Planted::VersionRegexOnly, Slip::VersionNoDateCheck),
    (Planted::VersionUnpadded, Slip::VersionUnpadded),
    (Planted::VersionPatchU64, Slip::PatchAsU64),
    (Planted::VersionUnicodeDigits, Slip::VersionUnicodeDigits),
    (Planted::VersionYearZeroRefused, Slip::YearZeroRefused),
    (Planted::VersionZeroMonthDay, Slip::MonthDayZero),
    (Planted::VersionMonth13, Slip::Month13),
    (Planted::VersionDays31, Slip::Days31),
    (Planted::VersionLeapEveryFourth, Slip::LeapEveryFourth),
    (Planted::PackageIdTrimmed, Slip::IdTrimmed),
    (Planted::PackageIdUnanchored, Slip::IdUnanchored),
    (Planted::PackageIdUppercase, Slip::IdUppercase),
    (Planted::PackageIdUnicodeAlnum, Slip::IdUnicodeAlphanumeric),
    (Planted::PublisherMin1, Slip::PublisherMinOne),
    (Planted::PublisherMax33, Slip::PublisherMax33),
    (Planted::PublisherHyphenEdges, Slip::PublisherHyphenEdges),
    (Planted::PackageMax64, Slip::PackageMax64),
    (Planted::PackageLeadingHyphen, Slip::PackageLeadingHyphen),
    (Planted::TimestampNoRangeCheck, Slip::TimestampNoRangeCheck),
    (Planted::TimestampDateOnly, Slip::TimestampDateOnly),
    (Planted::TimestampSpace, Slip::TimestampSpace),
    (
        Planted::TimestampFractionRefused,
        Slip::TimestampFractionRefused,
    ),
    (Planted::TimestampUtcOnly, Slip::TimestampUtcOnly),
    (
        Planted::TimestampOffsetNoColon,
        Slip::TimestampOffsetNoColon,
    ),
    (Planted::TimestampNoOffset, Slip::TimestampNoOffset),
];

/// The schemas of the Schema versions table (the sidecar records the installed one).
const SCHEMA_V1: &str = "soulacy.agent.package/v1";
const SCHEMA_V2: &str = "soulacy.agent.package/v2";
/// Rule `soulacy-sidecar.size.max`: 64 KiB, inclusive.
const MAX_BYTES: usize = 65_536;
/// Rule `soulacy-sidecar.json.depth`: 64 levels.
const MAX_DEPTH: usize = 64;

const PUBLISHER: &[Field] = &[
    field("id", Kind::Text, true),
    field("display_name", Kind::Text, false),
    field("signature_key", Kind::Text, false),
    field("trust_level", Kind::Text, false),
];

/// The members of the spec's example and of the public writer (catalogue header). Which of
/// them are required depends on the schema (rule `field.required`).
macro_rules! sidecar_fields {
    ($v2:expr) => {
        &[
            field("schema_version", Kind::Text, true),
            field("package_id", Kind::Text, $v2),
            field("installed_version", Kind::Text, $v2),
            field("installed_from", Kind::Text, false),
            field("installed_at", Kind::Text, true),
            field("publisher", Kind::Record(PUBLISHER), false),
            field("signature_verified", Kind::Flag, false),
            field("trust_level_at_install", Kind::Text, false),
            field("acknowledged_missing", Kind::Flag, false),
        ]
    };
}
const SIDECAR_V1: &[Field] = sidecar_fields!(false);
const SIDECAR_V2: &[Field] = sidecar_fields!(true);

/// Validates one input.
pub fn validate(input: Input<'_>, settings: &Settings<'_>) -> Outcome {
    let Input::Document { bytes, .. } = input else {
        return Outcome::decline("a sidecar is one file, not a directory");
    };
    let slip = SHARED
        .iter()
        .find(|(planted, _)| settings.planted(planted.name()))
        .map(|(_, slip)| *slip);
    let mut check = Check {
        settings,
        slip,
        lookup: Lookup { slip },
        outcome: Outcome::default(),
    };
    let over_bound = check.run(bytes);
    let mut outcome = check.outcome;
    // A bound (catalogue, `kind = "bound"`): the strict profile rejects; the spec profile
    // declines to judge unless an error was already found.
    match over_bound {
        Some(rule) if settings.strict => {
            outcome.error(format!("{rule}: past this validator's bound"));
            outcome
        }
        Some(rule) if outcome.accepted() => Outcome::decline(format!("{rule}: not judged")),
        _ => outcome,
    }
}

/// One run of the checker.
struct Check<'a> {
    settings: &'a Settings<'a>,
    slip: Option<Slip>,
    lookup: Lookup,
    outcome: Outcome,
}

impl Check<'_> {
    fn planted(&self, planted: Planted) -> bool {
        self.settings.planted(planted.name())
    }

    /// Runs every rule; returns the bound passed, if any.
    fn run(&mut self, bytes: &[u8]) -> Option<&'static str> {
        let mut over_bound = None;
        if bytes.len() > MAX_BYTES {
            over_bound = Some("soulacy-sidecar.size.max");
        }
        // Rule json.bom: no public reader decides it; the spec profile skips a byte order
        // mark (RFC 8259 lets parsers ignore one), the strict profile refuses it.
        let bom = if self.settings.strict {
            BomPolicy::Refuse
        } else {
            BomPolicy::Skip
        };
        let root = match json::read(bytes, bom, self.slip) {
            Ok(root) => root,
            Err(error) => {
                self.outcome.error(read_error_message(&error));
                return over_bound;
            }
        };
        if root.depth() > MAX_DEPTH {
            over_bound = over_bound.or(Some("soulacy-sidecar.json.depth"));
        }
        // Rule root.type: the section's example is an object.
        let Some(top) = root.as_object() else {
            self.outcome
                .error("soulacy-sidecar.root.type: the sidecar is not a JSON object");
            return over_bound;
        };
        if self.settings.strict {
            let mut found = Vec::new();
            json::duplicate_keys(&root, "", &mut found);
            for pointer in found {
                self.outcome.error(format!(
                    "soulacy-sidecar.json.duplicate-key: {pointer} repeats a key"
                ));
            }
        }
        let schema = self
            .lookup
            .get(top, "schema_version")
            .and_then(Json::as_str);
        let v1 = schema.is_some_and(|schema| self.schema_matches(schema, SCHEMA_V1));
        self.shape(top, v1);
        self.schema_version(schema, v1);
        let publisher_part = self.package_id(top);
        self.installed_version(top, v1);
        self.installed_at(top);
        if self.settings.strict {
            self.publisher_namespace(top, publisher_part.as_deref());
        }
        over_bound
    }

    /// Rules field.required, field.type, object.unknown-key.
    fn shape(&mut self, top: &[Member], v1: bool) {
        let not_required = if self.planted(Planted::V2PackageIdOptional) {
            Some("package_id")
        } else if self.planted(Planted::V2VersionOptional) {
            Some("installed_version")
        } else if self.planted(Planted::InstalledAtOptional) {
            Some("installed_at")
        } else {
            None
        };
        let mut walker = Walker {
            lookup: self.lookup,
            slip: self.slip,
            format: "soulacy-sidecar",
            not_required,
            outcome: &mut self.outcome,
        };
        walker.record(top, if v1 { SIDECAR_V1 } else { SIDECAR_V2 }, "", "");
    }

    /// Whether `schema` is exactly `wanted`.
    fn schema_matches(&self, schema: &str, wanted: &str) -> bool {
        if self.planted(Planted::SchemaVersionTrimmed) {
            schema.trim() == wanted
        } else if self.planted(Planted::SchemaVersionCaseInsensitive) {
            schema.eq_ignore_ascii_case(wanted)
        } else {
            schema == wanted
        }
    }

    /// Rule schema-version.value: one of the two schemas of the Schema versions table.
    fn schema_version(&mut self, schema: Option<&str>, v1: bool) {
        let Some(schema) = schema else {
            return;
        };
        if v1 || self.planted(Planted::SchemaVersionUnchecked) {
            return;
        }
        if !self.schema_matches(schema, SCHEMA_V2) {
            self.outcome.error(
                "soulacy-sidecar.schema-version.value: /schema_version is not a package schema",
            );
        }
    }

    /// Rules package-id.shape, .publisher, .package, on a package_id that is present (in
    /// a v1 sidecar too, the catalogue's reading). Gives the publisher part of a valid id.
    fn package_id(&mut self, top: &[Member]) -> Option<String> {
        let id = self.lookup.get(top, "package_id").and_then(Json::as_str)?;
        if self.planted(Planted::PackageIdUnchecked) {
            return id.split('/').next().map(str::to_owned);
        }
        match namespace::check(id, self.slip) {
            Ok(parts) => Some(parts.publisher.to_owned()),
            Err(errors) => {
                for error in errors {
                    let rule = match error {
                        namespace::IdError::Shape => "shape",
                        namespace::IdError::Publisher => "publisher",
                        namespace::IdError::Package => "package",
                    };
                    self.outcome.error(format!(
                        "soulacy-sidecar.package-id.{rule}: /package_id is not <publisher>/<package>"
                    ));
                }
                None
            }
        }
    }

    /// Rules installed-version.calendar and installed-version.date: a v2 sidecar's
    /// installed_version is a calendar version; a v1 one is free-form.
    fn installed_version(&mut self, top: &[Member], v1: bool) {
        let Some(version) = self
            .lookup
            .get(top, "installed_version")
            .and_then(Json::as_str)
        else {
            return;
        };
        if (v1 && !self.planted(Planted::VersionCheckedInV1))
            || self.planted(Planted::VersionUnchecked)
        {
            return;
        }
        match calendar::check(version, self.slip) {
            Ok(()) => {}
            Err(calendar::CalendarError::Pattern) => self.outcome.error(
                "soulacy-sidecar.installed-version.calendar: /installed_version is not \
                 YYYY.MM.DD[.PATCH]",
            ),
            Err(calendar::CalendarError::Date) => self
                .outcome
                .error("soulacy-sidecar.installed-version.date: /installed_version names no date"),
        }
    }

    /// Rule installed-at.rfc3339.
    fn installed_at(&mut self, top: &[Member]) {
        let Some(text) = self.lookup.get(top, "installed_at").and_then(Json::as_str) else {
            return;
        };
        if self.planted(Planted::InstalledAtUnchecked) {
            return;
        }
        if instant::parse(text, self.slip).is_none() {
            self.outcome.error(
                "soulacy-sidecar.installed-at.rfc3339: /installed_at is not an RFC 3339 date-time",
            );
        }
    }

    /// Rule publisher.namespace (strict): publisher.id is package_id's publisher part.
    fn publisher_namespace(&mut self, top: &[Member], publisher_part: Option<&str>) {
        let publisher_id = self
            .lookup
            .get(top, "publisher")
            .and_then(Json::as_object)
            .and_then(|block| self.lookup.get(block, "id"))
            .and_then(Json::as_str);
        if let (Some(part), Some(id)) = (publisher_part, publisher_id) {
            if part != id && has_visible(part) {
                self.outcome.error(
                    "soulacy-sidecar.publisher.namespace: /publisher/id is not the package_id's \
                     publisher",
                );
            }
        }
    }
}

/// A human message for a read failure, naming its rule.
fn read_error_message(error: &ReadError) -> String {
    match error {
        ReadError::NotUtf8 => "soulacy-sidecar.json.utf8: the sidecar is not UTF-8".to_owned(),
        ReadError::ByteOrderMark => {
            "soulacy-sidecar.json.bom: a byte order mark leads the sidecar".to_owned()
        }
        ReadError::Syntax(message) => format!("soulacy-sidecar.json.syntax: {message}"),
        ReadError::TrailingData => {
            "soulacy-sidecar.json.trailing-data: data follows the JSON value".to_owned()
        }
    }
}
