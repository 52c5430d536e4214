//! `soulcheck fuzz` end to end, with the real binary and real processes: the reference
//! fuzzed against itself through the protocol finds nothing, and validators with one
//! planted bug each are caught, with a small shrunk input and a draft case.
//!
//! This test binary is its own fixture: run as `fuzz planted BUG FORMAT CONTEXT PATH` it
//! is a validator (the reference with one planted bug, printing the `check --json`
//! shape), so the fixtures need no build step of their own:
//!
//! | bug | format | what the validator does wrong |
//! | --- | --- | --- |
//! | `utf16-length` | soul-kit | counts `name` and `summary` in UTF-16 code units |
//! | `duplicate-keys` | any JSON | ignores repeated members (as a parser that keeps the last) |
//! | `version-trim` | soulacy-package | trims whitespace before matching the calendar version |
//! | `dash-anywhere` | skill-package | closes the `SKILL.md` frontmatter at any line containing `---` |
//! | `title-prefix` | soul-md | finds the role title with `starts_with("# ")` |
//!
//! The trials: the reference against itself per case and persistent, one planted bug
//! caught and drafted, the same bug listed in an expectations file and counted apart, and the campaign of every planted bug within its 60-second bound
//! (about two minutes for all five in a debug build on a two-core machine; each campaign
//! stops a few hundred runs past its finding).

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Instant;

use libtest_mimic::{Arguments, Failed, Trial};
use serde_json::Value;
use soulcheck_reference::{Context, Format, Input, Severity, Verdict};
use soulcheck_vocabulary::wire::{Diagnostic, Report};
use soulcheck_vocabulary::Location;

fn main() {
    let args: Vec<String> = std::env::args().collect();
    if args.get(1).map(String::as_str) == Some("planted") {
        std::process::exit(planted(&args[2..]));
    }
    let arguments = Arguments::from_args();
    let mut trials = vec![
        Trial::test("reference_against_itself_per_case", || {
            reference_against_itself(false)
        }),
        Trial::test("reference_against_itself_persistent", || {
            reference_against_itself(true)
        }),
        Trial::test(
            "a_planted_bug_is_caught_and_drafted",
            a_planted_bug_is_caught,
        ),
        Trial::test(
            "a_listed_deviation_is_counted_apart",
            a_listed_deviation_is_counted_apart,
        ),
        Trial::test("usage_errors_exit_2", usage_errors_exit_2),
        Trial::test("progress_in_a_log", progress_in_a_log),
    ];
    for planted in PLANTED {
        trials.push(Trial::test(
            format!("planted_bug_found_within_60_s/{}", planted.bug),
            || found_within_60_s(planted),
        ));
    }
    libtest_mimic::run(&arguments, trials).exit();
}

// ---------------------------------------------------------------------------------------
// The trials

/// One planted bug, and what a campaign must find.
struct Planted {
    bug: &'static str,
    format: &'static str,
    /// The rules a finding about the bug names (any one of them).
    rules: &'static [&'static str],
    /// The campaign's seed, and its most runs: a few hundred past the first run that
    /// finds the bug with this seed (a change to the generators moves it), so the test
    /// does not fuzz on for the whole 60 seconds after the finding.
    seed: u64,
    runs: u64,
}

const PLANTED: &[Planted] = &[
    Planted {
        bug: "utf16-length",
        format: "soul-kit",
        rules: &["soul-kit.name.length", "soul-kit.summary.length"],
        seed: 1,
        runs: 300,
    },
    Planted {
        bug: "duplicate-keys",
        format: "soul-kit",
        rules: &["soul-kit.json.duplicate-key"],
        seed: 1,
        runs: 300,
    },
    Planted {
        bug: "version-trim",
        format: "soulacy-package",
        rules: &["soulacy-package.version.calendar"],
        seed: 1,
        runs: 600,
    },
    Planted {
        bug: "dash-anywhere",
        format: "skill-package",
        rules: &[
            "skill-package.head.name.required",
            "skill-package.head.description.required",
        ],
        seed: 1,
        runs: 1_000,
    },
    Planted {
        bug: "title-prefix",
        format: "soul-md",
        rules: &["soul-md.title.required"],
        seed: 1,
        runs: 300,
    },
];

