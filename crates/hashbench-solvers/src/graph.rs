//! The symmetric kNN graph with heat-kernel weights and its Laplacian
//! (Sparse Hashing Sec. 4.1.1; STH): each item's `k` nearest other items by
//! Euclidean distance, wᵢⱼ = exp(−‖xᵢ − xⱼ‖² / σ), symmetrised by union
//! (wᵢⱼ = max of the two directions, as Deng Cai's `constructW`), wᵢᵢ = 0;
//! D = diag(Σⱼ wᵢⱼ), L = D − W. Stored sparse: k·n edges, never n².

use faer::MatRef;
use hashbench_core::knn::k_nearest;

use crate::SolverError;

/// A sparse symmetric weighted graph.
#[derive(Debug, Clone, PartialEq)]
pub struct KnnGraph {
    /// Neighbours of each item with their weights, by neighbour index.
    pub adjacency: Vec<Vec<(u32, f64)>>,
    /// Degrees Dᵢᵢ = Σⱼ wᵢⱼ (= Lᵢᵢ, as wᵢᵢ = 0).
    pub degree: Vec<f64>,
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
        let n = x.nrows();
        if k == 0 || k >= n {
            return Err(SolverError::Invalid(format!(
                "kNN graph: k = {k} needs 0 < k < {n} items"
            )));
        }
        let itself: Vec<usize> = (0..n).collect();
        let nearest = k_nearest(x, x, k, Some(&itself));
        let mut adjacency: Vec<Vec<(u32, f64)>> = vec![Vec::new(); n];
        for (i, row) in nearest.iter().enumerate() {
            for &(d2, j) in row {
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
