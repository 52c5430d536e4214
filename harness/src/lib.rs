//! soulcheck-harness: the conformance machinery, independent of any implementation.
//!
//! It loads the corpus ([`corpus`]) and the rule catalogue ([`catalogue`]), checks that the
//! corpus is well formed ([`selfcheck`]), runs cases against any [`Validator`] and judges
//! the outcomes ([`runner`]), summarises results ([`report`]) and writes the corpus out as
//! plain files for implementers who do not use this tool ([`export`]). Validators behind a
//! process boundary are set up by [`setup`] and their uncaught errors recognised by
//! [`crash`]; [`process`] runs them bounded by construction (nothing they start outlives
//! their case, [`sandbox`] confines their writes and hides the corpus, [`scratch`] holds
//! every temporary file of the run, and [`interrupt`] ends a run cleanly on a signal).
//! [`differential`] holds a validator against an oracle on generated inputs (one input,
//! or a whole campaign with shrinking and draft cases). Directory-tree
//! inputs, including entries git cannot carry, are described and materialised by
//! [`tree`]. The reference
//! implementation is just one validator; this crate does not know it.

pub mod bounded;
pub mod catalogue;
pub mod corpus;
pub mod crash;
pub mod differential;
pub mod expectations;
pub mod export;
pub mod external;
pub mod files;
pub mod interrupt;
pub mod libtest;
pub mod persistent;
mod preexec;
pub mod process;
mod reaper;
pub mod report;
pub mod runner;
pub mod sandbox;
pub mod scratch;
pub mod selfcheck;
pub mod setup;
pub mod store;
pub mod tree;
pub mod validator;

use std::fmt;
use std::path::{Path, PathBuf};

pub use catalogue::{Catalogue, Rule};
pub use corpus::{Case, Corpus, Expectation, ExpectedDiagnostic, ExpectedVerdict, InputSource};
pub use runner::{CaseResult, Judgement, PreparedInput, Strictness};
pub use setup::SetupError;
pub use soulcheck_vocabulary::wire::{Diagnostic, Implementation};
pub use soulcheck_vocabulary::{
    Basis, Context, Format, Level, Location, Profile, Severity, Verdict,
};
pub use validator::{Answer, Evidence, Input, Observation, Outcome, Request, Validator};

/// Failure to load or materialise part of the corpus.
#[derive(Debug)]
pub struct LoadError {
    /// The file or directory concerned.
    pub path: PathBuf,
    /// What is wrong with it.
    pub message: String,
}

impl LoadError {
    pub(crate) fn io(path: &Path, source: std::io::Error) -> LoadError {
        LoadError {
            path: path.to_owned(),
            message: source.to_string(),
        }
    }

    pub(crate) fn invalid(path: &Path, message: impl Into<String>) -> LoadError {
        LoadError {
            path: path.to_owned(),
            message: message.into(),
        }
    }
}

impl fmt::Display for LoadError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        // A corpus (and its directory names) is untrusted: a name holding an escape
        // sequence or a line break is shown escaped, on one line.
        use soulcheck_vocabulary::display::{visible, visible_line};
        write!(
            f,
            "{}: {}",
            visible_line(&self.path.display().to_string()),
            visible(&self.message)
        )
    }
}

impl std::error::Error for LoadError {}

#[cfg(test)]
mod load_error_tests {
    use super::*;

    #[test]
    fn a_hostile_directory_name_is_shown_escaped() {
        let error = LoadError {
            path: std::path::PathBuf::from("cases/soul-kit/x\u{1b}]0;pwned\u{7}\nforged"),
            message: "bad \u{202e}case".to_owned(),
        };
        let shown = error.to_string();
        assert!(
            !shown.contains(['\u{1b}', '\u{7}', '\n', '\u{202e}']),
            "{shown}"
        );
        assert!(shown.contains("x\\x1b]0;pwned\\x07\\nforged"), "{shown}");
    }
}
