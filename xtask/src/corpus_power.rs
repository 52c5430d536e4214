//! The corpus-power record: how many mutants of the reference the corpus fails.
//!
//! Every mutant cargo-mutants makes of the reference is a plausible wrong implementation.
//! `scripts/corpus-power.sh` runs a part of them against the verdict oracle
//! (`crates/oracle/tests/verdicts.rs`: the corpus as a certification judges it) and the
//! survivors against the stricter diagnostics oracle, then `cargo xtask corpus-power
//! record` merges what cargo-mutants wrote into `docs/corpus-power/mutants.jsonl` (one
//! line per mutant, with the date and commit it was measured on). The survivors of the
//! verdict oracle are classified in `docs/corpus-power/survivors.toml` (each class a
//! pattern over mutant names, with its reason); `render` turns both into
//! `docs/corpus-power.md` and `docs/corpus-power.json`, and `check` (and a test) fails
//! when those two are stale.

use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write as _;
use std::fs;
use std::path::{Path, PathBuf};

use regex::Regex;
use serde::{Deserialize, Serialize};

/// Where the record lives, relative to the repository root.
pub const MUTANTS: &str = "docs/corpus-power/mutants.jsonl";
/// The classification of the verdict oracle's survivors.
pub const SURVIVORS: &str = "docs/corpus-power/survivors.toml";
/// The rendered record, for people.
pub const MARKDOWN: &str = "docs/corpus-power.md";
/// The rendered record, for machines.
pub const JSON: &str = "docs/corpus-power.json";
/// README.md, whose one line on the corpus's power sits between these markers.
pub const README: &str = "README.md";
const README_START: &str = "<!-- corpus-power:start -->";
const README_END: &str = "<!-- corpus-power:end -->";

/// What an oracle made of a mutant.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Status {
    /// A test failed: the oracle caught it.
    Caught,
    /// Every test passed: the mutant survived.
    Missed,
    /// The mutant did not compile.
    Unviable,
    /// The tests did not finish in time (a certification run would time out too).
    Timeout,
}

/// One measured mutant.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Mutant {
    /// cargo-mutants' name: `file:line:column: what was replaced`.
    pub name: String,
    /// The source file, relative to the repository root.
    pub file: String,
    /// The function it is in, when it is in one.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub function: String,
    /// The verdict oracle's outcome.
    pub verdict: Status,
    /// The diagnostics oracle's outcome, for a survivor of the verdict oracle.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub diagnostics: Option<Status>,
    /// The date it was measured (YYYY-MM-DD).
    pub measured: String,
    /// The commit it was measured on.
    pub commit: String,
    /// The SHA-256 of its file's bytes as measured: the record holds only while the file
    /// is unchanged ([`outdated`]).
    #[serde(default)]
    pub source: String,
}

/// The outcomes cargo-mutants wrote into `<dir>/mutants.out/outcomes.json`: mutant name,
/// file, function and status (the baseline is left out).
pub fn read_outcomes(dir: &Path) -> Result<Vec<(String, String, String, Status)>, String> {
    #[derive(Deserialize)]
    struct File {
        outcomes: Vec<Entry>,
    }
    #[derive(Deserialize)]
    struct Entry {
        scenario: serde_json::Value,
        summary: String,
    }
    let path = dir.join("mutants.out").join("outcomes.json");
    let text = fs::read_to_string(&path).map_err(|e| format!("{}: {e}", path.display()))?;
    let file: File = serde_json::from_str(&text).map_err(|e| format!("{}: {e}", path.display()))?;
    let mut outcomes = Vec::new();
    for entry in file.outcomes {
        let Some(mutant) = entry.scenario.get("Mutant") else {
            continue;
        };
        let text = |value: Option<&serde_json::Value>| {
            value
                .and_then(serde_json::Value::as_str)
                .unwrap_or_default()
                .to_owned()
        };
        let status = match entry.summary.as_str() {
            "CaughtMutant" => Status::Caught,
            "MissedMutant" => Status::Missed,
            "Unviable" => Status::Unviable,
            "Timeout" => Status::Timeout,
            other => return Err(format!("{}: unknown outcome {other}", path.display())),
        };
        outcomes.push((
            text(mutant.get("name")),
            text(mutant.get("file")),
            text(mutant.get("function").and_then(|f| f.get("function_name"))),
            status,
        ));
    }
    Ok(outcomes)
}

