//! Tree cases: inputs that are directory trees, including entries git cannot carry
//! portably (symlinks inside and pointing out of the tree, FIFOs, names some systems
//! refuse).
//!
//! A tree case commits the ordinary files of its tree as a directory beside `case.toml`
//! (`input = "bundle"`) and describes every other entry in a `[tree]` table:
//!
//! ```toml
//! input = "bundle"              # committed files and directories, copied first (optional)
//!
//! [tree]
//! name = "bundle"               # the root's name; needed only when there is no `input`
//!
//! [[tree.entry]]                # created inside the root, in the order listed
//! path = "content/instructions.md"
//! kind = "symlink"              # file | dir | symlink | fifo
//! target = "../decoy/instructions.md"
//!
//! [[tree.outside]]              # created beside the root, for symlinks to point at
//! path = "decoy/instructions.md"
//! kind = "file"
//! content = "# Decoy\n"
//! ```
//!
//! An entry with `repeat = N` stands for N entries whose paths replace `{n}` with 1 to N
//! (`path = "references/f{n}.md"`), for trees at an entry bound; a tree describes at
//! most [`MAX_DESCRIBED_ENTRIES`] entries in all, and a repeated file takes `content`
//! only, never a recipe; the files a tree makes hold at most [`MAX_TREE_BYTES`] in all.
//!
//! A `file` entry takes its bytes from `content` (UTF-8 text, default empty) or from a
//! `recipe` (`{ template, placeholder, unit, count | total_bytes }`, as for document
//! cases, with the template in the case directory). A `symlink` needs a `target`, which
//! is written as given and never followed: pointing out of the tree is what such cases
//! are for. `dir` and `fifo` take nothing else.
//!
//! Every described path must be relative, `/`-separated, without empty, `.` or `..`
//! segments and without NUL; a description breaking this is a corpus defect, refused
//! when the case is loaded. Materialising happens only under a directory the caller
//! owns (a fresh temporary directory for a run, the case's directory for an export) and
//! never writes through a symlink: every ancestor of a described entry must be a real
//! directory (checked without following links), and an entry may not already exist.
//! So no description, however wrong, makes the harness write outside that directory.
//!
//! The runner hands validators a materialised copy even of plain committed directories,
//! so a validator that writes into its input can never modify the corpus.
//!
//! For a run ([`materialise_temp`]), a symlink with an *absolute* target is pointed at a
//! decoy inside the case's own temporary directory instead of the host's file: a target
//! `/etc/hostname` becomes `<tmp>/soulcheck-host/etc/hostname`, still an absolute symlink
//! leading out of the tree, so the case means what it did, but a validator that follows
//! it, or writes through it, touches only its own copy. The decoy mirrors the kind of the
//! host's entry (a directory for a directory, a file saying it is a decoy for anything
//! else, nothing when the host has nothing there), never its content. `..` in such a
//! target is resolved within the decoy directory. An export ([`materialise`]) writes
//! targets as described.

use std::borrow::Cow;
use std::fs::OpenOptions;
use std::io::Write as _;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use crate::corpus::Recipe;
use crate::store::{Kind, Store, StoreDir};
use crate::LoadError;

/// Names an outside entry may not take, because an export writes them beside the root.
const RESERVED_OUTSIDE: &[&str] = &["case.json", DECOYS];

/// Most entries one tree may describe, repeats expanded: a little past the largest entry
/// bound a format has (10,000), so bound cases fit and no description can ask for more.
pub const MAX_DESCRIBED_ENTRIES: usize = 20_000;

/// Bytes the files a tree's entries describe may hold in all, counted as they are made
/// (a base directory is copied as it is). A repeated entry's content and each recipe are
/// bounded alone, but 20,000 copies of a large content, or many recipes, are not: a
/// 20 KB `case.toml` exported 1.3 GB. The largest tree of the corpus holds a few MiB.
pub const MAX_TREE_BYTES: usize = 64 * 1024 * 1024;

/// The directory beside a run's tree root where absolute symlink targets lead.
pub const DECOYS: &str = "soulcheck-host";