/// The most bytes a shrunk finding of a planted bug may have. The smallest valid Soul
/// Kit is about 650 bytes (two dozen required members), and a finding on the verdict
/// keeps the rest of the document valid, so that is the floor for Soul Kit; the other
/// formats shrink to well under 200 bytes.
const SHRUNK_LIMIT: usize = 1_024;

/// The reference through the protocol against the reference in process: no finding, on
/// every format per case (spec profile), and on two formats persistent (strict profile).
fn reference_against_itself(persistent: bool) -> Result<(), Failed> {
    let soulcheck = env!("CARGO_BIN_EXE_soulcheck");
    let formats: &[&str] = if persistent {
        &["soul-kit", "compose-bundle"]
    } else {
        &[
            "soul-kit",
            "skill-package",
            "soulacy-package",
            "soulacy-sidecar",
            "compose-bundle",
            "soul-md",
        ]
    };
    for format in formats {
        // Persistent, in the strict profile: the profile travels in each request's context.
        let (validator, mode): (String, &[&str]) = if persistent {
            (
                format!("{soulcheck} serve"),
                &["--persistent", "--profile", "strict"],
            )
        } else {
            (
                format!("{soulcheck} check --json --format {{format}} --context-json {{context}} {{path}}"),
                &[],
            )
        };
        let dir = tempfile::tempdir()?;
        let mut args = vec![
            "--format",
            format,
            "--validator",
            &validator,
            "--seed",
            "7",
            "--runs",
            "40",
            "--jobs",
            "2",
            "--timeout",
            "30",
        ];
        args.extend_from_slice(mode);
        let run = fuzz(&args, dir.path())?;
        if run.code != Some(0) || !run.stdout.contains("no finding (exit 0)") {
            return Err(format!("{format}: {run}").into());
        }
        let report = run.report()?;
        let footer = report.last().ok_or("an empty report")?;
        if footer["type"] != "footer" || footer["runs"] != 40 || footer["findings"] != 0 {
            return Err(format!("{format}: footer {footer}").into());
        }
    }
    Ok(())
}

/// Without a terminal (a CI log), a campaign says how it stands on stderr as it goes: a
/// line at the start, at each change of phase and every few seconds; `--quiet` silences
/// it. Before, such a log sat silent until the campaign ended.
fn progress_in_a_log() -> Result<(), Failed> {
    let soulcheck = env!("CARGO_BIN_EXE_soulcheck");
    let validator =
        format!("{soulcheck} check --json --format {{format}} --context-json {{context}} {{path}}");
    let campaign = |quiet: bool| -> Result<Run, Failed> {
        let dir = tempfile::tempdir()?;
        let mut command = Command::new(soulcheck);
        command
            .args(["fuzz", "--format", "soul-md", "--validator", &validator])
            .args([
                "--seed",
                "7",
                "--runs",
                "20",
                "--jobs",
                "2",
                "--timeout",
                "30",
            ])
            .env_remove("SOULCHECK_CORPUS")
            .env("CI", "true");
        if quiet {
            command.arg("--quiet");
        }
        let output = command.current_dir(dir.path()).output()?;
        Ok(Run {
            code: output.status.code(),
            stdout: String::from_utf8_lossy(&output.stdout).into_owned(),
            stderr: String::from_utf8_lossy(&output.stderr).into_owned(),
            report: dir.path().join("report"),
        })
    };
    let logged = campaign(false)?;
    let lines: Vec<&str> = logged
        .stderr
        .lines()
        .filter(|line| line.starts_with("fuzz: ") && line.contains(" runs in "))
        .collect();
    if logged.code != Some(0) || lines.is_empty() {
        return Err(format!("no progress line in the log: {logged}").into());
    }
    let quiet = campaign(true)?;
    if quiet.code != Some(0) || quiet.stderr.contains("fuzz: ") {
        return Err(format!("--quiet still logs progress: {quiet}").into());
    }
    Ok(())
}

