//! Turns a model's raw text, as it is sampled, into protocol deltas: content, reasoning
//! (`<think>…</think>`) and tool calls in the formats of the model families we target:
//!
//! - Hermes / Qwen: `<tool_call>{"name": …, "arguments": {…}}</tool_call>` (any number);
//! - Llama 3: the whole reply is `{"name": …, "parameters": {…}}` (optionally after
//!   `<|python_tag|>`, several separated by `;`);
//! - Gemma: a fenced block ```` ```tool_code\nname(arg=value, …)\n``` ```` (or a `json` fence
//!   holding the Llama-3 style object).
//!
//! A marker split across tokens is held back until it is complete, so no delta ever carries
//! half a `<tool_call>`. A call whose body does not parse is given back as content: nothing the
//! model wrote is lost. Text never reaches a log.

use serde_json::{Map, Value};
use shoal_protocol::chat::{FunctionCallDelta, ToolCallDelta, ToolType};

use crate::backend::Delta;

const THINK_OPEN: &str = "<think>";
const THINK_CLOSE: &str = "</think>";
const HERMES_OPEN: &str = "<tool_call>";
const HERMES_CLOSE: &str = "</tool_call>";
const PYTHON_TAG: &str = "<|python_tag|>";
const FENCE_TOOL_CODE: &str = "```tool_code";
const FENCE_JSON_CALL: &str = "```tool_call";
const FENCE_CLOSE: &str = "```";

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Mode {
    /// Plain text: content.
    Content,
    /// Between `<think>` and `</think>`.
    Reasoning,
    /// Inside a `<tool_call>` (or a tool fence): buffered until its end.
    Call(CallFormat),
    /// The reply began like a bare JSON tool call (Llama 3): buffered to the end.
    BareJson,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum CallFormat {
    Hermes,
    GemmaCode,
    FencedJson,
}

/// Incremental parser for one completion.
#[derive(Debug)]
pub struct OutputParser {
    tools: bool,
    mode: Mode,
    /// Text not yet emitted (a possible marker prefix, or a call body).
    pending: String,
    /// Whether anything but whitespace has been emitted as content yet.
    started: bool,
    calls: u32,
    call_ids: String,
    /// A tool call just ended: whitespace after it is not content.
    after_call: bool,
    /// The content is JSON a grammar wrote (`response_format`): once it starts it is taken
    /// as it is, so that a `<think>` or `<tool_call>` inside a JSON string stays text.
    json_answer: bool,
}

impl OutputParser {
    /// `tools`: whether the request offered tools (tool-call syntax is only looked for then).
    /// `in_reasoning`: the prompt already opened a `<think>` block.
    pub fn new(tools: bool, in_reasoning: bool) -> Self {
        Self {
            tools,
            mode: if in_reasoning {
                Mode::Reasoning
            } else {
                Mode::Content
            },
            pending: String::new(),
            started: false,
            calls: 0,
            call_ids: random_suffix(),
            after_call: false,
            json_answer: false,
        }
    }

    /// The parser for a job whose grammar is `grammar` (see [`super::grammar::JobGrammar`]).
    pub fn for_job(
        tools: bool,
        in_reasoning: bool,
        grammar: Option<&super::grammar::JobGrammar>,
    ) -> Self {
        let mut parser = Self::new(tools, in_reasoning);
        parser.json_answer = grammar.is_some_and(|g| g.json_answer);
        parser
    }

    /// How many tool calls were emitted.
    pub fn tool_calls(&self) -> u32 {
        self.calls
    }

    /// Whether text pushed now would be reasoning.
    pub fn in_reasoning(&self) -> bool {
        self.mode == Mode::Reasoning
    }

    /// Feeds newly sampled text; returns what can be emitted now.
    pub fn push(&mut self, text: &str) -> Vec<Delta> {
        self.pending.push_str(text);
        let mut out = Vec::new();
        self.drain(&mut out, false);
        out
    }

    /// The completion ended: flushes everything held back.
    pub fn finish(&mut self) -> Vec<Delta> {
        let mut out = Vec::new();
        self.drain(&mut out, true);
        match self.mode {
            Mode::Call(_) | Mode::BareJson => {
                let body = std::mem::take(&mut self.pending);
                let format = match self.mode {
                    Mode::Call(f) => Some(f),
                    _ => None,
                };
                self.mode = Mode::Content;
                self.close_call(format, &body, &mut out, true);
            }
            Mode::Content | Mode::Reasoning => {
                let rest = std::mem::take(&mut self.pending);
                self.emit_text(&rest, &mut out);
            }
        }
        merge(out)
    }

    /// Parses what is pending as far as it can; `at_end`: nothing more will come.
    fn drain(&mut self, out: &mut Vec<Delta>, at_end: bool) {
        loop {
            let parse_on = match self.mode {
                Mode::Content if self.json_answer => self.json_opener(out, at_end),
                Mode::Content => self.content(out, at_end),
                Mode::Reasoning => self.reasoning(out, at_end),
                Mode::Call(format) => self.call_end(format, out),
                Mode::BareJson => false,
            };
            if !parse_on {
                return;
            }
        }
    }

    /// Content up to the next marker (reasoning, a tool call), or as far as no marker may be
    /// starting. `true`: the mode changed, parse on.
    fn content(&mut self, out: &mut Vec<Delta>, at_end: bool) -> bool {
        if self.tools && !self.started {
            if let Some(parse_on) = self.bare_json_opener(at_end) {
                return parse_on;
            }
        }
        let mut markers = vec![THINK_OPEN];
        if self.tools {
            markers.extend([HERMES_OPEN, FENCE_TOOL_CODE, FENCE_JSON_CALL, "```json"]);
        }
        let Some((at, marker)) = find_first(&self.pending, &markers) else {
            self.emit_unless_marker(&markers, out, at_end);
            return false;
        };
        let before = self.pending[..at].to_owned();
        self.pending.drain(..at + marker.len());
        self.emit_text(&before, out);
        self.mode = match marker {
            THINK_OPEN => Mode::Reasoning,
            HERMES_OPEN => Mode::Call(CallFormat::Hermes),
            FENCE_TOOL_CODE => Mode::Call(CallFormat::GemmaCode),
            // A JSON fence is a call only if its object parses as one: decided at the
            // closing fence.
            _ => Mode::Call(CallFormat::FencedJson),
        };
        true
    }

    /// The start of a reply when tools were offered: one that opens with `{` (after an
    /// optional `<|python_tag|>`) is a bare JSON call. `Some(parse_on)` when that decided the
    /// step (`false`: wait for more), `None` when the reply is read as content.
    fn bare_json_opener(&mut self, at_end: bool) -> Option<bool> {
        let trimmed = self.pending.trim_start();
        if trimmed.is_empty() {
            return Some(false);
        }
        let bare = trimmed.strip_prefix(PYTHON_TAG).unwrap_or(trimmed);
        if bare.starts_with('{') {
            self.pending = bare.to_owned();
            self.mode = Mode::BareJson;
            return Some(true);
        }
        if !at_end && PYTHON_TAG.starts_with(trimmed) {
            return Some(false);
        }
        None
    }

    /// Reasoning up to `</think>`, or as far as it may not be starting. `true`: the
    /// reasoning ended, parse on.
    fn reasoning(&mut self, out: &mut Vec<Delta>, at_end: bool) -> bool {
        let Some(at) = self.pending.find(THINK_CLOSE) else {
            self.emit_unless_marker(&[THINK_CLOSE], out, at_end);
            return false;
        };
        let text = self.pending[..at].to_owned();
        self.pending.drain(..at + THINK_CLOSE.len());
        self.emit_text(&text, out);
        self.mode = Mode::Content;
        // The answer after the reasoning starts afresh.
        let rest = self.pending.trim_start().to_owned();
        self.pending = rest;
        true
    }

    /// Emits what is pending but a tail that may be the start of one of `markers` (all of it
    /// `at_end`).
    fn emit_unless_marker(&mut self, markers: &[&str], out: &mut Vec<Delta>, at_end: bool) {
        let keep = if at_end {
            0
        } else {
            partial_marker_len(&self.pending, markers)
        };
        let cut = self.pending.len() - keep;
        let text = self.pending[..cut].to_owned();
        self.pending.drain(..cut);
        self.emit_text(&text, out);
    }

    /// A call in `format` once its closing marker is there. `true`: it closed, parse on.
    fn call_end(&mut self, format: CallFormat, out: &mut Vec<Delta>) -> bool {
        let close = match format {
            CallFormat::Hermes => HERMES_CLOSE,
            CallFormat::GemmaCode | CallFormat::FencedJson => FENCE_CLOSE,
        };
        let Some(at) = self.pending.find(close) else {
            return false;
        };
        let body = self.pending[..at].to_owned();
        self.pending.drain(..at + close.len());
        self.mode = Mode::Content;
        self.close_call(Some(format), &body, out, false);
        true
    }

    /// Content under a JSON grammar: a reply that opens with reasoning or (tools offered) a
    /// Hermes call is parsed as such; anything else is the JSON, emitted as it is. `true`: the
    /// mode changed, parse on.
    fn json_opener(&mut self, out: &mut Vec<Delta>, at_end: bool) -> bool {
        if !self.started {
            let trimmed = self.pending.trim_start();
            let openers: &[&str] = if self.tools {
                &[THINK_OPEN, HERMES_OPEN]
            } else {
                &[THINK_OPEN]
            };
            if let Some(opener) = openers.iter().find(|o| trimmed.starts_with(**o)) {
                self.pending = trimmed[opener.len()..].to_owned();
                self.mode = match *opener {
                    THINK_OPEN => Mode::Reasoning,
                    _ => Mode::Call(CallFormat::Hermes),
                };
                return true;
            }
            let maybe = trimmed.is_empty() || openers.iter().any(|o| o.starts_with(trimmed));
            if maybe && !at_end {
                return false;
            }
        }
        let text = std::mem::take(&mut self.pending);
        self.emit_text(&text, out);
        false
    }

    /// A call's body is complete: emit it as tool calls, or as the text it was.
    fn close_call(
        &mut self,
        format: Option<CallFormat>,
        body: &str,
        out: &mut Vec<Delta>,
        at_end: bool,
    ) {
        let calls = match format {
            Some(CallFormat::Hermes) => parse_json_calls(body),
            Some(CallFormat::GemmaCode) => parse_python_calls(body),
            Some(CallFormat::FencedJson) | None => parse_json_calls(body),
        };
        match calls {
            Some(calls) if !calls.is_empty() => {
                for (name, arguments) in calls {
                    let delta = self.call_delta(name, arguments);
                    out.push(delta);
                }
                self.after_call = true;
            }
            _ => {
                let text = match format {
                    Some(CallFormat::Hermes) => {
                        let close = if at_end { "" } else { HERMES_CLOSE };
                        format!("{HERMES_OPEN}{body}{close}")
                    }
                    Some(CallFormat::GemmaCode) => {
                        let close = if at_end { "" } else { FENCE_CLOSE };
                        format!("{FENCE_TOOL_CODE}{body}{close}")
                    }
                    Some(CallFormat::FencedJson) => {
                        let close = if at_end { "" } else { FENCE_CLOSE };
                        format!("```json{body}{close}")
                    }
                    None => body.to_owned(),
                };
                self.emit_text(&text, out);
            }
        }
    }

    fn call_delta(&mut self, name: String, arguments: String) -> Delta {
        let index = self.calls;
        self.calls += 1;
        Delta {
            tool_calls: Some(vec![ToolCallDelta {
                index,
                id: Some(format!("call_{}{index}", self.call_ids)),
                r#type: Some(ToolType::Function),
                function: Some(FunctionCallDelta {
                    name: Some(name),
                    arguments: Some(arguments),
                }),
            }]),
            ..Delta::default()
        }
    }

    fn emit_text(&mut self, text: &str, out: &mut Vec<Delta>) {
        if text.is_empty() {
            return;
        }
        if self.mode == Mode::Reasoning {
            out.push(Delta {
                reasoning: Some(text.to_owned()),
                ..Delta::default()
            });
        } else {
            // Whitespace before the answer (after a tool call or reasoning) is not content.
            let text = if self.started && !self.after_call {
                text
            } else {
                text.trim_start()
            };
            if text.is_empty() {
                return;
            }
            self.started = true;
            self.after_call = false;
            out.push(Delta {
                content: Some(text.to_owned()),
                ..Delta::default()
            });
        }
    }
}

/// Joins neighbouring deltas of the same kind (what `finish` flushes at once).
fn merge(deltas: Vec<Delta>) -> Vec<Delta> {
    let mut out: Vec<Delta> = Vec::new();
    for d in deltas {
        if let Some(last) = out.last_mut() {
            match (
                &mut last.content,
                &d.content,
                &mut last.reasoning,
                &d.reasoning,
            ) {
                (Some(a), Some(b), None, None)
                    if d.tool_calls.is_none() && last.tool_calls.is_none() =>
                {
                    a.push_str(b);
                    continue;
                }
                (None, None, Some(a), Some(b))
                    if d.tool_calls.is_none() && last.tool_calls.is_none() =>
                {
                    a.push_str(b);
                    continue;
                }
                _ => {}
            }
        }
        out.push(d);
    }
    out
}

fn random_suffix() -> String {
    use rand::Rng;
    let mut rng = rand::rng();
    (0..8)
        .map(|_| char::from(b"abcdefghijklmnopqrstuvwxyz0123456789"[rng.random_range(0..36)]))
        .collect()
}

/// The earliest of `markers` in `text`.
fn find_first<'m>(text: &str, markers: &[&'m str]) -> Option<(usize, &'m str)> {
    markers
        .iter()
        .filter_map(|m| text.find(m).map(|at| (at, *m)))
        .min_by_key(|(at, _)| *at)
}

