//! The rules a well-shaped request must also meet. Messages name the field and the rule, never
//! the value found.

use base64::alphabet;
use base64::engine::general_purpose::{GeneralPurpose, GeneralPurposeConfig};
use base64::engine::DecodePaddingMode;
use base64::Engine as _;

use super::InvalidRequest;
use crate::chat::{
    ChatCompletionRequest, ChatMessage, ContentPart, MessageContent, ResponseFormat, Role, Stop,
    ToolChoice, ToolChoiceMode,
};
use crate::schema;

/// Most stop sequences a request may give.
pub const MAX_STOP_SEQUENCES: usize = 4;

/// Image types an `image_url` data URL may carry.
const IMAGE_TYPES: &[&str] = &["png", "jpeg", "jpg", "webp", "gif"];

type Check = Result<(), InvalidRequest>;

impl ChatCompletionRequest {
    /// Checks the rules serde's shapes cannot express; [`crate::parse::parse_chat_request`]
    /// runs it. Reports the first rule broken.
    pub fn validate(&self) -> Check {
        if self.model.trim().is_empty() {
            return Err(InvalidRequest::new(
                "model",
                "`model` is required: a model id from GET /api/v1/models",
            ));
        }
        if self.messages.is_empty() {
            return Err(InvalidRequest::new(
                "messages",
                "`messages` is required and must be a non-empty array of messages",
            ));
        }
        for (i, message) in self.messages.iter().enumerate() {
            check_message(i, message)?;
        }
        self.check_tools()?;
        self.check_response_format()?;
        self.check_sampling()?;
        self.check_unsupported()
    }

    /// Parameters Shoal cannot honour are refused unless given in their neutral form.
    fn check_unsupported(&self) -> Check {
        let refuse =
            |param: &str, why: &str| Err(InvalidRequest::new(param, format!("`{param}` {why}")));
        if self.logprobs == Some(true) {
            return refuse(
                "logprobs",
                "is not supported: Shoal's workers do not return log-probabilities",
            );
        }
        if self.top_logprobs.is_some_and(|n| n > 0) {
            return refuse(
                "top_logprobs",
                "is not supported: Shoal's workers do not return log-probabilities",
            );
        }
        if self.logit_bias.as_ref().is_some_and(|m| !m.is_empty()) {
            return refuse(
                "logit_bias",
                "is not supported: token ids differ between the workers serving a model",
            );
        }
        if let Some(modalities) = &self.modalities {
            if modalities.iter().any(|m| m != "text") {
                return refuse(
                    "modalities",
                    "may only be `[\"text\"]`: chat completions answer with text",
                );
            }
        }
        if self.audio.is_some() {
            return refuse(
                "audio",
                "is not supported: chat completions answer with text",
            );
        }
        if self.functions.is_some() {
            return refuse(
                "functions",
                "(the legacy form of `tools`) is not supported; send `tools`",
            );
        }
        if self.function_call.is_some() {
            return refuse(
                "function_call",
                "(the legacy form of `tool_choice`) is not supported; send `tool_choice`",
            );
        }
        if self.web_search_options.is_some() {
            return refuse(
                "web_search_options",
                "is not supported: Shoal does not search the web",
            );
        }
        Ok(())
    }

    fn check_tools(&self) -> Check {
        let tools = self.tools.as_deref().unwrap_or_default();
        for (j, tool) in tools.iter().enumerate() {
            if tool.function.strict == Some(true) {
                check_strict_parameters(j, tool.function.parameters.as_ref())?;
            }
            let name = &tool.function.name;
            let param = format!("tools[{j}].function.name");
            if !is_valid_tool_name(name) {
                return Err(InvalidRequest::new(
                    &param,
                    format!("`{param}` must be 1 to 64 characters of a-z, A-Z, 0-9, `_` and `-`"),
                ));
            }
            if let Some(k) = tools[..j].iter().position(|t| t.function.name == *name) {
                return Err(InvalidRequest::new(
                    &param,
                    format!(
                        "`{param}` repeats the name of `tools[{k}]`; tool names must be unique"
                    ),
                ));
            }
        }
        match &self.tool_choice {
            Some(ToolChoice::Named(named))
                if !tools.iter().any(|t| t.function.name == named.function.name) =>
            {
                Err(InvalidRequest::new(
                    "tool_choice.function.name",
                    "`tool_choice.function.name` must be the name of a tool defined in `tools`",
                ))
            }
            Some(ToolChoice::Mode(ToolChoiceMode::Required)) if tools.is_empty() => {
                Err(InvalidRequest::new(
                    "tool_choice",
                    "`tool_choice` requires a tool call, but `tools` is empty or missing",
                ))
            }
            _ => Ok(()),
        }
    }

