//! The case corpus: the `Case` model and its loader.
//!
//! A case lives in `cases/<format>/<case-id>/` and is described by `case.toml` beside its
//! input. The directory name is the case's permanent ID. Loading never writes anything
//! under the corpus; inputs built from a recipe are produced in memory.

use soulcheck_vocabulary::Severity;
use std::collections::BTreeSet;
use std::fmt;
use std::path::Path;

use serde::{Deserialize, Serialize};
use soulcheck_vocabulary::{Location, Profile, Verdict};

use crate::files;
use crate::store::{Kind, Store, StoreDir};
use crate::tree::{TreeSpec, TreeTable};
use crate::LoadError;
use soulcheck_vocabulary::Format;

/// Largest input a recipe may produce. Recipes exist to build boundary inputs a little
/// past the largest limit of any format (1 MiB); the cap keeps a typo from exhausting
/// memory.
pub const MAX_RECIPE_BYTES: usize = 64 * 1024 * 1024;

/// What a case expects of a validator's verdict.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "kind", rename_all = "kebab-case")]
#[non_exhaustive]
pub enum ExpectedVerdict {
    /// Must be accepted, with no diagnostics at all.
    Accept,
    /// Must be accepted, with the listed warnings.
    AcceptWithWarnings,
    /// Must be rejected.
    Reject,
    /// The spec leaves the outcome open: any of `allowed` conforms. `reference` is the
    /// reference implementation's choice, recorded with its reason in the catalogue.
    ImplementationDefined {
        /// The verdicts a conforming validator may give.
        allowed: Vec<Verdict>,
        /// The verdict the reference gives.
        reference: Verdict,
    },
}

impl ExpectedVerdict {
    /// The verdict the reference implementation must give.
    pub fn reference_verdict(&self) -> Verdict {
        match self {
            ExpectedVerdict::Accept | ExpectedVerdict::AcceptWithWarnings => Verdict::Accept,
            ExpectedVerdict::Reject => Verdict::Reject,
            ExpectedVerdict::ImplementationDefined { reference, .. } => *reference,
        }
    }

    /// Whether a validator giving `verdict` conforms.
    pub fn allows(&self, verdict: Verdict) -> bool {
        match self {
            ExpectedVerdict::ImplementationDefined { allowed, .. } => allowed.contains(&verdict),
            other => other.reference_verdict() == verdict,
        }
    }

    /// Whether the verdict is definite (not implementation-defined).
    pub fn is_definite(&self) -> bool {
        !matches!(self, ExpectedVerdict::ImplementationDefined { .. })
    }

    /// The short name used in case files and reports.
    pub fn name(&self) -> &'static str {
        match self {
            ExpectedVerdict::Accept => "accept",
            ExpectedVerdict::AcceptWithWarnings => "accept-with-warnings",
            ExpectedVerdict::Reject => "reject",
            ExpectedVerdict::ImplementationDefined { .. } => "implementation-defined",
        }
    }
}

impl fmt::Display for ExpectedVerdict {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ExpectedVerdict::ImplementationDefined { allowed, reference } => {
                let allowed: Vec<String> = allowed.iter().map(Verdict::to_string).collect();
                write!(
                    f,
                    "implementation-defined ({}; reference: {reference})",
                    allowed.join(" or ")
                )
            }
            other => f.write_str(other.name()),
        }
    }
}

/// A diagnostic a case expects: rule, severity and location, never message text.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub struct ExpectedDiagnostic {
    /// Catalogued rule ID.
    pub rule: String,
    /// Expected severity.
    pub severity: Severity,
    /// Expected location.
    #[serde(flatten)]
    pub location: Location,
}

impl fmt::Display for ExpectedDiagnostic {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} {} at {}", self.severity, self.rule, self.location)
    }
}

/// What a case expects of a validator in one profile.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Expectation {
    /// The verdict.
    pub verdict: ExpectedVerdict,
    /// The diagnostics a validator must report (a multiset).
    pub diagnostics: Vec<ExpectedDiagnostic>,
    /// The diagnostics it may report or leave out.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub optional: Vec<ExpectedDiagnostic>,
}