/// Reads the record (empty when it does not exist yet).
pub fn read_record(root: &Path) -> Result<Vec<Mutant>, String> {
    let path = root.join(MUTANTS);
    let Ok(text) = fs::read_to_string(&path) else {
        return Ok(Vec::new());
    };
    text.lines()
        .filter(|line| !line.trim().is_empty())
        .map(|line| serde_json::from_str(line).map_err(|e| format!("{}: {e}", path.display())))
        .collect()
}

/// Merges one run into the record: the verdict oracle's outcomes from `verdicts`, and
/// the diagnostics oracle's from `diagnostics` for the survivors it was run on. A mutant
/// measured again replaces its old line; so do all the old lines of the files in
/// `whole_files`, which the run measured whole (`--file`): their mutants may have changed
/// with their code.
pub fn record(
    root: &Path,
    verdicts: &Path,
    diagnostics: Option<&Path>,
    measured: &str,
    commit: &str,
    whole_files: &[String],
) -> Result<usize, String> {
    let verdict_outcomes = read_outcomes(verdicts)?;
    let diagnostic_outcomes: BTreeMap<String, Status> = match diagnostics {
        Some(dir) => read_outcomes(dir)?
            .into_iter()
            .map(|(name, _, _, status)| (name, status))
            .collect(),
        None => BTreeMap::new(),
    };
    let files: BTreeSet<&str> = whole_files.iter().map(String::as_str).collect();
    let names: BTreeSet<&str> = verdict_outcomes
        .iter()
        .map(|(name, _, _, _)| name.as_str())
        .collect();
    let mut kept: Vec<Mutant> = read_record(root)?
        .into_iter()
        .filter(|old| {
            let measured_again = names.contains(old.name.as_str());
            let file_measured_whole = files.contains(old.file.as_str());
            !(measured_again || file_measured_whole)
        })
        .collect();
    let added = verdict_outcomes.len();
    let mut sources: BTreeMap<String, String> = BTreeMap::new();
    for (name, file, function, verdict) in verdict_outcomes {
        let diagnostics = (verdict == Status::Missed)
            .then(|| diagnostic_outcomes.get(&name).copied())
            .flatten();
        let source = match sources.get(&file) {
            Some(source) => source.clone(),
            None => {
                let source = source_hash(&root.join(&file))?;
                sources.insert(file.clone(), source.clone());
                source
            }
        };
        kept.push(Mutant {
            name,
            file,
            function,
            verdict,
            diagnostics,
            measured: measured.to_owned(),
            commit: commit.to_owned(),
            source,
        });
    }
    kept.sort_by(|a, b| {
        (&a.file, line_of(&a.name), &a.name).cmp(&(&b.file, line_of(&b.name), &b.name))
    });
    let mut text = String::new();
    for mutant in &kept {
        let line = serde_json::to_string(mutant).map_err(|e| e.to_string())?;
        text.push_str(&line);
        text.push('\n');
    }
    let path = root.join(MUTANTS);
    if let Some(parent) = path.parent() {
        fs::create_dir_all(parent).map_err(|e| format!("{}: {e}", parent.display()))?;
    }
    fs::write(&path, text).map_err(|e| format!("{}: {e}", path.display()))?;
    Ok(added)
}

/// The SHA-256 of a file's bytes, in hex: what a record's `source` names.
pub fn source_hash(path: &Path) -> Result<String, String> {
    use sha2::{Digest, Sha256};
    let bytes = fs::read(path).map_err(|e| format!("{}: {e}", path.display()))?;
    Ok(Sha256::digest(&bytes)
        .iter()
        .map(|byte| format!("{byte:02x}"))
        .collect())
}

/// Where the reference's source lives: every `.rs` file under it is mutated.
pub const REFERENCE_SOURCE: &str = "crates/reference/src";

