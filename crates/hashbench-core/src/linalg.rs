//! Every faer call of the method crates lives here, so the next faer API change
//! touches one file. Rows are samples. Products and scatters split their output
//! over the threads of the current rayon pool ([`product_parallelism`]): the
//! runner parallelises over trials, and a fit with idle threads beside it (a
//! run with fewer trials than threads) takes them; each output entry is summed
//! in the same order either way, so results do not depend on the thread count
//! (tested). Eigensolvers stay sequential: their parallel reductions would.

use faer::linalg::matmul::matmul;
use faer::linalg::matmul::triangular::{self, BlockStructure};
use faer::{Accum, Mat, MatMut, MatRef, Par, Side};

use crate::error::LinalgError;

mod partial_eigen;

/// Matrices at least this large take the partial eigensolver when few pairs
/// are wanted; below it the full decomposition costs next to nothing.
const PARTIAL_MIN_DIM: usize = 64;

/// The partial eigensolver runs when k ≤ n / this: beyond it, reorthogonalising
/// ever larger clusters of eigenvectors costs more than the full decomposition
/// saves (measured on a 784 × 784 scatter: 2× faster at k = 64, slower at
/// k = 196).
const PARTIAL_MAX_SHARE: usize = 8;

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

/// Per-column means of `x` (the mean item), by faer's vectorised sums.
pub fn column_means(x: MatRef<'_, f64>) -> Vec<f64> {
    let n = x.nrows().max(1) as f64;
    (0..x.ncols()).map(|j| x.col(j).sum() / n).collect()
}

/// `x` with `mean` subtracted from every row.
///
/// # Panics
/// If `mean.len() != x.ncols()`.
#[track_caller]
pub fn centered(x: MatRef<'_, f64>, mean: &[f64]) -> Mat<f64> {
    assert_eq!(mean.len(), x.ncols(), "mean length differs from dimension");
    let mut out = Mat::zeros(x.nrows(), x.ncols());
    center_rows_into(x, mean, out.as_mut());
    out
}

/// Writes `x − 1 meanᵀ` into `out` (same shape, contiguous columns: an owned
/// matrix or a row range of one), column by column.
fn center_rows_into(x: MatRef<'_, f64>, mean: &[f64], mut out: MatMut<'_, f64>) {
    for (j, &m) in mean.iter().enumerate() {
        let dst = out
            .as_mut()
            .col_mut(j)
            .try_as_col_major_mut()
            .expect("columns of an owned matrix are contiguous")
            .as_slice_mut();
        match x.col(j).try_as_col_major() {
            Some(src) => {
                for (y, v) in dst.iter_mut().zip(src.as_slice()) {
                    *y = v - m;
                }
            }
            None => {
                for (i, y) in dst.iter_mut().enumerate() {
                    *y = x[(i, j)] - m;
                }
            }
        }
    }
}

/// The parallelism of a product whose output is `rows × cols`: the current
/// rayon pool's threads. faer splits a matrix product's output into blocks,
/// never one entry's sum, so any thread count gives the same bits; within a
/// pool busy with other trials the work is stolen, not oversubscribed. A
/// matrix-vector product (one output row or column) stays sequential: faer
/// would split its inner sums by thread (the test caught it).
fn product_parallelism(rows: usize, cols: usize) -> Par {
    match rayon::current_num_threads() {
        threads if threads > 1 && rows > 1 && cols > 1 => Par::rayon(threads),
        _ => Par::Seq,
    }
}

/// The entries of `m` row after row (row-major), for loops that read whole
/// rows as slices.
pub fn row_major(m: MatRef<'_, f64>) -> Vec<f64> {
    (0..m.nrows())
        .flat_map(|i| (0..m.ncols()).map(move |j| m[(i, j)]))
        .collect()
}

/// `a * b`.
///
/// # Panics
/// If the inner dimensions differ.
#[track_caller]
pub fn product(a: MatRef<'_, f64>, b: MatRef<'_, f64>) -> Mat<f64> {
    let mut out = Mat::zeros(a.nrows(), b.ncols());
    product_into(out.as_mut(), a, b);
    out
}

/// `a * b` written over `out` (an iteration's buffer, reused).
///
/// # Panics
/// If the shapes differ.
#[track_caller]
pub fn product_into(out: MatMut<'_, f64>, a: MatRef<'_, f64>, b: MatRef<'_, f64>) {
    let parallelism = product_parallelism(out.nrows(), out.ncols());
    matmul(out, Accum::Replace, a, b, 1.0, parallelism);
}

/// `xᵀ x` (d × d): the scatter matrix of centred rows. A symmetric rank-n
/// update (half a general product's flops): the lower triangle is computed,
/// then mirrored, so the result is exactly symmetric.
pub fn gram_of_columns(x: MatRef<'_, f64>) -> Mat<f64> {
    let d = x.ncols();
    let mut out = Mat::zeros(d, d);
    add_lower_gram(out.as_mut(), x, Accum::Replace);
    mirror_lower(out.as_mut());
    out
}

