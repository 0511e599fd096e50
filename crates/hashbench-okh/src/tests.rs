use faer::Mat;
use hashbench_core::linalg::product;
use hashbench_core::{Data, FitError, HashMethod, HashModel, TrainSet};
use hashbench_kernel::KernelSpec;
use rand::{RngExt, SeedableRng};
use rand_chacha::ChaCha8Rng;

use super::*;

/// A P x N kernel block of random positive values and 3 interleaved classes.
fn block(p: usize, n: usize, seed: u64) -> (Mat<f64>, Vec<u32>) {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let k = Mat::from_fn(p, n, |_, _| rng.random::<f64>());
    (k, (0..n).map(|j| (j % 3) as u32).collect())
}

/// K (D − W) Kᵀ with W and D formed explicitly (N x N).
fn explicit_c(k: &Mat<f64>, w: &Mat<f64>) -> Mat<f64> {
    let n = w.nrows();
    let l = Mat::from_fn(n, n, |i, j| {
        let degree = 0.5 * (0..n).map(|m| w[(i, m)] + w[(m, i)]).sum::<f64>();
        f64::from(u8::from(i == j)) * degree - w[(i, j)]
    });
    product(product(k.as_ref(), l.as_ref()).as_ref(), k.transpose())
}

#[test]
fn low_rank_similarities_give_the_explicit_c() {
    let (k, labels) = block(5, 30, 1);
    let w = Mat::from_fn(30, 30, |i, j| f64::from(u8::from(labels[i] == labels[j])));
    let (d, kr) = label_similarity(&k, &labels);
    let fast = laplacian_term(k.as_ref(), &d, kr.as_ref());
    assert!((&fast - &explicit_c(&k, &w)).norm_max() < 1e-9);
    let x = Mat::from_fn(30, 4, |i, j| ((i * 7 + j * 3) % 5) as f64 - 2.0);
    let (d, kr) = feature_similarity(&k, x.as_ref());
    let fast = laplacian_term(k.as_ref(), &d, kr.as_ref());
    let w = product(x.as_ref(), x.transpose());
    assert!((&fast - &explicit_c(&k, &w)).norm_max() < 1e-8);
}

#[test]
fn the_laplacian_term_summed_over_item_blocks_is_the_one_product() {
    let (k, labels) = block(5, 30, 1);
    let (_, kr) = label_similarity(&k, &labels);
    // degrees that differ item by item, so a block reading another's fails
    let d: Vec<f64> = (0..30).map(|j| 1.0 + ((j * j) % 11) as f64).collect();
    let whole = laplacian_term(k.as_ref(), &d, kr.as_ref());
    for items in [1, 7, 29, 30, 64] {
        let blocked = solve::laplacian_term_in_blocks(k.as_ref(), &d, kr.as_ref(), items);
        assert!(
            (&blocked - &whole).norm_max() <= 1e-12 * whole.norm_max(),
            "blocks of {items}"
        );
    }
    // one block holding every item is the one product, bit for bit
    assert_eq!(
        solve::laplacian_term_in_blocks(k.as_ref(), &d, kr.as_ref(), 30),
        whole
    );
}

#[test]
fn nystrom_similarity_through_spanning_landmarks_is_the_inner_product() {
    // linear kernel, landmarks Z (6 x 3, rank 3, more landmarks than
    // dimensions so K_PP is singular): Kᵀ K_PP⁺ K = X Zᵀ(ZZᵀ)⁺Z Xᵀ = X Xᵀ
    let z = Mat::from_fn(6, 3, |i, j| ((i * 5 + j * 3 + i * j) % 7) as f64 - 3.0);
    let x = Mat::from_fn(25, 3, |i, j| ((i * 7 + j * 2) % 9) as f64 - 4.0);
    let k = product(z.as_ref(), x.transpose());
    let kpp = product(z.as_ref(), z.transpose());
    let (d, kr) = nystrom_similarity(&k, &kpp, 1e-10).unwrap();
    let fast = laplacian_term(k.as_ref(), &d, kr.as_ref());
    let w = product(x.as_ref(), x.transpose());
    let want = explicit_c(&k, &w);
    assert!(
        (&fast - &want).norm_max() < 1e-7 * want.norm_max(),
        "{}",
        (&fast - &want).norm_max()
    );
}