/// How a case's input bytes are obtained.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "kind", rename_all = "kebab-case")]
#[non_exhaustive]
pub enum InputSource {
    /// A file committed in the case directory.
    File {
        /// File name inside the case directory; also the name a validator sees.
        name: String,
    },
    /// A directory committed in the case directory (tree formats).
    Directory {
        /// Directory name inside the case directory.
        name: String,
    },
    /// A directory tree built from an optional committed directory plus a description
    /// of entries git cannot carry (symlinks, FIFOs, unportable names); see [`crate::tree`].
    Tree(TreeSpec),
    /// Generated at load time, for large boundary inputs.
    Recipe(Recipe),
}

/// Builds an input by filling a placeholder in a committed template with a repeated unit.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Recipe {
    /// Template file in the case directory.
    pub template: String,
    /// Text in the template replaced by the filling; it must occur exactly once.
    pub placeholder: String,
    /// The text repeated to make the filling.
    pub unit: String,
    /// Repeat the unit this many times, or
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub count: Option<usize>,
    /// repeat it until the whole input is exactly this many bytes (it must divide evenly).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub total_bytes: Option<usize>,
    /// File name the generated input gets (validators and exports see this name).
    /// Required for a document input; absent in a tree entry, whose path names the file.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub output: Option<String>,
}

impl Recipe {
    /// Refuses a recipe whose files could lie outside its case: the `template` must be a
    /// relative path of plain names inside the case directory, and the `output` (the
    /// name a validator sees, written into the scratch directory and by `cases export`)
    /// one plain file name. A hostile corpus could otherwise read host files into an
    /// input (`template = "/etc/shadow"`) or write anywhere (`output = "../../x"`).
    pub(crate) fn check_paths(&self, case_file: &Path) -> Result<(), LoadError> {
        files::check_relative(Path::new(&self.template)).map_err(|why| {
            LoadError::invalid(
                case_file,
                format!("recipe template `{}` is refused: {why}", self.template),
            )
        })?;
        if let Some(output) = &self.output {
            let mut components = Path::new(output).components();
            let plain = matches!(
                (components.next(), components.next()),
                (Some(std::path::Component::Normal(_)), None)
            );
            if !plain {
                return Err(LoadError::invalid(
                    case_file,
                    format!("recipe output `{output}` is refused: it must be one plain file name"),
                ));
            }
        }
        Ok(())
    }

    /// Produces the input bytes described by the recipe.
    pub fn build(&self, case_dir: &StoreDir) -> Result<Vec<u8>, LoadError> {
        let path = case_dir.display(&self.template);
        let template = case_dir.read(&self.template)?;
        let placeholder = self.placeholder.as_bytes();
        // A vectorized substring search: templates run to kilobytes, and comparing the
        // placeholder at every byte cost more than building the input.
        // An empty placeholder occurs nowhere (and is refused as found 0 times).
        let positions: Vec<usize> = if placeholder.is_empty() {
            Vec::new()
        } else {
            memchr::memmem::find_iter(&template, placeholder).collect()
        };
        let [at] = positions[..] else {
            return Err(LoadError::invalid(
                &path,
                format!(
                    "placeholder {:?} must occur exactly once, found {}",
                    self.placeholder,
                    positions.len()
                ),
            ));
        };
        if self.unit.is_empty() {
            return Err(LoadError::invalid(&path, "recipe unit is empty"));
        }
        let fixed = template.len() - placeholder.len();
        let count = match (self.count, self.total_bytes) {
            (Some(count), None) => count,
            (None, Some(total)) => {
                let fill = total
                    .checked_sub(fixed)
                    .filter(|fill| fill % self.unit.len() == 0);
                fill.map(|fill| fill / self.unit.len()).ok_or_else(|| {
                    LoadError::invalid(
                        &path,
                        format!(
                            "cannot reach {total} bytes: template leaves {fixed} bytes and the unit is {} bytes",
                            self.unit.len()
                        ),
                    )
                })?
            }
            _ => {
                return Err(LoadError::invalid(
                    &path,
                    "recipe needs exactly one of `count` and `total_bytes`",
                ))
            }
        };
        let size = count
            .checked_mul(self.unit.len())
            .and_then(|fill| fill.checked_add(fixed))
            .filter(|size| *size <= MAX_RECIPE_BYTES)
            .ok_or_else(|| {
                LoadError::invalid(
                    &path,
                    format!("recipe output exceeds {MAX_RECIPE_BYTES} bytes"),
                )
            })?;
        let mut bytes = Vec::with_capacity(size);
        bytes.extend_from_slice(&template[..at]);
        // The fill doubles what it has copied so far, so a fill of a million one-byte units
        // is some twenty copies rather than a million.
        let start = bytes.len();
        let fill = size - fixed;
        if count > 0 {
            bytes.extend_from_slice(self.unit.as_bytes());
        }
        while bytes.len() - start < fill {
            let have = bytes.len() - start;
            bytes.extend_from_within(start..start + have.min(fill - have));
        }
        bytes.extend_from_slice(&template[at + placeholder.len()..]);
        Ok(bytes)
    }
}

