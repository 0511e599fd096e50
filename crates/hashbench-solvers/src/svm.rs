//! A linear SVM without bias, L2-regularised with the squared hinge loss,
//! min over w of ½‖w‖² + C Σᵢ max(0, 1 − yᵢ wᵀxᵢ)², solved in the dual by
//! coordinate descent (Hsieh, Chang, Lin, Keerthi, Sundararajan, ICML 2008),
//! LIBLINEAR's default solver: α >= 0, Q̄ = Q + I/(2C), coordinates in a
//! fresh random order each sweep, stopped when the projected gradient's
//! spread falls below ε (LIBLINEAR's rule; its default ε = 0.1). With
//! LIBLINEAR's shrinking (Hsieh et al., Sec. 3.2): a coordinate at αᵢ = 0
//! whose gradient exceeds the last sweep's largest projected gradient leaves
//! the sweeps; once the rest meet ε, every coordinate is checked again, and
//! the solver stops only when all of them meet it.

use hashbench_simd::vector::Kernels;
use rand::seq::SliceRandom;
use rand_chacha::ChaCha8Rng;

use crate::SolverError;

/// Counts the changes to what the SVM computes (1: dot products in eight
/// partial sums; 2: LIBLINEAR's shrinking). Methods that train it add it to
/// their own version, so one bump here re-fingerprints all of their codes.
pub const REVISION: u32 = 2;

/// Training items, row-major, shared by every SVM trained on them.
#[derive(Debug, Clone)]
pub struct SvmData {
    rows: Vec<f64>,
    n: usize,
    d: usize,
    sq_norms: Vec<f64>,
}

/// A trained SVM.
#[derive(Debug, Clone, PartialEq)]
pub struct SvmModel {
    /// Weights (the decision value is wᵀx).
    pub w: Vec<f64>,
    /// Dual variables.
    pub alpha: Vec<f64>,
    /// Sweeps taken.
    pub sweeps: usize,
    /// Whether the projected gradients met ε before `max_sweeps`.
    pub converged: bool,
}

/// SVM settings.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct SvmParams {
    /// Loss weight C (LIBLINEAR default 1).
    pub c: f64,
    /// Stopping tolerance on the projected gradient's spread (default 0.1).
    pub eps: f64,
    /// Most sweeps (LIBLINEAR: 1000).
    pub max_sweeps: usize,
}

impl Default for SvmParams {
    fn default() -> Self {
        SvmParams {
            c: 1.0,
            eps: 0.1,
            max_sweeps: 1000,
        }
    }
}

impl SvmData {
    /// Copies the `n × d` rows of `x` (n items).
    pub fn new(x: faer::MatRef<'_, f64>) -> SvmData {
        let (n, d) = (x.nrows(), x.ncols());
        let mut rows = Vec::with_capacity(n * d);
        for i in 0..n {
            rows.extend(x.row(i).iter());
        }
        let sq_norms = rows
            .chunks(d.max(1))
            .map(|r| r.iter().map(|v| v * v).sum())
            .collect();
        SvmData {
            rows,
            n,
            d,
            sq_norms,
        }
    }

    /// Dimension of the items.
    pub fn dim(&self) -> usize {
        self.d
    }

    fn row(&self, i: usize) -> &[f64] {
        &self.rows[i * self.d..(i + 1) * self.d]
    }

    /// Trains on the labels `positive` (one per item: +1 when true, −1 when
    /// false), visiting coordinates in orders drawn from `rng`.
    ///
    /// # Errors
    /// [`SolverError::Shape`], [`SolverError::Invalid`] for a bad C or ε.
    /// Reaching `max_sweeps` is not an error (LIBLINEAR warns and returns);
    /// `sweeps` tells.
    pub fn train(
        &self,
        positive: &[bool],
        params: SvmParams,
        rng: &mut ChaCha8Rng,
    ) -> Result<SvmModel, SolverError> {
        if positive.len() != self.n {
            return Err(SolverError::Shape(format!(
                "SVM: {} labels for {} items",
                positive.len(),
                self.n
            )));
        }
        if !(params.c > 0.0 && params.c.is_finite() && params.eps > 0.0) {
            return Err(SolverError::Invalid(format!(
                "SVM: C must be positive and finite and eps positive, got C = {}, eps = {}",
                params.c, params.eps
            )));
        }
        let diag = 0.5 / params.c;
        let y: Vec<f64> = positive
            .iter()
            .map(|&p| if p { 1.0 } else { -1.0 })
            .collect();
        let kernels = Kernels::detected();
        let mut alpha = vec![0.0; self.n];
        let mut w = vec![0.0; self.d];
        let mut order: Vec<usize> = (0..self.n).collect();
        // coordinates order[..active] are swept; the others are shrunk
        let mut active = self.n;
        // the last sweep's largest projected gradient (∞ when it was ≤ 0)
        let mut shrink_above = f64::INFINITY;
        let (mut sweeps, mut converged) = (0, false);
        while sweeps < params.max_sweeps {
            sweeps += 1;
            order[..active].shuffle(rng);
            let (mut pg_max, mut pg_min) = (f64::NEG_INFINITY, f64::INFINITY);
            let mut s = 0;
            while s < active {
                let i = order[s];
                let xi = self.row(i);
                let g = y[i] * kernels.dot(&w, xi) - 1.0 + diag * alpha[i];
                let pg = if alpha[i] == 0.0 {
                    if g > shrink_above {
                        active -= 1;
                        order.swap(s, active);
                        continue;
                    }
                    g.min(0.0)
                } else {
                    g
                };
                pg_max = pg_max.max(pg);
                pg_min = pg_min.min(pg);
                if pg.abs() > 1e-12 {
                    let old = alpha[i];
                    alpha[i] = (old - g / (self.sq_norms[i] + diag)).max(0.0);
                    let step = (alpha[i] - old) * y[i];
                    kernels.add_scaled(&mut w, xi, step);
                }
                s += 1;
            }
            if pg_max - pg_min <= params.eps {
                if active == self.n {
                    converged = true;
                    break;
                }
                // the swept ones meet ε: check every coordinate again
                active = self.n;
                shrink_above = f64::INFINITY;
                continue;
            }
            shrink_above = if pg_max <= 0.0 { f64::INFINITY } else { pg_max };
        }
        Ok(SvmModel {
            w,
            alpha,
            sweeps,
            converged,
        })
    }

