//! The two image endpoints' bodies, read into one validated [`ImageParams`].
//!
//! Bodies are read as JSON values and checked field by field, so every bad field gets its own
//! 400 naming the field and what it takes, and no message ever quotes a value from the body.

use serde_json::{Map, Value};

use shoal_gateway::ApiError;

pub const MIN_SIDE: u32 = 512;
pub const MAX_SIDE: u32 = 1536;
pub const DEFAULT_SIDE: u32 = 1024;
pub const MIN_STEPS: u32 = 10;
pub const MAX_STEPS: u32 = 60;
pub const DEFAULT_STEPS: u32 = 32;
pub const MIN_CFG: f64 = 1.0;
pub const MAX_CFG: f64 = 15.0;
pub const DEFAULT_CFG: f32 = 4.0;
/// Seeds are 32-bit: every engine and A1111-compatible server takes them.
pub const MAX_SEED: u64 = u32::MAX as u64;
/// OpenAI's bound on `partial_images`.
pub const MAX_PARTIAL_IMAGES: i64 = 3;
/// Longest prompt or negative prompt, in characters.
pub const MAX_PROMPT_CHARS: usize = 4000;

/// A validated image request, before the service's baseline negative prompt and seed.
#[derive(Debug, Clone, PartialEq)]
pub struct ImageParams {
    pub prompt: String,
    /// The caller's own negative prompt ("" when none).
    pub negative_prompt: String,
    pub width: u32,
    pub height: u32,
    pub steps: u32,
    pub cfg: f32,
    pub seed: Option<u64>,
    pub nsfw: bool,
    /// Answer with Server-Sent Events: progress while it renders, then the result.
    pub stream: bool,
}

/// `POST /api/images/generate`: `prompt`, `negative_prompt`, `width`, `height`, `steps`,
/// `cfg`, `seed`, `nsfw`, `stream`.
pub fn parse_generate(body: &[u8]) -> Result<ImageParams, ApiError> {
    let fields = object(body)?;
    let f = Fields(&fields);
    Ok(ImageParams {
        width: f.side("width")?.unwrap_or(DEFAULT_SIDE),
        height: f.side("height")?.unwrap_or(DEFAULT_SIDE),
        ..common(&f)?
    })
}

/// `POST /api/v1/images/generations` (the OpenAI images shape): `prompt`, `size`,
/// `negative_prompt`, `seed`, `nsfw`, `n` (1), `response_format` (`b64_json`), `stream`,
/// `partial_images` (0 to 3, as OpenAI's; none are sent: a worker reports steps, not
/// previews), and the same `steps` and `cfg` as the other endpoint. OpenAI's other fields
/// (`model`, `quality`, `style`, `user`, …) are accepted and have no effect.
pub fn parse_generations(body: &[u8]) -> Result<ImageParams, ApiError> {
    let fields = object(body)?;
    let f = Fields(&fields);
    if let Some(n) = f.integer("n")? {
        if n != 1 {
            return Err(bad("n", "`n` must be 1: one image per request"));
        }
    }
    match f.string("response_format")? {
        None | Some("b64_json") => {}
        Some("url") => {
            return Err(bad(
                "response_format",
                "`response_format` `url` is not supported: images are never stored, so there is nothing to link to; use `b64_json`",
            ))
        }
        Some(_) => return Err(bad("response_format", "`response_format` must be `b64_json`")),
    }
    // Ignored, but a client that sends them gets the type the document states.
    f.string("model")?;
    f.string("user")?;
    if let Some(p) = f.integer("partial_images")? {
        if !(0..=MAX_PARTIAL_IMAGES).contains(&p) {
            return Err(bad(
                "partial_images",
                format!("`partial_images` must be an integer from 0 to {MAX_PARTIAL_IMAGES}"),
            ));
        }
    }
    let (width, height) = match f.string("size")? {
        None | Some("auto") => (DEFAULT_SIDE, DEFAULT_SIDE),
        Some(size) => parse_size(size)?,
    };
    Ok(ImageParams {
        width,
        height,
        ..common(&f)?
    })
}

