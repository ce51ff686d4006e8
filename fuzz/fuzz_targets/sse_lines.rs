//! The worker's event-stream parser (`crates/worker/src/sse.rs`, `SseParser`) on arbitrary bytes, split
//! into pushes wherever the input says (the network splits a body anywhere): the events must
//! not depend on the split, and must be what a whole-body reading of the stream gives.
#![no_main]

use libfuzzer_sys::fuzz_target;

// The worker's own source file, compiled in alone: the parser needs only memchr, and the worker
// crate would bring its whole network stack into an instrumented build.
#[path = "../../crates/worker/src/sse.rs"]
#[allow(dead_code)]
mod sse;

use sse::SseParser;

fuzz_target!(|input: &[u8]| {
    // The first byte says where to cut: every (n+1)-th byte position, n from its low bits.
    let Some((&cut, body)) = input.split_first() else {
        return;
    };
    let step = usize::from(cut % 16) + 1;
    let mut split = SseParser::new();
    let mut events = Vec::new();
    for chunk in body.chunks(step) {
        events.extend(split.push(chunk));
    }
    events.extend(split.finish());

    let mut whole = SseParser::new();
    let mut expected = whole.push(body);
    expected.extend(whole.finish());
    assert_eq!(events, expected);
    assert_eq!(expected, reference(body));
});

/// The event stream format read plainly: lines end in CRLF, LF or CR; a blank line ends an
/// event; `data` lines (value after `data:` and one optional space) join with `\n`; the last
/// event counts without its blank line.
fn reference(body: &[u8]) -> Vec<String> {
    let mut lines = Vec::new();
    let mut start = 0;
    let mut i = 0;
    while i < body.len() {
        match body[i] {
            b'\r' | b'\n' => {
                lines.push(&body[start..i]);
                if body[i] == b'\r' && body.get(i + 1) == Some(&b'\n') {
                    i += 1;
                }
                start = i + 1;
            }
            _ => {}
        }
        i += 1;
    }
    let unterminated = &body[start..];
    let mut events = Vec::new();
    let mut data: Option<String> = None;
    for line in lines
        .into_iter()
        .chain((!unterminated.is_empty()).then_some(unterminated))
    {
        if line.is_empty() {
            events.extend(data.take());
            continue;
        }
        let (field, value) = match line.iter().position(|&b| b == b':') {
            Some(c) => (
                &line[..c],
                line[c + 1..].strip_prefix(b" ").unwrap_or(&line[c + 1..]),
            ),
            None => (line, &b""[..]),
        };
        if field == b"data" {
            let value = String::from_utf8_lossy(value);
            match &mut data {
                Some(d) => {
                    d.push('\n');
                    d.push_str(&value);
                }
                None => data = Some(value.into_owned()),
            }
        }
    }
    events.extend(data);
    events
}
