//! Certification a maintainer can trust: reporting diagnostics never makes it harder (the
//! verdict decides, diagnostics get a grade beside it), a runtime's uncaught error is a
//! crash even on exit 1, what a validator printed is kept, a setup mistake is caught
//! before any case runs, and a validator with one answer for everything is called out.
//! Each behaviour is tested with a fixture validator on the committed test corpus
//! (`tests/corpus`), whose inputs carry the answers they deserve.

use std::path::{Path, PathBuf};
use std::time::Duration;

use soulcheck_harness::crash::CrashPatterns;
use soulcheck_harness::expectations::Expectations;
use soulcheck_harness::external::{CommandValidator, Mapping};
use soulcheck_harness::process::Limits;
use soulcheck_harness::report::{certificate, jsonl, warnings, Summary};
use soulcheck_harness::runner::{run_all, CaseResult, Grade, RunOptions};
use soulcheck_harness::{
    Case, Catalogue, Corpus, Implementation, Profile, SetupError, Strictness, Validator,
};

const LIMITS: Limits = Limits {
    timeout: Duration::from_secs(20),
    output_cap: 64 * 1024,
    startup: Duration::from_secs(20),
};

fn fixture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures")
        .join(name)
}

fn corpus() -> (Corpus, Catalogue) {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/corpus");
    (
        Corpus::load(&root).expect("corpus"),
        Catalogue::load(&root).expect("catalogue"),
    )
}

fn run(validator: &dyn Validator, corpus: &Corpus, catalogue: &Catalogue) -> Vec<CaseResult> {
    let cases: Vec<&Case> = corpus.cases.iter().collect();
    let options = RunOptions {
        jobs: 2,
        ..RunOptions::default()
    };
    run_all(
        validator,
        &cases,
        catalogue,
        Strictness::Conformance,
        &options,
    )
}

fn command(text: &str) -> CommandValidator {
    CommandValidator::new(text, LIMITS, None).expect("command")
}

fn by_id<'r>(corpus: &Corpus, results: &'r [CaseResult], id: &str) -> &'r CaseResult {
    results
        .iter()
        .find(|result| corpus.cases[result.index].id == id)
        .expect("case in results")
}

fn certificates(
    corpus: &Corpus,
    catalogue: &Catalogue,
    results: &[CaseResult],
) -> Vec<certificate::Certificate> {
    let cases: Vec<&Case> = corpus.cases.iter().collect();
    certificate::issue(
        &cases,
        results,
        catalogue,
        &Implementation::default(),
        "sha256:test",
        Profile::Spec,
        &certificate::Scope::whole(&cases),
    )
}

#[test]
fn reporting_diagnostics_never_makes_certification_harder() {
    let (corpus, catalogue) = corpus();
    let reporter = fixture("reporter.py").display().to_string();
    // (mode, grade of the one-diagnostic case, of the two-diagnostic case, of the case
    // expecting a should-level warning)
    let expected = [
        ("silent", Grade::None, Grade::None, Grade::None),
        ("empty", Grade::None, Grade::None, Grade::None),
        ("first", Grade::Exact, Grade::Partial, Grade::Exact),
        ("full", Grade::Exact, Grade::Exact, Grade::Exact),
    ];
    for (mode, one, two, warning) in expected {
        let results = run(
            &command(&format!("{reporter} {mode} {{path}}")),
            &corpus,
            &catalogue,
        );
        for result in &results {
            assert!(
                result.judgement.is_pass(),
                "{mode}: {} {}",
                result.name,
                result.judgement.explain()
            );
            // A passing case with acceptable diagnostics keeps no evidence.
            assert!(result.evidence.is_none(), "{mode}: {}", result.name);
        }
        assert_eq!(
            by_id(&corpus, &results, "name-long").diagnostics.grade,
            one,
            "{mode}"
        );
        assert_eq!(
            by_id(&corpus, &results, "two-names").diagnostics.grade,
            two,
            "{mode}"
        );
        assert_eq!(
            by_id(&corpus, &results, "no-description").diagnostics.grade,
            warning,
            "{mode}"
        );
        let certificates = certificates(&corpus, &catalogue, &results);
        assert_eq!(certificates.len(), 1);
        assert!(
            certificates[0].certified,
            "{mode}: {:?}",
            certificates[0].reasons
        );
        let overall = match mode {
            "first" => Grade::Partial,
            "full" => Grade::Exact,
            _ => Grade::None,
        };
        assert_eq!(certificates[0].diagnostics_grade, overall, "{mode}");
        // The accept cases and the must-level rejections decide; the may-level,
        // implementation-defined BOM case does not.
        assert_eq!(certificates[0].deciding.accept_cases, 2);
        assert_eq!(certificates[0].deciding.must_cases, 2);
    }
}

