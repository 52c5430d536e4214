//! Everything the verifier does on the filesystem: the tree walk, reading the few JSON
//! files it reads, resolving entry points, and the identity trees. Nothing here follows
//! a symlink or writes anything, and every read is bounded.

use std::fs::{File, FileType, Metadata};
use std::io::Read as _;
use std::ops::ControlFlow;
use std::path::{Path, PathBuf};

use crate::diagnostic::rules::compose_bundle as rule;
use crate::diagnostic::RuleId;
use crate::json::pointer_join;
use crate::MAX_TREE_ENTRIES;

use super::manifest::{Manifest, Want};
use super::trace::Selected;
use super::{is_portable_segment, voice, Sink, MAX_JSON_BYTES};

/// compose-bundle.tree.entry-kind and, in the strict profile,
/// compose-bundle.tree.portable-name: walks the whole tree, depth first in name order,
/// judging each entry by its own type (a symlink is a symlink, wherever it points). An
/// entry's pointer and message are built only when the report has room for them. Breaks
/// past [`MAX_TREE_ENTRIES`] entries.
pub(crate) fn walk(root: &Path, sink: &mut Sink) -> ControlFlow<()> {
    let portability = sink.strict();
    let mut stack = vec![(root.to_path_buf(), String::new())];
    // Entries left before the walk stops.
    let mut left = MAX_TREE_ENTRIES;
    while let Some((dir, pointer)) = stack.pop() {
        let listing = match std::fs::read_dir(&dir) {
            Ok(listing) => listing,
            Err(error) => {
                sink.at(
                    rule::TREE_ENTRY_KIND,
                    pointer,
                    format!("the directory cannot be listed: {error}"),
                );
                continue;
            }
        };
        // A listing is read at most one entry past the limit, and counted before any of
        // its entries is judged, so what the report holds does not depend on the order
        // the file system lists names in.
        let mut entries: Vec<(std::ffi::OsString, std::io::Result<FileType>)> = listing
            .filter_map(Result::ok)
            .take(left + 1)
            .map(|entry| (entry.file_name(), entry.file_type()))
            .collect();
        if entries.len() > left {
            // compose-bundle.report.truncated, as an error (decision: a walk is bounded,
            // and a tree not walked cannot be accepted).
            sink.error(
                rule::REPORT_TRUNCATED,
                String::new(),
                format!(
                    "the bundle holds more than {MAX_TREE_ENTRIES} entries; it is not checked further"
                ),
            );
            return ControlFlow::Break(());
        }
        left -= entries.len();
        entries.sort_by(|a, b| a.0.cmp(&b.0));
        let mut subdirectories = Vec::new();
        for (name, file_type) in entries {
            let display = name.to_string_lossy();
            let entry_pointer = || pointer_join(&pointer, &display);
            // compose-bundle.tree.portable-name (strict: names every system can hold).
            if portability && !name.to_str().is_some_and(is_portable_segment) {
                sink.lazily(rule::TREE_PORTABLE_NAME, || {
                    (
                        entry_pointer(),
                        format!("the name {display:?} is not portable"),
                    )
                });
            }
            match file_type {
                Ok(kind) if kind.is_dir() => {
                    subdirectories.push((dir.join(&name), entry_pointer()));
                }
                Ok(kind) if kind.is_file() => {}
                Ok(kind) => {
                    // compose-bundle.tree.entry-kind (spec: "regular files and
                    // directories only").
                    sink.lazily(rule::TREE_ENTRY_KIND, || {
                        let what = describe(kind, &dir.join(&name));
                        (
                            entry_pointer(),
                            format!("{what}; a bundle holds only regular files and directories"),
                        )
                    });
                }
                Err(error) => sink.lazily(rule::TREE_ENTRY_KIND, || {
                    (
                        entry_pointer(),
                        format!("the entry cannot be inspected: {error}"),
                    )
                }),
            }
        }
        stack.extend(subdirectories.into_iter().rev());
    }
    ControlFlow::Continue(())
}

