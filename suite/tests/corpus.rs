//! The `cargo test` entry point of soulcheck: one libtest-mimic trial per corpus case,
//! named `<format>/<case-id>` so the usual filters (`cargo test -p soulcheck-suite --
//! soul-kit/`, `--exact`, `--skip`, `--list`) select cases, plus trials that check the
//! corpus itself and the agreement between the catalogue and the reference.
//!
//! Each case trial runs the reference in process, judges it with reference strictness
//! (implementation-defined cases must match the recorded choice; diagnostics must match
//! exactly) and compares its rendered diagnostics with the case's snapshot in
//! `suite/snapshots/<format>/<case-id>.snap`.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use libtest_mimic::{Arguments, Failed, Trial};
use soulcheck::Reference;
use soulcheck_harness::runner::{judge, prepare_input, profile_context};
use soulcheck_harness::{
    selfcheck, Case, Catalogue, Context, Corpus, Input, Outcome, Profile, Request, Strictness,
    Validator,
};

fn workspace() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

fn snapshot_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("snapshots")
}

struct Fixture {
    corpus: Corpus,
    catalogue: Catalogue,
}

fn main() {
    let args = Arguments::from_args();
    let root = workspace().join("cases");
    let fixture = match (Corpus::load(&root), Catalogue::load(&root)) {
        (Ok(corpus), Ok(catalogue)) => Arc::new(Fixture { corpus, catalogue }),
        (Err(error), _) | (_, Err(error)) => {
            // A corpus that does not load is one failing trial, not a crash of the runner.
            let message = error.to_string();
            let trial = Trial::test("corpus/load", move || Err(message.into()));
            libtest_mimic::run(&args, vec![trial]).exit();
        }
    };

    let mut trials = vec![
        trial(&fixture, "corpus/self-check", self_check),
        trial(&fixture, "corpus/every-rule-emitted", every_rule_emitted),
        trial(&fixture, "corpus/no-orphan-snapshots", no_orphan_snapshots),
        trial(&fixture, "reference/first-error-agrees", first_error_agrees),
        trial(
            &fixture,
            "reference/spec-profile-rejects-on-spec-grounds",
            spec_profile_rejects_on_spec_grounds,
        ),
        trial(
            &fixture,
            "reference/spec-profile-rejects-what-the-reader-refuses",
            spec_profile_rejects_what_the_reader_refuses,
        ),
    ];
    for index in 0..fixture.corpus.cases.len() {
        let fixture = Arc::clone(&fixture);
        let name = fixture.corpus.cases[index].name();
        trials.push(Trial::test(name, move || {
            case_trial(&fixture, &fixture.corpus.cases[index])
        }));
    }
    libtest_mimic::run(&args, trials).exit();
}

fn trial(fixture: &Arc<Fixture>, name: &str, body: fn(&Fixture) -> Result<(), Failed>) -> Trial {
    let fixture = Arc::clone(fixture);
    Trial::test(name, move || body(&fixture))
}

/// The corpus is well formed (see `soulcheck_harness::selfcheck`).
fn self_check(fixture: &Fixture) -> Result<(), Failed> {
    let problems = selfcheck::check(&fixture.corpus, &fixture.catalogue);
    if problems.is_empty() {
        return Ok(());
    }
    let lines: Vec<String> = problems.iter().map(ToString::to_string).collect();
    Err(format!("{} corpus problems:\n{}", problems.len(), lines.join("\n")).into())
}

