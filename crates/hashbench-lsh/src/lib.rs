#![doc = include_str!("../README.md")]

use faer::Mat;
use hashbench_core::data::finite_column_means;
use hashbench_core::linear::LinearModel;
use hashbench_core::method::Requirements;
use hashbench_core::method::dense_fit_shape;
use hashbench_core::{FitError, HashMethod, ParamError, TrainSet};
use rand_chacha::ChaCha8Rng;
use rand_distr::{Distribution, StandardNormal};
use serde::{Deserialize, Serialize};

/// Random-hyperplane LSH: the code length is the trial's `bits`; the
/// hyperplanes pass through the training mean, or through the origin.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LshParams {
    /// Where the hyperplanes pass (default: the training mean, SPLH's "mean
    /// thresholding"; `origin` is Charikar's sign(rᵀx), OKH's baseline).
    #[serde(default)]
    pub through: Through,
}

/// The point every hyperplane passes through.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Through {
    /// The training mean.
    #[default]
    Mean,
    /// The origin.
    Origin,
}

impl HashMethod for LshParams {
    type Model = LinearModel;
    const LABEL: &'static str = "LSH";
    const PAPER: &'static str =
        "Charikar, \"Similarity Estimation Techniques from Rounding Algorithms\", STOC 2002";
    const NAME: &'static str = "lsh";
    const REQUIREMENTS: Requirements = Requirements::UNSUPERVISED;

    fn fixture() -> Self {
        Self::default()
    }

    fn validate(&self) -> Result<(), ParamError> {
        Ok(())
    }

    fn is_randomized(&self) -> bool {
        true
    }

    fn train(
        &self,
        train: &TrainSet<'_>,
        n_bits: usize,
        rng: &mut ChaCha8Rng,
    ) -> Result<LinearModel, FitError> {
        // through the origin, nothing of the training data is read but its
        // shape; through the mean, one pass gives the means and the check
        let x = dense_fit_shape(self, train, n_bits, 1)?;
        let centre = match self.through {
            Through::Mean => finite_column_means(x)?,
            Through::Origin => vec![0.0; x.ncols()],
        };
        let w = Mat::from_fn(x.ncols(), n_bits, |_, _| StandardNormal.sample(rng));
        Ok(LinearModel::new(centre, w))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use hashbench_core::{BitCodes, Data, HashModel};
    use rand::SeedableRng;

    fn fit(x: &Data, bits: usize, seed: u64) -> LinearModel {
        LshParams::default()
            .fit(
                &TrainSet::unlabelled(x),
                bits,
                &mut ChaCha8Rng::seed_from_u64(seed),
            )
            .unwrap()
    }

    #[test]
    fn models_are_send_and_sync() {
        fn is<T: Send + Sync>() {}
        is::<LshParams>();
        is::<LinearModel>();
    }

    #[test]
    fn origin_hyperplanes_hash_the_sign_of_r_dot_x() {
        // data far from the origin: through the origin, every bit is sign(rᵀx)
        let x = Data::Dense(Mat::from_fn(40, 3, |i, j| {
            10.0 + ((i * 5 + j * 3) % 7) as f64
        }));
        let params = LshParams {
            through: Through::Origin,
        };
        let model = params
            .fit(
                &TrainSet::unlabelled(&x),
                8,
                &mut ChaCha8Rng::seed_from_u64(3),
            )
            .unwrap();
        let xd = x.as_dense().unwrap();
        let codes = model.encode(&x).unwrap();
        for i in 0..40 {
            for k in 0..8 {
                let dot: f64 = (0..3).map(|j| model.w[(j, k)] * xd[(i, j)]).sum();
                assert_eq!(codes.bit(i, k), dot > 0.0);
            }
        }
        // the same draws through the mean give other codes on this data
        let mean = fit(&x, 8, 3).encode(&x).unwrap();
        assert_ne!(codes, mean);
    }

    #[test]
    fn same_seed_same_codes_other_seed_other_codes() {
        let x = Data::Dense(Mat::from_fn(50, 4, |i, j| ((i * 13 + j * 7) % 11) as f64));
        let a = fit(&x, 16, 1).encode(&x).unwrap();
        assert_eq!(a, fit(&x, 16, 1).encode(&x).unwrap());
        assert_ne!(a, fit(&x, 16, 2).encode(&x).unwrap());
        assert_eq!((a.len(), a.n_bits()), (50, 16));
    }

    #[test]
    fn collision_rate_matches_one_minus_angle_over_pi() {
        // training mean at the origin: points ±e1, ±e2 average to zero
        let train = Data::Dense(faer::mat![[1.0, 0.0], [-1.0, 0.0], [0.0, 1.0], [0.0, -1.0]]);
        let theta: f64 = 1.0;
        let pair = Data::Dense(faer::mat![[1.0, 0.0], [theta.cos(), theta.sin()]]);
        let bits = 20_000;
        let codes: BitCodes = fit(&train, bits, 9).encode(&pair).unwrap();
        let collisions = (0..bits)
            .filter(|&j| codes.bit(0, j) == codes.bit(1, j))
            .count();
        let rate = collisions as f64 / bits as f64;
        let expected = 1.0 - theta / std::f64::consts::PI;
        // binomial standard deviation at 20k draws is about 0.0033
        assert!((rate - expected).abs() < 0.015, "{rate} vs {expected}");
    }

    #[test]
    fn rejects_zero_bits_and_nan_where_it_reads_the_values() {
        let x = Data::Dense(faer::mat![[1.0, f64::NAN]]);
        let mut rng = ChaCha8Rng::seed_from_u64(0);
        let t = TrainSet::unlabelled(&x);
        assert!(matches!(
            LshParams::default().fit(&t, 0, &mut rng),
            Err(FitError::Param(_))
        ));
        assert!(matches!(
            LshParams::default().fit(&t, 4, &mut rng),
            Err(FitError::NonFinite { row: 0, col: 1 })
        ));
        // through the origin the training values are never read
        let origin = LshParams {
            through: Through::Origin,
        };
        assert!(origin.fit(&t, 4, &mut rng).is_ok());
    }
}
