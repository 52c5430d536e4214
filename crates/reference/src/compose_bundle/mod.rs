//! agent-compose bundles ("agent-compose: Bundle manifest schema" in SPECS.md): a
//! directory tree holding `manifest.json`, the decision trace `trace.json`, the delivery entry points and
//! one identity tree per selected skill; plus the bundle fingerprint, the voice-profile
//! construction and the `whoami --json` record as operations of their own.
//!
//! The verifier is a consumer-protection boundary, so it never trusts the tree:
//! - it walks the tree without following any symlink (`symlink_metadata`, directory
//!   entries' own types), and resolves entry points one real directory at a time;
//! - an entry point is checked for safety as a string before the filesystem is touched;
//! - it reads only `manifest.json`, `trace.json` and the named voice profile, each only
//!   when it is a regular file, opened without following a final symlink and without
//!   blocking, and each at most [`MAX_JSON_BYTES`];
//! - it never writes anything.
//!
//! Diagnostics of a bundle are located by a JSON pointer over the tree (see the header
//! of `cases/compose-bundle/rules.toml`): `/content/x` is a tree entry and
//! `/manifest.json/role` a member of the manifest.

mod fingerprint;
mod fs;
mod manifest;
mod trace;
mod voice;

use std::path::Path;

use crate::diagnostic::rules::compose_bundle as rule;
use crate::diagnostic::{Diagnostic, Format, Location, Report, RuleId, Severity, Span};
use crate::json::walk::{JsonRules, Walker};
use crate::json::{self, pointer_join, Limits, Node, ReadRules};
use crate::{Context, Input, Profile, Unsupported};

pub use fingerprint::{fingerprint, whoami};
pub use voice::voice_profile;

/// Largest JSON file (or operation input) read, in bytes; see `compose-bundle.json.size`.
pub const MAX_JSON_BYTES: usize = 1024 * 1024;

/// Nesting bound of the JSON reader; see `compose-bundle.json.depth`.
pub const MAX_DEPTH: usize = 64;

const LIMITS: Limits = Limits {
    max_bytes: MAX_JSON_BYTES,
    max_depth: MAX_DEPTH,
};

/// The JSON layer of every bundle file and operation input: compose-bundle.json.size
/// (decision: every read is bounded at 1 MiB), compose-bundle.json.bom, .encoding, .depth
/// and .syntax (trailing data a syntax error), compose-bundle.json.surrogate (strict only:
/// the spec profile reads an unpaired surrogate escape as U+FFFD, as Go does), compose-bundle.json.duplicate-key (decision: a repeated key means
/// different things to different readers), compose-bundle.field.type and
/// compose-bundle.field.required (spec: the manifest example's members and their types).
/// Bundle objects are open: extra members are not reported, only those that differ from
/// a defined member in letter case ([`Object::key_case`]).
static JSON_RULES: JsonRules = JsonRules {
    limits: LIMITS,
    read: ReadRules {
        size: rule::JSON_SIZE,
        bom: rule::JSON_BOM,
        utf8: rule::JSON_ENCODING,
        surrogate: rule::JSON_SURROGATE,
        depth: rule::JSON_DEPTH,
        trailing: rule::JSON_SYNTAX,
        syntax: rule::JSON_SYNTAX,
    },
    duplicate: rule::JSON_DUPLICATE_KEY,
    field_type: rule::FIELD_TYPE,
    required: rule::FIELD_REQUIRED,
    unknown: None,
    // The publisher reads with Go's encoding/json, which reads `null` as absent.
    null_as_absent: true,
};

/// A walker for an operation's input document, located by pointers into it.
pub(crate) fn document_walker<'s>(source: &'s [u8], context: &Context) -> Walker<'s> {
    Walker::new(
        source,
        &JSON_RULES,
        Format::ComposeBundle,
        crate::profile(context),
    )
}

/// Verifies a bundle (`compose-bundle`, operation `validate`): a directory tree; a
/// document is refused. The context's profile says whether the catalogue's strict-only
/// rules (`strict = true`) apply.
pub fn validate(input: Input<'_>, context: &Context) -> Result<Report, Unsupported> {
    Ok(check_tree(
        input.tree_root(Format::ComposeBundle, "validate")?,
        crate::profile(context),
    ))
}

