//! The JSON Lines record of a run: a header (who ran what against which corpus, with which
//! settings, when), one record per case as it finishes, and a footer written only when
//! the run completes, so an interrupted run never looks complete. A case record carries
//! both grades (the verdict's `result` and the `diagnostics` grade), what the validator
//! printed when the case did not pass (`evidence`, each stream capped and marked
//! truncated), and the case's notes on known deviations of public implementations.

use std::collections::BTreeMap;
use std::fs::File;
use std::io::{BufRead, BufReader, BufWriter, Read as _, Write};
use std::path::Path;
use std::sync::Mutex;

use serde::{Deserialize, Serialize};

use crate::corpus::{Case, ExpectedDiagnostic, ExpectedVerdict};
use crate::report::certificate::Held;
use crate::report::Tally;
use crate::runner::{CaseResult, Grading};
use crate::validator::{Evidence, Implementation, Observation};
use crate::LoadError;
use soulcheck_vocabulary::{Format, Profile};

/// First line: the run's identity.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Header {
    /// Version of the soulcheck harness that ran.
    pub soulcheck_version: String,
    /// Content hash of the corpus (`Corpus::content_hash`).
    pub corpus_hash: String,
    /// Number of cases selected for the run.
    pub cases: usize,
    /// How many cases the corpus holds per format and operation, so a report read back
    /// can tell a run that judged a whole format from one that judged part of it.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub corpus_cases: Held,
    /// How the validator was reached: `in-process`, `per-case` or `persistent`.
    pub mode: String,
    /// The validator command, if any.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub command: Option<String>,
    /// Who the validator says it is.
    pub implementation: Implementation,
    /// Settings: strictness, timeout, jobs, filters.
    pub settings: serde_json::Value,
    /// RFC 3339 start time.
    pub started_at: String,
}

/// One line per case.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Record {
    /// `<format>/<case-id>`.
    pub name: String,
    /// Case ID.
    pub id: String,
    /// Format.
    pub format: Format,
    /// Operation (`validate`, `fingerprint`, ...).
    #[serde(default)]
    pub operation: String,
    /// Rules the case exercises.
    pub rules: Vec<String>,
    /// Expected verdict in the run's profile, e.g. `reject` or `implementation-defined`.
    pub expected_verdict: String,
    /// Expected diagnostics in the run's profile.
    pub expected_diagnostics: Vec<ExpectedDiagnostic>,
    /// What the validator said, when it said anything judgeable, kept as the JSON text it
    /// was written as: read back, a report costs that text, not a tree of values (an
    /// `actual` of a million tiny items took tens of bytes per byte parsed). Read its parts
    /// with [`Record::actual_verdict`] and [`Record::actual_value`].
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub actual: Option<Actual>,
    /// The judgement's name (`pass`, `wrong-verdict`, `crash`, ...).
    pub result: String,
    /// The judgement explained (expected vs actual, the crash message with a stderr
    /// excerpt, ...); empty for a pass.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub explanation: String,
    /// The diagnostics grade (`exact`, `partial`, `wrong`, `none`), with the expected
    /// diagnostics missing and the unexpected ones reported.
    #[serde(default)]
    pub diagnostics: Grading,
    /// What the validator printed, for a case that did not pass.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub evidence: Option<Evidence>,
    /// The case's notes on known deviations of public implementations.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub deviations: Vec<String>,
    /// Milliseconds spent in the validator.
    pub duration_ms: u64,
}

/// Last line, present only when the run completed.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Footer {
    /// Always true: the run completed.
    pub complete: bool,
    /// RFC 3339 end time.
    pub finished_at: String,
    /// Totals.
    pub summary: Tally,
}

/// A line's `type`, read without building the rest of the line.
#[derive(Deserialize)]
struct Kind {
    #[serde(rename = "type")]
    kind: String,
}

#[derive(Serialize)]
#[serde(tag = "type", rename_all = "lowercase")]
enum Line {
    Header(Box<Header>),
    Case(Box<Record>),
    Footer(Footer),
}

