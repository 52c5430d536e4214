//! The formats soulcheck certifies, named the same way on the command line, in case
//! metadata, in the rule catalogue and on the validator protocol.

use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Serialize};

/// One of the document formats under test.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
#[non_exhaustive]
pub enum Format {
    /// Soul Kit exchange format v1 (`*.soulkit.json`).
    SoulKit,
    /// Skill package envelope with its `SKILL.md` head (`*.json`, a bare `SKILL.md`, or a
    /// directory holding `SKILL.md`).
    SkillPackage,
    /// Soulacy agent package v1/v2 (`*.soulacy-agent.json`).
    SoulacyPackage,
    /// Soulacy install sidecar (`.soulacy-package.json`).
    SoulacySidecar,
    /// agent-compose bundle: a directory holding a bundle `manifest.json`.
    ComposeBundle,
    /// SOUL.md identity document.
    SoulMd,
}

impl Format {
    /// Every format, in catalogue order.
    pub const ALL: [Format; 6] = [
        Format::SoulKit,
        Format::SkillPackage,
        Format::SoulacyPackage,
        Format::SoulacySidecar,
        Format::ComposeBundle,
        Format::SoulMd,
    ];

    /// The stable name used everywhere (`soul-kit`, `skill-package`, ...).
    pub fn name(self) -> &'static str {
        match self {
            Format::SoulKit => "soul-kit",
            Format::SkillPackage => "skill-package",
            Format::SoulacyPackage => "soulacy-package",
            Format::SoulacySidecar => "soulacy-sidecar",
            Format::ComposeBundle => "compose-bundle",
            Format::SoulMd => "soul-md",
        }
    }
}

impl fmt::Display for Format {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// The error for a format name that is not one of [`Format::ALL`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UnknownFormat {
    /// The name that was given.
    pub name: String,
}

impl fmt::Display for UnknownFormat {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let known: Vec<&str> = Format::ALL.iter().map(|format| format.name()).collect();
        write!(
            f,
            "unknown format `{}` (known: {})",
            self.name,
            known.join(", ")
        )
    }
}

impl std::error::Error for UnknownFormat {}

impl FromStr for Format {
    type Err = UnknownFormat;

    fn from_str(name: &str) -> Result<Self, Self::Err> {
        Format::ALL
            .into_iter()
            .find(|format| format.name() == name)
            .ok_or_else(|| UnknownFormat {
                name: name.to_owned(),
            })
    }
}
