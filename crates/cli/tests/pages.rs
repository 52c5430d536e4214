//! `soulcheck report readings` and `soulcheck report implementations`: the two pages
//! generated from reports (docs/open-readings.md, docs/implementations.md) say what the
//! runs did, case by case, and `--check` fails when a committed copy no longer matches.

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

/// The `name-*` cases of skill-package (definite and implementation-defined) through the
/// reference and through a validator that accepts everything, in the spec profile.
fn reports(dir: &Path) -> [String; 2] {
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
    let [reference, accept_all] = reports(dir.path());
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
    let [reference, accept_all] = reports(dir.path());
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
