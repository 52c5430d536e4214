//! Validators behind a real process boundary, including deliberately broken ones: each is
//! judged correctly, no run hangs, and the corpus is never harmed.

mod common;

use std::path::{Path, PathBuf};
use std::time::Duration;

use soulcheck_harness::external::CommandValidator;
use soulcheck_harness::persistent::PersistentValidator;
use soulcheck_harness::process::Limits;
use soulcheck_harness::runner::{run_all, RunOptions};
use soulcheck_harness::sandbox::Sandbox;
use soulcheck_harness::{Catalogue, Corpus, Strictness, Validator};

fn fixture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures")
        .join(name)
}

/// Generous enough for a shell or Python to start on a loaded machine.
const LIMITS: Limits = Limits {
    timeout: Duration::from_secs(10),
    output_cap: 64 * 1024,
    startup: Duration::from_secs(10),
};

/// For validators that hang: the deadline is what is under test.
const SHORT: Limits = Limits {
    timeout: Duration::from_millis(500),
    output_cap: 64 * 1024,
    startup: Duration::from_secs(10),
};

/// Runs every case of the small corpus and returns the judgement names by case ID, after
/// checking the corpus is byte for byte what it was.
fn judge_all(validator: &dyn Validator) -> Vec<(String, String)> {
    let dir = tempfile::tempdir().expect("tempdir");
    common::good_corpus(dir.path());
    let catalogue = Catalogue::load(dir.path()).expect("catalogue");
    let corpus = Corpus::load(dir.path()).expect("corpus");
    let before = corpus.content_hash().expect("hash");
    let cases: Vec<_> = corpus.cases.iter().collect();
    let options = RunOptions {
        jobs: 2,
        ..RunOptions::default()
    };
    let results = run_all(
        validator,
        &cases,
        &catalogue,
        Strictness::Conformance,
        &options,
    );
    assert_eq!(
        corpus.content_hash().expect("hash"),
        before,
        "the corpus changed"
    );
    results
        .into_iter()
        .map(|result| {
            (
                cases[result.index].id.clone(),
                result.judgement.name().to_owned(),
            )
        })
        .collect()
}

fn per_case(script: &str, suffix: &str) -> CommandValidator {
    let command = format!("{} {suffix}", fixture(script).display());
    CommandValidator::new(&command, LIMITS, None).expect("command")
}

fn results_of(pairs: &[(String, String)], id: &str) -> String {
    pairs
        .iter()
        .find(|(case, _)| case == id)
        .map(|(_, result)| result.clone())
        .unwrap_or_default()
}

#[test]
fn accepting_everything_fails_the_reject_cases() {
    let results = judge_all(&per_case("accept-all.sh", "{path}"));
    assert_eq!(results_of(&results, "name-ok"), "pass");
    assert_eq!(results_of(&results, "name-long"), "wrong-verdict");
    // Implementation-defined: accepting is allowed.
    assert_eq!(results_of(&results, "bom"), "pass");
}

#[test]
fn a_hanging_validator_times_out_and_its_children_die() {
    let pids = tempfile::NamedTempFile::new().expect("pid file");
    let command = format!(
        "env SOULCHECK_TEST_PIDS={} {} {{path}}",
        pids.path().display(),
        fixture("hang.sh").display()
    );
    // The sandbox would keep the fixture from writing its pids outside its directory.
    let validator = CommandValidator::new(&command, LIMITS, None)
        .expect("command")
        .with_sandbox(Sandbox::off());
    let results = judge_all(&validator);
    assert!(
        results.iter().all(|(_, result)| result == "timeout"),
        "{results:?}"
    );
    let text = std::fs::read_to_string(pids.path()).expect("pids");
    let children: Vec<i32> = text
        .lines()
        .filter_map(|line| line.trim().parse().ok())
        .collect();
    assert_eq!(children.len(), results.len());
    // Give init a moment to reap the killed children, then none may be left.
    std::thread::sleep(Duration::from_millis(200));
    for pid in children {
        let alive = std::fs::read_to_string(format!("/proc/{pid}/stat"))
            .map(|stat| !stat.contains(") Z "))
            .unwrap_or(false);
        assert!(!alive, "child {pid} of a timed-out validator survived");
    }
}

#[test]
fn a_crash_is_never_a_rejection() {
    for script in ["crash.sh", "exit-3.sh"] {
        let results = judge_all(&per_case(script, "{path}"));
        assert!(
            results.iter().all(|(_, result)| result == "crash"),
            "{script}: {results:?}"
        );
    }
}

#[test]
fn deleting_the_input_harms_only_the_copy() {
    // `judge_all` checks the corpus hash after the run.
    let results = judge_all(&per_case("delete-input.sh", "{path}"));
    assert_eq!(results_of(&results, "name-long"), "pass");
}

#[test]
fn floods_are_capped_and_judged() {
    let results = judge_all(&per_case("flood.sh", "{path}"));
    assert_eq!(results_of(&results, "name-long"), "pass");
}

#[test]
fn a_verdict_contradicting_the_exit_code_is_a_protocol_error() {
    let results = judge_all(&per_case("liar.sh", "{path}"));
    assert!(
        results.iter().all(|(_, result)| result == "protocol-error"),
        "{results:?}"
    );
}

#[test]
fn stdin_mode_sends_the_document() {
    // `accept-all.sh` ignores stdin; the point is that the run completes without `{path}`.
    let results = judge_all(&per_case("accept-all.sh", ""));
    assert_eq!(results_of(&results, "name-ok"), "pass");
}

#[test]
fn persistent_protocol_errors_and_timeouts() {
    let liar =
        PersistentValidator::start(&fixture("persistent-liar.py").display().to_string(), LIMITS)
            .expect("start");
    assert_eq!(liar.implementation().name, "liar");
    let results = judge_all(&liar);
    assert!(
        results.iter().all(|(_, result)| result == "protocol-error"),
        "{results:?}"
    );

    let hang =
        PersistentValidator::start(&fixture("persistent-hang.py").display().to_string(), LIMITS)
            .expect("start");
    let results = judge_all(&hang);
    assert!(
        results.iter().all(|(_, result)| result == "timeout"),
        "{results:?}"
    );
}

#[test]
fn a_validator_that_never_greets_does_not_start() {
    let quick_start = Limits {
        startup: Duration::from_millis(500),
        ..SHORT
    };
    let error =
        PersistentValidator::start(&fixture("hang.sh").display().to_string(), quick_start).err();
    assert!(error.is_some_and(|error| error.to_string().contains("did not start")));
}
