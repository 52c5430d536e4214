//! Family files: the compact description of generated cases.
//!
//! A family file (`xtask/families/<format>/*.toml`) names a base document and lists cases
//! as edits of it, one `[[case]]` table each, plus `[[family]]` tables whose `rows` fill
//! the `{name}` placeholders of their `[[family.case]]` templates (one case per row and
//! template). The module expands templates and turns each case into its input bytes and
//! its `case.toml`; `CONTRIBUTING.md` ("Generated cases") documents the keys.

use std::collections::BTreeMap;
use std::fs;
use std::path::{Path, PathBuf};

use serde::Deserialize;
use soulcheck_harness::corpus::is_valid_case_id;
use toml::{Table, Value};

use crate::case_file::{CaseFile, Diagnostic, Recipe, Strict, Style};
use crate::document::{self, Layout, Pointer};
use crate::edit::{self, Edit, EditSpec};

/// One family file, as written.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct FamilyFile {
    /// The format of every case in the file.
    format: String,
    /// The base document, relative to the family file.
    base: String,
    /// The name of the input file in each case directory.
    input: String,
    /// The default repeated text of `{ fill = N }` values.
    #[serde(default)]
    filler: String,
    /// How the format's hand-written case files are laid out, where formats differ:
    /// `{ inline_deviations = true, verdict_only_before_input = true }`.
    #[serde(default)]
    style: Style,
    /// The `[context]` of every case that does not give its own (`context = {}`: none).
    #[serde(default)]
    context: Table,
    /// Cases written out one by one.
    #[serde(default, rename = "case")]
    cases: Vec<Table>,
    /// Cases written as templates and rows.
    #[serde(default, rename = "family")]
    families: Vec<Family>,
}

/// Templates filled in once per row.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct Family {
    /// The values of the placeholders, one table per row; every row has the same keys.
    rows: Vec<Table>,
    /// The case templates.
    #[serde(rename = "case")]
    templates: Vec<Table>,
}

impl Family {
    /// The rows, checked to name the same placeholders, so that a row missing a column
    /// is an error rather than a literal `{name}` left in a case.
    fn rows(&self) -> Result<&[Table], String> {
        let keys = |row: &Table| row.keys().cloned().collect::<Vec<String>>();
        if let Some(first) = self.rows.first() {
            if let Some(odd) = self.rows.iter().find(|row| keys(row) != keys(first)) {
                return Err(format!(
                    "family rows must all have the keys {:?}; one has {:?}",
                    keys(first),
                    keys(odd)
                ));
            }
        }
        Ok(&self.rows)
    }
}

/// The keys of a case that are not those of its (first) edit.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct CaseSpec {
    /// Permanent case ID: the directory name.
    id: String,
    /// One line saying what the case tests.
    description: String,
    /// Rules exercised; by default the rules of `expect`, in order. The format prefix
    /// may be left out.
    #[serde(default)]
    rules: Option<Vec<String>>,
    /// By default: `implementation-defined` with a `reference`, else `reject` when an
    /// expected diagnostic is an error, `accept-with-warnings` when all are warnings,
    /// `accept` when there are none.
    #[serde(default)]
    verdict: Option<String>,
    /// The reference's verdict of an implementation-defined case.
    #[serde(default)]
    reference: Option<String>,
    /// Other validators are judged on the verdict alone.
    #[serde(default)]
    verdict_only: bool,
    /// Known deviations of public implementations.
    #[serde(default)]
    deviations: Vec<String>,
    /// Inputs a rule needs besides the document (`now`, `official_keys`, ...); the
    /// file's `context` by default.
    #[serde(default)]
    context: Option<Table>,
    /// Expected diagnostics: `rule`, `rule@/pointer`, `rule@` (the root), `rule@line:column`
    /// or `rule@-` (no location); a pointer may be followed by ` line:column` (a position
    /// inside the string it names), and any of them by ` warning`, then by ` optional` (a
    /// diagnostic other validators may leave out; the reference reports it). A bare `rule`
    /// is located at the pointer of the case's only tree edit.
    #[serde(default)]
    expect: Vec<String>,
    /// What the strict profile expects where it differs from the spec profile: the
    /// case.toml's `[strict]` table.
    #[serde(default)]
    strict: Option<StrictSpec>,
    /// Further edits, applied after the one written in the case's own keys.
    #[serde(default)]
    edits: Vec<EditSpec>,
    /// Another layout than the base's: `{ indent = "\t" }`, `{ compact = true }`,
    /// `{ newline = "\r\n" }`, `{ final_newline = false }`.
    #[serde(default)]
    layout: Option<LayoutSpec>,
    /// For an input too large to commit: the edited base is written as the recipe's
    /// template (holding the placeholder), and `case.toml` gets a `[recipe]` table.
    #[serde(default)]
    recipe: Option<RecipeSpec>,
    /// The layout of this case's `case.toml` where it differs from the file's `style`
    /// (a reviewed case written differently from the rest of its format); replaces it
    /// whole.
    #[serde(default)]
    style: Option<Style>,
}

