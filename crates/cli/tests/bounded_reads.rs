//! What `soulcheck check` reads (item 3 of the bounds, see the reference's "Bounds"
//! documentation): a regular file only, and at most its format's limit plus one byte.
//! Before, a 1 GiB sparse Soul Kit cost 1 GB of memory and 7 s to report `size.max`,
//! `/dev/zero` was read until memory ran out, a FIFO hung `check` and a growing file was
//! chased to 6 GB.
//!
//! The read itself ([`soulcheck::read::read_document`]) is measured in process, its
//! allocation counted by `stats_alloc` (this binary's allocator; the tests hold one lock
//! so that no other test allocates meanwhile); the binary is run end to end for its exit
//! code, output and time.

use std::io::Write as _;
use std::path::Path;
use std::process::{Command, Output, Stdio};
use std::sync::{Mutex, MutexGuard};
use std::time::{Duration, Instant};

use soulcheck::read::{read_document, Document};
use soulcheck_reference::soul_kit::MAX_BYTES;
use stats_alloc::{Region, StatsAlloc, INSTRUMENTED_SYSTEM};

#[global_allocator]
static ALLOCATOR: &StatsAlloc<std::alloc::System> = &INSTRUMENTED_SYSTEM;

static ONE_AT_A_TIME: Mutex<()> = Mutex::new(());

/// Held for the whole of a test: the allocation count is process-wide.
fn serial() -> MutexGuard<'static, ()> {
    ONE_AT_A_TIME
        .lock()
        .unwrap_or_else(|poison| poison.into_inner())
}

/// What a read may allocate besides the bytes it keeps (paths, messages, metadata).
const READ_OVERHEAD: usize = 64 * 1024;

/// Wall-time ceiling of one `check` run on a shared machine.
const CEILING: Duration = Duration::from_secs(20);

