//! An upper bound of a prompt's token count, known before any tokenizer has seen it.
//!
//! The gateway holds credits for the largest cost a request could incur before dispatching it,
//! when it does not yet know which worker, model or tokenizer will run the job. So the bound
//! must hold for every tokenizer and chat template a worker might use.
//!
//! **Why bytes.** Every token of a byte-level BPE (GPT-2, Llama 3, Qwen, Mistral Tekken, ...)
//! stands for at least one byte of the text, so a text of `b` UTF-8 bytes never encodes to more
//! than `b` tokens. SentencePiece with byte fallback (Llama 2, Gemma) is bounded the same way: a
//! character is either one piece or one byte token per UTF-8 byte, and the whitespace marker `▁`
//! replaces the space it stands for. The only tokens that cover no byte of the text are the
//! special tokens a chat template adds (turn markers, BOS, a dummy-prefix `▁`), and the text a
//! template adds itself (tool preambles, JSON framing around tool calls); the allowances below
//! pay for those.
//!
//! **Text a template re-renders as JSON.** Templates print tool definitions, tool-call arguments
//! and (some, e.g. Mistral's) tool results through `tojson`, which may indent (up to 4 spaces
//! per level), add `", "` / `": "` separators, escape non-ASCII as `\uXXXX` and, in some
//! engines, escape `<`, `>`, `&` and `'` for HTML. Those parts are counted by the worst of
//! those renderings ([`json_render_bound`]), not by their compact size.
//!
//! **Images.** An image becomes a number of tokens set by the model's image encoder, not by
//! the size of its data URL: [`IMAGE_TOKEN_ALLOWANCE`] per image. 4,096 covers the vision
//! models Shoal targets (Gemma 3: 256 per crop; LLaVA-NeXT: at most 2,880; Qwen2.5-VL with its
//! usual `max_pixels`); a worker whose encoder can exceed it must be configured to downscale.
//!
//! What is assumed: a template renders each message, tool call and tool definition once, and
//! adds at most the allowances below around them. The bound is loose on purpose (the unused
//! part of a hold is released at settlement); a gateway may still cap it at the model's context
//! length, since no worker accepts a longer prompt.

use serde_json::Value;

use super::request::{ChatCompletionRequest, ChatMessage, FunctionCall, PartRef, Role};

/// Tokens per message for its turn markers and role header (`<|im_start|>user\n`,
/// `<start_of_turn>model\n`, `<|start_header_id|>ipython<|end_header_id|>\n\n`, ...).
pub const MESSAGE_TOKEN_ALLOWANCE: u64 = 16;
/// Tokens per content part, for the separator a template puts between parts.
pub const CONTENT_PART_TOKEN_ALLOWANCE: u64 = 4;
/// Tokens per image part (see the module docs).
pub const IMAGE_TOKEN_ALLOWANCE: u64 = 4_096;
/// Tokens per tool call in the history, for its framing
/// (`<tool_call>\n{"name": ..., "arguments": ...}\n</tool_call>`, call ids).
pub const TOOL_CALL_TOKEN_ALLOWANCE: u64 = 32;
/// Tokens per tool definition, for its framing.
pub const TOOL_TOKEN_ALLOWANCE: u64 = 64;
/// Tokens for the instructions a template writes once when tools are present (Hermes- and
/// Qwen-style preambles run to about 200 tokens).
pub const TOOLS_PREAMBLE_TOKEN_ALLOWANCE: u64 = 1_024;
/// Tokens for the template itself: BOS, a default system header (Llama 3.1 writes dates), the
/// generation prompt and a reasoning model's opening `<think>`.
pub const TEMPLATE_TOKEN_ALLOWANCE: u64 = 128;

impl ChatCompletionRequest {
    /// An upper bound of the prompt's token count under any byte-level tokenizer and chat
    /// template; see the module docs of `token_bound` for the argument. Never less than the
    /// real count, often a few times more.
    pub fn prompt_token_upper_bound(&self) -> u64 {
        let mut total = TEMPLATE_TOKEN_ALLOWANCE;
        for m in &self.messages {
            total = total.saturating_add(message_bound(m));
        }
        if let Some(tools) = self.tools.as_deref().filter(|t| !t.is_empty()) {
            total = total.saturating_add(TOOLS_PREAMBLE_TOKEN_ALLOWANCE);
            for tool in tools {
                // A template may print the tool list with each tool one level deep.
                let rendered = serde_json::to_value(tool).map_or(0, |v| json_render_bound(&v, 1));
                total = total
                    .saturating_add(TOOL_TOKEN_ALLOWANCE)
                    .saturating_add(rendered);
            }
        }
        if let Some(format) = &self.response_format {
            // Usually enforced by a grammar, not the prompt; counted in case a backend writes
            // the schema into the prompt.
            let rendered = serde_json::to_value(format).map_or(0, |v| json_render_bound(&v, 0));
            total = total.saturating_add(rendered);
        }
        total
    }
}

