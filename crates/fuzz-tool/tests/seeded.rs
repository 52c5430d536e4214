//! The stable, seeded run of every fuzz target: part of plain `cargo test`, so the fuzz
//! logic cannot rot between campaigns.
//!
//! One trial per target (`fuzz/<target>`) runs every corpus seed of the target, an
//! oversized variant of each JSON format's seeds, and a bounded number of pseudo-random
//! inputs (mutants of the seeds for document targets, random bytes for structured ones)
//! through [`soulcheck_fuzzing::run`], which checks every invariant. The inputs depend on
//! a fixed seed only, so a failure reproduces anywhere; `SOULCHECK_FUZZ_ITERATIONS` and
//! `SOULCHECK_FUZZ_SEED` change how many and which.
//!
//! This binary installs the counting allocator, and trials run on one thread so that its
//! process-wide count measures one check at a time.

use std::collections::BTreeMap;
use std::sync::Arc;

use libtest_mimic::{Arguments, Failed, Trial};
use soulcheck_fuzzing::seeds::{self, Seed, SplitMix};
use soulcheck_fuzzing::{Meter, Outcome, StatsAlloc, Target, INSTRUMENTED_SYSTEM};

#[global_allocator]
static ALLOCATOR: &StatsAlloc<std::alloc::System> = &INSTRUMENTED_SYSTEM;

/// Pseudo-random inputs per target when `SOULCHECK_FUZZ_ITERATIONS` is not set.
const DEFAULT_ITERATIONS: usize = 250;

/// The seed of the pseudo-random inputs when `SOULCHECK_FUZZ_SEED` is not set.
const DEFAULT_SEED: u64 = 0x5001_c4ec;

fn setting(name: &str, default: u64) -> u64 {
    std::env::var(name)
        .ok()
        .and_then(|value| value.parse().ok())
        .unwrap_or(default)
}

fn main() {
    let mut args = Arguments::from_args();
    args.test_threads = Some(1);
    let corpus = match soulcheck_fuzz_tool::corpus() {
        Ok(corpus) => Arc::new(soulcheck_fuzz_tool::corpus_seeds(&corpus)),
        Err(error) => {
            let trial = Trial::test("fuzz/corpus", move || Err(error.into()));
            libtest_mimic::run(&args, vec![trial]).exit();
        }
    };
    let iterations = usize::try_from(setting(
        "SOULCHECK_FUZZ_ITERATIONS",
        DEFAULT_ITERATIONS as u64,
    ))
    .unwrap_or(DEFAULT_ITERATIONS);
    let seed = setting("SOULCHECK_FUZZ_SEED", DEFAULT_SEED);
    let mut trials = vec![Trial::test("fuzz/dictionaries", dictionaries)];
    for &target in Target::ALL {
        let corpus = Arc::clone(&corpus);
        trials.push(Trial::test(format!("fuzz/{}", target.name()), move || {
            seeded(target, &corpus, iterations, seed)
        }));
    }
    for &target in Target::ALL {
        if let Some(format) = target.format().filter(|_| is_generator(target)) {
            trials.push(Trial::test(
                format!("generators/{format}/accepted-share"),
                move || accepted_share(target),
            ));
        }
    }
    libtest_mimic::run(&args, trials).exit();
}

/// Whether a target builds its documents with a structure-aware generator (the ones
/// `soulcheck fuzz` uses), rather than taking raw bytes.
fn is_generator(target: Target) -> bool {
    matches!(
        target,
        Target::SoulKitStructured
            | Target::SoulacyPackageStructured
            | Target::SoulacySidecarStructured
            | Target::SoulMdStructured
            | Target::SkillPackageStructured
            | Target::ComposeBundleTree
    )
}

/// Generated documents measured per generator.
const SHARE_SAMPLE: usize = 600;

/// The least share of generated documents the reference must accept: below it, a
/// generator spends most campaigns on the first checks a reader makes and never reaches
/// the rules behind them.
const LEAST_ACCEPTED: f64 = 1.0 / 3.0;

