//! The head, `SKILL.md` ("Head contract"): YAML frontmatter bounded by `---` lines, whose
//! `name` (a nonempty string of at most 128 characters) and `description` (at most 1024)
//! it is parsed for, then a nonempty Markdown body.
//!
//! A line ends at LF, CR LF or a lone CR (the catalogue's reading, as in YAML and
//! CommonMark). A delimiter line is `---` followed by nothing but spaces or tabs; the
//! strict profile rejects those trailing characters.

use markdown::mdast;

use super::yaml::{self, Core, Document, Node};
use super::{package, text, Planted, Report};

/// skill-package.head.name.length: "at most 128 characters".
const NAME_LIMIT: usize = 128;

/// skill-package.head.description.length: "at most 1024 characters".
const DESCRIPTION_LIMIT: usize = 1024;

/// Checks a bare `SKILL.md`: its bytes must be text (skill-package.file.text) within the
/// per-file limit (skill-package.limit.file-bytes), then the head contract.
pub(super) fn check_bare(bytes: &[u8], report: &mut Report<'_>) {
    let transcoded = report
        .planted(Planted::SkillMdReadsUtf16Utf32)
        .then(|| text::sniff_wide(bytes))
        .flatten();
    let bytes = transcoded.as_deref().map_or(bytes, str::as_bytes);
    let decoded = decode(bytes, "SKILL.md", report);
    // The whole file is the content; an oversize SKILL.md is reported by the limit alone.
    let file = super::PackageFile {
        pointer: String::new(),
        path: Some(package::HEAD_PATH.into()),
        bytes: Some(bytes.len() as u64),
        content: decoded.clone(),
        ..Default::default()
    };
    if package::over_file_limit(&file, report) {
        report.error(
            "limit.file-bytes",
            "the document",
            format!("SKILL.md is {} bytes, more than 262144", bytes.len()),
        );
        return;
    }
    if let Some(content) = decoded {
        check_content(&content, "SKILL.md", report);
    }
}

/// A file read from disk as text (skill-package.file.text: "All supported package contents
/// are text", measured in UTF-8 bytes): valid UTF-8, or the error.
pub(super) fn decode(bytes: &[u8], at: &str, report: &mut Report<'_>) -> Option<String> {
    match std::str::from_utf8(bytes) {
        Ok(text) => Some(text.to_owned()),
        Err(_) if report.planted(Planted::TextInvalidUtf8Replaced) => {
            Some(String::from_utf8_lossy(bytes).into_owned())
        }
        Err(error) => {
            report.error(
                "file.text",
                at,
                format!("not valid UTF-8 at byte {}", error.valid_up_to()),
            );
            None
        }
    }
}

/// One line of the head: where its text starts and ends, and where the next line starts.
#[derive(Debug, Clone, Copy)]
struct Line {
    start: usize,
    end: usize,
    next: usize,
}

/// The head's lines; a line ends at LF, CR LF or a lone CR.
fn lines(text: &str) -> Vec<Line> {
    let bytes = text.as_bytes();
    let mut lines = Vec::new();
    let mut start = 0;
    let mut index = 0;
    while index < bytes.len() {
        match bytes[index] {
            b'\n' => {
                lines.push(Line {
                    start,
                    end: index,
                    next: index + 1,
                });
                start = index + 1;
            }
            b'\r' => {
                let next = if bytes.get(index + 1) == Some(&b'\n') {
                    index + 2
                } else {
                    index + 1
                };
                lines.push(Line {
                    start,
                    end: index,
                    next,
                });
                start = next;
                index = next - 1;
            }
            _ => {}
        }
        index += 1;
    }
    if start < bytes.len() {
        lines.push(Line {
            start,
            end: bytes.len(),
            next: bytes.len(),
        });
    }
    lines
}

/// How a line reads as a delimiter.
#[derive(Debug, PartialEq, Eq)]
enum Delimiter {
    /// Not a delimiter.
    No,
    /// Exactly `---`.
    Exact,
    /// `---` and trailing spaces or tabs (skill-package.head.delimiter-space, strict).
    TrailingSpace,
}

