//! trace.json, the decision trace, and the identity trees it implies. The spec names the
//! trace ("one identity tree per trace-selected skill"; sources are recorded "so the trace
//! and a human reader can refer to them") but not its shape, so these checks follow
//! agent-compose's one reader (`upstream` rules): the file, its marker, the profile
//! decisions selected exactly once each, the selected skills and their trees under
//! `<percent-encoded source>/<skill>/SKILL.md`.

use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet};

use serde_json::{Map, Value};

use super::manifest::{Facts, Mode};
use super::tree::{Kind, Tree};
use super::{json, names, Planted, Run, MAX_JSON_BYTES};

const TRACE: &str = "/trace.json";
const TRACE_NAMES: &[&str] = &["format", "decisions"];
const DECISION_NAMES: &[&str] = &["subject", "kind", "source", "outcome", "reason"];

/// One selected skill decision, as read.
struct Selected<'t> {
    name: &'t str,
    source: &'t str,
    at: String,
}

/// Judges the trace and, when the manifest says where they are, the identity trees.
pub(crate) fn check(run: &mut Run<'_>, tree: &Tree, facts: Option<&Facts>) {
    let Some(decisions) = read_trace(run, tree) else {
        return;
    };
    let mut profiles: Vec<(&str, String)> = Vec::new();
    let mut skills: Vec<Selected<'_>> = Vec::new();
    for (index, decision) in decisions.iter().enumerate() {
        let at = format!("{TRACE}/decisions/{index}");
        read_decision(run, &at, decision, &mut profiles, &mut skills);
    }
    if let Some(facts) = facts {
        check_profiles(run, facts, &profiles);
    }
    let valid = check_skills(run, facts, &skills);
    if let Some(facts) = facts {
        check_identity_trees(run, tree, facts, &valid);
    }
}

/// compose-bundle.trace.present, trace.format and the decisions list. `None` when there
/// are no decisions to read further (what is wrong is reported).
fn read_trace(run: &mut Run<'_>, tree: &Tree) -> Option<Vec<Value>> {
    let Some(entry) = tree.entries.get("trace.json") else {
        if !run.on(Planted::TraceOptional) {
            run.error(
                "compose-bundle.trace.present",
                TRACE,
                "the bundle has no trace.json",
            );
        }
        return None;
    };
    if entry.kind != Kind::File {
        run.error(
            "compose-bundle.trace.present",
            TRACE,
            "trace.json is not a regular file",
        );
        return None;
    }
    let bytes = match tree.read(entry, MAX_JSON_BYTES) {
        Ok(bytes) => bytes,
        Err(error) => {
            run.error("compose-bundle.trace.present", TRACE, error);
            return None;
        }
    };
    let value = json::read(run, TRACE, &bytes)?;
    let Value::Object(mut trace) = value else {
        run.error(
            "compose-bundle.trace.present",
            TRACE,
            "trace.json does not hold a JSON object",
        );
        return None;
    };
    key_case(run, &trace, TRACE, TRACE_NAMES);
    let format_ok = match trace.get("format") {
        Some(Value::String(format)) if run.on(Planted::TraceFormatPrefix) => {
            format.starts_with("agent-compose.trace")
        }
        Some(Value::String(format)) => format == "agent-compose.trace",
        None => run.on(Planted::TraceFormatOptional),
        _ => false,
    };
    if !format_ok {
        run.error(
            "compose-bundle.trace.format",
            &format!("{TRACE}/format"),
            "the trace's format is not `agent-compose.trace`",
        );
    }
    match trace.remove("decisions") {
        Some(Value::Array(decisions)) => Some(decisions),
        Some(_) => {
            run.error(
                "compose-bundle.field.type",
                &format!("{TRACE}/decisions"),
                "not an array of decisions",
            );
            None
        }
        None => {
            run.error(
                "compose-bundle.field.required",
                &format!("{TRACE}/decisions"),
                "the trace lists no decisions",
            );
            None
        }
    }
}

