//! The package checker: schema versions and the v1 cutoff, the v2 manifest (calendar
//! version, namespaced id, reserved namespace, publisher, requires), inline files and
//! integrity metadata.
//!
//! The checker walks a package found anywhere in a document (at `base`), so the
//! `requirements-gate` operation validates the package it carries with the same rules and
//! pointers prefixed by `/package`.

use std::collections::HashSet;

use sha2::{Digest, Sha256};

use super::calendar::{self, CalendarError};
use super::package_id::{self, RESERVED_PUBLISHER};
use super::timestamp::{self, V1_CUTOFF};
use super::{importer_digest, is_blank, Settings, PACKAGE_RULES};
use crate::diagnostic::rules::soulacy_package as rule;
use crate::diagnostic::{Collect, Format, Report, Span};
use crate::json::walk::{optional, Text, Walker};
use crate::json::{pointer_join, Node, Value};

/// Schema v1 (spec: "Schema versions").
pub const SCHEMA_V1: &str = "soulacy.agent.package/v1";
/// Schema v2.
pub const SCHEMA_V2: &str = "soulacy.agent.package/v2";

/// A package's schema version.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Schema {
    /// The deprecated legacy shape.
    V1,
    /// The current shape.
    V2,
}

const ROOT_FIELDS: &[&str] = &[
    "schema_version",
    "exported_at",
    "manifest",
    "soul_yaml",
    "files",
    "integrity",
];

const MANIFEST_STRINGS: &[&str] = &["agent_id", "name", "version", "description", "trigger"];
const MANIFEST_V2_STRINGS: &[&str] = &["package_id", "prior_version", "released_at", "changelog"];
/// Manifest members v2 added besides its strings.
const MANIFEST_V2_OBJECTS: &[&str] = &["publisher", "requires"];

/// Whether a manifest member is one both schema versions have: the typed lists below are
/// the one place manifest members are named.
fn is_shared_manifest_member(key: &str) -> bool {
    MANIFEST_STRINGS.contains(&key) || STRING_LISTS.contains(&key) || key == "secrets"
}

/// Whether a manifest member is one schema v2 added.
fn is_v2_manifest_member(key: &str) -> bool {
    MANIFEST_V2_STRINGS.contains(&key) || MANIFEST_V2_OBJECTS.contains(&key)
}

const STRING_LISTS: &[&str] = &[
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
    "files_required",
    "eval_suites",
    "sample_prompts",
    "warnings",
];

const SECRET_FIELDS: &[&str] = &["kind", "name", "description"];
const PUBLISHER_FIELDS: &[&str] = &["id", "display_name", "signature_key", "trust_level"];
const FILE_FIELDS: &[&str] = &["path", "sha256", "bytes", "text"];
const INTEGRITY_FIELDS: &[&str] = &["algorithm", "sha256", "signature", "public_key", "verified"];
const REQUIRES_FIELDS: &[&str] = &[
    "soulacy_version",
    "providers",
    "channels",
    "mcp_servers",
    "peer_agents",
    "secrets",
];
const REQUIRE_ITEM_FIELDS: &[&str] = &["id", "reason"];
const REQUIRE_SECRET_FIELDS: &[&str] = &["key", "label", "reason", "kind", "provider"];

/// The requires lists whose entries are `{id, reason?}`.
const REQUIRE_ID_LISTS: &[&str] = &["providers", "channels", "mcp_servers", "peer_agents"];

/// Validates a package document.
pub fn check(source: &[u8], settings: &Settings) -> Report {
    check_collecting(source, settings, Collect::Every)
}

/// Validates a package document, collecting every diagnostic or stopping at the first
/// error.
pub fn check_collecting(source: &[u8], settings: &Settings, collect: Collect) -> Report {
    let mut walker = Walker::new(
        source,
        &PACKAGE_RULES,
        Format::SoulacyPackage,
        super::profile_of(settings.strict),
    );
    walker.report.collect = collect;
    if let Some(document) = walker.read() {
        check_root(&mut walker, &document.root, "", settings);
    }
    walker.report
}

