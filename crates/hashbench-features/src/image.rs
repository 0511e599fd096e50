//! A grey image of f32 values and the few operations the extractors share:
//! decoding, Gaussian smoothing, bilinear resizing, cropping.

use std::path::Path;

use crate::FeatureError;

/// A grey image, row-major: `at(x, y)` is column `x` of row `y`.
#[derive(Debug, Clone, PartialEq)]
pub struct Gray {
    width: usize,
    height: usize,
    pixels: Vec<f32>,
}

/// How a colour image becomes grey.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum GrayFrom {
    /// The mean of the three channels (`LMgist`'s `mean(img, 3)`).
    ChannelMean,
    /// ITU-R BT.601 luma, 0.299 R + 0.587 G + 0.114 B (what OpenCV and
    /// VLFeat's `vl_imreadgray` use before SIFT).
    Luma,
}

/// The most pixels an image file may declare (64 megapixels; the
/// collections' images are below one).
const MAX_PIXELS: u64 = 1 << 26;
/// The most pixels one byte of an image file can hold: a flat JPEG needs a
/// few bits per 8 x 8 block, so even a blank image keeps far below this.
const PIXELS_PER_BYTE: u64 = 4096;

impl Gray {
    /// An image from its row-major pixels.
    ///
    /// # Panics
    /// If `pixels.len() != width * height`.
    #[must_use]
    pub fn new(width: usize, height: usize, pixels: Vec<f32>) -> Self {
        assert_eq!(
            pixels.len(),
            width * height,
            "pixels of a {width}x{height} image"
        );
        Self {
            width,
            height,
            pixels,
        }
    }

    /// An image whose pixel `(x, y)` is `f(x, y)`.
    pub fn from_fn(width: usize, height: usize, f: impl Fn(usize, usize) -> f32) -> Self {
        let pixels = (0..height)
            .flat_map(|y| (0..width).map(move |x| (x, y)))
            .map(|(x, y)| f(x, y))
            .collect();
        Self::new(width, height, pixels)
    }

    /// Grey levels 0-255 from three interleaved 8-bit channels.
    #[must_use]
    pub fn from_rgb8(width: usize, height: usize, rgb: &[u8], grey: GrayFrom) -> Self {
        let pixels = rgb
            .chunks_exact(3)
            .map(|p| {
                let (r, g, b) = (f32::from(p[0]), f32::from(p[1]), f32::from(p[2]));
                match grey {
                    GrayFrom::ChannelMean => (r + g + b) / 3.0,
                    // in thousandths, so a grey pixel (r = g = b) keeps its value exactly
                    GrayFrom::Luma => (299.0 * r + 587.0 * g + 114.0 * b) / 1000.0,
                }
            })
            .collect();
        Self::new(width, height, pixels)
    }

    /// Decodes an image file (PNG, JPEG, BMP) to grey levels 0-255.
    ///
    /// # Errors
    /// [`FeatureError::Image`] naming the file.
    pub fn open(path: &Path, grey: GrayFrom) -> Result<Self, FeatureError> {
        let broken = |reason: String| FeatureError::Image {
            path: path.to_path_buf(),
            reason,
        };
        // the header's size, checked against the bytes that follow it before
        // anything is allocated: a decoder fills what a short payload lacks
        let (w, h) = image::image_dimensions(path).map_err(|e| broken(e.to_string()))?;
        let bytes = std::fs::metadata(path)
            .map_err(|e| broken(e.to_string()))?
            .len();
        let pixels = u64::from(w) * u64::from(h);
        if pixels > MAX_PIXELS || pixels > bytes.saturating_mul(PIXELS_PER_BYTE) {
            return Err(broken(format!(
                "its header says {w} x {h} pixels, which {bytes} bytes cannot hold (at most {PIXELS_PER_BYTE} pixels a byte, {MAX_PIXELS} in all): a truncated or altered file"
            )));
        }
        let decoded = image::open(path).map_err(|e| broken(e.to_string()))?;
        Ok(Self::from_dynamic(&decoded, grey))
    }