    fn check_sampling(&self) -> Check {
        if self.n.is_some_and(|n| n != 1) {
            return Err(InvalidRequest::new(
                "n",
                "`n` must be 1: one choice per request",
            ));
        }
        in_range(
            "temperature",
            self.temperature,
            |t| (0.0..=2.0).contains(&t),
            "from 0 to 2",
        )?;
        in_range(
            "top_p",
            self.top_p,
            |p| p > 0.0 && p <= 1.0,
            "greater than 0 and at most 1",
        )?;
        let penalty = |p: f64| (-2.0..=2.0).contains(&p);
        in_range(
            "presence_penalty",
            self.presence_penalty,
            penalty,
            "from -2 to 2",
        )?;
        in_range(
            "frequency_penalty",
            self.frequency_penalty,
            penalty,
            "from -2 to 2",
        )?;
        for (field, value) in [
            ("max_tokens", self.max_tokens),
            ("max_completion_tokens", self.max_completion_tokens),
        ] {
            if value == Some(0) {
                return Err(InvalidRequest::new(
                    field,
                    format!("`{field}` must be at least 1"),
                ));
            }
        }
        if let Some(stop) = &self.stop {
            check_stop(stop)?;
        }
        Ok(())
    }

    /// A `json_schema` format's name, and its schema within the subset the engines enforce.
    fn check_response_format(&self) -> Check {
        let Some(ResponseFormat::JsonSchema { json_schema }) = &self.response_format else {
            return Ok(());
        };
        if !is_valid_tool_name(&json_schema.name) {
            let param = "response_format.json_schema.name";
            return Err(InvalidRequest::new(
                param,
                format!("`{param}` must be 1 to 64 characters of a-z, A-Z, 0-9, `_` and `-`"),
            ));
        }
        match &json_schema.schema {
            Some(s) => enforceable(s, "response_format.json_schema.schema").map(drop),
            None => Ok(()),
        }
    }
}

/// A schema an engine must enforce: inside the subset, or refused naming the keyword.
fn enforceable(
    s: &serde_json::Map<String, serde_json::Value>,
    at: &str,
) -> Result<schema::Schema, InvalidRequest> {
    schema::compile(s).map_err(|e| InvalidRequest::new(e.param(at), e.message(at)))
}

/// A strict tool's arguments: an object schema inside the subset.
fn check_strict_parameters(
    j: usize,
    parameters: Option<&serde_json::Map<String, serde_json::Value>>,
) -> Check {
    let at = format!("tools[{j}].function.parameters");
    let Some(parameters) = parameters else {
        return Ok(());
    };
    if !enforceable(parameters, &at)?.admits_only_objects() {
        return Err(InvalidRequest::new(
            &at,
            format!("`{at}` of a strict tool must describe an object (`\"type\": \"object\"`)"),
        ));
    }
    Ok(())
}

fn check_stop(stop: &Stop) -> Check {
    if stop.as_slice().len() > MAX_STOP_SEQUENCES {
        return Err(InvalidRequest::new(
            "stop",
            format!("`stop` takes at most {MAX_STOP_SEQUENCES} sequences"),
        ));
    }
    if let Some(k) = stop.as_slice().iter().position(String::is_empty) {
        let param = match stop {
            Stop::One(_) => "stop".to_owned(),
            Stop::Many(_) => format!("stop[{k}]"),
        };
        return Err(InvalidRequest::new(
            &param,
            format!("`{param}` must not be an empty string"),
        ));
    }
    Ok(())
}

fn in_range(field: &str, value: Option<f64>, ok: impl Fn(f64) -> bool, range: &str) -> Check {
    match value {
        Some(v) if !ok(v) => Err(InvalidRequest::new(
            field,
            format!("`{field}` must be a number {range}"),
        )),
        _ => Ok(()),
    }
}

fn check_message(i: usize, m: &ChatMessage) -> Check {
    let at = |field: &str| format!("messages[{i}].{field}");
    check_tool_roles(m, &at)?;
    check_legacy_function(m, &at)?;
    let empty = match &m.content {
        None => true,
        Some(MessageContent::Parts(parts)) => parts.is_empty(),
        Some(MessageContent::Text(_)) => false,
    };
    let calls = !m.tool_calls().is_empty() || m.function_call.is_some();
    // OpenAI takes a `function` result with null content.
    if empty && !(m.role == Role::Assistant && calls) && m.role != Role::Function {
        let param = at("content");
        return Err(InvalidRequest::new(
            &param,
            format!(
                "`{param}` is required: a string or a non-empty array of content parts \
                 (it may be null only on an assistant message with `tool_calls`)"
            ),
        ));
    }
    if let Some(MessageContent::Parts(parts)) = &m.content {
        for (j, part) in parts.iter().enumerate() {
            check_part(m.role, part, &|field| at(&format!("content[{j}]{field}")))?;
        }
    }
    check_tool_calls(m, &at)
}