/// Whether a line is a `---` delimiter line ("YAML frontmatter bounded by --- lines").
fn delimiter(line: &str, closing: bool, report: &Report<'_>) -> Delimiter {
    let line = if report.planted(Planted::CloseIndented) {
        line.trim()
    } else {
        line
    };
    let Some(rest) = line.strip_prefix("---").or_else(|| {
        (closing && report.planted(Planted::CloseAtDots))
            .then(|| line.strip_prefix("..."))
            .flatten()
    }) else {
        return Delimiter::No;
    };
    if rest.is_empty() {
        Delimiter::Exact
    } else if rest.bytes().all(|b| b == b' ' || b == b'\t') {
        Delimiter::TrailingSpace
    } else if report.planted(Planted::DelimiterPrefixMatch) {
        Delimiter::Exact
    } else {
        Delimiter::No
    }
}

/// The head cut at its delimiters.
struct Parts<'t> {
    frontmatter: &'t str,
    /// The body, or `None` when a planted reader asks for none.
    body: Option<&'t str>,
}

/// Checks a head's text (the content of `SKILL.md`); `at` locates it for messages.
pub(super) fn check_content(content: &str, at: &str, report: &mut Report<'_>) {
    // skill-package.head.bom (strict): the mark is dropped and the head read after it.
    let content = match content.strip_prefix('\u{FEFF}') {
        Some(rest) => {
            report.strict_error("head.bom", at, "SKILL.md starts with a byte order mark");
            rest
        }
        None => content,
    };
    let Some(parts) = split(content, at, report) else {
        return;
    };
    check_frontmatter(parts.frontmatter, at, report);
    if let Some(body) = parts.body {
        check_body(body, at, report);
    }
}

/// Finds the frontmatter and the body: skill-package.head.frontmatter-open, .frontmatter-close
/// and, strict, .delimiter-space.
fn split<'t>(content: &'t str, at: &str, report: &mut Report<'_>) -> Option<Parts<'t>> {
    if report.planted(Planted::DelimiterSplitAnywhere) {
        return split_anywhere(content, at, report);
    }
    let skipped = if report.planted(Planted::OpenAfterBlankLines) {
        content.trim_start()
    } else {
        content
    };
    let offset = content.len() - skipped.len();
    let lines = lines(skipped);
    let opening = lines
        .first()
        .copied()
        .filter(|line| delimiter(&skipped[line.start..line.end], false, report) != Delimiter::No);
    let Some(opening) = opening else {
        report.error(
            "head.frontmatter-open",
            at,
            "SKILL.md does not start with a --- line",
        );
        return None;
    };
    if delimiter(&skipped[opening.start..opening.end], false, report) == Delimiter::TrailingSpace {
        report.strict_error("head.delimiter-space", at, "spaces after the opening ---");
    }
    let closing = lines[1..]
        .iter()
        .copied()
        .find(|line| delimiter(&skipped[line.start..line.end], true, report) != Delimiter::No);
    let Some(closing) = closing else {
        if report.planted(Planted::UnclosedReadToEnd) {
            return Some(Parts {
                frontmatter: &content[offset + opening.next..],
                body: None,
            });
        }
        report.error(
            "head.frontmatter-close",
            at,
            "the frontmatter has no closing --- line",
        );
        return None;
    };
    if delimiter(&skipped[closing.start..closing.end], true, report) == Delimiter::TrailingSpace {
        report.strict_error("head.delimiter-space", at, "spaces after the closing ---");
    }
    Some(Parts {
        frontmatter: &content[offset + opening.next..offset + closing.start],
        body: Some(&content[offset + closing.next..]),
    })
}

