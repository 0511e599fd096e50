//! Named feature transforms a spec applies to a loaded dataset. Each treats
//! every item alike; the ones that learn something (a vocabulary, document
//! frequencies) learn it from a named part of the dataset, the training part,
//! so nothing leaks from the queries.

use std::ops::Range;

use hashbench_core::valid::{Finite, NonZero};
use hashbench_core::{Data, SparseRows};
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

use crate::checksum::hex;
use crate::{DataError, Dataset, Result};

/// One transform (`transform = ["unit-length"]`,
/// `{ top-terms = { count = 500, fit-on = "train" } }`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case", deny_unknown_fields)]
pub enum Transform {
    /// Each item divided by its Euclidean norm (zero items left as they are):
    /// LAMP's "normalized to unit length" (Sec. 5).
    UnitLength,
    /// Sparse vectors as dense ones (svmlight copies of dense data, e.g. the
    /// LIBSVM USPS files).
    Dense,
    /// Keeps the `count` terms (columns) present in the most items of the
    /// part `fit_on` (document frequency; ties to the lower index), in index
    /// order, as dense columns (Sparse Hashing: "the 500 most frequent words").
    TopTerms {
        /// Terms kept.
        count: usize,
        /// The part whose items choose them.
        #[serde(rename = "fit-on")]
        fit_on: String,
    },
    /// tf-idf: each count times ln(N / df), N the items of part `fit_on` and
    /// df those holding the term (a term no such item holds weighs 0).
    TfIdf {
        /// The part whose items give the document frequencies.
        #[serde(rename = "fit-on")]
        fit_on: String,
    },
    /// Images (row-major `width` × `height`) shrunk by averaging each
    /// `factor` × `factor` block (Sparse Hashing: MNIST at 14 × 14).
    MeanPool {
        /// Image width.
        width: usize,
        /// Image height.
        height: usize,
        /// Block side.
        factor: usize,
    },
    /// Every value v of dense items becomes `scale`·v + `shift` (e.g. the
    /// [−1, 1] pixels of the GPML USPS copy back to gray levels in [0, 1],
    /// for methods that read nonnegative features).
    Affine {
        /// Factor (0 would make every item the same).
        scale: NonZero,
        /// Offset.
        shift: Finite,
    },
}

impl Transform {
    /// The transformed dataset; its fingerprint records the transform.
    ///
    /// # Errors
    /// [`DataError::Invalid`] for data the transform does not apply to (a
    /// precomputed Gram matrix).
    pub fn apply(&self, mut data: Dataset) -> Result<Dataset> {
        let name = data.name.as_str();
        data.x = match (self, &data.x) {
            (Transform::Dense, x) => dense(name, x)?,
            (Transform::TopTerms { count, fit_on }, x) => {
                top_terms(x, *count, part_items(&data, fit_on)?, name)?
            }
            (Transform::TfIdf { fit_on }, x) => tf_idf(x, part_items(&data, fit_on)?, name)?,
            (
                Transform::MeanPool {
                    width,
                    height,
                    factor,
                },
                Data::Dense(x),
            ) => mean_pool(x, *width, *height, *factor, name)?,
            (Transform::Affine { scale, shift }, Data::Dense(x)) => {
                let (scale, shift) = (scale.get(), shift.get());
                Data::Dense(faer::Mat::from_fn(x.nrows(), x.ncols(), |i, j| {
                    scale * x[(i, j)] + shift
                }))
            }
            (Transform::Affine { .. }, other) => {
                return Err(needs_vectors(name, "affine (dense)", other));
            }
            (Transform::MeanPool { .. }, other) => {
                return Err(needs_vectors(name, "mean-pool (dense images)", other));
            }
            (Transform::UnitLength, x) => unit_length(x, name)?,
        };
        data.fingerprint = hex(&Sha256::digest(format!("{}{self:?}", data.fingerprint)));
        Ok(data)
    }
}

