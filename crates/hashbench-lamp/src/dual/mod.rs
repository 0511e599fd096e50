//! The reduced QPs of the cutting-plane loop solved in their dual, by a
//! primal active-set method on the cuts' multipliers, warm-started as cuts
//! arrive.
//!
//! The reduced problem over ν̃ = (ν, β) and one slack ξ_s per cut family s
//! (the margin cuts, and the pair cuts when present):
//!
//! minimise ½νᵀGν + Σ_s λ_s ξ_s
//! subject to |k̄ᵀν + β| ≤ l, ξ_s ≥ 0 and, for every cut k of family s,
//! v_kᵀν + t_k β + c_k ≤ ξ_s.
//!
//! Its rows r_j = (v_j, t_j) with right-hand sides h_j (the balance rows
//! ±(k̄, 1) with h = l; a cut with h = −c_k) give, with multipliers u ≥ 0 and
//! W = L⁻¹V for G = LLᵀ, the dual
//!
//! minimise ½uᵀ(WᵀW)u + hᵀu subject to u ≥ 0, tᵀu = 0 and
//! Σ_{k ∈ s} u_k ≤ λ_s,
//!
//! whose optimum is minus the primal one, with ν = −L⁻ᵀWu. Its size is the
//! number of cuts (at most `max_cuts` per family, plus two), not p: adding a
//! cut appends one column of W (a triangular solve) and one row of WᵀW, and
//! the previous multipliers, padded with a zero, are feasible for the new
//! dual, so each solve starts where the last one stopped. The multipliers of
//! the dual's own constraints are the primal's β (of tᵀu = 0, negated) and
//! ξ_s (of family s's budget). Clarabel on the primal is the test oracle.

use faer::{Mat, MatRef};
use hashbench_core::linalg::{cholesky, top_eigenpairs};

use crate::qp::QpError;

/// Relative size below which an eigenvalue of the reduced Hessian counts as
/// zero curvature, and a step or a multiplier as zero.
const TOLERANCE: f64 = 1e-12;

/// Which constraint of the dual a row's multiplier feeds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Family {
    /// A balance row (no budget).
    Balance,
    /// A cut of slack family s (budget λ_s).
    Cut(usize),
}

/// The dual of one cutting-plane run's reduced QPs, grown cut by cut.
#[derive(Debug, Clone)]
pub struct DualQp {
    /// Lower Cholesky factor L of G (p × p).
    l: Mat<f64>,
    /// Columns w_j = L⁻¹v_j, one after another (p each).
    w: Vec<f64>,
    /// Bias coefficient t_j of each row.
    t: Vec<f64>,
    /// Right-hand side h_j of each row.
    h: Vec<f64>,
    /// The family of each row.
    family: Vec<Family>,
    /// λ_s: each slack family's cost, its multipliers' budget.
    budgets: Vec<f64>,
    /// WᵀW, row-major, grown by one row and column per cut.
    hessian: Vec<Vec<f64>>,
    /// The current multipliers (feasible for the dual).
    u: Vec<f64>,
    /// Multipliers held at zero by the working set.
    at_zero: Vec<bool>,
    /// Budgets held tight by the working set.
    tight: Vec<bool>,
}

/// A solved reduced QP.
#[derive(Debug, Clone, PartialEq)]
pub struct DualSolution {
    /// ν̃ = (ν, β).
    pub x: Vec<f64>,
    /// ξ_s per slack family: the smallest feasible value at ν̃.
    pub slacks: Vec<f64>,
    /// The primal objective ½νᵀGν + Σ λ_s ξ_s at (ν̃, ξ).
    pub objective: f64,
    /// Minus the dual objective: a lower bound of the optimum.
    pub dual_objective: f64,
    /// The multipliers, one per row (the two balance rows first, then the
    /// cuts in the order they were added).
    pub multipliers: Vec<f64>,
    /// Active-set iterations of this solve.
    pub iterations: usize,
}