/// The fields both endpoints share.
fn common(f: &Fields) -> Result<ImageParams, ApiError> {
    let prompt = f
        .string("prompt")?
        .ok_or_else(|| bad("prompt", "`prompt` is required"))?;
    if prompt.trim().is_empty() {
        return Err(bad("prompt", "`prompt` must not be empty"));
    }
    let steps = match f.integer("steps")? {
        None => DEFAULT_STEPS,
        Some(s) if (i64::from(MIN_STEPS)..=i64::from(MAX_STEPS)).contains(&s) => s as u32,
        Some(_) => {
            return Err(bad(
                "steps",
                format!("`steps` must be an integer from {MIN_STEPS} to {MAX_STEPS}"),
            ))
        }
    };
    let cfg = match f.number("cfg")? {
        None => DEFAULT_CFG,
        Some(c) if (MIN_CFG..=MAX_CFG).contains(&c) => c as f32,
        Some(_) => {
            return Err(bad(
                "cfg",
                format!("`cfg` must be a number from {MIN_CFG} to {MAX_CFG}"),
            ))
        }
    };
    let seed = match f.integer("seed")? {
        None => None,
        Some(s) if (0..=MAX_SEED as i64).contains(&s) => Some(s as u64),
        Some(_) => {
            return Err(bad(
                "seed",
                format!("`seed` must be an integer from 0 to {MAX_SEED}"),
            ))
        }
    };
    Ok(ImageParams {
        prompt: checked_prompt(prompt, "prompt")?,
        negative_prompt: checked_prompt(
            f.string("negative_prompt")?.unwrap_or(""),
            "negative_prompt",
        )?,
        width: DEFAULT_SIDE,
        height: DEFAULT_SIDE,
        steps,
        cfg,
        seed,
        nsfw: f.boolean("nsfw")?.unwrap_or(false),
        stream: f.boolean("stream")?.unwrap_or(false),
    })
}

fn checked_prompt(text: &str, field: &str) -> Result<String, ApiError> {
    if text.chars().count() > MAX_PROMPT_CHARS {
        return Err(bad(
            field,
            format!("`{field}` must be at most {MAX_PROMPT_CHARS} characters"),
        ));
    }
    Ok(text.to_owned())
}

/// `WIDTHxHEIGHT`, each side in bounds, snapped to a multiple of 64.
fn parse_size(size: &str) -> Result<(u32, u32), ApiError> {
    let malformed = || {
        bad(
            "size",
            format!("`size` must be `WIDTHxHEIGHT`, each side from {MIN_SIDE} to {MAX_SIDE} (e.g. `1024x1024`)"),
        )
    };
    let (w, h) = size.split_once(['x', 'X']).ok_or_else(malformed)?;
    let side = |s: &str| {
        let digits = !s.is_empty() && s.len() <= 6 && s.bytes().all(|b| b.is_ascii_digit());
        digits
            .then(|| s.parse::<u32>().ok())
            .flatten()
            .filter(|n| (MIN_SIDE..=MAX_SIDE).contains(n))
            .map(snap)
            .ok_or_else(malformed)
    };
    Ok((side(w)?, side(h)?))
}

/// The nearest multiple of 64 (halves round up); the bounds are multiples, so it stays in
/// them.
pub fn snap(side: u32) -> u32 {
    (side + 32) / 64 * 64
}

fn object(body: &[u8]) -> Result<Map<String, Value>, ApiError> {
    match serde_json::from_slice::<Value>(body) {
        Ok(Value::Object(map)) => Ok(map),
        Ok(_) => Err(ApiError::invalid_request(
            "the request body must be a JSON object",
            None,
        )),
        Err(_) => Err(ApiError::invalid_request(
            "the request body is not valid JSON",
            None,
        )),
    }
}

fn bad(field: &str, message: impl Into<String>) -> ApiError {
    ApiError::invalid_request(message, Some(field.to_owned()))
}

/// Typed reads of a body's fields; `null` counts as absent, as in the OpenAI API.
struct Fields<'a>(&'a Map<String, Value>);

