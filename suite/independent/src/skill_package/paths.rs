//! File paths ("Supporting files and paths": "Paths must stay inside the package: absolute
//! paths and .. segments are invalid. Duplicate paths are invalid").
//!
//! In the spec profile a path is the `/`-separated string it is (the catalogue's reading:
//! `\` is a character of a name, paths compare exactly). The strict profile also reads it
//! as Windows would and asks for one canonical, portable spelling.

use std::collections::{HashMap, HashSet};

use unicode_normalization::UnicodeNormalization;

use super::{PackageFile, Planted, Report};

/// Checks one path, at `at` (its pointer).
pub(super) fn check(path: &str, at: &str, report: &mut Report<'_>) {
    // skill-package.path.empty: the empty string names the package root, no file.
    if path.is_empty() {
        if !report.planted(Planted::PathEmptyAllowed) {
            report.error("path.empty", at, "the path is empty");
        }
        return;
    }
    let absolute = is_absolute(path, report);
    if absolute {
        report.error("path.absolute", at, "the path is absolute");
    }
    let climbs = has_dot_dot(path, report);
    if climbs {
        report.error("path.dot-dot", at, "the path has a .. segment");
    }
    if report.strict() {
        strict_checks(path, at, absolute || climbs, report);
    }
}

/// skill-package.path.absolute: "absolute paths ... are invalid": a leading `/` (which
/// covers `//server/share`); in the strict profile also a leading `\` and a drive letter.
fn is_absolute(path: &str, report: &Report<'_>) -> bool {
    if report.planted(Planted::PathAbsoluteAllowed) {
        return false;
    }
    if path.starts_with('/') {
        return true;
    }
    report.strict() && (path.starts_with('\\') || has_drive(path))
}

/// `C:` at the start of a path (Windows' drive-relative and absolute forms).
fn has_drive(path: &str) -> bool {
    let mut chars = path.chars();
    matches!(
        (chars.next(), chars.next()),
        (Some(letter), Some(':')) if letter.is_ascii_alphabetic()
    )
}

/// skill-package.path.dot-dot: "`..` segments are invalid", without exception (even
/// `a/../b`, which stays inside). Segments are split at `/`; the strict profile also splits
/// at `\`.
fn has_dot_dot(path: &str, report: &Report<'_>) -> bool {
    if report.planted(Planted::PathDotDotSubstring) {
        return path.contains("..");
    }
    let mut segments = segments(path, report.strict());
    if report.planted(Planted::PathDotDotPrefixOnly) {
        return segments.next() == Some("..");
    }
    segments.any(|segment| segment == "..")
}

/// A path's segments: split at `/`, and at `\` too when `backslash` is set.
fn segments(path: &str, backslash: bool) -> impl Iterator<Item = &str> {
    path.split(move |c| c == '/' || (backslash && c == '\\'))
}

/// The strict profile's path rules (all `strict = true` in the catalogue).
fn strict_checks(path: &str, at: &str, escapes: bool, report: &mut Report<'_>) {
    // skill-package.path.dot: a `.` segment spells a path a second way.
    if path.split('/').any(|segment| segment == ".") {
        report.error("path.dot", at, "the path has a . segment");
    }
    // skill-package.path.empty-segment: `a//b` (a leading `//` is absolute, a trailing `/`
    // has its own rule).
    let parts: Vec<&str> = path.split('/').collect();
    if parts.len() > 2
        && parts[1..parts.len() - 1]
            .iter()
            .enumerate()
            .any(|(index, part)| part.is_empty() && !(index == 0 && parts[0].is_empty()))
    {
        report.error("path.empty-segment", at, "the path has an empty segment");
    }
    // skill-package.path.trailing-slash.
    if path.ends_with('/') || path.ends_with('\\') {
        report.error("path.trailing-slash", at, "the path ends with a separator");
    }
    // skill-package.path.backslash (a path escaping the root through `\` is reported by
    // .absolute or .dot-dot instead).
    if path.contains('\\') && !escapes {
        report.error("path.backslash", at, "the path holds a backslash");
    }
    // skill-package.path.control: C0, DEL and C1.
    if path.chars().any(char::is_control) {
        report.error("path.control", at, "the path holds a control character");
    }
    // skill-package.path.portable.
    if let Some(reason) = path
        .split(['/', '\\'])
        .filter(|segment| !segment.is_empty() && *segment != "." && *segment != "..")
        .find_map(unportable)
    {
        report.error("path.portable", at, reason);
    }
}

