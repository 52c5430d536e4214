//! The encoding check (Constraints: "Encoding: UTF-8"; Validation item 2: "File must be
//! valid UTF-8"; rule `soul-md.encoding.utf8`), with a UTF-8 decoder of its own so that each
//! planted decoder mistake is one condition away from the clean one.

use std::borrow::Cow;

/// Which malformed sequences a (mistaken) decoder lets through. The clean decoder lets none.
#[derive(Debug, Clone, Copy, Default)]
pub(super) struct Leniency {
    /// Encoded surrogates ED A0 80 to ED BF BF (CESU-8, WTF-8).
    pub surrogates: bool,
    /// Overlong forms: C0 and C1 leads, E0 80..9F, F0 80..8F.
    pub overlong: bool,
    /// Code points past U+10FFFF: F4 90..BF and leads F5 to F7.
    pub above_max: bool,
    /// An incomplete sequence at the very end of the input.
    pub truncated_end: bool,
}

/// The offset of the first byte of the first malformed sequence, if any.
pub(super) fn first_invalid(bytes: &[u8], leniency: Leniency) -> Option<usize> {
    let mut index = 0;
    while index < bytes.len() {
        let lead = bytes[index];
        if lead < 0x80 {
            index += 1;
            continue;
        }
        let Some(shape) = sequence_shape(lead, leniency) else {
            return Some(index);
        };
        for step in 1..shape.length {
            let Some(&byte) = bytes.get(index + step) else {
                // The input ends inside the sequence.
                return if leniency.truncated_end {
                    None
                } else {
                    Some(index)
                };
            };
            let (low, high) = if step == 1 {
                shape.second
            } else {
                (0x80, 0xBF)
            };
            if byte < low || byte > high {
                return Some(index);
            }
        }
        index += shape.length;
    }
    None
}

/// How long a sequence with this lead byte is and which range its second byte must lie in
/// (RFC 3629, section 4: the ranges exclude overlong forms, surrogates and code points past
/// U+10FFFF).
struct Shape {
    length: usize,
    second: (u8, u8),
}

fn sequence_shape(lead: u8, leniency: Leniency) -> Option<Shape> {
    let shape = |length, low, high| {
        Some(Shape {
            length,
            second: (low, high),
        })
    };
    match lead {
        0xC0 | 0xC1 if leniency.overlong => shape(2, 0x80, 0xBF),
        0xC2..=0xDF => shape(2, 0x80, 0xBF),
        0xE0 if leniency.overlong => shape(3, 0x80, 0xBF),
        0xE0 => shape(3, 0xA0, 0xBF),
        0xED if leniency.surrogates => shape(3, 0x80, 0xBF),
        0xED => shape(3, 0x80, 0x9F),
        0xE1..=0xEF => shape(3, 0x80, 0xBF),
        0xF0 if leniency.overlong => shape(4, 0x80, 0xBF),
        0xF0 => shape(4, 0x90, 0xBF),
        0xF1..=0xF3 => shape(4, 0x80, 0xBF),
        0xF4 if leniency.above_max => shape(4, 0x80, 0xBF),
        0xF4 => shape(4, 0x80, 0x8F),
        0xF5..=0xF7 if leniency.above_max => shape(4, 0x80, 0xBF),
        _ => None,
    }
}

/// Byte order marks of the encodings a sniffing reader transcodes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Wide {
    Utf16Le,
    Utf16Be,
    Utf32Le,
    Utf32Be,
}

/// The wide encoding a byte order mark announces, and the mark's length.
pub(super) fn sniff_bom(bytes: &[u8]) -> Option<(Wide, usize)> {
    // The UTF-32LE mark starts with the UTF-16LE one, so it is tried first.
    if bytes.starts_with(&[0xFF, 0xFE, 0, 0]) {
        Some((Wide::Utf32Le, 4))
    } else if bytes.starts_with(&[0, 0, 0xFE, 0xFF]) {
        Some((Wide::Utf32Be, 4))
    } else if bytes.starts_with(&[0xFF, 0xFE]) {
        Some((Wide::Utf16Le, 2))
    } else if bytes.starts_with(&[0xFE, 0xFF]) {
        Some((Wide::Utf16Be, 2))
    } else {
        None
    }
}

