//! The corpus held against the mistakes independent implementers make. The independent
//! implementation (`suite/independent`, written from the spec texts, not from the
//! reference) runs through the harness like any other validator, in process:
//!
//! - `independent/<format>/clean-spec` and `clean-strict`: the clean implementation is
//!   certified in both profiles (it passes every case that decides a certificate);
//! - `independent/<format>/<switch>`: with one planted mistake, the spec profile's
//!   certificate is refused, unless `suite/independent/allowed/<format>.toml` lists the
//!   switch with the reason it changes only what the spec leaves open; a listed switch
//!   must then stay certified, so the list cannot hide a switch the corpus now refuses;
//! - `independent/allowed-lists`: every list reads, and every listed switch exists and
//!   gives its reason.
//!
//! A switch that is neither refused nor listed is a corpus gap: the failure says so and
//! names what to add. docs/corpus-power.md renders the same lists (`cargo xtask
//! corpus-power render`), so its counts are true whenever this passes.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, OnceLock};

use libtest_mimic::{Arguments, Failed, Trial};
use soulcheck_harness::report::certificate::{self, Certificate, Scope};
use soulcheck_harness::runner::{judge, prepare_input, profile_context, PreparedInput};
use soulcheck_harness::{
    Case, CaseResult, Catalogue, Corpus, Implementation, Input, Judgement, Observation, Outcome,
    Profile, Request, Strictness, Validator, Verdict,
};
use soulcheck_independent as independent;

fn workspace() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

/// The independent implementation, with at most one planted mistake, as a validator.
struct Independent {
    format: independent::Format,
    mistake: Option<&'static str>,
}

impl Validator for Independent {
    fn implementation(&self) -> Implementation {
        Implementation {
            name: "soulcheck independent".to_owned(),
            version: env!("CARGO_PKG_VERSION").to_owned(),
            language: "Rust".to_owned(),
            homepage: String::new(),
            formats: vec![self.format.name().to_owned()],
            operations: Vec::new(),
        }
    }

    fn run(&self, request: &Request<'_>) -> Outcome {
        if request.operation != "validate" {
            return Outcome::Skipped {
                reason: format!("no operation `{}`", request.operation),
            };
        }
        let input = match request.input {
            Input::Document { file_name, bytes } => independent::Input::Document {
                name: file_name,
                bytes,
            },
            Input::Tree { root } => independent::Input::Directory { root },
            _ => {
                return Outcome::Skipped {
                    reason: "an input form it does not read".to_owned(),
                }
            }
        };
        let settings = independent::Settings {
            strict: request.profile == Profile::Strict,
            mistake: self.mistake,
            context: request.context,
        };
        // A panic is a crash, never a verdict: the harness counts it against the case.
        let outcome =
            std::panic::catch_unwind(|| independent::validate(self.format, input, &settings));
        match outcome {
            Err(_) => Outcome::Crashed {
                message: "the independent implementation panicked".to_owned(),
            },
            Ok(outcome) => match outcome.declined {
                Some(reason) => Outcome::Skipped { reason },
                None => Outcome::Observed(Observation {
                    verdict: if outcome.accepted() {
                        Verdict::Accept
                    } else {
                        Verdict::Reject
                    },
                    diagnostics: None,
                    value: None,
                }),
            },
        }
    }
}

struct Fixture {
    corpus: Corpus,
    catalogue: Catalogue,
    /// Each format's validation cases with their inputs, prepared once for every trial of
    /// the format: materialising the directory trees (some hold 10,000 entries) for each
    /// of a format's switches would cost minutes, and the independent implementation
    /// only reads what it is given.
    prepared: BTreeMap<independent::Format, OnceLock<Vec<Prepared>>>,
}

/// A case and its input, or why the input could not be prepared.
struct Prepared {
    index: usize,
    input: Result<PreparedInput, String>,
}

impl Fixture {
    /// The validation cases of a format, with their inputs.
    fn prepared(&self, format: independent::Format) -> &[Prepared] {
        self.prepared[&format].get_or_init(|| {
            self.corpus
                .cases
                .iter()
                .enumerate()
                .filter(|(_, case)| {
                    case.format.name() == format.name() && case.operation == "validate"
                })
                .map(|(index, case)| Prepared {
                    index,
                    input: prepare_input(case),
                })
                .collect()
        })
    }

