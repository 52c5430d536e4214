//! Harness throughput (issue 9): the whole corpus run against the in-process reference with
//! `runner::run_all`, and a small subset run three ways, so the cost of the process
//! boundary is visible in one run: in process, per case through the external protocol
//! (`CommandValidator`, one `soulcheck check` process per case; spawning dominates) and
//! through the persistent protocol (`soulcheck serve`).
//!
//! One worker (`jobs = 1`) throughout, so the numbers do not depend on how many of the
//! machine's cores other work leaves free. The corpus is loaded once, before timing;
//! reading each case's input (and building recipe inputs) is part of a run, as it is in
//! `soulcheck run`.
//!
//! A third group times what a user waits for with one case in mind, as whole processes:
//! `soulcheck run --case <one case>` against `soulcheck check` of the same input. A run
//! selects before it loads (only the formats its filters name are parsed and
//! self-checked), so one case costs about a case, not the corpus; the target is a ratio
//! of at most 10.
//!
//! Run `cargo bench --bench corpus`; the ratio table is printed at the end.

// The ratio table is shared with the reference's benches in `benches`.
#[path = "../../../benches/benches/support/mod.rs"]
mod support;

use std::collections::BTreeMap;
use std::hint::black_box;
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, SystemTime};

use criterion::{SamplingMode, Throughput};
use soulcheck::Reference;
use soulcheck_harness::external::CommandValidator;
use soulcheck_harness::persistent::PersistentValidator;
use soulcheck_harness::process::Limits;
use soulcheck_harness::runner::{run_all, RunOptions};
use soulcheck_harness::{Case, Catalogue, Corpus, Strictness, Validator};

use support::Ratio;

/// Cases per format in the subset run through the process boundary.
const SUBSET_PER_FORMAT: usize = 4;

const LIMITS: Limits = Limits {
    timeout: Duration::from_secs(20),
    output_cap: 16 * 1024 * 1024,
    startup: Duration::from_secs(30),
};

/// Runs `cases` once and returns how many passed.
fn run(validator: &dyn Validator, cases: &[&Case], catalogue: &Catalogue) -> usize {
    let options = RunOptions {
        jobs: 1,
        ..RunOptions::default()
    };
    run_all(validator, cases, catalogue, Strictness::Reference, &options)
        .iter()
        .filter(|result| result.judgement.is_pass())
        .count()
}

fn main() {
    let started = SystemTime::now() - Duration::from_secs(1);
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../cases");
    let corpus = Corpus::load(&root).expect("the corpus loads");
    let catalogue = Catalogue::load(&root).expect("the catalogue loads");
    let all: Vec<&Case> = corpus.cases.iter().collect();

    // The first cases of every format, in corpus order.
    let mut per_format: BTreeMap<&str, usize> = BTreeMap::new();
    let subset: Vec<&Case> = corpus
        .cases
        .iter()
        .filter(|case| {
            let seen = per_format.entry(case.format.name()).or_default();
            *seen += 1;
            *seen <= SUBSET_PER_FORMAT
        })
        .collect();

    let command = format!(
        "{} check {{path}} --format {{format}} --operation {{operation}} --context-json {{context}} --json",
        env!("CARGO_BIN_EXE_soulcheck")
    );
    let external = CommandValidator::new(&command, LIMITS, None).expect("the command parses");
    let persistent = PersistentValidator::start(
        &format!("{} serve", env!("CARGO_BIN_EXE_soulcheck")),
        LIMITS,
    )
    .expect("the reference serves");

    // Every mode must pass every case, or the timings compare different work.
    assert_eq!(
        run(&Reference, &all, &catalogue),
        all.len(),
        "the reference passes the corpus"
    );
    for (name, validator) in [
        ("external", &external as &dyn Validator),
        ("persistent", &persistent),
    ] {
        assert_eq!(
            run(validator, &subset, &catalogue),
            subset.len(),
            "{name} passes the subset"
        );
    }

    let mut criterion = support::criterion();
    let mut group = criterion.benchmark_group("harness-corpus");
    group.throughput(Throughput::Elements(all.len() as u64));
    group.sampling_mode(SamplingMode::Flat).sample_size(10);
    group.bench_function("in-process", |b| {
        b.iter(|| black_box(run(&Reference, &all, &catalogue)))
    });
    group.finish();

    let mut group = criterion.benchmark_group("harness-subset");
    group.throughput(Throughput::Elements(subset.len() as u64));
    group.sampling_mode(SamplingMode::Flat).sample_size(10);
    group.bench_function("in-process", |b| {
        b.iter(|| black_box(run(&Reference, &subset, &catalogue)))
    });
    group.bench_function("per-case-external", |b| {
        b.iter(|| black_box(run(&external, &subset, &catalogue)))
    });
    group.bench_function("persistent", |b| {
        b.iter(|| black_box(run(&persistent, &subset, &catalogue)))
    });
    group.finish();

    // One case, as a user runs it: the whole process each time.
    let one = "name-length-81";
    let input = root.join("soul-kit").join(one).join("input.soulkit.json");
    let soulcheck = |args: &[&str]| {
        Command::new(env!("CARGO_BIN_EXE_soulcheck"))
            .args(args)
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .status()
            .expect("soulcheck starts")
            .code()
    };
    let case = format!("soul-kit/{one}");
    let input = input.to_str().expect("a UTF-8 path");
    let run_one = ["run", "--quiet", "--case", case.as_str()];
    let check_one = ["check", "--format", "soul-kit", input];
    // The run passes its case (exit 0); the check rejects the input (exit 1): both did
    // their work, so the timings compare that work.
    assert_eq!(soulcheck(&run_one), Some(0), "the one-case run passes");
    assert_eq!(
        soulcheck(&check_one),
        Some(1),
        "the check rejects the input"
    );
    let mut group = criterion.benchmark_group("one-case");
    group.sampling_mode(SamplingMode::Flat).sample_size(20);
    group.bench_function("run-case", |b| b.iter(|| black_box(soulcheck(&run_one))));
    group.bench_function("check", |b| b.iter(|| black_box(soulcheck(&check_one))));
    group.finish();

    criterion.final_summary();
    println!(
        "\nharness-corpus: {} cases; harness-subset: {} cases ({SUBSET_PER_FORMAT} per format)",
        all.len(),
        subset.len()
    );
    support::print_ratios(
        "Harness ratios",
        &[
            Ratio::within(
                "subset: per-case external / in-process",
                "harness-subset",
                "per-case-external",
                "in-process",
            ),
            Ratio::within(
                "subset: persistent / in-process",
                "harness-subset",
                "persistent",
                "in-process",
            ),
            Ratio::within(
                "subset: per-case external / persistent",
                "harness-subset",
                "per-case-external",
                "persistent",
            ),
            Ratio::within(
                "one case: `run --case` / `check` of its input (target: at most 10)",
                "one-case",
                "run-case",
                "check",
            ),
        ],
        started,
    );
}