/// The wide encoding the NUL bytes among the first four suggest (ASCII text in UTF-16 has
/// every other byte NUL, in UTF-32 three of four).
pub(super) fn sniff_nuls(bytes: &[u8]) -> Option<Wide> {
    let [a, b, c, d] = *bytes.get(..4)? else {
        return None;
    };
    match (a != 0, b != 0, c != 0, d != 0) {
        (true, false, false, false) => Some(Wide::Utf32Le),
        (false, false, false, true) => Some(Wide::Utf32Be),
        (true, false, true, false) => Some(Wide::Utf16Le),
        (false, true, false, true) => Some(Wide::Utf16Be),
        _ => None,
    }
}

/// Decodes UTF-16 or UTF-32 strictly; `None` when the bytes are not well-formed in it.
pub(super) fn decode_wide(bytes: &[u8], encoding: Wide) -> Option<String> {
    match encoding {
        Wide::Utf16Le | Wide::Utf16Be => {
            if !bytes.len().is_multiple_of(2) {
                return None;
            }
            let units = bytes.chunks_exact(2).map(|pair| match encoding {
                Wide::Utf16Le => u16::from_le_bytes([pair[0], pair[1]]),
                _ => u16::from_be_bytes([pair[0], pair[1]]),
            });
            char::decode_utf16(units)
                .collect::<Result<String, _>>()
                .ok()
        }
        Wide::Utf32Le | Wide::Utf32Be => {
            if !bytes.len().is_multiple_of(4) {
                return None;
            }
            bytes
                .chunks_exact(4)
                .map(|quad| {
                    let quad = [quad[0], quad[1], quad[2], quad[3]];
                    let value = match encoding {
                        Wide::Utf32Le => u32::from_le_bytes(quad),
                        _ => u32::from_be_bytes(quad),
                    };
                    char::from_u32(value)
                })
                .collect()
        }
    }
}

/// The text of bytes a lenient decoder accepted: what is valid is kept, the rest becomes
/// U+FFFD, as such decoders hand it on.
pub(super) fn lossy(bytes: &[u8]) -> Cow<'_, str> {
    String::from_utf8_lossy(bytes)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The clean decoder agrees with the standard library on every short sequence.
    #[test]
    fn clean_decoder_agrees_with_std() {
        let mut samples: Vec<Vec<u8>> = Vec::new();
        for a in [
            0x41u8, 0x80, 0xC0, 0xC2, 0xDF, 0xE0, 0xED, 0xEF, 0xF0, 0xF4, 0xF5, 0xFF,
        ] {
            for b in [0x41u8, 0x80, 0x8F, 0x90, 0x9F, 0xA0, 0xBF, 0xC0] {
                for c in [0x80u8, 0xBF, 0x41] {
                    samples.push(vec![a, b, c, 0x80]);
                    samples.push(vec![a, b, c]);
                    samples.push(vec![a, b]);
                }
            }
        }
        for sample in samples {
            let ours = first_invalid(&sample, Leniency::default());
            let std = std::str::from_utf8(&sample)
                .err()
                .map(|error| error.valid_up_to());
            assert_eq!(ours, std, "{sample:02X?}");
        }
    }

    #[test]
    fn sniffing() {
        assert_eq!(
            sniff_bom(&[0xFF, 0xFE, 0, 0, 0x23, 0]),
            Some((Wide::Utf32Le, 4))
        );
        assert_eq!(sniff_nuls(b"#\0 \0"), Some(Wide::Utf16Le));
        assert_eq!(decode_wide(b"#\0 \0", Wide::Utf16Le).as_deref(), Some("# "));
        assert_eq!(decode_wide(b"\0\0\0#", Wide::Utf32Be).as_deref(), Some("#"));
    }
}
