//! Forced tool calls: when a request's `tool_choice` is `required` or names a function,
//! sampling is constrained by a GBNF grammar (llama.cpp's grammar sampler) that admits nothing
//! but tool calls, written the way the model's chat template teaches them:
//!
//! - Hermes / Qwen (templates that mention `<tool_call>`, and the default):
//!   `<tool_call>\n{"name": "X", "arguments": {…}}\n</tool_call>`, several separated by a
//!   newline unless `parallel_tool_calls` is false;
//! - Llama 3 (templates with `<|python_tag|>` / `<|eom_id|>`): the whole reply is
//!   `{"name": "X", "parameters": {…}}`.
//!
//! The arguments follow the tool's JSON Schema where it is simple (objects with `properties`,
//! `required`, nested objects and arrays, `string`, `number`, `integer`, `boolean`, `null`,
//! `enum`, `const`, `anyOf` / `oneOf`, type lists); anything else (`$ref`, `allOf`, patterns, …)
//! is any JSON value of the right shape. String, length and range constraints are not
//! enforced. A template that reasons in `<think>` keeps its reasoning: the grammar allows (or,
//! when the prompt already opened it, requires) a `<think>…</think>` block before the calls.
//!
//! `tool_choice: "none"` needs no grammar: the tools are not rendered into the prompt and the
//! output is not parsed for calls.

use serde_json::{Map, Value};
use shoal_protocol::chat::{Tool, ToolChoice, ToolChoiceMode};
use shoal_protocol::worker::JobRequest;

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

/// How deep schemas are followed before any JSON value is accepted.
const MAX_DEPTH: usize = 8;

/// Rules every grammar carries (a generic JSON value and its parts; whitespace is bounded so
/// a call always ends).
const PRIMITIVES: &str = r#"ws ::= | " " | "\n" [ \t]{0,20}
value ::= object | array | string | number | boolean | null
object ::= "{" ws ( string ":" ws value ( "," ws string ":" ws value )* )? ws "}"
array ::= "[" ws ( value ( "," ws value )* )? ws "]"
string ::= "\"" char* "\""
char ::= [^"\\\x7F\x00-\x1F] | "\\" ( ["\\/bfnrt] | "u" [0-9a-fA-F]{4} )
integer ::= "-"? ( [0-9] | [1-9] [0-9]{1,15} )
number ::= integer ( "." [0-9]{1,16} )? ( [eE] [-+]? [0-9]{1,3} )?
boolean ::= "true" | "false"
null ::= "null"
think ::= ( [^<] | "<" [^/] )*
"#;