/// One conformance case.
#[derive(Debug, Clone, Serialize)]
pub struct Case {
    /// Permanent ID: the case directory's name, unique across the whole corpus.
    pub id: String,
    /// Format the input is validated as.
    pub format: Format,
    /// Operation under test; `validate` for ordinary documents. Other operations
    /// (fingerprints, ordering, ...) compare a value instead of diagnostics.
    pub operation: String,
    /// One line saying what the case is; names every invisible character in the input.
    pub description: String,
    /// Every rule the case exercises, on either side.
    pub rules: Vec<String>,
    /// Where the input comes from.
    pub input: InputSource,
    /// The expected verdict.
    pub verdict: ExpectedVerdict,
    /// The expected diagnostics, as a multiset of rule, severity and location.
    pub diagnostics: Vec<ExpectedDiagnostic>,
    /// Diagnostics a validator may report or leave out (a key that is also a string, a
    /// second reading of the same defect); the reference reports them.
    pub optional: Vec<ExpectedDiagnostic>,
    /// What the strict profile expects instead, where it differs from the spec profile's
    /// definite verdict (a case whose only verdict comes from the suite's protective
    /// choices). Without it, the strict profile expects the spec profile's verdict, or the
    /// reference's choice where that is implementation-defined.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub strict: Option<Expectation>,
    /// When true, a validator other than the reference is judged on its verdict alone,
    /// because a different set of correct diagnostics is possible (resource limits).
    pub verdict_only: bool,
    /// Expected result of a non-`validate` operation.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub value: Option<serde_json::Value>,
    /// Other results of the operation that conform (`other_values`): where the spec leaves
    /// a point of the computation open and a real implementation reads it otherwise (what
    /// an absent member contributes to a fingerprint, say). The reference gives `value`.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub other_values: Vec<serde_json::Value>,
    /// Inputs a rule needs besides the document (a fixed "now", a stored fingerprint...).
    pub context: serde_json::Map<String, serde_json::Value>,
    /// Known deviations of public implementations from the expected outcome.
    pub deviations: Vec<String>,
    /// In the spec profile the reference does not judge the input (`reference =
    /// "not-judged"`): it lies past one of the reference's own bounds, so the reference
    /// declines it as not judged, and the strict profile rejects it.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub reference_not_judged: bool,
    /// Directory the case was loaded from.
    #[serde(skip)]
    pub dir: StoreDir,
}

/// On-disk shape of `case.toml`.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct CaseFile {
    description: String,
    rules: Vec<String>,
    verdict: VerdictName,
    #[serde(default)]
    allowed: Option<Vec<Verdict>>,
    #[serde(default)]
    reference: Option<ReferenceName>,
    #[serde(default)]
    input: Option<String>,
    #[serde(default)]
    recipe: Option<Recipe>,
    #[serde(default)]
    tree: Option<TreeTable>,
    #[serde(default = "default_operation")]
    operation: String,
    #[serde(default)]
    verdict_only: bool,
    #[serde(default)]
    value: Option<toml::Value>,
    #[serde(default)]
    other_values: Vec<toml::Value>,
    #[serde(default)]
    context: toml::Table,
    #[serde(default)]
    deviations: Vec<String>,
    #[serde(default, rename = "diagnostic")]
    diagnostics: Vec<DiagnosticEntry>,
    #[serde(default)]
    strict: Option<StrictTable>,
}

