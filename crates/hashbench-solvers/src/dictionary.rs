//! The dictionary step of sparse coding (Sparse Hashing eq. 4):
//! min over B of ‖X − BS‖²_F subject to ‖Bⱼ‖² <= 1, by the Lagrange dual of
//! Lee, Battle, Raina and Ng (NIPS 2007). With M = SSᵀ + diag(λ) and
//! A = (XSᵀ)ᵀ(XSᵀ), the dual is
//! D(λ) = tr(XᵀX) − tr(M⁻¹A) − Σλ, maximised over λ >= 0 by projected Newton
//! (gradient ‖Bⱼ‖² − 1, Hessian −2 (M⁻¹AM⁻¹) ∘ M⁻¹); then B = XSᵀM⁻¹.
//!
//! Atoms whose row of S is zero are unused: the problem does not determine
//! them, so they keep their previous value and are reported as dead. When
//! SSᵀ is singular among the used atoms with slack norms (two atoms used by
//! the same items only), the dual optimum sits where M is singular and Newton
//! cannot settle: the step then falls back to exact block coordinate descent
//! on the columns from the previous dictionary (each column the projection of
//! its least-squares solution on the unit ball), which never raises the
//! primal objective.

use faer::linalg::solvers::Solve;
use faer::{Mat, MatRef};
use hashbench_core::linalg::cholesky;

use crate::SolverError;

/// The new dictionary and what the dual solve did.
#[derive(Debug, Clone)]
pub struct DictionaryStep {
    /// The dictionary (d × m), columns of norm <= 1.
    pub b: Mat<f64>,
    /// Optimal multipliers (0 for dead atoms).
    pub multipliers: Vec<f64>,
    /// Dead atoms (zero rows of S), kept from the previous dictionary.
    pub dead: Vec<usize>,
    /// Newton iterations.
    pub iterations: usize,
    /// Whether the block-coordinate fallback gave the dictionary.
    pub fallback: bool,
    /// Primal objective ‖X − BS‖² minus the dual objective (>= 0, ~0 at the optimum).
    pub gap: f64,
}

