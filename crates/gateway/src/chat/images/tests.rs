use base64::engine::general_purpose::STANDARD;
use serde_json::json;

use super::*;

/// A PNG's signature and `IHDR` chunk claiming `width` × `height` (no pixel data: only the
/// header is read).
fn png(width: u32, height: u32) -> Vec<u8> {
    let mut b = b"\x89PNG\r\n\x1a\n\0\0\0\x0dIHDR".to_vec();
    b.extend(width.to_be_bytes());
    b.extend(height.to_be_bytes());
    b.extend([8, 6, 0, 0, 0, 0, 0, 0, 0]);
    b
}

/// A JPEG with an `APP1` segment of `pad` bytes before its size marker (`SOF0`).
fn jpeg(width: u16, height: u16, pad: u16) -> Vec<u8> {
    let mut b = vec![0xFF, 0xD8, 0xFF, 0xE1];
    b.extend((pad + 2).to_be_bytes());
    b.extend(std::iter::repeat_n(0u8, usize::from(pad)));
    b.extend([0xFF, 0xC0, 0x00, 0x11, 0x08]);
    b.extend(height.to_be_bytes());
    b.extend(width.to_be_bytes());
    b.extend([3, 1, 0x22, 0, 2, 0x11, 1, 3, 0x11, 1]);
    b
}

fn gif(width: u16, height: u16) -> Vec<u8> {
    let mut b = b"GIF89a".to_vec();
    b.extend(width.to_le_bytes());
    b.extend(height.to_le_bytes());
    b.extend([0u8; 8]);
    b
}

fn url(label: &str, bytes: &[u8]) -> String {
    format!("data:image/{label};base64,{}", STANDARD.encode(bytes))
}

/// A request whose second message has text, then an image part with `image`.
fn request(image: &str) -> ChatCompletionRequest {
    serde_json::from_value(json!({"model": "m", "messages": [
        {"role": "system", "content": "be brief"},
        {"role": "user", "content": [{"type": "text", "text": "what is it?"},
            {"type": "image_url", "image_url": {"url": image}}]}]}))
    .expect("a chat request")
}

fn refusal(image: &str, limits: &ImageLimits) -> (String, Option<String>) {
    let e = check(&request(image), limits).expect_err("refused");
    assert_eq!(e.status, axum::http::StatusCode::BAD_REQUEST);
    (e.message, e.param)
}

#[test]
fn images_within_the_limits_pass() {
    let limits = ImageLimits::default();
    for image in [
        url("png", &png(1, 1)),
        url("png", &png(4096, 4096)),
        url("jpeg", &jpeg(640, 480, 10)),
        // A JPEG labelled PNG: the bytes decide.
        url("png", &jpeg(640, 480, 10)),
        // The size marker past the first 64 KiB of base64: the whole file is read.
        url("jpeg", &jpeg(800, 600, 60_000)),
        url("gif", &gif(32, 32)),
    ] {
        assert!(check(&request(&image), &limits).is_ok(), "{}", &image[..40]);
    }
    let no_parts = serde_json::from_value(json!({"model": "m",
        "messages": [{"role": "user", "content": "hi"}]}))
    .expect("a chat request");
    assert!(check(&no_parts, &limits).is_ok());
}

#[test]
fn a_bomb_is_refused_naming_its_part() {
    let limits = ImageLimits::default();
    let (message, param) = refusal(&url("png", &png(100_000, 100_000)), &limits);
    assert_eq!(param.as_deref(), Some("messages[1].content[1].image_url"));
    assert!(message.contains("100000×100000"), "{message}");
    let (message, _) = refusal(&url("png", &png(9000, 10)), &limits);
    assert!(message.contains("per side"), "{message}");
    let (message, _) = refusal(&url("jpeg", &jpeg(60_000, 60_000, 100)), &limits);
    assert!(message.contains("60000×60000"), "{message}");
    let (message, _) = refusal(&url("gif", &gif(0, 10)), &limits);
    assert!(message.contains("no pixels"), "{message}");
}

#[test]
fn what_is_not_an_image_is_refused() {
    let limits = ImageLimits::default();
    for bytes in [
        &b"just some text, labelled as a PNG"[..],
        b"\x89PNG\r\n\x1a\n",
    ] {
        let (message, param) = refusal(&url("png", bytes), &limits);
        assert_eq!(
            message,
            format!("`{}`: {NOT_AN_IMAGE}", param.unwrap_or_default())
        );
    }
    let small = ImageLimits {
        max_bytes: 100,
        ..limits
    };
    let (message, _) = refusal(&url("jpeg", &jpeg(10, 10, 200)), &small);
    assert!(message.contains("at most 100"), "{message}");
}

#[test]
fn decoded_length_of_padded_and_unpadded_base64() {
    for n in 0..10usize {
        let text = STANDARD.encode(vec![7u8; n]);
        assert_eq!(decoded_len(&text), n as u64, "{text}");
        assert_eq!(decoded_len(text.trim_end_matches('=')), n as u64);
    }
}