impl DualQp {
    /// The dual for G (p × p, positive definite), the balance row (k̄, 1)
    /// with bound `balance`, and one cost per slack family.
    ///
    /// # Errors
    /// [`QpError::Setup`] when G is not positive definite, the balance row
    /// is not p + 1 long, or a bound or cost is negative or not finite.
    pub fn new(
        g: MatRef<'_, f64>,
        balance_row: &[f64],
        balance: f64,
        costs: &[f64],
    ) -> Result<Self, QpError> {
        let p = g.nrows();
        if balance_row.len() != p + 1 {
            return Err(QpError::Setup(format!(
                "a balance row of {} entries for {p} variables and a bias",
                balance_row.len()
            )));
        }
        if !(balance >= 0.0 && balance.is_finite())
            || costs.iter().any(|c| !(*c >= 0.0 && c.is_finite()))
        {
            return Err(QpError::Setup(
                "balance bound and slack costs must be finite and >= 0".into(),
            ));
        }
        let l = cholesky(g)
            .ok_or_else(|| QpError::Setup("G is not positive definite".into()))?
            .L()
            .to_owned();
        let mut dual = DualQp {
            l,
            w: Vec::new(),
            t: Vec::new(),
            h: Vec::new(),
            family: Vec::new(),
            budgets: costs.to_vec(),
            hessian: Vec::new(),
            u: Vec::new(),
            at_zero: Vec::new(),
            tight: vec![false; costs.len()],
        };
        let minus: Vec<f64> = balance_row.iter().map(|v| -v).collect();
        dual.push_row(balance_row, balance, Family::Balance);
        dual.push_row(&minus, balance, Family::Balance);
        Ok(dual)
    }

    /// Number of variables p.
    fn p(&self) -> usize {
        self.l.nrows()
    }

    /// Adds the cut v_kᵀν + t_k β + c_k ≤ ξ_s (`coeffs` = (v_k, t_k),
    /// `constant` = c_k) to slack family `family`; its multiplier starts at
    /// zero, so the last solution stays feasible.
    ///
    /// # Panics
    /// If `coeffs` is not p + 1 long or the family does not exist.
    pub fn add_cut(&mut self, family: usize, coeffs: &[f64], constant: f64) {
        assert!(family < self.budgets.len(), "no slack family {family}");
        self.push_row(coeffs, -constant, Family::Cut(family));
    }

    fn push_row(&mut self, coeffs: &[f64], h: f64, family: Family) {
        let p = self.p();
        assert_eq!(coeffs.len(), p + 1, "a row has p + 1 coefficients");
        // w = L⁻¹v by forward substitution
        let mut w = coeffs[..p].to_vec();
        for i in 0..p {
            let dot: f64 = (0..i).map(|k| self.l[(i, k)] * w[k]).sum();
            w[i] = (w[i] - dot) / self.l[(i, i)];
        }
        let row: Vec<f64> = self
            .w
            .chunks_exact(p.max(1))
            .take(self.t.len())
            .map(|other| dot(other, &w))
            .collect();
        for (old, v) in self.hessian.iter_mut().zip(&row) {
            old.push(*v);
        }
        let mut row = row;
        row.push(dot(&w, &w));
        self.hessian.push(row);
        self.w.extend_from_slice(&w);
        self.t.push(coeffs[p]);
        self.h.push(h);
        self.family.push(family);
        self.u.push(0.0);
        self.at_zero.push(true);
    }

    /// g = Hu + h, the dual objective's gradient.
    fn gradient(&self) -> Vec<f64> {
        self.hessian
            .iter()
            .zip(&self.h)
            .map(|(row, h)| dot(row, &self.u) + h)
            .collect()
    }

    /// The equality rows on the free multipliers `free`: tᵀ, and the
    /// indicator of each tight budget's family.
    fn equality_rows(&self, free: &[usize]) -> Vec<Vec<f64>> {
        let mut rows = vec![free.iter().map(|&j| self.t[j]).collect::<Vec<_>>()];
        for (s, _) in self.tight.iter().enumerate().filter(|(_, on)| **on) {
            rows.push(
                free.iter()
                    .map(|&j| f64::from(u8::from(self.family[j] == Family::Cut(s))))
                    .collect(),
            );
        }
        rows
    }

    /// Solves the dual from the current multipliers and working set.
    ///
    /// # Errors
    /// [`QpError::Status`] when the active-set iterations do not settle
    /// within their cap (the caller falls back to the interior-point
    /// solver), or an eigensolver failure.
    pub fn solve(&mut self) -> Result<DualSolution, QpError> {
        let m = self.u.len();
        let cap = 20 * (m + self.budgets.len() + 2);
        let mut iterations = 0;
        loop {
            if iterations == cap {
                return Err(QpError::Status(format!(
                    "dual active set did not settle in {cap} iterations"
                )));
            }
            iterations += 1;
            let g = self.gradient();
            let free: Vec<usize> = (0..m).filter(|&j| !self.at_zero[j]).collect();
            let step = self.step(&free, &g)?;
            // a Newton step whose predicted fall is round-off of the
            // objective's terms is none (an ill-conditioned face otherwise
            // dithers at the noise of its solve)
            let hu: f64 = 0.5 * dot(&g, &self.u) - 0.5 * dot(&self.h, &self.u);
            let size = 1.0 + hu.abs() + dot(&self.h, &self.u).abs();
            let moving = step.unbounded || step.decrease > 1e-13 * size;
            if !moving {
                match self.most_negative_multiplier(&free, &g) {
                    None => break,
                    Some(Release::Bound(j)) => self.at_zero[j] = false,
                    Some(Release::Budget(s)) => self.tight[s] = false,
                }
                continue;
            }
            self.take_step(&free, &step)?;
        }
        Ok(self.solution(iterations))
    }