/// The `delimiter-split-anywhere` switch: `---` must start the text, and the next `---`
/// anywhere ends the frontmatter.
fn split_anywhere<'t>(content: &'t str, at: &str, report: &mut Report<'_>) -> Option<Parts<'t>> {
    let Some(rest) = content.strip_prefix("---") else {
        report.error(
            "head.frontmatter-open",
            at,
            "SKILL.md does not start with ---",
        );
        return None;
    };
    let Some(end) = rest.find("---") else {
        report.error("head.frontmatter-close", at, "no second ---");
        return None;
    };
    Some(Parts {
        frontmatter: &rest[..end],
        body: Some(&rest[end + 3..]),
    })
}

/// The frontmatter: YAML (skill-package.head.yaml-syntax, .yaml-resources), a mapping
/// (.frontmatter-mapping) without repeated keys (.yaml-duplicate-key), holding name and
/// description.
fn check_frontmatter(frontmatter: &str, at: &str, report: &mut Report<'_>) {
    document_markers(frontmatter, at, report);
    // Strict: an explicit key's `?` line ending in a tab. YAML 1.2 allows the tab there,
    // but readers refuse it (saphyr: "expected whitespace"), so the strict profile, which
    // takes the reading every mainstream reader agrees on, refuses it too.
    let key_line_ends_in_tab = frontmatter.lines().any(|line| {
        line.trim_start_matches(' ')
            .strip_prefix('?')
            .is_some_and(|rest| rest.contains('\t') && rest.trim_matches([' ', '\t']).is_empty())
    });
    if key_line_ends_in_tab && report.strict() {
        report.strict_error(
            "head.yaml-syntax",
            at,
            "an explicit key's `?` line ends in a tab",
        );
        return;
    }
    let options = yaml::Options {
        as_strings: report.planted(Planted::YamlScalarsAsStrings),
    };
    let document = match yaml::read(frontmatter, options) {
        Ok(document) => document,
        Err(yaml::Failure::Bound(reason)) => {
            report.bound("head.yaml-resources", at, reason);
            return;
        }
        Err(yaml::Failure::Syntax { message, line }) => {
            match kept_prefix(frontmatter, line, options, report) {
                Some(document) => document,
                None => {
                    report.error("head.yaml-syntax", at, message);
                    return;
                }
            }
        }
    };
    // An empty frontmatter (or one of comments) is an empty mapping.
    let entries: &[(Node, Node)] = match &document {
        Document::Empty => &[],
        Document::Node(Node::Mapping(entries)) => entries,
        Document::Node(_) => {
            report.error(
                "head.frontmatter-mapping",
                at,
                "the frontmatter is not a mapping",
            );
            return;
        }
        Document::Tagged(tag) => {
            report.error(
                "head.frontmatter-mapping",
                at,
                format!("the frontmatter is a value tagged !{tag}, not a mapping"),
            );
            return;
        }
    };
    if !report.planted(Planted::YamlDuplicateKeysMissed) {
        let top_only = report.planted(Planted::YamlDuplicateNestedMissed);
        let by_text = report.planted(Planted::YamlDuplicateKeysByText);
        duplicate_keys(entries, top_only, by_text, at, report);
    }
    check_field(Field::Name, entries, at, report);
    check_field(Field::Description, entries, at, report);
}

/// The `yaml-error-keeps-prefix` switch: the frontmatter's lines before the error, read
/// again.
fn kept_prefix(
    frontmatter: &str,
    line: Option<usize>,
    options: yaml::Options,
    report: &Report<'_>,
) -> Option<Document> {
    if !report.planted(Planted::YamlErrorKeepsPrefix) {
        return None;
    }
    let keep = line?.saturating_sub(1);
    let end = lines(frontmatter)
        .get(keep)
        .map_or(frontmatter.len(), |line| line.start);
    yaml::read(&frontmatter[..end], options).ok()
}

/// skill-package.head.yaml-document-marker (strict): no `...` line and no `---` line
/// carrying content inside the frontmatter.
fn document_markers(frontmatter: &str, at: &str, report: &mut Report<'_>) {
    if !report.strict() {
        return;
    }
    let marker = lines(frontmatter).into_iter().any(|line| {
        let text = &frontmatter[line.start..line.end];
        ["---", "..."].iter().any(|marker| {
            text.strip_prefix(marker)
                .is_some_and(|rest| rest.is_empty() || rest.starts_with([' ', '\t']))
        })
    });
    if marker {
        report.error(
            "head.yaml-document-marker",
            at,
            "a YAML document marker inside the frontmatter",
        );
    }
}

