//! From request bytes to a validated [`ResponsesRequest`]. Messages name the field and the
//! rule, never the value found (the crate's rule, see [`crate::parse`]).

use super::request::{
    Input, InputItem, InputPart, InputRole, ItemContent, ResponsesRequest, ResponsesTool,
    ResponsesToolChoice, TextFormat,
};
use crate::chat::ToolChoiceMode;
use crate::parse::json_error::{Vocabulary, NUMBER_0_2, POSITIVE_INTEGER};
use crate::parse::{check_image_url, is_valid_tool_name, parse_body, InvalidRequest};

type Check = Result<(), InvalidRequest>;

/// Parses and validates a `POST /api/v1/responses` body.
///
/// Unknown fields are ignored. Stateful parameters (`previous_response_id`, `conversation`,
/// `background`, `prompt`), hosted tools and the items of hosted tools are refused with a 400
/// naming the field.
pub fn parse_responses_request(body: &[u8]) -> Result<ResponsesRequest, InvalidRequest> {
    let request: ResponsesRequest = parse_body(body, &VOCABULARY)?;
    request.validate()?;
    Ok(request)
}

fn refuse(param: &str, why: &str) -> Check {
    Err(InvalidRequest::new(param, format!("`{param}` {why}")))
}

const STATELESS: &str = "Shoal is stateless and keeps no responses: send the whole \
                         conversation in `input`";

impl ResponsesRequest {
    /// Checks the rules serde's shapes cannot express; reports the first rule broken.
    pub fn validate(&self) -> Check {
        if self.model.trim().is_empty() {
            return refuse("model", "is required: a model id from GET /api/v1/models");
        }
        self.check_stateless()?;
        match &self.input {
            None => {
                return refuse(
                    "input",
                    "is required: a string or a non-empty array of input items",
                )
            }
            Some(Input::Items(items)) if items.is_empty() => {
                return refuse(
                    "input",
                    "must be a string or a non-empty array of input items",
                )
            }
            Some(Input::Items(items)) => {
                for (i, item) in items.iter().enumerate() {
                    check_item(i, item)?;
                }
            }
            Some(Input::Text(_)) => {}
        }
        self.check_tools()?;
        self.check_sampling()
    }

    fn check_stateless(&self) -> Check {
        if self.previous_response_id.is_some() {
            return refuse(
                "previous_response_id",
                &format!("is not supported: {STATELESS}"),
            );
        }
        if self.conversation.is_some() {
            return refuse("conversation", &format!("is not supported: {STATELESS}"));
        }
        if self.background == Some(true) {
            return refuse(
                "background",
                "is not supported: responses are not stored, so none can run in the background",
            );
        }
        if self.prompt.is_some() {
            return refuse(
                "prompt",
                "(a stored prompt template) is not supported: Shoal stores no prompts; send \
                 the text in `instructions` and `input`",
            );
        }
        let logprobs = "is not supported: Shoal's workers do not return log-probabilities";
        if self.top_logprobs.is_some_and(|n| n > 0) {
            return refuse("top_logprobs", logprobs);
        }
        let include = self.include.as_deref().unwrap_or_default();
        if let Some(k) = include
            .iter()
            .position(|i| i == "message.output_text.logprobs")
        {
            return refuse(&format!("include[{k}]"), logprobs);
        }
        Ok(())
    }

    fn check_tools(&self) -> Check {
        let tools = self.tools.as_deref().unwrap_or_default();
        for (j, tool) in tools.iter().enumerate() {
            match tool {
                ResponsesTool::Function(_) => {}
                ResponsesTool::Namespace(n) => {
                    if let Some(k) = n
                        .tools
                        .iter()
                        .position(|t| !matches!(t, ResponsesTool::Function(_)))
                    {
                        return refuse(
                            &format!("tools[{j}].tools[{k}]"),
                            "must be a function tool: a namespace groups function tools",
                        );
                    }
                }
                ResponsesTool::Unsupported => {
                    return refuse(
                        &format!("tools[{j}]"),
                        "is not a function tool: Shoal runs only the caller's own function \
                         tools (`type: function`, or grouped in a `namespace`); hosted tools \
                         (web search, file search, code interpreter, computer use, image \
                         generation, MCP, shell, custom) are not available",
                    )
                }
            }
        }
        // Every function, namespaces opened: the model sees them side by side.
        let functions: Vec<_> = ResponsesTool::functions(tools).map(|(f, _)| f).collect();
        for (k, f) in functions.iter().enumerate() {
            if !is_valid_tool_name(&f.name) || functions[..k].iter().any(|g| g.name == f.name) {
                return refuse(
                    &function_path(tools, k),
                    "must be 1 to 64 characters of a-z, A-Z, 0-9, `_` and `-`, and unique \
                     among the functions of `tools` (namespaces included)",
                );
            }
        }
        match &self.tool_choice {
            Some(ResponsesToolChoice::Function(named))
                if !functions.iter().any(|f| f.name == named.name) =>
            {
                refuse(
                    "tool_choice.name",
                    "must be the name of a function tool defined in `tools`",
                )
            }
            Some(ResponsesToolChoice::Mode(ToolChoiceMode::Required)) if functions.is_empty() => {
                refuse(
                    "tool_choice",
                    "requires a tool call, but `tools` has no function tool",
                )
            }
            Some(ResponsesToolChoice::Unsupported) => refuse(
                "tool_choice",
                "must be `none`, `auto`, `required` or `{\"type\":\"function\",\"name\":...}`; \
                 hosted tools and `allowed_tools` are not supported",
            ),
            _ => Ok(()),
        }
    }