/// A quick campaign against the validator that ignores duplicate keys: the finding is
/// shrunk, drafted and recorded, and the same seed finds the same first run again.
fn a_planted_bug_is_caught() -> Result<(), Failed> {
    let dir = tempfile::tempdir()?;
    let validator = planted_command("duplicate-keys");
    let args = duplicate_keys_campaign(&validator, &["--shrink-steps", "300"]);
    let run = fuzz(&args, dir.path())?;
    if run.code != Some(1) {
        return Err(format!("expected findings: {run}").into());
    }
    let findings = run.findings()?;
    let finding = findings
        .iter()
        .find(|record| record["rule"] == "soul-kit.json.duplicate-key")
        .ok_or_else(|| format!("no duplicate-key finding: {run}"))?;
    if finding["kind"] != "accepts-invalid" {
        return Err(format!("kind: {finding}").into());
    }
    for record in &findings {
        if record["rule"] != "soul-kit.json.duplicate-key" {
            return Err(format!("a finding the planted bug does not explain: {record}").into());
        }
    }
    let shrunk = &finding["shrunk"];
    let original = shrunk["original_bytes"].as_u64().unwrap_or(0);
    let bytes = shrunk["shrunk_bytes"].as_u64().unwrap_or(u64::MAX);
    if bytes >= original {
        return Err(format!("not shrunk: {shrunk}").into());
    }
    // The draft: the input, and case.toml with the reference's verdict for review.
    let case = PathBuf::from(shrunk["case"].as_str().ok_or("no draft case")?);
    if !case.starts_with(dir.path().join("report/cases/soul-kit")) {
        return Err(format!("draft outside the report: {}", case.display()).into());
    }
    let toml = std::fs::read_to_string(case.join("case.toml"))?;
    for needle in [
        "# REVIEW before committing",
        "verdict = \"reject\"",
        "rule = \"soul-kit.json.duplicate-key\"",
        "input = \"input.soulkit.json\"",
        "soulcheck fuzz --format soul-kit --validator",
        "# REVIEW:   answer: {\"verdict\":\"accept\"",
    ] {
        if !toml.contains(needle) {
            return Err(format!("case.toml lacks {needle:?}:\n{toml}").into());
        }
    }
    let input = std::fs::read(case.join("input.soulkit.json"))?;
    if input.len() as u64 != bytes {
        return Err("the draft's input is not the shrunk document".into());
    }
    // The draft passes the corpus self-check as written: the Soul Kit corpus with the
    // draft added, run against the reference, passes.
    let corpus = tempfile::tempdir()?;
    let format_dir = corpus.path().join("soul-kit");
    copy_tree(
        &Path::new(env!("CARGO_MANIFEST_DIR")).join("../../cases/soul-kit"),
        &format_dir,
    )?;
    let id = case.file_name().ok_or("a draft directory")?;
    let copied = format_dir.join(id);
    std::fs::create_dir(&copied)?;
    for name in ["case.toml", "input.soulkit.json"] {
        std::fs::copy(case.join(name), copied.join(name))?;
    }
    let output = Command::new(env!("CARGO_BIN_EXE_soulcheck"))
        .args(["run", "--quiet", "--corpus"])
        .arg(corpus.path())
        .output()?;
    if !output.status.success() {
        return Err(format!(
            "the draft fails the corpus self-check:\n{}\n{}\n{toml}",
            String::from_utf8_lossy(&output.stdout),
            String::from_utf8_lossy(&output.stderr)
        )
        .into());
    }
    if !run.stdout.contains("findings by rule (1 distinct):")
        || !run
            .stdout
            .contains("soul-kit.json.duplicate-key  accepts-invalid")
    {
        return Err(format!("summary: {run}").into());
    }
    // The same seed up to the finding's first run finds it again, whatever the jobs.
    let first_run = finding["first_run"].as_u64().unwrap_or(0);
    let again = tempfile::tempdir()?;
    let runs = (first_run + 1).to_string();
    let args = [
        "--format",
        "soul-kit",
        "--validator",
        &validator,
        "--seed",
        "3",
        "--runs",
        &runs,
        "--jobs",
        "1",
        "--timeout",
        "30",
        "--shrink-steps",
        "0",
    ];
    let repeat = fuzz(&args, again.path())?;
    let repeated = repeat.findings()?;
    if !repeated.iter().any(|record| {
        record["rule"] == "soul-kit.json.duplicate-key" && record["first_run"] == first_run
    }) {
        return Err(format!("not reproduced from the seed: {repeat}").into());
    }
    Ok(())
}

