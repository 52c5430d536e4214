//! Where a diagnostic points, in the one shape the corpus, the protocol and the reports
//! share.

use std::fmt;

use serde::{Deserialize, Serialize};

/// Where a diagnostic points. Which fields are set depends on the document: a JSON value is
/// located by `pointer`; a position in text (a syntax error, a Markdown line) by `line` and
/// `column`; text embedded in a JSON string by all three. A diagnostic about the document
/// as a whole (its size) has none.
#[derive(Debug, Clone, Default, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]

pub struct Location {
    /// RFC 6901 JSON pointer to the offending value or member.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pointer: Option<String>,
    /// 1-based line.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub line: Option<u32>,
    /// 1-based column, counted in Unicode scalar values from the start of the line.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub column: Option<u32>,
}

impl fmt::Display for Location {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut parts = Vec::new();
        if let Some(pointer) = &self.pointer {
            parts.push(format!("pointer {pointer:?}"));
        }
        match (self.line, self.column) {
            (Some(line), Some(column)) => parts.push(format!("{line}:{column}")),
            (Some(line), None) => parts.push(format!("line {line}")),
            _ => {}
        }
        if parts.is_empty() {
            f.write_str("document")
        } else {
            f.write_str(&parts.join(" "))
        }
    }
}
