//! A second implementation of the five formats soulcheck certifies, written from the spec
//! texts (and the catalogue's restatement of them), never from the reference: another
//! structure and other readers (serde_json, libyaml through yaml_serde, markdown-rs,
//! chrono). It exists to measure the corpus against the mistakes independent implementers
//! really make: every format carries switches ([`Mistake`]), each planting one plausible
//! mistake, and `suite/tests/independent.rs` certifies the clean implementation in both
//! profiles and requires the corpus to refuse certification to every switch, unless the
//! switch is listed in `suite/independent/allowed/<format>.toml` with the reason it changes only
//! what the spec leaves open.
//!
//! It is run like any other validator: in process through the harness's `Validator` trait
//! (the suite's test), or as the `soulcheck-independent` binary behind `soulcheck run
//! --validator`.

use std::path::Path;

use serde_json::{Map, Value};

pub mod allowed;
pub mod compose_bundle;
pub mod skill_package;
pub mod soul_kit;
pub mod soul_md;
pub mod soulacy;

/// The formats, by the names the corpus uses.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Format {
    /// Soul Kit exchange format v1.
    SoulKit,
    /// Skill package: a JSON envelope, a bare `SKILL.md` or a skill directory.
    SkillPackage,
    /// Soulacy agent package v1/v2.
    SoulacyPackage,
    /// Soulacy install sidecar.
    SoulacySidecar,
    /// agent-compose bundle (a directory).
    ComposeBundle,
    /// SOUL.md identity document.
    SoulMd,
}

impl Format {
    /// Every format.
    pub const ALL: [Format; 6] = [
        Format::SoulKit,
        Format::SkillPackage,
        Format::SoulacyPackage,
        Format::SoulacySidecar,
        Format::ComposeBundle,
        Format::SoulMd,
    ];

    /// The corpus's name of the format.
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

    /// The format of a corpus name.
    pub fn from_name(name: &str) -> Option<Format> {
        Format::ALL.into_iter().find(|format| format.name() == name)
    }

    /// The switches of this format.
    pub fn mistakes(self) -> &'static [Mistake] {
        match self {
            Format::SoulKit => soul_kit::Planted::ALL,
            Format::SkillPackage => skill_package::Planted::ALL,
            Format::SoulacyPackage => soulacy::package::Planted::ALL,
            Format::SoulacySidecar => soulacy::sidecar::Planted::ALL,
            Format::ComposeBundle => compose_bundle::Planted::ALL,
            Format::SoulMd => soul_md::Planted::ALL,
        }
    }

    /// The switch of this format with this name.
    pub fn mistake(self, name: &str) -> Option<&'static Mistake> {
        self.mistakes().iter().find(|mistake| mistake.name == name)
    }
}

/// One switch: a mistake an implementer plausibly makes, planted in one format's checker.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Mistake {
    /// The format it is planted in.
    pub format: Format,
    /// Its name (kebab case), as `--mistake` and `allowed/<format>.toml` spell it.
    pub name: &'static str,
    /// What the mistaken implementation does.
    pub description: &'static str,
}

/// Declares a format's switches: an enum whose variants the checker tests with
/// [`Settings::planted`], and the [`Mistake`] list the harness and the binary enumerate.
/// Declaring them together means a checker can only test a switch that is listed.
#[macro_export]
macro_rules! mistakes {
    (
        $(#[$meta:meta])*
        $vis:vis enum $name:ident for $format:ident {
            $($variant:ident = $kebab:literal : $description:literal,)*
        }
    ) => {
        $(#[$meta])*
        #[derive(Debug, Clone, Copy, PartialEq, Eq)]
        $vis enum $name {
            $(#[doc = $description] $variant,)*
        }

        impl $name {
            /// Every switch of the format, in declaration order.
            pub const ALL: &'static [$crate::Mistake] = &[
                $($crate::Mistake { format: $crate::Format::$format, name: $kebab, description: $description },)*
            ];

            /// The switch's name.
            pub fn name(self) -> &'static str {
                match self {
                    $($name::$variant => $kebab,)*
                }
            }
        }
    };
}

/// Where the input is.
#[derive(Debug, Clone, Copy)]
pub enum Input<'a> {
    /// One file: its name (which may decide how it is read) and its exact bytes.
    Document {
        /// The file name, without directories.
        name: &'a str,
        /// The bytes.
        bytes: &'a [u8],
    },
    /// A directory (a bundle, a skill directory).
    Directory {
        /// Its root.
        root: &'a Path,
    },
}

