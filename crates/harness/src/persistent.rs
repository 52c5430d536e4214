//! Validators behind a process boundary, in persistent mode: long-lived processes that
//! speak newline-delimited JSON (protocol version 1, `harness/PROTOCOL.md`). Each worker
//! thread checks a process out of a pool; a process that times out, dies or breaks the
//! protocol is killed and replaced for the next case.

use std::io::{BufRead, BufReader, Read, Write};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{mpsc, Mutex};
use std::thread;
use std::time::Duration;

use base64::Engine as _;
use soulcheck_vocabulary::wire::{self, Command as Message, Hello, InputMessage, RunRequest};

use crate::external::{excerpt, parse_result};
use crate::process::{self, kill_group, Limits};
use crate::setup::{command_words, SetupError};
use crate::validator::{
    Answer, Captured, Evidence, Implementation, Input, Outcome, Request, Validator,
};

/// The protocol version this harness speaks.
pub const PROTOCOL_VERSION: u64 = wire::PROTOCOL_VERSION;

/// A validator process pool speaking the persistent protocol.
pub struct PersistentValidator {
    argv: Vec<String>,
    limits: Limits,
    idle: Mutex<Vec<Session>>,
    implementation: Implementation,
    sequence: AtomicU64,
}

struct Session {
    child: Child,
    stdin: ChildStdin,
    lines: mpsc::Receiver<Result<String, String>>,
    stderr: mpsc::Receiver<(Vec<u8>, bool)>,
}

/// Why a session could not answer.
enum Failure {
    TimedOut,
    Died(String),
    Protocol(String),
}

impl PersistentValidator {
    /// Starts one process to learn who the validator is; more start on demand.
    /// The program is resolved as in per-case mode ([`command_words`]).
    pub fn start(command: &str, limits: Limits) -> Result<PersistentValidator, SetupError> {
        let argv = command_words(command)?;
        let (session, implementation) =
            spawn(&argv, limits).map_err(|message| SetupError::DidNotStart { message })?;
        Ok(PersistentValidator {
            argv,
            limits,
            idle: Mutex::new(vec![session]),
            implementation,
            sequence: AtomicU64::new(1),
        })
    }

