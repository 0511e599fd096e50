//! The nonnegative lasso in Gram form, min over s >= 0 of
//! sᵀGs − 2cᵀs + λ·Σs (= ‖x − Bs‖² + λ‖s‖₁ with G = BᵀB, c = Bᵀx, up to a
//! constant), by the positive LARS-lasso homotopy (Efron et al. 2004, Sec. 3.4;
//! Sparse Hashing's Algorithm 1).
//!
//! With correlations ρ = c − Gs the optimality (KKT) conditions are 2ρⱼ = λ
//! where sⱼ > 0 and 2ρⱼ <= λ where sⱼ = 0. The path starts at s = 0 and moves
//! the active coefficients along G_AA⁻¹1, which lowers every active ρ at the
//! same rate, until an inactive ρ catches up (it enters), an active coefficient
//! reaches zero (it leaves: the lasso modification), or 2ρ falls to λ (stop).
//! The Cholesky factor of G_AA grows by a row when a variable enters and is
//! updated in place when one leaves. [`SignedLasso`] runs the same path for
//! the signed lasso (each variable moves with the sign of its correlation).
//!
//! [`LarsGram::positive_lasso_from`] starts instead from a guessed support
//! (an earlier solve's, as in an alternation whose codes settle): a few
//! rounds of an active-set method, each a Cholesky solve on the support, and
//! the point kept only when it meets the KKT conditions, which make it the
//! lasso's minimiser; otherwise it runs the path.

use hashbench_simd::vector::Kernels;

use crate::SolverError;

/// The solution and how the path got there.
#[derive(Debug, Clone, PartialEq)]
pub struct LarsSolution {
    /// Coefficients (nonnegative, exact zeros off the active set).
    pub s: Vec<f64>,
    /// Path steps taken (0 when a guessed support gave the solution).
    pub steps: usize,
}

/// A Cholesky factor L of G_AA grown one active variable at a time and
/// updated in place when one leaves, so each path step costs O(|A|²).
#[derive(Default)]
struct ActiveFactor {
    active: Vec<usize>,
    /// σ_A, the signs the active coefficients move with (all 1 for the
    /// nonnegative lasso).
    signs: Vec<f64>,
    /// Lower-triangular rows packed one after another: row i has i + 1
    /// entries and starts at i(i + 1)/2.
    packed: Vec<f64>,
    /// L⁻¹σ_A, grown with L (a new row leaves the earlier entries as they are).
    forward: Vec<f64>,
}

/// Where row `i` of a packed lower triangle starts.
fn row_start(i: usize) -> usize {
    i * (i + 1) / 2
}

impl ActiveFactor {
    /// Empty, with room for `k` variables (a factor built to a known size
    /// then grows without a reallocation).
    fn with_capacity(k: usize) -> Self {
        Self {
            active: Vec::with_capacity(k),
            signs: Vec::with_capacity(k),
            packed: Vec::with_capacity(row_start(k)),
            forward: Vec::with_capacity(k),
        }
    }

    /// Appends variable `j` with sign `sign` (`g_j` is row j of G); false
    /// (and unchanged) when it is numerically a combination of the active
    /// ones.
    fn push(&mut self, g_j: &[f64], j: usize, sign: f64) -> bool {
        let kernels = Kernels::detected();
        let start = self.packed.len();
        for (i, &a) in self.active.iter().enumerate() {
            let (done, new) = self.packed.split_at(start);
            let prior = &done[row_start(i)..row_start(i + 1)];
            let dot = kernels.dot(new, &prior[..i]);
            let v = (g_j[a] - dot) / prior[i];
            self.packed.push(v);
        }
        let sq = g_j[j] - self.packed[start..].iter().map(|v| v * v).sum::<f64>();
        if sq <= 1e-12 * g_j[j].abs().max(f64::MIN_POSITIVE) {
            self.packed.truncate(start);
            return false;
        }
        self.packed.push(sq.sqrt());
        let row = &self.packed[start..];
        let k = self.active.len();
        let dot: f64 = row[..k].iter().zip(&self.forward).map(|(r, v)| r * v).sum();
        self.forward.push((sign - dot) / row[k]);
        self.active.push(j);
        self.signs.push(sign);
        true
    }

