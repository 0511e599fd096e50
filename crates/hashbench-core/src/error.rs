//! Typed errors: parameter errors are found before any data is touched, fit and
//! encode errors while a trial runs. Each names what is at fault.

use std::sync::Arc;

use faer::linalg::solvers::{EvdError, SvdError};

/// The typed error of a crate this one does not know (a kernel's, a
/// solver's), kept whole: its message is the error's own (shown in the
/// enclosing error's message, so not repeated as its source), and
/// [`SourceError::downcast_ref`] gives the typed value back. Shared, so the
/// errors that carry it stay `Clone`; equal when they are the same error or
/// say the same.
#[derive(Debug, Clone)]
pub struct SourceError(Arc<dyn std::error::Error + Send + Sync>);

impl SourceError {
    /// Wraps `error`.
    pub fn new(error: impl std::error::Error + Send + Sync + 'static) -> Self {
        Self(Arc::new(error))
    }

    /// The wrapped error as a `T`, when it is one.
    pub fn downcast_ref<T: std::error::Error + 'static>(&self) -> Option<&T> {
        self.0.downcast_ref::<T>()
    }
}

impl std::fmt::Display for SourceError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        self.0.fmt(f)
    }
}

impl std::error::Error for SourceError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        self.0.source()
    }
}

impl PartialEq for SourceError {
    fn eq(&self, other: &Self) -> bool {
        Arc::ptr_eq(&self.0, &other.0) || self.0.to_string() == other.0.to_string()
    }
}

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

/// Rows that cannot make a data set, the row at fault named.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum RowsError {
    /// A sparse row's indices are not strictly increasing.
    #[error("row {row}: indices must be strictly increasing")]
    Unsorted {
        /// Row index.
        row: usize,
    },
    /// A sparse row's index reaches the number of columns.
    #[error("row {row}: index {index} is outside {n_cols} columns")]
    OutOfRange {
        /// Row index.
        row: usize,
        /// The index.
        index: u32,
        /// Number of columns.
        n_cols: usize,
    },
    /// A value is NaN or infinite.
    #[error("row {row}: value {value} at index {index} is not finite")]
    NonFinite {
        /// Row index.
        row: usize,
        /// Column index.
        index: u32,
        /// The value.
        value: f64,
    },
    /// A Gram matrix is not square.
    #[error("a Gram matrix must be square, got {rows} x {cols}")]
    NotSquare {
        /// Rows.
        rows: usize,
        /// Columns.
        cols: usize,
    },
    /// A Gram matrix entry that no kernel gives: not finite, a negative
    /// diagonal (k(x, x) is never negative), or k(x, y) ≠ k(y, x) beyond
    /// 1e-6 of its largest entry.
    #[error("not a kernel matrix: entry ({row}, {col}) {why} (rows and columns counted from 0)")]
    NotAKernel {
        /// Row.
        row: usize,
        /// Column.
        col: usize,
        /// What is wrong with it.
        why: String,
    },
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
    Kernel(SourceError),
    /// The support vectors' kernel matrix is zero: no direction to learn.
    #[error("{method}: the support vectors' kernel matrix is zero")]
    ZeroKernelMatrix {
        /// Method name.
        method: &'static str,
    },
    /// An optimisation solver (a QP of LAMP, SpaH's and STH's numerics)
    /// failed.
    #[error("solver: {0}")]
    Solver(SourceError),
    /// A class has too few items for the method's neighbours.
    #[error("{method}: {needed} items per class are needed for its neighbours, a class has {got}")]
    ClassTooSmall {
        /// Method name.
        method: &'static str,
        /// Items per class needed.
        needed: usize,
        /// Items of the smallest class.
        got: usize,
    },
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
    Kernel(SourceError),
}

impl FitError {
    /// A kernel's own error.
    pub fn kernel(error: impl std::error::Error + Send + Sync + 'static) -> Self {
        FitError::Kernel(SourceError::new(error))
    }

    /// A solver's own error.
    pub fn solver(error: impl std::error::Error + Send + Sync + 'static) -> Self {
        FitError::Solver(SourceError::new(error))
    }
}

impl EncodeError {
    /// A kernel's own error.
    pub fn kernel(error: impl std::error::Error + Send + Sync + 'static) -> Self {
        EncodeError::Kernel(SourceError::new(error))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Debug, PartialEq, thiserror::Error)]
    #[error("block {0} failed")]
    struct Foreign(usize);

    #[test]
    fn a_foreign_error_stays_typed_inside_a_fit_error() {
        let e = FitError::kernel(Foreign(3));
        assert_eq!(e.to_string(), "kernel: block 3 failed");
        let FitError::Kernel(source) = &e else {
            panic!("{e:?}")
        };
        assert_eq!(source.downcast_ref::<Foreign>(), Some(&Foreign(3)));
        assert_eq!(source.downcast_ref::<ParamError>(), None);
        // its message is shown once, not again as a source in a chain
        assert!(std::error::Error::source(&e).is_none());
        assert_eq!(e.clone(), e);
        assert_ne!(e, FitError::solver(Foreign(3)));
        assert_ne!(e, FitError::kernel(Foreign(4)));
    }
}
