#![doc = include_str!("../README.md")]

use hashbench_core::linalg::{mean_and_scatter, top_eigenpairs};
use hashbench_core::linear::LinearModel;
use hashbench_core::method::dense_fit_input;
use hashbench_core::method::{BitLimit, Requirements, Supervision};
use hashbench_core::pairs::{adjusted_covariance, label_pair_matrix};
use hashbench_core::{FitError, HashMethod, ParamError, TrainSet};
use rand_chacha::ChaCha8Rng;
use serde::{Deserialize, Serialize};

/// PCA hashing (SPLH eq. 8); deterministic.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct PcahParams {
    /// Weight of the covariance term XᵀX/n against the labelled term averaged
    /// over pairs, X_lᵀSX_l/(l(l-1)) (paper: η). Used only when the training
    /// set has labelled items. Default 0.005, the S3PLH default, so PCAH and
    /// S3PLH adjust the same matrix.
    pub eta: f64,
}

impl Default for PcahParams {
    fn default() -> Self {
        Self { eta: 0.005 }
    }
}

impl HashMethod for PcahParams {
    type Model = LinearModel;
    const LABEL: &'static str = "PCAH";
    const PAPER: &'static str = "Wang, Kumar, Chang, \"Sequential Projection Learning for Hashing with Compact Codes\", ICML 2010 (its PCA baseline)";
    const NAME: &'static str = "pcah";
    // 2: eigenvector signs fixed (peak entry positive, `top_eigenpairs`)
    const VERSION: u32 = 2;
    const REQUIREMENTS: Requirements = Requirements {
        supervision: Supervision::Optional,
        bit_limit: BitLimit::Dimension,
        uses_spec_kernel: false,
    };

    fn fixture() -> Self {
        Self::default()
    }

    fn validate(&self) -> Result<(), ParamError> {
        ParamError::check_non_negative("eta", self.eta)
    }

    fn is_randomized(&self) -> bool {
        false
    }

    fn train(
        &self,
        train: &TrainSet<'_>,
        n_bits: usize,
        _rng: &mut ChaCha8Rng,
    ) -> Result<LinearModel, FitError> {
        let x = dense_fit_input(self, train, n_bits, 2)?;
        let (mean, scatter) = mean_and_scatter(x);
        let m = if train.labelled.len() >= 2 {
            let s = label_pair_matrix(train.labels);
            adjusted_covariance(
                train.labelled_centered(&mean).as_ref(),
                s.as_ref(),
                scatter.as_ref(),
                x.nrows(),
                self.eta,
            )
        } else {
            scatter
        };
        let (_, w) = top_eigenpairs(m.as_ref(), n_bits).map_err(FitError::from)?;
        Ok(LinearModel::new(mean, w))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use faer::Mat;
    use hashbench_core::{Data, HashModel};
    use rand::SeedableRng;

    fn fit(x: &Data, bits: usize) -> Result<LinearModel, FitError> {
        PcahParams::default().fit(
            &TrainSet::unlabelled(x),
            bits,
            &mut ChaCha8Rng::seed_from_u64(0),
        )
    }

    fn anisotropic(n: usize) -> Data {
        // coordinates with variances in ratio 100 : 9 : 1 along axes 2, 0, 1
        Data::Dense(Mat::from_fn(n, 3, |i, j| {
            let t = ((i * 7919) % n) as f64 / n as f64 - 0.5;
            let s = ((i * 104_729) % n) as f64 / n as f64 - 0.5;
            let u = ((i * 1_299_709) % n) as f64 / n as f64 - 0.5;
            [3.0 * s, u, 10.0 * t][j]
        }))
    }

    #[test]
    fn directions_are_orthonormal_and_ordered_by_variance() {
        let x = anisotropic(997);
        let m = fit(&x, 3).unwrap();
        let gram = m.w.transpose() * &m.w;
        assert!((&gram - Mat::<f64>::identity(3, 3)).norm_max() < 1e-10);
        // first direction is the high-variance axis 2, second axis 0
        assert!(m.w[(2, 0)].abs() > 0.99 && m.w[(0, 1)].abs() > 0.99);
    }

    #[test]
    fn first_bit_splits_the_top_principal_axis_at_the_mean() {
        let x = anisotropic(997);
        let m = fit(&x, 1).unwrap();
        let codes = m.encode(&x).unwrap();
        let xd = x.as_dense().unwrap();
        let sign = m.w[(2, 0)].signum();
        let agree = (0..997)
            .filter(|&i| codes.bit(i, 0) == (sign * (xd[(i, 2)] - m.mean[2]) > 0.0))
            .count();
        assert!(agree > 990, "{agree}");
    }

    #[test]
    fn labels_adjust_the_covariance_as_in_eq_8() {
        // with labels, the directions are the top eigenvectors of the adjusted matrix
        let x = anisotropic(300);
        let labelled: Vec<usize> = (0..30).collect();
        let labels: Vec<u32> = labelled
            .iter()
            .map(|&i| u32::from(x.as_dense().unwrap()[(i, 1)] > 0.0))
            .collect();
        let train = TrainSet {
            x: &x,
            labelled: &labelled,
            labels: &labels,
            memos: None,
        };
        let p = PcahParams { eta: 0.001 };
        let m = p.fit(&train, 1, &mut ChaCha8Rng::seed_from_u64(0)).unwrap();
        // labels follow axis 1, whose variance is the smallest: it wins at small η
        assert!(m.w[(1, 0)].abs() > 0.9, "{:?}", m.w);
        assert!(PcahParams { eta: f64::NAN }.validate().is_err());
    }

    #[test]
    fn deterministic_and_errors_named() {
        let x = anisotropic(101);
        assert_eq!(
            fit(&x, 2).unwrap().encode(&x).unwrap(),
            fit(&x, 2).unwrap().encode(&x).unwrap()
        );
        assert!(matches!(
            fit(&x, 4),
            Err(FitError::TooManyBits {
                max: 3,
                asked: 4,
                ..
            })
        ));
        let one = Data::Dense(Mat::zeros(1, 3));
        assert!(matches!(fit(&one, 1), Err(FitError::TooFewItems { .. })));
        let wrong = Data::Dense(Mat::zeros(2, 5));
        assert!(fit(&x, 2).unwrap().encode(&wrong).is_err());
    }
}