/// Solves the dictionary step from the sufficient statistics `xs` = XSᵀ
/// (d × m), `ss` = SSᵀ (m × m) and `xx` = tr(XᵀX), keeping dead atoms of
/// `previous` (d × m).
///
/// # Errors
/// [`SolverError::Shape`], [`SolverError::NotConverged`].
pub fn dictionary_dual(
    xs: MatRef<'_, f64>,
    ss: MatRef<'_, f64>,
    xx: f64,
    previous: MatRef<'_, f64>,
) -> Result<DictionaryStep, SolverError> {
    let (d, m) = (xs.nrows(), xs.ncols());
    if ss.nrows() != m || ss.ncols() != m || previous.nrows() != d || previous.ncols() != m {
        return Err(SolverError::Shape(format!(
            "dictionary: XSᵀ is {d} × {m}, SSᵀ {} × {}, previous B {} × {}",
            ss.nrows(),
            ss.ncols(),
            previous.nrows(),
            previous.ncols()
        )));
    }
    let live: Vec<usize> = (0..m).filter(|&j| ss[(j, j)] > 0.0).collect();
    let dead: Vec<usize> = (0..m).filter(|&j| ss[(j, j)] <= 0.0).collect();
    let k = live.len();
    let xs_l = Mat::from_fn(d, k, |i, a| xs[(i, live[a])]);
    let ss_l = Mat::from_fn(k, k, |a, b| ss[(live[a], live[b])]);
    let dual = Dual {
        ss: ss_l,
        a: xs_l.transpose() * &xs_l,
        xx,
    };
    let a_mat = &dual.a;
    let scale = (0..k).map(|t| dual.ss[(t, t)]).fold(1.0, f64::max);
    let mut lambda = vec![scale; k];
    let (mut value, mut minv) = dual.at(&lambda).ok_or_else(|| {
        SolverError::Invalid("dictionary: SSᵀ + diag(λ) is not positive definite".into())
    })?;
    let mut iterations = 0;
    let tol = 1e-12 * xx.max(1.0);
    let converged = loop {
        let bnorm = &minv * a_mat * &minv;
        let grad: Vec<f64> = (0..k).map(|t| bnorm[(t, t)] - 1.0).collect();
        // Free variables: interior, or at the bound with an inward gradient.
        let free: Vec<usize> = (0..k)
            .filter(|&t| lambda[t] > 0.0 || grad[t] > 0.0)
            .collect();
        let pg = free.iter().map(|&t| grad[t].abs()).fold(0.0, f64::max);
        if pg <= 1e-10 || iterations >= 200 {
            break pg <= 1e-8;
        }
        iterations += 1;
        let dir = newton_direction((bnorm.as_ref(), minv.as_ref()), &grad, &free, scale);
        match dual.line_search((&lambda, value), &grad, &free, dir.as_ref(), tol) {
            Some((trial, v, mi)) => (lambda, value, minv) = (trial, v, mi),
            None => break pg <= 1e-6,
        }
    };
    if !converged {
        return Ok(column_descent(xs, ss, xx, previous, dead, iterations));
    }
    let b_live = &xs_l * &minv;
    let mut b = previous.to_owned();
    for (a, &j) in live.iter().enumerate() {
        for i in 0..d {
            b[(i, j)] = b_live[(i, a)];
        }
    }
    let primal = primal(b_live.as_ref(), xs_l.as_ref(), dual.ss.as_ref(), xx);
    let mut multipliers = vec![0.0; m];
    for (a, &j) in live.iter().enumerate() {
        multipliers[j] = lambda[a];
    }
    Ok(DictionaryStep {
        b,
        multipliers,
        dead,
        iterations,
        fallback: false,
        gap: primal - value,
    })
}

/// The Newton direction of the dual's maximisation on the `free`
/// multipliers: the negated Hessian 2 (M⁻¹AM⁻¹ ∘ M⁻¹) (from `bnorm` =
/// M⁻¹AM⁻¹ and `minv` = M⁻¹; a ridge of 10⁻¹⁴ `scale`) solved against the
/// gradient, or the gradient itself where that Hessian is not definite.
fn newton_direction(
    (bnorm, minv): (MatRef<'_, f64>, MatRef<'_, f64>),
    grad: &[f64],
    free: &[usize],
    scale: f64,
) -> Mat<f64> {
    let f = free.len();
    let neg_hess = Mat::from_fn(f, f, |a, b| {
        let (s, t) = (free[a], free[b]);
        2.0 * bnorm[(s, t)] * minv[(s, t)] + if a == b { 1e-14 * scale } else { 0.0 }
    });
    let g_free = Mat::from_fn(f, 1, |a, _| grad[free[a]]);
    match cholesky(neg_hess.as_ref()) {
        Some(l) => l.solve(&g_free),
        None => g_free,
    }
}

/// The Lagrange dual of the live atoms' problem, over the multipliers λ of
/// their norm constraints: g(λ) = tr(XᵀX) − tr(M⁻¹ A) − Σλ with
/// M = SSᵀ + diag(λ) and A = (XSᵀ)ᵀ XSᵀ.
struct Dual {
    ss: Mat<f64>,
    a: Mat<f64>,
    xx: f64,
}

impl Dual {
    /// g(λ) and M⁻¹; `None` where M is not positive definite.
    fn at(&self, lambda: &[f64]) -> Option<(f64, Mat<f64>)> {
        let k = lambda.len();
        let mut mm = self.ss.clone();
        for (t, l) in lambda.iter().enumerate() {
            mm[(t, t)] += l;
        }
        let llt = cholesky(mm.as_ref())?;
        let minv = llt.solve(Mat::<f64>::identity(k, k));
        let value = self.xx
            - (0..k)
                .map(|t| (0..k).map(|u| minv[(t, u)] * self.a[(u, t)]).sum::<f64>())
                .sum::<f64>()
            - lambda.iter().sum::<f64>();
        Some((value, minv))
    }

