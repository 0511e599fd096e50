#![doc = include_str!("../README.md")]

pub mod codes;
pub mod encw;
mod hash;
#[cfg(test)]
mod tests;
pub mod tune;

pub use hash::{ALPHA_GRID, Encw, EncwFixed, HashFn, HashKind, PENALTY_GRID, Svm, SvmFixed};

use std::marker::PhantomData;
use std::time::Instant;

use hashbench_core::linear::{LoggedLinearModel, tune_then_fit};
use hashbench_core::method::{
    BitLimit, FitLog, FitLogNames, Requirements, Supervision, dense_fit_input,
};
use hashbench_core::{FitError, HashMethod, ParamError, TrainSet};
use hashbench_solvers::{KnnGraph, SolverError};
use rand_chacha::ChaCha8Rng;
use serde::{Deserialize, Serialize};

use crate::codes::{CodeSettings, initial_bases, sparse_codes};

/// Sparse Hashing with ENCW hash functions (the paper's SH_ENCW).
pub type ShEncwParams = SpahParams<Encw>;
/// Sparse Hashing with one linear SVM per bit (the paper's SH_SVM).
pub type ShSvmParams = SpahParams<Svm>;

/// How the hyperparameters are set.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum Hyperparameters<F> {
    /// `"cross-validate"`: chosen on the training data ([`tune::cross_validate`]).
    Rule(TuningRule),
    /// Given values.
    Fixed(F),
}

/// The one tuning rule.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum TuningRule {
    /// 5-fold cross-validation over the paper's grids (Sec. 5.1.2).
    CrossValidate,
}

/// Sparse Hashing hyperparameters; `H` is the hash function learnt on the
/// codes. Defaults: the paper's (graph k = 25, σ = 1, cross-validated α, λ
/// and hash penalties) and the reading notes' (at most 30 outer iterations,
/// relative tolerance 1e-5).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, bound(serialize = "", deserialize = ""))]
pub struct SpahParams<H: HashKind> {
    /// Neighbours per item in the kNN graph (25; 100 for GIST).
    #[serde(default = "default_neighbours")]
    pub neighbours: usize,
    /// Heat-kernel width σ in exp(−‖xᵢ − xⱼ‖²/σ) (1).
    #[serde(default = "default_sigma")]
    pub sigma: f64,
    /// Most outer iterations of the alternation (30).
    #[serde(default = "default_iterations")]
    pub max_iterations: usize,
    /// Relative objective decrease that stops it (1e-5).
    #[serde(default = "default_tolerance")]
    pub tolerance: f64,
    /// α, λ (and ENCW's λ1, λ2) as a table, or `"cross-validate"`.
    #[serde(default = "default_hyperparameters")]
    pub hyperparameters: Hyperparameters<H::Fixed>,
    /// Training items the cross-validation draws (all when fewer): a full
    /// 5-fold search on 10K items is hours per code length on 2 cores.
    #[serde(default = "default_cv_items")]
    pub cv_items: usize,
    #[serde(skip)]
    kind: PhantomData<H>,
}

fn default_neighbours() -> usize {
    25
}
fn default_sigma() -> f64 {
    1.0
}
fn default_iterations() -> usize {
    30
}
fn default_tolerance() -> f64 {
    1e-5
}
fn default_hyperparameters<F>() -> Hyperparameters<F> {
    Hyperparameters::Rule(TuningRule::CrossValidate)
}
fn default_cv_items() -> usize {
    2000
}

impl<H: HashKind> Default for SpahParams<H> {
    fn default() -> Self {
        SpahParams {
            neighbours: default_neighbours(),
            sigma: default_sigma(),
            max_iterations: default_iterations(),
            tolerance: default_tolerance(),
            hyperparameters: default_hyperparameters(),
            cv_items: default_cv_items(),
            kind: PhantomData,
        }
    }
}

/// The code hyperparameters of a setting.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct CodeHyper {
    /// α, the graph term's weight.
    pub alpha: f64,
    /// λ, the ℓ1 weight.
    pub lambda: f64,
}

impl<H: HashKind> SpahParams<H> {
    /// These settings with the hyperparameters fixed to `fixed`.
    pub fn with_fixed(&self, fixed: H::Fixed) -> Self {
        SpahParams {
            hyperparameters: Hyperparameters::Fixed(fixed),
            ..self.clone()
        }
    }

    fn code_settings(&self, code: CodeHyper, max_iterations: usize) -> CodeSettings {
        CodeSettings {
            alpha: code.alpha,
            lambda: code.lambda,
            max_iterations,
            tolerance: self.tolerance,
        }
    }

