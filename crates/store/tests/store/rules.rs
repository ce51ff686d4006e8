//! PostgreSQL's ledger rules are SQL functions (migration `ledger_rules`); SQLite's are
//! `money`'s, in Rust. These tests hold the two to the same answers, and run the regression
//! case of the lagging settle through `shoal_ledger_batch` (the path of concurrent jobs).

use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};
use shoal_store::money;
use sqlx::{Connection, Row};

use crate::fixtures::DAY;
use crate::harness::{run, Kind, TestDb};

#[tokio::test]
async fn sql_rules_match_money() {
    run(Kind::Postgres, sql_rules).await
}

#[tokio::test]
async fn sql_key_limits_match_money() {
    run(Kind::Postgres, sql_key_limits).await
}

#[tokio::test]
async fn batch_function_counts_a_lagging_settle_on_its_day() {
    run(Kind::Postgres, batch_lagging_settle).await
}

/// Small values around every boundary (0, equal, one over), plus random ones.
fn inputs() -> Vec<[i64; 4]> {
    let edge = [-1i64, 0, 1, 2, 3, 5];
    let mut out = Vec::new();
    for a in edge {
        for b in edge {
            for c in edge {
                for d in edge {
                    out.push([a, b, c, d]);
                }
            }
        }
    }
    let mut rng = StdRng::seed_from_u64(21);
    for _ in 0..2_000 {
        out.push(std::array::from_fn(|_| rng.random_range(-5..1_000)));
    }
    out
}

async fn sql_rules(db: TestDb) {
    db.open().await.close().await; // runs the migrations
    let mut c = sqlx::PgConnection::connect(&db.url()).await.unwrap();
    let inputs = inputs();
    let col = |i: usize| inputs.iter().map(|v| v[i]).collect::<Vec<i64>>();
    let rows = sqlx::query(
        "SELECT shoal_plan_left(a, b, c, d) AS plan_left,
                shoal_available(a, b, c, d, b, c) AS available,
                shoal_charge(a > 0, b > 2, NULLIF(c, -1), d) AS charge,
                shoal_from_plan(a, b) AS from_plan,
                shoal_from_balance(a, b, c) AS from_balance,
                shoal_plan_day_after(a, b, c) AS day_after,
                shoal_plan_used_after(a, b, c, d) AS used_after,
                shoal_from_free(a, b) AS from_free,
                shoal_available_free(a, b, c, d, b, c, a, d, c) AS available_free
           FROM unnest($1::BIGINT[], $2::BIGINT[], $3::BIGINT[], $4::BIGINT[])
                WITH ORDINALITY AS t(a, b, c, d, n)
          ORDER BY n",
    )
    .bind(col(0))
    .bind(col(1))
    .bind(col(2))
    .bind(col(3))
    .fetch_all(&mut c)
    .await
    .unwrap();
    assert_eq!(rows.len(), inputs.len());
    for (r, &[a, b, cc, d]) in rows.iter().zip(&inputs) {
        let get = |name: &str| r.get::<i64, _>(name);
        let (plan, balance) = money::split_charge(a, b, cc);
        let billed = (cc != -1).then_some(cc);
        let charge = if a > 0 && b <= 2 {
            money::clamp_charge(billed, d)
        } else {
            0
        };
        let want = [
            money::plan_left(a, b, cc, d),
            // daily a, plan day b, used cc, balance d, held b, today cc
            money::plan_left(a, b, cc, cc) + d - b,
            charge,
            plan,
            balance,
            money::plan_after(a, 0, b, cc).0,
            money::plan_after(a, b, cc, d).1,
            money::split_spend(a, b, 0, 0).free,
            money::available(
                money::plan_left(a, b, cc, cc),
                money::plan_left(d, b, cc, cc),
                a,
                d,
            ),
        ];
        let got = [
            get("plan_left"),
            get("available"),
            get("charge"),
            get("from_plan"),
            get("from_balance"),
            get("day_after"),
            get("used_after"),
            get("from_free"),
            get("available_free"),
        ];
        assert_eq!(got, want, "inputs {:?}", [a, b, cc, d]);
    }
    c.close().await.unwrap();
}

