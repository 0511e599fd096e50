//! Symmetric kNN graphs and their Laplacians, stored sparse (k·n edges,
//! never n²): Sparse Hashing's heat-kernel graph (Sec. 4.1.1) and STH's
//! cosine graph, both symmetrised by union (wᵢⱼ = max of the two
//! directions, as Deng Cai's `constructW`); D = diag(Σⱼ wᵢⱼ), L = D − W.
//! The smallest generalised eigenvectors of L y = λ D y (STH's Laplacian
//! eigenmap) come from a Lanczos eigensolver on the sparse graph
//! ([`crate::lanczos`]).

use faer::{Mat, MatRef};
use hashbench_core::knn::{k_largest_inner_products, k_nearest};
use hashbench_core::linalg::peak_positive;
use rayon::prelude::*;

use crate::{SolverError, lanczos};

/// A sparse symmetric weighted graph.
#[derive(Debug, Clone, PartialEq)]
pub struct KnnGraph {
    /// Neighbours of each item with their weights, by neighbour index.
    pub adjacency: Vec<Vec<(u32, f64)>>,
    /// Degrees Dᵢᵢ = Σⱼ wᵢⱼ (a self-loop wᵢᵢ, STH's, counts).
    pub degree: Vec<f64>,
}

impl KnnGraph {
    /// The heat-kernel kNN graph of the rows of `x` (Euclidean neighbours,
    /// wᵢⱼ = exp(−‖xᵢ − xⱼ‖² / σ), no self-loops).
    ///
    /// # Errors
    /// [`SolverError::Invalid`] for a bad `k` or `sigma`.
    pub fn heat_kernel(x: MatRef<'_, f64>, k: usize, sigma: f64) -> Result<KnnGraph, SolverError> {
        if !(sigma > 0.0 && sigma.is_finite()) {
            return Err(SolverError::Invalid(format!(
                "kNN graph: sigma must be positive, got {sigma}"
            )));
        }
        Ok(KnnGraph::weighted(
            x.nrows(),
            &euclidean_neighbours(x, k)?,
            sigma,
        ))
    }

    /// The heat-kernel kNN graph with σ the mean squared distance from an
    /// item to its `k` nearest neighbours (each edge then weighs e⁻¹ on
    /// average, whatever the data's scale); returns σ too.
    ///
    /// When every item coincides with its neighbours, every edge weighs 1
    /// whatever σ, and σ is 1.
    ///
    /// # Errors
    /// [`SolverError::Invalid`] for a bad `k`.
    pub fn heat_kernel_mean_width(
        x: MatRef<'_, f64>,
        k: usize,
    ) -> Result<(KnnGraph, f64), SolverError> {
        let nearest = euclidean_neighbours(x, k)?;
        let (sum, count) = nearest
            .iter()
            .flatten()
            .fold((0.0, 0usize), |(s, c), &(d2, _)| (s + d2, c + 1));
        // every edge joining coinciding items weighs 1 whatever σ: then σ = 1
        let sigma = if sum > 0.0 { sum / count as f64 } else { 1.0 };
        Ok((KnnGraph::weighted(x.nrows(), &nearest, sigma), sigma))
    }

    /// The union graph of Euclidean neighbour lists weighted by the heat
    /// kernel of width `sigma`.
    fn weighted(n: usize, nearest: &[Vec<(f64, u32)>], sigma: f64) -> KnnGraph {
        let edges = nearest.iter().enumerate().flat_map(|(i, row)| {
            row.iter()
                .map(move |&(d2, j)| (i as u32, j, (-d2 / sigma).exp()))
        });
        KnnGraph::union(n, edges)
    }

    /// STH's graph (`constructS` with its defaults, cosine metric and
    /// weights): each item joined to the `k` others of largest cosine
    /// similarity with weight max(cos, 0), and to itself with weight 1.
    ///
    /// # Errors
    /// [`SolverError::Invalid`] for a bad `k`.
    pub fn cosine(x: MatRef<'_, f64>, k: usize) -> Result<KnnGraph, SolverError> {
        let n = x.nrows();
        if k == 0 || k >= n {
            return Err(SolverError::Invalid(format!(
                "kNN graph: k = {k} needs 0 < k < {n} items"
            )));
        }
        let norms: Vec<f64> = (0..n).map(|i| x.row(i).norm_l2()).collect();
        let unit = Mat::from_fn(n, x.ncols(), |i, j| x[(i, j)] / norms[i].max(1e-12));
        // k + 1 candidates: an item is its own nearest unless duplicated
        let nearest = k_largest_inner_products(unit.as_ref(), unit.as_ref(), k + 1);
        let edges = nearest.iter().enumerate().flat_map(|(i, row)| {
            let others = row.iter().filter(move |e| e.1 as usize != i).take(k);
            // cos(x, x) = 1, but 0 for an empty item (as `constructS`): its
            // degree is then 0 (0.01 in the eigenproblem), not its own component
            let own = if norms[i] > 0.0 { 1.0 } else { 0.0 };
            std::iter::once((i as u32, i as u32, own))
                .chain(others.map(move |&(neg_cos, j)| (i as u32, j, (-neg_cos).max(0.0))))
        });
        Ok(KnnGraph::union(n, edges))
    }

