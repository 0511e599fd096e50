//! `just bench-eigen`: why hashbench has one dense partial eigensolver
//! (`hashbench_core::linalg::top_eigenpairs`) and a Lanczos front end
//! (`hashbench_solvers::lanczos`) for the Laplacian eigenmap, measured on
//! STH's own path. On the cosine 7-NN graph of generated clustered points,
//! `KnnGraph::smallest_generalised_eigenvectors(33)` (Lanczos on the sparse
//! operator N + I, its Rayleigh-Ritz step calling `top_eigenpairs` on the
//! small projection) against `top_eigenpairs` on the same operator formed as
//! an n x n matrix. Printed per n: the seconds of each (median of 3; one run
//! at 8,000), the dense matrix's bytes, and the largest eigenvalue
//! difference between the two.

use faer::Mat;
use hashbench_bench::median_seconds;
use hashbench_core::linalg::top_eigenpairs;
use hashbench_solvers::KnnGraph;
use rand::{RngExt, SeedableRng};
use rand_chacha::ChaCha8Rng;

/// Neighbours per item.
const K: usize = 7;
/// Eigenpairs asked (STH at 32 bits: the trivial one and 32).
const COUNT: usize = 33;

/// `n` points in 10 dimensions around 10 centres.
fn points(n: usize) -> Mat<f64> {
    let mut rng = ChaCha8Rng::seed_from_u64(7);
    let centres = Mat::from_fn(10, 10, |_, _| 4.0 * rng.random::<f64>());
    Mat::from_fn(n, 10, |i, j| {
        centres[(i % 10, j)] + rng.random::<f64>() - 0.5
    })
}

fn main() {
    println!(
        "eigenpairs: the {COUNT} smallest of STH's eigenmap on a cosine {K}-NN graph of n items"
    );
    for (n, runs) in [(1000, 3), (2000, 3), (4000, 3), (8000, 1)] {
        let graph = KnnGraph::cosine(points(n).as_ref(), K).unwrap();
        let mut sparse = Vec::new();
        let lanczos = median_seconds(runs, || {
            sparse = graph.smallest_generalised_eigenvectors(COUNT).unwrap().0;
        });
        // the same operator formed column by column
        let operator = graph.shifted_normalised();
        let mut dense_matrix = Mat::<f64>::zeros(n, n);
        let (mut unit, mut column) = (vec![0.0; n], vec![0.0; n]);
        for j in 0..n {
            unit[j] = 1.0;
            operator.apply(&unit, &mut column);
            unit[j] = 0.0;
            dense_matrix
                .col_mut(j)
                .iter_mut()
                .zip(&column)
                .for_each(|(m, c)| *m = *c);
        }
        let mut dense = Vec::new();
        let direct = median_seconds(runs, || {
            dense = top_eigenpairs(dense_matrix.as_ref(), COUNT).unwrap().0;
        });
        // the eigenmap's values are 2 minus the operator's, smallest first
        let mut dense: Vec<f64> = dense.iter().map(|v| 2.0 - v).collect();
        dense.sort_by(f64::total_cmp);
        let gap = sparse
            .iter()
            .zip(&dense)
            .map(|(a, b)| (a - b).abs())
            .fold(0.0, f64::max);
        println!(
            "n = {n:>5}: Lanczos {lanczos:.3} s, dense {direct:.3} s ({:.1}x), dense matrix {:.1} MiB, largest eigenvalue difference {gap:.1e}",
            direct / lanczos,
            (n * n * 8) as f64 / (1 << 20) as f64
        );
    }
    // STH's eigenmap on the specs' largest training sets: SpaH Fig. 9's
    // sweep up to 50,000 items, 20 Newsgroups' 11,269
    for (what, n) in [
        ("SpaH Fig. 9's 50,000", 50_000usize),
        ("20 Newsgroups' 11,269", 11_269),
    ] {
        println!(
            "dense n x n matrix at {what} training items: {:.1} GiB (this machine has 24), O(n^3) work",
            (n * n * 8) as f64 / (1u64 << 30) as f64
        );
    }
}
