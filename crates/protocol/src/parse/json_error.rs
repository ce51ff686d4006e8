//! serde errors rewritten so they name the field and what it takes, without the value found.
//!
//! Only three things are taken from a serde error: its category, its position (syntax errors)
//! and its path. The path's keys are checked against the field names of our own types (an
//! unknown key shows as `?`), serde's syntax messages are used only when they are on a list of
//! fixed texts, and field names from `missing field` only when they are ours. Everything else
//! is written here.
//!
//! Each request type brings its own [`Vocabulary`]: the field names its paths may print and
//! what each field takes. The chat request's is [`CHAT`].

use serde_json::error::Category;
use serde_path_to_error::Segment;

use super::InvalidRequest;

/// The words an error message about one request type may use.
pub(crate) struct Vocabulary {
    /// Every field name of the request's types. A path key outside this list is not printed.
    pub fields: &'static [&'static str],
    /// What the field at a normalized path (`messages[].content`) takes, in words.
    pub expected: fn(&str) -> Option<&'static str>,
}

/// The chat completion request's vocabulary.
pub(crate) const CHAT: Vocabulary = Vocabulary {
    fields: FIELD_NAMES,
    expected,
};

/// Every field name of the chat request types.
const FIELD_NAMES: &[&str] = &[
    "model",
    "messages",
    "stream",
    "stream_options",
    "include_usage",
    "tools",
    "tool_choice",
    "parallel_tool_calls",
    "temperature",
    "top_p",
    "max_tokens",
    "max_completion_tokens",
    "stop",
    "seed",
    "n",
    "presence_penalty",
    "frequency_penalty",
    "response_format",
    "json_schema",
    "schema",
    "reasoning_effort",
    "user",
    "role",
    "content",
    "name",
    "tool_calls",
    "tool_call_id",
    "type",
    "text",
    "image_url",
    "url",
    "detail",
    "id",
    "function",
    "arguments",
    "description",
    "parameters",
    "strict",
    "refusal",
    "function_call",
    "logprobs",
    "top_logprobs",
    "logit_bias",
    "modalities",
];

/// serde_json's syntax messages: fixed texts that never include input.
const SYNTAX_MESSAGES: &[&str] = &[
    "EOF while parsing a list",
    "EOF while parsing an object",
    "EOF while parsing a string",
    "EOF while parsing a value",
    "expected `:`",
    "expected `,` or `]`",
    "expected `,` or `}`",
    "expected ident",
    "expected value",
    "expected `\"`",
    "invalid escape",
    "invalid number",
    "number out of range",
    "invalid unicode code point",
    "control character (\\u0000-\\u001F) found while parsing a string",
    "key must be a string",
    "lone leading surrogate in hex escape",
    "trailing comma",
    "trailing characters",
    "unexpected end of hex escape",
    "recursion limit exceeded",
];

/// Describes a failed typed parse of `body`.
pub(crate) fn describe(
    err: serde_path_to_error::Error<serde_json::Error>,
    body: &[u8],
    vocab: &Vocabulary,
) -> InvalidRequest {
    let inner = err.inner();
    // serde_json reports some type mismatches as syntax errors (a number where an enum's
    // string was expected reads `expected value`), so a "syntax" error in a body that is
    // valid JSON is a shape error at the path.
    if inner.classify() != Category::Data
        && (serde_message(inner) == "recursion limit exceeded" || !is_json(body))
    {
        return describe_syntax(err.into_inner());
    }
    let segments: Vec<&Segment> = err.path().iter().collect();
    let message = serde_message(inner);

    // `missing field `x`` and `duplicate field `x`` name a field of ours, at the path of the
    // object that lacks or repeats it.
    for (prefix, what) in [
        ("missing field `", "missing required field"),
        ("duplicate field `", "duplicate field"),
    ] {
        if let Some(name) = message
            .strip_prefix(prefix)
            .and_then(|rest| rest.strip_suffix('`'))
        {
            if let Some(name) = known_field(vocab, name) {
                let param = join(&path_string(vocab, &segments, false), name);
                let message = format!("{what} `{param}`");
                return InvalidRequest::new(param, message);
            }
        }
    }

    if segments.is_empty() {
        return InvalidRequest::body("request body must be a JSON object");
    }
    let param = path_string(vocab, &segments, false);
    let message = match (vocab.expected)(&path_string(vocab, &segments, true)) {
        Some(expected) => format!("invalid `{param}`: expected {expected}"),
        None => format!("invalid `{param}`: wrong type or value"),
    };
    InvalidRequest::new(param, message)
}