/// One decision: an object with string subject, kind and outcome, and a string source
/// when present (compose-bundle.field.required and field.type). Selected profile and skill
/// decisions are collected.
fn read_decision<'t>(
    run: &mut Run<'_>,
    at: &str,
    decision: &'t Value,
    profiles: &mut Vec<(&'t str, String)>,
    skills: &mut Vec<Selected<'t>>,
) {
    let Value::Object(decision) = decision else {
        run.error("compose-bundle.field.type", at, "a decision is an object");
        return;
    };
    key_case(run, decision, at, DECISION_NAMES);
    // agent-compose's Go reader reads a missing subject, kind or outcome as empty: the
    // decision then selects nothing. The strict profile asks for all three.
    let strict = run.strict();
    let lenient = !run.on(Planted::DecisionMembersRequired);
    let mut text = |key: &str, required: bool| -> Result<Option<&'t str>, ()> {
        match decision.get(key) {
            Some(Value::String(text)) => Ok(Some(text.as_str())),
            None if !required => Ok(None),
            None => {
                if strict || !lenient {
                    run.error(
                        "compose-bundle.trace.decision-members",
                        &format!("{at}/{key}"),
                        "a decision names its subject, kind and outcome",
                    );
                }
                if lenient && !strict {
                    return Ok(Some(""));
                }
                Err(())
            }
            Some(_) => {
                run.error(
                    "compose-bundle.field.type",
                    &format!("{at}/{key}"),
                    "not a string",
                );
                Err(())
            }
        }
    };
    let subject = text("subject", true);
    let kind = text("kind", true);
    let outcome = text("outcome", true);
    let source = text("source", false);
    let (Ok(Some(subject)), Ok(Some(kind)), Ok(Some(outcome)), Ok(source)) =
        (subject, kind, outcome, source)
    else {
        return;
    };
    if outcome != "selected" {
        return;
    }
    match kind {
        "profile" => profiles.push((subject, at.to_owned())),
        "skill" => {
            let name = match subject.strip_prefix("skill:") {
                Some(name) => name,
                None => {
                    run.error(
                        "compose-bundle.trace.skills",
                        &format!("{at}/subject"),
                        "a selected skill's subject is `skill:<name>`",
                    );
                    return;
                }
            };
            let Some(source) = source else {
                run.error(
                    "compose-bundle.trace.skills",
                    &format!("{at}/source"),
                    "a selected skill names its source",
                );
                return;
            };
            skills.push(Selected {
                name,
                source,
                at: at.to_owned(),
            });
        }
        _ => {}
    }
}

/// compose-bundle.trace.profiles: the selected profile decisions are exactly `role:<role>`,
/// `personality:<p>` per personality and `boundary:<b>` per boundary, each once.
fn check_profiles(run: &mut Run<'_>, facts: &Facts, profiles: &[(&str, String)]) {
    let (Some(role), Some(personalities), Some(boundaries)) =
        (&facts.role, &facts.personalities, &facts.boundaries)
    else {
        return;
    };
    let ignore_boundaries = run.on(Planted::TraceBoundariesIgnored);
    let mut expected = vec![format!("role:{role}")];
    expected.extend(personalities.iter().map(|p| format!("personality:{p}")));
    if !ignore_boundaries {
        expected.extend(boundaries.iter().map(|b| format!("boundary:{b}")));
    }
    let mut counts: HashMap<&str, usize> = HashMap::new();
    for (subject, _) in profiles {
        if ignore_boundaries && subject.starts_with("boundary:") {
            continue;
        }
        *counts.entry(subject).or_default() += 1;
    }
    let superset = run.on(Planted::TraceProfilesSupersetAllowed);
    let expected_set: HashSet<&str> = expected.iter().map(String::as_str).collect();
    for subject in &expected_set {
        match counts.get(subject).copied().unwrap_or(0) {
            0 => run.error(
                "compose-bundle.trace.profiles",
                &format!("{TRACE}/decisions"),
                format!("the trace does not select `{subject}`"),
            ),
            1 => {}
            _ if superset => {}
            _ => run.error(
                "compose-bundle.trace.profiles",
                &format!("{TRACE}/decisions"),
                format!("the trace selects `{subject}` more than once"),
            ),
        }
    }
    if superset {
        return;
    }
    for (subject, at) in profiles {
        if ignore_boundaries && subject.starts_with("boundary:") {
            continue;
        }
        if !expected_set.contains(subject) {
            run.error(
                "compose-bundle.trace.profiles",
                &format!("{at}/subject"),
                format!("`{subject}` is not the manifest's role, a personality or a boundary"),
            );
        }
    }
}

