//! The bundle fingerprint (spec: "Bundle fingerprint") and the `whoami --json` record
//! that carries it, as operations on a manifest document.
//!
//! The fingerprint is SHA-256 over the covered members, each followed by a NUL byte,
//! under the versioned prefix `agent-compose.bundle-fingerprint.v1`, as agent-compose's
//! bundle.Fingerprint computes it: over the manifest as decoded, without verifying it
//! (`compose-bundle.fingerprint.value`). Only an absent model_tier is read as the spec
//! reads it, as frontier (`compose-bundle.fingerprint.tier-absent`). Both operations
//! behave the same in every profile, since their values are compared exactly.

use serde_json::{json, Value};
use sha2::{Digest, Sha256};

use crate::diagnostic::{Format, Report};
use crate::json::walk::Walker;
use crate::{Context, Input, Unsupported};

use super::{strings, Object};

const VERSION: &str = "agent-compose.bundle-fingerprint.v1";

/// The `fingerprint` operation: the manifest's fingerprint (`sha256:<hex>`) as the value,
/// or `false` with diagnostics when the input is not a JSON object or a covered member
/// has the wrong type; a tree is refused.
pub fn fingerprint(input: Input<'_>, _context: &Context) -> Result<Report, Unsupported> {
    let source = input.document_bytes(Format::ComposeBundle, "fingerprint")?;
    // The value is agent-compose's function of the manifest as its Go decoder reads it, in
    // either profile (the harness compares it exactly in both): the strict profile's
    // refusals of repeated keys or null are about verifying a bundle, not about the name
    // of the composition it describes.
    let mut walker = super::document_walker(source, &Context::new());
    let value = covered(&mut walker).map_or(Value::Bool(false), |covered| {
        Value::String(covered.fingerprint())
    });
    walker.report.value = Some(value);
    Ok(walker.report)
}

/// The `whoami` operation: `{format, seat, role, bundle}` for the manifest, the seat label
/// taken from the context's `seat` (the session's projection). Without a seat there is no
/// projection and no record: the value is `false` and the manifest is not read
/// (compose-bundle.whoami.record, spec: "no projection means no record rather than a
/// synthesised one"). A manifest without a fingerprint gives `false` with diagnostics. A
/// tree is refused.
pub fn whoami(input: Input<'_>, context: &Context) -> Result<Report, Unsupported> {
    let source = input.document_bytes(Format::ComposeBundle, "whoami")?;
    // The fingerprint inside is agent-compose's, in either profile (see `fingerprint`).
    let mut walker = super::document_walker(source, &Context::new());
    let seat = context
        .get("seat")
        .and_then(Value::as_str)
        .filter(|seat| !seat.is_empty());
    let value = match seat {
        None => Value::Bool(false),
        Some(seat) => match covered(&mut walker) {
            Some(covered) => json!({
                "format": "agent-compose.whoami.v1",
                "seat": seat,
                "role": covered.role,
                "bundle": covered.fingerprint(),
            }),
            None => Value::Bool(false),
        },
    };
    walker.report.value = Some(value);
    Ok(walker.report)
}

/// The members the fingerprint covers, in manifest order.
struct Covered {
    role: String,
    role_skill: [String; 3],
    model_tier: String,
    personalities: Vec<String>,
    boundaries: Vec<String>,
    sources: Vec<String>,
    content: Vec<(String, String)>,
}

impl Covered {
    fn fingerprint(&self) -> String {
        let mut hasher = Sha256::new();
        let mut field = |text: &str| {
            hasher.update(text.as_bytes());
            hasher.update([0]);
        };
        field(VERSION);
        field("role");
        field(&self.role);
        field("role-skill");
        for part in &self.role_skill {
            field(part);
        }
        field("model-tier");
        field(&self.model_tier);
        for personality in &self.personalities {
            field("personality");
            field(personality);
        }
        for boundary in &self.boundaries {
            field("boundary");
            field(boundary);
        }
        for source in &self.sources {
            field("source");
            field(source);
        }
        for (id, digest) in &self.content {
            field("content");
            field(id);
            field(digest);
        }
        format!("sha256:{:x}", hasher.finalize())
    }
}

