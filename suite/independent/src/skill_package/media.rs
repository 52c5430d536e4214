//! contentType in the strict profile: a media type (RFC 6838 names, RFC 9110 parameters),
//! a textual one ("All supported package contents are text"), with no charset but UTF-8.
//! The spec gives contentType no grammar, so the spec profile accepts any string.

use super::Report;

/// A parsed media type, lowercased.
struct MediaType {
    kind: String,
    subtype: String,
    parameters: Vec<(String, String)>,
}

/// skill-package.file.content-type.syntax, .text and .charset (all strict).
pub(super) fn check(content_type: &str, at: &str, report: &mut Report<'_>) {
    if !report.strict() {
        return;
    }
    let Some(media) = parse(content_type) else {
        report.error(
            "file.content-type.syntax",
            at,
            format!("`{content_type}` is no media type"),
        );
        return;
    };
    if !is_textual(&media) {
        report.error(
            "file.content-type.text",
            at,
            format!("{}/{} is not a textual type", media.kind, media.subtype),
        );
    }
    for (name, value) in &media.parameters {
        if name == "charset" && value != "utf-8" {
            report.error(
                "file.content-type.charset",
                at,
                format!("charset {value} is not UTF-8"),
            );
        }
    }
}

/// RFC 6838 `restricted-name`.
fn restricted_name(name: &str) -> bool {
    let mut bytes = name.bytes();
    matches!(bytes.next(), Some(first) if first.is_ascii_alphanumeric())
        && name.len() <= 127
        && bytes.all(|b| b.is_ascii_alphanumeric() || b"!#$&-^_.+".contains(&b))
}

/// RFC 9110 `token`.
fn token(text: &str) -> bool {
    !text.is_empty()
        && text
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b"!#$%&'*+-.^_`|~".contains(&b))
}

/// `type "/" subtype *( OWS ";" OWS [ parameter ] )`, parameter `token "=" ( token /
/// quoted-string )`.
fn parse(text: &str) -> Option<MediaType> {
    let (essence, mut rest) = match text.find([';', ' ', '\t']) {
        Some(index) => (&text[..index], &text[index..]),
        None => (text, ""),
    };
    let (kind, subtype) = essence.split_once('/')?;
    if !restricted_name(kind) || !restricted_name(subtype) {
        return None;
    }
    let mut parameters = Vec::new();
    loop {
        rest = rest.trim_start_matches([' ', '\t']);
        if rest.is_empty() {
            break;
        }
        rest = rest.strip_prefix(';')?.trim_start_matches([' ', '\t']);
        if rest.is_empty() || rest.starts_with(';') || rest.starts_with([' ', '\t']) {
            continue;
        }
        let (name, after) = rest.split_once('=')?;
        if !token(name) {
            return None;
        }
        let (value, after) = parameter_value(after)?;
        parameters.push((name.to_ascii_lowercase(), value.to_ascii_lowercase()));
        rest = after;
    }
    Some(MediaType {
        kind: kind.to_ascii_lowercase(),
        subtype: subtype.to_ascii_lowercase(),
        parameters,
    })
}

/// A parameter's value (a token or a quoted string, unquoted) and what follows it.
fn parameter_value(text: &str) -> Option<(String, &str)> {
    if let Some(quoted) = text.strip_prefix('"') {
        let mut value = String::new();
        let mut chars = quoted.char_indices();
        while let Some((index, c)) = chars.next() {
            match c {
                '"' => return Some((value, &quoted[index + 1..])),
                '\\' => value.push(chars.next()?.1),
                c if c == '\t' || (c >= ' ' && c != '\u{7f}') => value.push(c),
                _ => return None,
            }
        }
        return None;
    }
    let end = text.find([';', ' ', '\t']).unwrap_or(text.len());
    let value = &text[..end];
    token(value).then(|| (value.to_owned(), &text[end..]))
}

/// The catalogue's textual types (skill-package.file.content-type.text).
fn is_textual(media: &MediaType) -> bool {
    if media.kind == "text" {
        return true;
    }
    if ["+json", "+xml", "+yaml"]
        .iter()
        .any(|suffix| media.subtype.ends_with(suffix))
    {
        return true;
    }
    media.kind == "application"
        && [
            "json",
            "xml",
            "yaml",
            "x-yaml",
            "toml",
            "javascript",
            "ecmascript",
            "x-sh",
            "x-shellscript",
            "x-python",
            "sql",
            "graphql",
            "x-ndjson",
        ]
        .contains(&media.subtype.as_str())
}
