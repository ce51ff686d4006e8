//! `verify_ledger`: recompute every account from the journal and compare.
//!
//! The database does the heavy lifting (grouped sums), so memory stays proportional to the
//! number of accounts and of holds still active, not to the size of the journal. All
//! queries run in one read transaction (one snapshot). The SQL is the same on both backends.

use std::collections::{BTreeMap, HashMap};

use sqlx::Row;

use crate::fault::DbResult;
use crate::{AccountId, Discrepancy, LedgerReport};

/// Every query `verify_ledger` runs, in the order [`Snapshot::from_rows`] reads their rows.
pub(crate) const QUERIES: [&str; 9] = [
    ACCOUNTS,
    JOURNAL_SUMS,
    PLAN_USED,
    FREE_USED,
    HOLD_LIVES,
    HOLDS_TABLE,
    USAGE_ROLLUP,
    USAGE_JOURNAL,
    KEY_LIMITS,
];

const ACCOUNTS: &str =
    "SELECT id, credits, total_deposited, total_spent, held, plan_day, plan_used, free_day,
            free_used
       FROM accounts ORDER BY id";

const JOURNAL_SUMS: &str = "SELECT account_id,
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
                          OR (key_window IS NOT NULL AND (key_id IS NULL OR kind = 'hold'))
                        THEN 1 END) AS BIGINT) AS malformed,
        MAX(CASE WHEN kind = 'settle' AND bucket = 'plan' THEN plan_day END) AS last_plan_day,
        MAX(CASE WHEN kind = 'settle' AND bucket = 'free' THEN plan_day END) AS last_free_day
       FROM journal GROUP BY account_id";

/// Plan credits spent on each account's current plan day.
const PLAN_USED: &str = "SELECT j.account_id, CAST(SUM(j.credits) AS BIGINT) AS used
       FROM journal j JOIN accounts a ON a.id = j.account_id
      WHERE j.kind = 'settle' AND j.bucket = 'plan' AND j.plan_day = a.plan_day
      GROUP BY j.account_id";

/// Free credits spent on each account's current free day.
const FREE_USED: &str = "SELECT j.account_id, CAST(SUM(j.credits) AS BIGINT) AS used
       FROM journal j JOIN accounts a ON a.id = j.account_id
      WHERE j.kind = 'settle' AND j.bucket = 'free' AND j.plan_day = a.free_day
      GROUP BY j.account_id";

/// Per request: holds that are still open, and any whose life in the journal breaks a rule
/// (not exactly one hold row, more than one end, a settle over the hold, ...).
const HOLD_LIVES: &str = "SELECT * FROM (
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
const USAGE_ROLLUP: &str = "SELECT account_id,
        CASE WHEN key_id > 0 THEN key_id ELSE 0 END AS key_id,
        CAST(SUM(requests) AS BIGINT) AS requests,
        CAST(SUM(input_tokens) AS BIGINT) AS input_tokens,
        CAST(SUM(output_tokens) AS BIGINT) AS output_tokens,
        CAST(SUM(credits) AS BIGINT) AS credits
       FROM usage_daily GROUP BY 1, 2";

const USAGE_JOURNAL: &str = "SELECT account_id,
        CASE WHEN key_id > 0 THEN key_id ELSE 0 END AS key_id,
        CAST(COUNT(CASE WHEN bucket = 'balance' THEN 1 END) AS BIGINT) AS requests,
        CAST(SUM(input_tokens) AS BIGINT) AS input_tokens,
        CAST(SUM(output_tokens) AS BIGINT) AS output_tokens,
        CAST(SUM(credits) AS BIGINT) AS credits
       FROM journal WHERE kind = 'settle' GROUP BY 1, 2";

