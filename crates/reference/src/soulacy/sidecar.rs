//! The `.soulacy-package.json` install sidecar (spec: ".soulacy-package.json sidecar"):
//! the record of one import, written next to SOUL.yaml.

use super::calendar::{self, CalendarError};
use super::package::{SCHEMA_V1, SCHEMA_V2};
use super::package_id;
use super::timestamp;
use super::SIDECAR_RULES;
use crate::diagnostic::rules::soulacy_sidecar as rule;
use crate::diagnostic::{Format, Report};
use crate::json::walk::{optional, Text, Walker};
use crate::json::Node;

const FIELDS: &[&str] = &[
    "schema_version",
    "package_id",
    "installed_version",
    "installed_from",
    "installed_at",
    "publisher",
    "signature_verified",
    "trust_level_at_install",
    "acknowledged_missing",
];
const PUBLISHER_FIELDS: &[&str] = &["id", "display_name", "signature_key", "trust_level"];

/// Validates a sidecar document; `strict` adds the catalogue's strict-only rules.
pub fn check(source: &[u8], strict: bool) -> Report {
    let mut walker = Walker::new(
        source,
        &SIDECAR_RULES,
        Format::SoulacySidecar,
        super::profile_of(strict),
    );
    if let Some(document) = walker.read() {
        check_root(&mut walker, &document.root, strict);
    }
    walker.report
}

fn check_root(walker: &mut Walker<'_>, root: &Node<'_>, strict: bool) {
    // soulacy-sidecar.root.type.
    if root.as_object().is_none() {
        walker.at(
            rule::ROOT_TYPE,
            "",
            root.span,
            format!("a sidecar is a JSON object, not {}", root.value.kind()),
        );
        return;
    }
    walker.unknown_members(root, "", FIELDS, |_| None);

    // soulacy-sidecar.schema-version.value (the installed package's schema).
    let schema = walker.required_string(root, "", "schema_version").and_then(
        |Text { text, span }| match text {
            SCHEMA_V1 | SCHEMA_V2 => Some(text),
            _ => {
                walker.at(
                    rule::SCHEMA_VERSION_VALUE,
                    "/schema_version",
                    span,
                    format!(
                        "schema_version must be {SCHEMA_V1:?} or {SCHEMA_V2:?}, found {text:?}"
                    ),
                );
                None
            }
        },
    );
    let v2 = schema == Some(SCHEMA_V2);

    // soulacy-sidecar.field.required: package_id and installed_version in v2 sidecars.
    let package_id = if v2 {
        walker.required_string(root, "", "package_id")
    } else {
        walker.optional_string(root, "", "package_id")
    };
    let mut namespace = None;
    if let Some(Text { text, span }) = package_id {
        match package_id::check(text) {
            Ok(publisher) => namespace = Some(publisher),
            Err(problems) => {
                // soulacy-sidecar.package-id.shape / .publisher / .package.
                if problems.shape {
                    walker.at(
                        rule::PACKAGE_ID_SHAPE,
                        "/package_id",
                        span,
                        format!(
                            "package_id {text:?} is not <publisher>/<package> with exactly one '/'"
                        ),
                    );
                }
                if problems.publisher {
                    walker.at(
                    rule::PACKAGE_ID_PUBLISHER,
                    "/package_id",
                    span,
                    format!("the publisher part of {text:?} must be 2 to 32 characters of a-z, 0-9 and '-'"),
                );
                }
                if problems.package {
                    walker.at(
                    rule::PACKAGE_ID_PACKAGE,
                    "/package_id",
                    span,
                    format!("the package part of {text:?} must be 1 to 63 characters of a-z, 0-9 and '-', starting with a letter or digit"),
                );
                }
            }
        }
    }

    let installed_version = if v2 {
        walker.required_string(root, "", "installed_version")
    } else {
        walker.optional_string(root, "", "installed_version")
    };
    if let (true, Some(Text { text, span })) = (v2, installed_version) {
        match calendar::parse(text) {
            Ok(_) => {}
            // soulacy-sidecar.installed-version.calendar.
            Err(CalendarError::Pattern) => walker.at(
                rule::INSTALLED_VERSION_CALENDAR,
                "/installed_version",
                span,
                format!("{text:?} is not a calendar version YYYY.MM.DD[.PATCH]"),
            ),
            // soulacy-sidecar.installed-version.date.
            Err(CalendarError::Date) => walker.at(
                rule::INSTALLED_VERSION_DATE,
                "/installed_version",
                span,
                format!("{text:?} names a date that does not exist"),
            ),
        }
    }

    // soulacy-sidecar.installed-at.rfc3339: RFC 3339, or a form a Go reader's lax time
    // parse also takes; soulacy-sidecar.installed-at.lax-form (strict only): RFC 3339 itself.
    if let Some(Text { text, span }) = walker.required_string(root, "", "installed_at") {
        let rfc3339 = timestamp::parse_rfc3339(text).is_some();
        if !rfc3339 && timestamp::parse_go(text).is_none() {
            walker.at(
                rule::INSTALLED_AT_RFC3339,
                "/installed_at",
                span,
                format!("{text:?} is not an RFC 3339 date-time such as 2026-07-14T15:23:00Z"),
            );
        } else if !rfc3339 && strict {
            walker.at(
                rule::INSTALLED_AT_LAX_FORM,
                "/installed_at",
                span,
                format!("{text:?} is read by Go's lax time parse but is not RFC 3339 (write 2026-07-14T08:23:00Z, a period before a fraction, an offset within 23:59)"),
            );
        }
    }

    for field in ["installed_from", "trust_level_at_install"] {
        walker.optional_string(root, "", field);
    }
    for field in ["signature_verified", "acknowledged_missing"] {
        if let Some(node) = optional(root, field) {
            walker.boolean(node, &format!("/{field}"));
        }
    }
    if let Some(publisher) = optional(root, "publisher") {
        if walker.object(publisher, "/publisher").is_some() {
            walker.unknown_members(publisher, "/publisher", PUBLISHER_FIELDS, |_| None);
            let id = walker.required_string(publisher, "/publisher", "id");
            // soulacy-sidecar.publisher.namespace (strict only, as the package's
            // soulacy-package.publisher.namespace: the spec does not tie the publisher
            // block to the id's namespace, but a record naming another publisher misleads
            // whoever reads it).
            if let (true, Some(Text { text: id, span }), Some(namespace)) = (strict, id, namespace)
            {
                if id != namespace {
                    walker.at(
                        rule::PUBLISHER_NAMESPACE,
                        "/publisher/id",
                        span,
                        format!("publisher.id {id:?} is not the publisher of the package id's namespace ({namespace:?})"),
                    );
                }
            }
            for field in ["display_name", "signature_key", "trust_level"] {
                walker.optional_string(publisher, "/publisher", field);
            }
        }
    }
}
