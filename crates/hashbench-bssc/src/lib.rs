#![doc = include_str!("../README.md")]

use faer::Mat;
use hashbench_core::linalg::{column_means, for_each_column_mut, product};
use hashbench_core::method::{Requirements, Supervision};
use hashbench_core::method::{dense_fit_input, dense_with_dim};
use hashbench_core::{
    BitCodes, Data, EncodeError, FitError, HashMethod, HashModel, ParamError, TrainSet,
};
use rand_chacha::ChaCha8Rng;
use rand_distr::{Distribution, StandardNormal};
use rayon::prelude::*;
use serde::{Deserialize, Serialize};

/// BoostSSC hyperparameters.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct BsscParams {
    /// Random directions tried per bit. Default 50.
    pub candidates: usize,
}

impl Default for BsscParams {
    fn default() -> Self {
        Self { candidates: 50 }
    }
}

/// A fitted BoostSSC model: thresholded projections with a weight per bit.
#[derive(Debug, Clone)]
pub struct BsscModel {
    mean: Vec<f64>,
    w: Mat<f64>,
    thresholds: Vec<f64>,
    alphas: Vec<f64>,
}

/// The symmetric signed pair weights wᵢⱼ yᵢⱼ of one boosting round (zero
/// diagonal), with their row sums and their sum over unordered pairs: what
/// every candidate direction's threshold sweep reads.
#[derive(Debug, Clone)]
pub struct SignedPairs {
    signed: Mat<f64>,
    row_sums: Vec<f64>,
    total: f64,
}

impl SignedPairs {
    /// Takes the `l × l` signed weights.
    pub fn new(signed: Mat<f64>) -> Self {
        let row_sums: Vec<f64> = (0..signed.ncols())
            .map(|i| signed.col(i).iter().sum())
            .collect();
        let total = row_sums.iter().sum::<f64>() / 2.0;
        Self {
            signed,
            row_sums,
            total,
        }
    }
}

/// Columns of the signed weights read together by [`left_weights`].
const BLOCK: usize = 8;

/// The best threshold of each direction: (r, threshold), over the
/// projections of the labelled items on it and the round's signed pair
/// weights; `None` for a direction whose projections are all equal.
///
/// Item k's weight towards the items left of it, Σ over items before k in
/// the direction's order of wᵢₖyᵢₖ, summed in that order, is the one O(l²)
/// part of a sweep: every direction's is computed in one pass over the
/// signed weights ([`left_weights`]), then each direction sweeps its
/// thresholds in O(l). The numbers are those of moving one item at a time
/// across the threshold, the same operations in the same order.
pub fn best_thresholds(projections: &[Vec<f64>], pairs: &SignedPairs) -> Vec<Option<(f64, f64)>> {
    let orders: Vec<Vec<usize>> = projections.par_iter().map(|p| ascending(p)).collect();
    let left = left_weights(&orders, &pairs.signed);
    (0..orders.len())
        .into_par_iter()
        .map(|c| {
            let (p, order, left) = (&projections[c], &orders[c], &left[c]);
            let mut cut = 0.0;
            let mut best: Option<(f64, f64)> = None;
            for m in 0..order.len().saturating_sub(1) {
                let k = order[m];
                cut += pairs.row_sums[k] - 2.0 * left[k];
                let (lo, hi) = (p[k], p[order[m + 1]]);
                if lo < hi {
                    let r = pairs.total - 2.0 * cut;
                    if best.is_none_or(|(b, _)| r > b) {
                        best = Some((r, 0.5 * (lo + hi)));
                    }
                }
            }
            best
        })
        .collect()
}

/// The items in ascending order of `p` (ties by index: a total order).
fn ascending(p: &[f64]) -> Vec<usize> {
    let mut order: Vec<usize> = (0..p.len()).collect();
    order.sort_unstable_by(|&a, &b| p[a].total_cmp(&p[b]).then(a.cmp(&b)));
    order
}