    /// The step on the free multipliers: Newton on the working set's null
    /// space where the reduced Hessian curves, or, where a direction of zero
    /// curvature descends, that direction alone (it runs to a constraint).
    fn step(&self, free: &[usize], g: &[f64]) -> Result<Step, QpError> {
        let z = null_space(&self.equality_rows(free), free.len());
        let k = z.ncols();
        if k == 0 {
            return Ok(Step {
                direction: vec![0.0; free.len()],
                unbounded: false,
                decrease: 0.0,
            });
        }
        let hz = Mat::from_fn(free.len(), k, |a, c| {
            free.iter()
                .enumerate()
                .map(|(b, &jb)| self.hessian[free[a]][jb] * z[(b, c)])
                .sum::<f64>()
        });
        let reduced = Mat::from_fn(k, k, |a, c| {
            (0..free.len()).map(|r| z[(r, a)] * hz[(r, c)]).sum::<f64>()
        });
        let r: Vec<f64> = (0..k)
            .map(|c| (0..free.len()).map(|a| z[(a, c)] * g[free[a]]).sum())
            .collect();
        let (values, vectors) =
            top_eigenpairs(reduced.as_ref(), k).map_err(|e| QpError::Status(e.to_string()))?;
        let top = values.first().copied().unwrap_or(0.0).max(0.0);
        let g_scale = r.iter().fold(0.0f64, |a, v| a.max(v.abs()));
        let mut newton = vec![0.0; k];
        let mut descent = vec![0.0; k];
        let mut flat = false;
        let mut decrease = 0.0;
        for (e, &lambda) in values.iter().enumerate() {
            let q = vectors.col(e);
            let along: f64 = (0..k).map(|a| q[a] * r[a]).sum();
            if lambda > TOLERANCE * top.max(1.0) {
                decrease += 0.5 * along * along / lambda;
                for a in 0..k {
                    newton[a] -= along / lambda * q[a];
                }
            } else if along.abs() > 1e-10 * g_scale.max(1.0) {
                flat = true;
                for a in 0..k {
                    descent[a] -= along * q[a];
                }
            }
        }
        let reduced_step = if flat { descent } else { newton };
        let direction = (0..free.len())
            .map(|a| (0..k).map(|c| z[(a, c)] * reduced_step[c]).sum())
            .collect();
        Ok(Step {
            direction,
            unbounded: flat,
            decrease,
        })
    }

    /// Moves along the step to the first constraint it meets (or its full
    /// length), and holds that constraint.
    fn take_step(&mut self, free: &[usize], step: &Step) -> Result<(), QpError> {
        let mut alpha = if step.unbounded { f64::INFINITY } else { 1.0 };
        let mut blocking = None;
        for (a, &j) in free.iter().enumerate() {
            let d = step.direction[a];
            if d < 0.0 {
                let ratio = self.u[j] / -d;
                if ratio < alpha {
                    alpha = ratio;
                    blocking = Some(Release::Bound(j));
                }
            }
        }
        for (s, budget) in self.budgets.iter().enumerate() {
            if self.tight[s] {
                continue;
            }
            let (mut used, mut rate) = (0.0, 0.0);
            for (a, &j) in free.iter().enumerate() {
                if self.family[j] == Family::Cut(s) {
                    used += self.u[j];
                    rate += step.direction[a];
                }
            }
            if rate > 0.0 {
                let ratio = ((budget - used) / rate).max(0.0);
                if ratio < alpha {
                    alpha = ratio;
                    blocking = Some(Release::Budget(s));
                }
            }
        }
        if !alpha.is_finite() {
            return Err(QpError::Status(
                "dual unbounded below: the primal is infeasible".into(),
            ));
        }
        for (a, &j) in free.iter().enumerate() {
            self.u[j] = (self.u[j] + alpha * step.direction[a]).max(0.0);
        }
        match blocking {
            Some(Release::Bound(j)) => {
                self.u[j] = 0.0;
                self.at_zero[j] = true;
            }
            Some(Release::Budget(s)) => self.tight[s] = true,
            None => {}
        }
        Ok(())
    }

