//! The head contract of a skill package (spec, Head contract): `SKILL.md` opens with YAML
//! frontmatter bounded by `---` lines, the frontmatter is a mapping with a string `name`
//! (1–128 characters) and `description` (1–1024), and a nonempty Markdown body follows.
//!
//! The frontmatter is cut out line by line (a line ends at LF, CRLF or a lone CR, as in YAML
//! and CommonMark) and read as YAML 1.2 with the core schema: saphyr's parser produces the
//! events and saphyr's scalar resolution types them, so `yes` is a string and `123` an
//! integer. The events are assembled here rather than by saphyr's loader because the loader
//! stops at the first duplicate key and keeps no positions for the values we report on;
//! assembling them ourselves keeps every repetition of a key, the span of each top-level
//! value, and bounds on nesting and alias expansion. Scalars are typed here too, so that
//! explicit tags follow YAML 1.2 (`!<tag:yaml.org,2002:str>` is `!!str`, the non-specific
//! `!` makes a string, `!!int "5"` an integer).
//!
//! saphyr-parser 0.3 refuses a tab that separates `:` or `?` from a node on the same line
//! (`name:<tab>value`), which YAML 1.2 allows (separation in a line is spaces or tabs; only
//! indentation is spaces alone). [`separate_tabs`] works around it: such tabs outside any
//! scalar become spaces, which changes no value and no offset, unless a block collection
//! then starts on the same line, which a tab cannot indent.

use std::borrow::Cow;
use std::collections::HashMap;
use std::ops::Range;

use pulldown_cmark::{Event as MarkdownEvent, Parser as MarkdownParser, Tag as MarkdownTag};
use saphyr::{Mapping, Scalar, Yaml};
use saphyr_parser::{Event, Parser, ScalarStyle, ScanError, Span as YamlSpan, Tag};

use super::{Locator, Place};
use crate::diagnostic::rules::skill_package as rule;
use crate::diagnostic::{Diagnostic, RuleId};
use crate::text;
use crate::Profile;

/// Largest length of `name`, in characters (spec: "at most 128 characters").
pub const NAME_MAX: usize = 128;
/// Largest length of `description`, in characters (spec: "at most 1024 characters").
pub const DESCRIPTION_MAX: usize = 1024;
/// Deepest nesting of YAML collections; see `skill-package.head.yaml-resources`.
pub const YAML_MAX_DEPTH: usize = 64;
/// Most nodes aliases may expand to; see `skill-package.head.yaml-resources`.
pub const YAML_ALIAS_BUDGET: usize = 10_000;
/// Bytes of scalar text that count as one more node towards [`YAML_ALIAS_BUDGET`].
pub const SCALAR_BYTES_PER_NODE: usize = 1024;

/// Checks the head contract on the text of `SKILL.md`, reporting through `place`.
/// The strict-only rules (`strict = true` in the catalogue) apply in the strict profile.
pub(crate) fn check(content: &str, place: &Place<'_>, profile: Profile, out: &mut Vec<Diagnostic>) {
    let mut head = Head {
        content,
        locator: place.locator(content),
        strict: profile == Profile::Strict,
        out,
    };
    head.run();
}

struct Head<'c, 'o> {
    content: &'c str,
    locator: Locator<'c>,
    strict: bool,
    out: &'o mut Vec<Diagnostic>,
}

/// One line of the content: its text is `start..end`, and the next line starts at `next`.
#[derive(Debug, Clone, Copy)]
struct Line {
    start: usize,
    end: usize,
    next: usize,
}

/// How a line reads as a frontmatter delimiter.
enum Delimiter {
    /// Exactly `---`.
    Exact,
    /// `---` followed by spaces or tabs only; the first of them is at this offset.
    TrailingSpace(usize),
    /// Not a delimiter.
    No,
}

/// The line starting at byte `start`.
fn line_at(text: &str, start: usize) -> Line {
    let bytes = text.as_bytes();
    let end = bytes[start..]
        .iter()
        .position(|&b| b == b'\n' || b == b'\r')
        .map_or(bytes.len(), |at| start + at);
    let next = match bytes.get(end) {
        Some(b'\r') if bytes.get(end + 1) == Some(&b'\n') => end + 2,
        Some(_) => end + 1,
        None => end,
    };
    Line { start, end, next }
}

fn delimiter(text: &str, line: Line) -> Delimiter {
    let line_text = &text[line.start..line.end];
    match line_text.strip_prefix("---") {
        Some("") => Delimiter::Exact,
        Some(rest) if rest.bytes().all(|b| b == b' ' || b == b'\t') => {
            Delimiter::TrailingSpace(line.start + 3)
        }
        _ => Delimiter::No,
    }
}

impl Head<'_, '_> {
    fn report(&mut self, rule: RuleId, range: Range<usize>, message: impl Into<String>) {
        let location = self.locator.locate(range);
        self.out.push(Diagnostic::new(rule, location, message));
    }