/// The arguments of a quick Soul Kit campaign (seed 3, 150 runs) against `validator`, then
/// `extra`.
fn duplicate_keys_campaign<'a>(validator: &'a str, extra: &[&'a str]) -> Vec<&'a str> {
    let mut args = vec![
        "--format",
        "soul-kit",
        "--validator",
        validator,
        "--seed",
        "3",
        "--runs",
        "150",
        "--jobs",
        "2",
        "--timeout",
        "30",
    ];
    args.extend_from_slice(extra);
    args
}

/// `--expectations`: the planted duplicate-key bug, listed in an expectations file as the
/// certification would list it, is a known deviation (class `listed`), not a finding; an
/// expectations file naming a case the corpus does not have is a setup error.
fn a_listed_deviation_is_counted_apart() -> Result<(), Failed> {
    let dir = tempfile::tempdir()?;
    let expectations = dir.path().join("expectations.toml");
    std::fs::write(
        &expectations,
        "[[failure]]\ncase = \"soul-kit/duplicate-key-root\"\nrule = \"soul-kit.json.duplicate-key\"\nreason = \"planted\"\n",
    )?;
    let validator = planted_command("duplicate-keys");
    let listed = expectations.display().to_string();
    let args = duplicate_keys_campaign(&validator, &["--expectations", &listed]);
    let run = fuzz(&args, dir.path())?;
    if run.code != Some(0) || !run.findings()?.is_empty() {
        return Err(format!("a listed deviation came back as a finding: {run}").into());
    }
    let listed_apart = run.report()?.iter().any(|record| {
        record["type"] == "apart"
            && record["class"] == "listed"
            && record["rule"] == "soul-kit.json.duplicate-key"
    });
    if !listed_apart {
        return Err(format!("no listed record: {run}").into());
    }
    std::fs::write(
        &expectations,
        "[[failure]]\ncase = \"soul-kit/no-such-case\"\nreason = \"x\"\n",
    )?;
    let run = fuzz(&args, dir.path())?;
    if run.code != Some(2) || !run.stderr.contains("no-such-case") {
        return Err(format!("an unknown case is not refused: {run}").into());
    }
    Ok(())
}

/// No validator, or a command without `{path}` for bundle trees: exit 2 with a hint.
fn usage_errors_exit_2() -> Result<(), Failed> {
    let dir = tempfile::tempdir()?;
    let run = fuzz(&["--format", "soul-kit", "--runs", "1"], dir.path())?;
    if run.code != Some(2) || !run.stderr.contains("fuzz needs a validator") {
        return Err(format!("{run}").into());
    }
    let run = fuzz(
        &[
            "--format",
            "compose-bundle",
            "--validator",
            "true",
            "--runs",
            "1",
        ],
        dir.path(),
    )?;
    if run.code != Some(2) || !run.stderr.contains("has no {path}") {
        return Err(format!("{run}").into());
    }
    Ok(())
}

/// Copies a directory of regular files and directories.
fn copy_tree(from: &Path, to: &Path) -> std::io::Result<()> {
    std::fs::create_dir_all(to)?;
    for entry in std::fs::read_dir(from)? {
        let entry = entry?;
        let target = to.join(entry.file_name());
        if entry.file_type()?.is_dir() {
            copy_tree(&entry.path(), &target)?;
        } else {
            std::fs::copy(entry.path(), target)?;
        }
    }
    Ok(())
}

/// The full campaign of one planted bug: found within 60 seconds of fuzzing, shrunk to a
/// small input, and nothing else found.
fn found_within_60_s(planted: &Planted) -> Result<(), Failed> {
    let dir = tempfile::tempdir()?;
    let validator = planted_command(planted.bug);
    let seed = planted.seed.to_string();
    let runs = planted.runs.to_string();
    let args = [
        "--format",
        planted.format,
        "--validator",
        &validator,
        "--seed",
        &seed,
        "--runs",
        &runs,
        "--duration",
        "60",
        "--jobs",
        "2",
        "--timeout",
        "30",
    ];
    let started = Instant::now();
    let run = fuzz(&args, dir.path())?;
    let elapsed = started.elapsed();
    if run.code != Some(1) {
        return Err(format!("expected findings: {run}").into());
    }
    let findings = run.findings()?;
    let about_bug = |record: &&Value| {
        planted
            .rules
            .iter()
            .any(|rule| record["rule"].as_str() == Some(rule))
    };
    for record in &findings {
        if !about_bug(&record) {
            return Err(format!("a finding the planted bug does not explain: {record}").into());
        }
    }
    let kept: Vec<&Value> = findings
        .iter()
        .filter(about_bug)
        .filter(|record| record["kept"] == true)
        .collect();
    let first = kept
        .iter()
        .map(|record| {
            record["shrunk"]["found_after_ms"]
                .as_u64()
                .unwrap_or(u64::MAX)
        })
        .min()
        .ok_or_else(|| format!("not found: {run}"))?;
    let smallest = kept
        .iter()
        .map(|record| {
            record["shrunk"]["shrunk_bytes"]
                .as_u64()
                .unwrap_or(u64::MAX)
        })
        .min()
        .unwrap_or(u64::MAX);
    // The numbers docs/fuzzing.md quotes, for `--nocapture`.
    println!(
        "{}: {} findings, first after {:.1} s, smallest shrunk input {smallest} bytes; campaign {:.1} s",
        planted.bug,
        kept.len(),
        first as f64 / 1000.0,
        elapsed.as_secs_f64()
    );
    for record in &kept {
        let shrunk = &record["shrunk"];
        println!(
            "  {} {}: run {}, after {} ms, {} -> {} bytes in {} trials, isolating {}",
            record["rule"],
            record["kind"],
            record["first_run"],
            shrunk["found_after_ms"],
            shrunk["original_bytes"],
            shrunk["shrunk_bytes"],
            shrunk["shrink_steps"],
            shrunk["isolating"]
        );
    }
    // Every shrink isolates its finding: the reference reports only the finding's rule on
    // the shrunk input (nothing, where the validator rejects a valid one).
    if let Some(record) = kept
        .iter()
        .find(|record| record["shrunk"]["isolating"] != true)
    {
        return Err(format!("a shrink that does not isolate its finding: {record}").into());
    }
    if first > 60_000 {
        return Err(format!("found only after {first} ms").into());
    }
    if smallest > SHRUNK_LIMIT as u64 {
        return Err(format!("the smallest shrunk input has {smallest} bytes: {run}").into());
    }
    Ok(())
}

// ---------------------------------------------------------------------------------------
// Running `soulcheck fuzz`

/// What a `soulcheck fuzz` process did.
struct Run {
    code: Option<i32>,
    stdout: String,
    stderr: String,
    report: PathBuf,
}

impl std::fmt::Display for Run {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "exit {:?}\n--- stdout\n{}--- stderr\n{}",
            self.code, self.stdout, self.stderr
        )
    }
}

