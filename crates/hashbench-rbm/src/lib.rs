#![doc = include_str!("../README.md")]

use faer::{Mat, MatRef};
use hashbench_core::linalg::{for_each_column_mut, product, product_into};
use hashbench_core::method::{Requirements, Supervision};
use hashbench_core::method::{dense_fit_input, dense_with_dim};
use hashbench_core::{
    BitCodes, Data, EncodeError, FitError, HashMethod, HashModel, ParamError, TrainSet,
};
use hashbench_simd::math::exp_in_place;
use rand::RngExt;
use rand::seq::SliceRandom;
use rand_chacha::ChaCha8Rng;
use rand_distr::{Distribution, Normal};
use serde::{Deserialize, Serialize};

/// Hyperparameters of the stacked-RBM hash (defaults in the crate documentation).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct RbmParams {
    /// Hidden layer sizes below the code layer. Default [256].
    pub hidden: Vec<usize>,
    /// CD-1 epochs per layer. Default 5.
    pub epochs: usize,
    /// Mini-batch size. Default 100.
    pub batch: usize,
    /// Pre-training learning rate. Default 0.1.
    pub learning_rate: f64,
    /// Full-batch NCA fine-tuning steps on the labelled items. Default 50.
    pub fine_tune_steps: usize,
    /// Fine-tuning learning rate (per labelled item). Default 0.01.
    pub fine_tune_rate: f64,
}

impl Default for RbmParams {
    fn default() -> Self {
        Self {
            hidden: vec![256],
            epochs: 5,
            batch: 100,
            learning_rate: 0.1,
            fine_tune_steps: 50,
            fine_tune_rate: 0.01,
        }
    }
}

/// One layer: weights (inputs × units) and unit biases.
#[derive(Debug, Clone)]
pub struct Layer {
    w: Mat<f64>,
    b: Vec<f64>,
}

/// A fitted stack.
#[derive(Debug, Clone)]
pub struct RbmModel {
    scale: f64,
    dim: usize,
    layers: Vec<Layer>,
}

/// σ(a W + 1 bᵀ).
fn activate(a: MatRef<'_, f64>, w: MatRef<'_, f64>, b: &[f64]) -> Mat<f64> {
    let mut z = Mat::zeros(a.nrows(), w.ncols());
    activate_into(&mut z, a, w, b);
    z
}

/// σ(a W + 1 bᵀ) written over `z` (a kept buffer, resized to fit).
fn activate_into(z: &mut Mat<f64>, a: MatRef<'_, f64>, w: MatRef<'_, f64>, b: &[f64]) {
    z.resize_with(a.nrows(), w.ncols(), |_, _| 0.0);
    product_into(z.as_mut(), a, w);
    for_each_column_mut(z, |j, column| logistic(column, |_| b[j]));
}