/// The length of the longest suffix of `text` that is a proper prefix of a marker.
fn partial_marker_len(text: &str, markers: &[&str]) -> usize {
    let mut best = 0;
    for m in markers {
        for len in (1..m.len()).rev() {
            if len <= best {
                break;
            }
            if text.len() >= len
                && text.is_char_boundary(text.len() - len)
                && m.starts_with(&text[text.len() - len..])
            {
                best = len;
                break;
            }
        }
    }
    best
}

/// `{"name": …, "arguments"|"parameters": {…}}`, a list of them, or several separated by `;`
/// or newlines.
fn parse_json_calls(body: &str) -> Option<Vec<(String, String)>> {
    let body = body.trim();
    let body = body.strip_prefix(PYTHON_TAG).unwrap_or(body).trim();
    if body.is_empty() {
        return None;
    }
    let mut calls = Vec::new();
    let stream = serde_json::Deserializer::from_str(body).into_iter::<Value>();
    let mut consumed = 0;
    for value in stream {
        let value = match value {
            Ok(v) => v,
            Err(_) => {
                // Separators between objects (`;`) are skipped below; anything else fails.
                break;
            }
        };
        match value {
            Value::Array(items) => {
                for item in items {
                    calls.push(json_call(item)?);
                }
            }
            other => calls.push(json_call(other)?),
        }
        consumed += 1;
    }
    if consumed == 0 {
        // Maybe `;`-separated objects (Llama 3 parallel calls).
        for part in body.split(';').map(str::trim).filter(|p| !p.is_empty()) {
            calls.push(json_call(serde_json::from_str(part).ok()?)?);
        }
        return Some(calls);
    }
    // Whatever followed the parsed objects must be separators only.
    let mut de = serde_json::Deserializer::from_str(body).into_iter::<Value>();
    let mut offset = 0;
    for _ in 0..consumed {
        de.next();
        offset = de.byte_offset();
    }
    let rest = &body[offset..];
    if rest
        .trim_matches(|c: char| c == ';' || c.is_whitespace())
        .is_empty()
    {
        return Some(calls);
    }
    let mut more = Vec::new();
    for part in rest.split(';').map(str::trim).filter(|p| !p.is_empty()) {
        more.push(json_call(serde_json::from_str(part).ok()?)?);
    }
    calls.extend(more);
    Some(calls)
}

