//! The closed set of methods a spec can name (`method = "..."`), dispatched to
//! each method crate. Adding a method = one variant here plus its crate.

use hashbench_bssc::BsscParams;
use hashbench_core::{Data, FitError, HashMethod, HashModel, ParamError, TrainSet};
use hashbench_klsh::KlshParams;
use hashbench_lsh::LshParams;
use hashbench_pcah::PcahParams;
use hashbench_rbm::RbmParams;
use hashbench_sikh::SikhParams;
use hashbench_spectral::ShParams;
use hashbench_splh::{S3plhParams, UsplhParams};
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
    /// Semi-supervised sequential projection learning.
    S3plh(S3plhParams),
    /// Unsupervised sequential projection learning.
    Usplh(UsplhParams),
    /// Boosted similarity sensitive coding.
    Bssc(BsscParams),
    /// Stacked RBMs fine-tuned with NCA.
    Rbm(RbmParams),
    /// Kernelized LSH.
    Klsh(KlshParams),
}

/// Calls `$body` with `$p` bound to the params of whichever variant `$self` is.
macro_rules! each_method {
    ($self:expr, $p:ident => $body:expr) => {
        match $self {
            MethodSpec::Lsh($p) => $body,
            MethodSpec::Pcah($p) => $body,
            MethodSpec::Sh($p) => $body,
            MethodSpec::Sikh($p) => $body,
            MethodSpec::S3plh($p) => $body,
            MethodSpec::Usplh($p) => $body,
            MethodSpec::Bssc($p) => $body,
            MethodSpec::Rbm($p) => $body,
            MethodSpec::Klsh($p) => $body,
        }
    };
}

impl MethodSpec {
    /// The label used when the spec gives none (the papers' names).
    pub fn default_label(&self) -> &'static str {
        match self {
            MethodSpec::Lsh(_) => "LSH",
            MethodSpec::Pcah(_) => "PCAH",
            MethodSpec::Sh(_) => "SH",
            MethodSpec::Sikh(_) => "SIKH",
            MethodSpec::S3plh(_) => "S3PLH",
            MethodSpec::Usplh(_) => "USPLH",
            MethodSpec::Bssc(_) => "BSSC",
            MethodSpec::Rbm(_) => "RBMs",
            MethodSpec::Klsh(_) => "KLSH",
        }
    }

    /// Validates the hyperparameters.
    ///
    /// # Errors
    /// The method's [`ParamError`].
    pub fn validate(&self) -> Result<(), ParamError> {
        each_method!(self, p => p.validate())
    }

    /// Whether trials differ by seed.
    pub fn is_randomized(&self) -> bool {
        each_method!(self, p => p.is_randomized())
    }

    /// The longest code the method can give on `dim`-dimensional data, when
    /// bounded (checked before any trial runs).
    pub fn max_bits(&self, dim: usize) -> Option<usize> {
        match self {
            MethodSpec::Pcah(_) | MethodSpec::S3plh(_) | MethodSpec::Usplh(_) => Some(dim),
            _ => None,
        }
    }

    /// Whether the method can read this kind of data (checked before any trial
    /// runs): KLSH whatever its kernel reads, every other method dense vectors.
    ///
    /// # Errors
    /// What the method needs and what the data is.
    pub fn check_data(&self, data: &Data) -> Result<(), String> {
        match self {
            MethodSpec::Klsh(p) => p.kernel.check_data(data).map_err(|e| e.to_string()),
            _ if data.as_dense().is_some() => Ok(()),
            _ => Err(format!(
                "{} needs dense vectors, the dataset holds {}",
                self.default_label(),
                data.kind()
            )),
        }
    }

    /// Whether the method reads the labelled training items (checked before any
    /// trial: the split must provide them).
    pub fn needs_labels(&self) -> bool {
        matches!(self, MethodSpec::S3plh(_) | MethodSpec::Bssc(_))
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
        each_method!(self, p => Ok(Box::new(p.fit(train, bits, rng)?)))
    }
}