/// Code and catalogue agree: the reference emits every catalogued rule on some case, and
/// never a rule of another format. (Naming an uncatalogued rule does not compile: the
/// rule constants are generated from the catalogue.)
fn every_rule_emitted(fixture: &Fixture) -> Result<(), Failed> {
    let mut emitted = BTreeSet::new();
    let mut problems = Vec::new();
    for case in &fixture.corpus.cases {
        let Ok(input) = prepare_input(case) else {
            continue;
        };
        for profile in Profile::ALL {
            let context = profile_context(&case.context, profile);
            let Ok(report) = Reference.report(&request(case, &input, &context, profile)) else {
                continue;
            };
            for diagnostic in &report.diagnostics {
                let rule = diagnostic.rule.id;
                match fixture.catalogue.get(rule) {
                    Some(found) if found.format == case.format => {}
                    _ => problems.push(format!(
                        "{}: emits {rule}, not a rule of {}",
                        case.name(),
                        case.format
                    )),
                }
                // A strict-only rule must stay silent in the spec profile.
                if profile == Profile::Spec
                    && fixture
                        .catalogue
                        .get(rule)
                        .is_some_and(|found| found.strict)
                {
                    problems.push(format!(
                        "{}: emits {rule} in the spec profile, but the rule is strict-only",
                        case.name()
                    ));
                }
                emitted.insert(rule.to_owned());
            }
        }
    }
    let operation_rules: BTreeSet<&str> = fixture
        .corpus
        .cases
        .iter()
        .filter(|case| case.operation != "validate")
        .flat_map(|case| case.rules.iter().map(String::as_str))
        .collect();
    for rule in fixture.catalogue.rules() {
        if !emitted.contains(&rule.id) && !operation_rules.contains(rule.id.as_str()) {
            problems.push(format!(
                "{} is catalogued but the reference never emits it",
                rule.id
            ));
        }
    }
    if problems.is_empty() {
        Ok(())
    } else {
        Err(problems.join("\n").into())
    }
}

/// Every snapshot file belongs to a case, so a renamed or deleted case leaves no stale
/// snapshot behind.
fn no_orphan_snapshots(fixture: &Fixture) -> Result<(), Failed> {
    let names: BTreeSet<String> = fixture.corpus.cases.iter().map(Case::name).collect();
    let mut orphans = Vec::new();
    let root = snapshot_dir();
    for format_dir in std::fs::read_dir(&root).into_iter().flatten().flatten() {
        let format = format_dir.file_name().to_string_lossy().into_owned();
        for file in std::fs::read_dir(format_dir.path())
            .into_iter()
            .flatten()
            .flatten()
        {
            let file_name = file.file_name().to_string_lossy().into_owned();
            let Some(id) = file_name.strip_suffix(".snap") else {
                if !file_name.ends_with(".snap.new") {
                    orphans.push(format!("{format}/{file_name}"));
                }
                continue;
            };
            if !names.contains(&format!("{format}/{id}")) {
                orphans.push(format!("{format}/{file_name}"));
            }
        }
    }
    if orphans.is_empty() {
        Ok(())
    } else {
        Err(format!(
            "snapshots without a case (delete them):\n{}",
            orphans.join("\n")
        )
        .into())
    }
}

/// The reference's first-error entry point agrees with its full check on every `validate`
/// case in both profiles: the same verdict, and the full report's diagnostics up to and
/// including its first error, in order.
fn first_error_agrees(fixture: &Fixture) -> Result<(), Failed> {
    let mut problems = Vec::new();
    for case in fixture
        .corpus
        .cases
        .iter()
        .filter(|case| case.operation == "validate")
    {
        let Ok(prepared) = prepare_input(case) else {
            continue;
        };
        let input = match prepared.input() {
            Input::Document { file_name, bytes } => soulcheck_reference::Input::Document {
                name: file_name,
                bytes,
            },
            Input::Tree { root } => soulcheck_reference::Input::Tree(root),
            _ => continue,
        };
        for profile in Profile::ALL {
            let context = profile_context(&case.context, profile);
            let (Ok(full), Ok(first)) = (
                soulcheck_reference::check(case.format, "validate", input, &context),
                soulcheck_reference::first_error(case.format, input, &context),
            ) else {
                problems.push(format!("{} ({profile:?}): refused", case.name()));
                continue;
            };
            let upto = full
                .diagnostics
                .iter()
                .position(|diagnostic| diagnostic.severity == soulcheck_reference::Severity::Error)
                .map_or(full.diagnostics.len(), |first| first + 1);
            if first.verdict() != full.verdict() {
                problems.push(format!(
                    "{} ({profile:?}): first-error verdict {:?}, full verdict {:?}",
                    case.name(),
                    first.verdict(),
                    full.verdict()
                ));
            } else if full.omitted.errors == 0 && first.diagnostics != full.diagnostics[..upto] {
                problems.push(format!(
                    "{} ({profile:?}): first-error diagnostics {:?}, expected the full report's first {upto}",
                    case.name(),
                    first.diagnostics.iter().map(|d| d.rule.id).collect::<Vec<_>>()
                ));
            }
        }
    }
    if problems.is_empty() {
        Ok(())
    } else {
        Err(problems.join("\n").into())
    }
}