    /// Backtracking from (λ, g(λ)) along `dir` on the `free` multipliers
    /// (projected onto λ ≥ 0), halving the step up to 60 times until the
    /// ascent meets Armijo's condition against the gradient `grad` (within
    /// `tol`): the new λ, g and M⁻¹, or `None`.
    fn line_search(
        &self,
        (lambda, value): (&[f64], f64),
        grad: &[f64],
        free: &[usize],
        dir: MatRef<'_, f64>,
        tol: f64,
    ) -> Option<(Vec<f64>, f64, Mat<f64>)> {
        let mut step = 1.0;
        for _ in 0..60 {
            let mut trial = lambda.to_vec();
            for (a, &t) in free.iter().enumerate() {
                trial[t] = (lambda[t] + step * dir[(a, 0)]).max(0.0);
            }
            let gain: f64 = free.iter().map(|&t| grad[t] * (trial[t] - lambda[t])).sum();
            if let Some((v, mi)) = self.at(&trial)
                && v >= value + 1e-4 * gain - tol
            {
                return Some((trial, v, mi));
            }
            step /= 2.0;
        }
        None
    }
}

/// ‖X − BS‖² = tr(XᵀX) − 2 tr(Bᵀ XSᵀ) + tr(Bᵀ B SSᵀ), from the sufficient
/// statistics.
fn primal(b: MatRef<'_, f64>, xs: MatRef<'_, f64>, ss: MatRef<'_, f64>, xx: f64) -> f64 {
    let btb = b.transpose() * b;
    let m = b.ncols();
    let cross: f64 = (0..m)
        .map(|j| (0..b.nrows()).map(|i| b[(i, j)] * xs[(i, j)]).sum::<f64>())
        .sum();
    let quad: f64 = (0..m)
        .map(|j| (0..m).map(|k| btb[(j, k)] * ss[(k, j)]).sum::<f64>())
        .sum();
    xx - 2.0 * cross + quad
}

/// Exact block coordinate descent on the columns from `previous`, until a
/// sweep lowers the objective by less than 1e-12 of it (at most 500 sweeps).
fn column_descent(
    xs: MatRef<'_, f64>,
    ss: MatRef<'_, f64>,
    xx: f64,
    previous: MatRef<'_, f64>,
    dead: Vec<usize>,
    iterations: usize,
) -> DictionaryStep {
    let (d, m) = (xs.nrows(), xs.ncols());
    let mut b = previous.to_owned();
    let mut before = primal(b.as_ref(), xs, ss, xx);
    for _ in 0..500 {
        for j in (0..m).filter(|&j| ss[(j, j)] > 0.0) {
            // Least-squares column given the others: (XSᵀ − Σₖ≠ⱼ bₖ SSᵀₖⱼ) / SSᵀⱼⱼ.
            let mut col: Vec<f64> = (0..d)
                .map(|i| {
                    let others: f64 = (0..m)
                        .filter(|&k| k != j)
                        .map(|k| b[(i, k)] * ss[(k, j)])
                        .sum();
                    (xs[(i, j)] - others) / ss[(j, j)]
                })
                .collect();
            let norm = col.iter().map(|v| v * v).sum::<f64>().sqrt();
            if norm > 1.0 {
                col.iter_mut().for_each(|v| *v /= norm);
            }
            for (i, v) in col.into_iter().enumerate() {
                b[(i, j)] = v;
            }
        }
        let now = primal(b.as_ref(), xs, ss, xx);
        let done = before - now <= 1e-12 * before.abs().max(1.0);
        before = now;
        if done {
            break;
        }
    }
    DictionaryStep {
        b,
        multipliers: vec![f64::NAN; m],
        dead,
        iterations,
        fallback: true,
        gap: f64::NAN,
    }
}
