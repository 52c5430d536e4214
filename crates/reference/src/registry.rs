//! The format registry: one entry per format the reference implements, saying how a path
//! is recognised as that format, which entry points check it, what its documents are
//! called by default, whether they are JSON and the size past which they are refused,
//! and the rule of the notice a report gets when its bounds leave diagnostics out.
//!
//! [`check`](crate::check), [`detect_format`](crate::detect_format) and [`operations`]
//! are derived from it, and so are the fuzz targets' file names and size limits, so a new
//! format is one more entry here rather than one more arm in every match.
//!
//! Every entry point has the same shape, [`EntryPoint`]: it takes the input and the
//! context and answers with a report, or refuses the request as [`Unsupported`] (a kind
//! of input it does not take, a malformed context).

use std::path::Path;

use crate::diagnostic::rules;
use crate::diagnostic::{Diagnostic, Format, Location, Report, RuleId};
use crate::{compose_bundle, skill_package, soul_kit, soul_md, soulacy};
use crate::{Context, Input, Unsupported};

/// The shape of every entry point: `validate` and each operation of every format.
pub type EntryPoint = fn(Input<'_>, &Context) -> Result<Report, Unsupported>;

/// What the reference knows about one format.
#[derive(Debug, Clone, Copy)]
#[non_exhaustive]
pub struct Entry {
    /// The format.
    pub format: Format,
    /// How a path is recognised as holding this format.
    pub detection: Detection,
    /// The `validate` entry point.
    pub validate: EntryPoint,
    /// `validate` stopping at the first error (see [`crate::first_error`]), where the
    /// format's checker can stop early; `None` where it always walks the whole input.
    pub validate_first_error: Option<EntryPoint>,
    /// The operations besides `validate`.
    pub operations: &'static [Operation],
    /// The kinds of document the format's entry points take, the default first; empty when
    /// they take directory trees only.
    pub documents: &'static [DocumentKind],
    /// The `<format>.report.truncated` rule: the notice of [`Report::cap`].
    pub truncated: RuleId,
}

/// How a path is recognised as holding a format.
#[derive(Debug, Clone, Copy)]
#[non_exhaustive]
pub struct Detection {
    /// Exact file names of the format's documents (`SOUL.md`).
    pub file_names: &'static [&'static str],
    /// Endings of the file names of the format's documents (`.soulkit.json`).
    pub suffixes: &'static [&'static str],
    /// Whether a directory is a tree of the format; `None` when no directory is.
    pub directory: Option<fn(&Path) -> bool>,
}

impl Detection {
    /// Whether a file name (the last component of a path) names a document of the format.
    pub fn matches_file_name(&self, name: &str) -> bool {
        self.file_names.contains(&name) || self.suffixes.iter().any(|end| name.ends_with(end))
    }
}

/// An operation besides `validate`.
#[derive(Debug, Clone, Copy)]
#[non_exhaustive]
pub struct Operation {
    /// Its name on the command line, in case metadata and on the validator protocol.
    pub name: &'static str,
    /// Its entry point.
    pub run: EntryPoint,
    /// What it answers, in one line.
    pub summary: &'static str,
}

/// One kind of document a format's entry points take.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub struct DocumentKind {
    /// The file name a document of this kind gets when none is given (a fuzz input, a
    /// generated case).
    pub file_name: &'static str,
    /// Whether the document is JSON.
    pub json: bool,
    /// The size past which the document is refused unread, where there is one.
    pub size_limit: Option<SizeLimit>,
}

/// A size past which a document is refused unread, and the rule it then breaks.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub struct SizeLimit {
    /// The largest accepted document, in bytes.
    pub max_bytes: usize,
    /// The rule a larger document breaks.
    pub rule: RuleId,
}

impl SizeLimit {
    /// The report on a document of `size` bytes, over this limit, refused unread: one
    /// diagnostic of the limit's rule about the document as a whole. A caller that knows
    /// the size without reading the bytes (`soulcheck check` on a large file) gives this
    /// report instead of reading them.
    pub fn refusal(&self, format: Format, size: u64) -> Report {
        let mut report = Report::new(format);
        report.diagnostics.push(self.diagnostic(size));
        report
    }

