//! MLH's learning (Norouzi & Fleet, ICML 2011, Sec. 3-4): the pair loss, the
//! loss-adjusted inference that maximises gᵀWx + hᵀWx' + ℓ(‖g − h‖_H) over
//! code pairs (Sec. 4: sort the per-bit gains of making a bit differ, then
//! scan the number m of differing bits), and SGD with momentum on the
//! resulting upper bound of the empirical loss.

use faer::linalg::matmul::matmul;
use faer::{Accum, Mat, MatRef, Par};
use hashbench_simd::vector::Kernels;
use rand::RngExt;
use rand_chacha::ChaCha8Rng;
use rand_distr::{Distribution, StandardNormal};

/// The hinge loss of a pair at Hamming distance m, normalised as the
/// reference code does: a similar pair λ·max(m − ρ + 1, 0)/(q − ρ + 1), a
/// dissimilar one max(ρ − m + 1, 0)/(ρ + 1).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct PairLoss {
    /// Code length q.
    pub bits: usize,
    /// Threshold ρ.
    pub rho: usize,
    /// Weight λ of the similar pairs' loss.
    pub lambda: f64,
}

impl PairLoss {
    /// ℓ(m, similar).
    pub fn at(&self, m: usize, similar: bool) -> f64 {
        let (q, rho) = (self.bits as f64, self.rho as f64);
        let m = m as f64;
        if similar {
            self.lambda * (m - rho + 1.0).max(0.0) / (q - rho + 1.0)
        } else {
            (rho - m + 1.0).max(0.0) / (rho + 1.0)
        }
    }
}

/// The solution of loss-adjusted inference for one pair: codes g, h in
/// {−1, +1}^q and the maximised value.
#[derive(Debug, Clone, PartialEq)]
pub struct Adjusted {
    /// Code of the first item.
    pub g: Vec<f64>,
    /// Code of the second item.
    pub h: Vec<f64>,
    /// max over (g, h) of gᵀa + hᵀb + ℓ(‖g − h‖_H).
    pub value: f64,
}

/// Loss-adjusted inference for scores a = Wx, b = Wx' (Sec. 4): a bit kept
/// equal scores |aₖ + bₖ| at best, a bit made to differ |aₖ − bₖ|; for each
/// m the best pair differs on the m bits of largest gain |aₖ − bₖ| − |aₖ + bₖ|,
/// and m is chosen by scanning 0..=q (the smallest m on ties, as MATLAB's
/// `max`). Ties within a bit take +1 first, as the reference code.
pub fn loss_adjusted(a: &[f64], b: &[f64], loss: &PairLoss, similar: bool) -> Adjusted {
    let q = a.len();
    let (mut g, mut h) = (vec![0.0; q], vec![0.0; q]);
    let mut scratch = Scratch::default();
    let value = loss_adjusted_into(a, b, loss, similar, &mut scratch, &mut g, &mut h);
    Adjusted { g, h, value }
}

/// Buffers of [`loss_adjusted_into`], reused from pair to pair.
#[derive(Debug, Default)]
struct Scratch {
    /// Each bit's gain |aₖ − bₖ| − |aₖ + bₖ|.
    gains: Vec<f64>,
    /// Sort keys: the gain's order descending, then the bit ascending.
    order: Vec<u128>,
}

/// A key whose ascending order is `v`'s `f64::total_cmp` order.
fn total_order_key(v: f64) -> u64 {
    let bits = v.to_bits();
    if bits >> 63 == 1 {
        !bits
    } else {
        bits | 1 << 63
    }
}