    /// One SVM per column of `bits` (item i positive for bit k when
    /// `bits[(i, k)] > 0`): hash bit k of x is wₖᵀx > tₖ. A column every item
    /// agrees on gets zero weights and the threshold of
    /// [`constant_bit_thresholds`] (no SVM separates one class).
    ///
    /// # Errors
    /// As [`SvmData::train`].
    pub fn train_columns(
        &self,
        bits: faer::MatRef<'_, f64>,
        params: SvmParams,
        rng: &mut ChaCha8Rng,
    ) -> Result<ColumnSvms, SolverError> {
        let mut w = faer::Mat::<f64>::zeros(self.d, bits.ncols());
        let (mut sweeps, mut sweeps_max, mut capped) = (0, 0, 0);
        for k in 0..bits.ncols() {
            let positive: Vec<bool> = bits.col(k).iter().map(|&v| v > 0.0).collect();
            if positive.iter().all(|&p| p) || !positive.iter().any(|&p| p) {
                continue;
            }
            let model = self.train(&positive, params, rng)?;
            sweeps += model.sweeps;
            sweeps_max = sweeps_max.max(model.sweeps);
            capped += usize::from(!model.converged);
            for (j, v) in model.w.into_iter().enumerate() {
                w[(j, k)] = v;
            }
        }
        Ok(ColumnSvms {
            w,
            thresholds: constant_bit_thresholds(bits),
            sweeps,
            sweeps_max,
            capped,
        })
    }

    /// The dual objective's gradient at `alpha` for coordinate `i`:
    /// yᵢwᵀxᵢ − 1 + αᵢ/(2C), with w = Σ yⱼαⱼxⱼ (for optimality checks).
    pub fn dual_gradient(&self, positive: &[bool], c: f64, alpha: &[f64]) -> Vec<f64> {
        let y = |i: usize| if positive[i] { 1.0 } else { -1.0 };
        let mut w = vec![0.0; self.d];
        for (i, a) in alpha.iter().enumerate() {
            for (wk, xk) in w.iter_mut().zip(self.row(i)) {
                *wk += y(i) * a * xk;
            }
        }
        (0..self.n)
            .map(|i| y(i) * dot(&w, self.row(i)) - 1.0 + alpha[i] * 0.5 / c)
            .collect()
    }

    /// The primal objective ½‖w‖² + C Σ max(0, 1 − yᵢwᵀxᵢ)².
    pub fn primal(&self, positive: &[bool], c: f64, w: &[f64]) -> f64 {
        0.5 * dot(w, w)
            + c * (0..self.n)
                .map(|i| {
                    let y = if positive[i] { 1.0 } else { -1.0 };
                    (1.0 - y * dot(w, self.row(i))).max(0.0).powi(2)
                })
                .sum::<f64>()
    }
}

/// One SVM per bit: bit k of x is wₖᵀx > tₖ.
#[derive(Debug, Clone, PartialEq)]
pub struct ColumnSvms {
    /// Weights, one column per bit (d × bits).
    pub w: faer::Mat<f64>,
    /// Thresholds: 0, except for a bit every training item has on (−1).
    pub thresholds: Vec<f64>,
    /// Sweeps summed over the SVMs trained.
    pub sweeps: usize,
    /// The most sweeps one SVM took.
    pub sweeps_max: usize,
    /// SVMs stopped by `max_sweeps` before meeting ε.
    pub capped: usize,
}

/// Thresholds that keep a bit constant where every training item agrees
/// (`bits[(i, k)] > 0` is on): 0 (with zero weights the bit is off), or −1
/// where every item has it on (then it is on).
pub fn constant_bit_thresholds(bits: faer::MatRef<'_, f64>) -> Vec<f64> {
    (0..bits.ncols())
        .map(|k| {
            if bits.col(k).iter().all(|&v| v > 0.0) {
                -1.0
            } else {
                0.0
            }
        })
        .collect()
}

/// The dual objective −(½αᵀQ̄α − Σα) of `model` (a lower bound on the primal).
pub fn dual_objective(model: &SvmModel, c: f64) -> f64 {
    let quad = dot(&model.w, &model.w) + model.alpha.iter().map(|a| a * a).sum::<f64>() * 0.5 / c;
    model.alpha.iter().sum::<f64>() - 0.5 * quad
}

/// aᵀb as the sweeps sum it (for the optimality checks).
fn dot(a: &[f64], b: &[f64]) -> f64 {
    Kernels::detected().dot(a, b)
}