/// A directory tree input: a committed base directory plus described entries.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct TreeSpec {
    /// Name of the tree's root directory (the name validators and exports see).
    pub name: String,
    /// Committed directory in the case directory copied as the tree's base, if any.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub base: Option<String>,
    /// Entries created inside the root after the base is copied, in order, as described:
    /// an entry with `repeat` stands for its numbered copies ([`TreeSpec::expanded`]), so
    /// a loaded spec costs what its description costs, whatever it expands to.
    pub entries: Vec<TreeEntry>,
    /// Entries created beside the root (targets for symlinks leading out of the tree).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub outside: Vec<TreeEntry>,
}

/// What kind of filesystem entry a described entry is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
#[non_exhaustive]
pub enum EntryKind {
    /// A regular file.
    File,
    /// A directory.
    Dir,
    /// A symbolic link, created as given and never followed.
    Symlink,
    /// A named pipe (FIFO); Unix only.
    Fifo,
}

/// One described entry.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TreeEntry {
    /// Relative `/`-separated path (inside the root, or beside it for outside entries).
    pub path: String,
    /// The entry's kind.
    pub kind: EntryKind,
    /// A symlink's target, written verbatim.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub target: Option<String>,
    /// A file's content.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub content: Option<String>,
    /// A file's content built from a template, for large boundary files (without
    /// `output`: the entry's path names the file).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub recipe: Option<Recipe>,
    /// This entry stands for `repeat` entries whose paths replace `{n}` with 1 to
    /// `repeat` ([`TreeSpec::expanded`] lists them).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub repeat: Option<usize>,
}

/// On-disk shape of a case's `[tree]` table.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct TreeTable {
    #[serde(default)]
    name: Option<String>,
    #[serde(default, rename = "entry")]
    entries: Vec<TreeEntry>,
    #[serde(default)]
    outside: Vec<TreeEntry>,
}

impl TreeTable {
    /// Checks the description and builds the spec. `base` is the case's committed
    /// directory input, if it has one. Every defect is reported against `case_toml`.
    pub(crate) fn into_spec(
        self,
        base: Option<String>,
        case_toml: &Path,
    ) -> Result<TreeSpec, LoadError> {
        let name = match (self.name, &base) {
            (Some(name), Some(base)) if &name != base => {
                return Err(LoadError::invalid(
                    case_toml,
                    format!("tree name `{name}` differs from the input directory `{base}`"),
                ))
            }
            (Some(name), _) => name,
            (None, Some(base)) => base.clone(),
            (None, None) => {
                return Err(LoadError::invalid(
                    case_toml,
                    "a tree without a committed `input` directory needs `[tree] name`",
                ))
            }
        };
        check_relative_path(&name)
            .filter(|segments| segments.len() == 1)
            .ok_or_else(|| {
                LoadError::invalid(case_toml, format!("tree name `{name}` is not one segment"))
            })?;
        check_repeats(&self.entries, case_toml)?;
        for entry in &self.entries {
            // Every copy of a repeated entry is checked by checking one: numbering puts
            // digits where `{n}` stands, which makes no segment empty, `.` or `..`.
            check_entry(&copy(entry, 1), case_toml)?;
        }
        let entries = self.entries;
        if self.outside.iter().any(|entry| entry.repeat.is_some()) {
            return Err(LoadError::invalid(
                case_toml,
                "an outside entry cannot `repeat`",
            ));
        }
        for entry in &self.outside {
            check_entry(entry, case_toml)?;
            let first = entry.path.split('/').next().unwrap_or_default();
            if first == name || RESERVED_OUTSIDE.contains(&first) {
                return Err(LoadError::invalid(
                    case_toml,
                    format!(
                        "outside entry `{}` must not start with `{first}`, the root's or an export file's name",
                        entry.path
                    ),
                ));
            }
        }
        Ok(TreeSpec {
            name,
            base,
            entries,
            outside: self.outside,
        })
    }
}

