//! `cargo xtask fuzz-implementations`: a differential fuzzing campaign (`soulcheck fuzz`)
//! against every implementation under `implementations/`, per format its card lists, in
//! the spec profile, each run as the card runs it (its command, mapping and timeout) with
//! its spec-profile expectations file (`--expectations`, so the deviations the
//! certification already records are counted apart), and one table row per campaign for
//! docs/fuzzing.md, read back from the campaign's `report.jsonl`.
//!
//! The campaigns generate skill-package *envelopes*; a tool that reads skill directories
//! (its card gives it `SKILL.md` and `skill` inputs) gets each envelope unpacked into a
//! directory by `scripts/skill-envelope.py`, which hands it to the folder's own adapter.
//! Findings about the envelope itself are that script's, and the table says so.
//!
//! The tools must be installed already (`cargo xtask implementations` installs them into
//! `target/implementations/`); a missing one is an error, never a skipped campaign.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::Value;
use soulcheck_harness::report::implementations::{load_cards, Card, CardRun};
use soulcheck_vocabulary::{Format, Profile};

/// What to fuzz and where the reports go.
pub struct Options {
    /// The `soulcheck` binary.
    pub soulcheck: PathBuf,
    /// The directory each campaign's report goes into (`<folder>-<format>/`).
    pub reports: PathBuf,
    /// Seconds per campaign.
    pub seconds: u64,
    /// The campaigns' seed.
    pub seed: u64,
    /// Only these folders (all when empty).
    pub only: Vec<String>,
}

/// One campaign's outcome, as the table shows it.
#[derive(Debug, Clone, PartialEq)]
pub struct Row {
    /// `<name> <version>`.
    pub implementation: String,
    /// The format fuzzed.
    pub format: Format,
    /// Runs, from the footer.
    pub runs: u64,
    /// `rule (kind, runs)` of each finding, kept or not.
    pub findings: Vec<String>,
    /// Kept findings whose shrunk input isolates them, and kept findings.
    pub isolating: (usize, usize),
    /// Shrunk draft sizes in bytes, of the kept findings.
    pub drafts: Vec<u64>,
    /// Runs counted apart, per class.
    pub apart: Vec<(String, u64)>,
    /// Fuzzing and shrinking, in seconds.
    pub wall: f64,
}

/// Runs every campaign and returns the table rows, in card and run order.
pub fn run(root: &Path, options: &Options) -> Result<Vec<Row>, String> {
    let cards = load_cards(&root.join("implementations")).map_err(|error| error.to_string())?;
    let selected: Vec<&Card> = cards
        .iter()
        .filter(|card| options.only.is_empty() || options.only.contains(&card.slug()))
        .collect();
    if selected.is_empty() {
        // Nothing fuzzed is never a result.
        return Err(format!(
            "no implementation folder to fuzz (asked for {:?})",
            options.only
        ));
    }
    let mut rows = Vec::new();
    for card in selected {
        let prefix = root.join("target/implementations").join(card.slug());
        if !prefix.is_dir() {
            return Err(format!(
                "{} is not installed in {}\nhint: cargo xtask implementations {} installs it",
                card.label(),
                prefix.display(),
                card.slug()
            ));
        }
        for run in &card.runs {
            let report = options
                .reports
                .join(format!("{}-{}", card.slug(), run.format));
            campaign(root, options, card, run, &prefix, &report)?;
            rows.push(row(card, run.format, &report.join("report.jsonl"))?);
        }
    }
    Ok(rows)
}

/// Whether a run reads skill directories and `SKILL.md` files rather than envelopes.
fn reads_skill_directories(run: &CardRun) -> bool {
    run.format == Format::SkillPackage && !run.options.iter().any(|option| option == "*.json")
}

