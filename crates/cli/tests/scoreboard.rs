//! `soulcheck report scoreboard` and the corpus checks of `soulcheck report`: the
//! scoreboard is the same bytes for the same results (in any report order), `--check`
//! passes on an unchanged result and fails, showing the change, on a changed one; and
//! reports made on another corpus are refused unless `--allow-mixed-corpus`, which the
//! page then flags. The two other pages made from reports (`report readings`,
//! docs/open-readings.md; `report implementations`, docs/implementations.md) say what the
//! runs did, case by case, and their `--check` fails on a changed copy. And the
//! expectations files of the implementations CI certifies (implementations/*/, one per
//! profile) classify every known failure of theirs.

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

/// The `name-*` cases of skill-package (definite and implementation-defined) through the
/// reference and through a validator that accepts everything, in the spec profile.
fn name_reports(dir: &Path) -> [String; 2] {
    let selection = ["--format", "skill-package", "--case", "name-*"];
    let reference = dir.join("reference");
    let accept_all = dir.join("accept-all");
    let path = |dir: &Path| dir.to_str().expect("path").to_owned();
    let output = soulcheck(
        &[
            &["run", "--quiet", "--report", &path(&reference)][..],
            &selection,
        ]
        .concat(),
    );
    assert_eq!(output.status.code(), Some(0), "{}", text(&output));
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
                &path(&accept_all),
            ][..],
            &selection,
        ]
        .concat(),
    );
    assert_eq!(output.status.code(), Some(1), "{}", text(&output));
    [reference, accept_all].map(|dir| dir.join("report.jsonl").display().to_string())
}

#[test]
fn the_readings_page_shows_each_open_question_with_every_answer() {
    let dir = tempfile::tempdir().expect("tempdir");
    let [reference, accept_all] = name_reports(dir.path());
    let page = dir.path().join("open-readings.md");
    let page = page.to_str().expect("path");
    let output = soulcheck(&["report", "readings", page, &reference, &accept_all]);
    assert!(output.status.success(), "{}", text(&output));
    let written = std::fs::read_to_string(page).expect("page");
    let version = env!("CARGO_PKG_VERSION");
    for line in [
        // The question, under the rule whose reading it asks about, with its requirement.
        "\n### skill-package.head.name.type\n".to_owned(),
        format!("| case | document | allowed | reference | accept-all 1.0 | soulcheck reference {version} |"),
        // name: 123 is a string to readers that keep every scalar as text: either verdict
        // conforms; the reference rejects, the accept-all validator accepts.
        "| `name-integer` | name: 123, an integer in every YAML schema but failsafe | accept or reject | reject | accept | reject |".to_owned(),
    ] {
        assert!(written.contains(&line), "{line:?} not in\n{written}");
    }
    // A definite case asks no open question.
    assert!(!written.contains("`name-129`"), "{written}");
    let output = soulcheck(&[
        "report",
        "readings",
        "--check",
        page,
        &reference,
        &accept_all,
    ]);
    assert!(output.status.success(), "{}", text(&output));
    std::fs::write(
        page,
        written.replace("| accept | reject |", "| reject | reject |"),
    )
    .expect("edit");
    let output = soulcheck(&[
        "report",
        "readings",
        "--check",
        page,
        &reference,
        &accept_all,
    ]);
    assert_eq!(output.status.code(), Some(1), "{}", text(&output));
    assert!(
        text(&output).contains("soulcheck report readings"),
        "{}",
        text(&output)
    );
}

