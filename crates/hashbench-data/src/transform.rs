//! Named feature transforms a spec applies to a loaded dataset, item by item
//! (so queries and database are treated alike and nothing leaks between them).

use hashbench_core::{Data, SparseRows};
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

use crate::registry::hex;
use crate::{DataError, Dataset, Result};

/// One transform (`transform = ["unit-length"]`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Transform {
    /// Each item divided by its Euclidean norm (zero items left as they are):
    /// LAMP's "normalized to unit length" (Sec. 5).
    UnitLength,
}

impl Transform {
    /// The transformed dataset; its fingerprint records the transform.
    ///
    /// # Errors
    /// [`DataError::Invalid`] for data the transform does not apply to (a
    /// precomputed Gram matrix).
    pub fn apply(self, mut data: Dataset) -> Result<Dataset> {
        data.x = match (self, &data.x) {
            (Transform::UnitLength, Data::Dense(x)) => {
                let norms: Vec<f64> = (0..x.nrows())
                    .map(|i| x.row(i).iter().map(|v| v * v).sum::<f64>().sqrt())
                    .collect();
                Data::Dense(faer::Mat::from_fn(x.nrows(), x.ncols(), |i, j| {
                    if norms[i] > 0.0 {
                        x[(i, j)] / norms[i]
                    } else {
                        x[(i, j)]
                    }
                }))
            }
            (Transform::UnitLength, Data::Sparse(s)) => {
                let rows: Vec<Vec<(u32, f64)>> = (0..s.n_rows())
                    .map(|i| {
                        let (idx, val) = s.row(i);
                        let norm = val.iter().map(|v| v * v).sum::<f64>().sqrt();
                        let norm = if norm > 0.0 { norm } else { 1.0 };
                        idx.iter().zip(val).map(|(&k, &v)| (k, v / norm)).collect()
                    })
                    .collect();
                Data::Sparse(SparseRows::new(s.n_cols(), &rows).map_err(DataError::Invalid)?)
            }
            (Transform::UnitLength, other) => {
                return Err(DataError::Invalid(format!(
                    "dataset `{}` holds {}; the unit-length transform needs vectors",
                    data.name,
                    other.kind()
                )));
            }
        };
        data.fingerprint = hex(&Sha256::digest(format!("{}{self:?}", data.fingerprint)));
        Ok(data)
    }
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
}
