use super::*;

fn span(fp: char, start: u32, end: u32, total: u32, step_us: u64) -> SpanInfo {
    SpanInfo {
        fingerprint: fp.to_string().repeat(64),
        start,
        end,
        total,
        step_us,
    }
}

fn ring(spans: &[(WorkerId, SpanInfo)]) -> Ring {
    let mut r = Ring::default();
    for (id, s) in spans {
        r.join(*id, s.clone(), 1);
    }
    r
}

#[test]
fn three_abutting_spans_cover_and_chain_in_order() {
    let r = ring(&[
        (3, span('a', 4, 6, 6, 10)),
        (1, span('a', 0, 2, 6, 10)),
        (2, span('a', 2, 4, 6, 10)),
    ]);
    assert!(r.available());
    let c = &r.coverage()[0];
    assert!(c.covered);
    assert!(c.gaps.is_empty());
    assert_eq!((c.layers, c.nodes), (6, 3));
    assert_eq!(r.chain(&[]), Some(vec![1, 2, 3]));
}

#[test]
fn a_gap_is_reported_and_blocks_the_chain() {
    let mut r = ring(&[(1, span('a', 0, 2, 6, 10)), (3, span('a', 4, 6, 6, 10))]);
    assert!(!r.available());
    assert_eq!(r.coverage()[0].gaps, vec![(2, 4)]);
    assert_eq!(r.chain(&[]), None);
    // The last span joins: available flips.
    r.join(2, span('a', 2, 4, 6, 10), 1);
    assert!(r.available());
    assert!(r.leave(2));
    assert!(!r.available());
    assert!(!r.leave(2));
}

#[test]
fn spans_that_overlap_without_abutting_do_not_chain() {
    // [0,3) and [2,6) hold every layer between them, but no chain crosses boundary 2 or 3.
    let r = ring(&[(1, span('a', 0, 3, 6, 10)), (2, span('a', 2, 6, 6, 10))]);
    let c = &r.coverage()[0];
    assert!(c.gaps.is_empty(), "every layer is held");
    assert!(!c.covered, "yet nothing abuts");
    assert_eq!(r.chain(&[]), None);
    // An overlapping span that does abut helps.
    let r = ring(&[
        (1, span('a', 0, 3, 6, 10)),
        (2, span('a', 2, 6, 6, 10)),
        (3, span('a', 0, 2, 6, 10)),
    ]);
    assert_eq!(r.chain(&[]), Some(vec![3, 2]));
}

#[test]
fn mismatched_fingerprints_never_mix() {
    let r = ring(&[
        (1, span('a', 0, 2, 6, 10)),
        (2, span('b', 2, 4, 6, 10)),
        (3, span('a', 4, 6, 6, 10)),
    ]);
    assert!(!r.available());
    assert_eq!(r.coverage().len(), 2);
    assert_eq!(r.chain(&[]), None);
    // Same fingerprint, another layer count: also another model.
    let r = ring(&[(1, span('a', 0, 2, 4, 10)), (2, span('a', 2, 6, 6, 10))]);
    assert!(!r.available());
}

#[test]
fn replicas_give_the_cheapest_chain_and_a_spare() {
    let mut r = ring(&[
        (1, span('a', 0, 2, 6, 10)),
        (2, span('a', 2, 4, 6, 50)),
        (4, span('a', 2, 4, 6, 20)),
        (3, span('a', 4, 6, 6, 10)),
    ]);
    assert_eq!(r.chain(&[]), Some(vec![1, 4, 3]));
    // A slower step makes it dearer.
    r.join(4, span('a', 2, 4, 6, 120), 1);
    assert_eq!(r.chain(&[]), Some(vec![1, 2, 3]));
    // The replica replaces a lost node.
    assert_eq!(r.chain(&[2]), Some(vec![1, 4, 3]));
    assert_eq!(r.chain(&[2, 4]), None);
}

#[test]
fn one_long_span_beats_two_short_ones_at_equal_cost() {
    let r = ring(&[
        (1, span('a', 0, 2, 6, 10)),
        (2, span('a', 2, 4, 6, 10)),
        (3, span('a', 4, 6, 6, 10)),
        (4, span('a', 0, 4, 6, 20)),
    ]);
    assert_eq!(r.chain(&[]), Some(vec![4, 3]));
}

#[test]
fn full_nodes_are_skipped_until_they_free() {
    let mut r = ring(&[
        (1, span('a', 0, 3, 6, 10)),
        (2, span('a', 3, 6, 6, 10)),
        (3, span('a', 3, 6, 6, 90)),
    ]);
    let first = r.chain(&[]).unwrap();
    assert_eq!(first, vec![1, 2]);
    r.occupy(&first, 1);
    assert!(r.available(), "full nodes still count for availability");
    assert_eq!(r.chain(&[]), None, "the entry is full");
    r.occupy(&[1], -1);
    assert_eq!(r.chain(&[]), Some(vec![1, 3]));
    r.occupy(&first, -1);
    assert_eq!(r.chain(&[]), Some(vec![1, 2]));
}

#[test]
fn gaps_at_both_ends() {
    let r = ring(&[(1, span('a', 2, 3, 8, 10)), (2, span('a', 5, 6, 8, 10))]);
    assert_eq!(r.coverage()[0].gaps, vec![(0, 2), (3, 5), (6, 8)]);
}

#[test]
fn a_broken_session_chains_on_from_its_own_busy_entry() {
    let mut r = ring(&[
        (1, span('a', 0, 2, 6, 10)),
        (2, span('a', 2, 6, 6, 10)),
        (3, span('a', 2, 4, 6, 10)),
        (4, span('a', 4, 6, 6, 10)),
        (5, span('a', 0, 6, 6, 1)),
        (6, span('b', 2, 6, 6, 1)),
    ]);
    // The entry is full (its own session), and so is the direct span 2..6.
    r.occupy(&[1, 2], 1);
    assert_eq!(r.chain_from(1), Some(vec![1, 3, 4]));
    r.leave(4);
    assert_eq!(
        r.chain_from(1),
        None,
        "2..6 is full, 4..6 gone, b is another model"
    );
    r.occupy(&[2], -1);
    assert_eq!(r.chain_from(1), Some(vec![1, 2]));
    assert_eq!(r.chain_from(3), None, "not an entry");
    assert_eq!(r.chain_from(9), None, "not a node");
}