/// The GBNF grammar (start rule `root`) that admits only calls of `tools` in `format`.
/// `parallel`: more than one call may follow the first.
pub fn tool_call_grammar(
    format: ToolFormat,
    tools: &[&Tool],
    parallel: bool,
    reasoning: Reasoning,
) -> String {
    let mut g = Grammar::default();
    let args_key = match format {
        ToolFormat::Hermes => "arguments",
        ToolFormat::Llama3 => "parameters",
    };
    let mut alternatives = Vec::with_capacity(tools.len());
    for (i, tool) in tools.iter().enumerate() {
        let name = format!("fn-{i}-args");
        let args = match &tool.function.parameters {
            // No parameters: a function without arguments.
            None => g.add(&name, r#""{" ws "}""#.to_owned()),
            Some(schema) => g.object_schema(schema, &name, 0),
        };
        let head = format!(
            "{{\"name\": {}, \"{args_key}\": ",
            Value::String(tool.function.name.clone())
        );
        alternatives.push(format!("{} {args} \"}}\"", literal(&head)));
    }
    let object = g.add("call-object", alternatives.join(" | "));
    let (call, separator) = match format {
        ToolFormat::Hermes => (
            format!("\"<tool_call>\\n\" {object} \"\\n</tool_call>\""),
            "\"\\n\"",
        ),
        ToolFormat::Llama3 => (object, "\"; \""),
    };
    let call = g.add("call", call);
    let calls = if parallel {
        format!("{call} ( {separator} {call} )*")
    } else {
        call
    };
    let root = match reasoning {
        Reasoning::No => calls,
        Reasoning::Optional => {
            format!("( \"<think>\" think \"</think>\" [ \\n]{{0,8}} )? {calls}")
        }
        Reasoning::Open => format!("think \"</think>\" [ \\n]{{0,8}} {calls}"),
    };
    let mut out = format!("root ::= {root}\n");
    for (name, body) in &g.rules {
        out.push_str(name);
        out.push_str(" ::= ");
        out.push_str(body);
        out.push('\n');
    }
    out.push_str(PRIMITIVES);
    out
}

/// Rules made from schemas, in the order they were made.
#[derive(Default)]
struct Grammar {
    rules: Vec<(String, String)>,
}

impl Grammar {
    /// Adds a rule named after `hint` (made unique), returns its name.
    fn add(&mut self, hint: &str, body: String) -> String {
        let base: String = hint
            .chars()
            .map(|c| if c.is_ascii_alphanumeric() { c } else { '-' })
            .collect();
        let base = base.trim_matches('-').to_ascii_lowercase();
        let base = if base.is_empty() {
            "r".to_owned()
        } else {
            base
        };
        let taken = |n: &str| {
            self.rules.iter().any(|(r, _)| r == n)
                || PRIMITIVES
                    .lines()
                    .any(|l| l.split(" ::= ").next() == Some(n))
                || n == "root"
        };
        let mut name = base.clone();
        let mut n = 1;
        while taken(&name) {
            name = format!("{base}-{n}");
            n += 1;
        }
        self.rules.push((name.clone(), body));
        name
    }

    /// Arguments: an object schema. A schema that is not an object is accepted as any object
    /// (arguments are always one).
    fn object_schema(&mut self, schema: &Map<String, Value>, hint: &str, depth: usize) -> String {
        let is_object = match schema.get("type") {
            Some(Value::String(t)) => t == "object",
            None => schema.contains_key("properties"),
            _ => false,
        };
        if is_object {
            self.object(schema, hint, depth)
        } else {
            "object".to_owned()
        }
    }

    /// An expression (a rule name or a literal) for a value of `schema`.
    fn schema(&mut self, schema: &Value, hint: &str, depth: usize) -> String {
        let Value::Object(s) = schema else {
            return "value".to_owned();
        };
        if depth > MAX_DEPTH {
            return "value".to_owned();
        }
        if let Some(c) = s.get("const") {
            return literal(&c.to_string());
        }
        if let Some(Value::Array(values)) = s.get("enum") {
            if !values.is_empty() {
                let alts: Vec<String> = values.iter().map(|v| literal(&v.to_string())).collect();
                return self.add(hint, alts.join(" | "));
            }
        }
        for key in ["anyOf", "oneOf"] {
            if let Some(Value::Array(options)) = s.get(key) {
                if !options.is_empty() {
                    let alts: Vec<String> = options
                        .iter()
                        .enumerate()
                        .map(|(i, o)| self.schema(o, &format!("{hint}-{i}"), depth + 1))
                        .collect();
                    return self.add(hint, alts.join(" | "));
                }
            }
        }
        match s.get("type") {
            Some(Value::String(t)) => self.typed(t, s, hint, depth),
            Some(Value::Array(types)) if !types.is_empty() => {
                let alts: Vec<String> = types
                    .iter()
                    .enumerate()
                    .map(|(i, t)| match t {
                        Value::String(t) => self.typed(t, s, &format!("{hint}-{i}"), depth),
                        _ => "value".to_owned(),
                    })
                    .collect();
                self.add(hint, alts.join(" | "))
            }
            None if s.contains_key("properties") => self.object(s, hint, depth),
            None if s.contains_key("items") => self.typed("array", s, hint, depth),
            _ => "value".to_owned(),
        }
    }

    fn typed(&mut self, t: &str, s: &Map<String, Value>, hint: &str, depth: usize) -> String {
        match t {
            "string" => "string".to_owned(),
            "integer" => "integer".to_owned(),
            "number" => "number".to_owned(),
            "boolean" => "boolean".to_owned(),
            "null" => "null".to_owned(),
            "object" => self.object(s, hint, depth),
            "array" => match s.get("items") {
                Some(items @ Value::Object(_)) => {
                    let item = self.schema(items, &format!("{hint}-item"), depth + 1);
                    self.add(
                        hint,
                        format!("\"[\" ws ( {item} ( \",\" ws {item} )* )? ws \"]\""),
                    )
                }
                _ => "array".to_owned(),
            },
            _ => "value".to_owned(),
        }
    }

    /// An object with the schema's `properties`: required ones first (in schema order), then
    /// the optional ones, each at most once, in schema order. No other keys.
    fn object(&mut self, s: &Map<String, Value>, hint: &str, depth: usize) -> String {
        let Some(Value::Object(props)) = s.get("properties") else {
            return "object".to_owned();
        };
        let required: Vec<&str> = match s.get("required") {
            Some(Value::Array(r)) => r.iter().filter_map(Value::as_str).collect(),
            _ => Vec::new(),
        };
        let mut req = Vec::new();
        let mut opt = Vec::new();
        for (key, prop) in props {
            let value = self.schema(prop, &format!("{hint}-{key}"), depth + 1);
            let member = format!(
                "{} \":\" ws {value}",
                literal(&Value::String(key.clone()).to_string())
            );
            if required.contains(&key.as_str()) {
                req.push(member);
            } else {
                opt.push(member);
            }
        }
        let body = if !req.is_empty() {
            let mut body = req.join(" \",\" ws ");
            for o in &opt {
                body.push_str(&format!(" ( \",\" ws {o} )?"));
            }
            body
        } else if !opt.is_empty() {
            // Whichever optional member comes first carries no comma.
            let alts: Vec<String> = (0..opt.len())
                .map(|first| {
                    let mut alt = opt[first].clone();
                    for o in &opt[first + 1..] {
                        alt.push_str(&format!(" ( \",\" ws {o} )?"));
                    }
                    alt
                })
                .collect();
            format!("( {} )?", alts.join(" | "))
        } else {
            String::new()
        };
        self.add(hint, format!("\"{{\" ws {body} ws \"}}\""))
    }
}

/// `text` as a GBNF string literal.
fn literal(text: &str) -> String {
    let mut out = String::with_capacity(text.len() + 2);
    out.push('"');
    for c in text.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c if (c as u32) < 0x20 || c as u32 == 0x7f => {
                out.push_str(&format!("\\x{:02X}", c as u32));
            }
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

#[cfg(test)]
mod tests;