impl Run {
    /// The records of report.jsonl.
    fn report(&self) -> Result<Vec<Value>, Failed> {
        let text = std::fs::read_to_string(self.report.join("report.jsonl"))
            .map_err(|error| format!("report.jsonl: {error}\n{self}"))?;
        text.lines()
            .map(|line| serde_json::from_str(line).map_err(|error| Failed::from(error.to_string())))
            .collect()
    }

    /// The finding records.
    fn findings(&self) -> Result<Vec<Value>, Failed> {
        Ok(self
            .report()?
            .into_iter()
            .filter(|record| record["type"] == "finding")
            .collect())
    }
}

/// Runs `soulcheck fuzz ARGS --report DIR/report --quiet`.
fn fuzz(args: &[&str], dir: &Path) -> Result<Run, Failed> {
    let report = dir.join("report");
    let output = Command::new(env!("CARGO_BIN_EXE_soulcheck"))
        .arg("fuzz")
        .args(args)
        .arg("--report")
        .arg(&report)
        .arg("--quiet")
        .env_remove("SOULCHECK_CORPUS")
        .env("CI", "true")
        .output()?;
    Ok(Run {
        code: output.status.code(),
        stdout: String::from_utf8_lossy(&output.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&output.stderr).into_owned(),
        report,
    })
}

