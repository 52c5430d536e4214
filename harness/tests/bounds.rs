//! The harness is bounded by construction, whatever the validator under test does: each
//! test reproduces one attack of a hostile validator (issue "Bounded by construction",
//! items 6 and 9 to 12; items 7 and 8, about interrupting `soulcheck run`, are in
//! `crates/cli/tests/bounds.rs`) at a size that runs in seconds, and asserts the bound.
//!
//! The tests share the process's descriptors, threads and peak RSS, so they run one at a
//! time (`serial`).

mod common;

use std::path::{Path, PathBuf};
use std::sync::{Mutex, MutexGuard};
use std::time::{Duration, Instant};

use soulcheck_harness::bounded::MAX_DIAGNOSTICS;
use soulcheck_harness::external::CommandValidator;
use soulcheck_harness::persistent::PersistentValidator;
use soulcheck_harness::process::Limits;
use soulcheck_harness::report::jsonl::Record;
use soulcheck_harness::runner::{run_all, CaseResult, RunOptions};
use soulcheck_harness::sandbox::Sandbox;
use soulcheck_harness::{scratch, Catalogue, Corpus, Profile, Strictness, Validator};

static SERIAL: Mutex<()> = Mutex::new(());

fn serial() -> MutexGuard<'static, ()> {
    SERIAL
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner())
}

fn fixture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures")
        .join(name)
}

/// A word no other process on the machine has in its command line.
fn marker(tag: &str) -> String {
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |elapsed| elapsed.subsec_nanos());
    format!("soulcheck-bounds-{tag}-{}-{nanos}", std::process::id())
}

const LIMITS: Limits = Limits {
    timeout: Duration::from_secs(10),
    output_cap: 64 * 1024,
    startup: Duration::from_secs(10),
};

/// Live processes whose command line holds `marker` or whose process group is one of
/// `groups`, as `pid: command line`.
fn survivors(marker: &str, groups: &[i32]) -> Vec<String> {
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
            found.push(format!("{pid}: {cmdline}"));
        }
    }
    found
}

fn pids(file: &Path) -> Vec<i32> {
    std::fs::read_to_string(file)
        .unwrap_or_default()
        .lines()
        .filter_map(|line| line.trim().parse().ok())
        .collect()
}

fn count(dir: &str) -> usize {
    std::fs::read_dir(dir).map_or(0, |entries| entries.count())
}

