//! The formats table at the top of README.md, generated from the catalogue and the
//! corpus so its counts cannot drift.
//!
//! Only the lines between the two markers are generated; the rest of README.md is
//! written by hand and left alone.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

use soulcheck_harness::{Catalogue, Corpus, Format};
use soulcheck_vocabulary::catalogue::RulesFile;

/// The line before the generated table.
pub const START: &str = "<!-- generated: formats table (cargo xtask generate) -->";
/// The line after it.
pub const END: &str = "<!-- end generated -->";

/// What each format is, in the table's words (the one column not derived from data).
fn what(format: Format) -> Option<&'static str> {
    Some(match format {
        Format::SoulKit => "Soul Kit exchange format v1 (`*.soulkit.json`)",
        Format::SkillPackage => {
            "skill package envelope (JSON), a bare `SKILL.md` head, or a skill directory"
        }
        Format::SoulacyPackage => "Soulacy agent package v1/v2 (`*.soulacy-agent.json`)",
        Format::SoulacySidecar => "Soulacy install sidecar (`.soulacy-package.json`)",
        Format::ComposeBundle => "agent-compose bundle (a directory with `manifest.json`)",
        Format::SoulMd => "SOUL.md identity document",
        _ => return None,
    })
}

/// The table, one row per catalogued format: its spec and rule count from
/// `cases/<format>/rules.toml`, its case count and operations from the corpus.
/// `extra_cases` are generated case IDs not (yet) on disk, counted as if they were.
pub fn table(
    cases_dir: &Path,
    extra_cases: &BTreeMap<String, BTreeSet<String>>,
) -> Result<String, String> {
    let catalogue = Catalogue::load(cases_dir).map_err(|error| error.to_string())?;
    let corpus = Corpus::load(cases_dir).map_err(|error| error.to_string())?;
    let mut out = String::from(
        "| format name | what | spec | rules | cases | operations besides `validate` |\n\
         | --- | --- | --- | ---: | ---: | --- |\n",
    );
    for format in Format::ALL {
        if !catalogue.has_format(format) {
            continue;
        }
        let rules_path = cases_dir.join(format.name()).join("rules.toml");
        let rules_text = std::fs::read_to_string(&rules_path)
            .map_err(|error| format!("{}: {error}", rules_path.display()))?;
        let spec = RulesFile::parse(&rules_text)
            .map_err(|error| format!("{}: {error}", rules_path.display()))?
            .spec;
        let mut ids: BTreeSet<&str> = BTreeSet::new();
        let mut operations: BTreeSet<&str> = BTreeSet::new();
        for case in corpus.cases.iter().filter(|case| case.format == format) {
            ids.insert(&case.id);
            if case.operation != "validate" {
                operations.insert(&case.operation);
            }
        }
        if let Some(extra) = extra_cases.get(format.name()) {
            ids.extend(extra.iter().map(String::as_str));
        }
        let operations: Vec<String> = operations.iter().map(|op| format!("`{op}`")).collect();
        let cells = [
            format!("`{}`", format.name()),
            what(format)
                .ok_or_else(|| format!("say what `{format}` is in xtask/src/readme.rs"))?
                .to_owned(),
            spec,
            catalogue.rules_of(format).count().to_string(),
            ids.len().to_string(),
            operations.join(", "),
        ];
        out.push('|');
        for cell in cells {
            if !cell.is_empty() {
                out += &format!(" {cell}");
            }
            out += " |";
        }
        out.push('\n');
    }
    Ok(out)
}

/// README.md with the text between the markers replaced by `table`.
pub fn with_table(readme: &str, table: &str) -> Result<String, String> {
    between_markers(readme, START, END, table)
}

/// `readme` with the text between the lines `start` and `end` replaced by `body` (which
/// ends with its own newline); used for every generated region of README.md.
pub fn between_markers(readme: &str, start: &str, end: &str, body: &str) -> Result<String, String> {
    let from = readme
        .find(start)
        .ok_or_else(|| format!("README.md lacks the line `{start}`"))?
        + start.len();
    let to = readme[from..]
        .find(end)
        .ok_or_else(|| format!("README.md lacks the line `{end}` after `{start}`"))?
        + from;
    Ok(format!("{}\n{body}{}", &readme[..from], &readme[to..]))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_the_text_between_the_markers_changes() {
        let readme = format!("# title\n\n{START}\nold\n{END}\n\nrest\n");
        assert_eq!(
            with_table(&readme, "new\n").unwrap(),
            format!("# title\n\n{START}\nnew\n{END}\n\nrest\n")
        );
    }
}
