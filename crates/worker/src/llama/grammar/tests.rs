//! The grammar builder, checked with a small GBNF recognizer and generator (the subset the
//! builder writes: literals, character classes, rule references, groups, `|`, `?`, `*`, `+`,
//! `{m,n}`). The e2e tests (tests/e2e/test_llama.py, test_structured.py) run the same
//! grammars through llama.cpp.

mod json;

use std::collections::{BTreeSet, HashMap};

use rand::rngs::StdRng;
use rand::Rng;
use serde_json::{json, Value};

use super::*;

#[derive(Debug, Clone)]
enum Node {
    Lit(Vec<char>),
    Class {
        negated: bool,
        ranges: Vec<(char, char)>,
    },
    Ref(String),
    Seq(Vec<Node>),
    Alt(Vec<Node>),
    Rep(Box<Node>, usize, Option<usize>),
}

struct Parser<'a> {
    s: &'a [char],
    i: usize,
}

impl Parser<'_> {
    fn peek(&self) -> Option<char> {
        self.s.get(self.i).copied()
    }
    fn ws(&mut self) {
        while self.peek().is_some_and(|c| c == ' ') {
            self.i += 1;
        }
    }
    fn escaped(&mut self) -> char {
        let c = self.s[self.i];
        self.i += 1;
        if c != '\\' {
            return c;
        }
        let e = self.s[self.i];
        self.i += 1;
        match e {
            'n' => '\n',
            'r' => '\r',
            't' => '\t',
            'x' | 'u' | 'U' => {
                let n = match e {
                    'x' => 2,
                    'u' => 4,
                    _ => 8,
                };
                let hex: String = self.s[self.i..self.i + n].iter().collect();
                self.i += n;
                // Surrogates and code points past U+10FFFF are no Rust `char`: no text
                // the tests feed can hold them, so any stand-in will do.
                char::from_u32(u32::from_str_radix(&hex, 16).unwrap()).unwrap_or(char::MAX)
            }
            other => other,
        }
    }
    fn alt(&mut self) -> Node {
        let mut alts = vec![self.seq()];
        while self.peek() == Some('|') {
            self.i += 1;
            alts.push(self.seq());
        }
        Node::Alt(alts)
    }
    fn seq(&mut self) -> Node {
        let mut items = Vec::new();
        loop {
            self.ws();
            let atom = match self.peek() {
                None | Some('|') | Some(')') => return Node::Seq(items),
                Some('"') => {
                    self.i += 1;
                    let mut lit = Vec::new();
                    while self.peek() != Some('"') {
                        lit.push(self.escaped());
                    }
                    self.i += 1;
                    Node::Lit(lit)
                }
                Some('[') => {
                    self.i += 1;
                    let negated = self.peek() == Some('^');
                    if negated {
                        self.i += 1;
                    }
                    let mut ranges = Vec::new();
                    while self.peek() != Some(']') {
                        let a = self.escaped();
                        let b = if self.peek() == Some('-') && self.s[self.i + 1] != ']' {
                            self.i += 1;
                            self.escaped()
                        } else {
                            a
                        };
                        ranges.push((a, b));
                    }
                    self.i += 1;
                    Node::Class { negated, ranges }
                }
                Some('(') => {
                    self.i += 1;
                    let inner = self.alt();
                    assert_eq!(self.peek(), Some(')'));
                    self.i += 1;
                    inner
                }
                Some(c) if c.is_ascii_alphanumeric() || c == '-' => {
                    let start = self.i;
                    while self
                        .peek()
                        .is_some_and(|c| c.is_ascii_alphanumeric() || c == '-')
                    {
                        self.i += 1;
                    }
                    Node::Ref(self.s[start..self.i].iter().collect())
                }
                Some(c) => panic!("unexpected {c:?} in grammar"),
            };
            let atom = match self.peek() {
                Some('*') => {
                    self.i += 1;
                    Node::Rep(Box::new(atom), 0, None)
                }
                Some('+') => {
                    self.i += 1;
                    Node::Rep(Box::new(atom), 1, None)
                }
                Some('?') => {
                    self.i += 1;
                    Node::Rep(Box::new(atom), 0, Some(1))
                }
                Some('{') => {
                    let end = self.s[self.i..].iter().position(|&c| c == '}').unwrap();
                    let spec: String = self.s[self.i + 1..self.i + end].iter().collect();
                    self.i += end + 1;
                    let (min, max) = match spec.split_once(',') {
                        None => (spec.parse().unwrap(), Some(spec.parse().unwrap())),
                        Some((a, "")) => (a.parse().unwrap(), None),
                        Some((a, b)) => (a.parse().unwrap(), Some(b.parse().unwrap())),
                    };
                    Node::Rep(Box::new(atom), min, max)
                }
                _ => atom,
            };
            items.push(atom);
        }
    }
}