    /// The graph of directed `edges` (i, j, w) symmetrised by union: one edge
    /// per pair, the larger weight.
    fn union(n: usize, edges: impl Iterator<Item = (u32, u32, f64)>) -> KnnGraph {
        let mut adjacency: Vec<Vec<(u32, f64)>> = vec![Vec::new(); n];
        for (i, j, w) in edges {
            adjacency[i as usize].push((j, w));
            if i != j {
                adjacency[j as usize].push((i, w));
            }
        }
        for row in &mut adjacency {
            row.sort_by(|a, b| a.0.cmp(&b.0).then(b.1.total_cmp(&a.1)));
            row.dedup_by_key(|e| e.0);
        }
        let degree = adjacency
            .iter()
            .map(|row| row.iter().map(|e| e.1).sum())
            .collect();
        KnnGraph { adjacency, degree }
    }

    /// N + I, N = D^−½ W D^−½ (an isolated item's degree taken as 0.01): the
    /// operator whose largest eigenpairs [`KnnGraph::smallest_generalised_eigenvectors`]
    /// finds by Lanczos.
    pub fn shifted_normalised(&self) -> ShiftedNormalised {
        let inv_sqrt_degree: Vec<f64> = self
            .degree
            .iter()
            .map(|&d| 1.0 / if d > 0.0 { d } else { 0.01 }.sqrt())
            .collect();
        let mut starts = Vec::with_capacity(self.adjacency.len() + 1);
        starts.push(0);
        let mut entries = Vec::new();
        for (i, row) in self.adjacency.iter().enumerate() {
            let si = inv_sqrt_degree[i];
            entries.extend(
                row.iter()
                    .map(|&(j, w)| (j, w * si * inv_sqrt_degree[j as usize])),
            );
            starts.push(entries.len());
        }
        ShiftedNormalised {
            inv_sqrt_degree,
            starts,
            entries,
        }
    }

    /// The `count` smallest generalised eigenpairs of L y = λ D y, smallest
    /// first, each y scaled to yᵀDy = 1 (the first is the trivial constant
    /// vector). An isolated item's degree is taken as 0.01 (STH's `LapEig`).
    /// With z = D^½y this is (I − N) z = λ z, N = D^−½ W D^−½ of spectrum in
    /// [−1, 1]: the `count` largest eigenvalues of N + I, all ≥ 0.
    ///
    /// The eigenvalue 0 repeats once per connected component, its vectors
    /// known: the component's indicator (z = D^½ 1_C). They come first, in
    /// the order of each component's first item, and the rest come from
    /// Lanczos on the sparse graph with them projected out (residuals below
    /// 1e-10). Left to Lanczos, many components (a graph of well-separated
    /// clusters) give many Ritz values equal to rounding, converged and
    /// converging ones mixed, which it chases to its cap.
    ///
    /// # Errors
    /// [`SolverError::Invalid`] for `count` beyond the item count,
    /// [`SolverError::NotConverged`] when the eigensolver stops short.
    pub fn smallest_generalised_eigenvectors(
        &self,
        count: usize,
    ) -> Result<(Vec<f64>, Mat<f64>), SolverError> {
        let n = self.degree.len();
        if count == 0 || count >= n {
            return Err(SolverError::Invalid(format!(
                "Laplacian eigenmap: {count} eigenvectors need 0 < count < {n} items"
            )));
        }
        let operator = self.shifted_normalised();
        let components = self.components();
        let trivial = components.count.min(count);
        let mut shifted = vec![2.0; trivial];
        let mut z = Mat::from_fn(n, count, |i, c| {
            if c < trivial && components.of[i] == Some(c) {
                components.unit[i]
            } else {
                0.0
            }
        });
        if count > trivial {
            let (rest, vectors) = lanczos::largest_eigenpairs(
                n,
                count - trivial,
                EIGEN_TOLERANCE,
                EIGEN_SEED,
                &|x: &[f64], y: &mut [f64]| operator.apply(&components.project_out(x), y),
            )?;
            shifted.extend(rest);
            z.subcols_mut(trivial, count - trivial).copy_from(&vectors);
        }
        let mut order: Vec<usize> = (0..count).collect();
        order.sort_by(|&a, &b| shifted[b].total_cmp(&shifted[a]).then(a.cmp(&b)));
        let values = order.iter().map(|&c| 2.0 - shifted[c]).collect();
        // a fixed sign per vector: its largest-magnitude entry positive
        z.col_iter_mut().for_each(peak_positive);
        let y = Mat::from_fn(n, count, |i, c| {
            z[(i, order[c])] * operator.inv_sqrt_degree[i]
        });
        Ok((values, y))
    }

