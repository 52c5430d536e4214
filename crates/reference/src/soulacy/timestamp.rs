//! Instants: RFC 3339 timestamps in documents (exported_at, released_at, installed_at),
//! the `now` context input, and the v1 cutoff; and what Go's `time.Time` JSON decoding
//! reads (Soulacy's importer decodes exported_at so, [`parse_go`]).
//!
//! Parsing is the `time` crate's RFC 3339 parser, which covers the grammar, the calendar,
//! offsets and the end-of-month leap second. It also takes a space between date and time;
//! RFC 3339 mentions that only as an option an application may choose (section 5.6), and
//! neither the spec nor the public implementation chooses it, so the separator is checked
//! here first.

use time::format_description::well_known::Rfc3339;
use time::macros::{datetime, format_description};
use time::{Date, Month, OffsetDateTime, Time, UtcOffset};

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

/// Parses what Go's `time.Time.UnmarshalJSON` reads, as Soulacy's importer decodes
/// exported_at: `time.Parse(time.RFC3339, ...)` behind a strict RFC 3339 parse whose extra
/// checks are disabled in current Go (go.dev/issue/54580). That is RFC 3339 with an
/// uppercase `T` and `Z` and no leap second, and also a one-digit hour, a comma before the
/// fraction, and a numeric offset of up to 24 hours and 60 minutes (Go's range test is
/// `>`, "as some people do write offsets of 24 hours or 60 minutes"). `None` when Go refuses
/// the text.
pub fn parse_go(text: &str) -> Option<OffsetDateTime> {
    let mut rest = text.as_bytes();
    let year = take_digits(&mut rest, 4)?;
    take_byte(&mut rest, b'-')?;
    let month = take_digits(&mut rest, 2)?;
    take_byte(&mut rest, b'-')?;
    let day = take_digits(&mut rest, 2)?;
    take_byte(&mut rest, b'T')?;
    // The hour alone may have one digit.
    let hour = if rest.get(1).is_some_and(u8::is_ascii_digit) {
        take_digits(&mut rest, 2)?
    } else {
        take_digits(&mut rest, 1)?
    };
    take_byte(&mut rest, b':')?;
    let minute = take_digits(&mut rest, 2)?;
    take_byte(&mut rest, b':')?;
    let second = take_digits(&mut rest, 2)?;
    let mut nanosecond = 0;
    if matches!(rest.first(), Some(b'.' | b',')) && rest.get(1).is_some_and(u8::is_ascii_digit) {
        rest = &rest[1..];
        let digits = rest.iter().take_while(|b| b.is_ascii_digit()).count();
        // Digits past the ninth are read and dropped, as Go does.
        for (index, digit) in rest[..digits].iter().enumerate().take(9) {
            nanosecond += u32::from(digit - b'0') * 10u32.pow(8 - index as u32);
        }
        rest = &rest[digits..];
    }
    let offset_seconds: i32 = match rest {
        [b'Z'] => 0,
        [sign @ (b'+' | b'-'), h1, h2, b':', m1, m2] => {
            let hours = i32::try_from(two_digits(*h1, *h2)?).ok()?;
            let minutes = i32::try_from(two_digits(*m1, *m2)?).ok()?;
            if hours > 24 || minutes > 60 {
                return None;
            }
            let seconds = (hours * 60 + minutes) * 60;
            if *sign == b'-' {
                -seconds
            } else {
                seconds
            }
        }
        _ => return None,
    };
    let date = Date::from_calendar_date(
        i32::try_from(year).ok()?,
        Month::try_from(u8::try_from(month).ok()?).ok()?,
        u8::try_from(day).ok()?,
    )
    .ok()?;
    let time = Time::from_hms_nano(
        u8::try_from(hour).ok()?,
        u8::try_from(minute).ok()?,
        u8::try_from(second).ok()?,
        nanosecond,
    )
    .ok()?;
    let offset = UtcOffset::from_whole_seconds(offset_seconds).ok()?;
    Some(date.with_time(time).assume_offset(offset))
}

/// Reads exactly `count` ASCII digits off the front of `rest`.
fn take_digits(rest: &mut &[u8], count: usize) -> Option<u32> {
    let digits = rest.get(..count)?;
    if !digits.iter().all(u8::is_ascii_digit) {
        return None;
    }
    *rest = &rest[count..];
    Some(
        digits
            .iter()
            .fold(0, |value, digit| value * 10 + u32::from(digit - b'0')),
    )
}

/// Reads `byte` off the front of `rest`.
fn take_byte(rest: &mut &[u8], byte: u8) -> Option<()> {
    let (first, tail) = rest.split_first()?;
    (*first == byte).then(|| *rest = tail)
}

fn two_digits(tens: u8, ones: u8) -> Option<u32> {
    (tens.is_ascii_digit() && ones.is_ascii_digit())
        .then(|| u32::from(tens - b'0') * 10 + u32::from(ones - b'0'))
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

    /// Go's decoding: RFC 3339 with uppercase separators and no leap second, plus the
    /// forms its lax parse takes.
    #[test]
    fn go_reads_its_own_forms() {
        for (text, instant) in [
            ("2026-07-14T15:23:00Z", "2026-07-14T15:23:00Z"),
            ("2026-07-14T8:23:00Z", "2026-07-14T08:23:00Z"),
            ("2026-07-14T15:23:00,25Z", "2026-07-14T15:23:00.25Z"),
            (
                "2026-07-14T15:23:00.1234567891Z",
                "2026-07-14T15:23:00.123456789Z",
            ),
            ("2026-07-14T15:23:00+24:00", "2026-07-13T15:23:00Z"),
            ("2026-07-14T15:23:00+05:60", "2026-07-14T15:23:00+06:00"),
        ] {
            let parsed = parse_go(text).unwrap_or_else(|| panic!("{text}"));
            assert_eq!(parsed, parse_rfc3339(instant).expect(instant), "{text}");
        }
        for bad in [
            "2026-07-14t15:23:00Z",
            "2026-07-14T15:23:00z",
            "2016-12-31T23:59:60Z",
            "2026-07-14T24:00:00Z",
            "2026-07-14T123:00:00Z",
            "2026-07-14T15:23:00+25:00",
            "2026-07-14T15:23:00+05:61",
            "2026-07-14T15:23:00+0530",
            "2026-07-14T15:23:00.Z",
            "2026-02-30T10:00:00Z",
            "2026-07-14T15:23:00",
            "2026-07-14 15:23:00Z",
        ] {
            assert!(parse_go(bad).is_none(), "{bad}");
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
