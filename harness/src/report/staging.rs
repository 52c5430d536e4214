//! A report directory written all or nothing. A run writes its files into a fresh
//! staging directory beside the target (`DIR.tmp-<pid>`), which holds an [`INCOMPLETE`]
//! marker from the start, and swaps it in for the target as a whole:
//!
//! - when the run completes ([`Staging::complete`]): the marker goes and the complete
//!   report replaces whatever the target held;
//! - when the run is interrupted by a signal ([`Staging::interrupt`]): the partial report
//!   (`report.jsonl` without a footer, the marker, and a `summary.md` saying the run was
//!   interrupted) replaces the target, so no certificate of an earlier run is left beside
//!   a run that did not finish;
//! - when the run is killed outright, the target keeps the earlier report, whole, and the
//!   staging directory keeps the partial one with its marker; the next run with the same
//!   target removes it.
//!
//! The swap is one `renameat2(RENAME_EXCHANGE)` where the system has it, else two
//! renames.

use std::io;
use std::path::{Path, PathBuf};

use crate::LoadError;

/// The marker file of a report that is not complete.
pub const INCOMPLETE: &str = "INCOMPLETE";

/// A report being written; see the module docs.
#[derive(Debug, Clone)]
pub struct Staging {
    target: PathBuf,
    staging: PathBuf,
}

impl Staging {
    /// Makes a fresh staging directory for `target` (removing stagings of runs that are
    /// gone) with the [`INCOMPLETE`] marker in it.
    pub fn create(target: &Path) -> Result<Staging, LoadError> {
        let name = target
            .file_name()
            .map(|name| name.to_string_lossy().into_owned())
            .ok_or_else(|| LoadError::invalid(target, "a report directory needs a name"))?;
        let parent = match target.parent() {
            Some(parent) if !parent.as_os_str().is_empty() => parent.to_owned(),
            _ => PathBuf::from("."),
        };
        std::fs::create_dir_all(&parent).map_err(|source| LoadError::io(&parent, source))?;
        remove_abandoned(&parent, &name);
        let staging = parent.join(format!("{name}.tmp-{}", std::process::id()));
        if staging.exists() {
            std::fs::remove_dir_all(&staging).map_err(|source| LoadError::io(&staging, source))?;
        }
        std::fs::create_dir(&staging).map_err(|source| LoadError::io(&staging, source))?;
        let marker = staging.join(INCOMPLETE);
        std::fs::write(
            &marker,
            "This run has not finished (it is running, or was killed): report.jsonl has no footer, and nothing here certifies anything.\n",
        )
        .map_err(|source| LoadError::io(&marker, source))?;
        Ok(Staging {
            target: target.to_owned(),
            staging,
        })
    }

    /// Where the run writes its files.
    pub fn path(&self) -> &Path {
        &self.staging
    }

    /// The run completed: the marker goes and the report replaces the target.
    pub fn complete(&self) -> Result<(), LoadError> {
        let marker = self.staging.join(INCOMPLETE);
        std::fs::remove_file(&marker).map_err(|source| LoadError::io(&marker, source))?;
        self.swap_in()
    }

    /// The run was interrupted (by `signal`, after `finished` of `total` cases): the
    /// partial report says so and replaces the target.
    pub fn interrupt(&self, signal: i32, finished: usize, total: usize) -> Result<(), LoadError> {
        self.interrupt_after(
            signal,
            &format!(
                "{finished} of {total} cases had finished, and report.jsonl has their records"
            ),
        )
    }

    /// The run was interrupted by `signal`; `done` says what it got through and what the
    /// partial report holds (a clause, no final stop): the partial report says so and
    /// replaces the target.
    pub fn interrupt_after(&self, signal: i32, done: &str) -> Result<(), LoadError> {
        let text = format!(
            "This run was interrupted by signal {signal}: {done}. report.jsonl has no footer, and nothing here certifies anything.\n"
        );
        let marker = self.staging.join(INCOMPLETE);
        std::fs::write(&marker, &text).map_err(|source| LoadError::io(&marker, source))?;
        let summary = self.staging.join("summary.md");
        std::fs::write(&summary, format!("# soulcheck: run interrupted\n\n{text}"))
            .map_err(|source| LoadError::io(&summary, source))?;
        self.swap_in()
    }

    fn swap_in(&self) -> Result<(), LoadError> {
        let io = |source: io::Error| LoadError::io(&self.target, source);
        if !self.target.exists() {
            return std::fs::rename(&self.staging, &self.target).map_err(io);
        }
        if exchange(&self.staging, &self.target).is_ok() {
            // The staging path now holds the earlier report.
            return std::fs::remove_dir_all(&self.staging).map_err(io);
        }
        let old = self
            .staging
            .with_extension(format!("old-{}", std::process::id()));
        std::fs::rename(&self.target, &old).map_err(io)?;
        std::fs::rename(&self.staging, &self.target).map_err(io)?;
        std::fs::remove_dir_all(&old).map_err(io)
    }
}

#[cfg(target_os = "linux")]
fn exchange(a: &Path, b: &Path) -> io::Result<()> {
    use rustix::fs::{renameat_with, RenameFlags, CWD};
    renameat_with(CWD, a, CWD, b, RenameFlags::EXCHANGE).map_err(io::Error::from)
}

#[cfg(not(target_os = "linux"))]
fn exchange(_a: &Path, _b: &Path) -> io::Result<()> {
    Err(io::Error::from(io::ErrorKind::Unsupported))
}

/// Removes the staging directories of `name` whose run is gone.
fn remove_abandoned(parent: &Path, name: &str) {
    let Ok(entries) = std::fs::read_dir(parent) else {
        return;
    };
    let prefix = format!("{name}.tmp-");
    for entry in entries.flatten() {
        let file_name = entry.file_name();
        let Some(pid) = file_name
            .to_str()
            .and_then(|found| found.strip_prefix(&prefix))
            .and_then(|pid| pid.parse::<i32>().ok())
        else {
            continue;
        };
        let alive = rustix::process::Pid::from_raw(pid)
            .is_some_and(|pid| rustix::process::test_kill_process(pid).is_ok());
        if !alive {
            let _ = std::fs::remove_dir_all(entry.path());
        }
    }
}
