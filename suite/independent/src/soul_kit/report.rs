//! What the checks found, with the rule and the JSON pointer of each problem in its
//! message, so a run can be compared with the corpus's expected diagnostics by eye (the
//! harness grades only the verdict of this implementation).

use crate::{Outcome, Settings};

use super::Planted;

/// The most problems a report lists; the rest are counted. A report must cost at most a
/// constant times its input: a 256 KiB kit can repeat one key tens of thousands of times.
const MAX_LISTED: usize = 100;

/// The most text the listed problems hold, for the same reason: one long key repeated in
/// every pointer would otherwise make a hundred problems a hundred times the input.
const MAX_LISTED_BYTES: usize = 256 * 1024;

/// The settings a check needs and the outcome it adds to.
pub struct Report<'a> {
    settings: &'a Settings<'a>,
    outcome: Outcome,
    /// Errors found past [`MAX_LISTED`], counted but not listed.
    left_out: usize,
    /// The bytes of the listed messages.
    listed_bytes: usize,
}

impl<'a> Report<'a> {
    /// An empty report under these settings.
    pub fn new(settings: &'a Settings<'a>) -> Report<'a> {
        Report {
            settings,
            outcome: Outcome::default(),
            left_out: 0,
            listed_bytes: 0,
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

    /// Whether another problem would still be listed (so its pointer is worth building).
    pub fn has_room(&self) -> bool {
        self.outcome.problems.len() < MAX_LISTED && self.listed_bytes < MAX_LISTED_BYTES
    }

    /// Records a breach of `rule` at `pointer` (the empty pointer is the document).
    pub fn error(&mut self, rule: &str, pointer: &str, message: impl AsRef<str>) {
        if self.has_room() {
            let line = format!("{rule} at `{pointer}`: {}", message.as_ref());
            self.listed_bytes += line.len();
            self.outcome.error(line);
        } else {
            self.left_out += 1;
        }
    }

    /// The outcome. Errors left out are still errors: one more line counts them, so the
    /// verdict is the one the full list would give.
    pub fn finish(mut self) -> Outcome {
        if self.left_out > 0 {
            self.outcome
                .error(format!("... and {} more errors not listed", self.left_out));
        }
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