/// [`loss_adjusted`] into `g` and `h` (each `a.len()` long), with `scratch`
/// as buffers; returns the maximised value. Training calls it once per pair.
fn loss_adjusted_into(
    a: &[f64],
    b: &[f64],
    loss: &PairLoss,
    similar: bool,
    scratch: &mut Scratch,
    g: &mut [f64],
    h: &mut [f64],
) -> f64 {
    let same: f64 = a.iter().zip(b).map(|(x, y)| (x + y).abs()).sum();
    let Scratch { gains, order } = scratch;
    gains.clear();
    gains.extend(a.iter().zip(b).map(|(x, y)| (x - y).abs() - (x + y).abs()));
    // gains descending, ties by bit ascending (a total order, so one result),
    // as one integer per bit: sorting them is a few times faster than
    // comparing (gain, bit) pairs. Only the gains of at least −2Δ, where Δ
    // is the loss's whole range over m, are sorted: the others come last in
    // the order, and each lowers the value by more than any change of the
    // loss can return, so the best m never reaches them (the scan's result
    // is the full sort's, bit for bit).
    let range = (loss.at(0, similar) - loss.at(a.len(), similar)).abs();
    order.clear();
    order.extend(
        gains
            .iter()
            .enumerate()
            .filter(|&(_, &v)| v >= -2.0 * range)
            .map(|(k, &v)| (u128::from(!total_order_key(v)) << 64) | k as u128),
    );
    order.sort_unstable();
    let bit = |key: &u128| (key & u128::from(u64::MAX)) as usize;
    let (mut best, mut best_m, mut running) = (same + loss.at(0, similar), 0, same);
    for (m, key) in order.iter().enumerate() {
        running += gains[bit(key)];
        let value = running + loss.at(m + 1, similar);
        if value > best {
            (best, best_m) = (value, m + 1);
        }
    }
    let plus = |v: f64| if v >= 0.0 { 1.0 } else { -1.0 };
    for (k, (gk, hk)) in g.iter_mut().zip(h.iter_mut()).enumerate() {
        *gk = plus(a[k] + b[k]);
        *hk = *gk;
    }
    for key in &order[..best_m] {
        let k = bit(key);
        g[k] = plus(a[k] - b[k]);
        h[k] = -g[k];
    }
    best
}

/// A training pair (i, j) and whether j is a neighbour of i.
pub type Pair = (u32, u32, bool);

/// Draws pairs: half from the neighbour lists (similar), half uniformly
/// among all ordered pairs of distinct items (labelled by the lists).
pub struct PairSampler<'a> {
    /// Neighbours of each item, sorted.
    pub lists: &'a [Vec<u32>],
}

impl PairSampler<'_> {
    /// `count` pairs.
    pub fn draw(&self, count: usize, rng: &mut ChaCha8Rng) -> Vec<Pair> {
        let n = self.lists.len();
        (0..count)
            .map(|c| {
                loop {
                    let i = rng.random_range(0..n);
                    if c < count / 2 {
                        let list = &self.lists[i];
                        if list.is_empty() {
                            continue;
                        }
                        return (i as u32, list[rng.random_range(0..list.len())], true);
                    }
                    let j = rng.random_range(0..n);
                    if j != i {
                        let similar = self.lists[i].binary_search(&(j as u32)).is_ok();
                        return (i as u32, j as u32, similar);
                    }
                }
            })
            .collect()
    }
}

/// SGD settings (the reference code's: 10⁵ pairs per epoch, mini-batches of
/// 100, η = 0.1 decayed linearly to 0, momentum 0.9).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Sgd {
    /// Epochs.
    pub epochs: usize,
    /// Pairs per epoch.
    pub pairs_per_epoch: usize,
    /// Pairs per mini-batch.
    pub batch: usize,
    /// Initial learning rate η.
    pub learning_rate: f64,
    /// Momentum.
    pub momentum: f64,
    /// Weight decay on W.
    pub weight_decay: f64,
}

/// What training reports.
#[derive(Debug, Clone, PartialEq)]
pub struct Trained {
    /// W, q × d (hyperplanes through the origin of the centred data).
    pub w: Mat<f64>,
    /// The mean, over the last epoch's pairs, of the upper bound
    /// max(gᵀWx + hᵀWx' + ℓ) − max(gᵀWx) − max(hᵀWx') (≥ the empirical loss).
    pub last_bound: f64,
    /// The mean empirical loss of the last epoch's pairs under the current codes.
    pub last_loss: f64,
}

