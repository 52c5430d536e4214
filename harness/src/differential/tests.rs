//! The judgement of one input, the campaign's determinism and its shrinking, with
//! validators made of closures and the repository's rule catalogue.

use std::path::Path;
use std::time::Duration;

use soulcheck_vocabulary::{Format, Location, Profile, Severity, Verdict};

use super::campaign::{self, Prepared, Sample, Settings, Source};
use super::*;
use crate::validator::{Diagnostic, Implementation, Input, Observation, Outcome, Request};

fn catalogue() -> Catalogue {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../cases");
    Catalogue::load(&root).expect("the repository's catalogue")
}

/// A validator whose answer is a function of the document's bytes.
struct Fake<F>(F);

impl<F: Fn(&[u8]) -> Outcome + Send + Sync> Validator for Fake<F> {
    fn implementation(&self) -> Implementation {
        Implementation {
            name: "fake".to_owned(),
            ..Implementation::default()
        }
    }

    fn run(&self, request: &Request<'_>) -> Outcome {
        match request.input {
            Input::Document { bytes, .. } => (self.0)(bytes),
            _ => Outcome::Skipped {
                reason: "documents only".to_owned(),
            },
        }
    }
}

fn diagnostic(rule: &str, pointer: &str) -> Diagnostic {
    Diagnostic {
        rule: rule.to_owned(),
        severity: Severity::Error,
        location: Some(Location {
            pointer: Some(pointer.to_owned()),
            ..Location::default()
        }),
        message: String::new(),
    }
}

fn observed(verdict: Verdict, diagnostics: Option<Vec<Diagnostic>>) -> Outcome {
    Outcome::Observed(Observation {
        verdict,
        diagnostics,
        value: None,
    })
}

fn accept() -> Outcome {
    observed(Verdict::Accept, Some(Vec::new()))
}

fn reject(rule: &str) -> Outcome {
    observed(Verdict::Reject, Some(vec![diagnostic(rule, "/name")]))
}

fn compare(oracle: Outcome, validator: Outcome, profile: Profile) -> Comparison {
    let catalogue = catalogue();
    let oracle = Fake(move |_: &[u8]| oracle.clone());
    let validator = Fake(move |_: &[u8]| validator.clone());
    let input = Input::Document {
        file_name: "input.soulkit.json".to_owned(),
        bytes: b"{}".to_vec(),
    };
    Differential::new(&oracle, &catalogue, profile).compare(&validator, Format::SoulKit, &input)
}

fn disagreement(comparison: Comparison) -> Disagreement {
    match comparison {
        Comparison::Disagree(disagreement) => *disagreement,
        other => panic!("expected a disagreement, got {other:?}"),
    }
}

#[test]
fn the_same_answer_agrees() {
    let rule = "soul-kit.name.length";
    assert_eq!(
        compare(reject(rule), reject(rule), Profile::Spec),
        Comparison::Agree
    );
    assert_eq!(
        compare(accept(), accept(), Profile::Spec),
        Comparison::Agree
    );
    // A validator without diagnostics is judged on its verdict alone.
    let silent = observed(Verdict::Reject, None);
    assert_eq!(
        compare(reject(rule), silent, Profile::Spec),
        Comparison::Agree
    );
}

#[test]
fn a_verdict_disagreement_names_its_rule() {
    let rule = "soul-kit.name.length";
    let found = disagreement(compare(accept(), reject(rule), Profile::Spec));
    assert_eq!(
        found.key(),
        Key {
            rule: Some(rule.to_owned()),
            kind: Kind::RejectsValid
        }
    );
    assert!(found.is_finding());
    let found = disagreement(compare(reject(rule), accept(), Profile::Spec));
    assert_eq!(
        found.key(),
        Key {
            rule: Some(rule.to_owned()),
            kind: Kind::AcceptsInvalid
        }
    );
    assert!(found
        .explain()
        .contains("the oracle rejects: error soul-kit.name.length"));
    // A rejection without catalogued reasons names no rule.
    let silent = observed(Verdict::Reject, None);
    let found = disagreement(compare(accept(), silent, Profile::Spec));
    assert_eq!(
        found.key(),
        Key {
            rule: None,
            kind: Kind::RejectsValid
        }
    );
    assert_eq!(
        found.class,
        Class::Finding,
        "both profiles accept and nothing is open: the spec decides"
    );
}