/// compose-bundle.trace.skills and trace.source: at least one selected skill, each a safe
/// name from a safe source the manifest records, none twice from one source. Returns the
/// selections whose trees can be looked for.
fn check_skills<'t>(
    run: &mut Run<'_>,
    facts: Option<&Facts>,
    skills: &'t [Selected<'t>],
) -> Vec<&'t Selected<'t>> {
    if skills.is_empty() && !run.on(Planted::TraceNoSkillAllowed) {
        run.error(
            "compose-bundle.trace.skills",
            &format!("{TRACE}/decisions"),
            "the trace selects no skill",
        );
    }
    let mut seen = HashSet::new();
    let mut valid = Vec::new();
    for skill in skills {
        let mut usable = true;
        if let Some(problem) = names::segment_problem(run, skill.name) {
            run.error(
                "compose-bundle.trace.skills",
                &format!("{}/subject", skill.at),
                problem,
            );
            usable = false;
        }
        let source_at = format!("{}/source", skill.at);
        if let Some(problem) = source_problem(run, skill.source) {
            run.error("compose-bundle.trace.skills", &source_at, problem);
            usable = false;
        } else if let Some(sources) = facts.and_then(|facts| facts.sources.as_ref()) {
            let recorded = sources.iter().any(|source| source == skill.source);
            if !recorded && !run.on(Planted::TraceSourceUnchecked) {
                run.error(
                    "compose-bundle.trace.source",
                    &source_at,
                    format!("`{}` is not one of the manifest's sources", skill.source),
                );
            }
        }
        if !seen.insert((skill.source, skill.name)) {
            if !run.on(Planted::TraceSkillDuplicatesAllowed) {
                run.error(
                    "compose-bundle.trace.skills",
                    &format!("{}/subject", skill.at),
                    "a skill selected twice from the same source",
                );
            }
            continue;
        }
        if usable {
            valid.push(skill);
        }
    }
    valid
}

/// A safe source id (compose-bundle.trace.skills): not empty and no locator (`..`, `/`,
/// a home or drive path). The source becomes a path segment only once percent-encoded,
/// which turns every other character (controls included) into a safe escape.
fn source_problem(run: &Run<'_>, source: &str) -> Option<&'static str> {
    if source.is_empty() {
        return Some("an empty source");
    }
    // agent-compose's safe segment refuses a character below U+0020 in a source too.
    if source.chars().any(|c| c < '\u{20}') {
        return Some("a source holding a control character is not a safe segment");
    }
    names::locator_problem(run, source)
}

/// compose-bundle.identity.tree: exactly one directory per selected skill at
/// `<encoded source>/<skill>`, each with a regular SKILL.md, and nothing else at those two
/// levels, under content/skills, where agent-compose (the reader) keeps and looks for them
/// whatever skills_root names.
fn check_identity_trees(run: &mut Run<'_>, tree: &Tree, facts: &Facts, skills: &[&Selected<'_>]) {
    let root = match (facts.mode, &facts.skills_root) {
        (None, _) => return,
        (Some(Mode::Native), Some(skills_root)) if run.on(Planted::TreesUnderSkillsRoot) => {
            skills_root.clone()
        }
        _ => "content/skills".to_owned(),
    };
    let root_at = format!("/{}", names::escape_pointer(&root));
    match tree.find(run, &root) {
        Some(entry) if entry.kind == Kind::Dir => {}
        _ => {
            run.error(
                "compose-bundle.identity.tree",
                &root_at,
                "the canonical identity trees are missing",
            );
            return;
        }
    }
    let mut expected: BTreeMap<String, BTreeSet<&str>> = BTreeMap::new();
    for skill in skills {
        expected
            .entry(names::encode_source(run, skill.source))
            .or_default()
            .insert(skill.name);
    }
    let extras_allowed = run.on(Planted::IdentityTreeExtrasAllowed);
    let mut found_sources: HashMap<String, String> = HashMap::new();
    for (name, entry) in tree.children(&root) {
        let mut wanted = encoded_key(run, name);
        if run.on(Planted::UnencodedSourceAccepted) {
            // The mistaken reader also takes the source as written for its directory.
            if let Some(skill) = skills.iter().find(|skill| skill.source == name) {
                wanted = encoded_key(run, &names::encode_source(run, skill.source));
            }
        }
        if entry.kind == Kind::Dir && expected.keys().any(|key| encoded_key(run, key) == wanted) {
            found_sources.insert(wanted, name.to_owned());
        } else if !extras_allowed {
            run.error(
                "compose-bundle.identity.tree",
                &format!("{root_at}/{}", names::escape_token(name)),
                "no selected skill's source: only identity trees stand here",
            );
        }
    }
    for (encoded, selected) in &expected {
        let Some(actual) = found_sources.get(&encoded_key(run, encoded)) else {
            for name in selected {
                run.error(
                    "compose-bundle.identity.tree",
                    &format!(
                        "{root_at}/{}/{}",
                        names::escape_token(encoded),
                        names::escape_token(name)
                    ),
                    "a selected skill has no identity tree",
                );
            }
            continue;
        };
        let source_dir = format!("{root}/{actual}");
        let source_at = format!("{root_at}/{}", names::escape_token(actual));
        for (name, entry) in tree.children(&source_dir) {
            let explained = entry.kind == Kind::Dir && selected.contains(name);
            if !explained && !extras_allowed {
                run.error(
                    "compose-bundle.identity.tree",
                    &format!("{source_at}/{}", names::escape_token(name)),
                    "no selected skill of this source: only identity trees stand here",
                );
            }
        }
        for name in selected {
            let skill_dir = format!("{source_dir}/{name}");
            let skill_at = format!("{source_at}/{}", names::escape_token(name));
            match tree.entries.get(&skill_dir) {
                Some(entry) if entry.kind == Kind::Dir => {
                    check_skill_md(run, tree, &skill_dir, &skill_at);
                }
                Some(_) => {} // reported above as something other than a tree
                None => run.error(
                    "compose-bundle.identity.tree",
                    &skill_at,
                    "a selected skill has no identity tree",
                ),
            }
        }
    }
}

