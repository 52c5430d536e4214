//! Instants: RFC 3339 timestamps in documents (exported_at, released_at, installed_at),
//! the `now` context input, and the v1 cutoff.
//!
//! Parsing is the `time` crate's RFC 3339 parser, which covers the grammar, the calendar,
//! offsets and the end-of-month leap second. It also takes a space between date and time;
//! RFC 3339 mentions that only as an option an application may choose (section 5.6), and
//! neither the spec nor the public implementation chooses it, so the separator is checked
//! here first.

use time::format_description::well_known::Rfc3339;
use time::macros::{datetime, format_description};
use time::{Date, OffsetDateTime};

/// The v1 cutoff: from this instant on v1 packages are refused (spec: "2027-06-01
/// onwards"; the reference reads the timeline in UTC).
pub const V1_CUTOFF: OffsetDateTime = datetime!(2027-06-01 00:00:00 UTC);

/// Parses an RFC 3339 date-time; `None` when it is not one.
pub fn parse_rfc3339(text: &str) -> Option<OffsetDateTime> {
    if !matches!(text.as_bytes().get(10), Some(b'T' | b't')) {
        return None;
    }
    OffsetDateTime::parse(text, &Rfc3339).ok()
}

/// Writes an instant as RFC 3339, for messages.
pub fn display(instant: OffsetDateTime) -> String {
    instant
        .format(&Rfc3339)
        .unwrap_or_else(|_| instant.to_string())
}

/// Parses the `now` input: a date `YYYY-MM-DD` (that day at 00:00:00 UTC) or an RFC 3339
/// date-time.
pub fn parse_now(text: &str) -> Option<OffsetDateTime> {
    let date_only = format_description!("[year]-[month]-[day]");
    if let Ok(date) = Date::parse(text, &date_only) {
        return Some(date.midnight().assume_utc());
    }
    parse_rfc3339(text)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn timestamps() {
        for good in [
            "2026-07-14T15:23:00Z",
            "2026-07-14T15:23:00.123456789Z",
            "2026-07-14t15:23:00z",
            "2026-07-14T15:23:00+05:30",
            "2016-12-31T23:59:60Z",
        ] {
            assert!(parse_rfc3339(good).is_some(), "{good}");
        }
        for bad in [
            "2026-07-14 15:23:00Z",
            "2026-07-14T15:23Z",
            "2026-07-14T15:23:00",
            "2026-02-30T00:00:00Z",
            "2026-07-14",
            "2026-07-14T15:23:00Z ",
            "2016-12-30T23:59:60Z",
        ] {
            assert!(parse_rfc3339(bad).is_none(), "{bad}");
        }
    }

    #[test]
    fn now_and_cutoff() {
        let before = parse_now("2027-05-31").expect("date");
        let at = parse_now("2027-06-01").expect("date");
        assert!(before < V1_CUTOFF);
        assert_eq!(at, V1_CUTOFF);
        let offset = parse_now("2027-06-01T01:00:00+02:00").expect("instant");
        assert!(offset < V1_CUTOFF);
        assert!(parse_now("2027-6-1").is_none());
        assert!(parse_now("tomorrow").is_none());
    }
}
