//! manifest.json: what was composed and where the entry points are ("Bundle manifest
//! schema"). The manifest is open: members the spec does not name are ignored (agent-compose
//! writes several of its own), and a retired `model_class` is ignored whatever it holds.

use std::collections::HashSet;

use serde_json::{Map, Value};

use super::names;
use super::tree::{Kind, Tree};
use super::{json, Planted, Run, MAX_JSON_BYTES};

const MANIFEST: &str = "/manifest.json";

/// The spec's names at each level of the manifest, for the strict letter-case test
/// (compose-bundle.json.key-case).
const TOP_NAMES: &[&str] = &[
    "format",
    "role",
    "role_skill",
    "role_skill_source",
    "role_skill_digest",
    "model_tier",
    "model_class",
    "personalities",
    "boundaries",
    "color",
    "identity",
    "sources",
    "content",
    "delivery",
];
const DELIVERY_NAMES: &[&str] = &[
    "mode",
    "instructions",
    "skills_root",
    "compiled_context",
    "voice_profile",
];
const IDENTITY_NAMES: &[&str] = &["display_name"];
const CONTENT_NAMES: &[&str] = &["id", "digest"];

/// The delivery modes agent-compose writes (compose-bundle.delivery.mode).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Mode {
    /// `native-skills`: instructions and skills_root.
    Native,
    /// `compiled`: instructions and compiled_context.
    Compiled,
}

/// What the trace and the voice profile need from the manifest. A member is `None` when it
/// is missing or of the wrong type (already reported), so the checks that need it are
/// skipped rather than repeated.
#[derive(Debug, Default)]
pub(crate) struct Facts {
    pub(crate) role: Option<String>,
    pub(crate) personalities: Option<Vec<String>>,
    pub(crate) boundaries: Option<Vec<String>>,
    pub(crate) sources: Option<Vec<String>>,
    pub(crate) mode: Option<Mode>,
    /// skills_root, when it is a safe path (its existence is judged on its own).
    pub(crate) skills_root: Option<String>,
    /// voice_profile, when it is a safe path naming a regular file of the bundle.
    pub(crate) voice_profile: Option<String>,
}

/// compose-bundle.manifest.present and every manifest rule. `None` when there is no
/// manifest object to judge.
pub(crate) fn check(run: &mut Run<'_>, tree: &Tree) -> Option<Facts> {
    let Some(entry) = tree.entries.get("manifest.json") else {
        run.error(
            "compose-bundle.manifest.present",
            MANIFEST,
            "the bundle has no manifest.json",
        );
        return None;
    };
    if entry.kind != Kind::File {
        // A symlink is never followed and a FIFO never opened.
        run.error(
            "compose-bundle.manifest.present",
            MANIFEST,
            "manifest.json is not a regular file",
        );
        return None;
    }
    let bytes = match tree.read(entry, MAX_JSON_BYTES) {
        Ok(bytes) => bytes,
        Err(error) => {
            run.error("compose-bundle.manifest.present", MANIFEST, error);
            return None;
        }
    };
    let value = json::read(run, MANIFEST, &bytes)?;
    let Value::Object(object) = value else {
        if !run.on(Planted::ManifestNonObjectSkipped) {
            run.error(
                "compose-bundle.manifest.present",
                MANIFEST,
                "manifest.json does not hold a JSON object",
            );
        }
        return None;
    };
    let mut facts = Facts::default();
    let mut judge = Judge {
        run,
        object: &object,
    };
    judge.key_case(&object, MANIFEST, TOP_NAMES);
    judge.format_marker();
    facts.role = judge.role_and_skill();
    judge.role_skill_source();
    judge.role_skill_digest();
    judge.model_tier();
    facts.personalities = judge.personalities();
    facts.boundaries = judge.boundaries();
    judge.color();
    facts.sources = judge.sources();
    judge.content();
    judge.identity();
    judge.delivery(tree, &mut facts);
    Some(facts)
}