/// Learns W on the rows of `x` (already centred and scaled) from pairs drawn
/// by `pairs`. The hyperplanes pass through the origin (the reference's
/// calls all set `zerobias = 1`: with offsets, nothing stops every code
/// drifting to one value, where merged dissimilar pairs have no gradient).
pub fn learn(
    x: MatRef<'_, f64>,
    pairs: &PairSampler<'_>,
    loss: &PairLoss,
    sgd: &Sgd,
    rng: &mut ChaCha8Rng,
) -> Trained {
    let (d, q) = (x.ncols(), loss.bits);
    // W initialised as LSH, N(0, 1) (the reference's `MLH.m`), drawn in
    // W's (q × d) column order and kept as its transpose, one bit per
    // column, so a bit's gradient and update run down contiguous memory
    let w0 = Mat::from_fn(q, d, |_, _| {
        Distribution::<f64>::sample(&StandardNormal, rng)
    });
    let mut wt = w0.transpose().to_owned();
    let mut step = Mat::<f64>::zeros(d, q);
    // the items as columns, so that a batch is gathered by contiguous copies
    let items = x.transpose().to_owned();
    let batches = (sgd.pairs_per_epoch / sgd.batch).max(1);
    // one batch's buffers, reused: every entry is overwritten before it is
    // read. Both sides of the batch's pairs share one matrix: first items
    // in columns 0..n_b, second items in n_b..2n_b.
    let n_b = sgd.batch;
    let mut sides = Mat::<f64>::zeros(d, 2 * n_b);
    let mut scores = Mat::<f64>::zeros(2 * n_b, q);
    let mut gradt = Mat::<f64>::zeros(d, q);
    let kernels = Kernels::detected();
    let (mut ar, mut br) = (vec![0.0; q], vec![0.0; q]);
    let (mut g, mut h) = (vec![0.0; q], vec![0.0; q]);
    let mut scratch = Scratch::default();
    let (mut last_bound, mut last_loss) = (0.0, 0.0);
    for epoch in 0..sgd.epochs {
        let eta = sgd.learning_rate * (sgd.epochs - epoch) as f64 / sgd.epochs as f64;
        let (mut bound, mut empirical) = (0.0, 0.0);
        for _ in 0..batches {
            let drawn = pairs.draw(n_b, rng);
            for (r, pair) in drawn.iter().enumerate() {
                sides
                    .col_as_slice_mut(r)
                    .copy_from_slice(items.col_as_slice(pair.0 as usize));
                sides
                    .col_as_slice_mut(n_b + r)
                    .copy_from_slice(items.col_as_slice(pair.1 as usize));
            }
            matmul(
                scores.as_mut(),
                Accum::Replace,
                sides.transpose(),
                wt.as_ref(),
                1.0,
                Par::Seq,
            );
            // the gradient Σ (y − ŷ) xᵀ over the entries where the current
            // code and the loss-adjusted one differ (most agree, so it is
            // summed entry by entry rather than as a dense product)
            gradt.fill(0.0);
            for (r, pair) in drawn.iter().enumerate() {
                for k in 0..q {
                    (ar[k], br[k]) = (scores[(r, k)], scores[(n_b + r, k)]);
                }
                let value =
                    loss_adjusted_into(&ar, &br, loss, pair.2, &mut scratch, &mut g, &mut h);
                let mut current = 0.0;
                let mut differ = 0;
                for k in 0..q {
                    // sign(0) = 0, as the reference code's `sign`
                    let (y1, y2) = (sign(ar[k]), sign(br[k]));
                    for (delta, column) in [(y1 - g[k], r), (y2 - h[k], n_b + r)] {
                        if delta != 0.0 {
                            kernels.add_scaled(
                                gradt.col_as_slice_mut(k),
                                sides.col_as_slice(column),
                                delta,
                            );
                        }
                    }
                    current += ar[k].abs() + br[k].abs();
                    differ += usize::from((ar[k] > 0.0) != (br[k] > 0.0));
                }
                bound += value - current;
                empirical += loss.at(differ, pair.2);
            }
            let scale = 1.0 / n_b as f64;
            for k in 0..q {
                let (grad, w) = (gradt.col_as_slice(k), wt.col_as_slice_mut(k));
                for ((s, g), w) in step.col_as_slice_mut(k).iter_mut().zip(grad).zip(w) {
                    *s = sgd.momentum * *s + eta * (g * scale - sgd.weight_decay * *w);
                    *w += *s;
                }
            }
        }
        let seen = (batches * n_b) as f64;
        (last_bound, last_loss) = (bound / seen, empirical / seen);
    }
    Trained {
        w: wt.transpose().to_owned(),
        last_bound,
        last_loss,
    }
}

fn sign(v: f64) -> f64 {
    if v > 0.0 {
        1.0
    } else if v < 0.0 {
        -1.0
    } else {
        0.0
    }
}
