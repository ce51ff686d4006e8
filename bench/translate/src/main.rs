//! What the Responses and Messages translations add per request over chat completions
//! (BENCHMARKS.md, "API translations"). The three routes run the same chat job; what differs
//! is the gateway's own work on the request and the answer, which is measured here, in one
//! process, alternating the three per round so drift on a shared machine hits each alike:
//!
//! - **request**: chat parses its body; the others parse theirs, translate it into the chat
//!   request (`into_chat`) and hold it to chat's rules (`validate`), as the gateway does;
//! - **to the first byte**: the request, plus the stream's opening and first delta's bytes;
//! - **whole stream**: the request, plus every event of a 32-delta answer and its end.
//!
//! CPU time of this thread, p50 over many requests, as differences from chat's.
//!
//!   cargo run --release -p shoal-bench-translate [-- --rounds N]

use std::time::Duration;

use serde_json::json;
use shoal_protocol::answer::{Billed, Piece};
use shoal_protocol::chat::{ChatCompletionChunk, Delta, Role};
use shoal_protocol::codes::FinishReason;
use shoal_protocol::messages::{parse_messages_request, MessageRenderer};
use shoal_protocol::parse_chat_request;
use shoal_protocol::responses::{parse_responses_request, ResponseEcho, ResponseRenderer};

const DELTAS: usize = 32;
const PER_ROUND: usize = 200;

/// This thread's CPU time: wall time on a shared machine also counts others' turns.
fn thread_cpu() -> Duration {
    let mut ts = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: `ts` is a valid, writable timespec; the clock id is a constant Linux knows.
    let rc = unsafe { libc::clock_gettime(libc::CLOCK_THREAD_CPUTIME_ID, &mut ts) };
    assert_eq!(rc, 0, "clock_gettime(CLOCK_THREAD_CPUTIME_ID)");
    Duration::new(ts.tv_sec as u64, ts.tv_nsec as u32)
}

const SYSTEM: &str = "You are a helpful assistant. Answer briefly and call a tool when one helps.";
const QUESTION: &str = "What is the weather like in Paris today, and should I take an umbrella?";

