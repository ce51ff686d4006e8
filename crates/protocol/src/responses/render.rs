//! The answer of a chat job rendered as a response: the whole object, or the event stream the
//! SDKs parse. One state machine does both, so the streamed items and the final object never
//! disagree.
//!
//! The stream: `response.created`, `response.in_progress`; per output item
//! `response.output_item.added`, its content events, `response.output_item.done`; then
//! `response.completed` (or `response.incomplete` on a length stop, `response.failed` when the
//! worker is lost), each event with the next `sequence_number` from 0. Items are opened one
//! at a time, in the order the answer arrives: reasoning (`reasoning_text` events), text
//! (`output_text` events inside a `message` item) and function calls
//! (`function_call_arguments` events), a new item whenever the kind changes.

use serde::Serialize;

use super::object::{
    IncompleteDetails, IncompleteReason, ItemStatus, OutputItem, OutputText, ReasoningText,
    Response, ResponseError, ResponseStatus, ResponseUsage,
};
use super::request::{
    ResponsesRequest, ResponsesTool, ResponsesToolChoice, TextConfig, TextFormat,
};
use crate::answer::{id_suffix, write_sse, Billed, Calls, Failure, Piece, Render, Route};
use crate::chat::{ToolCallDelta, ToolChoiceMode};
use crate::codes::FinishReason;

/// Renders one response. Feed it [`start`](Self::start) once, then every [`Piece`] of the job
/// in order; each call returns the SSE bytes to send (none for a non-streamed request). After
/// the `Done` piece, [`response`](Self::response) is the whole object.
#[derive(Debug)]
pub struct ResponseRenderer {
    response: Response,
    /// What item ids are made from.
    base: String,
    open: Option<Open>,
    calls: Calls,
    sink: Sink,
    ended: bool,
}

/// The item being written.
#[derive(Debug, Clone, Copy)]
enum Open {
    Message(usize),
    Reasoning(usize),
    /// A function call.
    Call(usize),
}

#[derive(Debug)]
struct Sink {
    stream: bool,
    seq: u64,
    out: Vec<u8>,
}

impl Sink {
    fn emit(&mut self, event: Event<'_>) {
        if self.stream {
            write_sse(
                &mut self.out,
                event.name(),
                &Numbered {
                    event: &event,
                    sequence_number: self.seq,
                },
            );
            self.seq += 1;
        }
    }
}

/// What a response echoes of its request, taken before the request is moved into its chat job.
#[derive(Debug, Clone, PartialEq)]
pub struct ResponseEcho(Response);

impl ResponseEcho {
    pub fn of(req: &ResponsesRequest) -> Self {
        ResponseEcho(Response {
            id: String::new(),
            object: Response::OBJECT.into(),
            created_at: 0,
            status: ResponseStatus::InProgress,
            error: None,
            incomplete_details: None,
            instructions: None,
            max_output_tokens: req.max_output_tokens,
            model: String::new(),
            output: Vec::new(),
            parallel_tool_calls: req.parallel_tool_calls.unwrap_or(true),
            previous_response_id: None,
            reasoning: req.reasoning.clone(),
            store: false,
            temperature: req.temperature,
            text: req.text.clone().unwrap_or(TextConfig {
                format: Some(TextFormat::Text),
                verbosity: None,
            }),
            tool_choice: req
                .tool_choice
                .clone()
                .unwrap_or(ResponsesToolChoice::Mode(ToolChoiceMode::Auto)),
            tools: req
                .tools
                .iter()
                .flatten()
                .filter(|t| !matches!(t, ResponsesTool::Unsupported))
                .cloned()
                .collect(),
            top_p: req.top_p,
            truncation: req.truncation.unwrap_or_default(),
            usage: None,
            metadata: req.metadata.clone().unwrap_or_default(),
        })
    }
}

impl ResponseRenderer {
    /// A renderer for the response `id` (`resp_...`, the request id the hold is taken under),
    /// answered by `model` (the catalog id) and created at `created_at` (Unix seconds).
    pub fn new(
        echo: ResponseEcho,
        id: String,
        created_at: i64,
        model: String,
        stream: bool,
    ) -> Self {
        let mut response = echo.0;
        let base = id_suffix(&id).to_owned();
        response.id = id;
        response.created_at = created_at;
        response.model = model;
        ResponseRenderer {
            response,
            base,
            open: None,
            calls: Calls::default(),
            sink: Sink {
                stream,
                seq: 0,
                out: Vec::new(),
            },
            ended: false,
        }
    }