/// Checks the package at `base` and returns its schema version, if recognised.
pub fn check_root(
    walker: &mut Walker<'_>,
    root: &Node<'_>,
    base: &str,
    settings: &Settings,
) -> Option<Schema> {
    // soulacy-package.root.type (opening paragraph: a .soulacy-agent.json package).
    if root.as_object().is_none() {
        walker.at(
            rule::ROOT_TYPE,
            base,
            root.span,
            format!("a package is a JSON object, not {}", root.value.kind()),
        );
        return None;
    }
    walker.unknown_members(root, base, ROOT_FIELDS, |_| None);
    let schema = schema_version(walker, root, base, settings);

    if let Some(Text { text, span }) = walker.optional_string(root, base, "exported_at") {
        check_timestamp(
            walker,
            &pointer_join(base, "exported_at"),
            text,
            span,
            settings.strict,
        );
    }
    // soulacy-package.soul-yaml.content (opening paragraph: "a redacted SOUL.yaml").
    if let Some(Text { text, span }) = walker.required_string(root, base, "soul_yaml") {
        if is_blank(text) {
            walker.at(
                rule::SOUL_YAML_CONTENT,
                &pointer_join(base, "soul_yaml"),
                span,
                "soul_yaml is empty; a package carries the agent's SOUL.yaml",
            );
        }
    }
    if let Some(manifest) = walker.required(root, base, "manifest") {
        let pointer = pointer_join(base, "manifest");
        if walker.object(manifest, &pointer).is_some() {
            check_manifest(walker, manifest, &pointer, schema, settings);
        }
    }
    if let Some(files) = optional(root, "files") {
        check_files(walker, files, &pointer_join(base, "files"), settings.strict);
    }
    if let Some(integrity) = optional(root, "integrity") {
        check_integrity(
            walker,
            root,
            integrity,
            &pointer_join(base, "integrity"),
            settings.strict,
        );
    }
    schema
}

/// schema_version and, for v1, the deprecation timeline.
fn schema_version(
    walker: &mut Walker<'_>,
    root: &Node<'_>,
    base: &str,
    settings: &Settings,
) -> Option<Schema> {
    let Text { text, span } = walker.required_string(root, base, "schema_version")?;
    let pointer = pointer_join(base, "schema_version");
    // soulacy-package.schema-version.value (Schema versions: v1 or v2, matched exactly).
    let schema = match text {
        SCHEMA_V1 => Schema::V1,
        SCHEMA_V2 => Schema::V2,
        _ => {
            walker.at(
                rule::SCHEMA_VERSION_VALUE,
                &pointer,
                span,
                format!("schema_version must be {SCHEMA_V1:?} or {SCHEMA_V2:?}, found {text:?}"),
            );
            return None;
        }
    };
    if schema == Schema::V1 {
        // soulacy-package.v1.deprecated and soulacy-package.v1.cutoff (v1 deprecation
        // timeline: warn until 2027-05-31, refuse from 2027-06-01 on).
        match settings.now {
            Some(now) if now >= V1_CUTOFF => walker.at(
                rule::V1_CUTOFF,
                &pointer,
                span,
                format!("v1 packages are refused from 2027-06-01T00:00:00Z on (now is {}); ask the publisher for a v2 package", timestamp::display(now)),
            ),
            Some(now) => walker.at(
                rule::V1_DEPRECATED,
                &pointer,
                span,
                format!("schema v1 is deprecated and refused from 2027-06-01T00:00:00Z on (now is {})", timestamp::display(now)),
            ),
            None => walker.at(
                rule::V1_DEPRECATED,
                &pointer,
                span,
                "schema v1 is deprecated and refused from 2027-06-01T00:00:00Z on; no clock was given (--now), so the cutoff was not applied",
            ),
        }
    }
    Some(schema)
}

