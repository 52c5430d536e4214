//! Generates the reference implementation's rule constants from the rule catalogue
//! (`cases/<format>/rules.toml`, read through the vocabulary crate's typed model), so every
//! rule ID is written down exactly once and a checker that names an uncatalogued rule does
//! not compile. Only the catalogues are watched: editing a case does not rebuild the
//! reference.

use std::fmt::Write as _;
use std::path::Path;

use soulcheck_vocabulary::catalogue::RulesFile;
use soulcheck_vocabulary::{Basis, Format, Severity};

fn main() {
    let cases = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../cases");
    let mut out = String::new();
    for format in Format::ALL {
        let path = cases.join(format.name()).join("rules.toml");
        println!("cargo:rerun-if-changed={}", path.display());
        let text = std::fs::read_to_string(&path)
            .unwrap_or_else(|error| panic!("{}: {error}", path.display()));
        let file =
            RulesFile::parse(&text).unwrap_or_else(|error| panic!("{}: {error}", path.display()));
        assert_eq!(
            file.format,
            format,
            "{} declares another format",
            path.display()
        );
        let module = format.name().replace('-', "_");
        let _ = writeln!(
            out,
            "/// Rules of `{format}`, generated from `cases/{format}/rules.toml`."
        );
        let _ = writeln!(out, "pub mod {module} {{");
        let _ = writeln!(out, "    use super::{{Basis, RuleId, Severity}};");
        let mut names = Vec::new();
        for rule in &file.rules {
            let severity = match rule.severity {
                Severity::Warning => "Warning",
                Severity::Error => "Error",
            };
            let basis = match rule.basis {
                Basis::Spec => "Spec",
                Basis::Upstream => "Upstream",
                Basis::Suite => "Suite",
            };
            let name = rule
                .id
                .strip_prefix(&format!("{format}."))
                .unwrap_or_else(|| panic!("rule {} does not start with {format}.", rule.id))
                .replace(['.', '-'], "_")
                .to_uppercase();
            let _ = writeln!(
                out,
                "    #[doc = {:?}]",
                format!("`{}`: {}", rule.id, rule.requirement)
            );
            let _ = writeln!(
                out,
                "    pub const {name}: RuleId = RuleId {{ id: {:?}, severity: Severity::{severity}, basis: Basis::{basis}, strict: {}, bound: {} }};",
                rule.id,
                rule.strict,
                rule.kind.is_bound(),
            );
            names.push(name);
        }
        let _ = writeln!(out, "    /// Every rule of this format.");
        let _ = writeln!(
            out,
            "    pub const ALL: &[RuleId] = &[{}];",
            names.join(", ")
        );
        let _ = writeln!(out, "}}");
    }
    let target = Path::new(&std::env::var("OUT_DIR").expect("OUT_DIR")).join("rules.rs");
    std::fs::write(target, out).expect("write rules.rs");
}
