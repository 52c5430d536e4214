//! The implementations a user can install, as certified: one card per implementation
//! (`<folder>/implementation.toml`: what it is, where it comes from, how it is run, per
//! format), its expectations files (`expectations.spec.toml`, `expectations.strict.toml`:
//! every known failure with its rule, class and the spec's words), and the reports of its
//! runs, rendered as one Markdown page (docs/implementations.md) for the tools'
//! maintainers: each implementation's certificate per format and profile, and every
//! deviation grouped by rule with the spec's words.
//!
//! The cards are data a CI driver also reads to install and run each tool (`cargo xtask
//! implementations`), so the page's "how it is run" is what CI ran. A card, an
//! expectations file and a report are all untrusted text here: every string reaches the
//! page through [`cell`].

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use serde::Deserialize;
use soulcheck_vocabulary::{Format, Profile};

use super::runs::{Comparison, Run};
use super::scoreboard::status;
use super::table_cell as cell;
use crate::catalogue::Catalogue;
use crate::corpus::Case;
use crate::expectations::{Expectations, FailureClass, KnownFailure};
use crate::LoadError;

/// The file a card is read from, in its implementation's folder.
pub const CARD_FILE: &str = "implementation.toml";
/// The file listing implementations looked at and left out, beside the folders.
pub const LEFT_OUT_FILE: &str = "left-out.toml";

/// One implementation, as its folder describes it.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Card {
    /// The name its reports carry (`--name`).
    pub name: String,
    /// The pinned version it is installed at and reported as (`--impl-version`).
    pub version: String,
    /// The registry it is installed from (`PyPI`, `npm`, `crates.io`).
    pub registry: String,
    /// Its package name there.
    pub package: String,
    /// What it is, in a sentence or two.
    pub summary: String,
    /// The command a user runs, as its documentation gives it.
    pub command: String,
    /// What it reads and how the folder's adapter (if any) gives a case to it.
    pub reads: String,
    /// How the folder installs it (the pinned files).
    pub install: String,
    /// Seconds a case may take (`--timeout`).
    #[serde(default = "default_timeout")]
    pub timeout: u64,
    /// One entry per format it is certified on.
    #[serde(rename = "run")]
    pub runs: Vec<CardRun>,
    /// The folder the card was read from (set on load).
    #[serde(skip)]
    pub folder: PathBuf,
}

fn default_timeout() -> u64 {
    30
}

/// How an implementation is run on one format.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CardRun {
    /// The format.
    pub format: Format,
    /// The validator command template: soulcheck's placeholders (`{path}`, ...), plus
    /// `{here}` (the card's folder) and `{prefix}` (where it is installed), which the
    /// driver replaces.
    pub validator: String,
    /// More `soulcheck run` options (`--input-name`, ...).
    #[serde(default)]
    pub options: Vec<String>,
    /// A mapping file in the folder (`--mapping`).
    #[serde(default)]
    pub mapping: Option<String>,
}

/// An implementation looked at and not certified, with why.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LeftOut {
    /// Its name.
    pub name: String,
    /// Its registry.
    pub registry: String,
    /// The version looked at.
    pub version: String,
    /// Why it is not certified.
    pub reason: String,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct LeftOutFile {
    #[serde(rename = "left-out", default)]
    left_out: Vec<LeftOut>,
}

impl Card {
    /// The expectations file of a profile, in the card's folder.
    pub fn expectations_path(&self, profile: Profile) -> PathBuf {
        self.folder.join(format!("expectations.{profile}.toml"))
    }

    /// The folder's name: the implementation's short name in paths and report names.
    pub fn slug(&self) -> String {
        self.folder
            .file_name()
            .map(|name| name.to_string_lossy().into_owned())
            .unwrap_or_default()
    }

    /// `name version`, as a run's label gives it.
    pub fn label(&self) -> String {
        format!("{} {}", self.name, self.version)
    }

    /// Whether a run is this implementation's.
    pub fn is_of(&self, run: &Run) -> bool {
        run.implementation.name == self.name && run.implementation.version == self.version
    }
}

