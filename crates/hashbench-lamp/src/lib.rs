#![doc = include_str!("../README.md")]

mod cccp;
mod dual;
mod qp;
mod train;
mod weight_search;

pub use cccp::{
    BitLog, BitProblem, Cut, CuttingPlane, KernelRows, Majorant, Stopping, augmented_rows,
    cutting_plane, reduced_dual, reduced_qp, solve_bit, xi_cut, zeta_cut,
};
pub use dual::{DualQp, DualSolution};
pub use qp::{Qp, QpError, QpSolution};

use faer::Mat;
use hashbench_core::method::{BitLimit, FitCheck, FitLog, FitLogNames, Requirements, Supervision};
use hashbench_core::{
    BitCodes, Data, DataMismatch, EncodeError, FitError, HashMethod, HashModel, ParamError,
    TrainSet,
};
use hashbench_kernel::{Kernel, KernelSpec};
use rand_chacha::ChaCha8Rng;
use serde::{Deserialize, Serialize};

/// Where the "similar" pairs Θ come from (Sec. 5).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case", deny_unknown_fields)]
pub enum Constraints {
    /// c random partners of the same label per working-set item, drawn from
    /// the working set (Figs. 5-6: "two similar constraints randomly generated
    /// for each data"); reads every training label.
    SameLabel(usize),
    /// The c nearest training items of each working-set item by Euclidean
    /// linear scan (Fig. 7, no labels); needs dense vectors.
    Nearest(usize),
}

impl Constraints {
    fn per_item(self) -> usize {
        match self {
            Constraints::SameLabel(c) | Constraints::Nearest(c) => c,
        }
    }
}

/// The weight μ of the decorrelation penalty (Sec. 3.7 gives none).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case", deny_unknown_fields)]
pub enum Decorrelation {
    /// μ as given.
    Fixed(f64),
    /// The μ of the list whose codes rank best on training data: MAP of
    /// held-out training items (10 %, at most 500, never in the working set)
    /// against the working set, relevant = the constraints' notion of similar
    /// (same label, or the c nearest). Ties go to the smallest weight; a
    /// choice at an edge widens the list (see the crate README, step 5).
    CrossValidate(Vec<f64>),
}

/// LAMP hyperparameters (defaults: the paper's Sec. 5).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LampParams {
    /// The kernel.
    pub kernel: KernelSpec,
    /// Support vectors per hash function, drawn from the working set (40;
    /// 100 in Fig. 7).
    #[serde(default = "default_p")]
    pub p: usize,
    /// Working-set size n (2000).
    #[serde(default = "default_working_set")]
    pub working_set: usize,
    /// λ₁, the margin hinge weight (80).
    #[serde(default = "default_lambda1")]
    pub lambda1: f64,
    /// λ₂, the pair hinge weight (10; 0 drops the side information).
    #[serde(default = "default_lambda2")]
    pub lambda2: f64,
    /// l of the balance constraint |mean f| ≤ l (0.1).
    #[serde(default = "default_balance")]
    pub balance: f64,
    /// The similar pairs (default: 2 same-label partners per item).
    #[serde(default = "default_constraints")]
    pub constraints: Constraints,
    /// The decorrelation weight μ (default: cross-validated over 10, 100, 1000, 10000).
    #[serde(default = "default_decorrelation")]
    pub decorrelation: Decorrelation,
    /// Most CCCP steps per bit (50; at 10, bits of Fig. 5 stopped at the
    /// cap).
    #[serde(default = "default_max_cccp")]
    pub max_cccp: usize,
    /// Most reduced QPs per CCCP step (50).
    #[serde(default = "default_max_cuts")]
    pub max_cuts: usize,
    /// Relative cutting-plane gap at which a CCCP step stops (1e-5: well
    /// below `cccp_tol`, so an inner solve's slack cannot pass for an outer
    /// step's progress).
    #[serde(default = "default_gap")]
    pub gap: f64,
    /// Relative fall of J below which CCCP stops (1e-3).
    #[serde(default = "default_tolerance")]
    pub cccp_tol: f64,
}

