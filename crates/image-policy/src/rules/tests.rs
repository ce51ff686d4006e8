use std::sync::LazyLock;

use super::*;
use crate::age::Mention;

/// Built once for the tests that use the built-in lexicons alone.
static BUILTIN_POLICY: LazyLock<Policy> = LazyLock::new(Policy::builtin);

const ALLOW: Verdict = Verdict::Allow;

fn block(r: Reason) -> Verdict {
    Verdict::Block(r)
}

/// (prompt, negative prompt, nsfw, expected verdict)
type Case = (&'static str, &'static str, bool, Verdict);

fn run(policy: &Policy, cases: &[Case]) {
    let failures: Vec<String> = cases
        .iter()
        .filter_map(|&(prompt, negative_prompt, nsfw, want)| {
            let got = policy.check(&Request {
                prompt,
                negative_prompt,
                nsfw,
            });
            (got != want).then(|| {
                format!("{prompt:?} / {negative_prompt:?} nsfw={nsfw}: got {got:?}, want {want:?}")
            })
        })
        .collect();
    assert!(failures.is_empty(), "\n{}", failures.join("\n"));
}

#[test]
fn each_rule_fires_with_its_own_reason() {
    run(
        &BUILTIN_POLICY,
        &[
            ("lolicon art", "", false, block(Reason::AbuseTerm)),
            ("nude child", "", false, block(Reason::MinorSexual)),
            ("a kid at the beach", "", true, block(Reason::MinorNsfw)),
            ("a kid at the beach", "", false, ALLOW),
            (
                "a child at the beach",
                "clothes",
                false,
                block(Reason::NegatedClothing),
            ),
            (
                "nude person",
                "adult, mature",
                false,
                block(Reason::NegatedAdult),
            ),
            (
                "a person on a bed",
                "a d u l t",
                true,
                block(Reason::NegatedAdult),
            ),
            ("a portrait", "adult", false, ALLOW),
            (
                "nude, flat chest, small",
                "",
                false,
                block(Reason::ChildBody),
            ),
            ("nude woman, small breasts, petite", "", false, ALLOW),
        ],
    );
    let codes: Vec<&str> = Reason::ALL.iter().map(|r| r.code()).collect();
    assert!(codes
        .iter()
        .all(|c| c.chars().all(|c| c.is_ascii_lowercase() || c == '_')));
}

#[test]
fn the_pair_is_one_request() {
    run(
        &BUILTIN_POLICY,
        &[
            // Adulthood negated in any form while the request is sexual.
            (
                "nude figure",
                "old, tall",
                false,
                block(Reason::NegatedAdult),
            ),
            (
                "nude figure",
                "30 years old",
                false,
                block(Reason::NegatedAdult),
            ),
            ("a model", "woman", true, block(Reason::NegatedAdult)),
            // A woman negated beside a man named, and the other way round, is no negation of
            // adulthood.
            ("nude man", "woman", true, ALLOW),
            ("nude woman", "man, male", true, ALLOW),
            ("nude girl", "woman", true, block(Reason::NegatedAdult)),
            // Negated clothes make the request sexual.
            (
                "a girl at the beach",
                "clothes, adult",
                false,
                block(Reason::NegatedAdult),
            ),
            // Minors and nudity named in the negative prompt steer away from them.
            ("portrait of a woman", "child, nude, nsfw", false, ALLOW),
            (
                "erotic art of a woman",
                "child, kid, teen, loli",
                true,
                ALLOW,
            ),
        ],
    );
}

#[test]
fn negations_inside_the_prompt_read_the_other_way() {
    run(
        &BUILTIN_POLICY,
        &[
            ("kids at the beach, no nudity", "", false, ALLOW),
            ("a child, no clothes", "", false, block(Reason::MinorSexual)),
            (
                "toddler, not wearing any clothes",
                "",
                false,
                block(Reason::MinorSexual),
            ),
            (
                "a girl, not an adult, nude",
                "",
                false,
                block(Reason::MinorSexual),
            ),
            ("nude woman, no children", "", true, ALLOW),
            ("孩子没穿衣服", "", false, block(Reason::MinorSexual)),
            // The negator must stand in the same clause.
            ("a child, no, nude", "", false, block(Reason::MinorSexual)),
            // Letters of a spelled-out term are no negator ("nu" is Romanian for "not").
            ("nu de chi ld", "", false, block(Reason::MinorSexual)),
        ],
    );
}

