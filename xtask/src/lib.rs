//! xtask: the repository's generated files, built in memory and compared with, or
//! written over, what is committed.
//!
//! Two things are generated. The case families: every case described in
//! `xtask/families/<format>/*.toml` (see [`family`]) gets its input and its `case.toml`
//! under `cases/<format>/<id>/`; the generator owns exactly those cases and never
//! touches another. And the formats table of README.md, between its markers (see
//! [`readme`]). `cargo xtask generate` writes both; `cargo xtask check` and the
//! `regenerate` test list what is stale.

pub mod case_file;
pub mod corpus_power;
pub mod doc_commands;
pub mod document;
pub mod edit;
pub mod family;
pub mod fuzz_implementations;
pub mod implementations;
pub mod independent;
pub mod readme;

use std::collections::{BTreeMap, BTreeSet};
use std::fmt;
use std::fs;
use std::path::{Path, PathBuf};

use family::GeneratedCase;

/// The repository root: the parent of this crate's directory.
pub fn repository_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("xtask lives in a directory of the repository")
        .to_owned()
}

/// Everything the generator owns, built in memory.
#[derive(Debug)]
pub struct Generation {
    /// The generated cases.
    pub cases: Vec<GeneratedCase>,
    /// The whole of README.md with its formats table regenerated, or why the corpus
    /// could not be counted (a broken `case.toml`, which `generate` may be about to
    /// repair).
    pub readme: Result<Vec<u8>, String>,
}

/// How a file on disk differs from its generated version.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Problem {
    /// The generated file does not exist on disk.
    Missing(PathBuf),
    /// The file on disk has other bytes.
    Differs(PathBuf),
    /// A file or directory in a generated case's directory that the generator does not
    /// write.
    Unexpected(PathBuf),
    /// A file that cannot be generated from the checkout as it is, and why.
    Unbuildable(PathBuf, String),
}

impl fmt::Display for Problem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Problem::Missing(path) => write!(f, "missing:    {}", path.display()),
            Problem::Differs(path) => write!(f, "differs:    {}", path.display()),
            Problem::Unexpected(path) => write!(f, "unexpected: {}", path.display()),
            Problem::Unbuildable(path, reason) => {
                write!(f, "unbuildable: {} ({reason})", path.display())
            }
        }
    }
}

/// Builds every generated file of the repository at `root`, without writing anything.
pub fn generate(root: &Path) -> Result<Generation, String> {
    let cases = family::generate_all(&root.join("xtask").join("families"))?;
    let cases_dir = root.join("cases");
    let retired = fs::read_to_string(cases_dir.join("retired.toml")).unwrap_or_default();
    let retired: BTreeSet<String> = toml::from_str::<toml::Table>(&retired)
        .ok()
        .and_then(|table| table.get("ids").cloned())
        .and_then(|ids| ids.try_into().ok())
        .unwrap_or_default();
    for case in &cases {
        if retired.contains(&case.id) {
            return Err(format!(
                "{}: case `{}` is retired (cases/retired.toml); an ID is never reused",
                case.source.display(),
                case.id
            ));
        }
        if !cases_dir.join(&case.format).join("rules.toml").is_file() {
            return Err(format!(
                "{}: no format `{}` under cases/",
                case.source.display(),
                case.format
            ));
        }
    }
    let readme = readme_for(root, &cases);
    Ok(Generation { cases, readme })
}

/// README.md with its table counting the corpus on disk plus the generated cases, so a
/// generated case not written yet is counted already.
fn readme_for(root: &Path, cases: &[GeneratedCase]) -> Result<Vec<u8>, String> {
    let mut generated: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for case in cases {
        generated
            .entry(case.format.clone())
            .or_default()
            .insert(case.id.clone());
    }
    let table = readme::table(&root.join("cases"), &generated)?;
    let readme_path = root.join("README.md");
    let current = fs::read_to_string(&readme_path)
        .map_err(|error| format!("{}: {error}", readme_path.display()))?;
    Ok(readme::with_table(&current, &table)?.into_bytes())
}