/// Every card under `root` (one folder each, in name order).
pub fn load_cards(root: &Path) -> Result<Vec<Card>, LoadError> {
    let entries = std::fs::read_dir(root).map_err(|error| LoadError::io(root, error))?;
    let mut folders: Vec<PathBuf> = Vec::new();
    for entry in entries {
        let entry = entry.map_err(|error| LoadError::io(root, error))?;
        let path = entry.path();
        if path.join(CARD_FILE).is_file() {
            folders.push(path);
        }
    }
    folders.sort();
    let mut cards = Vec::new();
    for folder in folders {
        let path = folder.join(CARD_FILE);
        let text = crate::files::read_string(&path, crate::files::MAX_CONFIG_FILE)?;
        let mut card: Card =
            toml::from_str(&text).map_err(|error| LoadError::invalid(&path, error.to_string()))?;
        if card.runs.is_empty() {
            return Err(LoadError::invalid(&path, "no [[run]]: nothing to certify"));
        }
        card.folder = folder;
        cards.push(card);
    }
    Ok(cards)
}

/// The implementations looked at and left out (`root/left-out.toml`; none if absent).
pub fn load_left_out(root: &Path) -> Result<Vec<LeftOut>, LoadError> {
    let path = root.join(LEFT_OUT_FILE);
    if !path.exists() {
        return Ok(Vec::new());
    }
    let text = crate::files::read_string(&path, crate::files::MAX_CONFIG_FILE)?;
    let file: LeftOutFile =
        toml::from_str(&text).map_err(|error| LoadError::invalid(&path, error.to_string()))?;
    Ok(file.left_out)
}

/// A card with its expectations files loaded (each checked against the corpus).
pub struct Certified {
    /// The card.
    pub card: Card,
    /// Its known failures per profile.
    pub expectations: BTreeMap<Profile, Expectations>,
}

impl Certified {
    /// Loads the expectations files of a card; a missing file lists nothing.
    pub fn load(card: Card, cases: &[Case]) -> Result<Certified, LoadError> {
        let mut expectations = BTreeMap::new();
        for profile in [Profile::Spec, Profile::Strict] {
            let path = card.expectations_path(profile);
            let loaded = if path.exists() {
                Expectations::load(&path, cases)?
            } else {
                Expectations::default()
            };
            expectations.insert(profile, loaded);
        }
        Ok(Certified { card, expectations })
    }
}

/// The page: every certified implementation with its certificates and deviations, then
/// those left out.
pub fn render(
    implementations: &[Certified],
    left_out: &[LeftOut],
    comparison: &Comparison,
    catalogue: &Catalogue,
) -> String {
    let mut out = String::new();
    out.push_str("# Implementations\n\n");
    out.push_str(
        "<!-- Generated by `soulcheck report implementations` from implementations/ and report.jsonl files; do not edit. -->\n\n",
    );
    out.push_str("Every implementation of these formats that a user can install from the registries this project reaches (PyPI, npm, crates.io), certified by CI on every push, in both profiles, exactly as pinned in its folder under `implementations/`. Each known failure is listed in the folder's expectations files with the rule it concerns, its class and the spec's words: a **deviation** is the tool departing from those words; a **contested** reading would be the corpus's to change (none is left). A failure that is not listed, or a listed one that starts passing, fails CI. The reference and every implementation side by side, case by case: [scoreboard.md](scoreboard.md); the questions the specs leave open and each implementation's answer: [open-readings.md](open-readings.md).\n\n");
    out.push_str("| implementation | registry | formats | spec profile | strict profile |\n");
    out.push_str("| --- | --- | --- | --- | --- |\n");
    for certified in implementations {
        let card = &certified.card;
        let formats: Vec<String> = card
            .runs
            .iter()
            .map(|run| format!("`{}`", run.format))
            .collect();
        let _ = writeln!(
            out,
            "| [{}](#{}) | {} | {} | {} | {} |",
            cell(&card.label()),
            card.slug(),
            cell(&card.registry),
            formats.join(", "),
            summary(card, comparison, catalogue, Profile::Spec),
            summary(card, comparison, catalogue, Profile::Strict)
        );
    }
    for certified in implementations {
        section(&mut out, certified, comparison, catalogue);
    }
    if !left_out.is_empty() {
        out.push_str("\n## Looked at and left out\n\n");
        out.push_str("| implementation | registry | version | why |\n| --- | --- | --- | --- |\n");
        for entry in left_out {
            let _ = writeln!(
                out,
                "| {} | {} | {} | {} |",
                cell(&entry.name),
                cell(&entry.registry),
                cell(&entry.version),
                cell(&entry.reason)
            );
        }
    }
    out
}