/// The validator command of a planted bug: this test binary.
fn planted_command(bug: &str) -> String {
    let exe = std::env::current_exe().expect("the test binary");
    format!(
        "{} planted {bug} {{format}} {{context}} {{path}}",
        exe.display()
    )
}

// ---------------------------------------------------------------------------------------
// The fixture validators

/// `planted BUG FORMAT CONTEXT PATH`: the reference's report on the document, changed
/// the way the bug changes it, printed as `soulcheck check --json` prints it; exit 0 on
/// accept, 1 on reject, 2 on a usage error.
fn planted(args: &[String]) -> i32 {
    let [bug, format, context, path] = args else {
        eprintln!("usage: planted BUG FORMAT CONTEXT PATH");
        return 2;
    };
    let Ok(format) = format.parse::<Format>() else {
        eprintln!("unknown format {format}");
        return 2;
    };
    let context: Context = serde_json::from_str(context).unwrap_or_default();
    let Ok(bytes) = std::fs::read(path) else {
        eprintln!("cannot read {path}");
        return 2;
    };
    let name = Path::new(path)
        .file_name()
        .map(|name| name.to_string_lossy().into_owned())
        .unwrap_or_default();
    let input = Input::Document {
        name: &name,
        bytes: &bytes,
    };
    let report = match soulcheck_reference::check(format, "validate", input, &context) {
        Ok(report) => report,
        Err(unsupported) => {
            eprintln!("{}", unsupported.reason);
            return 2;
        }
    };
    let mut report = report.to_wire();
    let diagnostics = report.diagnostics.get_or_insert_with(Vec::new);
    match bug.as_str() {
        "utf16-length" => utf16_length(&bytes, diagnostics),
        "duplicate-keys" => diagnostics.retain(|d| !d.rule.ends_with(".json.duplicate-key")),
        "version-trim" => version_trim(&bytes, diagnostics),
        "dash-anywhere" => dash_anywhere(&bytes, diagnostics),
        "title-prefix" => title_prefix(&bytes, diagnostics),
        other => {
            eprintln!("unknown bug {other}");
            return 2;
        }
    }
    print_report(report)
}

fn print_report(mut report: Report) -> i32 {
    let rejected = report
        .diagnostics
        .iter()
        .flatten()
        .any(|diagnostic| diagnostic.severity == Severity::Error);
    report.verdict = if rejected {
        Verdict::Reject
    } else {
        Verdict::Accept
    };
    println!("{}", serde_json::to_string(&report).expect("JSON"));
    i32::from(rejected)
}

fn error_at(rule: &str, pointer: Option<&str>, message: &str) -> Diagnostic {
    Diagnostic {
        rule: rule.to_owned(),
        severity: Severity::Error,
        location: Some(Location {
            pointer: pointer.map(str::to_owned),
            ..Location::default()
        }),
        message: message.to_owned(),
    }
}

fn reports(diagnostics: &[Diagnostic], rule: &str) -> bool {
    diagnostics.iter().any(|diagnostic| diagnostic.rule == rule)
}