    /// The diagnostic of [`SizeLimit::refusal`].
    pub fn diagnostic(&self, size: u64) -> Diagnostic {
        Diagnostic::new(
            self.rule,
            Location::document(),
            format!(
                "the document is {size} bytes, over the {}-byte limit",
                self.max_bytes
            ),
        )
    }
}

impl Entry {
    /// The entry point of `operation` (`validate` included), if the format has it.
    pub fn entry_point(&self, operation: &str) -> Option<EntryPoint> {
        if operation == "validate" {
            return Some(self.validate);
        }
        self.operation(operation).map(|operation| operation.run)
    }

    /// The operation named `name` besides `validate`, if the format has it.
    pub fn operation(&self, name: &str) -> Option<&'static Operation> {
        self.operations
            .iter()
            .find(|operation| operation.name == name)
    }

    /// The kind of document a document named `name` is: the kind whose default file name
    /// is the last component of `name`, else the default kind; `None` when the format
    /// takes no documents.
    pub fn document(&self, name: &str) -> Option<&'static DocumentKind> {
        let file_name = Path::new(name).file_name().and_then(|name| name.to_str());
        self.documents
            .iter()
            .find(|kind| Some(kind.file_name) == file_name)
            .or_else(|| self.default_document())
    }

    /// The default kind of document, if the format takes documents.
    pub fn default_document(&self) -> Option<&'static DocumentKind> {
        self.documents.first()
    }
}

/// Every format the reference implements.
///
/// The order matters twice. Detection tries the entries in order, and a bundle directory
/// may hold a `SKILL.md`, so the bundle comes before the skill package (file names never
/// match two entries, see the tests). And [`operations`] lists the operations in the order
/// they first appear here, which is the order the reference has always announced them in.
pub static ENTRIES: &[Entry] = &[
    Entry {
        format: Format::SoulMd,
        detection: Detection {
            file_names: &["SOUL.md"],
            suffixes: &[],
            directory: None,
        },
        validate: soul_md::validate,
        validate_first_error: None,
        operations: &[Operation {
            name: "fingerprint",
            run: soul_md::fingerprint,
            summary: "the document's SHA-256 fingerprint, 64 lowercase hex digits",
        }],
        documents: &[DocumentKind {
            file_name: "SOUL.md",
            json: false,
            size_limit: Some(SizeLimit {
                max_bytes: soul_md::MAX_BYTES,
                rule: rules::soul_md::SIZE_MAX,
            }),
        }],
        truncated: rules::soul_md::REPORT_TRUNCATED,
    },
    Entry {
        format: Format::SoulacyPackage,
        detection: Detection {
            file_names: &[],
            suffixes: &[".soulacy-agent.json"],
            directory: None,
        },
        validate: soulacy::validate_package,
        validate_first_error: Some(soulacy::validate_package_first_error),
        operations: &[
            Operation {
                name: "calendar-order",
                run: soulacy::calendar_order,
                summary: "which of two calendar versions is newer",
            },
            Operation {
                name: "requirements-gate",
                run: soulacy::requirements_gate,
                summary: "a package's requirements classified against a workspace, and whether the import proceeds",
            },
        ],
        documents: &[DocumentKind {
            file_name: "input.soulacy-agent.json",
            json: true,
            size_limit: Some(SizeLimit {
                max_bytes: soulacy::MAX_PACKAGE_BYTES,
                rule: rules::soulacy_package::SIZE_MAX,
            }),
        }],
        truncated: rules::soulacy_package::REPORT_TRUNCATED,
    },
    Entry {
        format: Format::ComposeBundle,
        detection: Detection {
            file_names: &[],
            suffixes: &[],
            directory: Some(compose_bundle::is_bundle_directory),
        },
        validate: compose_bundle::validate,
        validate_first_error: None,
        operations: &[
            Operation {
                name: "fingerprint",
                run: compose_bundle::fingerprint,
                summary: "the bundle fingerprint of a manifest",
            },
            Operation {
                name: "voice-profile",
                run: compose_bundle::voice_profile,
                summary: "the voice profile built from avoid banks and carried rules",
            },
            Operation {
                name: "whoami",
                run: compose_bundle::whoami,
                summary: "the `whoami --json` record of a manifest",
            },
        ],
        documents: &[DocumentKind {
            file_name: "manifest.json",
            json: true,
            size_limit: Some(SizeLimit {
                max_bytes: compose_bundle::MAX_JSON_BYTES,
                rule: rules::compose_bundle::JSON_SIZE,
            }),
        }],
        truncated: rules::compose_bundle::REPORT_TRUNCATED,
    },
    Entry {
        format: Format::SkillPackage,
        detection: Detection {
            file_names: &[skill_package::HEAD_PATH],
            suffixes: &[],
            directory: Some(skill_package::is_skill_directory),
        },
        validate: skill_package::validate,
        validate_first_error: Some(skill_package::validate_first_error),
        operations: &[],
        documents: &[
            DocumentKind {
                file_name: "package.json",
                json: true,
                size_limit: Some(SizeLimit {
                    max_bytes: skill_package::MAX_ENVELOPE_BYTES,
                    rule: rules::skill_package::ENVELOPE_SIZE,
                }),
            },
            DocumentKind {
                file_name: skill_package::HEAD_PATH,
                json: false,
                size_limit: Some(SizeLimit {
                    max_bytes: skill_package::MAX_FILE_BYTES,
                    rule: rules::skill_package::LIMIT_FILE_BYTES,
                }),
            },
        ],
        truncated: rules::skill_package::REPORT_TRUNCATED,
    },
    Entry {
        format: Format::SoulacySidecar,
        detection: Detection {
            file_names: &[".soulacy-package.json"],
            suffixes: &[],
            directory: None,
        },
        validate: soulacy::validate_sidecar,
        validate_first_error: None,
        operations: &[],
        documents: &[DocumentKind {
            file_name: ".soulacy-package.json",
            json: true,
            size_limit: Some(SizeLimit {
                max_bytes: soulacy::MAX_SIDECAR_BYTES,
                rule: rules::soulacy_sidecar::SIZE_MAX,
            }),
        }],
        truncated: rules::soulacy_sidecar::REPORT_TRUNCATED,
    },
    Entry {
        format: Format::SoulKit,
        detection: Detection {
            file_names: &[],
            suffixes: &[".soulkit.json"],
            directory: None,
        },
        validate: soul_kit::validate,
        validate_first_error: Some(soul_kit::validate_first_error),
        operations: &[],
        documents: &[DocumentKind {
            file_name: "input.soulkit.json",
            json: true,
            size_limit: Some(SizeLimit {
                max_bytes: soul_kit::MAX_BYTES,
                rule: rules::soul_kit::SIZE_MAX,
            }),
        }],
        truncated: rules::soul_kit::REPORT_TRUNCATED,
    },
];

