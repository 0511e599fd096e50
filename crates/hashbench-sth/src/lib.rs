#![doc = include_str!("../README.md")]

use std::time::Instant;

use faer::Mat;
use hashbench_core::linalg::column_medians;
use hashbench_core::linear::{LinearModel, LoggedLinearModel};
use hashbench_core::method::{FitLog, FitLogNames, Requirements, dense_fit_input};
use hashbench_core::{FitError, HashMethod, ParamError, TrainSet};
use hashbench_solvers::{KnnGraph, SolverError, SvmData, SvmParams};
use rand_chacha::ChaCha8Rng;
use serde::{Deserialize, Serialize};

/// STH's hyperparameters.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SthParams {
    /// Neighbours of each item in the cosine kNN graph (SpaH: 25).
    #[serde(default = "default_neighbours")]
    pub neighbours: usize,
}

fn default_neighbours() -> usize {
    25
}

impl Default for SthParams {
    fn default() -> Self {
        SthParams {
            neighbours: default_neighbours(),
        }
    }
}

/// The Laplacian eigenmap's codes of the training items: the `bits`
/// smallest non-trivial generalised eigenvectors of the cosine kNN graph,
/// each thresholded at its median (±1), and their eigenvalues.
///
/// # Errors
/// The graph's or the eigensolver's [`SolverError`].
pub fn eigenmap_codes(
    x: faer::MatRef<'_, f64>,
    neighbours: usize,
    bits: usize,
) -> Result<(Mat<f64>, Vec<f64>), SolverError> {
    let graph = KnnGraph::cosine(x, neighbours)?;
    let (values, y) = graph.smallest_generalised_eigenvectors(bits + 1)?;
    let y = y.subcols(1, bits);
    let medians = column_medians(y);
    let codes = Mat::from_fn(y.nrows(), bits, |i, k| {
        if y[(i, k)] > medians[k] { 1.0 } else { -1.0 }
    });
    Ok((codes, values[1..].to_vec()))
}

impl HashMethod for SthParams {
    type Model = LoggedLinearModel;
    const LABEL: &'static str = "STH";
    const PAPER: &'static str =
        "Zhang, Wang, Cai, Lu, \"Self-Taught Hashing for Fast Similarity Search\", SIGIR 2010";
    const NAME: &'static str = "sth";
    // 2: the eigenmap by Lanczos (faer's Krylov-Schur stalled on MNIST);
    // 3: Ritz vector signs fixed (peak entry positive, `top_eigenpairs`);
    // then one per SVM change (`svm::REVISION`: 4, eight partial sums;
    // 5, shrinking; 6, the primal Newton solver, bits in parallel);
    // 7: Lanczos by blocked classical Gram-Schmidt, its basis growing by half;
    // 8: the graph's components' indicators taken as they are, Lanczos for the rest;
    // 9: Lanczos thick-restarted, N's entries formed once (the same vectors up to rounding)
    const VERSION: u32 = 6 + hashbench_solvers::svm::REVISION;
    const REQUIREMENTS: Requirements = Requirements::UNSUPERVISED;
    const FIT_LOG: FitLogNames = FitLogNames {
        facts: &["svm-iterations-mean", "svm-unconverged"],
        per_bit: &["eigenvalue"],
        seconds: &["graph-and-eigen-seconds", "svm-seconds"],
        checks: &[],
    };

    fn fixture() -> Self {
        Self { neighbours: 3 }
    }

    fn validate(&self) -> Result<(), ParamError> {
        if self.neighbours == 0 {
            return Err(ParamError::invalid(
                "neighbours",
                0,
                "the kNN graph needs at least one neighbour",
            ));
        }
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
    ) -> Result<LoggedLinearModel, FitError> {
        let x = dense_fit_input(self, train, n_bits, self.neighbours + 1)?;
        if n_bits + 1 >= x.nrows() {
            return Err(FitError::TooFewItems {
                method: "sth",
                needed: n_bits + 2,
                got: x.nrows(),
            });
        }
        let start = Instant::now();
        let (codes, eigenvalues) =
            eigenmap_codes(x, self.neighbours, n_bits).map_err(FitError::solver)?;
        let eigen_seconds = start.elapsed().as_secs_f64();
        let start = Instant::now();
        let svms = SvmData::new(x)
            .train_columns(codes.as_ref(), SvmParams::default())
            .map_err(FitError::solver)?;
        let log = FitLog {
            facts: vec![
                (
                    "svm-iterations-mean".into(),
                    svms.iterations as f64 / n_bits as f64,
                ),
                ("svm-unconverged".into(), svms.unconverged as f64),
            ],
            per_bit: vec![("eigenvalue".into(), eigenvalues)],
            seconds: vec![
                ("graph-and-eigen-seconds".into(), eigen_seconds),
                ("svm-seconds".into(), start.elapsed().as_secs_f64()),
            ],
        };
        Ok(LoggedLinearModel {
            hash: LinearModel {
                mean: vec![0.0; x.ncols()],
                w: svms.w,
                thresholds: svms.thresholds,
            },
            log,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use hashbench_core::{Data, HashModel};
    use rand::{RngExt, SeedableRng};

    /// Two well-separated nonnegative clusters.
    fn clusters(n: usize, seed: u64) -> Mat<f64> {
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        Mat::from_fn(n, 6, |i, j| {
            let base = if (i < n / 2) == (j < 3) { 1.0 } else { 0.05 };
            base + rng.random_range(0.0..0.1)
        })
    }

    #[test]
    fn eigenmap_bits_are_median_split_and_the_first_separates_the_clusters() {
        let x = clusters(80, 1);
        let (codes, values) = eigenmap_codes(x.as_ref(), 5, 3).unwrap();
        for k in 0..3 {
            assert_eq!((0..80).filter(|&i| codes[(i, k)] > 0.0).count(), 40);
        }
        assert!(values.windows(2).all(|p| p[0] <= p[1]));
        let first = codes[(0, 0)];
        assert!((0..40).all(|i| codes[(i, 0)] == first));
        assert!((40..80).all(|i| codes[(i, 0)] == -first));
    }

    #[test]
    fn svms_reproduce_the_training_codes_on_separable_bits() {
        let xm = clusters(80, 2);
        let x = Data::Dense(xm.clone());
        let model = SthParams { neighbours: 5 }
            .fit(
                &TrainSet::unlabelled(&x),
                1,
                &mut ChaCha8Rng::seed_from_u64(9),
            )
            .unwrap();
        let (codes, _) = eigenmap_codes(xm.as_ref(), 5, 1).unwrap();
        let got = model.encode(&x).unwrap();
        for i in 0..80 {
            assert_eq!(got.bit(i, 0), codes[(i, 0)] > 0.0, "item {i}");
        }
        // deterministic: another trial seed gives the same model
        let again = SthParams { neighbours: 5 }
            .fit(
                &TrainSet::unlabelled(&x),
                1,
                &mut ChaCha8Rng::seed_from_u64(10),
            )
            .unwrap();
        assert_eq!(again.encode(&x).unwrap(), got);
    }
}
