//! Numerics of Sparse Hashing (Zhu et al., TOIS 2013) and its baselines, on
//! faer, each tested against its optimality conditions (see `tests.rs`).

pub mod cca;
pub mod dictionary;
pub mod elastic_net;
pub mod graph;
pub mod lanczos;
pub mod lars;
pub mod svm;
#[cfg(test)]
mod tests;

pub use cca::{Cca, gcv_weights};
pub use dictionary::{DictionaryStep, dictionary_dual};
pub use elastic_net::{CdSolution, CdStop, elastic_net};
pub use graph::{KnnGraph, ShiftedNormalised};
pub use lars::{LarsGram, LarsSolution, SignedLasso, positive_lars, signed_lasso};
pub use svm::{
    ColumnSvms, DualParams, DualSvm, SvmData, SvmModel, SvmParams, constant_bit_thresholds,
};

/// A solver's failure.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum SolverError {
    /// Inputs of inconsistent shapes.
    #[error("{0}")]
    Shape(String),
    /// An invalid parameter or input.
    #[error("{0}")]
    Invalid(String),
    /// An iterative solver stopped at its iteration limit.
    #[error("{solver} did not converge in {iterations} iterations")]
    NotConverged {
        /// Which solver.
        solver: &'static str,
        /// Iterations run.
        iterations: usize,
    },
    /// faer's SVD did not converge.
    #[error("singular value decomposition did not converge: {0}")]
    Svd(String),
}
