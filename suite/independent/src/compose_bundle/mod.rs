//! agent-compose bundles (`compose-bundle`): a directory whose `manifest.json` names what
//! was composed and where the entry points are, whose `trace.json` records the decisions
//! that selected it, and whose `content/skills` keeps one identity tree per selected skill.
//!
//! Written from "agent-compose: Bundle manifest schema", the field notes on agent-compose's
//! `verify` (which the catalogue's `upstream` rules follow) and the rule catalogue
//! `cases/compose-bundle/rules.toml`. The work is split the way a bundle is read:
//!
//! - [`tree`] walks the directory once, without following symlinks, and answers every later
//!   question about entries from that walk, so nothing outside the bundle is ever touched;
//! - [`json`] turns a file's bytes into a JSON value (size, encoding, syntax, depth and
//!   repeated keys) with serde_json;
//! - [`manifest`] judges the manifest's members and the delivery entry points;
//! - [`trace`] judges the decision trace and the identity trees it implies;
//! - [`voice`] judges the voice profile delivery names, when it names one;
//! - [`names`] holds the small string tests several of them share (safe segments, locators,
//!   digests, device names, percent-encoding).
//!
//! Only `validate` is implemented: the fingerprint, voice-profile and whoami operations are
//! not this implementation's concern.

mod json;
mod manifest;
mod names;
mod trace;
mod tree;
mod voice;

use crate::{Input, Outcome, Settings};

