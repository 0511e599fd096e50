//! The closed set of methods a spec can name (`method = "..."`), dispatched to
//! each method crate. Adding a method = one variant here plus its crate.

use hashbench_core::{FitError, HashMethod, HashModel, ParamError, TrainSet};
use hashbench_lsh::LshParams;
use hashbench_pcah::PcahParams;
use hashbench_sikh::SikhParams;
use hashbench_spectral::ShParams;
use rand_chacha::ChaCha8Rng;
use serde::{Deserialize, Serialize};

/// A method and its hyperparameters, as written in a spec's `[[methods]]` table.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "method", rename_all = "kebab-case")]
pub enum MethodSpec {
    /// Random-hyperplane LSH.
    Lsh(LshParams),
    /// PCA hashing.
    Pcah(PcahParams),
    /// Spectral Hashing.
    Sh(ShParams),
    /// Shift-invariant kernel hashing.
    Sikh(SikhParams),
}

impl MethodSpec {
    /// The label used when the spec gives none (the papers' names).
    pub fn default_label(&self) -> &'static str {
        match self {
            MethodSpec::Lsh(_) => "LSH",
            MethodSpec::Pcah(_) => "PCAH",
            MethodSpec::Sh(_) => "SH",
            MethodSpec::Sikh(_) => "SIKH",
        }
    }

    /// Validates the hyperparameters.
    ///
    /// # Errors
    /// The method's [`ParamError`].
    pub fn validate(&self) -> Result<(), ParamError> {
        match self {
            MethodSpec::Lsh(p) => p.validate(),
            MethodSpec::Pcah(p) => p.validate(),
            MethodSpec::Sh(p) => p.validate(),
            MethodSpec::Sikh(p) => p.validate(),
        }
    }

    /// Whether trials differ by seed.
    pub fn is_randomized(&self) -> bool {
        match self {
            MethodSpec::Lsh(p) => p.is_randomized(),
            MethodSpec::Pcah(p) => p.is_randomized(),
            MethodSpec::Sh(p) => p.is_randomized(),
            MethodSpec::Sikh(p) => p.is_randomized(),
        }
    }

    /// The longest code the method can give on `dim`-dimensional data, when
    /// bounded (checked before any trial runs).
    pub fn max_bits(&self, dim: usize) -> Option<usize> {
        match self {
            MethodSpec::Pcah(_) => Some(dim),
            _ => None,
        }
    }

    /// Fits the method.
    ///
    /// # Errors
    /// The method's [`FitError`].
    pub fn fit(
        &self,
        train: &TrainSet<'_>,
        bits: usize,
        rng: &mut ChaCha8Rng,
    ) -> Result<Box<dyn HashModel>, FitError> {
        Ok(match self {
            MethodSpec::Lsh(p) => Box::new(p.fit(train, bits, rng)?),
            MethodSpec::Pcah(p) => Box::new(p.fit(train, bits, rng)?),
            MethodSpec::Sh(p) => Box::new(p.fit(train, bits, rng)?),
            MethodSpec::Sikh(p) => Box::new(p.fit(train, bits, rng)?),
        })
    }
}
