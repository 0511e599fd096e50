//! ENCW (Sec. 4.3.2, Algorithm 2): one elastic net per bit (eq. 7) on the
//! standardised training data and the centred training codes (solved exactly
//! as the lasso of the Gram ZᵀZ + λ2 I by its LARS path, one prepared Gram for
//! every bit, as LARS-EN does), then Curds and
//! Whey (eqs. 8-9): the predictions are shrunk in the canonical coordinates of
//! the codes against the data, C = U⁻¹WU. A query's bits are
//! sign(x_t β Cᵀ) of the standardised query (Sec. 4.4), folded here into one
//! d × m projection through the training mean.

use faer::{Mat, MatRef};
use hashbench_solvers::{Cca, SignedLasso, SolverError, gcv_weights};

use crate::PenaltyScale;

/// The training data standardised once, shared by every penalty tried.
#[derive(Debug, Clone)]
pub struct Standardised {
    /// Training mean (length d).
    pub mean: Vec<f64>,
    /// 1/‖centred column‖ of each feature, 0 for constant features (left out).
    pub inv_std: Vec<f64>,
    /// Standardised rows (n × d).
    pub z: Mat<f64>,
    /// ZᵀZ, column-major (d × d), as the elastic net reads it.
    pub gram: Vec<f64>,
    /// Features that vary.
    pub effective_dim: usize,
    /// Items Curds and Whey's f = d/n counts: the rows here, or the final
    /// fit's when these rows are a cross-validation fold.
    pub gcv_items: usize,
}

impl Standardised {
    /// Centres each feature and scales it to unit Euclidean norm (Zou and
    /// Hastie's standardisation, which eq. (7) inherits: ZᵀZ has a unit
    /// diagonal whatever the number of items, so λ1 and λ2 mean the same on a
    /// cross-validation fold and on the whole training set).
    pub fn new(x: MatRef<'_, f64>) -> Standardised {
        let (n, d) = (x.nrows(), x.ncols());
        let mean: Vec<f64> = (0..d)
            .map(|j| x.col(j).iter().sum::<f64>() / n as f64)
            .collect();
        let inv_std: Vec<f64> = (0..d)
            .map(|j| {
                let ss = x.col(j).iter().map(|v| (v - mean[j]).powi(2)).sum::<f64>();
                if ss > 1e-24 * n as f64 {
                    1.0 / ss.sqrt()
                } else {
                    0.0
                }
            })
            .collect();
        let z = Mat::from_fn(n, d, |i, j| (x[(i, j)] - mean[j]) * inv_std[j]);
        let g = z.transpose() * &z;
        let gram = (0..d).flat_map(|c| g.col(c).iter().copied()).collect();
        let effective_dim = inv_std.iter().filter(|&&s| s > 0.0).count();
        Standardised {
            mean,
            inv_std,
            z,
            gram,
            effective_dim,
            gcv_items: n,
        }
    }

    /// The same rows with Curds and Whey's f = d/n counted on `items`.
    pub fn with_gcv_items(self, items: usize) -> Standardised {
        Standardised {
            gcv_items: items,
            ..self
        }
    }
}

/// A learnt ENCW hash: bit k = 1 where (x − mean) · w_k > threshold_k.
#[derive(Debug, Clone)]
pub struct EncwHash {
    /// Training mean.
    pub mean: Vec<f64>,
    /// Projection (d × m): β Cᵀ with the standardisation folded in.
    pub w: Mat<f64>,
    /// 0, or −1 for a bit that is 1 on every training item (its column of w
    /// is 0, so it stays 1).
    pub thresholds: Vec<f64>,
    /// Canonical correlations of the data and the codes.
    pub correlations: Vec<f64>,
    /// Curds-and-Whey weights (eq. 8).
    pub weights: Vec<f64>,
    /// Nonzero elastic-net coefficients, over all bits.
    pub nonzero: usize,
    /// LARS path steps of the elastic nets, over all bits.
    pub path_steps: usize,
}

