//! The output side of the safety line: every rendered image passes a check in the gateway
//! before it is returned. A failed check withholds the image and voids the hold.
//!
//! [`OutputCheck`] is the seam; the classifier that judges an image (SFW mode, and the
//! absolute line on the image itself) plugs in here from outside the gateway
//! (`shoal-classifier`). Without one, [`Unconfigured`] fails closed: nothing can be checked,
//! so image generation answers 503. [`PngOnly`] checks only that the result is a PNG of the
//! size that was asked for (the gateway's own tests run on it).

/// What the check says about one image.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Verdict {
    Pass,
    /// The image is withheld: the request is answered 400 `content_policy_violation`.
    Withheld,
    /// Not the image that was asked for (not a PNG, or the wrong size): a worker fault.
    Malformed,
    /// Adult content in a request that did not set `nsfw`: 400 `nsfw_output_blocked`.
    AdultInSfw,
    /// A minor together with adult content, in either mode (the absolute line): 400
    /// `content_policy_violation`, counted on its own.
    MinorWithAdult,
    /// A minor in an `nsfw` request, with or without adult content flagged: 400
    /// `content_policy_violation`, counted on its own.
    MinorInNsfw,
    /// The check could not run on this image: 503, nothing returned (fail closed).
    Unavailable,
}

/// The request an image was made for, as far as a check needs to know.
#[derive(Debug, Clone, Copy)]
pub struct Asked {
    pub width: u32,
    pub height: u32,
    pub nsfw: bool,
}

/// Judges a rendered image. Runs on a blocking thread, so it may take its time.
pub trait OutputCheck: Send + Sync + 'static {
    fn check(&self, png: &[u8], asked: Asked) -> Verdict;

    /// Whether images can be checked at all. When not, image requests are answered 503
    /// before anything is held or rendered.
    fn available(&self) -> bool {
        true
    }
}

/// No classifier configured: no image can be checked, so none is generated.
#[derive(Debug, Default, Clone, Copy)]
pub struct Unconfigured;

impl OutputCheck for Unconfigured {
    fn check(&self, _png: &[u8], _asked: Asked) -> Verdict {
        Verdict::Unavailable
    }

    fn available(&self) -> bool {
        false
    }
}

/// The check used when no classifier is configured: the bytes are a PNG of the asked size.
#[derive(Debug, Default, Clone, Copy)]
pub struct PngOnly;

impl OutputCheck for PngOnly {
    fn check(&self, png: &[u8], asked: Asked) -> Verdict {
        match png_size(png) {
            Some(size) if size == (asked.width, asked.height) => Verdict::Pass,
            _ => Verdict::Malformed,
        }
    }
}

const PNG_SIGNATURE: &[u8; 8] = b"\x89PNG\r\n\x1a\n";

/// Width and height from a PNG's header chunk (IHDR, which the format puts first).
pub fn png_size(png: &[u8]) -> Option<(u32, u32)> {
    if png.len() < 24 || &png[..8] != PNG_SIGNATURE || &png[12..16] != b"IHDR" {
        return None;
    }
    let width = u32::from_be_bytes(png[16..20].try_into().ok()?);
    let height = u32::from_be_bytes(png[20..24].try_into().ok()?);
    Some((width, height))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn header(width: u32, height: u32) -> Vec<u8> {
        let mut png = PNG_SIGNATURE.to_vec();
        png.extend_from_slice(&13u32.to_be_bytes());
        png.extend_from_slice(b"IHDR");
        png.extend_from_slice(&width.to_be_bytes());
        png.extend_from_slice(&height.to_be_bytes());
        png
    }

    #[test]
    fn png_only_wants_a_png_of_the_asked_size() {
        let asked = Asked {
            width: 512,
            height: 576,
            nsfw: false,
        };
        assert_eq!(PngOnly.check(&header(512, 576), asked), Verdict::Pass);
        assert_eq!(PngOnly.check(&header(576, 512), asked), Verdict::Malformed);
        assert_eq!(
            PngOnly.check(b"GIF89a not a png at all....", asked),
            Verdict::Malformed
        );
        assert_eq!(
            PngOnly.check(&header(512, 576)[..20], asked),
            Verdict::Malformed
        );
    }
}
