//! Soulacy agent packages (`*.soulacy-agent.json`), schema v1 and v2: "Agent Package
//! Format" (Schema versions, v1 deprecation timeline, Calendar versioning, Namespaced
//! package ids) and the catalogue `cases/soulacy-package/rules.toml`, whose `upstream`
//! rules follow Soulacy's Go importer (field layout, types, the integrity digest over Go's
//! re-serialisation, file digests).
//!
//! The check runs in stages: read the JSON ([`super::json`]), walk the shape (presence,
//! types, unknown members: [`super::Walker`]), then the rules of the spec's sections, the
//! strict profile's protective rules, and last the two digests. Only the verdict matters
//! to the harness; messages start with the catalogue rule they report.

use sha2::{Digest as _, Sha256};

use super::golang::{self, Escaping, GoField, GoKind, GoValue};
use super::json::{self, BomPolicy, Json, Lookup, Member, ReadError};
use super::{calendar, field, has_visible, instant, namespace, Field, Kind, Slip, Walker};
use crate::{Input, Outcome, Settings};

crate::mistakes! {
    /// The planted mistakes of this format.
    pub enum Planted for SoulacyPackage {
        ReadUtf16 = "read-utf16": "sniffs a UTF-16 byte order mark or NUL pattern and transcodes the package to UTF-8 before parsing",
        ReadUtf32 = "read-utf32": "sniffs a UTF-32 byte order mark or NUL pattern and transcodes the package to UTF-8 before parsing",
        InvalidUtf8Replaced = "invalid-utf8-replaced": "replaces bytes that are not UTF-8 with U+FFFD and reads on, as Go's decoder does",
        TextTrimmed = "text-trimmed": "trims every Unicode white space (no-break space, U+2028, form feed) around the text before parsing",
        TrailingDataAccepted = "trailing-data-accepted": "stops reading after the first JSON value and ignores what follows",
        TrailingCommaAccepted = "trailing-comma-accepted": "accepts a comma before a closing bracket or brace",
        DuplicateFirstWins = "duplicate-first-wins": "keeps the first of repeated keys instead of the last",
        KeysCaseInsensitive = "keys-case-insensitive": "matches member names without regard to ASCII letter case, as Go binds fields",
        NullAsAbsent = "null-as-absent": "treats a null member as absent, as Go's decoder does",
        StringForList = "string-for-list": "accepts a string where a list of strings is due (it has a length too)",
        ListItemsUnchecked = "list-items-unchecked": "checks that a manifest list is an array but not that its items are strings",
        BytesFractionAccepted = "bytes-fraction-accepted": "accepts files[].bytes written with a fraction or exponent when its value is whole",
        VerifiedStringAccepted = "verified-string-accepted": "accepts integrity.verified as the string \"true\" or \"false\"",
        SchemaVersionTrimmed = "schema-version-trimmed": "trims white space around schema_version before comparing it",
        SchemaVersionCaseInsensitive = "schema-version-case-insensitive": "compares schema_version without regard to letter case",
        SchemaVersionUnchecked = "schema-version-unchecked": "treats any schema_version other than v1 as v2 without refusing it",
        V1AlwaysRefused = "v1-always-refused": "refuses every v1 package, as the CLI's validate does, instead of warning before the cutoff",
        V1NeverCutOff = "v1-never-cut-off": "only warns about a v1 package, whatever the clock says",
        CutoffDayEarly = "cutoff-day-early": "reads \"Now -> 2027-05-31\" as exclusive and refuses v1 from 2027-05-31 on",
        VersionTrimmed = "version-trimmed": "trims white space around a calendar version before matching, as Soulacy's code does",
        VersionUnanchored = "version-unanchored": "finds the calendar pattern anywhere in the version (a regex find, not a full match)",
        VersionRegexOnly = "version-regex-only": "checks the calendar version's pattern but not that its date exists",
        VersionUnpadded = "version-unpadded": "accepts a one-digit month or day",
        VersionPatchU64 = "version-patch-u64": "parses PATCH into a 64-bit integer and refuses one that overflows",
        VersionUnicodeDigits = "version-unicode-digits": "reads \\d as any Unicode decimal digit (the default of Rust's regex)",
        VersionYearZeroRefused = "version-year-zero-refused": "refuses year 0000 (there is no year zero in the Julian reckoning)",
        VersionZeroMonthDay = "version-zero-month-day": "checks month and day against their upper bounds only, so 00 passes",
        VersionMonth13 = "version-month-13": "accepts month 13 (an off-by-one at the month bound)",
        VersionDays31 = "version-days-31": "lets every month have 31 days",
        VersionLeapEveryFourth = "version-leap-every-fourth": "makes every year divisible by 4 a leap year, 2100 included",
        PackageIdTrimmed = "package-id-trimmed": "trims white space around package_id before matching, as Soulacy's code does",
        PackageIdUnanchored = "package-id-unanchored": "finds a publisher/package pair anywhere in package_id (a regex find)",
        PackageIdUppercase = "package-id-uppercase": "accepts uppercase ASCII letters in package_id",
        PackageIdUnicodeAlnum = "package-id-unicode-alnum": "accepts any lowercase Unicode letter or digit in package_id",
        PublisherMin1 = "publisher-min-1": "accepts a one-character publisher (off by one at the lower bound)",
        PublisherMax33 = "publisher-max-33": "accepts a 33-character publisher (off by one at the upper bound)",
        PublisherHyphenEdges = "publisher-hyphen-edges": "refuses a publisher that starts or ends with a hyphen, applying the package's rule",
        PackageMax64 = "package-max-64": "accepts a 64-character package part (off by one at the upper bound)",
        PackageLeadingHyphen = "package-leading-hyphen": "accepts a package part that starts with a hyphen",
        TimestampNoRangeCheck = "timestamp-no-range-check": "checks a timestamp's shape only: hour 24, 30 February and offset +24:00 pass",
        TimestampDateOnly = "timestamp-date-only": "accepts a date without a time as a timestamp",
        TimestampSpace = "timestamp-space": "accepts a space instead of T between date and time",
        TimestampFractionRefused = "timestamp-fraction-refused": "refuses fractional seconds in a timestamp",
        TimestampUtcOnly = "timestamp-utc-only": "accepts only Z as a timestamp's zone, refusing numeric offsets",
        TimestampOffsetNoColon = "timestamp-offset-no-colon": "accepts an offset without colon (+0200)",
        TimestampNoOffset = "timestamp-no-offset": "accepts a timestamp without zone, as local time",
        TimestampRfc3339Only = "timestamp-rfc3339-only": "reads exported_at as RFC 3339 only, refusing the one-digit hour and the comma before a fraction that the importer's Go time decoding reads",
        IntegrityOverFileBytes = "integrity-over-file-bytes": "computes the package digest over the file's bytes with integrity.sha256 blanked, not Go's re-serialisation",
        IntegrityNoHtmlEscape = "integrity-no-html-escape": "re-serialises without Go's escaping of <, > and &",
        IntegrityKeepsEmpty = "integrity-keeps-empty": "re-serialises empty omitempty members (\"files\": [], \"description\": \"\") instead of leaving them out",
        IntegrityCaseSensitive = "integrity-case-sensitive": "compares integrity.sha256 with the computed digest case-sensitively",
        IntegrityUnchecked = "integrity-unchecked": "does not check integrity.sha256, as the CLI's validate does",
        IntegrityNoSeparatorEscape = "integrity-no-separator-escape": "re-serialises U+2028 and U+2029 raw, as serde_json does, where Go writes \\u2028 and \\u2029",
        IntegritySortedKeys = "integrity-sorted-keys": "re-serialises members sorted by name (a map-based writer) instead of in Go's field order",
        IntegrityBeforeGo122 = "integrity-before-go-1-22": "re-serialises U+0008 and U+000C as \\u0008 and \\u000c, as Go did before 1.22, where the importer (Go 1.25) writes \\b and \\f",
        FileDigestUnchecked = "file-digest-unchecked": "does not compare a file's sha256 with its text",
        FileDigestCaseInsensitive = "file-digest-case-insensitive": "compares a file's sha256 with its text's digest without regard to letter case",
        FileWithoutTextSkipped = "file-without-text-skipped": "does not compare the digest of a file entry that has no text",
        SoulYamlWhitespaceAccepted = "soul-yaml-whitespace-accepted": "refuses only an empty soul_yaml, so one of white space passes",
        PackageIdOptional = "package-id-optional": "does not require package_id in a v2 manifest",
        VersionOptional = "version-optional": "does not require version in a v2 manifest",
        FileSha256Optional = "file-sha256-optional": "does not require sha256 in a files entry",
        ExportedAtUnchecked = "exported-at-unchecked": "does not check exported_at as an RFC 3339 date-time",
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
    (Planted::StringForList, Slip::StringForList),
    (Planted::ListItemsUnchecked, Slip::ListItemsUnchecked),
    (Planted::BytesFractionAccepted, Slip::CountAcceptsFloat),
    (Planted::VerifiedStringAccepted, Slip::FlagAcceptsString),
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

/// The spec's two schema strings (Schema versions table).
const SCHEMA_V1: &str = "soulacy.agent.package/v1";
const SCHEMA_V2: &str = "soulacy.agent.package/v2";

/// Rule `soulacy-package.size.max`: 4 MiB, inclusive.
const MAX_BYTES: usize = 4 * 1024 * 1024;
/// Rule `soulacy-package.json.depth`: 64 levels.
const MAX_DEPTH: usize = 64;
/// The v1 cutoff day (v1 deprecation timeline: "2027-06-01 onwards: v1 imports are
/// refused"), read as its 00:00:00 UTC (rule `soulacy-package.v1.deprecated`, decision).
const CUTOFF: &str = "2027-06-01";
/// The planted mistake's cutoff (the day before).
const CUTOFF_DAY_EARLY: &str = "2027-05-31";

// The package's shape (catalogue `field.required` and `field.type`, after Soulacy's Go
// structures: field notes, "Soulacy agent package").

const ITEM: &[Field] = &[
    field("id", Kind::Text, true),
    field("reason", Kind::Text, false),
];
const REQUIRED_SECRET: &[Field] = &[
    field("key", Kind::Text, true),
    field("label", Kind::Text, false),
    field("reason", Kind::Text, false),
    field("kind", Kind::Text, false),
    field("provider", Kind::Text, false),
];
const REQUIRES: &[Field] = &[
    field("soulacy_version", Kind::Text, false),
    field("providers", Kind::Records(ITEM), false),
    field("channels", Kind::Records(ITEM), false),
    field("secrets", Kind::Records(REQUIRED_SECRET), false),
    field("mcp_servers", Kind::Records(ITEM), false),
    field("peer_agents", Kind::Records(ITEM), false),
];
const PUBLISHER: &[Field] = &[
    field("id", Kind::Text, true),
    field("display_name", Kind::Text, false),
    field("signature_key", Kind::Text, false),
    field("trust_level", Kind::Text, false),
];
const SECRET: &[Field] = &[
    field("kind", Kind::Text, true),
    field("name", Kind::Text, true),
    field("description", Kind::Text, false),
];

/// The manifest members both schemas have; `$v2` says whether agent_id and version are
/// required (v2: "Required calendar version", agent_id per `sy agent package validate`).
macro_rules! manifest_common {
    ($v2:expr) => {
        [
            field("agent_id", Kind::Text, $v2),
            field("name", Kind::Text, false),
            field("version", Kind::Text, $v2),
            field("description", Kind::Text, false),
            field("trigger", Kind::Text, false),
            field("surfaces", Kind::Texts, false),
            field("providers", Kind::Texts, false),
            field("models", Kind::Texts, false),
            field("channels", Kind::Texts, false),
            field("skills", Kind::Texts, false),
            field("knowledge", Kind::Texts, false),
            field("peer_agents", Kind::Texts, false),
            field("builtins", Kind::Texts, false),
            field("mcp_servers", Kind::Texts, false),
            field("mcp_tools", Kind::Texts, false),
            field("env", Kind::Texts, false),
            field("capabilities", Kind::Texts, false),
            field("secrets", Kind::Records(SECRET), false),
            field("files_required", Kind::Texts, false),
            field("eval_suites", Kind::Texts, false),
            field("sample_prompts", Kind::Texts, false),
            field("warnings", Kind::Texts, false),
        ]
    };
}

const MANIFEST_V1: &[Field] = &manifest_common!(false);
const MANIFEST_V2: &[Field] = &{
    let common: [Field; 22] = manifest_common!(true);
    let extra = [
        field("package_id", Kind::Text, true),
        field("prior_version", Kind::Text, false),
        field("released_at", Kind::Text, false),
        field("changelog", Kind::Text, false),
        field("publisher", Kind::Record(PUBLISHER), false),
        field("requires", Kind::Record(REQUIRES), false),
    ];
    let mut all = [field("", Kind::Text, false); 28];
    let mut index = 0;
    while index < 22 {
        all[index] = common[index];
        index += 1;
    }
    while index < 28 {
        all[index] = extra[index - 22];
        index += 1;
    }
    all
};
const FILE: &[Field] = &[
    field("path", Kind::Text, true),
    field("sha256", Kind::Text, true),
    field("bytes", Kind::Count, true),
    field("text", Kind::Text, false),
];
const INTEGRITY: &[Field] = &[
    field("algorithm", Kind::Text, false),
    field("sha256", Kind::Text, false),
    field("signature", Kind::Text, false),
    field("public_key", Kind::Text, false),
    field("verified", Kind::Flag, false),
];
const TOP_V1: &[Field] = &[
    field("schema_version", Kind::Text, true),
    field("exported_at", Kind::Text, false),
    field("manifest", Kind::Record(MANIFEST_V1), true),
    field("soul_yaml", Kind::Text, true),
    field("files", Kind::Records(FILE), false),
    field("integrity", Kind::Record(INTEGRITY), false),
];
const TOP_V2: &[Field] = &[
    field("schema_version", Kind::Text, true),
    field("exported_at", Kind::Text, false),
    field("manifest", Kind::Record(MANIFEST_V2), true),
    field("soul_yaml", Kind::Text, true),
    field("files", Kind::Records(FILE), false),
    field("integrity", Kind::Record(INTEGRITY), false),
];

/// Validates one input.
pub fn validate(input: Input<'_>, settings: &Settings<'_>) -> Outcome {
    let Input::Document { bytes, .. } = input else {
        return Outcome::decline("a Soulacy package is one file, not a directory");
    };
    let mut check = Check::new(settings);
    let over_bound = check.run(bytes);
    finish(check.outcome, over_bound, settings.strict)
}

/// A bound was passed (`size.max`, `json.depth`): the strict profile rejects; the spec
/// profile declines to judge unless an error was already found (catalogue, `kind = bound`).
fn finish(mut outcome: Outcome, over_bound: Option<&str>, strict: bool) -> Outcome {
    match over_bound {
        Some(rule) if strict => {
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

impl<'a> Check<'a> {
    fn new(settings: &'a Settings<'a>) -> Check<'a> {
        let slip = SHARED
            .iter()
            .find(|(planted, _)| settings.planted(planted.name()))
            .map(|(_, slip)| *slip);
        Check {
            settings,
            slip,
            lookup: Lookup { slip },
            outcome: Outcome::default(),
        }
    }

    fn planted(&self, planted: Planted) -> bool {
        self.settings.planted(planted.name())
    }

    /// Runs every rule; returns the bound passed, if any.
    fn run(&mut self, bytes: &[u8]) -> Option<&'static str> {
        let mut over_bound = None;
        if bytes.len() > MAX_BYTES {
            over_bound = Some("soulacy-package.size.max");
        }
        // Rules json.utf8, json.bom (upstream: Go refuses a BOM), json.syntax,
        // json.trailing-data.
        let root = match json::read(bytes, BomPolicy::Refuse, self.slip) {
            Ok(root) => root,
            Err(error) => {
                self.outcome.error(read_error_message(&error));
                return over_bound;
            }
        };
        if root.depth() > MAX_DEPTH {
            over_bound = over_bound.or(Some("soulacy-package.json.depth"));
        }
        // Rule root.type: a package is one JSON object (opening paragraph).
        let Some(top) = root.as_object() else {
            self.outcome
                .error("soulacy-package.root.type: the package is not a JSON object");
            return over_bound;
        };
        if self.settings.strict {
            self.duplicates(&root);
        }
        let schema = self
            .lookup
            .get(top, "schema_version")
            .and_then(Json::as_str);
        let v1 = schema.is_some_and(|schema| self.schema_matches(schema, SCHEMA_V1));
        self.shape(top, v1);
        self.schema_version(schema, v1);
        let manifest = self.lookup.get(top, "manifest").and_then(Json::as_object);
        if let (Some(manifest), false) = (manifest, v1) {
            self.v2_manifest(manifest);
        }
        self.timestamps(top, manifest, v1);
        self.soul_yaml(top);
        self.files(top);
        self.integrity(top, &root);
        over_bound
    }

    /// Rule json.duplicate-key (strict): no key twice in an object, at any depth.
    fn duplicates(&mut self, root: &Json) {
        let mut found = Vec::new();
        json::duplicate_keys(root, "", &mut found);
        for pointer in found {
            self.outcome.error(format!(
                "soulacy-package.json.duplicate-key: {pointer} repeats a key"
            ));
        }
    }

    /// Rules field.required, field.type, object.unknown-key, over the whole shape. In a v1
    /// manifest the v2-only members are unknown (catalogue, object.unknown-key).
    fn shape(&mut self, top: &[Member], v1: bool) {
        let not_required = if self.planted(Planted::PackageIdOptional) {
            Some("manifest.package_id")
        } else if self.planted(Planted::VersionOptional) {
            Some("manifest.version")
        } else if self.planted(Planted::FileSha256Optional) {
            Some("files.sha256")
        } else {
            None
        };
        let mut walker = Walker {
            lookup: self.lookup,
            slip: self.slip,
            format: "soulacy-package",
            not_required,
            outcome: &mut self.outcome,
        };
        walker.record(top, if v1 { TOP_V1 } else { TOP_V2 }, "", "");
    }

    /// Whether `schema` is the schema string `wanted` (exactly, by the Schema versions
    /// table; the planted mistakes trim or ignore case).
    fn schema_matches(&self, schema: &str, wanted: &str) -> bool {
        if self.planted(Planted::SchemaVersionTrimmed) {
            schema.trim() == wanted
        } else if self.planted(Planted::SchemaVersionCaseInsensitive) {
            schema.eq_ignore_ascii_case(wanted)
        } else {
            schema == wanted
        }
    }

    /// Rules schema-version.value, v1.deprecated and v1.cutoff.
    fn schema_version(&mut self, schema: Option<&str>, v1: bool) {
        let Some(schema) = schema else {
            return;
        };
        if !v1
            && !self.schema_matches(schema, SCHEMA_V2)
            && !self.planted(Planted::SchemaVersionUnchecked)
        {
            self.outcome.error(
                "soulacy-package.schema-version.value: /schema_version is neither \
                 soulacy.agent.package/v1 nor soulacy.agent.package/v2",
            );
            return;
        }
        if !v1 {
            return;
        }
        // v1 deprecation timeline: "Now -> 2027-05-31: v1 packages import with a WARN";
        // "2027-06-01 onwards: v1 imports are refused". The cutoff is the instant
        // 2027-06-01T00:00:00Z, included; an unknown clock only warns.
        let cutoff_day = if self.planted(Planted::CutoffDayEarly) {
            CUTOFF_DAY_EARLY
        } else {
            CUTOFF
        };
        let now = instant::clock(self.settings.context_str("now"));
        let cutoff = instant::clock(Some(cutoff_day));
        let past_cutoff = matches!((now, cutoff), (Some(now), Some(cutoff)) if now >= cutoff);
        if self.planted(Planted::V1AlwaysRefused)
            || (past_cutoff && !self.planted(Planted::V1NeverCutOff))
        {
            self.outcome
                .error("soulacy-package.v1.cutoff: v1 packages are refused from 2027-06-01 on");
        } else {
            self.outcome.warning(
                "soulacy-package.v1.deprecated: schema v1 is deprecated and refused from \
                 2027-06-01 on",
            );
        }
    }

    /// The v2 manifest's own rules: calendar versions, the package id, and the strict
    /// profile's agent_id, namespace and reserved-namespace rules.
    fn v2_manifest(&mut self, manifest: &[Member]) {
        for (key, pointer) in [
            ("version", "/manifest/version"),
            ("prior_version", "/manifest/prior_version"),
        ] {
            if let Some(version) = self.lookup.get(manifest, key).and_then(Json::as_str) {
                self.calendar_version(version, pointer);
            }
        }
        let package_id = self
            .lookup
            .get(manifest, "package_id")
            .and_then(Json::as_str);
        let publisher_part = package_id.and_then(|id| self.package_id(id));
        let publisher_part = publisher_part.as_deref();
        let publisher = self
            .lookup
            .get(manifest, "publisher")
            .and_then(Json::as_object);
        if self.settings.strict {
            self.strict_manifest(manifest, publisher_part, publisher);
        }
    }

    /// Rules version.calendar and version.date (Calendar versioning).
    fn calendar_version(&mut self, version: &str, pointer: &str) {
        match calendar::check(version, self.slip) {
            Ok(()) => {}
            Err(calendar::CalendarError::Pattern) => self.outcome.error(format!(
                "soulacy-package.version.calendar: {pointer} is not YYYY.MM.DD[.PATCH]"
            )),
            Err(calendar::CalendarError::Date) => self.outcome.error(format!(
                "soulacy-package.version.date: {pointer} names a date that does not exist"
            )),
        }
    }

    /// Rules package-id.shape, package-id.publisher, package-id.package (Namespaced
    /// package ids). Gives the publisher part of a valid id.
    fn package_id(&mut self, id: &str) -> Option<String> {
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
                        "soulacy-package.package-id.{rule}: /manifest/package_id is not \
                         <publisher>/<package>"
                    ));
                }
                None
            }
        }
    }

    /// Strict-profile rules on a v2 manifest: agent-id.content, publisher.namespace,
    /// namespace.reserved, requires.blank-id.
    fn strict_manifest(
        &mut self,
        manifest: &[Member],
        publisher_part: Option<&str>,
        publisher: Option<&[Member]>,
    ) {
        if let Some(agent_id) = self.lookup.get(manifest, "agent_id").and_then(Json::as_str) {
            if !has_visible(agent_id) {
                self.outcome
                    .error("soulacy-package.agent-id.content: /manifest/agent_id is blank");
            }
        }
        let publisher_id = publisher
            .and_then(|block| self.lookup.get(block, "id"))
            .and_then(Json::as_str);
        if let (Some(part), Some(id)) = (publisher_part, publisher_id) {
            if part != id {
                self.outcome.error(
                    "soulacy-package.publisher.namespace: /manifest/publisher/id is not the \
                     package_id's publisher",
                );
            }
        }
        if publisher_part == Some("soulacy") {
            let key = publisher
                .and_then(|block| self.lookup.get(block, "signature_key"))
                .and_then(Json::as_str);
            let official = self
                .settings
                .context
                .get("official_keys")
                .and_then(serde_json::Value::as_array);
            let listed = key.is_some_and(|key| {
                official.is_some_and(|keys| keys.iter().any(|entry| entry.as_str() == Some(key)))
            });
            if !listed {
                self.outcome.error(
                    "soulacy-package.namespace.reserved: the soulacy/ namespace needs an \
                     official signature_key",
                );
            }
        }
        if let Some(requires) = self
            .lookup
            .get(manifest, "requires")
            .and_then(Json::as_object)
        {
            self.blank_requirements(requires);
        }
    }

    /// Rule requires.blank-id (strict): every requires entry names something.
    fn blank_requirements(&mut self, requires: &[Member]) {
        for (list, key) in [
            ("providers", "id"),
            ("channels", "id"),
            ("secrets", "key"),
            ("mcp_servers", "id"),
            ("peer_agents", "id"),
        ] {
            let Some(Json::Array(entries)) = self.lookup.get(requires, list) else {
                continue;
            };
            for (index, entry) in entries.iter().enumerate() {
                let name = entry
                    .as_object()
                    .and_then(|entry| self.lookup.get(entry, key))
                    .and_then(Json::as_str);
                if name.is_some_and(|name| !has_visible(name)) {
                    self.outcome.error(format!(
                        "soulacy-package.requires.blank-id: /manifest/requires/{list}/{index}/{key} is blank"
                    ));
                }
            }
        }
    }

    /// Rule timestamp.rfc3339: exported_at and (v2) manifest.released_at.
    fn timestamps(&mut self, top: &[Member], manifest: Option<&[Member]>, v1: bool) {
        let mut stamps = Vec::new();
        if !self.planted(Planted::ExportedAtUnchecked) {
            stamps.push(("/exported_at", self.lookup.get(top, "exported_at")));
        }
        if !v1 {
            let released = manifest.and_then(|manifest| self.lookup.get(manifest, "released_at"));
            stamps.push(("/manifest/released_at", released));
        }
        for (pointer, value) in stamps {
            let Some(text) = value.and_then(Json::as_str) else {
                continue;
            };
            let rfc3339 = instant::parse(text, self.slip).is_some();
            // The importer reads what Go's time decoding takes, a little more than RFC 3339.
            let go = !self.planted(Planted::TimestampRfc3339Only)
                && instant::parse_as(text, self.slip, instant::Reading::Go).is_some();
            if !rfc3339 && !go {
                self.outcome.error(format!(
                    "soulacy-package.timestamp.rfc3339: {pointer} is not a date-time the importer reads"
                ));
            } else if !rfc3339 && self.settings.strict {
                self.outcome.error(format!(
                    "soulacy-package.timestamp.lax-form: {pointer} is read by Go's lax parse but is not RFC 3339"
                ));
            }
        }
    }

    /// Rule soul-yaml.content: the SOUL.yaml is not blank.
    fn soul_yaml(&mut self, top: &[Member]) {
        let Some(text) = self.lookup.get(top, "soul_yaml").and_then(Json::as_str) else {
            return;
        };
        let blank = if self.planted(Planted::SoulYamlWhitespaceAccepted) {
            text.is_empty()
        } else {
            !has_visible(text)
        };
        if blank {
            self.outcome
                .error("soulacy-package.soul-yaml.content: /soul_yaml holds no SOUL.yaml");
        }
    }

    /// Rule files.text-digest, and in the strict profile the path rules and
    /// digest.format.
    fn files(&mut self, top: &[Member]) {
        let Some(Json::Array(entries)) = self.lookup.get(top, "files") else {
            return;
        };
        let mut paths = std::collections::HashSet::new();
        for (index, entry) in entries.iter().enumerate() {
            let Some(entry) = entry.as_object() else {
                continue;
            };
            let pointer = format!("/files/{index}");
            if self.settings.strict {
                if let Some(path) = self.lookup.get(entry, "path").and_then(Json::as_str) {
                    self.strict_path(path, &pointer);
                    if !paths.insert(path.to_owned()) {
                        self.outcome.error(format!(
                            "soulacy-package.files.path-duplicate: {pointer}/path is listed twice"
                        ));
                    }
                }
            }
            self.file_digest(entry, &pointer);
        }
    }

    /// Rules files.path-empty, files.path-absolute, files.path-traversal (strict).
    fn strict_path(&mut self, path: &str, pointer: &str) {
        let drive = path.as_bytes().get(1) == Some(&b':')
            && path.as_bytes().first().is_some_and(u8::is_ascii_alphabetic);
        if path.is_empty() {
            self.outcome.error(format!(
                "soulacy-package.files.path-empty: {pointer}/path is empty"
            ));
        } else if path.starts_with('/') || path.starts_with('\\') || drive {
            self.outcome.error(format!(
                "soulacy-package.files.path-absolute: {pointer}/path is absolute"
            ));
        }
        if path.split(['/', '\\']).any(|segment| segment == "..") {
            self.outcome.error(format!(
                "soulacy-package.files.path-traversal: {pointer}/path has a .. segment"
            ));
        }
    }

    /// Rule files.text-digest: a nonempty sha256 is the lowercase hex SHA-256 of the text
    /// (an absent text is the empty text; a text of another type is not hashed).
    fn file_digest(&mut self, entry: &[Member], pointer: &str) {
        let Some(declared) = self.lookup.get(entry, "sha256").and_then(Json::as_str) else {
            return;
        };
        if self.settings.strict && !is_lower_hex_digest(declared) {
            self.outcome.error(format!(
                "soulacy-package.digest.format: {pointer}/sha256 is not 64 lowercase hex digits"
            ));
        }
        if declared.is_empty() || self.planted(Planted::FileDigestUnchecked) {
            return;
        }
        let text = match self.lookup.get(entry, "text") {
            None if self.planted(Planted::FileWithoutTextSkipped) => return,
            None | Some(Json::Null) => "",
            Some(Json::String(text)) => text.as_str(),
            Some(_) => return,
        };
        let actual = hex(&Sha256::digest(text.as_bytes()));
        let matches = if self.planted(Planted::FileDigestCaseInsensitive) {
            actual.eq_ignore_ascii_case(declared)
        } else {
            actual == declared
        };
        if !matches {
            self.outcome.error(format!(
                "soulacy-package.files.text-digest: {pointer}/sha256 is not the digest of its text"
            ));
        }
    }

    /// Rule integrity.mismatch (and digest.format, strict): a nonempty integrity.sha256 is
    /// the importer's digest, compared ignoring letter case.
    fn integrity(&mut self, top: &[Member], root: &Json) {
        let declared = self
            .lookup
            .get(top, "integrity")
            .and_then(Json::as_object)
            .and_then(|integrity| self.lookup.get(integrity, "sha256"))
            .and_then(Json::as_str);
        if let Some(declared) = declared {
            if self.settings.strict && !is_lower_hex_digest(declared) {
                self.outcome.error(
                    "soulacy-package.digest.format: /integrity/sha256 is not 64 lowercase hex digits",
                );
            }
        }
        if self.planted(Planted::IntegrityUnchecked) {
            return;
        }
        let computed = if self.planted(Planted::IntegrityOverFileBytes) {
            file_bytes_digest(root)
        } else {
            self.importer_digest(top)
        };
        let Some((declared, computed)) = computed else {
            return;
        };
        if declared.is_empty() {
            return;
        }
        let matches = if self.planted(Planted::IntegrityCaseSensitive) {
            declared == computed
        } else {
            declared.eq_ignore_ascii_case(&computed)
        };
        if !matches {
            self.outcome.error(
                "soulacy-package.integrity.mismatch: /integrity/sha256 is not the importer's digest",
            );
        }
    }

    /// The importer's digest: decode as Go does, empty integrity, marshal, hash. Gives the
    /// declared digest (as Go read it) and the computed one; `None` when Go could not
    /// decode the package (then the import is refused on other grounds).
    fn importer_digest(&self, top: &[Member]) -> Option<(String, String)> {
        let mut package = golang::zero_struct(GO_TOP);
        let mut failed = false;
        golang::decode_struct(GO_TOP, &mut package, top, &mut failed);
        if failed {
            return None;
        }
        let integrity_index = GO_TOP.iter().position(|field| field.name == "integrity")?;
        let declared = match package.get(integrity_index) {
            Some(GoValue::Struct(integrity)) => match integrity.get(1) {
                Some(GoValue::Str(sha)) => sha.clone(),
                _ => String::new(),
            },
            _ => String::new(),
        };
        if let Some(slot) = package.get_mut(integrity_index) {
            *slot = GoValue::Struct(golang::zero_struct(GO_INTEGRITY));
        }
        let escaping = Escaping {
            html: !self.planted(Planted::IntegrityNoHtmlEscape),
            separators: !self.planted(Planted::IntegrityNoSeparatorEscape),
            sorted: self.planted(Planted::IntegritySortedKeys),
            omit_empty: !self.planted(Planted::IntegrityKeepsEmpty),
            before_go_1_22: self.planted(Planted::IntegrityBeforeGo122),
        };
        let mut serialised = String::new();
        golang::encode_struct(GO_TOP, &package, escaping, &mut serialised);
        Some((declared, hex(&Sha256::digest(serialised.as_bytes()))))
    }
}