/// A `[recipe]` as a family file writes it; the output is the family's input name.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
struct RecipeSpec {
    template: String,
    placeholder: String,
    unit: String,
    #[serde(default)]
    count: Option<usize>,
    #[serde(default)]
    total_bytes: Option<usize>,
}

/// A `[strict]` table as a family file writes it: `{ expect = [...] }`, with `verdict`
/// following from `expect` as a case's own does (it cannot be implementation-defined).
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
struct StrictSpec {
    #[serde(default)]
    verdict: Option<String>,
    #[serde(default)]
    expect: Vec<String>,
}

/// The keys of [`CaseSpec`]; every other key of a case table belongs to its first edit.
const CASE_KEYS: &[&str] = &[
    "id",
    "description",
    "rules",
    "verdict",
    "reference",
    "verdict_only",
    "deviations",
    "context",
    "expect",
    "strict",
    "edits",
    "layout",
    "recipe",
    "style",
];

/// A layout as a family file writes it.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
struct LayoutSpec {
    #[serde(default)]
    indent: Option<String>,
    #[serde(default)]
    compact: bool,
    #[serde(default)]
    newline: Option<String>,
    #[serde(default)]
    final_newline: Option<bool>,
}

impl LayoutSpec {
    fn layout(&self) -> Layout {
        let default = Layout::default();
        Layout {
            indent: if self.compact {
                None
            } else {
                self.indent.clone().or(default.indent)
            },
            newline: self.newline.clone().unwrap_or(default.newline),
            final_newline: self.final_newline.unwrap_or(default.final_newline),
        }
    }
}

/// One generated case: where it goes and its files.
#[derive(Debug, Clone)]
pub struct GeneratedCase {
    /// The format directory under `cases/`.
    pub format: String,
    /// The case ID.
    pub id: String,
    /// The family file that describes it, for messages.
    pub source: PathBuf,
    /// File names in the case directory and their bytes.
    pub files: Vec<(String, Vec<u8>)>,
}

/// Reads every family file under `families` (one directory per format) and generates
/// every case they describe, in file order.
pub fn generate_all(families: &Path) -> Result<Vec<GeneratedCase>, String> {
    let mut files = Vec::new();
    let mut formats: Vec<PathBuf> = read_dir(families)?
        .into_iter()
        .filter(|path| path.is_dir())
        .collect();
    formats.sort();
    for format in formats {
        let mut tomls: Vec<PathBuf> = read_dir(&format)?
            .into_iter()
            .filter(|path| path.extension().is_some_and(|ext| ext == "toml"))
            .collect();
        tomls.sort();
        files.extend(tomls);
    }
    let mut cases = Vec::new();
    let mut seen = BTreeMap::new();
    for file in files {
        for case in generate_file(&file)? {
            if let Some(previous) = seen.insert(case.id.clone(), case.source.clone()) {
                return Err(format!(
                    "case `{}` is described twice: in {} and in {}",
                    case.id,
                    previous.display(),
                    case.source.display()
                ));
            }
            cases.push(case);
        }
    }
    Ok(cases)
}

fn read_dir(dir: &Path) -> Result<Vec<PathBuf>, String> {
    fs::read_dir(dir)
        .and_then(|entries| {
            entries
                .map(|entry| entry.map(|entry| entry.path()))
                .collect()
        })
        .map_err(|error| format!("{}: {error}", dir.display()))
}

