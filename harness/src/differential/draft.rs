//! Draft cases: an input and a `case.toml` holding the reference's verdict and
//! diagnostics under a REVIEW header, ready for the triage steps of CONTRIBUTING.md
//! ("Triage of a fuzz crash"). The fuzz tool's `case` command writes its drafts with
//! [`Draft::render`] too; a differential finding adds what the validator said
//! ([`write_finding`]), as REVIEW comments, so the draft is one file a reviewer reads
//! top to bottom.
//!
//! A finding's draft passes the corpus self-check as written: its diagnostics are the
//! reference's, those of rules that do not decide in the campaign's profile marked
//! `optional`. It names the existing cases of the finding's rule, and marks the draft a
//! duplicate when one of them asks the same question ([`duplicate_of`]: the same verdict
//! and diagnostics at the same places), so a reviewer can tell a new question from a new
//! spelling of an old one.
//!
//! A draft is not the contract: its verdict is the reference's output at the time, and a
//! person decides the verdict from the spec before the REVIEW lines go.

use std::path::{Path, PathBuf};

use sha2::{Digest, Sha256};
use soulcheck_vocabulary::{Format, Severity};

use super::campaign::{Finding, Source};
use crate::validator::{Diagnostic, Observation, Outcome};

/// The header every draft starts with: what the reviewer must do before committing.
pub const REVIEW_HEADER: &str = "\
# REVIEW before committing: the verdict and diagnostics below are the reference's
# output when this case was triaged, not yet the spec's word. Check each against the
# spec, name the rules the input exercises, then delete these lines.
";

/// Lines of each output stream of the validator a draft quotes.
const QUOTED_LINES: usize = 40;

/// Characters of one quoted line.
const QUOTED_WIDTH: usize = 200;

/// Drafts longer than this are written as a recipe when most of their bytes are one
/// character repeated (a size-limit finding): a small template and its padding, as the
/// corpus writes its own boundary inputs, not a file of hundreds of kilobytes.
pub const RECIPE_ABOVE: usize = 2 * 1024;

/// The placeholder a draft's recipe template holds.
pub const RECIPE_PLACEHOLDER: &str = "@@PAD@@";

/// A document written as a template and a repeated unit.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DraftRecipe {
    /// The document with its padding replaced by [`RECIPE_PLACEHOLDER`].
    pub template: Vec<u8>,
    /// The repeated character.
    pub unit: String,
    /// How often it repeats.
    pub count: usize,
}

/// The recipe of a document, when it is longer than [`RECIPE_ABOVE`] and its longest run
/// of one repeated character holds at least half its bytes; the template keeps one
/// placeholder where that run was, so the recipe builds the document byte for byte.
pub fn recipe_of(document: &[u8]) -> Option<DraftRecipe> {
    if document.len() <= RECIPE_ABOVE {
        return None;
    }
    let text = std::str::from_utf8(document).ok()?;
    if text.contains(RECIPE_PLACEHOLDER) {
        return None;
    }
    // The longest run, in bytes: (start byte, character, count).
    let bytes_of = |(_, c, n): (usize, char, usize)| n * c.len_utf8();
    let mut best: Option<(usize, char, usize)> = None;
    let mut run: Option<(usize, char, usize)> = None;
    for (at, c) in text.char_indices() {
        let next = match run {
            Some((start, r, n)) if r == c => (start, r, n + 1),
            _ => (at, c, 1),
        };
        run = Some(next);
        if best.is_none_or(|best| bytes_of(next) > bytes_of(best)) {
            best = Some(next);
        }
    }
    let (start, unit, count) = best?;
    let length = count * unit.len_utf8();
    if length * 2 < document.len() {
        return None;
    }
    let mut template = document[..start].to_vec();
    template.extend_from_slice(RECIPE_PLACEHOLDER.as_bytes());
    template.extend_from_slice(&document[start + length..]);
    Some(DraftRecipe {
        template,
        unit: unit.to_string(),
        count,
    })
}

