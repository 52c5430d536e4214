//! The rule catalogue: every rule of every format, loaded from `cases/<format>/rules.toml`.
//!
//! The catalogue is the single place a rule ID is defined. The reference implementation
//! generates its rule constants from the same files, and the corpus self-check refuses a
//! case that names a rule missing from here.

use std::collections::BTreeMap;
use std::path::Path;

use serde::Serialize;
use soulcheck_vocabulary::catalogue::{RuleEntry, RuleKind, RulesFile};
use soulcheck_vocabulary::{Basis, Format, Level, Severity};

use crate::store::{Kind, Store};
use crate::LoadError;

/// One rule of one format.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Rule {
    /// Stable ID, `<format>.<area>.<name>`; never reused for another meaning.
    pub id: String,
    /// The format the rule belongs to.
    pub format: Format,
    /// Requirement level.
    pub level: Level,
    /// Severity of the diagnostics the rule produces by default.
    pub severity: Severity,
    /// The spec document (by its title in SPECS.md) and the passage the rule comes from,
    /// e.g. `Soul Kit exchange format, version 1 § Field table: name`.
    pub source: String,
    /// The requirement, in the project's own words.
    pub requirement: String,
    /// What the rule's expectations rest on: the spec's text, the publisher's public
    /// implementation, or a decision of this suite.
    pub basis: Basis,
    /// For an `upstream` rule: the implementation that decides it on every path.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub upstream: Option<String>,
    /// Why the rule's definite cases follow from its basis, in one sentence.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub grounds: Option<String>,
    /// Where the spec is silent or ambiguous: the reading taken and why.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub decision: Option<String>,
    /// Applied only in the strict profile (the spec's text allows what it forbids).
    pub strict: bool,
    /// A rule of the format, or a bound of the reference's own: past a bound the
    /// reference does not judge an input in the spec profile.
    #[serde(skip_serializing_if = "is_rule")]
    pub kind: RuleKind,
}

fn is_rule(kind: &RuleKind) -> bool {
    *kind == RuleKind::Rule
}

impl Rule {
    /// Whether the rule may decide a definite verdict in the spec profile.
    pub fn decides_spec_verdicts(&self) -> bool {
        self.basis != Basis::Suite && !self.strict
    }
}

/// Every rule of every loaded format, by ID.
#[derive(Debug, Clone, Default)]
pub struct Catalogue {
    rules: BTreeMap<String, Rule>,
}

impl Catalogue {
    /// Loads `rules.toml` from every format directory under a `cases/` directory on disk
    /// that has one.
    pub fn load(corpus_root: &Path) -> Result<Catalogue, LoadError> {
        Catalogue::open(&Store::Disk(corpus_root.to_owned()))
    }

    /// Loads `rules.toml` from every format directory of a store that has one.
    pub fn open(store: &Store) -> Result<Catalogue, LoadError> {
        Catalogue::open_formats(store, &Format::ALL)
    }

    /// Loads the catalogues of `formats` only (those the store has).
    pub fn open_formats(store: &Store, formats: &[Format]) -> Result<Catalogue, LoadError> {
        let mut catalogue = Catalogue::default();
        for format in Format::ALL.into_iter().filter(|f| formats.contains(f)) {
            let relative = Path::new(format.name()).join("rules.toml");
            let path = store.display(&relative);
            match store.kind(&relative) {
                Some(Kind::File) => {}
                None if !store.exists(&relative) => continue,
                // A symlink (which might lead out of the corpus), a FIFO, a device or a
                // directory: refused, not skipped, so a format never loses its rules
                // silently.
                _ => {
                    return Err(LoadError::invalid(
                        &path,
                        "is not a regular file; a catalogue is read from a regular file only",
                    ))
                }
            }
            let text = store.read_toml(&relative)?;
            let file = RulesFile::parse(&text)
                .map_err(|error| LoadError::invalid(&path, error.to_string()))?;
            if file.format != format {
                return Err(LoadError::invalid(
                    &path,
                    format!(
                        "declares format `{}` but lives in the `{format}` directory",
                        file.format
                    ),
                ));
            }
            for entry in file.rules {
                catalogue.insert(&path, format, &file.spec, entry)?;
            }
        }
        Ok(catalogue)
    }

