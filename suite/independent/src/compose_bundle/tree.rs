//! The walk over the bundle directory. It is done once, with `symlink_metadata` semantics
//! (a directory entry's own type, never its target's), and bounded by
//! [`super::MAX_ENTRIES`]; every later question (does an entry point exist, is it a file,
//! what lies under the skill trees) is answered from the walk, so a symlink is never
//! followed and a FIFO never opened.

use std::collections::BTreeMap;
use std::io::Read as _;
use std::path::{Path, PathBuf};

use super::names;
use super::{Planted, Run, MAX_ENTRIES};

/// What an entry is, judged without following links.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Kind {
    /// A regular file.
    File,
    /// A directory.
    Dir,
    /// A symbolic link, wherever it points.
    Symlink,
    /// A FIFO, socket or device.
    Special,
}

/// One entry of the walk.
#[derive(Debug, Clone)]
pub(crate) struct Entry {
    /// Its kind.
    pub(crate) kind: Kind,
    /// Its name as the file system holds it (bytes on Unix), for the portability test.
    pub(crate) raw_name: Vec<u8>,
    /// Where it is on disk, to read it.
    pub(crate) location: PathBuf,
}

/// The walked tree: every entry by its `/`-separated path relative to the root (names not
/// in UTF-8 are carried lossily, and such a name never matches an entry point).
#[derive(Debug, Default)]
pub(crate) struct Tree {
    pub(crate) entries: BTreeMap<String, Entry>,
}

/// The result of a walk.
pub(crate) enum Walk {
    /// Every entry, within the bound.
    Complete(Tree),
    /// More entries than the bound: nothing is judged.
    PastBound,
}

/// Walks `root` breadth first. The entries of a directory are counted before any of them
/// is looked into, so the bound does not depend on the order names are listed in.
pub(crate) fn walk(run: &Run<'_>, root: &Path) -> Result<Walk, String> {
    let bound = if run.on(Planted::WalkBoundOffByOne) {
        MAX_ENTRIES - 1
    } else {
        MAX_ENTRIES
    };
    let metadata = std::fs::symlink_metadata(root)
        .map_err(|error| format!("the bundle root cannot be read: {error}"))?;
    if !metadata.is_dir() {
        return Err("the bundle root is not a directory".to_owned());
    }
    let mut tree = Tree::default();
    let mut pending: Vec<(String, PathBuf)> = vec![(String::new(), root.to_path_buf())];
    let mut count = 0usize;
    while let Some((prefix, directory)) = pending.pop() {
        let listing = std::fs::read_dir(&directory)
            .map_err(|error| format!("`{prefix}` cannot be listed: {error}"))?;
        for item in listing {
            let item = item.map_err(|error| format!("`{prefix}` cannot be listed: {error}"))?;
            count += 1;
            if count > bound {
                return Ok(Walk::PastBound);
            }
            let file_type = item
                .file_type()
                .map_err(|error| format!("an entry of `{prefix}` cannot be read: {error}"))?;
            let kind = if file_type.is_symlink() {
                Kind::Symlink
            } else if file_type.is_dir() {
                Kind::Dir
            } else if file_type.is_file() {
                Kind::File
            } else {
                Kind::Special
            };
            let raw_name = raw_bytes(&item.file_name());
            let name = String::from_utf8_lossy(&raw_name).into_owned();
            let path = if prefix.is_empty() {
                name
            } else {
                format!("{prefix}/{name}")
            };
            if kind == Kind::Dir {
                pending.push((path.clone(), item.path()));
            }
            tree.entries.insert(
                path,
                Entry {
                    kind,
                    raw_name,
                    location: item.path(),
                },
            );
        }
    }
    Ok(Walk::Complete(tree))
}

#[cfg(unix)]
fn raw_bytes(name: &std::ffi::OsStr) -> Vec<u8> {
    use std::os::unix::ffi::OsStrExt as _;
    name.as_bytes().to_vec()
}

#[cfg(not(unix))]
fn raw_bytes(name: &std::ffi::OsStr) -> Vec<u8> {
    name.to_string_lossy().into_owned().into_bytes()
}

impl Tree {
    /// The entry at `path`, found exactly (or, under a planted mistake, without regard to
    /// letter case).
    pub(crate) fn find(&self, run: &Run<'_>, path: &str) -> Option<&Entry> {
        if run.on(Planted::EntryCaseInsensitiveLookup) {
            let wanted = path.to_lowercase();
            return self
                .entries
                .iter()
                .find(|(key, _)| key.to_lowercase() == wanted)
                .map(|(_, entry)| entry);
        }
        self.entries.get(path)
    }

    /// The names directly inside the directory `path` (`""` for the root), with entries.
    pub(crate) fn children<'t>(&'t self, path: &str) -> Vec<(&'t str, &'t Entry)> {
        let prefix = if path.is_empty() {
            String::new()
        } else {
            format!("{path}/")
        };
        self.entries
            .range(prefix.clone()..)
            .take_while(|(key, _)| key.starts_with(&prefix))
            .filter_map(|(key, entry)| {
                let rest = &key[prefix.len()..];
                (!rest.is_empty() && !rest.contains('/')).then_some((rest, entry))
            })
            .collect()
    }

    /// Reads a regular file the walk found, at most `limit + 1` bytes, so a caller sees
    /// that it is past the limit without holding it whole.
    pub(crate) fn read(&self, entry: &Entry, limit: usize) -> Result<Vec<u8>, String> {
        let file = std::fs::File::open(&entry.location).map_err(|error| error.to_string())?;
        // The walk saw a regular file; make sure the name still is one (not swapped for a
        // FIFO or a link since), so reading can neither block nor leave the bundle.
        let opened = file.metadata().map_err(|error| error.to_string())?;
        let again =
            std::fs::symlink_metadata(&entry.location).map_err(|error| error.to_string())?;
        if !opened.is_file() || !again.is_file() {
            return Err("no longer a regular file".to_owned());
        }
        let mut bytes = Vec::new();
        file.take(limit as u64 + 1)
            .read_to_end(&mut bytes)
            .map_err(|error| error.to_string())?;
        Ok(bytes)
    }
}

/// compose-bundle.tree.entry-kind ("regular files and directories only"): every entry of
/// the tree is a regular file or a directory; and, in the strict profile,
/// compose-bundle.tree.portable-name: every name can be carried to other systems.
pub(crate) fn check_entries(run: &mut Run<'_>, tree: &Tree) {
    for (path, entry) in &tree.entries {
        let pointer = format!("/{}", names::escape_pointer(path));
        match entry.kind {
            Kind::File | Kind::Dir => {}
            Kind::Symlink => {
                if !run.on(Planted::TreeSymlinksAllowed) {
                    run.error(
                        "compose-bundle.tree.entry-kind",
                        &pointer,
                        "a symlink: only regular files and directories may stand in a bundle",
                    );
                }
            }
            Kind::Special => {
                if !run.on(Planted::TreeFifoAllowed) {
                    run.error(
                        "compose-bundle.tree.entry-kind",
                        &pointer,
                        "a FIFO, socket or device: only regular files and directories may stand in a bundle",
                    );
                }
            }
        }
        if run.strict() {
            if let Some(problem) = names::portable_name_problem(&entry.raw_name) {
                run.error("compose-bundle.tree.portable-name", &pointer, problem);
            }
        }
    }
}
