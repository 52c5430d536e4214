//! `SIGINT`, `SIGTERM` and `SIGHUP` end a run cleanly: no case starts, every validator
//! still running is killed with everything it started ([`crate::reaper::end_all`]; no new
//! one starts), the cases it stopped are recorded as interrupted ([`InFlight`]), the
//! caller's hook runs (the command line marks its report interrupted), the scratch
//! directory with every case's temporary files is removed ([`crate::scratch::close`]),
//! and the process exits with 128 plus the signal's number (130 for `SIGINT`, 143 for
//! `SIGTERM`, 129 for `SIGHUP`), as a shell reports a death by that signal. The first
//! signal read decides the code; later ones are caught and change nothing. Signals that
//! arrive together, before any is read, come out of `signal-hook`'s pending set in
//! number order (`SIGHUP`, `SIGINT`, `SIGTERM`).
//!
//! `SIGKILL` cannot be caught: then each validator dies by its parent-death signal, and
//! everything it started with it, its PID namespace emptied by the kernel where the
//! kernel allows one ([`crate::preexec`]); the next run removes the scratch directory
//! ([`crate::scratch`]).

use std::io;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use signal_hook::consts::{SIGHUP, SIGINT, SIGTERM};
use signal_hook::iterator::Signals;

/// Whether a signal has started ending the run.
static INTERRUPTED: AtomicBool = AtomicBool::new(false);

/// Cases started and not yet recorded (see [`case_started`]).
static IN_FLIGHT: AtomicUsize = AtomicUsize::new(0);

/// How long the signal's handler waits for the cases in flight to be recorded (their
/// validators are dead by then, so this is only the time to judge and write them).
const DRAIN: Duration = Duration::from_secs(2);

/// Whether the run is being interrupted (for workers that want to stop early).
pub fn interrupted() -> bool {
    INTERRUPTED.load(Ordering::SeqCst)
}

/// A case being run: the signal's handler waits (up to two seconds) for every case in
/// flight to be judged and recorded before it closes the report, so a case it stopped is
/// recorded as interrupted rather than lost. Dropped once the case's record is written.
#[derive(Debug)]
#[must_use = "the case counts as in flight until this is dropped"]
pub struct InFlight(());

impl Drop for InFlight {
    fn drop(&mut self) {
        IN_FLIGHT.fetch_sub(1, Ordering::SeqCst);
    }
}

/// Marks a case as started, or `None` when a signal is ending the run and no case may
/// start. Counted before the check: the handler sets the flag before it looks at the
/// count, so either this sees the flag or the handler sees this case.
pub fn case_started() -> Option<InFlight> {
    IN_FLIGHT.fetch_add(1, Ordering::SeqCst);
    let in_flight = InFlight(());
    (!interrupted()).then_some(in_flight)
}

/// Waits until no case is in flight, or `within` has passed.
fn drain(within: Duration) {
    let deadline = Instant::now() + within;
    while IN_FLIGHT.load(Ordering::SeqCst) > 0 && Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(5));
    }
}

/// Blocks for good once a signal has started ending the run, so that the caller's own
/// ending (an error from a validator killed by the signal, say) cannot exit the process
/// before the signal's handler does, with the wrong code and a misleading message. Call
/// it where a run would return.
pub fn settle() {
    if interrupted() {
        loop {
            std::thread::park();
        }
    }
}

/// Catches `SIGINT`, `SIGTERM` and `SIGHUP` for the rest of the process's life; on the
/// first of them, ends the run as the module docs say, calling `hook` after the
/// validators are dead and the cases they were running are recorded (see [`InFlight`]),
/// and before the temporary files go.
pub fn install(hook: impl Fn(i32) + Send + 'static) -> io::Result<()> {
    let mut signals = Signals::new([SIGINT, SIGTERM, SIGHUP])?;
    std::thread::Builder::new()
        .name("soulcheck-signals".to_owned())
        .spawn(move || {
            if let Some(signal) = signals.forever().next() {
                INTERRUPTED.store(true, Ordering::SeqCst);
                crate::reaper::end_all();
                drain(DRAIN);
                hook(signal);
                crate::scratch::close();
                std::process::exit(128 + signal);
            }
        })?;
    Ok(())
}