/// Counts `name` (at most 80) and `summary` (at most 400) in UTF-16 code units, so a
/// character outside the Basic Multilingual Plane counts twice.
fn utf16_length(bytes: &[u8], diagnostics: &mut Vec<Diagnostic>) {
    let Ok(document) = serde_json::from_slice::<Value>(bytes) else {
        return;
    };
    for (pointer, max, rule) in [
        ("/name", 80, "soul-kit.name.length"),
        ("/summary", 400, "soul-kit.summary.length"),
    ] {
        if let Some(Value::String(text)) = document.pointer(pointer) {
            if text.encode_utf16().count() > max && !reports(diagnostics, rule) {
                diagnostics.push(error_at(rule, Some(pointer), "too long"));
            }
        }
    }
}

/// Trims whitespace before matching the calendar version `YYYY.MM.DD[.PATCH]`.
fn version_trim(bytes: &[u8], diagnostics: &mut Vec<Diagnostic>) {
    let Ok(document) = serde_json::from_slice::<Value>(bytes) else {
        return;
    };
    let calendar = |text: &str| {
        let parts: Vec<&str> = text.split('.').collect();
        let digits = |part: &str, n: Option<usize>| {
            !part.is_empty()
                && part.bytes().all(|b| b.is_ascii_digit())
                && n.is_none_or(|n| part.len() == n)
        };
        matches!(parts.len(), 3 | 4)
            && digits(parts[0], Some(4))
            && digits(parts[1], Some(2))
            && digits(parts[2], Some(2))
            && parts.get(3).is_none_or(|patch| digits(patch, None))
    };
    let pointer = "/manifest/version";
    if let Some(Value::String(version)) = document.pointer(pointer) {
        if calendar(version.trim()) {
            diagnostics.retain(|diagnostic| {
                !(diagnostic.rule == "soulacy-package.version.calendar"
                    && diagnostic
                        .location
                        .as_ref()
                        .and_then(|location| location.pointer.as_deref())
                        == Some(pointer))
            });
        }
    }
}

/// Closes the head's frontmatter at the first line that contains `---` anywhere, so a
/// field after such a line is not seen.
fn dash_anywhere(bytes: &[u8], diagnostics: &mut Vec<Diagnostic>) {
    let Ok(document) = serde_json::from_slice::<Value>(bytes) else {
        return;
    };
    let Some(files) = document["files"].as_array() else {
        return;
    };
    let head = document["headPath"].as_str().unwrap_or("SKILL.md");
    let Some((index, content)) = files.iter().enumerate().find_map(|(index, file)| {
        (file["path"].as_str() == Some(head))
            .then(|| file["content"].as_str().map(|content| (index, content)))
            .flatten()
    }) else {
        return;
    };
    let lines: Vec<&str> = content
        .split('\n')
        .map(|line| line.strip_suffix('\r').unwrap_or(line))
        .collect();
    if lines.first() != Some(&"---") {
        return;
    }
    let Some(close) = lines.iter().skip(1).position(|line| line.contains("---")) else {
        return;
    };
    let frontmatter = &lines[1..=close];
    let pointer = format!("/files/{index}/content");
    for field in ["name", "description"] {
        let rule = format!("skill-package.head.{field}.required");
        let present = frontmatter
            .iter()
            .any(|line| line.starts_with(&format!("{field}:")) && !line.contains("---"));
        if !present && !reports(diagnostics, &rule) {
            diagnostics.push(error_at(&rule, Some(&pointer), "missing"));
        }
    }
}

/// Finds the role title as a line starting with `# `.
fn title_prefix(bytes: &[u8], diagnostics: &mut Vec<Diagnostic>) {
    let rule = "soul-md.title.required";
    let text = String::from_utf8_lossy(bytes);
    let found = text.lines().any(|line| line.starts_with("# "));
    if found {
        diagnostics.retain(|diagnostic| diagnostic.rule != rule);
    } else if !reports(diagnostics, rule) {
        diagnostics.push(error_at(rule, None, "no title"));
    }
}