/// Reads the covered members as agent-compose's decoder would: a key binds its field
/// regardless of letter case and the last of repeated keys stands ([`Object::bound`]),
/// `null` is absent, an absent string is empty, an absent list empty, an absent model_tier
/// frontier (the spec's reading; agent-compose's empty string conforms too); a member of
/// the wrong JSON type is reported (compose-bundle.field.type) and gives `None`.
fn covered(walker: &mut Walker<'_>) -> Option<Covered> {
    let document = walker.read()?;
    let root = Object::new(walker, &document.root, String::new())?;
    let text = |key: &str, walker: &mut Walker<'_>| root.go_string(walker, key);
    let role = text("role", walker);
    let role_skill = [
        text("role_skill", walker),
        text("role_skill_source", walker),
        text("role_skill_digest", walker),
    ];
    // compose-bundle.fingerprint.tier-absent (spec: "A manifest from before the tier field
    // is read as frontier", so the covered tier is frontier; agent-compose hashes the
    // empty string, a deviation recorded on the case).
    let model_tier = match root.bound("model_tier") {
        None => Some("frontier".to_owned()),
        Some(_) => text("model_tier", walker),
    };
    let list = |key: &str, walker: &mut Walker<'_>| -> Option<Vec<String>> {
        let Some((pointer, node)) = root.bound(key) else {
            return Some(Vec::new());
        };
        let items = strings(walker, node, &pointer)?;
        Some(items.iter().map(|item| item.text.to_owned()).collect())
    };
    let personalities = list("personalities", walker);
    let boundaries = list("boundaries", walker);
    let sources = list("sources", walker);
    let content = content(walker, &root);
    let [Some(skill), Some(skill_source), Some(skill_digest)] = role_skill else {
        return None;
    };
    let covered = Covered {
        role: role?,
        role_skill: [skill, skill_source, skill_digest],
        model_tier: model_tier?,
        personalities: personalities?,
        boundaries: boundaries?,
        sources: sources?,
        content: content?,
    };
    (!walker.has_errors()).then_some(covered)
}

/// content[]: each entry's id and digest (absent members empty).
fn content(walker: &mut Walker<'_>, root: &Object<'_, '_>) -> Option<Vec<(String, String)>> {
    let Some((pointer, node)) = root.bound("content") else {
        return Some(Vec::new());
    };
    let Some(items) = node.as_array() else {
        walker.type_error(node, &pointer, "an array of objects");
        return None;
    };
    let mut entries = Vec::with_capacity(items.len());
    let mut complete = true;
    for (index, item) in items.iter().enumerate() {
        let Some(entry) = Object::new(walker, item, format!("{pointer}/{index}")) else {
            complete = false;
            continue;
        };
        let member = |key: &str, walker: &mut Walker<'_>| entry.go_string(walker, key);
        match (member("id", walker), member("digest", walker)) {
            (Some(id), Some(digest)) => entries.push((id, digest)),
            _ => complete = false,
        }
    }
    complete.then_some(entries)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fingerprint_of(manifest: &str) -> Value {
        let input = Input::Document {
            name: "manifest.json",
            bytes: manifest.as_bytes(),
        };
        fingerprint(input, &Context::new())
            .expect("a document")
            .value
            .unwrap()
    }

    /// agent-compose's own worked vector, and the reading of an absent tier: the spec's
    /// frontier (agent-compose would hash the empty string instead).
    #[test]
    fn worked_vector_and_absent_tier() {
        let zeros = "0".repeat(64);
        let ones = "1".repeat(64);
        let manifest = |tier: &str| {
            format!(
                r#"{{"role": "eng-platform", "role_skill": "role-eng-platform",
                "role_skill_source": "roster:core:role:platform",
                "role_skill_digest": "sha256:{zeros}", {tier}
                "personalities": ["tenacious", "grounded"],
                "sources": ["roster:core", "aos-public"],
                "content": [{{"id": "roster:core:role:platform:identity", "digest": "sha256:{ones}"}}]}}"#
            )
        };
        let vector =
            json!("sha256:3aa8e2834b0cba7f157b796c809ce235045982194f3a7c10bbf168b1c918bb79");
        assert_eq!(
            fingerprint_of(&manifest(r#""model_tier": "frontier","#)),
            vector
        );
        assert_eq!(fingerprint_of(&manifest("")), vector);
        assert_ne!(fingerprint_of(&manifest(r#""model_tier": "","#)), vector);
    }

    #[test]
    fn wrong_types_give_no_fingerprint() {
        assert_eq!(fingerprint_of(r#"{"personalities": "x"}"#), json!(false));
        assert_eq!(fingerprint_of("[]"), json!(false));
        assert!(fingerprint_of("{}").is_string());
    }
}
