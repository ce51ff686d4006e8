//! What a request cost, as the usage blocks of every route show it: `cost`, whole credits
//! (what the ledger charged), and `cost_usd`, the same amount in USD as a decimal string made
//! from the integer (1 credit = USD 0.001), so no float ever carries money.

use serde::{Deserialize, Deserializer, Serialize, Serializer};

/// Credits shown as their USD value, a decimal string with three places (`7` → `"0.007"`).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash)]
pub struct UsdOfCredits(pub i64);

impl std::fmt::Display for UsdOfCredits {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let sign = if self.0 < 0 { "-" } else { "" };
        let abs = self.0.unsigned_abs();
        write!(f, "{sign}{}.{:03}", abs / 1000, abs % 1000)
    }
}

impl Serialize for UsdOfCredits {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(self)
    }
}

impl<'de> Deserialize<'de> for UsdOfCredits {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let text = <std::borrow::Cow<'de, str>>::deserialize(d)?;
        parse_usd(&text)
            .map(UsdOfCredits)
            .ok_or_else(|| serde::de::Error::custom("expected a USD amount with three decimals"))
    }
}

/// `"D.ddd"` (an optional `-`, whole dollars, exactly three decimals) as credits.
fn parse_usd(text: &str) -> Option<i64> {
    let (negative, digits) = match text.strip_prefix('-') {
        Some(rest) => (true, rest),
        None => (false, text),
    };
    let (whole, milli) = digits.split_once('.')?;
    let all_digits = |s: &str| !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit());
    if !all_digits(whole) || milli.len() != 3 || !all_digits(milli) {
        return None;
    }
    let credits = whole
        .parse::<i64>()
        .ok()?
        .checked_mul(1000)?
        .checked_add(milli.parse::<i64>().ok()?)?;
    Some(if negative { -credits } else { credits })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn credits_read_as_usd_and_back() {
        for (credits, text) in [
            (0, "0.000"),
            (7, "0.007"),
            (1000, "1.000"),
            (123_456, "123.456"),
            (-5, "-0.005"),
        ] {
            let json = serde_json::to_string(&UsdOfCredits(credits)).unwrap();
            assert_eq!(json, format!("\"{text}\""));
            assert_eq!(
                serde_json::from_str::<UsdOfCredits>(&json).unwrap(),
                UsdOfCredits(credits)
            );
        }
        for bad in [
            "1",
            "1.0",
            "1.0000",
            "a.000",
            ".000",
            "1.00x",
            "99999999999999999.000",
        ] {
            assert!(parse_usd(bad).is_none(), "{bad}");
        }
        let max = UsdOfCredits(i64::MAX).to_string();
        assert_eq!(parse_usd(&max), Some(i64::MAX));
    }
}