    /// Drops the active variable at position `t`. With L split around row
    /// and column t as [[L₁₁], [l₂₁ᵀ, l₂₂], [L₃₁, l₃₂, L₃₃]], G_AA without
    /// t is factored by L₁₁, L₃₁ and the rank-one update L₃₃' L₃₃'ᵀ =
    /// L₃₃L₃₃ᵀ + l₃₂l₃₂ᵀ (Givens-like, O(|A|²) instead of a rebuild's
    /// O(|A|³)).
    fn remove(&mut self, t: usize) {
        let k = self.active.len();
        let mut x: Vec<f64> = (t + 1..k).map(|i| self.packed[row_start(i) + t]).collect();
        let mut write = row_start(t);
        for i in t + 1..k {
            for c in (0..=i).filter(|&c| c != t) {
                self.packed[write] = self.packed[row_start(i) + c];
                write += 1;
            }
        }
        self.packed.truncate(write);
        self.active.remove(t);
        self.signs.remove(t);
        for j in t..k - 1 {
            let diagonal = row_start(j) + j;
            let l = self.packed[diagonal];
            let xj = x[j - t];
            let r = l.hypot(xj);
            let (c, s) = (r / l, xj / l);
            self.packed[diagonal] = r;
            for i in j + 1..k - 1 {
                let e = row_start(i) + j;
                let updated = (self.packed[e] + s * x[i - t]) / c;
                x[i - t] = c * x[i - t] - s * updated;
                self.packed[e] = updated;
            }
        }
        self.forward.truncate(t);
        for i in t..k - 1 {
            let row = &self.packed[row_start(i)..row_start(i + 1)];
            let dot: f64 = row[..i].iter().zip(&self.forward).map(|(r, v)| r * v).sum();
            self.forward.push((self.signs[i] - dot) / row[i]);
        }
    }

    /// Solves Lᵀy = `y` in place (`y` holds L⁻¹ of a right-hand side), by
    /// rows of L: once yᵢ is known, its multiples of row i leave the
    /// entries above.
    fn back_substitute(&self, y: &mut [f64]) {
        let kernels = Kernels::detected();
        for i in (0..self.active.len()).rev() {
            let row = &self.packed[row_start(i)..row_start(i + 1)];
            y[i] /= row[i];
            let yi = y[i];
            kernels.add_scaled(&mut y[..i], &row[..i], -yi);
        }
    }

    /// G_AA⁻¹σ_A = L⁻ᵀ(L⁻¹σ_A), into `y`.
    fn solve_signs(&self, y: &mut Vec<f64>) {
        y.clear();
        y.extend_from_slice(&self.forward);
        self.back_substitute(y);
    }

    /// G_AA⁻¹ `rhs` (one entry per active variable, in their order).
    fn solve(&self, rhs: &[f64]) -> Vec<f64> {
        let mut y = Vec::with_capacity(rhs.len());
        for (i, &b) in rhs.iter().enumerate() {
            let row = &self.packed[row_start(i)..row_start(i + 1)];
            let dot: f64 = row[..i].iter().zip(&y).map(|(r, v)| r * v).sum();
            y.push((b - dot) / row[i]);
        }
        self.back_substitute(&mut y);
        y
    }
}

/// Rounds of [`LarsGram::positive_lasso_from`]'s active-set method before it
/// runs the path instead.
const ACTIVE_SET_ROUNDS: usize = 4;

/// A shape error unless `g` holds `p × p` entries.
fn check_gram_shape(g: &[f64], p: usize) -> Result<(), SolverError> {
    if g.len() == p * p {
        return Ok(());
    }
    Err(SolverError::Shape(format!(
        "Gram matrix has {} entries for {p} variables",
        g.len()
    )))
}

/// A shape error unless there are `p` correlations.
fn check_correlations(c: &[f64], p: usize) -> Result<(), SolverError> {
    if c.len() == p {
        return Ok(());
    }
    Err(SolverError::Shape(format!(
        "{} correlations for a Gram matrix of {p} variables",
        c.len()
    )))
}

/// A `p × p` Gram matrix G (positive semi-definite, row-major) prepared for
/// repeated positive-LARS solves: checked finite once, held by rows (what
/// the factor reads) and by columns (G need not be exactly symmetric, and
/// `a = G_{:,A} d` runs down whole columns). Solves that differ only in G's
/// diagonal (Sparse Hashing's S-step: BᵀB plus each item's graph shift)
/// change it in place instead of copying p² entries per solve.
#[derive(Debug, Clone)]
pub struct LarsGram {
    p: usize,
    rows: Vec<f64>,
    columns: Vec<f64>,
}