/// What a non-regular entry is, for messages. A symlink's target is read as text (the
/// link itself lies inside the bundle) and never followed.
fn describe(kind: FileType, path: &Path) -> String {
    if kind.is_symlink() {
        return match std::fs::read_link(path) {
            Ok(target) => format!("a symlink to {:?}", target.display().to_string()),
            Err(_) => "a symlink".to_owned(),
        };
    }
    #[cfg(unix)]
    {
        use std::os::unix::fs::FileTypeExt as _;
        if kind.is_fifo() {
            return "a FIFO".to_owned();
        }
        if kind.is_socket() {
            return "a socket".to_owned();
        }
        if kind.is_block_device() || kind.is_char_device() {
            return "a device".to_owned();
        }
    }
    "neither a regular file nor a directory".to_owned()
}

/// Reads `name` at the bundle root when it is a regular file; otherwise reports
/// `missing` (the file's presence rule) at its pointer and returns `None`.
pub(crate) fn read_json_file(
    root: &Path,
    name: &str,
    missing: RuleId,
    sink: &mut Sink,
) -> Option<Vec<u8>> {
    let pointer = pointer_join("", name);
    let path = root.join(name);
    let problem = match std::fs::symlink_metadata(&path) {
        Ok(metadata) if metadata.is_file() => match read_regular(&path) {
            Ok(bytes) => return Some(bytes),
            Err(error) => format!("{name} cannot be read: {error}"),
        },
        Ok(metadata) => format!(
            "{name} is {}, not a regular file",
            describe(metadata.file_type(), &path)
        ),
        Err(error) if error.kind() == std::io::ErrorKind::NotFound => {
            format!("the bundle has no {name}")
        }
        Err(error) => format!("{name} cannot be inspected: {error}"),
    };
    sink.at(missing, pointer, problem);
    None
}

/// Reads a file already seen to be regular, at most one byte past [`MAX_JSON_BYTES`] (the
/// reader then refuses it as too large). The open neither follows a symlink nor blocks,
/// and the opened file must still be regular, so swapping the entry for a symlink or a
/// FIFO after the check cannot lead the read elsewhere or hang it.
pub(crate) fn read_regular(path: &Path) -> std::io::Result<Vec<u8>> {
    let file = open_no_follow(path)?;
    if !file.metadata()?.is_file() {
        return Err(std::io::Error::other("not a regular file"));
    }
    let mut bytes = Vec::new();
    file.take(MAX_JSON_BYTES as u64 + 1)
        .read_to_end(&mut bytes)?;
    Ok(bytes)
}

#[cfg(unix)]
fn open_no_follow(path: &Path) -> std::io::Result<File> {
    use rustix::fs::{open, Mode, OFlags};
    let flags = OFlags::RDONLY | OFlags::NOFOLLOW | OFlags::NONBLOCK | OFlags::CLOEXEC;
    let fd = open(path, flags, Mode::empty()).map_err(std::io::Error::from)?;
    Ok(File::from(fd))
}

#[cfg(not(unix))]
fn open_no_follow(path: &Path) -> std::io::Result<File> {
    File::open(path)
}

/// Where an entry point led.
enum Resolved {
    /// To this entry, seen without following it.
    Found(Metadata, PathBuf),
    /// Nowhere inside the bundle: the message says why.
    Outside(String),
}

