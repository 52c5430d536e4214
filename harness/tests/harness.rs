//! Tests of the harness machinery on small corpora built in temporary directories: the
//! self-check must catch each kind of corpus defect, recipes must build exact sizes, and
//! the judge must tell reference strictness from conformance.

mod common;

use std::path::Path;

use common::{good_corpus, write};

use soulcheck_harness::runner::{assess, judge, Grade};
use soulcheck_harness::{
    selfcheck, Catalogue, Corpus, Diagnostic, Implementation, Location, Observation, Outcome,
    Profile, Request, Severity, Strictness, Validator, Verdict,
};

fn problems(root: &Path) -> Vec<String> {
    let catalogue = Catalogue::load(root).expect("catalogue");
    let corpus = Corpus::load(root).expect("corpus");
    selfcheck::check(&corpus, &catalogue)
        .iter()
        .map(ToString::to_string)
        .collect()
}

#[test]
fn a_good_corpus_passes_the_self_check() {
    let dir = tempfile::tempdir().expect("tempdir");
    good_corpus(dir.path());
    assert_eq!(problems(dir.path()), Vec::<String>::new());
}

/// Issue 37, item 5: a corpus's TOML files have a cap of their own (1 MiB), checked on
/// the opened file: a 2 MiB `case.toml` or `rules.toml` is refused before it is parsed
/// (a 60 MB `case.toml` took 3.2 GB to load), with the file named.
#[test]
fn an_oversized_corpus_toml_is_refused_unparsed() {
    let padding = format!("# {}\n", "x".repeat(2 * 1024 * 1024));
    for (file, base) in [
        (
            "soul-kit/name-ok/case.toml",
            "description = \"x\"\nrules = [\"soul-kit.name.length\"]\nverdict = \"accept\"\ninput = \"input.soulkit.json\"\n",
        ),
        (
            "soul-kit/rules.toml",
            "format = \"soul-kit\"\nspec = \"Soul Kit\"\n",
        ),
    ] {
        let dir = tempfile::tempdir().expect("tempdir");
        good_corpus(dir.path());
        write(dir.path(), file, &format!("{base}{padding}"));
        let error = if file.ends_with("rules.toml") {
            Catalogue::load(dir.path()).map(|_| ()).expect_err("refused")
        } else {
            Corpus::load(dir.path()).map(|_| ()).expect_err("refused")
        };
        assert!(error.path.ends_with(file), "{error}");
        assert!(
            error.message.contains("more than the 1048576 bytes"),
            "{error}"
        );
    }
}

#[test]
fn the_self_check_catches_each_defect() {
    let defects: &[(&str, &str, &str)] = &[
        (
            "soul-kit/name-ok/case.toml",
            "description = \"x\"\nrules = [\"soul-kit.nope\"]\nverdict = \"accept\"\ninput = \"input.soulkit.json\"\n",
            "unknown rule ID",
        ),
        (
            "soul-kit/name-ok/case.toml",
            "description = \"x\"\nrules = [\"soul-kit.name.length\"]\nverdict = \"reject\"\ninput = \"input.soulkit.json\"\n",
            "does not agree with the expected diagnostics",
        ),
        ("soul-kit/name-ok/input.soulkit.json", "{}", "no final newline"),
        ("soul-kit/name-ok/input.soulkit.json", "{}\r\n", "carriage return"),
        (
            "soul-kit/name-long/case.toml",
            "description = \"x\"\nrules = [\"soul-kit.name.length\"]\nverdict = \"accept\"\ninput = \"input.soulkit.json\"\n",
            "breaks this rule",
        ),
        // A definite verdict resting on a decision of the suite (the BOM rule's basis is
        // `suite`) could fail a validator for something the spec does not say.
        (
            "soul-kit/bom/case.toml",
            "description = \"leading BOM\"\nrules = [\"soul-kit.json.bom\"]\nverdict = \"reject\"\ninput = \"input.soulkit.json\"\n\n[[diagnostic]]\nrule = \"soul-kit.json.bom\"\nline = 1\ncolumn = 1\n",
            "the definite verdict rests on `soul-kit.json.bom`, which is a decision of this suite",
        ),
        (
            "soul-kit/bom/case.toml",
            "description = \"leading BOM\"\nrules = [\"soul-kit.json.bom\"]\nverdict = \"accept\"\ninput = \"input.soulkit.json\"\n",
            "the definite verdict rests on `soul-kit.json.bom`",
        ),
        (
            "soul-kit/bom/case.toml",
            "description = \"leading BOM\"\nrules = [\"soul-kit.json.bom\"]\nverdict = \"implementation-defined\"\nreference = \"reject\"\ninput = \"input.soulkit.json\"\n\n[[diagnostic]]\nrule = \"soul-kit.json.bom\"\nline = 1\ncolumn = 1\n\n[strict]\nverdict = \"reject\"\n",
            "[strict]: verdict reject does not agree",
        ),
    ];
    for (path, text, expected) in defects {
        let dir = tempfile::tempdir().expect("tempdir");
        good_corpus(dir.path());
        write(dir.path(), path, text);
        let found = problems(dir.path());
        assert!(
            found.iter().any(|problem| problem.contains(expected)),
            "{expected:?} not in {found:#?}"
        );
    }
}

