//! Pairwise values between two blocks of items, whatever their kind
//! (dense, sparse, Gram): inner products, squared and chi-square distances,
//! Gram entries, with the checks that the blocks agree; what
//! [`crate::Kernel::block`] builds each kernel from.

use faer::Mat;
use hashbench_core::linalg::{for_each_column_mut, product, row_major};
use hashbench_core::{Data, SparseRows};
use hashbench_simd::math::exp_in_place;
use hashbench_simd::vector::row_sums;
use rayon::prelude::*;

use crate::KernelError;

pub(crate) trait MapEntries {
    fn map(self, f: impl Fn(f64) -> f64) -> Mat<f64>;
}

impl MapEntries for Mat<f64> {
    fn map(mut self, f: impl Fn(f64) -> f64) -> Mat<f64> {
        for j in 0..self.ncols() {
            for v in self.col_mut(j).iter_mut() {
                *v = f(*v);
            }
        }
        self
    }
}

pub(crate) fn gram_block(a: &Data, b: &Data) -> Result<Mat<f64>, KernelError> {
    match (a, b) {
        (Data::Gram(a), Data::Gram(b)) => {
            if !std::sync::Arc::ptr_eq(a.gram(), b.gram()) {
                return Err(KernelError::Mismatch(
                    "items of two different Gram matrices".into(),
                ));
            }
            let g = a.gram();
            Ok(Mat::from_fn(a.items().len(), b.items().len(), |i, j| {
                g[(a.items()[i], b.items()[j])]
            }))
        }
        (Data::Gram(_), other) | (other, _) => Err(KernelError::Unsupported {
            kernel: "precomputed",
            data: other.kind(),
        }),
    }
}

fn check_dims(a: &Data, b: &Data) -> Result<(), KernelError> {
    let dim = |d: &Data| match d {
        Data::Dense(m) => Some(m.ncols()),
        Data::Sparse(s) => Some(s.n_cols()),
        _ => None,
    };
    if std::mem::discriminant(a) != std::mem::discriminant(b) {
        return Err(KernelError::Mismatch(format!(
            "{} against {}",
            a.kind(),
            b.kind()
        )));
    }
    if dim(a) != dim(b) {
        return Err(KernelError::Mismatch(format!(
            "dimension {:?} against {:?}",
            dim(a),
            dim(b)
        )));
    }
    Ok(())
}

pub(crate) fn check_non_negative(kernel: &'static str, d: &Data) -> Result<(), KernelError> {
    let negative = match d {
        Data::Dense(m) => (0..m.ncols()).find_map(|j| m.col(j).iter().copied().find(|&v| v < 0.0)),
        Data::Sparse(s) => s.values().iter().copied().find(|&v| v < 0.0),
        _ => None,
    };
    match negative {
        Some(value) => Err(KernelError::Negative { kernel, value }),
        None => Ok(()),
    }
}

/// xᵢᵀyⱼ for every pair.
pub(crate) fn inner_products(a: &Data, b: &Data) -> Result<Mat<f64>, KernelError> {
    check_dims(a, b)?;
    match (a, b) {
        (Data::Dense(x), Data::Dense(y)) => Ok(product(x.as_ref(), y.transpose())),
        (Data::Sparse(x), Data::Sparse(y)) => Ok(shared_index_pairs(x, y, |u, v| u * v)),
        _ => Err(KernelError::Unsupported {
            kernel: "linear",
            data: a.kind(),
        }),
    }
}

/// exp(s·d) of every entry of `d`, in place (the vectorised exponential of
/// `hashbench_simd::math`).
pub(crate) fn exp_of_scaled(mut d: Mat<f64>, s: f64) -> Mat<f64> {
    for_each_column_mut(&mut d, |_, column| {
        column.iter_mut().for_each(|v| *v *= s);
        exp_in_place(column);
    });
    d
}

