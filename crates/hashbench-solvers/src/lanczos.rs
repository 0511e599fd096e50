//! The largest eigenpairs of a symmetric operator by Lanczos with full
//! reorthogonalisation, for the Laplacian eigenmap on sparse graphs.
//!
//! faer 0.24's Krylov-Schur (`partial_self_adjoint_eigen`) spins forever in
//! its reorthogonalisation loop when a Lanczos vector nearly vanishes (the
//! Krylov space nearly invariant: a kNN graph with tight or disconnected
//! clusters, as STH's graph on MNIST at 32 bits and more), because its stop
//! test is relative to that vanishing norm. This solver handles the
//! breakdown explicitly: it continues from a fresh vector orthogonal to the
//! basis.

use faer::Mat;
use hashbench_core::linalg::top_eigenpairs;
use rand::{RngExt, SeedableRng};
use rand_chacha::ChaCha8Rng;

use crate::SolverError;

/// A Lanczos vector shorter than this (the operator's scale is 1) means the
/// basis spans an invariant subspace.
const BREAKDOWN: f64 = 1e-10;

fn dot(a: &[f64], b: &[f64]) -> f64 {
    a.iter().zip(b).map(|(x, y)| x * y).sum()
}

fn norm(a: &[f64]) -> f64 {
    dot(a, a).sqrt()
}

/// Removes from `w` its components along every vector of `basis`, twice
/// ("twice is enough" for classical Gram-Schmidt).
fn orthogonalise(w: &mut [f64], basis: &[Vec<f64>]) {
    for _ in 0..2 {
        for v in basis {
            let r = dot(v, w);
            w.iter_mut().zip(v).for_each(|(y, x)| *y -= r * x);
        }
    }
}

