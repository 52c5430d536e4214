//! `soulcheck cases export DIR`: writes the corpus as plain files plus JSON metadata, so an
//! implementer in any language can use it without this tool. Recipes are expanded.
//!
//! Tree inputs are materialised in place: symlinks are written as symlinks (never
//! followed), FIFOs as FIFOs, outside entries beside the root. `case.json` also carries
//! the tree description (`tree`), so a consumer on a system that cannot hold such
//! entries still knows what the tree was meant to contain. Exporting a case with a FIFO
//! fails where FIFOs cannot be made (see [`crate::tree`]).
//!
//! `case.json` carries the expectation of both profiles: the case's own (`verdict`,
//! `diagnostics`, and the `optional` diagnostics a validator may report or leave out)
//! and, where the case has one, the strict profile's (`strict`).

use std::path::Path;

use serde_json::json;

use crate::catalogue::Catalogue;
use crate::corpus::{Corpus, InputSource};
use crate::tree;
use crate::LoadError;

/// Bytes an export writes of inputs, in all: some twenty times this corpus's own (about
/// 230 MB), so a hostile corpus of many small cases whose recipes each expand to their cap
/// cannot fill a disk.
pub const MAX_EXPORT_BYTES: usize = 4 * 1024 * 1024 * 1024;

/// `written` plus `more`, or an error naming the case past [`MAX_EXPORT_BYTES`].
fn spend(written: usize, more: usize, case_dir: &Path) -> Result<usize, LoadError> {
    written
        .checked_add(more)
        .filter(|total| *total <= MAX_EXPORT_BYTES)
        .ok_or_else(|| {
            LoadError::invalid(
                case_dir,
                format!("the export's inputs would hold more than {MAX_EXPORT_BYTES} bytes"),
            )
        })
}

/// Writes every case of `corpus` (filter its `cases` to export some) to `dir/<format>/<case-id>/` (the input under its own name plus
/// `case.json`), each format's rules to `dir/<format>/rules.json`, and an index of all
/// cases to `dir/index.json`. `dir` must not exist yet or be empty, so an export never
/// overwrites anything, least of all the corpus itself.
pub fn export(corpus: &Corpus, catalogue: &Catalogue, dir: &Path) -> Result<usize, LoadError> {
    if dir.exists() {
        let mut entries = std::fs::read_dir(dir).map_err(|source| LoadError::io(dir, source))?;
        if entries.next().is_some() {
            return Err(LoadError::invalid(
                dir,
                "export directory must be empty or not exist",
            ));
        }
    }
    let mut index = Vec::new();
    // Bytes the cases' recipes and tree descriptions expand to, in all: each case is
    // bounded (a recipe 64 MiB, a tree 64 MiB), but a small corpus of many such cases is
    // not, so the export stops past MAX_EXPORT_BYTES.
    let mut written: usize = 0;
    for case in &corpus.cases {
        let case_dir = dir.join(case.format.name()).join(&case.id);
        std::fs::create_dir_all(&case_dir).map_err(|source| LoadError::io(&case_dir, source))?;
        match case.tree() {
            None => {
                // Confined to the case's directory, whatever name a corpus gave.
                let target = crate::files::confine(&case_dir, Path::new(case.input_name()))?;
                let bytes = case.input_bytes()?;
                written = spend(written, bytes.len(), &case_dir)?;
                std::fs::write(&target, bytes).map_err(|source| LoadError::io(&target, source))?;
            }
            Some(spec) => {
                let (_, bytes) = tree::materialise(&case.dir, &spec, &case_dir)?;
                written = spend(written, bytes, &case_dir)?;
            }
        }
        let mut metadata = json!({
            "id": case.id,
            "format": case.format,
            "operation": case.operation,
            "description": case.description,
            "rules": case.rules,
            "input": case.input_name(),
            "verdict": case.verdict,
            "diagnostics": case.diagnostics,
            "optional": case.optional,
            "verdict_only": case.verdict_only,
            "value": case.value,
            "other_values": case.other_values,
            "context": case.context,
            "deviations": case.deviations,
        });
        // Past one of the reference's own bounds the spec profile's reference declines to
        // judge: the export says so rather than the choice the strict profile takes over.
        if case.reference_not_judged {
            metadata["verdict"]["reference"] = json!("not-judged");
        }
        // The strict profile's own expectation, where the case has one; without it the
        // strict profile expects the spec profile's verdict, or the reference's choice
        // where that is implementation-defined.
        if let Some(strict) = &case.strict {
            metadata["strict"] = json!({
                "verdict": strict.verdict,
                "diagnostics": strict.diagnostics,
                "optional": strict.optional,
            });
        }
        if let InputSource::Tree(spec) = &case.input {
            metadata["tree"] = serde_json::to_value(spec).unwrap_or_default();
        }
        let target = case_dir.join("case.json");
        write_json(&target, &metadata)?;
        index.push(json!({
            "id": case.id,
            "format": case.format,
            "path": format!("{}/{}", case.format.name(), case.id),
            "verdict": case.verdict.name(),
        }));
    }
    for format in soulcheck_vocabulary::Format::ALL {
        let rules: Vec<_> = catalogue.rules_of(format).collect();
        // An export of some cases (`--case`, `--format`) holds the rules of their formats.
        if rules.is_empty() || !corpus.cases.iter().any(|case| case.format == format) {
            continue;
        }
        let target = dir.join(format.name()).join("rules.json");
        std::fs::create_dir_all(dir.join(format.name()))
            .map_err(|source| LoadError::io(dir, source))?;
        write_json(&target, &serde_json::to_value(rules).unwrap_or_default())?;
    }
    let count = index.len();
    write_json(
        &dir.join("index.json"),
        &json!({ "corpus_hash": corpus.content_hash()?, "cases": index }),
    )?;
    Ok(count)
}

fn write_json(path: &Path, value: &serde_json::Value) -> Result<(), LoadError> {
    let mut text = serde_json::to_string_pretty(value).unwrap_or_default();
    text.push('\n');
    std::fs::write(path, text).map_err(|source| LoadError::io(path, source))
}
