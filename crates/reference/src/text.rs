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
///   `:` or `-` cannot hold that needle and is not folded; when every needle holds the
///   same mark (both markers hold `:`), only the segments around that mark are looked at.
pub fn contains_folded(text: &str, needles: &[&str]) -> bool {
    // Cheap exit: neither folding nor dropping format characters can create a match in a
    // pure-ASCII text that a lowercase search misses.
    if text.is_ascii() {
        let lower = text.to_ascii_lowercase();
        return needles.iter().any(|needle| lower.contains(needle));
    }
    // Per ASCII byte: whether some needle holds it (in either case). Per needle: its
    // punctuation marks and digits, as a set of bytes in a 128-bit mask.
    let mut in_needles = [false; 128];
    let mut required: Vec<u128> = Vec::with_capacity(needles.len());
    for needle in needles {
        required.push(marks(needle));
        for byte in needle.bytes().filter(u8::is_ascii) {
            in_needles[usize::from(byte)] = true;
            in_needles[usize::from(byte.to_ascii_uppercase())] = true;
        }
    }
    let separates = |byte: u8| byte.is_ascii() && !in_needles[usize::from(byte)];
    let holds_needle = |segment: &str| {
        let present = marks(segment);
        let mut folded: Option<String> = None;
        needles.iter().zip(&required).any(|(needle, required)| {
            required & !present == 0
                && folded
                    .get_or_insert_with(|| fold_for_search(segment))
                    .contains(needle)
        })
    };
    let shared = required
        .iter()
        .fold(u128::MAX, |shared, marks| shared & marks);
    let Some(anchor) = (0..128u8).find(|&byte| shared & (1 << byte) != 0) else {
        // An ASCII byte is always a whole character in UTF-8, so splitting at ASCII
        // separators cuts at character boundaries.
        return text
            .split(|c: char| u8::try_from(c).is_ok_and(separates))
            .any(holds_needle);
    };
    // The segment around each occurrence of the shared mark; every byte is looked at at
    // most twice, as segments do not overlap.
    let bytes = text.as_bytes();
    let mut from = 0;
    while let Some(found) = text[from..].find(char::from(anchor)) {
        let at = from + found;
        let start = bytes[from..at]
            .iter()
            .rposition(|&byte| separates(byte))
            .map_or(from, |before| from + before + 1);
        let end = bytes[at..]
            .iter()
            .position(|&byte| separates(byte))
            .map_or(bytes.len(), |after| at + after);
        if holds_needle(&text[start..end]) {
            return true;
        }
        from = end;
    }
    false
}

/// The ASCII punctuation marks, digits and other non-letters of `text`, as a set of bytes.
fn marks(text: &str) -> u128 {
    text.bytes()
        .filter(|byte| byte.is_ascii() && !byte.is_ascii_alphabetic())
        .fold(0, |marks, byte| marks | 1 << byte)
}

/// Whether the text holds an ASCII control other than tab and line feed, or a C1 control.
pub fn has_forbidden_control(text: &str) -> bool {
    // Bytes below 0x80 are whole characters; a byte from 0x80 on, read as a character,
    // is no ASCII control. C1 controls (U+0080 to U+009F) are encoded as 0xC2 and a
    // second byte, so only text with a 0xC2 byte is decoded to look for them.
    // Folding without stopping early lets the compiler check many bytes at once.
    text.bytes().fold(false, |found, byte| {
        found | is_forbidden_ascii_control(char::from(byte))
    }) || (text.as_bytes().contains(&0xC2) && text.chars().any(is_c1_control))
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
            "soul",
            "SOUL",
            "ware",
            "WaRe",
            ":",
            "-",
            "kit",
            "default",
            "DEFAULT",
            " ",
            "\n",
            "\u{200B}",
            "\u{AD}",
            "\u{212A}",
            "\u{17F}",
            "\u{130}",
            "静",
            "é",
            "x",
            ":",
            "soulware",
            "-kit:",
            ":default",
            "soul ware",
            "E\nD",
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
            // Needles that hold separators of the first set, or no punctuation at all.
            for other in [&["soul ware", "e\nd"][..], &["kit", "ware"][..]] {
                let expected = other.iter().any(|needle| whole.contains(needle));
                assert_eq!(
                    contains_folded(&text, other),
                    expected,
                    "{text:?} {other:?}"
                );
            }
        }
        assert!(matches > 100, "only {matches} texts held a needle");
    }

    #[test]
    fn forbidden_controls() {
        for c in (0..=0x10FFFF).filter_map(char::from_u32) {
            let expected = is_forbidden_ascii_control(c) || is_c1_control(c);
            let text = format!("a{c}\u{E9}");
            assert_eq!(has_forbidden_control(&text), expected, "U+{:04X}", c as u32);
        }
        assert!(!has_forbidden_control("tab\tand\nnewline, ÂÃ"));
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
