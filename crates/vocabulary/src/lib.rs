//! soulcheck-vocabulary: the words every part of soulcheck shares, defined once.
//!
//! - [`Format`]: the formats under test, named the same way everywhere;
//! - [`Level`], [`Severity`], [`Verdict`], [`Basis`], [`Profile`]: the terms of judgement;
//! - [`Location`]: where a diagnostic points;
//! - [`catalogue`]: the file model of a rule catalogue;
//! - [`wire`]: the validator protocol's messages and the `check --json` report;
//! - [`display`]: the one sanitiser for untrusted text shown on a terminal or in Markdown.
//!
//! It depends on serde alone (and toml for the catalogue), so the reference, the harness,
//! the command line and an implementer's own crate can all use it without pulling in each
//! other.

pub mod catalogue;
pub mod display;
mod format;
mod location;
mod terms;
pub mod wire;

pub use format::{Format, UnknownFormat};
pub use location::Location;
pub use terms::{Basis, Level, Profile, Severity, Verdict};
pub use wire::Context;
