//! What both bench targets share: the criterion configuration and the ratio table printed
//! at the end of a run.
//!
//! The table is computed from criterion's own results (`<criterion home>/<group>/<bench>/
//! new/`: the samples and the median estimate), and only from files this process wrote, so
//! every ratio compares measurements of one run on one machine. Absolute times on a shared
//! two-core machine are noisy; the ratios within one group are what the targets are stated
//! in, taken between the fastest samples (load only adds time) with the ratio of medians
//! beside them.

use std::path::PathBuf;
use std::time::{Duration, SystemTime};

use criterion::Criterion;

/// The configuration every group starts from; command-line flags such as
/// `--warm-up-time` and `--measurement-time` override it.
pub fn criterion() -> Criterion {
    Criterion::default()
        .warm_up_time(Duration::from_secs(1))
        .measurement_time(Duration::from_secs(3))
        .sample_size(30)
        .configure_from_args()
}

/// One line of the ratio table: `numerator` divided by `denominator`, both
/// `(group, bench)` paths as criterion names them on disk.
pub struct Ratio {
    /// What the line is about.
    pub label: String,
    /// The measurement on top.
    pub numerator: (String, String),
    /// The measurement below.
    pub denominator: (String, String),
}

impl Ratio {
    /// A ratio of two benches of one group.
    pub fn within(
        label: impl Into<String>,
        group: &str,
        numerator: &str,
        denominator: &str,
    ) -> Ratio {
        Ratio {
            label: label.into(),
            numerator: (group.to_owned(), numerator.to_owned()),
            denominator: (group.to_owned(), denominator.to_owned()),
        }
    }
}

/// Where criterion keeps its results: `$CRITERION_HOME`, else `criterion/` in the target
/// directory (criterion's own order of preference).
fn criterion_home() -> PathBuf {
    if let Some(home) = std::env::var_os("CRITERION_HOME") {
        return PathBuf::from(home);
    }
    let target = std::env::var_os("CARGO_TARGET_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join(".."));
    target.join("criterion")
}

/// What this run measured of one bench, in nanoseconds per iteration: the fastest sample
/// and criterion's median estimate. On a machine shared with other work, load only ever
/// adds time, so the fastest sample is the least disturbed measurement.
struct Measured {
    fastest: f64,
    median: f64,
}

/// Reads one bench's results, when this run wrote them.
fn measured(path: &(String, String), since: SystemTime) -> Option<Measured> {
    let dir = criterion_home().join(&path.0).join(&path.1).join("new");
    let read = |name: &str| -> Option<serde_json::Value> {
        let file = dir.join(name);
        let modified = std::fs::metadata(&file).ok()?.modified().ok()?;
        if modified < since {
            return None;
        }
        serde_json::from_slice(&std::fs::read(&file).ok()?).ok()
    };
    let estimates = read("estimates.json")?;
    let sample = read("sample.json")?;
    let iterations = sample["iters"].as_array()?;
    let times = sample["times"].as_array()?;
    let fastest = iterations
        .iter()
        .zip(times)
        .filter_map(|(iterations, time)| Some(time.as_f64()? / iterations.as_f64()?))
        .fold(f64::INFINITY, f64::min);
    Some(Measured {
        fastest,
        median: estimates["median"]["point_estimate"].as_f64()?,
    })
}

/// A duration in nanoseconds, in a readable unit.
fn human(nanoseconds: f64) -> String {
    if nanoseconds >= 1e6 {
        format!("{:.2} ms", nanoseconds / 1e6)
    } else if nanoseconds >= 1e3 {
        format!("{:.1} µs", nanoseconds / 1e3)
    } else {
        format!("{nanoseconds:.0} ns")
    }
}

/// Prints the ratios this run measured as a Markdown table (nothing when it measured none,
/// as in `--test` or `--list` mode or when a filter left them out).
pub fn print_ratios(title: &str, ratios: &[Ratio], since: SystemTime) {
    let mut rows = Vec::new();
    for ratio in ratios {
        let (Some(top), Some(bottom)) = (
            measured(&ratio.numerator, since),
            measured(&ratio.denominator, since),
        ) else {
            continue;
        };
        rows.push(format!(
            "| {} | {} | {} | {:.2} | {:.2} |",
            ratio.label,
            human(top.fastest),
            human(bottom.fastest),
            top.fastest / bottom.fastest,
            top.median / bottom.median,
        ));
    }
    if rows.is_empty() {
        return;
    }
    println!("\n{title}: numerator and denominator are the fastest samples of this run\n");
    println!("| ratio | numerator | denominator | ratio (fastest) | ratio (median) |");
    println!("| --- | ---: | ---: | ---: | ---: |");
    for row in rows {
        println!("{row}");
    }
}