impl Generation {
    /// Every generated file: its path relative to the repository root and its bytes
    /// (README.md only when it could be built).
    pub fn files(&self) -> Vec<(PathBuf, &[u8])> {
        let mut files: Vec<(PathBuf, &[u8])> = Vec::new();
        if let Ok(readme) = &self.readme {
            files.push((PathBuf::from("README.md"), readme));
        }
        for case in &self.cases {
            for (name, bytes) in &case.files {
                files.push((case_dir(case).join(name), bytes));
            }
        }
        files
    }

    /// Compares the generated files with the repository at `root`.
    pub fn problems(&self, root: &Path) -> Result<Vec<Problem>, String> {
        let mut problems = Vec::new();
        if let Err(reason) = &self.readme {
            problems.push(Problem::Unbuildable(
                PathBuf::from("README.md"),
                reason.clone(),
            ));
        }
        for (path, bytes) in self.files() {
            match fs::read(root.join(&path)) {
                Ok(on_disk) if on_disk == bytes => {}
                Ok(_) => problems.push(Problem::Differs(path)),
                Err(error) if error.kind() == std::io::ErrorKind::NotFound => {
                    problems.push(Problem::Missing(path))
                }
                Err(error) => return Err(format!("{}: {error}", path.display())),
            }
        }
        for (dir, _) in self.unexpected(root)? {
            problems.push(Problem::Unexpected(dir));
        }
        Ok(problems)
    }

    /// Entries of generated case directories that the generator does not write, with
    /// whether each is a directory.
    fn unexpected(&self, root: &Path) -> Result<Vec<(PathBuf, bool)>, String> {
        let mut found = Vec::new();
        for case in &self.cases {
            let dir = case_dir(case);
            let entries = match fs::read_dir(root.join(&dir)) {
                Ok(entries) => entries,
                Err(error) if error.kind() == std::io::ErrorKind::NotFound => continue,
                Err(error) => return Err(format!("{}: {error}", dir.display())),
            };
            for entry in entries {
                let entry = entry.map_err(|error| format!("{}: {error}", dir.display()))?;
                let name = entry.file_name();
                if !case.files.iter().any(|(file, _)| name == file.as_str()) {
                    let is_dir = entry.file_type().is_ok_and(|kind| kind.is_dir());
                    found.push((dir.join(name), is_dir));
                }
            }
        }
        Ok(found)
    }

    /// Writes every generated file that differs from the repository at `root` and removes
    /// unexpected entries of generated case directories; returns what it changed. The
    /// cases come first and README.md last, counted from the corpus just written, so a
    /// broken generated `case.toml` is repaired rather than blocking the count.
    pub fn write(&self, root: &Path) -> Result<Vec<Problem>, String> {
        let mut changed: Vec<Problem> = self
            .problems(root)?
            .into_iter()
            .filter(|problem| !matches!(problem, Problem::Unbuildable(..)))
            .collect();
        let unexpected = self.unexpected(root)?;
        for case in &self.cases {
            for (name, bytes) in &case.files {
                write_if_changed(root, &case_dir(case).join(name), bytes)?;
            }
        }
        for (path, is_dir) in unexpected {
            let full = root.join(&path);
            let removed = if is_dir {
                fs::remove_dir_all(&full)
            } else {
                fs::remove_file(&full)
            };
            removed.map_err(|error| format!("{}: {error}", path.display()))?;
        }
        let readme = readme_for(root, &self.cases)?;
        let readme_path = PathBuf::from("README.md");
        if write_if_changed(root, &readme_path, &readme)?
            && !changed.contains(&Problem::Differs(readme_path.clone()))
        {
            changed.push(Problem::Differs(readme_path));
        }
        Ok(changed)
    }
}

/// Writes `bytes` to `path` (relative to `root`) unless it already holds them; returns
/// whether it wrote.
fn write_if_changed(root: &Path, path: &Path, bytes: &[u8]) -> Result<bool, String> {
    let full = root.join(path);
    if fs::read(&full).ok().as_deref() == Some(bytes) {
        return Ok(false);
    }
    if let Some(parent) = full.parent() {
        fs::create_dir_all(parent).map_err(|error| format!("{}: {error}", parent.display()))?;
    }
    fs::write(&full, bytes).map_err(|error| format!("{}: {error}", path.display()))?;
    Ok(true)
}

fn case_dir(case: &GeneratedCase) -> PathBuf {
    Path::new("cases").join(&case.format).join(&case.id)
}
