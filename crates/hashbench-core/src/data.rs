//! What methods read. `Data` is an enum so that kernel methods (sparse
//! histograms, precomputed Gram matrices) share the contract with vector methods.

use std::sync::Arc;

use faer::{Mat, MatRef};

use crate::error::{FitError, RowsError};

/// A set of items a method can be fitted on or encode.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub enum Data {
    /// Dense real vectors, one row per item.
    Dense(Mat<f64>),
    /// Sparse vectors (e.g. bag-of-words histograms), one row per item.
    Sparse(SparseRows),
    /// Items known only through a precomputed kernel (Gram) matrix.
    Gram(GramRows),
}

/// Sparse rows in compressed form: row `i` holds `indices[offsets[i]..offsets[i+1]]`
/// (strictly increasing) with their `values`.
#[derive(Debug, Clone, PartialEq)]
pub struct SparseRows {
    n_cols: usize,
    offsets: Vec<usize>,
    indices: Vec<u32>,
    values: Vec<f64>,
}

impl SparseRows {
    /// Builds rows from (index, value) lists; zeros are dropped.
    ///
    /// # Errors
    /// A [`RowsError`] naming the row when indices are not strictly
    /// increasing or reach `n_cols`, or a value is not finite.
    pub fn new(n_cols: usize, rows: &[Vec<(u32, f64)>]) -> Result<Self, RowsError> {
        let mut out = SparseRows {
            n_cols,
            offsets: vec![0],
            indices: Vec::new(),
            values: Vec::new(),
        };
        for (r, row) in rows.iter().enumerate() {
            for (k, &(i, v)) in row.iter().enumerate() {
                if k > 0 && row[k - 1].0 >= i {
                    return Err(RowsError::Unsorted { row: r });
                }
                if i as usize >= n_cols {
                    return Err(RowsError::OutOfRange {
                        row: r,
                        index: i,
                        n_cols,
                    });
                }
                if !v.is_finite() {
                    return Err(RowsError::NonFinite {
                        row: r,
                        index: i,
                        value: v,
                    });
                }
                if v != 0.0 {
                    out.indices.push(i);
                    out.values.push(v);
                }
            }
            out.offsets.push(out.indices.len());
        }
        Ok(out)
    }

    /// Number of rows.
    pub fn n_rows(&self) -> usize {
        self.offsets.len() - 1
    }

    /// Number of columns (the vector dimension).
    pub fn n_cols(&self) -> usize {
        self.n_cols
    }

    /// Indices and values of row `i`.
    pub fn row(&self, i: usize) -> (&[u32], &[f64]) {
        let r = self.offsets[i]..self.offsets[i + 1];
        (&self.indices[r.clone()], &self.values[r])
    }

    /// Every stored value.
    pub fn values(&self) -> &[f64] {
        &self.values
    }

    fn select(&self, rows: &[usize]) -> SparseRows {
        let mut out = SparseRows {
            n_cols: self.n_cols,
            offsets: vec![0],
            indices: Vec::new(),
            values: Vec::new(),
        };
        for &r in rows {
            let (i, v) = self.row(r);
            out.indices.extend_from_slice(i);
            out.values.extend_from_slice(v);
            out.offsets.push(out.indices.len());
        }
        out
    }
}

/// Items of a dataset whose only representation is its square kernel matrix:
/// item `k` here is row/column `items[k]` of the shared `gram`.
#[derive(Debug, Clone, PartialEq)]
pub struct GramRows {
    gram: Arc<Mat<f64>>,
    items: Vec<usize>,
}

impl GramRows {
    /// All items of a square Gram matrix, checked to be one a kernel gives:
    /// finite, symmetric (within 1e-6 of its largest entry) and with no
    /// negative diagonal entry.
    ///
    /// # Errors
    /// A matrix that is not square, or [`RowsError::NotAKernel`] naming the
    /// first entry at fault.
    pub fn new(gram: Mat<f64>) -> Result<Self, RowsError> {
        let n = gram.nrows();
        if n != gram.ncols() {
            return Err(RowsError::NotSquare {
                rows: n,
                cols: gram.ncols(),
            });
        }
        let fault = |row, col, why: String| Err(RowsError::NotAKernel { row, col, why });
        let mut scale = 0.0f64;
        for j in 0..n {
            for i in 0..n {
                let v = gram[(i, j)];
                if !v.is_finite() {
                    return fault(i, j, format!("is {v}"));
                }
                scale = scale.max(v.abs());
            }
        }
        if let Some(i) = (0..n).find(|&i| gram[(i, i)] < 0.0) {
            return fault(i, i, format!("is {}, a negative k(x, x)", gram[(i, i)]));
        }
        for j in 0..n {
            for i in 0..j {
                if (gram[(i, j)] - gram[(j, i)]).abs() > 1e-6 * scale {
                    return fault(
                        i,
                        j,
                        format!("is {} but ({j}, {i}) is {}", gram[(i, j)], gram[(j, i)]),
                    );
                }
            }
        }
        let items = (0..gram.nrows()).collect();
        Ok(Self {
            gram: Arc::new(gram),
            items,
        })
    }