    fn check_sampling(&self) -> Check {
        if self.temperature.is_some_and(|t| !(0.0..=2.0).contains(&t)) {
            return refuse("temperature", "must be a number from 0 to 2");
        }
        if self.top_p.is_some_and(|p| !(p > 0.0 && p <= 1.0)) {
            return refuse("top_p", "must be a number greater than 0 and at most 1");
        }
        if self.max_output_tokens == Some(0) {
            return refuse("max_output_tokens", "must be at least 1");
        }
        if let Some(TextFormat::JsonSchema { name, .. }) =
            self.text.as_ref().and_then(|t| t.format.as_ref())
        {
            if !is_valid_tool_name(name) {
                return refuse(
                    "text.format.name",
                    "must be 1 to 64 characters of a-z, A-Z, 0-9, `_` and `-`",
                );
            }
        }
        Ok(())
    }
}

/// The path of the `k`-th function of `tools`, namespaces opened: `tools[2].name` or
/// `tools[3].tools[1].name`.
fn function_path(tools: &[ResponsesTool], mut k: usize) -> String {
    for (j, tool) in tools.iter().enumerate() {
        match tool {
            ResponsesTool::Function(_) if k == 0 => return format!("tools[{j}].name"),
            ResponsesTool::Function(_) => k -= 1,
            ResponsesTool::Namespace(n) if k < n.tools.len() => {
                return format!("tools[{j}].tools[{k}].name")
            }
            ResponsesTool::Namespace(n) => k -= n.tools.len(),
            ResponsesTool::Unsupported => {}
        }
    }
    "tools".to_owned()
}

fn check_item(i: usize, item: &InputItem) -> Check {
    let at = |field: &str| format!("input[{i}].{field}");
    match item {
        InputItem::Message { role, content } => {
            if matches!(content, ItemContent::Parts(p) if p.is_empty()) {
                return refuse(
                    &at("content"),
                    "must be a string or a non-empty array of content parts",
                );
            }
            check_parts(content, *role, &|j, f| at(&format!("content[{j}]{f}")))
        }
        InputItem::FunctionCall { call_id, name, .. } => {
            if call_id.is_empty() {
                return refuse(&at("call_id"), "must be a non-empty string");
            }
            if name.is_empty() {
                return refuse(&at("name"), "must be a non-empty string");
            }
            Ok(())
        }
        InputItem::FunctionCallOutput { call_id, output } => {
            if call_id.is_empty() {
                return refuse(&at("call_id"), "must be a non-empty string");
            }
            // A tool's output is text to the model: a tool message.
            check_parts(output, InputRole::System, &|j, f| {
                at(&format!("output[{j}]{f}"))
            })
        }
        InputItem::Reasoning | InputItem::ItemReference => Ok(()),
        InputItem::Unsupported => refuse(
            &format!("input[{i}]"),
            "is an item type Shoal does not run: the items are messages, `function_call`, \
             `function_call_output`, `reasoning` and `item_reference`; hosted tools' calls \
             and outputs are not supported",
        ),
    }
}

/// Images only from the user (as data URLs), refusals only from the assistant, no files.
fn check_parts(
    content: &ItemContent,
    role: InputRole,
    at: &dyn Fn(usize, &str) -> String,
) -> Check {
    let ItemContent::Parts(parts) = content else {
        return Ok(());
    };
    for (j, part) in parts.iter().enumerate() {
        match part {
            InputPart::InputText { .. } => {}
            InputPart::Refusal { .. } if role == InputRole::Assistant => {}
            InputPart::Refusal { .. } => {
                return refuse(
                    &at(j, ""),
                    "is a refusal part: those are only allowed in assistant messages",
                )
            }
            InputPart::InputImage { .. } if role != InputRole::User => {
                return refuse(
                    &at(j, ""),
                    "is an image part: images are only allowed in user messages",
                )
            }
            InputPart::InputImage {
                image_url: None, ..
            } => {
                return refuse(
                    &at(j, ".image_url"),
                    "is required: an inline base64 data URL (files are not uploaded here, \
                     so `file_id` names nothing)",
                )
            }
            InputPart::InputImage {
                image_url: Some(url),
                ..
            } => {
                let param = at(j, ".image_url");
                check_image_url(url)
                    .map_err(|why| InvalidRequest::new(&param, format!("`{param}`: {why}")))?;
            }
            InputPart::Unsupported => {
                return refuse(
                    &at(j, ""),
                    "is a part type Shoal does not take: parts are `input_text`, \
                     `input_image`, `output_text` and `refusal` (no files)",
                )
            }
        }
    }
    Ok(())
}