/// Sparse rows made dense; dense rows as they are.
fn dense(name: &str, x: &Data) -> Result<Data> {
    match x {
        Data::Sparse(s) => {
            fits_in_memory(name, s.n_rows(), s.n_cols())?;
            let mut out = faer::Mat::<f64>::zeros(s.n_rows(), s.n_cols());
            for_each_entry(x, |i, j, v| out[(i, j)] = v);
            Ok(Data::Dense(out))
        }
        Data::Dense(_) => Ok(x.clone()),
        other => Err(needs_vectors(name, "dense", other)),
    }
}

/// The `count` terms in most of the `fit` items (ties to the lower term),
/// in term order, as dense columns.
fn top_terms(x: &Data, count: usize, fit: Range<usize>, name: &str) -> Result<Data> {
    let df = document_frequency(x, fit, name)?;
    let mut order: Vec<usize> = (0..df.len()).collect();
    order.sort_by(|&a, &b| df[b].cmp(&df[a]).then(a.cmp(&b)));
    let mut kept: Vec<usize> = order.into_iter().take(count).collect();
    kept.sort_unstable();
    let column: std::collections::HashMap<usize, usize> =
        kept.iter().enumerate().map(|(c, &t)| (t, c)).collect();
    let n = x.n_items();
    let mut out = faer::Mat::<f64>::zeros(n, kept.len());
    for_each_entry(x, |i, t, v| {
        if let Some(&c) = column.get(&t) {
            out[(i, c)] = v;
        }
    });
    Ok(Data::Dense(out))
}

/// Each term weighted by its inverse document frequency over the `fit`
/// items, ln(n / df) (0 for a term in none of them).
fn tf_idf(x: &Data, fit: Range<usize>, name: &str) -> Result<Data> {
    let n_fit = fit.len() as f64;
    let idf: Vec<f64> = document_frequency(x, fit, name)?
        .into_iter()
        .map(|df| {
            if df > 0 {
                (n_fit / df as f64).ln()
            } else {
                0.0
            }
        })
        .collect();
    match x {
        Data::Dense(m) => Ok(Data::Dense(faer::Mat::from_fn(
            m.nrows(),
            m.ncols(),
            |i, j| m[(i, j)] * idf[j],
        ))),
        Data::Sparse(s) => {
            let rows: Vec<Vec<(u32, f64)>> = (0..s.n_rows())
                .map(|i| {
                    let (idx, val) = s.row(i);
                    idx.iter()
                        .zip(val)
                        .map(|(&k, &v)| (k, v * idf[k as usize]))
                        .collect()
                })
                .collect();
            Ok(Data::Sparse(
                SparseRows::new(s.n_cols(), &rows)
                    .map_err(|e| DataError::Invalid(e.to_string()))?,
            ))
        }
        other => Err(needs_vectors(name, "tf-idf", other)),
    }
}

/// `width` x `height` images averaged over `factor` x `factor` blocks.
fn mean_pool(
    x: &faer::Mat<f64>,
    width: usize,
    height: usize,
    factor: usize,
    name: &str,
) -> Result<Data> {
    if factor == 0
        || width * height != x.ncols()
        || !width.is_multiple_of(factor)
        || !height.is_multiple_of(factor)
    {
        return Err(DataError::Invalid(format!(
            "dataset `{name}`: mean-pool of {width} x {height} images by {factor} needs {} values per item divisible into blocks, the items have {}",
            width * height,
            x.ncols()
        )));
    }
    let (w, h, f) = (width / factor, height / factor, factor);
    let scale = 1.0 / (f * f) as f64;
    Ok(Data::Dense(faer::Mat::from_fn(x.nrows(), w * h, |i, c| {
        let (r0, c0) = ((c / w) * f, (c % w) * f);
        let mut sum = 0.0;
        for r in r0..r0 + f {
            for k in c0..c0 + f {
                sum += x[(i, r * width + k)];
            }
        }
        sum * scale
    })))
}

