use faer::Mat;
use hashbench_core::{Data, GramRows, SparseRows, TrainSet};
use hashbench_kernel::{KernelSpec, Scale};
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;
use rand_distr::{Distribution, Normal};

use super::*;

fn gaussian_data(n: usize, d: usize, seed: u64) -> Mat<f64> {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let normal = Normal::new(0.0, 1.0).unwrap();
    // correlated, shifted columns so that centring and whitening matter
    Mat::from_fn(n, d, |_, j| {
        3.0 + (1.0 + j as f64) * normal.sample(&mut rng)
    })
}

fn params(kernel: KernelSpec, p: usize, t: usize) -> KlshParams {
    KlshParams {
        p,
        t,
        ..KlshParams::with_kernel(kernel)
    }
}

fn fit(params: &KlshParams, x: &Data, bits: usize, seed: u64) -> KlshModel {
    params
        .fit(
            &TrainSet::unlabelled(x),
            bits,
            &mut ChaCha8Rng::seed_from_u64(seed),
        )
        .unwrap()
}

#[test]
fn linear_kernel_bits_equal_the_explicit_hyperplane() {
    assert_linear_bits_are_the_hyperplane(true);
}

#[test]
fn without_query_centring_linear_bits_are_the_hyperplane_through_the_origin() {
    // eq. (9) as printed: sign(rᵀx), not sign(rᵀ(x − μ)); the data sit
    // away from the origin (mean 3), so the two differ
    assert_linear_bits_are_the_hyperplane(false);
}

/// Bits of the linear kernel against sign(rᵀ(x − c)), r = Σᵢ w(i)xᵢ in input
/// space, c the samples' mean when the query row is centred, else 0.
fn assert_linear_bits_are_the_hyperplane(centre_query: bool) {
    let x = gaussian_data(300, 8, 1);
    let data = Data::Dense(x.clone());
    let klsh = KlshParams {
        centre_query,
        ..params(KernelSpec::Linear, 60, 12)
    };
    let model = fit(&klsh, &data, 40, 7);
    let Data::Dense(s) = &model.samples else {
        panic!("dense samples")
    };
    let (p, d) = (s.nrows(), s.ncols());
    let mu: Vec<f64> = (0..d)
        .map(|j| {
            if centre_query {
                s.col(j).iter().sum::<f64>() / p as f64
            } else {
                0.0
            }
        })
        .collect();
    let codes = model.encode(&data).unwrap();
    let mut checked = 0;
    for b in 0..40 {
        let w = model.w.col(b);
        assert!(w.iter().sum::<f64>().abs() < 1e-8, "sum of w(i) is not 0");
        // r = Σᵢ w(i) xᵢ, computed in input space
        let r: Vec<f64> = (0..d)
            .map(|j| (0..p).map(|i| w[i] * s[(i, j)]).sum())
            .collect();
        for n in 0..300 {
            let v: f64 = (0..d).map(|j| r[j] * (x[(n, j)] - mu[j])).sum();
            if v.abs() > 1e-9 {
                assert_eq!(codes.bit(n, b), v > 0.0, "item {n}, bit {b}");
                checked += 1;
            }
        }
    }
    assert!(checked > 11_000);
}

#[test]
fn every_data_kind_gives_the_same_codes_for_the_same_kernel() {
    let x = gaussian_data(120, 5, 2).map(|v| v.abs());
    let dense = Data::Dense(x.clone());
    let rows: Vec<Vec<(u32, f64)>> = (0..120)
        .map(|i| (0..5).map(|j| (j as u32, x[(i, j)])).collect())
        .collect();
    let sparse = Data::Sparse(SparseRows::new(5, &rows).unwrap());
    let chi = KernelSpec::ChiSquare {
        gamma: Scale::Fixed(hashbench_core::valid::Positive::new(2.0).unwrap()),
    };
    let gram = hashbench_kernel::Kernel::ChiSquare { gamma: 2.0 }
        .block(&dense, &dense)
        .unwrap();
    let gram = Data::Gram(GramRows::new(gram).unwrap());
    let a = fit(&params(chi.clone(), 40, 10), &dense, 24, 3)
        .encode(&dense)
        .unwrap();
    let b = fit(&params(chi, 40, 10), &sparse, 24, 3)
        .encode(&sparse)
        .unwrap();
    let c = fit(&params(KernelSpec::Precomputed, 40, 10), &gram, 24, 3)
        .encode(&gram)
        .unwrap();
    assert_eq!(a, b);
    assert_eq!(a, c);
}

#[test]
fn same_seed_same_codes_and_bits_are_balanced_on_the_samples() {
    let data = Data::Dense(gaussian_data(400, 6, 4));
    let spec = KernelSpec::Gaussian {
        width: Scale::MeanDistance(200),
    };
    let m1 = fit(&params(spec.clone(), 100, 20), &data, 32, 9);
    let m2 = fit(&params(spec, 100, 20), &data, 32, 9);
    let c1 = m1.encode(&data).unwrap();
    assert_eq!(c1, m2.encode(&data).unwrap());
    // centred hyperplanes through the sample mean: no bit is constant
    for b in 0..32 {
        let ones = (0..400).filter(|&i| c1.bit(i, b)).count();
        assert!((20..380).contains(&ones), "bit {b}: {ones} ones of 400");
    }
}

#[test]
fn with_replacement_repeats_count_in_e_s() {
    let k = faer::mat![[2.0, 0.5, 0.1], [0.5, 1.0, 0.2], [0.1, 0.2, 3.0]];
    let basis = KlshBasis::new(k.as_ref(), 1e-10).unwrap();
    let twice = basis.weights(&[1, 1]);
    let once = basis.weights(&[1]);
    for (a, b) in twice.iter().zip(&once) {
        assert!((a - 2.0 * b).abs() < 1e-12);
    }
    // centred 3 x 3 matrix has rank 2
    assert_eq!(basis.rank, 2);
    let mut rng = ChaCha8Rng::seed_from_u64(1);
    let s = draw_subset(5, 5, false, &mut rng);
    let mut sorted = s.clone();
    sorted.sort_unstable();
    assert_eq!(sorted, [0, 1, 2, 3, 4]);
}

#[test]
fn bad_parameters_and_data_are_named() {
    let small = Data::Dense(gaussian_data(10, 3, 5));
    let e = params(KernelSpec::Linear, 20, 5)
        .fit(
            &TrainSet::unlabelled(&small),
            8,
            &mut ChaCha8Rng::seed_from_u64(0),
        )
        .unwrap_err();
    assert!(e.to_string().contains("20"), "{e}");
    let e = params(KernelSpec::Linear, 10, 11).validate().unwrap_err();
    assert!(e.to_string().contains("`t`"), "{e}");
    let model = fit(&params(KernelSpec::Linear, 10, 3), &small, 8, 0);
    let wrong = Data::Dense(Mat::zeros(2, 4));
    assert!(model.encode(&wrong).is_err());
}