/// Verifies the bundle rooted at `root`.
fn check_tree(root: &Path, profile: Profile) -> Report {
    let mut sink = Sink::new(profile);
    match std::fs::metadata(root) {
        Ok(metadata) if metadata.is_dir() => {}
        _ => {
            // compose-bundle.manifest.present (spec: a bundle is a directory whose
            // manifest.json names what was composed).
            sink.at(
                rule::MANIFEST_PRESENT,
                String::new(),
                format!("{} is not a directory", root.display()),
            );
            return sink.report;
        }
    }
    // A tree too large to walk is checked no further (compose-bundle.report.truncated).
    if fs::walk(root, &mut sink).is_break() {
        return sink.report;
    }
    let manifest =
        match fs::read_json_file(root, "manifest.json", rule::MANIFEST_PRESENT, &mut sink) {
            Some(bytes) => sink.file("/manifest.json", &bytes, |walker| {
                manifest::check(walker, profile)
            }),
            None => None,
        };
    if let Some(manifest) = &manifest {
        fs::entry_points(root, manifest, &mut sink);
    }
    let selected = match fs::read_json_file(root, "trace.json", rule::TRACE_PRESENT, &mut sink) {
        Some(bytes) => sink.file("/trace.json", &bytes, |walker| {
            trace::check(walker, manifest.as_ref(), profile)
        }),
        None => Vec::new(),
    };
    fs::identity_trees(root, &selected, &mut sink);
    sink.report
}

/// Whether a directory is a bundle to check. A bundle is told by its manifest's marker. A
/// manifest.json without the marker (or one that is not even a regular file) still makes
/// the directory a bundle to check, unless a SKILL.md says it is a skill package shipping
/// a manifest of its own.
pub fn is_bundle_directory(dir: &Path) -> bool {
    let has_manifest = std::fs::symlink_metadata(dir.join("manifest.json")).is_ok();
    let has_skill = dir.join("SKILL.md").is_file();
    holds_bundle_marker(dir) || (has_manifest && !has_skill)
}

/// Whether `root/manifest.json` is a regular file holding a JSON object whose format is
/// the bundle marker; read like every other bundle file (no symlink, bounded).
pub fn holds_bundle_marker(root: &Path) -> bool {
    let path = root.join("manifest.json");
    let regular = std::fs::symlink_metadata(&path).is_ok_and(|metadata| metadata.is_file());
    let Some(bytes) = regular.then(|| fs::read_regular(&path).ok()).flatten() else {
        return false;
    };
    json::read(&bytes, LIMITS).is_ok_and(|document| {
        document
            .root
            .get("format")
            .and_then(|member| member.value.as_str())
            == Some("agent-compose.bundle")
    })
}

/// Collects the diagnostics of a tree. They point into several files, so none carries a
/// span: no single source can be underlined.
pub(crate) struct Sink {
    report: Report,
    profile: Profile,
}

impl Sink {
    pub(crate) fn new(profile: Profile) -> Sink {
        Sink {
            report: Report::new(Format::ComposeBundle),
            profile,
        }
    }

    /// Whether the strict-only rules apply.
    pub(crate) fn strict(&self) -> bool {
        self.profile == Profile::Strict
    }

    /// Reports `rule` at `pointer`, a pointer over the tree.
    pub(crate) fn at(&mut self, rule: RuleId, pointer: String, message: impl Into<String>) {
        let location = Location {
            pointer: Some(pointer),
            position: None,
            span: None,
        };
        self.report.push(Diagnostic::new(rule, location, message));
    }

    /// Reports `rule` at `pointer` as an error whatever the rule's default severity.
    pub(crate) fn error(&mut self, rule: RuleId, pointer: String, message: impl Into<String>) {
        let location = Location {
            pointer: Some(pointer),
            position: None,
            span: None,
        };
        self.report
            .push(Diagnostic::new(rule, location, message).with_severity(Severity::Error));
    }

    /// Reports `rule` at the pointer and with the message `build` makes, calling it only
    /// when the report has room (a tree walk's pointers can be long).
    pub(crate) fn lazily(&mut self, rule: RuleId, build: impl FnOnce() -> (String, String)) {
        self.report.add(rule, || {
            let (pointer, message) = build();
            let location = Location {
                pointer: Some(pointer),
                position: None,
                span: None,
            };
            (location, message)
        });
    }

