//! Rebuilds the embedded corpus whenever anything under `cases/` changes (the
//! `include_dir!` macro cannot tell cargo which files it read, so this script watches the
//! directory, which cargo scans recursively), and computes the corpus content hash once, at
//! build time, so a binary can name its corpus without hashing 20 MB at start-up.
//!
//! The hash is the harness's `Corpus::content_hash`: SHA-256 over every file under
//! `cases/`, in path order, each as its `/`-separated relative path, a NUL byte, its length
//! as a little-endian u64 and its bytes. A test of this crate checks that both agree.

use std::path::{Path, PathBuf};

use sha2::{Digest, Sha256};

fn main() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../cases");
    println!("cargo:rerun-if-changed={}", root.display());
    let mut files = Vec::new();
    collect(&root, &root, &mut files);
    files.sort();
    let mut hasher = Sha256::new();
    for relative in files {
        let bytes = std::fs::read(root.join(&relative))
            .unwrap_or_else(|error| panic!("{}: {error}", relative.display()));
        let name: Vec<String> = relative
            .components()
            .map(|part| part.as_os_str().to_string_lossy().into_owned())
            .collect();
        hasher.update(name.join("/").as_bytes());
        hasher.update([0]);
        hasher.update((bytes.len() as u64).to_le_bytes());
        hasher.update(&bytes);
    }
    println!(
        "cargo:rustc-env=SOULCHECK_CORPUS_HASH=sha256:{:x}",
        hasher.finalize()
    );
}

/// Every regular file under `dir` (symlinks and other entries are not corpus files), as
/// paths relative to `root`.
fn collect(root: &Path, dir: &Path, files: &mut Vec<PathBuf>) {
    let entries =
        std::fs::read_dir(dir).unwrap_or_else(|error| panic!("{}: {error}", dir.display()));
    for entry in entries {
        let entry = entry.unwrap_or_else(|error| panic!("{}: {error}", dir.display()));
        let file_type = entry.file_type().expect("file type");
        if file_type.is_dir() {
            collect(root, &entry.path(), files);
        } else if file_type.is_file() {
            let path = entry.path();
            files.push(path.strip_prefix(root).expect("under the root").to_owned());
        }
    }
}