/// The manifest object under judgement.
struct Judge<'r, 'a, 'm> {
    run: &'r mut Run<'a>,
    object: &'m Map<String, Value>,
}

/// How a member that should be a string turned out.
enum Text<'m> {
    Absent,
    Present(&'m str),
    /// Present with another JSON type (null included); already reported.
    WrongType,
}

impl<'m> Judge<'_, '_, 'm> {
    /// compose-bundle.field.type: the member `key` of `object` is a string when present.
    fn text_in(&mut self, object: &'m Map<String, Value>, key: &str, base: &str) -> Text<'m> {
        match object.get(key) {
            None => Text::Absent,
            Some(Value::String(text)) => Text::Present(text),
            Some(_) => {
                self.run.error(
                    "compose-bundle.field.type",
                    &pointer(base, key),
                    "not a string",
                );
                Text::WrongType
            }
        }
    }

    /// compose-bundle.field.required and field.type: a required string member.
    fn required_text_in(
        &mut self,
        object: &'m Map<String, Value>,
        key: &str,
        base: &str,
    ) -> Option<&'m str> {
        match self.text_in(object, key, base) {
            Text::Present(text) => Some(text),
            Text::WrongType => None,
            Text::Absent => {
                self.run.error(
                    "compose-bundle.field.required",
                    &pointer(base, key),
                    "a required member is missing",
                );
                None
            }
        }
    }

