//! Property tests of the reference: documents that proptest generates valid are accepted,
//! and each targeted single mutation of a valid document (drop a required member, add an
//! unknown key, exceed a bound by one, insert a control character, repeat a key) draws
//! exactly the diagnostics the spec predicts, with the expected rule IDs, so the document
//! is rejected (or, for a should-level rule, accepted with that warning).
//!
//! The documents come from the structure-aware generators of `soulcheck-fuzzing`, the
//! same ones the fuzz targets use; proptest supplies (and shrinks) the bytes that drive
//! their choices, and picks the mutation.

use arbitrary::Unstructured;
use proptest::prelude::*;
use soulcheck_fuzzing::generate::{skill, soul_kit, soul_md, soulacy, Generated};
use soulcheck_reference::{Format, Severity, Verdict};

/// The bytes a generator reads its choices from.
fn choices() -> impl Strategy<Value = Vec<u8>> {
    proptest::collection::vec(any::<u8>(), 0..1536)
}

/// Checks a generated document and holds the reference to the generator's prediction:
/// exactly the predicted diagnostics, and a verdict that follows their severities.
fn holds(format: Format, name: &str, generated: &Generated) -> Result<(), TestCaseError> {
    let report = soulcheck_fuzzing::check(format, name, &generated.bytes)
        .map_err(|violation| TestCaseError::fail(violation.to_string()))?;
    if generated.expected.is_none() {
        return Err(TestCaseError::fail("a targeted mutation must be predicted"));
    }
    // Exactly the predicted diagnostics in the spec profile, and in the strict profile too
    // when the mutation is one only a strict-only rule refuses.
    soulcheck_fuzzing::holds(format, name, generated, &report)
        .map_err(|violation| TestCaseError::fail(format!("{}: {violation}", generated.summary)))?;
    let errors = report
        .diagnostics
        .iter()
        .any(|diagnostic| diagnostic.severity == Severity::Error);
    prop_assert_eq!(
        report.verdict(),
        if errors {
            Verdict::Reject
        } else {
            Verdict::Accept
        }
    );
    Ok(())
}

