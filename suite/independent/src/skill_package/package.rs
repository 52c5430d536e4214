//! The rules on a package's files as a whole, for an envelope and a skill directory alike:
//! paths ("Paths must stay inside the package ... Duplicate paths are invalid"), the
//! content limits ("Limits") and the head's presence ("it must appear among the package
//! files"), plus the strict profile's content-type rules.

use super::{media, paths, Package, PackageFile, Planted, Report};

/// skill-package.limit.file-bytes: "Text content per file: 256 KiB in UTF-8 bytes".
pub(super) const FILE_LIMIT: u64 = 256 * 1024;

/// skill-package.limit.total-bytes: "Total text content: 1 MiB in UTF-8 bytes".
pub(super) const TOTAL_LIMIT: u64 = 1024 * 1024;

/// The head's path ("Head path: Exactly SKILL.md").
pub(super) const HEAD_PATH: &str = "SKILL.md";

/// Checks the package's files.
pub(super) fn check(package: &Package, report: &mut Report<'_>) {
    for file in &package.files {
        if let Some(path) = &file.path {
            paths::check(path, &format!("{}/path", file.pointer), report);
        }
    }
    paths::check_duplicates(&package.files, report);
    for file in &package.files {
        if over_file_limit(file, report) {
            report.error(
                "limit.file-bytes",
                &format!("{}/content", file.pointer),
                "the content is larger than 262144 bytes",
            );
        }
    }
    check_total(package, report);
    for file in &package.files {
        if let Some(content_type) = &file.content_type {
            media::check(
                content_type,
                &format!("{}/contentType", file.pointer),
                report,
            );
        }
    }
    // skill-package.head.present: "it must appear among the package files" and "the head
    // must exist". An envelope's empty list is reported by files.nonempty alone.
    let reported = package.files.is_empty()
        && (package.empty_reported || report.planted(Planted::HeadCheckNeedsFiles));
    if package.listed && !reported && head_file(package, report).is_none() {
        report.error("head.present", "/files", "no file has the path SKILL.md");
    }
}

/// Whether `path` names the head.
fn is_head(path: &str, report: &Report<'_>) -> bool {
    if report.planted(Planted::HeadPresentCaseInsensitive) {
        return path.eq_ignore_ascii_case(HEAD_PATH);
    }
    if report.planted(Planted::HeadFoundAnywhere) {
        return path.rsplit('/').next() == Some(HEAD_PATH);
    }
    // Exactly `SKILL.md`, compared as a string (skill-package.head.present's decision).
    path == HEAD_PATH
}

/// The head's entry: the first whose path is `SKILL.md`.
pub(super) fn head_file<'p>(package: &'p Package, report: &Report<'_>) -> Option<&'p PackageFile> {
    package.files.iter().find(|file| {
        file.path
            .as_deref()
            .is_some_and(|path| is_head(path, report))
    })
}

/// skill-package.limit.file-bytes: whether a file's content passes 262144 bytes of UTF-8
/// (the decoded string, never its escaped JSON form), the limit inclusive.
pub(super) fn over_file_limit(file: &PackageFile, report: &Report<'_>) -> bool {
    if report.planted(Planted::FileLimitSkipsHead) && file.path.as_deref() == Some(HEAD_PATH) {
        return false;
    }
    let size = if report.planted(Planted::FileLimitInCharacters) {
        file.content
            .as_deref()
            .map(|text| text.chars().count() as u64)
            .or(file.bytes)
    } else if report.planted(Planted::FileLimitOnEscapedJson) {
        file.escaped_bytes.or(file.bytes)
    } else {
        file.bytes
    };
    size.is_some_and(|size| past_limit(size, FILE_LIMIT, Limit::File, report))
}

/// Which limit a size is measured against, for the off-by-one switches.
#[derive(Clone, Copy)]
pub(super) enum Limit {
    File,
    Total,
}

/// Whether `size` passes `limit` (inclusive), as the planted off-by-one mistakes read it.
pub(super) fn past_limit(size: u64, limit: u64, which: Limit, report: &Report<'_>) -> bool {
    let (rejects_at, accepts_over) = match which {
        Limit::File => (
            Planted::FileLimitRejectsAtLimit,
            Planted::FileLimitAcceptsOneOver,
        ),
        Limit::Total => (
            Planted::TotalLimitRejectsAtLimit,
            Planted::TotalLimitAcceptsOneOver,
        ),
    };
    if report.planted(rejects_at) {
        size >= limit
    } else if report.planted(accepts_over) {
        size > limit + 1
    } else {
        size > limit
    }
}

/// skill-package.limit.total-bytes: the contents together are at most 1 MiB of UTF-8
/// (paths and content types do not count). Reported once, at `/files`.
fn check_total(package: &Package, report: &mut Report<'_>) {
    let total: u64 = package
        .files
        .iter()
        .filter(|file| {
            !(report.planted(Planted::TotalLimitExcludesHead)
                && file.path.as_deref() == Some(HEAD_PATH))
        })
        .map(|file| {
            if report.planted(Planted::TotalLimitOnEscapedJson) {
                file.escaped_bytes.or(file.bytes).unwrap_or(0)
            } else if report.planted(Planted::TotalLimitInCharacters) {
                file.content
                    .as_deref()
                    .map(|text| text.chars().count() as u64)
                    .or(file.bytes)
                    .unwrap_or(0)
            } else {
                file.bytes.unwrap_or(0)
            }
        })
        .sum();
    if past_limit(total, TOTAL_LIMIT, Limit::Total, report) {
        report.error(
            "limit.total-bytes",
            "/files",
            format!("the contents total {total} bytes, more than 1048576"),
        );
    }
}