/// The planted mistake's digest: the file as read, re-serialised by serde_json with
/// integrity.sha256 blanked (a reader that never modelled Go's writer).
fn file_bytes_digest(root: &Json) -> Option<(String, String)> {
    let members = root.as_object()?;
    let declared = members
        .iter()
        .rev()
        .find(|member| member.key == "integrity")
        .and_then(|member| member.value.as_object())
        .and_then(|integrity| integrity.iter().rev().find(|member| member.key == "sha256"))
        .and_then(|member| member.value.as_str())?
        .to_owned();
    let blanked = blank_integrity(root);
    let text = serde_json::to_string(&to_serde(&blanked)).ok()?;
    Some((declared, hex(&Sha256::digest(text.as_bytes()))))
}

/// The tree with `integrity.sha256` emptied.
fn blank_integrity(root: &Json) -> Json {
    let Json::Object(members) = root else {
        return root.clone();
    };
    let members = members
        .iter()
        .map(|member| {
            if member.key != "integrity" {
                return member.clone();
            }
            let value = match &member.value {
                Json::Object(inner) => Json::Object(
                    inner
                        .iter()
                        .map(|item| Member {
                            key: item.key.clone(),
                            value: if item.key == "sha256" {
                                Json::String(String::new())
                            } else {
                                item.value.clone()
                            },
                        })
                        .collect(),
                ),
                other => other.clone(),
            };
            Member {
                key: member.key.clone(),
                value,
            }
        })
        .collect();
    Json::Object(members)
}

