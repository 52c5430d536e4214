//! Character classes shared by the string rules of several formats: what counts as
//! visible content, which characters are controls, and case-insensitive marker search.
//! Each predicate states the reading recorded in the rule catalogue.

use unicode_properties::{GeneralCategory, UnicodeGeneralCategory};

/// Length of a string in Unicode scalar values, the unit every length limit in the
/// catalogue uses.
pub fn length(text: &str) -> usize {
    text.chars().count()
}

/// Whether a character shows nothing on its own: White_Space, controls (Cc), format
/// characters (Cf), separators, combining marks (Mn, Me) and the default-ignorable Hangul
/// fillers.
pub fn is_invisible(c: char) -> bool {
    if c.is_whitespace() || matches!(c, '\u{115F}' | '\u{1160}' | '\u{3164}' | '\u{FFA0}') {
        return true;
    }
    matches!(
        c.general_category(),
        GeneralCategory::Control
            | GeneralCategory::Format
            | GeneralCategory::NonspacingMark
            | GeneralCategory::EnclosingMark
            | GeneralCategory::SpaceSeparator
            | GeneralCategory::LineSeparator
            | GeneralCategory::ParagraphSeparator
    )
}

/// Whether the string holds at least one visible character.
pub fn has_visible_content(text: &str) -> bool {
    text.chars().any(|c| !is_invisible(c))
}

/// ASCII controls other than tab and line feed: U+0000 to U+0008, U+000B to U+001F and
/// U+007F.
pub fn is_forbidden_ascii_control(c: char) -> bool {
    matches!(c, '\u{0}'..='\u{8}' | '\u{B}'..='\u{1F}' | '\u{7F}')
}

/// C1 controls, U+0080 to U+009F.
pub fn is_c1_control(c: char) -> bool {
    matches!(c, '\u{80}'..='\u{9F}')
}

/// Folds a string for marker search: format characters (Cf, e.g. zero-width spaces) are
/// dropped and every character is lowercased the Unicode way; the long s (U+017F), whose
/// lowercase is itself, folds to `s` as in Unicode case folding.
pub fn fold_for_search(text: &str) -> String {
    let mut folded = String::with_capacity(text.len());
    for c in text.chars() {
        if c.general_category() == GeneralCategory::Format {
            continue;
        }
        if c == '\u{17F}' {
            folded.push('s');
            continue;
        }
        folded.extend(c.to_lowercase());
    }
    folded
}

/// Whether `text` contains any of `needles` (given in lowercase) after folding.
pub fn contains_folded(text: &str, needles: &[&str]) -> bool {
    // Cheap exit: every needle here is ASCII, and neither folding nor dropping format
    // characters can create a match in a pure-ASCII text that a lowercase search misses.
    if text.is_ascii() {
        let lower = text.to_ascii_lowercase();
        return needles.iter().any(|needle| lower.contains(needle));
    }
    let folded = fold_for_search(text);
    needles.iter().any(|needle| folded.contains(needle))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn visibility() {
        assert!(!has_visible_content(
            " \t\n\u{A0}\u{3000}\u{200B}\u{2060}\u{FEFF}\u{301}\u{3164}"
        ));
        assert!(has_visible_content("\u{2800}"));
        assert!(has_visible_content("e\u{301}"));
    }

    #[test]
    fn folding() {
        assert!(contains_folded(
            "x SoulWare:Default y",
            &["soulware:default"]
        ));
        assert!(contains_folded("soulware-\u{212A}it:", &["soulware-kit:"]));
        assert!(contains_folded("\u{17F}oulware-kit:", &["soulware-kit:"]));
        assert!(contains_folded("soul\u{200B}ware-kit:", &["soulware-kit:"]));
        assert!(!contains_folded("soulware kit:", &["soulware-kit:"]));
    }
}
