//! Constrained sampling: the GBNF grammar (llama.cpp's grammar sampler) a job's tokens must
//! follow, chosen once by [`plan`] for every engine that samples.
//!
//! - **Forced tool calls** (`tool_choice` `required` or a named function): nothing but calls,
//!   written the way the model's chat template teaches them:
//!   - Hermes / Qwen (templates that mention `<tool_call>`, and the default):
//!     `<tool_call>\n{"name": "X", "arguments": {…}}\n</tool_call>`, several separated by a
//!     newline unless `parallel_tool_calls` is false;
//!   - Llama 3 (templates with `<|python_tag|>` / `<|eom_id|>`): the whole reply is
//!     `{"name": "X", "parameters": {…}}`.
//! - **Structured outputs** (`response_format` `json_object` or `json_schema`): one JSON value
//!   of the schema and nothing else (no prose, no code fence); with tools offered and
//!   `tool_choice` `auto`, tool calls instead are allowed too.
//! - **Strict tools** under `auto` without a response format: the reply is free until it
//!   opens a Hermes call (`<tool_call>`), then the calls follow the grammar (llama.cpp's lazy
//!   grammar).
//!
//! Arguments and answers follow their JSON Schema as [`shoal_protocol::schema`] reads it: a
//! `strict` tool's schema and a `json_schema` format exactly (the gateway refused what is
//! outside the subset; a job that gets here anyway is refused too), a tool without `strict`
//! as far as the subset goes. JSON is compact: at most one space after `:` and `,`.
//!
//! A template that reasons in `<think>` keeps its reasoning: the grammar allows (or, when the
//! prompt already opened it, requires) a `<think>…</think>` block first.
//!
//! `tool_choice: "none"` needs no grammar: the tools are not rendered into the prompt and the
//! output is not parsed for calls.

mod formats;
mod json;
mod numbers;
mod rules;

use shoal_protocol::chat::{ResponseFormat, Tool, ToolChoice, ToolChoiceMode};
use shoal_protocol::schema::{self, Schema};
use shoal_protocol::worker::JobRequest;

use rules::{literal, Rules};

/// How the model writes a tool call, from its chat template.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ToolFormat {
    Hermes,
    Llama3,
}

impl ToolFormat {
    /// The format the template `source` teaches (Hermes when it does not say).
    pub fn detect(source: &str) -> Self {
        if source.contains("<tool_call>") {
            ToolFormat::Hermes
        } else if source.contains("<|python_tag|>") || source.contains("<|eom_id|>") {
            ToolFormat::Llama3
        } else {
            ToolFormat::Hermes
        }
    }
}

/// What `tool_choice` asks of this request.
#[derive(Debug, PartialEq)]
pub enum ToolMode<'a> {
    /// No tools, or `tool_choice: "none"`: no tools in the prompt, no call parsing.
    None,
    /// The model decides (`auto`, or no `tool_choice`).
    Auto,
    /// The reply must be calls of these tools (`required`: any of them; a named function:
    /// that one).
    Forced(Vec<&'a Tool>),
}

/// The [`ToolMode`] of `request`.
pub fn tool_mode(request: &JobRequest) -> ToolMode<'_> {
    let tools = request.tools.as_deref().unwrap_or_default();
    if tools.is_empty() {
        return ToolMode::None;
    }
    match &request.tool_choice {
        Some(ToolChoice::Mode(ToolChoiceMode::None)) => ToolMode::None,
        Some(ToolChoice::Mode(ToolChoiceMode::Required)) => {
            ToolMode::Forced(tools.iter().collect())
        }
        Some(ToolChoice::Named(named)) => {
            let chosen: Vec<&Tool> = tools
                .iter()
                .filter(|t| t.function.name == named.function.name)
                .collect();
            // The gateway refuses a name that is not among the tools (400); should one get
            // here anyway, the model chooses.
            if chosen.is_empty() {
                ToolMode::Auto
            } else {
                ToolMode::Forced(chosen)
            }
        }
        Some(ToolChoice::Mode(ToolChoiceMode::Auto)) | None => ToolMode::Auto,
    }
}

