//! Character classes shared by the string rules of several formats: what counts as
//! visible content, which characters are controls, and marker search by ASCII letter case
//! (what a spec's "in any letter case" says) or by look-alike folding (a strict-profile
//! choice).
//! Each predicate states the reading recorded in the rule catalogue.

use unicode_normalization::UnicodeNormalization;
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
    // An ASCII character is visible exactly when it is graphic, which needs no table.
    text.chars().any(|c| {
        if c.is_ascii() {
            c.is_ascii_graphic()
        } else {
            !is_invisible(c)
        }
    })
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

/// Whether the text holds a C1 control (U+0080 to U+009F).
pub fn has_c1_control(text: &str) -> bool {
    // C1 controls are encoded as 0xC2 and a second byte, so only text with a 0xC2 byte is
    // decoded to look for them.
    text.as_bytes().contains(&0xC2) && text.chars().any(is_c1_control)
}

/// Whether `text` contains any of `needles` (given in lowercase ASCII) with its ASCII
/// letters in any case: the text's ASCII letters are lowercased, nothing else changes.
pub fn contains_ascii_case_insensitive(text: &str, needles: &[&str]) -> bool {
    let lower = text.to_ascii_lowercase();
    needles.iter().any(|needle| lower.contains(needle))
}

/// Marker texts a format reserves, searched with their ASCII letters in any case (what a
/// spec's "in any letter case" says). Every needle is lowercase ASCII and holds the
/// anchor, a byte that is not a letter: [`scan`] looks for the anchor, which is rare in
/// prose, and compares the needles only around it, so no lowercase copy of the text is
/// made and text without the anchor costs nothing more.
#[derive(Debug, Clone, Copy)]
pub struct Markers {
    needles: &'static [&'static str],
    anchor: u8,
    /// Where the first anchor sits in each needle, in the needles' order.
    offsets: [usize; MAX_NEEDLES],
}

/// Most needles a [`Markers`] holds.
const MAX_NEEDLES: usize = 4;

impl Markers {
    /// The needles and their anchor. Checked when the constant is built: a needle that is
    /// not lowercase ASCII or lacks the anchor, or an anchor that is a letter or not ASCII,
    /// is a compile-time error.
    pub const fn new(needles: &'static [&'static str], anchor: u8) -> Markers {
        assert!(anchor.is_ascii() && !anchor.is_ascii_alphabetic());
        assert!(needles.len() <= MAX_NEEDLES);
        let mut offsets = [0; MAX_NEEDLES];
        let mut index = 0;
        while index < needles.len() {
            let needle = needles[index].as_bytes();
            let mut first_anchor = None;
            let mut at = needle.len();
            while at > 0 {
                at -= 1;
                assert!(needle[at].is_ascii() && !needle[at].is_ascii_uppercase());
                if needle[at] == anchor {
                    first_anchor = Some(at);
                }
            }
            match first_anchor {
                Some(offset) => offsets[index] = offset,
                None => panic!("a marker needle lacks the anchor"),
            }
            index += 1;
        }
        Markers {
            needles,
            anchor,
            offsets,
        }
    }

    /// The needles, lowercase.
    pub fn needles(&self) -> &'static [&'static str] {
        self.needles
    }

    /// Whether a needle matches `bytes` (in any ASCII letter case) with its first anchor
    /// at `anchor_at`. Every occurrence of a needle holds its first anchor somewhere, so
    /// trying each anchor of a text finds every occurrence.
    fn match_at(&self, bytes: &[u8], anchor_at: usize) -> bool {
        self.needles
            .iter()
            .zip(self.offsets)
            .any(|(needle, offset)| {
                let needle = needle.as_bytes();
                anchor_at
                    .checked_sub(offset)
                    .and_then(|start| bytes.get(start..start + needle.len()))
                    .is_some_and(|window| window.eq_ignore_ascii_case(needle))
            })
    }
}

/// What [`scan`] finds in a string for the rules every string of a format obeys.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Scan {
    /// Length in Unicode scalar values (see [`length`]).
    pub length: usize,
    /// Whether a visible character occurs (see [`has_visible_content`]).
    pub visible: bool,
    /// Whether an ASCII control other than tab and line feed occurs (see
    /// [`has_forbidden_ascii_control`]).
    pub ascii_control: bool,
    /// Whether a C1 control occurs (see [`has_c1_control`]).
    pub c1_control: bool,
    /// Whether a marker occurs in any ASCII letter case (see
    /// [`contains_ascii_case_insensitive`]).
    pub marker: bool,
}

