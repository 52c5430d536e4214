//! The manifest rules: `manifest.json`'s members, checked as the spec's example and prose
//! describe them, and the facts later checks need (entry points, role, personalities,
//! boundaries, sources).

use std::collections::HashSet;

use crate::diagnostic::rules::compose_bundle as rule;
use crate::diagnostic::Span;
use crate::json::walk::Walker;
use crate::json::Node;
use crate::text;
use crate::Profile;

use super::{is_control, is_safe_segment, strings, Object};

const ROOT_FIELDS: &[&str] = &[
    "format",
    "role",
    "role_skill",
    "role_skill_source",
    "role_skill_digest",
    "model_tier",
    "personalities",
    "boundaries",
    "color",
    "sources",
    "content",
    "identity",
    "delivery",
];
const CONTENT_FIELDS: &[&str] = &["id", "digest"];
const IDENTITY_FIELDS: &[&str] = &["display_name"];
const DELIVERY_FIELDS: &[&str] = &[
    "mode",
    "instructions",
    "skills_root",
    "compiled_context",
    "voice_profile",
];

/// The model tiers (spec: "frontier, commodity, or oss compatibility lane").
pub(crate) const MODEL_TIERS: &[&str] = &["frontier", "commodity", "oss"];

/// The delivery modes: the spec's `native-skills` and the compiled mode's value, which
/// the spec does not spell (see `compose-bundle.delivery.mode`).
const NATIVE: &str = "native-skills";
const COMPILED: &str = "compiled";

/// What the entry point must be on disk.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Want {
    /// A regular file.
    File,
    /// A directory.
    Directory,
}

/// One entry point the manifest names, already known to be a safe relative path.
#[derive(Debug, Clone)]
pub(crate) struct EntryPoint {
    /// The delivery member naming it.
    pub(crate) field: &'static str,
    /// The relative path.
    pub(crate) path: String,
    /// Pointer of the member in the tree (`/manifest.json/delivery/instructions`).
    pub(crate) pointer: String,
    /// What it must be.
    pub(crate) want: Want,
    /// Whether it is the voice profile, whose content is checked too.
    pub(crate) voice_profile: bool,
}

/// The facts of a readable manifest that the tree and trace checks use; each holds only
/// values that passed their own checks.
#[derive(Debug, Clone, Default)]
pub(crate) struct Manifest {
    pub(crate) role: Option<String>,
    pub(crate) personalities: Vec<String>,
    pub(crate) boundaries: Vec<String>,
    pub(crate) sources: Vec<String>,
    pub(crate) entry_points: Vec<EntryPoint>,
}

/// Checks `manifest.json`; `None` when it cannot be read as a JSON object. The strict
/// profile adds the strict-only rules (string.control, color.legible,
/// identity.display-name).
pub(crate) fn check(walker: &mut Walker<'_>, profile: Profile) -> Option<Manifest> {
    let document = walker.read()?;
    let root = &document.root;
    if root.as_object().is_none() {
        // compose-bundle.manifest.present (the manifest is a JSON object).
        walker.at(
            rule::MANIFEST_PRESENT,
            "",
            root.span,
            format!("the manifest is {}, not a JSON object", root.value.kind()),
        );
        return None;
    }
    let object = Object {
        node: root,
        pointer: String::new(),
    };
    let mut checker = Checker {
        walker,
        manifest: Manifest::default(),
        strict: profile == Profile::Strict,
    };
    checker.root(&object);
    Some(checker.manifest)
}

struct Checker<'w, 's> {
    walker: &'w mut Walker<'s>,
    manifest: Manifest,
    /// Whether the strict-only rules apply.
    strict: bool,
}

impl Checker<'_, '_> {
    fn at(&mut self, rule: crate::diagnostic::RuleId, pointer: &str, span: Span, message: String) {
        self.walker.at(rule, pointer, span, message);
    }

