//! `soulcheck report html` in a real browser. Four fixture runs cover a small selection of
//! the corpus (the reference in process, the reference through `soulcheck serve`, a
//! script that accepts everything and prints markup, and the reference in process in the
//! strict profile), their reports become one page, and headless Chromium loads it from
//! `file://` with `?selftest`: the page's own script drives the filters and writes what
//! was rendered into the DOM, which Chromium dumps (`--dump-dom`). The checks compare
//! that with the reports: the matrix cells, each filter's effect, and the details of
//! opened cases (input, expectations per profile, each answer and the output). A screenshot
//! lands in `target/report-html/screenshot.png`, beside the page (`report.html`).
//!
//! Without Chromium the browser trial is skipped (reported as ignored, with the reason),
//! except in CI (`CI=true`), where it fails: `.ci/run` installs Debian's `chromium`.
//! `SOULCHECK_CHROMIUM` names another browser binary.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::sync::OnceLock;
use std::time::{Duration, Instant};

use base64::Engine as _;
use libtest_mimic::{Arguments, Completion, Failed, Trial};
use soulcheck_harness::report::jsonl::Log;
use soulcheck_harness::Corpus;

/// The selection every fixture run uses: all of soul-md (documents, an operation) and
/// the bundle manifest cases (directories).
const SELECTION: &[&str] = &[
    "--format",
    "soul-md",
    "--format",
    "compose-bundle",
    "--case",
    "soul-md/*",
    "--case",
    "compose-bundle/manifest-*",
];

/// What the hostile fixture prints on stdout.
const HOSTILE: &str = "<script>window.soulcheckPwned=1</script>";

fn main() {
    let args = Arguments::from_args();
    let trials = vec![
        Trial::test("page_keeps_hostile_output_as_text", || {
            page_keeps_hostile_output_as_text().map_err(Failed::from)
        }),
        Trial::ignorable_test("page_renders_in_chromium", page_renders_in_chromium),
    ];
    libtest_mimic::run(&args, trials).exit();
}

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// The reports and the page, made once for both trials.
struct Fixture {
    _dir: tempfile::TempDir,
    page: PathBuf,
    logs: Vec<Log>,
}

fn fixture() -> Result<&'static Fixture, String> {
    static FIXTURE: OnceLock<Result<Fixture, String>> = OnceLock::new();
    FIXTURE
        .get_or_init(make_fixture)
        .as_ref()
        .map_err(Clone::clone)
}

fn make_fixture() -> Result<Fixture, String> {
    let dir = tempfile::tempdir().map_err(|error| error.to_string())?;
    let binary = env!("CARGO_BIN_EXE_soulcheck");
    let served = format!("{binary} serve");
    let runs: [(&str, Vec<&str>); 4] = [
        ("reference", vec![]),
        ("served", vec!["--persistent", "--validator", &served]),
        (
            "accept-all",
            vec![
                "--validator",
                "crates/cli/tests/fixtures/hostile-accept-all.sh {path}",
                "--name",
                "accept-all",
                "--impl-version",
                "1.0",
            ],
        ),
        ("strict", vec!["--profile", "strict"]),
    ];
    let mut reports = Vec::new();
    for (name, args) in runs {
        let report = dir.path().join(name);
        let output = soulcheck(
            &[&["run", "--quiet", "--jobs", "2"], SELECTION, &args[..]].concat(),
            Some(&report),
        )?;
        // A failing case (or, while the corpus data is reworked, its self-check) exits 1;
        // only a run that could not run at all is a problem here.
        if output.status.code() == Some(2) {
            return Err(format!("soulcheck run ({name}) failed: {output:?}"));
        }
        reports.push(report.join("report.jsonl"));
    }
    let page = dir.path().join("report.html");
    let mut args = vec!["report".to_owned(), "html".to_owned()];
    args.push(page.display().to_string());
    args.extend(reports.iter().map(|path| path.display().to_string()));
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let output = soulcheck(&args, None)?;
    if !output.status.success() {
        return Err(format!("soulcheck report html failed: {output:?}"));
    }
    let logs = reports
        .iter()
        .map(|path| Log::read(path).map_err(|error| error.to_string()))
        .collect::<Result<_, _>>()?;
    Ok(Fixture {
        _dir: dir,
        page,
        logs,
    })
}

fn soulcheck(args: &[&str], report: Option<&Path>) -> Result<Output, String> {
    let mut command = Command::new(env!("CARGO_BIN_EXE_soulcheck"));
    command
        .args(args)
        .current_dir(root())
        .env_remove("SOULCHECK_CORPUS")
        .env("CI", "true");
    if let Some(report) = report {
        command.arg("--report").arg(report);
    }
    command.output().map_err(|error| error.to_string())
}