/// Generates with `make`, skipping inputs the generator cannot use (a mutation with
/// nothing to mutate).
fn generated(
    data: &[u8],
    make: impl FnOnce(&mut Unstructured<'_>) -> arbitrary::Result<Generated>,
) -> Result<Generated, TestCaseError> {
    make(&mut Unstructured::new(data)).map_err(|_| TestCaseError::reject("generator declined"))
}

fn soul_kit(data: &[u8], mutation: soul_kit::Mutation) -> Result<(), TestCaseError> {
    let document = generated(data, |u| soul_kit::generate_with(u, mutation))?;
    holds(Format::SoulKit, "input.soulkit.json", &document)
}

fn soulacy_package(data: &[u8], mutation: soulacy::Mutation) -> Result<(), TestCaseError> {
    let document = generated(data, |u| {
        soulacy::generate_with(u, soulacy::Document::Package, true, mutation)
    })?;
    holds(
        Format::SoulacyPackage,
        "input.soulacy-agent.json",
        &document,
    )
}

fn soul_md(data: &[u8], mutation: soul_md::Mutation) -> Result<(), TestCaseError> {
    let document = generated(data, |u| soul_md::generate_with(u, mutation))?;
    holds(Format::SoulMd, "SOUL.md", &document)
}

fn skill_package(data: &[u8], mutation: skill::Mutation) -> Result<(), TestCaseError> {
    let document = generated(data, |u| skill::generate_with(u, mutation))?;
    holds(Format::SkillPackage, "package.json", &document)
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 48, ..ProptestConfig::default() })]

    #[test]
    fn soul_kit_valid_documents_are_accepted(data in choices()) {
        soul_kit(&data, soul_kit::Mutation::None)?;
    }

    #[test]
    fn soul_kit_dropping_a_required_member_is_field_required(data in choices()) {
        soul_kit(&data, soul_kit::Mutation::DropRequired)?;
    }

    #[test]
    fn soul_kit_an_unknown_key_is_object_unknown_key(data in choices()) {
        soul_kit(&data, soul_kit::Mutation::UnknownKey)?;
    }

    #[test]
    fn soul_kit_a_string_one_past_its_bound_breaks_its_length_rule(data in choices()) {
        soul_kit(&data, soul_kit::Mutation::LengthPlusOne)?;
    }

    #[test]
    fn soul_kit_an_array_one_off_its_count_breaks_its_count_rule(data in choices()) {
        soul_kit(&data, soul_kit::Mutation::CountOffByOne)?;
    }

    #[test]
    fn soul_kit_a_control_character_is_string_control(data in choices()) {
        soul_kit(&data, soul_kit::Mutation::ControlCharacter)?;
    }

    #[test]
    fn soul_kit_a_repeated_key_is_json_duplicate_key(data in choices()) {
        soul_kit(&data, soul_kit::Mutation::DuplicateKey)?;
    }

    #[test]
    fn soul_kit_other_targeted_mutations_draw_their_rule(
        data in choices(),
        mutation in prop::sample::select(vec![
            soul_kit::Mutation::WrongType,
            soul_kit::Mutation::Marker,
            soul_kit::Mutation::Invisible,
            soul_kit::Mutation::BadValue,
            soul_kit::Mutation::RawControl,
        ]),
    ) {
        soul_kit(&data, mutation)?;
    }

    #[test]
    fn soulacy_v2_valid_packages_are_accepted(data in choices()) {
        soulacy_package(&data, soulacy::Mutation::None)?;
    }

    #[test]
    fn soulacy_v2_dropping_a_required_member_is_field_required(data in choices()) {
        soulacy_package(&data, soulacy::Mutation::DropRequired)?;
    }

    #[test]
    fn soulacy_v2_an_unknown_key_warns_object_unknown_key(data in choices()) {
        soulacy_package(&data, soulacy::Mutation::UnknownKey)?;
    }

    #[test]
    fn soulacy_v2_a_package_id_part_one_too_long_breaks_its_rule(data in choices()) {
        soulacy_package(&data, soulacy::Mutation::LengthPlusOne)?;
    }

    #[test]
    fn soulacy_v2_a_raw_control_character_is_json_syntax(data in choices()) {
        soulacy_package(&data, soulacy::Mutation::RawControl)?;
    }

    #[test]
    fn soulacy_v2_a_repeated_key_is_json_duplicate_key(data in choices()) {
        soulacy_package(&data, soulacy::Mutation::DuplicateKey)?;
    }

    #[test]
    fn soulacy_v2_other_targeted_mutations_draw_their_rule(
        data in choices(),
        mutation in prop::sample::select(vec![
            soulacy::Mutation::WrongType,
            soulacy::Mutation::BadValue,
        ]),
    ) {
        soulacy_package(&data, mutation)?;
    }

    #[test]
    fn soul_md_valid_documents_are_accepted(data in choices()) {
        soul_md(&data, soul_md::Mutation::None)?;
    }

    #[test]
    fn soul_md_dropping_the_title_or_a_section_draws_its_rule(
        data in choices(),
        mutation in prop::sample::select(vec![
            soul_md::Mutation::DropTitle,
            soul_md::Mutation::DropSection,
        ]),
    ) {
        soul_md(&data, mutation)?;
    }

    #[test]
    fn soul_md_responsibilities_one_off_their_count_warn(data in choices()) {
        soul_md(&data, soul_md::Mutation::CountOffByOne)?;
    }

    #[test]
    fn soul_md_a_byte_that_is_not_utf8_is_encoding_utf8(data in choices()) {
        soul_md(&data, soul_md::Mutation::InvalidUtf8)?;
    }

    #[test]
    fn soul_md_a_repeated_section_is_section_duplicate(data in choices()) {
        soul_md(&data, soul_md::Mutation::DuplicateSection)?;
    }

    #[test]
    fn soul_md_other_targeted_mutations_draw_their_rule(
        data in choices(),
        mutation in prop::sample::select(vec![
            soul_md::Mutation::NotNumbered,
            soul_md::Mutation::NoBullets,
            soul_md::Mutation::TraitWithoutLabel,
            soul_md::Mutation::Frontmatter,
            soul_md::Mutation::SecondTitle,
            soul_md::Mutation::SectionLevel,
            soul_md::Mutation::Size,
        ]),
    ) {
        soul_md(&data, mutation)?;
    }

    #[test]
    fn skill_package_valid_envelopes_are_accepted(data in choices()) {
        skill_package(&data, skill::Mutation::None)?;
    }

    #[test]
    fn skill_package_targeted_mutations_draw_their_rule(
        data in choices(),
        mutation in prop::sample::select(vec![
            skill::Mutation::LengthPlusOne,
            skill::Mutation::DropField,
            skill::Mutation::UnknownKey,
            skill::Mutation::DuplicateKey,
            skill::Mutation::BadPath,
            skill::Mutation::DuplicatePath,
            skill::Mutation::RawControl,
        ]),
    ) {
        skill_package(&data, mutation)?;
    }
}
