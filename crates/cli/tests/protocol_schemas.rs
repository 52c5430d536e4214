//! Holds real protocol output against the JSON Schemas of `schemas/protocol/v1/`, so the
//! schemas an implementer in another language reads describe what soulcheck actually
//! sends and writes, and cannot drift from the wire types unnoticed:
//!
//! - the schemas themselves: each is a valid draft 2020-12 schema with its `$id`, title
//!   and description, every reference between them resolves, and their closed word lists
//!   (format names, verdicts, results, ...) are the ones the code uses;
//! - the result object: the reference's `check --json` report for every corpus case in
//!   process, and a handful through the real binary;
//! - the persistent mode: a full transcript with `soulcheck serve` (start, one run per
//!   corpus case, stop), every line checked in both directions;
//! - the files a run writes: `report.jsonl` and the certificates of `soulcheck run
//!   --report` in each validator mode and profile, passing and failing, with every
//!   diagnostics grade and the evidence of fixture validators that crash, time out, flood
//!   their output or break the protocol;
//! - the `cases export` metadata (`index.json`, every `case.json`, every `rules.json`),
//!   `soulcheck rules --json` and `soulcheck cases --json`, of the corpus and of a small
//!   one with every kind of rule basis, optional diagnostics and a strict expectation;
//! - and a few deliberately wrong messages, so every schema is seen to reject something.

use std::collections::{BTreeMap, BTreeSet};
use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use base64::Engine as _;
use serde_json::{json, Value};
use soulcheck_harness::runner::{prepare_input, profile_context, Grade, Judgement};
use soulcheck_harness::store::Store;
use soulcheck_harness::{Case, Catalogue, Corpus, ExpectedDiagnostic, Input};
use soulcheck_vocabulary::wire::{self, InputMessage, RunRequest};
use soulcheck_vocabulary::{Basis, Format, Level, Profile, Severity, Verdict};

/// The schema directory, relative to this crate.
const SCHEMA_DIR: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../../schemas/protocol/v1");

/// Every schema of protocol version 1, by file stem (`<stem>.schema.json`).
const NAMES: [&str; 11] = [
    "report",
    "command",
    "hello",
    "reply",
    "goodbye",
    "report-jsonl",
    "certificate",
    "case",
    "index",
    "rules",
    "cases",
];

const BIN: &str = env!("CARGO_BIN_EXE_soulcheck");

/// The `$id` of a schema: the file stem under one URN namespace, so the schemas refer to
/// each other without naming a host.
fn schema_id(name: &str) -> String {
    format!("urn:soulcheck:protocol:v1:{name}")
}

fn read_schema(name: &str) -> Value {
    let path = Path::new(SCHEMA_DIR).join(format!("{name}.schema.json"));
    let text = std::fs::read_to_string(&path)
        .unwrap_or_else(|error| panic!("cannot read {}: {error}", path.display()));
    serde_json::from_str(&text)
        .unwrap_or_else(|error| panic!("{} is not JSON: {error}", path.display()))
}

/// The compiled schemas, each able to resolve its references to the others.
struct Schemas {
    documents: BTreeMap<&'static str, Value>,
    validators: BTreeMap<&'static str, jsonschema::Validator>,
}

impl Schemas {
    fn load() -> Schemas {
        let documents: BTreeMap<&'static str, Value> = NAMES
            .iter()
            .map(|name| (*name, read_schema(name)))
            .collect();
        let registry = jsonschema::Registry::new()
            .extend(
                documents
                    .iter()
                    .map(|(name, document)| (schema_id(name), document)),
            )
            .and_then(|builder| builder.prepare())
            .expect("the schemas form a registry");
        let validators = documents
            .iter()
            .map(|(name, document)| {
                // Formats are asserted, not just annotations: pointers and timestamps are
                // part of what the schemas promise.
                let validator = jsonschema::options()
                    .with_registry(&registry)
                    .should_validate_formats(true)
                    .build(document)
                    .unwrap_or_else(|error| panic!("{name}.schema.json does not compile: {error}"));
                (*name, validator)
            })
            .collect();
        // The registry borrows the documents; it is done with them once all are compiled.
        drop(registry);
        Schemas {
            documents,
            validators,
        }
    }

    /// The reasons `instance` fails schema `name`, empty when it conforms.
    fn errors(&self, name: &str, instance: &Value) -> Vec<String> {
        self.validators[name]
            .iter_errors(instance)
            .map(|error| format!("at {:?}: {error}", error.instance_path().as_str()))
            .collect()
    }

    /// Records in `failures` every way `instance` (described by `what`) fails schema `name`.
    fn check(&self, name: &str, instance: &Value, what: &str, failures: &mut Vec<String>) {
        let errors = self.errors(name, instance);
        if !errors.is_empty() {
            failures.push(format!(
                "{what} against {name}.schema.json:\n    {}\n    instance: {}",
                errors.join("\n    "),
                abbreviate(&instance.to_string())
            ));
        }
    }
}

fn abbreviate(text: &str) -> String {
    if text.chars().count() > 400 {
        format!("{}...", text.chars().take(400).collect::<String>())
    } else {
        text.to_owned()
    }
}

fn assert_no_failures(failures: &[String], checked: usize, what: &str) {
    assert!(
        failures.is_empty(),
        "{} of {checked} {what} do not match their schema:\n{}",
        failures.len(),
        failures
            .iter()
            .take(20)
            .cloned()
            .collect::<Vec<_>>()
            .join("\n")
    );
}

fn corpus() -> Corpus {
    Corpus::embedded(&soulcheck_corpus::CASES).expect("the embedded corpus loads")
}

fn catalogue() -> Catalogue {
    Catalogue::open(&Store::Embedded(&soulcheck_corpus::CASES))
        .expect("the embedded catalogue loads")
}

/// The enum of a string schema, as a set.
fn enum_of(schema: &Value) -> BTreeSet<String> {
    schema["enum"]
        .as_array()
        .unwrap_or_else(|| panic!("no enum in {schema}"))
        .iter()
        .map(|value| value.as_str().expect("a string enum").to_owned())
        .collect()
}

/// What a value serialises to, as a string (for enums of unit variants).
fn name_of(value: impl serde::Serialize) -> String {
    serde_json::to_value(value)
        .expect("serialises")
        .as_str()
        .expect("a string")
        .to_owned()
}

#[test]
fn schemas_are_valid_and_complete() {
    let mut on_disk: Vec<String> = std::fs::read_dir(SCHEMA_DIR)
        .expect("schema directory")
        .map(|entry| {
            entry
                .expect("entry")
                .file_name()
                .to_string_lossy()
                .into_owned()
        })
        .collect();
    on_disk.sort();
    let mut expected: Vec<String> = NAMES
        .iter()
        .map(|name| format!("{name}.schema.json"))
        .collect();
    expected.sort();
    assert_eq!(
        on_disk, expected,
        "every schema file is listed in NAMES, and only those exist"
    );
    for name in NAMES {
        let schema = read_schema(name);
        if let Err(error) = jsonschema::meta::validate(&schema) {
            panic!("{name}.schema.json is not a valid schema: {error}");
        }
        assert_eq!(
            schema["$schema"], "https://json-schema.org/draft/2020-12/schema",
            "{name}: draft 2020-12"
        );
        assert_eq!(schema["$id"], schema_id(name).as_str(), "{name}: $id");
        for member in ["title", "description"] {
            assert!(
                schema[member].as_str().is_some_and(|text| !text.is_empty()),
                "{name}: needs a {member}"
            );
        }
    }
    // The prose names every schema, by its path from the repository root.
    let prose = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../harness/PROTOCOL.md"
    ))
    .expect("PROTOCOL.md");
    for name in NAMES {
        let path = format!("schemas/protocol/v1/{name}.schema.json");
        assert!(prose.contains(&path), "PROTOCOL.md does not name {path}");
    }
    // Compiling resolves every `$ref`, within and across files, and every pattern.
    let schemas = Schemas::load();
    assert_eq!(schemas.validators.len(), NAMES.len());
}

