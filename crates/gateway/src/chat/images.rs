//! Image parts of a chat request, checked at the gateway before any worker sees them: each
//! must be a PNG, JPEG, WebP or GIF whose header gives dimensions within the operator's limits
//! (`chat_image_max_side`, `chat_image_max_pixels`) and whose data is at most
//! `chat_image_max_bytes`. Only the header is read (`imagesize`): no pixel is decoded here,
//! so a file that claims 100,000 × 100,000 pixels costs the gateway a few kilobytes and never
//! reaches a worker's decoder.
//!
//! The protocol's validation has already made sure each URL is a base64 `data:image/…` URL.
//! The label is not trusted: the format is read from the bytes (a client that calls a JPEG
//! `image/png` is served; text labelled `image/png` is refused). Messages name the part
//! (`messages[1].content[0].image_url`) and what was wrong, never the data.

use base64::alphabet;
use base64::engine::{DecodePaddingMode, GeneralPurpose, GeneralPurposeConfig};
use base64::Engine;
use imagesize::ImageType;
use shoal_protocol::chat::{ChatCompletionRequest, ContentPart, MessageContent};

use crate::http::ApiError;

/// What an image part may be.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ImageLimits {
    /// Pixels along either side.
    pub max_side: u64,
    /// Width × height.
    pub max_pixels: u64,
    /// The image file's size, decoded from base64.
    pub max_bytes: u64,
}

impl Default for ImageLimits {
    fn default() -> Self {
        ImageLimits {
            max_side: 8192,
            max_pixels: 4096 * 4096,
            max_bytes: 10 * 1024 * 1024,
        }
    }
}

/// Base64 read as the protocol's validation reads it: standard alphabet, padding optional.
const BASE64: GeneralPurpose = GeneralPurpose::new(
    &alphabet::STANDARD,
    GeneralPurposeConfig::new().with_decode_padding_mode(DecodePaddingMode::Indifferent),
);

/// Base64 characters decoded first: enough for the header of any PNG, WebP or GIF and of
/// most JPEGs; a JPEG whose size marker comes later is decoded whole (its size is bounded).
const HEAD_CHARS: usize = 64 * 1024;

/// Checks every image part of `req`; the first one out of bounds is a 400 naming it.
pub fn check(req: &ChatCompletionRequest, limits: &ImageLimits) -> Result<(), ApiError> {
    for (i, message) in req.messages.iter().enumerate() {
        let Some(MessageContent::Parts(parts)) = &message.content else {
            continue;
        };
        for (j, part) in parts.iter().enumerate() {
            if let ContentPart::ImageUrl { image_url } = part {
                check_one(&image_url.url, limits).map_err(|why| {
                    let param = format!("messages[{i}].content[{j}].image_url");
                    ApiError::invalid_request(format!("`{param}`: {why}"), Some(param))
                })?;
            }
        }
    }
    Ok(())
}

/// Why one data URL is refused (a message that names no part of its data), or nothing.
fn check_one(url: &str, limits: &ImageLimits) -> Result<(), String> {
    let payload = url.split_once(',').map_or("", |(_, data)| data);
    let bytes = decoded_len(payload);
    if bytes > limits.max_bytes {
        return Err(format!(
            "the image is {bytes} bytes; at most {} are accepted",
            limits.max_bytes
        ));
    }
    let (kind, width, height) = header(payload)?;
    if !matches!(
        kind,
        ImageType::Png | ImageType::Jpeg | ImageType::Webp | ImageType::Gif
    ) {
        return Err(NOT_AN_IMAGE.into());
    }
    let pixels = width.saturating_mul(height);
    if width > limits.max_side || height > limits.max_side || pixels > limits.max_pixels {
        return Err(format!(
            "the image is {width}×{height} pixels; at most {} per side and {} in all are \
             accepted",
            limits.max_side, limits.max_pixels
        ));
    }
    if width == 0 || height == 0 {
        return Err("the image has no pixels".into());
    }
    Ok(())
}

const NOT_AN_IMAGE: &str = "the data is not a PNG, JPEG, WebP or GIF image";

/// The format and dimensions the image's header gives: from its first bytes, or, when they
/// do not reach the dimensions, from the whole file.
fn header(payload: &str) -> Result<(ImageType, u64, u64), String> {
    if payload.len() > HEAD_CHARS {
        // HEAD_CHARS is a multiple of 4: the prefix decodes on its own.
        if let Some(found) = read_header(&decode(&payload[..HEAD_CHARS])?) {
            return Ok(found);
        }
    }
    read_header(&decode(payload)?).ok_or_else(|| NOT_AN_IMAGE.to_string())
}

fn read_header(data: &[u8]) -> Option<(ImageType, u64, u64)> {
    let kind = imagesize::image_type(data).ok()?;
    let size = imagesize::blob_size(data).ok()?;
    let side = |n: usize| u64::try_from(n).unwrap_or(u64::MAX);
    Some((kind, side(size.width), side(size.height)))
}

fn decode(text: &str) -> Result<Vec<u8>, String> {
    BASE64
        .decode(text)
        .map_err(|_| "the data URL's data is not valid base64".to_string())
}

/// Bytes that `payload` (valid base64, padded or not) decodes to.
fn decoded_len(payload: &str) -> u64 {
    let chars = payload.trim_end_matches('=').len() as u64;
    chars / 4 * 3 + (chars % 4).saturating_sub(1)
}

#[cfg(test)]
mod tests;