#[test]
fn a_two_landmark_problem_solved_by_hand() {
    // G = diag(4, 1), C = [[8, 2], [2, 3]], k̄ = (1, 2), one bit.
    let g = Mat::from_fn(2, 2, |i, j| [[4.0, 0.0], [0.0, 1.0]][i][j]);
    let c = Mat::from_fn(2, 2, |i, j| [[8.0, 2.0], [2.0, 3.0]][i][j]);
    let kbar = [1.0, 2.0];
    // full: C̃ = G^{-1/2} C G^{-1/2} = [[2, 1], [1, 3]], smallest eigenvalue
    // (5 − √5)/2 with eigenvector ∝ (1, (1 − √5)/2); a = G^{-1/2} v
    let full = solve(c.as_ref(), g.as_ref(), &kbar, 1, GRank::Full, 1e-10).unwrap();
    let mu = (5.0 - 5f64.sqrt()) / 2.0;
    assert!(
        (full.objective[0] - mu).abs() < 1e-12,
        "{:?}",
        full.objective
    );
    let v = [1.0, (1.0 - 5f64.sqrt()) / 2.0];
    let norm = v[0].hypot(v[1]);
    let want = [v[0] / norm / 2.0, v[1] / norm];
    let sign = full.a[(0, 0)].signum();
    for (i, w) in want.iter().enumerate() {
        assert!((sign * full.a[(i, 0)] - w).abs() < 1e-12, "{:?}", full.a);
    }
    assert!((full.b[0] - (full.a[(0, 0)] + 2.0 * full.a[(1, 0)])).abs() < 1e-12);
    // literal: only G's top eigenpair (4, e₁) is kept, so a = e₁ / 2 and the
    // objective is C₁₁ / 4 = 2
    let literal = solve(c.as_ref(), g.as_ref(), &kbar, 1, GRank::Bits, 1e-10).unwrap();
    assert_eq!(literal.kept, 1);
    assert!((literal.objective[0] - 2.0).abs() < 1e-12);
    assert!((literal.a[(0, 0)].abs() - 0.5).abs() < 1e-12 && literal.a[(1, 0)].abs() < 1e-12);
}

#[test]
fn the_solution_is_feasible_and_optimal_on_the_kept_eigenpairs() {
    let (k, labels) = block(8, 60, 2);
    let (d, kr) = label_similarity(&k, &labels);
    let c = laplacian_term(k.as_ref(), &d, kr.as_ref());
    let (kbar, g) = mean_and_covariance(k.as_ref());
    for rank in [GRank::Full, GRank::Bits] {
        let s = solve(c.as_ref(), g.as_ref(), &kbar, 3, rank, 1e-10).unwrap();
        // the constraint AᵀGA = I
        let aga = product(product(s.a.transpose(), g.as_ref()).as_ref(), s.a.as_ref());
        assert!(
            (&aga - Mat::<f64>::identity(3, 3)).norm_max() < 1e-8,
            "{rank:?}"
        );
        // the objective of eq. (3) at the solution is the sum of the chosen eigenvalues
        let aca = product(product(s.a.transpose(), c.as_ref()).as_ref(), s.a.as_ref());
        let trace: f64 = (0..3).map(|m| aca[(m, m)]).sum();
        let sum: f64 = s.objective.iter().sum();
        assert!((trace - sum).abs() < 1e-8 * sum.abs().max(1.0), "{rank:?}");
        assert!(s.objective.windows(2).all(|w| w[0] <= w[1] + 1e-12));
    }
    // full rank: no G-normalised direction does better than the smallest μ
    let s = solve(c.as_ref(), g.as_ref(), &kbar, 3, GRank::Full, 1e-10).unwrap();
    assert_eq!(s.kept, 8, "G of 8 landmarks over 60 items has full rank");
    assert_generalised_eigenpairs(&c, &g, &s);
    let mut rng = ChaCha8Rng::seed_from_u64(5);
    for _ in 0..200 {
        let v: Vec<f64> = (0..8).map(|_| rng.random::<f64>() - 0.5).collect();
        let quad = |m: &Mat<f64>| -> f64 {
            (0..8)
                .map(|i| (0..8).map(|j| v[i] * m[(i, j)] * v[j]).sum::<f64>())
                .sum()
        };
        assert!(quad(&c) / quad(&g) >= s.objective[0] - 1e-9);
    }
}

