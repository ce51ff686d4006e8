//! How a route writes a job's answer. Every route runs its request as the same chat job
//! (the relay's work); a [`Shape`] turns the job's [`Piece`]s into that route's bytes: chat
//! completion chunks ([`ChatShape`]), a response ([`ResponseRenderer`]) or a message
//! ([`MessageRenderer`]).

use shoal_protocol::answer::{Billed, Failure, Piece};
use shoal_protocol::chat::{
    ChatCompletion, ChatCompletionChunk, Delta, FunctionCall, FunctionCallDelta, ResponseMessage,
    Role, ToolCall, ToolCallDelta, ToolType, Usage,
};
use shoal_protocol::error::ErrorBody;
use shoal_protocol::messages::MessageRenderer;
use shoal_protocol::responses::ResponseRenderer;
use shoal_protocol::worker::FinishReason;

/// Tool calls one answer may carry; deltas with a larger index are dropped.
const MAX_TOOL_CALLS: usize = 128;

/// A route's way of writing an answer, streamed or whole (it knows which).
pub trait Shape: Send + 'static {
    /// What a stream starts with, before the job's first piece (may be nothing).
    fn open(&mut self) -> Vec<u8>;
    /// One piece of the answer: a stream's bytes for it; nothing for a whole answer, which
    /// is gathered instead.
    fn push(&mut self, piece: Piece) -> Vec<u8>;
    /// The whole answer's JSON body, once its `Done` piece was pushed. Called once.
    fn body(&mut self) -> Vec<u8>;
}

impl Shape for ResponseRenderer {
    fn open(&mut self) -> Vec<u8> {
        self.start()
    }
    fn push(&mut self, piece: Piece) -> Vec<u8> {
        ResponseRenderer::push(self, piece)
    }
    fn body(&mut self) -> Vec<u8> {
        serde_json::to_vec(self.response()).expect("responses serialize")
    }
}

impl Shape for MessageRenderer {
    fn open(&mut self) -> Vec<u8> {
        self.start()
    }
    fn push(&mut self, piece: Piece) -> Vec<u8> {
        MessageRenderer::push(self, piece)
    }
    fn body(&mut self) -> Vec<u8> {
        serde_json::to_vec(self.message()).expect("messages serialize")
    }
}

/// A chat completion: SSE chunks ended by `data: [DONE]`, or one `chat.completion` body.
pub struct ChatShape {
    id: String,
    created: i64,
    model: String,
    stream: bool,
    include_usage: bool,
    sent_role: bool,
    whole: Whole,
    end: Option<(FinishReason, Billed)>,
}

impl ChatShape {
    pub fn new(id: String, created: i64, model: String, stream: bool, include_usage: bool) -> Self {
        ChatShape {
            id,
            created,
            model,
            stream,
            include_usage,
            sent_role: false,
            whole: Whole::default(),
            end: None,
        }
    }

    fn chunk(&self, delta: Delta, finish_reason: Option<FinishReason>) -> Vec<u8> {
        sse(&ChatCompletionChunk::delta(
            self.id.as_str(),
            self.created,
            self.model.as_str(),
            delta,
            finish_reason,
        ))
    }

    /// One delta's chunk; the first of the stream carries the role.
    fn delta(
        &mut self,
        content: Option<String>,
        reasoning: Option<String>,
        tool_calls: Option<Vec<ToolCallDelta>>,
    ) -> Vec<u8> {
        let role = (!self.sent_role).then_some(Role::Assistant);
        self.sent_role = true;
        let delta = Delta {
            role,
            content,
            reasoning_content: reasoning,
            tool_calls,
        };
        self.chunk(delta, None)
    }

    /// The end of a finished stream: the role if no delta carried it, the finish reason, the
    /// usage when the caller asked for it, then `[DONE]`.
    fn tail(&self, finish_reason: FinishReason, usage: Billed) -> Vec<u8> {
        let mut tail = Vec::new();
        if !self.sent_role {
            let opening = Delta {
                role: Some(Role::Assistant),
                content: Some(String::new()),
                ..Default::default()
            };
            tail.extend_from_slice(&self.chunk(opening, None));
        }
        tail.extend_from_slice(&self.chunk(Delta::default(), Some(finish_reason)));
        if self.include_usage {
            let last = ChatCompletionChunk::usage_only(
                self.id.as_str(),
                self.created,
                self.model.as_str(),
                usage_block(usage),
            );
            tail.extend_from_slice(&sse(&last));
        }
        tail.extend_from_slice(b"data: [DONE]\n\n");
        tail
    }
}

impl Shape for ChatShape {
    fn open(&mut self) -> Vec<u8> {
        Vec::new()
    }

