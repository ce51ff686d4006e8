//! `--serve MODEL_ID[=UPSTREAM_MODEL][,OPTION…]`: which catalog model this worker serves, under
//! which name the upstream knows it, and what it can do.
//!
//! Options come after commas because upstream names may hold `:` (`qwen2.5:7b` in Ollama) and
//! `/` (`google/gemma-3-27b-it` in vLLM), never a comma.

use std::fmt;
use std::str::FromStr;

use shoal_protocol::worker::ServedModel;

/// One `--serve` value: the model announced to the gateway and the upstream's name for it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ServeSpec {
    /// What the `hello` announces: the catalog id and its capabilities.
    pub model: ServedModel,
    /// The `model` sent to the upstream; the catalog id when no `=UPSTREAM_MODEL` was given.
    pub upstream_model: String,
}

/// Why a `--serve` value was not understood.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ServeSpecError(String);

impl fmt::Display for ServeSpecError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for ServeSpecError {}

fn err(msg: impl Into<String>) -> ServeSpecError {
    ServeSpecError(msg.into())
}

impl FromStr for ServeSpec {
    type Err = ServeSpecError;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let mut parts = s.split(',');
        let head = parts.next().unwrap_or_default().trim();
        let (id, upstream) = match head.split_once('=') {
            Some((id, upstream)) => (id.trim(), Some(upstream.trim())),
            None => (head, None),
        };
        if id.is_empty() {
            return Err(err(format!("`{s}`: the model id is empty")));
        }
        if id.chars().any(char::is_whitespace) {
            return Err(err(format!("`{s}`: the model id has whitespace")));
        }
        let upstream_model = match upstream {
            Some("") => return Err(err(format!("`{s}`: the upstream model after `=` is empty"))),
            Some(u) => u.to_owned(),
            None => id.to_owned(),
        };
        let mut model = ServedModel {
            id: id.to_owned(),
            tools: true,
            vision: false,
            reasoning: id.ends_with("-think"),
            context_length: None,
            // An OpenAI-compatible upstream enforces `response_format` and strict tools
            // itself (vLLM, SGLang, llama-server and Ollama all do); the embedded backends
            // set it by what they can do.
            structured_outputs: true,
        };
        for option in parts {
            let option = option.trim();
            match option {
                "tools" => model.tools = true,
                "no-tools" => model.tools = false,
                "vision" => model.vision = true,
                "no-vision" => model.vision = false,
                "reasoning" => model.reasoning = true,
                "no-reasoning" => model.reasoning = false,
                "structured-outputs" => model.structured_outputs = true,
                "no-structured-outputs" => model.structured_outputs = false,
                _ => {
                    let Some(value) = option
                        .strip_prefix("context=")
                        .or_else(|| option.strip_prefix("ctx="))
                    else {
                        return Err(err(format!(
                            "`{s}`: unknown option `{option}` (expected tools, no-tools, vision, \
                             no-vision, reasoning, no-reasoning, structured-outputs, \
                             no-structured-outputs or context=N)"
                        )));
                    };
                    let n: u32 =
                        value.parse().ok().filter(|n| *n > 0).ok_or_else(|| {
                            err(format!("`{s}`: context must be a positive integer"))
                        })?;
                    model.context_length = Some(n);
                }
            }
        }
        Ok(ServeSpec {
            model,
            upstream_model,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(s: &str) -> ServeSpec {
        s.parse().unwrap_or_else(|e| panic!("{s}: {e}"))
    }

    #[test]
    fn bare_id_maps_to_itself_with_default_capabilities() {
        let spec = parse("small-8b");
        assert_eq!(spec.upstream_model, "small-8b");
        assert_eq!(
            spec.model,
            ServedModel {
                id: "small-8b".into(),
                tools: true,
                vision: false,
                reasoning: false,
                context_length: None,
                structured_outputs: true
            }
        );
    }

    #[test]
    fn upstream_names_keep_slashes_and_colons() {
        assert_eq!(
            parse("large-27b=google/gemma-3-27b-it").upstream_model,
            "google/gemma-3-27b-it"
        );
        let spec = parse("small-8b=qwen2.5:7b,no-tools");
        assert_eq!(spec.upstream_model, "qwen2.5:7b");
        assert!(!spec.model.tools);
    }

    #[test]
    fn think_suffix_means_reasoning_unless_told_otherwise() {
        assert!(parse("small-8b-think").model.reasoning);
        assert!(parse("small-8b-think=Qwen/Qwen3-8B").model.reasoning);
        assert!(!parse("small-8b-think,no-reasoning").model.reasoning);
        assert!(parse("other,reasoning").model.reasoning);
    }

    #[test]
    fn options() {
        let spec = parse("large-27b = gemma3:27b , vision, context=131072");
        assert_eq!(spec.model.id, "large-27b");
        assert_eq!(spec.upstream_model, "gemma3:27b");
        assert!(spec.model.vision && spec.model.tools);
        assert!(spec.model.structured_outputs);
        assert!(!parse("m,no-structured-outputs").model.structured_outputs);
        assert_eq!(spec.model.context_length, Some(131072));
        assert_eq!(parse("m,ctx=4096").model.context_length, Some(4096));
    }

    #[test]
    fn rejects_nonsense() {
        for bad in [
            "",
            "=x",
            "m=",
            "m,bogus",
            "m,context=",
            "m,context=0",
            "m,context=-1",
            "a b",
        ] {
            assert!(
                bad.parse::<ServeSpec>().is_err(),
                "{bad:?} should be rejected"
            );
        }
    }
}