impl LarsGram {
    /// Prepares `g` (`p × p`, row-major; kept as the rows).
    ///
    /// # Errors
    /// [`SolverError::Shape`] when `g` is not `p × p`, [`SolverError::Invalid`]
    /// for a non-finite entry.
    pub fn new(g: Vec<f64>, p: usize) -> Result<LarsGram, SolverError> {
        check_gram_shape(&g, p)?;
        if g.iter().any(|v| !v.is_finite()) {
            return Err(SolverError::Invalid("non-finite Gram matrix".into()));
        }
        let mut columns = vec![0.0; p * p];
        for (j, row) in g.chunks_exact(p.max(1)).enumerate() {
            for (k, &v) in row.iter().enumerate() {
                columns[k * p + j] = v;
            }
        }
        Ok(LarsGram {
            p,
            rows: g,
            columns,
        })
    }

    /// Sets the diagonal entry `G_jj` to `v`.
    ///
    /// # Errors
    /// [`SolverError::Invalid`] for a non-finite `v`.
    ///
    /// # Panics
    /// If `j` is not below `p`.
    pub fn set_diagonal(&mut self, j: usize, v: f64) -> Result<(), SolverError> {
        if !v.is_finite() {
            return Err(SolverError::Invalid("non-finite Gram matrix".into()));
        }
        self.rows[j * self.p + j] = v;
        self.columns[j * self.p + j] = v;
        Ok(())
    }

    /// Row `j` of G.
    fn row(&self, j: usize) -> &[f64] {
        &self.rows[j * self.p..(j + 1) * self.p]
    }

    /// Solves the nonnegative lasso for this Gram matrix, the correlations
    /// `c` (`p` of them) and the penalty `lambda`.
    ///
    /// # Errors
    /// [`SolverError::Shape`] when `c` does not have `p` entries,
    /// [`SolverError::Invalid`] for a negative or non-finite penalty or
    /// non-finite correlations.
    pub fn positive_lars(&self, c: &[f64], lambda: f64) -> Result<LarsSolution, SolverError> {
        self.check_problem(c, lambda)?;
        self.path(c, lambda, false)
    }

    /// [`LarsGram::positive_lars`]'s solution, sought first from `guess` (the
    /// variables taken to be nonzero, e.g. an earlier solve's support): on a
    /// support A the coefficients G_AA⁻¹(c_A − λ/2) are the solution exactly
    /// when they are positive and no other 2ρⱼ exceeds λ (the KKT
    /// conditions); the support is corrected for [`ACTIVE_SET_ROUNDS`]
    /// rounds, and when that does not settle (or G_AA is singular) the path
    /// is run from zero.
    ///
    /// # Errors
    /// As [`LarsGram::positive_lars`].
    ///
    /// # Panics
    /// If a guessed variable is not below `p`.
    pub fn positive_lasso_from(
        &self,
        c: &[f64],
        lambda: f64,
        guess: &[usize],
    ) -> Result<LarsSolution, SolverError> {
        self.check_problem(c, lambda)?;
        match self.on_support(c, lambda, guess) {
            Some(s) => Ok(LarsSolution { s, steps: 0 }),
            None => self.path(c, lambda, false),
        }
    }

    /// The solution reached from the support `guess` by a few rounds of an
    /// active-set method (each round solves G_AA s_A = c_A − λ/2, then drops
    /// the variables whose coefficient is not positive or, when none is,
    /// adds those whose 2ρⱼ exceeds λ); `None` when [`ACTIVE_SET_ROUNDS`]
    /// rounds do not reach a point that meets the KKT conditions.
    fn on_support(&self, c: &[f64], lambda: f64, guess: &[usize]) -> Option<Vec<f64>> {
        let (p, target) = (self.p, lambda / 2.0);
        let kernels = Kernels::detected();
        let mut support = guess.to_vec();
        let mut rho = vec![0.0; p];
        for _ in 0..ACTIVE_SET_ROUNDS {
            let mut factor = ActiveFactor::with_capacity(support.len());
            for &j in &support {
                if !factor.push(self.row(j), j, 1.0) {
                    return None;
                }
            }
            let rhs: Vec<f64> = support.iter().map(|&j| c[j] - target).collect();
            let coef = factor.solve(&rhs);
            if coef.iter().any(|&v| v.is_nan() || v <= 0.0) {
                support = support
                    .iter()
                    .zip(&coef)
                    .filter(|(_, v)| **v > 0.0)
                    .map(|(&j, _)| j)
                    .collect();
                continue;
            }
            rho.copy_from_slice(c);
            for (&j, &v) in support.iter().zip(&coef) {
                kernels.add_scaled(&mut rho, &self.columns[j * p..(j + 1) * p], -v);
            }
            let mut s = vec![0.0; p];
            for (&j, &v) in support.iter().zip(&coef) {
                s[j] = v;
            }
            let entering: Vec<usize> = (0..p).filter(|&j| s[j] == 0.0 && rho[j] > target).collect();
            if entering.is_empty() {
                return Some(s);
            }
            support.extend(entering);
            support.sort_unstable();
        }
        None
    }