    fn run(&mut self) {
        let content = self.content;
        let mut start = 0;
        // A byte order mark is an encoding signature, not text: the head is read after it
        // in both profiles. skill-package.head.bom (strict profile only: the mark hides the
        // delimiter from readers that match `---` at the first byte).
        if content.starts_with('\u{FEFF}') {
            if self.strict {
                self.report(
                    rule::HEAD_BOM,
                    0..3,
                    "SKILL.md starts with a byte order mark",
                );
            }
            start = 3;
        }

        // skill-package.head.frontmatter-open (spec: "YAML frontmatter bounded by ---
        // lines"; it opens the file).
        let open = line_at(content, start);
        match delimiter(content, open) {
            Delimiter::Exact => {}
            Delimiter::TrailingSpace(at) => self.delimiter_space(at, open),
            Delimiter::No => {
                self.report(
                    rule::HEAD_FRONTMATTER_OPEN,
                    open.start..open.end.max(open.start + 1).min(content.len()),
                    "SKILL.md must start with a `---` line opening the YAML frontmatter",
                );
                return;
            }
        }

        // skill-package.head.frontmatter-close (spec: bounded by `---` lines): the first
        // later `---` line closes.
        let mut close = None;
        let mut document_end = None;
        let mut at = open.next;
        while at < content.len() {
            let line = line_at(content, at);
            match delimiter(content, line) {
                Delimiter::Exact => {
                    close = Some(line);
                    break;
                }
                Delimiter::TrailingSpace(space) => {
                    self.delimiter_space(space, line);
                    close = Some(line);
                    break;
                }
                Delimiter::No => {}
            }
            if document_end.is_none() && content[line.start..line.end].trim_end() == "..." {
                document_end = Some(line);
            }
            at = line.next;
        }
        let Some(close) = close else {
            let hint = match document_end {
                Some(line) => format!(
                    "; the `...` line {} ends a YAML document but does not close the frontmatter",
                    self.locator.position(line.start).line
                ),
                None => String::new(),
            };
            self.report(
                rule::HEAD_FRONTMATTER_CLOSE,
                open.start..open.end,
                format!("the frontmatter opened here is never closed by a `---` line{hint}"),
            );
            return;
        };

        self.frontmatter(open, close);
        self.body(close.next);
    }

    /// skill-package.head.delimiter-space (strict profile only: no trailing spaces or
    /// tabs on a delimiter). Trailing whitespace is invisible and insignificant, so in
    /// both profiles the line counts as a delimiter and nothing else is reported.
    fn delimiter_space(&mut self, at: usize, line: Line) {
        if !self.strict {
            return;
        }
        self.report(
            rule::HEAD_DELIMITER_SPACE,
            at..line.end,
            "a `---` delimiter line must not carry trailing spaces or tabs",
        );
    }

    fn frontmatter(&mut self, open: Line, close: Line) {
        let region = &self.content[open.next..close.start];
        let base = open.next;
        let yaml = separate_tabs(region);
        let scan = match yaml.problem {
            Some((at, message)) => Loader::failed(at, message),
            None => Loader::scan(&yaml.text),
        };
        let offsets = CharOffsets::new(region);
        let range = |span: CharSpan| {
            base + offsets.byte(span.start)..base + offsets.byte(span.end.max(span.start))
        };
        for problem in &scan.problems {
            match problem {
                // skill-package.head.yaml-syntax (the frontmatter is YAML).
                Problem::Syntax { at, message } => self.report(
                    rule::HEAD_YAML_SYNTAX,
                    range(CharSpan {
                        start: *at,
                        end: at + 1,
                    }),
                    format!("the frontmatter is not valid YAML: {message}"),
                ),
                // skill-package.head.yaml-duplicate-key (YAML 1.2: keys are unique).
                Problem::Duplicate { at, first, key } => {
                    let first = self.locator.position(range(*first).start);
                    self.report(
                        rule::HEAD_YAML_DUPLICATE_KEY,
                        range(*at),
                        format!(
                            "duplicate key {key}; first defined at line {}, column {}",
                            first.line, first.column
                        ),
                    );
                }
                // skill-package.head.yaml-document-marker (strict profile only: one YAML
                // document). Both profiles read the first document.
                Problem::Marker { at } if self.strict => self.report(
                    rule::HEAD_YAML_DOCUMENT_MARKER,
                    range(*at),
                    "a YAML document marker inside the frontmatter starts or ends a document; only the first document is read",
                ),
                Problem::Marker { .. } => {}
                // skill-package.head.yaml-resources (decision: nesting and alias bounds).
                Problem::Resources { at, message } => self.report(
                    rule::HEAD_YAML_RESOURCES,
                    range(CharSpan {
                        start: *at,
                        end: at + 1,
                    }),
                    message.clone(),
                ),
            }
        }
        if scan
            .problems
            .iter()
            .any(|problem| matches!(problem, Problem::Syntax { .. } | Problem::Resources { .. }))
        {
            return;
        }
        // skill-package.head.frontmatter-mapping (spec: name and description are keys of
        // the frontmatter, so it is a mapping; decision: empty reads as an empty mapping).
        if let Some(Root::Other { kind, at }) = scan.root {
            self.report(
                rule::HEAD_FRONTMATTER_MAPPING,
                range(at),
                format!("the frontmatter must be a YAML mapping, not {kind}"),
            );
            return;
        }
        let opening = open.start..open.end;
        self.field(
            &scan.entries,
            &Field {
                key: "name",
                max: NAME_MAX,
                required: rule::HEAD_NAME_REQUIRED,
                type_rule: rule::HEAD_NAME_TYPE,
                length: rule::HEAD_NAME_LENGTH,
                blank: rule::HEAD_NAME_BLANK,
                control: rule::HEAD_NAME_CONTROL,
                allow_line_breaks: false,
            },
            opening.clone(),
            &range,
        );
        self.field(
            &scan.entries,
            &Field {
                key: "description",
                max: DESCRIPTION_MAX,
                required: rule::HEAD_DESCRIPTION_REQUIRED,
                type_rule: rule::HEAD_DESCRIPTION_TYPE,
                length: rule::HEAD_DESCRIPTION_LENGTH,
                blank: rule::HEAD_DESCRIPTION_BLANK,
                control: rule::HEAD_DESCRIPTION_CONTROL,
                allow_line_breaks: true,
            },
            opening,
            &range,
        );
    }

