//! The `[normality]` table of a KLSH Fig. 7 spec: the study's parameters
//! and their validation (the study itself runs in the runner's `run::normality`).

use hashbench_core::ParamError;
use hashbench_core::valid::Fraction;
use serde::{Deserialize, Serialize};

/// The `[normality]` table of a Fig. 7 spec.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct NormalitySpec {
    /// Values of p (sampled items).
    pub p: Vec<usize>,
    /// Hyperplanes per p (paper: 1000).
    #[serde(default = "thousand")]
    pub hyperplanes: usize,
    /// t = ⌊t_fraction · p⌋ (paper: 0.2).
    #[serde(default = "one_fifth")]
    pub t_fraction: f64,
    /// Reduce the pool to this many dimensions by PCA first (the paper's SIFT
    /// pool is 128-d already).
    pub reduce: Option<usize>,
    /// KLSH's eigenvalue cut (relative to the largest, below 1), as in
    /// `hashbench-klsh`.
    #[serde(default = "rank_tolerance")]
    pub rank_tolerance: Fraction,
}

fn thousand() -> usize {
    1000
}

fn one_fifth() -> f64 {
    0.2
}

fn rank_tolerance() -> Fraction {
    Fraction::new(1e-10).expect("in range")
}

impl NormalitySpec {
    /// The compared series, in figure order.
    pub const SERIES: [&'static str; 3] = ["KLSH", "True random", "Random weights"];

    /// The scalars each (series, p) writes.
    pub const METRICS: [&'static str; 4] = ["ad-success-rate", "ad-median", "ad-q25", "ad-q75"];

    /// Checks the parameters.
    ///
    /// # Errors
    /// The field at fault.
    pub fn validate(&self) -> Result<(), ParamError> {
        if self.p.is_empty() || self.p.iter().any(|&p| p < 2) {
            return Err(ParamError::invalid(
                "p",
                format!("{:?}", self.p),
                "must list values of at least 2",
            ));
        }
        if self.hyperplanes == 0 {
            return Err(ParamError::invalid("hyperplanes", 0, "must be at least 1"));
        }
        if !(self.t_fraction > 0.0 && self.t_fraction <= 1.0) {
            return Err(ParamError::invalid(
                "t_fraction",
                self.t_fraction,
                "must lie in (0, 1]",
            ));
        }
        if let Some(p) = self.p.iter().find(|&&p| self.t(p) == 0) {
            return Err(ParamError::invalid(
                "t_fraction",
                self.t_fraction,
                format!("gives t = floor({} * {p}) = 0 at p = {p}", self.t_fraction),
            ));
        }
        if self.reduce == Some(0) {
            return Err(ParamError::invalid("reduce", 0, "must be at least 1"));
        }
        Ok(())
    }

    /// t = ⌊t_fraction · p⌋, the eigenvectors KLSH keeps at p.
    pub fn t(&self, p: usize) -> usize {
        (self.t_fraction * p as f64).floor() as usize
    }
}
