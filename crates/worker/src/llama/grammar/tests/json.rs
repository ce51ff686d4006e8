//! Structured outputs: every string a grammar from a schema admits is JSON that validates
//! against the schema (checked on random strings drawn from the grammar with the `jsonschema`
//! crate, formats included), and strings that break a keyword are refused.

use rand::SeedableRng;

use super::*;

const HERMES: ModelTraits = ModelTraits {
    tool_format: ToolFormat::Hermes,
    supports_tools: true,
    thinks: false,
};

fn request(extra: Value) -> JobRequest {
    let mut body = json!({"max_tokens": 5, "messages": [{"role": "user", "content": "x"}]});
    for (k, v) in extra.as_object().unwrap() {
        body[k] = v.clone();
    }
    serde_json::from_value(body).unwrap()
}

fn with_schema(schema: &Value) -> JobRequest {
    request(json!({"response_format": {"type": "json_schema",
        "json_schema": {"name": "out", "strict": true, "schema": schema}}}))
}

fn planned(request: &JobRequest, model: ModelTraits, prompt: &str) -> JobGrammar {
    let plan = plan(request, model, prompt).unwrap();
    plan.grammar.expect("a grammar")
}

fn schema_grammar(schema: &Value) -> Gbnf {
    let g = planned(&with_schema(schema), HERMES, "");
    assert_eq!(g.trigger, None);
    Gbnf::parse(&g.gbnf)
}

/// Draws `n` strings from the grammar; each must parse and validate against `schema`.
fn samples_validate(schema: &Value, n: usize) -> Vec<Value> {
    let g = schema_grammar(schema);
    let validator = jsonschema::options()
        .should_validate_formats(true)
        .build(schema)
        .unwrap();
    let mut rng = StdRng::seed_from_u64(7);
    (0..n)
        .map(|_| {
            let text = g.generate(&mut rng);
            assert!(g.accepts(&text), "the recognizer disagrees: {text}");
            let value: Value = serde_json::from_str(&text)
                .unwrap_or_else(|e| panic!("not JSON ({e}): {text}\nschema: {schema}"));
            assert!(
                validator.is_valid(&value),
                "does not validate: {text}\nschema: {schema}"
            );
            value
        })
        .collect()
}

fn keyword_cases() -> Vec<Value> {
    vec![
        json!({"type": "object", "properties": {
            "name": {"type": "string"},
            "age": {"type": "integer", "minimum": 0, "maximum": 150},
            "tags": {"type": "array", "items": {"enum": ["red", "green", "blue"]}, "minItems": 1, "maxItems": 3},
            "home": {"$ref": "#/$defs/Address"},
            "note": {"type": ["string", "null"]},
            "score": {"type": "number", "minimum": 0, "maximum": 1}
        }, "required": ["name", "age", "tags", "home", "note"], "additionalProperties": false,
        "$defs": {"Address": {"type": "object", "properties": {"city": {"type": "string", "maxLength": 12},
            "zip": {"type": "string", "minLength": 5, "maxLength": 5}}, "required": ["city"]}}}),
        json!({"type": "string", "format": "date"}),
        json!({"type": "string", "format": "date-time"}),
        json!({"type": "string", "format": "time"}),
        json!({"type": "string", "format": "uuid"}),
        json!({"type": "string", "format": "email"}),
        json!({"type": "string", "format": "ipv4"}),
        json!({"type": "string", "format": "uri"}),
        json!({"type": "integer", "minimum": -1234, "maximum": 56789}),
        json!({"type": "integer", "exclusiveMinimum": 7}),
        json!({"type": "integer", "maximum": -20}),
        json!({"type": "number", "exclusiveMinimum": -3, "exclusiveMaximum": 2}),
        json!({"type": "number", "minimum": 10}),
        json!({"type": "number", "exclusiveMaximum": 0}),
        json!({"type": "number", "minimum": -5, "maximum": -5}),
        json!({"type": "number"}),
        json!({"const": {"a": [1, "x"]}}),
        json!({"enum": ["a\"b", 3, null, true, {"k": []}]}),
        json!({"anyOf": [{"type": "integer"}, {"type": "array", "items": {"type": "boolean"}}]}),
        json!({"oneOf": [{"type": "object", "properties": {"kind": {"const": "a"}}, "required": ["kind"]},
                         {"type": "object", "properties": {"kind": {"const": "b"}, "n": {"type": "integer"}}, "required": ["kind"]}]}),
        json!({"type": "array", "prefixItems": [{"type": "string"}, {"type": "integer"}], "items": false}),
        json!({"type": "array", "prefixItems": [{"type": "string"}], "items": {"type": "null"}, "minItems": 2, "maxItems": 4}),
        json!({"type": "object", "additionalProperties": {"type": "integer"}, "maxProperties": 2}),
        json!({"type": "object", "properties": {"a": {"type": "integer"}, "b": {"type": "integer"}, "c": {"type": "integer"}}}),
        json!({"type": "object", "properties": {"a": {"type": "integer"}, "b": {"type": "integer"}, "c": {"type": "integer"}}, "required": ["b"]}),
        json!({"$defs": {"tree": {"type": "object", "properties": {"v": {"type": "integer"},
            "kids": {"type": "array", "items": {"$ref": "#/$defs/tree"}, "maxItems": 2}}, "required": ["v"]}},
            "$ref": "#/$defs/tree"}),
        json!({"type": "string", "minLength": 2, "maxLength": 4}),
        json!({}),
        json!({"type": "boolean"}),
    ]
}

