//! An interrupted run's records tell what happened (issue "Every record tells the
//! truth"): interrupted at several moments, `report.jsonl` holds a record for every case
//! whose validator started (each validator leaves a marker file when it starts, and
//! another when it answers) and for no case whose validator the harness never started, a
//! case the harness stopped is `interrupted`, never the validator's `crash` or `timeout`,
//! a case that passed had really answered, and the `INCOMPLETE` marker counts the same
//! records.

use std::collections::BTreeSet;
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// Cases in the corpus; two run at a time, each taking its validator about 0.4 s.
const CASES: usize = 10;

/// A validator that marks `started-<case>` when it starts, answers "accept" after 0.4 s,
/// and marks `answered-<case>` just before it does. The case is named in its input.
const VALIDATOR: &str = r#"#!/bin/sh
case=$(sed -n 's/.*"case": *"\([a-z0-9-]*\)".*/\1/p' "$1")
touch "$MARKS/started-$case"
sleep 0.4
touch "$MARKS/answered-$case"
exit 0
"#;

fn write(path: &Path, text: &str) {
    std::fs::create_dir_all(path.parent().expect("parent")).expect("mkdir");
    std::fs::write(path, text).expect("write");
}

/// A corpus of accepting must-level cases, each input naming its case.
fn corpus(root: &Path) {
    write(
        &root.join("soul-kit/rules.toml"),
        "format = \"soul-kit\"\nspec = \"Soul Kit\"\n\n[[rule]]\nid = \"soul-kit.name.length\"\nlevel = \"must\"\nseverity = \"error\"\nsection = \"Field table: name\"\nrequirement = \"name is 1 to 80 characters.\"\nbasis = \"spec\"\n",
    );
    for index in 0..CASES {
        let id = format!("case-{index:02}");
        write(
            &root.join(format!("soul-kit/{id}/case.toml")),
            &format!("description = \"case {index}\"\nrules = [\"soul-kit.name.length\"]\nverdict = \"accept\"\ninput = \"input.soulkit.json\"\n"),
        );
        write(
            &root.join(format!("soul-kit/{id}/input.soulkit.json")),
            &format!("{{\"case\": \"{id}\"}}\n"),
        );
    }
}

/// The marker files of one kind (`started`, `answered`), as case names.
fn marked(marks: &Path, kind: &str) -> BTreeSet<String> {
    std::fs::read_dir(marks)
        .expect("marks")
        .flatten()
        .filter_map(|entry| {
            let name = entry.file_name().to_string_lossy().into_owned();
            name.strip_prefix(&format!("{kind}-"))
                .map(|case| format!("soul-kit/{case}"))
        })
        .collect()
}

/// One interrupted run: `signal` (`INT`, `TERM`, `HUP`) once `after` validators have
/// started, and `then` a moment later if given; the run exits with 128 plus the first
/// signal's number, `code`, whatever comes after it.
fn interrupt_after(after: usize, signal: &str, then: Option<&str>, code: i32) {
    let work = tempfile::tempdir().expect("work");
    let root = work.path();
    corpus(&root.join("corpus"));
    let marks = root.join("marks");
    std::fs::create_dir(&marks).expect("marks");
    let validator = root.join("validator.sh");
    write(&validator, VALIDATOR);
    let chmod = Command::new("chmod")
        .arg("+x")
        .arg(&validator)
        .status()
        .expect("chmod");
    assert!(chmod.success());
    let report = root.join("report");
    let mut run = Command::new(env!("CARGO_BIN_EXE_soulcheck"))
        // No sandbox: the validator leaves its markers outside its own directory.
        .args([
            "run",
            "--quiet",
            "--no-sandbox",
            "--jobs",
            "2",
            "--timeout",
            "60",
        ])
        .arg("--corpus")
        .arg(root.join("corpus"))
        .arg("--validator")
        .arg(format!("{} {{path}}", validator.display()))
        .arg("--report")
        .arg(&report)
        .args(["--env", "MARKS"])
        .env("MARKS", &marks)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("soulcheck run");
    let deadline = Instant::now() + Duration::from_secs(30);
    while marked(&marks, "started").len() < after {
        assert!(
            Instant::now() < deadline,
            "{after}: the validators did not start"
        );
        std::thread::sleep(Duration::from_millis(10));
    }
    let kill = Command::new("kill")
        .arg(format!("-{signal}"))
        .arg(run.id().to_string())
        .status()
        .expect("kill");
    assert!(kill.success());
    if let Some(second) = then {
        // The first signal has been read by then; the run may already have exited, so
        // the second `kill` may find no process.
        std::thread::sleep(Duration::from_millis(200));
        let _ = Command::new("kill")
            .arg(format!("-{second}"))
            .arg(run.id().to_string())
            .stderr(Stdio::null())
            .status();
    }
    let status = run.wait().expect("wait");
    assert_eq!(status.code(), Some(code), "SIG{signal} after {after}");

    let started = marked(&marks, "started");
    let answered = marked(&marks, "answered");
    let jsonl = std::fs::read_to_string(report.join("report.jsonl")).expect("report.jsonl");
    let mut recorded = BTreeSet::new();
    let mut interrupted = 0;
    for line in jsonl.lines() {
        let line: serde_json::Value = serde_json::from_str(line).expect("a JSON line");
        assert_ne!(
            line["type"], "footer",
            "{after}: an interrupted run has no footer"
        );
        if line["type"] != "case" {
            continue;
        }
        let name = line["name"].as_str().expect("name").to_owned();
        let result = line["result"].as_str().expect("result");
        // Before: 75 to 102 `crash` records for cases that never started, and the cases
        // the harness killed recorded as the validator's crash ("killed by signal 9").
        match result {
            "pass" => assert!(
                started.contains(&name) && answered.contains(&name),
                "{after}: {name} passed but its validator never answered"
            ),
            // The harness started its process and stopped it; the process may have been
            // stopped before its first line left the marker, but it was started.
            "interrupted" => interrupted += 1,
            other => panic!("{after}: {name} is `{other}`; the validator did nothing wrong"),
        }
        assert!(recorded.insert(name), "{after}: a case recorded twice");
    }
    // Every validator that left its marker has a record; a record without a marker is a
    // process the harness stopped before its first line ran (`interrupted`, above).
    assert!(
        started.is_subset(&recorded),
        "{after}: started {started:?}, recorded {recorded:?}"
    );
    // Only the cases running when the signal came can have been stopped: two jobs.
    assert!(
        interrupted <= 2,
        "{after}: {interrupted} cases interrupted with two jobs"
    );
    let incomplete = std::fs::read_to_string(report.join("INCOMPLETE")).expect("INCOMPLETE");
    assert!(
        incomplete.contains(&format!(
            "{} of {CASES} cases had started: report.jsonl has a record for each of them ({interrupted} stopped by the interruption",
            recorded.len()
        )),
        "{after}: {incomplete}"
    );
}

#[test]
fn an_interrupted_report_records_exactly_the_cases_that_started() {
    // Early (the first two running), in the middle, and late; by each signal that ends
    // a run cleanly.
    for (after, signal, code) in [(1, "INT", 130), (4, "TERM", 143), (8, "HUP", 129)] {
        interrupt_after(after, signal, None, code);
    }
}

/// Issue 37, item 8: the first signal read decides the exit code; one that comes while
/// the run is ending changes nothing (`SIGTERM` then `SIGINT` exits 143, and the other way
/// round 130).
#[test]
fn a_second_signal_does_not_change_the_exit_code() {
    interrupt_after(2, "TERM", Some("INT"), 143);
    interrupt_after(2, "INT", Some("TERM"), 130);
}
