//! Structured outputs on the embedded llama.cpp backend, on the random-weight test model:
//! its text is noise, so only the grammar can make these answers valid JSON of the schema.

#![cfg(feature = "llama")]

use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use serde_json::{json, Value};
use shoal_protocol::worker::{ErrorCode, FinishReason, JobRequest, WorkerMessage};
use shoal_worker::backend::{ChatBackend, Job, JobEnd, JobOutput};
use shoal_worker::llama::{test_model, LlamaCppBackend, LlamaOptions};
use tokio::sync::mpsc;
use tokio_util::sync::CancellationToken;

const MODEL: &str = "demo";

fn dir() -> &'static Path {
    static DIR: OnceLock<PathBuf> = OnceLock::new();
    DIR.get_or_init(|| {
        let dir = std::env::temp_dir().join(format!("shoal-structured-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        dir
    })
}

fn load(name: &str, template: Option<&str>) -> LlamaCppBackend {
    let path = dir().join(name);
    match template {
        None => test_model::write(&path, 4096).unwrap(),
        Some(t) => test_model::write_with_template(&path, 4096, t).unwrap(),
    }
    let options = LlamaOptions {
        gguf: path,
        mmproj: None,
        ctx: Some(4096),
        threads: Some(1),
        concurrency: 2,
        progress: false,
    };
    LlamaCppBackend::load(&options, vec![MODEL.parse().unwrap()]).unwrap()
}

fn backend() -> &'static LlamaCppBackend {
    static BACKEND: OnceLock<LlamaCppBackend> = OnceLock::new();
    BACKEND.get_or_init(|| load("plain.gguf", None))
}

/// What a job said: its content, its reasoning, and its end.
struct Answer {
    content: String,
    reasoning: String,
    end: JobEnd,
}

async fn run(backend: &LlamaCppBackend, request: Value) -> Answer {
    let mut body = json!({"messages": [{"role": "user", "content": "Describe a person."}],
                          "max_tokens": 1500});
    for (k, v) in request.as_object().unwrap() {
        body[k] = v.clone();
    }
    let request: JobRequest = serde_json::from_value(body).unwrap();
    let (tx, mut rx) = mpsc::channel(4096);
    let mut out = JobOutput::new("job".into(), tx);
    let job = Job {
        id: "job".into(),
        model: MODEL.into(),
        request,
    };
    let end = backend
        .generate(job, &mut out, CancellationToken::new())
        .await;
    drop(out);
    let (mut content, mut reasoning) = (String::new(), String::new());
    while let Some(msg) = rx.recv().await {
        if let WorkerMessage::Delta {
            content: c,
            reasoning: r,
            ..
        } = msg
        {
            content.push_str(c.as_deref().unwrap_or_default());
            reasoning.push_str(r.as_deref().unwrap_or_default());
        }
    }
    Answer {
        content,
        reasoning,
        end,
    }
}

fn finish(end: &JobEnd) -> FinishReason {
    match end {
        JobEnd::Done { finish_reason, .. } => *finish_reason,
        other => panic!("{other:?}"),
    }
}

/// An object with a string, an integer, an enum array, a nested object, a nullable field and
/// a `$ref`.
fn person() -> Value {
    json!({
        "type": "object",
        "properties": {
            "name": {"type": "string", "maxLength": 24},
            "age": {"type": "integer", "minimum": 0, "maximum": 120},
            "colors": {"type": "array", "items": {"enum": ["red", "green", "blue"]}, "maxItems": 3},
            "address": {"$ref": "#/$defs/Address"},
            "nickname": {"anyOf": [{"type": "string", "maxLength": 12}, {"type": "null"}]}
        },
        "required": ["name", "age", "colors", "address", "nickname"],
        "additionalProperties": false,
        "$defs": {"Address": {
            "type": "object",
            "properties": {"city": {"type": "string", "maxLength": 16}, "since": {"type": "string", "format": "date"}},
            "required": ["city", "since"],
            "additionalProperties": false
        }}
    })
}

fn json_schema(schema: &Value) -> Value {
    json!({"response_format": {"type": "json_schema",
        "json_schema": {"name": "person", "strict": true, "schema": schema}}})
}

fn validator(schema: &Value) -> jsonschema::Validator {
    jsonschema::options()
        .should_validate_formats(true)
        .build(schema)
        .unwrap()
}

#[tokio::test]
async fn a_nested_schema_holds_on_noise() {
    let schema = person();
    let check = validator(&schema);
    for seed in 0..20 {
        let mut request = json_schema(&schema);
        request["seed"] = json!(seed);
        let a = run(backend(), request).await;
        assert_eq!(finish(&a.end), FinishReason::Stop, "{}", a.content);
        let value: Value = serde_json::from_str(&a.content)
            .unwrap_or_else(|e| panic!("not JSON ({e}): {}", a.content));
        assert!(check.is_valid(&value), "{value}");
    }
}

#[tokio::test]
async fn json_object_is_an_object() {
    for seed in 0..20 {
        let a = run(
            backend(),
            json!({"response_format": {"type": "json_object"}, "seed": seed, "max_tokens": 3000}),
        )
        .await;
        if finish(&a.end) == FinishReason::Length {
            // Noise may nest deeper than the limit; what it wrote is still JSON so far.
            continue;
        }
        let value: Value = serde_json::from_str(&a.content)
            .unwrap_or_else(|e| panic!("not JSON ({e}): {}", a.content));
        assert!(value.is_object(), "{value}");
    }
}

