//! Where the corpus's files are read from: a `cases/` directory on disk, or the corpus
//! embedded in a binary (`soulcheck-corpus`). Everything the harness reads from the corpus
//! (case files, inputs, recipe templates, committed trees, rule catalogues) goes through
//! [`Store`], so an embedded corpus behaves exactly like a checkout. On disk every file is read
//! through [`crate::files`]: a regular file inside the corpus directory, at most
//! [`files::MAX_CORPUS_FILE`] bytes. Nothing here writes.

use std::borrow::Cow;
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Mutex, OnceLock};

use include_dir::{Dir, DirEntry};

use crate::files;
use crate::LoadError;

/// The root of a corpus.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub enum Store {
    /// A directory on disk (a checkout's `cases/`, or `--corpus DIR`).
    Disk(PathBuf),
    /// The corpus embedded at build time.
    Embedded(&'static Dir<'static>),
}

/// What a path in the store names.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum Kind {
    /// A regular file.
    File,
    /// A directory.
    Dir,
}

impl Store {
    /// How a path of the store is named in messages: the real path on disk, or
    /// `<embedded corpus>/...`.
    pub fn display(&self, relative: &Path) -> PathBuf {
        match self {
            Store::Disk(root) => root.join(relative),
            Store::Embedded(_) => Path::new("<embedded corpus>").join(relative),
        }
    }

    /// The path on disk, for a store on disk.
    pub fn disk_path(&self, relative: &Path) -> Option<PathBuf> {
        match self {
            Store::Disk(root) => Some(root.join(relative)),
            Store::Embedded(_) => None,
        }
    }

    /// What `relative` names, without following symlinks on disk; `None` when it does not
    /// exist or is neither a file nor a directory.
    pub fn kind(&self, relative: &Path) -> Option<Kind> {
        match self {
            Store::Disk(root) => {
                let metadata = std::fs::symlink_metadata(root.join(relative)).ok()?;
                if metadata.is_file() {
                    Some(Kind::File)
                } else if metadata.is_dir() {
                    Some(Kind::Dir)
                } else {
                    None
                }
            }
            Store::Embedded(dir) => {
                if relative.as_os_str().is_empty() {
                    return Some(Kind::Dir);
                }
                match index(dir).get(relative)? {
                    DirEntry::File(_) => Some(Kind::File),
                    DirEntry::Dir(_) => Some(Kind::Dir),
                }
            }
        }
    }

    /// Whether anything at all is at `relative` (a dangling symlink included).
    pub fn exists(&self, relative: &Path) -> bool {
        match self {
            Store::Disk(root) => std::fs::symlink_metadata(root.join(relative)).is_ok(),
            Store::Embedded(dir) => {
                relative.as_os_str().is_empty() || index(dir).contains_key(relative)
            }
        }
    }

    /// The bytes of a file.
    pub fn read(&self, relative: &Path) -> Result<Cow<'static, [u8]>, LoadError> {
        self.read_capped(relative, files::MAX_CORPUS_FILE)
    }

    /// The bytes of a file of at most `cap` bytes (a file on disk past it is refused).
    fn read_capped(&self, relative: &Path, cap: usize) -> Result<Cow<'static, [u8]>, LoadError> {
        match self {
            // Through the one bounded reader: a regular file inside the root only.
            Store::Disk(root) => files::read_in(root, relative, cap).map(Cow::Owned),
            Store::Embedded(dir) => match index(dir).get(relative) {
                Some(DirEntry::File(file)) => Ok(Cow::Borrowed(file.contents())),
                _ => Err(LoadError::invalid(&self.display(relative), "no such file")),
            },
        }
    }

    /// The text of a corpus TOML file (`case.toml`, `rules.toml`), at most
    /// [`files::MAX_TOML_FILE`] bytes, which must be UTF-8.
    pub fn read_toml(&self, relative: &Path) -> Result<String, LoadError> {
        self.read_text(relative, files::MAX_TOML_FILE)
    }

    /// The text of a file, which must be UTF-8.
    pub fn read_to_string(&self, relative: &Path) -> Result<String, LoadError> {
        self.read_text(relative, files::MAX_CORPUS_FILE)
    }

    /// The text of a file of at most `cap` bytes, which must be UTF-8.
    fn read_text(&self, relative: &Path, cap: usize) -> Result<String, LoadError> {
        let bytes = self.read_capped(relative, cap)?;
        String::from_utf8(bytes.into_owned())
            .map_err(|_| LoadError::invalid(&self.display(relative), "not UTF-8"))
    }

    /// The entries of a directory, sorted by name. On disk, entries that are neither
    /// files nor directories are listed with `None`.
    pub fn list(&self, relative: &Path) -> Result<Vec<(String, Option<Kind>)>, LoadError> {
        let mut entries = match self {
            Store::Disk(root) => {
                let path = root.join(relative);
                let mut entries = Vec::new();
                for entry in
                    std::fs::read_dir(&path).map_err(|source| LoadError::io(&path, source))?
                {
                    let entry = entry.map_err(|source| LoadError::io(&path, source))?;
                    let file_type = entry
                        .file_type()
                        .map_err(|source| LoadError::io(&entry.path(), source))?;
                    let kind = if file_type.is_file() {
                        Some(Kind::File)
                    } else if file_type.is_dir() {
                        Some(Kind::Dir)
                    } else {
                        None
                    };
                    let name = entry
                        .file_name()
                        .into_string()
                        .map_err(|_| LoadError::invalid(&entry.path(), "file name is not UTF-8"))?;
                    entries.push((name, kind));
                }
                entries
            }
            Store::Embedded(dir) => {
                let dir = if relative.as_os_str().is_empty() {
                    Some(*dir)
                } else {
                    match index(dir).get(relative) {
                        Some(DirEntry::Dir(dir)) => Some(dir),
                        _ => None,
                    }
                };
                let dir = dir.ok_or_else(|| {
                    LoadError::invalid(&self.display(relative), "no such directory")
                })?;
                dir.entries()
                    .iter()
                    .map(|entry| {
                        let name = entry
                            .path()
                            .file_name()
                            .and_then(|name| name.to_str())
                            .unwrap_or_default()
                            .to_owned();
                        let kind = match entry {
                            include_dir::DirEntry::File(_) => Kind::File,
                            include_dir::DirEntry::Dir(_) => Kind::Dir,
                        };
                        (name, Some(kind))
                    })
                    .collect()
            }
        };
        entries.sort_by(|a, b| a.0.cmp(&b.0));
        Ok(entries)
    }

    /// Every file under `relative`, recursively, as paths relative to the store's root,
    /// sorted.
    pub fn files(&self, relative: &Path) -> Result<Vec<PathBuf>, LoadError> {
        let mut files = Vec::new();
        self.collect_files(relative, &mut files)?;
        files.sort();
        Ok(files)
    }

    fn collect_files(&self, relative: &Path, files: &mut Vec<PathBuf>) -> Result<(), LoadError> {
        for (name, kind) in self.list(relative)? {
            let path = relative.join(&name);
            match kind {
                Some(Kind::Dir) => self.collect_files(&path, files)?,
                Some(Kind::File) => files.push(path),
                None => {}
            }
        }
        Ok(())
    }
}