/// Trains one RBM by CD-1 on the rows of `v`; returns the layer and the mean
/// squared reconstruction error of each epoch (public for the benchmark of
/// an epoch).
///
/// A mini-batch of b items is held as the columns of one a × 2b matrix, the
/// data in the first b and their reconstructions in the last b, beside a
/// 2b × units matrix of the hidden probabilities, the data's above minus the
/// reconstructions' below: the CD-1 statistic v₀ᵀh₀ − v₁ᵀh₁ is then one
/// product of the two (divided by b in the update).
pub fn pretrain_layer(
    v: MatRef<'_, f64>,
    units: usize,
    p: &RbmParams,
    rng: &mut ChaCha8Rng,
) -> (Layer, Vec<f64>) {
    let (n, a) = (v.nrows(), v.ncols());
    let init = Normal::new(0.0, 0.01).expect("valid normal");
    let mut w = Mat::from_fn(a, units, |_, _| init.sample(rng));
    let (mut bv, mut bh) = (vec![0.0; a], vec![0.0; units]);
    let (mut vw, mut vbv, mut vbh) = (Mat::<f64>::zeros(a, units), vec![0.0; a], vec![0.0; units]);
    let decay = 2e-4;
    let mut errors = Vec::with_capacity(p.epochs);
    let mut order: Vec<usize> = (0..n).collect();
    // the items as columns: a mini-batch is gathered by contiguous copies
    let items = v.transpose().to_owned();
    let mut cd1 = Cd1::new(a, units);
    for epoch in 0..p.epochs {
        let momentum = if epoch < p.epochs / 2 { 0.5 } else { 0.9 };
        order.shuffle(rng);
        let mut err = 0.0;
        for chunk in order.chunks(p.batch.max(1)) {
            cd1.run(&items, chunk, (w.as_ref(), &bv, &bh), rng);
            let (b, inverse, rate) = (chunk.len(), 1.0 / chunk.len() as f64, p.learning_rate);
            for j in 0..units {
                let (w, vw) = (w.col_as_slice_mut(j), vw.col_as_slice_mut(j));
                for ((w, vw), s) in w.iter_mut().zip(vw).zip(cd1.statistic.col_as_slice(j)) {
                    *vw = momentum * *vw + rate * (s * inverse - decay * *w);
                    *w += *vw;
                }
                let (up, down) = (cd1.h0p.col_as_slice(j), cd1.h1p.col_as_slice(j));
                let g = up.iter().zip(down).map(|(x, y)| x - y).sum::<f64>() * inverse;
                vbh[j] = momentum * vbh[j] + rate * g;
                bh[j] += vbh[j];
            }
            // the visible biases' gradient and the error, item by item
            let mut gv = vec![0.0; a];
            for c in 0..b {
                let (v0, v1) = (cd1.visible.col_as_slice(c), cd1.visible.col_as_slice(b + c));
                for ((g, x), y) in gv.iter_mut().zip(v0).zip(v1) {
                    *g += x - y;
                    err += (x - y).powi(2);
                }
            }
            for ((vb, b), g) in vbv.iter_mut().zip(bv.iter_mut()).zip(&gv) {
                *vb = momentum * *vb + rate * g * inverse;
                *b += *vb;
            }
        }
        errors.push(err / (n * a) as f64);
    }
    (Layer { w, b: bh }, errors)
}

/// One mini-batch's CD-1 buffers, kept across batches.
struct Cd1 {
    /// The b items (first b columns) and their reconstructions (last b), a × 2b.
    visible: Mat<f64>,
    /// The items' hidden probabilities (first b rows) and the reconstructions'
    /// negated (last b), 2b × units.
    hidden: Mat<f64>,
    h0p: Mat<f64>,
    h0: Mat<f64>,
    h1p: Mat<f64>,
    /// v₀ᵀh₀ − v₁ᵀh₁ (a × units), not yet divided by b.
    statistic: Mat<f64>,
}

impl Cd1 {
    fn new(a: usize, units: usize) -> Cd1 {
        Cd1 {
            visible: Mat::zeros(a, 0),
            hidden: Mat::zeros(0, units),
            h0p: Mat::zeros(0, units),
            h0: Mat::zeros(0, units),
            h1p: Mat::zeros(0, units),
            statistic: Mat::zeros(a, units),
        }
    }