/// Without a browser: the markup a validator printed is in the page only escaped, and
/// nothing in the page loads anything from elsewhere.
fn page_keeps_hostile_output_as_text() -> Result<(), String> {
    let fixture = fixture()?;
    let page = std::fs::read_to_string(&fixture.page).map_err(|error| error.to_string())?;
    if !page.contains("&lt;script&gt;window.soulcheckPwned=1&lt;/script&gt;") {
        return Err("the hostile stdout is not in the page, escaped".to_owned());
    }
    if page.contains(HOSTILE) {
        return Err("the hostile stdout is in the page unescaped".to_owned());
    }
    if page.matches("<script").count() != 1 {
        return Err("the page has more than its own script".to_owned());
    }
    for remote in ["src=\"http", "href=\"http", "@import", "url("] {
        if page.contains(remote) {
            return Err(format!("the page refers to something outside it: {remote}"));
        }
    }
    if !page.contains("Content-Security-Policy") {
        return Err("the page has no Content-Security-Policy".to_owned());
    }
    Ok(())
}

fn page_renders_in_chromium() -> Result<Completion, Failed> {
    let Some(chromium) = find_chromium() else {
        let in_ci = std::env::var("CI").is_ok_and(|value| !value.is_empty() && value != "false");
        let reason = "no Chromium (/usr/bin/chromium; Debian: apt-get install chromium, or set SOULCHECK_CHROMIUM): the page is not checked in a browser";
        if in_ci {
            return Err(format!("{reason}; CI must install it (.ci/run does)").into());
        }
        eprintln!("skipped page_renders_in_chromium: {reason}");
        return Ok(Completion::ignored_with(reason));
    };
    let fixture = fixture()?;
    let expected = Expected::new(&fixture.logs);
    let outputs = target_dir().join("report-html");
    std::fs::create_dir_all(&outputs).map_err(|error| error.to_string())?;
    std::fs::copy(&fixture.page, outputs.join("report.html")).map_err(|e| e.to_string())?;
    let page = outputs
        .join("report.html")
        .canonicalize()
        .map_err(|e| e.to_string())?;

    // A case the accept-all fixture failed (its hostile output is in the detail), a
    // directory case, and a rule.
    let hostile_case = expected.failed_document_case.clone();
    let tree_case = expected.tree_case.clone();
    let rule = "soul-md.fingerprint";
    let split_case = &expected.profile_split.0;
    let url = format!(
        "file://{}?selftest&case={hostile_case}&case={tree_case}&case={split_case}&rule={rule}",
        page.display()
    );
    let dom = browse(&chromium, &url, &["--dump-dom"])?;
    let report = selftest(&dom)?;
    check_rendering(&report, &expected, &hostile_case, &tree_case, rule)?;

    // A link carries filters: the accept-all run's soul-md failures, and nothing else.
    let url = format!(
        "file://{}?format=soul-md&result=failing&run=2",
        page.display()
    );
    let dom = browse(&chromium, &url, &["--dump-dom"])?;
    let shown: BTreeSet<String> = dom
        .split("<details class=\"case\"")
        .skip(1)
        .filter_map(|part| {
            let tag = &part[..part.find('>')?];
            if tag.contains(" hidden") {
                return None;
            }
            let name = tag.split("data-name=\"").nth(1)?.split('"').next()?;
            Some(name.to_owned())
        })
        .collect();
    let wanted: BTreeSet<String> = expected.results[2]["failing"]
        .iter()
        .filter(|name| name.starts_with("soul-md/"))
        .cloned()
        .collect();
    if wanted.is_empty() || shown != wanted {
        return Err(format!(
            "filters from the link: {} cases shown, {} expected: {:?}",
            shown.len(),
            wanted.len(),
            shown.symmetric_difference(&wanted).collect::<Vec<_>>()
        )
        .into());
    }

    // What a reader sees: the failures, one of them open.
    let screenshot = outputs.join("screenshot.png");
    let _ = std::fs::remove_file(&screenshot);
    let url = format!(
        "file://{}?result=failing&case={hostile_case}",
        page.display()
    );
    let flag = format!("--screenshot={}", screenshot.display());
    browse(&chromium, &url, &[&flag, "--window-size=1400,2200"])?;
    let png = std::fs::read(&screenshot).map_err(|error| format!("no screenshot: {error}"))?;
    if !png.starts_with(b"\x89PNG") {
        return Err("the screenshot is not a PNG".into());
    }
    eprintln!("screenshot: {}", screenshot.display());
    Ok(Completion::Completed)
}