    /// The rules of one string field of the frontmatter.
    fn field(
        &mut self,
        entries: &[Entry<'_>],
        field: &Field,
        opening: Range<usize>,
        range: &dyn Fn(CharSpan) -> Range<usize>,
    ) {
        let key = Yaml::Value(Scalar::String(Cow::Borrowed(field.key)));
        let Some(entry) = entries.iter().find(|entry| entry.key == key) else {
            // skill-package.head.name.required / description.required (spec: the head
            // is parsed for name and description).
            self.report(
                field.required,
                opening,
                format!("the frontmatter has no `{}` key", field.key),
            );
            return;
        };
        // A value without text (`name:`) is located at its key, any other at its first
        // character.
        let at = if entry.value_at.start == entry.value_at.end {
            range(entry.key_at)
        } else {
            range(entry.value_at)
        };
        // skill-package.head.name.type / description.type (spec: "Nonempty string", as
        // YAML types it; decision: YAML 1.2 core-schema typing where 1.1 differs).
        let Yaml::Value(Scalar::String(value)) = &entry.value else {
            self.report(
                field.type_rule,
                at,
                format!(
                    "`{}` must be a string, but YAML 1.2 reads {}",
                    field.key,
                    describe(&entry.value)
                ),
            );
            return;
        };
        // skill-package.head.name.length / description.length (spec: nonempty, at most
        // 128 / 1024 characters).
        let length = text::length(value);
        if !(1..=field.max).contains(&length) {
            self.report(
                field.length,
                at.clone(),
                format!(
                    "`{}` is {length} characters; it must be 1 to {}",
                    field.key, field.max
                ),
            );
        } else if self.strict && !text::has_visible_content(value) {
            // skill-package.head.name.blank / description.blank (strict profile only: a
            // value of invisible characters names nothing).
            self.report(
                field.blank,
                at.clone(),
                format!("`{}` has no visible character", field.key),
            );
        }
        // skill-package.head.name.control / description.control (strict profile only: no
        // display injection; a description may break lines).
        if !self.strict {
            return;
        }
        let forbidden =
            |c: char| c.is_control() && !(field.allow_line_breaks && (c == '\n' || c == '\t'));
        if value.chars().any(forbidden) {
            let allowed = if field.allow_line_breaks {
                " other than newline and tab"
            } else {
                ""
            };
            self.report(
                field.control,
                at,
                format!("`{}` holds a control character{allowed}", field.key),
            );
        }
    }

    fn body(&mut self, start: usize) {
        let body = &self.content[start..];
        let range = start..self.content.len();
        // skill-package.head.body.required (spec: "Nonempty Markdown instructions after the
        // frontmatter"): nonempty read as the words say, at least one character. Whether
        // whitespace alone is nonempty depends on whether a reader trims, so the spec
        // profile takes the literal reading and the strict profile's rule below refuses it.
        if body.is_empty() {
            self.report(
                rule::HEAD_BODY_REQUIRED,
                range,
                "no Markdown body follows the frontmatter",
            );
            return;
        }
        // skill-package.head.body.content (strict profile only: the body renders something
        // visible; whitespace alone renders nothing).
        if self.strict && (body.trim().is_empty() || !renders_visible(body)) {
            self.report(
                rule::HEAD_BODY_CONTENT,
                range,
                "the Markdown body renders nothing visible (only whitespace, invisible characters, comments, rules or link definitions)",
            );
        }
    }
}

/// The rules and bounds of one string field of the frontmatter.
struct Field {
    key: &'static str,
    max: usize,
    required: RuleId,
    type_rule: RuleId,
    length: RuleId,
    blank: RuleId,
    control: RuleId,
    allow_line_breaks: bool,
}

/// Whether a Markdown body, rendered as CommonMark, shows a visible character: in text,
/// code, an image, or HTML outside comments.
fn renders_visible(body: &str) -> bool {
    let mut html = String::new();
    for event in MarkdownParser::new(body) {
        match event {
            MarkdownEvent::Text(text) | MarkdownEvent::Code(text)
                if text::has_visible_content(&text) =>
            {
                return true
            }
            MarkdownEvent::Start(MarkdownTag::Image { .. }) => return true,
            MarkdownEvent::Html(text) | MarkdownEvent::InlineHtml(text) => html.push_str(&text),
            _ => {}
        }
    }
    text::has_visible_content(&strip_html_comments(&html))
}

/// The HTML with every `<!-- ... -->` comment removed; an unclosed comment runs to the end.
fn strip_html_comments(html: &str) -> String {
    let mut kept = String::new();
    let mut rest = html;
    while let Some(open) = rest.find("<!--") {
        kept.push_str(&rest[..open]);
        match rest[open + 4..].find("-->") {
            Some(close) => rest = &rest[open + 4 + close + 3..],
            None => return kept,
        }
    }
    kept.push_str(rest);
    kept
}

/// A YAML value described for a message.
fn describe(value: &Yaml<'_>) -> String {
    match value {
        Yaml::Value(Scalar::Null) => "null".to_owned(),
        Yaml::Value(Scalar::Boolean(value)) => format!("the boolean {value}"),
        Yaml::Value(Scalar::Integer(value)) => format!("the integer {value}"),
        Yaml::Value(Scalar::FloatingPoint(value)) => format!("the number {value}"),
        Yaml::Value(Scalar::String(_)) => "a string".to_owned(),
        Yaml::Sequence(_) => "a sequence".to_owned(),
        Yaml::Mapping(_) => "a mapping".to_owned(),
        Yaml::Tagged(tag, _) => format!("a value tagged {tag}"),
        _ => "a value its tag cannot hold".to_owned(),
    }
}

/// A key described for a message.
fn describe_key(key: &Yaml<'_>) -> String {
    match key {
        Yaml::Value(Scalar::String(text)) => format!("{text:?}"),
        other => format!("({})", describe(other)),
    }
}

/// Byte offsets of the characters of a text, for turning the parser's character indices
/// into byte ranges. ASCII text needs no table.
struct CharOffsets {
    table: Option<Vec<usize>>,
    len: usize,
}

impl CharOffsets {
    fn new(text: &str) -> CharOffsets {
        let table =
            (!text.is_ascii()).then(|| text.char_indices().map(|(offset, _)| offset).collect());
        CharOffsets {
            table,
            len: text.len(),
        }
    }

