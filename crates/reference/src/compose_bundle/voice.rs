//! The voice profile (spec: "The voice profile"): the linter profile a seat lints its own
//! prose against, built from carried rules (a selected skill's own `profile.json`) and
//! generated rules (one per term of the melded voice.avoid banks).
//!
//! The `voice-profile` operation takes
//! `{role?: {label, avoid?}, personalities?: [{label, avoid?}], carried?: [{skill,
//! profile}]}` (`profile` is the skill's root `profile.json` as a JSON value; any other
//! member, such as the profile's `name`, is ignored) and gives `{rules}`, the profile's
//! rules as far as the spec and agent-compose fix them (see `compose-bundle.voice.merge`):
//! a generated rule as `{id, pattern, bank}`, a carried one as its declared keys plus
//! `skill`. It gives `false` when there is no rule: then no file is written and delivery
//! names no voice_profile. The generated hint's wording, flags and source, and the
//! document's format marker and name, are agent-compose's own and not part of the value.
//! The validate side checks a named profile file's rule list.

use serde_json::{json, Map, Value};

use crate::diagnostic::rules::compose_bundle as rule;
use crate::diagnostic::{Format, Report};
use crate::json::walk::Walker;
use crate::json::Node;
use crate::{Context, Input, Unsupported};

use super::{strings, Object};

/// Characters escaped in a generated pattern: the metacharacters every mainstream regex
/// dialect shares (see `compose-bundle.voice.pattern`).
const META: &[char] = &[
    '\\', '.', '+', '*', '?', '(', ')', '|', '[', ']', '{', '}', '^', '$',
];

/// Where a rule came from.
#[derive(Debug, Clone)]
enum Origin {
    /// Generated from the avoid bank with this label.
    Bank(String),
    /// Carried from this skill's profile, with the hint, scope, flags and blocking it
    /// declares.
    Skill {
        skill: String,
        hint: String,
        scope: Option<String>,
        flags: Vec<String>,
        blocking: bool,
    },
}

/// One linter rule.
#[derive(Debug, Clone)]
struct Rule {
    id: String,
    pattern: String,
    origin: Origin,
}

impl Rule {
    /// The rule as the operation's value gives it: `{id, pattern, bank}` for a generated
    /// rule; `{id, pattern, hint, scope?, flags?, blocking?, skill}` for a carried one,
    /// whose optional keys appear only when set (non-empty, or true).
    fn to_json(&self) -> Value {
        let mut object = Map::new();
        object.insert("id".into(), json!(self.id));
        object.insert("pattern".into(), json!(self.pattern));
        match &self.origin {
            Origin::Bank(label) => {
                object.insert("bank".into(), json!(label));
            }
            Origin::Skill {
                skill,
                hint,
                scope,
                flags,
                blocking,
            } => {
                object.insert("hint".into(), json!(hint));
                if let Some(scope) = scope.as_ref().filter(|scope| !scope.is_empty()) {
                    object.insert("scope".into(), json!(scope));
                }
                if !flags.is_empty() {
                    object.insert("flags".into(), json!(flags));
                }
                if *blocking {
                    object.insert("blocking".into(), json!(true));
                }
                object.insert("skill".into(), json!(skill));
            }
        }
        Value::Object(object)
    }
}

/// The `voice-profile` operation; a tree is refused.
pub fn voice_profile(input: Input<'_>, context: &Context) -> Result<Report, Unsupported> {
    let source = input.document_bytes(Format::ComposeBundle, "voice-profile")?;
    let mut walker = super::document_walker(source, context);
    let value = build(&mut walker).unwrap_or(Value::Bool(false));
    walker.report.value = Some(value);
    Ok(walker.report)
}