/// skill-package.head.yaml-duplicate-key: no mapping, at any depth, has two equal keys
/// (compared after core-schema resolution).
fn duplicate_keys(
    entries: &[(Node, Node)],
    top_only: bool,
    by_text: bool,
    at: &str,
    report: &mut Report<'_>,
) {
    let mut seen = std::collections::HashSet::new();
    for (key, value) in entries {
        if !seen.insert(yaml::identity(key, by_text)) {
            report.error("head.yaml-duplicate-key", at, "a repeated key");
        }
        if !top_only {
            nested_duplicates(key, by_text, at, report);
            nested_duplicates(value, by_text, at, report);
        }
    }
}

fn nested_duplicates(node: &Node, by_text: bool, at: &str, report: &mut Report<'_>) {
    match node {
        Node::Scalar(_) => {}
        Node::Sequence(items) => {
            for item in items {
                nested_duplicates(item, by_text, at, report);
            }
        }
        Node::Mapping(entries) => duplicate_keys(entries, false, by_text, at, report),
    }
}

/// The two fields the head is parsed for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Field {
    Name,
    Description,
}

impl Field {
    fn key(self) -> &'static str {
        match self {
            Field::Name => "name",
            Field::Description => "description",
        }
    }

    fn limit(self) -> usize {
        match self {
            Field::Name => NAME_LIMIT,
            Field::Description => DESCRIPTION_LIMIT,
        }
    }
}

/// Whether a key is the field's key: the string `name` (or `description`) after
/// core-schema resolution, so `"name"` counts and `Name` does not.
fn is_key(key: &Node, field: Field, report: &Report<'_>) -> bool {
    let Node::Scalar(scalar) = key else {
        return false;
    };
    if scalar.value != Core::Str {
        return false;
    }
    if report.planted(Planted::YamlKeysCaseInsensitive) {
        scalar.text.eq_ignore_ascii_case(field.key())
    } else {
        &*scalar.text == field.key()
    }
}

/// The value of a top-level key (the last, if repeated; a repetition is reported anyway).
fn lookup<'n>(entries: &'n [(Node, Node)], field: Field, report: &Report<'_>) -> Option<&'n Node> {
    entries
        .iter()
        .rev()
        .find(|(key, _)| is_key(key, field, report))
        .map(|(_, value)| value)
}

/// The `name-searched-at-any-depth` switch: the first `name` in a nested mapping.
fn search_nested<'n>(
    entries: &'n [(Node, Node)],
    field: Field,
    report: &Report<'_>,
) -> Option<&'n Node> {
    entries.iter().find_map(|(_, value)| match value {
        Node::Mapping(inner) => {
            lookup(inner, field, report).or_else(|| search_nested(inner, field, report))
        }
        _ => None,
    })
}

/// skill-package.head.{name,description}.required, .type, .length and, strict, .blank and
/// .control.
fn check_field(field: Field, entries: &[(Node, Node)], at: &str, report: &mut Report<'_>) {
    let key = field.key();
    let found = lookup(entries, field, report).or_else(|| {
        (field == Field::Name && report.planted(Planted::NameSearchedAtAnyDepth))
            .then(|| search_nested(entries, field, report))
            .flatten()
    });
    // .required: "name | Nonempty string" is a field of the frontmatter.
    let Some(value) = found else {
        report.error(&format!("head.{key}.required"), at, format!("no {key}"));
        return;
    };
    // .type: a string under YAML 1.2 core-schema typing.
    let text = match value {
        Node::Scalar(scalar) if scalar.value == Core::Str => scalar.text.clone(),
        Node::Sequence(items)
            if field == Field::Name && report.planted(Planted::NameCollectionLength) =>
        {
            check_count(field, items.len(), at, report);
            return;
        }
        Node::Mapping(entries)
            if field == Field::Name && report.planted(Planted::NameCollectionLength) =>
        {
            check_count(field, entries.len(), at, report);
            return;
        }
        _ => {
            report.error(
                &format!("head.{key}.type"),
                at,
                format!("{key} is not a string"),
            );
            return;
        }
    };
    check_count(field, measure(field, &text, report), at, report);
    // .blank (strict): a visible character.
    if !text::has_visible(&text) {
        report.strict_error(
            &format!("head.{key}.blank"),
            at,
            format!("{key} shows nothing"),
        );
    }
    // .control (strict): no control character (description keeps newline and tab).
    let control = text
        .chars()
        .any(|c| text::is_control(c) && !(field == Field::Description && (c == '\n' || c == '\t')));
    if control {
        report.strict_error(
            &format!("head.{key}.control"),
            at,
            format!("{key} holds a control character"),
        );
    }
}

