//! The gateway's check of a structured answer, as a pure function of the job and the answer:
//! what a worker says it enforced is verified before the answer counts as delivered. The
//! gateway's relay runs it on every structured request's answer; it does no I/O and keeps
//! nothing.
//!
//! A request that needs structured outputs (`response_format` `json_object` or `json_schema`, or
//! a `strict` function tool) gets a [`Check`] built once from its job: the content must parse as
//! one JSON value (an object for `json_object`) that validates against the schema, and each call
//! of a strict tool must have arguments that parse and validate against its `parameters`.
//! Validation is the `jsonschema` crate's, against the schema as the client wrote it, read the
//! way Shoal's subset (`shoal_protocol::schema`) reads it ([`for_validator`]): OpenAPI's
//! `nullable`, draft 4's boolean exclusive bounds and array `items`, `oneOf` as "any one
//! option". `format` is an annotation here, as in JSON Schema 2020-12 by default: the engines
//! write the formats they enforce, and a format checker stricter than their grammar would
//! refuse answers the request allowed.
//!
//! An answer cut by its token limit (`finish_reason: length`) or a filter is not checked: it is
//! incomplete by definition, and says so. The relay decides what a failed check costs; this
//! crate only judges.

use jsonschema::{Draft, Validator};
use serde_json::{Map, Value};
use shoal_protocol::chat::ToolCallDelta;
use shoal_protocol::worker::{FinishReason, JobRequest};

/// The error code of an answer that failed its check, in a body or a stream's error event.
pub const ERROR_CODE: &str = "invalid_structured_output";

/// Tool calls one answer may carry (as the relay's accumulator): beyond, deltas are dropped.
const MAX_TOOL_CALLS: usize = 128;

/// Why an answer failed its check (a log reason; never content).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Fault {
    /// The content is not one JSON value (prose, a code fence, nothing, two values).
    ContentNotJson,
    /// The content is JSON of the wrong shape: not an object, or outside the schema.
    ContentMismatch,
    /// A strict tool's call has arguments that do not parse or fall outside its `parameters`.
    ToolArguments,
}

impl Fault {
    pub const fn as_str(self) -> &'static str {
        match self {
            Fault::ContentNotJson => "content_not_json",
            Fault::ContentMismatch => "content_mismatch",
            Fault::ToolArguments => "tool_arguments",
        }
    }
}

/// What one value must be.
enum Shape {
    /// Any JSON value (a `json_schema` format without a schema).
    Any,
    /// A JSON object (`json_object`; a strict tool with no `parameters`).
    Object,
    Schema(Box<Validator>),
}

impl Shape {
    /// `schema` read as Shoal reads it; when the validator cannot be built from it, `fallback`
    /// (the request was accepted, so the engines enforce it: the gateway checks what it can).
    fn of(schema: &Map<String, Value>, fallback: Shape) -> Shape {
        if schema.is_empty() {
            return fallback;
        }
        let built = jsonschema::options()
            .with_draft(Draft::Draft202012)
            .build(&for_validator(schema));
        match built {
            Ok(v) => Shape::Schema(Box::new(v)),
            Err(_) => {
                // The error may quote the schema, so it is not logged.
                tracing::warn!("a structured request's schema could not be compiled for the gateway check; only its JSON form is checked");
                fallback
            }
        }
    }

    fn admits(&self, text: &str) -> Result<(), bool> {
        let value: Value = serde_json::from_str(text).map_err(|_| false)?;
        let fits = match self {
            Shape::Any => true,
            Shape::Object => value.is_object(),
            Shape::Schema(v) => v.is_valid(&value),
        };
        fits.then_some(()).ok_or(true)
    }
}

/// The check one structured request's answers are held to.
pub struct Check {
    /// The content's shape, for a `json_object` / `json_schema` format.
    content: Option<Shape>,
    /// Strict tools by name, with their arguments' shape.
    tools: Vec<(String, Shape)>,
}

impl Check {
    /// The check for `job`; `None` when nothing about its answer is promised.
    pub fn of(job: &JobRequest) -> Option<Check> {
        if !job.needs_structured_outputs() {
            return None;
        }
        let content = match &job.response_format {
            Some(f) if f.is_structured() => Some(match f.json_schema() {
                Some(s) => Shape::of(&s.schema_or_any(), Shape::Any),
                None => Shape::Object,
            }),
            _ => None,
        };
        let tools = (job.tools.iter().flatten())
            .filter(|t| t.function.strict == Some(true))
            .map(|t| {
                let parameters = t.function.parameters.clone().unwrap_or_default();
                (
                    t.function.name.clone(),
                    Shape::of(&parameters, Shape::Object),
                )
            })
            .collect();
        Some(Check { content, tools })
    }

    /// Judges a whole answer: its content and its tool calls as `(name, arguments)`.
    pub fn answer<'a>(
        &self,
        content: &str,
        calls: impl IntoIterator<Item = (&'a str, &'a str)>,
        finish: FinishReason,
    ) -> Result<(), Fault> {
        if matches!(finish, FinishReason::Length | FinishReason::ContentFilter) {
            return Ok(());
        }
        let mut called = false;
        for (name, arguments) in calls {
            called = true;
            let strict = self.tools.iter().find(|(n, _)| n == name);
            if let Some((_, shape)) = strict {
                shape.admits(arguments).map_err(|_| Fault::ToolArguments)?;
            }
        }
        match &self.content {
            // With tools offered, an answer may be calls instead of the JSON.
            Some(_) if called && content.trim().is_empty() => Ok(()),
            Some(shape) => shape.admits(content).map_err(|parsed| match parsed {
                true => Fault::ContentMismatch,
                false => Fault::ContentNotJson,
            }),
            None => Ok(()),
        }
    }
}

