//! PNG encoding: RGB8, no ancillary chunks (no time, no text), so equal pixels give equal bytes.

use crate::SdError;

pub(crate) fn png_rgb8(rgb: &[u8], width: u32, height: u32) -> Result<Vec<u8>, SdError> {
    // A noisy 1024² RGB image compresses to about its raw size: reserve that much.
    let mut out = Vec::with_capacity(rgb.len() + rgb.len() / 64 + 1024);
    let mut encoder = png::Encoder::new(&mut out, width, height);
    encoder.set_color(png::ColorType::Rgb);
    encoder.set_depth(png::BitDepth::Eight);
    let mut writer = encoder.write_header()?;
    writer.write_image_data(rgb)?;
    writer.finish()?;
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trips_and_is_deterministic() {
        let (w, h) = (17u32, 9u32);
        let rgb: Vec<u8> = (0..w * h * 3).map(|i| (i * 7 % 251) as u8).collect();
        let a = png_rgb8(&rgb, w, h).unwrap();
        assert_eq!(a, png_rgb8(&rgb, w, h).unwrap());
        let mut reader = png::Decoder::new(std::io::Cursor::new(&a))
            .read_info()
            .unwrap();
        let mut buf = vec![0; reader.output_buffer_size().unwrap()];
        let info = reader.next_frame(&mut buf).unwrap();
        assert_eq!((info.width, info.height), (w, h));
        assert_eq!(info.color_type, png::ColorType::Rgb);
        assert_eq!(&buf[..info.buffer_size()], &rgb[..]);
    }
}
