//! SOUL.md, the DuDuClaw agent identity document (SOUL.md Format Specification v1.0),
//! written from the spec text, the field notes on DuDuClaw and the rule catalogue
//! `cases/soul-md/rules.toml`.
//!
//! The spec calls the file "freeform content" with "soft checks". Four checks decide the
//! verdict: the file is valid UTF-8, it has a level-1 heading (the role title), it has no
//! frontmatter, and its SHA-256 matches a stored fingerprint when one is given. Everything
//! else (the required sections, the lists they hold, heading levels, the size) is a
//! warning. The strict profile adds the suite's warning about repeated sections and refuses
//! a file past the read bound instead of declining it.
//!
//! The pipeline: bytes (size bound, fingerprint, token estimate), then the encoding, then
//! the text (byte order mark cut, frontmatter found and blanked), then the block structure
//! read by markdown-rs as CommonMark (in windows of bounded size, so that the cost stays
//! linear: see `chunks`), then the checks on the document's direct children.
//! Each planted mistake ([`Planted`]) is tested where the clean reading decides.

mod chunks;
mod encoding;
mod fingerprint;
mod frontmatter;
mod lines;
mod misread;
mod outline;
mod structure;

use std::borrow::Cow;

use crate::{Input, Outcome, Settings};
use lines::{Locator, Position};
use misread::Misreading;