/// C a = μ G a, column by column.
fn assert_generalised_eigenpairs(c: &Mat<f64>, g: &Mat<f64>, s: &Solution) {
    let p = c.nrows();
    for m in 0..s.a.ncols() {
        let a = s.a.col(m);
        let ca: Vec<f64> = (0..p)
            .map(|i| (0..p).map(|j| c[(i, j)] * a[j]).sum())
            .collect();
        let ga: Vec<f64> = (0..p)
            .map(|i| (0..p).map(|j| g[(i, j)] * a[j]).sum())
            .collect();
        let scale = ca.iter().map(|v| v.abs()).fold(0.0, f64::max);
        for i in 0..p {
            assert!(
                (ca[i] - s.objective[m] * ga[i]).abs() < 1e-8 * scale.max(1.0),
                "bit {m}, row {i}: {} vs {}",
                ca[i],
                s.objective[m] * ga[i]
            );
        }
    }
}

#[test]
fn c_a_equals_mu_g_a_on_a_rank_deficient_g() {
    // 5 training items: G, a covariance of 5 points, has rank 4 of 8; a label
    // Laplacian annihilates 1, so C lives on range(G) and the equation holds
    let (k, labels) = block(8, 5, 4);
    let (d, kr) = label_similarity(&k, &labels);
    let c = laplacian_term(k.as_ref(), &d, kr.as_ref());
    let (kbar, g) = mean_and_covariance(k.as_ref());
    let s = solve(c.as_ref(), g.as_ref(), &kbar, 3, GRank::Full, 1e-10).unwrap();
    assert_eq!(s.kept, 4);
    assert_generalised_eigenpairs(&c, &g, &s);
    // 4 bits at most
    assert_eq!(
        solve(c.as_ref(), g.as_ref(), &kbar, 4, GRank::Full, 1e-10)
            .unwrap()
            .kept,
        4
    );
    match solve(c.as_ref(), g.as_ref(), &kbar, 5, GRank::Full, 1e-10) {
        Err(SolveError::TooFewEigenpairs(4)) => {}
        other => panic!("{other:?}"),
    }
}

#[test]
fn the_literal_reading_spans_the_m_largest_eigenvectors_of_g() {
    let (k, labels) = block(8, 60, 3);
    let (d, kr) = label_similarity(&k, &labels);
    let c = laplacian_term(k.as_ref(), &d, kr.as_ref());
    let (kbar, g) = mean_and_covariance(k.as_ref());
    let (_, vectors) = hashbench_core::linalg::top_eigenpairs(g.as_ref(), 8).unwrap();
    // the part of A's columns outside G's top `m` eigenvectors
    let outside = |s: &Solution, m: usize| -> f64 {
        let coeff = product(vectors.transpose(), s.a.as_ref());
        (m..8)
            .flat_map(|r| (0..s.a.ncols()).map(move |col| (r, col)))
            .map(|(r, col)| coeff[(r, col)].abs())
            .fold(0.0, f64::max)
    };
    let literal = solve(c.as_ref(), g.as_ref(), &kbar, 2, GRank::Bits, 1e-10).unwrap();
    assert_eq!(literal.kept, 2);
    assert!(outside(&literal, 2) < 1e-10, "{}", outside(&literal, 2));
    // the full reading is free to leave that span (and here does)
    let full = solve(c.as_ref(), g.as_ref(), &kbar, 2, GRank::Full, 1e-10).unwrap();
    assert!(outside(&full, 2) > 1e-3, "{}", outside(&full, 2));
}

#[test]
fn lambda_adds_the_landmark_kernel_to_c() {
    let (x, labels) = two_classes(60);
    let all: Vec<usize> = (0..60).collect();
    let train = TrainSet {
        x: &x,
        labelled: &all,
        labels: &labels,
        memos: None,
    };
    let with = OkhParams {
        p: 5,
        lambda: 0.5,
        g_rank: GRank::Full,
        ..OkhParams::with_kernel(KernelSpec::Linear)
    }
    .fit_pca(&train, 2);
    let without = OkhParams {
        p: 5,
        g_rank: GRank::Full,
        ..OkhParams::with_kernel(KernelSpec::Linear)
    }
    .fit_pca(&train, 2);
    // by hand: C = K(D − W)Kᵀ + λ K_PP on the same (PCA) landmarks
    let marks = &with.landmarks;
    let kernel = hashbench_kernel::Kernel::Linear;
    let k = kernel.block(marks, &x).unwrap();
    let (d, kr) = label_similarity(&k, &labels);
    let kpp = kernel.block(marks, marks).unwrap();
    let c = laplacian_term(k.as_ref(), &d, kr.as_ref()) + kpp * faer::Scale(0.5);
    let (kbar, g) = mean_and_covariance(k.as_ref());
    let want = solve(c.as_ref(), g.as_ref(), &kbar, 2, GRank::Full, 1e-10).unwrap();
    for m in 0..2 {
        assert!((with.solution.objective[m] - want.objective[m]).abs() < 1e-8);
    }
    // and λ moves the solution
    assert!((with.solution.objective[0] - without.solution.objective[0]).abs() > 1e-6);
}