    /// Grey levels 0-255 of a decoded image (grey images as they are).
    #[must_use]
    pub fn from_dynamic(decoded: &image::DynamicImage, grey: GrayFrom) -> Self {
        let (width, height) = (decoded.width() as usize, decoded.height() as usize);
        if decoded.color().channel_count() <= 2 {
            let luma = decoded.to_luma8();
            return Self::new(
                width,
                height,
                luma.pixels().map(|p| f32::from(p[0])).collect(),
            );
        }
        Self::from_rgb8(width, height, decoded.to_rgb8().as_raw(), grey)
    }

    /// Width in pixels.
    #[must_use]
    pub fn width(&self) -> usize {
        self.width
    }

    /// Height in pixels.
    #[must_use]
    pub fn height(&self) -> usize {
        self.height
    }

    /// Row-major pixels.
    #[must_use]
    pub fn pixels(&self) -> &[f32] {
        &self.pixels
    }

    /// Pixel at column `x`, row `y`.
    #[must_use]
    pub fn at(&self, x: usize, y: usize) -> f32 {
        self.pixels[y * self.width + x]
    }

    /// The `w` x `h` window whose top-left pixel is `(x, y)`.
    ///
    /// # Panics
    /// If the window leaves the image.
    #[must_use]
    pub fn crop(&self, x: usize, y: usize, w: usize, h: usize) -> Self {
        assert!(
            x + w <= self.width && y + h <= self.height,
            "crop inside the image"
        );
        Self::from_fn(w, h, |i, j| self.at(x + i, y + j))
    }

    /// The image convolved with a Gaussian of standard deviation `sigma`
    /// pixels as OpenCV's `GaussianBlur` does for float images: separable,
    /// `round(8 sigma + 1) | 1` taps, border pixels reflected about the edge
    /// (`BORDER_REFLECT_101`); `sigma <= 0` returns the image unchanged.
    #[must_use]
    pub fn gaussian_blur(&self, sigma: f32) -> Self {
        if sigma <= 0.0 {
            return self.clone();
        }
        let taps = ((8.0 * sigma + 1.0).round_ties_even() as isize) | 1;
        let radius = taps / 2;
        let mut kernel: Vec<f32> = (-radius..=radius)
            .map(|k| (-((k * k) as f32) / (2.0 * sigma * sigma)).exp())
            .collect();
        let total: f32 = kernel.iter().sum();
        kernel.iter_mut().for_each(|k| *k /= total);
        let along = |len: usize, at: &dyn Fn(usize) -> f32, i: usize| -> f32 {
            kernel
                .iter()
                .zip(-radius..=radius)
                .map(|(k, o)| k * at(reflect(i as isize + o, len)))
                .sum()
        };
        let rows = Self::from_fn(self.width, self.height, |x, y| {
            along(self.width, &|i| self.at(i, y), x)
        });
        Self::from_fn(self.width, self.height, |x, y| {
            along(self.height, &|j| rows.at(x, j), y)
        })
    }

    /// The image resampled to `w` x `h` by bilinear interpolation, pixel
    /// centres aligned (MATLAB's `imresize(..., 'bilinear')` without its
    /// anti-aliasing prefilter).
    #[must_use]
    pub fn resize_bilinear(&self, w: usize, h: usize) -> Self {
        let sx = self.width as f32 / w as f32;
        let sy = self.height as f32 / h as f32;
        Self::from_fn(w, h, |x, y| {
            let fx = ((x as f32 + 0.5) * sx - 0.5).clamp(0.0, (self.width - 1) as f32);
            let fy = ((y as f32 + 0.5) * sy - 0.5).clamp(0.0, (self.height - 1) as f32);
            let (x0, y0) = (fx.floor() as usize, fy.floor() as usize);
            let (x1, y1) = ((x0 + 1).min(self.width - 1), (y0 + 1).min(self.height - 1));
            let (ax, ay) = (fx - x0 as f32, fy - y0 as f32);
            let top = self.at(x0, y0) * (1.0 - ax) + self.at(x1, y0) * ax;
            let bottom = self.at(x0, y1) * (1.0 - ax) + self.at(x1, y1) * ax;
            top * (1.0 - ay) + bottom * ay
        })
    }