/// Runs `soulcheck ARGS`, killing it (and failing) past [`CEILING`].
fn soulcheck(args: &[&str]) -> (Output, Duration) {
    let started = Instant::now();
    let mut child = Command::new(env!("CARGO_BIN_EXE_soulcheck"))
        .args(args)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("soulcheck runs");
    loop {
        if child.try_wait().expect("wait").is_some() {
            break;
        }
        if started.elapsed() > CEILING {
            let _ = child.kill();
            let _ = child.wait();
            panic!("soulcheck {args:?} still ran after {CEILING:?}");
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    let output = child.wait_with_output().expect("output");
    (output, started.elapsed())
}

/// Reads `path` with the Soul Kit limit, counting what the read allocates.
fn counted_read(path: &Path) -> (anyhow::Result<Document>, usize) {
    let region = Region::new(ALLOCATOR);
    let read = read_document(path, Some(MAX_BYTES));
    (read, region.change().bytes_allocated)
}

/// A 1 GiB sparse Soul Kit is refused from its size on disk: nothing of it is read.
#[test]
fn a_huge_file_is_refused_unread() {
    let _serial = serial();
    let dir = tempfile::tempdir().expect("temp dir");
    let path = dir.path().join("huge.soulkit.json");
    let file = std::fs::File::create(&path).expect("create");
    file.set_len(1 << 30).expect("sparse file");
    drop(file);

    let (read, allocated) = counted_read(&path);
    assert_eq!(read.expect("read"), Document::TooLarge { size: 1 << 30 });
    assert!(allocated <= READ_OVERHEAD, "{allocated} bytes allocated");

    let (output, elapsed) = soulcheck(&["check", "--json", path.to_str().expect("UTF-8")]);
    assert_eq!(output.status.code(), Some(1));
    let report = String::from_utf8_lossy(&output.stdout);
    assert!(report.contains("soul-kit.size.max"), "{report}");
    assert!(report.contains("1073741824"), "{report}");
    assert!(
        output.stdout.len() < 1024,
        "{} bytes out",
        output.stdout.len()
    );
    eprintln!("1 GiB sparse kit: {elapsed:?}");
}

/// A file that grows while it is read is read to one byte past the limit, no further.
#[test]
fn a_growing_file_is_read_to_the_limit_only() {
    let _serial = serial();
    let dir = tempfile::tempdir().expect("temp dir");
    let path = dir.path().join("growing.soulkit.json");
    std::fs::write(&path, b"[").expect("create");
    let stop = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
    let writer = {
        let path = path.clone();
        let stop = std::sync::Arc::clone(&stop);
        // Allocates before the measured read starts, not while it runs.
        let chunk = vec![b' '; 64 * 1024];
        let mut file = std::fs::OpenOptions::new()
            .append(true)
            .open(&path)
            .expect("open for appending");
        std::thread::spawn(move || {
            let mut written = 0usize;
            // At most 64 MiB, whatever happens to the reader.
            while !stop.load(std::sync::atomic::Ordering::Relaxed) && written < 64 << 20 {
                file.write_all(&chunk).expect("append");
                written += chunk.len();
            }
        })
    };
    // Let the file pass the limit while it keeps growing.
    while std::fs::metadata(&path).map_or(0, |m| m.len()) < 2 * MAX_BYTES as u64 {
        std::thread::sleep(Duration::from_millis(1));
    }
    let (read, allocated) = counted_read(&path);
    stop.store(true, std::sync::atomic::Ordering::Relaxed);
    writer.join().expect("writer");
    match read.expect("read") {
        Document::TooLarge { size } => assert!(size > MAX_BYTES as u64),
        Document::Bytes(bytes) => panic!("{} bytes read as a whole document", bytes.len()),
    }
    // The buffer may double once past the size seen at open.
    assert!(
        allocated <= 2 * (MAX_BYTES + 1) + READ_OVERHEAD,
        "{allocated} bytes allocated"
    );
}

/// `/dev/zero` is a device, refused before it is opened: exit 2, at once.
#[cfg(unix)]
#[test]
fn a_device_is_refused() {
    let _serial = serial();
    let (read, allocated) = counted_read(Path::new("/dev/zero"));
    let error = read.expect_err("a device is refused");
    assert!(error.to_string().contains("is a device"), "{error}");
    assert!(allocated <= READ_OVERHEAD, "{allocated} bytes allocated");

    let (output, _) = soulcheck(&["check", "--format", "soul-kit", "/dev/zero"]);
    assert_eq!(output.status.code(), Some(2));
    let message = String::from_utf8_lossy(&output.stderr);
    assert!(message.contains("is a device"), "{message}");
}

/// A FIFO without a writer is refused, not waited on: exit 2, at once.
#[cfg(unix)]
#[test]
fn a_fifo_is_refused_without_waiting() {
    let _serial = serial();
    let dir = tempfile::tempdir().expect("temp dir");
    let path = dir.path().join("fifo.soulkit.json");
    let status = Command::new("mkfifo")
        .arg(&path)
        .status()
        .expect("mkfifo runs");
    assert!(status.success());
    let error = read_document(&path, Some(MAX_BYTES)).expect_err("a FIFO is refused");
    assert!(error.to_string().contains("is a FIFO"), "{error}");

    let (output, elapsed) = soulcheck(&["check", path.to_str().expect("UTF-8")]);
    assert_eq!(output.status.code(), Some(2));
    let message = String::from_utf8_lossy(&output.stderr);
    assert!(message.contains("is a FIFO"), "{message}");
    assert!(elapsed < CEILING);
}

/// A SOUL.md far past its read bound (item 4 through `check`): not read past its size. The
/// spec sets SOUL.md no hard limit, so the spec profile does not judge it (exit 3, "not
/// judged") and the strict profile rejects it.
#[test]
fn a_huge_soul_md_is_refused_unread() {
    let _serial = serial();
    let dir = tempfile::tempdir().expect("temp dir");
    let path = dir.path().join("SOUL.md");
    let line = "## Identity\n";
    std::fs::write(&path, line.repeat(64 * 1024 * 1024 / line.len())).expect("write");
    let (strict, _) = soulcheck(&[
        "check",
        "--profile",
        "strict",
        path.to_str().expect("UTF-8"),
    ]);
    assert_eq!(strict.status.code(), Some(1));
    let (json, _) = soulcheck(&["check", "--json", path.to_str().expect("UTF-8")]);
    assert_eq!(json.status.code(), Some(3));
    let skipped: serde_json::Value = serde_json::from_slice(&json.stdout).expect("JSON");
    let reason = skipped["skipped"].as_str().expect("a reason");
    assert!(reason.starts_with("not judged: "), "{reason}");
    let (output, elapsed) = soulcheck(&["check", path.to_str().expect("UTF-8")]);
    assert_eq!(output.status.code(), Some(3));
    let report = String::from_utf8_lossy(&output.stdout);
    assert!(report.contains("soul-md.size.max"), "{report}");
    assert!(report.contains("not judged"), "{report}");
    assert!(
        output.stdout.len() < 1024,
        "{} bytes out",
        output.stdout.len()
    );
    eprintln!("64 MiB SOUL.md: {elapsed:?}");
}
