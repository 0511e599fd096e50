#![doc = include_str!("../README.md")]

use faer::{Mat, MatRef};
use hashbench_core::linalg::{column_medians, product, thin_svd};
use hashbench_core::method::{
    BitLimit, Requirements, Supervision, dense_fit_input, dense_with_dim,
};
use hashbench_core::{
    BitCodes, Data, DataMismatch, EncodeError, FitError, HashMethod, HashModel, LinalgError,
    ParamError, TrainSet,
};
use rand_chacha::ChaCha8Rng;
use serde::{Deserialize, Serialize};

/// LCH: no hyperparameters.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LchParams {}

/// The co-embedding of the training items and features: the singular pairs
/// 2..m+1 of Aₙ = D₁^−½ A D₂^−½.
#[derive(Debug, Clone)]
pub struct CoEmbedding {
    /// Left singular vectors uₖ (items × m).
    pub u: Mat<f64>,
    /// Right singular vectors vₖ (features × m).
    pub v: Mat<f64>,
    /// Singular values σₖ.
    pub sigma: Vec<f64>,
    /// D₁^−½ (0 for an empty item).
    pub item_scale: Vec<f64>,
    /// D₂^−½ (0 for a feature no item has).
    pub feature_scale: Vec<f64>,
}

/// D^−½ of degrees, 0 where a degree is 0.
fn inv_sqrt(degrees: impl Iterator<Item = f64>) -> Vec<f64> {
    degrees
        .map(|d| if d > 0.0 { 1.0 / d.sqrt() } else { 0.0 })
        .collect()
}

impl CoEmbedding {
    /// The `m`-dimensional co-embedding of the nonnegative rows of `a`.
    ///
    /// # Errors
    /// [`LinalgError`] when the SVD fails.
    pub fn of(a: MatRef<'_, f64>, m: usize) -> Result<CoEmbedding, LinalgError> {
        let item_scale = inv_sqrt((0..a.nrows()).map(|i| a.row(i).sum()));
        let feature_scale = inv_sqrt((0..a.ncols()).map(|j| a.col(j).sum()));
        let normalised = Mat::from_fn(a.nrows(), a.ncols(), |i, j| {
            item_scale[i] * a[(i, j)] * feature_scale[j]
        });
        let svd = thin_svd(normalised.as_ref())?;
        let s = svd.S().column_vector();
        Ok(CoEmbedding {
            u: svd.U().subcols(1, m).to_owned(),
            v: svd.V().subcols(1, m).to_owned(),
            sigma: (1..=m).map(|k| s[k]).collect(),
            item_scale,
            feature_scale,
        })
    }
}

/// Fitted LCH: bit k of x is (x P)ₖ / Σⱼ xⱼ > tₖ, with P = D₂^−½ V Σ⁻¹.
#[derive(Debug, Clone)]
pub struct LchModel {
    /// The fold-in projection P (features × bits).
    pub projection: Mat<f64>,
    /// Median of each bit's training embedding.
    pub thresholds: Vec<f64>,
}

impl LchModel {
    /// The embedding y(x) = (x P) / Σⱼ xⱼ of each row (0 for an empty row).
    pub fn embed(&self, x: MatRef<'_, f64>) -> Mat<f64> {
        let p = product(x, self.projection.as_ref());
        let mass: Vec<f64> = (0..x.nrows()).map(|i| x.row(i).sum()).collect();
        Mat::from_fn(p.nrows(), p.ncols(), |i, k| {
            if mass[i] > 0.0 {
                p[(i, k)] / mass[i]
            } else {
                0.0
            }
        })
    }
}

impl HashModel for LchModel {
    fn n_bits(&self) -> usize {
        self.thresholds.len()
    }

    fn encode(&self, data: &Data) -> Result<BitCodes, EncodeError> {
        let x = dense_with_dim(data, self.projection.nrows())?;
        let y = self.embed(x);
        Ok(BitCodes::from_fn(y.nrows(), y.ncols(), |i, k| {
            y[(i, k)] > self.thresholds[k]
        }))
    }
}

/// The first negative entry of `x`, as (row, column, value).
fn first_negative(x: MatRef<'_, f64>) -> Option<(usize, usize, f64)> {
    (0..x.nrows())
        .flat_map(|i| (0..x.ncols()).map(move |j| (i, j)))
        .map(|(i, j)| (i, j, x[(i, j)]))
        .find(|e| e.2 < 0.0)
}

impl HashMethod for LchParams {
    type Model = LchModel;
    const LABEL: &'static str = "LCH";
    const PAPER: &'static str =
        "Zhang, Wang, Cai, Lu, \"Laplacian Co-Hashing of Terms and Documents\", ECIR 2010";
    const NAME: &'static str = "lch";
    const REQUIREMENTS: Requirements = Requirements {
        supervision: Supervision::None,
        bit_limit: BitLimit::BelowDimension,
        uses_spec_kernel: false,
    };