impl Record {
    /// The record of one finished case, judged in `profile`.
    pub fn new(case: &Case, result: &CaseResult, profile: Profile) -> Record {
        let expectation = case.expectation(profile);
        let verdict = match &expectation.verdict {
            // Past one of its bounds the reference declines the input in the spec profile
            // (the verdict it records is the strict profile's rejection).
            ExpectedVerdict::ImplementationDefined { allowed, .. }
                if case.reference_not_judged && profile == Profile::Spec =>
            {
                let allowed: Vec<String> = allowed.iter().map(ToString::to_string).collect();
                format!(
                    "implementation-defined ({}; reference: not judged)",
                    allowed.join(" or ")
                )
            }
            ExpectedVerdict::ImplementationDefined { .. } => expectation.verdict.to_string(),
            other => other.name().to_owned(),
        };
        Record {
            name: result.name.clone(),
            id: case.id.clone(),
            format: case.format,
            operation: case.operation.clone(),
            rules: case.rules.clone(),
            expected_verdict: verdict,
            expected_diagnostics: expectation.diagnostics,
            actual: result.actual.as_ref().map(observation_json),
            result: result.judgement.name().to_owned(),
            explanation: result.judgement.explain(),
            diagnostics: result.diagnostics.clone(),
            evidence: result.evidence.clone(),
            deviations: case.deviations.clone(),
            duration_ms: result.duration.as_millis() as u64,
        }
    }
}

fn observation_json(observation: &Observation) -> Actual {
    Actual(
        serde_json::value::to_raw_value(observation)
            .unwrap_or_else(|_| serde_json::value::RawValue::NULL.to_owned()),
    )
}

/// A record's `actual`: JSON text, compared as text.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(transparent)]
pub struct Actual(pub Box<serde_json::value::RawValue>);

impl PartialEq for Actual {
    fn eq(&self, other: &Actual) -> bool {
        self.0.get() == other.0.get()
    }
}

impl Record {
    /// The verdict the validator gave, read from `actual` without building the rest.
    pub fn actual_verdict(&self) -> Option<String> {
        #[derive(Deserialize)]
        struct Verdict {
            verdict: Option<String>,
        }
        let actual = self.actual.as_ref()?;
        serde_json::from_str::<Verdict>(actual.0.get())
            .ok()?
            .verdict
    }

    /// `actual` as a JSON value, parsed now (one record at a time, for showing it).
    pub fn actual_value(&self) -> Option<serde_json::Value> {
        serde_json::from_str(self.actual.as_ref()?.0.get()).ok()
    }
}

/// A JSON Lines file written as a command goes, one line per record; safe to share
/// between worker threads. Both the run's report and a fuzz campaign's record use it.
pub struct Lines {
    out: Mutex<BufWriter<File>>,
}

impl Lines {
    /// Creates (or truncates) the file.
    pub fn create(path: &Path) -> Result<Lines, LoadError> {
        let file = File::create(path).map_err(|source| LoadError::io(path, source))?;
        Ok(Lines {
            out: Mutex::new(BufWriter::new(file)),
        })
    }

    /// Appends one record as a line.
    pub fn write(&self, line: &impl Serialize) {
        let mut out = self
            .out
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner());
        if let Ok(text) = serde_json::to_string(line) {
            let _ = writeln!(out, "{text}");
            // Flushed per line so whatever finished is on disk if the command is killed.
            let _ = out.flush();
        }
    }
}

/// Writes a report as the run goes; safe to share between worker threads. Once
/// [`Writer::close`]d (a signal is ending the run), it writes nothing more, so the count
/// the interrupted report states is the count of records it holds.
pub struct Writer {
    lines: Lines,
    state: Mutex<Written>,
}

/// What a report holds: its case records, and how many of them are `interrupted`.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Written {
    /// Case records written.
    pub cases: usize,
    /// Of those, cases the harness stopped (`interrupted`).
    pub interrupted: usize,
    closed: bool,
}