/// An oracle answering `spec` in the spec profile and `strict` in the strict one.
struct TwoProfiles {
    spec: Outcome,
    strict: Outcome,
}

impl Validator for TwoProfiles {
    fn implementation(&self) -> Implementation {
        Implementation::default()
    }

    fn run(&self, request: &Request<'_>) -> Outcome {
        match request.profile {
            Profile::Strict => self.strict.clone(),
            _ => self.spec.clone(),
        }
    }
}

fn compare_two(spec: Outcome, strict: Outcome, validator: Outcome) -> Comparison {
    let catalogue = catalogue();
    let oracle = TwoProfiles { spec, strict };
    let validator = Fake(move |_: &[u8]| validator.clone());
    let input = Input::Document {
        file_name: "input.skill.json".to_owned(),
        bytes: b"{}".to_vec(),
    };
    Differential::new(&oracle, &catalogue, Profile::Spec).compare(
        &validator,
        Format::SkillPackage,
        &input,
    )
}

#[test]
fn a_rejection_the_strict_profile_shares_is_counted_under_its_reading() {
    // The strict profile refuses the repeated `path` and reads its first occurrence, so it
    // also finds no head: a spec rule, reached only through the open repetition.
    let strict = observed(
        Verdict::Reject,
        Some(vec![
            diagnostic("skill-package.json.duplicate-key", "/files/0/path"),
            diagnostic("skill-package.head.present", "/files"),
        ]),
    );
    let found = disagreement(compare_two(accept(), strict.clone(), strict.clone()));
    assert_eq!(found.class, Class::StrictOnly, "{found:?}");
    assert_eq!(found.rules, ["skill-package.json.duplicate-key"]);
    // The consequence alone, as a reader that keeps the first occurrence reports it.
    let first_kept = reject("skill-package.head.present");
    let first_kept = match first_kept {
        Outcome::Observed(mut observation) => {
            observation.diagnostics =
                Some(vec![diagnostic("skill-package.head.present", "/files")]);
            Outcome::Observed(observation)
        }
        other => other,
    };
    let found = disagreement(compare_two(accept(), strict.clone(), first_kept));
    assert_eq!(found.class, Class::StrictOnly, "{found:?}");
    // A verdict alone, where only the strict reading refuses: unexplained, under its name.
    let silent = observed(Verdict::Reject, None);
    let found = disagreement(compare_two(accept(), strict.clone(), silent));
    assert_eq!(found.class, Class::Unexplained, "{found:?}");
    assert_eq!(found.rules, ["skill-package.json.duplicate-key"]);
    // A reason no reading gives is a finding, even where the strict profile rejects.
    let other = reject("skill-package.head.name.required");
    let found = disagreement(compare_two(accept(), strict, other));
    assert!(found.is_finding(), "{found:?}");
    // Where both profiles accept, a rejection is a finding, with or without a rule.
    let found = disagreement(compare_two(
        accept(),
        accept(),
        observed(Verdict::Reject, None),
    ));
    assert!(found.is_finding(), "{found:?}");
    assert_eq!(found.key().rule, None);
}

