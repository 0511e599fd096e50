use faer::Mat;
use hashbench_core::linalg::top_eigenpairs;
use hashbench_core::{Data, GramRows, SparseRows};
use rand::{RngExt, SeedableRng};
use rand_chacha::ChaCha8Rng;

use super::*;

/// Random non-negative histograms, about half the bins empty.
fn histograms(n: usize, d: usize, seed: u64) -> Mat<f64> {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    Mat::from_fn(n, d, |_, _| {
        if rng.random_bool(0.5) {
            0.0
        } else {
            rng.random_range(0.0..3.0)
        }
    })
}

fn to_sparse(m: &Mat<f64>) -> Data {
    let rows: Vec<Vec<(u32, f64)>> = (0..m.nrows())
        .map(|i| {
            (0..m.ncols())
                .filter(|&j| m[(i, j)] != 0.0)
                .map(|j| (j as u32, m[(i, j)]))
                .collect()
        })
        .collect();
    Data::Sparse(SparseRows::new(m.ncols(), &rows).unwrap())
}

fn kernels() -> Vec<Kernel> {
    vec![
        Kernel::Linear,
        Kernel::Gaussian { sigma: 1.7 },
        Kernel::ChiSquare { gamma: 2.5 },
        Kernel::Intersection,
        Kernel::Sum(vec![
            (0.3, Kernel::Linear),
            (2.0, Kernel::ChiSquare { gamma: 1.0 }),
        ]),
        Kernel::Sum(vec![
            (1.0 / 3.0, Kernel::Gaussian { sigma: 0.5 }),
            (1.0 / 3.0, Kernel::Gaussian { sigma: 5.0 }),
        ]),
    ]
}

#[test]
fn hand_computed_values() {
    // x = (1, 0, 2), y = (0, 1, 1)
    let a = Data::Dense(faer::mat![[1.0, 0.0, 2.0]]);
    let b = Data::Dense(faer::mat![[0.0, 1.0, 1.0]]);
    let k = |kernel: Kernel| kernel.block(&a, &b).unwrap()[(0, 0)];
    assert!((k(Kernel::Linear) - 2.0).abs() < 1e-12);
    // ‖x − y‖² = 1 + 1 + 1 = 3; σ = 2 → exp(−3/8)
    assert!((k(Kernel::Gaussian { sigma: 2.0 }) - (-3.0f64 / 8.0).exp()).abs() < 1e-12);
    // χ² = 1/1 + 1/1 + 1/3 = 7/3; γ = 2 → exp(−7/6)
    assert!((k(Kernel::ChiSquare { gamma: 2.0 }) - (-7.0f64 / 6.0).exp()).abs() < 1e-12);
    // min: 0 + 0 + 1
    assert!((k(Kernel::Intersection) - 1.0).abs() < 1e-12);
    let sum = Kernel::Sum(vec![(2.0, Kernel::Linear), (0.5, Kernel::Intersection)]);
    assert!((k(sum) - 4.5).abs() < 1e-12);
    // Gaussians of two widths (one pass over the distances): 0.5 e^(−3/8) + 2 e^(−3/2)
    let gaussians = Kernel::Sum(vec![
        (0.5, Kernel::Gaussian { sigma: 2.0 }),
        (2.0, Kernel::Gaussian { sigma: 1.0 }),
    ]);
    let want = 0.5 * (-3.0f64 / 8.0).exp() + 2.0 * (-1.5f64).exp();
    assert!((k(gaussians) - want).abs() < 1e-12);
    // a Gaussian beside another kind: 1 · 2 + 0.5 e^(−3/8)
    let mixed = Kernel::Sum(vec![
        (1.0, Kernel::Linear),
        (0.5, Kernel::Gaussian { sigma: 2.0 }),
    ]);
    assert!((k(mixed) - (2.0 + 0.5 * (-3.0f64 / 8.0).exp())).abs() < 1e-12);
}

