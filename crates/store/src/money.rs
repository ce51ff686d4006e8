//! Money math, in integers only. Pure, no I/O.
//!
//! Prices are nano-USD per token (USD 0.15 per million input tokens = 150). One credit is
//! USD 0.001 = 1,000,000 nano-USD; a request costs `ceil(nano_usd / 1e6)` credits, at least 1,
//! so rounding never under-charges. Reasoning ("thinking") tokens are output tokens.
//!
//! Two USD figures coexist and are not the same thing: a credit is *worth* USD 0.001 when
//! pricing requests and when showing a balance in USD ([`NANO_USD_PER_CREDIT`],
//! [`credits_to_usd`]), while credits are *sold* at 500 per USD
//! ([`DEFAULT_CREDITS_PER_USD_SOLD`], configurable). The spec states both; the gap is the
//! operator's margin and is never used by the ledger.

/// Nano-USD in one credit (1 credit = USD 0.001).
pub const NANO_USD_PER_CREDIT: i64 = 1_000_000;
/// Credits one generated image costs.
pub const IMAGE_CREDITS: i64 = 10;
/// Credits sold per USD paid, unless configured otherwise. Not used for pricing.
pub const DEFAULT_CREDITS_PER_USD_SOLD: i64 = 500;

/// One price list for every text model, in nano-USD per token.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RateCard {
    pub input_nano_usd_per_token: i64,
    pub output_nano_usd_per_token: i64,
}

impl Default for RateCard {
    /// USD 0.15 per million input tokens, USD 0.90 per million output tokens.
    fn default() -> Self {
        RateCard {
            input_nano_usd_per_token: 150,
            output_nano_usd_per_token: 900,
        }
    }
}

impl RateCard {
    /// Exact cost in nano-USD. Negative token counts and prices count as 0. Cannot overflow:
    /// two `i64 × i64` products fit in an `i128`.
    pub fn nano_usd(&self, input_tokens: i64, output_tokens: i64) -> i128 {
        let input =
            i128::from(input_tokens.max(0)) * i128::from(self.input_nano_usd_per_token.max(0));
        let output =
            i128::from(output_tokens.max(0)) * i128::from(self.output_nano_usd_per_token.max(0));
        input + output
    }

    /// Cost in credits: `ceil(nano_usd / 1e6)`, at least 1, saturating at `i64::MAX`.
    pub fn credits(&self, input_tokens: i64, output_tokens: i64) -> i64 {
        nano_usd_to_credits(self.nano_usd(input_tokens, output_tokens))
    }
}

/// `ceil(nano / 1e6)` credits, at least 1, saturating at `i64::MAX`.
pub fn nano_usd_to_credits(nano: i128) -> i64 {
    let per = i128::from(NANO_USD_PER_CREDIT);
    let credits = if nano <= 0 { 0 } else { (nano + per - 1) / per };
    i64::try_from(credits).unwrap_or(i64::MAX).max(1)
}

/// The USD value of a number of credits, for display (`credits × 0.001`). The only float on
/// this path, and only at the edge: the ledger never reads it back.
pub fn credits_to_usd(credits: i64) -> f64 {
    // Split so that whole dollars and the milli part are each exact in an f64.
    let whole = credits / 1000;
    let milli = credits % 1000;
    whole as f64 + milli as f64 / 1000.0
}

/// The USD value of a number of credits in micro-USD (exact integer): `credits × 1000`,
/// saturating.
pub fn credits_to_usd_micros(credits: i64) -> i64 {
    credits.saturating_mul(1000)
}

/// What a settle charges: the billed credits clamped to `[0, hold]`; missing usage (`None`)
/// charges the whole hold. Negative billed credits never refund anything.
pub fn clamp_charge(billed: Option<i64>, hold: i64) -> i64 {
    let hold = hold.max(0);
    match billed {
        None => hold,
        Some(c) => c.clamp(0, hold),
    }
}

/// Split a charge between the plan's credits left today and the purchased balance, plan
/// first. Returns `(from_plan, from_balance)`.
///
/// `from_plan + from_balance == charge` whenever `charge <= plan_left + balance`, which the
/// hold guarantees unless the plan was lowered while the hold was active; then the part that
/// no bucket covers is not charged (the ledger never goes negative). Negative inputs count
/// as 0.
pub fn split_charge(charge: i64, plan_left: i64, balance: i64) -> (i64, i64) {
    let charge = charge.max(0);
    let from_plan = charge.min(plan_left.max(0));
    let from_balance = (charge - from_plan).min(balance.max(0));
    (from_plan, from_balance)
}