/// The entry of `format`, if the reference implements it.
pub fn entry(format: Format) -> Option<&'static Entry> {
    ENTRIES.iter().find(|entry| entry.format == format)
}

/// The operations besides `validate` that the reference implements for some format, each
/// once, in the order of [`ENTRIES`].
pub fn operations() -> Vec<&'static str> {
    let mut names: Vec<&'static str> = Vec::new();
    for operation in ENTRIES.iter().flat_map(|entry| entry.operations) {
        if !names.contains(&operation.name) {
            names.push(operation.name);
        }
    }
    names
}

/// The format of a path: a directory by what it holds, anything else by its file name.
pub fn detect(path: &Path) -> Option<Format> {
    if path.is_dir() {
        return ENTRIES
            .iter()
            .find(|entry| entry.detection.directory.is_some_and(|holds| holds(path)))
            .map(|entry| entry.format);
    }
    let name = path.file_name()?.to_str()?;
    ENTRIES
        .iter()
        .find(|entry| entry.detection.matches_file_name(name))
        .map(|entry| entry.format)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_format_has_exactly_one_entry_with_unique_operations() {
        for format in Format::ALL {
            let count = ENTRIES
                .iter()
                .filter(|entry| entry.format == format)
                .count();
            assert_eq!(count, 1, "{format} has {count} entries");
        }
        assert_eq!(ENTRIES.len(), Format::ALL.len());
        for entry in ENTRIES {
            let mut names = vec!["validate"];
            for operation in entry.operations {
                assert!(
                    !names.contains(&operation.name),
                    "{} lists operation {} twice (or as validate)",
                    entry.format,
                    operation.name
                );
                names.push(operation.name);
            }
        }
    }

    /// The order the reference has always announced its operations in.
    #[test]
    fn operations_keep_their_announced_order() {
        assert_eq!(
            operations(),
            [
                "fingerprint",
                "calendar-order",
                "requirements-gate",
                "voice-profile",
                "whoami"
            ]
        );
    }

    /// No file name matches two entries, so the order of the entries decides nothing for
    /// files; sample names are built from every name and ending the registry lists.
    #[test]
    fn file_names_are_unambiguous() {
        let samples = ENTRIES.iter().flat_map(|entry| {
            let names = entry
                .detection
                .file_names
                .iter()
                .map(|name| (*name).to_owned());
            let ends = entry.detection.suffixes.iter().map(|end| format!("x{end}"));
            names.chain(ends)
        });
        for sample in samples {
            let matching: Vec<Format> = ENTRIES
                .iter()
                .filter(|entry| entry.detection.matches_file_name(&sample))
                .map(|entry| entry.format)
                .collect();
            assert_eq!(matching.len(), 1, "{sample} matches {matching:?}");
            assert_eq!(detect(Path::new(&sample)), Some(matching[0]), "{sample}");
        }
        assert_eq!(detect(Path::new("manifest.json")), None);
        assert_eq!(detect(Path::new("x.json")), None);
    }

    #[test]
    fn directories_are_told_by_what_they_hold() {
        let dir = tempfile::tempdir().unwrap();
        assert_eq!(detect(dir.path()), None);
        std::fs::write(dir.path().join("SKILL.md"), "").unwrap();
        assert_eq!(detect(dir.path()), Some(Format::SkillPackage));
        // A skill package may ship a manifest of its own ...
        std::fs::write(dir.path().join("manifest.json"), "{}").unwrap();
        assert_eq!(detect(dir.path()), Some(Format::SkillPackage));
        // ... but a manifest with the bundle marker makes the directory a bundle.
        std::fs::write(
            dir.path().join("manifest.json"),
            r#"{"format": "agent-compose.bundle"}"#,
        )
        .unwrap();
        assert_eq!(detect(dir.path()), Some(Format::ComposeBundle));
        std::fs::remove_file(dir.path().join("SKILL.md")).unwrap();
        std::fs::write(dir.path().join("manifest.json"), "not JSON").unwrap();
        assert_eq!(detect(dir.path()), Some(Format::ComposeBundle));
    }

    /// Every entry point refuses the kind of input it does not take with the message
    /// naming its own format and operation, the same one `check` gives for an operation
    /// the format does not have.
    #[test]
    fn entry_points_refuse_inputs_in_their_own_name() {
        let context = Context::new();
        let missing = tempfile::tempdir().unwrap().path().join("absent");
        for entry in ENTRIES {
            let mut points: Vec<(&str, EntryPoint)> = vec![("validate", entry.validate)];
            points.extend(entry.operations.iter().map(|op| (op.name, op.run)));
            for (name, run) in points {
                let inputs = [
                    Input::Document {
                        name: "input",
                        bytes: b"",
                    },
                    Input::Tree(&missing),
                ];
                for input in inputs {
                    if let Err(refusal) = run(input, &context) {
                        assert_eq!(
                            refusal,
                            Unsupported::operation(entry.format, name),
                            "{} {name}",
                            entry.format
                        );
                    }
                }
            }
        }
    }

    /// Every document has a size past which it is refused unread, so a caller can bound
    /// what it reads (`soulcheck check` reads at most the limit and one byte).
    #[test]
    fn every_document_kind_has_a_size_limit() {
        for entry in ENTRIES {
            for kind in entry.documents {
                assert!(
                    kind.size_limit.is_some(),
                    "{} {}",
                    entry.format,
                    kind.file_name
                );
            }
            assert!(entry
                .truncated
                .id
                .starts_with(&format!("{}.report.", entry.format)));
        }
    }

    #[test]
    fn document_kinds_follow_file_names() {
        let skill = entry(Format::SkillPackage).unwrap();
        assert_eq!(
            skill.document("cases/x/SKILL.md").unwrap().file_name,
            "SKILL.md"
        );
        assert_eq!(
            skill.document("package.json").unwrap().file_name,
            "package.json"
        );
        assert_eq!(skill.document("other.json"), skill.default_document());
        for entry in ENTRIES {
            for kind in entry.documents {
                assert_eq!(entry.document(kind.file_name), Some(kind));
            }
        }
    }
}