fn default_p() -> usize {
    40
}
fn default_working_set() -> usize {
    2000
}
fn default_lambda1() -> f64 {
    80.0
}
fn default_lambda2() -> f64 {
    10.0
}
fn default_balance() -> f64 {
    0.1
}
fn default_constraints() -> Constraints {
    Constraints::SameLabel(2)
}
fn default_decorrelation() -> Decorrelation {
    Decorrelation::CrossValidate(vec![10.0, 100.0, 1000.0, 10000.0])
}
fn default_max_cccp() -> usize {
    50
}
fn default_max_cuts() -> usize {
    50
}
fn default_tolerance() -> f64 {
    1e-3
}
fn default_gap() -> f64 {
    1e-5
}

impl LampParams {
    /// The paper's defaults with `kernel`.
    pub fn with_kernel(kernel: KernelSpec) -> Self {
        Self {
            kernel,
            p: default_p(),
            working_set: default_working_set(),
            lambda1: default_lambda1(),
            lambda2: default_lambda2(),
            balance: default_balance(),
            constraints: default_constraints(),
            decorrelation: default_decorrelation(),
            max_cccp: default_max_cccp(),
            max_cuts: default_max_cuts(),
            gap: default_gap(),
            cccp_tol: default_tolerance(),
        }
    }

    fn stopping(&self) -> Stopping {
        Stopping {
            max_cccp: self.max_cccp,
            max_cuts: self.max_cuts,
            gap: self.gap,
            cccp_tol: self.cccp_tol,
        }
    }
}

/// A fitted LAMP model: bit m = [Σ_j ν_mj κ(x, sv_mj) + b_m > 0] (Sec. 3.3).
#[derive(Debug, Clone)]
pub struct LampModel {
    kernel: Kernel,
    /// The support vectors of every bit, bit after bit (p each).
    support: Data,
    /// ν̃_m = [ν_m; b_m] per bit.
    weights: Vec<Vec<f64>>,
    log: FitLog,
}

impl LampModel {
    /// ν̃ = [ν; b] of each bit.
    pub fn weights(&self) -> &[Vec<f64>] {
        &self.weights
    }
}

impl HashMethod for LampParams {
    type Model = LampModel;
    const LABEL: &'static str = "LAMP";
    const PAPER: &'static str =
        "Mu, Shen, Yan, \"Weakly-Supervised Hashing in Kernel Space\", CVPR 2010";
    const NAME: &'static str = "lamp";
    // 2: eigenvector signs fixed (peak entry positive, `top_eigenpairs`)
    const VERSION: u32 = 4;
    const REQUIREMENTS: Requirements = Requirements {
        supervision: Supervision::AllTraining,
        bit_limit: BitLimit::Unbounded,
        uses_spec_kernel: true,
    };
    const FIT_LOG: FitLogNames = FitLogNames {
        facts: &[
            "pairs",
            "pair-shortfall",
            "decorrelation",
            "cccp-steps-mean",
            "cccp-steps-max",
            "cccp-capped-share",
            "cp-iterations-mean",
            "cp-iterations-max",
            "balance-max",
            "qp-inexact",
            "qp-fallbacks",
            "decorrelation-widenings",
            "decorrelation-at-edge",
        ],
        per_bit: &[
            "cccp-steps-per-bit",
            "cp-iterations-per-bit",
            "objective-per-bit",
        ],
        seconds: &[
            "seconds-per-bit-mean",
            "seconds-per-bit-max",
            "qp-seconds-per-bit-mean",
        ],
        checks: &[
            FitCheck {
                fact: "cccp-capped-share",
                low: 0.0,
                high: 0.0,
                says: "bits stopped at the CCCP cap (max_cccp) before J settled or the signs stood still",
            },
            FitCheck {
                fact: "decorrelation-at-edge",
                low: 0.0,
                high: 0.0,
                says: "the decorrelation weight mu chose an edge of its grid even after widening it",
            },
        ],
    };

    fn fixture() -> Self {
        Self {
            kernel: KernelSpec::Gaussian {
                width: hashbench_kernel::Scale::MeanDistance(100),
            },
            p: 5,
            working_set: 20,
            lambda1: default_lambda1(),
            lambda2: default_lambda2(),
            balance: default_balance(),
            constraints: Constraints::SameLabel(1),
            decorrelation: Decorrelation::Fixed(80.0),
            max_cccp: default_max_cccp(),
            max_cuts: default_max_cuts(),
            gap: default_gap(),
            cccp_tol: default_tolerance(),
        }
    }