#[test]
fn symmetric_and_positive_semidefinite_on_random_sample() {
    let x = histograms(40, 12, 1);
    for data in [Data::Dense(x.clone()), to_sparse(&x)] {
        for kernel in kernels() {
            let k = kernel.block(&data, &data).unwrap();
            let scale = (0..40).map(|i| k[(i, i)].abs()).fold(0.0, f64::max);
            for i in 0..40 {
                for j in 0..40 {
                    assert!(
                        (k[(i, j)] - k[(j, i)]).abs() <= 1e-12 * scale,
                        "{} not symmetric on {}",
                        kernel.name(),
                        data.kind()
                    );
                }
            }
            let (values, _) = top_eigenpairs(k.as_ref(), 40).unwrap();
            let smallest = values.iter().copied().fold(f64::INFINITY, f64::min);
            assert!(
                smallest >= -1e-10 * scale,
                "{} has eigenvalue {smallest} on {}",
                kernel.name(),
                data.kind()
            );
        }
    }
}

#[test]
fn sparse_blocks_equal_dense_blocks() {
    let x = histograms(15, 9, 2);
    let y = histograms(7, 9, 3);
    for kernel in kernels() {
        let dense = kernel
            .block(&Data::Dense(x.clone()), &Data::Dense(y.clone()))
            .unwrap();
        let sparse = kernel.block(&to_sparse(&x), &to_sparse(&y)).unwrap();
        for i in 0..15 {
            for j in 0..7 {
                assert!(
                    (dense[(i, j)] - sparse[(i, j)]).abs() < 1e-12,
                    "{}",
                    kernel.name()
                );
            }
        }
    }
}

#[test]
fn precomputed_blocks_read_the_gram_matrix_through_selections() {
    // symmetric (a kernel's), every pair's entry its own: 10 min + max
    let g = Mat::from_fn(5, 5, |i, j| (i.min(j) * 10 + i.max(j)) as f64);
    let data = Data::Gram(GramRows::new(g).unwrap());
    let a = data.select(&[4, 1]);
    let b = data.select(&[0, 3, 3]);
    let k = Kernel::Precomputed.block(&a, &b).unwrap();
    assert_eq!(k[(0, 0)], 4.0);
    assert_eq!(k[(0, 1)], 34.0);
    assert_eq!(k[(1, 2)], 13.0);
    let other = Data::Gram(GramRows::new(Mat::zeros(5, 5)).unwrap());
    assert!(matches!(
        Kernel::Precomputed.block(&a, &other),
        Err(KernelError::Mismatch(_))
    ));
    assert!(matches!(
        Kernel::Linear.block(&a, &b),
        Err(KernelError::Unsupported { .. })
    ));
    assert!(GramRows::new(Mat::zeros(2, 3)).is_err());
    // the same mismatches, found from the spec before any block is computed
    assert!(KernelSpec::Precomputed.check_data(&a).is_ok());
    assert!(KernelSpec::Linear.check_data(&a).is_err());
    let dense = Data::Dense(Mat::zeros(1, 2));
    assert!(KernelSpec::Precomputed.check_data(&dense).is_err());
    assert!(KernelSpec::Intersection.check_data(&dense).is_ok());
}

#[test]
fn bad_inputs_are_named() {
    let neg = Data::Dense(faer::mat![[1.0, -0.5]]);
    let e = Kernel::ChiSquare { gamma: 1.0 }
        .block(&neg, &neg)
        .unwrap_err();
    assert!(e.to_string().contains("-0.5"), "{e}");
    let a = Data::Dense(Mat::zeros(2, 3));
    let b = Data::Dense(Mat::zeros(2, 4));
    assert!(matches!(
        Kernel::Linear.block(&a, &b),
        Err(KernelError::Mismatch(_))
    ));
    assert!(matches!(
        Kernel::Linear.block(&a, &to_sparse(&Mat::zeros(2, 3))),
        Err(KernelError::Mismatch(_))
    ));
}