/// A file of the reference whose record does not describe its current code.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Outdated {
    /// The file, relative to the repository root.
    pub file: String,
    /// Its records measured on other bytes than the file's current ones (or on a file
    /// that is gone).
    pub older: usize,
    /// Whether it has no record at all.
    pub unmeasured: bool,
}

impl std::fmt::Display for Outdated {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        if self.unmeasured {
            write!(f, "{}: never measured", self.file)
        } else {
            write!(
                f,
                "{}: {} record(s) measured on another version of the file",
                self.file, self.older
            )
        }
    }
}

/// The reference's files whose record is older than their code: a record whose `source`
/// is not the SHA-256 of its file as it is now (the file changed, or is gone, since it
/// was measured), and every `.rs` file under [`REFERENCE_SOURCE`] with no record. Each is
/// measured again whole with `scripts/corpus-power.sh --file FILE`.
pub fn outdated(root: &Path) -> Result<Vec<Outdated>, String> {
    let record = read_record(root)?;
    let mut current: BTreeMap<String, Option<String>> = BTreeMap::new();
    for file in rust_files(&root.join(REFERENCE_SOURCE))? {
        let relative = file
            .strip_prefix(root)
            .map_err(|e| e.to_string())?
            .to_string_lossy()
            .replace('\\', "/");
        current.insert(relative, Some(source_hash(&file)?));
    }
    let mut older: BTreeMap<String, usize> = BTreeMap::new();
    for mutant in &record {
        let hash = current.entry(mutant.file.clone()).or_insert(None);
        let count = older.entry(mutant.file.clone()).or_insert(0);
        if hash.as_deref() != Some(mutant.source.as_str()) {
            *count += 1;
        }
    }
    Ok(current
        .keys()
        .filter_map(|file| match older.get(file) {
            None => Some(Outdated {
                file: file.clone(),
                older: 0,
                unmeasured: true,
            }),
            Some(&count) if count > 0 => Some(Outdated {
                file: file.clone(),
                older: count,
                unmeasured: false,
            }),
            Some(_) => None,
        })
        .collect())
}

/// Every `.rs` file under `dir`, in a stable order.
fn rust_files(dir: &Path) -> Result<Vec<PathBuf>, String> {
    let mut files = Vec::new();
    let mut pending = vec![dir.to_owned()];
    while let Some(dir) = pending.pop() {
        let entries = fs::read_dir(&dir).map_err(|e| format!("{}: {e}", dir.display()))?;
        for entry in entries {
            let path = entry.map_err(|e| format!("{}: {e}", dir.display()))?.path();
            if path.is_dir() {
                pending.push(path);
            } else if path.extension().is_some_and(|extension| extension == "rs") {
                files.push(path);
            }
        }
    }
    files.sort();
    Ok(files)
}

/// The line number in a mutant's name (`file:line:column: ...`), for a stable order.
fn line_of(name: &str) -> u32 {
    name.split(':')
        .nth(1)
        .and_then(|line| line.parse().ok())
        .unwrap_or(0)
}

/// How a survivor of the verdict oracle is closed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Class {
    /// It cannot change any verdict or operation value a certification judges (the
    /// reason says why); it may still change what a report shows.
    Equivalent,
    /// A corpus gap not closed yet: the reason says which rule and the plan.
    Open,
}

/// One classification: survivors whose name matches `pattern`.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ClassRule {
    /// A regular expression over the mutant's name.
    pub pattern: String,
    /// The class.
    pub class: Class,
    /// Why.
    pub reason: String,
    /// For an equivalent class, the written attempt to break its reason: the input tried
    /// (in both profiles) and why it, or any input, cannot change a verdict. A class
    /// without one is refused ([`read_classification`]): a reason nobody tried to refute
    /// is an assertion, not an argument.
    #[serde(default)]
    pub attempt: String,
}

/// The classification file: rules tried in order, the first match wins.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Classification {
    /// The rules.
    #[serde(default, rename = "survivor")]
    pub rules: Vec<ClassRule>,
}