crate::mistakes! {
    /// The planted mistakes of this format: each changes the verdict on some document.
    pub enum Planted for SoulMd {
        Utf8Lossy = "utf8-lossy": "decodes the file lossily (invalid UTF-8 becomes U+FFFD) and never reports an encoding error",
        Utf8SurrogatesAccepted = "utf8-surrogates-accepted": "a hand-written UTF-8 decoder that accepts encoded surrogates (ED A0 80 to ED BF BF), as CESU-8 and WTF-8 do",
        Utf8OverlongAccepted = "utf8-overlong-accepted": "a hand-written UTF-8 decoder that accepts overlong forms (C0 AF for `/`, E0 80 80, F0 80 80 80)",
        Utf8AboveMaxAccepted = "utf8-above-max-accepted": "a hand-written UTF-8 decoder that accepts four-byte sequences past U+10FFFF (F4 90 and up, lead bytes F5 to F7)",
        Utf8TruncatedEndIgnored = "utf8-truncated-end-ignored": "a streaming UTF-8 decoder that drops an incomplete sequence at the end of the file instead of reporting it",
        Utf8FirstBufferOnly = "utf8-first-buffer-only": "checks UTF-8 in the first 8 KiB only (the first buffer read, as an encoding sniffer does)",
        Utf8ReplacementCharRejected = "utf8-replacement-char-rejected": "decodes lossily and rejects a text containing U+FFFD, so a literal replacement character is taken for invalid UTF-8",
        Utf8BomRejected = "utf8-bom-rejected": "rejects a UTF-8 byte order mark as not UTF-8",
        BomSniffedTranscoded = "bom-sniffed-transcoded": "sniffs a UTF-16 or UTF-32 byte order mark and transcodes the file instead of rejecting it",
        NulPatternTranscoded = "nul-pattern-transcoded": "guesses UTF-16 or UTF-32 without a byte order mark from the NUL bytes at the start and transcodes the file",
        TitleCheckMissing = "title-check-missing": "never checks for a level-1 heading",
        TitleAnyHeadingLevel = "title-any-heading-level": "takes a heading of any level for the role title",
        TitleFirstLineOnly = "title-first-line-only": "looks for the role title on the first line only (after a BOM), so blank lines or a comment before it lose it",
        TitleDirectTextOnly = "title-direct-text-only": "takes a heading's text from its direct text nodes only, so a title written in bold has no text",
        AtxTabUnrecognized = "atx-tab-unrecognized": "requires a space after a heading's `#`s, so `#` followed by a tab opens no heading",
        IndentedHeadingCounts = "indented-heading-counts": "trims a line's indentation before recognising a heading, so a `# ` line in an indented code block is a title",
        TabIndentOneColumn = "tab-indent-one-column": "counts a tab in a line's indentation as one column, so a tab-indented `# ` line is a heading instead of code",
        HtmlCommentUnrecognized = "html-comment-unrecognized": "knows no HTML comment blocks, so a `# ` line inside `<!-- -->` is a heading",
        HtmlOnlyComments = "html-only-comments": "knows HTML comment blocks but no other HTML blocks, so a `# ` line inside a `<div>` block is a heading",
        FenceTildeUnrecognized = "fence-tilde-unrecognized": "knows backtick code fences only, so a `# ` line inside a `~~~` fence is a heading",
        FenceInfoOpenerUnrecognized = "fence-info-opener-unrecognized": "opens a code fence only on a bare fence line, so a fence with an info string (```markdown) is not code",
        FenceToggleOnPrefix = "fence-toggle-on-prefix": "toggles code at every line starting with three backticks or tildes, so a shorter fence, one with an info string or one of the other character closes an open fence",
        FenceCloseExactMatch = "fence-close-exact-match": "closes a code fence only at a line equal to the opening run, so a longer, indented or space-padded closing fence leaves it open",
        FenceIndentedOpenerUnrecognized = "fence-indented-opener-unrecognized": "opens a code fence only at column 1, so a fence indented by one to three spaces is not code",
        FenceUnclosedNotCode = "fence-unclosed-not-code": "takes a fence with no closing fence for text, where CommonMark runs the code block to the end of the document",
        LoneCrNotLineEnding = "lone-cr-not-line-ending": "ends lines at LF (and CRLF) only, so a file with lone CR line endings is one line",
        BomKeptBeforeTitle = "bom-kept-before-title": "keeps a UTF-8 byte order mark as text before parsing, so `BOM# Title` is a paragraph",
        FrontmatterCheckMissing = "frontmatter-check-missing": "never checks for frontmatter",
        FrontmatterTomlUnrecognized = "frontmatter-toml-unrecognized": "knows YAML (`---`) frontmatter only, not TOML (`+++`)",
        FrontmatterCrlfUnrecognized = "frontmatter-crlf-unrecognized": "compares delimiter lines with their CR, so a `---` line ending in CRLF is no delimiter",
        FrontmatterAnywhere = "frontmatter-anywhere": "takes any two `---` lines anywhere in the file for frontmatter, so thematic breaks between sections are rejected",
        FrontmatterMappingOnly = "frontmatter-mapping-only": "counts a `---` block as frontmatter only when its content parses as a YAML mapping",
        FrontmatterUnclosedYamlRemainder = "frontmatter-unclosed-yaml-remainder": "takes an unclosed `---` for frontmatter running to the end of the file when the rest parses as YAML",
        FingerprintIgnored = "fingerprint-ignored": "never compares the stored fingerprint",
        FingerprintBomStripped = "fingerprint-bom-stripped": "hashes the file after stripping a UTF-8 byte order mark",
        FingerprintCrlfFolded = "fingerprint-crlf-folded": "hashes the file with CRLF folded to LF",
        FingerprintLoneCrFolded = "fingerprint-lone-cr-folded": "hashes the file with lone CR line endings converted to LF",
        FingerprintContentTrimmed = "fingerprint-content-trimmed": "hashes the file with its surrounding whitespace trimmed (the trim meant for the stored value)",
        FingerprintPrefixMatch = "fingerprint-prefix-match": "accepts a stored fingerprint that is a prefix of the digest",
        FingerprintUppercaseDigest = "fingerprint-uppercase-digest": "writes the digest in uppercase hex and compares exactly, so a lowercase stored fingerprint never matches",
        FingerprintCaseSensitive = "fingerprint-case-sensitive": "compares the stored fingerprint case-sensitively, so an uppercase stored digest is drift (DuDuClaw's comparison)",
        IdentityMissingError = "identity-missing-error": "rejects a document without `## Identity` (a should: the spec says warning if missing)",
        RequiredSectionMissingError = "required-section-missing-error": "rejects a document missing one of the other required sections",
        ResponsibilitiesNotNumberedError = "responsibilities-not-numbered-error": "rejects a Core Responsibilities section that holds no numbered list",
        ResponsibilitiesCountError = "responsibilities-count-error": "rejects a Core Responsibilities list of fewer than 4 or more than 8 items",
        PersonalityNotBulletedError = "personality-not-bulleted-error": "rejects a Personality section that holds no bulleted list",
        PersonalityTraitError = "personality-trait-error": "rejects a Personality bullet without a label and a description",
        SecondTitleError = "second-title-error": "rejects a second level-1 heading",
        SectionLevelError = "section-level-error": "rejects a level-3 heading outside any `##` section",
        SizeTokensError = "size-tokens-error": "rejects a document over the recommended 4,000 tokens, which the spec says is no hard limit",
        RepeatedSectionError = "repeated-section-error": "rejects a repeated section, which the spec does not forbid",
        CodeBlockRejected = "code-block-rejected": "rejects fenced code blocks, misreading \"No executable code\" (they are for illustration)",
        UnknownSectionRejected = "unknown-section-rejected": "rejects a `##` section the spec does not name",
        SubsectionRejected = "subsection-rejected": "rejects headings of level 3 and below, misreading \"Use ## for all sections\"",
    }
}

