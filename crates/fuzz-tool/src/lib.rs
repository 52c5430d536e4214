//! soulcheck-fuzz-tool: the corpus side of fuzzing, kept apart from `soulcheck-fuzzing` so
//! that the cargo-fuzz build never compiles the harness. It turns corpus inputs into seeds
//! ([`corpus_seeds`]) for the `soulcheck-fuzz` command and for the stable seeded run
//! (`tests/seeded.rs`).

use std::collections::BTreeMap;

use soulcheck_fuzzing::seeds::Seed;
use soulcheck_fuzzing::Target;
use soulcheck_harness::runner::prepare_input;
use soulcheck_harness::{Corpus, Input};

/// The corpus this tool was built with.
pub fn corpus() -> Result<Corpus, String> {
    Corpus::embedded(&soulcheck_corpus::CASES).map_err(|error| error.to_string())
}

/// Every document input of the corpus, as seeds of each target that takes documents of
/// its format; the JSON reader takes every JSON document. Directory cases have no
/// document and give no seed.
pub fn corpus_seeds(corpus: &Corpus) -> BTreeMap<Target, Vec<Seed>> {
    let mut seeds: BTreeMap<Target, Vec<Seed>> = BTreeMap::new();
    for case in &corpus.cases {
        let Ok(prepared) = prepare_input(case) else {
            continue;
        };
        // A directory case seeds the targets of its head or manifest file.
        let (name, bytes) = match prepared.input() {
            Input::Document { file_name, bytes } => (file_name.clone(), bytes.clone()),
            Input::Tree { root } => {
                let Some((name, bytes)) = ["manifest.json", "SKILL.md"].iter().find_map(|name| {
                    let path = root.join(name);
                    let metadata = std::fs::symlink_metadata(&path).ok()?;
                    if !metadata.is_file() {
                        return None;
                    }
                    std::fs::read(&path)
                        .ok()
                        .map(|bytes| ((*name).to_owned(), bytes))
                }) else {
                    continue;
                };
                (name, bytes)
            }
            _ => continue,
        };
        for &target in Target::ALL {
            if target.seeded_by(case.format, &name) {
                seeds.entry(target).or_default().push(Seed {
                    name: case.name(),
                    bytes: bytes.clone(),
                });
            }
        }
    }
    seeds
}