/// What the reports say the page must show.
struct Expected {
    /// Every case name in any report.
    names: BTreeSet<String>,
    /// Case names by format.
    formats: BTreeMap<String, BTreeSet<String>>,
    /// Per run: result -> case names.
    results: Vec<BTreeMap<String, BTreeSet<String>>>,
    /// Per run: format -> (validation cases passed, run).
    validation: Vec<BTreeMap<String, (usize, usize)>>,
    /// A soul-md case the accept-all run got wrong.
    failed_document_case: String,
    /// A bundle case (a directory input).
    tree_case: String,
    /// A case the spec and strict profiles expect different verdicts of: its name and
    /// the two verdicts.
    profile_split: (String, String, String),
}

impl Expected {
    fn new(logs: &[Log]) -> Expected {
        let mut names = BTreeSet::new();
        let mut formats: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
        let mut results = Vec::new();
        let mut validation = Vec::new();
        for log in logs {
            let mut by_result: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
            let mut by_format: BTreeMap<String, (usize, usize)> = BTreeMap::new();
            for record in &log.records {
                names.insert(record.name.clone());
                formats
                    .entry(record.format.to_string())
                    .or_default()
                    .insert(record.name.clone());
                by_result
                    .entry(record.result.clone())
                    .or_default()
                    .insert(record.name.clone());
                if record.result != "pass" {
                    by_result
                        .entry("failing".to_owned())
                        .or_default()
                        .insert(record.name.clone());
                }
                if record.operation == "validate" {
                    let entry = by_format.entry(record.format.to_string()).or_default();
                    entry.1 += 1;
                    if record.result == "pass" {
                        entry.0 += 1;
                    }
                }
            }
            results.push(by_result);
            validation.push(by_format);
        }
        let accept_all = &logs[2];
        // One with a nonempty input, so the detail's input can be looked for.
        let corpus = Corpus::embedded(&soulcheck_corpus::CASES).expect("the embedded corpus");
        let has_text = |name: &str| {
            corpus.cases.iter().any(|case| {
                case.name() == name
                    && case
                        .input_bytes()
                        .is_ok_and(|bytes| bytes.iter().any(|byte| !byte.is_ascii_whitespace()))
            })
        };
        let failed_document_case = accept_all
            .records
            .iter()
            .find(|record| {
                record.result == "wrong-verdict"
                    && record.format.name() == "soul-md"
                    && record.operation == "validate"
                    && has_text(&record.name)
            })
            .map(|record| record.name.clone())
            .expect("the accept-all fixture fails a soul-md case");
        let tree_case = names
            .iter()
            .find(|name| name.starts_with("compose-bundle/"))
            .cloned()
            .expect("a bundle case");
        let strict = &logs[3];
        let profile_split = logs[0]
            .records
            .iter()
            .find_map(|spec| {
                let strict = strict
                    .records
                    .iter()
                    .find(|record| record.name == spec.name)?;
                (strict.expected_verdict != spec.expected_verdict).then(|| {
                    (
                        spec.name.clone(),
                        spec.expected_verdict.clone(),
                        strict.expected_verdict.clone(),
                    )
                })
            })
            .expect("a case whose verdict the strict profile changes");
        Expected {
            profile_split,
            names,
            formats,
            results,
            validation,
            failed_document_case,
            tree_case,
        }
    }
}

