//! Dense SIFT words in a spatial pyramid (Lazebnik, Schmid, Ponce 2006):
//! SIFT descriptors of 16 x 16-pixel windows on an 8-pixel grid, quantised
//! to a k-means vocabulary, counted in the cells of a pyramid of levels
//! 0..=L (2^l x 2^l cells at level l), each level weighted as the pyramid
//! match kernel weights it (1/2^L at level 0, 1/2^(L-l+1) above), so that
//! the histogram intersection of two vectors is their SPM kernel (Sec. 3,
//! eq. 3 and 4).

use rand::{RngExt, SeedableRng};
use rand_chacha::ChaCha8Rng;
use rayon::prelude::*;

use crate::image::Gray;
use crate::sift::{self, LEN};

/// Where and how densely SIFT is sampled.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct DenseSift {
    /// Grid spacing in pixels (8 in the paper).
    pub step: usize,
    /// Width of one of the 4 x 4 cells, in pixels (4: 16-pixel windows).
    pub cell: f32,
    /// Images are first scaled so their longer side is at most this.
    pub max_side: usize,
    /// Gaussian blur before the gradients, in pixels.
    pub presmooth: f32,
}

impl Default for DenseSift {
    fn default() -> Self {
        Self {
            step: 8,
            cell: 4.0,
            max_side: 300,
            presmooth: 0.8,
        }
    }
}

/// One dense descriptor and where its window is centred (in the scaled image,
/// as a fraction of its width and height).
#[derive(Debug, Clone)]
pub struct Located {
    /// The 128 values.
    pub descriptor: [f32; LEN],
    /// Centre, `x / width`, in `[0, 1)`.
    pub fx: f32,
    /// Centre, `y / height`, in `[0, 1)`.
    pub fy: f32,
}

impl DenseSift {
    /// The smallest side an image needs for one window (16 pixels).
    #[must_use]
    pub fn min_side(&self) -> usize {
        2 * (2.0 * self.cell) as usize
    }

    /// Every window whose 16 x 16 pixels lie inside the (scaled) image.
    #[must_use]
    pub fn describe(&self, img: &Gray) -> Vec<Located> {
        let img = img.fit_within(self.max_side);
        let smooth = img.gaussian_blur(self.presmooth);
        let half = self.min_side() / 2;
        let (w, h) = (img.width(), img.height());
        if w < 2 * half || h < 2 * half {
            return Vec::new();
        }
        let mut out = Vec::new();
        for cy in (half..=h - half).step_by(self.step) {
            for cx in (half..=w - half).step_by(self.step) {
                out.push(Located {
                    descriptor: sift::descriptor(&smooth, cx as f32, cy as f32, self.cell, 0.0),
                    fx: cx as f32 / w as f32,
                    fy: cy as f32 / h as f32,
                });
            }
        }
        out
    }
}

/// A visual vocabulary: k-means centres of SIFT descriptors.
#[derive(Debug, Clone, PartialEq)]
pub struct Vocabulary {
    centres: Vec<[f32; LEN]>,
}

/// Lloyd iterations at most, when assignments keep changing.
const LLOYD_ITERATIONS: usize = 50;

fn sq_dist(a: &[f32; LEN], b: &[f32; LEN]) -> f32 {
    a.iter().zip(b).map(|(x, y)| (x - y) * (x - y)).sum()
}