/// Who pays for a request decides which buckets it may spend.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Payer {
    /// A request made with an API key (`/api/v1`, or `/api/images/generate` with a key).
    ApiKey,
    /// A request made from the dashboard with a logged-in session.
    Session,
}

/// The free daily credits a request's hold may spend: the configured daily amount for a
/// session request, none for an API-key request (API requests never use the free daily
/// credits). A hold keeps this figure, so its settle follows the same rule.
pub fn free_allowance(payer: Payer, free_daily: i64) -> i64 {
    match payer {
        Payer::ApiKey => 0,
        Payer::Session => free_daily.max(0),
    }
}

/// What one settle spends from each bucket.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Spend {
    pub free: i64,
    pub plan: i64,
    pub balance: i64,
}

/// The spending order, fixed here for every request: the free daily credits first, then
/// the plan's daily credits, then the purchased balance. An API-key request has no free
/// credits to spend (`free_left` is 0 through [`free_allowance`]), so it spends plan, then
/// balance. As in [`split_charge`], a part that no bucket covers is not charged.
pub fn split_spend(charge: i64, free_left: i64, plan_left: i64, balance: i64) -> Spend {
    let charge = charge.max(0);
    let free = charge.min(free_left.max(0));
    let (plan, balance) = split_charge(charge - free, plan_left, balance);
    Spend {
        free,
        plan,
        balance,
    }
}

/// Credit available for a new hold: free daily credits left (0 for API keys), plan credits
/// left, balance, less what active holds reserve. Holds of both kinds count against it, so
/// a key request may be refused while session holds wait to be paid from free credits
/// (never the other way round: nothing is overspent).
pub fn available(free_left: i64, plan_left: i64, balance: i64, held: i64) -> i64 {
    free_left.max(0) + plan_left + balance - held
}

/// Milliseconds in a day.
pub const DAY_MS: i64 = 86_400_000;

/// The UTC day (days since 1970-01-01) of a Unix time in milliseconds. Plan credits reset
/// when it changes, at 00:00 UTC.
pub fn utc_day(now_ms: i64) -> i64 {
    now_ms.div_euclid(DAY_MS)
}

// The plan's day: the rule every backend follows. The free daily credits are a daily bucket
// of the same kind, counted by the same two functions on their own day and counter
// (`free_day`, `free_used`) with the hold's allowance as the daily amount.
//
// An account keeps one counter of plan credits: `plan_used` credits spent on `plan_day`.
// The plan day is the latest UTC day on which plan credits were spent; it moves only when
// a settle spends plan credits, and only forward. Movements are stamped with the clock of
// the gateway that made them (`now`), and clocks lag, so a settle stamped on an earlier day
// than the plan day can arrive after one that already spent credits on the new day. Such a
// settle is counted on the plan day: it gets the plan credits left on that day (never the
// earlier day's, whose count is gone; spending them again could pay a day's plan twice),
// then the balance. A settle that spends no plan credits (a void, a hold found expired, a
// charge of 0, an account without a plan or with nothing left) leaves the plan day and
// counter as they are, so the bucket a lagging settle pays from depends only on the plan
// credits actually spent before it, and `(plan_day, plan_used)` is exactly what the
// journal's plan rows say (the latest day with plan rows, and their sum on it).
//
// PostgreSQL evaluates the same rules in SQL (`shoal_plan_left` and its neighbours in the
// migrations, used by both the single statements and `shoal_ledger_batch`); a test checks
// them against these functions. SQLite evaluates them in Rust, here.

/// Plan credits left on `today`, given the plan day and how many were spent on it. A day in
/// the past means a reset; a plan day after `today` (a lagging clock) counts as today; used
/// credits above a lowered daily amount leave 0, never a negative number.
pub fn plan_left(daily: i64, plan_day: i64, plan_used: i64, today: i64) -> i64 {
    (daily - used_on(plan_day, plan_used, today)).max(0)
}

/// A daily bucket's credits spent as seen on `today`: the count of a past day is gone (a
/// reset); a later day (a lagging clock) counts as today.
pub fn used_on(day: i64, used: i64, today: i64) -> i64 {
    if day >= today {
        used
    } else {
        0
    }
}

/// The plan day and counter after a settle stamped on `today` spent `from_plan` plan
/// credits: unchanged when it spent none; otherwise counted on the later of the plan day and
/// `today`.
pub fn plan_after(plan_day: i64, plan_used: i64, today: i64, from_plan: i64) -> (i64, i64) {
    if from_plan <= 0 {
        (plan_day, plan_used)
    } else if plan_day >= today {
        (plan_day, plan_used + from_plan)
    } else {
        (today, from_plan)
    }
}