fn check_rendering(
    report: &serde_json::Value,
    expected: &Expected,
    hostile_case: &str,
    tree_case: &str,
    rule: &str,
) -> Result<(), String> {
    let names = |value: &serde_json::Value| -> BTreeSet<String> {
        value
            .as_array()
            .map(|list| {
                list.iter()
                    .filter_map(|name| name.as_str().map(str::to_owned))
                    .collect()
            })
            .unwrap_or_default()
    };
    let ensure = |ok: bool, what: String| if ok { Ok(()) } else { Err(what) };

    // Nothing from a report ran or loaded.
    ensure(
        report["scripts"] == 1,
        format!("scripts: {}", report["scripts"]),
    )?;
    ensure(
        report["images"] == 0,
        format!("images: {}", report["images"]),
    )?;
    ensure(
        report["pwned"] == false,
        "a validator's output ran".to_owned(),
    )?;

    // Every case is listed and shown with no filter.
    let total = expected.names.len();
    ensure(
        report["total"] == total && report["shown"] == total,
        format!(
            "cases: {} shown of {}, expected {total}",
            report["shown"], report["total"]
        ),
    )?;

    // The matrix: each implementation's certificate and passed count per format.
    let cells = report["matrix"].as_array().cloned().unwrap_or_default();
    for (run, formats) in expected.validation.iter().enumerate() {
        for (format, (passed, of)) in formats {
            let cell = cells
                .iter()
                .find(|cell| {
                    cell["run"] == run
                        && cell["format"] == *format
                        && cell["operation"] == "validate"
                })
                .ok_or_else(|| format!("no matrix cell for run {run}, {format}"))?;
            let text = cell["text"].as_str().unwrap_or_default();
            ensure(
                text.contains(&format!("{passed} of {of} passed")),
                format!("run {run}, {format}: {text:?} lacks {passed} of {of} passed"),
            )?;
            // The selection judges every soul-md case and part of compose-bundle's, which
            // is not a certification for anyone; of the whole formats, only the
            // accept-all fixture (run 2) is not certified.
            let status = if *format == "compose-bundle" {
                "not a certification"
            } else if run != 2 {
                "certified"
            } else {
                "not certified"
            };
            ensure(
                text.starts_with(status),
                format!("run {run}, {format}: {text:?} is not {status}"),
            )?;
        }
    }

    // The format filter shows exactly that format's cases, and its matrix rows.
    for (format, cases) in &expected.formats {
        let shown = &report["formats"][format];
        ensure(
            names(&shown["cases"]) == *cases,
            format!(
                "format filter {format}: {} shown, {} expected",
                shown["cases"],
                cases.len()
            ),
        )?;
        ensure(
            shown["subjects"].as_u64().unwrap_or(0) >= 1,
            format!("format filter {format}: no matrix row"),
        )?;
    }

    // The implementation and result filters together: exactly the cases with that
    // result in that run, and no other run's column.
    let none = BTreeSet::new();
    for (run, results) in expected.results.iter().enumerate() {
        let rendered = report["results"][run.to_string()]
            .as_object()
            .cloned()
            .unwrap_or_default();
        for (result, shown) in rendered.iter().filter(|(key, _)| *key != "columns") {
            // With one implementation shown, none can disagree with another.
            let cases = results.get(result).unwrap_or(&none);
            let shown = names(shown);
            ensure(
                shown == *cases,
                format!("run {run}, result {result}: {shown:?} shown, {cases:?} expected"),
            )?;
        }
        ensure(
            report["results"][run.to_string()]["columns"] == 0,
            format!("run {run} alone still shows another run's column"),
        )?;
    }
    ensure(
        !expected.results[2]["wrong-verdict"].is_empty(),
        "the accept-all fixture failed nothing".to_owned(),
    )?;

    // The rule filter: only cases naming a matching rule, and only matching rule rows.
    let corpus = Corpus::embedded(&soulcheck_corpus::CASES).map_err(|e| e.to_string())?;
    let with_rule: BTreeSet<String> = corpus
        .cases
        .iter()
        .filter(|case| expected.names.contains(&case.name()))
        .filter(|case| case.all_rules().iter().any(|name| name.contains(rule)))
        .map(|case| case.name())
        .collect();
    let shown = names(&report["rule"]["cases"]);
    ensure(
        !shown.is_empty() && shown == with_rule,
        format!("rule filter {rule}: {shown:?} shown, {with_rule:?} expected"),
    )?;
    let rows = names(&report["rule"]["rows"]);
    ensure(
        !rows.is_empty() && rows.iter().all(|row| row.contains(rule)),
        format!("rule filter {rule}: rows {rows:?}"),
    )?;

    // A case's detail: rendered when opened, with its input, what it expects, and the
    // validator's output as text.
    let detail = &report["details"][hostile_case];
    ensure(
        detail["rendered"] == true,
        format!("{hostile_case}: detail not rendered"),
    )?;
    let text = detail["text"].as_str().unwrap_or_default();
    let case = corpus
        .cases
        .iter()
        .find(|case| case.name() == hostile_case)
        .ok_or("the case is not in the corpus")?;
    let input = case.input_bytes().map_err(|error| error.to_string())?;
    let first_line = String::from_utf8_lossy(&input)
        .lines()
        .map(str::trim)
        .find(|line| !line.is_empty())
        .unwrap_or_default()
        .chars()
        .take(60)
        .collect::<String>();
    ensure(
        !first_line.is_empty(),
        format!("{hostile_case}: an empty input"),
    )?;
    for needle in [
        HOSTILE,
        "onerror=\"window.soulcheckPwned=2\"",
        "</pre></details><script>window.soulcheckPwned=3</script>",
        "expected verdict reject, got accept",
        "Expected (spec profile)",
        "Expected (strict profile)",
        first_line.as_str(),
    ] {
        ensure(
            text.contains(needle),
            format!("{hostile_case}: the detail lacks {needle:?}:\n{text}"),
        )?;
    }
    // Where the profiles disagree, the case's line shows each profile's verdict.
    let (split_case, spec, strict) = &expected.profile_split;
    let summary = report["details"][split_case.as_str()]["summary"]
        .as_str()
        .unwrap_or_default();
    ensure(
        summary.contains(&format!("{spec} (spec)"))
            && summary.contains(&format!("{strict} (strict)")),
        format!(
            "{split_case}: the line {summary:?} does not show {spec} (spec) and {strict} (strict)"
        ),
    )?;
    let tree = &report["details"][tree_case];
    let tree_text = tree["text"].as_str().unwrap_or_default();
    ensure(
        tree["rendered"] == true && tree_text.contains("input: the directory"),
        format!("{tree_case}: {tree_text}"),
    )?;
    Ok(())
}

