//! Reports: the JSON Lines record reads back and tells an interrupted run from a complete
//! one, `diff` finds changed cases, expectations re-judge results, and the XML, Markdown,
//! badge and certificate outputs say what happened.

mod common;

use std::path::Path;

use soulcheck_harness::expectations::Expectations;
use soulcheck_harness::report::{badge, certificate, diff, jsonl, junit, markdown, Summary};
use soulcheck_harness::runner::{CaseResult, Judgement};
use soulcheck_harness::{Catalogue, Corpus, Implementation, Profile, Verdict};

fn load(root: &Path) -> (Corpus, Catalogue) {
    common::good_corpus(root);
    (
        Corpus::load(root).expect("corpus"),
        Catalogue::load(root).expect("catalogue"),
    )
}

fn result(corpus: &Corpus, id: &str, judgement: Judgement) -> CaseResult {
    let index = corpus
        .cases
        .iter()
        .position(|case| case.id == id)
        .expect("case");
    let mut result = CaseResult::new(corpus.cases[index].name(), index, judgement);
    result.duration = std::time::Duration::from_millis(3);
    result
}

fn header(corpus: &Corpus) -> jsonl::Header {
    jsonl::Header {
        soulcheck_version: "test".to_owned(),
        corpus_hash: corpus.content_hash().expect("hash"),
        cases: corpus.cases.len(),
        corpus_cases: Default::default(),
        mode: "per-case".to_owned(),
        command: Some("tool {path}".to_owned()),
        implementation: Implementation::default(),
        settings: serde_json::json!({}),
        started_at: jsonl::now(),
    }
}

#[test]
fn jsonl_round_trip_and_interrupted_runs() {
    let dir = tempfile::tempdir().expect("tempdir");
    let (corpus, _) = load(&dir.path().join("cases"));
    let wrong = Judgement::WrongVerdict {
        expected: "reject".to_owned(),
        actual: Verdict::Accept,
    };
    let results = [
        result(&corpus, "name-ok", Judgement::Pass),
        result(&corpus, "name-long", wrong),
    ];

    let interrupted = dir.path().join("interrupted.jsonl");
    let writer = jsonl::Writer::create(&interrupted, &header(&corpus)).expect("writer");
    writer.record(jsonl::Record::new(
        &corpus.cases[results[0].index],
        &results[0],
        Profile::Spec,
    ));
    drop(writer);
    let log = jsonl::Log::read(&interrupted).expect("read");
    assert!(
        !log.is_complete(),
        "a run without a footer must not look complete"
    );
    assert_eq!(log.records.len(), 1);

    let complete = dir.path().join("complete.jsonl");
    let writer = jsonl::Writer::create(&complete, &header(&corpus)).expect("writer");
    for result in &results {
        writer.record(jsonl::Record::new(
            &corpus.cases[result.index],
            result,
            Profile::Spec,
        ));
    }
    let cases: Vec<_> = corpus.cases.iter().collect();
    writer.finish(jsonl::Footer {
        complete: true,
        finished_at: jsonl::now(),
        summary: Summary::new(&cases, &results).overall,
    });
    let log = jsonl::Log::read(&complete).expect("read");
    assert!(log.is_complete());
    assert_eq!(log.records[1].result, "wrong-verdict");

    let changes = diff::changes(&jsonl::Log::read(&interrupted).expect("read"), &log);
    assert_eq!(changes.len(), 1);
    assert_eq!(changes[0].name, "soul-kit/name-long");
    assert_eq!(
        (changes[0].old.as_str(), changes[0].new.as_str()),
        ("absent", "wrong-verdict")
    );
    let text = diff::render(
        &jsonl::Log::read(&interrupted).expect("read"),
        &log,
        &changes,
    );
    assert!(text.contains("the old report is incomplete"), "{text}");
}

#[test]
fn regressions_are_flagged() {
    let change = diff::Change {
        name: "soul-kit/x".to_owned(),
        old: "pass".to_owned(),
        new: "crash".to_owned(),
    };
    assert!(change.is_regression());
    let fixed = diff::Change {
        name: "soul-kit/x".to_owned(),
        old: "crash".to_owned(),
        new: "pass".to_owned(),
    };
    assert!(!fixed.is_regression());
    // A case that passed and is missing from the new report (an empty run) is a regression.
    let gone = diff::Change {
        name: "soul-kit/x".to_owned(),
        old: "pass".to_owned(),
        new: "absent".to_owned(),
    };
    assert!(gone.is_regression());
    let new_case = diff::Change {
        name: "soul-kit/x".to_owned(),
        old: "absent".to_owned(),
        new: "wrong-verdict".to_owned(),
    };
    assert!(!new_case.is_regression());
}