/// `2 of 5 certified` over a card's formats in one profile, or what is missing.
fn summary(
    card: &Card,
    comparison: &Comparison,
    catalogue: &Catalogue,
    profile: Profile,
) -> String {
    let Some(run) = run_of(card, comparison, profile) else {
        return "no report".to_owned();
    };
    let standings: Vec<_> = run
        .standings(catalogue)
        .into_iter()
        .filter(|standing| standing.operation == "validate")
        .collect();
    let certified = standings
        .iter()
        .filter(|standing| standing.certified())
        .count();
    format!("{certified} of {} formats certified", standings.len())
}

fn run_of<'a>(card: &Card, comparison: &'a Comparison, profile: Profile) -> Option<&'a Run> {
    comparison
        .runs
        .iter()
        .find(|run| card.is_of(run) && run.profile == profile)
}

fn section(
    out: &mut String,
    certified: &Certified,
    comparison: &Comparison,
    catalogue: &Catalogue,
) {
    let card = &certified.card;
    let _ = writeln!(
        out,
        "\n## {}\n\n<a id=\"{}\"></a>\n",
        cell(&card.label()),
        card.slug()
    );
    let _ = writeln!(out, "{}\n", cell(&card.summary));
    let _ = writeln!(
        out,
        "- **Installed** from {}: `{}` {}; {} (`implementations/{}/`).",
        cell(&card.registry),
        cell(&card.package),
        cell(&card.version),
        cell(&card.install),
        card.slug()
    );
    let _ = writeln!(
        out,
        "- **Run** as `{}`: {}",
        cell(&card.command),
        cell(&card.reads)
    );
    for run in &card.runs {
        let mut line = format!("`{}`", cell(&run.validator));
        if !run.options.is_empty() {
            let _ = write!(line, " with `{}`", cell(&run.options.join(" ")));
        }
        if let Some(mapping) = &run.mapping {
            let _ = write!(line, ", mapping `{}`", cell(mapping));
        }
        let _ = writeln!(out, "- `{}`: {line}", run.format);
    }
    out.push_str("\n| format | profile | certificate | passed |\n| --- | --- | --- | ---: |\n");
    for profile in [Profile::Spec, Profile::Strict] {
        let Some(run) = run_of(card, comparison, profile) else {
            let _ = writeln!(out, "| all | {profile} | no report | |");
            continue;
        };
        for standing in run.standings(catalogue) {
            if standing.operation != "validate" {
                continue;
            }
            let _ = writeln!(
                out,
                "| {} | {profile} | {} | {}/{} |",
                standing.format,
                status(&standing),
                standing.tally.passed,
                standing.tally.total()
            );
        }
    }
    deviations(out, certified, comparison, catalogue);
}

/// One failure of a run, with what the expectations file says of it.
struct Failure<'a> {
    case: &'a str,
    profile: Profile,
    what: String,
    known: Option<&'a KnownFailure>,
}