fn campaign(
    root: &Path,
    options: &Options,
    card: &Card,
    run: &CardRun,
    prefix: &Path,
    report: &Path,
) -> Result<(), String> {
    let mut validator = crate::implementations::validator_command(root, card, run, prefix);
    if reads_skill_directories(run) {
        validator = format!(
            "python3 {} {{path}} {}",
            root.join("scripts/skill-envelope.py").display(),
            validator.replace("{path}", "{dir}")
        );
    }
    let mut command = Command::new(&options.soulcheck);
    command
        .args(["fuzz", "--quiet", "--format", run.format.name()])
        .args(["--validator", &validator])
        .args(["--duration", &options.seconds.to_string()])
        .args(["--seed", &options.seed.to_string()])
        .args(["--jobs", "2", "--timeout", &card.timeout.to_string()])
        .args(["--name", &card.name, "--impl-version", &card.version])
        .arg("--report")
        .arg(report);
    if let Some(mapping) = &run.mapping {
        command.arg("--mapping").arg(card.folder.join(mapping));
    }
    let expectations = card.expectations_path(Profile::Spec);
    if expectations.exists() {
        command.arg("--expectations").arg(&expectations);
    }
    println!("== {} {}", card.label(), run.format);
    let output = command
        .current_dir(root)
        .output()
        .map_err(|error| format!("cannot start {}: {error}", options.soulcheck.display()))?;
    // Exit 1 is a campaign with findings, a result; anything else is a broken campaign.
    if !matches!(output.status.code(), Some(0 | 1)) {
        return Err(format!(
            "the campaign against {} on {} failed ({}):\n{}{}",
            card.label(),
            run.format,
            output.status,
            String::from_utf8_lossy(&output.stdout),
            String::from_utf8_lossy(&output.stderr)
        ));
    }
    print!("{}", String::from_utf8_lossy(&output.stdout));
    Ok(())
}

/// The table row of one campaign, from its report.
pub fn row(card: &Card, format: Format, report: &Path) -> Result<Row, String> {
    let text = std::fs::read_to_string(report)
        .map_err(|error| format!("{}: {error}", report.display()))?;
    let mut row = Row {
        implementation: card.label(),
        format,
        runs: 0,
        findings: Vec::new(),
        isolating: (0, 0),
        drafts: Vec::new(),
        apart: Vec::new(),
        wall: 0.0,
    };
    let mut complete = false;
    for line in text.lines() {
        let record: Value =
            serde_json::from_str(line).map_err(|error| format!("{}: {error}", report.display()))?;
        match record["type"].as_str() {
            Some("finding") => {
                let rule = record["rule"].as_str().unwrap_or("(no rule)");
                let kind = record["kind"].as_str().unwrap_or_default();
                let count = record["count"].as_u64().unwrap_or(0);
                row.findings.push(format!("`{rule}` {kind} ({count})"));
                if let Some(shrunk) = record.get("shrunk").filter(|s| s.is_object()) {
                    row.isolating.1 += 1;
                    if shrunk["isolating"].as_bool() == Some(true) {
                        row.isolating.0 += 1;
                    }
                    row.drafts
                        .push(shrunk["shrunk_bytes"].as_u64().unwrap_or(0));
                }
            }
            Some("apart") => {
                let class = record["class"].as_str().unwrap_or_default().to_owned();
                let count = record["count"].as_u64().unwrap_or(0);
                match row.apart.iter_mut().find(|(name, _)| *name == class) {
                    Some((_, total)) => *total += count,
                    None => row.apart.push((class, count)),
                }
            }
            Some("footer") => {
                complete = record["complete"].as_bool() == Some(true);
                row.runs = record["runs"].as_u64().unwrap_or(0);
                row.wall = record["fuzz_seconds"].as_f64().unwrap_or(0.0)
                    + record["shrink_seconds"].as_f64().unwrap_or(0.0);
            }
            _ => {}
        }
    }
    if !complete {
        return Err(format!(
            "{}: the campaign did not complete",
            report.display()
        ));
    }
    Ok(row)
}

