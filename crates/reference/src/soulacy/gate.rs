//! The two package operations: `calendar-order` (which of two calendar versions is newer)
//! and `requirements-gate` (classify a package's declared requirements against a workspace
//! and decide whether the import proceeds). Their input shapes are documented in the
//! header of `cases/soulacy-package/rules.toml`.

use std::cmp::Ordering;

use serde_json::{json, Value as JsonValue};

use super::calendar;
use super::package::{self, check_calendar, check_requires, Schema};
use super::{Settings, PACKAGE_RULES};
use crate::diagnostic::rules::soulacy_package as rule;
use crate::diagnostic::{Format, Report};
use crate::json::walk::{optional, Walker};
use crate::json::{pointer_join, Member, Node};

/// A kind of requirement: the list it is declared in (in `requires` and, for the kinds
/// classified against the workspace, in the workspace) and the kind name the gate reports.
struct Kind {
    list: &'static str,
    kind: &'static str,
    /// Whether the workspace is consulted: the spec classifies each declared secret,
    /// provider, channel and peer agent against the target workspace; an MCP server's
    /// metadata is bundled with the package, so it is always `declared`.
    in_workspace: bool,
}

/// The kinds, in the order requirements are reported.
const KINDS: &[Kind] = &[
    Kind {
        list: "secrets",
        kind: "secret",
        in_workspace: true,
    },
    Kind {
        list: "providers",
        kind: "provider",
        in_workspace: true,
    },
    Kind {
        list: "channels",
        kind: "channel",
        in_workspace: true,
    },
    Kind {
        list: "mcp_servers",
        kind: "mcp_server",
        in_workspace: false,
    },
    Kind {
        list: "peer_agents",
        kind: "peer_agent",
        in_workspace: true,
    },
];

/// The states a workspace may give an ID.
const STATES: &[&str] = &["available", "configured"];

/// soulacy-package.operation.input: a malformed operation input. Always recorded, so the
/// operation's value is the same in both profiles (`invalid`, `refused`); outside the
/// strict profile the diagnostics are dropped at the end ([`spec_profile_input`]).
fn input_error(walker: &mut Walker<'_>, pointer: &str, span: crate::Span, message: String) {
    walker.at(rule::OPERATION_INPUT, pointer, span, message);
}

/// Members of the operation input object, each unknown one reported as an input error.
fn closed_input<'n, 'a>(
    walker: &mut Walker<'_>,
    root: &'n Node<'a>,
    known: &[&str],
) -> Option<&'n [Member<'a>]> {
    let Some(members) = root.as_object() else {
        input_error(
            walker,
            "",
            root.span,
            format!(
                "the operation input is a JSON object, not {}",
                root.value.kind()
            ),
        );
        return None;
    };
    for member in members {
        if !known.contains(&member.key.as_ref()) {
            input_error(
                walker,
                &pointer_join("", &member.key),
                member.key_span,
                format!("unknown member {:?} of the operation input", member.key),
            );
        }
    }
    Some(members)
}

/// A required string member of the operation input.
fn input_string<'n>(
    walker: &mut Walker<'_>,
    root: &'n Node<'_>,
    field: &str,
) -> Option<(&'n str, crate::Span)> {
    let pointer = pointer_join("", field);
    let Some(member) = root.get(field) else {
        input_error(
            walker,
            &pointer,
            root.span,
            format!("required member {field:?} is missing"),
        );
        return None;
    };
    match member.value.as_str() {
        Some(text) => Some((text, member.value.span)),
        None => {
            input_error(
                walker,
                &pointer,
                member.value.span,
                format!(
                    "{field} must be a string, found {}",
                    member.value.value.kind()
                ),
            );
            None
        }
    }
}

/// `calendar-order`: compares `a` with `b` (soulacy-package.version.order).
pub fn calendar_order(source: &[u8], strict: bool) -> Report {
    let mut walker = Walker::new(
        source,
        &PACKAGE_RULES,
        Format::SoulacyPackage,
        super::profile_of(strict),
    );
    let order = walker.read().and_then(|document| {
        let root = &document.root;
        closed_input(&mut walker, root, &["a", "b"])?;
        let a = input_string(&mut walker, root, "a");
        let b = input_string(&mut walker, root, "b");
        let (a, b) = (a?, b?);
        check_calendar(&mut walker, "/a", a.0, a.1);
        check_calendar(&mut walker, "/b", b.0, b.1);
        let a = calendar::parse(a.0).ok()?;
        let b = calendar::parse(b.0).ok()?;
        Some(calendar::compare(&a, &b))
    });
    let value = match order {
        _ if walker.has_errors() => "invalid",
        Some(Ordering::Less) => "less",
        Some(Ordering::Equal) => "equal",
        Some(Ordering::Greater) => "greater",
        None => "invalid",
    };
    walker.report.value = Some(JsonValue::from(value));
    spec_profile_input(&mut walker.report, strict);
    walker.report
}

/// soulacy-package.operation.input is strict only: the input shapes are this project's
/// protocol, not the spec's, so outside the strict profile a malformed input gives its
/// value (`invalid`, `refused`: no answer) without a diagnostic, and no verdict rests on
/// it.
fn spec_profile_input(report: &mut Report, strict: bool) {
    if !strict {
        report
            .diagnostics
            .retain(|diagnostic| diagnostic.rule != rule::OPERATION_INPUT);
    }
}

/// One thing the target workspace has.
struct Present<'n> {
    /// The list it is in (`secrets`, `providers`, ...).
    list: &'static str,
    /// Its ID.
    id: &'n str,
    /// `available` or `configured`.
    state: &'n str,
}

