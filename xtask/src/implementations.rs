//! `cargo xtask implementations`: installs every implementation under `implementations/`
//! as its folder pins it and certifies it through `soulcheck run`, in both profiles, per
//! format its card lists, with the folder's expectations files, writing one report per
//! run for the scoreboard and the generated pages.
//!
//! A folder's card (`implementation.toml`, read with the harness's loader, so the page and
//! this driver read the same runs) says how to run it; its `install.sh PREFIX` installs it
//! into `target/implementations/<folder>/`. An install that fails fails the whole command:
//! CI certifies every implementation, so one it cannot install is a broken build, not a
//! skipped step.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Instant;

use soulcheck_harness::report::implementations::{load_cards, Card, CardRun};
use soulcheck_vocabulary::Profile;

/// What to certify and where the results go.
pub struct Options {
    /// The `soulcheck` binary to run.
    pub soulcheck: PathBuf,
    /// The directory the reports go into (`<folder>-<profile>-<format>/`).
    pub reports: PathBuf,
    /// Only these folders (all when empty).
    pub only: Vec<String>,
    /// Also write each run's failures as an expectations file beside its output, to
    /// bootstrap a new folder's lists.
    pub bootstrap: bool,
}

/// One run that did not go as its expectations file says.
#[derive(Debug)]
pub struct Failed {
    /// `<folder> <profile> <format>`, or `<folder> install`.
    pub what: String,
    /// Where its output is.
    pub output: PathBuf,
}

/// Installs and certifies; returns the runs that failed (an empty list: all passed).
pub fn certify(root: &Path, options: &Options) -> Result<Vec<Failed>, String> {
    let folder = root.join("implementations");
    let cards = load_cards(&folder).map_err(|error| error.to_string())?;
    if cards.is_empty() {
        // Nothing certified is never a pass.
        return Err(format!(
            "no implementation folder (one with an implementation.toml) in {}",
            folder.display()
        ));
    }
    let unknown: Vec<&String> = options
        .only
        .iter()
        .filter(|name| !cards.iter().any(|card| &card.slug() == *name))
        .collect();
    if !unknown.is_empty() {
        let known: Vec<String> = cards.iter().map(Card::slug).collect();
        return Err(format!(
            "no implementation folder named {unknown:?}; there are: {}",
            known.join(", ")
        ));
    }
    let work = root.join("target").join("implementations");
    std::fs::create_dir_all(&work).map_err(|error| format!("{}: {error}", work.display()))?;
    let mut failed = Vec::new();
    for card in &cards {
        if !options.only.is_empty() && !options.only.contains(&card.slug()) {
            continue;
        }
        let prefix = work.join(card.slug());
        let log = work.join(format!("{}-install.txt", card.slug()));
        let started = Instant::now();
        if !install(card, &prefix, &log)? {
            println!(
                "{}: could not be installed (its output: {}); CI certifies it, so this fails",
                card.label(),
                log.display()
            );
            print_file(&log);
            failed.push(Failed {
                what: format!("{} install", card.slug()),
                output: log,
            });
            continue;
        }
        println!(
            "== {} (installed in {:.0} s)",
            card.label(),
            started.elapsed().as_secs_f64()
        );
        for profile in [Profile::Spec, Profile::Strict] {
            for run in &card.runs {
                let started = Instant::now();
                let outcome = certify_run(root, options, card, run, profile, &prefix, &work)?;
                let status = last_line(&outcome.output);
                println!(
                    "{profile} {}: {status} ({:.0} s)",
                    run.format,
                    started.elapsed().as_secs_f64()
                );
                if !outcome.passed {
                    print_file(&outcome.output);
                    failed.push(Failed {
                        what: format!("{} {profile} {}", card.slug(), run.format),
                        output: outcome.output,
                    });
                }
            }
        }
    }
    Ok(failed)
}

