//! The bundle fingerprint (spec: "Bundle fingerprint") and the `whoami --json` record
//! that carries it, as operations on a manifest document.
//!
//! The fingerprint is SHA-256 over the covered members, each followed by a NUL byte,
//! under the versioned prefix `agent-compose.bundle-fingerprint.v1`. A NUL inside a
//! member would let two manifests produce the same byte stream, so such a manifest gets
//! no fingerprint (`compose-bundle.fingerprint.nul`).

use serde_json::{json, Value};
use sha2::{Digest, Sha256};

use crate::diagnostic::rules::compose_bundle as rule;
use crate::diagnostic::{Format, Report, Span};
use crate::json::walk::Walker;
use crate::{Context, Input, Unsupported};

use super::manifest::MODEL_TIERS;
use super::{strings, Object};

const VERSION: &str = "agent-compose.bundle-fingerprint.v1";

/// The `fingerprint` operation: the manifest's fingerprint (`sha256:<hex>`) as the value,
/// or `false` with diagnostics when the covered members are missing or wrong; a tree is
/// refused.
pub fn fingerprint(input: Input<'_>, _context: &Context) -> Result<Report, Unsupported> {
    let source = input.document_bytes(Format::ComposeBundle, "fingerprint")?;
    let mut walker = super::document_walker(source);
    let value = covered(&mut walker).map_or(Value::Bool(false), |covered| {
        Value::String(covered.fingerprint())
    });
    walker.report.value = Some(value);
    Ok(walker.report)
}

/// The `whoami` operation: `{format, seat, role, bundle}` for the manifest, the seat
/// label taken from the context's `seat` or else the manifest's identity.display_name;
/// `false` when there is no seat label or no fingerprint. A tree is refused.
pub fn whoami(input: Input<'_>, context: &Context) -> Result<Report, Unsupported> {
    let source = input.document_bytes(Format::ComposeBundle, "whoami")?;
    let mut walker = super::document_walker(source);
    let covered = covered(&mut walker);
    let seat = context
        .get("seat")
        .and_then(Value::as_str)
        .map(str::to_owned)
        .or_else(|| display_name(source));
    let value = match (covered, seat) {
        (Some(covered), Some(seat)) if !walker.has_errors() => json!({
            "format": "agent-compose.whoami.v1",
            "seat": seat,
            "role": covered.role,
            "bundle": covered.fingerprint(),
        }),
        (Some(_), None) => {
            // compose-bundle.whoami.record (decision: no seat label, no record).
            walker.at_pointer(
                rule::WHOAMI_RECORD,
                "/identity/display_name",
                "no seat label: the context gives no seat and the manifest no identity.display_name",
            );
            Value::Bool(false)
        }
        _ => Value::Bool(false),
    };
    walker.report.value = Some(value);
    Ok(walker.report)
}

/// The manifest's identity.display_name, when it is a non-empty string.
fn display_name(source: &[u8]) -> Option<String> {
    let document = crate::json::read(source, super::LIMITS).ok()?;
    let identity = document.root.get("identity")?;
    let name = identity.value.get("display_name")?.value.as_str()?;
    (!name.trim().is_empty()).then(|| name.to_owned())
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

/// Reads the covered members, reporting what is missing or wrong; `None` if anything is.
fn covered(walker: &mut Walker<'_>) -> Option<Covered> {
    let document = walker.read()?;
    let root = Object::new(walker, &document.root, String::new())?;
    let text = |key: &str, walker: &mut Walker<'_>| {
        let value = root.required_str(walker, key)?;
        let span = root.get(key).map_or(root.node.span, |node| node.span);
        Some(nul(value, &root.member_pointer(key), span, walker))
    };
    let role = text("role", walker);
    let role_skill = [
        text("role_skill", walker),
        text("role_skill_source", walker),
        text("role_skill_digest", walker),
    ];
    // The spec reads a manifest without model_tier as frontier (see the rule's decision).
    let model_tier = match root.optional_str(walker, "model_tier") {
        Some(tier) if MODEL_TIERS.contains(&tier) => Some(tier.to_owned()),
        Some(tier) => {
            walker.diagnose(
                rule::MODEL_TIER_VALUE,
                "/model_tier",
                root.get("model_tier").map(|node| node.span),
                format!("model_tier {tier:?} is not \"frontier\", \"commodity\" or \"oss\""),
            );
            None
        }
        None if root.get("model_tier").is_some() => None,
        None => Some("frontier".to_owned()),
    };
    let list = |key: &str, required: bool, walker: &mut Walker<'_>| -> Option<Vec<String>> {
        let node = if required {
            root.required(walker, key)?
        } else {
            match root.get(key) {
                Some(node) => node,
                None => return Some(Vec::new()),
            }
        };
        let items = strings(walker, node, &root.member_pointer(key))?;
        Some(
            items
                .iter()
                .map(|item| nul(item.text, &item.pointer, item.span, walker))
                .collect(),
        )
    };
    let personalities = list("personalities", true, walker);
    let boundaries = list("boundaries", false, walker);
    let sources = list("sources", true, walker);
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

/// content[]: each entry's id and digest.
fn content(walker: &mut Walker<'_>, root: &Object<'_, '_>) -> Option<Vec<(String, String)>> {
    let node = root.required(walker, "content")?;
    let Some(items) = node.as_array() else {
        walker.type_error(node, "/content", "an array of objects");
        return None;
    };
    let mut entries = Vec::with_capacity(items.len());
    let mut complete = true;
    for (index, item) in items.iter().enumerate() {
        let Some(entry) = Object::new(walker, item, format!("/content/{index}")) else {
            complete = false;
            continue;
        };
        let member = |key: &str, walker: &mut Walker<'_>| {
            let value = entry.required_str(walker, key)?;
            let span = entry.get(key).map_or(entry.node.span, |node| node.span);
            Some(nul(value, &entry.member_pointer(key), span, walker))
        };
        match (member("id", walker), member("digest", walker)) {
            (Some(id), Some(digest)) => entries.push((id, digest)),
            _ => complete = false,
        }
    }
    complete.then_some(entries)
}

/// compose-bundle.fingerprint.nul (decision: keep the NUL-separated encoding injective):
/// reports a covered member holding NUL and returns the member's text.
fn nul(text: &str, pointer: &str, span: Span, walker: &mut Walker<'_>) -> String {
    if text.contains('\0') {
        walker.at(
            rule::FINGERPRINT_NUL,
            pointer,
            span,
            "a NUL inside a covered member would make the fingerprint collide with another manifest's",
        );
    }
    text.to_owned()
}
