//! The package digest Soulacy's importer computes (`soulacy-package.integrity.mismatch`).
//!
//! The importer refuses a package whose `integrity.sha256` differs from its own digest of
//! the package: the lowercase hex SHA-256 of Go's `json.Marshal` of its typed package
//! structures with `integrity` emptied. The spec does not describe that procedure, but the
//! importer is the one path that reads the digest and decides it the same way every time,
//! so the reference applies it (an upstream rule), and the corpus test below checks that
//! every fixture carrying a package digest carries the one the importer expects. The
//! procedure:
//!
//! - members in the order of the Go structures, those tagged `omitempty` left out when
//!   empty, unknown members dropped, keys matched as Go matches them (exactly, else
//!   ignoring ASCII case, and a later member overwrites an earlier one; `null` leaves a field
//!   as it was);
//! - compact JSON, strings escaped as Go escapes them (`<`, `>`, `&`, U+2028 and U+2029 as
//!   `\u` escapes; `\n`, `\r`, `\t`, and `\b` and `\f` for U+0008 and U+000C, which Go's
//!   encoder writes so since Go 1.22 (Soulacy builds with Go 1.25); other controls as
//!   `\u00xx`);
//! - `exported_at` decoded as a Go `time.Time` (`timestamp::parse_go`: RFC 3339 with
//!   uppercase `T` and `Z`, no leap second, and the forms Go's lax parse also takes) and
//!   written back as RFC 3339 with the fraction's trailing zeros trimmed and `Z` for a zero
//!   offset; an absent one is Go's zero time;
//! - `files[].bytes` as a Go `int`, `integrity` written as `{}`.
//!
//! A package Go could not decode (a member of another type, a malformed `exported_at`)
//! has no digest: `None`.
//!
//! The cost is linear in the package: each object is scanned once per field the Go
//! structure has (a fixed number), and every string is escaped once.

use sha2::{Digest, Sha256};

use crate::json::{Member, Node, Value};

/// Go's digest of the package `root`, or `None` where Go's decoding fails.
pub fn digest(root: &Node<'_>) -> Option<String> {
    let mut out = String::new();
    package(&mut out, root)?;
    Some(format!("{:x}", Sha256::digest(out.as_bytes())))
}

/// The value Go's decoder leaves in field `name` of the object `members`.
fn field<'n, 'a>(members: &'n [Member<'a>], name: &str) -> Option<&'n Node<'a>> {
    members
        .iter()
        .rev()
        .filter(|member| member.key.eq_ignore_ascii_case(name))
        .find(|member| !matches!(member.value.value, Value::Null))
        .map(|member| &member.value)
}

/// A field's string value: `Some("")` when absent, `None` when not a string.
fn string<'n>(members: &'n [Member<'_>], name: &str) -> Option<&'n str> {
    match field(members, name) {
        None => Some(""),
        Some(node) => node.as_str(),
    }
}

fn object<'n, 'a>(node: &'n Node<'a>) -> Option<&'n [Member<'a>]> {
    node.as_object()
}

/// Writes `"key":` after a comma when needed.
fn key(out: &mut String, first: &mut bool, name: &str) {
    if !*first {
        out.push(',');
    }
    *first = false;
    quote(out, name);
    out.push(':');
}

/// A string as Go's encoder writes it (HTML escaping on).
fn quote(out: &mut String, text: &str) {
    out.push('"');
    for c in text.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            // Go 1.22 and later; earlier Go wrote `\u0008` and `\u000c`.
            '\u{8}' => out.push_str("\\b"),
            '\u{c}' => out.push_str("\\f"),
            '<' | '>' | '&' | '\u{2028}' | '\u{2029}' => {
                out.push_str(&format!("\\u{:04x}", u32::from(c)));
            }
            c if u32::from(c) < 0x20 => out.push_str(&format!("\\u{:04x}", u32::from(c))),
            c => out.push(c),
        }
    }
    out.push('"');
}

