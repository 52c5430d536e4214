//! Running an untrusted validator process: in its own process group, with a deadline that
//! kills the whole group, and with captured output capped so a chatty or hostile validator
//! cannot exhaust memory.

use std::io::{Read, Write};
use std::os::unix::process::{CommandExt, ExitStatusExt};
use std::process::{Child, Command, Stdio};
use std::sync::mpsc;
use std::thread;
use std::time::{Duration, Instant};

use rustix::process::{kill_process_group, Pid, Signal};
use wait_timeout::ChildExt;

/// Bounds on one validator invocation.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Limits {
    /// Wall-clock deadline.
    pub timeout: Duration,
    /// Bytes kept of each of stdout and stderr; the rest is read and discarded.
    pub output_cap: usize,
    /// How long a persistent validator may take to greet: starting up is not part of a
    /// case's budget, and a slow start under load must not look like a hang.
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

/// How the process ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum Exit {
    /// It exited with this code.
    Code(i32),
    /// A signal killed it.
    Signal(i32),
    /// It ran past the deadline and its process group was killed.
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

/// Kills every process of the child's group. The group may already be gone.
pub fn kill_group(child: &Child) {
    let _ = kill_process_group(Pid::from_child(child), Signal::KILL);
}

/// Puts the command in a new process group of its own, so a deadline can kill everything
/// it started.
pub fn own_group(command: &mut Command) -> &mut Command {
    command.process_group(0)
}

/// Reads a stream to its end in a thread, keeping at most `cap` bytes.
pub fn capture(
    mut stream: impl Read + Send + 'static,
    cap: usize,
) -> mpsc::Receiver<(Vec<u8>, bool)> {
    let (sender, receiver) = mpsc::channel();
    thread::spawn(move || {
        let mut kept = Vec::new();
        let mut truncated = false;
        let mut buffer = [0u8; 16 * 1024];
        loop {
            match stream.read(&mut buffer) {
                Ok(0) | Err(_) => break,
                Ok(read) => {
                    let room = cap.saturating_sub(kept.len());
                    kept.extend_from_slice(&buffer[..read.min(room)]);
                    truncated |= read > room;
                }
            }
        }
        let _ = sender.send((kept, truncated));
    });
    receiver
}

/// Runs `command` to completion or to the deadline, feeding `stdin` (or nothing).
pub fn run(
    command: &mut Command,
    stdin: Option<Vec<u8>>,
    limits: Limits,
) -> std::io::Result<Finished> {
    own_group(command)
        .stdin(if stdin.is_some() {
            Stdio::piped()
        } else {
            Stdio::null()
        })
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    let started = Instant::now();
    let mut child = command.spawn()?;
    if let (Some(bytes), Some(mut pipe)) = (stdin, child.stdin.take()) {
        // A validator that exits without reading its input closes the pipe; that is its
        // business, so a broken pipe here is not an error.
        thread::spawn(move || {
            let _ = pipe.write_all(&bytes);
        });
    }
    let stdout = child
        .stdout
        .take()
        .map(|pipe| capture(pipe, limits.output_cap));
    let stderr = child
        .stderr
        .take()
        .map(|pipe| capture(pipe, limits.output_cap));
    let status = child.wait_timeout(limits.timeout)?;
    // Whatever happened, nothing the validator started may outlive it.
    kill_group(&child);
    let exit = match status {
        Some(status) => match (status.code(), status.signal()) {
            (Some(code), _) => Exit::Code(code),
            (None, Some(signal)) => Exit::Signal(signal),
            (None, None) => Exit::Signal(0),
        },
        None => {
            let _ = child.wait();
            Exit::TimedOut
        }
    };
    let duration = started.elapsed();
    // A grandchild that left the process group could hold the pipes open forever; give
    // the readers a moment and then go on without them.
    let collect = |receiver: Option<mpsc::Receiver<(Vec<u8>, bool)>>| {
        receiver
            .and_then(|receiver| receiver.recv_timeout(Duration::from_secs(1)).ok())
            .unwrap_or_default()
    };
    let (stdout, stdout_cut) = collect(stdout);
    let (stderr, stderr_cut) = collect(stderr);
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