#[test]
fn every_string_a_schema_grammar_admits_validates() {
    for schema in keyword_cases() {
        samples_validate(&schema, 150);
    }
}

#[test]
fn the_samples_reach_every_kind_of_value() {
    // The generator is not stuck on one shape: optional members and both options show up.
    let values = samples_validate(&keyword_cases()[0], 150);
    assert!(values.iter().any(|v| v.get("score").is_some()));
    assert!(values.iter().any(|v| v.get("score").is_none()));
    assert!(values.iter().any(|v| v["note"].is_null()));
    assert!(values.iter().any(|v| v["note"].is_string()));
    let numbers = samples_validate(
        &json!({"type": "integer", "minimum": -1234, "maximum": 56789}),
        150,
    );
    assert!(numbers.iter().any(|v| v.as_i64().unwrap() < 0));
    assert!(numbers.iter().any(|v| v.as_i64().unwrap() > 999));
}

#[test]
fn keywords_refuse_what_breaks_them() {
    for (schema, good, bad) in [
        (
            json!({"type": "object", "properties": {"a": {"type": "integer"}, "b": {"type": "string"}}, "required": ["a"]}),
            vec![r#"{"a":1}"#, r#"{"a": 1, "b": "x"}"#],
            vec![
                r#"{"b":"x"}"#,
                r#"{"b":"x","a":1}"#,
                r#"{"a":1,"c":2}"#,
                r#"{"a":1,"a":2}"#,
                r#"{"a":"1"}"#,
            ],
        ),
        (
            json!({"type": "integer", "minimum": 17, "maximum": 213}),
            vec!["17", "99", "100", "213", "200"],
            vec!["16", "214", "0", "-17", "017", "1e2", "20.0", "300"],
        ),
        (
            json!({"type": "number", "minimum": 0, "maximum": 1}),
            vec!["0", "1", "0.5", "1.000", "0.0001"],
            vec!["1.5", "-0.1", "1.01", "2", "1e0", "-0"],
        ),
        (
            json!({"type": "number", "exclusiveMinimum": 0}),
            vec!["0.1", "3", "12.000"],
            vec!["0", "0.0", "-1", "-0.5"],
        ),
        (
            json!({"type": "string", "minLength": 2, "maxLength": 3}),
            // Bounded strings are ASCII, other characters escaped (see `ascii-char`).
            vec![r#""ab""#, r#""a\"b""#, r#""\u65e5\u672c\u8a9e""#],
            vec![r#""a""#, r#""abcd""#, r#""日本""#],
        ),
        (
            json!({"type": "string", "format": "date"}),
            vec![r#""2024-02-28""#, r#""1999-12-31""#],
            vec![
                r#""2024-02-30""#,
                r#""2024-13-01""#,
                r#""24-01-01""#,
                r#""2024-1-01""#,
            ],
        ),
        (
            json!({"type": "string", "format": "uuid"}),
            vec![r#""123e4567-e89b-12d3-a456-426614174000""#],
            vec![r#""123e4567e89b12d3a456426614174000""#, r#""xyz""#],
        ),
        (
            json!({"type": "array", "items": {"type": "integer"}, "minItems": 1, "maxItems": 2}),
            vec!["[1]", "[1, 2]", "[1,2]"],
            vec!["[]", "[1,2,3]", "[1,]", r#"["1"]"#],
        ),
        (
            json!({"type": ["string", "null"]}),
            vec!["null", r#""x""#],
            vec!["1", "\"null"],
        ),
        (
            json!({"enum": ["red", "green"]}),
            vec![r#""red""#, r#""green""#],
            vec![r#""blue""#, "red"],
        ),
        (
            json!({"type": "string"}),
            vec![r#""\ud83d\ude00""#, r#""\u00e9""#, r#""日本語 é""#],
            // A lone surrogate escape: strict parsers refuse it.
            vec![r#""\ud83d""#, "\"a\nb\""],
        ),
    ] {
        let g = schema_grammar(&schema);
        for text in good {
            assert!(g.accepts(text), "{schema} should admit {text}");
        }
        for text in bad {
            assert!(!g.accepts(text), "{schema} should refuse {text}");
        }
    }
}

#[test]
fn no_free_whitespace_and_nothing_around_the_json() {
    let g = schema_grammar(
        &json!({"type": "object", "properties": {"a": {"type": "array", "items": {"type": "integer"}}}}),
    );
    for ok in [r#"{"a":[1,2]}"#, r#"{"a": [1, 2]}"#, "{}"] {
        assert!(g.accepts(ok), "{ok}");
    }
    for bad in [
        r#"{ "a":[1]}"#,
        r#"{"a":  [1]}"#,
        r#"{"a":[1] }"#,
        "{\"a\":\n[1]}",
        " {}",
        "{}\n",
        "```json\n{}\n```",
        "Here it is: {}",
    ] {
        assert!(!g.accepts(bad), "{bad:?}");
    }
}

#[test]
fn json_object_is_any_object() {
    let g = planned(
        &request(json!({"response_format": {"type": "json_object"}})),
        HERMES,
        "",
    );
    let g = Gbnf::parse(&g.gbnf);
    for ok in ["{}", r#"{"a": [1, {"b": null}], "c": "d"}"#] {
        assert!(g.accepts(ok), "{ok}");
    }
    for bad in ["[]", r#""x""#, "1", "{} {}"] {
        assert!(!g.accepts(bad), "{bad}");
    }
    let mut rng = StdRng::seed_from_u64(3);
    for _ in 0..100 {
        let text = g.generate(&mut rng);
        let value: Value = serde_json::from_str(&text).unwrap_or_else(|e| panic!("{e}: {text}"));
        assert!(value.is_object(), "{text}");
    }
}

#[test]
fn reasoning_comes_first_then_the_json() {
    let schema =
        json!({"type": "object", "properties": {"n": {"type": "integer"}}, "required": ["n"]});
    let thinker = ModelTraits {
        thinks: true,
        ..HERMES
    };
    let open = Gbnf::parse(&planned(&with_schema(&schema), thinker, "…<think>\n").gbnf);
    assert!(open.accepts("The user wants n.</think>\n\n{\"n\":3}"));
    assert!(!open.accepts("{\"n\":3}"));
    assert!(!open.accepts("ok</think>\n\nSure: {\"n\":3}"));
    let optional = Gbnf::parse(&planned(&with_schema(&schema), thinker, "…assistant\n").gbnf);
    assert!(optional.accepts("{\"n\":3}"));
    assert!(optional.accepts("<think>hm</think>\n{\"n\":3}"));
}

#[test]
fn auto_tools_with_a_format_allow_a_call_or_the_answer() {
    let schema =
        json!({"type": "object", "properties": {"n": {"type": "integer"}}, "required": ["n"]});
    let mut req = with_schema(&schema);
    req.tools = Some(vec![weather()]);
    let g = Gbnf::parse(&planned(&req, HERMES, "").gbnf);
    assert!(g.accepts("{\"n\":3}"));
    assert!(g.accepts(&hermes(
        r#"{"name": "get_weather", "arguments": {"city": "Oslo"}}"#
    )));
    assert!(!g.accepts("Let me check."));
    // `none`: no tools, the answer only.
    req.tool_choice = Some(ToolChoice::Mode(ToolChoiceMode::None));
    let plan = plan(&req, HERMES, "").unwrap();
    assert!(!plan.tools);
    let g = Gbnf::parse(&plan.grammar.unwrap().gbnf);
    assert!(!g.accepts(&hermes(
        r#"{"name": "get_weather", "arguments": {"city": "Oslo"}}"#
    )));
    // A forced call wins over the format.
    req.tool_choice = Some(ToolChoice::Mode(ToolChoiceMode::Required));
    let g = Gbnf::parse(&planned(&req, HERMES, "").gbnf);
    assert!(!g.accepts("{\"n\":3}"));
}

fn strict_tool() -> Tool {
    serde_json::from_value(
        json!({"type": "function", "function": {"name": "add", "strict": true,
        "parameters": {"type": "object", "properties": {"a": {"type": "integer", "maximum": 9}},
        "required": ["a"], "additionalProperties": false}}}),
    )
    .unwrap()
}

#[test]
fn strict_tools_hold_their_calls_to_the_schema() {
    let mut req = request(json!({}));
    req.tools = Some(vec![strict_tool(), weather()]);
    // Auto: free text until a call opens, then the grammar (lazy, from `<tool_call>`).
    let g = planned(&req, HERMES, "");
    assert_eq!(g.trigger.as_deref(), Some(HERMES_TRIGGER));
    let calls = Gbnf::parse(&g.gbnf);
    assert!(calls.accepts(&hermes(r#"{"name": "add", "arguments": {"a": 4}}"#)));
    assert!(!calls.accepts(&hermes(r#"{"name": "add", "arguments": {"a": 10}}"#)));
    assert!(!calls.accepts(&hermes(r#"{"name": "add", "arguments": {"a": 4, "b": 1}}"#)));
    // Without a strict tool, auto needs no grammar.
    req.tools = Some(vec![weather()]);
    assert_eq!(plan(&req, HERMES, "").unwrap().grammar, None);
    // Llama 3 calls have no opening marker to wait for: free text, as before.
    req.tools = Some(vec![strict_tool()]);
    let llama3 = ModelTraits {
        tool_format: ToolFormat::Llama3,
        ..HERMES
    };
    assert_eq!(plan(&req, llama3, "").unwrap().grammar, None);
    // Forced: exactly the schema.
    req.tool_choice = Some(ToolChoice::Mode(ToolChoiceMode::Required));
    let g = Gbnf::parse(&planned(&req, HERMES, "").gbnf);
    assert!(g.accepts(&hermes(r#"{"name": "add", "arguments": {"a": 9}}"#)));
    assert!(!g.accepts(&hermes(r#"{"name": "add", "arguments": {}}"#)));
}

#[test]
fn a_schema_outside_the_subset_is_refused() {
    let req = with_schema(&json!({"type": "string", "pattern": "^a"}));
    assert_eq!(plan(&req, HERMES, ""), Err(Unenforceable));
    let mut req = request(json!({"tool_choice": "required"}));
    let mut tool = strict_tool();
    tool.function.parameters = Some(
        json!({"type": "object", "not": {}})
            .as_object()
            .unwrap()
            .clone(),
    );
    req.tools = Some(vec![tool.clone()]);
    assert_eq!(plan(&req, HERMES, ""), Err(Unenforceable));
    // Without `strict`, the same tool is followed as far as the subset goes.
    tool.function.strict = None;
    req.tools = Some(vec![tool]);
    assert!(plan(&req, HERMES, "").unwrap().grammar.is_some());
}

#[test]
fn a_fifty_property_schema_builds_a_grammar_the_recognizer_takes() {
    let mut properties = serde_json::Map::new();
    for i in 0..50 {
        let schema = match i % 5 {
            0 => json!({"type": "string", "maxLength": 20}),
            1 => json!({"type": "integer", "minimum": 0, "maximum": 1000}),
            2 => json!({"enum": ["a", "b", "c"]}),
            3 => json!({"type": ["number", "null"]}),
            _ => json!({"type": "array", "items": {"type": "boolean"}, "maxItems": 4}),
        };
        properties.insert(format!("field_{i}"), schema);
    }
    let required: Vec<String> = (0..50).step_by(2).map(|i| format!("field_{i}")).collect();
    let schema = json!({"type": "object", "properties": properties, "required": required});
    samples_validate(&schema, 20);
}