struct Gbnf {
    rules: HashMap<String, Node>,
}

impl Gbnf {
    fn parse(text: &str) -> Self {
        let mut rules = HashMap::new();
        for line in text.lines().filter(|l| !l.trim().is_empty()) {
            let (name, body) = line.split_once(" ::= ").expect(line);
            let chars: Vec<char> = body.chars().collect();
            let mut p = Parser { s: &chars, i: 0 };
            let node = p.alt();
            assert_eq!(p.i, chars.len(), "rule {name} not fully parsed");
            assert!(
                rules.insert(name.to_owned(), node).is_none(),
                "rule {name} twice"
            );
        }
        let g = Gbnf { rules };
        for node in g.rules.values() {
            g.check_refs(node);
        }
        g
    }

    fn check_refs(&self, node: &Node) {
        match node {
            Node::Ref(r) => assert!(self.rules.contains_key(r), "undefined rule {r}"),
            Node::Seq(v) | Node::Alt(v) => v.iter().for_each(|n| self.check_refs(n)),
            Node::Rep(n, _, _) => self.check_refs(n),
            _ => {}
        }
    }

    fn accepts(&self, input: &str) -> bool {
        let input: Vec<char> = input.chars().collect();
        self.ends(&Node::Ref("root".into()), &input, 0)
            .contains(&input.len())
    }

    /// Every position where `node` can end when it starts at `at`.
    fn ends(&self, node: &Node, s: &[char], at: usize) -> BTreeSet<usize> {
        match node {
            Node::Lit(lit) => {
                let end = at + lit.len();
                if end <= s.len() && s[at..end] == lit[..] {
                    BTreeSet::from([end])
                } else {
                    BTreeSet::new()
                }
            }
            Node::Class { negated, ranges } => match s.get(at) {
                Some(&c) if ranges.iter().any(|&(a, b)| a <= c && c <= b) != *negated => {
                    BTreeSet::from([at + 1])
                }
                _ => BTreeSet::new(),
            },
            Node::Ref(name) => self.ends(&self.rules[name], s, at),
            Node::Seq(items) => {
                let mut here = BTreeSet::from([at]);
                for item in items {
                    here = here.iter().flat_map(|&p| self.ends(item, s, p)).collect();
                }
                here
            }
            Node::Alt(alts) => alts.iter().flat_map(|a| self.ends(a, s, at)).collect(),
            Node::Rep(inner, min, max) => {
                let mut out = BTreeSet::new();
                let mut frontier = BTreeSet::from([at]);
                let mut n = 0;
                loop {
                    if n >= *min {
                        out.extend(frontier.iter().copied());
                    }
                    if max.is_some_and(|m| n >= m) || frontier.is_empty() {
                        break;
                    }
                    let next: BTreeSet<usize> = frontier
                        .iter()
                        .flat_map(|&p| self.ends(inner, s, p))
                        .filter(|&p| n < *min || !out.contains(&p))
                        .collect();
                    frontier = next;
                    n += 1;
                }
                out
            }
        }
    }
}

/// Characters tried for a negated class: ASCII, escapes' letters, and wider ones.
const POOL: &[char] = &[
    'a', 'z', 'Q', '0', '7', ' ', '-', '_', '.', '{', '}', '[', ']', ':', ',', 'é', '世', '😀',
    '\'', '/', 'n', 'u',
];

impl Gbnf {
    /// The fewest characters each rule can match (a least fixed point).
    fn shortest(&self) -> HashMap<String, usize> {
        let mut best: HashMap<String, usize> = HashMap::new();
        loop {
            let mut changed = false;
            for (name, node) in &self.rules {
                let n = Self::short(node, &best);
                if n < *best.get(name).unwrap_or(&usize::MAX) {
                    best.insert(name.clone(), n);
                    changed = true;
                }
            }
            if !changed {
                return best;
            }
        }
    }

