//! The one way soulcheck opens a file it did not make: a corpus's cases, catalogues,
//! recipes and templates, a report, a mapping or expectations file, and the files of a
//! materialised tree shown in a page. Every one of them is untrusted (a pull request to
//! `cases/`, a validator's report, `--corpus DIR`), so each read is bounded by
//! construction:
//!
//! - only a regular file is read: a FIFO, a device, a socket or a directory is refused
//!   before it is opened and again after (it is opened without blocking, so a FIFO swapped
//!   in meanwhile cannot hang the open);
//! - at most the stated cap plus one byte is read, so `/dev/zero` behind a swapped path, a
//!   sparse file or one that grows while read costs no more than a file at the cap;
//! - a path inside a root ([`read_in`], [`confine`]) is relative, has no `..`, no root and
//!   no prefix, and resolves (symlinks followed) to a place inside the root's own resolved
//!   path, so neither a climbing name nor a symlink reads or writes outside it.
//!
//! Every refusal is a [`LoadError`] naming the file and why; the commands report it and
//! exit with 2.

use std::fs::{File, Metadata};
use std::io::{self, Read as _};
use std::path::{Component, Path, PathBuf};

use crate::LoadError;

/// Bytes of one corpus file (a case file, a catalogue, a committed input or a template).
/// The largest committed file is a few KiB; generated inputs come from recipes.
pub const MAX_CORPUS_FILE: usize = 64 * 1024 * 1024;

/// Bytes of a corpus's TOML file (a `case.toml`, a `rules.toml`). Parsed into tables, TOML
/// costs tens of bytes of memory per byte (a 60 MB `case.toml` took 3.2 GB), so it gets a
/// cap of its own: the largest committed one (a catalogue) is about 52 KiB.
pub const MAX_TOML_FILE: usize = 1024 * 1024;

/// Bytes of a small configuration file the user names: a mapping, an expectations file.
pub const MAX_CONFIG_FILE: usize = 4 * 1024 * 1024;

/// Bytes of a `report.jsonl` read back (`diff`, `report html`, `report scoreboard`). A
/// report keeps at most 16 KiB of evidence per case, so this is tens of thousands of cases.
pub const MAX_REPORT_FILE: usize = 512 * 1024 * 1024;

/// Why a path could not be opened as a regular file.
#[derive(Debug)]
pub enum OpenError {
    /// The system call failed (no such file, no permission, ...).
    Io(io::Error),
    /// It is not a regular file: what it is (`a FIFO`, `a device`, ...).
    NotRegular {
        /// What it is.
        what: &'static str,
        /// Whether it only became so between the first look and the open.
        swapped: bool,
    },
}

impl std::fmt::Display for OpenError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            OpenError::Io(error) => write!(f, "{error}"),
            OpenError::NotRegular {
                what,
                swapped: false,
            } => write!(f, "is {what}, not a regular file"),
            OpenError::NotRegular {
                what,
                swapped: true,
            } => write!(f, "became {what} while it was opened, not a regular file"),
        }
    }
}

/// Opens the regular file at `path` (symlinks followed) without blocking, and returns it
/// with what `fstat` says of the opened file.
pub fn open_regular(path: &Path) -> Result<(File, Metadata), OpenError> {
    let found = std::fs::metadata(path).map_err(OpenError::Io)?;
    if !found.is_file() {
        return Err(OpenError::NotRegular {
            what: describe(&found),
            swapped: false,
        });
    }
    let file = open_nonblocking(path).map_err(OpenError::Io)?;
    let opened = file.metadata().map_err(OpenError::Io)?;
    if !opened.is_file() {
        return Err(OpenError::NotRegular {
            what: describe(&opened),
            swapped: true,
        });
    }
    Ok((file, opened))
}

/// Reads the regular file at `path`, refusing it when it holds more than `cap` bytes.
pub fn read(path: &Path, cap: usize) -> Result<Vec<u8>, LoadError> {
    read_within(path, cap, None)
}