fn deviations(
    out: &mut String,
    certified: &Certified,
    comparison: &Comparison,
    catalogue: &Catalogue,
) {
    let card = &certified.card;
    // By rule (unnamed last), then case and profile.
    let mut by_rule: BTreeMap<(bool, String), Vec<Failure>> = BTreeMap::new();
    for profile in [Profile::Spec, Profile::Strict] {
        let Some(run) = run_of(card, comparison, profile) else {
            continue;
        };
        let listed = certified.expectations.get(&profile);
        for record in run.records.values() {
            if record.result == "pass" {
                continue;
            }
            let known = listed.and_then(|list| list.entries().get(&record.name));
            let what = match (record.actual_verdict(), known) {
                (Some(got), _) => format!("expected {}, got {got}", record.expected_verdict),
                // No verdict (a crash, a timeout): what happened, without the output, which
                // may quote a temporary path.
                (None, Some(known)) => record
                    .explanation
                    .strip_prefix(&format!("expected failure ({}): ", known.reason))
                    .map(first_clause)
                    .unwrap_or_else(|| record.result.clone()),
                (None, None) => record.result.clone(),
            };
            let rule = known.and_then(|known| known.rule.clone());
            by_rule
                .entry((rule.is_none(), rule.unwrap_or_default()))
                .or_default()
                .push(Failure {
                    case: &record.name,
                    profile,
                    what,
                    known,
                });
        }
    }
    if by_rule.is_empty() {
        out.push_str("\nNo known failure in either profile.\n");
        return;
    }
    let count: usize = by_rule.values().map(Vec::len).sum();
    let _ = writeln!(
        out,
        "\n### Known failures by rule ({count} in both profiles)\n"
    );
    for ((_, rule), mut failures) in by_rule {
        failures.sort_by(|a, b| (a.case, a.profile).cmp(&(b.case, b.profile)));
        if rule.is_empty() {
            out.push_str("#### no rule named\n\n");
        } else {
            let _ = writeln!(out, "#### `{}`\n", cell(&rule));
        }
        // The spec's words, each once (a rule's entries usually quote the same words).
        let mut quotes: Vec<&str> = failures
            .iter()
            .filter_map(|failure| failure.known?.spec.as_deref())
            .collect();
        quotes.sort_unstable();
        quotes.dedup();
        for quote in quotes {
            let _ = writeln!(out, "> {}\n", cell(quote));
        }
        let strict = failures.iter().any(|failure| {
            failure.known.and_then(|known| known.class) == Some(FailureClass::Strict)
        });
        if let (true, Some(entry)) = (strict, catalogue.get(&rule)) {
            // No spec words decide a `strict` entry: the rule as the catalogue states it.
            let _ = writeln!(
                out,
                "The strict profile's rule, in the catalogue's words: {}\n",
                cell(&entry.requirement)
            );
        }
        out.push_str(
            "| case | profile | class | what happened | why |\n| --- | --- | --- | --- | --- |\n",
        );
        // A case that fails the same way in both profiles is one row.
        let mut rows: Vec<(&str, Vec<Profile>, &str, String, String)> = Vec::new();
        for failure in &failures {
            let (class, reason) = match failure.known {
                Some(known) => (
                    known
                        .class
                        .map(FailureClass::name)
                        .unwrap_or("unclassified"),
                    cell(&known.reason),
                ),
                None => ("not listed", String::new()),
            };
            let what = cell(&failure.what);
            match rows.last_mut() {
                Some(row)
                    if row.0 == failure.case
                        && row.2 == class
                        && row.3 == what
                        && row.4 == reason =>
                {
                    row.1.push(failure.profile);
                }
                _ => rows.push((failure.case, vec![failure.profile], class, what, reason)),
            }
        }
        for (case, profiles, class, what, reason) in rows {
            let profiles: Vec<String> = profiles.iter().map(ToString::to_string).collect();
            let _ = writeln!(
                out,
                "| `{}` | {} | {class} | {what} | {reason} |",
                cell(case),
                profiles.join(", "),
            );
        }
        out.push('\n');
    }
}

/// The first clause of an explanation (up to its first colon, parenthesis or line end),
/// which names what happened (`crashed`, `timed out after 30 s`) without quoting output.
fn first_clause(text: &str) -> String {
    let line = text.lines().next().unwrap_or_default();
    let end = [line.find(':'), line.find(" (")]
        .into_iter()
        .flatten()
        .min()
        .unwrap_or(line.len());
    line[..end].to_owned()
}
