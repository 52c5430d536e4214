//! The wire shapes of the validator protocol (version 1, `harness/PROTOCOL.md`),
//! defined once: what `soulcheck check --json` prints, what a validator may print in
//! per-case mode, and every message of the persistent mode. The harness reads them, the
//! reference's command line writes them, and the JSON Schemas in `schemas/protocol/`
//! describe them for implementers in other languages (a test validates the reference's
//! output against those schemas).

use serde::{Deserialize, Serialize};

use crate::format::Format;
use crate::location::Location;
use crate::terms::{Severity, Verdict};

/// The protocol version this crate describes.
pub const PROTOCOL_VERSION: u64 = 1;

/// Extra inputs some rules need besides the document (a fixed "now", a stored
/// fingerprint, trust settings), as a case's context or command-line flags give them.
pub type Context = serde_json::Map<String, serde_json::Value>;

/// One diagnostic as a validator reports it.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Diagnostic {
    /// The catalogued rule ID.
    pub rule: String,
    /// Error or warning; `error` when absent.
    #[serde(default = "error")]
    pub severity: Severity,
    /// Where. `None` only for a diagnostic a mapping file derived from free text without a
    /// location, which then matches its rule at any location; on the wire every diagnostic
    /// has a location (no member at all: the document as a whole).
    #[serde(flatten)]
    pub location: Option<Location>,
    /// For a human; never compared.
    #[serde(default)]
    pub message: String,
}

fn error() -> Severity {
    Severity::Error
}

/// A validator's result for one input: the JSON object of `soulcheck check --json`, of a
/// per-case validator's standard output, and of a persistent-mode result reply.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Report {
    /// The format the input was checked as (the reference always says; others may not).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub format: Option<Format>,
    /// Accept or reject.
    pub verdict: Verdict,
    /// The diagnostics, when the validator reports them; absent means "not reported",
    /// which is judged on the verdict alone, while `[]` means "none found".
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub diagnostics: Option<Vec<Diagnostic>>,
    /// The result of an operation other than `validate`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub value: Option<serde_json::Value>,
}

/// Who a validator is, as it introduces itself and as reports name it.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Implementation {
    /// Name of the implementation.
    pub name: String,
    /// Its version.
    #[serde(default)]
    pub version: String,
    /// Implementation language.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub language: String,
    /// Where to read about it.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub homepage: String,
    /// Formats it supports (empty: unknown, try them all).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub formats: Vec<String>,
    /// Operations it supports besides `validate`.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub operations: Vec<String>,
}

/// A message from the harness to a persistent validator.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "cmd", rename_all = "lowercase")]
#[non_exhaustive]
pub enum Command {
    /// The first message: which protocol version the harness speaks.
    Start {
        /// [`PROTOCOL_VERSION`].
        version: u64,
    },
    /// One case to check.
    Run(RunRequest),
    /// The last message: the validator answers [`Goodbye`] and exits.
    Stop,
}

/// The `run` command: one input to check.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RunRequest {
    /// Sequence number; the reply repeats it.
    pub seq: u64,
    /// The case ID, for the validator's logs.
    pub case: String,
    /// Format to check as.
    pub format: Format,
    /// `validate` or another operation of the format.
    pub operation: String,
    /// The input.
    pub input: InputMessage,
    /// The case context.
    #[serde(default)]
    pub context: Context,
}

/// How an input travels in a `run` command.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "lowercase")]
#[non_exhaustive]
pub enum InputMessage {
    /// One document, its exact bytes in standard base64.
    Document {
        /// The file name it would have on disk.
        name: String,
        /// The bytes, base64-encoded (never re-encoded text).
        base64: String,
    },
    /// A directory tree: the path of a private copy made for this request.
    Tree {
        /// Absolute path of the tree's root.
        path: String,
    },
}

/// The validator's answer to `start`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Hello {
    /// The protocol version the validator speaks.
    pub version: u64,
    /// Who it is (absent: nothing known beyond the command).
    #[serde(default)]
    pub implementation: Implementation,
}

/// The validator's answer to `run`: a result, a refusal, or an error of its own.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(untagged)]
#[non_exhaustive]
pub enum Reply {
    /// The validator declined the request (unsupported format, operation or input).
    Skipped {
        /// The request's sequence number.
        seq: u64,
        /// Why.
        skipped: String,
    },
    /// The validator failed on the request; counted like a crash.
    Errored {
        /// The request's sequence number, when the request was readable.
        seq: Option<u64>,
        /// What went wrong.
        errored: String,
    },
    /// The validator's result.
    Result {
        /// The request's sequence number.
        seq: u64,
        /// The result.
        #[serde(flatten)]
        report: Report,
    },
}

/// The validator's answer to `stop`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Goodbye {
    /// Always true.
    pub goodbye: bool,
}
