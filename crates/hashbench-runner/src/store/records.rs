//! The records of the other jobs: a tuning choice and a normality study's
//! (series, p).

use hashbench_core::method::FitLog;
use serde::{Deserialize, Serialize};

use super::Fingerprinted;

/// The stored outcome of one (series, p) of a normality study.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub(crate) struct NormalityRecord {
    pub(crate) fingerprint: String,
    pub(crate) series: String,
    pub(crate) p: usize,
    /// A*² of every hyperplane, in draw order.
    pub(crate) statistics: Vec<f64>,
}

impl Fingerprinted for NormalityRecord {
    fn fingerprint(&self) -> &str {
        &self.fingerprint
    }
}

/// Hyperparameters a method picked on one training set at one code length.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub(crate) struct TunedRecord {
    pub(crate) fingerprint: String,
    /// The configuration with its hyperparameters fixed, as a spec writes
    /// it (read back by its method's registration).
    pub(crate) spec: serde_json::Value,
    /// What the choice rested on (reported with every fit that uses it).
    pub(crate) log: FitLog,
    /// Seconds the tuning took.
    pub(crate) seconds: f64,
}

impl Fingerprinted for TunedRecord {
    fn fingerprint(&self) -> &str {
        &self.fingerprint
    }
}