fn check_manifest(
    walker: &mut Walker<'_>,
    manifest: &Node<'_>,
    pointer: &str,
    schema: Option<Schema>,
    settings: &Settings,
) {
    // soulacy-package.object.unknown-key: v1 manifests have no v2 members.
    if schema == Some(Schema::V1) {
        walker.unknown_members_where(manifest, pointer, is_shared_manifest_member, |key| {
            is_v2_manifest_member(key)
                .then_some("it belongs to schema v2 and is ignored in a v1 package")
        });
    } else {
        let known = |key: &str| is_shared_manifest_member(key) || is_v2_manifest_member(key);
        walker.unknown_members_where(manifest, pointer, known, |_| None);
    }
    let v2 = schema == Some(Schema::V2);
    let strict = settings.strict;

    // soulacy-package.field.required (v2 requires agent_id, package_id and version).
    if v2 {
        for field in ["agent_id", "package_id", "version"] {
            walker.required(manifest, pointer, field);
        }
    }
    let v2_strings: &[&str] = if schema == Some(Schema::V1) {
        &[]
    } else {
        MANIFEST_V2_STRINGS
    };
    for field in MANIFEST_STRINGS.iter().chain(v2_strings) {
        let Some(Text { text, span }) = walker.optional_string(manifest, pointer, field) else {
            continue;
        };
        let field_pointer = pointer_join(pointer, field);
        match *field {
            // soulacy-package.agent-id.content (strict only: `sy agent package validate`
            // requires agent_id in v2, the importer does not read it).
            "agent_id" if strict && v2 && is_blank(text) => walker.at(
                rule::AGENT_ID_CONTENT,
                &field_pointer,
                span,
                "agent_id is blank",
            ),
            // soulacy-package.version.calendar / .version.date (Calendar versioning).
            "version" | "prior_version" if v2 => {
                check_calendar(walker, &field_pointer, text, span);
            }
            "package_id" if v2 => {
                check_package_id(walker, manifest, &field_pointer, text, span, settings)
            }
            "released_at" => check_timestamp(walker, &field_pointer, text, span, strict),
            _ => {}
        }
    }
    for field in STRING_LISTS {
        if let Some(list) = optional(manifest, field) {
            walker.string_array(list, &pointer_join(pointer, field));
        }
    }
    if let Some(secrets) = optional(manifest, "secrets") {
        let secrets_pointer = pointer_join(pointer, "secrets");
        for_each_object(
            walker,
            secrets,
            &secrets_pointer,
            |walker, item, item_pointer| {
                walker.unknown_members(item, item_pointer, SECRET_FIELDS, |_| None);
                walker.required_string(item, item_pointer, "kind");
                walker.required_string(item, item_pointer, "name");
                walker.optional_string(item, item_pointer, "description");
            },
        );
    }
    if schema == Some(Schema::V1) {
        return;
    }
    if let Some(publisher) = optional(manifest, "publisher") {
        let publisher_pointer = pointer_join(pointer, "publisher");
        if walker.object(publisher, &publisher_pointer).is_some() {
            walker.unknown_members(publisher, &publisher_pointer, PUBLISHER_FIELDS, |_| None);
            let id = walker.required_string(publisher, &publisher_pointer, "id");
            for field in ["display_name", "signature_key", "trust_level"] {
                walker.optional_string(publisher, &publisher_pointer, field);
            }
            // soulacy-package.publisher.namespace (strict only, a decision: the publisher
            // block names the publisher whose namespace the package id is in; the spec
            // does not tie the two together).
            let namespace = optional(manifest, "package_id")
                .filter(|_| strict)
                .and_then(Node::as_str)
                .and_then(|package_id| package_id::check(package_id).ok());
            if let (Some(Text { text: id, span }), Some(namespace)) = (id, namespace) {
                if id != namespace {
                    walker.at(
                        rule::PUBLISHER_NAMESPACE,
                        &pointer_join(&publisher_pointer, "id"),
                        span,
                        format!("publisher.id {id:?} is not the publisher of the package id's namespace ({namespace:?})"),
                    );
                }
            }
        }
    }
    if let Some(requires) = optional(manifest, "requires") {
        check_requires(walker, requires, &pointer_join(pointer, "requires"), strict);
    }
}

/// A calendar version under the package's version rules.
pub fn check_calendar(walker: &mut Walker<'_>, pointer: &str, text: &str, span: Span) {
    match calendar::parse(text) {
        Ok(_) => {}
        // soulacy-package.version.calendar (Calendar versioning: the regex, zero padding,
        // no suffixes).
        Err(CalendarError::Pattern) => walker.at(
            rule::VERSION_CALENDAR,
            pointer,
            span,
            format!("{text:?} is not a calendar version YYYY.MM.DD[.PATCH]"),
        ),
        // soulacy-package.version.date (the date must exist).
        Err(CalendarError::Date) => walker.at(
            rule::VERSION_DATE,
            pointer,
            span,
            format!("{text:?} names a date that does not exist"),
        ),
    }
}