impl Fields<'_> {
    fn get(&self, name: &str) -> Option<&Value> {
        self.0.get(name).filter(|v| !v.is_null())
    }

    fn string(&self, name: &str) -> Result<Option<&str>, ApiError> {
        match self.get(name) {
            None => Ok(None),
            Some(Value::String(s)) => Ok(Some(s)),
            Some(_) => Err(bad(name, format!("`{name}` must be a string"))),
        }
    }

    fn integer(&self, name: &str) -> Result<Option<i64>, ApiError> {
        match self.get(name) {
            None => Ok(None),
            // JSON Schema's integers include 51.0 (a number with no fraction), as the
            // OpenAPI document promises; 51.5 is not one.
            Some(v) => (v.as_i64())
                .or_else(|| v.as_u64().map(|_| i64::MAX))
                .or_else(|| v.as_f64().filter(|f| f.fract() == 0.0).map(|f| f as i64))
                .map(Some)
                .ok_or_else(|| bad(name, format!("`{name}` must be an integer"))),
        }
    }

    fn number(&self, name: &str) -> Result<Option<f64>, ApiError> {
        match self.get(name) {
            None => Ok(None),
            Some(v) => v
                .as_f64()
                .filter(|n| n.is_finite())
                .map(Some)
                .ok_or_else(|| bad(name, format!("`{name}` must be a number"))),
        }
    }

    fn boolean(&self, name: &str) -> Result<Option<bool>, ApiError> {
        match self.get(name) {
            None => Ok(None),
            Some(Value::Bool(b)) => Ok(Some(*b)),
            Some(_) => Err(bad(name, format!("`{name}` must be true or false"))),
        }
    }

    fn side(&self, name: &str) -> Result<Option<u32>, ApiError> {
        match self.integer(name)? {
            None => Ok(None),
            Some(n) if (i64::from(MIN_SIDE)..=i64::from(MAX_SIDE)).contains(&n) => {
                Ok(Some(snap(n as u32)))
            }
            Some(_) => Err(bad(
                name,
                format!("`{name}` must be an integer from {MIN_SIDE} to {MAX_SIDE} (it is snapped to a multiple of 64)"),
            )),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn generate(body: Value) -> Result<ImageParams, ApiError> {
        parse_generate(body.to_string().as_bytes())
    }

    fn generations(body: Value) -> Result<ImageParams, ApiError> {
        parse_generations(body.to_string().as_bytes())
    }

    #[test]
    fn defaults_and_snapping() {
        let p = generate(json!({"prompt": "a lighthouse"})).unwrap();
        assert_eq!(
            (p.width, p.height, p.steps, p.cfg, p.seed, p.nsfw),
            (1024, 1024, 32, 4.0, None, false)
        );
        assert_eq!(p.negative_prompt, "");
        let p = generate(
            json!({"prompt": "x", "width": 600, "height": 1000, "steps": 10,
                                "cfg": 3.5, "seed": 7, "nsfw": true, "negative_prompt": "blur"}),
        )
        .unwrap();
        assert_eq!((p.width, p.height, p.steps, p.cfg), (576, 1024, 10, 3.5));
        assert_eq!(
            (p.seed, p.nsfw, p.negative_prompt.as_str()),
            (Some(7), true, "blur")
        );
        assert_eq!(
            (snap(512), snap(543), snap(544), snap(1536)),
            (512, 512, 576, 1536)
        );
        let p = generations(json!({"prompt": "x", "size": "700x1500", "n": 1,
                                   "response_format": "b64_json", "model": "any", "seed": 0}))
        .unwrap();
        assert_eq!((p.width, p.height, p.seed), (704, 1472, Some(0)));
        let p = generations(json!({"prompt": "x", "size": null})).unwrap();
        assert_eq!((p.width, p.height, p.stream), (1024, 1024, false));
        let p = generations(json!({"prompt": "x", "stream": true, "partial_images": 2})).unwrap();
        assert!(p.stream);
        assert!(
            generate(json!({"prompt": "x", "stream": true}))
                .unwrap()
                .stream
        );
        // An integer written with a zero fraction is an integer (as JSON Schema counts them).
        let p = generate(json!({"prompt": "x", "steps": 51.0, "width": 768.0})).unwrap();
        assert_eq!((p.steps, p.width), (51, 768));
    }

    #[test]
    fn every_bad_field_is_a_400_naming_it() {
        let generate_cases = [
            (json!({}), "prompt"),
            (json!({"prompt": ""}), "prompt"),
            (json!({"prompt": "  "}), "prompt"),
            (json!({"prompt": 5}), "prompt"),
            (json!({"prompt": "x".repeat(4001)}), "prompt"),
            (
                json!({"prompt": "x", "negative_prompt": ["a"]}),
                "negative_prompt",
            ),
            (json!({"prompt": "x", "width": 511}), "width"),
            (json!({"prompt": "x", "width": 1537}), "width"),
            (json!({"prompt": "x", "width": "1024"}), "width"),
            (json!({"prompt": "x", "width": 1024.5}), "width"),
            (json!({"prompt": "x", "height": -1}), "height"),
            (json!({"prompt": "x", "steps": 9}), "steps"),
            (json!({"prompt": "x", "steps": 61}), "steps"),
            (json!({"prompt": "x", "steps": 20.5}), "steps"),
            (json!({"prompt": "x", "cfg": 0.5}), "cfg"),
            (json!({"prompt": "x", "cfg": 15.5}), "cfg"),
            (json!({"prompt": "x", "cfg": "4"}), "cfg"),
            (json!({"prompt": "x", "seed": -1}), "seed"),
            (json!({"prompt": "x", "seed": 4_294_967_296_u64}), "seed"),
            (json!({"prompt": "x", "seed": u64::MAX}), "seed"),
            (json!({"prompt": "x", "seed": "1"}), "seed"),
            (json!({"prompt": "x", "nsfw": "yes"}), "nsfw"),
            (json!({"prompt": "x", "nsfw": 1}), "nsfw"),
            (json!({"prompt": "x", "stream": "true"}), "stream"),
        ];
        for (body, field) in generate_cases {
            let e = generate(body.clone()).unwrap_err();
            assert_eq!(e.status.as_u16(), 400, "{body}");
            assert_eq!(e.param.as_deref(), Some(field), "{body}");
            assert!(e.message.contains(field), "{}", e.message);
        }
        let generations_cases = [
            (json!({"prompt": "x", "n": 2}), "n"),
            (json!({"prompt": "x", "n": 0}), "n"),
            (json!({"prompt": "x", "n": "1"}), "n"),
            (
                json!({"prompt": "x", "response_format": "url"}),
                "response_format",
            ),
            (
                json!({"prompt": "x", "response_format": "png"}),
                "response_format",
            ),
            (json!({"prompt": "x", "size": "1024"}), "size"),
            (json!({"prompt": "x", "size": "1024x"}), "size"),
            (json!({"prompt": "x", "size": "256x256"}), "size"),
            (json!({"prompt": "x", "size": "1024x2048"}), "size"),
            (json!({"prompt": "x", "size": "+1024x1024"}), "size"),
            (json!({"prompt": "x", "size": 1024}), "size"),
            (json!({"size": "1024x1024"}), "prompt"),
            (
                json!({"prompt": "x", "partial_images": 4}),
                "partial_images",
            ),
            (
                json!({"prompt": "x", "partial_images": -1}),
                "partial_images",
            ),
            (json!({"prompt": "x", "stream": 1}), "stream"),
            (json!({"prompt": "x", "model": 5}), "model"),
            (json!({"prompt": "x", "user": []}), "user"),
        ];
        for (body, field) in generations_cases {
            let e = generations(body.clone()).unwrap_err();
            assert_eq!(e.status.as_u16(), 400, "{body}");
            assert_eq!(e.param.as_deref(), Some(field), "{body}");
        }
        for raw in [&b"not json"[..], b"[1]", b"\"prompt\""] {
            let e = parse_generate(raw).unwrap_err();
            assert_eq!((e.status.as_u16(), e.param), (400, None));
        }
    }

    #[test]
    fn messages_never_quote_the_body() {
        let e = generations(json!({"prompt": "x", "size": "secret-canary"})).unwrap_err();
        assert!(!e.message.contains("secret-canary"));
        let e = generate(json!({"prompt": "secret-canary".repeat(400)})).unwrap_err();
        assert!(!e.message.contains("secret-canary"));
    }
}