/// For every direction c (its items in `orders[c]`) and item k: Σ over the
/// items i before k in c's order of `signed[(i, k)]`, summed in that order
/// (`[c][k]`). Blocks of [`BLOCK`] columns are read once
/// for every direction, and a block's sums run together (each its own
/// chain, in the same order) so they overlap in the processor; a short last
/// block repeats its last column.
fn left_weights(orders: &[Vec<usize>], signed: &Mat<f64>) -> Vec<Vec<f64>> {
    let (l, directions) = (signed.ncols(), orders.len());
    let ranks: Vec<Vec<usize>> = orders
        .iter()
        .map(|order| {
            let mut rank = vec![0; l];
            order.iter().enumerate().for_each(|(m, &i)| rank[i] = m);
            rank
        })
        .collect();
    let mut by_item = vec![0.0; l * directions];
    by_item
        .par_chunks_mut(BLOCK * directions)
        .enumerate()
        .for_each(|(block, out)| {
            let first = block * BLOCK;
            let width = out.len() / directions;
            for (c, (order, rank)) in orders.iter().zip(&ranks).enumerate() {
                // the block's columns by their rank in this order
                let mut by_rank = [(0, 0); BLOCK];
                for (j, slot) in by_rank.iter_mut().take(width).enumerate() {
                    *slot = (rank[first + j], j);
                }
                by_rank[..width].sort_unstable();
                // each cut to l entries: one bounds check serves all eight
                let columns: [&[f64]; BLOCK] = std::array::from_fn(|t| {
                    &signed.col_as_slice(first + by_rank[t.min(width - 1)].1)[..l]
                });
                let mut sums = [0.0; BLOCK];
                let mut from = 0;
                for (t, &(to, j)) in by_rank[..width].iter().enumerate() {
                    // every sum runs on: those already stored (t's left) are
                    // not read again, and a fixed width keeps them in registers
                    for &i in &order[from..to] {
                        for (sum, column) in sums.iter_mut().zip(&columns) {
                            *sum += column[i];
                        }
                    }
                    from = to;
                    out[j * directions + c] = sums[t];
                }
            }
        });
    // direction by direction, so that each sweep reads its own l values
    (0..directions)
        .map(|c| (0..l).map(|k| by_item[k * directions + c]).collect())
        .collect()
}

impl HashMethod for BsscParams {
    type Model = BsscModel;
    const LABEL: &'static str = "BSSC";
    const PAPER: &'static str =
        "Shakhnarovich, \"Learning Task-Specific Similarity\", PhD thesis, MIT 2005";
    const NAME: &'static str = "bssc";
    const REQUIREMENTS: Requirements = Requirements {
        supervision: Supervision::LabelledPairs,
        ..Requirements::UNSUPERVISED
    };

    fn fixture() -> Self {
        Self::default()
    }

    fn validate(&self) -> Result<(), ParamError> {
        if self.candidates == 0 {
            return Err(ParamError::invalid(
                "candidates",
                0,
                "needs at least one direction per bit",
            ));
        }
        Ok(())
    }

    fn is_randomized(&self) -> bool {
        true
    }

    fn train(
        &self,
        train: &TrainSet<'_>,
        n_bits: usize,
        rng: &mut ChaCha8Rng,
    ) -> Result<BsscModel, FitError> {
        let x = dense_fit_input(self, train, n_bits, 2)?;
        if train.labelled.len() < 2 {
            return Err(FitError::MissingLabels { method: "bssc" });
        }
        let (d, l) = (x.ncols(), train.labelled.len());
        let mean = column_means(x);
        let xl = train.labelled_centered(&mean);
        let same = |i: usize, j: usize| train.labels[i] == train.labels[j];
        let mut weight = initial_weights(l, same);
        let (mut w, mut thresholds, mut alphas) = (Mat::zeros(d, n_bits), Vec::new(), Vec::new());
        for k in 0..n_bits {
            let signed = Mat::from_fn(l, l, |i, j| {
                weight[(i, j)] * if same(i, j) { 1.0 } else { -1.0 }
            });
            let directions = random_directions(d, self.candidates, rng);
            let projections: Vec<Vec<f64>> = directions
                .par_iter()
                .map(|dir| {
                    let proj = product(xl.as_ref(), dir.as_ref());
                    (0..l).map(|i| proj[(i, 0)]).collect()
                })
                .collect();
            let found = best_thresholds(&projections, &SignedPairs::new(signed));
            // the first best direction, as if scored one after another
            let mut best: Option<(f64, f64, Mat<f64>, Vec<f64>)> = None;
            for ((found, dir), p) in found.into_iter().zip(directions).zip(projections) {
                if let Some((r, t)) = found
                    && best.as_ref().is_none_or(|b| r > b.0)
                {
                    best = Some((r, t, dir, p));
                }
            }
            let (r, t, dir, p) = best.ok_or(FitError::TooFewItems {
                method: "bssc",
                needed: 2,
                got: 1,
            })?;
            let r = r.clamp(-1.0 + 1e-9, 1.0 - 1e-9);
            let alpha = 0.5 * ((1.0 + r) / (1.0 - r)).ln();
            reweight(&mut weight, &p, t, alpha, same);
            (0..d).for_each(|i| w[(i, k)] = dir[(i, 0)]);
            thresholds.push(t);
            alphas.push(alpha);
        }
        Ok(BsscModel {
            mean,
            w,
            thresholds,
            alphas,
        })
    }
}

