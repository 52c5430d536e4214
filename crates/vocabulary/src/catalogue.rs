//! The file model of a rule catalogue (`cases/<format>/rules.toml`), read by the harness to
//! judge cases and by the reference's build script to generate its rule constants, so both
//! read the catalogue through one typed model.

use serde::Deserialize;

use crate::format::Format;
use crate::terms::{Basis, Level, Severity};

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
    /// What the rule's expectations rest on.
    pub basis: Basis,
    /// For an `upstream` rule: which public implementation decides it, and that it does
    /// so the same way on every path.
    #[serde(default)]
    pub upstream: Option<String>,
    /// One sentence justifying the rule's definite cases against its basis (which words
    /// of the section decide them), for `spec` and `upstream` rules.
    #[serde(default)]
    pub grounds: Option<String>,
    /// Where the spec is silent or ambiguous: the reading taken and why. Required for a
    /// `suite` rule.
    #[serde(default)]
    pub decision: Option<String>,
    /// Only the strict profile applies this rule: the spec's text allows what it forbids,
    /// so the reference applies it only when asked for the strict profile.
    #[serde(default)]
    pub strict: bool,
    /// What kind of requirement the rule is: a rule of the format, or a bound of the
    /// reference's own (a size, depth or entry limit the spec does not set).
    #[serde(default)]
    pub kind: RuleKind,
}

/// What kind of requirement a catalogued rule is.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash, Deserialize, serde::Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum RuleKind {
    /// A requirement on the document (the spec's, the publisher's or this suite's).
    #[default]
    Rule,
    /// A limit on what the reference reads (a size, depth or count the spec does not set,
    /// that a bounded implementation needs). Past it the reference does not judge the
    /// input in the spec profile: it reports its limit, never a broken spec rule, and
    /// rejects only in the strict profile.
    Bound,
}

impl RuleKind {
    /// Whether this is [`RuleKind::Bound`].
    pub fn is_bound(self) -> bool {
        self == RuleKind::Bound
    }
}

impl RulesFile {
    /// Parses the text of a `rules.toml`.
    pub fn parse(text: &str) -> Result<RulesFile, toml::de::Error> {
        toml::from_str(text)
    }
}
