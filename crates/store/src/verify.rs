//! `verify_ledger`: recompute every account from the journal and compare.
//!
//! The database does the heavy lifting (grouped sums), so memory stays proportional to the
//! number of accounts and of holds still active, not to the size of the journal. All
//! queries run in one read transaction (one snapshot). The SQL is the same on both backends.

use std::collections::{BTreeMap, HashMap};

use crate::{AccountId, Discrepancy, LedgerReport};

pub(crate) const ACCOUNTS: &str =
    "SELECT id, credits, total_deposited, total_spent, held, plan_day, plan_used, free_day,
            free_used
       FROM accounts ORDER BY id";

pub(crate) const JOURNAL_SUMS: &str = "SELECT account_id,
        CAST(COALESCE(SUM(CASE WHEN kind = 'deposit' THEN credits
                               WHEN kind = 'adjustment' AND credits > 0 THEN credits
                               ELSE 0 END), 0) AS BIGINT) AS deposited,
        CAST(COALESCE(SUM(CASE WHEN kind = 'settle' AND bucket = 'balance' THEN credits
                               WHEN kind = 'adjustment' AND credits < 0 THEN -credits
                               ELSE 0 END), 0) AS BIGINT) AS spent,
        CAST(COUNT(CASE WHEN (kind = 'deposit' AND (credits <= 0 OR bucket IS NULL OR bucket <> 'balance'))
                          OR (kind IN ('hold') AND credits <= 0)
                          OR (kind = 'settle' AND (credits < 0 OR bucket IS NULL))
                          OR (kind = 'settle' AND bucket IN ('plan', 'free') AND plan_day IS NULL)
                          OR (kind IN ('void', 'expire') AND credits <> 0)
                          OR (kind IN ('hold', 'settle', 'void', 'expire') AND request_id IS NULL)
                        THEN 1 END) AS BIGINT) AS malformed,
        MAX(CASE WHEN kind = 'settle' AND bucket = 'plan' THEN plan_day END) AS last_plan_day,
        MAX(CASE WHEN kind = 'settle' AND bucket = 'free' THEN plan_day END) AS last_free_day
       FROM journal GROUP BY account_id";

/// Plan credits spent on each account's current plan day.
pub(crate) const PLAN_USED: &str = "SELECT j.account_id, CAST(SUM(j.credits) AS BIGINT) AS used
       FROM journal j JOIN accounts a ON a.id = j.account_id
      WHERE j.kind = 'settle' AND j.bucket = 'plan' AND j.plan_day = a.plan_day
      GROUP BY j.account_id";

/// Free credits spent on each account's current free day.
pub(crate) const FREE_USED: &str = "SELECT j.account_id, CAST(SUM(j.credits) AS BIGINT) AS used
       FROM journal j JOIN accounts a ON a.id = j.account_id
      WHERE j.kind = 'settle' AND j.bucket = 'free' AND j.plan_day = a.free_day
      GROUP BY j.account_id";

/// Per request: holds that are still open, and any whose life in the journal breaks a rule
/// (not exactly one hold row, more than one end, a settle over the hold, ...).
pub(crate) const HOLD_LIVES: &str = "SELECT * FROM (
        SELECT request_id,
               MIN(account_id) AS account_id,
               CAST(COUNT(DISTINCT account_id) AS BIGINT) AS accounts,
               CAST(COUNT(CASE WHEN kind = 'hold' THEN 1 END) AS BIGINT) AS hold_rows,
               CAST(COALESCE(SUM(CASE WHEN kind = 'hold' THEN credits END), 0) AS BIGINT) AS hold_credits,
               CAST(COUNT(DISTINCT CASE WHEN kind IN ('settle', 'void', 'expire') THEN kind END) AS BIGINT) AS end_kinds,
               CAST(COUNT(CASE WHEN kind IN ('void', 'expire') THEN 1 END) AS BIGINT) AS release_rows,
               CAST(COUNT(CASE WHEN kind = 'settle' AND bucket = 'plan' THEN 1 END) AS BIGINT) AS plan_rows,
               CAST(COUNT(CASE WHEN kind = 'settle' AND bucket = 'free' THEN 1 END) AS BIGINT) AS free_rows,
               CAST(COUNT(CASE WHEN kind = 'settle' AND bucket = 'balance' THEN 1 END) AS BIGINT) AS balance_rows,
               CAST(COALESCE(SUM(CASE WHEN kind = 'settle' THEN credits END), 0) AS BIGINT) AS spent
          FROM journal
         WHERE request_id IS NOT NULL AND kind IN ('hold', 'settle', 'void', 'expire')
         GROUP BY request_id
      ) t
      WHERE end_kinds <> 1 OR accounts <> 1 OR hold_rows <> 1 OR release_rows > 1
         OR plan_rows > 1 OR free_rows > 1 OR balance_rows > 1 OR spent > hold_credits
         OR (end_kinds = 1 AND release_rows = 0 AND balance_rows = 0)";

