//! The decision trace `trace.json` (`{format: "agent-compose.trace", decisions: [{subject,
//! kind, source?, outcome, reason?}]}`): its shape, its agreement with the manifest, and
//! the skills it selects, whose identity trees the tree checks then look for.

use crate::diagnostic::rules::compose_bundle as rule;
use crate::json::pointer_join;
use crate::json::walk::Walker;

use super::manifest::Manifest;
use super::{is_safe_segment, Object};
use crate::Profile;

const TRACE_FIELDS: &[&str] = &["format", "decisions", "providers"];
const DECISION_FIELDS: &[&str] = &["subject", "kind", "source", "outcome", "reason"];

/// A skill the trace selects, with safe name and source.
#[derive(Debug, Clone)]
pub(crate) struct Selected {
    pub(crate) skill: String,
    pub(crate) source: String,
}

/// One decision with its place in the trace.
struct Decision<'n> {
    subject: &'n str,
    kind: &'n str,
    outcome: &'n str,
    source: Option<&'n str>,
    pointer: String,
}

/// Checks `trace.json` against the manifest (when it could be read) and returns the
/// skills it selects.
pub(crate) fn check(
    walker: &mut Walker<'_>,
    manifest: Option<&Manifest>,
    profile: Profile,
) -> Vec<Selected> {
    let strict = profile == Profile::Strict;
    let Some(document) = walker.read() else {
        return Vec::new();
    };
    let root = &document.root;
    if root.as_object().is_none() {
        // compose-bundle.trace.present (the trace is a JSON object).
        walker.at_pointer(
            rule::TRACE_PRESENT,
            "",
            format!("the trace is {}, not a JSON object", root.value.kind()),
        );
        return Vec::new();
    }
    let trace = Object {
        node: root,
        pointer: String::new(),
    };
    trace.key_case(walker, TRACE_FIELDS, strict);
    // compose-bundle.trace.format.
    match trace.get("format") {
        Some(node) if node.as_str() == Some("agent-compose.trace") => {}
        _ => walker.at_pointer(
            rule::TRACE_FORMAT,
            "/format",
            "the trace's format must be \"agent-compose.trace\"",
        ),
    }
    let Some(node) = trace.required(walker, "decisions") else {
        return Vec::new();
    };
    let Some(items) = node.as_array() else {
        walker.type_error(node, "/decisions", "an array of objects");
        return Vec::new();
    };
    let mut decisions = Vec::new();
    for (index, item) in items.iter().enumerate() {
        let Some(decision) = Object::new(walker, item, format!("/decisions/{index}")) else {
            continue;
        };
        decision.key_case(walker, DECISION_FIELDS, strict);
        let subject = decision_member(walker, &decision, "subject", strict);
        let kind = decision_member(walker, &decision, "kind", strict);
        let outcome = decision_member(walker, &decision, "outcome", strict);
        let source = decision.optional_str(walker, "source");
        decision.optional_str(walker, "reason");
        if let (Some(subject), Some(kind), Some(outcome)) = (subject, kind, outcome) {
            decisions.push(Decision {
                subject,
                kind,
                outcome,
                source,
                pointer: decision.pointer.clone(),
            });
        }
    }
    if let Some(manifest) = manifest {
        profiles(walker, &decisions, manifest);
    }
    skills(walker, &decisions, manifest)
}

/// A decision's subject, kind or outcome. agent-compose's Go reader, the one reader of a
/// trace, reads a missing one as empty, so the decision is inert (a decision without outcome
/// selects nothing); the strict profile asks for all three
/// (compose-bundle.trace.decision-members). A member of the wrong type is a type error.
fn decision_member<'n>(
    walker: &mut Walker<'_>,
    decision: &Object<'n, '_>,
    key: &str,
    strict: bool,
) -> Option<&'n str> {
    if decision.get(key).is_some() {
        return decision.optional_str(walker, key);
    }
    if strict {
        walker.at_pointer(
            rule::TRACE_DECISION_MEMBERS,
            &decision.member_pointer(key),
            format!("a decision names its {key}"),
        );
    }
    Some("")
}

