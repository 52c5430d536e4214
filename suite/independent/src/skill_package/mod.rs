//! Skill packages ("Package reference" in SPECS.md, catalogue `cases/skill-package/rules.toml`),
//! written from the spec text and the catalogue alone.
//!
//! Three inputs reach the same rules. A document named `*.json` is a JSON envelope
//! (`{version, kind, headPath, files}`, read by `envelope`); any other document is a bare
//! `SKILL.md` (only the head contract and the per-file limit apply, `head`); a directory is a
//! skill directory whose regular files are read as the envelope would hold them (`tree`).
//! The envelope and the directory both become a [`Package`], a list of files, which
//! `package` checks (paths, duplicates, limits, the head's presence) before `head` reads the
//! SKILL.md it finds.
//!
//! The readers are not the reference's: serde_json for JSON, libyaml (through yaml_serde)
//! for the frontmatter, markdown-rs for the strict profile's view of the body.
//!
//! Each check names the catalogue rule it implements; the switches ([`Planted`]) each plant
//! one mistake an implementer of this format plausibly makes.

mod envelope;
mod head;
mod json;
mod media;
mod package;
mod paths;
mod text;
mod tree;
mod yaml;

use crate::{Input, Outcome, Settings};

crate::mistakes! {
    /// The planted mistakes of this format.
    pub enum Planted for SkillPackage {
        EnvelopeReadsUtf16Utf32 = "envelope-reads-utf16-utf32": "sniffs a UTF-16 or UTF-32 byte order mark or NUL pattern in the envelope and transcodes it to UTF-8 before parsing",
        SkillMdReadsUtf16Utf32 = "skill-md-reads-utf16-utf32": "sniffs a UTF-16 or UTF-32 byte order mark or NUL pattern in a bare or directory SKILL.md and transcodes it to UTF-8",
        JsonTrimsUnicodeWhitespace = "json-trims-unicode-whitespace": "trims the envelope text by Unicode's White_Space (no-break space, U+2028, form feed) before parsing it",
        JsonTrailingDataIgnored = "json-trailing-data-ignored": "parses the first JSON value of the envelope and ignores whatever follows it",
        JsonLenientSyntax = "json-lenient-syntax": "reads the envelope JSON5-style: comments and trailing commas pass",
        JsonInvalidUtf8Replaced = "json-invalid-utf8-replaced": "decodes the envelope lossily, replacing invalid UTF-8 by U+FFFD as Go does",
        TextInvalidUtf8Replaced = "text-invalid-utf8-replaced": "decodes a bare SKILL.md and the files of a skill directory lossily, replacing invalid UTF-8 by U+FFFD",
        EnvelopeArrayUnwrapped = "envelope-array-unwrapped": "reads a top-level array holding one object as that object",
        VersionLooseEquality = "version-loose-equality": "compares version with JavaScript's loose equality, so true, \"1\" and \"01\" pass as 1",
        HeadPathDefaults = "headpath-defaults": "reads a missing headPath as SKILL.md instead of requiring it",
        KindCaseInsensitive = "kind-case-insensitive": "compares kind with asset-package without regard to letter case",
        KindUnanchored = "kind-unanchored": "matches kind with an unanchored pattern, so any string containing asset-package passes",
        HeadPathCaseInsensitive = "headpath-case-insensitive": "compares headPath with SKILL.md without regard to letter case",
        FileFieldsCoerced = "file-fields-coerced": "converts a path, content or contentType that is a number, boolean or null to a string instead of refusing it",
        ContentLinesJoined = "content-lines-joined": "accepts a file content given as an array of strings (lines) and joins them, since it has a length",
        ContentTypeOptional = "content-type-optional": "does not require contentType in a file entry",
        EnvelopeClosedObjects = "envelope-closed-objects": "refuses unknown members of the envelope and of its file entries in the spec profile",
        PathEmptyAllowed = "path-empty-allowed": "accepts an empty file path",
        PathAbsoluteAllowed = "path-absolute-allowed": "does not refuse absolute file paths",
        PathDotDotPrefixOnly = "path-dot-dot-prefix-only": "refuses a .. segment only at the start of a path",
        PathDotDotSubstring = "path-dot-dot-substring": "refuses every path containing .. anywhere, even inside a file name",
        PathDuplicateUnchecked = "path-duplicate-unchecked": "does not look for duplicate paths",
        PathDuplicateCaseInsensitive = "path-duplicate-case-insensitive": "compares paths without regard to letter case when looking for duplicates",
        HeadPresentCaseInsensitive = "head-present-case-insensitive": "takes an entry whose path is SKILL.md in any letter case as the head",
        HeadCheckNeedsFiles = "head-check-needs-files": "looks for the head only when the package has files, so a skill directory without files passes",
        HeadFoundAnywhere = "head-found-anywhere": "takes any entry whose file name is SKILL.md, in any directory, as the head",
        FileLimitRejectsAtLimit = "file-limit-rejects-at-limit": "refuses a file of exactly 262144 bytes (the per-file limit read as exclusive)",
        FileLimitAcceptsOneOver = "file-limit-accepts-one-over": "accepts a file of 262145 bytes (off by one past the per-file limit)",
        FileLimitInCharacters = "file-limit-in-characters": "measures the per-file limit in characters instead of UTF-8 bytes",
        FileLimitOnEscapedJson = "file-limit-on-escaped-json": "measures the per-file limit on the escaped JSON text of content instead of the decoded string",
        FileLimitSkipsHead = "file-limit-skips-head": "applies the per-file limit to supporting files only, never to SKILL.md",
        TotalLimitRejectsAtLimit = "total-limit-rejects-at-limit": "refuses contents totalling exactly 1048576 bytes (the total limit read as exclusive)",
        TotalLimitAcceptsOneOver = "total-limit-accepts-one-over": "accepts contents totalling 1048577 bytes (off by one past the total limit)",
        TotalLimitInCharacters = "total-limit-in-characters": "measures the total limit in characters instead of UTF-8 bytes",
        TotalLimitOnEscapedJson = "total-limit-on-escaped-json": "measures the total limit on the escaped JSON text of the contents instead of the decoded strings",
        TotalLimitExcludesHead = "total-limit-excludes-head": "counts only the supporting files toward the total limit, leaving SKILL.md out",
        OpenAfterBlankLines = "open-after-blank-lines": "skips blank lines and leading whitespace before looking for the opening delimiter",
        DelimiterPrefixMatch = "delimiter-prefix-match": "takes any line starting with --- as a delimiter (----, --- x)",
        DelimiterSplitAnywhere = "delimiter-split-anywhere": "splits the head at the first two occurrences of --- anywhere in the text, not at delimiter lines",
        CloseAtDots = "close-at-dots": "also closes the frontmatter at a ... line (the YAML document end marker)",
        CloseIndented = "close-indented": "trims each line before comparing it with ---, so an indented --- closes the frontmatter",
        UnclosedReadToEnd = "unclosed-read-to-end": "reads an unclosed frontmatter to the end of the file and then asks for no body",
        YamlErrorKeepsPrefix = "yaml-error-keeps-prefix": "on a YAML error keeps the keys read before the error instead of refusing the frontmatter",
        YamlDuplicateKeysMissed = "yaml-duplicate-keys-missed": "does not look for repeated keys in the frontmatter (the last one wins)",
        YamlDuplicateNestedMissed = "yaml-duplicate-nested-missed": "looks for repeated keys in the top-level mapping of the frontmatter only",
        YamlDuplicateKeysByText = "yaml-duplicate-keys-by-text": "compares frontmatter keys by their written text, so name and \"name\", or 0x10 and 16, differ",
        YamlKeysCaseInsensitive = "yaml-keys-case-insensitive": "looks up name and description without regard to letter case (Name: counts as name)",
        YamlScalarsAsStrings = "yaml-scalars-as-strings": "reads every YAML scalar as a string, as strictyaml does, so name: 123, true or null is a string",
        NameSearchedAtAnyDepth = "name-searched-at-any-depth": "takes a name found in a nested mapping when the top level has none",
        NameCollectionLength = "name-collection-length": "measures a name that is a sequence or mapping by its item count instead of refusing it",
        NameLimitRejectsAtLimit = "name-limit-rejects-at-limit": "refuses a name of exactly 128 characters",
        NameLimitAcceptsOneOver = "name-limit-accepts-one-over": "accepts a name of 129 characters",
        NameLengthInBytes = "name-length-in-bytes": "measures name in UTF-8 bytes instead of characters",
        NameLengthTrimmed = "name-length-trimmed": "measures name after trimming surrounding whitespace",
        NameLengthGraphemes = "name-length-graphemes": "measures name in user-perceived characters, so combining marks do not count",
        NameEmptyAccepted = "name-empty-accepted": "accepts an empty name (checks only the upper bound)",
        DescriptionLimitRejectsAtLimit = "description-limit-rejects-at-limit": "refuses a description of exactly 1024 characters",
        DescriptionLimitAcceptsOneOver = "description-limit-accepts-one-over": "accepts a description of 1025 characters",
        DescriptionLengthInBytes = "description-length-in-bytes": "measures description in UTF-8 bytes instead of characters",
        DescriptionLengthTrimmed = "description-length-trimmed": "measures description after trimming surrounding whitespace",
        DescriptionEmptyAccepted = "description-empty-accepted": "accepts an empty description (checks only the upper bound)",
        BodyNotRequired = "body-not-required": "does not require a body after the frontmatter",
        DirSkipsHiddenFiles = "dir-skips-hidden-files": "leaves files and directories whose name starts with a dot out of a skill directory",
    }
}

