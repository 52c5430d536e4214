//! String tests several parts of the bundle share. Each says which catalogue rule it
//! serves; the planted mistakes that weaken one of them are tested by the caller's
//! [`Run`], so a test here stays one reading of the text.

use super::{Planted, Run};

/// Characters Windows refuses in a name (with `\` and `/`), which agent-compose's
/// safe-segment test refuses too (compose-bundle.personalities.list, trace.skills,
/// tree.portable-name).
const RESERVED: &[char] = &['<', '>', ':', '"', '|', '?', '*'];

/// Escapes a path for use inside a JSON pointer (RFC 6901: `~` as `~0`, `/` as `~1`); a
/// tree path keeps its `/` separators, so only `~` is escaped here.
pub(crate) fn escape_pointer(path: &str) -> String {
    path.replace('~', "~0")
}

/// Escapes one member name for a JSON pointer.
pub(crate) fn escape_token(token: &str) -> String {
    token.replace('~', "~0").replace('/', "~1")
}

/// Whether `name` is a Windows device name (CON, PRN, AUX, NUL, COM1-COM9, LPT1-LPT9),
/// with or without an extension (`nul.txt`): Windows reads the part before the first dot
/// as the device. COM10 is no device.
pub(crate) fn is_device_name(run: &Run<'_>, name: &str) -> bool {
    let stem = if run.on(Planted::SegmentDeviceExtensionAllowed) {
        name
    } else {
        name.split('.').next().unwrap_or(name)
    };
    let stem = stem.trim_end_matches(' ').to_ascii_uppercase();
    matches!(stem.as_str(), "CON" | "PRN" | "AUX" | "NUL")
        || ["COM", "LPT"].iter().any(|device| {
            stem.strip_prefix(device).is_some_and(|digit| {
                digit.len() == 1 && ('1'..='9').contains(&digit.chars().next().unwrap_or('0'))
            })
        })
}

/// agent-compose's safe segment (compose-bundle.personalities.list and
/// compose-bundle.trace.skills): not empty, `.` or `..`; no `/`, `\`, character below
/// U+0020 or any of `<>:"|?*`; no trailing dot or space; not a Windows device name. Returns
/// what is wrong.
pub(crate) fn segment_problem(run: &Run<'_>, name: &str) -> Option<&'static str> {
    if name.is_empty() {
        return Some("an empty name is not a path segment");
    }
    if name == "." || name == ".." {
        return Some("`.` and `..` are not safe path segments");
    }
    if name.contains(['/', '\\']) {
        return Some("a path separator in a name");
    }
    if name.chars().any(|c| c < '\u{20}') {
        return Some("a control character in a name");
    }
    if name.contains(RESERVED) {
        return Some("a character Windows refuses in a name (one of `<>:\"|?*`)");
    }
    if !run.on(Planted::SegmentTrailingDotAllowed) && (name.ends_with('.') || name.ends_with(' ')) {
        return Some("a trailing dot or space, which Windows drops");
    }
    if is_device_name(run, name) {
        return Some("a Windows device name");
    }
    None
}

/// compose-bundle.tree.portable-name (strict): a name in the tree is valid UTF-8, holds no
/// control character, no `\` or any of `<>:"|?*`, no trailing dot or space, and is no
/// Windows device name.
pub(crate) fn portable_name_problem(raw: &[u8]) -> Option<&'static str> {
    let Ok(name) = std::str::from_utf8(raw) else {
        return Some("a name that is not UTF-8");
    };
    if name.chars().any(char::is_control) {
        return Some("a control character in a name");
    }
    if name.contains('\\') || name.contains(RESERVED) {
        return Some("a character Windows refuses in a name");
    }
    if name.ends_with('.') || name.ends_with(' ') {
        return Some("a trailing dot or space, which Windows drops");
    }
    let stem = name.split('.').next().unwrap_or(name).trim_end_matches(' ');
    let upper = stem.to_ascii_uppercase();
    let device = matches!(upper.as_str(), "CON" | "PRN" | "AUX" | "NUL")
        || ((upper.starts_with("COM") || upper.starts_with("LPT"))
            && upper.len() == 4
            && matches!(upper.as_bytes()[3], b'1'..=b'9'));
    device.then_some("a Windows device name")
}