#[test]
fn a_silent_rejection_on_an_open_point_is_unexplained() {
    // The oracle warns of a point the spec leaves open (an unknown envelope key, a
    // strict-only rule): a verdict alone may rest on it.
    let warned = observed(
        Verdict::Accept,
        Some(vec![Diagnostic {
            severity: Severity::Warning,
            ..diagnostic("skill-package.envelope.unknown-key", "/extra")
        }]),
    );
    let found = disagreement(compare_two(
        warned.clone(),
        warned,
        observed(Verdict::Reject, None),
    ));
    assert_eq!(found.class, Class::Unexplained, "{found:?}");
    assert_eq!(found.rules, ["skill-package.envelope.unknown-key"]);
}

#[test]
fn suite_rules_are_implementation_defined_in_the_spec_profile_only() {
    // soul-kit.json.bom is a suite rule: the spec does not say whether a BOM is allowed.
    let suite = "soul-kit.json.bom";
    let found = disagreement(compare(reject(suite), accept(), Profile::Spec));
    assert_eq!(
        found.class,
        Class::StrictOnly,
        "a strict-only rule since Corpus 3"
    );
    assert_eq!(found.clone().key().kind, Kind::AcceptsInvalid);
    assert_eq!(
        compare(reject(suite), accept(), Profile::Spec).finding(),
        None,
        "not a finding"
    );
    let found = disagreement(compare(reject(suite), accept(), Profile::Strict));
    assert!(found.is_finding(), "the strict profile decides it");
    // The validator's rejection resting on a strict-only rule alone.
    let strict_only = "soul-kit.string.c1-control";
    let found = disagreement(compare(accept(), reject(strict_only), Profile::Spec));
    assert_eq!(found.class, Class::StrictOnly);
    assert_eq!(found.rules, [strict_only]);
    // ... or on a spec rule too.
    let both = observed(
        Verdict::Reject,
        Some(vec![
            diagnostic(strict_only, "/name"),
            diagnostic("soul-kit.name.length", "/name"),
        ]),
    );
    assert!(disagreement(compare(accept(), both, Profile::Spec)).is_finding());
}

#[test]
fn errors_in_a_repeated_member_rest_on_the_open_point() {
    // The sidecar leaves duplicate keys open (a suite rule): which `installed_from` a reader
    // keeps is its choice, so the type error the oracle finds in the other one is open too.
    let oracle = observed(
        Verdict::Reject,
        Some(vec![
            diagnostic("soulacy-sidecar.json.duplicate-key", "/installed_from"),
            diagnostic("soulacy-sidecar.field.type", "/installed_from"),
        ]),
    );
    let found = disagreement(compare(oracle.clone(), accept(), Profile::Spec));
    // The duplicate key is strict-only since Corpus 3: the reading it rests on.
    assert_eq!(found.class, Class::StrictOnly, "{found:?}");
    // Not in the strict profile, where duplicate keys are refused.
    let found = disagreement(compare(oracle, accept(), Profile::Strict));
    assert!(found.is_finding());
    // Nor for an error elsewhere, or in a member that merely starts alike.
    for pointer in ["/installed_at", "/installed_fromx"] {
        let oracle = observed(
            Verdict::Reject,
            Some(vec![
                diagnostic("soulacy-sidecar.json.duplicate-key", "/installed_from"),
                diagnostic("soulacy-sidecar.field.type", pointer),
            ]),
        );
        let found = disagreement(compare(oracle, accept(), Profile::Spec));
        assert!(found.is_finding(), "{pointer}");
    }
    // The same from the validator's side: a strict reader refuses the repeated key and
    // checks the occurrence the oracle's reading dropped. Both are open readings.
    let strict_reader = observed(
        Verdict::Reject,
        Some(vec![
            diagnostic("soulacy-sidecar.json.duplicate-key", "/installed_at"),
            diagnostic("soulacy-sidecar.installed-at.rfc3339", "/installed_at"),
        ]),
    );
    let found = disagreement(compare(accept(), strict_reader, Profile::Spec));
    assert_eq!(found.class, Class::StrictOnly, "{found:?}");
    // An error elsewhere is still decided by the spec.
    let strict_reader = observed(
        Verdict::Reject,
        Some(vec![
            diagnostic("soulacy-sidecar.json.duplicate-key", "/installed_at"),
            diagnostic("soulacy-sidecar.installed-at.rfc3339", "/installed_atx"),
        ]),
    );
    let found = disagreement(compare(accept(), strict_reader, Profile::Spec));
    assert_eq!(found.class, Class::Finding, "{found:?}");
    assert_eq!(found.rules, ["soulacy-sidecar.installed-at.rfc3339"]);
    // Soul Kit decides duplicate keys (a spec rule): a finding.
    let oracle = observed(
        Verdict::Reject,
        Some(vec![
            diagnostic("soul-kit.json.duplicate-key", "/name"),
            diagnostic("soul-kit.name.length", "/name"),
        ]),
    );
    assert!(disagreement(compare(oracle, accept(), Profile::Spec)).is_finding());
}