/// Why a segment cannot be created on Linux, macOS and Windows alike, if it cannot.
fn unportable(segment: &str) -> Option<String> {
    if let Some(c) = segment.chars().find(|c| "<>:\"|?*".contains(*c)) {
        return Some(format!("`{c}` is reserved on Windows"));
    }
    if segment.ends_with('.') || segment.ends_with(' ') {
        return Some("a trailing dot or space is dropped on Windows".into());
    }
    let stem = segment
        .split('.')
        .next()
        .unwrap_or(segment)
        .trim_end_matches(' ')
        .to_ascii_uppercase();
    let device = matches!(stem.as_str(), "CON" | "PRN" | "AUX" | "NUL")
        || ((stem.starts_with("COM") || stem.starts_with("LPT"))
            && stem.len() == 4
            && stem.as_bytes()[3].is_ascii_digit()
            && stem.as_bytes()[3] != b'0');
    if device {
        return Some(format!("`{segment}` is a Windows device name"));
    }
    if segment.len() > 255 {
        return Some("a segment longer than 255 bytes".into());
    }
    let compatible: String = segment.nfkc().collect();
    if compatible != segment
        && (compatible.contains(['/', '\\'])
            || compatible == "."
            || compatible == ".."
            || compatible.contains(|c: char| "<>:\"|?*".contains(c)))
    {
        return Some("its compatibility form holds a separator or a dot segment".into());
    }
    None
}

/// skill-package.path.duplicate ("Duplicate paths are invalid": compared as strings,
/// exactly) and, strict, .duplicate-normalized and .file-directory. Empty, absolute and `..`
/// paths take no part.
pub(super) fn check_duplicates(files: &[PackageFile], report: &mut Report<'_>) {
    let candidates: Vec<(&PackageFile, &str)> = files
        .iter()
        .filter_map(|file| file.path.as_deref().map(|path| (file, path)))
        .filter(|(_, path)| {
            !path.is_empty() && !is_absolute(path, report) && !has_dot_dot(path, report)
        })
        .collect();
    let mut exact: HashSet<String> = HashSet::new();
    let mut exact_repeats: HashSet<usize> = HashSet::new();
    for (index, (file, path)) in candidates.iter().enumerate() {
        let key = if report.planted(Planted::PathDuplicateCaseInsensitive) {
            path.to_lowercase()
        } else {
            (*path).to_owned()
        };
        if !exact.insert(key) {
            exact_repeats.insert(index);
            if !report.planted(Planted::PathDuplicateUnchecked) {
                report.error(
                    "path.duplicate",
                    &format!("{}/path", file.pointer),
                    format!("`{path}` is listed twice"),
                );
            }
        }
    }
    if !report.strict() {
        return;
    }
    let mut normalized: HashMap<String, usize> = HashMap::new();
    for (index, (file, path)) in candidates.iter().enumerate() {
        let key = normalize(path);
        if normalized.insert(key, index).is_some() && !exact_repeats.contains(&index) {
            report.error(
                "path.duplicate-normalized",
                &format!("{}/path", file.pointer),
                format!("`{path}` names the same file as an earlier path"),
            );
        }
    }
    file_below_file(&candidates, report);
}

/// skill-package.path.file-directory (strict): a path below another file's path, after
/// normalisation. The normalised paths are sorted with `/` ranked lowest, so every path
/// below a file comes right after it or after other paths below it: one pass with a stack
/// of the paths the current one may lie below, linear in the paths' total length.
fn file_below_file(candidates: &[(&PackageFile, &str)], report: &mut Report<'_>) {
    let mut keys: Vec<(Vec<u8>, usize)> = candidates
        .iter()
        .enumerate()
        .map(|(index, (_, path))| {
            let key = normalize(path)
                .into_bytes()
                .into_iter()
                .map(|byte| if byte == b'/' { 0 } else { byte })
                .collect();
            (key, index)
        })
        .collect();
    keys.sort();
    let mut enclosing: Vec<&[u8]> = Vec::new();
    for (key, index) in &keys {
        while let Some(top) = enclosing.last() {
            let below = key.len() > top.len() && key.starts_with(top) && key[top.len()] == 0;
            if below || key.as_slice() == *top {
                break;
            }
            enclosing.pop();
        }
        if let Some(top) = enclosing.last() {
            if key.as_slice() != *top {
                let (file, path) = candidates[*index];
                report.error(
                    "path.file-directory",
                    &format!("{}/path", file.pointer),
                    format!("`{path}` lies below another file"),
                );
            }
        }
        enclosing.push(key);
    }
}

/// The catalogue's normalisation (skill-package.path.duplicate-normalized): `\` read as
/// `/`, empty and `.` segments dropped, NFC, then lowercase and NFC again.
fn normalize(path: &str) -> String {
    let joined = path
        .split(['/', '\\'])
        .filter(|segment| !segment.is_empty() && *segment != ".")
        .collect::<Vec<_>>()
        .join("/");
    let composed: String = joined.nfc().collect();
    composed.to_lowercase().nfc().collect()
}