/// Scans `text` for its length, visible content, controls and `markers`.
///
/// Each question is a tight loop over the bytes that the compiler turns into vector
/// instructions (or a vectorized search), and the string (a few kilobytes at most in every
/// format) stays in the processor's first-level cache between them. Fusing the questions
/// into one loop over the bytes was tried three ways (folds per 32-byte block, bit masks,
/// 64-bit words) and each was slower than these loops: the compiler vectorizes a loop
/// asking one question, not one asking five. What keeps the cost down is what is not
/// done:
/// - whether the text is ASCII comes with the control test, in one vectorized loop, and
///   text of ASCII only has its byte count as its length, no C1 control, and no
///   look-alike to fold;
/// - visible content is found at the first visible character, almost always the first;
/// - the markers are found without a lowercase copy: the text is searched for the
///   anchor, a byte that is rare in prose, and the needles are compared only around it.
pub fn scan(text: &str, markers: &Markers) -> Scan {
    let bytes = text.as_bytes();
    // One vectorized fold answers two questions: any non-ASCII byte, any control.
    let (high, control) = bytes.iter().fold((0u8, false), |(high, control), &byte| {
        (
            high | (byte & 0x80),
            control | is_forbidden_ascii_control(char::from(byte)),
        )
    });
    let ascii = high == 0;
    Scan {
        length: if ascii { bytes.len() } else { length(text) },
        visible: has_visible_content(text),
        ascii_control: control,
        c1_control: !ascii && has_c1_control(text),
        marker: memchr::memchr_iter(markers.anchor, bytes).any(|at| markers.match_at(bytes, at)),
    }
}

/// Characters that show nothing and that a look-alike search skips: format characters
/// (Cf: zero-width spaces and joiners, the soft hyphen, bidi controls, U+FEFF), the
/// combining grapheme joiner, variation selectors and the Hangul fillers.
fn is_ignorable(c: char) -> bool {
    matches!(
        c,
        '\u{34F}'
            | '\u{115F}'
            | '\u{1160}'
            | '\u{3164}'
            | '\u{FFA0}'
            | '\u{180B}'..='\u{180D}'
            | '\u{180F}'
            | '\u{FE00}'..='\u{FE0F}'
            | '\u{E0100}'..='\u{E01EF}'
    ) || c.general_category() == GeneralCategory::Format
}

/// The ASCII letter or mark that a lowercase character of another script is drawn like,
/// for the letters and marks of the markers the formats reserve: Cyrillic, Greek and
/// Armenian look-alikes, the dotless i, and the dashes and colons that compatibility
/// normalisation leaves alone.
fn lookalike(c: char) -> Option<char> {
    Some(match c {
        '\u{430}' | '\u{3B1}' => 'a',
        '\u{501}' => 'd',
        '\u{435}' | '\u{4BD}' | '\u{3B5}' => 'e',
        '\u{456}' | '\u{3B9}' | '\u{131}' => 'i',
        '\u{43A}' | '\u{3BA}' => 'k',
        '\u{4CF}' => 'l',
        '\u{43E}' | '\u{3BF}' | '\u{585}' => 'o',
        '\u{455}' => 's',
        '\u{442}' | '\u{3C4}' => 't',
        '\u{3C5}' | '\u{57D}' => 'u',
        '\u{51D}' | '\u{461}' => 'w',
        '\u{2010}' | '\u{2011}' | '\u{2012}' | '\u{2013}' | '\u{2212}' | '\u{2D7}' => '-',
        '\u{2236}' | '\u{A789}' | '\u{2D0}' | '\u{589}' | '\u{5C3}' | '\u{703}' | '\u{704}' => ':',
        _ => return None,
    })
}

/// Folds a string for a look-alike search: ignorable characters are dropped, the rest is
/// put in NFKC (fullwidth and other compatibility forms become ASCII, the Kelvin sign K,
/// the long s s), lowercased the Unicode way (the dotted capital I becomes `i`), and look-alike letters and marks of other
/// scripts become the ASCII ones they are drawn like.
pub fn fold_lookalikes(text: &str) -> String {
    let shown: String = text.chars().filter(|&c| !is_ignorable(c)).collect();
    shown
        .nfkc()
        .flat_map(lowercase)
        .map(|c| lookalike(c).unwrap_or(c))
        .collect()
}

/// The lowercase of `c`, one character for one where Unicode's simple mapping gives one:
/// the capital I with dot above (U+0130) is `i`, as a case-insensitive regular expression
/// (Python's `re.I`) compares it, where the full mapping would add a combining dot that
/// hides the letter from the search.
fn lowercase(c: char) -> std::char::ToLowercase {
    match c {
        '\u{130}' => 'i'.to_lowercase(),
        other => other.to_lowercase(),
    }
}

