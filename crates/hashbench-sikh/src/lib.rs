#![doc = include_str!("../README.md")]

use std::f64::consts::PI;

use faer::Mat;
use hashbench_core::linalg::product;
use hashbench_core::method::{check_n_bits, dense_with_dim};
use hashbench_core::{
    BitCodes, Data, EncodeError, FitError, HashMethod, HashModel, ParamError, TrainSet,
};
use rand::RngExt;
use rand_chacha::ChaCha8Rng;
use rand_distr::{Distribution, Normal};
use serde::{Deserialize, Serialize};

/// How the Gaussian kernel width σ is set.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case", deny_unknown_fields)]
pub enum Width {
    /// σ given directly.
    Fixed(f64),
    /// σ = mean distance between this many random pairs of training items.
    MeanDistance(usize),
}

/// SIKH hyperparameters.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct SikhParams {
    /// Gaussian kernel width σ (paper: γ = 1/σ²). Default: mean distance of 1000 pairs.
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

impl HashMethod for SikhParams {
    type Model = SikhModel;

    fn validate(&self) -> Result<(), ParamError> {
        match self.width {
            Width::Fixed(s) if !(s.is_finite() && s > 0.0) => Err(ParamError::invalid(
                "width.fixed",
                s,
                "the kernel width must be positive and finite",
            )),
            Width::MeanDistance(0) => Err(ParamError::invalid(
                "width.mean-distance",
                0,
                "needs at least one pair",
            )),
            _ => Ok(()),
        }
    }

    fn is_randomized(&self) -> bool {
        true
    }

    fn fit(
        &self,
        train: &TrainSet<'_>,
        n_bits: usize,
        rng: &mut ChaCha8Rng,
    ) -> Result<SikhModel, FitError> {
        self.validate()?;
        check_n_bits(n_bits)?;
        let x = train.dense_finite("sikh", 2)?;
        let sigma = match self.width {
            Width::Fixed(s) => s,
            Width::MeanDistance(pairs) => {
                let n = x.nrows();
                let total: f64 = (0..pairs)
                    .map(|_| {
                        let i = rng.random_range(0..n);
                        let j = (i + rng.random_range(1..n)) % n;
                        (0..x.ncols())
                            .map(|c| (x[(i, c)] - x[(j, c)]).powi(2))
                            .sum::<f64>()
                            .sqrt()
                    })
                    .sum();
                total / pairs as f64
            }
        };
        if sigma.is_nan() || sigma <= 0.0 {
            return Err(FitError::Param(ParamError::invalid(
                "width",
                sigma,
                "training items are all identical",
            )));
        }
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
        let p = product(x, self.w.as_ref());
        Ok(BitCodes::from_fn(x.nrows(), self.w.ncols(), |i, k| {
            (p[(i, k)] + self.phase[k]).cos() + self.threshold[k] > 0.0
        }))
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
            width: Width::Fixed(1.0),
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
            width: Width::Fixed(1.0),
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
        let train = Data::Dense(Mat::from_fn(2, 1, |i, _| 4.0 * i as f64));
        let m = fit(&SikhParams::default(), &train, 4, 1).unwrap();
        assert_eq!(m.sigma, 4.0);
    }

    #[test]
    fn seeds_and_validation() {
        let x = Data::Dense(Mat::from_fn(30, 3, |i, j| ((i * 5 + j) % 7) as f64));
        let p = SikhParams::default();
        let a = fit(&p, &x, 32, 1).unwrap().encode(&x).unwrap();
        assert_eq!(a, fit(&p, &x, 32, 1).unwrap().encode(&x).unwrap());
        assert_ne!(a, fit(&p, &x, 32, 2).unwrap().encode(&x).unwrap());
        assert!(
            SikhParams {
                width: Width::Fixed(-1.0)
            }
            .validate()
            .is_err()
        );
        assert!(
            SikhParams {
                width: Width::MeanDistance(0)
            }
            .validate()
            .is_err()
        );
        let same = Data::Dense(Mat::zeros(4, 2));
        assert!(fit(&p, &same, 4, 0).is_err());
    }
}
