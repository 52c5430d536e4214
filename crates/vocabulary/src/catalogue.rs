//! The file model of a rule catalogue (`cases/<format>/rules.toml`), read by the harness to
//! judge cases and by the reference's build script to generate its rule constants, so both
//! read the catalogue through one typed model.

use serde::Deserialize;

use crate::format::Format;
use crate::terms::{Level, Severity};

/// One `rules.toml`: the rules of one format.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RulesFile {
    /// The format the rules belong to; must match the directory the file lives in.
    pub format: Format,
    /// The spec document the rules come from, by its title (see `SPECS.md`).
    pub spec: String,
    /// The rules, in catalogue order.
    #[serde(rename = "rule", default)]
    pub rules: Vec<RuleEntry>,
}

/// One `[[rule]]` of a `rules.toml`.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RuleEntry {
    /// Stable ID, `<format>.<area>.<name>`.
    pub id: String,
    /// Requirement level.
    pub level: Level,
    /// Default severity of the rule's diagnostics.
    pub severity: Severity,
    /// The section of the spec document the rule comes from.
    pub section: String,
    /// The requirement, in the project's own words.
    pub requirement: String,
    /// Where the spec is silent or ambiguous: the reading taken and why.
    #[serde(default)]
    pub decision: Option<String>,
}

impl RulesFile {
    /// Parses the text of a `rules.toml`.
    pub fn parse(text: &str) -> Result<RulesFile, toml::de::Error> {
        toml::from_str(text)
    }
}
