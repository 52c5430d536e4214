//! Interrupting `soulcheck run --report DIR` (issue "Bounded by construction", items 7
//! and 8): on SIGINT or SIGTERM no validator survives, no temporary directory is left,
//! the exit code names the signal, and the report directory holds the interrupted run
//! alone, saying so; after SIGKILL the validators die with the harness and the next run
//! removes what the killed one left.

use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

fn fixture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../harness/tests/fixtures")
        .join(name)
}

fn write(root: &Path, path: &str, text: &str) {
    let path = root.join(path);
    std::fs::create_dir_all(path.parent().expect("parent")).expect("mkdir");
    std::fs::write(path, text).expect("write");
}

/// A corpus of `n` must-level cases that accepting passes.
fn corpus(root: &Path, n: usize) {
    write(
        root,
        "soul-kit/rules.toml",
        "format = \"soul-kit\"\nspec = \"Soul Kit\"\n\n[[rule]]\nid = \"soul-kit.name.length\"\nlevel = \"must\"\nseverity = \"error\"\nsection = \"Field table: name\"\nrequirement = \"name is 1 to 80 characters.\"\nbasis = \"spec\"\n",
    );
    for index in 0..n {
        write(
            root,
            &format!("soul-kit/case-{index:02}/case.toml"),
            &format!("description = \"case {index}\"\nrules = [\"soul-kit.name.length\"]\nverdict = \"accept\"\ninput = \"input.soulkit.json\"\n"),
        );
        write(
            root,
            &format!("soul-kit/case-{index:02}/input.soulkit.json"),
            "{}\n",
        );
    }
}

fn marker(tag: &str) -> String {
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |elapsed| elapsed.subsec_nanos());
    format!("soulcheck-cli-bounds-{tag}-{}-{nanos}", std::process::id())
}

/// Live processes whose command line holds `marker` or whose process group is one of
/// `groups`: `(pid, process group)`.
fn survivors(marker: &str, groups: &[i32]) -> Vec<(i32, i32)> {
    let mut found = Vec::new();
    for entry in std::fs::read_dir("/proc").expect("/proc").flatten() {
        let Some(pid) = entry
            .file_name()
            .to_str()
            .and_then(|n| n.parse::<i32>().ok())
        else {
            continue;
        };
        let Ok(stat) = std::fs::read_to_string(format!("/proc/{pid}/stat")) else {
            continue;
        };
        let Some((_, rest)) = stat.rsplit_once(')') else {
            continue;
        };
        let fields: Vec<&str> = rest.split_whitespace().collect();
        if fields.first() == Some(&"Z") {
            continue;
        }
        let group: i32 = fields.get(2).and_then(|g| g.parse().ok()).unwrap_or(0);
        let cmdline = std::fs::read(format!("/proc/{pid}/cmdline"))
            .map(|bytes| String::from_utf8_lossy(&bytes).replace('\0', " "))
            .unwrap_or_default();
        if cmdline.contains(marker) || groups.contains(&group) {
            found.push((pid, group));
        }
    }
    found
}

/// Whether `pid` runs the soulcheck binary: the harness, or a validator's keeper or
/// PID-namespace init (forks of the harness that never exec, so their command line is the
/// harness's, marker included). Not validators, when counting those that started.
fn is_soulcheck(pid: i32) -> bool {
    std::fs::read(format!("/proc/{pid}/cmdline"))
        .is_ok_and(|cmdline| cmdline.starts_with(env!("CARGO_BIN_EXE_soulcheck").as_bytes()))
}

