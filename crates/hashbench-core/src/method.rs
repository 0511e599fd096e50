//! The method contract: validated hyperparameters fit a model with an explicit
//! RNG; the fitted model encodes data into packed codes.

use rand_chacha::ChaCha8Rng;

use crate::{BitCodes, Data, EncodeError, FitError, ParamError, TrainSet};

/// Hyperparameters of a hashing method. `fit` learns a model; it never reads
/// global state, and every implementation calls `validate` first.
pub trait HashMethod: std::fmt::Debug + Send + Sync {
    /// The fitted model.
    type Model: HashModel + 'static;

    /// Rejects invalid hyperparameters before any data is touched.
    ///
    /// # Errors
    /// A [`ParamError`] naming the parameter at fault.
    fn validate(&self) -> Result<(), ParamError>;

    /// Whether the fitted model depends on the RNG (random methods run several
    /// trials; deterministic ones run once).
    fn is_randomized(&self) -> bool;

    /// Learns an `n_bits`-bit hash function from `train`.
    ///
    /// # Errors
    /// Invalid parameters, unsupported or degenerate data, or a failed
    /// decomposition.
    fn fit(
        &self,
        train: &TrainSet<'_>,
        n_bits: usize,
        rng: &mut ChaCha8Rng,
    ) -> Result<Self::Model, FitError>;
}

/// A fitted hash function. Object-safe, so the runner can hold `Box<dyn HashModel>`.
pub trait HashModel: Send + Sync {
    /// Code length.
    fn n_bits(&self) -> usize;

    /// Per-bit weights of a weighted Hamming distance Σₖ wₖ [bits differ], for
    /// methods that learn one (BSSC); `None` means plain Hamming distance.
    fn bit_weights(&self) -> Option<Vec<f64>> {
        None
    }

    /// Encodes every item of `data`.
    ///
    /// # Errors
    /// Data of another kind or dimension than the training data.
    fn encode(&self, data: &Data) -> Result<BitCodes, EncodeError>;
}

/// Checks the code length every method shares: at least one bit.
///
/// # Errors
/// [`ParamError`] for `n_bits == 0`.
pub fn check_n_bits(n_bits: usize) -> Result<(), ParamError> {
    if n_bits == 0 {
        return Err(ParamError::invalid(
            "bits",
            0,
            "a code needs at least one bit",
        ));
    }
    Ok(())
}

/// The common start of a vector method's `fit`: valid parameters, a positive
/// code length, then the dense, finite training matrix with at least
/// `min_items` rows.
///
/// # Errors
/// The parameter error, or [`TrainSet::dense_finite`]'s.
pub fn dense_fit_input<'a, M: HashMethod + ?Sized>(
    params: &M,
    train: &TrainSet<'a>,
    n_bits: usize,
    method: &'static str,
    min_items: usize,
) -> Result<faer::MatRef<'a, f64>, FitError> {
    params.validate()?;
    check_n_bits(n_bits)?;
    train.dense_finite(method, min_items)
}

/// The dense matrix of `data` with `dim` columns, or the encode error.
///
/// # Errors
/// [`EncodeError::UnsupportedData`] or [`EncodeError::Dimension`].
pub fn dense_with_dim(data: &Data, dim: usize) -> Result<faer::MatRef<'_, f64>, EncodeError> {
    let x = data.as_dense().ok_or(EncodeError::UnsupportedData {
        needs: "dense vector",
        got: data.kind(),
    })?;
    if x.ncols() != dim {
        return Err(EncodeError::Dimension {
            expected: dim,
            got: x.ncols(),
        });
    }
    Ok(x)
}
