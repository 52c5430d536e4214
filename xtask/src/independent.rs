//! The mistakes planted in the independent implementation (`suite/independent`), as
//! docs/corpus-power.md and README's corpus-power line show them: per format, the switches,
//! how many the corpus refuses certification, and which are allowed (they change only
//! implementation-defined cases; each with its reason from
//! `suite/independent/allowed/<format>.toml`). `cargo test -p soulcheck-suite --test
//! independent` certifies every switch against the corpus and fails on a switch that is
//! neither refused nor allowed, or allowed but refused, so what is rendered here holds
//! whenever the suite passes; nothing is left open.

use std::fmt::Write as _;
use std::path::Path;

use soulcheck_independent::{allowed, Format, Mistake};

/// One format's switches.
pub struct Planted {
    /// The format.
    pub format: Format,
    /// Every switch.
    pub mistakes: &'static [Mistake],
    /// The allowed ones, with their reasons.
    pub allowed: Vec<(String, String)>,
}

impl Planted {
    /// Switches the corpus refuses certification (the suite's test holds every other one
    /// to the allowed list).
    pub fn refused(&self) -> usize {
        self.mistakes.len() - self.allowed.len()
    }
}

/// Every format's switches, read from the crate and the allowed lists under `root`.
pub fn planted(root: &Path) -> Result<Vec<Planted>, String> {
    Format::ALL
        .into_iter()
        .map(|format| {
            Ok(Planted {
                format,
                mistakes: format.mistakes(),
                allowed: allowed::load(root, format)?.into_iter().collect(),
            })
        })
        .collect()
}

/// The section of docs/corpus-power.md.
pub fn markdown(planted: &[Planted]) -> String {
    let mut md = String::from(
        "## Mistakes planted in an independent implementation\n\n\
         Mutants of the reference are not the mistakes other people make. \
         `suite/independent` is a second implementation of every format, written from the \
         spec texts and the catalogue, not from the reference, with other readers \
         (serde_json, libyaml, markdown-rs, chrono). Each **switch** plants one mistake an \
         implementer plausibly makes. `cargo test` (`suite/tests/independent.rs`) certifies \
         the clean implementation in both profiles and every switch in the spec profile: \
         **refused** means the corpus refuses it certification; **allowed** means it changes \
         only cases the spec leaves open (its reason below), and the test holds it \
         certified; a switch that is neither fails the test, so none is **open**. \
         `scripts/independent.sh FORMAT` shows the same through `soulcheck run`, with the \
         cases that refuse each switch.\n\n\
         | format | switches | refused | allowed | open |\n| --- | ---: | ---: | ---: | ---: |\n",
    );
    for format in planted {
        let _ = writeln!(
            md,
            "| `{}` | {} | {} | {} | 0 |",
            format.format.name(),
            format.mistakes.len(),
            format.refused(),
            format.allowed.len()
        );
    }
    for format in planted {
        let _ = write!(md, "\n### `{}`\n\n", format.format.name());
        for mistake in format.mistakes {
            let allowed = format
                .allowed
                .iter()
                .find(|(name, _)| name == mistake.name)
                .map(|(_, reason)| format!(" **Allowed**: {reason}"))
                .unwrap_or_default();
            let _ = writeln!(md, "- `{}`: {}{allowed}", mistake.name, mistake.description);
        }
    }
    md
}

/// The clause README's corpus-power line ends with.
pub fn readme_clause(planted: &[Planted]) -> String {
    let switches: usize = planted.iter().map(|format| format.mistakes.len()).sum();
    let refused: usize = planted.iter().map(Planted::refused).sum();
    let allowed = switches - refused;
    let per_format: Vec<String> = planted
        .iter()
        .map(|format| {
            format!(
                "{} {} of {}",
                format.format.name(),
                format.refused(),
                format.mistakes.len()
            )
        })
        .collect();
    format!(
        "Of {switches} mistakes planted one at a time in an independent implementation of \
         every format (`suite/independent`), the corpus refuses certification to {refused} \
         ({}); the other {allowed} change only what the spec leaves open, each listed with \
         its reason.",
        per_format.join(", ")
    )
}