/// A timestamp the importer reads: RFC 3339, or a form Go's time decoding also takes
/// (soulacy-package.timestamp.rfc3339); in the strict profile RFC 3339 itself
/// (soulacy-package.timestamp.lax-form).
fn check_timestamp(walker: &mut Walker<'_>, pointer: &str, text: &str, span: Span, strict: bool) {
    let rfc3339 = timestamp::parse_rfc3339(text).is_some();
    if !rfc3339 && timestamp::parse_go(text).is_none() {
        walker.at(
            rule::TIMESTAMP_RFC3339,
            pointer,
            span,
            format!("{text:?} is not an RFC 3339 date-time such as 2026-07-14T15:23:00Z"),
        );
    } else if !rfc3339 && strict {
        walker.at(
            rule::TIMESTAMP_LAX_FORM,
            pointer,
            span,
            format!("{text:?} is read by Go's lax time parse but is not RFC 3339 (write 2026-07-14T08:23:00Z, a period before a fraction, an offset within 23:59)"),
        );
    }
}

/// package_id's shape and parts, then the reserved namespace.
fn check_package_id(
    walker: &mut Walker<'_>,
    manifest: &Node<'_>,
    pointer: &str,
    text: &str,
    span: Span,
    settings: &Settings,
) {
    let publisher = match package_id::check(text) {
        Ok(publisher) => publisher,
        Err(problems) => {
            // soulacy-package.package-id.shape (Namespaced package ids: `<publisher>/<package>`).
            if problems.shape {
                walker.at(
                    rule::PACKAGE_ID_SHAPE,
                    pointer,
                    span,
                    format!(
                        "package_id {text:?} is not <publisher>/<package> with exactly one '/'"
                    ),
                );
            }
            // soulacy-package.package-id.publisher (2-32 lowercase alphanumeric + hyphen).
            if problems.publisher {
                walker.at(
                    rule::PACKAGE_ID_PUBLISHER,
                    pointer,
                    span,
                    format!("the publisher part of {text:?} must be 2 to 32 characters of a-z, 0-9 and '-'"),
                );
            }
            // soulacy-package.package-id.package (1-63, starting with a letter or digit).
            if problems.package {
                walker.at(
                    rule::PACKAGE_ID_PACKAGE,
                    pointer,
                    span,
                    format!("the package part of {text:?} must be 1 to 63 characters of a-z, 0-9 and '-', starting with a letter or digit"),
                );
            }
            return;
        }
    };
    // The reservation is checked in the strict profile only: the spec reserves the
    // namespace for official keys but gives a package no member that proves its signer,
    // and its own example id `soulacy/hackernews-digest` is a valid package id.
    if !settings.strict || publisher != RESERVED_PUBLISHER {
        return;
    }
    // soulacy-package.namespace.reserved (strict only; "The soulacy/ namespace is reserved
    // and can only be signed by keys listed as official").
    let key = optional(manifest, "publisher")
        .and_then(|publisher| optional(publisher, "signature_key"))
        .and_then(Node::as_str);
    let message = match key {
        None => "the soulacy/ namespace is reserved: this package is not signed (no publisher.signature_key)".to_owned(),
        Some(key) if settings.official_keys.iter().any(|official| official == key) => return,
        Some(key) if settings.official_keys.is_empty() => format!(
            "the soulacy/ namespace is reserved: key {key:?} is not official (no official keys were given)"
        ),
        Some(key) => format!("the soulacy/ namespace is reserved: key {key:?} is not listed as official"),
    };
    walker.at(rule::NAMESPACE_RESERVED, pointer, span, message);
}

/// The requires block (Requirements gate); also the bare block of the gate operation.
pub fn check_requires(walker: &mut Walker<'_>, requires: &Node<'_>, pointer: &str, strict: bool) {
    if walker.object(requires, pointer).is_none() {
        return;
    }
    walker.unknown_members(requires, pointer, REQUIRES_FIELDS, |_| None);
    walker.optional_string(requires, pointer, "soulacy_version");
    for list in REQUIRE_ID_LISTS {
        if let Some(items) = optional(requires, list) {
            for_each_object(
                walker,
                items,
                &pointer_join(pointer, list),
                |walker, item, item_pointer| {
                    walker.unknown_members(item, item_pointer, REQUIRE_ITEM_FIELDS, |_| None);
                    requirement_name(walker, item, item_pointer, "id", strict);
                    walker.optional_string(item, item_pointer, "reason");
                },
            );
        }
    }
    if let Some(items) = optional(requires, "secrets") {
        for_each_object(
            walker,
            items,
            &pointer_join(pointer, "secrets"),
            |walker, item, item_pointer| {
                walker.unknown_members(item, item_pointer, REQUIRE_SECRET_FIELDS, |_| None);
                requirement_name(walker, item, item_pointer, "key", strict);
                for field in ["label", "reason", "kind", "provider"] {
                    walker.optional_string(item, item_pointer, field);
                }
            },
        );
    }
}

