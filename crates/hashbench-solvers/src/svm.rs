//! A linear SVM without bias, L2-regularised with the squared hinge loss,
//! min over w of f(w) = ½‖w‖² + C Σᵢ max(0, 1 − yᵢ wᵀxᵢ)² (LIBLINEAR's
//! `-s 1`/`-s 2` problem).
//!
//! The solver is LIBLINEAR's primal one (`-s 2`; Lin, Weng, Keerthi, JMLR
//! 2008, in the line-search form of LIBLINEAR 2.40+): Newton steps from
//! w = 0, each direction from conjugate gradients on the generalised Hessian
//! I + 2C X_Iᵀ X_I (I the items inside the margin), preconditioned by a mix
//! of 1 and its diagonal and truncated by the decrease of the quadratic
//! model, then a backtracking line search (Armijo, η = 0.01, halving). The
//! objective is strictly convex, so its minimiser is unique. The solver
//! stops on a certificate: α = 2C max(0, 1 − yᵢwᵀxᵢ) is feasible for the
//! dual, its w is w − ∇f(w), and the duality gap f(w) − D(α) works out to
//! ½‖∇f(w)‖², so f(w) − min f ≤ ½‖∇f(w)‖² ≤ ε f(w) (ε = 10⁻⁶) bounds the
//! objective's excess relative to itself. LIBLINEAR's own rule,
//! ‖∇f(w)‖ ≤ 0.01 · min(#pos, #neg)/n · ‖∇f(0)‖, is relative to the gradient
//! at 0, which grows with the features' scale: on the tests' items scaled
//! 500 times (raw SIFT's scale) it stopped, while this solver was written,
//! at an objective 613 times the minimum. LIBLINEAR advises `-s 2` when the
//! dual solver reaches its
//! cap, which the dual did on raw SIFT (STH at SpaH Fig. 9's 25,000 items:
//! all 80 SVMs at 1,000 sweeps).
//!
//! The dual coordinate descent of Hsieh, Chang, Lin, Keerthi and
//! Sundararajan (ICML 2008; LIBLINEAR's `-s 1`, with its shrinking) stays as
//! the test oracle ([`SvmData::train_dual`]): α >= 0, Q̄ = Q + I/(2C),
//! coordinates in a fresh random order each sweep, stopped when the projected
//! gradient's spread falls below ε.
//!
//! Every product runs through `hashbench_simd`'s kernels in a fixed order
//! and the bits of [`SvmData::train_columns`] are independent problems
//! solved in parallel, so a model is the same on any machine and thread
//! count.

use hashbench_simd::vector::Kernels;
use rand::seq::SliceRandom;
use rand_chacha::ChaCha8Rng;
use rayon::prelude::*;

use crate::SolverError;

/// Counts the changes to what the SVM computes (1: dot products in eight
/// partial sums; 2: LIBLINEAR's shrinking; 3: the primal Newton solver).
/// Methods that train it add it to their own version, so one bump here
/// re-fingerprints all of their codes.
pub const REVISION: u32 = 3;

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
    /// Newton iterations (primal) or sweeps (dual) taken.
    pub iterations: usize,
    /// Whether the stopping rule was met (the primal solver's certificate,
    /// the dual's projected gradients) before the iteration cap or a line
    /// search that found no descent.
    pub converged: bool,
}

/// SVM settings of the primal Newton solver.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct SvmParams {
    /// Loss weight C (LIBLINEAR default 1).
    pub c: f64,
    /// Stop when the duality gap ½‖∇f(w)‖² is at most ε f(w), which
    /// certifies f(w) − min f ≤ ε f(w) (default 10⁻⁶).
    pub eps: f64,
    /// Most Newton iterations (LIBLINEAR: 1000).
    pub max_iterations: usize,
}

impl Default for SvmParams {
    fn default() -> Self {
        SvmParams {
            c: 1.0,
            eps: 1e-6,
            max_iterations: 1000,
        }
    }
}

