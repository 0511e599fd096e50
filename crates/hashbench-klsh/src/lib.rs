#![doc = include_str!("../README.md")]

use faer::{Mat, MatRef};
use hashbench_core::linalg::{product, top_eigenpairs};
use hashbench_core::method::Requirements;
use hashbench_core::{
    BitCodes, Data, DataMismatch, EncodeError, FitError, HashMethod, HashModel, LinalgError,
    ParamError, TrainSet,
};
use hashbench_kernel::{Kernel, KernelSpec};
use rand::RngExt;
use rand::seq::index::sample;
use rand_chacha::ChaCha8Rng;
use serde::{Deserialize, Serialize};

/// KLSH hyperparameters (Sec. 4).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct KlshParams {
    /// The kernel κ.
    pub kernel: KernelSpec,
    /// Number of sampled items p.
    #[serde(default = "default_p")]
    pub p: usize,
    /// Items per hash function t.
    #[serde(default = "default_t")]
    pub t: usize,
    /// Draw the t items with replacement.
    #[serde(default)]
    pub replacement: bool,
    /// Eigenvalues of the centred K below this fraction of the largest are dropped.
    #[serde(default = "default_rank_tolerance")]
    pub rank_tolerance: f64,
    /// Centre a query's kernel row with the samples' means (φ(x) − μ, the
    /// default); `false` hashes the raw row, eq. (9) as printed and the
    /// authors' `KLSH_compress`.
    #[serde(default = "default_centre_query")]
    pub centre_query: bool,
}

fn default_centre_query() -> bool {
    true
}

fn default_p() -> usize {
    300
}

fn default_t() -> usize {
    30
}

fn default_rank_tolerance() -> f64 {
    1e-10
}

impl KlshParams {
    /// Defaults (p = 300, t = 30) with `kernel`.
    pub fn with_kernel(kernel: KernelSpec) -> Self {
        Self {
            kernel,
            p: default_p(),
            t: default_t(),
            replacement: false,
            rank_tolerance: default_rank_tolerance(),
            centre_query: default_centre_query(),
        }
    }
}

/// The centred sample kernel matrix's statistics and pseudo-inverse square root.
#[derive(Debug, Clone)]
pub struct KlshBasis {
    /// K^{-1/2} of the centred K (p × p).
    inv_sqrt: Mat<f64>,
    /// Column means of the uncentred K.
    col_means: Vec<f64>,
    /// Mean of all entries of the uncentred K.
    total_mean: f64,
    /// Number of eigenvalues kept.
    pub rank: usize,
}

impl KlshBasis {
    /// Centres the (uncentred, symmetric) sample kernel matrix `k` and forms K^{-1/2}.
    ///
    /// # Errors
    /// An eigensolver failure.
    pub fn new(k: MatRef<'_, f64>, rank_tolerance: f64) -> Result<Self, LinalgError> {
        let p = k.nrows();
        let col_means: Vec<f64> = (0..p)
            .map(|j| k.col(j).iter().sum::<f64>() / p as f64)
            .collect();
        let total_mean = col_means.iter().sum::<f64>() / p as f64;
        // symmetrised against rounding in the kernel block
        let centred = Mat::from_fn(p, p, |i, j| {
            0.5 * (k[(i, j)] + k[(j, i)]) - col_means[i] - col_means[j] + total_mean
        });
        let (values, vectors) = top_eigenpairs(centred.as_ref(), p)?;
        let floor = rank_tolerance * values.first().copied().unwrap_or(0.0).max(0.0);
        let rank = values.iter().take_while(|&&v| v > floor && v > 0.0).count();
        let scaled = Mat::from_fn(p, rank, |i, r| vectors[(i, r)] / values[r].sqrt());
        let inv_sqrt = product(scaled.as_ref(), vectors.subcols(0, rank).transpose());
        Ok(Self {
            inv_sqrt,
            col_means,
            total_mean,
            rank,
        })
    }

    /// w = K^{-1/2} e_S for a multiset `subset` of sample positions (eq. 8).
    pub fn weights(&self, subset: &[usize]) -> Vec<f64> {
        let p = self.inv_sqrt.nrows();
        (0..p)
            .map(|i| subset.iter().map(|&s| self.inv_sqrt[(i, s)]).sum())
            .collect()
    }

    /// Centres kernel rows k(x, ·) against the samples, in place.
    pub fn centre_rows(&self, kx: &mut Mat<f64>) {
        for i in 0..kx.nrows() {
            let row_mean = kx.row(i).iter().sum::<f64>() / kx.ncols() as f64;
            for j in 0..kx.ncols() {
                kx[(i, j)] += self.total_mean - row_mean - self.col_means[j];
            }
        }
    }
}

