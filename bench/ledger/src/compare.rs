//! Two configurations of the same run in alternating order (A B B A A B ...), so that a
//! machine whose speed drifts treats both alike, and the ratio of B's rate to A's.

use shoal_store::StoreOptions;

use crate::{Config, KeyMode};

/// The two configurations `what` compares, named: the baseline first.
fn pair(what: &str, base: &Config) -> Option<[(&'static str, Config); 2]> {
    let with = |options: StoreOptions, key: KeyMode| Config {
        options,
        key,
        ..base.clone()
    };
    Some(match what {
        "timeouts" => [
            (
                "no timeouts",
                with(StoreOptions::without_timeouts(), KeyMode::Unlimited),
            ),
            (
                "timeouts",
                with(StoreOptions::default(), KeyMode::Unlimited),
            ),
        ],
        "key-limit" => [
            (
                "key without a limit",
                with(StoreOptions::default(), KeyMode::Unlimited),
            ),
            (
                "key with a limit",
                with(StoreOptions::default(), KeyMode::Limited),
            ),
        ],
        "key" => [
            ("no key", with(StoreOptions::default(), KeyMode::None)),
            (
                "key without a limit",
                with(StoreOptions::default(), KeyMode::Unlimited),
            ),
        ],
        _ => return None,
    })
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    let n = v.len();
    if n % 2 == 1 {
        v[n / 2]
    } else {
        (v[n / 2 - 1] + v[n / 2]) / 2.0
    }
}

/// Runs the comparison; false when a run's ledger did not verify.
pub(crate) async fn run(what: &str, base: Config, rounds: usize, pg_url: &str) -> bool {
    let Some(configs) = pair(what, &base) else {
        crate::usage()
    };
    let mut rates: [Vec<f64>; 2] = [Vec::new(), Vec::new()];
    let mut ok = true;
    for round in 0..rounds {
        // A B, then B A: each configuration goes first every other round.
        let order = if round % 2 == 0 { [0, 1] } else { [1, 0] };
        for i in order {
            let (name, cfg) = &configs[i];
            let out = crate::run(cfg, pg_url).await;
            let rate = out.pairs as f64 / out.elapsed.as_secs_f64();
            ok &= out.verified;
            println!(
                "round={round} config={name:?} backend={} accounts={} concurrency={} \
                 pairs_per_s={rate:.0} p50_us={} p99_us={} cpu_us={:.0} pg_cpu_us={} ledger={}",
                cfg.backend.name(),
                cfg.accounts,
                cfg.concurrency,
                out.p50_us,
                out.p99_us,
                out.cpu_us,
                out.pg_cpu_us.map_or("-".into(), |c| format!("{c:.0}")),
                if out.verified { "ok" } else { "DISCREPANCIES" }
            );
            rates[i].push(rate);
        }
    }
    let [a, b] = rates;
    let (ma, mb) = (median(a.clone()), median(b.clone()));
    let (sa, sb): (f64, f64) = (a.iter().sum(), b.iter().sum());
    println!(
        "{:?}: median {ma:.0} pairs/s; {:?}: median {mb:.0} pairs/s; ratio of medians {:.3}, \
         of sums {:.3} ({rounds} rounds)",
        configs[0].0,
        configs[1].0,
        mb / ma,
        sb / sa
    );
    ok
}