    /// `response.created` and `response.in_progress`.
    pub fn start(&mut self) -> Vec<u8> {
        self.sink.emit(Event::Created {
            response: &self.response,
        });
        self.sink.emit(Event::InProgress {
            response: &self.response,
        });
        std::mem::take(&mut self.sink.out)
    }

    /// The events one piece of the answer makes. Pieces after the end are ignored.
    pub fn push(&mut self, piece: Piece) -> Vec<u8> {
        if !self.ended {
            self.feed(piece);
        }
        std::mem::take(&mut self.sink.out)
    }

    /// The response as it stands: whole once the `Done` piece was fed.
    pub fn response(&self) -> &Response {
        &self.response
    }

    fn item_id(&self, prefix: &str) -> String {
        format!("{prefix}_{}_{}", self.base, self.response.output.len())
    }

    /// Adds an item and announces it.
    fn add(&mut self, item: OutputItem) -> usize {
        self.close(ItemStatus::Completed);
        let slot = self.response.output.len();
        self.response.output.push(item);
        self.sink.emit(Event::OutputItemAdded {
            output_index: slot,
            item: &self.response.output[slot],
        });
        slot
    }

    fn open_message(&mut self) -> usize {
        let slot = self.add(OutputItem::Message {
            id: self.item_id("msg"),
            status: ItemStatus::InProgress,
            role: "assistant".into(),
            content: Vec::new(),
        });
        let OutputItem::Message { id, content, .. } = &mut self.response.output[slot] else {
            unreachable!("just added");
        };
        content.push(OutputText::new(""));
        self.sink.emit(Event::ContentPartAdded {
            item_id: id,
            output_index: slot,
            content_index: 0,
            part: Part::Text(&content[0]),
        });
        self.open = Some(Open::Message(slot));
        slot
    }

    fn open_reasoning(&mut self) -> usize {
        let slot = self.add(OutputItem::Reasoning {
            id: self.item_id("rs"),
            summary: Vec::new(),
            content: Vec::new(),
            status: ItemStatus::InProgress,
        });
        let OutputItem::Reasoning { id, content, .. } = &mut self.response.output[slot] else {
            unreachable!("just added");
        };
        content.push(ReasoningText {
            text: String::new(),
        });
        self.sink.emit(Event::ContentPartAdded {
            item_id: id,
            output_index: slot,
            content_index: 0,
            part: Part::Reasoning(&content[0]),
        });
        self.open = Some(Open::Reasoning(slot));
        slot
    }

    fn open_call(&mut self, i: usize) -> usize {
        let call = &self.calls.calls[i];
        let item = OutputItem::FunctionCall {
            id: self.item_id("fc"),
            call_id: self.calls.id(i, "call", &self.base),
            name: call.name.clone(),
            arguments: String::new(),
            status: ItemStatus::InProgress,
            namespace: ResponsesTool::functions(&self.response.tools)
                .find(|(f, _)| f.name == call.name)
                .and_then(|(_, namespace)| namespace.map(str::to_owned)),
        };
        let slot = self.add(item);
        self.calls.calls[i].slot = Some(slot);
        self.open = Some(Open::Call(slot));
        slot
    }

    /// Ends the open item, if any, with its `...done` events.
    fn close(&mut self, status: ItemStatus) {
        let Some(open) = self.open.take() else {
            return;
        };
        let slot = match open {
            Open::Message(s) | Open::Reasoning(s) | Open::Call(s) => s,
        };
        let item = &mut self.response.output[slot];
        item.set_status(status);
        match item {
            OutputItem::Message { id, content, .. } => {
                self.sink.emit(Event::OutputTextDone {
                    item_id: id,
                    output_index: slot,
                    content_index: 0,
                    text: &content[0].text,
                    logprobs: &[],
                });
                self.sink.emit(Event::ContentPartDone {
                    item_id: id,
                    output_index: slot,
                    content_index: 0,
                    part: Part::Text(&content[0]),
                });
            }
            OutputItem::Reasoning { id, content, .. } => {
                self.sink.emit(Event::ReasoningTextDone {
                    item_id: id,
                    output_index: slot,
                    content_index: 0,
                    text: &content[0].text,
                });
                self.sink.emit(Event::ContentPartDone {
                    item_id: id,
                    output_index: slot,
                    content_index: 0,
                    part: Part::Reasoning(&content[0]),
                });
            }
            OutputItem::FunctionCall { id, arguments, .. } => {
                self.sink.emit(Event::FunctionCallArgumentsDone {
                    item_id: id,
                    output_index: slot,
                    arguments,
                });
            }
        }
        self.sink.emit(Event::OutputItemDone {
            output_index: slot,
            item: &self.response.output[slot],
        });
    }
}