#[test]
fn a_traceback_on_exit_1_is_a_crash_not_a_rejection() {
    let (corpus, catalogue) = corpus();
    let crasher = format!("{} {{path}}", fixture("python-crash.py").display());
    let results = run(&command(&crasher), &corpus, &catalogue);
    for result in &results {
        assert_eq!(result.judgement.name(), "crash", "{}", result.name);
        let evidence = result.evidence.as_ref().expect("evidence");
        let found = evidence.crash_match.as_ref().expect("crash match");
        assert_eq!(found.pattern, "python traceback");
        assert_eq!(found.line, "Traceback (most recent call last):");
        assert!(evidence.stderr.text.contains("UnicodeDecodeError"));
        assert!(evidence.stdout.text.starts_with("checking "));
        // The message names the matched line and the error itself.
        assert!(
            result.judgement.explain().contains("UnicodeDecodeError"),
            "{}",
            result.judgement.explain()
        );
    }
    assert!(!certificates(&corpus, &catalogue, &results)[0].certified);

    // Without the built-in patterns the exit code alone decides (and the reject cases
    // "pass", which is why the patterns are on by default).
    let exit_codes_only = command(&crasher).with_crash_patterns(CrashPatterns::none());
    let results = run(&exit_codes_only, &corpus, &catalogue);
    assert_eq!(
        by_id(&corpus, &results, "name-long").judgement.name(),
        "pass"
    );

    // A mapping file can turn the built-in patterns off and add its own.
    let dir = tempfile::tempdir().expect("tempdir");
    let path = dir.path().join("mapping.toml");
    std::fs::write(
        &path,
        "[crash]\ndefaults = false\npatterns = ['^checking ']\n",
    )
    .expect("write");
    let mapping = Mapping::load(&path).expect("mapping");
    let mapped = CommandValidator::new(&crasher, LIMITS, Some(mapping)).expect("command");
    let results = run(&mapped, &corpus, &catalogue);
    let result = by_id(&corpus, &results, "name-long");
    assert_eq!(result.judgement.name(), "pass", "stdout is not stderr");
    std::fs::write(&path, "[crash]\npatterns = ['(']\n").expect("write");
    assert!(
        Mapping::load(&path).is_err(),
        "a bad pattern fails the load"
    );
}