/// The spec profile is the spec: on no corpus case does the reference report an error of
/// a rule that rests on a decision of this suite (a strict-only rule, or a bound, which in
/// the spec profile only warns and leaves the input not judged). Every error it reports in
/// the spec profile is one of a `spec` or `upstream` rule.
fn spec_profile_rejects_on_spec_grounds(fixture: &Fixture) -> Result<(), Failed> {
    let mut problems = Vec::new();
    for case in &fixture.corpus.cases {
        let Ok(input) = prepare_input(case) else {
            continue;
        };
        let context = profile_context(&case.context, Profile::Spec);
        let Ok(report) = Reference.report(&request(case, &input, &context, Profile::Spec)) else {
            continue;
        };
        for diagnostic in &report.diagnostics {
            if diagnostic.severity != soulcheck_reference::Severity::Error {
                continue;
            }
            let decides = fixture
                .catalogue
                .get(diagnostic.rule.id)
                .is_some_and(|rule| rule.decides_spec_verdicts());
            if !decides {
                problems.push(format!(
                    "{}: the spec profile rejects on `{}`, a decision of this suite (make it strict, a bound, or show it decided by the spec or upstream)",
                    case.name(),
                    diagnostic.rule.id
                ));
            }
        }
    }
    if problems.is_empty() {
        Ok(())
    } else {
        Err(problems.join("\n").into())
    }
}

/// The Corpus 4 criterion, over every rejection the spec profile makes on the corpus: no
/// rule the reference rejects on says, in its own decision or grounds, that the
/// publisher's reader accepts the thing, unless the same sentence says how the corpus
/// follows it (the case is implementation-defined, the spec profile accepts it, the
/// protective reading is the strict profile's, or the reader's acceptance is a recorded
/// deviation). CONTRIBUTING.md ("Which profile a reading goes to") asks rule texts to say
/// so in one sentence; a sentence naming a reader that accepts, with none of those, is a
/// spec-profile rejection of something the reader takes.
fn spec_profile_rejects_what_the_reader_refuses(fixture: &Fixture) -> Result<(), Failed> {
    let accepts = regex::Regex::new(
        r"(?i)(agent-compose|soulacy|importer|duduclaw|\bgo\b|publisher's|reader)[^.;]*?\b(?<verb>accepts?|takes?|reads? (it|them) as|decodes? (it|them) as)\b",
    )?;
    // "accepts only …", "takes nothing …": a refusal of everything else, not an acceptance.
    let limited = regex::Regex::new(r"(?i)^ (only|exactly|nothing|no)\b")?;
    // "a frontmatter no YAML reader accepts": a negation.
    let negated = regex::Regex::new(r"(?i)\bno [a-z0-9 ]*reader accepts\b")?;
    let followed = regex::Regex::new(
        r"(?i)implementation-defined|strict profile|deviation|spec profile|\b(is|are) (accepted|read)\b",
    )?;
    // A sentence (or clause) ends at `.` or `;` before a space; `SOUL.md` does not end one.
    let sentence_end = regex::Regex::new(r"[.;](\s+|$)")?;
    let mut reached = BTreeSet::new();
    for case in &fixture.corpus.cases {
        let Ok(input) = prepare_input(case) else {
            continue;
        };
        let context = profile_context(&case.context, Profile::Spec);
        let Ok(report) = Reference.report(&request(case, &input, &context, Profile::Spec)) else {
            continue;
        };
        for diagnostic in &report.diagnostics {
            if diagnostic.severity == soulcheck_reference::Severity::Error {
                reached.insert(diagnostic.rule.id);
            }
        }
    }
    if reached.is_empty() {
        return Err("the spec profile rejected no corpus case: nothing was checked".into());
    }
    let mut problems = Vec::new();
    for id in reached {
        let Some(rule) = fixture.catalogue.get(id) else {
            continue;
        };
        for (field, text) in [("decision", &rule.decision), ("grounds", &rule.grounds)] {
            let Some(text) = text else { continue };
            for sentence in sentence_end.split(text) {
                let says_accepts = !negated.is_match(sentence)
                    && accepts.captures_iter(sentence).any(|found| {
                        found
                            .name("verb")
                            .is_some_and(|verb| !limited.is_match(&sentence[verb.end()..]))
                    });
                if says_accepts && !followed.is_match(sentence) {
                    problems.push(format!(
                        "{id}: the spec profile rejects on this rule, whose {field} says the reader accepts without saying how the corpus follows: {}",
                        sentence.trim()
                    ));
                }
            }
        }
    }
    if problems.is_empty() {
        Ok(())
    } else {
        Err(problems.join("\n").into())
    }
}