crate::mistakes! {
    /// The planted mistakes of this format.
    pub enum Planted for ComposeBundle {
        Utf16Sniffed = "utf16-sniffed": "sniffs a UTF-16 byte order mark or NUL pattern in a JSON file and transcodes it to UTF-8 instead of refusing it",
        Utf32Sniffed = "utf32-sniffed": "sniffs a UTF-32 byte order mark or NUL pattern in a JSON file and transcodes it to UTF-8 instead of refusing it",
        BomSkipped = "bom-skipped": "skips a leading UTF-8 byte order mark in a JSON file",
        UnicodeWhitespaceTrimmed = "unicode-whitespace-trimmed": "trims Unicode whitespace (no-break space, U+2028, form feed) around a JSON file's text before parsing it",
        TrailingDataIgnored = "trailing-data-ignored": "reads the first JSON value of a file and ignores whatever follows it",
        InvalidUtf8Replaced = "invalid-utf8-replaced": "decodes invalid UTF-8 in a JSON file as U+FFFD (as Go does) instead of refusing the file",
        TrailingCommaAccepted = "trailing-comma-accepted": "accepts a trailing comma before a closing bracket or brace (a JSON5-style reader)",
        ManifestNonObjectSkipped = "manifest-non-object-skipped": "skips the member checks when manifest.json holds a JSON value that is not an object",
        SizeBoundExclusive = "size-bound-exclusive": "reads the 1 MiB bound on a JSON file as exclusive, leaving a file of exactly 1048576 bytes unjudged",
        WalkBoundOffByOne = "walk-bound-off-by-one": "stops the walk at 10000 entries instead of past them, leaving a tree of exactly 10000 entries unjudged",
        FormatMarkerOptional = "format-marker-optional": "checks the format marker only when the manifest has one",
        FormatMarkerCaseInsensitive = "format-marker-case-insensitive": "compares the format marker with `agent-compose.bundle` without regard to letter case",
        RoleSkillSourceOptional = "role-skill-source-optional": "does not require role_skill_source",
        PersonalitiesStringAccepted = "personalities-string-accepted": "accepts a string where the personalities array is due, reading it as a one-item list",
        SourcesStringAccepted = "sources-string-accepted": "accepts a string where the sources array is due, reading it as a one-item list",
        ContentStringAccepted = "content-string-accepted": "accepts a non-empty string where the content array is due, checking only its length",
        EmptyNamesAllowed = "empty-names-allowed": "does not refuse empty names and ids (role, personalities, boundaries, sources, content ids)",
        RoleSkillBindingTrimmed = "role-skill-binding-trimmed": "compares role_skill with `role-` + role after trimming surrounding whitespace",
        RoleSkillBindingCaseInsensitive = "role-skill-binding-case-insensitive": "compares role_skill with `role-` + role without regard to letter case",
        RoleSkillPrefixOnly = "role-skill-prefix-only": "checks only that role_skill starts with `role-`",
        DigestShortAccepted = "digest-short-accepted": "counts a digest's hex digits with an off-by-one, accepting 63",
        DigestLongAccepted = "digest-long-accepted": "accepts 64 or more hex digits after `sha256:`",
        DigestUnanchored = "digest-unanchored": "looks for `sha256:` and 64 lowercase hex digits anywhere in a digest (an unanchored pattern)",
        DigestPrefixCaseInsensitive = "digest-prefix-case-insensitive": "accepts the `sha256:` label in any letter case",
        DigestHexUnchecked = "digest-hex-unchecked": "checks a content digest only for the `sha256:` prefix and the length 71 (agent-compose's check)",
        RoleSkillDigestPresenceOnly = "role-skill-digest-presence-only": "checks role_skill_digest only for presence (agent-compose's check)",
        ColorThreeDigitAccepted = "color-three-digit-accepted": "accepts the three-digit CSS color form `#rgb`",
        ColorUnanchored = "color-unanchored": "looks for `#` and six hex digits anywhere in color (an unanchored pattern), accepting `#90a66aff`",
        ModelTierCaseInsensitive = "model-tier-case-insensitive": "compares model_tier with the three lanes without regard to letter case",
        ModelTierEmptyAsAbsent = "model-tier-empty-as-absent": "reads an empty model_tier as absent, so as frontier (agent-compose's reading)",
        ModelTierRequired = "model-tier-required": "requires model_tier, refusing a manifest from before the tier field",
        ModelClassReadAsTier = "model-class-read-as-tier": "reads a retired model_class as the tier when model_tier is absent",
        PersonalitiesDuplicatesAllowed = "personalities-duplicates-allowed": "does not refuse a personality listed twice",
        PersonalitiesEmptyAllowed = "personalities-empty-allowed": "accepts an empty personalities list",
        SegmentTrailingDotAllowed = "segment-trailing-dot-allowed": "the safe-segment test (personalities, trace skill names) forgets the trailing dot and space",
        SegmentDeviceExtensionAllowed = "segment-device-extension-allowed": "the safe-segment test refuses a Windows device name only without an extension (`nul.txt` passes)",
        LocatorSlashOnly = "locator-slash-only": "refuses as locators only ids holding `/` (backslash, `.`, `..`, `~` and drive prefixes pass)",
        ContentIdLocatorUnchecked = "content-id-locator-unchecked": "does not look for locators in content ids",
        RoleSkillSourceLocatorUnchecked = "role-skill-source-locator-unchecked": "does not look for locators in role_skill_source",
        ContentIdsNotUnique = "content-ids-not-unique": "does not refuse two content entries with the same id",
        ContentIdUniqueCaseInsensitive = "content-id-unique-case-insensitive": "compares content ids for uniqueness without regard to letter case",
        ContentEmptyAllowed = "content-empty-allowed": "accepts an empty content list",
        DeliveryModeCaseInsensitive = "delivery-mode-case-insensitive": "compares delivery.mode with the two modes without regard to letter case",
        OtherModeEntryAllowed = "other-mode-entry-allowed": "does not refuse the other mode's entry point (skills_root in a compiled bundle, compiled_context in a native one)",
        EntryDotdotNormalized = "entry-dotdot-normalized": "normalises an entry point's `.` and `..` segments lexically and refuses it only when it leaves the bundle",
        EntryEmptySegmentAllowed = "entry-empty-segment-allowed": "accepts empty segments in an entry point (`content//x`, a trailing `/`), as a path join does",
        EntryBackslashNormalized = "entry-backslash-normalized": "reads a backslash in an entry point as a `/` separator",
        EntryKindUnchecked = "entry-kind-unchecked": "checks only that an entry point exists, not whether it is a regular file or a directory",
        EntryCaseInsensitiveLookup = "entry-case-insensitive-lookup": "finds entry points without regard to letter case, as a case-insensitive file system does",
        VoiceProfileUnchecked = "voice-profile-unchecked": "never checks delivery.voice_profile (agent-compose's verify)",
        VoiceProfileEmptyRulesAllowed = "voice-profile-empty-rules-allowed": "accepts a named voice profile whose rule list is empty",
        VoiceProfileArrayAccepted = "voice-profile-array-accepted": "accepts a voice profile that is a bare JSON array of rules instead of an object with a rules member",
        VoiceRulesMissingAllowed = "voice-rules-missing-allowed": "accepts a named voice profile without a rules member (reads it as no rules, and checks only a present list)",
        TreeSymlinksAllowed = "tree-symlinks-allowed": "lets symlinks that no entry point names stand in the tree",
        TreeFifoAllowed = "tree-fifo-allowed": "refuses symlinks in the tree but lets FIFOs and other special files stand",
        TraceOptional = "trace-optional": "accepts a bundle without trace.json, skipping the trace checks",
        TraceFormatOptional = "trace-format-optional": "checks the trace's format marker only when the trace has one",
        TraceFormatPrefix = "trace-format-prefix": "accepts any trace format that starts with `agent-compose.trace`",
        TraceProfilesSupersetAllowed = "trace-profiles-superset-allowed": "checks that each expected profile decision is selected, not that nothing else (or nothing twice) is",
        TraceBoundariesIgnored = "trace-boundaries-ignored": "expects no `boundary:` profile decisions and ignores those present",
        TraceNoSkillAllowed = "trace-no-skill-allowed": "accepts a trace that selects no skill",
        TraceSkillDuplicatesAllowed = "trace-skill-duplicates-allowed": "does not refuse a skill selected twice from the same source",
        TraceSourceUnchecked = "trace-source-unchecked": "does not check that a selected skill's source is one of the manifest's sources",
        PercentEncodingCaseInsensitive = "percent-encoding-case-insensitive": "compares source directory names with the percent-encoding's hex digits in either letter case",
        UnencodedSourceAccepted = "unencoded-source-accepted": "also accepts an identity tree's source directory named by the source as written, not percent-encoded",
        PercentEncodingCodePoints = "percent-encoding-code-points": "percent-encodes a non-ASCII character of the source as its code point (`%E9`) instead of its UTF-8 bytes (`%C3%A9`)",
        PercentEncodingSpaceAsPlus = "percent-encoding-space-as-plus": "encodes a space in the source segment as `+` (form encoding) instead of `%20`",
        PercentEncodingKeepsTilde = "percent-encoding-keeps-tilde": "leaves `~` unencoded in the source segment (RFC 3986's unreserved set)",
        IdentityTreeExtrasAllowed = "identity-tree-extras-allowed": "does not refuse entries under the skill trees' directory that no selected skill explains",
        TreesUnderSkillsRoot = "trees-under-skills-root": "looks for a native bundle's identity trees under skills_root, where agent-compose keeps and looks for them under content/skills whatever skills_root names",
        RepeatedSourceRefused = "repeated-source-refused": "refuses a source listed twice, which the spec does not forbid and agent-compose accepts",
        DecisionMembersRequired = "decision-members-required": "refuses a trace decision that lacks its outcome (or subject or kind), which agent-compose reads as a decision selecting nothing",
        SkillMdCaseInsensitive = "skill-md-case-insensitive": "finds an identity tree's SKILL.md without regard to letter case",
    }
}