#[test]
fn evidence_is_kept_capped_and_marked_truncated() {
    let (corpus, catalogue) = corpus();
    // Floods stdout with 20 MB and rejects: the accept cases fail.
    let results = run(
        &command(&format!("{} {{path}}", fixture("flood.sh").display())),
        &corpus,
        &catalogue,
    );
    let failed = by_id(&corpus, &results, "name-ok");
    assert_eq!(failed.judgement.name(), "wrong-verdict");
    let evidence = failed.evidence.as_ref().expect("evidence");
    assert_eq!(evidence.cap_bytes, 8 * 1024);
    assert_eq!(evidence.stdout.text.len(), 8 * 1024);
    assert!(evidence.stdout.truncated);
    assert_eq!(evidence.exit, "exit code 1");

    // The record carries the evidence, both grades and the case's known deviations.
    let wrong = run(&command("true {path}"), &corpus, &catalogue);
    let case = corpus
        .cases
        .iter()
        .find(|c| c.id == "name-long")
        .expect("case");
    let result = by_id(&corpus, &wrong, "name-long");
    let record = jsonl::Record::new(case, result, Profile::Spec);
    assert_eq!(record.result, "wrong-verdict");
    assert_eq!(record.diagnostics.grade, Grade::None);
    assert_eq!(
        record.deviations,
        ["acme-soul 1.x accepts names of any length"]
    );
    assert!(record.evidence.is_some());
    let line = serde_json::to_string(&record).expect("json");
    assert!(line.contains("\"evidence\""), "{line}");
    // And the bootstrapped expectations say it too.
    let cases: Vec<&Case> = corpus.cases.iter().collect();
    let written = Expectations::render_from(&cases, &wrong);
    assert!(
        written.contains("known deviation: acme-soul 1.x accepts names of any length"),
        "{written}"
    );
}

#[test]
fn setup_mistakes_fail_before_any_case_runs() {
    let missing = CommandValidator::new("./no-such-validator {path}", LIMITS, None);
    assert!(
        matches!(missing, Err(SetupError::ProgramNotFound { .. })),
        "{missing:?}"
    );
    let missing = CommandValidator::new("no-such-validator-on-path {path}", LIMITS, None);
    assert!(matches!(missing, Err(SetupError::ProgramNotFound { .. })));
    let dir = tempfile::tempdir().expect("tempdir");
    let plain = dir.path().join("plain.sh");
    std::fs::write(&plain, "#!/bin/sh\nexit 0\n").expect("write");
    let error = CommandValidator::new(&format!("{} {{path}}", plain.display()), LIMITS, None)
        .expect_err("not executable");
    assert!(matches!(error, SetupError::NotExecutable { .. }));
    assert!(error.to_string().contains("chmod +x"), "{error}");
    assert!(matches!(
        CommandValidator::new("  ", LIMITS, None),
        Err(SetupError::EmptyCommand)
    ));
    assert!(matches!(
        CommandValidator::new("'unclosed {path}", LIMITS, None),
        Err(SetupError::Unsplittable { .. })
    ));
    // A relative program is found from the caller's directory (tests run in the crate's
    // directory), not from the case's temporary directory.
    let (corpus, catalogue) = corpus();
    let relative = command("tests/fixtures/accept-all.sh {path}");
    let results = run(&relative, &corpus, &catalogue);
    assert_eq!(by_id(&corpus, &results, "name-ok").judgement.name(), "pass");
}

#[test]
fn one_answer_for_everything_is_called_out() {
    let (corpus, catalogue) = corpus();
    let cases: Vec<&Case> = corpus.cases.iter().collect();
    let accept_all = command(&format!("{} {{path}}", fixture("accept-all.sh").display()));
    let results = run(&accept_all, &corpus, &catalogue);
    let found = warnings(&cases, &results);
    assert_eq!(found.len(), 1, "{found:?}");
    assert!(found[0].contains("accepted every one of the 5 validation cases"));
    let text = Summary::new(&cases, &results).render(
        &cases,
        &results,
        &catalogue,
        &certificates(&corpus, &catalogue, &results),
        &Default::default(),
    );
    assert!(
        text.contains("warning: the validator accepted every one"),
        "{text}"
    );
    assert!(
        text.contains("soul-kit: not certified (2 of 2 accept and 0 of 2 other must-level validation cases passed"),
        "{text}"
    );
    assert!(text.contains("next steps: "), "{text}");

    let reporter = format!("{} full {{path}}", fixture("reporter.py").display());
    let results = run(&command(&reporter), &corpus, &catalogue);
    assert!(warnings(&cases, &results).is_empty());
}

