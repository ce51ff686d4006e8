//! [`Models`]: the gateway's side of a browser job. The conversation is rendered with the
//! GGUF's own chat template (the llama backend's renderer), counted with its vocabulary,
//! and the tab's raw text is parsed for reasoning and tool calls (the llama backend's parser),
//! so tools work the same on every worker kind and the bill is the gateway's own count.

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::sync::Arc;

use anyhow::Context;
use shoal_gateway::browser::{BrowserJob, BrowserModels, Prompt};
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
        let prompt = v.template.render(request, None).map_err(|e| {
            tracing::warn!(kind = ?e.kind(), "chat template refused a browser job");
            ErrorCode::TemplateError
        })?;
        let prompt_tokens = v.vocab.encode(&prompt, true).len() as u64;
        let room = (v.context as u64).saturating_sub(prompt_tokens);
        if room == 0 {
            return Err(ErrorCode::ContextLengthExceeded);
        }
        // Forced tool choices need the grammar path, which wllama runs unreliably: the tab
        // is asked as for `auto`, and the parser still finds calls.
        let tools = match grammar::tool_mode(request) {
            ToolMode::None => false,
            _ => v.template.supports_tools,
        };
        let in_reasoning = prompt.trim_end().ends_with("<think>");
        let params = PromptParams {
            max_tokens: (request.max_tokens as u64).min(room) as u32,
            temperature: request.temperature,
            top_p: request.top_p,
            seed: request.seed,
            stop: request
                .stop
                .as_ref()
                .map(|s| s.as_slice().to_vec())
                .unwrap_or_default(),
        };
        let job = Job {
            vocab: v.vocab.clone(),
            parser: OutputParser::new(tools, in_reasoning),
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
}

impl BrowserJob for Job {
    fn push(&mut self, text: &str) -> Vec<JobEvent> {
        self.answer.push_str(text);
        let deltas = self.parser.push(text);
        self.events(deltas)
    }

    fn finish(&mut self) -> (Vec<JobEvent>, JobUsage, bool) {
        let deltas = self.parser.finish();
        let events = self.events(deltas);
        let completion = self.vocab.count(&self.answer);
        let usage = JobUsage {
            prompt_tokens: self.prompt_tokens,
            completion_tokens: completion,
            reasoning_tokens: self.vocab.count(&self.reasoning).min(completion),
        };
        (events, usage, self.parser.tool_calls() > 0)
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
        events.extend(tail);
        let (content, calls) = text_of(&events);
        assert!(tools, "the call was not recognised");
        assert_eq!((content.trim(), calls), ("", 1));
        assert_eq!(usage.completion_tokens, m.variants["4b"].count(said));
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
}
