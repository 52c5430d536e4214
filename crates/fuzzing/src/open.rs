//! Open points in a document: the places where the spec's text admits more than one
//! verdict and the reference's answer is its reading (the corpus's implementation-defined
//! cases). A differential campaign must not call a validator that takes the other reading
//! wrong, and a shrink must not turn a definite question into an open one (a real title
//! cut down to an empty `# ` heading), so every generated document and every shrink
//! candidate is looked at here, whatever built it.
//!
//! [`open_points`] names, for one document, the rules whose verdict there rests on such a
//! reading. It is deliberately generous: a document it marks open only loses a finding,
//! while one it misses can turn a reading into a finding. It knows the open points the generators can reach and the ones a shrink can
//! make by deleting bytes; each is one of the corpus's implementation-defined cases,
//! named beside its check. A point it does not know is judged definite, so a new open
//! point a generator learns to reach belongs here with its case.

use serde_json::Value;
use soulcheck_reference::Format;

/// The rules whose verdict on `bytes` (a document of `format` named `file_name`, or for a
/// bundle its `manifest.json`) rests on a reading of an open point, each once.
pub fn open_points(format: Format, bytes: &[u8]) -> Vec<&'static str> {
    let mut open = Vec::new();
    match format {
        Format::SoulKit => soul_kit(bytes, &mut open),
        Format::SoulacyPackage => soulacy_package(bytes, &mut open),
        Format::SoulacySidecar => soulacy_sidecar(bytes, &mut open),
        Format::ComposeBundle => compose_bundle(bytes, &mut open),
        Format::SoulMd => soul_md(bytes, &mut open),
        Format::SkillPackage => skill_package(bytes, &mut open),
        _ => {}
    }
    open.sort_unstable();
    open.dedup();
    open
}

/// Characters whose visibility the spec leaves open: zero-width and format characters, the
/// Hangul fillers, the soft hyphen, bidi controls and combining marks (a string of only
/// these is `visible-zwsp-only`, `visible-feff-only`, `visible-hangul-filler-only`,
/// `visible-soft-hyphen-only`, `visible-word-joiner-only`, `visible-bidi-controls-only`,
/// `visible-combining-only`).
fn is_open_blank(c: char) -> bool {
    matches!(c,
        '\u{200B}'..='\u{200F}'
        | '\u{2060}'..='\u{2064}'
        | '\u{202A}'..='\u{202E}'
        | '\u{2066}'..='\u{2069}'
        | '\u{FEFF}'
        | '\u{AD}'
        | '\u{115F}' | '\u{1160}' | '\u{3164}' | '\u{FFA0}'
        | '\u{300}'..='\u{36F}'
        | '\u{1AB0}'..='\u{1AFF}'
        | '\u{1DC0}'..='\u{1DFF}'
        | '\u{20D0}'..='\u{20FF}'
        | '\u{FE20}'..='\u{FE2F}')
}

/// Every string value of a JSON value, with the key it is the value of (if any).
fn strings<'v>(value: &'v Value, key: Option<&'v str>, out: &mut Vec<(Option<&'v str>, &'v str)>) {
    match value {
        Value::String(text) => out.push((key, text)),
        Value::Array(items) => items.iter().for_each(|item| strings(item, key, out)),
        Value::Object(members) => {
            for (name, member) in members {
                strings(member, Some(name), out);
            }
        }
        _ => {}
    }
}

fn soul_kit(bytes: &[u8], open: &mut Vec<&'static str>) {
    let Ok(kit) = serde_json::from_slice::<Value>(bytes) else {
        return;
    };
    let mut all = Vec::new();
    strings(&kit, None, &mut all);
    for (key, text) in all {
        // A string of only open blanks, with perhaps whitespace around them.
        let mut chars = text.chars().filter(|c| !c.is_whitespace()).peekable();
        if chars.peek().is_some() && chars.all(is_open_blank) {
            open.push("soul-kit.string.visible");
        }
        // `id-non-ascii-letter`, `id-fullwidth-digit`; `version-arabic-indic`,
        // `version-fullwidth-digits`: characters outside ASCII that Unicode-aware pattern
        // engines count as letters or digits.
        if !text.is_ascii() {
            match key {
                Some("id") => open.push("soul-kit.id.pattern"),
                Some("version") => open.push("soul-kit.version.pattern"),
                _ => {}
            }
        }
        // `name-combining-81-codepoints`: combining marks make code points and
        // graphemes differ.
        if key == Some("name") && text.chars().any(is_open_blank) {
            open.push("soul-kit.name.length");
        }
    }
}

/// Members of an object, when it is one.
fn object(value: &Value) -> Option<&serde_json::Map<String, Value>> {
    value.as_object()
}