/// Refuses a repeat without `{n}` in its path, of a recipe, of zero, or past
/// [`MAX_DESCRIBED_ENTRIES`] entries in all, counted without building any copy.
fn check_repeats(entries: &[TreeEntry], case_toml: &Path) -> Result<(), LoadError> {
    let defect = |message: String| Err(LoadError::invalid(case_toml, message));
    let mut total: usize = 0;
    for entry in entries {
        let copies = match entry.repeat {
            None => 1,
            Some(0) => return defect(format!("entry `{}` repeats 0 times", entry.path)),
            Some(_) if !entry.path.contains("{n}") => {
                return defect(format!(
                    "entry `{}` repeats but its path has no `{{n}}` to number the copies",
                    entry.path
                ))
            }
            Some(_) if entry.recipe.is_some() => {
                return defect(format!(
                    "entry `{}` repeats a recipe; a repeated file takes `content` only",
                    entry.path
                ))
            }
            Some(copies) => copies,
        };
        total = total.saturating_add(copies);
    }
    if total > MAX_DESCRIBED_ENTRIES {
        return defect(format!(
            "the tree describes {total} entries; at most {MAX_DESCRIBED_ENTRIES} are allowed"
        ));
    }
    Ok(())
}

/// Copy `n` of an entry: a repeated entry with `{n}` numbered, any other as it is.
fn copy(entry: &TreeEntry, n: usize) -> Cow<'_, TreeEntry> {
    if entry.repeat.is_none() {
        return Cow::Borrowed(entry);
    }
    Cow::Owned(TreeEntry {
        path: entry.path.replace("{n}", &n.to_string()),
        repeat: None,
        ..entry.clone()
    })
}

impl TreeSpec {
    /// The entries inside the root, repeats expanded into their numbered copies, in
    /// order, built one at a time.
    pub fn expanded(&self) -> impl Iterator<Item = Cow<'_, TreeEntry>> {
        self.entries
            .iter()
            .flat_map(|entry| (1..=entry.repeat.unwrap_or(1)).map(move |n| copy(entry, n)))
    }
}

/// The segments of a safe relative path: `/`-separated, not absolute, without empty,
/// `.` or `..` segments, and without NUL. `None` for anything else.
pub fn check_relative_path(path: &str) -> Option<Vec<&str>> {
    if path.is_empty() || path.contains('\0') {
        return None;
    }
    let segments: Vec<&str> = path.split('/').collect();
    let safe = segments
        .iter()
        .all(|segment| !segment.is_empty() && *segment != "." && *segment != "..");
    safe.then_some(segments)
}

fn check_entry(entry: &TreeEntry, case_toml: &Path) -> Result<(), LoadError> {
    let defect = |message: String| Err(LoadError::invalid(case_toml, message));
    if check_relative_path(&entry.path).is_none() {
        return defect(format!(
            "tree entry path `{}` must be relative, `/`-separated, without empty, `.` or `..` segments",
            entry.path.escape_debug()
        ));
    }
    if let Some(recipe) = &entry.recipe {
        recipe.check_paths(case_toml)?;
    }
    let has_content = entry.content.is_some() || entry.recipe.is_some();
    match entry.kind {
        EntryKind::File if entry.content.is_some() && entry.recipe.is_some() => defect(format!(
            "file `{}` has both `content` and `recipe`",
            entry.path
        )),
        EntryKind::File if entry.target.is_some() => {
            defect(format!("file `{}` cannot have a `target`", entry.path))
        }
        EntryKind::File
            if entry
                .recipe
                .as_ref()
                .is_some_and(|recipe| recipe.output.is_some()) =>
        {
            defect(format!(
                "the recipe of file `{}` takes no `output`: the entry's path names the file",
                entry.path
            ))
        }
        EntryKind::Symlink => match &entry.target {
            Some(target) if !target.is_empty() && !target.contains('\0') && !has_content => Ok(()),
            _ => defect(format!(
                "symlink `{}` needs a non-empty `target` and nothing else",
                entry.path
            )),
        },
        EntryKind::Dir | EntryKind::Fifo if has_content || entry.target.is_some() => {
            defect(format!(
                "`{}` is a {:?} and takes no content or target",
                entry.path, entry.kind
            ))
        }
        _ => Ok(()),
    }
}

/// A tree materialised in a fresh temporary directory. The directory is removed when
/// this value is dropped, so it must live until the validator has finished.
#[derive(Debug)]
pub struct Materialised {
    /// Keeps the temporary directory alive.
    _dir: tempfile::TempDir,
    /// The tree's root inside it.
    pub root: PathBuf,
}