#[test]
fn closed_word_lists_match_the_code() {
    let schemas = Schemas::load();
    let report = &schemas.documents["report"]["$defs"];
    let formats: BTreeSet<String> = Format::ALL.iter().map(|f| f.name().to_owned()).collect();
    assert_eq!(enum_of(&report["format"]), formats, "format names");
    let verdicts: BTreeSet<String> = [Verdict::Accept, Verdict::Reject]
        .into_iter()
        .map(name_of)
        .collect();
    assert_eq!(enum_of(&report["verdict"]), verdicts, "verdicts");
    let severities: BTreeSet<String> = [Severity::Error, Severity::Warning]
        .into_iter()
        .map(name_of)
        .collect();
    assert_eq!(enum_of(&report["severity"]), severities, "severities");
    let levels: BTreeSet<String> = [Level::Must, Level::Should, Level::May]
        .into_iter()
        .map(name_of)
        .collect();
    assert_eq!(
        enum_of(&schemas.documents["rules"]["$defs"]["rule"]["properties"]["level"]),
        levels,
        "levels"
    );
    let bases: BTreeSet<String> = [Basis::Spec, Basis::Upstream, Basis::Suite]
        .into_iter()
        .map(name_of)
        .collect();
    assert_eq!(
        enum_of(&schemas.documents["rules"]["$defs"]["basis"]),
        bases,
        "bases"
    );
    let jsonl = &schemas.documents["report-jsonl"]["$defs"];
    let profiles: BTreeSet<String> = Profile::ALL.into_iter().map(name_of).collect();
    assert_eq!(enum_of(&jsonl["profile"]), profiles, "profiles");
    let grades = [Grade::Exact, Grade::Partial, Grade::Wrong, Grade::None];
    for grade in grades {
        assert_eq!(name_of(grade), grade.name(), "a grade's name is its JSON");
    }
    assert_eq!(
        enum_of(&jsonl["grade"]),
        grades.into_iter().map(name_of).collect(),
        "diagnostics grades"
    );
    // A grade tally counts every grade, and nothing else.
    let tally: BTreeSet<String> = jsonl["grade_tally"]["required"]
        .as_array()
        .expect("required")
        .iter()
        .map(|name| name.as_str().expect("a name").to_owned())
        .collect();
    assert_eq!(tally, enum_of(&jsonl["grade"]), "grade tally members");

    // Every judgement the runner can reach, by the name reports use.
    let diagnostic = ExpectedDiagnostic {
        rule: "soul-kit.name.length".to_owned(),
        severity: Severity::Error,
        location: Default::default(),
    };
    let judgements = [
        Judgement::Pass,
        Judgement::WrongVerdict {
            expected: "reject".to_owned(),
            actual: Verdict::Accept,
        },
        Judgement::WrongDiagnostics {
            missing: vec![diagnostic.clone()],
            unexpected: vec![diagnostic],
        },
        Judgement::WrongValue {
            expected: json!(1),
            others: vec![json!(2)],
            actual: None,
        },
        Judgement::Skipped {
            reason: String::new(),
        },
        Judgement::Crashed {
            message: String::new(),
        },
        Judgement::TimedOut,
        Judgement::ProtocolError {
            message: String::new(),
        },
        Judgement::ExpectedFailure {
            actual: Box::new(Judgement::TimedOut),
            reason: String::new(),
        },
        Judgement::UnexpectedPass {
            reason: String::new(),
        },
        Judgement::InputError {
            message: String::new(),
        },
        Judgement::Interrupted {
            message: String::new(),
        },
    ];
    let names: BTreeSet<String> = judgements
        .iter()
        .map(|judgement| judgement.name().to_owned())
        .collect();
    assert_eq!(
        enum_of(&schemas.documents["report-jsonl"]["$defs"]["judgement"]),
        names,
        "results"
    );
    // A failure's explanation is never empty, which the record schema relies on.
    for judgement in &judgements[1..] {
        assert!(!judgement.explain().is_empty(), "{}", judgement.name());
    }
}

/// The `Input` of the reference for a prepared harness input.
fn reference_input(input: &Input) -> soulcheck_reference::Input<'_> {
    match input {
        Input::Document { file_name, bytes } => soulcheck_reference::Input::Document {
            name: file_name,
            bytes,
        },
        Input::Tree { root } => soulcheck_reference::Input::Tree(root),
        _ => panic!("an input kind this test does not know"),
    }
}

#[test]
fn check_json_report_of_every_case() {
    let schemas = Schemas::load();
    let corpus = corpus();
    let mut failures = Vec::new();
    let mut shapes = BTreeSet::new();
    for case in &corpus.cases {
        let input = prepare_input(case).expect("input");
        let report = soulcheck_reference::check(
            case.format,
            &case.operation,
            reference_input(&input),
            &case.context,
        )
        .unwrap_or_else(|error| panic!("{}: {error}", case.name()));
        let value = serde_json::to_value(report.to_wire()).expect("serialises");
        schemas.check("report", &value, &case.name(), &mut failures);
        for diagnostic in value["diagnostics"].as_array().into_iter().flatten() {
            let object = diagnostic.as_object().expect("object");
            shapes.insert(
                ["pointer", "line", "column"]
                    .into_iter()
                    .filter(|member| object.contains_key(*member))
                    .collect::<Vec<_>>()
                    .join("+"),
            );
        }
    }
    assert_no_failures(&failures, corpus.cases.len(), "check --json reports");
    // The corpus exercises every kind of location the schema allows.
    assert_eq!(
        shapes,
        BTreeSet::from(["", "line+column", "pointer", "pointer+line+column"].map(String::from)),
        "location shapes seen"
    );
}

/// A few cases for the real binary: the first of each format, operation and kind of
/// expected location, so documents, trees, values and every location shape go through
/// `soulcheck check --json`.
fn sample(corpus: &Corpus) -> Vec<&Case> {
    let mut seen = BTreeSet::new();
    corpus
        .cases
        .iter()
        .filter(|case| {
            let shape = case.diagnostics.first().map(|diagnostic| {
                (
                    diagnostic.location.pointer.is_some(),
                    diagnostic.location.line.is_some(),
                )
            });
            seen.insert((case.format, case.operation.clone(), shape))
        })
        .collect()
}

#[test]
fn check_json_through_the_binary() {
    let schemas = Schemas::load();
    let corpus = corpus();
    let cases = sample(&corpus);
    let mut failures = Vec::new();
    let scratch = tempfile::tempdir().expect("tempdir");
    for (index, case) in cases.iter().enumerate() {
        let input = prepare_input(case).expect("input");
        let path = match &*input {
            Input::Document { file_name, bytes } => {
                let dir = scratch.path().join(index.to_string());
                std::fs::create_dir(&dir).expect("dir");
                let path = dir.join(file_name);
                std::fs::write(&path, bytes).expect("write input");
                path
            }
            Input::Tree { root } => root.clone(),
            _ => panic!("an input kind this test does not know"),
        };
        let output = Command::new(BIN)
            .arg("check")
            .arg(&path)
            .args(["--format", case.format.name()])
            .args(["--operation", &case.operation])
            .arg("--context-json")
            .arg(Value::Object(case.context.clone()).to_string())
            .arg("--json")
            .output()
            .expect("soulcheck check runs");
        let value: Value = serde_json::from_slice(&output.stdout).unwrap_or_else(|error| {
            panic!(
                "{}: stdout is not JSON ({error}): {}",
                case.name(),
                String::from_utf8_lossy(&output.stderr)
            )
        });
        // Past a bound of the reference: declined, exit 3 with the reason on stdout.
        if let Some(reason) = value.get("skipped") {
            let reason = reason.as_str().unwrap_or_default();
            assert!(
                case.reference_not_judged && reason.starts_with("not judged: "),
                "{}: skipped ({reason})",
                case.name()
            );
            assert_eq!(output.status.code(), Some(3), "{}", case.name());
            continue;
        }
        schemas.check("report", &value, &case.name(), &mut failures);
        // The per-case protocol ties the printed verdict to the exit code.
        let expected_code = if value["verdict"] == "accept" { 0 } else { 1 };
        assert_eq!(
            output.status.code(),
            Some(expected_code),
            "{}: exit code against verdict {}",
            case.name(),
            value["verdict"]
        );
    }
    assert!(cases.len() >= 10, "only {} sample cases", cases.len());
    assert_no_failures(&failures, cases.len(), "check --json outputs");
}