/// Generates the cases of one family file.
pub fn generate_file(path: &Path) -> Result<Vec<GeneratedCase>, String> {
    let context = |error: String| format!("{}: {error}", path.display());
    let text = fs::read_to_string(path).map_err(|error| context(error.to_string()))?;
    let file: FamilyFile = toml::from_str(&text).map_err(|error| context(error.to_string()))?;
    let base_path = path.parent().unwrap_or(Path::new("")).join(&file.base);
    let base = fs::read(&base_path).map_err(|error| context(format!("{}: {error}", file.base)))?;
    let mut tables = file.cases.clone();
    for family in &file.families {
        for row in family.rows().map_err(&context)? {
            for template in &family.templates {
                tables.push(substitute_table(template, row).map_err(&context)?);
            }
        }
    }
    let mut checked_round_trip = false;
    let mut cases = Vec::new();
    for table in tables {
        let id = table
            .get("id")
            .and_then(Value::as_str)
            .unwrap_or("(no id)")
            .to_owned();
        let case = build_case(&file, &base, table)
            .map_err(|error| context(format!("case `{id}`: {error}")))?;
        if !is_valid_case_id(&case.id) {
            return Err(context(format!(
                "case ID `{}` is not lowercase kebab-case",
                case.id
            )));
        }
        if case.rewrites_base && !checked_round_trip {
            // A tree edit rewrites the whole base, so the base must already be in the
            // layout the printer writes, or every case would differ beyond its edit.
            let reread =
                document::read(&base).map_err(|error| context(format!("base: {error}")))?;
            if document::write(&reread, &Layout::default()) != base {
                return Err(context(format!(
                    "base {} is not in the printer's layout (two-space indent, one member per line)",
                    file.base
                )));
            }
            checked_round_trip = true;
        }
        let input_name = match &case.case_file.recipe {
            Some(recipe) => recipe.template.clone(),
            None => file.input.clone(),
        };
        cases.push(GeneratedCase {
            format: file.format.clone(),
            id: case.id,
            source: path.to_owned(),
            files: vec![
                (input_name, case.input),
                ("case.toml".to_owned(), case.case_file.render().into_bytes()),
            ],
        });
    }
    Ok(cases)
}

/// Fills `{name}` placeholders of a template from a row (`{name|upper}`: in capitals).
/// A string that is exactly one placeholder takes the row's value with its type (so
/// `fill = "{max}"` is a number); other strings get the value's text. Braces naming no
/// row key are left alone, so JSON text keeps its own braces.
fn substitute_table(template: &Table, row: &Table) -> Result<Table, String> {
    template
        .iter()
        .map(|(key, value)| Ok((key.clone(), substitute(value, row)?)))
        .collect()
}

fn substitute(value: &Value, row: &Table) -> Result<Value, String> {
    Ok(match value {
        Value::String(text) => {
            if let Some(whole) = text
                .strip_prefix('{')
                .and_then(|rest| rest.strip_suffix('}'))
                .and_then(|name| row.get(name))
            {
                return Ok(whole.clone());
            }
            let mut out = text.clone();
            for (name, replacement) in row {
                let plain = format!("{{{name}}}");
                let upper = format!("{{{name}|upper}}");
                if out.contains(&plain) || out.contains(&upper) {
                    let replacement = match replacement {
                        Value::String(text) => text.clone(),
                        Value::Integer(number) => number.to_string(),
                        other => {
                            return Err(format!(
                                "row value `{name}` = {other} cannot stand inside a string"
                            ))
                        }
                    };
                    out = out
                        .replace(&plain, &replacement)
                        .replace(&upper, &replacement.to_uppercase());
                }
            }
            Value::String(out)
        }
        Value::Array(items) => Value::Array(
            items
                .iter()
                .map(|item| substitute(item, row))
                .collect::<Result<_, _>>()?,
        ),
        Value::Table(table) => Value::Table(substitute_table(table, row)?),
        other => other.clone(),
    })
}

struct BuiltCase {
    id: String,
    input: Vec<u8>,
    case_file: CaseFile,
    rewrites_base: bool,
}