    fn root(&mut self, root: &Object<'_, '_>) {
        root.key_case(self.walker, ROOT_FIELDS, self.strict);

        // compose-bundle.format.marker (spec: "format is a plain marker").
        match root.get("format") {
            Some(node) if node.as_str() == Some("agent-compose.bundle") => {}
            Some(node) => self.at(
                rule::FORMAT_MARKER,
                "/format",
                node.span,
                "format must be the string \"agent-compose.bundle\"".to_owned(),
            ),
            None => self.at(
                rule::FORMAT_MARKER,
                "/format",
                root.node.span,
                "format is missing; it must be \"agent-compose.bundle\"".to_owned(),
            ),
        }

        let role = root.required_str(self.walker, "role");
        let role = role.filter(|role| self.name(role, "/role", field_span(root, "role")));
        self.manifest.role = role.map(str::to_owned);

        if let Some(role_skill) = root.required_str(self.walker, "role_skill") {
            let span = field_span(root, "role_skill");
            // compose-bundle.role-skill.binding (decision: the public naming `role-<role>`).
            if self.name(role_skill, "/role_skill", span) {
                if let Some(role) = role {
                    if role_skill.strip_prefix("role-") != Some(role) {
                        self.at(
                            rule::ROLE_SKILL_BINDING,
                            "/role_skill",
                            span,
                            format!("role_skill must be \"role-{role}\", the role's own skill"),
                        );
                    }
                }
            }
        }
        if let Some(source) = root.required_str(self.walker, "role_skill_source") {
            let span = field_span(root, "role_skill_source");
            if self.name(source, "/role_skill_source", span) {
                self.stable_id(source, "/role_skill_source", span);
            }
        }
        if let Some(digest) = root.required_str(self.walker, "role_skill_digest") {
            self.digest(
                digest,
                "/role_skill_digest",
                field_span(root, "role_skill_digest"),
            );
        }

        // compose-bundle.model-tier.value (spec: "frontier, commodity, or oss"; a manifest
        // from before the field is read as frontier). model_class is never looked at
        // (compose-bundle.model-class.ignored).
        if let Some(tier) = root.optional_str(self.walker, "model_tier") {
            if !MODEL_TIERS.contains(&tier) {
                self.at(
                    rule::MODEL_TIER_VALUE,
                    "/model_tier",
                    field_span(root, "model_tier"),
                    format!("model_tier {tier:?} is not \"frontier\", \"commodity\" or \"oss\""),
                );
            }
        }

        self.personalities(root);
        if let Some(node) = root.get("boundaries") {
            if let Some(items) = strings(self.walker, node, "/boundaries") {
                for item in items {
                    if self.name(item.text, &item.pointer, item.span) {
                        self.manifest.boundaries.push(item.text.to_owned());
                    }
                }
            }
        }
        if let Some(color) = root.required_str(self.walker, "color") {
            self.color(color, field_span(root, "color"));
        }
        self.sources(root);
        self.content(root);
        self.identity(root);
        self.delivery(root);
    }

    /// compose-bundle.string.value (spec: a name or id names something, so it is not
    /// empty) and, in the strict profile, compose-bundle.string.blank (it has visible
    /// content) and compose-bundle.string.control (no control characters). Returns whether
    /// the value is usable.
    fn name(&mut self, value: &str, pointer: &str, span: Span) -> bool {
        if value.is_empty() {
            self.at(
                rule::STRING_VALUE,
                pointer,
                span,
                "the value is empty".to_owned(),
            );
            return false;
        }
        // compose-bundle.string.blank (strict profile only): "nonempty" read as non-blank.
        if self.strict && !text::has_visible_content(value) {
            self.at(
                rule::STRING_BLANK,
                pointer,
                span,
                "the value has no visible content (whitespace or invisible characters only)"
                    .to_owned(),
            );
            return false;
        }
        self.control(value, pointer, span)
    }

    /// compose-bundle.string.control, strict profile only. Returns whether the value is
    /// free of control characters (always true in the spec profile).
    fn control(&mut self, value: &str, pointer: &str, span: Span) -> bool {
        if !self.strict || !value.chars().any(is_control) {
            return true;
        }
        self.at(
            rule::STRING_CONTROL,
            pointer,
            span,
            "the value holds a control character".to_owned(),
        );
        false
    }

    /// compose-bundle.id.locator (spec: "Locators and absolute paths never appear"), and in
    /// the strict profile compose-bundle.id.path-like.
    fn stable_id(&mut self, id: &str, pointer: &str, span: Span) {
        if is_locator(id) {
            self.at(
                rule::ID_LOCATOR,
                pointer,
                span,
                format!("{id:?} is a locator or filesystem path, not a stable id"),
            );
        } else if self.strict && is_path_like(id) {
            self.at(
                rule::ID_PATH_LIKE,
                pointer,
                span,
                format!("{id:?} has a form a path has (a `/`, `\\` or drive prefix); a stable id avoids it"),
            );
        }
    }