    /// `LMgist`'s `imresizecrop`: scaled (bilinear) so the shorter side is
    /// `side`, then the centre `side` x `side` square.
    #[must_use]
    pub fn resize_crop_square(&self, side: usize) -> Self {
        if self.width == side && self.height == side {
            return self.clone();
        }
        let scale = side as f32 / self.width.min(self.height) as f32;
        let w = ((self.width as f32 * scale).round() as usize).max(side);
        let h = ((self.height as f32 * scale).round() as usize).max(side);
        self.resize_bilinear(w, h)
            .crop((w - side) / 2, (h - side) / 2, side, side)
    }

    /// Scaled (bilinear) so that neither side exceeds `side`; unchanged when
    /// it already fits.
    #[must_use]
    pub fn fit_within(&self, side: usize) -> Self {
        let longest = self.width.max(self.height);
        if longest <= side {
            return self.clone();
        }
        let scale = side as f32 / longest as f32;
        let w = ((self.width as f32 * scale).round() as usize).max(1);
        let h = ((self.height as f32 * scale).round() as usize).max(1);
        self.resize_bilinear(w, h)
    }
}

/// The image files (PNG, JPEG, BMP, by extension) directly in `dir`, in
/// name order.
///
/// # Errors
/// An unreadable folder, named.
pub fn images_in(dir: &Path) -> Result<Vec<std::path::PathBuf>, FeatureError> {
    let mut files: Vec<std::path::PathBuf> = std::fs::read_dir(dir)
        .map_err(FeatureError::io(dir))?
        .filter_map(Result::ok)
        .map(|e| e.path())
        .filter(|p| {
            p.extension().is_some_and(|x| {
                ["png", "jpg", "jpeg", "bmp"].contains(&x.to_string_lossy().to_lowercase().as_str())
            })
        })
        .collect();
    files.sort();
    Ok(files)
}

/// Index `i` reflected into `0..len` about the edge pixels (…2 1 | 0 1 2 … n-1 | n-2 …).
pub(crate) fn reflect(i: isize, len: usize) -> usize {
    let n = len as isize;
    if n == 1 {
        return 0;
    }
    let period = 2 * (n - 1);
    let m = i.rem_euclid(period);
    (if m < n { m } else { period - m }) as usize
}

/// Index `i` mirrored into `0..len` with the edge pixel repeated (MATLAB's
/// `padarray(..., 'symmetric')`: …1 0 | 0 1 … n-1 | n-1 n-2 …).
pub(crate) fn symmetric(i: isize, len: usize) -> usize {
    let n = len as isize;
    let period = 2 * n;
    let m = i.rem_euclid(period);
    (if m < n { m } else { period - 1 - m }) as usize
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reflections_follow_the_two_padding_rules() {
        let r: Vec<usize> = (-3..7).map(|i| reflect(i, 4)).collect();
        assert_eq!(r, [3, 2, 1, 0, 1, 2, 3, 2, 1, 0]);
        let s: Vec<usize> = (-3..7).map(|i| symmetric(i, 4)).collect();
        assert_eq!(s, [2, 1, 0, 0, 1, 2, 3, 3, 2, 1]);
    }

    #[test]
    fn a_blur_keeps_a_constant_and_the_mean_of_a_periodic_ramp() {
        let flat = Gray::from_fn(9, 7, |_, _| 42.0);
        assert!(
            flat.gaussian_blur(1.5)
                .pixels()
                .iter()
                .all(|&v| (v - 42.0).abs() < 1e-4)
        );
        // a linear ramp is kept away from the borders (the kernel is symmetric)
        let ramp = Gray::from_fn(40, 5, |x, _| x as f32);
        let b = ramp.gaussian_blur(1.0);
        assert!((b.at(20, 2) - 20.0).abs() < 1e-4);
    }

    #[test]
    fn bilinear_resize_of_a_ramp_is_a_ramp() {
        let ramp = Gray::from_fn(8, 8, |x, _| x as f32);
        let up = ramp.resize_bilinear(16, 4);
        // output column x sits at input position (x + 0.5) / 2 - 0.5
        for x in 1..15 {
            let want = ((x as f32 + 0.5) / 2.0 - 0.5).clamp(0.0, 7.0);
            assert!((up.at(x, 1) - want).abs() < 1e-5, "column {x}");
        }
        let sq = Gray::from_fn(30, 20, |x, _| x as f32).resize_crop_square(10);
        assert_eq!((sq.width(), sq.height()), (10, 10));
    }
}