/// A length in characters (Unicode scalar values), as the planted mistakes measure it.
fn measure(field: Field, text: &str, report: &Report<'_>) -> usize {
    let (bytes, trimmed) = match field {
        Field::Name => (Planted::NameLengthInBytes, Planted::NameLengthTrimmed),
        Field::Description => (
            Planted::DescriptionLengthInBytes,
            Planted::DescriptionLengthTrimmed,
        ),
    };
    let text = if report.planted(trimmed) {
        text.trim()
    } else {
        text
    };
    if report.planted(bytes) {
        text.len()
    } else if field == Field::Name && report.planted(Planted::NameLengthGraphemes) {
        text::graphemes(text)
    } else {
        text::characters(text)
    }
}

/// .length: 1 to the field's limit, inclusive.
fn check_count(field: Field, count: usize, at: &str, report: &mut Report<'_>) {
    let (rejects_at, accepts_over, empty) = match field {
        Field::Name => (
            Planted::NameLimitRejectsAtLimit,
            Planted::NameLimitAcceptsOneOver,
            Planted::NameEmptyAccepted,
        ),
        Field::Description => (
            Planted::DescriptionLimitRejectsAtLimit,
            Planted::DescriptionLimitAcceptsOneOver,
            Planted::DescriptionEmptyAccepted,
        ),
    };
    let limit = if report.planted(rejects_at) {
        field.limit() - 1
    } else if report.planted(accepts_over) {
        field.limit() + 1
    } else {
        field.limit()
    };
    let key = field.key();
    if count == 0 && !report.planted(empty) {
        report.error(&format!("head.{key}.length"), at, format!("{key} is empty"));
    } else if count > limit {
        report.error(
            &format!("head.{key}.length"),
            at,
            format!("{key} has {count} characters, more than {}", field.limit()),
        );
    }
}

/// skill-package.head.body.required ("Nonempty Markdown instructions after the
/// frontmatter": at least one character) and, strict, .body.content (rendered as
/// CommonMark, the body shows something).
fn check_body(body: &str, at: &str, report: &mut Report<'_>) {
    if body.is_empty() {
        if !report.planted(Planted::BodyNotRequired) {
            report.error("head.body.required", at, "nothing follows the frontmatter");
        }
        return;
    }
    if report.strict() && !renders_something(body) {
        report.error("head.body.content", at, "the body renders nothing");
    }
}

/// Whether CommonMark renders something visible from `body`: a visible character in text,
/// code or HTML outside comments, or an image.
fn renders_something(body: &str) -> bool {
    // markdown-rs's cost grows much faster than the text on deeply nested containers (4000
    // nested `>` took gigabytes) and on long runs of brackets, so past these bounds the
    // text decides, HTML comments left out: a body this large or this deep that renders
    // nothing is not a real one.
    if body.len() > MARKDOWN_BOUND || nesting(body) > NESTING_BOUND {
        let content: String = body
            .lines()
            .map(|line| line_content(line).1)
            .collect::<Vec<_>>()
            .join("\n");
        return text::has_visible(&without_comments(&content));
    }
    match quietly(|| markdown::to_mdast(body, &markdown::ParseOptions::default())) {
        Some(Ok(tree)) => shows(&tree),
        // markdown-rs fails only on MDX constructs, which CommonMark does not have, and
        // panics on some setext headings after a thematic break (1.0.0: `x\n===\n---\nb\n---`);
        // the text itself then decides.
        _ => text::has_visible(body),
    }
}