/// The usage rollup's sums per account and key (0: no key; the rollup's -1, usage from
/// before keys were recorded, has no key in the journal either), and the journal's.
pub(crate) const USAGE_ROLLUP: &str = "SELECT account_id,
        CASE WHEN key_id > 0 THEN key_id ELSE 0 END AS key_id,
        CAST(SUM(requests) AS BIGINT) AS requests,
        CAST(SUM(input_tokens) AS BIGINT) AS input_tokens,
        CAST(SUM(output_tokens) AS BIGINT) AS output_tokens,
        CAST(SUM(credits) AS BIGINT) AS credits
       FROM usage_daily GROUP BY 1, 2";

pub(crate) const USAGE_JOURNAL: &str = "SELECT account_id,
        CASE WHEN key_id > 0 THEN key_id ELSE 0 END AS key_id,
        CAST(COUNT(CASE WHEN bucket = 'balance' THEN 1 END) AS BIGINT) AS requests,
        CAST(SUM(input_tokens) AS BIGINT) AS input_tokens,
        CAST(SUM(output_tokens) AS BIGINT) AS output_tokens,
        CAST(SUM(credits) AS BIGINT) AS credits
       FROM journal WHERE kind = 'settle' GROUP BY 1, 2";

/// Active holds, and what the ended holds still in the table charged, per account: as the
/// holds table says and as the journal says for the same request ids. (Ended holds are
/// pruned after a while, `Store::prune_holds`; the journal keeps every movement, so only
/// the holds still present can be compared.)
pub(crate) const HOLDS_TABLE: &str = "SELECT h.account_id,
        CAST(COUNT(CASE WHEN h.state = 'active' THEN 1 END) AS BIGINT) AS active,
        CAST(COALESCE(SUM(CASE WHEN h.state = 'active' THEN h.credits ELSE 0 END), 0) AS BIGINT) AS active_credits,
        CAST(COALESCE(SUM(h.charged_balance), 0) AS BIGINT) AS charged_balance,
        CAST(COALESCE(SUM(h.charged_plan), 0) AS BIGINT) AS charged_plan,
        CAST(COALESCE(SUM(h.charged_free), 0) AS BIGINT) AS charged_free,
        CAST(COALESCE(SUM(j.free), 0) AS BIGINT) AS journal_free,
        CAST(COALESCE(SUM(j.balance), 0) AS BIGINT) AS journal_balance,
        CAST(COALESCE(SUM(j.plan), 0) AS BIGINT) AS journal_plan
       FROM holds h
       LEFT JOIN (SELECT request_id,
                         SUM(CASE WHEN bucket = 'balance' THEN credits ELSE 0 END) AS balance,
                         SUM(CASE WHEN bucket = 'plan' THEN credits ELSE 0 END) AS plan,
                         SUM(CASE WHEN bucket = 'free' THEN credits ELSE 0 END) AS free
                    FROM journal
                   WHERE kind = 'settle' AND request_id IS NOT NULL
                   GROUP BY request_id) j ON j.request_id = h.request_id
      GROUP BY h.account_id";

#[derive(Debug, Default, Clone)]
pub(crate) struct StoredAccount {
    pub credits: i64,
    pub total_deposited: i64,
    pub total_spent: i64,
    pub held: i64,
    pub plan_day: i64,
    pub plan_used: i64,
    pub free_day: i64,
    pub free_used: i64,
}

#[derive(Debug, Default, Clone)]
pub(crate) struct JournalSums {
    pub deposited: i64,
    pub spent: i64,
    pub malformed: i64,
    pub last_plan_day: Option<i64>,
    pub last_free_day: Option<i64>,
}

#[derive(Debug, Clone)]
pub(crate) struct HoldLife {
    pub request_id: String,
    pub account_id: AccountId,
    pub accounts: i64,
    pub hold_rows: i64,
    pub hold_credits: i64,
    pub end_kinds: i64,
    pub release_rows: i64,
    pub plan_rows: i64,
    pub free_rows: i64,
    pub balance_rows: i64,
    pub spent: i64,
}

#[derive(Debug, Default, Clone)]
pub(crate) struct HoldsTable {
    pub active: i64,
    pub active_credits: i64,
    pub charged_balance: i64,
    pub charged_plan: i64,
    pub journal_balance: i64,
    pub journal_plan: i64,
    pub charged_free: i64,
    pub journal_free: i64,
}

/// Everything read from the database, in one snapshot.
#[derive(Debug, Default)]
pub(crate) struct Snapshot {
    pub accounts: BTreeMap<AccountId, StoredAccount>,
    pub journal: HashMap<AccountId, JournalSums>,
    pub plan_used: HashMap<AccountId, i64>,
    pub free_used: HashMap<AccountId, i64>,
    pub hold_lives: Vec<HoldLife>,
    pub holds: HashMap<AccountId, HoldsTable>,
    /// Per (account, key): requests, input and output tokens, credits; `.0` as the usage
    /// rollup says, `.1` as the journal says.
    pub usage: BTreeMap<(AccountId, i64), ([i64; 4], [i64; 4])>,
}

/// A daily bucket (the plan's credits, or the free ones) as an account row stores it, with
/// what the journal's rows that spent from it say.
struct Bucket<'a> {
    /// The prefix of its `_day` and `_used` columns.
    name: &'a str,
    /// How a message names what was spent.
    spent: &'a str,
    day: i64,
    used: i64,
    journal_used: i64,
    journal_last_day: Option<i64>,
}

