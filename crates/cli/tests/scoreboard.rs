//! `soulcheck report scoreboard` and the corpus checks of `soulcheck report`: the
//! scoreboard is the same bytes for the same results (in any report order), `--check`
//! passes on an unchanged result and fails, showing the change, on a changed one; and
//! reports made on another corpus are refused unless `--allow-mixed-corpus`, which the
//! page then flags. And the expectations files of the implementations CI certifies
//! (implementations/*/, one per profile) classify every known failure of theirs.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn soulcheck(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_soulcheck"))
        .args(args)
        .current_dir(root())
        .env_remove("SOULCHECK_CORPUS")
        .env("CI", "true")
        .output()
        .expect("soulcheck runs")
}

fn text(output: &Output) -> String {
    format!(
        "exit {:?}\n{}{}",
        output.status.code(),
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    )
}

/// The fingerprint cases of soul-md through the reference and through a validator that
/// accepts everything; returns the two report.jsonl paths.
fn reports(dir: &Path) -> [String; 2] {
    let selection = ["--format", "soul-md", "--case", "soul-md-fingerprint-*"];
    let reference = dir.join("reference");
    let accept_all = dir.join("accept-all");
    let output = soulcheck(
        &[
            &[
                "run",
                "--quiet",
                "--report",
                reference.to_str().expect("path"),
            ][..],
            &selection,
        ]
        .concat(),
    );
    assert_ne!(output.status.code(), Some(2), "{}", text(&output));
    let output = soulcheck(
        &[
            &[
                "run",
                "--quiet",
                "--validator",
                "crates/cli/tests/fixtures/hostile-accept-all.sh {path}",
                "--name",
                "accept-all",
                "--impl-version",
                "1.0",
                "--report",
                accept_all.to_str().expect("path"),
            ][..],
            &selection,
        ]
        .concat(),
    );
    assert_eq!(output.status.code(), Some(1), "{}", text(&output));
    [reference, accept_all].map(|dir| dir.join("report.jsonl").display().to_string())
}

/// Rewrites one case record of a report.
fn edit_record(report: &str, edit: impl Fn(&mut serde_json::Value) -> bool) -> String {
    let text = std::fs::read_to_string(report).expect("report");
    let mut done = None;
    let lines: Vec<String> = text
        .lines()
        .map(|line| {
            let mut value: serde_json::Value = serde_json::from_str(line).expect("json");
            if done.is_none() && edit(&mut value) {
                done = value["name"].as_str().map(str::to_owned);
                value.to_string()
            } else {
                line.to_owned()
            }
        })
        .collect();
    std::fs::write(report, lines.join("\n") + "\n").expect("write");
    done.expect("a record was edited")
}

#[test]
fn a_changed_result_fails_the_scoreboard_check() {
    let dir = tempfile::tempdir().expect("tempdir");
    let [reference, accept_all] = reports(dir.path());
    let board = dir.path().join("scoreboard.md");
    let board = board.to_str().expect("path");
    let output = soulcheck(&["report", "scoreboard", board, &reference, &accept_all]);
    assert!(output.status.success(), "{}", text(&output));
    let written = std::fs::read_to_string(board).expect("scoreboard");
    let version = env!("CARGO_PKG_VERSION");
    for line in [
        // Both runs selected only the fingerprint cases of soul-md's validation.
        format!("| soulcheck reference {version} | spec | soul-md | not a certification ("),
        "| accept-all 1.0 | spec | soul-md | not a certification (".to_owned(),
        "### accept-all 1.0, spec profile (".to_owned(),
        format!("### soulcheck reference {version}, spec profile (0 of "),
        ": wrong-verdict (expected reject, got accept)".to_owned(),
    ] {
        assert!(written.contains(&line), "{line:?} not in\n{written}");
    }
    // Nothing that differs between two runs with the same results.
    for volatile in ["started_at", "duration", "/tmp", "T0", "T1", "T2"] {
        assert!(!written.contains(volatile), "{volatile:?} in\n{written}");
    }

    // The order of the reports does not matter.
    let swapped = dir.path().join("swapped.md");
    let swapped = swapped.to_str().expect("path");
    let output = soulcheck(&["report", "scoreboard", swapped, &accept_all, &reference]);
    assert!(output.status.success(), "{}", text(&output));
    assert_eq!(
        std::fs::read_to_string(swapped).expect("scoreboard"),
        written
    );

    // Unchanged results pass the check.
    let check = || {
        soulcheck(&[
            "report",
            "scoreboard",
            "--check",
            board,
            &reference,
            &accept_all,
        ])
    };
    let output = check();
    assert_eq!(output.status.code(), Some(0), "{}", text(&output));
    assert!(text(&output).contains("is up to date"), "{}", text(&output));

    // One result changed: the check fails and shows the change.
    let changed = edit_record(&reference, |record| {
        if record["type"] == "case"
            && record["result"] == "pass"
            && record["operation"] == "validate"
        {
            record["result"] = "wrong-verdict".into();
            true
        } else {
            false
        }
    });
    let output = check();
    let shown = text(&output);
    assert_eq!(output.status.code(), Some(1), "{shown}");
    assert!(shown.contains("differs from the results"), "{shown}");
    assert!(
        shown.contains(&format!("\n+- `{changed}`: wrong-verdict")),
        "{shown}"
    );
    assert!(
        shown.contains(&format!(
            "\n-| soulcheck reference {version} | spec | soul-md | not a certification ("
        )),
        "{shown}"
    );
    assert!(shown.contains("hint: if the change is intended"), "{shown}");
}

