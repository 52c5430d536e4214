//! The corpus as `cargo test` trials, for Rust implementers: implement [`Validator`] for
//! your crate, then make one call from a test target with `harness = false`:
//!
//! ```no_run
//! # use soulcheck_harness::{Implementation, Outcome, Request, Validator};
//! # struct MyValidator;
//! # impl Validator for MyValidator {
//! #     fn implementation(&self) -> Implementation { Implementation::default() }
//! #     fn run(&self, _: &Request<'_>) -> Outcome { unimplemented!() }
//! # }
//! # let files: &'static include_dir::Dir<'static> = unimplemented!();
//! // tests/conformance.rs, with `soulcheck_corpus::CASES` as `files`:
//! soulcheck_harness::libtest::certify(MyValidator, files);
//! ```
//!
//! Every case becomes a trial named `<format>/<case-id>`, judged with conformance
//! strictness, so the usual filters work (`cargo test --test conformance -- soul-kit/`,
//! `--exact`, `--skip`, `--list`). Cases of formats and operations the validator does not
//! list in its [`crate::Implementation`] are ignored trials; a case it skips anyway fails,
//! so nothing passes unseen. A known failure listed in an expectations file passes (and
//! fails once it starts passing). [`Certification`] is the same with options. `examples/implementer/` in the
//! repository is a complete crate that does exactly this.

use std::sync::Arc;

use libtest_mimic::{Arguments, Failed, Trial};

use crate::catalogue::Catalogue;
use crate::corpus::Corpus;
use crate::expectations::Expectations;
use crate::runner::{run_case, Judgement, Strictness};
use crate::store::Store;
use crate::validator::Validator;
use crate::LoadError;
use soulcheck_vocabulary::Profile;

/// Certifies `validator` against the corpus in `files` (normally
/// `soulcheck_corpus::CASES`) as `cargo test` trials, with the command line's test
/// arguments, and exits with libtest's status. A corpus that does not load is one failing
/// trial.
pub fn certify(
    validator: impl Validator + 'static,
    files: &'static include_dir::Dir<'static>,
) -> ! {
    Certification::new(validator)
        .store(Store::Embedded(files))
        .run()
}

/// A certification run as `cargo test` trials, with options.
pub struct Certification {
    validator: Arc<dyn Validator>,
    store: Option<Store>,
    expectations: Option<std::path::PathBuf>,
    profile: Profile,
}

impl Certification {
    /// A run of `validator`; name the corpus with [`Certification::store`].
    pub fn new(validator: impl Validator + 'static) -> Certification {
        Certification {
            validator: Arc::new(validator),
            store: None,
            expectations: None,
            profile: Profile::Spec,
        }
    }

    /// The profile to judge by (default: `spec`).
    pub fn profile(mut self, profile: Profile) -> Certification {
        self.profile = profile;
        self
    }

    /// The corpus to run: `Store::Embedded(&soulcheck_corpus::CASES)`, or a `cases/`
    /// directory on disk.
    pub fn store(mut self, store: Store) -> Certification {
        self.store = Some(store);
        self
    }

    /// Known failures, in the expectations format of `soulcheck run --expectations`.
    pub fn expectations(mut self, path: impl Into<std::path::PathBuf>) -> Certification {
        self.expectations = Some(path.into());
        self
    }

    /// Runs the trials with the process's test arguments and exits with libtest's status.
    pub fn run(self) -> ! {
        let args = Arguments::from_args();
        let trials = match self.trials() {
            Ok(trials) => trials,
            Err(error) => {
                let message = error.to_string();
                vec![Trial::test("corpus/load", move || Err(message.into()))]
            }
        };
        libtest_mimic::run(&args, trials).exit()
    }

    fn trials(&self) -> Result<Vec<Trial>, LoadError> {
        let store = self.store.clone().ok_or_else(|| {
            LoadError::invalid(
                std::path::Path::new("<no corpus>"),
                "name a corpus with Certification::store (soulcheck_corpus::CASES)",
            )
        })?;
        let catalogue = Arc::new(Catalogue::open(&store)?);
        let corpus = Arc::new(Corpus::open(store)?);
        let expectations = match &self.expectations {
            Some(path) => Some(Arc::new(Expectations::load(path, &corpus.cases)?)),
            None => None,
        };
        Ok(trials(
            &self.validator,
            &corpus,
            &catalogue,
            expectations.as_ref(),
            self.profile,
        ))
    }
}

/// One trial per case.
fn trials(
    validator: &Arc<dyn Validator>,
    corpus: &Arc<Corpus>,
    catalogue: &Arc<Catalogue>,
    expectations: Option<&Arc<Expectations>>,
    profile: Profile,
) -> Vec<Trial> {
    let implementation = validator.implementation();
    (0..corpus.cases.len())
        .map(|index| {
            let case = &corpus.cases[index];
            let name = case.name();
            let kind = case.format.name().to_owned();
            let supported = supports(&implementation, case);
            let (validator, corpus, catalogue, expectations) = (
                Arc::clone(validator),
                Arc::clone(corpus),
                Arc::clone(catalogue),
                expectations.cloned(),
            );
            Trial::test(name.clone(), move || -> Result<(), Failed> {
                let case = &corpus.cases[index];
                let run = run_case(
                    validator.as_ref(),
                    case,
                    &catalogue,
                    Strictness::Conformance,
                    profile,
                );
                let mut result = crate::runner::CaseResult {
                    name,
                    index,
                    judgement: run.judgement,
                    duration: run.duration,
                    actual: run.actual,
                    diagnostics: run.diagnostics,
                    evidence: run.evidence,
                };
                if let Some(expectations) = &expectations {
                    expectations.apply(std::slice::from_mut(&mut result));
                }
                match &result.judgement {
                    Judgement::Pass | Judgement::ExpectedFailure { .. } => Ok(()),
                    Judgement::Skipped { reason } => Err(format!(
                        "the validator skipped a case of a format and operation it lists: {reason}"
                    )
                    .into()),
                    other => Err(format!("{}\n{}", case.description, other.explain()).into()),
                }
            })
            .with_kind(kind)
            .with_ignored_flag(!supported)
        })
        .collect()
}

/// Whether the validator says it handles the case's format and operation (an empty list
/// claims everything).
fn supports(implementation: &crate::Implementation, case: &crate::Case) -> bool {
    let format = implementation.formats.is_empty()
        || implementation
            .formats
            .iter()
            .any(|name| name == case.format.name());
    let operation =
        case.operation == "validate" || implementation.operations.contains(&case.operation);
    format && operation
}