/// The required name of a requirement; a blank one is soulacy-package.requires.blank-id
/// (strict only: Soulacy's importer drops such entries, the spec says nothing of them).
fn requirement_name(
    walker: &mut Walker<'_>,
    item: &Node<'_>,
    pointer: &str,
    field: &str,
    strict: bool,
) {
    if let Some(Text { text, span }) = walker.required_string(item, pointer, field) {
        if strict && is_blank(text) {
            walker.at(
                rule::REQUIRES_BLANK_ID,
                &pointer_join(pointer, field),
                span,
                format!("the requirement's {field} is blank, so it names nothing"),
            );
        }
    }
}

/// Calls `each` on every item of an array of objects, reporting type errors.
fn for_each_object(
    walker: &mut Walker<'_>,
    node: &Node<'_>,
    pointer: &str,
    mut each: impl FnMut(&mut Walker<'_>, &Node<'_>, &str),
) {
    let Some(items) = walker.array(node, pointer) else {
        return;
    };
    for (index, item) in items.iter().enumerate() {
        let item_pointer = format!("{pointer}/{index}");
        if walker.object(item, &item_pointer).is_some() {
            each(walker, item, &item_pointer);
        }
    }
}

fn check_files(walker: &mut Walker<'_>, files: &Node<'_>, pointer: &str, strict: bool) {
    // Paths met so far; a set, so a package of many files stays linear.
    let mut seen: HashSet<String> = HashSet::new();
    for_each_object(walker, files, pointer, |walker, item, item_pointer| {
        walker.unknown_members(item, item_pointer, FILE_FIELDS, |_| None);
        if let Some(Text { text: path, span }) = walker.required_string(item, item_pointer, "path")
        {
            let path_pointer = pointer_join(item_pointer, "path");
            if strict {
                check_path(walker, &path_pointer, path, span);
            }
            // soulacy-package.files.path-duplicate (strict only: the spec says nothing of
            // paths).
            if strict && seen.contains(path) {
                walker.at(
                    rule::FILES_PATH_DUPLICATE,
                    &path_pointer,
                    span,
                    format!("another files entry already has the path {path:?}"),
                );
            } else {
                seen.insert(path.to_owned());
            }
        }
        let digest = walker.required_string(item, item_pointer, "sha256");
        if let (true, Some(digest)) = (strict, &digest) {
            check_digest(
                walker,
                &pointer_join(item_pointer, "sha256"),
                digest.text,
                digest.span,
            );
        }
        // The importer checks no empty digest (and an absent one is empty to it).
        let digest = digest.filter(|digest| !digest.text.is_empty());
        if let Some(bytes) = walker.required(item, item_pointer, "bytes") {
            check_byte_count(walker, bytes, &pointer_join(item_pointer, "bytes"));
        }
        // An entry without text holds the empty text: Soulacy's exporter omits an empty
        // text, and its importer writes (and hashes) the empty text for such an entry.
        let inline = walker.optional_string(item, item_pointer, "text");
        let text = inline.as_ref().map_or("", |text| text.text);
        // A text of the wrong type has already been reported (field.type), and what it
        // would hash to is unknown: comparing the digest with the empty text would report
        // a mismatch the document does not have.
        let text_known = inline.is_some() || item.get("text").is_none();
        // soulacy-package.files.text-digest (the importer refuses a file whose text
        // does not hash to its sha256, which it compares with its own lowercase hex: a
        // digest in another form never matches).
        if let (Some(Text { text: digest, span }), true) = (digest, text_known) {
            let actual = format!("{:x}", Sha256::digest(text.as_bytes()));
            if actual != digest {
                walker.at(
                    rule::FILES_TEXT_DIGEST,
                    &pointer_join(item_pointer, "sha256"),
                    span,
                    if inline.is_some() {
                        format!("the inline text hashes to {actual}, not to the declared sha256")
                    } else {
                        format!("the entry has no text, so it holds the empty text, which hashes to {actual}, not to the declared sha256")
                    },
                );
            }
        }
    });
}

