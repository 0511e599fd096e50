//! What methods read. `Data` is an enum so that kernel methods (later: sparse
//! histograms, precomputed Gram matrices) share the contract with vector methods.

use faer::{Mat, MatRef};

use crate::error::FitError;

/// A set of items a method can be fitted on or encode.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub enum Data {
    /// Dense real vectors, one row per item.
    Dense(Mat<f64>),
}

impl Data {
    /// Number of items.
    pub fn n_items(&self) -> usize {
        match self {
            Data::Dense(m) => m.nrows(),
        }
    }

    /// Short name of the kind, for error messages.
    pub fn kind(&self) -> &'static str {
        match self {
            Data::Dense(_) => "dense vectors",
        }
    }

    /// The dense matrix, or `None` for other kinds.
    pub fn as_dense(&self) -> Option<MatRef<'_, f64>> {
        match self {
            Data::Dense(m) => Some(m.as_ref()),
        }
    }

    /// The items at `rows`, in that order.
    ///
    /// # Panics
    /// If a row index is out of range.
    #[track_caller]
    pub fn select(&self, rows: &[usize]) -> Data {
        match self {
            Data::Dense(m) => {
                Data::Dense(Mat::from_fn(rows.len(), m.ncols(), |i, j| m[(rows[i], j)]))
            }
        }
    }
}

/// Training data handed to [`crate::HashMethod::fit`].
///
/// `labelled` indexes rows of `x` whose class label is known (`labels[i]` for
/// `labelled[i]`); unsupervised methods ignore both.
#[derive(Debug, Clone, Copy)]
pub struct TrainSet<'a> {
    /// Training items.
    pub x: &'a Data,
    /// Rows of `x` with a known label.
    pub labelled: &'a [usize],
    /// Labels of the rows in `labelled`, same order.
    pub labels: &'a [u32],
}

impl<'a> TrainSet<'a> {
    /// An unlabelled training set.
    pub fn unlabelled(x: &'a Data) -> Self {
        Self {
            x,
            labelled: &[],
            labels: &[],
        }
    }

    /// The dense training matrix, checked to be non-empty and finite.
    ///
    /// # Errors
    /// [`FitError::UnsupportedData`] for non-vector data, [`FitError::TooFewItems`]
    /// below `min_items`, [`FitError::NonFinite`] at the first NaN or infinity.
    pub fn dense_finite(
        &self,
        method: &'static str,
        min_items: usize,
    ) -> Result<MatRef<'a, f64>, FitError> {
        let x = self.x.as_dense().ok_or(FitError::UnsupportedData {
            method,
            needs: "dense vector",
            got: self.x.kind(),
        })?;
        if x.nrows() < min_items {
            return Err(FitError::TooFewItems {
                method,
                needed: min_items,
                got: x.nrows(),
            });
        }
        for j in 0..x.ncols() {
            for i in 0..x.nrows() {
                if !x[(i, j)].is_finite() {
                    return Err(FitError::NonFinite { row: i, col: j });
                }
            }
        }
        Ok(x)
    }
}

impl TrainSet<'_> {
    /// The labelled rows of the dense training matrix, centred with `mean`.
    ///
    /// # Panics
    /// If the data is not dense or a labelled index is out of range.
    #[track_caller]
    pub fn labelled_centered(&self, mean: &[f64]) -> Mat<f64> {
        let x = self.x.as_dense().expect("dense training data");
        Mat::from_fn(self.labelled.len(), x.ncols(), |i, j| {
            x[(self.labelled[i], j)] - mean[j]
        })
    }
}
