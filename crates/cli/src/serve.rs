//! `soulcheck serve`: the reference implementation behind the persistent validator
//! protocol (version 1, `harness/PROTOCOL.md`), so the harness can certify it
//! through a real process boundary the way it certifies any other long-lived validator.
//! Every message is one of the wire types of `soulcheck_vocabulary::wire`.

use std::io::{BufRead, Write};
use std::path::Path;

use base64::Engine as _;
use serde::Serialize;
use soulcheck_reference::Input;
use soulcheck_vocabulary::wire::{
    Command, Goodbye, Hello, InputMessage, Reply, RunRequest, PROTOCOL_VERSION,
};

/// Answers requests from `input` on `output` until `stop` or end of input.
pub fn serve(input: impl BufRead, mut output: impl Write) -> std::io::Result<()> {
    for line in input.lines() {
        let line = line?;
        if line.trim().is_empty() {
            continue;
        }
        let value: serde_json::Value = match serde_json::from_str(&line) {
            Ok(value) => value,
            Err(error) => {
                let reply = Reply::Errored {
                    seq: None,
                    errored: format!("unreadable request: {error}"),
                };
                send(&mut output, &reply)?;
                continue;
            }
        };
        let seq = value.get("seq").and_then(serde_json::Value::as_u64);
        match serde_json::from_value::<Command>(value) {
            Ok(Command::Start { .. }) => send(
                &mut output,
                &Hello {
                    version: PROTOCOL_VERSION,
                    implementation: soulcheck_oracle::implementation(),
                },
            )?,
            Ok(Command::Run(request)) => send(&mut output, &run(&request))?,
            Ok(Command::Stop) => {
                return send(&mut output, &Goodbye { goodbye: true });
            }
            Ok(_) => send(
                &mut output,
                &Reply::Errored {
                    seq,
                    errored: "a command this server does not know".to_owned(),
                },
            )?,
            Err(error) => send(
                &mut output,
                &Reply::Errored {
                    seq,
                    errored: format!("unknown or malformed command: {error}"),
                },
            )?,
        }
    }
    Ok(())
}

/// Writes one message as one line and flushes it, since the harness waits for it.
fn send(output: &mut impl Write, message: &impl Serialize) -> std::io::Result<()> {
    let line = serde_json::to_string(message).map_err(std::io::Error::other)?;
    writeln!(output, "{line}")?;
    output.flush()
}

fn run(request: &RunRequest) -> Reply {
    let seq = request.seq;
    let report = match &request.input {
        InputMessage::Document { name, base64 } => {
            let bytes = match base64::engine::general_purpose::STANDARD.decode(base64) {
                Ok(bytes) => bytes,
                Err(error) => {
                    return Reply::Errored {
                        seq: Some(seq),
                        errored: format!("bad base64 input: {error}"),
                    }
                }
            };
            soulcheck_reference::check(
                request.format,
                &request.operation,
                Input::Document {
                    name,
                    bytes: &bytes,
                },
                &request.context,
            )
        }
        InputMessage::Tree { path } => soulcheck_reference::check(
            request.format,
            &request.operation,
            Input::Tree(Path::new(path)),
            &request.context,
        ),
        _ => {
            return Reply::Errored {
                seq: Some(seq),
                errored: "an input kind this server does not know".to_owned(),
            }
        }
    };
    match report {
        Ok(report) => match report.not_judged_reason() {
            // Past a bound of its own the reference declines the input.
            Some(reason) => Reply::Skipped {
                seq,
                skipped: reason,
            },
            None => Reply::Result {
                seq,
                report: report.to_wire(),
            },
        },
        Err(unsupported) => Reply::Skipped {
            seq,
            skipped: unsupported.reason,
        },
    }
}
