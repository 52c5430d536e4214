//! The JSON Lines record of a differential campaign, shaped like a run's `report.jsonl`
//! (`crate::report::jsonl`): a `header` line (who was fuzzed, which format, profile, seed
//! and settings), one `finding` line per distinct finding (the kept ones with their shrunk
//! input and both answers, the others with their counts), one `apart` line per distinct
//! disagreement that is not a finding (with its class: strict-only, bound,
//! implementation-defined or unexplained), and a `footer` written only when the campaign
//! completed, so an interrupted campaign never looks complete.

use std::path::Path;

use base64::Engine as _;
use serde::{Deserialize, Serialize};
use soulcheck_vocabulary::{Format, Profile};

use super::campaign::{Example, Finding, Results, Tally};
use super::{Class, Kind};
use crate::report::jsonl::Lines;
use crate::runner::Grading;
use crate::validator::{Evidence, Implementation, Outcome};
use crate::LoadError;

/// First line: the campaign's identity.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Header {
    /// Version of the soulcheck harness that ran.
    pub soulcheck_version: String,
    /// Content hash of the corpus whose catalogue judged the campaign.
    pub corpus_hash: String,
    /// The format fuzzed.
    pub format: Format,
    /// How the validator was reached: `in-process`, `per-case` or `persistent`.
    pub mode: String,
    /// The validator command, if any.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub command: Option<String>,
    /// Who the validator says it is.
    pub implementation: Implementation,
    /// The profile judged by.
    pub profile: Profile,
    /// The seed; with `settings` it reproduces every run.
    pub seed: u64,
    /// Runs, duration, jobs, bounds.
    pub settings: serde_json::Value,
    /// RFC 3339 start time.
    pub started_at: String,
}

/// One distinct finding.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct FindingRecord {
    /// The rule the disagreement is about, if one is named.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rule: Option<String>,
    /// The kind of disagreement.
    pub kind: Kind,
    /// Runs that disagreed this way.
    pub count: u64,
    /// The first such run.
    pub first_run: u64,
    /// Whether it was shrunk and written as a draft case (within the bound of findings
    /// kept).
    pub kept: bool,
    /// The shrunk finding, when kept.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub shrunk: Option<Shrunk>,
}

/// A kept finding, shrunk.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Shrunk {
    /// What the generator built for the first run.
    pub generator: String,
    /// Milliseconds from the campaign's start to the first run's disagreement.
    pub found_after_ms: u64,
    /// Bytes of the first run's document.
    pub original_bytes: usize,
    /// Bytes of the shrunk document.
    pub shrunk_bytes: usize,
    /// Trials the shrink spent.
    pub shrink_steps: usize,
    /// Whether the first run's disagreement came back when repeated.
    pub reproduced: bool,
    /// The shrunk document, base64.
    pub document_base64: String,
    /// The shrunk fuzz input, base64.
    pub data_base64: String,
    /// How the answers differ, in words.
    pub explanation: String,
    /// Every rule the disagreement is about.
    pub rules: Vec<String>,
    /// The oracle's answer.
    pub oracle: serde_json::Value,
    /// The validator's answer (`{"verdict", "diagnostics"}`, or what went wrong).
    pub validator: serde_json::Value,
    /// The validator's diagnostics graded against the oracle's.
    pub diagnostics: Grading,
    /// What the validator printed, when it ran as a process.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub evidence: Option<Evidence>,
    /// Whether the shrunk input isolates the finding: the oracle reports nothing beside
    /// the finding's question (`Disagreement::noise` is zero).
    pub isolating: bool,
    /// The rules the generator's mutation targeted.
    pub targets: Vec<String>,
    /// The draft case directory, when one was written.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub case: Option<String>,
    /// The existing case that asks the finding's question already
    /// ([`super::draft::duplicate_of`]), if one does.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub duplicate_of: Option<String>,
}

/// One distinct disagreement that is not a finding, counted apart.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct OpenRecord {
    /// What it rests on: `strict-only`, `bound`, `implementation-defined` or
    /// `unexplained`.
    pub class: Class,
    /// The reading it rests on (the rule), if one is named.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rule: Option<String>,
    /// The kind of disagreement.
    pub kind: Kind,
    /// Runs that disagreed this way.
    pub count: u64,
    /// The first such run.
    pub first_run: u64,
    /// The first run's document.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub first: Option<ExampleRecord>,
    /// The smallest document seen.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub smallest: Option<ExampleRecord>,
}

/// A document a disagreement counted apart was seen on.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ExampleRecord {
    /// The run that built it.
    pub run: u64,
    /// Its size in bytes.
    pub bytes: usize,
    /// Its first bytes (at most [`super::campaign::EXAMPLE_BYTES`]), base64.
    pub head_base64: String,
}

impl ExampleRecord {
    fn of(example: &Example) -> ExampleRecord {
        let engine = base64::engine::general_purpose::STANDARD;
        ExampleRecord {
            run: example.run,
            bytes: example.size,
            head_base64: engine.encode(&example.head),
        }
    }
}