/// Every field name of the Responses request types.
const FIELD_NAMES: &[&str] = &[
    "model",
    "input",
    "instructions",
    "tools",
    "tool_choice",
    "parallel_tool_calls",
    "max_output_tokens",
    "temperature",
    "top_p",
    "text",
    "format",
    "verbosity",
    "reasoning",
    "effort",
    "summary",
    "metadata",
    "user",
    "safety_identifier",
    "prompt_cache_key",
    "store",
    "stream",
    "include",
    "truncation",
    "previous_response_id",
    "background",
    "top_logprobs",
    "type",
    "role",
    "content",
    "image_url",
    "detail",
    "refusal",
    "call_id",
    "name",
    "arguments",
    "output",
    "description",
    "parameters",
    "strict",
    "schema",
];

pub(super) const VOCABULARY: Vocabulary = Vocabulary {
    fields: FIELD_NAMES,
    expected,
};

const A_STRING: &str = "a string";
const PARTS: &str = "a string or an array of content parts";

/// What the field at a normalized Responses path takes, in words.
fn expected(path: &str) -> Option<&'static str> {
    Some(match path {
        "model" => "a model id (string)",
        "input" => "a string or an array of input items",
        "input[]" => {
            "an input item object: a message (`role`, `content`), a `function_call` or a \
             `function_call_output`"
        }
        "input[].type" => {
            "`message`, `function_call`, `function_call_output`, `reasoning` or `item_reference`"
        }
        "input[].role" => "`user`, `assistant`, `system` or `developer`",
        "input[].content" | "input[].output" => PARTS,
        "input[].content[]" | "input[].output[]" => {
            "a content part object such as `{\"type\":\"input_text\",\"text\":...}`"
        }
        "input[].content[].type" | "input[].output[].type" => {
            "`input_text`, `input_image`, `output_text` or `refusal`"
        }
        "input[].content[].image_url" | "input[].output[].image_url" => {
            "a string (an inline base64 data URL)"
        }
        "input[].content[].detail" | "input[].output[].detail" => {
            "a string (`auto`, `low` or `high`)"
        }
        "input[].content[].text"
        | "input[].output[].text"
        | "input[].content[].refusal"
        | "input[].output[].refusal"
        | "input[].call_id"
        | "input[].name" => A_STRING,
        "input[].arguments" => "a string (JSON-encoded arguments)",
        "instructions" => A_STRING,
        "tools" => "an array of function tools",
        "tools[]" => "a function tool: `{\"type\":\"function\",\"name\":...,\"parameters\":{...}}`",
        "tools[].type" | "tools[].tools[].type" => "a tool type such as `function`",
        "tools[].name"
        | "tools[].description"
        | "tools[].tools[].name"
        | "tools[].tools[].description" => A_STRING,
        "tools[].parameters" | "tools[].tools[].parameters" => "a JSON Schema object",
        "tools[].strict" | "tools[].tools[].strict" => "a boolean",
        "tools[].tools" => "an array of function tools",
        "tools[].tools[]" => "a function tool: `{\"type\":\"function\",\"name\":...}`",
        "tool_choice" => "`none`, `auto`, `required` or `{\"type\":\"function\",\"name\":...}`",
        "tool_choice.type" => "a tool type such as `function`",
        "tool_choice.name" => A_STRING,
        "parallel_tool_calls" | "store" | "stream" | "background" => "a boolean",
        "max_output_tokens" => POSITIVE_INTEGER,
        "temperature" => NUMBER_0_2,
        "top_p" => "a number greater than 0 and at most 1",
        "text" => "an object such as `{\"format\":{\"type\":\"json_object\"}}`",
        "text.format" => "an object such as `{\"type\":\"json_object\"}`",
        "text.format.type" => "`text`, `json_object` or `json_schema`",
        "text.format.name" | "text.format.description" | "text.verbosity" => A_STRING,
        "text.format.schema" => "a JSON Schema object",
        "text.format.strict" => "a boolean",
        "reasoning" => "an object such as `{\"effort\":\"low\"}`",
        "reasoning.effort" => "a string such as `low`, `medium` or `high`",
        "reasoning.summary" => A_STRING,
        "metadata" => "an object",
        "user" | "safety_identifier" | "prompt_cache_key" | "previous_response_id" => A_STRING,
        "include" => "an array of strings",
        "include[]" => A_STRING,
        "truncation" => "`auto` or `disabled`",
        "top_logprobs" => "an integer (only 0 is supported)",
        _ => return None,
    })
}