/// A string field; `omit_empty` leaves out an empty one.
fn string_field(
    out: &mut String,
    first: &mut bool,
    members: &[Member<'_>],
    name: &str,
    omit_empty: bool,
) -> Option<()> {
    let text = string(members, name)?;
    if !(omit_empty && text.is_empty()) {
        key(out, first, name);
        quote(out, text);
    }
    Some(())
}

/// A `[]string` field tagged `omitempty`.
fn strings_field(
    out: &mut String,
    first: &mut bool,
    members: &[Member<'_>],
    name: &str,
) -> Option<()> {
    let Some(node) = field(members, name) else {
        return Some(());
    };
    let items = node.as_array()?;
    let texts: Vec<&str> = items
        .iter()
        .map(|item| match item.value {
            Value::Null => Some(""),
            _ => item.as_str(),
        })
        .collect::<Option<_>>()?;
    if !texts.is_empty() {
        key(out, first, name);
        out.push('[');
        for (index, text) in texts.iter().enumerate() {
            if index > 0 {
                out.push(',');
            }
            quote(out, text);
        }
        out.push(']');
    }
    Some(())
}

/// A struct: `fields` lists each string member and whether it is `omitempty`.
fn strings_struct(out: &mut String, node: &Node<'_>, fields: &[(&str, bool)]) -> Option<()> {
    let members = object(node)?;
    out.push('{');
    let mut first = true;
    for (name, omit_empty) in fields {
        string_field(out, &mut first, members, name, *omit_empty)?;
    }
    out.push('}');
    Some(())
}

/// A slice of structs tagged `omitempty`.
fn structs_field(
    out: &mut String,
    first: &mut bool,
    members: &[Member<'_>],
    name: &str,
    write: impl Fn(&mut String, &Node<'_>) -> Option<()>,
) -> Option<()> {
    let Some(node) = field(members, name) else {
        return Some(());
    };
    let items = node.as_array()?;
    if items.is_empty() {
        return Some(());
    }
    key(out, first, name);
    out.push('[');
    for (index, item) in items.iter().enumerate() {
        if index > 0 {
            out.push(',');
        }
        write(out, item)?;
    }
    out.push(']');
    Some(())
}

const SECRET: &[(&str, bool)] = &[("kind", false), ("name", false), ("description", true)];
const PUBLISHER: &[(&str, bool)] = &[
    ("id", false),
    ("display_name", true),
    ("signature_key", true),
    ("trust_level", true),
];
const REQUIRE_ITEM: &[(&str, bool)] = &[("id", false), ("reason", true)];
const REQUIRE_SECRET: &[(&str, bool)] = &[
    ("key", false),
    ("label", true),
    ("reason", true),
    ("kind", true),
    ("provider", true),
];

fn requires(out: &mut String, node: &Node<'_>) -> Option<()> {
    let members = object(node)?;
    out.push('{');
    let mut first = true;
    string_field(out, &mut first, members, "soulacy_version", true)?;
    let item = |out: &mut String, node: &Node<'_>| strings_struct(out, node, REQUIRE_ITEM);
    structs_field(out, &mut first, members, "providers", item)?;
    structs_field(out, &mut first, members, "channels", item)?;
    structs_field(out, &mut first, members, "secrets", |out, node| {
        strings_struct(out, node, REQUIRE_SECRET)
    })?;
    structs_field(out, &mut first, members, "mcp_servers", item)?;
    structs_field(out, &mut first, members, "peer_agents", item)?;
    out.push('}');
    Some(())
}

fn manifest(out: &mut String, node: Option<&Node<'_>>) -> Option<()> {
    let empty = [];
    let members = match node {
        None => &empty[..],
        Some(node) => object(node)?,
    };
    out.push('{');
    let mut first = true;
    string_field(out, &mut first, members, "agent_id", false)?;
    string_field(out, &mut first, members, "name", false)?;
    string_field(out, &mut first, members, "version", true)?;
    string_field(out, &mut first, members, "description", true)?;
    string_field(out, &mut first, members, "trigger", false)?;
    for name in [
        "surfaces",
        "providers",
        "models",
        "channels",
        "skills",
        "knowledge",
        "peer_agents",
        "builtins",
        "mcp_servers",
        "mcp_tools",
        "env",
        "capabilities",
    ] {
        strings_field(out, &mut first, members, name)?;
    }
    structs_field(out, &mut first, members, "secrets", |out, node| {
        strings_struct(out, node, SECRET)
    })?;
    for name in [
        "files_required",
        "eval_suites",
        "sample_prompts",
        "warnings",
    ] {
        strings_field(out, &mut first, members, name)?;
    }
    for name in ["package_id", "prior_version", "released_at", "changelog"] {
        string_field(out, &mut first, members, name, true)?;
    }
    if let Some(publisher) = field(members, "publisher") {
        key(out, &mut first, "publisher");
        strings_struct(out, publisher, PUBLISHER)?;
    }
    if let Some(block) = field(members, "requires") {
        key(out, &mut first, "requires");
        requires(out, block)?;
    }
    out.push('}');
    Some(())
}

fn file(out: &mut String, node: &Node<'_>) -> Option<()> {
    let members = object(node)?;
    out.push('{');
    let mut first = true;
    string_field(out, &mut first, members, "path", false)?;
    string_field(out, &mut first, members, "sha256", false)?;
    key(out, &mut first, "bytes");
    match field(members, "bytes") {
        None => out.push('0'),
        Some(node) => match node.value {
            Value::Number(raw) => out.push_str(&raw.parse::<i64>().ok()?.to_string()),
            _ => return None,
        },
    }
    string_field(out, &mut first, members, "text", true)?;
    out.push('}');
    Some(())
}

/// exported_at as Go decodes a `time.Time` and encodes it again.
fn instant(out: &mut String, node: Option<&Node<'_>>) -> Option<()> {
    let Some(node) = node else {
        quote(out, "0001-01-01T00:00:00Z");
        return Some(());
    };
    let instant = super::timestamp::parse_go(node.as_str()?)?;
    let date = instant.date();
    let mut written = format!(
        "{:04}-{:02}-{:02}T{:02}:{:02}:{:02}",
        date.year(),
        u8::from(date.month()),
        date.day(),
        instant.hour(),
        instant.minute(),
        instant.second()
    );
    let nanos = instant.nanosecond();
    if nanos > 0 {
        let fraction = format!("{nanos:09}");
        written.push('.');
        written.push_str(fraction.trim_end_matches('0'));
    }
    let offset = instant.offset();
    if offset.is_utc() {
        written.push('Z');
    } else {
        let (hours, minutes, _) = offset.as_hms();
        let sign = if offset.is_negative() { '-' } else { '+' };
        written.push_str(&format!(
            "{sign}{:02}:{:02}",
            hours.unsigned_abs(),
            minutes.unsigned_abs()
        ));
    }
    quote(out, &written);
    Some(())
}

fn package(out: &mut String, root: &Node<'_>) -> Option<()> {
    let members = object(root)?;
    out.push('{');
    let mut first = true;
    string_field(out, &mut first, members, "schema_version", false)?;
    key(out, &mut first, "exported_at");
    instant(out, field(members, "exported_at"))?;
    key(out, &mut first, "manifest");
    manifest(out, field(members, "manifest"))?;
    string_field(out, &mut first, members, "soul_yaml", false)?;
    structs_field(out, &mut first, members, "files", file)?;
    // The emptied integrity; Go still decodes the one given, so it must be an object.
    if let Some(integrity) = field(members, "integrity") {
        let integrity = object(integrity)?;
        for name in ["algorithm", "sha256", "signature", "public_key"] {
            string(integrity, name)?;
        }
        if let Some(verified) = field(integrity, "verified") {
            if !matches!(verified.value, Value::Bool(_)) {
                return None;
            }
        }
    }
    key(out, &mut first, "integrity");
    out.push_str("{}");
    out.push('}');
    Some(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::json::{read, Limits};

    const MISMATCH: &str = "soulacy-package.integrity.mismatch";

    /// Whether a case carries a wrong package digest on purpose: it expects
    /// soulacy-package.integrity.mismatch in either profile. The case file is data, so a
    /// case that cannot be read as one is left to the corpus's own tests.
    fn wrong_on_purpose(dir: &std::path::Path) -> bool {
        let Ok(text) = std::fs::read_to_string(dir.join("case.toml")) else {
            return false;
        };
        let Ok(case) = text.parse::<toml::Table>() else {
            return false;
        };
        let expects = |table: Option<&toml::Table>| {
            table
                .and_then(|table| table.get("diagnostic"))
                .and_then(toml::Value::as_array)
                .is_some_and(|diagnostics| {
                    diagnostics.iter().any(|diagnostic| {
                        diagnostic.get("rule").and_then(toml::Value::as_str) == Some(MISMATCH)
                    })
                })
        };
        expects(Some(&case)) || expects(case.get("strict").and_then(toml::Value::as_table))
    }

    fn limits() -> Limits {
        Limits {
            max_bytes: usize::MAX,
            max_depth: 128,
        }
    }

    /// The package in a case input: the document itself, or the gate input's `package`.
    fn package_of<'n, 'a>(root: &'n Node<'a>) -> &'n Node<'a> {
        match root.get("package") {
            Some(member) if root.get("workspace").is_some() => &member.value,
            _ => root,
        }
    }

    /// Every fixture Go can decode that carries a well-formed package digest carries the
    /// one Soulacy's importer computes, so the importer does not refuse it for a reason
    /// the case is not about. `SOULCHECK_WRITE_DIGESTS=1` rewrites the wrong ones.
    #[test]
    fn every_fixture_digest_is_the_importers() {
        let cases =
            std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../cases/soulacy-package");
        let write = std::env::var_os("SOULCHECK_WRITE_DIGESTS").is_some();
        let mut checked = 0;
        let mut wrong = Vec::new();
        let mut entries: Vec<_> = std::fs::read_dir(&cases)
            .expect("cases")
            .map(|entry| entry.expect("entry").path())
            .filter(|path| path.is_dir())
            .collect();
        entries.sort();
        for dir in entries {
            let id = dir.file_name().and_then(|n| n.to_str()).unwrap_or_default();
            if wrong_on_purpose(&dir) {
                continue;
            }
            for input in ["input.soulacy-agent.json", "input.json"] {
                let path = dir.join(input);
                let Ok(bytes) = std::fs::read(&path) else {
                    continue;
                };
                let Ok(document) = read(&bytes, limits()) else {
                    continue;
                };
                let package = package_of(&document.root);
                let declared = package
                    .get("integrity")
                    .and_then(|member| member.value.get("sha256"))
                    .and_then(|member| member.value.as_str())
                    .filter(|digest| {
                        digest.len() == 64 && digest.bytes().all(|b| b.is_ascii_hexdigit())
                    });
                let (Some(declared), Some(actual)) = (declared, digest(package)) else {
                    continue;
                };
                checked += 1;
                if !declared.eq_ignore_ascii_case(&actual) {
                    wrong.push(format!("{id}: {declared} should be {actual}"));
                    if write {
                        let text = String::from_utf8_lossy(&bytes).replace(declared, &actual);
                        std::fs::write(&path, text).expect("write");
                    }
                }
            }
        }
        assert!(checked > 50, "only {checked} fixtures carry a digest");
        assert!(
            wrong.is_empty(),
            "wrong package digests:\n{}",
            wrong.join("\n")
        );
    }

    #[test]
    fn go_string_escapes_and_times() {
        let mut out = String::new();
        quote(&mut out, "a<b>&c\u{2028}\u{1}\n\"é\u{8}\u{c}");
        assert_eq!(out, r#""a\u003cb\u003e\u0026c\u2028\u0001\n\"é\b\f""#);
        let source = br#"{"t": "2026-07-14T15:23:00.120+00:00", "u": "2026-07-14T15:23:00-08:00"}"#;
        let document = read(source, limits()).expect("json");
        let mut out = String::new();
        instant(&mut out, document.root.get("t").map(|m| &m.value)).expect("t");
        assert_eq!(out, r#""2026-07-14T15:23:00.12Z""#);
        let mut out = String::new();
        instant(&mut out, document.root.get("u").map(|m| &m.value)).expect("u");
        assert_eq!(out, r#""2026-07-14T15:23:00-08:00""#);
    }
}
