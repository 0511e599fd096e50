//! The P landmarks the kernel is evaluated against (Sec. 2.2; Sec. 4.2 uses
//! random training items, "ours 1" the principal directions).

use faer::Mat;
use hashbench_core::linalg::{mean_and_scatter, top_eigenpairs};
use hashbench_core::{Data, FitError};
use rand::RngExt;
use rand::seq::index::sample;
use rand_chacha::ChaCha8Rng;
use serde::{Deserialize, Serialize};

/// Where the landmarks come from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Landmarks {
    /// P training items drawn at random.
    #[default]
    Random,
    /// The top P principal directions of the (dense) training data, as points
    /// (the paper's "ours 1"; P ≤ dimension).
    Pca,
    /// P k-means centres of the (dense) training data (k-means++ start, then
    /// Lloyd iterations).
    Kmeans,
}

/// Lloyd iterations of the k-means landmarks at most.
const KMEANS_ITERATIONS: usize = 50;

/// The `p` landmarks of `x` as items.
///
/// # Errors
/// PCA or k-means landmarks on data that are not dense vectors, more PCA
/// landmarks than dimensions, or an eigensolver failure.
pub fn landmarks(
    kind: Landmarks,
    x: &Data,
    p: usize,
    rng: &mut ChaCha8Rng,
) -> Result<Data, FitError> {
    let dense = || {
        x.as_dense().ok_or(FitError::UnsupportedData {
            method: "okh",
            needs: "dense vector data for pca or kmeans landmarks",
            got: x.kind(),
        })
    };
    match kind {
        Landmarks::Random => Ok(x.select(&sample(rng, x.n_items(), p).into_vec())),
        Landmarks::Pca => {
            let x = dense()?;
            if p > x.ncols() {
                return Err(FitError::TooManyBits {
                    method: "okh (pca landmarks: p principal directions)",
                    max: x.ncols(),
                    asked: p,
                });
            }
            let (_, scatter) = mean_and_scatter(x);
            let (_, dirs) = top_eigenpairs(scatter.as_ref(), p)?;
            Ok(Data::Dense(Mat::from_fn(p, x.ncols(), |i, j| dirs[(j, i)])))
        }
        Landmarks::Kmeans => {
            let x = dense()?;
            Ok(Data::Dense(kmeans(x, p, rng)))
        }
    }
}

fn sq_dist(x: faer::MatRef<'_, f64>, i: usize, c: &Mat<f64>, k: usize) -> f64 {
    (0..x.ncols())
        .map(|j| (x[(i, j)] - c[(k, j)]).powi(2))
        .sum()
}

/// `p` centres of the rows of `x`: k-means++ seeding, then Lloyd iterations
/// until no assignment changes (at most [`KMEANS_ITERATIONS`]); an emptied
/// cluster keeps its centre.
pub fn kmeans(x: faer::MatRef<'_, f64>, p: usize, rng: &mut ChaCha8Rng) -> Mat<f64> {
    let (n, d) = (x.nrows(), x.ncols());
    let mut centres = Mat::<f64>::zeros(p, d);
    let first = rng.random_range(0..n);
    (0..d).for_each(|j| centres[(0, j)] = x[(first, j)]);
    let mut nearest: Vec<f64> = (0..n).map(|i| sq_dist(x, i, &centres, 0)).collect();
    for k in 1..p {
        let total: f64 = nearest.iter().sum();
        let chosen = if total > 0.0 {
            let mut r = rng.random::<f64>() * total;
            nearest
                .iter()
                .position(|&w| {
                    r -= w;
                    r <= 0.0
                })
                .unwrap_or(n - 1)
        } else {
            rng.random_range(0..n)
        };
        (0..d).for_each(|j| centres[(k, j)] = x[(chosen, j)]);
        for (i, best) in nearest.iter_mut().enumerate() {
            *best = best.min(sq_dist(x, i, &centres, k));
        }
    }
    let mut assignment = vec![usize::MAX; n];
    for _ in 0..KMEANS_ITERATIONS {
        let mut changed = false;
        for (i, a) in assignment.iter_mut().enumerate() {
            let best = (0..p)
                .map(|k| (sq_dist(x, i, &centres, k), k))
                .min_by(|a, b| a.0.total_cmp(&b.0).then(a.1.cmp(&b.1)))
                .expect("p > 0")
                .1;
            changed |= *a != best;
            *a = best;
        }
        if !changed {
            break;
        }
        let mut sums = Mat::<f64>::zeros(p, d);
        let mut counts = vec![0usize; p];
        for (i, &a) in assignment.iter().enumerate() {
            counts[a] += 1;
            (0..d).for_each(|j| sums[(a, j)] += x[(i, j)]);
        }
        for k in (0..p).filter(|&k| counts[k] > 0) {
            (0..d).for_each(|j| centres[(k, j)] = sums[(k, j)] / counts[k] as f64);
        }
    }
    centres
}
