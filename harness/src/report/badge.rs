//! Badge endpoints: one JSON document per format in the shape shields.io's endpoint badge
//! reads (`{"schemaVersion": 1, "label", "message", "color"}`), e.g. "acme-soul soul-kit:
//! certified, diagnostics exact", "soul-kit: 97% passing", or for a run that judged only
//! part of the format, a grey "soul-kit: not a certification, 1 of 420 cases".

use serde_json::json;

use crate::report::certificate::Certificate;
use crate::report::Tally;
use crate::runner::Grade;
use soulcheck_vocabulary::Format;

/// The badge of one format: its validation certificate when there is one, else its
/// tally; labelled with the implementation's name when it has one.
pub fn render(
    format: Format,
    tally: &Tally,
    certificate: Option<&Certificate>,
    implementation: &str,
) -> serde_json::Value {
    let percent = tally.percent_passing();
    let (message, color) = match certificate {
        // Whatever those cases did, a part of the format says nothing of the whole.
        Some(certificate) if !certificate.selection.complete => (
            format!(
                "not a certification, {} of {} cases",
                certificate.selection.judged, certificate.selection.cases
            ),
            "lightgrey",
        ),
        Some(certificate) if certificate.certified => {
            let message = match certificate.diagnostics_grade {
                Grade::None => "certified".to_owned(),
                grade => format!("certified, diagnostics {grade}"),
            };
            (message, "brightgreen")
        }
        _ => {
            let color = match percent {
                100 => "green",
                90..=99 => "yellowgreen",
                70..=89 => "yellow",
                _ => "red",
            };
            (format!("{percent}% passing"), color)
        }
    };
    let label = if implementation.is_empty() {
        format.name().to_owned()
    } else {
        format!("{implementation} {format}")
    };
    json!({
        "schemaVersion": 1,
        "label": label,
        "message": message,
        "color": color,
    })
}
