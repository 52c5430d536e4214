//! `soulcheck-fuzz`: the stable-toolchain side of fuzzing, used by the scripts in `fuzz/`.
//!
//! - `soulcheck-fuzz targets`: the targets, one per line (name, format, input kind);
//! - `soulcheck-fuzz seed DIR`: writes every corpus input into `DIR/<target>/` for each
//!   target that takes documents of its format (the seed corpus of a campaign);
//! - `soulcheck-fuzz replay TARGET FILE...`: runs inputs (e.g. crash artifacts) through a
//!   target with every invariant, without libFuzzer; exit 1 when one breaks;
//! - `soulcheck-fuzz render TARGET FILE`: writes the document a target checks for an input
//!   to standard output (for a structured target, the generated document; otherwise the
//!   input itself), and what the generator predicted to standard error;
//! - `soulcheck-fuzz case TARGET FILE ID`: writes `cases/<format>/<ID>/` for an input (the
//!   document, or the bundle tree, plus a `case.toml`) whose verdict and diagnostics are
//!   the reference's current output, marked for review: they become the contract only
//!   after a person has checked them against the spec (see CONTRIBUTING.md, "Triage").

use std::path::Path;
use std::process::ExitCode;

use soulcheck_fuzzing::seeds;
use soulcheck_fuzzing::{Meter, Outcome, StatsAlloc, Target, INSTRUMENTED_SYSTEM};
use soulcheck_harness::differential::draft;

#[global_allocator]
static ALLOCATOR: &StatsAlloc<std::alloc::System> = &INSTRUMENTED_SYSTEM;

/// Seeds larger than this stay out of campaign folders: libFuzzer sizes its inputs after
/// the largest seed, and the size limits have cases and invariants of their own.
const MAX_SEED_BYTES: usize = 64 * 1024;

const USAGE: &str = "usage: soulcheck-fuzz targets | seed DIR | replay TARGET FILE... | render TARGET FILE | case TARGET FILE ID";

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let result = match args
        .iter()
        .map(String::as_str)
        .collect::<Vec<_>>()
        .as_slice()
    {
        ["targets"] => {
            for target in Target::ALL {
                let format = target.format().map_or("json", |format| format.name());
                let kind = if target.takes_documents() {
                    "documents"
                } else {
                    "generator choices"
                };
                println!("{}\t{format}\t{kind}", target.name());
            }
            Ok(true)
        }
        ["seed", dir] => seed(Path::new(dir)),
        ["replay", target, files @ ..] if !files.is_empty() => {
            target_named(target).and_then(|target| replay(target, files))
        }
        ["render", target, file] => target_named(target).and_then(|target| render(target, file)),
        ["case", target, file, id] => {
            target_named(target).and_then(|target| write_case(target, file, id))
        }
        _ => Err(USAGE.to_owned()),
    };
    match result {
        Ok(true) => ExitCode::SUCCESS,
        Ok(false) => ExitCode::from(1),
        Err(message) => {
            eprintln!("soulcheck-fuzz: {message}");
            ExitCode::from(2)
        }
    }
}

fn target_named(name: &str) -> Result<Target, String> {
    Target::from_name(name)
        .ok_or_else(|| format!("unknown target `{name}` (see `soulcheck-fuzz targets`)"))
}

fn seed(dir: &Path) -> Result<bool, String> {
    let corpus = soulcheck_fuzz_tool::corpus_seeds(&soulcheck_fuzz_tool::corpus()?);
    let mut written = 0usize;
    for &target in Target::ALL {
        let folder = dir.join(target.name());
        std::fs::create_dir_all(&folder)
            .map_err(|error| format!("{}: {error}", folder.display()))?;
        for seed in corpus.get(&target).into_iter().flatten() {
            if seed.bytes.len() > MAX_SEED_BYTES {
                continue;
            }
            let path = folder.join(seed.name.replace('/', "-"));
            std::fs::write(&path, &seed.bytes)
                .map_err(|error| format!("{}: {error}", path.display()))?;
            written += 1;
        }
    }
    eprintln!("wrote {written} seeds under {}", dir.display());
    Ok(true)
}

fn replay(target: Target, files: &[&str]) -> Result<bool, String> {
    let meter = Meter::installed();
    let mut clean = true;
    for file in files {
        let data = std::fs::read(file).map_err(|error| format!("{file}: {error}"))?;
        match soulcheck_fuzzing::run(target, &data, Some(&meter)) {
            Ok(Outcome::Checked) => println!("{file}: ok"),
            Ok(Outcome::Unusable) => println!("{file}: unusable by the generator"),
            Err(violation) => {
                println!("{file}: {violation}");
                clean = false;
            }
        }
    }
    Ok(clean)
}