// A key's spending limit: a window counter of the same kind as the daily buckets. A key with
// a limit keeps `(window, spent)`, the credits its requests spent in the window that starts
// on UTC day `window`, and `held`, what its active holds reserve. A window is named by the
// UTC day it starts on, whatever its length, so the counter reads the same when the reset
// changes: `used_on` and `plan_after` count it exactly as they count a plan day (a window in
// the past is a reset; a lagging clock counts on the current window; it moves only forward,
// and only when a settle spends). A hold fits when the key's remaining covers it, and the
// account's available credit too, in the same conditional write. Only holds taken while the
// key has a limit count towards it (the hold remembers), so a limit counts the requests that
// start after it is set.

/// When a key's spending limit starts again.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum LimitReset {
    /// At 00:00 UTC.
    Daily,
    /// On Mondays at 00:00 UTC.
    Weekly,
    /// On the first of the month at 00:00 UTC.
    Monthly,
    /// Never: a lifetime limit.
    Never,
}

impl LimitReset {
    pub const fn as_str(self) -> &'static str {
        match self {
            LimitReset::Daily => "daily",
            LimitReset::Weekly => "weekly",
            LimitReset::Monthly => "monthly",
            LimitReset::Never => "never",
        }
    }

    pub fn parse(s: &str) -> Option<LimitReset> {
        Some(match s {
            "daily" => LimitReset::Daily,
            "weekly" => LimitReset::Weekly,
            "monthly" => LimitReset::Monthly,
            "never" => LimitReset::Never,
            _ => return None,
        })
    }
}

/// The UTC day the limit window containing `today` starts on (0 for `Never`: one window).
pub fn limit_window(reset: LimitReset, today: i64) -> i64 {
    match reset {
        LimitReset::Daily => today,
        // 1970-01-01 was a Thursday: Monday is 3 days before a day count divisible by 7.
        LimitReset::Weekly => today - (today + 3).rem_euclid(7),
        LimitReset::Monthly => {
            let (y, m, _) = civil_from_days(today);
            days_from_civil(y, m, 1)
        }
        LimitReset::Never => 0,
    }
}

/// The UTC day the next window starts on, after the one containing `today`; `None` for
/// `Never`.
pub fn limit_resets_on(reset: LimitReset, today: i64) -> Option<i64> {
    match reset {
        LimitReset::Daily => Some(today + 1),
        LimitReset::Weekly => Some(limit_window(reset, today) + 7),
        LimitReset::Monthly => {
            let (y, m, _) = civil_from_days(today);
            let (y, m) = if m == 12 { (y + 1, 1) } else { (y, m + 1) };
            Some(days_from_civil(y, m, 1))
        }
        LimitReset::Never => None,
    }
}

/// What a key may still reserve on `today`'s window: its limit less what it spent in the
/// window (`used_on` the window counter) and what its active holds reserve. Negative when a
/// lowered limit is below what is already spent or held.
pub fn key_left(limit: i64, window: i64, spent: i64, held: i64, current: i64) -> i64 {
    limit - used_on(window, spent, current) - held
}

/// Year, month (1-12), day of a day count since 1970-01-01 (proleptic Gregorian; Howard
/// Hinnant's algorithm, in integers): for messages that name a reset's date.
pub fn civil_from_days(days: i64) -> (i64, i64, i64) {
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1_460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    let y = yoe + era * 400 + i64::from(m <= 2);
    (y, m, d)
}