fn json_call(value: Value) -> Option<(String, String)> {
    let Value::Object(mut obj) = value else {
        return None;
    };
    // OpenAI-shaped `{"type":"function","function":{…}}` too.
    if let Some(Value::Object(inner)) = obj.remove("function") {
        obj = inner;
    }
    let name = obj.get("name")?.as_str()?.to_owned();
    let args = obj
        .remove("arguments")
        .or_else(|| obj.remove("parameters"))
        .unwrap_or(Value::Object(Map::new()));
    let arguments = match args {
        // Some models write the arguments as a JSON string already.
        Value::String(s) if serde_json::from_str::<Value>(&s).is_ok() => s,
        other => other.to_string(),
    };
    Some((name, arguments))
}

/// Gemma-style `name(key=value, …)` calls, one per line; values are Python literals.
fn parse_python_calls(body: &str) -> Option<Vec<(String, String)>> {
    let mut calls = Vec::new();
    for line in body.lines().map(str::trim).filter(|l| !l.is_empty()) {
        let line = line
            .strip_prefix("print(")
            .and_then(|l| l.strip_suffix(')'))
            .unwrap_or(line);
        let open = line.find('(')?;
        let name = line[..open].trim();
        if name.is_empty()
            || !name
                .chars()
                .all(|c| c.is_alphanumeric() || "_-.".contains(c))
        {
            return None;
        }
        let inner = line[open + 1..].strip_suffix(')')?;
        let mut args = Map::new();
        let mut p = PyLit { s: inner, i: 0 };
        p.ws();
        while !p.done() {
            let key = p.ident()?;
            p.ws();
            p.eat('=')?;
            p.ws();
            let value = p.value()?;
            args.insert(key, value);
            p.ws();
            if p.done() {
                break;
            }
            p.eat(',')?;
            p.ws();
        }
        calls.push((name.to_owned(), Value::Object(args).to_string()));
    }
    Some(calls)
}