/// A draft `case.toml`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Draft {
    /// The one-line description (with its REVIEW note).
    pub description: String,
    /// The input's name beside `case.toml`.
    pub input: String,
    /// The reference's diagnostics; the verdict and the rules follow from them.
    pub diagnostics: Vec<Diagnostic>,
    /// Rules whose diagnostics are written `optional = true` (the open readings beside a
    /// finding: a validator may report them or not).
    pub optional_rules: Vec<String>,
    /// More REVIEW comment lines after the header (without the `# `).
    pub notes: Vec<String>,
    /// When the input is written as a recipe: its template file (beside `case.toml`),
    /// unit and count; `input` is then the name the built input gets.
    pub recipe: Option<RecipeEntry>,
}

/// A draft's `[recipe]` table.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RecipeEntry {
    /// The template file's name.
    pub template: String,
    /// The repeated text.
    pub unit: String,
    /// How often it repeats.
    pub count: usize,
}

impl Draft {
    /// The `case.toml` text. A diagnostic's severity is written only where it differs
    /// from its rule's default, which `default_severity` gives.
    pub fn render(&self, default_severity: &dyn Fn(&str) -> Option<Severity>) -> String {
        let mut rules: Vec<&str> = self.diagnostics.iter().map(|d| d.rule.as_str()).collect();
        rules.sort_unstable();
        rules.dedup();
        let errors = self
            .diagnostics
            .iter()
            .any(|diagnostic| diagnostic.severity == Severity::Error);
        let verdict = if errors {
            "reject"
        } else if self.diagnostics.is_empty() {
            "accept"
        } else {
            "accept-with-warnings"
        };
        let mut toml = String::from(REVIEW_HEADER);
        for note in &self.notes {
            toml.push_str(&format!("# REVIEW: {}\n", comment_safe(note)));
        }
        toml.push_str(&format!(
            "description = {}\n",
            toml_string(&self.description)
        ));
        let quoted: Vec<String> = rules.iter().map(|rule| toml_string(rule)).collect();
        toml.push_str(&format!("rules = [{}]\n", quoted.join(", ")));
        toml.push_str(&format!("verdict = \"{verdict}\"\n"));
        match &self.recipe {
            None => toml.push_str(&format!("input = {}\n", toml_string(&self.input))),
            Some(recipe) => {
                toml.push_str("\n[recipe]\n");
                toml.push_str(&format!("template = {}\n", toml_string(&recipe.template)));
                toml.push_str(&format!(
                    "placeholder = {}\n",
                    toml_string(RECIPE_PLACEHOLDER)
                ));
                toml.push_str(&format!("unit = {}\n", toml_string(&recipe.unit)));
                toml.push_str(&format!("count = {}\n", recipe.count));
                toml.push_str(&format!("output = {}\n", toml_string(&self.input)));
            }
        }
        for diagnostic in &self.diagnostics {
            toml.push_str("\n[[diagnostic]]\n");
            toml.push_str(&format!("rule = {}\n", toml_string(&diagnostic.rule)));
            let location = diagnostic.location.clone().unwrap_or_default();
            if let Some(pointer) = &location.pointer {
                toml.push_str(&format!("pointer = {}\n", toml_string(pointer)));
            }
            if let (Some(line), Some(column)) = (location.line, location.column) {
                toml.push_str(&format!("line = {line}\ncolumn = {column}\n"));
            }
            if default_severity(&diagnostic.rule) != Some(diagnostic.severity) {
                toml.push_str(&format!("severity = \"{}\"\n", diagnostic.severity));
            }
            if self.optional_rules.contains(&diagnostic.rule) {
                toml.push_str("optional = true\n");
            }
        }
        toml
    }
}

/// A TOML basic string.
pub fn toml_string(text: &str) -> String {
    let mut out = String::from("\"");
    for c in text.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            c if c.is_control() => out.push_str(&format!("\\u{:04X}", c as u32)),
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

/// Text a TOML comment may hold: control characters other than tab spelled `\u{..}`.
fn comment_safe(text: &str) -> String {
    text.chars()
        .map(|c| {
            if c.is_control() && c != '\t' {
                format!("\\u{{{:X}}}", c as u32)
            } else {
                c.to_string()
            }
        })
        .collect()
}

/// The invisible characters the corpus self-check wants named in a description.
pub fn invisible_words(bytes: &[u8]) -> Vec<&'static str> {
    let mut words = Vec::new();
    if bytes.starts_with(b"\xEF\xBB\xBF") {
        words.push("BOM");
    }
    if bytes.contains(&b'\r') {
        words.push("CR");
    }
    if bytes.contains(&b'\t') {
        words.push("tab");
    }
    if bytes
        .split(|&b| b == b'\n')
        .any(|line| line.ends_with(b" ") || line.ends_with(b"\t"))
    {
        words.push("trailing whitespace");
    }
    if !bytes.is_empty() && !bytes.ends_with(b"\n") {
        words.push("no final newline");
    }
    words
}