/// Largest `files[].bytes`: Soulacy's importer reads the count into a Go `int`, 64 bits
/// wide on the platforms it ships for, and refuses a package whose count does not fit.
pub const MAX_FILE_BYTES: u64 = i64::MAX as u64;

/// soulacy-package.field.type for `files[].bytes`: a non-negative integer written without
/// fraction or exponent, at most [`MAX_FILE_BYTES`].
fn check_byte_count(walker: &mut Walker<'_>, node: &Node<'_>, pointer: &str) {
    let fits = match node.value {
        Value::Number(raw) => {
            // `-0` is zero to Go's decoder, which reads it into the int without complaint.
            let raw = if raw == "-0" { "0" } else { raw };
            raw.bytes().all(|b| b.is_ascii_digit())
                && raw
                    .parse::<u64>()
                    .is_ok_and(|count| count <= MAX_FILE_BYTES)
        }
        _ => false,
    };
    if !fits {
        walker.type_error(
            node,
            pointer,
            "a non-negative integer of at most 9223372036854775807 (no fraction or exponent)",
        );
    }
}

/// Paths stay inside the package (a protective decision of the strict profile: the spec
/// says nothing of file paths; see the `files.path-*` rules).
fn check_path(walker: &mut Walker<'_>, pointer: &str, path: &str, span: Span) {
    // soulacy-package.files.path-empty.
    if path.is_empty() {
        walker.at(rule::FILES_PATH_EMPTY, pointer, span, "the path is empty");
        return;
    }
    // soulacy-package.files.path-absolute: `/`, `\` or a drive letter.
    let bytes = path.as_bytes();
    let drive = bytes.len() >= 2 && bytes[0].is_ascii_alphabetic() && bytes[1] == b':';
    if path.starts_with(['/', '\\']) || drive {
        walker.at(
            rule::FILES_PATH_ABSOLUTE,
            pointer,
            span,
            format!("{path:?} is absolute; file paths are relative to the package"),
        );
    }
    // soulacy-package.files.path-traversal: no `..` segment.
    if path.split(['/', '\\']).any(|segment| segment == "..") {
        walker.at(
            rule::FILES_PATH_TRAVERSAL,
            pointer,
            span,
            format!("{path:?} has a '..' segment; file paths stay inside the package"),
        );
    }
}

/// soulacy-package.digest.format (strict only): 64 lowercase hex digits.
fn check_digest(walker: &mut Walker<'_>, pointer: &str, digest: &str, span: Span) {
    let valid = digest.len() == 64
        && digest
            .bytes()
            .all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b));
    if !valid {
        walker.at(
            rule::DIGEST_FORMAT,
            pointer,
            span,
            "a SHA-256 digest is written as 64 lowercase hexadecimal digits",
        );
    }
}

fn check_integrity(
    walker: &mut Walker<'_>,
    root: &Node<'_>,
    integrity: &Node<'_>,
    pointer: &str,
    strict: bool,
) {
    if walker.object(integrity, pointer).is_none() {
        return;
    }
    walker.unknown_members(integrity, pointer, INTEGRITY_FIELDS, |_| None);
    for field in ["algorithm", "signature", "public_key"] {
        walker.optional_string(integrity, pointer, field);
    }
    if let Some(verified) = optional(integrity, "verified") {
        walker.boolean(verified, &pointer_join(pointer, "verified"));
    }
    let Some(Text {
        text: declared,
        span,
    }) = walker.optional_string(integrity, pointer, "sha256")
    else {
        return;
    };
    let digest_pointer = pointer_join(pointer, "sha256");
    if strict {
        check_digest(walker, &digest_pointer, declared, span);
    }
    // soulacy-package.integrity.mismatch (upstream: Soulacy's importer recomputes the
    // digest over its own re-serialisation of the package and refuses a mismatch; it
    // compares ignoring letter case and checks no empty digest). A package Go could not
    // decode has no such digest; its other rules say why.
    if declared.is_empty() {
        return;
    }
    if let Some(actual) = importer_digest::digest(root) {
        if !declared.eq_ignore_ascii_case(&actual) {
            walker.at(
                rule::INTEGRITY_MISMATCH,
                &digest_pointer,
                span,
                format!("the package hashes to {actual} as Soulacy's importer computes it (Go's encoding of the package with integrity emptied), not to the declared integrity.sha256"),
            );
        }
    }
}