#[test]
fn retired_and_duplicate_ids_are_refused() {
    let dir = tempfile::tempdir().expect("tempdir");
    good_corpus(dir.path());
    write(dir.path(), "retired.toml", "ids = [\"name-ok\"]\n");
    write(dir.path(), "soul-md/name-long/case.toml", "description = \"x\"\nrules = [\"soul-kit.name.length\"]\nverdict = \"accept\"\ninput = \"SOUL.md\"\n");
    write(dir.path(), "soul-md/name-long/SOUL.md", "# x\n");
    let found = problems(dir.path()).join("\n");
    assert!(found.contains("retired"), "{found}");
    assert!(found.contains("also used by"), "{found}");
    assert!(
        found.contains("belongs to soul-kit, not soul-md"),
        "{found}"
    );
}

#[test]
fn malformed_metadata_fails_to_load() {
    for text in [
        "description = \"x\"\nrules = []\nverdict = \"maybe\"\ninput = \"input.soulkit.json\"\n",
        "description = \"x\"\nrules = []\nverdict = \"accept\"\n",
        "description = \"x\"\nrules = []\nverdict = \"accept\"\ninput = \"input.soulkit.json\"\nsurprise = 1\n",
        "description = \"x\"\nrules = []\nverdict = \"implementation-defined\"\ninput = \"input.soulkit.json\"\n",
        "description = \"x\"\nrules = []\nverdict = \"accept\"\ninput = \"../../etc/passwd\"\n",
    ] {
        let dir = tempfile::tempdir().expect("tempdir");
        good_corpus(dir.path());
        write(dir.path(), "soul-kit/name-ok/case.toml", text);
        assert!(Corpus::load(dir.path()).is_err(), "loaded: {text}");
    }
}

#[test]
fn recipes_build_exact_sizes() {
    let dir = tempfile::tempdir().expect("tempdir");
    good_corpus(dir.path());
    write(
        dir.path(),
        "soul-kit/big/template.soulkit.json",
        "{\"name\": \"@@FILL@@\"}\n",
    );
    write(
        dir.path(),
        "soul-kit/big/case.toml",
        "description = \"big\"\nrules = [\"soul-kit.name.length\"]\nverdict = \"accept\"\n\n[recipe]\ntemplate = \"template.soulkit.json\"\nplaceholder = \"@@FILL@@\"\nunit = \"é\"\ntotal_bytes = 1001\noutput = \"input.soulkit.json\"\n",
    );
    let corpus = Corpus::load(dir.path()).expect("corpus");
    let case = corpus
        .cases
        .iter()
        .find(|case| case.id == "big")
        .expect("case");
    let bytes = case.input_bytes().expect("bytes");
    assert_eq!(bytes.len(), 1001);
    // The template leaves 13 fixed bytes, so a two-byte unit reaches 1001 but not 1000.
    write(
        dir.path(),
        "soul-kit/big/case.toml",
        "description = \"big\"\nrules = [\"soul-kit.name.length\"]\nverdict = \"accept\"\n\n[recipe]\ntemplate = \"template.soulkit.json\"\nplaceholder = \"@@FILL@@\"\nunit = \"é\"\ntotal_bytes = 1000\noutput = \"input.soulkit.json\"\n",
    );
    let corpus = Corpus::load(dir.path()).expect("corpus");
    let case = corpus
        .cases
        .iter()
        .find(|case| case.id == "big")
        .expect("case");
    assert!(case.input_bytes().is_err());
}

fn observed(verdict: Verdict, diagnostics: Vec<(&str, Location)>) -> Outcome {
    Outcome::Observed(Observation {
        verdict,
        diagnostics: Some(
            diagnostics
                .into_iter()
                .map(|(rule, location)| Diagnostic {
                    rule: rule.to_owned(),
                    severity: Severity::Error,
                    location: Some(location),
                    message: String::new(),
                })
                .collect(),
        ),
        value: None,
    })
}