    /// Checks the JSON file at `prefix` in the tree (`/manifest.json`) with `check`, whose
    /// walker locates every diagnostic in the tree; they join the tree's report in order.
    pub(crate) fn file<T>(
        &mut self,
        prefix: &str,
        source: &[u8],
        check: impl FnOnce(&mut Walker<'_>) -> T,
    ) -> T {
        let mut walker = Walker::in_tree(
            source,
            &JSON_RULES,
            Format::ComposeBundle,
            prefix,
            self.profile,
        );
        let result = check(&mut walker);
        self.report.absorb(&mut walker.report);
        result
    }
}

/// Member access with the checks every object of the format shares.
pub(crate) struct Object<'n, 'a> {
    pub(crate) node: &'n Node<'a>,
    /// Pointer of the object inside its document.
    pub(crate) pointer: String,
}

impl<'n, 'a> Object<'n, 'a> {
    /// The object at `node`, or a `compose-bundle.field.type` diagnostic.
    pub(crate) fn new(
        walker: &mut Walker<'_>,
        node: &'n Node<'a>,
        pointer: String,
    ) -> Option<Object<'n, 'a>> {
        walker.object(node, &pointer)?;
        Some(Object { node, pointer })
    }

    /// compose-bundle.json.key-case (strict profile only): members that differ from a
    /// defined member only in ASCII case. Go's decoder (agent-compose's) binds them to
    /// that member while an exact reader ignores them as unknown members of an open
    /// manifest, so the spec profile leaves them alone and the strict one refuses them.
    pub(crate) fn key_case(&self, walker: &mut Walker<'_>, defined: &[&str], strict: bool) {
        if !strict {
            return;
        }
        for member in self.node.as_object().unwrap_or_default() {
            let key: &str = &member.key;
            if let Some(name) = defined
                .iter()
                .find(|name| **name != key && name.eq_ignore_ascii_case(key))
            {
                walker.at(
                    rule::JSON_KEY_CASE,
                    &pointer_join(&self.pointer, key),
                    member.key_span,
                    format!("member {key:?} differs from {name:?} only in letter case; Go readers take it for {name:?}"),
                );
            }
        }
    }

    /// The member `key`, if present.
    pub(crate) fn get(&self, key: &str) -> Option<&'n Node<'a>> {
        self.node.get(key).map(|member| &member.value)
    }

    /// The member Go's decoder binds to the field `key` (agent-compose's reader): a key
    /// equal to it ignoring ASCII case, the last one when several are, since each
    /// overwrites the field. With the pointer of the member actually bound.
    pub(crate) fn bound(&self, key: &str) -> Option<(String, &'n Node<'a>)> {
        let members = self.node.as_object()?;
        let member = members
            .iter()
            .rev()
            .find(|member| member.key.eq_ignore_ascii_case(key))?;
        Some((pointer_join(&self.pointer, &member.key), &member.value))
    }

    /// A string field as Go's decoder fills it: the bound member's text ([`Object::bound`]),
    /// empty when no member binds; `None`, with a type error, for another JSON type.
    pub(crate) fn go_string(&self, walker: &mut Walker<'_>, key: &str) -> Option<String> {
        match self.bound(key) {
            None => Some(String::new()),
            Some((pointer, node)) => walker.string(node, &pointer).map(str::to_owned),
        }
    }

    /// The pointer of member `key` inside the document.
    pub(crate) fn member_pointer(&self, key: &str) -> String {
        pointer_join(&self.pointer, key)
    }

    /// The member `key`, or a `compose-bundle.field.required` diagnostic (spec: the
    /// manifest example's members).
    pub(crate) fn required(&self, walker: &mut Walker<'_>, key: &str) -> Option<&'n Node<'a>> {
        walker.required(self.node, &self.pointer, key)
    }

    /// A required string member; a missing member or a wrong type is reported.
    pub(crate) fn required_str(&self, walker: &mut Walker<'_>, key: &str) -> Option<&'n str> {
        walker
            .required_string(self.node, &self.pointer, key)
            .map(|member| member.text)
    }

    /// An optional string member; a wrong type is reported.
    pub(crate) fn optional_str(&self, walker: &mut Walker<'_>, key: &str) -> Option<&'n str> {
        walker
            .optional_string(self.node, &self.pointer, key)
            .map(|member| member.text)
    }
}

/// compose-bundle.field.type for arrays of strings: the strings with their pointers,
/// each wrong item reported.
pub(crate) fn strings<'n>(
    walker: &mut Walker<'_>,
    node: &'n Node<'_>,
    pointer: &str,
) -> Option<Vec<Item<'n>>> {
    let Some(items) = node.as_array() else {
        walker.type_error(node, pointer, "an array of strings");
        return None;
    };
    let mut found = Vec::with_capacity(items.len());
    for (index, item) in items.iter().enumerate() {
        let item_pointer = format!("{pointer}/{index}");
        if let Some(text) = walker.string(item, &item_pointer) {
            found.push(Item {
                text,
                pointer: item_pointer,
                span: item.span,
            });
        }
    }
    Some(found)
}

/// A string item of an array, with where it is.
pub(crate) struct Item<'n> {
    pub(crate) text: &'n str,
    pub(crate) pointer: String,
    pub(crate) span: Span,
}

