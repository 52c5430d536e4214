//! Validators behind a process boundary, in persistent mode: long-lived processes that
//! speak newline-delimited JSON (protocol version 1, `harness/PROTOCOL.md`). Each worker
//! thread checks a process out of a pool; a process that times out, dies or breaks the
//! protocol is killed (with everything it started) and replaced for the next case.
//!
//! What the harness reads is bounded: a process's stdout is read only while a reply is
//! due, into one buffer of at most the line cap (`output_cap`), and after `stop` at most
//! [`GOODBYE_CAP`] bytes; its stderr is drained while a reply is due, keeping its last
//! [`EVIDENCE_CAP`] bytes. Between replies nothing is read: a process that writes then
//! blocks on its own full pipe. The first process greets within the start-up limit; a
//! replacement, started during a case, within the case's timeout, and after
//! [`MAX_FAILED_STARTS`] replacements in a row fail to greet, none is started again.

use std::os::fd::OwnedFd;
use std::path::Path;
use std::process::{Command, Stdio};
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::Mutex;
use std::time::{Duration, Instant};

use base64::Engine as _;
use soulcheck_vocabulary::wire::{self, Command as Message, Hello, InputMessage, RunRequest};

use crate::bounded::Wire;
use crate::external::excerpt;
use crate::process::{self, nonblocking, wait_ready, Capture, Limits, Running, DRAIN_GRACE};
use crate::sandbox::Sandbox;
use crate::scratch;
use crate::setup::{command_words, SetupError};
use crate::validator::{
    Answer, Captured, Evidence, Implementation, Input, Outcome, Request, Validator, EVIDENCE_CAP,
};

/// The protocol version this harness speaks.
pub const PROTOCOL_VERSION: u64 = wire::PROTOCOL_VERSION;

/// Bytes read after `stop` while waiting for the goodbye.
pub const GOODBYE_CAP: usize = 64 * 1024;

/// How long a process may take to exit after `stop` before it is killed.
const STOP_GRACE: Duration = Duration::from_secs(1);

/// Replacements in a row that may fail to greet before no more are started.
pub const MAX_FAILED_STARTS: usize = 3;

/// A validator process pool speaking the persistent protocol.
pub struct PersistentValidator {
    argv: Vec<String>,
    limits: Limits,
    sandbox: Sandbox,
    idle: Mutex<Vec<Session>>,
    implementation: Implementation,
    sequence: AtomicU64,
    failed_starts: AtomicUsize,
}

struct Session {
    running: Running,
    stdin: Option<OwnedFd>,
    stdout: Lines,
    stderr: Capture,
    /// The process's working directory and `TMPDIR`; removed with the session.
    _home: tempfile::TempDir,
}

/// Why a session could not answer.
enum Failure {
    TimedOut,
    Died(String),
    Protocol(String),
}

impl PersistentValidator {
    /// Starts one process to learn who the validator is; more start on demand.
    /// The program is resolved as in per-case mode ([`command_words`]). Validators run in
    /// the default sandbox; see [`PersistentValidator::start_sandboxed`].
    pub fn start(command: &str, limits: Limits) -> Result<PersistentValidator, SetupError> {
        PersistentValidator::start_sandboxed(command, limits, Sandbox::new())
    }

    /// [`PersistentValidator::start`] with a given sandbox.
    pub fn start_sandboxed(
        command: &str,
        limits: Limits,
        sandbox: Sandbox,
    ) -> Result<PersistentValidator, SetupError> {
        let argv = command_words(command)?;
        let (session, implementation) =
            spawn(&argv, limits, &sandbox, limits.startup.max(limits.timeout))
                .map_err(|message| SetupError::DidNotStart { message })?;
        Ok(PersistentValidator {
            argv,
            limits,
            sandbox,
            idle: Mutex::new(vec![session]),
            implementation,
            sequence: AtomicU64::new(1),
            failed_starts: AtomicUsize::new(0),
        })
    }