/// Materialises a case's tree in a fresh temporary directory beneath the run's scratch
/// directory ([`crate::scratch`]), with absolute symlink targets pointed at decoys (see the
/// module docs).
pub fn materialise_temp(case_dir: &StoreDir, spec: &TreeSpec) -> Result<Materialised, LoadError> {
    let dir = crate::scratch::case_dir("tree-")
        .map_err(|source| LoadError::io(&std::env::temp_dir(), source))?;
    let (root, _) = build(case_dir, spec, dir.path(), true)?;
    Ok(Materialised { _dir: dir, root })
}

/// Materialises a case's tree under `into` (which the caller owns; it must exist):
/// the root `into/<name>` with the base copied and the entries created, and the outside
/// entries beside it. Returns the root and the bytes the described files hold (the base is
/// the corpus's own files, copied). Never writes outside `into`.
pub fn materialise(
    case_dir: &StoreDir,
    spec: &TreeSpec,
    into: &Path,
) -> Result<(PathBuf, usize), LoadError> {
    build(case_dir, spec, into, false)
}

/// [`materialise`] with absolute symlink targets pointed at decoys under `into`, as
/// [`materialise_temp`] does, for a caller that keeps the tree between runs (the verdict
/// oracle's input cache, which cargo-mutants reuses across thousands of processes).
/// Returns the root.
pub fn materialise_with_decoys(
    case_dir: &StoreDir,
    spec: &TreeSpec,
    into: &Path,
) -> Result<PathBuf, LoadError> {
    build(case_dir, spec, into, true).map(|(root, _)| root)
}

/// [`materialise`], pointing absolute symlink targets at decoys under `into` if `decoys`.
fn build(
    case_dir: &StoreDir,
    spec: &TreeSpec,
    into: &Path,
    decoys: bool,
) -> Result<(PathBuf, usize), LoadError> {
    let root = into.join(&spec.name);
    match &spec.base {
        Some(base) => copy_tree(&case_dir.store, &case_dir.path(base), &root)?,
        None => std::fs::create_dir(&root).map_err(|source| LoadError::io(&root, source))?,
    }
    let decoys = decoys.then_some(into);
    let mut budget = MAX_TREE_BYTES;
    for entry in spec.expanded() {
        create_entry(case_dir, &root, &entry, decoys, &mut budget)?;
    }
    for entry in &spec.outside {
        create_entry(case_dir, into, entry, decoys, &mut budget)?;
    }
    Ok((root, MAX_TREE_BYTES - budget))
}

/// Where an absolute symlink target leads in a run: a decoy below `into`, made in the
/// kind of the host's entry. `..` segments stop at the decoy directory.
fn decoy(into: &Path, target: &str) -> Result<PathBuf, LoadError> {
    let mut segments: Vec<&str> = Vec::new();
    for segment in target.split('/') {
        match segment {
            "" | "." => {}
            ".." => {
                segments.pop();
            }
            other => segments.push(other),
        }
    }
    let mut path = into.join(DECOYS);
    path.extend(&segments);
    // Only the kind of the host's entry is looked at, never its content.
    match std::fs::metadata(target) {
        Ok(host) if host.is_dir() => {
            std::fs::create_dir_all(&path).map_err(|source| LoadError::io(&path, source))?;
        }
        Ok(_) => {
            if let Some(parent) = path.parent() {
                std::fs::create_dir_all(parent).map_err(|source| LoadError::io(parent, source))?;
            }
            if !path.exists() {
                std::fs::write(&path, format!("soulcheck decoy for {target}\n"))
                    .map_err(|source| LoadError::io(&path, source))?;
            }
        }
        Err(_) => {}
    }
    Ok(path)
}