#[test]
fn diagnostics_are_graded_beside_an_agreeing_verdict() {
    let oracle = reject("soul-kit.name.length");
    // Another catalogued rule: unexpected.
    let other = reject("soul-kit.summary.length");
    let found = disagreement(compare(oracle.clone(), other, Profile::Spec));
    assert_eq!(
        found.key(),
        Key {
            rule: Some("soul-kit.summary.length".to_owned()),
            kind: Kind::UnexpectedDiagnostic
        }
    );
    // Only an uncatalogued rule: nothing to grade.
    let own = reject("acme.own-check");
    assert_eq!(
        compare(oracle.clone(), own, Profile::Spec),
        Comparison::Agree
    );
    // The expected rule at another location counts as both unexpected and missing.
    let moved = observed(
        Verdict::Reject,
        Some(vec![diagnostic("soul-kit.name.length", "/summary")]),
    );
    let found = disagreement(compare(oracle.clone(), moved, Profile::Spec));
    assert_eq!(found.key().kind, Kind::UnexpectedDiagnostic);
    // Partial (the first of two) agrees.
    let two = observed(
        Verdict::Reject,
        Some(vec![
            diagnostic("soul-kit.name.length", "/name"),
            diagnostic("soul-kit.summary.length", "/summary"),
        ]),
    );
    assert_eq!(compare(two, oracle, Profile::Spec), Comparison::Agree);
}

#[test]
fn crashes_and_skips() {
    let crash = Outcome::Crashed {
        message: "boom".to_owned(),
    };
    let found = disagreement(compare(accept(), crash, Profile::Spec));
    assert_eq!(
        found.key(),
        Key {
            rule: None,
            kind: Kind::Crash
        }
    );
    let skip = Outcome::Skipped {
        reason: "no".to_owned(),
    };
    assert!(matches!(
        compare(accept(), skip, Profile::Spec),
        Comparison::Skipped { .. }
    ));
    // A panic in process is a crash.
    let catalogue = catalogue();
    let oracle = Fake(|_: &[u8]| accept());
    let panicking = Fake(|_: &[u8]| -> Outcome { panic!("planted") });
    let found = check_one(
        &panicking,
        &oracle,
        &catalogue,
        Format::SoulKit,
        "input.soulkit.json",
        b"{}",
        Profile::Spec,
    )
    .expect("a finding");
    assert_eq!(found.kind, Kind::Crash);
    assert!(
        found.explain().contains("panicked: planted"),
        "{}",
        found.explain()
    );
}

/// Documents are the fuzz input itself, as text lines.
struct Lines;

impl Source for Lines {
    fn format(&self) -> Format {
        Format::SoulKit
    }

    fn document(&self, data: &[u8]) -> Option<Sample> {
        Some(Sample {
            document: data.to_vec(),
            summary: "raw".to_owned(),
            targets: Vec::new(),
            open: Vec::new(),
        })
    }

    fn prepare(&self, _data: &[u8], document: &[u8]) -> std::io::Result<Prepared> {
        Ok(Prepared::document("input.soulkit.json", document))
    }