    /// A refusal of a penalty or correlations the solver cannot take.
    fn check_problem(&self, c: &[f64], lambda: f64) -> Result<(), SolverError> {
        check_correlations(c, self.p)?;
        if !(lambda >= 0.0 && lambda.is_finite()) {
            return Err(SolverError::Invalid(format!(
                "lasso penalty must be finite and >= 0, got {lambda}"
            )));
        }
        if c.iter().any(|v| !v.is_finite()) {
            return Err(SolverError::Invalid("non-finite correlation".into()));
        }
        Ok(())
    }

    /// The homotopy path from s = 0 (the problem checked): of the signed
    /// lasso when `signed`, else of the nonnegative one (a variable enters
    /// only with a positive coefficient).
    fn path(&self, c: &[f64], lambda: f64, signed: bool) -> Result<LarsSolution, SolverError> {
        let p = self.p;
        let kernels = Kernels::detected();
        let target = lambda / 2.0;
        let mut state = PathState {
            s: vec![0.0; p],
            rho: c.to_vec(),
            active: vec![false; p],
            collinear: vec![false; p],
            just_left: None,
            level: f64::NEG_INFINITY,
            signed,
        };
        let mut factor = ActiveFactor::default();
        let (mut d, mut a) = (Vec::with_capacity(p), vec![0.0; p]);
        let mut steps = 0;
        let cap = 16 * p.max(1);
        loop {
            if steps == cap {
                return Err(SolverError::NotConverged {
                    solver: "LARS",
                    iterations: cap,
                });
            }
            if factor.active.is_empty() {
                match self.enter_first(&mut state, &mut factor, target) {
                    None => break,
                    Some(false) => continue,
                    Some(true) => {}
                }
            }
            factor.solve_signs(&mut d);
            // a = G_{:,A} d: how fast each correlation moves per unit step
            // (the active ones fall in magnitude at rate 1).
            a.fill(0.0);
            for (&k, &dt) in factor.active.iter().zip(&d) {
                kernels.add_scaled(&mut a, &self.columns[k * p..(k + 1) * p], dt);
            }
            let (step, event) = state.next_event(&factor, &d, &a, target);
            for (&k, &dt) in factor.active.iter().zip(&d) {
                state.s[k] += step * dt;
            }
            for (r, &aj) in state.rho.iter_mut().zip(&a) {
                *r -= step * aj;
            }
            state.level -= step;
            steps += 1;
            state.just_left = None;
            match event {
                Event::Stop => break,
                Event::Enter(j, sign) => {
                    if factor.push(self.row(j), j, sign) {
                        state.active[j] = true;
                    } else {
                        state.collinear[j] = true;
                    }
                }
                Event::Leave(k) => {
                    state.s[k] = 0.0;
                    state.active[k] = false;
                    let t = factor.active.iter().position(|&v| v == k);
                    let t = t.expect("a leaving variable is active");
                    state.just_left = Some((k, factor.signs[t]));
                    factor.remove(t);
                }
            }
        }
        let mut s = state.s;
        if !signed {
            for v in &mut s {
                *v = v.max(0.0);
            }
        }
        Ok(LarsSolution { s, steps })
    }

    /// With no variable active, the one whose correlation pulls hardest
    /// enters (`Some(true)`) or, a numerical combination of none, is set
    /// aside (`Some(false)`: look again); `None` when none pulls harder than
    /// `target` (the path ends).
    fn enter_first(
        &self,
        state: &mut PathState,
        factor: &mut ActiveFactor,
        target: f64,
    ) -> Option<bool> {
        let strength = |state: &PathState, j: usize| state.strength(state.rho[j]);
        let j = (0..self.p)
            .filter(|&j| !state.collinear[j])
            .max_by(|&a, &b| strength(state, a).total_cmp(&strength(state, b)))?;
        if strength(state, j) <= target {
            return None;
        }
        if !factor.push(self.row(j), j, state.rho[j].signum()) {
            state.collinear[j] = true;
            return Some(false);
        }
        state.active[j] = true;
        state.level = strength(state, j);
        Some(true)
    }
}