    fn checkout(&self) -> Result<Session, String> {
        let pooled = self
            .idle
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
            .pop();
        if let Some(session) = pooled {
            return Ok(session);
        }
        if self.failed_starts.load(Ordering::SeqCst) >= MAX_FAILED_STARTS {
            return Err(format!(
                "the validator no longer starts: {MAX_FAILED_STARTS} replacement processes in a row did not greet"
            ));
        }
        // A replacement starts inside a case, so the case's timeout bounds its greeting.
        match spawn(&self.argv, self.limits, &self.sandbox, self.limits.timeout) {
            Ok((session, _)) => {
                self.failed_starts.store(0, Ordering::SeqCst);
                Ok(session)
            }
            Err(message) => {
                self.failed_starts.fetch_add(1, Ordering::SeqCst);
                Err(message)
            }
        }
    }

    fn supports(&self, request: &Request<'_>) -> Option<String> {
        let formats = &self.implementation.formats;
        if !formats.is_empty() && !formats.iter().any(|format| format == request.format.name()) {
            return Some(format!("the validator does not support {}", request.format));
        }
        let operations = &self.implementation.operations;
        if request.operation != "validate"
            && !operations
                .iter()
                .any(|operation| operation == request.operation)
        {
            return Some(format!(
                "the validator does not support operation `{}`",
                request.operation
            ));
        }
        None
    }
}

impl Validator for PersistentValidator {
    fn implementation(&self) -> Implementation {
        self.implementation.clone()
    }

    fn run(&self, request: &Request<'_>) -> Outcome {
        self.answer(request).outcome
    }

    fn answer(&self, request: &Request<'_>) -> Answer {
        if let Some(reason) = self.supports(request) {
            return Outcome::Skipped { reason }.into();
        }
        // Trees go over as the path of the runner's fresh private copy, documents inline as
        // base64, so the validator never sees the corpus itself.
        let input = match request.input {
            Input::Document { file_name, bytes } => InputMessage::Document {
                name: file_name.clone(),
                base64: base64::engine::general_purpose::STANDARD.encode(bytes),
            },
            // The runner materialised this tree for this request alone.
            Input::Tree { root } => InputMessage::Tree {
                path: root.to_string_lossy().into_owned(),
            },
        };
        let seq = self.sequence.fetch_add(1, Ordering::Relaxed);
        let message = Message::Run(RunRequest {
            seq,
            case: request.case_id.to_owned(),
            format: request.format,
            operation: request.operation.to_owned(),
            input,
            context: request.context.clone(),
        });
        let mut session = match self.checkout() {
            Ok(session) => session,
            Err(message) => return Outcome::Crashed { message }.into(),
        };
        let mut reply_line = String::new();
        let exchanged = exchange(&mut session, &message, self.limits.timeout).and_then(|line| {
            let read = read_reply(&line, seq);
            reply_line = line;
            read
        });
        // The process's stderr is one stream for all its cases; the evidence of a case is
        // its reply line, plus the end of stderr when the process failed on it.
        let reply = Captured::keep(reply_line.as_bytes(), false);
        drop(reply_line);
        match exchanged {
            Ok((outcome, dropped)) => {
                self.idle
                    .lock()
                    .unwrap_or_else(|poisoned| poisoned.into_inner())
                    .push(session);
                let mut evidence = Evidence::new("answered", reply, Captured::default());
                evidence.diagnostics_dropped = dropped;
                Answer {
                    outcome,
                    evidence: Some(evidence),
                }
            }
            Err(failure) => {
                let (stderr, cut) = finish(session);
                let (exit, outcome) = match failure {
                    Failure::TimedOut => ("timed out", Outcome::TimedOut),
                    Failure::Died(message) => (
                        "died",
                        Outcome::Crashed {
                            message: format!("{message}{}", excerpt(&stderr)),
                        },
                    ),
                    Failure::Protocol(message) => {
                        ("broke the protocol", Outcome::ProtocolError { message })
                    }
                };
                Answer {
                    outcome,
                    evidence: Some(Evidence::new(exit, reply, Captured::keep(&stderr, cut))),
                }
            }
        }
    }
}

