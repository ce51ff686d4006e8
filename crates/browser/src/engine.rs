//! [`Models`]: the gateway's side of a browser job. The conversation is rendered with the
//! GGUF's own chat template (the llama backend's renderer), counted with its vocabulary,
//! and the tab's raw text is parsed for reasoning and tool calls (the llama backend's parser),
//! so tools work the same on every worker kind and the bill is the gateway's own count.

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::sync::Arc;

use crate::{BrowserJob, BrowserModels, Prompt};
use anyhow::Context;
use shoal_gateway::pool::JobEvent;
use shoal_protocol::worker::{ErrorCode, JobRequest, JobUsage, PromptParams};
use shoal_worker::llama::grammar::{self, ToolMode};
use shoal_worker::llama::output::OutputParser;
use shoal_worker::llama::template::ChatTemplate;

use crate::gguf::{read_metadata, Meta};
use crate::vocab::Vocab;

/// The most context a tab is asked to hold, whatever the file allows (browser memory).
pub const MAX_TAB_CONTEXT: u32 = 4096;

/// One model file a tab can load.
pub struct Variant {
    pub path: PathBuf,
    pub bytes: u64,
    pub context: u32,
    vocab: Arc<Vocab>,
    template: ChatTemplate,
}

impl Variant {
    pub fn open(path: PathBuf) -> anyhow::Result<Self> {
        let meta = read_metadata(&path)?;
        let vocab = Vocab::from_meta(&meta).with_context(|| format!("{}", path.display()))?;
        let Some(Meta::Str(source)) = meta.get("tokenizer.chat_template") else {
            anyhow::bail!("{} has no chat template", path.display());
        };
        let template = ChatTemplate::new(source, vocab.bos.clone(), vocab.eos.clone())?;
        let arch = match meta.get("general.architecture") {
            Some(Meta::Str(a)) => a.clone(),
            _ => String::new(),
        };
        let trained = match meta.get(&format!("{arch}.context_length")) {
            Some(Meta::Int(n)) => (*n).clamp(256, u32::MAX as i64) as u32,
            _ => MAX_TAB_CONTEXT,
        };
        Ok(Self {
            bytes: std::fs::metadata(&path)?.len(),
            path,
            context: trained.min(MAX_TAB_CONTEXT),
            vocab: Arc::new(vocab),
            template,
        })
    }

    /// Tokens a tab must never sample (see [`Vocab::broken_tokens`]).
    pub fn banned_tokens(&self) -> Vec<u32> {
        self.vocab.broken_tokens()
    }

    /// The token count of `text` under this file's vocabulary (as a prompt: specials parsed).
    pub fn count(&self, text: &str) -> u64 {
        self.vocab.count(text)
    }
}

/// The configured model files by variant name (`4b`, `9b`).
pub struct Models {
    pub model: String,
    pub variants: BTreeMap<String, Variant>,
}

impl Models {
    fn render(
        &self,
        v: &Variant,
        request: &JobRequest,
    ) -> Result<(Prompt, Box<dyn BrowserJob>), ErrorCode> {
        let mut prompt = v.template.render(request, None).map_err(|e| {
            tracing::warn!(kind = ?e.kind(), "chat template refused a browser job");
            ErrorCode::TemplateError
        })?;
        // A forced call is opened in the prompt and checked at the end instead.
        let grammar = match grammar::tool_mode(request) {
            ToolMode::Forced(_) => None,
            _ => {
                (grammar::plan(request, v.template.traits(), &prompt))
                    .map_err(|_| ErrorCode::InvalidRequest)?
                    .grammar
            }
        };
        let (parser, forced) = answer_parser(v, request, &mut prompt, grammar.as_ref());
        let prompt_tokens = v.vocab.encode(&prompt, true).len() as u64;
        let room = (v.context as u64).saturating_sub(prompt_tokens);
        if room == 0 {
            return Err(ErrorCode::ContextLengthExceeded);
        }
        let params = PromptParams {
            max_tokens: (request.max_tokens as u64).min(room) as u32,
            temperature: request.temperature,
            top_p: request.top_p,
            seed: request.seed,
            // A grammar that holds from the first token decides the end (see `JobGrammar`).
            stop: match (&request.stop, &grammar) {
                (Some(stop), g) if !g.as_ref().is_some_and(|g| g.decides_end()) => {
                    stop.as_slice().to_vec()
                }
                _ => Vec::new(),
            },
            grammar_trigger: grammar.as_ref().and_then(|g| g.trigger.clone()),
            grammar: grammar.map(|g| g.gbnf),
        };
        let job = Job {
            vocab: v.vocab.clone(),
            parser,
            forced,
            held: Vec::new(),
            prompt_tokens,
            answer: String::new(),
            reasoning: String::new(),
        };
        Ok((
            Prompt {
                text: prompt,
                params,
            },
            Box::new(job),
        ))
    }
}

