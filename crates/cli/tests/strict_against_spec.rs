//! A property of the differential classification: the reference in the strict profile,
//! fuzzed against the reference in the spec profile, gives no finding, in every format and
//! under every seed. The strict profile takes the suite's protective choice at every point
//! the spec leaves open and adds only strict-only rules; every document where the two
//! differ is one the spec profile does not decide, so a campaign that called any of them a
//! finding would be judging a reading, not the spec.
//!
//! The same campaigns hold the reference in the strict profile with one planted bug (it
//! drops one spec rule's errors), which must still be found: a classification that
//! explained everything away would pass the first property too.
//!
//! One trial per format and seed (in process, a fixed number of runs each, so the result
//! does not depend on the machine's speed).

use std::collections::BTreeSet;

use libtest_mimic::{Arguments, Failed, Trial};
use soulcheck::generated::Generator;
use soulcheck::Reference;
use soulcheck_harness::catalogue::Catalogue;
use soulcheck_harness::differential::campaign::{self, Results, Settings};
use soulcheck_harness::differential::Differential;
use soulcheck_harness::runner::profile_context;
use soulcheck_harness::validator::{Implementation, Outcome, Request, Validator};
use soulcheck_harness::{Format, Profile};

/// Seeds per format (the issue asks for at least 20).
const SEEDS: u64 = 20;

/// Generated documents per seed.
const RUNS: u64 = 100;

/// The reference answering every request in the strict profile, with, when `dropped`
/// names a rule, that rule's diagnostics removed (and an acceptance when nothing else is
/// an error): a validator that never checks that rule.
struct Strict {
    dropped: Option<&'static str>,
}

impl Validator for Strict {
    fn implementation(&self) -> Implementation {
        Reference.implementation()
    }

    fn run(&self, request: &Request<'_>) -> Outcome {
        let context = profile_context(request.context, Profile::Strict);
        let strict = Request {
            context: &context,
            profile: Profile::Strict,
            ..*request
        };
        let outcome = Reference.run(&strict);
        let (Some(dropped), Outcome::Observed(mut observation)) = (self.dropped, outcome.clone())
        else {
            return outcome;
        };
        if let Some(diagnostics) = &mut observation.diagnostics {
            diagnostics.retain(|diagnostic| diagnostic.rule != dropped);
            let errors = diagnostics
                .iter()
                .any(|d| d.severity == soulcheck_harness::Severity::Error);
            if !errors {
                observation.verdict = soulcheck_harness::Verdict::Accept;
            }
        }
        Outcome::Observed(observation)
    }
}

/// The planted bug of each format: a spec rule its generator's mutations break often.
const PLANTED: &[(Format, &str)] = &[
    (Format::SoulKit, "soul-kit.field.required"),
    (Format::SkillPackage, "skill-package.head.name.required"),
    (Format::SoulacyPackage, "soulacy-package.field.required"),
    (Format::SoulacySidecar, "soulacy-sidecar.field.required"),
    (Format::ComposeBundle, "compose-bundle.field.required"),
    (Format::SoulMd, "soul-md.title.required"),
];

fn catalogue() -> Catalogue {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../cases");
    Catalogue::load(&root).expect("the repository's catalogue")
}

fn campaign(format: Format, seed: u64, validator: &Strict, catalogue: &Catalogue) -> Results {
    let generator = Generator::new(format).expect("every format has a generator");
    let mut differential = Differential::new(&Reference, catalogue, Profile::Spec);
    if matches!(format, Format::SoulacyPackage | Format::SoulacySidecar) {
        // The date-dependent rules judge against a fixed day, as the corpus's cases do.
        differential
            .context
            .insert("now".to_owned(), "2026-07-14".into());
    }
    let settings = Settings {
        seed,
        runs: Some(RUNS),
        jobs: 1,
        shrink_steps: 0,
        ..Settings::default()
    };
    campaign::run(&settings, validator, &differential, &generator, None)
}

fn no_finding(format: Format, seed: u64) -> Result<(), Failed> {
    let catalogue = catalogue();
    let results = campaign(format, seed, &Strict { dropped: None }, &catalogue);
    let compared = results.runs - results.skipped - results.unusable;
    if compared < RUNS / 2 {
        return Err(format!("only {compared} of {RUNS} documents were compared").into());
    }
    if results.has_findings() {
        let found: Vec<String> = results
            .findings
            .iter()
            .map(|finding| {
                format!(
                    "{} (run {}): {}\n  input: {}",
                    finding.key,
                    finding.first_run,
                    finding.disagreement.explain(),
                    String::from_utf8_lossy(&finding.document)
                )
            })
            .collect();
        return Err(format!(
            "the strict reference against the spec profile, {format} seed {seed}: {} finding(s)\n{}",
            found.len(),
            found.join("\n")
        )
        .into());
    }
    Ok(())
}

fn planted_found(format: Format, rule: &'static str) -> Result<(), Failed> {
    let catalogue = catalogue();
    let validator = Strict {
        dropped: Some(rule),
    };
    let mut rules: BTreeSet<String> = BTreeSet::new();
    for seed in 0..SEEDS {
        let results = campaign(format, seed, &validator, &catalogue);
        rules.extend(
            results
                .tallies()
                .into_iter()
                .filter_map(|tally| tally.key.rule),
        );
        if rules.contains(rule) {
            return Ok(());
        }
    }
    Err(format!(
        "a validator that never checks {rule} was not found in {SEEDS} seeds of {format} (findings about: {rules:?})"
    )
    .into())
}

fn main() {
    let arguments = Arguments::from_args();
    let mut trials = Vec::new();
    for format in Format::ALL {
        for seed in 0..SEEDS {
            trials.push(Trial::test(
                format!("strict_reference_gives_no_finding/{format}/seed-{seed}"),
                move || no_finding(format, seed),
            ));
        }
    }
    for &(format, rule) in PLANTED {
        trials.push(Trial::test(
            format!("planted_bug_still_found/{format}/{rule}"),
            move || planted_found(format, rule),
        ));
    }
    libtest_mimic::run(&arguments, trials).exit();
}