    fn short(node: &Node, best: &HashMap<String, usize>) -> usize {
        match node {
            Node::Lit(l) => l.len(),
            Node::Class { .. } => 1,
            Node::Ref(r) => *best.get(r).unwrap_or(&usize::MAX),
            Node::Seq(v) => v
                .iter()
                .map(|n| Self::short(n, best))
                .fold(0, usize::saturating_add),
            Node::Alt(v) => v.iter().map(|n| Self::short(n, best)).min().unwrap_or(0),
            Node::Rep(n, min, _) => Self::short(n, best).saturating_mul(*min),
        }
    }

    /// A random string the grammar admits; past `deep` rule expansions it takes the shortest
    /// ways out, so that it ends.
    fn generate(&self, rng: &mut StdRng) -> String {
        let best = self.shortest();
        let mut out = String::new();
        self.emit(&Node::Ref("root".into()), rng, &best, 0, &mut out);
        out
    }

    fn emit(
        &self,
        node: &Node,
        rng: &mut StdRng,
        best: &HashMap<String, usize>,
        depth: usize,
        out: &mut String,
    ) {
        let deep = depth > 12;
        match node {
            Node::Lit(l) => out.extend(l),
            Node::Class { negated, ranges } => {
                let fits = |c: char| ranges.iter().any(|&(a, b)| a <= c && c <= b) != *negated;
                let c = if *negated {
                    let ok: Vec<char> = POOL.iter().copied().filter(|&c| fits(c)).collect();
                    ok[rng.random_range(0..ok.len())]
                } else {
                    let (a, b) = ranges[rng.random_range(0..ranges.len())];
                    char::from_u32(rng.random_range(a as u32..=b as u32)).unwrap_or(a)
                };
                out.push(c);
            }
            Node::Ref(r) => self.emit(&self.rules[r], rng, best, depth + 1, out),
            Node::Seq(v) => v.iter().for_each(|n| self.emit(n, rng, best, depth, out)),
            Node::Alt(v) => {
                let pick = if deep {
                    (0..v.len())
                        .min_by_key(|&i| Self::short(&v[i], best))
                        .unwrap()
                } else {
                    rng.random_range(0..v.len())
                };
                self.emit(&v[pick], rng, best, depth, out);
            }
            Node::Rep(inner, min, max) => {
                let mut n = *min;
                let room = max.map_or(4, |m| (m - min).min(4));
                if !deep {
                    while n < min + room && rng.random_bool(0.6) {
                        n += 1;
                    }
                }
                for _ in 0..n {
                    self.emit(inner, rng, best, depth, out);
                }
            }
        }
    }
}

fn tool(name: &str, parameters: Option<Value>) -> Tool {
    serde_json::from_value(json!({
        "type": "function",
        "function": {"name": name, "parameters": parameters}
    }))
    .unwrap()
}

fn weather() -> Tool {
    tool(
        "get_weather",
        Some(json!({
            "type": "object",
            "properties": {
                "city": {"type": "string"},
                "unit": {"enum": ["celsius", "fahrenheit"]},
                "days": {"type": "integer"}
            },
            "required": ["city"]
        })),
    )
}

fn calls(format: ToolFormat, tools: &[&Tool], parallel: bool, reasoning: Reasoning) -> Gbnf {
    Gbnf::parse(&tool_call_grammar(format, tools, parallel, reasoning).unwrap())
}

fn grammar(tools: &[&Tool], parallel: bool) -> Gbnf {
    calls(ToolFormat::Hermes, tools, parallel, Reasoning::No)
}

fn hermes(body: &str) -> String {
    format!("<tool_call>\n{body}\n</tool_call>")
}

#[test]
fn the_recognizer_can_say_no() {
    let g = Gbnf::parse("root ::= \"a\" [0-9]{1,2} ( \"x\" | \"y\" )?\n");
    assert!(g.accepts("a1") && g.accepts("a12x") && g.accepts("a0y"));
    assert!(!g.accepts("a") && !g.accepts("a123") && !g.accepts("a1z") && !g.accepts("b1"));
}

