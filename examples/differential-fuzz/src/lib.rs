//! The implementation under test, adapted to the harness's `Validator` trait, and what
//! the fuzz target needs to judge it: the oracle's catalogue and the format's generator.
//!
//! In your crate, `MyValidator::run` calls your validator. This example calls soulcheck's
//! own reference, so a campaign must find nothing.

use soulcheck::generated::Generator;
use soulcheck_harness::store::Store;
use soulcheck_harness::{Catalogue, Format, Implementation, Observation, Outcome, Profile};
use soulcheck_harness::{Input, Request, Validator};

/// Your validator, as the harness sees it.
pub struct MyValidator;

impl Validator for MyValidator {
    fn implementation(&self) -> Implementation {
        Implementation {
            name: "differential-fuzz-example".to_owned(),
            version: env!("CARGO_PKG_VERSION").to_owned(),
            language: "Rust".to_owned(),
            ..Implementation::default()
        }
    }

    fn run(&self, request: &Request<'_>) -> Outcome {
        let input = match request.input {
            Input::Document { file_name, bytes } => soulcheck_reference::Input::Document {
                name: file_name,
                bytes,
            },
            Input::Tree { root } => soulcheck_reference::Input::Tree(root),
            _ => {
                return Outcome::Skipped {
                    reason: "an input kind this validator does not read".to_owned(),
                }
            }
        };
        // Replace this call with yours; `request.context` carries `"profile": "strict"`
        // in the strict profile.
        match soulcheck_reference::check(request.format, request.operation, input, request.context)
        {
            Ok(report) => {
                let report = report.to_wire();
                Outcome::Observed(Observation {
                    verdict: report.verdict,
                    diagnostics: report.diagnostics,
                    value: report.value,
                })
            }
            Err(unsupported) => Outcome::Skipped {
                reason: unsupported.reason,
            },
        }
    }
}

/// What every input of a campaign shares: the catalogue (each rule's basis decides what
/// is implementation-defined), the format's generator and the profile.
pub struct Setup {
    pub catalogue: Catalogue,
    pub generator: Generator,
    pub profile: Profile,
}

impl Setup {
    /// The format from `SOULCHECK_FORMAT` (default `soul-kit`) and the profile from
    /// `SOULCHECK_PROFILE` (default `spec`).
    pub fn from_env() -> Setup {
        let format: Format = std::env::var("SOULCHECK_FORMAT")
            .unwrap_or_else(|_| "soul-kit".to_owned())
            .parse()
            .expect("SOULCHECK_FORMAT names a format (soul-kit, skill-package, ...)");
        let profile: Profile = std::env::var("SOULCHECK_PROFILE")
            .unwrap_or_else(|_| "spec".to_owned())
            .parse()
            .expect("SOULCHECK_PROFILE is spec or strict");
        let catalogue = Catalogue::open(&Store::Embedded(&soulcheck_corpus::CASES))
            .expect("the built-in catalogue");
        let generator = Generator::new(format).expect("a generator of the format");
        Setup {
            catalogue,
            generator,
            profile,
        }
    }
}