    fn byte(&self, index: usize) -> usize {
        match &self.table {
            None => index.min(self.len),
            Some(table) => table.get(index).copied().unwrap_or(self.len),
        }
    }
}

/// A range of character indices in the frontmatter.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct CharSpan {
    start: usize,
    end: usize,
}

impl From<YamlSpan> for CharSpan {
    fn from(span: YamlSpan) -> CharSpan {
        CharSpan {
            start: span.start.index(),
            end: span.end.index(),
        }
    }
}

/// What the frontmatter's single document is.
#[derive(Debug, Clone, Copy)]
enum Root {
    Mapping,
    Other { kind: &'static str, at: CharSpan },
}

/// A key and value of the top-level mapping.
struct Entry<'i> {
    key: Yaml<'i>,
    key_at: CharSpan,
    value: Yaml<'i>,
    value_at: CharSpan,
}

enum Problem {
    Syntax {
        at: usize,
        message: String,
    },
    Duplicate {
        at: CharSpan,
        first: CharSpan,
        key: String,
    },
    Marker {
        at: CharSpan,
    },
    Resources {
        at: usize,
        message: String,
    },
}

/// A value defined with an anchor, kept for its aliases.
struct Anchored<'i> {
    value: Yaml<'i>,
    depth: usize,
    nodes: usize,
}

/// A collection being assembled.
struct Frame<'i> {
    kind: FrameKind<'i>,
    anchor: usize,
    tag: Option<Cow<'i, Tag>>,
    start: CharSpan,
    /// Deepest nesting among the children.
    depth: usize,
    /// Nodes among the children, aliases expanded.
    nodes: usize,
}

enum FrameKind<'i> {
    Sequence(Vec<Yaml<'i>>),
    Mapping {
        map: Mapping<'i>,
        first: HashMap<Yaml<'i>, CharSpan>,
        key: Option<(Yaml<'i>, CharSpan)>,
    },
}

/// Assembles the parser's events into the parts of the frontmatter the head rules need.
#[derive(Default)]
struct Loader<'i> {
    stack: Vec<Frame<'i>>,
    anchors: HashMap<usize, Anchored<'i>>,
    expanded: usize,
    /// Whether the first document is over; later documents are not read.
    finished: bool,
    marker_seen: bool,
    root: Option<Root>,
    entries: Vec<Entry<'i>>,
    problems: Vec<Problem>,
}

/// Why assembly stopped early.
struct Stop;

