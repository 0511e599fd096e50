//! Typed errors: parameter errors are found before any data is touched, fit and
//! encode errors while a trial runs. Each names what is at fault.

use faer::linalg::solvers::{EvdError, SvdError};

/// A hyperparameter is out of range or inconsistent.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum ParamError {
    /// One parameter has a value the method cannot use.
    #[error("parameter `{name}` = {value}: {reason}")]
    Invalid {
        /// Parameter name as written in the spec.
        name: &'static str,
        /// The offending value, rendered.
        value: String,
        /// Why it is rejected.
        reason: String,
    },
}

impl ParamError {
    /// Builds an [`ParamError::Invalid`].
    pub fn invalid(name: &'static str, value: impl ToString, reason: impl Into<String>) -> Self {
        Self::Invalid {
            name,
            value: value.to_string(),
            reason: reason.into(),
        }
    }

    /// Checks that a weight or rate `value` is finite and ≥ 0.
    ///
    /// # Errors
    /// [`ParamError::Invalid`] naming `name` otherwise.
    pub fn check_non_negative(name: &'static str, value: f64) -> Result<(), Self> {
        if value.is_finite() && value >= 0.0 {
            Ok(())
        } else {
            Err(Self::invalid(
                name,
                value,
                "must be finite and non-negative",
            ))
        }
    }
}

/// A linear-algebra routine failed.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum LinalgError {
    /// faer's self-adjoint eigensolver did not converge.
    #[error("self-adjoint eigendecomposition did not converge: {0:?}")]
    Evd(EvdError),
    /// faer's singular value decomposition did not converge.
    #[error("singular value decomposition did not converge: {0:?}")]
    Svd(SvdError),
}

impl From<EvdError> for LinalgError {
    fn from(e: EvdError) -> Self {
        Self::Evd(e)
    }
}

impl From<SvdError> for LinalgError {
    fn from(e: SvdError) -> Self {
        Self::Svd(e)
    }
}

/// A dataset a method cannot read, found before any trial
/// ([`crate::HashMethod::check_data`]).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{method} needs {needs}; {found}")]
pub struct DataMismatch {
    /// The method's label.
    pub method: &'static str,
    /// What it reads.
    pub needs: String,
    /// What the data are instead.
    pub found: String,
}

/// Fitting a method on training data failed.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum FitError {
    /// The hyperparameters are invalid.
    #[error(transparent)]
    Param(#[from] ParamError),
    /// A linear-algebra step failed.
    #[error(transparent)]
    Linalg(#[from] LinalgError),
    /// The method cannot read this kind of data.
    #[error("{method} needs {needs} data, got {got}")]
    UnsupportedData {
        /// Method name.
        method: &'static str,
        /// What it accepts.
        needs: &'static str,
        /// What it was given.
        got: &'static str,
    },
    /// Too few training items.
    #[error("{method} needs at least {needed} training items, got {got}")]
    TooFewItems {
        /// Method name.
        method: &'static str,
        /// Minimum number.
        needed: usize,
        /// Number given.
        got: usize,
    },
    /// More bits were asked for than the method can produce from this data.
    #[error("{method} can give at most {max} bits on this data, {asked} asked for")]
    TooManyBits {
        /// Method name.
        method: &'static str,
        /// Largest possible code length.
        max: usize,
        /// Requested code length.
        asked: usize,
    },
    /// The method needs labels the training set does not have.
    #[error("{method} needs labelled training items, none were given")]
    MissingLabels {
        /// Method name.
        method: &'static str,
    },
    /// A kernel could not be resolved or evaluated on the training data.
    #[error("kernel: {0}")]
    Kernel(String),
    /// An optimisation solver (a QP of LAMP) failed.
    #[error("solver: {0}")]
    Solver(String),
    /// A training value is NaN or infinite.
    #[error("training value at row {row}, column {col} is not finite")]
    NonFinite {
        /// Row (item) index.
        row: usize,
        /// Column (feature) index.
        col: usize,
    },
}

/// Encoding data with a fitted model failed.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum EncodeError {
    /// The data has a different dimension from the training data.
    #[error("model was fitted on {expected}-dimensional data, got {got} dimensions")]
    Dimension {
        /// Training dimension.
        expected: usize,
        /// Dimension given.
        got: usize,
    },
    /// The model cannot read this kind of data.
    #[error("model needs {needs} data, got {got}")]
    UnsupportedData {
        /// What it accepts.
        needs: &'static str,
        /// What it was given.
        got: &'static str,
    },
    /// The model's kernel could not be evaluated on this data.
    #[error("kernel: {0}")]
    Kernel(String),
}