    fn insert(
        &mut self,
        path: &Path,
        format: Format,
        spec: &str,
        entry: RuleEntry,
    ) -> Result<(), LoadError> {
        let prefix = format!("{}.", format.name());
        let well_formed = entry.id.starts_with(&prefix)
            && entry.id[prefix.len()..].split('.').all(|part| {
                !part.is_empty()
                    && part
                        .bytes()
                        .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-')
            });
        if !well_formed {
            return Err(LoadError::invalid(
                path,
                format!("rule ID `{}` must be `{prefix}` followed by dot-separated lowercase kebab-case parts", entry.id),
            ));
        }
        if entry.requirement.trim().is_empty() || entry.section.trim().is_empty() {
            return Err(LoadError::invalid(
                path,
                format!("rule `{}` needs a section and a requirement", entry.id),
            ));
        }
        if self.rules.contains_key(&entry.id) {
            return Err(LoadError::invalid(
                path,
                format!("rule `{}` is defined twice", entry.id),
            ));
        }
        let blank =
            |text: &Option<String>| text.as_deref().is_none_or(|text| text.trim().is_empty());
        let missing = match entry.basis {
            Basis::Upstream if blank(&entry.upstream) => {
                Some("an `upstream` rule names the implementation in `upstream`")
            }
            Basis::Suite if blank(&entry.decision) => {
                Some("a `suite` rule records its reading and reason in `decision`")
            }
            Basis::Spec | Basis::Upstream if entry.strict => Some(
                "only a `suite` rule can be `strict`: the spec's own rules apply in every profile",
            ),
            _ if entry.upstream.is_some() && entry.basis != Basis::Upstream => {
                Some("`upstream` belongs to rules whose basis is `upstream`")
            }
            // A bound is the reference's limit, not a requirement of the spec: a decision
            // of this suite that is no stronger than `may` and never strict-only (it
            // applies in both profiles; only what happens past it differs).
            _ if entry.kind.is_bound()
                && (entry.basis != Basis::Suite || entry.strict || entry.level != Level::May) =>
            {
                Some("a bound (`kind = \"bound\"`) is a `suite` rule at level `may`, not `strict`")
            }
            // A `suite` rule states no requirement of the spec, so it is never a `must`.
            _ if entry.basis == Basis::Suite && entry.level == Level::Must => {
                Some("a `suite` rule is never `must`: levels follow the spec's wording")
            }
            _ => None,
        };
        if let Some(message) = missing {
            return Err(LoadError::invalid(
                path,
                format!("rule `{}`: {message}", entry.id),
            ));
        }
        let rule = Rule {
            id: entry.id.clone(),
            format,
            level: entry.level,
            severity: entry.severity,
            source: format!("{spec} § {}", entry.section),
            requirement: entry.requirement,
            basis: entry.basis,
            upstream: entry.upstream,
            grounds: entry.grounds,
            decision: entry.decision,
            strict: entry.strict,
            kind: entry.kind,
        };
        self.rules.insert(entry.id, rule);
        Ok(())
    }

    /// What a case's spec-profile expectation rests on: the weakest basis among the
    /// rules it names (a strict-only rule counts as `suite`).
    pub fn basis_of(&self, case: &crate::Case) -> Basis {
        case.spec_rules()
            .into_iter()
            .filter_map(|id| self.get(id))
            .map(|rule| {
                if rule.strict {
                    Basis::Suite
                } else {
                    rule.basis
                }
            })
            .max()
            .unwrap_or(Basis::Spec)
    }

    /// The rule with this ID, if catalogued.
    pub fn get(&self, id: &str) -> Option<&Rule> {
        self.rules.get(id)
    }

    /// Every rule, ordered by ID.
    pub fn rules(&self) -> impl Iterator<Item = &Rule> {
        self.rules.values()
    }

    /// The rules of one format, ordered by ID.
    pub fn rules_of(&self, format: Format) -> impl Iterator<Item = &Rule> {
        self.rules
            .values()
            .filter(move |rule| rule.format == format)
    }

    /// Whether any rule of this format is catalogued.
    pub fn has_format(&self, format: Format) -> bool {
        self.rules_of(format).next().is_some()
    }
}
