//! Writes a generated case's `case.toml` in the corpus's hand-written style, so that a
//! generated file and its committed copy can be compared byte for byte.
//!
//! The style: the top-level keys in a fixed order, arrays of rules on one line,
//! deviations one per line with a trailing comma, a blank line before each
//! `[[diagnostic]]` table, and the strict profile's `[strict]` table (with its
//! `[[strict.diagnostic]]` tables) last. Strings are basic strings with only the escapes
//! TOML needs.

/// The content of one `case.toml`.
#[derive(Debug, Clone, PartialEq)]
pub struct CaseFile {
    /// One line saying what the case tests.
    pub description: String,
    /// Every rule exercised, with the format prefix.
    pub rules: Vec<String>,
    /// `accept`, `accept-with-warnings`, `reject` or `implementation-defined`.
    pub verdict: String,
    /// The reference's verdict of an implementation-defined case.
    pub reference: Option<String>,
    /// The input file name, unless the input is built from a recipe.
    pub input: Option<String>,
    /// Other validators are judged on the verdict alone.
    pub verdict_only: bool,
    /// Known deviations of public implementations.
    pub deviations: Vec<String>,
    /// How this format's hand-written files lay out what they share with these.
    pub style: Style,
    /// The `[context]` table: inputs a rule needs besides the document.
    pub context: toml::Table,
    /// The recipe building a large input.
    pub recipe: Option<Recipe>,
    /// Expected diagnostics, in order.
    pub diagnostics: Vec<Diagnostic>,
    /// What the strict profile expects instead, where it differs.
    pub strict: Option<Strict>,
}

/// A `[strict]` table: the strict profile's definite verdict and diagnostics.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Strict {
    /// `accept`, `accept-with-warnings` or `reject`.
    pub verdict: String,
    /// Expected diagnostics, in order, written as `[[strict.diagnostic]]` tables.
    pub diagnostics: Vec<Diagnostic>,
}

/// The layout choices the formats' hand-written case files differ in; generated files
/// follow their format's choice so that they match the files they replace.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, serde::Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Style {
    /// `deviations` on one line rather than one entry per line.
    #[serde(default)]
    pub inline_deviations: bool,
    /// `verdict_only` before `input` rather than after it.
    #[serde(default)]
    pub verdict_only_before_input: bool,
    /// Indent each deviation by four spaces rather than two.
    #[serde(default)]
    pub deviations_indent_4: bool,
}

/// A `[recipe]` table (see `Recipe` in the harness's corpus module).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Recipe {
    /// The committed template file.
    pub template: String,
    /// The text in the template the filling replaces.
    pub placeholder: String,
    /// The repeated text.
    pub unit: String,
    /// How many times the unit is repeated, or
    pub count: Option<usize>,
    /// the size of the whole input.
    pub total_bytes: Option<usize>,
    /// The input name validators see.
    pub output: String,
}

/// One `[[diagnostic]]` table.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Diagnostic {
    /// The rule, with the format prefix.
    pub rule: String,
    /// JSON pointer, for a located JSON diagnostic.
    pub pointer: Option<String>,
    /// 1-based line, for a text position.
    pub line: Option<u32>,
    /// 1-based column, for a text position.
    pub column: Option<u32>,
    /// `warning` when not the default error.
    pub severity: Option<String>,
    /// Another validator may report it or not; the reference reports it.
    pub optional: bool,
}

impl CaseFile {
    /// The file's text.
    pub fn render(&self) -> String {
        let mut out = String::new();
        out += &format!("description = {}\n", quote(&self.description));
        out += &format!("rules = {}\n", inline_array(&self.rules));
        out += &format!("verdict = {}\n", quote(&self.verdict));
        if let Some(reference) = &self.reference {
            out += &format!("reference = {}\n", quote(reference));
        }
        if self.verdict_only && self.style.verdict_only_before_input {
            out += "verdict_only = true\n";
        }
        if let Some(input) = &self.input {
            out += &format!("input = {}\n", quote(input));
        }
        if self.verdict_only && !self.style.verdict_only_before_input {
            out += "verdict_only = true\n";
        }
        if !self.deviations.is_empty() && self.style.inline_deviations {
            out += &format!("deviations = {}\n", inline_array(&self.deviations));
        } else if !self.deviations.is_empty() {
            out += "deviations = [\n";
            for deviation in &self.deviations {
                let indent = if self.style.deviations_indent_4 {
                    "    "
                } else {
                    "  "
                };
                out += &format!("{indent}{},\n", quote(deviation));
            }
            out += "]\n";
        }
        if !self.context.is_empty() {
            out += "\n[context]\n";
            for (key, value) in &self.context {
                out += &format!("{key} = {}\n", value_text(value));
            }
        }
        if let Some(recipe) = &self.recipe {
            out += "\n[recipe]\n";
            out += &format!("template = {}\n", quote(&recipe.template));
            out += &format!("placeholder = {}\n", quote(&recipe.placeholder));
            out += &format!("unit = {}\n", quote(&recipe.unit));
            if let Some(count) = recipe.count {
                out += &format!("count = {count}\n");
            }
            if let Some(total) = recipe.total_bytes {
                out += &format!("total_bytes = {total}\n");
            }
            out += &format!("output = {}\n", quote(&recipe.output));
        }
        for diagnostic in &self.diagnostics {
            diagnostic.render("diagnostic", &mut out);
        }
        if let Some(strict) = &self.strict {
            out += "\n[strict]\n";
            out += &format!("verdict = {}\n", quote(&strict.verdict));
            for diagnostic in &strict.diagnostics {
                diagnostic.render("strict.diagnostic", &mut out);
            }
        }
        out
    }
}

