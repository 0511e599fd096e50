#![doc = include_str!("../README.md")]

mod landmarks;
mod solve;

pub use landmarks::{Landmarks, kmeans, landmarks};
pub use solve::{GRank, Solution, SolveError, laplacian_term, mean_and_covariance, solve};

use faer::Mat;
use hashbench_core::linalg::{product, top_eigenpairs};
use hashbench_core::method::{BitLimit, Requirements, Supervision};
use hashbench_core::{
    BitCodes, Data, DataMismatch, EncodeError, FitError, HashMethod, HashModel, ParamError,
    TrainSet,
};
use hashbench_kernel::{Kernel, KernelSpec};
use rand_chacha::ChaCha8Rng;
use serde::{Deserialize, Serialize};

/// What "similar" means in the objective (the W of eq. 3).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Similarity {
    /// W_ij = 1 when items i and j share a class label (Sec. 3.1: "only
    /// samples in the same class"); reads every training label.
    #[default]
    Labels,
    /// W = XXᵀ, the inner products of the (dense) features (Sec. 4.5).
    Features,
    /// W = K_NP K_PP⁺ K_PN: the Nyström approximation of the kernel matrix
    /// with the P landmarks as its L samples (Sec. 3.2, R = K_NP, Q = K_PP⁺;
    /// the notes' A2 variant for NCI1).
    KernelNystrom,
}

/// OKH hyperparameters.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct OkhParams {
    /// The kernel κ.
    pub kernel: KernelSpec,
    /// Number of landmarks P (default 500, the paper's Sec. 4.2).
    #[serde(default = "default_p")]
    pub p: usize,
    /// Where the landmarks come from (default: random training items).
    #[serde(default)]
    pub landmarks: Landmarks,
    /// The similarity W (default: shared labels).
    #[serde(default)]
    pub similarity: Similarity,
    /// How many eigenpairs of G the whitening keeps (default: full rank).
    #[serde(default)]
    pub g_rank: GRank,
    /// Eigenvalues of G below this fraction of the largest count as zero.
    #[serde(default = "default_rank_tolerance")]
    pub rank_tolerance: f64,
    /// Weight λ of the smoothness term λ K_PP (eq. 4; 0 in every experiment).
    #[serde(default)]
    pub lambda: f64,
}

fn default_p() -> usize {
    500
}

fn default_rank_tolerance() -> f64 {
    1e-10
}

impl OkhParams {
    /// Defaults with `kernel`.
    pub fn with_kernel(kernel: KernelSpec) -> Self {
        Self {
            kernel,
            p: default_p(),
            landmarks: Landmarks::default(),
            similarity: Similarity::default(),
            g_rank: GRank::default(),
            rank_tolerance: default_rank_tolerance(),
            lambda: 0.0,
        }
    }
}

/// A fitted OKH model: bit m = [a_mᵀ k_x − b_m > 0] (eqs. 19-20).
#[derive(Debug, Clone)]
pub struct OkhModel {
    kernel: Kernel,
    landmarks: Data,
    solution: Solution,
}

impl OkhModel {
    /// The solved projections, offsets and objective.
    pub fn solution(&self) -> &Solution {
        &self.solution
    }

    /// The landmarks, as items.
    pub fn landmarks(&self) -> &Data {
        &self.landmarks
    }
}

/// The degrees d and K R of the label similarity W = YYᵀ (Y one-hot): d_j is
/// the size of j's class and column c of K R sums K over class c.
fn label_similarity(k: &Mat<f64>, labels: &[u32]) -> (Vec<f64>, Mat<f64>) {
    let classes = labels.iter().copied().max().map_or(0, |m| m as usize + 1);
    let mut size = vec![0.0; classes];
    labels.iter().for_each(|&l| size[l as usize] += 1.0);
    let d = labels.iter().map(|&l| size[l as usize]).collect();
    let mut kr = Mat::<f64>::zeros(k.nrows(), classes);
    for (j, &l) in labels.iter().enumerate() {
        for i in 0..k.nrows() {
            kr[(i, l as usize)] += k[(i, j)];
        }
    }
    (d, kr)
}