/// The read bound of rule `soul-md.size.max` (the suite's: 1 MiB, inclusive).
const MAX_BYTES: usize = 1024 * 1024;

/// The recommended size of rule `soul-md.size.tokens`: 4,000 tokens at four bytes each.
const MAX_TOKENS: usize = 4000;

/// A report keeps this many warnings and counts the rest (rule `soul-md.report.truncated`
/// bounds the reference's report; this bound is of our own, so output stays linear).
const MAX_WARNINGS: usize = 200;

/// What the checks find, with warnings bounded.
#[derive(Default)]
pub(crate) struct Report {
    outcome: Outcome,
    warnings: usize,
}

impl Report {
    fn line(rule: &str, at: Option<Position>, message: &str) -> String {
        match at {
            Some(at) => format!("{rule} at {at}: {message}"),
            None => format!("{rule}: {message}"),
        }
    }

    /// A problem that rejects the document.
    fn error(&mut self, rule: &str, at: Option<Position>, message: &str) {
        self.outcome.error(Report::line(rule, at, message));
    }

    /// Whether an error was found.
    fn has_errors(&self) -> bool {
        !self.outcome.accepted()
    }

    /// A problem that does not.
    fn warning(&mut self, rule: &str, at: Option<Position>, message: &str) {
        self.warnings += 1;
        if self.warnings <= MAX_WARNINGS {
            self.outcome.warning(Report::line(rule, at, message));
        }
    }

    /// A should-level finding: a warning, or an error when a switch wrongly escalates it.
    fn should(&mut self, escalated: bool, rule: &str, at: Option<Position>, message: &str) {
        if escalated {
            self.error(rule, at, message);
        } else {
            self.warning(rule, at, message);
        }
    }

    fn finish(mut self) -> Outcome {
        if self.warnings > MAX_WARNINGS {
            let left_out = self.warnings - MAX_WARNINGS;
            self.outcome
                .warning(format!("{left_out} further warnings left out"));
        }
        self.outcome
    }
}

/// Validates one input: a `SOUL.md` file.
pub fn validate(input: Input<'_>, settings: &Settings<'_>) -> Outcome {
    let Input::Document { bytes, .. } = input else {
        let mut outcome = Outcome::default();
        outcome.error("a SOUL.md is one file, not a directory");
        return outcome;
    };
    let mut report = Report::default();
    // Rule `soul-md.size.max` (a bound of the suite, not the spec: "No hard limit"): past
    // it the file is not judged in the spec profile and refused in the strict profile.
    if bytes.len() > MAX_BYTES {
        if !settings.strict {
            return Outcome::decline(format!("larger than {MAX_BYTES} bytes, the read bound"));
        }
        report.error(
            "soul-md.size.max",
            None,
            &format!("larger than {MAX_BYTES} bytes"),
        );
        return report.finish();
    }
    check_fingerprint(bytes, settings, &mut report);
    check_size(bytes, settings, &mut report);
    if let Some(text) = decode(bytes, settings, &mut report) {
        if let Err(reason) = check_text(&text, settings, &mut report) {
            return Outcome::decline(reason);
        }
    }
    report.finish()
}

/// Validation item 4, "SHA-256 hash must match stored fingerprint"; rule
/// `soul-md.fingerprint.match`, with the digest of `soul-md.fingerprint.digest`.
fn check_fingerprint(bytes: &[u8], settings: &Settings<'_>, report: &mut Report) {
    let planted = |switch: Planted| settings.planted(switch.name());
    let stored = match settings.context.get("fingerprint") {
        None | Some(serde_json::Value::Null) => None,
        // A stored value that is not text names no digest: it matches nothing.
        Some(value) => Some(value.as_str().unwrap_or("\u{0}")),
    };
    let reading = fingerprint::Reading {
        ignored: planted(Planted::FingerprintIgnored),
        bom_stripped: planted(Planted::FingerprintBomStripped),
        crlf_folded: planted(Planted::FingerprintCrlfFolded),
        lone_cr_folded: planted(Planted::FingerprintLoneCrFolded),
        content_trimmed: planted(Planted::FingerprintContentTrimmed),
        prefix_match: planted(Planted::FingerprintPrefixMatch),
        uppercase_digest: planted(Planted::FingerprintUppercaseDigest),
        case_sensitive: planted(Planted::FingerprintCaseSensitive),
    };
    if let fingerprint::Verdict::Drift { digest } = fingerprint::compare(bytes, stored, reading) {
        report.error(
            "soul-md.fingerprint.match",
            None,
            &format!("the file's SHA-256 is {digest}, not the stored fingerprint: drift"),
        );
    }
}

