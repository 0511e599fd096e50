//! What an evaluation reads besides the metric policies.

use hashbench_core::{BitCodes, GroundTruth};

use crate::kernel_search::SearchInputs;

/// What an evaluation reads besides the metric policies.
#[derive(Debug, Clone, Copy)]
pub struct EvalInputs<'a> {
    /// Database codes.
    pub db: &'a BitCodes,
    /// Query codes.
    pub queries: &'a BitCodes,
    /// Relevant database items of each query.
    pub truth: &'a GroundTruth,
    /// Per-bit weights of a weighted Hamming ranking (BSSC).
    pub bit_weights: Option<&'a [f64]>,
    /// The seeded database order that breaks ties under `ties = "random"`.
    pub tie_order: &'a [u32],
    /// Kernel scores and search seed, for the kernel-search policies.
    pub search: Option<&'a SearchInputs<'a>>,
}
