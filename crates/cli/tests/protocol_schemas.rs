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
//!   --report` in each validator mode, passing and failing;
//! - the `cases export` metadata (`index.json`, every `case.json`, every `rules.json`)
//!   and `soulcheck rules --json`;
//! - and a few deliberately wrong messages, so every schema is seen to reject something.

use std::collections::{BTreeMap, BTreeSet};
use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use base64::Engine as _;
use serde_json::{json, Value};
use soulcheck_harness::runner::{prepare_input, Judgement};
use soulcheck_harness::store::Store;
use soulcheck_harness::{Case, Catalogue, Corpus, ExpectedDiagnostic, Input};
use soulcheck_vocabulary::wire::{self, InputMessage, RunRequest};
use soulcheck_vocabulary::{Format, Level, Severity, Verdict};

/// The schema directory, relative to this crate.
const SCHEMA_DIR: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../../schemas/protocol/v1");

/// Every schema of protocol version 1, by file stem (`<stem>.schema.json`).
const NAMES: [&str; 10] = [
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
        "/../harness/PROTOCOL.md"
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
    // The reference implements every case, so every reply is a result.
    assert_eq!(kinds.get("result"), Some(&corpus.cases.len()), "{kinds:?}");

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

/// What a run wrote: its case records and its certificates.
struct RunFiles {
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
    let records: Vec<Value> = lines[1..lines.len() - 1].to_vec();
    assert!(records.iter().all(|record| record["type"] == "case"));
    assert_eq!(lines[0]["cases"], records.len(), "{args:?}");
    assert!(!records.is_empty(), "{args:?} selected no case");

    let mut certificates = Vec::new();
    for entry in std::fs::read_dir(dir.path().join("certificates")).expect("certificates") {
        let path = entry.expect("entry").path();
        let value: Value =
            serde_json::from_str(&std::fs::read_to_string(&path).expect("read")).expect("JSON");
        let what = format!("{args:?} {}", path.display());
        schemas.check("certificate", &value, &what, failures);
        certificates.push(value);
    }
    assert!(!certificates.is_empty(), "{args:?} issued no certificate");
    RunFiles {
        records,
        certificates,
    }
}

#[test]
fn run_reports_in_every_mode() {
    let schemas = Schemas::load();
    let mut failures = Vec::new();
    // Documents with and without diagnostics, an implementation-defined case, a tree, and
    // operation cases with values.
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
    for mode in [
        vec![],
        vec!["--validator", serve.as_str(), "--persistent"],
        vec!["--validator", per_case.as_str()],
    ] {
        let args: Vec<&str> = selection.iter().copied().chain(mode).collect();
        let files = run_report(&schemas, &args, &mut failures);
        assert!(
            files
                .records
                .iter()
                .all(|record| record["result"] == "pass"),
            "the reference passes every case in every mode: {args:?}"
        );
        assert!(
            files.certificates.iter().all(|c| c["certified"] == true),
            "the reference is certified in every mode: {args:?}"
        );
        all.extend(files.records);
    }
    let results: BTreeSet<&str> = all.iter().filter_map(|r| r["result"].as_str()).collect();
    assert_eq!(results, BTreeSet::from(["pass"]));
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
    assert_no_failures(&failures, all.len(), "report files");
}

#[test]
fn run_report_of_a_failing_validator() {
    // `true` accepts everything and reports nothing: passes on accept cases, wrong
    // verdicts on reject cases, skipped trees (its command has no `{path}`), and
    // certificates that are refused with reasons.
    let schemas = Schemas::load();
    let mut failures = Vec::new();
    let args = [
        "--case",
        "soul-kit/name-length-8*",
        "--case",
        "skill-package/dir-*",
        "--validator",
        "true",
    ];
    let RunFiles {
        records,
        certificates,
    } = run_report(&schemas, &args, &mut failures);
    let results: BTreeSet<&str> = records
        .iter()
        .filter_map(|record| record["result"].as_str())
        .collect();
    assert_eq!(
        results,
        BTreeSet::from(["pass", "wrong-verdict", "skipped"]),
        "results of `true`"
    );
    assert!(
        certificates.iter().all(|c| c["certified"] == false),
        "`true` is certified for nothing"
    );
    assert_no_failures(&failures, records.len(), "report files");
}

#[test]
fn export_metadata_and_rules_listing() {
    let schemas = Schemas::load();
    let corpus = corpus();
    let catalogue = catalogue();
    let dir = tempfile::tempdir().expect("tempdir");
    let target = dir.path().join("export");
    let count = soulcheck_harness::export::export(&corpus, &catalogue, &target).expect("export");
    let read = |path: &PathBuf| -> Value {
        serde_json::from_str(&std::fs::read_to_string(path).expect("read")).expect("JSON")
    };
    let mut failures = Vec::new();
    let index = read(&target.join("index.json"));
    schemas.check("index", &index, "index.json", &mut failures);
    let mut checked = 1;
    for entry in index["cases"].as_array().expect("cases") {
        let path = target
            .join(entry["path"].as_str().expect("path"))
            .join("case.json");
        schemas.check(
            "case",
            &read(&path),
            &path.display().to_string(),
            &mut failures,
        );
        checked += 1;
    }
    assert_eq!(checked, count + 1, "one case.json per exported case");
    for format in Format::ALL {
        let path = target.join(format.name()).join("rules.json");
        schemas.check(
            "rules",
            &read(&path),
            &path.display().to_string(),
            &mut failures,
        );
        checked += 1;
    }
    let output = Command::new(BIN)
        .args(["rules", "--json"])
        .output()
        .expect("soulcheck rules runs");
    let listing: Value = serde_json::from_slice(&output.stdout).expect("JSON");
    schemas.check("rules", &listing, "soulcheck rules --json", &mut failures);
    assert_no_failures(&failures, checked + 1, "export files");
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
        "format": "soul-kit", "rules": ["soul-kit.name.length"], "expected_verdict": "reject",
        "expected_diagnostics": [], "result": "pass", "duration_ms": 0});
    let certificate = json!({"format": "soul-kit", "certified": true, "reasons": [],
        "must_cases_passed": 1, "must_cases": 1, "choices": [],
        "implementation": {"name": "x", "version": ""}, "corpus_hash": format!("sha256:{}", "0".repeat(64)),
        "soulcheck_version": "0.1.0", "issued_at": "2025-01-01T00:00:00Z"});
    let header = json!({"type": "header", "soulcheck_version": "0.1.0",
        "corpus_hash": format!("sha256:{}", "0".repeat(64)), "cases": 1, "mode": "in-process",
        "implementation": {"name": "soulcheck reference", "version": "0.1.0"},
        "settings": {}, "started_at": "2025-01-01T00:00:00Z"});
    // The valid bases, so each rejection below is due to its one change.
    let mut failures = Vec::new();
    schemas.check("command", &run, "base run", &mut failures);
    schemas.check("report-jsonl", &header, "base header", &mut failures);
    schemas.check("report-jsonl", &record, "base record", &mut failures);
    schemas.check(
        "certificate",
        &certificate,
        "base certificate",
        &mut failures,
    );
    assert_no_failures(&failures, 4, "valid bases");

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
            json!({"type": "footer", "complete": false, "finished_at": "2025-01-01T00:00:00Z",
            "summary": {"passed": 0, "failed": 0, "skipped": 0, "expected_failures": 0}}),
            "incomplete footer",
        ),
        (
            "report-jsonl",
            json!({"type": "footer", "complete": true, "finished_at": "yesterday",
            "summary": {"passed": 0, "failed": 0, "skipped": 0, "expected_failures": 0}}),
            "time not RFC 3339",
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
            with(&certificate, "/corpus_hash", json!("md5:00")),
            "malformed corpus hash",
        ),
        ("case", json!({"id": "x"}), "case.json missing members"),
        (
            "index",
            json!({"corpus_hash": format!("sha256:{}", "0".repeat(64)),
            "cases": [{"id": "x", "format": "soul-kit", "path": "x", "verdict": "accept"}]}),
            "path without format",
        ),
        (
            "rules",
            json!([{"id": "soul-md.size.limit", "format": "soul-kit", "level": "must",
            "severity": "error", "source": "soul-kit-v1.md § Size", "requirement": "r"}]),
            "rule ID of another format",
        ),
        (
            "rules",
            json!([{"id": "soul-kit.size", "format": "soul-kit", "level": "must",
            "severity": "error", "source": "soul-kit-v1.md § Size", "requirement": "r", "note": "n"}]),
            "unknown member",
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