/// Where the homotopy path is between steps.
struct PathState {
    /// The coefficients.
    s: Vec<f64>,
    /// The correlations c − G s.
    rho: Vec<f64>,
    /// Variables the step may not enter: active ones, numerical
    /// combinations of the active ones (`collinear`), and the one that just
    /// left on the side it left from (not at the same point; the signed path
    /// may take it back with the other sign).
    active: Vec<bool>,
    collinear: Vec<bool>,
    just_left: Option<(usize, f64)>,
    /// The common |correlation| of the active set.
    level: f64,
    /// The signed lasso's path (else the nonnegative one's).
    signed: bool,
}

impl PathState {
    /// How strongly a correlation pulls its variable in: |r| when signed,
    /// else r.
    fn strength(&self, r: f64) -> f64 {
        if self.signed { r.abs() } else { r }
    }

    /// The step along the direction `d` of the active coefficients (`a` =
    /// G_{:,A} d) to the next event, and the event: a variable entering (its
    /// correlation reaching the level), an active one leaving (its
    /// coefficient reaching 0), or the level reaching `target`.
    fn next_event(&self, factor: &ActiveFactor, d: &[f64], a: &[f64], target: f64) -> (f64, Event) {
        let (level, rho) = (self.level, &self.rho);
        let mut step = level - target;
        let mut event = Event::Stop;
        for j in 0..rho.len() {
            if self.active[j] || self.collinear[j] {
                continue;
            }
            // ρⱼ − γaⱼ reaches +(level − γ), or −(level − γ) when signed
            if a[j] < 1.0 && self.just_left != Some((j, 1.0)) {
                let gamma = ((level - rho[j]) / (1.0 - a[j])).max(0.0);
                if gamma < step {
                    step = gamma;
                    event = Event::Enter(j, 1.0);
                }
            }
            if self.signed && a[j] > -1.0 && self.just_left != Some((j, -1.0)) {
                let gamma = ((level + rho[j]) / (1.0 + a[j])).max(0.0);
                if gamma < step {
                    step = gamma;
                    event = Event::Enter(j, -1.0);
                }
            }
        }
        for ((&k, &dt), &sign) in factor.active.iter().zip(d).zip(&factor.signs) {
            if dt * sign < 0.0 {
                let gamma = (-self.s[k] / dt).max(0.0);
                if gamma < step {
                    step = gamma;
                    event = Event::Leave(k);
                }
            }
        }
        (step, event)
    }
}

/// Solves the nonnegative lasso for the `p × p` row-major Gram matrix `g`
/// (positive semi-definite), the correlations `c` and the penalty `lambda`
/// (one solve; [`LarsGram`] for many on one Gram matrix).
///
/// # Errors
/// [`SolverError::Shape`] or [`SolverError::Invalid`] for a negative or
/// non-finite penalty or non-finite input.
pub fn positive_lars(g: &[f64], c: &[f64], lambda: f64) -> Result<LarsSolution, SolverError> {
    LarsGram::new(g.to_vec(), c.len())?.positive_lars(c, lambda)
}

/// The (signed) lasso min over s of sᵀGs − 2cᵀs + λ‖s‖₁ ("general sparse
/// coding"; the elastic net is the lasso of G + λ₂I) by the LARS-lasso
/// path, whose active variables move with the signs of their correlations;
/// prepared once for many solves on one G.
#[derive(Debug, Clone)]
pub struct SignedLasso {
    gram: LarsGram,
}

impl SignedLasso {
    /// Prepares `g` (`p × p`, row-major).
    ///
    /// # Errors
    /// As [`LarsGram::new`].
    pub fn new(g: &[f64], p: usize) -> Result<SignedLasso, SolverError> {
        Ok(SignedLasso {
            gram: LarsGram::new(g.to_vec(), p)?,
        })
    }

    /// The signed lasso's solution for correlations `c` and penalty `lambda`.
    ///
    /// # Errors
    /// As [`LarsGram::positive_lars`].
    pub fn solve(&self, c: &[f64], lambda: f64) -> Result<LarsSolution, SolverError> {
        self.gram.check_problem(c, lambda)?;
        self.gram.path(c, lambda, true)
    }
}