/// Settings of the dual coordinate descent (the test oracle).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct DualParams {
    /// Loss weight C.
    pub c: f64,
    /// Stopping tolerance on the projected gradient's spread (LIBLINEAR's
    /// `-s 1` default 0.1).
    pub eps: f64,
    /// Most sweeps (LIBLINEAR: 1000).
    pub max_sweeps: usize,
}

/// The dual solver's model and its dual variables.
#[derive(Debug, Clone, PartialEq)]
pub struct DualSvm {
    /// Weights w = Σ yᵢαᵢxᵢ, sweeps and convergence.
    pub model: SvmModel,
    /// Dual variables.
    pub alpha: Vec<f64>,
}

/// The objective's state at one w: margins zᵢ = yᵢwᵀxᵢ and the items inside
/// the margin (zᵢ < 1), which define the gradient and the Hessian.
struct Margins {
    z: Vec<f64>,
    inside: Vec<usize>,
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

    /// The labels as ±1, once the labels' count, C and ε are checked.
    fn signed_labels(&self, positive: &[bool], c: f64, eps: f64) -> Result<Vec<f64>, SolverError> {
        if positive.len() != self.n {
            return Err(SolverError::Shape(format!(
                "SVM: {} labels for {} items",
                positive.len(),
                self.n
            )));
        }
        if !(c > 0.0 && c.is_finite() && eps > 0.0) {
            return Err(SolverError::Invalid(format!(
                "SVM: C must be positive and finite and eps positive, got C = {c}, eps = {eps}"
            )));
        }
        Ok(positive
            .iter()
            .map(|&p| if p { 1.0 } else { -1.0 })
            .collect())
    }

    /// Margins zᵢ = yᵢwᵀxᵢ and the items with zᵢ < 1.
    fn margins(&self, kernels: Kernels, y: &[f64], w: &[f64]) -> Margins {
        let z: Vec<f64> = (0..self.n)
            .map(|i| y[i] * kernels.dot(w, self.row(i)))
            .collect();
        let inside = (0..self.n).filter(|&i| z[i] < 1.0).collect();
        Margins { z, inside }
    }

    /// f(w) from its margins.
    fn objective(w: &[f64], c: f64, z: &[f64]) -> f64 {
        0.5 * dot(w, w)
            + c * z
                .iter()
                .map(|&z| if z < 1.0 { (1.0 - z) * (1.0 - z) } else { 0.0 })
                .sum::<f64>()
    }

    /// ∇f(w) = w + 2C Σ_{i inside} yᵢ(zᵢ − 1)xᵢ.
    fn gradient(&self, kernels: Kernels, y: &[f64], c: f64, w: &[f64], m: &Margins) -> Vec<f64> {
        let mut g = w.to_vec();
        for &i in &m.inside {
            kernels.add_scaled(&mut g, self.row(i), 2.0 * c * y[i] * (m.z[i] - 1.0));
        }
        g
    }

    /// The generalised Hessian times v: v + 2C Σ_{i inside} (xᵢᵀv) xᵢ.
    fn hessian_times(
        &self,
        kernels: Kernels,
        c: f64,
        inside: &[usize],
        v: &[f64],
        out: &mut [f64],
    ) {
        out.copy_from_slice(v);
        for &i in inside {
            let xi = self.row(i);
            kernels.add_scaled(out, xi, 2.0 * c * kernels.dot(xi, v));
        }
    }