fn message_bound(m: &ChatMessage) -> u64 {
    let mut total = MESSAGE_TOKEN_ALLOWANCE;
    if let Some(name) = &m.name {
        total = total.saturating_add(string_render_bound(name));
    }
    if let Some(id) = &m.tool_call_id {
        total = total.saturating_add(string_render_bound(id));
    }
    if let Some(content) = &m.content {
        for part in content.parts() {
            let part_tokens = match part {
                // Tool results are printed through `tojson` by some templates.
                PartRef::Text(text) if matches!(m.role, Role::Tool | Role::Function) => {
                    string_render_bound(text)
                }
                PartRef::Text(text) => len(text),
                PartRef::Image(_) => IMAGE_TOKEN_ALLOWANCE,
            };
            total = total
                .saturating_add(CONTENT_PART_TOKEN_ALLOWANCE)
                .saturating_add(part_tokens);
        }
    }
    for call in m.tool_calls() {
        total = total
            .saturating_add(string_render_bound(&call.id))
            .saturating_add(call_bound(&call.function));
    }
    // Legacy function calling is forwarded as tool calling, with ids the gateway writes.
    if let Some(function) = &m.function_call {
        total = total
            .saturating_add(LEGACY_CALL_ID_BOUND)
            .saturating_add(call_bound(function));
    }
    if m.role == Role::Function {
        total = total.saturating_add(LEGACY_CALL_ID_BOUND);
    }
    total
}

/// The id the gateway gives a legacy function call, `call_legacy_<index>`, quoted.
const LEGACY_CALL_ID_BOUND: u64 = 2 + "call_legacy_".len() as u64 + 20;

/// A tool call of the history without its id.
fn call_bound(function: &FunctionCall) -> u64 {
    // Templates print the arguments as the string they are, or parse them and print the
    // object; count the larger.
    let as_string = string_render_bound(&function.arguments);
    let as_object =
        serde_json::from_str::<Value>(&function.arguments).map_or(0, |v| json_render_bound(&v, 1));
    TOOL_CALL_TOKEN_ALLOWANCE
        .saturating_add(string_render_bound(&function.name))
        .saturating_add(as_string.max(as_object))
}

fn len(s: &str) -> u64 {
    u64::try_from(s.len()).unwrap_or(u64::MAX)
}

/// Bytes per indentation level of the widest `tojson(indent=...)` templates use.
const INDENT: u64 = 4;

/// The most bytes any JSON rendering of `v` takes, `depth` levels deep: indented by
/// [`INDENT`] per level, with `", "` and `": "` separators, and strings escaped as
/// [`string_render_bound`] says.
pub(crate) fn json_render_bound(v: &Value, depth: u64) -> u64 {
    // What separates elements at `depth + 1`: a comma, then a space or a newline and indent.
    let element_separator = 2 + INDENT * (depth + 1);
    let closing = 1 + INDENT * depth;
    match v {
        Value::Null => 4,
        Value::Bool(_) => 5,
        // Other encoders write some numbers differently (`1e-07`, `1e+20`, `100.0`).
        Value::Number(n) => len(&n.to_string()).saturating_add(8),
        Value::String(s) => string_render_bound(s),
        Value::Array(items) if items.is_empty() => 2,
        Value::Array(items) => items.iter().fold(2 + closing, |acc, item| {
            acc.saturating_add(element_separator)
                .saturating_add(json_render_bound(item, depth + 1))
        }),
        Value::Object(map) if map.is_empty() => 2,
        Value::Object(map) => map.iter().fold(2 + closing, |acc, (key, value)| {
            acc.saturating_add(element_separator)
                .saturating_add(string_render_bound(key))
                .saturating_add(2)
                .saturating_add(json_render_bound(value, depth + 1))
        }),
    }
}

/// The most bytes a JSON string literal of `s` takes under any common encoder: quotes,
/// two-byte escapes for `"` and `\`, `\uXXXX` for control characters, for `<`, `>`, `&`, `'`
/// (HTML-safe encoders) and for every UTF-16 unit of a non-ASCII character (ASCII-only
/// encoders). Also at least the UTF-8 length of `s`, so it bounds `s` printed raw.
pub(crate) fn string_render_bound(s: &str) -> u64 {
    s.chars().fold(2u64, |acc, c| {
        let bytes = match c {
            '"' | '\\' => 2,
            '<' | '>' | '&' | '\'' | '\u{7f}' => 6,
            c if (c as u32) < 0x20 => 6,
            c if c.is_ascii() => 1,
            c => 6 * c.len_utf16() as u64,
        };
        acc.saturating_add(bytes)
    })
}
