//! The interface every validator under test implements, whether it runs in this process
//! (the reference implementation, a Rust implementer's crate) or behind a process boundary.

use std::path::PathBuf;

use serde::{Deserialize, Serialize};

use crate::crash::CrashMatch;
pub use soulcheck_vocabulary::wire::{Diagnostic, Implementation};
use soulcheck_vocabulary::{Format, Profile, Verdict};

/// The input handed to a validator.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub enum Input {
    /// One document: its exact bytes and the file name it would have on disk.
    Document {
        /// File name (format detection may depend on it).
        file_name: String,
        /// The exact bytes, never re-encoded.
        bytes: Vec<u8>,
    },
    /// A directory tree, materialised by the runner in a fresh private temporary
    /// directory for this request alone (with any decoys the case places beside it), so
    /// a validator may be handed it directly and may do anything to it.
    Tree {
        /// Root of the tree.
        root: PathBuf,
    },
}

/// One request: validate (or run another operation on) one input.
#[derive(Debug, Clone, Copy)]
pub struct Request<'a> {
    /// Case ID, for diagnostics of the harness itself.
    pub case_id: &'a str,
    /// Format to validate as.
    pub format: Format,
    /// Operation; `validate` for ordinary documents.
    pub operation: &'a str,
    /// The input.
    pub input: &'a Input,
    /// Extra inputs the rules need (a fixed "now", a stored fingerprint, ...).
    pub context: &'a serde_json::Map<String, serde_json::Value>,
    /// The profile the run judges by: a validator with a strict mode applies it when
    /// asked for `strict`.
    pub profile: Profile,
}

/// What a validator said about one input.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Observation {
    /// Its verdict.
    pub verdict: Verdict,
    /// Its diagnostics, when it reports them in a form the harness can read.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub diagnostics: Option<Vec<Diagnostic>>,
    /// The result of a non-`validate` operation.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub value: Option<serde_json::Value>,
}

/// The result of handing one request to a validator.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub enum Outcome {
    /// The validator answered.
    Observed(Observation),
    /// The validator declined the request (unsupported format or operation).
    Skipped {
        /// Why.
        reason: String,
    },
    /// The validator failed to answer: it crashed, panicked or broke the protocol. Never
    /// counted as a rejection.
    Crashed {
        /// What happened.
        message: String,
    },
    /// The validator did not answer in time. Never counted as a rejection.
    TimedOut,
    /// The validator answered something the protocol does not allow (an unreadable
    /// reply, a JSON verdict that contradicts its exit code, a wrong sequence number).
    ProtocolError {
        /// What was wrong.
        message: String,
    },
}

/// Bytes of each output stream a report keeps as evidence of a case that did not pass.
pub const EVIDENCE_CAP: usize = 8 * 1024;

/// What a validator process printed for one case, kept so a failure can be understood
/// without running it again. Each stream is cut at [`EVIDENCE_CAP`] bytes.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Evidence {
    /// How the process ended (`exit code 1`, `killed by signal 11`, `timed out`, ...).
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub exit: String,
    /// Its standard output (in persistent mode: the reply line).
    pub stdout: Captured,
    /// Its standard error (in persistent mode: only when the process died).
    pub stderr: Captured,
    /// The bytes kept of each stream.
    pub cap_bytes: usize,
    /// The crash pattern that turned a "reject" exit code into a crash, if one did.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub crash_match: Option<CrashMatch>,
    /// Diagnostics the validator reported beyond the number the harness keeps per case
    /// ([`crate::bounded::MAX_DIAGNOSTICS`]): counted, not kept or graded.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub diagnostics_dropped: usize,
}

fn is_zero(count: &usize) -> bool {
    *count == 0
}

/// One output stream as kept.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Captured {
    /// The text (invalid UTF-8 replaced), at most [`EVIDENCE_CAP`] bytes of the stream.
    pub text: String,
    /// Whether the stream went on past what is kept.
    pub truncated: bool,
}

impl Captured {
    /// Keeps the first [`EVIDENCE_CAP`] bytes of `bytes`; `cut` says the stream was already
    /// cut before it reached here.
    pub fn keep(bytes: &[u8], cut: bool) -> Captured {
        let kept = &bytes[..bytes.len().min(EVIDENCE_CAP)];
        let mut text = String::from_utf8_lossy(kept).into_owned();
        if kept.len() < bytes.len() {
            // A multi-byte character cut in half would end in a replacement character.
            while text.ends_with('\u{fffd}') {
                text.pop();
            }
        }
        Captured {
            text,
            truncated: cut || kept.len() < bytes.len(),
        }
    }

    /// Whether nothing was printed.
    pub fn is_empty(&self) -> bool {
        self.text.is_empty()
    }
}

impl Evidence {
    /// Evidence from a process's streams.
    pub fn new(exit: impl Into<String>, stdout: Captured, stderr: Captured) -> Evidence {
        Evidence {
            exit: exit.into(),
            stdout,
            stderr,
            cap_bytes: EVIDENCE_CAP,
            crash_match: None,
            diagnostics_dropped: 0,
        }
    }
}

/// An outcome and, for a validator behind a process boundary, what it printed.
#[derive(Debug, Clone, PartialEq)]
pub struct Answer {
    /// The outcome.
    pub outcome: Outcome,
    /// What the process printed, when there was a process.
    pub evidence: Option<Evidence>,
}

impl From<Outcome> for Answer {
    fn from(outcome: Outcome) -> Answer {
        Answer {
            outcome,
            evidence: None,
        }
    }
}

/// A validator under test.
pub trait Validator: Send + Sync {
    /// Who the validator is.
    fn implementation(&self) -> Implementation;

    /// Handles one request.
    fn run(&self, request: &Request<'_>) -> Outcome;

    /// Handles one request and keeps what the validator printed. An in-process validator
    /// prints nothing of its own, so the default is [`Validator::run`] without evidence.
    fn answer(&self, request: &Request<'_>) -> Answer {
        self.run(request).into()
    }
}