fn build_case(file: &FamilyFile, base: &[u8], mut table: Table) -> Result<BuiltCase, String> {
    let mut first_edit = Table::new();
    let keys: Vec<String> = table.keys().cloned().collect();
    for key in keys {
        if !CASE_KEYS.contains(&key.as_str()) {
            let value = table.remove(&key).expect("the key was just listed");
            first_edit.insert(key, value);
        }
    }
    let spec: CaseSpec = Value::Table(table)
        .try_into()
        .map_err(|error: toml::de::Error| error.message().to_owned())?;
    let mut edit_specs = Vec::new();
    if !first_edit.is_empty() {
        let spec: EditSpec = Value::Table(first_edit)
            .try_into()
            .map_err(|error: toml::de::Error| error.message().to_owned())?;
        edit_specs.push(spec);
    }
    edit_specs.extend(spec.edits.iter().cloned());
    let edits = edit_specs
        .iter()
        .map(|spec| spec.build(&file.filler))
        .collect::<Result<Vec<Edit>, String>>()?;
    let layout = spec.layout.as_ref().map(LayoutSpec::layout);
    let input = edit::apply(base, &edits, layout.as_ref())?;
    let recipe = match spec.recipe {
        Some(recipe) => {
            let found = input
                .windows(recipe.placeholder.len().max(1))
                .filter(|window| *window == recipe.placeholder.as_bytes())
                .count();
            if found != 1 {
                return Err(format!(
                    "the recipe template holds the placeholder {found} times instead of once"
                ));
            }
            if recipe.count.is_some() == recipe.total_bytes.is_some() {
                return Err("a recipe needs exactly one of `count` and `total_bytes`".to_owned());
            }
            Some(Recipe {
                template: recipe.template,
                placeholder: recipe.placeholder,
                unit: recipe.unit,
                count: recipe.count,
                total_bytes: recipe.total_bytes,
                output: file.input.clone(),
            })
        }
        None => None,
    };

    let tree_pointers: Vec<&Pointer> = edits.iter().filter_map(Edit::pointer).collect();
    let default_pointer = match tree_pointers[..] {
        [only] => Some(only),
        _ => None,
    };
    let diagnostics = spec
        .expect
        .iter()
        .map(|written| parse_expectation(written, &file.format, default_pointer))
        .collect::<Result<Vec<Diagnostic>, String>>()?;
    let strict = match &spec.strict {
        Some(strict) => {
            let diagnostics = strict
                .expect
                .iter()
                .map(|written| parse_expectation(written, &file.format, default_pointer))
                .collect::<Result<Vec<Diagnostic>, String>>()?;
            let verdict = match &strict.verdict {
                Some(verdict) => verdict.clone(),
                None => verdict_of(&diagnostics).ok_or(
                    "the strict expectation holds only optional diagnostics or optional errors: give its `verdict`",
                )?,
            };
            Some(Strict {
                verdict,
                diagnostics,
            })
        }
        None => None,
    };
    let rules = match &spec.rules {
        Some(rules) => rules
            .iter()
            .map(|rule| qualify(rule, &file.format))
            .collect(),
        None => {
            // The rules of the expected diagnostics, the strict profile's last.
            let mut rules: Vec<String> = Vec::new();
            let strict_diagnostics = strict.iter().flat_map(|strict| &strict.diagnostics);
            for diagnostic in diagnostics.iter().chain(strict_diagnostics) {
                if !rules.contains(&diagnostic.rule) {
                    rules.push(diagnostic.rule.clone());
                }
            }
            if rules.is_empty() {
                return Err("a case without expected diagnostics needs `rules`".to_owned());
            }
            rules
        }
    };
    let verdict = match (&spec.verdict, &spec.reference) {
        (Some(verdict), _) => verdict.clone(),
        (None, Some(_)) => "implementation-defined".to_owned(),
        (None, None) => verdict_of(&diagnostics).ok_or(
            "the case expects only optional diagnostics or optional errors: give its `verdict` or `reference`",
        )?,
    };
    Ok(BuiltCase {
        id: spec.id,
        input,
        case_file: CaseFile {
            description: spec.description,
            rules,
            verdict,
            reference: spec.reference,
            input: match recipe {
                Some(_) => None,
                None => Some(file.input.clone()),
            },
            recipe,
            verdict_only: spec.verdict_only,
            deviations: spec.deviations,
            style: spec.style.unwrap_or(file.style),
            context: spec.context.unwrap_or_else(|| file.context.clone()),
            diagnostics,
            strict,
        },
        rewrites_base: layout.is_some() || edits.iter().any(|edit| !edit.is_text()),
    })
}