/// An identity tree holds SKILL.md as a regular file.
fn check_skill_md(run: &mut Run<'_>, tree: &Tree, skill_dir: &str, skill_at: &str) {
    let found = if run.on(Planted::SkillMdCaseInsensitive) {
        tree.children(skill_dir)
            .into_iter()
            .find(|(name, _)| name.eq_ignore_ascii_case("SKILL.md"))
            .map(|(_, entry)| entry)
    } else {
        tree.entries.get(&format!("{skill_dir}/SKILL.md"))
    };
    match found {
        Some(entry) if entry.kind == Kind::File => {}
        Some(_) => run.error(
            "compose-bundle.identity.tree",
            &format!("{skill_at}/SKILL.md"),
            "SKILL.md is not a regular file",
        ),
        None => run.error(
            "compose-bundle.identity.tree",
            &format!("{skill_at}/SKILL.md"),
            "the identity tree has no SKILL.md",
        ),
    }
}

/// The name a source directory is compared by: exactly, or (planted) with the hex digits
/// of its percent-escapes in either case.
fn encoded_key(run: &Run<'_>, name: &str) -> String {
    if !run.on(Planted::PercentEncodingCaseInsensitive) {
        return name.to_owned();
    }
    let mut out = String::with_capacity(name.len());
    let mut after_percent = 0;
    for c in name.chars() {
        if after_percent > 0 {
            out.push(c.to_ascii_uppercase());
            after_percent -= 1;
        } else {
            out.push(c);
            if c == '%' {
                after_percent = 2;
            }
        }
    }
    out
}

/// compose-bundle.json.key-case (strict) for the trace.
fn key_case(run: &mut Run<'_>, object: &Map<String, Value>, base: &str, spec_names: &[&str]) {
    if !run.strict() {
        return;
    }
    for key in object.keys() {
        if spec_names
            .iter()
            .any(|name| key != name && key.eq_ignore_ascii_case(name))
        {
            run.error(
                "compose-bundle.json.key-case",
                &format!("{base}/{}", names::escape_token(key)),
                "a member named like one of the trace's except in letter case",
            );
        }
    }
}