    fn write(&self, dir: &Path, _data: &[u8], document: &[u8]) -> std::io::Result<String> {
        std::fs::write(dir.join("input.soulkit.json"), document)?;
        Ok("input.soulkit.json".to_owned())
    }
}

/// [`Lines`], with the syntax rule open on documents shorter than `short` bytes (as if
/// the spec left their verdict to the reader).
struct OpenWhenShort {
    short: usize,
}

impl Source for OpenWhenShort {
    fn format(&self) -> Format {
        Format::SoulKit
    }

    fn document(&self, data: &[u8]) -> Option<Sample> {
        Some(Sample {
            open: self.open_points(data),
            ..Lines.document(data)?
        })
    }

    fn prepare(&self, data: &[u8], document: &[u8]) -> std::io::Result<Prepared> {
        Lines.prepare(data, document)
    }

    fn write(&self, dir: &Path, data: &[u8], document: &[u8]) -> std::io::Result<String> {
        Lines.write(dir, data, document)
    }

    fn open_points(&self, document: &[u8]) -> Vec<String> {
        if document.len() < self.short {
            vec!["soul-kit.json.syntax".to_owned()]
        } else {
            Vec::new()
        }
    }
}

#[test]
fn open_points_are_counted_apart_and_a_shrink_never_reaches_one() {
    let catalogue = catalogue();
    let (oracle, validator) = planted();
    let differential = Differential::new(&oracle, &catalogue, Profile::Spec);
    let settings = planted_settings();
    // Every document open: the planted disagreement is a reading, never a finding.
    let everything = OpenWhenShort { short: usize::MAX };
    let results = campaign::run(&settings, &validator, &differential, &everything, None);
    assert!(!results.has_findings(), "{:?}", results.findings);
    let apart: Vec<_> = results.apart_of(Class::ImplementationDefined).collect();
    assert_eq!(apart.len(), 1, "{apart:?}");
    assert_eq!(apart[0].key.rule.as_deref(), Some("soul-kit.json.syntax"));
    // Open only below 40 bytes: the finding is kept, and its shrink stops at 40 bytes,
    // where the planted pair alone (2 bytes) would be open.
    let short = OpenWhenShort { short: 40 };
    let results = campaign::run(&settings, &validator, &differential, &short, None);
    let finding = results.findings.first().expect("a finding");
    assert!(finding.document.len() >= 40, "{:?}", finding.document);
    assert!(finding.document.len() < finding.original_size);
}

/// The campaign the planted pair is fuzzed with: seed 7, 3,000 runs of up to 256 bytes.
fn planted_settings() -> Settings {
    Settings {
        seed: 7,
        runs: Some(3_000),
        max_input: 256,
        ..Settings::default()
    }
}

/// The oracle rejects inputs holding the byte 0xAB; the validator misses that when the
/// byte 0xCD comes right after it.
fn planted() -> (impl Validator, impl Validator) {
    let holds = |bytes: &[u8]| bytes.contains(&0xAB);
    let oracle = Fake(move |bytes: &[u8]| {
        if holds(bytes) {
            reject("soul-kit.json.syntax")
        } else {
            accept()
        }
    });
    let validator = Fake(move |bytes: &[u8]| {
        if holds(bytes) && !bytes.windows(2).any(|w| w == [0xAB, 0xCD]) {
            reject("soul-kit.json.syntax")
        } else {
            accept()
        }
    });
    (oracle, validator)
}