/// The degrees d and K R′ of the Nyström similarity W = Kᵀ K_PP⁺ K, factored
/// as R′R′ᵀ with R′ = Kᵀ V Λ^{-1/2} over the eigenpairs (V, Λ) of K_PP above
/// `tolerance` times the largest (the pseudo-inverse of Sec. 3.2).
fn nystrom_similarity(
    k: &Mat<f64>,
    kpp: &Mat<f64>,
    tolerance: f64,
) -> Result<(Vec<f64>, Mat<f64>), FitError> {
    let p = kpp.nrows();
    let (values, vectors) = top_eigenpairs(kpp.as_ref(), p)?;
    let floor = tolerance * values.first().copied().unwrap_or(0.0).max(0.0);
    let kept = values.iter().take_while(|&&v| v > floor && v > 0.0).count();
    let f = Mat::from_fn(p, kept, |i, r| vectors[(i, r)] / values[r].sqrt());
    // R′ᵀ1 = Fᵀ K 1
    let row_sums: Vec<f64> = (0..p)
        .map(|i| (0..k.ncols()).map(|j| k[(i, j)]).sum())
        .collect();
    let rt1: Vec<f64> = (0..kept)
        .map(|r| (0..p).map(|i| f[(i, r)] * row_sums[i]).sum())
        .collect();
    let r = product(k.transpose(), f.as_ref());
    let d = (0..r.nrows())
        .map(|j| (0..kept).map(|c| r[(j, c)] * rt1[c]).sum())
        .collect();
    Ok((d, product(k.as_ref(), r.as_ref())))
}

/// The degrees d = X(Xᵀ1) and K X of the feature similarity W = XXᵀ.
fn feature_similarity(k: &Mat<f64>, x: faer::MatRef<'_, f64>) -> (Vec<f64>, Mat<f64>) {
    let column_sums: Vec<f64> = (0..x.ncols())
        .map(|c| (0..x.nrows()).map(|i| x[(i, c)]).sum())
        .collect();
    let d = (0..x.nrows())
        .map(|i| (0..x.ncols()).map(|c| x[(i, c)] * column_sums[c]).sum())
        .collect();
    (d, product(k.as_ref(), x))
}

impl HashMethod for OkhParams {
    type Model = OkhModel;
    const LABEL: &'static str = "OKH";
    const PAPER: &'static str =
        "He, Liu, Chang, \"Scalable Similarity Search with Optimized Kernel Hashing\", KDD 2010";
    const NAME: &'static str = "okh";
    // 2: eigenvector signs fixed (peak entry positive, `top_eigenpairs`)
    const VERSION: u32 = 2;
    const REQUIREMENTS: Requirements = Requirements {
        supervision: Supervision::AllTraining,
        bit_limit: BitLimit::Unbounded,
        uses_spec_kernel: true,
    };

    fn fixture() -> Self {
        Self {
            kernel: KernelSpec::Gaussian {
                width: hashbench_kernel::Scale::MeanDistance(100),
            },
            p: 20,
            landmarks: Landmarks::default(),
            similarity: Similarity::default(),
            g_rank: GRank::default(),
            rank_tolerance: default_rank_tolerance(),
            lambda: 0.0,
        }
    }

    fn check_data(&self, data: &Data) -> Result<(), DataMismatch> {
        self.kernel.check_data_of(Self::LABEL, data)?;
        let needs_dense =
            self.landmarks != Landmarks::Random || self.similarity == Similarity::Features;
        if needs_dense && data.as_dense().is_none() {
            return Err(DataMismatch {
                method: Self::LABEL,
                needs: format!(
                    "dense vectors with {:?} landmarks and {:?} similarity",
                    self.landmarks, self.similarity
                ),
                found: format!("the data are {}", data.kind()),
            });
        }
        Ok(())
    }