/// The threads of this process once those that have ended are gone. A joined thread can
/// stay listed in /proc for a moment after `join` returns (the kernel wakes the joiner
/// before it releases the task), longer on a loaded machine; a leaked thread stays for
/// good, so waiting a bounded while tells the two apart.
fn threads_settled_to(limit: usize) -> usize {
    let deadline = Instant::now() + Duration::from_secs(5);
    loop {
        let threads = count("/proc/self/task");
        if threads <= limit || Instant::now() > deadline {
            return threads;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// Entries left in the run's scratch directory (every case's temporary directories).
fn scratch_left() -> Vec<String> {
    let root = scratch::root().expect("scratch");
    std::fs::read_dir(root)
        .expect("scratch")
        .flatten()
        .map(|entry| entry.file_name().to_string_lossy().into_owned())
        .collect()
}

/// Resets the process's peak RSS (Linux `clear_refs`); [`peak_rss`] reads it.
fn reset_peak_rss() {
    std::fs::write("/proc/self/clear_refs", "5").expect("clear_refs");
}

/// Peak RSS since the last reset, in bytes.
fn peak_rss() -> u64 {
    let status = std::fs::read_to_string("/proc/self/status").expect("status");
    status
        .lines()
        .find_map(|line| line.strip_prefix("VmHWM:"))
        .and_then(|rest| {
            rest.trim()
                .trim_end_matches("kB")
                .trim()
                .parse::<u64>()
                .ok()
        })
        .map_or(0, |kb| kb * 1024)
}

fn rss() -> u64 {
    let status = std::fs::read_to_string("/proc/self/status").expect("status");
    status
        .lines()
        .find_map(|line| line.strip_prefix("VmRSS:"))
        .and_then(|rest| {
            rest.trim()
                .trim_end_matches("kB")
                .trim()
                .parse::<u64>()
                .ok()
        })
        .map_or(0, |kb| kb * 1024)
}

/// A corpus of `n` document cases expecting `verdict`.
fn make_corpus(n: usize, verdict: &str) -> (tempfile::TempDir, Catalogue, Corpus) {
    let dir = tempfile::tempdir().expect("tempdir");
    common::good_corpus(dir.path());
    for name in ["name-ok", "name-long", "bom"] {
        std::fs::remove_dir_all(dir.path().join("soul-kit").join(name)).expect("rm");
    }
    for index in 0..n {
        common::write(
            dir.path(),
            &format!("soul-kit/case-{index:03}/case.toml"),
            &format!("description = \"case {index}\"\nrules = [\"soul-kit.name.length\"]\nverdict = \"{verdict}\"\ninput = \"input.soulkit.json\"\n"),
        );
        common::write(
            dir.path(),
            &format!("soul-kit/case-{index:03}/input.soulkit.json"),
            "{}\n",
        );
    }
    let catalogue = Catalogue::load(dir.path()).expect("catalogue");
    let corpus = Corpus::load(dir.path()).expect("corpus");
    (dir, catalogue, corpus)
}

fn run(validator: &dyn Validator, catalogue: &Catalogue, corpus: &Corpus) -> Vec<CaseResult> {
    let cases: Vec<_> = corpus.cases.iter().collect();
    let options = RunOptions {
        jobs: 2,
        ..RunOptions::default()
    };
    run_all(
        validator,
        &cases,
        catalogue,
        Strictness::Conformance,
        &options,
    )
}

/// Item 6, per-case mode: a grandchild that calls `setsid` and keeps stdout open neither
/// survives its case nor holds the case up, and costs no descriptor or thread.
#[test]
fn a_setsid_grandchild_dies_with_its_case() {
    let _serial = serial();
    let (_dir, catalogue, corpus) = make_corpus(15, "accept");
    let mark = marker("setsid");
    let pid_file = tempfile::NamedTempFile::new().expect("pid file");
    // The sandbox would keep the fixture from writing its pids outside its directory; it
    // is not under test here (see `containment` below).
    let command = format!(
        "env SOULCHECK_TEST_PIDS={} {} {mark} {{path}}",
        pid_file.path().display(),
        fixture("setsid-grandchild.sh").display()
    );
    let validator = CommandValidator::new(&command, LIMITS, None)
        .expect("command")
        .with_sandbox(Sandbox::off());
    // Warm up once: the spawner thread and the scratch directory are made on first use.
    let (_warm_dir, warm_catalogue, warm_corpus) = make_corpus(1, "accept");
    run(&validator, &warm_catalogue, &warm_corpus);
    let (fds, threads) = (count("/proc/self/fd"), count("/proc/self/task"));
    let started = Instant::now();
    let results = run(&validator, &catalogue, &corpus);
    let elapsed = started.elapsed();
    assert!(results.iter().all(|r| r.judgement.is_pass()), "{results:?}");
    // Before: each case waited 2 s for the held pipes (15 cases, 2 jobs: 15 s).
    assert!(elapsed < Duration::from_secs(8), "{elapsed:?} for 15 cases");
    eprintln!("15 cases in {elapsed:?}");
    let groups = pids(pid_file.path());
    // A validator per case, and the grandchildren that wrote theirs before being killed.
    assert!(
        groups.len() > 16,
        "the grandchildren did not start: {groups:?}"
    );
    let left = survivors(&mark, &groups);
    assert!(left.is_empty(), "survivors: {left:?}");
    // Before: 2 descriptors and 2 threads per case.
    assert!(count("/proc/self/fd") <= fds, "descriptors leaked");
    let after = threads_settled_to(threads);
    assert!(
        after <= threads,
        "threads leaked: {threads} before, {after} after"
    );
    assert_eq!(
        scratch_left(),
        Vec::<String>::new(),
        "temporary directories left"
    );
}

/// Item 6, persistent mode: the grandchild of a pooled process dies when the pool ends.
#[test]
fn a_setsid_grandchild_of_a_persistent_validator_dies_with_it() {
    let _serial = serial();
    let (_dir, catalogue, corpus) = make_corpus(6, "accept");
    let mark = marker("persistent-setsid");
    let command = format!("{} {mark}", fixture("persistent-setsid.py").display());
    let validator = PersistentValidator::start(&command, LIMITS).expect("start");
    let results = run(&validator, &catalogue, &corpus);
    assert!(results.iter().all(|r| r.judgement.is_pass()), "{results:?}");
    assert!(
        !survivors(&mark, &[]).is_empty(),
        "the fixture did not start its grandchild"
    );
    let started = Instant::now();
    drop(validator);
    assert!(started.elapsed() < Duration::from_secs(3));
    let left = survivors(&mark, &[]);
    assert!(left.is_empty(), "survivors: {left:?}");
    assert_eq!(
        scratch_left(),
        Vec::<String>::new(),
        "temporary directories left"
    );
}

/// Item 9: a validator that fills the output cap with minimal diagnostics costs a bounded
/// number of kept diagnostics and bounded memory and report bytes per case.
#[test]
fn a_flood_of_diagnostics_is_kept_bounded() {
    let _serial = serial();
    const CASES: usize = 10;
    const CAP: usize = 4 * 1024 * 1024;
    let (_dir, catalogue, corpus) = make_corpus(CASES, "reject");
    let limits = Limits {
        output_cap: CAP,
        ..LIMITS
    };
    let command = format!(
        "{} {{path}} {CAP}",
        fixture("diagnostic-flood.py").display()
    );
    let validator = CommandValidator::new(&command, limits, None).expect("command");
    let before = rss();
    reset_peak_rss();
    let results = run(&validator, &catalogue, &corpus);
    let peak = peak_rss().saturating_sub(before);
    let cases: Vec<_> = corpus.cases.iter().collect();
    let mut report_bytes = 0;
    for result in &results {
        let kept = result
            .actual
            .as_ref()
            .and_then(|actual| actual.diagnostics.as_ref())
            .map_or(0, Vec::len);
        assert_eq!(kept, MAX_DIAGNOSTICS, "{}", result.name);
        let dropped = result
            .evidence
            .as_ref()
            .map_or(0, |e| e.diagnostics_dropped);
        assert!(dropped > 80_000, "{}: {dropped} dropped", result.name);
        let record = Record::new(cases[result.index], result, Profile::Spec);
        report_bytes += serde_json::to_string(&record).expect("record").len();
    }
    // Per case at most the kept diagnostics (each cut at 1 KiB of text) and 16 KiB of
    // evidence: under 64 KiB a record here. Before: 13 MB a record.
    assert!(
        report_bytes < CASES * 64 * 1024,
        "{report_bytes} report bytes"
    );
    // Two cases in flight, each holding at most its two capped streams and one copy of
    // its stdout as text, plus a base. Before: about 36 MB kept per case.
    let bound = 2 * 4 * CAP as u64 + 48 * 1024 * 1024;
    assert!(
        peak < bound,
        "peak RSS grew by {peak} bytes (bound {bound})"
    );
}

/// Item 10, after a reply: a validator flooding stdout where no reply is due is read no
/// further than the line cap, and is a protocol error at its next request.
#[test]
fn a_persistent_flood_after_a_reply_is_not_read() {
    let _serial = serial();
    let (_dir, catalogue, corpus) = make_corpus(6, "reject");
    let command = format!("{} reply", fixture("persistent-flood.py").display());
    let validator = PersistentValidator::start(&command, LIMITS).expect("start");
    let before = rss();
    reset_peak_rss();
    let started = Instant::now();
    let results = run(&validator, &catalogue, &corpus);
    drop(validator);
    let elapsed = started.elapsed();
    let peak = peak_rss().saturating_sub(before);
    assert!(
        results
            .iter()
            .all(|r| matches!(r.judgement.name(), "pass" | "protocol-error")),
        "{results:?}"
    );
    assert!(elapsed < Duration::from_secs(15), "{elapsed:?}");
    // At most a line cap of stdout buffered per process. Before: all of it, unbounded.
    assert!(peak < 32 * 1024 * 1024, "peak RSS grew by {peak} bytes");
}

/// Item 10, after `stop`: the goodbye is awaited within a bounded read and a second.
#[test]
fn a_persistent_flood_after_stop_is_not_read() {
    let _serial = serial();
    let (_dir, catalogue, corpus) = make_corpus(2, "reject");
    let command = format!("{} stop", fixture("persistent-flood.py").display());
    let validator = PersistentValidator::start(&command, LIMITS).expect("start");
    let results = run(&validator, &catalogue, &corpus);
    assert!(results.iter().all(|r| r.judgement.is_pass()), "{results:?}");
    let before = rss();
    reset_peak_rss();
    let started = Instant::now();
    drop(validator);
    let elapsed = started.elapsed();
    let peak = peak_rss().saturating_sub(before);
    assert!(elapsed < Duration::from_secs(3), "{elapsed:?}");
    // Before: 725 MB read in the one-second grace.
    assert!(peak < 8 * 1024 * 1024, "peak RSS grew by {peak} bytes");
}

/// Item 11: a validator that writes through the absolute symlinks of its tree writes
/// decoys in its own directory; it cannot write outside its directory, nor read or write
/// the corpus.
#[test]
fn containment() {
    let _serial = serial();
    if !Sandbox::supported() {
        eprintln!("skipped: this kernel has no Landlock");
        return;
    }
    let host = tempfile::tempdir().expect("host");
    let host_file = host.path().join("hostname");
    std::fs::write(&host_file, "host\n").expect("host file");
    let host_dir = host.path().join("etc");
    std::fs::create_dir(&host_dir).expect("host dir");
    let sentinel = host.path().join("sentinel");
    let dir = tempfile::tempdir().expect("corpus");
    common::good_corpus(dir.path());
    common::write(
        dir.path(),
        "soul-kit/tree/case.toml",
        &format!(
            "description = \"absolute symlinks\"\nrules = [\"soul-kit.name.length\"]\nverdict = \"reject\"\n\n[tree]\nname = \"bundle\"\n\n[[tree.entry]]\npath = \"content/host.md\"\nkind = \"symlink\"\ntarget = \"{}\"\n\n[[tree.entry]]\npath = \"content/etc\"\nkind = \"symlink\"\ntarget = \"{}\"\n",
            host_file.display(),
            host_dir.display()
        ),
    );
    let catalogue = Catalogue::load(dir.path()).expect("catalogue");
    let corpus = Corpus::load(dir.path()).expect("corpus");
    let hash = corpus.content_hash().expect("hash");
    let command = format!(
        "{} {} {} {{path}}",
        fixture("escape.sh").display(),
        sentinel.display(),
        dir.path().display()
    );
    let validator = CommandValidator::new(&command, LIMITS, None)
        .expect("command")
        .with_sandbox(Sandbox::new().hiding(dir.path()).expect("hide"));
    let cases: Vec<_> = corpus
        .cases
        .iter()
        .filter(|c| c.id == "tree" || c.id == "name-long")
        .collect();
    let results = run_all(
        &validator,
        &cases,
        &catalogue,
        Strictness::Conformance,
        &RunOptions {
            jobs: 2,
            ..RunOptions::default()
        },
    );
    // It rejects when every attempt failed.
    assert!(results.iter().all(|r| r.judgement.is_pass()), "{results:?}");
    assert_eq!(
        corpus.content_hash().expect("hash"),
        hash,
        "the corpus changed"
    );
    assert!(!dir.path().join("soul-kit/planted.txt").exists());
    assert_eq!(std::fs::read_to_string(&host_file).expect("host"), "host\n");
    assert_eq!(std::fs::read_dir(&host_dir).expect("host dir").count(), 0);
    assert!(!sentinel.exists(), "wrote outside its directory");
}

/// Issue 37, item 2: a persistent validator that plants a symlink in every fresh `tree-*`
/// directory of the run's scratch directory, racing the harness that fills it, cannot make
/// the harness write outside: the persistent process may write only beneath its own home,
/// so the symlinks are never made, and the decoys of 40 tree cases stay inside their trees.
/// Before, the first try made directories and files in the directory the symlinks named.
#[test]
fn a_persistent_validator_cannot_redirect_the_trees_it_races() {
    let _serial = serial();
    if !Sandbox::supported() {
        eprintln!("skipped: this kernel has no Landlock");
        return;
    }
    let outside = tempfile::tempdir().expect("outside");
    let dir = tempfile::tempdir().expect("corpus");
    common::good_corpus(dir.path());
    for index in 0..40 {
        common::write(
            dir.path(),
            &format!("soul-kit/tree-{index:02}/case.toml"),
            "description = \"an absolute symlink\"\nrules = [\"soul-kit.name.length\"]\nverdict = \"accept\"\n\n[tree]\nname = \"bundle\"\n\n[[tree.entry]]\npath = \"content/etc\"\nkind = \"symlink\"\ntarget = \"/etc/planted/deeper\"\n\n[[tree.entry]]\npath = \"content/host.md\"\nkind = \"symlink\"\ntarget = \"/etc/hostname\"\n",
        );
    }
    let catalogue = Catalogue::load(dir.path()).expect("catalogue");
    let corpus = Corpus::load(dir.path()).expect("corpus");
    let command = format!(
        "{} {}",
        fixture("persistent-plant.py").display(),
        outside.path().display()
    );
    let validator = PersistentValidator::start_sandboxed(
        &command,
        LIMITS,
        Sandbox::new().hiding(dir.path()).expect("hide"),
    )
    .expect("start");
    let cases: Vec<_> = corpus
        .cases
        .iter()
        .filter(|case| case.id.starts_with("tree-"))
        .collect();
    assert_eq!(cases.len(), 40);
    let results = run_all(
        &validator,
        &cases,
        &catalogue,
        Strictness::Conformance,
        &RunOptions {
            jobs: 2,
            ..RunOptions::default()
        },
    );
    drop(validator);
    assert!(results.iter().all(|r| r.judgement.is_pass()), "{results:?}");
    let written: Vec<_> = std::fs::read_dir(outside.path())
        .expect("outside")
        .map(|entry| entry.expect("entry").file_name())
        .collect();
    assert!(written.is_empty(), "the harness wrote outside: {written:?}");
}

/// Issue 37, item 4: a report read back costs a stated constant per byte, whatever its
/// records hold. 32 MiB of records whose `actual` is an array of a million `1`s, or whose
/// `rules` are a million one-letter strings, are read by `Log::read` (what `diff`, `report
/// html` and `report scoreboard` do) with a peak RSS growth of at most 24 bytes per report
/// byte. Before, `actual` was parsed into a tree of values: 37 bytes per byte.
#[test]
fn reports_read_back_cost_a_constant_per_byte() {
    let _serial = serial();
    let header = r#"{"type":"header","soulcheck_version":"0","corpus_hash":"sha256:x","cases":1,"mode":"per-case","implementation":{"name":"x"},"settings":{},"started_at":"2026-01-01T00:00:00Z"}"#;
    let dir = tempfile::tempdir().expect("dir");
    let size = 32 * 1024 * 1024;
    for (shape, member) in [
        ("actual", format!(r#""actual":[{}1]"#, "1,".repeat(1 << 20))),
        (
            "rules",
            format!(r#""rules":[{}"a"]"#, "\"a\",".repeat(1 << 20)),
        ),
    ] {
        let rules = if shape == "rules" {
            ""
        } else {
            r#""rules":[],"#
        };
        let mut text = format!("{header}\n");
        let mut index = 0;
        while text.len() < size {
            text.push_str(&format!(
                r#"{{"type":"case","name":"soul-kit/c{index}","id":"c{index}","format":"soul-kit","operation":"validate",{rules}"expected_verdict":"accept","expected_diagnostics":[],"result":"pass","duration_ms":1,{member}}}"#
            ));
            text.push('\n');
            index += 1;
        }
        let path = dir.path().join(format!("{shape}.jsonl"));
        std::fs::write(&path, &text).expect("write");
        let before = rss();
        reset_peak_rss();
        let log = soulcheck_harness::report::jsonl::Log::read(&path).expect("read");
        let grown = peak_rss().saturating_sub(before);
        assert_eq!(log.records.len(), index, "{shape}");
        drop(log);
        assert!(
            grown <= 24 * text.len() as u64,
            "{shape}: {} bytes read back took {grown} bytes",
            text.len()
        );
        eprintln!("{shape}: {} bytes, peak growth {grown}", text.len());
    }
}

/// Issue 37, item 7: a persistent validator that dies before its hello, printing an
/// escape sequence, is reported with what it printed shown escaped.
#[test]
fn a_validator_that_dies_before_its_hello_is_reported_escaped() {
    let _serial = serial();
    let command = r#"sh -c 'printf "\033]0;pwned\007\342\200\256x" >&2; exit 1'"#;
    let error = PersistentValidator::start(command, LIMITS)
        .err()
        .expect("it did not start")
        .to_string();
    assert!(!error.contains(['\u{1b}', '\u{7}', '\u{202e}']), "{error}");
    assert!(error.contains("\\x1b]0;pwned\\x07"), "{error}");
}

/// Item 11, the decoys themselves: an absolute symlink still points out of the tree, at
/// a decoy of the same kind inside the case's own directory.
#[test]
fn absolute_symlinks_lead_to_decoys() {
    let _serial = serial();
    let dir = tempfile::tempdir().expect("corpus");
    common::good_corpus(dir.path());
    common::write(
        dir.path(),
        "soul-kit/tree/case.toml",
        "description = \"absolute symlinks\"\nrules = [\"soul-kit.name.length\"]\nverdict = \"reject\"\n\n[tree]\nname = \"bundle\"\n\n[[tree.entry]]\npath = \"a\"\nkind = \"symlink\"\ntarget = \"/etc/hostname\"\n\n[[tree.entry]]\npath = \"b\"\nkind = \"symlink\"\ntarget = \"/../etc\"\n",
    );
    let corpus = Corpus::load(dir.path()).expect("corpus");
    let case = corpus.cases.iter().find(|c| c.id == "tree").expect("case");
    let input = soulcheck_harness::runner::prepare_input(case).expect("input");
    let soulcheck_harness::Input::Tree { root } = input.input() else {
        panic!("not a tree");
    };
    let home = root.parent().expect("parent");
    for (link, is_dir) in [("a", false), ("b", true)] {
        let target = std::fs::read_link(root.join(link)).expect("link");
        assert!(
            target.is_absolute() && !target.starts_with(root),
            "{target:?}"
        );
        assert!(
            target.starts_with(home.join("soulcheck-host")),
            "{target:?}"
        );
        assert_eq!(target.is_dir(), is_dir, "{target:?}");
    }
    assert_eq!(
        std::fs::read_link(root.join("b")).expect("link"),
        home.join("soulcheck-host/etc")
    );
}

/// Item 12: replacements that never greet cost at most the case timeout each, and after
/// a few in a row no more are started.
#[test]
fn replacements_that_never_greet_are_bounded_by_the_timeout() {
    let _serial = serial();
    let (_dir, catalogue, corpus) = make_corpus(20, "accept");
    let state = tempfile::tempdir().expect("state");
    let command = format!(
        "{} {}",
        fixture("persistent-greets-once.py").display(),
        state.path().join("started").display()
    );
    let limits = Limits {
        timeout: Duration::from_millis(500),
        startup: Duration::from_secs(30),
        ..LIMITS
    };
    let validator =
        PersistentValidator::start_sandboxed(&command, limits, Sandbox::off()).expect("start");
    let started = Instant::now();
    let results = run(&validator, &catalogue, &corpus);
    let elapsed = started.elapsed();
    drop(validator);
    assert!(
        results.iter().all(|r| r.judgement.is_failure()),
        "{results:?}"
    );
    // Before: 30 s per case. Now at most 3 replacements of 0.5 s each, a few per worker.
    assert!(elapsed < Duration::from_secs(6), "{elapsed:?} for 20 cases");
    let last = results.last().expect("results").judgement.explain();
    assert!(last.contains("no longer starts"), "{last}");
}

/// A validator that prints `cap` bytes of `x` and exits 1, read by a mapping of
/// `patterns` patterns of the shape `(?P<pointer>x+)`, each its own (a suffix that never
/// matches), as a real mapping's are; with the corpus of one case it runs on.
fn x_flood_with_patterns(
    patterns: usize,
    cap: usize,
    timeout: Duration,
) -> (tempfile::TempDir, Catalogue, Corpus, CommandValidator) {
    let (dir, catalogue, corpus) = make_corpus(1, "reject");
    let mapping = dir.path().join("mapping.toml");
    let mut text = String::new();
    for index in 0..patterns {
        text.push_str(&format!(
            "[[diagnostic]]\npattern = '(?P<pointer>x+)(?:never{index})?'\nrule = \"soul-kit.name.length\"\n"
        ));
    }
    std::fs::write(&mapping, text).expect("mapping");
    let mapping = soulcheck_harness::external::Mapping::load(&mapping).expect("mapping loads");
    let limits = Limits {
        output_cap: cap,
        timeout,
        ..LIMITS
    };
    let command = format!("{} {cap}", fixture("x-flood.sh").display());
    let validator = CommandValidator::new(&command, limits, Some(mapping)).expect("command");
    (dir, catalogue, corpus, validator)
}

/// Issue 37, item 8: the time a mapping's patterns take over a validator's output counts
/// against `--timeout`. A validator that answers at once, read by 4000 patterns over
/// 1 MiB of output (seconds of matching in a test build), times out at 1 s, and says why.
#[test]
fn a_mapping_that_reads_too_long_times_the_case_out() {
    let _serial = serial();
    const PATTERNS: usize = 4000;
    const CAP: usize = 1024 * 1024;
    let (_dir, catalogue, corpus, validator) =
        x_flood_with_patterns(PATTERNS, CAP, Duration::from_secs(1));
    let started = Instant::now();
    let results = run(&validator, &catalogue, &corpus);
    eprintln!(
        "{PATTERNS} patterns over {CAP} bytes: {:?}",
        started.elapsed()
    );
    assert_eq!(results[0].judgement.name(), "timeout", "{:?}", results[0]);
    let exit = &results[0].evidence.as_ref().expect("evidence").exit;
    assert!(
        exit.contains("reading its output took the case past the 1s timeout"),
        "{exit}"
    );
}

/// Issue 26, item 2: a mapping's memory does not grow with patterns times output. 2000
/// patterns of the shape `(?P<pointer>x+)` over 4 MiB of `x` (one match each, spanning the
/// whole output) keep 256 diagnostics of at most 1 KiB of text each, and the run's peak
/// RSS grows by at most the output held (stdout as bytes, as text and joined with stderr)
/// plus 2000 compiled patterns with their caches, 64 MiB here. Before: 3.95 GB, aborted.
#[test]
fn thousands_of_mapping_patterns_over_a_large_output_are_bounded() {
    let _serial = serial();
    const PATTERNS: usize = 2000;
    const CAP: usize = 4 * 1024 * 1024;
    let (_dir, catalogue, corpus, validator) =
        x_flood_with_patterns(PATTERNS, CAP, Duration::from_secs(60));
    let before = rss();
    reset_peak_rss();
    let started = Instant::now();
    let results = run(&validator, &catalogue, &corpus);
    let elapsed = started.elapsed();
    let peak = peak_rss().saturating_sub(before);
    eprintln!("{PATTERNS} patterns over {CAP} bytes: {elapsed:?}, peak RSS +{peak} bytes");
    let diagnostics = results[0]
        .actual
        .as_ref()
        .and_then(|actual| actual.diagnostics.as_ref())
        .expect("diagnostics");
    assert_eq!(diagnostics.len(), MAX_DIAGNOSTICS);
    assert!(diagnostics
        .iter()
        .all(|d| d.message.len() <= soulcheck_harness::bounded::MAX_TEXT));
    let bound = 4 * CAP as u64 + 64 * 1024 * 1024;
    assert!(
        peak < bound,
        "peak RSS grew by {peak} bytes (bound {bound})"
    );
}