/// [`read`]; with `inside`, the file opened must also lie inside that (resolved)
/// directory, judged on the opened descriptor, so a path checked by [`confine`] and then
/// swapped for a symlink before the open is refused rather than followed out.
fn read_within(path: &Path, cap: usize, inside: Option<&Path>) -> Result<Vec<u8>, LoadError> {
    let (file, opened) =
        open_regular(path).map_err(|error| LoadError::invalid(path, error.to_string()))?;
    if let Some(base) = inside {
        if let Some(actual) = opened_path(&file) {
            if !actual.starts_with(base) {
                return Err(LoadError::invalid(
                    path,
                    format!(
                        "was replaced while opened: the file opened is {}, outside {}",
                        actual.display(),
                        base.display()
                    ),
                ));
            }
        }
    }
    if opened.len() > cap as u64 {
        return Err(too_large(path, cap, opened.len()));
    }
    // The size on disk is a hint only (the file may grow meanwhile); the read itself stops
    // one byte past the cap.
    let hint = usize::try_from(opened.len()).unwrap_or(cap).min(cap);
    let mut bytes = Vec::with_capacity(hint.saturating_add(1));
    file.take(cap as u64 + 1)
        .read_to_end(&mut bytes)
        .map_err(|source| LoadError::io(path, source))?;
    if bytes.len() > cap {
        return Err(too_large(path, cap, bytes.len() as u64));
    }
    Ok(bytes)
}

/// [`read`], as UTF-8 text.
pub fn read_string(path: &Path, cap: usize) -> Result<String, LoadError> {
    String::from_utf8(read(path, cap)?).map_err(|_| LoadError::invalid(path, "not UTF-8"))
}

/// Reads `relative` under `root` as [`read`] does, once [`confine`] has checked it; the
/// file actually opened is checked again to lie inside `root`.
pub fn read_in(root: &Path, relative: &Path, cap: usize) -> Result<Vec<u8>, LoadError> {
    let Confined { path, base } = confined(root, relative)?;
    read_within(&path, cap, Some(&base))
}

/// Where an open file is, as the kernel resolved it (Linux `/proc/self/fd`); `None` where
/// that cannot be told (then only [`confine`]'s check before the open stands).
fn opened_path(file: &File) -> Option<PathBuf> {
    #[cfg(target_os = "linux")]
    {
        use std::os::fd::AsRawFd as _;
        std::fs::read_link(format!("/proc/self/fd/{}", file.as_raw_fd())).ok()
    }
    #[cfg(not(target_os = "linux"))]
    {
        let _ = file;
        None
    }
}

/// Whether `relative` is a path that stays where it is joined: not empty, relative, and
/// made of plain names only (no `..`, no `.`, no root, no drive prefix). The reason when
/// it is not.
pub fn check_relative(relative: &Path) -> Result<(), &'static str> {
    if relative.as_os_str().is_empty() {
        return Err("it is empty");
    }
    for component in relative.components() {
        match component {
            Component::Normal(_) | Component::CurDir => {}
            Component::ParentDir => return Err("it climbs out with `..`"),
            Component::RootDir | Component::Prefix(_) => return Err("it is absolute"),
        }
    }
    Ok(())
}

/// `root` joined with `relative`, once it is known to stay inside `root`: `relative`
/// passes [`check_relative`], and the deepest part of the joined path that exists, with
/// every symlink resolved, lies inside `root` resolved. What does not exist yet (a file
/// about to be written) cannot lead anywhere else, as its names are plain. For reading
/// and for writing alike.
pub fn confine(root: &Path, relative: &Path) -> Result<PathBuf, LoadError> {
    confined(root, relative).map(|confined| confined.path)
}

/// A path checked to stay inside its root ([`confined`]), and the root as resolved then.
struct Confined {
    path: PathBuf,
    base: PathBuf,
}

/// [`confine`], keeping the resolved root (a read checks the file it opens against it).
fn confined(root: &Path, relative: &Path) -> Result<Confined, LoadError> {
    let joined = root.join(relative);
    check_relative(relative).map_err(|why| {
        LoadError::invalid(
            &joined,
            format!("the path `{}` is refused: {why}", relative.display()),
        )
    })?;
    let base = root
        .canonicalize()
        .map_err(|source| LoadError::io(root, source))?;
    let mut existing = joined.as_path();
    loop {
        match existing.canonicalize() {
            Ok(resolved) => {
                if !resolved.starts_with(&base) {
                    return Err(LoadError::invalid(
                        &joined,
                        format!(
                            "the path `{}` leads outside {} (to {})",
                            relative.display(),
                            root.display(),
                            resolved.display()
                        ),
                    ));
                }
                return Ok(Confined { path: joined, base });
            }
            Err(_) => match existing.parent() {
                Some(parent) => existing = parent,
                None => return Ok(Confined { path: joined, base }),
            },
        }
    }
}