#[test]
fn a_campaign_finds_shrinks_and_reproduces() {
    let catalogue = catalogue();
    let (oracle, validator) = planted();
    let differential = Differential::new(&oracle, &catalogue, Profile::Spec);
    let settings = Settings {
        jobs: 1,
        ..planted_settings()
    };
    let one = campaign::run(&settings, &validator, &differential, &Lines, None);
    assert_eq!(one.runs, 3_000);
    assert_eq!(one.findings.len(), 1, "{:?}", one.tallies());
    let finding = &one.findings[0];
    assert_eq!(
        finding.key,
        Key {
            rule: Some("soul-kit.json.syntax".to_owned()),
            kind: Kind::AcceptsInvalid
        }
    );
    assert!(finding.reproduced);
    assert_eq!(finding.document, [0xAB, 0xCD]);
    // The same seed gives the same findings whatever the number of jobs.
    let settings = Settings {
        jobs: 3,
        ..settings
    };
    let two = campaign::run(&settings, &validator, &differential, &Lines, None);
    assert_eq!(two.findings.len(), 1);
    assert_eq!(two.findings[0].first_run, finding.first_run);
    assert_eq!(two.findings[0].count, finding.count);
    assert_eq!(two.findings[0].data, finding.data);
    // The run's fuzz input is its seed's.
    let data = campaign::fuzz_input(7, finding.first_run, 256);
    assert!(data.windows(2).any(|w| w == [0xAB, 0xCD]));
}

#[test]
fn a_tally_keeps_its_first_and_smallest_documents_cut_to_a_bound() {
    let catalogue = catalogue();
    // Every document is open on the syntax rule: the planted disagreement is counted
    // apart, and its tally keeps examples of documents up to 4 KiB.
    let (oracle, validator) = planted();
    let differential = Differential::new(&oracle, &catalogue, Profile::Spec);
    let settings = Settings {
        max_input: 4 * campaign::EXAMPLE_BYTES,
        ..planted_settings()
    };
    let everything = OpenWhenShort { short: usize::MAX };
    let results = campaign::run(&settings, &validator, &differential, &everything, None);
    let tally = results.apart.first().expect("a tally counted apart");
    let first = tally.first.as_ref().expect("the first document");
    let smallest = tally.smallest.as_ref().expect("the smallest document");
    assert_eq!(first.run, tally.first_run);
    assert!(smallest.size <= first.size);
    assert!(first.size > campaign::EXAMPLE_BYTES, "{}", first.size);
    for example in [first, smallest] {
        assert_eq!(
            example.head.len(),
            example.size.min(campaign::EXAMPLE_BYTES)
        );
    }
    // The report keeps the same, encoded.
    let dir = tempfile::tempdir().expect("tempdir");
    let path = dir.path().join("report.jsonl");
    let header = super::jsonl::Header {
        soulcheck_version: "0".to_owned(),
        corpus_hash: String::new(),
        format: Format::SoulKit,
        mode: "in-process".to_owned(),
        command: None,
        implementation: Implementation::default(),
        profile: Profile::Spec,
        seed: 7,
        settings: serde_json::Value::Null,
        started_at: String::new(),
    };
    let writer = super::jsonl::Writer::create(&path, &header).expect("created");
    writer.apart(tally);
    let text = std::fs::read_to_string(&path).expect("written");
    let record: serde_json::Value =
        serde_json::from_str(text.lines().nth(1).expect("the apart record")).expect("JSON");
    assert_eq!(record["first"]["bytes"].as_u64(), Some(first.size as u64));
    assert!(
        record["first"]["head_base64"]
            .as_str()
            .expect("encoded")
            .len()
            <= campaign::EXAMPLE_BYTES.div_ceil(3) * 4
    );
}