#[test]
fn judging_reference_and_conformance() {
    let dir = tempfile::tempdir().expect("tempdir");
    good_corpus(dir.path());
    let catalogue = Catalogue::load(dir.path()).expect("catalogue");
    let corpus = Corpus::load(dir.path()).expect("corpus");
    let case = |id: &str| {
        corpus
            .cases
            .iter()
            .find(|case| case.id == id)
            .expect("case")
    };
    let name = Location {
        pointer: Some("/name".to_owned()),
        ..Location::default()
    };
    let bom = Location {
        line: Some(1),
        column: Some(1),
        ..Location::default()
    };

    let right = observed(
        Verdict::Reject,
        vec![("soul-kit.name.length", name.clone())],
    );
    assert!(judge(
        case("name-long"),
        &right,
        &catalogue,
        Strictness::Reference,
        Profile::Spec
    )
    .is_pass());

    // Diagnostics in the wrong place fail the reference; another validator is judged on
    // its verdict and its diagnostics are graded wrong beside it.
    let wrong_place = observed(Verdict::Reject, vec![("soul-kit.name.length", bom.clone())]);
    assert_eq!(
        judge(
            case("name-long"),
            &wrong_place,
            &catalogue,
            Strictness::Reference,
            Profile::Spec
        )
        .name(),
        "wrong-diagnostics"
    );
    let assessed = assess(
        case("name-long"),
        &wrong_place,
        &catalogue,
        Strictness::Conformance,
        Profile::Spec,
    );
    assert!(assessed.judgement.is_pass());
    assert_eq!(assessed.diagnostics.grade, Grade::Wrong);

    // An implementation's own extra rule is ignored in conformance mode only.
    let extra = observed(
        Verdict::Reject,
        vec![
            ("soul-kit.name.length", name.clone()),
            ("acme.style", Location::default()),
        ],
    );
    assert!(judge(
        case("name-long"),
        &extra,
        &catalogue,
        Strictness::Conformance,
        Profile::Spec
    )
    .is_pass());
    assert!(!judge(
        case("name-long"),
        &extra,
        &catalogue,
        Strictness::Reference,
        Profile::Spec
    )
    .is_pass());

    // Implementation-defined: the other choice conforms, but not for the reference.
    let accepts_bom = observed(Verdict::Accept, vec![]);
    assert!(judge(
        case("bom"),
        &accepts_bom,
        &catalogue,
        Strictness::Conformance,
        Profile::Spec
    )
    .is_pass());
    assert_eq!(
        judge(
            case("bom"),
            &accepts_bom,
            &catalogue,
            Strictness::Reference,
            Profile::Spec
        )
        .name(),
        "wrong-verdict"
    );

    // Crashes and timeouts are never rejections.
    let crash = Outcome::Crashed {
        message: "signal 11".to_owned(),
    };
    assert_eq!(
        judge(
            case("name-long"),
            &crash,
            &catalogue,
            Strictness::Conformance,
            Profile::Spec
        )
        .name(),
        "crash"
    );
    assert_eq!(
        judge(
            case("name-long"),
            &Outcome::TimedOut,
            &catalogue,
            Strictness::Conformance,
            Profile::Spec
        )
        .name(),
        "timeout"
    );

    // A verdict without readable diagnostics is judged on the verdict alone in conformance mode.
    let bare = Outcome::Observed(Observation {
        verdict: Verdict::Reject,
        diagnostics: None,
        value: None,
    });
    assert!(judge(
        case("name-long"),
        &bare,
        &catalogue,
        Strictness::Conformance,
        Profile::Spec
    )
    .is_pass());
    let _ = bom;
}

struct Panicking;

impl Validator for Panicking {
    fn implementation(&self) -> Implementation {
        Implementation::default()
    }

    fn run(&self, _request: &Request<'_>) -> Outcome {
        panic!("boom")
    }
}

/// Runs the corpus at `root` against [`Panicking`] with `options`: how many cases it has,
/// and the results.
fn run_panicking(
    root: &Path,
    options: &soulcheck_harness::runner::RunOptions<'_>,
) -> (usize, Vec<soulcheck_harness::runner::CaseResult>) {
    let catalogue = Catalogue::load(root).expect("catalogue");
    let corpus = Corpus::load(root).expect("corpus");
    let cases: Vec<_> = corpus.cases.iter().collect();
    let results = soulcheck_harness::runner::run_all(
        &Panicking,
        &cases,
        &catalogue,
        Strictness::Conformance,
        options,
    );
    (cases.len(), results)
}

