#![doc = include_str!("../README.md")]

use std::f64::consts::PI;

use faer::Mat;
use hashbench_core::linalg::{for_each_column_mut, product};
use hashbench_core::method::Requirements;
use hashbench_core::method::{dense_fit_input, dense_with_dim};
use hashbench_core::{
    BitCodes, Data, EncodeError, FitError, HashMethod, HashModel, ParamError, TrainSet,
};
use hashbench_kernel::{Kernel, KernelSpec};
use hashbench_simd::math::cos_in_place;
use rand::RngExt;
use rand_chacha::ChaCha8Rng;
use rand_distr::{Distribution, Normal};
use serde::{Deserialize, Serialize};

/// How the Gaussian kernel width σ is set (shared with the kernel crate, so
/// that SIKH and a kernel method given the same policy use the same σ).
pub use hashbench_kernel::Scale as Width;

/// SIKH hyperparameters.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct SikhParams {
    /// Gaussian kernel width σ (paper: γ = 1/σ²). Default: mean distance over
    /// all pairs of 1000 evenly spaced training items.
    pub width: Width,
}

impl Default for SikhParams {
    fn default() -> Self {
        Self {
            width: Width::MeanDistance(1000),
        }
    }
}

/// A fitted SIKH model.
#[derive(Debug, Clone)]
pub struct SikhModel {
    /// Frequencies, one column per bit.
    w: Mat<f64>,
    /// Phases b.
    phase: Vec<f64>,
    /// Thresholds t.
    threshold: Vec<f64>,
    /// The σ used.
    pub sigma: f64,
}

impl SikhParams {
    /// The Gaussian kernel these hash functions approximate.
    pub fn kernel(&self) -> KernelSpec {
        KernelSpec::Gaussian {
            width: self.width.clone(),
        }
    }
}

impl HashMethod for SikhParams {
    type Model = SikhModel;
    const LABEL: &'static str = "SIKH";
    const PAPER: &'static str = "Raginsky, Lazebnik, \"Locality-Sensitive Binary Codes from Shift-Invariant Kernels\", NIPS 2009";
    const NAME: &'static str = "sikh";
    // 2: cos by hashbench_simd::math (the same bits on every machine)
    const VERSION: u32 = 2;
    const REQUIREMENTS: Requirements = Requirements::UNSUPERVISED;

    fn fixture() -> Self {
        Self::default()
    }

    fn validate(&self) -> Result<(), ParamError> {
        self.kernel().validate()
    }

    fn is_randomized(&self) -> bool {
        true
    }

    fn train(
        &self,
        train: &TrainSet<'_>,
        n_bits: usize,
        rng: &mut ChaCha8Rng,
    ) -> Result<SikhModel, FitError> {
        let x = dense_fit_input(self, train, n_bits, 2)?;
        let sigma = match self.kernel().resolve(train.x) {
            Ok(Kernel::Gaussian { sigma }) => sigma,
            Ok(other) => unreachable!("a Gaussian spec resolves to {other:?}"),
            Err(e) => return Err(FitError::kernel(e)),
        };
        let normal = Normal::new(0.0, 1.0 / sigma).expect("positive standard deviation");
        let w = Mat::from_fn(x.ncols(), n_bits, |_, _| normal.sample(rng));
        let phase = (0..n_bits)
            .map(|_| rng.random_range(0.0..2.0 * PI))
            .collect();
        let threshold = (0..n_bits).map(|_| rng.random_range(-1.0..1.0)).collect();
        Ok(SikhModel {
            w,
            phase,
            threshold,
            sigma,
        })
    }
}

impl HashModel for SikhModel {
    fn n_bits(&self) -> usize {
        self.w.ncols()
    }

