//! Text helpers shared by the rules: what a "character" is (a Unicode scalar value, the
//! catalogue's unit), what a visible character is (the strict profile's blank rules), and
//! the encodings a mistaken reader sniffs.

use unicode_properties::{GeneralCategory, UnicodeGeneralCategory};

/// A length in characters: Unicode scalar values, as the catalogue counts `name` and
/// `description` ("Lengths ... count Unicode scalar values of the parsed YAML string").
pub(super) fn characters(text: &str) -> usize {
    text.chars().count()
}

/// A length in user-perceived characters, roughly: combining marks join the character
/// before them. Only the `name-length-graphemes` switch measures this way.
pub(super) fn graphemes(text: &str) -> usize {
    text.chars().filter(|&c| !is_mark(c)).count()
}

/// Whether `c` is a combining mark (Mn, Mc, Me).
fn is_mark(c: char) -> bool {
    matches!(
        c.general_category(),
        GeneralCategory::NonspacingMark
            | GeneralCategory::SpacingMark
            | GeneralCategory::EnclosingMark
    )
}

/// Whether a text holds a visible character, as the strict blank rules read it (the Soul
/// Kit catalogue's reading, which the skill package catalogue refers to): not White_Space,
/// not a control (Cc) or format (Cf) character, not a Hangul filler, and not a mark
/// standing alone (a mark after a visible base makes nothing new visible).
pub(super) fn has_visible(text: &str) -> bool {
    text.chars().any(|c| {
        !c.is_whitespace()
            && !matches!(
                c.general_category(),
                GeneralCategory::Control | GeneralCategory::Format
            )
            && !is_mark(c)
            && !matches!(c, '\u{115F}' | '\u{1160}' | '\u{3164}' | '\u{FFA0}')
    })
}

/// Whether `c` is a control character (Cc): C0, DEL and C1.
pub(super) fn is_control(c: char) -> bool {
    c.is_control()
}

/// Which wide encoding a mistaken reader believes it sees.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Wide {
    Utf16Le,
    Utf16Be,
    Utf32Le,
    Utf32Be,
}

/// What a reader that sniffs byte order marks and NUL patterns would decode `bytes` to:
/// `None` when it sees no UTF-16 or UTF-32 (or the bytes do not decode). Only the
/// `*-reads-utf16-utf32` switches use this: the spec says UTF-8 (the envelope is JSON
/// exchanged between systems, RFC 8259; the limits are counted in UTF-8 bytes).
pub(super) fn sniff_wide(bytes: &[u8]) -> Option<String> {
    let (encoding, skip) = match bytes {
        [0xFF, 0xFE, 0, 0, ..] => (Wide::Utf32Le, 4),
        [0, 0, 0xFE, 0xFF, ..] => (Wide::Utf32Be, 4),
        [0xFF, 0xFE, ..] => (Wide::Utf16Le, 2),
        [0xFE, 0xFF, ..] => (Wide::Utf16Be, 2),
        [0, 0, 0, a, ..] if *a != 0 => (Wide::Utf32Be, 0),
        [a, 0, 0, 0, ..] if *a != 0 => (Wide::Utf32Le, 0),
        [0, a, ..] if *a != 0 => (Wide::Utf16Be, 0),
        [a, 0, ..] if *a != 0 => (Wide::Utf16Le, 0),
        _ => return None,
    };
    let rest = bytes.get(skip..)?;
    match encoding {
        Wide::Utf16Le | Wide::Utf16Be => {
            if rest.len() % 2 != 0 {
                return None;
            }
            let units = rest.chunks_exact(2).map(|pair| match encoding {
                Wide::Utf16Le => u16::from_le_bytes([pair[0], pair[1]]),
                _ => u16::from_be_bytes([pair[0], pair[1]]),
            });
            char::decode_utf16(units)
                .collect::<Result<String, _>>()
                .ok()
        }
        Wide::Utf32Le | Wide::Utf32Be => {
            if rest.len() % 4 != 0 {
                return None;
            }
            rest.chunks_exact(4)
                .map(|quad| {
                    let bytes = [quad[0], quad[1], quad[2], quad[3]];
                    let value = match encoding {
                        Wide::Utf32Le => u32::from_le_bytes(bytes),
                        _ => u32::from_be_bytes(bytes),
                    };
                    char::from_u32(value)
                })
                .collect()
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sniffs_the_four_wide_encodings() {
        let text = "{\"a\": 1}";
        let le16: Vec<u8> = text.encode_utf16().flat_map(u16::to_le_bytes).collect();
        let be16: Vec<u8> = text.encode_utf16().flat_map(u16::to_be_bytes).collect();
        let le32: Vec<u8> = text
            .chars()
            .flat_map(|c| (c as u32).to_le_bytes())
            .collect();
        let be32: Vec<u8> = text
            .chars()
            .flat_map(|c| (c as u32).to_be_bytes())
            .collect();
        for bytes in [le16, be16, le32, be32] {
            assert_eq!(sniff_wide(&bytes).as_deref(), Some(text));
        }
        assert_eq!(sniff_wide(text.as_bytes()), None);
    }

    #[test]
    fn visibility() {
        assert!(!has_visible(" \u{a0}\u{200b}\u{3164}\u{301}"));
        assert!(has_visible(" x "));
    }
}
