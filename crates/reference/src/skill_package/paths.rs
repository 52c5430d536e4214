//! The path rules of a skill package (spec, Supporting files and paths: "Paths must stay
//! inside the package: absolute paths and .. segments are invalid. Duplicate paths are
//! invalid").
//!
//! The spec profile reads a path as a `/`-separated string (the spec names no platform);
//! the strict profile also rejects a package that would unpack outside its root on
//! Windows, so there both `/` and `\` count as separators when looking for escapes. Each path gets at most
//! one diagnostic of its own, the first rule it breaks in the order below: the spec's rules
//! (empty, absolute, `..`) come before the decisions of the catalogue, and the strict-only
//! rules (control characters, backslashes, trailing separators, empty and `.` segments,
//! portability) apply in the strict profile only. Then the set of paths is checked for
//! exact duplicates, then (strict profile only) duplicates after normalisation and files
//! that are also directories.

use std::borrow::Cow;
use std::collections::HashMap;

use unicode_normalization::UnicodeNormalization;

use super::PackageFile;
use crate::diagnostic::rules::skill_package as rule;
use crate::diagnostic::{Diagnostic, RuleId};
use crate::Profile;

/// Characters Windows does not allow in a file name.
const WINDOWS_RESERVED: &[char] = &['<', '>', ':', '"', '|', '?', '*'];

/// Windows device names, which stay devices with any extension.
const WINDOWS_DEVICES: &[&str] = &[
    "CON", "PRN", "AUX", "NUL", "COM1", "COM2", "COM3", "COM4", "COM5", "COM6", "COM7", "COM8",
    "COM9", "COM¹", "COM²", "COM³", "LPT1", "LPT2", "LPT3", "LPT4", "LPT5", "LPT6", "LPT7", "LPT8",
    "LPT9", "LPT¹", "LPT²", "LPT³",
];

/// Longest segment most file systems accept, in bytes.
const MAX_SEGMENT_BYTES: usize = 255;

