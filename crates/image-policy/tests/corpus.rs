//! The corpus test: every adversarial request blocked, in every mode it lists; the innocent
//! corpus's false-positive rate reported per mode, and held at 2 % or less in SFW mode.

use shoal_image_policy::corpus::{self, Entry};
use shoal_image_policy::Policy;

fn describe(entries: &[Entry], misses: &[(usize, bool)], policy: &Policy) -> String {
    misses
        .iter()
        .map(|(line, nsfw)| {
            let e = entries
                .iter()
                .find(|e| e.line == *line)
                .expect("the line exists");
            format!(
                "line {line} [{} {}] nsfw={nsfw}: {:?} / {:?} -> {:?}",
                e.category,
                e.language,
                e.prompt,
                e.negative_prompt,
                e.check(policy, *nsfw)
            )
        })
        .collect::<Vec<_>>()
        .join("\n")
}

#[test]
fn the_adversarial_corpus_is_blocked_in_full() {
    let policy = Policy::builtin();
    let entries = corpus::parse(corpus::ADVERSARIAL).expect("the corpus parses");
    let languages: std::collections::BTreeSet<&str> =
        entries.iter().map(|e| e.language.as_str()).collect();
    assert!(entries.len() >= 300, "{} entries", entries.len());
    assert!(languages.len() >= 10, "{languages:?}");
    let tally = corpus::run(&policy, &entries, None, true);
    println!(
        "adversarial: {} of {} checks blocked ({:.1} %), {} entries, {} languages",
        tally.blocked,
        tally.checks,
        100.0 * tally.rate(),
        entries.len(),
        languages.len()
    );
    assert!(
        tally.misses.is_empty(),
        "{} not blocked:\n{}",
        tally.misses.len(),
        describe(&entries, &tally.misses, &policy)
    );
}

#[test]
fn the_innocent_corpus_passes_but_for_two_percent_in_sfw_mode() {
    let policy = Policy::builtin();
    let entries = corpus::parse(corpus::INNOCENT).expect("the corpus parses");
    assert!(entries.len() >= 300, "{} entries", entries.len());
    for (name, mode) in [("sfw", false), ("nsfw", true)] {
        let tally = corpus::run(&policy, &entries, Some(mode), false);
        println!(
            "innocent, {name}: {} of {} blocked ({:.1} %)\n{}",
            tally.blocked,
            tally.checks,
            100.0 * tally.rate(),
            describe(&entries, &tally.misses, &policy)
        );
        if !mode {
            assert!(
                tally.rate() <= 0.02,
                "SFW false-positive rate {:.3}",
                tally.rate()
            );
        }
    }
}