/// Our tree as a serde_json value (the planted mistake's writer).
fn to_serde(value: &Json) -> serde_json::Value {
    match value {
        Json::Null => serde_json::Value::Null,
        Json::Bool(flag) => serde_json::Value::Bool(*flag),
        Json::Number(json::Number::Unsigned(number)) => serde_json::Value::from(*number),
        Json::Number(json::Number::Negative(number)) => serde_json::Value::from(*number),
        Json::Number(json::Number::Float(number)) => serde_json::Value::from(*number),
        Json::String(text) => serde_json::Value::String(text.clone()),
        Json::Array(items) => serde_json::Value::Array(items.iter().map(to_serde).collect()),
        Json::Object(members) => serde_json::Value::Object(
            members
                .iter()
                .map(|member| (member.key.clone(), to_serde(&member.value)))
                .collect(),
        ),
    }
}

/// A human message for a read failure, naming its rule.
fn read_error_message(error: &ReadError) -> String {
    match error {
        ReadError::NotUtf8 => "soulacy-package.json.utf8: the package is not UTF-8".to_owned(),
        ReadError::ByteOrderMark => {
            "soulacy-package.json.bom: a byte order mark leads the package".to_owned()
        }
        ReadError::Syntax(message) => format!("soulacy-package.json.syntax: {message}"),
        ReadError::TrailingData => {
            "soulacy-package.json.trailing-data: data follows the JSON value".to_owned()
        }
    }
}