    /// The validation certificate of `validator` in `profile`: each case judged as a run
    /// judges it, then the certificate issued as a run issues it.
    fn certify(&self, validator: &Independent, profile: Profile) -> Certificate {
        let prepared = self.prepared(validator.format);
        let cases: Vec<&Case> = prepared
            .iter()
            .map(|prepared| &self.corpus.cases[prepared.index])
            .collect();
        let results: Vec<CaseResult> = prepared
            .iter()
            .zip(&cases)
            .enumerate()
            .map(|(index, (prepared, case))| {
                let (judgement, actual) = match &prepared.input {
                    Err(message) => (
                        Judgement::InputError {
                            message: message.clone(),
                        },
                        None,
                    ),
                    Ok(input) => {
                        let context = profile_context(&case.context, profile);
                        let request = Request {
                            case_id: &case.id,
                            format: case.format,
                            operation: &case.operation,
                            input: input.input(),
                            context: &context,
                            profile,
                        };
                        let outcome = validator.run(&request);
                        let judgement = judge(
                            case,
                            &outcome,
                            &self.catalogue,
                            Strictness::Conformance,
                            profile,
                        );
                        let actual = match outcome {
                            Outcome::Observed(observation) => Some(observation),
                            _ => None,
                        };
                        (judgement, actual)
                    }
                };
                let mut result = CaseResult::new(case.name(), index, judgement);
                result.actual = actual;
                result
            })
            .collect();
        let mut certificates = certificate::issue(
            &cases,
            &results,
            &self.catalogue,
            &validator.implementation(),
            "independent",
            profile,
            &Scope::whole(&cases),
        );
        certificates.remove(0)
    }
}

/// The reasons a certificate gives, at most eight of them, for a failure message.
fn reasons(certificate: &Certificate) -> String {
    let mut shown: Vec<&str> = certificate
        .reasons
        .iter()
        .take(8)
        .map(String::as_str)
        .collect();
    let more = certificate.reasons.len().saturating_sub(shown.len());
    let more = format!("and {more} more");
    if certificate.reasons.len() > shown.len() {
        shown.push(&more);
    }
    shown.join(", ")
}

fn clean(fixture: &Fixture, format: independent::Format, profile: Profile) -> Result<(), Failed> {
    let certificate = fixture.certify(
        &Independent {
            format,
            mistake: None,
        },
        profile,
    );
    if certificate.certified {
        return Ok(());
    }
    Err(format!(
        "the clean independent implementation is not certified in the {profile} profile: {}. \
         Either it misreads the spec (fix suite/independent) or the case is wrong by the spec's text.",
        reasons(&certificate)
    )
    .into())
}

fn switch(
    fixture: &Fixture,
    mistake: &'static independent::Mistake,
    allowed: Option<&str>,
) -> Result<(), Failed> {
    let certificate = fixture.certify(
        &Independent {
            format: mistake.format,
            mistake: Some(mistake.name),
        },
        Profile::Spec,
    );
    let format = mistake.format.name();
    match (certificate.certified, allowed) {
        (false, None) | (true, Some(_)) => Ok(()),
        (true, None) => Err(format!(
            "the corpus certifies the mistake `{}` ({}): no case fails it. Add a case that fails \
             it for that reason alone, or, if it changes only implementation-defined cases, list \
             it in suite/independent/allowed/{format}.toml with the reason.",
            mistake.name, mistake.description
        )
        .into()),
        (false, Some(_)) => Err(format!(
            "`{}` is listed as allowed in suite/independent/allowed/{format}.toml, but the corpus \
             now refuses it ({}): remove it from the list.",
            mistake.name,
            reasons(&certificate)
        )
        .into()),
    }
}

fn main() {
    let args = Arguments::from_args();
    let root = workspace().join("cases");
    let fixture = match (Corpus::load(&root), Catalogue::load(&root)) {
        (Ok(corpus), Ok(catalogue)) => Arc::new(Fixture {
            corpus,
            catalogue,
            prepared: independent::Format::ALL
                .into_iter()
                .map(|format| (format, OnceLock::new()))
                .collect(),
        }),
        (Err(error), _) | (_, Err(error)) => {
            let message = error.to_string();
            let trial = Trial::test("independent/corpus-load", move || Err(message.into()));
            libtest_mimic::run(&args, vec![trial]).exit();
        }
    };
    let mut trials = Vec::new();
    let mut lists = BTreeMap::new();
    let mut list_problems = Vec::new();
    for format in independent::Format::ALL {
        match independent::allowed::load(&workspace(), format) {
            Ok(listed) => {
                lists.insert(format, listed);
            }
            Err(problem) => {
                list_problems.push(problem);
                lists.insert(format, BTreeMap::new());
            }
        }
    }
    trials.push(Trial::test("independent/allowed-lists", move || {
        if list_problems.is_empty() {
            Ok(())
        } else {
            Err(list_problems.join("\n").into())
        }
    }));
    for format in independent::Format::ALL {
        for profile in [Profile::Spec, Profile::Strict] {
            let fixture = Arc::clone(&fixture);
            trials.push(Trial::test(
                format!("independent/{}/clean-{profile}", format.name()),
                move || clean(&fixture, format, profile),
            ));
        }
        for mistake in format.mistakes() {
            let fixture = Arc::clone(&fixture);
            let allowed = lists[&format].get(mistake.name).cloned();
            trials.push(Trial::test(
                format!("independent/{}/{}", format.name(), mistake.name),
                move || switch(&fixture, mistake, allowed.as_deref()),
            ));
        }
    }
    libtest_mimic::run(&args, trials).exit();
}