/// The day count since 1970-01-01 of a date: the inverse of [`civil_from_days`].
fn days_from_civil(y: i64, m: i64, d: i64) -> i64 {
    let y = if m <= 2 { y - 1 } else { y };
    let era = y.div_euclid(400);
    let yoe = y.rem_euclid(400);
    let mp = if m > 2 { m - 3 } else { m + 9 };
    let doy = (153 * mp + 2) / 5 + d - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn spec_examples() {
        let card = RateCard::default();
        assert_eq!(card.nano_usd(1_200, 600), 720_000);
        assert_eq!(card.credits(1_200, 600), 1);
        assert_eq!(card.nano_usd(100_000, 100_000), 105_000_000);
        assert_eq!(card.credits(100_000, 100_000), 105);
        assert_eq!(card.credits(0, 0), 1);
        assert_eq!(card.credits(-5, -5), 1);
        // One nano-USD over a credit boundary rounds up.
        let one = RateCard {
            input_nano_usd_per_token: 1,
            output_nano_usd_per_token: 0,
        };
        assert_eq!(one.credits(1_000_000, 0), 1);
        assert_eq!(one.credits(1_000_001, 0), 2);
        assert_eq!(card.credits(i64::MAX, i64::MAX), 9_684_540_638_697_515);
        assert_eq!(IMAGE_CREDITS, 10);
    }

    #[test]
    fn usd_display() {
        assert_eq!(credits_to_usd(0), 0.0);
        assert_eq!(credits_to_usd(1), 0.001);
        assert_eq!(credits_to_usd(1_234), 1.234);
        assert_eq!(credits_to_usd(105), 0.105);
        assert_eq!(credits_to_usd(-1_500), -1.5);
        assert_eq!(credits_to_usd_micros(1_234), 1_234_000);
    }

    #[test]
    fn day_boundaries() {
        assert_eq!(utc_day(0), 0);
        assert_eq!(utc_day(86_399_999), 0);
        assert_eq!(utc_day(86_400_000), 1);
        assert_eq!(utc_day(-1), -1);
        assert_eq!(plan_left(100, 5, 30, 5), 70);
        assert_eq!(plan_left(100, 4, 30, 5), 100);
        assert_eq!(plan_left(20, 5, 30, 5), 0);
        assert_eq!(
            plan_left(100, 6, 30, 5),
            70,
            "a clock behind the last spend does not reset"
        );
    }

    #[test]
    fn plan_day_moves_only_with_plan_spent() {
        assert_eq!(plan_after(5, 30, 5, 10), (5, 40));
        assert_eq!(plan_after(4, 30, 5, 10), (5, 10), "a new day starts from 0");
        assert_eq!(
            plan_after(6, 30, 5, 10),
            (6, 40),
            "a lagging clock counts on the plan day"
        );
        assert_eq!(
            plan_after(4, 30, 5, 0),
            (4, 30),
            "nothing spent, nothing moves"
        );
        assert_eq!(plan_after(6, 30, 5, 0), (6, 30));
    }

    #[test]
    fn limit_windows() {
        // 2025-10-09 (a Thursday) is day 20,370.
        let day = 20_370;
        assert_eq!(civil_from_days(day), (2025, 10, 9));
        assert_eq!(limit_window(LimitReset::Daily, day), day);
        assert_eq!(
            limit_window(LimitReset::Weekly, day),
            day - 3,
            "Monday the 6th"
        );
        assert_eq!(limit_window(LimitReset::Monthly, day), day - 8, "the 1st");
        assert_eq!(limit_window(LimitReset::Never, day), 0);
        assert_eq!(limit_resets_on(LimitReset::Weekly, day), Some(day + 4));
        assert_eq!(limit_resets_on(LimitReset::Monthly, day), Some(day + 23));
        assert_eq!(limit_resets_on(LimitReset::Never, day), None);
        // December rolls into January; 2024 was a leap year.
        assert_eq!(
            limit_resets_on(LimitReset::Monthly, days_from_civil(2024, 12, 31)),
            Some(days_from_civil(2025, 1, 1))
        );
        assert_eq!(
            days_from_civil(2024, 3, 1) - days_from_civil(2024, 2, 1),
            29
        );
        assert_eq!(
            limit_window(LimitReset::Weekly, 0),
            -3,
            "1969-12-29 was a Monday"
        );
        assert_eq!(key_left(20, day, 15, 3, day), 2);
        assert_eq!(
            key_left(20, day - 1, 15, 3, day),
            17,
            "yesterday's spend is gone"
        );
        assert_eq!(key_left(10, day, 15, 0, day), -5, "a lowered limit");
        for r in [
            LimitReset::Daily,
            LimitReset::Weekly,
            LimitReset::Monthly,
            LimitReset::Never,
        ] {
            assert_eq!(LimitReset::parse(r.as_str()), Some(r));
        }
    }

    proptest! {
        #[test]
        fn windows_contain_their_day(day in -1_000_000i64..1_000_000) {
            let (y, m, d) = civil_from_days(day);
            prop_assert_eq!(days_from_civil(y, m, d), day);
            for r in [LimitReset::Daily, LimitReset::Weekly, LimitReset::Monthly] {
                let start = limit_window(r, day);
                let next = limit_resets_on(r, day).unwrap();
                prop_assert!(start <= day && day < next);
                prop_assert_eq!(limit_window(r, next), next, "the next window starts there");
                prop_assert_eq!(limit_window(r, next - 1), start, "one window up to it");
            }
        }

        #[test]
        fn rounding_never_undercharges(
            input in 0i64..10_000_000_000,
            output in 0i64..10_000_000_000,
            in_price in 0i64..100_000,
            out_price in 0i64..100_000,
        ) {
            let card = RateCard { input_nano_usd_per_token: in_price, output_nano_usd_per_token: out_price };
            let nano = card.nano_usd(input, output);
            let credits = card.credits(input, output);
            prop_assert!(credits >= 1);
            prop_assert!(i128::from(credits) * 1_000_000 >= nano, "under-charged");
            if credits > 1 {
                prop_assert!(i128::from(credits - 1) * 1_000_000 < nano, "over-rounded");
            } else {
                prop_assert!(nano <= 1_000_000);
            }
        }

        #[test]
        fn monotonic_in_tokens(
            input in 0i64..1_000_000_000,
            output in 0i64..1_000_000_000,
            more_in in 0i64..1_000_000,
            more_out in 0i64..1_000_000,
        ) {
            let card = RateCard::default();
            prop_assert!(card.credits(input + more_in, output + more_out) >= card.credits(input, output));
            prop_assert!(card.nano_usd(input + more_in, output) >= card.nano_usd(input, output));
        }

        #[test]
        fn negatives_count_as_zero(input in i64::MIN..0, output in i64::MIN..0, x in 0i64..1_000_000) {
            let card = RateCard::default();
            prop_assert_eq!(card.nano_usd(input, output), 0);
            prop_assert_eq!(card.credits(input, output), 1);
            prop_assert_eq!(card.credits(input, x), card.credits(0, x));
            prop_assert_eq!(card.credits(x, output), card.credits(x, 0));
        }

        #[test]
        fn clamping(billed in proptest::option::of(any::<i64>()), hold in 0i64..1_000_000_000) {
            let c = clamp_charge(billed, hold);
            prop_assert!((0..=hold).contains(&c));
            match billed {
                None => prop_assert_eq!(c, hold),
                Some(b) if b < 0 => prop_assert_eq!(c, 0),
                Some(b) if b > hold => prop_assert_eq!(c, hold),
                Some(b) => prop_assert_eq!(c, b),
            }
        }

        #[test]
        fn plan_spent_is_counted_once(
            daily in 0i64..1_000,
            plan_day in 0i64..10,
            plan_used in 0i64..1_000,
            today in 0i64..10,
            charge in 0i64..2_000,
        ) {
            let left = plan_left(daily, plan_day, plan_used, today);
            let (from_plan, _) = split_charge(charge, left, 0);
            let (day, used) = plan_after(plan_day, plan_used, today, from_plan);
            prop_assert!(day >= plan_day, "the plan day moved back");
            // The day counted on loses exactly what was spent, as seen from `today`.
            prop_assert_eq!(plan_left(daily, day, used, today), left - from_plan);
            if from_plan == 0 {
                prop_assert_eq!((day, used), (plan_day, plan_used));
            }
        }

        #[test]
        fn free_then_plan_then_balance(
            charge in -1_000i64..1_000_000,
            free in -1_000i64..1_000_000,
            plan in -1_000i64..1_000_000,
            balance in -1_000i64..1_000_000,
        ) {
            let s = split_spend(charge, free, plan, balance);
            prop_assert!(s.free >= 0 && s.plan >= 0 && s.balance >= 0);
            prop_assert!(s.free <= free.max(0) && s.plan <= plan.max(0) && s.balance <= balance.max(0));
            prop_assert!(s.free + s.plan + s.balance <= charge.max(0));
            if charge.max(0) <= free.max(0) + plan.max(0) + balance.max(0) {
                prop_assert_eq!(s.free + s.plan + s.balance, charge.max(0));
            }
            // Each bucket is touched only once the ones before it are used up.
            if s.plan > 0 || s.balance > 0 {
                prop_assert_eq!(s.free, free.max(0));
            }
            // Without free credits (an API key) it is the plan-then-balance split.
            let (p, b) = split_charge(charge, plan, balance);
            let key = split_spend(charge, free_allowance(Payer::ApiKey, free), plan, balance);
            prop_assert_eq!((key.free, key.plan, key.balance), (0, p, b));
        }

        #[test]
        fn plan_then_balance_split(
            charge in -1_000i64..1_000_000,
            plan in -1_000i64..1_000_000,
            balance in -1_000i64..1_000_000,
        ) {
            let (p, b) = split_charge(charge, plan, balance);
            prop_assert!(p >= 0 && b >= 0);
            prop_assert!(p <= plan.max(0), "plan part above plan left");
            prop_assert!(b <= balance.max(0), "balance part above balance");
            prop_assert!(p + b <= charge.max(0));
            if charge.max(0) <= plan.max(0) + balance.max(0) {
                prop_assert_eq!(p + b, charge.max(0), "sum does not match the charge");
            }
            // Plan first: the balance is touched only once the plan part is used up.
            if b > 0 {
                prop_assert_eq!(p, plan.max(0));
            }
        }
    }
}