/// The catalogue's bound on a JSON file (compose-bundle.json.size): 1 MiB, inclusive.
const MAX_JSON_BYTES: usize = 1024 * 1024;

/// The catalogue's bound on nesting (compose-bundle.json.depth): the root is level 1.
const MAX_DEPTH: usize = 64;

/// The catalogue's bound on the walk (compose-bundle.report.truncated): entries at any
/// depth, the root not counted.
const MAX_ENTRIES: usize = 10_000;

/// One validation in progress: the settings, what was found, and whether a bound of this
/// implementation kept part of the bundle unread.
pub(crate) struct Run<'a> {
    settings: &'a Settings<'a>,
    outcome: Outcome,
    /// Set when a file was past a bound and the spec profile could not judge it.
    unjudged: Option<String>,
}

impl<'a> Run<'a> {
    fn new(settings: &'a Settings<'a>) -> Self {
        Run {
            settings,
            outcome: Outcome::default(),
            unjudged: None,
        }
    }

    /// Whether this planted mistake is on.
    pub(crate) fn on(&self, mistake: Planted) -> bool {
        self.settings.planted(mistake.name())
    }

    /// Whether the strict profile applies.
    pub(crate) fn strict(&self) -> bool {
        self.settings.strict
    }

    /// Records an error of `rule` at `pointer` (the catalogue's pointer over the tree).
    pub(crate) fn error(&mut self, rule: &str, pointer: &str, message: impl AsRef<str>) {
        self.outcome
            .error(format!("{rule} at `{pointer}`: {}", message.as_ref()));
    }

