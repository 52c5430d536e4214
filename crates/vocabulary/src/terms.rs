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

/// What a rule's expectations rest on. Only the first two can fail a validator: a case
/// may have a definite verdict, and its diagnostics may be compared, only where a `spec`
/// or `upstream` rule decides them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Basis {
    /// The spec's text decides it (the rule names the section).
    Spec,
    /// The spec names the thing but not its shape, and the publisher's public
    /// implementation decides it the same way on every one of its code paths (the rule
    /// names the implementation).
    Upstream,
    /// A decision of this suite where the spec is silent or ambiguous (the rule records
    /// it and its reason); its cases are implementation-defined, or belong to the strict
    /// profile.
    Suite,
}

impl fmt::Display for Basis {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Basis::Spec => "spec",
            Basis::Upstream => "upstream",
            Basis::Suite => "suite",
        })
    }
}

/// Which expectations a run judges by.
#[derive(
    Debug, Clone, Copy, Default, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize,
)]
#[serde(rename_all = "lowercase")]
pub enum Profile {
    /// What the spec's text (and the public implementations' uniform shapes) decide;
    /// everything else is implementation-defined. Certification judges this by default.
    #[default]
    Spec,
    /// The spec profile plus the suite's protective choices (C1 controls, homoglyphs in
    /// markers, path collisions, ...), each a definite verdict. The reference passes it;
    /// a tool may opt in.
    Strict,
}

impl Profile {
    /// Both profiles, the default first.
    pub const ALL: [Profile; 2] = [Profile::Spec, Profile::Strict];

    /// The profile's name on the command line and in reports.
    pub fn name(self) -> &'static str {
        match self {
            Profile::Spec => "spec",
            Profile::Strict => "strict",
        }
    }
}

impl fmt::Display for Profile {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl std::str::FromStr for Profile {
    type Err = String;

    fn from_str(name: &str) -> Result<Self, Self::Err> {
        Profile::ALL
            .into_iter()
            .find(|profile| profile.name() == name)
            .ok_or_else(|| format!("unknown profile `{name}` (known: spec, strict)"))
    }
}