/// Reads the classification.
pub fn read_classification(root: &Path) -> Result<(Classification, Vec<Regex>), String> {
    let path = root.join(SURVIVORS);
    let text = fs::read_to_string(&path).map_err(|e| format!("{}: {e}", path.display()))?;
    let classification: Classification =
        toml::from_str(&text).map_err(|e| format!("{}: {e}", path.display()))?;
    let patterns = classification
        .rules
        .iter()
        .map(|rule| {
            Regex::new(&rule.pattern)
                .map_err(|e| format!("{}: {}: {e}", path.display(), rule.pattern))
        })
        .collect::<Result<Vec<_>, _>>()?;
    if let Some(rule) = classification
        .rules
        .iter()
        .find(|rule| rule.class == Class::Equivalent && rule.attempt.trim().is_empty())
    {
        return Err(format!(
            "{}: the equivalent class `{}` has no `attempt` (the input tried against its \
             reason in both profiles, and why no verdict can change)",
            path.display(),
            rule.pattern
        ));
    }
    Ok((classification, patterns))
}

/// The part of the suite a source file of the reference serves: its format, or `shared`.
pub fn format_of(file: &str) -> &'static str {
    let file = file.strip_prefix("crates/reference/src/").unwrap_or(file);
    if file.starts_with("soul_kit") {
        "soul-kit"
    } else if file.starts_with("skill_package") {
        "skill-package"
    } else if file == "soulacy/sidecar.rs" {
        "soulacy-sidecar"
    } else if file.starts_with("soulacy") {
        "soulacy-package"
    } else if file.starts_with("compose_bundle") {
        "compose-bundle"
    } else if file.starts_with("soul_md") {
        "soul-md"
    } else {
        "shared"
    }
}

/// Counts for one format or module.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct Tally {
    /// Mutants generated.
    pub mutants: usize,
    /// Mutants that did not compile.
    pub unviable: usize,
    /// Mutants that compiled.
    pub viable: usize,
    /// Caught by the verdict oracle (a timeout counts: a certification run would time out).
    pub caught: usize,
    /// Survivors of the verdict oracle that the diagnostics oracle catches.
    pub caught_by_suite_only: usize,
    /// Survivors of the verdict oracle not run against the diagnostics oracle: the
    /// "suite only" count leaves them out, and the page says how many.
    pub suite_unmeasured: usize,
    /// Survivors classified equivalent.
    pub equivalent: usize,
    /// Survivors not closed.
    pub open: usize,
}

impl Tally {
    fn add(&mut self, mutant: &Mutant, class: Option<Class>) {
        self.mutants += 1;
        match mutant.verdict {
            Status::Unviable => self.unviable += 1,
            Status::Caught | Status::Timeout => {
                self.viable += 1;
                self.caught += 1;
            }
            Status::Missed => {
                self.viable += 1;
                match mutant.diagnostics {
                    Some(Status::Caught) => self.caught_by_suite_only += 1,
                    None => self.suite_unmeasured += 1,
                    Some(_) => {}
                }
                match class {
                    Some(Class::Equivalent) => self.equivalent += 1,
                    Some(Class::Open) | None => self.open += 1,
                }
            }
        }
    }

    /// Caught by the verdict oracle, of the viable mutants that are not equivalent.
    pub fn power(&self) -> Option<f64> {
        let judged = self.viable - self.equivalent;
        (judged > 0).then(|| self.caught as f64 / judged as f64)
    }
}

/// The rendered record: the Markdown page, the JSON document and README's line.
pub struct Rendered {
    /// docs/corpus-power.md.
    pub markdown: String,
    /// docs/corpus-power.json.
    pub json: String,
    /// The sentence README.md shows between its corpus-power markers.
    pub readme_line: String,
}