#[test]
fn a_panicking_validator_is_a_crash_not_a_rejection() {
    let dir = tempfile::tempdir().expect("tempdir");
    good_corpus(dir.path());
    let (cases, results) = run_panicking(
        dir.path(),
        &soulcheck_harness::runner::RunOptions {
            jobs: 2,
            ..Default::default()
        },
    );
    assert_eq!(results.len(), cases);
    assert!(results
        .iter()
        .all(|result| result.judgement.name() == "crash"));
}

/// A run that builds its inputs itself (`check_inputs`, as `soulcheck run` does) checks
/// each one as the self-check would: invisible content the description does not name is
/// the case's input error, found while the other cases run as usual, and the
/// self-check that builds every input finds the same problem.
#[test]
fn a_run_checks_the_inputs_it_builds() {
    let dir = tempfile::tempdir().expect("tempdir");
    good_corpus(dir.path());
    // Trailing whitespace the description ("a good name") does not mention.
    write(dir.path(), "soul-kit/name-ok/input.soulkit.json", "{}  \n");
    let expected = "which the description must name";
    assert!(
        problems(dir.path())
            .iter()
            .any(|problem| problem.contains(expected)),
        "the self-check names the character"
    );

    let (_, results) = run_panicking(
        dir.path(),
        &soulcheck_harness::runner::RunOptions {
            jobs: 1,
            check_inputs: true,
            ..Default::default()
        },
    );
    for result in &results {
        let expected_judgement = if result.name == "soul-kit/name-ok" {
            "input-error"
        } else {
            "crash"
        };
        assert_eq!(
            result.judgement.name(),
            expected_judgement,
            "{}",
            result.name
        );
    }
    let input_error = results
        .iter()
        .find(|result| result.name == "soul-kit/name-ok")
        .map(|result| result.judgement.explain());
    assert!(
        input_error
            .as_deref()
            .is_some_and(|text| text.contains(expected)),
        "{input_error:?}"
    );
}

/// An operation case may list other values that conform (a point of the computation the
/// spec leaves open): another validator passes with any of them, the reference only with
/// the case's own `value`, and any other value is wrong, naming every conforming one.
#[test]
fn other_values_conform_for_other_validators_only() {
    let dir = tempfile::tempdir().expect("tempdir");
    good_corpus(dir.path());
    write(
        dir.path(),
        "soul-kit/print/case.toml",
        "description = \"a value either way\"\nrules = [\"soul-kit.name.length\"]\nverdict = \"accept\"\ninput = \"input.soulkit.json\"\noperation = \"fingerprint\"\nvalue = \"a\"\nother_values = [\"b\"]\n",
    );
    write(dir.path(), "soul-kit/print/input.soulkit.json", "{}\n");
    let catalogue = Catalogue::load(dir.path()).expect("catalogue");
    let corpus = Corpus::load(dir.path()).expect("corpus");
    let case = corpus
        .cases
        .iter()
        .find(|case| case.id == "print")
        .expect("case");
    let answer = |value: &str| {
        Outcome::Observed(Observation {
            verdict: Verdict::Accept,
            diagnostics: Some(Vec::new()),
            value: Some(serde_json::json!(value)),
        })
    };
    let judged = |value: &str, strictness: Strictness| {
        judge(case, &answer(value), &catalogue, strictness, Profile::Spec)
    };
    assert!(judged("a", Strictness::Conformance).is_pass());
    assert!(judged("b", Strictness::Conformance).is_pass());
    assert!(judged("a", Strictness::Reference).is_pass());
    assert!(!judged("b", Strictness::Reference).is_pass());
    let wrong = judged("c", Strictness::Conformance);
    assert_eq!(wrong.name(), "wrong-value");
    assert!(
        wrong
            .explain()
            .contains(r#"expected value "a" or "b", got "c""#),
        "{}",
        wrong.explain()
    );
    // `other_values` without the reference's `value` is refused.
    write(
        dir.path(),
        "soul-kit/print/case.toml",
        "description = \"no value\"\nrules = [\"soul-kit.name.length\"]\nverdict = \"accept\"\ninput = \"input.soulkit.json\"\noperation = \"fingerprint\"\nother_values = [\"b\"]\n",
    );
    assert!(Corpus::load(dir.path()).is_err());
}
