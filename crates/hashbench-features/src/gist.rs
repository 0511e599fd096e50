//! The GIST descriptor (Oliva and Torralba 2001) as the authors' public
//! `LMgist` computes it: the grey image resized and cropped to a square,
//! stretched to 0-255, prefiltered (log, whitening by a Gaussian high-pass,
//! local contrast normalisation), filtered by a bank of Gabor transfer
//! functions in the frequency domain on the image padded symmetrically, and
//! the magnitude of each response averaged over a grid of blocks. The
//! element order is `LMgist`'s: filter by filter (scale, then orientation),
//! and within a filter the blocks column by column (MATLAB's order).

use std::sync::Arc;

use rustfft::num_complex::Complex32;
use rustfft::{Fft, FftPlanner};

use crate::image::{Gray, symmetric};

/// `LMgist`'s parameters.
#[derive(Debug, Clone, PartialEq)]
pub struct GistParams {
    /// Side of the square the image is resized and cropped to.
    pub image_size: usize,
    /// Gabor orientations at each scale, finest scale first.
    pub orientations_per_scale: Vec<usize>,
    /// Blocks per side of the averaging grid.
    pub blocks: usize,
    /// Cut-off of the prefilter's Gaussian, in cycles per image.
    pub fc_prefilt: f32,
    /// Symmetric padding added around the image before filtering, in pixels.
    pub boundary: usize,
}

impl GistParams {
    /// `LMgist`'s defaults for a patch or image of side `image_size`: 4 scales
    /// x 8 orientations, 4 x 4 blocks (512 values), `fc_prefilt` 4, 32 pixels
    /// of padding.
    #[must_use]
    pub fn lmgist(image_size: usize) -> Self {
        Self {
            image_size,
            orientations_per_scale: vec![8; 4],
            blocks: 4,
            fc_prefilt: 4.0,
            boundary: 32,
        }
    }

    /// The tiny-image GIST (Torralba, Fergus, Freeman 2008): 32 x 32 images,
    /// 3 scales x 8 orientations, 4 x 4 blocks: 384 values.
    #[must_use]
    pub fn tiny() -> Self {
        Self {
            orientations_per_scale: vec![8; 3],
            ..Self::lmgist(32)
        }
    }

    /// Length of the descriptor.
    #[must_use]
    pub fn len(&self) -> usize {
        self.orientations_per_scale.iter().sum::<usize>() * self.blocks * self.blocks
    }

    /// Whether the descriptor is empty (no filters or no blocks).
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

/// A GIST extractor: the filter bank and FFT plans for one parameter set,
/// built once and shared across threads.
pub struct Gist {
    params: GistParams,
    /// Gabor transfer functions on the padded grid, FFT order.
    filters: Vec<Vec<f32>>,
    padded: Plan,
    prefilter: Prefilter,
}

/// `prefilt`'s whitening filter and plan, on the image padded by
/// [`PREFILTER_PAD`] pixels.
struct Prefilter {
    gaussian: Vec<f32>,
    plan: Plan,
}

/// `prefilt`'s padding (`w = 5`).
const PREFILTER_PAD: usize = 5;
/// `prefilt`'s local contrast floor.
const CONTRAST_FLOOR: f32 = 0.2;

/// Forward and inverse FFTs of an `n` x `n` grid.
struct Plan {
    n: usize,
    forward: Arc<dyn Fft<f32>>,
    inverse: Arc<dyn Fft<f32>>,
}

impl Plan {
    fn new(n: usize) -> Self {
        let mut planner = FftPlanner::new();
        Self {
            n,
            forward: planner.plan_fft_forward(n),
            inverse: planner.plan_fft_inverse(n),
        }
    }

