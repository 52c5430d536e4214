//! Running an untrusted validator process, bounded by construction:
//!
//! - it starts in a process group of its own, dies with the harness, adopts its own
//!   orphans, runs in a PID namespace of its own where the kernel allows one, so all it
//!   started dies with the harness too ([`crate::preexec`]), and runs in a sandbox
//!   ([`crate::sandbox`]);
//! - when its case ends (it exited, or ran past the deadline), it and everything it
//!   started are killed, a `setsid` grandchild included ([`crate::reaper`]);
//! - its output is read by the waiting thread itself (`poll`, no reader threads), at
//!   most `output_cap` bytes of each stream kept and the rest counted; once the case has
//!   ended, what is left in the pipes is read for a short grace and the pipes are
//!   closed, so a grandchild that escaped and holds them costs no descriptor and no
//!   thread.

use std::io;
use std::os::fd::{AsFd, OwnedFd};
use std::os::unix::process::{CommandExt, ExitStatusExt};
use std::path::Path;
use std::process::{Child, Command, ExitStatus, Stdio};
use std::time::{Duration, Instant};

use rustix::event::{poll, PollFd, PollFlags, Timespec};
use rustix::fs::{fcntl_getfl, fcntl_setfl, OFlags};
use rustix::process::{pidfd_open, Pid, PidfdFlags, WaitId, WaitIdOptions};

use crate::sandbox::Sandbox;
use crate::{preexec, reaper};

/// Bounds on one validator invocation.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Limits {
    /// Wall-clock deadline of one case.
    pub timeout: Duration,
    /// Bytes kept of each of stdout and stderr (and the longest reply line in persistent
    /// mode); the rest is read and discarded.
    pub output_cap: usize,
    /// How long the first persistent validator process may take to greet: starting up
    /// is not part of a case's budget, and a slow start under load must not look like a
    /// hang. A replacement started during a case greets within the case's `timeout`.
    pub startup: Duration,
}

impl Default for Limits {
    fn default() -> Limits {
        Limits {
            timeout: Duration::from_secs(5),
            output_cap: 4 * 1024 * 1024,
            startup: Duration::from_secs(30),
        }
    }
}

/// How long the pipes are still read after a case ended and its processes were killed:
/// what was written before is in the pipe already, so this only bounds the wait for a
/// writer that could not be killed.
pub const DRAIN_GRACE: Duration = Duration::from_millis(200);

/// How the process ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum Exit {
    /// It exited with this code.
    Code(i32),
    /// A signal killed it.
    Signal(i32),
    /// It ran past the deadline and was killed with everything it started.
    TimedOut,
}

/// What one invocation produced.
#[derive(Debug, Clone)]
pub struct Finished {
    /// How it ended.
    pub exit: Exit,
    /// Captured stdout, at most `output_cap` bytes.
    pub stdout: Vec<u8>,
    /// Captured stderr, at most `output_cap` bytes.
    pub stderr: Vec<u8>,
    /// Whether either stream was cut at the cap.
    pub truncated: bool,
    /// Whether stdout was cut at the cap.
    pub stdout_truncated: bool,
    /// Whether stderr was cut at the cap.
    pub stderr_truncated: bool,
    /// Wall time.
    pub duration: Duration,
}

/// Whether each validator runs in a PID namespace of its own, so that nothing it starts
/// survives a `SIGKILL` of the harness (probed once; see `src/preexec.rs`). Always false
/// outside Linux.
pub fn pid_namespaces() -> bool {
    #[cfg(target_os = "linux")]
    {
        preexec::pid_namespace::available()
    }
    #[cfg(not(target_os = "linux"))]
    {
        false
    }
}

/// A running validator process, contained as the module docs say. Dropping it ends it
/// (kills it and everything it started, and reaps it).
pub(crate) struct Running {
    child: Child,
    /// Readable once the process has exited (Linux 5.3 and later).
    pidfd: Option<OwnedFd>,
    status: Option<ExitStatus>,
}

/// Starts `command` contained: own process group, parent-death signal, subreaper, the
/// sandbox (writes allowed beneath `writable`) and a stated environment
/// ([`Sandbox::environment`]): `HOME` and `TMPDIR` point at the first writable directory,
/// so tools that honour them write where they may.
pub(crate) fn start(
    mut command: Command,
    sandbox: &Sandbox,
    writable: &[&Path],
) -> io::Result<Running> {
    let ruleset = sandbox.ruleset(writable).map_err(io::Error::other)?;
    command.process_group(0);
    command.env_clear();
    if let Some(dir) = writable.first() {
        command.envs(sandbox.environment(dir));
    }
    preexec::contain(&mut command, reaper::harness_pid(), ruleset);
    let child = reaper::spawn(command)?;
    let pidfd = pidfd_open(Pid::from_child(&child), PidfdFlags::empty()).ok();
    Ok(Running {
        child,
        pidfd,
        status: None,
    })
}

impl Running {
    /// The process's id.
    pub(crate) fn pid(&self) -> Pid {
        Pid::from_child(&self.child)
    }

