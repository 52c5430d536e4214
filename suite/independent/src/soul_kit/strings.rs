//! The strings paragraph: "Strings must contain visible content, may use newline or tab,
//! and may not contain other ASCII control characters or `SOULWARE:DEFAULT` or
//! `soulware-kit:` marker text in any letter case." Applied to every string the shape
//! accepts (values, list entries, and the keys of unknown members), after JSON escapes
//! are decoded.

use unicode_normalization::char::is_combining_mark;
use unicode_normalization::UnicodeNormalization as _;

use super::report::Report;
use super::Planted;

/// The two marker texts, as the spec spells them.
const MARKERS: [&str; 2] = ["SOULWARE:DEFAULT", "soulware-kit:"];

/// Checks one string against the three rules of the paragraph.
pub fn check_text(text: &str, pointer: &str, report: &mut Report<'_>) {
    check_visible(text, pointer, report);
    check_controls(text, pointer, report);
    check_markers(text, pointer, report);
}

/// soul-kit.string.visible ("Strings must contain visible content"): at least one
/// character that shows. White space (Unicode White_Space) and control characters show
/// nothing; the rule's decision adds format characters, combining marks on their own and
/// the Hangul fillers (those strings are implementation-defined).
fn check_visible(text: &str, pointer: &str, report: &mut Report<'_>) {
    let visible = if report.planted(Planted::VisibleNonemptyOnly) {
        !text.is_empty()
    } else if report.planted(Planted::VisibleAsciiWhitespaceOnly) {
        text.chars().any(|c| !c.is_ascii_whitespace())
    } else {
        text.chars().any(shows)
    };
    if !visible {
        report.error(
            "soul-kit.string.visible",
            pointer,
            "the string has no visible content",
        );
    }
}

/// Whether a character shows when rendered (soul-kit.string.visible).
fn shows(c: char) -> bool {
    !(c.is_whitespace()
        || c.is_control()
        || is_format(c)
        || is_combining_mark(c)
        || is_hangul_filler(c))
}

/// General category Cf (format characters), Unicode 15.
fn is_format(c: char) -> bool {
    matches!(
        c,
        '\u{00AD}'
            | '\u{0600}'..='\u{0605}'
            | '\u{061C}'
            | '\u{06DD}'
            | '\u{070F}'
            | '\u{0890}'..='\u{0891}'
            | '\u{08E2}'
            | '\u{180E}'
            | '\u{200B}'..='\u{200F}'
            | '\u{202A}'..='\u{202E}'
            | '\u{2060}'..='\u{2064}'
            | '\u{2066}'..='\u{206F}'
            | '\u{FEFF}'
            | '\u{FFF9}'..='\u{FFFB}'
            | '\u{110BD}'
            | '\u{110CD}'
            | '\u{13430}'..='\u{1343F}'
            | '\u{1BCA0}'..='\u{1BCA3}'
            | '\u{1D173}'..='\u{1D17A}'
            | '\u{E0001}'
            | '\u{E0020}'..='\u{E007F}'
    )
}

/// The Hangul fillers, letters by category that render as nothing.
fn is_hangul_filler(c: char) -> bool {
    matches!(c, '\u{115F}' | '\u{1160}' | '\u{3164}' | '\u{FFA0}')
}

/// soul-kit.string.control ("may use newline or tab, and may not contain other ASCII
/// control characters"): U+0000 to U+001F but U+000A and U+0009, and U+007F. A carriage
/// return is one of them. The strict profile adds the C1 controls
/// (soul-kit.string.c1-control), which are not ASCII and so allowed by the text.
fn check_controls(text: &str, pointer: &str, report: &mut Report<'_>) {
    if report.planted(Planted::ControlsCheckedBeforeUnescape) {
        // Looked for once in the text as written instead (check_raw_controls).
        return;
    }
    if let Some(control) = text.chars().find(|&c| forbidden_control(c, report)) {
        report.error(
            "soul-kit.string.control",
            pointer,
            format!(
                "the string holds the control character U+{:04X}",
                u32::from(control)
            ),
        );
    }
    if report.strict() {
        if let Some(control) = text.chars().find(|c| ('\u{80}'..='\u{9F}').contains(c)) {
            report.error(
                "soul-kit.string.c1-control",
                pointer,
                format!(
                    "the string holds the C1 control U+{:04X}",
                    u32::from(control)
                ),
            );
        }
    }
}

/// Whether `c` is an ASCII control character other than newline and tab.
fn forbidden_control(c: char, report: &Report<'_>) -> bool {
    match c {
        '\n' | '\t' => report.planted(Planted::RejectsAllC0Controls),
        '\r' => !report.planted(Planted::ControlAllowsCr),
        '\u{7F}' => !report.planted(Planted::ControlAllowsDel),
        _ => c <= '\u{1F}',
    }
}