/// The weights of one KLSH hyperplane over the rows of `items` under a
/// linear kernel (eq. 8 with t of the p items, drawn without replacement):
/// r = Σᵢ w(i) xᵢ is the direction KLSH's normality study (Sec. 6.6, Fig. 7)
/// tests. Registered in the catalog for the study.
///
/// # Errors
/// A kernel block that does not decompose.
pub fn hyperplane_weights(
    items: MatRef<'_, f64>,
    t: usize,
    rank_tolerance: f64,
    rng: &mut ChaCha8Rng,
) -> Result<Vec<f64>, LinalgError> {
    let k = product(items, items.transpose());
    let basis = KlshBasis::new(k.as_ref(), rank_tolerance)?;
    Ok(basis.weights(&draw_subset(items.nrows(), t, false, rng)))
}

/// Draws the set S of `t` positions among `p` (eq. 8): distinct, or i.i.d. with
/// `replacement`.
pub fn draw_subset(p: usize, t: usize, replacement: bool, rng: &mut ChaCha8Rng) -> Vec<usize> {
    if replacement {
        (0..t).map(|_| rng.random_range(0..p)).collect()
    } else {
        sample(rng, p, t).into_vec()
    }
}

/// A fitted KLSH model.
#[derive(Debug, Clone)]
pub struct KlshModel {
    kernel: Kernel,
    samples: Data,
    basis: KlshBasis,
    /// Hash weights, one column per bit (p × b).
    w: Mat<f64>,
    /// Whether query rows are centred.
    centre_query: bool,
}

impl KlshModel {
    /// The kernel with its scale resolved.
    pub fn kernel(&self) -> &Kernel {
        &self.kernel
    }

    /// The p sampled items.
    pub fn samples(&self) -> &Data {
        &self.samples
    }

    /// Rank of the centred sample kernel matrix kept in K^{-1/2}.
    pub fn rank(&self) -> usize {
        self.basis.rank
    }
}

impl HashMethod for KlshParams {
    type Model = KlshModel;
    const LABEL: &'static str = "KLSH";
    const PAPER: &'static str =
        "Kulis, Grauman, \"Kernelized Locality-Sensitive Hashing\", IEEE TPAMI 34(6), 2012";
    const NAME: &'static str = "klsh";
    // 2: exp by hashbench_simd::math (the same bits on every machine)
    const VERSION: u32 = 2;
    const REQUIREMENTS: Requirements = Requirements {
        uses_spec_kernel: true,
        ..Requirements::UNSUPERVISED
    };

    fn fixture() -> Self {
        Self {
            kernel: KernelSpec::Gaussian {
                width: hashbench_kernel::Scale::MeanDistance(100),
            },
            p: 10,
            t: 3,
            replacement: false,
            rank_tolerance: default_rank_tolerance(),
            centre_query: default_centre_query(),
        }
    }

    fn check_data(&self, data: &Data) -> Result<(), DataMismatch> {
        self.kernel.check_data_of(Self::LABEL, data)
    }

    fn validate(&self) -> Result<(), ParamError> {
        self.kernel.validate()?;
        if self.p < 2 {
            return Err(ParamError::invalid("p", self.p, "sample at least 2 items"));
        }
        if self.t == 0 {
            return Err(ParamError::invalid(
                "t",
                0,
                "each bit needs at least one item",
            ));
        }
        if !self.replacement && self.t > self.p {
            return Err(ParamError::invalid(
                "t",
                self.t,
                format!(
                    "cannot draw more than p = {} items without replacement",
                    self.p
                ),
            ));
        }
        if !(self.rank_tolerance.is_finite() && (0.0..1.0).contains(&self.rank_tolerance)) {
            return Err(ParamError::invalid(
                "rank_tolerance",
                self.rank_tolerance,
                "must lie in [0, 1)",
            ));
        }
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
    ) -> Result<KlshModel, FitError> {
        if let Data::Dense(_) = train.x {
            train.dense_finite("klsh", self.p)?;
        }
        let n = train.x.n_items();
        if n < self.p {
            return Err(FitError::TooFewItems {
                method: "klsh",
                needed: self.p,
                got: n,
            });
        }
        let kernel = self.kernel.resolve(train.x).map_err(FitError::kernel)?;
        let chosen = sample(rng, n, self.p).into_vec();
        let samples = train.x.select(&chosen);
        let k = kernel.block(&samples, &samples).map_err(FitError::kernel)?;
        let basis = KlshBasis::new(k.as_ref(), self.rank_tolerance)?;
        let mut w = Mat::zeros(self.p, n_bits);
        for b in 0..n_bits {
            let subset = draw_subset(self.p, self.t, self.replacement, rng);
            for (i, v) in basis.weights(&subset).into_iter().enumerate() {
                w[(i, b)] = v;
            }
        }
        Ok(KlshModel {
            kernel,
            samples,
            basis,
            w,
            centre_query: self.centre_query,
        })
    }
}

impl HashModel for KlshModel {
    fn n_bits(&self) -> usize {
        self.w.ncols()
    }

    fn encode(&self, data: &Data) -> Result<BitCodes, EncodeError> {
        self.kernel
            .codes_by_row_blocks(data, &self.samples, self.w.ncols(), |mut kx| {
                if self.centre_query {
                    self.basis.centre_rows(&mut kx);
                }
                product(kx.as_ref(), self.w.as_ref())
            })
            .map_err(EncodeError::kernel)
    }
}

#[cfg(test)]
mod tests;
