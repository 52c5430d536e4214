//! Generates the reference implementation's rule constants from the rule catalogue
//! (`cases/<format>/rules.toml`), so every rule ID is written down exactly once and a
//! checker that names an uncatalogued rule does not compile.

use std::fmt::Write as _;
use std::path::Path;

fn main() {
    let cases = Path::new(env!("CARGO_MANIFEST_DIR")).join("cases");
    println!("cargo:rerun-if-changed={}", cases.display());
    let mut out = String::new();
    let mut formats: Vec<_> = std::fs::read_dir(&cases)
        .map(|entries| {
            entries
                .filter_map(Result::ok)
                .map(|entry| entry.path())
                .collect()
        })
        .unwrap_or_default();
    formats.sort();
    for dir in formats {
        let path = dir.join("rules.toml");
        if !path.is_file() {
            continue;
        }
        println!("cargo:rerun-if-changed={}", path.display());
        let text = std::fs::read_to_string(&path).expect("read rules.toml");
        let table: toml::Table = text
            .parse()
            .unwrap_or_else(|error| panic!("{}: {error}", path.display()));
        let format = table["format"].as_str().expect("format name");
        let module = format.replace('-', "_");
        let _ = writeln!(
            out,
            "/// Rules of `{format}`, generated from `cases/{format}/rules.toml`."
        );
        let _ = writeln!(out, "pub mod {module} {{");
        let _ = writeln!(out, "    use super::{{RuleId, Severity}};");
        let mut names = Vec::new();
        for rule in table
            .get("rule")
            .and_then(|rules| rules.as_array())
            .into_iter()
            .flatten()
        {
            let id = rule["id"].as_str().expect("rule id");
            let requirement = rule["requirement"].as_str().unwrap_or_default();
            let severity = match rule["severity"].as_str() {
                Some("warning") => "Warning",
                _ => "Error",
            };
            let name = id
                .strip_prefix(&format!("{format}."))
                .unwrap_or_else(|| panic!("rule {id} does not start with {format}."))
                .replace(['.', '-'], "_")
                .to_uppercase();
            let _ = writeln!(out, "    #[doc = {:?}]", format!("`{id}`: {requirement}"));
            let _ = writeln!(out, "    pub const {name}: RuleId = RuleId {{ id: {id:?}, severity: Severity::{severity} }};");
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