/// The parser for a job's answer, and for a forced `tool_choice` the names it may call.
///
/// A forced choice is not constrained in the tab: where the template asks for Hermes calls
/// the prompt ends with the call's opening (the named function's, or `{"name": "` for
/// `required`), and the gateway checks the answer ([`Job::finish`]). Other jobs carry the
/// grammar [`grammar::plan`] chose, which wllama's llama.cpp sampler follows.
fn answer_parser(
    v: &Variant,
    request: &JobRequest,
    prompt: &mut String,
    grammar: Option<&grammar::JobGrammar>,
) -> (OutputParser, Option<Vec<String>>) {
    let (tools, forced) = match grammar::tool_mode(request) {
        ToolMode::None => (false, None),
        ToolMode::Auto => (v.template.supports_tools, None),
        ToolMode::Forced(chosen) => {
            let names: Vec<String> = chosen.iter().map(|t| t.function.name.clone()).collect();
            (v.template.supports_tools, Some(names))
        }
    };
    let in_reasoning = prompt.trim_end().ends_with("<think>");
    let mut parser = OutputParser::for_job(tools, in_reasoning, grammar);
    let opening = match &forced {
        Some(names) if tools && !in_reasoning && prompt.contains(HERMES_OPEN) => {
            call_opening(names)
        }
        _ => String::new(),
    };
    // The opening is the prompt's (and counted there); the parser reads it as the answer's
    // start, so that the call it opens is parsed whole. A call is held back until its end.
    prompt.push_str(&opening);
    drop(parser.push(&opening));
    (parser, forced)
}

const HERMES_OPEN: &str = "<tool_call>";

/// The start of a Hermes call to one of `names`: with its name when there is one choice.
fn call_opening(names: &[String]) -> String {
    match names {
        [one] => {
            let name = serde_json::Value::from(one.as_str());
            format!("{HERMES_OPEN}\n{{\"name\": {name}, \"arguments\": ")
        }
        _ => format!("{HERMES_OPEN}\n{{\"name\": \""),
    }
}

impl BrowserModels for Models {
    fn knows(&self, variant: &str) -> bool {
        self.variants.contains_key(variant)
    }

    fn start(
        &self,
        variant: &str,
        request: &JobRequest,
    ) -> Result<(Prompt, Box<dyn BrowserJob>), ErrorCode> {
        let v = self
            .variants
            .get(variant)
            .ok_or(ErrorCode::ModelNotServed)?;
        self.render(v, request)
    }

    fn routes(&self) -> axum::Router {
        crate::web::routes(self)
    }
}

struct Job {
    vocab: Arc<Vocab>,
    parser: OutputParser,
    /// For a forced `tool_choice`: the functions the answer must call. Its events are held
    /// until the answer is checked.
    forced: Option<Vec<String>>,
    held: Vec<JobEvent>,
    prompt_tokens: u64,
    /// Everything the tab generated, as it sent it.
    answer: String,
    /// The part of it the parser read as reasoning.
    reasoning: String,
}