/// Two classes apart along axis 0, noise elsewhere.
fn two_classes(n: usize) -> (Data, Vec<u32>) {
    let mut rng = ChaCha8Rng::seed_from_u64(8);
    let labels: Vec<u32> = (0..n).map(|i| (i % 2) as u32).collect();
    let x = Mat::from_fn(n, 5, |i, j| {
        let noise = rng.random::<f64>() - 0.5;
        if j == 0 {
            3.0 * f64::from(labels[i]) + noise
        } else {
            noise
        }
    });
    (Data::Dense(x), labels)
}

fn params(landmarks: Landmarks) -> OkhParams {
    OkhParams {
        p: 20,
        landmarks,
        ..OkhParams::with_kernel(KernelSpec::Gaussian {
            width: hashbench_kernel::Scale::Fixed(
                hashbench_core::valid::Positive::new(2.0).unwrap(),
            ),
        })
    }
}

#[test]
fn label_similarity_gives_a_bit_that_splits_the_classes() {
    let (x, labels) = two_classes(120);
    let all: Vec<usize> = (0..120).collect();
    let train = TrainSet {
        x: &x,
        labelled: &all,
        labels: &labels,
        memos: None,
    };
    for landmarks in [Landmarks::Random, Landmarks::Kmeans, Landmarks::Pca] {
        let p = OkhParams {
            p: if landmarks == Landmarks::Pca { 5 } else { 20 },
            ..params(landmarks)
        };
        let model = p.fit(&train, 1, &mut ChaCha8Rng::seed_from_u64(0)).unwrap();
        let codes = model.encode(&x).unwrap();
        let agree = (0..120)
            .filter(|&i| codes.bit(i, 0) == (labels[i] == 1))
            .count();
        assert!(agree == 120 || agree == 0, "{landmarks:?}: {agree}");
    }
    // without every training label the label similarity is refused
    let r = params(Landmarks::Random).fit(
        &TrainSet::unlabelled(&x),
        1,
        &mut ChaCha8Rng::seed_from_u64(0),
    );
    assert!(matches!(r, Err(FitError::MissingLabels { .. })), "{r:?}");
}

#[test]
fn kmeans_centres_are_fixed_points_of_lloyd() {
    let (x, _) = two_classes(80);
    let x = x.as_dense().unwrap();
    let c = kmeans(x, 4, &mut ChaCha8Rng::seed_from_u64(1));
    // every centre is the mean of the items nearest to it
    let nearest = |i: usize| {
        (0..4)
            .min_by(|&a, &b| {
                let d = |k: usize| (0..5).map(|j| (x[(i, j)] - c[(k, j)]).powi(2)).sum::<f64>();
                d(a).total_cmp(&d(b))
            })
            .unwrap()
    };
    for k in 0..4 {
        let members: Vec<usize> = (0..80).filter(|&i| nearest(i) == k).collect();
        assert!(!members.is_empty());
        for j in 0..5 {
            let mean = members.iter().map(|&i| x[(i, j)]).sum::<f64>() / members.len() as f64;
            assert!((mean - c[(k, j)]).abs() < 1e-9);
        }
    }
}

impl OkhParams {
    /// Fits with PCA landmarks (no draw) on `train`.
    fn fit_pca(self, train: &TrainSet<'_>, bits: usize) -> OkhModel {
        OkhParams {
            landmarks: Landmarks::Pca,
            ..self
        }
        .fit(train, bits, &mut ChaCha8Rng::seed_from_u64(0))
        .unwrap()
    }
}
