//! The SIFT descriptor (Lowe 2004, Sec. 6.1) of one keypoint: gradient
//! orientations in a 4 x 4 grid of cells, 8 orientation bins each, weighted
//! by a Gaussian of half the window's width, spread over neighbouring bins
//! by trilinear interpolation, normalised, clipped at 0.2 and normalised
//! again. The sampling follows OpenCV's `calcSIFTDescriptor` (bin centres,
//! window radius, rounding of the keypoint, element order), so the values
//! equal `cv2.SIFT.compute` on the same smoothed image up to its
//! fast-arctangent and rounding (`just features-crosscheck`).

use crate::image::Gray;

/// Cells per side of the descriptor grid.
pub const CELLS: usize = 4;
/// Orientation bins per cell.
pub const ORIENTATIONS: usize = 8;
/// Descriptor length, `CELLS² * ORIENTATIONS`.
pub const LEN: usize = CELLS * CELLS * ORIENTATIONS;

/// Lowe's clip of a normalised descriptor's elements (Sec. 6.1).
const CLIP: f32 = 0.2;
/// The scale of the stored descriptor: unit length times 512, rounded and
/// saturated to 0-255, as OpenCV and VLFeat store SIFT.
const STORED_SCALE: f32 = 512.0;
/// OpenCV's `SIFT_INIT_SIGMA`: the blur an input image is assumed to carry.
const ASSUMED_BLUR: f32 = 0.5;
/// OpenCV's `sigma`: the blur of an octave's first level.
const OCTAVE_BLUR: f32 = 1.6;

/// SIFT of a whole patch: the keypoint at the patch's centre, one cell a
/// quarter of the patch's side, orientation 0 (the Photo Tourism patches
/// are already rotated to their dominant orientation and scaled to their
/// keypoint's scale, in the 2007 release and in the DoG-centred one of
/// Brown, Hua and Winder 2011 that hashbench fetches).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct PatchSift {
    /// Extra Gaussian blur before the gradients, in pixels: by default
    /// √(1.6² − 0.5²) ≈ 1.52, what OpenCV applies to the image of a keypoint
    /// at octave 0.
    pub presmooth: f32,
}

impl Default for PatchSift {
    fn default() -> Self {
        Self {
            presmooth: (OCTAVE_BLUR * OCTAVE_BLUR - ASSUMED_BLUR * ASSUMED_BLUR).sqrt(),
        }
    }
}

impl PatchSift {
    /// The 128 values of `patch`.
    #[must_use]
    pub fn describe(&self, patch: &Gray) -> [f32; LEN] {
        let smooth = patch.gaussian_blur(self.presmooth);
        let cell = patch.width().min(patch.height()) as f32 / CELLS as f32;
        descriptor(
            &smooth,
            patch.width() as f32 / 2.0,
            patch.height() as f32 / 2.0,
            cell,
            0.0,
        )
    }
}

/// The descriptor of the keypoint at `(x, y)` (rounded to the nearest
/// pixel, ties to even, as OpenCV does) whose cells are `cell` pixels wide (OpenCV's
/// `3 * size / 2`), rotated by `angle` degrees (a keypoint's `angle`), over
/// an image already smoothed to the keypoint's scale. Element
/// `(row * CELLS + col) * ORIENTATIONS + bin`, rows top to bottom.
#[must_use]
pub fn descriptor(img: &Gray, x: f32, y: f32, cell: f32, angle: f32) -> [f32; LEN] {
    let (d, n) = (CELLS as isize, ORIENTATIONS);
    let (px, py) = (x.round_ties_even() as isize, y.round_ties_even() as isize);
    // OpenCV turns the keypoint's angle into the descriptor's by 360 - angle
    let ori = if angle == 0.0 { 0.0 } else { 360.0 - angle };
    let (sin_t, cos_t) = ori.to_radians().sin_cos();
    let (cos_t, sin_t) = (cos_t / cell, sin_t / cell);
    let diagonal = ((img.width().pow(2) + img.height().pow(2)) as f32).sqrt();
    let radius = (cell * std::f32::consts::SQRT_2 * (d + 1) as f32 * 0.5)
        .round()
        .min(diagonal) as isize;
    // a border of one bin on each side catches the interpolation's spill
    let stride_o = n + 2;
    let stride_c = (CELLS + 2) * stride_o;
    let mut hist = vec![0f32; (CELLS + 2) * stride_c];
    let half = d as f32 / 2.0 - 0.5;
    let weight_scale = -1.0 / (d as f32 * d as f32 * 0.5);
    let bins_per_degree = n as f32 / 360.0;
    let (w, h) = (img.width() as isize, img.height() as isize);
    for i in -radius..=radius {
        for j in -radius..=radius {
            let c_rot = j as f32 * cos_t - i as f32 * sin_t;
            let r_rot = j as f32 * sin_t + i as f32 * cos_t;
            let (rbin, cbin) = (r_rot + half, c_rot + half);
            let (r, c) = (py + i, px + j);
            if !(rbin > -1.0
                && rbin < d as f32
                && cbin > -1.0
                && cbin < d as f32
                && r > 0
                && r < h - 1
                && c > 0
                && c < w - 1)
            {
                continue;
            }
            let (r, c) = (r as usize, c as usize);
            let dx = img.at(c + 1, r) - img.at(c - 1, r);
            let dy = img.at(c, r - 1) - img.at(c, r + 1);
            let mag = dx.hypot(dy) * ((c_rot * c_rot + r_rot * r_rot) * weight_scale).exp();
            let theta = dy.atan2(dx).to_degrees().rem_euclid(360.0);
            let obin = (theta - ori) * bins_per_degree;
            let (r0, c0, o0) = (rbin.floor(), cbin.floor(), obin.floor());
            let (fr, fc, fo) = (rbin - r0, cbin - c0, obin - o0);
            let o0 = (o0 as isize).rem_euclid(n as isize) as usize;
            let base =
                (r0 as isize + 1) as usize * stride_c + (c0 as isize + 1) as usize * stride_o;
            for (dr, wr) in [(0, 1.0 - fr), (1, fr)] {
                for (dc, wc) in [(0, 1.0 - fc), (1, fc)] {
                    for (dob, wo) in [(0, 1.0 - fo), (1, fo)] {
                        hist[base + dr * stride_c + dc * stride_o + o0 + dob] += mag * wr * wc * wo;
                    }
                }
            }
        }
    }
    let mut out = [0f32; LEN];
    for row in 0..CELLS {
        for col in 0..CELLS {
            let cellh = &mut hist[(row + 1) * stride_c + (col + 1) * stride_o..][..stride_o];
            // the orientation bins wrap around
            cellh[0] += cellh[n];
            cellh[1] += cellh[n + 1];
            out[(row * CELLS + col) * n..][..n].copy_from_slice(&cellh[..n]);
        }
    }
    normalise(&mut out);
    out
}

/// Unit length, clipped at [`CLIP`], unit length again, then scaled to the
/// stored 0-255 integers (ties to even, as OpenCV's `saturate_cast`).
fn normalise(v: &mut [f32; LEN]) {
    let norm = v.iter().map(|x| x * x).sum::<f32>().sqrt();
    let limit = norm * CLIP;
    v.iter_mut().for_each(|x| *x = x.min(limit));
    let norm = v.iter().map(|x| x * x).sum::<f32>().sqrt();
    let scale = STORED_SCALE / norm.max(f32::EPSILON);
    v.iter_mut()
        .for_each(|x| *x = (*x * scale).round_ties_even().clamp(0.0, 255.0));
}