/// The JSON the page's self-test wrote into the dumped DOM.
fn selftest(dom: &str) -> Result<serde_json::Value, String> {
    let start = dom.find("id=\"selftest-result\"").ok_or_else(|| {
        format!(
            "no self-test result in the page (did its script run?):\n{}",
            head(dom)
        )
    })?;
    let open = dom[start..].find('>').ok_or("truncated DOM")? + start + 1;
    let close = dom[open..].find("</pre>").ok_or("truncated DOM")? + open;
    let bytes = base64::engine::general_purpose::STANDARD
        .decode(dom[open..close].trim())
        .map_err(|error| format!("self-test result: {error}"))?;
    serde_json::from_slice(&bytes).map_err(|error| format!("self-test result: {error}"))
}

fn head(text: &str) -> &str {
    let mut end = text.len().min(2000);
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    &text[..end]
}

fn find_chromium() -> Option<PathBuf> {
    if let Some(path) = std::env::var_os("SOULCHECK_CHROMIUM") {
        return Some(PathBuf::from(path));
    }
    let candidates = ["/usr/bin/chromium", "/usr/bin/chromium-browser"];
    if let Some(found) = candidates
        .iter()
        .map(PathBuf::from)
        .find(|path| path.is_file())
    {
        return Some(found);
    }
    std::env::split_paths(&std::env::var_os("PATH")?)
        .map(|dir| dir.join("chromium"))
        .find(|path| path.is_file())
}

/// Runs headless Chromium on `url` with a fresh profile and returns its standard output,
/// killing it after two minutes.
fn browse(chromium: &Path, url: &str, extra: &[&str]) -> Result<String, String> {
    let profile = tempfile::tempdir().map_err(|error| error.to_string())?;
    let mut child = Command::new(chromium)
        .args([
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--disable-quic",
            "--no-first-run",
            "--disable-background-networking",
            "--disable-component-update",
            "--disable-sync",
            "--hide-scrollbars",
        ])
        .arg(format!("--user-data-dir={}", profile.path().display()))
        .args(extra)
        .arg(url)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|error| format!("cannot start {}: {error}", chromium.display()))?;
    // Read the pipes on threads, so a full pipe cannot stall the browser.
    let mut stdout = child.stdout.take().ok_or("no stdout")?;
    let mut stderr = child.stderr.take().ok_or("no stderr")?;
    let out = std::thread::spawn(move || {
        let mut text = String::new();
        let _ = std::io::Read::read_to_string(&mut stdout, &mut text);
        text
    });
    let err = std::thread::spawn(move || {
        let mut text = String::new();
        let _ = std::io::Read::read_to_string(&mut stderr, &mut text);
        text
    });
    let deadline = Instant::now() + Duration::from_secs(120);
    let status = loop {
        if let Some(status) = child.try_wait().map_err(|error| error.to_string())? {
            break status;
        }
        if Instant::now() > deadline {
            let _ = child.kill();
            let _ = child.wait();
            return Err(format!(
                "{} did not finish in two minutes",
                chromium.display()
            ));
        }
        std::thread::sleep(Duration::from_millis(100));
    };
    let stdout = out.join().unwrap_or_default();
    let stderr = err.join().unwrap_or_default();
    if !status.success() {
        return Err(format!(
            "{} failed ({status}):\n{stderr}",
            chromium.display()
        ));
    }
    Ok(stdout)
}

/// `target/` (integration tests get `target/tmp` as their scratch directory).
fn target_dir() -> PathBuf {
    let scratch = Path::new(env!("CARGO_TARGET_TMPDIR"));
    scratch.parent().unwrap_or(scratch).to_owned()
}
