//! Renders a conversation with the model's own chat template (`tokenizer.chat_template`, Jinja),
//! tools included, the way Hugging Face `transformers` does: `trim_blocks`, `lstrip_blocks`,
//! Python string methods (minijinja-contrib's pycompat), `raise_exception`, and a `tojson`
//! that writes like Python's `json.dumps` (`", "` and `": "`, no HTML escaping).

use minijinja::value::Serde;
use minijinja::{Environment, Error, ErrorKind, Value as JValue};
use serde_json::{Map, Value};
use shoal_protocol::chat::{MessageContent, PartRef};
use shoal_protocol::worker::JobRequest;

use super::grammar::ToolFormat;

/// A compiled chat template.
pub struct ChatTemplate {
    env: Environment<'static>,
    bos: String,
    eos: String,
    /// Whether the template reads `tools` at all.
    pub supports_tools: bool,
    /// How the template writes tool calls (what a forced call is constrained to).
    pub tool_format: ToolFormat,
    /// Whether the template knows `<think>` blocks.
    pub thinks: bool,
}

impl std::fmt::Debug for ChatTemplate {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ChatTemplate").finish_non_exhaustive()
    }
}

impl ChatTemplate {
    /// Compiles `source`; `bos` / `eos` are the model's token texts.
    pub fn new(source: &str, bos: String, eos: String) -> anyhow::Result<Self> {
        let mut env = Environment::new();
        env.set_syntax(
            minijinja::syntax::SyntaxConfig::builder()
                .trim_blocks(true)
                .lstrip_blocks(true)
                .build()
                .map_err(|e| anyhow::anyhow!("template syntax: {e}"))?,
        );
        env.set_unknown_method_callback(minijinja_contrib::pycompat::unknown_method_callback);
        minijinja_contrib::add_to_environment(&mut env);
        env.add_filter("tojson", tojson);
        env.add_function("raise_exception", |msg: String| -> Result<JValue, Error> {
            Err(Error::new(ErrorKind::InvalidOperation, msg))
        });
        env.add_function("strftime_now", |_fmt: String| -> String {
            // Templates print today's date in their system prompt; a fixed date keeps
            // rendering deterministic and needs no clock formatting here.
            "01 Jan 2025".to_owned()
        });
        env.add_template_owned("chat", source.to_owned())
            .map_err(|e| anyhow::anyhow!("the model's chat template does not compile: {e}"))?;
        Ok(Self {
            env,
            bos,
            eos,
            supports_tools: source.contains("tools"),
            tool_format: ToolFormat::detect(source),
            thinks: source.contains("<think>"),
        })
    }

    /// What [`super::grammar::plan`] needs to know of the template.
    pub fn traits(&self) -> super::grammar::ModelTraits {
        super::grammar::ModelTraits {
            tool_format: self.tool_format,
            supports_tools: self.supports_tools,
            thinks: self.thinks,
        }
    }

    /// The prompt for `request`, ending with the assistant's turn opened. Image parts become
    /// `image_marker` where they stood in their message (with no marker they are left out).
    pub fn render(
        &self,
        request: &JobRequest,
        image_marker: Option<&str>,
    ) -> Result<String, Error> {
        let messages: Vec<Value> = request
            .messages
            .iter()
            .map(|m| message_json(m, image_marker))
            .collect();
        let tools: Option<Vec<Value>> = request.tools.as_ref().filter(|t| !t.is_empty()).map(|t| {
            t.iter()
                .map(|tool| serde_json::to_value(tool).unwrap_or(Value::Null))
                .collect()
        });
        let tools_none = matches!(
            request.tool_choice,
            Some(shoal_protocol::chat::ToolChoice::Mode(
                shoal_protocol::chat::ToolChoiceMode::None
            ))
        );
        let tools = if tools_none { None } else { tools };
        let ctx = minijinja::context! {
            messages => JValue::from(Serde(&messages)),
            tools => tools.map(|t| JValue::from(Serde(&t))),
            add_generation_prompt => true,
            bos_token => self.bos.clone(),
            eos_token => self.eos.clone(),
        };
        self.env.get_template("chat")?.render(ctx)
    }
}