    /// The child, for its pipes.
    pub(crate) fn child(&mut self) -> &mut Child {
        &mut self.child
    }

    /// A descriptor that polls readable once the process has exited, if the kernel has
    /// them; without one, poll with a short timeout and ask [`Running::has_exited`].
    pub(crate) fn exit_fd(&self) -> Option<&OwnedFd> {
        self.pidfd.as_ref()
    }

    /// Whether the process has exited, without reaping it: a zombie keeps its pid, so
    /// its group and descendants can still be found and killed.
    pub(crate) fn has_exited(&self) -> bool {
        if self.status.is_some() {
            return true;
        }
        let options = WaitIdOptions::EXITED | WaitIdOptions::NOWAIT | WaitIdOptions::NOHANG;
        matches!(
            rustix::process::waitid(WaitId::Pid(self.pid()), options),
            Ok(Some(_))
        )
    }

    /// Kills the process and everything it started, reaps it, and returns how it ended
    /// (its own exit if it had exited before, else the kill).
    pub(crate) fn end(&mut self) -> Option<ExitStatus> {
        if self.status.is_none() {
            reaper::end(self.pid());
            self.status = self.child.wait().ok();
            reaper::reaped(&self.child);
            // What it left behind was adopted when it was reaped: kill that too.
            reaper::sweep();
        }
        self.status
    }
}

impl Drop for Running {
    fn drop(&mut self) {
        self.end();
    }
}

/// One output stream being read without blocking, keeping a bounded part of it.
pub(crate) struct Capture {
    fd: Option<OwnedFd>,
    kept: Vec<u8>,
    cap: usize,
    /// Keep the last `cap` bytes instead of the first.
    tail: bool,
    total: u64,
}

impl Capture {
    /// Reads `stream` (made non-blocking), keeping its first `cap` bytes.
    pub(crate) fn head(stream: Option<impl Into<OwnedFd>>, cap: usize) -> Capture {
        Capture::new(stream.map(Into::into), cap, false)
    }

    /// Reads `stream` (made non-blocking), keeping its last `cap` bytes.
    pub(crate) fn tail(stream: Option<impl Into<OwnedFd>>, cap: usize) -> Capture {
        Capture::new(stream.map(Into::into), cap, true)
    }

    fn new(fd: Option<OwnedFd>, cap: usize, tail: bool) -> Capture {
        let fd = fd.and_then(|fd| nonblocking(&fd).ok().map(|()| fd));
        Capture {
            fd,
            kept: Vec::new(),
            cap,
            tail,
            total: 0,
        }
    }

    /// Whether the stream is still open.
    pub(crate) fn is_open(&self) -> bool {
        self.fd.is_some()
    }

    /// The descriptor to poll, if the stream is open.
    pub(crate) fn fd(&self) -> Option<&OwnedFd> {
        self.fd.as_ref()
    }

    /// Reads what is available now (at most `budget` bytes, so one busy stream cannot
    /// starve the others); closes the stream at its end or on an error.
    pub(crate) fn pump(&mut self, budget: usize) {
        let mut buffer = [0u8; 16 * 1024];
        let mut read_now = 0;
        while read_now < budget {
            let Some(fd) = &self.fd else { return };
            match rustix::io::read(fd, &mut buffer) {
                Ok(0) => {
                    self.fd = None;
                }
                Ok(read) => {
                    read_now += read;
                    self.keep(&buffer[..read]);
                }
                Err(rustix::io::Errno::AGAIN) => return,
                Err(rustix::io::Errno::INTR) => {}
                Err(_) => {
                    self.fd = None;
                }
            }
        }
    }

    fn keep(&mut self, bytes: &[u8]) {
        self.total += bytes.len() as u64;
        if self.tail {
            self.kept.extend_from_slice(bytes);
            // Trimmed in batches, so keeping the tail costs no more than copying it.
            if self.kept.len() > 2 * self.cap.max(1) {
                let cut = self.kept.len() - self.cap;
                self.kept.drain(..cut);
            }
        } else {
            let room = self.cap.saturating_sub(self.kept.len());
            self.kept.extend_from_slice(&bytes[..bytes.len().min(room)]);
        }
    }

    /// Stops reading (closing the pipe) and returns what was kept and whether the
    /// stream was longer.
    pub(crate) fn finish(&mut self) -> (Vec<u8>, bool) {
        self.fd = None;
        let mut kept = std::mem::take(&mut self.kept);
        if self.tail && kept.len() > self.cap {
            kept.drain(..kept.len() - self.cap);
        }
        let cut = self.total > kept.len() as u64;
        (kept, cut)
    }
}

/// Makes a descriptor non-blocking.
pub(crate) fn nonblocking(fd: &impl AsFd) -> io::Result<()> {
    let flags = fcntl_getfl(fd)?;
    fcntl_setfl(fd, flags | OFlags::NONBLOCK)?;
    Ok(())
}

/// Writes `bytes` to a pipe without blocking, as far as it takes them.
struct Feed {
    fd: Option<OwnedFd>,
    bytes: Vec<u8>,
    written: usize,
}