/// A tiny reader of Python literals: strings, numbers, True/False/None, lists, dicts.
struct PyLit<'a> {
    s: &'a str,
    i: usize,
}

impl PyLit<'_> {
    fn done(&self) -> bool {
        self.i >= self.s.len()
    }
    fn peek(&self) -> Option<char> {
        self.s[self.i..].chars().next()
    }
    fn ws(&mut self) {
        while let Some(c) = self.peek() {
            if !c.is_whitespace() {
                break;
            }
            self.i += c.len_utf8();
        }
    }
    fn eat(&mut self, c: char) -> Option<()> {
        (self.peek()? == c).then(|| self.i += c.len_utf8())
    }
    fn ident(&mut self) -> Option<String> {
        let start = self.i;
        while let Some(c) = self.peek() {
            if !(c.is_alphanumeric() || c == '_') {
                break;
            }
            self.i += c.len_utf8();
        }
        (self.i > start).then(|| self.s[start..self.i].to_owned())
    }
    fn value(&mut self) -> Option<Value> {
        match self.peek()? {
            q @ ('"' | '\'') => self.string(q).map(Value::String),
            '[' => self.list(),
            '{' => self.dict(),
            _ => self.word(),
        }
    }

    /// A string quoted with `q`, at its opening quote.
    fn string(&mut self, q: char) -> Option<String> {
        self.i += 1;
        let mut out = String::new();
        loop {
            let c = self.peek()?;
            self.i += c.len_utf8();
            match c {
                '\\' => {
                    let e = self.peek()?;
                    self.i += e.len_utf8();
                    out.push(match e {
                        'n' => '\n',
                        't' => '\t',
                        other => other,
                    });
                }
                c if c == q => break,
                c => out.push(c),
            }
        }
        Some(out)
    }

    /// A list, at its `[`.
    fn list(&mut self) -> Option<Value> {
        let mut items = Vec::new();
        self.items(']', |p| {
            items.push(p.value()?);
            Some(())
        })?;
        Some(Value::Array(items))
    }

    /// A dict with string keys, at its `{`.
    fn dict(&mut self) -> Option<Value> {
        let mut map = Map::new();
        self.items('}', |p| {
            let Value::String(key) = p.value()? else {
                return None;
            };
            p.ws();
            p.eat(':')?;
            p.ws();
            map.insert(key, p.value()?);
            Some(())
        })?;
        Some(Value::Object(map))
    }

    /// Items separated by commas (a trailing one allowed) up to `close`, each read by `item`,
    /// from the opening bracket on.
    fn items(&mut self, close: char, mut item: impl FnMut(&mut Self) -> Option<()>) -> Option<()> {
        self.i += 1;
        loop {
            self.ws();
            if self.eat(close).is_some() {
                return Some(());
            }
            item(self)?;
            self.ws();
            if self.eat(',').is_none() {
                self.ws();
                return self.eat(close);
            }
        }
    }

    /// A bare word: a boolean, `None` or a number.
    fn word(&mut self) -> Option<Value> {
        let start = self.i;
        while let Some(c) = self.peek() {
            if c == ',' || c == ')' || c == ']' || c == '}' || c.is_whitespace() {
                break;
            }
            self.i += c.len_utf8();
        }
        let word = &self.s[start..self.i];
        match word {
            "True" | "true" => Some(Value::Bool(true)),
            "False" | "false" => Some(Value::Bool(false)),
            "None" | "null" => Some(Value::Null),
            _ => serde_json::from_str::<serde_json::Number>(word)
                .ok()
                .map(Value::Number),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// What a whole output turns into, fed in pieces of `step` bytes (0: at once).
    fn run(tools: bool, text: &str, step: usize) -> (String, String, Vec<(u32, String, Value)>) {
        parse(OutputParser::new(tools, false), text, step)
    }

    fn parse(
        mut p: OutputParser,
        text: &str,
        step: usize,
    ) -> (String, String, Vec<(u32, String, Value)>) {
        let mut deltas = Vec::new();
        if step == 0 {
            deltas.extend(p.push(text));
        } else {
            let chars: Vec<char> = text.chars().collect();
            for chunk in chars.chunks(step) {
                deltas.extend(p.push(&chunk.iter().collect::<String>()));
            }
        }
        deltas.extend(p.finish());
        let mut content = String::new();
        let mut reasoning = String::new();
        let mut calls = Vec::new();
        for d in deltas {
            assert!(!d.is_empty());
            if let Some(c) = d.content {
                content.push_str(&c);
            }
            if let Some(r) = d.reasoning {
                reasoning.push_str(&r);
            }
            for c in d.tool_calls.unwrap_or_default() {
                let f = c.function.unwrap();
                assert!(c.id.is_some());
                calls.push((
                    c.index,
                    f.name.unwrap(),
                    serde_json::from_str(&f.arguments.unwrap()).unwrap(),
                ));
            }
        }
        (content, reasoning, calls)
    }

    /// Every case, whole and streamed one and three characters at a time, gives the same.
    fn check(tools: bool, text: &str, content: &str, reasoning: &str, calls: &[(&str, Value)]) {
        for step in [0, 1, 3, 7] {
            let (c, r, k) = run(tools, text, step);
            assert_eq!(c, content, "content, step {step}: {text:?}");
            assert_eq!(r, reasoning, "reasoning, step {step}: {text:?}");
            let want: Vec<(u32, String, Value)> = calls
                .iter()
                .enumerate()
                .map(|(i, (n, a))| (i as u32, (*n).to_owned(), a.clone()))
                .collect();
            assert_eq!(k, want, "calls, step {step}: {text:?}");
        }
    }

    use serde_json::json;

    #[test]
    fn plain_text_passes_through() {
        check(
            true,
            "Hello, world! 1 < 2 and a <b>tag</b>.",
            "Hello, world! 1 < 2 and a <b>tag</b>.",
            "",
            &[],
        );
        check(false, "{\"name\": \"x\"}", "{\"name\": \"x\"}", "", &[]);
    }

    #[test]
    fn reasoning_goes_to_reasoning() {
        check(
            false,
            "<think>\nThe user wants a greeting.\n</think>\n\nHello!",
            "Hello!",
            "\nThe user wants a greeting.\n",
            &[],
        );
        let mut p = OutputParser::new(false, true);
        let mut d = p.push("already thinking</think>answer");
        d.extend(p.finish());
        assert_eq!(d[0].reasoning.as_deref(), Some("already thinking"));
        assert_eq!(d[1].content.as_deref(), Some("answer"));
    }

    #[test]
    fn hermes_qwen_tool_calls() {
        // Recorded Qwen2.5-7B-Instruct output.
        check(
            true,
            "<tool_call>\n{\"name\": \"get_weather\", \"arguments\": {\"city\": \"Paris\", \"unit\": \"celsius\"}}\n</tool_call>",
            "",
            "",
            &[("get_weather", json!({"city": "Paris", "unit": "celsius"}))],
        );
        // Two calls, text before, Qwen3-style reasoning first.
        check(
            true,
            "<think>\nNeed both cities.\n</think>\n\nLet me check.\n<tool_call>\n{\"name\": \"get_weather\", \"arguments\": {\"city\": \"Paris\"}}\n</tool_call>\n<tool_call>\n{\"name\": \"get_weather\", \"arguments\": {\"city\": \"Oslo\"}}\n</tool_call>",
            "Let me check.\n",
            "\nNeed both cities.\n",
            &[
                ("get_weather", json!({"city": "Paris"})),
                ("get_weather", json!({"city": "Oslo"})),
            ],
        );
    }

    #[test]
    fn a_broken_call_is_kept_as_text() {
        check(
            true,
            "<tool_call>\n{\"name\": \"get_weather\", \"argu",
            "<tool_call>\n{\"name\": \"get_weather\", \"argu",
            "",
            &[],
        );
        check(
            true,
            "<tool_call>not json</tool_call> ok",
            "<tool_call>not json</tool_call> ok",
            "",
            &[],
        );
    }

    #[test]
    fn llama3_json_tool_calls() {
        // Recorded Llama-3.1-8B-Instruct output.
        check(
            true,
            "{\"name\": \"get_weather\", \"parameters\": {\"city\": \"San Francisco\"}}",
            "",
            "",
            &[("get_weather", json!({"city": "San Francisco"}))],
        );
        check(
            true,
            "<|python_tag|>{\"name\": \"a\", \"parameters\": {}}; {\"name\": \"b\", \"parameters\": {\"x\": 1}}",
            "",
            "",
            &[("a", json!({})), ("b", json!({"x": 1}))],
        );
        // JSON that is not a call is content.
        check(true, "{\"answer\": 42}", "{\"answer\": 42}", "", &[]);
    }

    #[test]
    fn python_literals_in_tool_code() {
        let calls = parse_python_calls(
            r#"f(a=[1, 'x', [True, None],], b={'k': {"n": -2.5}, 'e': [],}, c="q\"\n")"#,
        )
        .unwrap();
        assert_eq!(calls.len(), 1);
        assert_eq!(calls[0].0, "f");
        let args: Value = serde_json::from_str(&calls[0].1).unwrap();
        assert_eq!(
            args,
            json!({"a": [1, "x", [true, null]], "b": {"k": {"n": -2.5}, "e": []}, "c": "q\"\n"})
        );
        for bad in [
            "f(a=[1 2])",
            "f(a={1: 2})",
            "f(a={'k' 1})",
            "f(a=[1,)",
            "f(a='x)",
        ] {
            assert!(parse_python_calls(bad).is_none(), "{bad}");
        }
    }

    #[test]
    fn gemma_tool_code_calls() {
        // Recorded Gemma-3-27B-it output with the tool_code prompt.
        check(
            true,
            "```tool_code\nget_weather(city=\"Paris\", days=3, metric=True)\n```",
            "",
            "",
            &[(
                "get_weather",
                json!({"city": "Paris", "days": 3, "metric": true}),
            )],
        );
        check(
            true,
            "I'll look.\n```tool_call\n{\"name\": \"search\", \"arguments\": {\"q\": \"rust\"}}\n```",
            "I'll look.\n",
            "",
            &[("search", json!({"q": "rust"}))],
        );
        // A json fence that is not a call stays content.
        check(
            true,
            "```json\n{\"a\": 1}\n```",
            "```json\n{\"a\": 1}\n```",
            "",
            &[],
        );
    }

    #[test]
    fn markers_split_across_pieces_are_held_back() {
        let mut p = OutputParser::new(true, false);
        assert_eq!(
            p.push("Hi <tool").len(),
            1,
            "the text before the possible marker goes"
        );
        assert!(p.push("_ca").is_empty());
        assert!(p.push("ll>{\"name\":\"f\",\"arguments\":{}}").is_empty());
        let d = p.push("</tool_call>");
        assert_eq!(d.len(), 1);
        assert_eq!(d[0].tool_calls.as_ref().unwrap()[0].index, 0);
        assert_eq!(p.tool_calls(), 1);
    }

    #[test]
    fn a_json_answer_is_taken_as_it_is() {
        let grammar = crate::llama::grammar::JobGrammar {
            gbnf: String::new(),
            trigger: None,
            json_answer: true,
        };
        let json = r#"{"a": "<think>x</think> <tool_call>", "b": "```json"}"#;
        for step in [0, 1, 3] {
            let parser = |tools| OutputParser::for_job(tools, false, Some(&grammar));
            let (content, reasoning, calls) = parse(parser(true), json, step);
            assert_eq!(
                (content.as_str(), reasoning.as_str()),
                (json, ""),
                "step {step}"
            );
            assert!(calls.is_empty());
            // Reasoning first, then the JSON.
            let text = format!("<think>hm</think>\n{json}");
            let (content, reasoning, _) = parse(parser(false), &text, step);
            assert_eq!(
                (content.as_str(), reasoning.as_str()),
                (json, "hm"),
                "step {step}"
            );
            // With tools offered, a reply that opens with a call is the call.
            let call = "<tool_call>\n{\"name\": \"f\", \"arguments\": {}}\n</tool_call>";
            let (content, _, calls) = parse(parser(true), call, step);
            assert_eq!((content.as_str(), calls.len()), ("", 1), "step {step}");
        }
    }
}