#[test]
fn mean_distance_policy_is_the_mean_pairwise_distance() {
    // points 0, 3, 4 on a line: distances 3, 4, 1 → mean 8/3
    let x = Data::Dense(faer::mat![[0.0], [3.0], [4.0]]);
    let spec = KernelSpec::Gaussian {
        width: Scale::MeanDistance(10),
    };
    assert_eq!(
        spec.resolve(&x).unwrap(),
        Kernel::Gaussian { sigma: 8.0 / 3.0 }
    );
    // χ² between (1, 0) and (0, 1) is 2; a single pair
    let h = Data::Dense(faer::mat![[1.0, 0.0], [0.0, 1.0], [5.0, 5.0]]);
    let spec = KernelSpec::ChiSquare {
        gamma: Scale::MeanDistance(2),
    };
    // two evenly spaced items of three: rows 0 and 1
    assert_eq!(spec.resolve(&h).unwrap(), Kernel::ChiSquare { gamma: 2.0 });
    let same = Data::Dense(Mat::zeros(4, 2));
    let e = KernelSpec::Gaussian {
        width: Scale::MeanDistance(4),
    }
    .resolve(&same)
    .unwrap_err();
    assert!(e.to_string().contains("identical"), "{e}");
}

#[test]
fn neighbour_distance_is_the_mean_distance_to_the_kth_sorted_item() {
    // points 0, 1, 3, 7 on a line; from all four, the 2nd sorted distance
    // (the item itself first) is the nearest other: 1, 1, 2, 4 → mean 2
    let x = Data::Dense(faer::mat![[0.0], [1.0], [3.0], [7.0]]);
    let width = |neighbour: usize, sample: usize| {
        KernelSpec::Gaussian {
            width: Scale::NeighbourDistance { neighbour, sample },
        }
        .resolve(&x)
    };
    assert_eq!(width(2, 4).unwrap(), Kernel::Gaussian { sigma: 2.0 });
    // the 3rd: 3, 2, 3, 6 → 3.5; from two evenly spaced items (0 and 3): 3, 3
    assert_eq!(width(3, 4).unwrap(), Kernel::Gaussian { sigma: 3.5 });
    assert_eq!(width(3, 2).unwrap(), Kernel::Gaussian { sigma: 3.0 });
    // the first neighbour is the item itself; a neighbour past the training set is refused
    assert!(
        width(5, 4)
            .unwrap_err()
            .to_string()
            .contains("neighbour 5 of 4")
    );
    let spec: Result<KernelSpec, _> = toml::from_str(
        "kind = \"gaussian\"\nwidth = { neighbour-distance = { neighbour = 50, sample = 100 } }",
    );
    assert!(spec.is_ok(), "{spec:?}");
}

#[test]
fn std_distance_and_multiples_resolve_by_hand() {
    // points 0, 3, 4: distances 3, 4, 1, mean 8/3, population variance
    // ((1/3)² + (4/3)² + (5/3)²) / 3 = 42/27
    let x = Data::Dense(faer::mat![[0.0], [3.0], [4.0]]);
    let std: KernelSpec =
        toml::from_str("kind = \"gaussian\"\nwidth = { std-distance = 10 }").unwrap();
    let Kernel::Gaussian { sigma } = std.resolve(&x).unwrap() else {
        panic!("a Gaussian")
    };
    assert!((sigma - (42.0f64 / 27.0).sqrt()).abs() < 1e-12);
    let half: KernelSpec = toml::from_str(
        "kind = \"gaussian\"\nwidth = { times = { factor = 0.5, of = { mean-distance = 10 } } }",
    )
    .unwrap();
    assert_eq!(
        half.resolve(&x).unwrap(),
        Kernel::Gaussian { sigma: 4.0 / 3.0 }
    );
    // equally spaced points have distances of zero spread: named, not a zero width
    let even = Data::Dense(faer::mat![[0.0], [1.0]]);
    let e = std.resolve(&even).unwrap_err();
    assert!(e.to_string().contains("standard deviation"), "{e}");
    let e = toml::from_str::<KernelSpec>(
        "kind = \"gaussian\"\nwidth = { times = { factor = 0.0, of = { fixed = 1.0 } } }",
    )
    .unwrap_err()
    .to_string();
    assert!(e.contains("expected a finite number > 0"), "{e}");
}

