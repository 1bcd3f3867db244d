//! UTCTime and GeneralizedTime (RFC 5280 section 4.1.2.5) as Unix seconds.

use super::tags::*;
use super::writer::tlv;
use super::Tlv;
use crate::{Error, Result};

/// Seconds since the Unix epoch (may be negative) of a civil UTC date.
pub fn days_from_civil(y: i64, m: i64, d: i64) -> i64 {
    let y = if m <= 2 { y - 1 } else { y };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let mp = (m + 9) % 12;
    let doy = (153 * mp + 2) / 5 + d - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146097 + doe - 719468
}

/// (year, month, day) of a day count since the epoch.
pub fn civil_from_days(z: i64) -> (i64, i64, i64) {
    let z = z + 719468;
    let era = z.div_euclid(146097);
    let doe = z - era * 146097;
    let yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
    let y = yoe + era * 400;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    (if m <= 2 { y + 1 } else { y }, m, d)
}

fn digits(b: &[u8]) -> Option<i64> {
    if b.iter().all(u8::is_ascii_digit) {
        Some(b.iter().fold(0i64, |a, &c| a * 10 + (c - b'0') as i64))
    } else {
        None
    }
}

fn days_in_month(y: i64, m: i64) -> i64 {
    match m {
        1 | 3 | 5 | 7 | 8 | 10 | 12 => 31,
        4 | 6 | 9 | 11 => 30,
        _ if (y % 4 == 0 && y % 100 != 0) || y % 400 == 0 => 29,
        _ => 28,
    }
}

/// The earliest and latest times accepted: years 0001 to 9999.
pub const MIN_TIME: i64 = -62_135_596_800;
pub const MAX_TIME: i64 = 253_402_300_799;

/// Parses a DER UTCTime ("YYMMDDHHMMSSZ", RFC 5280: 50–99 are 19xx) or
/// GeneralizedTime ("YYYYMMDDHHMMSSZ") into Unix seconds.
pub fn parse_time(t: &Tlv<'_>, field: &str) -> Result<i64> {
    let v = t.value;
    let (year, rest) = match t.tag {
        UTC_TIME if v.len() == 13 => {
            let yy = digits(&v[..2]);
            (yy.map(|y| if y >= 50 { 1900 + y } else { 2000 + y }), &v[2..])
        }
        GENERALIZED_TIME if v.len() == 15 => (digits(&v[..4]), &v[4..]),
        UTC_TIME | GENERALIZED_TIME => {
            return Err(Error::invalid(format!(
                "invalid {field}: time must be YYMMDDHHMMSSZ (UTCTime) or YYYYMMDDHHMMSSZ (GeneralizedTime)"
            )))
        }
        other => return Err(Error::invalid(format!("invalid {field}: expected a time, got tag 0x{other:02X}"))),
    };
    let parsed = (|| {
        let y = year?;
        if rest[10] != b'Z' {
            return None;
        }
        let (mo, d, h, mi, s) = (
            digits(&rest[0..2])?,
            digits(&rest[2..4])?,
            digits(&rest[4..6])?,
            digits(&rest[6..8])?,
            digits(&rest[8..10])?,
        );
        if y < 1 || !(1..=12).contains(&mo) || d < 1 || d > days_in_month(y, mo) || h > 23 || mi > 59 || s > 59 {
            return None;
        }
        Some(days_from_civil(y, mo, d) * 86400 + h * 3600 + mi * 60 + s)
    })();
    parsed.ok_or_else(|| Error::invalid(format!("invalid {field}: not a valid UTC date and time")))
}

/// RFC 5280's choice: UTCTime for 1950–2049, GeneralizedTime otherwise.
pub fn encode_time(secs: i64) -> Result<Vec<u8>> {
    if !(MIN_TIME..=MAX_TIME).contains(&secs) {
        return Err(Error::invalid(format!("time {secs} is outside years 1 to 9999")));
    }
    let (y, mo, d) = civil_from_days(secs.div_euclid(86400));
    let sod = secs.rem_euclid(86400);
    let (h, mi, s) = (sod / 3600, sod / 60 % 60, sod % 60);
    if (1950..2050).contains(&y) {
        let text = format!("{:02}{mo:02}{d:02}{h:02}{mi:02}{s:02}Z", y % 100);
        Ok(tlv(UTC_TIME, text.as_bytes()))
    } else {
        let text = format!("{y:04}{mo:02}{d:02}{h:02}{mi:02}{s:02}Z");
        Ok(tlv(GENERALIZED_TIME, text.as_bytes()))
    }
}

/// A GeneralizedTime ("YYYYMMDDHHMMSSZ") whatever the year, for the
/// structures that require it (OCSP's producedAt, thisUpdate, nextUpdate).
pub fn encode_generalized_time(secs: i64) -> Result<Vec<u8>> {
    if !(MIN_TIME..=MAX_TIME).contains(&secs) {
        return Err(Error::invalid(format!("time {secs} is outside years 1 to 9999")));
    }
    let (y, mo, d) = civil_from_days(secs.div_euclid(86400));
    let sod = secs.rem_euclid(86400);
    let text = format!("{y:04}{mo:02}{d:02}{:02}{:02}{:02}Z", sod / 3600, sod / 60 % 60, sod % 60);
    Ok(tlv(GENERALIZED_TIME, text.as_bytes()))
}

/// "2026-12-01 19:49:01 UTC" for messages.
pub fn format_time(secs: i64) -> String {
    let (y, mo, d) = civil_from_days(secs.div_euclid(86400));
    let sod = secs.rem_euclid(86400);
    format!("{y:04}-{mo:02}-{d:02} {:02}:{:02}:{:02} UTC", sod / 3600, sod / 60 % 60, sod % 60)
}

#[cfg(test)]
mod tests {
    use super::super::Reader;
    use super::*;
    #[test]
    fn civil_round_trip() {
        for days in [-719_162i64, -25_567, -1, 0, 1, 18_000, 29_220, 2_932_896] {
            let (y, m, d) = civil_from_days(days);
            assert_eq!(days_from_civil(y, m, d), days);
        }
        assert_eq!(days_from_civil(1970, 1, 1), 0);
        assert_eq!(days_from_civil(2000, 3, 1), 11_017);
    }

    #[test]
    fn times() {
        let t = encode_time(-631_152_000).unwrap(); // 1950-01-01
        assert_eq!(&t[2..], b"500101000000Z");
        let t = encode_time(-631_152_001).unwrap();
        assert_eq!(&t[2..], b"19491231235959Z");
        let t = encode_time(2_524_608_000).unwrap(); // 2050-01-01
        assert_eq!(&t[2..], b"20500101000000Z");
        let mut r = Reader::new(&t, "t");
        assert_eq!(parse_time(&r.any().unwrap(), "t").unwrap(), 2_524_608_000);
        for bad in [&b"\x17\x0d500132000000Z"[..], b"\x17\x0d5001010000000", b"\x18\x0d500101000000Z"] {
            let mut r = Reader::new(bad, "t");
            assert!(parse_time(&r.any().unwrap(), "t").is_err());
        }
    }
}
