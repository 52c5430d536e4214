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
                .filter(|(pid, _)| *pid != harness)
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