/// Where the reply starts with respect to a `<think>` block.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Reasoning {
    /// The template does not reason: the calls come first.
    No,
    /// The model may open a `<think>` block before the calls.
    Optional,
    /// The prompt ended with `<think>`: the reply is reasoning, `</think>`, then the calls.
    Open,
}

/// What the chat template says about the model.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ModelTraits {
    pub tool_format: ToolFormat,
    /// The template renders tools (`auto` tools reach the prompt).
    pub supports_tools: bool,
    /// The template reasons in `<think>`.
    pub thinks: bool,
}

/// How a job's reply is shaped.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Plan {
    /// The tools are in the prompt and the output is parsed for calls.
    pub tools: bool,
    pub grammar: Option<JobGrammar>,
}

/// A grammar for sampling.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct JobGrammar {
    /// GBNF, start rule `root`.
    pub gbnf: String,
    /// `Some(pattern)`: sampling is free until the output so far matches this regular
    /// expression whole; the grammar then applies from its first group on (llama.cpp's lazy
    /// grammar). `None`: from the first token.
    pub trigger: Option<String>,
    /// The reply's content is JSON (`response_format`): the output parser takes it as it is
    /// ([`super::output::OutputParser::for_job`]).
    pub json_answer: bool,
}

impl JobGrammar {
    /// Whether the grammar alone decides where the reply ends: it holds from the first token,
    /// so the reply ends when the grammar is complete (or at the token limit, `length`).
    /// Stop sequences are not applied then: one inside a JSON string would cut the JSON.
    pub fn decides_end(&self) -> bool {
        self.trigger.is_none()
    }
}

/// A schema the job asks to have enforced is outside the subset; the gateway refuses such
/// requests with a 400, so only a job from another gateway gets here.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Unenforceable;

/// The lazy trigger of Hermes calls: anything, then `<tool_call>` and what follows.
const HERMES_TRIGGER: &str = r"[\s\S]*?(<tool_call>[\s\S]*)";

/// Chooses a job's grammar from its request, the model's template and its rendered prompt.
pub fn plan(request: &JobRequest, model: ModelTraits, prompt: &str) -> Result<Plan, Unenforceable> {
    let reasoning = if prompt.trim_end().ends_with("<think>") {
        Reasoning::Open
    } else if model.thinks {
        Reasoning::Optional
    } else {
        Reasoning::No
    };
    let parallel = request.parallel_tool_calls != Some(false);
    let mut rules = Rules::new();
    let offered: Vec<&Tool> = match tool_mode(request) {
        ToolMode::Forced(forced) => {
            let calls = calls(&mut rules, model.tool_format, &forced, parallel)?;
            return Ok(Plan::from_first_token(
                true, rules, reasoning, &calls, false,
            ));
        }
        ToolMode::Auto if model.supports_tools => request.tools.iter().flatten().collect(),
        ToolMode::Auto | ToolMode::None => Vec::new(),
    };
    let tools = !offered.is_empty();
    let format = (request.response_format.as_ref()).filter(|f| f.is_structured());
    let Some(format) = format else {
        // Free text; a strict tool's call is held to its schema once it opens.
        let strict = offered.iter().any(|t| t.function.strict == Some(true));
        if !strict || model.tool_format != ToolFormat::Hermes {
            return Ok(Plan {
                tools,
                grammar: None,
            });
        }
        let calls = calls(&mut rules, model.tool_format, &offered, parallel)?;
        let grammar = JobGrammar {
            gbnf: rules.finish(&calls),
            trigger: Some(HERMES_TRIGGER.to_owned()),
            json_answer: false,
        };
        return Ok(Plan {
            tools,
            grammar: Some(grammar),
        });
    };
    let mut body = answer(&mut rules, format)?;
    // A Llama 3 call is a JSON object too, which the answer could not be told apart from:
    // there the answer is the JSON alone.
    let tools = tools && model.tool_format == ToolFormat::Hermes;
    if tools {
        let calls = calls(&mut rules, model.tool_format, &offered, parallel)?;
        body = format!("( {calls} | {body} )");
    }
    Ok(Plan::from_first_token(tools, rules, reasoning, &body, true))
}