/// The `[strict]` table of `case.toml`.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct StrictTable {
    verdict: VerdictName,
    #[serde(default, rename = "diagnostic")]
    diagnostics: Vec<DiagnosticEntry>,
}

fn default_operation() -> String {
    "validate".to_owned()
}

/// The reference's choice in an implementation-defined case: a verdict, or `not-judged`
/// for an input past one of the reference's own bounds (the spec profile declines it; the
/// strict profile rejects).
#[derive(Deserialize, Clone, Copy, PartialEq, Eq)]
#[serde(rename_all = "kebab-case")]
enum ReferenceName {
    Accept,
    Reject,
    NotJudged,
}

#[derive(Deserialize, Clone, Copy, PartialEq, Eq)]
#[serde(rename_all = "kebab-case")]
enum VerdictName {
    Accept,
    AcceptWithWarnings,
    Reject,
    ImplementationDefined,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct DiagnosticEntry {
    rule: String,
    #[serde(default = "default_severity")]
    severity: Severity,
    #[serde(default)]
    pointer: Option<String>,
    #[serde(default)]
    line: Option<u32>,
    #[serde(default)]
    column: Option<u32>,
    #[serde(default)]
    optional: bool,
}

impl DiagnosticEntry {
    fn expected(self) -> ExpectedDiagnostic {
        ExpectedDiagnostic {
            rule: self.rule,
            severity: self.severity,
            location: Location {
                pointer: self.pointer,
                line: self.line,
                column: self.column,
            },
        }
    }
}

/// Splits `[[diagnostic]]` entries into the required and the optional ones.
fn split_diagnostics(
    entries: Vec<DiagnosticEntry>,
) -> (Vec<ExpectedDiagnostic>, Vec<ExpectedDiagnostic>) {
    let (optional, required): (Vec<_>, Vec<_>) =
        entries.into_iter().partition(|entry| entry.optional);
    (
        required
            .into_iter()
            .map(DiagnosticEntry::expected)
            .collect(),
        optional
            .into_iter()
            .map(DiagnosticEntry::expected)
            .collect(),
    )
}

fn default_severity() -> Severity {
    Severity::Error
}

/// Whether `id` is a well-formed case ID: lowercase ASCII letters, digits and single
/// hyphens, starting with a letter or digit.
pub fn is_valid_case_id(id: &str) -> bool {
    !id.is_empty()
        && !id.starts_with('-')
        && !id.ends_with('-')
        && !id.contains("--")
        && id
            .bytes()
            .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-')
}

impl Case {
    /// Loads one case from its directory.
    pub fn load(format: Format, dir: StoreDir) -> Result<Case, LoadError> {
        let id = dir
            .relative
            .file_name()
            .and_then(|name| name.to_str())
            .ok_or_else(|| {
                LoadError::invalid(&dir.display(""), "case directory name is not UTF-8")
            })?
            .to_owned();
        if !is_valid_case_id(&id) {
            return Err(LoadError::invalid(
                &dir.display(""),
                format!("case ID `{id}` is not lowercase kebab-case"),
            ));
        }
        let path = dir.display("case.toml");
        let text = dir.store.read_toml(&dir.path("case.toml"))?;
        let file: CaseFile =
            toml::from_str(&text).map_err(|error| LoadError::invalid(&path, error.to_string()))?;

        let reference_not_judged = file.reference == Some(ReferenceName::NotJudged);
        let reference = file.reference.map(|name| match name {
            ReferenceName::Accept => Verdict::Accept,
            // Past the bound the strict profile rejects: that is the choice it takes over.
            ReferenceName::Reject | ReferenceName::NotJudged => Verdict::Reject,
        });
        let verdict = match (file.verdict, file.allowed, reference) {
            (VerdictName::ImplementationDefined, allowed, Some(reference)) => {
                let allowed = allowed.unwrap_or_else(|| vec![Verdict::Accept, Verdict::Reject]);
                if !allowed.contains(&reference) {
                    return Err(LoadError::invalid(
                        &path,
                        "`reference` must be one of `allowed`",
                    ));
                }
                ExpectedVerdict::ImplementationDefined { allowed, reference }
            }
            (VerdictName::ImplementationDefined, _, None) => {
                return Err(LoadError::invalid(
                    &path,
                    "an implementation-defined case needs `reference`",
                ))
            }
            (_, Some(_), _) | (_, _, Some(_)) => {
                return Err(LoadError::invalid(
                    &path,
                    "`allowed` and `reference` belong to implementation-defined cases",
                ))
            }
            (VerdictName::Accept, None, None) => ExpectedVerdict::Accept,
            (VerdictName::AcceptWithWarnings, None, None) => ExpectedVerdict::AcceptWithWarnings,
            (VerdictName::Reject, None, None) => ExpectedVerdict::Reject,
        };

        let input = match (file.input, file.recipe, file.tree) {
            (Some(name), None, tree) => {
                let kind = dir.kind(&name);
                if name.contains("..") || name.starts_with('/') || kind.is_none() {
                    return Err(LoadError::invalid(
                        &path,
                        format!("input `{name}` is not a file or directory in the case"),
                    ));
                }
                match (kind == Some(Kind::Dir), tree) {
                    (true, Some(tree)) => InputSource::Tree(tree.into_spec(Some(name), &path)?),
                    (true, None) => InputSource::Directory { name },
                    (false, None) => InputSource::File { name },
                    (false, Some(_)) => {
                        return Err(LoadError::invalid(
                            &path,
                            format!("`[tree]` needs `input` to name a directory, not file `{name}`"),
                        ))
                    }
                }
            }
            (None, Some(recipe), None) => {
                recipe.check_paths(&path)?;
                // Looked at without following symlinks: a symlink, a FIFO or a device
                // as a template is refused here, when the corpus loads, not when a run
                // first builds the input.
                if dir.kind(&recipe.template) != Some(Kind::File) {
                    return Err(LoadError::invalid(
                        &path,
                        format!(
                            "recipe template `{}` is not a regular file in the case",
                            recipe.template
                        ),
                    ));
                }
                InputSource::Recipe(recipe)
            }
            (None, None, Some(tree)) => InputSource::Tree(tree.into_spec(None, &path)?),
            _ => {
                return Err(LoadError::invalid(
                    &path,
                    "a case needs exactly one of `input`, `[recipe]` and `[tree]` (or `input` naming a directory plus `[tree]`)",
                ))
            }
        };

        let (diagnostics, optional) = split_diagnostics(file.diagnostics);
        let strict = match file.strict {
            None => None,
            Some(table) => {
                let verdict = match table.verdict {
                    VerdictName::Accept => ExpectedVerdict::Accept,
                    VerdictName::AcceptWithWarnings => ExpectedVerdict::AcceptWithWarnings,
                    VerdictName::Reject => ExpectedVerdict::Reject,
                    VerdictName::ImplementationDefined => {
                        return Err(LoadError::invalid(
                            &path,
                            "the strict profile's verdict is definite: accept, accept-with-warnings or reject",
                        ))
                    }
                };
                let (diagnostics, optional) = split_diagnostics(table.diagnostics);
                Some(Expectation {
                    verdict,
                    diagnostics,
                    optional,
                })
            }
        };

        let context = serde_json::to_value(file.context)
            .ok()
            .and_then(|value| value.as_object().cloned())
            .unwrap_or_default();
        let value = match file.value {
            Some(value) => Some(
                serde_json::to_value(value)
                    .map_err(|error| LoadError::invalid(&path, error.to_string()))?,
            ),
            None => None,
        };
        if !file.other_values.is_empty() && value.is_none() {
            return Err(LoadError::invalid(
                &path,
                "`other_values` needs the `value` the reference gives",
            ));
        }
        let other_values = file
            .other_values
            .into_iter()
            .map(serde_json::to_value)
            .collect::<Result<Vec<_>, _>>()
            .map_err(|error| LoadError::invalid(&path, error.to_string()))?;

        Ok(Case {
            id,
            format,
            operation: file.operation,
            description: file.description,
            rules: file.rules,
            input,
            verdict,
            diagnostics,
            optional,
            strict,
            verdict_only: file.verdict_only,
            value,
            other_values,
            context,
            deviations: file.deviations,
            reference_not_judged,
            dir,
        })
    }