impl Writer {
    /// Creates the file and writes the header.
    pub fn create(path: &Path, header: &Header) -> Result<Writer, LoadError> {
        let writer = Writer {
            lines: Lines::create(path)?,
            state: Mutex::new(Written::default()),
        };
        writer.lines.write(&Line::Header(Box::new(header.clone())));
        Ok(writer)
    }

    fn state(&self) -> std::sync::MutexGuard<'_, Written> {
        self.state
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    /// Appends one case record (nothing once closed).
    pub fn record(&self, record: Record) {
        // Held while the line is written, so `close` waits for a record being written.
        let mut state = self.state();
        if state.closed {
            return;
        }
        state.cases += 1;
        if record.result == "interrupted" {
            state.interrupted += 1;
        }
        self.lines.write(&Line::Case(Box::new(record)));
    }

    /// Appends the footer: the run is complete (nothing once closed).
    pub fn finish(&self, footer: Footer) {
        let state = self.state();
        if !state.closed {
            self.lines.write(&Line::Footer(footer));
        }
    }

    /// Writes nothing more from now on, and says what the report holds.
    pub fn close(&self) -> Written {
        let mut state = self.state();
        state.closed = true;
        *state
    }
}

/// A report read back.
#[derive(Debug, Clone, PartialEq)]
pub struct Log {
    /// The header.
    pub header: Header,
    /// The case records, in file order.
    pub records: Vec<Record>,
    /// The footer, absent when the run was interrupted.
    pub footer: Option<Footer>,
}

impl Log {
    /// Reads a report.
    pub fn read(path: &Path) -> Result<Log, LoadError> {
        // The one bounded reader: a regular file only (a FIFO or a device is refused at
        // once), at most MAX_REPORT_FILE bytes, and never a line longer than that.
        // Read line by line, so a report costs its records, not its text as well.
        let cap = crate::files::MAX_REPORT_FILE;
        let (file, opened) = crate::files::open_regular(path)
            .map_err(|error| LoadError::invalid(path, error.to_string()))?;
        let too_large = || {
            LoadError::invalid(
                path,
                format!("is longer than the {cap} bytes read of a report"),
            )
        };
        if opened.len() > cap as u64 {
            return Err(too_large());
        }
        let mut header = None;
        let mut records = Vec::new();
        let mut footer = None;
        let mut read = 0usize;
        for (number, line) in BufReader::new(file.take(cap as u64 + 1))
            .lines()
            .enumerate()
        {
            let line = line.map_err(|source| LoadError::io(path, source))?;
            read += line.len() + 1;
            if read > cap + 1 {
                return Err(too_large());
            }
            if line.trim().is_empty() {
                continue;
            }
            // The line's type first, then the line read straight into its type: an
            // internally tagged enum would buffer the whole line as a tree of values
            // before choosing (tens of bytes per byte), and cannot keep `actual` as text.
            let invalid = |error: serde_json::Error| {
                LoadError::invalid(path, format!("line {}: {error}", number + 1))
            };
            let kind: Kind = serde_json::from_str(&line).map_err(invalid)?;
            match kind.kind.as_str() {
                "header" => header = Some(serde_json::from_str(&line).map_err(invalid)?),
                "case" => records.push(serde_json::from_str(&line).map_err(invalid)?),
                "footer" => footer = Some(serde_json::from_str(&line).map_err(invalid)?),
                other => {
                    return Err(LoadError::invalid(
                        path,
                        format!(
                            "line {}: unknown line type {:?}",
                            number + 1,
                            soulcheck_vocabulary::display::visible_line(other)
                        ),
                    ))
                }
            }
        }
        let header = header.ok_or_else(|| LoadError::invalid(path, "no header line"))?;
        Ok(Log {
            header,
            records,
            footer,
        })
    }

    /// Whether the run completed.
    pub fn is_complete(&self) -> bool {
        self.footer.as_ref().is_some_and(|footer| footer.complete)
    }
}

/// The current time as RFC 3339 (UTC, seconds).
pub fn now() -> String {
    humantime::format_rfc3339_seconds(std::time::SystemTime::now()).to_string()
}