impl Drop for PersistentValidator {
    fn drop(&mut self) {
        let sessions = std::mem::take(
            self.idle
                .get_mut()
                .unwrap_or_else(|poisoned| poisoned.into_inner()),
        );
        for mut session in sessions {
            // A goodbye is read within a small bound: nothing after `stop` is worth more.
            session.stdout.cap = GOODBYE_CAP;
            let deadline = Instant::now() + STOP_GRACE;
            let _ = send(&mut session, &Message::Stop, deadline)
                .and_then(|()| receive(&mut session, deadline));
            session.stdin = None;
            while !session.running.has_exited() && Instant::now() < deadline {
                let remaining = deadline.saturating_duration_since(Instant::now());
                match session.running.exit_fd() {
                    Some(fd) => {
                        wait_ready(&[(fd, true)], remaining);
                    }
                    None => std::thread::sleep(remaining.min(Duration::from_millis(10))),
                }
            }
            finish(session);
        }
    }
}

/// Starts a process and reads its hello within `greet_within`.
fn spawn(
    argv: &[String],
    limits: Limits,
    sandbox: &Sandbox,
    greet_within: Duration,
) -> Result<(Session, Implementation), String> {
    let home = scratch::case_dir("session-")
        .map_err(|error| format!("cannot create a temporary directory: {error}"))?;
    let mut command = Command::new(&argv[0]);
    command
        .args(&argv[1..])
        .current_dir(home.path())
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    // The process may write beneath its own home only. Trees of every case are
    // materialised beneath the run's scratch directory while it runs, and a process that
    // could write there could plant a symlink in a fresh tree directory before the harness
    // fills it, and so make the harness write wherever the symlink leads. It reads a tree,
    // and a write through a tree's absolute symlinks (to its decoys) is refused.
    let writable: [&Path; 1] = [home.path()];
    let mut running = process::start(command, sandbox, &writable)
        .map_err(|error| format!("cannot start {:?}: {error}", argv[0]))?;
    let child = running.child();
    let (Some(stdin), Some(stdout), Some(stderr)) =
        (child.stdin.take(), child.stdout.take(), child.stderr.take())
    else {
        return Err("the validator's pipes are missing".to_owned());
    };
    let stdin = OwnedFd::from(stdin);
    let stdin = nonblocking(&stdin).ok().map(|()| stdin);
    let mut session = Session {
        running,
        stdin,
        stdout: Lines::new(OwnedFd::from(stdout), limits.output_cap),
        stderr: Capture::tail(Some(stderr), EVIDENCE_CAP),
        _home: home,
    };
    let hello = Message::Start {
        version: PROTOCOL_VERSION,
    };
    let reply = match exchange(&mut session, &hello, greet_within) {
        Ok(reply) => reply,
        Err(failure) => {
            let (stderr, _) = finish(session);
            let why = match failure {
                Failure::TimedOut => format!(
                    "no hello within {}",
                    humantime::format_duration(greet_within)
                ),
                Failure::Died(message) | Failure::Protocol(message) => message,
            };
            return Err(format!(
                "the validator did not start: {why}{}",
                excerpt(&stderr)
            ));
        }
    };
    let reply: serde_json::Value = match serde_json::from_str(&reply) {
        Ok(value) => value,
        Err(error) => {
            finish(session);
            return Err(format!("unreadable hello: {error}"));
        }
    };
    let version = reply.get("version").and_then(serde_json::Value::as_u64);
    if version != Some(PROTOCOL_VERSION) {
        finish(session);
        return Err(format!(
            "the validator speaks protocol {version:?}, not {PROTOCOL_VERSION}"
        ));
    }
    match serde_json::from_value::<Hello>(reply) {
        Ok(hello) => Ok((session, hello.implementation)),
        Err(error) => {
            finish(session);
            Err(format!("unreadable hello: {error}"))
        }
    }
}

