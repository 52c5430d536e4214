//! Reading the one document `soulcheck check` is given, bounded by its format's size
//! limit: a regular file only (a FIFO, a device or a socket is refused before it is
//! opened, and again after, should one be swapped in), and never more than the limit plus
//! one byte, so a huge, endless or growing file costs no more than one at the limit.

use std::io::Read as _;
use std::path::Path;

use anyhow::{bail, Context as _, Result};
use soulcheck_harness::files::{self, OpenError};

/// What was read of a document.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Document {
    /// The whole document, at most the limit.
    Bytes(Vec<u8>),
    /// The document is larger than the limit: `size` is its size on disk, or the bytes
    /// read when it grew past the limit while being read (then at least the limit plus
    /// one). It was not read, or read only to one byte past the limit.
    TooLarge {
        /// At least this many bytes.
        size: u64,
    },
}

/// Reads the regular file at `path` if it holds at most `max_bytes` bytes (any size when
/// `None`). Anything but a regular file is an error naming what it is. The file is opened
/// without blocking, so a FIFO swapped in after the first look cannot hang the open, and
/// what opened is looked at again before a byte is read.
pub fn read_document(path: &Path, max_bytes: Option<usize>) -> Result<Document> {
    let shown = path.display();
    // The harness's one opener of untrusted files: regular files only, opened without
    // blocking, looked at again once open.
    let (file, opened) = match files::open_regular(path) {
        Ok(opened) => opened,
        Err(OpenError::Io(error)) => {
            return Err(error).with_context(|| format!("cannot read {shown}"));
        }
        Err(OpenError::NotRegular { what, swapped }) => {
            let verb = if swapped { "became" } else { "is" };
            let when = if swapped { " while it was opened" } else { "" };
            bail!("{shown} {verb} {what}{when}; check reads a regular file or a directory");
        }
    };
    let Some(max) = max_bytes else {
        let mut bytes = Vec::new();
        let mut file = file;
        file.read_to_end(&mut bytes)
            .with_context(|| format!("cannot read {shown}"))?;
        return Ok(Document::Bytes(bytes));
    };
    if opened.len() > max as u64 {
        return Ok(Document::TooLarge { size: opened.len() });
    }
    // The size on disk is only a hint (the file may grow or shrink meanwhile); the read
    // itself stops one byte past the limit.
    let hint = usize::try_from(opened.len()).unwrap_or(max).min(max);
    let mut bytes = Vec::with_capacity(hint + 1);
    file.take(max as u64 + 1)
        .read_to_end(&mut bytes)
        .with_context(|| format!("cannot read {shown}"))?;
    if bytes.len() > max {
        return Ok(Document::TooLarge {
            size: (bytes.len() as u64).max(opened.len()),
        });
    }
    Ok(Document::Bytes(bytes))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_up_to_the_limit_and_refuses_past_it() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("doc");
        std::fs::write(&path, b"abcd").unwrap();
        assert_eq!(
            read_document(&path, Some(4)).unwrap(),
            Document::Bytes(b"abcd".to_vec())
        );
        assert_eq!(
            read_document(&path, Some(3)).unwrap(),
            Document::TooLarge { size: 4 }
        );
        assert_eq!(
            read_document(&path, None).unwrap(),
            Document::Bytes(b"abcd".to_vec())
        );
        let error = read_document(dir.path(), Some(3)).unwrap_err();
        assert!(error.to_string().contains("is a directory"), "{error}");
        assert!(read_document(&dir.path().join("absent"), Some(3)).is_err());
    }
}