    /// CD-1 on the items `chunk` (columns of `items`) under the layer
    /// (W, visible biases, hidden biases): the data's and the
    /// reconstructions' hidden probabilities and the statistic.
    fn run(
        &mut self,
        items: &Mat<f64>,
        chunk: &[usize],
        (w, bv, bh): (MatRef<'_, f64>, &[f64], &[f64]),
        rng: &mut ChaCha8Rng,
    ) {
        let (a, b, units) = (items.nrows(), chunk.len(), w.ncols());
        self.visible.resize_with(a, 2 * b, |_, _| 0.0);
        for (c, &item) in chunk.iter().enumerate() {
            self.visible
                .col_as_slice_mut(c)
                .copy_from_slice(items.col_as_slice(item));
        }
        let (data, mut recon) = self.visible.as_mut().split_at_col_mut(b);
        activate_into(&mut self.h0p, data.as_ref().transpose(), w, bh);
        // the hidden states sampled in column-major order, as `Mat::from_fn` fills
        self.h0.resize_with(b, units, |_, _| 0.0);
        for j in 0..units {
            let probabilities = self.h0p.col_as_slice(j);
            for (h, &p) in self.h0.col_as_slice_mut(j).iter_mut().zip(probabilities) {
                *h = f64::from(u8::from(rng.random::<f64>() < p));
            }
        }
        // the reconstructions as columns: σ(W h₀ + b_v) for each item
        product_into(recon.as_mut(), w, self.h0.transpose());
        for c in 0..b {
            let column = recon.as_mut().col_mut(c).try_as_col_major_mut();
            logistic(column.expect("a column").as_slice_mut(), |i| bv[i]);
        }
        activate_into(&mut self.h1p, recon.as_ref().transpose(), w, bh);
        self.hidden.resize_with(2 * b, units, |_, _| 0.0);
        for j in 0..units {
            let (up, down) = self.hidden.col_as_slice_mut(j).split_at_mut(b);
            up.copy_from_slice(self.h0p.col_as_slice(j));
            down.iter_mut()
                .zip(self.h1p.col_as_slice(j))
                .for_each(|(d, &h)| *d = -h);
        }
        product_into(
            self.statistic.as_mut(),
            self.visible.as_ref(),
            self.hidden.as_ref(),
        );
    }
}

/// σ(zᵢ + bias(i)) in place over a column of pre-activations: the logistic
/// 1 / (1 + e^-x), the argument clamped to ±40 (σ is within 5e-18 of 0 or 1
/// there), by the vectorised exponential.
fn logistic(column: &mut [f64], bias: impl Fn(usize) -> f64) {
    column
        .iter_mut()
        .enumerate()
        .for_each(|(i, v)| *v = -(*v + bias(i)).clamp(-40.0, 40.0));
    exp_in_place(column);
    column.iter_mut().for_each(|v| *v = 1.0 / (1.0 + *v));
}

/// The NCA objective Σᵢ Σ_{j ∈ class(i)} pᵢⱼ of outputs `f` (rows) and the
/// matrix Q = M + Mᵀ of its gradient (see the crate documentation).
pub fn nca_objective(f: MatRef<'_, f64>, labels: &[u32]) -> (f64, Mat<f64>) {
    let l = f.nrows();
    // squared distances from one Gram product: |fᵢ|² + |fₖ|² − 2 fᵢ·fₖ
    let gram = product(f, f.transpose());
    let sq: Vec<f64> = (0..l).map(|i| gram[(i, i)]).collect();
    // column i holds row i of P, then row i of M
    let mut m = Mat::<f64>::zeros(l, l);
    let mut objective = 0.0;
    for i in 0..l {
        let row = m.col_as_slice_mut(i);
        for (k, (d, g)) in row.iter_mut().zip(gram.col_as_slice(i)).enumerate() {
            *d = if k == i {
                f64::INFINITY
            } else {
                (sq[i] + sq[k] - 2.0 * g).max(0.0)
            };
        }
        let min = row.iter().copied().fold(f64::INFINITY, f64::min);
        // weights below e^-40 relative to the nearest neighbour are taken as 0
        row.iter_mut().for_each(|d| *d = (min - *d).max(-40.0));
        exp_in_place(row);
        let z: f64 = row.iter().sum();
        let mut p_same = 0.0;
        for (k, p) in row.iter_mut().enumerate() {
            *p /= z;
            if k != i && labels[k] == labels[i] {
                p_same += *p;
            }
        }
        objective += p_same;
        // Mᵢₖ = pᵢₖ (pᵢ − [same]), Mᵢᵢ = 0
        for (k, p) in row.iter_mut().enumerate() {
            *p = if k == i {
                0.0
            } else {
                *p * (p_same - f64::from(u8::from(labels[i] == labels[k])))
            };
        }
    }
    (objective, symmetric_sum(m.as_ref()))
}

/// A + Aᵀ of a square matrix, by tiles that keep both sides in cache.
fn symmetric_sum(a: MatRef<'_, f64>) -> Mat<f64> {
    const TILE: usize = 64;
    let l = a.nrows();
    let mut s = Mat::<f64>::zeros(l, l);
    for k0 in (0..l).step_by(TILE) {
        for i0 in (0..l).step_by(TILE) {
            for k in k0..(k0 + TILE).min(l) {
                for i in i0..(i0 + TILE).min(l) {
                    s[(i, k)] = a[(i, k)] + a[(k, i)];
                }
            }
        }
    }
    s
}

impl RbmModel {
    /// Inputs `x` scaled as the training data were.
    fn scaled(&self, x: MatRef<'_, f64>) -> Mat<f64> {
        Mat::from_fn(x.nrows(), x.ncols(), |i, j| x[(i, j)] / self.scale)
    }

    /// Each layer's output, the code layer's last, for scaled inputs.
    fn outputs(&self, input: MatRef<'_, f64>) -> Vec<Mat<f64>> {
        let mut outs: Vec<Mat<f64>> = Vec::with_capacity(self.layers.len());
        for layer in &self.layers {
            let below = outs.last().map_or(input, Mat::as_ref);
            let next = activate(below, layer.w.as_ref(), &layer.b);
            outs.push(next);
        }
        outs
    }