/// Rows per block of the centred copy the scatter is accumulated from: a few
/// MB, so the training matrix is never copied whole.
const SCATTER_BLOCK_BYTES: usize = 4 << 20;

/// The training mean and the scatter XᵀX of the centred rows: the starting
/// point of every PCA-based method (PCAH, SH, S3PLH). Rows are centred a
/// block at a time into one buffer and accumulated by symmetric rank-k
/// updates.
pub fn mean_and_scatter(x: MatRef<'_, f64>) -> (Vec<f64>, Mat<f64>) {
    let mean = column_means(x);
    let (n, d) = (x.nrows(), x.ncols());
    let rows = (SCATTER_BLOCK_BYTES / (8 * d.max(1)))
        .max(256)
        .min(n.max(1));
    let mut block = Mat::zeros(rows, d);
    let mut scatter = Mat::zeros(d, d);
    for start in (0..n).step_by(rows) {
        let len = rows.min(n - start);
        let mut part = block.as_mut().subrows_mut(0, len);
        center_rows_into(x.subrows(start, len), &mean, part.as_mut());
        let accum = if start == 0 {
            Accum::Replace
        } else {
            Accum::Add
        };
        add_lower_gram(scatter.as_mut(), part.as_ref(), accum);
    }
    mirror_lower(scatter.as_mut());
    (mean, scatter)
}

/// The lower triangle of `out` set to (or increased by) that of `xᵀ x`.
fn add_lower_gram(out: MatMut<'_, f64>, x: MatRef<'_, f64>, accum: Accum) {
    triangular::matmul(
        out,
        BlockStructure::TriangularLower,
        accum,
        x.transpose(),
        BlockStructure::Rectangular,
        x,
        BlockStructure::Rectangular,
        1.0,
        product_parallelism(x.ncols(), x.ncols()),
    );
}

/// Copies the strict lower triangle of the square `m` onto its upper one.
fn mirror_lower(mut m: MatMut<'_, f64>) {
    for j in 1..m.ncols() {
        for i in 0..j {
            m[(i, j)] = m[(j, i)];
        }
    }
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

/// Calls `f(j, column)` on each column of `m` as one contiguous slice.
pub fn for_each_column_mut(m: &mut Mat<f64>, mut f: impl FnMut(usize, &mut [f64])) {
    for (j, column) in m.col_iter_mut().enumerate() {
        let column = column
            .try_as_col_major_mut()
            .expect("an owned matrix stores its columns contiguously");
        f(j, column.as_slice_mut());
    }
}

/// The `k` largest eigenvalues of the symmetric matrix `sym` (descending) and
/// their unit eigenvectors as columns, each signed so that its entry of
/// largest magnitude (the first, on ties) is positive: the sign is then a
/// property of the matrix, not of the solver (when that entry leads by more
/// than rounding; within a repeated eigenvalue the basis itself is the
/// solver's). A few pairs of a large matrix
/// come from the partial solver (tridiagonalisation, bisection, inverse
/// iteration); otherwise from faer's full decomposition.
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
    // non-finite input goes to faer, which reports it as a failure to converge
    let partial = n >= PARTIAL_MIN_DIM && k * PARTIAL_MAX_SHARE <= n && sym.is_all_finite();
    let (values, mut vectors) = if partial {
        partial_eigen::largest(sym, k)
    } else {
        let evd = sym.self_adjoint_eigen(Side::Lower)?;
        let s = evd.S().column_vector();
        let u = evd.U();
        let values = (0..k).map(|r| s[n - 1 - r]).collect();
        (values, Mat::from_fn(n, k, |i, r| u[(i, n - 1 - r)]))
    };
    vectors.col_iter_mut().for_each(peak_positive);
    Ok((values, vectors))
}