/// One message as templates expect it: `content` a string (text parts joined, images as
/// `image_marker`), tool-call arguments as objects (templates `tojson` them), `tool_call_id` /
/// `name` kept.
fn message_json(m: &shoal_protocol::chat::ChatMessage, image_marker: Option<&str>) -> Value {
    let mut obj = Map::new();
    obj.insert(
        "role".into(),
        serde_json::to_value(m.role).unwrap_or(Value::Null),
    );
    let content = match &m.content {
        None => Value::String(String::new()),
        Some(MessageContent::Text(t)) => Value::String(t.clone()),
        Some(c @ MessageContent::Parts(_)) => Value::String(
            c.parts()
                .filter_map(|p| match p {
                    PartRef::Text(t) => Some(t),
                    PartRef::Image(_) => image_marker,
                })
                .collect::<Vec<_>>()
                .join(""),
        ),
    };
    obj.insert("content".into(), content);
    if let Some(name) = &m.name {
        obj.insert("name".into(), Value::String(name.clone()));
    }
    if let Some(id) = &m.tool_call_id {
        obj.insert("tool_call_id".into(), Value::String(id.clone()));
    }
    if let Some(calls) = m.tool_calls.as_ref().filter(|c| !c.is_empty()) {
        let calls: Vec<Value> = calls
            .iter()
            .map(|c| {
                let mut v = serde_json::to_value(c).unwrap_or(Value::Null);
                if let Some(f) = v.get_mut("function") {
                    if let Some(Value::String(args)) = f.get("arguments") {
                        if let Ok(parsed) = serde_json::from_str::<Value>(args) {
                            f["arguments"] = parsed;
                        }
                    }
                }
                v
            })
            .collect();
        obj.insert("tool_calls".into(), Value::Array(calls));
    }
    Value::Object(obj)
}

/// `value | tojson(indent=N)`, written as Python's `json.dumps(value, ensure_ascii=False)`.
fn tojson(value: JValue, kwargs: minijinja::value::Kwargs) -> Result<JValue, Error> {
    let indent: Option<usize> = kwargs.get("indent")?;
    kwargs.assert_all_used()?;
    let json = serde_json::to_value(&value)
        .map_err(|e| Error::new(ErrorKind::InvalidOperation, format!("tojson: {e}")))?;
    let mut out = String::new();
    py_json(&json, indent, 0, &mut out);
    Ok(JValue::from_safe_string(out))
}

