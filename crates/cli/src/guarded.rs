//! What `run` and `fuzz` share to end well on SIGINT, SIGTERM or SIGHUP: the validators
//! die, the report being written says the command was interrupted and how far it got, the
//! temporary files go, and the process exits with 128 + the signal (see
//! `soulcheck_harness::interrupt`). One place, so the two commands cannot drift apart.

use std::process::ExitCode;
use std::sync::{Arc, Mutex};

use anyhow::{Context as _, Result};
use soulcheck_harness::report::staging::Staging;
use soulcheck_harness::{interrupt, scratch};

/// What the signal handler reads: the report being written, and the command's progress.
#[derive(Default)]
pub struct Guarded<P> {
    staging: Mutex<Option<Staging>>,
    /// How far the command got (atomics the command updates as it goes).
    pub progress: P,
}

impl<P> Guarded<P> {
    /// Names the report a signal marks interrupted from now on.
    pub fn watch(&self, staging: Option<Staging>) {
        *self
            .staging
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner()) = staging;
    }

    /// Takes the report back, so that a signal no longer marks it: call it once the
    /// report is whole.
    pub fn release(&self) -> Option<Staging> {
        self.staging
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
            .take()
    }
}

/// Runs `body` with the signals caught. `done` says how far the command got, for the
/// interrupted report's marker ("12 of 40 cases: ...").
pub fn guarded<P: Default + Send + Sync + 'static>(
    done: impl Fn(&P) -> String + Send + 'static,
    body: impl FnOnce(&Guarded<P>) -> Result<ExitCode>,
) -> Result<ExitCode> {
    let guarded = Arc::new(Guarded::<P>::default());
    let hook = Arc::clone(&guarded);
    interrupt::install(move |signal| {
        if let Some(staging) = hook.release() {
            if let Err(error) = staging.interrupt_after(signal, &done(&hook.progress)) {
                eprintln!("error: {error}");
            }
        }
    })
    .context("cannot catch signals")?;
    let code = body(&guarded);
    // A command a signal is ending exits from the signal's handler, with 128 + the
    // signal, not from here with whatever the dying validators made of its result.
    interrupt::settle();
    scratch::remove();
    code
}