fn build(walker: &mut Walker<'_>) -> Option<Value> {
    let document = walker.read()?;
    let root = Object::new(walker, &document.root, String::new())?;
    let mut generated = Vec::new();
    let mut seen_slugs: Vec<String> = Vec::new();
    if let Some(role) = root.get("role") {
        bank(walker, role, "/role", &mut seen_slugs, &mut generated);
    }
    if let Some(node) = root.get("personalities") {
        match node.as_array() {
            Some(items) => {
                for (index, item) in items.iter().enumerate() {
                    let pointer = format!("/personalities/{index}");
                    bank(walker, item, &pointer, &mut seen_slugs, &mut generated);
                }
            }
            None => walker.type_error(node, "/personalities", "an array of banks"),
        }
    }
    let mut carried = Vec::new();
    if let Some(node) = root.get("carried") {
        match node.as_array() {
            Some(items) => {
                for (index, item) in items.iter().enumerate() {
                    let pointer = format!("/carried/{index}");
                    carried_skill(walker, item, pointer, &mut carried);
                }
            }
            None => walker.type_error(node, "/carried", "an array of skills"),
        }
    }
    if walker.has_errors() {
        return None;
    }
    let rules = merge(carried, generated);
    // compose-bundle.voice.empty (spec: "A seat with no avoid bank and no carried profile
    // writes no file and the field is absent").
    if rules.is_empty() {
        return Some(Value::Bool(false));
    }
    let rules: Vec<Value> = rules.iter().map(Rule::to_json).collect();
    Some(json!({ "rules": rules }))
}

/// compose-bundle.voice.merge: carried rules first, deduplicated on id (the first wins)
/// and sorted by id; then the generated rules whose id is still free, sorted by id.
fn merge(carried: Vec<Rule>, generated: Vec<Rule>) -> Vec<Rule> {
    let mut claimed: Vec<String> = Vec::new();
    let mut first: Vec<Rule> = Vec::new();
    for rule in carried {
        if !claimed.contains(&rule.id) {
            claimed.push(rule.id.clone());
            first.push(rule);
        }
    }
    first.sort_by(|a, b| a.id.cmp(&b.id));
    let mut second: Vec<Rule> = generated
        .into_iter()
        .filter(|rule| !claimed.contains(&rule.id))
        .collect();
    second.sort_by(|a, b| a.id.cmp(&b.id));
    first.extend(second);
    first
}

/// One avoid bank `{label, avoid?}`: a generated rule per term whose slug is new.
fn bank(
    walker: &mut Walker<'_>,
    node: &Node<'_>,
    pointer: &str,
    seen: &mut Vec<String>,
    rules: &mut Vec<Rule>,
) {
    let Some(bank) = Object::new(walker, node, pointer.to_owned()) else {
        return;
    };
    let label = bank.required_str(walker, "label");
    let Some(terms) = bank.get("avoid") else {
        return;
    };
    let Some(terms) = strings(walker, terms, &bank.member_pointer("avoid")) else {
        return;
    };
    let Some(label) = label else {
        return;
    };
    for term in terms {
        let term_text = term.text.trim();
        let slug = slug(term_text);
        if slug.is_empty() {
            // compose-bundle.voice.term-unnamed (decision: skipped, as the public
            // implementation does, but not silently).
            walker.at(
                rule::VOICE_TERM_UNNAMED,
                &term.pointer,
                term.span,
                format!(
                    "avoid term {:?} has no ASCII letter or digit to name a rule; it is not linted",
                    term.text
                ),
            );
            continue;
        }
        if seen.contains(&slug) {
            continue;
        }
        let Some(pattern) = pattern(term_text) else {
            continue;
        };
        seen.push(slug.clone());
        rules.push(Rule {
            id: format!("avoid-{slug}"),
            pattern,
            origin: Origin::Bank(label.to_owned()),
        });
    }
}

/// The slug of a term: lowercased with the simple (one-to-one) case mapping, every run
/// of characters outside `a-z0-9` turned into one `-`, and `-` trimmed from both ends.
/// Only three characters lowercase into `a-z`: the ASCII capitals, KELVIN SIGN (to `k`)
/// and LATIN CAPITAL LETTER I WITH DOT ABOVE (to `i`, by the simple mapping).
pub(crate) fn slug(term: &str) -> String {
    let mut slug = String::with_capacity(term.len());
    let mut gap = false;
    for c in term.chars() {
        let lower = match c {
            'a'..='z' | '0'..='9' => Some(c),
            'A'..='Z' => Some(c.to_ascii_lowercase()),
            '\u{212A}' => Some('k'),
            '\u{130}' => Some('i'),
            _ => None,
        };
        match lower {
            Some(lower) => {
                if gap && !slug.is_empty() {
                    slug.push('-');
                }
                gap = false;
                slug.push(lower);
            }
            None => gap = true,
        }
    }
    slug
}