impl Render for ResponseRenderer {
    fn text(&mut self, delta: String) {
        if delta.is_empty() {
            return;
        }
        let slot = match self.open {
            Some(Open::Message(slot)) => slot,
            _ => self.open_message(),
        };
        let OutputItem::Message { id, content, .. } = &mut self.response.output[slot] else {
            unreachable!("an open message slot holds a message");
        };
        content[0].text.push_str(&delta);
        self.sink.emit(Event::OutputTextDelta {
            item_id: id,
            output_index: slot,
            content_index: 0,
            delta: &delta,
            logprobs: &[],
        });
    }

    fn reasoning(&mut self, delta: String) {
        if delta.is_empty() {
            return;
        }
        let slot = match self.open {
            Some(Open::Reasoning(slot)) => slot,
            _ => self.open_reasoning(),
        };
        let OutputItem::Reasoning { id, content, .. } = &mut self.response.output[slot] else {
            unreachable!("an open reasoning slot holds reasoning");
        };
        content[0].text.push_str(&delta);
        self.sink.emit(Event::ReasoningTextDelta {
            item_id: id,
            output_index: slot,
            content_index: 0,
            delta: &delta,
        });
    }

    /// A piece of a tool call, routed as [`Calls::route`] says.
    fn call_piece(&mut self, delta: ToolCallDelta) {
        let Some((i, arguments)) = self.calls.take(delta) else {
            return;
        };
        let open_call = match self.open {
            Some(Open::Call(slot)) => Some(slot),
            _ => None,
        };
        let slot = match self.calls.route(i, open_call, &arguments) {
            Route::Append(slot) => slot,
            Route::Open => self.open_call(i),
            Route::Drop => return,
        };
        self.calls.calls[i].arguments.push_str(&arguments);
        let OutputItem::FunctionCall {
            id, arguments: a, ..
        } = &mut self.response.output[slot]
        else {
            unreachable!("a call's slot holds a function call");
        };
        a.push_str(&arguments);
        self.sink.emit(Event::FunctionCallArgumentsDelta {
            item_id: id,
            output_index: slot,
            delta: &arguments,
        });
    }

    fn done(&mut self, finish_reason: FinishReason, usage: Billed) {
        // Calls whose arguments never began (a call without arguments) are announced now.
        for i in self.calls.unopened() {
            self.open_call(i);
        }
        if self.response.output.is_empty() {
            // Clients read `output[0]`; an empty answer is an empty message, as chat's is "".
            self.open_message();
        }
        let (status, incomplete) = match finish_reason {
            FinishReason::Length => (
                ResponseStatus::Incomplete,
                Some(IncompleteReason::MaxOutputTokens),
            ),
            FinishReason::ContentFilter => (
                ResponseStatus::Incomplete,
                Some(IncompleteReason::ContentFilter),
            ),
            FinishReason::Stop | FinishReason::ToolCalls => (ResponseStatus::Completed, None),
        };
        self.close(if incomplete.is_some() {
            ItemStatus::Incomplete
        } else {
            ItemStatus::Completed
        });
        self.response.status = status;
        self.response.incomplete_details = incomplete.map(|reason| IncompleteDetails { reason });
        self.response.usage = Some(ResponseUsage::from(usage));
        self.ended = true;
        let response = &self.response;
        self.sink.emit(match status {
            ResponseStatus::Incomplete => Event::Incomplete { response },
            _ => Event::Completed { response },
        });
    }

