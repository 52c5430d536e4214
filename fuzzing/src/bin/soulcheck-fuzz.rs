//! `soulcheck-fuzz`: the stable-toolchain side of fuzzing, used by the scripts in `fuzz/`.
//!
//! - `soulcheck-fuzz targets`: the targets, one per line (name, format, input kind);
//! - `soulcheck-fuzz seed DIR`: writes every corpus input into `DIR/<target>/` for each
//!   target that takes documents of its format (the seed corpus of a campaign);
//! - `soulcheck-fuzz replay TARGET FILE...`: runs inputs (e.g. crash artifacts) through a
//!   target with every invariant, without libFuzzer; exit 1 when one breaks;
//! - `soulcheck-fuzz render TARGET FILE`: writes the document a target checks for an input
//!   to standard output (for a structured target, the generated document; otherwise the
//!   input itself), and what the generator predicted to standard error.

use std::path::Path;
use std::process::ExitCode;

use soulcheck_fuzzing::seeds;
use soulcheck_fuzzing::{Meter, Outcome, StatsAlloc, Target, INSTRUMENTED_SYSTEM};

#[global_allocator]
static ALLOCATOR: &StatsAlloc<std::alloc::System> = &INSTRUMENTED_SYSTEM;

/// Seeds larger than this stay out of campaign folders: libFuzzer sizes its inputs after
/// the largest seed, and the size limits have cases and invariants of their own.
const MAX_SEED_BYTES: usize = 64 * 1024;

const USAGE: &str = "usage: soulcheck-fuzz targets | seed DIR | replay TARGET FILE... | render TARGET FILE";

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let result = match args.iter().map(String::as_str).collect::<Vec<_>>().as_slice() {
        ["targets"] => {
            for target in Target::ALL {
                let format = target.format().map_or("json", |format| format.name());
                let kind = if target.takes_documents() {
                    "documents"
                } else {
                    "generator choices"
                };
                println!("{}\t{format}\t{kind}", target.name());
            }
            Ok(true)
        }
        ["seed", dir] => seed(Path::new(dir)),
        ["replay", target, files @ ..] if !files.is_empty() => {
            target_named(target).and_then(|target| replay(target, files))
        }
        ["render", target, file] => target_named(target).and_then(|target| render(target, file)),
        _ => Err(USAGE.to_owned()),
    };
    match result {
        Ok(true) => ExitCode::SUCCESS,
        Ok(false) => ExitCode::from(1),
        Err(message) => {
            eprintln!("soulcheck-fuzz: {message}");
            ExitCode::from(2)
        }
    }
}

fn target_named(name: &str) -> Result<Target, String> {
    Target::from_name(name).ok_or_else(|| format!("unknown target `{name}` (see `soulcheck-fuzz targets`)"))
}

fn seed(dir: &Path) -> Result<bool, String> {
    let corpus = seeds::corpus_seeds(&seeds::workspace())?;
    let mut written = 0usize;
    for &target in Target::ALL {
        let folder = dir.join(target.name());
        std::fs::create_dir_all(&folder).map_err(|error| format!("{}: {error}", folder.display()))?;
        for seed in corpus.get(&target).into_iter().flatten() {
            if seed.bytes.len() > MAX_SEED_BYTES {
                continue;
            }
            let path = folder.join(seed.name.replace('/', "-"));
            std::fs::write(&path, &seed.bytes).map_err(|error| format!("{}: {error}", path.display()))?;
            written += 1;
        }
    }
    eprintln!("wrote {written} seeds under {}", dir.display());
    Ok(true)
}

fn replay(target: Target, files: &[&str]) -> Result<bool, String> {
    let meter = Meter::installed();
    let mut clean = true;
    for file in files {
        let data = std::fs::read(file).map_err(|error| format!("{file}: {error}"))?;
        match soulcheck_fuzzing::run(target, &data, Some(&meter)) {
            Ok(Outcome::Checked) => println!("{file}: ok"),
            Ok(Outcome::Unusable) => println!("{file}: unusable by the generator"),
            Err(violation) => {
                println!("{file}: {violation}");
                clean = false;
            }
        }
    }
    Ok(clean)
}

fn render(target: Target, file: &str) -> Result<bool, String> {
    use std::io::Write;
    let data = std::fs::read(file).map_err(|error| format!("{file}: {error}"))?;
    let generated = soulcheck_fuzzing::document(target, &data)
        .ok_or_else(|| format!("{file}: the generator cannot use this input"))?;
    eprintln!("generated: {}", generated.summary);
    if let Some(expected) = &generated.expected {
        let list: Vec<String> = expected.iter().map(ToString::to_string).collect();
        eprintln!("generator predicts: [{}]", list.join("; "));
    }
    std::io::stdout()
        .write_all(&generated.bytes)
        .map_err(|error| error.to_string())?;
    Ok(true)
}