/// Resolves a safe relative path one segment at a time; every segment before the last
/// must be a real directory.
fn resolve(root: &Path, relative: &str) -> Resolved {
    let segments: Vec<&str> = relative.split('/').collect();
    let mut path = root.to_path_buf();
    for (index, segment) in segments.iter().enumerate() {
        path.push(segment);
        let walked = segments[..=index].join("/");
        match std::fs::symlink_metadata(&path) {
            Ok(metadata) if index + 1 == segments.len() => return Resolved::Found(metadata, path),
            Ok(metadata) if metadata.is_dir() => {}
            Ok(metadata) => {
                return Resolved::Outside(format!(
                    "{walked:?} is {}, so {relative:?} is not inside the bundle",
                    describe(metadata.file_type(), &path)
                ))
            }
            Err(error) if error.kind() == std::io::ErrorKind::NotFound => {
                return Resolved::Outside(format!("{walked:?} does not exist"))
            }
            Err(error) => {
                return Resolved::Outside(format!("{walked:?} cannot be inspected: {error}"))
            }
        }
    }
    Resolved::Outside("the path is empty".to_owned())
}

/// compose-bundle.entry.exists and compose-bundle.entry.kind (spec: "Every named entry
/// point must exist inside the bundle"), then the voice profile's content.
pub(crate) fn entry_points(root: &Path, manifest: &Manifest, sink: &mut Sink) {
    for entry in &manifest.entry_points {
        let (metadata, path) = match resolve(root, &entry.path) {
            Resolved::Found(metadata, path) => (metadata, path),
            Resolved::Outside(why) => {
                sink.at(
                    rule::ENTRY_EXISTS,
                    entry.pointer.clone(),
                    format!(
                        "{} {:?} does not exist inside the bundle: {why}",
                        entry.field, entry.path
                    ),
                );
                continue;
            }
        };
        let fits = match entry.want {
            Want::File => metadata.is_file(),
            Want::Directory => metadata.is_dir(),
        };
        if !fits {
            let wanted = match entry.want {
                Want::File => "a regular file",
                Want::Directory => "a directory",
            };
            let what = if metadata.is_dir() {
                "a directory".to_owned()
            } else if metadata.is_file() {
                "a regular file".to_owned()
            } else {
                describe(metadata.file_type(), &path)
            };
            sink.at(
                rule::ENTRY_KIND,
                entry.pointer.clone(),
                format!("{} {:?} is {what}, not {wanted}", entry.field, entry.path),
            );
            continue;
        }
        if entry.voice_profile {
            let file_pointer = entry
                .path
                .split('/')
                .fold(String::new(), |pointer, segment| {
                    pointer_join(&pointer, segment)
                });
            match read_regular(&path) {
                Ok(bytes) => {
                    let strict = sink.strict();
                    sink.file(&file_pointer, &bytes, |walker| {
                        voice::check_profile_file(walker, strict)
                    })
                }
                Err(error) => sink.at(
                    rule::ENTRY_KIND,
                    entry.pointer.clone(),
                    format!("voice_profile {:?} cannot be read: {error}", entry.path),
                ),
            }
        }
    }
}

/// Where the identity trees are, relative to the bundle's root.
const IDENTITY_TREES: &str = "content/skills";

/// The directory name a source id gets under content/skills: every byte outside
/// `A-Za-z0-9._-` percent-encoded with uppercase hex (`roster:core` -> `roster%3Acore`).
pub(crate) fn source_segment(source: &str) -> String {
    let mut segment = String::with_capacity(source.len());
    for byte in source.bytes() {
        if byte.is_ascii_alphanumeric() || matches!(byte, b'.' | b'_' | b'-') {
            segment.push(char::from(byte));
        } else {
            segment.push_str(&format!("%{byte:02X}"));
        }
    }
    segment
}