    /// Trains on the labels `positive` (one per item: +1 when true, −1 when
    /// false) by the primal Newton method (see the module documentation).
    /// Deterministic: no random order is involved.
    ///
    /// # Errors
    /// [`SolverError::Shape`], [`SolverError::Invalid`] for a bad C or ε.
    /// Reaching `max_iterations` is not an error (LIBLINEAR warns and
    /// returns); `converged` tells.
    pub fn train(&self, positive: &[bool], params: SvmParams) -> Result<SvmModel, SolverError> {
        let y = self.signed_labels(positive, params.c, params.eps)?;
        let c = params.c;
        let kernels = Kernels::detected();
        let mut w = vec![0.0; self.d];
        let mut margins = self.margins(kernels, &y, &w);
        let mut f = Self::objective(&w, c, &margins.z);
        let mut g = self.gradient(kernels, &y, c, &w, &margins);
        let certified = |g: &[f64], f: f64| 0.5 * dot(g, g) <= params.eps * f;
        let (mut iterations, mut converged) = (0, certified(&g, f));
        let mut hd = vec![0.0; self.d];
        while !converged && iterations < params.max_iterations {
            iterations += 1;
            let s = self.newton_direction(kernels, c, &margins, &g, &mut hd);
            // the line search on f(w + a s), from the margins' change along s
            let xs: Vec<f64> = (0..self.n)
                .map(|i| y[i] * kernels.dot(&s, self.row(i)))
                .collect();
            let (ww, ws, ss, gs) = (dot(&w, &w), dot(&w, &s), dot(&s, &s), dot(&g, &s));
            let at = |a: f64| {
                let loss: f64 = margins
                    .z
                    .iter()
                    .zip(&xs)
                    .map(|(&z, &t)| {
                        let slack = 1.0 - (z + a * t);
                        if slack > 0.0 { slack * slack } else { 0.0 }
                    })
                    .sum();
                0.5 * (ww + 2.0 * a * ws + a * a * ss) + c * loss
            };
            let mut step = 1.0;
            let mut accepted = None;
            for _ in 0..20 {
                let value = at(step);
                if value - f <= 0.01 * step * gs {
                    accepted = Some(value);
                    break;
                }
                step *= 0.5;
            }
            let Some(value) = accepted else {
                break; // no descent along s: w is as good as round-off allows
            };
            kernels.add_scaled(&mut w, &s, step);
            f = value;
            margins = self.margins(kernels, &y, &w);
            g = self.gradient(kernels, &y, c, &w, &margins);
            converged = certified(&g, f);
        }
        Ok(SvmModel {
            w,
            iterations,
            converged,
        })
    }

    /// The Newton direction: preconditioned conjugate gradients on H s = −g,
    /// stopped by the decrease of the quadratic model q(s) = gᵀs + ½sᵀHs
    /// (stop at step j when j (q_j − q_{j−1}) ≥ tol · q_j, tol =
    /// min(0.5, √‖g‖_{M⁻¹})), at most max(d, 5) steps.
    fn newton_direction(
        &self,
        kernels: Kernels,
        c: f64,
        margins: &Margins,
        g: &[f64],
        hd: &mut [f64],
    ) -> Vec<f64> {
        let d = self.d;
        // M = 0.99 + 0.01 (1 + 2C Σ_{inside} xᵢⱼ²)
        let mut diagonal = vec![1.0; d];
        for &i in &margins.inside {
            for (m, x) in diagonal.iter_mut().zip(self.row(i)) {
                *m += 2.0 * c * x * x;
            }
        }
        diagonal.iter_mut().for_each(|m| *m = 0.99 + 0.01 * *m);
        let mut s = vec![0.0; d];
        let mut r: Vec<f64> = g.iter().map(|v| -v).collect();
        let mut z: Vec<f64> = r.iter().zip(&diagonal).map(|(r, m)| r / m).collect();
        let mut p = z.clone();
        let mut ztr = dot(&z, &r);
        let tolerance = 0.5f64.min(ztr.sqrt().sqrt());
        let mut model = 0.0;
        for step in 1..=d.max(5) {
            self.hessian_times(kernels, c, &margins.inside, &p, hd);
            let php = dot(&p, hd);
            if php <= 1e-16 {
                break;
            }
            let a = ztr / php;
            kernels.add_scaled(&mut s, &p, a);
            kernels.add_scaled(&mut r, hd, -a);
            // q(s) = gᵀs + ½sᵀHs = ½(gᵀs − rᵀs) with r = −g − Hs
            let next = 0.5 * (dot(g, &s) - dot(&r, &s));
            let change = next - model;
            if next > 0.0 || change > 0.0 || step as f64 * change >= tolerance * next {
                break;
            }
            model = next;
            z.iter_mut()
                .zip(&r)
                .zip(&diagonal)
                .for_each(|((z, r), m)| *z = r / m);
            let next_ztr = dot(&z, &r);
            let beta = next_ztr / ztr;
            p.iter_mut().zip(&z).for_each(|(p, z)| *p = z + beta * *p);
            ztr = next_ztr;
        }
        s
    }

