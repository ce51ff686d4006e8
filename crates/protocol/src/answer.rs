//! A chat job's answer as the gateway's relay sees it, in the form the renderers of the other
//! APIs take it ([`crate::responses::ResponseRenderer`], [`crate::messages::MessageRenderer`]):
//! the pieces of the answer ([`Piece`]), what was billed for it ([`Billed`]), and the SSE
//! framing both use.
//!
//! Every route runs a request as the same chat job; only the rendering differs. So a renderer
//! never counts tokens itself: it reports the usage the relay billed.

use serde::Serialize;

use crate::chat::ToolCallDelta;
use crate::codes::{ErrorCode, FinishReason};
use crate::worker::JobUsage;

/// One event of a running job, in the order the worker sent them.
#[derive(Debug, Clone, PartialEq)]
pub enum Piece {
    /// More of the answer. A worker usually sends one of the three at a time; when one delta
    /// carries several, they are taken as reasoning, then text, then tool calls.
    Delta {
        content: Option<String>,
        reasoning: Option<String>,
        tool_calls: Option<Vec<ToolCallDelta>>,
    },
    /// The job ended; `usage` is what the request is billed for.
    Done {
        finish_reason: FinishReason,
        usage: Billed,
    },
    /// The answer cannot complete. Only ends a stream: a request that fails before its first
    /// piece is answered with an HTTP error instead.
    Failed(Failure),
}

/// Why a streamed answer stopped before its end.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Failure {
    /// The worker failed or went away mid-answer.
    Worker(ErrorCode),
    /// The request ran past the gateway's time limit.
    Timeout,
    /// The answer failed the gateway's check of a structured request (its `response_format`
    /// or a strict tool's parameters): the worker's fault, known at the answer's end.
    Rejected,
}

impl Failure {
    /// The text a client is shown. Fixed: it names the worker's code, never a worker's words.
    pub fn message(self) -> String {
        match self {
            Failure::Worker(code) => format!(
                "the worker failed mid-answer ({code}); the response is incomplete and only \
                 what was delivered is billed"
            ),
            Failure::Timeout => "the request ran past the gateway's time limit; the response \
                                 is incomplete and only what was delivered is billed"
                .to_owned(),
            Failure::Rejected => "the answer did not match the requested response_format or \
                                  strict tool parameters; only what was delivered is billed"
                .to_owned(),
        }
    }
}

/// What a request is billed for, as the relay settles it: the token counts (a worker's report
/// held to the job's bounds; reasoning tokens are part of `output_tokens`) and the credits
/// they cost, the very amount the settle charges.
///
/// This is the one input every API's usage block is made from; each route's usage conversion
/// (`Usage::billed`, `ResponseUsage::from`, `MessageUsage::from`) decides how to show it.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Billed {
    pub input_tokens: u64,
    pub output_tokens: u64,
    pub reasoning_tokens: u64,
    /// Part of `input_tokens`: those the worker had cached (shown, not priced apart).
    pub cached_tokens: u64,
    /// What the request is charged, in credits.
    pub credits: i64,
}

impl Billed {
    pub fn new(u: JobUsage, credits: i64) -> Self {
        Billed {
            input_tokens: u.prompt_tokens,
            output_tokens: u.completion_tokens,
            reasoning_tokens: u.reasoning_tokens,
            cached_tokens: u.cached_tokens.min(u.prompt_tokens),
            credits,
        }
    }
}

/// What a renderer does with each kind of piece; [`Render::feed`] takes a piece apart in the
/// order [`Piece::Delta`] documents.
pub(crate) trait Render {
    fn reasoning(&mut self, delta: String);
    fn text(&mut self, delta: String);
    fn call_piece(&mut self, delta: ToolCallDelta);
    fn done(&mut self, finish_reason: FinishReason, usage: Billed);
    fn failed(&mut self, failure: Failure);

    fn feed(&mut self, piece: Piece) {
        match piece {
            Piece::Delta {
                content,
                reasoning,
                tool_calls,
            } => {
                self.reasoning(reasoning.unwrap_or_default());
                self.text(content.unwrap_or_default());
                for delta in tool_calls.into_iter().flatten() {
                    self.call_piece(delta);
                }
            }
            Piece::Done {
                finish_reason,
                usage,
            } => self.done(finish_reason, usage),
            Piece::Failed(failure) => self.failed(failure),
        }
    }
}

/// Appends one named SSE event, `event: NAME\ndata: JSON\n\n`, to `out`.
pub(crate) fn write_sse(out: &mut Vec<u8>, name: &str, data: &impl Serialize) {
    out.extend_from_slice(b"event: ");
    out.extend_from_slice(name.as_bytes());
    out.extend_from_slice(b"\ndata: ");
    serde_json::to_writer(&mut *out, data).expect("events serialize");
    out.extend_from_slice(b"\n\n");
}