impl<'i> Loader<'i> {
    /// A loader that read nothing because the frontmatter is not YAML at `at` (a character
    /// index).
    fn failed(at: usize, message: &str) -> Loader<'i> {
        let mut loader = Loader::default();
        loader.problems.push(Problem::Syntax {
            at,
            message: message.to_owned(),
        });
        loader
    }

    fn scan(region: &'i str) -> Loader<'i> {
        let mut loader = Loader::default();
        let mut parser = Parser::new_from_str(region);
        while let Some(next) = parser.next_event() {
            match next {
                Err(error) => {
                    loader.syntax(&error);
                    break;
                }
                Ok((Event::StreamEnd, _)) => break,
                Ok((event, span)) => {
                    if loader.event(event, span).is_err() {
                        break;
                    }
                }
            }
        }
        loader
    }

    fn syntax(&mut self, error: &ScanError) {
        self.problems.push(Problem::Syntax {
            at: error.marker().index(),
            message: error.info().to_owned(),
        });
    }

    fn marker(&mut self, span: YamlSpan) {
        if !self.marker_seen {
            self.marker_seen = true;
            self.problems.push(Problem::Marker { at: span.into() });
        }
    }

    fn event(&mut self, event: Event<'i>, span: YamlSpan) -> Result<(), Stop> {
        match event {
            Event::DocumentStart(explicit) => {
                if explicit {
                    self.marker(span);
                }
                Ok(())
            }
            Event::DocumentEnd => {
                // An explicit end (`...`, or the end before a `--- x` line) spans the marker.
                if span.end.index() > span.start.index() {
                    self.marker(span);
                }
                self.finished = true;
                Ok(())
            }
            _ if self.finished => Ok(()),
            Event::Scalar(value, style, anchor, tag) => {
                // A scalar weighs one node per started KiB of its text, so the alias
                // budget bounds the text aliases copy as well as their count: one alias
                // of a long scalar copies all of it.
                let weight = 1 + value.len() / SCALAR_BYTES_PER_NODE;
                let value = resolve_scalar(value, style, tag);
                self.complete(value, 0, weight, span.into(), anchor)
            }
            Event::SequenceStart(anchor, tag) => {
                self.open(FrameKind::Sequence(Vec::new()), anchor, tag, span)
            }
            Event::MappingStart(anchor, tag) => self.open(
                FrameKind::Mapping {
                    map: Mapping::new(),
                    first: HashMap::new(),
                    key: None,
                },
                anchor,
                tag,
                span,
            ),
            Event::SequenceEnd | Event::MappingEnd => {
                let Some(frame) = self.stack.pop() else {
                    return Ok(());
                };
                let mut value = match frame.kind {
                    FrameKind::Sequence(items) => Yaml::Sequence(items),
                    FrameKind::Mapping { map, .. } => Yaml::Mapping(map),
                };
                if let Some(tag) = frame.tag {
                    if matches!(tag_kind(&tag), TagKind::Other) {
                        value = Yaml::Tagged(tag, Box::new(value));
                    }
                }
                let at = CharSpan {
                    start: frame.start.start,
                    end: span.end.index(),
                };
                self.complete(value, frame.depth + 1, frame.nodes + 1, at, frame.anchor)
            }
            Event::Alias(id) => {
                let Some(anchored) = self.anchors.get(&id) else {
                    return Ok(());
                };
                self.expanded = self.expanded.saturating_add(anchored.nodes);
                if self.expanded > YAML_ALIAS_BUDGET {
                    self.problems.push(Problem::Resources {
                        at: span.start.index(),
                        message: format!(
                            "aliases in the frontmatter expand to more than {YAML_ALIAS_BUDGET} nodes"
                        ),
                    });
                    return Err(Stop);
                }
                let (value, depth, nodes) =
                    (anchored.value.clone(), anchored.depth, anchored.nodes);
                self.complete(value, depth, nodes, span.into(), 0)
            }
            Event::StreamStart | Event::StreamEnd | Event::Nothing => Ok(()),
        }
    }

    fn open(
        &mut self,
        kind: FrameKind<'i>,
        anchor: usize,
        tag: Option<Cow<'i, Tag>>,
        span: YamlSpan,
    ) -> Result<(), Stop> {
        if self.stack.len() + 1 > YAML_MAX_DEPTH {
            return Err(self.too_deep(span.start.index()));
        }
        self.stack.push(Frame {
            kind,
            anchor,
            tag,
            start: span.into(),
            depth: 0,
            nodes: 0,
        });
        Ok(())
    }

    fn too_deep(&mut self, at: usize) -> Stop {
        self.problems.push(Problem::Resources {
            at,
            message: format!("the frontmatter nests deeper than {YAML_MAX_DEPTH} levels"),
        });
        Stop
    }

    /// Places a finished value: into its parent collection, or as the document's root.
    fn complete(
        &mut self,
        value: Yaml<'i>,
        depth: usize,
        nodes: usize,
        at: CharSpan,
        anchor: usize,
    ) -> Result<(), Stop> {
        if self.stack.len() + depth > YAML_MAX_DEPTH {
            return Err(self.too_deep(at.start));
        }
        if anchor > 0 {
            self.anchors.insert(
                anchor,
                Anchored {
                    value: value.clone(),
                    depth,
                    nodes,
                },
            );
        }
        let top_level = self.stack.len() == 1;
        let Some(frame) = self.stack.last_mut() else {
            self.root = Some(match value {
                Yaml::Mapping(_) => Root::Mapping,
                ref other => Root::Other {
                    kind: root_kind(other),
                    at,
                },
            });
            return Ok(());
        };
        frame.depth = frame.depth.max(depth);
        frame.nodes = frame.nodes.saturating_add(nodes);
        match &mut frame.kind {
            FrameKind::Sequence(items) => items.push(value),
            FrameKind::Mapping { map, first, key } => match key.take() {
                None => *key = Some((value, at)),
                Some((key, key_at)) => {
                    let compared = comparable(&key);
                    if let Some(first_at) = first.get(compared.as_ref()) {
                        self.problems.push(Problem::Duplicate {
                            at: key_at,
                            first: *first_at,
                            key: describe_key(&key),
                        });
                    } else {
                        first.insert(compared.into_owned(), key_at);
                    }
                    if top_level {
                        self.entries.push(Entry {
                            key: key.clone(),
                            key_at,
                            value: value.clone(),
                            value_at: at,
                        });
                    }
                    map.insert(key, value);
                }
            },
        }
        Ok(())
    }
}