#[tokio::test]
async fn a_cut_answer_ends_with_length_and_stop_strings_do_not_cut_json() {
    let mut request = json_schema(&person());
    request["max_tokens"] = json!(6);
    let a = run(backend(), request).await;
    assert_eq!(finish(&a.end), FinishReason::Length);
    assert!(serde_json::from_str::<Value>(&a.content).is_err());
    // `"` is in every answer; the grammar decides the end, not the stop string.
    let mut request = json_schema(&person());
    request["stop"] = json!(["\"", ","]);
    let a = run(backend(), request).await;
    assert_eq!(finish(&a.end), FinishReason::Stop);
    assert!(validator(&person()).is_valid(&serde_json::from_str(&a.content).unwrap()));
}

#[tokio::test]
async fn a_schema_outside_the_subset_is_refused() {
    let a = run(
        backend(),
        json_schema(&json!({"type": "string", "pattern": "^a+$"})),
    )
    .await;
    assert_eq!(
        a.end,
        JobEnd::Failed {
            code: ErrorCode::InvalidRequest,
            retryable: false
        }
    );
}

#[tokio::test]
async fn a_strict_tool_call_follows_its_schema() {
    let tool = json!({"type": "function", "function": {"name": "set_age", "strict": true,
        "parameters": {"type": "object", "properties": {"age": {"type": "integer", "minimum": 1, "maximum": 9}},
        "required": ["age"], "additionalProperties": false}}});
    for seed in 0..5 {
        let request = json!({"tools": [tool], "tool_choice": "required", "seed": seed,
                             "parallel_tool_calls": false});
        let (tx, mut rx) = mpsc::channel(4096);
        let mut out = JobOutput::new("job".into(), tx);
        let mut body = json!({"messages": [{"role": "user", "content": "x"}], "max_tokens": 400});
        for (k, v) in request.as_object().unwrap() {
            body[k] = v.clone();
        }
        let job = Job {
            id: "job".into(),
            model: MODEL.into(),
            request: serde_json::from_value(body).unwrap(),
        };
        let end = backend()
            .generate(job, &mut out, CancellationToken::new())
            .await;
        drop(out);
        assert_eq!(finish(&end), FinishReason::ToolCalls);
        let mut arguments = String::new();
        while let Some(msg) = rx.recv().await {
            if let WorkerMessage::Delta {
                tool_calls: Some(calls),
                ..
            } = msg
            {
                for call in calls {
                    if let Some(f) = call.function {
                        arguments.push_str(f.arguments.as_deref().unwrap_or_default());
                    }
                }
            }
        }
        let args: Value = serde_json::from_str(&arguments).unwrap();
        let age = args["age"].as_i64().unwrap();
        assert!((1..=9).contains(&age), "{args}");
    }
}

#[tokio::test]
async fn a_thinking_model_reasons_first_then_answers_in_json() {
    // The test model's template, opening a `<think>` block for the answer (as Qwen3's does).
    let template = test_model::CHAT_TEMPLATE.replace(
        "{{- '<|im_start|>assistant\\n' }}",
        "{{- '<|im_start|>assistant\\n<think>\\n' }}",
    );
    assert_ne!(template, test_model::CHAT_TEMPLATE);
    let thinker = load("think.gguf", Some(&template));
    let schema =
        json!({"type": "object", "properties": {"ok": {"type": "boolean"}}, "required": ["ok"]});
    let (mut done, mut reasoned) = (0, 0);
    for seed in 0..6 {
        let mut request = json_schema(&schema);
        request["seed"] = json!(seed);
        request["max_tokens"] = json!(4000);
        request["temperature"] = json!(2);
        let a = run(&thinker, request).await;
        if finish(&a.end) == FinishReason::Length {
            // Noise may think past the limit; then nothing but reasoning was said.
            assert!(a.content.is_empty(), "{}", a.content);
            continue;
        }
        reasoned += usize::from(!a.reasoning.is_empty());
        let value: Value = serde_json::from_str(a.content.trim_start())
            .unwrap_or_else(|e| panic!("not JSON ({e}): {}", a.content));
        assert!(value["ok"].is_boolean(), "{value}");
        done += 1;
    }
    assert!(done >= 3, "only {done} of 6 answers closed their reasoning");
    assert!(reasoned > 0, "no answer reasoned before its JSON");
}

/// Jobs this backend cannot run end before they reach a slot, each with its own code.
#[tokio::test]
async fn jobs_it_cannot_run_are_refused_with_their_reason() {
    let end = |model: &str, content: Value| {
        let request: JobRequest = serde_json::from_value(
            json!({"messages": [{"role": "user", "content": content}], "max_tokens": 8}),
        )
        .unwrap();
        let job = Job {
            id: "job".into(),
            model: model.into(),
            request,
        };
        async move {
            let (tx, _rx) = mpsc::channel(16);
            let mut out = JobOutput::new("job".into(), tx);
            backend()
                .generate(job, &mut out, CancellationToken::new())
                .await
        }
    };
    let failed = |code, retryable| JobEnd::Failed { code, retryable };
    assert_eq!(
        end("another", json!("Hi")).await,
        failed(ErrorCode::ModelNotServed, true)
    );
    let image = json!([{"type": "text", "text": "What is this?"},
        {"type": "image_url", "image_url": {"url": "data:image/png;base64,aGk="}}]);
    assert_eq!(
        end(MODEL, image).await,
        failed(ErrorCode::VisionUnsupported, true)
    );
}