/// Whether `text` contains any of `needles` (given in lowercase ASCII) once folded by
/// [`fold_lookalikes`]. A text of ASCII only is searched by ASCII letter case alone, as
/// folding changes nothing else in it.
pub fn contains_folded(text: &str, needles: &[&str]) -> bool {
    if text.is_ascii() {
        return contains_ascii_case_insensitive(text, needles);
    }
    let folded = fold_lookalikes(text);
    needles.iter().any(|needle| folded.contains(needle))
}

#[cfg(test)]
mod tests {
    /// Whether the text holds an ASCII control other than tab and line feed: the separate
    /// predicate [`scan`] answers in its one pass (the checkers use the scan only).
    fn has_forbidden_ascii_control(text: &str) -> bool {
        text.chars().any(is_forbidden_ascii_control)
    }

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
    fn ascii_letter_case() {
        let markers = &["soulware:default", "soulware-kit:"];
        assert!(contains_ascii_case_insensitive(
            "x SoulWare:Default y",
            markers
        ));
        assert!(contains_ascii_case_insensitive(
            "é SOULWARE-KIT: é",
            markers
        ));
        // Only ASCII letters change case: the Kelvin sign and the long s stay themselves.
        assert!(!contains_ascii_case_insensitive(
            "soulware-\u{212A}it:",
            markers
        ));
        assert!(!contains_ascii_case_insensitive(
            "\u{17F}oulware:default",
            markers
        ));
        assert!(!contains_ascii_case_insensitive("soulware kit:", markers));
    }

    #[test]
    fn lookalike_folding() {
        let markers = &["soulware:default", "soulware-kit:"];
        for text in [
            "x SoulWare:Default y",
            "soulware-\u{212A}it:",
            "\u{17F}oulware:default",
            "soul\u{200B}ware-kit:",
            "SOULWARE:\u{AD}DEFAULT",
            "soulware\u{2060}:default",
            "S\u{41E}ULWARE:DEFAULT",
            "\u{FF33}\u{FF2F}\u{FF35}\u{FF2C}\u{FF37}\u{FF21}\u{FF32}\u{FF25}:DEFAULT",
            "soulware-kit\u{FF1A}",
            "soulware\u{2010}kit:",
            "\u{455}\u{43E}ulw\u{430}r\u{435}-kit:",
            "\u{1D42C}oulware:default",
            "SOULWARE-K\u{130}T:",
        ] {
            assert!(contains_folded(text, markers), "{text:?}");
        }
        for text in [
            "soulware kit:",
            "soulware.soul-kit",
            "é soulware :default",
            "soulware_kit:",
        ] {
            assert!(!contains_folded(text, markers), "{text:?}");
        }
    }

    /// The one-pass scan agrees with the separate predicates it replaces, on text around
    /// every block boundary, with markers split across blocks, and on every character.
    #[test]
    fn scan_agrees_with_the_predicates() {
        const MARKERS: Markers = Markers::new(&["soulware:default", "soulware-kit:"], b':');
        let check = |text: &str| {
            assert_eq!(
                scan(text, &MARKERS),
                Scan {
                    length: length(text),
                    visible: has_visible_content(text),
                    ascii_control: has_forbidden_ascii_control(text),
                    c1_control: has_c1_control(text),
                    marker: contains_ascii_case_insensitive(text, MARKERS.needles()),
                },
                "{text:?}"
            );
        };
        for pad in 0..=70 {
            for piece in [
                "SoulWare:Default",
                "soulware-KIT:",
                "soulware-kit",
                ":default",
                "soulware :default",
                "\u{85}",
                "\u{C2}",
                "é\u{200B}",
                "\u{3000}",
                "\u{7F}",
                "\t\n",
                "\u{1}",
                "",
            ] {
                check(&format!("{}{piece}", " ".repeat(pad)));
                check(&format!("{}{piece}{}", "é".repeat(pad), "x".repeat(pad)));
                check(&format!("{piece}{}", "\u{A0}".repeat(pad)));
            }
        }
        for c in (0..=0x10FFFF).filter_map(char::from_u32).step_by(7) {
            check(&format!("{c}"));
            check(&format!("{c}:default{c}"));
        }
    }

    #[test]
    fn forbidden_controls() {
        for c in (0..=0x10FFFF).filter_map(char::from_u32) {
            let text = format!("a{c}\u{E9}");
            assert_eq!(
                has_forbidden_ascii_control(&text),
                is_forbidden_ascii_control(c),
                "U+{:04X}",
                c as u32
            );
            assert_eq!(
                has_c1_control(&text),
                is_c1_control(c),
                "U+{:04X}",
                c as u32
            );
        }
        assert!(!has_forbidden_ascii_control("tab\tand\nnewline, ÂÃ\u{85}"));
        assert!(!has_c1_control("tab\tand\nnewline, ÂÃ"));
    }
}
