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

/// Whether `text` contains any of `needles` (given in lowercase ASCII) after folding.
///
/// Folding looks each character up in the Unicode tables, which costs far more than the
/// rest of a string's checks, so only the parts of the text that could hold a needle are
/// folded; the result is the same as folding the whole text:
/// - folding works character by character, and an ASCII character that is in no needle
///   folds to a character in no needle, so no match spans it: the text splits into
///   segments at such characters, and each is searched on its own;
/// - punctuation and digits only fold to themselves (no other character lowercases to
///   them, which a test checks over all of Unicode), so a segment that lacks a needle's
///   `:` or `-` cannot hold that needle and is not folded at all.
pub fn contains_folded(text: &str, needles: &[&str]) -> bool {
    // Cheap exit: neither folding nor dropping format characters can create a match in a
    // pure-ASCII text that a lowercase search misses.
    if text.is_ascii() {
        let lower = text.to_ascii_lowercase();
        return needles.iter().any(|needle| lower.contains(needle));
    }
    let mut in_needles = [false; 128];
    for byte in needles.iter().flat_map(|needle| needle.bytes()) {
        if byte.is_ascii() {
            in_needles[usize::from(byte)] = true;
            in_needles[usize::from(byte.to_ascii_uppercase())] = true;
        }
    }
    let separates = |c: char| c.is_ascii() && !in_needles[c as usize];
    text.split(separates).any(|segment| {
        let mut folded: Option<String> = None;
        needles.iter().any(|needle| {
            let possible = needle
                .chars()
                .filter(|c| c.is_ascii() && !c.is_ascii_alphabetic())
                .all(|c| segment.contains(c));
            possible
                && folded
                    .get_or_insert_with(|| fold_for_search(segment))
                    .contains(needle)
        })
    })
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
        // Segments between separating characters are searched whole, across non-ASCII
        // letters, format characters and case.
        assert!(contains_folded(
            "静 SOUL\u{200B}WARE-\u{212A}IT: 静",
            &["soulware-kit:"]
        ));
        assert!(contains_folded("é soulware:default", &["soulware:default"]));
        assert!(!contains_folded(
            "é soulware default:",
            &["soulware:default"]
        ));
        assert!(!contains_folded(
            "é soulware :default",
            &["soulware:default"]
        ));
        assert!(contains_folded(
            "éa\u{17F}oulware:de\u{AD}fault",
            &["x", "soulware:default"]
        ));
    }

    /// The segmented search agrees with folding the whole text, on texts mixing the
    /// characters that matter: needle letters in both cases, the punctuation, separators,
    /// format characters, letters that fold to ASCII, and other non-ASCII letters.
    #[test]
    fn segmented_search_agrees_with_whole_fold() {
        const PIECES: &[&str] = &[
            "soul", "SOUL", "ware", "WaRe", ":", "-", "kit", "default", "DEFAULT", " ", "\n",
            "\u{200B}", "\u{AD}", "\u{212A}", "\u{17F}", "\u{130}", "静", "é", "x", ":",
            "soulware", "-kit:", ":default",
        ];
        const NEEDLES: &[&str] = &["soulware:default", "soulware-kit:"];
        let mut state: u64 = 0x9E37_79B9_7F4A_7C15;
        let mut matches = 0;
        for _ in 0..20_000 {
            let mut next = || {
                state ^= state << 13;
                state ^= state >> 7;
                state ^= state << 17;
                state
            };
            let mut text = String::from("é");
            for _ in 0..next() % 9 {
                text.push_str(PIECES[(next() % PIECES.len() as u64) as usize]);
            }
            let whole = fold_for_search(&text);
            let expected = NEEDLES.iter().any(|needle| whole.contains(needle));
            assert_eq!(contains_folded(&text, NEEDLES), expected, "{text:?}");
            matches += usize::from(expected);
        }
        assert!(matches > 100, "only {matches} texts held a needle");
    }

    /// What `contains_folded` relies on to skip segments: no character but an ASCII
    /// punctuation mark or digit itself folds to something holding that mark or digit.
    #[test]
    fn only_punctuation_folds_to_punctuation() {
        for c in (0..=0x10FFFF).filter_map(char::from_u32) {
            let folded = fold_for_search(c.encode_utf8(&mut [0; 4]));
            for out in folded.chars() {
                if out.is_ascii() && !out.is_ascii_alphabetic() {
                    assert_eq!(out, c, "U+{:04X} folds to {out:?}", c as u32);
                }
            }
        }
    }
}