    /// The connected components over edges of positive weight, numbered by
    /// their first item, with the unit vectors z = D^½ 1_C / ‖D^½ 1_C‖ of
    /// N's eigenvalue 1; an item of degree 0 belongs to none.
    fn components(&self) -> Components {
        let n = self.degree.len();
        let mut of: Vec<Option<usize>> = vec![None; n];
        let mut volume: Vec<f64> = Vec::new();
        let mut stack = Vec::new();
        for start in 0..n {
            if of[start].is_some() || self.degree[start] <= 0.0 {
                continue;
            }
            let c = volume.len();
            volume.push(0.0);
            of[start] = Some(c);
            stack.push(start);
            while let Some(i) = stack.pop() {
                volume[c] += self.degree[i];
                for &(j, w) in &self.adjacency[i] {
                    let j = j as usize;
                    if w > 0.0 && of[j].is_none() {
                        of[j] = Some(c);
                        stack.push(j);
                    }
                }
            }
        }
        let unit = (0..n)
            .map(|i| of[i].map_or(0.0, |c| (self.degree[i] / volume[c]).sqrt()))
            .collect();
        Components {
            count: volume.len(),
            of,
            unit,
        }
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

/// Each row's `k` nearest other rows (squared distance, index).
fn euclidean_neighbours(x: MatRef<'_, f64>, k: usize) -> Result<Vec<Vec<(f64, u32)>>, SolverError> {
    let n = x.nrows();
    if k == 0 || k >= n {
        return Err(SolverError::Invalid(format!(
            "kNN graph: k = {k} needs 0 < k < {n} items"
        )));
    }
    let itself: Vec<usize> = (0..n).collect();
    Ok(k_nearest(x, x, k, Some(&itself)))
}

/// A graph's connected components ([`KnnGraph::components`]).
struct Components {
    count: usize,
    /// Each item's component.
    of: Vec<Option<usize>>,
    /// Each item's entry in its component's unit vector.
    unit: Vec<f64>,
}

impl Components {
    /// x less its components along every component's unit vector (their
    /// supports are disjoint: one pass for the inner products, one for the
    /// subtraction, each in item order).
    fn project_out(&self, x: &[f64]) -> Vec<f64> {
        let mut along = vec![0.0; self.count];
        for ((c, u), xi) in self.of.iter().zip(&self.unit).zip(x) {
            if let Some(c) = c {
                along[*c] += u * xi;
            }
        }
        self.of
            .iter()
            .zip(&self.unit)
            .zip(x)
            .map(|((c, u), xi)| c.map_or(*xi, |c| xi - u * along[c]))
            .collect()
    }
}

/// The eigensolver's residual tolerance (eigenvalues of N + I lie in [0, 2]).
const EIGEN_TOLERANCE: f64 = 1e-10;

/// Seed of the eigensolver's start vector (fixed: the eigenmap is deterministic).
const EIGEN_SEED: u64 = 0x5748;

/// Rows of the operator one task applies.
const APPLY_ROWS: usize = 2048;

/// N + I of a graph ([`KnnGraph::shifted_normalised`]), applied to vectors:
/// N's entries wᵢⱼ/√(dᵢdⱼ) formed once, row by row (compressed rows).
pub struct ShiftedNormalised {
    inv_sqrt_degree: Vec<f64>,
    /// Where each row's entries start in `entries` (and where the last ends).
    starts: Vec<usize>,
    /// (j, Nᵢⱼ) of every row in turn, by neighbour index.
    entries: Vec<(u32, f64)>,
}

impl ShiftedNormalised {
    /// y = (N + I) x.
    ///
    /// # Panics
    /// If `x` or `y` is not as long as the graph has items.
    pub fn apply(&self, x: &[f64], y: &mut [f64]) {
        let n = self.inv_sqrt_degree.len();
        assert!(
            x.len() == n && y.len() == n,
            "N + I of {n} items applied to {} into {}",
            x.len(),
            y.len()
        );
        // rows in parallel: each entry's sum is its own, in neighbour order
        y.par_chunks_mut(APPLY_ROWS).enumerate().for_each(|(b, y)| {
            for (k, y) in y.iter_mut().enumerate() {
                let i = b * APPLY_ROWS + k;
                let sum: f64 = self.entries[self.starts[i]..self.starts[i + 1]]
                    .iter()
                    .map(|&(j, v)| v * x[j as usize])
                    .sum();
                *y = x[i] + sum;
            }
        });
    }
}