/// The rendered record.
pub fn render(root: &Path) -> Result<Rendered, String> {
    let mutants = read_record(root)?;
    let planted = crate::independent::planted(root)?;
    let (classification, patterns) = read_classification(root)?;
    let classify = |name: &str| {
        patterns
            .iter()
            .position(|pattern| pattern.is_match(name))
            .map(|index| (index, classification.rules[index].class))
    };
    let mut formats: BTreeMap<&str, Tally> = BTreeMap::new();
    let mut modules: BTreeMap<&str, Tally> = BTreeMap::new();
    let mut dates: BTreeMap<&str, (BTreeSet<&str>, BTreeSet<&str>)> = BTreeMap::new();
    let mut by_rule: BTreeMap<usize, usize> = BTreeMap::new();
    let mut open: Vec<&Mutant> = Vec::new();
    for mutant in &mutants {
        let class = if mutant.verdict == Status::Missed {
            let found = classify(&mutant.name);
            match found {
                Some((index, Class::Equivalent)) => *by_rule.entry(index).or_default() += 1,
                _ => open.push(mutant),
            }
            Some(found.map_or(Class::Open, |(_, class)| class))
        } else {
            None
        };
        let format = format_of(&mutant.file);
        formats.entry(format).or_default().add(mutant, class);
        modules.entry(&mutant.file).or_default().add(mutant, class);
        let entry = dates.entry(format).or_default();
        entry.0.insert(&mutant.measured);
        entry.1.insert(&mutant.commit);
    }
    let join = |set: &BTreeSet<&str>| set.iter().copied().collect::<Vec<_>>().join(", ");
    let percent = |tally: &Tally| {
        tally.power().map_or_else(
            || "n/a".to_owned(),
            |power| format!("{:.1}%", power * 100.0),
        )
    };

    let mut json = serde_json::Map::new();
    for (format, tally) in &formats {
        let (measured, commits) = &dates[format];
        let switches = planted
            .iter()
            .find(|planted| planted.format.name() == *format)
            .map(|planted| {
                serde_json::json!({
                    "switches": planted.mistakes.len(),
                    "refused": planted.refused(),
                    "allowed": planted.allowed.len(),
                })
            });
        json.insert(
            (*format).to_owned(),
            serde_json::json!({
                "mutants": tally.mutants,
                "unviable": tally.unviable,
                "viable": tally.viable,
                "caught": tally.caught,
                "caught_by_suite_only": tally.caught_by_suite_only,
                "survivors_not_run_by_the_diagnostics_oracle": tally.suite_unmeasured,
                "equivalent": tally.equivalent,
                "open": tally.open,
                "power": tally.power().map(|power| (power * 1000.0).round() / 1000.0),
                "measured": join(measured),
                "commit": join(commits),
            }),
        );
        if let (Some(switches), Some(serde_json::Value::Object(entry))) =
            (switches, json.get_mut(*format))
        {
            entry.insert("independent_mistakes".to_owned(), switches);
        }
    }
    let json = serde_json::to_string_pretty(&serde_json::Value::Object(json))
        .map_err(|e| e.to_string())?
        + "\n";

    let mut total = Tally::default();
    for mutant in &mutants {
        let class = (mutant.verdict == Status::Missed)
            .then(|| classify(&mutant.name).map_or(Class::Open, |(_, class)| class));
        total.add(mutant, class);
    }
    let per_format: Vec<String> = formats
        .iter()
        .filter(|(format, _)| **format != "shared")
        .map(|(format, tally)| format!("{format} {}", percent(tally)))
        .collect();
    let readme_line = format!(
        "Measured: the corpus fails {} of the {} viable mutants of the reference that are not \
         equivalent ({}; the code all formats share, {}); {} survivors are still open, \
         listed there. {}",
        percent(&total),
        total.viable - total.equivalent,
        per_format.join(", "),
        formats
            .get("shared")
            .map_or_else(|| "n/a".to_owned(), percent),
        total.open,
        crate::independent::readme_clause(&planted),
    );

    let mut md = String::from(
        "# Corpus power\n\n<!-- Generated by `cargo xtask corpus-power render` from docs/corpus-power/; do not edit. -->\n\n",
    );
    md.push_str(
        "Every mutant cargo-mutants makes of the reference is a plausible wrong implementation; \
         the corpus's power is the share of them it fails. **Caught**: the verdict oracle \
         (`crates/oracle/tests/verdicts.rs`: every case in both profiles, judged as a \
         certification judges a validator, plus the warnings each case expects) fails the \
         mutant. **Suite only**: a survivor of the verdict oracle that the diagnostics oracle \
         (exact diagnostics and locations, as the `cargo test` suite holds the reference) \
         catches: it changes what a report shows, not what a certification decides. \
         **Equivalent**: a survivor that cannot change a verdict or operation value in either \
         profile, with its reason below and the attempt made to break that reason (the input \
         tried, and why no input can move a verdict). **Open**: a survivor not closed yet. **Power**: caught, of the viable \
         mutants that are not equivalent. How to measure a part and record it: \
         `scripts/corpus-power.sh` (CONTRIBUTING.md, \"Measuring the corpus's power\"). \
         Every record names the SHA-256 of the file it was measured on, and `cargo test` \
         fails when a file of the reference changed since (`cargo xtask corpus-power \
         check` says which to measure again), so the figures describe the code as it is.\n\n",
    );
    md.push_str(
        "**Should-level rules.** A verdict never shows a warning, and the samples taken before \
         this record showed it: most survivors in SOUL.md's outline walker changed only \
         warnings. So the verdict oracle also fails a mutant that leaves a case expecting \
         warnings without one (the report's truncation notice aside) or warns on a case \
         expecting none, and a certificate now says beside its verdict whether a validator \
         that reports diagnostics warns as the spec says (README.md, \"Reading results\"). \
         It stays beside the certificate, not a tier of it: a validator that reports no \
         diagnostics cannot be judged on its warnings, and most real tools report none.\n\n",
    );
    let header = "| mutants | unviable | viable | caught | suite only | equivalent | open | power |\n| ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |\n";
    let row = |tally: &Tally| {
        format!(
            "| {} | {} | {} | {} | {} | {} | {} | {} |",
            tally.mutants,
            tally.unviable,
            tally.viable,
            tally.caught,
            if tally.suite_unmeasured == 0 {
                tally.caught_by_suite_only.to_string()
            } else {
                format!(
                    "{} ({} not run)",
                    tally.caught_by_suite_only, tally.suite_unmeasured
                )
            },
            tally.equivalent,
            tally.open,
            percent(tally)
        )
    };
    md.push_str("## Per format\n\n| format | measured | commit ");
    md.push_str(header.lines().next().unwrap_or_default());
    md.push_str("\n| --- | --- | --- ");
    md.push_str(header.lines().nth(1).unwrap_or_default());
    md.push('\n');
    for (format, tally) in &formats {
        let (measured, commits) = &dates[format];
        let _ = writeln!(
            md,
            "| `{format}` | {} | {} {}",
            join(measured),
            join(commits),
            row(tally)
        );
    }
    md.push('\n');
    md.push_str(&crate::independent::markdown(&planted));
    md.push_str("\n## Per module\n\n| module ");
    md.push_str(header.lines().next().unwrap_or_default());
    md.push_str("\n| --- ");
    md.push_str(header.lines().nth(1).unwrap_or_default());
    md.push('\n');
    for (module, tally) in &modules {
        let _ = writeln!(md, "| `{module}` {}", row(tally));
    }
    md.push_str("\n## Equivalent survivors, by reason\n\n");
    for (index, rule) in classification.rules.iter().enumerate() {
        if rule.class != Class::Equivalent {
            continue;
        }
        let count = by_rule.get(&index).copied().unwrap_or(0);
        let _ = writeln!(
            md,
            "- {count}: {} (`{}`)\n  - *Attempt:* {}",
            rule.reason, rule.pattern, rule.attempt
        );
    }
    md.push_str("\n## Open survivors\n\n");
    if open.is_empty() {
        md.push_str("None.\n");
    }
    for mutant in &open {
        let plan = classify(&mutant.name)
            .map(|(index, _)| classification.rules[index].reason.as_str())
            .unwrap_or("not classified yet");
        let suite = if mutant.diagnostics == Some(Status::Caught) {
            " (the diagnostics oracle catches it)"
        } else {
            ""
        };
        let _ = writeln!(md, "- `{}`{suite}: {plan}", mutant.name);
    }
    Ok(Rendered {
        markdown: md,
        json,
        readme_line,
    })
}

