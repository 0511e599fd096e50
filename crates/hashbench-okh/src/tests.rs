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
fn the_solution_is_feasible_optimal_and_meets_the_eigen_equation() {
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
        // projections are centred on the training items (b = Aᵀk̄)
        for m in 0..3 {
            let mean = (0..60)
                .map(|j| (0..8).map(|i| s.a[(i, m)] * k[(i, j)]).sum::<f64>() - s.b[m])
                .sum::<f64>()
                / 60.0;
            assert!(mean.abs() < 1e-10, "{rank:?} bit {m}: {mean}");
        }
    }
    // full rank: C a = μ G a exactly (C has no component outside range(G) when λ = 0),
    // and no G-normalised direction does better than the smallest μ
    let s = solve(c.as_ref(), g.as_ref(), &kbar, 3, GRank::Full, 1e-10).unwrap();
    assert_eq!(s.kept, 8, "G of 8 landmarks over 60 items has full rank");
    for m in 0..3 {
        let a = s.a.col(m);
        let ca: Vec<f64> = (0..8)
            .map(|i| (0..8).map(|j| c[(i, j)] * a[j]).sum())
            .collect();
        let ga: Vec<f64> = (0..8)
            .map(|i| (0..8).map(|j| g[(i, j)] * a[j]).sum())
            .collect();
        let scale = ca.iter().map(|v| v.abs()).fold(0.0, f64::max);
        for i in 0..8 {
            assert!((ca[i] - s.objective[m] * ga[i]).abs() < 1e-8 * scale.max(1.0));
        }
    }
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

#[test]
fn the_literal_reading_keeps_only_the_bits_eigenpairs() {
    let (k, labels) = block(8, 60, 3);
    let (d, kr) = label_similarity(&k, &labels);
    let c = laplacian_term(k.as_ref(), &d, kr.as_ref());
    let (kbar, g) = mean_and_covariance(k.as_ref());
    let literal = solve(c.as_ref(), g.as_ref(), &kbar, 2, GRank::Bits, 1e-10).unwrap();
    let full = solve(c.as_ref(), g.as_ref(), &kbar, 2, GRank::Full, 1e-10).unwrap();
    assert_eq!((literal.kept, full.kept), (2, 8));
    // restricted to fewer directions, the minimum cannot be lower
    assert!(literal.objective.iter().sum::<f64>() >= full.objective.iter().sum::<f64>() - 1e-9);
    // 5 training items: G, a covariance of 5 points, has rank 4, so 4 bits at most
    let (k, labels) = block(8, 5, 4);
    let (d, kr) = label_similarity(&k, &labels);
    let c = laplacian_term(k.as_ref(), &d, kr.as_ref());
    let (kbar, g) = mean_and_covariance(k.as_ref());
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
            width: hashbench_kernel::Scale::Fixed(2.0),
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