/// ‖xᵢ − yⱼ‖² for every pair (clamped at 0 against rounding), written over
/// the inner products (a second matrix of the block's size was a tenth of a
/// LAMP fit's time in page faults alone).
pub(crate) fn squared_distances(a: &Data, b: &Data) -> Result<Mat<f64>, KernelError> {
    let mut ip = inner_products(a, b)?;
    let na = self_inner(a);
    let nb = self_inner(b);
    for_each_column_mut(&mut ip, |j, column| {
        for (v, &ni) in column.iter_mut().zip(&na) {
            *v = (ni + nb[j] - 2.0 * *v).max(0.0);
        }
    });
    Ok(ip)
}

fn self_inner(d: &Data) -> Vec<f64> {
    match d {
        Data::Dense(m) => (0..m.nrows())
            .map(|i| m.row(i).iter().map(|v| v * v).sum())
            .collect(),
        Data::Sparse(s) => (0..s.n_rows())
            .map(|i| s.row(i).1.iter().map(|v| v * v).sum())
            .collect(),
        _ => Vec::new(),
    }
}

/// χ²(xᵢ, yⱼ) = Σₖ (xₖ − yₖ)² / (xₖ + yₖ), bins with xₖ + yₖ = 0 left out.
pub(crate) fn chi_square_distances(a: &Data, b: &Data) -> Result<Mat<f64>, KernelError> {
    check_non_negative("chi-square", a)?;
    check_non_negative("chi-square", b)?;
    elementwise(a, b, |x, y| {
        let s = x + y;
        if s > 0.0 { (x - y) * (x - y) / s } else { 0.0 }
    })
}

/// Σₖ f(xₖ, yₖ) for every pair, for an f with f(0, 0) = 0.
fn elementwise(
    a: &Data,
    b: &Data,
    f: impl Fn(f64, f64) -> f64 + Sync,
) -> Result<Mat<f64>, KernelError> {
    check_dims(a, b)?;
    match (a, b) {
        (Data::Dense(x), Data::Dense(y)) => {
            let d = x.ncols();
            let (xr, yr) = (row_major(x.as_ref()), row_major(y.as_ref()));
            let out: Vec<Vec<f64>> = xr
                .par_chunks(d.max(1))
                .map(|xi| row_sums(xi, &yr, &f))
                .collect();
            Ok(Mat::from_fn(x.nrows(), y.nrows(), |i, j| out[i][j]))
        }
        (Data::Sparse(x), Data::Sparse(y)) => Ok(sparse_pairs(x, y, |p, q| sparse_merge(p, q, &f))),
        _ => Err(KernelError::Unsupported {
            kernel: "histogram",
            data: a.kind(),
        }),
    }
}

/// min(xₖ, yₖ) summed over the bins, for every pair (the intersection
/// kernel): on sparse rows only the bins both store count, min(x, 0) = 0.
pub(crate) fn minima(a: &Data, b: &Data) -> Result<Mat<f64>, KernelError> {
    match (a, b) {
        (Data::Sparse(x), Data::Sparse(y)) => {
            check_dims(a, b)?;
            Ok(shared_index_pairs(x, y, f64::min))
        }
        _ => elementwise(a, b, f64::min),
    }
}

type SparseRow<'a> = (&'a [u32], &'a [f64]);

fn sparse_pairs(
    x: &SparseRows,
    y: &SparseRows,
    f: impl Fn(SparseRow<'_>, SparseRow<'_>) -> f64 + Sync,
) -> Mat<f64> {
    let out: Vec<Vec<f64>> = (0..x.n_rows())
        .into_par_iter()
        .map(|i| (0..y.n_rows()).map(|j| f(x.row(i), y.row(j))).collect())
        .collect();
    Mat::from_fn(x.n_rows(), y.n_rows(), |i, j| out[i][j])
}