    fn validate(&self) -> Result<(), ParamError> {
        self.kernel.validate()?;
        if self.p < 2 {
            return Err(ParamError::invalid(
                "p",
                self.p,
                "needs at least 2 landmarks",
            ));
        }
        if !(self.rank_tolerance.is_finite() && (0.0..1.0).contains(&self.rank_tolerance)) {
            return Err(ParamError::invalid(
                "rank_tolerance",
                self.rank_tolerance,
                "must lie in [0, 1)",
            ));
        }
        ParamError::check_non_negative("lambda", self.lambda)
    }

    fn is_randomized(&self) -> bool {
        self.landmarks != Landmarks::Pca
    }

    fn supervision(&self) -> Supervision {
        match self.similarity {
            Similarity::Labels => Supervision::AllTraining,
            Similarity::Features | Similarity::KernelNystrom => Supervision::None,
        }
    }

    fn train(
        &self,
        train: &TrainSet<'_>,
        n_bits: usize,
        rng: &mut ChaCha8Rng,
    ) -> Result<OkhModel, FitError> {
        if let Data::Dense(_) = train.x {
            train.dense_finite("okh", 2)?;
        }
        let n = train.x.n_items();
        let needed = if self.landmarks == Landmarks::Random {
            self.p
        } else {
            2
        };
        if n < needed {
            return Err(FitError::TooFewItems {
                method: "okh",
                needed,
                got: n,
            });
        }
        let labels = match self.similarity {
            Similarity::Labels => Some(train.every_label("okh")?),
            Similarity::Features | Similarity::KernelNystrom => None,
        };
        let kernel = self.kernel.resolve(train.x).map_err(FitError::kernel)?;
        let marks = landmarks(self.landmarks, train.x, self.p, rng)?;
        let block = |a: &Data, b: &Data| kernel.block(a, b).map_err(FitError::kernel);
        // K_PN: landmarks x training items
        let k = block(&marks, train.x)?;
        let (d, kr) = match (&labels, self.similarity) {
            (Some(l), _) => label_similarity(&k, l),
            (None, Similarity::KernelNystrom) => {
                nystrom_similarity(&k, &block(&marks, &marks)?, self.rank_tolerance)?
            }
            (None, _) => {
                let x = train.x.as_dense().ok_or(FitError::UnsupportedData {
                    method: "okh",
                    needs: "dense vector data for the feature similarity",
                    got: train.x.kind(),
                })?;
                feature_similarity(&k, x)
            }
        };
        let mut c = laplacian_term(k.as_ref(), &d, kr.as_ref());
        if self.lambda > 0.0 {
            c += block(&marks, &marks)? * faer::Scale(self.lambda);
        }
        let (kbar, g) = mean_and_covariance(k.as_ref());
        let solution = solve(
            c.as_ref(),
            g.as_ref(),
            &kbar,
            n_bits,
            self.g_rank,
            self.rank_tolerance,
        )
        .map_err(|e| match e {
            SolveError::TooFewEigenpairs(max) => FitError::TooManyBits {
                method: "okh",
                max,
                asked: n_bits,
            },
            SolveError::Linalg(e) => FitError::Linalg(e),
        })?;
        Ok(OkhModel {
            kernel,
            landmarks: marks,
            solution,
        })
    }
}

impl HashModel for OkhModel {
    fn n_bits(&self) -> usize {
        self.solution.a.ncols()
    }

    fn encode(&self, data: &Data) -> Result<BitCodes, EncodeError> {
        let b = &self.solution.b;
        self.kernel
            .codes_by_row_blocks(data, &self.landmarks, b.len(), |kx| {
                let proj = product(kx.as_ref(), self.solution.a.as_ref());
                Mat::from_fn(proj.nrows(), proj.ncols(), |i, m| proj[(i, m)] - b[m])
            })
            .map_err(EncodeError::kernel)
    }
}

#[cfg(test)]
mod tests;
