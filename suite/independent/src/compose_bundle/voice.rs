//! The voice profile delivery names ("The voice profile"): a linter profile whose rule
//! list the engine refuses when empty, so a named profile holds at least one rule
//! (compose-bundle.voice.rules). Its existence and kind are judged with the other entry
//! points (compose-bundle.entry.exists, entry.kind); this reads the file it names.

use serde_json::Value;

use super::manifest::Facts;
use super::tree::Tree;
use super::{json, names, Planted, Run, MAX_JSON_BYTES};

/// Judges the named voice profile, when the manifest names one the bundle holds.
pub(crate) fn check(run: &mut Run<'_>, tree: &Tree, facts: &Facts) {
    let Some(path) = &facts.voice_profile else {
        return;
    };
    let Some(entry) = tree.find(run, path) else {
        return;
    };
    let at = format!("/{}", names::escape_pointer(path));
    let bytes = match tree.read(entry, MAX_JSON_BYTES) {
        Ok(bytes) => bytes,
        Err(error) => {
            run.error("compose-bundle.entry.kind", &at, error);
            return;
        }
    };
    let Some(value) = json::read(run, &at, &bytes) else {
        return;
    };
    let rules_at = format!("{at}/rules");
    let rules = match &value {
        Value::Object(profile) => profile.get("rules"),
        Value::Array(_) if run.on(Planted::VoiceProfileArrayAccepted) => Some(&value),
        _ => {
            run.error(
                "compose-bundle.voice.rules",
                &at,
                "the voice profile is not a JSON object",
            );
            return;
        }
    };
    let rules = match rules {
        Some(Value::Array(rules)) => rules,
        Some(_) => {
            run.error(
                "compose-bundle.voice.rules",
                &rules_at,
                "rules is not an array",
            );
            return;
        }
        None if run.on(Planted::VoiceRulesMissingAllowed) => return,
        None => {
            run.error(
                "compose-bundle.voice.rules",
                &rules_at,
                "the voice profile has no rule list",
            );
            return;
        }
    };
    // "The engine refuses an empty rule list rather than reading it as zero rules."
    if rules.is_empty() && !run.on(Planted::VoiceProfileEmptyRulesAllowed) {
        run.error(
            "compose-bundle.voice.rules",
            &rules_at,
            "an empty rule list, which the engine refuses",
        );
    }
    if run.strict() {
        for (index, rule) in rules.iter().enumerate() {
            rule_shape(run, &format!("{rules_at}/{index}"), rule);
        }
    }
}

/// compose-bundle.voice.rule-shape (strict): a rule is an object with non-empty string
/// id, pattern and hint.
fn rule_shape(run: &mut Run<'_>, at: &str, rule: &Value) {
    let Value::Object(rule) = rule else {
        run.error("compose-bundle.voice.rule-shape", at, "a rule is an object");
        return;
    };
    for key in ["id", "pattern", "hint"] {
        let usable = matches!(rule.get(key), Some(Value::String(text)) if !text.is_empty());
        if !usable {
            run.error(
                "compose-bundle.voice.rule-shape",
                &format!("{at}/{key}"),
                format!("no non-empty string {key}"),
            );
        }
    }
}