pub(crate) fn describe_syntax(err: serde_json::Error) -> InvalidRequest {
    let (line, column) = (err.line(), err.column());
    let message = serde_message(&err);
    let reason = SYNTAX_MESSAGES.iter().find(|m| **m == message);
    let message = match (reason, err.classify()) {
        (Some(&"recursion limit exceeded"), _) => {
            format!("request body nests too deeply (line {line}, column {column})")
        }
        (Some(reason), _) => {
            format!("request body is not valid JSON: {reason} (line {line}, column {column})")
        }
        (None, Category::Data) => "request body does not match the expected shape".to_owned(),
        (None, _) => format!("request body is not valid JSON (line {line}, column {column})"),
    };
    InvalidRequest::body(message)
}

/// Whether `body` is valid JSON. (Not `IgnoredAny`: it lets lone surrogate escapes through.)
pub(crate) fn is_json(body: &[u8]) -> bool {
    serde_json::from_slice::<serde_json::Value>(body).is_ok()
}

/// serde_json's message without the ` at line L column C` it appends.
fn serde_message(err: &serde_json::Error) -> String {
    let full = err.to_string();
    let suffix = format!(" at line {} column {}", err.line(), err.column());
    match full.strip_suffix(&suffix) {
        Some(message) => message.to_owned(),
        None => full,
    }
}

fn known_field(vocab: &Vocabulary, name: &str) -> Option<&'static str> {
    vocab.fields.iter().copied().find(|f| *f == name)
}

/// `messages[0].content`, or with `normalized` `messages[].content` (for looking up what a
/// field takes).
fn path_string(vocab: &Vocabulary, segments: &[&Segment], normalized: bool) -> String {
    let mut out = String::new();
    for segment in segments {
        match segment {
            Segment::Seq { .. } if normalized => out.push_str("[]"),
            Segment::Seq { index } => out.push_str(&format!("[{index}]")),
            Segment::Map { key } => {
                if !out.is_empty() {
                    out.push('.');
                }
                out.push_str(known_field(vocab, key).unwrap_or("?"));
            }
            // Only externally tagged enums make these; our types have none.
            Segment::Enum { .. } | Segment::Unknown => {
                if !out.is_empty() {
                    out.push('.');
                }
                out.push('?');
            }
        }
    }
    out
}

fn join(path: &str, field: &str) -> String {
    if path.is_empty() {
        field.to_owned()
    } else {
        format!("{path}.{field}")
    }
}

pub(crate) const NUMBER_0_2: &str = "a number from 0 to 2";
const NUMBER_PENALTY: &str = "a number from -2 to 2";
pub(crate) const POSITIVE_INTEGER: &str = "an integer of at least 1";

/// What the field at a normalized chat path takes, in words.
fn expected(path: &str) -> Option<&'static str> {
    expected_in_message(path).or_else(|| expected_in_request(path))
}

/// What a field of `messages` takes.
fn expected_in_message(path: &str) -> Option<&'static str> {
    Some(match path {
        "messages" => "an array of message objects",
        "messages[]" => "a message object with `role` and `content`",
        "messages[].role" => {
            "one of `system`, `developer`, `user`, `assistant`, `tool`, `function`"
        }
        "messages[].content" => "a string, an array of content parts, or null",
        "messages[].content[]" => {
            "a content part object: `{\"type\":\"text\",\"text\":...}` or \
             `{\"type\":\"image_url\",\"image_url\":{\"url\":...}}`"
        }
        "messages[].content[].type" => "`text`, `image_url` or `refusal`",
        "messages[].content[].refusal" => "a string",
        "messages[].function_call" => "an object with string `name` and `arguments`",
        "messages[].function_call.name" | "messages[].function_call.arguments" => "a string",
        "messages[].content[].text" => "a string",
        "messages[].content[].image_url" => "an object with a string `url`",
        "messages[].content[].image_url.url" => "a string (an inline base64 data URL)",
        "messages[].content[].image_url.detail" => "a string (`auto`, `low` or `high`)",
        "messages[].name" => "a string",
        "messages[].tool_call_id" => "a string",
        "messages[].tool_calls" => "an array of tool calls",
        "messages[].tool_calls[]" => "a tool call object with `id`, `type` and `function`",
        "messages[].tool_calls[].id" => "a string",
        "messages[].tool_calls[].type" => "`function`",
        "messages[].tool_calls[].function" => "an object with string `name` and `arguments`",
        "messages[].tool_calls[].function.name" => "a string",
        "messages[].tool_calls[].function.arguments" => "a string (JSON-encoded arguments)",
        _ => return None,
    })
}