    /// The trial name: `<format>/<case-id>`.
    pub fn name(&self) -> String {
        format!("{}/{}", self.format, self.id)
    }

    /// The file or directory name a validator sees for this case's input.
    pub fn input_name(&self) -> &str {
        match &self.input {
            InputSource::File { name } | InputSource::Directory { name } => name,
            InputSource::Recipe(recipe) => recipe.output.as_deref().unwrap_or_default(),
            InputSource::Tree(tree) => &tree.name,
        }
    }

    /// Reads (or, for a recipe, builds) the input bytes of a document case.
    pub fn input_bytes(&self) -> Result<Vec<u8>, LoadError> {
        match &self.input {
            InputSource::File { name } => self.dir.read(name).map(|bytes| bytes.into_owned()),
            InputSource::Recipe(recipe) => recipe.build(&self.dir),
            InputSource::Directory { .. } | InputSource::Tree(_) => Err(LoadError::invalid(
                &self.dir.display(self.input_name()),
                "a directory input has no single byte string",
            )),
        }
    }

    /// The tree of a directory input, if the input is one: a plain committed directory
    /// is a tree without described entries.
    pub fn tree(&self) -> Option<TreeSpec> {
        match &self.input {
            InputSource::Tree(tree) => Some(tree.clone()),
            InputSource::Directory { name } => Some(TreeSpec {
                name: name.clone(),
                base: Some(name.clone()),
                entries: Vec::new(),
                outside: Vec::new(),
            }),
            InputSource::File { .. } | InputSource::Recipe(_) => None,
        }
    }