    /// The 2-D transform in place (rows, then columns); the inverse is scaled
    /// by 1/n² as MATLAB's `ifft2`.
    fn run(&self, grid: &mut [Complex32], inverse: bool) {
        let n = self.n;
        let fft = if inverse {
            &self.inverse
        } else {
            &self.forward
        };
        fft.process(grid);
        let mut column = vec![Complex32::default(); n];
        for c in 0..n {
            column
                .iter_mut()
                .enumerate()
                .for_each(|(r, v)| *v = grid[r * n + c]);
            fft.process(&mut column);
            column
                .iter()
                .enumerate()
                .for_each(|(r, v)| grid[r * n + c] = *v);
        }
        if inverse {
            let scale = 1.0 / (n * n) as f32;
            grid.iter_mut().for_each(|v| *v *= scale);
        }
    }
}

/// The signed frequency of FFT index `k` on an `n`-point grid
/// (`fftshift` of `-n/2 .. n/2-1`).
fn frequency(k: usize, n: usize) -> f32 {
    if k < n / 2 {
        k as f32
    } else {
        k as f32 - n as f32
    }
}

impl Gist {
    /// The extractor for `params`.
    ///
    /// # Panics
    /// If the image size or the block count is zero.
    #[must_use]
    pub fn new(params: GistParams) -> Self {
        assert!(
            params.image_size > 0 && params.blocks > 0,
            "a GIST needs pixels and blocks"
        );
        let n = params.image_size + 2 * params.boundary;
        let filters = gabor_bank(&params.orientations_per_scale, n);
        let side = params.image_size + 2 * PREFILTER_PAD;
        let side = side + side % 2;
        let s1 = params.fc_prefilt / 2f32.ln().sqrt();
        let gaussian = (0..side * side)
            .map(|i| {
                let (fy, fx) = (frequency(i / side, side), frequency(i % side, side));
                (-(fx * fx + fy * fy) / (s1 * s1)).exp()
            })
            .collect();
        Self {
            params,
            filters,
            padded: Plan::new(n),
            prefilter: Prefilter {
                gaussian,
                plan: Plan::new(side),
            },
        }
    }

    /// The parameters.
    #[must_use]
    pub fn params(&self) -> &GistParams {
        &self.params
    }

    /// The descriptor of `img` ([`GistParams::len`] values).
    #[must_use]
    pub fn describe(&self, img: &Gray) -> Vec<f32> {
        let s = self.params.image_size;
        let img = img.resize_crop_square(s);
        let (lo, hi) = img
            .pixels()
            .iter()
            .fold((f32::INFINITY, f32::NEG_INFINITY), |(lo, hi), &v| {
                (lo.min(v), hi.max(v))
            });
        // LMgist divides by the range; a constant image has none (MATLAB
        // would give NaN): it is taken as black
        let range = hi - lo;
        let stretched = Gray::from_fn(s, s, |x, y| {
            if range > 0.0 {
                255.0 * (img.at(x, y) - lo) / range
            } else {
                0.0
            }
        });
        let whitened = self.prefilter(&stretched);
        self.gabor_energies(&whitened)
    }

    /// `prefilt`: log intensities, minus their Gaussian low-pass, divided by
    /// the local contrast (0.2 + the low-passed square, square-rooted).
    fn prefilter(&self, img: &Gray) -> Gray {
        let s = img.width();
        let plan = &self.prefilter.plan;
        let n = plan.n;
        let pad = PREFILTER_PAD as isize;
        // padded by 5 symmetrically, then to an even side at the bottom right
        let logged = |x: usize, y: usize| (img.at(x, y) + 1.0).ln();
        let padded_at = |x: usize, y: usize| {
            let inner = s + 2 * PREFILTER_PAD;
            let (x, y) = (symmetric(x as isize, inner), symmetric(y as isize, inner));
            logged(
                symmetric(x as isize - pad, s),
                symmetric(y as isize - pad, s),
            )
        };
        let mut grid: Vec<Complex32> = (0..n * n)
            .map(|i| Complex32::new(padded_at(i % n, i / n), 0.0))
            .collect();
        let original: Vec<f32> = grid.iter().map(|v| v.re).collect();
        plan.run(&mut grid, false);
        grid.iter_mut()
            .zip(&self.prefilter.gaussian)
            .for_each(|(v, g)| *v *= *g);
        plan.run(&mut grid, true);
        let highpass: Vec<f32> = original.iter().zip(&grid).map(|(o, l)| o - l.re).collect();
        let mut energy: Vec<Complex32> = highpass
            .iter()
            .map(|v| Complex32::new(v * v, 0.0))
            .collect();
        plan.run(&mut energy, false);
        energy
            .iter_mut()
            .zip(&self.prefilter.gaussian)
            .for_each(|(v, g)| *v *= *g);
        plan.run(&mut energy, true);
        Gray::from_fn(s, s, |x, y| {
            let i = (y + PREFILTER_PAD) * n + x + PREFILTER_PAD;
            highpass[i] / (CONTRAST_FLOOR + energy[i].norm().sqrt())
        })
    }