/// [`SignedLasso`] for one solve.
///
/// # Errors
/// As [`positive_lars`].
pub fn signed_lasso(g: &[f64], c: &[f64], lambda: f64) -> Result<LarsSolution, SolverError> {
    SignedLasso::new(g, c.len())?.solve(c, lambda)
}

enum Event {
    Stop,
    /// A variable enters with this sign.
    Enter(usize, f64),
    Leave(usize),
}

/// The largest violation of the signed lasso's KKT conditions at `s`:
/// |2ρⱼ − λ sign(sⱼ)| on the support, max(|2ρⱼ| − λ, 0) off it.
pub fn lasso_kkt_violation(g: &[f64], c: &[f64], lambda: f64, s: &[f64]) -> f64 {
    let p = c.len();
    (0..p)
        .map(|j| {
            let rho = c[j] - (0..p).map(|k| g[j * p + k] * s[k]).sum::<f64>();
            if s[j] != 0.0 {
                (2.0 * rho - lambda * s[j].signum()).abs()
            } else {
                (2.0 * rho.abs() - lambda).max(0.0)
            }
        })
        .fold(0.0, f64::max)
}

/// The largest violation of the nonnegative lasso's KKT conditions at `s`:
/// |2ρⱼ − λ| on the support, max(2ρⱼ − λ, 0) off it, and any negative sⱼ.
pub fn positive_lasso_kkt_violation(g: &[f64], c: &[f64], lambda: f64, s: &[f64]) -> f64 {
    let p = c.len();
    (0..p)
        .map(|j| {
            let rho = c[j] - (0..p).map(|k| g[j * p + k] * s[k]).sum::<f64>();
            if s[j] > 0.0 {
                (2.0 * rho - lambda).abs()
            } else {
                (2.0 * rho - lambda).max(0.0).max(-s[j])
            }
        })
        .fold(0.0, f64::max)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A symmetric positive definite `p × p` Gram (row-major) with
    /// correlated columns.
    fn gram(p: usize) -> Vec<f64> {
        let b: Vec<f64> = (0..(p + 3) * p)
            .map(|t| ((t * 7919 % 101) as f64 / 50.0 - 1.0) + 0.3 * (t % p) as f64)
            .collect();
        let mut g = vec![0.0; p * p];
        for r in 0..p {
            for c in 0..p {
                g[r * p + c] = (0..p + 3).map(|i| b[i * p + r] * b[i * p + c]).sum();
            }
        }
        g
    }

    /// Removing a variable from the factor gives the factor of the rest
    /// built afresh (L and L⁻¹σ), wherever the variable sits.
    #[test]
    fn a_downdated_factor_is_the_factor_of_the_remaining_variables() {
        let p = 7;
        let g = gram(p);
        let order = [3, 0, 5, 1, 6, 2];
        let signs = [1.0, -1.0, 1.0, 1.0, -1.0, -1.0];
        for t in 0..order.len() {
            let mut factor = ActiveFactor::default();
            for (&j, &sign) in order.iter().zip(&signs) {
                assert!(factor.push(&g[j * p..(j + 1) * p], j, sign));
            }
            factor.remove(t);
            let mut fresh = ActiveFactor::default();
            for (i, (&j, &sign)) in order.iter().zip(&signs).enumerate() {
                if i != t {
                    fresh.push(&g[j * p..(j + 1) * p], j, sign);
                }
            }
            assert_eq!(factor.active, fresh.active);
            assert_eq!(factor.signs, fresh.signs);
            assert_eq!(factor.packed.len(), fresh.packed.len());
            for (a, b) in factor.packed.iter().zip(&fresh.packed) {
                assert!(
                    (a - b).abs() < 1e-10 * b.abs().max(1.0),
                    "t = {t}: {a} vs {b}"
                );
            }
            for (a, b) in factor.forward.iter().zip(&fresh.forward) {
                assert!(
                    (a - b).abs() < 1e-10 * b.abs().max(1.0),
                    "t = {t}: {a} vs {b}"
                );
            }
            // and it solves: G_AA y = rhs
            let rhs: Vec<f64> = (0..fresh.active.len()).map(|i| i as f64 - 1.5).collect();
            let y = factor.solve(&rhs);
            for (r, &jr) in fresh.active.iter().enumerate() {
                let lhs: f64 = fresh
                    .active
                    .iter()
                    .zip(&y)
                    .map(|(&jc, v)| g[jr * p + jc] * v)
                    .sum();
                assert!((lhs - rhs[r]).abs() < 1e-9, "t = {t}: {lhs} vs {}", rhs[r]);
            }
        }
    }
}