impl Vocabulary {
    /// `k` centres of `samples`: k-means++ seeding from `seed`, then Lloyd
    /// iterations until no assignment changes (at most 50); an emptied
    /// cluster keeps its centre. Assignments run in parallel, sums in order:
    /// the result does not depend on the thread count.
    ///
    /// # Panics
    /// If `k` is 0 or exceeds the number of samples.
    #[must_use]
    pub fn kmeans(samples: &[[f32; LEN]], k: usize, seed: u64) -> Self {
        assert!(
            k > 0 && k <= samples.len(),
            "k-means needs 0 < k <= samples"
        );
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        let mut centres = vec![samples[rng.random_range(0..samples.len())]];
        let mut nearest: Vec<f32> = samples
            .par_iter()
            .map(|s| sq_dist(s, &centres[0]))
            .collect();
        while centres.len() < k {
            let total: f64 = nearest.iter().map(|&d| f64::from(d)).sum();
            let chosen = if total > 0.0 {
                let mut r = rng.random::<f64>() * total;
                nearest
                    .iter()
                    .position(|&d| {
                        r -= f64::from(d);
                        r <= 0.0
                    })
                    .unwrap_or(samples.len() - 1)
            } else {
                rng.random_range(0..samples.len())
            };
            let c = samples[chosen];
            nearest
                .par_iter_mut()
                .zip(samples)
                .for_each(|(d, s)| *d = d.min(sq_dist(s, &c)));
            centres.push(c);
        }
        let mut vocabulary = Self { centres };
        let mut assignment = vec![usize::MAX; samples.len()];
        for _ in 0..LLOYD_ITERATIONS {
            let next: Vec<usize> = samples.par_iter().map(|s| vocabulary.word(s)).collect();
            if next == assignment {
                break;
            }
            assignment = next;
            let mut sums = vec![[0f64; LEN]; k];
            let mut counts = vec![0usize; k];
            for (s, &a) in samples.iter().zip(&assignment) {
                counts[a] += 1;
                sums[a]
                    .iter_mut()
                    .zip(s)
                    .for_each(|(t, v)| *t += f64::from(*v));
            }
            for ((c, sum), &count) in vocabulary.centres.iter_mut().zip(&sums).zip(&counts) {
                if count > 0 {
                    c.iter_mut()
                        .zip(sum)
                        .for_each(|(c, s)| *c = (s / count as f64) as f32);
                }
            }
        }
        vocabulary
    }

    /// The vocabulary's centres, in word order.
    #[must_use]
    pub fn centres(&self) -> &[[f32; LEN]] {
        &self.centres
    }

    /// A vocabulary of given centres.
    #[must_use]
    pub fn from_centres(centres: Vec<[f32; LEN]>) -> Self {
        Self { centres }
    }

    /// The nearest centre's index (the lower index on a tie).
    #[must_use]
    pub fn word(&self, d: &[f32; LEN]) -> usize {
        self.centres
            .iter()
            .enumerate()
            .map(|(i, c)| (sq_dist(d, c), i))
            .min_by(|a, b| a.0.total_cmp(&b.0).then(a.1.cmp(&b.1)))
            .expect("a vocabulary has a word")
            .1
    }

    /// Number of words.
    #[must_use]
    pub fn len(&self) -> usize {
        self.centres.len()
    }

    /// Whether there are no words.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.centres.is_empty()
    }
}

/// `each` of one image's descriptors for the vocabulary, drawn without
/// replacement by a generator seeded with `(seed, image)` (all of them when
/// it has fewer): the sample does not depend on the order images are read.
#[must_use]
pub fn sample(located: &[Located], each: usize, seed: u64, image: u64) -> Vec<[f32; LEN]> {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    rng.set_stream(image);
    let mut idx: Vec<usize> = (0..located.len()).collect();
    let take = each.min(idx.len());
    for i in 0..take {
        let j = rng.random_range(i..idx.len());
        idx.swap(i, j);
    }
    idx[..take].iter().map(|&i| located[i].descriptor).collect()
}

/// The weighted spatial-pyramid histogram of an image's words, levels
/// 0..=`levels`, each level's cells in row-major order, words within a
/// cell; counts divided by the number of descriptors (Lazebnik's
/// normalisation for images with different numbers of features). Length
/// `words * sum_l 4^l`.
#[must_use]
pub fn spatial_pyramid(located: &[Located], vocabulary: &Vocabulary, levels: u32) -> Vec<f32> {
    let words = vocabulary.len();
    let cells_total: usize = (0..=levels).map(|l| 4usize.pow(l)).sum();
    let mut out = vec![0f32; words * cells_total];
    if located.is_empty() {
        return out;
    }
    let share = 1.0 / located.len() as f32;
    for loc in located {
        let word = vocabulary.word(&loc.descriptor);
        let mut offset = 0;
        for l in 0..=levels {
            let side = 1usize << l;
            let weight = if l == 0 {
                1.0 / (1u32 << levels) as f32
            } else {
                1.0 / (1u32 << (levels - l + 1)) as f32
            };
            let cx = ((loc.fx * side as f32) as usize).min(side - 1);
            let cy = ((loc.fy * side as f32) as usize).min(side - 1);
            out[offset + (cy * side + cx) * words + word] += weight * share;
            offset += side * side * words;
        }
    }
    out
}