#[test]
fn a_campaign_stops_at_its_duration_and_bounds_its_findings() {
    let catalogue = catalogue();
    let oracle = Fake(|_: &[u8]| accept());
    // Rejects everything, naming a rule after the first byte: many distinct findings.
    let rules = [
        "soul-kit.name.length",
        "soul-kit.summary.length",
        "soul-kit.id.length",
    ];
    let validator = Fake(move |bytes: &[u8]| {
        let rule = rules[usize::from(bytes.first().copied().unwrap_or(0)) % rules.len()];
        reject(rule)
    });
    let differential = Differential::new(&oracle, &catalogue, Profile::Spec);
    let settings = Settings {
        seed: 1,
        duration: Some(Duration::from_millis(300)),
        jobs: 2,
        max_findings: 2,
        shrink_steps: 10,
        max_input: 64,
        ..Settings::default()
    };
    let results = campaign::run(&settings, &validator, &differential, &Lines, None);
    assert!(results.runs > 0);
    assert_eq!(results.findings.len(), 2);
    assert_eq!(results.unkept.len(), 1);
    assert!(results.findings.iter().all(|f| f.shrink_steps <= 10));
    assert!(results.has_findings());
}

#[test]
fn a_finding_becomes_a_draft_case() {
    let catalogue = catalogue();
    let (oracle, validator) = planted();
    let differential = Differential::new(&oracle, &catalogue, Profile::Spec);
    let settings = planted_settings();
    let results = campaign::run(&settings, &validator, &differential, &Lines, None);
    let out = tempfile::tempdir().expect("tempdir");
    let origin = draft::Origin {
        validator: "fake",
        seed: 7,
        reproduce: None,
    };
    let existing = [
        draft::Existing {
            id: "syntax-elsewhere".to_owned(),
            rules: vec!["soul-kit.json.syntax".to_owned()],
            shape: Some(draft::shape(&[0xAB, 0xCD])),
            question: Some(vec![
                "reject".to_owned(),
                "error soul-kit.json.syntax at /other".to_owned(),
            ]),
        },
        draft::Existing {
            id: "some-syntax-case".to_owned(),
            rules: vec!["soul-kit.json.syntax".to_owned()],
            shape: None,
            question: Some(draft::question(
                true,
                results.findings[0]
                    .disagreement
                    .oracle
                    .diagnostics
                    .iter()
                    .flatten()
                    .map(|d| {
                        let pointer = d.location.as_ref().and_then(|l| l.pointer.as_deref());
                        (d.rule.as_str(), d.severity, pointer)
                    }),
            )),
        },
        draft::Existing {
            id: "other-rule".to_owned(),
            rules: vec!["soul-kit.name.length".to_owned()],
            shape: None,
            question: None,
        },
    ];
    let dir = draft::write_finding(
        out.path(),
        &results.findings[0],
        &Lines,
        &differential,
        &existing,
        &origin,
    )
    .expect("written");
    let name = dir.file_name().unwrap().to_string_lossy().into_owned();
    assert!(
        name.starts_with("fuzz-accepts-invalid-json-syntax-"),
        "{name}"
    );
    assert!(draft::is_case_id(&name));
    let text = std::fs::read_to_string(dir.join("case.toml")).expect("case.toml");
    assert!(text.starts_with(draft::REVIEW_HEADER));
    assert!(text.contains("verdict = \"reject\""), "{text}");
    assert!(
        text.contains("# REVIEW:   answer: {\"verdict\":\"accept\""),
        "{text}"
    );
    assert!(
        text.contains(
            "# REVIEW: existing cases of soul-kit.json.syntax (2): syntax-elsewhere, some-syntax-case\n"
        ),
        "{text}"
    );
    // The case of the same input shape asks another question (elsewhere); the one with
    // the same diagnostics at the same places is the one this draft repeats.
    assert!(
        text.contains("# REVIEW: DUPLICATE of some-syntax-case:"),
        "{text}"
    );
    assert!(text.contains("# REVIEW: isolating:"), "{text}");
    let parsed: toml::Table = text.parse().expect("TOML");
    assert_eq!(parsed["input"].as_str(), Some("input.soulkit.json"));
    assert_eq!(
        std::fs::read(dir.join("input.soulkit.json")).unwrap(),
        [0xAB, 0xCD]
    );
}