/// The median of some sizes (the lower middle of an even count); 0 for none.
pub fn median(sizes: &[u64]) -> u64 {
    let mut sorted = sizes.to_vec();
    sorted.sort_unstable();
    sorted
        .get(sorted.len().saturating_sub(1) / 2)
        .copied()
        .unwrap_or(0)
}

/// The rows as a Markdown table.
pub fn table(rows: &[Row]) -> String {
    let mut out = String::from(
        "| implementation | format | runs | findings: rule, kind (runs) | isolating | drafts: median / largest | counted apart (runs) | wall |\n\
         | --- | --- | ---: | --- | ---: | ---: | --- | ---: |\n",
    );
    for row in rows {
        let findings = if row.findings.is_empty() {
            "none".to_owned()
        } else {
            row.findings.join(", ")
        };
        let apart = if row.apart.is_empty() {
            "none".to_owned()
        } else {
            row.apart
                .iter()
                .map(|(class, count)| format!("{class} {count}"))
                .collect::<Vec<_>>()
                .join(", ")
        };
        let drafts = if row.drafts.is_empty() {
            String::new()
        } else {
            format!(
                "{} B / {} B",
                median(&row.drafts),
                row.drafts.iter().max().copied().unwrap_or(0)
            )
        };
        let isolating = if row.isolating.1 == 0 {
            String::new()
        } else {
            format!("{} of {}", row.isolating.0, row.isolating.1)
        };
        let _ = writeln!(
            out,
            "| {} | `{}` | {} | {findings} | {isolating} | {drafts} | {apart} | {:.1} s |",
            row.implementation, row.format, row.runs, row.wall
        );
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_median_is_the_lower_middle() {
        assert_eq!(median(&[]), 0);
        assert_eq!(median(&[5]), 5);
        assert_eq!(median(&[9, 1, 5]), 5);
        assert_eq!(median(&[4, 1, 9, 5]), 4);
    }

    #[test]
    fn a_row_is_read_from_a_report_and_an_incomplete_one_is_refused() {
        let dir = tempfile::tempdir().unwrap();
        let report = dir.path().join("report.jsonl");
        let lines = [
            r#"{"type":"header"}"#,
            r#"{"type":"finding","rule":"soul-kit.size.max","kind":"accepts-invalid","count":7,"first_run":3,"kept":true,"shrunk":{"isolating":true,"shrunk_bytes":300}}"#,
            r#"{"type":"finding","kind":"rejects-valid","count":2,"first_run":9,"kept":false}"#,
            r#"{"type":"apart","class":"unexplained","kind":"rejects-valid","count":4,"first_run":1}"#,
            r#"{"type":"apart","class":"unexplained","kind":"rejects-valid","count":1,"first_run":2}"#,
        ];
        std::fs::write(&report, lines.join("\n")).unwrap();
        let card: Card = toml::from_str(
            "name = \"tool\"\nversion = \"1\"\nregistry = \"npm\"\npackage = \"tool\"\nsummary = \"s\"\ncommand = \"c\"\nreads = \"r\"\ninstall = \"i\"\nrun = []\n",
        )
        .unwrap();
        assert!(row(&card, Format::SoulKit, &report)
            .unwrap_err()
            .contains("did not complete"));
        let footer = r#"{"type":"footer","complete":true,"runs":40,"fuzz_seconds":1.5,"shrink_seconds":0.5}"#;
        std::fs::write(&report, format!("{}\n{footer}", lines.join("\n"))).unwrap();
        let row = row(&card, Format::SoulKit, &report).unwrap();
        assert_eq!(row.runs, 40);
        assert_eq!(
            row.findings,
            [
                "`soul-kit.size.max` accepts-invalid (7)",
                "`(no rule)` rejects-valid (2)"
            ]
        );
        assert_eq!(row.isolating, (1, 1));
        assert_eq!(row.drafts, [300]);
        assert_eq!(row.apart, [("unexplained".to_owned(), 5)]);
        assert!(table(&[row]).contains("| tool 1 | `soul-kit` | 40 |"));
    }
}
