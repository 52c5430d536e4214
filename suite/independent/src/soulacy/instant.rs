//! RFC 3339 date-times (section 5.6), as the catalogues read them for `exported_at`,
//! `released_at` and the sidecar's `installed_at` (rules `soulacy-package.timestamp.rfc3339`,
//! `soulacy-sidecar.installed-at.rfc3339`): full date, `T`, hours, minutes and seconds,
//! an optional fraction, `Z` or a numeric offset with a colon; the date and time exist.
//! Lowercase `t` and `z` are accepted (RFC 3339 section 5.6 allows them), a leap second
//! only at 23:59:60 UTC on the last day of a month (section 5.7), a space separator never.
//!
//! Also the clock of the context (`now`: a date, meaning 00:00:00Z of that day, or a
//! date-time) and the importer's re-serialisation of a time (Go's RFC 3339 with
//! nanoseconds, trailing zeros trimmed), which the integrity digest hashes.

use super::calendar::{self, CalendarDate};
use super::Slip;

/// A parsed RFC 3339 date-time.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DateTime {
    /// The date as written (local to the offset).
    pub date: CalendarDate,
    /// Hour, minute and second as written.
    pub hour: u32,
    /// Minutes.
    pub minute: u32,
    /// Seconds (60 only for a leap second).
    pub second: u32,
    /// The fraction's digits as written (without the dot), possibly empty.
    pub fraction: String,
    /// The offset east of UTC in minutes (`Z` and `-00:00` are 0).
    pub offset_minutes: i64,
    /// Whether `T` and `Z` were uppercase (Go's parser accepts nothing else).
    pub uppercase: bool,
}

/// A byte cursor over ASCII text.
struct Cursor<'a> {
    bytes: &'a [u8],
    at: usize,
}

impl Cursor<'_> {
    fn digits(&mut self, count: usize) -> Option<u32> {
        let run = self.bytes.get(self.at..self.at + count)?;
        if !run.iter().all(u8::is_ascii_digit) {
            return None;
        }
        self.at += count;
        Some(
            run.iter()
                .fold(0, |value, digit| value * 10 + u32::from(digit - b'0')),
        )
    }

    fn byte(&mut self, expected: u8) -> Option<()> {
        (self.peek() == Some(expected)).then(|| self.at += 1)
    }

    fn peek(&self) -> Option<u8> {
        self.bytes.get(self.at).copied()
    }
}

/// How a timestamp is read.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Reading {
    /// RFC 3339 itself.
    Rfc3339,
    /// What Go's `time.Time` JSON decoding reads (Soulacy's importer): its strict parse falls
    /// back to `time.Parse(time.RFC3339, ...)`, which takes a one-digit hour, a comma before
    /// the fraction and offsets up to 24 hours and 60 minutes, and refuses lowercase `t`
    /// and `z` and second 60.
    Go,
}

/// Parses `text` as an RFC 3339 date-time; `None` when it is not one.
pub fn parse(text: &str, slip: Option<Slip>) -> Option<DateTime> {
    parse_as(text, slip, Reading::Rfc3339)
}