/// compose-bundle.trace.profiles (upstream: agent-compose verify, the one reader of a
/// trace, requires the selected profile decisions to be exactly the manifest's role,
/// personalities and boundaries, each once).
fn profiles(walker: &mut Walker<'_>, decisions: &[Decision<'_>], manifest: &Manifest) {
    let Some(role) = &manifest.role else {
        return;
    };
    let mut expected: Vec<String> = vec![format!("role:{role}")];
    expected.extend(
        manifest
            .personalities
            .iter()
            .map(|p| format!("personality:{p}")),
    );
    expected.extend(manifest.boundaries.iter().map(|b| format!("boundary:{b}")));
    let mut seen: Vec<&str> = Vec::new();
    for decision in decisions
        .iter()
        .filter(|d| d.kind == "profile" && d.outcome == "selected")
    {
        let pointer = pointer_join(&decision.pointer, "subject");
        if seen.contains(&decision.subject) {
            walker.at_pointer(
                rule::TRACE_PROFILES,
                &pointer,
                format!("profile {:?} is selected twice", decision.subject),
            );
        } else if !expected.iter().any(|subject| subject == decision.subject) {
            walker.at_pointer(
                rule::TRACE_PROFILES,
                &pointer,
                format!(
                    "profile {:?} is selected but the manifest names no such role, personality or boundary",
                    decision.subject
                ),
            );
        }
        seen.push(decision.subject);
    }
    for subject in &expected {
        if !seen.contains(&subject.as_str()) {
            walker.at_pointer(
                rule::TRACE_PROFILES,
                "/decisions",
                format!("the trace does not select the manifest's profile {subject:?}"),
            );
        }
    }
}

/// compose-bundle.trace.skills and compose-bundle.trace.source.
fn skills(
    walker: &mut Walker<'_>,
    decisions: &[Decision<'_>],
    manifest: Option<&Manifest>,
) -> Vec<Selected> {
    let mut selected: Vec<Selected> = Vec::new();
    let mut any = false;
    for decision in decisions
        .iter()
        .filter(|d| d.kind == "skill" && d.outcome == "selected")
    {
        any = true;
        let subject_pointer = pointer_join(&decision.pointer, "subject");
        let source_pointer = pointer_join(&decision.pointer, "source");
        let skill = decision.subject.strip_prefix("skill:");
        let Some(skill) = skill.filter(|skill| is_safe_segment(skill)) else {
            walker.at_pointer(
                rule::TRACE_SKILLS,
                &subject_pointer,
                format!(
                    "{:?} is not `skill:` followed by a safe skill name",
                    decision.subject
                ),
            );
            continue;
        };
        let Some(source) = decision.source.filter(|source| is_safe_source(source)) else {
            let message = match decision.source {
                None => "a selected skill names its source".to_owned(),
                Some(source) => format!("source {source:?} is not a safe source id"),
            };
            walker.at_pointer(rule::TRACE_SKILLS, &source_pointer, message);
            continue;
        };
        if let Some(manifest) = manifest {
            if !manifest.sources.iter().any(|known| known == source) {
                walker.at_pointer(
                    rule::TRACE_SOURCE,
                    &source_pointer,
                    format!("source {source:?} is not among the manifest's sources"),
                );
            }
        }
        if selected
            .iter()
            .any(|seen| seen.skill == skill && seen.source == source)
        {
            walker.at_pointer(
                rule::TRACE_SKILLS,
                &subject_pointer,
                format!("skill {skill:?} from {source:?} is selected twice"),
            );
            continue;
        }
        selected.push(Selected {
            skill: skill.to_owned(),
            source: source.to_owned(),
        });
    }
    if !any {
        walker.at_pointer(
            rule::TRACE_SKILLS,
            "/decisions",
            "the trace selects no skill",
        );
    }
    selected
}

/// A source id that is safe as the base of a path segment, as agent-compose's verifier
/// tests it: not empty, `.` or `..`, without `/`, `\` or a character below U+0020.
fn is_safe_source(source: &str) -> bool {
    !matches!(source, "" | "." | "..")
        && !source.contains(['/', '\\'])
        && !source.chars().any(|c| c < '\u{20}')
}