#[test]
fn the_duration_bounds_shrinking_too() {
    let catalogue = catalogue();
    let oracle = Fake(|_: &[u8]| accept());
    // Rejects everything, slowly: every shrink trial costs 20 ms.
    let validator = Fake(|_: &[u8]| {
        std::thread::sleep(Duration::from_millis(20));
        reject("soul-kit.name.length")
    });
    let differential = Differential::new(&oracle, &catalogue, Profile::Spec);
    let settings = Settings {
        seed: 3,
        duration: Some(Duration::from_millis(800)),
        jobs: 2,
        shrink_steps: 100_000,
        max_input: 4_096,
        ..Settings::default()
    };
    let started = std::time::Instant::now();
    let results = campaign::run(&settings, &validator, &differential, &Lines, None);
    let took = started.elapsed();
    assert_eq!(results.findings.len(), 1);
    // Fuzzing stopped early to leave shrinking its share, and shrinking stopped in time
    // (one trial may run past the deadline).
    assert!(
        results.fuzz_time < Duration::from_millis(800),
        "{results:?}"
    );
    assert!(took < Duration::from_millis(800 + 200), "{took:?}");
    assert!(
        results.findings[0].shrink_steps < 100,
        "{:?}",
        results.findings[0]
    );
}

#[test]
fn findings_are_keyed_by_the_targeted_rule_and_shrink_to_isolating_inputs() {
    /// Documents whose generator says it targeted `soul-kit.summary.length`.
    struct Targeted;
    impl Source for Targeted {
        fn format(&self) -> Format {
            Format::SoulKit
        }
        fn document(&self, data: &[u8]) -> Option<Sample> {
            Some(Sample {
                document: data.to_vec(),
                summary: "targeted".to_owned(),
                targets: vec!["soul-kit.summary.length".to_owned()],
                open: Vec::new(),
            })
        }
        fn prepare(&self, _data: &[u8], document: &[u8]) -> std::io::Result<Prepared> {
            Ok(Prepared::document("input.soulkit.json", document))
        }
        fn write(&self, dir: &Path, _data: &[u8], document: &[u8]) -> std::io::Result<String> {
            std::fs::write(dir.join("input.soulkit.json"), document)?;
            Ok("input.soulkit.json".to_owned())
        }
    }
    // The oracle names another rule first whenever a byte 0x01 is there too (noise), and
    // the targeted one for every 0xAB; the validator accepts everything.
    let oracle = Fake(|bytes: &[u8]| {
        let mut diagnostics = Vec::new();
        if bytes.contains(&0x01) {
            diagnostics.push(diagnostic("soul-kit.name.length", "/name"));
        }
        if bytes.contains(&0xAB) {
            diagnostics.push(diagnostic("soul-kit.summary.length", "/summary"));
        }
        if diagnostics.is_empty() {
            accept()
        } else {
            observed(Verdict::Reject, Some(diagnostics))
        }
    });
    let validator = Fake(|_: &[u8]| accept());
    let catalogue = catalogue();
    let differential = Differential::new(&oracle, &catalogue, Profile::Spec);
    let settings = Settings {
        seed: 11,
        runs: Some(400),
        max_input: 64,
        ..Settings::default()
    };
    let results = campaign::run(&settings, &validator, &differential, &Targeted, None);
    let keys: Vec<&Key> = results.findings.iter().map(|f| &f.key).collect();
    // Not split by whichever other rule fired first.
    assert!(keys
        .iter()
        .all(|key| key.rule.as_deref() == Some("soul-kit.summary.length")
            || !key.rule.as_deref().is_some_and(|r| r.contains("summary"))));
    let finding = results
        .findings
        .iter()
        .find(|f| f.key.rule.as_deref() == Some("soul-kit.summary.length"))
        .expect("the targeted finding");
    assert!(finding.isolating, "{finding:?}");
    assert_eq!(finding.document, [0xAB]);
    assert_eq!(finding.disagreement.noise(&finding.key), 0);
}