#[test]
fn hermes_call_follows_the_schema() {
    let w = weather();
    let g = grammar(&[&w], false);
    for ok in [
        r#"{"name": "get_weather", "arguments": {"city": "Paris"}}"#,
        r#"{"name": "get_weather", "arguments": {"city": "Paris", "unit": "celsius"}}"#,
        r#"{"name": "get_weather", "arguments": {"city": "Pa\"ris\n", "days": -3}}"#,
        r#"{"name": "get_weather", "arguments": {"city": "", "unit": "fahrenheit", "days": 10}}"#,
        r#"{"name": "get_weather", "arguments": {"city":"x","days":7}}"#,
    ] {
        assert!(g.accepts(&hermes(ok)), "{ok}");
        let parsed: Value = serde_json::from_str(ok).unwrap();
        assert_eq!(parsed["name"], "get_weather");
    }
    for bad in [
        // the required key is missing
        r#"{"name": "get_weather", "arguments": {"unit": "celsius"}}"#,
        // not in the enum
        r#"{"name": "get_weather", "arguments": {"city": "Paris", "unit": "kelvin"}}"#,
        // not an integer
        r#"{"name": "get_weather", "arguments": {"city": "Paris", "days": 1.5}}"#,
        // a key the schema does not have
        r#"{"name": "get_weather", "arguments": {"city": "Paris", "country": "FR"}}"#,
        // another function
        r#"{"name": "get_time", "arguments": {"city": "Paris"}}"#,
        // a raw newline inside a string
        "{\"name\": \"get_weather\", \"arguments\": {\"city\": \"Pa\nris\"}}",
    ] {
        assert!(!g.accepts(&hermes(bad)), "{bad}");
    }
    // Not wrapped, or text around it.
    let body = r#"{"name": "get_weather", "arguments": {"city": "Paris"}}"#;
    assert!(!g.accepts(body));
    assert!(!g.accepts(&format!("Sure! {}", hermes(body))));
    assert!(!g.accepts(&format!("{}\n", hermes(body))));
}