fn too_large(path: &Path, cap: usize, size: u64) -> LoadError {
    LoadError::invalid(
        path,
        format!("holds at least {size} bytes, more than the {cap} bytes read of such a file"),
    )
}

/// What a file that is not a regular file is, for messages.
pub fn describe(metadata: &Metadata) -> &'static str {
    if metadata.is_dir() {
        return "a directory";
    }
    #[cfg(unix)]
    {
        use std::os::unix::fs::FileTypeExt as _;
        let kind = metadata.file_type();
        if kind.is_fifo() {
            return "a FIFO";
        }
        if kind.is_socket() {
            return "a socket";
        }
        if kind.is_block_device() || kind.is_char_device() {
            return "a device";
        }
    }
    "neither a regular file nor a directory"
}

#[cfg(unix)]
fn open_nonblocking(path: &Path) -> io::Result<File> {
    use rustix::fs::{open, Mode, OFlags};
    // O_NONBLOCK: opening a FIFO for reading would otherwise wait for a writer. It changes
    // nothing for the regular file read afterwards.
    let flags = OFlags::RDONLY | OFlags::NONBLOCK | OFlags::CLOEXEC;
    let fd = open(path, flags, Mode::empty()).map_err(io::Error::from)?;
    Ok(File::from(fd))
}

#[cfg(not(unix))]
fn open_nonblocking(path: &Path) -> io::Result<File> {
    File::open(path)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Issue 37, item 5: the file a confined read opens is judged on the descriptor. A
    /// path that `confine` passed and that now leads elsewhere (a symlink swapped in
    /// between, which needs write access to the corpus) is refused, not read; here the
    /// swap is stood in for by asking for a file outside the directory it must lie in.
    #[cfg(target_os = "linux")]
    #[test]
    fn a_file_opened_outside_its_root_is_refused() {
        let root = tempfile::tempdir().unwrap();
        let outside = tempfile::tempdir().unwrap();
        let secret = outside.path().join("secret");
        std::fs::write(&secret, "secret").unwrap();
        let base = root.path().canonicalize().unwrap();
        let error = read_within(&secret, 64, Some(&base)).unwrap_err();
        assert!(
            error.message.contains("was replaced while opened"),
            "{error}"
        );
        // Inside, the same read succeeds.
        std::fs::write(root.path().join("case.toml"), "x").unwrap();
        assert_eq!(
            read_in(root.path(), Path::new("case.toml"), 64).unwrap(),
            b"x"
        );
    }

    #[test]
    fn reads_regular_files_within_the_cap_only() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("file");
        std::fs::write(&path, b"abcd").unwrap();
        assert_eq!(read(&path, 4).unwrap(), b"abcd");
        let error = read(&path, 3).unwrap_err();
        assert!(error.message.contains("more than the 3 bytes"), "{error}");
        let error = read(dir.path(), 3).unwrap_err();
        assert!(error.message.contains("is a directory"), "{error}");
        let error = read(Path::new("/dev/zero"), 3).unwrap_err();
        assert!(error.message.contains("is a device"), "{error}");
    }

    #[test]
    fn confines_paths_to_their_root() {
        let outside = tempfile::tempdir().unwrap();
        let root = tempfile::tempdir().unwrap();
        std::fs::write(outside.path().join("secret"), b"host").unwrap();
        std::fs::create_dir(root.path().join("case")).unwrap();
        std::fs::write(root.path().join("case/template"), b"ok").unwrap();
        #[cfg(unix)]
        std::os::unix::fs::symlink(outside.path(), root.path().join("case/out")).unwrap();
        assert_eq!(
            read_in(root.path(), Path::new("case/template"), 16).unwrap(),
            b"ok"
        );
        for bad in ["/etc/hostname", "../secret", "case/../../secret", ""] {
            let error = read_in(root.path(), Path::new(bad), 16).unwrap_err();
            assert!(error.message.contains("is refused"), "{bad}: {error}");
        }
        #[cfg(unix)]
        for bad in ["case/out/secret", "case/out/new-file"] {
            let error = confine(root.path(), Path::new(bad)).unwrap_err();
            assert!(error.message.contains("leads outside"), "{bad}: {error}");
        }
        // A file not written yet, under plain names, stays inside.
        assert!(confine(root.path(), Path::new("case/new/file")).is_ok());
    }
}
