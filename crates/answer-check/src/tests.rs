use serde_json::{json, Value};
use shoal_protocol::chat::{FunctionCallDelta, ToolCallDelta};
use shoal_protocol::worker::{FinishReason, JobRequest};

use super::{for_validator, Check, Fault, Watch};

fn job(extra: Value) -> JobRequest {
    let mut body = json!({"messages": [{"role": "user", "content": "hi"}], "max_tokens": 64});
    for (k, v) in extra.as_object().unwrap() {
        body[k] = v.clone();
    }
    serde_json::from_value(body).unwrap()
}

fn schema_job(schema: Value) -> JobRequest {
    job(json!({"response_format": {"type": "json_schema",
        "json_schema": {"name": "answer", "strict": true, "schema": schema}}}))
}

fn content(check: &Check, text: &str) -> Result<(), Fault> {
    check.answer(text, [], FinishReason::Stop)
}

/// An object with a string, an integer, an enum array, a nested object through `$ref` and a
/// nullable field: what agent frameworks send.
fn person() -> Value {
    json!({
        "type": "object",
        "properties": {
            "name": {"type": "string"},
            "age": {"type": "integer", "minimum": 0},
            "tags": {"type": "array", "items": {"enum": ["a", "b"]}, "maxItems": 3},
            "home": {"$ref": "#/$defs/place"},
            "nick": {"type": "string", "nullable": true}
        },
        "required": ["name", "age", "tags", "home", "nick"],
        "additionalProperties": false,
        "$defs": {"place": {"type": "object", "properties": {"city": {"type": "string"}},
            "required": ["city"], "additionalProperties": false}}
    })
}

#[test]
fn a_plain_request_has_nothing_to_check() {
    assert!(Check::of(&job(json!({}))).is_none());
    assert!(Check::of(&job(json!({"response_format": {"type": "text"}}))).is_none());
}

