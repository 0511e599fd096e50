//! The per-query values behind a scalar metric: what a paired test over
//! queries resamples (Smucker, Allan and Carterette, CIKM 2007).

use serde::{Deserialize, Serialize};

/// The mean of `values`, summed in order (NaN when none): a mean over
/// queries, as every aggregation and search takes it.
pub(crate) fn mean(values: impl Iterator<Item = f64>) -> f64 {
    let (sum, n) = values.fold((0.0, 0usize), |(s, n), v| (s + v, n + 1));
    if n == 0 { f64::NAN } else { sum / n as f64 }
}

/// The name the per-query values of point `x` of curve `curve` are kept
/// under, beside the scalars' (`recall-vs-retrieved@1040`): a curve point is
/// a mean over queries like a scalar, and resampled the same way.
pub fn curve_point_name(curve: &str, x: f64) -> String {
    format!("{curve}@{x}")
}

/// The curve a [`curve_point_name`] names (none for a scalar's name).
pub fn curve_of_point(name: &str) -> Option<&str> {
    name.rsplit_once('@').map(|(curve, _)| curve)
}

/// How a scalar metric follows from the means of its per-query parts.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Combine {
    /// The mean of the one part (MAP, precision at a radius, ...).
    Mean,
    /// 2pr / (p + r) of the means of the two parts (precision, recall); 0
    /// when both are 0.
    F1,
    /// Σ first part / Σ second part (pooled hits over pooled retrieved).
    RatioOfSums,
}

/// One value per query for each part; a NaN leaves the query out of that
/// part's mean (an empty ball under the skip policy, a query without
/// relevant items). Stored as `f32`: the table keeps the exact metric, these
/// only feed its resampling.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct QueryValues {
    /// How the parts' means make the metric.
    pub combine: Combine,
    /// Per-query values, one vector per part, each as long as the queries
    /// (NaN stored as null).
    #[serde(with = "nan_as_null")]
    pub parts: Vec<Vec<f32>>,
}

/// NaN as JSON null and back (JSON has no NaN).
mod nan_as_null {
    use serde::{Deserialize, Deserializer, Serialize, Serializer};

    pub fn serialize<S: Serializer>(parts: &[Vec<f32>], s: S) -> Result<S::Ok, S::Error> {
        let opt: Vec<Vec<Option<f32>>> = parts
            .iter()
            .map(|p| p.iter().map(|v| (!v.is_nan()).then_some(*v)).collect())
            .collect();
        opt.serialize(s)
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Vec<Vec<f32>>, D::Error> {
        let opt = Vec::<Vec<Option<f32>>>::deserialize(d)?;
        Ok(opt
            .into_iter()
            .map(|p| p.into_iter().map(|v| v.unwrap_or(f32::NAN)).collect())
            .collect())
    }
}

impl QueryValues {
    /// A mean over queries of `values`.
    pub fn mean(values: impl IntoIterator<Item = f64>) -> Self {
        Self {
            combine: Combine::Mean,
            parts: vec![values.into_iter().map(|v| v as f32).collect()],
        }
    }

    /// Number of queries.
    pub fn n_queries(&self) -> usize {
        self.parts.first().map_or(0, Vec::len)
    }

    /// The metric over every query once.
    pub fn value(&self) -> f64 {
        self.value_on(0..self.n_queries())
    }

    /// The metric over the queries `sample` (indices; repeats count again).
    pub fn value_on(&self, sample: impl Iterator<Item = usize> + Clone) -> f64 {
        let sums: Vec<(f64, usize)> = self
            .parts
            .iter()
            .map(|part| {
                sample.clone().fold((0.0, 0), |(s, n), q| {
                    let v = f64::from(part[q]);
                    if v.is_nan() { (s, n) } else { (s + v, n + 1) }
                })
            })
            .collect();
        let mean = |(s, n): (f64, usize)| if n == 0 { f64::NAN } else { s / n as f64 };
        match self.combine {
            Combine::Mean => mean(sums[0]),
            Combine::F1 => {
                let (p, r) = (mean(sums[0]), mean(sums[1]));
                if p + r > 0.0 {
                    2.0 * p * r / (p + r)
                } else if p.is_nan() || r.is_nan() {
                    f64::NAN
                } else {
                    0.0
                }
            }
            Combine::RatioOfSums => {
                if sums[1].0 > 0.0 {
                    sums[0].0 / sums[1].0
                } else {
                    f64::NAN
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_resample_counts_repeated_queries_again_and_skips_nan() {
        let v = QueryValues::mean([1.0, 0.0, f64::NAN, 0.5]);
        assert_eq!(v.value(), 0.5);
        // query 0 twice, query 2 (NaN) left out: (1 + 1 + 0.5) / 3
        assert!((v.value_on([0, 0, 2, 3].into_iter()) - 2.5 / 3.0).abs() < 1e-12);
        assert!(v.value_on([2].into_iter()).is_nan());
    }

    #[test]
    fn nan_survives_json_as_null() {
        let v = QueryValues::mean([0.25, f64::NAN]);
        let text = serde_json::to_string(&v).unwrap();
        assert!(text.contains("null"), "{text}");
        let back: QueryValues = serde_json::from_str(&text).unwrap();
        assert_eq!(back.value(), 0.25);
        assert!(back.parts[0][1].is_nan());
    }

    #[test]
    fn f1_and_pooled_ratio_by_hand() {
        // precision means 0.5, recall means 0.25: F1 = 2·0.125/0.75 = 1/3
        let f1 = QueryValues {
            combine: Combine::F1,
            parts: vec![vec![1.0, 0.0], vec![0.5, 0.0]],
        };
        assert!((f1.value() - 1.0 / 3.0).abs() < 1e-12);
        let zero = QueryValues {
            combine: Combine::F1,
            parts: vec![vec![0.0], vec![0.0]],
        };
        assert_eq!(zero.value(), 0.0);
        // 3 hits of 4 retrieved, then 0 of 4: 3/8, not the mean of 3/4 and 0
        let pooled = QueryValues {
            combine: Combine::RatioOfSums,
            parts: vec![vec![3.0, 0.0], vec![4.0, 4.0]],
        };
        assert_eq!(pooled.value(), 3.0 / 8.0);
    }
}