/// Creates one described entry under `base`. Missing ancestors are created as
/// directories; an existing ancestor must be a real directory (a symlink is refused, so
/// nothing is ever written through one), and the entry itself must not exist yet.
/// With `decoys`, an absolute symlink target leads to a decoy below that directory. A file
/// takes its bytes from `budget` ([`MAX_TREE_BYTES`] per tree), and one past it is not made.
fn create_entry(
    case_dir: &StoreDir,
    base: &Path,
    entry: &TreeEntry,
    decoys: Option<&Path>,
    budget: &mut usize,
) -> Result<(), LoadError> {
    let segments = check_relative_path(&entry.path)
        .ok_or_else(|| LoadError::invalid(base, format!("unsafe tree path `{}`", entry.path)))?;
    let mut path = base.to_path_buf();
    for (index, segment) in segments.iter().enumerate() {
        path.push(segment);
        let last = index + 1 == segments.len();
        match std::fs::symlink_metadata(&path) {
            Ok(_) if last => {
                return Err(LoadError::invalid(
                    &path,
                    "tree entry already exists (from the base or an earlier entry)",
                ))
            }
            Ok(metadata) if metadata.is_dir() => {}
            Ok(_) => {
                return Err(LoadError::invalid(
                    &path,
                    "tree entry lies below something that is not a directory",
                ))
            }
            Err(error) if error.kind() == std::io::ErrorKind::NotFound => {
                if !last {
                    std::fs::create_dir(&path).map_err(|source| LoadError::io(&path, source))?;
                }
            }
            Err(source) => return Err(LoadError::io(&path, source)),
        }
    }
    match entry.kind {
        EntryKind::File => {
            let bytes = match (&entry.content, &entry.recipe) {
                (_, Some(recipe)) => recipe.build(case_dir)?,
                (Some(content), None) => content.as_bytes().to_vec(),
                (None, None) => Vec::new(),
            };
            *budget = budget.checked_sub(bytes.len()).ok_or_else(|| {
                LoadError::invalid(
                    &path,
                    format!("the tree's files hold more than {MAX_TREE_BYTES} bytes in all"),
                )
            })?;
            // `create_new` refuses an existing path, a dangling symlink included.
            let mut file = OpenOptions::new()
                .write(true)
                .create_new(true)
                .open(&path)
                .map_err(|source| LoadError::io(&path, source))?;
            file.write_all(&bytes)
                .map_err(|source| LoadError::io(&path, source))
        }
        EntryKind::Dir => std::fs::create_dir(&path).map_err(|source| LoadError::io(&path, source)),
        EntryKind::Symlink => {
            let target = entry.target.as_deref().unwrap_or_default();
            match decoys {
                Some(into) if target.starts_with('/') => {
                    let decoy = decoy(into, target)?;
                    make_symlink(&decoy.to_string_lossy(), &path)
                }
                _ => make_symlink(target, &path),
            }
        }
        EntryKind::Fifo => make_fifo(&path),
    }
}

#[cfg(unix)]
fn make_symlink(target: &str, path: &Path) -> Result<(), LoadError> {
    std::os::unix::fs::symlink(target, path).map_err(|source| LoadError::io(path, source))
}

#[cfg(not(unix))]
fn make_symlink(_target: &str, path: &Path) -> Result<(), LoadError> {
    Err(LoadError::invalid(
        path,
        "symlink entries are materialised on Unix only",
    ))
}

fn make_fifo(path: &Path) -> Result<(), LoadError> {
    create_fifo(path).map_err(|source| LoadError::io(path, source))
}

/// Creates a FIFO at `path` (mode 0644). Linux and the BSDs only: elsewhere it fails
/// with `Unsupported`, and so does materialising or exporting a tree that holds one.
#[cfg(all(unix, not(target_vendor = "apple")))]
pub fn create_fifo(path: &Path) -> std::io::Result<()> {
    use rustix::fs::{mkfifoat, Mode, CWD};
    mkfifoat(CWD, path, Mode::from_raw_mode(0o644)).map_err(std::io::Error::from)
}

/// Creates a FIFO at `path`: not available on this platform.
#[cfg(not(all(unix, not(target_vendor = "apple"))))]
pub fn create_fifo(_path: &Path) -> std::io::Result<()> {
    Err(std::io::Error::new(
        std::io::ErrorKind::Unsupported,
        "FIFO entries are made on Linux and the BSDs only",
    ))
}