/// Every row divided by its Euclidean length (a zero row left as it is).
fn unit_length(x: &Data, name: &str) -> Result<Data> {
    match x {
        Data::Dense(x) => {
            let norms: Vec<f64> = (0..x.nrows())
                .map(|i| x.row(i).iter().map(|v| v * v).sum::<f64>().sqrt())
                .collect();
            Ok(Data::Dense(faer::Mat::from_fn(
                x.nrows(),
                x.ncols(),
                |i, j| {
                    if norms[i] > 0.0 {
                        x[(i, j)] / norms[i]
                    } else {
                        x[(i, j)]
                    }
                },
            )))
        }
        Data::Sparse(s) => {
            let rows: Vec<Vec<(u32, f64)>> = (0..s.n_rows())
                .map(|i| {
                    let (idx, val) = s.row(i);
                    let norm = val.iter().map(|v| v * v).sum::<f64>().sqrt();
                    let norm = if norm > 0.0 { norm } else { 1.0 };
                    idx.iter().zip(val).map(|(&k, &v)| (k, v / norm)).collect()
                })
                .collect();
            Ok(Data::Sparse(
                SparseRows::new(s.n_cols(), &rows)
                    .map_err(|e| DataError::Invalid(e.to_string()))?,
            ))
        }
        other => Err(needs_vectors(name, "unit-length", other)),
    }
}

/// Refuses a dense `rows` × `cols` matrix of f64 larger than this machine's
/// memory before it is allocated (a sparse file's stray feature index of
/// 5·10⁸ made the allocation abort the process).
fn fits_in_memory(name: &str, rows: usize, cols: usize) -> Result<()> {
    let memory = memory_bytes().unwrap_or(u128::MAX);
    let bytes = rows as u128 * cols as u128 * 8;
    if bytes > memory {
        let gib = |b: u128| b as f64 / f64::from(1u32 << 30);
        return Err(DataError::Invalid(format!(
            "dataset `{name}`: made dense, its {rows} items of {cols} features (the largest feature index + 1) would take {:.1} GiB, more than this machine's {:.1} GiB; is a feature index in its files wrong?",
            gib(bytes),
            gib(memory)
        )));
    }
    Ok(())
}

/// The machine's memory (`MemTotal` of /proc/meminfo), when it can be read.
fn memory_bytes() -> Option<u128> {
    let text = std::fs::read_to_string("/proc/meminfo").ok()?;
    let line = text.lines().find(|l| l.starts_with("MemTotal:"))?;
    let kib: u128 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kib * 1024)
}

fn needs_vectors(name: &str, transform: &str, data: &Data) -> DataError {
    DataError::Invalid(format!(
        "dataset `{name}` holds {}; the {transform} transform needs vectors",
        data.kind()
    ))
}

/// The items of part `name`.
fn part_items(data: &Dataset, name: &str) -> Result<std::ops::Range<usize>> {
    data.parts
        .iter()
        .find(|(p, _)| p == name)
        .map(|(_, r)| r.clone())
        .ok_or_else(|| {
            DataError::Invalid(format!(
                "dataset `{}` has no part `{name}` to fit a transform on (parts: {})",
                data.name,
                data.parts
                    .iter()
                    .map(|p| p.0.as_str())
                    .collect::<Vec<_>>()
                    .join(", ")
            ))
        })
}

/// Calls `f(item, column, value)` for every nonzero entry.
fn for_each_entry(x: &Data, mut f: impl FnMut(usize, usize, f64)) {
    match x {
        Data::Dense(m) => {
            for j in 0..m.ncols() {
                for i in 0..m.nrows() {
                    if m[(i, j)] != 0.0 {
                        f(i, j, m[(i, j)]);
                    }
                }
            }
        }
        Data::Sparse(s) => {
            for i in 0..s.n_rows() {
                let (idx, val) = s.row(i);
                for (&k, &v) in idx.iter().zip(val) {
                    if v != 0.0 {
                        f(i, k as usize, v);
                    }
                }
            }
        }
        _ => {}
    }
}