/// Validates one input: a JSON envelope (`*.json`), a bare `SKILL.md` (any other document)
/// or a skill directory.
pub fn validate(input: Input<'_>, settings: &Settings<'_>) -> Outcome {
    let mut report = Report::new(settings);
    match input {
        Input::Document { name, bytes } if is_envelope_name(name) => {
            envelope::check(bytes, &mut report)
        }
        Input::Document { bytes, .. } => head::check_bare(bytes, &mut report),
        Input::Directory { root } => tree::check(root, &mut report),
    }
    report.finish()
}

/// The catalogue's header: "a JSON envelope named `*.json`".
fn is_envelope_name(name: &str) -> bool {
    name.to_ascii_lowercase().ends_with(".json")
}

/// The files of a package, from an envelope or a skill directory, as the package rules see
/// them.
#[derive(Debug, Default)]
struct Package {
    /// The entries in order (for a directory, sorted by relative path).
    files: Vec<PackageFile>,
    /// Whether the files could be listed at all (an envelope whose `files` is not an array
    /// has none to check).
    listed: bool,
    /// Whether an empty list was already reported (an envelope's files.nonempty); a skill
    /// directory without files lacks its head instead.
    empty_reported: bool,
}

/// One file entry.
#[derive(Debug, Default)]
struct PackageFile {
    /// Where the entry is, as the equivalent envelope's pointer (`/files/3`).
    pointer: String,
    /// Its path, when it is a string.
    path: Option<String>,
    /// Its text, when it is a string (an envelope) or a readable UTF-8 file (a directory).
    content: Option<String>,
    /// The size of its content in UTF-8 bytes, known even when the text was not read.
    bytes: Option<u64>,
    /// The escaped JSON text's length of its content, for the switch that measures it.
    escaped_bytes: Option<u64>,
    /// Its contentType, when it is a string.
    content_type: Option<String>,
}

