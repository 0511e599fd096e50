//! MLH's learning (Norouzi & Fleet, ICML 2011, Sec. 3-4): the pair loss, the
//! loss-adjusted inference that maximises gᵀWx + hᵀWx' + ℓ(‖g − h‖_H) over
//! code pairs (Sec. 4 sorts the per-bit gains of making a bit differ and
//! scans the number m of differing bits; here two counts of gains above a
//! threshold give the same maximum, see [`loss_adjusted`]), and SGD with
//! momentum on the resulting upper bound of the empirical loss.

use faer::linalg::matmul::matmul;
use faer::{Accum, Mat, MatRef, Par};
use hashbench_core::SparseRows;
use hashbench_core::linalg::row_major;
use hashbench_simd::vector::{Kernels, prefetch};
use rand::RngExt;
use rand_chacha::ChaCha8Rng;
use rand_distr::{Distribution, StandardNormal};

use crate::Standardise;

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

impl PairLoss {
    /// The loss as a function of m is convex and piecewise linear with one
    /// kink: returns (kink, slope up to it, slope beyond it), the slopes as
    /// ℓ(m) − ℓ(m − 1). A similar pair's loss is flat up to m = ρ − 1 and
    /// rises by λ/(q − ρ + 1) a bit beyond; a dissimilar pair's falls by
    /// 1/(ρ + 1) a bit up to m = ρ + 1 and is flat beyond.
    /// A kink at m = q or beyond leaves one slope.
    fn kink(&self, similar: bool) -> (usize, f64, f64) {
        let (q, rho) = (self.bits, self.rho);
        let (kink, before, after) = if similar {
            let rise = self.lambda / (q as f64 - rho as f64 + 1.0);
            (rho.saturating_sub(1), 0.0, rise)
        } else {
            (rho + 1, -1.0 / (rho as f64 + 1.0), 0.0)
        };
        if kink >= q {
            (q, before, before)
        } else {
            (kink, before, after)
        }
    }
}

/// Loss-adjusted inference for scores a = Wx, b = Wx' (Sec. 4): a bit kept
/// equal scores |aₖ + bₖ| at best, a bit made to differ |aₖ − bₖ|; for each
/// m the best pair differs on the m bits of largest gain |aₖ − bₖ| − |aₖ + bₖ|,
/// and the paper scans m over 0..=q on the sorted gains (the smallest m on
/// ties, as MATLAB's `max`). Ties within a bit take +1 first, as the
/// reference code.
///
/// The scan needs no sort: the value at m is concave on each side of the
/// loss's one kink (the gains fall along the order, the loss's slope is
/// constant on each side), so the best m on each side is where the gains
/// stop exceeding minus that side's slope, a count; the two counts' values
/// decide (see [`loss_adjusted_into`]). Tested against all code pairs.
pub fn loss_adjusted(a: &[f64], b: &[f64], loss: &PairLoss, similar: bool) -> Adjusted {
    let q = a.len();
    let (mut g, mut h) = (vec![0.0; q], vec![0.0; q]);
    let value = loss_adjusted_into(a, b, loss, similar, &mut g, &mut h);
    Adjusted { g, h, value }
}