impl Feed {
    fn new(fd: Option<OwnedFd>, bytes: Vec<u8>) -> Feed {
        let fd = fd.and_then(|fd| nonblocking(&fd).ok().map(|()| fd));
        Feed {
            fd,
            bytes,
            written: 0,
        }
    }

    fn pump(&mut self) {
        while let Some(fd) = &self.fd {
            if self.written >= self.bytes.len() {
                // All written: closing the pipe is the end of the input.
                self.fd = None;
                return;
            }
            match rustix::io::write(fd, &self.bytes[self.written..]) {
                Ok(written) => self.written += written,
                Err(rustix::io::Errno::AGAIN) => return,
                Err(rustix::io::Errno::INTR) => {}
                // A validator that exits without reading its input closes the pipe;
                // that is its business.
                Err(_) => self.fd = None,
            }
        }
    }
}

/// Waits until one of `fds` is ready or `timeout` passes. `readable` says for each
/// whether to wait for input (else for room to write). Returns which are ready.
pub(crate) fn wait_ready(fds: &[(&OwnedFd, bool)], timeout: Duration) -> Vec<bool> {
    let mut polled: Vec<PollFd<'_>> = fds
        .iter()
        .map(|(fd, readable)| {
            let flags = if *readable {
                PollFlags::IN
            } else {
                PollFlags::OUT
            };
            PollFd::new(*fd, flags)
        })
        .collect();
    let timeout = Timespec {
        tv_sec: timeout.as_secs() as i64,
        tv_nsec: i64::from(timeout.subsec_nanos()),
    };
    match poll(&mut polled, Some(&timeout)) {
        Ok(_) => polled.iter().map(|fd| !fd.revents().is_empty()).collect(),
        Err(_) => vec![false; fds.len()],
    }
}

/// How often to look for the process's exit when the kernel has no pidfd.
const EXIT_POLL: Duration = Duration::from_millis(10);

/// Runs `command` to completion or to the deadline, feeding `stdin` (or nothing),
/// contained as the module docs say (writes allowed beneath `writable`).
pub fn run(
    mut command: Command,
    stdin: Option<Vec<u8>>,
    limits: Limits,
    sandbox: &Sandbox,
    writable: &[&Path],
) -> io::Result<Finished> {
    command
        .stdin(if stdin.is_some() {
            Stdio::piped()
        } else {
            Stdio::null()
        })
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    let started = Instant::now();
    let mut running = start(command, sandbox, writable)?;
    let mut out = Capture::head(running.child().stdout.take(), limits.output_cap);
    let mut err = Capture::head(running.child().stderr.take(), limits.output_cap);
    let mut feed = Feed::new(
        running.child().stdin.take().map(OwnedFd::from),
        stdin.unwrap_or_default(),
    );
    feed.pump();
    let deadline = started + limits.timeout;
    let mut timed_out = false;
    loop {
        if running.has_exited() {
            break;
        }
        let now = Instant::now();
        if now >= deadline {
            timed_out = true;
            break;
        }
        let mut fds: Vec<(&OwnedFd, bool)> = Vec::new();
        fds.extend(out.fd().map(|fd| (fd, true)));
        fds.extend(err.fd().map(|fd| (fd, true)));
        fds.extend(feed.fd.as_ref().map(|fd| (fd, false)));
        fds.extend(running.exit_fd().map(|fd| (fd, true)));
        let wait = if running.exit_fd().is_some() {
            deadline - now
        } else {
            (deadline - now).min(EXIT_POLL)
        };
        wait_ready(&fds, wait);
        out.pump(1 << 20);
        err.pump(1 << 20);
        feed.pump();
    }
    let status = running.end();
    let duration = started.elapsed();
    drop(feed);
    drain(&mut [&mut out, &mut err], DRAIN_GRACE);
    let (stdout, stdout_cut) = out.finish();
    let (stderr, stderr_cut) = err.finish();
    let exit = match (timed_out, status) {
        (true, _) => Exit::TimedOut,
        (false, Some(status)) => match (status.code(), status.signal()) {
            (Some(code), _) => Exit::Code(code),
            (None, Some(signal)) => Exit::Signal(signal),
            (None, None) => Exit::Signal(0),
        },
        (false, None) => Exit::Signal(0),
    };
    Ok(Finished {
        exit,
        stdout,
        stderr,
        truncated: stdout_cut || stderr_cut,
        stdout_truncated: stdout_cut,
        stderr_truncated: stderr_cut,
        duration,
    })
}

/// Reads what is left in the streams until each ends or `grace` passes.
pub(crate) fn drain(streams: &mut [&mut Capture], grace: Duration) {
    let deadline = Instant::now() + grace;
    loop {
        for stream in streams.iter_mut() {
            stream.pump(1 << 20);
        }
        let now = Instant::now();
        if streams.iter().all(|stream| !stream.is_open()) || now >= deadline {
            return;
        }
        let fds: Vec<(&OwnedFd, bool)> = streams
            .iter()
            .filter_map(|stream| stream.fd().map(|fd| (fd, true)))
            .collect();
        wait_ready(&fds, deadline - now);
    }
}