/// A generator reaches valid documents: of [`SHARE_SAMPLE`] inputs shaped as a campaign's
/// (1 to 4,096 random bytes), at least [`LEAST_ACCEPTED`] of the documents it builds are
/// accepted by the reference in the spec profile.
fn accepted_share(target: Target) -> Result<(), Failed> {
    let mut random = SplitMix::new(DEFAULT_SEED ^ 0xacce);
    let (mut built, mut accepted) = (0usize, 0usize);
    for _ in 0..SHARE_SAMPLE {
        let length = 1 + random.below(4096);
        let data: Vec<u8> = (0..length).map(|_| random.next_u64() as u8).collect();
        match soulcheck_fuzzing::verdict(target, &data) {
            Some(soulcheck_reference::Verdict::Accept) => {
                built += 1;
                accepted += 1;
            }
            Some(_) => built += 1,
            None => {}
        }
    }
    let share = accepted as f64 / built.max(1) as f64;
    println!(
        "{}: {accepted} of {built} generated documents accepted ({:.0}%)",
        target.name(),
        share * 100.0
    );
    if built < SHARE_SAMPLE / 2 || share < LEAST_ACCEPTED {
        return Err(format!(
            "{}: the reference accepts {accepted} of {built} generated documents ({:.0}%; at least {:.0}% of at least {} wanted)",
            target.name(),
            share * 100.0,
            LEAST_ACCEPTED * 100.0,
            SHARE_SAMPLE / 2
        )
        .into());
    }
    Ok(())
}

/// Every target has a dictionary, and it parses.
fn dictionaries() -> Result<(), Failed> {
    let root = seeds::workspace();
    let mut problems = Vec::new();
    for &target in Target::ALL {
        let path = seeds::dictionary_path(&root, target);
        match std::fs::read_to_string(&path) {
            Ok(text) => match seeds::parse_dictionary(&text) {
                Ok(tokens) if tokens.is_empty() => {
                    problems.push(format!("{}: no tokens", path.display()))
                }
                Ok(_) => {}
                Err(error) => problems.push(format!("{}: {error}", path.display())),
            },
            Err(error) => problems.push(format!("{}: {error}", path.display())),
        }
    }
    if problems.is_empty() {
        Ok(())
    } else {
        Err(problems.join("\n").into())
    }
}

fn seeded(
    target: Target,
    corpus: &BTreeMap<Target, Vec<Seed>>,
    iterations: usize,
    seed: u64,
) -> Result<(), Failed> {
    let meter = Meter::installed();
    let root = seeds::workspace();
    let dictionary = std::fs::read_to_string(seeds::dictionary_path(&root, target))
        .ok()
        .and_then(|text| seeds::parse_dictionary(&text).ok())
        .unwrap_or_default();
    let empty = Vec::new();
    let seeds = corpus.get(&target).unwrap_or(&empty);
    let fail = |what: &str, data: &[u8], error: soulcheck_fuzzing::Violation| -> Failed {
        format!(
            "{}: {what}: {error}\ninput ({} bytes): {:?}",
            target.name(),
            data.len(),
            String::from_utf8_lossy(&data[..data.len().min(2000)])
        )
        .into()
    };
    for seed in seeds {
        soulcheck_fuzzing::run(target, &seed.bytes, Some(&meter))
            .map_err(|error| fail(&seed.name, &seed.bytes, error))?;
    }
    // Each JSON format's seeds padded one byte past its limit: refused unread.
    if let Some(limit) = target.size_limit().map(|limit| limit.max_bytes) {
        for seed in seeds
            .iter()
            .filter(|seed| seed.bytes.len() <= limit)
            .take(3)
        {
            let mut data = seed.bytes.clone();
            data.resize(limit + 1, b' ');
            soulcheck_fuzzing::run(target, &data, Some(&meter))
                .map_err(|error| fail(&format!("{} padded", seed.name), &data, error))?;
        }
    }
    // Worst-case shapes, large enough for a quadratic cost to break the allocation bound.
    if target.takes_documents() {
        let mut broken = Vec::new();
        for shape in seeds::adversarial(24 * 1024) {
            if let Err(error) = soulcheck_fuzzing::run(target, &shape.bytes, Some(&meter)) {
                broken.push(format!("{}: {error}", shape.name));
            }
        }
        if !broken.is_empty() {
            return Err(format!("{}:\n{}", target.name(), broken.join("\n")).into());
        }
    }
    let mut random = SplitMix::new(seed ^ target.name().len() as u64);
    let mut used = 0usize;
    for index in 0..iterations {
        let data = if target.takes_documents() && !seeds.is_empty() {
            let parent = &seeds[random.below(seeds.len())].bytes;
            seeds::mutate(&mut random, parent, &dictionary)
        } else {
            let length = random.below(4096);
            random.bytes(length)
        };
        let outcome = soulcheck_fuzzing::run(target, &data, Some(&meter))
            .map_err(|error| fail(&format!("seeded input {index}"), &data, error))?;
        used += usize::from(outcome == Outcome::Checked);
    }
    if iterations > 0 && used == 0 {
        return Err(format!("{}: no seeded input was usable", target.name()).into());
    }
    Ok(())
}