/// The target workspace: everything it has.
struct Workspace<'n> {
    present: Vec<Present<'n>>,
}

impl Workspace<'_> {
    fn state(&self, list: &str, id: &str) -> Option<&str> {
        self.present
            .iter()
            .find(|present| present.list == list && present.id == id)
            .map(|present| present.state)
    }
}

fn read_workspace<'n>(walker: &mut Walker<'_>, root: &'n Node<'_>) -> Option<Workspace<'n>> {
    let Some(member) = root.get("workspace") else {
        input_error(
            walker,
            "/workspace",
            root.span,
            "required member \"workspace\" is missing".to_owned(),
        );
        return None;
    };
    let node = &member.value;
    let Some(members) = node.as_object() else {
        input_error(
            walker,
            "/workspace",
            node.span,
            format!("workspace must be an object, found {}", node.value.kind()),
        );
        return None;
    };
    let mut workspace = Workspace {
        present: Vec::new(),
    };
    for member in members {
        let pointer = pointer_join("/workspace", &member.key);
        let Some(list) = KINDS
            .iter()
            .filter(|kind| kind.in_workspace)
            .map(|kind| kind.list)
            .find(|list| *list == member.key)
        else {
            input_error(
                walker,
                &pointer,
                member.key_span,
                format!("unknown workspace list {:?}", member.key),
            );
            continue;
        };
        let Some(entries) = member.value.as_object() else {
            input_error(
                walker,
                &pointer,
                member.value.span,
                format!("{list} must be an object mapping IDs to \"available\" or \"configured\""),
            );
            continue;
        };
        for entry in entries {
            match entry.value.as_str() {
                Some(state) if STATES.contains(&state) => workspace.present.push(Present {
                    list,
                    id: entry.key.as_ref(),
                    state,
                }),
                _ => input_error(
                    walker,
                    &pointer_join(&pointer, &entry.key),
                    entry.value.span,
                    "a workspace state is \"available\" or \"configured\"".to_owned(),
                ),
            }
        }
    }
    Some(workspace)
}

/// `requirements-gate`: classifies the declared requirements (soulacy-package.gate.classification)
/// and decides the import (soulacy-package.gate.decision).
pub fn requirements_gate(source: &[u8], settings: &Settings) -> Report {
    let mut walker = Walker::new(
        source,
        &PACKAGE_RULES,
        Format::SoulacyPackage,
        super::profile_of(settings.strict),
    );
    let value = match walker.read() {
        Some(document) => gate(&mut walker, &document.root, settings),
        None => refused(),
    };
    walker.report.value = Some(value);
    spec_profile_input(&mut walker.report, settings.strict);
    walker.report
}

fn refused() -> JsonValue {
    json!({"decision": "refused", "requirements": []})
}

fn gate(walker: &mut Walker<'_>, root: &Node<'_>, settings: &Settings) -> JsonValue {
    let Some(_) = closed_input(
        walker,
        root,
        &["package", "requires", "workspace", "acknowledge_missing"],
    ) else {
        return refused();
    };
    let workspace = read_workspace(walker, root);
    let acknowledged = match root.get("acknowledge_missing") {
        None => false,
        Some(member) => match member.value.value {
            crate::json::Value::Bool(flag) => flag,
            _ => {
                input_error(
                    walker,
                    "/acknowledge_missing",
                    member.value.span,
                    "acknowledge_missing must be a boolean".to_owned(),
                );
                false
            }
        },
    };
    let package = optional(root, "package");
    let bare = optional(root, "requires");
    // The requires block to classify.
    let requires = match (package, bare) {
        (Some(package), None) => match package::check_root(walker, package, "/package", settings) {
            Some(Schema::V2) => {
                optional(package, "manifest").and_then(|manifest| optional(manifest, "requires"))
            }
            // v1 has no requires block: nothing is gated (a v1 requires member is
            // unknown and ignored).
            _ => None,
        },
        (None, Some(requires)) => {
            check_requires(walker, requires, "/requires", settings.strict);
            Some(requires)
        }
        (Some(_), Some(requires)) => {
            input_error(
                walker,
                "/requires",
                requires.span,
                "give either package or requires, not both".to_owned(),
            );
            None
        }
        (None, None) => {
            input_error(
                walker,
                "",
                root.span,
                "the input needs a package or a requires block".to_owned(),
            );
            None
        }
    };
    let Some(workspace) = workspace else {
        return refused();
    };
    if walker.has_errors() {
        return refused();
    }

    let mut requirements = Vec::new();
    if let Some(requires) = requires {
        for &Kind {
            list,
            kind,
            in_workspace,
        } in KINDS
        {
            let name_field = if list == "secrets" { "key" } else { "id" };
            let items = optional(requires, list)
                .and_then(Node::as_array)
                .unwrap_or_default();
            for item in items {
                let Some(id) = optional(item, name_field).and_then(Node::as_str) else {
                    continue;
                };
                let status = match (list, workspace.state(list, id)) {
                    // MCP server metadata travels with the package (spec: declared).
                    _ if !in_workspace => "declared",
                    // The http channel is always there (spec: built_in).
                    ("channels", _) if id == "http" => "built_in",
                    (_, Some(state)) => state,
                    (_, None) => "missing",
                };
                requirements.push(json!({"kind": kind, "id": id, "status": status}));
            }
        }
    }
    let missing = requirements
        .iter()
        .any(|requirement| requirement["status"] == "missing");
    let decision = if missing && !acknowledged {
        "needs-acknowledgement"
    } else {
        "proceed"
    };
    json!({"decision": decision, "requirements": requirements})
}