/// Parses `text` as `reading` reads it; `None` when it does not.
pub fn parse_as(text: &str, slip: Option<Slip>, reading: Reading) -> Option<DateTime> {
    let go = reading == Reading::Go;
    let mut cursor = Cursor {
        bytes: text.as_bytes(),
        at: 0,
    };
    let year = cursor.digits(4)?;
    cursor.byte(b'-')?;
    let month = cursor.digits(2)?;
    cursor.byte(b'-')?;
    let day = cursor.digits(2)?;
    let date = CalendarDate { year, month, day };
    let range_checked = slip != Some(Slip::TimestampNoRangeCheck);
    if range_checked && !calendar::date_exists(date, None) {
        return None;
    }
    let midnight = DateTime {
        date,
        hour: 0,
        minute: 0,
        second: 0,
        fraction: String::new(),
        offset_minutes: 0,
        uppercase: true,
    };
    let separator = cursor.peek();
    match separator {
        None if slip == Some(Slip::TimestampDateOnly) => return Some(midnight),
        Some(b'T') => {}
        Some(b't') if !go => {}
        Some(b' ') if slip == Some(Slip::TimestampSpace) => {}
        _ => return None,
    }
    cursor.at += 1;
    let mut uppercase = separator != Some(b't');
    let hour = if go && cursor.bytes.get(cursor.at + 1) == Some(&b':') {
        cursor.digits(1)?
    } else {
        cursor.digits(2)?
    };
    cursor.byte(b':')?;
    let minute = cursor.digits(2)?;
    cursor.byte(b':')?;
    let second = cursor.digits(2)?;
    let mut fraction = String::new();
    let comma = go
        && cursor.peek() == Some(b',')
        && cursor
            .bytes
            .get(cursor.at + 1)
            .is_some_and(u8::is_ascii_digit);
    if comma || cursor.byte(b'.').is_some() {
        if comma {
            cursor.at += 1;
        }
        if slip == Some(Slip::TimestampFractionRefused) {
            return None;
        }
        while let Some(digit) = cursor.peek().filter(u8::is_ascii_digit) {
            fraction.push(char::from(digit));
            cursor.at += 1;
        }
        if fraction.is_empty() {
            return None;
        }
    }
    let offset_minutes = match cursor.peek() {
        Some(b'Z') => {
            cursor.at += 1;
            0
        }
        Some(b'z') if !go => {
            cursor.at += 1;
            uppercase = false;
            0
        }
        Some(sign @ (b'+' | b'-')) if slip != Some(Slip::TimestampUtcOnly) => {
            cursor.at += 1;
            let hours = cursor.digits(2)?;
            let colon = cursor.byte(b':');
            if colon.is_none() && slip != Some(Slip::TimestampOffsetNoColon) {
                return None;
            }
            let minutes = cursor.digits(2)?;
            let (most_hours, most_minutes) = if go { (24, 60) } else { (23, 59) };
            if range_checked && (hours > most_hours || minutes > most_minutes) {
                return None;
            }
            let magnitude = i64::from(hours * 60 + minutes);
            if sign == b'-' {
                -magnitude
            } else {
                magnitude
            }
        }
        None if slip == Some(Slip::TimestampNoOffset) => 0,
        _ => return None,
    };
    if cursor.at != cursor.bytes.len() {
        return None;
    }
    let parsed = DateTime {
        date,
        hour,
        minute,
        second,
        fraction,
        offset_minutes,
        uppercase,
    };
    if range_checked && (!time_exists(&parsed) || (go && parsed.second > 59)) {
        return None;
    }
    Some(parsed)
}

/// Hours 00-23, minutes 00-59, seconds 00-59, or 60 at 23:59:60 UTC on a month's last day.
fn time_exists(time: &DateTime) -> bool {
    if time.hour > 23 || time.minute > 59 || time.second > 60 {
        return false;
    }
    if time.second < 60 {
        return true;
    }
    // A leap second: the UTC minute must be 23:59 on the last day of a month.
    let utc_minutes = time.days_since_epoch() * 1440 + i64::from(time.hour * 60 + time.minute)
        - time.offset_minutes;
    let utc_day = utc_minutes.div_euclid(1440);
    let (year, month, day) = civil_from_days(utc_day);
    utc_minutes.rem_euclid(1440) == 23 * 60 + 59
        && u32::try_from(year).is_ok_and(|year| {
            day == calendar::days_in_month(year, month, None) && (1..=12).contains(&month)
        })
}

impl DateTime {
    /// Days from 1970-01-01 to the local date.
    fn days_since_epoch(&self) -> i64 {
        days_from_civil(
            i64::from(self.date.year),
            i64::from(self.date.month),
            i64::from(self.date.day),
        )
    }

    /// The instant as (seconds since the epoch in UTC, nanoseconds).
    pub fn utc(&self) -> (i64, u32) {
        let local = self.days_since_epoch() * 86_400
            + i64::from(self.hour * 3600 + self.minute * 60 + self.second);
        (local - self.offset_minutes * 60, self.nanoseconds())
    }

    /// The fraction as nanoseconds (digits past the ninth are dropped, as Go does).
    pub fn nanoseconds(&self) -> u32 {
        let mut digits: String = self.fraction.chars().take(9).collect();
        while digits.len() < 9 {
            digits.push('0');
        }
        digits.parse().unwrap_or(0)
    }

