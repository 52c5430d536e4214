//! The interface every validator under test implements, whether it runs in this process
//! (the reference implementation, a Rust implementer's crate) or behind a process boundary.

use std::path::PathBuf;

use serde::Serialize;
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

/// A validator under test.
pub trait Validator: Send + Sync {
    /// Who the validator is.
    fn implementation(&self) -> Implementation;

    /// Handles one request.
    fn run(&self, request: &Request<'_>) -> Outcome;
}