    /// Every rule named by the case: its `rules` plus the rules of its diagnostics in
    /// either profile.
    pub fn all_rules(&self) -> BTreeSet<&str> {
        let strict = self
            .strict
            .iter()
            .flat_map(|strict| strict.diagnostics.iter().chain(&strict.optional));
        self.rules
            .iter()
            .map(String::as_str)
            .chain(
                self.diagnostics
                    .iter()
                    .chain(&self.optional)
                    .chain(strict)
                    .map(|diagnostic| diagnostic.rule.as_str()),
            )
            .collect()
    }

    /// The rules the spec profile's expectation rests on: `rules` and the spec
    /// profile's diagnostics (the `[strict]` table's own diagnostics excluded).
    pub fn spec_rules(&self) -> BTreeSet<&str> {
        self.rules
            .iter()
            .map(String::as_str)
            .chain(
                self.diagnostics
                    .iter()
                    .chain(&self.optional)
                    .map(|diagnostic| diagnostic.rule.as_str()),
            )
            .collect()
    }

    /// What a validator is expected to do in `profile`.
    pub fn expectation(&self, profile: Profile) -> Expectation {
        match (profile, &self.strict, &self.verdict) {
            (Profile::Strict, Some(strict), _) => strict.clone(),
            // The strict profile takes the reference's choice as the definite verdict.
            (Profile::Strict, None, ExpectedVerdict::ImplementationDefined { reference, .. }) => {
                let verdict = match reference {
                    Verdict::Reject => ExpectedVerdict::Reject,
                    Verdict::Accept if self.diagnostics.is_empty() => ExpectedVerdict::Accept,
                    Verdict::Accept => ExpectedVerdict::AcceptWithWarnings,
                };
                Expectation {
                    verdict,
                    diagnostics: self.diagnostics.clone(),
                    optional: self.optional.clone(),
                }
            }
            _ => Expectation {
                verdict: self.verdict.clone(),
                diagnostics: self.diagnostics.clone(),
                optional: self.optional.clone(),
            },
        }
    }