#[test]
fn expectations_rejudge_and_reject_unknown_cases() {
    let dir = tempfile::tempdir().expect("tempdir");
    let (corpus, _) = load(&dir.path().join("cases"));
    let path = dir.path().join("expectations.toml");
    std::fs::write(&path, "[[failure]]\ncase = \"soul-kit/name-long\"\nreason = \"known\"\n\n[[failure]]\ncase = \"soul-kit/name-ok\"\nreason = \"fixed since\"\n").expect("write");
    let expectations = Expectations::load(&path, &corpus.cases).expect("load");
    let mut results = vec![
        result(&corpus, "name-long", Judgement::TimedOut),
        result(&corpus, "name-ok", Judgement::Pass),
    ];
    expectations.apply(&mut results);
    assert_eq!(results[0].judgement.name(), "expected-failure");
    assert!(!results[0].judgement.is_failure());
    assert_eq!(results[1].judgement.name(), "unexpected-pass");
    assert!(results[1].judgement.is_failure());

    // Bootstrapping lists the timed-out case and reloads cleanly.
    let written = dir.path().join("written.toml");
    let cases: Vec<_> = corpus.cases.iter().collect();
    std::fs::write(&written, Expectations::render_from(&cases, &results)).expect("write");
    let text = std::fs::read_to_string(&written).expect("read");
    assert!(
        text.contains("soul-kit/name-long") && !text.contains("soul-kit/name-ok"),
        "{text}"
    );
    Expectations::load(&written, &corpus.cases).expect("reload");

    std::fs::write(
        &path,
        "[[failure]]\ncase = \"soul-kit/nonexistent\"\nreason = \"x\"\n",
    )
    .expect("write");
    assert!(Expectations::load(&path, &corpus.cases).is_err());
}

/// An entry's class and rule are checked: a deviation quotes the spec, and the rule it
/// names is one the case is written for.
#[test]
fn expectations_check_an_entrys_class_and_rule() {
    let dir = tempfile::tempdir().expect("tempdir");
    let (corpus, _) = load(&dir.path().join("cases"));
    let path = dir.path().join("expectations.toml");
    let rule = &corpus
        .cases
        .iter()
        .find(|case| case.id == "name-long")
        .expect("case")
        .rules[0];
    let write = |body: &str| {
        std::fs::write(
            &path,
            format!("[[failure]]\ncase = \"soul-kit/name-long\"\nreason = \"r\"\n{body}"),
        )
        .expect("write");
    };
    write(&format!(
        "rule = \"{rule}\"\nclass = \"deviation\"\nspec = \"at most 64 characters\"\n"
    ));
    let loaded = Expectations::load(&path, &corpus.cases).expect("a classified entry loads");
    let known = &loaded.entries()["soul-kit/name-long"];
    assert_eq!(known.rule.as_deref(), Some(rule.as_str()));
    assert_eq!(
        known.class,
        Some(soulcheck_harness::expectations::FailureClass::Deviation)
    );
    assert_eq!(known.spec.as_deref(), Some("at most 64 characters"));

    write("class = \"contested\"\n");
    Expectations::load(&path, &corpus.cases).expect("a contested entry needs no quote");
    for (body, complaint) in [
        ("class = \"deviation\"\n", "without the spec's words"),
        (
            "class = \"deviation\"\nspec = \" \"\n",
            "without the spec's words",
        ),
        (
            "rule = \"soul-kit.no-such-rule\"\n",
            "is not written for rule",
        ),
        ("class = \"wrong\"\n", "unknown variant"),
    ] {
        write(body);
        let error = Expectations::load(&path, &corpus.cases)
            .expect_err(body)
            .to_string();
        assert!(error.contains(complaint), "{body}: {error}");
    }
}

/// Issue 37, item 7: untrusted text in JUnit (a skip reason, a crash message) is shown as
/// the terminal shows it, so the file stays well-formed XML and carries no raw escape
/// sequence, bidirectional override or noncharacter.
#[test]
fn junit_stays_well_formed_whatever_a_validator_says() {
    let dir = tempfile::tempdir().expect("tempdir");
    let (corpus, _) = load(&dir.path().join("cases"));
    let cases: Vec<_> = corpus.cases.iter().collect();
    let hostile = "\u{1}\u{1b}[2J\u{202e}x\u{fffe}\u{ffff}\u{200f}";
    let results = vec![
        result(
            &corpus,
            "bom",
            Judgement::Skipped {
                reason: hostile.to_owned(),
            },
        ),
        result(
            &corpus,
            "name-long",
            Judgement::Crashed {
                message: hostile.to_owned(),
            },
        ),
        result(&corpus, "name-ok", Judgement::Pass),
    ];
    let xml = junit::render(&cases, &results);
    let mut reader = quick_xml::Reader::from_str(&xml);
    loop {
        match reader.read_event() {
            Ok(quick_xml::events::Event::Eof) => break,
            Ok(_) => {}
            Err(error) => panic!("not well-formed: {error}\n{xml}"),
        }
    }
    for raw in [
        '\u{1}', '\u{1b}', '\u{202e}', '\u{fffe}', '\u{ffff}', '\u{200f}',
    ] {
        assert!(!xml.contains(raw), "{raw:?} raw in {xml}");
    }
    assert!(xml.contains("\\x1b[2J\\u{202e}x\\u{fffe}"), "{xml}");
}