/// [`loss_adjusted`] into `g` and `h` (each `a.len()` long); returns the
/// maximised value. Training calls it once per pair.
///
/// With the kink at m = κ, slope s₁ up to it and s₂ > s₁ beyond, and cᵢ the
/// number of gains above −sᵢ (so c₁ ≤ c₂): the best m up to κ is min(c₁, κ),
/// beyond κ it is max(c₂, κ). When c₁ ≥ κ the second is at least as good, so
/// m = c₂; when c₂ ≤ κ the first is, so m = c₁; otherwise the larger value
/// of m = c₁ and m = c₂ wins, c₁ on a tie. Each candidate's bits are the
/// gains above a threshold, so no order among them is needed.
fn loss_adjusted_into(
    a: &[f64],
    b: &[f64],
    loss: &PairLoss,
    similar: bool,
    g: &mut [f64],
    h: &mut [f64],
) -> f64 {
    let (kink, before, after) = loss.kink(similar);
    let (mut same, mut c1, mut c2, mut gain1, mut gain2) = (0.0, 0, 0, 0.0, 0.0);
    // written without branches: whether a gain clears a threshold is a coin
    // flip the processor cannot predict
    for (x, y) in a.iter().zip(b) {
        let (plus, minus) = ((x + y).abs(), (x - y).abs());
        let gain = minus - plus;
        same += plus;
        let (in1, in2) = (gain + before > 0.0, gain + after > 0.0);
        c1 += usize::from(in1);
        c2 += usize::from(in2);
        gain1 += if in1 { gain } else { 0.0 };
        gain2 += if in2 { gain } else { 0.0 };
    }
    let value1 = same + gain1 + loss.at(c1, similar);
    let value2 = same + gain2 + loss.at(c2, similar);
    // the threshold of the chosen m: the bits whose gain plus it is positive differ
    let (value, slope) = if c1 >= kink || (c2 > kink && value2 > value1) {
        (value2, after)
    } else {
        (value1, before)
    };
    for (((x, y), gk), hk) in a.iter().zip(b).zip(g.iter_mut()).zip(h.iter_mut()) {
        let (plus, minus) = (x + y, x - y);
        let differ = minus.abs() - plus.abs() + slope > 0.0;
        let chosen = if differ { minus } else { plus };
        *gk = if chosen >= 0.0 { 1.0 } else { -1.0 };
        *hk = if differ { -*gk } else { *gk };
    }
    value
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
        let mut pairs = Vec::with_capacity(count);
        self.draw_into(count, rng, &mut pairs);
        pairs
    }

    /// `count` pairs into `pairs` (cleared first), as [`PairSampler::draw`].
    pub fn draw_into(&self, count: usize, rng: &mut ChaCha8Rng, pairs: &mut Vec<Pair>) {
        let n = self.lists.len();
        pairs.clear();
        pairs.extend((0..count).map(|c| {
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
        }));
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

/// Fraction of nonzero entries at or below which the items are kept
/// sparse (`just bench-solvers` times an epoch both ways: at a quarter
/// of the entries nonzero the sparse learner is the faster).
pub const SPARSE_BELOW: f64 = 0.3;

/// The training items as [`learn`] reads them, standardised.
#[derive(Debug)]
pub enum Items {
    /// (x − μ)/s, one item per column (d × n): a batch is gathered and
    /// scored by one product.
    Dense(Mat<f64>),
    /// Mostly zeros: each item's nonzero entries of x/s, and μ/s apart
    /// (W(x − μ)/s = Wx/s − Wμ/s), so a batch touches only the entries
    /// its items hold.
    Sparse {
        /// x/s, one row per item.
        rows: SparseRows,
        /// μ/s.
        mean: Vec<f64>,
    },
}

impl Items {
    /// The rows of `x` standardised by `standard`, sparse when at most
    /// [`SPARSE_BELOW`] of the entries are nonzero.
    pub fn new(x: MatRef<'_, f64>, standard: &Standardise) -> Items {
        let nonzero = x
            .col_iter()
            .flat_map(|c| c.iter())
            .filter(|v| **v != 0.0)
            .count();
        if nonzero as f64 > SPARSE_BELOW * (x.nrows() * x.ncols()) as f64 {
            Items::dense(x, standard)
        } else {
            Items::sparse(x, standard)
        }
    }

    /// The rows of `x` standardised by `standard`, kept dense.
    pub fn dense(x: MatRef<'_, f64>, standard: &Standardise) -> Items {
        Items::Dense(standard.apply(x).transpose().to_owned())
    }

    /// The rows of `x` standardised by `standard`, kept sparse (dense when
    /// an entry of x/s is not finite, as a tiny s can make it).
    pub fn sparse(x: MatRef<'_, f64>, standard: &Standardise) -> Items {
        let s = standard.scale;
        let mut rows = vec![Vec::new(); x.nrows()];
        for (j, column) in x.col_iter().enumerate() {
            for (row, &v) in rows.iter_mut().zip(column.iter()) {
                if v != 0.0 {
                    row.push((j as u32, v / s));
                }
            }
        }
        match SparseRows::new(x.ncols(), &rows) {
            Ok(rows) => Items::Sparse {
                rows,
                mean: standard.mean.iter().map(|m| m / s).collect(),
            },
            Err(_) => Items::dense(x, standard),
        }
    }

    /// The dimension d.
    fn dim(&self) -> usize {
        match self {
            Items::Dense(columns) => columns.nrows(),
            Items::Sparse { rows, .. } => rows.n_cols(),
        }
    }
}

/// Learns W on `items` from pairs drawn by `pairs`. The hyperplanes pass
/// through the origin (the reference's calls all set `zerobias = 1`: with
/// offsets, nothing stops every code drifting to one value, where merged
/// dissimilar pairs have no gradient).
pub fn learn(
    items: &Items,
    pairs: &PairSampler<'_>,
    loss: &PairLoss,
    sgd: &Sgd,
    rng: &mut ChaCha8Rng,
) -> Trained {
    let (d, q) = (items.dim(), loss.bits);
    // W initialised as LSH, N(0, 1) (the reference's `MLH.m`), drawn in
    // W's (q × d) column order
    let w0 = Mat::from_fn(q, d, |_, _| {
        Distribution::<f64>::sample(&StandardNormal, rng)
    });
    let mut learner = Learner::new(items, w0.as_ref(), sgd.batch);
    let batches = (sgd.pairs_per_epoch / sgd.batch).max(1);
    let mut drawn = Vec::with_capacity(sgd.batch);
    let (mut last_bound, mut last_loss) = (0.0, 0.0);
    for epoch in 0..sgd.epochs {
        let eta = sgd.learning_rate * (sgd.epochs - epoch) as f64 / sgd.epochs as f64;
        let (mut bound, mut empirical) = (0.0, 0.0);
        for _ in 0..batches {
            pairs.draw_into(sgd.batch, rng, &mut drawn);
            let (b, e) = learner.batch(&drawn, loss);
            bound += b;
            empirical += e;
            learner.update(sgd, eta);
        }
        let seen = (batches * sgd.batch) as f64;
        (last_bound, last_loss) = (bound / seen, empirical / seen);
    }
    Trained {
        w: learner.weights(),
        last_bound,
        last_loss,
    }
}

/// How many items ahead a dense batch's gather asks for an item's column.
const GATHER_AHEAD: usize = 4;

/// One SGD run's state and the buffers its batches reuse (every entry is
/// overwritten before it is read). Both sides of a batch's pairs share one
/// score matrix: first items in columns 0..n_b, second items in n_b..2n_b,
/// an item's q scores contiguous.
struct Learner<'a> {
    items: &'a Items,
    q: usize,
    /// W, laid out as the items need: dense, W's transpose (d × q, a bit's
    /// weights contiguous, so its gradient runs down memory); sparse, W
    /// itself (q × d, a feature's weights contiguous, so an item's entries
    /// gather whole columns).
    w: Vec<f64>,
    step: Vec<f64>,
    grad: Vec<f64>,
    /// Sparse: Σ of the deltas of each bit (the gradient's −(Σδ)μᵀ/s part).
    delta_sums: Vec<f64>,
    /// Dense: the batch's items, one per column.
    sides: Mat<f64>,
    scores: Mat<f64>,
    /// Sparse: Wμ/s, and the mean's nonzero entries.
    offset: Vec<f64>,
    mean_support: (Vec<u32>, Vec<f64>),
    g: Vec<f64>,
    h: Vec<f64>,
    deltas: [Vec<f64>; 2],
    kernels: Kernels,
}