/// A streamed answer seen as it passes, to be judged at its end.
pub struct Watch<'a> {
    check: &'a Check,
    content: String,
    /// Each call's name and arguments, by index.
    calls: Vec<(String, String)>,
}

impl<'a> Watch<'a> {
    pub fn new(check: &'a Check) -> Self {
        Watch {
            check,
            content: String::new(),
            calls: Vec::new(),
        }
    }

    /// One delta's content and tool-call pieces.
    pub fn see(&mut self, content: Option<&str>, tool_calls: Option<&[ToolCallDelta]>) {
        if self.check.content.is_some() {
            self.content.push_str(content.unwrap_or_default());
        }
        for d in tool_calls.unwrap_or_default() {
            let i = d.index as usize;
            if i >= MAX_TOOL_CALLS {
                continue;
            }
            if self.calls.len() <= i {
                self.calls.resize_with(i + 1, Default::default);
            }
            if let Some(f) = &d.function {
                let call = &mut self.calls[i];
                call.0.push_str(f.name.as_deref().unwrap_or_default());
                call.1.push_str(f.arguments.as_deref().unwrap_or_default());
            }
        }
    }

    /// The verdict on everything seen, the answer having ended with `finish`.
    pub fn verdict(&self, finish: FinishReason) -> Result<(), Fault> {
        let calls = (self.calls.iter()).map(|(n, a)| (n.as_str(), a.as_str()));
        self.check.answer(&self.content, calls, finish)
    }
}

/// `schema` rewritten for a 2020-12 validator so that it means what Shoal's subset reads in it.
fn for_validator(schema: &Map<String, Value>) -> Value {
    let mut root = schema.clone();
    // Read as 2020-12 whatever it declares: the rewrites below make the older forms 2020-12.
    root.remove("$schema");
    let mut root = Value::Object(root);
    rewrite(&mut root);
    root
}

/// Rewrites one schema and, through the keywords that hold schemas, every schema inside it.
fn rewrite(schema: &mut Value) {
    let Value::Object(s) = schema else {
        return;
    };
    nullable(s);
    for (exclusive, inclusive) in [
        ("exclusiveMinimum", "minimum"),
        ("exclusiveMaximum", "maximum"),
    ] {
        // Draft 4: a boolean beside `minimum` / `maximum` makes that bound exclusive.
        if let Some(Value::Bool(is)) = s.get(exclusive).cloned() {
            s.remove(exclusive);
            if let (true, Some(bound)) = (is, s.remove(inclusive)) {
                s.insert(exclusive.to_owned(), bound);
            }
        }
    }
    if s.get("items").is_some_and(Value::is_array) {
        // Draft 4 to 2019-09: an array `items` is 2020-12's `prefixItems`, `additionalItems`
        // its `items`.
        let prefix = s.remove("items").unwrap_or_default();
        s.insert("prefixItems".to_owned(), prefix);
        if let Some(rest) = s.remove("additionalItems") {
            s.insert("items".to_owned(), rest);
        }
    }
    if let Some(options) = s.remove("oneOf") {
        // The engines enforce `oneOf` as any one option (its options should not overlap).
        s.insert("anyOf".to_owned(), options);
    }
    for keyword in ["$defs", "definitions", "properties"] {
        if let Some(Value::Object(map)) = s.get_mut(keyword) {
            map.values_mut().for_each(rewrite);
        }
    }
    for keyword in ["anyOf", "allOf", "prefixItems"] {
        if let Some(Value::Array(list)) = s.get_mut(keyword) {
            list.iter_mut().for_each(rewrite);
        }
    }
    for keyword in [
        "items",
        "additionalProperties",
        "unevaluatedProperties",
        "unevaluatedItems",
    ] {
        if let Some(sub) = s.get_mut(keyword) {
            rewrite(sub);
        }
    }
}

/// OpenAPI's `nullable: true` (not JSON Schema): `null` is admitted too, as the subset reads it.
fn nullable(s: &mut Map<String, Value>) {
    if s.remove("nullable") != Some(Value::Bool(true)) {
        return;
    }
    let null = Value::from("null");
    match s.get_mut("type") {
        Some(Value::String(t)) if t != "null" => {
            let t = Value::String(std::mem::take(t));
            s.insert("type".to_owned(), Value::Array(vec![t, null.clone()]));
        }
        Some(Value::Array(list)) if !list.contains(&null) => list.push(null.clone()),
        _ => {}
    }
    if let Some(c) = s.remove("const") {
        s.insert("enum".to_owned(), Value::Array(vec![c]));
    }
    if let Some(Value::Array(values)) = s.get_mut("enum") {
        if !values.contains(&Value::Null) {
            values.push(Value::Null);
        }
    }
    for keyword in ["anyOf", "oneOf"] {
        if let Some(Value::Array(options)) = s.get_mut(keyword) {
            options.push(serde_json::json!({"type": "null"}));
        }
    }
}

#[cfg(test)]
mod tests;
