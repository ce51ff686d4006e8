//! Integers and numbers between bounds, spelled out digit by digit.
//!
//! A range of whole numbers becomes alternatives of character classes, one set per digit
//! count: `[17, 213]` is `"1" [7-9] | [2-9] [0-9] | "1" [0-9]{2} | "2" "0" [0-9] | "21" [0-3]`.
//! A number between whole-number bounds is its integer part from such a range, then a
//! fraction whose rules depend on whether the integer part sits on a bound (`1.5` is above
//! an exclusive minimum of 1; only `1` or `1.0…` is at an inclusive maximum of 1).

use shoal_protocol::schema::{Bound, IntRange, NumberRange, MAX_MAGNITUDE};

use super::rules::{group, join, literal};

/// An expression for an integer in `range`.
pub(super) fn integer(range: IntRange) -> String {
    if range.min.is_none() && range.max.is_none() {
        return "integer".to_owned();
    }
    let (min, max) = (
        range.min.unwrap_or(-MAX_MAGNITUDE),
        range.max.unwrap_or(MAX_MAGNITUDE),
    );
    let mut alternatives = Vec::new();
    if max >= 0 {
        alternatives.extend(whole(min.max(0) as u64, max as u64));
    }
    if min < 0 {
        // Negative integers: `-` and a magnitude of at least 1 (never `-0`).
        let magnitudes = whole((-max).max(1) as u64, min.unsigned_abs());
        alternatives.push(format!("\"-\" ( {} )", magnitudes.join(" | ")));
    }
    group(alternatives)
}

/// An expression for a number in `range`. A bounded number has no exponent.
pub(super) fn number(range: NumberRange) -> String {
    if range.min.is_none() && range.max.is_none() {
        return "number".to_owned();
    }
    let min = range.min.unwrap_or(Bound {
        value: -MAX_MAGNITUDE,
        exclusive: false,
    });
    let max = range.max.unwrap_or(Bound {
        value: MAX_MAGNITUDE,
        exclusive: false,
    });
    let mut alternatives = Vec::new();
    if max.value > 0 || (max.value == 0 && !max.exclusive) {
        let low = if min.value >= 0 {
            min
        } else {
            Bound {
                value: 0,
                exclusive: false,
            }
        };
        alternatives.extend(magnitude(low, max));
    }
    if min.value < 0 {
        // Below zero: `-` and a magnitude above 0 (zero itself is written unsigned).
        let low = if max.value < 0 {
            Bound {
                value: -max.value,
                exclusive: max.exclusive,
            }
        } else {
            Bound {
                value: 0,
                exclusive: true,
            }
        };
        let high = Bound {
            value: -min.value,
            exclusive: min.exclusive,
        };
        let parts = magnitude(low, high);
        if !parts.is_empty() {
            alternatives.push(format!("\"-\" ( {} )", parts.join(" | ")));
        }
    }
    group(alternatives)
}

/// Any fraction, or none.
const ANY_FRACTION: &str = "( \".\" [0-9]{1,16} )?";
/// A fraction of zeros, or none: the value is the integer part.
const ZERO_FRACTION: &str = "( \".\" \"0\"{1,16} )?";
/// A fraction with a digit other than 0: the value is above the integer part.
const NONZERO_FRACTION: &str = "\".\" \"0\"{0,15} [1-9] [0-9]{0,15}";

/// Alternatives for a non-negative number between `low` and `high` (`0 <= low <= high`).
fn magnitude(low: Bound, high: Bound) -> Vec<String> {
    let (a, b) = (low.value as u64, high.value as u64);
    let mut out = Vec::new();
    let at_low = match (low.exclusive, a == b) {
        (false, true) if !high.exclusive => ZERO_FRACTION,
        (_, true) => return out,
        (false, false) => ANY_FRACTION,
        (true, false) => NONZERO_FRACTION,
    };
    out.push(format!("{} {at_low}", literal(&a.to_string())));
    if a == b {
        return out;
    }
    if a + 1 < b {
        for part in whole(a + 1, b - 1) {
            out.push(format!("{part} {ANY_FRACTION}"));
        }
    }
    if !high.exclusive {
        out.push(format!("{} {ZERO_FRACTION}", literal(&b.to_string())));
    }
    out
}

/// Alternatives for the whole numbers `lo..=hi`, written without leading zeros.
pub(super) fn whole(lo: u64, hi: u64) -> Vec<String> {
    let mut out = Vec::new();
    if lo > hi {
        return out;
    }
    let digits = |n: u64| n.to_string().len() as u32;
    for d in digits(lo)..=digits(hi) {
        let first = if d == 1 { 0 } else { 10u64.pow(d - 1) };
        let last = 10u64.pow(d) - 1;
        let (l, h) = (lo.max(first), hi.min(last));
        out.extend(same_length(
            l.to_string().as_bytes(),
            h.to_string().as_bytes(),
        ));
    }
    out
}

/// Alternatives for the digit strings from `lo` to `hi`, both of the same length.
fn same_length(lo: &[u8], hi: &[u8]) -> Vec<String> {
    if lo.is_empty() {
        return vec![String::new()];
    }
    let rest = lo.len() - 1;
    let (a, b) = (lo[0], hi[0]);
    if a == b {
        let head = literal(&(a as char).to_string());
        return same_length(&lo[1..], &hi[1..])
            .into_iter()
            .map(|tail| join(&head, &tail))
            .collect();
    }
    let low_full = lo[1..].iter().all(|&c| c == b'0');
    let high_full = hi[1..].iter().all(|&c| c == b'9');
    let any_rest = if rest == 0 {
        String::new()
    } else if rest == 1 {
        "[0-9]".to_owned()
    } else {
        format!("[0-9]{{{rest}}}")
    };
    let mut out = Vec::new();
    if !low_full {
        let nines = vec![b'9'; rest];
        let head = literal(&(a as char).to_string());
        for tail in same_length(&lo[1..], &nines) {
            out.push(join(&head, &tail));
        }
    }
    let from = if low_full { a } else { a + 1 };
    let to = if high_full { b } else { b - 1 };
    if from <= to {
        let class = if from == to {
            literal(&(from as char).to_string())
        } else {
            format!("[{}-{}]", from as char, to as char)
        };
        out.push(join(&class, &any_rest));
    }
    if !high_full {
        let zeros = vec![b'0'; rest];
        let head = literal(&(b as char).to_string());
        for tail in same_length(&zeros, &hi[1..]) {
            out.push(join(&head, &tail));
        }
    }
    out
}
