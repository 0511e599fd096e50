//! The naive elastic net in Gram form (Sparse Hashing eq. 7):
//! min over β of ‖y − Xβ‖² + λ₁‖β‖₁ + λ₂‖β‖², from H = XᵀX and q = Xᵀy, by
//! cyclic coordinate descent (Friedman, Hastie, Tibshirani 2010). H is formed
//! once and shared by every target and every penalty of a grid.
//!
//! KKT: 2(q − Hβ)ⱼ − 2λ₂βⱼ = λ₁ sign(βⱼ) where βⱼ ≠ 0, and
//! |2(q − Hβ)ⱼ| <= λ₁ where βⱼ = 0.

use hashbench_simd::vector::Kernels;

use crate::SolverError;

/// Coordinate-descent stopping rule.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct CdStop {
    /// Stop when no coefficient moves by more than this (relative to the
    /// largest coefficient, at least 1).
    pub tol: f64,
    /// Most sweeps over the coordinates.
    pub max_sweeps: usize,
}

impl Default for CdStop {
    fn default() -> Self {
        CdStop {
            tol: 1e-10,
            max_sweeps: 10_000,
        }
    }
}

/// Coordinate descent's result.
#[derive(Debug, Clone, PartialEq)]
pub struct CdSolution {
    /// Coefficients.
    pub beta: Vec<f64>,
    /// Sweeps taken.
    pub sweeps: usize,
    /// Whether the stopping rule was met within `max_sweeps` (else `beta`
    /// is the last iterate: every sweep lowers the objective, so it is the
    /// best point reached, on nearly collinear features with tiny
    /// penalties an approximation).
    pub converged: bool,
}

/// Solves the elastic net for the `d × d` Gram `h` stored column-major (a
/// coordinate's update reads its whole column; faer's layout), correlations
/// `q`, and penalties `l1`, `l2` (both >= 0), from `start` (warm start).
///
/// # Errors
/// [`SolverError::Shape`], or [`SolverError::Invalid`] for bad penalties.
pub fn elastic_net(
    h: &[f64],
    q: &[f64],
    l1: f64,
    l2: f64,
    start: Option<&[f64]>,
    stop: CdStop,
) -> Result<CdSolution, SolverError> {
    let d = q.len();
    if h.len() != d * d || start.is_some_and(|s| s.len() != d) {
        return Err(SolverError::Shape(format!(
            "elastic net: Gram of {} entries, start of {:?}, for {d} coefficients",
            h.len(),
            start.map(<[f64]>::len)
        )));
    }
    for (name, v) in [("lambda1", l1), ("lambda2", l2)] {
        if !(v >= 0.0 && v.is_finite()) {
            return Err(SolverError::Invalid(format!(
                "elastic net: {name} must be finite and >= 0, got {v}"
            )));
        }
    }
    let kernels = Kernels::detected();
    let mut beta = start.map_or_else(|| vec![0.0; d], <[f64]>::to_vec);
    // hb = Hβ, kept current.
    let mut hb: Vec<f64> = (0..d)
        .map(|j| (0..d).map(|k| h[k * d + j] * beta[k]).sum())
        .collect();
    for sweep in 1..=stop.max_sweeps {
        let mut moved = 0.0f64;
        let mut largest = 1.0f64;
        for j in 0..d {
            let hjj = h[j * d + j];
            let denom = hjj + l2;
            let new = if denom > 0.0 {
                let z = q[j] - (hb[j] - hjj * beta[j]);
                soft_threshold(z, l1 / 2.0) / denom
            } else {
                0.0
            };
            let delta = new - beta[j];
            if delta != 0.0 {
                kernels.add_scaled(&mut hb, &h[j * d..(j + 1) * d], delta);
                beta[j] = new;
            }
            moved = moved.max(delta.abs());
            largest = largest.max(new.abs());
        }
        if moved <= stop.tol * largest {
            return Ok(CdSolution {
                beta,
                sweeps: sweep,
                converged: true,
            });
        }
    }
    Ok(CdSolution {
        beta,
        sweeps: stop.max_sweeps,
        converged: false,
    })
}

fn soft_threshold(z: f64, t: f64) -> f64 {
    if z > t {
        z - t
    } else if z < -t {
        z + t
    } else {
        0.0
    }
}

/// The largest violation of the elastic net's KKT conditions at `beta`
/// (`h` column-major, as [`elastic_net`] takes it).
pub fn elastic_net_kkt_violation(h: &[f64], q: &[f64], l1: f64, l2: f64, beta: &[f64]) -> f64 {
    let d = q.len();
    (0..d)
        .map(|j| {
            let grad = 2.0 * (q[j] - (0..d).map(|k| h[k * d + j] * beta[k]).sum::<f64>())
                - 2.0 * l2 * beta[j];
            if beta[j] != 0.0 {
                (grad - l1 * beta[j].signum()).abs()
            } else {
                (grad.abs() - l1).max(0.0)
            }
        })
        .fold(0.0, f64::max)
}