/// Every key's limit counters, with what the holds table says it has reserved (its active
/// holds that counted towards the limit) and what the journal says it spent in its counted
/// window (the settle rows stamped with that window), and the latest window stamped.
const KEY_LIMITS: &str = "SELECT k.id, k.account_id, k.limit_window, k.limit_spent, k.limit_held,
        CAST(COALESCE(h.held, 0) AS BIGINT) AS holds_held,
        CAST(COALESCE(j.spent, 0) AS BIGINT) AS journal_spent,
        j.last_window
       FROM api_keys k
       LEFT JOIN (SELECT key_id, SUM(credits) AS held FROM holds
                   WHERE state = 'active' AND key_limited GROUP BY key_id) h ON h.key_id = k.id
       LEFT JOIN (SELECT j.key_id,
                         SUM(CASE WHEN j.key_window = w.limit_window THEN j.credits ELSE 0 END)
                             AS spent,
                         MAX(j.key_window) AS last_window
                    FROM journal j JOIN api_keys w ON w.id = j.key_id
                   WHERE j.kind = 'settle' AND j.key_window IS NOT NULL
                   GROUP BY j.key_id) j ON j.key_id = k.id";

/// Active holds, and what the ended holds still in the table charged, per account: as the
/// holds table says and as the journal says for the same request ids. (Ended holds are
/// pruned after a while, `Store::prune_holds`; the journal keeps every movement, so only
/// the holds still present can be compared.)
const HOLDS_TABLE: &str = "SELECT h.account_id,
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
    pub keys: Vec<KeyCounters>,
}

