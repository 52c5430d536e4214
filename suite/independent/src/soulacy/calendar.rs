//! Calendar versions (spec, "Calendar versioning"): `YYYY.MM.DD[.PATCH]`, the anchored
//! pattern `^(\d{4})\.(\d{2})\.(\d{2})(?:\.(\d+))?$` with `\d` an ASCII digit (as in
//! Soulacy's Go regex), and a date that exists in the proleptic Gregorian calendar.
//! Written as a small hand matcher rather than a regex: the pattern is fixed and a
//! matcher cannot be unanchored by accident (the planted mistakes do it on purpose).

use super::Slip;

/// What is wrong with a would-be calendar version.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CalendarError {
    /// Not of the form YYYY.MM.DD[.PATCH] (rule `version.calendar`).
    Pattern,
    /// The form is right but the date does not exist (rule `version.date`).
    Date,
}

/// The parsed date of a calendar version.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CalendarDate {
    /// The year, 0000 to 9999.
    pub year: u32,
    /// The month as written (not yet range-checked).
    pub month: u32,
    /// The day as written (not yet range-checked).
    pub day: u32,
}

/// Checks `text` as a calendar version.
pub fn check(text: &str, slip: Option<Slip>) -> Result<(), CalendarError> {
    let text = if slip == Some(Slip::VersionTrimmed) {
        text.trim()
    } else {
        text
    };
    let date = if slip == Some(Slip::VersionUnanchored) {
        find_anywhere(text, slip)
    } else {
        parse(text, slip)
    }
    .ok_or(CalendarError::Pattern)?;
    if slip == Some(Slip::VersionNoDateCheck) || date_exists(date, slip) {
        Ok(())
    } else {
        Err(CalendarError::Date)
    }
}

/// The unanchored mistake: the pattern found anywhere in the text (a `find`).
fn find_anywhere(text: &str, slip: Option<Slip>) -> Option<CalendarDate> {
    let starts = text.char_indices().map(|(index, _)| index);
    starts.into_iter().find_map(|start| {
        let rest = &text[start..];
        let ends = rest
            .char_indices()
            .map(|(index, _)| index)
            .chain([rest.len()]);
        ends.into_iter()
            .rev()
            .find_map(|end| parse(&rest[..end], slip))
    })
}

/// The whole text against the pattern.
fn parse(text: &str, slip: Option<Slip>) -> Option<CalendarDate> {
    let mut parts = text.split('.');
    let year = digits(parts.next()?, 4, 4, slip)?;
    let padded = if slip == Some(Slip::VersionUnpadded) {
        1
    } else {
        2
    };
    let month = digits(parts.next()?, padded, 2, slip)?;
    let day = digits(parts.next()?, padded, 2, slip)?;
    if let Some(patch) = parts.next() {
        patch_digits(patch, slip)?;
    }
    if parts.next().is_some() {
        return None;
    }
    Some(CalendarDate { year, month, day })
}

/// A run of `min..=max` digits, read as a number.
fn digits(part: &str, min: usize, max: usize, slip: Option<Slip>) -> Option<u32> {
    let count = part.chars().count();
    if count < min || count > max {
        return None;
    }
    part.chars().try_fold(0u32, |value, character| {
        digit_value(character, slip).map(|digit| value * 10 + digit)
    })
}

/// PATCH: one or more digits, any number of them (never parsed as an integer, so a
/// 30-digit PATCH is fine).
fn patch_digits(part: &str, slip: Option<Slip>) -> Option<()> {
    if part.is_empty() || part.chars().any(|c| digit_value(c, slip).is_none()) {
        return None;
    }
    // The planted mistake parses PATCH into a u64 and refuses what overflows.
    if slip == Some(Slip::PatchAsU64) && part.parse::<u64>().is_err() {
        return None;
    }
    Some(())
}

/// An ASCII digit's value; the planted mistake takes any Unicode decimal digit (the
/// default meaning of `\d` in Rust's and .NET's regex engines).
fn digit_value(character: char, slip: Option<Slip>) -> Option<u32> {
    if let Some(value) = character.to_digit(10) {
        return Some(value);
    }
    if slip == Some(Slip::VersionUnicodeDigits) {
        return unicode_digit_value(character);
    }
    None
}

/// The value of a non-ASCII decimal digit of the common blocks (enough for the mistake:
/// Arabic-Indic, extended Arabic-Indic, Devanagari, fullwidth).
fn unicode_digit_value(character: char) -> Option<u32> {
    let zeros = [0x0660u32, 0x06f0, 0x0966, 0x09e6, 0xff10];
    let code = u32::from(character);
    zeros
        .iter()
        .find(|zero| (**zero..**zero + 10).contains(&code))
        .map(|zero| code - zero)
}

/// Whether the date exists: month 1 to 12, day 1 to the month's length.
pub fn date_exists(date: CalendarDate, slip: Option<Slip>) -> bool {
    if slip == Some(Slip::YearZeroRefused) && date.year == 0 {
        return false;
    }
    let low = if slip == Some(Slip::MonthDayZero) {
        0
    } else {
        1
    };
    let high_month = if slip == Some(Slip::Month13) { 13 } else { 12 };
    if date.month < low || date.month > high_month {
        return false;
    }
    date.day >= low && date.day <= days_in_month(date.year, date.month, slip)
}

/// The length of a month of the proleptic Gregorian calendar.
pub fn days_in_month(year: u32, month: u32, slip: Option<Slip>) -> u32 {
    if slip == Some(Slip::Days31) {
        return 31;
    }
    match month {
        4 | 6 | 9 | 11 => 30,
        2 if is_leap(year, slip) => 29,
        2 => 28,
        _ => 31,
    }
}

/// Gregorian leap years: divisible by 4, except centuries not divisible by 400.
pub fn is_leap(year: u32, slip: Option<Slip>) -> bool {
    if slip == Some(Slip::LeapEveryFourth) {
        return year.is_multiple_of(4);
    }
    (year.is_multiple_of(4) && !year.is_multiple_of(100)) || year.is_multiple_of(400)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn follows_the_spec_examples_and_calendar() {
        for good in [
            "2026.07.14",
            "2026.07.14.1",
            "2026.07.14.42",
            "2024.02.29",
            "2000.02.29",
            "0000.01.01",
        ] {
            assert_eq!(check(good, None), Ok(()), "{good}");
        }
        for (bad, error) in [
            ("2026.7.14", CalendarError::Pattern),
            ("2026.07.14 ", CalendarError::Pattern),
            ("v2026.07.14", CalendarError::Pattern),
            ("2026.07.14.", CalendarError::Pattern),
            ("2026.07.14-rc1", CalendarError::Pattern),
            ("٢٠٢٦.07.14", CalendarError::Pattern),
            ("2025.02.29", CalendarError::Date),
            ("2100.02.29", CalendarError::Date),
            ("2026.13.01", CalendarError::Date),
            ("2026.00.10", CalendarError::Date),
            ("2026.04.31", CalendarError::Date),
        ] {
            assert_eq!(check(bad, None), Err(error), "{bad}");
        }
        assert_eq!(check("x2026.07.14y", Some(Slip::VersionUnanchored)), Ok(()));
    }
}