/// A bucket's counter against the journal's sum for its day, and its day against the last
/// day the journal spent from it.
fn check_bucket(check: &mut impl FnMut(bool, String), b: Bucket) {
    check(
        b.used == b.journal_used,
        format!(
            "{}_used {} on day {} but the journal says {}",
            b.name, b.used, b.day, b.journal_used
        ),
    );
    if let Some(last) = b.journal_last_day {
        check(
            last <= b.day,
            format!(
                "{} spent on day {last}, after {}_day {}",
                b.spent, b.name, b.day
            ),
        );
    }
}

/// Compare the stored state with what the journal says it should be.
pub(crate) fn compare(s: &Snapshot) -> LedgerReport {
    let mut out = Vec::new();
    let mut say = |account_id: AccountId, what: String| out.push(Discrepancy { account_id, what });

    // Holds the journal says are open, per account; and broken hold lives.
    let mut open: HashMap<AccountId, (i64, i64)> = HashMap::new();
    for l in &s.hold_lives {
        if l.accounts == 1 && l.hold_rows == 1 && l.end_kinds == 0 {
            let e = open.entry(l.account_id).or_default();
            e.0 += 1;
            e.1 += l.hold_credits;
        } else {
            say(
                l.account_id,
                format!(
                    "request {}: broken hold life in the journal (accounts {}, hold rows {}, \
                     end kinds {}, release rows {}, plan rows {}, free rows {}, balance rows {}, \
                     spent {} of {})",
                    l.request_id,
                    l.accounts,
                    l.hold_rows,
                    l.end_kinds,
                    l.release_rows,
                    l.plan_rows,
                    l.free_rows,
                    l.balance_rows,
                    l.spent,
                    l.hold_credits
                ),
            );
        }
    }

    for (&id, a) in &s.accounts {
        let j = s.journal.get(&id).cloned().unwrap_or_default();
        let h = s.holds.get(&id).cloned().unwrap_or_default();
        let (open_count, open_credits) = open.get(&id).copied().unwrap_or_default();
        let mut check = |ok: bool, what: String| {
            if !ok {
                say(id, what);
            }
        };
        check(
            a.credits == a.total_deposited - a.total_spent,
            format!(
                "credits {} != total_deposited {} - total_spent {}",
                a.credits, a.total_deposited, a.total_spent
            ),
        );
        check(a.credits >= 0, format!("negative balance {}", a.credits));
        check(a.held >= 0, format!("negative held {}", a.held));
        check(
            a.total_deposited == j.deposited,
            format!(
                "total_deposited {} but the journal says {}",
                a.total_deposited, j.deposited
            ),
        );
        check(
            a.total_spent == j.spent,
            format!(
                "total_spent {} but the journal says {}",
                a.total_spent, j.spent
            ),
        );
        check(
            a.held == open_credits,
            format!(
                "held {} but the journal's open holds sum to {}",
                a.held, open_credits
            ),
        );
        check(
            h.active_credits == open_credits && h.active == open_count,
            format!(
                "holds table has {} active holds of {} credits, the journal {} of {}",
                h.active, h.active_credits, open_count, open_credits
            ),
        );
        check(
            h.charged_balance == h.journal_balance
                && h.charged_plan == h.journal_plan
                && h.charged_free == h.journal_free,
            format!(
                "holds table charged {} balance + {} plan + {} free, the journal {} + {} + {}",
                h.charged_balance,
                h.charged_plan,
                h.charged_free,
                h.journal_balance,
                h.journal_plan,
                h.journal_free
            ),
        );
        check_bucket(
            &mut check,
            Bucket {
                name: "free",
                spent: "free credits",
                day: a.free_day,
                used: a.free_used,
                journal_used: s.free_used.get(&id).copied().unwrap_or(0),
                journal_last_day: j.last_free_day,
            },
        );
        check_bucket(
            &mut check,
            Bucket {
                name: "plan",
                spent: "plan",
                day: a.plan_day,
                used: a.plan_used,
                journal_used: s.plan_used.get(&id).copied().unwrap_or(0),
                journal_last_day: j.last_plan_day,
            },
        );
        check(
            j.malformed == 0,
            format!("{} malformed journal rows", j.malformed),
        );
    }
    for (&(id, key), (rollup, journal)) in &s.usage {
        if rollup != journal {
            say(
                id,
                format!(
                    "usage of key {key}: the rollup has requests, tokens in and out, credits \
                     {rollup:?}, the journal {journal:?}"
                ),
            );
        }
    }
    for id in s.journal.keys().chain(s.holds.keys()) {
        if !s.accounts.contains_key(id) {
            say(
                *id,
                "journal or holds rows for an account that does not exist".into(),
            );
        }
    }
    out.sort_by(|a, b| {
        a.account_id
            .cmp(&b.account_id)
            .then_with(|| a.what.cmp(&b.what))
    });
    out.dedup();
    LedgerReport {
        accounts_checked: s.accounts.len() as u64,
        discrepancies: out,
    }
}
