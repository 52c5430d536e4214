//! Badge endpoints: one JSON document per format in the shape shields.io's endpoint badge
//! reads (`{"schemaVersion": 1, "label", "message", "color"}`), e.g. "soul-kit: 97% passing".

use serde_json::json;

use crate::report::Tally;
use soulcheck_vocabulary::Format;

/// The badge of one format's tally.
pub fn render(format: Format, tally: &Tally) -> serde_json::Value {
    let percent = tally.percent_passing();
    let color = match percent {
        100 => "brightgreen",
        90..=99 => "green",
        70..=89 => "yellow",
        _ => "red",
    };
    json!({
        "schemaVersion": 1,
        "label": format.name(),
        "message": format!("{percent}% passing"),
        "color": color,
    })
}
