//! `just bench-eigen`: why hashbench has one dense partial eigensolver
//! (`hashbench_core::linalg::top_eigenpairs`) and a Lanczos front end
//! (`hashbench_solvers::lanczos`) for the Laplacian eigenmaps of STH and
//! SpaH, measured. Both find the 33 largest eigenpairs of the same operator,
//! N + I with N = D^-1/2 W D^-1/2 of a symmetric 7-nearest-neighbour graph
//! on generated clustered points: Lanczos applies the sparse graph (its
//! Rayleigh-Ritz step calls `top_eigenpairs` on the small projection), the
//! dense route forms the n x n matrix and calls `top_eigenpairs` on it.
//! Printed per n: the seconds of each (median of 3; one run at 8,000), the dense matrix's
//! bytes, and the largest eigenvalue difference between the two.

use faer::Mat;
use hashbench_bench::median_seconds;
use hashbench_core::linalg::top_eigenpairs;
use hashbench_solvers::lanczos::largest_eigenpairs;
use rand::{RngExt, SeedableRng};
use rand_chacha::ChaCha8Rng;

/// Neighbours per item.
const K: usize = 7;
/// Eigenpairs asked (STH and SpaH at 32 bits: the trivial one and 32).
const COUNT: usize = 33;

/// The normalised adjacency of a symmetric kNN graph on `n` points in 10
/// dimensions around 10 centres: each row's (column, weight) entries.
fn graph(n: usize) -> Vec<Vec<(usize, f64)>> {
    let mut rng = ChaCha8Rng::seed_from_u64(7);
    let centres: Vec<Vec<f64>> = (0..10)
        .map(|_| (0..10).map(|_| 4.0 * rng.random::<f64>()).collect())
        .collect();
    let x: Vec<Vec<f64>> = (0..n)
        .map(|i| {
            centres[i % 10]
                .iter()
                .map(|c| c + rng.random::<f64>() - 0.5)
                .collect()
        })
        .collect();
    let d2 = |a: &[f64], b: &[f64]| a.iter().zip(b).map(|(p, q)| (p - q) * (p - q)).sum::<f64>();
    let mut w = vec![Vec::<(usize, f64)>::new(); n];
    for i in 0..n {
        let mut near: Vec<(f64, usize)> = (0..n)
            .filter(|&j| j != i)
            .map(|j| (d2(&x[i], &x[j]), j))
            .collect();
        near.select_nth_unstable_by(K - 1, |a, b| a.0.total_cmp(&b.0));
        for &(d, j) in &near[..K] {
            let weight = (-d).exp();
            w[i].push((j, weight));
            w[j].push((i, weight));
        }
    }
    for row in &mut w {
        row.sort_by_key(|e| e.0);
        row.dedup_by_key(|e| e.0);
    }
    let degree: Vec<f64> = w.iter().map(|r| r.iter().map(|e| e.1).sum()).collect();
    w.iter()
        .enumerate()
        .map(|(i, r)| {
            r.iter()
                .map(|&(j, v)| (j, v / (degree[i] * degree[j]).sqrt()))
                .collect()
        })
        .collect()
}

fn main() {
    println!("eigenpairs: the {COUNT} largest of N + I on a {K}-NN graph of n items");
    for (n, runs) in [(1000, 3), (2000, 3), (4000, 3), (8000, 1)] {
        let n_adj = graph(n);
        let apply = |x: &[f64], y: &mut [f64]| {
            for (i, row) in n_adj.iter().enumerate() {
                y[i] = x[i] + row.iter().map(|&(j, v)| v * x[j]).sum::<f64>();
            }
        };
        let mut sparse = Vec::new();
        let lanczos = median_seconds(runs, || {
            sparse = largest_eigenpairs(n, COUNT, 1e-10, 1, &apply).unwrap().0;
        });
        let dense_matrix = Mat::from_fn(n, n, |i, j| {
            f64::from(u8::from(i == j))
                + n_adj[i]
                    .binary_search_by_key(&j, |e| e.0)
                    .map_or(0.0, |at| n_adj[i][at].1)
        });
        let mut dense = Vec::new();
        let direct = median_seconds(runs, || {
            dense = top_eigenpairs(dense_matrix.as_ref(), COUNT).unwrap().0;
        });
        sparse.sort_by(|a, b| b.total_cmp(a));
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
