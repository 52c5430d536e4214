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

/// Whether the text holds an ASCII control other than tab and line feed.
pub fn has_forbidden_ascii_control(text: &str) -> bool {
    // Bytes below 0x80 are whole characters, and no byte of a longer UTF-8 sequence is
    // below 0x80, so the bytes can be looked at one by one. Folding without stopping
    // early lets the compiler check many bytes at once.
    text.bytes().fold(false, |found, byte| {
        found | is_forbidden_ascii_control(char::from(byte))
    })
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
}

impl Markers {
    /// The needles and their anchor. Checked when the constant is built: a needle that is
    /// not lowercase ASCII or lacks the anchor, or an anchor that is a letter or not ASCII,
    /// is a compile-time error.
    pub const fn new(needles: &'static [&'static str], anchor: u8) -> Markers {
        assert!(anchor.is_ascii() && !anchor.is_ascii_alphabetic());
        let mut index = 0;
        while index < needles.len() {
            let needle = needles[index].as_bytes();
            let mut has_anchor = false;
            let mut at = 0;
            while at < needle.len() {
                assert!(needle[at].is_ascii() && !needle[at].is_ascii_uppercase());
                has_anchor |= needle[at] == anchor;
                at += 1;
            }
            assert!(has_anchor);
            index += 1;
        }
        Markers { needles, anchor }
    }

    /// The needles, lowercase.
    pub fn needles(&self) -> &'static [&'static str] {
        self.needles
    }

    /// Whether a needle matches `bytes` (in any ASCII letter case) with its first anchor
    /// at `anchor_at`. Every occurrence of a needle holds its first anchor somewhere, so
    /// trying each anchor of a text finds every occurrence.
    fn match_at(&self, bytes: &[u8], anchor_at: usize) -> bool {
        self.needles.iter().any(|needle| {
            let needle = needle.as_bytes();
            let offset = needle
                .iter()
                .position(|&byte| byte == self.anchor)
                .unwrap_or_default();
            anchor_at
                .checked_sub(offset)
                .and_then(|start| bytes.get(start..start + needle.len()))
                .is_some_and(|window| window.eq_ignore_ascii_case(needle))
        })
    }
}

/// What one pass over a string finds for the rules every string of a format obeys.
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

/// Bytes a [`scan`] step looks at together. Within a block every test is a plain fold
/// without early exit, which the compiler turns into vector instructions; the rare
/// findings (an anchor, a 0xC2 byte) are then looked at one by one.
const BLOCK: usize = 32;

/// Scans `text` once for its length, visible content, controls and `markers`.
///
/// The pass costs one look at each byte, plus a comparison of the needles at each anchor
/// and one at each 0xC2 byte (a C1 control is 0xC2 and a byte from 0x80 to 0x9F). Only
/// text without a visible ASCII character is decoded afterwards to look for visible
/// characters of other scripts, and that stops at the first one.
pub fn scan(text: &str, markers: &Markers) -> Scan {
    let bytes = text.as_bytes();
    let mut continuation = 0;
    let mut visible_ascii = false;
    let mut ascii_control = false;
    let mut non_ascii = false;
    let mut c1_control = false;
    let mut marker = false;
    for (block_index, block) in bytes.chunks(BLOCK).enumerate() {
        let start = block_index * BLOCK;
        let mut block_continuation = 0u8;
        let (mut visible, mut control, mut high, mut anchor, mut lead_c2) =
            (0u8, 0u8, 0u8, 0u8, 0u8);
        for &byte in block {
            // UTF-8 continuation bytes are 0x80 to 0xBF, which as signed bytes are the
            // ones below -64; every other byte starts a character.
            block_continuation += u8::from((byte as i8) < -64);
            visible |= u8::from((0x21..=0x7E).contains(&byte));
            control |= u8::from(is_forbidden_ascii_control(char::from(byte)));
            high |= byte & 0x80;
            anchor |= u8::from(byte == markers.anchor);
            lead_c2 |= u8::from(byte == 0xC2);
        }
        continuation += usize::from(block_continuation);
        visible_ascii |= visible != 0;
        ascii_control |= control != 0;
        non_ascii |= high != 0;
        if anchor != 0 && !marker {
            marker = block
                .iter()
                .enumerate()
                .any(|(at, &byte)| byte == markers.anchor && markers.match_at(bytes, start + at));
        }
        if lead_c2 != 0 && !c1_control {
            c1_control = block.iter().enumerate().any(|(at, &byte)| {
                byte == 0xC2
                    && bytes
                        .get(start + at + 1)
                        .is_some_and(|next| (0x80..=0x9F).contains(next))
            });
        }
    }
    Scan {
        length: bytes.len() - continuation,
        visible: visible_ascii || (non_ascii && has_visible_content(text)),
        ascii_control,
        c1_control,
        marker,
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
/// the long s s), lowercased the Unicode way, and look-alike letters and marks of other
/// scripts become the ASCII ones they are drawn like.
pub fn fold_lookalikes(text: &str) -> String {
    let shown: String = text.chars().filter(|&c| !is_ignorable(c)).collect();
    shown
        .nfkc()
        .flat_map(char::to_lowercase)
        .map(|c| lookalike(c).unwrap_or(c))
        .collect()
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