    /// The working-set constraint with the most negative multiplier, if any
    /// is negative beyond round-off: the one to release.
    fn most_negative_multiplier(&self, free: &[usize], g: &[f64]) -> Option<Release> {
        // g_F + μ t_F + Σ_s σ_s 1_{s,F} = 0, by least squares over (μ, σ)
        let rows = self.equality_rows(free);
        let tight: Vec<usize> = (0..self.budgets.len()).filter(|&s| self.tight[s]).collect();
        let rhs: Vec<f64> = free.iter().map(|&j| -g[j]).collect();
        let coef = least_squares(&rows, &rhs);
        let mu = coef[0];
        let sigma = |s: usize| -> f64 {
            tight
                .iter()
                .position(|&x| x == s)
                .map_or(0.0, |at| coef[1 + at])
        };
        let scale = 1.0 + g.iter().fold(0.0f64, |a, v| a.max(v.abs()));
        let mut worst: Option<(f64, Release)> = None;
        let mut consider = |value: f64, which: Release| {
            if value < -1e-12 * scale && worst.as_ref().is_none_or(|(w, _)| value < *w) {
                worst = Some((value, which));
            }
        };
        for &s in &tight {
            consider(sigma(s), Release::Budget(s));
        }
        for j in (0..self.u.len()).filter(|&j| self.at_zero[j]) {
            let budget = match self.family[j] {
                Family::Cut(s) => sigma(s),
                Family::Balance => 0.0,
            };
            consider(g[j] + mu * self.t[j] + budget, Release::Bound(j));
        }
        worst.map(|(_, which)| which)
    }

    /// The primal point of the current multipliers: ν = −L⁻ᵀWu, then β
    /// minimising the slacks' cost within the balance interval (a convex
    /// piecewise-linear function of one variable; the equality's multiplier
    /// is not unique when the dual is degenerate), each ξ_s the smallest
    /// feasible slack at (ν, β).
    fn solution(&self, iterations: usize) -> DualSolution {
        let p = self.p();
        let mut wu = vec![0.0; p];
        for (col, &u) in self.w.chunks_exact(p.max(1)).zip(&self.u) {
            if u != 0.0 {
                for (a, v) in wu.iter_mut().zip(col) {
                    *a += u * v;
                }
            }
        }
        let quadratic = 0.5 * dot(&wu, &wu);
        let mut nu = vec![0.0; p];
        for i in (0..p).rev() {
            let dot: f64 = (i + 1..p).map(|k| self.l[(k, i)] * nu[k]).sum();
            nu[i] = (-wu[i] - dot) / self.l[(i, i)];
        }
        // v_jᵀν = w_jᵀLᵀν = −w_jᵀWu: each row's value at ν without forming ν's products
        let row_at_nu = |j: usize| -dot(&self.w[j * p..(j + 1) * p], &wu);
        // ν is the optimum's; β and the slacks minimise Σ λ_s ξ_s given ν
        let lines: Vec<(usize, f64, f64)> = (0..self.u.len())
            .filter_map(|j| match self.family[j] {
                Family::Cut(s) => Some((s, row_at_nu(j) - self.h[j], self.t[j])),
                Family::Balance => None,
            })
            .collect();
        let slacks_at = |beta: f64| -> Vec<f64> {
            let mut slacks = vec![0.0f64; self.budgets.len()];
            for &(s, a, t) in &lines {
                slacks[s] = slacks[s].max(a + t * beta);
            }
            slacks
        };
        let cost = |beta: f64| dot(&slacks_at(beta), &self.budgets);
        // |v₀ᵀν + β| ≤ l: the balance rows bound β to an interval
        let centre = -row_at_nu(0);
        let l = self.h[0];
        let beta = convex_minimum(cost, centre - l, centre + l);
        let slacks = slacks_at(beta);
        let objective = quadratic + dot(&slacks, &self.budgets);
        let dual: f64 = 0.5 * dot(&self.gradient(), &self.u) + 0.5 * dot(&self.h, &self.u);
        let mut x = nu;
        x.push(beta);
        DualSolution {
            x,
            slacks,
            objective,
            dual_objective: -dual,
            multipliers: self.u.clone(),
            iterations,
        }
    }
}

/// A step on the free multipliers.
struct Step {
    direction: Vec<f64>,
    /// A zero-curvature descent direction: it runs until a constraint.
    unbounded: bool,
    /// The objective's predicted fall over a full Newton step.
    decrease: f64,
}

/// A working-set constraint to release or to hold.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Release {
    Bound(usize),
    Budget(usize),
}

fn dot(a: &[f64], b: &[f64]) -> f64 {
    a.iter().zip(b).map(|(x, y)| x * y).sum()
}