/// Builds the `run` command for a case the way the harness's persistent validator does:
/// documents inline as standard base64 of their exact bytes, trees by the path of the
/// private copy.
fn run_command(seq: u64, case: &Case, input: &Input) -> wire::Command {
    let input = match input {
        Input::Document { file_name, bytes } => InputMessage::Document {
            name: file_name.clone(),
            base64: base64::engine::general_purpose::STANDARD.encode(bytes),
        },
        Input::Tree { root } => InputMessage::Tree {
            path: root.to_string_lossy().into_owned(),
        },
        _ => panic!("an input kind this test does not know"),
    };
    wire::Command::Run(RunRequest {
        seq,
        case: case.id.clone(),
        format: case.format,
        operation: case.operation.clone(),
        input,
        context: case.context.clone(),
    })
}

/// One side of a persistent-mode conversation with `soulcheck serve`.
struct Serve {
    child: std::process::Child,
    stdin: std::process::ChildStdin,
    stdout: BufReader<std::process::ChildStdout>,
}

impl Serve {
    fn start() -> Serve {
        let mut child = Command::new(BIN)
            .arg("serve")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .expect("soulcheck serve starts");
        let stdin = child.stdin.take().expect("stdin");
        let stdout = BufReader::new(child.stdout.take().expect("stdout"));
        Serve {
            child,
            stdin,
            stdout,
        }
    }

    /// Sends one line and reads the one-line answer.
    fn exchange(&mut self, line: &str) -> String {
        writeln!(self.stdin, "{line}").expect("write a command");
        self.stdin.flush().expect("flush");
        let mut reply = String::new();
        let read = self.stdout.read_line(&mut reply).expect("read a reply");
        assert!(read > 0, "soulcheck serve closed its output after {line}");
        assert!(reply.ends_with('\n'), "a reply is one whole line");
        reply
    }
}

/// Parses one line of the protocol: exactly one JSON object.
fn parse_line(line: &str) -> Value {
    let value: Value = serde_json::from_str(line.trim_end_matches('\n'))
        .unwrap_or_else(|error| panic!("not JSON ({error}): {line}"));
    assert!(value.is_object(), "not an object: {line}");
    value
}

#[test]
fn persistent_transcript_of_every_case() {
    let schemas = Schemas::load();
    let corpus = corpus();
    let mut failures = Vec::new();
    let mut serve = Serve::start();
    let mut lines = 0;

    let start = serde_json::to_string(&wire::Command::Start {
        version: wire::PROTOCOL_VERSION,
    })
    .expect("serialises");
    schemas.check("command", &parse_line(&start), "start", &mut failures);
    let hello = parse_line(&serve.exchange(&start));
    schemas.check("hello", &hello, "hello", &mut failures);
    lines += 2;

    let mut kinds = BTreeMap::<&str, usize>::new();
    for (index, case) in corpus.cases.iter().enumerate() {
        // Sequence numbers start at 1, as the harness's do.
        let seq = index as u64 + 1;
        let input = prepare_input(case).expect("input");
        let command = serde_json::to_string(&run_command(seq, case, &input)).expect("serialises");
        let what = format!("run {}", case.name());
        schemas.check("command", &parse_line(&command), &what, &mut failures);
        let reply = parse_line(&serve.exchange(&command));
        schemas.check("reply", &reply, &format!("reply to {what}"), &mut failures);
        assert_eq!(reply["seq"], seq, "{what}: the reply repeats seq");
        let kind = if reply.get("verdict").is_some() {
            "result"
        } else if reply.get("skipped").is_some() {
            "skipped"
        } else {
            "errored"
        };
        *kinds.entry(kind).or_default() += 1;
        lines += 2;
    }
    // The reference implements every case, so every reply is a result, but for the cases
    // past one of its bounds, which it declines as not judged (this is the spec profile).
    let not_judged = corpus
        .cases
        .iter()
        .filter(|case| case.reference_not_judged)
        .count();
    assert_eq!(
        kinds.get("result"),
        Some(&(corpus.cases.len() - not_judged)),
        "{kinds:?}"
    );
    assert_eq!(
        kinds.get("skipped").copied().unwrap_or(0),
        not_judged,
        "{kinds:?}"
    );

    let stop = serde_json::to_string(&wire::Command::Stop).expect("serialises");
    schemas.check("command", &parse_line(&stop), "stop", &mut failures);
    let goodbye = parse_line(&serve.exchange(&stop));
    schemas.check("goodbye", &goodbye, "goodbye", &mut failures);
    lines += 2;
    drop(serve.stdin);
    let status = serve.child.wait().expect("serve exits");
    assert!(status.success(), "soulcheck serve exits cleanly after stop");
    assert_no_failures(&failures, lines, "transcript lines");
}

