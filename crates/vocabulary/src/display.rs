//! The one sanitiser for untrusted text soulcheck shows: a validator's output, and case,
//! rule and message strings read from reports and corpora, on a terminal or in Markdown.
//! A hostile validator could otherwise print `ESC ]0;...` (retitle the terminal), `ESC [2J`
//! (clear it) or carriage returns and bidirectional overrides that repaint the failure
//! list a maintainer reads. [`visible`] shows every such character as an escape instead,
//! so the text stays readable and nothing reaches the terminal raw.

use std::borrow::Cow;
use std::fmt::Write as _;

/// Whether `c` is shown as an escape: every control character (C0 but tab and line feed,
/// DEL, C1, which holds the 8-bit CSI); the bidirectional embeddings, overrides, isolates
/// and marks (LRM, RLM, ALM), which reorder what follows them on screen; the zero-width
/// characters and the word joiner family, which hide a difference between two names; the
/// line and paragraph separators, which break a line where a reader sees none; and the
/// noncharacters U+FFFE and U+FFFF, which no well-formed XML holds.
pub fn hidden(c: char) -> bool {
    (c.is_control() && c != '\n' && c != '\t')
        || matches!(
            c,
            '\u{202a}'..='\u{202e}'
                | '\u{2066}'..='\u{2069}'
                | '\u{200b}'..='\u{200f}'
                | '\u{061c}'
                | '\u{2028}'
                | '\u{2029}'
                | '\u{2060}'..='\u{2064}'
                | '\u{feff}'
                | '\u{fffe}'
                | '\u{ffff}'
        )
}

/// `text` with every character [`hidden`] selects written as an escape (`\x1b`, `\r`,
/// `\u{9b}`, `\u{202e}`); line feeds and tabs stay. Borrowed when nothing needs escaping.
pub fn visible(text: &str) -> Cow<'_, str> {
    if !text.chars().any(hidden) {
        return Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len() + 16);
    for c in text.chars() {
        if !hidden(c) {
            out.push(c);
            continue;
        }
        let _ = match c {
            '\r' => write!(out, "\\r"),
            c if (c as u32) < 0x80 => write!(out, "\\x{:02x}", c as u32),
            c => write!(out, "\\u{{{:x}}}", c as u32),
        };
    }
    Cow::Owned(out)
}

/// [`visible`] for text that must stay on one line (a heading, a name): line feeds are
/// shown as `\n` too.
pub fn visible_line(text: &str) -> Cow<'_, str> {
    if !text.contains('\n') {
        return visible(text);
    }
    Cow::Owned(
        text.split('\n')
            .map(|part| visible(part).into_owned())
            .collect::<Vec<_>>()
            .join("\\n"),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escapes_are_shown_never_passed_through() {
        let hostile = "\u{1b}]0;pwned\u{7}\u{1b}[2J ok\r\u{9b}31m\u{202e}x\u{7f}";
        let shown = visible(hostile);
        assert_eq!(
            shown,
            "\\x1b]0;pwned\\x07\\x1b[2J ok\\r\\u{9b}31m\\u{202e}x\\x7f"
        );
        assert!(!shown.chars().any(hidden));
        assert!(matches!(visible("plain\ttext\nline é"), Cow::Borrowed(_)));
        // Marks that reorder or hide text, separators that break lines, noncharacters.
        assert_eq!(
            visible("a\u{200e}b\u{200f}c\u{61c}d\u{200b}e\u{2028}f\u{feff}g\u{ffff}"),
            "a\\u{200e}b\\u{200f}c\\u{61c}d\\u{200b}e\\u{2028}f\\u{feff}g\\u{ffff}"
        );
        assert_eq!(
            visible_line("name\n## forged\u{1b}"),
            "name\\n## forged\\x1b"
        );
    }
}