/// A mapping key as YAML compares keys (YAML 1.2, "Node Comparison"): a mapping is a set of
/// pairs, so `{team: a, tier: b}` and `{tier: b, team: a}` are one key. saphyr compares
/// mappings in their written order, so a key holding a mapping is compared in a form whose
/// pairs are sorted; any other key as it is.
fn comparable<'k, 'i>(key: &'k Yaml<'i>) -> Cow<'k, Yaml<'i>> {
    fn holds_mapping(node: &Yaml<'_>) -> bool {
        match node {
            Yaml::Mapping(_) => true,
            Yaml::Sequence(items) => items.iter().any(holds_mapping),
            Yaml::Tagged(_, inner) => holds_mapping(inner),
            _ => false,
        }
    }
    fn sorted<'i>(node: &Yaml<'i>) -> Yaml<'i> {
        match node {
            Yaml::Mapping(map) => {
                let mut pairs: Vec<(Yaml<'i>, Yaml<'i>)> =
                    map.iter().map(|(k, v)| (sorted(k), sorted(v))).collect();
                pairs.sort();
                Yaml::Mapping(pairs.into_iter().collect())
            }
            Yaml::Sequence(items) => Yaml::Sequence(items.iter().map(sorted).collect()),
            Yaml::Tagged(tag, inner) => Yaml::Tagged(tag.clone(), Box::new(sorted(inner))),
            other => other.clone(),
        }
    }
    if holds_mapping(key) {
        Cow::Owned(sorted(key))
    } else {
        Cow::Borrowed(key)
    }
}

fn root_kind(value: &Yaml<'_>) -> &'static str {
    match value {
        Yaml::Sequence(_) => "a sequence",
        Yaml::Value(Scalar::String(_)) => "a string",
        Yaml::Value(Scalar::Null) => "null",
        Yaml::Value(Scalar::Boolean(_)) => "a boolean",
        Yaml::Value(Scalar::Integer(_) | Scalar::FloatingPoint(_)) => "a number",
        Yaml::Tagged(..) => "a tagged value",
        _ => "a value that is not a mapping",
    }
}

/// The prefix of the YAML core schema's tags (`!!str` is `tag:yaml.org,2002:str`).
const CORE_TAG_PREFIX: &str = "tag:yaml.org,2002:";

/// What a node's tag asks for.
enum TagKind<'t> {
    /// `!`: a scalar is a string, a collection what it is.
    NonSpecific,
    /// A tag of the core schema, however it is spelled (`!!str`, `!<tag:yaml.org,2002:str>`,
    /// a `%TAG` handle): its name (`str`, `int`, ...).
    Core(&'t str),
    /// Any other tag.
    Other,
}

/// The kind of a tag as saphyr reports it: a shorthand keeps its handle apart from its
/// suffix, a verbatim tag has an empty handle, and the non-specific `!` is the verbatim `!`.
fn tag_kind(tag: &Tag) -> TagKind<'_> {
    if tag.handle.is_empty() {
        if tag.suffix == "!" {
            return TagKind::NonSpecific;
        }
        return match tag.suffix.strip_prefix(CORE_TAG_PREFIX) {
            Some(name) => TagKind::Core(name),
            None => TagKind::Other,
        };
    }
    if tag.handle == CORE_TAG_PREFIX {
        return TagKind::Core(&tag.suffix);
    }
    if tag.handle == "!" && tag.suffix.is_empty() {
        return TagKind::NonSpecific;
    }
    TagKind::Other
}