/// The first round's pair weights over `l` labelled items, stored symmetric
/// with a zero diagonal: the similar pairs (`same`) and the others each
/// carry half the total.
fn initial_weights(l: usize, same: impl Fn(usize, usize) -> bool) -> Mat<f64> {
    let positives = (0..l)
        .flat_map(|i| (i + 1..l).map(move |j| (i, j)))
        .filter(|&(i, j)| same(i, j))
        .count();
    let negatives = l * (l - 1) / 2 - positives;
    Mat::from_fn(l, l, |i, j| {
        if i == j {
            0.0
        } else if same(i, j) {
            0.5 / positives.max(1) as f64
        } else {
            0.5 / negatives.max(1) as f64
        }
    })
}

/// `count` random unit directions in d dimensions (the LSH family), drawn
/// one after another.
fn random_directions(d: usize, count: usize, rng: &mut ChaCha8Rng) -> Vec<Mat<f64>> {
    (0..count)
        .map(|_| {
            let dir: Mat<f64> = Mat::from_fn(d, 1, |_, _| StandardNormal.sample(rng));
            let norm = dir.norm_l2().max(f64::MIN_POSITIVE);
            Mat::from_fn(d, 1, |i, _| dir[(i, 0)] / norm)
        })
        .collect()
}

/// AdaBoost's reweighting after a bit (projections `p`, threshold `t`,
/// weight `alpha`): wᵢⱼ ← wᵢⱼ exp(−α yᵢⱼ cᵢⱼ), then normalised so that the
/// unordered pairs sum to 1 (each is stored twice).
///
/// The pairs are visited row by row (i, then j), as the sum of the new
/// weights runs, and each is written at (j, i): the same value, the weights
/// being symmetric, read down a column instead of across the columns.
fn reweight(
    weight: &mut Mat<f64>,
    p: &[f64],
    t: f64,
    alpha: f64,
    same: impl Fn(usize, usize) -> bool,
) {
    // y·agree is ±1, so the factor is one of two exponentials
    let (down, up) = ((-alpha).exp(), alpha.exp());
    let mut total = 0.0;
    for_each_column_mut(weight, |i, column| {
        for (j, w) in column.iter_mut().enumerate() {
            if i != j {
                let agree = (p[i] > t) == (p[j] > t);
                *w *= if agree == same(i, j) { down } else { up };
                total += *w;
            }
        }
    });
    let scale = 2.0 / total;
    for_each_column_mut(weight, |_, column| {
        column.iter_mut().for_each(|w| *w *= scale)
    });
}

impl HashModel for BsscModel {
    fn n_bits(&self) -> usize {
        self.thresholds.len()
    }

    fn bit_weights(&self) -> Option<Vec<f64>> {
        Some(self.alphas.clone())
    }

