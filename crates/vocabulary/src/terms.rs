//! The terms of judgement shared by the rule catalogue, the corpus, the reference and every
//! validator: how binding a rule is, how severe a diagnostic is, and what a validator
//! decided about a document.
//!
//! `Level`, `Severity` and `Verdict` are closed on purpose: the validator protocol
//! (version 1) fixes their values, so a new one would be a new protocol version rather than
//! a new variant.

use std::fmt;

use serde::{Deserialize, Serialize};

/// How binding a rule is, in the spec's own terms.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Level {
    /// A requirement: a conforming validator rejects (or warns, for warning rules) every
    /// document that breaks it.
    Must,
    /// A recommendation: breaking it gives a warning, never a rejection.
    Should,
    /// A permission or a recorded decision where the spec leaves room.
    May,
}

impl fmt::Display for Level {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Level::Must => "must",
            Level::Should => "should",
            Level::May => "may",
        })
    }
}

/// Whether a diagnostic stops a document from being accepted.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Severity {
    /// The document is rejected.
    Error,
    /// The document is accepted, with a warning.
    Warning,
}

impl fmt::Display for Severity {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Severity::Error => "error",
            Severity::Warning => "warning",
        })
    }
}

/// The outcome a validator reports for one document.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Verdict {
    /// The document conforms (warnings allowed).
    Accept,
    /// The document does not conform.
    Reject,
}

impl fmt::Display for Verdict {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Verdict::Accept => "accept",
            Verdict::Reject => "reject",
        })
    }
}