    /// `gistGabor`: each filter's response magnitude on the padded image,
    /// cropped back and averaged over the blocks.
    fn gabor_energies(&self, img: &Gray) -> Vec<f32> {
        let s = img.width();
        let be = self.params.boundary as isize;
        let n = self.padded.n;
        let mut spectrum: Vec<Complex32> = (0..n * n)
            .map(|i| {
                let (x, y) = ((i % n) as isize - be, (i / n) as isize - be);
                Complex32::new(img.at(symmetric(x, s), symmetric(y, s)), 0.0)
            })
            .collect();
        self.padded.run(&mut spectrum, false);
        let blocks = self.params.blocks;
        let edges: Vec<usize> = (0..=blocks).map(|b| b * s / blocks).collect();
        let mut out = Vec::with_capacity(self.params.len());
        let mut response = vec![Complex32::default(); n * n];
        for filter in &self.filters {
            response
                .iter_mut()
                .zip(&spectrum)
                .zip(filter)
                .for_each(|((r, v), g)| *r = v * *g);
            self.padded.run(&mut response, true);
            let be = self.params.boundary;
            // blocks column by column: the row block varies fastest
            for bx in 0..blocks {
                for by in 0..blocks {
                    let (ys, xs) = (edges[by]..edges[by + 1], edges[bx]..edges[bx + 1]);
                    let count = ys.len() * xs.len();
                    let sum: f32 = ys
                        .flat_map(|y| xs.clone().map(move |x| (x, y)))
                        .map(|(x, y)| response[(y + be) * n + x + be].norm())
                        .sum();
                    out.push(sum / count as f32);
                }
            }
        }
        out
    }
}

/// `createGabor`: one transfer function per (scale, orientation) on an
/// `n` x `n` frequency grid in FFT order.
fn gabor_bank(orientations_per_scale: &[usize], n: usize) -> Vec<Vec<f32>> {
    let pi = std::f32::consts::PI;
    let mut bank = Vec::new();
    for (scale, &orientations) in orientations_per_scale.iter().enumerate() {
        let width = 0.3 / 1.85f32.powi(scale as i32);
        let angular = 16.0 * (orientations * orientations) as f32 / (32.0 * 32.0);
        for o in 0..orientations {
            let turn = pi / orientations as f32 * o as f32;
            let filter = (0..n * n)
                .map(|i| {
                    let (fy, fx) = (frequency(i / n, n), frequency(i % n, n));
                    let radius = fx.hypot(fy);
                    let mut t = fy.atan2(fx) + turn;
                    if t < -pi {
                        t += 2.0 * pi;
                    } else if t > pi {
                        t -= 2.0 * pi;
                    }
                    (-10.0 * 0.35 * (radius / n as f32 / width - 1.0).powi(2)
                        - 2.0 * angular * pi * t * t)
                        .exp()
                })
                .collect();
            bank.push(filter);
        }
    }
    bank
}