    /// Records a warning of `rule` at `pointer`.
    pub(crate) fn warning(&mut self, rule: &str, pointer: &str, message: impl AsRef<str>) {
        self.outcome
            .warning(format!("{rule} at `{pointer}`: {}", message.as_ref()));
    }

    /// A bound was passed: the strict profile rejects (the rule says so); the spec profile
    /// leaves the bundle unjudged unless something else already breaks it.
    pub(crate) fn past_bound(&mut self, rule: &str, pointer: &str, message: impl AsRef<str>) {
        if self.strict() {
            self.error(rule, pointer, message);
        } else {
            self.warning(rule, pointer, message.as_ref());
            if self.unjudged.is_none() {
                self.unjudged = Some(format!("{rule}: {}", message.as_ref()));
            }
        }
    }

    fn finish(self) -> Outcome {
        match self.unjudged {
            Some(reason) if self.outcome.accepted() => Outcome::decline(reason),
            _ => self.outcome,
        }
    }
}

/// Validates one input: a bundle is a directory; anything else holds no manifest.
pub fn validate(input: Input<'_>, settings: &Settings<'_>) -> Outcome {
    let mut run = Run::new(settings);
    match input {
        Input::Directory { root } => check_bundle(&mut run, root),
        // compose-bundle.manifest.present: "the bundle root is a directory".
        Input::Document { name, .. } => run.error(
            "compose-bundle.manifest.present",
            "",
            format!("`{name}` is a file, not a bundle directory"),
        ),
    }
    run.finish()
}

/// The whole bundle: the walk first (every later question is answered from it), then the
/// manifest with its entry points, the voice profile and the trace with its trees.
fn check_bundle(run: &mut Run<'_>, root: &std::path::Path) {
    let walked = match tree::walk(run, root) {
        Ok(tree::Walk::Complete(walked)) => walked,
        Ok(tree::Walk::PastBound) => {
            // compose-bundle.report.truncated: a tree not walked cannot be accepted; the spec
            // profile declines it, the strict profile rejects it.
            run.past_bound(
                "compose-bundle.report.truncated",
                "",
                format!("the bundle holds more than {MAX_ENTRIES} entries"),
            );
            return;
        }
        Err(message) => {
            run.error("compose-bundle.manifest.present", "", message);
            return;
        }
    };
    tree::check_entries(run, &walked);
    let facts = manifest::check(run, &walked);
    if let Some(facts) = &facts {
        voice::check(run, &walked, facts);
    }
    trace::check(run, &walked, facts.as_ref());
}
