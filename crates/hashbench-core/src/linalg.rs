//! Every faer call of the method crates lives here, so the next faer API change
//! touches one file. Rows are samples; all products run sequentially
//! (`Par::Seq`) because the runner parallelises over trials.

use faer::linalg::matmul::matmul;
use faer::{Accum, Mat, MatRef, Par, Side};

use crate::error::LinalgError;

/// The median of `values` (the mean of the two middle values for an even
/// count, as MATLAB's `median`).
///
/// # Panics
/// If `values` is empty.
pub fn median(values: &[f64]) -> f64 {
    let mut v = values.to_vec();
    v.sort_by(f64::total_cmp);
    let n = v.len();
    if n % 2 == 1 {
        v[n / 2]
    } else {
        (v[n / 2 - 1] + v[n / 2]) / 2.0
    }
}

/// The median of each column of `x` (per-bit thresholds of the STH lineage).
pub fn column_medians(x: MatRef<'_, f64>) -> Vec<f64> {
    (0..x.ncols())
        .map(|j| median(&x.col(j).iter().copied().collect::<Vec<_>>()))
        .collect()
}

/// Per-column means of `x` (the mean item).
pub fn column_means(x: MatRef<'_, f64>) -> Vec<f64> {
    let n = x.nrows().max(1) as f64;
    (0..x.ncols())
        .map(|j| x.col(j).iter().sum::<f64>() / n)
        .collect()
}

/// `x` with `mean` subtracted from every row.
///
/// # Panics
/// If `mean.len() != x.ncols()`.
#[track_caller]
pub fn centered(x: MatRef<'_, f64>, mean: &[f64]) -> Mat<f64> {
    assert_eq!(mean.len(), x.ncols(), "mean length differs from dimension");
    Mat::from_fn(x.nrows(), x.ncols(), |i, j| x[(i, j)] - mean[j])
}

/// `a * b`, sequential.
///
/// # Panics
/// If the inner dimensions differ.
#[track_caller]
pub fn product(a: MatRef<'_, f64>, b: MatRef<'_, f64>) -> Mat<f64> {
    let mut out = Mat::zeros(a.nrows(), b.ncols());
    matmul(out.as_mut(), Accum::Replace, a, b, 1.0, Par::Seq);
    out
}

/// `xᵀ x` (d × d): the scatter matrix of centred rows.
pub fn gram_of_columns(x: MatRef<'_, f64>) -> Mat<f64> {
    product(x.transpose(), x)
}

/// The training mean and the scatter XᵀX of the centred rows: the starting
/// point of every PCA-based method (PCAH, SH, S3PLH).
pub fn mean_and_scatter(x: MatRef<'_, f64>) -> (Vec<f64>, Mat<f64>) {
    let mean = column_means(x);
    let scatter = gram_of_columns(centered(x, &mean).as_ref());
    (mean, scatter)
}

/// `(x - 1 meanᵀ) w`: projections of centred rows, without materialising the
/// centred matrix.
///
/// # Panics
/// On inconsistent shapes.
#[track_caller]
pub fn project_centered(x: MatRef<'_, f64>, mean: &[f64], w: MatRef<'_, f64>) -> Mat<f64> {
    assert_eq!(
        mean.len(),
        w.nrows(),
        "mean length differs from projection rows"
    );
    let mut p = product(x, w);
    let offset: Vec<f64> = (0..w.ncols())
        .map(|k| (0..w.nrows()).map(|j| mean[j] * w[(j, k)]).sum())
        .collect();
    for k in 0..p.ncols() {
        for i in 0..p.nrows() {
            p[(i, k)] -= offset[k];
        }
    }
    p
}