    fn encode(&self, data: &Data) -> Result<BitCodes, EncodeError> {
        let x = dense_with_dim(data, self.mean.len())?;
        let p = hashbench_core::linalg::project_centered(x, &self.mean, self.w.as_ref());
        Ok(BitCodes::from_fn(
            x.nrows(),
            self.thresholds.len(),
            |i, k| p[(i, k)] > self.thresholds[k],
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::{RngExt, SeedableRng};

    /// One direction's sweep, moving one item at a time across the
    /// threshold and adding its column to every item's weight towards the
    /// left: the reference the batched sweep must equal bit for bit.
    fn one_direction(p: &[f64], pairs: &SignedPairs) -> Option<(f64, f64)> {
        let order = ascending(p);
        let mut into_left = vec![0.0; p.len()];
        let (mut cut, mut best) = (0.0, None::<(f64, f64)>);
        for m in 0..p.len() - 1 {
            let k = order[m];
            cut += pairs.row_sums[k] - 2.0 * into_left[k];
            for (acc, &v) in into_left.iter_mut().zip(pairs.signed.col_as_slice(k)) {
                *acc += v;
            }
            let (lo, hi) = (p[k], p[order[m + 1]]);
            if lo < hi && best.is_none_or(|(b, _)| pairs.total - 2.0 * cut > b) {
                best = Some((pairs.total - 2.0 * cut, 0.5 * (lo + hi)));
            }
        }
        best
    }

    #[test]
    fn batched_sweeps_equal_one_direction_at_a_time_bit_for_bit() {
        let mut rng = ChaCha8Rng::seed_from_u64(8);
        // 29 items: blocks of 8 and a short last one; projections with ties
        // (rounded) and one direction whose projections are all equal
        let l = 29;
        let upper = Mat::from_fn(l, l, |_, _| rng.random::<f64>() - 0.5);
        let signed = Mat::from_fn(l, l, |i, j| match i.cmp(&j) {
            std::cmp::Ordering::Equal => 0.0,
            std::cmp::Ordering::Less => upper[(i, j)],
            std::cmp::Ordering::Greater => upper[(j, i)],
        });
        let pairs = SignedPairs::new(signed);
        let mut projections: Vec<Vec<f64>> = (0..7)
            .map(|_| {
                (0..l)
                    .map(|_| (rng.random::<f64>() * 8.0).round())
                    .collect()
            })
            .collect();
        projections.push(vec![1.5; l]);
        let batched = best_thresholds(&projections, &pairs);
        let single: Vec<_> = projections
            .iter()
            .map(|p| one_direction(p, &pairs))
            .collect();
        assert_eq!(batched, single);
        assert!(batched[..7].iter().all(Option::is_some) && batched[7].is_none());
    }

    #[test]
    fn threshold_sweep_agrees_with_brute_force() {
        let p = [0.3, -1.0, 2.0, 0.1, -0.4, 1.5];
        let labels = [0, 1, 0, 0, 1, 0];
        let signed = Mat::from_fn(6, 6, |i, j| {
            if i == j {
                0.0
            } else {
                (1.0 + (i * j) as f64 * 0.1) * if labels[i] == labels[j] { 1.0 } else { -1.0 }
            }
        });
        let (r, t) = best_thresholds(&[p.to_vec()], &SignedPairs::new(signed.clone()))[0].unwrap();
        let score = |t: f64| {
            let mut s = 0.0;
            for i in 0..6 {
                for j in i + 1..6 {
                    s += signed[(i, j)] * if (p[i] > t) == (p[j] > t) { 1.0 } else { -1.0 };
                }
            }
            s
        };
        assert!((score(t) - r).abs() < 1e-12);
        let mut sorted = p.to_vec();
        sorted.sort_by(f64::total_cmp);
        for w in sorted.windows(2) {
            assert!(score(0.5 * (w[0] + w[1])) <= r + 1e-12);
        }
        // the labels split {1, 4} (the two lowest) from the rest: the best cut
        assert!(t > -0.4 && t < 0.1);
    }

    #[test]
    fn learns_weighted_bits_that_separate_labels() {
        let n = 120;
        let x = Data::Dense(Mat::from_fn(n, 3, |i, j| {
            let noise = ((i * 37 + j * 11) % 17) as f64 / 17.0 - 0.5;
            if j == 1 {
                noise + if i % 2 == 0 { 2.0 } else { -2.0 }
            } else {
                3.0 * noise
            }
        }));
        let labelled: Vec<usize> = (0..40).collect();
        let labels: Vec<u32> = labelled.iter().map(|&i| (i % 2) as u32).collect();
        let train = TrainSet {
            x: &x,
            labelled: &labelled,
            labels: &labels,
            memos: None,
        };
        let p = BsscParams::default();
        let m = p.fit(&train, 4, &mut ChaCha8Rng::seed_from_u64(3)).unwrap();
        let alphas = m.bit_weights().unwrap();
        assert_eq!(alphas.len(), 4);
        // the first bit is chosen on balanced weights: it separates the classes well
        assert!(alphas[0] > 1.0, "{alphas:?}");
        let c = m.encode(&x).unwrap();
        let agree = (0..n).filter(|&i| c.bit(i, 0) == (i % 2 == 0)).count();
        assert!(agree.max(n - agree) > 110, "{agree}");
        // seeds
        let again = p.fit(&train, 4, &mut ChaCha8Rng::seed_from_u64(3)).unwrap();
        assert_eq!(again.encode(&x).unwrap(), c);
        assert!(matches!(
            p.fit(
                &TrainSet::unlabelled(&x),
                2,
                &mut ChaCha8Rng::seed_from_u64(0)
            ),
            Err(FitError::MissingLabels { .. })
        ));
        assert!(BsscParams { candidates: 0 }.validate().is_err());
    }
}