fn soulacy_package(bytes: &[u8], open: &mut Vec<&'static str>) {
    let Ok(package) = serde_json::from_slice::<Value>(bytes) else {
        return;
    };
    const REQUIRED: &str = "soulacy-package.field.required";
    let v2 = package["schema_version"].as_str() == Some("soulacy.agent.package/v2");
    let manifest = &package["manifest"];
    // `pkg-v2-missing-agent-id`.
    if v2 && object(manifest).is_some_and(|m| !m.contains_key("agent_id")) {
        open.push(REQUIRED);
    }
    // `pkg-file-missing-path`, `pkg-file-missing-sha256`; `pkg-file-bytes-negative`,
    // `-2-63`, `-2-64`: what Go's decoder makes of a missing or out-of-range member.
    for file in package["files"].as_array().into_iter().flatten() {
        if let Some(file) = object(file) {
            if !file.contains_key("path") || !file.contains_key("sha256") {
                open.push(REQUIRED);
            }
            if let Some(size) = file.get("bytes").filter(|b| b.is_number()) {
                if size.as_i64().is_none_or(|n| n < 0) {
                    open.push("soulacy-package.field.type");
                }
            }
        }
    }
    // `pkg-publisher-no-id`, `pkg-requires-entry-no-id`, `pkg-requires-secret-no-key`,
    // `pkg-legacy-secret-no-kind`.
    if object(&manifest["publisher"]).is_some_and(|p| !p.contains_key("id")) {
        open.push(REQUIRED);
    }
    if let Some(requires) = object(&manifest["requires"]) {
        for (name, entries) in requires {
            for entry in entries.as_array().into_iter().flatten().filter_map(object) {
                let key = if name == "secrets" { "key" } else { "id" };
                if !entry.contains_key(key) {
                    open.push(REQUIRED);
                }
            }
        }
    }
    for secret in manifest["secrets"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(object)
    {
        if !secret.contains_key("kind") {
            open.push(REQUIRED);
        }
    }
}

fn soulacy_sidecar(bytes: &[u8], open: &mut Vec<&'static str>) {
    let Ok(sidecar) = serde_json::from_slice::<Value>(bytes) else {
        return;
    };
    // `sidecar-publisher-no-id`, `sidecar-verified-null`.
    if object(&sidecar["publisher"]).is_some_and(|p| !p.contains_key("id")) {
        open.push("soulacy-sidecar.field.required");
    }
    if object(&sidecar).is_some_and(|s| s.get("signature_verified") == Some(&Value::Null)) {
        open.push("soulacy-sidecar.field.type");
    }
}

fn compose_bundle(bytes: &[u8], open: &mut Vec<&'static str>) {
    let Ok(manifest) = serde_json::from_slice::<Value>(bytes) else {
        return;
    };
    // `entry-voice-profile-backslash`, `-dot-segment`, `voice-profile-dotdot`.
    if let Some(path) = manifest["voice_profile"].as_str() {
        if path.contains('\\')
            || path
                .split('/')
                .any(|segment| segment == "." || segment == "..")
        {
            open.push("compose-bundle.entry.safe-path");
        }
    }
}

/// The lines of a Markdown text, without their line endings.
fn lines(text: &str) -> impl Iterator<Item = &str> {
    text.split('\n')
        .map(|line| line.strip_suffix('\r').unwrap_or(line))
}

fn soul_md(bytes: &[u8], open: &mut Vec<&'static str>) {
    let text = String::from_utf8_lossy(bytes);
    let body = text.strip_prefix('\u{FEFF}').unwrap_or(&text);
    for line in lines(body) {
        let trimmed = line.trim_start_matches(' ');
        // A level-1 heading the readers disagree on: `soul-md-title-empty-heading`,
        // `-hash-space-only`, `-no-space-after-hash`, `-in-blockquote`, `-in-list-item`.
        let quoted = trimmed
            .strip_prefix('>')
            .or_else(|| {
                ["- ", "* ", "+ "]
                    .iter()
                    .find_map(|b| trimmed.strip_prefix(b))
            })
            .map(|rest| rest.trim_start_matches(' '));
        if quoted.is_some_and(|rest| rest.starts_with("# ") || rest == "#") {
            open.push("soul-md.title.required");
        }
        // Only level-1 headings: one `#`, then nothing, blanks, or text glued to it.
        let level = trimmed.chars().take_while(|&c| c == '#').count();
        if level == 1 {
            let rest = &trimmed[1..];
            let empty = rest.trim_matches([' ', '\t', '#']).is_empty();
            let glued = rest.starts_with(|c: char| c != ' ' && c != '\t');
            if empty || glued {
                open.push("soul-md.title.required");
            }
        }
    }
    // Frontmatter the readers disagree on: after a BOM or a blank line, delimiters with
    // trailing whitespace, a `...` closer (`soul-md-frontmatter-after-bom`, and the rest).
    let first = lines(body).find(|line| !line.trim().is_empty());
    let starts_late = text.starts_with('\u{FEFF}') || body.starts_with(['\n', '\r', ' ', '\t']);
    let delimiter = |line: &str| {
        let bare = line.trim_end_matches([' ', '\t']);
        bare == "---" || bare == "+++"
    };
    if first.is_some_and(|line| delimiter(line) && (starts_late || line.len() > 3)) {
        open.push("soul-md.frontmatter.forbidden");
    }
    if first.is_some_and(delimiter)
        && lines(body)
            .skip(1)
            .any(|line| line == "..." || (delimiter(line) && line.len() > 3))
    {
        open.push("soul-md.frontmatter.forbidden");
    }
}

fn skill_package(bytes: &[u8], open: &mut Vec<&'static str>) {
    let Ok(envelope) = serde_json::from_slice::<Value>(bytes) else {
        return;
    };
    // `version-string`: the envelope's version written as a string.
    if envelope["version"].is_string() {
        open.push("skill-package.envelope.version");
    }
    let head = envelope["headPath"].as_str().unwrap_or("SKILL.md");
    for file in envelope["files"].as_array().into_iter().flatten() {
        if file["path"].as_str() != Some(head) {
            continue;
        }
        let Some(content) = file["content"].as_str() else {
            continue;
        };
        // `name-null`, `name-true`, `name-integer`, `name-float`, `name-octal-0o`,
        // `name-exponent-no-dot`, `description-null`, `description-integer`: a plain
        // scalar that YAML's schemas read as another type than a string.
        for line in lines(content)
            .skip(1)
            .take_while(|line| line.trim_end() != "---")
        {
            for (key, rule) in [
                ("name:", "skill-package.head.name.type"),
                ("description:", "skill-package.head.description.type"),
            ] {
                if let Some(value) = line.strip_prefix(key) {
                    if is_non_string_scalar(value.trim()) {
                        open.push(rule);
                    }
                }
            }
        }
    }
}

/// Whether a plain YAML scalar is read as something other than a string by one of the
/// schemas the readers use (null, a boolean, a number).
fn is_non_string_scalar(value: &str) -> bool {
    let lower = value.to_ascii_lowercase();
    let keyword = matches!(
        lower.as_str(),
        "" | "~"
            | "null"
            | "true"
            | "false"
            | "yes"
            | "no"
            | "on"
            | "off"
            | ".inf"
            | "-.inf"
            | ".nan"
    );
    let number = !value.is_empty()
        && value.trim_start_matches(['-', '+']).chars().all(|c| {
            c.is_ascii_hexdigit() || matches!(c, '.' | '_' | 'e' | 'E' | 'o' | 'x' | '+' | '-')
        })
        && value
            .trim_start_matches(['-', '+'])
            .starts_with(|c: char| c.is_ascii_digit() || c == '.');
    keyword || number
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_corpus_open_points_are_recognised() {
        let kit = br#"{"summary": "\u0301\u0308", "id": "caf\u00e9", "name": "e\u0301"}"#;
        assert_eq!(
            open_points(Format::SoulKit, kit),
            [
                "soul-kit.id.pattern",
                "soul-kit.name.length",
                "soul-kit.string.visible"
            ]
        );
        assert!(open_points(Format::SoulKit, br#"{"summary": "   ", "id": "a"}"#).is_empty());
        let package = br#"{"schema_version": "soulacy.agent.package/v2", "manifest": {"name": "a"}, "files": [{"path": "a"}]}"#;
        assert_eq!(
            open_points(Format::SoulacyPackage, package),
            ["soulacy-package.field.required"]
        );
        for title in ["# \n", "#Title\n", "> # Title\n", "- # Title\n", "#   \n"] {
            assert_eq!(
                open_points(Format::SoulMd, format!("{title}## Identity\n").as_bytes()),
                ["soul-md.title.required"],
                "{title:?}"
            );
        }
        assert!(open_points(Format::SoulMd, b"# Title\n## Identity\n").is_empty());
        assert!(open_points(Format::SoulMd, b"---\nname: a\n---\n# Title\n").is_empty());
        assert_eq!(
            open_points(Format::SoulMd, b"\n---\nname: a\n---\n# Title\n"),
            ["soul-md.frontmatter.forbidden"]
        );
        let skill = br#"{"version": 1, "headPath": "SKILL.md", "files": [{"path": "SKILL.md", "content": "---\nname: 1e3\ndescription: a\n---\nbody\n"}]}"#;
        assert_eq!(
            open_points(Format::SkillPackage, skill),
            ["skill-package.head.name.type"]
        );
        let plain = br#"{"version": 1, "headPath": "SKILL.md", "files": [{"path": "SKILL.md", "content": "---\nname: a-b\ndescription: 2 words\n---\nbody\n"}]}"#;
        assert!(open_points(Format::SkillPackage, plain).is_empty());
        assert_eq!(
            open_points(
                Format::ComposeBundle,
                br#"{"voice_profile": "content\\v.json"}"#
            ),
            ["compose-bundle.entry.safe-path"]
        );
    }
}