impl Diagnostic {
    /// Appends the diagnostic as an array-of-tables entry named `table`, after a blank
    /// line.
    fn render(&self, table: &str, out: &mut String) {
        *out += &format!("\n[[{table}]]\n");
        *out += &format!("rule = {}\n", quote(&self.rule));
        if let Some(pointer) = &self.pointer {
            *out += &format!("pointer = {}\n", quote(pointer));
        }
        if let Some(line) = self.line {
            *out += &format!("line = {line}\n");
        }
        if let Some(column) = self.column {
            *out += &format!("column = {column}\n");
        }
        if let Some(severity) = &self.severity {
            *out += &format!("severity = {}\n", quote(severity));
        }
        if self.optional {
            *out += "optional = true\n";
        }
    }
}

/// A context value: strings and arrays in the file's own quoting, anything else as TOML
/// writes it.
fn value_text(value: &toml::Value) -> String {
    match value {
        toml::Value::String(text) => quote(text),
        toml::Value::Array(items) => {
            let items: Vec<String> = items.iter().map(value_text).collect();
            format!("[{}]", items.join(", "))
        }
        other => other.to_string(),
    }
}

fn inline_array(items: &[String]) -> String {
    let quoted: Vec<String> = items.iter().map(|item| quote(item)).collect();
    format!("[{}]", quoted.join(", "))
}

/// A TOML basic string: quotes, backslashes and control characters escaped, everything
/// else (non-ASCII included) written as itself.
pub fn quote(text: &str) -> String {
    let mut out = String::with_capacity(text.len() + 2);
    out.push('"');
    for c in text.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\t' => out.push_str("\\t"),
            '\r' => out.push_str("\\r"),
            c if c.is_control() && (c as u32) < 0x80 => {
                out.push_str(&format!("\\u{:04X}", c as u32))
            }
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_rejecting_case_renders_like_the_corpus() {
        let file = CaseFile {
            description: "summary holds U+0000, written as the escape \\u0000".to_owned(),
            rules: vec!["soul-kit.string.control".to_owned()],
            verdict: "reject".to_owned(),
            reference: None,
            input: Some("input.soulkit.json".to_owned()),
            verdict_only: false,
            deviations: vec![],
            style: Style::default(),
            context: toml::Table::new(),
            recipe: None,
            diagnostics: vec![Diagnostic {
                rule: "soul-kit.string.control".to_owned(),
                pointer: Some("/summary".to_owned()),
                line: None,
                column: None,
                severity: None,
                optional: false,
            }],
            strict: None,
        };
        assert_eq!(
            file.render(),
            "description = \"summary holds U+0000, written as the escape \\\\u0000\"\n\
             rules = [\"soul-kit.string.control\"]\n\
             verdict = \"reject\"\n\
             input = \"input.soulkit.json\"\n\
             \n\
             [[diagnostic]]\n\
             rule = \"soul-kit.string.control\"\n\
             pointer = \"/summary\"\n"
        );
    }

    #[test]
    fn optional_diagnostics_and_the_strict_table_render_last() {
        let diagnostic = |rule: &str, optional| Diagnostic {
            rule: rule.to_owned(),
            pointer: Some("/summary".to_owned()),
            line: None,
            column: None,
            severity: None,
            optional,
        };
        let file = CaseFile {
            description: "summary holds U+0080".to_owned(),
            rules: vec!["soul-kit.string.control".to_owned()],
            verdict: "implementation-defined".to_owned(),
            reference: Some("reject".to_owned()),
            input: Some("input.soulkit.json".to_owned()),
            verdict_only: false,
            deviations: vec![],
            style: Style::default(),
            context: toml::Table::new(),
            recipe: None,
            diagnostics: vec![
                diagnostic("soul-kit.string.control", false),
                diagnostic("soul-kit.string.marker", true),
            ],
            strict: Some(Strict {
                verdict: "reject".to_owned(),
                diagnostics: vec![diagnostic("soul-kit.string.c1-control", false)],
            }),
        };
        let text = file.render();
        assert!(
            text.ends_with(
                "[[diagnostic]]\n\
             rule = \"soul-kit.string.marker\"\n\
             pointer = \"/summary\"\n\
             optional = true\n\
             \n\
             [strict]\n\
             verdict = \"reject\"\n\
             \n\
             [[strict.diagnostic]]\n\
             rule = \"soul-kit.string.c1-control\"\n\
             pointer = \"/summary\"\n"
            ),
            "{text}"
        );
        // What the harness reads back: the strict table and the optional flag.
        let parsed: toml::Table = toml::from_str(&text).expect("valid TOML");
        assert_eq!(parsed["strict"]["verdict"].as_str(), Some("reject"));
        assert_eq!(parsed["diagnostic"][1]["optional"].as_bool(), Some(true));
    }
}