/// `readme` with the text between its corpus-power markers replaced by `line`.
fn with_readme_line(readme: &str, line: &str) -> Result<String, String> {
    crate::readme::between_markers(readme, README_START, README_END, &format!("{line}\n"))
}

/// Each rendered file with the text it should have.
fn rendered_files(root: &Path) -> Result<Vec<(PathBuf, String)>, String> {
    let rendered = render(root)?;
    let readme_path = root.join(README);
    let readme =
        fs::read_to_string(&readme_path).map_err(|e| format!("{}: {e}", readme_path.display()))?;
    Ok(vec![
        (root.join(MARKDOWN), rendered.markdown),
        (root.join(JSON), rendered.json),
        (
            readme_path,
            with_readme_line(&readme, &rendered.readme_line)?,
        ),
    ])
}

/// The rendered files that differ from the checkout.
pub fn stale(root: &Path) -> Result<Vec<PathBuf>, String> {
    Ok(rendered_files(root)?
        .into_iter()
        .filter(|(path, text)| fs::read_to_string(path).ok().as_deref() != Some(text.as_str()))
        .map(|(path, _)| path)
        .collect())
}

/// Writes the rendered files.
pub fn write(root: &Path) -> Result<(), String> {
    for (path, text) in rendered_files(root)? {
        fs::write(&path, text).map_err(|e| format!("{}: {e}", path.display()))?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A repository with two reference files and a record of one mutant of the first,
    /// measured on `recorded_source` (the first file as it is when `None`).
    fn repository(recorded_source: Option<&str>) -> tempfile::TempDir {
        let root = tempfile::tempdir().expect("temp dir");
        let source = root.path().join(REFERENCE_SOURCE);
        fs::create_dir_all(source.join("json")).expect("source dirs");
        fs::write(source.join("lib.rs"), "pub fn one() -> u8 { 1 }\n").expect("lib.rs");
        fs::write(source.join("json/mod.rs"), "pub fn two() -> u8 { 2 }\n").expect("mod.rs");
        let recorded_source = match recorded_source {
            Some(source) => source.to_owned(),
            None => source_hash(&source.join("lib.rs")).expect("hash"),
        };
        let mutant = Mutant {
            name: "crates/reference/src/lib.rs:1:22: replace one -> u8 with 0".to_owned(),
            file: "crates/reference/src/lib.rs".to_owned(),
            function: "one".to_owned(),
            verdict: Status::Caught,
            diagnostics: None,
            measured: "2026-12-05".to_owned(),
            commit: "0123456789ab".to_owned(),
            source: recorded_source,
        };
        let record = root.path().join(MUTANTS);
        fs::create_dir_all(record.parent().expect("parent")).expect("record dir");
        let line = serde_json::to_string(&mutant).expect("json");
        fs::write(record, format!("{line}\n")).expect("record");
        root
    }

    #[test]
    fn a_record_holds_only_while_its_file_is_unchanged() {
        let root = repository(None);
        let found = outdated(root.path()).expect("outdated");
        assert_eq!(
            found,
            vec![Outdated {
                file: "crates/reference/src/json/mod.rs".to_owned(),
                older: 0,
                unmeasured: true,
            }],
            "only the file with no record is outdated"
        );
        fs::write(
            root.path().join(REFERENCE_SOURCE).join("lib.rs"),
            "pub fn one() -> u8 { 1 + 0 }\n",
        )
        .expect("edit");
        let found = outdated(root.path()).expect("outdated");
        assert!(
            found.contains(&Outdated {
                file: "crates/reference/src/lib.rs".to_owned(),
                older: 1,
                unmeasured: false,
            }),
            "an edited file's record is older than its code: {found:?}"
        );
    }

    #[test]
    fn a_record_of_a_file_that_is_gone_is_outdated() {
        let root = repository(Some("0000"));
        fs::remove_file(root.path().join(REFERENCE_SOURCE).join("lib.rs")).expect("remove");
        let found = outdated(root.path()).expect("outdated");
        assert!(found
            .iter()
            .any(|o| o.file.ends_with("lib.rs") && o.older == 1));
    }
}