#[test]
fn the_implementations_page_lists_known_failures_by_rule_with_the_spec_words() {
    let dir = tempfile::tempdir().expect("tempdir");
    let [reference, accept_all] = name_reports(dir.path());
    let folder = dir.path().join("implementations");
    let own = folder.join("accept-all");
    std::fs::create_dir_all(&own).expect("folder");
    std::fs::write(
        own.join("implementation.toml"),
        r#"name = "accept-all"
version = "1.0"
registry = "nowhere"
package = "accept-all"
summary = "Accepts | everything."
command = "accept-all FILE"
reads = "anything"
install = "none"

[[run]]
format = "skill-package"
validator = "{here}/accept-all.sh {path}"
"#,
    )
    .expect("card");
    std::fs::write(
        own.join("expectations.spec.toml"),
        r#"[[failure]]
case = "skill-package/name-129"
rule = "skill-package.head.name.length"
class = "deviation"
spec = "name | Nonempty string, at most 128 characters"
reason = "accepts it: never counts"
"#,
    )
    .expect("expectations");
    std::fs::write(
        folder.join("left-out.toml"),
        "[[left-out]]\nname = \"gone\"\nregistry = \"npm\"\nversion = \"0\"\nreason = \"does not install\"\n",
    )
    .expect("left out");
    let page = dir.path().join("implementations.md");
    let page = page.to_str().expect("path");
    let folder = folder.to_str().expect("path");
    let args = |check: bool| {
        let mut args = vec!["report", "implementations"];
        if check {
            args.push("--check");
        }
        args.extend([page, "--implementations", folder, &reference, &accept_all]);
        args.into_iter().map(str::to_owned).collect::<Vec<String>>()
    };
    let run = |check: bool| {
        let args = args(check);
        soulcheck(&args.iter().map(String::as_str).collect::<Vec<_>>())
    };
    let output = run(false);
    assert!(output.status.success(), "{}", text(&output));
    let written = std::fs::read_to_string(page).expect("page");
    for line in [
        // The summary row: one format, judged in part (only name-* ran), no strict report.
        "| [accept-all 1.0](#accept-all) | nowhere | `skill-package` | 0 of 1 formats certified | no report |",
        // A card's text stays in its cell.
        "Accepts \\| everything.",
        "#### `skill-package.head.name.length`",
        "> name \\| Nonempty string, at most 128 characters",
        "| `skill-package/name-129` | spec | deviation | expected reject, got accept | accepts it: never counts |",
        // A failure the expectations file does not list says so.
        "| not listed | expected reject, got accept |",
        "| gone | npm | 0 | does not install |",
    ] {
        assert!(written.contains(line), "{line:?} not in\n{written}");
    }
    assert!(run(true).status.success(), "{}", text(&run(true)));
    std::fs::write(page, written.replace("deviation", "contested")).expect("edit");
    let output = run(true);
    assert_eq!(output.status.code(), Some(1), "{}", text(&output));
    assert!(
        text(&output).contains("soulcheck report implementations --implementations"),
        "{}",
        text(&output)
    );

    // A folder with no card is a misconfigured run, not an empty page.
    let empty = dir.path().join("empty");
    std::fs::create_dir_all(&empty).expect("empty");
    let output = soulcheck(&[
        "report",
        "implementations",
        page,
        "--implementations",
        empty.to_str().expect("path"),
        &reference,
    ]);
    assert_eq!(output.status.code(), Some(2), "{}", text(&output));
    assert!(
        text(&output).contains("no implementation folder"),
        "{}",
        text(&output)
    );
}

/// A card is untrusted text: an escape sequence in it reaches the page shown, never raw,
/// and a card past the 4 MiB cap of a configuration file is refused unread, with a short
/// message, before anything is written.
#[test]
fn a_hostile_card_is_shown_escaped_and_an_oversized_one_refused() {
    let dir = tempfile::tempdir().expect("tempdir");
    let [reference, _] = name_reports(dir.path());
    let folder = dir.path().join("implementations");
    let own = folder.join("hostile");
    std::fs::create_dir_all(&own).expect("folder");
    let card = |summary: &str| {
        format!(
            "name = \"hostile\"\nversion = \"1\"\nregistry = \"npm\"\npackage = \"hostile\"\nsummary = \"{summary}\"\ncommand = \"x\"\nreads = \"x\"\ninstall = \"x\"\n\n[[run]]\nformat = \"skill-package\"\nvalidator = \"x {{path}}\"\n"
        )
    };
    std::fs::write(
        own.join("implementation.toml"),
        card("red \\u001b[31m\\nnew row"),
    )
    .expect("card");
    let page = dir.path().join("implementations.md");
    let page = page.to_str().expect("path");
    let folder = folder.to_str().expect("path");
    let output = soulcheck(&[
        "report",
        "implementations",
        page,
        "--implementations",
        folder,
        &reference,
    ]);
    assert!(output.status.success(), "{}", text(&output));
    let written = std::fs::read_to_string(page).expect("page");
    assert!(!written.contains('\u{1b}'), "{written}");
    assert!(written.contains("red \\x1b[31m\\nnew row"), "{written}");

    std::fs::remove_file(page).expect("remove");
    let padding = "a".repeat(4 * 1024 * 1024);
    std::fs::write(own.join("implementation.toml"), card(&padding)).expect("card");
    let output = soulcheck(&[
        "report",
        "implementations",
        page,
        "--implementations",
        folder,
        &reference,
    ]);
    assert_eq!(output.status.code(), Some(2), "{}", text(&output));
    assert!(
        text(&output).contains("more than the 4194304 bytes read"),
        "{}",
        text(&output)
    );
    assert!(
        output.stdout.len() + output.stderr.len() < 4096,
        "{}",
        text(&output)
    );
    assert!(!Path::new(page).exists(), "nothing written");
}