impl Plan {
    /// A grammar of `body` (after any reasoning) from the first token.
    fn from_first_token(
        tools: bool,
        rules: Rules,
        reasoning: Reasoning,
        body: &str,
        json_answer: bool,
    ) -> Self {
        let grammar = JobGrammar {
            gbnf: rules.finish(&with_reasoning(reasoning, body)),
            trigger: None,
            json_answer,
        };
        Plan {
            tools,
            grammar: Some(grammar),
        }
    }
}

/// llama.cpp's grammar sampler for `g` (`None`: llama.cpp refused the grammar).
#[cfg(feature = "llama")]
pub fn sampler(
    model: &llama_cpp_2::model::LlamaModel,
    g: &JobGrammar,
) -> Option<llama_cpp_2::sampling::LlamaSampler> {
    use llama_cpp_2::sampling::LlamaSampler;
    match &g.trigger {
        None => LlamaSampler::grammar(model, &g.gbnf, "root").ok(),
        Some(pattern) => LlamaSampler::grammar_lazy_patterns(
            model,
            &g.gbnf,
            "root",
            std::slice::from_ref(pattern),
            &[],
        )
        .ok(),
    }
}

/// A job's sampling: a chain (temperature, top-p, the draw) and, when the job has one, its
/// grammar.
///
/// Running the grammar over the whole vocabulary for every token is what makes constrained
/// generation slow (tens of thousands of candidates, each matched against the grammar's
/// stacks). So the chain draws first, from the model's own distribution, and the grammar
/// checks that one token; only when it refuses is the grammar run over every candidate and
/// the chain drawn again from what it allows (as llama.cpp's own common sampler does). For a
/// plain temperature draw the result has the distribution of the grammar-first chain; with
/// top-p the nucleus is taken before the grammar rather than after.
#[cfg(feature = "llama")]
pub struct GuidedSampler {
    chain: llama_cpp_2::sampling::LlamaSampler,
    grammar: Option<llama_cpp_2::sampling::LlamaSampler>,
}

#[cfg(feature = "llama")]
impl GuidedSampler {
    pub fn new(
        chain: llama_cpp_2::sampling::LlamaSampler,
        grammar: Option<llama_cpp_2::sampling::LlamaSampler>,
    ) -> Self {
        GuidedSampler { chain, grammar }
    }

    /// Samples and accepts the token for the `idx`-th output of the last decode.
    pub fn sample(
        &mut self,
        ctx: &llama_cpp_2::context::LlamaContext<'_>,
        idx: i32,
    ) -> llama_cpp_2::token::LlamaToken {
        use llama_cpp_2::token::data::LlamaTokenData;
        use llama_cpp_2::token::data_array::LlamaTokenDataArray;
        use llama_cpp_2::token::LlamaToken;
        let Some(grammar) = &mut self.grammar else {
            return self.chain.sample(ctx, idx);
        };
        let logits = ctx.get_logits_ith(idx);
        let candidates = || {
            let all = logits.iter().enumerate();
            LlamaTokenDataArray::from_iter(
                all.map(|(i, &l)| LlamaTokenData::new(LlamaToken(i as i32), l, 0.0)),
                false,
            )
        };
        let mut free = candidates();
        self.chain.apply(&mut free);
        let picked = free.selected_token();
        let allowed = picked.is_some_and(|t| {
            let mut one = LlamaTokenDataArray::new(vec![LlamaTokenData::new(t, 0.0, 0.0)], false);
            grammar.apply(&mut one);
            one.data[0].logit().is_finite()
        });
        let token = match picked {
            Some(t) if allowed => t,
            _ => {
                let mut constrained = candidates();
                grammar.apply(&mut constrained);
                self.chain.apply(&mut constrained);
                // The grammar always leaves a token (an end-of-generation one once complete);
                // were it ever to leave none, nothing unchecked is fed to it.
                match constrained.selected_token() {
                    Some(t) => t,
                    None => return picked.unwrap_or(LlamaToken(0)),
                }
            }
        };
        grammar.accept(token);
        self.chain.accept(token);
        token
    }
}

