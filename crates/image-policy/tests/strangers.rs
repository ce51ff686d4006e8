//! Every prompt is a stranger's: the check answers any text, of any length and any
//! characters, without panicking, and the policy can be shared between threads.

use proptest::prelude::*;
use shoal_image_policy::{Policy, Request, Verdict, MAX_CHARS};

static POLICY: std::sync::LazyLock<Policy> = std::sync::LazyLock::new(Policy::builtin);

/// Characters that exercise every path: ASCII letters, digits and leet symbols, spaces and
/// punctuation, accents, lookalikes, invisible fillers, CJK, Hangul, Arabic, emoji and
/// anything else.
fn text() -> impl Strategy<Value = String> {
    let pieces = prop_oneof![
        "[a-z0-9 ,.()|!@$1l]{0,40}",
        Just("\u{200B}\u{3164}\u{115F}\u{0301}".to_owned()),
        Just("ĸɪᴅ ᏟᎻᎥ ΝΑ сh".to_owned()),
        Just("十二岁 열두 살 ١٢ سنة ۱۲ ساله".to_owned()),
        Just("👧🏽\u{200D}👩 🍆".to_owned()),
        Just("1girl 13yo (12) under 18 born in 2013 6th grade".to_owned()),
        any::<String>(),
    ];
    proptest::collection::vec(pieces, 0..8).prop_map(|v| v.concat())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(300))]
    #[test]
    fn any_text_gets_a_verdict(prompt in text(), negative in text(), nsfw in any::<bool>()) {
        let v = POLICY.check(&Request { prompt: &prompt, negative_prompt: &negative, nsfw });
        prop_assert!(matches!(v, Verdict::Allow | Verdict::Block(_)));
    }
}

#[test]
fn text_past_the_limit_is_cut_not_refused() {
    let long = "a cat on a sofa, ".repeat(MAX_CHARS / 4);
    let req = Request {
        prompt: &long,
        negative_prompt: &long,
        nsfw: true,
    };
    assert_eq!(POLICY.check(&req), Verdict::Allow);
}

#[test]
fn the_policy_is_shared_between_threads() {
    fn shared<T: Send + Sync>() {}
    shared::<Policy>();
    let handles: Vec<_> = (0..4)
        .map(|_| {
            std::thread::spawn(|| {
                POLICY.check(&Request {
                    prompt: "nude child",
                    negative_prompt: "",
                    nsfw: false,
                })
            })
        })
        .collect();
    for h in handles {
        assert!(matches!(h.join().expect("no panic"), Verdict::Block(_)));
    }
}
