#![doc = include_str!("../README.md")]

use faer::Mat;
use hashbench_core::linalg::{column_medians, project_centered, thin_svd};
use hashbench_core::linear::LinearModel;
use hashbench_core::method::{BitLimit, Requirements, Supervision, dense_fit_input};
use hashbench_core::{FitError, HashMethod, ParamError, TrainSet};
use rand_chacha::ChaCha8Rng;
use serde::{Deserialize, Serialize};

/// LSI: no hyperparameters.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LsiParams {}

impl HashMethod for LsiParams {
    type Model = LinearModel;
    const LABEL: &'static str = "LSI";
    const PAPER: &'static str = "Deerwester, Dumais, Furnas, Landauer, Harshman, \"Indexing by Latent Semantic Analysis\", JASIS 41(6), 1990";
    const NAME: &'static str = "lsi";
    const REQUIREMENTS: Requirements = Requirements {
        supervision: Supervision::None,
        bit_limit: BitLimit::Dimension,
        uses_spec_kernel: false,
    };

    fn fixture() -> Self {
        Self::default()
    }

    fn validate(&self) -> Result<(), ParamError> {
        Ok(())
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
        let x = dense_fit_input(self, train, n_bits, n_bits)?;
        let svd = thin_svd(x)?;
        let (v, s) = (svd.V(), svd.S().column_vector());
        let w = Mat::from_fn(x.ncols(), n_bits, |j, k| {
            if s[k] > 0.0 { v[(j, k)] / s[k] } else { 0.0 }
        });
        let origin = vec![0.0; x.ncols()];
        let thresholds = column_medians(project_centered(x, &origin, w.as_ref()).as_ref());
        Ok(LinearModel {
            mean: origin,
            w,
            thresholds,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use hashbench_core::{Data, HashModel};
    use rand::{RngExt, SeedableRng};

    fn data(n: usize, d: usize, seed: u64) -> Data {
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        Data::Dense(Mat::from_fn(n, d, |_, _| rng.random_range(0.0..1.0)))
    }

    fn fit(x: &Data, bits: usize) -> LinearModel {
        LsiParams {}
            .fit(
                &TrainSet::unlabelled(x),
                bits,
                &mut ChaCha8Rng::seed_from_u64(0),
            )
            .unwrap()
    }

    #[test]
    fn training_bits_are_balanced_by_construction() {
        for (n, bits) in [(60, 5), (61, 8)] {
            let x = data(n, 10, n as u64);
            let codes = fit(&x, bits).encode(&x).unwrap();
            for k in 0..bits {
                let on = (0..n).filter(|&i| codes.bit(i, k)).count();
                assert_eq!(on, n / 2, "bit {k} of {n} items");
            }
        }
    }

    #[test]
    fn the_fold_in_of_a_training_item_is_its_left_singular_vector_row() {
        let x = data(40, 6, 3);
        let model = fit(&x, 4);
        let xd = x.as_dense().unwrap();
        let svd = xd.thin_svd().unwrap();
        let folded = xd * &model.w;
        for k in 0..4 {
            // the same subspace up to the sign of each singular pair
            let sign = (folded[(0, k)] * svd.U()[(0, k)]).signum();
            for i in 0..40 {
                assert!((folded[(i, k)] - sign * svd.U()[(i, k)]).abs() < 1e-10);
            }
        }
        // uncentred: shifting the data moves the directions
        let shifted = Data::Dense(Mat::from_fn(40, 6, |i, j| xd[(i, j)] + 5.0));
        let moved = fit(&shifted, 4);
        assert!((&moved.w - &model.w).norm_l2() > 1e-3);
    }

    #[test]
    fn a_code_is_at_most_the_dimension() {
        let x = data(20, 3, 1);
        let err = LsiParams {}
            .fit(
                &TrainSet::unlabelled(&x),
                4,
                &mut ChaCha8Rng::seed_from_u64(0),
            )
            .unwrap_err();
        assert!(matches!(err, FitError::TooManyBits { max: 3, .. }), "{err}");
    }
}