/// compose-bundle.identity.tree (spec: "one identity tree per trace-selected skill";
/// agent-compose: `<encoded source>/<skill>/SKILL.md`). The trees are under
/// content/skills, where agent-compose (the reader) keeps and looks for them whatever
/// skills_root names. Skipped when the trace selected nothing usable (that is the trace's
/// own diagnostic).
pub(crate) fn identity_trees(root: &Path, selected: &[Selected], sink: &mut Sink) {
    if selected.is_empty() {
        return;
    }
    let relative = IDENTITY_TREES;
    let skills_pointer = relative.split('/').fold(String::new(), |pointer, segment| {
        pointer_join(&pointer, segment)
    });
    let skills = relative
        .split('/')
        .fold(root.to_path_buf(), |path, segment| path.join(segment));
    match resolve(root, relative) {
        Resolved::Found(metadata, _) if metadata.is_dir() => {}
        Resolved::Found(metadata, path) => {
            let what = describe(metadata.file_type(), &path);
            sink.at(
                rule::IDENTITY_TREE,
                skills_pointer,
                format!("{relative} is {what}, not the directory of identity trees"),
            );
            return;
        }
        Resolved::Outside(why) => {
            sink.at(
                rule::IDENTITY_TREE,
                skills_pointer,
                format!("{relative}, the directory of identity trees, is missing: {why}"),
            );
            return;
        }
    }
    let expected: Vec<(String, &Selected)> = selected
        .iter()
        .map(|skill| {
            (
                format!("{}/{}", source_segment(&skill.source), skill.skill),
                skill,
            )
        })
        .collect();
    let mut found: Vec<String> = Vec::new();
    for (source_name, source_type) in sorted_listing(&skills) {
        let source_pointer = pointer_join(&skills_pointer, &source_name.to_string_lossy());
        if !source_type.is_dir() {
            sink.at(
                rule::IDENTITY_TREE,
                source_pointer,
                format!("{relative} holds only source directories"),
            );
            continue;
        }
        for (skill_name, skill_type) in sorted_listing(&skills.join(&source_name)) {
            let skill_pointer = pointer_join(&source_pointer, &skill_name.to_string_lossy());
            if !skill_type.is_dir() {
                sink.at(
                    rule::IDENTITY_TREE,
                    skill_pointer,
                    "a source directory holds only identity trees (directories)".to_owned(),
                );
                continue;
            }
            let key = format!(
                "{}/{}",
                source_name.to_string_lossy(),
                skill_name.to_string_lossy()
            );
            if expected.iter().any(|(name, _)| *name == key) {
                found.push(key);
            } else {
                sink.at(
                    rule::IDENTITY_TREE,
                    skill_pointer,
                    format!("no skill selected by the trace has the identity tree {key:?}"),
                );
            }
        }
    }
    for (key, skill) in &expected {
        let tree_pointer = key
            .split('/')
            .fold(skills_pointer.clone(), |pointer, segment| {
                pointer_join(&pointer, segment)
            });
        if !found.contains(key) {
            sink.at(
                rule::IDENTITY_TREE,
                tree_pointer,
                format!(
                    "skill {:?} from {:?} is selected by the trace but has no identity tree",
                    skill.skill, skill.source
                ),
            );
            continue;
        }
        let document = skills.join(key).join("SKILL.md");
        let regular = std::fs::symlink_metadata(&document).is_ok_and(|metadata| metadata.is_file());
        if !regular {
            sink.at(
                rule::IDENTITY_TREE,
                pointer_join(&tree_pointer, "SKILL.md"),
                format!(
                    "the identity tree of {:?} has no regular SKILL.md",
                    skill.skill
                ),
            );
        }
    }
}

/// A directory's entries with their own types (never followed), in name order; entries
/// that cannot be inspected are left out (the tree walk reports them).
fn sorted_listing(dir: &Path) -> Vec<(std::ffi::OsString, FileType)> {
    let mut entries: Vec<_> = std::fs::read_dir(dir)
        .into_iter()
        .flatten()
        .filter_map(Result::ok)
        .filter_map(|entry| Some((entry.file_name(), entry.file_type().ok()?)))
        .collect();
    entries.sort_by(|a, b| a.0.cmp(&b.0));
    entries
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn source_segments() {
        assert_eq!(source_segment("roster:core"), "roster%3Acore");
        assert_eq!(source_segment("aos-public"), "aos-public");
        assert_eq!(source_segment("a b/é"), "a%20b%2F%C3%A9");
    }
}
