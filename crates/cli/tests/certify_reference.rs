//! Certifies the reference implementation through a real process boundary, in both modes
//! of the validator protocol: per case (`soulcheck check ... --json`) and persistent
//! (`soulcheck serve`), and in both profiles (`spec` and `strict`). Every case must pass
//! with reference strictness, diagnostics exactly, so nothing is lost or changed on the way
//! through the protocol; and every format and operation must come out certified.

use std::path::Path;
use std::time::Duration;

use soulcheck_harness::external::CommandValidator;
use soulcheck_harness::persistent::PersistentValidator;
use soulcheck_harness::process::Limits;
use soulcheck_harness::report::certificate;
use soulcheck_harness::runner::{run_all, RunOptions};
use soulcheck_harness::{Catalogue, Corpus, Profile, Strictness, Validator};

const LIMITS: Limits = Limits {
    timeout: Duration::from_secs(20),
    output_cap: 16 * 1024 * 1024,
    startup: Duration::from_secs(30),
};

fn certify(validator: &dyn Validator) {
    for profile in [Profile::Spec, Profile::Strict] {
        certify_in(validator, profile);
    }
}

fn certify_in(validator: &dyn Validator, profile: Profile) {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../cases");
    let corpus = Corpus::load(&root).expect("corpus");
    let catalogue = Catalogue::load(&root).expect("catalogue");
    let cases: Vec<_> = corpus.cases.iter().collect();
    let options = RunOptions {
        jobs: 2,
        profile,
        ..RunOptions::default()
    };
    let results = run_all(
        validator,
        &cases,
        &catalogue,
        Strictness::Reference,
        &options,
    );
    let failures: Vec<String> = results
        .iter()
        .filter(|result| !result.judgement.is_pass())
        .map(|result| format!("{}: {}", result.name, result.judgement.explain()))
        .collect();
    assert!(
        failures.is_empty(),
        "{profile}: {} of {} cases failed:\n{}",
        failures.len(),
        results.len(),
        failures.join("\n")
    );
    let certificates = certificate::issue(
        &cases,
        &results,
        &catalogue,
        &validator.implementation(),
        "sha256:test",
        profile,
        &certificate::Scope::whole(&cases),
    );
    for certificate in &certificates {
        assert!(certificate.certified, "{profile}: {}", certificate.line());
        // The reference reports every diagnostic.
        if certificate.operation == "validate" {
            assert_eq!(
                certificate.diagnostics.partial + certificate.diagnostics.wrong,
                0,
                "{profile}: {}",
                certificate.line()
            );
        }
    }
}

#[test]
fn per_case_mode() {
    let command = format!(
        "{} check {{path}} --format {{format}} --operation {{operation}} --context-json {{context}} --json",
        env!("CARGO_BIN_EXE_soulcheck")
    );
    certify(&CommandValidator::new(&command, LIMITS, None).expect("command"));
}

#[test]
fn persistent_mode() {
    let command = format!("{} serve", env!("CARGO_BIN_EXE_soulcheck"));
    let validator = PersistentValidator::start(&command, LIMITS).expect("start");
    assert_eq!(validator.implementation().name, "soulcheck reference");
    certify(&validator);
}