/// Polls `check` every 20 ms until it holds or `within` passes.
fn eventually(within: Duration, mut check: impl FnMut() -> bool) -> bool {
    let deadline = Instant::now() + within;
    loop {
        if check() {
            return true;
        }
        if Instant::now() >= deadline {
            return false;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
}

struct Setup {
    corpus: tempfile::TempDir,
    /// `TMPDIR` of the runs: whatever they leave there is visible.
    tmp: tempfile::TempDir,
    out: tempfile::TempDir,
}

impl Setup {
    fn new() -> Setup {
        let setup = Setup {
            corpus: tempfile::tempdir().expect("corpus"),
            tmp: tempfile::tempdir().expect("tmp"),
            out: tempfile::tempdir().expect("out"),
        };
        corpus(setup.corpus.path(), 8);
        setup
    }

    fn report(&self) -> PathBuf {
        self.out.path().join("report")
    }

    fn run(&self, validator: &str) -> Child {
        Command::new(env!("CARGO_BIN_EXE_soulcheck"))
            .args([
                "run",
                "--quiet",
                "--jobs",
                "2",
                "--timeout",
                "60",
                "--corpus",
            ])
            .arg(self.corpus.path())
            .arg("--validator")
            .arg(validator)
            .arg("--report")
            .arg(self.report())
            .env("TMPDIR", self.tmp.path())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("soulcheck run")
    }

    /// Starts a run whose validators hang, and waits until two of them are running;
    /// returns the run and the validators' process groups.
    fn hanging(&self, mark: &str) -> (Child, Vec<i32>) {
        let command = format!("{} {mark} {{path}}", fixture("hang-marked.sh").display());
        let run = self.run(&command);
        // The harness's own command line holds the marker too.
        let harness = run.id() as i32;
        let validators = || {
            survivors(mark, &[])
                .into_iter()
                .filter(|(pid, _)| *pid != harness && !is_soulcheck(*pid))
                .collect::<Vec<_>>()
        };
        assert!(
            eventually(Duration::from_secs(20), || validators().len() >= 2),
            "the validators did not start"
        );
        let groups = validators().into_iter().map(|(_, group)| group).collect();
        (run, groups)
    }

    fn tmp_left(&self) -> Vec<String> {
        std::fs::read_dir(self.tmp.path())
            .expect("tmp")
            .flatten()
            .map(|entry| entry.file_name().to_string_lossy().into_owned())
            .collect()
    }

    fn report_files(&self) -> Vec<String> {
        let mut files: Vec<String> = std::fs::read_dir(self.report())
            .expect("report")
            .flatten()
            .map(|entry| entry.file_name().to_string_lossy().into_owned())
            .collect();
        files.sort();
        files
    }

    fn siblings(&self) -> Vec<String> {
        std::fs::read_dir(self.out.path())
            .expect("out")
            .flatten()
            .map(|entry| entry.file_name().to_string_lossy().into_owned())
            .filter(|name| name != "report")
            .collect()
    }

    fn complete(&self) {
        let status = self
            .run(&fixture("accept-all.sh").display().to_string())
            .wait()
            .expect("wait");
        // This small corpus fails the self-check (no case rejects), which fails the run
        // with exit code 1; the certificate is what matters here.
        assert!(status.code().is_some(), "{status:?}");
        let certificate = std::fs::read_to_string(self.report().join("certificates/soul-kit.json"))
            .expect("certificate");
        assert!(certificate.contains("\"certified\": true"), "{certificate}");
    }
}

fn signal(child: &Child, name: &str) {
    let status = Command::new("kill")
        .arg(format!("-{name}"))
        .arg(child.id().to_string())
        .status()
        .expect("kill");
    assert!(status.success());
}

fn wait_within(child: &mut Child, within: Duration) -> std::process::ExitStatus {
    let deadline = Instant::now() + within;
    loop {
        if let Some(status) = child.try_wait().expect("try_wait") {
            return status;
        }
        assert!(
            Instant::now() < deadline,
            "soulcheck run did not exit in {within:?}"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// Items 7 and 8 for SIGINT and SIGTERM: exit 128 + the signal within seconds, no
/// validator left (by command line and by process group), no temporary directory left,
/// and the report directory holds the interrupted run alone, marked incomplete.
#[test]
fn an_interrupted_run_ends_cleanly() {
    for (name, code) in [("INT", 130), ("TERM", 143)] {
        let setup = Setup::new();
        setup.complete();
        let mark = marker(name);
        let (mut run, groups) = setup.hanging(&mark);
        let started = Instant::now();
        signal(&run, name);
        let status = wait_within(&mut run, Duration::from_secs(5));
        assert_eq!(status.code(), Some(code), "SIG{name}");
        // Before: the validators survived, reparented to init.
        assert!(
            eventually(Duration::from_secs(1), || survivors(&mark, &groups)
                .is_empty()),
            "SIG{name}: survivors {:?}",
            survivors(&mark, &groups)
        );
        eprintln!("SIG{name}: exited in {:?}", started.elapsed());
        // Before: 2 to 4 temporary directories per run.
        assert_eq!(setup.tmp_left(), Vec::<String>::new(), "SIG{name}");
        // Before: the earlier run's certificates, junit.xml and badges stayed.
        assert_eq!(
            setup.report_files(),
            ["INCOMPLETE", "report.jsonl", "summary.md"],
            "SIG{name}"
        );
        let jsonl = std::fs::read_to_string(setup.report().join("report.jsonl")).expect("jsonl");
        assert!(!jsonl.contains("\"type\":\"footer\""), "SIG{name}: {jsonl}");
        let summary = std::fs::read_to_string(setup.report().join("summary.md")).expect("md");
        assert!(summary.contains("interrupted"), "{summary}");
        assert_eq!(setup.siblings(), Vec::<String>::new(), "SIG{name}");
    }
}

/// Items 7 and 8 for SIGKILL, which nothing can catch: the validators die with the harness
/// (parent-death signal), the report directory keeps the earlier complete report whole,
/// and the next run removes the killed run's staging and temporary directories.
#[test]
fn a_killed_run_leaves_nothing_running_and_the_next_run_cleans_up() {
    let setup = Setup::new();
    setup.complete();
    let before = setup.report_files();
    let mark = marker("KILL");
    let (mut run, groups) = setup.hanging(&mark);
    signal(&run, "KILL");
    wait_within(&mut run, Duration::from_secs(5));
    assert!(
        eventually(Duration::from_secs(2), || survivors(&mark, &groups)
            .is_empty()),
        "survivors {:?}",
        survivors(&mark, &groups)
    );
    assert_eq!(setup.report_files(), before, "the earlier report changed");
    let staging = setup.siblings();
    assert_eq!(staging.len(), 1, "{staging:?}");
    assert!(setup
        .out
        .path()
        .join(&staging[0])
        .join("INCOMPLETE")
        .exists());
    setup.complete();
    assert_eq!(setup.siblings(), Vec::<String>::new());
    assert_eq!(setup.tmp_left(), Vec::<String>::new());
}

/// Issue 26, item 6: a line break in the action's `report-dir` input cannot add lines to
/// `$GITHUB_OUTPUT` (`certified=true`, `exit-code=0`): `scripts/certify.sh` refuses it
/// with exit 2 before anything runs, and writes nothing to the outputs.
#[test]
fn the_action_refuses_a_report_dir_that_would_forge_outputs() {
    let out = tempfile::tempdir().expect("out");
    let outputs = out.path().join("github-output");
    std::fs::write(&outputs, "").expect("outputs");
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../scripts/certify.sh");
    for forged in ["r\ncertified=true\nexit-code=0", "r\rcertified=true"] {
        let result = Command::new("bash")
            .arg(&script)
            .env("SOULCHECK_COMMAND", "true {path}")
            .env("SOULCHECK_BIN", env!("CARGO_BIN_EXE_soulcheck"))
            .env("SOULCHECK_REPORT_DIR", out.path().join(forged))
            .env("GITHUB_OUTPUT", &outputs)
            .env_remove("GITHUB_STEP_SUMMARY")
            .output()
            .expect("certify.sh");
        assert_eq!(result.status.code(), Some(2), "{forged:?}");
        let stderr = String::from_utf8_lossy(&result.stderr);
        assert!(stderr.contains("line break"), "{stderr}");
        let written = std::fs::read_to_string(&outputs).expect("outputs");
        assert_eq!(written, "", "{forged:?}");
    }
}

/// A corpus of one case whose `case.toml` is `case_toml` (written as given, or replaced by
/// a FIFO when `None`), with a template beside it.
fn hostile_corpus(root: &Path, case_toml: Option<&str>) {
    corpus(root, 1);
    let case = root.join("soul-kit/case-00");
    std::fs::write(
        case.join("template.soulkit.json"),
        "{\"name\": \"@@X@@\"}\n",
    )
    .expect("t");
    match case_toml {
        Some(text) => std::fs::write(case.join("case.toml"), text).expect("case.toml"),
        None => {
            std::fs::remove_file(case.join("case.toml")).expect("rm");
            mkfifo(&case.join("case.toml"));
        }
    }
}

fn mkfifo(path: &Path) {
    let status = Command::new("mkfifo").arg(path).status().expect("mkfifo");
    assert!(status.success());
}

fn recipe(template: &str, output: &str) -> String {
    format!("description = \"hostile\"\nrules = [\"soul-kit.name.length\"]\nverdict = \"accept\"\n\n[recipe]\ntemplate = \"{template}\"\nplaceholder = \"@@X@@\"\nunit = \"a\"\ncount = 3\noutput = \"{output}\"\n")
}

/// Runs `soulcheck` with `args` and a deadline: a hang fails the test instead of holding it.
fn soulcheck_within(args: &[&std::ffi::OsStr], within: Duration) -> (Option<i32>, String) {
    let mut child = Command::new(env!("CARGO_BIN_EXE_soulcheck"))
        .args(args)
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .expect("soulcheck");
    let status = wait_within(&mut child, within);
    let mut stderr = String::new();
    std::io::Read::read_to_string(&mut child.stderr.take().expect("stderr"), &mut stderr)
        .expect("stderr");
    (status.code(), stderr)
}

/// Issue 26, item 3: a hostile corpus (`--corpus DIR`, a pull request to `cases/`) reads
/// and writes nothing outside its roots. Climbing and absolute recipe paths, a template
/// that is a FIFO, a device or a symlink out of the case, and a FIFO as `case.toml` are
/// each refused by `cases export` and by `run` with exit 2 within seconds; the secret
/// beside the corpus is never copied in, and nothing appears outside the export and
/// scratch directories.
#[test]
fn a_hostile_corpus_is_refused_and_touches_nothing_outside() {
    let outside = tempfile::tempdir().expect("outside");
    let secret = outside.path().join("secret");
    std::fs::write(&secret, "HOST SECRET").expect("secret");
    let escape = outside.path().join("escaped");
    let escape = escape.to_str().expect("utf-8").to_owned();
    let secret_path = secret.to_str().expect("utf-8").to_owned();
    let secret_link = secret_path.clone();
    let secret_input = secret_path.clone();
    let outside_case = outside.path().to_owned();
    // A well-formed catalogue outside the corpus, reached through a symlink: refused
    // although it would parse.
    let secret_rules = outside.path().join("rules.toml");
    type Prepare<'a> = Box<dyn Fn(&Path) + 'a>;
    let variants: Vec<(&str, Prepare)> = vec![
        (
            "output climbs",
            Box::new(|root: &Path| {
                hostile_corpus(
                    root,
                    Some(&recipe("template.soulkit.json", "../../../../escaped")),
                )
            }),
        ),
        (
            "output absolute",
            Box::new(move |root: &Path| {
                hostile_corpus(root, Some(&recipe("template.soulkit.json", &escape)))
            }),
        ),
        (
            "template absolute",
            Box::new(move |root: &Path| {
                hostile_corpus(root, Some(&recipe(&secret_path, "input.soulkit.json")))
            }),
        ),
        (
            "template climbs",
            Box::new(|root: &Path| {
                hostile_corpus(root, Some(&recipe("../../../secret", "input.soulkit.json")))
            }),
        ),
        (
            "template symlink out",
            Box::new(move |root: &Path| {
                hostile_corpus(root, Some(&recipe("link.json", "input.soulkit.json")));
                std::os::unix::fs::symlink(&secret_link, root.join("soul-kit/case-00/link.json"))
                    .expect("symlink");
            }),
        ),
        (
            "template device",
            Box::new(|root: &Path| {
                hostile_corpus(root, Some(&recipe("zero.json", "input.soulkit.json")));
                std::os::unix::fs::symlink("/dev/zero", root.join("soul-kit/case-00/zero.json"))
                    .expect("symlink");
            }),
        ),
        (
            "template FIFO",
            Box::new(|root: &Path| {
                hostile_corpus(root, Some(&recipe("fifo.json", "input.soulkit.json")));
                mkfifo(&root.join("soul-kit/case-00/fifo.json"));
            }),
        ),
        (
            "case.toml FIFO",
            Box::new(|root: &Path| hostile_corpus(root, None)),
        ),
        (
            "case.toml device",
            Box::new(|root: &Path| {
                hostile_corpus(root, Some(""));
                let case_toml = root.join("soul-kit/case-00/case.toml");
                std::fs::remove_file(&case_toml).expect("rm");
                std::os::unix::fs::symlink("/dev/zero", case_toml).expect("symlink");
            }),
        ),
        (
            "input symlink out",
            Box::new(move |root: &Path| {
                hostile_corpus(
                root,
                Some("description = \"hostile\"\nrules = [\"soul-kit.name.length\"]\nverdict = \"accept\"\ninput = \"input.soulkit.json\"\n"),
            );
                let input = root.join("soul-kit/case-00/input.soulkit.json");
                std::fs::remove_file(&input).expect("rm");
                std::os::unix::fs::symlink(&secret_input, input).expect("symlink");
            }),
        ),
        (
            "case directory symlink out",
            Box::new(move |root: &Path| {
                hostile_corpus(
                    root,
                    Some(&recipe("template.soulkit.json", "input.soulkit.json")),
                );
                // A whole case outside the corpus, linked in: its files would be read.
                let case = outside_case.join("case-x");
                std::fs::create_dir_all(&case).expect("outside case");
                for file in ["case.toml", "template.soulkit.json"] {
                    std::fs::copy(root.join("soul-kit/case-00").join(file), case.join(file))
                        .expect("copy");
                }
                std::os::unix::fs::symlink(&case, root.join("soul-kit/case-01")).expect("symlink");
            }),
        ),
        (
            "catalogue symlink out",
            Box::new(move |root: &Path| {
                hostile_corpus(
                    root,
                    Some(&recipe("template.soulkit.json", "input.soulkit.json")),
                );
                let rules = root.join("soul-kit/rules.toml");
                let text = std::fs::read(&rules).expect("rules");
                std::fs::write(&secret_rules, text).expect("outside rules");
                std::fs::remove_file(&rules).expect("rm");
                std::os::unix::fs::symlink(&secret_rules, rules).expect("symlink");
            }),
        ),
    ];
    for (name, prepare) in variants {
        let root = tempfile::tempdir().expect("corpus");
        prepare(root.path());
        let out = tempfile::tempdir().expect("out");
        let tmp = tempfile::tempdir().expect("tmp");
        let export = out.path().join("export");
        let (code, stderr) = soulcheck_within(
            &[
                "cases".as_ref(),
                "export".as_ref(),
                export.as_os_str(),
                "--corpus".as_ref(),
                root.path().as_os_str(),
            ],
            Duration::from_secs(10),
        );
        assert_eq!(code, Some(2), "export, {name}: {stderr}");
        let validator = fixture("accept-all.sh").display().to_string();
        let mut run = Command::new(env!("CARGO_BIN_EXE_soulcheck"));
        run.args(["run", "--quiet", "--corpus"])
            .arg(root.path())
            .args(["--validator", &validator, "--report"])
            .arg(out.path().join("report"))
            .env("TMPDIR", tmp.path())
            .stdout(Stdio::null())
            .stderr(Stdio::piped());
        let mut child = run.spawn().expect("run");
        let status = wait_within(&mut child, Duration::from_secs(20));
        let mut stderr = String::new();
        std::io::Read::read_to_string(&mut child.stderr.take().expect("stderr"), &mut stderr)
            .expect("stderr");
        assert_eq!(status.code(), Some(2), "run, {name}: {stderr}");
        assert!(
            !outside.path().join("escaped").exists(),
            "{name}: a file was written outside"
        );
        let leaked = |dir: &Path| -> bool {
            walk_files(dir).into_iter().any(|file| {
                std::fs::read(&file)
                    .is_ok_and(|bytes| bytes.windows(11).any(|window| window == b"HOST SECRET"))
            })
        };
        assert!(!leaked(out.path()), "{name}: the secret was copied in");
        let names: Vec<_> = std::fs::read_dir(outside.path())
            .expect("outside")
            .flatten()
            .map(|entry| entry.file_name())
            .collect();
        let names: Vec<_> = names
            .into_iter()
            .filter(|n| n != "rules.toml" && n != "case-x")
            .collect();
        assert_eq!(names, ["secret"], "{name}");
    }
}

/// Every regular file below `dir`, never following a symlink.
fn walk_files(dir: &Path) -> Vec<PathBuf> {
    let mut found = Vec::new();
    let Ok(entries) = std::fs::read_dir(dir) else {
        return found;
    };
    for entry in entries.flatten() {
        let Ok(kind) = entry.file_type() else {
            continue;
        };
        if kind.is_dir() {
            found.extend(walk_files(&entry.path()));
        } else if kind.is_file() {
            found.push(entry.path());
        }
    }
    found
}

/// Issue 26, item 4: `diff` and `report html` read a report through the one bounded
/// reader: a FIFO or a device exits with 2 at once, instead of hanging or reading
/// `/dev/zero` until memory runs out.
#[test]
fn diff_and_report_html_refuse_fifos_and_devices_at_once() {
    let dir = tempfile::tempdir().expect("dir");
    let fifo = dir.path().join("report.jsonl");
    mkfifo(&fifo);
    let page = dir.path().join("page.html");
    for special in [fifo.as_path(), Path::new("/dev/zero")] {
        let started = Instant::now();
        let (code, stderr) = soulcheck_within(
            &["diff".as_ref(), special.as_os_str(), special.as_os_str()],
            Duration::from_secs(5),
        );
        assert_eq!(code, Some(2), "diff {}: {stderr}", special.display());
        assert!(stderr.contains("not a regular file"), "{stderr}");
        let (code, stderr) = soulcheck_within(
            &[
                "report".as_ref(),
                "html".as_ref(),
                page.as_os_str(),
                special.as_os_str(),
            ],
            Duration::from_secs(5),
        );
        assert_eq!(code, Some(2), "report html {}: {stderr}", special.display());
        assert!(stderr.contains("not a regular file"), "{stderr}");
        assert!(started.elapsed() < Duration::from_secs(3));
    }
}

/// Issue 26, item 5: a validator's escapes (title, clear screen, carriage return, 8-bit
/// CSI) never reach the terminal or `summary.md` raw, and neither do case names read from
/// a report by `diff`: each is shown as a visible escape.
#[test]
fn no_raw_escape_reaches_the_terminal_or_the_summary() {
    let setup = Setup::new();
    let validator = fixture("ansi.sh").display().to_string();
    let result = Command::new(env!("CARGO_BIN_EXE_soulcheck"))
        .args(["run", "--corpus"])
        .arg(setup.corpus.path())
        .args(["--validator", &validator, "--report"])
        .arg(setup.report())
        .env("TMPDIR", setup.tmp.path())
        .output()
        .expect("run");
    assert_eq!(result.status.code(), Some(1));
    let summary = std::fs::read(setup.report().join("summary.md")).expect("summary");
    for (what, bytes) in [
        ("stdout", &result.stdout),
        ("stderr", &result.stderr),
        ("summary.md", &summary),
    ] {
        let text = String::from_utf8_lossy(bytes);
        assert!(!text.contains('\u{1b}'), "{what}: {text}");
        assert!(
            !text.contains('\u{9b}') && !text.contains('\r'),
            "{what}: {text}"
        );
    }
    let summary = String::from_utf8_lossy(&summary);
    assert!(
        summary.contains("\\x1b]0;pwned\\x07\\x1b[2J\\r"),
        "{summary}"
    );

    let old = setup.report().join("report.jsonl");
    let text = std::fs::read_to_string(&old).expect("report");
    let forged = text.replacen(
        "\"soul-kit/case-00\"",
        "\"soul-kit/case-00\\u001b]0;pwned\\u0007\\u001b[2J\"",
        1,
    );
    assert_ne!(forged, text, "the report names soul-kit/case-00");
    let new = setup.out.path().join("forged.jsonl");
    std::fs::write(&new, forged).expect("forged");
    let diff = Command::new(env!("CARGO_BIN_EXE_soulcheck"))
        .arg("diff")
        .args([&old, &new])
        .output()
        .expect("diff");
    let shown = String::from_utf8_lossy(&diff.stdout);
    assert!(!shown.contains('\u{1b}'), "{shown}");
    assert!(shown.contains("case-00\\x1b]0;pwned"), "{shown}");
}

/// Issue 26, item 1: a `SIGKILL` of `soulcheck run` leaves no validator's grandchild alive,
/// even one that called `setsid` and ignores `SIGTERM` and `SIGHUP` (each validator is in a
/// PID namespace of its own, which the kernel empties when its init dies). Five tries, 0
/// survivors 3 s after each kill. Before: survivors under init in 5 of 5 tries.
#[test]
fn a_killed_run_leaves_no_setsid_grandchild() {
    let setup = Setup::new();
    for attempt in 0..5 {
        let mark = marker(&format!("STUBBORN{attempt}"));
        let command = format!(
            "{} {mark} {{path}}",
            fixture("stubborn-grandchild.sh").display()
        );
        let mut run = setup.run(&command);
        let harness = run.id() as i32;
        let others = || {
            survivors(&mark, &[])
                .into_iter()
                .filter(|(pid, _)| *pid != harness)
                .collect::<Vec<_>>()
        };
        // Two validators and their two grandchildren (the keepers and inits, which run
        // the harness's binary, not counted: they are not what must have started).
        let started = || {
            others()
                .into_iter()
                .filter(|(pid, _)| !is_soulcheck(*pid))
                .count()
        };
        assert!(
            eventually(Duration::from_secs(20), || started() >= 4),
            "the validators did not start: {:?}",
            others()
        );
        signal(&run, "KILL");
        wait_within(&mut run, Duration::from_secs(5));
        assert!(
            eventually(Duration::from_secs(3), || others().is_empty()),
            "try {attempt}: survivors {:?}",
            others()
        );
    }
}

/// Issue 37, item 3: a validator starts with a stated environment. The harness runs with a
/// token, `$TMUX` and descriptor 7 open; the validator sees none of them, gets `HOME` and
/// `TMPDIR` set to its own directory, and gets `PASSED_ON` only because `--env PASSED_ON`
/// asks for it. The fixture rejects (so the run fails) on any other environment: without
/// `--env` the same run fails.
#[test]
fn a_validator_gets_the_stated_environment_only() {
    let setup = Setup::new();
    let run = |pass: bool| {
        let mut command = Command::new("bash");
        command
            .arg("-c")
            .arg("exec 7</dev/null; exec \"$0\" \"$@\"")
            .arg(env!("CARGO_BIN_EXE_soulcheck"))
            .args(["run", "--quiet", "--jobs", "2", "--corpus"])
            .arg(setup.corpus.path())
            .arg("--validator")
            .arg(format!("{} {{path}}", fixture("environment.sh").display()))
            .arg("--report")
            .arg(setup.report())
            .env("TMPDIR", setup.tmp.path())
            .env("LEAKED_TOKEN", "secret")
            .env("TMUX", "/tmp/tmux-0/default,1,0")
            .env("PASSED_ON", "yes");
        if pass {
            command.args(["--env", "PASSED_ON"]);
        }
        command.output().expect("soulcheck run")
    };
    // The small corpus here fails the self-check (so `run` exits 1 either way): judge the
    // cases' results.
    let results = || {
        let report = std::fs::read_to_string(setup.report().join("report.jsonl")).expect("report");
        let results: Vec<String> = report
            .lines()
            .filter_map(|line| serde_json::from_str::<serde_json::Value>(line).ok())
            .filter(|record| record["type"] == "case")
            .map(|record| record["result"].as_str().unwrap_or_default().to_owned())
            .collect();
        (report, results)
    };
    run(true);
    let (report, passed) = results();
    assert_eq!(passed.len(), 8, "{report}");
    assert!(passed.iter().all(|result| result == "pass"), "{report}");
    run(false);
    let (report, without) = results();
    assert_eq!(without.len(), 8, "{report}");
    assert!(
        without.iter().all(|result| result == "wrong-verdict"),
        "{report}"
    );
    // Only the missing variable is why: nothing else of the harness's environment leaked.
    assert!(report.contains("environment: no-PASSED_ON"), "{report}");
    assert!(!report.contains("LEAKED_TOKEN"), "{report}");
}