/// A key's limit counters as stored, and as the holds and the journal say.
#[derive(Debug, Clone)]
pub(crate) struct KeyCounters {
    pub key_id: i64,
    pub account_id: AccountId,
    pub window: i64,
    pub spent: i64,
    pub held: i64,
    pub holds_held: i64,
    pub journal_spent: i64,
    pub last_window: Option<i64>,
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

/// A row of either backend, read by column name.
pub(crate) trait Cols {
    fn int(&self, col: &str) -> DbResult<i64>;
    fn opt_int(&self, col: &str) -> DbResult<Option<i64>>;
    fn text(&self, col: &str) -> DbResult<String>;
}

macro_rules! cols_for {
    ($row:ty) => {
        impl Cols for $row {
            fn int(&self, col: &str) -> DbResult<i64> {
                Ok(self.try_get(col)?)
            }
            fn opt_int(&self, col: &str) -> DbResult<Option<i64>> {
                Ok(self.try_get(col)?)
            }
            fn text(&self, col: &str) -> DbResult<String> {
                Ok(self.try_get(col)?)
            }
        }
    };
}

cols_for!(sqlx::postgres::PgRow);
cols_for!(sqlx::sqlite::SqliteRow);

impl Snapshot {
    /// The snapshot from the rows of [`QUERIES`], in that order.
    pub(crate) fn from_rows<R: Cols>(rows: &[Vec<R>]) -> DbResult<Snapshot> {
        assert_eq!(rows.len(), QUERIES.len(), "one set of rows per query");
        let mut snap = Snapshot::default();
        for r in &rows[0] {
            snap.accounts.insert(r.int("id")?, stored_account(r)?);
        }
        for r in &rows[1] {
            snap.journal.insert(r.int("account_id")?, journal_sums(r)?);
        }
        for r in &rows[2] {
            snap.plan_used.insert(r.int("account_id")?, r.int("used")?);
        }
        for r in &rows[3] {
            snap.free_used.insert(r.int("account_id")?, r.int("used")?);
        }
        for r in &rows[4] {
            snap.hold_lives.push(hold_life(r)?);
        }
        for r in &rows[5] {
            snap.holds.insert(r.int("account_id")?, holds_table(r)?);
        }
        for (set, rollup) in [(&rows[6], true), (&rows[7], false)] {
            for r in set {
                let sums = [
                    r.int("requests")?,
                    r.int("input_tokens")?,
                    r.int("output_tokens")?,
                    r.int("credits")?,
                ];
                let entry = snap
                    .usage
                    .entry((r.int("account_id")?, r.int("key_id")?))
                    .or_default();
                *(if rollup { &mut entry.0 } else { &mut entry.1 }) = sums;
            }
        }
        for r in &rows[8] {
            snap.keys.push(KeyCounters {
                key_id: r.int("id")?,
                account_id: r.int("account_id")?,
                window: r.int("limit_window")?,
                spent: r.int("limit_spent")?,
                held: r.int("limit_held")?,
                holds_held: r.int("holds_held")?,
                journal_spent: r.int("journal_spent")?,
                last_window: r.opt_int("last_window")?,
            });
        }
        Ok(snap)
    }
}

fn stored_account(r: &impl Cols) -> DbResult<StoredAccount> {
    Ok(StoredAccount {
        credits: r.int("credits")?,
        total_deposited: r.int("total_deposited")?,
        total_spent: r.int("total_spent")?,
        held: r.int("held")?,
        plan_day: r.int("plan_day")?,
        plan_used: r.int("plan_used")?,
        free_day: r.int("free_day")?,
        free_used: r.int("free_used")?,
    })
}

fn journal_sums(r: &impl Cols) -> DbResult<JournalSums> {
    Ok(JournalSums {
        deposited: r.int("deposited")?,
        spent: r.int("spent")?,
        malformed: r.int("malformed")?,
        last_plan_day: r.opt_int("last_plan_day")?,
        last_free_day: r.opt_int("last_free_day")?,
    })
}

fn hold_life(r: &impl Cols) -> DbResult<HoldLife> {
    Ok(HoldLife {
        request_id: r.text("request_id")?,
        account_id: r.int("account_id")?,
        accounts: r.int("accounts")?,
        hold_rows: r.int("hold_rows")?,
        hold_credits: r.int("hold_credits")?,
        end_kinds: r.int("end_kinds")?,
        release_rows: r.int("release_rows")?,
        plan_rows: r.int("plan_rows")?,
        free_rows: r.int("free_rows")?,
        balance_rows: r.int("balance_rows")?,
        spent: r.int("spent")?,
    })
}

fn holds_table(r: &impl Cols) -> DbResult<HoldsTable> {
    Ok(HoldsTable {
        active: r.int("active")?,
        active_credits: r.int("active_credits")?,
        charged_balance: r.int("charged_balance")?,
        charged_plan: r.int("charged_plan")?,
        journal_balance: r.int("journal_balance")?,
        journal_plan: r.int("journal_plan")?,
        charged_free: r.int("charged_free")?,
        journal_free: r.int("journal_free")?,
    })
}

/// Discrepancies found, each against the account it concerns.
#[derive(Default)]
struct Findings(Vec<Discrepancy>);

impl Findings {
    fn say(&mut self, account_id: AccountId, what: String) {
        self.0.push(Discrepancy { account_id, what });
    }

