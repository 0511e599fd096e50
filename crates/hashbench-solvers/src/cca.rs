//! Canonical correlation analysis by SVD (Björck and Golub 1973) and the
//! Curds-and-Whey shrinkage of multivariate predictions (Breiman and Friedman
//! 1997) it feeds: Sparse Hashing's eqs. (8)-(9).
//!
//! Both sides are centred and whitened by their thin SVDs, X = UₓSₓVₓᵀ and
//! Y = U_yS_yV_yᵀ (directions below a relative rank cut-off dropped); the SVD
//! Uₓᵀ U_y = P R Qᵀ gives the canonical correlations (diag R) and the Y-side
//! canonical vectors, the columns of V_y S_y⁻¹ Q.

use faer::{Mat, MatRef};
use hashbench_core::linalg::{svd, thin_svd};

use crate::SolverError;

/// Singular values below this fraction of the largest count as zero.
const RANK_CUTOFF: f64 = 1e-10;

/// The Y side of a CCA: what Curds-and-Whey needs.
#[derive(Debug, Clone)]
pub struct Cca {
    /// Canonical correlations, descending; zeros for Y directions no X
    /// direction correlates with (one per direction of Y's column space).
    pub correlations: Vec<f64>,
    /// V_y S_y Q (m × r): maps canonical coordinates back to Y.
    to_y: Mat<f64>,
    /// Qᵀ S_y⁻¹ V_yᵀ (r × m): canonical coordinates of a Y vector (its rows
    /// are the canonical vectors).
    to_canonical: Mat<f64>,
}

fn centred(a: MatRef<'_, f64>) -> Mat<f64> {
    let n = a.nrows() as f64;
    let means: Vec<f64> = (0..a.ncols())
        .map(|j| a.col(j).iter().sum::<f64>() / n)
        .collect();
    Mat::from_fn(a.nrows(), a.ncols(), |i, j| a[(i, j)] - means[j])
}

/// A thin SVD cut to its numerical rank: (U, singular values, V).
type RankedSvd = (Mat<f64>, Vec<f64>, Mat<f64>);

fn ranked_svd(a: MatRef<'_, f64>) -> Result<RankedSvd, SolverError> {
    let svd = thin_svd(a).map_err(|e| SolverError::Svd(e.to_string()))?;
    let s: Vec<f64> = svd.S().column_vector().iter().copied().collect();
    let top = s.first().copied().unwrap_or(0.0);
    let rank = s.iter().take_while(|&&v| v > RANK_CUTOFF * top).count();
    Ok((
        svd.U().subcols(0, rank).to_owned(),
        s[..rank].to_vec(),
        svd.V().subcols(0, rank).to_owned(),
    ))
}

impl Cca {
    /// CCA of the rows of `x` (n × d) and `y` (n × m), both centred here.
    ///
    /// # Errors
    /// [`SolverError::Shape`] for different row counts, [`SolverError::Svd`].
    pub fn fit(x: MatRef<'_, f64>, y: MatRef<'_, f64>) -> Result<Cca, SolverError> {
        if x.nrows() != y.nrows() {
            return Err(SolverError::Shape(format!(
                "CCA: {} rows of X, {} of Y",
                x.nrows(),
                y.nrows()
            )));
        }
        let (ux, _, _) = ranked_svd(centred(x).as_ref())?;
        let (uy, sy, vy) = ranked_svd(centred(y).as_ref())?;
        let r = uy.ncols();
        let cross = ux.transpose() * &uy;
        let svd = svd(cross.as_ref()).map_err(|e| SolverError::Svd(e.to_string()))?;
        let mut correlations = vec![0.0; r];
        for (k, v) in svd.S().column_vector().iter().enumerate().take(r) {
            correlations[k] = v.clamp(0.0, 1.0);
        }
        let q = svd.V();
        let to_y = Mat::from_fn(vy.nrows(), r, |i, k| {
            (0..r).map(|t| vy[(i, t)] * sy[t] * q[(t, k)]).sum()
        });
        let to_canonical = Mat::from_fn(r, vy.nrows(), |k, j| {
            (0..r).map(|t| q[(t, k)] / sy[t] * vy[(j, t)]).sum()
        });
        Ok(Cca {
            correlations,
            to_y,
            to_canonical,
        })
    }

    /// The Y-side canonical vectors as columns (m × r): Y b has unit norm.
    pub fn y_vectors(&self) -> Mat<f64> {
        self.to_canonical.transpose().to_owned()
    }

    /// The Curds-and-Whey matrix C = U⁻¹WU (eq. 9, U the canonical vectors
    /// as rows, written without an inverse as V_y S_y Q W Qᵀ S_y⁻¹ V_yᵀ) for
    /// the shrinkage `weights` (one per canonical pair). A prediction ŷ
    /// (a column) becomes C ŷ; with unit weights and Y of full column rank,
    /// C is the identity.
    ///
    /// # Panics
    /// If `weights` has another length than the correlations.
    pub fn shrinkage_matrix(&self, weights: &[f64]) -> Mat<f64> {
        assert_eq!(weights.len(), self.correlations.len());
        let scaled = Mat::from_fn(self.to_y.nrows(), self.to_y.ncols(), |i, k| {
            self.to_y[(i, k)] * weights[k]
        });
        &scaled * &self.to_canonical
    }
}

/// Breiman and Friedman's GCV shrinkage (eq. 8) of each canonical pair for
/// `f` = predictors / items: w = (1−f)(r² − f) / ((1−f)² r² + f²(1 − r²)),
/// floored at 0.
///
/// # Errors
/// [`SolverError::Invalid`] unless 0 <= f < 1.
pub fn gcv_weights(correlations: &[f64], f: f64) -> Result<Vec<f64>, SolverError> {
    if !(0.0..1.0).contains(&f) {
        return Err(SolverError::Invalid(format!(
            "Curds and Whey needs fewer predictors than items (f = d/n = {f})"
        )));
    }
    Ok(correlations
        .iter()
        .map(|&r| {
            let r2 = r * r;
            let den = (1.0 - f).powi(2) * r2 + f * f * (1.0 - r2);
            if den > 0.0 {
                ((1.0 - f) * (r2 - f) / den).max(0.0)
            } else {
                1.0
            }
        })
        .collect())
}