    fn push(&mut self, piece: Piece) -> Vec<u8> {
        if !self.stream {
            match piece {
                Piece::Delta {
                    content,
                    reasoning,
                    tool_calls,
                } => self.whole.add(content, reasoning, tool_calls),
                Piece::Done {
                    finish_reason,
                    usage,
                } => self.end = Some((finish_reason, usage)),
                // A whole answer that fails is answered with an HTTP error, not a body.
                Piece::Failed(_) => {}
            }
            return Vec::new();
        }
        match piece {
            Piece::Delta {
                content,
                reasoning,
                tool_calls,
            } => self.delta(content, reasoning, tool_calls),
            Piece::Done {
                finish_reason,
                usage,
            } => self.tail(finish_reason, usage),
            Piece::Failed(Failure::Worker(code)) => error_event(FAILED_MID_STREAM, code.as_str()),
            Piece::Failed(failure @ Failure::Timeout) => error_event(&failure.message(), "timeout"),
            Piece::Failed(failure @ Failure::Rejected) => {
                error_event(&failure.message(), shoal_answer_check::ERROR_CODE)
            }
        }
    }

    fn body(&mut self) -> Vec<u8> {
        let (finish_reason, usage) = self
            .end
            .expect("a whole answer is written after its Done piece");
        let whole = std::mem::take(&mut self.whole);
        let completion = ChatCompletion::new(
            self.id.as_str(),
            self.created,
            self.model.as_str(),
            whole.into_message(),
            finish_reason,
            usage_block(usage),
        );
        serde_json::to_vec(&completion).expect("completions serialize")
    }
}

const FAILED_MID_STREAM: &str =
    "the worker failed mid-stream; the response is incomplete and only what was delivered is billed";

fn sse(json: &impl serde::Serialize) -> Vec<u8> {
    let mut buf = Vec::with_capacity(256);
    buf.extend_from_slice(b"data: ");
    serde_json::to_writer(&mut buf, json).expect("chunks serialize");
    buf.extend_from_slice(b"\n\n");
    buf
}

/// The SSE event that ends a stream that cannot complete, in the one error shape.
fn error_event(message: &str, code: &str) -> Vec<u8> {
    sse(&ErrorBody::new(message, "server_error", code))
}

/// The usage block: the billed tokens and what they cost.
fn usage_block(u: Billed) -> Usage {
    Usage::billed(u)
}

/// `more` after `to`; the first piece is moved in, not copied (so a whole answer handed on
/// in one piece is never copied again).
fn append(to: &mut String, more: Option<String>) {
    match more {
        Some(more) if to.is_empty() => *to = more,
        Some(more) => to.push_str(&more),
        None => {}
    }
}

/// A whole answer built out of deltas: what the relay checks before anyone sees it, and what
/// a whole chat completion's message is made of.
#[derive(Default)]
pub struct Whole {
    pub content: String,
    reasoning: String,
    tool_calls: Vec<ToolCall>,
}

impl Whole {
    pub fn add(
        &mut self,
        content: Option<String>,
        reasoning: Option<String>,
        tool_calls: Option<Vec<ToolCallDelta>>,
    ) {
        append(&mut self.content, content);
        append(&mut self.reasoning, reasoning);
        for d in tool_calls.into_iter().flatten() {
            self.add_call(d);
        }
    }

    fn add_call(&mut self, d: ToolCallDelta) {
        let i = d.index as usize;
        if i >= MAX_TOOL_CALLS {
            // A worker can't make the gateway allocate without bound.
            return;
        }
        while self.tool_calls.len() <= i {
            self.tool_calls.push(ToolCall {
                id: String::new(),
                r#type: ToolType::Function,
                function: FunctionCall {
                    name: String::new(),
                    arguments: String::new(),
                },
            });
        }
        let call = &mut self.tool_calls[i];
        if let Some(id) = d.id {
            call.id = id;
        }
        if let Some(f) = d.function {
            if let Some(name) = f.name {
                call.function.name.push_str(&name);
            }
            if let Some(args) = f.arguments {
                call.function.arguments.push_str(&args);
            }
        }
    }

    /// The calls as `(name, arguments)`, for the check.
    pub fn calls(&self) -> impl Iterator<Item = (&str, &str)> {
        (self.tool_calls.iter()).map(|c| (c.function.name.as_str(), c.function.arguments.as_str()))
    }

    /// The whole answer as one piece, for a route's [`Shape`].
    pub fn into_piece(self) -> Piece {
        let calls = self
            .tool_calls
            .into_iter()
            .enumerate()
            .map(|(i, c)| ToolCallDelta {
                index: u32::try_from(i).expect("at most MAX_TOOL_CALLS calls"),
                id: Some(c.id),
                r#type: Some(c.r#type),
                function: Some(FunctionCallDelta {
                    name: Some(c.function.name),
                    arguments: Some(c.function.arguments),
                }),
            });
        let calls: Vec<ToolCallDelta> = calls.collect();
        Piece::Delta {
            content: (!self.content.is_empty()).then_some(self.content),
            reasoning: (!self.reasoning.is_empty()).then_some(self.reasoning),
            tool_calls: (!calls.is_empty()).then_some(calls),
        }
    }

    fn into_message(self) -> ResponseMessage {
        let has_tools = !self.tool_calls.is_empty();
        let content = if self.content.is_empty() && has_tools {
            None
        } else {
            Some(self.content)
        };
        ResponseMessage::assistant(
            content,
            has_tools.then_some(self.tool_calls),
            (!self.reasoning.is_empty()).then_some(self.reasoning),
        )
    }
}