#[test]
fn each_operation_is_certified_on_its_own() {
    let (mut corpus, catalogue) = corpus();
    // Make two of the must-level cases fingerprint cases: they are certified apart, and a
    // run of the validation cases alone certifies validation.
    for case in corpus
        .cases
        .iter_mut()
        .filter(|case| case.id.starts_with("name-"))
    {
        case.operation = "fingerprint".to_owned();
    }
    let results = run(
        &command(&format!(
            "{} full {{path}}",
            fixture("reporter.py").display()
        )),
        &corpus,
        &catalogue,
    );
    let certificates = certificates(&corpus, &catalogue, &results);
    let subjects: Vec<String> = certificates.iter().map(|c| c.subject()).collect();
    assert_eq!(subjects, ["soul-kit", "soul-kit fingerprint"]);
    assert_eq!(certificates[0].deciding.cases(), 2);
    assert_eq!(certificates[1].deciding.cases(), 2);
    assert_eq!(certificates[1].file_name(), "soul-kit.fingerprint.json");
    assert!(certificates[0].certified);
}

#[test]
fn long_failure_lists_are_grouped_and_capped() {
    let (corpus, catalogue) = corpus();
    let cases: Vec<&Case> = corpus.cases.iter().collect();
    let crasher = format!("{} {{path}}", fixture("python-crash.py").display());
    let results = run(&command(&crasher), &corpus, &catalogue);
    let context = soulcheck_harness::report::Context {
        command: Some(crasher.clone()),
        max_lines: 10,
        report_dir: Some(PathBuf::from("report")),
        ..Default::default()
    };
    let text = Summary::new(&cases, &results).render(&cases, &results, &catalogue, &[], &context);
    assert!(text.contains("failures (5), by kind and rule:"), "{text}");
    assert!(
        text.contains("crash in soul-kit.name.length (4 cases)"),
        "{text}"
    );
    assert!(
        text.contains("stderr: Traceback (most recent call last):"),
        "{text}"
    );
    assert!(
        text.contains("reproduce: soulcheck cases export --case soul-kit/"),
        "{text}"
    );
    assert!(
        text.contains("more lines not shown: see report/report.jsonl"),
        "{text}"
    );
    let listed = text
        .lines()
        .take_while(|line| !line.contains("more lines not shown"))
        .count();
    assert_eq!(listed, 11, "{text}");
    assert!(text.contains("next steps: fix the 5 crashes"), "{text}");
}

#[test]
fn persistent_mode_keeps_the_reply_as_evidence() {
    let (corpus, catalogue) = corpus();
    let liar = soulcheck_harness::persistent::PersistentValidator::start(
        &fixture("persistent-liar.py").display().to_string(),
        LIMITS,
    )
    .expect("start");
    let results = run(&liar, &corpus, &catalogue);
    let result = by_id(&corpus, &results, "name-long");
    assert_eq!(result.judgement.name(), "protocol-error");
    let evidence = result.evidence.as_ref().expect("evidence");
    assert!(evidence.stdout.text.contains("\"seq\""), "{evidence:?}");
    assert_eq!(evidence.exit, "broke the protocol");
    // A persistent validator that does not exist is a setup error too.
    assert!(matches!(
        soulcheck_harness::persistent::PersistentValidator::start("./no-such-server", LIMITS),
        Err(SetupError::ProgramNotFound { .. })
    ));
}

/// An in-process validator that answers each case as the case expects (its verdict, its
/// diagnostics), except where told otherwise.
struct AsExpected {
    answers: std::collections::BTreeMap<String, soulcheck_harness::Observation>,
}

impl AsExpected {
    fn new(corpus: &Corpus) -> AsExpected {
        let answers = corpus
            .cases
            .iter()
            .map(|case| {
                let expectation = case.expectation(Profile::Spec);
                let diagnostics = expectation
                    .diagnostics
                    .iter()
                    .map(|expected| soulcheck_harness::Diagnostic {
                        rule: expected.rule.clone(),
                        severity: expected.severity,
                        location: Some(expected.location.clone()),
                        message: String::new(),
                    })
                    .collect();
                let answer = soulcheck_harness::Observation {
                    verdict: expectation.verdict.reference_verdict(),
                    diagnostics: Some(diagnostics),
                    value: None,
                };
                (case.id.clone(), answer)
            })
            .collect();
        AsExpected { answers }
    }