fn install(card: &Card, prefix: &Path, log: &Path) -> Result<bool, String> {
    let file = std::fs::File::create(log).map_err(|error| format!("{}: {error}", log.display()))?;
    let errors = file
        .try_clone()
        .map_err(|error| format!("{}: {error}", log.display()))?;
    let status = Command::new("bash")
        .arg(card.folder.join("install.sh"))
        .arg(prefix)
        .stdout(file)
        .stderr(errors)
        .status()
        .map_err(|error| format!("cannot start bash for {}: {error}", card.label()))?;
    Ok(status.success())
}

struct Outcome {
    passed: bool,
    output: PathBuf,
}

fn certify_run(
    root: &Path,
    options: &Options,
    card: &Card,
    run: &CardRun,
    profile: Profile,
    prefix: &Path,
    work: &Path,
) -> Result<Outcome, String> {
    let name = format!("{}-{profile}-{}", card.slug(), run.format);
    let output = work.join(format!("{name}.txt"));
    let validator = validator_command(root, card, run, prefix);
    let mut command = Command::new(&options.soulcheck);
    command
        .args(["run", "--quiet", "--operation", "validate"])
        .args(["--profile", &profile.to_string()])
        .args(["--format", &run.format.to_string()])
        .args(&run.options)
        .args(["--validator", &validator])
        .args(["--timeout", &card.timeout.to_string()])
        .args(["--name", &card.name, "--impl-version", &card.version])
        .arg("--report")
        .arg(options.reports.join(&name));
    if let Some(mapping) = &run.mapping {
        command.arg("--mapping").arg(card.folder.join(mapping));
    }
    let expectations = card.expectations_path(profile);
    if expectations.exists() {
        command.arg("--expectations").arg(&expectations);
    }
    if options.bootstrap {
        command
            .arg("--write-expectations")
            .arg(work.join(format!("{name}.expectations.toml")));
    }
    let file =
        std::fs::File::create(&output).map_err(|error| format!("{}: {error}", output.display()))?;
    let errors = file
        .try_clone()
        .map_err(|error| format!("{}: {error}", output.display()))?;
    let status = command
        .current_dir(root)
        .stdout(file)
        .stderr(errors)
        .status()
        .map_err(|error| format!("cannot start {}: {error}", options.soulcheck.display()))?;
    Ok(Outcome {
        passed: status.success(),
        output,
    })
}

/// A run's validator command with the driver's placeholders filled: `{here}` (the card's
/// folder), `{prefix}` (where it is installed) and `{schemas}`; soulcheck's own
/// placeholders (`{path}`, ...) are left for soulcheck.
pub fn validator_command(root: &Path, card: &Card, run: &CardRun, prefix: &Path) -> String {
    run.validator
        .replace("{here}", &card.folder.display().to_string())
        .replace("{prefix}", &prefix.display().to_string())
        .replace("{schemas}", &root.join("schemas").display().to_string())
}

fn last_line(path: &Path) -> String {
    std::fs::read_to_string(path)
        .ok()
        .and_then(|text| text.lines().last().map(str::to_owned))
        .unwrap_or_default()
}

fn print_file(path: &Path) {
    if let Ok(text) = std::fs::read_to_string(path) {
        print!("{text}");
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A checkout whose implementations/ holds no card certifies nothing: an error, never
    /// a pass.
    #[test]
    fn no_card_is_an_error() {
        let root = std::env::temp_dir().join(format!("xtask-no-card-{}", std::process::id()));
        std::fs::create_dir_all(root.join("implementations")).expect("folder");
        let options = Options {
            soulcheck: root.join("soulcheck"),
            reports: root.join("reports"),
            only: Vec::new(),
            bootstrap: false,
        };
        let outcome = certify(&root, &options);
        std::fs::remove_dir_all(&root).expect("clean");
        let error = outcome.expect_err("no card");
        assert!(error.contains("no implementation folder"), "{error}");
    }
}
