//! The usage page's figures: usage by day and by model, and the bar chart of credits per
//! day, drawn here as SVG (no script, no library, works offline).
//!
//! The SVG holds numbers and dates only, never a string from a user or the database, so it
//! can be put in the page as it is.

use std::collections::BTreeMap;
use std::fmt::Write;

use serde::Serialize;
use shoal_store::UsageRow;

/// One row of a usage table.
#[derive(Debug, Clone, Default, Serialize, PartialEq, Eq)]
pub struct Totals {
    pub label: String,
    pub requests: i64,
    pub input_tokens: i64,
    pub output_tokens: i64,
    pub credits: i64,
}

impl Totals {
    fn add(&mut self, r: &UsageRow) {
        self.requests += r.requests;
        self.input_tokens += r.input_tokens;
        self.output_tokens += r.output_tokens;
        self.credits += r.credits;
    }
}

/// Usage over `days` days ending `today`: one row per day (every day, oldest first), one per
/// model (most credits first), and the total.
#[derive(Debug, Clone, Serialize)]
pub struct Usage {
    pub by_day: Vec<Totals>,
    pub by_model: Vec<Totals>,
    pub total: Totals,
}

pub fn usage(rows: &[UsageRow], today: i64, days: i64) -> Usage {
    let first = today - days + 1;
    let mut by_day: Vec<Totals> = (first..=today)
        .map(|d| Totals {
            label: date(d),
            ..Totals::default()
        })
        .collect();
    let mut by_model: BTreeMap<&str, Totals> = BTreeMap::new();
    let mut total = Totals {
        label: "Total".into(),
        ..Totals::default()
    };
    for r in rows.iter().filter(|r| (first..=today).contains(&r.day)) {
        by_day[(r.day - first) as usize].add(r);
        by_model
            .entry(&r.model)
            .or_insert_with(|| Totals {
                label: r.model.clone(),
                ..Totals::default()
            })
            .add(r);
        total.add(r);
    }
    let mut by_model: Vec<Totals> = by_model.into_values().collect();
    by_model.sort_by(|a, b| b.credits.cmp(&a.credits).then(a.label.cmp(&b.label)));
    Usage {
        by_day,
        by_model,
        total,
    }
}

/// `YYYY-MM-DD` of a UTC day number (days since 1970-01-01).
pub fn date(day: i64) -> String {
    // Civil-from-days (proleptic Gregorian), in integers.
    let z = day + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1_460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    let y = yoe + era * 400 + i64::from(m <= 2);
    format!("{y:04}-{m:02}-{d:02}")
}

/// `YYYY-MM-DD HH:MM UTC` of a Unix time in milliseconds.
pub fn date_time(at: i64) -> String {
    let minutes = at.div_euclid(60_000).rem_euclid(24 * 60);
    format!(
        "{} {:02}:{:02} UTC",
        date(at.div_euclid(86_400_000)),
        minutes / 60,
        minutes % 60
    )
}

const W: i64 = 720;
const H: i64 = 220;
const LEFT: i64 = 48;
const BOTTOM: i64 = 24;
const TOP: i64 = 12;

/// The top of the chart's scale: the smallest of 2, 4, 10, 20, 40, 100, … at or above
/// `max`, so that its half, the middle line, is a whole number too.
fn scale_top(max: i64) -> i64 {
    let mut unit = 1i64;
    loop {
        for step in [2i64, 4, 10] {
            let top = step.saturating_mul(unit);
            if top >= max || top == i64::MAX {
                return top;
            }
        }
        unit = unit.saturating_mul(10);
    }
}

/// A bar chart of credits per day. Each bar has a `<title>` (the browser's tooltip).
pub fn svg(by_day: &[Totals]) -> String {
    let max = scale_top(by_day.iter().map(|d| d.credits).max().unwrap_or(0));
    let n = by_day.len().max(1) as i64;
    let plot_w = W - LEFT - 8;
    let plot_h = H - TOP - BOTTOM;
    let slot = plot_w / n;
    let bar = (slot * 7 / 10).max(1);
    let mut s = String::with_capacity(4_096 + 160 * by_day.len());
    let _ = write!(
        s,
        r#"<svg class="chart" viewBox="0 0 {W} {H}" role="img" aria-label="Credits per day"><g class="axis">"#
    );
    for (frac, label) in [(0, 0), (1, max / 2), (2, max)] {
        let y = TOP + plot_h - plot_h * frac / 2;
        let _ = write!(
            s,
            r#"<line x1="{LEFT}" y1="{y}" x2="{}" y2="{y}"/><text x="{}" y="{}" text-anchor="end">{label}</text>"#,
            W - 8,
            LEFT - 6,
            y + 4
        );
    }
    s.push_str("</g><g class=\"bars\">");
    for (i, d) in by_day.iter().enumerate() {
        let i = i as i64;
        let h = plot_h * d.credits / max;
        let x = LEFT + i * slot + (slot - bar) / 2;
        let y = TOP + plot_h - h;
        let _ = write!(
            s,
            r#"<rect x="{x}" y="{y}" width="{bar}" height="{h}"><title>{}: {} credits, {} requests</title></rect>"#,
            d.label, d.credits, d.requests
        );
        // Every seventh day, counted back from today (the last bar).
        if (n - 1 - i) % 7 == 0 {
            // The last label ends at the chart's edge rather than running past it.
            let (at, anchor) = if i == n - 1 {
                (x + bar, "end")
            } else {
                (x + bar / 2, "middle")
            };
            let _ = write!(
                s,
                r#"<text class="day" x="{at}" y="{}" text-anchor="{anchor}">{}</text>"#,
                H - 6,
                &d.label[5..]
            );
        }
    }
    s.push_str("</g></svg>");
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    fn row(day: i64, model: &str, requests: i64, credits: i64) -> UsageRow {
        UsageRow {
            day,
            model: model.into(),
            requests,
            input_tokens: 10 * requests,
            output_tokens: 5 * requests,
            credits,
        }
    }

    #[test]
    fn scale() {
        let tops: Vec<i64> = [0, 1, 2, 3, 5, 11, 40, 41, 999].map(scale_top).to_vec();
        assert_eq!(tops, [2, 2, 2, 4, 10, 20, 40, 100, 1000]);
    }

    #[test]
    fn dates() {
        assert_eq!(date(0), "1970-01-01");
        assert_eq!(date(20_370), "2025-10-09");
        assert_eq!(date(19_782), "2024-02-29");
        assert_eq!(date(-1), "1969-12-31");
        let at = 20_370 * 86_400_000 + (13 * 60 + 7) * 60_000 + 59_999;
        assert_eq!(date_time(at), "2025-10-09 13:07 UTC");
    }

    #[test]
    fn every_day_and_model_counted_once() {
        let rows = [
            row(100, "b", 1, 5),
            row(100, "a", 2, 7),
            row(98, "a", 1, 1),
            row(90, "a", 9, 99), // before the window
        ];
        let u = usage(&rows, 100, 3);
        assert_eq!(u.by_day.len(), 3);
        assert_eq!(
            u.by_day.iter().map(|d| d.credits).collect::<Vec<_>>(),
            [1, 0, 12]
        );
        assert_eq!(u.by_model[0].label, "a");
        assert_eq!((u.by_model[0].credits, u.by_model[0].requests), (8, 3));
        assert_eq!(
            (u.total.credits, u.total.requests, u.total.input_tokens),
            (13, 4, 40)
        );
        let svg = svg(&u.by_day);
        assert_eq!(svg.matches("<rect").count(), 3);
        assert!(svg.contains("12 credits, 3 requests"));
    }
}