#[test]
fn context_rules_hold_innocent_uses() {
    run(
        &BUILTIN_POLICY,
        &[
            ("baby back ribs", "", true, ALLOW),
            ("baby spinach salad", "", true, ALLOW),
            ("a kid goat on a farm", "", true, ALLOW),
            ("12 year old whisky", "", true, ALLOW),
            ("a 13-year-old car", "", true, ALLOW),
            ("whisky de 12 años", "", true, ALLOW),
            ("children's ballet shoes in nude pink", "", false, ALLOW),
            // Animal exemptions do not hold in a sexual prompt.
            ("sexy kid goat", "", false, block(Reason::MinorSexual)),
            // An exemption next to a person does not hold.
            ("nude pink child", "", false, block(Reason::MinorSexual)),
            // The age of a thing is a person's age when a person is named.
            (
                "a girl with a 12 year old whisky",
                "",
                true,
                block(Reason::MinorNsfw),
            ),
        ],
    );
}

#[test]
fn terms_inside_innocent_words_do_not_count() {
    run(
        &BUILTIN_POLICY,
        &[
            (
                "a skidding car, a kidney bean stew, a canteen",
                "",
                true,
                ALLOW,
            ),
            ("menu design for a restaurant", "", false, ALLOW),
            ("sextant and analysis, Essex", "", true, ALLOW),
            ("nineteen year old woman, nude", "", true, ALLOW),
            ("sexyteen", "", false, block(Reason::MinorSexual)),
            ("#nudekid", "", false, block(Reason::MinorSexual)),
            ("hotteen nude", "", false, block(Reason::MinorSexual)),
            // `1` read as `i` and as `l`.
            ("ch1ld nude", "", false, block(Reason::MinorSexual)),
            ("chi1d nude", "", false, block(Reason::MinorSexual)),
            ("1o1i nude", "", false, block(Reason::MinorSexual)),
            ("1girl, nude, 4k, 85mm", "", false, ALLOW),
        ],
    );
}

#[test]
fn operator_terms_in_any_script_match_after_the_same_folding() {
    let operator = r#"
        sexual = ["пикантн*", "辣", "spicy"]
        minor = ["ちびっ子", "smol one"]
    "#;
    let policy = Policy::with_operator_terms(operator).expect("the operator file parses");
    run(
        &policy,
        &[
            ("ПИКАНТНАЯ девочка", "", false, block(Reason::MinorSexual)),
            ("пикантная девочка", "", false, block(Reason::MinorSexual)),
            ("辣 小学生", "", false, block(Reason::MinorSexual)),
            ("ヌードのチビっ子", "", false, block(Reason::MinorSexual)),
            ("spicy toddler", "", false, block(Reason::MinorSexual)),
            ("nude smol one", "", false, block(Reason::MinorSexual)),
        ],
    );
    run(&BUILTIN_POLICY, &[("spicy toddler", "", false, ALLOW)]);
    // The old operator file's shape is a subset of this one; unknown keys are refused.
    assert!(Policy::with_operator_terms("minor = [\"x\"]\nadult = [\"y\"]\nclothing = []").is_ok());
    assert!(Policy::with_operator_terms("minors = []").is_err());
}

fn ages(text: &str) -> Vec<u32> {
    let mut out: Vec<Mention> = Vec::new();
    let folded = fold(text);
    BUILTIN_POLICY
        .ages
        .mentions(&folded, Classified::new(&folded).classes(), &mut out);
    out.iter().map(|m| m.years).collect()
}

#[test]
fn ages_and_school_years_in_their_many_phrasings() {
    let year = this_year();
    let cases: &[(&str, &[u32])] = &[
        ("aged thirteen", &[13]),
        ("a girl (13)", &[13]),
        ("13 y/o", &[13]),
        ("13 y.o.", &[13]),
        ("13yo", &[13]),
        ("13 years of age", &[13]),
        ("just turned twelve", &[12]),
        ("her 12th birthday", &[12]),
        ("twelfth birthday", &[12]),
        ("sexy sixteen", &[16]),
        ("6th grade", &[11]),
        ("first-grader", &[6]),
        ("grade 3", &[8]),
        ("12-14 years old", &[14, 12]),
        ("twenty one years old", &[21]),
        ("under 18", &[17]),
        ("niña de doce años", &[12]),
        ("12-jährige", &[12]),
        ("dix-sept ans", &[17]),
        ("on iki yaşında", &[12]),
        ("dua belas tahun", &[12]),
        ("hai mươi tuổi", &[20]),
        ("十二岁", &[12]),
        ("六年级", &[11]),
        ("12歳", &[12]),
        ("열두 살", &[12]),
        ("בת 12", &[12]),
        ("۱۲ ساله", &[12]),
        ("8 months old", &[0]),
        ("born in 2013", &[year - 2013]),
        // Numbers that are no ages.
        ("1024x1024, 35mm, f/1.8, 4k, (masterpiece:1.2)", &[]),
        ("sixteen candles", &[]),
        ("under fire", &[]),
        ("top ten beaches", &[]),
    ];
    let failures: Vec<String> = cases
        .iter()
        .filter(|(text, want)| ages(text) != *want)
        .map(|(text, want)| format!("{text:?}: got {:?}, want {want:?}", ages(text)))
        .collect();
    assert!(failures.is_empty(), "\n{}", failures.join("\n"));
}