    fn failed(&mut self, failure: Failure) {
        if let Some(open) = self.open.take() {
            let (Open::Message(slot) | Open::Reasoning(slot) | Open::Call(slot)) = open;
            self.response.output[slot].set_status(ItemStatus::Incomplete);
        }
        self.response.status = ResponseStatus::Failed;
        self.response.error = Some(ResponseError {
            code: "server_error".into(),
            message: failure.message(),
        });
        self.ended = true;
        self.sink.emit(Event::Failed {
            response: &self.response,
        });
    }
}

/// One event of the stream, borrowing what it shows; serialized at once.
#[derive(Serialize)]
#[serde(tag = "type")]
enum Event<'a> {
    #[serde(rename = "response.created")]
    Created { response: &'a Response },
    #[serde(rename = "response.in_progress")]
    InProgress { response: &'a Response },
    #[serde(rename = "response.output_item.added")]
    OutputItemAdded {
        output_index: usize,
        item: &'a OutputItem,
    },
    #[serde(rename = "response.content_part.added")]
    ContentPartAdded {
        item_id: &'a str,
        output_index: usize,
        content_index: usize,
        part: Part<'a>,
    },
    #[serde(rename = "response.output_text.delta")]
    OutputTextDelta {
        item_id: &'a str,
        output_index: usize,
        content_index: usize,
        delta: &'a str,
        logprobs: &'a [u8],
    },
    #[serde(rename = "response.output_text.done")]
    OutputTextDone {
        item_id: &'a str,
        output_index: usize,
        content_index: usize,
        text: &'a str,
        logprobs: &'a [u8],
    },
    #[serde(rename = "response.reasoning_text.delta")]
    ReasoningTextDelta {
        item_id: &'a str,
        output_index: usize,
        content_index: usize,
        delta: &'a str,
    },
    #[serde(rename = "response.reasoning_text.done")]
    ReasoningTextDone {
        item_id: &'a str,
        output_index: usize,
        content_index: usize,
        text: &'a str,
    },
    #[serde(rename = "response.content_part.done")]
    ContentPartDone {
        item_id: &'a str,
        output_index: usize,
        content_index: usize,
        part: Part<'a>,
    },
    #[serde(rename = "response.function_call_arguments.delta")]
    FunctionCallArgumentsDelta {
        item_id: &'a str,
        output_index: usize,
        delta: &'a str,
    },
    #[serde(rename = "response.function_call_arguments.done")]
    FunctionCallArgumentsDone {
        item_id: &'a str,
        output_index: usize,
        arguments: &'a str,
    },
    #[serde(rename = "response.output_item.done")]
    OutputItemDone {
        output_index: usize,
        item: &'a OutputItem,
    },
    #[serde(rename = "response.completed")]
    Completed { response: &'a Response },
    #[serde(rename = "response.incomplete")]
    Incomplete { response: &'a Response },
    #[serde(rename = "response.failed")]
    Failed { response: &'a Response },
}

impl Event<'_> {
    /// The SSE event name: the same as `type`.
    fn name(&self) -> &'static str {
        match self {
            Event::Created { .. } => "response.created",
            Event::InProgress { .. } => "response.in_progress",
            Event::OutputItemAdded { .. } => "response.output_item.added",
            Event::ContentPartAdded { .. } => "response.content_part.added",
            Event::OutputTextDelta { .. } => "response.output_text.delta",
            Event::OutputTextDone { .. } => "response.output_text.done",
            Event::ReasoningTextDelta { .. } => "response.reasoning_text.delta",
            Event::ReasoningTextDone { .. } => "response.reasoning_text.done",
            Event::ContentPartDone { .. } => "response.content_part.done",
            Event::FunctionCallArgumentsDelta { .. } => "response.function_call_arguments.delta",
            Event::FunctionCallArgumentsDone { .. } => "response.function_call_arguments.done",
            Event::OutputItemDone { .. } => "response.output_item.done",
            Event::Completed { .. } => "response.completed",
            Event::Incomplete { .. } => "response.incomplete",
            Event::Failed { .. } => "response.failed",
        }
    }
}

#[derive(Serialize)]
#[serde(untagged)]
enum Part<'a> {
    Text(&'a OutputText),
    Reasoning(&'a ReasoningText),
}

#[derive(Serialize)]
struct Numbered<'a> {
    #[serde(flatten)]
    event: &'a Event<'a>,
    sequence_number: u64,
}