/// `tool_calls` only on assistant messages, `tool_call_id` on tool messages and only there.
fn check_tool_roles(m: &ChatMessage, at: &dyn Fn(&str) -> String) -> Check {
    if !m.tool_calls().is_empty() && m.role != Role::Assistant {
        let param = at("tool_calls");
        return Err(InvalidRequest::new(
            &param,
            format!("`{param}` is only allowed on assistant messages"),
        ));
    }
    if m.role == Role::Tool {
        if m.tool_call_id.as_deref().is_none_or(str::is_empty) {
            let param = at("tool_call_id");
            return Err(InvalidRequest::new(
                &param,
                format!(
                    "`{param}` is required on tool messages: the `id` of the tool call it answers"
                ),
            ));
        }
    } else if m.tool_call_id.is_some() {
        let param = at("tool_call_id");
        return Err(InvalidRequest::new(
            &param,
            format!("`{param}` is only allowed on tool messages"),
        ));
    }
    Ok(())
}

/// Every tool call an assistant message carries has an id and a function name.
fn check_tool_calls(m: &ChatMessage, at: &dyn Fn(&str) -> String) -> Check {
    for (k, call) in m.tool_calls().iter().enumerate() {
        if call.id.is_empty() {
            let param = at(&format!("tool_calls[{k}].id"));
            return Err(InvalidRequest::new(
                &param,
                format!("`{param}` must be a non-empty string"),
            ));
        }
        if call.function.name.is_empty() {
            let param = at(&format!("tool_calls[{k}].function.name"));
            return Err(InvalidRequest::new(
                &param,
                format!("`{param}` must be a non-empty string"),
            ));
        }
    }
    Ok(())
}

/// Image parts only from users (as data URLs), refusal parts only from the assistant.
fn check_part(role: Role, part: &ContentPart, at: &dyn Fn(&str) -> String) -> Check {
    match part {
        ContentPart::Text { .. } => Ok(()),
        ContentPart::Refusal { .. } if role == Role::Assistant => Ok(()),
        ContentPart::Refusal { .. } => {
            let param = at("");
            Err(InvalidRequest::new(
                &param,
                format!("`{param}`: refusal parts are only allowed in assistant messages"),
            ))
        }
        ContentPart::ImageUrl { .. } if role != Role::User => {
            let param = at("");
            Err(InvalidRequest::new(
                &param,
                format!("`{param}`: image parts are only allowed in user messages"),
            ))
        }
        ContentPart::ImageUrl { image_url } => {
            let param = at(".image_url.url");
            check_image_url(&image_url.url)
                .map_err(|why| InvalidRequest::new(&param, format!("`{param}`: {why}")))
        }
    }
}

/// The legacy function calling of the history: `function_call` on assistant messages,
/// `function` messages naming the function they answer.
fn check_legacy_function(m: &ChatMessage, at: &dyn Fn(&str) -> String) -> Check {
    if let Some(call) = &m.function_call {
        if m.role != Role::Assistant {
            let param = at("function_call");
            return Err(InvalidRequest::new(
                &param,
                format!("`{param}` is only allowed on assistant messages"),
            ));
        }
        if call.name.is_empty() {
            let param = at("function_call.name");
            return Err(InvalidRequest::new(
                &param,
                format!("`{param}` must be a non-empty string"),
            ));
        }
    }
    if m.role == Role::Function && m.name.as_deref().is_none_or(str::is_empty) {
        let param = at("name");
        return Err(InvalidRequest::new(
            &param,
            format!("`{param}` is required on function messages: the function it answers"),
        ));
    }
    Ok(())
}

/// `^[a-zA-Z0-9_-]{1,64}$`
pub(crate) fn is_valid_tool_name(name: &str) -> bool {
    (1..=64).contains(&name.len())
        && name
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-')
}

const DATA_URL_FORM: &str = "`data:image/<png|jpeg|webp|gif>;base64,<data>`";