    /// One gradient-ascent step of NCA on the scaled labelled rows `xl`;
    /// returns the objective before the step.
    fn fine_tune_step(&mut self, xl: MatRef<'_, f64>, labels: &[u32], rate: f64) -> f64 {
        let outs = self.outputs(xl);
        let top = outs.last().expect("a code layer");
        let (objective, q) = nca_objective(top.as_ref(), labels);
        let l = top.nrows();
        let row_sums: Vec<f64> = (0..l).map(|i| q.col_as_slice(i).iter().sum()).collect();
        // δ at the top: ∂O/∂f ⊙ f(1 − f), written over Q f
        let mut delta = product(q.as_ref(), top.as_ref());
        for_each_column_mut(&mut delta, |c, column| {
            for ((d, &f), &r) in column.iter_mut().zip(top.col_as_slice(c)).zip(&row_sums) {
                *d = 2.0 * (r * f - *d) * f * (1.0 - f);
            }
        });
        let step = rate / l as f64;
        for k in (0..self.layers.len()).rev() {
            let input = if k == 0 { xl } else { outs[k - 1].as_ref() };
            let grad_w = product(input.transpose(), delta.as_ref());
            // δ one layer down, through this layer's weights before the step
            let below = (k > 0).then(|| {
                let mut g = product(delta.as_ref(), self.layers[k].w.transpose());
                for_each_column_mut(&mut g, |c, column| {
                    for (g, &x) in column.iter_mut().zip(input.col(c).iter()) {
                        *g = *g * x * (1.0 - x);
                    }
                });
                g
            });
            let layer = &mut self.layers[k];
            for c in 0..layer.w.ncols() {
                let gradient = grad_w.col_as_slice(c);
                for (w, g) in layer.w.col_as_slice_mut(c).iter_mut().zip(gradient) {
                    *w += step * g;
                }
                layer.b[c] += step * delta.col_as_slice(c).iter().sum::<f64>();
            }
            if let Some(below) = below {
                delta = below;
            }
        }
        objective
    }
}

impl HashMethod for RbmParams {
    type Model = RbmModel;
    const LABEL: &'static str = "RBMs";
    const PAPER: &'static str = "Hinton, Salakhutdinov, \"Reducing the Dimensionality of Data with Neural Networks\", Science 2006";
    const NAME: &'static str = "rbm";
    // 2: exp by hashbench_simd::math (the same bits on every machine); 3: the
    // CD-1 statistic as one product of the stacked batch, divided by b in the update
    const VERSION: u32 = 3;
    const REQUIREMENTS: Requirements = Requirements {
        supervision: Supervision::Optional,
        ..Requirements::UNSUPERVISED
    };

    fn fixture() -> Self {
        Self {
            hidden: vec![16],
            epochs: 30,
            batch: 10,
            ..Self::default()
        }
    }

    fn validate(&self) -> Result<(), ParamError> {
        if self.hidden.contains(&0) {
            return Err(ParamError::invalid(
                "hidden",
                format!("{:?}", self.hidden),
                "layer sizes must be positive",
            ));
        }
        if self.batch == 0 {
            return Err(ParamError::invalid("batch", 0, "must be positive"));
        }
        ParamError::check_non_negative("learning_rate", self.learning_rate)?;
        ParamError::check_non_negative("fine_tune_rate", self.fine_tune_rate)
    }

    fn is_randomized(&self) -> bool {
        true
    }

    fn train(
        &self,
        train: &TrainSet<'_>,
        n_bits: usize,
        rng: &mut ChaCha8Rng,
    ) -> Result<RbmModel, FitError> {
        let x = dense_fit_input(self, train, n_bits, 1)?;
        let scale = x
            .col_iter()
            .flat_map(|c| c.iter().map(|v| v.abs()).collect::<Vec<_>>())
            .fold(0.0, f64::max);
        let scale = if scale > 0.0 { scale } else { 1.0 };
        let mut model = RbmModel {
            scale,
            dim: x.ncols(),
            layers: Vec::new(),
        };
        let mut data = model.scaled(x);
        // the labelled rows, scaled, for the fine-tuning
        let labelled = Mat::from_fn(train.labelled.len(), x.ncols(), |i, j| {
            data[(train.labelled[i], j)]
        });
        for &units in self.hidden.iter().chain(std::iter::once(&n_bits)) {
            let (layer, _) = pretrain_layer(data.as_ref(), units, self, rng);
            data = activate(data.as_ref(), layer.w.as_ref(), &layer.b);
            model.layers.push(layer);
        }
        if labelled.nrows() >= 2 {
            for _ in 0..self.fine_tune_steps {
                model.fine_tune_step(labelled.as_ref(), train.labels, self.fine_tune_rate);
            }
        }
        Ok(model)
    }
}

impl HashModel for RbmModel {
    fn n_bits(&self) -> usize {
        self.layers.last().map_or(0, |l| l.b.len())
    }