fn py_json(v: &Value, indent: Option<usize>, level: usize, out: &mut String) {
    let newline = |out: &mut String, level: usize| {
        if let Some(n) = indent {
            out.push('\n');
            out.push_str(&" ".repeat(n * level));
        }
    };
    let item_sep = if indent.is_some() { "," } else { ", " };
    match v {
        Value::Array(items) if !items.is_empty() => {
            out.push('[');
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.push_str(item_sep);
                }
                newline(out, level + 1);
                py_json(item, indent, level + 1, out);
            }
            newline(out, level);
            out.push(']');
        }
        Value::Object(map) if !map.is_empty() => {
            out.push('{');
            for (i, (k, item)) in map.iter().enumerate() {
                if i > 0 {
                    out.push_str(item_sep);
                }
                newline(out, level + 1);
                out.push_str(&Value::String(k.clone()).to_string());
                out.push_str(": ");
                py_json(item, indent, level + 1, out);
            }
            newline(out, level);
            out.push('}');
        }
        other => out.push_str(&other.to_string()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const CHATML_TOOLS: &str = r#"{%- if tools %}{{- '<|im_start|>system\n# Tools\n<tools>' }}{%- for tool in tools %}{{- "\n" }}{{- tool | tojson }}{%- endfor %}{{- "\n</tools><|im_end|>\n" }}{%- endif %}
{%- for message in messages %}
    {%- if message.role == "assistant" and message.tool_calls %}
        {{- '<|im_start|>assistant' }}
        {%- for tool_call in message.tool_calls %}
            {%- set tool_call = tool_call.function %}
            {{- '\n<tool_call>\n{"name": "' + tool_call.name + '", "arguments": ' + (tool_call.arguments | tojson) + '}\n</tool_call>' }}
        {%- endfor %}
        {{- '<|im_end|>\n' }}
    {%- else %}
        {{- '<|im_start|>' + message.role + '\n' + message.content.strip() + '<|im_end|>\n' }}
    {%- endif %}
{%- endfor %}
{%- if add_generation_prompt %}{{- '<|im_start|>assistant\n' }}{%- endif %}"#;

    fn request(v: Value) -> JobRequest {
        serde_json::from_value(v).unwrap()
    }

    #[test]
    fn renders_messages_tools_and_calls_like_transformers() {
        let t = ChatTemplate::new(CHATML_TOOLS, "<s>".into(), "</s>".into()).unwrap();
        assert!(t.supports_tools);
        let out = t
            .render(&request(serde_json::json!({
                "max_tokens": 10,
                "messages": [
                    {"role": "user", "content": [{"type": "text", "text": " Weather <b>in</b> Paris? "}]},
                    {"role": "assistant", "content": null, "tool_calls": [{"id": "c1", "type": "function",
                        "function": {"name": "get_weather", "arguments": "{\"city\":\"Paris\"}"}}]},
                    {"role": "tool", "tool_call_id": "c1", "content": "sunny"}
                ],
                "tools": [{"type": "function", "function": {"name": "get_weather",
                    "parameters": {"type": "object"}}}]
            })), None)
            .unwrap();
        assert_eq!(
            out,
            "<|im_start|>system\n# Tools\n<tools>\n{\"type\": \"function\", \"function\": {\"name\": \"get_weather\", \"parameters\": {\"type\": \"object\"}}}\n</tools><|im_end|>\n\
             <|im_start|>user\nWeather <b>in</b> Paris?<|im_end|>\n\
             <|im_start|>assistant\n<tool_call>\n{\"name\": \"get_weather\", \"arguments\": {\"city\": \"Paris\"}}\n</tool_call><|im_end|>\n\
             <|im_start|>tool\nsunny<|im_end|>\n\
             <|im_start|>assistant\n"
        );
    }

    #[test]
    fn raise_exception_is_an_error_not_a_panic() {
        let t = ChatTemplate::new(
            "{{ raise_exception('no system role') }}",
            String::new(),
            String::new(),
        )
        .unwrap();
        let err = t
            .render(&request(serde_json::json!({"max_tokens": 1, "messages": [{"role": "user", "content": "x"}]})), None)
            .unwrap_err();
        assert!(err.to_string().contains("no system role"));
        assert!(ChatTemplate::new("{% if %}", String::new(), String::new()).is_err());
    }

    #[test]
    fn tojson_indent() {
        let t = ChatTemplate::new(
            "{{ {'a': [1, 2]} | tojson(indent=2) }}",
            String::new(),
            String::new(),
        )
        .unwrap();
        let out = t
            .render(
                &request(serde_json::json!({"max_tokens": 1, "messages": []})),
                None,
            )
            .unwrap();
        assert_eq!(out, "{\n  \"a\": [\n    1,\n    2\n  ]\n}");
    }

    #[test]
    fn images_become_the_marker_where_they_stood() {
        let t = ChatTemplate::new(CHATML_TOOLS, String::new(), String::new()).unwrap();
        let req = request(
            serde_json::json!({"max_tokens": 1, "messages": [{"role": "user", "content": [
                {"type": "text", "text": "Look: "},
                {"type": "image_url", "image_url": {"url": "data:image/png;base64,AAAA"}},
                {"type": "text", "text": " and "},
                {"type": "image_url", "image_url": {"url": "data:image/png;base64,AAAA"}}
            ]}]}),
        );
        assert_eq!(
            t.render(&req, Some("<M>")).unwrap(),
            "<|im_start|>user\nLook: <M> and <M><|im_end|>\n<|im_start|>assistant\n"
        );
        assert_eq!(
            t.render(&req, None).unwrap(),
            "<|im_start|>user\nLook:  and<|im_end|>\n<|im_start|>assistant\n"
        );
        assert_eq!(t.tool_format, ToolFormat::Hermes);
        assert!(!t.thinks);
    }
}
