//! Calendar versions `YYYY.MM.DD[.PATCH]` (spec: "Calendar versioning"): parsing with the
//! pattern and date rules kept apart, so each format can report them under its own rule,
//! and the spec's ordering by the 4-tuple (year, month, day, patch).

use std::cmp::Ordering;

use time::{Date, Month};

/// A parsed calendar version. The PATCH keeps its digits as written, so any length is
/// compared exactly.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CalendarVersion<'a> {
    /// Year, 0 to 9999.
    pub year: u16,
    /// Month, 1 to 12.
    pub month: u8,
    /// Day of the month.
    pub day: u8,
    /// PATCH digits, if present.
    pub patch: Option<&'a str>,
}

/// Why a string is not a calendar version.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CalendarError {
    /// It does not match `^\d{4}\.\d{2}\.\d{2}(\.\d+)?$` with ASCII digits.
    Pattern,
    /// It matches, but the date does not exist.
    Date,
}

fn digits(text: &str, length: Option<usize>) -> bool {
    !text.is_empty()
        && length.is_none_or(|length| text.len() == length)
        && text.bytes().all(|b| b.is_ascii_digit())
}

/// Parses a calendar version. Nothing is trimmed: surrounding whitespace is a pattern
/// error (see the `version.calendar` decision).
pub fn parse(text: &str) -> Result<CalendarVersion<'_>, CalendarError> {
    let parts: Vec<&str> = text.split('.').collect();
    let (year, month, day, patch) = match parts[..] {
        [year, month, day] => (year, month, day, None),
        [year, month, day, patch] => (year, month, day, Some(patch)),
        _ => return Err(CalendarError::Pattern),
    };
    if !digits(year, Some(4))
        || !digits(month, Some(2))
        || !digits(day, Some(2))
        || !patch.is_none_or(|patch| digits(patch, None))
    {
        return Err(CalendarError::Pattern);
    }
    // The pattern guarantees ASCII digits of fixed width, so these parses cannot fail;
    // mapping a failure to the pattern error keeps the function total anyway.
    let year: u16 = year.parse().map_err(|_| CalendarError::Pattern)?;
    let month: u8 = month.parse().map_err(|_| CalendarError::Pattern)?;
    let day: u8 = day.parse().map_err(|_| CalendarError::Pattern)?;
    // The date must exist in the proleptic Gregorian calendar (`version.date`).
    let exists = Month::try_from(month)
        .ok()
        .and_then(|month| Date::from_calendar_date(i32::from(year), month, day).ok())
        .is_some();
    if !exists {
        return Err(CalendarError::Date);
    }
    Ok(CalendarVersion {
        year,
        month,
        day,
        patch,
    })
}

/// Compares two PATCH digit strings as integers of any size.
fn compare_patch(a: &str, b: &str) -> Ordering {
    let a = a.trim_start_matches('0');
    let b = b.trim_start_matches('0');
    a.len().cmp(&b.len()).then_with(|| a.cmp(b))
}

/// The spec's order: the 4-tuple (year, month, day, patch) as integers, a missing PATCH
/// counting as 0.
pub fn compare(a: &CalendarVersion<'_>, b: &CalendarVersion<'_>) -> Ordering {
    (a.year, a.month, a.day)
        .cmp(&(b.year, b.month, b.day))
        .then_with(|| compare_patch(a.patch.unwrap_or("0"), b.patch.unwrap_or("0")))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn order(a: &str, b: &str) -> Ordering {
        compare(&parse(a).expect(a), &parse(b).expect(b))
    }

    #[test]
    fn ordering() {
        assert_eq!(order("2026.07.14", "2026.07.14.1"), Ordering::Less);
        assert_eq!(order("2026.07.14.1", "2026.07.14.10"), Ordering::Less);
        assert_eq!(order("2026.07.14.10", "2026.07.15"), Ordering::Less);
        assert_eq!(order("2026.07.14", "2026.07.14.0"), Ordering::Equal);
        assert_eq!(order("2026.07.14.01", "2026.07.14.1"), Ordering::Equal);
        assert_eq!(order("2026.07.14.9", "2026.07.14.10"), Ordering::Less);
        assert_eq!(
            order(
                "2026.07.14.100000000000000000000",
                "2026.07.14.99999999999999999999"
            ),
            Ordering::Greater
        );
        assert_eq!(order("2027.01.01", "2026.12.31.5"), Ordering::Greater);
    }

    #[test]
    fn patterns_and_dates() {
        for good in [
            "2026.07.14",
            "2026.07.14.0",
            "2024.02.29",
            "2000.02.29",
            "0000.01.01",
        ] {
            assert!(parse(good).is_ok(), "{good}");
        }
        for bad in [
            "2026.7.14",
            "2026.07.14-rc1",
            "2026.07.14.",
            "v2026.07.14",
            " 2026.07.14",
            "2026.07.14\n",
            "2026.07.14.1.2",
            "٢٠٢٦.07.14",
            "",
        ] {
            assert_eq!(parse(bad), Err(CalendarError::Pattern), "{bad:?}");
        }
        for bad in [
            "2026.02.30",
            "2025.02.29",
            "1900.02.29",
            "2026.13.01",
            "2026.00.10",
            "2026.07.00",
            "2026.04.31",
        ] {
            assert_eq!(parse(bad), Err(CalendarError::Date), "{bad}");
        }
    }
}
