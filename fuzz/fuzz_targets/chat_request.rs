//! `shoal_protocol::parse_chat_request` on arbitrary bodies, as the gateway hands it every
//! `POST /api/v1/chat/completions` body. Besides not panicking:
//! - an accepted request's prompt-token bound covers its text, byte for byte (the hold rests on
//!   it), and the request serializes;
//! - a refusal never repeats a value from the body: a string value holding `CANARY` never shows
//!   in the message or the param, unless some key of the body holds it too (a param names
//!   keys).
#![no_main]

use libfuzzer_sys::fuzz_target;
use serde_json::Value;
use shoal_protocol::chat::PartRef;
use shoal_protocol::parse_chat_request;

const CANARY: &str = "CANARY";

fuzz_target!(|body: &[u8]| {
    match parse_chat_request(body) {
        Ok(request) => {
            let text_bytes: u64 = request
                .messages
                .iter()
                .filter_map(|m| m.content.as_ref())
                .flat_map(|c| c.parts())
                .map(|p| match p {
                    PartRef::Text(t) => t.len() as u64,
                    PartRef::Image(_) => 0,
                })
                .sum();
            assert!(request.prompt_token_upper_bound() >= text_bytes);
            let _ = request.max_output_tokens();
            serde_json::to_vec(&request).expect("an accepted request serializes");
        }
        Err(e) => {
            let Ok(value) = serde_json::from_slice::<Value>(body) else {
                return;
            };
            if any_key_holds(&value, CANARY) {
                return;
            }
            assert!(!e.message.contains(CANARY), "{e:?}");
            assert!(!e.param.as_deref().unwrap_or("").contains(CANARY), "{e:?}");
        }
    }
});

fn any_key_holds(value: &Value, needle: &str) -> bool {
    match value {
        Value::Object(map) => map
            .iter()
            .any(|(k, v)| k.contains(needle) || any_key_holds(v, needle)),
        Value::Array(items) => items.iter().any(|v| any_key_holds(v, needle)),
        _ => false,
    }
}