/// soul-kit.string.marker ("may not contain `SOULWARE:DEFAULT` or `soulware-kit:` marker
/// text in any letter case"): either text anywhere in the string, its letters in any
/// ASCII case. The strict profile adds the look-alike spellings
/// (soul-kit.string.marker-lookalike) of a string that holds no marker as such.
fn check_markers(text: &str, pointer: &str, report: &mut Report<'_>) {
    if report.planted(Planted::MarkerCheckedBeforeUnescape) {
        // Searched once in the whole text instead (check_raw_markers).
    } else if holds_marker(text, report) {
        report.error(
            "soul-kit.string.marker",
            pointer,
            "the string holds reserved marker text",
        );
        return;
    }
    if report.strict() && holds_lookalike_marker(text) {
        report.error(
            "soul-kit.string.marker-lookalike",
            pointer,
            "the string holds a look-alike spelling of reserved marker text",
        );
    }
}

/// Whether `text` holds a marker in some ASCII letter case. Folding the ASCII letters
/// only leaves every other character as it is (the Kelvin sign is no `k` here: the rule's
/// decision reads letter case the ASCII way).
fn holds_marker(text: &str, report: &Report<'_>) -> bool {
    let markers: &[&str] = if report.planted(Planted::MarkerDefaultOnly) {
        &MARKERS[..1]
    } else {
        &MARKERS
    };
    if report.planted(Planted::MarkerCaseSensitive) {
        return markers.iter().any(|marker| text.contains(marker));
    }
    let folded = text.to_ascii_lowercase();
    markers
        .iter()
        .any(|marker| folded.contains(&marker.to_ascii_lowercase()))
}

/// The planted mistake that looks for control characters in the JSON text as written:
/// JSON syntax keeps U+0000 to U+001F out of a string unescaped, so only a raw U+007F
/// can be found there, and every escaped control passes.
pub fn check_raw_controls(text: &str, report: &mut Report<'_>) {
    if text.contains('\u{7F}') {
        report.error(
            "soul-kit.string.control",
            "",
            "the document holds the control character U+007F",
        );
    }
}

/// The planted mistake that searches the JSON text as written, escapes undecoded, for
/// the markers instead of each decoded string.
pub fn check_raw_markers(text: &str, report: &mut Report<'_>) {
    if holds_marker(text, report) {
        report.error(
            "soul-kit.string.marker",
            "",
            "the document holds reserved marker text",
        );
    }
}

/// soul-kit.string.marker-lookalike (strict profile): the marker after the spellings a
/// reader or a loose matcher takes for it are undone: invisible characters dropped, the
/// text in NFKC and lowercased the Unicode way, and letters of other scripts drawn like
/// the marker's letters (and dash and colon look-alikes) read as ASCII.
fn holds_lookalike_marker(text: &str) -> bool {
    let kept: String = text.chars().filter(|&c| !is_ignorable(c)).collect();
    let folded: String = kept
        .nfkc()
        .flat_map(char::to_lowercase)
        .map(ascii_lookalike)
        .collect();
    MARKERS
        .iter()
        .any(|marker| folded.contains(&marker.to_ascii_lowercase()))
}

/// Characters that vanish from a rendered marker.
fn is_ignorable(c: char) -> bool {
    is_format(c)
        || is_hangul_filler(c)
        || c == '\u{034F}'
        || ('\u{FE00}'..='\u{FE0F}').contains(&c)
        || ('\u{E0100}'..='\u{E01EF}').contains(&c)
}

/// The ASCII character a lowercase letter, dash or colon of another script is drawn like,
/// for the characters of the two markers; any other character as it is.
fn ascii_lookalike(c: char) -> char {
    match c {
        'а' | 'α' | 'ɑ' => 'a',
        'ԁ' | 'ɗ' => 'd',
        'е' | 'ε' | 'ҽ' | 'ɛ' | 'є' => 'e',
        'ғ' | 'ϝ' => 'f',
        'і' | 'ı' | 'ι' | 'ɩ' => 'i',
        'κ' | 'к' | 'ĸ' => 'k',
        'ӏ' | 'ǀ' | 'ℓ' => 'l',
        'о' | 'ο' | 'օ' | 'σ' | 'ᴏ' => 'o',
        'г' | 'ᴦ' => 'r',
        'ѕ' | 'ꜱ' => 's',
        'τ' | 'т' | 'ᴛ' => 't',
        'υ' | 'ս' | 'ᴜ' => 'u',
        'ԝ' | 'ω' | 'ա' | 'ᴡ' => 'w',
        '\u{2010}'..='\u{2015}'
        | '\u{2212}'
        | '\u{2043}'
        | '\u{02D7}'
        | '\u{058A}'
        | '\u{FE58}' => '-',
        '\u{2236}' | '\u{02D0}' | '\u{02F8}' | '\u{A789}' | '\u{05C3}' | '\u{0589}'
        | '\u{16EC}' | '\u{0703}' | '\u{0704}' | '\u{1803}' | '\u{1809}' | '\u{205A}'
        | '\u{2E35}' | '\u{A4FD}' => ':',
        _ => c,
    }
}