#[test]
fn required_offers_every_tool_and_parallel_calls() {
    let w = weather();
    let t = tool("get_time", None);
    let one = hermes(r#"{"name": "get_time", "arguments": {}}"#);
    let two = hermes(r#"{"name": "get_weather", "arguments": {"city": "Oslo"}}"#);
    let g = grammar(&[&w, &t], true);
    assert!(g.accepts(&one) && g.accepts(&two));
    assert!(g.accepts(&format!("{one}\n{two}")));
    // A function without parameters takes an empty object only.
    assert!(!g.accepts(&hermes(r#"{"name": "get_time", "arguments": {"a": 1}}"#)));
    let g = grammar(&[&w, &t], false);
    assert!(g.accepts(&one));
    assert!(!g.accepts(&format!("{one}\n{two}")));
    // A forced name: only that function.
    let g = grammar(&[&t], true);
    assert!(g.accepts(&one) && !g.accepts(&two));
}

#[test]
fn optional_members_need_no_leading_comma() {
    let t = tool(
        "search",
        Some(json!({"type": "object", "properties": {
            "q": {"type": "string"}, "limit": {"type": "integer"}, "exact": {"type": "boolean"}
        }})),
    );
    let g = grammar(&[&t], false);
    for ok in [
        r#"{}"#,
        r#"{"q": "x"}"#,
        r#"{"limit": 3}"#,
        r#"{"exact": false}"#,
        r#"{"q": "x", "exact": true}"#,
        r#"{"limit": 3, "exact": true}"#,
    ] {
        let call = hermes(&format!(r#"{{"name": "search", "arguments": {ok}}}"#));
        assert!(g.accepts(&call), "{ok}");
    }
    for bad in [
        r#"{, "limit": 3}"#,
        r#"{"q": "x",}"#,
        r#"{"q": "x", "q": "y"}"#,
    ] {
        let call = hermes(&format!(r#"{{"name": "search", "arguments": {bad}}}"#));
        assert!(!g.accepts(&call), "{bad}");
    }
}

#[test]
fn nested_schemas_arrays_unions_and_fallbacks() {
    let t = tool(
        "plan",
        Some(
            json!({"type": "object", "required": ["steps", "meta", "when", "free"], "properties": {
                "steps": {"type": "array", "items": {"type": "object", "required": ["n"],
                    "properties": {"n": {"type": "number"}}}},
                "meta": {"anyOf": [{"type": "null"}, {"const": {"v": 1}}]},
                "when": {"type": ["string", "null"]},
                "free": {"$ref": "#/defs/x"}
            }}),
        ),
    );
    let g = grammar(&[&t], false);
    let call = |args: &str| hermes(&format!(r#"{{"name": "plan", "arguments": {args}}}"#));
    for ok in [
        r#"{"steps": [], "meta": null, "when": null, "free": [1, {"a": "b"}]}"#,
        r#"{"steps": [{"n": 1.5e3}, {"n": -2}], "meta": {"v":1}, "when": "now", "free": "x"}"#,
    ] {
        assert!(g.accepts(&call(ok)), "{ok}");
    }
    for bad in [
        r#"{"steps": [{"m": 1}], "meta": null, "when": null, "free": 1}"#,
        r#"{"steps": [], "meta": {"v":2}, "when": null, "free": 1}"#,
        r#"{"steps": [], "meta": null, "when": 3, "free": 1}"#,
    ] {
        assert!(!g.accepts(&call(bad)), "{bad}");
    }
    // Not an object schema at the top: any object.
    let t = tool("odd", Some(json!({"type": "string"})));
    let g = grammar(&[&t], false);
    assert!(g.accepts(&hermes(r#"{"name": "odd", "arguments": {"k": [true]}}"#)));
}

#[test]
fn keys_and_names_are_escaped() {
    let t = tool(
        "q-1_x",
        Some(json!({"type": "object", "required": ["a \"b\"\\"],
            "properties": {"a \"b\"\\": {"enum": ["x\ty", 2, null]}}})),
    );
    let text = tool_call_grammar(ToolFormat::Hermes, &[&t], false, Reasoning::No).unwrap();
    let g = Gbnf::parse(&text);
    assert!(g.accepts(&hermes(
        r#"{"name": "q-1_x", "arguments": {"a \"b\"\\": "x\ty"}}"#
    )));
    assert!(g.accepts(&hermes(
        r#"{"name": "q-1_x", "arguments": {"a \"b\"\\": null}}"#
    )));
    assert!(!g.accepts(&hermes(
        r#"{"name": "q-1_x", "arguments": {"a \"b\"\\": 3}}"#
    )));
    // Rule names are GBNF words.
    for line in text.lines() {
        let name = line.split(" ::= ").next().unwrap();
        assert!(
            name.chars().all(|c| c.is_ascii_alphanumeric() || c == '-'),
            "{name}"
        );
    }
}

#[test]
fn llama3_and_reasoning_forms() {
    let w = weather();
    let g = calls(ToolFormat::Llama3, &[&w], false, Reasoning::No);
    assert!(g.accepts(r#"{"name": "get_weather", "parameters": {"city": "Rome"}}"#));
    assert!(!g.accepts(r#"{"name": "get_weather", "arguments": {"city": "Rome"}}"#));

    let call = hermes(r#"{"name": "get_weather", "arguments": {"city": "Rome"}}"#);
    let open = calls(ToolFormat::Hermes, &[&w], false, Reasoning::Open);
    assert!(open.accepts(&format!("Let me see: a < b.</think>\n\n{call}")));
    assert!(!open.accepts(&call));
    let optional = calls(ToolFormat::Hermes, &[&w], false, Reasoning::Optional);
    assert!(optional.accepts(&call));
    assert!(optional.accepts(&format!("<think>hmm</think>\n{call}")));
    assert!(!optional.accepts(&format!("hmm</think>\n{call}")));
}

#[test]
fn tool_choice_modes() {
    let req = |choice: Value| -> JobRequest {
        serde_json::from_value(json!({
            "max_tokens": 5,
            "messages": [{"role": "user", "content": "x"}],
            "tools": [
                {"type": "function", "function": {"name": "a"}},
                {"type": "function", "function": {"name": "b"}}
            ],
            "tool_choice": choice
        }))
        .unwrap()
    };
    let names = |r: &JobRequest| match tool_mode(r) {
        ToolMode::Forced(t) => t
            .iter()
            .map(|t| t.function.name.clone())
            .collect::<Vec<_>>(),
        other => panic!("{other:?}"),
    };
    assert_eq!(names(&req(json!("required"))), ["a", "b"]);
    assert_eq!(
        names(&req(json!({"type": "function", "function": {"name": "b"}}))),
        ["b"]
    );
    assert_eq!(tool_mode(&req(json!("none"))), ToolMode::None);
    assert_eq!(tool_mode(&req(json!("auto"))), ToolMode::Auto);
    assert_eq!(tool_mode(&req(Value::Null)), ToolMode::Auto);
    let mut no_tools = req(json!("required"));
    no_tools.tools = None;
    assert_eq!(tool_mode(&no_tools), ToolMode::None);
}

#[test]
fn formats_from_templates() {
    assert_eq!(
        ToolFormat::detect("{{ '<tool_call>' }}"),
        ToolFormat::Hermes
    );
    assert_eq!(
        ToolFormat::detect("{{ '<|python_tag|>' }}{{ '<|eom_id|>' }}"),
        ToolFormat::Llama3
    );
    assert_eq!(ToolFormat::detect("{{ messages }}"), ToolFormat::Hermes);
}