/// A minimiser of the convex function `f` on [lo, hi], by golden-section
/// search to the interval's round-off (exact for piecewise-linear `f` up to
/// that width).
fn convex_minimum(f: impl Fn(f64) -> f64, lo: f64, hi: f64) -> f64 {
    const SHRINK: f64 = 0.618_033_988_749_894_9;
    let (mut lo, mut hi) = (lo, hi);
    let mut a = hi - SHRINK * (hi - lo);
    let mut b = lo + SHRINK * (hi - lo);
    let (mut fa, mut fb) = (f(a), f(b));
    for _ in 0..400 {
        if hi - lo <= 4.0 * f64::EPSILON * (1.0 + lo.abs().max(hi.abs())) {
            break;
        }
        if fa <= fb {
            (hi, b, fb) = (b, a, fa);
            a = hi - SHRINK * (hi - lo);
            fa = f(a);
        } else {
            (lo, a, fa) = (a, b, fb);
            b = lo + SHRINK * (hi - lo);
            fb = f(b);
        }
    }
    // the ends too: a minimum on the boundary is reached only in the limit
    [lo, hi, 0.5 * (lo + hi)]
        .into_iter()
        .min_by(|x, y| f(*x).total_cmp(&f(*y)))
        .expect("three candidates")
}

/// An orthonormal basis (n × k) of the vectors orthogonal to every row of
/// `rows` (each n long), by Householder reflections of the rows; rows
/// dependent on earlier ones are skipped.
fn null_space(rows: &[Vec<f64>], n: usize) -> Mat<f64> {
    // reflectors applied to the rows in turn; each kept one fixes a pivot
    let mut reflectors: Vec<Vec<f64>> = Vec::new();
    let scale = rows
        .iter()
        .flatten()
        .fold(0.0f64, |a, v| a.max(v.abs()))
        .max(f64::MIN_POSITIVE);
    for row in rows {
        let mut v = row.clone();
        for (r, h) in reflectors.iter().enumerate() {
            reflect(h, &mut v, r);
        }
        let r = reflectors.len();
        if r >= n {
            break;
        }
        let tail: f64 = v[r..].iter().map(|x| x * x).sum::<f64>().sqrt();
        if tail <= 1e-12 * scale * (n as f64).sqrt() {
            continue;
        }
        let mut h = vec![0.0; n];
        h[r..].copy_from_slice(&v[r..]);
        h[r] += if v[r] >= 0.0 { tail } else { -tail };
        let norm = h.iter().map(|x| x * x).sum::<f64>().sqrt();
        h.iter_mut().for_each(|x| *x /= norm);
        reflectors.push(h);
    }
    let rank = reflectors.len();
    // Q = H_1 ⋯ H_r; its columns r.. span the complement
    Mat::from_fn(n, n - rank, |i, c| {
        let mut e = vec![0.0; n];
        e[rank + c] = 1.0;
        for (r, h) in reflectors.iter().enumerate().rev() {
            reflect(h, &mut e, r);
        }
        e[i]
    })
}

/// x ← (I − 2hhᵀ)x, h zero before index `from`.
fn reflect(h: &[f64], x: &mut [f64], from: usize) {
    let d: f64 = h[from..].iter().zip(&x[from..]).map(|(a, b)| a * b).sum();
    for (xi, hi) in x[from..].iter_mut().zip(&h[from..]) {
        *xi -= 2.0 * d * hi;
    }
}

/// The least-squares coefficients c minimising ‖Σ_r c_r rows_r − rhs‖ (the
/// minimum-norm one when the rows are dependent), by the normal equations'
/// eigen-decomposition (at most three rows).
fn least_squares(rows: &[Vec<f64>], rhs: &[f64]) -> Vec<f64> {
    let k = rows.len();
    let gram = Mat::from_fn(k, k, |a, b| dot(&rows[a], &rows[b]));
    let right: Vec<f64> = rows.iter().map(|r| dot(r, rhs)).collect();
    let Ok((values, vectors)) = top_eigenpairs(gram.as_ref(), k) else {
        return vec![0.0; k];
    };
    let top = values.first().copied().unwrap_or(0.0);
    let mut c = vec![0.0; k];
    for (e, &lambda) in values.iter().enumerate() {
        if lambda > 1e-12 * top && lambda > 0.0 {
            let q = vectors.col(e);
            let along: f64 = (0..k).map(|a| q[a] * right[a]).sum();
            for a in 0..k {
                c[a] += along / lambda * q[a];
            }
        }
    }
    c
}

#[cfg(test)]
mod tests;