/// Sends one message and waits for one reply line that is a JSON object.
fn exchange(
    session: &mut Session,
    message: &Message,
    timeout: Duration,
) -> Result<String, Failure> {
    let deadline = Instant::now() + timeout;
    send(session, message, deadline)?;
    let line = receive(session, deadline)?;
    if !line.trim_start().starts_with('{') {
        return Err(Failure::Protocol(format!(
            "not a JSON object: {}",
            line.chars().take(200).collect::<String>()
        )));
    }
    Ok(line)
}

/// Writes one message as one line, without blocking past `deadline` (a process that does
/// not read its input is a timeout, not a hang), draining stderr meanwhile.
fn send(session: &mut Session, message: &Message, deadline: Instant) -> Result<(), Failure> {
    let mut bytes = encode(message).into_bytes();
    bytes.push(b'\n');
    let mut written = 0;
    while written < bytes.len() {
        let Some(stdin) = &session.stdin else {
            return Err(Failure::Died("the validator closed its input".to_owned()));
        };
        match rustix::io::write(stdin, &bytes[written..]) {
            Ok(count) => {
                written += count;
                continue;
            }
            Err(rustix::io::Errno::AGAIN) => {}
            Err(rustix::io::Errno::INTR) => continue,
            Err(error) => {
                return Err(Failure::Died(format!(
                    "the validator closed its input: {error}"
                )))
            }
        }
        let now = Instant::now();
        if now >= deadline {
            return Err(Failure::TimedOut);
        }
        let mut fds: Vec<(&OwnedFd, bool)> = vec![(stdin, false)];
        fds.extend(session.stderr.fd().map(|fd| (fd, true)));
        fds.extend(session.running.exit_fd().map(|fd| (fd, true)));
        wait_ready(&fds, (deadline - now).min(EXIT_POLL));
        session.stderr.pump(1 << 20);
        if session.running.has_exited() {
            return Err(Failure::Died("the validator exited".to_owned()));
        }
    }
    Ok(())
}

/// How often to look for the process's exit when the kernel has no pidfd.
const EXIT_POLL: Duration = Duration::from_millis(10);

/// Waits for one non-blank line until `deadline`, reading stdout only until it has one.
fn receive(session: &mut Session, deadline: Instant) -> Result<String, Failure> {
    let mut exited_at: Option<Instant> = None;
    loop {
        match session.stdout.next_line() {
            Next::Line(line) => return Ok(line),
            Next::TooLong(cap) => {
                return Err(Failure::Protocol(format!(
                    "a reply line is longer than {cap} bytes"
                )))
            }
            Next::Ended => return Err(Failure::Died("the validator exited".to_owned())),
            Next::Wait => {}
        }
        let now = Instant::now();
        if now >= deadline {
            return Err(Failure::TimedOut);
        }
        // After the process exited, what it wrote is in the pipe: read it for a short
        // grace, not for as long as a grandchild keeps the pipe open.
        if exited_at.is_none() && session.running.has_exited() {
            exited_at = Some(now);
        }
        if exited_at.is_some_and(|at| now.duration_since(at) >= DRAIN_GRACE) {
            return Err(Failure::Died("the validator exited".to_owned()));
        }
        let mut fds: Vec<(&OwnedFd, bool)> = Vec::new();
        fds.extend(session.stdout.fd.as_ref().map(|fd| (fd, true)));
        fds.extend(session.stderr.fd().map(|fd| (fd, true)));
        if exited_at.is_none() {
            fds.extend(session.running.exit_fd().map(|fd| (fd, true)));
        }
        let wait = if exited_at.is_none() && session.running.exit_fd().is_some() {
            deadline - now
        } else {
            (deadline - now).min(EXIT_POLL)
        };
        wait_ready(&fds, wait);
        session.stdout.pump();
        session.stderr.pump(1 << 20);
    }
}