    /// Go's `time.Time.MarshalJSON`: RFC 3339 with nanoseconds, trailing zeros of the
    /// fraction trimmed, `Z` for a zero offset (also `-00:00`).
    pub fn go_format(&self) -> String {
        let mut out = format!(
            "{:04}-{:02}-{:02}T{:02}:{:02}:{:02}",
            self.date.year, self.date.month, self.date.day, self.hour, self.minute, self.second
        );
        let nanos = format!("{:09}", self.nanoseconds());
        let trimmed = nanos.trim_end_matches('0');
        if !trimmed.is_empty() {
            out.push('.');
            out.push_str(trimmed);
        }
        if self.offset_minutes == 0 {
            out.push('Z');
        } else {
            let sign = if self.offset_minutes < 0 { '-' } else { '+' };
            let magnitude = self.offset_minutes.abs();
            out.push_str(&format!(
                "{sign}{:02}:{:02}",
                magnitude / 60,
                magnitude % 60
            ));
        }
        out
    }
}

/// Go's zero `time.Time`, which the importer writes for an absent `exported_at`.
pub const GO_ZERO_TIME: &str = "0001-01-01T00:00:00Z";

/// Days from 1970-01-01 to a proleptic Gregorian date (Howard Hinnant's algorithm).
pub fn days_from_civil(year: i64, month: i64, day: i64) -> i64 {
    let year = if month <= 2 { year - 1 } else { year };
    let era = year.div_euclid(400);
    let year_of_era = year - era * 400;
    let month_index = (month + 9) % 12;
    let day_of_year = (153 * month_index + 2) / 5 + day - 1;
    let day_of_era = year_of_era * 365 + year_of_era / 4 - year_of_era / 100 + day_of_year;
    era * 146_097 + day_of_era - 719_468
}

/// The date of a day count from 1970-01-01.
fn civil_from_days(days: i64) -> (i64, u32, u32) {
    let shifted = days + 719_468;
    let era = shifted.div_euclid(146_097);
    let day_of_era = shifted - era * 146_097;
    let year_of_era =
        (day_of_era - day_of_era / 1460 + day_of_era / 36_524 - day_of_era / 146_096) / 365;
    let day_of_year = day_of_era - (365 * year_of_era + year_of_era / 4 - year_of_era / 100);
    let month_index = (5 * day_of_year + 2) / 153;
    let day = day_of_year - (153 * month_index + 2) / 5 + 1;
    let month = if month_index < 10 {
        month_index + 3
    } else {
        month_index - 9
    };
    let year = year_of_era + era * 400 + i64::from(month <= 2);
    (
        year,
        u32::try_from(month).unwrap_or(0),
        u32::try_from(day).unwrap_or(0),
    )
}

/// The context's clock: `YYYY-MM-DD` (its 00:00:00Z) or an RFC 3339 date-time, as
/// (seconds since the epoch in UTC, nanoseconds). `None` when absent or unreadable.
pub fn clock(now: Option<&str>) -> Option<(i64, u32)> {
    let now = now?;
    if now.len() == 10 {
        let midnight = format!("{now}T00:00:00Z");
        return parse(&midnight, None).map(|time| time.utc());
    }
    parse(now, None).map(|time| time.utc())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_rfc3339() {
        for good in [
            "2026-07-14T15:23:00Z",
            "2026-07-14t15:23:00z",
            "2026-07-14T15:23:00.123456789+02:00",
            "2026-07-14T15:23:00-00:00",
            "2016-12-31T23:59:60Z",
            "2016-12-31T18:59:60-05:00",
        ] {
            assert!(parse(good, None).is_some(), "{good}");
        }
        for bad in [
            "2026-07-14",
            "2026-07-14 15:23:00Z",
            "2026-07-14T15:23Z",
            "2026-07-14T15:23:00",
            "2026-07-14T15:23:00+0200",
            "2026-07-14T24:00:00Z",
            "2026-02-30T10:00:00Z",
            "2026-07-14T23:59:60Z",
            "2026-07-14T15:23:00.Z",
        ] {
            assert!(parse(bad, None).is_none(), "{bad}");
        }
    }

    #[test]
    fn writes_as_go_does() {
        let time = parse("2026-07-14T15:23:00.250-00:00", None).unwrap();
        assert_eq!(time.go_format(), "2026-07-14T15:23:00.25Z");
        let time = parse("2026-07-14T15:23:00+05:30", None).unwrap();
        assert_eq!(time.go_format(), "2026-07-14T15:23:00+05:30");
    }

    #[test]
    fn reads_the_clock_in_utc() {
        let cutoff = clock(Some("2027-06-01")).unwrap();
        assert_eq!(clock(Some("2027-05-31T22:00:00-02:00")), Some(cutoff));
        assert_eq!(days_from_civil(1970, 1, 1), 0);
        assert_eq!(civil_from_days(days_from_civil(2000, 2, 29)), (2000, 2, 29));
    }
}