/// The definite verdict that expected diagnostics imply: `reject` when one that is not
/// optional is an error, `accept` when there are none, `accept-with-warnings` when they
/// are warnings and one is required; `None` otherwise (only optional errors, or only
/// optional diagnostics), where no definite verdict follows.
fn verdict_of(diagnostics: &[Diagnostic]) -> Option<String> {
    let (optional, required): (Vec<&Diagnostic>, Vec<&Diagnostic>) = diagnostics
        .iter()
        .partition(|diagnostic| diagnostic.optional);
    let is_error = |diagnostic: &&Diagnostic| diagnostic.severity.is_none();
    let verdict = if required.iter().any(is_error) {
        "reject"
    } else if diagnostics.is_empty() {
        "accept"
    } else if required.is_empty() || optional.iter().any(is_error) {
        return None;
    } else {
        "accept-with-warnings"
    };
    Some(verdict.to_owned())
}

/// Prefixes a rule ID with its format unless it already is.
fn qualify(rule: &str, format: &str) -> String {
    if rule.starts_with(&format!("{format}.")) {
        rule.to_owned()
    } else {
        format!("{format}.{rule}")
    }
}

/// Reads `rule[@location][ line:column][ warning][ optional]` (see [`CaseSpec::expect`]).
fn parse_expectation(
    written: &str,
    format: &str,
    default_pointer: Option<&Pointer>,
) -> Result<Diagnostic, String> {
    let (rest, optional) = match written.strip_suffix(" optional") {
        Some(rest) => (rest, true),
        None => (written, false),
    };
    let (rest, severity) = match rest.strip_suffix(" warning") {
        Some(rest) => (rest, Some("warning".to_owned())),
        None => (rest, None),
    };
    let (rest, position) = match rest
        .rsplit_once(' ')
        .map(|(head, tail)| (head, line_column(tail)))
    {
        Some((head, Some(position))) => (head, Some(position)),
        _ => (rest, None),
    };
    let (rule, location) = match rest.split_once('@') {
        Some((rule, location)) => (rule, Some(location)),
        None => (rest, None),
    };
    let mut diagnostic = Diagnostic {
        rule: qualify(rule, format),
        pointer: None,
        line: None,
        column: None,
        severity,
        optional,
    };
    match location {
        None => {
            let pointer = default_pointer
                .filter(|pointer| pointer.tokens.last().is_none_or(|last| last != "-"))
                .ok_or_else(|| {
                    format!("expectation `{written}` needs a location: the case has no single tree edit naming one")
                })?;
            diagnostic.pointer = Some(pointer.text.clone());
        }
        Some("-") => {}
        Some(location) if location.is_empty() || location.starts_with('/') => {
            diagnostic.pointer = Some(location.to_owned());
        }
        Some(location) => {
            let (line, column) = line_column(location).ok_or_else(|| {
                format!("location `{location}` is neither a pointer, `-` nor line:column")
            })?;
            if position.is_some() {
                return Err(format!("expectation `{written}` gives two positions"));
            }
            (diagnostic.line, diagnostic.column) = (Some(line), Some(column));
        }
    }
    if let Some((line, column)) = position {
        (diagnostic.line, diagnostic.column) = (Some(line), Some(column));
    }
    Ok(diagnostic)
}