#[test]
fn junit_markdown_badges_and_certificates() {
    let dir = tempfile::tempdir().expect("tempdir");
    let (corpus, catalogue) = load(&dir.path().join("cases"));
    let cases: Vec<_> = corpus.cases.iter().collect();
    let crash = Judgement::Crashed {
        message: "killed by signal 11 & <more>".to_owned(),
    };
    let results = vec![
        result(&corpus, "bom", Judgement::Pass),
        result(&corpus, "name-long", crash),
        result(&corpus, "name-ok", Judgement::Pass),
    ];
    let xml = junit::render(&cases, &results);
    assert!(xml.contains("tests=\"3\" failures=\"1\""), "{xml}");
    assert!(
        xml.contains("&amp; &lt;more&gt;"),
        "XML must be escaped: {xml}"
    );

    let issue = |results: &[CaseResult], scope: &certificate::Scope| {
        certificate::issue(
            &cases,
            results,
            &catalogue,
            &Implementation::default(),
            "sha256:x",
            Profile::Spec,
            scope,
        )
    };
    let whole = certificate::Scope::whole(&cases);
    let summary = Summary::new(&cases, &results);
    let badge = badge::render(
        soulcheck_harness::Format::SoulKit,
        &summary.formats[&soulcheck_harness::Format::SoulKit],
        None,
        "",
    );
    assert_eq!(badge["message"], "66% passing");

    let certificates = issue(&results, &whole);
    assert_eq!(certificates.len(), 1);
    assert!(!certificates[0].certified);
    assert!(certificates[0]
        .reasons
        .iter()
        .any(|reason| reason.contains("name-long crash")));

    let passing = vec![
        result(&corpus, "bom", Judgement::Pass),
        result(&corpus, "name-long", Judgement::Pass),
        result(&corpus, "name-ok", Judgement::Pass),
    ];
    let certificates = issue(&passing, &whole);
    assert!(certificates[0].certified, "{:?}", certificates[0].reasons);
    assert!(certificates[0].selection.complete);

    // A failure that decides nothing (no definite acceptance, no must-level rule) leaves
    // the certificate, and the line says why.
    let beside = vec![
        result(&corpus, "bom", Judgement::TimedOut),
        result(&corpus, "name-long", Judgement::Pass),
        result(&corpus, "name-ok", Judgement::Pass),
    ];
    let certificates = issue(&beside, &whole);
    assert!(certificates[0].certified, "{:?}", certificates[0].reasons);
    assert_eq!(certificates[0].other_failures, 1);
    assert!(
        certificates[0]
            .line()
            .contains("certified (1 of 1 accept and 1 of 1 other must-level validation cases passed, spec profile); 1 failed case does not decide it (no definite acceptance, no must-level rule)"),
        "{}",
        certificates[0].line()
    );

    // The same results measured against a corpus that holds more cases: not a
    // certification, and the badge is not green.
    let mut scope = certificate::Scope::whole(&cases);
    *scope
        .held
        .get_mut(&soulcheck_harness::Format::SoulKit)
        .and_then(|operations| operations.get_mut("validate"))
        .expect("held") += 1;
    scope.filters = vec!["--case 'name-*'".to_owned()];
    let certificates = issue(&passing, &scope);
    assert!(!certificates[0].certified);
    assert_eq!(
        certificates[0].reasons[0],
        "not a certification: 3 of 4 validation cases judged (--case 'name-*')"
    );
    let badge = badge::render(
        soulcheck_harness::Format::SoulKit,
        &Summary::new(&cases, &passing).formats[&soulcheck_harness::Format::SoulKit],
        Some(&certificates[0]),
        "",
    );
    assert_eq!(badge["color"], "lightgrey");

    let text = markdown::render(
        "run",
        &Summary::new(&cases, &results),
        &[],
        &cases,
        &results,
        &Default::default(),
    );
    assert!(
        text.contains("| soul-kit | 2 | 1 | 0 | 0 | 66% |"),
        "{text}"
    );
    assert!(
        text.contains("crash in soul-kit.name.length (1 case)"),
        "{text}"
    );
    assert!(
        text.contains("soul-kit/name-long: crashed: killed by signal 11"),
        "{text}"
    );
}