    /// The dual coordinate descent with shrinking (the test oracle of
    /// [`SvmData::train`]), visiting coordinates in orders drawn from `rng`.
    ///
    /// # Errors
    /// As [`SvmData::train`].
    pub fn train_dual(
        &self,
        positive: &[bool],
        params: DualParams,
        rng: &mut ChaCha8Rng,
    ) -> Result<DualSvm, SolverError> {
        let y = self.signed_labels(positive, params.c, params.eps)?;
        let diag = 0.5 / params.c;
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
        Ok(DualSvm {
            model: SvmModel {
                w,
                iterations: sweeps,
                converged,
            },
            alpha,
        })
    }

    /// One SVM per column of `bits` (item i positive for bit k when
    /// `bits[(i, k)] > 0`), the columns in parallel on the current rayon
    /// pool: hash bit k of x is wₖᵀx > tₖ. A column every item agrees on
    /// gets zero weights and the threshold of [`constant_bit_thresholds`]
    /// (no SVM separates one class).
    ///
    /// # Errors
    /// As [`SvmData::train`].
    pub fn train_columns(
        &self,
        bits: faer::MatRef<'_, f64>,
        params: SvmParams,
    ) -> Result<ColumnSvms, SolverError> {
        let models = (0..bits.ncols())
            .into_par_iter()
            .map(|k| {
                let positive: Vec<bool> = bits.col(k).iter().map(|&v| v > 0.0).collect();
                if positive.iter().all(|&p| p) || !positive.iter().any(|&p| p) {
                    return Ok(None);
                }
                self.train(&positive, params).map(Some)
            })
            .collect::<Result<Vec<_>, _>>()?;
        let mut w = faer::Mat::<f64>::zeros(self.d, bits.ncols());
        let (mut iterations, mut iterations_max, mut unconverged) = (0, 0, 0);
        for (k, model) in models.into_iter().enumerate() {
            let Some(model) = model else { continue };
            iterations += model.iterations;
            iterations_max = iterations_max.max(model.iterations);
            unconverged += usize::from(!model.converged);
            for (j, v) in model.w.into_iter().enumerate() {
                w[(j, k)] = v;
            }
        }
        Ok(ColumnSvms {
            w,
            thresholds: constant_bit_thresholds(bits),
            iterations,
            iterations_max,
            unconverged,
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

    /// The primal gradient ∇f(w) (for optimality checks).
    pub fn primal_gradient(&self, positive: &[bool], c: f64, w: &[f64]) -> Vec<f64> {
        let y: Vec<f64> = positive
            .iter()
            .map(|&p| if p { 1.0 } else { -1.0 })
            .collect();
        let kernels = Kernels::detected();
        let margins = self.margins(kernels, &y, w);
        self.gradient(kernels, &y, c, w, &margins)
    }
}

/// One SVM per bit: bit k of x is wₖᵀx > tₖ.
#[derive(Debug, Clone, PartialEq)]
pub struct ColumnSvms {
    /// Weights, one column per bit (d × bits).
    pub w: faer::Mat<f64>,
    /// Thresholds: 0, except for a bit every training item has on (−1).
    pub thresholds: Vec<f64>,
    /// Newton iterations summed over the SVMs trained.
    pub iterations: usize,
    /// The most iterations one SVM took.
    pub iterations_max: usize,
    /// SVMs that stopped before their duality-gap certificate.
    pub unconverged: usize,
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

/// The dual objective −(½αᵀQ̄α − Σα) of a dual solution (a lower bound on
/// the primal).
pub fn dual_objective(dual: &DualSvm, c: f64) -> f64 {
    let w = &dual.model.w;
    let quad = dot(w, w) + dual.alpha.iter().map(|a| a * a).sum::<f64>() * 0.5 / c;
    dual.alpha.iter().sum::<f64>() - 0.5 * quad
}

/// aᵀb as the solvers sum it.
fn dot(a: &[f64], b: &[f64]) -> f64 {
    Kernels::detected().dot(a, b)
}