    fn required_text(&mut self, key: &str) -> Option<&'m str> {
        self.required_text_in(self.object, key, MANIFEST)
    }

    /// An array of strings (personalities, boundaries, sources): compose-bundle.field.type.
    /// `Ok(None)` when absent; a string passes as a one-item list under `as_list`.
    fn string_list(
        &mut self,
        key: &str,
        as_list: Option<Planted>,
    ) -> Result<Option<Vec<&'m str>>, ()> {
        let at = pointer(MANIFEST, key);
        match self.object.get(key) {
            None => Ok(None),
            Some(Value::String(text)) if as_list.is_some_and(|mistake| self.run.on(mistake)) => {
                Ok(Some(vec![text.as_str()]))
            }
            Some(Value::Array(items)) => {
                let mut list = Vec::with_capacity(items.len());
                let mut typed = true;
                for (index, item) in items.iter().enumerate() {
                    match item {
                        Value::String(text) => list.push(text.as_str()),
                        _ => {
                            self.run.error(
                                "compose-bundle.field.type",
                                &format!("{at}/{index}"),
                                "not a string",
                            );
                            typed = false;
                        }
                    }
                }
                if typed {
                    Ok(Some(list))
                } else {
                    Err(())
                }
            }
            Some(_) => {
                self.run
                    .error("compose-bundle.field.type", &at, "not an array of strings");
                Err(())
            }
        }
    }

    /// A name or id: compose-bundle.string.value (not empty), and in the strict profile
    /// string.blank (visible) and string.control (no control character).
    fn name(&mut self, at: &str, name: &str) {
        if name.is_empty() {
            if !self.run.on(Planted::EmptyNamesAllowed) {
                self.run
                    .error("compose-bundle.string.value", at, "the value is empty");
            }
            return;
        }
        if self.run.strict() {
            if names::is_blank(name) {
                self.run.error(
                    "compose-bundle.string.blank",
                    at,
                    "the value shows nothing: whitespace or invisible characters only",
                );
            }
            if names::has_control(name) {
                self.run.error(
                    "compose-bundle.string.control",
                    at,
                    "a control character in a name",
                );
            }
        }
    }

    /// compose-bundle.id.locator: sources, role_skill_source and content ids are stable
    /// ids, never locators or filesystem paths.
    fn stable_id(&mut self, at: &str, id: &str) {
        if let Some(problem) = names::locator_problem(self.run, id) {
            self.run.error("compose-bundle.id.locator", at, problem);
        }
    }

    /// compose-bundle.json.key-case (strict): no member name equals one of the spec's names
    /// except in ASCII letter case.
    fn key_case(&mut self, object: &Map<String, Value>, base: &str, spec_names: &[&str]) {
        if !self.run.strict() {
            return;
        }
        for key in object.keys() {
            let variant = spec_names
                .iter()
                .any(|name| key != name && key.eq_ignore_ascii_case(name));
            if variant {
                self.run.error(
                    "compose-bundle.json.key-case",
                    &pointer(base, key),
                    "a member named like one of the spec's except in letter case",
                );
            }
        }
    }

    /// compose-bundle.format.marker: the example's `"format": "agent-compose.bundle"`
    /// ("format is a plain marker").
    fn format_marker(&mut self) {
        let at = pointer(MANIFEST, "format");
        match self.text_in(self.object, "format", MANIFEST) {
            Text::Present("agent-compose.bundle") | Text::WrongType => {}
            Text::Present(other)
                if self.run.on(Planted::FormatMarkerCaseInsensitive)
                    && other.eq_ignore_ascii_case("agent-compose.bundle") => {}
            Text::Absent if self.run.on(Planted::FormatMarkerOptional) => {}
            Text::Absent => self.run.error(
                "compose-bundle.format.marker",
                &at,
                "no format marker `agent-compose.bundle`",
            ),
            Text::Present(other) => self.run.error(
                "compose-bundle.format.marker",
                &at,
                format!("format is `{other}`, not `agent-compose.bundle`"),
            ),
        }
    }

    /// role and role_skill: both required names, and compose-bundle.role-skill.binding
    /// ("role_skill, role_skill_source, and role_skill_digest bind the role identity to its
    /// canonical doctrine"; agent-compose's one shape): role_skill is `role-` + role.
    /// Returns the role.
    fn role_and_skill(&mut self) -> Option<String> {
        let role = self.required_text("role");
        if let Some(role) = role {
            self.name(&pointer(MANIFEST, "role"), role);
        }
        let role_skill = self.required_text("role_skill");
        if let Some(role_skill) = role_skill {
            let at = pointer(MANIFEST, "role_skill");
            self.name(&at, role_skill);
            if let Some(role) = role {
                if !self.bound(role, role_skill) {
                    self.run.error(
                        "compose-bundle.role-skill.binding",
                        &at,
                        format!("role_skill is not `role-{role}`"),
                    );
                }
            }
        }
        role.map(str::to_owned)
    }

    /// Whether role_skill binds role (exactly, unless a planted mistake loosens it).
    fn bound(&self, role: &str, role_skill: &str) -> bool {
        let expected = format!("role-{role}");
        if self.run.on(Planted::RoleSkillPrefixOnly) {
            role_skill.starts_with("role-")
        } else if self.run.on(Planted::RoleSkillBindingTrimmed) {
            role_skill.trim() == expected.trim()
                || role_skill.trim() == format!("role-{}", role.trim())
        } else if self.run.on(Planted::RoleSkillBindingCaseInsensitive) {
            role_skill.to_lowercase() == expected.to_lowercase()
        } else {
            role_skill == expected
        }
    }

    fn role_skill_source(&mut self) {
        let at = pointer(MANIFEST, "role_skill_source");
        let source = if self.run.on(Planted::RoleSkillSourceOptional) {
            match self.text_in(self.object, "role_skill_source", MANIFEST) {
                Text::Present(text) => Some(text),
                _ => None,
            }
        } else {
            self.required_text("role_skill_source")
        };
        if let Some(source) = source {
            self.name(&at, source);
            if !self.run.on(Planted::RoleSkillSourceLocatorUnchecked) {
                self.stable_id(&at, source);
            }
        }
    }

    /// compose-bundle.digest.syntax for role_skill_digest.
    fn role_skill_digest(&mut self) {
        let Some(digest) = self.required_text("role_skill_digest") else {
            return;
        };
        if self.run.on(Planted::RoleSkillDigestPresenceOnly) {
            return;
        }
        if let Some(problem) = names::digest_problem(self.run, digest, false) {
            self.run.error(
                "compose-bundle.digest.syntax",
                &pointer(MANIFEST, "role_skill_digest"),
                problem,
            );
        }
    }

    /// compose-bundle.model-tier.value ("model_tier records the caller's frontier,
    /// commodity, or oss compatibility lane"; "A manifest from before the tier field is read
    /// as frontier"): one of the three when present; a manifest without it is read as
    /// frontier. compose-bundle.model-class.ignored: a
    /// retired model_class is never read.
    fn model_tier(&mut self) {
        let mut key = "model_tier";
        if !self.object.contains_key(key)
            && self.run.on(Planted::ModelClassReadAsTier)
            && self.object.contains_key("model_class")
        {
            key = "model_class";
        }
        let at = pointer(MANIFEST, key);
        let tier = match self.text_in(self.object, key, MANIFEST) {
            Text::Present(tier) => tier,
            Text::WrongType => return,
            Text::Absent => {
                if self.run.on(Planted::ModelTierRequired) {
                    self.run.error(
                        "compose-bundle.model-tier.value",
                        &at,
                        "model_tier is missing",
                    );
                }
                return;
            }
        };
        let lanes = ["frontier", "commodity", "oss"];
        let known = if self.run.on(Planted::ModelTierCaseInsensitive) {
            lanes.iter().any(|lane| lane.eq_ignore_ascii_case(tier))
        } else {
            lanes.contains(&tier)
        };
        let empty_read_as_absent = tier.is_empty() && self.run.on(Planted::ModelTierEmptyAsAbsent);
        if !known && !empty_read_as_absent {
            self.run.error(
                "compose-bundle.model-tier.value",
                &at,
                format!("`{tier}` is not a lane: frontier, commodity or oss"),
            );
        }
    }

    /// compose-bundle.personalities.list ("personalities preserves the role's declaration
    /// order"; agent-compose's checks): a non-empty array of distinct safe segments, any
    /// order kept.
    fn personalities(&mut self) -> Option<Vec<String>> {
        let at = pointer(MANIFEST, "personalities");
        let list =
            match self.string_list("personalities", Some(Planted::PersonalitiesStringAccepted)) {
                Ok(Some(list)) => list,
                Ok(None) => {
                    self.run.error(
                        "compose-bundle.field.required",
                        &at,
                        "a required member is missing",
                    );
                    return None;
                }
                Err(()) => return None,
            };
        if list.is_empty() && !self.run.on(Planted::PersonalitiesEmptyAllowed) {
            self.run.error(
                "compose-bundle.personalities.list",
                &at,
                "a seat has at least one personality",
            );
        }
        let mut seen = HashSet::new();
        for (index, personality) in list.iter().enumerate() {
            let item = format!("{at}/{index}");
            self.name(&item, personality);
            if personality.is_empty() {
                continue;
            }
            if let Some(problem) = names::segment_problem(self.run, personality) {
                self.run
                    .error("compose-bundle.personalities.list", &item, problem);
            }
            if !seen.insert(*personality) && !self.run.on(Planted::PersonalitiesDuplicatesAllowed) {
                self.run.error(
                    "compose-bundle.personalities.list",
                    &item,
                    "a personality listed twice",
                );
            }
        }
        Some(list.into_iter().map(str::to_owned).collect())
    }

    /// boundaries: optional, an array of non-empty names.
    fn boundaries(&mut self) -> Option<Vec<String>> {
        let at = pointer(MANIFEST, "boundaries");
        let list = match self.string_list("boundaries", None) {
            Ok(list) => list.unwrap_or_default(),
            Err(()) => return None,
        };
        for (index, boundary) in list.iter().enumerate() {
            self.name(&format!("{at}/{index}"), boundary);
        }
        Some(list.into_iter().map(str::to_owned).collect())
    }

    /// compose-bundle.color.format ("color is their melded favorite", written `#90a66a`):
    /// `#` and six hex digits; in the strict profile,
    /// compose-bundle.color.legible warns outside the terminal-legible band.
    fn color(&mut self) {
        let at = pointer(MANIFEST, "color");
        let Some(color) = self.required_text("color") else {
            return;
        };
        let well_formed = if self.run.on(Planted::ColorUnanchored) {
            color
                .char_indices()
                .any(|(index, _)| six_hex_after_hash(&color[index..]).is_some())
        } else {
            let three = self.run.on(Planted::ColorThreeDigitAccepted)
                && color.len() == 4
                && color.starts_with('#')
                && color[1..].bytes().all(|b| b.is_ascii_hexdigit());
            three || (color.len() == 7 && six_hex_after_hash(color).is_some())
        };
        if !well_formed {
            self.run.error(
                "compose-bundle.color.format",
                &at,
                format!("`{color}` is not `#` and six hex digits"),
            );
            return;
        }
        if self.run.strict() {
            if let Some(rgb) = six_hex_after_hash(color) {
                if !legible(rgb) {
                    self.run.warning(
                        "compose-bundle.color.legible",
                        &at,
                        "outside the terminal-legible band (OKLab lightness 0.60 to 0.80, chroma at least 0.05)",
                    );
                }
            }
        }
    }

    /// compose-bundle.sources.list ("sources records which places content came from, by
    /// stable id"): a non-empty array of distinct stable ids.
    fn sources(&mut self) -> Option<Vec<String>> {
        let at = pointer(MANIFEST, "sources");
        let list = match self.string_list("sources", Some(Planted::SourcesStringAccepted)) {
            Ok(Some(list)) => list,
            Ok(None) => {
                self.run.error(
                    "compose-bundle.field.required",
                    &at,
                    "a required member is missing",
                );
                return None;
            }
            Err(()) => return None,
        };
        if list.is_empty() {
            self.run.error(
                "compose-bundle.sources.list",
                &at,
                "sources records at least the place the role skill came from",
            );
        }
        let mut seen = HashSet::new();
        for (index, source) in list.iter().enumerate() {
            let item = format!("{at}/{index}");
            self.name(&item, source);
            self.stable_id(&item, source);
            // A repeated source: the spec does not forbid it and agent-compose accepts it;
            // the strict profile refuses it (compose-bundle.sources.distinct).
            let refused = self.run.strict() || self.run.on(Planted::RepeatedSourceRefused);
            if !seen.insert(*source) && refused {
                self.run.error(
                    "compose-bundle.sources.distinct",
                    &item,
                    "a source listed twice",
                );
            }
        }
        Some(list.into_iter().map(str::to_owned).collect())
    }

    /// compose-bundle.content.list and content.unique ("content records the effective
    /// logical role skill and methods ..."; "unique logical content IDs with SHA-256
    /// digests"): a non-empty array of objects with a stable id and a digest, no id twice.
    fn content(&mut self) {
        let at = pointer(MANIFEST, "content");
        let entries = match self.object.get("content") {
            None => {
                self.run.error(
                    "compose-bundle.field.required",
                    &at,
                    "a required member is missing",
                );
                return;
            }
            Some(Value::String(text))
                if self.run.on(Planted::ContentStringAccepted) && !text.is_empty() =>
            {
                return;
            }
            Some(Value::Array(entries)) => entries,
            Some(_) => {
                self.run
                    .error("compose-bundle.field.type", &at, "not an array of objects");
                return;
            }
        };
        if entries.is_empty() && !self.run.on(Planted::ContentEmptyAllowed) {
            self.run.error(
                "compose-bundle.content.list",
                &at,
                "content records at least the role skill",
            );
        }
        let mut seen = HashSet::new();
        for (index, entry) in entries.iter().enumerate() {
            let base = format!("{at}/{index}");
            let Value::Object(entry) = entry else {
                self.run.error(
                    "compose-bundle.content.list",
                    &base,
                    "a content entry is an object with an id and a digest",
                );
                continue;
            };
            self.key_case(entry, &base, CONTENT_NAMES);
            if let Some(id) = self.required_text_in(entry, "id", &base) {
                let id_at = pointer(&base, "id");
                self.name(&id_at, id);
                if !self.run.on(Planted::ContentIdLocatorUnchecked) {
                    self.stable_id(&id_at, id);
                }
                let key = if self.run.on(Planted::ContentIdUniqueCaseInsensitive) {
                    id.to_lowercase()
                } else {
                    id.to_owned()
                };
                if !seen.insert(key) && !self.run.on(Planted::ContentIdsNotUnique) {
                    self.run.error(
                        "compose-bundle.content.unique",
                        &id_at,
                        "a content id recorded twice",
                    );
                }
            }
            if let Some(digest) = self.required_text_in(entry, "digest", &base) {
                if let Some(problem) = names::digest_problem(self.run, digest, true) {
                    self.run.error(
                        "compose-bundle.digest.syntax",
                        &pointer(&base, "digest"),
                        problem,
                    );
                }
            }
        }
    }

    /// identity: an object when present, display_name a string (compose-bundle.field.type);
    /// in the strict profile compose-bundle.identity.display-name requires a visible one.
    fn identity(&mut self) {
        let at = pointer(MANIFEST, "identity");
        let identity = match self.object.get("identity") {
            None => None,
            Some(Value::Object(identity)) => Some(identity),
            Some(_) => {
                self.run
                    .error("compose-bundle.field.type", &at, "not an object");
                return;
            }
        };
        let display_name = match identity {
            Some(identity) => {
                self.key_case(identity, &at, IDENTITY_NAMES);
                match self.text_in(identity, "display_name", &at) {
                    Text::Present(name) => Some(name),
                    Text::WrongType => return,
                    Text::Absent => None,
                }
            }
            None => None,
        };
        if !self.run.strict() {
            return;
        }
        let name_at = pointer(&at, "display_name");
        match display_name {
            Some(name) if !names::is_blank(name) => {
                if names::has_control(name) {
                    self.run.error(
                        "compose-bundle.string.control",
                        &name_at,
                        "a control character in the display name",
                    );
                }
            }
            _ => self.run.error(
                "compose-bundle.identity.display-name",
                &name_at,
                "no visible identity.display_name to label the seat with",
            ),
        }
    }

    /// delivery: compose-bundle.delivery.mode, delivery.complete ("complete delivery
    /// data") and the entry points: entry.safe-path ("safe relative entry points"),
    /// entry.exists ("Every named entry point must exist inside the bundle") and entry.kind
    /// ("regular files and directories only").
    fn delivery(&mut self, tree: &Tree, facts: &mut Facts) {
        let at = pointer(MANIFEST, "delivery");
        let delivery = match self.object.get("delivery") {
            None => {
                self.run.error(
                    "compose-bundle.field.required",
                    &at,
                    "a required member is missing",
                );
                return;
            }
            Some(Value::Object(delivery)) => delivery,
            Some(_) => {
                self.run
                    .error("compose-bundle.field.type", &at, "not an object");
                return;
            }
        };
        self.key_case(delivery, &at, DELIVERY_NAMES);
        facts.mode = self.mode(delivery, &at);
        let named = |judge: &mut Self, key: &str| match judge.text_in(delivery, key, &at) {
            Text::Present(path) => Some(Some(path)),
            Text::Absent => Some(None),
            Text::WrongType => None,
        };
        let instructions = named(self, "instructions");
        let skills_root = named(self, "skills_root");
        let compiled_context = named(self, "compiled_context");
        let voice_profile = named(self, "voice_profile");
        if let Some(mode) = facts.mode {
            self.complete(mode, &at, instructions, skills_root, compiled_context);
        }
        if let Some(Some(path)) = instructions {
            self.entry_point(tree, &pointer(&at, "instructions"), path, Kind::File);
        }
        if let Some(Some(path)) = compiled_context {
            self.entry_point(tree, &pointer(&at, "compiled_context"), path, Kind::File);
        }
        if let Some(Some(path)) = skills_root {
            facts.skills_root =
                self.entry_point(tree, &pointer(&at, "skills_root"), path, Kind::Dir);
        }
        if let Some(Some(path)) = voice_profile {
            if !self.run.on(Planted::VoiceProfileUnchecked) {
                let found =
                    self.entry_point(tree, &pointer(&at, "voice_profile"), path, Kind::File);
                facts.voice_profile = found.filter(|found| {
                    tree.find(self.run, found)
                        .is_some_and(|entry| entry.kind == Kind::File)
                });
            }
        }
    }

    /// compose-bundle.delivery.mode: `native-skills` or `compiled`.
    fn mode(&mut self, delivery: &'m Map<String, Value>, at: &str) -> Option<Mode> {
        let mode = self.required_text_in(delivery, "mode", at)?;
        let folded = if self.run.on(Planted::DeliveryModeCaseInsensitive) {
            mode.to_ascii_lowercase()
        } else {
            mode.to_owned()
        };
        match folded.as_str() {
            "native-skills" => Some(Mode::Native),
            "compiled" => Some(Mode::Compiled),
            _ => {
                self.run.error(
                    "compose-bundle.delivery.mode",
                    &pointer(at, "mode"),
                    format!("`{mode}` is not a delivery mode: native-skills or compiled"),
                );
                None
            }
        }
    }

    /// compose-bundle.delivery.complete: native names instructions and skills_root and no
    /// compiled_context; compiled names instructions and compiled_context and no
    /// skills_root. `None` for a member of the wrong type (already reported).
    fn complete(
        &mut self,
        mode: Mode,
        at: &str,
        instructions: Option<Option<&str>>,
        skills_root: Option<Option<&str>>,
        compiled_context: Option<Option<&str>>,
    ) {
        let (needed, refused, needed_key, refused_key) = match mode {
            Mode::Native => (
                skills_root,
                compiled_context,
                "skills_root",
                "compiled_context",
            ),
            Mode::Compiled => (
                compiled_context,
                skills_root,
                "compiled_context",
                "skills_root",
            ),
        };
        for (member, key) in [(instructions, "instructions"), (needed, needed_key)] {
            if member == Some(None) {
                self.run.error(
                    "compose-bundle.delivery.complete",
                    &pointer(at, key),
                    "the mode's entry point is not named",
                );
            }
        }
        if matches!(refused, Some(Some(_))) && !self.run.on(Planted::OtherModeEntryAllowed) {
            self.run.error(
                "compose-bundle.delivery.complete",
                &pointer(at, refused_key),
                "an entry point of the other delivery mode",
            );
        }
    }

    /// One entry point: compose-bundle.entry.safe-path, then entry.exists and entry.kind
    /// against the walk. Returns the path as looked up when it is safe.
    fn entry_point(&mut self, tree: &Tree, at: &str, path: &str, kind: Kind) -> Option<String> {
        let path = match safe_relative_path(self.run, path) {
            Ok(path) => path,
            Err(problem) => {
                // An unsafe entry point is reported and never resolved.
                self.run
                    .error("compose-bundle.entry.safe-path", at, problem);
                return None;
            }
        };
        match tree.find(self.run, &path) {
            None => self.run.error(
                "compose-bundle.entry.exists",
                at,
                format!("`{path}` does not exist inside the bundle"),
            ),
            Some(entry) if entry.kind != kind && !self.run.on(Planted::EntryKindUnchecked) => {
                let wanted = if kind == Kind::Dir {
                    "a directory"
                } else {
                    "a regular file"
                };
                self.run.error(
                    "compose-bundle.entry.kind",
                    at,
                    format!("`{path}` is not {wanted}"),
                );
            }
            Some(_) => {}
        }
        Some(path)
    }
}