/// Whether `id` may name a case: lowercase letters, digits and single hyphens.
pub fn is_case_id(id: &str) -> bool {
    !id.is_empty()
        && !id.starts_with('-')
        && !id.ends_with('-')
        && !id.contains("--")
        && id
            .bytes()
            .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-')
}

/// The case ID of a finding: `fuzz-<kind>-<rule without its format>-<8 hex digits of the
/// document's SHA-256>`, so two campaigns finding the same input name it alike.
pub fn finding_id(finding: &Finding, format: Format) -> String {
    let digest = format!("{:x}", Sha256::digest(&finding.document));
    let mut id = format!("fuzz-{}", finding.key.kind.name());
    if let Some(rule) = &finding.key.rule {
        let tail = rule
            .strip_prefix(&format!("{}.", format.name()))
            .unwrap_or(rule);
        id.push('-');
        id.push_str(&tail.replace('.', "-"));
    }
    id.push('-');
    id.push_str(&digest[..8]);
    // Rule parts are lowercase kebab-case already; whatever else slips in becomes a hyphen.
    let mut clean = String::new();
    for c in id.chars() {
        let c = if c.is_ascii_lowercase() || c.is_ascii_digit() {
            c
        } else {
            '-'
        };
        if !(c == '-' && clean.ends_with('-')) {
            clean.push(c);
        }
    }
    clean.trim_matches('-').to_owned()
}

/// An existing case, as a draft compares itself with it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Existing {
    /// Its ID.
    pub id: String,
    /// The rules it exercises.
    pub rules: Vec<String>,
    /// Its input's [`shape`], when the input is one document.
    pub shape: Option<String>,
    /// Its question in the campaign's profile: the diagnostics it expects, as
    /// [`question`] writes them; `None` for an implementation-defined case (it asks what
    /// the spec leaves open, which no finding is about).
    pub question: Option<Vec<String>>,
}

/// The question an answer asks: the verdict and each diagnostic's rule, severity and
/// pointer, sorted. Two inputs whose right answers have the same question ask the same
/// thing of a validator, whatever else differs in their bytes (a longer string, another
/// order of members), so a finding whose reference answer has the question of an existing
/// case repeats that case.
pub fn question<'a>(
    reject: bool,
    diagnostics: impl Iterator<Item = (&'a str, Severity, Option<&'a str>)>,
) -> Vec<String> {
    let mut lines: Vec<String> = diagnostics
        .map(|(rule, severity, pointer)| format!("{severity} {rule} at {}", pointer.unwrap_or("")))
        .collect();
    lines.sort();
    lines.insert(0, if reject { "reject" } else { "accept" }.to_owned());
    lines
}

/// The existing case a finding repeats, if one asks its question: a case of the finding's
/// rule whose expected answer has the question of the reference's answer on the shrunk
/// input. An accepted input's question says only "accept", which every valid case
/// shares, so there the input's [`shape`] must match too.
pub fn duplicate_of<'e>(finding: &Finding, existing: &'e [Existing]) -> Option<&'e Existing> {
    let rule = finding.key.rule.as_ref()?;
    let oracle = &finding.disagreement.oracle;
    let mine = question(
        oracle.verdict == soulcheck_vocabulary::Verdict::Reject,
        oracle.diagnostics.iter().flatten().map(|d| {
            let pointer = d.location.as_ref().and_then(|l| l.pointer.as_deref());
            (d.rule.as_str(), d.severity, pointer)
        }),
    );
    let accepted = oracle.verdict == soulcheck_vocabulary::Verdict::Accept;
    let shape = accepted.then(|| self::shape(&finding.document));
    existing.iter().find(|case| {
        case.rules.contains(rule)
            && case.question.as_ref() == Some(&mine)
            && (shape.is_none() || case.shape == shape)
    })
}