/// Constraints, "Max size: No hard limit, but keep under 4,000 tokens"; rule
/// `soul-md.size.tokens`: tokens estimated as bytes / 4 rounded up, a warning past 4,000.
fn check_size(bytes: &[u8], settings: &Settings<'_>, report: &mut Report) {
    let tokens = bytes.len().div_ceil(4);
    if tokens > MAX_TOKENS {
        report.should(
            settings.planted(Planted::SizeTokensError.name()),
            "soul-md.size.tokens",
            None,
            &format!("about {tokens} tokens; the spec recommends under {MAX_TOKENS}"),
        );
    }
}

/// Constraints, "Encoding: UTF-8"; Validation item 2, "File must be valid UTF-8"; rule
/// `soul-md.encoding.utf8`. A leading byte order mark is allowed (UTF-8 with a signature is
/// still UTF-8). The text, or `None` when the file is not UTF-8 (nothing structural is
/// checked then: it cannot be read as Markdown).
fn decode<'a>(
    bytes: &'a [u8],
    settings: &Settings<'_>,
    report: &mut Report,
) -> Option<Cow<'a, str>> {
    let planted = |switch: Planted| settings.planted(switch.name());
    if let Some(text) = transcoded(bytes, settings) {
        return Some(Cow::Owned(text));
    }
    if planted(Planted::Utf8Lossy) {
        return Some(encoding::lossy(bytes));
    }
    let buffer_only = planted(Planted::Utf8FirstBufferOnly) && bytes.len() > 8192;
    let checked = if buffer_only { &bytes[..8192] } else { bytes };
    let leniency = encoding::Leniency {
        surrogates: planted(Planted::Utf8SurrogatesAccepted),
        overlong: planted(Planted::Utf8OverlongAccepted),
        above_max: planted(Planted::Utf8AboveMaxAccepted),
        truncated_end: planted(Planted::Utf8TruncatedEndIgnored) || buffer_only,
    };
    if let Some(at) = encoding::first_invalid(checked, leniency) {
        report.error(
            "soul-md.encoding.utf8",
            Some(byte_position(bytes, at)),
            "not valid UTF-8",
        );
        return None;
    }
    // A lenient decoder hands on what it accepted; the clean one has only valid text here.
    let text = std::str::from_utf8(bytes).map_or_else(|_| encoding::lossy(bytes), Cow::Borrowed);
    if planted(Planted::Utf8ReplacementCharRejected) && text.contains('\u{FFFD}') {
        report.error(
            "soul-md.encoding.utf8",
            None,
            "U+FFFD taken for invalid UTF-8",
        );
        return None;
    }
    if planted(Planted::Utf8BomRejected) && bytes.starts_with(b"\xEF\xBB\xBF") {
        report.error(
            "soul-md.encoding.utf8",
            Some(Position { line: 1, column: 1 }),
            "a byte order mark",
        );
        return None;
    }
    Some(text)
}

/// The text a sniffing reader makes of a UTF-16 or UTF-32 file (planted mistakes only).
fn transcoded(bytes: &[u8], settings: &Settings<'_>) -> Option<String> {
    if settings.planted(Planted::BomSniffedTranscoded.name()) {
        let (wide, mark) = encoding::sniff_bom(bytes)?;
        return encoding::decode_wide(&bytes[mark..], wide);
    }
    if settings.planted(Planted::NulPatternTranscoded.name()) {
        return encoding::decode_wide(bytes, encoding::sniff_nuls(bytes)?);
    }
    None
}

/// The line and column of byte `at`, counted over the valid text before it.
fn byte_position(bytes: &[u8], at: usize) -> Position {
    let before = encoding::lossy(&bytes[..at.min(bytes.len())]);
    Locator::new(&before, false).at(before.len())
}