/// compose-bundle.entry.safe-path (agent-compose's fs.ValidPath reading): non-empty,
/// `/`-separated, not absolute, no drive prefix, no backslash, no empty, `.` or `..`
/// segment, no control character. Returns the path to look up.
fn safe_relative_path(run: &Run<'_>, path: &str) -> Result<String, &'static str> {
    if path.is_empty() {
        return Err("an empty entry point names nothing");
    }
    if path.chars().any(char::is_control) {
        return Err("a control character in an entry point");
    }
    let path = if run.on(Planted::EntryBackslashNormalized) {
        path.replace('\\', "/")
    } else if path.contains('\\') {
        return Err("a backslash in an entry point");
    } else {
        path.to_owned()
    };
    if path.starts_with('/') {
        return Err("an absolute entry point");
    }
    if names::has_drive_prefix(&path) {
        return Err("an entry point with a drive prefix");
    }
    let mut kept: Vec<&str> = Vec::new();
    for segment in path.split('/') {
        match segment {
            "" if run.on(Planted::EntryEmptySegmentAllowed) => {}
            "" => return Err("an empty segment in an entry point"),
            "." if run.on(Planted::EntryDotdotNormalized) => {}
            ".." if run.on(Planted::EntryDotdotNormalized) => {
                if kept.pop().is_none() {
                    return Err("an entry point that leaves the bundle");
                }
            }
            "." | ".." => return Err("a `.` or `..` segment in an entry point"),
            segment => kept.push(segment),
        }
    }
    if kept.is_empty() {
        return Err("an entry point that names the bundle root");
    }
    Ok(kept.join("/"))
}

/// The three bytes of `#rrggbb` at the start of `text`.
fn six_hex_after_hash(text: &str) -> Option<[u8; 3]> {
    let hex = text.strip_prefix('#')?.get(..6)?;
    if !hex.bytes().all(|b| b.is_ascii_hexdigit()) {
        return None;
    }
    let byte = |at: usize| u8::from_str_radix(&hex[at..at + 2], 16).ok();
    Some([byte(0)?, byte(2)?, byte(4)?])
}

/// compose-bundle.color.legible: OKLab lightness 0.60 to 0.80 and chroma at least 0.05.
fn legible(rgb: [u8; 3]) -> bool {
    let linear = rgb.map(|channel| {
        let c = f64::from(channel) / 255.0;
        if c <= 0.04045 {
            c / 12.92
        } else {
            ((c + 0.055) / 1.055).powf(2.4)
        }
    });
    let [r, g, b] = linear;
    let l = (0.412_221_470_8 * r + 0.536_332_536_3 * g + 0.051_445_992_9 * b).cbrt();
    let m = (0.211_903_498_2 * r + 0.680_699_545_1 * g + 0.107_396_956_6 * b).cbrt();
    let s = (0.088_302_461_9 * r + 0.281_718_837_6 * g + 0.629_978_700_5 * b).cbrt();
    let lightness = 0.210_454_255_3 * l + 0.793_617_785 * m - 0.004_072_046_8 * s;
    let a = 1.977_998_495_1 * l - 2.428_592_205 * m + 0.450_593_709_9 * s;
    let bb = 0.025_904_037_1 * l + 0.782_771_766_2 * m - 0.808_675_766 * s;
    let chroma = (a * a + bb * bb).sqrt();
    (0.60..=0.80).contains(&lightness) && chroma >= 0.05
}

/// `base` and one more member name, as a JSON pointer.
fn pointer(base: &str, key: &str) -> String {
    format!("{base}/{}", names::escape_token(key))
}