/// Last line, present only when the campaign completed.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Footer {
    /// Always true.
    pub complete: bool,
    /// RFC 3339 end time.
    pub finished_at: String,
    /// Runs finished.
    pub runs: u64,
    /// Runs the validator agreed on.
    pub agreed: u64,
    /// Runs skipped by the validator or the oracle.
    pub skipped: u64,
    /// Runs whose fuzz input the generator could not use.
    pub unusable: u64,
    /// Distinct findings.
    pub findings: usize,
    /// Kept findings whose shrunk input isolates them.
    pub isolating: usize,
    /// Distinct strict-only disagreements.
    pub strict_only: usize,
    /// Distinct disagreements past the reference's bounds.
    pub bound: usize,
    /// Distinct implementation-defined disagreements.
    pub implementation_defined: usize,
    /// Distinct unexplained disagreements (a rejection naming no catalogued rule).
    pub unexplained: usize,
    /// Distinct findings the expectations file lists (`fuzz --expectations`).
    #[serde(default)]
    pub listed: usize,
    /// Seconds spent fuzzing.
    pub fuzz_seconds: f64,
    /// Seconds spent shrinking.
    pub shrink_seconds: f64,
}

#[derive(Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "kebab-case")]
enum Line {
    Header(Box<Header>),
    Finding(Box<FindingRecord>),
    Apart(OpenRecord),
    Footer(Footer),
}

impl FindingRecord {
    /// The record of a kept finding, with its draft case directory if one was written.
    pub fn kept(
        finding: &Finding,
        case: Option<&Path>,
        duplicate_of: Option<&str>,
    ) -> FindingRecord {
        let engine = base64::engine::general_purpose::STANDARD;
        let disagreement = &finding.disagreement;
        let validator = match &disagreement.validator.outcome {
            Outcome::Observed(observation) => serde_json::to_value(observation),
            other => Ok(serde_json::json!({ "outcome": format!("{other:?}") })),
        }
        .unwrap_or_default();
        FindingRecord {
            rule: finding.key.rule.clone(),
            kind: finding.key.kind,
            count: finding.count,
            first_run: finding.first_run,
            kept: true,
            shrunk: Some(Shrunk {
                generator: finding.summary.clone(),
                found_after_ms: finding.found_after.as_millis() as u64,
                original_bytes: finding.original_size,
                shrunk_bytes: finding.document.len(),
                shrink_steps: finding.shrink_steps,
                reproduced: finding.reproduced,
                document_base64: engine.encode(&finding.document),
                data_base64: engine.encode(&finding.data),
                explanation: disagreement.explain(),
                rules: disagreement.rules.clone(),
                oracle: serde_json::to_value(&disagreement.oracle).unwrap_or_default(),
                validator,
                diagnostics: disagreement.grading.clone(),
                evidence: disagreement.validator.evidence.clone(),
                isolating: finding.isolating,
                targets: finding.targets.clone(),
                case: case.map(|dir| dir.display().to_string()),
                duplicate_of: duplicate_of.map(str::to_owned),
            }),
        }
    }

    /// The record of a finding past the bound, counted only.
    pub fn unkept(tally: &Tally) -> FindingRecord {
        FindingRecord {
            rule: tally.key.rule.clone(),
            kind: tally.key.kind,
            count: tally.count,
            first_run: tally.first_run,
            kept: false,
            shrunk: None,
        }
    }
}

impl Footer {
    /// The footer of a completed campaign.
    pub fn of(results: &Results) -> Footer {
        Footer {
            complete: true,
            finished_at: crate::report::jsonl::now(),
            runs: results.runs,
            agreed: results.agreed,
            skipped: results.skipped,
            unusable: results.unusable,
            findings: results.findings.len() + results.unkept.len(),
            isolating: results.findings.iter().filter(|f| f.isolating).count(),
            strict_only: results.apart_of(Class::StrictOnly).count(),
            bound: results.apart_of(Class::Bound).count(),
            implementation_defined: results.apart_of(Class::ImplementationDefined).count(),
            unexplained: results.apart_of(Class::Unexplained).count(),
            listed: results.apart_of(Class::Listed).count(),
            fuzz_seconds: results.fuzz_time.as_secs_f64(),
            shrink_seconds: results.shrink_time.as_secs_f64(),
        }
    }
}

/// Writes the record as the campaign goes.
pub struct Writer {
    lines: Lines,
}

impl Writer {
    /// Creates the file and writes the header.
    pub fn create(path: &Path, header: &Header) -> Result<Writer, LoadError> {
        let writer = Writer {
            lines: Lines::create(path)?,
        };
        writer.line(&Line::Header(Box::new(header.clone())));
        Ok(writer)
    }

    fn line(&self, line: &Line) {
        self.lines.write(line);
    }

    /// Appends a finding.
    pub fn finding(&self, record: FindingRecord) {
        self.line(&Line::Finding(Box::new(record)));
    }

    /// Appends a disagreement counted apart.
    pub fn apart(&self, tally: &Tally) {
        self.line(&Line::Apart(OpenRecord {
            class: tally.class,
            rule: tally.key.rule.clone(),
            kind: tally.key.kind,
            count: tally.count,
            first_run: tally.first_run,
            first: tally.first.as_ref().map(ExampleRecord::of),
            smallest: tally.smallest.as_ref().map(ExampleRecord::of),
        }));
    }

    /// Appends the footer: the campaign is complete.
    pub fn finish(&self, footer: Footer) {
        self.line(&Line::Footer(footer));
    }
}