    fn encode(&self, data: &Data) -> Result<BitCodes, EncodeError> {
        let x = dense_with_dim(data, self.dim)?;
        let outs = self.outputs(self.scaled(x).as_ref());
        let top = outs.last().expect("a code layer");
        Ok(BitCodes::from_fn(top.nrows(), top.ncols(), |i, k| {
            top[(i, k)] > 0.5
        }))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::SeedableRng;

    /// Two classes of binary-ish 12-pixel patterns.
    fn patterns(n: usize) -> (Mat<f64>, Vec<u32>) {
        let mut rng = ChaCha8Rng::seed_from_u64(11);
        let labels: Vec<u32> = (0..n).map(|i| (i % 2) as u32).collect();
        let x = Mat::from_fn(n, 12, |i, j| {
            let on = if labels[i] == 0 { j < 6 } else { j >= 6 };
            let flip = rng.random::<f64>() < 0.1;
            f64::from(u8::from(on != flip))
        });
        (x, labels)
    }

    #[test]
    fn contrastive_divergence_lowers_the_reconstruction_error() {
        let (x, _) = patterns(400);
        let p = RbmParams {
            epochs: 20,
            ..RbmParams::default()
        };
        let (_, errors) = pretrain_layer(x.as_ref(), 8, &p, &mut ChaCha8Rng::seed_from_u64(1));
        assert!(errors.last().unwrap() < &(errors[0] * 0.7), "{errors:?}");
    }

    #[test]
    fn one_cd1_step_is_the_textbook_update() {
        // one epoch of one batch, written out with separate products (the
        // statistic v₀ᵀh₀ − v₁ᵀh₁ as two, divided by b) and the same draws:
        // W, then the shuffle, then the hidden samples in column-major order
        let (x, _) = patterns(30);
        let (n, a, units) = (30, 12, 5);
        let p = RbmParams {
            epochs: 1,
            batch: n,
            ..RbmParams::default()
        };
        let (layer, _) = pretrain_layer(x.as_ref(), units, &p, &mut ChaCha8Rng::seed_from_u64(5));
        let mut rng = ChaCha8Rng::seed_from_u64(5);
        let init = Normal::new(0.0, 0.01).unwrap();
        let w0 = Mat::from_fn(a, units, |_, _| init.sample(&mut rng));
        let mut order: Vec<usize> = (0..n).collect();
        order.shuffle(&mut rng);
        let v0 = Mat::from_fn(n, a, |r, j| x[(order[r], j)]);
        let sigma = |z: f64| 1.0 / (1.0 + (-z).exp());
        let h0p = Mat::from_fn(n, units, |r, j| {
            sigma((0..a).map(|i| v0[(r, i)] * w0[(i, j)]).sum())
        });
        let h0 = Mat::from_fn(n, units, |r, j| {
            f64::from(u8::from(rng.random::<f64>() < h0p[(r, j)]))
        });
        let v1 = Mat::from_fn(n, a, |r, i| {
            sigma((0..units).map(|j| h0[(r, j)] * w0[(i, j)]).sum())
        });
        let h1p = Mat::from_fn(n, units, |r, j| {
            sigma((0..a).map(|i| v1[(r, i)] * w0[(i, j)]).sum())
        });
        for i in 0..a {
            for j in 0..units {
                let positive: f64 = (0..n).map(|r| v0[(r, i)] * h0p[(r, j)]).sum();
                let negative: f64 = (0..n).map(|r| v1[(r, i)] * h1p[(r, j)]).sum();
                let step = p.learning_rate * ((positive - negative) / n as f64 - 2e-4 * w0[(i, j)]);
                let want = w0[(i, j)] + step;
                assert!(
                    (layer.w[(i, j)] - want).abs() <= 1e-12,
                    "W[{i}, {j}]: {} vs {want}",
                    layer.w[(i, j)]
                );
            }
        }
        // and the hidden biases moved by the mean of h₀ − h₁
        for j in 0..units {
            let g: f64 = (0..n).map(|r| h0p[(r, j)] - h1p[(r, j)]).sum::<f64>() / n as f64;
            assert!((layer.b[j] - p.learning_rate * g).abs() <= 1e-12, "b[{j}]");
        }
    }

    #[test]
    fn nca_gradient_matches_finite_differences() {
        let f = Mat::from_fn(5, 2, |i, j| ((i * 3 + j * 5) % 7) as f64 / 7.0);
        let labels = [0, 1, 0, 1, 1];
        let (o, q) = nca_objective(f.as_ref(), &labels);
        let qf = product(q.as_ref(), f.as_ref());
        let h = 1e-6;
        for a in 0..5 {
            for c in 0..2 {
                let row: f64 = q.col(a).iter().sum();
                let analytic = 2.0 * (row * f[(a, c)] - qf[(a, c)]);
                let mut g = f.clone();
                g[(a, c)] += h;
                let numeric = (nca_objective(g.as_ref(), &labels).0 - o) / h;
                assert!(
                    (analytic - numeric).abs() < 1e-4,
                    "{a},{c}: {analytic} vs {numeric}"
                );
            }
        }
    }

    #[test]
    fn fine_tuning_raises_the_nca_objective_and_codes_follow_the_classes() {
        let (x, labels) = patterns(200);
        let data = Data::Dense(x);
        let labelled: Vec<usize> = (0..60).collect();
        let train = TrainSet {
            x: &data,
            labelled: &labelled,
            labels: &labels[..60],
            memos: None,
        };
        let p = RbmParams {
            hidden: vec![16],
            epochs: 100,
            batch: 20,
            fine_tune_steps: 0,
            ..RbmParams::default()
        };
        let mut model = p.fit(&train, 4, &mut ChaCha8Rng::seed_from_u64(2)).unwrap();
        let xl = Mat::from_fn(60, 12, |i, j| data.as_dense().unwrap()[(i, j)]);
        let before = model.fine_tune_step(xl.as_ref(), &labels[..60], 0.5);
        for _ in 0..100 {
            model.fine_tune_step(xl.as_ref(), &labels[..60], 0.5);
        }
        let after = model.fine_tune_step(xl.as_ref(), &labels[..60], 0.0);
        assert!(after > before, "{before} -> {after}");
        let codes = model.encode(&data).unwrap();
        assert_eq!((codes.len(), codes.n_bits()), (200, 4));
        // on the 140 items the fit never saw, codes of one class lie closer
        // together than codes of the two classes
        let distance = |a: usize, b: usize| {
            (0..4)
                .filter(|&j| codes.bit(a, j) != codes.bit(b, j))
                .count()
        };
        let (mut within, mut across) = ((0.0, 0.0), (0.0, 0.0));
        for a in 60..200 {
            for b in a + 1..200 {
                let d = distance(a, b) as f64;
                let sum = if labels[a] == labels[b] {
                    &mut within
                } else {
                    &mut across
                };
                *sum = (sum.0 + d, sum.1 + 1.0);
            }
        }
        let (within, across) = (within.0 / within.1, across.0 / across.1);
        assert!(
            within + 1.0 < across,
            "mean Hamming distance within {within}, across {across}"
        );
    }

    #[test]
    fn seeded_and_validated() {
        let (x, _) = patterns(50);
        let data = Data::Dense(x);
        let p = RbmParams {
            epochs: 2,
            ..RbmParams::default()
        };
        let a = p
            .fit(
                &TrainSet::unlabelled(&data),
                8,
                &mut ChaCha8Rng::seed_from_u64(1),
            )
            .unwrap()
            .encode(&data)
            .unwrap();
        let b = p
            .fit(
                &TrainSet::unlabelled(&data),
                8,
                &mut ChaCha8Rng::seed_from_u64(1),
            )
            .unwrap()
            .encode(&data)
            .unwrap();
        assert_eq!(a, b);
        assert!(
            RbmParams {
                hidden: vec![0],
                ..RbmParams::default()
            }
            .validate()
            .is_err()
        );
        assert!(
            RbmParams {
                batch: 0,
                ..RbmParams::default()
            }
            .validate()
            .is_err()
        );
    }
}