    /// compose-bundle.digest.syntax (spec: SHA-256 digests; decision: `sha256:` + 64
    /// lowercase hex digits).
    fn digest(&mut self, digest: &str, pointer: &str, span: Span) {
        let hex = digest
            .strip_prefix("sha256:")
            .filter(|hex| hex.len() == 64 && hex.bytes().all(|b| b.is_ascii_hexdigit()));
        match hex {
            None => self.at(
                rule::DIGEST_SYNTAX,
                pointer,
                span,
                "a digest is \"sha256:\" followed by 64 hexadecimal digits".to_owned(),
            ),
            // compose-bundle.digest.lowercase (strict profile only): equal digests are
            // equal strings.
            Some(hex) if self.strict && hex.bytes().any(|b| b.is_ascii_uppercase()) => self.at(
                rule::DIGEST_LOWERCASE,
                pointer,
                span,
                "write a digest's hexadecimal digits in lowercase".to_owned(),
            ),
            Some(_) => {}
        }
    }

    /// compose-bundle.personalities.list (spec: "personalities preserves the role's
    /// declaration order"; agent-compose: at least one, distinct, safe segments).
    fn personalities(&mut self, root: &Object<'_, '_>) {
        let Some(node) = root.required(self.walker, "personalities") else {
            return;
        };
        let Some(items) = strings(self.walker, node, "/personalities") else {
            return;
        };
        if node.as_array().is_some_and(<[Node<'_>]>::is_empty) {
            self.at(
                rule::PERSONALITIES_LIST,
                "/personalities",
                node.span,
                "a seat has at least one personality".to_owned(),
            );
        }
        for item in items {
            if !self.name(item.text, &item.pointer, item.span) {
                continue;
            }
            if self
                .manifest
                .personalities
                .iter()
                .any(|seen| seen == item.text)
            {
                self.at(
                    rule::PERSONALITIES_LIST,
                    &item.pointer,
                    item.span,
                    format!("personality {:?} is listed twice", item.text),
                );
                continue;
            }
            if !is_safe_segment(item.text) {
                self.at(
                    rule::PERSONALITIES_LIST,
                    &item.pointer,
                    item.span,
                    format!("personality {:?} is not a safe name", item.text),
                );
            }
            self.manifest.personalities.push(item.text.to_owned());
        }
    }

    /// compose-bundle.color.format and, in the strict profile, compose-bundle.color.legible.
    fn color(&mut self, color: &str, span: Span) {
        let Some(rgb) = parse_hex_color(color) else {
            self.at(
                rule::COLOR_FORMAT,
                "/color",
                span,
                format!("color {color:?} is not six hexadecimal digits after an optional \"#\""),
            );
            return;
        };
        if !self.strict {
            return;
        }
        // compose-bundle.color.hash (strict profile only): agent-compose strips the `#` it
        // writes before parsing, so only the strict profile asks for it.
        if !color.starts_with('#') {
            self.at(
                rule::COLOR_HASH,
                "/color",
                span,
                format!("color {color:?} lacks the leading \"#\" agent-compose writes"),
            );
        }
        let lab = OkLab::from_srgb(rgb);
        let chroma = lab.a.hypot(lab.b);
        if !(0.60..=0.80).contains(&lab.l) || chroma < 0.05 {
            self.at(
                rule::COLOR_LEGIBLE,
                "/color",
                span,
                format!(
                    "color {color} has OKLab lightness {:.3} and chroma {:.3}; the legible band is lightness 0.60 to 0.80 with chroma at least 0.05",
                    lab.l, chroma
                ),
            );
        }
    }

    /// compose-bundle.sources.list and compose-bundle.id.locator.
    fn sources(&mut self, root: &Object<'_, '_>) {
        let Some(node) = root.required(self.walker, "sources") else {
            return;
        };
        let Some(items) = strings(self.walker, node, "/sources") else {
            return;
        };
        if node.as_array().is_some_and(<[Node<'_>]>::is_empty) {
            self.at(
                rule::SOURCES_LIST,
                "/sources",
                node.span,
                "sources names no source; content always comes from one".to_owned(),
            );
        }
        for item in items {
            if !self.name(item.text, &item.pointer, item.span) {
                continue;
            }
            if self.manifest.sources.iter().any(|seen| seen == item.text) {
                // compose-bundle.sources.distinct (strict profile only): the spec does not
                // forbid a repeated source, and agent-compose accepts one.
                if self.strict {
                    self.at(
                        rule::SOURCES_DISTINCT,
                        &item.pointer,
                        item.span,
                        format!("source {:?} is listed twice", item.text),
                    );
                }
                continue;
            }
            self.stable_id(item.text, &item.pointer, item.span);
            self.manifest.sources.push(item.text.to_owned());
        }
    }

    /// compose-bundle.content.list, .content.unique, .digest.syntax, .id.locator.
    fn content(&mut self, root: &Object<'_, '_>) {
        let Some(node) = root.required(self.walker, "content") else {
            return;
        };
        let Some(items) = node.as_array() else {
            self.walker
                .type_error(node, "/content", "an array of objects");
            return;
        };
        if items.is_empty() {
            self.at(
                rule::CONTENT_LIST,
                "/content",
                node.span,
                "content records no logical content; it always holds the role skill".to_owned(),
            );
        }
        // Ids met so far; a set, so a manifest of many content entries stays linear.
        let mut ids: HashSet<&str> = HashSet::new();
        for (index, item) in items.iter().enumerate() {
            let Some(entry) = Object::new(self.walker, item, format!("/content/{index}")) else {
                continue;
            };
            entry.key_case(self.walker, CONTENT_FIELDS, self.strict);
            if let Some(id) = entry.required_str(self.walker, "id") {
                let pointer = entry.member_pointer("id");
                let span = field_span(&entry, "id");
                if self.name(id, &pointer, span) {
                    if ids.contains(id) {
                        // compose-bundle.content.unique (spec: "unique logical content IDs").
                        self.at(
                            rule::CONTENT_UNIQUE,
                            &pointer,
                            span,
                            format!("content id {id:?} is used twice"),
                        );
                    } else {
                        ids.insert(id);
                    }
                    self.stable_id(id, &pointer, span);
                }
            }
            if let Some(digest) = entry.required_str(self.walker, "digest") {
                self.digest(
                    digest,
                    &entry.member_pointer("digest"),
                    field_span(&entry, "digest"),
                );
            }
        }
    }

    /// compose-bundle.identity.display-name (strict profile only: the spec's example has
    /// no identity) and the types of identity and its display_name (field.type).
    fn identity(&mut self, root: &Object<'_, '_>) {
        let pointer = "/identity/display_name";
        let Some(node) = root.get("identity") else {
            if self.strict {
                self.at(
                    rule::IDENTITY_DISPLAY_NAME,
                    pointer,
                    root.node.span,
                    "the manifest has no identity.display_name; it carries the role title"
                        .to_owned(),
                );
            }
            return;
        };
        let Some(identity) = Object::new(self.walker, node, "/identity".to_owned()) else {
            return;
        };
        identity.key_case(self.walker, IDENTITY_FIELDS, self.strict);
        match identity.get("display_name") {
            None if self.strict => self.at(
                rule::IDENTITY_DISPLAY_NAME,
                pointer,
                node.span,
                "identity.display_name is missing; it carries the role title".to_owned(),
            ),
            None => {}
            Some(name) => {
                let Some(text) = self.walker.string(name, pointer) else {
                    return;
                };
                if !text::has_visible_content(text) {
                    if self.strict {
                        self.at(
                            rule::IDENTITY_DISPLAY_NAME,
                            pointer,
                            name.span,
                            "identity.display_name is empty".to_owned(),
                        );
                    }
                } else {
                    self.control(text, pointer, name.span);
                }
            }
        }
    }

    /// compose-bundle.delivery.mode, .delivery.complete and .entry.safe-path; the
    /// entry points that are safe are kept for the tree checks.
    fn delivery(&mut self, root: &Object<'_, '_>) {
        let Some(node) = root.required(self.walker, "delivery") else {
            return;
        };
        let Some(delivery) = Object::new(self.walker, node, "/delivery".to_owned()) else {
            return;
        };
        delivery.key_case(self.walker, DELIVERY_FIELDS, self.strict);
        let mode = delivery.required_str(self.walker, "mode");
        if let Some(mode) = mode {
            if mode != NATIVE && mode != COMPILED {
                self.at(
                    rule::DELIVERY_MODE,
                    "/delivery/mode",
                    field_span(&delivery, "mode"),
                    format!("delivery mode {mode:?} is neither \"native-skills\" nor \"compiled\""),
                );
            }
        }
        let (needed, excluded): (&[&str], &[&str]) = match mode {
            Some(NATIVE) => (&["instructions", "skills_root"], &["compiled_context"]),
            Some(COMPILED) => (&["instructions", "compiled_context"], &["skills_root"]),
            _ => (&["instructions"], &[]),
        };
        for field in needed {
            if delivery.get(field).is_none() {
                self.at(
                    rule::DELIVERY_COMPLETE,
                    &format!("/delivery/{field}"),
                    node.span,
                    format!("a {} bundle names {field}", mode.unwrap_or("delivered")),
                );
            }
        }
        for field in excluded {
            if delivery.get(field).is_some() {
                self.at(
                    rule::DELIVERY_COMPLETE,
                    &format!("/delivery/{field}"),
                    field_span(&delivery, field),
                    format!(
                        "a {} bundle does not name {field}",
                        mode.unwrap_or_default()
                    ),
                );
            }
        }
        let entry_points = [
            ("instructions", Want::File),
            ("skills_root", Want::Directory),
            ("compiled_context", Want::File),
            ("voice_profile", Want::File),
        ];
        for (field, want) in entry_points {
            let Some(path) = delivery.optional_str(self.walker, field) else {
                continue;
            };
            let pointer = format!("/delivery/{field}");
            // compose-bundle.entry.safe-path (spec: "safe relative entry points").
            if !is_safe_entry_path(path) {
                self.at(
                    rule::ENTRY_SAFE_PATH,
                    &pointer,
                    field_span(&delivery, field),
                    format!("entry point {path:?} is not a safe relative path inside the bundle"),
                );
                continue;
            }
            self.manifest.entry_points.push(EntryPoint {
                field,
                path: path.to_owned(),
                pointer: self.walker.pointer(&pointer),
                want,
                voice_profile: field == "voice_profile",
            });
        }
    }
}

/// The span of member `key`'s value (the object's own span when it is absent).
fn field_span(object: &Object<'_, '_>, key: &str) -> Span {
    object.get(key).map_or(object.node.span, |node| node.span)
}

/// Whether an id is a locator or a filesystem path (see `compose-bundle.id.locator`).
pub(crate) fn is_locator(id: &str) -> bool {
    let bytes = id.as_bytes();
    let drive_path = has_drive_prefix(id) && matches!(bytes.get(2), Some(b'/' | b'\\'));
    id.contains("://")
        || id.starts_with(['/', '\\', '~'])
        || drive_path
        || id
            .split(['/', '\\'])
            .any(|segment| segment == "." || segment == "..")
        || is_scp_style(id)
}

/// `user@host:path`, git's scp-style locator: a user, `@`, a host and `:` before any `/`.
fn is_scp_style(id: &str) -> bool {
    let Some((user, rest)) = id.split_once('@') else {
        return false;
    };
    let Some((host, _)) = rest.split_once(':') else {
        return false;
    };
    let plain = |part: &str| !part.is_empty() && !part.contains(['/', '\\', ':', '@']);
    plain(user) && plain(host)
}

/// Whether an id has a form a path may have too, though an id may hold it: a `/` or `\`
/// (`team/core:x`, `content/skills/x/SKILL.md`) or a drive prefix (`C:`, `c:r`). Refused in
/// the strict profile only (compose-bundle.id.path-like).
pub(crate) fn is_path_like(id: &str) -> bool {
    id.contains(['/', '\\']) || has_drive_prefix(id)
}

/// `C:` and the like at the start of a string.
fn has_drive_prefix(text: &str) -> bool {
    let bytes = text.as_bytes();
    bytes.len() >= 2 && bytes[0].is_ascii_alphabetic() && bytes[1] == b':'
}

/// Whether an entry point is a safe relative path (see `compose-bundle.entry.safe-path`).
pub(crate) fn is_safe_entry_path(path: &str) -> bool {
    !path.is_empty()
        && !path.starts_with('/')
        && !path.contains('\\')
        && !path.chars().any(is_control)
        && !has_drive_prefix(path)
        && path
            .split('/')
            .all(|segment| !segment.is_empty() && segment != "." && segment != "..")
}

/// `#rrggbb` or `rrggbb` (either letter case) as red, green and blue: agent-compose strips
/// one leading `#` before parsing.
fn parse_hex_color(color: &str) -> Option<[u8; 3]> {
    let hex = color.strip_prefix('#').unwrap_or(color);
    if hex.len() != 6 || !hex.bytes().all(|b| b.is_ascii_hexdigit()) {
        return None;
    }
    let channel = |at: usize| u8::from_str_radix(&hex[at..at + 2], 16).ok();
    Some([channel(0)?, channel(2)?, channel(4)?])
}

/// A color in Björn Ottosson's OKLab space.
struct OkLab {
    l: f64,
    a: f64,
    b: f64,
}

impl OkLab {
    /// Converts an sRGB color: linearise each channel (the sRGB transfer function), then
    /// apply OKLab's published matrices around a cube root.
    fn from_srgb(rgb: [u8; 3]) -> OkLab {
        let linear = |channel: u8| {
            let c = f64::from(channel) / 255.0;
            if c <= 0.04045 {
                c / 12.92
            } else {
                ((c + 0.055) / 1.055).powf(2.4)
            }
        };
        let [r, g, b] = rgb.map(linear);
        let l = (0.412_221_470_8 * r + 0.536_332_536_3 * g + 0.051_445_992_9 * b).cbrt();
        let m = (0.211_903_498_2 * r + 0.680_699_545_1 * g + 0.107_396_956_6 * b).cbrt();
        let s = (0.088_302_461_9 * r + 0.281_718_837_6 * g + 0.629_978_700_5 * b).cbrt();
        OkLab {
            l: 0.210_454_255_3 * l + 0.793_617_785_0 * m - 0.004_072_046_8 * s,
            a: 1.977_998_495_1 * l - 2.428_592_205_0 * m + 0.450_593_709_9 * s,
            b: 0.025_904_037_1 * l + 0.782_771_766_2 * m - 0.808_675_766_0 * s,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn entry_paths_and_locators() {
        for good in ["content/instructions.md", "a", "a/b/c.md", "a b/c"] {
            assert!(is_safe_entry_path(good), "{good}");
        }
        for bad in [
            "",
            "/etc/passwd",
            "../x",
            "a/../b",
            "a//b",
            "./a",
            "a/",
            "C:x",
            "a\\b",
            "a\u{0}b",
        ] {
            assert!(!is_safe_entry_path(bad), "{bad:?}");
        }
        for locator in [
            "/abs",
            "https://x.example/y",
            "../r",
            "a/../b",
            "~/r",
            "~",
            "C:\\r",
            "c:/r",
            ".",
            "git@example.com:rosters/core",
        ] {
            assert!(is_locator(locator), "{locator}");
        }
        for id in [
            "roster:core",
            "aos-public",
            "roster:core:role:platform:identity",
        ] {
            assert!(!is_locator(id) && !is_path_like(id), "{id}");
        }
        // Ids a path may look like too: refused in the strict profile only.
        for both in [
            "team/core:x",
            "content/skills/x/SKILL.md",
            "C:",
            "c:r",
            "a\\b",
        ] {
            assert!(!is_locator(both) && is_path_like(both), "{both}");
        }
    }

    #[test]
    fn oklab_of_known_colors() {
        let white = OkLab::from_srgb([255, 255, 255]);
        assert!((white.l - 1.0).abs() < 1e-3 && white.a.abs() < 1e-3);
        let example = OkLab::from_srgb(parse_hex_color("#90a66a").unwrap());
        assert!((0.60..=0.80).contains(&example.l), "{}", example.l);
        assert!(example.a.hypot(example.b) >= 0.05);
        assert!(parse_hex_color("#90A66A").is_some());
        assert!(parse_hex_color("#90a66").is_none());
        assert!(parse_hex_color("#+0a66a").is_none());
    }
}