/// Every entry of an embedded directory tree by its path (relative to the tree's root, as
/// `include_dir` names them). Hashed with foldhash: the index is built at every start, and
/// a one-case run should not spend more on it than on its case.
type Index = foldhash::HashMap<&'static Path, &'static DirEntry<'static>>;

/// The index of an embedded tree, built on first use and kept for the life of the process
/// (the tree is static, so its index may be too). `include_dir`'s own lookups compare the
/// path with every entry of each directory on the way, component by component: a run
/// looks up thousands of case files, and those lookups took seconds, more than all the
/// validation. With the index a lookup costs one hash of the path.
fn index(root: &'static Dir<'static>) -> &'static Index {
    // Keyed by the tree's address: in practice there is one embedded corpus, but nothing
    // stops a program from embedding two.
    static INDEXES: OnceLock<Mutex<HashMap<usize, &'static Index>>> = OnceLock::new();
    let indexes = INDEXES.get_or_init(|| Mutex::new(HashMap::new()));
    let mut indexes = indexes
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner());
    indexes
        .entry(std::ptr::from_ref(root) as usize)
        .or_insert_with(|| {
            let mut index = Index::with_capacity_and_hasher(entries(root), Default::default());
            let mut pending: Vec<&'static Dir<'static>> = vec![root];
            while let Some(dir) = pending.pop() {
                for entry in dir.entries() {
                    index.insert(entry.path(), entry);
                    if let DirEntry::Dir(child) = entry {
                        pending.push(child);
                    }
                }
            }
            Box::leak(Box::new(index))
        })
}

/// How many entries an embedded tree holds, so its index is sized once.
fn entries(root: &'static Dir<'static>) -> usize {
    let mut count = 0;
    let mut pending: Vec<&'static Dir<'static>> = vec![root];
    while let Some(dir) = pending.pop() {
        count += dir.entries().len();
        pending.extend(dir.dirs());
    }
    count
}

/// One directory of the store (a case's), and the paths under it.
#[derive(Debug, Clone)]
pub struct StoreDir {
    /// The store.
    pub store: Store,
    /// The directory, relative to the store's root.
    pub relative: PathBuf,
}

impl StoreDir {
    /// The path of `name` under this directory, relative to the store's root.
    pub fn path(&self, name: impl AsRef<Path>) -> PathBuf {
        self.relative.join(name)
    }

    /// How `name` under this directory is named in messages.
    pub fn display(&self, name: impl AsRef<Path>) -> PathBuf {
        self.store.display(&self.path(name))
    }

    /// The bytes of the file `name` under this directory.
    pub fn read(&self, name: impl AsRef<Path>) -> Result<Cow<'static, [u8]>, LoadError> {
        self.store.read(&self.path(name))
    }

    /// What `name` under this directory is.
    pub fn kind(&self, name: impl AsRef<Path>) -> Option<Kind> {
        self.store.kind(&self.path(name))
    }
}