/// Tool calls one answer may carry; pieces with a larger index are dropped, so a worker can't
/// make the gateway allocate without bound (the relay's chat path drops them too).
pub(crate) const MAX_TOOL_CALLS: usize = 128;

/// One tool call as its pieces arrive. Its item (or block) is opened once its name is whole,
/// i.e. when its arguments begin or the answer ends, because both APIs announce a call with
/// its name.
#[derive(Debug, Default)]
pub(crate) struct CallState {
    pub id: String,
    pub name: String,
    pub arguments: String,
    /// Where the call's item (or block) is, once opened.
    pub slot: Option<usize>,
}

/// The tool calls of one answer, by the index the worker gives them.
#[derive(Debug, Default)]
pub(crate) struct Calls {
    pub calls: Vec<CallState>,
}

impl Calls {
    /// Records a piece's id and name; returns the call's index and the piece's arguments, or
    /// `None` for an index past [`MAX_TOOL_CALLS`].
    pub fn take(&mut self, delta: ToolCallDelta) -> Option<(usize, String)> {
        let i = delta.index as usize;
        if i >= MAX_TOOL_CALLS {
            return None;
        }
        if self.calls.len() <= i {
            self.calls.resize_with(i + 1, CallState::default);
        }
        let call = &mut self.calls[i];
        if let Some(id) = delta.id.filter(|id| !id.is_empty()) {
            call.id = id;
        }
        let function = delta.function.unwrap_or_default();
        if let Some(name) = function.name {
            // Names arrive whole from every worker kind; pieces after the call was announced
            // could not be shown and are not kept, so the final item matches the stream.
            if call.slot.is_none() {
                call.name.push_str(&name);
            }
        }
        Some((i, function.arguments.unwrap_or_default()))
    }

    /// Where a piece of call `i`'s arguments goes, given the slot of the call being written
    /// (when the open item is a call). A call is opened once its arguments begin (its name is
    /// whole by then); pieces of a call whose item was closed since are dropped, in the stream
    /// and in the final object alike.
    pub fn route(&self, i: usize, open_call: Option<usize>, arguments: &str) -> Route {
        match self.calls[i].slot {
            Some(slot) if open_call == Some(slot) => Route::Append(slot),
            Some(_) => Route::Drop,
            None if arguments.is_empty() => Route::Drop,
            None => Route::Open,
        }
    }

    /// Call `i`'s id: the worker's, or `PREFIX_BASE_i` when it gave none.
    pub fn id(&self, i: usize, prefix: &str, base: &str) -> String {
        match &self.calls[i].id {
            id if id.is_empty() => format!("{prefix}_{base}_{i}"),
            id => id.clone(),
        }
    }

    /// Indices of calls not yet opened, in order.
    pub fn unopened(&self) -> Vec<usize> {
        (0..self.calls.len())
            .filter(|&i| self.calls[i].slot.is_none() && self.is_real(i))
            .collect()
    }

    /// A call is real once any piece named it or gave arguments; indices skipped by a worker
    /// are gaps, not calls.
    fn is_real(&self, i: usize) -> bool {
        let c = &self.calls[i];
        !(c.id.is_empty() && c.name.is_empty() && c.arguments.is_empty())
    }
}

/// See [`Calls::route`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Route {
    /// Append to the call at this slot.
    Append(usize),
    /// Open the call's item, then append.
    Open,
    Drop,
}

/// The part of an id after its prefix (`resp_abc` → `abc`, `chatcmpl-abc` → `abc`), from which
/// a response's item ids are made.
pub(crate) fn id_suffix(id: &str) -> &str {
    id.split_once(['_', '-']).map_or(id, |(_, rest)| rest)
}

/// Parses the SSE bytes a renderer wrote back into `(event, data)` pairs, for tests.
#[cfg(test)]
pub(crate) fn parse_sse(bytes: &[u8]) -> Vec<(String, serde_json::Value)> {
    let text = std::str::from_utf8(bytes).expect("SSE is UTF-8");
    text.split_terminator("\n\n")
        .map(|frame| {
            let (event, data) = frame.split_once('\n').expect("two lines per event");
            let name = event.strip_prefix("event: ").expect("event line");
            let data = data.strip_prefix("data: ").expect("data line");
            assert!(!data.contains('\n'), "one data line");
            (
                name.to_owned(),
                serde_json::from_str(data).expect("data is JSON"),
            )
        })
        .collect()
}

/// Pieces for the renderers' tests.
#[cfg(test)]
pub(crate) mod pieces {
    use super::{Billed, Piece};
    use crate::chat::{FunctionCallDelta, ToolCallDelta};
    use crate::codes::FinishReason;