/// Copies a committed directory of the corpus to `to` on disk. Only regular files and
/// directories are copied (both checked without following links); anything else in a
/// committed tree is a corpus defect, since such entries belong in the tree description.
pub fn copy_tree(store: &Store, from: &Path, to: &Path) -> Result<(), LoadError> {
    std::fs::create_dir(to).map_err(|source| LoadError::io(to, source))?;
    for (name, kind) in store.list(from)? {
        let source = from.join(&name);
        let target = to.join(&name);
        match kind {
            Some(Kind::Dir) => copy_tree(store, &source, &target)?,
            Some(Kind::File) => {
                let bytes = store.read(&source)?;
                let mut file = OpenOptions::new()
                    .write(true)
                    .create_new(true)
                    .open(&target)
                    .map_err(|error| LoadError::io(&target, error))?;
                file.write_all(&bytes)
                    .map_err(|error| LoadError::io(&target, error))?;
            }
            None => {
                return Err(LoadError::invalid(
                    &store.display(&source),
                    "committed trees hold only files and directories; describe other entries in `[tree]`",
                ))
            }
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn disk(dir: &Path) -> StoreDir {
        StoreDir {
            store: Store::Disk(dir.to_owned()),
            relative: PathBuf::new(),
        }
    }

    fn entry(path: &str, kind: EntryKind) -> TreeEntry {
        TreeEntry {
            repeat: None,
            path: path.to_owned(),
            kind,
            target: None,
            content: None,
            recipe: None,
        }
    }

    #[test]
    fn repeats_expand_numbered_and_bounded() {
        let toml = Path::new("case.toml");
        let repeated = |path: &str, repeat: usize| TreeEntry {
            repeat: Some(repeat),
            content: Some("x".to_owned()),
            ..entry(path, EntryKind::File)
        };
        let table = TreeTable {
            name: Some("t".to_owned()),
            entries: vec![entry("SKILL.md", EntryKind::File), repeated("r/f{n}.md", 3)],
            outside: Vec::new(),
        };
        let spec = table.into_spec(None, toml).expect("loads");
        // The spec keeps the description; the copies are built as they are listed.
        assert_eq!(spec.entries.len(), 2);
        let expanded: Vec<TreeEntry> = spec.expanded().map(Cow::into_owned).collect();
        let paths: Vec<&str> = expanded.iter().map(|e| e.path.as_str()).collect();
        assert_eq!(paths, ["SKILL.md", "r/f1.md", "r/f2.md", "r/f3.md"]);
        assert!(expanded.iter().all(|e| e.repeat.is_none()));
        for (bad, why) in [
            (repeated("r/f.md", 2), "no {n}"),
            (repeated("r/f{n}.md", 0), "zero"),
            (repeated("r/f{n}.md", MAX_DESCRIBED_ENTRIES + 1), "too many"),
        ] {
            assert!(check_repeats(&[bad], toml).is_err(), "{why}");
        }
        let recipe = TreeEntry {
            content: None,
            recipe: Some(Recipe {
                template: "t".to_owned(),
                placeholder: "@".to_owned(),
                unit: "x".to_owned(),
                count: Some(1),
                total_bytes: None,
                output: None,
            }),
            ..repeated("r/f{n}.md", 2)
        };
        assert!(check_repeats(&[recipe], toml).is_err(), "a repeated recipe");
    }

    #[test]
    fn unsafe_paths_are_refused() {
        for bad in ["", "/abs", "a/../b", "..", "./a", "a//b", "a/", "a\0b"] {
            assert!(check_relative_path(bad).is_none(), "{bad:?}");
        }
        assert_eq!(
            check_relative_path("a/b c/CON.txt"),
            Some(vec!["a", "b c", "CON.txt"])
        );
        let table = TreeTable {
            name: Some("bundle".to_owned()),
            entries: vec![entry("../escape", EntryKind::File)],
            outside: Vec::new(),
        };
        assert!(table.into_spec(None, Path::new("case.toml")).is_err());
        let table = TreeTable {
            name: Some("bundle".to_owned()),
            entries: Vec::new(),
            outside: vec![entry("bundle/x", EntryKind::File)],
        };
        assert!(table.into_spec(None, Path::new("case.toml")).is_err());
    }

    /// An entry below a symlink that leads out of the tree is refused, and nothing is
    /// written where the symlink points.
    #[cfg(unix)]
    #[test]
    fn never_writes_through_a_symlink() {
        let outside = tempfile::tempdir().unwrap();
        let sentinel = outside.path().join("sentinel.txt");
        std::fs::write(&sentinel, "untouched").unwrap();
        let case_dir = tempfile::tempdir().unwrap();
        let mut link = entry("link", EntryKind::Symlink);
        link.target = Some(outside.path().display().to_string());
        let mut through = entry("link/sentinel.txt", EntryKind::File);
        through.content = Some("overwritten".to_owned());
        let mut beside = entry("link/new.txt", EntryKind::File);
        beside.content = Some("planted".to_owned());
        for attempt in [through, beside] {
            let spec = TreeSpec {
                name: "bundle".to_owned(),
                base: None,
                entries: vec![link.clone(), attempt],
                outside: Vec::new(),
            };
            let into = tempfile::tempdir().unwrap();
            assert!(materialise(&disk(case_dir.path()), &spec, into.path()).is_err());
        }
        assert_eq!(std::fs::read_to_string(&sentinel).unwrap(), "untouched");
        assert_eq!(std::fs::read_dir(outside.path()).unwrap().count(), 1);
    }

    #[cfg(all(unix, not(target_vendor = "apple")))]
    #[test]
    fn materialises_every_kind() {
        let case_dir = tempfile::tempdir().unwrap();
        let mut file = entry("a/b/file.txt", EntryKind::File);
        file.content = Some("text\n".to_owned());
        let mut link = entry("a/link", EntryKind::Symlink);
        link.target = Some("../../decoy.txt".to_owned());
        let mut decoy = entry("decoy.txt", EntryKind::File);
        decoy.content = Some("outside\n".to_owned());
        let spec = TreeSpec {
            name: "bundle".to_owned(),
            base: None,
            entries: vec![
                file,
                link,
                entry("a/pipe", EntryKind::Fifo),
                entry("empty", EntryKind::Dir),
            ],
            outside: vec![decoy],
        };
        let tree = materialise_temp(&disk(case_dir.path()), &spec).unwrap();
        let root = tree.root.clone();
        assert_eq!(
            std::fs::read_to_string(root.join("a/b/file.txt")).unwrap(),
            "text\n"
        );
        let link = std::fs::symlink_metadata(root.join("a/link")).unwrap();
        assert!(link.file_type().is_symlink());
        use std::os::unix::fs::FileTypeExt as _;
        let pipe = std::fs::symlink_metadata(root.join("a/pipe")).unwrap();
        assert!(pipe.file_type().is_fifo());
        assert!(root.join("empty").is_dir());
        assert!(root.parent().unwrap().join("decoy.txt").is_file());
        drop(tree);
        assert!(!root.exists());
    }

    /// Issue 37, item 5: a small description cannot make a large tree. 10,000 copies of a
    /// 16 KiB content (a `case.toml` of 16 KiB) would be 160 MiB: the build stops at
    /// [`MAX_TREE_BYTES`], having written no more than that.
    #[test]
    fn a_tree_holds_at_most_its_byte_budget() {
        let case_dir = tempfile::tempdir().unwrap();
        let into = tempfile::tempdir().unwrap();
        let spec = TreeSpec {
            name: "bundle".to_owned(),
            base: None,
            entries: vec![TreeEntry {
                repeat: Some(10_000),
                content: Some("x".repeat(16 * 1024)),
                ..entry("r/f{n}.md", EntryKind::File)
            }],
            outside: Vec::new(),
        };
        let error = materialise(&disk(case_dir.path()), &spec, into.path()).unwrap_err();
        assert!(error.message.contains("more than"), "{error}");
        let written: u64 = std::fs::read_dir(into.path().join("bundle/r"))
            .unwrap()
            .map(|entry| entry.unwrap().metadata().unwrap().len())
            .sum();
        assert!(written <= MAX_TREE_BYTES as u64, "{written}");
        assert!(written + 16 * 1024 > MAX_TREE_BYTES as u64, "{written}");
    }
}