#[test]
fn serve_answers_unreadable_requests_within_the_schema() {
    // The reference's errored replies, including the one without a readable seq.
    let schemas = Schemas::load();
    let mut serve = Serve::start();
    let mut failures = Vec::new();
    let requests = [
        "this is not JSON",
        r#"{"cmd": "dance", "seq": 4}"#,
        r#"{"cmd": "run", "seq": 5, "case": "x", "format": "soul-kit", "operation": "validate", "input": {"kind": "document", "name": "a.soulkit.json", "base64": "!!"}, "context": {}}"#,
    ];
    for request in requests {
        let reply = parse_line(&serve.exchange(request));
        assert!(reply.get("errored").is_some(), "{request}: {reply}");
        schemas.check("reply", &reply, request, &mut failures);
    }
    let goodbye = parse_line(&serve.exchange(r#"{"cmd": "stop"}"#));
    schemas.check("goodbye", &goodbye, "goodbye", &mut failures);
    drop(serve.stdin);
    serve.child.wait().expect("serve exits");
    assert_no_failures(&failures, requests.len() + 1, "replies");
}

/// What a run wrote: its header, its case records and its certificates.
struct RunFiles {
    header: Value,
    records: Vec<Value>,
    certificates: Vec<Value>,
}

/// Runs `soulcheck run --report DIR` with `args` and checks every file the schemas cover.
fn run_report(schemas: &Schemas, args: &[&str], failures: &mut Vec<String>) -> RunFiles {
    let dir = tempfile::tempdir().expect("tempdir");
    let output = Command::new(BIN)
        .arg("run")
        .args(["--quiet", "--jobs", "2", "--report"])
        .arg(dir.path())
        .args(args)
        .output()
        .expect("soulcheck run runs");
    assert!(
        matches!(output.status.code(), Some(0 | 1)),
        "soulcheck run {args:?} failed: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    let text = std::fs::read_to_string(dir.path().join("report.jsonl")).expect("report.jsonl");
    let lines: Vec<Value> = text.lines().map(parse_line).collect();
    for (number, line) in lines.iter().enumerate() {
        let what = format!("{args:?} report.jsonl line {}", number + 1);
        schemas.check("report-jsonl", line, &what, failures);
    }
    // Header first, footer last, one record per selected case in between.
    let types: Vec<&str> = lines
        .iter()
        .map(|line| line["type"].as_str().unwrap_or_default())
        .collect();
    assert_eq!(types.first(), Some(&"header"), "{args:?}");
    assert_eq!(types.last(), Some(&"footer"), "{args:?}");
    let header = lines[0].clone();
    let records: Vec<Value> = lines[1..lines.len() - 1].to_vec();
    assert!(records.iter().all(|record| record["type"] == "case"));
    assert_eq!(header["cases"], records.len(), "{args:?}");
    assert!(!records.is_empty(), "{args:?} selected no case");

    let mut certificates = Vec::new();
    for entry in std::fs::read_dir(dir.path().join("certificates")).expect("certificates") {
        let path = entry.expect("entry").path();
        let value: Value =
            serde_json::from_str(&std::fs::read_to_string(&path).expect("read")).expect("JSON");
        let what = format!("{args:?} {}", path.display());
        schemas.check("certificate", &value, &what, failures);
        // `<format>.json` certifies validation, `<format>.<operation>.json` another
        // operation, in the run's profile.
        let format = value["format"].as_str().unwrap_or_default();
        let file_name = match value["operation"].as_str() {
            Some("validate") => format!("{format}.json"),
            Some(operation) => format!("{format}.{operation}.json"),
            None => String::new(),
        };
        assert_eq!(
            path.file_name().and_then(|name| name.to_str()),
            Some(file_name.as_str()),
            "{what}"
        );
        assert_eq!(value["profile"], header["settings"]["profile"], "{what}");
        certificates.push(value);
    }
    assert!(!certificates.is_empty(), "{args:?} issued no certificate");
    RunFiles {
        header,
        records,
        certificates,
    }
}

#[test]
fn run_reports_in_every_mode() {
    let schemas = Schemas::load();
    let mut failures = Vec::new();
    // Documents with and without diagnostics, implementation-defined cases, trees, and
    // operation cases with values (and so a certificate of another operation).
    let selection = [
        "--case",
        "soul-kit/name-length-8*",
        "--case",
        "skill-package/dir-*",
        "--case",
        "soul-md/*fingerprint*",
        "--case",
        "compose-bundle/color-*",
    ];
    let serve = format!("{BIN} serve");
    let per_case = format!(
        "{BIN} check {{path}} --format {{format}} --operation {{operation}} --context-json {{context}} --json"
    );
    let mut all = Vec::new();
    let mut operations = BTreeSet::new();
    for profile in Profile::ALL {
        let mut modes = vec![vec![], vec!["--validator", serve.as_str(), "--persistent"]];
        // One process per case is slow; the spec profile shows its files.
        if profile == Profile::Spec {
            modes.push(vec!["--validator", per_case.as_str()]);
        }
        for mode in modes {
            let args: Vec<&str> = selection
                .iter()
                .copied()
                .chain(["--profile", profile.name()])
                .chain(mode)
                .collect();
            let files = run_report(&schemas, &args, &mut failures);
            assert_eq!(
                files.header["settings"]["profile"],
                profile.name(),
                "{args:?}"
            );
            // As an external validator, the reference declines a case past one of its
            // bounds in the spec profile ("not judged"), which the run records as
            // skipped; every other case passes.
            assert!(
                files.records.iter().all(|record| record["result"] == "pass"
                    || (record["result"] == "skipped"
                        && record["expected_verdict"]
                            .as_str()
                            .is_some_and(|verdict| verdict.ends_with("reference: not judged)")))),
                "the reference passes every case in every mode and profile: {args:?}"
            );
            // Every deciding case passed; a certificate that judged every case of its
            // format and operation certifies, one that judged part of them does not.
            for certificate in &files.certificates {
                assert_eq!(
                    certificate["must_cases_passed"], certificate["must_cases"],
                    "{args:?}: {certificate}"
                );
                assert_eq!(
                    certificate["accept_cases_passed"], certificate["accept_cases"],
                    "{args:?}: {certificate}"
                );
                let complete = certificate["selection"]["complete"] == true;
                assert_eq!(
                    certificate["certified"] == true,
                    complete,
                    "{args:?}: {certificate}"
                );
                if !complete {
                    assert!(
                        certificate["reasons"][0]
                            .as_str()
                            .is_some_and(|reason| reason.starts_with("not a certification: ")),
                        "{args:?}: {certificate}"
                    );
                }
            }
            assert!(
                files
                    .certificates
                    .iter()
                    .any(|certificate| certificate["selection"]["complete"] == false),
                "the selection judges part of some format: {args:?}"
            );
            // The strict profile leaves nothing to the implementation.
            if profile == Profile::Strict {
                assert!(
                    files.records.iter().all(|r| r["expected_verdict"]
                        .as_str()
                        .is_some_and(|v| !v.starts_with("implementation-defined"))),
                    "{args:?}"
                );
            }
            operations.extend(
                files
                    .certificates
                    .iter()
                    .filter_map(|c| c["operation"].as_str().map(str::to_owned)),
            );
            all.extend(files.records);
        }
    }
    let results: BTreeSet<&str> = all.iter().filter_map(|r| r["result"].as_str()).collect();
    // Skipped only where the reference declines a case past its bounds (checked above).
    assert_eq!(results, BTreeSet::from(["pass", "skipped"]));
    assert!(
        all.iter().any(|r| r["expected_verdict"]
            .as_str()
            .is_some_and(|v| v.starts_with("implementation-defined"))),
        "the selection includes an implementation-defined case"
    );
    assert!(
        all.iter().any(|r| r["actual"].get("value").is_some()),
        "the selection includes an operation with a value"
    );
    assert!(
        operations.len() > 1 && operations.contains("validate"),
        "the selection is certified per operation: {operations:?}"
    );
    assert!(
        all.iter().any(|r| r.get("deviations").is_some()),
        "the selection includes a case with known deviations"
    );
    assert_no_failures(&failures, all.len(), "report files");
}

#[test]
fn run_report_of_a_failing_validator() {
    // `true` accepts everything and reports nothing: passes on accept cases, wrong
    // verdicts on reject cases (with what it printed: nothing, and exit code 0), wrong
    // values on operation cases, and certificates that are refused with reasons.
    let schemas = Schemas::load();
    let mut failures = Vec::new();
    let args = [
        "--case",
        "soul-kit/name-length-8*",
        "--case",
        "skill-package/dir-*",
        "--case",
        "soul-md/*fingerprint*",
        "--validator",
        "true {path}",
    ];
    let RunFiles {
        records,
        certificates,
        ..
    } = run_report(&schemas, &args, &mut failures);
    let results: BTreeSet<&str> = records
        .iter()
        .filter_map(|record| record["result"].as_str())
        .collect();
    assert_eq!(
        results,
        BTreeSet::from(["pass", "wrong-verdict", "wrong-value"]),
        "results of `true`"
    );
    for record in &records {
        let evidence = record.get("evidence");
        if record["result"] == "pass" {
            assert!(evidence.is_none(), "{record}");
        } else {
            assert_eq!(
                evidence.map(|e| &e["exit"]),
                Some(&json!("exit code 0")),
                "{record}"
            );
        }
    }
    assert!(
        certificates.iter().all(|c| c["certified"] == false),
        "`true` is certified for nothing"
    );
    assert_no_failures(&failures, records.len(), "report files");
}

/// The harness's own test corpus (five Soul Kit cases whose inputs carry the answers they
/// deserve) and its fixture validators.
const TEST_CORPUS: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../../harness/tests/corpus");

fn fixture(name: &str) -> String {
    format!(
        "{}/../../harness/tests/fixtures/{name}",
        env!("CARGO_MANIFEST_DIR")
    )
}

/// A per-case validator that rejects everything, blaming the name at a pointer no case
/// expects (a wrong grade, even where the verdict is right), plus a check of its own.
const WRONG_REPORTER: &str = r#"#!/bin/sh
echo '{"verdict": "reject", "diagnostics": [{"rule": "soul-kit.name.length", "pointer": "/nowhere"}, {"rule": "acme.own-check"}]}'
exit 1
"#;

/// A persistent validator that accepts everything, except that it declines case `bom` and
/// answers case `two-names` with the wrong `seq`.
const PERSISTENT_YES: &str = r#"import json, sys
for line in sys.stdin:
    request = json.loads(line)
    if request["cmd"] == "start":
        print(json.dumps({"version": 1, "implementation": {"name": "yes", "version": "0.1", "language": "Python"}}), flush=True)
    elif request["cmd"] == "run":
        seq = request["seq"]
        if request["case"] == "bom":
            print(json.dumps({"seq": seq, "skipped": "no BOM handling"}), flush=True)
        else:
            seq += 1000 if request["case"] == "two-names" else 0
            print(json.dumps({"seq": seq, "verdict": "accept"}), flush=True)
    else:
        print(json.dumps({"goodbye": True}), flush=True)
        break
"#;

/// A listed failure, and a listed case that passes on its verdict (an unexpected pass
/// whose diagnostics are wrong, so it keeps its evidence).
const EXPECTATIONS: &str = r#"[[failure]]
case = "soul-kit/name-ok"
reason = "rejects everything"

[[failure]]
case = "soul-kit/name-long"
reason = "listed, but it passes on its verdict"
"#;

/// The kind of a record's `evidence.exit`, without its number.
fn exit_kind(exit: &str) -> String {
    exit.trim_end_matches(|c: char| c.is_ascii_digit() || c == '-')
        .trim_end()
        .to_owned()
}

#[test]
fn run_reports_with_grades_and_evidence() {
    // Fixture validators on the harness's test corpus: every diagnostics grade, every way
    // a process can end, a crash pattern's match, a flood cut at the cap, known failures,
    // and a strict-profile run.
    let schemas = Schemas::load();
    let scratch = tempfile::tempdir().expect("tempdir");
    let wrong_reporter = scratch.path().join("wrong-reporter.sh");
    std::fs::write(&wrong_reporter, WRONG_REPORTER).expect("write");
    let persistent_yes = scratch.path().join("persistent-yes.py");
    std::fs::write(&persistent_yes, PERSISTENT_YES).expect("write");
    let expectations = scratch.path().join("expectations.toml");
    std::fs::write(&expectations, EXPECTATIONS).expect("write");
    let per_case = |command: String| vec!["--validator".to_owned(), command];
    let runs: Vec<Vec<String>> = vec![
        per_case(format!("{} {{path}}", fixture("python-crash.py"))),
        per_case(format!("{} {{path}}", fixture("crash.sh"))),
        per_case(format!("{} {{path}}", fixture("exit-3.sh"))),
        per_case(format!("{} {{path}}", fixture("flood.sh"))),
        per_case(format!("{} {{path}}", fixture("liar.sh"))),
        [
            per_case(format!("{} {{path}}", fixture("hang.sh"))),
            vec!["--timeout".to_owned(), "0.5".to_owned()],
        ]
        .concat(),
        [
            per_case(format!("{} first {{path}}", fixture("reporter.py"))),
            ["--name", "acme-soul", "--impl-version", "1.2.0"]
                .map(String::from)
                .to_vec(),
        ]
        .concat(),
        per_case(format!("{} full {{path}}", fixture("reporter.py"))),
        [
            per_case(format!("sh {} {{path}}", wrong_reporter.display())),
            vec![
                "--expectations".to_owned(),
                expectations.display().to_string(),
            ],
        ]
        .concat(),
        [
            per_case(format!("python3 {}", persistent_yes.display())),
            ["--persistent", "--profile", "strict"]
                .map(String::from)
                .to_vec(),
        ]
        .concat(),
    ];
    let mut failures = Vec::new();
    let mut records = Vec::new();
    let mut certificates = Vec::new();
    for run in &runs {
        let args: Vec<&str> = ["--corpus", TEST_CORPUS]
            .into_iter()
            .chain(run.iter().map(String::as_str))
            .collect();
        let files = run_report(&schemas, &args, &mut failures);
        if run.iter().any(|arg| arg == "acme-soul") {
            assert_eq!(
                files.header["implementation"],
                json!({"name": "acme-soul", "version": "1.2.0"}),
                "--name and --impl-version name the implementation"
            );
        }
        if run.iter().any(|arg| arg == "strict") {
            assert_eq!(files.header["settings"]["profile"], "strict");
        }
        records.extend(files.records);
        certificates.extend(files.certificates);
    }

    let seen = |values: &mut dyn Iterator<Item = &Value>| -> BTreeSet<String> {
        values
            .filter_map(|value| value.as_str().map(str::to_owned))
            .collect()
    };
    let results = seen(&mut records.iter().map(|r| &r["result"]));
    for result in [
        "pass",
        "wrong-verdict",
        "crash",
        "timeout",
        "protocol-error",
        "skipped",
        "expected-failure",
        "unexpected-pass",
    ] {
        assert!(results.contains(result), "no {result} among {results:?}");
    }
    let every_grade: BTreeSet<String> = ["exact", "partial", "wrong", "none"]
        .map(String::from)
        .into();
    assert_eq!(
        seen(&mut records.iter().map(|r| &r["diagnostics"]["grade"])),
        every_grade,
        "case grades"
    );
    assert_eq!(
        seen(&mut certificates.iter().map(|c| &c["diagnostics_grade"])),
        every_grade,
        "certificate grades"
    );
    assert!(certificates.iter().any(|c| c["certified"] == true));
    assert!(certificates.iter().any(|c| c["certified"] == false));
    let evidence: Vec<&Value> = records.iter().filter_map(|r| r.get("evidence")).collect();
    let exits: BTreeSet<String> = evidence
        .iter()
        .filter_map(|e| e["exit"].as_str().map(exit_kind))
        .collect();
    assert_eq!(
        exits,
        [
            "exit code",
            "killed by signal",
            "timed out",
            "answered",
            "broke the protocol"
        ]
        .map(String::from)
        .into(),
        "ways a process ended"
    );
    assert!(
        evidence
            .iter()
            .any(|e| e["crash_match"]["pattern"] == "python traceback"
                && e["crash_match"]["line_number"].as_u64() > Some(0)),
        "a crash pattern's match"
    );
    assert!(
        evidence.iter().any(|e| e["stdout"]["truncated"] == true),
        "a stream cut at the cap"
    );
    assert!(
        records
            .iter()
            .any(|r| r["result"] == "pass" && r.get("evidence").is_some()),
        "a passing case whose wrong diagnostics keep the evidence"
    );
    assert!(
        records
            .iter()
            .any(|r| r["diagnostics"].get("missing").is_some())
            && records
                .iter()
                .any(|r| r["diagnostics"].get("unexpected").is_some()),
        "gradings with missing and unexpected diagnostics"
    );
    assert_no_failures(
        &failures,
        records.len() + certificates.len(),
        "report files",
    );
}

/// A small corpus with every kind of rule basis (a strict-only rule, grounds and
/// decisions among them), an optional diagnostic and a strict-profile expectation: shapes
/// the corpus may not use yet.
fn small_corpus(root: &Path) {
    let write = |relative: &str, text: &str| {
        let path = root.join(relative);
        std::fs::create_dir_all(path.parent().expect("parent")).expect("mkdir");
        std::fs::write(&path, text).expect("write");
    };
    write(
        "soul-kit/rules.toml",
        r#"format = "soul-kit"
spec = "Soul Kit exchange format, version 1"

[[rule]]
id = "soul-kit.name.length"
level = "must"
severity = "error"
section = "Field table: name"
requirement = "name is 1 to 80 characters."
basis = "spec"
grounds = "The field table gives the length in characters."

[[rule]]
id = "soul-kit.name.trim"
level = "must"
severity = "error"
section = "Field table: name"
requirement = "name has no leading or trailing white space."
basis = "upstream"
upstream = "acme-soul 2.1, which rejects untrimmed names on every path"

[[rule]]
id = "soul-kit.name.confusable"
level = "should"
severity = "warning"
section = "Field table: name"
requirement = "name does not mix confusable scripts."
basis = "suite"
decision = "The spec is silent; the strict profile warns."
strict = true

[[rule]]
id = "soul-kit.json.bom"
level = "may"
severity = "error"
section = "opening paragraph"
requirement = "No byte order mark."
basis = "suite"
decision = "Rejected by the reference."
"#,
    );
    write(
        "soul-kit/name-long-untrimmed/case.toml",
        r#"description = "a long name with a trailing space"
rules = ["soul-kit.name.length", "soul-kit.name.trim"]
verdict = "reject"
input = "input.soulkit.json"

[[diagnostic]]
rule = "soul-kit.name.length"
pointer = "/name"

[[diagnostic]]
rule = "soul-kit.name.trim"
pointer = "/name"
optional = true
"#,
    );
    write(
        "soul-kit/name-long-untrimmed/input.soulkit.json",
        "{\"name\": \"long \"}\n",
    );
    write(
        "soul-kit/name-confusable/case.toml",
        r#"description = "a name mixing Latin and Cyrillic letters"
rules = ["soul-kit.name.confusable"]
verdict = "implementation-defined"
reference = "accept"
input = "input.soulkit.json"

[strict]
verdict = "accept-with-warnings"

[[strict.diagnostic]]
rule = "soul-kit.name.confusable"
severity = "warning"
pointer = "/name"
"#,
    );
    write(
        "soul-kit/name-confusable/input.soulkit.json",
        "{\"name\": \"c\\u0430t\"}\n",
    );
}

/// Exports `corpus` and checks `index.json`, every `case.json` and every `rules.json`;
/// returns the case files and rule files read.
fn check_export(
    schemas: &Schemas,
    corpus: &Corpus,
    catalogue: &Catalogue,
    failures: &mut Vec<String>,
) -> (Vec<Value>, Vec<Value>) {
    let dir = tempfile::tempdir().expect("tempdir");
    let target = dir.path().join("export");
    let count = soulcheck_harness::export::export(corpus, catalogue, &target).expect("export");
    let read = |path: &PathBuf| -> Value {
        serde_json::from_str(&std::fs::read_to_string(path).expect("read")).expect("JSON")
    };
    let index = read(&target.join("index.json"));
    schemas.check("index", &index, "index.json", failures);
    let mut cases = Vec::new();
    for entry in index["cases"].as_array().expect("cases") {
        let path = target
            .join(entry["path"].as_str().expect("path"))
            .join("case.json");
        let case = read(&path);
        schemas.check("case", &case, &path.display().to_string(), failures);
        cases.push(case);
    }
    assert_eq!(cases.len(), count, "one case.json per exported case");
    let mut rules = Vec::new();
    for format in Format::ALL {
        let path = target.join(format.name()).join("rules.json");
        if !path.exists() {
            // Only the formats of exported cases have their rules exported.
            assert!(!corpus.cases.iter().any(|case| case.format == format));
            continue;
        }
        let listing = read(&path);
        schemas.check("rules", &listing, &path.display().to_string(), failures);
        rules.push(listing);
    }
    (cases, rules)
}

/// `soulcheck rules --json` and `soulcheck cases --json`, of the corpus built in or of
/// the one at `corpus`, checked against their schemas.
fn check_listings(
    schemas: &Schemas,
    corpus: Option<&Path>,
    failures: &mut Vec<String>,
) -> (Value, Value) {
    let mut listing = |command: &str, schema: &str| -> Value {
        let mut process = Command::new(BIN);
        process.args([command, "--json"]);
        if let Some(corpus) = corpus {
            process.arg("--corpus").arg(corpus);
        }
        let output = process.output().expect("soulcheck runs");
        assert!(output.status.success(), "{command}: {output:?}");
        let value: Value = serde_json::from_slice(&output.stdout).expect("JSON");
        let what = format!("soulcheck {command} --json of {corpus:?}");
        schemas.check(schema, &value, &what, failures);
        value
    };
    (listing("rules", "rules"), listing("cases", "cases"))
}

#[test]
fn export_metadata_and_listings() {
    let schemas = Schemas::load();
    let mut failures = Vec::new();
    let (cases, rules) = check_export(&schemas, &corpus(), &catalogue(), &mut failures);
    let (rule_listing, case_listing) = check_listings(&schemas, None, &mut failures);
    let mut checked = 1 + cases.len() + rules.len() + 2;
    // A case past one of the reference's own bounds says so: the reference does not judge
    // it in the spec profile, which is neither verdict.
    let not_judged = corpus()
        .cases
        .iter()
        .filter(|case| case.reference_not_judged)
        .count();
    assert!(
        not_judged > 0,
        "the corpus has cases the reference does not judge"
    );
    assert_eq!(
        cases
            .iter()
            .filter(|c| c["verdict"]["reference"] == "not-judged")
            .count(),
        not_judged,
        "every case the reference does not judge is exported as `not-judged`, and no other"
    );
    assert_eq!(
        case_listing.as_array().map(Vec::len),
        Some(cases.len()),
        "cases --json lists every case"
    );
    assert_eq!(
        rule_listing.as_array().map(Vec::len),
        Some(rules.iter().filter_map(Value::as_array).map(Vec::len).sum()),
        "rules --json lists every rule"
    );

    // The shapes the corpus may not use yet, from a small corpus of their own.
    let dir = tempfile::tempdir().expect("tempdir");
    small_corpus(dir.path());
    let corpus = Corpus::load(dir.path()).expect("the small corpus loads");
    let catalogue = Catalogue::load(dir.path()).expect("the small catalogue loads");
    let (cases, rules) = check_export(&schemas, &corpus, &catalogue, &mut failures);
    let (rule_listing, case_listing) = check_listings(&schemas, Some(dir.path()), &mut failures);
    checked += 1 + cases.len() + rules.len() + 2;
    assert_eq!(rules, vec![rule_listing.clone()], "one format's rules");
    let rule_list = rule_listing.as_array().expect("array");
    let bases: BTreeSet<&str> = rule_list
        .iter()
        .filter_map(|r| r["basis"].as_str())
        .collect();
    assert_eq!(bases, BTreeSet::from(["spec", "upstream", "suite"]));
    for member in ["upstream", "grounds", "decision"] {
        assert!(
            rule_list.iter().any(|r| r.get(member).is_some()),
            "a rule with {member}"
        );
    }
    assert!(rule_list.iter().any(|r| r["strict"] == true));
    assert!(
        cases
            .iter()
            .any(|c| c["optional"].as_array().is_some_and(|o| !o.is_empty())),
        "a case.json with optional diagnostics"
    );
    assert!(
        cases.iter().any(|c| c.get("strict").is_some()),
        "a case.json with a strict expectation"
    );
    let profiles: BTreeSet<&str> = case_listing
        .as_array()
        .expect("array")
        .iter()
        .filter_map(|c| c["profile"].as_str())
        .collect();
    assert_eq!(profiles, BTreeSet::from(["spec", "strict"]));
    assert_no_failures(&failures, checked, "export files and listings");
}

/// The `run` commands of both profiles: a strict-profile run tells the validator in the
/// context.
#[test]
fn run_commands_carry_the_profile() {
    let schemas = Schemas::load();
    let corpus = corpus();
    let cases = sample(&corpus);
    let mut failures = Vec::new();
    for case in &cases {
        let input = prepare_input(case).expect("input");
        for profile in Profile::ALL {
            let mut command = run_command(1, case, &input);
            if let wire::Command::Run(request) = &mut command {
                request.context = profile_context(&case.context, profile);
            }
            let value = serde_json::to_value(&command).expect("serialises");
            assert_eq!(
                value["context"].get("profile").is_some(),
                profile == Profile::Strict,
                "{value}"
            );
            let what = format!("run {} in the {profile} profile", case.name());
            schemas.check("command", &value, &what, &mut failures);
        }
    }
    assert_no_failures(&failures, cases.len() * 2, "run commands");
}

/// Messages the protocol allows that the reference never sends: the optional and
/// alternative shapes the prose describes.
#[test]
fn allowed_shapes_the_reference_does_not_use() {
    let schemas = Schemas::load();
    let accepted = [
        // A per-case validator without format, diagnostics or value.
        ("report", json!({"verdict": "accept"})),
        // The prose's example, extra members of the validator's own, a whole-document
        // diagnostic with the default severity, and the empty pointer.
        (
            "report",
            json!({"verdict": "reject", "value": null, "tool": "acme",
            "diagnostics": [
                {"rule": "soul-kit.name.length", "severity": "error", "pointer": "/name", "message": "..."},
                {"rule": "acme.own-check", "pointer": "", "line": 1, "column": 1},
                {"rule": "soul-md.size.limit"},
                {"rule": "soul-kit.x", "pointer": "/a~1b/~0c/0"}
            ]}),
        ),
        ("hello", json!({"version": 1})),
        (
            "hello",
            json!({"version": 1, "implementation": {"name": "acme-soul", "version": "2.1.0",
                   "language": "Go", "homepage": "https://acme.invalid/soul",
                   "formats": ["soul-kit", "soul-md"], "operations": ["fingerprint"]}}),
        ),
        ("reply", json!({"seq": 17, "skipped": "no trees here"})),
        ("reply", json!({"seq": 17, "errored": "out of memory"})),
        ("reply", json!({"errored": "unreadable request"})),
        (
            "reply",
            json!({"seq": 0, "verdict": "accept", "diagnostics": []}),
        ),
        ("goodbye", json!({"goodbye": true})),
        (
            "command",
            json!({"cmd": "run", "seq": 3, "case": "a-b", "format": "compose-bundle",
                   "operation": "validate", "input": {"kind": "tree", "path": "/tmp/x/bundle"},
                   "context": {"now": "2025-01-01"}}),
        ),
    ];
    let mut failures = Vec::new();
    for (name, instance) in &accepted {
        schemas.check(name, instance, "allowed shape", &mut failures);
    }
    assert_no_failures(&failures, accepted.len(), "allowed shapes");
}

#[test]
fn wrong_messages_are_rejected() {
    let schemas = Schemas::load();
    let run = json!({"cmd": "run", "seq": 1, "case": "name-length-81", "format": "soul-kit",
        "operation": "validate",
        "input": {"kind": "document", "name": "input.soulkit.json", "base64": "e30="},
        "context": {}});
    let with = |base: &Value, pointer: &str, value: Value| {
        // Sets (or adds) the member `pointer` names, whose parent must exist.
        let mut copy = base.clone();
        let (parent, member) = pointer.rsplit_once('/').expect("a pointer");
        copy.pointer_mut(parent)
            .and_then(Value::as_object_mut)
            .expect("the parent exists")
            .insert(member.to_owned(), value);
        copy
    };
    let without = |base: &Value, member: &str| {
        let mut copy = base.clone();
        copy.as_object_mut().expect("object").remove(member);
        copy
    };
    let record = json!({"type": "case", "name": "soul-kit/name-length-81", "id": "name-length-81",
        "format": "soul-kit", "operation": "validate", "rules": ["soul-kit.name.length"],
        "expected_verdict": "reject", "expected_diagnostics": [], "actual": {"verdict": "reject"},
        "result": "pass", "diagnostics": {"grade": "none"}, "duration_ms": 0});
    let evidence = json!({"exit": "exit code 1", "stdout": {"text": "", "truncated": false},
        "stderr": {"text": "Traceback (most recent call last):\n", "truncated": false},
        "cap_bytes": 8192, "crash_match": {"pattern": "python traceback",
        "line": "Traceback (most recent call last):", "line_number": 1}});
    let crash = json!({"type": "case", "name": "soul-kit/name-length-81", "id": "name-length-81",
        "format": "soul-kit", "operation": "validate", "rules": ["soul-kit.name.length"],
        "expected_verdict": "reject", "expected_diagnostics": [], "result": "crash",
        "explanation": "crashed: exit code 1 with an uncaught error on stderr",
        "diagnostics": {"grade": "none"}, "evidence": evidence,
        "deviations": ["acme-soul 1.x crashes"], "duration_ms": 3});
    let tally = json!({"exact": 1, "partial": 0, "wrong": 0, "none": 0});
    let certificate = json!({"format": "soul-kit", "operation": "validate", "profile": "spec",
        "certified": true, "selection": {"complete": true, "judged": 1, "cases": 1, "filters": []},
        "reasons": [], "accept_cases": 0, "accept_cases_passed": 0, "must_cases": 1,
        "must_cases_passed": 1, "other_failures": 0,
        "diagnostics_grade": "exact", "diagnostics": tally,
        "warnings": {"reported": true, "expected": 1, "warned": 1, "plain": 0, "spurious": 0, "left_out": 0},
        "choices": [], "implementation": {"name": "x", "version": ""}, "corpus_hash": format!("sha256:{}", "0".repeat(64)),
        "soulcheck_version": "0.1.0", "issued_at": "2025-01-01T00:00:00Z"});
    let header = json!({"type": "header", "soulcheck_version": "0.1.0",
        "corpus_hash": format!("sha256:{}", "0".repeat(64)), "cases": 1, "mode": "in-process",
        "implementation": {"name": "soulcheck reference", "version": "0.1.0"},
        "settings": {"strictness": "reference", "profile": "spec"},
        "started_at": "2025-01-01T00:00:00Z"});
    let footer = json!({"type": "footer", "complete": true, "finished_at": "2025-01-01T00:00:00Z",
        "summary": {"passed": 0, "failed": 0, "skipped": 0, "expected_failures": 0,
        "diagnostics": {"exact": 0, "partial": 0, "wrong": 0, "none": 0}}});
    let rule = json!({"id": "soul-kit.size", "format": "soul-kit", "level": "must",
        "severity": "error", "source": "soul-kit-v1.md § Size", "requirement": "r",
        "basis": "spec", "strict": false});
    let case = json!({"id": "x", "format": "soul-kit", "operation": "validate",
        "description": "d", "rules": [], "input": "input.soulkit.json", "verdict": {"kind": "reject"},
        "diagnostics": [], "optional": [], "verdict_only": false, "value": null,
        "other_values": [], "context": {}, "deviations": []});
    let entry = json!({"id": "x", "format": "soul-kit", "operation": "validate",
        "input": "input.soulkit.json", "input_kind": "document", "rules": [],
        "verdict": "implementation-defined", "strict_verdict": "reject", "basis": "suite",
        "profile": "strict", "description": "d", "deviations": []});
    // The valid bases, so each rejection below is due to its one change.
    let bases = [
        ("command", &run),
        ("report-jsonl", &header),
        ("report-jsonl", &record),
        ("report-jsonl", &crash),
        ("report-jsonl", &footer),
        ("certificate", &certificate),
        ("rules", &json!([rule])),
        ("case", &case),
        ("cases", &json!([entry])),
    ];
    let mut failures = Vec::new();
    for (name, base) in bases {
        schemas.check(name, base, "base", &mut failures);
    }
    assert_no_failures(&failures, bases.len(), "valid bases");

    let rejected = [
        ("report", json!({}), "no verdict"),
        ("report", json!({"verdict": "maybe"}), "unknown verdict"),
        (
            "report",
            json!({"verdict": "accept", "format": "yaml"}),
            "unknown format",
        ),
        (
            "report",
            json!({"verdict": "accept", "diagnostics": null}),
            "null diagnostics",
        ),
        (
            "report",
            json!({"verdict": "reject", "diagnostics": [{"severity": "error"}]}),
            "diagnostic without rule",
        ),
        (
            "report",
            json!({"verdict": "reject", "diagnostics": [{"rule": "r", "severity": "fatal"}]}),
            "unknown severity",
        ),
        (
            "report",
            json!({"verdict": "reject", "diagnostics": [{"rule": "r", "pointer": "name"}]}),
            "pointer without slash",
        ),
        (
            "report",
            json!({"verdict": "reject", "diagnostics": [{"rule": "r", "pointer": "/a~2"}]}),
            "bad pointer escape",
        ),
        (
            "report",
            json!({"verdict": "reject", "diagnostics": [{"rule": "r", "line": 0, "column": 1}]}),
            "line 0",
        ),
        (
            "report",
            json!({"verdict": "reject", "diagnostics": [{"rule": "r", "line": 3}]}),
            "line without column",
        ),
        (
            "command",
            json!({"cmd": "start", "version": 2}),
            "another version",
        ),
        ("command", json!({"cmd": "begin"}), "unknown command"),
        (
            "command",
            json!({"cmd": "stop", "now": true}),
            "member the harness never sends",
        ),
        ("command", without(&run, "seq"), "run without seq"),
        ("command", with(&run, "/seq", json!(-1)), "negative seq"),
        (
            "command",
            with(&run, "/case", json!("Name_Length")),
            "malformed case ID",
        ),
        (
            "command",
            with(&run, "/format", json!("soul_kit")),
            "unknown format",
        ),
        (
            "command",
            with(&run, "/input/kind", json!("url")),
            "unknown input kind",
        ),
        (
            "command",
            with(&run, "/input/base64", json!("e30")),
            "unpadded base64",
        ),
        (
            "command",
            with(&run, "/input", json!({"kind": "tree", "name": "bundle"})),
            "tree without path",
        ),
        ("hello", json!({"version": 2}), "another version"),
        (
            "hello",
            json!({"version": 1, "implementation": {"version": "1"}}),
            "implementation without name",
        ),
        (
            "hello",
            json!({"version": 1, "implementation": {"name": "x", "formats": ["toml"]}}),
            "unknown format",
        ),
        ("reply", json!({"verdict": "accept"}), "result without seq"),
        (
            "reply",
            json!({"seq": 1, "verdict": "accept", "skipped": "both"}),
            "result and skipped",
        ),
        ("reply", json!({"skipped": "why"}), "skipped without seq"),
        (
            "reply",
            json!({"seq": 1, "errored": 42}),
            "errored not text",
        ),
        ("reply", json!({"seq": 1}), "neither result nor refusal"),
        ("goodbye", json!({"goodbye": false}), "goodbye false"),
        ("goodbye", json!({}), "empty goodbye"),
        (
            "report-jsonl",
            json!({"type": "summary"}),
            "unknown line type",
        ),
        (
            "report-jsonl",
            with(&header, "/command", json!("soulcheck serve")),
            "in-process with a command",
        ),
        (
            "report-jsonl",
            with(&header, "/mode", json!("persistent")),
            "persistent without a command",
        ),
        (
            "report-jsonl",
            with(&header, "/implementation/formats", json!([])),
            "empty list written instead of left out",
        ),
        (
            "report-jsonl",
            with(&record, "/result", json!("ok")),
            "unknown result",
        ),
        (
            "report-jsonl",
            with(&record, "/explanation", json!("why")),
            "pass with an explanation",
        ),
        (
            "report-jsonl",
            with(&record, "/result", json!("crash")),
            "failure without an explanation",
        ),
        (
            "report-jsonl",
            with(&record, "/name", json!("soul-kit:name-length-81")),
            "malformed name",
        ),
        (
            "report-jsonl",
            with(
                &record,
                "/expected_verdict",
                json!("implementation-defined"),
            ),
            "verdict text without choices",
        ),
        (
            "report-jsonl",
            with(&footer, "/complete", json!(false)),
            "incomplete footer",
        ),
        (
            "report-jsonl",
            with(&footer, "/finished_at", json!("yesterday")),
            "time not RFC 3339",
        ),
        (
            "report-jsonl",
            with(
                &footer,
                "/summary",
                json!({"passed": 0, "failed": 0, "skipped": 0,
                "expected_failures": 0}),
            ),
            "tally without grade counts",
        ),
        (
            "report-jsonl",
            with(&header, "/settings", json!({"strictness": "conformance"})),
            "settings without a profile",
        ),
        (
            "report-jsonl",
            with(&header, "/settings/profile", json!("lenient")),
            "unknown profile",
        ),
        (
            "report-jsonl",
            without(&record, "operation"),
            "record without operation",
        ),
        (
            "report-jsonl",
            without(&record, "diagnostics"),
            "record without a diagnostics grade",
        ),
        (
            "report-jsonl",
            without(&record, "actual"),
            "pass without an answer",
        ),
        (
            "report-jsonl",
            with(
                &with(&record, "/result", json!("timeout")),
                "/explanation",
                json!("timed out"),
            ),
            "timeout with an answer",
        ),
        (
            "report-jsonl",
            with(&record, "/diagnostics/grade", json!("good")),
            "unknown grade",
        ),
        (
            "report-jsonl",
            with(&record, "/diagnostics", json!({"grade": "partial"})),
            "partial without missing diagnostics",
        ),
        (
            "report-jsonl",
            with(
                &record,
                "/diagnostics",
                json!({"grade": "exact", "unexpected": [{"rule": "r", "severity": "error"}]}),
            ),
            "exact with an unexpected diagnostic",
        ),
        (
            "report-jsonl",
            with(&record, "/diagnostics", json!({"grade": "wrong"})),
            "wrong without a wrong diagnostic",
        ),
        (
            "report-jsonl",
            with(
                &record,
                "/diagnostics",
                json!({"grade": "none", "missing": []}),
            ),
            "empty missing list written instead of left out",
        ),
        (
            "report-jsonl",
            with(&crash, "/diagnostics", json!({"grade": "exact"})),
            "a grade without an answer",
        ),
        (
            "report-jsonl",
            with(&record, "/evidence", evidence.clone()),
            "evidence of a pass with acceptable diagnostics",
        ),
        (
            "report-jsonl",
            with(&crash, "/result", json!("timeout")),
            "crash match on a timeout",
        ),
        (
            "report-jsonl",
            with(&crash, "/evidence/exit", json!("exploded")),
            "unknown way to end",
        ),
        (
            "report-jsonl",
            with(&crash, "/evidence/exit", json!("killed by signal 9")),
            "crash match without a reject exit code",
        ),
        (
            "report-jsonl",
            with(&crash, "/evidence/crash_match/line_number", json!(0)),
            "crash match on line 0",
        ),
        (
            "report-jsonl",
            with(&crash, "/evidence/stdout", json!({"text": ""})),
            "stream without truncated",
        ),
        (
            "report-jsonl",
            with(
                &crash,
                "/evidence",
                json!({"exit": "answered",
                "stdout": {"text": "{}", "truncated": false},
                "stderr": {"text": "log", "truncated": false}, "cap_bytes": 8192}),
            ),
            "stderr of a persistent process that answered",
        ),
        (
            "report-jsonl",
            with(&crash, "/deviations", json!([])),
            "empty deviations written instead of left out",
        ),
        (
            "certificate",
            with(&certificate, "/reasons", json!(["soul-kit/x crash"])),
            "certified with reasons",
        ),
        (
            "certificate",
            with(&certificate, "/certified", json!(false)),
            "not certified without a reason",
        ),
        (
            "certificate",
            with(
                &with(&certificate, "/certified", json!(false)),
                "/reasons",
                json!(["soul-kit/x crashed"]),
            ),
            "malformed reason",
        ),
        (
            "certificate",
            with(&certificate, "/must_cases", json!(0)),
            "certified without a deciding case",
        ),
        (
            "certificate",
            with(&certificate, "/selection/complete", json!(false)),
            "certified on part of the cases",
        ),
        (
            "certificate",
            without(&certificate, "selection"),
            "certificate without its selection",
        ),
        (
            "certificate",
            with(&certificate, "/corpus_hash", json!("md5:00")),
            "malformed corpus hash",
        ),
        (
            "certificate",
            without(&certificate, "operation"),
            "certificate without operation",
        ),
        (
            "certificate",
            with(&certificate, "/profile", json!("lax")),
            "unknown profile",
        ),
        (
            "certificate",
            without(&certificate, "diagnostics"),
            "grade without counts",
        ),
        (
            "certificate",
            with(&certificate, "/diagnostics/wrong", json!(1)),
            "exact grade over a wrong case",
        ),
        (
            "certificate",
            with(&certificate, "/diagnostics_grade", json!("none")),
            "no grade over an exact case",
        ),
        ("case", json!({"id": "x"}), "case.json missing members"),
        (
            "case",
            without(&case, "optional"),
            "case.json without optional",
        ),
        (
            "case",
            with(
                &case,
                "/strict",
                json!({"verdict": {"kind": "implementation-defined",
                "allowed": ["accept", "reject"], "reference": "reject"},
                "diagnostics": [], "optional": []}),
            ),
            "strict expectation left to the implementation",
        ),
        (
            "case",
            with(
                &case,
                "/verdict",
                json!({"kind": "implementation-defined", "allowed": ["accept", "reject"],
                "reference": "declined"}),
            ),
            "a reference choice that is neither a verdict nor `not-judged`",
        ),
        (
            "case",
            with(
                &case,
                "/strict",
                json!({"verdict": {"kind": "reject"}, "diagnostics": []}),
            ),
            "strict expectation without optional",
        ),
        (
            "index",
            json!({"corpus_hash": format!("sha256:{}", "0".repeat(64)),
            "cases": [{"id": "x", "format": "soul-kit", "path": "x", "verdict": "accept"}]}),
            "path without format",
        ),
        (
            "rules",
            json!([with(&rule, "/id", json!("soul-md.size.limit"))]),
            "rule ID of another format",
        ),
        (
            "rules",
            json!([with(&rule, "/note", json!("n"))]),
            "unknown member",
        ),
        (
            "rules",
            json!([with(&rule, "/basis", json!("folklore"))]),
            "unknown basis",
        ),
        (
            "rules",
            json!([without(&rule, "basis")]),
            "rule without basis",
        ),
        (
            "rules",
            json!([without(&rule, "strict")]),
            "rule without strict",
        ),
        (
            "rules",
            json!([with(&rule, "/basis", json!("upstream"))]),
            "upstream rule naming no implementation",
        ),
        (
            "rules",
            json!([with(&rule, "/upstream", json!("acme-soul 2.1"))]),
            "spec rule naming an implementation",
        ),
        (
            "rules",
            json!([with(&rule, "/basis", json!("suite"))]),
            "suite rule without a decision",
        ),
        (
            "rules",
            json!([with(
                &with(&rule, "/basis", json!("suite")),
                "/decision",
                json!("  ")
            )]),
            "suite rule with a blank decision",
        ),
        (
            "rules",
            json!([with(&rule, "/strict", json!(true))]),
            "strict-only spec rule",
        ),
        (
            "cases",
            json!([with(&entry, "/profile", json!("spec"))]),
            "implementation-defined case definite in the spec profile",
        ),
        (
            "cases",
            json!([with(
                &entry,
                "/strict_verdict",
                json!("implementation-defined")
            )]),
            "strict verdict left to the implementation",
        ),
        (
            "cases",
            json!([with(&entry, "/input_kind", json!("tree"))]),
            "unknown input kind",
        ),
        (
            "cases",
            json!([without(&entry, "basis")]),
            "entry without basis",
        ),
        (
            "command",
            with(&run, "/context/profile", json!("spec")),
            "context naming the default profile",
        ),
    ];
    let mut accepted = Vec::new();
    let mut seen = BTreeSet::new();
    for (name, instance, why) in &rejected {
        seen.insert(*name);
        if schemas.errors(name, instance).is_empty() {
            accepted.push(format!("{name}: {why}: {instance}"));
        }
    }
    assert!(
        accepted.is_empty(),
        "wrong messages the schemas accept:\n{}",
        accepted.join("\n")
    );
    assert_eq!(
        seen,
        NAMES.into_iter().collect(),
        "every schema rejects something"
    );
}