    pub fn text(s: &str) -> Piece {
        Piece::Delta {
            content: Some(s.into()),
            reasoning: None,
            tool_calls: None,
        }
    }

    pub fn thought(s: &str) -> Piece {
        Piece::Delta {
            content: None,
            reasoning: Some(s.into()),
            tool_calls: None,
        }
    }

    pub fn call_delta(
        index: u32,
        id: Option<&str>,
        name: Option<&str>,
        args: &str,
    ) -> ToolCallDelta {
        ToolCallDelta {
            index,
            id: id.map(str::to_owned),
            r#type: None,
            function: Some(FunctionCallDelta {
                name: name.map(str::to_owned),
                arguments: Some(args.to_owned()),
            }),
        }
    }

    pub fn call(index: u32, id: Option<&str>, name: Option<&str>, args: &str) -> Piece {
        Piece::Delta {
            content: None,
            reasoning: None,
            tool_calls: Some(vec![call_delta(index, id, name, args)]),
        }
    }

    /// Compares with the golden file `tests/golden/NAME`, which the SDK checks (tests/e2e)
    /// read; `SHOAL_UPDATE_GOLDEN=1` rewrites it.
    pub fn golden(name: &str, bytes: &[u8]) {
        let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("tests/golden")
            .join(name);
        if std::env::var_os("SHOAL_UPDATE_GOLDEN").is_some() {
            std::fs::write(&path, bytes).unwrap();
        }
        let want = std::fs::read(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        assert_eq!(
            String::from_utf8_lossy(bytes),
            String::from_utf8_lossy(&want),
            "{name} differs from its golden file"
        );
    }

    /// `NAME.sse` and `NAME.json`: a stream and the whole object of the same answer.
    pub fn golden_pair(name: &str, bytes: &[u8], whole: &impl serde::Serialize) {
        golden(&format!("{name}.sse"), bytes);
        golden(
            &format!("{name}.json"),
            &serde_json::to_vec_pretty(whole).unwrap(),
        );
    }

    pub fn done(finish_reason: FinishReason, input: u64, output: u64, reasoning: u64) -> Piece {
        Piece::Done {
            finish_reason,
            usage: Billed {
                input_tokens: input,
                output_tokens: output,
                reasoning_tokens: reasoning,
                cached_tokens: 0,
                credits: 2,
            },
        }
    }
}

#[cfg(test)]
mod tests {
    use super::pieces::call_delta as piece;
    use super::*;

    #[test]
    fn calls_gather_by_index_and_drop_what_is_past_the_bound() {
        let mut calls = Calls::default();
        assert_eq!(
            calls.take(piece(1, Some("c1"), Some("get"), "")),
            Some((1, String::new()))
        );
        assert_eq!(
            calls.take(piece(1, None, Some("_it"), "{\"a\"")),
            Some((1, "{\"a\"".to_owned()))
        );
        assert_eq!(calls.calls[1].name, "get_it");
        assert_eq!(calls.calls[1].id, "c1");
        // Index 0 was skipped: a gap, not a call.
        assert_eq!(calls.unopened(), vec![1]);
        assert_eq!(
            calls.take(piece(MAX_TOOL_CALLS as u32, None, None, "x")),
            None
        );
        assert_eq!(calls.calls.len(), 2);
    }

    #[test]
    fn pieces_of_a_call_go_to_its_open_item_only() {
        let mut calls = Calls::default();
        calls.take(piece(0, None, Some("f"), ""));
        assert_eq!(
            calls.route(0, None, ""),
            Route::Drop,
            "no arguments yet: not opened"
        );
        assert_eq!(calls.route(0, None, "{"), Route::Open);
        calls.calls[0].slot = Some(3);
        assert_eq!(calls.route(0, Some(3), "}"), Route::Append(3));
        assert_eq!(calls.route(0, None, "}"), Route::Drop, "closed since");
        assert_eq!(calls.id(0, "call", "abc"), "call_abc_0");
    }

    #[test]
    fn sse_frames_are_named_events_with_one_json_line() {
        let mut out = Vec::new();
        write_sse(
            &mut out,
            "ping",
            &serde_json::json!({"type": "ping", "t": "a\nb"}),
        );
        assert_eq!(
            out,
            b"event: ping\ndata: {\"type\":\"ping\",\"t\":\"a\\nb\"}\n\n".to_vec()
        );
        assert_eq!(parse_sse(&out)[0].1["t"], "a\nb");
    }

    #[test]
    fn ids_lose_their_prefix() {
        assert_eq!(id_suffix("resp_0192abc"), "0192abc");
        assert_eq!(id_suffix("chatcmpl-0192abc"), "0192abc");
        assert_eq!(id_suffix("plain"), "plain");
    }
}
