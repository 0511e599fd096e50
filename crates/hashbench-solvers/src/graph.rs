//! The symmetric kNN graph with heat-kernel weights and its Laplacian
//! (Sparse Hashing Sec. 4.1.1; STH): each item's `k` nearest other items by
//! Euclidean distance, wᵢⱼ = exp(−‖xᵢ − xⱼ‖² / σ), symmetrised by union
//! (wᵢⱼ = max of the two directions, as Deng Cai's `constructW`), wᵢᵢ = 0;
//! D = diag(Σⱼ wᵢⱼ), L = D − W. Stored sparse: k·n edges, never n².

use faer::linalg::matmul::matmul;
use faer::{Accum, Mat, MatRef, Par};

use crate::SolverError;

/// Rows of the query block per distance product (bounds memory to
/// BLOCK × n distances).
const BLOCK: usize = 512;

/// A sparse symmetric weighted graph.
#[derive(Debug, Clone, PartialEq)]
pub struct KnnGraph {
    /// Neighbours of each item with their weights, by neighbour index.
    pub adjacency: Vec<Vec<(u32, f64)>>,
    /// Degrees Dᵢᵢ = Σⱼ wᵢⱼ (= Lᵢᵢ, as wᵢᵢ = 0).
    pub degree: Vec<f64>,
}

/// Each row's `k` nearest other rows of `x` with their squared distances,
/// nearest first, ties by index.
///
/// # Errors
/// [`SolverError::Invalid`] unless 0 < k < n.
pub fn k_nearest_rows(x: MatRef<'_, f64>, k: usize) -> Result<Vec<Vec<(u32, f64)>>, SolverError> {
    if k == 0 || k >= x.nrows() {
        return Err(SolverError::Invalid(format!(
            "kNN graph: k = {k} needs 0 < k < {} items",
            x.nrows()
        )));
    }
    Ok(k_nearest_of(x, x, k, true))
}

/// Each row of `queries`' `k` nearest rows of `db` with their squared
/// distances, nearest first, ties by index.
///
/// # Errors
/// [`SolverError::Invalid`] unless 0 < k <= db rows and the widths agree.
pub fn k_nearest(
    queries: MatRef<'_, f64>,
    db: MatRef<'_, f64>,
    k: usize,
) -> Result<Vec<Vec<(u32, f64)>>, SolverError> {
    if k == 0 || k > db.nrows() || queries.ncols() != db.ncols() {
        return Err(SolverError::Invalid(format!(
            "kNN: k = {k} of {} items of width {} for queries of width {}",
            db.nrows(),
            db.ncols(),
            queries.ncols()
        )));
    }
    Ok(k_nearest_of(queries, db, k, false))
}

/// Blocked brute force: distances by ‖q‖² + ‖x‖² − 2qᵀx, a block of queries
/// at a time; `same` leaves out the item with the query's own index.
fn k_nearest_of(
    queries: MatRef<'_, f64>,
    db: MatRef<'_, f64>,
    k: usize,
    same: bool,
) -> Vec<Vec<(u32, f64)>> {
    let sq = |m: MatRef<'_, f64>| -> Vec<f64> {
        (0..m.nrows())
            .map(|i| m.row(i).iter().map(|v| v * v).sum())
            .collect()
    };
    let (sq_q, sq_db) = (sq(queries), sq(db));
    let (nq, n) = (queries.nrows(), db.nrows());
    let mut out = Vec::with_capacity(nq);
    let mut prod = Mat::<f64>::zeros(BLOCK.min(nq), n);
    for start in (0..nq).step_by(BLOCK) {
        let rows = BLOCK.min(nq - start);
        let mut p = prod.as_mut().subrows_mut(0, rows);
        matmul(
            p.as_mut(),
            Accum::Replace,
            queries.subrows(start, rows),
            db.transpose(),
            1.0,
            Par::Seq,
        );
        for r in 0..rows {
            let i = start + r;
            let mut cand: Vec<(f64, u32)> = (0..n)
                .filter(|&j| !(same && j == i))
                .map(|j| ((sq_q[i] + sq_db[j] - 2.0 * p[(r, j)]).max(0.0), j as u32))
                .collect();
            let order = |a: &(f64, u32), b: &(f64, u32)| a.0.total_cmp(&b.0).then(a.1.cmp(&b.1));
            if k < cand.len() {
                cand.select_nth_unstable_by(k - 1, order);
                cand.truncate(k);
            }
            cand.sort_by(order);
            out.push(cand.into_iter().map(|(d, j)| (j, d)).collect());
        }
    }
    out
}

impl KnnGraph {
    /// The heat-kernel kNN graph of the rows of `x`.
    ///
    /// # Errors
    /// [`SolverError::Invalid`] for a bad `k` or `sigma`.
    pub fn heat_kernel(x: MatRef<'_, f64>, k: usize, sigma: f64) -> Result<KnnGraph, SolverError> {
        if !(sigma > 0.0 && sigma.is_finite()) {
            return Err(SolverError::Invalid(format!(
                "kNN graph: sigma must be positive, got {sigma}"
            )));
        }
        let nearest = k_nearest_rows(x, k)?;
        let n = nearest.len();
        let mut adjacency: Vec<Vec<(u32, f64)>> = vec![Vec::new(); n];
        for (i, row) in nearest.iter().enumerate() {
            for &(j, d2) in row {
                let w = (-d2 / sigma).exp();
                adjacency[i].push((j, w));
                adjacency[j as usize].push((i as u32, w));
            }
        }
        for row in &mut adjacency {
            row.sort_by(|a, b| a.0.cmp(&b.0).then(b.1.total_cmp(&a.1)));
            // Union: one edge per pair, the larger weight (equal here, as the
            // weight depends on the distance only).
            row.dedup_by_key(|e| e.0);
        }
        let degree = adjacency
            .iter()
            .map(|row| row.iter().map(|e| e.1).sum())
            .collect();
        Ok(KnnGraph { adjacency, degree })
    }

    /// fᵀLf = ½ Σᵢⱼ wᵢⱼ (fᵢ − fⱼ)² for the Laplacian L = D − W.
    pub fn laplacian_form(&self, f: &[f64]) -> f64 {
        self.adjacency
            .iter()
            .enumerate()
            .map(|(i, row)| {
                row.iter()
                    .map(|&(j, w)| 0.5 * w * (f[i] - f[j as usize]).powi(2))
                    .sum::<f64>()
            })
            .sum()
    }

    /// Mean edge weight (how much a graph term can act: near 0 when σ is
    /// small against the neighbour distances).
    pub fn mean_weight(&self) -> f64 {
        let (sum, count) = self
            .adjacency
            .iter()
            .flatten()
            .fold((0.0, 0usize), |(s, c), e| (s + e.1, c + 1));
        if count == 0 { 0.0 } else { sum / count as f64 }
    }
}