fn request<'a>(
    case: &'a Case,
    input: &'a Input,
    context: &'a Context,
    profile: Profile,
) -> Request<'a> {
    Request {
        case_id: &case.id,
        format: case.format,
        operation: &case.operation,
        input,
        context,
        profile,
    }
}

/// One case in both profiles: the reference's verdict and diagnostics match the case's
/// expectation in each, and its rendering matches the snapshot (the spec profile's, then
/// the strict profile's where that differs).
fn case_trial(fixture: &Fixture, case: &Case) -> Result<(), Failed> {
    let input = prepare_input(case)?;
    let source = match &*input {
        Input::Document { bytes, .. } => bytes.as_slice(),
        _ => &[],
    };
    let mut rendered = format!("{}\n\n", case.description);
    let mut spec_rendering = None;
    for profile in Profile::ALL {
        let context = profile_context(&case.context, profile);
        let request = request(case, &input, &context, profile);
        let outcome = Reference.run(&request);
        let judgement = judge(
            case,
            &outcome,
            &fixture.catalogue,
            Strictness::Reference,
            profile,
        );
        if !judgement.is_pass() {
            if let Outcome::Skipped { reason } = &outcome {
                return Err(
                    format!("the reference must implement every corpus format: {reason}").into(),
                );
            }
            return Err(format!(
                "{}\nin the {profile} profile: {}",
                case.description,
                judgement.explain()
            )
            .into());
        }
        let report = Reference.report(&request)?;
        let mut text = report.render(source, case.input_name());
        if let Some(value) = &report.value {
            text.push_str(&format!("value: {value}\n"));
        }
        match &spec_rendering {
            None => {
                rendered.push_str(&text);
                spec_rendering = Some(text);
            }
            Some(spec) if *spec == text => {}
            Some(_) => {
                rendered.push_str(&format!("\n--- in the {profile} profile\n"));
                rendered.push_str(&text);
            }
        }
    }
    // An absolute symlink in a run's tree leads to a decoy beside the tree (see
    // `soulcheck_harness::tree`), whose temporary path differs on every run; the snapshot
    // shows the target the case describes.
    if let Input::Tree { root } = &*input {
        if let Some(parent) = root.parent() {
            let decoys = parent.join(soulcheck_harness::tree::DECOYS);
            rendered = rendered.replace(&*decoys.to_string_lossy(), "");
        }
    }
    let mut settings = insta::Settings::clone_current();
    settings.set_snapshot_path(snapshot_dir().join(case.format.name()));
    settings.set_prepend_module_to_snapshot(false);
    settings.set_omit_expression(true);
    settings.set_input_file(workspace().join("cases").join(case.dir.path("case.toml")));
    settings.bind(|| insta::assert_snapshot!(case.id.as_str(), rendered));
    Ok(())
}
