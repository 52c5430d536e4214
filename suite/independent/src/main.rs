//! `soulcheck-independent`: the independent implementation as a validator binary, for
//! `soulcheck run --validator 'soulcheck-independent --format {format} --context {context}
//! {path}'` (add `--mistake NAME` to plant a switch). Exit 0 accept, 1 reject, 3 declined
//! (with `{"skipped": "..."}` on standard output, as harness/PROTOCOL.md asks), 2 usage or
//! input error. Each problem is one line on standard output.

use std::io::Read as _;
use std::path::PathBuf;
use std::process::ExitCode;

use clap::Parser;
use serde_json::{Map, Value};
use soulcheck_independent::{validate, Format, Input, Settings, Severity};

/// Largest file read: past every size limit of the five formats (the largest, a skill
/// envelope's, is 8 MiB), so a larger one is declined unread.
const MAX_READ: u64 = 64 * 1024 * 1024;

/// A second implementation of the soulcheck formats, with planted mistakes.
#[derive(Parser)]
#[command(version)]
struct Options {
    /// The format: soul-kit, skill-package, soulacy-package, soulacy-sidecar,
    /// compose-bundle, soul-md.
    #[arg(long)]
    format: String,
    /// The planted mistake (see --list).
    #[arg(long)]
    mistake: Option<String>,
    /// Judge by the strict profile.
    #[arg(long)]
    strict: bool,
    /// The case context as a JSON object (the harness's `{context}`); `"profile":
    /// "strict"` in it means --strict.
    #[arg(long, default_value = "{}")]
    context: String,
    /// List the format's switches and exit.
    #[arg(long)]
    list: bool,
    /// The file or directory to validate.
    path: Option<PathBuf>,
}

fn main() -> ExitCode {
    let options = Options::parse();
    match run(&options) {
        Ok(code) => code,
        Err(message) => {
            eprintln!("soulcheck-independent: {message}");
            ExitCode::from(2)
        }
    }
}

fn run(options: &Options) -> Result<ExitCode, String> {
    let format = Format::from_name(&options.format)
        .ok_or_else(|| format!("unknown format `{}`", options.format))?;
    if options.list {
        for mistake in format.mistakes() {
            println!("{}\t{}", mistake.name, mistake.description);
        }
        return Ok(ExitCode::SUCCESS);
    }
    if let Some(name) = &options.mistake {
        if format.mistake(name).is_none() {
            return Err(format!(
                "`{name}` is not a switch of {} (see --list)",
                format.name()
            ));
        }
    }
    let context: Map<String, Value> = serde_json::from_str(&options.context)
        .map_err(|error| format!("--context is not a JSON object: {error}"))?;
    let strict = options.strict || context.get("profile").and_then(Value::as_str) == Some("strict");
    let settings = Settings {
        strict,
        mistake: options.mistake.as_deref(),
        context: &context,
    };
    let path = options.path.as_ref().ok_or("a path is required")?;
    let metadata =
        std::fs::symlink_metadata(path).map_err(|error| format!("{}: {error}", path.display()))?;
    let outcome = if metadata.is_dir() {
        validate(format, Input::Directory { root: path }, &settings)
    } else if metadata.is_file() {
        let mut bytes = Vec::new();
        std::fs::File::open(path)
            .and_then(|file| file.take(MAX_READ + 1).read_to_end(&mut bytes))
            .map_err(|error| format!("{}: {error}", path.display()))?;
        if bytes.len() as u64 > MAX_READ {
            soulcheck_independent::Outcome::decline(format!("larger than {MAX_READ} bytes"))
        } else {
            let name = path
                .file_name()
                .map(|name| name.to_string_lossy().into_owned())
                .unwrap_or_default();
            validate(
                format,
                Input::Document {
                    name: &name,
                    bytes: &bytes,
                },
                &settings,
            )
        }
    } else {
        return Err(format!("{}: not a file or a directory", path.display()));
    };
    if let Some(reason) = &outcome.declined {
        println!("{}", serde_json::json!({ "skipped": reason }));
        return Ok(ExitCode::from(3));
    }
    for problem in &outcome.problems {
        let severity = match problem.severity {
            Severity::Error => "error",
            Severity::Warning => "warning",
        };
        println!("{severity}: {}", problem.message);
    }
    Ok(if outcome.accepted() {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    })
}