    fn check_data(&self, data: &Data) -> Result<(), DataMismatch> {
        self.kernel.check_data_of(Self::LABEL, data)?;
        if matches!(self.constraints, Constraints::Nearest(_)) && data.as_dense().is_none() {
            return Err(DataMismatch {
                method: Self::LABEL,
                needs: "dense vectors for nearest-neighbour constraints".into(),
                found: format!("the data are {}", data.kind()),
            });
        }
        Ok(())
    }

    fn validate(&self) -> Result<(), ParamError> {
        self.kernel.validate()?;
        if self.p < 1 {
            return Err(ParamError::invalid("p", self.p, "needs a support vector"));
        }
        if self.working_set < self.p.max(2) {
            return Err(ParamError::invalid(
                "working_set",
                self.working_set,
                format!("must hold at least p = {} items (and 2)", self.p),
            ));
        }
        ParamError::check_non_negative("lambda1", self.lambda1)?;
        ParamError::check_non_negative("lambda2", self.lambda2)?;
        if !(self.balance.is_finite() && self.balance > 0.0) {
            return Err(ParamError::invalid(
                "balance",
                self.balance,
                "must be positive and finite",
            ));
        }
        if self.constraints.per_item() == 0 {
            return Err(ParamError::invalid(
                "constraints",
                format!("{:?}", self.constraints),
                "give at least one partner per item (lambda2 = 0 drops the pairs)",
            ));
        }
        match &self.decorrelation {
            Decorrelation::Fixed(mu) => ParamError::check_non_negative("decorrelation", *mu)?,
            Decorrelation::CrossValidate(grid) => {
                if grid.is_empty() {
                    return Err(ParamError::invalid(
                        "decorrelation",
                        "{ cross-validate = [] }",
                        "list at least one weight",
                    ));
                }
                for (i, &mu) in grid.iter().enumerate() {
                    ParamError::check_non_negative("decorrelation", mu)?;
                    // a repeated weight would hold items out for a search
                    // that has one weight to score
                    if grid[..i].contains(&mu) {
                        return Err(ParamError::invalid(
                            "decorrelation",
                            format!("{{ cross-validate = {grid:?} }}"),
                            format!("lists {mu} twice; list each weight once"),
                        ));
                    }
                }
            }
        }
        if self.max_cccp == 0 || self.max_cuts == 0 {
            return Err(ParamError::invalid(
                "max_cccp / max_cuts",
                format!("{} / {}", self.max_cccp, self.max_cuts),
                "both loops need at least one iteration",
            ));
        }
        for (name, v) in [("gap", self.gap), ("cccp_tol", self.cccp_tol)] {
            if !(v.is_finite() && v > 0.0) {
                return Err(ParamError::invalid(name, v, "must be positive and finite"));
            }
        }
        Ok(())
    }

    fn is_randomized(&self) -> bool {
        true
    }

    fn supervision(&self) -> Supervision {
        match self.constraints {
            Constraints::SameLabel(_) => Supervision::AllTraining,
            Constraints::Nearest(_) => Supervision::None,
        }
    }

    fn train(
        &self,
        train: &TrainSet<'_>,
        n_bits: usize,
        rng: &mut ChaCha8Rng,
    ) -> Result<LampModel, FitError> {
        if let Data::Dense(_) = train.x {
            train.dense_finite("lamp", 2)?;
        }
        train::fit(self, train, n_bits, rng).map(|fitted| fitted.model)
    }
}

impl HashModel for LampModel {
    fn n_bits(&self) -> usize {
        self.weights.len()
    }

    fn fit_log(&self) -> FitLog {
        self.log.clone()
    }

    fn encode(&self, data: &Data) -> Result<BitCodes, EncodeError> {
        let p = self.support.n_items() / self.weights.len().max(1);
        self.kernel
            .codes_by_row_blocks(data, &self.support, self.weights.len(), |k| {
                Mat::from_fn(k.nrows(), self.weights.len(), |i, m| {
                    let w = &self.weights[m];
                    (0..p).map(|c| k[(i, m * p + c)] * w[c]).sum::<f64>() + w[p]
                })
            })
            .map_err(EncodeError::kernel)
    }
}

#[cfg(test)]
mod tests;
