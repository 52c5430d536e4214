//! The structure-aware generators of `soulcheck-fuzzing` as a source of inputs for
//! differential fuzzing (`soulcheck_harness::differential`): from fuzz bytes, a document
//! that is valid by construction with at most one targeted mutation (or a few untargeted
//! ones), as each format's `*_structured` fuzz target builds it; for `compose-bundle`, a
//! whole bundle tree whose `manifest.json` is the document shrinking edits.
//!
//! `soulcheck fuzz` and a Rust implementer's cargo-fuzz target
//! (`examples/differential-fuzz/`) share it, so a finding of one reproduces in the other
//! from the same fuzz bytes.

use std::path::Path;

use soulcheck_fuzzing::generate::bundle::{self, Entry};
use soulcheck_fuzzing::Target;
use soulcheck_harness::differential::campaign::{Prepared, Sample, Source};
use soulcheck_harness::scratch;
use soulcheck_vocabulary::Format;

/// The directory a generated bundle tree is written to, inside its temporary directory
/// and inside a draft case.
pub const TREE_DIR: &str = "bundle";

/// Generated inputs of one format.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Generator {
    target: Target,
    format: Format,
}

impl Generator {
    /// The generator of `format`'s documents (its structure-aware fuzz target's), if the
    /// format has one.
    pub fn new(format: Format) -> Option<Generator> {
        let target = match format {
            Format::SoulKit => Target::SoulKitStructured,
            Format::SoulacyPackage => Target::SoulacyPackageStructured,
            Format::SoulacySidecar => Target::SoulacySidecarStructured,
            Format::SoulMd => Target::SoulMdStructured,
            Format::SkillPackage => Target::SkillPackageStructured,
            Format::ComposeBundle => Target::ComposeBundleTree,
            _ => return None,
        };
        Some(Generator { target, format })
    }

    /// The fuzz target whose generator this is.
    pub fn target(&self) -> Target {
        self.target
    }

    /// Whether inputs are directory trees (a validator needs `{path}` to get them).
    pub fn is_tree(&self) -> bool {
        self.target.is_tree()
    }

    /// The file name a document is checked under (`manifest.json` for a bundle).
    pub fn file_name(&self) -> &'static str {
        self.target.file_name()
    }

    /// The tree `data` builds, with `document` as its manifest (when the manifest is a
    /// file at all).
    fn entries(&self, data: &[u8], document: &[u8]) -> Vec<Entry> {
        let Some((_, mut entries)) = soulcheck_fuzzing::tree(self.target, data) else {
            return Vec::new();
        };
        for entry in &mut entries {
            if let Entry::File { path, bytes } = entry {
                if path == "manifest.json" {
                    *bytes = document.to_vec();
                }
            }
        }
        entries
    }
}

impl Source for Generator {
    fn format(&self) -> Format {
        self.format
    }

    fn document(&self, data: &[u8]) -> Option<Sample> {
        let generated = soulcheck_fuzzing::document(self.target, data)?;
        // The rules the mutation targets: what the generator predicts in the spec profile,
        // then what a strict-only rule adds.
        let mut targets: Vec<String> = Vec::new();
        let predicted = generated.expected.iter().flatten();
        for expected in predicted.chain(&generated.strict_only) {
            if !targets.contains(&expected.rule) {
                targets.push(expected.rule.clone());
            }
        }
        Some(Sample {
            open: self.open_points(&generated.bytes),
            document: generated.bytes,
            summary: generated.summary,
            targets,
        })
    }

    fn prepare(&self, data: &[u8], document: &[u8]) -> std::io::Result<Prepared> {
        if !self.is_tree() {
            return Ok(Prepared::document(self.file_name(), document));
        }
        // Beneath the run's scratch directory, so an interrupted campaign leaves nothing.
        let dir = scratch::case_dir("fuzz-tree-")?;
        let root = dir.path().join(TREE_DIR);
        std::fs::create_dir(&root)?;
        bundle::write(&root, &self.entries(data, document));
        Ok(Prepared::tree(dir, root))
    }

    fn open_points(&self, document: &[u8]) -> Vec<String> {
        soulcheck_fuzzing::open::open_points(self.format, document)
            .into_iter()
            .map(str::to_owned)
            .collect()
    }

    fn write(&self, dir: &Path, data: &[u8], document: &[u8]) -> std::io::Result<String> {
        if !self.is_tree() {
            std::fs::write(dir.join(self.file_name()), document)?;
            return Ok(self.file_name().to_owned());
        }
        let root = dir.join(TREE_DIR);
        if root.exists() {
            std::fs::remove_dir_all(&root)?;
        }
        std::fs::create_dir(&root)?;
        bundle::write(&root, &self.entries(data, document));
        Ok(TREE_DIR.to_owned())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_format_with_documents_has_a_generator() {
        for format in Format::ALL {
            let generator = Generator::new(format).expect("a generator");
            assert_eq!(generator.format(), format);
            assert_eq!(generator.target().format(), Some(format));
        }
    }

    #[test]
    fn a_tree_is_written_with_the_shrunk_manifest() {
        let generator = Generator::new(Format::ComposeBundle).expect("bundles");
        let data = [0u8; 64];
        let sample = generator.document(&data).expect("a bundle");
        assert!(!sample.document.is_empty());
        let prepared = generator.prepare(&data, b"{}").expect("prepared");
        let soulcheck_harness::Input::Tree { root } = prepared.input() else {
            panic!("a tree");
        };
        assert_eq!(std::fs::read(root.join("manifest.json")).unwrap(), b"{}");
        assert!(root.join("trace.json").is_file());
        let out = tempfile::tempdir().unwrap();
        let name = generator.write(out.path(), &data, b"{}").unwrap();
        assert_eq!(
            std::fs::read(out.path().join(name).join("manifest.json")).unwrap(),
            b"{}"
        );
    }
}