#[test]
fn reports_on_another_corpus_are_refused_or_flagged() {
    let dir = tempfile::tempdir().expect("tempdir");
    let [reference, accept_all] = reports(dir.path());
    let other = "sha256:0000000000000000000000000000000000000000000000000000000000000000";
    let text_of = std::fs::read_to_string(&accept_all).expect("report");
    let (header, rest) = text_of.split_once('\n').expect("lines");
    let mut header: serde_json::Value = serde_json::from_str(header).expect("json");
    header["corpus_hash"] = other.into();
    std::fs::write(&accept_all, format!("{header}\n{rest}")).expect("write");

    let page = dir.path().join("page.html");
    let page = page.to_str().expect("path");
    let output = soulcheck(&["report", "html", page, &reference, &accept_all]);
    assert_eq!(output.status.code(), Some(2), "{}", text(&output));
    assert!(
        text(&output).contains("--allow-mixed-corpus"),
        "{}",
        text(&output)
    );
    let output = soulcheck(&["report", "scoreboard", page, &accept_all]);
    assert_eq!(output.status.code(), Some(2), "{}", text(&output));
    assert!(
        text(&output).contains("this soulcheck reads corpus"),
        "{}",
        text(&output)
    );

    let output = soulcheck(&[
        "report",
        "html",
        page,
        &reference,
        &accept_all,
        "--allow-mixed-corpus",
    ]);
    assert!(output.status.success(), "{}", text(&output));
    let html = std::fs::read_to_string(page).expect("page");
    assert!(html.contains("made on different corpora"), "flagged");
    assert!(html.contains(other));
}

/// Every implementation CI certifies (implementations/*/) has a card that loads, and
/// expectations files (one per profile) whose every entry names a validation case of this
/// corpus, the case's rule it is about and its class; a deviation quotes the spec, and no
/// entry is left contested: a contested reading is the corpus's to change.
#[test]
fn every_certified_implementation_classifies_each_known_failure() {
    use soulcheck_harness::expectations::FailureClass;
    use soulcheck_harness::report::implementations::{load_cards, Certified};
    use soulcheck_vocabulary::Profile;
    let corpus = soulcheck_harness::Corpus::embedded(&soulcheck_corpus::CASES).expect("corpus");
    let cards = load_cards(&root().join("implementations")).expect("cards load");
    assert!(
        cards.len() >= 4,
        "at least four implementations beside the reference"
    );
    let registries: std::collections::BTreeSet<&str> =
        cards.iter().map(|card| card.registry.as_str()).collect();
    assert!(registries.len() >= 2, "{registries:?}");
    for card in cards {
        let label = card.label();
        for profile in [Profile::Spec, Profile::Strict] {
            assert!(
                card.expectations_path(profile).is_file() || profile == Profile::Spec,
                "{label}: no {profile} expectations file"
            );
        }
        let formats: Vec<_> = card.runs.iter().map(|run| run.format).collect();
        // Loading refuses a case the corpus lacks, a case listed twice, a rule the case is
        // not written for and a deviation without the spec's words.
        let certified =
            Certified::load(card, &corpus.cases).unwrap_or_else(|error| panic!("{label}: {error}"));
        for (profile, expectations) in &certified.expectations {
            for (name, known) in expectations.entries() {
                let case = corpus
                    .cases
                    .iter()
                    .find(|case| &case.name() == name)
                    .expect("loaded");
                // CI runs every implementation with --operation validate, on its formats.
                assert_eq!(case.operation, "validate", "{label} {profile}: {name}");
                assert!(formats.contains(&case.format), "{label} {profile}: {name}");
                assert!(
                    known.rule.is_some(),
                    "{label} {profile}: {name} names no rule"
                );
                match known.class {
                    Some(FailureClass::Deviation | FailureClass::Strict) => {}
                    Some(FailureClass::Contested) => panic!(
                        "{label} {profile}: {name} is contested: change the corpus (CONTRIBUTING.md)"
                    ),
                    None => panic!("{label} {profile}: {name} has no class"),
                }
                if known.class == Some(FailureClass::Strict) {
                    assert_eq!(
                        *profile,
                        Profile::Strict,
                        "{label}: {name}: `strict` in the spec profile"
                    );
                }
            }
        }
    }
}
