//! The answer of a chat job rendered as a message: the whole object, or the event stream the
//! SDKs parse. One state machine does both, so the streamed blocks and the final object never
//! disagree.
//!
//! The stream: `message_start` (the message with no content, null `stop_reason` and zero
//! usage), `ping`; per block `content_block_start`, its `content_block_delta`s
//! (`thinking_delta`, `text_delta`, `input_json_delta`) and `content_block_stop`; then
//! `message_delta` (the stop reason and the billed usage, input tokens included) and
//! `message_stop`. A worker lost mid-answer ends the stream with an `error` event instead.
//! Blocks are opened one at a time in the order the answer arrives, a new block whenever the
//! kind changes.

use serde::Serialize;
use serde_json::Value;

use super::object::{
    ContentBlock, Message, MessageUsage, MessagesErrorBody, MessagesErrorType, StopReason,
};
use crate::answer::{id_suffix, write_sse, Billed, Calls, Failure, Piece, Render, Route};
use crate::chat::ToolCallDelta;
use crate::codes::FinishReason;
use crate::cost::UsdOfCredits;

/// Renders one message. Feed it [`start`](Self::start) once, then every [`Piece`] of the job
/// in order; each call returns the SSE bytes to send (none for a non-streamed request). After
/// the `Done` piece, [`message`](Self::message) is the whole object.
#[derive(Debug)]
pub struct MessageRenderer {
    message: Message,
    /// What generated tool-use ids are made from.
    base: String,
    /// The block being written, and what kind it is.
    open: Option<(usize, Kind)>,
    calls: Calls,
    stream: bool,
    out: Vec<u8>,
    ended: bool,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    Text,
    Thinking,
    /// A tool call, by its index among the answer's calls.
    Call(usize),
}

impl MessageRenderer {
    /// A renderer for the message `id` (`msg_...`, the request id the hold is taken under),
    /// answered by `model` (the catalog id).
    pub fn new(id: String, model: String, stream: bool) -> Self {
        let base = id_suffix(&id).to_owned();
        MessageRenderer {
            message: Message {
                id,
                kind: Message::KIND.into(),
                role: "assistant".into(),
                model,
                content: Vec::new(),
                stop_reason: None,
                stop_sequence: None,
                usage: MessageUsage::default(),
            },
            base,
            open: None,
            calls: Calls::default(),
            stream,
            out: Vec::new(),
            ended: false,
        }
    }

    fn emit(&mut self, event: Event<'_>) {
        if self.stream {
            write_sse(&mut self.out, event.name(), &event);
        }
    }

    /// `message_start` and a `ping`.
    pub fn start(&mut self) -> Vec<u8> {
        if self.stream {
            write_sse(
                &mut self.out,
                "message_start",
                &Event::MessageStart {
                    message: &self.message,
                },
            );
        }
        self.emit(Event::Ping);
        std::mem::take(&mut self.out)
    }

    /// A keep-alive `ping`, for a stream that has been quiet.
    pub fn ping(&mut self) -> Vec<u8> {
        self.emit(Event::Ping);
        std::mem::take(&mut self.out)
    }

    /// The events one piece of the answer makes. Pieces after the end are ignored.
    pub fn push(&mut self, piece: Piece) -> Vec<u8> {
        if !self.ended {
            self.feed(piece);
        }
        std::mem::take(&mut self.out)
    }

    /// The message as it stands: whole once the `Done` piece was fed.
    pub fn message(&self) -> &Message {
        &self.message
    }

    /// Adds a block and announces it.
    fn add(&mut self, block: ContentBlock, kind: Kind) -> usize {
        self.close();
        let index = self.message.content.len();
        if self.stream {
            write_sse(
                &mut self.out,
                "content_block_start",
                &Event::ContentBlockStart {
                    index,
                    content_block: &block,
                },
            );
        }
        self.message.content.push(block);
        self.open = Some((index, kind));
        index
    }

    /// Text or thinking.
    fn append(&mut self, kind: Kind, delta: String) {
        if delta.is_empty() {
            return;
        }
        let index = match self.open {
            Some((index, open)) if open == kind => index,
            _ => {
                let block = match kind {
                    Kind::Thinking => ContentBlock::Thinking {
                        thinking: String::new(),
                        signature: String::new(),
                    },
                    _ => ContentBlock::Text {
                        text: String::new(),
                    },
                };
                self.add(block, kind)
            }
        };
        match &mut self.message.content[index] {
            ContentBlock::Text { text } => text.push_str(&delta),
            ContentBlock::Thinking { thinking, .. } => thinking.push_str(&delta),
            ContentBlock::ToolUse { .. } => unreachable!("an open text block is not a call"),
        }
        let delta = match kind {
            Kind::Thinking => Delta::Thinking { thinking: &delta },
            _ => Delta::Text { text: &delta },
        };
        self.emit(Event::ContentBlockDelta { index, delta });
    }

    fn open_call(&mut self, i: usize) -> usize {
        let block = ContentBlock::ToolUse {
            id: self.calls.id(i, "toolu", &self.base),
            name: self.calls.calls[i].name.clone(),
            input: Value::Object(Default::default()),
        };
        let index = self.add(block, Kind::Call(i));
        self.calls.calls[i].slot = Some(index);
        index
    }