/// compose-bundle.voice.pattern: the pieces between whitespace, escaped and joined with
/// `\s+`, with `\b` at each end whose character is an ASCII word character.
pub(crate) fn pattern(term: &str) -> Option<String> {
    let pieces: Vec<String> = term.split_whitespace().map(escape).collect();
    if pieces.is_empty() {
        return None;
    }
    let mut body = pieces.join(r"\s+");
    let trimmed = term.trim();
    let is_word = |c: char| c.is_ascii_alphanumeric() || c == '_';
    if trimmed.chars().next().is_some_and(is_word) {
        body.insert_str(0, r"\b");
    }
    if trimmed.chars().next_back().is_some_and(is_word) {
        body.push_str(r"\b");
    }
    Some(body)
}

fn escape(piece: &str) -> String {
    let mut escaped = String::with_capacity(piece.len());
    for c in piece.chars() {
        if META.contains(&c) {
            escaped.push('\\');
        }
        escaped.push(c);
    }
    escaped
}

/// One carried skill `{skill, profile}`: its rules when its profile is a linter profile.
fn carried_skill(walker: &mut Walker<'_>, node: &Node<'_>, pointer: String, rules: &mut Vec<Rule>) {
    let Some(skill) = Object::new(walker, node, pointer) else {
        return;
    };
    let name = skill.required_str(walker, "skill");
    let Some(profile) = skill.required(walker, "profile") else {
        return;
    };
    let (Some(name), Some(items)) = (name, profile_rules(profile)) else {
        return;
    };
    let rules_pointer = format!("{}/rules", skill.member_pointer("profile"));
    for (index, item) in items.iter().enumerate() {
        let item = Object {
            node: item,
            pointer: format!("{rules_pointer}/{index}"),
        };
        if let Some(rule) = carried_rule(walker, &item, name) {
            rules.push(rule);
        }
    }
}

/// Discovery (spec: "Discovery reads the document rather than matching a skill name"):
/// the rules of a document whose `rules` is a non-empty array of objects that all have
/// non-empty string id, pattern and hint; `None` for any other document.
fn profile_rules<'n, 'a>(profile: &'n Node<'a>) -> Option<&'n [Node<'a>]> {
    let items = profile.get("rules")?.value.as_array()?;
    let complete = |item: &Node<'_>| {
        ["id", "pattern", "hint"].iter().all(|key| {
            item.get(key)
                .and_then(|member| member.value.as_str())
                .is_some_and(|text| !text.is_empty())
        })
    };
    (!items.is_empty() && items.iter().all(complete)).then_some(items)
}

/// compose-bundle.voice.carried: a carried rule keeps the declared keys, typed as
/// declared, and loses the rest; it records the skill it came from.
fn carried_rule(walker: &mut Walker<'_>, item: &Object<'_, '_>, skill: &str) -> Option<Rule> {
    let text = |key: &str| {
        item.get(key)
            .and_then(Node::as_str)
            .unwrap_or_default()
            .to_owned()
    };
    let mut wrong = |key: &str, expected: &str| {
        walker.diagnose(
            rule::VOICE_CARRIED,
            &item.member_pointer(key),
            item.get(key).map(|node| node.span),
            format!("carried rule key {key:?} must be {expected}"),
        );
    };
    let mut valid = true;
    let scope = match item.get("scope").map(|node| &node.value) {
        None | Some(crate::json::Value::Null) => None,
        Some(crate::json::Value::String(scope)) => Some(scope.to_string()),
        Some(_) => {
            wrong("scope", "a string");
            valid = false;
            None
        }
    };
    let flags = match item.get("flags") {
        None => Vec::new(),
        Some(node) if node.value == crate::json::Value::Null => Vec::new(),
        Some(node) => match node.as_array().and_then(|items| {
            items
                .iter()
                .map(|flag| flag.as_str().map(str::to_owned))
                .collect::<Option<Vec<String>>>()
        }) {
            Some(flags) => flags,
            None => {
                wrong("flags", "an array of strings");
                valid = false;
                Vec::new()
            }
        },
    };
    let blocking = match item.get("blocking").map(|node| &node.value) {
        None | Some(crate::json::Value::Null) => false,
        Some(crate::json::Value::Bool(blocking)) => *blocking,
        Some(_) => {
            wrong("blocking", "a boolean");
            valid = false;
            false
        }
    };
    match item.get("source").map(|node| &node.value) {
        None | Some(crate::json::Value::Null | crate::json::Value::String(_)) => {}
        Some(_) => {
            wrong("source", "a string");
            valid = false;
        }
    }
    valid.then(|| Rule {
        id: text("id"),
        pattern: text("pattern"),
        origin: Origin::Skill {
            skill: skill.to_owned(),
            hint: text("hint"),
            scope,
            flags,
            blocking,
        },
    })
}