/// compose-bundle.id.locator ("Locators and absolute paths never appear"): a stable id
/// holds no `/` or `\`, is not `.` or `..`, does not start with `~` and has no drive prefix
/// (`C:`). Every path and URL form holds one of these, so no scheme is guessed at.
pub(crate) fn locator_problem(run: &Run<'_>, id: &str) -> Option<&'static str> {
    if id.contains('/') {
        return Some("a `/`: a path or URL, not a stable id");
    }
    if run.on(Planted::LocatorSlashOnly) {
        return None;
    }
    if id.contains('\\') {
        return Some("a `\\`: a Windows path, not a stable id");
    }
    if id == "." || id == ".." {
        return Some("a directory path, not a stable id");
    }
    if id.starts_with('~') {
        return Some("a home path, not a stable id");
    }
    if has_drive_prefix(id) {
        return Some("a drive prefix: a Windows path, not a stable id");
    }
    None
}

/// A drive prefix: one ASCII letter and a colon at the start (`C:`, `c:\x`, `C:x`).
pub(crate) fn has_drive_prefix(text: &str) -> bool {
    let bytes = text.as_bytes();
    bytes.len() >= 2 && bytes[0].is_ascii_alphabetic() && bytes[1] == b':'
}

/// compose-bundle.digest.syntax: `sha256:` and exactly 64 lowercase hex digits. `content`
/// says whether it is a content digest (agent-compose's own weaker check applies to those
/// under a planted mistake).
pub(crate) fn digest_problem(run: &Run<'_>, digest: &str, content: bool) -> Option<&'static str> {
    const PROBLEM: &str = "not `sha256:` followed by 64 lowercase hex digits";
    if content && run.on(Planted::DigestHexUnchecked) {
        return (!(digest.starts_with("sha256:") && digest.len() == 71)).then_some(PROBLEM);
    }
    if run.on(Planted::DigestUnanchored) {
        let found = digest.char_indices().any(|(at, _)| {
            digest[at..].strip_prefix("sha256:").is_some_and(|rest| {
                rest.len() >= 64 && rest.as_bytes()[..64].iter().all(|b| is_lower_hex(*b))
            })
        });
        return (!found).then_some(PROBLEM);
    }
    let label_len = "sha256:".len();
    let (label, hex) = match (digest.get(..label_len), digest.get(label_len..)) {
        (Some(label), Some(hex)) => (label, hex),
        _ => return Some(PROBLEM),
    };
    let label_ok = if run.on(Planted::DigestPrefixCaseInsensitive) {
        label.eq_ignore_ascii_case("sha256:")
    } else {
        label == "sha256:"
    };
    let length_ok = if run.on(Planted::DigestShortAccepted) {
        (63..=64).contains(&hex.len())
    } else if run.on(Planted::DigestLongAccepted) {
        hex.len() >= 64
    } else {
        hex.len() == 64
    };
    let digits_ok = hex.bytes().all(is_lower_hex);
    (!(label_ok && length_ok && digits_ok)).then_some(PROBLEM)
}

fn is_lower_hex(byte: u8) -> bool {
    byte.is_ascii_digit() || (b'a'..=b'f').contains(&byte)
}

/// compose-bundle.identity.tree: the source segment percent-encodes, in uppercase hex,
/// every byte outside `A-Z`, `a-z`, `0-9`, `.`, `_` and `-`.
pub(crate) fn encode_source(run: &Run<'_>, source: &str) -> String {
    let mut encoded = String::with_capacity(source.len());
    if run.on(Planted::PercentEncodingCodePoints) {
        for c in source.chars() {
            match u8::try_from(u32::from(c)) {
                Ok(byte) if byte.is_ascii() => encoded.push_str(&encode_byte(run, byte)),
                _ => encoded.push_str(&format!("%{:02X}", u32::from(c))),
            }
        }
        return encoded;
    }
    for byte in source.bytes() {
        encoded.push_str(&encode_byte(run, byte));
    }
    encoded
}

/// One byte of the source segment, kept or percent-encoded.
fn encode_byte(run: &Run<'_>, byte: u8) -> String {
    let kept = byte.is_ascii_alphanumeric()
        || matches!(byte, b'.' | b'_' | b'-')
        || (byte == b'~' && run.on(Planted::PercentEncodingKeepsTilde));
    if kept {
        char::from(byte).to_string()
    } else if byte == b' ' && run.on(Planted::PercentEncodingSpaceAsPlus) {
        "+".to_owned()
    } else {
        format!("%{byte:02X}")
    }
}

/// Whether a string shows nothing: every character whitespace, a control or a format
/// character a reader cannot see (compose-bundle.string.blank, strict).
pub(crate) fn is_blank(text: &str) -> bool {
    text.chars()
        .all(|c| c.is_whitespace() || c.is_control() || is_invisible(c))
}

/// Default-ignorable and blank-looking characters: they take no visible room.
fn is_invisible(c: char) -> bool {
    matches!(c,
        '\u{00AD}' | '\u{034F}' | '\u{061C}' | '\u{115F}' | '\u{1160}' | '\u{17B4}' | '\u{17B5}'
        | '\u{180B}'..='\u{180F}' | '\u{200B}'..='\u{200F}' | '\u{202A}'..='\u{202E}'
        | '\u{2060}'..='\u{206F}' | '\u{2800}' | '\u{3164}' | '\u{FE00}'..='\u{FE0F}'
        | '\u{FEFF}' | '\u{FFA0}' | '\u{1D173}'..='\u{1D17A}' | '\u{E0000}'..='\u{E0FFF}')
}

/// compose-bundle.string.control (strict): U+0000 to U+001F and U+007F to U+009F.
pub(crate) fn has_control(text: &str) -> bool {
    text.chars().any(char::is_control)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Settings;
    use serde_json::Map;

    fn with(mistake: Option<&str>, check: impl FnOnce(&Run<'_>)) {
        let context = Map::new();
        let settings = Settings {
            strict: false,
            mistake,
            context: &context,
        };
        check(&Run::new(&settings));
    }

    #[test]
    fn source_segments_encode_utf8_bytes_in_uppercase_hex() {
        with(None, |run| {
            assert_eq!(encode_source(run, "roster:core"), "roster%3Acore");
            assert_eq!(encode_source(run, "aos~public"), "aos%7Epublic");
            assert_eq!(encode_source(run, "a b"), "a%20b");
            assert_eq!(encode_source(run, "publié"), "publi%C3%A9");
            assert_eq!(encode_source(run, "A-z_0.9"), "A-z_0.9");
        });
        with(Some("percent-encoding-code-points"), |run| {
            assert_eq!(encode_source(run, "publié"), "publi%E9");
        });
    }

    #[test]
    fn digests_are_sha256_and_64_lowercase_hex_digits() {
        let hex = "0123456789abcdef".repeat(4);
        with(None, |run| {
            assert!(digest_problem(run, &format!("sha256:{hex}"), true).is_none());
            assert!(digest_problem(run, &format!("sha256:{}", &hex[1..]), true).is_some());
            assert!(digest_problem(run, &format!("sha256:{hex}0"), true).is_some());
            assert!(digest_problem(run, &format!("SHA256:{hex}"), true).is_some());
            assert!(digest_problem(run, &format!("sha256:{}", hex.to_uppercase()), true).is_some());
            assert!(digest_problem(run, "sha256:é", false).is_some());
        });
    }

    #[test]
    fn safe_segments_and_device_names() {
        with(None, |run| {
            for unsafe_name in [
                "", ".", "..", "a/b", "a\\b", "a:b", "a.", "a ", "CON", "nul.txt", "Lpt1", "x\u{1}",
            ] {
                assert!(
                    segment_problem(run, unsafe_name).is_some(),
                    "{unsafe_name:?}"
                );
            }
            for safe in ["review checklist", "COM10", "grounded", "x\u{7f}"] {
                assert!(segment_problem(run, safe).is_none(), "{safe:?}");
            }
        });
    }

    #[test]
    fn locators_are_refused_by_their_characters() {
        with(None, |run| {
            for locator in ["https://x/y", "~", "~/x", ".", "..", "C:", "c:\\x", "a\\b"] {
                assert!(locator_problem(run, locator).is_some(), "{locator:?}");
            }
            for id in ["roster:core", "aos-public", "aos~public", "ab:c"] {
                assert!(locator_problem(run, id).is_none(), "{id:?}");
            }
        });
    }
}