/// `shoal_limit_window` and `shoal_key_left` against `money`: every day across four years
/// around now and around 1970 (month ends, leap days, negative day counts), every reset.
async fn sql_key_limits(db: TestDb) {
    db.open().await.close().await; // runs the migrations
    let mut c = sqlx::PgConnection::connect(&db.url()).await.unwrap();
    let days: Vec<i64> = (20_000..21_500).chain(-800..800).collect();
    for reset in [
        money::LimitReset::Daily,
        money::LimitReset::Weekly,
        money::LimitReset::Monthly,
        money::LimitReset::Never,
    ] {
        let got: Vec<i64> = sqlx::query_scalar(
            "SELECT shoal_limit_window($1, d) FROM unnest($2::BIGINT[]) WITH ORDINALITY
                 AS t(d, n) ORDER BY n",
        )
        .bind(reset.as_str())
        .bind(&days)
        .fetch_all(&mut c)
        .await
        .unwrap();
        let want: Vec<i64> = days
            .iter()
            .map(|d| money::limit_window(reset, *d))
            .collect();
        assert_eq!(got, want, "{reset:?}");
    }
    let inputs = inputs();
    let col = |i: usize| inputs.iter().map(|v| v[i]).collect::<Vec<i64>>();
    let got: Vec<i64> = sqlx::query_scalar(
        "SELECT shoal_key_left(a, b, c, d, b + 1 - (a % 3))
           FROM unnest($1::BIGINT[], $2::BIGINT[], $3::BIGINT[], $4::BIGINT[])
                WITH ORDINALITY AS t(a, b, c, d, n)
          ORDER BY n",
    )
    .bind(col(0))
    .bind(col(1))
    .bind(col(2))
    .bind(col(3))
    .fetch_all(&mut c)
    .await
    .unwrap();
    for (got, &[a, b, cc, d]) in got.into_iter().zip(&inputs) {
        // SQL's % keeps the dividend's sign, like Rust's.
        assert_eq!(
            got,
            money::key_left(a, b, cc, d, b + 1 - (a % 3)),
            "{a} {b} {cc} {d}"
        );
    }
    c.close().await.unwrap();
}

/// The case of `ledger::lagging_settle_after_midnight`, as one batch: a void, a hold found
/// expired and a settle of 0 after midnight leave the plan day alone, so a settle stamped
/// before midnight pays from the balance.
async fn batch_lagging_settle(db: TestDb) {
    let store = db.open().await;
    let a = store
        .create_account("batch-lag@example.com", 0)
        .await
        .unwrap();
    let midnight = 20_371 * DAY;
    store.grant_credits(a, 100, midnight - 2_000).await.unwrap();
    store.set_plan(a, 10, midnight - 2_000).await.unwrap();
    let mut c = sqlx::PgConnection::connect(&db.url()).await.unwrap();
    let acc = Some(a);
    let far = Some(midnight + DAY);
    let held = call(
        &mut c,
        &[
            ("hold", "spent", acc, Some(10), far, midnight - 1_000),
            ("hold", "late", acc, Some(4), far, midnight - 800),
            ("hold", "void", acc, Some(3), far, midnight - 700),
            (
                "hold",
                "expired",
                acc,
                Some(2),
                Some(midnight + 1),
                midnight - 600,
            ),
            ("hold", "zero", acc, Some(1), far, midnight - 500),
            ("settle", "spent", None, Some(10), None, midnight - 900),
        ],
    )
    .await;
    let outcome = |r: &sqlx::postgres::PgRow| {
        (
            r.get::<String, _>("r_outcome"),
            r.get::<Option<i64>, _>("r_plan"),
            r.get::<Option<i64>, _>("r_balance"),
        )
    };
    assert_eq!(outcome(&held[5]), ("settle".into(), Some(10), Some(0)));
    let ended = call(
        &mut c,
        &[
            ("void", "void", None, Some(0), None, midnight + 2),
            ("settle", "expired", None, Some(2), None, midnight + 2),
            ("settle", "zero", None, Some(0), None, midnight + 2),
            ("settle", "late", None, Some(4), None, midnight - 100),
        ],
    )
    .await;
    let got: Vec<_> = ended.iter().map(outcome).collect();
    assert_eq!(
        got,
        vec![
            ("void".into(), Some(0), Some(0)),
            ("expire".into(), Some(0), Some(0)),
            ("settle".into(), Some(0), Some(0)),
            ("settle".into(), Some(0), Some(4)),
        ]
    );
    c.close().await.unwrap();
    let report = store.verify_ledger().await.unwrap();
    assert!(report.discrepancies.is_empty(), "{report:?}");
    store.close().await;
}

/// (kind, request id, account, credits, expires at, now)
type Job<'a> = (&'a str, &'a str, Option<i64>, Option<i64>, Option<i64>, i64);

/// One call of `shoal_ledger_batch`: the rows in job order.
async fn call(c: &mut sqlx::PgConnection, jobs: &[Job<'_>]) -> Vec<sqlx::postgres::PgRow> {
    let n = jobs.len();
    sqlx::query(
        "SELECT r_outcome, r_plan, r_balance FROM shoal_ledger_batch(
            $1, $2, $3, $4, $5, $6, $7, $7, $7, $8, $9, $7, $10) ORDER BY r_ord",
    )
    .bind(jobs.iter().map(|j| j.0).collect::<Vec<_>>())
    .bind(jobs.iter().map(|j| j.1).collect::<Vec<_>>())
    .bind(jobs.iter().map(|j| j.2).collect::<Vec<_>>())
    .bind(jobs.iter().map(|j| j.3).collect::<Vec<_>>())
    .bind(vec![Some("m"); n])
    .bind(jobs.iter().map(|j| j.4).collect::<Vec<_>>())
    .bind(vec![0i64; n])
    .bind(jobs.iter().map(|j| j.5).collect::<Vec<_>>())
    .bind(jobs.iter().map(|j| money::utc_day(j.5)).collect::<Vec<_>>())
    .bind(vec![None::<i64>; n])
    .fetch_all(c)
    .await
    .unwrap()
}