/// Types a scalar as YAML 1.2 does with the core schema: untagged plain scalars by their
/// text, other untagged scalars and `!` as strings, core tags by their name (a text the tag
/// cannot hold is a bad value), and any other tag as a tagged value.
fn resolve_scalar<'i>(
    value: Cow<'i, str>,
    style: ScalarStyle,
    tag: Option<Cow<'i, Tag>>,
) -> Yaml<'i> {
    let Some(tag) = tag else {
        return Yaml::value_from_cow_and_metadata(value, style, None);
    };
    let name = match tag_kind(&tag) {
        TagKind::NonSpecific => return Yaml::Value(Scalar::String(value)),
        TagKind::Other => {
            let inner = Yaml::value_from_cow_and_metadata(value, style, None);
            return Yaml::Tagged(tag, Box::new(inner));
        }
        TagKind::Core(name) => name.to_owned(),
    };
    let text = value.as_ref();
    let typed = match name.as_str() {
        "str" => Some(Scalar::String(value.clone())),
        "null" => matches!(text, "" | "~" | "null" | "Null" | "NULL").then_some(Scalar::Null),
        "bool" => match text {
            "true" | "True" | "TRUE" => Some(Scalar::Boolean(true)),
            "false" | "False" | "FALSE" => Some(Scalar::Boolean(false)),
            _ => None,
        },
        "int" => match Scalar::parse_from_cow(value.clone()) {
            scalar @ Scalar::Integer(_) => Some(scalar),
            _ => None,
        },
        "float" => match Scalar::parse_from_cow(value.clone()) {
            scalar @ Scalar::FloatingPoint(_) => Some(scalar),
            #[allow(clippy::cast_precision_loss)]
            Scalar::Integer(integer) => Some(Scalar::FloatingPoint((integer as f64).into())),
            _ => None,
        },
        // Core tags of other kinds (`!!map` on a scalar, `!!binary`, `!!timestamp`) name
        // no string either.
        _ => {
            let inner = Yaml::value_from_cow_and_metadata(value, style, None);
            return Yaml::Tagged(tag, Box::new(inner));
        }
    };
    typed.map_or(Yaml::BadValue, Yaml::Value)
}

/// The messages with which saphyr-parser 0.3 refuses a tab after `:` or `?`.
const TAB_SEPARATION_ERRORS: &[&str] = &[
    "':' must be followed by a valid YAML whitespace",
    "expected whitespace",
    "tabs disallowed in this context",
];

/// The frontmatter as the parser is to read it, or the syntax problem found on the way.
struct Separated<'r> {
    text: Cow<'r, str>,
    /// A tab that separates an indicator from a block collection: the character index of
    /// the run of blanks holding it, and the message.
    problem: Option<(usize, &'static str)>,
}

/// A run of spaces and tabs, holding a tab, right after a `:` or `?` and before more text
/// on the same line: in byte offsets and character indices.
#[derive(Debug, Clone, Copy)]
struct Run {
    bytes: (usize, usize),
    chars: (usize, usize),
}

/// Works around saphyr-parser's refusal of a tab that separates `:` or `?` from a node on
/// the same line. YAML 1.2 separates tokens in a line with spaces or tabs
/// (`s-separate-in-line`); a tab only may not indent, so a block collection cannot start
/// after one. When the parser stops at such a tab, every run of blanks holding a tab right
/// after `:` or `?` becomes spaces, except inside scalars (where the tab is text); a tab
/// and a space are one byte and one character each, so no offset moves. If a block
/// collection then starts after such a run on its line, the tab indents it: that is the
/// syntax problem reported.
fn separate_tabs(region: &str) -> Separated<'_> {
    let unchanged = || Separated {
        text: Cow::Borrowed(region),
        problem: None,
    };
    match parse_all(region) {
        Err(error) if TAB_SEPARATION_ERRORS.contains(&error.info()) => {}
        _ => return unchanged(),
    }
    let runs = separation_runs(region);
    if runs.is_empty() {
        return unchanged();
    }
    // Read with every run as spaces, to find the scalars: a run inside one is text.
    let all = with_spaces(region, &runs);
    let Ok(events) = parse_all(&all) else {
        return Separated {
            text: Cow::Owned(all),
            problem: None,
        };
    };
    let scalars: Vec<(usize, usize)> = events
        .iter()
        .filter(|(event, _)| matches!(event, Event::Scalar(..)))
        .map(|(_, span)| (span.start.index(), span.end.index()))
        .collect();
    let kept: Vec<Run> = runs
        .into_iter()
        .filter(|run| {
            let before = scalars.partition_point(|&(start, _)| start <= run.chars.0);
            before == 0 || scalars[before - 1].1 <= run.chars.0
        })
        .collect();
    let text = with_spaces(region, &kept);
    let problem = parse_all(&text).ok().and_then(|events| {
        let chars: Vec<char> = text.chars().collect();
        events.iter().find_map(|(event, span)| {
            if !matches!(event, Event::MappingStart(..) | Event::SequenceStart(..)) {
                return None;
            }
            let at = span.start.index();
            if starts_flow_collection(&chars, at) {
                return None;
            }
            let before = kept.partition_point(|run| run.chars.1 <= at);
            let run = kept.get(before.checked_sub(1)?)?;
            let between = chars.get(run.chars.1..at)?;
            (!between.iter().any(|&c| c == '\n' || c == '\r')).then_some((
                run.chars.0,
                "a tab cannot separate an indicator from a block collection on the same line (YAML indents with spaces only)",
            ))
        })
    });
    Separated {
        text: Cow::Owned(text),
        problem,
    }
}

/// Every event of a text, or the parser's first error.
fn parse_all(text: &str) -> Result<Vec<(Event<'_>, YamlSpan)>, ScanError> {
    let mut parser = Parser::new_from_str(text);
    let mut events = Vec::new();
    while let Some(next) = parser.next_event() {
        let (event, span) = next?;
        let end = matches!(event, Event::StreamEnd);
        events.push((event, span));
        if end {
            break;
        }
    }
    Ok(events)
}