/// Validate side: a voice profile file named by delivery.voice_profile, walked as a file
/// of the tree.
pub(crate) fn check_profile_file(walker: &mut Walker<'_>, strict: bool) {
    let Some(document) = walker.read() else {
        return;
    };
    let root = &document.root;
    // compose-bundle.voice.rules (spec: "The engine refuses an empty rule list").
    let Some(items) = root.get("rules").and_then(|member| member.value.as_array()) else {
        walker.at_pointer(
            rule::VOICE_RULES,
            "/rules",
            "a voice profile is a JSON object with a rules array",
        );
        return;
    };
    if items.is_empty() {
        walker.at_pointer(
            rule::VOICE_RULES,
            "/rules",
            "the rule list is empty; a seat without rules has no voice profile at all",
        );
    }
    // compose-bundle.voice.rule-shape (strict profile only): the engine needs id,
    // pattern and hint to use a rule, but the spec does not give the engine's document
    // and agent-compose verify never opens the profile, so the spec profile does not
    // judge a rule's keys.
    if !strict {
        return;
    }
    for (index, item) in items.iter().enumerate() {
        for key in ["id", "pattern", "hint"] {
            let usable = item
                .get(key)
                .and_then(|member| member.value.as_str())
                .is_some_and(|text| !text.is_empty());
            if !usable {
                walker.at_pointer(
                    rule::VOICE_RULE_SHAPE,
                    &format!("/rules/{index}/{key}"),
                    format!("a voice profile rule needs a non-empty string {key}"),
                );
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn patterns_from_the_field_notes() {
        assert_eq!(pattern("just").as_deref(), Some(r"\bjust\b"));
        assert_eq!(pattern("follow\tup").as_deref(), Some(r"\bfollow\s+up\b"));
        assert_eq!(pattern("C++").as_deref(), Some(r"\bC\+\+"));
        assert_eq!(pattern("...really").as_deref(), Some(r"\.\.\.really\b"));
        assert_eq!(pattern("$5 fee").as_deref(), Some(r"\$5\s+fee\b"));
        assert_eq!(pattern("  \n "), None);
    }

    #[test]
    fn slugs() {
        assert_eq!(slug("Follow  Up!"), "follow-up");
        assert_eq!(slug("C++"), "c");
        assert_eq!(slug("--just--"), "just");
        assert_eq!(slug("\u{130}stanbul"), "istanbul");
        assert_eq!(slug("très"), "tr-s");
        assert_eq!(slug("日本"), "");
    }

    /// The generated patterns compile in a real regex engine and anchor as the spec
    /// says: `just` does not match inside `adjust`, a wrapped phrase still matches.
    #[test]
    fn patterns_match_as_intended() {
        let just = regex::Regex::new(&format!("(?i){}", pattern("just").unwrap())).unwrap();
        assert!(just.is_match("I just did"));
        assert!(!just.is_match("adjust it"));
        let phrase = regex::Regex::new(&pattern("follow up").unwrap()).unwrap();
        assert!(phrase.is_match("we follow\n  up later"));
        let easy = regex::Regex::new(&pattern("easy").unwrap()).unwrap();
        assert!(!easy.is_match("greasy"));
        let money = regex::Regex::new(&pattern("$5 fee").unwrap()).unwrap();
        assert!(money.is_match("a $5 fee"));
    }
}