/// One message as one line of JSON.
fn encode(message: &Message) -> String {
    // Serialising these types cannot fail: every map key is a string.
    serde_json::to_string(message).unwrap_or_default()
}

/// Turns a run reply into an outcome (and the count of diagnostics dropped); a wrong
/// sequence number desynchronises the session.
fn read_reply(line: &str, seq: u64) -> Result<(Outcome, usize), Failure> {
    let Some(reply) = Wire::parse(line) else {
        return Err(Failure::Protocol(format!(
            "not a JSON object: {}",
            line.chars().take(200).collect::<String>()
        )));
    };
    if reply.seq.as_ref().and_then(serde_json::Value::as_u64) != Some(seq) {
        // The reply itself is evidence; the message quotes only its start.
        return Err(Failure::Protocol(format!(
            "expected a reply to seq {seq}, got {}",
            line.chars().take(200).collect::<String>()
        )));
    }
    if let Some(reason) = &reply.skipped {
        return Ok((
            Outcome::Skipped {
                reason: reason.as_str().unwrap_or("skipped").to_owned(),
            },
            0,
        ));
    }
    if let Some(message) = &reply.errored {
        return Ok((
            Outcome::Crashed {
                message: format!(
                    "the validator reported an error: {}",
                    message.as_str().unwrap_or_default()
                ),
            },
            0,
        ));
    }
    reply
        .result()
        .map(|read| (Outcome::Observed(read.observation), read.dropped))
        .map_err(Failure::Protocol)
}

/// Ends a session: kills the process and everything it started, reads what is left of
/// stderr for a short grace, and returns its kept end and whether it was cut.
fn finish(mut session: Session) -> (Vec<u8>, bool) {
    session.stdin = None;
    session.running.end();
    process::drain(&mut [&mut session.stderr], DRAIN_GRACE);
    session.stderr.finish()
}

/// A process's stdout, read into one buffer of at most `cap + 1` bytes.
struct Lines {
    fd: Option<OwnedFd>,
    buffer: Vec<u8>,
    cap: usize,
}

/// What [`Lines::next_line`] found.
enum Next {
    Line(String),
    /// A line longer than this many bytes.
    TooLong(usize),
    /// The stream ended without another line.
    Ended,
    /// Nothing complete yet.
    Wait,
}

impl Lines {
    fn new(fd: OwnedFd, cap: usize) -> Lines {
        let fd = nonblocking(&fd).ok().map(|()| fd);
        Lines {
            fd,
            buffer: Vec::new(),
            cap,
        }
    }

    /// The next complete non-blank line in the buffer, if any.
    fn next_line(&mut self) -> Next {
        while let Some(end) = self.buffer.iter().position(|&byte| byte == b'\n') {
            let line: Vec<u8> = self.buffer.drain(..=end).collect();
            if line.len() - 1 > self.cap {
                return Next::TooLong(self.cap);
            }
            let text = String::from_utf8_lossy(&line).trim_end().to_owned();
            if !text.is_empty() {
                return Next::Line(text);
            }
        }
        if self.buffer.len() > self.cap {
            return Next::TooLong(self.cap);
        }
        if self.fd.is_none() {
            return Next::Ended;
        }
        Next::Wait
    }

    /// Reads what is available, never past `cap + 1` buffered bytes: a line is due, and
    /// nothing more is read until it is taken.
    fn pump(&mut self) {
        let mut chunk = [0u8; 16 * 1024];
        while let Some(fd) = &self.fd {
            let room = (self.cap + 1).saturating_sub(self.buffer.len());
            if room == 0 || self.buffer.contains(&b'\n') {
                return;
            }
            let want = room.min(chunk.len());
            match rustix::io::read(fd, &mut chunk[..want]) {
                Ok(0) => self.fd = None,
                Ok(read) => self.buffer.extend_from_slice(&chunk[..read]),
                Err(rustix::io::Errno::AGAIN) => return,
                Err(rustix::io::Errno::INTR) => {}
                Err(_) => self.fd = None,
            }
        }
    }
}