#[test]
fn specs_parse_and_validate() {
    let spec: KernelSpec = toml::from_str(
        "kind = \"sum\"\nterms = [{ weight = 1.0, kernel = { kind = \"linear\" } }, { weight = 0.5, kernel = { kind = \"gaussian\", width = { mean-distance = 100 } } }]",
    )
    .unwrap();
    assert!(spec.validate().is_ok());
    // a negative weight, a zero width: refused where they are read, with the range
    for (bad, range) in [
        (
            "kind = \"sum\"\nterms = [{ weight = -1.0, kernel = { kind = \"linear\" } }]",
            ">= 0",
        ),
        ("kind = \"gaussian\"\nwidth = { fixed = 0.0 }", "> 0"),
    ] {
        let e = toml::from_str::<KernelSpec>(bad).unwrap_err().to_string();
        assert!(e.contains(range), "{e}");
    }
}

#[test]
fn a_scale_that_resolves_beyond_the_exponents_range_is_named() {
    let x = Data::Dense(faer::mat![[0.0], [3.0], [4.0]]);
    for (factor, width) in [("1e300", "3e300"), ("1e-300", "3e-300")] {
        let spec: KernelSpec = toml::from_str(&format!(
            "kind = \"gaussian\"\nwidth = {{ times = {{ factor = {factor}, of = {{ fixed = 3.0 }} }} }}"
        ))
        .unwrap();
        let e = spec.resolve(&x).unwrap_err().to_string();
        assert!(
            e.contains("Gaussian width resolves to") && e.contains(width),
            "{e}"
        );
    }
    let fine: KernelSpec = toml::from_str(
        "kind = \"gaussian\"\nwidth = { times = { factor = 1e100, of = { fixed = 3.0 } } }",
    )
    .unwrap();
    assert!(fine.resolve(&x).is_ok());
}

/// Encoding over row blocks gives the projections, and so the codes, of
/// the whole kernel matrix bit for bit, with a matrix product in the
/// projection (as KLSH and OKH encode), over several blocks: faer's product
/// of some rows gives those rows of the whole product.
#[test]
fn codes_by_row_blocks_equal_the_codes_of_the_whole_block() {
    use hashbench_core::linalg::product;
    // blocks of 7 rows of 60 values, the last one short
    let (n, p, bits, entries) = (7 * 9 + 3, 60, 40, 7 * 60 + 5);
    let a = histograms(n, 12, 1);
    let b = histograms(p, 12, 2);
    let mut rng = ChaCha8Rng::seed_from_u64(3);
    let w = Mat::from_fn(p, bits, |_, _| rng.random::<f64>() - 0.5);
    for (a, b) in [
        (Data::Dense(a.clone()), Data::Dense(b.clone())),
        (to_sparse(&a), to_sparse(&b)),
    ] {
        for k in kernels() {
            let whole = product(k.block(&a, &b).unwrap().as_ref(), w.as_ref());
            let (mut rows, mut blocks): (Vec<Vec<f64>>, usize) = (Vec::new(), 0);
            let blocked = k
                .codes_in_blocks(&a, &b, bits, entries, |kx| {
                    let proj = product(kx.as_ref(), w.as_ref());
                    blocks += 1;
                    rows.extend((0..proj.nrows()).map(|i| proj.row(i).iter().copied().collect()));
                    proj
                })
                .unwrap();
            assert_eq!(rows.len(), n);
            assert_eq!(blocks, 10);
            for (i, row) in rows.iter().enumerate() {
                let same = row
                    .iter()
                    .zip(whole.row(i).iter())
                    .all(|(x, y)| x.to_bits() == y.to_bits());
                assert!(same, "{}: row {i} differs", k.name());
            }
            assert_eq!(
                blocked,
                BitCodes::from_projections(whole.as_ref()),
                "{}",
                k.name()
            );
        }
    }
}