impl Job {
    fn events(&mut self, deltas: Vec<shoal_worker::backend::Delta>) -> Vec<JobEvent> {
        deltas
            .into_iter()
            .map(|d| {
                if let Some(r) = &d.reasoning {
                    self.reasoning.push_str(r);
                }
                JobEvent::Delta {
                    content: d.content,
                    reasoning: d.reasoning,
                    tool_calls: d.tool_calls,
                }
            })
            .collect()
    }

    /// Whether the held answer obeys the forced `tool_choice`: at least one call, and only
    /// of the functions allowed.
    fn obeys(&self, allowed: &[String]) -> bool {
        let mut names = (self.held.iter())
            .filter_map(|e| match e {
                JobEvent::Delta {
                    tool_calls: Some(calls),
                    ..
                } => Some(calls),
                _ => None,
            })
            .flatten()
            .filter_map(|c| c.function.as_ref()?.name.as_deref())
            .peekable();
        names.peek().is_some() && names.all(|n| allowed.iter().any(|a| a == n))
    }
}

impl BrowserJob for Job {
    fn push(&mut self, text: &str) -> Vec<JobEvent> {
        self.answer.push_str(text);
        let deltas = self.parser.push(text);
        let events = self.events(deltas);
        if self.forced.is_some() {
            self.held.extend(events);
            return Vec::new();
        }
        events
    }