/// `line:column`, both numbers.
fn line_column(text: &str) -> Option<(u32, u32)> {
    let (line, column) = text.split_once(':')?;
    Some((line.parse().ok()?, column.parse().ok()?))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn row() -> Table {
        toml::from_str("max = 600\nname = \"behavior.explain\"\nhex = \"000b\"").unwrap()
    }

    #[test]
    fn a_whole_placeholder_keeps_the_row_value_and_its_type() {
        let template: Table = toml::from_str("value = { fill = \"{max}\" }").unwrap();
        let filled = substitute_table(&template, &row()).unwrap();
        assert_eq!(filled["value"]["fill"], Value::Integer(600));
    }

    #[test]
    fn placeholders_inside_text_are_filled_and_other_braces_kept() {
        let template: Table = toml::from_str(
            "description = \"{name} of exactly {max} characters, U+{hex|upper}\"\n\
             value = '{\"a\": {}}'",
        )
        .unwrap();
        let filled = substitute_table(&template, &row()).unwrap();
        assert_eq!(
            filled["description"].as_str(),
            Some("behavior.explain of exactly 600 characters, U+000B")
        );
        assert_eq!(filled["value"].as_str(), Some("{\"a\": {}}"));
    }

    #[test]
    fn expectations_take_their_location_from_the_text_or_the_edit() {
        let at = Pointer::parse("/summary").unwrap();
        let parse = |text| parse_expectation(text, "soul-kit", Some(&at)).unwrap();
        assert_eq!(parse("string.control").pointer.as_deref(), Some("/summary"));
        assert_eq!(parse("root.type@").pointer.as_deref(), Some(""));
        let located = parse("json.syntax@3:21");
        assert_eq!(
            (located.pointer, located.line, located.column),
            (None, Some(3), Some(21))
        );
        let inside = parse("head.bom@/files/0/content 1:1 warning");
        assert_eq!(inside.pointer.as_deref(), Some("/files/0/content"));
        assert_eq!((inside.line, inside.column), (Some(1), Some(1)));
        assert_eq!(inside.severity.as_deref(), Some("warning"));
        assert_eq!(inside.rule, "soul-kit.head.bom");
        let optional = parse("string.marker@/SOULWARE:DEFAULT warning optional");
        assert_eq!(optional.pointer.as_deref(), Some("/SOULWARE:DEFAULT"));
        assert_eq!(optional.severity.as_deref(), Some("warning"));
        assert!(optional.optional && !parse("string.marker").optional);
        let bare = parse("string.marker optional");
        assert_eq!(bare.rule, "soul-kit.string.marker");
        assert_eq!(bare.pointer.as_deref(), Some("/summary"));
        assert!(bare.optional && bare.severity.is_none());
        let nowhere = parse("size.max@-");
        assert_eq!((nowhere.pointer, nowhere.line), (None, None));
        assert!(parse_expectation("size.max", "soul-kit", None).is_err());
    }

    /// A case with an optional diagnostic and a strict expectation: the spec verdict and
    /// the rules follow from both lists, the strict verdict from its own.
    #[test]
    fn optional_diagnostics_and_strict_expectations() {
        let file: FamilyFile = toml::from_str(
            "format = \"soul-kit\"\nbase = \"base.json\"\ninput = \"input.soulkit.json\"",
        )
        .unwrap();
        let base = b"{\n  \"summary\": \"x\"\n}\n";
        let case = |text: &str| build_case(&file, base, toml::from_str(text).unwrap());
        let built = case(
            "id = \"c\"\ndescription = \"d\"\nat = \"/summary\"\nvalue = '\"y\"'\n\
             reference = \"accept\"\nstrict = { expect = [\"string.c1-control\"] }",
        )
        .unwrap();
        let strict = built.case_file.strict.as_ref().unwrap();
        assert_eq!(strict.verdict, "reject");
        assert_eq!(strict.diagnostics[0].pointer.as_deref(), Some("/summary"));
        assert_eq!(built.case_file.rules, ["soul-kit.string.c1-control"]);
        assert_eq!(built.case_file.verdict, "implementation-defined");

        let built = case(
            "id = \"c\"\ndescription = \"d\"\nadd = \"/k\"\nvalue = '1'\n\
             expect = [\"object.unknown-key\", \"string.marker optional\"]",
        )
        .unwrap();
        assert_eq!(built.case_file.verdict, "reject");
        assert!(built.case_file.diagnostics[1].optional);
        assert!(case(
            "id = \"c\"\ndescription = \"d\"\nadd = \"/k\"\nvalue = '1'\n\
             expect = [\"string.marker optional\"]",
        )
        .is_err());
    }

    /// A case's own `style` replaces the file's, for that case only.
    #[test]
    fn a_case_style_replaces_the_file_style() {
        let file: FamilyFile = toml::from_str(
            "format = \"soul-md\"\nbase = \"SOUL.md\"\ninput = \"SOUL.md\"\n\
             style = { deviations_indent_4 = true }",
        )
        .unwrap();
        let case = |extra: &str| {
            let text = format!(
                "id = \"c\"\ndescription = \"d\"\nrules = [\"title.required\"]\n\
                 deviations = [\"x\"]\n{extra}"
            );
            build_case(&file, b"# T\n", toml::from_str(&text).unwrap())
                .unwrap()
                .case_file
                .render()
        };
        assert!(case("").contains("deviations = [\n    \"x\",\n]\n"));
        assert!(case("style = { inline_deviations = true }").contains("deviations = [\"x\"]\n"));
    }
}
