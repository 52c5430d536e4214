//! What the checks found, with the rule and the JSON pointer of each problem in its
//! message, so a run can be compared with the corpus's expected diagnostics by eye (the
//! harness grades only the verdict of this implementation).

use crate::{Outcome, Settings};

use super::Planted;

/// The settings a check needs and the outcome it adds to.
pub struct Report<'a> {
    settings: &'a Settings<'a>,
    outcome: Outcome,
}

impl<'a> Report<'a> {
    /// An empty report under these settings.
    pub fn new(settings: &'a Settings<'a>) -> Report<'a> {
        Report {
            settings,
            outcome: Outcome::default(),
        }
    }

    /// Whether this planted mistake is on.
    pub fn planted(&self, mistake: Planted) -> bool {
        self.settings.planted(mistake.name())
    }

    /// Whether the strict profile applies.
    pub fn strict(&self) -> bool {
        self.settings.strict
    }

    /// Records a breach of `rule` at `pointer` (the empty pointer is the document).
    pub fn error(&mut self, rule: &str, pointer: &str, message: impl AsRef<str>) {
        self.outcome
            .error(format!("{rule} at `{pointer}`: {}", message.as_ref()));
    }

    /// The outcome.
    pub fn finish(self) -> Outcome {
        self.outcome
    }
}

/// The pointer of member `key` of the value at `parent` (RFC 6901 escaping).
pub fn member_pointer(parent: &str, key: &str) -> String {
    format!("{parent}/{}", key.replace('~', "~0").replace('/', "~1"))
}

/// The pointer of entry `index` of the array at `parent`.
pub fn index_pointer(parent: &str, index: usize) -> String {
    format!("{parent}/{index}")
}