/// The runs of blanks holding a tab that follow a `:` or `?` and precede more text on
/// their line.
fn separation_runs(text: &str) -> Vec<Run> {
    let bytes = text.as_bytes();
    let mut runs = Vec::new();
    let mut chars = 0;
    let mut at = 0;
    while at < bytes.len() {
        let byte = bytes[at];
        if (byte == b':' || byte == b'?') && at + 1 < bytes.len() {
            let start = at + 1;
            let mut end = start;
            while end < bytes.len() && (bytes[end] == b' ' || bytes[end] == b'\t') {
                end += 1;
            }
            let has_tab = bytes[start..end].contains(&b'\t');
            let more = end < bytes.len() && bytes[end] != b'\n' && bytes[end] != b'\r';
            if has_tab && more {
                // The run is ASCII: as many characters as bytes.
                let first = chars + 1;
                runs.push(Run {
                    bytes: (start, end),
                    chars: (first, first + (end - start)),
                });
            }
            chars += 1 + (end - start);
            at = end;
            continue;
        }
        // Count characters by their first byte.
        if byte & 0xC0 != 0x80 {
            chars += 1;
        }
        at += 1;
    }
    runs
}

/// The text with the tabs of `runs` turned into spaces.
fn with_spaces(text: &str, runs: &[Run]) -> String {
    let mut bytes = text.as_bytes().to_vec();
    for run in runs {
        for byte in &mut bytes[run.bytes.0..run.bytes.1] {
            *byte = b' ';
        }
    }
    // Only ASCII tabs became ASCII spaces.
    String::from_utf8(bytes).unwrap_or_else(|_| text.to_owned())
}

/// Whether the collection whose event starts at character `at` is a flow collection:
/// past its properties (`!tag`, `&anchor`) it opens with `[` or `{`.
fn starts_flow_collection(chars: &[char], mut at: usize) -> bool {
    loop {
        match chars.get(at) {
            Some('[' | '{') => return true,
            Some('!' | '&') => {
                while chars
                    .get(at)
                    .is_some_and(|c| !matches!(c, ' ' | '\t' | '\n' | '\r'))
                {
                    at += 1;
                }
                while chars.get(at).is_some_and(|c| matches!(c, ' ' | '\t')) {
                    at += 1;
                }
            }
            _ => return false,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn name_of(frontmatter: &str) -> Option<Yaml<'static>> {
        let separated = separate_tabs(frontmatter);
        assert!(separated.problem.is_none(), "{frontmatter:?}");
        let text = separated.text.into_owned();
        let scan = Loader::scan(&text);
        assert!(scan.problems.is_empty(), "{frontmatter:?}");
        let name = Yaml::Value(Scalar::String(Cow::Borrowed("name")));
        let found = scan.entries.iter().find(|entry| entry.key == name)?;
        Some(match &found.value {
            Yaml::Value(Scalar::String(text)) => {
                Yaml::Value(Scalar::String(Cow::Owned(text.to_string())))
            }
            Yaml::Value(Scalar::Integer(value)) => Yaml::Value(Scalar::Integer(*value)),
            _ => Yaml::BadValue,
        })
    }

    fn string(text: &str) -> Option<Yaml<'static>> {
        Some(Yaml::Value(Scalar::String(Cow::Owned(text.to_owned()))))
    }

    #[test]
    fn tabs_separate_like_spaces() {
        assert_eq!(name_of("name:\tx\n"), string("x"));
        assert_eq!(name_of("{name:\tx}\n"), string("x"));
        assert_eq!(name_of("?\tname\n:\tx\n"), string("x"));
        assert_eq!(name_of("name:\t1\n"), Some(Yaml::Value(Scalar::Integer(1))));
        // A tab inside a scalar is text and stays a tab.
        assert_eq!(name_of("name:\t\"a:\tb\"\n"), string("a:\tb"));
        assert_eq!(name_of("name: |\n  a:\tb\nc:\td\n"), string("a:\tb\n"));
    }

    #[test]
    fn a_tab_cannot_indent_a_block_collection() {
        for text in ["? a\n:\tb: c\n", "?\ta: b\n", "? a\n:\t- b\n"] {
            let separated = separate_tabs(text);
            let refused = separated.problem.is_some() || parse_all(&separated.text).is_err();
            assert!(refused, "{text:?}");
        }
    }

    #[test]
    fn explicit_tags_follow_yaml_1_2() {
        assert_eq!(
            name_of("name: !<tag:yaml.org,2002:str> 2024\n"),
            string("2024")
        );
        assert_eq!(name_of("name: ! 2024\n"), string("2024"));
        assert_eq!(name_of("name: !!str 2024\n"), string("2024"));
        assert_eq!(
            name_of("name: !!int \"5\"\n"),
            Some(Yaml::Value(Scalar::Integer(5)))
        );
        assert_eq!(name_of("name: !!int five\n"), Some(Yaml::BadValue));
    }
}