/// Lowercase hex.
fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|byte| format!("{byte:02x}")).collect()
}

/// 64 lowercase hex digits (rule digest.format).
fn is_lower_hex_digest(text: &str) -> bool {
    text.len() == 64
        && text
            .bytes()
            .all(|byte| byte.is_ascii_digit() || (b'a'..=b'f').contains(&byte))
}

// The importer's Go structures, in field order, for the digest (field notes, "Learned by
// running the public code": `?` = omitempty).

const fn go(name: &'static str, kind: GoKind, omit_empty: bool) -> GoField {
    GoField {
        name,
        kind,
        omit_empty,
    }
}

const GO_ITEM: &[GoField] = &[
    go("id", GoKind::Str, false),
    go("reason", GoKind::Str, true),
];
const GO_REQUIRED_SECRET: &[GoField] = &[
    go("key", GoKind::Str, false),
    go("label", GoKind::Str, true),
    go("reason", GoKind::Str, true),
    go("kind", GoKind::Str, true),
    go("provider", GoKind::Str, true),
];
const GO_REQUIRES: &[GoField] = &[
    go("soulacy_version", GoKind::Str, true),
    go("providers", GoKind::Structs(GO_ITEM), true),
    go("channels", GoKind::Structs(GO_ITEM), true),
    go("secrets", GoKind::Structs(GO_REQUIRED_SECRET), true),
    go("mcp_servers", GoKind::Structs(GO_ITEM), true),
    go("peer_agents", GoKind::Structs(GO_ITEM), true),
];
const GO_PUBLISHER: &[GoField] = &[
    go("id", GoKind::Str, false),
    go("display_name", GoKind::Str, true),
    go("signature_key", GoKind::Str, true),
    go("trust_level", GoKind::Str, true),
];
const GO_SECRET: &[GoField] = &[
    go("kind", GoKind::Str, false),
    go("name", GoKind::Str, false),
    go("description", GoKind::Str, true),
];
const GO_MANIFEST: &[GoField] = &[
    go("agent_id", GoKind::Str, false),
    go("name", GoKind::Str, false),
    go("version", GoKind::Str, true),
    go("description", GoKind::Str, true),
    go("trigger", GoKind::Str, false),
    go("surfaces", GoKind::Strs, true),
    go("providers", GoKind::Strs, true),
    go("models", GoKind::Strs, true),
    go("channels", GoKind::Strs, true),
    go("skills", GoKind::Strs, true),
    go("knowledge", GoKind::Strs, true),
    go("peer_agents", GoKind::Strs, true),
    go("builtins", GoKind::Strs, true),
    go("mcp_servers", GoKind::Strs, true),
    go("mcp_tools", GoKind::Strs, true),
    go("env", GoKind::Strs, true),
    go("capabilities", GoKind::Strs, true),
    go("secrets", GoKind::Structs(GO_SECRET), true),
    go("files_required", GoKind::Strs, true),
    go("eval_suites", GoKind::Strs, true),
    go("sample_prompts", GoKind::Strs, true),
    go("warnings", GoKind::Strs, true),
    go("package_id", GoKind::Str, true),
    go("prior_version", GoKind::Str, true),
    go("released_at", GoKind::Str, true),
    go("changelog", GoKind::Str, true),
    go("publisher", GoKind::Ptr(GO_PUBLISHER), true),
    go("requires", GoKind::Ptr(GO_REQUIRES), true),
];
const GO_FILE: &[GoField] = &[
    go("path", GoKind::Str, false),
    go("sha256", GoKind::Str, false),
    go("bytes", GoKind::Int, false),
    go("text", GoKind::Str, true),
];
const GO_INTEGRITY: &[GoField] = &[
    go("algorithm", GoKind::Str, true),
    go("sha256", GoKind::Str, true),
    go("signature", GoKind::Str, true),
    go("public_key", GoKind::Str, true),
    go("verified", GoKind::Bool, true),
];
const GO_TOP: &[GoField] = &[
    go("schema_version", GoKind::Str, false),
    go("exported_at", GoKind::Time, false),
    go("manifest", GoKind::Struct(GO_MANIFEST), false),
    go("soul_yaml", GoKind::Str, false),
    go("files", GoKind::Structs(GO_FILE), true),
    go("integrity", GoKind::Struct(GO_INTEGRITY), false),
];
