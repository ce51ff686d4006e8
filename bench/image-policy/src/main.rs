//! The image prompt policy's benchmark (bench/image-policy/RESULTS.md): the check's time per
//! request for prompts of 1,000 characters with the full built-in lexicons (p50/p99 over many
//! runs, after a warm-up), the time to build the policy, and the recall and false-positive
//! rates on the repository's corpus.
//!
//!   cargo run --release -p shoal-bench-image-policy [-- --runs N] [--only english|mixed|cjk]

use std::time::{Duration, Instant};

use shoal_image_policy::corpus;
use shoal_image_policy::{Policy, Request, Verdict};

/// Typical text-to-image prompt pieces, repeated to 1,000 characters.
const ENGLISH: &str = "masterpiece, best quality, (portrait of a woman:1.2), 35 years old, \
    long auburn hair, freckles, soft window light, 85mm f/1.8, bokeh, film grain, \
    cinematic color grading, detailed skin texture, 4k, 8k uhd, 1girl, solo, \
    sitting in a cafe in Paris, autumn, warm tones, a cup of coffee, reading a book, ";
const MIXED: &str = "una mujer leyendo en un café, ein Mann mit Hut im Regen, \
    une femme au marché, женщина с собакой в парке, 公園を歩く女性, 公园里的女人, \
    người phụ nữ trong công viên, امرأة في الحديقة, पार्क में एक महिला, ";
const CJK: &str = "傑作、最高品質、カフェで本を読む女性、秋、暖かい色調、映画のような照明、\
    公园里的女人，长发，自然光，电影质感，高清细节，";

fn to_length(piece: &str, chars: usize) -> String {
    piece.chars().cycle().take(chars).collect()
}

fn percentile(sorted: &[Duration], p: f64) -> Duration {
    let i = ((sorted.len() as f64 - 1.0) * p).round() as usize;
    sorted[i]
}

/// This thread's CPU time: on a shared machine, wall time also counts the other processes'
/// turns; CPU time counts only the check's own.
fn thread_cpu() -> Duration {
    let mut ts = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: `ts` is a valid, writable timespec; the clock id is a constant Linux knows.
    let rc = unsafe { libc::clock_gettime(libc::CLOCK_THREAD_CPUTIME_ID, &mut ts) };
    assert_eq!(rc, 0, "clock_gettime(CLOCK_THREAD_CPUTIME_ID)");
    Duration::new(ts.tv_sec as u64, ts.tv_nsec as u32)
}

struct Timing {
    wall_p50: Duration,
    wall_p99: Duration,
    cpu_p50: Duration,
    cpu_p99: Duration,
}

fn time_prompt(policy: &Policy, prompt: &str, runs: usize) -> (Timing, Verdict) {
    let req = Request {
        prompt,
        negative_prompt: "blurry, lowres, bad anatomy, extra fingers, watermark, text",
        nsfw: false,
    };
    let verdict = policy.check(&req);
    for _ in 0..runs / 10 {
        std::hint::black_box(policy.check(std::hint::black_box(&req)));
    }
    let mut wall = Vec::with_capacity(runs);
    let mut cpu = Vec::with_capacity(runs);
    for _ in 0..runs {
        let (w, c) = (Instant::now(), thread_cpu());
        std::hint::black_box(policy.check(std::hint::black_box(&req)));
        cpu.push(thread_cpu() - c);
        wall.push(w.elapsed());
    }
    wall.sort_unstable();
    cpu.sort_unstable();
    let timing = Timing {
        wall_p50: percentile(&wall, 0.5),
        wall_p99: percentile(&wall, 0.99),
        cpu_p50: percentile(&cpu, 0.5),
        cpu_p99: percentile(&cpu, 0.99),
    };
    (timing, verdict)
}

fn main() {
    let arg = |name: &str| std::env::args().skip_while(|a| a != name).nth(1);
    let runs = arg("--runs").and_then(|n| n.parse().ok()).unwrap_or(20_000);
    let only = arg("--only");
    let start = Instant::now();
    let policy = Policy::builtin();
    println!("policy built in {:.1} ms ({policy:?})", ms(start.elapsed()));
    println!(
        "\n| prompt (1,000 characters) | CPU p50 | CPU p99 | wall p50 | wall p99 | verdict |\n\
         | --- | --- | --- | --- | --- | --- |"
    );
    for (key, name, piece) in [
        ("english", "English tags", ENGLISH),
        ("mixed", "eight scripts", MIXED),
        ("cjk", "Japanese and Chinese", CJK),
    ] {
        if only.as_deref().is_some_and(|o| o != key) {
            continue;
        }
        let prompt = to_length(piece, 1000);
        let (t, verdict) = time_prompt(&policy, &prompt, runs);
        println!(
            "| {name} | {:.1} µs | {:.1} µs | {:.1} µs | {:.1} µs | {verdict:?} |",
            us(t.cpu_p50),
            us(t.cpu_p99),
            us(t.wall_p50),
            us(t.wall_p99)
        );
    }
    let adversarial = corpus::parse(corpus::ADVERSARIAL).expect("the corpus parses");
    let innocent = corpus::parse(corpus::INNOCENT).expect("the corpus parses");
    println!("\n| corpus | mode | checks | blocked | rate |\n| --- | --- | --- | --- | --- |");
    for (name, entries, want) in [
        ("adversarial", &adversarial, true),
        ("innocent", &innocent, false),
    ] {
        for (mode, nsfw) in [("sfw", false), ("nsfw", true)] {
            let t = corpus::run(&policy, entries, Some(nsfw), want);
            println!(
                "| {name} ({} entries) | {mode} | {} | {} | {:.1} % |",
                entries.len(),
                t.checks,
                t.blocked,
                100.0 * t.rate()
            );
        }
    }
}

fn us(d: Duration) -> f64 {
    d.as_secs_f64() * 1e6
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1e3
}
