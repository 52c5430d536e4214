//! The run's scratch directory. Every temporary directory the harness makes for a case
//! (a validator's working directory, a materialised tree) lives beneath one directory per
//! harness process, `$TMPDIR/soulcheck-run-<pid>-XXXXXX`, so that:
//!
//! - an interrupted run removes them all at once ([`remove`]), whatever case each
//!   worker was in;
//! - a run that was killed outright (`SIGKILL`), which can clean nothing up, has its
//!   directory removed by the next run: each scratch directory is kept locked (`flock`)
//!   by its owner, the kernel drops the lock when the owner dies, and [`root`] removes
//!   every scratch directory it can lock whose owner is gone.
//!
//! Each case's directory is still removed as soon as its case ends.

use std::fs::File;
use std::io;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Mutex;
use std::time::Duration;

use rustix::fs::{flock, FlockOperation};

/// The prefix of every scratch directory.
pub const PREFIX: &str = "soulcheck-run-";

/// A scratch directory whose owner's pid is alive (a reused pid) is removed only when it
/// has not changed for this long.
const STALE_AFTER: Duration = Duration::from_secs(600);

struct Root {
    path: PathBuf,
    /// Holds the lock while this process lives.
    _lock: File,
}

static ROOT: Mutex<Option<Root>> = Mutex::new(None);

/// Set by [`close`]: no scratch directory is made again.
static CLOSED: AtomicBool = AtomicBool::new(false);

/// This process's scratch directory, made (and stale ones of dead runs removed) on first
/// use.
pub fn root() -> io::Result<PathBuf> {
    let mut root = ROOT.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
    if let Some(root) = root.as_ref() {
        return Ok(root.path.clone());
    }
    if CLOSED.load(Ordering::SeqCst) {
        return Err(io::Error::new(
            io::ErrorKind::Interrupted,
            "the run is being interrupted",
        ));
    }
    let parent = std::env::temp_dir();
    remove_stale(&parent);
    let dir = tempfile::Builder::new()
        .prefix(&format!("{PREFIX}{}-", std::process::id()))
        .tempdir_in(&parent)?
        // Removed by [`remove`], or by a later run once this process is gone.
        .keep();
    let lock = File::open(&dir)?;
    flock(&lock, FlockOperation::NonBlockingLockExclusive)?;
    *root = Some(Root {
        path: dir.clone(),
        _lock: lock,
    });
    Ok(dir)
}

/// A fresh directory for one case beneath the scratch directory, removed when dropped.
pub fn case_dir(prefix: &str) -> io::Result<tempfile::TempDir> {
    tempfile::Builder::new().prefix(prefix).tempdir_in(root()?)
}

/// Removes the scratch directory and everything in it (the run is over, or interrupted).
/// A later [`root`] makes a new one.
pub fn remove() {
    let taken = ROOT
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner())
        .take();
    if let Some(root) = taken {
        // A worker may still be writing a case's files; a second pass gets what the
        // first could not.
        for _ in 0..2 {
            if std::fs::remove_dir_all(&root.path).is_ok() || !root.path.exists() {
                break;
            }
        }
    }
}

/// Removes the scratch directory for good: a worker still running after an interruption
/// cannot make a new one.
pub fn close() {
    CLOSED.store(true, Ordering::SeqCst);
    remove();
}

/// Removes the scratch directories in `parent` whose owner is gone.
fn remove_stale(parent: &Path) {
    let Ok(entries) = std::fs::read_dir(parent) else {
        return;
    };
    for entry in entries.flatten() {
        let name = entry.file_name();
        let Some(rest) = name.to_str().and_then(|name| name.strip_prefix(PREFIX)) else {
            continue;
        };
        let path = entry.path();
        let Ok(handle) = File::open(&path) else {
            continue;
        };
        // Locked: its owner is alive. (Between making its directory and locking it, a
        // new run's owner is alive too, which the pid check below sees.)
        if flock(&handle, FlockOperation::NonBlockingLockExclusive).is_err() {
            continue;
        }
        let owner_alive = rest
            .split('-')
            .next()
            .and_then(|pid| pid.parse::<i32>().ok())
            .and_then(rustix::process::Pid::from_raw)
            .is_some_and(|pid| rustix::process::test_kill_process(pid).is_ok());
        let old = entry
            .metadata()
            .and_then(|meta| meta.modified())
            .ok()
            .and_then(|modified| modified.elapsed().ok())
            .is_some_and(|age| age > STALE_AFTER);
        if !owner_alive || old {
            let _ = std::fs::remove_dir_all(&path);
        }
    }
}