/// What the request's other fields take.
fn expected_in_request(path: &str) -> Option<&'static str> {
    Some(match path {
        "model" => "a model id (string)",
        "stream" => "a boolean",
        "stream_options" => "an object",
        "stream_options.include_usage" => "a boolean",
        "tools" => "an array of tool definitions",
        "tools[]" => "a tool definition: `{\"type\":\"function\",\"function\":{\"name\":...}}`",
        "tools[].type" => "`function`",
        "tools[].function" => "an object with a string `name`",
        "tools[].function.name" => "a string",
        "tools[].function.description" => "a string",
        "tools[].function.parameters" => "a JSON Schema object",
        "tools[].function.strict" => "a boolean",
        "tool_choice" => {
            "`none`, `auto`, `required` or `{\"type\":\"function\",\"function\":{\"name\":...}}`"
        }
        "tool_choice.type" => "`function`",
        "tool_choice.function" => "an object with a string `name`",
        "tool_choice.function.name" => "a string",
        "parallel_tool_calls" => "a boolean",
        "temperature" => NUMBER_0_2,
        "top_p" => "a number greater than 0 and at most 1",
        "max_tokens" | "max_completion_tokens" => POSITIVE_INTEGER,
        "stop" => "a string or an array of at most 4 strings",
        "stop[]" => "a string",
        "seed" => "an integer",
        "n" => "the integer 1",
        "presence_penalty" | "frequency_penalty" => NUMBER_PENALTY,
        "response_format" => "an object such as `{\"type\":\"json_object\"}`",
        "response_format.type" => "`text`, `json_object` or `json_schema`",
        "response_format.json_schema" => "an object with `name` and `schema`",
        "response_format.json_schema.name" | "response_format.json_schema.description" => {
            "a string"
        }
        "response_format.json_schema.schema" => "a JSON Schema object",
        "response_format.json_schema.strict" => "a boolean",
        "reasoning_effort" => "a string such as `low`, `medium` or `high`",
        "user" => "a string",
        "logprobs" => "a boolean (only `false` is supported)",
        "top_logprobs" => "an integer (only 0 is supported)",
        "logit_bias" => "an object (only an empty one is supported)",
        "modalities" => "an array of strings (only `[\"text\"]` is supported)",
        "modalities[]" => "a string",
        _ => return None,
    })
}

/// Every path in `paths` has a description, and every field name of `vocab` appears in one
/// of them: no message about a known field falls back to the generic wording.
#[cfg(test)]
pub(crate) fn assert_described(vocab: &Vocabulary, paths: &[&str]) {
    for path in paths {
        assert!(
            (vocab.expected)(path).is_some(),
            "{path} has no description"
        );
    }
    for name in vocab.fields {
        assert!(
            paths
                .iter()
                .any(|p| p.split(['.', '[', ']']).any(|s| s == *name)),
            "{name} has no described path"
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every field of the request types has a description, so no message falls back to the
    /// generic wording for a field we know.
    #[test]
    fn every_field_name_appears_in_some_described_path() {
        let described = [
            "model",
            "messages",
            "messages[]",
            "messages[].role",
            "messages[].content",
            "messages[].content[].type",
            "messages[].content[].text",
            "messages[].content[].image_url",
            "messages[].content[].image_url.url",
            "messages[].content[].image_url.detail",
            "messages[].name",
            "messages[].tool_call_id",
            "messages[].tool_calls[].id",
            "messages[].tool_calls[].function.arguments",
            "stream_options.include_usage",
            "tools[].function.description",
            "tools[].function.parameters",
            "tools[].function.strict",
            "tool_choice.function.name",
            "parallel_tool_calls",
            "temperature",
            "top_p",
            "max_tokens",
            "max_completion_tokens",
            "stop",
            "seed",
            "n",
            "presence_penalty",
            "frequency_penalty",
            "response_format",
            "response_format.type",
            "response_format.json_schema",
            "response_format.json_schema.name",
            "response_format.json_schema.schema",
            "response_format.json_schema.strict",
            "reasoning_effort",
            "user",
            "stream",
            "messages[].content[].refusal",
            "messages[].function_call",
            "logprobs",
            "top_logprobs",
            "logit_bias",
            "modalities",
        ];
        assert_described(&CHAT, &described);
    }

    #[test]
    fn syntax_messages_match_serde_json() {
        // If serde_json rewords a message, this catches it (the body would still be refused,
        // but without the reason).
        for (body, reason) in [
            ("{", "EOF while parsing an object"),
            ("{\"a\" 1}", "expected `:`"),
            ("[1 2]", "expected `,` or `]`"),
            ("{\"a\":1 \"b\":2}", "expected `,` or `}`"),
            ("{\"a\":tru}", "expected ident"),
            ("{\"a\":}", "expected value"),
            ("{\"a\":\"\\q\"}", "invalid escape"),
            ("{\"a\":1e999}", "number out of range"),
            ("{1:2}", "key must be a string"),
            ("[1,]", "trailing comma"),
            ("{} x", "trailing characters"),
            (
                "\"a\u{1}\"",
                "control character (\\u0000-\\u001F) found while parsing a string",
            ),
        ] {
            let err = serde_json::from_str::<serde_json::Value>(body).unwrap_err();
            assert_eq!(serde_message(&err), reason, "{body}");
            assert!(SYNTAX_MESSAGES.contains(&reason));
        }
    }
}