/// Σₖ f(xᵢₖ, yⱼₖ) for every pair of rows, for an `f` that is 0 when either
/// argument is 0 (a product; the minimum of nonnegative values), so only the
/// indices both rows store count. Each row of `y` is scattered once into a
/// dense scratch row and every row of `x` gathers from it, its terms added in
/// increasing index order: each entry equals [`sparse_merge`]'s bit for bit
/// (the merge adds the same terms in the same order, and zeros), without the
/// merge's unpredictable branches.
fn shared_index_pairs(
    x: &SparseRows,
    y: &SparseRows,
    f: impl Fn(f64, f64) -> f64 + Sync,
) -> Mat<f64> {
    let columns: Vec<Vec<f64>> = (0..y.n_rows())
        .into_par_iter()
        .map_init(
            || vec![0.0; y.n_cols()],
            |dense, j| {
                let (indices, values) = y.row(j);
                for (&k, &v) in indices.iter().zip(values) {
                    dense[k as usize] = v;
                }
                let column = (0..x.n_rows())
                    .map(|i| {
                        let (indices, values) = x.row(i);
                        indices
                            .iter()
                            .zip(values)
                            .fold(0.0, |sum, (&k, &u)| sum + f(u, dense[k as usize]))
                    })
                    .collect();
                for &k in indices {
                    dense[k as usize] = 0.0;
                }
                column
            },
        )
        .collect();
    Mat::from_fn(x.n_rows(), y.n_rows(), |i, j| columns[j][i])
}

/// Σₖ f(pₖ, qₖ) over the union of stored indices (absent entries are 0).
fn sparse_merge(p: SparseRow<'_>, q: SparseRow<'_>, f: &impl Fn(f64, f64) -> f64) -> f64 {
    let (mut i, mut j, mut sum) = (0, 0, 0.0);
    while i < p.0.len() || j < q.0.len() {
        let (ki, kj) = (
            p.0.get(i).copied().unwrap_or(u32::MAX),
            q.0.get(j).copied().unwrap_or(u32::MAX),
        );
        if ki == kj {
            sum += f(p.1[i], q.1[j]);
            i += 1;
            j += 1;
        } else if ki < kj {
            sum += f(p.1[i], 0.0);
            i += 1;
        } else {
            sum += f(0.0, q.1[j]);
            j += 1;
        }
    }
    sum
}

#[cfg(test)]
mod tests {
    use rand::{RngExt, SeedableRng};
    use rand_chacha::ChaCha8Rng;

    use super::*;

    /// Rows of `dim` bins, each stored with probability `density`, values
    /// in (lo, hi).
    fn rows(n: usize, dim: usize, density: f64, (lo, hi): (f64, f64), seed: u64) -> SparseRows {
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        let rows: Vec<Vec<(u32, f64)>> = (0..n)
            .map(|_| {
                let stored: Vec<u32> = (0..dim as u32)
                    .filter(|_| rng.random_bool(density))
                    .collect();
                stored
                    .into_iter()
                    .map(|k| (k, rng.random_range(lo..hi)))
                    .collect()
            })
            .collect();
        SparseRows::new(dim, &rows).unwrap()
    }

    /// The gathered sums are the merge's bit for bit, for products of any
    /// sign and minima of nonnegative values, sparse and dense-ish rows alike.
    #[test]
    fn shared_index_pairs_equal_the_merge_bit_for_bit() {
        for (density, seed) in [(0.02, 1), (0.3, 2), (0.9, 3)] {
            let x = rows(23, 300, density, (-2.0, 3.0), seed);
            let y = rows(17, 300, density, (-2.0, 3.0), seed + 10);
            let gathered = shared_index_pairs(&x, &y, |u, v| u * v);
            let merged = sparse_pairs(&x, &y, |p, q| sparse_merge(p, q, &|u, v| u * v));
            let (xn, yn) = (
                rows(23, 300, density, (0.1, 5.0), seed),
                rows(17, 300, density, (0.1, 5.0), seed + 10),
            );
            let gathered_min = shared_index_pairs(&xn, &yn, f64::min);
            let merged_min = sparse_pairs(&xn, &yn, |p, q| sparse_merge(p, q, &f64::min));
            for i in 0..23 {
                for j in 0..17 {
                    assert_eq!(
                        gathered[(i, j)].to_bits(),
                        merged[(i, j)].to_bits(),
                        "({i}, {j})"
                    );
                    assert_eq!(gathered_min[(i, j)].to_bits(), merged_min[(i, j)].to_bits());
                }
            }
            assert!(merged_min[(0, 0)] > 0.0 || density < 0.1);
        }
    }
}
