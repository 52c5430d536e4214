//! Reading a validator's result object (per-case stdout, or a persistent reply) while
//! keeping a bounded amount of it, however much it says: at most [`MAX_DIAGNOSTICS`]
//! diagnostics are parsed and kept (the rest are skipped unparsed and only counted), each
//! text member of a kept diagnostic is cut at [`MAX_TEXT`] bytes, and a `value` longer
//! than [`MAX_VALUE`] bytes is refused. The object is parsed straight from its text, never
//! through a whole-document `serde_json::Value`, so a result that fills the output cap
//! with tiny diagnostics costs a few hundred kept diagnostics, not millions of values.

use std::fmt;

use serde::de::{self, Deserializer, IgnoredAny, MapAccess, SeqAccess, Visitor};
use serde::Deserialize;
use soulcheck_vocabulary::wire::Diagnostic;
use soulcheck_vocabulary::{Format, Verdict};

use crate::validator::Observation;

/// Diagnostics kept per case; the rest are counted.
pub const MAX_DIAGNOSTICS: usize = 256;

/// Bytes kept of a diagnostic's message, rule and pointer.
pub const MAX_TEXT: usize = 1024;

/// Bytes a `value` may take as compact JSON.
pub const MAX_VALUE: usize = 64 * 1024;

/// A result object, and in persistent mode the members of a reply, as read.
#[derive(Debug, Default, Deserialize)]
pub(crate) struct Wire {
    #[serde(default)]
    format: Option<serde_json::Value>,
    #[serde(default)]
    verdict: Option<serde_json::Value>,
    #[serde(default)]
    diagnostics: Option<Capped>,
    #[serde(default)]
    value: Option<serde_json::Value>,
    /// Persistent mode: the request this answers.
    #[serde(default)]
    pub(crate) seq: Option<serde_json::Value>,
    /// Persistent mode: the validator declined the request.
    #[serde(default)]
    pub(crate) skipped: Option<serde_json::Value>,
    /// Persistent mode: the validator failed on the request.
    #[serde(default)]
    pub(crate) errored: Option<serde_json::Value>,
}

/// What a result said, within bounds.
#[derive(Debug, Clone, PartialEq)]
pub struct Read {
    /// The observation, with at most [`MAX_DIAGNOSTICS`] diagnostics.
    pub observation: Observation,
    /// Diagnostics reported beyond [`MAX_DIAGNOSTICS`], counted and dropped.
    pub dropped: usize,
}

impl Wire {
    /// Parses one JSON object; `None` if `text` is not one.
    pub(crate) fn parse(text: &str) -> Option<Wire> {
        serde_json::from_str(text).ok()
    }

    /// Whether the object has a `verdict` member (per-case stdout is a result only then).
    pub(crate) fn has_verdict(&self) -> bool {
        self.verdict.is_some()
    }

    /// The result the object holds, or why it is unreadable.
    pub(crate) fn result(self) -> Result<Read, String> {
        let unreadable = |error: String| format!("unreadable result: {error}");
        if let Some(format) = self.format {
            serde_json::from_value::<Format>(format)
                .map_err(|error| unreadable(error.to_string()))?;
        }
        let verdict = match self.verdict {
            Some(verdict) => serde_json::from_value::<Verdict>(verdict)
                .map_err(|error| unreadable(error.to_string()))?,
            None => return Err(unreadable("missing field `verdict`".to_owned())),
        };
        let (diagnostics, dropped) = match self.diagnostics {
            None => (None, 0),
            Some(Capped::Unreadable(error)) => return Err(unreadable(error)),
            Some(Capped::Kept { kept, dropped }) => (Some(kept), dropped),
        };
        if let Some(value) = &self.value {
            let size = serde_json::to_vec(value).map_or(usize::MAX, |text| text.len());
            if size > MAX_VALUE {
                return Err(format!(
                    "the value is longer than {MAX_VALUE} bytes as JSON ({size})"
                ));
            }
        }
        Ok(Read {
            observation: Observation {
                verdict,
                diagnostics,
                value: self.value.filter(|value| !value.is_null()),
            },
            dropped,
        })
    }
}

/// A `diagnostics` member read within bounds.
#[derive(Debug)]
enum Capped {
    Kept {
        kept: Vec<Diagnostic>,
        dropped: usize,
    },
    /// Not an array of diagnostics; kept as a message so the rest of a reply (its `seq`)
    /// can still be read.
    Unreadable(String),
}

impl<'de> Deserialize<'de> for Capped {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Capped, D::Error> {
        deserializer.deserialize_any(CappedVisitor)
    }
}

struct CappedVisitor;

impl CappedVisitor {
    fn not_an_array<E>(what: &str) -> Result<Capped, E> {
        Ok(Capped::Unreadable(format!(
            "`diagnostics` is {what}, not an array"
        )))
    }
}