/// Learns ENCW from the standardised data and the 0/1 training codes
/// `bits` (n × m) with penalties λ1, λ2 read on `scale`: as given, or in
/// hundredths of the values where the problem's own scale puts them (λ1 of
/// 2·max|Zᵀy|, where a bit's coefficients all vanish; λ2 of ZᵀZ's unit
/// diagonal). `identity_shrinkage` skips Curds and Whey (C = I), leaving the
/// elastic nets alone.
///
/// # Errors
/// A solver failure; more varying features than items.
pub fn learn_encw(
    data: &Standardised,
    bits: MatRef<'_, f64>,
    lambda1: f64,
    lambda2: f64,
    scale: PenaltyScale,
    identity_shrinkage: bool,
) -> Result<EncwHash, SolverError> {
    let (n, d, m) = (data.z.nrows(), data.z.ncols(), bits.ncols());
    let means: Vec<f64> = (0..m)
        .map(|k| bits.col(k).iter().sum::<f64>() / n as f64)
        .collect();
    let yc = Mat::from_fn(n, m, |i, k| bits[(i, k)] - means[k]);
    let q = data.z.transpose() * &yc;
    let mut beta = Mat::<f64>::zeros(d, m);
    let (mut nonzero, mut path_steps) = (0, 0);
    // ‖y − Zβ‖² + λ1‖β‖₁ + λ2‖β‖² is, up to a constant, βᵀ(ZᵀZ + λ2 I)β −
    // 2(Zᵀy)ᵀβ + λ1‖β‖₁: the lasso of the shifted Gram, whose λ2 is the same
    // for every bit (eq. 7 solved exactly, as LARS-EN does)
    let l2 = match scale {
        PenaltyScale::Absolute => lambda2,
        PenaltyScale::AllZero => lambda2 / 100.0,
    };
    let mut shifted = data.gram.clone();
    for j in 0..d {
        shifted[j * d + j] += l2;
    }
    let lasso = SignedLasso::new(&shifted, d)?;
    for k in 0..m {
        if means[k] <= 0.0 || means[k] >= 1.0 {
            continue;
        }
        let qk: Vec<f64> = q.col(k).iter().copied().collect();
        let l1 = match scale {
            PenaltyScale::Absolute => lambda1,
            PenaltyScale::AllZero => {
                let all_zero = 2.0 * qk.iter().fold(0.0f64, |a, v| a.max(v.abs()));
                lambda1 / 100.0 * all_zero
            }
        };
        let sol = lasso.solve(&qk, l1)?;
        path_steps += sol.steps;
        nonzero += sol.s.iter().filter(|v| **v != 0.0).count();
        for (j, v) in sol.s.into_iter().enumerate() {
            beta[(j, k)] = v;
        }
    }
    let (correlations, weights, projection) = if identity_shrinkage {
        (Vec::new(), Vec::new(), beta)
    } else {
        let cca = Cca::fit(data.z.as_ref(), yc.as_ref())?;
        let f = data.effective_dim as f64 / data.gcv_items as f64;
        let weights = gcv_weights(&cca.correlations, f)?;
        let c = cca.shrinkage_matrix(&weights);
        (cca.correlations, weights, &beta * c.transpose())
    };
    // A constant bit keeps its value: its column is zeroed outright (C mixes
    // the bits, and round-off would leave it a tiny arbitrary hyperplane).
    let constant = |k: usize| means[k] <= 0.0 || means[k] >= 1.0;
    let w = Mat::from_fn(d, m, |j, k| {
        if constant(k) {
            0.0
        } else {
            projection[(j, k)] * data.inv_std[j]
        }
    });
    let thresholds = means
        .iter()
        .map(|&p| if p >= 1.0 { -1.0 } else { 0.0 })
        .collect();
    Ok(EncwHash {
        mean: data.mean.clone(),
        w,
        thresholds,
        correlations,
        weights,
        nonzero,
        path_steps,
    })
}