/// The checks on the decoded text. `Err` when the Markdown reader fails (it does not on
/// CommonMark, but a reader's failure must not pass for a verdict).
fn check_text(text: &str, settings: &Settings<'_>, report: &mut Report) -> Result<(), String> {
    let planted = |switch: Planted| settings.planted(switch.name());
    // The byte order mark is an encoding signature, not text (catalogue header); it still
    // counts as column 1 of line 1.
    let (bom, body) = match text.strip_prefix('\u{FEFF}') {
        Some(rest) => (true, rest),
        None => (false, text),
    };
    let mut body = Cow::Borrowed(body);
    if planted(Planted::LoneCrNotLineEnding) {
        body = Cow::Owned(join_lone_cr(&body));
    }
    // Format and Constraints: no YAML or TOML frontmatter; rule `soul-md.frontmatter.forbidden`.
    let reading = frontmatter::Reading {
        checked: !planted(Planted::FrontmatterCheckMissing),
        toml: !planted(Planted::FrontmatterTomlUnrecognized),
        crlf_delimiters: !planted(Planted::FrontmatterCrlfUnrecognized),
        anywhere: planted(Planted::FrontmatterAnywhere),
        mapping_only: planted(Planted::FrontmatterMappingOnly),
        unclosed_yaml_remainder: planted(Planted::FrontmatterUnclosedYamlRemainder),
    };
    if let Some(block) = frontmatter::find(&body, reading) {
        let at = Locator::new(&body, bom).at(block.start);
        let kind = match block.kind {
            frontmatter::Kind::Yaml => "YAML",
            frontmatter::Kind::Toml => "TOML",
        };
        report.error(
            "soul-md.frontmatter.forbidden",
            Some(at),
            &format!("{kind} frontmatter: SOUL.md is pure Markdown"),
        );
        body = Cow::Owned(frontmatter::blank(&body, block));
    }
    if let Some(misreading) = misreading(settings) {
        body = Cow::Owned(misread::rewrite(&body, misreading));
    }
    let bom_as_text = bom && planted(Planted::BomKeptBeforeTitle);
    if bom_as_text {
        // U+2060 stands for the kept mark: text that is neither whitespace nor markup.
        body = Cow::Owned(format!("\u{2060}{body}"));
    }
    let parsed = std::panic::catch_unwind(|| outline::read(&body))
        .unwrap_or_else(|_| Err("the Markdown reader panicked".to_owned()));
    let blocks = match parsed {
        Ok(blocks) => blocks,
        // Past this reader's bound the structure is not judged; an error already found
        // (the encoding cannot be one here; the fingerprint, the frontmatter) still rejects.
        Err(_) if report.has_errors() => return Ok(()),
        Err(reason) => return Err(reason),
    };
    let locate = Locator::new(&body, bom && !bom_as_text);
    structure::check(&blocks, &locate, settings, report);
    Ok(())
}

/// A lone CR made an ordinary space, as a reader ending lines at LF alone keeps it inside
/// the line (planted mistake `lone-cr-not-line-ending`).
fn join_lone_cr(text: &str) -> String {
    let mut joined = String::with_capacity(text.len());
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        if c == '\r' && chars.peek() != Some(&'\n') {
            joined.push(' ');
        } else {
            joined.push(c);
        }
    }
    joined
}

/// The ad hoc Markdown reading a switch plants, if any.
fn misreading(settings: &Settings<'_>) -> Option<Misreading> {
    let table = [
        (Planted::AtxTabUnrecognized, Misreading::AtxTabUnrecognized),
        (
            Planted::IndentedHeadingCounts,
            Misreading::IndentedHeadingCounts,
        ),
        (Planted::TabIndentOneColumn, Misreading::TabIndentOneColumn),
        (
            Planted::HtmlCommentUnrecognized,
            Misreading::HtmlCommentUnrecognized,
        ),
        (Planted::HtmlOnlyComments, Misreading::HtmlOnlyComments),
        (
            Planted::FenceTildeUnrecognized,
            Misreading::FenceTildeUnrecognized,
        ),
        (
            Planted::FenceInfoOpenerUnrecognized,
            Misreading::FenceInfoOpenerUnrecognized,
        ),
        (
            Planted::FenceToggleOnPrefix,
            Misreading::FenceToggleOnPrefix,
        ),
        (
            Planted::FenceCloseExactMatch,
            Misreading::FenceCloseExactMatch,
        ),
        (
            Planted::FenceIndentedOpenerUnrecognized,
            Misreading::FenceIndentedOpenerUnrecognized,
        ),
        (
            Planted::FenceUnclosedNotCode,
            Misreading::FenceUnclosedNotCode,
        ),
    ];
    table
        .into_iter()
        .find(|(switch, _)| settings.planted(switch.name()))
        .map(|(_, misreading)| misreading)
}
