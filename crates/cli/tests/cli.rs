//! The command line's own output, snapshotted: help texts, `check` in both renderings,
//! listings, a small `run`, the errors a user meets, and a closed pipe. Each test runs the
//! real binary from the repository root, so paths in the output are stable.

use std::io::Read as _;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// Runs `soulcheck ARGS` and renders its exit code, standard output and standard error.
fn soulcheck(args: &[&str]) -> String {
    let output = Command::new(env!("CARGO_BIN_EXE_soulcheck"))
        .args(args)
        .current_dir(root())
        .env_remove("SOULCHECK_CORPUS")
        .env("CI", "true")
        .output()
        .expect("soulcheck runs");
    format!(
        "$ soulcheck {}\nexit: {}\n--- stdout\n{}--- stderr\n{}",
        args.join(" "),
        output
            .status
            .code()
            .map_or("signal".to_owned(), |code| code.to_string()),
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    )
}

fn snapshot(name: &str, text: &str) {
    let mut settings = insta::Settings::clone_current();
    settings.set_snapshot_path(Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/snapshots"));
    settings.set_prepend_module_to_snapshot(false);
    settings.set_omit_expression(true);
    settings.bind(|| insta::assert_snapshot!(name, text));
}

#[test]
fn help() {
    snapshot("help", &soulcheck(&["--help"]));
    snapshot("run-help", &soulcheck(&["run", "--help"]));
    snapshot("rules-help", &soulcheck(&["rules", "--help"]));
    snapshot("check-help", &soulcheck(&["check", "--help"]));
}

#[test]
fn check_renders_text_and_json() {
    let input = "cases/soul-kit/name-length-81/input.soulkit.json";
    snapshot("check-text", &soulcheck(&["check", input]));
    snapshot("check-json", &soulcheck(&["check", input, "--json"]));
    snapshot(
        "check-operation",
        &soulcheck(&[
            "check",
            "cases/compose-bundle/fingerprint-field-notes-vector/manifest.json",
            "--format",
            "compose-bundle",
            "--operation",
            "fingerprint",
        ]),
    );
}

#[test]
fn user_errors_exit_2_with_a_hint() {
    snapshot("check-unknown-format", &soulcheck(&["check", "Cargo.toml"]));
    snapshot(
        "check-missing-file",
        &soulcheck(&["check", "missing.soulkit.json"]),
    );
    snapshot(
        "check-unknown-operation",
        &soulcheck(&[
            "check",
            "cases/soul-md/soul-md-all-optional-sections/SOUL.md",
            "--operation",
            "whoami",
        ]),
    );
    snapshot(
        "run-unknown-format-name",
        &soulcheck(&["run", "--format", "soul-kid"]),
    );
}

#[test]
fn listings() {
    snapshot(
        "rules-soul-md",
        &soulcheck(&["rules", "--format", "soul-md"]),
    );
}

#[test]
fn a_small_run() {
    snapshot(
        "run-name-length",
        &soulcheck(&["run", "--format", "soul-kit", "--case", "name-length-8*"]),
    );
}

#[test]
fn version_names_the_built_in_corpus() {
    let text = soulcheck(&["--version"]);
    assert!(
        text.contains(&format!("(corpus {})", soulcheck_corpus::CONTENT_HASH)),
        "{text}"
    );
}

/// `soulcheck rules | head -1` ends quietly with exit 0 when the reader goes away.
#[test]
fn a_closed_pipe_ends_quietly() {
    for args in [&["rules"][..], &["cases"], &["rules", "--json"]] {
        let mut child = Command::new(env!("CARGO_BIN_EXE_soulcheck"))
            .args(args)
            .current_dir(root())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("soulcheck runs");
        let mut stdout = child.stdout.take().expect("stdout");
        let mut first = [0u8; 16];
        stdout.read_exact(&mut first).expect("some output");
        drop(stdout);
        let mut stderr = String::new();
        child
            .stderr
            .take()
            .expect("stderr")
            .read_to_string(&mut stderr)
            .expect("stderr");
        let status = child.wait().expect("exit");
        assert_eq!(status.code(), Some(0), "{args:?}: {stderr}");
        assert_eq!(stderr, "", "{args:?}");
    }
}