/// The `count` largest eigenpairs (values descending, unit vectors as
/// columns) of the symmetric n × n operator `apply` (y = A x), its spectrum
/// of order 1. Lanczos with full reorthogonalisation from a start seeded by
/// `seed`; Rayleigh-Ritz on the tridiagonal; every Ritz pair's residual
/// ‖A x − θ x‖ is computed, and the basis grows (doubling, at most n) until
/// all are at most `tol`. Deterministic for a given seed.
///
/// # Errors
/// `count` not in 1..=n, or a dense tridiagonal eigensolve that failed.
pub fn largest_eigenpairs(
    n: usize,
    count: usize,
    tol: f64,
    seed: u64,
    apply: &dyn Fn(&[f64], &mut [f64]),
) -> Result<(Vec<f64>, Mat<f64>), SolverError> {
    if count == 0 || count > n {
        return Err(SolverError::Invalid(format!(
            "Lanczos: {count} eigenpairs of a {n} x {n} operator"
        )));
    }
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let mut fresh = |basis: &[Vec<f64>]| -> Option<Vec<f64>> {
        let mut v: Vec<f64> = (0..n).map(|_| rng.random::<f64>() - 0.5).collect();
        orthogonalise(&mut v, basis);
        let size = norm(&v);
        (size > BREAKDOWN).then(|| v.iter().map(|x| x / size).collect())
    };
    let mut basis: Vec<Vec<f64>> = vec![fresh(&[]).expect("a random vector is not zero")];
    let (mut alpha, mut beta): (Vec<f64>, Vec<f64>) = (Vec::new(), Vec::new());
    let mut target = n.min((3 * count).max(2 * count + 32));
    let mut w = vec![0.0; n];
    loop {
        // extend the Lanczos basis to `target` vectors (or an invariant space)
        while alpha.len() < target {
            let j = alpha.len();
            apply(&basis[j], &mut w);
            let a = dot(&basis[j], &w);
            alpha.push(a);
            orthogonalise(&mut w, &basis);
            let b = norm(&w);
            if alpha.len() == n {
                break;
            }
            if b > BREAKDOWN {
                beta.push(b);
                basis.push(w.iter().map(|x| x / b).collect());
            } else {
                match fresh(&basis) {
                    Some(v) => {
                        // the tridiagonal splits: a new Krylov sequence
                        beta.push(0.0);
                        basis.push(v);
                    }
                    None => break,
                }
            }
        }
        let m = alpha.len();
        let t = Mat::from_fn(m, m, |i, j| match i.abs_diff(j) {
            0 => alpha[i],
            1 => beta[i.min(j)],
            _ => 0.0,
        });
        let k = count.min(m);
        let (values, s) = top_eigenpairs(t.as_ref(), k)
            .map_err(|e| SolverError::Invalid(format!("Lanczos: tridiagonal eigensolve: {e}")))?;
        let x = Mat::from_fn(n, k, |i, c| (0..m).map(|j| basis[j][i] * s[(j, c)]).sum());
        let mut worst = 0.0f64;
        let mut ax = vec![0.0; n];
        for (c, &theta) in values.iter().enumerate() {
            let col: Vec<f64> = x.col(c).iter().copied().collect();
            apply(&col, &mut ax);
            let r = ax
                .iter()
                .zip(&col)
                .map(|(y, v)| (y - theta * v).powi(2))
                .sum::<f64>()
                .sqrt();
            worst = worst.max(r);
        }
        let complete = m == n || basis.len() == m;
        if k == count && (worst <= tol || complete) {
            return Ok((values, x));
        }
        if complete {
            return Err(SolverError::Invalid(format!(
                "Lanczos: the operator has an invariant space of dimension {m} < {count}"
            )));
        }
        target = n.min(2 * target);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A block-diagonal operator: the path graph's normalised adjacency on
    /// two disconnected pieces plus the identity (exact invariant
    /// subspaces, the case that stalls faer 0.24's Krylov-Schur).
    fn two_pieces(n: usize) -> impl Fn(&[f64], &mut [f64]) {
        let half = n / 2;
        move |x: &[f64], y: &mut [f64]| {
            for i in 0..n {
                let piece = if i < half { 0..half } else { half..n };
                let mut s = x[i];
                for j in [i.wrapping_sub(1), i + 1] {
                    if piece.contains(&j) {
                        s += 0.5 * x[j];
                    }
                }
                y[i] = s;
            }
        }
    }

    #[test]
    fn eigenpairs_satisfy_the_eigen_equation_and_match_a_dense_solve() {
        let n = 300;
        let op = two_pieces(n);
        let dense = Mat::from_fn(n, n, |i, j| {
            let mut e = vec![0.0; n];
            let mut y = vec![0.0; n];
            e[j] = 1.0;
            op(&e, &mut y);
            y[i]
        });
        let (want, _) = top_eigenpairs(dense.as_ref(), 20).unwrap();
        let (values, x) = largest_eigenpairs(n, 20, 1e-10, 7, &op).unwrap();
        for (v, w) in values.iter().zip(&want) {
            assert!((v - w).abs() < 1e-9, "{v} vs {w}");
        }
        let mut ax = vec![0.0; n];
        for c in 0..20 {
            let col: Vec<f64> = x.col(c).iter().copied().collect();
            op(&col, &mut ax);
            for i in 0..n {
                assert!((ax[i] - values[c] * col[i]).abs() < 1e-9);
            }
            for d in 0..20 {
                let g: f64 = (0..n).map(|i| x[(i, c)] * x[(i, d)]).sum();
                assert!(
                    (g - f64::from(u8::from(c == d))).abs() < 1e-9,
                    "{c} {d}: {g}"
                );
            }
        }
    }

    #[test]
    fn a_tiny_operator_is_solved_whole_and_bad_counts_are_refused() {
        let op = two_pieces(6);
        let (values, _) = largest_eigenpairs(6, 6, 1e-12, 1, &op).unwrap();
        assert_eq!(values.len(), 6);
        assert!(largest_eigenpairs(6, 0, 1e-12, 1, &op).is_err());
        assert!(largest_eigenpairs(6, 7, 1e-12, 1, &op).is_err());
    }
}