    /// Records `what` against `account_id` unless `ok`.
    fn check(&mut self, account_id: AccountId, ok: bool, what: impl FnOnce() -> String) {
        if !ok {
            self.say(account_id, what());
        }
    }
}

/// Compare the stored state with what the journal says it should be.
pub(crate) fn compare(s: &Snapshot) -> LedgerReport {
    let mut found = Findings::default();
    let open = open_holds(s, &mut found);
    for (&id, a) in &s.accounts {
        let j = s.journal.get(&id).cloned().unwrap_or_default();
        let h = s.holds.get(&id).cloned().unwrap_or_default();
        let open = open.get(&id).copied().unwrap_or_default();
        check_totals(&mut found, id, a, &j);
        check_holds(&mut found, id, a, &h, open);
        check_daily_buckets(&mut found, id, a, &j, s);
        found.check(id, j.malformed == 0, || {
            format!("{} malformed journal rows", j.malformed)
        });
    }
    check_usage(&mut found, s);
    check_keys(&mut found, s);
    for id in s.journal.keys().chain(s.holds.keys()) {
        found.check(*id, s.accounts.contains_key(id), || {
            "journal or holds rows for an account that does not exist".into()
        });
    }
    let mut out = found.0;
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

/// Holds the journal says are open, per account: (count, credits). Broken hold lives are
/// reported.
fn open_holds(s: &Snapshot, found: &mut Findings) -> HashMap<AccountId, (i64, i64)> {
    let mut open: HashMap<AccountId, (i64, i64)> = HashMap::new();
    for l in &s.hold_lives {
        if l.accounts == 1 && l.hold_rows == 1 && l.end_kinds == 0 {
            let e = open.entry(l.account_id).or_default();
            e.0 += 1;
            e.1 += l.hold_credits;
        } else {
            found.say(
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
    open
}

/// The balance against the totals, and the totals against the journal.
fn check_totals(found: &mut Findings, id: AccountId, a: &StoredAccount, j: &JournalSums) {
    found.check(id, a.credits == a.total_deposited - a.total_spent, || {
        format!(
            "credits {} != total_deposited {} - total_spent {}",
            a.credits, a.total_deposited, a.total_spent
        )
    });
    found.check(id, a.credits >= 0, || {
        format!("negative balance {}", a.credits)
    });
    found.check(id, a.held >= 0, || format!("negative held {}", a.held));
    found.check(id, a.total_deposited == j.deposited, || {
        format!(
            "total_deposited {} but the journal says {}",
            a.total_deposited, j.deposited
        )
    });
    found.check(id, a.total_spent == j.spent, || {
        format!(
            "total_spent {} but the journal says {}",
            a.total_spent, j.spent
        )
    });
}

/// What is held, and what ended holds charged, against the journal's open holds and ends.
fn check_holds(
    found: &mut Findings,
    id: AccountId,
    a: &StoredAccount,
    h: &HoldsTable,
    (open_count, open_credits): (i64, i64),
) {
    found.check(id, a.held == open_credits, || {
        format!(
            "held {} but the journal's open holds sum to {}",
            a.held, open_credits
        )
    });
    found.check(
        id,
        h.active_credits == open_credits && h.active == open_count,
        || {
            format!(
                "holds table has {} active holds of {} credits, the journal {} of {}",
                h.active, h.active_credits, open_count, open_credits
            )
        },
    );
    found.check(
        id,
        h.charged_balance == h.journal_balance
            && h.charged_plan == h.journal_plan
            && h.charged_free == h.journal_free,
        || {
            format!(
                "holds table charged {} balance + {} plan + {} free, the journal {} + {} + {}",
                h.charged_balance,
                h.charged_plan,
                h.charged_free,
                h.journal_balance,
                h.journal_plan,
                h.journal_free
            )
        },
    );
}

fn check_daily_buckets(
    found: &mut Findings,
    id: AccountId,
    a: &StoredAccount,
    j: &JournalSums,
    s: &Snapshot,
) {
    let mut check = |ok: bool, what: String| found.check(id, ok, || what);
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
}

/// The usage rollup against the journal, per account and key.
fn check_usage(found: &mut Findings, s: &Snapshot) {
    for (&(id, key), (rollup, journal)) in &s.usage {
        found.check(id, rollup == journal, || {
            format!(
                "usage of key {key}: the rollup has requests, tokens in and out, credits \
                 {rollup:?}, the journal {journal:?}"
            )
        });
    }
}

/// Each key's limit counters against the holds and the journal.
fn check_keys(found: &mut Findings, s: &Snapshot) {
    for k in &s.keys {
        found.check(k.account_id, k.held == k.holds_held, || {
            format!(
                "key {}: limit_held {} but its counted active holds sum to {}",
                k.key_id, k.held, k.holds_held
            )
        });
        found.check(k.account_id, k.spent == k.journal_spent, || {
            format!(
                "key {}: spent {} in window {} but the journal says {}",
                k.key_id, k.spent, k.window, k.journal_spent
            )
        });
        if let Some(last) = k.last_window {
            found.check(k.account_id, last <= k.window, || {
                format!(
                    "key {}: the journal counted in window {last}, after its window {}",
                    k.key_id, k.window
                )
            });
        }
    }
}