/// Control characters: C0, DEL and C1 (see `compose-bundle.string.control`).
pub(crate) fn is_control(c: char) -> bool {
    matches!(c, '\u{0}'..='\u{1F}' | '\u{7F}'..='\u{9F}')
}

/// Whether a name is a portable path segment (`compose-bundle.tree.portable-name`): a
/// safe segment without any control character (DEL and C1 included).
pub(crate) fn is_portable_segment(name: &str) -> bool {
    is_safe_segment(name) && !name.chars().any(is_control)
}

/// Whether a name is a safe path segment as agent-compose's verifier tests personalities
/// and skill names: not empty; no trailing dot or space (which also rules out `.` and
/// `..`); no `/`, `\`, character below U+0020 or any of `<>:"|?*`; not a Windows device
/// name with or without an extension.
pub(crate) fn is_safe_segment(name: &str) -> bool {
    if name.is_empty() || name.ends_with(['.', ' ']) {
        return false;
    }
    if name
        .chars()
        .any(|c| c < '\u{20}' || matches!(c, '/' | '\\' | '<' | '>' | ':' | '"' | '|' | '?' | '*'))
    {
        return false;
    }
    let base = name
        .split('.')
        .next()
        .unwrap_or_default()
        .to_ascii_uppercase();
    let device = matches!(base.as_str(), "CON" | "PRN" | "AUX" | "NUL")
        || ["COM", "LPT"].iter().any(|prefix| {
            base.strip_prefix(prefix).is_some_and(|digit| {
                matches!(digit, "1" | "2" | "3" | "4" | "5" | "6" | "7" | "8" | "9")
            })
        });
    !device
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Plants sentinels outside a hostile bundle (a decoy manifest that would make the
    /// bundle valid, a secret file, a FIFO that blocks whoever opens it for reading, a
    /// directory of decoy identity trees) and symlinks to each of them from every place
    /// the verifier reads or resolves. The verifier must finish (opening the FIFO would
    /// hang it), report the symlinks, and leave every sentinel as it was.
    #[cfg(all(unix, not(target_vendor = "apple")))]
    #[test]
    fn never_reads_or_writes_outside_the_bundle() {
        use std::os::unix::fs::symlink;
        use std::time::Duration;

        let outside = tempfile::tempdir().unwrap();
        let secret_token = "SENTINEL-7f3a";
        let decoy_manifest = r##"{"format": "agent-compose.bundle", "role": "r", "role_skill": "role-r",
            "role_skill_source": "s", "role_skill_digest": "sha256:0000000000000000000000000000000000000000000000000000000000000000",
            "personalities": ["p"], "color": "#90a66a", "identity": {"display_name": "R"},
            "sources": ["s"], "content": [{"id": "c", "digest": "sha256:0000000000000000000000000000000000000000000000000000000000000000"}],
            "delivery": {"mode": "native-skills", "instructions": "i.md", "skills_root": "skills"}}"##;
        let secret = outside.path().join("secret.md");
        std::fs::write(&secret, format!("{secret_token}\n")).unwrap();
        std::fs::write(outside.path().join("manifest.json"), decoy_manifest).unwrap();
        let fifo = outside.path().join("pipe");
        rustix::fs::mkfifoat(
            rustix::fs::CWD,
            &fifo,
            rustix::fs::Mode::from_raw_mode(0o600),
        )
        .unwrap();
        let decoy_trees = outside.path().join("skills/s/x");
        std::fs::create_dir_all(&decoy_trees).unwrap();
        std::fs::write(decoy_trees.join("SKILL.md"), secret_token).unwrap();
        let snapshot = |dir: &Path| {
            let mut entries: Vec<(String, u64, Option<std::time::SystemTime>)> = Vec::new();
            let mut stack = vec![dir.to_path_buf()];
            while let Some(dir) = stack.pop() {
                for entry in std::fs::read_dir(&dir).unwrap() {
                    let entry = entry.unwrap();
                    let metadata = std::fs::symlink_metadata(entry.path()).unwrap();
                    if metadata.is_dir() {
                        stack.push(entry.path());
                    }
                    entries.push((
                        entry.path().display().to_string(),
                        metadata.len(),
                        metadata.modified().ok(),
                    ));
                }
            }
            entries.sort();
            entries
        };
        let before = snapshot(outside.path());

        let bundles = tempfile::tempdir().unwrap();
        // Bundle one: a manifest of its own whose every entry point leads outside.
        let one = bundles.path().join("one");
        std::fs::create_dir_all(one.join("content")).unwrap();
        std::fs::write(
            one.join("manifest.json"),
            decoy_manifest.replace(
                r#""instructions": "i.md", "skills_root": "skills""#,
                r#""instructions": "content/instructions.md", "skills_root": "content/skills", "voice_profile": "content/voice.json""#,
            ),
        )
        .unwrap();
        symlink(&secret, one.join("content/instructions.md")).unwrap();
        symlink(outside.path().join("skills"), one.join("content/skills")).unwrap();
        symlink(&fifo, one.join("content/voice.json")).unwrap();
        symlink(&fifo, one.join("trace.json")).unwrap();
        symlink(outside.path(), one.join("content/everything")).unwrap();
        // Bundle two: manifest.json itself leads to the decoy, trace.json to the FIFO.
        let two = bundles.path().join("two");
        std::fs::create_dir_all(&two).unwrap();
        symlink(
            outside.path().join("manifest.json"),
            two.join("manifest.json"),
        )
        .unwrap();
        symlink(&fifo, two.join("trace.json")).unwrap();

        for bundle in [one, two] {
            let (sender, receiver) = std::sync::mpsc::channel();
            let root = bundle.clone();
            std::thread::spawn(move || sender.send(check_tree(&root, Profile::Strict)));
            let report = receiver
                .recv_timeout(Duration::from_secs(30))
                .expect("the verifier hung: it opened the FIFO outside the bundle");
            let rules: Vec<&str> = report.diagnostics.iter().map(|d| d.rule.id).collect();
            assert!(
                rules.contains(&"compose-bundle.tree.entry-kind"),
                "{rules:?}"
            );
            for diagnostic in &report.diagnostics {
                assert!(
                    !diagnostic.message.contains(secret_token),
                    "read outside: {diagnostic:?}"
                );
                let pointer = diagnostic.location.pointer.as_deref().unwrap_or_default();
                assert!(
                    !pointer.starts_with("/content/everything/")
                        && !pointer.starts_with("/content/skills/"),
                    "walked outside: {diagnostic:?}"
                );
            }
            if bundle.ends_with("two") {
                // Had the decoy manifest been read, the manifest would be present.
                assert!(
                    rules.contains(&"compose-bundle.manifest.present"),
                    "{rules:?}"
                );
            } else {
                for field in ["instructions", "skills_root", "voice_profile"] {
                    let pointer = format!("/manifest.json/delivery/{field}");
                    assert!(
                        report
                            .diagnostics
                            .iter()
                            .any(|d| d.rule.id == "compose-bundle.entry.kind"
                                && d.location.pointer.as_deref() == Some(pointer.as_str())),
                        "{field} was followed: {:?}",
                        report.diagnostics
                    );
                }
                assert!(rules.contains(&"compose-bundle.trace.present"), "{rules:?}");
            }
        }
        assert_eq!(
            before,
            snapshot(outside.path()),
            "something outside the bundle changed"
        );
        assert_eq!(
            std::fs::read_to_string(&secret).unwrap(),
            format!("{secret_token}\n")
        );
    }

    #[test]
    fn portable_segments() {
        for good in [
            "a",
            "SKILL.md",
            "roster%3Acore",
            "a b",
            "console",
            "COM10",
            "x.y.z",
        ] {
            assert!(is_portable_segment(good), "{good}");
        }
        for bad in [
            "", ".", "..", "a/b", "a\\b", "a:b", "a?", "x.", "x ", "CON", "nul.txt", "Lpt9.md",
            "a\u{1}b", "a\u{85}b",
        ] {
            assert!(!is_portable_segment(bad), "{bad:?}");
        }
        // agent-compose's safe segments allow DEL and C1 controls; portable ones do not.
        assert!(is_safe_segment("a\u{85}b") && is_safe_segment("a\u{7F}"));
        assert!(!is_safe_segment("a\u{1F}b"));
    }
}