/// The shape of a document: for JSON, its structure with every string, number and boolean
/// standing for its type (keys kept: they are the structure); otherwise its text with
/// every run of letters and digits as `w` and every run of blanks as one space. Two
/// inputs of one shape ask the same question in other words.
pub fn shape(bytes: &[u8]) -> String {
    fn skeleton(value: &serde_json::Value, out: &mut String) {
        match value {
            serde_json::Value::Null => out.push('0'),
            serde_json::Value::Bool(_) => out.push('b'),
            serde_json::Value::Number(_) => out.push('n'),
            serde_json::Value::String(text) if text.is_empty() => out.push('e'),
            serde_json::Value::String(_) => out.push('s'),
            serde_json::Value::Array(items) => {
                out.push('[');
                for item in items {
                    skeleton(item, out);
                    out.push(',');
                }
                out.push(']');
            }
            serde_json::Value::Object(members) => {
                out.push('{');
                for (key, member) in members {
                    out.push_str(&format!("{key:?}:"));
                    skeleton(member, out);
                    out.push(',');
                }
                out.push('}');
            }
        }
    }
    if let Ok(value) = serde_json::from_slice::<serde_json::Value>(bytes) {
        let mut out = String::from("json:");
        skeleton(&value, &mut out);
        return out;
    }
    let mut out = String::from("text:");
    for c in String::from_utf8_lossy(bytes).chars() {
        let c = if c.is_alphanumeric() {
            'w'
        } else if c == ' ' || c == '\t' {
            ' '
        } else {
            c
        };
        if !((c == 'w' || c == ' ') && out.ends_with(c)) {
            out.push(c);
        }
    }
    out
}

/// Where a finding came from, for its REVIEW notes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Origin<'a> {
    /// The validator's name.
    pub validator: &'a str,
    /// The campaign's seed.
    pub seed: u64,
    /// The command that reproduces the campaign up to the finding's run, if known.
    pub reproduce: Option<String>,
}

/// Writes a finding as a draft case `<out>/<format>/<id>/`: the shrunk input and a
/// `case.toml` with the oracle's verdict and diagnostics (those of rules that do not
/// decide in `profile` optional), the REVIEW header, how the finding was found, whether
/// its input isolates it, the `existing` cases of its rule (and one of the same input
/// shape, if any) and what the validator said. An existing draft of the same ID (the same
/// input) is overwritten. Returns the case directory.
pub fn write_finding(
    out: &Path,
    finding: &Finding,
    source: &dyn Source,
    differential: &super::Differential<'_>,
    existing: &[Existing],
    origin: &Origin<'_>,
) -> std::io::Result<PathBuf> {
    let catalogue = differential.catalogue;
    let format = source.format();
    let dir = out.join(format.name()).join(finding_id(finding, format));
    std::fs::create_dir_all(&dir)?;
    let input = source.write(&dir, &finding.data, &finding.document)?;
    let disagreement = &finding.disagreement;
    let mut description = format!(
        "differential fuzz finding: {} {} (REVIEW: say what this input tests)",
        finding.key.kind,
        finding.key.rule.as_deref().unwrap_or("with no rule named"),
    );
    let is_file = std::fs::symlink_metadata(dir.join(&input)).is_ok_and(|m| m.is_file());
    let invisible = if is_file {
        invisible_words(&finding.document)
    } else {
        Vec::new()
    };
    // A long input that is mostly padding (a size-limit finding) is written as a recipe.
    let recipe = match recipe_of(&finding.document).filter(|_| is_file) {
        Some(recipe) => {
            let template = match input.strip_prefix("input.") {
                Some(rest) => format!("template.{rest}"),
                None => format!("template-{input}"),
            };
            std::fs::write(dir.join(&template), &recipe.template)?;
            std::fs::remove_file(dir.join(&input))?;
            Some(RecipeEntry {
                template,
                unit: recipe.unit,
                count: recipe.count,
            })
        }
        None => None,
    };
    if !invisible.is_empty() {
        description.push_str(&format!("; holds {}", invisible.join(", ")));
    }
    let mut notes = vec![
        format!(
            "`soulcheck fuzz` found this input: seed {}, run {} ({} runs disagreed this way), shrunk from {} to {} bytes in {} trials{}.",
            origin.seed,
            finding.first_run,
            finding.count,
            finding.original_size,
            finding.document.len(),
            finding.shrink_steps,
            if finding.reproduced { "" } else { " (not shrunk: the validator did not answer the same way twice)" },
        ),
    ];
    if let Some(command) = &origin.reproduce {
        notes.push(format!("reproduce: {command}"));
    }
    notes.push(format!("generator: {}", finding.summary));
    notes.push(if finding.isolating {
        "isolating: on this input the reference reports nothing beside the finding's question (only its rule; for a rejected valid input, nothing; for an extra diagnostic, the one defect both verdicts agree on)".to_owned()
    } else {
        "not isolating: the reference reports other defects too; reduce the input to the finding's question before committing".to_owned()
    });
    notes.extend(related(finding, existing));
    notes.push(format!("{}: {}", finding.key.kind, disagreement.explain()));
    notes.push(format!(
        "below: the oracle's verdict and diagnostics; {} said:",
        origin.validator
    ));
    notes.extend(validator_said(disagreement));
    let diagnostics = disagreement.oracle.diagnostics.clone().unwrap_or_default();
    let mut optional_rules: Vec<String> = Vec::new();
    for diagnostic in &diagnostics {
        if !differential.decides(&diagnostic.rule) && !optional_rules.contains(&diagnostic.rule) {
            optional_rules.push(diagnostic.rule.clone());
        }
    }
    if !optional_rules.is_empty() {
        notes.push(format!(
            "optional below: {} (not deciding in the {} profile)",
            optional_rules.join(", "),
            differential.profile
        ));
    }
    let draft = Draft {
        description,
        input,
        diagnostics,
        optional_rules,
        notes,
        recipe,
    };
    let default_severity = |rule: &str| catalogue.get(rule).map(|rule| rule.severity);
    std::fs::write(dir.join("case.toml"), draft.render(&default_severity))?;
    Ok(dir)
}