    fn fixture() -> Self {
        Self::default()
    }

    fn check_data(&self, data: &Data) -> Result<(), DataMismatch> {
        let x = data.as_dense().ok_or_else(|| DataMismatch {
            method: Self::LABEL,
            needs: "dense vectors".into(),
            found: format!("the dataset holds {}", data.kind()),
        })?;
        match first_negative(x) {
            None => Ok(()),
            Some((i, j, v)) => Err(DataMismatch {
                method: Self::LABEL,
                needs: "nonnegative features (the weights of an item-feature graph)".into(),
                found: format!("item {i}, feature {j} is {v}"),
            }),
        }
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
    ) -> Result<LchModel, FitError> {
        let x = dense_fit_input(self, train, n_bits, n_bits + 1)?;
        if first_negative(x).is_some() {
            return Err(FitError::UnsupportedData {
                method: "lch",
                needs: "nonnegative dense vector",
                got: "dense vectors with negative entries",
            });
        }
        let co = CoEmbedding::of(x, n_bits)?;
        let projection = Mat::from_fn(x.ncols(), n_bits, |j, k| {
            if co.sigma[k] > 0.0 {
                co.feature_scale[j] * co.v[(j, k)] / co.sigma[k]
            } else {
                0.0
            }
        });
        let mut model = LchModel {
            projection,
            thresholds: Vec::new(),
        };
        model.thresholds = column_medians(model.embed(x).as_ref());
        Ok(model)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::{RngExt, SeedableRng};

    fn data(n: usize, d: usize, seed: u64) -> Mat<f64> {
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        // sparse-ish nonnegative rows, as term weights
        Mat::from_fn(n, d, |_, _| {
            let v: f64 = rng.random_range(0.0..1.0);
            if v < 0.5 { 0.0 } else { v }
        })
    }

    #[test]
    fn the_co_embedding_is_a_singular_vector_pair_and_training_items_fold_in_to_it() {
        let a = data(50, 12, 4);
        let m = 5;
        let co = CoEmbedding::of(a.as_ref(), m).unwrap();
        let an = Mat::from_fn(50, 12, |i, j| {
            co.item_scale[i] * a[(i, j)] * co.feature_scale[j]
        });
        for k in 0..m {
            let av = &an * co.v.col(k);
            let atu = an.transpose() * co.u.col(k);
            for i in 0..50 {
                assert!(
                    (av[i] - co.sigma[k] * co.u[(i, k)]).abs() < 1e-10,
                    "Aₙv = σu"
                );
            }
            for j in 0..12 {
                assert!(
                    (atu[j] - co.sigma[k] * co.v[(j, k)]).abs() < 1e-10,
                    "Aₙᵀu = σv"
                );
            }
            assert!(
                co.sigma[k] < 1.0 - 1e-9,
                "the trivial pair (σ = 1) is dropped"
            );
        }
        // the dropped pair is the degrees' square roots, with σ = 1
        let d1: Vec<f64> = (0..50).map(|i| a.row(i).sum()).collect();
        let trivial = Mat::from_fn(50, 1, |i, _| d1[i].sqrt());
        let top = an.thin_svd().unwrap();
        assert!((top.S().column_vector()[0] - 1.0).abs() < 1e-10);
        let cos = (trivial.col(0).transpose() * top.U().col(0)).abs() / trivial.norm_l2();
        assert!((cos - 1.0).abs() < 1e-10);
        // fold-in of the training items gives Y = D₁^−½ U
        let x = Data::Dense(a.clone());
        let model = LchParams {}
            .fit(
                &TrainSet::unlabelled(&x),
                m,
                &mut ChaCha8Rng::seed_from_u64(0),
            )
            .unwrap();
        let y = model.embed(a.as_ref());
        for k in 0..m {
            let sign = (y[(0, k)] * co.u[(0, k)]).signum();
            for i in 0..50 {
                let expected = sign * co.item_scale[i] * co.u[(i, k)];
                assert!((y[(i, k)] - expected).abs() < 1e-10);
            }
        }
        let codes = model.encode(&x).unwrap();
        for k in 0..m {
            assert_eq!((0..50).filter(|&i| codes.bit(i, k)).count(), 25);
        }
    }

    #[test]
    fn negative_features_are_refused_before_a_trial() {
        let mut a = data(20, 6, 2);
        a[(3, 4)] = -0.5;
        let err = LchParams {}.check_data(&Data::Dense(a)).unwrap_err();
        assert_eq!(err.method, "LCH");
        assert_eq!(err.found, "item 3, feature 4 is -0.5");
        assert!(err.needs.starts_with("nonnegative features"), "{err}");
    }
}