impl<'de> Visitor<'de> for CappedVisitor {
    type Value = Capped;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("an array of diagnostics")
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Capped, A::Error> {
        let mut kept = Vec::new();
        let mut dropped = 0usize;
        let mut error = None;
        loop {
            if kept.len() < MAX_DIAGNOSTICS && error.is_none() {
                match seq.next_element::<serde_json::Value>()? {
                    None => break,
                    Some(item) => match serde_json::from_value::<Diagnostic>(item) {
                        Ok(diagnostic) => kept.push(shorten(diagnostic)),
                        Err(why) => error = Some(why.to_string()),
                    },
                }
            } else {
                // Skipped without building anything.
                match seq.next_element::<IgnoredAny>()? {
                    None => break,
                    Some(_) => dropped += 1,
                }
            }
        }
        Ok(match error {
            Some(error) => Capped::Unreadable(error),
            None => Capped::Kept { kept, dropped },
        })
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Capped, A::Error> {
        while map.next_entry::<IgnoredAny, IgnoredAny>()?.is_some() {}
        CappedVisitor::not_an_array("an object")
    }

    fn visit_str<E: de::Error>(self, _: &str) -> Result<Capped, E> {
        CappedVisitor::not_an_array("a string")
    }

    fn visit_bool<E: de::Error>(self, _: bool) -> Result<Capped, E> {
        CappedVisitor::not_an_array("a boolean")
    }

    fn visit_i64<E: de::Error>(self, _: i64) -> Result<Capped, E> {
        CappedVisitor::not_an_array("a number")
    }

    fn visit_u64<E: de::Error>(self, _: u64) -> Result<Capped, E> {
        CappedVisitor::not_an_array("a number")
    }

    fn visit_f64<E: de::Error>(self, _: f64) -> Result<Capped, E> {
        CappedVisitor::not_an_array("a number")
    }

    fn visit_unit<E: de::Error>(self) -> Result<Capped, E> {
        Ok(Capped::Kept {
            kept: Vec::new(),
            dropped: 0,
        })
    }
}

/// An observation held to the bounds a process's result is read within: its first
/// [`MAX_DIAGNOSTICS`] diagnostics, each cut as [`shorten`] cuts it. Differential checking
/// bounds both answers alike, so an in-process oracle's 2,000-byte pointer does not
/// disagree with the same pointer cut on its way out of a process.
pub fn bound(mut observation: Observation) -> Observation {
    if let Some(diagnostics) = observation.diagnostics.take() {
        observation.diagnostics = Some(
            diagnostics
                .into_iter()
                .take(MAX_DIAGNOSTICS)
                .map(shorten)
                .collect(),
        );
    }
    observation
}

/// Cuts a diagnostic's text members at [`MAX_TEXT`] bytes (on a character boundary).
pub(crate) fn shorten(mut diagnostic: Diagnostic) -> Diagnostic {
    cut(&mut diagnostic.message);
    cut(&mut diagnostic.rule);
    if let Some(pointer) = diagnostic
        .location
        .as_mut()
        .and_then(|location| location.pointer.as_mut())
    {
        cut(pointer);
    }
    diagnostic
}

/// The first [`MAX_TEXT`] bytes of `text` (on a character boundary), copied: what a
/// diagnostic keeps of a match, without copying the rest first.
pub(crate) fn kept(text: &str) -> String {
    let mut end = text.len().min(MAX_TEXT);
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    text[..end].to_owned()
}

fn cut(text: &mut String) {
    if text.len() > MAX_TEXT {
        let mut end = MAX_TEXT;
        while !text.is_char_boundary(end) {
            end -= 1;
        }
        text.truncate(end);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keeps_a_bounded_number_and_counts_the_rest() {
        let item = r#"{"rule":"r","pointer":"/x"}"#;
        let text = format!(
            r#"{{"verdict":"reject","diagnostics":[{}]}}"#,
            vec![item; MAX_DIAGNOSTICS + 10].join(",")
        );
        let read = Wire::parse(&text).unwrap().result().unwrap();
        assert_eq!(
            read.observation.diagnostics.as_ref().map(Vec::len),
            Some(MAX_DIAGNOSTICS)
        );
        assert_eq!(read.dropped, 10);
    }

    #[test]
    fn long_texts_are_cut_and_bad_members_reported() {
        let long = "é".repeat(MAX_TEXT);
        let text =
            format!(r#"{{"verdict":"accept","diagnostics":[{{"rule":"r","message":"{long}"}}]}}"#);
        let read = Wire::parse(&text).unwrap().result().unwrap();
        let message = &read.observation.diagnostics.unwrap()[0].message;
        assert!(message.len() <= MAX_TEXT && message.starts_with('é'));
        let bad = Wire::parse(r#"{"verdict":"accept","diagnostics":"none"}"#).unwrap();
        assert!(bad.result().unwrap_err().contains("not an array"));
        let null = Wire::parse(r#"{"verdict":"accept","diagnostics":null}"#).unwrap();
        assert_eq!(null.result().unwrap().observation.diagnostics, None);
    }
}
