//! CLIP's image preprocessing: the shorter side resized to the model's input size (bicubic),
//! the centre square cropped, each channel scaled to [0, 1] and standardised with CLIP's
//! mean and deviation. A 512² and a 1024² render both become one 224² input.

use anyhow::Context;
use candle_core::{Device, Tensor};
use image::imageops::{self, FilterType};
use image::ImageFormat;

/// CLIP's per-channel mean and standard deviation (RGB), from its training data.
pub const MEAN: [f32; 3] = [0.481_454_66, 0.457_827_5, 0.408_210_73];
pub const STD: [f32; 3] = [0.268_629_54, 0.261_302_6, 0.275_777_1];

/// The `(1, 3, size, size)` input tensor for a PNG.
pub fn pixels(png: &[u8], size: usize) -> anyhow::Result<Tensor> {
    let rgb = image::load_from_memory_with_format(png, ImageFormat::Png)
        .context("the image is not a readable PNG")?
        .to_rgb8();
    let (w, h) = rgb.dimensions();
    anyhow::ensure!(w > 0 && h > 0, "the image is empty");
    let side = u32::try_from(size)?;
    let scale = f64::from(side) / f64::from(w.min(h));
    let resized_w = ((f64::from(w) * scale).round() as u32).max(side);
    let resized_h = ((f64::from(h) * scale).round() as u32).max(side);
    let resized = imageops::resize(&rgb, resized_w, resized_h, FilterType::CatmullRom);
    let (x, y) = ((resized_w - side) / 2, (resized_h - side) / 2);
    let square = imageops::crop_imm(&resized, x, y, side, side).to_image();
    let plane = size * size;
    let mut data = vec![0f32; 3 * plane];
    for (x, y, p) in square.enumerate_pixels() {
        let at = y as usize * size + x as usize;
        for c in 0..3 {
            data[c * plane + at] = (f32::from(p[c]) / 255.0 - MEAN[c]) / STD[c];
        }
    }
    Ok(Tensor::from_vec(data, (1, 3, size, size), &Device::Cpu)?)
}
