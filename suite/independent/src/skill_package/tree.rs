//! A skill directory holding `SKILL.md`, read as the equivalent envelope (the catalogue's
//! header): every regular file below the root is a file entry, its path relative and
//! `/`-separated, the entries sorted by path byte by byte. A symbolic link, FIFO, socket or
//! device is an entry without text: it is never followed or opened.

use std::fs;
use std::os::unix::ffi::OsStrExt as _;
use std::path::{Path, PathBuf};

use super::{head, package, Package, PackageFile, Planted, Report};

/// skill-package.report.truncated (a bound of the walk): more entries than this are not
/// judged.
const ENTRY_BOUND: usize = 10_000;

/// One entry found below the root.
struct Entry {
    /// The relative path's bytes, `/`-separated (the sort key).
    raw: Vec<u8>,
    /// The relative path as text (invalid UTF-8 shown as U+FFFD).
    path: String,
    /// Whether every name on the path is valid UTF-8.
    utf8: bool,
    kind: Kind,
    location: PathBuf,
}

enum Kind {
    /// A regular file of this many bytes.
    File(u64),
    /// Anything else that is not a directory (a symlink, a FIFO ...), described.
    Other(&'static str),
}

/// Checks a skill directory.
pub(super) fn check(root: &Path, report: &mut Report<'_>) {
    let entries = match walk(root, report) {
        Ok(Some(entries)) => entries,
        Ok(None) => return,
        Err(error) => {
            report.error(
                "file.text",
                "the directory",
                format!("cannot be listed: {error}"),
            );
            return;
        }
    };
    let package = read(entries, report);
    package::check(&package, report);
    if let Some(file) = package::head_file(&package, report) {
        if let Some(content) = &file.content {
            if !package::over_file_limit(file, report) {
                head::check_content(content, &format!("{}/content", file.pointer), report);
            }
        }
    }
}

/// Every entry below `root`, sorted by path; `None` past the entry bound (reported).
fn walk(root: &Path, report: &mut Report<'_>) -> std::io::Result<Option<Vec<Entry>>> {
    let mut found = Vec::new();
    let mut count = 0usize;
    let mut pending = vec![(root.to_path_buf(), Vec::<u8>::new())];
    while let Some((directory, prefix)) = pending.pop() {
        let mut names: Vec<_> = fs::read_dir(&directory)?.collect::<Result<_, _>>()?;
        names.sort_by_key(|entry| entry.file_name());
        count += names.len();
        // skill-package.report.truncated: entries are counted before any is judged.
        if count > ENTRY_BOUND {
            report.bound(
                "report.truncated",
                "/files",
                format!("more than {ENTRY_BOUND} entries in the directory"),
            );
            return Ok(None);
        }
        for entry in names {
            let name = entry.file_name();
            if report.planted(Planted::DirSkipsHiddenFiles) && name.as_bytes().starts_with(b".") {
                continue;
            }
            let mut raw = prefix.clone();
            if !raw.is_empty() {
                raw.push(b'/');
            }
            raw.extend_from_slice(name.as_bytes());
            let location = entry.path();
            let metadata = fs::symlink_metadata(&location)?;
            let file_type = metadata.file_type();
            if file_type.is_dir() {
                pending.push((location, raw));
                continue;
            }
            let kind = if file_type.is_file() {
                Kind::File(metadata.len())
            } else if file_type.is_symlink() {
                Kind::Other("a symbolic link")
            } else {
                Kind::Other("a special file")
            };
            found.push(Entry {
                path: String::from_utf8_lossy(&raw).into_owned(),
                utf8: std::str::from_utf8(&raw).is_ok(),
                raw,
                kind,
                location,
            });
        }
    }
    found.sort_by(|a, b| a.raw.cmp(&b.raw));
    Ok(Some(found))
}

/// Reads the entries' texts within the limits: a file past the per-file limit, or past the
/// total read so far, is measured by its size without being read.
fn read(entries: Vec<Entry>, report: &mut Report<'_>) -> Package {
    let mut package = Package {
        files: Vec::with_capacity(entries.len()),
        listed: true,
        empty_reported: false,
    };
    // skill-package.limit.total-bytes: a directory is read with a budget of one byte past
    // the total limit.
    let mut budget = package::TOTAL_LIMIT + 1;
    for (index, entry) in entries.into_iter().enumerate() {
        let pointer = format!("/files/{index}");
        if !entry.utf8 {
            report.strict_error(
                "path.portable",
                &format!("{pointer}/path"),
                "a file name that is not UTF-8",
            );
        }
        let mut file = PackageFile {
            pointer,
            path: Some(entry.path),
            ..Default::default()
        };
        match entry.kind {
            Kind::Other(what) => {
                // skill-package.file.text: an entry without text.
                report.error(
                    "file.text",
                    &format!("{}/content", file.pointer),
                    format!("{what}, not a regular file"),
                );
            }
            Kind::File(size) => {
                file.bytes = Some(size);
                if size <= package::FILE_LIMIT + 1 && size <= budget {
                    budget -= size;
                    file.content = read_text(&entry.location, &file, report);
                    // What was read is what is measured (a transcoding or lossy reader
                    // measures its own text).
                    if let Some(content) = &file.content {
                        file.bytes = Some(content.len() as u64);
                    }
                }
            }
        }
        package.files.push(file);
    }
    package
}

/// A regular file's text (skill-package.file.text: valid UTF-8).
fn read_text(location: &Path, file: &PackageFile, report: &mut Report<'_>) -> Option<String> {
    let at = format!("{}/content", file.pointer);
    let bytes = match fs::read(location) {
        Ok(bytes) => bytes,
        Err(error) => {
            report.error("file.text", &at, format!("cannot be read: {error}"));
            return None;
        }
    };
    if report.planted(Planted::SkillMdReadsUtf16Utf32)
        && file.path.as_deref() == Some(package::HEAD_PATH)
    {
        if let Some(text) = super::text::sniff_wide(&bytes) {
            return Some(text);
        }
    }
    head::decode(&bytes, &at, report)
}