    /// The whole matrix these items index.
    pub fn gram(&self) -> &Arc<Mat<f64>> {
        &self.gram
    }

    /// Every item of the same shared matrix.
    pub fn all_items(&self) -> GramRows {
        GramRows {
            gram: Arc::clone(&self.gram),
            items: (0..self.gram.nrows()).collect(),
        }
    }

    /// Row/column of each item in [`Self::gram`].
    pub fn items(&self) -> &[usize] {
        &self.items
    }
}

impl Data {
    /// Number of items.
    pub fn n_items(&self) -> usize {
        match self {
            Data::Dense(m) => m.nrows(),
            Data::Sparse(s) => s.n_rows(),
            Data::Gram(g) => g.items.len(),
        }
    }

    /// Short name of the kind, for error messages.
    pub fn kind(&self) -> &'static str {
        match self {
            Data::Dense(_) => "dense vectors",
            Data::Sparse(_) => "sparse vectors",
            Data::Gram(_) => "a precomputed Gram matrix",
        }
    }

    /// The dense matrix, or `None` for other kinds.
    pub fn as_dense(&self) -> Option<MatRef<'_, f64>> {
        match self {
            Data::Dense(m) => Some(m.as_ref()),
            _ => None,
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
            Data::Sparse(s) => Data::Sparse(s.select(rows)),
            Data::Gram(g) => Data::Gram(GramRows {
                gram: Arc::clone(&g.gram),
                items: rows.iter().map(|&r| g.items[r]).collect(),
            }),
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
    /// What the run's fits share (kNN graphs, neighbour lists, fold codes),
    /// when the caller keeps them; `None`: the fit computes everything.
    pub memos: Option<&'a crate::recent::Memos>,
}

/// Items with a label each, owning what a [`TrainSet`] borrows: a training
/// set with every item labelled, or without labels.
#[derive(Debug, Clone)]
pub struct LabelledData {
    /// The items.
    pub data: Data,
    /// The label of each item.
    pub labels: Vec<u32>,
    every: Vec<usize>,
}

impl LabelledData {
    /// `data` with `labels`, one per item.
    ///
    /// # Panics
    /// If the counts differ.
    pub fn new(data: Data, labels: Vec<u32>) -> Self {
        assert_eq!(data.n_items(), labels.len(), "one label per item");
        Self {
            every: (0..labels.len()).collect(),
            data,
            labels,
        }
    }

    /// The training set with every item labelled.
    pub fn labelled(&self) -> TrainSet<'_> {
        TrainSet {
            x: &self.data,
            labelled: &self.every,
            labels: &self.labels,
            memos: None,
        }
    }

    /// The training set without labels.
    pub fn unlabelled(&self) -> TrainSet<'_> {
        TrainSet::unlabelled(&self.data)
    }
}

impl<'a> TrainSet<'a> {
    /// An unlabelled training set.
    pub fn unlabelled(x: &'a Data) -> Self {
        Self {
            x,
            labelled: &[],
            labels: &[],
            memos: None,
        }
    }

    /// The dense training matrix with at least `min_items` rows, its values
    /// unread.
    ///
    /// # Errors
    /// [`FitError::UnsupportedData`] for non-vector data, [`FitError::TooFewItems`]
    /// below `min_items`.
    pub fn dense(
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
        Ok(x)
    }

    /// The dense training matrix, checked to be non-empty and finite.
    ///
    /// # Errors
    /// As [`TrainSet::dense`], and [`FitError::NonFinite`] at the first NaN
    /// or infinity.
    pub fn dense_finite(
        &self,
        method: &'static str,
        min_items: usize,
    ) -> Result<MatRef<'a, f64>, FitError> {
        let x = self.dense(method, min_items)?;
        check_finite(x)?;
        Ok(x)
    }
}

/// [`FitError::NonFinite`] at the first NaN or infinity of `x`, column by
/// column.
fn check_finite(x: MatRef<'_, f64>) -> Result<(), FitError> {
    for j in 0..x.ncols() {
        if !column_is_finite(x.col(j)) {
            let row = x.col(j).iter().position(|v| !v.is_finite()).unwrap_or(0);
            return Err(FitError::NonFinite { row, col: j });
        }
    }
    Ok(())
}