    /// Ends the open block, if any. A call's `input` becomes its arguments, parsed.
    fn close(&mut self) {
        let Some((index, kind)) = self.open.take() else {
            return;
        };
        if let Kind::Call(i) = kind {
            let parsed = serde_json::from_str::<Value>(&self.calls.calls[i].arguments)
                .ok()
                .filter(Value::is_object);
            if let (ContentBlock::ToolUse { input, .. }, Some(parsed)) =
                (&mut self.message.content[index], parsed)
            {
                *input = parsed;
            }
        }
        self.emit(Event::ContentBlockStop { index });
    }
}

impl Render for MessageRenderer {
    fn reasoning(&mut self, delta: String) {
        self.append(Kind::Thinking, delta);
    }

    fn text(&mut self, delta: String) {
        self.append(Kind::Text, delta);
    }

    /// A piece of a tool call, routed as [`Calls::route`] says.
    fn call_piece(&mut self, delta: ToolCallDelta) {
        let Some((i, arguments)) = self.calls.take(delta) else {
            return;
        };
        let open_call = match self.open {
            Some((index, Kind::Call(_))) => Some(index),
            _ => None,
        };
        let index = match self.calls.route(i, open_call, &arguments) {
            Route::Append(index) => index,
            Route::Open => self.open_call(i),
            Route::Drop => return,
        };
        self.calls.calls[i].arguments.push_str(&arguments);
        self.emit(Event::ContentBlockDelta {
            index,
            delta: Delta::InputJson {
                partial_json: &arguments,
            },
        });
    }

    fn done(&mut self, finish_reason: FinishReason, usage: Billed) {
        // Calls whose arguments never began (a call without arguments) are announced now.
        for i in self.calls.unopened() {
            self.open_call(i);
        }
        self.close();
        let calls = self
            .message
            .content
            .iter()
            .any(|b| matches!(b, ContentBlock::ToolUse { .. }));
        let stop_reason = match finish_reason {
            FinishReason::Length => StopReason::MaxTokens,
            FinishReason::ContentFilter => StopReason::Refusal,
            // Some servers say `stop` after tool calls; clients loop on `tool_use`.
            FinishReason::ToolCalls | FinishReason::Stop if calls => StopReason::ToolUse,
            FinishReason::ToolCalls | FinishReason::Stop => StopReason::EndTurn,
        };
        if self.message.content.is_empty() {
            // Clients read `content[0]`; an empty answer is an empty text block, as chat's
            // is "". Announced like any other block.
            self.add(
                ContentBlock::Text {
                    text: String::new(),
                },
                Kind::Text,
            );
            self.close();
        }
        self.message.stop_reason = Some(stop_reason);
        self.message.usage = MessageUsage::from(usage);
        self.ended = true;
        self.emit(Event::MessageDelta {
            delta: StopDelta {
                stop_reason,
                stop_sequence: None,
            },
            usage: DeltaUsage {
                input_tokens: usage.input_tokens,
                output_tokens: usage.output_tokens,
                cost: usage.credits,
                cost_usd: UsdOfCredits(usage.credits),
            },
        });
        self.emit(Event::MessageStop);
    }

    fn failed(&mut self, failure: Failure) {
        self.ended = true;
        if self.stream {
            let body =
                MessagesErrorBody::new(MessagesErrorType::for_failure(failure), failure.message());
            write_sse(&mut self.out, "error", &body);
        }
    }
}

/// One event of the stream, borrowing what it shows; serialized at once.
#[derive(Serialize)]
#[serde(tag = "type", rename_all = "snake_case")]
enum Event<'a> {
    MessageStart {
        message: &'a Message,
    },
    Ping,
    ContentBlockStart {
        index: usize,
        content_block: &'a ContentBlock,
    },
    ContentBlockDelta {
        index: usize,
        delta: Delta<'a>,
    },
    ContentBlockStop {
        index: usize,
    },
    MessageDelta {
        delta: StopDelta,
        usage: DeltaUsage,
    },
    MessageStop,
}

impl Event<'_> {
    /// The SSE event name: the same as `type`.
    fn name(&self) -> &'static str {
        match self {
            Event::MessageStart { .. } => "message_start",
            Event::Ping => "ping",
            Event::ContentBlockStart { .. } => "content_block_start",
            Event::ContentBlockDelta { .. } => "content_block_delta",
            Event::ContentBlockStop { .. } => "content_block_stop",
            Event::MessageDelta { .. } => "message_delta",
            Event::MessageStop => "message_stop",
        }
    }
}

/// A `content_block_delta`'s `delta`; its `type` is the variant's name with `_delta`.
#[derive(Serialize)]
#[serde(tag = "type")]
enum Delta<'a> {
    #[serde(rename = "text_delta")]
    Text { text: &'a str },
    #[serde(rename = "thinking_delta")]
    Thinking { thinking: &'a str },
    #[serde(rename = "input_json_delta")]
    InputJson { partial_json: &'a str },
}

#[derive(Serialize)]
struct StopDelta {
    stop_reason: StopReason,
    stop_sequence: Option<String>,
}

/// `message_delta`'s usage: cumulative counts, input included (the SDKs take it over the
/// zero `message_start` had, since the prompt is counted only when the job ends).
#[derive(Serialize)]
struct DeltaUsage {
    input_tokens: u64,
    output_tokens: u64,
    cost: i64,
    cost_usd: UsdOfCredits,
}