    fn checkout(&self) -> Result<Session, String> {
        let pooled = self
            .idle
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
            .pop();
        match pooled {
            Some(session) => Ok(session),
            None => spawn(&self.argv, self.limits).map(|(session, _)| session),
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
        let exchanged = exchange(&mut session, &message, self.limits.timeout).and_then(|reply| {
            reply_line = reply.to_string();
            read_reply(&reply, seq)
        });
        // The process's stderr is one stream for all its cases, read only when it ends; the
        // evidence of a case is its reply line, plus stderr when the process died on it.
        let reply = Captured::keep(reply_line.as_bytes(), false);
        match exchanged {
            Ok(outcome) => {
                self.idle
                    .lock()
                    .unwrap_or_else(|poisoned| poisoned.into_inner())
                    .push(session);
                Answer {
                    outcome,
                    evidence: Some(Evidence::new("answered", reply, Captured::default())),
                }
            }
            Err(failure) => {
                let (stderr, cut) = finish(session, Duration::ZERO);
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
            let _ = writeln!(session.stdin, "{}", encode(&Message::Stop));
            let _ = session.stdin.flush();
            finish(session, Duration::from_secs(1));
        }
    }
}

/// Starts a process and reads its hello.
fn spawn(argv: &[String], limits: Limits) -> Result<(Session, Implementation), String> {
    let mut command = Command::new(&argv[0]);
    process::own_group(&mut command)
        .args(&argv[1..])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    let mut child = command
        .spawn()
        .map_err(|error| format!("cannot start {:?}: {error}", argv[0]))?;
    let (Some(stdin), Some(stdout), Some(stderr)) =
        (child.stdin.take(), child.stdout.take(), child.stderr.take())
    else {
        kill_group(&child);
        return Err("the validator's pipes are missing".to_owned());
    };
    let mut session = Session {
        child,
        stdin,
        lines: read_lines(stdout, limits.output_cap),
        stderr: process::capture(stderr, limits.output_cap),
    };
    let hello = Message::Start {
        version: PROTOCOL_VERSION,
    };
    let reply = match exchange(&mut session, &hello, limits.startup.max(limits.timeout)) {
        Ok(reply) => reply,
        Err(failure) => {
            let (stderr, _) = finish(session, Duration::ZERO);
            let why = match failure {
                Failure::TimedOut => "no hello before the timeout".to_owned(),
                Failure::Died(message) | Failure::Protocol(message) => message,
            };
            return Err(format!(
                "the validator did not start: {why}{}",
                excerpt(&stderr)
            ));
        }
    };
    let version = reply.get("version").and_then(serde_json::Value::as_u64);
    if version != Some(PROTOCOL_VERSION) {
        finish(session, Duration::ZERO);
        return Err(format!(
            "the validator speaks protocol {version:?}, not {PROTOCOL_VERSION}"
        ));
    }
    match serde_json::from_value::<Hello>(reply) {
        Ok(hello) => Ok((session, hello.implementation)),
        Err(error) => {
            finish(session, Duration::ZERO);
            Err(format!("unreadable hello: {error}"))
        }
    }
}

/// Sends one message and waits for one reply line.
fn exchange(
    session: &mut Session,
    message: &Message,
    timeout: Duration,
) -> Result<serde_json::Value, Failure> {
    let written =
        writeln!(session.stdin, "{}", encode(message)).and_then(|()| session.stdin.flush());
    if let Err(error) = written {
        return Err(Failure::Died(format!(
            "the validator closed its input: {error}"
        )));
    }
    match session.lines.recv_timeout(timeout) {
        Err(mpsc::RecvTimeoutError::Timeout) => Err(Failure::TimedOut),
        Err(mpsc::RecvTimeoutError::Disconnected) => {
            Err(Failure::Died("the validator exited".to_owned()))
        }
        Ok(Err(message)) => Err(Failure::Protocol(message)),
        Ok(Ok(line)) => match serde_json::from_str::<serde_json::Value>(&line) {
            Ok(value) if value.is_object() => Ok(value),
            _ => Err(Failure::Protocol(format!(
                "not a JSON object: {}",
                line.chars().take(200).collect::<String>()
            ))),
        },
    }
}

/// One message as one line of JSON.
fn encode(message: &Message) -> String {
    // Serialising these types cannot fail: every map key is a string.
    serde_json::to_string(message).unwrap_or_default()
}

/// Turns a run reply into an outcome; a wrong sequence number desynchronises the session.
fn read_reply(reply: &serde_json::Value, seq: u64) -> Result<Outcome, Failure> {
    let Some(object) = reply.as_object() else {
        return Err(Failure::Protocol("the reply is not an object".to_owned()));
    };
    if object.get("seq").and_then(serde_json::Value::as_u64) != Some(seq) {
        return Err(Failure::Protocol(format!(
            "expected a reply to seq {seq}, got {reply}"
        )));
    }
    if let Some(reason) = object.get("skipped") {
        return Ok(Outcome::Skipped {
            reason: reason.as_str().unwrap_or("skipped").to_owned(),
        });
    }
    if let Some(message) = object.get("errored") {
        return Ok(Outcome::Crashed {
            message: format!(
                "the validator reported an error: {}",
                message.as_str().unwrap_or_default()
            ),
        });
    }
    parse_result(object)
        .map(Outcome::Observed)
        .map_err(Failure::Protocol)
}

/// Ends a session: waits up to `grace` for it to exit, kills its process group, and
/// returns what it wrote to stderr and whether that was cut at the cap.
fn finish(mut session: Session, grace: Duration) -> (Vec<u8>, bool) {
    drop(session.stdin);
    if !grace.is_zero() {
        use wait_timeout::ChildExt;
        let _ = session.child.wait_timeout(grace);
    }
    kill_group(&session.child);
    let _ = session.child.wait();
    session
        .stderr
        .recv_timeout(Duration::from_millis(500))
        .unwrap_or_default()
}

/// Reads newline-terminated lines in a thread; a line longer than `cap` is reported as a
/// protocol error and the rest of it discarded.
fn read_lines(
    stream: impl Read + Send + 'static,
    cap: usize,
) -> mpsc::Receiver<Result<String, String>> {
    let (sender, receiver) = mpsc::channel();
    thread::spawn(move || {
        let mut reader = BufReader::new(stream);
        loop {
            let mut line = Vec::new();
            let read = (&mut reader)
                .take(cap as u64 + 1)
                .read_until(b'\n', &mut line);
            match read {
                Ok(0) | Err(_) => break,
                Ok(_) if line.len() > cap && !line.ends_with(b"\n") => {
                    skip_line(&mut reader);
                    if sender
                        .send(Err(format!("a reply line is longer than {cap} bytes")))
                        .is_err()
                    {
                        break;
                    }
                }
                Ok(_) => {
                    let text = String::from_utf8_lossy(&line).trim_end().to_owned();
                    if text.is_empty() {
                        continue;
                    }
                    if sender.send(Ok(text)).is_err() {
                        break;
                    }
                }
            }
        }
    });
    receiver
}

/// Discards input up to and including the next newline without buffering it.
fn skip_line(reader: &mut impl BufRead) {
    loop {
        let (found, used) = match reader.fill_buf() {
            Ok([]) | Err(_) => return,
            Ok(buffer) => match buffer.iter().position(|&b| b == b'\n') {
                Some(at) => (true, at + 1),
                None => (false, buffer.len()),
            },
        };
        reader.consume(used);
        if found {
            return;
        }
    }
}