/// The `k` largest eigenvalues of the symmetric matrix `sym` (descending) and
/// their unit eigenvectors as columns. Reverses faer's ascending order.
///
/// # Errors
/// [`LinalgError::Evd`] when the eigensolver does not converge.
///
/// # Panics
/// If `k > sym.nrows()` or `sym` is not square.
#[track_caller]
pub fn top_eigenpairs(sym: MatRef<'_, f64>, k: usize) -> Result<(Vec<f64>, Mat<f64>), LinalgError> {
    let n = sym.nrows();
    assert_eq!(n, sym.ncols(), "matrix must be square");
    assert!(k <= n, "asked for {k} eigenpairs of a {n} x {n} matrix");
    let evd = sym.self_adjoint_eigen(Side::Lower)?;
    let s = evd.S().column_vector();
    let u = evd.U();
    let values = (0..k).map(|r| s[n - 1 - r]).collect();
    let vectors = Mat::from_fn(n, k, |i, r| u[(i, n - 1 - r)]);
    Ok((values, vectors))
}

/// The orthogonal matrix R minimising ‖B − V R‖_F over rotations, for
/// `target` = B and `source` = V of the same shape (the orthogonal Procrustes
/// problem): with Bᵀ V = U Σ Wᵀ, R = W Uᵀ.
///
/// # Errors
/// [`LinalgError::Svd`] when the SVD does not converge.
///
/// # Panics
/// If the shapes differ.
#[track_caller]
pub fn procrustes_rotation(
    target: MatRef<'_, f64>,
    source: MatRef<'_, f64>,
) -> Result<Mat<f64>, LinalgError> {
    assert_eq!(
        (target.nrows(), target.ncols()),
        (source.nrows(), source.ncols()),
        "Procrustes shapes"
    );
    let c = product(target.transpose(), source);
    let svd = c.svd()?;
    Ok(product(svd.V(), svd.U().transpose()))
}

/// A uniformly random orthogonal k × k matrix: the left singular vectors of
/// a Gaussian matrix `gaussian`.
///
/// # Errors
/// [`LinalgError::Svd`] when the SVD does not converge.
pub fn orthogonal_from(gaussian: MatRef<'_, f64>) -> Result<Mat<f64>, LinalgError> {
    Ok(gaussian.svd()?.U().to_owned())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn top_eigenpairs_are_descending_and_satisfy_the_definition() {
        let a = faer::mat![[4.0, 1.0, 0.0], [1.0, 3.0, 0.5], [0.0, 0.5, 1.0]];
        let (vals, vecs) = top_eigenpairs(a.as_ref(), 3).unwrap();
        assert!(vals[0] >= vals[1] && vals[1] >= vals[2]);
        for k in 0..3 {
            let av = &a * vecs.col(k);
            for i in 0..3 {
                assert!((av[i] - vals[k] * vecs[(i, k)]).abs() < 1e-10);
            }
        }
        let gram = vecs.transpose() * &vecs;
        for i in 0..3 {
            for j in 0..3 {
                let id = if i == j { 1.0 } else { 0.0 };
                assert!((gram[(i, j)] - id).abs() < 1e-10);
            }
        }
    }

    #[test]
    fn project_centered_equals_centering_then_projecting() {
        let x = faer::mat![[1.0, 2.0], [3.0, 5.0], [0.0, -1.0]];
        let w = faer::mat![[0.5, -1.0], [2.0, 0.25]];
        let mean = column_means(x.as_ref());
        let direct = product(centered(x.as_ref(), &mean).as_ref(), w.as_ref());
        let fused = project_centered(x.as_ref(), &mean, w.as_ref());
        assert!((&direct - &fused).norm_max() < 1e-12);
    }

    #[test]
    fn procrustes_recovers_a_known_rotation() {
        let (c, s) = (0.6, 0.8);
        let r = faer::mat![[c, -s, 0.0], [s, c, 0.0], [0.0, 0.0, 1.0]];
        let v = Mat::from_fn(20, 3, |i, j| ((i * 7 + j * 5) % 11) as f64 - 5.0);
        let target = product(v.as_ref(), r.as_ref());
        let found = procrustes_rotation(target.as_ref(), v.as_ref()).unwrap();
        assert!((&found - &r).norm_max() < 1e-10, "{found:?}");
        let q = orthogonal_from(v.as_ref().subrows(0, 3)).unwrap();
        let gram = q.transpose() * &q;
        assert!((&gram - Mat::<f64>::identity(3, 3)).norm_max() < 1e-10);
    }
}