/// How many problems a report lists (skill-package.report.truncated: the rest are counted,
/// so the output stays proportionate to the input and the verdict still counts them).
const REPORT_CAP: usize = 100;

/// Collects what an input breaks; knows the profile and the planted mistake.
struct Report<'s> {
    settings: &'s Settings<'s>,
    outcome: Outcome,
    /// Set when a bound of this implementation (a `kind = "bound"` rule) was passed.
    bound: Option<String>,
    /// Problems past the cap: errors and warnings left out.
    dropped_errors: usize,
    dropped_warnings: usize,
}

impl<'s> Report<'s> {
    fn new(settings: &'s Settings<'s>) -> Self {
        Report {
            settings,
            outcome: Outcome::default(),
            bound: None,
            dropped_errors: 0,
            dropped_warnings: 0,
        }
    }

    /// Whether the strict profile applies.
    fn strict(&self) -> bool {
        self.settings.strict
    }

    /// Whether this switch is on.
    fn planted(&self, mistake: Planted) -> bool {
        self.settings.planted(mistake.name())
    }

    /// An error of `rule` (the catalogue ID without the format prefix) at `at`.
    fn error(&mut self, rule: &str, at: &str, message: impl AsRef<str>) {
        if self.outcome.problems.len() >= REPORT_CAP {
            self.dropped_errors += 1;
            return;
        }
        self.outcome.error(format!(
            "skill-package.{rule} at {at}: {}",
            message.as_ref()
        ));
    }

    /// An error of a strict-only rule: reported in the strict profile only.
    fn strict_error(&mut self, rule: &str, at: &str, message: impl AsRef<str>) {
        if self.strict() {
            self.error(rule, at, message);
        }
    }

    /// A bound of this implementation was passed: the spec profile does not judge the
    /// input (unless a rule of the spec already rejects it), the strict profile rejects it.
    fn bound(&mut self, rule: &str, at: &str, message: impl AsRef<str>) {
        let text = format!("skill-package.{rule} at {at}: {}", message.as_ref());
        if self.strict() {
            self.error(rule, at, message);
        } else {
            if self.outcome.problems.len() >= REPORT_CAP {
                self.dropped_warnings += 1;
            } else {
                self.outcome.warning(text.clone());
            }
            self.bound.get_or_insert(text);
        }
    }

    fn finish(mut self) -> Outcome {
        let dropped = format!(
            "skill-package.report.truncated: {} more errors and {} more warnings left out",
            self.dropped_errors, self.dropped_warnings
        );
        if self.dropped_errors > 0 {
            // Still an error, so the verdict counts what was left out.
            self.outcome.error(dropped);
        } else if self.dropped_warnings > 0 {
            self.outcome.warning(dropped);
        }
        match self.bound {
            Some(reason) if self.outcome.accepted() => Outcome::decline(reason),
            _ => self.outcome,
        }
    }
}