    /// Whether the case has a definite verdict in `profile`.
    pub fn is_definite(&self, profile: Profile) -> bool {
        self.expectation(profile).verdict.is_definite()
    }
}

/// Every case of every format, in a stable order (format, then ID).
#[derive(Debug, Clone)]
pub struct Corpus {
    /// Where the corpus is read from.
    pub store: Store,
    /// The cases.
    pub cases: Vec<Case>,
    /// IDs that were used once and may never be used again (`cases/retired.toml`).
    pub retired: BTreeSet<String>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RetiredFile {
    #[serde(default)]
    ids: Vec<String>,
}

impl Corpus {
    /// Loads every case of a `cases/` directory on disk. Fails on the first malformed
    /// case, naming its file.
    pub fn load(root: &Path) -> Result<Corpus, LoadError> {
        Corpus::open(Store::Disk(root.to_owned()))
    }

    /// Loads every case of a corpus embedded at build time (`soulcheck_corpus::CASES`).
    pub fn embedded(files: &'static include_dir::Dir<'static>) -> Result<Corpus, LoadError> {
        Corpus::open(Store::Embedded(files))
    }

    /// Loads every case in a store.
    pub fn open(store: Store) -> Result<Corpus, LoadError> {
        Corpus::open_formats(store, &Format::ALL)
    }

    /// Loads the cases of `formats` only (and the retired IDs): a run selects before it
    /// loads, so a run of one format parses that format's cases, not the corpus.
    pub fn open_formats(store: Store, formats: &[Format]) -> Result<Corpus, LoadError> {
        if store.kind(Path::new("")) != Some(Kind::Dir) {
            return Err(LoadError::invalid(
                &store.display(Path::new("")),
                "the corpus directory does not exist",
            ));
        }
        let mut cases = Vec::new();
        for format in Format::ALL.into_iter().filter(|f| formats.contains(f)) {
            let format_dir = Path::new(format.name());
            // What is neither a directory nor a regular file (a symlink, which might lead
            // out of the corpus, a FIFO, a device) is refused, never skipped or followed.
            let special = |relative: &Path| {
                LoadError::invalid(
                    &store.display(relative),
                    "is a symlink or a special file; a corpus holds directories and regular files only",
                )
            };
            match store.kind(format_dir) {
                Some(Kind::Dir) => {}
                None if store.exists(format_dir) => return Err(special(format_dir)),
                _ => continue,
            }
            for (name, kind) in store.list(format_dir)? {
                if kind.is_none() {
                    return Err(special(&format_dir.join(&name)));
                }
                if kind == Some(Kind::Dir) {
                    let dir = StoreDir {
                        store: store.clone(),
                        relative: format_dir.join(name),
                    };
                    cases.push(Case::load(format, dir)?);
                }
            }
        }
        let retired_path = Path::new("retired.toml");
        let retired = if store.kind(retired_path).is_some() {
            let text = store.read_to_string(retired_path)?;
            let file: RetiredFile = toml::from_str(&text).map_err(|error| {
                LoadError::invalid(&store.display(retired_path), error.to_string())
            })?;
            file.ids.into_iter().collect()
        } else {
            BTreeSet::new()
        };
        Ok(Corpus {
            store,
            cases,
            retired,
        })
    }

    /// The case IDs of a format (its case directories' names), read without loading any
    /// case, so a run can find which formats its `--case` patterns name before it loads.
    /// Entries that are not directories are left to the loader, which refuses them.
    pub fn case_ids(store: &Store, format: Format) -> Result<Vec<String>, LoadError> {
        let format_dir = Path::new(format.name());
        if store.kind(format_dir) != Some(Kind::Dir) {
            return Ok(Vec::new());
        }
        Ok(store
            .list(format_dir)?
            .into_iter()
            .filter(|(_, kind)| *kind == Some(Kind::Dir))
            .map(|(name, _)| name)
            .collect())
    }

    /// A content hash of the corpus (every file under its root, with its relative path,
    /// in order), so a report names exactly which corpus it was run against. A checkout
    /// and the same corpus embedded give the same hash.
    pub fn content_hash(&self) -> Result<String, LoadError> {
        use sha2::{Digest, Sha256};
        let mut hasher = Sha256::new();
        for file in self.store.files(Path::new(""))? {
            hasher.update(file.to_string_lossy().as_bytes());
            hasher.update([0]);
            let bytes = self.store.read(&file)?;
            hasher.update((bytes.len() as u64).to_le_bytes());
            hasher.update(&bytes);
        }
        Ok(format!("sha256:{:x}", hasher.finalize()))
    }
}