/// Signs an eigenvector so that its entry of largest magnitude (the first,
/// on ties) is positive: the sign [`top_eigenpairs`] gives its vectors, for
/// eigensolvers elsewhere to give theirs.
pub fn peak_positive(v: faer::ColMut<'_, f64>) {
    let peak = (0..v.nrows()).fold(
        0,
        |best, i| {
            if v[i].abs() > v[best].abs() { i } else { best }
        },
    );
    if v.nrows() > 0 && v[peak] < 0.0 {
        v.iter_mut().for_each(|x| *x = -*x);
    }
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

/// The thin SVD of `x` (every crate's SVD goes through here).
///
/// # Errors
/// [`LinalgError::Svd`] when faer's SVD does not converge.
pub fn thin_svd(x: MatRef<'_, f64>) -> Result<faer::linalg::solvers::Svd<f64>, LinalgError> {
    Ok(x.thin_svd()?)
}

/// The full SVD of `x`.
///
/// # Errors
/// [`LinalgError::Svd`] when faer's SVD does not converge.
pub fn svd(x: MatRef<'_, f64>) -> Result<faer::linalg::solvers::Svd<f64>, LinalgError> {
    Ok(x.svd()?)
}

/// The Cholesky factor of the symmetric positive definite `m` (lower
/// triangle read); `None` when `m` is not positive definite.
pub fn cholesky(m: MatRef<'_, f64>) -> Option<faer::linalg::solvers::Llt<f64>> {
    m.llt(faer::Side::Lower).ok()
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
    fn eigenvector_signs_are_the_same_from_the_partial_and_the_full_solver() {
        // 96 × 96, 3 pairs: the partial solver; its vectors must equal the full
        // decomposition's under the sign convention (peak entry positive)
        let g = Mat::from_fn(96, 96, |i, j| {
            (((i * 31 + j * 17) % 23) as f64 - 11.0) / 7.0
        });
        let a = &g + g.transpose();
        let (values, vectors) = top_eigenpairs(a.as_ref(), 3).unwrap();
        let evd = a.self_adjoint_eigen(Side::Lower).unwrap();
        for r in 0..3 {
            let full = evd.U().col(95 - r);
            let peak = (0..96).fold(0, |b, i| if full[i].abs() > full[b].abs() { i } else { b });
            let sign = full[peak].signum();
            assert!(vectors[(peak, r)] > 0.0);
            for i in 0..96 {
                assert!((vectors[(i, r)] - sign * full[i]).abs() < 1e-10, "pair {r}");
            }
            assert!((values[r] - evd.S().column_vector()[95 - r]).abs() < 1e-10);
        }
    }

    #[test]
    fn products_and_scatters_are_the_same_bits_on_any_thread_count() {
        let x = Mat::from_fn(4001, 257, |i, j| {
            ((i * 131 + j * 71) % 101) as f64 / 7.0 - 6.0
        });
        let w = Mat::from_fn(257, 130, |i, j| ((i * 37 + j * 11) % 23) as f64 / 3.0 - 3.5);
        let run = |threads: usize| {
            let pool = rayon::ThreadPoolBuilder::new()
                .num_threads(threads)
                .build()
                .unwrap();
            pool.install(|| {
                (
                    product(x.as_ref(), w.as_ref()),
                    mean_and_scatter(x.as_ref()).1,
                    product(x.as_ref(), w.subcols(0, 1)),
                )
            })
        };
        let (p1, s1, v1) = run(1);
        for threads in [2, 3, 4] {
            let (p, s, v) = run(threads);
            // a matrix-vector product, which faer would split by its inner sums
            assert!(
                v1.col(0)
                    .iter()
                    .zip(v.col(0).iter())
                    .all(|(a, b)| a.to_bits() == b.to_bits()),
                "matrix-vector product at {threads} threads"
            );
            assert!(p1.col_iter().zip(p.col_iter()).all(|(a, b)| {
                a.iter()
                    .zip(b.iter())
                    .all(|(u, v)| u.to_bits() == v.to_bits())
            }));
            assert!(s1.col_iter().zip(s.col_iter()).all(|(a, b)| {
                a.iter()
                    .zip(b.iter())
                    .all(|(u, v)| u.to_bits() == v.to_bits())
            }));
        }
    }

    #[test]
    fn a_non_finite_matrix_is_an_error_not_a_hang() {
        let mut a = Mat::<f64>::identity(100, 100);
        a[(3, 7)] = f64::NAN;
        a[(7, 3)] = f64::NAN;
        assert!(top_eigenpairs(a.as_ref(), 2).is_err());
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
    fn blocked_scatter_equals_the_scatter_of_the_centred_matrix() {
        // 700 columns: 749 rows per block, so 2,000 rows make three blocks
        // (the last one short), and the rows sit far from the origin
        let x = Mat::from_fn(2000, 700, |i, j| {
            100.0 + ((i * 37 + j * 11) % 101) as f64 / 7.0 - (j % 5) as f64
        });
        let (mean, scatter) = mean_and_scatter(x.as_ref());
        let xc = centered(x.as_ref(), &mean);
        let naive = product(xc.transpose(), xc.as_ref());
        let size = naive.norm_max();
        assert!((&scatter - &naive).norm_max() <= 1e-12 * size);
        assert_eq!(scatter, scatter.transpose().to_owned());
        assert_eq!(
            gram_of_columns(xc.as_ref()),
            gram_of_columns(xc.as_ref()).transpose().to_owned()
        );
        // fewer rows than a block
        let few = x.as_ref().subrows(0, 5);
        let (mean5, scatter5) = mean_and_scatter(few);
        let xc5 = centered(few, &mean5);
        assert!((&scatter5 - product(xc5.transpose(), xc5.as_ref())).norm_max() <= 1e-12 * size);
        let n = x.nrows() as f64;
        for (j, m) in mean.iter().enumerate() {
            assert!((m - x.col(j).iter().sum::<f64>() / n).abs() < 1e-12);
        }
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