    fn encode(&self, data: &Data) -> Result<BitCodes, EncodeError> {
        let x = dense_with_dim(data, self.w.nrows())?;
        let mut p = product(x, self.w.as_ref());
        // cos(w·x + b) + t per bit, one column at a time
        for_each_column_mut(&mut p, |k, values| {
            values.iter_mut().for_each(|v| *v += self.phase[k]);
            cos_in_place(values);
            values.iter_mut().for_each(|v| *v += self.threshold[k]);
        });
        Ok(BitCodes::from_projections(p.as_ref()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::SeedableRng;

    fn fit(p: &SikhParams, x: &Data, bits: usize, seed: u64) -> Result<SikhModel, FitError> {
        p.fit(
            &TrainSet::unlabelled(x),
            bits,
            &mut ChaCha8Rng::seed_from_u64(seed),
        )
    }

    #[test]
    fn collision_rate_at_zero_and_infinite_distance() {
        // Identical points always collide. For points so far apart that K ≈ 0,
        // cos(wᵀx + b) and cos(wᵀy + b) are independent arcsine variables sharing
        // the threshold t, so P(collide) = E_t[F(t)² + (1 − F(t))²] with
        // F(t) = 1/2 + arcsin(t)/π, which is 1/2 + 2(1/4 − 2/π²) = 1 − 4/π²
        // (Raginsky and Lazebnik, Lemma 2.1, at K = 0).
        let p = SikhParams {
            width: Width::Fixed(hashbench_core::valid::Positive::new(1.0).unwrap()),
        };
        let train = Data::Dense(Mat::from_fn(10, 1, |i, _| i as f64));
        let m = fit(&p, &train, 20_000, 3).unwrap();
        let pts = Data::Dense(faer::mat![[0.0], [0.0], [50.0]]);
        let c = m.encode(&pts).unwrap();
        let agree =
            |a, b| (0..20_000).filter(|&k| c.bit(a, k) == c.bit(b, k)).count() as f64 / 20_000.0;
        assert_eq!(agree(0, 1), 1.0);
        let expected = 1.0 - 4.0 / (PI * PI);
        // binomial standard deviation at 20k draws is about 0.0035
        assert!(
            (agree(0, 2) - expected).abs() < 0.015,
            "{} vs {expected}",
            agree(0, 2)
        );
    }

    #[test]
    fn nearby_points_collide_more_than_distant_ones() {
        let p = SikhParams {
            width: Width::Fixed(hashbench_core::valid::Positive::new(1.0).unwrap()),
        };
        let train = Data::Dense(Mat::from_fn(10, 1, |i, _| i as f64));
        let m = fit(&p, &train, 20_000, 4).unwrap();
        let pts = Data::Dense(faer::mat![[0.0], [0.3], [1.0], [3.0]]);
        let c = m.encode(&pts).unwrap();
        let agree = |b| (0..20_000).filter(|&k| c.bit(0, k) == c.bit(b, k)).count();
        assert!(agree(1) > agree(2) && agree(2) > agree(3));
    }

    #[test]
    fn mean_distance_width_is_learned_from_training_data() {
        // points 0, 4, 12: pairwise distances 4, 12, 8 -> mean 8
        let train = Data::Dense(faer::mat![[0.0], [4.0], [12.0]]);
        let m = fit(&SikhParams::default(), &train, 4, 1).unwrap();
        assert_eq!(m.sigma, 8.0);
    }

    #[test]
    fn seeds_and_validation() {
        let x = Data::Dense(Mat::from_fn(30, 3, |i, j| ((i * 5 + j) % 7) as f64));
        let p = SikhParams::default();
        let a = fit(&p, &x, 32, 1).unwrap().encode(&x).unwrap();
        assert_eq!(a, fit(&p, &x, 32, 1).unwrap().encode(&x).unwrap());
        assert_ne!(a, fit(&p, &x, 32, 2).unwrap().encode(&x).unwrap());
        // a negative width cannot be built, nor read
        assert!(hashbench_core::valid::Positive::new(-1.0).is_err());
        assert!(toml::from_str::<SikhParams>("width = { fixed = -1.0 }").is_err());
        assert!(
            SikhParams {
                width: Width::MeanDistance(1)
            }
            .validate()
            .is_err()
        );
        let same = Data::Dense(Mat::zeros(4, 2));
        assert!(fit(&p, &same, 4, 0).is_err());
    }
}
