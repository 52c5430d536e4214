//! `soulcheck serve`: the reference implementation behind the persistent validator
//! protocol (version 1, `harness/PROTOCOL.md`), so the harness can certify it through a
//! real process boundary the way it certifies any other long-lived validator.

use std::io::{BufRead, Write};
use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::Result;
use base64::Engine as _;
use serde_json::{json, Value};
use soulcheck::{Context, Format, Input};

/// Answers requests from stdin until `stop` or end of input.
pub fn serve() -> Result<ExitCode> {
    let stdin = std::io::stdin().lock();
    let mut stdout = std::io::stdout().lock();
    for line in stdin.lines() {
        let line = line?;
        if line.trim().is_empty() {
            continue;
        }
        let request: Value = match serde_json::from_str(&line) {
            Ok(request) => request,
            Err(error) => {
                writeln!(
                    stdout,
                    "{}",
                    json!({ "errored": format!("unreadable request: {error}") })
                )?;
                stdout.flush()?;
                continue;
            }
        };
        let reply = match request.get("cmd").and_then(Value::as_str) {
            Some("start") => json!({
                "version": 1,
                "implementation": {
                    "name": "soulcheck reference",
                    "version": env!("CARGO_PKG_VERSION"),
                    "language": "Rust",
                    "formats": Format::ALL.map(Format::name),
                    "operations": soulcheck::OPERATIONS,
                },
            }),
            Some("run") => run(&request),
            Some("stop") => {
                writeln!(stdout, "{}", json!({ "goodbye": true }))?;
                stdout.flush()?;
                return Ok(ExitCode::SUCCESS);
            }
            other => {
                json!({ "seq": request.get("seq"), "errored": format!("unknown command {other:?}") })
            }
        };
        writeln!(stdout, "{reply}")?;
        stdout.flush()?;
    }
    Ok(ExitCode::SUCCESS)
}

fn run(request: &Value) -> Value {
    let seq = request.get("seq").cloned().unwrap_or(Value::Null);
    let errored = |message: String| json!({ "seq": seq, "errored": message });
    let Some(format) = request
        .get("format")
        .and_then(Value::as_str)
        .and_then(|name| name.parse::<Format>().ok())
    else {
        return errored("missing or unknown format".to_owned());
    };
    let operation = request
        .get("operation")
        .and_then(Value::as_str)
        .unwrap_or("validate");
    let context: Context = request
        .get("context")
        .and_then(Value::as_object)
        .cloned()
        .unwrap_or_default();
    let input = request.get("input").cloned().unwrap_or(Value::Null);
    let report = match input.get("kind").and_then(Value::as_str) {
        Some("document") => {
            let name = input.get("name").and_then(Value::as_str).unwrap_or("input");
            let encoded = input
                .get("base64")
                .and_then(Value::as_str)
                .unwrap_or_default();
            let bytes = match base64::engine::general_purpose::STANDARD.decode(encoded) {
                Ok(bytes) => bytes,
                Err(error) => return errored(format!("bad base64 input: {error}")),
            };
            soulcheck::check(
                format,
                operation,
                Input::Document {
                    name,
                    bytes: &bytes,
                },
                &context,
            )
        }
        Some("tree") => {
            let Some(path) = input.get("path").and_then(Value::as_str) else {
                return errored("tree input without a path".to_owned());
            };
            soulcheck::check(
                format,
                operation,
                Input::Tree(&PathBuf::from(path)),
                &context,
            )
        }
        _ => return errored("input must be a document or a tree".to_owned()),
    };
    match report {
        Ok(report) => {
            let mut reply = report.to_json();
            reply["seq"] = seq;
            reply
        }
        Err(unsupported) => json!({ "seq": seq, "skipped": unsupported.reason }),
    }
}
