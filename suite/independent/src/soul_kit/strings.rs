//! The strings paragraph: "Strings must contain visible content, may use newline or tab,
//! and may not contain other ASCII control characters or `SOULWARE:DEFAULT` or
//! `soulware-kit:` marker text in any letter case." Applied to every string the shape
//! accepts (values, list entries, and the keys of unknown members), after JSON escapes
//! are decoded.

use std::sync::OnceLock;

use regex::Regex;
use unicode_normalization::UnicodeNormalization as _;

use super::report::Report;
use super::Planted;

/// The two marker texts, as the spec spells them.
const MARKERS: [&str; 2] = ["SOULWARE:DEFAULT", "soulware-kit:"];

/// A character that shows when rendered (soul-kit.string.visible): none of White_Space,
/// the controls (Cc), the format characters (Cf), the non-spacing and enclosing marks
/// (Mn, Me: combining marks on their own) and the Hangul fillers. The regex crate's
/// Unicode tables give the categories.
const SHOWING: &str = r"[^\p{White_Space}\p{Cc}\p{Cf}\p{Mn}\p{Me}\x{115F}\x{1160}\x{3164}\x{FFA0}]";

/// What vanishes from a rendered marker (soul-kit.string.marker-lookalike): format
/// characters, the combining grapheme joiner, variation selectors, Hangul fillers.
const VANISHING: &str =
    r"[\p{Cf}\x{034F}\x{FE00}-\x{FE0F}\x{E0100}-\x{E01EF}\x{115F}\x{1160}\x{3164}\x{FFA0}]";

/// A pattern of this module, compiled once.
fn pattern(cell: &'static OnceLock<Option<Regex>>, source: &str) -> Option<&'static Regex> {
    cell.get_or_init(|| Regex::new(source).ok()).as_ref()
}

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
    static SHOWS: OnceLock<Option<Regex>> = OnceLock::new();
    let visible = if report.planted(Planted::VisibleNonemptyOnly) {
        !text.is_empty()
    } else if report.planted(Planted::VisibleAsciiWhitespaceOnly) {
        text.chars().any(|c| !c.is_ascii_whitespace())
    } else {
        // The pattern is this module's own and compiles; were it not to, every string
        // would be refused rather than let through.
        pattern(&SHOWS, SHOWING).is_some_and(|shows| shows.is_match(text))
    };
    if !visible {
        report.error(
            "soul-kit.string.visible",
            pointer,
            "the string has no visible content",
        );
    }
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
    static VANISHES: OnceLock<Option<Regex>> = OnceLock::new();
    let kept = match pattern(&VANISHES, VANISHING) {
        Some(vanishes) => vanishes.replace_all(text, ""),
        None => text.into(),
    };
    let folded: String = kept
        .nfkc()
        // U+0130 lowercases to `i` and a combining dot, but a case-insensitive matcher
        // (Python's `re.I`) takes it for `i` itself.
        .map(|c| if c == '\u{130}' { 'i' } else { c })
        .flat_map(char::to_lowercase)
        .map(ascii_lookalike)
        .collect();
    MARKERS
        .iter()
        .any(|marker| folded.contains(&marker.to_ascii_lowercase()))
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn patterns_compile_and_classify() {
        static SHOWS: OnceLock<Option<Regex>> = OnceLock::new();
        let shows = pattern(&SHOWS, SHOWING).expect("SHOWING compiles");
        for invisible in [
            "",
            " \t\n",
            "\u{A0}\u{3000}\u{2028}",
            "\u{200B}\u{2060}\u{FEFF}",
            "\u{301}",
            "\u{3164}",
            "\u{AD}",
            "\u{1}\u{7F}",
        ] {
            assert!(!shows.is_match(invisible), "{invisible:?}");
        }
        for visible in ["a", "\u{2800}", "\u{903}", "\u{E000}", "\u{378}", " x "] {
            assert!(shows.is_match(visible), "{visible:?}");
        }
        static VANISHES: OnceLock<Option<Regex>> = OnceLock::new();
        assert!(pattern(&VANISHES, VANISHING).is_some());
        for lookalike in [
            "soul\u{200B}ware-kit:",
            "ѕoulware-kit:",
            "soulware\u{2010}kit:",
            "ſoulware:default",
            "soulware-\u{212A}it:",
            "ＳＯＵＬＷＡＲＥ:DEFAULT",
            "soulware-kıt:",
        ] {
            assert!(holds_lookalike_marker(lookalike), "{lookalike}");
        }
        assert!(!holds_lookalike_marker(
            "soulware kit: and soulware_default"
        ));
    }
}