/// The largest body given to markdown-rs (skill-package.head.body.content, strict).
const MARKDOWN_BOUND: usize = 32 * 1024;

/// The deepest container nesting given to markdown-rs.
const NESTING_BOUND: usize = 64;

/// How deeply a line of the body nests containers at most, roughly: a level per block quote
/// or list marker at its start and per two columns of indentation.
fn nesting(body: &str) -> usize {
    body.lines()
        .map(|line| line_content(line).0)
        .max()
        .unwrap_or(0)
}

/// A line's nesting depth and its text after the container markers.
fn line_content(line: &str) -> (usize, &str) {
    let mut depth = 0;
    let mut rest = line;
    loop {
        let columns: usize = rest
            .chars()
            .take_while(|c| *c == ' ' || *c == '\t')
            .map(|c| if c == '\t' { 4 } else { 1 })
            .sum();
        depth += columns / 2;
        rest = rest.trim_start_matches([' ', '\t']);
        let digits = rest.bytes().take_while(u8::is_ascii_digit).count();
        let marker = if rest.starts_with('>') {
            1
        } else if rest.starts_with(['-', '+', '*']) && rest[1..].starts_with([' ', '\t']) {
            2
        } else if (1..=9).contains(&digits)
            && rest[digits..].starts_with(['.', ')'])
            && rest[digits + 1..].starts_with([' ', '\t'])
        {
            digits + 2
        } else {
            return (depth, rest);
        };
        depth += 1;
        rest = &rest[marker..];
    }
}

/// Runs `read`, turning a panic into `None` without printing it (a reader's bug must not
/// crash the validator).
fn quietly<T>(read: impl FnOnce() -> T + std::panic::UnwindSafe) -> Option<T> {
    let hook = std::panic::take_hook();
    std::panic::set_hook(Box::new(|_| {}));
    let result = std::panic::catch_unwind(read);
    std::panic::set_hook(hook);
    result.ok()
}

fn shows(node: &mdast::Node) -> bool {
    match node {
        mdast::Node::Text(text) => text::has_visible(&text.value),
        mdast::Node::InlineCode(code) => text::has_visible(&code.value),
        mdast::Node::Code(code) => text::has_visible(&code.value),
        mdast::Node::Html(html) => text::has_visible(&without_comments(&html.value)),
        mdast::Node::Image(_) | mdast::Node::ImageReference(_) => true,
        mdast::Node::Definition(_) | mdast::Node::ThematicBreak(_) => false,
        other => other
            .children()
            .is_some_and(|children| children.iter().any(shows)),
    }
}

/// HTML with its comments (`<!-- ... -->`) taken out.
fn without_comments(html: &str) -> String {
    let mut out = String::new();
    let mut rest = html;
    while let Some(start) = rest.find("<!--") {
        out.push_str(&rest[..start]);
        match rest[start + 4..].find("-->") {
            Some(end) => rest = &rest[start + 4 + end + 3..],
            None => {
                rest = "";
                break;
            }
        }
    }
    out.push_str(rest);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn deep_bodies_are_not_given_to_markdown() {
        let deep = format!("{} x\n", ">".repeat(4000));
        assert!(nesting(&deep) > NESTING_BOUND);
        assert!(renders_something(&deep));
        assert_eq!(nesting("- > 1. x\n      - y\n"), 4);
        assert!(!renders_something(&format!(
            "{}<!-- x -->\n",
            "> ".repeat(100)
        )));
    }

    #[test]
    fn a_markdown_panic_is_no_crash() {
        assert!(renders_something("x\n===\n---\nb\n---\n"));
        assert!(!renders_something(" \n<!-- c -->\n"));
        assert!(renders_something("![](x.png)\n"));
    }
}