/// `body`, after the `<think>` block `reasoning` calls for.
fn with_reasoning(reasoning: Reasoning, body: &str) -> String {
    match reasoning {
        Reasoning::No => body.to_owned(),
        Reasoning::Optional => {
            format!("( \"<think>\" think \"</think>\" [ \\n]{{0,8}} )? {body}")
        }
        Reasoning::Open => format!("think \"</think>\" [ \\n]{{0,8}} {body}"),
    }
}

/// The GBNF grammar (start rule `root`) that admits only calls of `tools` in `format`.
/// `parallel`: more than one call may follow the first.
pub fn tool_call_grammar(
    format: ToolFormat,
    tools: &[&Tool],
    parallel: bool,
    reasoning: Reasoning,
) -> Result<String, Unenforceable> {
    let mut rules = Rules::new();
    let calls = calls(&mut rules, format, tools, parallel)?;
    Ok(rules.finish(&with_reasoning(reasoning, &calls)))
}

/// The rule for one JSON answer of `format` (`json_object` or `json_schema`).
fn answer(rules: &mut Rules, format: &ResponseFormat) -> Result<String, Unenforceable> {
    let schema = match format.json_schema() {
        Some(f) => schema::compile(&f.schema_or_any()).map_err(|_| Unenforceable)?,
        None => Schema::any_object(),
    };
    Ok(json::schema_rule(rules, &schema, "answer"))
}

/// The rule for the calls of `tools`, one or (with `parallel`) more.
fn calls(
    rules: &mut Rules,
    format: ToolFormat,
    tools: &[&Tool],
    parallel: bool,
) -> Result<String, Unenforceable> {
    let args_key = match format {
        ToolFormat::Hermes => "arguments",
        ToolFormat::Llama3 => "parameters",
    };
    let mut alternatives = Vec::with_capacity(tools.len());
    for (i, tool) in tools.iter().enumerate() {
        let args = arguments(rules, tool, &format!("fn-{i}-args"))?;
        let name = serde_json::Value::String(tool.function.name.clone());
        let head = format!("{{\"name\": {name}, \"{args_key}\": ");
        alternatives.push(format!("{} {args} \"}}\"", literal(&head)));
    }
    let object = rules.add("call-object", alternatives.join(" | "));
    let (call, separator) = match format {
        ToolFormat::Hermes => (
            format!("\"<tool_call>\\n\" {object} \"\\n</tool_call>\""),
            "\"\\n\"",
        ),
        ToolFormat::Llama3 => (object, "\"; \""),
    };
    let call = rules.add("call", call);
    Ok(if parallel {
        format!("{call} ( {separator} {call} )*")
    } else {
        call
    })
}

/// The rule for a tool's arguments: always an object; a `strict` tool's exactly as its schema
/// says, another's as far as the subset goes.
fn arguments(rules: &mut Rules, tool: &Tool, hint: &str) -> Result<String, Unenforceable> {
    let Some(parameters) = &tool.function.parameters else {
        // No parameters: a function without arguments.
        return Ok(literal("{}"));
    };
    let schema = if tool.function.strict == Some(true) {
        schema::compile(parameters).map_err(|_| Unenforceable)?
    } else {
        schema::compile_lenient(parameters)
    };
    if !schema.admits_only_objects() {
        if tool.function.strict == Some(true) {
            return Err(Unenforceable);
        }
        // Arguments are an object whatever the schema says.
        return Ok("object".to_owned());
    }
    Ok(json::schema_rule(rules, &schema, hint))
}

#[cfg(test)]
mod tests;
