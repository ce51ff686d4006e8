//! An incremental parser for `text/event-stream` bodies, as OpenAI-compatible servers stream
//! them: bytes go in however the network split them, whole events' `data` come out.
//!
//! Only `data` matters here: `event`, `id` and `retry` fields and `:` comments are skipped.
//! Lines end in `\n`, `\r\n` or `\r`; an event ends at a blank line.

/// Buffers a partial line between pushes; the buffer never holds more than one unfinished line.
#[derive(Debug, Default)]
pub struct SseParser {
    line: Vec<u8>,
    /// The last byte seen was a `\r`: a `\n` that starts the next push belongs to it.
    after_cr: bool,
    data: Option<String>,
}

impl SseParser {
    pub fn new() -> Self {
        Self::default()
    }

    /// Feeds bytes and returns the `data` of every event they complete, in order.
    pub fn push(&mut self, mut bytes: &[u8]) -> Vec<String> {
        let mut events = Vec::new();
        if self.after_cr && !bytes.is_empty() {
            self.after_cr = false;
            if bytes[0] == b'\n' {
                bytes = &bytes[1..];
            }
        }
        // `memchr2` scans a word at a time; a byte-at-a-time search was a tenth of the
        // worker's instructions on short answers.
        while let Some(end) = memchr::memchr2(b'\n', b'\r', bytes) {
            let terminator = bytes[end];
            let completed = if self.line.is_empty() {
                // The usual case: the whole line is in this push, so it is read in place.
                take_line(&mut self.data, &bytes[..end])
            } else {
                self.line.extend_from_slice(&bytes[..end]);
                let completed = take_line(&mut self.data, &self.line);
                self.line.clear();
                completed
            };
            if let Some(data) = completed {
                events.push(data);
            }
            bytes = &bytes[end + 1..];
            if terminator == b'\r' {
                match bytes.first() {
                    Some(b'\n') => bytes = &bytes[1..],
                    Some(_) => {}
                    None => self.after_cr = true,
                }
            }
        }
        self.line.extend_from_slice(bytes);
        events
    }

    /// Ends the stream: an event left without its blank line still counts (some servers close
    /// right after `data: [DONE]\n`).
    pub fn finish(&mut self) -> Option<String> {
        if !self.line.is_empty() {
            take_line(&mut self.data, &self.line);
            self.line.clear();
        }
        self.data.take()
    }
}

/// Reads one line into the event being built (`data`); a blank line ends the event and
/// returns its data.
fn take_line(data: &mut Option<String>, line: &[u8]) -> Option<String> {
    if line.is_empty() {
        return data.take();
    }
    if line.starts_with(b":") {
        return None;
    }
    let (field, value) = match line.iter().position(|&b| b == b':') {
        Some(colon) => {
            let value = &line[colon + 1..];
            (&line[..colon], value.strip_prefix(b" ").unwrap_or(value))
        }
        None => (line, &b""[..]),
    };
    if field == b"data" {
        // Valid UTF-8 (every conforming server) takes the fast check; anything else is
        // still read, with replacement characters, as before.
        let value = match std::str::from_utf8(value) {
            Ok(text) => std::borrow::Cow::Borrowed(text),
            Err(_) => String::from_utf8_lossy(value),
        };
        match data {
            Some(data) => {
                data.push('\n');
                data.push_str(&value);
            }
            None => *data = Some(value.into_owned()),
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    const BODY: &str = ": keep-alive comment\n\
        data: {\"a\":1}\n\
        \n\
        event: message\n\
        id: 7\n\
        data: {\"b\":\n\
        data: \"é✓\"}\n\
        \n\
        data:no-space\n\
        \n\
        data: [DONE]\n\
        \n";

    fn expected() -> Vec<String> {
        vec![
            "{\"a\":1}".to_owned(),
            "{\"b\":\n\"é✓\"}".to_owned(),
            "no-space".to_owned(),
            "[DONE]".to_owned(),
        ]
    }

    fn parse_in_pieces(body: &[u8], cuts: &[usize]) -> Vec<String> {
        let mut parser = SseParser::new();
        let mut events = Vec::new();
        let mut start = 0;
        for &cut in cuts.iter().chain(std::iter::once(&body.len())) {
            events.extend(parser.push(&body[start..cut]));
            start = cut;
        }
        events.extend(parser.finish());
        events
    }

    #[test]
    fn whole_body() {
        assert_eq!(parse_in_pieces(BODY.as_bytes(), &[]), expected());
    }

    #[test]
    fn every_single_cut_and_every_pair_of_cuts() {
        let body = BODY.as_bytes();
        for i in 0..=body.len() {
            assert_eq!(parse_in_pieces(body, &[i]), expected(), "cut at {i}");
            for j in i..=body.len() {
                assert_eq!(
                    parse_in_pieces(body, &[i, j]),
                    expected(),
                    "cuts at {i},{j}"
                );
            }
        }
    }

    #[test]
    fn byte_by_byte() {
        let body = BODY.as_bytes();
        let cuts: Vec<usize> = (1..body.len()).collect();
        assert_eq!(parse_in_pieces(body, &cuts), expected());
    }

    #[test]
    fn crlf_and_lone_cr_line_endings() {
        for eol in ["\r\n", "\r"] {
            let body = BODY.replace('\n', eol);
            let body = body.as_bytes();
            for i in 0..=body.len() {
                assert_eq!(
                    parse_in_pieces(body, &[i]),
                    expected(),
                    "{eol:?} cut at {i}"
                );
            }
        }
    }

    #[test]
    fn last_event_without_blank_line() {
        assert_eq!(
            parse_in_pieces(b"data: x\n\ndata: [DONE]\n", &[]),
            ["x", "[DONE]"]
        );
        assert_eq!(parse_in_pieces(b"data: [DONE]", &[]), ["[DONE]"]);
    }

    #[test]
    fn invalid_utf8_is_read_with_replacement_characters() {
        let body = b"data: a\xffb\n\ndata: ok\n\n";
        for i in 0..=body.len() {
            assert_eq!(
                parse_in_pieces(body, &[i]),
                ["a\u{fffd}b", "ok"],
                "cut at {i}"
            );
        }
    }

    #[test]
    fn events_without_data_are_skipped() {
        assert_eq!(
            parse_in_pieces(b"event: ping\n\n: c\n\nretry: 5\n\ndata: y\n\n", &[]),
            ["y"]
        );
    }
}
