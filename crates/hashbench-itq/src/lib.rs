#![doc = include_str!("../README.md")]

use faer::{Mat, MatMut, MatRef};
use hashbench_core::linalg::{
    mean_and_scatter, orthogonal_from, procrustes_rotation, product, product_into,
    project_centered, top_eigenpairs,
};
use hashbench_core::linear::LinearModel;
use hashbench_core::method::{BitLimit, Requirements, Supervision, dense_fit_input};
use hashbench_core::{FitError, HashMethod, LinalgError, ParamError, TrainSet};
use rand_chacha::ChaCha8Rng;
use rand_distr::{Distribution, StandardNormal};
use serde::{Deserialize, Serialize};

/// ITQ hyperparameters (Gong and Lazebnik, CVPR 2011, Sec. 2.3).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct ItqParams {
    /// Alternating iterations of codes and rotation (paper: 50).
    pub iterations: usize,
}

impl Default for ItqParams {
    fn default() -> Self {
        Self { iterations: 50 }
    }
}

/// ±1 codes of the rotated projections, sgn(V R) with 0 mapped to +1,
/// written into `b`.
fn signs_into(vr: MatRef<'_, f64>, mut b: MatMut<'_, f64>) {
    for j in 0..vr.ncols() {
        for (out, &v) in b.as_mut().col_mut(j).iter_mut().zip(vr.col(j).iter()) {
            *out = if v >= 0.0 { 1.0 } else { -1.0 };
        }
    }
}

/// ‖sgn(V R) − V R‖²_F from the rotated projections alone: each entry
/// contributes (1 − |v|)², which is (sgn v − v)² exactly.
fn loss_of(vr: MatRef<'_, f64>) -> f64 {
    vr.col_iter()
        .map(|c| c.iter().map(|v| (1.0 - v.abs()).powi(2)).sum::<f64>())
        .sum()
}

/// The quantisation loss ‖B − V R‖²_F with B = sgn(V R).
pub fn quantisation_loss(v: MatRef<'_, f64>, r: MatRef<'_, f64>) -> f64 {
    loss_of(product(v, r).as_ref())
}

/// Alternates B = sgn(V R) and R = the Procrustes rotation of V onto B,
/// `iterations` times from `r`; returns the rotation and the loss after each
/// rotation update (never increasing: each step minimises over one factor).
/// Each iteration takes two products with V: the V R that gives the loss
/// also gives the next codes.
///
/// # Errors
/// A failed SVD.
pub fn rotate(
    v: MatRef<'_, f64>,
    mut r: Mat<f64>,
    iterations: usize,
) -> Result<(Mat<f64>, Vec<f64>), LinalgError> {
    let mut losses = Vec::with_capacity(iterations);
    let mut vr = product(v, r.as_ref());
    let mut b = Mat::zeros(vr.nrows(), vr.ncols());
    for _ in 0..iterations {
        signs_into(vr.as_ref(), b.as_mut());
        r = procrustes_rotation(b.as_ref(), v)?;
        product_into(vr.as_mut(), v, r.as_ref());
        losses.push(loss_of(vr.as_ref()));
    }
    Ok((r, losses))
}

impl HashMethod for ItqParams {
    type Model = LinearModel;
    const LABEL: &'static str = "ITQ";
    const PAPER: &'static str = "Gong, Lazebnik, \"Iterative Quantization: A Procrustean Approach to Learning Binary Codes\", CVPR 2011";
    const NAME: &'static str = "itq";
    // 2: eigenvector signs fixed (peak entry positive, `top_eigenpairs`)
    const VERSION: u32 = 2;
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
        true
    }

    fn train(
        &self,
        train: &TrainSet<'_>,
        n_bits: usize,
        rng: &mut ChaCha8Rng,
    ) -> Result<LinearModel, FitError> {
        let x = dense_fit_input(self, train, n_bits, 2)?;
        let (mean, scatter) = mean_and_scatter(x);
        let (_, pcs) = top_eigenpairs(scatter.as_ref(), n_bits).map_err(FitError::from)?;
        let v = project_centered(x, &mean, pcs.as_ref());
        let gaussian = Mat::from_fn(n_bits, n_bits, |_, _| StandardNormal.sample(rng));
        let start = orthogonal_from(gaussian.as_ref()).map_err(FitError::from)?;
        let (r, _) = rotate(v.as_ref(), start, self.iterations).map_err(FitError::from)?;
        Ok(LinearModel::new(mean, product(pcs.as_ref(), r.as_ref())))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use hashbench_core::{Data, HashModel};
    use rand::SeedableRng;

    /// Four Gaussian clusters in 6-d.
    fn clusters(n: usize) -> Mat<f64> {
        let mut rng = ChaCha8Rng::seed_from_u64(2);
        Mat::from_fn(n, 6, |i, j| {
            let g: f64 = StandardNormal.sample(&mut rng);
            let centre = if i % 4 == j % 4 { 4.0 } else { 0.0 };
            centre + g
        })
    }

    #[test]
    fn the_quantisation_loss_never_increases_and_ends_below_pca() {
        let x = clusters(400);
        let (mean, scatter) = mean_and_scatter(x.as_ref());
        let (_, pcs) = top_eigenpairs(scatter.as_ref(), 4).unwrap();
        let v = project_centered(x.as_ref(), &mean, pcs.as_ref());
        let mut rng = ChaCha8Rng::seed_from_u64(3);
        let start =
            orthogonal_from(Mat::from_fn(4, 4, |_, _| StandardNormal.sample(&mut rng)).as_ref())
                .unwrap();
        let first = quantisation_loss(v.as_ref(), start.as_ref());
        let (r, losses) = rotate(v.as_ref(), start, 50).unwrap();
        assert!(losses[0] <= first + 1e-9, "{first} -> {}", losses[0]);
        for w in losses.windows(2) {
            assert!(w[1] <= w[0] + 1e-9, "{losses:?}");
        }
        // the rotation stays orthogonal, and beats PCA's own axes (R = I)
        let gram = r.transpose() * &r;
        assert!((&gram - Mat::<f64>::identity(4, 4)).norm_max() < 1e-10);
        let pca = quantisation_loss(v.as_ref(), Mat::<f64>::identity(4, 4).as_ref());
        assert!(losses[49] < pca, "{} vs PCA {pca}", losses[49]);
    }

    #[test]
    fn seeds_give_codes_and_more_bits_than_dimensions_are_refused() {
        let x = Data::Dense(clusters(100));
        let fit = |seed: u64, bits: usize| {
            ItqParams::default().fit(
                &TrainSet::unlabelled(&x),
                bits,
                &mut ChaCha8Rng::seed_from_u64(seed),
            )
        };
        let a = fit(1, 4).unwrap().encode(&x).unwrap();
        assert_eq!(a, fit(1, 4).unwrap().encode(&x).unwrap());
        assert_eq!((a.len(), a.n_bits()), (100, 4));
        assert!(matches!(
            fit(1, 7),
            Err(FitError::TooManyBits { max: 6, .. })
        ));
    }
}
