//! What both bench targets share: the criterion configuration and the ratio table printed
//! at the end of a run.
//!
//! The table is computed from criterion's own estimates (`<criterion home>/<group>/<bench>/
//! new/estimates.json`, median point estimates), and only from files this process wrote,
//! so every ratio compares measurements of one run on one machine. Absolute times on a
//! shared two-core machine are noisy; the ratios within one group are what the targets are
//! stated in.

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

/// The median estimate, in nanoseconds, of one bench, when this run measured it.
fn median(path: &(String, String), since: SystemTime) -> Option<f64> {
    let file = criterion_home()
        .join(&path.0)
        .join(&path.1)
        .join("new")
        .join("estimates.json");
    let modified = std::fs::metadata(&file).ok()?.modified().ok()?;
    if modified < since {
        return None;
    }
    let estimates: serde_json::Value = serde_json::from_slice(&std::fs::read(&file).ok()?).ok()?;
    estimates["median"]["point_estimate"].as_f64()
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
            median(&ratio.numerator, since),
            median(&ratio.denominator, since),
        ) else {
            continue;
        };
        rows.push(format!(
            "| {} | {} | {} | {:.2} |",
            ratio.label,
            human(top),
            human(bottom),
            top / bottom
        ));
    }
    if rows.is_empty() {
        return;
    }
    println!("\n{title} (median times of this run)\n");
    println!("| ratio | numerator | denominator | ratio |");
    println!("| --- | ---: | ---: | ---: |");
    for row in rows {
        println!("{row}");
    }
}