fn render(target: Target, file: &str) -> Result<bool, String> {
    use std::io::Write;
    let data = std::fs::read(file).map_err(|error| format!("{file}: {error}"))?;
    let generated = soulcheck_fuzzing::document(target, &data)
        .ok_or_else(|| format!("{file}: the generator cannot use this input"))?;
    eprintln!("generated: {}", generated.summary);
    if let Some(expected) = &generated.expected {
        let list: Vec<String> = expected.iter().map(ToString::to_string).collect();
        eprintln!("generator predicts: [{}]", list.join("; "));
    }
    std::io::stdout()
        .write_all(&generated.bytes)
        .map_err(|error| error.to_string())?;
    Ok(true)
}

/// A TOML basic string.
fn toml_string(text: &str) -> String {
    let mut out = String::from("\"");
    for c in text.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            c if c.is_control() => out.push_str(&format!("\\u{:04X}", c as u32)),
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

fn write_case(target: Target, file: &str, id: &str) -> Result<bool, String> {
    if !draft::is_case_id(id) {
        return Err(format!(
            "case ID `{id}`: lowercase letters, digits and single hyphens"
        ));
    }
    let format = target
        .format()
        .ok_or("the json_reader target has no format; triage the input under a format's target")?;
    let data = std::fs::read(file).map_err(|error| format!("{file}: {error}"))?;
    let dir = seeds::workspace()
        .join("cases")
        .join(format.name())
        .join(id);
    if dir.exists() {
        return Err(format!("{} exists; case IDs are permanent", dir.display()));
    }
    std::fs::create_dir_all(&dir).map_err(|error| format!("{}: {error}", dir.display()))?;
    let context = soulcheck_reference::Context::new();
    let (report, input, invisible) = if target.is_tree() {
        let (_, entries) =
            soulcheck_fuzzing::tree(target, &data).ok_or("the generator cannot use this input")?;
        let root = dir.join("bundle");
        std::fs::create_dir_all(&root).map_err(|error| error.to_string())?;
        soulcheck_fuzzing::generate::bundle::write(&root, &entries);
        let report = soulcheck_reference::check(
            format,
            "validate",
            soulcheck_reference::Input::Tree(&root),
            &context,
        )
        .map_err(|error| error.reason)?;
        (report, "bundle".to_owned(), Vec::new())
    } else {
        let generated = soulcheck_fuzzing::document(target, &data)
            .ok_or("the generator cannot use this input")?;
        let name = target.file_name();
        std::fs::write(dir.join(name), &generated.bytes).map_err(|error| error.to_string())?;
        let report = soulcheck_fuzzing::check(format, name, &generated.bytes)
            .map_err(|violation| violation.to_string())?;
        (
            report,
            name.to_owned(),
            draft::invisible_words(&generated.bytes),
        )
    };
    let mut rules: Vec<&str> = report.diagnostics.iter().map(|d| d.rule.id).collect();
    rules.sort_unstable();
    rules.dedup();
    let errors = report
        .diagnostics
        .iter()
        .any(|d| d.severity == soulcheck_reference::Severity::Error);
    let verdict = if errors {
        "reject"
    } else if report.diagnostics.is_empty() {
        "accept"
    } else {
        "accept-with-warnings"
    };
    let mut description = format!(
        "fuzz finding of {} (REVIEW: say what this input tests)",
        target.name()
    );
    if !invisible.is_empty() {
        description.push_str(&format!("; holds {}", invisible.join(", ")));
    }
    let mut toml = String::new();
    toml.push_str(
        "# REVIEW before committing: the verdict and diagnostics below are the reference's\n",
    );
    toml.push_str(
        "# output when this case was triaged, not yet the spec's word. Check each against the\n",
    );
    toml.push_str("# spec, name the rules the input exercises, then delete these lines.\n");
    toml.push_str(&format!("description = {}\n", toml_string(&description)));
    let quoted: Vec<String> = rules.iter().map(|rule| toml_string(rule)).collect();
    toml.push_str(&format!("rules = [{}]\n", quoted.join(", ")));
    toml.push_str(&format!("verdict = \"{verdict}\"\n"));
    toml.push_str(&format!("input = {}\n", toml_string(&input)));
    for diagnostic in &report.diagnostics {
        toml.push_str("\n[[diagnostic]]\n");
        toml.push_str(&format!("rule = {}\n", toml_string(diagnostic.rule.id)));
        if let Some(pointer) = &diagnostic.location.pointer {
            toml.push_str(&format!("pointer = {}\n", toml_string(pointer)));
        }
        if let Some(position) = diagnostic.location.position {
            toml.push_str(&format!(
                "line = {}\ncolumn = {}\n",
                position.line, position.column
            ));
        }
        if diagnostic.severity != diagnostic.rule.severity {
            toml.push_str(&format!("severity = \"{}\"\n", diagnostic.severity));
        }
    }
    let case_file = dir.join("case.toml");
    std::fs::write(&case_file, toml).map_err(|error| error.to_string())?;
    println!("{}", dir.display());
    Ok(true)
}