/// REVIEW lines naming the existing cases of the finding's rule, and the first of them
/// whose input has the shrunk input's shape.
fn related(finding: &Finding, existing: &[Existing]) -> Vec<String> {
    const NAMED: usize = 12;
    let Some(rule) = &finding.key.rule else {
        return Vec::new();
    };
    let same_rule: Vec<&Existing> = existing
        .iter()
        .filter(|case| case.rules.contains(rule))
        .collect();
    if same_rule.is_empty() {
        return vec![format!("no existing case exercises {rule}")];
    }
    let mut names: Vec<&str> = same_rule
        .iter()
        .take(NAMED)
        .map(|c| c.id.as_str())
        .collect();
    if same_rule.len() > NAMED {
        names.push("...");
    }
    let mut lines = vec![format!(
        "existing cases of {rule} ({}): {}",
        same_rule.len(),
        names.join(", ")
    )];
    lines.push(match duplicate_of(finding, existing) {
        Some(case) => format!(
            "DUPLICATE of {}: that case asks this question already (the reference gives both the same verdict and diagnostics at the same places); the validator fails it too, so commit this draft only if it asks something that case does not",
            case.id
        ),
        None => "no existing case of this rule asks this question (the same verdict and diagnostics at the same places)".to_owned(),
    });
    lines
}

/// The validator's answer as comment lines: its output streams when it ran as a process,
/// else its observation as JSON.
fn validator_said(disagreement: &super::Disagreement) -> Vec<String> {
    let mut lines = Vec::new();
    match &disagreement.validator.outcome {
        Outcome::Observed(observation) => lines.push(format!(
            "  answer: {}",
            observation_json(observation)
                .chars()
                .take(4 * QUOTED_WIDTH)
                .collect::<String>()
        )),
        other => lines.push(format!("  outcome: {other:?}")),
    }
    if let Some(evidence) = &disagreement.validator.evidence {
        lines.push(format!("  exit: {}", evidence.exit));
        for (name, stream) in [("stdout", &evidence.stdout), ("stderr", &evidence.stderr)] {
            if stream.is_empty() {
                continue;
            }
            lines.push(format!("  {name}:"));
            for (shown, line) in stream.text.lines().enumerate() {
                if shown == QUOTED_LINES {
                    lines.push("  | ...".to_owned());
                    break;
                }
                // Shown, not passed through: an escape would reach whoever reads the
                // draft, and TOML refuses control characters even in comments.
                let cut: String = line.chars().take(QUOTED_WIDTH).collect();
                lines.push(format!(
                    "  | {}",
                    soulcheck_vocabulary::display::visible(&cut)
                ));
            }
            if stream.truncated {
                lines.push(format!("  ({name} was longer; cut)"));
            }
        }
    }
    lines
}

