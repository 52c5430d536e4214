//! The JSON text as written, for what the tree no longer holds: the spelling of a number
//! (`format_version`, "Integer `1`"), keys before escape decoding, and which bytes lie
//! outside strings (where a few mistaken readers differ from RFC 8259).
//!
//! [`objects`] walks text serde_json has already accepted, so it need not diagnose
//! anything; the byte helpers work on any text and never index past its end.

/// One object of the text: its members' raw keys, in order.
#[derive(Debug, Default)]
pub struct RawObject<'t> {
    /// Its members, repetitions included.
    pub members: Vec<RawMember<'t>>,
}

/// One member as written.
#[derive(Debug)]
pub struct RawMember<'t> {
    /// The key between its quotes, escapes not decoded.
    pub key: &'t str,
    /// The value's text when it is a number or a literal (`true`, `false`, `null`).
    pub scalar: Option<&'t str>,
}

/// Where the walk is: inside an object (and whether a key comes next) or an array.
enum Frame {
    Object { index: usize, expecting_key: bool },
    Array,
}

/// Every object of a well-formed JSON text, in the order their `{` appear (which is the
/// order a depth-first walk of the tree meets them).
pub fn objects(text: &str) -> Vec<RawObject<'_>> {
    let bytes = text.as_bytes();
    let mut objects: Vec<RawObject<'_>> = Vec::new();
    let mut frames: Vec<Frame> = Vec::new();
    let mut at = 0;
    while at < bytes.len() {
        match bytes[at] {
            b'{' => {
                objects.push(RawObject::default());
                frames.push(Frame::Object {
                    index: objects.len() - 1,
                    expecting_key: true,
                });
                at += 1;
            }
            b'[' => {
                frames.push(Frame::Array);
                at += 1;
            }
            b'}' | b']' => {
                frames.pop();
                at += 1;
            }
            b',' => {
                if let Some(Frame::Object { expecting_key, .. }) = frames.last_mut() {
                    *expecting_key = true;
                }
                at += 1;
            }
            b'"' => {
                let end = string_end(bytes, at);
                if let Some(Frame::Object {
                    index,
                    expecting_key: expecting_key @ true,
                }) = frames.last_mut()
                {
                    let key = text.get(at + 1..end.saturating_sub(1)).unwrap_or("");
                    if let Some(object) = objects.get_mut(*index) {
                        object.members.push(RawMember { key, scalar: None });
                    }
                    *expecting_key = false;
                }
                at = end;
            }
            b' ' | b'\t' | b'\n' | b'\r' | b':' => at += 1,
            _ => {
                let end = scalar_end(bytes, at);
                if let Some(Frame::Object {
                    index,
                    expecting_key: false,
                }) = frames.last()
                {
                    let member = objects
                        .get_mut(*index)
                        .and_then(|object| object.members.last_mut());
                    if let Some(member) = member {
                        member.scalar = text.get(at..end);
                    }
                }
                at = end;
            }
        }
    }
    objects
}

/// The index just past the string that opens at `start` (or the end of the text).
fn string_end(bytes: &[u8], start: usize) -> usize {
    let mut at = start + 1;
    while at < bytes.len() {
        match bytes[at] {
            b'\\' => at += 2,
            b'"' => return at + 1,
            _ => at += 1,
        }
    }
    bytes.len()
}

/// The index just past the number or literal that starts at `start`.
fn scalar_end(bytes: &[u8], start: usize) -> usize {
    let mut at = start;
    while at < bytes.len()
        && !matches!(
            bytes[at],
            b',' | b'}' | b']' | b' ' | b'\t' | b'\n' | b'\r' | b':' | b'"' | b'{' | b'['
        )
    {
        at += 1;
    }
    at.max(start + 1)
}

/// The positions of the bytes of `bytes` that lie outside JSON strings, taking any `"`
/// outside a string to open one and a backslash inside one to escape the next byte.
pub fn outside_strings(bytes: &[u8]) -> Vec<bool> {
    let mut outside = vec![true; bytes.len()];
    let mut in_string = false;
    let mut escaped = false;
    for (at, &byte) in bytes.iter().enumerate() {
        if in_string {
            outside[at] = false;
            if escaped {
                escaped = false;
            } else if byte == b'\\' {
                escaped = true;
            } else if byte == b'"' {
                in_string = false;
            }
        } else if byte == b'"' {
            outside[at] = false;
            in_string = true;
        }
    }
    outside
}

/// Whether a JSON number, as written, denotes exactly the integer 1 (`1`, `1.0`, `1e0`,
/// `10e-1`, `0.1e1`), decided on its digits rather than on a binary float, so that a
/// number merely close to 1 is not taken for it.
pub fn number_is_one(text: &str) -> bool {
    if text.starts_with('-') {
        return false;
    }
    let (mantissa, exponent) = match text.find(['e', 'E']) {
        Some(at) => (&text[..at], &text[at + 1..]),
        None => (text, "0"),
    };
    let (integer, fraction) = mantissa.split_once('.').unwrap_or((mantissa, ""));
    let Some(exponent) = parse_exponent(exponent) else {
        return false;
    };
    let digits = format!("{integer}{fraction}");
    let significant = digits.trim_start_matches('0');
    let trimmed = significant.trim_end_matches('0');
    if trimmed != "1" {
        return false;
    }
    // value = significant digits x 10^(exponent - fraction digits); the trailing zeros
    // trimmed off the significant digits move into the power of ten.
    let trailing = i64::try_from(significant.len() - trimmed.len()).unwrap_or(i64::MAX);
    let fraction_len = i64::try_from(fraction.len()).unwrap_or(i64::MAX);
    exponent
        .saturating_sub(fraction_len)
        .saturating_add(trailing)
        == 0
}

/// A decimal exponent with an optional sign, saturating far past any that could matter.
fn parse_exponent(text: &str) -> Option<i64> {
    let (negative, digits) = match text.strip_prefix('-') {
        Some(rest) => (true, rest),
        None => (false, text.strip_prefix('+').unwrap_or(text)),
    };
    if digits.is_empty() || !digits.bytes().all(|byte| byte.is_ascii_digit()) {
        return None;
    }
    let magnitude = digits.bytes().fold(0_i64, |value, digit| {
        value
            .saturating_mul(10)
            .saturating_add(i64::from(digit - b'0'))
            .min(1_000_000_000_000)
    });
    Some(if negative { -magnitude } else { magnitude })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_in_every_spelling() {
        for text in [
            "1", "1.0", "1e0", "10e-1", "0.1e1", "1.000E+0", "100e-2", "0001",
        ] {
            assert!(number_is_one(text), "{text}");
        }
        for text in [
            "0",
            "2",
            "-1",
            "1.5",
            "11",
            "0.1",
            "1e1",
            "10",
            "1.0000000000000000001",
        ] {
            assert!(!number_is_one(text), "{text}");
        }
    }

    #[test]
    fn raw_keys_and_scalars() {
        let objects = objects(r#"{"a": 1.0, "\u0062": {"c": [true, {"d": null}]}, "e": "x"}"#);
        assert_eq!(objects.len(), 3);
        assert_eq!(objects[0].members[0].key, "a");
        assert_eq!(objects[0].members[0].scalar, Some("1.0"));
        assert_eq!(objects[0].members[1].key, "\\u0062");
        assert_eq!(objects[0].members[1].scalar, None);
        assert_eq!(objects[0].members[2].scalar, None);
        assert_eq!(objects[2].members[0].key, "d");
        assert_eq!(objects[2].members[0].scalar, Some("null"));
    }
}
