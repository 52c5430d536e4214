//! A skill directory checked as the package it would become: every regular file below the
//! directory is a package file whose path is its `/`-separated relative path.
//!
//! Diagnostics use the pointers of the equivalent envelope, whose `files` list the files
//! sorted by relative path (compared byte by byte), so they read the same as an envelope's.
//!
//! Reading is bounded: a symbolic link or special file is a package entry without text,
//! reported and never followed or opened, and contents are read with a budget of one byte
//! more than the total limit
//! (`SKILL.md` first, then the files in order, each at most one byte more than the
//! per-file limit). A file the budget does not reach is measured by its size on disk,
//! which is enough to report the limits exactly.
//!
//! The walk is bounded too: past [`MAX_TREE_ENTRIES`] entries it stops, and the directory
//! gets one error of `skill-package.report.truncated` and nothing else is checked. A file's diagnostics,
//! whose messages name its path, are built only when the report has room for them.

use std::fs::{self, File, Metadata};
use std::io::Read;
use std::ops::ControlFlow;
use std::path::{Path, PathBuf};

use super::{head, paths, PackageFile, Place, HEAD_PATH, MAX_FILE_BYTES, MAX_TOTAL_BYTES};
use crate::diagnostic::rules::skill_package as rule;
use crate::diagnostic::{Diagnostic, Format, Location, Position, Report, Severity};
use crate::{Profile, MAX_TREE_ENTRIES};

/// An entry found below the directory that becomes a package file.
struct TreeFile {
    /// Path relative to the directory, `/`-separated (lossily decoded when the name is
    /// not UTF-8).
    relative: String,
    /// Whether every name on the way is UTF-8.
    utf8_name: bool,
    /// Path on disk.
    path: PathBuf,
    /// What it is.
    kind: EntryKind,
}

