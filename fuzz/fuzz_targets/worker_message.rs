//! A worker's text frame decoded as the gateway decodes it (`serde_json::from_str` into
//! `shoal_protocol::worker::WorkerMessage`): workers are not trusted, so any frame must decode
//! or be refused without a panic, and whatever decodes must survive a round trip unchanged
//! (what the gateway reads is what the worker meant, whichever side encodes it).
#![no_main]

use libfuzzer_sys::fuzz_target;
use shoal_protocol::worker::WorkerMessage;

fuzz_target!(|frame: &[u8]| {
    // WebSocket text frames are UTF-8; the gateway drops any other frame before decoding.
    let Ok(text) = std::str::from_utf8(frame) else {
        return;
    };
    let Ok(message) = serde_json::from_str::<WorkerMessage>(text) else {
        return;
    };
    let again = serde_json::to_string(&message).expect("a decoded message encodes");
    let back: WorkerMessage = serde_json::from_str(&again).expect("an encoded message decodes");
    assert_eq!(back, message);
});