    fn finish(&mut self) -> (Result<Vec<JobEvent>, ErrorCode>, JobUsage, bool) {
        let deltas = self.parser.finish();
        let mut events = self.events(deltas);
        let completion = self.vocab.count(&self.answer);
        let usage = JobUsage {
            prompt_tokens: self.prompt_tokens,
            completion_tokens: completion,
            reasoning_tokens: self.vocab.count(&self.reasoning).min(completion),
            cached_tokens: 0,
        };
        let calls = self.parser.tool_calls() > 0;
        if let Some(allowed) = self.forced.take() {
            self.held.append(&mut events);
            if !self.obeys(&allowed) {
                return (Err(ErrorCode::InferenceFailed), usage, false);
            }
            events = std::mem::take(&mut self.held);
        }
        (Ok(events), usage, calls)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn models() -> Models {
        static NEXT: std::sync::atomic::AtomicU32 = std::sync::atomic::AtomicU32::new(0);
        let n = NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        let dir = std::env::temp_dir().join(format!("shoal-browser-{}-{n}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("tiny.gguf");
        shoal_worker::llama::test_model::write(&path, 4096).unwrap();
        let mut variants = BTreeMap::new();
        variants.insert("4b".to_owned(), Variant::open(path).unwrap());
        Models {
            model: "service-pro".into(),
            variants,
        }
    }

    fn request(json: serde_json::Value) -> JobRequest {
        serde_json::from_value(json).unwrap()
    }

    fn text_of(events: &[JobEvent]) -> (String, usize) {
        let mut content = String::new();
        let mut calls = 0;
        for e in events {
            if let JobEvent::Delta {
                content: c,
                tool_calls,
                ..
            } = e
            {
                content.push_str(c.as_deref().unwrap_or(""));
                calls += tool_calls.as_ref().map_or(0, |t| t.len());
            }
        }
        (content, calls)
    }

    #[test]
    fn the_prompt_is_rendered_and_counted_with_the_files_vocabulary() {
        let m = models();
        let req = request(serde_json::json!({
            "messages": [{"role": "user", "content": "Hello there"}], "max_tokens": 50
        }));
        let (prompt, mut job) = m.start("4b", &req).unwrap();
        assert!(
            prompt.text.ends_with("<|im_start|>assistant\n"),
            "{:?}",
            prompt.text
        );
        assert_eq!(prompt.params.max_tokens, 50);
        let v = &m.variants["4b"];
        // ChatML markers are one token each, not their letters.
        for marker in ["<|im_start|>", "<|im_end|>"] {
            assert_eq!(v.vocab.encode(marker, false).len(), 1, "{marker}");
        }
        assert_eq!(
            v.count("<|im_start|>user"),
            1 + v.count("user"),
            "a special token is matched whole, then the text"
        );
        let events = job.push("Tide pools are");
        let (_, usage, tools) = job.finish();
        assert_eq!(text_of(&events).0, "Tide pools are");
        assert_eq!(usage.prompt_tokens, v.count(&prompt.text));
        assert_eq!(usage.completion_tokens, v.count("Tide pools are"));
        assert!(usage.completion_tokens >= 2 && !tools);
    }

    #[test]
    fn tool_calls_in_the_tabs_text_are_parsed_by_the_gateway() {
        let m = models();
        let req = request(serde_json::json!({
            "messages": [{"role": "user", "content": "Weather in Paris?"}], "max_tokens": 200,
            "tools": [{"type": "function", "function": {"name": "get_weather",
                "parameters": {"type": "object", "properties": {"city": {"type": "string"}}}}}]
        }));
        let (prompt, mut job) = m.start("4b", &req).unwrap();
        assert!(prompt.text.contains("get_weather"));
        let said = "<tool_call>\n{\"name\": \"get_weather\", \"arguments\": {\"city\": \"Paris\"}}\n</tool_call>";
        let mut events = Vec::new();
        // As a tab streams it: a few characters at a time.
        for piece in said.as_bytes().chunks(5) {
            events.extend(job.push(std::str::from_utf8(piece).unwrap()));
        }
        let (tail, usage, tools) = job.finish();
        events.extend(tail.unwrap());
        let (content, calls) = text_of(&events);
        assert!(tools, "the call was not recognised");
        assert_eq!((content.trim(), calls), ("", 1));
        assert_eq!(usage.completion_tokens, m.variants["4b"].count(said));
    }

    #[test]
    fn a_structured_request_carries_its_grammar_to_the_tab() {
        let m = models();
        let req = request(serde_json::json!({
            "messages": [{"role": "user", "content": "A number?"}], "max_tokens": 50,
            "stop": ["\""],
            "response_format": {"type": "json_schema", "json_schema": {"name": "n",
                "schema": {"type": "object", "properties": {"n": {"type": "integer"}}, "required": ["n"]}}}
        }));
        let (prompt, _) = m.start("4b", &req).unwrap();
        let grammar = prompt.params.grammar.expect("a grammar");
        assert!(grammar.starts_with("root ::= "), "{grammar}");
        assert!(grammar.contains("\"\\\"n\\\":\""), "{grammar}");
        assert_eq!(prompt.params.grammar_trigger, None);
        assert!(prompt.params.stop.is_empty(), "the grammar decides the end");
        // Plain text: no grammar, the stop strings as asked.
        let plain = request(serde_json::json!({
            "messages": [{"role": "user", "content": "Hi"}], "max_tokens": 50, "stop": ["x"]
        }));
        let (prompt, _) = m.start("4b", &plain).unwrap();
        assert_eq!(
            (prompt.params.grammar, prompt.params.stop),
            (None, vec!["x".to_owned()])
        );
        // A schema outside the subset (a gateway that did not check it) is refused.
        let bad = request(serde_json::json!({
            "messages": [{"role": "user", "content": "Hi"}], "max_tokens": 50,
            "response_format": {"type": "json_schema", "json_schema": {"name": "n",
                "schema": {"type": "string", "pattern": "a"}}}
        }));
        assert_eq!(m.start("4b", &bad).err(), Some(ErrorCode::InvalidRequest));
    }

    #[test]
    fn a_prompt_longer_than_the_context_is_refused() {
        let m = models();
        let long = "word ".repeat(5000);
        let req = request(serde_json::json!({
            "messages": [{"role": "user", "content": long}], "max_tokens": 10
        }));
        assert_eq!(
            m.start("4b", &req).err(),
            Some(ErrorCode::ContextLengthExceeded)
        );
        assert_eq!(m.start("9b", &req).err(), Some(ErrorCode::ModelNotServed));
    }

    fn forced(choice: serde_json::Value) -> JobRequest {
        let tool = |name: &str| {
            serde_json::json!({"type": "function", "function": {"name": name,
                "parameters": {"type": "object", "properties": {"city": {"type": "string"}}}}})
        };
        request(serde_json::json!({
            "messages": [{"role": "user", "content": "Weather in Paris?"}], "max_tokens": 200,
            "tools": [tool("get_weather"), tool("get_time")], "tool_choice": choice
        }))
    }

    /// Streams `said` as a tab would and finishes: (events, usage, tool calls, events
    /// delivered before the finish).
    fn answer(
        job: &mut dyn BrowserJob,
        said: &str,
    ) -> (Result<Vec<JobEvent>, ErrorCode>, JobUsage, usize) {
        let early: usize = (said.as_bytes().chunks(4))
            .map(|piece| job.push(std::str::from_utf8(piece).unwrap()).len())
            .sum();
        let (events, usage, _) = job.finish();
        (events, usage, early)
    }

    #[test]
    fn a_named_tool_choice_opens_the_call_and_checks_the_answer() {
        let m = models();
        let v = &m.variants["4b"];
        let req =
            forced(serde_json::json!({"type": "function", "function": {"name": "get_weather"}}));
        let (prompt, mut job) = m.start("4b", &req).unwrap();
        let opening = "<tool_call>\n{\"name\": \"get_weather\", \"arguments\": ";
        assert!(prompt.text.ends_with(opening), "{:?}", prompt.text);
        let said = "{\"city\": \"Paris\"}}\n</tool_call>";
        let (events, usage, early) = answer(job.as_mut(), said);
        let events = events.expect("a call of the named function is accepted");
        assert_eq!(
            early, 0,
            "nothing is delivered before the answer is checked"
        );
        assert_eq!(text_of(&events).1, 1);
        assert_eq!(usage.prompt_tokens, v.count(&prompt.text));
        assert_eq!(
            usage.completion_tokens,
            v.count(said),
            "the opening is the prompt's"
        );

        // Text instead of the call, or a call the model did not close: refused.
        for said in ["The weather is fine.", "{\"city\": \"Par"] {
            let (_, mut job) = m.start("4b", &req).unwrap();
            let (events, usage, early) = answer(job.as_mut(), said);
            assert_eq!(
                (events.err(), early),
                (Some(ErrorCode::InferenceFailed), 0),
                "{said}"
            );
            assert_eq!(usage.completion_tokens, v.count(said));
        }
    }

    #[test]
    fn required_accepts_any_offered_function_and_nothing_else() {
        let m = models();
        let req = forced(serde_json::json!("required"));
        let (prompt, mut job) = m.start("4b", &req).unwrap();
        assert!(
            prompt.text.ends_with("<tool_call>\n{\"name\": \""),
            "{:?}",
            prompt.text
        );
        let ok = "get_time\", \"arguments\": {\"city\": \"Oslo\"}}\n</tool_call>";
        let (events, _, _) = answer(job.as_mut(), ok);
        let events = events.unwrap();
        let names: Vec<_> = (events.iter())
            .filter_map(|e| match e {
                JobEvent::Delta {
                    tool_calls: Some(c),
                    ..
                } => c[0].function.clone()?.name,
                _ => None,
            })
            .collect();
        assert_eq!(names, ["get_time"]);

        let (_, mut job) = m.start("4b", &req).unwrap();
        let unknown = "delete_all\", \"arguments\": {}}\n</tool_call>";
        assert_eq!(
            answer(job.as_mut(), unknown).0.err(),
            Some(ErrorCode::InferenceFailed)
        );

        // `auto` leaves the prompt alone and lets the answer be text.
        let (prompt, mut job) = m.start("4b", &forced(serde_json::json!("auto"))).unwrap();
        assert!(prompt.text.ends_with("<|im_start|>assistant\n"));
        let (events, _, early) = answer(job.as_mut(), "Sunny.");
        assert!(
            events.is_ok() && early > 0,
            "text under `auto` streams at once"
        );
    }
}
