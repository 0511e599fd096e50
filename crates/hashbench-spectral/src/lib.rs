#![doc = include_str!("../README.md")]

use std::f64::consts::{FRAC_PI_2, PI};

use faer::Mat;
use hashbench_core::linalg::{mean_and_scatter, project_centered, top_eigenpairs};
use hashbench_core::method::Requirements;
use hashbench_core::method::{dense_fit_input, dense_with_dim};
use hashbench_core::{
    BitCodes, Data, EncodeError, FitError, HashMethod, HashModel, ParamError, TrainSet,
};
use hashbench_simd::math::sin_in_place;
use rand_chacha::ChaCha8Rng;
use serde::{Deserialize, Serialize};

/// Spectral Hashing. No hyperparameters (ε does not affect which modes are
/// chosen); deterministic.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SpectralParams {}

/// One selected eigenfunction: principal direction `dim`, mode number `m`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Mode {
    /// Principal direction index (0 = largest variance).
    pub dim: usize,
    /// Mode number m ≥ 1.
    pub m: usize,
    /// Angular frequency mπ/(bⱼ − aⱼ).
    pub omega: f64,
}

/// A fitted Spectral Hashing model.
#[derive(Debug, Clone)]
pub struct SpectralModel {
    mean: Vec<f64>,
    pc: Mat<f64>,
    lower: Vec<f64>,
    modes: Vec<Mode>,
}

impl SpectralModel {
    /// The eigenfunction behind each bit, in bit order.
    pub fn modes(&self) -> &[Mode] {
        &self.modes
    }
}

impl HashMethod for SpectralParams {
    type Model = SpectralModel;
    const LABEL: &'static str = "SH";
    const PAPER: &'static str = "Weiss, Torralba, Fergus, \"Spectral Hashing\", NIPS 2008";
    const NAME: &'static str = "spectral";
    // 2: eigenvector signs fixed (peak entry positive, `top_eigenpairs`), sin by
    // hashbench_simd::math (the same bits on every machine)
    const VERSION: u32 = 2;
    const REQUIREMENTS: Requirements = Requirements::UNSUPERVISED;

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
    ) -> Result<SpectralModel, FitError> {
        let x = dense_fit_input(self, train, n_bits, 2)?;
        let n_pc = n_bits.min(x.ncols());
        let (mean, scatter) = mean_and_scatter(x);
        let (_, pc) = top_eigenpairs(scatter.as_ref(), n_pc).map_err(FitError::from)?;
        let proj = project_centered(x, &mean, pc.as_ref());
        let (mut lower, mut range) = (vec![f64::INFINITY; n_pc], vec![0.0; n_pc]);
        for j in 0..n_pc {
            let col = proj.col(j);
            let hi = col.iter().copied().fold(f64::NEG_INFINITY, f64::max);
            lower[j] = col.iter().copied().fold(f64::INFINITY, f64::min);
            range[j] = hi - lower[j];
        }
        let mut candidates: Vec<Mode> = (0..n_pc)
            .filter(|&j| range[j] > 0.0)
            .flat_map(|j| (1..=n_bits).map(move |m| (j, m)))
            .map(|(dim, m)| Mode {
                dim,
                m,
                omega: m as f64 * PI / range[dim],
            })
            .collect();
        if candidates.len() < n_bits {
            return Err(FitError::TooManyBits {
                method: Self::NAME,
                max: candidates.len(),
                asked: n_bits,
            });
        }
        candidates.sort_by(|a, b| {
            a.omega
                .total_cmp(&b.omega)
                .then(a.dim.cmp(&b.dim))
                .then(a.m.cmp(&b.m))
        });
        candidates.truncate(n_bits);
        Ok(SpectralModel {
            mean,
            pc,
            lower,
            modes: candidates,
        })
    }
}

impl HashModel for SpectralModel {
    fn n_bits(&self) -> usize {
        self.modes.len()
    }

    fn encode(&self, data: &Data) -> Result<BitCodes, EncodeError> {
        let x = dense_with_dim(data, self.mean.len())?;
        let proj = project_centered(x, &self.mean, self.pc.as_ref());
        let n = x.nrows();
        // bit k of every item: the sign of its mode's sine, one column at a time
        let mut wave = vec![0.0; n];
        let mut positive = vec![false; n * self.modes.len()];
        for (k, mode) in self.modes.iter().enumerate() {
            let Mode { dim, omega, .. } = *mode;
            for (i, w) in wave.iter_mut().enumerate() {
                *w = FRAC_PI_2 + omega * (proj[(i, dim)] - self.lower[dim]);
            }
            sin_in_place(&mut wave);
            for (out, &w) in positive[k * n..(k + 1) * n].iter_mut().zip(&wave) {
                *out = w > 0.0;
            }
        }
        Ok(BitCodes::from_fn(n, self.modes.len(), |i, k| {
            positive[k * n + i]
        }))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::SeedableRng;

    fn fit(x: &Data, bits: usize) -> Result<SpectralModel, FitError> {
        SpectralParams {}.fit(
            &TrainSet::unlabelled(x),
            bits,
            &mut ChaCha8Rng::seed_from_u64(0),
        )
    }

    /// A regular grid on the box [0, 2] x [0, 0.8].
    fn box_grid() -> Data {
        let (nx, ny) = (41, 17);
        Data::Dense(Mat::from_fn(nx * ny, 2, |i, j| {
            if j == 0 {
                2.0 * (i / ny) as f64 / (nx - 1) as f64
            } else {
                0.8 * (i % ny) as f64 / (ny - 1) as f64
            }
        }))
    }

    #[test]
    fn modes_follow_increasing_eigenvalue_on_a_uniform_box() {
        // mπ/R: direction 0 (R = 2): 0.5π, 1.0π, 1.5π, 2π; direction 1 (R = 0.8): 1.25π, 2.5π
        let m = fit(&box_grid(), 5).unwrap();
        let got: Vec<(usize, usize)> = m.modes().iter().map(|md| (md.dim, md.m)).collect();
        assert_eq!(got, vec![(0, 1), (0, 2), (1, 1), (0, 3), (0, 4)]);
        assert!(m.modes().windows(2).all(|w| w[0].omega <= w[1].omega));
    }

    #[test]
    fn first_mode_halves_the_box_and_second_quarters_it() {
        let x = box_grid();
        let m = fit(&x, 2).unwrap();
        let c = m.encode(&x).unwrap();
        let xd = x.as_dense().unwrap();
        for i in 0..xd.nrows() {
            let t = xd[(i, 0)] / 2.0; // position along the long side, in [0, 1]
            let s = if m.pc[(0, 0)] > 0.0 { t } else { 1.0 - t };
            if (s - 0.5).abs() > 0.02 {
                assert_eq!(c.bit(i, 0), s < 0.5, "item {i}");
            }
            if (s - 0.25).abs() > 0.02 && (s - 0.75).abs() > 0.02 {
                assert_eq!(c.bit(i, 1), !(0.25..0.75).contains(&s), "item {i}");
            }
        }
    }

    #[test]
    fn more_bits_than_dimensions_reuse_directions() {
        let m = fit(&box_grid(), 8).unwrap();
        assert_eq!(m.n_bits(), 8);
        assert!(m.modes().iter().all(|md| md.dim < 2));
    }

    #[test]
    fn degenerate_data_is_an_error_not_a_panic() {
        let flat = Data::Dense(Mat::from_fn(5, 2, |_, _| 1.0));
        assert!(matches!(
            fit(&flat, 2),
            Err(FitError::TooManyBits { max: 0, .. })
        ));
    }
}