enum EntryKind {
    /// A regular file, with its metadata when found (not following links).
    Regular(Metadata),
    /// A symbolic link, socket, FIFO or device: never followed or opened.
    Special(&'static str),
}

/// What was read of one file.
struct Contents {
    /// The whole content, when it was read to its end.
    complete: Option<Vec<u8>>,
    /// Why it could not be read, if it could not.
    unreadable: Option<String>,
    /// Its size in bytes: exact when read to the end, otherwise at least the bytes read
    /// and the size on disk.
    size: u64,
}

/// Checks the skill directory at `root`.
pub fn check(root: &Path, profile: Profile) -> Report {
    let mut report = Report::new(Format::SkillPackage);
    let mut files = Vec::new();
    if walk(root, &mut files, &mut report.diagnostics).is_break() {
        // skill-package.report.truncated, as an error (decision: a walk is bounded, and a
        // directory not walked cannot be accepted).
        let diagnostic = Diagnostic::new(
            rule::REPORT_TRUNCATED,
            at_pointer("/files".to_owned()),
            format!(
                "the directory holds more than {MAX_TREE_ENTRIES} entries; it is not checked further"
            ),
        );
        report.push(diagnostic.with_severity(Severity::Error));
        return report;
    }
    files.sort_by(|a, b| a.relative.cmp(&b.relative));

    let head_index = files.iter().position(|file| file.relative == HEAD_PATH);
    let contents = read_all(&files, head_index);

    let mut total: u64 = 0;
    for (index, (file, contents)) in files.iter().zip(&contents).enumerate() {
        let pointer = format!("/files/{index}/content");
        // skill-package.path.portable (strict profile only: a name that is not UTF-8
        // cannot be a package path).
        if !file.utf8_name && profile == Profile::Strict {
            report.add(rule::PATH_PORTABLE, || {
                (
                    at_pointer(format!("/files/{index}/path")),
                    format!("the name of {:?} is not valid UTF-8", file.relative),
                )
            });
        }
        // skill-package.file.text (decision: an entry that is no regular file has no
        // text and is never followed or opened).
        if let EntryKind::Special(what) = file.kind {
            report.add(rule::FILE_TEXT, || {
                (
                    at_pointer(pointer),
                    format!(
                        "{} is {what}; a package holds text files, and it is neither followed nor read",
                        file.relative
                    ),
                )
            });
            continue;
        }
        if let Some(message) = &contents.unreadable {
            report.add(rule::FILE_TEXT, || {
                (at_pointer(pointer), format!("{} {message}", file.relative))
            });
            continue;
        }
        total = total.saturating_add(contents.size);
        // skill-package.limit.file-bytes (spec, Limits: 256 KiB per file).
        if contents.size > MAX_FILE_BYTES as u64 {
            report.add(rule::LIMIT_FILE_BYTES, || {
                (
                    at_pointer(pointer),
                    format!(
                        "{} is {} bytes, over the {MAX_FILE_BYTES}-byte limit of one file",
                        file.relative, contents.size
                    ),
                )
            });
            continue;
        }
        // skill-package.file.text (spec: "All supported package contents are text").
        if let Some(bytes) = &contents.complete {
            if let Err(error) = simdutf8::compat::from_utf8(bytes) {
                report.add(rule::FILE_TEXT, || {
                    let location = Location {
                        pointer: Some(pointer),
                        position: Some(Position::of(bytes, error.valid_up_to())),
                        span: None,
                    };
                    (
                        location,
                        format!("{} is not valid UTF-8 from here on", file.relative),
                    )
                });
            }
        }
    }

    let package: Vec<PackageFile<'_>> = files
        .iter()
        .enumerate()
        .map(|(index, file)| PackageFile {
            // A name that is not UTF-8 has no package path to compare: read lossily, two
            // distinct names would look like one path repeated (its own rule,
            // skill-package.path.portable, speaks for it in the strict profile).
            path: file.utf8_name.then_some(file.relative.as_str()),
            path_location: at_pointer(format!("/files/{index}/path")),
        })
        .collect();
    let out = &mut report.diagnostics;
    paths::check(&package, profile, out);

    // skill-package.limit.total-bytes (spec, Limits: 1 MiB in total).
    if total > MAX_TOTAL_BYTES as u64 {
        out.push(Diagnostic::new(
            rule::LIMIT_TOTAL_BYTES,
            at_pointer("/files".to_owned()),
            format!(
                "the files hold {total} bytes together, over the {MAX_TOTAL_BYTES}-byte limit of a package"
            ),
        ));
    }

    // skill-package.head.present (spec: the head must exist).
    let Some(index) = head_index else {
        out.push(Diagnostic::new(
            rule::HEAD_PRESENT,
            at_pointer("/files".to_owned()),
            "the directory holds no SKILL.md; the package has no head",
        ));
        return report;
    };
    let text = contents[index]
        .complete
        .as_deref()
        .filter(|bytes| bytes.len() <= MAX_FILE_BYTES)
        .and_then(|bytes| simdutf8::compat::from_utf8(bytes).ok());
    if let Some(text) = text {
        let place = Place::Tree {
            pointer: format!("/files/{index}/content"),
        };
        head::check(text, &place, profile, out);
    }
    report
}

fn at_pointer(pointer: String) -> Location {
    Location {
        pointer: Some(pointer),
        position: None,
        span: None,
    }
}

/// skill-package.file.text for what is not a file at all: a root or directory that cannot
/// be listed.
fn entry_problem(out: &mut Vec<Diagnostic>, message: String) {
    out.push(Diagnostic::new(
        rule::FILE_TEXT,
        Location::document(),
        message,
    ));
}

/// Collects the entries below `root` that become package files, without following
/// symbolic links. The walk keeps its own stack, so deep directories cannot exhaust the
/// call stack. It breaks when the directory holds more than [`MAX_TREE_ENTRIES`] entries.
fn walk(root: &Path, files: &mut Vec<TreeFile>, out: &mut Vec<Diagnostic>) -> ControlFlow<()> {
    match fs::metadata(root) {
        Ok(metadata) if metadata.is_dir() => {}
        Ok(_) => {
            entry_problem(out, format!("{} is not a directory", root.display()));
            return ControlFlow::Continue(());
        }
        Err(error) => {
            entry_problem(out, format!("{} cannot be read: {error}", root.display()));
            return ControlFlow::Continue(());
        }
    }
    // Entries left before the walk stops.
    let mut left = MAX_TREE_ENTRIES;
    let mut pending = vec![(root.to_path_buf(), String::new(), true)];
    while let Some((dir, prefix, utf8_prefix)) = pending.pop() {
        let entries = match fs::read_dir(&dir) {
            Ok(entries) => entries,
            Err(error) => {
                entry_problem(
                    out,
                    format!("the directory {prefix:?} cannot be read: {error}"),
                );
                continue;
            }
        };
        for entry in entries {
            if left == 0 {
                return ControlFlow::Break(());
            }
            left -= 1;
            let entry = match entry {
                Ok(entry) => entry,
                Err(error) => {
                    entry_problem(
                        out,
                        format!("an entry of {prefix:?} cannot be read: {error}"),
                    );
                    continue;
                }
            };
            let (name, utf8_name) = match entry.file_name().into_string() {
                Ok(name) => (name, utf8_prefix),
                Err(raw) => (raw.to_string_lossy().into_owned(), false),
            };
            let relative = if prefix.is_empty() {
                name
            } else {
                format!("{prefix}/{name}")
            };
            // DirEntry::file_type and DirEntry::metadata do not follow symbolic links.
            let kind = match entry.metadata() {
                Ok(metadata) if metadata.is_dir() => {
                    pending.push((entry.path(), relative, utf8_name));
                    continue;
                }
                Ok(metadata) if metadata.is_file() => EntryKind::Regular(metadata),
                Ok(metadata) if metadata.file_type().is_symlink() => {
                    EntryKind::Special("a symbolic link")
                }
                Ok(_) => EntryKind::Special("neither a regular file nor a directory"),
                Err(_) => EntryKind::Special("an entry whose type cannot be read"),
            };
            files.push(TreeFile {
                relative,
                utf8_name,
                path: entry.path(),
                kind,
            });
        }
    }
    ControlFlow::Continue(())
}

/// Reads the files within the budget: `SKILL.md` first, then the others in order.
fn read_all(files: &[TreeFile], head_index: Option<usize>) -> Vec<Contents> {
    let mut contents: Vec<Contents> = files
        .iter()
        .map(|file| Contents {
            complete: None,
            unreadable: None,
            size: match &file.kind {
                EntryKind::Regular(metadata) => metadata.len(),
                EntryKind::Special(_) => 0,
            },
        })
        .collect();
    let order = head_index
        .into_iter()
        .chain((0..files.len()).filter(|index| Some(*index) != head_index));
    let mut budget = MAX_TOTAL_BYTES + 1;
    for index in order {
        let allowance = budget.min(MAX_FILE_BYTES + 1);
        if allowance == 0 {
            break;
        }
        let EntryKind::Regular(metadata) = &files[index].kind else {
            continue;
        };
        match read_bounded(&files[index].path, metadata, allowance) {
            Ok(bytes) => {
                budget -= bytes.len();
                let read = bytes.len() as u64;
                if bytes.len() < allowance {
                    contents[index].complete = Some(bytes);
                    contents[index].size = read;
                } else {
                    contents[index].size = contents[index].size.max(read);
                }
            }
            Err(message) => contents[index].unreadable = Some(message),
        }
    }
    contents
}

/// Reads at most `allowance` bytes of a file found by the walk, refusing it when what
/// opens is no longer that regular file (replaced by a link or another file meanwhile).
fn read_bounded(path: &Path, found: &Metadata, allowance: usize) -> Result<Vec<u8>, String> {
    let handle = File::open(path).map_err(|error| format!("cannot be read: {error}"))?;
    let opened = handle
        .metadata()
        .map_err(|error| format!("cannot be read: {error}"))?;
    if !opened.is_file() || !same_file(&opened, found) {
        return Err("changed while the directory was read".to_owned());
    }
    let capacity = usize::try_from(found.len())
        .unwrap_or(allowance)
        .min(allowance);
    let mut bytes = Vec::with_capacity(capacity);
    handle
        .take(allowance as u64)
        .read_to_end(&mut bytes)
        .map_err(|error| format!("cannot be read: {error}"))?;
    Ok(bytes)
}

#[cfg(unix)]
fn same_file(a: &Metadata, b: &Metadata) -> bool {
    use std::os::unix::fs::MetadataExt;
    a.dev() == b.dev() && a.ino() == b.ino()
}

#[cfg(not(unix))]
fn same_file(a: &Metadata, b: &Metadata) -> bool {
    a.len() == b.len()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rules(report: &Report) -> Vec<(&'static str, Option<String>)> {
        report
            .diagnostics
            .iter()
            .map(|diagnostic| (diagnostic.rule.id, diagnostic.location.pointer.clone()))
            .collect()
    }

    const HEAD: &str = "---\nname: n\ndescription: d\n---\nBody\n";

    #[cfg(unix)]
    #[test]
    fn names_that_are_not_utf8() {
        use std::os::unix::ffi::OsStrExt;
        let dir = tempfile::tempdir().expect("temp dir");
        std::fs::write(dir.path().join("SKILL.md"), HEAD).expect("write");
        let name = std::ffi::OsStr::from_bytes(b"caf\xe9.md");
        if std::fs::write(dir.path().join(name), "text\n").is_err() {
            // The file system refuses such names (macOS): nothing to check here.
            return;
        }
        // The spec profile takes the name as it is; the strict profile refuses it.
        assert!(check(dir.path(), Profile::Spec).diagnostics.is_empty());
        assert_eq!(
            rules(&check(dir.path(), Profile::Strict)),
            [(
                "skill-package.path.portable",
                Some("/files/1/path".to_owned())
            )]
        );
        // A second, distinct name that reads the same lossily is no duplicate path.
        let other = std::ffi::OsStr::from_bytes(b"caf\xe8.md");
        std::fs::write(dir.path().join(other), "text\n").expect("write");
        assert!(check(dir.path(), Profile::Spec).diagnostics.is_empty());
        assert_eq!(
            rules(&check(dir.path(), Profile::Strict))
                .iter()
                .filter(|(rule, _)| *rule == "skill-package.path.portable")
                .count(),
            2
        );
    }

    /// The per-file and total limits are reported exactly while no more than the budget
    /// is read: a file the budget no longer reaches is measured by its size on disk.
    #[test]
    fn limits_in_a_directory() {
        let dir = tempfile::tempdir().expect("temp dir");
        std::fs::write(dir.path().join("SKILL.md"), HEAD).expect("write");
        std::fs::create_dir(dir.path().join("r")).expect("mkdir");
        // Four files at the per-file limit: the head pushes the total one file over.
        for name in ["a", "b", "c", "d"] {
            std::fs::write(dir.path().join("r").join(name), "x".repeat(MAX_FILE_BYTES))
                .expect("write");
        }
        std::fs::write(dir.path().join("r/e"), "x".repeat(MAX_FILE_BYTES + 1)).expect("write");
        let report = check(dir.path(), Profile::Spec);
        assert_eq!(
            rules(&report),
            [
                (
                    "skill-package.limit.file-bytes",
                    Some("/files/5/content".to_owned())
                ),
                ("skill-package.limit.total-bytes", Some("/files".to_owned())),
            ]
        );

        let dir = tempfile::tempdir().expect("temp dir");
        let body = "x".repeat(MAX_FILE_BYTES - HEAD.len());
        std::fs::write(dir.path().join("SKILL.md"), format!("{HEAD}{body}")).expect("write");
        for name in ["a", "b", "c"] {
            std::fs::write(dir.path().join(name), "é".repeat(MAX_FILE_BYTES / 2)).expect("write");
        }
        assert!(check(dir.path(), Profile::Spec).diagnostics.is_empty());
        std::fs::write(dir.path().join("d"), "x").expect("write");
        assert_eq!(
            rules(&check(dir.path(), Profile::Spec)),
            [("skill-package.limit.total-bytes", Some("/files".to_owned()))]
        );
    }

    #[test]
    fn not_a_directory() {
        let dir = tempfile::tempdir().expect("temp dir");
        let file = dir.path().join("SKILL.md");
        std::fs::write(&file, HEAD).expect("write");
        let report = check(&file, Profile::Spec);
        assert_eq!(
            rules(&report),
            [
                ("skill-package.file.text", None),
                ("skill-package.head.present", Some("/files".to_owned()))
            ]
        );
    }
}