/// The column means of a training matrix, which is checked to be finite in
/// the same pass: a NaN or infinity makes its column's sum non-finite, so
/// only a non-finite sum sends `x` to the scan for the error naming the
/// entry (finite values whose sum overflowed are averaged term by term
/// instead).
///
/// # Errors
/// [`FitError::NonFinite`] at the first NaN or infinity.
pub fn finite_column_means(x: MatRef<'_, f64>) -> Result<Vec<f64>, FitError> {
    let mut means = crate::linalg::column_means(x);
    if means.iter().all(|m| m.is_finite()) {
        return Ok(means);
    }
    check_finite(x)?;
    let n = x.nrows() as f64;
    for (j, m) in means.iter_mut().enumerate() {
        if !m.is_finite() {
            *m = x.col(j).iter().map(|v| v / n).sum();
        }
    }
    Ok(means)
}

impl TrainSet<'_> {
    /// The label of every training row, in row order, for methods that read
    /// them all ([`crate::method::Supervision::AllTraining`]).
    ///
    /// # Errors
    /// [`FitError::MissingLabels`] unless every row is labelled.
    pub fn every_label(&self, method: &'static str) -> Result<Vec<u32>, FitError> {
        let n = self.x.n_items();
        if self.labelled.len() != n {
            return Err(FitError::MissingLabels { method });
        }
        let mut out = vec![0u32; n];
        for (&i, &y) in self.labelled.iter().zip(self.labels) {
            out[i] = y;
        }
        Ok(out)
    }

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

/// Whether every entry of `col` is finite: a branch-free test over blocks of a
/// contiguous column (it vectorises), element by element otherwise.
fn column_is_finite(col: faer::ColRef<'_, f64>) -> bool {
    match col.try_as_col_major() {
        Some(c) => c
            .as_slice()
            .chunks(512)
            .all(|block| !block.iter().fold(false, |bad, v| bad | !v.is_finite())),
        None => col.iter().all(|v| v.is_finite()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Issue 74: every path to a Gram matrix (a file, the Python package's
    /// `Gram`) gets one a kernel gives, or the entry at fault named.
    #[test]
    fn a_gram_matrix_no_kernel_gives_is_refused_naming_the_entry() {
        assert!(GramRows::new(faer::mat![[2.0, 0.5], [0.5, 1.0]]).is_ok());
        let cases = [
            (faer::mat![[1.0, 0.5], [0.5, -2.0]], "entry (1, 1) is -2"),
            (
                faer::mat![[1.0, 0.5], [0.4, 1.0]],
                "entry (0, 1) is 0.5 but (1, 0) is 0.4",
            ),
            (
                faer::mat![[1.0, f64::NAN], [0.5, 1.0]],
                "entry (0, 1) is NaN",
            ),
        ];
        for (gram, want) in cases {
            let e = GramRows::new(gram).unwrap_err().to_string();
            assert!(e.contains("not a kernel matrix") && e.contains(want), "{e}");
        }
    }

    #[test]
    fn the_first_non_finite_value_is_named_past_the_first_block() {
        let mut x = Mat::from_fn(3000, 3, |i, j| (i + j) as f64);
        x[(2100, 1)] = f64::INFINITY;
        x[(2500, 1)] = f64::NAN;
        x[(700, 2)] = f64::NAN;
        let data = Data::Dense(x);
        let train = TrainSet::unlabelled(&data);
        assert!(matches!(
            train.dense_finite("test", 1),
            Err(FitError::NonFinite { row: 2100, col: 1 })
        ));
        let clean = Data::Dense(Mat::from_fn(3000, 3, |i, j| (i * j) as f64));
        assert!(TrainSet::unlabelled(&clean).dense_finite("test", 1).is_ok());
        // a strided column (a row of a column-major matrix) is checked element by element
        let m = Mat::from_fn(6, 2, |i, _| if i == 3 { f64::NAN } else { 1.0 });
        assert!(!column_is_finite(m.as_ref().col(0)));
        let rows = m.as_ref().transpose();
        assert!(rows.col(3).try_as_col_major().is_none());
        assert!(!column_is_finite(rows.col(3)) && column_is_finite(rows.col(2)));
    }

    #[test]
    fn column_means_check_finiteness_in_the_same_pass() {
        let x = Mat::from_fn(700, 3, |i, j| (i * (j + 1)) as f64 - 100.0);
        let means = finite_column_means(x.as_ref()).unwrap();
        assert_eq!(means, crate::linalg::column_means(x.as_ref()));
        for bad in [f64::NAN, f64::INFINITY, f64::NEG_INFINITY] {
            let mut y = x.clone();
            y[(420, 2)] = bad;
            assert!(matches!(
                finite_column_means(y.as_ref()),
                Err(FitError::NonFinite { row: 420, col: 2 })
            ));
        }
        // finite values whose sum overflows: averaged term by term
        let big = Mat::from_fn(4, 2, |i, j| if j == 0 { f64::MAX } else { i as f64 });
        let means = finite_column_means(big.as_ref()).unwrap();
        assert_eq!(means, vec![f64::MAX, 1.5]);
    }
}