fn observation_json(observation: &Observation) -> String {
    serde_json::to_string(observation).unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;
    use soulcheck_vocabulary::Location;

    #[test]
    fn a_draft_renders_the_triage_shape() {
        let draft = Draft {
            description: "fuzz finding (REVIEW: say what this input tests)".to_owned(),
            input: "input.soulkit.json".to_owned(),
            diagnostics: vec![
                Diagnostic {
                    rule: "soul-kit.name.length".to_owned(),
                    severity: Severity::Error,
                    location: Some(Location {
                        pointer: Some("/name".to_owned()),
                        ..Location::default()
                    }),
                    message: String::new(),
                },
                Diagnostic {
                    rule: "soul-kit.json.syntax".to_owned(),
                    severity: Severity::Warning,
                    location: Some(Location {
                        pointer: None,
                        line: Some(2),
                        column: Some(3),
                    }),
                    message: String::new(),
                },
            ],
            notes: vec!["said:\u{1}".to_owned()],
            optional_rules: Vec::new(),
            recipe: None,
        };
        let text = draft.render(&|_| Some(Severity::Error));
        assert_eq!(
            text,
            format!(
                "{REVIEW_HEADER}# REVIEW: said:\\u{{1}}\n\
                 description = \"fuzz finding (REVIEW: say what this input tests)\"\n\
                 rules = [\"soul-kit.json.syntax\", \"soul-kit.name.length\"]\n\
                 verdict = \"reject\"\n\
                 input = \"input.soulkit.json\"\n\n\
                 [[diagnostic]]\nrule = \"soul-kit.name.length\"\npointer = \"/name\"\n\n\
                 [[diagnostic]]\nrule = \"soul-kit.json.syntax\"\nline = 2\ncolumn = 3\nseverity = \"warning\"\n"
            )
        );
        let parsed: toml::Table = text.parse().expect("the draft is TOML");
        assert_eq!(parsed["verdict"].as_str(), Some("reject"));
    }

    #[test]
    fn a_padded_input_becomes_a_recipe_that_builds_it_again() {
        let mut document = b"{\"name\": \"a\"".to_vec();
        document.extend(std::iter::repeat_n(b' ', 5000));
        document.extend_from_slice(b"}\n");
        let recipe = recipe_of(&document).expect("mostly padding");
        assert_eq!(recipe.unit, " ");
        assert_eq!(recipe.count, 5000);
        let built = String::from_utf8(recipe.template.clone())
            .unwrap()
            .replace(RECIPE_PLACEHOLDER, &recipe.unit.repeat(recipe.count));
        assert_eq!(built.as_bytes(), document.as_slice());
        // A multi-byte unit counts in characters.
        let wide = "é".repeat(3000);
        let recipe = recipe_of(format!("[\"{wide}\"]").as_bytes()).expect("padding");
        assert_eq!((recipe.unit.as_str(), recipe.count), ("é", 3000));
        // Short inputs, and long ones without one dominant run, stay files.
        assert!(recipe_of(b"{}").is_none());
        let varied: Vec<u8> = (0..5000u32).map(|i| b'a' + (i % 26) as u8).collect();
        assert!(recipe_of(&varied).is_none());
        // The rendered table.
        let draft = Draft {
            description: "d".to_owned(),
            input: "input.soulkit.json".to_owned(),
            diagnostics: Vec::new(),
            optional_rules: Vec::new(),
            notes: Vec::new(),
            recipe: Some(RecipeEntry {
                template: "template.soulkit.json".to_owned(),
                unit: " ".to_owned(),
                count: 5000,
            }),
        };
        let text = draft.render(&|_| None);
        let parsed: toml::Table = text.parse().expect("TOML");
        assert!(parsed.get("input").is_none(), "{text}");
        assert_eq!(parsed["recipe"]["count"].as_integer(), Some(5000));
        assert_eq!(
            parsed["recipe"]["output"].as_str(),
            Some("input.soulkit.json")
        );
    }

    #[test]
    fn case_ids() {
        assert!(is_case_id(
            "fuzz-accepts-invalid-json-duplicate-key-0a1b2c3d"
        ));
        assert!(!is_case_id("Fuzz"));
        assert!(!is_case_id("a--b"));
        assert!(!is_case_id("-a"));
    }
}