fn weather_schema() -> serde_json::Value {
    json!({"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]})
}

fn bodies() -> [Vec<u8>; 3] {
    let chat = json!({"model": "large-27b-uncensored", "max_tokens": 256, "stream": true,
        "messages": [{"role": "system", "content": SYSTEM}, {"role": "user", "content": QUESTION}],
        "tools": [{"type": "function", "function": {"name": "get_weather",
                   "description": "Current weather for a city", "parameters": weather_schema()}}]});
    let responses = json!({"model": "large-27b-uncensored", "max_output_tokens": 256,
        "stream": true, "instructions": SYSTEM, "input": [{"role": "user", "content": QUESTION}],
        "tools": [{"type": "function", "name": "get_weather",
                   "description": "Current weather for a city", "parameters": weather_schema()}]});
    let messages = json!({"model": "large-27b-uncensored", "max_tokens": 256, "stream": true,
        "system": SYSTEM, "messages": [{"role": "user", "content": QUESTION}],
        "tools": [{"name": "get_weather", "description": "Current weather for a city",
                   "input_schema": weather_schema()}]});
    [chat, responses, messages].map(|b| serde_json::to_vec(&b).expect("json"))
}

fn delta(i: usize) -> Piece {
    Piece::Delta {
        content: Some(format!("word{i} ")),
        reasoning: None,
        tool_calls: None,
    }
}

fn done() -> Piece {
    Piece::Done {
        finish_reason: FinishReason::Stop,
        usage: Billed {
            input_tokens: 60,
            output_tokens: DELTAS as u64,
            reasoning_tokens: 0,
            cached_tokens: 0,
            credits: 1,
        },
    }
}

/// One route's work on one request: `pieces` deltas of the answer (0: up to the first byte).
trait Route {
    fn run(&self, body: &[u8], pieces: usize) -> usize;
}

struct Chat;
struct Responses;
struct Messages;

impl Route for Chat {
    fn run(&self, body: &[u8], pieces: usize) -> usize {
        let req = parse_chat_request(body).expect("valid");
        let mut out = 0;
        for i in 0..pieces.max(1) {
            let d = Delta {
                role: (i == 0).then_some(Role::Assistant),
                content: Some(format!("word{i} ")),
                ..Default::default()
            };
            let chunk = ChatCompletionChunk::delta("chatcmpl-x", 1, req.model.as_str(), d, None);
            out += sse_len(&chunk);
        }
        if pieces > 1 {
            let end = ChatCompletionChunk::delta(
                "chatcmpl-x",
                1,
                req.model.as_str(),
                Delta::default(),
                Some(FinishReason::Stop),
            );
            out += sse_len(&end);
        }
        out
    }
}

fn sse_len(json: &impl serde::Serialize) -> usize {
    let mut buf = Vec::with_capacity(256);
    buf.extend_from_slice(b"data: ");
    serde_json::to_writer(&mut buf, json).expect("serializes");
    buf.extend_from_slice(b"\n\n");
    buf.len()
}

impl Route for Responses {
    fn run(&self, body: &[u8], pieces: usize) -> usize {
        let req = parse_responses_request(body).expect("valid");
        let echo = ResponseEcho::of(&req);
        let chat = req.into_chat();
        chat.validate().expect("valid");
        let mut r = ResponseRenderer::new(echo, "resp_x".into(), 1, chat.model, true);
        let mut out = r.start().len();
        for i in 0..pieces.max(1) {
            out += r.push(delta(i)).len();
        }
        if pieces > 1 {
            out += r.push(done()).len();
        }
        out
    }
}

impl Route for Messages {
    fn run(&self, body: &[u8], pieces: usize) -> usize {
        let chat = parse_messages_request(body).expect("valid").into_chat();
        chat.validate().expect("valid");
        let mut r = MessageRenderer::new("msg_x".into(), chat.model, true);
        let mut out = r.start().len();
        for i in 0..pieces.max(1) {
            out += r.push(delta(i)).len();
        }
        if pieces > 1 {
            out += r.push(done()).len();
        }
        out
    }
}

fn p50(mut v: Vec<Duration>) -> Duration {
    v.sort();
    v[v.len() / 2]
}

/// p50 CPU time per request of each route, alternating routes every `PER_ROUND` requests.
fn measure(
    routes: &[&dyn Route],
    bodies: &[Vec<u8>; 3],
    pieces: usize,
    rounds: usize,
) -> Vec<Duration> {
    let mut times: Vec<Vec<Duration>> = vec![Vec::new(); routes.len()];
    let mut sink = 0usize;
    for _ in 0..rounds {
        for (k, route) in routes.iter().enumerate() {
            for _ in 0..PER_ROUND {
                let t = thread_cpu();
                sink = sink.wrapping_add(route.run(&bodies[k], pieces));
                times[k].push(thread_cpu() - t);
            }
        }
    }
    assert!(sink > 0, "every route wrote bytes");
    times.into_iter().map(p50).collect()
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let rounds = args
        .iter()
        .position(|a| a == "--rounds")
        .and_then(|i| args.get(i + 1))
        .and_then(|n| n.parse().ok())
        .unwrap_or(50);
    let bodies = bodies();
    let routes: [&dyn Route; 3] = [&Chat, &Responses, &Messages];
    measure(&routes, &bodies, DELTAS, 2); // warm-up
    println!("| measure | chat p50 | responses p50 (extra) | messages p50 (extra) |");
    println!("| --- | --- | --- | --- |");
    for (name, pieces) in [
        ("request", 0),
        ("to the first byte", 1),
        ("whole stream", DELTAS),
    ] {
        let p = if pieces == 0 {
            measure_requests(&bodies, rounds)
        } else {
            measure(&routes, &bodies, pieces, rounds)
        };
        println!(
            "| {name} | {:.1} µs | {:.1} µs ({:+.1} µs) | {:.1} µs ({:+.1} µs) |",
            us(p[0]),
            us(p[1]),
            us(p[1]) - us(p[0]),
            us(p[2]),
            us(p[2]) - us(p[0]),
        );
    }
    println!("\n{rounds} rounds × {PER_ROUND} requests per route; CPU time of the thread.");
}

/// The request alone: parse (and for the translations, translate and validate).
fn measure_requests(bodies: &[Vec<u8>; 3], rounds: usize) -> Vec<Duration> {
    struct Only<'a>(&'a dyn Fn(&[u8]) -> usize);
    impl Route for Only<'_> {
        fn run(&self, body: &[u8], _: usize) -> usize {
            (self.0)(body)
        }
    }
    let chat = |b: &[u8]| parse_chat_request(b).expect("valid").messages.len();
    let responses = |b: &[u8]| {
        let req = parse_responses_request(b).expect("valid");
        let _echo = ResponseEcho::of(&req);
        let chat = req.into_chat();
        chat.validate().expect("valid");
        chat.messages.len()
    };
    let messages = |b: &[u8]| {
        let chat = parse_messages_request(b).expect("valid").into_chat();
        chat.validate().expect("valid");
        chat.messages.len()
    };
    let routes: [&dyn Route; 3] = [&Only(&chat), &Only(&responses), &Only(&messages)];
    measure(&routes, bodies, 0, rounds)
}

fn us(d: Duration) -> f64 {
    d.as_secs_f64() * 1e6
}