    fn answer_to(&mut self, id: &str) -> &mut soulcheck_harness::Observation {
        self.answers.get_mut(id).expect("a case of the test corpus")
    }
}

impl Validator for AsExpected {
    fn implementation(&self) -> Implementation {
        Implementation::default()
    }

    fn run(&self, request: &soulcheck_harness::Request<'_>) -> soulcheck_harness::Outcome {
        soulcheck_harness::Outcome::Observed(self.answers[request.case_id].clone())
    }
}

/// Certified means right on every document the spec decides: rejecting a document the
/// spec allows refuses the certificate even when the case was written for a should-level
/// rule. And the warnings line judges only cases whose warnings are compared: a validator
/// that differs from the case only on a verdict-only case's warnings still warns as the
/// spec says.
#[test]
fn a_definite_acceptance_decides_at_any_level_and_verdict_only_warnings_never_count() {
    let (mut corpus, catalogue) = corpus();
    // `no-description` now exercises the should-level rule alone: under a must-only
    // policy it would decide nothing.
    let case = corpus
        .cases
        .iter_mut()
        .find(|case| case.id == "no-description")
        .expect("case");
    case.rules = vec!["soul-kit.description.recommended".to_owned()];

    let faithful = AsExpected::new(&corpus);
    let certificate = &certificates(&corpus, &catalogue, &run(&faithful, &corpus, &catalogue))[0];
    assert!(certificate.certified, "{:?}", certificate.reasons);
    assert_eq!(certificate.deciding.accept_cases, 2);
    assert!(
        certificate.warnings.as_specified(),
        "{}",
        certificate.warnings.describe()
    );

    let mut rejecting = AsExpected::new(&corpus);
    rejecting.answer_to("no-description").verdict = soulcheck_harness::Verdict::Reject;
    let certificate = &certificates(&corpus, &catalogue, &run(&rejecting, &corpus, &catalogue))[0];
    assert!(!certificate.certified);
    assert_eq!(
        certificate.reasons,
        ["soul-kit/no-description wrong-verdict"]
    );
    assert!(
        certificate
            .line()
            .contains("not certified (1 of 2 accept and 2 of 2 other must-level"),
        "{}",
        certificate.line()
    );

    // A warning where `name-ok` expects none: counted against the warnings line when the
    // case compares diagnostics, left out when the case is judged on its verdict alone.
    let mut warning = AsExpected::new(&corpus);
    warning
        .answer_to("name-ok")
        .diagnostics
        .get_or_insert_with(Vec::new)
        .push(soulcheck_harness::Diagnostic {
            rule: "soul-kit.description.recommended".to_owned(),
            severity: soulcheck_harness::Severity::Warning,
            location: None,
            message: String::new(),
        });
    let certificate = &certificates(&corpus, &catalogue, &run(&warning, &corpus, &catalogue))[0];
    assert!(certificate.certified);
    assert!(
        certificate
            .line()
            .contains("does not warn as the spec says (warned on 1 of 1 cases that expect a warning, and on 1 of 1 that expect none)"),
        "{}",
        certificate.line()
    );
    corpus
        .cases
        .iter_mut()
        .find(|case| case.id == "name-ok")
        .expect("case")
        .verdict_only = true;
    let certificate = &certificates(&corpus, &catalogue, &run(&warning, &corpus, &catalogue))[0];
    assert!(certificate.certified);
    assert!(
        certificate
            .line()
            .contains("warns as the spec says (warned on 1 of 1 cases that expect a warning, and on 0 of 0 that expect none; 1 verdict-only case not judged)"),
        "{}",
        certificate.line()
    );
}