    /// Graph, codes and hash function on the training rows, with the fit's log.
    fn learn(
        &self,
        x: faer::MatRef<'_, f64>,
        n_bits: usize,
        fixed: &H::Fixed,
        rng: &mut ChaCha8Rng,
    ) -> Result<LoggedLinearModel, SolverError> {
        let t0 = Instant::now();
        let graph = KnnGraph::heat_kernel(x, self.neighbours, self.sigma)?;
        let t1 = Instant::now();
        let code = H::code(fixed);
        let b0 = initial_bases(x.ncols(), n_bits, rng);
        let codes = sparse_codes(
            x,
            &graph,
            b0,
            &self.code_settings(code, self.max_iterations),
        )?;
        let t2 = Instant::now();
        let bits = codes.bits();
        let hash = H::learn(&H::prepare(x), bits.as_ref(), fixed, rng)?;
        let n = bits.nrows() as f64;
        let frequency: Vec<f64> = (0..n_bits)
            .map(|k| bits.col(k).iter().sum::<f64>() / n)
            .collect();
        let increases = codes
            .trace
            .windows(2)
            .filter(|w| w[1] > w[0] * (1.0 + 1e-12))
            .count();
        let mut facts = vec![
            ("alpha".to_string(), code.alpha),
            ("lambda".to_string(), code.lambda),
            ("iterations".to_string(), codes.iterations as f64),
            ("objective-increases".to_string(), increases as f64),
            ("dead-bits".to_string(), codes.dead_atoms as f64),
            (
                "bits-on-mean".to_string(),
                frequency.iter().sum::<f64>() / n_bits as f64,
            ),
            ("lars-steps-mean".to_string(), codes.lars_steps),
            (
                "dictionary-fallbacks".to_string(),
                codes.dictionary_fallbacks as f64,
            ),
            ("graph-weight-mean".to_string(), graph.mean_weight()),
        ];
        facts.extend(hash.facts);
        Ok(LoggedLinearModel {
            hash: hash.model,
            log: FitLog {
                facts,
                per_bit: vec![("bit-frequency".to_string(), frequency)],
                seconds: vec![
                    ("graph-seconds".to_string(), (t1 - t0).as_secs_f64()),
                    ("codes-seconds".to_string(), (t2 - t1).as_secs_f64()),
                    ("hash-seconds".to_string(), t2.elapsed().as_secs_f64()),
                ],
            },
        })
    }
}

fn solver(e: SolverError) -> FitError {
    FitError::Solver(e.to_string())
}

impl<H: HashKind> HashMethod for SpahParams<H> {
    type Model = LoggedLinearModel;
    const LABEL: &'static str = H::LABEL;
    const VERSION: u32 = H::VERSION;
    const REQUIREMENTS: Requirements = Requirements {
        supervision: Supervision::None,
        bit_limit: BitLimit::Unbounded,
        uses_spec_kernel: false,
    };
    const FIT_LOG: FitLogNames = FitLogNames {
        facts: &[
            "alpha",
            "lambda",
            "lambda1",
            "lambda2",
            "iterations",
            "objective-increases",
            "dead-bits",
            "bits-on-mean",
            "lars-steps-mean",
            "dictionary-fallbacks",
            "graph-weight-mean",
            "encw-nonzero",
            "encw-unconverged",
            "cw-weight-mean",
            "svm-sweeps-mean",
            "cv-f1",
            "cv-items",
        ],
        per_bit: &["bit-frequency"],
        seconds: &[
            "graph-seconds",
            "codes-seconds",
            "hash-seconds",
            "tuning-seconds",
        ],
    };

    fn validate(&self) -> Result<(), ParamError> {
        if self.neighbours < 1 {
            return Err(ParamError::invalid(
                "neighbours",
                self.neighbours,
                "the graph needs at least one neighbour per item",
            ));
        }
        if !(self.sigma.is_finite() && self.sigma > 0.0) {
            return Err(ParamError::invalid("sigma", self.sigma, "must be positive"));
        }
        ParamError::check_non_negative("tolerance", self.tolerance)?;
        if self.cv_items < 1 {
            return Err(ParamError::invalid(
                "cv_items",
                self.cv_items,
                "must be positive",
            ));
        }
        match &self.hyperparameters {
            Hyperparameters::Fixed(f) => H::validate(f),
            Hyperparameters::Rule(_) => Ok(()),
        }
    }

    fn is_randomized(&self) -> bool {
        true
    }

    fn needs_tuning(&self) -> bool {
        matches!(self.hyperparameters, Hyperparameters::Rule(_))
    }

    fn tune(
        &self,
        train: &TrainSet<'_>,
        n_bits: usize,
    ) -> Result<Option<(Self, FitLog)>, FitError> {
        if !self.needs_tuning() {
            return Ok(None);
        }
        let x = dense_fit_input(self, train, n_bits, H::LABEL, 2)?;
        let choice = tune::cross_validate(self, x, n_bits).map_err(solver)?;
        let log = FitLog {
            facts: vec![
                ("cv-f1".to_string(), choice.f1),
                ("cv-items".to_string(), choice.items as f64),
            ],
            ..FitLog::default()
        };
        Ok(Some((self.with_fixed(choice.fixed), log)))
    }

    fn fit(
        &self,
        train: &TrainSet<'_>,
        n_bits: usize,
        rng: &mut ChaCha8Rng,
    ) -> Result<LoggedLinearModel, FitError> {
        let x = dense_fit_input(self, train, n_bits, H::LABEL, self.neighbours + 1)?;
        match &self.hyperparameters {
            Hyperparameters::Fixed(fixed) => self.learn(x, n_bits, fixed, rng).map_err(solver),
            Hyperparameters::Rule(_) => tune_then_fit(self, train, n_bits, rng),
        }
    }
}