/// Checks every path of a package and the set they form.
pub(crate) fn check(files: &[PackageFile<'_>], profile: Profile, out: &mut Vec<Diagnostic>) {
    let strict = profile == Profile::Strict;
    let mut escapes = vec![false; files.len()];
    for (index, file) in files.iter().enumerate() {
        let Some(path) = file.path else { continue };
        if let Some(problem) = problem(path, strict) {
            escapes[index] = problem.escapes;
            out.push(Diagnostic::new(
                problem.rule,
                file.path_location.clone(),
                problem.message,
            ));
        }
    }

    // Paths that are empty or leave the root name no file inside the package; the set
    // rules consider the others.
    let mut exact: HashMap<&str, usize> = HashMap::new();
    // The keys borrow their path where normalising changes nothing (the common case), so
    // a walk of 10000 paths of 4 KiB does not copy each of them twice more.
    let mut normalized: HashMap<Cow<'_, str>, usize> = HashMap::new();
    let mut keys: Vec<Option<Cow<'_, str>>> = vec![None; files.len()];
    for (index, file) in files.iter().enumerate() {
        let Some(path) = file.path.filter(|path| !path.is_empty() && !escapes[index]) else {
            continue;
        };
        // skill-package.path.duplicate (spec: "Duplicate paths are invalid").
        if let Some(first) = exact.get(path) {
            out.push(Diagnostic::new(
                rule::PATH_DUPLICATE,
                file.path_location.clone(),
                format!("the path {path:?} is also the path of /files/{first}"),
            ));
            continue;
        }
        exact.insert(path, index);
        if !strict {
            continue;
        }
        let key = normalize(path);
        // skill-package.path.duplicate-normalized (strict profile only: macOS and Windows
        // unpack these to one file).
        if let Some(first) = normalized.get(&key) {
            out.push(Diagnostic::new(
                rule::PATH_DUPLICATE_NORMALIZED,
                file.path_location.clone(),
                format!(
                    "the path {path:?} names the same file as /files/{first} on a case- or normalisation-insensitive file system"
                ),
            ));
            continue;
        }
        normalized.insert(key.clone(), index);
        keys[index] = Some(key);
    }

    // skill-package.path.file-directory (strict profile only: a file cannot also be a
    // directory when unpacked; the spec does not forbid the pair).
    if !strict {
        return;
    }
    // In sorted order the paths below a file `k` are a run starting at `k/`. A path already
    // below a file needs no scan of its own (its run lies inside the outer one), so every
    // path is visited at most once.
    let mut sorted: Vec<(&str, usize)> = keys
        .iter()
        .enumerate()
        .filter_map(|(index, key)| key.as_deref().map(|key| (key, index)))
        .collect();
    sorted.sort_unstable();
    let mut below: Vec<Option<usize>> = vec![None; files.len()];
    for &(key, index) in &sorted {
        if below[index].is_some() {
            continue;
        }
        // `key/` compared without building it: one path's worth less per file.
        let from = sorted.partition_point(|&(other, _)| before_directory(other, key));
        for &(other, other_index) in &sorted[from..] {
            let inside = other.len() > key.len()
                && other.starts_with(key)
                && other.as_bytes()[key.len()] == b'/';
            if !inside {
                break;
            }
            below[other_index] = Some(index);
        }
    }
    for (index, file) in below.iter().enumerate() {
        if let Some(file) = file {
            out.push(Diagnostic::new(
                rule::PATH_FILE_DIRECTORY,
                files[index].path_location.clone(),
                format!("this path lies below the file of /files/{file}, which cannot also be a directory"),
            ));
        }
    }
}

/// Whether `other` sorts before `key` followed by `/`, compared byte by byte as strings
/// sort.
fn before_directory(other: &str, key: &str) -> bool {
    let (other, key) = (other.as_bytes(), key.as_bytes());
    let common = other.len().min(key.len());
    match other[..common].cmp(&key[..common]) {
        std::cmp::Ordering::Less => true,
        std::cmp::Ordering::Greater => false,
        // A prefix of `key` (or `key` itself) sorts before `key/`; a longer path that
        // starts with `key` does when its next byte sorts before `/`.
        std::cmp::Ordering::Equal => other.len() <= key.len() || other[key.len()] < b'/',
    }
}

/// A path's own problem.
struct PathProblem {
    rule: RuleId,
    message: String,
    /// Whether the path names nothing inside the package (the set rules skip it).
    escapes: bool,
}

fn problem(path: &str, strict: bool) -> Option<PathProblem> {
    let found = |rule: RuleId, message: &str, escapes: bool| {
        Some(PathProblem {
            rule,
            message: message.to_owned(),
            escapes,
        })
    };
    // skill-package.path.empty (spec: each entry needs a path).
    if path.is_empty() {
        return found(rule::PATH_EMPTY, "the path is empty", true);
    }
    // The spec names no platform. The spec profile reads a path as the string it is,
    // with `/` as its only separator (the spec writes `references/`); the strict profile
    // also reads it as Windows would (`\` separates, a drive letter roots), so a path that
    // leaves the root there is refused by the same rules.
    let separators: &[char] = if strict { &['/', '\\'] } else { &['/'] };
    // skill-package.path.absolute (spec: "absolute paths are invalid"; strict profile
    // also: `\x`, `C:x`, `C:` and `C:\x` leave the root on Windows).
    let bytes = path.as_bytes();
    if path.starts_with(separators) {
        return found(
            rule::PATH_ABSOLUTE,
            "the path is absolute (it starts with a separator); package paths are relative",
            true,
        );
    }
    if strict && bytes.len() >= 2 && bytes[0].is_ascii_alphabetic() && bytes[1] == b':' {
        return found(
            rule::PATH_ABSOLUTE,
            "the path starts with a drive letter, which leaves the package root on Windows",
            true,
        );
    }
    // skill-package.path.dot-dot (spec: ".. segments are invalid"; in the strict profile
    // `\` separates too, as on Windows).
    if path.split(separators).any(|segment| segment == "..") {
        return found(
            rule::PATH_DOT_DOT,
            "the path has a `..` segment; package paths stay inside the package",
            true,
        );
    }
    // The rest are the strict profile's: the spec's text allows these paths.
    if !strict {
        return None;
    }
    // skill-package.path.control (strict: NUL truncates, other controls mislead).
    if path.chars().any(char::is_control) {
        return found(
            rule::PATH_CONTROL,
            "the path holds a control character",
            false,
        );
    }
    // skill-package.path.backslash (strict: `\` separates on Windows only).
    if path.contains('\\') {
        return found(
            rule::PATH_BACKSLASH,
            "the path holds `\\`, a separator on Windows only; use `/`",
            false,
        );
    }
    // skill-package.path.trailing-slash (strict: a file path names a file).
    if path.ends_with('/') {
        return found(
            rule::PATH_TRAILING_SLASH,
            "the path ends with `/` and names a directory, not a file",
            false,
        );
    }
    let segments: Vec<&str> = path.split('/').collect();
    // skill-package.path.empty-segment (strict: one spelling per path).
    if segments.iter().any(|segment| segment.is_empty()) {
        return found(
            rule::PATH_EMPTY_SEGMENT,
            "the path has an empty segment (`//`)",
            false,
        );
    }
    // skill-package.path.dot (strict: one spelling per path).
    if segments.contains(&".") {
        return found(
            rule::PATH_DOT,
            "the path has a `.` segment; write the path without it",
            false,
        );
    }
    // skill-package.path.portable (strict: every segment can be created on Linux,
    // macOS and Windows).
    for segment in &segments {
        if let Some(reason) = unportable(segment) {
            return Some(PathProblem {
                rule: rule::PATH_PORTABLE,
                message: format!("the segment {segment:?} {reason}"),
                escapes: false,
            });
        }
    }
    None
}

/// Why a segment cannot be created the same way on every common platform, if it cannot.
fn unportable(segment: &str) -> Option<String> {
    if segment.len() > MAX_SEGMENT_BYTES {
        return Some(format!(
            "is {} bytes long; file systems accept at most {MAX_SEGMENT_BYTES}",
            segment.len()
        ));
    }
    if let Some(c) = segment.chars().find(|c| WINDOWS_RESERVED.contains(c)) {
        return Some(format!(
            "holds {c:?}, which Windows does not allow in a name"
        ));
    }
    if segment.ends_with(['.', ' ']) {
        return Some("ends with a dot or a space, which Windows drops".to_owned());
    }
    let stem = segment
        .split('.')
        .next()
        .unwrap_or(segment)
        .trim_end_matches(' ')
        .to_uppercase();
    if WINDOWS_DEVICES.contains(&stem.as_str()) {
        return Some("is a Windows device name".to_owned());
    }
    let compatible: String = segment.nfkc().collect();
    if compatible != segment
        && (compatible.contains(['/', '\\'])
            || compatible == "."
            || compatible == ".."
            || compatible.contains(WINDOWS_RESERVED))
    {
        return Some(format!(
            "reads as {compatible:?} in compatibility form (NFKC), which Windows' best-fit conversion produces"
        ));
    }
    None
}

/// The normalised form of a path for duplicate detection: `\` read as `/`, empty and `.`
/// segments dropped, NFC, lowercased, NFC again.
fn normalize(path: &str) -> Cow<'_, str> {
    // Already normal: ASCII without `\`, upper case, or empty and `.` segments.
    let normal = path.is_ascii()
        && !path
            .bytes()
            .any(|byte| byte == b'\\' || byte.is_ascii_uppercase())
        && path
            .split('/')
            .all(|segment| !segment.is_empty() && segment != ".");
    if normal {
        return Cow::Borrowed(path);
    }
    let joined = path
        .split(['/', '\\'])
        .filter(|segment| !segment.is_empty() && *segment != ".")
        .collect::<Vec<_>>()
        .join("/");
    // ASCII is its own NFC, and its lowercase stays ASCII: the common case skips the
    // Unicode tables (a walk may hand over 10000 paths of 4 KiB).
    if joined.is_ascii() {
        return Cow::Owned(joined.to_ascii_lowercase());
    }
    let composed: String = joined.nfc().collect();
    Cow::Owned(composed.to_lowercase().nfc().collect())
}