impl<'a> Learner<'a> {
    fn new(items: &'a Items, w0: MatRef<'_, f64>, n_b: usize) -> Learner<'a> {
        let (q, d) = (w0.nrows(), w0.ncols());
        let (w, sides, mean_support) = match items {
            Items::Dense(_) => (
                row_major(w0),
                Mat::zeros(d, 2 * n_b),
                (Vec::new(), Vec::new()),
            ),
            Items::Sparse { mean, .. } => (
                row_major(w0.transpose()),
                Mat::zeros(0, 0),
                (0..d as u32)
                    .zip(mean.iter().copied())
                    .filter(|(_, m)| *m != 0.0)
                    .unzip(),
            ),
        };
        Learner {
            items,
            q,
            w,
            step: vec![0.0; q * d],
            grad: vec![0.0; q * d],
            delta_sums: vec![0.0; q],
            sides,
            scores: Mat::zeros(q, 2 * n_b),
            offset: vec![0.0; q],
            mean_support,
            g: vec![0.0; q],
            h: vec![0.0; q],
            deltas: [vec![0.0; q], vec![0.0; q]],
            kernels: Kernels::detected(),
        }
    }

    /// W, q × d.
    fn weights(&self) -> Mat<f64> {
        let (q, d) = (self.q, self.items.dim());
        match self.items {
            Items::Dense(_) => MatRef::from_column_major_slice(&self.w, d, q)
                .transpose()
                .to_owned(),
            Items::Sparse { .. } => MatRef::from_column_major_slice(&self.w, q, d).to_owned(),
        }
    }

    /// The current scores of the batch's items (columns of `scores`).
    fn score(&mut self, drawn: &[Pair]) {
        let (q, n_b) = (self.q, drawn.len());
        let item = |r: usize| {
            let pair = drawn[r % n_b];
            (if r < n_b { pair.0 } else { pair.1 }) as usize
        };
        match self.items {
            Items::Dense(columns) => {
                for r in 0..2 * n_b {
                    // the column gathered a few items later, asked for now
                    if r + GATHER_AHEAD < 2 * n_b {
                        prefetch(columns.col_as_slice(item(r + GATHER_AHEAD)));
                    }
                    self.sides
                        .col_as_slice_mut(r)
                        .copy_from_slice(columns.col_as_slice(item(r)));
                }
                let wt = MatRef::from_column_major_slice(&self.w, self.sides.nrows(), q);
                matmul(
                    self.scores.as_mut(),
                    Accum::Replace,
                    wt.transpose(),
                    self.sides.as_ref(),
                    1.0,
                    Par::Seq,
                );
            }
            Items::Sparse { rows, .. } => {
                self.offset.fill(0.0);
                let (support, mean) = &self.mean_support;
                self.kernels
                    .add_gathered(&mut self.offset, &self.w, support, mean);
                for r in 0..2 * n_b {
                    let (idx, val) = rows.row(item(r));
                    let col = self.scores.col_as_slice_mut(r);
                    col.fill(0.0);
                    self.kernels.add_gathered(col, &self.w, idx, val);
                    for (s, o) in col.iter_mut().zip(&self.offset) {
                        *s -= o;
                    }
                }
            }
        }
    }

    /// Scores the batch, runs each pair's loss-adjusted inference and sums
    /// the gradient Σ (y − ŷ) xᵀ (dense items: over the entries where the
    /// current code and the loss-adjusted one differ, most agree; sparse
    /// items: every bit of an item with any such entry, over its nonzero
    /// features); returns the batch's summed bound and empirical loss.
    fn batch(&mut self, drawn: &[Pair], loss: &PairLoss) -> (f64, f64) {
        let (q, n_b) = (self.q, drawn.len());
        self.score(drawn);
        self.grad.fill(0.0);
        self.delta_sums.fill(0.0);
        let (mut bound, mut empirical) = (0.0, 0.0);
        for (r, pair) in drawn.iter().enumerate() {
            let (ar, br) = (
                self.scores.col_as_slice(r),
                self.scores.col_as_slice(n_b + r),
            );
            let value = loss_adjusted_into(ar, br, loss, pair.2, &mut self.g, &mut self.h);
            let (mut current, mut differ) = (0.0, 0);
            let [d1, d2] = &mut self.deltas;
            for k in 0..q {
                // sign(0) = 0, as the reference code's `sign`
                d1[k] = sign(ar[k]) - self.g[k];
                d2[k] = sign(br[k]) - self.h[k];
                current += ar[k].abs() + br[k].abs();
                differ += usize::from((ar[k] > 0.0) != (br[k] > 0.0));
            }
            bound += value - current;
            empirical += loss.at(differ, pair.2);
            self.add_gradient(pair);
        }
        (bound, empirical)
    }

    /// Adds one pair's deltas times its items to the gradient.
    fn add_gradient(&mut self, pair: &Pair) {
        let (q, [d1, d2]) = (self.q, &self.deltas);
        match self.items {
            Items::Dense(columns) => {
                let d = columns.nrows();
                let (x1, x2) = (
                    columns.col_as_slice(pair.0 as usize),
                    columns.col_as_slice(pair.1 as usize),
                );
                for k in 0..q {
                    let grad = &mut self.grad[k * d..(k + 1) * d];
                    for (delta, x) in [(d1[k], x1), (d2[k], x2)] {
                        if delta != 0.0 {
                            self.kernels.add_scaled(grad, x, delta);
                        }
                    }
                }
            }
            Items::Sparse { rows, .. } => {
                for (delta, i) in [(d1, pair.0), (d2, pair.1)] {
                    if delta.iter().any(|v| *v != 0.0) {
                        let (idx, val) = rows.row(i as usize);
                        self.kernels.scatter_scaled(&mut self.grad, idx, val, delta);
                        for (s, v) in self.delta_sums.iter_mut().zip(delta) {
                            *s += v;
                        }
                    }
                }
            }
        }
    }

    /// The momentum step from the batch's mean gradient and the weight decay.
    fn update(&mut self, sgd: &Sgd, eta: f64) {
        let scale = 1.0 / sgd.batch as f64;
        let step = |s: &mut f64, w: &mut f64, g: f64| {
            *s = sgd.momentum * *s + eta * (g * scale - sgd.weight_decay * *w);
            *w += *s;
        };
        match self.items {
            Items::Dense(_) => {
                let entries = self.step.iter_mut().zip(self.w.iter_mut()).zip(&self.grad);
                entries.for_each(|((s, w), g)| step(s, w, *g));
            }
            Items::Sparse { mean, .. } => {
                // feature j's q entries: the gradient's −(Σδₖ)μⱼ/s part
                let q = self.q;
                let columns = self
                    .step
                    .chunks_exact_mut(q)
                    .zip(self.w.chunks_exact_mut(q));
                for (((steps, ws), grads), m) in columns.zip(self.grad.chunks_exact(q)).zip(mean) {
                    let entries = steps.iter_mut().zip(ws).zip(grads).zip(&self.delta_sums);
                    entries.for_each(|(((s, w), g), sum)| step(s, w, g - sum * m));
                }
            }
        }
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