/// An image URL must be `data:image/<type>;base64,<valid base64>`. The reason returned is a
/// fixed text.
pub(crate) fn check_image_url(url: &str) -> Result<(), String> {
    let scheme_is = |scheme: &str| {
        url.len() > scheme.len()
            && url.as_bytes()[..scheme.len()].eq_ignore_ascii_case(scheme.as_bytes())
    };
    if scheme_is("http://") || scheme_is("https://") {
        return Err(format!(
            "remote image URLs are never fetched; send the image inline as a base64 data URL, \
             {DATA_URL_FORM}"
        ));
    }
    if !scheme_is("data:") {
        return Err(format!(
            "an image URL must be an inline base64 data URL, {DATA_URL_FORM}"
        ));
    }
    let Some((meta, payload)) = url["data:".len()..].split_once(',') else {
        return Err(format!("not a valid data URL; expected {DATA_URL_FORM}"));
    };
    let mut meta = meta.split(';');
    let media_type = meta.next().unwrap_or_default();
    let is_image = media_type.split_once('/').is_some_and(|(top, sub)| {
        top.eq_ignore_ascii_case("image") && IMAGE_TYPES.iter().any(|t| sub.eq_ignore_ascii_case(t))
    });
    if !is_image {
        return Err(format!(
            "the image must be PNG, JPEG, WebP or GIF, {DATA_URL_FORM}"
        ));
    }
    let base64_marked = meta
        .next()
        .is_some_and(|m| m.eq_ignore_ascii_case("base64"));
    if !base64_marked || meta.next().is_some() {
        return Err(format!(
            "the data URL must be base64-encoded, {DATA_URL_FORM}"
        ));
    }
    if !is_base64(payload) {
        return Err(
            "the data URL's data is not valid base64 (standard alphabet, no line breaks)".into(),
        );
    }
    Ok(())
}

/// True for a non-empty, valid standard-alphabet base64 text, padded or not. Decodes in small
/// pieces so that a large image costs no allocation.
fn is_base64(payload: &str) -> bool {
    const ENGINE: GeneralPurpose = GeneralPurpose::new(
        &alphabet::STANDARD,
        GeneralPurposeConfig::new().with_decode_padding_mode(DecodePaddingMode::Indifferent),
    );
    // Bytes of base64 per piece: a multiple of 4, so each piece but the last is complete.
    const PIECE: usize = 4096;
    let unpadded = payload.trim_end_matches('=');
    if unpadded.is_empty() || payload.len() - unpadded.len() > 2 || unpadded.contains('=') {
        return false;
    }
    let mut out = [0u8; PIECE / 4 * 3 + 3];
    payload
        .as_bytes()
        .chunks(PIECE)
        .all(|piece| ENGINE.decode_slice(piece, &mut out).is_ok())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tool_names() {
        for ok in ["a", "get_weather", "Get-Weather-2", &"x".repeat(64)] {
            assert!(is_valid_tool_name(ok), "{ok}");
        }
        for bad in ["", "has space", "dot.name", "ünï", "a/b", &"x".repeat(65)] {
            assert!(!is_valid_tool_name(bad), "{bad}");
        }
    }

    #[test]
    fn base64_payloads() {
        use base64::engine::general_purpose::STANDARD;
        for len in [1, 2, 3, 4, 3071, 3072, 3073, 10_000] {
            let data: Vec<u8> = (0..len).map(|i| (i * 7 % 251) as u8).collect();
            let encoded = STANDARD.encode(&data);
            assert!(is_base64(&encoded), "padded, {len} bytes");
            assert!(
                is_base64(encoded.trim_end_matches('=')),
                "unpadded, {len} bytes"
            );
        }
        let long = STANDARD.encode(vec![0u8; 9000]);
        for bad in [
            "",
            "=",
            "QQ===",
            "QQ==QQ==",
            "Q",
            "a b",
            "QUJD\nREVG",
            "QUJD-_",
            &format!("{}QQ=={}", &long[..4092], &long[..8]),
            &format!("{}!", &long[..8192]),
        ] {
            assert!(!is_base64(bad), "{bad:.40}");
        }
    }

    #[test]
    fn image_urls() {
        let ok = [
            "data:image/png;base64,iVBORw0KGgo=",
            "data:image/jpeg;base64,/9j/4AAQ",
            "data:image/jpg;base64,/9j/4AAQ",
            "DATA:IMAGE/WEBP;BASE64,UklGRg==",
            "data:image/gif;base64,R0lGODlh",
        ];
        for url in ok {
            assert_eq!(check_image_url(url), Ok(()), "{url}");
        }
        let remote = ["http://example.com/a.png", "HTTPS://example.com/a.png"];
        for url in remote {
            assert!(
                check_image_url(url).unwrap_err().contains("never fetched"),
                "{url}"
            );
        }
        let bad = [
            "",
            "ftp://example.com/a.png",
            "file:///etc/passwd",
            "/local/path.png",
            "data:",
            "data:image/png;base64",
            "data:image/png,iVBORw0KGgo=",
            "data:image/svg+xml;base64,PHN2Zz4=",
            "data:text/plain;base64,aGk=",
            "data:image/png;charset=utf-8;base64,iVBORw0KGgo=",
            "data:image/png;base64;x,iVBORw0KGgo=",
            "data:image/png;base64,",
            "data:image/png;base64,not base64!",
        ];
        for url in bad {
            let why = check_image_url(url).unwrap_err();
            assert!(!why.contains("never fetched"), "{url}");
        }
    }
}