/// How to judge: the profile, the planted mistake and the context a rule needs.
#[derive(Debug, Clone, Copy)]
pub struct Settings<'a> {
    /// The strict profile: the suite's protective readings apply.
    pub strict: bool,
    /// The name of the planted mistake, if any (one of the format's [`Mistake`]s).
    pub mistake: Option<&'a str>,
    /// Inputs besides the document (`now`, `fingerprint`, `official_keys`, `seat`).
    pub context: &'a Map<String, Value>,
}

impl Settings<'_> {
    /// Whether this switch is on. `name` is a variant's `name()`.
    pub fn planted(&self, name: &str) -> bool {
        self.mistake == Some(name)
    }

    /// A context entry as a string.
    pub fn context_str(&self, key: &str) -> Option<&str> {
        self.context.get(key).and_then(Value::as_str)
    }
}

/// How serious a problem is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Severity {
    /// The document is rejected.
    Error,
    /// Reported; the document is still accepted.
    Warning,
}

/// One thing found wrong.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Problem {
    /// Error or warning.
    pub severity: Severity,
    /// What is wrong, for a person.
    pub message: String,
}

/// What the implementation says of one input.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Outcome {
    /// Everything found, in order.
    pub problems: Vec<Problem>,
    /// Set when the input was not judged (past a limit of this implementation's own).
    pub declined: Option<String>,
}

impl Outcome {
    /// Whether the input is accepted: no error.
    pub fn accepted(&self) -> bool {
        !self
            .problems
            .iter()
            .any(|problem| problem.severity == Severity::Error)
    }

    /// Records an error.
    pub fn error(&mut self, message: impl Into<String>) {
        self.problems.push(Problem {
            severity: Severity::Error,
            message: message.into(),
        });
    }

    /// Records a warning.
    pub fn warning(&mut self, message: impl Into<String>) {
        self.problems.push(Problem {
            severity: Severity::Warning,
            message: message.into(),
        });
    }

    /// An outcome that declines the input.
    pub fn decline(reason: impl Into<String>) -> Outcome {
        Outcome {
            problems: Vec::new(),
            declined: Some(reason.into()),
        }
    }
}

/// Validates `input` as `format`.
pub fn validate(format: Format, input: Input<'_>, settings: &Settings<'_>) -> Outcome {
    match format {
        Format::SoulKit => soul_kit::validate(input, settings),
        Format::SkillPackage => skill_package::validate(input, settings),
        Format::SoulacyPackage => soulacy::package::validate(input, settings),
        Format::SoulacySidecar => soulacy::sidecar::validate(input, settings),
        Format::ComposeBundle => compose_bundle::validate(input, settings),
        Format::SoulMd => soul_md::validate(input, settings),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every format has at least 30 switches, each named once, in kebab case, and
    /// described.
    #[test]
    fn every_format_has_thirty_distinct_switches() {
        for format in Format::ALL {
            let mistakes = format.mistakes();
            assert!(
                mistakes.len() >= 30,
                "{}: {} switches",
                format.name(),
                mistakes.len()
            );
            let mut names = std::collections::BTreeSet::new();
            for mistake in mistakes {
                assert_eq!(mistake.format, format);
                assert!(names.insert(mistake.name), "{} twice", mistake.name);
                assert!(
                    mistake.name.split('-').all(|part| !part.is_empty()
                        && part
                            .bytes()
                            .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit())),
                    "{} is not kebab case",
                    mistake.name
                );
                assert!(!mistake.description.is_empty());
            }
        }
    }
}