/// How many of the items `fit` hold each column (nonzero).
fn document_frequency(x: &Data, fit: std::ops::Range<usize>, name: &str) -> Result<Vec<usize>> {
    let cols = match x {
        Data::Dense(m) => m.ncols(),
        Data::Sparse(s) => s.n_cols(),
        other => return Err(needs_vectors(name, "term", other)),
    };
    let mut df = vec![0usize; cols];
    for_each_entry(x, |i, j, _| {
        if fit.contains(&i) {
            df[j] += 1;
        }
    });
    Ok(df)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn dataset(x: Data) -> Dataset {
        Dataset {
            name: "toy".into(),
            x,
            labels: None,
            parts: Vec::new(),
            fingerprint: "f".into(),
        }
    }

    /// Issue 74: one stray feature index (about 4.3·10⁹ here: 1,000 items
    /// made dense take 32 TiB) aborted the process in the allocation; now
    /// refused, naming the data.
    #[test]
    fn a_dense_matrix_larger_than_memory_is_refused_before_allocation() {
        let rows = vec![vec![(0, 1.0), (u32::MAX - 1, 2.0)]; 1000];
        let x = Data::Sparse(hashbench_core::SparseRows::new(u32::MAX as usize, &rows).unwrap());
        let e = Transform::Dense.apply(dataset(x)).unwrap_err().to_string();
        assert!(
            e.contains("`toy`") && e.contains("more than this machine's"),
            "{e}"
        );
        let small = Data::Sparse(hashbench_core::SparseRows::new(3, &[vec![(2, 1.0)]]).unwrap());
        assert!(Transform::Dense.apply(dataset(small)).is_ok());
    }

    #[test]
    fn unit_length_divides_each_item_by_its_norm() {
        let d = Transform::UnitLength
            .apply(dataset(Data::Dense(faer::mat![
                [3.0, 4.0],
                [0.0, 0.0],
                [0.0, -2.0]
            ])))
            .unwrap();
        assert_eq!(
            d.x.as_dense().unwrap(),
            faer::mat![[0.6, 0.8], [0.0, 0.0], [0.0, -1.0]]
        );
        assert_ne!(d.fingerprint, "f");
        let sparse = SparseRows::new(5, &[vec![(1, 3.0), (4, 4.0)], vec![]]).unwrap();
        let d = Transform::UnitLength
            .apply(dataset(Data::Sparse(sparse)))
            .unwrap();
        let Data::Sparse(s) = &d.x else {
            panic!("sparse stays sparse")
        };
        assert_eq!(s.row(0), (&[1u32, 4][..], &[0.6, 0.8][..]));
        assert_eq!(s.row(1).0.len(), 0);
    }

    #[test]
    fn affine_maps_every_value_and_is_recorded() {
        let t: Transform =
            serde_json::from_str(r#"{ "affine": { "scale": 0.5, "shift": 0.5 } }"#).unwrap();
        let d = t
            .apply(dataset(Data::Dense(faer::mat![[-1.0, 1.0], [0.0, 0.5]])))
            .unwrap();
        assert_eq!(d.x.as_dense().unwrap(), faer::mat![[0.0, 1.0], [0.5, 0.75]]);
        assert_ne!(d.fingerprint, "f");
        let sparse = SparseRows::new(2, &[vec![(0, 1.0)]]).unwrap();
        assert!(t.apply(dataset(Data::Sparse(sparse))).is_err());
        // the fingerprint reads the transform's numbers as the plain f64s did
        assert_eq!(format!("{t:?}"), "Affine { scale: 0.5, shift: 0.5 }");
        // a zero scale would make every item one point: refused where it is read
        let e = serde_json::from_str::<Transform>(r#"{ "affine": { "scale": 0, "shift": 1 } }"#)
            .unwrap_err()
            .to_string();
        assert!(e.contains("expected a finite number other than 0"), "{e}");
    }

    fn with_parts(x: Data, parts: Vec<(String, std::ops::Range<usize>)>) -> Dataset {
        Dataset {
            parts,
            ..dataset(x)
        }
    }

    #[test]
    fn top_terms_and_tf_idf_learn_from_the_named_part_only() {
        // 4 items, 4 terms; train = items 0..3. Document frequencies on train:
        // term 0: 3, term 1: 1, term 2: 2, term 3: 0 (only the test item).
        let rows = vec![
            vec![(0, 1.0), (2, 2.0)],
            vec![(0, 3.0), (1, 1.0)],
            vec![(0, 1.0), (2, 1.0)],
            vec![(1, 2.0), (3, 5.0)],
        ];
        let data = with_parts(
            Data::Sparse(SparseRows::new(4, &rows).unwrap()),
            vec![("train".into(), 0..3), ("test".into(), 3..4)],
        );
        let top = Transform::TopTerms {
            count: 2,
            fit_on: "train".into(),
        }
        .apply(data.clone())
        .unwrap();
        // Terms 0 and 2 kept, in index order; the test item's term 3 is not.
        assert_eq!(
            top.x.as_dense().unwrap(),
            faer::mat![[1.0, 2.0], [3.0, 0.0], [1.0, 1.0], [0.0, 0.0]]
        );
        let tfidf = Transform::TfIdf {
            fit_on: "train".into(),
        }
        .apply(data.clone())
        .unwrap();
        let Data::Sparse(s) = &tfidf.x else {
            panic!("sparse stays sparse")
        };
        let (n, idf1, idf2) = (3.0f64, (3.0f64).ln(), (1.5f64).ln());
        // Term 0 is in every training item: idf 0, the entry drops out.
        assert_eq!(s.row(0), (&[2u32][..], &[2.0 * idf2][..]));
        assert_eq!(s.row(1).0, &[1u32][..]);
        assert!((s.row(1).1[0] - idf1).abs() < 1e-15);
        // Term 3 has no training document: weight 0; term 1 idf ln(3/1).
        assert_eq!(s.row(3), (&[1u32][..], &[2.0 * (n / 1.0).ln()][..]));
        let err = Transform::TfIdf {
            fit_on: "training".into(),
        }
        .apply(data)
        .unwrap_err()
        .to_string();
        assert!(
            err.contains("no part `training`") && err.contains("train, test"),
            "{err}"
        );
    }

    #[test]
    fn mean_pool_averages_blocks_and_dense_fills_in_zeros() {
        // One 4 x 2 image (width 4, height 2): pooled by 2 into 2 x 1.
        let x = Data::Dense(faer::mat![[1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0]]);
        let pool = Transform::MeanPool {
            width: 4,
            height: 2,
            factor: 2,
        };
        let d = pool.apply(dataset(x)).unwrap();
        let sparse = SparseRows::new(3, &[vec![(1, 2.0)], vec![(0, 1.0), (2, 3.0)]]).unwrap();
        let dense = Transform::Dense
            .apply(dataset(Data::Sparse(sparse)))
            .unwrap();
        assert_eq!(
            dense.x.as_dense().unwrap(),
            faer::mat![[0.0, 2.0, 0.0], [1.0, 0.0, 3.0]]
        );
        assert_eq!(
            d.x.as_dense().unwrap(),
            faer::mat![[(1.0 + 2.0 + 5.0 + 6.0) / 4.0, (3.0 + 4.0 + 7.0 + 8.0) / 4.0]]
        );
        let odd = Transform::MeanPool {
            width: 3,
            height: 2,
            factor: 2,
        };
        assert!(
            odd.apply(dataset(Data::Dense(faer::Mat::zeros(1, 6))))
                .is_err()
        );
    }
}