#[test]
fn json_object_wants_one_object_and_nothing_around_it() {
    let check = Check::of(&job(json!({"response_format": {"type": "json_object"}}))).unwrap();
    assert_eq!(content(&check, r#"{"a": [1, 2]}"#), Ok(()));
    assert_eq!(content(&check, " {\"a\": 1}\n"), Ok(()));
    assert_eq!(content(&check, "[1, 2]"), Err(Fault::ContentMismatch));
    assert_eq!(
        content(&check, "Sure! {\"a\": 1}"),
        Err(Fault::ContentNotJson)
    );
    assert_eq!(
        content(&check, "```json\n{\"a\": 1}\n```"),
        Err(Fault::ContentNotJson)
    );
    assert_eq!(content(&check, "{\"a\": 1} {}"), Err(Fault::ContentNotJson));
    assert_eq!(content(&check, ""), Err(Fault::ContentNotJson));
}

#[test]
fn json_schema_answers_are_validated_against_the_schema() {
    let check = Check::of(&schema_job(person())).unwrap();
    let valid = json!({"name": "Ada", "age": 36, "tags": ["a"], "home": {"city": "London"},
        "nick": null});
    assert_eq!(content(&check, &valid.to_string()), Ok(()));
    let mut named = valid.clone();
    named["nick"] = json!("ada");
    assert_eq!(content(&check, &named.to_string()), Ok(()));
    for (field, wrong) in [
        ("age", json!(-1)),
        ("age", json!("36")),
        ("tags", json!(["c"])),
        ("tags", json!(["a", "a", "b", "b"])),
        ("home", json!({"town": "London"})),
        ("nick", json!(7)),
    ] {
        let mut v = valid.clone();
        v[field] = wrong;
        assert_eq!(
            content(&check, &v.to_string()),
            Err(Fault::ContentMismatch),
            "{v}"
        );
    }
    let mut extra = valid.clone();
    extra["more"] = json!(1);
    assert_eq!(
        content(&check, &extra.to_string()),
        Err(Fault::ContentMismatch)
    );
    assert_eq!(
        content(&check, r#"{"name": "Ada""#),
        Err(Fault::ContentNotJson)
    );
}

#[test]
fn a_cut_answer_is_not_checked() {
    let check = Check::of(&schema_job(person())).unwrap();
    for finish in [FinishReason::Length, FinishReason::ContentFilter] {
        assert_eq!(check.answer(r#"{"name": "Ad"#, [], finish), Ok(()));
    }
    assert_eq!(
        check.answer(r#"{"name": "Ad"#, [], FinishReason::Stop),
        Err(Fault::ContentNotJson)
    );
}

#[test]
fn a_schema_in_older_drafts_reads_as_the_subset_reads_it() {
    // Draft 4's boolean exclusive bound, and a tuple as an array `items`.
    let check = Check::of(&schema_job(json!({
        "$schema": "http://json-schema.org/draft-04/schema#",
        "type": "object",
        "properties": {
            "n": {"type": "integer", "minimum": 0, "exclusiveMinimum": true},
            "pair": {"type": "array", "items": [{"type": "string"}, {"type": "integer"}],
                "additionalItems": false}
        },
        "required": ["n", "pair"],
        "definitions": {"unused": {"type": "string"}}
    })))
    .unwrap();
    assert_eq!(content(&check, r#"{"n": 1, "pair": ["a", 2]}"#), Ok(()));
    assert_eq!(
        content(&check, r#"{"n": 0, "pair": ["a", 2]}"#),
        Err(Fault::ContentMismatch)
    );
    assert_eq!(
        content(&check, r#"{"n": 1, "pair": [2, "a"]}"#),
        Err(Fault::ContentMismatch)
    );
    assert_eq!(
        content(&check, r#"{"n": 1, "pair": ["a", 2, 3]}"#),
        Err(Fault::ContentMismatch)
    );
}

#[test]
fn one_of_is_any_one_option_and_nullable_reaches_every_form() {
    let check = Check::of(&schema_job(json!({
        "type": "object",
        "properties": {
            "x": {"oneOf": [{"type": "number"}, {"type": "integer"}]},
            "c": {"const": "k", "nullable": true},
            "o": {"anyOf": [{"type": "string"}], "nullable": true}
        },
        "required": ["x", "c", "o"]
    })))
    .unwrap();
    // 3 matches both options: `oneOf` would refuse it, the engines' reading does not.
    assert_eq!(content(&check, r#"{"x": 3, "c": null, "o": null}"#), Ok(()));
    assert_eq!(content(&check, r#"{"x": 3, "c": "k", "o": "s"}"#), Ok(()));
    assert_eq!(
        content(&check, r#"{"x": 3, "c": "j", "o": "s"}"#),
        Err(Fault::ContentMismatch)
    );
}

#[test]
fn the_rewrite_leaves_values_alone() {
    // An `enum` value that looks like a schema is data, not a schema.
    let schema = json!({"enum": [{"nullable": true, "items": [1]}]});
    let rewritten = for_validator(schema.as_object().unwrap());
    assert_eq!(rewritten, schema);
}

fn tools_job(extra: Value) -> JobRequest {
    let mut request = json!({"tools": [
        {"type": "function", "function": {"name": "strict_one", "strict": true,
            "parameters": {"type": "object", "properties": {"q": {"type": "string"}},
                "required": ["q"], "additionalProperties": false}}},
        {"type": "function", "function": {"name": "loose", "parameters": {"type": "object"}}}
    ]});
    for (k, v) in extra.as_object().unwrap() {
        request[k] = v.clone();
    }
    job(request)
}

#[test]
fn a_strict_tools_arguments_follow_its_parameters() {
    let check = Check::of(&tools_job(json!({}))).unwrap();
    let calls = |name, args| check.answer("", [(name, args)], FinishReason::ToolCalls);
    assert_eq!(calls("strict_one", r#"{"q": "x"}"#), Ok(()));
    assert_eq!(
        calls("strict_one", r#"{"q": 1}"#),
        Err(Fault::ToolArguments)
    );
    assert_eq!(
        calls("strict_one", r#"{"q": "x""#),
        Err(Fault::ToolArguments)
    );
    assert_eq!(calls("strict_one", "{}"), Err(Fault::ToolArguments));
    // Not strict: nothing was promised about its arguments.
    assert_eq!(calls("loose", "not json"), Ok(()));
    // Plain text beside strict tools: nothing was promised about it.
    assert_eq!(check.answer("hello", [], FinishReason::Stop), Ok(()));
}

#[test]
fn with_tools_and_a_format_an_answer_is_calls_or_the_json() {
    let check = Check::of(&tools_job(
        json!({"response_format": {"type": "json_object"}}),
    ))
    .unwrap();
    let call = [("strict_one", r#"{"q": "x"}"#)];
    assert_eq!(check.answer("", call, FinishReason::ToolCalls), Ok(()));
    assert_eq!(check.answer("{}", [], FinishReason::Stop), Ok(()));
    assert_eq!(
        check.answer("prose", [], FinishReason::Stop),
        Err(Fault::ContentNotJson)
    );
}

fn call_delta(index: u32, name: Option<&str>, args: &str) -> ToolCallDelta {
    ToolCallDelta {
        index,
        id: None,
        r#type: None,
        function: Some(FunctionCallDelta {
            name: name.map(str::to_owned),
            arguments: Some(args.to_owned()),
        }),
    }
}

#[test]
fn a_stream_is_judged_on_everything_it_carried() {
    let check = Check::of(&schema_job(person())).unwrap();
    let mut watch = Watch::new(&check);
    for piece in [
        r#"{"name": "Ada", "age": 36, "#,
        r#""tags": [], "home": {"city": "#,
        r#""x"}, "nick": null}"#,
    ] {
        watch.see(Some(piece), None);
    }
    assert_eq!(watch.verdict(FinishReason::Stop), Ok(()));
    watch.see(Some("!"), None);
    assert_eq!(
        watch.verdict(FinishReason::Stop),
        Err(Fault::ContentNotJson)
    );

    let check = Check::of(&tools_job(json!({}))).unwrap();
    let mut watch = Watch::new(&check);
    watch.see(None, Some(&[call_delta(0, Some("strict_one"), "{\"q\":")]));
    watch.see(None, Some(&[call_delta(0, None, " \"x\"}")]));
    watch.see(None, Some(&[call_delta(1, Some("strict_one"), "{}")]));
    assert_eq!(
        watch.verdict(FinishReason::ToolCalls),
        Err(Fault::ToolArguments)
    );
    watch.see(None, Some(&[call_delta(200, Some("strict_one"), "{}")]));
}

#[test]
fn a_schema_with_no_constraint_admits_any_json() {
    let check = Check::of(&schema_job(json!({}))).unwrap();
    assert_eq!(content(&check, "[1, \"a\"]"), Ok(()));
    assert_eq!(content(&check, "7"), Ok(()));
    assert_eq!(content(&check, "seven"), Err(Fault::ContentNotJson));
}
